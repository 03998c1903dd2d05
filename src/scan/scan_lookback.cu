// scan_lookback.cu — the default scan (rung "decoupled") and the segmented
// scans (pattern "segscan"): one pass over the data, decoupled look-back
// (lookback.cuh) for each tile's prefix.
//
// Tile layout (warp-striped 16-byte vectors): a warp owns 32 x NV vectors of
// V = 16 / sizeof(element) elements; vector (j, lane) sits at position
// j * 32 + lane of the warp's run, so each load instruction of the warp reads
// 512 contiguous bytes. Scan order inside a warp is therefore: vector by
// vector, lanes 0..31 for j = 0, then for j = 1, ...
//   1. each thread scans its vectors' V elements serially (V - 1 combines);
//   2. per j, a warp shuffle scan of the vector totals (cupat_dev), carried
//      from j to j + 1;
//   3. the warp totals (shared memory) folded left to right: warp prefixes
//      and the tile aggregate;
//   4. warp 0 looks back for the tile's prefix; every element gets
//      op(tile prefix, warp prefix, vector prefix, its own inclusive value).
// Every combine has a fixed place, so float sums give the same bits run after
// run (the look-back's ORDERED fold makes the tile prefixes a fixed chain).
#include "internal.h"
#include "scan/lookback.cuh"
#include "scan/scan_ops.cuh"

#include <cstdint>
#include <cstring>

