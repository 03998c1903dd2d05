/* SPDX-License-Identifier: Apache-2.0 */
/* bench_gemm_tc.c — cupat_gemm, the mixed-type product (pattern "gemm_tc";
 * docs/gemm-tensor.md), one table per input type: f16 -> f32, bf16 -> bf16,
 * tf32 -> f32 (with a probe of how cuBLAS rounds tf32 inputs), i8 -> i32, S x S x S, row-major, op N,N, alpha 1, beta 0; on
 * CUDA's default run also the odd and skinny shapes in bf16.
 *
 * CUDA: every rung of the ladder at 4096^3 beside cublasGemmEx with the same
 * types; the % column is of the measured f16 / bf16 tensor-core ceiling
 * (bench/ceilings.c). */
#include "harness.h"
#include "internal.h"

#include <cublas_v2.h>

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NSAMPLE 512

typedef struct tc_state {
    size_t m, n, k; /* C is m x n; row-major, tight */
    cupat_gemm_type in, out;
    void *A, *B, *C;     /* backend buffers */
    void *hA, *hB, *hC;  /* host copies of the inputs; C brought back */
} tc_state;

static double in_value(cupat_gemm_type t, const void *p, size_t i)
{
    switch (t) {
    case CUPAT_GEMM_F16: return cupat_f16_to_f32(((const cupat_f16 *)p)[i]);
    case CUPAT_GEMM_BF16: return cupat_bf16_to_f32(((const cupat_bf16 *)p)[i]);
    case CUPAT_GEMM_TF32: return cupat_f32_to_tf32(((const float *)p)[i]);
    default: return ((const int8_t *)p)[i]; /* I8 */
    }
}

static double out_value(cupat_gemm_type t, const void *p, size_t i)
{
    switch (t) {
    case CUPAT_GEMM_F16: return cupat_f16_to_f32(((const cupat_f16 *)p)[i]);
    case CUPAT_GEMM_BF16: return cupat_bf16_to_f32(((const cupat_bf16 *)p)[i]);
    case CUPAT_GEMM_F32: return ((const float *)p)[i];
    default: return ((const int32_t *)p)[i]; /* I32 */
    }
}

static cupat_status tc_poison(bench_run *run, void *p)
{
    tc_state *st = p;
    return cupat_memset(run->ctx, st->C, 0xFF, st->m * st->n * cupat_gemm_type_size(st->out));
}

static cupat_status tc_run(bench_run *run, void *p)
{
    tc_state *st = p;
    return cupat_gemm(run->ctx, CUPAT_ROW_MAJOR, CUPAT_TRANS_N, CUPAT_TRANS_N, st->m, st->n, st->k, st->in,
                      st->out, 1.0, st->A, st->k, st->B, st->n, 0.0, st->C, st->n);
}

/* cublasGemmEx with the same types (cuBLAS is column-major: row-major C = A B
 * is column-major C^T = B^T A^T, the same memory with the operands swapped):
 * f16 -> f32 and bf16 -> bf16 with CUBLAS_COMPUTE_32F, tf32 -> f32 with
 * CUBLAS_COMPUTE_32F_FAST_TF32, i8 -> i32 with CUBLAS_COMPUTE_32I (integer
 * alpha and beta). */
static cupat_status tc_cublas(bench_run *run, void *p)
{
    tc_state *st = p;
    void *h;
    CUPAT_TRY(bench_cublas(run, &h));
    const float one = 1.0f, zero = 0.0f;
    const int32_t ione = 1, izero = 0;
    const int m = (int)st->m, n = (int)st->n, k = (int)st->k;
    if (st->in == CUPAT_GEMM_I8)
        return bench_cublas_status(run,
                                   cublasGemmEx((cublasHandle_t)h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &ione, st->B,
                                                CUDA_R_8I, n, st->A, CUDA_R_8I, k, &izero, st->C, CUDA_R_32I, n,
                                                CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT),
                                   "cublasGemmEx");
    cudaDataType_t ab = st->in == CUPAT_GEMM_F16 ? CUDA_R_16F : st->in == CUPAT_GEMM_BF16 ? CUDA_R_16BF : CUDA_R_32F;
    cudaDataType_t c = st->out == CUPAT_GEMM_BF16 ? CUDA_R_16BF : st->out == CUPAT_GEMM_F16 ? CUDA_R_16F : CUDA_R_32F;
    cublasComputeType_t ct = st->in == CUPAT_GEMM_TF32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    return bench_cublas_status(run,
                               cublasGemmEx((cublasHandle_t)h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, st->B,
                                            ab, n, st->A, ab, k, &zero, st->C, c, n, ct, CUBLAS_GEMM_DEFAULT),
                               "cublasGemmEx");
}

