/* SPDX-License-Identifier: Apache-2.0 */
/* stream.c — the pinned host allocator and the streaming settings of a
 * context (cupat.h); the chunk engine they set is core/stream_engine.c. */
#include "stream_engine.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------- pinned memory -- */

cupat_status cupat_malloc_host(cupat_ctx *ctx, void **ptr, size_t bytes)
{
    CUPAT_TRACE_CALL();
    CUPAT_TRY(cupat__begin(ctx, "cupat_malloc_host"));
    if (!ptr) return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "cupat_malloc_host: ptr is NULL");
    *ptr = NULL;
    if (bytes == 0) return CUPAT_SUCCESS;
    if (bytes > PTRDIFF_MAX) /* no allocation can succeed: refused without asking */
        return cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY,
                           "cupat_malloc_host: bytes = %zu: more than any allocation can hold", bytes);
    if (ctx->backend == CUPAT_BACKEND_CUDA) {
        cudaError_t e = cudaMallocHost(ptr, bytes);
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            *ptr = NULL;
            return cupat__fail(ctx,
                               e == cudaErrorMemoryAllocation ? CUPAT_ERROR_OUT_OF_MEMORY
                                                              : CUPAT_ERROR_CUDA,
                               "cupat_malloc_host: bytes = %zu: cudaMallocHost failed: %s", bytes,
                               cudaGetErrorString(e));
        }
        return cupat__live_track(ctx, CUPAT_LIVE_PINNED, ptr, bytes, "cupat_malloc_host");
    }
    return cupat_malloc(ctx, ptr, bytes); /* the CPU backend's memory is host memory */
}

cupat_status cupat_free_host(cupat_ctx *ctx, void *ptr)
{
    CUPAT_TRACE_CALL();
    CUPAT_TRY(cupat__begin(ctx, "cupat_free_host"));
    if (!ptr) return CUPAT_SUCCESS;
    if (ctx->backend == CUPAT_BACKEND_CUDA) {
        /* the set, not cudaFreeHost, refuses: pinned memory of
         * cudaHostRegister, a double free, an interior pointer */
        if (!cupat__live_pinned_take(ptr))
            return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                               "cupat_free_host: ptr = %p is not live pinned host memory from "
                               "cupat_malloc_host (never allocated by it, or freed already)",
                               ptr);
        return cupat__cuda(ctx, cudaFreeHost(ptr), "cupat_free_host: cudaFreeHost");
    }
    return cupat_free(ctx, ptr);
}

/* ------------------------------------------------------------ settings -- */

cupat_status cupat_set_streaming(cupat_ctx *ctx, size_t chunk_bytes, int streams)
{
    CUPAT_TRACE_CALL();
    CUPAT_TRY(cupat__begin(ctx, "cupat_set_streaming"));
    if (streams < 0 || streams > STREAM_MAX_LANES)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "cupat_set_streaming: streams = %d (1 to %d, or 0: auto)", streams,
                           STREAM_MAX_LANES);
    if (chunk_bytes > ((size_t)1 << 40))
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "cupat_set_streaming: chunk_bytes = %zu (at most 2^40, or 0: auto)",
                           chunk_bytes);
    ctx->stream_chunk = chunk_bytes;
    ctx->stream_lanes = streams;
    return CUPAT_SUCCESS;
}

cupat_status cupat_get_streaming(cupat_ctx *ctx, size_t *chunk_bytes, int *streams)
{
    CUPAT_TRACE_CALL();
    CUPAT_TRY(cupat__begin(ctx, "cupat_get_streaming"));
    if (!chunk_bytes || !streams)
        return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "cupat_get_streaming: %s is NULL",
                           !chunk_bytes ? "chunk_bytes" : "streams");
    cupat__stream_plan(ctx, SIZE_MAX, chunk_bytes, streams);
    return CUPAT_SUCCESS;
}
