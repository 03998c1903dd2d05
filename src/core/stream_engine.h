/* SPDX-License-Identifier: Apache-2.0 */
/* stream_engine.h — out-of-core streaming (cupat_set_streaming in cupat.h,
 * docs/streams.md): the chunk engine (stream_engine.c) that the primitives
 * of reduce, elementwise and histogram stream host data through (their
 * <pattern>_stream.c).
 *
 * The engine splits `items` (elements, or image rows) into chunks of
 * `chunk_items` and gives chunk k to lane k % lanes: a copy of the context
 * with its own stream (non-blocking) and scratch. Data arguments in device
 * memory are used in place; the others (pinned host or managed memory on
 * CUDA, every argument on the CPU) are staged: each lane owns one device
 * buffer a staged argument, the chunk's inputs are copied in on the lane's
 * stream, the body runs the ordinary primitive on the buffers, the outputs
 * are copied out. A lane's chunks follow each other on its stream, so its
 * buffers are reused only after the chunk before has been copied out: with
 * 3 lanes, chunk k + 1's copy in and chunk k - 1's copy out overlap chunk k's
 * kernel (triple buffering). The lanes fork from the context's stream (an
 * event) and join it again (an event a lane), so the whole call stays
 * ordered on the caller's stream and never blocks the host. */
#ifndef CUPAT_STREAM_ENGINE_H
#define CUPAT_STREAM_ENGINE_H

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

#define STREAM_MAX_ARGS 4
#define STREAM_MAX_LANES 16
/* Auto chunks: a sixteenth of the widest argument (the pipeline's fill and
 * drain, one chunk's kernel and copy out, stay ~1/16 of the call), rounded
 * up to MiB, within [STREAM_MIN_CHUNK, STREAM_AUTO_CHUNK] (the upper end
 * also at most device memory / 64). 256 MiB: a 32 GiB input is 128 chunks,
 * each 4.9 ms of copying at 55 GB/s, so a chunk's fixed costs (launches,
 * the engine switching streams, the per-chunk reduce's finish) are a few
 * tenths of a percent; 64 MiB chunks left 512 of them. */
#define STREAM_AUTO_CHUNK ((size_t)256 << 20)
#define STREAM_MIN_CHUNK ((size_t)4 << 20)
#define STREAM_AUTO_SPLIT 16

enum { STREAM_IN = 1, STREAM_OUT = 2, STREAM_INOUT = 3 };

/* One data argument: item i spans `run` bytes at p + i * pitch. */
typedef struct stream_arg {
    const void *p;
    size_t run, pitch;
    int dir;
} stream_arg;

/* Runs the primitive on one chunk: items [first, first + count) of every
 * argument, argument a at ptr[a] with items pitch[a] apart (a staged buffer,
 * or the caller's device memory). lane: the chunk's lane index. */
typedef cupat_status (*stream_body)(cupat_ctx *lane_ctx, int lane, size_t k, size_t first,
                                    size_t count, void *const *ptr, const size_t *pitch,
                                    void *user);

/* The chunk size and lane count a call on ctx uses now (auto resolved)
 * when its widest streamed argument spans data_bytes (SIZE_MAX: large). */
void cupat__stream_plan(cupat_ctx *ctx, size_t data_bytes, size_t *chunk_bytes, int *lanes);
/* Items of `item_bytes` in one chunk of chunk_bytes: at least 1, a multiple
 * of 256 when 256 or more fit (vector loads stay aligned chunk to chunk). */
size_t cupat__stream_chunk_items(size_t chunk_bytes, size_t item_bytes);
/* Run `body` over items in chunks on at most `lanes` lanes (the engine
 * above). Errors name the chunk. */
cupat_status cupat__stream_run(cupat_ctx *ctx, size_t items, size_t chunk_items, int lanes,
                               const stream_arg *args, int nargs, stream_body body, void *user);
/* Backend memory ordered on ctx's stream (cudaMallocAsync / malloc). */
cupat_status cupat__stream_alloc(cupat_ctx *ctx, size_t bytes, void **p);
void cupat__stream_free(cupat_ctx *ctx, void *p);
/* A data argument of a streamed call: non-NULL, aligned to `align`, and on
 * CUDA pinned host, managed or device memory (pageable refused with a hint). */
cupat_status cupat__stream_check(cupat_ctx *ctx, const char *fn, const char *arg,
                                 const void *p, size_t bytes, size_t align);

#ifdef __cplusplus
}
#endif
#endif
