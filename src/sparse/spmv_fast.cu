// SPDX-License-Identifier: Apache-2.0
// spmv_fast.cu — the SpMV rungs beyond the book and the CUDA dispatch:
//   csr_vector  a group of L = 2..32 lanes per row (L from the mean row
//               length): the row's nonzeros are read by adjacent lanes
//               (coalesced), summed by a shuffle butterfly (cupat_warp.cuh)
//   merge_path  Merrill & Garland 2016: a block takes a tile of 7 x 256
//               items of the merge of the row ends with the nonzeros (the
//               tiles' starts found once by a binary search along their
//               diagonals), so every thread does 7 units of work however
//               long the rows are. The tile's products a_ij x_j are formed
//               with coalesced loads into shared memory, each thread walks
//               its items there; a row split over threads gets its parts
//               summed by the block (shuffles, then warps, in order), a row
//               split over blocks by a second kernel in block order
//               (deterministic). Measured steps (H100, R-MAT 2^22): one
//               thread summing every part of a row 2.5 ms; the block's sums
//               0.71 ms (cuSPARSE 0.54 ms); the shared tile: see docs.
//   ell_vec16   ELL, a thread owns R = 16 / sizeof(value) adjacent rows and
//               reads each slot of them as one 16-byte vector (values) and
//               one or two (indices): a quarter of the load instructions.
//   sell        SELL-C-sigma (Kreutzer et al. 2014): a warp a slice of 32
//               rows sorted by length within their window of sigma, lane l
//               on the slice's row l: ELL's coalesced slots, padded only to
//               the slice's own longest row; y through the permutation.
#include "sparse/sparse_device.cuh"

#include <limits.h>
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

// merge_path's tile: a block takes MP_TILE consecutive items of the merge of
// row ends and nonzeros. 7 items a thread (odd: a warp's lanes, 7 words
// apart, walk the shared tile in 32 different banks).
constexpr int MP_IPT = 7;

