/* SPDX-License-Identifier: Apache-2.0 */
/* sparse_cpu.c — the CPU backend of the sparse steps (sparse_internal.h) and
 * the CPU SpMV rungs: "serial" (the reference: one loop over the CSR rows,
 * f64 accumulation) and "openmp" (the same over static chunks of rows). The
 * sums of the CG steps are taken over fixed chunks in a fixed order, so a
 * run gives the same bits at any thread count. */
#include "internal.h"
#include "sparse/sparse_internal.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#define GI(p, i) sp_geti((p), (i), A->itype)
#define GV(p, i) sp_getv((p), (i), A->vtype)

cupat_status cupat__sp_stats_cpu(cupat_ctx *ctx, const cupat_sparse *A, sp_stats *st)
{
    memset(st, 0, sizeof *st);
    st->min = UINT64_MAX;
    if (GI(A->row_ptr, 0) != 0) {
        st->bad_kind = 1;
        return CUPAT_SUCCESS;
    }
    for (size_t r = 0; r < A->rows; r++) {
        int64_t a = GI(A->row_ptr, r), b = GI(A->row_ptr, r + 1);
        if (b < a || (uint64_t)b > A->nnz) {
            st->bad_kind = 1;
            st->bad_pos = r + 1;
            return CUPAT_SUCCESS;
        }
        uint64_t len = (uint64_t)(b - a);
        if (len < st->min) st->min = len;
        if (len > st->max) st->max = len;
        st->empty += len == 0;
        st->sumsq += len * len;
    }
    if ((uint64_t)GI(A->row_ptr, A->rows) != A->nnz) {
        st->bad_kind = 1;
        st->bad_pos = A->rows;
        return CUPAT_SUCCESS;
    }
    for (size_t k = 0; k < A->nnz; k++) {
        int64_t c = GI(A->col, k);
        if (c < 0 || (uint64_t)c >= A->cols) {
            st->bad_kind = 2;
            st->bad_pos = k;
            return CUPAT_SUCCESS;
        }
    }
    return CUPAT_SUCCESS;
}

cupat_status cupat__sp_coo_keys_cpu(cupat_ctx *ctx, size_t nnz, cupat_type itype, size_t rows,
                                    size_t cols, const void *r, const void *c, uint64_t *keys,
                                    uint64_t *perm, uint64_t *bad)
{
    *bad = 0;
    for (size_t k = 0; k < nnz; k++) {
        int64_t i = sp_geti(r, k, itype), j = sp_geti(c, k, itype);
        if (i < 0 || j < 0 || (uint64_t)i >= rows || (uint64_t)j >= cols) {
            *bad = k + 1;
            return CUPAT_SUCCESS;
        }
        keys[k] = (uint64_t)i * cols + (uint64_t)j;
        perm[k] = k;
    }
    return CUPAT_SUCCESS;
}

cupat_status cupat__sp_heads_cpu(cupat_ctx *ctx, size_t n, const uint64_t *keys,
                                 uint64_t *heads)
{
    for (size_t i = 0; i < n; i++) heads[i] = i == 0 || keys[i] != keys[i - 1];
    heads[n] = 0;
    return CUPAT_SUCCESS;
}

cupat_status cupat__sp_coo_gather_cpu(cupat_ctx *ctx, size_t n, size_t cols, cupat_type itype,
                                      cupat_type vtype, const uint64_t *keys,
                                      const uint64_t *perm, const uint64_t *heads,
                                      const uint64_t *pos, const void *vals, void *orow,
                                      void *ocol, void *oval)
{
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) {
        if (!heads[i]) continue;
        /* the run's sum in input order: the stable sort kept it */
        double s = sp_getv(vals, perm[i], vtype);
        if (vtype == CUPAT_F32) {
            float f = (float)s;
            for (size_t j = i + 1; j < n && !heads[j]; j++)
                f += ((const float *)vals)[perm[j]];
            s = f;
        } else {
            for (size_t j = i + 1; j < n && !heads[j]; j++) s += ((const double *)vals)[perm[j]];
        }
        sp_seti(orow, pos[i], itype, (int64_t)(keys[i] / cols));
        sp_seti(ocol, pos[i], itype, (int64_t)(keys[i] % cols));
        sp_setv(oval, pos[i], vtype, s);
    }
    return CUPAT_SUCCESS;
}