namespace cupat_scan_dev {

// A segmented value: v since the last head, and whether a head is inside.
// {v, head} in this order, so 8-byte values keep their 12 meaningful bytes in
// front (lookback.cuh's 16-byte status word).
template <typename A> struct Seg {
    A v;
    unsigned head;
};
// The segmented operator (Schwartz 1980): associative, not commutative.
template <class Op> struct SegOp {
    Op op;
    template <typename A> __device__ __forceinline__ Seg<A> operator()(Seg<A> a, Seg<A> b) const
    {
        Seg<A> r;
        r.v = b.head ? b.v : op(a.v, b.v);
        r.head = a.head | b.head;
        return r;
    }
};

// Where the heads of a segmented scan come from.
enum { HEADS_NONE = 0, HEADS_FLAGS = 1, HEADS_KEY4 = 2, HEADS_KEY8 = 3 };

struct SegHead {
    template <typename A> __device__ __forceinline__ bool operator()(const Seg<A> &s) const { return s.head != 0; }
};

// ------------------------------------------------------------ plain scan --
template <typename T, int OP>
__global__ void __launch_bounds__(DC_BLOCK) k_decoupled(const T *x, T *y, size_t n, int exclusive, int vec,
                                                         LookbackState<typename ScanOp<T, OP>::Acc> st)
{
    typedef ScanOp<T, OP> O;
    typedef typename O::Acc A;
    static_assert(sizeof(A) == sizeof(T), "accumulator is the element's twin");
    typedef Shape<A> SH;
    constexpr int V = SH::V;
    typename O::F op;
    const A id = O::identity();
    const unsigned tile = next_tile(st.counter);
    const unsigned lane = cupat_dev::lane_id(), w = threadIdx.x / 32;
    const size_t wbase = (size_t)tile * SH::TILE + (size_t)w * SH::WARP_ITEMS;
    const bool fast = vec && (size_t)tile * SH::TILE + SH::TILE <= n;
    const A *xa = (const A *)x;
    A *ya = (A *)y;

    A a[DC_NV][V];
    if (fast) {
        const uint4 *xv = (const uint4 *)(xa + wbase);
#pragma unroll
        for (int j = 0; j < DC_NV; j++) {
            uint4 q = xv[j * 32 + lane];
            memcpy(a[j], &q, 16);
        }
    } else {
#pragma unroll
        for (int j = 0; j < DC_NV; j++)
#pragma unroll
            for (int k = 0; k < V; k++) {
                size_t i = wbase + (size_t)(j * 32 + lane) * V + k;
                a[j][k] = i < n ? xa[i] : id;
            }
    }
    A pre[DC_NV];
    tile_scan<O::FLOAT_SUM>(a, pre, id, op, NoHead(), st, tile);

    A out[DC_NV][V];
#pragma unroll
    for (int j = 0; j < DC_NV; j++) {
        if (exclusive) {
            out[j][0] = pre[j];
#pragma unroll
            for (int k = 1; k < V; k++) out[j][k] = op(pre[j], a[j][k - 1]);
        } else {
#pragma unroll
            for (int k = 0; k < V; k++) out[j][k] = op(pre[j], a[j][k]);
        }
    }
    if (exclusive && tile == 0 && w == 0 && lane == 0) out[0][0] = O::first();
    if (fast) {
        uint4 *yv = (uint4 *)(ya + wbase);
#pragma unroll
        for (int j = 0; j < DC_NV; j++) {
            uint4 q;
            memcpy(&q, out[j], 16);
            yv[j * 32 + lane] = q;
        }
    } else {
#pragma unroll
        for (int j = 0; j < DC_NV; j++)
#pragma unroll
            for (int k = 0; k < V; k++) {
                size_t i = wbase + (size_t)(j * 32 + lane) * V + k;
                if (i < n) ya[i] = out[j][k];
            }
    }
}

// -------------------------------------------------------- segmented scan --
// Element i starts a segment when i == 0 or (HEADS_FLAGS) flags[i] != 0 or
// (HEADS_KEY*) its key's bits differ from key i - 1's.
__device__ __forceinline__ unsigned head_at(int heads, const uint8_t *flags, const void *keys, size_t i)
{
    if (i == 0) return 1u;
    switch (heads) {
    case HEADS_FLAGS: return flags[i] != 0;
    case HEADS_KEY4: return ((const uint32_t *)keys)[i] != ((const uint32_t *)keys)[i - 1];
    default: return ((const uint64_t *)keys)[i] != ((const uint64_t *)keys)[i - 1];
    }
}

template <typename T, int OP>
__global__ void __launch_bounds__(DC_BLOCK)
    k_segscan(const T *x, T *y, size_t n, int exclusive, int heads, const uint8_t *flags, const void *keys,
              LookbackState<Seg<typename ScanOp<T, OP>::Acc>> st)
{
    typedef ScanOp<T, OP> O;
    typedef typename O::Acc A;
    typedef Seg<A> S;
    // The value vectors set the shape: V elements of A per 16 bytes.
    constexpr int V = Shape<A>::V;
    constexpr int WARP_ITEMS = Shape<A>::WARP_ITEMS, TILE = Shape<A>::TILE;
    SegOp<typename O::F> op;
    const S id = {O::identity(), 0u};
    const unsigned tile = next_tile(st.counter);
    const unsigned lane = cupat_dev::lane_id(), w = threadIdx.x / 32;
    const size_t wbase = (size_t)tile * TILE + (size_t)w * WARP_ITEMS;
    const A *xa = (const A *)x;
    A *ya = (A *)y;

    // Each thread's data vectors are scanned serially here (the head bits
    // kept in `hm`); tile_scan then gets one row per vector holding only the
    // vector's total, and returns what comes before each vector.
    constexpr int SV = Shape<S>::V;
    S s[DC_NV][V];
    unsigned hm = 0;
#pragma unroll
    for (int j = 0; j < DC_NV; j++)
#pragma unroll
        for (int k = 0; k < V; k++) {
            size_t i = wbase + (size_t)(j * 32 + lane) * V + k;
            S e = id;
            if (i < n) {
                e.v = xa[i];
                e.head = head_at(heads, flags, keys, i);
                hm |= e.head << (j * V + k);
            }
            s[j][k] = k == 0 ? e : op(s[j][k - 1], e); // inclusive within the vector
        }
    S tot[DC_NV][SV];
#pragma unroll
    for (int j = 0; j < DC_NV; j++) {
#pragma unroll
        for (int k = 0; k < SV - 1; k++) tot[j][k] = id;
        tot[j][SV - 1] = s[j][V - 1];
    }
    S pre[DC_NV];
    tile_scan<O::FLOAT_SUM>(tot, pre, id, op, SegHead(), st, tile);

#pragma unroll
    for (int j = 0; j < DC_NV; j++)
#pragma unroll
        for (int k = 0; k < V; k++) {
            size_t i = wbase + (size_t)(j * 32 + lane) * V + k;
            if (i >= n) continue;
            A o;
            if (!exclusive) o = op(pre[j], s[j][k]).v;
            else if (hm >> (j * V + k) & 1u) o = O::first();
            else o = (k == 0 ? pre[j] : op(pre[j], s[j][k - 1])).v;
            ya[i] = o;
        }
}

// ------------------------------------------------------------- launchers --
static unsigned tiles_of(size_t n, size_t tile) { return (unsigned)((n + tile - 1) / tile); }

template <typename A>
static cupat_status state(cupat_ctx *ctx, unsigned tiles, LookbackState<A> &st)
{
    size_t bytes = LookbackState<A>::bytes(tiles);
    void *p;
    CUPAT_TRY(cupat__scratch(ctx, bytes, &p));
    CUPAT_CUDA_TRY(ctx, cudaMemsetAsync(p, 0, bytes, ctx->stream));
    st = LookbackState<A>::carve(p);
    return CUPAT_SUCCESS;
}

static int aligned16(const void *p) { return ((uintptr_t)p & 15) == 0; }

// Tiles are counted in unsigned: n up to 2^32 tiles of thousands of elements.
static cupat_status too_big(cupat_ctx *ctx, const char *fn, size_t n, size_t tile)
{
    if ((n + tile - 1) / tile > 0x7fffffffu)
        return cupat__fail(ctx, CUPAT_ERROR_SIZE, "%s: n = %zu is beyond %zu elements", fn, n,
                           (size_t)0x7fffffffu * tile);
    return CUPAT_SUCCESS;
}

cupat_status scan_decoupled(cupat_ctx *ctx, const scan_req *r)
{
    return dispatch(r->type, r->op, [&](auto tt, auto oo) -> cupat_status {
        typedef typename decltype(tt)::type T;
        constexpr int OP = decltype(oo)::value;
        typedef typename ScanOp<T, OP>::Acc A;
        constexpr int TILE = Shape<A>::TILE;
        CUPAT_TRY(too_big(ctx, r->fn, r->n, TILE));
        unsigned tiles = tiles_of(r->n, TILE);
        LookbackState<A> st;
        CUPAT_TRY(state(ctx, tiles, st));
        int vec = aligned16(r->x) && aligned16(r->y);
        k_decoupled<T, OP><<<tiles, DC_BLOCK, 0, ctx->stream>>>((const T *)r->x, (T *)r->y, r->n, r->exclusive,
                                                                vec, st);
        return cupat__launched(ctx, "k_decoupled");
    });
}

// Exclusive u64 sum with caller-provided look-back scratch (select.cu's
// scan_scatter rung carves its arrays and this from one allocation).
size_t exclusive_sum_u64_state_bytes(size_t n)
{
    return LookbackState<unsigned long long>::bytes(tiles_of(n, Shape<unsigned long long>::TILE));
}
cupat_status exclusive_sum_u64(cupat_ctx *ctx, const unsigned long long *x, unsigned long long *y, size_t n,
                               void *state)
{
    typedef unsigned long long T;
    unsigned tiles = tiles_of(n, Shape<T>::TILE);
    CUPAT_CUDA_TRY(ctx, cudaMemsetAsync(state, 0, exclusive_sum_u64_state_bytes(n), ctx->stream));
    LookbackState<T> st = LookbackState<T>::carve(state);
    int vec = aligned16(x) && aligned16(y);
    k_decoupled<T, OP_SUM><<<tiles, DC_BLOCK, 0, ctx->stream>>>(x, y, n, 1, vec, st);
    return cupat__launched(ctx, "k_decoupled");
}

cupat_status segscan_decoupled(cupat_ctx *ctx, const scan_req *r)
{
    int heads = r->seg == 1 ? HEADS_FLAGS : cupat_type_size(r->key_type) == 4 ? HEADS_KEY4 : HEADS_KEY8;
    return dispatch(r->type, r->op, [&](auto tt, auto oo) -> cupat_status {
        typedef typename decltype(tt)::type T;
        constexpr int OP = decltype(oo)::value;
        typedef typename ScanOp<T, OP>::Acc A;
        constexpr int TILE = Shape<A>::TILE;
        CUPAT_TRY(too_big(ctx, r->fn, r->n, TILE));
        unsigned tiles = tiles_of(r->n, TILE);
        LookbackState<Seg<A>> st;
        CUPAT_TRY(state(ctx, tiles, st));
        k_segscan<T, OP><<<tiles, DC_BLOCK, 0, ctx->stream>>>((const T *)r->x, (T *)r->y, r->n, r->exclusive,
                                                              heads, r->flags, r->keys, st);
        return cupat__launched(ctx, "k_segscan");
    });
}

} // namespace cupat_scan_dev

