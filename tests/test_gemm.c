/* SPDX-License-Identifier: Apache-2.0 */
/* test_gemm.c — cupat_gemm_f32 and cupat_gemv_f32: every rung of the backend
 * (and, on CUDA, every tile configuration and split of the multistage kernel)
 * against an f64 reference, over the shapes, all op combinations, both
 * layouts, padded and unaligned leading dimensions and pointers, alpha / beta
 * special cases (beta = 0 over NaN poison); then the argument checks.
 *
 * Error bound. A k-term f32 dot product, accumulated in any order with or
 * without FMA, is within gamma_k sum_p |a_p b_p| of the exact one (Higham,
 * "Accuracy and Stability of Numerical Algorithms", 3.1), gamma_k = k u /
 * (1 - k u), u = 2^-24. Split-K adds s - 1 sums of partials (s <= k / 64),
 * alpha s one rounding, beta c + r one or two: the error is at most
 * gamma_{k+s+2} (|alpha| (|A||B|)_ij + |beta| |C_ij|), and (k + s + 2) u <=
 * 2 max(k, 1) eps for every k (eps = 2u = FLT_EPSILON; k = 0 leaves one
 * rounding of beta c). So c = 2 in |C - C_ref| <= c max(k,1) eps (...). The
 * f64 reference adds 2^-52 relative, far below that. NaN never passes. */
#include "testutil.h"

#include "gemm/gemm_internal.h"

#include <float.h>
#include <limits.h>
#include <stdint.h>

#define TOL_C 2.0

static int on_gpu(void) { return t_backend == CUPAT_BACKEND_CUDA; }

/* ------------------------------------------------------- host matrices -- */

typedef struct gcase {
    size_t m, n, k;
    int col;              /* CUPAT_COL_MAJOR */
    int ta, tb;
    float alpha, beta;
    size_t pad;           /* extra leading-dimension elements */
    size_t off;           /* element offset of A, B, C from aligned storage */
    int nulls;            /* alpha == 0 / k == 0 cases pass A = B = NULL */
} gcase;

typedef struct gdata {
    gcase g;
    size_t lda, ldb, ldc;
    size_t a_elems, b_elems, c_elems; /* storage incl. offset */
    float *hA, *hB, *hC0, *hC;
    float *dA, *dB, *dC;              /* allocations (data at + off) */
    size_t nsample;
    size_t *si, *sj;                  /* checked positions */
    double *ref, *tol;
} gdata;

/* element (r, c) of a stored matrix in the case's layout */
static inline float at(const float *X, size_t ld, int col, size_t r, size_t c)
{
    return col ? X[c * ld + r] : X[r * ld + c];
}
static inline size_t idx(size_t ld, int col, size_t r, size_t c)
{
    return col ? c * ld + r : r * ld + c;
}

static void set_ld(size_t rows, size_t cols, int col, size_t pad, size_t *ld, size_t *elems)
{
    size_t inner = col ? rows : cols, outer = col ? cols : rows;
    *ld = (inner ? inner : 1) + pad;
    *elems = outer * *ld;
}

static void fill_rand(float *p, size_t n)
{
    for (size_t i = 0; i < n; i++) p[i] = test_randf();
}

/* Pick the positions to check: all of C when the reference is cheap, else
 * the four corners and random ones. */
static void pick_samples(gdata *d)
{
    const gcase *g = &d->g;
    size_t total = g->m * g->n;
    int full = (double)total * (double)(g->k ? g->k : 1) <= 3e7;
    size_t ns = full ? total : 2000 + 4;
    d->nsample = ns;
    d->si = malloc(ns * sizeof *d->si);
    d->sj = malloc(ns * sizeof *d->sj);
    d->ref = malloc(ns * sizeof *d->ref);
    d->tol = malloc(ns * sizeof *d->tol);
    if (!d->si || !d->sj || !d->ref || !d->tol) {
        d->nsample = 0;
        return;
    }
    for (size_t s = 0; s < ns; s++) {
        if (full) {
            d->si[s] = s / g->n;
            d->sj[s] = s % g->n;
        } else if (s < 4) {
            d->si[s] = (s & 1) ? g->m - 1 : 0;
            d->sj[s] = (s & 2) ? g->n - 1 : 0;
        } else {
            d->si[s] = test_rand() % g->m;
            d->sj[s] = test_rand() % g->n;
        }
    }
}

static void reference(gdata *d)
{
    const gcase *g = &d->g;
    const float *A = d->hA + g->off, *B = d->hB + g->off, *C0 = d->hC0 + g->off;
    for (size_t s = 0; s < d->nsample; s++) {
        size_t i = d->si[s], j = d->sj[s];
        double sum = 0, mag = 0;
        for (size_t p = 0; p < g->k; p++) {
            double a = g->ta ? at(A, d->lda, g->col, p, i) : at(A, d->lda, g->col, i, p);
            double b = g->tb ? at(B, d->ldb, g->col, j, p) : at(B, d->ldb, g->col, p, j);
            sum += a * b;
            mag += fabs(a * b);
        }
        double c0 = g->beta != 0.0f ? at(C0, d->ldc, g->col, i, j) : 0.0;
        d->ref[s] = (double)g->alpha * sum + (double)g->beta * c0;
        d->tol[s] = TOL_C * (double)(g->k > 1 ? g->k : 1) * FLT_EPSILON *
                    (fabs((double)g->alpha) * mag + fabs((double)g->beta) * fabs(c0));
    }
}

