/* SPDX-License-Identifier: Apache-2.0 */
/* float_lab.c — the runs of `cupat lab float`: argument checks, device
 * buffers, copies back; the kernels are in float.cu and float_fast.cu, the
 * host model in float_host.c. */
#include "float/float.h"

#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static cupat_status need_cuda(cupat_ctx *ctx)
{
    if (cupat_get_backend(ctx) != CUPAT_BACKEND_CUDA)
        return cupat__fail(ctx, CUPAT_ERROR_NOT_SUPPORTED, "lab float: the GPU experiments need the CUDA backend");
    return CUPAT_SUCCESS;
}

#define MAX_N ((size_t)1 << 28)

/* Up to three host arrays of n floats to the device (NULL stays NULL). */
static cupat_status upload(cupat_ctx *ctx, size_t n, const float *h[3], float *d[3])
{
    cupat_status s = CUPAT_SUCCESS;
    for (int k = 0; k < 3 && !s; k++) {
        d[k] = NULL;
        if (!h[k]) continue;
        s = cupat_malloc(ctx, (void **)&d[k], n * sizeof(float));
        if (!s) s = cupat_memcpy(ctx, d[k], h[k], n * sizeof(float));
    }
    return s;
}

static void release(cupat_ctx *ctx, float *d[], int k)
{
    for (int i = 0; i < k; i++)
        if (d[i]) cupat_free(ctx, d[i]);
}

cupat_status lab_float_round_gpu(cupat_ctx *ctx, int op, const float *a, const float *b, const float *c, size_t n,
                                 float *out)
{
    if (!ctx) return cupat__fail(NULL, CUPAT_ERROR_INVALID_VALUE, "lab float: ctx is NULL");
    if (op < 0 || op >= LAB_NOPS) return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab float: op = %d", op);
    if (n < 1 || n > MAX_N) return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab float: n = %zu (1 to 2^28)", n);
    const int ar = lab_float_op_arity(op);
    if (!a || (ar >= 2 && !b) || (ar >= 3 && !c) || !out)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab float: %s is NULL",
                           !a ? "a" : (ar >= 2 && !b) ? "b" : (ar >= 3 && !c) ? "c" : "out");
    CUPAT_TRY(need_cuda(ctx));
    const float *h[3] = {a, ar >= 2 ? b : NULL, ar >= 3 ? c : NULL};
    float *d[4] = {NULL, NULL, NULL, NULL};
    cupat_status s = upload(ctx, n, h, d);
    if (!s) s = cupat_malloc(ctx, (void **)&d[3], 4 * n * sizeof(float));
    if (!s) s = cupat__lab_float_round(ctx, op, d[0], d[1], d[2], n, d[3]);
    if (!s) s = cupat_memcpy(ctx, out, d[3], 4 * n * sizeof(float));
    if (!s) s = cupat_sync(ctx);
    release(ctx, d, 4);
    return s;
}

static cupat_status check_fn(cupat_ctx *ctx, int fn, int var, const float *x, const float *y, size_t n)
{
    if (!ctx) return cupat__fail(NULL, CUPAT_ERROR_INVALID_VALUE, "lab float: ctx is NULL");
    if (fn < 0 || fn >= LAB_NFNS) return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab float: fn = %d", fn);
    if (var < 0 || var >= LAB_NVARS)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab float: variant = %d", var);
    if (n < 1 || n > MAX_N) return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab float: n = %zu (1 to 2^28)", n);
    if (!x || (fn == LAB_FN_DIV && !y))
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab float: %s is NULL", !x ? "x" : "y");
    return CUPAT_SUCCESS;
}

cupat_status lab_float_fn_gpu(cupat_ctx *ctx, int fn, int var, const float *x, const float *y, size_t n, float *got)
{
    CUPAT_TRY(check_fn(ctx, fn, var, x, y, n));
    if (!got) return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab float: got is NULL");
    CUPAT_TRY(need_cuda(ctx));
    const float *h[3] = {x, fn == LAB_FN_DIV ? y : NULL, NULL};
    float *d[4] = {NULL, NULL, NULL, NULL};
    cupat_status s = upload(ctx, n, h, d);
    if (!s) s = cupat_malloc(ctx, (void **)&d[3], n * sizeof(float));
    if (!s) s = cupat__lab_float_fn(ctx, fn, var, d[0], d[1], n, d[3]);
    if (!s) s = cupat_memcpy(ctx, got, d[3], n * sizeof(float));
    if (!s) s = cupat_sync(ctx);
    release(ctx, d, 4);
    return s;
}

