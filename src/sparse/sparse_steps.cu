// SPDX-License-Identifier: Apache-2.0
// sparse_steps.cu — the CUDA backend of the sparse steps (sparse_internal.h):
// the CSR check and row-length statistics, the pieces of the conversions
// between cupat_sort / cupat_scan calls (sparse.c runs the algorithm), and
// the vector steps of CG. Every sum a step takes is in a fixed order (block
// partials in fixed slots, folded by one block), so CG repeats bit for bit.
#include "sparse/sparse_device.cuh"

#include <string.h>

using namespace cupat_sparse_dev;
using cupat_dev::OpMax;
using cupat_dev::OpMin;
using cupat_dev::OpSum;

namespace {

typedef unsigned long long u64;
constexpr u64 NONE = ~0ull;

// ---------------------------------------------------------------- stats --
struct DevStats {
    u64 bad_rp, bad_col, min, max, empty, sumsq;
};

template <typename I>
__global__ void k_stats_rows(const I *rp, size_t rows, size_t nnz, DevStats *st)
{
    u64 mn = NONE, mx = 0, em = 0, sq = 0, bad = NONE;
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        if (rp[0] != 0) bad = 0;
        else if ((u64)rp[rows] != nnz) bad = rows;
    }
    for (size_t r = blockIdx.x * (size_t)blockDim.x + threadIdx.x; r < rows;
         r += (size_t)gridDim.x * blockDim.x) {
        int64_t a = rp[r], b = rp[r + 1];
        if (b < a || (u64)b > nnz) {
            if (r + 1 < bad) bad = r + 1;
            continue;
        }
        u64 len = (u64)(b - a);
        mn = len < mn ? len : mn;
        mx = len > mx ? len : mx;
        em += len == 0;
        sq += len * len;
    }
    mn = cupat_dev::block_reduce<BLOCK>(mn, OpMin());
    mx = cupat_dev::block_reduce<BLOCK>(mx, OpMax());
    em = cupat_dev::block_reduce<BLOCK>(em, OpSum());
    sq = cupat_dev::block_reduce<BLOCK>(sq, OpSum());
    bad = cupat_dev::block_reduce<BLOCK>(bad, OpMin());
    if (threadIdx.x == 0) {
        atomicMin(&st->min, mn);
        atomicMax(&st->max, mx);
        atomicAdd(&st->empty, em);
        atomicAdd(&st->sumsq, sq);
        if (bad != NONE) atomicMin(&st->bad_rp, bad);
    }
}

template <typename I> __global__ void k_check_cols(const I *col, size_t nnz, size_t cols, DevStats *st)
{
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < nnz;
         k += (size_t)gridDim.x * blockDim.x) {
        int64_t c = col[k];
        if (c < 0 || (u64)c >= cols) atomicMin(&st->bad_col, (u64)k);
    }
}

// ------------------------------------------------------------ COO -> CSR --
template <typename I>
__global__ void k_coo_keys(size_t nnz, size_t rows, size_t cols, const I *r, const I *c, u64 *keys,
                           u64 *perm, u64 *bad)
{
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < nnz;
         k += (size_t)gridDim.x * blockDim.x) {
        int64_t i = r[k], j = c[k];
        if (i < 0 || j < 0 || (u64)i >= rows || (u64)j >= cols) {
            atomicMin(bad, (u64)k);
            i = j = 0;
        }
        keys[k] = (u64)i * cols + (u64)j;
        perm[k] = k;
    }
}

__global__ void k_heads(size_t n, const u64 *keys, u64 *heads)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i <= n;
         i += (size_t)gridDim.x * blockDim.x)
        heads[i] = i == n ? 0 : (i == 0 || keys[i] != keys[i - 1]);
}

