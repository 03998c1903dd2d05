/* SPDX-License-Identifier: Apache-2.0 */
/* sparse.c — the sparse handle, format conversions, cupat_spmv, cupat_cg and
 * the Matrix Market entry points: argument checks, the "spmv" ladder, and the
 * algorithms written once over backend steps (sparse_internal.h): the CPU
 * steps are in sparse_cpu.c, the CUDA ones in sparse_steps.cu; the sorts and
 * prefix sums are cupat_sort and cupat_scan on the same context.
 * Rung -> file: coo_atomic .. jds: spmv_book.cu; csr_vector, merge_path,
 * ell_vec16, sell, auto: spmv_fast.cu; serial, openmp: sparse_cpu.c. */
#include "internal.h"
#include "sparse/sparse_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CUDA CUPAT_BACKEND_CUDA
#define CPU CUPAT_BACKEND_CPU

/* ------------------------------------------------------------- ladder -- */

static const cupat_variant_info spmv_rungs[SP_COUNT] = {
    [SP_COO_ATOMIC] = {"spmv", "coo_atomic",
                       "COO: a thread per nonzero, atomicAdd of a_ij x_j into y (scaled by "
                       "beta first); perfectly balanced, contended atomics",
                       "PMPP 14.2", CUDA, 0},
    [SP_CSR_SCALAR] = {"spmv", "csr_scalar",
                       "CSR: a thread per row walks its nonzeros; no atomics, but threads "
                       "of a warp read rows far apart (uncoalesced) and wait for the longest",
                       "PMPP 14.3", CUDA, 0},
    [SP_ELL] = {"spmv", "ell",
                "ELL: rows padded to the longest and stored column-major, so a warp's "
                "loads of one slot are contiguous (coalesced); padding costs bandwidth",
                "PMPP 14.4", CUDA, 0},
    [SP_HYB] = {"spmv", "hyb",
                "hybrid: ELL of width ceil(mean + std) for the bulk, the longer rows' excess "
                "in COO with atomics (a second kernel)",
                "PMPP 14.5", CUDA, 0},
    [SP_JDS] = {"spmv", "jds",
                "JDS: rows sorted by length, stored by jagged diagonals: coalesced without "
                "padding, neighbouring threads have similar work",
                "PMPP 14.6", CUDA, 0},
    [SP_CSR_VECTOR] = {"spmv", "csr_vector",
                       "CSR with a group of 2..32 lanes per row (the power of two at or above "
                       "the mean length): coalesced row reads, shuffle reduction",
                       "beyond the book (Bell & Garland 2009; CUDA Guide: warp shuffles)", CUDA,
                       0},
    [SP_MERGE_PATH] = {"spmv", "merge_path",
                       "merge-based CSR: every thread takes an equal share of row ends + "
                       "nonzeros found by a binary search of the merge path; rows split over "
                       "threads are fixed up in order (deterministic)",
                       "beyond the book (Merrill & Garland 2016)", CUDA, 0},
    [SP_ELL_VEC16] = {"spmv", "ell_vec16",
                      "ELL with 16-byte loads: a thread owns 4 (f32/i32) or 2 (f64/i64) "
                      "adjacent rows and reads their slot as one vector",
                      "beyond the book (CUDA Guide: vectorized accesses)", CUDA, 0},
    [SP_SELL] = {"spmv", "sell",
                 "SELL-C-σ: rows sorted by length within windows of σ, slices of 32 rows "
                 "padded only to their own longest row, column-major: ELL's coalescing with a "
                 "fraction of its padding",
                 "beyond the book (Kreutzer et al. 2014)", CUDA, 0},
    [SP_AUTO] = {"spmv", "auto",
                 "picks by the row-length statistics: ell_vec16 when padding adds <= 25%, "
                 "merge_path when rows are skewed (max > 16 mean + 64 or std > mean), else "
                 "csr_vector",
                 "beyond the book", CUDA, 1},
    [SP_X_IN_L2] = {"spmv", "x_in_l2",
                    "auto's kernel with x held in the L2: a persisting access-policy window "
                    "over x for the call (the matrix streams past it), set and undone each call",
                    "beyond the book (CUDA Guide: L2 persistence, access policy window)", CUDA, 0},
    [SP_CPU_SERIAL] = {"spmv", "serial", "one loop over the CSR rows, f64 accumulation: the "
                       "reference", "PMPP 14.3", CPU, 0},
    [SP_CPU_OPENMP] = {"spmv", "openmp", "OpenMP over rows (static chunks), f64 accumulation",
                       "PMPP 14.3 on the host; OpenMP", CPU, 1},
};
_Static_assert(sizeof spmv_rungs / sizeof spmv_rungs[0] == SP_COUNT, "spmv ladder");
const cupat_pattern_desc cupat__pattern_spmv = {"spmv", spmv_rungs, SP_COUNT};

const char *cupat_sparse_format_name(cupat_sparse_format f)
{
    static const char *const names[CUPAT_SPARSE_FORMATS] = {"csr", "coo", "ell", "hyb", "jds",
                                                                 "sell"};
    return (unsigned)f < CUPAT_SPARSE_FORMATS ? names[f] : "unknown";
}

cupat_sparse_format cupat__spmv_rung_format(int rung)
{
    switch (rung) {
    case SP_COO_ATOMIC: return CUPAT_SPARSE_COO;
    case SP_ELL:
    case SP_ELL_VEC16: return CUPAT_SPARSE_ELL;
    case SP_HYB: return CUPAT_SPARSE_HYB;
    case SP_JDS: return CUPAT_SPARSE_JDS;
    case SP_SELL: return CUPAT_SPARSE_SELL;
    default: return CUPAT_SPARSE_CSR;
    }
}

/* ELL pads to the longest row: worth it when that adds at most 25%. */
static int ell_pays(const cupat_sparse *A)
{
    double padded = (double)A->row_max * (double)A->rows;
    return A->rows > 0 && padded <= 1.25 * (double)A->nnz + 64.0;
}

int cupat__spmv_skewed(const cupat_sparse *A)
{
    return (double)A->row_max > 16.0 * A->row_mean + 64.0 || A->row_std > A->row_mean;
}

int cupat__spmv_auto_rung(const cupat_sparse *A)
{
    if (ell_pays(A)) return SP_ELL_VEC16;
    return cupat__spmv_skewed(A) ? SP_MERGE_PATH : SP_CSR_VECTOR;
}

