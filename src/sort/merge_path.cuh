// SPDX-License-Identifier: Apache-2.0
// merge_path.cuh — the partitioned merge (merge path, Green et al. 2012;
// CUB's DeviceMerge has the same shape): the default merge rung and the
// merge passes of the merge sort.
//
// Geometry: either one pair (a[0, na), b[0, nb): cupat_merge; width 0) or
// the merge-sort pass over src[0, n) whose sorted runs are `width` long:
// pair p merges src[2pw, 2pw + w) with src[2pw + w, 2pw + 2w). TILE outputs a
// block; TILE divides 2w, so a tile never spans two pairs.
//  1. k_partition: one thread a tile boundary co-ranks it in its pair (a
//     binary search in global memory): how many of the pair's first k
//     outputs come from its a-run.
//  2. k_merge_tile: the tile's a- and b-ranges (together TILE elements)
//     loaded coalesced into shared memory, keys mapped to their order bits;
//     each thread co-ranks its ITEMS outputs there and merges them
//     sequentially into registers; they are staged back through shared
//     memory and stored coalesced; values gathered by their source index.
// Unsorted input (the caller's mistake) must still give a permutation of
// the inputs and touch nothing outside them. On sorted runs the co-ranks of
// consecutive diagonals never step back in a or in b; on others a binary
// search can. k_partition checks every tile's pair of co-ranks and raises a
// flag if one steps back: then every tile takes the proportional split
// (k na / (na + nb): consistent by construction). Inside a tile, each
// thread's merge must end where the next one's starts; if not, the tile
// writes its a-range then its b-range. Sorted runs pay one flag load a
// tile and one shared word a thread.
#ifndef CUPAT_SORT_MERGE_PATH_CUH
#define CUPAT_SORT_MERGE_PATH_CUH

#include "sort/sort_device.cuh"

