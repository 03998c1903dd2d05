/* SPDX-License-Identifier: Apache-2.0 */
/* memory.c — allocation, copies, pointer classification, argument checks,
 * scratch pool, files read into host memory. */
#define _POSIX_C_SOURCE 200809L /* fileno, fstat */
#include "internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

cupat_memory_kind cupat__pointer_kind(const void *ptr)
{
    struct cudaPointerAttributes a;
    if (!ptr) return CUPAT_MEMORY_HOST;
    cudaError_t e = cudaPointerGetAttributes(&a, ptr);
    if (e != cudaSuccess) { /* no driver, or a pointer CUDA never saw */
        (void)cudaGetLastError();
        return CUPAT_MEMORY_HOST;
    }
    switch (a.type) {
    case cudaMemoryTypeDevice: return CUPAT_MEMORY_DEVICE;
    case cudaMemoryTypeManaged: return CUPAT_MEMORY_MANAGED;
    case cudaMemoryTypeHost: return CUPAT_MEMORY_HOST_PINNED;
    default: return CUPAT_MEMORY_HOST;
    }
}

cupat_status cupat_pointer_kind(cupat_ctx *ctx, const void *ptr, cupat_memory_kind *kind)
{
    CUPAT_TRACE_CALL();
    CUPAT_TRY(cupat__begin(ctx, "cupat_pointer_kind"));
    if (!kind)
        return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "cupat_pointer_kind: kind is NULL");
    *kind = cupat__pointer_kind(ptr);
    return CUPAT_SUCCESS;
}

static const char *kind_name(cupat_memory_kind k)
{
    switch (k) {
    case CUPAT_MEMORY_HOST: return "pageable host memory";
    case CUPAT_MEMORY_HOST_PINNED: return "pinned host memory";
    case CUPAT_MEMORY_DEVICE: return "device memory";
    case CUPAT_MEMORY_MANAGED: return "managed memory";
    }
    return "unknown memory";
}

cupat_status cupat__check_data(cupat_ctx *ctx, const char *fn, const char *arg,
                               const void *ptr, size_t bytes)
{
    if (bytes == 0) return CUPAT_SUCCESS;
    if (!ptr) return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "%s: %s is NULL", fn, arg);
    cupat_memory_kind k = cupat__pointer_kind(ptr);
    if (ctx->backend == CUPAT_BACKEND_CUDA) {
        if (k == CUPAT_MEMORY_HOST || k == CUPAT_MEMORY_HOST_PINNED)
            return cupat__fail(ctx, CUPAT_ERROR_HOST_POINTER,
                               "%s: %s = %p is %s; the CUDA backend needs device memory "
                               "(cupat_malloc)",
                               fn, arg, ptr, kind_name(k));
    } else if (k == CUPAT_MEMORY_DEVICE) {
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: %s = %p is device memory; the CPU backend needs host memory",
                           fn, arg, ptr);
    }
    return CUPAT_SUCCESS;
}

cupat_status cupat__size_mul(cupat_ctx *ctx, const char *fn, const char *what, size_t a,
                             size_t b, size_t c, size_t *out)
{
    size_t ab, abc;
    if (__builtin_mul_overflow(a, b, &ab) || __builtin_mul_overflow(ab, c, &abc))
        return cupat__fail(ctx, CUPAT_ERROR_SIZE, "%s: %s = %zu x %zu x %zu overflows size_t",
                           fn, what, a, b, c);
    *out = abc;
    return CUPAT_SUCCESS;
}

/* ------------------------------------------------------ live blocks -- */

/* The blocks cupat_malloc handed out and cupat_free has not taken back, one
 * set a backend, so that cupat_free refuses a pointer that is not one (a
 * double free, a malloc'd or stack pointer, an interior pointer, a block of
 * the other backend) with a status: free() would abort the process, and
 * cudaFree would record an API error a sanitizer reports. One set for the
 * process, not one a context: a block may be freed through another context
 * than the one that made it (same backend). Open addressing, linear probing;
 * blocks are 256-aligned (cudaMalloc's too), so 0 (empty) and 1 (deleted)
 * are never keys. */
#define LIVE_EMPTY ((uintptr_t)0)
#define LIVE_GONE ((uintptr_t)1)
typedef struct {
    uintptr_t *slot;
    size_t cap, used, gone; /* cap: a power of two, or 0 */
} live_set;
static live_set live_host, live_device, live_pinned;
static pthread_mutex_t live_mu = PTHREAD_MUTEX_INITIALIZER;

static live_set *live_of(const cupat_ctx *ctx)
{
    return ctx->backend == CUPAT_BACKEND_CUDA ? &live_device : &live_host;
}

