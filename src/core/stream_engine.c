/* SPDX-License-Identifier: Apache-2.0 */
/* stream_engine.c — the out-of-core chunk engine (stream_engine.h): the
 * plan, the checks of a streamed argument, ordered memory and the lanes. */
#include "stream_engine.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void cupat__stream_plan(cupat_ctx *ctx, size_t data_bytes, size_t *chunk_bytes, int *lanes)
{
    const size_t MiB = (size_t)1 << 20;
    size_t chunk = ctx->stream_chunk;
    int l = ctx->stream_lanes;
    if (ctx->backend == CUPAT_BACKEND_CUDA) {
        if (!chunk) {
            /* Device memory, not free memory, and the data's size: the same
             * chunks every run of the same call. */
            size_t fr = 0, total = 0;
            if (cudaMemGetInfo(&fr, &total) != cudaSuccess) {
                (void)cudaGetLastError();
                total = 0;
            }
            size_t cap = total / 64 < STREAM_AUTO_CHUNK ? total / 64 : STREAM_AUTO_CHUNK;
            cap &= ~(MiB - 1);
            if (cap < MiB) cap = MiB;
            const size_t lo = STREAM_MIN_CHUNK < cap ? STREAM_MIN_CHUNK : cap;
            size_t want = data_bytes / STREAM_AUTO_SPLIT;
            want = want > cap ? cap : (want + MiB - 1) & ~(MiB - 1);
            chunk = want < lo ? lo : want;
        }
        if (!l) {
            int engines = 2;
            if (cudaDeviceGetAttribute(&engines, cudaDevAttrAsyncEngineCount, ctx->device) !=
                cudaSuccess) {
                (void)cudaGetLastError();
                engines = 2;
            }
            l = engines >= 2 ? 3 : 2;
        }
    } else if (!l) {
        l = 3;
    }
    *chunk_bytes = chunk;
    *lanes = l;
}

size_t cupat__stream_chunk_items(size_t chunk_bytes, size_t item_bytes)
{
    size_t k = item_bytes ? chunk_bytes / item_bytes : 0;
    if (k >= 256) k &= ~(size_t)255;
    return k ? k : 1;
}

int cupat__stream_wanted(cupat_ctx *ctx, int nptrs, const void *const *ptrs,
                         const size_t *bytes)
{
    if (!ctx || ctx->stream_inner) return 0;
    if (ctx->backend != CUPAT_BACKEND_CUDA) {
        if (!ctx->stream_chunk) return 0;
        for (int i = 0; i < nptrs; i++)
            if (ptrs[i] && bytes[i]) return 1;
        return 0;
    }
    size_t managed = 0;
    for (int i = 0; i < nptrs; i++) {
        if (!ptrs[i] || !bytes[i]) continue;
        cupat_memory_kind k = cupat__pointer_kind(ptrs[i]);
        if (k == CUPAT_MEMORY_HOST_PINNED) return 1;
        if (k == CUPAT_MEMORY_MANAGED) managed += bytes[i];
    }
    if (!managed) return 0;
    size_t fr = 0, total = 0;
    if (cudaMemGetInfo(&fr, &total) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return managed > total / 2;
}

cupat_status cupat__stream_check(cupat_ctx *ctx, const char *fn, const char *arg,
                                 const void *p, size_t bytes, size_t align)
{
    if (bytes == 0) return CUPAT_SUCCESS;
    if (!p) return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "%s: %s is NULL", fn, arg);
    cupat_memory_kind k = cupat__pointer_kind(p);
    if (ctx->backend == CUPAT_BACKEND_CUDA && k == CUPAT_MEMORY_HOST)
        return cupat__fail(ctx, CUPAT_ERROR_HOST_POINTER,
                           "%s: %s = %p is pageable host memory; the CUDA backend streams pinned "
                           "host memory (cupat_malloc_host, cudaHostRegister) or uses device "
                           "memory (cupat_malloc)",
                           fn, arg, p);
    if (ctx->backend != CUPAT_BACKEND_CUDA && k == CUPAT_MEMORY_DEVICE)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: %s = %p is device memory; the CPU backend needs host memory", fn,
                           arg, p);
    if (align > 1 && (uintptr_t)p % align)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "%s: %s = %p is not %zu-byte aligned",
                           fn, arg, p, align);
    return CUPAT_SUCCESS;
}

/* -------------------------------------------------------------- memory -- */

