/* SPDX-License-Identifier: Apache-2.0 */
/* bench_sparse.c — `cupat bench spmv`: y = A x on the standard families, every
 * rung of the backend's "spmv" ladder (a rung whose format the matrix refuses,
 * ELL on power-law rows, is left out with a note), and cusparseSpMV on the
 * same CSR arrays as the vendor row. Minimum bytes: the CSR arrays, x and y
 * once each ((rows + 1) + nnz indices, nnz values, cols + rows values); the
 * table's % is of the read ceiling. Every row is checked against an f64 host
 * sum within (len + 4) u sum |a x|. Formats are built in the untimed first
 * call of each row. Then CG on 3D Poisson, f32 and f64: cupat_cg against the
 * same preconditioned CG on cuSPARSE + cuBLAS (whole solves, iterations in
 * the note). */
#include "bench_sparse.h"
#include "harness.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct sp_state {
    cupat_sparse *A;
    cupat_sparse_info in;
    cupat_type vt;
    size_t vs;
    void *x, *y;          /* backend */
    double *hx;           /* host x */
    int64_t *rp, *ci;     /* host CSR, for the check */
    double *v;
    void *dr, *dc, *dv;   /* device CSR copies for cuSPARSE */
    bench_cusparse *vendor;
} sp_state;

static cupat_status sp_run(bench_run *run, void *p)
{
    sp_state *st = p;
    return cupat_spmv(run->ctx, st->A, 1.0, st->x, 0.0, st->y);
}

static cupat_status sp_vendor(bench_run *run, void *p)
{
    sp_state *st = p;
    return bench_cusparse_spmv(st->vendor) ? CUPAT_ERROR_CUDA : CUPAT_SUCCESS;
}

static cupat_status sp_prepare(bench_run *run, void *p)
{
    sp_state *st = p; /* poison y: an unwritten row fails */
    return cupat_memset(run->ctx, st->y, 0xff, st->in.rows * st->vs);
}

static cupat_status sp_check(bench_run *run, void *p, int strict, bench_check *out)
{
    sp_state *st = p;
    size_t rows = st->in.rows;
    void *h = malloc((rows ? rows : 1) * st->vs);
    if (!h) return bench_fail(run, CUPAT_ERROR_OUT_OF_MEMORY, "bench spmv: no host memory");
    cupat_status s = cupat_memcpy(run->ctx, h, st->y, rows * st->vs);
    if (!s) s = cupat_sync(run->ctx);
    double u = st->vt == CUPAT_F32 ? FLT_EPSILON / 2 : DBL_EPSILON / 2;
    for (size_t i = 0; !s && i < rows; i++) {
        double acc = 0, mag = 0;
        for (int64_t k = st->rp[i]; k < st->rp[i + 1]; k++) {
            double t = st->v[k] * st->hx[st->ci[k]];
            acc += t;
            mag += fabs(t);
        }
        double got = st->vt == CUPAT_F32 ? (double)((float *)h)[i] : ((double *)h)[i];
        /* the f64 reference itself errs by up to len u64 mag */
        double tol = ((double)(st->rp[i + 1] - st->rp[i]) + 4) * (u + DBL_EPSILON) * mag;
        out->checked++;
        if (!(fabs(got - acc) <= tol)) {
            if (!out->wrong)
                snprintf(out->msg, sizeof out->msg, "y[%zu] = %.9g, want %.9g (tol %.3g)", i, got, acc,
                         tol);
            out->wrong++;
        }
    }
    free(h);
    return s;
}

static void sp_free(bench_run *run, sp_state *st)
{
    bench_cusparse_destroy(st->vendor);
    cupat_sync(run->ctx);
    cupat_free(run->ctx, st->x);
    cupat_free(run->ctx, st->y);
    cupat_free(run->ctx, st->dr);
    cupat_free(run->ctx, st->dc);
    cupat_free(run->ctx, st->dv);
    cupat_sparse_destroy(run->ctx, st->A);
    free(st->hx);
    free(st->rp);
    free(st->ci);
    free(st->v);
    memset(st, 0, sizeof *st);
}

/* Host copies (i64 / f64) of A's CSR for the check, x, y, and the vendor's
 * device CSR. */