static size_t live_home(uintptr_t p, size_t cap)
{
    return (size_t)(((uint64_t)(p >> 8) * 0x9E3779B97F4A7C15ull) >> 32) & (cap - 1);
}

/* The slot holding p, or SIZE_MAX. live_mu held. */
static size_t live_find(const live_set *live, uintptr_t p)
{
    if (!live->cap) return SIZE_MAX;
    for (size_t i = live_home(p, live->cap);; i = (i + 1) & (live->cap - 1)) {
        if (live->slot[i] == p) return i;
        if (live->slot[i] == LIVE_EMPTY) return SIZE_MAX;
    }
}

/* Add p; 0, or -1 when the table cannot grow (no host memory). */
static int live_add(live_set *live, void *ptr)
{
    uintptr_t p = (uintptr_t)ptr;
    int rc = 0;
    pthread_mutex_lock(&live_mu);
    if (live_find(live, p) == SIZE_MAX) {
        /* at most half full, deleted slots counted: probes stay short */
        if (2 * (live->used + live->gone + 1) > live->cap) {
            size_t nc = 64;
            while (nc < 4 * (live->used + 1)) nc *= 2;
            uintptr_t *ns = calloc(nc, sizeof *ns);
            if (!ns) {
                rc = -1;
                goto out;
            }
            for (size_t i = 0; i < live->cap; i++) {
                uintptr_t q = live->slot[i];
                if (q == LIVE_EMPTY || q == LIVE_GONE) continue;
                size_t j = live_home(q, nc);
                while (ns[j] != LIVE_EMPTY) j = (j + 1) & (nc - 1);
                ns[j] = q;
            }
            free(live->slot);
            live->slot = ns;
            live->cap = nc;
            live->gone = 0;
        }
        size_t i = live_home(p, live->cap);
        while (live->slot[i] != LIVE_EMPTY && live->slot[i] != LIVE_GONE)
            i = (i + 1) & (live->cap - 1);
        if (live->slot[i] == LIVE_GONE) live->gone--;
        live->slot[i] = p;
        live->used++;
    }
out:
    pthread_mutex_unlock(&live_mu);
    return rc;
}

/* Take p out; 1 when it was there. */
static int live_take(live_set *live, void *ptr)
{
    pthread_mutex_lock(&live_mu);
    size_t i = live_find(live, (uintptr_t)ptr);
    if (i != SIZE_MAX) {
        live->slot[i] = LIVE_GONE;
        live->used--;
        live->gone++;
    }
    pthread_mutex_unlock(&live_mu);
    return i != SIZE_MAX;
}

static live_set *const live_sets[] = {[CUPAT_LIVE_HOST] = &live_host,
                                      [CUPAT_LIVE_DEVICE] = &live_device,
                                      [CUPAT_LIVE_PINNED] = &live_pinned};

cupat_status cupat__live_track(cupat_ctx *ctx, cupat_live_kind kind, void **ptr, size_t bytes,
                               const char *fn)
{
    if (!live_add(live_sets[kind], *ptr)) return CUPAT_SUCCESS;
    if (kind == CUPAT_LIVE_HOST) free(*ptr);
    else if (kind == CUPAT_LIVE_DEVICE) (void)cudaFree(*ptr);
    else (void)cudaFreeHost(*ptr);
    *ptr = NULL;
    return cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY,
                       "%s: bytes = %zu: no host memory to grow the table of live blocks", fn,
                       bytes);
}

int cupat__live_pinned_take(void *ptr) { return live_take(&live_pinned, ptr); }

/* Free a block of cupat_malloc (ptr non-NULL) on ctx's backend, leaving ctx's
 * message alone on success. */
static cupat_status release(cupat_ctx *ctx, const char *fn, void *ptr)
{
    if (!live_take(live_of(ctx), ptr))
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: ptr = %p is not live memory from cupat_malloc on this backend "
                           "(never allocated by it, or freed already)",
                           fn, ptr);
    if (ctx->backend == CUPAT_BACKEND_CUDA) return cupat__cuda(ctx, cudaFree(ptr), "cupat_free: cudaFree");
    free(ptr);
    return CUPAT_SUCCESS;
}

void cupat__release(cupat_ctx *ctx, void *ptr)
{
    if (!ptr) return;
    char keep[CUPAT_ERRMSG];
    memcpy(keep, ctx->err, sizeof keep);
    (void)release(ctx, "cupat__release", ptr);
    memcpy(ctx->err, keep, sizeof keep); /* a cleanup path's message stays the one to see */
}