// The merge path's row coordinate on diagonal d: i row ends and d - i
// nonzeros lie before it (a row end goes first when rp[i + 1] <= j).
template <typename I>
__device__ __forceinline__ int64_t path_row(const I *rp, size_t rows, size_t nnz, size_t d)
{
    int64_t lo = (int64_t)d - (int64_t)nnz, hi = (int64_t)(d < rows ? d : rows);
    if (lo < 0) lo = 0;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if ((int64_t)rp[mid + 1] <= (int64_t)d - mid - 1) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

// Every tile's start on the path (a thread a tile), once a handle: the main
// kernel then searches only inside its tile, in shared memory.
template <int IPT, typename I>
__global__ void k_merge_search(size_t ntiles, size_t rows, size_t nnz, const I *rp, u64 *tile_row)
{
    const size_t b = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (b > ntiles) return;
    constexpr size_t MP_TILE = (size_t)BLOCK * IPT;
    const size_t total = rows + nnz, d = b * MP_TILE < total ? b * MP_TILE : total;
    tile_row[b] = (u64)path_row(rp, rows, nnz, d);
}

// Sum of v over this lane and the lanes after it that carry the same key,
// within the warp (keys of one run are contiguous): a segmented suffix scan.
template <typename V> __device__ __forceinline__ V run_suffix_sum(V v, u64 key)
{
    const unsigned lane = threadIdx.x % 32;
#pragma unroll
    for (unsigned d = 1; d < 32; d *= 2) {
        V o = __shfl_down_sync(0xffffffffu, v, d);
        u64 k = __shfl_down_sync(0xffffffffu, key, d);
        if (lane + d < 32 && k == key) v += o;
    }
    return v;
}

// One tile a block. Its nonzeros' products a_ij x_j are formed with
// coalesced loads (independent: many gathers of x in flight) into shared
// memory beside its row ends; each thread then walks its 7 items of the
// path there. A row that ends in a thread is stored with that thread's part;
// the parts of earlier threads of the block are added after a barrier (run
// sums by shuffles, then across warps, in a fixed order: deterministic); a
// row still open at the tile's end is the block's carry, added by
// k_merge_fixup in block order.
template <int IPT, bool CS, typename I, typename V>
__global__ void __launch_bounds__(BLOCK)
    k_merge_path(size_t rows, size_t nnz, const u64 *tile_row, const I *rp, const I *col, const V *val,
                 const V *x, V alpha, V beta, V *y, u64 *brow, V *bval)
{
    constexpr int MP_TILE = BLOCK * IPT;
    // A tile holds nr row ends and nn nonzeros, nr + nn <= MP_TILE: the nn
    // products and then the nr + 1 row ends (relative to the tile's first
    // nonzero) share one buffer, half the shared memory of two arrays, so
    // that 8 blocks a SM leave most of the SM's 256 KiB to the L1 (x's hot
    // entries: measured on R-MAT, more L1 beat more blocks)
    __shared__ __align__(16) unsigned char s_buf[MP_TILE * sizeof(V) + sizeof(int)];
    __shared__ u64 w_first[BLOCK / 32], w_last[BLOCK / 32]; // a warp's lane 0 and lane 31 keys
    __shared__ V w_sum[BLOCK / 32];
    const size_t total = rows + nnz, d0 = blockIdx.x * (size_t)MP_TILE,
                 d1 = d0 + MP_TILE < total ? d0 + MP_TILE : total;
    const int64_t i0 = (int64_t)tile_row[blockIdx.x], i1 = (int64_t)tile_row[blockIdx.x + 1];
    const int64_t j0 = (int64_t)d0 - i0, nr = i1 - i0, nn = (int64_t)d1 - i1 - j0;
    V *s_prod = (V *)s_buf;
    int *s_end = (int *)(s_buf + nn * sizeof(V));
    for (int64_t k = threadIdx.x; k <= nr; k += BLOCK) {
        int64_t e = i0 + k < (int64_t)rows ? (int64_t)rp[i0 + k + 1] - j0 : nn + 1;
        s_end[k] = (int)(e < nn + 1 ? e : nn + 1);
    }
#pragma unroll
    for (int q = 0; q < IPT; q++) {
        const int k = threadIdx.x + q * BLOCK;
        if (k < nn) {
            // skewed: the matrix is read once, evict-first (.cs), so that it
            // streams past x in the L1 and L2 instead of evicting it
            if constexpr (CS) s_prod[k] = __ldcs(&val[j0 + k]) * __ldg(&x[__ldcs(&col[j0 + k])]);
            else s_prod[k] = val[j0 + k] * __ldg(&x[col[j0 + k]]);
        }
    }
    __syncthreads();

    V acc = 0;
    bool has = false; // acc holds nonzeros of row i0 + i, which goes on past this thread
    int i = 0;
    const int dl = threadIdx.x * IPT, dn = (int)(d1 - d0);
    if (dl < dn) {
        int lo = dl - (int)nn, hi = dl < (int)nr ? dl : (int)nr;
        if (lo < 0) lo = 0;
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            if (s_end[mid] <= dl - mid - 1) lo = mid + 1;
            else hi = mid;
        }
        i = lo;
        int j = dl - lo;
        const int de = dl + IPT < dn ? dl + IPT : dn;
        for (int d = dl; d < de; d++) {
            if (j < s_end[i]) {
                acc += s_prod[j++];
                has = true;
            } else { // row i0 + i ends here: earlier threads' parts are added below
                store_y(y, (size_t)(i0 + i), acc, alpha, beta);
                acc = 0;
                has = false;
                i++;
            }
        }
    }
    // Runs of threads carrying one row: the run's first thread gets the sum
    // of the run's part in its warp (a segmented suffix scan), then of the
    // following warps' parts, in warp order.
    const u64 key = has ? (u64)(i0 + i) : (u64)rows;
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const V part = run_suffix_sum(acc, key);
    const u64 prev = __shfl_up_sync(0xffffffffu, key, 1);
    if (lane == 0) {
        w_first[warp] = key;
        w_sum[warp] = part;
    }
    if (lane == 31) w_last[warp] = key;
    __syncthreads();
    if (threadIdx.x == BLOCK - 1 && key >= rows) brow[blockIdx.x] = rows; // no carry out
    const bool first = key < rows && (lane > 0 ? prev != key : warp == 0 || w_last[warp - 1] != key);
    if (!first) return;
    V s = part;
    unsigned w = warp; // the last warp the run reaches
    while (w_last[w] == key && w + 1 < BLOCK / 32 && w_first[w + 1] == key) s += w_sum[++w];
    if (w == BLOCK / 32 - 1 && w_last[w] == key) { // still open at the tile's end
        brow[blockIdx.x] = key;
        bval[blockIdx.x] = s;
    } else { // the row ended in the thread after the run (stored before the barrier)
        y[key] += alpha * s;
    }
}