static cupat_status sp_setup(bench_run *run, sp_state *st)
{
    cupat_ctx *ctx = run->ctx;
    cupat_sparse_info *in = &st->in;
    cupat_status s0 = cupat_sparse_get_info(ctx, st->A, in);
    if (s0) return s0;
    size_t is = cupat_type_size(in->index_type), n = in->nnz ? in->nnz : 1;
    st->vs = cupat_type_size(in->value_type);
    st->vt = in->value_type;
    void *rp = malloc((in->rows + 1) * is), *ci = malloc(n * is), *v = malloc(n * st->vs),
         *hx = malloc((in->cols ? in->cols : 1) * st->vs);
    st->rp = malloc((in->rows + 1) * sizeof *st->rp);
    st->ci = malloc(n * sizeof *st->ci);
    st->v = malloc(n * sizeof *st->v);
    st->hx = malloc((in->cols ? in->cols : 1) * sizeof *st->hx);
    cupat_status s = CUPAT_SUCCESS;
    if (!rp || !ci || !v || !hx || !st->rp || !st->ci || !st->v || !st->hx)
        s = bench_fail(run, CUPAT_ERROR_OUT_OF_MEMORY, "bench spmv: no host memory");
    if (!s) s = cupat_sparse_get_csr(ctx, st->A, rp, ci, v);
    int i64 = in->index_type == CUPAT_I64, f64 = st->vt == CUPAT_F64;
    for (size_t i = 0; !s && i <= in->rows; i++)
        st->rp[i] = i64 ? ((int64_t *)rp)[i] : ((int32_t *)rp)[i];
    for (size_t k = 0; !s && k < in->nnz; k++) {
        st->ci[k] = i64 ? ((int64_t *)ci)[k] : ((int32_t *)ci)[k];
        st->v[k] = f64 ? ((double *)v)[k] : ((float *)v)[k];
    }
    for (size_t j = 0; !s && j < in->cols; j++) {
        float f = bench_rand_f32(91, j, -1.0f, 2.0f);
        st->hx[j] = f;
        if (f64) ((double *)hx)[j] = f;
        else ((float *)hx)[j] = f;
    }
    if (!s) s = cupat_malloc(ctx, &st->x, in->cols * st->vs);
    if (!s) s = cupat_malloc(ctx, &st->y, in->rows * st->vs);
    if (!s) s = cupat_memcpy(ctx, st->x, hx, in->cols * st->vs);
    if (!s && run->backend == CUPAT_BACKEND_CUDA) {
        s = cupat_malloc(ctx, &st->dr, (in->rows + 1) * is);
        if (!s) s = cupat_malloc(ctx, &st->dc, n * is);
        if (!s) s = cupat_malloc(ctx, &st->dv, n * st->vs);
        if (!s) s = cupat_memcpy(ctx, st->dr, rp, (in->rows + 1) * is);
        if (!s) s = cupat_memcpy(ctx, st->dc, ci, in->nnz * is);
        if (!s) s = cupat_memcpy(ctx, st->dv, v, in->nnz * st->vs);
        if (!s) s = cupat_sync(ctx);
        char err[160];
        if (!s && bench_cusparse_create(&st->vendor, cupat_get_stream(ctx), in->rows, in->cols, in->nnz, i64,
                                        f64, st->dr, st->dc, st->dv, st->x, st->y, err, sizeof err))
            bench_progress(run, "bench spmv: no vendor row: %s", err);
    }
    if (!s) s = cupat_sync(ctx);
    free(rp);
    free(ci);
    free(v);
    free(hx);
    return s;
}

typedef struct sp_kind {
    const char *title;
    cupat_sparse_family fam;
    size_t n, k;     /* GPU default */
    size_t cpu_n;    /* CPU default */
    cupat_type vt;
} sp_kind;

static const sp_kind sp_kinds[] = {
    /* the bar cases: 5-point Poisson on 4096^2 (16.8M rows) in f32
     * and f64, random 16 a row, R-MAT */
    {"2D Poisson f32", CUPAT_GEN_POISSON2D, 4096, 0, 256, CUPAT_F32},
    {"2D Poisson f64", CUPAT_GEN_POISSON2D, 4096, 0, 256, CUPAT_F64},
    {"3D Poisson f32", CUPAT_GEN_POISSON3D, 128, 0, 40, CUPAT_F32},
    {"banded k=8 f32", CUPAT_GEN_BANDED, (size_t)1 << 22, 8, (size_t)1 << 16, CUPAT_F32},
    {"random k=16 f32", CUPAT_GEN_RANDOM, (size_t)1 << 22, 16, (size_t)1 << 14, CUPAT_F32},
    {"random k=32 f32", CUPAT_GEN_RANDOM, (size_t)1 << 21, 32, (size_t)1 << 14, CUPAT_F32},
    {"R-MAT k=16 f32", CUPAT_GEN_RMAT, (size_t)1 << 22, 16, (size_t)1 << 16, CUPAT_F32},
};