extern "C" {

cupat_status cupat__scan_cuda(cupat_ctx *ctx, const scan_req *r)
{
    if (r->seg) {
        if (r->rung != SG_DECOUPLED)
            return cupat__fail(ctx, CUPAT_ERROR_INTERNAL, "%s: segscan rung %d on CUDA", r->fn, r->rung);
        return cupat_scan_dev::segscan_decoupled(ctx, r);
    }
    if (r->rung != SR_DECOUPLED)
        return cupat__fail(ctx, CUPAT_ERROR_INTERNAL, "%s: scan rung %d in scan_lookback.cu", r->fn, r->rung);
    return cupat_scan_dev::scan_decoupled(ctx, r);
}

// Float-sum depth of the decoupled rung (see the file comment): an element
// passes at most V - 1 adds in its vector, 5 in the warp scan, 1 + DC_NV for
// the carry from vector to vector, NW for the warp fold (aggregate or warp
// prefix), one a tile in the chain of tile prefixes, then the three adds that
// assemble an output (tile prefix + warp prefix, + vector prefix, + own value)
// and one in the look-back's fold (the identity in front).
size_t cupat__scan_depth_cuda(const cupat_ctx *ctx, int rung, cupat_type t, size_t n)
{
    (void)ctx;
    (void)rung;
    if (n <= 1) return 0;
    size_t v = 16 / cupat_type_size(t), nw = cupat_scan_dev::DC_BLOCK / 32;
    size_t tile = nw * 32 * cupat_scan_dev::DC_NV * v;
    size_t tiles = (n + tile - 1) / tile;
    return (v - 1) + 5 + 1 + cupat_scan_dev::DC_NV + nw + tiles + 3 + 1;
}

size_t cupat__segscan_depth(const cupat_ctx *ctx, int rung, cupat_type t, size_t n)
{
    if (n <= 1) return 0;
    if (rung != SG_DECOUPLED) return n; /* CPU rungs: serial within segments */
    return cupat__scan_depth_cuda(ctx, SR_DECOUPLED, t, n);
}

} // extern "C"