cupat_status cupat__stream_alloc(cupat_ctx *ctx, size_t bytes, void **p)
{
    *p = NULL;
    if (ctx->backend == CUPAT_BACKEND_CUDA)
        return cupat__cuda(ctx, cudaMallocAsync(p, bytes ? bytes : 1, ctx->stream),
                           "streaming: cudaMallocAsync");
    if (!(*p = malloc(bytes ? bytes : 1)))
        return cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY,
                           "streaming: %zu bytes of host memory unavailable", bytes);
    return CUPAT_SUCCESS;
}

void cupat__stream_free(cupat_ctx *ctx, void *p)
{
    if (!p) return;
    if (ctx->backend == CUPAT_BACKEND_CUDA) {
        if (cudaFreeAsync(p, ctx->stream) != cudaSuccess) (void)cudaGetLastError();
    } else {
        free(p);
    }
}

/* -------------------------------------------------------------- engine -- */

typedef struct lane {
    cupat_ctx ctx; /* a copy of the caller's: its stream and scratch */
    void *buf[STREAM_MAX_ARGS];
    cudaEvent_t done;
    int live; /* stream created, waits for the fork */
} lane;

/* rows of `run` bytes from src (spitch apart) to dst (dpitch apart). */
static cupat_status copy_rows(cupat_ctx *lc, void *dst, size_t dpitch, const void *src,
                              size_t spitch, size_t run, size_t rows)
{
    const int flat = dpitch == run && spitch == run;
    if (lc->backend == CUPAT_BACKEND_CUDA) {
        if (flat)
            return cupat__cuda(lc, cudaMemcpyAsync(dst, src, run * rows, cudaMemcpyDefault, lc->stream),
                               "streaming: cudaMemcpyAsync");
        return cupat__cuda(lc,
                           cudaMemcpy2DAsync(dst, dpitch, src, spitch, run, rows, cudaMemcpyDefault,
                                             lc->stream),
                           "streaming: cudaMemcpy2DAsync");
    }
    if (flat) {
        memcpy(dst, src, run * rows);
    } else {
        for (size_t r = 0; r < rows; r++)
            memcpy((char *)dst + r * dpitch, (const char *)src + r * spitch, run);
    }
    return CUPAT_SUCCESS;
}

/* A lane's failure in the caller's context, naming the chunk. */
static cupat_status lane_fail(cupat_ctx *ctx, const cupat_ctx *lc, cupat_status s, size_t k)
{
    return cupat__fail(ctx, s, "%s (streamed chunk %zu)", lc->err, k);
}

