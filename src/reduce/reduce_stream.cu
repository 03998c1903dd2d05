// SPDX-License-Identifier: Apache-2.0
// reduce_stream.cu — the argmin / argmax fix-up of a streamed reduction
// (reduce_stream.c): the best chunk's index made global.
#include "internal.h"
#include "reduce_priv.h"

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

} // namespace cupat_streaming

extern "C" cupat_status cupat__stream_arg_fix_cuda(cupat_ctx *ctx, const cupat_indexed *partials,
                                                   const cupat_indexed *tmp, size_t chunk_items,
                                                   cupat_indexed *dst)
{
    cupat_streaming::k_arg_fix<<<1, 1, 0, ctx->stream>>>(partials, tmp, chunk_items, dst);
    return cupat__launched(ctx, "streaming: k_arg_fix");
}