cupat_status cupat__sp_row_ptr_cpu(cupat_ctx *ctx, size_t rows, size_t nnz, cupat_type itype,
                                   const void *orow, void *row_ptr)
{
    size_t k = 0;
    for (size_t r = 0; r <= rows; r++) {
        while (k < nnz && (uint64_t)sp_geti(orow, k, itype) < r) k++;
        sp_seti(row_ptr, r, itype, (int64_t)k);
    }
    return CUPAT_SUCCESS;
}

cupat_status cupat__sp_expand_rows_cpu(cupat_ctx *ctx, const cupat_sparse *A, void *coo_row)
{
#pragma omp parallel for schedule(static)
    for (size_t r = 0; r < A->rows; r++)
        for (int64_t k = GI(A->row_ptr, r); k < GI(A->row_ptr, r + 1); k++)
            sp_seti(coo_row, (size_t)k, A->itype, (int64_t)r);
    return CUPAT_SUCCESS;
}

cupat_status cupat__sp_ell_fill_cpu(cupat_ctx *ctx, const cupat_sparse *A, size_t w, size_t ld,
                                    void *ecol, void *eval, uint64_t *counts)
{
#pragma omp parallel for schedule(static)
    for (size_t r = 0; r < ld; r++) {
        int64_t a = r < A->rows ? GI(A->row_ptr, r) : 0;
        size_t len = r < A->rows ? (size_t)(GI(A->row_ptr, r + 1) - a) : 0;
        for (size_t s = 0; s < w; s++) {
            int in = s < len;
            sp_seti(ecol, s * ld + r, A->itype, in ? GI(A->col, (size_t)a + s) : -1);
            sp_setv(eval, s * ld + r, A->vtype, in ? GV(A->val, (size_t)a + s) : 0.0);
        }
        if (counts && r < A->rows) counts[r] = len > w ? len - w : 0;
    }
    if (counts) counts[A->rows] = 0;
    return CUPAT_SUCCESS;
}

cupat_status cupat__sp_hyb_coo_fill_cpu(cupat_ctx *ctx, const cupat_sparse *A, size_t w,
                                        const uint64_t *offs, void *crow, void *ccol,
                                        void *cval)
{
#pragma omp parallel for schedule(static)
    for (size_t r = 0; r < A->rows; r++) {
        size_t o = offs[r];
        for (int64_t k = GI(A->row_ptr, r) + (int64_t)w; k < GI(A->row_ptr, r + 1); k++, o++) {
            sp_seti(crow, o, A->itype, (int64_t)r);
            sp_seti(ccol, o, A->itype, GI(A->col, (size_t)k));
            sp_setv(cval, o, A->vtype, GV(A->val, (size_t)k));
        }
    }
    return CUPAT_SUCCESS;
}

cupat_status cupat__sp_row_lengths_cpu(cupat_ctx *ctx, const cupat_sparse *A, uint64_t *keys,
                                       uint64_t *perm)
{
    for (size_t r = 0; r < A->rows; r++) {
        keys[r] = (uint64_t)(GI(A->row_ptr, r + 1) - GI(A->row_ptr, r));
        perm[r] = r;
    }
    return CUPAT_SUCCESS;
}

cupat_status cupat__sp_jds_counts_cpu(cupat_ctx *ctx, size_t rows, size_t nd,
                                      const uint64_t *len_sorted, uint64_t *dcount)
{
    /* rows longer than d: the first position whose length is <= d */
    size_t i = rows;
    for (size_t d = 0; d < nd; d++) {
        while (i > 0 && len_sorted[i - 1] <= d) i--;
        dcount[d] = i;
    }
    dcount[nd] = 0;
    return CUPAT_SUCCESS;
}

cupat_status cupat__sp_jds_fill_cpu(cupat_ctx *ctx, const cupat_sparse *A, size_t nd,
                                    const uint64_t *perm64, const uint64_t *len_sorted,
                                    const uint64_t *offs, void *perm, void *jptr, void *jcol,
                                    void *jval)
{
    for (size_t d = 0; d <= nd; d++) sp_seti(jptr, d, A->itype, (int64_t)offs[d]);
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < A->rows; i++) {
        size_t r = perm64[i];
        sp_seti(perm, i, A->itype, (int64_t)r);
        int64_t a = GI(A->row_ptr, r);
        for (size_t d = 0; d < len_sorted[i]; d++) {
            sp_seti(jcol, offs[d] + i, A->itype, GI(A->col, (size_t)a + d));
            sp_setv(jval, offs[d] + i, A->vtype, GV(A->val, (size_t)a + d));
        }
    }
    return CUPAT_SUCCESS;
}