int cupat__spmv_vector_lanes(const cupat_sparse *A)
{
    int lanes = 2;
    while (lanes < 32 && (double)lanes < A->row_mean) lanes *= 2;
    return lanes;
}

/* ------------------------------------------------------------- checks -- */

static cupat_status check_types(cupat_ctx *ctx, const char *fn, cupat_type it, cupat_type vt)
{
    if (it != CUPAT_I32 && it != CUPAT_I64)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: index_type = %d: want CUPAT_I32 or CUPAT_I64", fn, (int)it);
    if (vt != CUPAT_F32 && vt != CUPAT_F64)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: value_type = %d: want CUPAT_F32 or CUPAT_F64", fn, (int)vt);
    return CUPAT_SUCCESS;
}

static cupat_status check_dims(cupat_ctx *ctx, const char *fn, cupat_type it, size_t rows,
                               size_t cols, size_t nnz)
{
    size_t lim = it == CUPAT_I32 ? (size_t)INT32_MAX : (size_t)INT64_MAX / 2;
    if (rows > lim || cols > lim || nnz > lim)
        return cupat__fail(ctx, CUPAT_ERROR_SIZE,
                           "%s: rows = %zu, cols = %zu, nnz = %zu: %s indices hold at most %zu",
                           fn, rows, cols, nnz, cupat_type_name(it), lim);
    return CUPAT_SUCCESS;
}

static cupat_status check_handle(cupat_ctx *ctx, const char *fn, const cupat_sparse *A)
{
    if (!A) return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "%s: A is NULL", fn);
    if (A->backend != ctx->backend)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: A was created on the %s backend, ctx is %s", fn,
                           cupat_backend_name(A->backend), cupat_backend_name(ctx->backend));
    return CUPAT_SUCCESS;
}

/* An array of n elements of es bytes, for reading: backend memory when
 * `backend` (BORROW, x, y, b), else host or backend (what cupat_memcpy takes). */
static cupat_status check_arr(cupat_ctx *ctx, const char *fn, const char *arg, const void *p,
                              size_t n, size_t es, int backend)
{
    size_t bytes;
    CUPAT_TRY(cupat__size_mul(ctx, fn, arg, n, es, 1, &bytes));
    if (backend) CUPAT_TRY(cupat__check_data(ctx, fn, arg, p, bytes));
    else if (bytes && !p)
        return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "%s: %s is NULL", fn, arg);
    else if (bytes && ctx->backend == CPU && cupat__pointer_kind(p) == CUPAT_MEMORY_DEVICE)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: %s = %p is device memory; the CPU backend needs host memory",
                           fn, arg, p);
    if (bytes && (uintptr_t)p % es)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: %s = %p is not aligned to its %zu-byte elements", fn, arg, p, es);
    return CUPAT_SUCCESS;
}

/* ------------------------------------------------------------ handle -- */

static cupat_status balloc(cupat_ctx *ctx, void **p, size_t n, size_t es)
{
    *p = NULL;
    size_t bytes;
    CUPAT_TRY(cupat__size_mul(ctx, "cupat_sparse", "allocation", n, es, 1, &bytes));
    return cupat_malloc(ctx, p, bytes);
}

/* Free without cupat_free's new-call start, which would clear the message
 * of a failure being cleaned up after (cupat__release: the block also leaves
 * the CPU backend's set of live blocks). */
static void bfree(cupat_ctx *ctx, void **p)
{
    cupat__release(ctx, *p);
    *p = NULL;
}

static void drop_formats(cupat_ctx *ctx, cupat_sparse *A)
{
    void **own[] = {&A->coo_row, &A->ell_col, &A->ell_val, &A->hyb_col, &A->hyb_val,
                    &A->hyb_crow, &A->hyb_ccol, &A->hyb_cval, &A->jds_perm, &A->jds_ptr,
                    &A->jds_col, &A->jds_val, &A->sell_perm, &A->sell_ptr,
                    &A->sell_col, &A->sell_val, &A->mp_tile_row};
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++) bfree(ctx, own[i]);
    if (!A->borrowed) {
        bfree(ctx, &A->row_ptr);
        bfree(ctx, &A->col);
        bfree(ctx, &A->val);
    }
}

cupat_status cupat_sparse_destroy(cupat_ctx *ctx, cupat_sparse *A)
{
    CUPAT_TRACE_CALL();
    CUPAT_TRY(cupat__begin(ctx, "cupat_sparse_destroy"));
    if (!A) return CUPAT_SUCCESS;
    CUPAT_TRY(check_handle(ctx, "cupat_sparse_destroy", A));
    drop_formats(ctx, A);
    free(A);
    return CUPAT_SUCCESS;
}

static cupat_sparse *new_handle(cupat_ctx *ctx, size_t rows, size_t cols, cupat_type it,
                                cupat_type vt)
{
    cupat_sparse *A = calloc(1, sizeof *A);
    if (!A) return NULL;
    A->backend = ctx->backend;
    A->rows = rows;
    A->cols = cols;
    A->itype = it;
    A->vtype = vt;
    A->isz = cupat_type_size(it);
    A->vsz = cupat_type_size(vt);
    return A;
}

/* Statistics and the check of the CSR arrays; names the first bad entry. */
static cupat_status take_stats(cupat_ctx *ctx, const char *fn, cupat_sparse *A)
{
    sp_stats st;
    memset(&st, 0, sizeof st);
    CUPAT_TRY(SP_STEP(ctx, stats, A, &st));
    if (st.bad_kind == 1)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: row_ptr[%llu] breaks the rule row_ptr[0] = 0 <= row_ptr[1] "
                           "<= ... <= row_ptr[rows] = nnz = %zu",
                           fn, (unsigned long long)st.bad_pos, A->nnz);
    if (st.bad_kind == 2)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: col_idx[%llu] is outside [0, cols = %zu)", fn,
                           (unsigned long long)st.bad_pos, A->cols);
    A->row_min = A->rows ? (size_t)st.min : 0;
    A->row_max = (size_t)st.max;
    A->empty_rows = (size_t)st.empty;
    if (A->rows) {
        double mean = (double)A->nnz / (double)A->rows;
        double var = (double)st.sumsq / (double)A->rows - mean * mean;
        A->row_mean = mean;
        A->row_std = var > 0 ? sqrt(var) : 0.0;
    }
    A->formats |= 1u << CUPAT_SPARSE_CSR;
    return CUPAT_SUCCESS;
}

