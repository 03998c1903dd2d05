// SPDX-License-Identifier: Apache-2.0
// scan_multi.cu — the beyond-the-books rungs of the "scan" ladder that take
// more than one pass or a grid-wide barrier, and their launchers:
//
//   k_shfl_tiles, k_shfl_add   SR_WARP_SHFL: warp-shuffle block scan,
//                              hierarchical like PMPP 11.6
//   k_rts_reduce, k_rts_spine, SR_REDUCE_THEN_SCAN: reduce the chunks, scan
//   k_rts_scan                 the chunk sums, rescan each chunk from its
//                              prefix (Merrill & Grimshaw 2009)
//   k_coop                     SR_COOP_GRID: the same three phases in one
//                              cooperative launch, grid.sync() between them
//                              (CUDA Guide, cooperative groups)
//
// They share one tile: SB threads, each holding V = 16 / sizeof(T)
// consecutive elements (one 16-byte vector: a warp reads 512 contiguous
// bytes), scanned serially in the thread, then across the block by core's
// warp-shuffle block scan (cupat_dev::block_exclusive_scan: Kogge-Stone by
// shuffles in each warp, then over the warp totals). 16-byte accesses where
// the pointer is 16-byte aligned, element accesses otherwise (pointers need
// only be aligned to the element) and in a partial tile's tail.
//
// In place works: a tile is read whole into registers before the block
// barrier inside the block scan and written after it, by the same block;
// a pass that rereads x (reduce-then-scan, cooperative) reads only chunks
// its own block writes later. Every grid is fixed by n and the device, every
// tree by the template arguments: same bits run after run.
#include "scan/scan_book.cuh"

#include <cooperative_groups.h>

using namespace cupat_scanbook;
using namespace cupat_scanbook_dev;
namespace cg = cooperative_groups;

