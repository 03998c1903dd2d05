// SPDX-License-Identifier: Apache-2.0
// spmv_book.cu — the PMPP ch. 14 SpMV rungs, y = alpha A x + beta y, each a
// kernel over one storage format (sparse.c builds the format first):
//   coo_atomic  14.2  a thread per nonzero, atomicAdd into y
//   csr_scalar  14.3  a thread per row
//   ell         14.4  padded rows, column-major: coalesced
//   hyb         14.5  ELL of width K, the overflow in COO with atomics
//   jds         14.6  rows sorted by length, jagged diagonals
// x is read through the read-only path (__ldg): its reuse is what SpMV has
// of locality.
#include "sparse/sparse_device.cuh"

using namespace cupat_sparse_dev;

namespace {

template <typename V> __global__ void k_scale_y(size_t rows, V beta, V *y)
{
    for (size_t r = blockIdx.x * (size_t)blockDim.x + threadIdx.x; r < rows; r += (size_t)gridDim.x * blockDim.x)
        y[r] = beta != V(0) ? beta * y[r] : V(0);
}

// 14.2: every nonzero is one thread's work, so the load is perfectly even;
// the price is an atomic per nonzero, contended where rows are long.
template <typename I, typename V>
__global__ void k_coo_atomic(size_t nnz, const I *row, const I *col, const V *val, const V *x, V alpha, V *y)
{
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < nnz; k += (size_t)gridDim.x * blockDim.x)
        atomicAdd(&y[row[k]], alpha * (val[k] * __ldg(&x[col[k]])));
}

// 14.3: a thread per row. Neighbouring threads read rows that lie far apart
// (uncoalesced) and a warp waits for its longest row (divergence).
template <typename I, typename V>
__global__ void k_csr_scalar(size_t rows, const I *rp, const I *col, const V *val, const V *x, V alpha, V beta,
                             V *y)
{
    size_t r = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (r >= rows) return;
    V acc = 0;
    for (int64_t k = rp[r]; k < (int64_t)rp[r + 1]; k++) acc += val[k] * __ldg(&x[col[k]]);
    store_y(y, r, acc, alpha, beta);
}

// 14.4: slot s of all rows is contiguous, so a warp's loads of one slot are
// one coalesced transaction. Padding (column -1) is skipped, not multiplied:
// 0 * x_0 would be NaN where x_0 is infinite.
template <typename I, typename V>
__global__ void k_ell(size_t rows, size_t w, size_t ld, const I *ecol, const V *eval, const V *x, V alpha, V beta,
                      V *y)
{
    size_t r = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (r >= rows) return;
    V acc = 0;
    for (size_t s = 0; s < w; s++) {
        I c = ecol[s * ld + r];
        if (c >= 0) acc += eval[s * ld + r] * __ldg(&x[c]);
    }
    store_y(y, r, acc, alpha, beta);
}

// 14.6: thread i takes sorted row i; diagonal d holds entry d of every row
// longer than d, so threads i and i + 1 read adjacent slots (coalesced)
// and do about the same work (rows sorted by length).
template <typename I, typename V>
__global__ void k_jds(size_t rows, size_t nd, const I *perm, const I *jptr, const I *jcol, const V *jval,
                      const V *x, V alpha, V beta, V *y)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= rows) return;
    V acc = 0;
    for (size_t d = 0; d < nd; d++) {
        int64_t a = jptr[d];
        if ((int64_t)i >= (int64_t)jptr[d + 1] - a) break; // diagonals shorten: row i has no more
        acc += jval[a + i] * __ldg(&x[jcol[a + i]]);
    }
    store_y(y, (size_t)perm[i], acc, alpha, beta);
}

} // namespace

namespace cupat_sparse_dev {

cupat_status scale_y(cupat_ctx *ctx, const cupat_sparse *A, double beta, void *y)
{
    return dispatch_v(A->vtype, [&](auto v0) {
        using V = decltype(v0);
        k_scale_y<V><<<grid_for(ctx, A->rows), BLOCK, 0, ctx->stream>>>(A->rows, (V)beta, (V *)y);
        return cupat__launched(ctx, "k_scale_y");
    });
}

cupat_status spmv_book(cupat_ctx *ctx, const spmv_req *q)
{
    const cupat_sparse *A = q->A;
    return dispatch(A->itype, A->vtype, [&](auto i0, auto v0) {
        using I = decltype(i0);
        using V = decltype(v0);
        const V *x = (const V *)q->x;
        V *y = (V *)q->y, alpha = (V)q->alpha, beta = (V)q->beta;
        cudaStream_t st = ctx->stream;
        switch (q->rung) {
        case SP_COO_ATOMIC:
            CUPAT_TRY(scale_y(ctx, A, q->beta, y));
            if (!A->nnz) return CUPAT_SUCCESS;
            k_coo_atomic<I, V><<<grid_for(ctx, A->nnz), BLOCK, 0, st>>>(A->nnz, (const I *)A->coo_row,
                                                                       (const I *)A->col, (const V *)A->val, x,
                                                                       alpha, y);
            return cupat__launched(ctx, "k_coo_atomic");
        case SP_CSR_SCALAR:
            k_csr_scalar<I, V><<<grid_exact(A->rows), BLOCK, 0, st>>>(
                A->rows, (const I *)A->row_ptr, (const I *)A->col, (const V *)A->val, x, alpha, beta, y);
            return cupat__launched(ctx, "k_csr_scalar");
        case SP_ELL:
            k_ell<I, V><<<grid_exact(A->rows), BLOCK, 0, st>>>(A->rows, A->ell_w, A->ell_ld, (const I *)A->ell_col,
                                                               (const V *)A->ell_val, x, alpha, beta, y);
            return cupat__launched(ctx, "k_ell");
        case SP_HYB: {
            size_t ld = (A->rows + 3) & ~(size_t)3;
            k_ell<I, V><<<grid_exact(A->rows), BLOCK, 0, st>>>(A->rows, A->hyb_w, ld, (const I *)A->hyb_col,
                                                               (const V *)A->hyb_val, x, alpha, beta, y);
            CUPAT_TRY(cupat__launched(ctx, "k_ell (hyb)"));
            if (!A->hyb_nnz) return CUPAT_SUCCESS;
            k_coo_atomic<I, V><<<grid_for(ctx, A->hyb_nnz), BLOCK, 0, st>>>(
                A->hyb_nnz, (const I *)A->hyb_crow, (const I *)A->hyb_ccol, (const V *)A->hyb_cval, x, alpha, y);
            return cupat__launched(ctx, "k_coo_atomic (hyb)");
        }
        case SP_JDS:
            k_jds<I, V><<<grid_exact(A->rows), BLOCK, 0, st>>>(A->rows, A->jds_nd, (const I *)A->jds_perm,
                                                               (const I *)A->jds_ptr, (const I *)A->jds_col,
                                                               (const V *)A->jds_val, x, alpha, beta, y);
            return cupat__launched(ctx, "k_jds");
        default:
            return cupat__fail(ctx, CUPAT_ERROR_INTERNAL, "%s: rung %d is no book rung", q->fn, q->rung);
        }
    });
}

} // namespace cupat_sparse_dev