static int cmp_f(const void *a, const void *b)
{
    const float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static double median(float *t, int reps)
{
    qsort(t, (size_t)reps, sizeof *t, cmp_f);
    return reps % 2 ? t[reps / 2] : 0.5 * ((double)t[reps / 2 - 1] + t[reps / 2]);
}

cupat_status lab_float_fn_rate(cupat_ctx *ctx, int fn, int var, size_t n, int iters, int reps, double *ms,
                               double *per_s)
{
    if (!ctx) return cupat__fail(NULL, CUPAT_ERROR_INVALID_VALUE, "lab float: ctx is NULL");
    if (n < 256 || n > MAX_N)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab float: n = %zu (256 to 2^28)", n);
    if (iters < 1 || iters > 4096)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab float: iters = %d (1 to 4096)", iters);
    if (reps < 1 || reps > 1000)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab float: reps = %d (1 to 1000)", reps);
    if (!ms || !per_s) return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab float: %s is NULL", !ms ? "ms" : "per_s");
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *t = malloc((size_t)reps * sizeof *t);
    cupat_status s = x && y && t ? CUPAT_SUCCESS : cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY, "lab float: out of host memory");
    if (!s) {
        lab_float_fn_inputs(fn, 0, 7, x, y, n);
        s = check_fn(ctx, fn, var, x, y, n);
    }
    if (!s) s = need_cuda(ctx);
    float *d[4] = {NULL, NULL, NULL, NULL};
    const float *h[3] = {x, fn == LAB_FN_DIV ? y : NULL, NULL};
    if (!s) s = upload(ctx, n, h, d);
    if (!s) s = cupat_malloc(ctx, (void **)&d[3], n * sizeof(float));
    if (!s) s = cupat__lab_float_fn_rate(ctx, fn, var, d[0], d[1], n, iters, reps, d[3], t);
    if (!s) {
        *ms = median(t, reps);
        *per_s = *ms > 0 ? (double)n * iters / (*ms * 1e-3) : 0;
    }
    release(ctx, d, 4);
    free(x);
    free(y);
    free(t);
    return s;
}

cupat_status lab_float_fma_rate(cupat_ctx *ctx, int double_prec, unsigned blocks, int iters, int reps, double *ms,
                                double *flops_per_s)
{
    if (!ctx) return cupat__fail(NULL, CUPAT_ERROR_INVALID_VALUE, "lab float: ctx is NULL");
    if (blocks < 1 || blocks > (1u << 20))
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab float: blocks = %u (1 to 2^20)", blocks);
    if (iters < 1 || iters > (1 << 20))
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab float: iters = %d (1 to 2^20)", iters);
    if (reps < 1 || reps > 1000)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab float: reps = %d (1 to 1000)", reps);
    if (!ms || !flops_per_s)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab float: %s is NULL", !ms ? "ms" : "flops_per_s");
    CUPAT_TRY(need_cuda(ctx));
    void *sink = NULL;
    float *t = malloc((size_t)reps * sizeof *t);
    cupat_status s = t ? CUPAT_SUCCESS : cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY, "lab float: out of host memory");
    if (!s) s = cupat_malloc(ctx, &sink, (size_t)blocks * 256 * sizeof(double));
    if (!s) s = cupat__lab_float_fma(ctx, double_prec, blocks, iters, reps, sink, t);
    if (!s) {
        *ms = median(t, reps);
        *flops_per_s = *ms > 0 ? 2.0 * 8 * iters * 256.0 * blocks / (*ms * 1e-3) : 0;
    }
    if (sink) cupat_free(ctx, sink);
    free(t);
    return s;
}

cupat_status lab_float_sum_all(cupat_ctx *ctx, const float *x, size_t n, float sums[LAB_NSUMS])
{
    if (!x || !sums || n < 1)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab float: %s", !x ? "x is NULL" : !sums ? "sums is NULL" : "n = 0");
    for (int k = 0; k < LAB_SUM_REDUCE; k++) sums[k] = lab_float_sum_host(k, x, n);
    sums[LAB_SUM_REDUCE] = sums[LAB_SUM_REDUCE_COMP] = NAN;
    if (!ctx) return CUPAT_SUCCESS;
    float *d = NULL;
    cupat_status s = cupat_malloc(ctx, (void **)&d, n * sizeof *d);
    if (!s) s = cupat_memcpy(ctx, d, x, n * sizeof *d);
    if (!s) s = cupat_set_variant(ctx, "reduce", NULL);
    if (!s) s = cupat_reduce_host(ctx, CUPAT_F32, CUPAT_OP_SUM, n, d, &sums[LAB_SUM_REDUCE]);
    if (!s) s = cupat_set_variant(ctx, "reduce", "compensated");
    if (!s) s = cupat_reduce_host(ctx, CUPAT_F32, CUPAT_OP_SUM, n, d, &sums[LAB_SUM_REDUCE_COMP]);
    if (!s) s = cupat_set_variant(ctx, "reduce", NULL);
    if (d) cupat_free(ctx, d);
    return s;
}
