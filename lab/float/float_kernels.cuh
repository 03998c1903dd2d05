// SPDX-License-Identifier: Apache-2.0
// float_kernels.cuh — the function kernels of `cupat lab float`, included by
// float.cu (default flags: IEEE division and square root, denormals kept) and
// by float_fast.cu (compiled with --use_fast_math), so the same source is
// measured under both sets of flags. Each includer gets its own copies
// (anonymous namespace).
#pragma once

#include "float/float.h"

#include "internal.h"
#include "lab_timing.cuh"

namespace {

// One evaluation of fn in variant VAR. Under --use_fast_math the PRECISE
// forms become the approximate ones (expf -> __expf-like, x / y ->
// __fdividef-like, sqrtf -> the approximate square root, denormals flushed).
template <int FN, int VAR> __device__ __forceinline__ float eval(float x, float y)
{
    if (VAR == LAB_VAR_INTRINSIC) {
        if (FN == LAB_FN_EXP) return __expf(x);
        if (FN == LAB_FN_SIN) return __sinf(x);
        if (FN == LAB_FN_LOG) return __logf(x);
        if (FN == LAB_FN_DIV) return __fdividef(x, y);
        return __fsqrt_rn(x);
    }
    if (FN == LAB_FN_EXP) return expf(x);
    if (FN == LAB_FN_SIN) return sinf(x);
    if (FN == LAB_FN_LOG) return logf(x);
    if (FN == LAB_FN_DIV) return x / y;
    return sqrtf(x);
}

template <int FN, int VAR> __global__ void k_fn(const float *x, const float *y, size_t n, float *out)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        out[i] = eval<FN, VAR>(x[i], y ? y[i] : 1.0f);
}

// Throughput: `iters` evaluations a thread on arguments that change every
// step (nothing to hoist), summed so none is dead.
template <int FN, int VAR> __global__ void k_fn_rate(const float *x, const float *y, size_t n, int iters, float *sink)
{
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float x0 = x[i], y0 = y ? y[i] : 1.0f;
    float acc = 0.0f;
    for (int k = 0; k < iters; k++) {
        const float d = (float)k * 0x1p-10f;
        acc += FN == LAB_FN_DIV ? eval<FN, VAR>(x0, y0 + d) : eval<FN, VAR>(x0 + d, y0);
    }
    sink[i] = acc;
}

inline unsigned grid_for(size_t n)
{
    size_t b = (n + 255) / 256;
    return (unsigned)(b > 65535 ? 65535 : b ? b : 1);
}

template <int VAR>
cupat_status launch_fn(cupat_ctx *ctx, int fn, const float *dx, const float *dy, size_t n, float *dout)
{
    const unsigned g = grid_for(n);
    cudaStream_t s = ctx->stream;
    switch (fn) {
    case LAB_FN_EXP: k_fn<LAB_FN_EXP, VAR><<<g, 256, 0, s>>>(dx, dy, n, dout); break;
    case LAB_FN_SIN: k_fn<LAB_FN_SIN, VAR><<<g, 256, 0, s>>>(dx, dy, n, dout); break;
    case LAB_FN_LOG: k_fn<LAB_FN_LOG, VAR><<<g, 256, 0, s>>>(dx, dy, n, dout); break;
    case LAB_FN_DIV: k_fn<LAB_FN_DIV, VAR><<<g, 256, 0, s>>>(dx, dy, n, dout); break;
    case LAB_FN_SQRT: k_fn<LAB_FN_SQRT, VAR><<<g, 256, 0, s>>>(dx, dy, n, dout); break;
    default: return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab float: fn = %d", fn);
    }
    return cupat__launched(ctx, "k_fn");
}

using cupat_lab::timed;

template <int VAR>
cupat_status rate_fn(cupat_ctx *ctx, int fn, const float *dx, const float *dy, size_t n, int iters, int reps,
                     float *dsink, float *times)
{
    const unsigned g = (unsigned)((n + 255) / 256);
    cudaStream_t st = ctx->stream;
    return timed(ctx, reps, times, [&]() -> cupat_status {
        switch (fn) {
        case LAB_FN_EXP: k_fn_rate<LAB_FN_EXP, VAR><<<g, 256, 0, st>>>(dx, dy, n, iters, dsink); break;
        case LAB_FN_SIN: k_fn_rate<LAB_FN_SIN, VAR><<<g, 256, 0, st>>>(dx, dy, n, iters, dsink); break;
        case LAB_FN_LOG: k_fn_rate<LAB_FN_LOG, VAR><<<g, 256, 0, st>>>(dx, dy, n, iters, dsink); break;
        case LAB_FN_DIV: k_fn_rate<LAB_FN_DIV, VAR><<<g, 256, 0, st>>>(dx, dy, n, iters, dsink); break;
        case LAB_FN_SQRT: k_fn_rate<LAB_FN_SQRT, VAR><<<g, 256, 0, st>>>(dx, dy, n, iters, dsink); break;
        default: return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab float: fn = %d", fn);
        }
        return cupat__launched(ctx, "k_fn_rate");
    });
}

} // namespace
