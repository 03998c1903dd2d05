// SPDX-License-Identifier: Apache-2.0
// histogram_stream.cu — the sum of the lanes' histograms of a streamed
// histogram (histogram_stream.c).
#include "internal.h"
#include "histogram/histogram_internal.h"

#include <stdint.h>

namespace cupat_streaming {

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
