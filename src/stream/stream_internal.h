/* SPDX-License-Identifier: Apache-2.0 */
/* stream_internal.h — out-of-core streaming (cupat_set_streaming in cupat.h,
 * docs/streams.md): the chunk engine (stream.c), the primitives that stream
 * through it (stream_ops.c) and their few kernels (stream.cu).
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
#ifndef CUPAT_STREAM_INTERNAL_H
#define CUPAT_STREAM_INTERNAL_H

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

/* The streamed primitives (stream_ops.c), called by the entry points when
 * cupat__stream_wanted says so, after the checks that need no pointer. */
cupat_status cupat__stream_ew(cupat_ctx *ctx, const char *fn, int axpy, size_t n, float alpha,
                              const float *a, const char *an, const float *b, const char *bn,
                              float *c, const char *cn);
cupat_status cupat__stream_reduce(cupat_ctx *ctx, const char *fn, int dot, cupat_type type,
                                  cupat_op op, size_t n, const void *x, const void *y,
                                  void *result, int out_host);
cupat_status cupat__stream_gray(cupat_ctx *ctx, const char *fn, size_t width, size_t height,
                                const uint8_t *rgb, size_t rgb_pitch, uint8_t *gray,
                                size_t gray_pitch);
/* boundaries NULL: the even rule over [lower, upper). */
cupat_status cupat__stream_hist(cupat_ctx *ctx, const char *fn, cupat_hist_sample sample,
                                size_t n, size_t sample_bytes, const void *x, size_t bins,
                                double lower, double upper, const double *boundaries,
                                cupat_type count_type, void *counts, unsigned flags);

/* stream.cu. arg_fix: with c = tmp->index (the chunk of the best partial),
 * *dst = {partials[c].value, c * chunk_items + partials[c].index}; dst may be
 * tmp. sum_lanes: counts[i] += lanes[l * total + i] for l < nlanes (u32 or
 * u64, wrapping). Both queued on ctx's stream. */
cupat_status cupat__stream_arg_fix_cuda(cupat_ctx *ctx, const cupat_indexed *partials,
                                        const cupat_indexed *tmp, size_t chunk_items,
                                        cupat_indexed *dst);
cupat_status cupat__stream_sum_lanes_cuda(cupat_ctx *ctx, void *counts, const void *lanes,
                                          size_t total, int nlanes, int is64);

#ifdef __cplusplus
}
#endif
#endif