template <typename I, typename V>
__global__ void k_coo_gather(size_t n, size_t cols, const u64 *keys, const u64 *perm, const u64 *heads,
                             const u64 *pos, const V *vals, I *orow, I *ocol, V *oval)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        if (!heads[i]) continue;
        V s = vals[perm[i]]; // the run in input order (the sort is stable)
        for (size_t j = i + 1; j < n && !heads[j]; j++) s += vals[perm[j]];
        u64 p = pos[i];
        orow[p] = (I)(keys[i] / cols);
        ocol[p] = (I)(keys[i] % cols);
        oval[p] = s;
    }
}

template <typename I> __global__ void k_row_ptr(size_t rows, size_t nnz, const I *orow, I *rp)
{
    for (size_t r = blockIdx.x * (size_t)blockDim.x + threadIdx.x; r <= rows;
         r += (size_t)gridDim.x * blockDim.x)
        rp[r] = (I)(upper_bound_m1(orow, 0, (int64_t)nnz, (int64_t)r - 1) + 1); // first >= r
}

// --------------------------------------------------------- CSR -> others --
template <typename I> __global__ void k_expand_rows(size_t rows, size_t nnz, const I *rp, I *crow)
{
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < nnz;
         k += (size_t)gridDim.x * blockDim.x)
        crow[k] = (I)upper_bound_m1(rp, 0, (int64_t)rows + 1, (int64_t)k); // last row start <= k
}

template <typename I, typename V>
__global__ void k_ell_fill(size_t rows, size_t w, size_t ld, const I *rp, const I *col, const V *val,
                           I *ecol, V *eval)
{
    for (size_t e = blockIdx.x * (size_t)blockDim.x + threadIdx.x; e < w * ld;
         e += (size_t)gridDim.x * blockDim.x) {
        size_t s = e / ld, r = e % ld; // consecutive threads: consecutive rows of slot s
        bool in = false;
        int64_t k = 0;
        if (r < rows) {
            k = (int64_t)rp[r] + (int64_t)s;
            in = k < (int64_t)rp[r + 1];
        }
        ecol[e] = in ? col[k] : (I)-1;
        eval[e] = in ? val[k] : V(0);
    }
}

template <typename I> __global__ void k_overflow_counts(size_t rows, size_t w, const I *rp, u64 *counts)
{
    for (size_t r = blockIdx.x * (size_t)blockDim.x + threadIdx.x; r <= rows;
         r += (size_t)gridDim.x * blockDim.x) {
        u64 len = r < rows ? (u64)(rp[r + 1] - rp[r]) : 0;
        counts[r] = len > w ? len - w : 0;
    }
}

template <typename I, typename V>
__global__ void k_hyb_coo_fill(size_t rows, size_t nnz, size_t w, const I *rp, const I *col, const V *val,
                               const u64 *offs, I *crow, I *ccol, V *cval)
{
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < nnz;
         k += (size_t)gridDim.x * blockDim.x) {
        int64_t r = upper_bound_m1(rp, 0, (int64_t)rows + 1, (int64_t)k);
        int64_t s = (int64_t)k - (int64_t)rp[r];
        if (s < (int64_t)w) continue;
        u64 o = offs[r] + (u64)(s - (int64_t)w);
        crow[o] = (I)r;
        ccol[o] = col[k];
        cval[o] = val[k];
    }
}

template <typename I> __global__ void k_row_lengths(size_t rows, const I *rp, u64 *keys, u64 *perm)
{
    for (size_t r = blockIdx.x * (size_t)blockDim.x + threadIdx.x; r < rows;
         r += (size_t)gridDim.x * blockDim.x) {
        keys[r] = (u64)(rp[r + 1] - rp[r]);
        perm[r] = r;
    }
}

__global__ void k_jds_counts(size_t rows, size_t nd, const u64 *len, u64 *dcount)
{
    for (size_t d = blockIdx.x * (size_t)blockDim.x + threadIdx.x; d <= nd;
         d += (size_t)gridDim.x * blockDim.x) {
        if (d == nd) {
            dcount[d] = 0;
            continue;
        }
        // lengths descend: count those > d = first index with len <= d
        size_t lo = 0, hi = rows;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (len[mid] > d) lo = mid + 1;
            else hi = mid;
        }
        dcount[d] = lo;
    }
}

