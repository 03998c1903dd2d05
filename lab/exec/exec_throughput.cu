// SPDX-License-Identifier: Apache-2.0
// exec_throughput.cu — the kernels of `cupat lab exec throughput` (CUDA
// Guide 8.4.1, "Arithmetic Instructions"): one instruction kept busy on
// every SM, TP_CHAINS independent chains a thread and a full SM of warps, so
// the pipe and not the latency is the limit. Each block's thread 0 stamps
// its start and end with clock64 and %smid; an SM's rate is its blocks'
// results over its busy cycles (clock64 is per SM: spans are taken within
// an SM only).
#include "exec/exec_tp.h"

#include "internal.h"
#include "lab_sreg.cuh"
#include "lab_timing.cuh"

#include <cuda_fp16.h>
#include <stdlib.h>
#include <string.h>

#include <type_traits>
#include <utility>

namespace {

// The chains' type: float for the fp32 and MUFU ops, double, half2, else 32-bit words.
constexpr bool tp_is_f32(int op)
{
    return op == LAB_TP_FADD || op == LAB_TP_FMUL || op == LAB_TP_FFMA || op == LAB_TP_RSQRT || op == LAB_TP_SIN ||
           op == LAB_TP_EX2;
}
template <int OP>
using TpT = std::conditional_t<OP == LAB_TP_DFMA, double,
                               std::conditional_t<OP == LAB_TP_HFMA2, __half2,
                                                  std::conditional_t<tp_is_f32(OP), float, uint32_t>>>;

__device__ __forceinline__ float mufu_rsqrt(float x)
{
    float y;
    asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}
__device__ __forceinline__ float mufu_sin(float x)
{
    float y;
    asm("sin.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}
__device__ __forceinline__ float mufu_ex2(float x)
{
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

template <int OP, class T> __device__ __forceinline__ T tp_init(uint32_t t, int j)
{
    if constexpr (std::is_same_v<T, double>) return (double)tp_init_f32(t, j);
    else if constexpr (std::is_same_v<T, __half2>) return __floats2half2_rn(tp_init_h_lo(t, j), tp_init_h_hi(t, j));
    else if constexpr (std::is_same_v<T, float>) return tp_init_f32(t, j);
    else return tp_init_u32(t, j);
}

// half2 operands, built once before the loop: the conversion is inline asm
// in cuda_fp16.hpp, which the compiler would otherwise repeat every step.
struct TpHalf {
    __half2 a, b;
};

// One step of every chain; u: the step within the iteration (compile time).
template <int OP, class T> __device__ __forceinline__ void tp_step(T (&x)[TP_CHAINS], int u, const TpHalf &h)
{
    if constexpr (OP == LAB_TP_FADD) {
#pragma unroll
        for (int j = 0; j < TP_CHAINS; j++) x[j] = __fadd_rn(x[j], TP_FADD_B);
    } else if constexpr (OP == LAB_TP_FMUL) {
#pragma unroll
        for (int j = 0; j < TP_CHAINS; j++) x[j] = __fmul_rn(x[j], TP_FMUL_B);
    } else if constexpr (OP == LAB_TP_FFMA) {
#pragma unroll
        for (int j = 0; j < TP_CHAINS; j++) x[j] = __fmaf_rn(x[j], TP_FMA_A, TP_FMA_B);
    } else if constexpr (OP == LAB_TP_DFMA) {
#pragma unroll
        for (int j = 0; j < TP_CHAINS; j++) x[j] = __fma_rn(x[j], TP_DFMA_A, TP_DFMA_B);
    } else if constexpr (OP == LAB_TP_HFMA2) {
#pragma unroll
        for (int j = 0; j < TP_CHAINS; j++) x[j] = __hfma2(x[j], h.a, h.b);
    } else if constexpr (OP == LAB_TP_RSQRT) {
#pragma unroll
        for (int j = 0; j < TP_CHAINS; j++) x[j] = mufu_rsqrt(x[j]);
    } else if constexpr (OP == LAB_TP_SIN) {
#pragma unroll
        for (int j = 0; j < TP_CHAINS; j++) x[j] = mufu_sin(x[j]);
    } else if constexpr (OP == LAB_TP_EX2) {
#pragma unroll
        for (int j = 0; j < TP_CHAINS; j++) x[j] = mufu_ex2(-x[j]);
    } else if constexpr (OP == LAB_TP_SHFL) {
#pragma unroll
        for (int j = 0; j < TP_CHAINS; j++) x[j] = __shfl_xor_sync(0xffffffffu, x[j], 1 << u);
    } else {
        uint32_t n[TP_CHAINS];
#pragma unroll
        for (int j = 0; j < TP_CHAINS; j++) {
            const uint32_t b = x[(j + 1) % TP_CHAINS];
            if constexpr (OP == LAB_TP_VOTE) n[j] = __ballot_sync(0xffffffffu, x[j] & 1u) ^ b;
            else n[j] = tp_int_step(OP, x[j], b);
        }
#pragma unroll
        for (int j = 0; j < TP_CHAINS; j++) x[j] = n[j];
    }
}

template <class T> __device__ __forceinline__ unsigned long long tp_bits(T v)
{
    if constexpr (sizeof(T) == 8) {
        return (unsigned long long)__double_as_longlong(v);
    } else {
        uint32_t u;
        memcpy(&u, &v, 4);
        return u;
    }
}

// clk[3 b ..]: block b's start and end (clock64) and its SM.
template <int OP> __global__ void __launch_bounds__(TP_THREADS) k_tp(int iters, unsigned long long *out, long long *clk)
{
    using T = TpT<OP>;
    const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    T x[TP_CHAINS];
#pragma unroll
    for (int j = 0; j < TP_CHAINS; j++) x[j] = tp_init<OP, T>(t, j);
    const TpHalf h = {__float2half2_rn(TP_HFMA_A), __float2half2_rn(TP_HFMA_B)};
    __syncthreads();
    const long long t0 = clock64();
    for (int i = 0; i < iters; i++) {
#pragma unroll
        for (int u = 0; u < TP_UNROLL; u++) tp_step<OP, T>(x, u, h);
    }
    __syncthreads();
    const long long t1 = clock64();
#pragma unroll
    for (int j = 0; j < TP_CHAINS; j++) out[(size_t)t * TP_CHAINS + j] = tp_bits(x[j]);
    if (threadIdx.x == 0) {
        clk[3 * blockIdx.x] = t0;
        clk[3 * blockIdx.x + 1] = t1;
        clk[3 * blockIdx.x + 2] = cupat_lab::smid();
    }
}

using tp_kernel = void (*)(int, unsigned long long *, long long *);

template <int... OPS> tp_kernel tp_pick(int op, std::integer_sequence<int, OPS...>)
{
    tp_kernel k = nullptr;
    ((k = op == OPS ? k_tp<OPS> : k), ...);
    return k;
}

// Each SM's results / (its last end - its first start); the median SM.
double per_clk_sm(const long long *clk, unsigned blocks, double results_per_block)
{
    constexpr int MAXSM = 1024;
    static long long lo[MAXSM], hi[MAXSM];
    static unsigned cnt[MAXSM];
    memset(cnt, 0, sizeof cnt);
    for (unsigned b = 0; b < blocks; b++) {
        const unsigned sm = (unsigned)clk[3 * b + 2] % MAXSM;
        if (!cnt[sm] || clk[3 * b] < lo[sm]) lo[sm] = clk[3 * b];
        if (!cnt[sm] || clk[3 * b + 1] > hi[sm]) hi[sm] = clk[3 * b + 1];
        cnt[sm]++;
    }
    float rates[MAXSM];
    int n = 0;
    for (int s = 0; s < MAXSM; s++)
        if (cnt[s] && hi[s] > lo[s]) rates[n++] = (float)(cnt[s] * results_per_block / (double)(hi[s] - lo[s]));
    return n ? cupat_lab::median(rates, n) : 0;
}

} // namespace

extern "C" cupat_status cupat__lab_exec_tp(cupat_ctx *ctx, int op, int iters, int reps, uint32_t warps[3],
                                           uint64_t *h_sample, double *per_clk, float *times, int *blocks_per_sm)
{
    const tp_kernel k = tp_pick(op, std::make_integer_sequence<int, LAB_TP_NOPS>{});
    if (!k) return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab exec: throughput op = %d", op);
    const lab_exec_tp_op *info = lab_exec_tp_op_info(op);
    int bps = 0;
    CUPAT_CUDA_TRY(ctx, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&bps, k, TP_THREADS, 0));
    if (bps < 1) return cupat__fail(ctx, CUPAT_ERROR_INTERNAL, "lab exec: throughput op %d: no block fits an SM", op);
    *blocks_per_sm = bps;
    const unsigned blocks = (unsigned)(bps * (ctx->sm_count > 0 ? ctx->sm_count : 1));
    const size_t nout = (size_t)blocks * TP_THREADS * TP_CHAINS;
    cupat_lab::Bufs b;
    unsigned long long *out = nullptr;
    long long *clk = nullptr;
    CUPAT_CUDA_TRY(ctx, b.alloc((void **)&out, nout * 8));
    CUPAT_CUDA_TRY(ctx, b.alloc((void **)&clk, (size_t)blocks * 3 * 8));
    long long *hclk = (long long *)malloc((size_t)blocks * 3 * 8);
    if (!hclk) return cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY, "lab exec: out of host memory");
    const double per_block = (double)TP_THREADS * iters * TP_UNROLL * TP_CHAINS * info->results;
    cudaEvent_t e[2] = {nullptr, nullptr};
    cupat_status s = cupat__cuda(ctx, cudaEventCreate(&e[0]), "cudaEventCreate");
    if (!s) s = cupat__cuda(ctx, cudaEventCreate(&e[1]), "cudaEventCreate");
    for (int r = 0; r <= reps && !s; r++) { // launch 0: warm-up, not counted
        s = cupat__cuda(ctx, cudaEventRecord(e[0], ctx->stream), "cudaEventRecord");
        if (!s) {
            k<<<blocks, TP_THREADS, 0, ctx->stream>>>(iters, out, clk);
            s = cupat__launched(ctx, "k_tp");
        }
        if (!s) s = cupat__cuda(ctx, cudaEventRecord(e[1], ctx->stream), "cudaEventRecord");
        if (!s) s = cupat__cuda(ctx, cupat_lab::copy(ctx->stream, hclk, clk, (size_t)blocks * 3 * 8), "cudaMemcpyAsync");
        float ms = 0;
        if (!s) s = cupat__cuda(ctx, cudaEventElapsedTime(&ms, e[0], e[1]), "cudaEventElapsedTime");
        if (!s && r) {
            times[r - 1] = ms;
            per_clk[r - 1] = per_clk_sm(hclk, blocks, per_block);
        }
    }
    for (int i = 0; i < 2; i++)
        if (e[i]) cudaEventDestroy(e[i]);
    free(hclk);
    CUPAT_TRY(s);
    const uint32_t nwarps = blocks * (TP_THREADS / 32);
    warps[0] = 0, warps[1] = 1, warps[2] = nwarps - 1;
    for (int w = 0; w < 3; w++)
        CUPAT_CUDA_TRY(ctx, cupat_lab::copy(ctx->stream, h_sample + (size_t)w * 32 * TP_CHAINS,
                                            out + (size_t)warps[w] * 32 * TP_CHAINS, 32 * TP_CHAINS * 8));
    return CUPAT_SUCCESS;
}
