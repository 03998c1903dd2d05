/* SPDX-License-Identifier: Apache-2.0 */
/* elementwise_stream.c — vadd, saxpy and gray of host data streamed through the chunk engine
 * (core/stream_engine.h): each checks what its entry point left to it (the
 * pointers), describes its data arguments and runs the ordinary primitive on
 * each chunk. */
#include "elementwise.h"
#include "stream_engine.h"

#include <stdint.h>
#include <string.h>

/* -------------------------------------------------------- elementwise -- */

typedef struct ew_job {
    int axpy;
    float alpha;
} ew_job;

static cupat_status ew_body(cupat_ctx *lc, int lane, size_t k, size_t first, size_t count,
                            void *const *p, const size_t *pitch, void *user)
{
    const ew_job *j = user;
    if (j->axpy) return cupat_saxpy(lc, count, j->alpha, p[0], p[1]);
    return cupat_vadd_f32(lc, count, p[0], p[1], p[2]);
}

cupat_status cupat__stream_ew(cupat_ctx *ctx, const char *fn, int axpy, size_t n, float alpha,
                              const float *a, const char *an, const float *b, const char *bn,
                              float *c, const char *cn)
{
    const size_t bytes = n * sizeof(float); /* checked by the entry point */
    static const char rule[] = "an output may only be an input exactly, same start and layout";
    CUPAT_TRY(cupat__stream_check(ctx, fn, an, a, bytes, 4));
    CUPAT_TRY(cupat__stream_check(ctx, fn, bn, b, bytes, 4));
    if (!axpy) CUPAT_TRY(cupat__stream_check(ctx, fn, cn, c, bytes, 4));
    if (c != a)
        CUPAT_TRY(cupat__check_disjoint(ctx, fn, cn, cupat__extent1(c, bytes), an,
                                        cupat__extent1(a, bytes), rule));
    if (c != b)
        CUPAT_TRY(cupat__check_disjoint(ctx, fn, cn, cupat__extent1(c, bytes), bn,
                                        cupat__extent1(b, bytes), rule));
    size_t chunk;
    int lanes;
    cupat__stream_plan(ctx, bytes, &chunk, &lanes);
    ew_job j = {axpy, alpha};
    /* saxpy: x in, y in and out; vadd: a, b in, c out (c may be a or b: a
     * chunk is read into its buffers before its output is copied back). */
    stream_arg args[3] = {{a, 4, 4, STREAM_IN}, {b, 4, 4, axpy ? STREAM_INOUT : STREAM_IN},
                          {c, 4, 4, STREAM_OUT}};
    return cupat__stream_run(ctx, n, cupat__stream_chunk_items(chunk, 4), lanes, args,
                             axpy ? 2 : 3, ew_body, &j);
}

/* --------------------------------------------------------------- gray -- */

static cupat_status gray_body(cupat_ctx *lc, int lane, size_t k, size_t first, size_t count,
                              void *const *p, const size_t *pitch, void *user)
{
    const size_t width = *(const size_t *)user;
    return cupat_rgb_to_gray(lc, width, count, p[0], pitch[0], p[1], pitch[1]);
}

cupat_status cupat__stream_gray(cupat_ctx *ctx, const char *fn, size_t width, size_t height,
                                const uint8_t *rgb, size_t rgb_pitch, uint8_t *gray,
                                size_t gray_pitch)
{
    /* pitches and spans checked by the entry point */
    if (!width || !height) return CUPAT_SUCCESS;
    const size_t rb = (height - 1) * rgb_pitch + 3 * width, gb = (height - 1) * gray_pitch + width;
    CUPAT_TRY(cupat__stream_check(ctx, fn, "rgb", rgb, rb, 1));
    CUPAT_TRY(cupat__stream_check(ctx, fn, "gray", gray, gb, 1));
    CUPAT_TRY(cupat__check_disjoint(ctx, fn, "gray", cupat__extent2(gray, height, width, gray_pitch),
                                    "rgb", cupat__extent2(rgb, height, 3 * width, rgb_pitch),
                                    "gray and rgb must not overlap"));
    size_t chunk;
    int lanes;
    cupat__stream_plan(ctx, height * 3 * width, &chunk, &lanes);
    /* A chunk is whole rows; staged rows are packed (pitch 3 * width). */
    size_t rows = chunk / (3 * width);
    if (!rows) rows = 1;
    stream_arg args[2] = {{rgb, 3 * width, rgb_pitch, STREAM_IN}, {gray, width, gray_pitch, STREAM_OUT}};
    return cupat__stream_run(ctx, height, rows, lanes, args, 2, gray_body, &width);
}