template <typename I, typename V>
__global__ void k_jds_fill(size_t rows, size_t nd, const I *rp, const I *col, const V *val, const u64 *perm64,
                           const u64 *len, const u64 *offs, I *perm, I *jptr, I *jcol, V *jval)
{
    size_t t0 = blockIdx.x * (size_t)blockDim.x + threadIdx.x, st = (size_t)gridDim.x * blockDim.x;
    for (size_t d = t0; d <= nd; d += st) jptr[d] = (I)offs[d];
    for (size_t i = t0; i < rows; i += st) {
        size_t r = perm64[i];
        perm[i] = (I)r;
        int64_t a = rp[r];
        for (size_t d = 0; d < len[i]; d++) { // diagonal d: consecutive threads, consecutive slots
            jcol[offs[d] + i] = col[a + d];
            jval[offs[d] + i] = val[a + d];
        }
    }
}

// ------------------------------------------------------------ SELL-C-sigma --
__global__ void k_sell_windows(size_t rows, size_t nwin, u64 *offs)
{
    for (size_t w = blockIdx.x * (size_t)blockDim.x + threadIdx.x; w <= nwin;
         w += (size_t)gridDim.x * blockDim.x) {
        size_t o = w * SP_SELL_SIGMA;
        offs[w] = o < rows ? o : rows;
    }
}

// The lengths descend inside each window and a window is whole slices, so
// a slice's first row is its longest.
__global__ void k_sell_slots(size_t ns, const u64 *len, u64 *slots)
{
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k <= ns;
         k += (size_t)gridDim.x * blockDim.x)
        slots[k] = k < ns ? (u64)SP_SELL_C * len[k * SP_SELL_C] : 0;
}

// A thread a slot, grid-stride: the slice by a binary search of the slice
// starts (a warp's 32 threads share one search path), then row l of the
// slice and its entry s. Consecutive threads write consecutive slots, and a
// long row costs its slice's threads nothing more than their share.
template <typename I, typename V>
__global__ void k_sell_fill(size_t rows, size_t ns, size_t nslots, const I *rp, const I *col, const V *val,
                            const u64 *perm64, const u64 *len, const u64 *offs, I *perm, I *sptr, I *scol,
                            V *sval)
{
    size_t t0 = blockIdx.x * (size_t)blockDim.x + threadIdx.x, st = (size_t)gridDim.x * blockDim.x;
    for (size_t k = t0; k <= ns; k += st) sptr[k] = (I)offs[k];
    for (size_t i = t0; i < rows; i += st) perm[i] = (I)perm64[i];
    for (size_t e = t0; e < nslots; e += st) {
        // the last slice starting at or before e: empty slices (equal starts) are passed over
        const int64_t k = upper_bound_m1(offs, 0, (int64_t)ns + 1, (int64_t)e);
        const size_t o = e - (size_t)offs[k], s = o / SP_SELL_C, i = (size_t)k * SP_SELL_C + o % SP_SELL_C;
        bool in = false;
        int64_t a = 0;
        if (i < rows && s < len[i]) {
            a = (int64_t)rp[perm64[i]] + (int64_t)s;
            in = true;
        }
        scol[e] = in ? col[a] : (I)-1;
        sval[e] = in ? val[a] : V(0);
    }
}

// -------------------------------------------------------------------- CG --
template <typename I, typename V>
__global__ void k_diag_inv(size_t rows, const I *rp, const I *col, const V *val, int jacobi, V *dinv, u64 *bad)
{
    for (size_t r = blockIdx.x * (size_t)blockDim.x + threadIdx.x; r < rows;
         r += (size_t)gridDim.x * blockDim.x) {
        double d = 0.0;
        for (int64_t k = rp[r]; k < (int64_t)rp[r + 1]; k++)
            if ((size_t)col[k] == r) d += (double)val[k];
        if (jacobi && !(d > 0.0 && isfinite(d))) atomicMin(bad, (u64)r);
        dinv[r] = jacobi ? (V)(1.0 / d) : V(1);
    }
}

