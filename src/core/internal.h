/* SPDX-License-Identifier: Apache-2.0 */
/* internal.h — what the pattern folders share: the context's layout, error
 * reporting, argument checks, scratch memory and variant selection.
 * Not installed; C and CUDA translation units both include it. */
#ifndef CUPAT_INTERNAL_H
#define CUPAT_INTERNAL_H

#include "cupat.h"
#include "trace.h"

#include <cuda_runtime_api.h>
#include <stdarg.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A pattern's ladder as registered in its own folder (see registry.c). */
typedef struct cupat_pattern_desc {
    const char *name;
    const cupat_variant_info *variants;
    size_t count;
} cupat_pattern_desc;

#define CUPAT_MAX_PATTERNS 64
#define CUPAT_ERRMSG 1024

struct cupat_ctx {
    cupat_backend backend; /* CPU or CUDA, never AUTO */
    int device;            /* CUDA device index, -1 on CPU */
    cudaStream_t stream;   /* the stream all work goes to */
    cudaStream_t own_stream;
    void *scratch; /* stream-ordered scratch pool (grow-only) */
    size_t scratch_bytes;
    /* the whole pool has been zeroed (queued) since cupat__scratch last
     * allocated it; cleared by every new allocation. reduce's epoch flags
     * poll scratch, and a fresh pool (new, or a freed one the allocator
     * hands back at the same address) is uninitialized memory */
    int scratch_zeroed;
    /* workspace settings (cupat_set_workspace*): scratch is the caller's
     * buffer (never grown or freed here), a cap on the pool, and the largest
     * request seen */
    int ws_user;
    size_t ws_limit; /* 0: none */
    size_t ws_peak;
    /* pinned rung per pattern (index into the registry), NULL = default */
    const cupat_variant_info *pinned[CUPAT_MAX_PATTERNS];
    /* device facts kernels size their grids from */
    int sm_count;
    int max_threads_per_sm;
    size_t l2_bytes;
    /* out-of-core streaming (src/stream, cupat_set_streaming): 0 = auto;
     * stream_inner is set on the lanes and while a streamed call combines
     * its partials, so the calls they make never stream again */
    size_t stream_chunk;
    int stream_lanes;
    int stream_inner;
    char err[CUPAT_ERRMSG];
};

/* Record a failure: formats the message into ctx (or the thread's slot when
 * ctx is NULL) and returns `status`, so callers write `return cupat__fail(...)`. */
