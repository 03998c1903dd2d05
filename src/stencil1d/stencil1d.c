/* SPDX-License-Identifier: Apache-2.0 */
/* stencil1d.c — cupat_stencil1d: argument checks, the ladder, dispatch. */
#include "stencil1d_internal.h"

#include <math.h>
#include <stdint.h>

/* Order = enum cupat_stencil1d_rung. */
static const cupat_variant_info rungs[] = {
    {"stencil1d", "gmem", "every input and coefficient read from global memory",
     "PCCP 5.5 (baseline)", CUPAT_BACKEND_CUDA, 0},
    {"stencil1d", "smem", "shared-memory tile with halo: each input read once a block",
     "PCCP 5.5", CUPAT_BACKEND_CUDA, 0},
    {"stencil1d", "const", "coefficients in __constant__ memory (uniform broadcast)",
     "PCCP 5.5", CUPAT_BACKEND_CUDA, 0},
    {"stencil1d", "ldg", "coefficients through the read-only cache (__ldg, const __restrict__)",
     "PCCP 5.5", CUPAT_BACKEND_CUDA, 0},
    {"stencil1d", "vec",
     "16-byte loads and stores, 8 outputs a thread, radius unrolled, coefficients as "
     "kernel parameters (constant bank)",
     "beyond the books", CUPAT_BACKEND_CUDA, 1},
    {"stencil1d", "cpu", "OpenMP, one fmaf chain an output", "cupat", CUPAT_BACKEND_CPU, 1},
};

_Static_assert(sizeof rungs / sizeof rungs[0] == ST_COUNT, "one entry a rung, in enum order");

const cupat_pattern_desc cupat__pattern_stencil1d = {"stencil1d", rungs, ST_COUNT};

cupat_status cupat_stencil1d(cupat_ctx *ctx, size_t n, int radius, const float *coeffs,
                             const float *in, float *out)
{
    CUPAT_TRACE_CALL();
    static const char fn[] = "cupat_stencil1d";
    CUPAT_TRY(cupat__begin(ctx, fn));
    if (radius < 0 || radius > CUPAT_STENCIL1D_MAX_RADIUS)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "%s: radius = %d (must be 0..%d)",
                           fn, radius, CUPAT_STENCIL1D_MAX_RADIUS);
    if (!coeffs)
        return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "%s: coeffs is NULL", fn);
    if (ctx->backend == CUPAT_BACKEND_CUDA && cupat__pointer_kind(coeffs) == CUPAT_MEMORY_DEVICE)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: coeffs = %p is device memory; it must be host memory (%d floats)",
                           fn, (const void *)coeffs, 2 * radius + 1);
    size_t bytes;
    CUPAT_TRY(cupat__size_mul(ctx, fn, "n * sizeof(float)", n, sizeof(float), 1, &bytes));
    CUPAT_TRY(cupat__check_data(ctx, fn, "in", in, bytes));
    CUPAT_TRY(cupat__check_data(ctx, fn, "out", out, bytes));
    CUPAT_TRY(cupat__check_disjoint(ctx, fn, "out", cupat__extent1(out, bytes), "in",
                                    cupat__extent1(in, bytes), NULL));
    const cupat_variant_info *v;
    CUPAT_TRY(cupat__select(ctx, "stencil1d", &v));
    if (n == 0) return CUPAT_SUCCESS;
    if (ctx->backend != CUPAT_BACKEND_CUDA) {
        cupat__stencil1d_cpu(n, radius, coeffs, in, out);
        return CUPAT_SUCCESS;
    }
    return cupat__stencil1d_cuda(ctx, cupat__rung_index(v), n, radius, coeffs, in, out);
}