static int gdata_init(cupat_ctx *ctx, gdata *d, const gcase *g)
{
    memset(d, 0, sizeof *d);
    d->g = *g;
    set_ld(g->ta ? g->k : g->m, g->ta ? g->m : g->k, g->col, g->pad, &d->lda, &d->a_elems);
    set_ld(g->tb ? g->n : g->k, g->tb ? g->k : g->n, g->col, g->pad, &d->ldb, &d->b_elems);
    set_ld(g->m, g->n, g->col, g->pad, &d->ldc, &d->c_elems);
    d->a_elems += g->off;
    d->b_elems += g->off;
    d->c_elems += g->off;
    d->hA = malloc(d->a_elems * sizeof(float) + 16);
    d->hB = malloc(d->b_elems * sizeof(float) + 16);
    d->hC0 = malloc(d->c_elems * sizeof(float) + 16);
    d->hC = malloc(d->c_elems * sizeof(float) + 16);
    if (!d->hA || !d->hB || !d->hC0 || !d->hC) {
        CHECK(0, "host allocation for %zu x %zu x %zu", g->m, g->n, g->k);
        return 0;
    }
    fill_rand(d->hA, d->a_elems);
    fill_rand(d->hB, d->b_elems);
    fill_rand(d->hC0, d->c_elems);
    d->dA = test_upload(ctx, d->hA, d->a_elems * sizeof(float));
    d->dB = test_upload(ctx, d->hB, d->b_elems * sizeof(float));
    d->dC = test_upload(ctx, NULL, d->c_elems * sizeof(float));
    pick_samples(d);
    reference(d);
    int ok = (d->dA || !d->a_elems) && (d->dB || !d->b_elems) && (d->dC || !d->c_elems);
    CHECK(g->m == 0 || g->n == 0 || d->nsample > 0, "sample allocation");
    return ok;
}

static void gdata_free(cupat_ctx *ctx, gdata *d)
{
    cupat_sync(ctx);
    cupat_free(ctx, d->dA);
    cupat_free(ctx, d->dB);
    cupat_free(ctx, d->dC);
    free(d->hA);
    free(d->hB);
    free(d->hC0);
    free(d->hC);
    free(d->si);
    free(d->sj);
    free(d->ref);
    free(d->tol);
}

/* C before the call: NaN poison when beta == 0 (must not be read), else C0;
 * in both cases the padding columns must come back as they went in. */
static void prepare_c(cupat_ctx *ctx, gdata *d)
{
    size_t bytes = d->c_elems * sizeof(float);
    if (d->g.beta == 0.0f) memset(d->hC0, 0xFF, bytes); /* the reference used c0 = 0 */
    if (bytes) CHECK_OK(ctx, cupat_memcpy(ctx, d->dC, d->hC0, bytes));
}

/* Compare the sampled positions and the padding; `what` names the run. */
static void compare(cupat_ctx *ctx, gdata *d, const char *what)
{
    const gcase *g = &d->g;
    if (d->c_elems) test_download(ctx, d->hC, d->dC, d->c_elems * sizeof(float));
    const float *C = d->hC + g->off;
    size_t bad = 0, first = 0;
    double worst = 0;
    for (size_t s = 0; s < d->nsample; s++) {
        double got = at(C, d->ldc, g->col, d->si[s], d->sj[s]);
        double err = fabs(got - d->ref[s]);
        if (!(err <= d->tol[s])) {
            if (bad++ == 0) first = s;
        } else if (d->tol[s] > 0 && err / d->tol[s] > worst) {
            worst = err / d->tol[s];
        }
    }
    /* padding after each row / column and the offset prefix: untouched */
    size_t pad_bad = 0;
    for (size_t e = 0; e < g->off; e++)
        pad_bad += memcmp(&d->hC[e], &d->hC0[e], sizeof(float)) != 0;
    size_t inner = g->col ? g->m : g->n, outer = g->col ? g->n : g->m;
    for (size_t o = 0; o < outer && g->pad; o += (outer > 64 ? outer / 64 : 1))
        for (size_t q = inner; q < d->ldc; q++)
            pad_bad += memcmp(&C[o * d->ldc + q], &d->hC0[g->off + o * d->ldc + q],
                              sizeof(float)) != 0;
    if (bad) {
        size_t s = first;
        double got = at(C, d->ldc, g->col, d->si[s], d->sj[s]);
        CHECK(0,
              "%s: %zu x %zu x %zu %s op(%c,%c) alpha %g beta %g pad %zu off %zu: %zu of %zu "
              "wrong; first C[%zu][%zu] = %.9g, expected %.9g (tol %.3g)",
              what, g->m, g->n, g->k, g->col ? "col" : "row", g->ta ? 'T' : 'N',
              g->tb ? 'T' : 'N', g->alpha, g->beta, g->pad, g->off, bad, d->nsample, d->si[s],
              d->sj[s], got, d->ref[s], d->tol[s]);
    } else {
        CHECK(1, "ok");
    }
    CHECK(pad_bad == 0, "%s: %zu x %zu x %zu: %zu padding elements of C changed", what, g->m,
          g->n, g->k, pad_bad);
    (void)worst;
}