static cupat_status copy_in(cupat_ctx *ctx, void **dst, const void *src, size_t n, size_t es)
{
    CUPAT_TRY(balloc(ctx, dst, n, es));
    if (n) CUPAT_TRY(cupat_memcpy(ctx, *dst, src, n * es));
    return CUPAT_SUCCESS;
}

/* The start both create calls share: ctx, A (set to NULL), the types, and
 * flags within `allowed` (`rule` says what they may be). */
static cupat_status create_begin(cupat_ctx *ctx, const char *fn, cupat_sparse **A,
                                 cupat_type it, cupat_type vt, unsigned flags, unsigned allowed,
                                 const char *rule)
{
    CUPAT_TRY(cupat__begin(ctx, fn));
    if (!A) return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "%s: A is NULL", fn);
    *A = NULL;
    CUPAT_TRY(check_types(ctx, fn, it, vt));
    if (flags & ~allowed)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "%s: flags = 0x%x: %s", fn, flags,
                           rule);
    return CUPAT_SUCCESS;
}

/* A new handle's storage is made; free it all and fail, or hand it out. */
static cupat_status create_end(cupat_ctx *ctx, cupat_sparse *h, cupat_status s,
                               cupat_sparse **A)
{
    if (s) {
        drop_formats(ctx, h);
        free(h);
        return s;
    }
    *A = h;
    return CUPAT_SUCCESS;
}

cupat_status cupat_sparse_create_csr(cupat_ctx *ctx, cupat_sparse **A, size_t rows,
                                     size_t cols, size_t nnz, cupat_type index_type,
                                     cupat_type value_type, const void *row_ptr,
                                     const void *col_idx, const void *values, unsigned flags)
{
    CUPAT_TRACE_CALL();
    const char *fn = "cupat_sparse_create_csr";
    CUPAT_TRY(create_begin(ctx, fn, A, index_type, value_type, flags, CUPAT_SPARSE_BORROW,
                           "want CUPAT_SPARSE_COPY or CUPAT_SPARSE_BORROW"));
    CUPAT_TRY(check_dims(ctx, fn, index_type, rows, cols, nnz));
    size_t is = cupat_type_size(index_type), vs = cupat_type_size(value_type);
    int borrow = (flags & CUPAT_SPARSE_BORROW) != 0;
    CUPAT_TRY(check_arr(ctx, fn, "row_ptr", row_ptr, rows + 1, is, borrow));
    CUPAT_TRY(check_arr(ctx, fn, "col_idx", col_idx, nnz, is, borrow));
    CUPAT_TRY(check_arr(ctx, fn, "values", values, nnz, vs, borrow));
    cupat_sparse *h = new_handle(ctx, rows, cols, index_type, value_type);
    if (!h) return cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY, "%s: no host memory", fn);
    h->nnz = nnz;
    cupat_status s = CUPAT_SUCCESS;
    if (borrow) {
        h->borrowed = 1;
        h->row_ptr = (void *)row_ptr;
        h->col = (void *)col_idx;
        h->val = (void *)values;
    } else {
        s = copy_in(ctx, &h->row_ptr, row_ptr, rows + 1, is);
        if (!s) s = copy_in(ctx, &h->col, col_idx, nnz, is);
        if (!s) s = copy_in(ctx, &h->val, values, nnz, vs);
    }
    if (!s) s = take_stats(ctx, fn, h);
    return create_end(ctx, h, s, A);
}

/* COO -> CSR: sort (row, col) keys with their positions, mark the runs of
 * equal keys, place the runs by an exclusive scan of the marks, sum each run
 * in input order (deterministic), row pointers by binary search. */
static cupat_status coo_to_csr(cupat_ctx *ctx, const char *fn, cupat_sparse *h,
                               size_t nnz, const void *r, const void *c, const void *v)
{
    void *keys = NULL, *perm = NULL, *heads = NULL, *pos = NULL, *orow = NULL;
    cupat_status s = CUPAT_SUCCESS;
    uint64_t bad = 0, tot[2] = {0, 0};
    s = balloc(ctx, &keys, nnz + 1, 8);
    if (!s) s = balloc(ctx, &perm, nnz + 1, 8);
    if (!s) s = balloc(ctx, &heads, nnz + 1, 8);
    if (!s) s = balloc(ctx, &pos, nnz + 1, 8);
    if (!s) s = SP_STEP(ctx, coo_keys, nnz, h->itype, h->rows, h->cols, r, c, keys, perm, &bad);
    if (!s && bad)
        s = cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                        "%s: entry %llu: its row_idx or col_idx is outside the %zu x %zu matrix",
                        fn, (unsigned long long)(bad - 1), h->rows, h->cols);
    if (!s) s = cupat_sort(ctx, CUPAT_U64, 8, CUPAT_SORT_ASCENDING, nnz, keys, keys, perm, perm);
    if (!s) s = SP_STEP(ctx, heads, nnz, keys, heads);
    if (!s)
        s = cupat_scan(ctx, CUPAT_U64, CUPAT_OP_SUM, CUPAT_SCAN_EXCLUSIVE, nnz + 1, heads, pos);
    if (!s) s = cupat_memcpy(ctx, tot, (uint64_t *)pos + nnz, 8);
    if (!s) s = cupat_sync(ctx);
    size_t n = (size_t)tot[0];
    h->nnz = n;
    if (!s) s = balloc(ctx, &h->col, n, h->isz);
    if (!s) s = balloc(ctx, &h->val, n, h->vsz);
    if (!s) s = balloc(ctx, &orow, n + 1, h->isz);
    if (!s)
        s = SP_STEP(ctx, coo_gather, nnz, h->cols, h->itype, h->vtype, keys, perm, heads, pos, v,
                    orow, h->col, h->val);
    if (!s) s = balloc(ctx, &h->row_ptr, h->rows + 1, h->isz);
    if (!s) s = SP_STEP(ctx, row_ptr, h->rows, n, h->itype, orow, h->row_ptr);
    /* the sorted rows are the COO format's row array: keep them */
    if (!s) {
        h->coo_row = orow;
        orow = NULL;
        h->formats |= 1u << CUPAT_SPARSE_COO;
    }
    bfree(ctx, &keys);
    bfree(ctx, &perm);
    bfree(ctx, &heads);
    bfree(ctx, &pos);
    bfree(ctx, &orow);
    return s;
}

