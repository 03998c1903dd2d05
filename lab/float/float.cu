// SPDX-License-Identifier: Apache-2.0
// float.cu — the GPU side of `cupat lab float` (lecture "Advanced
// Techniques": FP Support in CUDA; CUDA Guide 8.4.1): the rounding-mode
// intrinsics, the precise functions against their intrinsics (the
// --use_fast_math build of the same source is float_fast.cu), and FP64
// against FP32 FMA throughput.
#include "float/float_kernels.cuh"

namespace {

// ---- the four rounding modes -------------------------------------------

// Every mode of op for each input: out[4 i + mode] (rn, rz, ru, rd).
template <int OP> __global__ void k_round(const float *a, const float *b, const float *c, size_t n, float4 *out)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        const float x = a[i];
        const float y = (OP == LAB_OP_ADD || OP == LAB_OP_MUL || OP == LAB_OP_DIV || OP == LAB_OP_FMA) ? b[i] : 0.0f;
        const float z = OP == LAB_OP_FMA ? c[i] : 0.0f;
        float4 r;
        if (OP == LAB_OP_ADD) r = make_float4(__fadd_rn(x, y), __fadd_rz(x, y), __fadd_ru(x, y), __fadd_rd(x, y));
        if (OP == LAB_OP_MUL) r = make_float4(__fmul_rn(x, y), __fmul_rz(x, y), __fmul_ru(x, y), __fmul_rd(x, y));
        if (OP == LAB_OP_DIV) r = make_float4(__fdiv_rn(x, y), __fdiv_rz(x, y), __fdiv_ru(x, y), __fdiv_rd(x, y));
        if (OP == LAB_OP_FMA)
            r = make_float4(__fmaf_rn(x, y, z), __fmaf_rz(x, y, z), __fmaf_ru(x, y, z), __fmaf_rd(x, y, z));
        if (OP == LAB_OP_RCP) r = make_float4(__frcp_rn(x), __frcp_rz(x), __frcp_ru(x), __frcp_rd(x));
        if (OP == LAB_OP_SQRT) r = make_float4(__fsqrt_rn(x), __fsqrt_rz(x), __fsqrt_ru(x), __fsqrt_rd(x));
        out[i] = r;
    }
}

// ---- FP64 against FP32 ---------------------------------------------------

// 8 independent FMA chains a thread (enough to fill the pipes), b < 1 so
// the values settle at c / (1 - b): no overflow, no denormals.
template <typename T> __global__ void __launch_bounds__(256) k_fma(T *sink, int iters)
{
    T a[8];
    const T b = (T)0.999 + (T)threadIdx.x * (T)1e-9, c = (T)1e-3;
#pragma unroll
    for (int j = 0; j < 8; j++) a[j] = (T)j + (T)threadIdx.x * (T)1e-3;
    for (int k = 0; k < iters; k++) {
#pragma unroll
        for (int j = 0; j < 8; j++) a[j] = fma(a[j], b, c);
    }
    T s = 0;
#pragma unroll
    for (int j = 0; j < 8; j++) s += a[j];
    sink[blockIdx.x * (size_t)blockDim.x + threadIdx.x] = s;
}

} // namespace

extern "C" cupat_status cupat__lab_float_round(cupat_ctx *ctx, int op, const float *da, const float *db,
                                               const float *dc, size_t n, float *dout)
{
    const unsigned g = grid_for(n);
    float4 *o = (float4 *)dout;
    cudaStream_t s = ctx->stream;
    switch (op) {
    case LAB_OP_ADD: k_round<LAB_OP_ADD><<<g, 256, 0, s>>>(da, db, dc, n, o); break;
    case LAB_OP_MUL: k_round<LAB_OP_MUL><<<g, 256, 0, s>>>(da, db, dc, n, o); break;
    case LAB_OP_DIV: k_round<LAB_OP_DIV><<<g, 256, 0, s>>>(da, db, dc, n, o); break;
    case LAB_OP_FMA: k_round<LAB_OP_FMA><<<g, 256, 0, s>>>(da, db, dc, n, o); break;
    case LAB_OP_RCP: k_round<LAB_OP_RCP><<<g, 256, 0, s>>>(da, db, dc, n, o); break;
    case LAB_OP_SQRT: k_round<LAB_OP_SQRT><<<g, 256, 0, s>>>(da, db, dc, n, o); break;
    default: return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab float: op = %d", op);
    }
    return cupat__launched(ctx, "k_round");
}

extern "C" cupat_status cupat__lab_float_fn(cupat_ctx *ctx, int fn, int var, const float *dx, const float *dy,
                                            size_t n, float *dout)
{
    if (var == LAB_VAR_PRECISE) return launch_fn<LAB_VAR_PRECISE>(ctx, fn, dx, dy, n, dout);
    if (var == LAB_VAR_INTRINSIC) return launch_fn<LAB_VAR_INTRINSIC>(ctx, fn, dx, dy, n, dout);
    if (var == LAB_VAR_FASTMATH) return cupat__lab_float_fn_fast(ctx, fn, dx, dy, n, dout);
    return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab float: variant = %d", var);
}

extern "C" cupat_status cupat__lab_float_fn_rate(cupat_ctx *ctx, int fn, int var, const float *dx, const float *dy,
                                                 size_t n, int iters, int reps, float *dsink, float *times)
{
    if (var == LAB_VAR_PRECISE) return rate_fn<LAB_VAR_PRECISE>(ctx, fn, dx, dy, n, iters, reps, dsink, times);
    if (var == LAB_VAR_INTRINSIC) return rate_fn<LAB_VAR_INTRINSIC>(ctx, fn, dx, dy, n, iters, reps, dsink, times);
    if (var == LAB_VAR_FASTMATH) return cupat__lab_float_fn_rate_fast(ctx, fn, dx, dy, n, iters, reps, dsink, times);
    return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab float: variant = %d", var);
}

extern "C" cupat_status cupat__lab_float_fma(cupat_ctx *ctx, int double_prec, unsigned blocks, int iters, int reps,
                                             void *dsink, float *times)
{
    cudaStream_t st = ctx->stream;
    return timed(ctx, reps, times, [&]() -> cupat_status {
        if (double_prec) k_fma<double><<<blocks, 256, 0, st>>>((double *)dsink, iters);
        else k_fma<float><<<blocks, 256, 0, st>>>((float *)dsink, iters);
        return cupat__launched(ctx, "k_fma");
    });
}
