// SPDX-License-Identifier: Apache-2.0
// streams.cu — the kernels of the streams lab (streams.h): a spin kernel that
// stamps its own start and end with %globaltimer (the timelines of the
// scheduling experiments), the chunk kernel of the overlap loop (PCCP 6.1.1's
// vector add, or a heavier FMA chain), and the tiny kernel of the graph chain.
#include "streams/streams.h"

namespace cupat_lab_streams {

__device__ __forceinline__ unsigned long long now_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// Every thread spins, so the block holds its SM slot for the whole time.
__global__ void k_spin(unsigned long long ns, unsigned long long *stamps, int slot)
{
    const unsigned long long t0 = now_ns();
    while (now_ns() - t0 < ns) {
    }
    __syncthreads();
    if (threadIdx.x == 0 && stamps) {
        atomicMin(&stamps[2 * slot], t0);
        atomicMin(&stamps[2 * slot + 1], ~now_ns()); // the latest end
    }
}

// iters == 0: c = a + b (PCCP's vector add); else an FMA chain of iters
// steps an element (a kernel as long as the copies, or longer).
__global__ void k_vadd(const float *a, const float *b, float *c, size_t n, int iters)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        float v = a[i] + b[i];
        for (int k = 0; k < iters; k++) v = fmaf(v, 0.999f, b[i]);
        c[i] = v;
    }
}

__global__ void k_inc(float *x, unsigned n, float add)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += add;
}

} // namespace cupat_lab_streams

using namespace cupat_lab_streams;

extern "C" cudaError_t lab_st_spin(cudaStream_t s, unsigned blocks, unsigned threads,
                                   unsigned long long ns, unsigned long long *stamps, int slot)
{
    k_spin<<<blocks, threads, 0, s>>>(ns, stamps, slot);
    return cudaGetLastError();
}

extern "C" cudaError_t lab_st_vadd(cudaStream_t s, const float *a, const float *b, float *c,
                                   size_t n, int iters)
{
    if (n == 0) return cudaSuccess;
    size_t blocks = (n + 255) / 256;
    if (blocks > 65536) blocks = 65536;
    k_vadd<<<(unsigned)blocks, 256, 0, s>>>(a, b, c, n, iters);
    return cudaGetLastError();
}

extern "C" cudaError_t lab_st_inc(cudaStream_t s, float *x, unsigned n, float add)
{
    k_inc<<<(n + 127) / 128, 128, 0, s>>>(x, n, add);
    return cudaGetLastError();
}

extern "C" cudaError_t lab_st_cache_config(int prefer_shared)
{
    return cudaFuncSetCacheConfig(k_inc, prefer_shared ? cudaFuncCachePreferShared : cudaFuncCachePreferL1);
}
