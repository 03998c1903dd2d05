// SPDX-License-Identifier: Apache-2.0
// merge.cu — the "merge" ladder (PMPP ch. 12) on CUDA. Every rung merges
// stably (ties: a first) on the keys' order bits (Xf: floats by the
// sign-flip total order, descending folded in); values are gathered from
// the same source index as their key.
//
//   sequential   12.2  one thread walks both arrays (a baseline, <= 2^22)
//   corank       12.3-4 each thread co-ranks the start and end of its 16
//                      outputs (binary searches in global memory) and merges
//                      them sequentially from global memory: reads of a and
//                      b are scattered, each thread walks its own place
//   tiled        12.5  each block co-ranks its output section once, then
//                      walks it a tile at a time: TILE elements of a and of b
//                      loaded coalesced into shared memory, threads co-rank
//                      and merge there; the part of the tiles not consumed is
//                      loaded again next time (about 2x the reads)
//   circular     12.6  as tiled, but the unconsumed part stays in shared
//                      memory as a circular buffer and only the consumed
//                      count is loaded: each element read once
//   partitioned  merge_path.cuh (the default)
#include "sort/merge_path.cuh"

namespace cupat_sort_dev {

// --------------------------------------------------------- sequential --
template <typename U, typename V>
__global__ void k_merge_sequential(const U *a, const V *av, size_t na, const U *b, const V *bv, size_t nb, Xf<U> xf,
                                   U *out, V *outv)
{
    size_t i = 0, j = 0, k = 0;
    while (i < na || j < nb) {
        const bool take_a = j >= nb || (i < na && !(xf.fwd(b[j]) < xf.fwd(a[i])));
        if (take_a) {
            out[k] = a[i];
            if constexpr (HasV<V>::value) outv[k] = av[i];
            i++;
        } else {
            out[k] = b[j];
            if constexpr (HasV<V>::value) outv[k] = bv[j];
            j++;
        }
        k++;
    }
}

// ------------------------------------------------------------- corank --
constexpr int CR_BLOCK = 256, CR_ITEMS = 16;

template <typename U, typename V>
__global__ void k_merge_corank(const U *a, const V *av, size_t na, const U *b, const V *bv, size_t nb, Xf<U> xf,
                               U *out, V *outv)
{
    const size_t n = na + nb;
    const size_t k0 = ((size_t)blockIdx.x * CR_BLOCK + threadIdx.x) * CR_ITEMS;
    if (k0 >= n) return;
    const size_t k1 = k0 + CR_ITEMS < n ? k0 + CR_ITEMS : n;
    auto fa = [&](size_t i) { return xf.fwd(a[i]); };
    auto fb = [&](size_t j) { return xf.fwd(b[j]); };
    size_t i = corank(k0, fa, na, fb, nb), j = k0 - i;
    for (size_t k = k0; k < k1; k++) {
        const bool take_a = j >= nb || (i < na && !(fb(j) < fa(i)));
        const size_t s = take_a ? i++ : j++;
        out[k] = take_a ? a[s] : b[s];
        if constexpr (HasV<V>::value) outv[k] = take_a ? av[s] : bv[s];
    }
}

// ------------------------------------------------- tiled and circular --
constexpr int TL_BLOCK = 128, TL_TILE = 1024, TL_TILES_A_BLOCK = 8;

// One block's output section [c0, c1) of n outputs, its starts in a and b.
template <typename U>
__device__ __forceinline__ void section(const U *a, size_t na, const U *b, size_t nb, Xf<U> xf, size_t &c0,
                                        size_t &c1, size_t &a0, size_t &a1)
{
    __shared__ size_t s_a[2];
    const size_t n = na + nb, per = (n + gridDim.x - 1) / gridDim.x;
    c0 = (size_t)blockIdx.x * per < n ? (size_t)blockIdx.x * per : n;
    c1 = c0 + per < n ? c0 + per : n;
    if (threadIdx.x < 2) { // PMPP: thread 0 does both; two threads do one each
        auto fa = [&](size_t i) { return xf.fwd(a[i]); };
        auto fb = [&](size_t j) { return xf.fwd(b[j]); };
        s_a[threadIdx.x] = corank(threadIdx.x ? c1 : c0, fa, na, fb, nb);
    }
    __syncthreads();
    a0 = s_a[0];
    a1 = s_a[1];
    // On unsorted input the two searches need not agree: keep this block's
    // ranges inside a and b (its outputs are then inputs, in no promised
    // order, and may repeat some the next block takes too).
    const size_t lo = c1 - a0 > nb ? c1 - nb : a0, hi = a0 + (c1 - c0) < na ? a0 + (c1 - c0) : na;
    a1 = a1 < lo ? lo : a1 > hi ? hi : a1;
}

// CIRC false: PMPP 12.5 (tiles reloaded from where the last one stopped);
// true: PMPP 12.6 (circular buffers, only the consumed part reloaded).
template <bool CIRC, typename U, typename V>
__global__ void __launch_bounds__(TL_BLOCK) k_merge_tiled(const U *a, const V *av, size_t na, const U *b, const V *bv,
                                                          size_t nb, Xf<U> xf, U *out, V *outv)
{
    __shared__ U sa[TL_TILE], sb[TL_TILE];
    size_t c0, c1, a0, a1;
    section(a, na, b, nb, xf, c0, c1, a0, a1);
    const size_t b0 = c0 - a0, b1 = c1 - a1;
    const size_t clen = c1 - c0, alen = a1 - a0, blen = b1 - b0;
    size_t done = 0, a_used = 0; // outputs written, a-elements consumed (b: done - a_used)
    int a_start = 0, b_start = 0;               // circular: where the buffers' logical 0 is
    int a_fresh = TL_TILE, b_fresh = TL_TILE;   // circular: slots to (re)load
    constexpr int PER = TL_TILE / TL_BLOCK;     // outputs a thread a tile
    while (done < clen) {
        const size_t b_used = done - a_used;
        if (CIRC) {
            // The TL_TILE - fresh elements after a_start are still there;
            // load the consumed count behind them.
            for (int x = threadIdx.x; x < a_fresh; x += TL_BLOCK) {
                const size_t g = a_used + (TL_TILE - a_fresh) + x;
                if (g < alen) sa[(a_start + TL_TILE - a_fresh + x) % TL_TILE] = xf.fwd(a[a0 + g]);
            }
            for (int x = threadIdx.x; x < b_fresh; x += TL_BLOCK) {
                const size_t g = b_used + (TL_TILE - b_fresh) + x;
                if (g < blen) sb[(b_start + TL_TILE - b_fresh + x) % TL_TILE] = xf.fwd(b[b0 + g]);
            }
        } else {
            for (int x = threadIdx.x; x < TL_TILE; x += TL_BLOCK) {
                if (a_used + x < alen) sa[x] = xf.fwd(a[a0 + a_used + x]);
                if (b_used + x < blen) sb[x] = xf.fwd(b[b0 + b_used + x]);
            }
        }
        __syncthreads();
        const size_t arem = alen - a_used, brem = blen - b_used, crem = clen - done;
        const int la = (int)(arem < TL_TILE ? arem : TL_TILE), lb = (int)(brem < TL_TILE ? brem : TL_TILE);
        const int ctile = (int)(crem < TL_TILE ? crem : TL_TILE);
        const int as = CIRC ? a_start : 0, bs = CIRC ? b_start : 0;
        auto fa = [&](int i) { return sa[(as + i) % TL_TILE]; };
        auto fb = [&](int j) { return sb[(bs + j) % TL_TILE]; };
        int k0 = (int)threadIdx.x * PER, k1 = k0 + PER;
        k0 = k0 < ctile ? k0 : ctile;
        k1 = k1 < ctile ? k1 : ctile;
        int i = corank(k0, fa, la, fb, lb), j = k0 - i;
        for (int k = k0; k < k1; k++) {
            const bool take_a = j >= lb || (i < la && !(fb(j) < fa(i)));
            const size_t o = c0 + done + k;
            if (take_a) {
                out[o] = xf.inv(fa(i));
                if constexpr (HasV<V>::value) outv[o] = av[a0 + a_used + i];
                i++;
            } else {
                out[o] = xf.inv(fb(j));
                if constexpr (HasV<V>::value) outv[o] = bv[b0 + b_used + j];
                j++;
            }
        }
        // What this tile consumed: the co-rank of its last output (every
        // thread computes the same).
        const int ac = corank(ctile, fa, la, fb, lb);
        __syncthreads(); // every read of the buffers done before the next load
        a_used += ac;
        done += ctile;
        if (CIRC) {
            a_fresh = ac;
            b_fresh = ctile - ac;
            a_start = (a_start + ac) % TL_TILE;
            b_start = (b_start + ctile - ac) % TL_TILE;
        }
    }
}

template <typename U, typename V> cupat_status merge_typed(cupat_ctx *ctx, const merge_req *r)
{
    const U *a = (const U *)r->a, *b = (const U *)r->b;
    const V *av = (const V *)r->av, *bv = (const V *)r->bv;
    U *out = (U *)r->out;
    V *outv = (V *)r->outv;
    const Xf<U> xf = Xf<U>::of(r->x);
    const size_t n = r->na + r->nb;
    switch (r->rung) {
    case MR_SEQUENTIAL:
        k_merge_sequential<U, V><<<1, 1, 0, ctx->stream>>>(a, av, r->na, b, bv, r->nb, xf, out, outv);
        return cupat__launched(ctx, "k_merge_sequential");
    case MR_CORANK:
        k_merge_corank<U, V><<<grid_of(n, (size_t)CR_BLOCK * CR_ITEMS), CR_BLOCK, 0, ctx->stream>>>(
            a, av, r->na, b, bv, r->nb, xf, out, outv);
        return cupat__launched(ctx, "k_merge_corank");
    case MR_TILED:
    case MR_CIRCULAR: {
        size_t g = (n + (size_t)TL_TILE * TL_TILES_A_BLOCK - 1) / ((size_t)TL_TILE * TL_TILES_A_BLOCK);
        if (g > 0x7fffffff) g = 0x7fffffff;
        if (r->rung == MR_TILED)
            k_merge_tiled<false, U, V>
                <<<(unsigned)g, TL_BLOCK, 0, ctx->stream>>>(a, av, r->na, b, bv, r->nb, xf, out, outv);
        else
            k_merge_tiled<true, U, V>
                <<<(unsigned)g, TL_BLOCK, 0, ctx->stream>>>(a, av, r->na, b, bv, r->nb, xf, out, outv);
        return cupat__launched(ctx, "k_merge_tiled");
    }
    case MR_PARTITIONED: {
        const size_t tiles = mp_tiles<MpMerge<U, V>>(r->na, r->nb, 0);
        void *p;
        CUPAT_TRY(cupat__scratch(ctx, mp_part_words(tiles) * sizeof(size_t), &p));
        return merge_path<MpMerge<U, V>, U, V>(ctx, a, av, b, bv, r->na, r->nb, 0, xf, xf, (size_t *)p, out, outv);
    }
    default:
        return cupat__fail(ctx, CUPAT_ERROR_INTERNAL, "%s: merge rung %d on CUDA", r->fn, r->rung);
    }
}

struct MergeDispatch {
    cupat_ctx *ctx;
    const merge_req *r;
    template <typename U, typename V> cupat_status operator()() const { return merge_typed<U, V>(ctx, r); }
};

} // namespace cupat_sort_dev

extern "C" cupat_status cupat__merge_cuda(cupat_ctx *ctx, const merge_req *r)
{
    return cupat_sort_dev::dispatch_kv(r->ksize, r->vsize, cupat_sort_dev::MergeDispatch{ctx, r});
}
