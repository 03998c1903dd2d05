// SPDX-License-Identifier: Apache-2.0
// scan_lookback.cu — the default scan (rung "decoupled") and the segmented
// scans (pattern "segscan"): one pass over the data, decoupled look-back
// (lookback.cuh) for each tile's prefix.
//
// Tile layout: a warp owns 32 x NV 16-byte vectors of V = 16 / sizeof(element)
// elements, loaded warp-striped (vector (j, lane) at position j * 32 + lane of
// the warp's run, so each load instruction of the warp reads 512 contiguous
// bytes). The default scan then transposes them through shared memory
// (thread-blocked: thread `lane` holds the NV V consecutive elements from
// lane * NV V) and
//   1. each thread scans its elements serially (NV V - 1 combines);
//   2. one warp shuffle scan of the thread totals;
//   3. the warp totals (shared memory) folded left to right: warp prefixes
//      and the tile aggregate;
//   4. warp 0 looks back for the tile's prefix; every element gets
//      op(tile prefix, warp prefix, lanes below, its own inclusive value),
//      and the tile goes back through shared memory to striped stores.
// The segmented scans use the same blocked tile. The striped form
// (decoupled_tma, and k_decoupled without BLOCKED) scans in registers
// instead: per vector V - 1 combines, then per j a warp scan of the vector
// totals carried from j to j + 1 (NV warp scans a thread), then 3-4.
// Every combine has a fixed place, so float sums give the same bits run after
// run (the look-back's ORDERED fold makes the tile prefixes a fixed chain).
#include "internal.h"
#include "scan/lookback.cuh"
#include "scan/scan_ops.cuh"
#include "core/cupat_tma.cuh"

#include <cstdint>
#include <cstring>

