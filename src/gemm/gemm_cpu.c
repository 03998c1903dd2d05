/* SPDX-License-Identifier: Apache-2.0 */
/* gemm_cpu.c — the CPU backend of gemm and gemv: OpenMP, f32 arithmetic.
 *
 * GEMM is blocked for the caches (PMPP 5.2's tiling, on a CPU): each thread
 * owns MC x NC output tiles and walks k in KC steps, packing the op(A) block
 * (MC x KC) and the op(B) block (KC x NC) into contiguous buffers, so the
 * inner loop streams one packed B row against one A value with unit stride
 * whatever the layout (the compiler vectorizes it). The sums of a tile live
 * in a private buffer until k is done, then C = alpha acc + beta C once. */
#include "gemm/gemm_internal.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#define MC 64
#define NC 256
#define KC 256

static inline float elem_a(const cupat_gemm_args *a, size_t i, size_t p)
{
    return a->ta ? a->A[p * a->lda + i] : a->A[i * a->lda + p];
}
static inline float elem_b(const cupat_gemm_args *a, size_t p, size_t j)
{
    return a->tb ? a->B[j * a->ldb + p] : a->B[p * a->ldb + j];
}

static void scale_c(const cupat_gemm_args *a)
{
#pragma omp parallel for schedule(static)
    for (int i = 0; i < a->m; i++) {
        float *c = a->C + (size_t)i * a->ldc;
        for (int j = 0; j < a->n; j++) c[j] = a->beta != 0.0f ? a->beta * c[j] : 0.0f;
    }
}

cupat_status cupat__gemm_cpu(cupat_ctx *ctx, const cupat_gemm_args *a)
{
    if (a->m == 0 || a->n == 0) return CUPAT_SUCCESS;
    if (a->k == 0 || a->alpha == 0.0f) {
        scale_c(a);
        return CUPAT_SUCCESS;
    }
    const size_t per = (size_t)MC * KC + (size_t)KC * NC + (size_t)MC * NC;
    const int nt = omp_get_max_threads();
    /* the threads' panels: from the context's workspace (its cap holds) */
    void *w = NULL;
    CUPAT_TRY(cupat__scratch(ctx, (size_t)nt * per * sizeof(float), &w));
    float *buf = (float *)w;
    const long long tm = (a->m + MC - 1) / MC, tn = (a->n + NC - 1) / NC;
#pragma omp parallel for schedule(dynamic) num_threads(nt)
    for (long long t = 0; t < tm * tn; t++) {
        float *ap = buf + (size_t)omp_get_thread_num() * per; /* [MC][KC] */
        float *bp = ap + (size_t)MC * KC;                      /* [KC][NC] */
        float *acc = bp + (size_t)KC * NC;                     /* [MC][NC] */
        const size_t i0 = (size_t)(t / tn) * MC, j0 = (size_t)(t % tn) * NC;
        const size_t mc = (size_t)a->m - i0 < MC ? (size_t)a->m - i0 : MC;
        const size_t nc = (size_t)a->n - j0 < NC ? (size_t)a->n - j0 : NC;
        memset(acc, 0, (size_t)MC * NC * sizeof(float));
        for (size_t p0 = 0; p0 < (size_t)a->k; p0 += KC) {
            const size_t kc = (size_t)a->k - p0 < KC ? (size_t)a->k - p0 : KC;
            for (size_t i = 0; i < mc; i++)
                for (size_t p = 0; p < kc; p++) ap[i * KC + p] = elem_a(a, i0 + i, p0 + p);
            for (size_t p = 0; p < kc; p++)
                for (size_t j = 0; j < nc; j++) bp[p * NC + j] = elem_b(a, p0 + p, j0 + j);
            for (size_t i = 0; i < mc; i++) {
                float *ci = acc + i * NC;
                for (size_t p = 0; p < kc; p++) {
                    const float av = ap[i * KC + p];
                    const float *bpp = bp + p * NC;
                    for (size_t j = 0; j < nc; j++) ci[j] += av * bpp[j];
                }
            }
        }
        for (size_t i = 0; i < mc; i++) {
            float *c = a->C + (i0 + i) * a->ldc + j0;
            const float *s = acc + i * NC;
            for (size_t j = 0; j < nc; j++) {
                float r = a->alpha * s[j];
                c[j] = a->beta != 0.0f ? r + a->beta * c[j] : r; /* beta 0: C unread */
            }
        }
    }
    return CUPAT_SUCCESS;
}

cupat_status cupat__gemv_cpu(cupat_ctx *ctx, const cupat_gemv_args *a)
{
    (void)ctx;
    const size_t ylen = a->ta ? a->n : a->m, xlen = a->ta ? a->m : a->n;
    if (a->alpha == 0.0f || xlen == 0) {
#pragma omp parallel for schedule(static)
        for (size_t i = 0; i < ylen; i++) a->y[i] = a->beta != 0.0f ? a->beta * a->y[i] : 0.0f;
        return CUPAT_SUCCESS;
    }
    if (!a->ta) { /* y_i = sum_j A[i][j] x_j: rows in parallel */
#pragma omp parallel for schedule(static)
        for (size_t i = 0; i < a->m; i++) {
            const float *r = a->A + i * a->lda;
            float s = 0.0f;
            for (size_t j = 0; j < a->n; j++) s += r[j] * a->x[j];
            float v = a->alpha * s;
            a->y[i] = a->beta != 0.0f ? v + a->beta * a->y[i] : v;
        }
        return CUPAT_SUCCESS;
    }
    /* y_j = sum_i A[i][j] x_i: column blocks in parallel, rows streamed with
     * unit stride inside each block */
    enum { JB = 1024 };
#pragma omp parallel for schedule(dynamic)
    for (size_t j0 = 0; j0 < a->n; j0 += JB) {
        float s[JB];
        size_t nb = a->n - j0 < JB ? a->n - j0 : JB;
        memset(s, 0, sizeof s);
        for (size_t i = 0; i < a->m; i++) {
            const float *r = a->A + i * a->lda + j0;
            const float xi = a->x[i];
            for (size_t j = 0; j < nb; j++) s[j] += r[j] * xi;
        }
        for (size_t j = 0; j < nb; j++) {
            float v = a->alpha * s[j];
            a->y[j0 + j] = a->beta != 0.0f ? v + a->beta * a->y[j0 + j] : v;
        }
    }
    return CUPAT_SUCCESS;
}