cupat_status cupat__fail(cupat_ctx *ctx, cupat_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Turn a CUDA error into CUPAT_ERROR_CUDA (or OUT_OF_MEMORY) with `what`
 * naming the call; cudaSuccess gives CUPAT_SUCCESS. Clears the sticky-free
 * last error so a later call does not see it. */
/* The library's sets of live blocks (memory.c): cupat_malloc's on each
 * backend, cupat_malloc_host's pinned ones on CUDA. track: *ptr (just
 * allocated, `bytes` asked by `fn`) joins its set; without host memory for
 * the set it is freed, *ptr = NULL, and CUPAT_ERROR_OUT_OF_MEMORY. */
typedef enum { CUPAT_LIVE_HOST, CUPAT_LIVE_DEVICE, CUPAT_LIVE_PINNED } cupat_live_kind;
cupat_status cupat__live_track(cupat_ctx *ctx, cupat_live_kind kind, void **ptr, size_t bytes,
                               const char *fn);
/* Takes a pinned block out of its set: 1 when it was there. */
int cupat__live_pinned_take(void *ptr);
cupat_status cupat__cuda(cupat_ctx *ctx, cudaError_t err, const char *what);
/* Check the result of a kernel launch (cudaGetLastError). */
cupat_status cupat__launched(cupat_ctx *ctx, const char *kernel);

#define CUPAT_TRY(expr)                                                                  \
    do {                                                                                 \
        cupat_status cupat_try_s_ = (expr);                                              \
        if (cupat_try_s_ != CUPAT_SUCCESS) return cupat_try_s_;                          \
    } while (0)
#define CUPAT_CUDA_TRY(ctx, call) CUPAT_TRY(cupat__cuda((ctx), (call), #call))

/* Validate ctx itself (NULL gives CUPAT_ERROR_NULL_POINTER, message in the
 * thread's slot) and clear its message for a new call. `fn` names the caller. */
cupat_status cupat__begin(cupat_ctx *ctx, const char *fn);

/* Validate a data argument of `bytes` bytes: non-NULL when bytes > 0, and on
 * the CUDA backend device (or managed) memory; on the CPU backend host-reachable.
 * `fn` and `arg` name the function and the argument in the message. */
cupat_status cupat__check_data(cupat_ctx *ctx, const char *fn, const char *arg,
                               const void *ptr, size_t bytes);
/* The bytes an argument spans: `lines` runs of `run` bytes, `pitch` bytes from
 * one run's start to the next (a row-major matrix: rows of cols * elem bytes,
 * pitch ld * elem; column-major: columns; a vector: one line). */
typedef struct cupat__extent {
    const void *p;
    size_t lines, run, pitch;
} cupat__extent;
/* A contiguous buffer of `bytes` / a pitched one. */
static inline cupat__extent cupat__extent1(const void *p, size_t bytes)
{
    cupat__extent e = {p, 1, bytes, bytes};
    return e;
}
static inline cupat__extent cupat__extent2(const void *p, size_t lines, size_t run,
                                           size_t pitch)
{
    cupat__extent e = {p, lines, run, pitch};
    return e;
}
/* Whether a and b share a byte: exact over the runs, not their hulls (two
 * column blocks of one matrix do not overlap). */
int cupat__overlap(cupat__extent a, cupat__extent b);
/* CUPAT_ERROR_INVALID_VALUE, naming both arguments and `rule` (what is
 * allowed; NULL: "an output must not share memory with an input"), when
 * `out` and `in` overlap. The one overlap check of every pattern. */
cupat_status cupat__check_disjoint(cupat_ctx *ctx, const char *fn, const char *out_name,
                                   cupat__extent out, const char *in_name, cupat__extent in,
                                   const char *rule);
/* *out = a * b * c, failing with CUPAT_ERROR_SIZE on overflow. */
cupat_status cupat__size_mul(cupat_ctx *ctx, const char *fn, const char *what, size_t a,
                             size_t b, size_t c, size_t *out);

/* The most rows, columns or vertices a file that lists `entries` entries may
 * declare or imply (the Matrix Market and edge-list readers). A CSR keeps a
 * pointer for every row however few entries it has, so a short file must
 * not stand for more rows than its entries can use, as its entry count must
 * not pass what its bytes can hold: a 76-byte header declaring 2^31 - 1 rows
 * took 8.6 GB. Up to 2^24 are always allowed; beyond, 16 for each entry
 * (the largest SuiteSparse matrices have about one row an entry). */
#define CUPAT_FILE_DIMS_FREE ((uint64_t)1 << 24)
#define CUPAT_FILE_DIMS_PER_ENTRY 16u
static inline uint64_t cupat__file_dims_max(uint64_t entries)
{
    uint64_t m = entries > UINT64_MAX / CUPAT_FILE_DIMS_PER_ENTRY
                     ? UINT64_MAX
                     : entries * CUPAT_FILE_DIMS_PER_ENTRY;
    return m > CUPAT_FILE_DIMS_FREE ? m : CUPAT_FILE_DIMS_FREE;
}

/* The whole file `path` in a malloc'd buffer (*data, *size; free it). It is
 * read front to back, never rewound, so a pipe or FIFO works. Failures
 * (CUPAT_ERROR_IO, OUT_OF_MEMORY) name `fn` and the path and say why: the
 * system's reason, "is a directory", or the bytes that could not be held. */
cupat_status cupat__read_file(cupat_ctx *ctx, const char *fn, const char *path, char **data,
                              size_t *size);

/* Free a block of cupat_malloc (NULL: nothing) without starting a new call:
 * ctx's message stays as it was (a cleanup path after a failure), and a
 * refusal (not a live block) is dropped. Code that frees what cupat_malloc
 * gave must come here or to cupat_free, never to free() / cudaFree(): on the
 * CPU backend cupat_free refuses pointers it does not know (memory.c). */
void cupat__release(cupat_ctx *ctx, void *ptr);

/* Scratch memory of at least `bytes`, valid for work queued on ctx->stream
 * until the next cupat__scratch call on the same ctx. A new pool clears
 * ctx->scratch_zeroed (its contents are undefined). */
cupat_status cupat__scratch(cupat_ctx *ctx, size_t bytes, void **ptr);

/* The rung that runs for `pattern` on ctx (pinned, else the backend's default). */
cupat_status cupat__select(cupat_ctx *ctx, const char *pattern,
                           const cupat_variant_info **v);
/* Whether ctx pins a rung of `pattern` (cupat_set_variant): a default rung
 * that dispatches by size (histogram's vec16) keeps to itself when pinned. */
int cupat__pinned(const cupat_ctx *ctx, const char *pattern);
/* Position of rung v in its pattern's ladder (what launchers switch on). */
int cupat__rung_index(const cupat_variant_info *v);

/* Whether a call should stream its data through device memory in chunks
 * (src/stream): on CUDA, a data argument in pinned host memory, or managed
 * data past half the device's memory; on the CPU, a chunk size set with
 * cupat_set_streaming. Never inside a streamed call. ptrs[i] spans bytes[i]
 * (0: ignored). ctx NULL: 0. */
int cupat__stream_wanted(cupat_ctx *ctx, int nptrs, const void *const *ptrs,
                         const size_t *bytes);

/* Kind of a pointer; pageable host when CUDA cannot tell. */
cupat_memory_kind cupat__pointer_kind(const void *ptr);

#ifdef __cplusplus
}
#endif
#endif