cupat_status cupat_sparse_create_coo(cupat_ctx *ctx, cupat_sparse **A, size_t rows,
                                     size_t cols, size_t nnz, cupat_type index_type,
                                     cupat_type value_type, const void *row_idx,
                                     const void *col_idx, const void *values, unsigned flags)
{
    CUPAT_TRACE_CALL();
    const char *fn = "cupat_sparse_create_coo";
    CUPAT_TRY(create_begin(ctx, fn, A, index_type, value_type, flags, CUPAT_SPARSE_COPY,
                           "COO input is sorted and summed into storage the handle owns: "
                           "want CUPAT_SPARSE_COPY"));
    CUPAT_TRY(check_dims(ctx, fn, index_type, rows, cols, nnz));
    if (cols && rows > (UINT64_MAX - 1) / cols)
        return cupat__fail(ctx, CUPAT_ERROR_NOT_SUPPORTED,
                           "%s: rows x cols = %zu x %zu: (row, col) sort keys need rows x cols "
                           "< 2^64",
                           fn, rows, cols);
    size_t is = cupat_type_size(index_type), vs = cupat_type_size(value_type);
    CUPAT_TRY(check_arr(ctx, fn, "row_idx", row_idx, nnz, is, 0));
    CUPAT_TRY(check_arr(ctx, fn, "col_idx", col_idx, nnz, is, 0));
    CUPAT_TRY(check_arr(ctx, fn, "values", values, nnz, vs, 0));
    cupat_sparse *h = new_handle(ctx, rows, cols, index_type, value_type);
    if (!h) return cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY, "%s: no host memory", fn);
    /* the triples in backend memory (copies, so host input works too) */
    void *r = NULL, *c = NULL, *v = NULL;
    cupat_status s = copy_in(ctx, &r, row_idx, nnz, is);
    if (!s) s = copy_in(ctx, &c, col_idx, nnz, is);
    if (!s) s = copy_in(ctx, &v, values, nnz, vs);
    if (!s) s = coo_to_csr(ctx, fn, h, nnz, r, c, v);
    bfree(ctx, &r);
    bfree(ctx, &c);
    bfree(ctx, &v);
    if (!s) s = take_stats(ctx, fn, h);
    return create_end(ctx, h, s, A);
}

cupat_status cupat_sparse_get_info(cupat_ctx *ctx, const cupat_sparse *A,
                                   cupat_sparse_info *info)
{
    CUPAT_TRACE_CALL();
    const char *fn = "cupat_sparse_get_info";
    CUPAT_TRY(cupat__begin(ctx, fn));
    CUPAT_TRY(check_handle(ctx, fn, A));
    if (!info) return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "%s: info is NULL", fn);
    memset(info, 0, sizeof *info);
    info->rows = A->rows;
    info->cols = A->cols;
    info->nnz = A->nnz;
    info->index_type = A->itype;
    info->value_type = A->vtype;
    info->row_min = A->row_min;
    info->row_max = A->row_max;
    info->row_mean = A->row_mean;
    info->row_std = A->row_std;
    info->empty_rows = A->empty_rows;
    info->formats = A->formats;
    info->borrowed = A->borrowed;
    return CUPAT_SUCCESS;
}

cupat_status cupat_sparse_get_csr(cupat_ctx *ctx, const cupat_sparse *A, void *row_ptr,
                                  void *col_idx, void *values)
{
    CUPAT_TRACE_CALL();
    const char *fn = "cupat_sparse_get_csr";
    CUPAT_TRY(cupat__begin(ctx, fn));
    CUPAT_TRY(check_handle(ctx, fn, A));
    if (row_ptr) {
        CUPAT_TRY(check_arr(ctx, fn, "row_ptr", row_ptr, A->rows + 1, A->isz, 0));
        CUPAT_TRY(cupat_memcpy(ctx, row_ptr, A->row_ptr, (A->rows + 1) * A->isz));
    }
    if (col_idx && A->nnz) {
        CUPAT_TRY(check_arr(ctx, fn, "col_idx", col_idx, A->nnz, A->isz, 0));
        CUPAT_TRY(cupat_memcpy(ctx, col_idx, A->col, A->nnz * A->isz));
    }
    if (values && A->nnz) {
        CUPAT_TRY(check_arr(ctx, fn, "values", values, A->nnz, A->vsz, 0));
        CUPAT_TRY(cupat_memcpy(ctx, values, A->val, A->nnz * A->vsz));
    }
    return cupat_sync(ctx);
}

/* ---------------------------------------------------------- conversions -- */

/* ELL width w over ld rows: refused past 2^24 slots and 64 (nnz + rows). */
static cupat_status ell_size(cupat_ctx *ctx, const char *fn, const cupat_sparse *A, size_t w,
                             size_t *ld)
{
    *ld = (A->rows + 3) & ~(size_t)3;
    double slots = (double)w * (double)*ld;
    if (slots > (double)(1u << 24) && slots > 64.0 * ((double)A->nnz + (double)A->rows))
        return cupat__fail(ctx, CUPAT_ERROR_SIZE,
                           "%s: ELL of this matrix would pad %zu rows to %zu entries (%.0f "
                           "slots for %zu nonzeros): use CSR, HYB or JDS",
                           fn, A->rows, w, slots, A->nnz);
    return CUPAT_SUCCESS;
}

static cupat_status build_hyb(cupat_ctx *ctx, cupat_sparse *A, const char *fn)
{
    size_t w = (size_t)ceil(A->row_mean + A->row_std), ld;
    if (w > A->row_max) w = A->row_max;
    CUPAT_TRY(ell_size(ctx, fn, A, w, &ld));
    void *counts = NULL, *offs = NULL;
    uint64_t tot = 0;
    cupat_status s = balloc(ctx, &A->hyb_col, w * ld, A->isz);
    if (!s) s = balloc(ctx, &A->hyb_val, w * ld, A->vsz);
    if (!s) s = balloc(ctx, &counts, A->rows + 1, 8);
    if (!s) s = balloc(ctx, &offs, A->rows + 1, 8);
    if (!s) s = SP_STEP(ctx, ell_fill, A, w, ld, A->hyb_col, A->hyb_val, counts);
    if (!s)
        s = cupat_scan(ctx, CUPAT_U64, CUPAT_OP_SUM, CUPAT_SCAN_EXCLUSIVE, A->rows + 1, counts,
                       offs);
    if (!s) s = cupat_memcpy(ctx, &tot, (uint64_t *)offs + A->rows, 8);
    if (!s) s = cupat_sync(ctx);
    if (!s) {
        A->hyb_w = w;
        A->hyb_nnz = (size_t)tot;
        s = balloc(ctx, &A->hyb_crow, A->hyb_nnz, A->isz);
    }
    if (!s) s = balloc(ctx, &A->hyb_ccol, A->hyb_nnz, A->isz);
    if (!s) s = balloc(ctx, &A->hyb_cval, A->hyb_nnz, A->vsz);
    if (!s && A->hyb_nnz)
        s = SP_STEP(ctx, hyb_coo_fill, A, w, offs, A->hyb_crow, A->hyb_ccol, A->hyb_cval);
    bfree(ctx, &counts);
    bfree(ctx, &offs);
    return s;
}