cupat_status cupat_malloc(cupat_ctx *ctx, void **ptr, size_t bytes)
{
    CUPAT_TRACE_CALL();
    CUPAT_TRY(cupat__begin(ctx, "cupat_malloc"));
    if (!ptr) return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "cupat_malloc: ptr is NULL");
    *ptr = NULL;
    if (bytes == 0) return CUPAT_SUCCESS;
    if (ctx->backend == CUPAT_BACKEND_CUDA) {
        cudaError_t e = cudaMalloc(ptr, bytes);
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            *ptr = NULL;
            return cupat__fail(ctx,
                               e == cudaErrorMemoryAllocation ? CUPAT_ERROR_OUT_OF_MEMORY
                                                              : CUPAT_ERROR_CUDA,
                               "cupat_malloc: bytes = %zu: cudaMalloc failed: %s", bytes,
                               cudaGetErrorString(e));
        }
        return cupat__live_track(ctx, CUPAT_LIVE_DEVICE, ptr, bytes, "cupat_malloc");
    }
    /* 256-byte alignment on the host too, so vectorized CPU loops see the same
     * alignment as the device. */
    size_t rounded = (bytes + 255) & ~(size_t)255;
    /* Beyond PTRDIFF_MAX no allocation can succeed: refused without asking
     * (valgrind calls such sizes to the allocator an error). */
    if (rounded < bytes || rounded > PTRDIFF_MAX || !(*ptr = aligned_alloc(256, rounded)))
        return cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY,
                           "cupat_malloc: bytes = %zu: host allocation failed", bytes);
    return cupat__live_track(ctx, CUPAT_LIVE_HOST, ptr, bytes, "cupat_malloc");
}

cupat_status cupat_free(cupat_ctx *ctx, void *ptr)
{
    CUPAT_TRACE_CALL();
    CUPAT_TRY(cupat__begin(ctx, "cupat_free"));
    if (!ptr) return CUPAT_SUCCESS;
    return release(ctx, "cupat_free", ptr);
}

cupat_status cupat_memcpy(cupat_ctx *ctx, void *dst, const void *src, size_t bytes)
{
    CUPAT_TRACE_CALL();
    CUPAT_TRY(cupat__begin(ctx, "cupat_memcpy"));
    if (bytes == 0) return CUPAT_SUCCESS;
    if (!dst) return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "cupat_memcpy: dst is NULL");
    if (!src) return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "cupat_memcpy: src is NULL");
    if (dst == src) return CUPAT_SUCCESS; /* a range onto itself: nothing changes */
    CUPAT_TRY(cupat__check_disjoint(ctx, "cupat_memcpy", "dst", cupat__extent1(dst, bytes),
                                    "src", cupat__extent1(src, bytes),
                                    "the ranges of a copy must not overlap"));
    if (ctx->backend != CUPAT_BACKEND_CUDA) {
        if (cupat__pointer_kind(dst) == CUPAT_MEMORY_DEVICE ||
            cupat__pointer_kind(src) == CUPAT_MEMORY_DEVICE)
            return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                               "cupat_memcpy: device pointer given to a CPU-backend context");
        memcpy(dst, src, bytes);
        return CUPAT_SUCCESS;
    }
    CUPAT_CUDA_TRY(ctx, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, ctx->stream));
    /* A pageable host buffer may be reused by the caller as soon as we return. */
    if (cupat__pointer_kind(dst) == CUPAT_MEMORY_HOST ||
        cupat__pointer_kind(src) == CUPAT_MEMORY_HOST)
        CUPAT_CUDA_TRY(ctx, cudaStreamSynchronize(ctx->stream));
    return CUPAT_SUCCESS;
}

cupat_status cupat_memset(cupat_ctx *ctx, void *dst, int value, size_t bytes)
{
    CUPAT_TRACE_CALL();
    CUPAT_TRY(cupat__begin(ctx, "cupat_memset"));
    CUPAT_TRY(cupat__check_data(ctx, "cupat_memset", "dst", dst, bytes));
    if (bytes == 0) return CUPAT_SUCCESS;
    if (ctx->backend != CUPAT_BACKEND_CUDA) {
        memset(dst, value, bytes);
        return CUPAT_SUCCESS;
    }
    return cupat__cuda(ctx, cudaMemsetAsync(dst, value, bytes, ctx->stream),
                       "cupat_memset: cudaMemsetAsync");
}

/* The pool's block released, stream-ordered (work queued on it finishes
 * first); a caller's buffer (cupat_set_workspace) is let go, not freed. */