static cupat_status call_gemm(cupat_ctx *ctx, gdata *d)
{
    const gcase *g = &d->g;
    const float *A = g->nulls ? NULL : d->dA + g->off;
    const float *B = g->nulls ? NULL : d->dB + g->off;
    return cupat_gemm_f32(ctx, g->col ? CUPAT_COL_MAJOR : CUPAT_ROW_MAJOR,
                          g->ta ? CUPAT_TRANS_T : CUPAT_TRANS_N,
                          g->tb ? CUPAT_TRANS_T : CUPAT_TRANS_N, g->m, g->n, g->k, g->alpha,
                          A, d->lda, B, d->ldb, g->beta, d->dC + g->off, d->ldc);
}

/* Every rung of the backend ("default" last), then on CUDA every tile
 * configuration and split of the multistage kernel when `configs`. */
static void run_case(cupat_ctx *ctx, const gcase *g, int configs)
{
    gdata d;
    if (!gdata_init(ctx, &d, g)) {
        gdata_free(ctx, &d);
        return;
    }
    const cupat_variant_info *v;
    size_t nv;
    CHECK_OK(ctx, cupat_variants("gemm", &v, &nv));
    for (size_t r = 0; r <= nv; r++) {
        const char *name = r < nv ? v[r].name : "default";
        if (r < nv && v[r].backend != t_backend) continue;
        CHECK_OK(ctx, cupat_set_variant(ctx, "gemm", name));
        prepare_c(ctx, &d);
        cupat_status s = call_gemm(ctx, &d);
        CHECK(s == CUPAT_SUCCESS, "rung %s: %s: %s", name, cupat_status_string(s),
              cupat_last_error(ctx));
        if (s == CUPAT_SUCCESS) compare(ctx, &d, name);
    }
    CHECK_OK(ctx, cupat_set_variant(ctx, "gemm", NULL));
    if (configs && on_gpu() && g->m && g->n && g->k && g->alpha != 0.0f) {
        /* the same problem, normalized as gemm.c does, straight to each config */
        cupat_gemm_args a;
        const float *A = d.dA + g->off, *B = d.dB + g->off;
        if (!g->col)
            a = (cupat_gemm_args){(int)g->m, (int)g->n, (int)g->k, g->ta, g->tb, g->alpha,
                                  g->beta, A, d.lda, B, d.ldb, d.dC + g->off, d.ldc};
        else
            a = (cupat_gemm_args){(int)g->n, (int)g->m, (int)g->k, g->tb, g->ta, g->alpha,
                                  g->beta, B, d.ldb, A, d.lda, d.dC + g->off, d.ldc};
        static const int splits[] = {1, 3, 8};
        const size_t nsplits = t_small ? 2 : sizeof splits / sizeof splits[0];
        /* also after the copies that apply (split 1 and the first split
         * beyond it): B^T transposed into scratch (op(B) = T), A^T's and B's
         * rows padded to 16 bytes (op(A) = T, op(B) = N), A's pad with
         * either of B's */
        for (int c = 0; c < cupat__gemm_nconfigs; c++) {
            for (size_t q = 0; q < nsplits; q++) {
                for (int cp = 0; cp < 8; cp++) {
                    if (((cp & GEMM_PACK_B) && !a.tb) || ((cp & GEMM_PAD_A) && !a.ta) ||
                        ((cp & GEMM_PAD_B) && a.tb) || (cp && q > 1))
                        continue;
                    if (!test_keep_case()) continue;
                    char what[96];
                    snprintf(what, sizeof what, "config %s split %d%s%s%s",
                             cupat__gemm_configs[c].name, splits[q],
                             cp & GEMM_PACK_B ? " B packed" : "", cp & GEMM_PAD_A ? " A padded" : "",
                             cp & GEMM_PAD_B ? " B padded" : "");
                    prepare_c(ctx, &d);
                    cupat_status s = cupat__gemm_cuda_async(ctx, c, splits[q], &a, cp);
                    CHECK(s == CUPAT_SUCCESS, "%s: %s", what, cupat_last_error(ctx));
                    if (s == CUPAT_SUCCESS) compare(ctx, &d, what);
                }
            }
        }
    }
    gdata_free(ctx, &d);
}

