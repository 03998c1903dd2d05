// SPDX-License-Identifier: Apache-2.0
// sort_segmented.cu — cupat_sort_segmented on CUDA ("segsort" rung block).
//
// k_classify checks the offsets (first 0, last n, never decreasing) and
// bins the segments by length, each into a list (atomic append): up to 256,
// 1024 and 4096 keys, and longer. The host reads the counts (the call's one
// wait), then one launch a class sorts its segments, one block a segment,
// entirely in shared memory (block_sort: 8-bit radix passes with warp-match
// ranking; 64 x 4, 256 x 4 and 512 x 8 threads x keys), so a small segment
// costs one read and one write of its keys. Segments longer than 4096 go
// through the device sort one by one (few: each has more than 4096 keys).
#include "sort/sort_device.cuh"

#include <vector>

namespace cupat_sort_dev {

constexpr int NCLASS = 4; // three block classes + the device sort
struct SegClass {
    int block, items;
};
constexpr SegClass SEG_CLASSES[3] = {{64, 4}, {256, 4}, {512, 8}};

struct SegCheck {
    unsigned long long decrease_at; // the first s with offsets[s+1] < offsets[s], or ~0
    unsigned long long first, last; // offsets[0], offsets[nseg]
    unsigned count[NCLASS];
};

__global__ void k_classify(const uint64_t *__restrict__ off, size_t nseg, SegCheck *chk, unsigned *__restrict__ lists)
{
    const size_t s = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (s == 0) {
        chk->first = off[0];
        chk->last = off[nseg];
    }
    if (s >= nseg) return;
    const uint64_t b = off[s], e = off[s + 1];
    if (e < b) {
        atomicMin(&chk->decrease_at, (unsigned long long)s);
        return;
    }
    const uint64_t len = e - b;
    if (len == 0) return;
    constexpr uint64_t CAP0 = SEG_CLASSES[0].block * SEG_CLASSES[0].items,
                       CAP1 = SEG_CLASSES[1].block * SEG_CLASSES[1].items,
                       CAP2 = SEG_CLASSES[2].block * SEG_CLASSES[2].items;
    const int c = len <= CAP0 ? 0 : len <= CAP1 ? 1 : len <= CAP2 ? 2 : 3;
    const unsigned at = atomicAdd(&chk->count[c], 1u);
    lists[(size_t)c * nseg + at] = (unsigned)s;
}

template <int BLOCK, int ITEMS, typename U, typename V>
__global__ void __launch_bounds__(BLOCK)
    k_segment(const unsigned *__restrict__ list, const uint64_t *__restrict__ off, const U *kin, const V *vin, U *kout,
              V *vout, Xf<U> xf, int bits)
{
    extern __shared__ __align__(16) unsigned char smem[];
    const unsigned s = list[blockIdx.x];
    const size_t b = off[s];
    const unsigned len = (unsigned)(off[s + 1] - b);
    const V *vi = nullptr;
    V *vo = nullptr;
    if constexpr (HasV<V>::value) {
        vi = vin + b;
        vo = vout + b;
    }
    block_sort<BLOCK, ITEMS, U, V>(kin + b, vi, kout + b, vo, len, xf, xf, 0, bits, smem);
}

template <int BLOCK, int ITEMS, typename U, typename V>
cupat_status launch_class(cupat_ctx *ctx, const sort_req *r, const unsigned *list, unsigned count)
{
    if (!count) return CUPAT_SUCCESS;
    constexpr size_t SMEM = block_sort_smem<BLOCK, ITEMS, U>();
    auto k = k_segment<BLOCK, ITEMS, U, V>;
    CUPAT_CUDA_TRY(ctx, cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)SMEM));
    k<<<count, BLOCK, SMEM, ctx->stream>>>(list, r->offsets, (const U *)r->kin, (const V *)r->vin, (U *)r->kout,
                                          (V *)r->vout, Xf<U>::of(r->x), (int)(8 * sizeof(U)));
    return cupat__launched(ctx, "k_segment");
}

struct SegDispatch {
    cupat_ctx *ctx;
    const sort_req *r;
    const unsigned *lists;
    const unsigned *count;
    template <typename U, typename V> cupat_status operator()() const
    {
        const size_t ns = r->nseg;
        CUPAT_TRY((launch_class<SEG_CLASSES[0].block, SEG_CLASSES[0].items, U, V>(ctx, r, lists, count[0])));
        CUPAT_TRY((launch_class<SEG_CLASSES[1].block, SEG_CLASSES[1].items, U, V>(ctx, r, lists + ns, count[1])));
        CUPAT_TRY((launch_class<SEG_CLASSES[2].block, SEG_CLASSES[2].items, U, V>(ctx, r, lists + 2 * ns, count[2])));
        return CUPAT_SUCCESS;
    }
};

} // namespace cupat_sort_dev