// The blocks' carries: those of one row come from consecutive blocks (a row
// longer than a tile); the first of them sums the run in block order and
// adds it once. Deterministic: the same sums in the same order every call.
template <typename V>
__global__ void k_merge_fixup(size_t nblocks, size_t rows, const u64 *brow, const V *bval, V alpha, V *y)
{
    const size_t b = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (b >= nblocks) return;
    const u64 r = brow[b];
    if (r >= rows || (b > 0 && brow[b - 1] == r)) return;
    V s = bval[b];
    for (size_t u = b + 1; u < nblocks && brow[u] == r; u++) s += bval[u];
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

// sell: thread t is sorted row t, lane l of warp k the row l of slice k
// (C = 32: a slice is a warp). Slot s of the slice's 32 rows is contiguous,
// so a warp's load of it is one coalesced run, and the warp loops only to
// its slice's width: rows of one slice have about the same length (sorted
// within their window), so lanes idle little on padding. Padding (column
// -1) is skipped, not multiplied (0 * inf = NaN). A whole warp leaves
// together past the last slice; the last slice's missing rows compute on
// padding and store nothing.
template <typename I, typename V>
__global__ void __launch_bounds__(BLOCK) k_sell(size_t rows, size_t ns, const I *perm, const I *sptr,
                                                const I *scol, const V *sval, const V *x, V alpha, V beta, V *y)
{
    static_assert(SP_SELL_C == 32 && BLOCK % SP_SELL_C == 0, "a slice is a warp");
    const size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x, k = t / SP_SELL_C;
    if (k >= ns) return;
    const int64_t a = (int64_t)sptr[k], w = ((int64_t)sptr[k + 1] - a) / SP_SELL_C;
    const I *c = scol + a + t % SP_SELL_C;
    const V *v = sval + a + t % SP_SELL_C;
    V acc = 0;
#pragma unroll 4
    for (int64_t s = 0; s < w; s++) {
        const I j = c[s * SP_SELL_C];
        if (j >= 0) acc += v[s * SP_SELL_C] * __ldg(&x[j]);
    }
    if (t < rows) store_y(y, (size_t)perm[t], acc, alpha, beta);
}

template <typename I, typename V> cupat_status sell(cupat_ctx *ctx, const spmv_req *q)
{
    const cupat_sparse *A = q->A;
    k_sell<I, V><<<grid_exact(A->sell_ns * SP_SELL_C), BLOCK, 0, ctx->stream>>>(
        A->rows, A->sell_ns, (const I *)A->sell_perm, (const I *)A->sell_ptr, (const I *)A->sell_col,
        (const V *)A->sell_val, (const V *)q->x, (V)q->alpha, (V)q->beta, (V *)q->y);
    return cupat__launched(ctx, "k_sell");
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

// Two configurations, chosen by the row-length statistics (measured on the
// H100, docs/sparse.md): skewed rows (R-MAT) gather x unevenly, its hot
// entries reused many times, so the matrix is read evict-first (.cs) and the
// SM's memory goes mostly to the L1 (a 25% shared carveout: 3-4 blocks an
// SM instead of 8; R-MAT 0.576 -> 0.553 ms); even rows gather x locally and
// want the blocks instead (2D Poisson f64: 0.68 -> 0.70 ms with the small
// carveout, and .cs loads cost 7% there).
template <bool SKEWED, typename I, typename V> cupat_status merge_path_run(cupat_ctx *ctx, const spmv_req *q)
{
    constexpr size_t MP_TILE = (size_t)BLOCK * MP_IPT;
    const cupat_sparse *A = q->A;
    const size_t ntiles = (A->rows + A->nnz + MP_TILE - 1) / MP_TILE;
    if (ntiles > UINT_MAX)
        return cupat__fail(ctx, CUPAT_ERROR_SIZE, "%s: merge_path: %zu tiles exceed a grid", q->fn, ntiles);
    const I *rp = (const I *)A->row_ptr;
    if (!A->mp_tile_row) { // the plan, once a handle (its CSR never changes)
        void *p = NULL;
        cudaError_t e = cudaMalloc(&p, (ntiles + 1) * sizeof(u64));
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            return cupat__fail(ctx, e == cudaErrorMemoryAllocation ? CUPAT_ERROR_OUT_OF_MEMORY : CUPAT_ERROR_CUDA,
                               "%s: merge_path's plan (%zu tiles): cudaMalloc failed: %s", q->fn, ntiles,
                               cudaGetErrorString(e));
        }
        k_merge_search<MP_IPT, I><<<grid_exact(ntiles + 1), BLOCK, 0, ctx->stream>>>(ntiles, A->rows, A->nnz, rp,
                                                                                      (u64 *)p);
        cupat_status s = cupat__launched(ctx, "k_merge_search");
        // complete before the handle shows it: a later call may come on another stream
        if (!s) s = cupat__cuda(ctx, cudaStreamSynchronize(ctx->stream), "merge_path's plan: cudaStreamSynchronize");
        if (s) {
            cudaFree(p);
            return s;
        }
        ((cupat_sparse *)A)->mp_tile_row = p;
    }
    const u64 *tile_row = (const u64 *)A->mp_tile_row;
    void *w;
    CUPAT_TRY(cupat__scratch(ctx, ntiles * (sizeof(u64) + sizeof(V)), &w));
    u64 *brow = (u64 *)w;
    V *bval = (V *)(brow + ntiles);
    V alpha = (V)q->alpha;
    if (SKEWED)
        CUPAT_CUDA_TRY(ctx, cudaFuncSetAttribute(k_merge_path<MP_IPT, true, I, V>,
                                                 cudaFuncAttributePreferredSharedMemoryCarveout, 25));
    k_merge_path<MP_IPT, SKEWED, I, V><<<(unsigned)ntiles, BLOCK, 0, ctx->stream>>>(
        A->rows, A->nnz, tile_row, rp, (const I *)A->col, (const V *)A->val, (const V *)q->x, alpha, (V)q->beta,
        (V *)q->y, brow, bval);
    CUPAT_TRY(cupat__launched(ctx, "k_merge_path"));
    k_merge_fixup<V><<<grid_exact(ntiles), BLOCK, 0, ctx->stream>>>(ntiles, A->rows, brow, bval, alpha, (V *)q->y);
    return cupat__launched(ctx, "k_merge_fixup");
}

template <typename I, typename V> cupat_status merge_path(cupat_ctx *ctx, const spmv_req *q)
{
    return cupat__spmv_skewed(q->A) ? merge_path_run<true, I, V>(ctx, q) : merge_path_run<false, I, V>(ctx, q);
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

cupat_status spmv_kernels(cupat_ctx *ctx, const spmv_req *q)
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
        case SP_SELL: return sell<I, V>(ctx, q);
        default:
            return cupat__fail(ctx, CUPAT_ERROR_INTERNAL, "%s: rung %d has no CUDA kernel", q->fn, q->rung);
        }
    });
}