namespace cupat_scan_dev {

// The plain scan's tile: 128 threads, thread-blocked, 6 vectors a thread for
// 4-byte types (3072 elements, 10 blocks resident an SM), 8 for 8-byte types
// (2048 elements, 8 resident). Measured on the H100 (docs/scan-tuning.md
// section 5, bench/experiments/scan_blocked.cu).
constexpr int SCAN_BLOCK = 128;
template <typename A> struct ScanShape {
    static constexpr int NV = sizeof(A) == 4 ? 6 : 8;
    static constexpr int MINB = sizeof(A) == 4 ? 10 : 8;
    static constexpr int TILE = Shape<A, SCAN_BLOCK, NV>::TILE;
};


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
// Step 5: each element's output from what comes before its vector (pre[j])
// and the inclusive values of the vector (a[j]).
template <int NV, int V, typename A, class Op>
__device__ __forceinline__ void outputs(bool exclusive, const A (&pre)[NV], const A (&a)[NV][V], Op op,
                                        A (&out)[NV][V])
{
#pragma unroll
    for (int j = 0; j < NV; j++) {
        if (exclusive) {
            out[j][0] = pre[j];
#pragma unroll
            for (int k = 1; k < V; k++) out[j][k] = op(pre[j], a[j][k - 1]);
        } else {
#pragma unroll
            for (int k = 0; k < V; k++) out[j][k] = op(pre[j], a[j][k]);
        }
    }
}

// Steps 1-5 on a warp-striped tile in registers: tile scan, look-back,
// outputs, stores (`fast`: store_striped's 16-byte stores).
template <class O, int BLOCK, int NV, typename A, int V>
__device__ __forceinline__ void striped_scan_store(A (&a)[NV][V], LookbackState<A> st, unsigned tile, int exclusive,
                                                   A *y, size_t wbase, size_t n, bool fast)
{
    typename O::F op;
    A pre[NV];
    tile_scan<O::FLOAT_SUM, BLOCK, NV>(a, pre, O::identity(), op, NoHead(), st, tile);
    A out[NV][V];
    outputs(exclusive, pre, a, op, out);
    if (exclusive && tile == 0 && threadIdx.x == 0) out[0][0] = O::first();
    store_striped(y, wbase, n, fast, out);
}

// BLOCKED: the tile is transposed through shared memory (lookback.cuh,
// warp_transpose) so each thread scans NV * V consecutive elements
// serially and one value a thread goes through the warp scan; otherwise the
// warp-striped vectors are scanned in registers (NV warp scans a thread).
template <typename T, int OP, int BLOCK = DC_BLOCK, int NV = DC_NV, bool DYN = false, int MINB = 1,
          bool BLOCKED = false>
__global__ void __launch_bounds__(BLOCK, MINB) k_decoupled(const T *x, T *y, size_t n, int exclusive, int vec,
                                                      LookbackState<typename ScanOp<T, OP>::Acc> st)
{
    typedef ScanOp<T, OP> O;
    typedef typename O::Acc A;
    static_assert(sizeof(A) == sizeof(T), "accumulator is the element's twin");
    typedef Shape<A, BLOCK, NV> SH;
    constexpr int V = SH::V;
    typename O::F op;
    const A id = O::identity();
    const unsigned tile = tile_of_block<DYN>(st.counter);
    const unsigned lane = cupat_dev::lane_id(), w = threadIdx.x / 32;
    const size_t wbase = (size_t)tile * SH::TILE + (size_t)w * SH::WARP_ITEMS;
    const bool fast = vec && (size_t)tile * SH::TILE + SH::TILE <= n;
    const A *xa = (const A *)x;
    A *ya = (A *)y;

    A a[NV][V];
    load_striped(xa, wbase, n, fast, id, a, BLOCKED);
    if constexpr (BLOCKED) {
        __shared__ uint4 buf[SH::NW][Transpose<NV>::SLOTS];
        warp_transpose<true>(a, buf[w]);
        const A pre = tile_scan_blocked<O::FLOAT_SUM, BLOCK>(a, id, op, NoHead(), st, tile);
        if (exclusive) { // element i gets pre + inclusive(i - 1): shift down, last first
#pragma unroll
            for (int j = NV - 1; j >= 0; j--)
#pragma unroll
                for (int k = V - 1; k >= 0; k--)
                    a[j][k] = j + k == 0 ? pre : op(pre, k ? a[j][k - 1] : a[j > 0 ? j - 1 : 0][V - 1]);
            if (tile == 0 && w == 0 && lane == 0) a[0][0] = O::first();
        } else {
#pragma unroll
            for (int j = 0; j < NV; j++)
#pragma unroll
                for (int k = 0; k < V; k++) a[j][k] = op(pre, a[j][k]);
        }
        warp_transpose<false>(a, buf[w]);
        store_striped(ya, wbase, n, fast, a, true);
    } else {
        striped_scan_store<O, BLOCK, NV>(a, st, tile, exclusive, ya, wbase, n, fast);
    }
}

// ---------------------------------------------- persistent, TMA bulk loads --
// The look-back's cost is a wait: a block whose tile waits for its prefix
// holds registers and issues no loads, and the chain of prefixes moves about
// 32 tiles per L2 round trip. This form keeps the DRAM busy through the
// wait: persistent blocks, each tile (48 KiB) brought into shared memory by
// one cp.async.bulk (the TMA engine, no registers held) STAGES tiles ahead,
// completing on an mbarrier; fewer, larger tiles also ask less of the chain.
// (The mbarrier and bulk-copy wrappers: core/cupat_tma.cuh.)
constexpr int TMA_BLOCK = 256, TMA_NV = 6, TMA_STAGES = 2;

template <typename T, int OP, int BLOCK = TMA_BLOCK, int NV = TMA_NV, int STAGES = TMA_STAGES>
__global__ void __launch_bounds__(BLOCK) k_decoupled_tma(const T *x, T *y, size_t n, int exclusive,
                                                          LookbackState<typename ScanOp<T, OP>::Acc> st, unsigned ntiles)
{
    typedef ScanOp<T, OP> O;
    typedef typename O::Acc A;
    typedef Shape<A, BLOCK, NV> SH;
    constexpr int V = SH::V;
    constexpr unsigned TB = SH::TILE * sizeof(A);
    typename O::F op;
    const A id = O::identity();
    extern __shared__ __align__(128) unsigned char stage_mem[];
    __shared__ unsigned long long bar[STAGES];
    const unsigned lane = cupat_dev::lane_id(), w = threadIdx.x / 32, G = gridDim.x;
    const size_t full_tiles = n / SH::TILE;
    const A *xa = (const A *)x;
    A *ya = (A *)y;

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    using namespace cupat_tma;
    auto bulk_load = [&](int s, size_t t) { // tile t into stage s
        bar_expect(smem_addr(&bar[s]), TB);
        load_1d(smem_addr(stage_mem + s * TB), xa + t * SH::TILE, TB, smem_addr(&bar[s]));
    };
    if (threadIdx.x == 0) {
#pragma unroll
        for (int s = 0; s < STAGES; s++) bar_init(smem_addr(&bar[s]), 1);
        bar_init_fence();
#pragma unroll
        for (int s = 0; s < STAGES; s++) {
            size_t t = blockIdx.x + (size_t)s * G;
            if (t < full_tiles) bulk_load(s, t);
        }
    }
    __syncthreads();

    unsigned it = 0;
    for (unsigned tile = blockIdx.x; tile < ntiles; tile += G, it++) {
        const int s = it % STAGES;
        const size_t wbase = (size_t)tile * SH::TILE + (size_t)w * SH::WARP_ITEMS;
        const bool full = tile < full_tiles;
        A a[NV][V];
        if (full) {
            bar_wait(smem_addr(&bar[s]), (it / STAGES) & 1u);
            const uint4 *sv = (const uint4 *)(stage_mem + s * TB) + (size_t)w * 32 * NV;
#pragma unroll
            for (int j = 0; j < NV; j++) {
                uint4 q = sv[j * 32 + lane];
                memcpy(a[j], &q, 16);
            }
        } else {
            load_striped(xa, wbase, n, false, id, a);
        }
        __syncthreads(); // every thread has its values out of stage s
        if (threadIdx.x == 0) {
            size_t next = tile + (size_t)STAGES * G;
            if (next < full_tiles) {
                fence_async_shared(); // the threads' reads of stage s, then the copy engine's write
                bulk_load(s, next);
            }
        }
        striped_scan_store<O, BLOCK, NV>(a, st, tile, exclusive, ya, wbase, n, full);
    }
#else // no copy engine before sm_90: every tile through registers
    (void)full_tiles;
    (void)stage_mem;
    (void)bar;
    for (unsigned tile = blockIdx.x; tile < ntiles; tile += G) {
        const size_t wbase = (size_t)tile * SH::TILE + (size_t)w * SH::WARP_ITEMS;
        A a[NV][V];
        load_striped(xa, wbase, n, false, id, a);
        striped_scan_store<O, BLOCK, NV>(a, st, tile, exclusive, ya, wbase, n, false);
    }
#endif
}

// -------------------------------------------------------- segmented scan --
// Element i starts a segment when i == 0 or (HEADS_FLAGS) flags[i] != 0 or
// (HEADS_KEY*) its key's bits differ from key i - 1's (lookback.cuh:
// flag_bits, key_change_bits).
// Thread-blocked tiles as in the plain scan: values through shared memory,
// each thread's heads read straight from flags or keys at its own
// consecutive elements (a warp's loads still cover whole lines between them).
// SegShape: vectors a thread and resident blocks (H100, docs/scan-tuning.md).
constexpr int SEG_BLOCK = 128;
template <typename A> struct SegShape {
    static constexpr int NV = ScanShape<A>::NV;
    static constexpr int MINB = sizeof(A) == 4 ? 8 : 6;
    static constexpr int TILE = Shape<A, SEG_BLOCK, NV>::TILE;
};

template <typename T, int OP, int NV = SegShape<typename ScanOp<T, OP>::Acc>::NV,
          int MINB = SegShape<typename ScanOp<T, OP>::Acc>::MINB>
__global__ void __launch_bounds__(SEG_BLOCK, MINB)
    k_segscan(const T *x, T *y, size_t n, int exclusive, int heads, int vec, const uint8_t *flags, const void *keys,
              LookbackState<Seg<typename ScanOp<T, OP>::Acc>> st)
{
    typedef ScanOp<T, OP> O;
    typedef typename O::Acc A;
    typedef Seg<A> S;
    typedef Shape<A, SEG_BLOCK, NV> SH;
    constexpr int V = SH::V;
    static_assert(NV * V <= 32, "a thread's heads in one 32-bit mask");
    typename O::F vop;
    const SegOp<typename O::F> op = {vop};
    const S id = {O::identity(), 0u};
    const unsigned tile = tile_of_block<false>(st.counter);
    const unsigned lane = cupat_dev::lane_id(), w = threadIdx.x / 32;
    const size_t wbase = (size_t)tile * SH::TILE + (size_t)w * SH::WARP_ITEMS;
    const size_t e0 = wbase + (size_t)lane * NV * V; // the thread's first element
    const bool full = (size_t)tile * SH::TILE + SH::TILE <= n;
    const bool fast = full && (vec & VEC_DATA), hvec = full && (vec & VEC_HEADS);

    A a[NV][V];
    load_striped((const A *)x, wbase, n, fast, O::identity(), a);
    __shared__ uint4 buf[SH::NW][Transpose<NV>::SLOTS];
    warp_transpose<true>(a, buf[w]);
    // Bit e of hm: the thread's element e starts a segment. Past n: no head.
    unsigned hm = 0;
#pragma unroll
    for (int j = 0; j < NV; j++) {
        const size_t i0 = e0 + (size_t)j * V;
        unsigned h = heads == HEADS_FLAGS  ? flag_bits<V>(flags, i0, n, hvec)
                     : heads == HEADS_KEY4 ? key_change_bits<V, 4>(keys, i0, n, hvec)
                                           : key_change_bits<V, 8>(keys, i0, n, hvec);
        hm |= h << (j * V);
    }
    if (e0 == 0) hm |= 1u;
    // Serial within the thread: a[] becomes the value since the last head
    // (or since the thread's first element); the thread's total carries
    // whether a head is inside.
    A run = a[0][0];
#pragma unroll
    for (int j = 0; j < NV; j++)
#pragma unroll
        for (int k = 0; k < V; k++)
            if (j + k > 0) run = a[j][k] = (hm >> (j * V + k) & 1u) ? a[j][k] : vop(run, a[j][k]);
    S tot[1][1] = {{{run, hm != 0}}};
    const S pre = tile_scan_blocked<O::FLOAT_SUM, SEG_BLOCK>(tot, id, op, SegHead(), st, tile);
    // Element e: op(pre, own) where no head is at or before e in the thread.
    if (exclusive) { // shift down, last first
#pragma unroll
        for (int e = NV * V - 1; e >= 0; e--) {
            A r;
            if (hm >> e & 1u) r = O::first();
            else if (e == 0) r = pre.v;
            else {
                const A prev = a[(e - 1) / V][(e - 1) % V];
                r = (hm & ((1u << e) - 1)) ? prev : vop(pre.v, prev);
            }
            a[e / V][e % V] = r;
        }
    } else {
#pragma unroll
        for (int e = 0; e < NV * V; e++)
            if (!(hm & ((2u << e) - 1))) a[e / V][e % V] = vop(pre.v, a[e / V][e % V]);
    }
    warp_transpose<false>(a, buf[w]);
    store_striped((A *)y, wbase, n, fast, a);
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
        const int vec = aligned16(r->x) && aligned16(r->y);
        if (r->rung == SR_DECOUPLED_TMA && vec) {
            constexpr int TILE = Shape<A, TMA_BLOCK, TMA_NV>::TILE;
            constexpr int SMEM = TMA_STAGES * TILE * (int)sizeof(A);
            CUPAT_TRY(too_big(ctx, r->fn, r->n, TILE));
            unsigned tiles = tiles_of(r->n, TILE);
            LookbackState<A> st;
            CUPAT_TRY(state(ctx, tiles, st));
            auto k = k_decoupled_tma<T, OP>;
            CUPAT_CUDA_TRY(ctx, cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM));
            int nb = 0;
            CUPAT_CUDA_TRY(ctx, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, k, TMA_BLOCK, SMEM));
            unsigned grid = (unsigned)(nb > 0 ? nb : 1) * (unsigned)ctx->sm_count;
            if (grid > tiles) grid = tiles;
            k<<<grid, TMA_BLOCK, SMEM, ctx->stream>>>((const T *)r->x, (T *)r->y, r->n, r->exclusive, st, tiles);
            return cupat__launched(ctx, "k_decoupled_tma");
        }
        typedef ScanShape<A> SS;
        CUPAT_TRY(too_big(ctx, r->fn, r->n, SS::TILE));
        unsigned tiles = tiles_of(r->n, SS::TILE);
        LookbackState<A> st;
        CUPAT_TRY(state(ctx, tiles, st));
        k_decoupled<T, OP, SCAN_BLOCK, SS::NV, false, SS::MINB, true>
            <<<tiles, SCAN_BLOCK, 0, ctx->stream>>>((const T *)r->x, (T *)r->y, r->n, r->exclusive, vec, st);
        return cupat__launched(ctx, "k_decoupled");
    });
}

