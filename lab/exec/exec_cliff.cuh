// SPDX-License-Identifier: Apache-2.0
// exec_cliff.cuh — the register-cliff kernel's body (exec_work.h describes
// the arithmetic), shared by exec_regs.cu (launch bounds, __maxnreg__) and
// exec_maxrreg.cu (the same body under -maxrregcount=64), and the launch
// and attribute query every variant goes through.
#ifndef CUPAT_LAB_EXEC_CLIFF_CUH
#define CUPAT_LAB_EXEC_CLIFF_CUH

#include "exec/exec.h"
#include "exec/exec_work.h"

#include "internal.h"

__device__ __forceinline__ void exec_cliff_body(const float4 *__restrict__ in, size_t n4, float *__restrict__ out)
{
    const size_t T = (size_t)gridDim.x * blockDim.x;
    const size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    float acc[CLIFF_NACC];
#pragma unroll
    for (int j = 0; j < CLIFF_NACC; j++) acc[j] = (float)j;
    for (size_t i = t; i < n4; i += T) {
        const float4 v = in[i];
#pragma unroll
        for (int j = 0; j < CLIFF_NACC; j++) {
            const float x = j % 4 == 0 ? v.x : j % 4 == 1 ? v.y : j % 4 == 2 ? v.z : v.w;
            acc[j] = fmaf(acc[j], exec_cliff_coef(j), x);
        }
    }
    float s = 0.0f;
#pragma unroll
    for (int j = 0; j < CLIFF_NACC; j++) s = __fadd_rn(s, acc[j]);
    out[t] = s;
}

typedef void (*exec_cliff_kernel)(const float4 *, size_t, float *);

struct exec_cliff_args {
    exec_cliff_kernel k;
    unsigned blocks;
    const float4 *in;
    size_t n4;
    float *out;
};

static cupat_status exec_cliff_launch(cupat_ctx *ctx, void *p)
{
    const exec_cliff_args *a = (const exec_cliff_args *)p;
    a->k<<<a->blocks, LAB_CLIFF_THREADS, 0, ctx->stream>>>(a->in, a->n4, a->out);
    return cupat__launched(ctx, "k_cliff");
}

// Attributes and residency of k at 512 threads; one full wave of blocks
// (resident x SMs), timed.
static cupat_status exec_cliff_measure(cupat_ctx *ctx, exec_cliff_kernel k, const float *d_in, size_t n4,
                                       int reps, float *d_out, float *times, lab_exec_cliff *attr)
{
    cudaFuncAttributes fa;
    CUPAT_CUDA_TRY(ctx, cudaFuncGetAttributes(&fa, k));
    attr->regs = fa.numRegs;
    attr->local_bytes = fa.localSizeBytes;
    attr->max_threads = fa.maxThreadsPerBlock;
    int bps = 0;
    CUPAT_CUDA_TRY(ctx, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&bps, k, LAB_CLIFF_THREADS, 0));
    attr->blocks_per_sm = bps;
    attr->occupancy = ctx->max_threads_per_sm > 0 ? (double)bps * LAB_CLIFF_THREADS / ctx->max_threads_per_sm : 0.0;
    if (bps < 1)
        return cupat__fail(ctx, CUPAT_ERROR_NOT_SUPPORTED, "lab exec: the cliff kernel cannot run %d threads a block",
                           LAB_CLIFF_THREADS);
    attr->blocks = (unsigned)(bps * (ctx->sm_count > 0 ? ctx->sm_count : 1));
    exec_cliff_args a = {k, attr->blocks, (const float4 *)d_in, n4, d_out};
    return cupat__lab_exec_time(ctx, reps, exec_cliff_launch, &a, times);
}

#endif
