// SPDX-License-Identifier: Apache-2.0
// exec_regs.cu — kernels of `cupat lab exec` about resources: the register
// cliff (one body, exec_cliff.cuh, under each way of bounding registers:
// __launch_bounds__, __maxnreg__; -maxrregcount is exec_maxrreg.cu) and the
// occupancy APIs (cudaOccupancyMaxPotentialBlockSize against a block-size
// sweep of three kernels: a light stream, the register-heavy cliff body, and
// one that takes 24 KiB of shared memory a block).
#include "exec/exec_cliff.cuh"

namespace {

// ---- the register cliff (Guide 8.2.3: 64 -> 65 registers at 512 threads) -----

__global__ void k_cliff_free(const float4 *in, size_t n4, float *out)
{
    exec_cliff_body(in, n4, out);
}
// (512, 1): 65,536 / 512 = 128 registers a thread allowed
__global__ void __launch_bounds__(512, 1) k_cliff_lb1(const float4 *in, size_t n4, float *out)
{
    exec_cliff_body(in, n4, out);
}
// (512, 2): two blocks must fit, 65,536 / 1,024 = 64 registers at most
__global__ void __launch_bounds__(512, 2) k_cliff_lb2(const float4 *in, size_t n4, float *out)
{
    exec_cliff_body(in, n4, out);
}
__global__ void __maxnreg__(72) k_cliff_r72(const float4 *in, size_t n4, float *out)
{
    exec_cliff_body(in, n4, out);
}
__global__ void __maxnreg__(65) k_cliff_r65(const float4 *in, size_t n4, float *out)
{
    exec_cliff_body(in, n4, out);
}
__global__ void __maxnreg__(64) k_cliff_r64(const float4 *in, size_t n4, float *out)
{
    exec_cliff_body(in, n4, out);
}
__global__ void __maxnreg__(40) k_cliff_r40(const float4 *in, size_t n4, float *out)
{
    exec_cliff_body(in, n4, out);
}

__global__ void k_cliff_fill(float *d, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        d[i] = exec_cliff_in((uint32_t)i);
}

// ---- occupancy sweep kernels ----------------------------------------------------

constexpr size_t OCC_SMEM = 24 * 1024; // dynamic shared memory of k_occ_smem

// out[i] = 2 in[i] + 1: a few registers, no shared memory.
__global__ void k_occ_stream(const float *__restrict__ in, float *__restrict__ out, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        out[i] = __fadd_rn(__fmul_rn(2.0f, in[i]), 1.0f);
}

// The same result through a 24 KiB shared tile a block (tiles grid-strided),
// each value written back by the thread after its neighbour.
__global__ void k_occ_smem(const float *__restrict__ in, float *__restrict__ out, size_t n)
{
    extern __shared__ float tile[];
    constexpr size_t S = OCC_SMEM / sizeof(float);
    for (size_t base = blockIdx.x * S; base < n; base += (size_t)gridDim.x * S) {
        const size_t len = n - base < S ? n - base : S;
        for (size_t k = threadIdx.x; k < len; k += blockDim.x) tile[k] = in[base + k];
        __syncthreads();
        for (size_t k = threadIdx.x; k < len; k += blockDim.x) {
            const size_t q = (k + 1) % len;
            out[base + q] = __fadd_rn(__fmul_rn(2.0f, tile[q]), 1.0f);
        }
        __syncthreads();
    }
}

__global__ void k_occ_cliff(const float4 *in, size_t n4, float *out)
{
    exec_cliff_body(in, n4, out);
}

// in the order of the LAB_CLIFF_* variants (the -maxrregcount one is last)
const exec_cliff_kernel cliff_kernels[] = {k_cliff_free, k_cliff_lb1, k_cliff_lb2, k_cliff_r72,
                                           k_cliff_r65,  k_cliff_r64, k_cliff_r40};
static_assert(sizeof cliff_kernels / sizeof cliff_kernels[0] == LAB_CLIFF_MAXRREG_64, "cliff variants");

const void *occ_fn(int k)
{
    switch (k) {
    case LAB_OCC_STREAM: return (const void *)k_occ_stream;
    case LAB_OCC_CLIFF: return (const void *)k_occ_cliff;
    case LAB_OCC_SMEM: return (const void *)k_occ_smem;
    }
    return nullptr;
}
size_t occ_dyn(int k)
{
    return k == LAB_OCC_SMEM ? OCC_SMEM : 0;
}

struct occ_args {
    int k, threads;
    unsigned blocks;
    const float *in;
    float *out;
    size_t n;
};
cupat_status occ_launch(cupat_ctx *ctx, void *p)
{
    const occ_args *a = (const occ_args *)p;
    switch (a->k) {
    case LAB_OCC_STREAM: k_occ_stream<<<a->blocks, a->threads, 0, ctx->stream>>>(a->in, a->out, a->n); break;
    case LAB_OCC_SMEM: k_occ_smem<<<a->blocks, a->threads, OCC_SMEM, ctx->stream>>>(a->in, a->out, a->n); break;
    case LAB_OCC_CLIFF:
        k_occ_cliff<<<a->blocks, a->threads, 0, ctx->stream>>>((const float4 *)a->in, a->n / 4, a->out);
        break;
    default: return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab exec: occupancy kernel %d", a->k);
    }
    return cupat__launched(ctx, "k_occ");
}

} // namespace