static void gemm_shapes(cupat_ctx *ctx)
{
    typedef struct { size_t m, n, k; } shp;
    /* 264 x 264 x 72: every config has whole interior tiles (the unmasked copy
     * path) beside edge tiles and a partial k tile, small enough for the
     * sanitizer runs */
    static const shp tiny[] = {{1, 1, 1}, {17, 33, 65}, {33, 17, 40}, {5, 130, 3}, {264, 264, 72}};
    static const shp cpu[] = {{1, 1, 1}, {17, 33, 65}, {129, 257, 33}, {200, 150, 300},
                              {513, 67, 257}, {3, 1, 700}};
    static const shp gpu[] = {{1, 1, 1},         {17, 33, 65},       {129, 257, 33},
                              {1000, 1000, 1000}, {4097, 3001, 2003}, {65536, 64, 4096},
                              {64, 65536, 4096}, {96, 80, 20000}};
    const shp *list = t_small ? tiny : on_gpu() ? gpu : cpu;
    size_t count = t_small ? sizeof tiny / sizeof tiny[0]
                   : on_gpu() ? sizeof gpu / sizeof gpu[0]
                              : sizeof cpu / sizeof cpu[0];
    for (size_t s = 0; s < count; s++) {
        for (int op = 0; op < 4; op++) {
            gcase g = {list[s].m, list[s].n, list[s].k, 0, op & 1, op >> 1,
                       1.0f, 0.0f, 0, 0, 0};
            if (op == 1 || op == 2) { /* beta != 0, alpha != 1 on the mixed ops */
                g.alpha = -1.5f;
                g.beta = 0.75f;
            }
            /* every config on the small and odd shapes; the big ones by rung
             * (and op N,N); --small (the sanitizer runs): two shapes */
            int configs = t_small ? s == 1 || s == 4
                                  : list[s].m * list[s].n * list[s].k <= (size_t)1 << 28 || op == 0;
            run_case(ctx, &g, configs);
        }
    }
    /* column-major, padded leading dimensions, beta == 1 */
    static const shp colshapes[] = {{17, 33, 65}, {129, 257, 33}, {70, 9, 300}};
    for (size_t s = 0; s < sizeof colshapes / sizeof colshapes[0]; s++)
        for (int op = 0; op < 4; op++) {
            if (t_small && s > 0) break;
            gcase g = {colshapes[s].m, colshapes[s].n, colshapes[s].k, 1, op & 1, op >> 1,
                       0.5f, op == 3 ? 1.0f : 0.0f, op == 2 ? 0 : 3, 0, 0};
            run_case(ctx, &g, !t_small);
        }
    /* unaligned: odd leading dimensions and pointers one float off 16 bytes */
    for (int op = 0; op < 4; op++) {
        gcase g = {t_small ? 37 : 267, t_small ? 29 : 145, t_small ? 45 : 193, op == 3,
                   op & 1, op >> 1, 1.0f, 0.25f, 1, 1, 0};
        run_case(ctx, &g, 1);
    }
    /* alpha == 0 and k == 0: C = beta C, A and B never read (NULL); M or N == 0 */
    gcase z[] = {{40, 30, 20, 0, 0, 0, 0.0f, 2.0f, 0, 0, 1},
                 {40, 30, 20, 0, 1, 1, 0.0f, 0.0f, 0, 0, 1},
                 {40, 30, 0, 0, 0, 0, 1.0f, -1.0f, 0, 0, 1},
                 {40, 30, 0, 1, 0, 1, 1.0f, 0.0f, 2, 0, 1},
                 {0, 30, 20, 0, 0, 0, 1.0f, 1.0f, 0, 0, 0},
                 {40, 0, 20, 0, 0, 0, 1.0f, 1.0f, 0, 0, 0}};
    for (size_t q = 0; q < sizeof z / sizeof z[0]; q++) run_case(ctx, &z[q], 0);
}

/* ---------------------------------------------------------------- gemv -- */