/* Sampled elements against an f64 reference of the rounded inputs, with
 * cupat.h's bound (beta 0: 2 k eps |A||B| + u_out |r| + t_out); i8 exact. */
static cupat_status tc_check(bench_run *run, void *p, int strict, bench_check *chk)
{
    tc_state *st = p;
    const size_t m = st->m, n = st->n, kk = st->k, eout = cupat_gemm_type_size(st->out);
    cupat_status r = cupat_memcpy(run->ctx, st->hC, st->C, m * n * eout);
    if (!r) r = cupat_sync(run->ctx);
    if (r) return r;
    const int h16 = st->out == CUPAT_GEMM_F16, b16 = st->out == CUPAT_GEMM_BF16;
    const double u = h16 ? 0x1p-11 : b16 ? 0x1p-8 : 0, t = h16 ? 0x1p-25 : b16 ? 0x1p-134 : 0;
    for (size_t q = 0; q < NSAMPLE && m && n; q++) {
        const size_t i = (q * 7919u) % m, j = (q * 104729u + 13u) % n;
        double sum = 0, mag = 0;
        for (size_t k = 0; k < kk; k++) {
            double ab = in_value(st->in, st->hA, i * kk + k) * in_value(st->in, st->hB, k * n + j);
            sum += ab;
            mag += fabs(ab);
        }
        double got = out_value(st->out, st->hC, i * n + j);
        double acc = 2.0 * (double)kk * FLT_EPSILON * mag;
        double tol = st->in == CUPAT_GEMM_I8 ? 0.0 : acc + u * (fabs(sum) + acc) + t;
        /* the vendor's row (not strict) may round tf32 inputs its own way:
         * up to a tf32 ulp (2^-10 relative) on each of a product's two inputs */
        if (!strict && st->in == CUPAT_GEMM_TF32) tol += 0x1p-9 * mag;
        chk->checked++;
        if (!(fabs(got - sum) <= tol) && chk->wrong++ == 0)
            snprintf(chk->msg, sizeof chk->msg, "C[%zu][%zu] = %.9g, expected %.9g (tol %.3g)", i,
                     j, got, sum, tol);
    }
    return CUPAT_SUCCESS;
}

static void tc_free(bench_run *run, tc_state *st)
{
    cupat_sync(run->ctx);
    cupat_free(run->ctx, st->A);
    cupat_free(run->ctx, st->B);
    cupat_free(run->ctx, st->C);
    free(st->hA);
    free(st->hB);
    free(st->hC);
}

/* Inputs in [-1, 1) (tf32 with all 24 bits, so its rounding matters), i8
 * over its whole range; the same every run (bench_rand_f32). */
static cupat_status tc_setup(bench_run *run, tc_state *st)
{
    const size_t na = st->m * st->k, nb = st->k * st->n, ein = cupat_gemm_type_size(st->in);
    const size_t eout = cupat_gemm_type_size(st->out);
    st->hA = malloc(na * ein + 1);
    st->hB = malloc(nb * ein + 1);
    st->hC = malloc(st->m * st->n * eout + 1);
    if (!st->hA || !st->hB || !st->hC)
        return bench_fail(run, CUPAT_ERROR_OUT_OF_MEMORY, "bench gemm_tc: host memory");
    for (int w = 0; w < 2; w++) {
        void *h = w ? st->hB : st->hA;
        const size_t n = w ? nb : na;
        for (size_t i = 0; i < n; i++) {
            float x = bench_rand_f32(41 + (uint64_t)w, i, -1.0f, 2.0f);
            switch (st->in) {
            case CUPAT_GEMM_F16: ((cupat_f16 *)h)[i] = cupat_f32_to_f16(x); break;
            case CUPAT_GEMM_BF16: ((cupat_bf16 *)h)[i] = cupat_f32_to_bf16(x); break;
            case CUPAT_GEMM_I8:
                ((int8_t *)h)[i] = (int8_t)(bench_hash(41 + (uint64_t)w, i) >> 56);
                break;
            default: ((float *)h)[i] = x; break;
            }
        }
    }
    cupat_status r = cupat_malloc(run->ctx, &st->A, na * ein);
    if (!r) r = cupat_malloc(run->ctx, &st->B, nb * ein);
    if (!r) r = cupat_malloc(run->ctx, &st->C, st->m * st->n * eout);
    if (!r) r = cupat_memcpy(run->ctx, st->A, st->hA, na * ein);
    if (!r) r = cupat_memcpy(run->ctx, st->B, st->hB, nb * ein);
    return r ? r : cupat_sync(run->ctx);
}