extern "C" cupat_status cupat__lab_exec_cliff(cupat_ctx *ctx, int v, const float *d_in, size_t n4, int reps,
                                              float *d_out, float *times, lab_exec_cliff *attr)
{
    if (v == LAB_CLIFF_MAXRREG_64) return cupat__lab_exec_cliff_maxrreg(ctx, d_in, n4, reps, d_out, times, attr);
    if (v < 0 || v >= LAB_CLIFF_MAXRREG_64)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab exec: cliff variant %d", v);
    return exec_cliff_measure(ctx, cliff_kernels[v], d_in, n4, reps, d_out, times, attr);
}

extern "C" cupat_status cupat__lab_exec_cliff_fill(cupat_ctx *ctx, float *d, size_t nfloats)
{
    k_cliff_fill<<<1024, 256, 0, ctx->stream>>>(d, nfloats);
    return cupat__launched(ctx, "k_cliff_fill");
}

extern "C" cupat_status cupat__lab_exec_occ_info(cupat_ctx *ctx, int k, lab_exec_kinfo *info)
{
    const void *f = occ_fn(k);
    if (!f) return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab exec: occupancy kernel %d", k);
    cudaFuncAttributes fa;
    CUPAT_CUDA_TRY(ctx, cudaFuncGetAttributes(&fa, f));
    info->regs = fa.numRegs;
    info->max_threads = fa.maxThreadsPerBlock;
    info->static_smem = fa.sharedSizeBytes;
    info->local_bytes = fa.localSizeBytes;
    info->dyn_smem = occ_dyn(k);
    return CUPAT_SUCCESS;
}

extern "C" cupat_status cupat__lab_exec_occ_potential(cupat_ctx *ctx, int k, int *min_grid, int *block)
{
    const void *f = occ_fn(k);
    if (!f) return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab exec: occupancy kernel %d", k);
    return cupat__cuda(ctx, cudaOccupancyMaxPotentialBlockSize(min_grid, block, f, occ_dyn(k), 0),
                       "cudaOccupancyMaxPotentialBlockSize");
}

extern "C" cupat_status cupat__lab_exec_occ_active(cupat_ctx *ctx, int k, int threads, int *blocks)
{
    const void *f = occ_fn(k);
    if (!f) return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab exec: occupancy kernel %d", k);
    return cupat__cuda(ctx, cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, f, threads, occ_dyn(k)),
                       "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
}

extern "C" cupat_status cupat__lab_exec_occ_run(cupat_ctx *ctx, int k, int threads, unsigned blocks, const float *d_in,
                                                float *d_out, size_t n, int reps, float *times)
{
    occ_args a = {k, threads, blocks, d_in, d_out, n};
    return cupat__lab_exec_time(ctx, reps, occ_launch, &a, times);
}