static void gemv_case(cupat_ctx *ctx, size_t m, size_t n, int col, int ta, float alpha,
                      float beta, size_t pad)
{
    size_t lda, aelems;
    set_ld(m, n, col, pad, &lda, &aelems);
    size_t ylen = ta ? n : m, xlen = ta ? m : n;
    float *hA = malloc(aelems * sizeof(float) + 4), *hx = malloc(xlen * sizeof(float) + 4);
    float *hy0 = malloc(ylen * sizeof(float) + 4), *hy = malloc(ylen * sizeof(float) + 4);
    double *ref = malloc(ylen * sizeof(double) + 8), *tol = malloc(ylen * sizeof(double) + 8);
    if (!hA || !hx || !hy0 || !hy || !ref || !tol) {
        CHECK(0, "host allocation");
        goto out;
    }
    fill_rand(hA, aelems);
    fill_rand(hx, xlen);
    fill_rand(hy0, ylen);
    if (beta == 0.0f) memset(hy0, 0xFF, ylen * sizeof(float));
    for (size_t t = 0; t < ylen; t++) {
        double s = 0, mag = 0;
        for (size_t q = 0; q < xlen; q++) {
            double a = ta ? at(hA, lda, col, q, t) : at(hA, lda, col, t, q);
            s += a * hx[q];
            mag += fabs(a * hx[q]);
        }
        double y0 = beta != 0.0f ? hy0[t] : 0.0;
        ref[t] = alpha * s + beta * y0;
        tol[t] = TOL_C * (double)(xlen > 1 ? xlen : 1) * FLT_EPSILON *
                 (fabs(alpha) * mag + fabs(beta) * fabs(y0));
    }
    float *dA = test_upload(ctx, hA, aelems * sizeof(float));
    float *dx = test_upload(ctx, hx, xlen * sizeof(float));
    float *dy = test_upload(ctx, NULL, ylen * sizeof(float));
    const cupat_variant_info *v;
    size_t nv;
    CHECK_OK(ctx, cupat_variants("gemv", &v, &nv));
    for (size_t r = 0; r <= nv; r++) {
        const char *name = r < nv ? v[r].name : "default";
        if (r < nv && v[r].backend != t_backend) continue;
        CHECK_OK(ctx, cupat_set_variant(ctx, "gemv", name));
        if (ylen) CHECK_OK(ctx, cupat_memcpy(ctx, dy, hy0, ylen * sizeof(float)));
        cupat_status s = cupat_gemv_f32(ctx, col ? CUPAT_COL_MAJOR : 0,
                                        ta ? CUPAT_TRANS_T : CUPAT_TRANS_N, m, n, alpha, dA,
                                        lda, dx, beta, dy);
        CHECK(s == CUPAT_SUCCESS, "gemv %s: %s", name, cupat_last_error(ctx));
        if (ylen) test_download(ctx, hy, dy, ylen * sizeof(float));
        size_t bad = 0, first = 0;
        for (size_t t = 0; t < ylen; t++)
            if (!(fabs(hy[t] - ref[t]) <= tol[t]) && bad++ == 0) first = t;
        CHECK(bad == 0,
              "gemv %s: %zu x %zu %s op %c alpha %g beta %g: %zu wrong, first y[%zu] = %.9g "
              "expected %.9g",
              name, m, n, col ? "col" : "row", ta ? 'T' : 'N', alpha, beta, bad, first,
              bad ? hy[first] : 0.0, bad ? ref[first] : 0.0);
    }
    CHECK_OK(ctx, cupat_set_variant(ctx, "gemv", NULL));
    cupat_sync(ctx);
    cupat_free(ctx, dA);
    cupat_free(ctx, dx);
    cupat_free(ctx, dy);
out:
    free(hA);
    free(hx);
    free(hy0);
    free(hy);
    free(ref);
    free(tol);
}

static void gemv_shapes(cupat_ctx *ctx)
{
    typedef struct { size_t m, n; } shp;
    static const shp tiny[] = {{1, 1}, {17, 33}, {40, 3}, {3, 70}};
    static const shp big[] = {{1, 1},       {17, 33},      {1000, 3},     {3, 1000},
                              {4097, 2003}, {100000, 64}, {64, 100000}, {1, 300000},
                              {1029, 516},  {33, 4},      {777, 4130}};
    const shp *list = t_small ? tiny : big;
    size_t count = t_small ? 4 : sizeof big / sizeof big[0];
    for (size_t s = 0; s < count; s++)
        for (int c = 0; c < 4; c++)
            gemv_case(ctx, list[s].m, list[s].n, c >> 1, c & 1, c == 1 ? -2.0f : 1.0f,
                      (c & 1) ? 0.5f : 0.0f, c == 2 ? 5 : 0);
    /* op T with 8 rows' loads in flight (one block over 512 rows or more;
     * 515: a remainder past the 64-row steps): at full size on the GPU (278
     * MB), and forced on small matrices (the sanitizer runs) */
    if (!t_small && on_gpu())
        for (int b = 0; b < 2; b++) gemv_case(ctx, 515, 135172, 0, 1, 1.0f, b ? 0.5f : 0.0f, 0);
    cupat__gemv_u8_rows = 1;
    gemv_case(ctx, 77, 36, 0, 1, 1.0f, 0.0f, 0);
    gemv_case(ctx, 515, 8, 0, 1, -2.0f, 0.5f, 0);
    cupat__gemv_u8_rows = 512;
    /* op T's one-kernel form (about one 32-column block an SM: 777 x 4130
     * above takes it on its own), forced on small shapes: rows short of one
     * 16-row step and past the 256-row steps, ragged column blocks, beta */
    cupat__gemv_tall = 1;
    gemv_case(ctx, 5, 40, 0, 1, 1.0f, 0.0f, 0);
    gemv_case(ctx, 300, 70, 0, 1, -2.0f, 0.5f, 3);
    gemv_case(ctx, 45, 33, 1, 0, 1.0f, 0.0f, 0); /* column-major op N is row-major op T */
    cupat__gemv_tall = 0;
    /* op N's block-a-row form (long rows; 64 x 100000 and 1 x 300000 above
     * take it on their own), forced on short ones: a ragged float4 tail,
     * an unaligned row (padding 3), column-major op T */
    cupat__gemv_wide_n = 1;
    gemv_case(ctx, 7, 4103, 0, 0, 1.0f, 0.0f, 0);
    gemv_case(ctx, 9, 70, 0, 0, -2.0f, 0.5f, 3);
    gemv_case(ctx, 37, 5, 1, 1, 1.0f, 0.0f, 0);
    cupat__gemv_wide_n = 16384;
    gemv_case(ctx, 30, 20, 0, 0, 0.0f, 3.0f, 0); /* alpha 0: y = beta y */
    gemv_case(ctx, 30, 0, 0, 0, 1.0f, 0.0f, 0);  /* empty x: y = 0 */
    gemv_case(ctx, 0, 20, 0, 1, 1.0f, 2.0f, 0);  /* op T, m = 0: y = beta y */
}

