/* SPDX-License-Identifier: Apache-2.0 */
/* sparse_internal.h — what the sparse files share.
 *   sparse.c          public entry points: argument checks, the handle, the
 *                     "spmv" ladder, conversions written once over backend
 *                     steps (cupat_sort / cupat_scan + the steps below), CG
 *   sparse_cpu.c      the CPU steps and SpMV rungs (serial reference, OpenMP)
 *   sparse_gen.c      generators of the standard families
 *   sparse_steps.cu   the CUDA steps: checks and statistics, conversions, CG
 *   spmv_book.cu      PMPP ch. 14 rungs: coo_atomic, csr_scalar, ell, hyb, jds
 *   spmv_fast.cu      beyond the book: csr_vector, merge_path, ell_vec16, sell,
 *                     auto
 * C interface; the .cu files include it inside extern "C". */
#ifndef CUPAT_SPARSE_INTERNAL_H
#define CUPAT_SPARSE_INTERNAL_H

#include "cupat.h"
#include "core/matrix_market.h" /* the Matrix Market parser and writer */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The "spmv" ladder in registry order. */
typedef enum spmv_rung {
    /* PMPP ch. 14 */
    SP_COO_ATOMIC = 0, /* 14.2: a thread per entry, atomicAdd into y */
    SP_CSR_SCALAR,     /* 14.3: a thread per row */
    SP_ELL,            /* 14.4: padded, column-major: coalesced */
    SP_HYB,            /* 14.5: ELL of width K + COO of the overflow */
    SP_JDS,            /* 14.6: rows sorted by length, jagged diagonals */
    /* beyond the book */
    SP_CSR_VECTOR,     /* a group of lanes per row, sized from the mean length */
    SP_MERGE_PATH,     /* Merrill & Garland 2016: equal shares of rows + nonzeros */
    SP_ELL_VEC16,      /* ELL with 16-byte loads: 4 (f32) or 2 (f64) rows a thread */
    SP_SELL,           /* Kreutzer et al. 2014: SELL-C-sigma, a warp a slice */
    SP_AUTO,           /* the CUDA default: picks by the row-length statistics */
    SP_X_IN_L2,        /* auto's kernel with x in a persisting L2 access-policy window */
    /* CPU backend */
    SP_CPU_SERIAL,
    SP_CPU_OPENMP,     /* the CPU default */
    SP_COUNT
} spmv_rung;

/* The handle. Every index array has index type itype, values vtype; all of
 * it is backend memory of the context it was created on. */
struct cupat_sparse {
    cupat_backend backend;
    size_t rows, cols, nnz;
    cupat_type itype, vtype;
    size_t isz, vsz;
    size_t row_min, row_max, empty_rows;
    double row_mean, row_std;
    unsigned formats; /* 1u << cupat_sparse_format per format built */
    int borrowed;
    /* CSR: rows + 1, nnz, nnz */
    void *row_ptr, *col, *val;
    /* COO: row of each CSR entry (columns and values are CSR's) */
    void *coo_row;
    /* ELL: ell_w columns of ell_ld (rows rounded up to 4) entries each,
     * column-major; padding has column -1 and value 0 */
    size_t ell_w, ell_ld;
    void *ell_col, *ell_val;
    /* HYB: ELL part of width hyb_w (same layout), COO part of hyb_nnz */
    size_t hyb_w, hyb_nnz;
    void *hyb_col, *hyb_val, *hyb_crow, *hyb_ccol, *hyb_cval;
    /* JDS: jds_perm[i] = the row at sorted position i (longest first);
     * diagonal d holds entry d of every sorted row longer than d, at
     * jds_ptr[d] + i (jds_ptr: jds_nd + 1 entries) */
    size_t jds_nd;
    void *jds_perm, *jds_ptr, *jds_col, *jds_val;
    /* SELL-C-sigma (SP_SELL_C rows a slice, windows of SP_SELL_SIGMA rows):
     * sell_perm[i] = the row at sorted position i (rows sorted by length,
     * longest first, stable, within each window); slice k holds sorted rows
     * k C .. k C + C - 1 (the last slice's missing rows are padding), padded
     * to its longest row w_k and stored column-major from sell_ptr[k]: entry
     * s of the slice's row l at sell_ptr[k] + s C + l, padding column -1 and
     * value 0; sell_ptr (sell_ns + 1 entries) ends at sell_slots. */
    size_t sell_ns, sell_slots;
    void *sell_perm, *sell_ptr, *sell_col, *sell_val;
    /* merge_path's plan (CUDA): the merge path's row at the start of each of
     * its tiles (u64, tiles + 1 entries), searched on the first call and
     * kept, as cuSPARSE keeps its preprocessing; freed with the formats */
    void *mp_tile_row;
};