namespace {

constexpr int SB = 512; // threads a block

template <typename T, int OP> struct Tile {
    typedef ScanOp<T, OP> S;
    typedef typename S::Acc Acc;
    static_assert(sizeof(Acc) == sizeof(T), "accumulator of the element's size");
    static constexpr int V = 16 / (int)sizeof(T);
    static constexpr unsigned TILE = SB * V;

    Acc a[V];  // after load: the elements; after scan: the thread-inclusive scan
    Acc excl;  // after scan: the thread's block-exclusive prefix (identity in thread 0)
    Acc total; // after scan: the tile's total, in every thread

    // Elements [base + tV, base + tV + V) of x, identity past n.
    __device__ __forceinline__ void load(const T *x, size_t n, size_t base, bool vec)
    {
        const size_t i = base + (size_t)threadIdx.x * V;
        if (vec && i + V <= n) {
            const uint4 u = *reinterpret_cast<const uint4 *>(x + i);
            T v[V];
            memcpy(v, &u, 16);
#pragma unroll
            for (int q = 0; q < V; q++) a[q] = lift<S>((Acc)v[q]);
        } else {
#pragma unroll
            for (int q = 0; q < V; q++) a[q] = ld_elem<S>(x, n, i + q);
        }
    }

    // Serial scan of the thread's V elements, then the block scan of the
    // thread totals. Every thread of the block calls (barriers inside).
    __device__ __forceinline__ void scan()
    {
#pragma unroll
        for (int q = 1; q < V; q++) a[q] = S::comb(a[q - 1], a[q]);
        excl = cupat_dev::block_exclusive_scan<SB>(a[V - 1], typename S::F(), S::identity(), total);
    }

    // Output q of the thread: the thread-local value (a[q], or a[q-1] for an
    // exclusive scan) behind the thread's prefix, behind the carry.
    __device__ __forceinline__ Acc out(int q, bool ex, bool has_carry, Acc carry, Acc empty) const
    {
        const bool t0 = threadIdx.x == 0;
        Acc v;
        bool has;
        if (!ex) {
            v = a[q];
            has = true;
        } else if (q > 0) {
            v = a[q - 1];
            has = true;
        } else {
            v = empty;
            has = false;
        }
        if (!t0) {
            v = has ? S::comb(excl, v) : excl;
            has = true;
        }
        return join<S>(has_carry, carry, has, v, empty);
    }

    __device__ __forceinline__ void store(T *y, size_t n, size_t base, bool vec, bool ex, bool has_carry,
                                          Acc carry, Acc empty) const
    {
        const size_t i = base + (size_t)threadIdx.x * V;
        if (vec && i + V <= n) {
            T v[V];
#pragma unroll
            for (int q = 0; q < V; q++) v[q] = (T)out(q, ex, has_carry, carry, empty);
            uint4 u;
            memcpy(&u, v, 16);
            *reinterpret_cast<uint4 *>(y + i) = u;
        } else {
#pragma unroll
            for (int q = 0; q < V; q++)
                if (i + q < n) y[i + q] = (T)out(q, ex, has_carry, carry, empty);
        }
    }
};

// ------------------------------------------------------------ warp_shfl --
// SR_WARP_SHFL, kernel 1 (as PMPP 11.6's, with the warp-shuffle tile): scan
// each tile, write it tile-local (exclusive: shifted by one, a tile's first
// slot the identity, y[0] ScanOp::first()), its total to sums[b]. Also the
// scan of the totals one level up (in place, inclusive), down to one tile.
template <typename T, int OP>
__global__ void __launch_bounds__(SB)
    k_shfl_tiles(const T *x, T *y, size_t n, size_t ntiles, typename ScanOp<T, OP>::Acc *sums, int excl)
{
    typedef Tile<T, OP> TL;
    typedef typename TL::S S;
    const bool vx = aligned16(x), vy = aligned16(y);
    for (size_t b = blockIdx.x; b < ntiles; b += gridDim.x) {
        const size_t base = b * TL::TILE;
        TL tl;
        tl.load(x, n, base, vx);
        tl.scan();
        tl.store(y, n, base, vy, excl != 0, false, S::identity(), b == 0 ? S::first() : S::identity());
        if (sums && threadIdx.x == 0) sums[b] = tl.total;
    }
}

// Kernel 3: tile b > 0 gets the inclusive scan of the totals before it.
template <typename T, int OP>
__global__ void __launch_bounds__(SB)
    k_shfl_add(T *y, size_t n, size_t ntiles, const typename ScanOp<T, OP>::Acc *sums)
{
    typedef Tile<T, OP> TL;
    typedef typename TL::S S;
    typedef typename TL::Acc Acc;
    constexpr int V = TL::V;
    const bool vy = aligned16(y);
    for (size_t b = (size_t)blockIdx.x + 1; b < ntiles; b += gridDim.x) {
        const Acc pre = sums[b - 1];
        const size_t i = b * TL::TILE + (size_t)threadIdx.x * V;
        if (vy && i + V <= n) {
            uint4 u = *reinterpret_cast<const uint4 *>(y + i);
            T v[V];
            memcpy(v, &u, 16);
#pragma unroll
            for (int q = 0; q < V; q++) v[q] = (T)S::comb(pre, (Acc)v[q]);
            memcpy(&u, v, 16);
            *reinterpret_cast<uint4 *>(y + i) = u;
        } else {
#pragma unroll
            for (int q = 0; q < V; q++)
                if (i + q < n) y[i + q] = (T)S::comb(pre, (Acc)y[i + q]);
        }
    }
}

// ------------------------------------------------------ reduce-then-scan --
// The grid is G blocks; block b owns chunk b, tiles [b c, min(b c + c,
// ntiles)) of the tile list (c tiles a chunk).

// Pass 1 (and phase 1 of the cooperative kernel): the chunk's sum. Thread t
// keeps V running sums, one per slot of its vector, over the chunk's tiles
// in order (c adds deep, V independent chains), adds them pairwise, then
// the block reduce (core: butterflies in each warp, a tree over the warps).
// Valid in every thread.
template <typename T, int OP>
__device__ __forceinline__ typename ScanOp<T, OP>::Acc chunk_reduce(const T *x, size_t n, size_t t0,
                                                                    size_t t1)
{
    typedef Tile<T, OP> TL;
    typedef typename TL::S S;
    typedef typename TL::Acc Acc;
    constexpr int V = TL::V, U = 4; // U tiles' loads in flight
    const bool vx = aligned16(x);
    Acc acc[V];
#pragma unroll
    for (int q = 0; q < V; q++) acc[q] = S::identity();
    size_t k = t0;
    for (; k + U <= t1; k += U) {
        TL tl[U];
#pragma unroll
        for (int u = 0; u < U; u++) tl[u].load(x, n, (k + u) * TL::TILE, vx);
#pragma unroll
        for (int u = 0; u < U; u++)
#pragma unroll
            for (int q = 0; q < V; q++) acc[q] = S::comb(acc[q], tl[u].a[q]);
    }
    for (; k < t1; k++) {
        TL tl;
        tl.load(x, n, k * TL::TILE, vx);
#pragma unroll
        for (int q = 0; q < V; q++) acc[q] = S::comb(acc[q], tl.a[q]);
    }
#pragma unroll
    for (int w = 1; w < V; w *= 2)
#pragma unroll
        for (int q = 0; q + w < V; q += 2 * w) acc[q] = S::comb(acc[q], acc[q + w]);
    return cupat_dev::block_reduce<SB>(acc[0], cupat_red::CombOp<typename S::R>());
}

// One block scans y = scan(x) over n elements tile by tile, carrying the
// running total (the spine: pass 2, and phase 2 of the cooperative kernel).
template <typename T, int OP>
__device__ __forceinline__ void walk(const T *x, T *y, size_t n, bool ex)
{
    typedef Tile<T, OP> TL;
    typedef typename TL::S S;
    typedef typename TL::Acc Acc;
    const bool vx = aligned16(x), vy = aligned16(y);
    Acc carry = S::identity();
    bool has_carry = false;
    for (size_t base = 0; base < n; base += TL::TILE) {
        TL tl;
        tl.load(x, n, base, vx);
        tl.scan();
        tl.store(y, n, base, vy, ex, has_carry, carry, S::first());
        carry = has_carry ? S::comb(carry, tl.total) : tl.total;
        has_carry = true;
    }
}

// Pass 3 (and phase 3): rescan the chunk's tiles in order, the first seeded
// with the chunk's prefix `pre` (the inclusive scan of the chunk sums
// before it; none for chunk 0), each next one with the running total.
template <typename T, int OP>
__device__ __forceinline__ void chunk_scan(const T *x, T *y, size_t n, size_t t0, size_t t1,
                                           bool has_pre, typename ScanOp<T, OP>::Acc pre, bool ex)
{
    typedef Tile<T, OP> TL;
    typedef typename TL::S S;
    const bool vx = aligned16(x), vy = aligned16(y);
    typename TL::Acc carry = pre;
    bool has_carry = has_pre;
    for (size_t k = t0; k < t1; k++) {
        TL tl;
        tl.load(x, n, k * TL::TILE, vx);
        tl.scan();
        tl.store(y, n, k * TL::TILE, vy, ex, has_carry, carry, S::first());
        carry = has_carry ? S::comb(carry, tl.total) : tl.total;
        has_carry = true;
    }
}

template <typename T, int OP>
__global__ void __launch_bounds__(SB)
    k_rts_reduce(const T *x, size_t n, size_t ntiles, size_t c, typename ScanOp<T, OP>::Acc *part)
{
    const size_t t0 = (size_t)blockIdx.x * c, t1 = dmin_dev(t0 + c, ntiles);
    const typename ScanOp<T, OP>::Acc v = chunk_reduce<T, OP>(x, n, t0, t1);
    if (threadIdx.x == 0) part[blockIdx.x] = v;
}

template <typename T, int OP> __global__ void __launch_bounds__(SB) k_rts_spine(T *part, size_t g)
{
    walk<T, OP>(part, part, g, false);
}

template <typename T, int OP>
__global__ void __launch_bounds__(SB) k_rts_scan(const T *x, T *y, size_t n, size_t ntiles, size_t c,
                                                 const typename ScanOp<T, OP>::Acc *part, int excl)
{
    typedef ScanOp<T, OP> S;
    const size_t b = blockIdx.x, t0 = b * c, t1 = dmin_dev(t0 + c, ntiles);
    const typename S::Acc pre = b > 0 ? part[b - 1] : S::identity();
    chunk_scan<T, OP>(x, y, n, t0, t1, b > 0, pre, excl != 0);
}

// ------------------------------------------------------------ coop_grid --
// One cooperative launch (cudaLaunchCooperativeKernel; every block resident
// at once, so grid.sync() cannot deadlock): phase 1 the chunk sums,
// grid.sync(), phase 2 block 0 scans them in place, grid.sync(), phase 3
// every block rescans its chunk from its prefix. grid.sync() orders the
// memory accesses around it for the whole grid; the prefixes are read with
// ld.global.cg all the same (L2: block 0 read the unscanned sums through
// the L1 of its SM, which other blocks share). No block reads `part` before
// the first grid.sync(), so block 0's walk cannot meet a stale L1 line.
template <typename T, int OP>
__global__ void __launch_bounds__(SB) k_coop(const T *x, T *y, size_t n, size_t ntiles, size_t c,
                                             typename ScanOp<T, OP>::Acc *part, int excl)
{
    typedef ScanOp<T, OP> S;
    typedef typename S::Acc Acc;
    cg::grid_group grid = cg::this_grid();
    const size_t b = blockIdx.x, G = gridDim.x, t0 = b * c, t1 = dmin_dev(t0 + c, ntiles);
    if (G > 1) {
        const Acc v = chunk_reduce<T, OP>(x, n, t0, t1);
        if (threadIdx.x == 0) part[b] = v;
    }
    grid.sync();
    if (b == 0 && G > 1) walk<Acc, OP>(part, part, G, false);
    grid.sync();
    const Acc pre = b > 0 ? __ldcg(part + (b - 1)) : S::identity();
    chunk_scan<T, OP>(x, y, n, t0, t1, b > 0, pre, excl != 0);
}

// ============================================================ launchers ==

template <typename T, int OP> struct Multi {
    typedef Tile<T, OP> TL;
    typedef typename TL::S S;
    typedef typename TL::Acc Acc;
    cupat_ctx *ctx;
    const scan_req *r;
    const T *x;
    T *y;
    size_t n;
    int excl;

    cupat_status launched(const char *k) { return cupat__launched(ctx, k); }

    cupat_status scratch(size_t bytes, unsigned char **p)
    {
        void *v = nullptr;
        CUPAT_TRY(cupat__scratch(ctx, bytes, &v));
        *p = (unsigned char *)v;
        return CUPAT_SUCCESS;
    }

    // Hierarchical, as scan_book.cu's 11.6 with the warp-shuffle tile.
    cupat_status warp_shfl()
    {
        size_t m[MAX_LEVELS];
        const int K = hier_levels(n, TL::TILE, m, MAX_LEVELS);
        Carve c;
        size_t off[MAX_LEVELS] = {0};
        for (int k = 1; k <= K; k++) off[k] = c.take(m[k] * sizeof(Acc));
        unsigned char *scr = nullptr;
        if (K > 0) CUPAT_TRY(scratch(c.off, &scr));
        Acc *lv[MAX_LEVELS] = {nullptr};
        for (int k = 1; k <= K; k++) lv[k] = (Acc *)(scr + off[k]);
        cudaStream_t st = ctx->stream;
        for (int k = 0; k <= K; k++) {
            const size_t nt = cdiv(m[k], TL::TILE);
            const unsigned g = (unsigned)dmin(nt, GRID_CAP);
            Acc *sums = k < K ? lv[k + 1] : nullptr;
            if (k == 0)
                k_shfl_tiles<T, OP><<<g, SB, 0, st>>>(x, y, n, nt, sums, excl);
            else
                k_shfl_tiles<Acc, OP><<<g, SB, 0, st>>>(lv[k], lv[k], m[k], nt, sums, 0);
            CUPAT_TRY(launched("k_shfl_tiles"));
        }
        for (int k = K - 1; k >= 0; k--) {
            const size_t nt = cdiv(m[k], TL::TILE);
            const unsigned g = (unsigned)dmin(nt - 1, GRID_CAP);
            if (k == 0)
                k_shfl_add<T, OP><<<g, SB, 0, st>>>(y, n, nt, lv[1]);
            else
                k_shfl_add<Acc, OP><<<g, SB, 0, st>>>(lv[k], m[k], nt, lv[k + 1]);
            CUPAT_TRY(launched("k_shfl_add"));
        }
        return CUPAT_SUCCESS;
    }

    cupat_status reduce_then_scan()
    {
        const size_t nt = cdiv(n, TL::TILE);
        size_t c, G;
        rts_grid(ctx, nt, c, G);
        cudaStream_t st = ctx->stream;
        Acc *part = nullptr;
        if (G > 1) {
            unsigned char *scr;
            CUPAT_TRY(scratch(G * sizeof(Acc), &scr));
            part = (Acc *)scr;
            k_rts_reduce<T, OP><<<(unsigned)G, SB, 0, st>>>(x, n, nt, c, part);
            CUPAT_TRY(launched("k_rts_reduce"));
            k_rts_spine<Acc, OP><<<1, SB, 0, st>>>(part, G);
            CUPAT_TRY(launched("k_rts_spine"));
        }
        k_rts_scan<T, OP><<<(unsigned)G, SB, 0, st>>>(x, y, n, nt, c, part, excl);
        return launched("k_rts_scan");
    }

    cupat_status coop_grid()
    {
        int coop = 0;
        CUPAT_CUDA_TRY(ctx, cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, ctx->device));
        if (!coop)
            return cupat__fail(ctx, CUPAT_ERROR_NOT_SUPPORTED,
                               "%s: rung coop_grid: device %d has no cooperative launch", r->fn,
                               ctx->device);
        const size_t nt = cdiv(n, TL::TILE);
        size_t c, G;
        coop_grid_size(ctx, nt, c, G);
        unsigned char *scr;
        CUPAT_TRY(scratch(G * sizeof(Acc), &scr));
        Acc *part = (Acc *)scr;
        const T *xa = x;
        T *ya = y;
        size_t na = n, nta = nt, ca = c;
        int ea = excl;
        void *args[] = {(void *)&xa, (void *)&ya, (void *)&na, (void *)&nta, (void *)&ca, (void *)&part,
                        (void *)&ea};
        CUPAT_CUDA_TRY(ctx, cudaLaunchCooperativeKernel((const void *)k_coop<T, OP>, dim3((unsigned)G),
                                                        dim3(SB), args, 0, ctx->stream));
        return launched("k_coop");
    }

