/* SPDX-License-Identifier: Apache-2.0 */
/* reduce_stream.c — reduce and dot of host data streamed through the chunk engine
 * (core/stream_engine.h): each checks what its entry point left to it (the
 * pointers), describes its data arguments and runs the ordinary primitive on
 * each chunk, then combines the per-chunk partials. */
#include "reduce_priv.h"
#include "stream_engine.h"

#include <stdint.h>
#include <string.h>

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