cupat_status cupat__sp_sell_windows_cpu(cupat_ctx *ctx, size_t rows, size_t nwin,
                                        uint64_t *offs)
{
    for (size_t w = 0; w <= nwin; w++) {
        size_t o = w * SP_SELL_SIGMA; /* nwin sigma < rows + sigma: no wrap */
        offs[w] = o < rows ? o : rows;
    }
    return CUPAT_SUCCESS;
}

cupat_status cupat__sp_sell_slots_cpu(cupat_ctx *ctx, size_t rows, size_t ns,
                                      const uint64_t *len_sorted, uint64_t *slots)
{
#pragma omp parallel for schedule(static)
    for (size_t k = 0; k < ns; k++) slots[k] = SP_SELL_C * len_sorted[k * SP_SELL_C];
    slots[ns] = 0;
    return CUPAT_SUCCESS;
}

cupat_status cupat__sp_sell_fill_cpu(cupat_ctx *ctx, const cupat_sparse *A, size_t ns,
                                     size_t nslots, const uint64_t *perm64,
                                     const uint64_t *len_sorted, const uint64_t *offs, void *perm,
                                     void *sptr, void *scol, void *sval)
{
    const size_t C = SP_SELL_C;
    for (size_t k = 0; k <= ns; k++) sp_seti(sptr, k, A->itype, (int64_t)offs[k]);
    /* slice k: slot s of its row l at offs[k] + s C + l; rows past the
     * matrix's last (the last slice's tail) and entries past a row's end
     * are padding */
#pragma omp parallel for schedule(dynamic, 64)
    for (size_t k = 0; k < ns; k++) {
        size_t w = (size_t)((offs[k + 1] - offs[k]) / C);
        for (size_t l = 0; l < C; l++) {
            size_t i = k * C + l, len = 0;
            int64_t a = 0;
            if (i < A->rows) {
                size_t r = (size_t)perm64[i];
                sp_seti(perm, i, A->itype, (int64_t)r);
                a = GI(A->row_ptr, r);
                len = (size_t)len_sorted[i];
            }
            for (size_t s = 0; s < w; s++) {
                size_t e = (size_t)offs[k] + s * C + l;
                int in = s < len;
                sp_seti(scol, e, A->itype, in ? GI(A->col, (size_t)a + s) : -1);
                sp_setv(sval, e, A->vtype, in ? GV(A->val, (size_t)a + s) : 0.0);
            }
        }
    }
    return CUPAT_SUCCESS;
}

cupat_status cupat__sp_diag_inv_cpu(cupat_ctx *ctx, const cupat_sparse *A, int jacobi,
                                    void *dinv, uint64_t *bad_row)
{
    *bad_row = 0;
    for (size_t r = 0; r < A->rows; r++) {
        double d = 0.0;
        for (int64_t k = GI(A->row_ptr, r); k < GI(A->row_ptr, r + 1); k++)
            if ((size_t)GI(A->col, (size_t)k) == r) d += GV(A->val, (size_t)k);
        if (jacobi && !(d > 0.0 && isfinite(d)) && !*bad_row) *bad_row = r + 1;
        sp_setv(dinv, r, A->vtype, jacobi ? 1.0 / d : 1.0);
    }
    return CUPAT_SUCCESS;
}

/* Fixed chunks: the partial sums and their order do not depend on threads. */
#define CHUNK 4096

/* sum over fixed chunks of [0, n) of chunk(arg, lo, hi), in chunk order:
 * the same bits whatever the thread count */
static cupat_status chunk_sums(cupat_ctx *ctx, size_t n, double (*chunk)(const void *, size_t, size_t),
                               const void *arg, double *out)
{
    size_t nc = (n + CHUNK - 1) / CHUNK;
    double *part = malloc((nc ? nc : 1) * sizeof *part);
    if (!part)
        return cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY,
                           "cupat_cg: %zu bytes of host memory for partial sums",
                           (nc ? nc : 1) * sizeof *part);
#pragma omp parallel for schedule(static)
    for (size_t c = 0; c < nc; c++)
        part[c] = chunk(arg, c * CHUNK, (c + 1) * CHUNK < n ? (c + 1) * CHUNK : n);
    double acc = 0.0;
    for (size_t c = 0; c < nc; c++) acc += part[c];
    free(part);
    *out = acc;
    return CUPAT_SUCCESS;
}

typedef struct dot_args {
    cupat_type vt;
    const void *a, *b;
} dot_args;

