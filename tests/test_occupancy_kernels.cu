// SPDX-License-Identifier: Apache-2.0
// test_occupancy_kernels.cu — kernels of several register and shared-memory
// footprints for test_occupancy's GPU half: their attributes, and the
// runtime's cudaOccupancyMaxActiveBlocksPerMultiprocessor to hold the
// calculator against.
#include <cuda_runtime.h>
#include <stddef.h>

// Register pressure grows with R: R independent accumulators kept live.
template <int R, int SMEM>
__global__ void k_footprint(float *out, const float *in, int n)
{
    constexpr int NT = SMEM > 0 ? SMEM / 4 : 1;
    __shared__ float tile[NT];
    float acc[R];
#pragma unroll
    for (int j = 0; j < R; j++) acc[j] = in[(threadIdx.x + j * 97) % n];
    for (int it = 0; it < n; it++)
#pragma unroll
        for (int j = 0; j < R; j++) acc[j] = acc[j] * in[(it + j) % n] + acc[(j + 1) % R];
    if (SMEM > 0) {
        tile[threadIdx.x % NT] = acc[0];
        __syncthreads();
        acc[0] += tile[(threadIdx.x + 1) % NT];
    }
    float s = 0;
#pragma unroll
    for (int j = 0; j < R; j++) s += acc[j];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

typedef void (*kfn)(float *, const float *, int);
static const struct {
    kfn f;
    const char *name;
} kernels[] = {
    {k_footprint<2, 0>, "few registers"},         {k_footprint<24, 0>, "about 32 registers"},
    {k_footprint<40, 4096>, "about 48 registers, 4 KiB"}, {k_footprint<56, 16384>, "about 64 registers, 16 KiB"},
    {k_footprint<72, 0>, "about 80 registers"},   {k_footprint<120, 32768>, "about 128 registers, 32 KiB"},
};

extern "C" int occ_test_kernel_count(void) { return (int)(sizeof kernels / sizeof kernels[0]); }

extern "C" int occ_test_kernel(int k, int *regs, size_t *static_smem, const char **name)
{
    cudaFuncAttributes a;
    if (cudaFuncGetAttributes(&a, kernels[k].f) != cudaSuccess) return -1;
    *regs = a.numRegs;
    *static_smem = a.sharedSizeBytes;
    *name = kernels[k].name;
    return 0;
}

// 0 and *blocks, or -1 when the runtime refuses the configuration (block
// larger than the kernel allows, or shared memory beyond the opt-in).
extern "C" int occ_test_runtime(int k, int threads, size_t dyn, int *blocks)
{
    cudaFuncAttributes a;
    if (cudaFuncGetAttributes(&a, kernels[k].f) != cudaSuccess) return -1;
    if (threads > a.maxThreadsPerBlock) return -1;
    if (a.sharedSizeBytes + dyn > 48 * 1024 &&
        cudaFuncSetAttribute(kernels[k].f, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)dyn) != cudaSuccess) {
        cudaGetLastError();
        return -1;
    }
    cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, kernels[k].f, threads, dyn);
    if (e != cudaSuccess) {
        cudaGetLastError();
        return -1;
    }
    return 0;
}