/* The family's n for about `rows` rows (--n). */
static size_t n_for_rows(cupat_sparse_family f, size_t rows)
{
    if (f == CUPAT_GEN_POISSON2D) return (size_t)ceil(sqrt((double)rows));
    if (f == CUPAT_GEN_POISSON3D) return (size_t)ceil(cbrt((double)rows));
    return rows;
}

/* SELL refused (its padded slots past the index type): its rung is left
 * out with a note (built here, untimed, as the first call would). */
static int sell_refused(cupat_ctx *ctx, bench_table *t, cupat_sparse *A, int no_ell)
{
    if (cupat_sparse_convert(ctx, A, CUPAT_SPARSE_SELL) != CUPAT_ERROR_SIZE) return 0;
    t->note = no_ell ? "ell, ell_vec16 and sell left out: ELL refuses this matrix (padding), SELL "
                       "its slots (past the index type)"
                     : "sell left out: SELL's padded slots pass the index type";
    return 1;
}

static cupat_status sp_table(bench_run *run, const sp_kind *kd, size_t n)
{
    cupat_ctx *ctx = run->ctx;
    sp_state st;
    memset(&st, 0, sizeof st);
    bench_progress(run, "bench spmv: generating %s, n = %zu", kd->title, n);
    cupat_status s = cupat_sparse_generate(ctx, &st.A, kd->fam, n, kd->k, 5, CUPAT_I32, kd->vt);
    if (!s) s = sp_setup(run, &st);
    if (s) {
        sp_free(run, &st);
        return s;
    }
    cupat_sparse_info *in = &st.in;
    double is = 4, bytes = (double)(in->rows + 1) * is + (double)in->nnz * (is + (double)st.vs) +
                           (double)(in->rows + in->cols) * (double)st.vs;
    char title[64], label[128];
    snprintf(title, sizeof title, "spmv %s", kd->title);
    snprintf(label, sizeof label, "%zu rows, %zu nonzeros, row lengths %zu..%zu (mean %.1f, std %.1f)",
             in->rows, in->nnz, in->row_min, in->row_max, in->row_mean, in->row_std);
    bench_table *t = bench_table_begin(run, "spmv", title, label, bytes, 2.0 * (double)in->nnz,
                                       BENCH_BOUND_READ);
    if (!t) {
        sp_free(run, &st);
        return CUPAT_ERROR_OUT_OF_MEMORY;
    }
    /* ELL refused (padding beyond its limit): leave its rungs out */
    int no_ell = cupat_sparse_convert(ctx, st.A, CUPAT_SPARSE_ELL) == CUPAT_ERROR_SIZE;
    if (no_ell) t->note = "ell and ell_vec16 left out: ELL refuses this matrix (padding)";
    const cupat_variant_info *list;
    size_t nv = 0;
    cupat_variants("spmv", &list, &nv);
    for (size_t r = 0; r < nv; r++) {
        const cupat_variant_info *v = &list[r];
        if (v->backend != run->backend) continue;
        if (run->opt.variant && strcmp(run->opt.variant, "all") != 0 &&
            strcmp(run->opt.variant, v->name) != 0)
            continue;
        if (no_ell && (strcmp(v->name, "ell") == 0 || strcmp(v->name, "ell_vec16") == 0)) continue;
        if (strcmp(v->name, "sell") == 0 && sell_refused(ctx, t, st.A, no_ell)) continue;
        bench_row *row = bench_table_add(run, t, v->name, BENCH_ROW_RUNG);
        if (!row) break;
        row->technique = v->technique;
        row->source = v->source;
        row->is_default = v->is_default;
        cupat_set_variant(ctx, "spmv", v->name);
        bench_measure(run, t, row, sp_run, sp_prepare, sp_check, 1, &st);
    }
    cupat_set_variant(ctx, "spmv", NULL);
    if (st.vendor) {
        char name[64];
        snprintf(name, sizeof name, "cusparseSpMV %s", bench_cusparse_alg(st.vendor));
        bench_row *row = bench_table_add(run, t, name, BENCH_ROW_VENDOR);
        if (row) bench_measure(run, t, row, sp_vendor, sp_prepare, sp_check, 0, &st);
    }
    bench_table_end(run, t);
    sp_free(run, &st);
    return CUPAT_SUCCESS;
}