    // Reduce-then-scan grid: as many blocks as the device holds at once
    // (fixed by the device: deterministic), c tiles a chunk.
    static void rts_grid(const cupat_ctx *ctx, size_t nt, size_t &c, size_t &G)
    {
        size_t res = (size_t)ctx->sm_count * resident_per_sm(ctx, (const void *)k_rts_scan<T, OP>, SB);
        if (res < 1) res = 1;
        c = cdiv(nt, res);
        G = cdiv(nt, c);
    }
    // Cooperative grid: at most the resident blocks of k_coop (occupancy API).
    static void coop_grid_size(const cupat_ctx *ctx, size_t nt, size_t &c, size_t &G)
    {
        size_t res = (size_t)ctx->sm_count * resident_per_sm(ctx, (const void *)k_coop<T, OP>, SB);
        if (res < 1) res = 1;
        c = cdiv(nt, res);
        G = cdiv(nt, c);
    }

    cupat_status run()
    {
        switch (r->rung) {
        case SR_WARP_SHFL: return warp_shfl();
        case SR_REDUCE_THEN_SCAN: return reduce_then_scan();
        case SR_COOP_GRID: return coop_grid();
        }
        return cupat__fail(ctx, CUPAT_ERROR_INTERNAL, "%s: rung %d is not a scan_multi.cu rung", r->fn,
                           r->rung);
    }