// Exclusive u64 sum with caller-provided look-back scratch (select.cu's
// scan_scatter rung carves its arrays and this from one allocation).
size_t exclusive_sum_u64_state_bytes(size_t n)
{
    return LookbackState<unsigned long long>::bytes(tiles_of(n, ScanShape<unsigned long long>::TILE));
}
cupat_status exclusive_sum_u64(cupat_ctx *ctx, const unsigned long long *x, unsigned long long *y, size_t n,
                               void *state)
{
    typedef unsigned long long T;
    typedef ScanShape<T> SS;
    unsigned tiles = tiles_of(n, SS::TILE);
    CUPAT_CUDA_TRY(ctx, cudaMemsetAsync(state, 0, exclusive_sum_u64_state_bytes(n), ctx->stream));
    LookbackState<T> st = LookbackState<T>::carve(state);
    int vec = aligned16(x) && aligned16(y);
    k_decoupled<T, OP_SUM, SCAN_BLOCK, SS::NV, false, SS::MINB, true><<<tiles, SCAN_BLOCK, 0, ctx->stream>>>(x, y, n, 1, vec, st);
    return cupat__launched(ctx, "k_decoupled");
}

cupat_status segscan_decoupled(cupat_ctx *ctx, const scan_req *r)
{
    int heads = r->seg == 1 ? HEADS_FLAGS : cupat_type_size(r->key_type) == 4 ? HEADS_KEY4 : HEADS_KEY8;
    return dispatch(r->type, r->op, [&](auto tt, auto oo) -> cupat_status {
        typedef typename decltype(tt)::type T;
        constexpr int OP = decltype(oo)::value;
        typedef typename ScanOp<T, OP>::Acc A;
        constexpr int TILE = SegShape<A>::TILE;
        CUPAT_TRY(too_big(ctx, r->fn, r->n, TILE));
        unsigned tiles = tiles_of(r->n, TILE);
        LookbackState<Seg<A>> st;
        CUPAT_TRY(state(ctx, tiles, st));
        constexpr int V = Shape<A, SEG_BLOCK, SegShape<A>::NV>::V;
        const size_t ks = heads == HEADS_KEY4 ? 4 : 8, kal = V * ks < 16 ? V * ks : 16;
        int vec = aligned16(r->x) && aligned16(r->y) ? VEC_DATA : 0;
        if (heads == HEADS_FLAGS ? (uintptr_t)r->flags % V == 0 : (uintptr_t)r->keys % kal == 0) vec |= VEC_HEADS;
        k_segscan<T, OP><<<tiles, SEG_BLOCK, 0, ctx->stream>>>((const T *)r->x, (T *)r->y, r->n, r->exclusive,
                                                              heads, vec, r->flags, r->keys, st);
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
    if (r->rung != SR_DECOUPLED && r->rung != SR_DECOUPLED_TMA)
        return cupat__fail(ctx, CUPAT_ERROR_INTERNAL, "%s: scan rung %d in scan_lookback.cu", r->fn, r->rung);
    return cupat_scan_dev::scan_decoupled(ctx, r);
}

// Float-sum depth of the look-back rungs (see the file comment). Thread-
// blocked tiles (the default scan): an element passes at most NV V - 1 adds
// in its thread, 5 in the warp scan of the thread totals, NW in the warp fold
// (aggregate or warp prefix), one a tile in the chain of tile prefixes, then
// the three adds that assemble an output (tile prefix + warp prefix, + the
// lanes below, + own value) and one in the look-back's fold (the identity in
// front). Warp-striped tiles (decoupled_tma): V - 1 in the
// vector, 5 in the warp scan, 1 + NV for the carry from vector to vector, and
// the same from the warp fold on.
static size_t lookback_depth(size_t n, size_t esize, size_t block, size_t nv, bool blocked)
{
    size_t v = 16 / esize, nw = block / 32;
    size_t tile = nw * 32 * nv * v;
    size_t tiles = (n + tile - 1) / tile;
    if (blocked) return (nv * v - 1) + 5 + nw + tiles + 3 + 1;
    return (v - 1) + 5 + 1 + nv + nw + tiles + 3 + 1;
}

size_t cupat__scan_depth_cuda(const cupat_ctx *ctx, int rung, cupat_type t, size_t n)
{
    (void)ctx;
    if (n <= 1) return 0;
    size_t es = cupat_type_size(t);
    using cupat_scan_dev::ScanShape;
    size_t nv = es == 4 ? ScanShape<uint32_t>::NV : ScanShape<uint64_t>::NV;
    size_t d = lookback_depth(n, es, cupat_scan_dev::SCAN_BLOCK, nv, true);
    if (rung == SR_DECOUPLED_TMA) { // misaligned data runs the plain kernel: the larger bound
        size_t d2 = lookback_depth(n, es, cupat_scan_dev::TMA_BLOCK, cupat_scan_dev::TMA_NV, false);
        if (d2 > d) d = d2;
    }
    return d;
}

size_t cupat__segscan_depth_cuda(const cupat_ctx *ctx, int rung, cupat_type t, size_t n)
{
    (void)ctx;
    (void)rung;
    using cupat_scan_dev::SegShape;
    size_t es = cupat_type_size(t), nv = es == 4 ? SegShape<uint32_t>::NV : SegShape<uint64_t>::NV;
    return lookback_depth(n, es, cupat_scan_dev::SEG_BLOCK, nv, true);
}

} // extern "C"