static cupat_status release_pool(cupat_ctx *ctx)
{
    cupat_status s = CUPAT_SUCCESS;
    if (ctx->scratch && !ctx->ws_user) {
        if (ctx->backend == CUPAT_BACKEND_CUDA)
            s = cupat__cuda(ctx, cudaFreeAsync(ctx->scratch, ctx->stream), "scratch: cudaFreeAsync");
        else
            free(ctx->scratch);
    }
    ctx->scratch = NULL;
    ctx->scratch_bytes = 0;
    ctx->scratch_zeroed = 0;
    ctx->ws_user = 0;
    return s;
}

cupat_status cupat__scratch(cupat_ctx *ctx, size_t bytes, void **ptr)
{
    if (bytes > ctx->ws_peak) ctx->ws_peak = bytes;
    if (bytes <= ctx->scratch_bytes) {
        *ptr = ctx->scratch;
        return CUPAT_SUCCESS;
    }
    if (ctx->ws_user) /* the caller's buffer, never more */
        return cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY,
                           "workspace: the call needs %zu bytes; the buffer given to cupat_set_workspace holds %zu",
                           bytes, ctx->scratch_bytes);
    if (ctx->ws_limit && bytes > ctx->ws_limit)
        return cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY,
                           "workspace: the call needs %zu bytes; the limit is %zu (cupat_set_workspace_limit)",
                           bytes, ctx->ws_limit);
    size_t want = bytes < 4096 ? 4096 : bytes + bytes / 2; /* grow geometrically */
    if (ctx->ws_limit && want > ctx->ws_limit) want = ctx->ws_limit;
    /* Stream-ordered on CUDA: the old block is released after the work
     * already queued on the stream, the new one is usable by work queued
     * after. Whatever comes back holds no written bytes (scratch_zeroed 0). */
    CUPAT_TRY(release_pool(ctx));
    if (ctx->backend == CUPAT_BACKEND_CUDA) {
        void *p = NULL;
        CUPAT_CUDA_TRY(ctx, cudaMallocAsync(&p, want, ctx->stream));
        ctx->scratch = p;
    } else {
        if (!(ctx->scratch = malloc(want)))
            return cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY,
                               "scratch: %zu bytes of host memory unavailable", want);
    }
    ctx->scratch_bytes = want;
    *ptr = ctx->scratch;
    return CUPAT_SUCCESS;
}

/* ------------------------------------------------------------ overlap -- */

/* Runs that touch or overlap one another are one contiguous run. */
static cupat__extent ext_norm(cupat__extent e)
{
    if (e.lines > 1 && e.pitch <= e.run) {
        e.run += (e.lines - 1) * e.pitch;
        e.lines = 1;
    }
    if (e.lines <= 1) e.pitch = e.run;
    return e;
}

/* One past the last byte of e (lines >= 1). */
static uintptr_t ext_end(cupat__extent e)
{
    return (uintptr_t)e.p + (e.lines - 1) * e.pitch + e.run;
}

/* Whether the byte range [s, t) meets a run of x (x normalized, nonempty). */
static int range_meets(cupat__extent x, uintptr_t s, uintptr_t t)
{
    uintptr_t b = (uintptr_t)x.p;
    if (t <= b || s >= ext_end(x)) return 0;
    if (s < b + x.run) return 1; /* starts before the end of run 0, ends after b */
    size_t i = (s - b - x.run) / x.pitch + 1; /* the first run ending after s */
    return i < x.lines && b + i * x.pitch < t;
}

int cupat__overlap(cupat__extent a, cupat__extent b)
{
    if (!a.lines || !a.run || !b.lines || !b.run) return 0;
    a = ext_norm(a);
    b = ext_norm(b);
    if ((uintptr_t)a.p >= ext_end(b) || (uintptr_t)b.p >= ext_end(a)) return 0;
    if (a.lines > b.lines) { /* walk the runs of the one with fewer */
        cupat__extent t = a;
        a = b;
        b = t;
    }
    uintptr_t a0 = (uintptr_t)a.p, b0 = (uintptr_t)b.p, bend = ext_end(b);
    size_t i = a0 + a.run > b0 ? 0 : (b0 - a0 - a.run) / a.pitch + 1;
    for (; i < a.lines; i++) {
        uintptr_t s = a0 + i * a.pitch;
        if (s >= bend) break;
        if (range_meets(b, s, s + a.run)) return 1;
    }
    return 0;
}