/* -------------------------------------------------------- bad inputs -- */

static void bad_inputs(cupat_ctx *ctx)
{
    void *p = NULL;
    CHECK_OK(ctx, cupat_malloc(ctx, &p, 64 * 64 * sizeof(float)));
    CHECK_OK(ctx, cupat_memset(ctx, p, 0, 64 * 64 * sizeof(float))); /* accepted calls read it */
    float *d = p;
    const cupat_trans N = CUPAT_TRANS_N, T = CUPAT_TRANS_T;
    CHECK_FAILS(NULL, CUPAT_ERROR_NULL_POINTER, "ctx",
                cupat_gemm_f32(NULL, 0, N, N, 4, 4, 4, 1.0f, d, 4, d, 4, 0.0f, d, 4));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "A",
                cupat_gemm_f32(ctx, 0, N, N, 4, 4, 4, 1.0f, NULL, 4, d, 4, 0.0f, d, 4));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "B",
                cupat_gemm_f32(ctx, 0, N, N, 4, 4, 4, 1.0f, d, 4, NULL, 4, 0.0f, d, 4));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "C",
                cupat_gemm_f32(ctx, 0, N, N, 4, 4, 4, 1.0f, d, 4, d, 4, 0.0f, NULL, 4));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "lda",
                cupat_gemm_f32(ctx, 0, N, N, 4, 4, 8, 1.0f, d, 7, d, 4, 0.0f, d, 4));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "lda", /* op T: A is k x m */
                cupat_gemm_f32(ctx, 0, T, N, 6, 4, 2, 1.0f, d, 5, d, 4, 0.0f, d, 4));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "ldb",
                cupat_gemm_f32(ctx, CUPAT_COL_MAJOR, N, N, 4, 4, 8, 1.0f, d, 4, d, 7, 0.0f,
                               d, 4));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "ldc",
                cupat_gemm_f32(ctx, 0, N, N, 4, 5, 4, 1.0f, d, 4, d, 5, 0.0f, d, 4));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "ldc", /* ld >= 1 even when empty */
                cupat_gemm_f32(ctx, 0, N, N, 0, 0, 0, 1.0f, d, 1, d, 1, 0.0f, d, 0));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "op_a",
                cupat_gemm_f32(ctx, 0, (cupat_trans)2, N, 4, 4, 4, 1.0f, d, 4, d, 4, 0.0f, d,
                               4));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "op_b",
                cupat_gemm_f32(ctx, 0, N, (cupat_trans)-1, 4, 4, 4, 1.0f, d, 4, d, 4, 0.0f,
                               d, 4));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "flags",
                cupat_gemm_f32(ctx, 2, N, N, 4, 4, 4, 1.0f, d, 4, d, 4, 0.0f, d, 4));
    CHECK_FAILS(ctx, CUPAT_ERROR_SIZE, "m",
                cupat_gemm_f32(ctx, 0, N, N, (size_t)INT_MAX + 1, 4, 4, 1.0f, d, 4, d, 4,
                               0.0f, d, 4));
    CHECK_FAILS(ctx, CUPAT_ERROR_SIZE, "k",
                cupat_gemm_f32(ctx, 0, N, N, 4, 4, SIZE_MAX, 1.0f, d, SIZE_MAX, d, 4, 0.0f,
                               d, 4));
    CHECK_FAILS(ctx, CUPAT_ERROR_SIZE, "lda", /* extent (m - 1) * lda overflows */
                cupat_gemm_f32(ctx, 0, N, N, 1 << 20, 4, 4, 1.0f, d, SIZE_MAX / 1024, d, 4,
                               0.0f, d, 4));
    if (on_gpu()) {
        static float host[64];
        CHECK_FAILS(ctx, CUPAT_ERROR_HOST_POINTER, "A",
                    cupat_gemm_f32(ctx, 0, N, N, 4, 4, 4, 1.0f, host, 4, d, 4, 0.0f, d, 4));
        CHECK_FAILS(ctx, CUPAT_ERROR_HOST_POINTER, "C",
                    cupat_gemm_f32(ctx, 0, N, N, 4, 4, 4, 1.0f, d, 4, d, 4, 0.0f, host, 4));
        CHECK_FAILS(ctx, CUPAT_ERROR_HOST_POINTER, "x",
                    cupat_gemv_f32(ctx, 0, N, 4, 4, 1.0f, d, 4, host, 0.0f, d));
    }
    CHECK_FAILS(NULL, CUPAT_ERROR_NULL_POINTER, "ctx",
                cupat_gemv_f32(NULL, 0, N, 4, 4, 1.0f, d, 4, d, 0.0f, d));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "y",
                cupat_gemv_f32(ctx, 0, N, 4, 4, 1.0f, d, 4, d, 0.0f, NULL));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "lda",
                cupat_gemv_f32(ctx, 0, N, 4, 4, 1.0f, d, 3, d, 0.0f, d));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "op_a",
                cupat_gemv_f32(ctx, 0, (cupat_trans)7, 4, 4, 1.0f, d, 4, d, 0.0f, d));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "flags",
                cupat_gemv_f32(ctx, 0x10, N, 4, 4, 1.0f, d, 4, d, 0.0f, d));
    /* A size that overflows names m or n, not lda (which is fine here) */
    CHECK_FAILS(ctx, CUPAT_ERROR_SIZE, "y (m floats) = 18446744073709551615",
                cupat_gemv_f32(ctx, 0, N, SIZE_MAX, 4, 1.0f, d, 4, d, 0.0f, d));
    CHECK(!strstr(cupat_last_error(ctx), "lda"), "gemv m = SIZE_MAX blames lda: %s",
          cupat_last_error(ctx));
    CHECK_FAILS(ctx, CUPAT_ERROR_SIZE, "y (m floats) = 18446744073709551615",
                cupat_gemv_f32(ctx, CUPAT_COL_MAJOR, N, SIZE_MAX, 4, 1.0f, d, SIZE_MAX, d, 0.0f,
                               d));
    CHECK_FAILS(ctx, CUPAT_ERROR_SIZE, "x (m floats) = 18446744073709551615",
                cupat_gemv_f32(ctx, 0, T, SIZE_MAX, 4, 1.0f, d, 4, d, 0.0f, d));
    CHECK_FAILS(ctx, CUPAT_ERROR_SIZE, "A (m x n floats) = 1099511627776 x 1099511627776",
                cupat_gemv_f32(ctx, 0, N, (size_t)1 << 40, (size_t)1 << 40, 1.0f, d,
                               (size_t)1 << 40, d, 0.0f, d));
    /* nothing to do: success without touching anything */
    CHECK_OK(ctx, cupat_gemm_f32(ctx, 0, N, N, 0, 5, 3, 1.0f, NULL, 3, NULL, 5, 1.0f, NULL, 5));
    CHECK_OK(ctx, cupat_gemv_f32(ctx, 0, N, 0, 5, 1.0f, NULL, 5, NULL, 1.0f, NULL));
    cupat_free(ctx, p);
}

