// spmv_fast.cu — the SpMV rungs beyond the book and the CUDA dispatch:
//   csr_vector  a group of L = 2..32 lanes per row (L from the mean row
//               length): the row's nonzeros are read by adjacent lanes
//               (coalesced), summed by a shuffle butterfly (cupat_warp.cuh)
//   merge_path  Merrill & Garland 2016: thread t takes items [t*IPT,
//               (t+1)*IPT) of the merge of the row ends with the nonzero
//               indices, found by a binary search along its diagonal, so
//               every thread does IPT units of work however long the rows
//               are. A row split over threads gets its pieces added by a
//               second kernel, in thread order (deterministic).
//   ell_vec16   ELL, a thread owns R = 16 / sizeof(value) adjacent rows and
//               reads each slot of them as one 16-byte vector (values) and
//               one or two (indices): a quarter of the load instructions.
#include "sparse/sparse_device.cuh"

#include <string.h>

using namespace cupat_sparse_dev;
using cupat_dev::OpSum;

namespace {

typedef unsigned long long u64;

template <int L, typename I, typename V>
__global__ void __launch_bounds__(BLOCK) k_csr_vector(size_t rows, const I *rp, const I *col, const V *val,
                                                      const V *x, V alpha, V beta, V *y)
{
    const size_t g = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / L;
    const int lane = threadIdx.x % L;
    V acc = 0;
    if (g < rows) {
        const int64_t b = rp[g + 1];
        for (int64_t k = (int64_t)rp[g] + lane; k < b; k += L) acc += val[k] * __ldg(&x[col[k]]);
    }
    acc = cupat_dev::warp_reduce<L>(acc, OpSum()); // every lane takes part: no partial masks
    if (g < rows && lane == 0) store_y(y, g, acc, alpha, beta);
}

// Items per thread of merge_path: enough to amortize the binary search
// (log2(rows + nnz) loads), few enough that a warp's items stay in L1.
constexpr int MP_IPT = 8;

template <typename I, typename V>
__global__ void __launch_bounds__(BLOCK)
    k_merge_path(size_t rows, size_t nnz, size_t nthreads, const I *rp, const I *col, const V *val, const V *x,
                 V alpha, V beta, V *y, u64 *crow, V *cval)
{
    const size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (t >= nthreads) return;
    const size_t total = rows + nnz, d0 = t * MP_IPT, d1 = d0 + MP_IPT < total ? d0 + MP_IPT : total;
    // the path's point on diagonal d0: i row ends and j = d0 - i nonzeros
    // before it (a row end goes first when rp[i + 1] <= j)
    int64_t lo = (int64_t)d0 - (int64_t)nnz, hi = (int64_t)(d0 < rows ? d0 : rows);
    if (lo < 0) lo = 0;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if ((int64_t)rp[mid + 1] <= (int64_t)d0 - mid - 1) lo = mid + 1;
        else hi = mid;
    }
    int64_t i = lo, j = (int64_t)d0 - lo;
    V acc = 0;
    bool has = false; // acc holds nonzeros of row i
    for (size_t d = d0; d < d1; d++) {
        if (j < (int64_t)rp[i + 1]) {
            acc += val[j] * __ldg(&x[col[j]]);
            j++;
            has = true;
        } else { // row i ends here: earlier threads' pieces come in the fix-up
            store_y(y, (size_t)i, acc, alpha, beta);
            acc = 0;
            has = false;
            i++;
        }
    }
    crow[t] = has ? (u64)i : (u64)rows;
    cval[t] = acc;
}

// The carries of one row come from consecutive threads: the first of them
// sums the run in thread order and adds it once.
template <typename V>
__global__ void k_merge_fixup(size_t nthreads, size_t rows, const u64 *crow, const V *cval, V alpha, V *y)
{
    const size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (t >= nthreads) return;
    const u64 r = crow[t];
    if (r >= rows || (t > 0 && crow[t - 1] == r)) return;
    V s = cval[t];
    for (size_t u = t + 1; u < nthreads && crow[u] == r; u++) s += cval[u];
    y[r] += alpha * s;
}

template <typename T, int R> struct Pack {
    T v[R];
};
// R elements at p (aligned to their size): 16-byte loads, or one 8-byte load.
template <typename T, int R> __device__ __forceinline__ Pack<T, R> load_pack(const T *p)
{
    Pack<T, R> out;
    constexpr int B = (int)sizeof(T) * R;
    if constexpr (B % 16 == 0) {
#pragma unroll
        for (int q = 0; q < B / 16; q++) {
            uint4 u = __ldg(reinterpret_cast<const uint4 *>(p) + q);
            memcpy(&out.v[q * 16 / (int)sizeof(T)], &u, 16);
        }
    } else {
        static_assert(B == 8, "a pack is 8 or a multiple of 16 bytes");
        uint2 u = __ldg(reinterpret_cast<const uint2 *>(p));
        memcpy(out.v, &u, 8);
    }
    return out;
}

