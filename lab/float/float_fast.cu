// SPDX-License-Identifier: Apache-2.0
// float_fast.cu — the PRECISE function source of float_kernels.cuh compiled
// with --use_fast_math (lab/CMakeLists.txt sets it on this file alone):
// -ftz=true -prec-div=false -prec-sqrt=false -fmad=true, and the math
// library's expf / sinf / logf replaced by their intrinsics (CUDA Guide
// 8.4.1, "Intrinsic Functions"). Kept in its own object so nothing else is
// built that way.
#include "float/float_kernels.cuh"

extern "C" cupat_status cupat__lab_float_fn_fast(cupat_ctx *ctx, int fn, const float *dx, const float *dy, size_t n,
                                                 float *dout)
{
    return launch_fn<LAB_VAR_PRECISE>(ctx, fn, dx, dy, n, dout);
}

extern "C" cupat_status cupat__lab_float_fn_rate_fast(cupat_ctx *ctx, int fn, const float *dx, const float *dy,
                                                      size_t n, int iters, int reps, float *dsink, float *times)
{
    return rate_fn<LAB_VAR_PRECISE>(ctx, fn, dx, dy, n, iters, reps, dsink, times);
}
