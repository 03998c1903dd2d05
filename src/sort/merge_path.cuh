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

constexpr int MP_BLOCK = 256;
constexpr int MP_ITEMS = 8;
constexpr int MP_TILE = MP_BLOCK * MP_ITEMS; // 2048: divides 2w for w >= 1024

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

template <typename U>
__global__ void k_partition(const U *__restrict__ a, const U *__restrict__ b, size_t na, size_t nb, size_t width,
                            Xf<U> xf, size_t tiles, size_t *__restrict__ part)
{
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t > tiles) return;
    const size_t total = width ? na : na + nb;
    const size_t k = t * MP_TILE < total ? t * MP_TILE : total;
    const Pair p = pair_at(k < total ? k : (total ? total - 1 : 0), na, nb, width);
    size_t kl = k - p.out0;
    if (kl > p.na + p.nb) kl = p.na + p.nb;
    const U *pa = a + p.a0, *pb = b + p.b0;
    part[t] = corank(
        kl, [&](size_t i) { return xf.fwd(pa[i]); }, p.na, [&](size_t j) { return xf.fwd(pb[j]); }, p.nb);
}

template <typename U, typename V>
__global__ void __launch_bounds__(MP_BLOCK) k_merge_tile(const U *__restrict__ a, const V *__restrict__ av,
                                                         const U *__restrict__ b, const V *__restrict__ bv, size_t na,
                                                         size_t nb, size_t width, Xf<U> xi, Xf<U> xo,
                                                         const size_t *__restrict__ part, U *__restrict__ out,
                                                         V *__restrict__ outv)
{
    __shared__ U sk[MP_TILE];
    __shared__ unsigned short sx[MP_TILE];
    const size_t t = blockIdx.x, k0 = t * MP_TILE;
    const Pair p = pair_at(k0, na, nb, width);
    const size_t kl0 = k0 - p.out0, plen = p.na + p.nb;
    const size_t kl1 = kl0 + MP_TILE < plen ? kl0 + MP_TILE : plen;
    const size_t i0 = part[t], j0 = kl0 - i0;
    const size_t i1 = kl1 == plen ? p.na : part[t + 1], j1 = kl1 - i1;
    const int la = (int)(i1 - i0), lb = (int)(j1 - j0), cnt = la + lb;
    const U *pa = a + p.a0 + i0, *pb = b + p.b0 + j0;
    for (int x = threadIdx.x; x < cnt; x += MP_BLOCK) sk[x] = xi.fwd(x < la ? pa[x] : pb[x - la]);
    __syncthreads();
    const int d = threadIdx.x * MP_ITEMS;
    U key[MP_ITEMS];
    int src[MP_ITEMS];
    if (d < cnt) {
        const U *sa = sk, *sb = sk + la;
        int i = (int)corank(
            (size_t)d, [&](size_t q) { return sa[q]; }, (size_t)la, [&](size_t q) { return sb[q]; }, (size_t)lb);
        int j = d - i;
#pragma unroll
        for (int q = 0; q < MP_ITEMS; q++) {
            const bool take_a = j >= lb || (i < la && !(sb[j] < sa[i]));
            key[q] = take_a ? sa[i] : sb[j];
            src[q] = take_a ? i++ : la + j++;
        }
    }
    __syncthreads();
    if (d < cnt) {
#pragma unroll
        for (int q = 0; q < MP_ITEMS; q++)
            if (d + q < cnt) {
                sk[d + q] = key[q];
                sx[d + q] = (unsigned short)src[q];
            }
    }
    __syncthreads();
    U *o = out + k0;
    for (int x = threadIdx.x; x < cnt; x += MP_BLOCK) {
        o[x] = xo.inv(sk[x]);
        if constexpr (HasV<V>::value) {
            const int s = sx[x];
            outv[k0 + x] = s < la ? av[p.a0 + i0 + s] : bv[p.b0 + j0 + (s - la)];
        }
    }
}

// Queue one partitioned merge: part holds tiles + 1 entries of scratch.
template <typename U, typename V>
cupat_status merge_path(cupat_ctx *ctx, const U *a, const V *av, const U *b, const V *bv, size_t na, size_t nb,
                        size_t width, Xf<U> xi, Xf<U> xo, size_t *part, U *out, V *outv)
{
    const size_t total = width ? na : na + nb;
    const size_t tiles = (total + MP_TILE - 1) / MP_TILE;
    k_partition<U><<<grid_of(tiles + 1, 256), 256, 0, ctx->stream>>>(a, b, na, nb, width, xi, tiles, part);
    CUPAT_TRY(cupat__launched(ctx, "k_partition"));
    k_merge_tile<U, V><<<(unsigned)tiles, MP_BLOCK, 0, ctx->stream>>>(a, av, b, bv, na, nb, width, xi, xo, part, out,
                                                                      outv);
    return cupat__launched(ctx, "k_merge_tile");
}

} // namespace cupat_sort_dev
#endif
