/* SPDX-License-Identifier: Apache-2.0 */
/* histogram_stream.c — the even and range histograms of host data streamed through the chunk engine
 * (core/stream_engine.h): each checks what its entry point left to it (the
 * pointers), describes its data arguments and runs the ordinary primitive on
 * each chunk, then combines the per-chunk partials. */
#include "histogram/histogram_internal.h"
#include "stream_engine.h"

#include <stdint.h>
#include <string.h>

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