/* SELL-C-sigma's shape. C = 32: a slice is a warp's rows, so the warp's
 * loads of one slot are one contiguous 32-element run (ELL's coalescing)
 * and its lanes wait only for the slice's own longest row. sigma = 1024
 * rows a sorting window: sorting evens out the lengths inside each slice
 * (the padding falls as sigma grows), while a bounded window keeps every
 * row within 1024 positions of where it was, so y's scattered writes and
 * the x accesses of banded / locally structured matrices keep their
 * locality (sigma = rows would be JDS's global sort, which loses it);
 * Kreutzer et al. find the padding gain levels off at windows of a few
 * hundred to a few thousand rows. 1024 is a multiple of C (slices never
 * straddle two windows, so a slice's first row is its longest) and fits one
 * block of cupat_sort_segmented's shared-memory path (segments <= 4096). */
#define SP_SELL_C 32
#define SP_SELL_SIGMA 1024

/* Index and value access by runtime type (host code). */
static inline int64_t sp_geti(const void *p, size_t i, cupat_type t)
{
    return t == CUPAT_I32 ? (int64_t)((const int32_t *)p)[i] : ((const int64_t *)p)[i];
}
static inline void sp_seti(void *p, size_t i, cupat_type t, int64_t v)
{
    if (t == CUPAT_I32) ((int32_t *)p)[i] = (int32_t)v;
    else ((int64_t *)p)[i] = v;
}
static inline double sp_getv(const void *p, size_t i, cupat_type t)
{
    return t == CUPAT_F32 ? (double)((const float *)p)[i] : ((const double *)p)[i];
}
static inline void sp_setv(void *p, size_t i, cupat_type t, double v)
{
    if (t == CUPAT_F32) ((float *)p)[i] = (float)v;
    else ((double *)p)[i] = v;
}

/* A checked SpMV request. */
typedef struct spmv_req {
    const char *fn;
    int rung;     /* never SP_AUTO or SP_X_IN_L2 when it reaches a kernel */
    int x_in_l2;  /* hold x in a persisting L2 window for the call (CUDA) */
    const cupat_sparse *A;
    double alpha, beta;
    const void *x;
    void *y;
} spmv_req;

/* ---- backend steps: one CPU (_cpu) and one CUDA (_cuda) form each ---- */
/* Row-length statistics of A's CSR, and the check of its arrays: *bad is
 * set to 0 (fine), or 1 + the first bad position: kind 1 row_ptr (a
 * decrease, a bad start or end), kind 2 a column index. Waits. */
typedef struct sp_stats {
    uint64_t bad_kind, bad_pos;
    uint64_t min, max, empty, sumsq;
} sp_stats;
#define SP_STEP_DECL(name, ...)                                                          \
    cupat_status cupat__sp_##name##_cpu(cupat_ctx *ctx, __VA_ARGS__);                    \
    cupat_status cupat__sp_##name##_cuda(cupat_ctx *ctx, __VA_ARGS__);
SP_STEP_DECL(stats, const cupat_sparse *A, sp_stats *st)
/* COO -> CSR: keys[i] = row * cols + col, perm[i] = i (u64); *bad = 1 + the
 * first entry out of range (0: none). Waits. */
SP_STEP_DECL(coo_keys, size_t nnz, cupat_type itype, size_t rows, size_t cols,
             const void *r, const void *c, uint64_t *keys, uint64_t *perm, uint64_t *bad)
/* heads[i] = 1 where keys[i] starts a run of equal keys. */
SP_STEP_DECL(heads, size_t n, const uint64_t *keys, uint64_t *heads)
/* For each run head i: out position pos[i]; row/col from the key; value the
 * in-order sum of vals[perm[j]] over the run. */
SP_STEP_DECL(coo_gather, size_t n, size_t cols, cupat_type itype, cupat_type vtype,
             const uint64_t *keys, const uint64_t *perm, const uint64_t *heads,
             const uint64_t *pos, const void *vals, void *orow, void *ocol, void *oval)
/* row_ptr[r] = first position of a sorted row array >= r, r <= rows. */
SP_STEP_DECL(row_ptr, size_t rows, size_t nnz, cupat_type itype, const void *orow,
             void *row_ptr)
/* COO row indices from CSR. */
SP_STEP_DECL(expand_rows, const cupat_sparse *A, void *coo_row)
/* ELL of width w (entries k < w of each row), ld rows a column; with
 * counts non-NULL: counts[r] = entries of row r beyond w (u64). */
SP_STEP_DECL(ell_fill, const cupat_sparse *A, size_t w, size_t ld, void *ecol, void *eval,
             uint64_t *counts)
/* HYB overflow: the entries k >= w of row r go to offs[r] ... */
SP_STEP_DECL(hyb_coo_fill, const cupat_sparse *A, size_t w, const uint64_t *offs,
             void *crow, void *ccol, void *cval)