static double dot_chunk(const void *arg, size_t lo, size_t hi)
{
    const dot_args *d = arg;
    double acc = 0.0;
    for (size_t i = lo; i < hi; i++) acc += sp_getv(d->a, i, d->vt) * sp_getv(d->b, i, d->vt);
    return acc;
}

cupat_status cupat__sp_dot_cpu(cupat_ctx *ctx, size_t n, cupat_type vt, const void *a,
                               const void *b, double *s, int slot)
{
    dot_args d = {vt, a, b};
    return chunk_sums(ctx, n, dot_chunk, &d, &s[slot]);
}

typedef struct residual_args {
    const cupat_sparse *A;
    const void *b, *x;
    void *r;
} residual_args;

/* r = b - A x on rows [lo, hi), each summed in f64; returns their squares' sum */
static double residual_chunk(const void *arg, size_t lo, size_t hi)
{
    const residual_args *q = arg;
    const cupat_sparse *A = q->A;
    double rr = 0.0;
    for (size_t i = lo; i < hi; i++) {
        double acc = sp_getv(q->b, i, A->vtype);
        for (int64_t k = GI(A->row_ptr, i); k < GI(A->row_ptr, i + 1); k++)
            acc -= GV(A->val, (size_t)k) * sp_getv(q->x, (size_t)GI(A->col, (size_t)k), A->vtype);
        sp_setv(q->r, i, A->vtype, acc);
        rr += acc * acc;
    }
    return rr;
}

cupat_status cupat__sp_residual_cpu(cupat_ctx *ctx, const cupat_sparse *A, const void *b,
                                    const void *x, void *r, double *s, int slot)
{
    residual_args q = {A, b, x, r};
    return chunk_sums(ctx, A->rows, residual_chunk, &q, &s[slot]);
}

cupat_status cupat__sp_scale_cpu(cupat_ctx *ctx, size_t n, cupat_type vt, const void *dinv,
                                 const void *r, void *z)
{
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) sp_setv(z, i, vt, sp_getv(dinv, i, vt) * sp_getv(r, i, vt));
    return CUPAT_SUCCESS;
}

cupat_status cupat__sp_cg_update_cpu(cupat_ctx *ctx, size_t n, cupat_type vt, void *x, void *r,
                                     const void *p, const void *q, const void *dinv, void *z,
                                     double *s)
{
    double alpha = s[CG_RZ] / s[CG_PQ];
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) {
        double xi = sp_getv(x, i, vt) + alpha * sp_getv(p, i, vt);
        double ri = sp_getv(r, i, vt) - alpha * sp_getv(q, i, vt);
        sp_setv(x, i, vt, xi);
        sp_setv(r, i, vt, ri);
        sp_setv(z, i, vt, sp_getv(dinv, i, vt) * sp_getv(r, i, vt));
    }
    s[CG_RZ_OLD] = s[CG_RZ];
    CUPAT_TRY(cupat__sp_dot_cpu(ctx, n, vt, r, z, s, CG_RZ));
    return cupat__sp_dot_cpu(ctx, n, vt, r, r, s, CG_RR);
}

cupat_status cupat__sp_cg_dir_cpu(cupat_ctx *ctx, size_t n, cupat_type vt, const void *z,
                                  void *p, const double *s, int first)
{
    double beta = first ? 0.0 : s[CG_RZ] / s[CG_RZ_OLD];
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++)
        sp_setv(p, i, vt, first ? sp_getv(z, i, vt) : sp_getv(z, i, vt) + beta * sp_getv(p, i, vt));
    return CUPAT_SUCCESS;
}

/* y = alpha A x + beta y over CSR with f64 sums (beta == 0 never reads y). */
cupat_status cupat__sp_spmv_cpu(cupat_ctx *ctx, const spmv_req *q)
{
    const cupat_sparse *A = q->A;
    long long rows = (long long)A->rows;
    int serial = q->rung == SP_CPU_SERIAL;
#pragma omp parallel for schedule(static) if (!serial)
    for (long long r = 0; r < rows; r++) {
        double acc = 0.0;
        for (int64_t k = GI(A->row_ptr, (size_t)r); k < GI(A->row_ptr, (size_t)r + 1); k++)
            acc += GV(A->val, (size_t)k) * sp_getv(q->x, (size_t)GI(A->col, (size_t)k), A->vtype);
        double y = q->alpha * acc;
        if (q->beta != 0.0) y += q->beta * sp_getv(q->y, (size_t)r, A->vtype);
        sp_setv(q->y, (size_t)r, A->vtype, y);
    }
    return CUPAT_SUCCESS;
}
