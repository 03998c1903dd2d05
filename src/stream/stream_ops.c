/* SPDX-License-Identifier: Apache-2.0 */
/* stream_ops.c — the primitives that stream host data through the engine
 * (stream.c): each checks what its entry point left to it (the pointers),
 * describes its data arguments and runs the ordinary primitive on each chunk;
 * the reductions and histograms then combine their per-chunk partials. */
#include "stream/stream_internal.h"

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

/* ---------------------------------------------------------- reduction -- */

typedef struct red_job {
    int dot;
    cupat_type type;
    cupat_op op;
    char *partials; /* one result a chunk, rb bytes each */
    size_t rb;
} red_job;

static cupat_status red_body(cupat_ctx *lc, int lane, size_t k, size_t first, size_t count,
                             void *const *p, const size_t *pitch, void *user)
{
    const red_job *j = user;
    void *out = j->partials + k * j->rb;
    if (j->dot) return cupat_dot(lc, j->type, count, p[0], p[1], out);
    return cupat_reduce(lc, j->type, j->op, count, p[0], out);
}

static int is_arg(cupat_op op)
{
    return op == CUPAT_OP_ARGMIN || op == CUPAT_OP_ARGMAX;
}

/* Combine nchunks partials into result: SUM / MIN / MAX reduce the partials
 * themselves; ARGMIN / ARGMAX reduce the partials' values (the first best
 * chunk c, which holds the first best element: a chunk's partial is its
 * first best) and then add c's offset to c's index. */
static cupat_status red_combine(cupat_ctx *ctx, const red_job *j, size_t nchunks,
                                size_t chunk_items, void *result, int out_host)
{
    const cupat_op op = j->dot ? CUPAT_OP_SUM : j->op;
    if (!is_arg(op))
        return out_host ? cupat_reduce_host(ctx, j->type, op, nchunks, j->partials, result)
                        : cupat_reduce(ctx, j->type, op, nchunks, j->partials, result);
    const size_t ts = cupat_type_size(j->type);
    const int cuda = ctx->backend == CUPAT_BACKEND_CUDA;
    void *vals = NULL, *tmp = NULL;
    cupat_status s = cupat__stream_alloc(ctx, nchunks * ts, &vals);
    if (!s) s = cupat__stream_alloc(ctx, sizeof(cupat_indexed), &tmp);
    if (!s && cuda)
        s = cupat__cuda(ctx,
                        cudaMemcpy2DAsync(vals, ts, j->partials, j->rb, ts, nchunks,
                                          cudaMemcpyDeviceToDevice, ctx->stream),
                        "streaming: cudaMemcpy2DAsync");
    if (!s && !cuda)
        for (size_t c = 0; c < nchunks; c++) memcpy((char *)vals + c * ts, j->partials + c * j->rb, ts);
    if (!s) s = cupat_reduce(ctx, j->type, op, nchunks, vals, tmp);
    if (!s && cuda) {
        cupat_indexed *dst = out_host ? tmp : result;
        s = cupat__stream_arg_fix_cuda(ctx, (const cupat_indexed *)(void *)j->partials, tmp,
                                       chunk_items, dst);
        if (!s && out_host)
            s = cupat__cuda(ctx, cudaMemcpyAsync(result, tmp, sizeof(cupat_indexed), cudaMemcpyDefault,
                                                 ctx->stream),
                            "streaming: cudaMemcpyAsync");
        if (!s && out_host)
            s = cupat__cuda(ctx, cudaStreamSynchronize(ctx->stream), "streaming: cudaStreamSynchronize");
    } else if (!s) {
        cupat_indexed best, part;
        memcpy(&best, tmp, sizeof best);
        memcpy(&part, j->partials + best.index * j->rb, sizeof part);
        part.index += best.index * chunk_items;
        memcpy(result, &part, sizeof part);
    }
    cupat__stream_free(ctx, vals);
    cupat__stream_free(ctx, tmp);
    return s;
}