/* JDS: keys[r] = length of row r, perm[r] = r (u64). */
SP_STEP_DECL(row_lengths, const cupat_sparse *A, uint64_t *keys, uint64_t *perm)
/* JDS: dcount[d] = rows longer than d (lengths sorted descending), d < nd. */
SP_STEP_DECL(jds_counts, size_t rows, size_t nd, const uint64_t *len_sorted,
             uint64_t *dcount)
/* JDS: perm (itype) and jds_ptr (itype, from offs) and the diagonals. */
SP_STEP_DECL(jds_fill, const cupat_sparse *A, size_t nd, const uint64_t *perm64,
             const uint64_t *len_sorted, const uint64_t *offs, void *perm, void *jptr,
             void *jcol, void *jval)
/* SELL: offs[w] = min(w sigma, rows), w <= nwin (u64): the sorting windows
 * as cupat_sort_segmented's offsets. */
SP_STEP_DECL(sell_windows, size_t rows, size_t nwin, uint64_t *offs)
/* SELL: slots[k] = C * (the length of slice k's first sorted row: its
 * longest), k < ns; slots[ns] = 0 (u64), for the exclusive scan. */
SP_STEP_DECL(sell_slots, size_t rows, size_t ns, const uint64_t *len_sorted, uint64_t *slots)
/* SELL: perm (itype), sptr (itype, ns + 1, from offs) and the slices'
 * columns and values (nslots = offs[ns] slots, padding -1 / 0). */
SP_STEP_DECL(sell_fill, const cupat_sparse *A, size_t ns, size_t nslots,
             const uint64_t *perm64, const uint64_t *len_sorted, const uint64_t *offs,
             void *perm, void *sptr, void *scol, void *sval)
/* CG: dinv[i] = 1 / a_ii (sum of the diagonal entries of row i), or 1 when
 * !jacobi; *bad_row = 1 + the first row whose diagonal is <= 0 or not
 * finite (0: none; only checked with jacobi). Waits. */
SP_STEP_DECL(diag_inv, const cupat_sparse *A, int jacobi, void *dinv, uint64_t *bad_row)
/* s[slot] = sum a_i b_i in f64, in a fixed order. Stream-ordered (s is
 * backend memory). */
SP_STEP_DECL(dot, size_t n, cupat_type vt, const void *a, const void *b, double *s, int slot)
/* CG's true residual: r = b - A x from A's CSR, each row summed in f64 and
 * rounded once; s[slot] = ||b - A x||^2 of the unrounded rows, in f64. */
SP_STEP_DECL(residual, const cupat_sparse *A, const void *b, const void *x, void *r, double *s,
             int slot)
/* z = dinv * r */
SP_STEP_DECL(scale, size_t n, cupat_type vt, const void *dinv, const void *r, void *z)
/* alpha = s[RZ] / s[PQ]; x += alpha p; r -= alpha q; z = dinv r;
 * s[RZ_OLD] = s[RZ]; s[RZ] = r.z; s[RR] = r.r */
SP_STEP_DECL(cg_update, size_t n, cupat_type vt, void *x, void *r, const void *p,
             const void *q, const void *dinv, void *z, double *s)
/* p = z + (s[RZ] / s[RZ_OLD]) p, or p = z when first */
SP_STEP_DECL(cg_dir, size_t n, cupat_type vt, const void *z, void *p, const double *s,
             int first)
/* y = alpha A x + beta y by rung r->rung */
SP_STEP_DECL(spmv, const spmv_req *r)

enum { CG_RZ = 0, CG_RZ_OLD, CG_PQ, CG_RR, CG_BB, CG_NSCAL };

/* Dispatch a step to ctx's backend. */
#define SP_STEP(ctx, name, ...)                                                          \
    ((ctx)->backend == CUPAT_BACKEND_CPU ? cupat__sp_##name##_cpu((ctx), __VA_ARGS__)    \
                                         : cupat__sp_##name##_cuda((ctx), __VA_ARGS__))

/* The rung the CUDA default runs for A (SP_CSR_VECTOR, SP_MERGE_PATH or
 * SP_ELL_VEC16), and the lanes a row of csr_vector gets (2 .. 32). */
/* Skewed row lengths (max > 16 mean + 64 or std > mean): auto's test for
 * merge_path, and merge_path's for its L1-heavy configuration. */
int cupat__spmv_skewed(const cupat_sparse *A);
int cupat__spmv_auto_rung(const cupat_sparse *A);
int cupat__spmv_vector_lanes(const cupat_sparse *A);
/* The format rung r reads. */
cupat_sparse_format cupat__spmv_rung_format(int rung);
/* Build format f in A (sparse.c; spmv calls it for a pinned rung). */
cupat_status cupat__sparse_build(cupat_ctx *ctx, cupat_sparse *A, cupat_sparse_format f,
                                 const char *fn);

#ifdef __cplusplus
}
#endif
#endif