cupat_status cupat__stream_run(cupat_ctx *ctx, size_t items, size_t chunk_items, int lanes,
                               const stream_arg *args, int nargs, stream_body body, void *user)
{
    if (nargs > STREAM_MAX_ARGS || lanes < 1 || lanes > STREAM_MAX_LANES || !chunk_items)
        return cupat__fail(ctx, CUPAT_ERROR_INTERNAL,
                           "streaming: %d arguments, %d lanes, chunk of %zu items", nargs, lanes,
                           chunk_items);
    if (!items) return CUPAT_SUCCESS;
    const int cuda = ctx->backend == CUPAT_BACKEND_CUDA;
    const size_t nchunks = (items - 1) / chunk_items + 1;
    const int L = (size_t)lanes < nchunks ? lanes : (int)nchunks;
    int staged[STREAM_MAX_ARGS];
    for (int a = 0; a < nargs; a++)
        staged[a] = !cuda || cupat__pointer_kind(args[a].p) != CUPAT_MEMORY_DEVICE;

    lane *ln = calloc((size_t)L, sizeof *ln);
    if (!ln) return cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY, "streaming: out of host memory");
    cudaEvent_t fork = NULL;
    cupat_status s = CUPAT_SUCCESS;

    /* Buffers first, on the caller's stream: the fork orders them before
     * every lane's work. */
    for (int l = 0; l < L && !s; l++)
        for (int a = 0; a < nargs && !s; a++)
            if (staged[a]) s = cupat__stream_alloc(ctx, chunk_items * args[a].run, &ln[l].buf[a]);
    if (!s && cuda) {
        s = cupat__cuda(ctx, cudaEventCreateWithFlags(&fork, cudaEventDisableTiming),
                        "streaming: cudaEventCreateWithFlags");
        if (!s) s = cupat__cuda(ctx, cudaEventRecord(fork, ctx->stream), "streaming: cudaEventRecord");
    }
    for (int l = 0; l < L && !s; l++) {
        lane *p = &ln[l];
        memcpy(&p->ctx, ctx, sizeof *ctx);
        p->ctx.own_stream = NULL;
        p->ctx.scratch = NULL;
        p->ctx.scratch_bytes = 0;
        p->ctx.scratch_zeroed = 0;
        p->ctx.ws_user = 0; /* a lane never shares the caller's workspace */
        p->ctx.stream_inner = 1;
        p->ctx.err[0] = '\0';
        if (!cuda) {
            p->live = 1;
            continue;
        }
        cudaStream_t st = NULL;
        s = cupat__cuda(ctx, cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking),
                        "streaming: cudaStreamCreateWithFlags");
        if (s) break;
        p->ctx.stream = st;
        p->live = 1;
        s = cupat__cuda(ctx, cudaEventCreateWithFlags(&p->done, cudaEventDisableTiming),
                        "streaming: cudaEventCreateWithFlags");
        if (!s) s = cupat__cuda(ctx, cudaStreamWaitEvent(st, fork, 0), "streaming: cudaStreamWaitEvent");
    }

    /* Depth first: chunk k's copies in, body and copies out on lane k % L.
     * Each lane's stream keeps its chunks in order; the lanes overlap. */
    void *ptr[STREAM_MAX_ARGS];
    size_t pitch[STREAM_MAX_ARGS];
    for (size_t k = 0; k < nchunks && !s; k++) {
        lane *p = &ln[k % (size_t)L];
        const size_t first = k * chunk_items, cnt = items - first < chunk_items ? items - first : chunk_items;
        cupat_status ls = CUPAT_SUCCESS;
        for (int a = 0; a < nargs; a++) {
            char *base = (char *)(uintptr_t)args[a].p + first * args[a].pitch;
            ptr[a] = staged[a] ? p->buf[a] : base;
            pitch[a] = staged[a] ? args[a].run : args[a].pitch;
            if (!ls && staged[a] && (args[a].dir & STREAM_IN))
                ls = copy_rows(&p->ctx, p->buf[a], args[a].run, base, args[a].pitch, args[a].run, cnt);
        }
        if (!ls) ls = body(&p->ctx, (int)(k % (size_t)L), k, first, cnt, ptr, pitch, user);
        for (int a = 0; a < nargs && !ls; a++)
            if (staged[a] && (args[a].dir & STREAM_OUT))
                ls = copy_rows(&p->ctx, (char *)(uintptr_t)args[a].p + first * args[a].pitch,
                               args[a].pitch, p->buf[a], args[a].run, args[a].run, cnt);
        if (ls) s = lane_fail(ctx, &p->ctx, ls, k);
    }

    /* Join: even after a failure, so no buffer is freed under a lane. */
    for (int l = 0; l < L; l++) {
        lane *p = &ln[l];
        if (!p->live) continue;
        if (cuda) {
            if (p->ctx.scratch && cudaFreeAsync(p->ctx.scratch, p->ctx.stream) != cudaSuccess)
                (void)cudaGetLastError();
            cupat_status js = CUPAT_SUCCESS;
            if (p->done) {
                js = cupat__cuda(ctx, cudaEventRecord(p->done, p->ctx.stream), "streaming: cudaEventRecord");
                if (!js)
                    js = cupat__cuda(ctx, cudaStreamWaitEvent(ctx->stream, p->done, 0),
                                     "streaming: cudaStreamWaitEvent");
            } else {
                js = CUPAT_ERROR_CUDA;
            }
            if (js) { /* cannot order the lane: wait for it instead */
                if (cudaStreamSynchronize(p->ctx.stream) != cudaSuccess) (void)cudaGetLastError();
                if (!s) s = js;
            }
        } else {
            free(p->ctx.scratch);
        }
    }
    for (int l = 0; l < L; l++)
        for (int a = 0; a < nargs; a++) cupat__stream_free(ctx, ln[l].buf[a]);
    if (cuda) {
        /* Destroying a stream or an event with work pending is allowed: the
         * driver releases them when that work is done. */
        for (int l = 0; l < L; l++) {
            if (ln[l].done) (void)cudaEventDestroy(ln[l].done);
            if (ln[l].live) (void)cudaStreamDestroy(ln[l].ctx.stream);
        }
        if (fork) (void)cudaEventDestroy(fork);
        (void)cudaGetLastError();
    }
    free(ln);
    return s;
}