cupat_status cupat__stream_reduce(cupat_ctx *ctx, const char *fn, int dot, cupat_type type,
                                  cupat_op op, size_t n, const void *x, const void *y,
                                  void *result, int out_host)
{
    const size_t ts = cupat_type_size(type), bytes = n * ts; /* checked by the entry point */
    const size_t rb = is_arg(op) && !dot ? sizeof(cupat_indexed) : ts;
    /* result, by the entry point itself on no elements (it writes the
     * identity there, which the combined result replaces) */
    ctx->stream_inner++;
    cupat_status s = dot ? (out_host ? cupat_dot_host(ctx, type, 0, NULL, NULL, result)
                                     : cupat_dot(ctx, type, 0, NULL, NULL, result))
                         : (out_host ? cupat_reduce_host(ctx, type, op, 0, NULL, result)
                                     : cupat_reduce(ctx, type, op, 0, NULL, result));
    ctx->stream_inner--;
    CUPAT_TRY(s);
    CUPAT_TRY(cupat__stream_check(ctx, fn, "x", x, bytes, ts));
    if (dot) CUPAT_TRY(cupat__stream_check(ctx, fn, "y", y, bytes, ts));
    CUPAT_TRY(cupat__check_disjoint(ctx, fn, "result", cupat__extent1(result, rb), "x",
                                    cupat__extent1(x, bytes), NULL));
    if (dot)
        CUPAT_TRY(cupat__check_disjoint(ctx, fn, "result", cupat__extent1(result, rb), "y",
                                        cupat__extent1(y, bytes), NULL));
    size_t chunk;
    int lanes;
    cupat__stream_plan(ctx, bytes, &chunk, &lanes);
    const size_t ci = cupat__stream_chunk_items(chunk, ts), nchunks = (n - 1) / ci + 1;
    red_job j = {dot, type, op, NULL, rb};
    CUPAT_TRY(cupat__stream_alloc(ctx, nchunks * rb, (void **)&j.partials));
    stream_arg args[2] = {{x, ts, ts, STREAM_IN}, {y, ts, ts, STREAM_IN}};
    s = cupat__stream_run(ctx, n, ci, lanes, args, dot ? 2 : 1, red_body, &j);
    if (!s) {
        ctx->stream_inner++; /* the partials are backend memory: no streaming */
        s = red_combine(ctx, &j, nchunks, ci, result, out_host);
        ctx->stream_inner--;
    }
    cupat__stream_free(ctx, j.partials);
    return s;
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

/* ---------------------------------------------------------- histogram -- */

typedef struct hist_job {
    cupat_hist_sample sample;
    size_t bins;
    double lower, upper;
    const double *boundaries;
    cupat_type count_type;
    char *lane_counts; /* lanes x bins counts, each lane accumulates its own */
    size_t cs;
} hist_job;

static cupat_status hist_body(cupat_ctx *lc, int lane, size_t k, size_t first, size_t count,
                              void *const *p, const size_t *pitch, void *user)
{
    const hist_job *j = user;
    void *mine = j->lane_counts + (size_t)lane * j->bins * j->cs;
    if (j->boundaries)
        return cupat_histogram_range(lc, j->sample, count, p[0], j->bins, j->boundaries,
                                     j->count_type, mine, CUPAT_HIST_ACCUMULATE);
    return cupat_histogram_even(lc, j->sample, count, p[0], j->bins, j->lower, j->upper,
                                j->count_type, mine, CUPAT_HIST_ACCUMULATE);
}

cupat_status cupat__stream_hist(cupat_ctx *ctx, const char *fn, cupat_hist_sample sample,
                                size_t n, size_t sample_bytes, const void *x, size_t bins,
                                double lower, double upper, const double *boundaries,
                                cupat_type count_type, void *counts, unsigned flags)
{
    /* Everything but x, by the entry point itself on no samples: the sample
     * type, bins, the rule, counts and flags; and OVERWRITE zeroes counts,
     * so the lanes' counts are then always added. */
    ctx->stream_inner++;
    cupat_status s = boundaries ? cupat_histogram_range(ctx, sample, 0, NULL, bins, boundaries,
                                                        count_type, counts, flags)
                                : cupat_histogram_even(ctx, sample, 0, NULL, bins, lower, upper,
                                                       count_type, counts, flags);
    ctx->stream_inner--;
    CUPAT_TRY(s);
    const size_t cs = count_type == CUPAT_U64 ? 8 : 4, xb = n * sample_bytes;
    CUPAT_TRY(cupat__stream_check(ctx, fn, "x", x, xb, sample_bytes));
    CUPAT_TRY(cupat__check_disjoint(ctx, fn, "counts", cupat__extent1(counts, bins * cs), "x",
                                    cupat__extent1(x, xb), NULL));
    size_t chunk;
    int lanes;
    cupat__stream_plan(ctx, xb, &chunk, &lanes);
    const size_t ci = cupat__stream_chunk_items(chunk, sample_bytes), nchunks = (n - 1) / ci + 1;
    if ((size_t)lanes > nchunks) lanes = (int)nchunks;
    hist_job j = {sample, bins, lower, upper, boundaries, count_type, NULL, cs};
    const size_t lb = (size_t)lanes * bins * cs;
    CUPAT_TRY(cupat__stream_alloc(ctx, lb, (void **)&j.lane_counts));
    if (ctx->backend == CUPAT_BACKEND_CUDA)
        s = cupat__cuda(ctx, cudaMemsetAsync(j.lane_counts, 0, lb, ctx->stream),
                        "streaming: cudaMemsetAsync");
    else
        memset(j.lane_counts, 0, lb);
    stream_arg args[1] = {{x, sample_bytes, sample_bytes, STREAM_IN}};
    if (!s) s = cupat__stream_run(ctx, n, ci, lanes, args, 1, hist_body, &j);
    if (!s && ctx->backend == CUPAT_BACKEND_CUDA) {
        s = cupat__stream_sum_lanes_cuda(ctx, counts, j.lane_counts, bins, lanes, cs == 8);
    } else if (!s) {
        for (int l = 0; l < lanes; l++)
            for (size_t b = 0; b < bins; b++) {
                if (cs == 8)
                    ((uint64_t *)counts)[b] += ((const uint64_t *)(const void *)j.lane_counts)[(size_t)l * bins + b];
                else
                    ((uint32_t *)counts)[b] += ((const uint32_t *)(const void *)j.lane_counts)[(size_t)l * bins + b];
            }
    }
    cupat__stream_free(ctx, j.lane_counts);
    return s;
}