// Fixed grid for the sums: it depends on n only, so the partials are too.
constexpr int DOT_GRID_MAX = 1024;
inline unsigned dot_grid(size_t n)
{
    size_t g = (n + BLOCK * 4 - 1) / (BLOCK * 4);
    return (unsigned)(g < 1 ? 1 : g > DOT_GRID_MAX ? DOT_GRID_MAX : g);
}

// Fold np partials (one block) into s[slot]; with shift, s[RZ_OLD] = s[RZ] first.
__global__ void k_fold(const double *part, int np, double *s, int slot, const double *part2, int slot2, int shift)
{
    double a = 0.0, b = 0.0;
    for (int i = threadIdx.x; i < np; i += BLOCK) {
        a += part[i];
        if (part2) b += part2[i];
    }
    a = cupat_dev::block_reduce<BLOCK>(a, OpSum());
    if (part2) b = cupat_dev::block_reduce<BLOCK>(b, OpSum());
    if (threadIdx.x == 0) {
        if (shift) s[CG_RZ_OLD] = s[CG_RZ];
        s[slot] = a;
        if (part2) s[slot2] = b;
    }
}

template <typename V> __global__ void k_dot(size_t n, const V *a, const V *b, double *part)
{
    double acc = 0.0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        acc += (double)a[i] * (double)b[i];
    acc = cupat_dev::block_reduce<BLOCK>(acc, OpSum());
    if (threadIdx.x == 0) part[blockIdx.x] = acc;
}

// b - A x a row, summed in f64 (one thread a row: CG calls this every 50
// iterations, for the truth of the residual, not its speed).
template <typename I, typename V>
__global__ void k_residual(size_t rows, const I *rp, const I *col, const V *val, const V *b, const V *x, V *r,
                           double *part)
{
    double rr = 0.0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < rows; i += (size_t)gridDim.x * blockDim.x) {
        double acc = (double)b[i];
        for (int64_t k = rp[i]; k < (int64_t)rp[i + 1]; k++) acc -= (double)val[k] * (double)x[col[k]];
        r[i] = (V)acc;
        rr += acc * acc;
    }
    rr = cupat_dev::block_reduce<BLOCK>(rr, OpSum());
    if (threadIdx.x == 0) part[blockIdx.x] = rr;
}

template <typename V> __global__ void k_scale(size_t n, const V *dinv, const V *r, V *z)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        z[i] = dinv[i] * r[i];
}

// x += alpha p; r -= alpha q; z = dinv r; partials of r.z and r.r: one pass.
template <typename V>
__global__ void k_cg_update(size_t n, V *x, V *r, const V *p, const V *q, const V *dinv, V *z, const double *s,
                            double *part_rz, double *part_rr)
{
    const V alpha = (V)(s[CG_RZ] / s[CG_PQ]);
    double rz = 0.0, rr = 0.0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        x[i] += alpha * p[i];
        V ri = r[i] - alpha * q[i];
        V zi = dinv[i] * ri;
        r[i] = ri;
        z[i] = zi;
        rz += (double)ri * (double)zi;
        rr += (double)ri * (double)ri;
    }
    rz = cupat_dev::block_reduce<BLOCK>(rz, OpSum());
    rr = cupat_dev::block_reduce<BLOCK>(rr, OpSum());
    if (threadIdx.x == 0) {
        part_rz[blockIdx.x] = rz;
        part_rr[blockIdx.x] = rr;
    }
}

template <typename V> __global__ void k_cg_dir(size_t n, const V *z, V *p, const double *s, int first)
{
    const V beta = first ? V(0) : (V)(s[CG_RZ] / s[CG_RZ_OLD]);
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = first ? z[i] : z[i] + beta * p[i];
}

