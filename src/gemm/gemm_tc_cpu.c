/* SPDX-License-Identifier: Apache-2.0 */
/* gemm_tc_cpu.c — the CPU rung of cupat_gemm (pattern "gemm_tc"): the
 * reference the tensor-core rungs will be checked against, and the backend.
 *
 * gemm_cpu.c's blocking (PMPP 5.2 on a CPU): each thread owns MC x NC output
 * tiles and walks k in KC steps, packing the op(A) block (MC x KC) and the
 * op(B) block (KC x NC) into contiguous panels. Here the packing is also the
 * conversion: each input is turned into the accumulate type there (f16 /
 * bf16 exactly to f32, tf32 rounded from f32 by cupat_f32_to_tf32, i8 to
 * i32), so the inner loop is a plain f32 (or i32) multiply-add whatever the
 * types, and the tensor cores' rule "exact products of the rounded inputs,
 * sums in the accumulate type" holds by construction. The sums of a tile stay
 * in a private buffer until k is done; then r = alpha s + beta c once, in
 * the accumulate type, and one rounding to the output type.
 *
 * The i8 path computes in uint32_t: two's complement wrap-around is then
 * defined (signed overflow would not be), and the result is exact modulo
 * 2^32 in any summation order. */
#include "gemm/gemm_internal.h"
#include "gemm/gemm_tc_epilogue.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#define MC 64
#define NC 256
#define KC 256

/* Stored index of op(A)(i, p) and op(B)(p, j) in the row-major problem. */
static inline size_t a_at(const cupat_gemm_tc_args *a, size_t i, size_t p)
{
    return a->ta ? p * a->lda + i : i * a->lda + p;
}
static inline size_t b_at(const cupat_gemm_tc_args *a, size_t p, size_t j)
{
    return a->tb ? j * a->ldb + p : p * a->ldb + j;
}

/* An input element in f32: exact for f16 / bf16, rounded for tf32. */
static inline float in_f32(cupat_gemm_type t, const void *x, size_t i)
{
    switch (t) {
    case CUPAT_GEMM_F16: return cupat_f16_to_f32(((const cupat_f16 *)x)[i]);
    case CUPAT_GEMM_BF16: return cupat_bf16_to_f32(((const cupat_bf16 *)x)[i]);
    default: return cupat_f32_to_tf32(((const float *)x)[i]); /* TF32 */
    }
}

/* One MC x NC tile of a float-input problem; buf holds the panels and sums. */
static void tile_float(const cupat_gemm_tc_args *a, size_t i0, size_t mc, size_t j0, size_t nc,
                       float *buf)
{
    float *ap = buf, *bp = ap + (size_t)MC * KC, *acc = bp + (size_t)KC * NC;
    memset(acc, 0, (size_t)MC * NC * sizeof(float));
    for (size_t p0 = 0; a->reads_ab && p0 < (size_t)a->k; p0 += KC) {
        const size_t kc = (size_t)a->k - p0 < KC ? (size_t)a->k - p0 : KC;
        for (size_t i = 0; i < mc; i++)
            for (size_t p = 0; p < kc; p++)
                ap[i * KC + p] = in_f32(a->in, a->A, a_at(a, i0 + i, p0 + p));
        for (size_t p = 0; p < kc; p++)
            for (size_t j = 0; j < nc; j++)
                bp[p * NC + j] = in_f32(a->in, a->B, b_at(a, p0 + p, j0 + j));
        for (size_t i = 0; i < mc; i++) {
            float *ci = acc + i * NC;
            for (size_t p = 0; p < kc; p++) {
                const float av = ap[i * KC + p];
                const float *bpp = bp + p * NC;
                for (size_t j = 0; j < nc; j++) ci[j] += av * bpp[j]; /* exact product, f32 sum */
            }
        }
    }
    for (size_t i = 0; i < mc; i++)
        for (size_t j = 0; j < nc; j++) {
            const size_t at = (i0 + i) * a->ldc + j0 + j;
            cupat__tc_epilogue_f32(a, at, acc[i * NC + j]);
        }
}

/* The same for i8 -> i32, modulo 2^32. */
static void tile_int(const cupat_gemm_tc_args *a, size_t i0, size_t mc, size_t j0, size_t nc,
                     int32_t *buf)
{
    int32_t *ap = buf, *bp = ap + (size_t)MC * KC;
    uint32_t *acc = (uint32_t *)(bp + (size_t)KC * NC);
    const int8_t *A = a->A, *B = a->B;
    memset(acc, 0, (size_t)MC * NC * sizeof(uint32_t));
    for (size_t p0 = 0; a->reads_ab && p0 < (size_t)a->k; p0 += KC) {
        const size_t kc = (size_t)a->k - p0 < KC ? (size_t)a->k - p0 : KC;
        for (size_t i = 0; i < mc; i++)
            for (size_t p = 0; p < kc; p++) ap[i * KC + p] = A[a_at(a, i0 + i, p0 + p)];
        for (size_t p = 0; p < kc; p++)
            for (size_t j = 0; j < nc; j++) bp[p * NC + j] = B[b_at(a, p0 + p, j0 + j)];
        for (size_t i = 0; i < mc; i++) {
            uint32_t *ci = acc + i * NC;
            for (size_t p = 0; p < kc; p++) {
                const int32_t av = ap[i * KC + p];
                const int32_t *bpp = bp + p * NC;
                /* |av bpp[j]| <= 2^14: the product never overflows */
                for (size_t j = 0; j < nc; j++) ci[j] += (uint32_t)(av * bpp[j]);
            }
        }
    }
    for (size_t i = 0; i < mc; i++)
        for (size_t j = 0; j < nc; j++) cupat__tc_epilogue_i32(a, (i0 + i) * a->ldc + j0 + j, acc[i * NC + j]);
}

cupat_status cupat__gemm_tc_cpu(cupat_ctx *ctx, const cupat_gemm_tc_args *a)
{
    if (a->m == 0 || a->n == 0) return CUPAT_SUCCESS;
    /* 4-byte slots: f32 or i32 panels and sums */
    const size_t per = (size_t)MC * KC + (size_t)KC * NC + (size_t)MC * NC;
    const int nt = omp_get_max_threads();
    /* the threads' panels: from the context's workspace (its cap holds) */
    void *buf = NULL;
    CUPAT_TRY(cupat__scratch(ctx, (size_t)nt * per * 4, &buf));
    const int is_int = a->in == CUPAT_GEMM_I8;
    const long long tm = (a->m + MC - 1) / MC, tn = (a->n + NC - 1) / NC;
#pragma omp parallel for schedule(dynamic) num_threads(nt)
    for (long long t = 0; t < tm * tn; t++) {
        const size_t i0 = (size_t)(t / tn) * MC, j0 = (size_t)(t % tn) * NC;
        const size_t mc = (size_t)a->m - i0 < MC ? (size_t)a->m - i0 : MC;
        const size_t nc = (size_t)a->n - j0 < NC ? (size_t)a->n - j0 : NC;
        char *mine = (char *)buf + (size_t)omp_get_thread_num() * per * 4;
        if (is_int) tile_int(a, i0, mc, j0, nc, (int32_t *)mine);
        else tile_float(a, i0, mc, j0, nc, (float *)mine);
    }
    return CUPAT_SUCCESS;
}