static cupat_status build_jds(cupat_ctx *ctx, cupat_sparse *A)
{
    size_t nd = A->row_max;
    void *keys = NULL, *perm = NULL, *dcount = NULL, *offs = NULL;
    cupat_status s = balloc(ctx, &keys, A->rows + 1, 8);
    if (!s) s = balloc(ctx, &perm, A->rows + 1, 8);
    if (!s) s = balloc(ctx, &dcount, nd + 1, 8);
    if (!s) s = balloc(ctx, &offs, nd + 1, 8);
    if (!s) s = SP_STEP(ctx, row_lengths, A, keys, perm);
    /* stable: rows of equal length keep their order */
    if (!s)
        s = cupat_sort(ctx, CUPAT_U64, 8, CUPAT_SORT_DESCENDING, A->rows, keys, keys, perm, perm);
    if (!s) s = SP_STEP(ctx, jds_counts, A->rows, nd, keys, dcount);
    if (!s)
        s = cupat_scan(ctx, CUPAT_U64, CUPAT_OP_SUM, CUPAT_SCAN_EXCLUSIVE, nd + 1, dcount, offs);
    if (!s) s = balloc(ctx, &A->jds_perm, A->rows, A->isz);
    if (!s) s = balloc(ctx, &A->jds_ptr, nd + 1, A->isz);
    if (!s) s = balloc(ctx, &A->jds_col, A->nnz, A->isz);
    if (!s) s = balloc(ctx, &A->jds_val, A->nnz, A->vsz);
    if (!s)
        s = SP_STEP(ctx, jds_fill, A, nd, perm, keys, offs, A->jds_perm, A->jds_ptr, A->jds_col,
                    A->jds_val);
    if (!s) s = cupat_sync(ctx);
    if (!s) A->jds_nd = nd;
    bfree(ctx, &keys);
    bfree(ctx, &perm);
    bfree(ctx, &dcount);
    bfree(ctx, &offs);
    return s;
}

/* SELL-C-sigma: row lengths with their rows, sorted (stable, longest
 * first) inside each window of sigma rows by cupat_sort_segmented; slice k's
 * slot count is C times its first row's length (its longest: windows are
 * whole slices); an exclusive cupat_scan of those places the slices and
 * gives the total, the one number read back; then the fill. The padded
 * total is bounded by C nnz (a slice's width is at most its nonzeros), so
 * the u64 sums cannot wrap for any matrix that fits in memory. */
static cupat_status build_sell(cupat_ctx *ctx, cupat_sparse *A, const char *fn)
{
    const size_t C = SP_SELL_C, ns = (A->rows + C - 1) / C,
                 nwin = (A->rows + SP_SELL_SIGMA - 1) / SP_SELL_SIGMA;
    size_t lim = A->itype == CUPAT_I32 ? (size_t)INT32_MAX : (size_t)INT64_MAX;
    void *keys = NULL, *perm = NULL, *win = NULL, *slots = NULL, *offs = NULL;
    uint64_t tot = 0;
    cupat_status s = balloc(ctx, &keys, A->rows + 1, 8);
    if (!s) s = balloc(ctx, &perm, A->rows + 1, 8);
    if (!s) s = balloc(ctx, &win, nwin + 1, 8);
    if (!s) s = balloc(ctx, &slots, ns + 1, 8);
    if (!s) s = balloc(ctx, &offs, ns + 1, 8);
    if (!s) s = SP_STEP(ctx, row_lengths, A, keys, perm);
    if (!s) s = SP_STEP(ctx, sell_windows, A->rows, nwin, win);
    /* stable: rows of equal length keep their order inside a window */
    if (!s && A->rows)
        s = cupat_sort_segmented(ctx, CUPAT_U64, 8, CUPAT_SORT_DESCENDING, A->rows, nwin, win,
                                 keys, keys, perm, perm);
    if (!s) s = SP_STEP(ctx, sell_slots, A->rows, ns, keys, slots);
    if (!s)
        s = cupat_scan(ctx, CUPAT_U64, CUPAT_OP_SUM, CUPAT_SCAN_EXCLUSIVE, ns + 1, slots, offs);
    if (!s) s = cupat_memcpy(ctx, &tot, (uint64_t *)offs + ns, 8);
    if (!s) s = cupat_sync(ctx);
    if (!s && tot > lim)
        s = cupat__fail(ctx, CUPAT_ERROR_SIZE,
                        "%s: SELL of this matrix needs %llu slots (%zu slices of %zu rows, "
                        "each padded to its longest row), past the %llu that %s indices hold%s",
                        fn, (unsigned long long)tot, ns, C, (unsigned long long)lim,
                        cupat_type_name(A->itype),
                        A->itype == CUPAT_I32 ? ": use I64 indices, or CSR" : "");
    if (!s) s = balloc(ctx, &A->sell_perm, A->rows, A->isz);
    if (!s) s = balloc(ctx, &A->sell_ptr, ns + 1, A->isz);
    if (!s) s = balloc(ctx, &A->sell_col, (size_t)tot, A->isz);
    if (!s) s = balloc(ctx, &A->sell_val, (size_t)tot, A->vsz);
    if (!s)
        s = SP_STEP(ctx, sell_fill, A, ns, (size_t)tot, perm, keys, offs, A->sell_perm,
                    A->sell_ptr, A->sell_col, A->sell_val);
    if (!s) s = cupat_sync(ctx);
    if (!s) {
        A->sell_ns = ns;
        A->sell_slots = (size_t)tot;
    }
    bfree(ctx, &keys);
    bfree(ctx, &perm);
    bfree(ctx, &win);
    bfree(ctx, &slots);
    bfree(ctx, &offs);
    return s;
}