    // ------------------------------------------------------------ depth --
    // The tile (V elements a thread, SB threads, NW = SB / 32 warps):
    //  thread-serial: an element reaches the thread total in <= V - 1 adds;
    //  block_exclusive_scan (cupat_warp.cuh): a thread total reaches a
    //    thread's prefix through the warp's shuffle Kogge-Stone (<= 5), the
    //    Kogge-Stone over the warp totals (<= log2 NWP, NWP = NW rounded up
    //    to a power of two) and one add (prefix + warp-inclusive value, or
    //    for lane 0 t_{w-2} + x_{w-1}): E = 6 + clog2(NW); the block total
    //    likewise (t_{NW-2} + x_{NW-1}): E;
    //  output = prefix + thread-local value: one more.
    // So L = (V - 1) + E + 1 = V + E, T = V - 1 + E.
    static size_t tile_L() { return TL::V + tile_E(); }
    static size_t tile_T() { return TL::V - 1 + tile_E(); }
    static size_t tile_E() { return 6 + clog2(SB / 32); }
    // Chunk sum: V chains of <= c adds (the first, onto the identity, is
    // exact: c - 1 rounding adds), the pairwise tree over V (log2 V), the
    // block reduce (warp butterfly 5 + tree over the warps clog2(NW)).
    static size_t chunk_sum_depth(size_t c) { return c - 1 + clog2(TL::V) + clog2(SB); }
    // Reduce-then-scan / cooperative, G >= 2 chunks of c tiles: an element
    // of another chunk reaches the chunk's prefix through its chunk sum and
    // the spine (a walk over G values), then the chain of the chunk's tiles
    // (at most c - 1 adds) and the output's add: P + D_spine + c. An element
    // of the same chunk, tile k' <= k: L + 1 (k = k'), or its tile total,
    // the add into the next carry, k - k' - 1 more, the output's add:
    // T + k - k' + 1 <= T + c. One chunk: the walk.
    static size_t chunked_depth(size_t nt, size_t c, size_t G)
    {
        const size_t L = tile_L(), Tt = tile_T();
        if (G <= 1) return walk_depth(nt, L, Tt);
        const size_t spine = walk_depth(cdiv(G, TL::TILE), L, Tt);
        const size_t other = chunk_sum_depth(c) + dmin(spine, G - 1) + c;
        const size_t own = dmax(L + 1, Tt + c);
        return dmax(other, own);
    }
    static size_t depth(const cupat_ctx *ctx, int rung, size_t n)
    {
        const size_t nt = cdiv(n, TL::TILE);
        size_t c, G;
        switch (rung) {
        case SR_WARP_SHFL: return hier_depth(n, TL::TILE, tile_L(), tile_T());
        case SR_REDUCE_THEN_SCAN: rts_grid(ctx, nt, c, G); return chunked_depth(nt, c, G);
        case SR_COOP_GRID: coop_grid_size(ctx, nt, c, G); return chunked_depth(nt, c, G);
        }
        return n;
    }
};

} // namespace

cupat_status cupat_scanbook::multi_run(cupat_ctx *ctx, const scan_req *r)
{
    cupat_status s = dispatch(r->type, r->op, [&](auto tt, auto ot) -> cupat_status {
        typedef typename decltype(tt)::type T;
        constexpr int OP = decltype(ot)::value;
        Multi<T, OP> m{ctx, r, (const T *)r->x, (T *)r->y, r->n, r->exclusive ? 1 : 0};
        return m.run();
    });
    if (s == CUPAT_ERROR_INTERNAL && !ctx->err[0])
        return cupat__fail(ctx, s, "%s: type %d / op %d reached the CUDA launcher", r->fn, (int)r->type,
                           (int)r->op);
    return s;
}

size_t cupat_scanbook::multi_depth(const cupat_ctx *ctx, int rung, cupat_type t, size_t n)
{
    if (t == CUPAT_F64 || cupat_type_size(t) == 8) return Multi<double, OP_SUM>::depth(ctx, rung, n);
    return Multi<float, OP_SUM>::depth(ctx, rung, n);
}
