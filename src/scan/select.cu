// SPDX-License-Identifier: Apache-2.0
// select.cu — stream compaction (pattern "select"): cupat_select,
// cupat_partition, cupat_unique on the GPU.
//   scan_scatter  the textbook pipeline: keep-flags as u64 counts, an
//                 exclusive scan of them (the default scan), a scatter
//   decoupled     one pass: each thread's keep bits, popc counts, the tile
//                 scan and look-back of scan_lookback.cu (UNORDERED: counts
//                 are exact), kept elements written at their rank
// Partition writes element i, when not kept, at K + (i - kept before i),
// with K the total kept, counted first by k_count (one read of the flags or
// of x): stable on both sides.
#include "internal.h"
#include "scan/lookback.cuh"
#include "scan/scan_ops.cuh"

#include <cstdint>
#include <cstring>

namespace cupat_scan_dev {

constexpr int SE_BLOCK = 256;

typedef unsigned long long u64;

// What decides whether element i stays.
struct Keep {
    const uint8_t *flags; // non-NULL: flags[i] != 0
    int mode;             // 0 select, 1 partition, 2 unique
    int kind;             // predicate kind when flags is NULL and mode != 2
    cupat_value a, b;
};

template <typename T> __device__ __forceinline__ T val_of(const cupat_value &v);
template <> __device__ __forceinline__ float val_of<float>(const cupat_value &v) { return v.f32; }
template <> __device__ __forceinline__ double val_of<double>(const cupat_value &v) { return v.f64; }
template <> __device__ __forceinline__ int32_t val_of<int32_t>(const cupat_value &v) { return v.i32; }
template <> __device__ __forceinline__ uint32_t val_of<uint32_t>(const cupat_value &v) { return v.u32; }
template <> __device__ __forceinline__ int64_t val_of<int64_t>(const cupat_value &v) { return v.i64; }
template <> __device__ __forceinline__ uint64_t val_of<uint64_t>(const cupat_value &v) { return v.u64; }

// f(keep) with keep(v) the predicate of kp as a functor of its own kind:
// a kernel that branches on the kind once keeps only that kind's operands.
template <typename T, class F> __device__ __forceinline__ void with_pred(const Keep &kp, F f)
{
    const T a = val_of<T>(kp.a), b = val_of<T>(kp.b);
    switch (kp.kind) {
    case CUPAT_PRED_NONZERO: f([](T v) { return v != T(0); }); break; // NaN != 0: kept
    case CUPAT_PRED_LESS: f([a](T v) { return v < a; }); break;
    case CUPAT_PRED_GREATER: f([a](T v) { return v > a; }); break;
    default: f([a, b](T v) { return a <= v && v < b; });
    }
}
template <typename T> __device__ __forceinline__ bool pred(const Keep &kp, T v)
{
    bool r = false;
    with_pred<T>(kp, [&](auto keep) { r = keep(v); });
    return r;
}

// Bits of an element, for unique's comparison and for moving it.
template <typename T> struct Bits {
    typedef typename std::conditional<sizeof(T) == 4, uint32_t, uint64_t>::type type;
};

template <typename T> __device__ __forceinline__ bool keep_at(const Keep &kp, const T *x, size_t i)
{
    if (kp.mode == 2) {
        if (i == 0) return true;
        typedef typename Bits<T>::type U;
        return ((const U *)x)[i] != ((const U *)x)[i - 1];
    }
    if (kp.flags) return kp.flags[i] != 0;
    return pred<T>(kp, x[i]);
}

// ------------------------------------------------------------ k_count --
// Total kept into *total (zeroed before): grid-stride, per-block reduce, one
// atomic per block (integers: any order gives the same count).
template <typename T> __global__ void __launch_bounds__(SE_BLOCK) k_count(const T *x, size_t n, Keep kp, u64 *total)
{
    u64 c = 0;
    for (size_t i = (size_t)blockIdx.x * SE_BLOCK + threadIdx.x; i < n; i += (size_t)gridDim.x * SE_BLOCK)
        c += keep_at<T>(kp, x, i);
    c = cupat_dev::block_reduce<SE_BLOCK>(c, cupat_dev::OpSum());
    if (threadIdx.x == 0 && c) atomicAdd(total, c);
}

// --------------------------------------------------------- k_decoupled --
// One tile: the elements as bits (load_striped: 16-byte loads), a keep bit
// each, ranks from ballots (an element's rank in its warp: the kept ones in
// the warp's earlier vector rows, in the lanes below in its row, and before
// it in its vector), warp counts folded in shared memory, the tile's count
// looked back (UNORDERED u64: counts are exact). Kept elements go to shared
// memory at their rank in the tile while warp 0 looks back (for partition,
// the others after them), then out in contiguous runs: coalesced stores
// instead of one scattered store per element.
constexpr int SEL_BLOCK = 128, SEL_NV = 6, SEL_MINB = 10;

template <typename T, int NV = SEL_NV, int MINB = SEL_MINB>
__global__ void __launch_bounds__(SEL_BLOCK, MINB)
    k_select(const T *x, T *y, size_t n, Keep kp, int vec, const u64 *kept_total, u64 *count, LookbackState<u64> st)
{
    typedef typename Bits<T>::type U;
    constexpr int V = 16 / sizeof(T), NW = SEL_BLOCK / 32, WARP_ITEMS = 32 * NV * V, TILE = NW * WARP_ITEMS;
    static_assert(NV * V <= 32, "a thread's keep bits in one word");
    __shared__ U buf[TILE];
    __shared__ unsigned wcount[NW];
    __shared__ u64 tile_pre;
    const unsigned tile = tile_of_block<false>(st.counter);
    const unsigned lane = cupat_dev::lane_id(), w = threadIdx.x / 32;
    const size_t tbase = (size_t)tile * TILE;
    const size_t wbase = tbase + (size_t)w * WARP_ITEMS;
    const bool full = tbase + TILE <= n;
    const U *xu = (const U *)x;

    U a[NV][V];
    load_striped(xu, wbase, n, full && (vec & VEC_DATA), U(0), a);
    // keep bits, bit j * V + k; each mode (and predicate kind) its own loop,
    // chosen once: one loop for all kinds holds every kind's operands live
    unsigned km = 0;
    auto each = [&](auto keep) {
#pragma unroll
        for (int j = 0; j < NV; j++) {
            const size_t i0 = wbase + (size_t)(j * 32 + lane) * V;
#pragma unroll
            for (int k = 0; k < V; k++) {
                T v;
                memcpy(&v, &a[j][k], sizeof(T));
                if (i0 + k < n && keep(v)) km |= 1u << (j * V + k);
            }
        }
    };
    if (kp.mode == 2) { // unique: bits differ from the element before
#pragma unroll
        for (int j = 0; j < NV; j++) {
            const size_t i0 = wbase + (size_t)(j * 32 + lane) * V;
            // before a vector: the lane below's last element; lane 0: the
            // previous row's lane 31 (row 0: memory, one element)
            const U up = cupat_dev::shfl_up(a[j][V - 1], 1);
            const U row_end = j > 0 ? cupat_dev::shfl(a[j > 0 ? j - 1 : 0][V - 1], 31) : U(0);
            U prev = lane ? up : row_end;
            if (j == 0 && lane == 0 && i0 > 0 && i0 < n) prev = xu[i0 - 1];
#pragma unroll
            for (int k = 0; k < V; k++) {
                const U p = k ? a[j][k - 1] : prev;
                if (i0 + k < n && (i0 + k == 0 || a[j][k] != p)) km |= 1u << (j * V + k);
            }
        }
    } else if (kp.flags) {
#pragma unroll
        for (int j = 0; j < NV; j++)
            km |= flag_bits<V>(kp.flags, wbase + (size_t)(j * 32 + lane) * V, n, full && (vec & VEC_HEADS)) << (j * V);
    } else {
        with_pred<T>(kp, each);
    }
    // Ranks in the warp, from one ballot per (row, slot).
    const unsigned lt = cupat_dev::lanemask_lt();
    unsigned below[NV], wtot = 0;
#pragma unroll
    for (int j = 0; j < NV; j++) {
        unsigned lo = 0, row = 0;
#pragma unroll
        for (int k = 0; k < V; k++) {
            const unsigned b = __ballot_sync(cupat_dev::FULL_MASK, km >> (j * V + k) & 1u);
            lo += __popc(b & lt);
            row += __popc(b);
        }
        below[j] = wtot + lo;
        wtot += row;
    }
    if (lane == 0) wcount[w] = wtot;
    __syncthreads();
    unsigned woff = 0, c = 0; // kept in the warps before this one; in the tile
#pragma unroll
    for (int q = 0; q < NW; q++) {
        woff += q < (int)w ? wcount[q] : 0u;
        c += wcount[q];
    }
    const unsigned m = n - tbase < (size_t)TILE ? (unsigned)(n - tbase) : (unsigned)TILE; // elements in the tile
    auto scatter = [&] {
#pragma unroll
        for (int j = 0; j < NV; j++) {
            unsigned r = woff + below[j];
#pragma unroll
            for (int k = 0; k < V; k++) {
                const unsigned li = (w * 32 * NV + j * 32 + lane) * V + k; // position in the tile
                if (km >> (j * V + k) & 1u) buf[r++] = a[j][k];
                else if (kp.mode == 1 && li < m) buf[c + (li - r)] = a[j][k];
            }
        }
    };
    if (w == 0) { // publishes the count first, scatters while the predecessors publish
        const u64 excl = lookback<false>(st, tile, (u64)c, (u64)0, cupat_dev::OpSum(), NoHead(), scatter);
        if (lane == 0) tile_pre = excl;
    } else {
        scatter();
    }
    __syncthreads();
    const u64 P = tile_pre; // kept before the tile
    U *yu = (U *)y;
    for (unsigned i = threadIdx.x; i < c; i += SEL_BLOCK) yu[P + i] = buf[i];
    if (kp.mode == 1) { // the others: after all K kept ones, in order
        const u64 q0 = *kept_total + (tbase - P);
        for (unsigned i = c + threadIdx.x; i < m; i += SEL_BLOCK) yu[q0 + (i - c)] = buf[i];
    }
    if (tile == gridDim.x - 1 && threadIdx.x == 0) *count = P + c;
}

// ---------------------------------------------------------- scan_scatter --
template <typename T> __global__ void __launch_bounds__(SE_BLOCK) k_keep(const T *x, size_t n, Keep kp, u64 *keep)
{
    for (size_t i = (size_t)blockIdx.x * SE_BLOCK + threadIdx.x; i < n; i += (size_t)gridDim.x * SE_BLOCK)
        keep[i] = keep_at<T>(kp, x, i);
}

template <typename T>
__global__ void __launch_bounds__(SE_BLOCK)
    k_scatter(const T *x, T *y, size_t n, Keep kp, const u64 *keep, const u64 *off, u64 *count)
{
    const u64 K = off[n - 1] + keep[n - 1];
    for (size_t i = (size_t)blockIdx.x * SE_BLOCK + threadIdx.x; i < n; i += (size_t)gridDim.x * SE_BLOCK) {
        if (keep[i]) y[off[i]] = x[i];
        else if (kp.mode == 1) y[K + (i - off[i])] = x[i];
        if (i == n - 1) *count = K;
    }
}

// ------------------------------------------------------------- launcher --
static Keep keep_of(const select_req *r)
{
    Keep kp;
    memset(&kp, 0, sizeof kp);
    kp.flags = r->flags;
    kp.mode = r->mode;
    kp.kind = r->use_pred ? (int)r->pred.kind : 0;
    kp.a = r->pred.a;
    kp.b = r->pred.b;
    return kp;
}

static unsigned grid_for(cupat_ctx *ctx, size_t n)
{
    size_t g = (n + SE_BLOCK - 1) / SE_BLOCK, cap = (size_t)ctx->sm_count * 8;
    return (unsigned)(g < cap ? g : cap);
}

template <typename T> static cupat_status run_select(cupat_ctx *ctx, const select_req *r)
{
    constexpr int TILE = SEL_BLOCK * SEL_NV * (16 / sizeof(T));
    const T *x = (const T *)r->x;
    T *y = (T *)r->y;
    const size_t n = r->n;
    Keep kp = keep_of(r);
    // scratch: [0, 256) counts (total kept, count for a host result) | the
    // rung's arrays, 256-byte aligned
    size_t tiles = (n + TILE - 1) / TILE;
    if (tiles > 0x7fffffffu)
        return cupat__fail(ctx, CUPAT_ERROR_SIZE, "%s: n = %zu is too large", r->fn, n);
    size_t body = 0;
    if (r->rung == SL_SCAN_SCATTER) {
        size_t arr = ((n * sizeof(u64)) + 255) / 256 * 256;
        body = 2 * arr + exclusive_sum_u64_state_bytes(n);
    } else {
        body = LookbackState<u64>::bytes(tiles);
    }
    void *p;
    CUPAT_TRY(cupat__scratch(ctx, 256 + body, &p));
    u64 *hdr = (u64 *)p;
    char *b = (char *)p + 256;
    CUPAT_CUDA_TRY(ctx, cudaMemsetAsync(hdr, 0, 256, ctx->stream));
    u64 *count = r->count_host ? hdr + 1 : (u64 *)r->count;
    if (n == 0) {
        CUPAT_CUDA_TRY(ctx, cudaMemsetAsync(count, 0, sizeof(u64), ctx->stream));
    } else if (r->rung == SL_SCAN_SCATTER) {
        size_t arr = ((n * sizeof(u64)) + 255) / 256 * 256;
        u64 *keep = (u64 *)b, *off = (u64 *)(b + arr);
        unsigned g = grid_for(ctx, n);
        k_keep<T><<<g, SE_BLOCK, 0, ctx->stream>>>(x, n, kp, keep);
        CUPAT_TRY(cupat__launched(ctx, "k_keep"));
        CUPAT_TRY(exclusive_sum_u64(ctx, keep, off, n, b + 2 * arr));
        k_scatter<T><<<g, SE_BLOCK, 0, ctx->stream>>>(x, y, n, kp, keep, off, count);
        CUPAT_TRY(cupat__launched(ctx, "k_scatter"));
    } else {
        if (r->mode == 1) {
            k_count<T><<<grid_for(ctx, n), SE_BLOCK, 0, ctx->stream>>>(x, n, kp, hdr);
            CUPAT_TRY(cupat__launched(ctx, "k_count"));
        }
        CUPAT_CUDA_TRY(ctx, cudaMemsetAsync(b, 0, body, ctx->stream));
        LookbackState<u64> st = LookbackState<u64>::carve(b);
        int vec = ((uintptr_t)x & 15) == 0 ? VEC_DATA : 0;
        if ((uintptr_t)r->flags % (16 / sizeof(T)) == 0) vec |= VEC_HEADS;
        k_select<T><<<(unsigned)tiles, SEL_BLOCK, 0, ctx->stream>>>(x, y, n, kp, vec, hdr, count, st);
        CUPAT_TRY(cupat__launched(ctx, "k_select"));
    }
    if (r->count_host) {
        CUPAT_CUDA_TRY(ctx, cudaMemcpyAsync(r->count, count, sizeof(u64), cudaMemcpyDeviceToHost, ctx->stream));
        CUPAT_CUDA_TRY(ctx, cudaStreamSynchronize(ctx->stream));
    }
    return CUPAT_SUCCESS;
}

} // namespace cupat_scan_dev

extern "C" cupat_status cupat__select_cuda(cupat_ctx *ctx, const select_req *r)
{
    using namespace cupat_scan_dev;
    switch (r->type) {
    case CUPAT_F32: return run_select<float>(ctx, r);
    case CUPAT_F64: return run_select<double>(ctx, r);
    case CUPAT_I32: return run_select<int32_t>(ctx, r);
    case CUPAT_U32: return run_select<uint32_t>(ctx, r);
    case CUPAT_I64: return run_select<int64_t>(ctx, r);
    case CUPAT_U64: return run_select<uint64_t>(ctx, r);
    }
    return cupat__fail(ctx, CUPAT_ERROR_INTERNAL, "%s: type %d", r->fn, (int)r->type);
}