cupat_status cupat__sparse_build(cupat_ctx *ctx, cupat_sparse *A, cupat_sparse_format f,
                                 const char *fn)
{
    if (A->formats & (1u << f)) return CUPAT_SUCCESS;
    cupat_status s = CUPAT_SUCCESS;
    switch (f) {
    case CUPAT_SPARSE_COO:
        s = balloc(ctx, &A->coo_row, A->nnz, A->isz);
        if (!s && A->nnz) s = SP_STEP(ctx, expand_rows, A, A->coo_row);
        if (s) bfree(ctx, &A->coo_row);
        break;
    case CUPAT_SPARSE_ELL: {
        size_t ld;
        s = ell_size(ctx, fn, A, A->row_max, &ld);
        if (!s) s = balloc(ctx, &A->ell_col, A->row_max * ld, A->isz);
        if (!s) s = balloc(ctx, &A->ell_val, A->row_max * ld, A->vsz);
        if (!s && A->row_max)
            s = SP_STEP(ctx, ell_fill, A, A->row_max, ld, A->ell_col, A->ell_val, NULL);
        if (!s) {
            A->ell_w = A->row_max;
            A->ell_ld = ld;
        } else {
            bfree(ctx, &A->ell_col);
            bfree(ctx, &A->ell_val);
        }
        break;
    }
    case CUPAT_SPARSE_HYB:
        s = build_hyb(ctx, A, fn);
        if (s) {
            void **p[] = {&A->hyb_col, &A->hyb_val, &A->hyb_crow, &A->hyb_ccol, &A->hyb_cval};
            for (int i = 0; i < 5; i++) bfree(ctx, p[i]);
        }
        break;
    case CUPAT_SPARSE_JDS:
        s = build_jds(ctx, A);
        if (s) {
            void **p[] = {&A->jds_perm, &A->jds_ptr, &A->jds_col, &A->jds_val};
            for (int i = 0; i < 4; i++) bfree(ctx, p[i]);
        }
        break;
    case CUPAT_SPARSE_SELL:
        s = build_sell(ctx, A, fn);
        if (s) {
            void **p[] = {&A->sell_perm, &A->sell_ptr, &A->sell_col, &A->sell_val};
            for (int i = 0; i < 4; i++) bfree(ctx, p[i]);
        }
        break;
    default: break;
    }
    if (!s) s = cupat_sync(ctx);
    if (!s) A->formats |= 1u << f;
    return s;
}

cupat_status cupat_sparse_convert(cupat_ctx *ctx, cupat_sparse *A, cupat_sparse_format f)
{
    CUPAT_TRACE_CALL();
    const char *fn = "cupat_sparse_convert";
    CUPAT_TRY(cupat__begin(ctx, fn));
    CUPAT_TRY(check_handle(ctx, fn, A));
    if ((unsigned)f >= CUPAT_SPARSE_FORMATS)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: f = %d is not a cupat_sparse_format (CSR .. SELL)", fn, (int)f);
    return cupat__sparse_build(ctx, A, f, fn);
}

/* --------------------------------------------------------------- spmv -- */

static cupat_status spmv_run(cupat_ctx *ctx, const char *fn, const cupat_sparse *A, int rung,
                             double alpha, const void *x, double beta, void *y)
{
    int x_in_l2 = rung == SP_X_IN_L2;
    if (ctx->backend == CUDA && (rung == SP_AUTO || x_in_l2)) rung = cupat__spmv_auto_rung(A);
    CUPAT_TRY(cupat__sparse_build(ctx, (cupat_sparse *)A, cupat__spmv_rung_format(rung), fn));
    if (A->rows == 0) return CUPAT_SUCCESS;
    spmv_req r = {fn, rung, x_in_l2, A, alpha, beta, x, y};
    return SP_STEP(ctx, spmv, &r);
}

cupat_status cupat_spmv(cupat_ctx *ctx, const cupat_sparse *A, double alpha, const void *x,
                        double beta, void *y)
{
    CUPAT_TRACE_CALL();
    const char *fn = "cupat_spmv";
    CUPAT_TRY(cupat__begin(ctx, fn));
    CUPAT_TRY(check_handle(ctx, fn, A));
    CUPAT_TRY(check_arr(ctx, fn, "x", x, A->cols, A->vsz, 1));
    CUPAT_TRY(check_arr(ctx, fn, "y", y, A->rows, A->vsz, 1));
    CUPAT_TRY(cupat__check_disjoint(ctx, fn, "y", cupat__extent1(y, A->rows * A->vsz), "x",
                                    cupat__extent1(x, A->cols * A->vsz), NULL));
    const cupat_variant_info *v;
    CUPAT_TRY(cupat__select(ctx, "spmv", &v));
    return spmv_run(ctx, fn, A, cupat__rung_index(v), alpha, x, beta, y);
}

/* ----------------------------------------------------------------- cg -- */

/* r = b - A x (rows summed in f64: the residual of the x in hand, not one
 * more rounding of it), z = M^-1 r, and r.z, ||b - A x||^2 in sc: at the
 * start, at each check and at the end. */
static cupat_status cg_residual(cupat_ctx *ctx, const cupat_sparse *A, const void *b,
                                const void *x, void *r, void *z, const void *dinv, double *sc)
{
    size_t n = A->rows;
    cupat_type vt = A->vtype;
    CUPAT_TRY(SP_STEP(ctx, residual, A, b, x, r, sc, CG_RR));
    CUPAT_TRY(SP_STEP(ctx, scale, n, vt, dinv, r, z));
    return SP_STEP(ctx, dot, n, vt, r, z, sc, CG_RZ);
}

/* The recurrence r_k = r_{k-1} - alpha A p drifts from b - A x_k by
 * rounding, in f32 by far more than a small rtol (the recurrence fell below
 * 1e-6 where the true residual stood at 2.6e-2). So convergence is judged on
 * the true residual alone: it is recomputed every CG_CHECK_EVERY iterations
 * and whenever the recurrence falls below rtol, and replaces r (residual
 * replacement, van der Vorst and Ye 2000), so the recurrence starts honest
 * again. Where rounding, not the system, limits the residual, the true
 * residual stops falling while the recurrence keeps drifting below it. So
 * CG stops, converged = 0, with the residual it attained, when the true
 * residual has not halved in CG_STALL_CHECKS checks and at one of them
 * stood above 1.5 times the recurrence's (drift: on a system that merely
 * converges slowly the two agree to a few digits). f32 on a 2D Poisson of
 * 48^2 reaches about 8e-5, of 256^2 about 4e-3. */
