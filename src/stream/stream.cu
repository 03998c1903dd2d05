// SPDX-License-Identifier: Apache-2.0
// stream.cu — the two small kernels the streamed primitives combine their
// per-chunk partials with (stream_ops.c): the argmin / argmax fix-up (the
// best chunk's index made global) and the sum of the lanes' histograms.
#include "stream/stream_internal.h"

#include <stdint.h>

namespace cupat_streaming {

// One thread: a handful of words. c = the chunk whose partial won; its index
// is local to the chunk.
__global__ void k_arg_fix(const cupat_indexed *partials, const cupat_indexed *tmp,
                          unsigned long long chunk_items, cupat_indexed *dst)
{
    const unsigned long long c = tmp->index;
    cupat_indexed r = partials[c];
    r.index += c * chunk_items;
    *dst = r;
}

template <typename T>
__global__ void k_sum_lanes(T *counts, const T *lanes, size_t total, int nlanes)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < total;
         i += (size_t)gridDim.x * blockDim.x) {
        T s = counts[i];
        for (int l = 0; l < nlanes; l++) s += lanes[(size_t)l * total + i]; // wraps: exact modulo 2^bits
        counts[i] = s;
    }
}

} // namespace cupat_streaming

extern "C" cupat_status cupat__stream_arg_fix_cuda(cupat_ctx *ctx, const cupat_indexed *partials,
                                                   const cupat_indexed *tmp, size_t chunk_items,
                                                   cupat_indexed *dst)
{
    cupat_streaming::k_arg_fix<<<1, 1, 0, ctx->stream>>>(partials, tmp, chunk_items, dst);
    return cupat__launched(ctx, "streaming: k_arg_fix");
}

extern "C" cupat_status cupat__stream_sum_lanes_cuda(cupat_ctx *ctx, void *counts, const void *lanes,
                                                     size_t total, int nlanes, int is64)
{
    const unsigned threads = 256;
    size_t blocks = (total + threads - 1) / threads;
    if (blocks > 4096) blocks = 4096;
    if (is64)
        cupat_streaming::k_sum_lanes<<<(unsigned)blocks, threads, 0, ctx->stream>>>(
            (unsigned long long *)counts, (const unsigned long long *)lanes, total, nlanes);
    else
        cupat_streaming::k_sum_lanes<<<(unsigned)blocks, threads, 0, ctx->stream>>>(
            (uint32_t *)counts, (const uint32_t *)lanes, total, nlanes);
    return cupat__launched(ctx, "streaming: k_sum_lanes");
}
