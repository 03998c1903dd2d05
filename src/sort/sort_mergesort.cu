// SPDX-License-Identifier: Apache-2.0
// sort_mergesort.cu — PMPP 13.7: a merge sort built on the parallel merge.
// k_tile_sort sorts each tile of 1024 keys in shared memory (block_sort:
// four or eight 8-bit radix passes with warp-match ranking, stable), then
// log2(n / 1024) passes of the partitioned merge (merge_path.cuh) merge
// sorted runs of width 1024, 2048, ... pairwise. Every pass reads and writes
// every key once (n log n work in all, against the radix sort's n x passes),
// and each merge is stable, so the sort is. Between passes the buffers hold
// order bits; the last pass maps them back.
#include "sort/merge_path.cuh"

namespace cupat_sort_dev {

constexpr int TS_BLOCK = 256, TS_ITEMS = 4, TS_TILE = TS_BLOCK * TS_ITEMS;
static_assert((2 * TS_TILE) % MP_TILE == 0, "a merge tile never spans two pairs");

template <typename U, typename V>
__global__ void __launch_bounds__(TS_BLOCK)
    k_tile_sort(const U *kin, const V *vin, U *kout, V *vout, size_t n, Xf<U> xi, Xf<U> xo, int bits)
{
    extern __shared__ __align__(16) unsigned char smem[];
    const size_t base = (size_t)blockIdx.x * TS_TILE;
    const unsigned len = n - base < (size_t)TS_TILE ? (unsigned)(n - base) : (unsigned)TS_TILE;
    const V *vi = nullptr;
    V *vo = nullptr;
    if constexpr (HasV<V>::value) {
        vi = vin + base;
        vo = vout + base;
    }
    block_sort<TS_BLOCK, TS_ITEMS, U, V>(kin + base, vi, kout + base, vo, len, xi, xo, 0, bits, smem);
}

template <typename U, typename V> cupat_status mergesort(cupat_ctx *ctx, const sort_req *r)
{
    const size_t n = r->n, tiles = (n + TS_TILE - 1) / TS_TILE;
    int M = 0;
    for (size_t w = TS_TILE; w < n; w *= 2) M++;
    const size_t mtiles = (n + MP_TILE - 1) / MP_TILE;
    Carver c{nullptr, 0};
    c.take<U>(n);
    if (HasV<V>::value) c.take<V>(n);
    c.take<size_t>(mp_part_words(mtiles));
    void *base;
    CUPAT_TRY(cupat__scratch(ctx, c.off, &base));
    c = Carver{(char *)base, 0};
    PingPong<U, V> pp{(const U *)r->kin, (const V *)r->vin, (U *)r->kout, nullptr, (V *)r->vout, nullptr, 1 + M};
    pp.kalt = c.take<U>(n);
    if (HasV<V>::value) pp.valt = c.take<V>(n);
    size_t *part = c.take<size_t>(mp_part_words(mtiles));
    CUPAT_TRY(pp.prepare(ctx, n));
    const Xf<U> user = Xf<U>::of(r->x), id = Xf<U>::identity();
    const int bits = r->hi; // whole keys: bit ranges are refused below
    constexpr size_t SMEM = block_sort_smem<TS_BLOCK, TS_ITEMS, U>();
    auto k = k_tile_sort<U, V>;
    CUPAT_CUDA_TRY(ctx, cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)SMEM));
    k<<<(unsigned)tiles, TS_BLOCK, SMEM, ctx->stream>>>(pp.ksrc(0), pp.vsrc(0), pp.kdst(0), pp.vdst(0), n, user,
                                                        M == 0 ? user : id, bits);
    CUPAT_TRY(cupat__launched(ctx, "k_tile_sort"));
    size_t w = TS_TILE;
    for (int p = 1; p <= M; p++, w *= 2) {
        CUPAT_TRY((merge_path<MpSort, U, V>(ctx, pp.ksrc(p), pp.vsrc(p), pp.ksrc(p), pp.vsrc(p), n, 0, w, id,
                                    p == M ? user : id, part, pp.kdst(p), pp.vdst(p))));
    }
    return CUPAT_SUCCESS;
}

struct MergesortDispatch {
    cupat_ctx *ctx;
    const sort_req *r;
    template <typename U, typename V> cupat_status operator()() const { return mergesort<U, V>(ctx, r); }
};

} // namespace cupat_sort_dev

extern "C" cupat_status cupat__sort_mergesort_cuda(cupat_ctx *ctx, const sort_req *r)
{
    if (r->lo != 0 || r->hi != (int)(8 * r->ksize))
        return cupat__fail(ctx, CUPAT_ERROR_NOT_SUPPORTED,
                           "%s: rung merge_sort compares whole keys: no bit range [%d, %d) (pin "
                           "onesweep or a radix rung)",
                           r->fn, r->lo, r->hi);
    return cupat_sort_dev::dispatch_kv(r->ksize, r->vsize, cupat_sort_dev::MergesortDispatch{ctx, r});
}