enum { CG_CHECK_EVERY = 50, CG_STALL_CHECKS = 6 };

cupat_status cupat_cg(cupat_ctx *ctx, const cupat_sparse *A, const void *b, void *x,
                      double rtol, size_t max_iter, unsigned flags, double *residuals,
                      size_t history_len, cupat_cg_result *result)
{
    CUPAT_TRACE_CALL();
    const char *fn = "cupat_cg";
    CUPAT_TRY(cupat__begin(ctx, fn));
    CUPAT_TRY(check_handle(ctx, fn, A));
    if (!result) return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "%s: result is NULL", fn);
    memset(result, 0, sizeof *result);
    if (A->rows != A->cols)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "%s: A is %zu x %zu, not square", fn,
                           A->rows, A->cols);
    if (!(rtol >= 0.0) || isinf(rtol))
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: rtol = %g: want a finite value >= 0", fn, rtol);
    if (flags != CUPAT_CG_JACOBI && flags != CUPAT_CG_NONE)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: flags = 0x%x: want CUPAT_CG_JACOBI or CUPAT_CG_NONE", fn, flags);
    if (!residuals && history_len)
        return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER,
                           "%s: residuals is NULL with history_len = %zu (pass 0 for no history)",
                           fn, history_len);
    if (residuals && history_len && cupat__pointer_kind(residuals) == CUPAT_MEMORY_DEVICE)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: residuals = %p is device memory; it must be host memory", fn,
                           (void *)residuals);
    size_t n = A->rows, vs = A->vsz;
    cupat_type vt = A->vtype;
    CUPAT_TRY(check_arr(ctx, fn, "b", b, n, vs, 1));
    CUPAT_TRY(check_arr(ctx, fn, "x", x, n, vs, 1));
    CUPAT_TRY(cupat__check_disjoint(ctx, fn, "x", cupat__extent1(x, n * vs), "b",
                                    cupat__extent1(b, n * vs), NULL));
    if (n == 0) {
        result->converged = 1;
        if (residuals && history_len) residuals[0] = 0.0;
        return CUPAT_SUCCESS;
    }
    const cupat_variant_info *v;
    CUPAT_TRY(cupat__select(ctx, "spmv", &v));
    int rung = cupat__rung_index(v);

    /* r, z, p, q, dinv and the scalars in one allocation */
    size_t vb = (n * vs + 255) & ~(size_t)255;
    char *ws = NULL;
    CUPAT_TRY(cupat_malloc(ctx, (void **)&ws, 5 * vb + CG_NSCAL * sizeof(double)));
    void *r = ws, *z = ws + vb, *p = ws + 2 * vb, *q = ws + 3 * vb, *dinv = ws + 4 * vb;
    double *sc = (double *)(ws + 5 * vb), hs[CG_NSCAL];
    uint64_t bad = 0;
    /* every scalar defined before the first read-back (some are first set
     * in the loop): compute-sanitizer initcheck */
    cupat_status s = cupat_memset(ctx, sc, 0, CG_NSCAL * sizeof(double));
    if (!s) s = SP_STEP(ctx, diag_inv, A, flags == CUPAT_CG_JACOBI, dinv, &bad);
    if (!s && bad)
        s = cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                        "%s: A is not SPD: diagonal entry %llu is <= 0 or not finite (Jacobi "
                        "needs a positive diagonal)",
                        fn, (unsigned long long)(bad - 1));
    /* r = b - A x, z = M^-1 r, p = z */
    if (!s) s = SP_STEP(ctx, dot, n, vt, b, b, sc, CG_BB);
    if (!s) s = cg_residual(ctx, A, b, x, r, z, dinv, sc);
    if (!s) s = SP_STEP(ctx, cg_dir, n, vt, z, p, sc, 1);
    if (!s) s = cupat_memcpy(ctx, hs, sc, sizeof hs);
    if (!s) s = cupat_sync(ctx);
    double bn = s ? 0.0 : sqrt(hs[CG_BB]);
    if (!s && bn == 0.0) {
        /* b = 0: x = 0 exactly */
        s = cupat_memset(ctx, x, 0, n * vs);
        result->converged = 1;
        if (residuals && history_len) residuals[0] = 0.0;
        bfree(ctx, (void **)&ws);
        return s;
    }
    size_t k = 0, stalls = 0; /* checks since the true residual last halved */
    int drifted = 0;          /* ... at one of which it stood above the recurrence */
    /* res: ||r|| / ||b|| of the r in hand; truth: of b - A x at the last
     * check (x unchanged since: it is the result's residual) */
    double res = s ? 0.0 : sqrt(hs[CG_RR]) / bn, truth = res, anchor = res;
    int fresh = 1; /* truth is x's residual */
    if (!s && residuals && history_len) residuals[0] = res;
    while (!s && truth > rtol && k < max_iter) {
        s = spmv_run(ctx, fn, A, rung, 1.0, p, 0.0, q);
        if (!s) s = SP_STEP(ctx, dot, n, vt, p, q, sc, CG_PQ);
        if (!s) s = SP_STEP(ctx, cg_update, n, vt, x, r, p, q, dinv, z, sc);
        if (!s) s = cupat_memcpy(ctx, hs, sc, sizeof hs);
        if (!s) s = cupat_sync(ctx);
        if (s) break;
        k++;
        fresh = 0;
        if (!(hs[CG_PQ] > 0.0)) {
            s = cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                            "%s: A is not SPD: p.Ap = %g at iteration %zu (x is unspecified)",
                            fn, hs[CG_PQ], k);
            break;
        }
        res = sqrt(hs[CG_RR]) / bn;
        if (res <= rtol || k % CG_CHECK_EVERY == 0 || k == max_iter) {
            s = cg_residual(ctx, A, b, x, r, z, dinv, sc);
            if (!s) s = cupat_memcpy(ctx, hs, sc, sizeof hs);
            if (!s) s = cupat_sync(ctx);
            if (s) break;
            double now = sqrt(hs[CG_RR]) / bn;
            if (now < 0.5 * anchor) {
                anchor = now;
                stalls = 0;
                drifted = 0;
            } else {
                stalls++;
                drifted |= now > 1.5 * res;
            }
            res = truth = now;
            fresh = 1;
        }
        if (residuals && k < history_len) residuals[k] = res;
        if (truth <= rtol || (stalls >= CG_STALL_CHECKS && drifted)) break;
        if (k < max_iter) s = SP_STEP(ctx, cg_dir, n, vt, z, p, sc, 0);
    }
    if (!s && !fresh) {
        s = cg_residual(ctx, A, b, x, r, z, dinv, sc);
        if (!s) s = cupat_memcpy(ctx, hs, sc, sizeof hs);
        if (!s) s = cupat_sync(ctx);
        if (!s) truth = sqrt(hs[CG_RR]) / bn;
    }
    if (!s) {
        result->iterations = k;
        result->residual = truth;
        result->converged = truth <= rtol;
    }
    bfree(ctx, (void **)&ws);
    return s;
}

