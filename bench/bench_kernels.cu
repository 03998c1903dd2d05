// SPDX-License-Identifier: Apache-2.0
// bench_kernels.cu — the harness's own device code: input generation and the
// kernels behind the read and FP32 ceilings. C entry points in harness.h.
#include "harness.h"

#include <cuda_runtime.h>

namespace {

constexpr int kThreads = 256;

int grid_for(size_t n)
{
    // Grid-stride loops: enough blocks to fill any current GPU, no more.
    size_t b = (n + kThreads - 1) / kThreads;
    return (int)(b < 65536 ? (b ? b : 1) : 65536);
}

__global__ void fill_f32(float *p, size_t n, uint64_t seed, float lo, float scale)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        p[i] = bench_rand_f32(seed, i, lo, scale);
}

__global__ void fill_u8(uint8_t *p, size_t n, uint64_t seed)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        p[i] = bench_rand_u8(seed, i);
}

__device__ __forceinline__ float4 add4(float4 a, float4 b)
{
    return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}

// Read-only stream: 16-byte loads, four in flight per thread; the sum is
// reduced per warp and added to *sink, so no load is dead code.
__global__ void __launch_bounds__(kThreads) read_stream(const float4 *__restrict__ p, size_t n4,
                                                        float *sink)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    float4 acc = make_float4(0, 0, 0, 0), acc2 = acc;
    for (; i + 3 * stride < n4; i += 4 * stride) {
        float4 a = __ldg(p + i), b = __ldg(p + i + stride);
        float4 c = __ldg(p + i + 2 * stride), d = __ldg(p + i + 3 * stride);
        acc = add4(acc, add4(a, b));
        acc2 = add4(acc2, add4(c, d));
    }
    for (; i < n4; i += stride) acc = add4(acc, __ldg(p + i));
    float s = acc.x + acc.y + acc.z + acc.w + acc2.x + acc2.y + acc2.z + acc2.w;
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
    if ((threadIdx.x & 31) == 0) atomicAdd(sink, s);
}

// FP32 peak: kChains independent FMA chains per thread hide the FMA latency;
// m and c are runtime values so nothing folds. The result is stored only when
// it hits a value it never reaches, which the compiler cannot know.
constexpr int kChains = 8;
__global__ void __launch_bounds__(kThreads) fma_chains(float *sink, int iters, float m, float c)
{
    float a[kChains];
#pragma unroll
    for (int k = 0; k < kChains; k++) a[k] = (float)(threadIdx.x + k) * 1e-3f;
#pragma unroll 4
    for (int it = 0; it < iters; it++) {
#pragma unroll
        for (int k = 0; k < kChains; k++) a[k] = fmaf(a[k], m, c);
    }
    float s = 0;
#pragma unroll
    for (int k = 0; k < kChains; k++) s += a[k];
    if (s == -1.0f) *sink = s;
}

// Does nothing: what is timed is the launch itself (the launch floor).
__global__ void empty_kernel() {}

} // namespace

extern "C" int bench_kernel_fill_f32(float *p, size_t n, uint64_t seed, float lo, float scale,
                                     cupat_stream s)
{
    if (n == 0) return cudaSuccess;
    fill_f32<<<grid_for(n), kThreads, 0, (cudaStream_t)s>>>(p, n, seed, lo, scale);
    return cudaGetLastError();
}

extern "C" int bench_kernel_fill_u8(uint8_t *p, size_t n, uint64_t seed, cupat_stream s)
{
    if (n == 0) return cudaSuccess;
    fill_u8<<<grid_for(n), kThreads, 0, (cudaStream_t)s>>>(p, n, seed);
    return cudaGetLastError();
}

extern "C" int bench_kernel_read(const void *p, size_t bytes, float *sink, int blocks,
                                 cupat_stream s)
{
    read_stream<<<blocks, kThreads, 0, (cudaStream_t)s>>>((const float4 *)p, bytes / 16, sink);
    return cudaGetLastError();
}

extern "C" int bench_kernel_fma(float *sink, int blocks, int iters, cupat_stream s,
                                double *flops)
{
    fma_chains<<<blocks, kThreads, 0, (cudaStream_t)s>>>(sink, iters, 0.999999f, 1e-6f);
    *flops = 2.0 * kChains * (double)iters * kThreads * blocks;
    return cudaGetLastError();
}

extern "C" int bench_kernel_empty(int count, cupat_stream s)
{
    for (int i = 0; i < count; i++) {
        empty_kernel<<<1, 32, 0, (cudaStream_t)s>>>();
        cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess) return e;
    }
    return cudaSuccess;
}