/* ------------------------------------------------------------------ CG -- */
/* cupat_cg against the same algorithm on cuSPARSE + cuBLAS, both from x = 0
 * to ||r|| <= rtol ||b|| (b = 1; rtol 2e-3 in f32, 1e-8 in f64: f32's
 * rounding floor on 128^3 is near 4e-4, where cupat_cg stops as not
 * converged and the vendor's recurrence goes on) on the recurrence residual
 * for the vendor, the true one for cupat: the iteration counts go in the
 * note, the ratio of whole solves is the ratio per iteration when they
 * agree. cupat's solve passes when the true residual meets rtol (what
 * its converged means); the vendor's when it is within 10 rtol, or within
 * 10 times the floor that x's own rounding sets (cg_check). */
#define CG_MAX 20000

typedef struct cg_state {
    sp_state *sp; /* the matrix, host CSR, and the vendor handle */
    void *b;      /* = sp->x filled with ones */
    size_t iters[2];
    double res[2];
    int which; /* 0 cupat, 1 vendor */
    double rtol;
} cg_state;

static cupat_status cg_prepare(bench_run *run, void *p)
{
    cg_state *c = p; /* x = 0 */
    return cupat_memset(run->ctx, c->sp->y, 0, c->sp->in.rows * c->sp->vs);
}

static cupat_status cg_cupat(bench_run *run, void *p)
{
    cg_state *c = p;
    cupat_cg_result r;
    /* x = 0 inside the timed call too: every solve is the same */
    cupat_status s = cupat_memset(run->ctx, c->sp->y, 0, c->sp->in.rows * c->sp->vs);
    if (!s) s = cupat_cg(run->ctx, c->sp->A, c->b, c->sp->y, c->rtol, CG_MAX, CUPAT_CG_JACOBI, NULL, 0, &r);
    c->iters[0] = r.iterations;
    c->res[0] = r.residual;
    c->which = 0;
    return s;
}

static cupat_status cg_vendor(bench_run *run, void *p)
{
    cg_state *c = p;
    char err[160];
    cupat_status s = cupat_memset(run->ctx, c->sp->y, 0, c->sp->in.rows * c->sp->vs);
    if (!s && bench_cusparse_cg(c->sp->vendor, c->b, c->sp->y, c->rtol, CG_MAX, &c->iters[1], &c->res[1], err,
                                sizeof err))
        s = bench_fail(run, CUPAT_ERROR_CUDA, "bench cg: %s", err);
    c->which = 1;
    return s;
}

/* ||1 - A x|| / ||1|| on the host: converged to 10 rtol, or to 10 times the
 * residual that rounding x to its type leaves */
static cupat_status cg_check(bench_run *run, void *p, int strict, bench_check *out)
{
    cg_state *c = p;
    sp_state *st = c->sp;
    size_t n = st->in.rows;
    void *h = malloc((n ? n : 1) * st->vs);
    if (!h) return bench_fail(run, CUPAT_ERROR_OUT_OF_MEMORY, "bench cg: no host memory");
    cupat_status s = cupat_memcpy(run->ctx, h, st->y, n * st->vs);
    if (!s) s = cupat_sync(run->ctx);
    double rr = 0, ff = 0;
    for (size_t i = 0; !s && i < n; i++) {
        double ax = 0, aabs = 0;
        for (int64_t k = st->rp[i]; k < st->rp[i + 1]; k++) {
            double xk = st->vt == CUPAT_F32 ? (double)((float *)h)[st->ci[k]] : ((double *)h)[st->ci[k]];
            ax += st->v[k] * xk;
            aabs += fabs(st->v[k] * xk);
        }
        rr += (1 - ax) * (1 - ax);
        ff += aabs * aabs;
    }
    free(h);
    /* The floor: x itself is stored in the value type, so even the exact
     * solution rounded to it leaves ||b - Ax|| up to about eps || |A| |x| ||
     * (3D Poisson 128^3 in f32: x near 900, that floor near 4e-4 ||b||, above
     * the 1e-5 target). A solve passes within 10 rtol or 10 times the floor. */
    double eps = st->vt == CUPAT_F32 ? 0x1p-24 : 0x1p-53, bn = sqrt((double)(n ? n : 1));
    double rel = sqrt(rr) / bn, floor_rel = eps * sqrt(ff) / bn;
    double tol = 10 * c->rtol > 10 * floor_rel ? 10 * c->rtol : 10 * floor_rel;
    /* cupat_cg's converged is a claim about this residual (rows summed in
     * f64 there too): it must hold, not within 10x */
    if (c->which == 0) tol = 1.001 * c->rtol;
    out->checked = 1;
    if (!(rel <= tol)) {
        out->wrong = 1;
        snprintf(out->msg, sizeof out->msg,
                 "||b - Ax|| / ||b|| = %.3g after %zu iterations (want <= %.3g: 10 x max(rtol, rounding floor %.3g))",
                 rel, c->iters[c->which], tol, floor_rel);
    }
    return s;
}