/* ------------------------------------------------------- Matrix Market -- */

static cupat_status mm_to_handle(cupat_ctx *ctx, const char *fn, mm_coo *m, cupat_type it,
                                 cupat_type vt, cupat_sparse **A)
{
    cupat_status s = check_dims(ctx, fn, it, m->rows, m->cols, m->nnz);
    if (s) return s;
    size_t is = cupat_type_size(it), vs = cupat_type_size(vt), n = m->nnz ? m->nnz : 1;
    void *r = malloc(n * is), *c = malloc(n * is), *v = malloc(n * vs);
    if (!r || !c || !v)
        s = cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY,
                        "%s: no host memory for the %zu entries as COO (%zu bytes)", fn, m->nnz,
                        n * (2 * is + vs));
    for (size_t k = 0; !s && k < m->nnz; k++) {
        sp_seti(r, k, it, m->r[k]);
        sp_seti(c, k, it, m->c[k]);
        sp_setv(v, k, vt, m->v[k]);
    }
    if (!s) s = cupat_sparse_create_coo(ctx, A, m->rows, m->cols, m->nnz, it, vt, r, c, v, 0);
    free(r);
    free(c);
    free(v);
    return s;
}

static cupat_status mm_read_bytes(cupat_ctx *ctx, const char *fn, const char *data, size_t size,
                                  const char *name, cupat_type it, cupat_type vt,
                                  cupat_sparse **A)
{
    mm_coo m;
    CUPAT_TRY(cupat__mm_parse_as(ctx, data, size, name, vt, &m));
    cupat_status s = mm_to_handle(ctx, fn, &m, it, vt, A);
    cupat__mm_free(&m);
    return s;
}

cupat_status cupat_mm_read_memory(cupat_ctx *ctx, const void *data, size_t size,
                                  cupat_type index_type, cupat_type value_type,
                                  cupat_sparse **A)
{
    CUPAT_TRACE_CALL();
    const char *fn = "cupat_mm_read_memory";
    CUPAT_TRY(cupat__begin(ctx, fn));
    if (!A) return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "%s: A is NULL", fn);
    *A = NULL;
    if (!data && size) return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "%s: data is NULL", fn);
    CUPAT_TRY(check_types(ctx, fn, index_type, value_type));
    return mm_read_bytes(ctx, fn, data, size, "(memory)", index_type, value_type, A);
}

cupat_status cupat_mm_read(cupat_ctx *ctx, const char *path, cupat_type index_type,
                           cupat_type value_type, cupat_sparse **A)
{
    CUPAT_TRACE_CALL();
    const char *fn = "cupat_mm_read";
    CUPAT_TRY(cupat__begin(ctx, fn));
    if (!A) return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "%s: A is NULL", fn);
    *A = NULL;
    if (!path) return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "%s: path is NULL", fn);
    CUPAT_TRY(check_types(ctx, fn, index_type, value_type));
    /* read it all (a pipe works: no seeking) */
    char *buf;
    size_t len;
    CUPAT_TRY(cupat__read_file(ctx, fn, path, &buf, &len));
    cupat_status s = mm_read_bytes(ctx, fn, buf, len, path, index_type, value_type, A);
    free(buf);
    return s;
}

cupat_status cupat_mm_write(cupat_ctx *ctx, const char *path, const cupat_sparse *A,
                            unsigned flags)
{
    CUPAT_TRACE_CALL();
    const char *fn = "cupat_mm_write";
    CUPAT_TRY(cupat__begin(ctx, fn));
    if (!path) return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "%s: path is NULL", fn);
    CUPAT_TRY(check_handle(ctx, fn, A));
    if (flags & ~(unsigned)(MM_ARRAY | MM_INTEGER | MM_PATTERN | MM_SYMMETRIC | MM_SKEW))
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: flags = 0x%x has bits that are no CUPAT_MM_* flag", fn, flags);
    mm_coo m = {A->rows, A->cols, A->nnz, NULL, NULL, NULL, 0};
    size_t n = A->nnz ? A->nnz : 1;
    void *rp = malloc((A->rows + 1) * A->isz), *ci = malloc(n * A->isz), *va = malloc(n * A->vsz);
    m.r = malloc(n * sizeof *m.r);
    m.c = malloc(n * sizeof *m.c);
    m.v = malloc(n * sizeof *m.v);
    cupat_status s = CUPAT_SUCCESS;
    if (!rp || !ci || !va || !m.r || !m.c || !m.v)
        s = cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY, "%s: no host memory", fn);
    if (!s) s = cupat_sparse_get_csr(ctx, A, rp, ci, va);
    for (size_t i = 0; !s && i < A->rows; i++)
        for (int64_t k = sp_geti(rp, i, A->itype); k < sp_geti(rp, i + 1, A->itype); k++) {
            m.r[k] = (int64_t)i;
            m.c[k] = sp_geti(ci, (size_t)k, A->itype);
            m.v[k] = sp_getv(va, (size_t)k, A->vtype);
        }
    char *text = NULL;
    size_t len = 0;
    if (!s) s = cupat__mm_format(ctx, fn, &m, flags, A->vtype == CUPAT_F32 ? 9 : 17, &text, &len);
    free(rp);
    free(ci);
    free(va);
    cupat__mm_free(&m);
    if (s) return s;
    FILE *f = fopen(path, "wb");
    if (!f) {
        free(text);
        return cupat__fail(ctx, CUPAT_ERROR_IO, "%s: cannot create %s", fn, path);
    }
    int ok = fwrite(text, 1, len, f) == len;
    ok = (fclose(f) == 0) && ok;
    free(text);
    if (!ok) {
        remove(path);
        return cupat__fail(ctx, CUPAT_ERROR_IO, "%s: cannot write %s", fn, path);
    }
    return CUPAT_SUCCESS;
}
