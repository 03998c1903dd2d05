// SPDX-License-Identifier: Apache-2.0
// exec_latency.cu — kernels of `cupat lab exec` about latency and how it is
// hidden (PCCP 3.2 "Latency Hiding", Guide 8.2.3, lecture "SM Resources"):
// pointer chases through global memory (L1, L2, DRAM), shared and constant
// memory, timed with clock64 in one thread; a dependent FMA chain; FMA
// chains x warps (ILP x TLP) and independent loads x warps (bytes in flight).
#include "exec/exec.h"
#include "exec/exec_work.h"

#include "internal.h"

namespace {

// ---- pointer chase ----------------------------------------------------------

__constant__ uint32_t c_chain[LAB_LAT_CONST_MAX / 4];

template <int WHERE> __device__ __forceinline__ uint32_t link(const uint32_t *p, uint32_t j)
{
    if (WHERE == LAB_LAT_L2) return __ldcg(p + j); // ld.global.cg: cached in the L2 only
    return p[j];                                   // ld.global: L1 and L2
}

// One thread. Global memory: one link a 128-byte line (p[j] is the word
// index of the next line). `warm` links first (the whole cycle, so the walk
// is back at 0), then `steps` timed links.
template <int WHERE>
__global__ void k_chase_global(const uint32_t *p, int warm, int steps, unsigned long long *res)
{
    uint32_t j = 0;
    for (int s = 0; s < warm; s++) j = link<WHERE>(p, j);
    const long long t0 = clock64();
    for (int s = 0; s < steps; s++) j = link<WHERE>(p, j);
    const long long t1 = clock64();
    res[0] = j;
    res[1] = (unsigned long long)(t1 - t0);
}

// Shared memory: the block copies the cycle in, thread 0 walks it.
__global__ void k_chase_shared(const uint32_t *p, uint32_t n, int steps, unsigned long long *res)
{
    extern __shared__ uint32_t s[];
    for (uint32_t i = threadIdx.x; i < n; i += blockDim.x) s[i] = p[i];
    __syncthreads();
    if (threadIdx.x) return;
    uint32_t j = 0;
    for (uint32_t k = 0; k < n; k++) j = s[j]; // back at 0
    const long long t0 = clock64();
    for (int k = 0; k < steps; k++) j = s[j];
    const long long t1 = clock64();
    res[0] = j;
    res[1] = (unsigned long long)(t1 - t0);
}

__global__ void k_chase_const(uint32_t n, int steps, unsigned long long *res)
{
    uint32_t j = 0;
    for (uint32_t k = 0; k < n; k++) j = c_chain[j];
    const long long t0 = clock64();
    for (int k = 0; k < steps; k++) j = c_chain[j];
    const long long t1 = clock64();
    res[0] = j;
    res[1] = (unsigned long long)(t1 - t0);
}

// Spread the compact cycle over lines: p[line * 32] = next line * 32.
__global__ void k_chase_scatter(uint32_t *p, const uint32_t *next, uint32_t n)
{
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        p[(size_t)i * (LAB_LAT_LINE / 4)] = next[i] * (LAB_LAT_LINE / 4);
}

// ---- dependent FMA -----------------------------------------------------------

__global__ void k_fma_chain(float a, float b, int steps, float *x_out, unsigned long long *cycles)
{
    float x = (float)threadIdx.x;
    const long long t0 = clock64();
    int s = 0;
    for (; s + 8 <= steps; s += 8) {
#pragma unroll
        for (int u = 0; u < 8; u++) x = fmaf(x, a, b);
    }
    for (; s < steps; s++) x = fmaf(x, a, b);
    const long long t1 = clock64();
    if (threadIdx.x == 0) {
        *x_out = x;
        *cycles = (unsigned long long)(t1 - t0);
    }
}

// ---- ILP x TLP ----------------------------------------------------------------

// ILP independent chains a thread; out[t] = their sum (in order).
template <int ILP> __global__ void k_ilp(float *out, int iters, float a, float b)
{
    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    float acc[ILP];
#pragma unroll
    for (int j = 0; j < ILP; j++) acc[j] = __fadd_rn(__fmul_rn((float)t, 1e-6f), (float)j);
    int i = 0;
    for (; i + 4 <= iters; i += 4) {
#pragma unroll
        for (int u = 0; u < 4; u++)
#pragma unroll
            for (int j = 0; j < ILP; j++) acc[j] = fmaf(acc[j], a, b);
    }
    for (; i < iters; i++)
#pragma unroll
        for (int j = 0; j < ILP; j++) acc[j] = fmaf(acc[j], a, b);
    float s = 0.0f;
#pragma unroll
    for (int j = 0; j < ILP; j++) s = __fadd_rn(s, acc[j]);
    out[t] = s;
}

// ---- bytes in flight -------------------------------------------------------------

__global__ void k_mlp_fill(uint32_t *d, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        d[i] = exec_mlp_word((uint32_t)i);
}

// U independent 16-byte loads a thread before any is used; grid-stride.
template <int U> __global__ void k_mlp(const uint4 *__restrict__ p, size_t n4, uint32_t *sum)
{
    const size_t T = (size_t)gridDim.x * blockDim.x;
    uint32_t s = 0;
    for (size_t base = blockIdx.x * (size_t)blockDim.x + threadIdx.x; base < n4; base += T * U) {
        uint4 v[U];
#pragma unroll
        for (int k = 0; k < U; k++) v[k] = base + k * T < n4 ? p[base + k * T] : make_uint4(0, 0, 0, 0);
#pragma unroll
        for (int k = 0; k < U; k++) s += v[k].x + v[k].y + v[k].z + v[k].w;
    }
    s = __reduce_add_sync(0xffffffffu, s); // blocks are whole warps, no lane has left
    if ((threadIdx.x & 31) == 0) atomicAdd(sum, s);
}

struct ilp_args {
    int ilp, blocks, threads, iters;
    float a, b, *out;
};
cupat_status ilp_launch(cupat_ctx *ctx, void *p)
{
    const ilp_args *g = (const ilp_args *)p;
    switch (g->ilp) {
    case 1: k_ilp<1><<<g->blocks, g->threads, 0, ctx->stream>>>(g->out, g->iters, g->a, g->b); break;
    case 2: k_ilp<2><<<g->blocks, g->threads, 0, ctx->stream>>>(g->out, g->iters, g->a, g->b); break;
    case 4: k_ilp<4><<<g->blocks, g->threads, 0, ctx->stream>>>(g->out, g->iters, g->a, g->b); break;
    case 8: k_ilp<8><<<g->blocks, g->threads, 0, ctx->stream>>>(g->out, g->iters, g->a, g->b); break;
    default: return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab exec: ilp = %d", g->ilp);
    }
    return cupat__launched(ctx, "k_ilp");
}

struct mlp_args {
    int unroll, blocks, threads;
    const uint32_t *p;
    size_t n;
    uint32_t *sum;
};
cupat_status mlp_launch(cupat_ctx *ctx, void *q)
{
    const mlp_args *g = (const mlp_args *)q;
    const uint4 *p = (const uint4 *)g->p;
    const size_t n4 = g->n / 4;
    CUPAT_CUDA_TRY(ctx, cudaMemsetAsync(g->sum, 0, sizeof(uint32_t), ctx->stream));
    switch (g->unroll) {
    case 1: k_mlp<1><<<g->blocks, g->threads, 0, ctx->stream>>>(p, n4, g->sum); break;
    case 2: k_mlp<2><<<g->blocks, g->threads, 0, ctx->stream>>>(p, n4, g->sum); break;
    case 4: k_mlp<4><<<g->blocks, g->threads, 0, ctx->stream>>>(p, n4, g->sum); break;
    case 8: k_mlp<8><<<g->blocks, g->threads, 0, ctx->stream>>>(p, n4, g->sum); break;
    default: return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab exec: unroll = %d", g->unroll);
    }
    return cupat__launched(ctx, "k_mlp");
}

template <class K> cupat_status fit_of(cupat_ctx *ctx, K kernel, int threads, int *resident, int *regs)
{
    cudaFuncAttributes a;
    CUPAT_CUDA_TRY(ctx, cudaFuncGetAttributes(&a, kernel));
    *regs = a.numRegs;
    return cupat__cuda(ctx, cudaOccupancyMaxActiveBlocksPerMultiprocessor(resident, kernel, threads, 0),
                       "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
}

} // namespace

extern "C" cupat_status cupat__lab_exec_chase(cupat_ctx *ctx, int where, const uint32_t *h_next, uint32_t n, int steps,
                                              unsigned long long *h_result)
{
    unsigned long long *d_res = NULL;
    uint32_t *d_next = NULL, *d_p = NULL;
    cupat_status s = cupat_malloc(ctx, (void **)&d_res, 2 * sizeof *d_res);
    if (!s) s = cupat_malloc(ctx, (void **)&d_next, (size_t)n * sizeof *d_next);
    if (!s) s = cupat_memcpy(ctx, d_next, h_next, (size_t)n * sizeof *d_next);
    if (!s && (where == LAB_LAT_L1 || where == LAB_LAT_L2 || where == LAB_LAT_DRAM)) {
        const size_t words = (size_t)n * (LAB_LAT_LINE / 4);
        s = cupat_malloc(ctx, (void **)&d_p, words * sizeof *d_p);
        if (!s) s = cupat_memset(ctx, d_p, 0, words * sizeof *d_p);
        if (!s) {
            k_chase_scatter<<<1024, 256, 0, ctx->stream>>>(d_p, d_next, n);
            s = cupat__launched(ctx, "k_chase_scatter");
        }
        if (!s) {
            const int warm = where == LAB_LAT_DRAM ? 0 : (int)n;
            if (where == LAB_LAT_L2) k_chase_global<LAB_LAT_L2><<<1, 1, 0, ctx->stream>>>(d_p, warm, steps, d_res);
            else k_chase_global<LAB_LAT_L1><<<1, 1, 0, ctx->stream>>>(d_p, warm, steps, d_res);
            s = cupat__launched(ctx, "k_chase_global");
        }
    } else if (!s && where == LAB_LAT_SHARED) {
        k_chase_shared<<<1, 256, (size_t)n * 4, ctx->stream>>>(d_next, n, steps, d_res);
        s = cupat__launched(ctx, "k_chase_shared");
    } else if (!s && where == LAB_LAT_CONST) {
        s = cupat__cuda(ctx, cudaMemcpyToSymbolAsync(c_chain, d_next, (size_t)n * 4, 0, cudaMemcpyDeviceToDevice, ctx->stream),
                        "cudaMemcpyToSymbolAsync");
        if (!s) {
            k_chase_const<<<1, 1, 0, ctx->stream>>>(n, steps, d_res);
            s = cupat__launched(ctx, "k_chase_const");
        }
    } else if (!s) {
        s = cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab exec: where = %d", where);
    }
    if (!s) s = cupat_memcpy(ctx, h_result, d_res, 2 * sizeof *d_res);
    if (!s) s = cupat_sync(ctx);
    if (d_p) cupat_free(ctx, d_p);
    if (d_next) cupat_free(ctx, d_next);
    if (d_res) cupat_free(ctx, d_res);
    return s;
}

extern "C" cupat_status cupat__lab_exec_fma(cupat_ctx *ctx, int steps, float a, float b, float *h_x,
                                            unsigned long long *h_cycles)
{
    void *d = NULL;
    cupat_status s = cupat_malloc(ctx, &d, 16);
    if (!s) {
        k_fma_chain<<<1, 32, 0, ctx->stream>>>(a, b, steps, (float *)d, (unsigned long long *)d + 1);
        s = cupat__launched(ctx, "k_fma_chain");
    }
    if (!s) s = cupat_memcpy(ctx, h_x, d, sizeof *h_x);
    if (!s) s = cupat_memcpy(ctx, h_cycles, (unsigned long long *)d + 1, sizeof *h_cycles);
    if (!s) s = cupat_sync(ctx);
    if (d) cupat_free(ctx, d);
    return s;
}

extern "C" cupat_status cupat__lab_exec_ilp(cupat_ctx *ctx, int ilp, int blocks, int threads, int iters, float a,
                                            float b, int reps, float *d_out, float *times)
{
    ilp_args g = {ilp, blocks, threads, iters, a, b, d_out};
    return cupat__lab_exec_time(ctx, reps, ilp_launch, &g, times);
}

// Blocks of `threads` an SM holds of the sweep kernel (k_ilp<k> or k_mlp<k>),
// and its registers a thread: the sweep runs only the rows that fit.
extern "C" cupat_status cupat__lab_exec_sweep_fit(cupat_ctx *ctx, int what, int k, int threads, int *resident,
                                                  int *regs)
{
    if (what == LAB_SWEEP_ILP) {
        switch (k) {
        case 1: return fit_of(ctx, k_ilp<1>, threads, resident, regs);
        case 2: return fit_of(ctx, k_ilp<2>, threads, resident, regs);
        case 4: return fit_of(ctx, k_ilp<4>, threads, resident, regs);
        case 8: return fit_of(ctx, k_ilp<8>, threads, resident, regs);
        }
    } else if (what == LAB_SWEEP_MLP) {
        switch (k) {
        case 1: return fit_of(ctx, k_mlp<1>, threads, resident, regs);
        case 2: return fit_of(ctx, k_mlp<2>, threads, resident, regs);
        case 4: return fit_of(ctx, k_mlp<4>, threads, resident, regs);
        case 8: return fit_of(ctx, k_mlp<8>, threads, resident, regs);
        }
    }
    return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab exec: sweep kernel %d, k = %d", what, k);
}

extern "C" cupat_status cupat__lab_exec_mlp_fill(cupat_ctx *ctx, uint32_t *d, size_t n)
{
    k_mlp_fill<<<1024, 256, 0, ctx->stream>>>(d, n);
    return cupat__launched(ctx, "k_mlp_fill");
}

extern "C" cupat_status cupat__lab_exec_mlp(cupat_ctx *ctx, int unroll, int blocks, int threads, const uint32_t *d,
                                            size_t n, int reps, uint32_t *d_sum, float *times)
{
    mlp_args g = {unroll, blocks, threads, d, n, d_sum};
    return cupat__lab_exec_time(ctx, reps, mlp_launch, &g, times);
}