// A device word initialised to NONE, read back after the kernels (waits).
struct Flag {
    cupat_ctx *ctx;
    u64 *d = nullptr;
    cupat_status init()
    {
        void *p;
        CUPAT_TRY(cupat__scratch(ctx, sizeof(u64), &p));
        d = (u64 *)p;
        return cupat__cuda(ctx, cudaMemsetAsync(d, 0xff, sizeof(u64), ctx->stream), "cudaMemsetAsync");
    }
    // 0 when still NONE, else 1 + the value
    cupat_status read(uint64_t *out)
    {
        u64 h = NONE;
        CUPAT_CUDA_TRY(ctx, cudaMemcpyAsync(&h, d, sizeof h, cudaMemcpyDeviceToHost, ctx->stream));
        CUPAT_CUDA_TRY(ctx, cudaStreamSynchronize(ctx->stream));
        *out = h == NONE ? 0 : h + 1;
        return CUPAT_SUCCESS;
    }
};

} // namespace

#define LAUNCHED(name) cupat__launched(ctx, name)

extern "C" {

cupat_status cupat__sp_stats_cuda(cupat_ctx *ctx, const cupat_sparse *A, sp_stats *out)
{
    void *p;
    CUPAT_TRY(cupat__scratch(ctx, sizeof(DevStats), &p));
    DevStats *st = (DevStats *)p, h = {NONE, NONE, NONE, 0, 0, 0};
    CUPAT_CUDA_TRY(ctx, cudaMemcpyAsync(st, &h, sizeof h, cudaMemcpyHostToDevice, ctx->stream));
    CUPAT_TRY(dispatch_i(A->itype, [&](auto i0) {
        using I = decltype(i0);
        k_stats_rows<I><<<grid_for(ctx, A->rows), BLOCK, 0, ctx->stream>>>((const I *)A->row_ptr, A->rows,
                                                                          A->nnz, st);
        CUPAT_TRY(LAUNCHED("k_stats_rows"));
        if (A->nnz)
            k_check_cols<I><<<grid_for(ctx, A->nnz), BLOCK, 0, ctx->stream>>>((const I *)A->col, A->nnz,
                                                                              A->cols, st);
        return LAUNCHED("k_check_cols");
    }));
    CUPAT_CUDA_TRY(ctx, cudaMemcpyAsync(&h, st, sizeof h, cudaMemcpyDeviceToHost, ctx->stream));
    CUPAT_CUDA_TRY(ctx, cudaStreamSynchronize(ctx->stream));
    memset(out, 0, sizeof *out);
    if (h.bad_rp != NONE) {
        out->bad_kind = 1;
        out->bad_pos = h.bad_rp;
    } else if (h.bad_col != NONE) {
        out->bad_kind = 2;
        out->bad_pos = h.bad_col;
    }
    out->min = h.min;
    out->max = h.max;
    out->empty = h.empty;
    out->sumsq = h.sumsq;
    return CUPAT_SUCCESS;
}

cupat_status cupat__sp_coo_keys_cuda(cupat_ctx *ctx, size_t nnz, cupat_type itype, size_t rows, size_t cols,
                                     const void *r, const void *c, uint64_t *keys, uint64_t *perm,
                                     uint64_t *bad)
{
    Flag f{ctx};
    CUPAT_TRY(f.init());
    CUPAT_TRY(dispatch_i(itype, [&](auto i0) {
        using I = decltype(i0);
        k_coo_keys<I><<<grid_for(ctx, nnz), BLOCK, 0, ctx->stream>>>(nnz, rows, cols, (const I *)r,
                                                                    (const I *)c, (u64 *)keys, (u64 *)perm, f.d);
        return LAUNCHED("k_coo_keys");
    }));
    return f.read(bad);
}

cupat_status cupat__sp_heads_cuda(cupat_ctx *ctx, size_t n, const uint64_t *keys, uint64_t *heads)
{
    k_heads<<<grid_for(ctx, n + 1), BLOCK, 0, ctx->stream>>>(n, (const u64 *)keys, (u64 *)heads);
    return LAUNCHED("k_heads");
}

cupat_status cupat__sp_coo_gather_cuda(cupat_ctx *ctx, size_t n, size_t cols, cupat_type itype,
                                       cupat_type vtype, const uint64_t *keys, const uint64_t *perm,
                                       const uint64_t *heads, const uint64_t *pos, const void *vals,
                                       void *orow, void *ocol, void *oval)
{
    if (!n) return CUPAT_SUCCESS;
    return dispatch(itype, vtype, [&](auto i0, auto v0) {
        using I = decltype(i0);
        using V = decltype(v0);
        k_coo_gather<I, V><<<grid_for(ctx, n), BLOCK, 0, ctx->stream>>>(
            n, cols, (const u64 *)keys, (const u64 *)perm, (const u64 *)heads, (const u64 *)pos,
            (const V *)vals, (I *)orow, (I *)ocol, (V *)oval);
        return LAUNCHED("k_coo_gather");
    });
}

cupat_status cupat__sp_row_ptr_cuda(cupat_ctx *ctx, size_t rows, size_t nnz, cupat_type itype,
                                    const void *orow, void *row_ptr)
{
    return dispatch_i(itype, [&](auto i0) {
        using I = decltype(i0);
        k_row_ptr<I><<<grid_for(ctx, rows + 1), BLOCK, 0, ctx->stream>>>(rows, nnz, (const I *)orow,
                                                                         (I *)row_ptr);
        return LAUNCHED("k_row_ptr");
    });
}

cupat_status cupat__sp_expand_rows_cuda(cupat_ctx *ctx, const cupat_sparse *A, void *coo_row)
{
    return dispatch_i(A->itype, [&](auto i0) {
        using I = decltype(i0);
        k_expand_rows<I><<<grid_for(ctx, A->nnz), BLOCK, 0, ctx->stream>>>(A->rows, A->nnz,
                                                                           (const I *)A->row_ptr, (I *)coo_row);
        return LAUNCHED("k_expand_rows");
    });
}

cupat_status cupat__sp_ell_fill_cuda(cupat_ctx *ctx, const cupat_sparse *A, size_t w, size_t ld, void *ecol,
                                     void *eval, uint64_t *counts)
{
    return dispatch(A->itype, A->vtype, [&](auto i0, auto v0) {
        using I = decltype(i0);
        using V = decltype(v0);
        if (w && ld) {
            k_ell_fill<I, V><<<grid_for(ctx, w * ld), BLOCK, 0, ctx->stream>>>(
                A->rows, w, ld, (const I *)A->row_ptr, (const I *)A->col, (const V *)A->val, (I *)ecol,
                (V *)eval);
            CUPAT_TRY(LAUNCHED("k_ell_fill"));
        }
        if (!counts) return CUPAT_SUCCESS;
        k_overflow_counts<I><<<grid_for(ctx, A->rows + 1), BLOCK, 0, ctx->stream>>>(
            A->rows, w, (const I *)A->row_ptr, (u64 *)counts);
        return LAUNCHED("k_overflow_counts");
    });
}

cupat_status cupat__sp_hyb_coo_fill_cuda(cupat_ctx *ctx, const cupat_sparse *A, size_t w, const uint64_t *offs,
                                         void *crow, void *ccol, void *cval)
{
    return dispatch(A->itype, A->vtype, [&](auto i0, auto v0) {
        using I = decltype(i0);
        using V = decltype(v0);
        k_hyb_coo_fill<I, V><<<grid_for(ctx, A->nnz), BLOCK, 0, ctx->stream>>>(
            A->rows, A->nnz, w, (const I *)A->row_ptr, (const I *)A->col, (const V *)A->val, (const u64 *)offs,
            (I *)crow, (I *)ccol, (V *)cval);
        return LAUNCHED("k_hyb_coo_fill");
    });
}

cupat_status cupat__sp_row_lengths_cuda(cupat_ctx *ctx, const cupat_sparse *A, uint64_t *keys, uint64_t *perm)
{
    if (!A->rows) return CUPAT_SUCCESS;
    return dispatch_i(A->itype, [&](auto i0) {
        using I = decltype(i0);
        k_row_lengths<I><<<grid_for(ctx, A->rows), BLOCK, 0, ctx->stream>>>(A->rows, (const I *)A->row_ptr,
                                                                           (u64 *)keys, (u64 *)perm);
        return LAUNCHED("k_row_lengths");
    });
}

cupat_status cupat__sp_jds_counts_cuda(cupat_ctx *ctx, size_t rows, size_t nd, const uint64_t *len_sorted,
                                       uint64_t *dcount)
{
    k_jds_counts<<<grid_for(ctx, nd + 1), BLOCK, 0, ctx->stream>>>(rows, nd, (const u64 *)len_sorted,
                                                                   (u64 *)dcount);
    return LAUNCHED("k_jds_counts");
}

cupat_status cupat__sp_jds_fill_cuda(cupat_ctx *ctx, const cupat_sparse *A, size_t nd, const uint64_t *perm64,
                                     const uint64_t *len_sorted, const uint64_t *offs, void *perm, void *jptr,
                                     void *jcol, void *jval)
{
    return dispatch(A->itype, A->vtype, [&](auto i0, auto v0) {
        using I = decltype(i0);
        using V = decltype(v0);
        size_t n = A->rows > nd + 1 ? A->rows : nd + 1;
        k_jds_fill<I, V><<<grid_for(ctx, n), BLOCK, 0, ctx->stream>>>(
            A->rows, nd, (const I *)A->row_ptr, (const I *)A->col, (const V *)A->val, (const u64 *)perm64,
            (const u64 *)len_sorted, (const u64 *)offs, (I *)perm, (I *)jptr, (I *)jcol, (V *)jval);
        return LAUNCHED("k_jds_fill");
    });
}

cupat_status cupat__sp_sell_windows_cuda(cupat_ctx *ctx, size_t rows, size_t nwin, uint64_t *offs)
{
    k_sell_windows<<<grid_for(ctx, nwin + 1), BLOCK, 0, ctx->stream>>>(rows, nwin, (u64 *)offs);
    return LAUNCHED("k_sell_windows");
}

cupat_status cupat__sp_sell_slots_cuda(cupat_ctx *ctx, size_t rows, size_t ns, const uint64_t *len_sorted,
                                       uint64_t *slots)
{
    k_sell_slots<<<grid_for(ctx, ns + 1), BLOCK, 0, ctx->stream>>>(ns, (const u64 *)len_sorted, (u64 *)slots);
    return LAUNCHED("k_sell_slots");
}

cupat_status cupat__sp_sell_fill_cuda(cupat_ctx *ctx, const cupat_sparse *A, size_t ns, size_t nslots,
                                      const uint64_t *perm64, const uint64_t *len_sorted, const uint64_t *offs,
                                      void *perm, void *sptr, void *scol, void *sval)
{
    return dispatch(A->itype, A->vtype, [&](auto i0, auto v0) {
        using I = decltype(i0);
        using V = decltype(v0);
        size_t n = nslots > A->rows ? nslots : A->rows;
        if (n < ns + 1) n = ns + 1;
        k_sell_fill<I, V><<<grid_for(ctx, n), BLOCK, 0, ctx->stream>>>(
            A->rows, ns, nslots, (const I *)A->row_ptr, (const I *)A->col, (const V *)A->val,
            (const u64 *)perm64, (const u64 *)len_sorted, (const u64 *)offs, (I *)perm, (I *)sptr, (I *)scol,
            (V *)sval);
        return LAUNCHED("k_sell_fill");
    });
}

cupat_status cupat__sp_diag_inv_cuda(cupat_ctx *ctx, const cupat_sparse *A, int jacobi, void *dinv,
                                     uint64_t *bad_row)
{
    Flag f{ctx};
    CUPAT_TRY(f.init());
    CUPAT_TRY(dispatch(A->itype, A->vtype, [&](auto i0, auto v0) {
        using I = decltype(i0);
        using V = decltype(v0);
        k_diag_inv<I, V><<<grid_for(ctx, A->rows), BLOCK, 0, ctx->stream>>>(
            A->rows, (const I *)A->row_ptr, (const I *)A->col, (const V *)A->val, jacobi, (V *)dinv, f.d);
        return LAUNCHED("k_diag_inv");
    }));
    return f.read(bad_row);
}

cupat_status cupat__sp_dot_cuda(cupat_ctx *ctx, size_t n, cupat_type vt, const void *a, const void *b, double *s,
                                int slot)
{
    void *p;
    CUPAT_TRY(cupat__scratch(ctx, DOT_GRID_MAX * sizeof(double), &p));
    unsigned g = dot_grid(n);
    CUPAT_TRY(dispatch_v(vt, [&](auto v0) {
        using V = decltype(v0);
        k_dot<V><<<g, BLOCK, 0, ctx->stream>>>(n, (const V *)a, (const V *)b, (double *)p);
        return LAUNCHED("k_dot");
    }));
    k_fold<<<1, BLOCK, 0, ctx->stream>>>((const double *)p, (int)g, s, slot, nullptr, 0, 0);
    return LAUNCHED("k_fold");
}

cupat_status cupat__sp_residual_cuda(cupat_ctx *ctx, const cupat_sparse *A, const void *b, const void *x, void *r,
                                    double *s, int slot)
{
    void *p;
    CUPAT_TRY(cupat__scratch(ctx, DOT_GRID_MAX * sizeof(double), &p));
    unsigned g = dot_grid(A->rows);
    CUPAT_TRY(dispatch(A->itype, A->vtype, [&](auto i0, auto v0) {
        using I = decltype(i0);
        using V = decltype(v0);
        k_residual<I, V><<<g, BLOCK, 0, ctx->stream>>>(A->rows, (const I *)A->row_ptr, (const I *)A->col,
                                                       (const V *)A->val, (const V *)b, (const V *)x, (V *)r,
                                                       (double *)p);
        return LAUNCHED("k_residual");
    }));
    k_fold<<<1, BLOCK, 0, ctx->stream>>>((const double *)p, (int)g, s, slot, nullptr, 0, 0);
    return LAUNCHED("k_fold");
}

cupat_status cupat__sp_scale_cuda(cupat_ctx *ctx, size_t n, cupat_type vt, const void *dinv, const void *r,
                                  void *z)
{
    return dispatch_v(vt, [&](auto v0) {
        using V = decltype(v0);
        k_scale<V><<<grid_for(ctx, n), BLOCK, 0, ctx->stream>>>(n, (const V *)dinv, (const V *)r, (V *)z);
        return LAUNCHED("k_scale");
    });
}

cupat_status cupat__sp_cg_update_cuda(cupat_ctx *ctx, size_t n, cupat_type vt, void *x, void *r, const void *p,
                                      const void *q, const void *dinv, void *z, double *s)
{
    void *w;
    CUPAT_TRY(cupat__scratch(ctx, 2 * DOT_GRID_MAX * sizeof(double), &w));
    double *prz = (double *)w, *prr = prz + DOT_GRID_MAX;
    unsigned g = dot_grid(n);
    CUPAT_TRY(dispatch_v(vt, [&](auto v0) {
        using V = decltype(v0);
        k_cg_update<V><<<g, BLOCK, 0, ctx->stream>>>(n, (V *)x, (V *)r, (const V *)p, (const V *)q,
                                                     (const V *)dinv, (V *)z, s, prz, prr);
        return LAUNCHED("k_cg_update");
    }));
    k_fold<<<1, BLOCK, 0, ctx->stream>>>(prz, (int)g, s, CG_RZ, prr, CG_RR, 1);
    return LAUNCHED("k_fold");
}

cupat_status cupat__sp_cg_dir_cuda(cupat_ctx *ctx, size_t n, cupat_type vt, const void *z, void *p,
                                   const double *s, int first)
{
    return dispatch_v(vt, [&](auto v0) {
        using V = decltype(v0);
        k_cg_dir<V><<<grid_for(ctx, n), BLOCK, 0, ctx->stream>>>(n, (const V *)z, (V *)p, s, first);
        return LAUNCHED("k_cg_dir");
    });
}

} // extern "C"