/* ------------------------------------------------------------ overlap -- */

/* Column-major C (m x n, ldc) = A B computed on the host from M, the matrix
 * holding A (op_a, lda) and C; B is k x n column-major, ldb = k. */
static void host_gemm_col(const float *M, size_t a_off, size_t lda, int ta, const float *B,
                          size_t m, size_t n, size_t k, double *ref, double *tol)
{
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < m; i++) {
            double s = 0, mag = 0;
            for (size_t p = 0; p < k; p++) {
                double a = ta ? M[a_off + i * lda + p] : M[a_off + p * lda + i];
                s += a * B[j * k + p];
                mag += fabs(a * B[j * k + p]);
            }
            ref[j * m + i] = s;
            tol[j * m + i] = TOL_C * (double)k * FLT_EPSILON * mag;
        }
}

/* Issue 18: an output sharing memory with an input gave wrong results and
 * success. The check is exact over each argument's runs (layout, op, ld):
 * interleaved column blocks of one matrix are accepted and computed right. */
static void overlaps(cupat_ctx *ctx)
{
    const cupat_trans N = CUPAT_TRANS_N, T = CUPAT_TRANS_T;
    const size_t S = 600;
    float *d = test_dalloc(ctx, 2 * S * S * sizeof(float));
    /* C == A at 600^3, C inside B, in both layouts and with op T */
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "C = ",
                cupat_gemm_f32(ctx, 0, N, N, S, S, S, 1.0f, d, S, d + S * S, S, 0.0f, d, S));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "overlaps A = ",
                cupat_gemm_f32(ctx, 0, N, N, S, S, S, 1.0f, d, S, d + S * S, S, 0.0f, d, S));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "overlaps B = ",
                cupat_gemm_f32(ctx, CUPAT_COL_MAJOR, T, T, 64, 64, 64, 1.0f, d, 64,
                               d + S * S, 64, 1.0f, d + S * S + 4095, 64));
    /* C's last element is A's first */
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "overlaps A = ",
                cupat_gemm_f32(ctx, 0, T, N, 8, 8, 8, 1.0f, d + 63, 8, d + S * S, 8, 0.0f, d, 8));
    /* alpha == 0: A and B are not read, C = beta C may sit on them */
    CHECK_OK(ctx, cupat_gemm_f32(ctx, 0, N, N, 8, 8, 8, 0.0f, d, 8, d, 8, 0.0f, d, 8));

    /* gemv: y on x, y inside A, y in A's padding (accepted) */
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "y = ",
                cupat_gemv_f32(ctx, 0, N, S, S, 1.0f, d + S * S, S, d, 0.0f, d));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "overlaps x = ",
                cupat_gemv_f32(ctx, 0, N, S, S, 1.0f, d + S * S, S, d, 0.0f, d));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "overlaps x = ",
                cupat_gemv_f32(ctx, 0, T, 4, 8, 1.0f, d + 100, 8, d, 0.0f, d + 3));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "overlaps A = ",
                cupat_gemv_f32(ctx, CUPAT_COL_MAJOR, N, 4, 4, 1.0f, d, 4, d + 100, 0.0f, d + 6));
    CHECK_OK(ctx, cupat_gemv_f32(ctx, 0, N, 4, 4, 1.0f, d, 8, d + 100, 0.0f, d + 4));
    CHECK_OK(ctx, cupat_gemv_f32(ctx, 0, N, 4, 4, 1.0f, d, 4, d, 0.0f, d + 16)); /* x on A */

    /* One column-major buffer M (ldc = lda = 24) holds A and C = M + 8 (8 x 8):
     * C's columns are M[8..16) + 24j. op N: A is 8 x 16 stored, columns
     * M[0..8) + 24i, disjoint from C's. op T: A is 16 x 8 stored, columns
     * M[0..16) + 24i, which cover C's: refused. */
    const size_t m = 8, n = 8, k = 16, ld = 24, melems = ld * k;
    float *hM = test_xmalloc(melems * sizeof(float)), *hB = test_xmalloc(k * n * sizeof(float));
    float *hC = test_xmalloc(melems * sizeof(float));
    double *ref = test_xmalloc(m * n * sizeof(double)), *tol = test_xmalloc(m * n * sizeof(double));
    fill_rand(hM, melems);
    fill_rand(hB, k * n);
    float *dM = test_upload(ctx, hM, melems * sizeof(float));
    float *dB = test_upload(ctx, hB, k * n * sizeof(float));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "overlaps A = ",
                cupat_gemm_f32(ctx, CUPAT_COL_MAJOR, T, N, m, n, k, 1.0f, dM, ld, dB, k, 0.0f,
                               dM + 8, ld));
    CHECK_OK(ctx, cupat_gemm_f32(ctx, CUPAT_COL_MAJOR, N, N, m, n, k, 1.0f, dM, ld, dB, k, 0.0f,
                                 dM + 8, ld));
    host_gemm_col(hM, 0, ld, 0, hB, m, n, k, ref, tol);
    test_download(ctx, hC, dM, melems * sizeof(float));
    size_t bad = 0;
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < m; i++)
            bad += !(fabs(hC[8 + j * ld + i] - ref[j * m + i]) <= tol[j * m + i]);
    for (size_t c = 0; c < k; c++) /* A's columns untouched */
        bad += memcmp(&hC[c * ld], &hM[c * ld], m * sizeof(float)) != 0;
    CHECK(bad == 0, "gemm into interleaved columns of A's matrix: %zu wrong", bad);
    cupat_free(ctx, dM);
    cupat_free(ctx, dB);
    cupat_free(ctx, d);
    free(hM);
    free(hB);
    free(hC);
    free(ref);
    free(tol);
}

