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
#ifndef CUPAT_SORT_MERGE_PATH_CUH
#define CUPAT_SORT_MERGE_PATH_CUH

#include "sort/sort_device.cuh"

namespace cupat_sort_dev {

// Tile shapes (threads x outputs a thread). The merge sort's passes need a
// power-of-two tile (it must divide 2w, runs start at 1024); cupat_merge
// takes an odd count a thread (15, as CUB's sm_80+ tuning): a thread's
// outputs start 15 words apart, so its staging writes and its first
// co-rank probes fall in distinct banks (8 a thread: 8-way conflicts).
template <int BLOCK_, int ITEMS_> struct MpShape {
    static constexpr int BLOCK = BLOCK_, ITEMS = ITEMS_, TILE = BLOCK_ * ITEMS_;
};
typedef MpShape<256, 8> MpSort; // 2048: divides 2w for w >= 1024
// cupat_merge: 384 x 25 = 9600 outputs a tile for 4-byte keys alone, 512 x
// 15 for 4-byte keys with values, 256 x 15 for 8-byte keys (keys and, with
// values, 2-byte source indices within 48 KiB of static shared memory). Measured on the H100 (2 x 2^27 u32 keys, ms; CUB 0.771): 384 x 25
// 0.767, 384 x 23 0.777, 320 x 29 0.779, 512 x 15 0.785, 384 x 21 0.784,
// 448 x 25 0.811, 384 x 27 / 29 / 31 0.836 / 0.824 / 0.815, 512 x 23 0.796,
// 256 x 23 0.864, 384 x 19 0.918, 256 x 15 0.834.
template <typename U, typename V>
using MpMerge = MpShape<sizeof(U) == 4 ? (HasV<V>::value ? 512 : 384) : 256, sizeof(U) == 4 && !HasV<V>::value ? 25 : 15>;
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

template <int TILE, typename U>
__global__ void k_partition(const U *__restrict__ a, const U *__restrict__ b, size_t na, size_t nb, size_t width,
                            Xf<U> xf, size_t tiles, size_t *__restrict__ part)
{
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t > tiles) return;
    const size_t total = width ? na : na + nb;
    const size_t k = t * TILE < total ? t * TILE : total;
    const Pair p = pair_at(k < total ? k : (total ? total - 1 : 0), na, nb, width);
    size_t kl = k - p.out0;
    if (kl > p.na + p.nb) kl = p.na + p.nb;
    const U *pa = a + p.a0, *pb = b + p.b0;
    part[t] = corank(
        kl, [&](size_t i) { return xf.fwd(pa[i]); }, p.na, [&](size_t j) { return xf.fwd(pb[j]); }, p.nb);
}

template <class SH, typename U, typename V>
__global__ void __launch_bounds__(SH::BLOCK) k_merge_tile(const U *__restrict__ a, const V *__restrict__ av,
                                                          const U *__restrict__ b, const V *__restrict__ bv,
                                                          size_t na, size_t nb, size_t width, Xf<U> xi, Xf<U> xo,
                                                          const size_t *__restrict__ part, U *__restrict__ out,
                                                          V *__restrict__ outv)
{
    constexpr int BLOCK = SH::BLOCK, ITEMS = SH::ITEMS, TILE = SH::TILE;
    __shared__ U sk[TILE];
    __shared__ unsigned short sx[HasV<V>::value ? TILE : 1]; // source slots (values only)
    const size_t t = blockIdx.x, k0 = t * TILE;
    const Pair p = pair_at(k0, na, nb, width);
    const size_t kl0 = k0 - p.out0, plen = p.na + p.nb;
    const size_t kl1 = kl0 + TILE < plen ? kl0 + TILE : plen;
    const size_t i0 = part[t], j0 = kl0 - i0;
    const size_t i1 = kl1 == plen ? p.na : part[t + 1], j1 = kl1 - i1;
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
        if (WHOLE || d < cnt) {
            const U *sa = sk, *sb = sk + la;
            int i = corank(d, [&](int q) { return sa[q]; }, la, [&](int q) { return sb[q]; }, lb); // 32-bit search
            int j = d - i;
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
        }
        __syncthreads();
        if (WHOLE || d < cnt) {
#pragma unroll
            for (int q = 0; q < ITEMS; q++)
                if (WHOLE || d + q < cnt) {
                    sk[d + q] = key[q];
                    if constexpr (HasV<V>::value) sx[d + q] = (unsigned short)src[q];
                }
        }
        __syncthreads();
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

// Queue one partitioned merge with tile shape SH: part holds tiles + 1
// entries of scratch (mp_tiles).
template <class SH> inline size_t mp_tiles(size_t na, size_t nb, size_t width)
{
    const size_t total = width ? na : na + nb;
    return (total + SH::TILE - 1) / SH::TILE;
}
template <class SH, typename U, typename V>
cupat_status merge_path(cupat_ctx *ctx, const U *a, const V *av, const U *b, const V *bv, size_t na, size_t nb,
                        size_t width, Xf<U> xi, Xf<U> xo, size_t *part, U *out, V *outv)
{
    const size_t tiles = mp_tiles<SH>(na, nb, width);
    k_partition<SH::TILE, U><<<grid_of(tiles + 1, 256), 256, 0, ctx->stream>>>(a, b, na, nb, width, xi, tiles, part);
    CUPAT_TRY(cupat__launched(ctx, "k_partition"));
    k_merge_tile<SH, U, V><<<(unsigned)tiles, SH::BLOCK, 0, ctx->stream>>>(a, av, b, bv, na, nb, width, xi, xo, part,
                                                                          out, outv);
    return cupat__launched(ctx, "k_merge_tile");
}

} // namespace cupat_sort_dev
#endif