/* How cublasGemmEx's FAST_TF32 and cupat's tf32 read an f32, measured: one
 * operand x everywhere, the other 1 (S x S x S, op N,N), so C = S t(x) with
 * t the reading of x, exact in f32 (S <= 2^12). x = 1 + 3 2^-12: truncated
 * t = 1, rounded to nearest 1 + 2^-10. Ties: x = 1 + 2^-11 (even: down, to
 * 1) and 1 + 3 2^-11 (even: up, to 1 + 2^-9; toward zero 1 + 2^-10). The
 * table's note prints each C[0][0], x in A / in B. */
static char probe_note[768];
static cupat_status tf32_probe(bench_run *run, tc_state *st)
{
    const size_t nn = st->m * st->k; /* square: A and B alike */
    float *one = malloc(nn * sizeof(float)), *hx = malloc(nn * sizeof(float));
    if (!one || !hx) {
        free(one);
        free(hx);
        return bench_fail(run, CUPAT_ERROR_OUT_OF_MEMORY, "bench gemm_tc: host memory");
    }
    static const float xs[3] = {1.0f + 0x3p-12f, 1.0f + 0x1p-11f, 1.0f + 0x3p-11f};
    float got[3][2][2] = {{{0}}}; /* [x][x in A, in B][cuBLAS, cupat] */
    cupat_status r = CUPAT_SUCCESS;
    for (size_t i = 0; i < nn; i++) one[i] = 1.0f;
    for (int xi = 0; xi < 3 && !r; xi++) {
        for (size_t i = 0; i < nn; i++) hx[i] = xs[xi];
        for (int side = 0; side < 2 && !r; side++) {
            r = cupat_memcpy(run->ctx, st->A, side ? one : hx, nn * 4);
            if (!r) r = cupat_memcpy(run->ctx, st->B, side ? hx : one, nn * 4);
            for (int w = 0; w < 2 && !r; w++) {
                r = w == 0 ? tc_cublas(run, st) : tc_run(run, st);
                if (!r) r = cupat_memcpy(run->ctx, &got[xi][side][w], st->C, sizeof(float));
                if (!r) r = cupat_sync(run->ctx);
            }
        }
    }
    free(one);
    free(hx);
    /* the timed rows read their own inputs again */
    if (!r) r = cupat_memcpy(run->ctx, st->A, st->hA, nn * 4);
    if (!r) r = cupat_memcpy(run->ctx, st->B, st->hB, nn * 4);
    if (!r) r = cupat_sync(run->ctx);
    if (r) return r;
    const double S = (double)st->k, u = S * 0x1p-10;
    snprintf(probe_note, sizeof probe_note,
             "the %% column is of the measured dense f16 / bf16 tensor rate (tf32 at half of it). "
             "Probe, one operand x everywhere and the other 1, C[0][0] with x in A / in B, "
             "cublasGemmEx FAST_TF32 vs cupat: x = 1 + 3*2^-12: %.9g / %.9g vs %.9g / %.9g (rounded "
             "%.9g, truncated %.9g); ties x = 1 + 2^-11: %.9g / %.9g vs %.9g / %.9g (to even %.9g, "
             "away %.9g); x = 1 + 3*2^-11: %.9g / %.9g vs %.9g / %.9g (to even %.9g, toward zero "
             "%.9g)",
             got[0][0][0], got[0][1][0], got[0][0][1], got[0][1][1], S + u, S, got[1][0][0],
             got[1][1][0], got[1][0][1], got[1][1][1], S, S + u, got[2][0][0], got[2][1][0],
             got[2][0][1], got[2][1][1], S + 2 * u, S + u);
    return CUPAT_SUCCESS;
}