namespace cupat_sort_dev {

// Tile shapes (threads x outputs a thread). The merge sort's passes need a
// power-of-two tile (it must divide 2w, runs start at 1024); cupat_merge
// takes an odd count a thread (15, as CUB's sm_80+ tuning): a thread's
// outputs start 15 words apart, so its staging writes and its first
// co-rank probes fall in distinct banks (8 a thread: 8-way conflicts).
// MINB: blocks an SM the kernel's registers must allow (__launch_bounds__):
// the occupancy each shape was measured at. Without it the unsorted-input
// checks let ptxas take 74-79 registers for 384 x 25 where 56 fit three
// blocks an SM (the merge ran at half speed, 1.28 against 0.62 ms for CUB
// on the H200).
template <int BLOCK_, int ITEMS_, int MINB_ = 1> struct MpShape {
    static constexpr int BLOCK = BLOCK_, ITEMS = ITEMS_, TILE = BLOCK_ * ITEMS_, MINB = MINB_;
};
typedef MpShape<256, 8, 5> MpSort; // 2048: divides 2w for w >= 1024
// cupat_merge: 384 x 25 = 9600 outputs a tile for 4-byte keys alone, 512 x
// 15 for 4-byte keys with values, 256 x 15 for 8-byte keys (keys and, with
// values, 2-byte source indices within 48 KiB of static shared memory). Measured on the H100 (2 x 2^27 u32 keys, ms; CUB 0.771): 384 x 25
// 0.767, 384 x 23 0.777, 320 x 29 0.779, 512 x 15 0.785, 384 x 21 0.784,
// 448 x 25 0.811, 384 x 27 / 29 / 31 0.836 / 0.824 / 0.815, 512 x 23 0.796,
// 256 x 23 0.864, 384 x 19 0.918, 256 x 15 0.834.
template <typename U, typename V>
using MpMerge = MpShape<sizeof(U) == 4 ? (HasV<V>::value ? 512 : 384) : 256, sizeof(U) == 4 && !HasV<V>::value ? 25 : 15,
                        sizeof(U) == 4 ? (HasV<V>::value ? 2 : 3) : (HasV<V>::value ? 3 : 4)>;
constexpr int MP_TILE = MpSort::TILE;

struct Pair {
    size_t a0, na, b0, nb, out0; // a-run at a + a0, b-run at b + b0, outputs from out0
};
// The pair output k belongs to. width 0: the single pair.
__device__ __forceinline__ Pair pair_at(size_t k, size_t na, size_t nb, size_t width)
{
    Pair p;
    if (width == 0) {
        p.a0 = p.b0 = p.out0 = 0;
        p.na = na;
        p.nb = nb;
        return p;
    }
    const size_t n = na, base = k / (2 * width) * (2 * width);
    p.out0 = p.a0 = base;
    p.na = n - base < width ? n - base : width;
    p.b0 = base + p.na;
    p.nb = n - p.b0 < width ? n - p.b0 : width;
    return p;
}

// Tile t's a-range [i0, i1) in its pair from the co-ranks at its two ends
// (c0 at its first output, c1 at the next tile's; the pair's last tile ends
// at p.na); kl0 / kl1: its first and past-last outputs within the pair.
struct TileSplit {
    size_t kl0, kl1, i0, i1;
};
template <int TILE>
__device__ __forceinline__ TileSplit tile_split(const Pair &p, size_t k0, size_t c0, size_t c1)
{
    const size_t plen = p.na + p.nb, kl0 = k0 - p.out0;
    const size_t kl1 = kl0 + TILE < plen ? kl0 + TILE : plen;
    return TileSplit{kl0, kl1, c0, kl1 == plen ? p.na : c1};
}
// Neither run steps back: sorted runs always give such a split.
__device__ __forceinline__ bool split_ok(const TileSplit &s)
{
    return s.i0 <= s.i1 && s.kl0 - s.i0 <= s.kl1 - s.i1;
}
// The proportional split of output kl of a pair: floor(kl na / (na + nb)),
// within [kl - nb, min(kl, na)] and never stepping back in a or in b.
__device__ __forceinline__ size_t split_even(const Pair &p, size_t kl)
{
    const size_t plen = p.na + p.nb;
    return plen ? (size_t)((unsigned __int128)kl * p.na / plen) : 0;
}

// Unsorted runs: a tile's a-range, then its b-range, staged as the merge
// stages its output (keys transformed, source slots). Out of line: inlined,
// the compiler kept the tile's first loads in registers for it (56 -> 118
// registers for 384 x 25, one block an SM instead of three).
template <int BLOCK, int ITEMS, typename U, typename V>
__device__ __noinline__ void stage_concat(const U *pa, const U *pbx, int la, int cnt, Xf<U> xi, U *sk,
                                          unsigned short *sx)
{
    for (int q = 0; q < ITEMS; q++) {
        const int x = threadIdx.x + q * BLOCK;
        if (x < cnt) {
            sk[x] = xi.fwd(x < la ? pa[x] : pbx[x]);
            if constexpr (HasV<V>::value) sx[x] = (unsigned short)x;
        }
    }
}

// One thread a tile boundary; blocks overlap by one boundary (PART_STEP a
// block) so that each block sees both ends of every tile it checks.
constexpr int PART_BLOCK = 256, PART_STEP = PART_BLOCK - 1;
template <int TILE, typename U>
__global__ void __launch_bounds__(PART_BLOCK)
    k_partition(const U *__restrict__ a, const U *__restrict__ b, size_t na, size_t nb, size_t width, Xf<U> xf,
                size_t tiles, size_t *__restrict__ part, unsigned *__restrict__ unsorted)
{
    __shared__ size_t s_c[PART_BLOCK];
    const size_t t = (size_t)blockIdx.x * PART_STEP + threadIdx.x;
    const size_t total = width ? na : na + nb;
    const size_t k = t * TILE < total ? t * TILE : total;
    const Pair p = pair_at(k < total ? k : (total ? total - 1 : 0), na, nb, width);
    if (t <= tiles) {
        size_t kl = k - p.out0;
        if (kl > p.na + p.nb) kl = p.na + p.nb;
        const U *pa = a + p.a0, *pb = b + p.b0;
        const size_t c = corank(
            kl, [&](size_t i) { return xf.fwd(pa[i]); }, p.na, [&](size_t j) { return xf.fwd(pb[j]); }, p.nb);
        s_c[threadIdx.x] = c;
        part[t] = c;
    }
    __syncthreads();
    if (threadIdx.x < PART_STEP && t < tiles) {
        const TileSplit s = tile_split<TILE>(p, k, s_c[threadIdx.x], s_c[threadIdx.x + 1]);
        if (!split_ok(s)) *unsorted = 1u;
    }
}

template <class SH, typename U, typename V>
__global__ void __launch_bounds__(SH::BLOCK, SH::MINB) k_merge_tile(const U *__restrict__ a, const V *__restrict__ av,
                                                          const U *__restrict__ b, const V *__restrict__ bv,
                                                          size_t na, size_t nb, size_t width, Xf<U> xi, Xf<U> xo,
                                                          const size_t *__restrict__ part,
                                                          const unsigned *__restrict__ unsorted,
                                                          U *__restrict__ out, V *__restrict__ outv)
{
    constexpr int BLOCK = SH::BLOCK, ITEMS = SH::ITEMS, TILE = SH::TILE;
    __shared__ U sk[TILE];
    __shared__ unsigned short sx[HasV<V>::value ? TILE : 1]; // source slots (values only)
    __shared__ int s_end[BLOCK]; // where each thread's merge stopped in a
    const size_t t = blockIdx.x, k0 = t * TILE;
    const Pair p = pair_at(k0, na, nb, width);
    const bool even = *unsorted != 0; // some tile's co-ranks step back: the proportional split
    TileSplit sp = tile_split<TILE>(p, k0, part[t], part[t + 1]);
    if (even) {
        sp.i0 = split_even(p, sp.kl0);
        sp.i1 = split_even(p, sp.kl1);
    }
    const size_t i0 = sp.i0, j0 = sp.kl0 - i0, i1 = sp.i1, j1 = sp.kl1 - i1;
    const int la = (int)(i1 - i0), lb = (int)(j1 - j0), cnt = la + lb;
    const U *pa = a + p.a0 + i0, *pb = b + p.b0 + j0;
    // A whole tile (every tile but the last) runs without a bounds test an
    // element: the same code, instantiated twice.
    auto run = [&](auto whole_c) {
        constexpr bool WHOLE = decltype(whole_c)::value;
        auto in = [&](int x) { return WHOLE || x < cnt; };
        {
            // Element x of the tile is pa[x] or pbx[x] (pb shifted back by
            // la): one pointer select and one indexed load each; all of a
            // thread's loads in flight before the first store.
            const U *pbx = pb - la;
            U v[ITEMS];
#pragma unroll
            for (int q = 0; q < ITEMS; q++) {
                const int x = threadIdx.x + q * BLOCK;
                if (in(x)) v[q] = (x < la ? pa : pbx)[x];
            }
            auto stage = [&](auto fwd) {
#pragma unroll
                for (int q = 0; q < ITEMS; q++) {
                    const int x = threadIdx.x + q * BLOCK;
                    if (in(x)) sk[x] = fwd(v[q]);
                }
            };
            if (xi.is_identity()) stage([](U u) { return u; }); // tested once, not per key
            else stage([&](U u) { return xi.fwd(u); });
        }
        __syncthreads();
        const int d = threadIdx.x * ITEMS;
        U key[ITEMS];
        [[maybe_unused]] int src[ITEMS]; // the source slot: values only (keys alone skip it)
        int i_start = 0;
        if (WHOLE || d < cnt) {
            const U *sa = sk, *sb = sk + la;
            int i = corank(d, [&](int q) { return sa[q]; }, la, [&](int q) { return sb[q]; }, lb); // 32-bit search
            int j = d - i;
            i_start = i;
            // The heads of both runs stay in registers: one shared load a
            // step, for the side that moved.
            U ka = i < la ? sa[i] : (U)0, kb = j < lb ? sb[j] : (U)0;
#pragma unroll
            for (int q = 0; q < ITEMS; q++) {
                const bool take_a = j >= lb || (i < la && !(kb < ka));
                key[q] = take_a ? ka : kb;
                if constexpr (HasV<V>::value) src[q] = take_a ? i : la + j;
                if (take_a) {
                    if (++i < la) ka = sa[i];
                } else if (++j < lb) {
                    kb = sb[j];
                }
            }
            s_end[threadIdx.x] = i;
        }
        __syncthreads();
        // Each thread starts where the previous one stopped (always so on
        // sorted runs); the proportional split skips the merge altogether.
        const bool chained = !even && (!(WHOLE || d < cnt) || threadIdx.x == 0 || s_end[threadIdx.x - 1] == i_start);
        if (chained && (WHOLE || d < cnt)) {
#pragma unroll
            for (int q = 0; q < ITEMS; q++)
                if (WHOLE || d + q < cnt) {
                    sk[d + q] = key[q];
                    if constexpr (HasV<V>::value) sx[d + q] = (unsigned short)src[q];
                }
        }
        if (__syncthreads_or(!chained)) {
            stage_concat<BLOCK, ITEMS, U, V>(pa, pb - la, la, cnt, xi, sk, sx);
            __syncthreads();
        }
        U *o = out + k0;
        auto store = [&](auto inv) {
#pragma unroll
            for (int q = 0; q < ITEMS; q++) {
                const int x = threadIdx.x + q * BLOCK;
                if (in(x)) o[x] = inv(sk[x]);
            }
        };
        if (xo.is_identity()) store([](U t) { return t; });
        else store([&](U t) { return xo.inv(t); });
        if constexpr (HasV<V>::value) {
            V v[ITEMS];
#pragma unroll
            for (int q = 0; q < ITEMS; q++) {
                const int x = threadIdx.x + q * BLOCK;
                if (in(x)) {
                    const int s = sx[x];
                    v[q] = s < la ? av[p.a0 + i0 + s] : bv[p.b0 + j0 + (s - la)];
                }
            }
#pragma unroll
            for (int q = 0; q < ITEMS; q++) {
                const int x = threadIdx.x + q * BLOCK;
                if (in(x)) outv[k0 + x] = v[q];
            }
        }
    };
    if (cnt == TILE) run(std::true_type{});
    else run(std::false_type{});
}

// Queue one partitioned merge with tile shape SH: part holds
// mp_part_words(tiles) words of scratch (the co-ranks and the unsorted flag).
template <class SH> inline size_t mp_tiles(size_t na, size_t nb, size_t width)
{
    const size_t total = width ? na : na + nb;
    return (total + SH::TILE - 1) / SH::TILE;
}
inline size_t mp_part_words(size_t tiles) { return tiles + 2; }
template <class SH, typename U, typename V>
cupat_status merge_path(cupat_ctx *ctx, const U *a, const V *av, const U *b, const V *bv, size_t na, size_t nb,
                        size_t width, Xf<U> xi, Xf<U> xo, size_t *part, U *out, V *outv)
{
    const size_t tiles = mp_tiles<SH>(na, nb, width);
    unsigned *unsorted = (unsigned *)(part + tiles + 1);
    CUPAT_CUDA_TRY(ctx, cudaMemsetAsync(unsorted, 0, sizeof *unsorted, ctx->stream));
    k_partition<SH::TILE, U><<<grid_of(tiles, PART_STEP), PART_BLOCK, 0, ctx->stream>>>(a, b, na, nb, width, xi,
                                                                                        tiles, part, unsorted);
    CUPAT_TRY(cupat__launched(ctx, "k_partition"));
    k_merge_tile<SH, U, V><<<(unsigned)tiles, SH::BLOCK, 0, ctx->stream>>>(a, av, b, bv, na, nb, width, xi, xo, part,
                                                                          unsorted, out, outv);
    return cupat__launched(ctx, "k_merge_tile");
}

} // namespace cupat_sort_dev
#endif