/* The choice the auto rung makes on the shapes (for the log). */
static void show_picks(cupat_ctx *ctx)
{
    static const size_t s[][3] = {{4096, 4096, 4096}, {8192, 8192, 8192}, {1000, 1000, 1000},
                                  {4097, 3001, 2003}, {65536, 64, 4096},  {64, 65536, 4096},
                                  {96, 80, 20000},    {17, 33, 65}};
    for (size_t q = 0; q < sizeof s / sizeof s[0]; q++) {
        cupat_gemm_args a = {(int)s[q][0], (int)s[q][1], (int)s[q][2], 0, 0, 1.0f, 0.0f,
                             NULL, 0, NULL, 0, NULL, 0};
        int cfg, split;
        cupat__gemm_pick(ctx, &a, &cfg, &split);
        printf("auto: %zu x %zu x %zu -> %s, split %d\n", s[q][0], s[q][1], s[q][2],
               cupat__gemm_configs[cfg].name, split);
    }
}

/* The parts (test_run_parts) take no arguments: the context lives here. */
static cupat_ctx *g_ctx;
static void part_errors(void)
{
    bad_inputs(g_ctx);
    overlaps(g_ctx);
}
static void part_gemm(void) { gemm_shapes(g_ctx); }
static void part_gemv(void) { gemv_shapes(g_ctx); }

int main(int argc, char **argv)
{
    g_ctx = test_init(argc, argv);
    test_seed();
    if (on_gpu()) show_picks(g_ctx);
    static const test_part parts[] = {
        {"errors", part_errors}, {"gemm", part_gemm}, {"gemv", part_gemv}};
    test_run_parts(argc, argv, parts, sizeof parts / sizeof *parts, NULL);
    return test_finish(g_ctx);
}