cupat_status bench_gemm_tc_cases(bench_run *run, const bench_size *size)
{
    static const struct {
        cupat_gemm_type in, out;
    } kinds[] = {{CUPAT_GEMM_F16, CUPAT_GEMM_F32},
                 {CUPAT_GEMM_BF16, CUPAT_GEMM_BF16},
                 {CUPAT_GEMM_TF32, CUPAT_GEMM_F32},
                 {CUPAT_GEMM_I8, CUPAT_GEMM_I32}};
    /* --n S: S x S x S (a shape RxC: R); default 4096 on CUDA, 384 on the CPU */
    const size_t s = size && size->n ? (size->rows ? size->rows : size->n)
                     : run->backend == CUPAT_BACKEND_CUDA ? 4096 : 384;
    /* the odd and skinny shapes (bf16 -> bf16), after the S^3 tables,
     * on the default CUDA run only */
    static const size_t odd[][3] = {{1000, 1000, 1000}, {4097, 3001, 2003}, {65536, 64, 4096}, {64, 65536, 4096}};
    const size_t nodd = run->backend == CUPAT_BACKEND_CUDA && !(size && size->n) ? sizeof odd / sizeof odd[0] : 0;
    for (size_t q = 0; q < sizeof kinds / sizeof kinds[0] + nodd; q++) {
        tc_state st = {0};
        const int sq = q < sizeof kinds / sizeof kinds[0];
        const size_t *shape = sq ? NULL : odd[q - sizeof kinds / sizeof kinds[0]];
        st.m = sq ? s : shape[0];
        st.n = sq ? s : shape[1];
        st.k = sq ? s : shape[2];
        st.in = sq ? kinds[q].in : CUPAT_GEMM_BF16;
        st.out = sq ? kinds[q].out : CUPAT_GEMM_BF16;
        const double ein = (double)cupat_gemm_type_size(st.in);
        const double eout = (double)cupat_gemm_type_size(st.out);
        const double m = (double)st.m, n = (double)st.n, k = (double)st.k;
        bench_case c = {0};
        c.pattern = "gemm_tc";
        snprintf(c.label, sizeof c.label, "%zux%zux%zu %s -> %s, op N,N, beta 0", st.m, st.n, st.k,
                 cupat_gemm_type_name(st.in), cupat_gemm_type_name(st.out));
        c.bytes = (m * k + k * n) * ein + m * n * eout;
        c.flops = 2.0 * m * n * k;
        c.bound = BENCH_BOUND_TENSOR;
        c.state = &st;
        c.prepare = tc_poison;
        c.run = tc_run;
        c.check = tc_check;
        const int gpu = run->backend == CUPAT_BACKEND_CUDA;
        c.note = st.in == CUPAT_GEMM_TF32 || st.in == CUPAT_GEMM_I8
                     ? "the % column is of the measured dense f16 / bf16 tensor rate (tf32 runs at half "
                       "of it, i8 at twice, on the H100's data sheet)"
                     : "the % column is of the measured dense bf16 tensor rate (cupat info)";

        c.vendor_name = gpu ? "cublasGemmEx" : NULL;
        c.vendor = gpu ? tc_cublas : NULL;
        cupat_status r = tc_setup(run, &st);
        if (!r && gpu && sq && st.in == CUPAT_GEMM_TF32) {
            r = tf32_probe(run, &st);
            c.note = probe_note;
        }
        if (!r) r = bench_run_case(run, &c);
        if (r) { /* the frees below would clear the context's message */
            char msg[CUPAT_ERRMSG];
            snprintf(msg, sizeof msg, "%s", cupat_last_error(run->ctx));
            tc_free(run, &st);
            return bench_fail(run, r, "%s", msg);
        }
        tc_free(run, &st);
    }
    return CUPAT_SUCCESS;
}