extern "C" cupat_status cupat__segsort_cuda(cupat_ctx *ctx, const sort_req *r)
{
    using namespace cupat_sort_dev;
    if (r->nseg >= 0xffffffffu)
        return cupat__fail(ctx, CUPAT_ERROR_NOT_SUPPORTED,
                           "%s: num_segments = %zu: the CUDA backend takes fewer than 2^32 segments", r->fn,
                           r->nseg);
    const size_t ns = r->nseg;
    Carver c{nullptr, 0};
    c.take<SegCheck>(1);
    c.take<unsigned>(NCLASS * (ns ? ns : 1));
    void *base;
    CUPAT_TRY(cupat__scratch(ctx, c.off, &base));
    c = Carver{(char *)base, 0};
    SegCheck *dchk = c.take<SegCheck>(1);
    unsigned *lists = c.take<unsigned>(NCLASS * (ns ? ns : 1));
    CUPAT_CUDA_TRY(ctx, cudaMemsetAsync(dchk, 0, sizeof(SegCheck), ctx->stream));
    CUPAT_CUDA_TRY(ctx, cudaMemsetAsync(&dchk->decrease_at, 0xff, sizeof(unsigned long long), ctx->stream));
    k_classify<<<grid_of(ns ? ns : 1, 256), 256, 0, ctx->stream>>>(r->offsets, ns, dchk, lists);
    CUPAT_TRY(cupat__launched(ctx, "k_classify"));
    SegCheck chk;
    CUPAT_CUDA_TRY(ctx, cudaMemcpyAsync(&chk, dchk, sizeof chk, cudaMemcpyDeviceToHost, ctx->stream));
    CUPAT_CUDA_TRY(ctx, cudaStreamSynchronize(ctx->stream));
    if (chk.first != 0)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "%s: offsets[0] = %llu: the first segment starts at 0",
                           r->fn, chk.first);
    if (chk.last != r->n)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "%s: offsets[num_segments = %zu] = %llu, not n = %zu",
                           r->fn, ns, chk.last, r->n);
    if (chk.decrease_at != ~0ull) {
        uint64_t pair[2] = {0, 0};
        CUPAT_CUDA_TRY(ctx, cudaMemcpy(pair, r->offsets + chk.decrease_at, 16, cudaMemcpyDeviceToHost));
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: offsets decrease at segment %llu: offsets[%llu] = %llu > offsets[%llu] = %llu", r->fn,
                           chk.decrease_at, chk.decrease_at, (unsigned long long)pair[0], chk.decrease_at + 1,
                           (unsigned long long)pair[1]);
    }
    if (r->n == 0) return CUPAT_SUCCESS;
    CUPAT_TRY(dispatch_kv(r->ksize, r->vsize, SegDispatch{ctx, r, lists, chk.count}));
    if (chk.count[3] == 0) return CUPAT_SUCCESS;
    // Long segments: their ids to the host (before the device sort takes the
    // scratch), then one device sort each.
    std::vector<unsigned> ids(chk.count[3]);
    std::vector<uint64_t> offs(2 * ids.size());
    CUPAT_CUDA_TRY(ctx, cudaMemcpyAsync(ids.data(), lists + 3 * ns, ids.size() * sizeof(unsigned),
                                        cudaMemcpyDeviceToHost, ctx->stream));
    CUPAT_CUDA_TRY(ctx, cudaStreamSynchronize(ctx->stream));
    for (size_t i = 0; i < ids.size(); i++)
        CUPAT_CUDA_TRY(ctx, cudaMemcpyAsync(&offs[2 * i], r->offsets + ids[i], 16, cudaMemcpyDeviceToHost,
                                            ctx->stream));
    CUPAT_CUDA_TRY(ctx, cudaStreamSynchronize(ctx->stream));
    for (size_t i = 0; i < ids.size(); i++) {
        sort_req sub = *r;
        const size_t b = offs[2 * i];
        sub.n = offs[2 * i + 1] - b;
        sub.kin = (const char *)r->kin + b * r->ksize;
        sub.kout = (char *)r->kout + b * r->ksize;
        if (r->vsize) {
            sub.vin = (const char *)r->vin + b * r->vsize;
            sub.vout = (char *)r->vout + b * r->vsize;
        }
        CUPAT_TRY(cupat__sort_onesweep_cuda(ctx, &sub));
    }
    return CUPAT_SUCCESS;
}