// x_in_l2: the L2 keeps x while the matrix streams past it. A persisting
// set-aside of the L2 (a device-wide limit, raised to x's size if lower and
// put back after) and an access-policy window over x on the context's
// stream for this call only; the window is cleared and the persisting lines
// made normal again before returning, so later work sees the L2 as before.
cupat_status with_x_in_l2(cupat_ctx *ctx, const spmv_req *q)
{
    int maxp = 0, maxw = 0;
    CUPAT_CUDA_TRY(ctx, cudaDeviceGetAttribute(&maxp, cudaDevAttrMaxPersistingL2CacheSize, ctx->device));
    CUPAT_CUDA_TRY(ctx, cudaDeviceGetAttribute(&maxw, cudaDevAttrMaxAccessPolicyWindowSize, ctx->device));
    if (maxp <= 0 || maxw <= 0) return spmv_kernels(ctx, q); // no persistence on this GPU
    const size_t xb = q->A->cols * q->A->vsz, win = xb < (size_t)maxw ? xb : (size_t)maxw;
    const size_t want = win < (size_t)maxp ? win : (size_t)maxp;
    size_t prev = 0;
    CUPAT_CUDA_TRY(ctx, cudaDeviceGetLimit(&prev, cudaLimitPersistingL2CacheSize));
    if (prev < want) CUPAT_CUDA_TRY(ctx, cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, want));
    cudaStreamAttrValue a;
    memset(&a, 0, sizeof a);
    a.accessPolicyWindow.base_ptr = (void *)q->x;
    a.accessPolicyWindow.num_bytes = win;
    a.accessPolicyWindow.hitRatio = (float)want / (float)win;
    a.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    a.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    cupat_status s = cupat__cuda(ctx, cudaStreamSetAttribute(ctx->stream, cudaStreamAttributeAccessPolicyWindow, &a),
                                 "cudaStreamSetAttribute(access policy window over x)");
    if (!s) s = spmv_kernels(ctx, q);
    // undo in every case, keeping the first error
    a.accessPolicyWindow.num_bytes = 0;
    a.accessPolicyWindow.hitRatio = 0;
    a.accessPolicyWindow.hitProp = cudaAccessPropertyNormal;
    cupat_status u = cupat__cuda(ctx, cudaStreamSetAttribute(ctx->stream, cudaStreamAttributeAccessPolicyWindow, &a),
                                 "cudaStreamSetAttribute(clearing the window)");
    if (!u) u = cupat__cuda(ctx, cudaCtxResetPersistingL2Cache(), "cudaCtxResetPersistingL2Cache");
    if (!u && prev < want) u = cupat__cuda(ctx, cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, prev),
                                           "cudaDeviceSetLimit(persisting L2 back)");
    return s ? s : u;
}

} // namespace

extern "C" cupat_status cupat__sp_spmv_cuda(cupat_ctx *ctx, const spmv_req *q)
{
    return q->x_in_l2 ? with_x_in_l2(ctx, q) : spmv_kernels(ctx, q);
}