cupat_status cupat__check_disjoint(cupat_ctx *ctx, const char *fn, const char *out_name,
                                   cupat__extent out, const char *in_name, cupat__extent in,
                                   const char *rule)
{
    if (!cupat__overlap(out, in)) return CUPAT_SUCCESS;
    return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "%s: %s = %p overlaps %s = %p (%s)", fn,
                       out_name, out.p, in_name, in.p,
                       rule ? rule : "an output must not share memory with an input");
}

/* --------------------------------------------------------------- files -- */

cupat_status cupat__read_file(cupat_ctx *ctx, const char *fn, const char *path, char **data,
                              size_t *size)
{
    *data = NULL;
    *size = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return cupat__fail(ctx, CUPAT_ERROR_IO, "%s: cannot open %s: %s", fn, path,
                           strerror(errno));
    struct stat st;
    size_t cap = (size_t)1 << 16, len = 0;
    if (fstat(fileno(f), &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            fclose(f);
            return cupat__fail(ctx, CUPAT_ERROR_IO, "%s: cannot read %s: it is a directory",
                               fn, path);
        }
        /* a regular file: its size (+ 1, to see the end) in one buffer */
        if (S_ISREG(st.st_mode) && st.st_size > 0 && (uint64_t)st.st_size < PTRDIFF_MAX)
            cap = (size_t)st.st_size + 1;
    }
    char *buf = malloc(cap);
    cupat_status s = CUPAT_SUCCESS;
    for (;;) {
        if (!buf) {
            s = cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY,
                            "%s: no host memory for %s (%zu bytes)", fn, path, cap);
            break;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (len < cap) { /* the end, or an error */
            if (ferror(f))
                s = cupat__fail(ctx, CUPAT_ERROR_IO, "%s: cannot read %s: %s", fn, path,
                                strerror(errno ? errno : EIO));
            break;
        }
        char *nb = cap > PTRDIFF_MAX / 2 ? NULL : realloc(buf, 2 * cap);
        if (!nb) free(buf);
        buf = nb;
        cap *= 2;
    }
    fclose(f);
    if (s) {
        free(buf);
        return s;
    }
    *data = buf;
    *size = len;
    return CUPAT_SUCCESS;
}

/* ----------------------------------------------------------- workspace -- */

cupat_status cupat_set_workspace_limit(cupat_ctx *ctx, size_t bytes)
{
    CUPAT_TRACE_CALL();
    CUPAT_TRY(cupat__begin(ctx, "cupat_set_workspace_limit"));
    ctx->ws_limit = bytes;
    /* a pool already larger than the new cap goes: the cap holds from now on */
    if (bytes && !ctx->ws_user && ctx->scratch_bytes > bytes) return release_pool(ctx);
    return CUPAT_SUCCESS;
}

cupat_status cupat_set_workspace(cupat_ctx *ctx, void *ptr, size_t bytes)
{
    CUPAT_TRACE_CALL();
    CUPAT_TRY(cupat__begin(ctx, "cupat_set_workspace"));
    static const char fn[] = "cupat_set_workspace";
    if (!ptr != !bytes)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: ptr %s with bytes = %zu (NULL and 0 together give the pool back)", fn,
                           ptr ? "given" : "NULL", bytes);
    if (ptr) {
        if ((uintptr_t)ptr % 256)
            return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                               "%s: ptr %p is not 256-byte aligned (cupat_malloc's alignment)", fn, ptr);
        CUPAT_TRY(cupat__check_data(ctx, fn, "ptr", ptr, bytes));
    }
    CUPAT_TRY(release_pool(ctx)); /* one workspace at a time */
    if (ptr) { /* its contents are the caller's: scratch_zeroed stays 0 */
        ctx->scratch = ptr;
        ctx->scratch_bytes = bytes;
        ctx->ws_user = 1;
    }
    return CUPAT_SUCCESS;
}

cupat_status cupat_trim(cupat_ctx *ctx)
{
    CUPAT_TRACE_CALL();
    CUPAT_TRY(cupat__begin(ctx, "cupat_trim"));
    ctx->ws_peak = 0;
    return ctx->ws_user ? CUPAT_SUCCESS : release_pool(ctx); /* a caller's buffer stays */
}

cupat_status cupat_get_workspace(cupat_ctx *ctx, size_t *peak_bytes, size_t *held_bytes)
{
    CUPAT_TRACE_CALL();
    CUPAT_TRY(cupat__begin(ctx, "cupat_get_workspace"));
    if (!peak_bytes && !held_bytes)
        return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "cupat_get_workspace: peak_bytes and held_bytes are NULL");
    if (peak_bytes) *peak_bytes = ctx->ws_peak;
    if (held_bytes) *held_bytes = ctx->scratch_bytes;
    return CUPAT_SUCCESS;
}