static cupat_status cg_table(bench_run *run, const char *title, size_t n3, cupat_type vt)
{
    cupat_ctx *ctx = run->ctx;
    sp_state st;
    memset(&st, 0, sizeof st);
    bench_progress(run, "bench spmv: CG on %s", title);
    cupat_status s = cupat_sparse_generate(ctx, &st.A, CUPAT_GEN_POISSON3D, n3, 0, 5, CUPAT_I32, vt);
    if (!s) s = sp_setup(run, &st);
    cg_state c = {&st, st.x, {0, 0}, {0, 0}, 0, vt == CUPAT_F64 ? 1e-8 : 2e-3};
    void *ones = s ? NULL : malloc(st.in.rows * st.vs);
    if (!s && !ones) s = bench_fail(run, CUPAT_ERROR_OUT_OF_MEMORY, "bench cg: no host memory");
    for (size_t i = 0; !s && i < st.in.rows; i++)
        if (vt == CUPAT_F64) ((double *)ones)[i] = 1.0;
        else ((float *)ones)[i] = 1.0f;
    if (!s) s = cupat_memcpy(ctx, c.b, ones, st.in.rows * st.vs);
    free(ones);
    if (s) {
        sp_free(run, &st);
        return s;
    }
    char label[128];
    snprintf(label, sizeof label, "%s: %zu rows, %zu nonzeros, b = 1, x0 = 0, to ||r|| <= %g ||b||", title,
             st.in.rows, st.in.nnz, c.rtol);
    /* bytes of one iteration's minimum traffic times nothing: the table is in ms */
    bench_table *t = bench_table_begin(run, "spmv", "cg (Jacobi PCG)", label, 0, 0, BENCH_BOUND_READ);
    if (!t) {
        sp_free(run, &st);
        return CUPAT_ERROR_OUT_OF_MEMORY;
    }
    bench_row *row = bench_table_add(run, t, "cupat_cg", BENCH_ROW_RUNG);
    if (row) {
        row->technique = "SpMV (auto rung) + one fused update kernel, device scalars, one wait an iteration";
        row->is_default = 1;
        bench_measure(run, t, row, cg_cupat, cg_prepare, cg_check, 1, &c);
    }
    if (st.vendor && (row = bench_table_add(run, t, "cusparseSpMV + cublas CG", BENCH_ROW_VENDOR)))
        bench_measure(run, t, row, cg_vendor, cg_prepare, cg_check, 0, &c);
    static char note[2][160];
    char *nb = note[vt == CUPAT_F64];
    snprintf(nb, sizeof note[0], "iterations: cupat %zu (residual %.3g), cuSPARSE + cuBLAS %zu (%.3g)",
             c.iters[0], c.res[0], c.iters[1], c.res[1]);
    t->note = nb;
    bench_table_end(run, t);
    sp_free(run, &st);
    return CUPAT_SUCCESS;
}

cupat_status bench_spmv_cases(bench_run *run, const bench_size *size)
{
    cupat_status s = CUPAT_SUCCESS;
    int cpu = run->backend == CUPAT_BACKEND_CPU;
    for (size_t k = 0; !s && k < sizeof sp_kinds / sizeof sp_kinds[0]; k++) {
        const sp_kind *kd = &sp_kinds[k];
        size_t n = size && size->n ? n_for_rows(kd->fam, size->n) : cpu ? kd->cpu_n : kd->n;
        s = sp_table(run, kd, n);
    }
    /* CG on 3D Poisson (f32 and f64) */
    size_t n3 = size && size->n ? n_for_rows(CUPAT_GEN_POISSON3D, size->n) : cpu ? 24 : 128;
    if (!s) s = cg_table(run, "3D Poisson f32", n3, CUPAT_F32);
    if (!s) s = cg_table(run, "3D Poisson f64", n3, CUPAT_F64);
    return s;
}