// ld is a multiple of 4, so slot s of rows R t .. R t + R - 1 starts on a
// multiple of R elements: aligned for the vectors (cupat_malloc: 256 bytes).
template <typename I, typename V>
__global__ void __launch_bounds__(BLOCK) k_ell_vec16(size_t rows, size_t w, size_t ld, const I *ecol,
                                                     const V *eval, const V *x, V alpha, V beta, V *y)
{
    constexpr int R = 16 / (int)sizeof(V);
    const size_t r0 = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) * R;
    if (r0 >= rows) return;
    V acc[R];
#pragma unroll
    for (int q = 0; q < R; q++) acc[q] = 0;
    for (size_t s = 0; s < w; s++) {
        Pack<V, R> v = load_pack<V, R>(eval + s * ld + r0);
        Pack<I, R> c = load_pack<I, R>(ecol + s * ld + r0);
#pragma unroll
        for (int q = 0; q < R; q++)
            if (c.v[q] >= 0) acc[q] += v.v[q] * __ldg(&x[c.v[q]]);
    }
#pragma unroll
    for (int q = 0; q < R; q++)
        if (r0 + q < rows) store_y(y, r0 + q, acc[q], alpha, beta);
}

template <typename I, typename V> cupat_status csr_vector(cupat_ctx *ctx, const spmv_req *q, int lanes)
{
    const cupat_sparse *A = q->A;
    size_t threads = A->rows * (size_t)lanes;
    unsigned g = grid_exact(threads);
    const I *rp = (const I *)A->row_ptr, *col = (const I *)A->col;
    const V *val = (const V *)A->val, *x = (const V *)q->x;
    V alpha = (V)q->alpha, beta = (V)q->beta, *y = (V *)q->y;
    cudaStream_t st = ctx->stream;
    switch (lanes) {
    case 2: k_csr_vector<2, I, V><<<g, BLOCK, 0, st>>>(A->rows, rp, col, val, x, alpha, beta, y); break;
    case 4: k_csr_vector<4, I, V><<<g, BLOCK, 0, st>>>(A->rows, rp, col, val, x, alpha, beta, y); break;
    case 8: k_csr_vector<8, I, V><<<g, BLOCK, 0, st>>>(A->rows, rp, col, val, x, alpha, beta, y); break;
    case 16: k_csr_vector<16, I, V><<<g, BLOCK, 0, st>>>(A->rows, rp, col, val, x, alpha, beta, y); break;
    default: k_csr_vector<32, I, V><<<g, BLOCK, 0, st>>>(A->rows, rp, col, val, x, alpha, beta, y); break;
    }
    return cupat__launched(ctx, "k_csr_vector");
}

template <typename I, typename V> cupat_status merge_path(cupat_ctx *ctx, const spmv_req *q)
{
    const cupat_sparse *A = q->A;
    size_t nthreads = (A->rows + A->nnz + MP_IPT - 1) / MP_IPT;
    void *w;
    CUPAT_TRY(cupat__scratch(ctx, nthreads * (sizeof(u64) + sizeof(V)), &w));
    u64 *crow = (u64 *)w;
    V *cval = (V *)(crow + nthreads);
    V alpha = (V)q->alpha;
    k_merge_path<I, V><<<grid_exact(nthreads), BLOCK, 0, ctx->stream>>>(
        A->rows, A->nnz, nthreads, (const I *)A->row_ptr, (const I *)A->col, (const V *)A->val, (const V *)q->x,
        alpha, (V)q->beta, (V *)q->y, crow, cval);
    CUPAT_TRY(cupat__launched(ctx, "k_merge_path"));
    k_merge_fixup<V><<<grid_exact(nthreads), BLOCK, 0, ctx->stream>>>(nthreads, A->rows, crow, cval, alpha,
                                                                       (V *)q->y);
    return cupat__launched(ctx, "k_merge_fixup");
}

template <typename I, typename V> cupat_status ell_vec16(cupat_ctx *ctx, const spmv_req *q)
{
    const cupat_sparse *A = q->A;
    constexpr int R = 16 / (int)sizeof(V);
    k_ell_vec16<I, V><<<grid_exact(A->ell_ld / R), BLOCK, 0, ctx->stream>>>(
        A->rows, A->ell_w, A->ell_ld, (const I *)A->ell_col, (const V *)A->ell_val, (const V *)q->x, (V)q->alpha,
        (V)q->beta, (V *)q->y);
    return cupat__launched(ctx, "k_ell_vec16");
}

} // namespace

extern "C" cupat_status cupat__sp_spmv_cuda(cupat_ctx *ctx, const spmv_req *q)
{
    if (q->rung <= SP_JDS) return spmv_book(ctx, q);
    const cupat_sparse *A = q->A;
    return dispatch(A->itype, A->vtype, [&](auto i0, auto v0) {
        using I = decltype(i0);
        using V = decltype(v0);
        switch (q->rung) {
        case SP_CSR_VECTOR: return csr_vector<I, V>(ctx, q, cupat__spmv_vector_lanes(A));
        case SP_MERGE_PATH: return merge_path<I, V>(ctx, q);
        case SP_ELL_VEC16: return ell_vec16<I, V>(ctx, q);
        default:
            return cupat__fail(ctx, CUPAT_ERROR_INTERNAL, "%s: rung %d has no CUDA kernel", q->fn, q->rung);
        }
    });
}
