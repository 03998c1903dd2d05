/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cupat.h — the whole public C API of cupat ("CUDA parallel patterns").
 *
 * C11, usable from C and C++. Every call returns a cupat_status; on failure
 * cupat_last_error(ctx) holds a one-line message naming the argument and value
 * that were wrong. The library never prints and never exits.
 *
 * Data pointers are backend pointers: device memory on the CUDA backend
 * (cupat_malloc gives such memory), host memory on the CPU backend. Passing host
 * memory where device memory is needed is detected and refused.
 *
 * Work is ordered on the context's stream; calls do not synchronize unless they
 * return a host value the caller asked for (cupat_sync waits explicitly).
 */
#ifndef CUPAT_H
#define CUPAT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h> /* FILE, for the image streams */

#ifdef __cplusplus
extern "C" {
#endif

#define CUPAT_VERSION_MAJOR 0
#define CUPAT_VERSION_MINOR 1
#define CUPAT_VERSION_PATCH 0
/* The header's version as one integer: major * 10000 + minor * 100 + patch
 * (0.1.0 is 100), comparable with what cupat_get_version returns. */
#define CUPAT_VERSION (CUPAT_VERSION_MAJOR * 10000 + CUPAT_VERSION_MINOR * 100 + CUPAT_VERSION_PATCH)

/* ---------------------------------------------------------------- status -- */

typedef enum cupat_status {
    CUPAT_SUCCESS = 0,
    CUPAT_ERROR_INVALID_VALUE = 1,  /* an argument is out of its valid range     */
    CUPAT_ERROR_NULL_POINTER = 2,   /* a required pointer argument is NULL       */
    CUPAT_ERROR_HOST_POINTER = 3,   /* host memory given where device is needed  */
    CUPAT_ERROR_SIZE = 4,           /* a size is too large / overflows           */
    CUPAT_ERROR_OUT_OF_MEMORY = 5,  /* an allocation failed                      */
    CUPAT_ERROR_NO_DEVICE = 6,      /* CUDA backend asked for, none usable       */
    CUPAT_ERROR_CUDA = 7,           /* a CUDA runtime/driver call failed         */
    CUPAT_ERROR_NOT_FOUND = 8,      /* unknown pattern, variant or file          */
    CUPAT_ERROR_NOT_SUPPORTED = 9,  /* valid request this build/backend can't do */
    CUPAT_ERROR_IO = 10,            /* a file could not be read or written       */
    CUPAT_ERROR_FORMAT = 11,        /* a file's contents are malformed           */
    CUPAT_ERROR_INTERNAL = 12       /* a bug in cupat                            */
} cupat_status;

/* Name of a status ("CUPAT_ERROR_NULL_POINTER"); never NULL. */
const char *cupat_status_string(cupat_status s);

/* ------------------------------------------------------------- context -- */

typedef enum cupat_backend {
    CUPAT_BACKEND_AUTO = 0, /* CUDA when a usable device is present, else CPU */
    CUPAT_BACKEND_CPU = 1,  /* OpenMP host code: the reference and fallback   */
    CUPAT_BACKEND_CUDA = 2
} cupat_backend;

/* Threads: one context per host thread. A context (its stream, scratch pool,
 * pinned rungs and last-error message) is not safe to use from two threads at
 * once; two threads with a context each may call at the same time (test_threads),
 * and cupat_last_error(NULL) is each thread's own. The one process-wide state,
 * the set of live CPU blocks that cupat_free checks, is locked. */
typedef struct cupat_ctx cupat_ctx;

/* CUDA stream handle without including CUDA headers (same type as cudaStream_t). */
struct CUstream_st;
typedef struct CUstream_st *cupat_stream;

/* Create a context on `backend`; `device` is the CUDA device index (ignored on
 * the CPU backend; -1 means the current device). On failure *ctx is NULL and
 * cupat_last_error(NULL) explains why. */
cupat_status cupat_create(cupat_ctx **ctx, cupat_backend backend, int device);
/* Destroy; waits for the context's outstanding work. NULL is accepted. */
cupat_status cupat_destroy(cupat_ctx *ctx);

/* The backend actually chosen (never AUTO) and the device index (-1 on CPU). */
cupat_backend cupat_get_backend(const cupat_ctx *ctx);
int cupat_get_device(const cupat_ctx *ctx);
const char *cupat_backend_name(cupat_backend b);

/* Use `stream` for all work of this context (NULL: the context's own stream).
 * The caller keeps ownership of a stream it passes. */
cupat_status cupat_set_stream(cupat_ctx *ctx, cupat_stream stream);
cupat_stream cupat_get_stream(const cupat_ctx *ctx);
/* Wait for all work queued on the context's stream. */
cupat_status cupat_sync(cupat_ctx *ctx);

/* The detailed message of the last failed call on ctx ("" if none). With a
 * NULL ctx: the last failure of this thread outside any context (cupat_create,
 * the image functions called with NULL). Never NULL. */
const char *cupat_last_error(const cupat_ctx *ctx);

/* Library version ("0.1.0") and the versions it runs with. */
const char *cupat_version(void);
/* The version of the library linked at run time, as CUPAT_VERSION spells it
 * (as cublasGetVersion). CUPAT_ERROR_NULL_POINTER for a NULL version. */
cupat_status cupat_get_version(int *version);
/* Whether the library linked at run time serves a program compiled with the
 * header of version `header_version` (pass CUPAT_VERSION): the same major
 * version and at least the header's minor; while the major version is 0, the
 * same minor (0.x releases may change the ABI, as the CMake package's
 * SameMinorVersion says). CUPAT_SUCCESS, or CUPAT_ERROR_NOT_SUPPORTED with
 * both versions in cupat_last_error(NULL). */
cupat_status cupat_check_version(int header_version);
/* Whether a usable CUDA device is present (1) or not (0); never fails. */
int cupat_cuda_available(void);

/* -------------------------------------------------------------- memory -- */

/* Allocate `bytes` of backend memory (device memory on CUDA, 256-byte aligned).
 * bytes == 0 gives *ptr = NULL and success. */
cupat_status cupat_malloc(cupat_ctx *ctx, void **ptr, size_t bytes);
/* Free memory from cupat_malloc; NULL is accepted. A pointer that is not a
 * live block of cupat_malloc on this context's backend (a double free, an
 * interior, stack or malloc'd pointer) is refused with
 * CUPAT_ERROR_INVALID_VALUE, untouched; any context of the backend may free
 * a block. */
cupat_status cupat_free(cupat_ctx *ctx, void *ptr);
/* Copy `bytes`; the direction (host/device) is inferred from the pointers.
 * Stream-ordered; synchronizes only when a pageable host buffer is involved. */
cupat_status cupat_memcpy(cupat_ctx *ctx, void *dst, const void *src, size_t bytes);
/* Set `bytes` bytes of backend memory to `value`. */
cupat_status cupat_memset(cupat_ctx *ctx, void *dst, int value, size_t bytes);

/* Workspace: the scratch memory calls take from the context (sort's double
 * buffer, scan's and reduce's tile states, GEMM's packed panels...). By
 * default a pool on ctx that grows to the largest request (stream-ordered,
 * cudaMallocAsync on CUDA) and is held until cupat_trim or cupat_destroy.
 * cupat_set_workspace_limit: the pool never grows past `bytes` (0: no limit,
 * the default); a call that needs more fails with CUPAT_ERROR_OUT_OF_MEMORY
 * naming both sizes (sort, scan and reduce then have written nothing:
 * test_workspace; an iterative call such as cupat_cg may have updated x). A
 * pool already larger is released. cupat_set_workspace: the caller's buffer (backend
 * memory, 256-byte aligned, valid until it is replaced or ctx destroyed, and
 * used by no other work while ctx's calls run) in the pool's place, the pool
 * released; a call that needs more than `bytes` fails as above. NULL and 0
 * give the pool back. cupat_trim: the pool released (stream-ordered: work
 * already queued keeps it until done) and the peak reset. cupat_get_workspace:
 * the largest request since creation or the last trim (run a call once to learn
 * what it needs) and the bytes held now (either may be NULL, not both).
 * Not drawn from the workspace: the handles' own storage (sparse matrices,
 * graphs), the streaming lanes' buffers (cupat_set_streaming), and the
 * temporaries a few rungs allocate themselves (docs/api.md lists them). */
cupat_status cupat_set_workspace_limit(cupat_ctx *ctx, size_t bytes);
cupat_status cupat_set_workspace(cupat_ctx *ctx, void *ptr, size_t bytes);
cupat_status cupat_trim(cupat_ctx *ctx);
cupat_status cupat_get_workspace(cupat_ctx *ctx, size_t *peak_bytes, size_t *held_bytes);

/* Where a pointer lives, as the library sees it. */
typedef enum cupat_memory_kind {
    CUPAT_MEMORY_HOST = 0,        /* plain (pageable) host memory            */
    CUPAT_MEMORY_HOST_PINNED = 1, /* page-locked host memory known to CUDA   */
    CUPAT_MEMORY_DEVICE = 2,
    CUPAT_MEMORY_MANAGED = 3
} cupat_memory_kind;
cupat_status cupat_pointer_kind(cupat_ctx *ctx, const void *ptr, cupat_memory_kind *kind);

/* ------------------------------------------------- out-of-core streaming -- */
/* Pinned (page-locked) host memory for data larger than the device: on the
 * CUDA backend cudaMallocHost, on the CPU backend 256-byte aligned host
 * memory. bytes == 0 gives *ptr = NULL. Pinned memory is taken from the
 * host's RAM for good until freed: pin what the program streams, no more. */
cupat_status cupat_malloc_host(cupat_ctx *ctx, void **ptr, size_t bytes);
/* Free memory from cupat_malloc_host; NULL is accepted; any other pointer
 * (cudaHostRegister'd memory, a double free) is refused as cupat_free does. */
cupat_status cupat_free_host(cupat_ctx *ctx, void *ptr);

/* Out-of-core primitives (docs/streams.md; PCCP 6.1.1's overlap loop inside
 * the library). On the CUDA backend cupat_vadd_f32, cupat_saxpy,
 * cupat_reduce / _host, cupat_dot / _host, cupat_rgb_to_gray and
 * cupat_histogram_even / _range take their data arguments in pinned host
 * memory (cupat_malloc_host, cudaMallocHost, cudaHostRegister) of any size,
 * larger than the device's memory too; also managed memory, which they stream
 * when it passes half the device's memory (smaller managed data is used in
 * place). Such a call copies the host data through device buffers in chunks
 * over several streams: chunk k's copy in, kernel and copy out go to stream
 * k % streams, so copies in, kernels and copies out of different chunks
 * overlap. Arguments in device memory are used in place; pageable host memory
 * is still refused (CUPAT_ERROR_HOST_POINTER): pin it. Stream-ordered like
 * every call: the host outputs hold the results once the context's stream has
 * been synchronized (cupat_sync; the _host reductions wait themselves).
 * Reductions and histograms combine one partial result a chunk, in chunk
 * order, with the library's deterministic reduction: a result depends on the
 * chunk size, never on the stream count or on timing. Outputs that are not
 * streamed (the reduction's result, the histogram's counts) follow the
 * function's usual rule (device memory on CUDA).
 *
 * cupat_set_streaming: chunk_bytes is what one chunk moves of the widest data
 * argument (0: auto: a sixteenth of that argument rounded up to MiB, at least
 * 4 MiB and at most min(256 MiB, device memory / 64); a fixed rule of the
 * size, so results do not change from run to run); streams 1..16 (0: auto, 3
 * lanes: copy in, compute, copy out; 2 on a device with one copy engine). On
 * the CPU backend a chunk_bytes > 0 makes the same calls run chunk by chunk
 * through lane buffers (the partition and the combining of the CUDA backend,
 * on the host); 0 (the default) runs them whole. cupat_get_streaming gives
 * the values a call on large data would use now (auto resolved: the largest
 * auto chunk; on the CPU chunk 0 means off). */
cupat_status cupat_set_streaming(cupat_ctx *ctx, size_t chunk_bytes, int streams);
cupat_status cupat_get_streaming(cupat_ctx *ctx, size_t *chunk_bytes, int *streams);

/* ------------------------------------------------------------ variants -- */

/* One rung of a pattern's ladder. */
typedef struct cupat_variant_info {
    const char *pattern;   /* "vadd"                                        */
    const char *name;      /* "vec4"                                        */
    const char *technique; /* what this rung adds, one line                 */
    const char *source;    /* book section it comes from ("PMPP 2.3")      */
    cupat_backend backend; /* CUDA or CPU                                   */
    int is_default;        /* 1 for the rung that runs unless one is pinned */
} cupat_variant_info;

/* All registered pattern names (static storage). */
cupat_status cupat_patterns(const char *const **names, size_t *count);
/* The ladder of `pattern` in order, naive first (static storage). */
cupat_status cupat_variants(const char *pattern, const cupat_variant_info **list,
                            size_t *count);
/* Pin rung `variant` of `pattern` on ctx (NULL or "default": back to default).
 * Rung names are per backend, but a technique keeps its name: the CPU rung
 * "openmp_X" is the CPU form of the CUDA rung "X", and pinning either name
 * pins the one of ctx's backend (reduce, dot: "compensated" works on both).
 * Fails with CUPAT_ERROR_NOT_FOUND for an unknown pattern or rung, and with
 * CUPAT_ERROR_NOT_SUPPORTED for a rung of another backend with no form on
 * this one (the message lists this backend's rungs). */
cupat_status cupat_set_variant(cupat_ctx *ctx, const char *pattern, const char *variant);
/* The rung that will run for `pattern` on ctx. */
cupat_status cupat_get_variant(const cupat_ctx *ctx, const char *pattern,
                               const cupat_variant_info **info);

/* --------------------------------------------------------- elementwise -- */

/* Outputs of the elementwise calls may be exactly an input (same pointer and
 * leading dimension: in place); any other overlap is CUPAT_ERROR_INVALID_VALUE.
 * gray and blur allow no overlap at all. */

/* c[i] = a[i] + b[i], i < n (PMPP 2.3). Pattern "vadd". */
cupat_status cupat_vadd_f32(cupat_ctx *ctx, size_t n, const float *a, const float *b,
                            float *c);
/* y[i] = alpha * x[i] + y[i] (single rounding: fused multiply-add). Pattern "saxpy". */
cupat_status cupat_saxpy(cupat_ctx *ctx, size_t n, float alpha, const float *x, float *y);
/* C = A + B for rows x cols row-major matrices with leading dimensions (in
 * elements, >= cols) (PCCP 2.4 / 3.3). Pattern "matadd". */
cupat_status cupat_matadd_f32(cupat_ctx *ctx, size_t rows, size_t cols, const float *A,
                              size_t lda, const float *B, size_t ldb, float *C, size_t ldc);

/* Interleaved 8-bit RGB (3 bytes a pixel) to 8-bit gray,
 * gray = (uint8)(0.21 r + 0.71 g + 0.07 b) as PMPP 3.2 writes it, evaluated in
 * f32 without contraction, so every backend gives the same bytes. Pitches are
 * in bytes (>= 3*width and >= width). Pattern "gray". */
cupat_status cupat_rgb_to_gray(cupat_ctx *ctx, size_t width, size_t height,
                               const uint8_t *rgb, size_t rgb_pitch, uint8_t *gray,
                               size_t gray_pitch);
/* Box blur of radius r (window (2r+1)^2) over an image of `channels` (1..4)
 * interleaved 8-bit channels: each output is the integer mean (truncated) of the
 * window's pixels that lie inside the image (PMPP 3.3). Tightly packed rows.
 * Pattern "blur". radius <= 64. */
cupat_status cupat_blur(cupat_ctx *ctx, size_t width, size_t height, int channels,
                        int radius, const uint8_t *in, uint8_t *out);

/* --------------------------------------------------------------- images -- */

/* A host image: rows tightly packed, `channels` interleaved 8-bit samples. */
typedef struct cupat_image {
    size_t width, height;
    int channels; /* 1 gray, 3 RGB, 4 RGBA */
    uint8_t *data;
} cupat_image;

/* Read a PNG, PPM, PGM (also PBM, PAM) file (format from its contents). 16-bit
 * samples are scaled to 8 bits as round(v * 255 / maxval), palettes expanded;
 * gray gives 1 channel, colour 3, and anything with alpha (gray+alpha, tRNS,
 * RGBA) 4 channels (gray+alpha as RGBA with r = g = b). ctx may be NULL
 * (message then in cupat_last_error(NULL)). CUPAT_ERROR_IO: unreadable;
 * CUPAT_ERROR_FORMAT: malformed or absurd dimensions (checked before any
 * allocation); CUPAT_ERROR_NOT_SUPPORTED: a format this build lacks (PNG
 * without libpng; PBM/PGM/PPM/PAM are always there). A failed read frees
 * all it allocated. The file is read front to back, never rewound: a pipe
 * or FIFO (/dev/stdin) works as a path. */
cupat_status cupat_image_read(cupat_ctx *ctx, const char *path, cupat_image *img);
/* The same from an open stream (stdin, a pipe, a socket): f is read through
 * a buffer and not closed; where f can seek, it is left just past the image,
 * else the buffer may have taken bytes beyond it. `name` stands for the file
 * in messages (NULL: "(stream)"). */
cupat_status cupat_image_read_stream(cupat_ctx *ctx, FILE *f, const char *name,
                                     cupat_image *img);
/* The same from a file's `size` bytes in memory (messages say "(memory)"). */
cupat_status cupat_image_read_memory(cupat_ctx *ctx, const void *data, size_t size,
                                     cupat_image *img);
/* Write by the extension of `path`: .png (1, 3, 4 channels), .ppm (1 or 3:
 * gray is copied into r, g, b), .pgm (1), .pnm (P5 for 1, P6 for 3), .pam
 * (1, 3, 4; keeps alpha). Refused combinations (e.g. RGBA to .ppm, any
 * format with 2 channels) are CUPAT_ERROR_INVALID_VALUE; a failed write
 * removes the partial file. */
cupat_status cupat_image_write(cupat_ctx *ctx, const char *path, const cupat_image *img);
/* The same to an open stream (stdout, a pipe) in `format`: "png", "ppm",
 * "pgm", "pnm" or "pam" (any case), as the extensions above. f is flushed,
 * not closed; on a failure part of the image may have been written. */
cupat_status cupat_image_write_stream(cupat_ctx *ctx, FILE *f, const char *format,
                                      const cupat_image *img);
/* Allocate img->data for the given shape (zeroed; channels 1, 3 or 4, else
 * CUPAT_ERROR_INVALID_VALUE) / release it. */
cupat_status cupat_image_alloc(cupat_ctx *ctx, cupat_image *img, size_t width,
                               size_t height, int channels);
void cupat_image_free(cupat_image *img);

/* ------------------------------------------------------------- reduce -- */

/* Element types of the typed primitives. */
typedef enum cupat_type {
    CUPAT_F32 = 0, /* float    */
    CUPAT_F64 = 1, /* double   */
    CUPAT_I32 = 2, /* int32_t  */
    CUPAT_U32 = 3, /* uint32_t */
    CUPAT_I64 = 4, /* int64_t  */
    CUPAT_U64 = 5  /* uint64_t */
} cupat_type;
/* Bytes of one element (0 for a value outside the enum) and the name ("f32"). */
size_t cupat_type_size(cupat_type t);
const char *cupat_type_name(cupat_type t);

/* Reduction operations.
 * SUM: floats follow IEEE 754 (a NaN anywhere, or +inf with -inf, gives NaN;
 *   an infinity otherwise wins); integers wrap modulo 2^bits, so the result
 *   is exact and independent of order.
 * MIN / MAX: IEEE 754-2019 minimum / maximum: a NaN anywhere gives NaN, and
 *   -0 orders below +0. The result is exact.
 * ARGMIN / ARGMAX: the value MIN / MAX gives and the index of its first
 *   occurrence (a NaN anywhere: the first NaN). */
typedef enum cupat_op {
    CUPAT_OP_SUM = 0,
    CUPAT_OP_MIN = 1,
    CUPAT_OP_MAX = 2,
    CUPAT_OP_ARGMIN = 3,
    CUPAT_OP_ARGMAX = 4
} cupat_op;
const char *cupat_op_name(cupat_op op);

/* Result of ARGMIN / ARGMAX: the member of `value` named by the type, and the
 * index. n == 0 gives the identity: value +inf (ARGMIN) / -inf (ARGMAX), the
 * type's max / min for integers, and index CUPAT_NO_INDEX. */
typedef struct cupat_indexed {
    union {
        float f32;
        double f64;
        int32_t i32;
        uint32_t u32;
        int64_t i64;
        uint64_t u64;
    } value;
    uint64_t index;
} cupat_indexed;
#define CUPAT_NO_INDEX UINT64_MAX

/* Reduce n elements of `type` at x with `op` (pattern "reduce").
 * cupat_reduce writes the result to backend memory `result` (device memory
 * on CUDA: stream-ordered, never synchronizes); cupat_reduce_host writes it
 * to host memory and waits for this call's work only. The result is one
 * element of `type` for SUM/MIN/MAX, a cupat_indexed for ARGMIN/ARGMAX.
 * n == 0 gives the identity (0, +inf / -inf or the type's max / min).
 * `result` must not overlap x (or y for dot): CUPAT_ERROR_INVALID_VALUE.
 * Every rung is deterministic: the same inputs give the same bits, run after
 * run, whatever the stream or timing. The default f32/f64 sum adds 16
 * elements per thread as a balanced tree before accumulating, so its error is
 * bounded by about (n / (threads x 16) + 30) u sum|x_i|; for a compensated
 * sum (TwoSum, error about u |sum|) pin the rung
 * cupat_set_variant(ctx, "reduce", "compensated"), on either backend (the
 * CPU's is named "openmp_compensated"; either name pins the context's). */
cupat_status cupat_reduce(cupat_ctx *ctx, cupat_type type, cupat_op op, size_t n,
                          const void *x, void *result);
cupat_status cupat_reduce_host(cupat_ctx *ctx, cupat_type type, cupat_op op, size_t n,
                               const void *x, void *result);

/* Dot product sum x_i * y_i of two f32 or f64 vectors (pattern "dot"), the
 * products fused into the sums (FMA). Result as for cupat_reduce SUM. The
 * rung "compensated" evaluates it as in twice the working precision (Dot2:
 * error about u |x.y| + n^2 u^2 sum |x_i y_i|), on either backend (CPU:
 * "openmp_compensated", deterministic for any thread count). */
cupat_status cupat_dot(cupat_ctx *ctx, cupat_type type, size_t n, const void *x,
                       const void *y, void *result);
cupat_status cupat_dot_host(cupat_ctx *ctx, cupat_type type, size_t n, const void *x,
                            const void *y, void *result);

/* ---------------------------------------------------------- transpose -- */
/* out = in^T, out of place (pattern "transpose"). `in` is rows x cols,
 * row-major, ld_in (>= cols) elements from one row to the next; `out` is
 * cols x rows with ld_out (>= rows). elem_size is 4 or 8: elements are moved
 * as raw words, so any 4- or 8-byte type (f32, i32, f64, complex f32...) is
 * transposed exactly. in and out must not overlap (no in-place transpose).
 * rows == 0 or cols == 0 does nothing. The default rung uses 16-byte accesses
 * when in, out and both row pitches are 16-byte aligned, and a 32x32 tile
 * otherwise. The teaching rung "serial" (one GPU thread) refuses more than
 * 2^22 elements with CUPAT_ERROR_NOT_SUPPORTED; every other rung takes any size. */
cupat_status cupat_transpose(cupat_ctx *ctx, size_t rows, size_t cols, size_t elem_size,
                             const void *in, size_t ld_in, void *out, size_t ld_out);

/* ---------------------------------------------------------- stencil1d -- */
/* 1D stencil of radius r (0..8) with 2r+1 user coefficients (pattern
 * "stencil1d", PCCP 5.5): out[i] = sum_{j=0..2r} coeffs[j] * in[i + j - r],
 * i < n, with zero padding: inputs outside [0, n) count as 0. The sum runs in
 * the order j = 0, 1, .., 2r as a chain of fused multiply-adds starting from 0
 * (acc = fmaf(coeffs[j], x, acc)) on every backend and rung, so all of them
 * give the same bits. `coeffs` is host memory (read before the call returns);
 * `in` and `out` are backend memory of n floats and must not overlap. */
cupat_status cupat_stencil1d(cupat_ctx *ctx, size_t n, int radius, const float *coeffs,
                             const float *in, float *out);

/* ------------------------------------------------------------- conv2d -- */
/* 2D convolution of an image (pattern "conv2d", PMPP 7; the separable form is
 * pattern "conv2d_sep"). docs/conv2d.md has the ladder.
 *
 * Image: `height` rows of `width` pixels of `channels` (1..4) interleaved
 * samples, 8-bit (CUPAT_PIXEL_U8) or float (CUPAT_PIXEL_F32); row y starts
 * y * pitch BYTES after the first (pitch >= width * channels * sample size;
 * for f32 a multiple of 4, and the pointers 4-byte aligned). Channels are
 * filtered independently with the same filter.
 *
 * Filter: kh rows of kw coefficients (row-major, host memory, read before the
 * call returns), kw and kh odd, 1..31 each; rx = kw / 2, ry = kh / 2. As in
 * cuDNN, OpenCV filter2D and PMPP 7 the filter is not flipped (correlation):
 *   out(x, y) = sum_{i < kh} sum_{j < kw} k[i * kw + j] * in(x + j - rx, y + i - ry)
 * evaluated as ONE chain of float fused multiply-adds from +0, i outer, j
 * inner: acc = fmaf(k[i * kw + j], in(...), acc), every tap included (also
 * the zero ones). Every backend and every rung keeps this order, so every
 * result is bitwise the CPU reference's.
 *
 * Border (pixels outside the image), applied to x and y separately:
 *   CUPAT_BORDER_ZERO    the pixel is 0
 *   CUPAT_BORDER_CLAMP   the nearest edge pixel: x < 0 -> 0, x >= w -> w - 1
 *   CUPAT_BORDER_MIRROR  reflected about the edge pixel, which is not repeated
 *                        (OpenCV BORDER_REFLECT_101): -1 -> 1, -2 -> 2,
 *                        w -> w - 2; folded again while still outside (a 31-tap
 *                        filter over a 3-pixel row: period 2 (w - 1)); w == 1 -> 0
 *
 * 8-bit output: acc (a float, inputs converted exactly) is rounded to the
 * nearest integer, ties to even (rintf), then saturated to 0..255; NaN gives 0.
 * Float output: acc as it is. in and out are backend memory and must not
 * overlap. width or height 0: nothing to do. */
typedef enum cupat_pixel_type { CUPAT_PIXEL_U8 = 0, CUPAT_PIXEL_F32 = 1 } cupat_pixel_type;
typedef enum cupat_border {
    CUPAT_BORDER_ZERO = 0,
    CUPAT_BORDER_CLAMP = 1,
    CUPAT_BORDER_MIRROR = 2
} cupat_border;
#define CUPAT_CONV2D_MAX_K 31
cupat_status cupat_conv2d(cupat_ctx *ctx, cupat_pixel_type type, size_t width, size_t height,
                          int channels, const void *in, size_t in_pitch, void *out,
                          size_t out_pitch, int kw, int kh, const float *coeffs,
                          cupat_border border);
/* The separable form: a row filter of kw taps then a column filter of kh taps
 * (the full filter k[i * kw + j] = col[i] * row[j], in two passes of
 * kw + kh taps instead of kw * kh). Order, per output:
 *   t_i = chain over j of fmaf(row[j], in(x + j - rx, Y_i), .) from +0, where
 *         Y_i is row y + i - ry after the border rule (under ZERO a row
 *         outside gives in = 0 for every j);
 *   acc = chain over i of fmaf(col[i], t_i, .) from +0;
 * then the output rule above (t_i stays a float, never rounded to 8 bits).
 * Every rung gives these bits; against cupat_conv2d with the product filter
 * the difference is rounding only (docs/conv2d.md states the bound). */
cupat_status cupat_conv2d_separable(cupat_ctx *ctx, cupat_pixel_type type, size_t width,
                                    size_t height, int channels, const void *in,
                                    size_t in_pitch, void *out, size_t out_pitch, int kw,
                                    const float *row_coeffs, int kh, const float *col_coeffs,
                                    cupat_border border);

/* ---------------------------------------------------------- stencil3d -- */
/* 3D stencils on a grid with a one-point halo (pattern "stencil3d", PMPP 8;
 * docs/stencil3d.md). type: CUPAT_F32 or CUPAT_F64. The grid is nx * ny * nz
 * points INCLUDING the halo: point (x, y, z) is element x + y * ldy + z * ldz
 * (ldy >= nx, ldz >= ldy * ny; 0 for either means packed: nx, nx * ny).
 * Halo points are those with x, y or z equal to 0 or n - 1; the others are
 * the interior. One step writes every interior point of out from its
 * neighbours in `in`, and copies every halo point (fixed, Dirichlet
 * boundary), so repeated steps keep the boundary. Padding between rows and
 * planes is neither read nor written.
 *
 * points = 7: coeffs[0..6] weigh (center, x-1, x+1, y-1, y+1, z-1, z+1);
 * points = 27: coeffs[(dz + 1) * 9 + (dy + 1) * 3 + (dx + 1)], d in -1..1.
 * The sum is one chain of fused multiply-adds from +0 over the coefficients
 * in index order (fma for f64, fmaf for f32 with the coefficients rounded to
 * float first), on every backend and rung: all results are bitwise equal.
 * coeffs is host memory. in and out are backend memory and must not overlap. */
#define CUPAT_STENCIL3D_7PT 7
#define CUPAT_STENCIL3D_27PT 27
cupat_status cupat_stencil3d(cupat_ctx *ctx, cupat_type type, size_t nx, size_t ny, size_t nz,
                             size_t ldy, size_t ldz, int points, const double *coeffs,
                             const void *in, void *out);
/* `steps` (>= 0) steps over ping-pong buffers: a holds the start grid, b a
 * second buffer of the same layout (its contents are ignored, and a and b
 * must not overlap); *result gets the buffer that holds the final grid (a or
 * b: which one depends on the rung, since the temporal-blocking rung runs
 * several steps a pass); the other holds scratch. Steps run one at a time
 * on the default rung; with the temporal-blocking rung pinned, in passes of
 * 4, 2 and 1 steps (slower on the H100: docs/stencil3d.md). Results equal
 * `steps` single steps bit for bit; steps = 0 gives *result = a. */
cupat_status cupat_stencil3d_run(cupat_ctx *ctx, cupat_type type, size_t nx, size_t ny,
                                 size_t nz, size_t ldy, size_t ldz, int points,
                                 const double *coeffs, int steps, void *a, void *b,
                                 void **result);
/* Named coefficient sets (7-point):
 *   CUPAT_STENCIL3D_LAPLACIAN  the discrete Laplacian with spacing h = param:
 *                              center -6 / h^2, the six neighbours 1 / h^2
 *   CUPAT_STENCIL3D_HEAT       one explicit Euler step of the heat equation,
 *                              param = alpha dt / h^2 (stable for <= 1/6):
 *                              center 1 - 6 param, neighbours param
 * Fills coeffs[0..6] and *points = 7. */
typedef enum cupat_stencil3d_preset {
    CUPAT_STENCIL3D_LAPLACIAN = 0,
    CUPAT_STENCIL3D_HEAT = 1
} cupat_stencil3d_preset;
cupat_status cupat_stencil3d_coeffs(cupat_stencil3d_preset preset, double param, int *points,
                                    double coeffs[27]);
/* --------------------------------------------------------------- gemm -- */
/* How a matrix argument enters the product: as stored, or transposed. */
typedef enum cupat_trans { CUPAT_TRANS_N = 0, CUPAT_TRANS_T = 1 } cupat_trans;

/* Layout flags of cupat_gemm_f32 / cupat_gemv_f32. Row-major (0) unless
 * CUPAT_COL_MAJOR is given: then every matrix is column-major, as in BLAS. A
 * leading dimension counts elements between consecutive rows (row-major) or
 * columns (column-major) of the matrix as stored, before op, and must be
 * >= max(1, its row length / column height). */
#define CUPAT_ROW_MAJOR 0u
#define CUPAT_COL_MAJOR 1u

/* C = alpha op(A) op(B) + beta C in f32 on CUDA cores (no TF32): C is m x n,
 * op(A) m x k, op(B) k x n; m, n, k <= INT_MAX (0 allowed). beta == 0 never
 * reads C (NaN there is ignored); alpha == 0 or k == 0 gives C = beta C without
 * reading A or B (then A and B may be NULL). Pattern "gemm": the ladder from one
 * thread per output (PMPP 3.4) to multistage cp.async tiles; the default picks
 * its tile configuration by shape. Each element's error is at most
 * 2 max(k,1) FLT_EPSILON (|alpha| (|op(A)| |op(B)|)_ij + |beta| |C_ij|).
 * C must share no byte with A or B where they are read (no in-place product:
 * CUPAT_ERROR_INVALID_VALUE naming both); the test is exact over the
 * elements each spans, so C may be another column block of A's matrix. */
cupat_status cupat_gemm_f32(cupat_ctx *ctx, unsigned flags, cupat_trans op_a,
                            cupat_trans op_b, size_t m, size_t n, size_t k, float alpha,
                            const float *A, size_t lda, const float *B, size_t ldb,
                            float beta, float *C, size_t ldc);

/* y = alpha op(A) x + beta y with A stored m x n (before op): op N gives y of m
 * and x of n elements, op T y of n and x of m. Contiguous x and y. beta == 0
 * never reads y. y must share no byte with A or x where they are read
 * (CUPAT_ERROR_INVALID_VALUE); A and x may overlap. Pattern "gemv" (PMPP ch. 3
 * exercise): one warp per row with shuffles (op N), coalesced column sums (op T). */
cupat_status cupat_gemv_f32(cupat_ctx *ctx, unsigned flags, cupat_trans op_a, size_t m,
                            size_t n, float alpha, const float *A, size_t lda,
                            const float *x, float beta, float *y);

/* ------------------------------------------------- half-precision types -- */
/* 16-bit floating-point storage (docs/gemm-tensor.md):
 *   cupat_f16   IEEE 754 binary16: 1 sign, 5 exponent, 10 mantissa bits
 *   cupat_bf16  bfloat16: 1 sign, 8 exponent, 7 mantissa bits (the top half
 *               of an f32)
 * Each is a struct holding the bits, not a bare uint16_t: C has no distinct
 * typedefs, and with a struct a bf16 or an integer passed where an f16 goes
 * does not compile (their pointers draw a diagnostic), and no arithmetic
 * happens on the bits by accident. Size and alignment are uint16_t's (2
 * bytes), so arrays have the layout of CUDA's __half and __nv_bfloat16 and
 * copy bit for bit. */
typedef struct cupat_f16 {
    uint16_t bits;
} cupat_f16;
typedef struct cupat_bf16 {
    uint16_t bits;
} cupat_bf16;

/* Host conversions (pure C, no device needed; never fail). To f16 / bf16 /
 * tf32: IEEE 754 round to nearest, ties to even, with overflow to infinity
 * (f16: |x| >= 65520 gives inf, the midpoint above the largest f16, 65504;
 * bf16: |x| >= 0x1.ffp127), results below the normal range rounded to the
 * subnormal grid, the sign kept (-0 stays -0). From f16 / bf16 to f32: exact,
 * subnormals included. A NaN stays a NaN of the same sign, made quiet (the
 * quiet bit set), with the top bits of its payload kept and the bits the
 * narrower format lacks dropped; so a quiet NaN goes to f32 and back
 * unchanged, and a signalling one comes back quiet. */
cupat_f16 cupat_f32_to_f16(float x);
float cupat_f16_to_f32(cupat_f16 h);
cupat_bf16 cupat_f32_to_bf16(float x);
float cupat_bf16_to_f32(cupat_bf16 h);
/* TF32 (tensor float 32: f32's 8-bit exponent, 10 mantissa bits) kept in an
 * f32: x rounded to nearest, ties to even, at mantissa bit 13, the low 13 bits
 * cleared. Finite x >= 0x1.ffep127 in magnitude overflows to inf. (The
 * hardware's cvt.rna.tf32.f32 rounds ties away from zero; cupat rounds ties
 * to even, on every backend.) */
float cupat_f32_to_tf32(float x);

/* ------------------------------------------------- gemm (mixed types) -- */
/* Element types of cupat_gemm. A separate enum from cupat_type: these are
 * storage and compute formats of one product, not element types that the
 * other typed primitives accept. */
typedef enum cupat_gemm_type {
    CUPAT_GEMM_F16 = 0,  /* cupat_f16                                        */
    CUPAT_GEMM_BF16 = 1, /* cupat_bf16                                       */
    CUPAT_GEMM_TF32 = 2, /* input only: float storage, each element rounded
                          * by cupat_f32_to_tf32 before its products         */
    CUPAT_GEMM_F32 = 3,  /* output only: float                               */
    CUPAT_GEMM_I8 = 4,   /* input only: int8_t                               */
    CUPAT_GEMM_I32 = 5   /* output only: int32_t                             */
} cupat_gemm_type;
/* Bytes of one stored element (0 outside the enum) and the name ("bf16"). */
size_t cupat_gemm_type_size(cupat_gemm_type t);
const char *cupat_gemm_type_name(cupat_gemm_type t);

/* C = alpha op(A) op(B) + beta C with A and B of in_type and C of out_type
 * (pattern "gemm_tc": the tensor-core ladder; docs/gemm-tensor.md). The
 * pairs (each one cublasGemmEx also takes):
 *   in_type  out_type     accumulate   alpha, beta
 *   F16      F16 or F32   f32          (float)alpha, (float)beta
 *   BF16     BF16 or F32  f32          (float)alpha, (float)beta
 *   TF32     F32          f32          (float)alpha, (float)beta
 *   I8       I32          i32          (int32_t)alpha, (int32_t)beta
 * Any other pair, or a type outside the enum, is CUPAT_ERROR_INVALID_VALUE
 * naming in_type / out_type. alpha and beta are doubles because a double
 * holds every float and every int32_t exactly: float types round them to f32
 * once (as a float argument would be; a finite value beyond FLT_MAX is
 * CUPAT_ERROR_INVALID_VALUE); I8 needs integers in int32_t's range
 * (else CUPAT_ERROR_INVALID_VALUE naming alpha or beta), as
 * CUBLAS_COMPUTE_32I takes int32 scalars.
 *
 * Layout, op, leading dimensions (in elements of each matrix's type), the
 * size limit (m, n, k <= INT_MAX, 0 allowed), the special cases and the
 * overlap rule are cupat_gemm_f32's: flags CUPAT_ROW_MAJOR or
 * CUPAT_COL_MAJOR; beta == 0 never reads C (NaN there is ignored); alpha ==
 * 0 or k == 0 gives C = beta C without reading A or B (which may then be
 * NULL); C shares no byte with A or B where they are read.
 *
 * Float types: each product of two inputs (after rounding to tf32 for TF32)
 * is exact in f32 barring over/underflow; k of them are summed in f32 in the
 * rung's order; then r = alpha s + beta c in f32 (c: C's element, exact in
 * f32), rounded once to out_type by the rules above. Each element is within
 *   2 max(k,1) FLT_EPSILON (|alpha| (|op(A)| |op(B)|)_ij + |beta| |C_ij|)
 *   + u_out |r| + t_out
 * of the exact value with the rounded inputs, where u_out is the output's
 * unit roundoff (f32: 0, it is in the first term; f16: 2^-11; bf16: 2^-8) and
 * t_out half its smallest subnormal (f16: 2^-25; bf16: 2^-134; f32: 0).
 * I8: products and sums in 32-bit two's complement, r = alpha s + beta c
 * likewise: every result is exact modulo 2^32 (wraps, never undefined), the
 * same bits on every rung.
 *
 * Backends: the CPU rung ("cpu", OpenMP) is the reference; on CUDA the
 * "wmma" rung (compute capability 8.0 or later, else
 * CUPAT_ERROR_NOT_SUPPORTED), the first of the tensor-core ladder. */
cupat_status cupat_gemm(cupat_ctx *ctx, unsigned flags, cupat_trans op_a, cupat_trans op_b,
                        size_t m, size_t n, size_t k, cupat_gemm_type in_type,
                        cupat_gemm_type out_type, double alpha, const void *A, size_t lda,
                        const void *B, size_t ldb, double beta, void *C, size_t ldc);

/* --------------------------------------------------------------- scan -- */
/* Prefix scans (pattern "scan", PMPP ch. 11). For i < n:
 *   inclusive: y[i] = x[0] op x[1] op ... op x[i]
 *   exclusive: y[i] = identity op x[0] op ... op x[i-1]  (y[0] = identity)
 * op is CUPAT_OP_SUM, CUPAT_OP_MIN or CUPAT_OP_MAX with cupat_reduce's rules
 * (integer sums wrap modulo 2^bits; float MIN / MAX are IEEE 754-2019
 * minimum / maximum: NaN propagates, -0 < +0); the identity is cupat_reduce's
 * (0, +inf / type max for MIN, -inf / type min for MAX). y == x (in place) is
 * allowed; any other overlap is CUPAT_ERROR_INVALID_VALUE. n may exceed 2^32.
 * Every rung is deterministic: float sums give the same bits run after run.
 * A float sum's output i is within gamma(d) * (|x[0]| + ... + |x[i]|) of the
 * exact prefix, gamma(d) = d u / (1 - d u), where d, the rung's summation
 * depth, is at most log2(tile) + items per thread + the tile's index for the
 * default (docs/scan.md gives each rung's d). Stream-ordered. */
typedef enum cupat_scan_mode {
    CUPAT_SCAN_INCLUSIVE = 0,
    CUPAT_SCAN_EXCLUSIVE = 1
} cupat_scan_mode;
cupat_status cupat_scan(cupat_ctx *ctx, cupat_type type, cupat_op op, cupat_scan_mode mode,
                        size_t n, const void *x, void *y);

/* Segmented scans (pattern "segscan"): the scan restarts at every segment.
 * cupat_scan_segmented: a segment starts at i = 0 and wherever head_flags[i]
 * != 0 (one byte per element). cupat_scan_by_key: segments are the maximal
 * runs of consecutive equal keys (key_type any cupat_type, keys compared as
 * raw bits). y may equal x; y must not overlap keys / flags. */
cupat_status cupat_scan_segmented(cupat_ctx *ctx, cupat_type type, cupat_op op,
                                  cupat_scan_mode mode, size_t n, const uint8_t *head_flags,
                                  const void *x, void *y);
cupat_status cupat_scan_by_key(cupat_ctx *ctx, cupat_type key_type, cupat_type type,
                               cupat_op op, cupat_scan_mode mode, size_t n, const void *keys,
                               const void *x, void *y);

/* ------------------------------------------------------ stream compaction -- */
/* One value of any cupat_type (the member named by the type is used). */
typedef union cupat_value {
    float f32;
    double f64;
    int32_t i32;
    uint32_t u32;
    int64_t i64;
    uint64_t u64;
} cupat_value;

/* A predicate on one element v (floats compare as IEEE 754: NaN is never
 * < v, > v or in a range, and is nonzero). */
typedef enum cupat_pred_kind {
    CUPAT_PRED_NONZERO = 0, /* v != 0                     */
    CUPAT_PRED_LESS = 1,    /* v < a                      */
    CUPAT_PRED_GREATER = 2, /* v > a                      */
    CUPAT_PRED_IN_RANGE = 3 /* a <= v && v < b  ([a, b))  */
} cupat_pred_kind;
typedef struct cupat_predicate {
    cupat_pred_kind kind;
    cupat_value a, b;
} cupat_predicate;

/* Stream compaction (pattern "select", PMPP 11 application). The elements to
 * keep are given either by `flags` (one byte per element, nonzero = keep) or
 * by `pred` (host memory): exactly one of the two is non-NULL.
 * cupat_select: the kept elements, in their order, to y[0, count).
 * cupat_partition: stable two-way split: the kept elements in order, then
 *   the others in order: y holds all n.
 * cupat_unique: drops every element equal (same bits) to the one before it.
 * `count` (the number kept; a uint64_t) is device or managed memory (written
 * in stream order, no wait) or host memory (the call waits for its own work
 * and writes it). y must not overlap x, flags or count. */
cupat_status cupat_select(cupat_ctx *ctx, cupat_type type, size_t n, const void *x,
                          const uint8_t *flags, const cupat_predicate *pred, void *y,
                          uint64_t *count);
cupat_status cupat_partition(cupat_ctx *ctx, cupat_type type, size_t n, const void *x,
                             const uint8_t *flags, const cupat_predicate *pred, void *y,
                             uint64_t *count);
cupat_status cupat_unique(cupat_ctx *ctx, cupat_type type, size_t n, const void *x, void *y,
                          uint64_t *count);


/* =============================================================== graph == */
/* Graph traversal (PMPP ch. 15): a graph handle in CSR, breadth-first search
 * from one or many sources, the Graph500 Kronecker generator and the
 * Graph500 BFS validation. docs/bfs.md has the ladder and the rules.
 *
 * A cupat_graph holds n vertices (n <= INT32_MAX - 1: vertex ids, levels and
 * parents are int32_t) and its adjacency in CSR: row_ptr (n + 1 uint64_t,
 * so edge counts beyond 2^32 work), col_idx (int32_t), on the context's
 * backend, plus a host copy for the validation; a directed graph also keeps
 * its transpose (the in-edges a bottom-up step scans). The handle owns
 * everything: create calls copy the caller's arrays, which may be host or
 * backend memory (detected per pointer).
 *
 * Building follows Graph500 kernel 1, which lets the construction drop what
 * the search never needs: self-loops (u, u) and duplicate edges are REMOVED
 * from the CSR; CUPAT_GRAPH_UNDIRECTED first adds (v, u) for every (u, v)
 * (symmetrized, then deduplicated). The input tuples still count for TEPS:
 * Graph500 counts every input tuple, self-loops and duplicates included,
 * whose endpoints lie in the searched component (cupat_bfs_check's
 * traversed_edges). Neighbours of a vertex are sorted by id. */
typedef struct cupat_graph cupat_graph;

#define CUPAT_GRAPH_DIRECTED 0u   /* flags: keep (u, v) as u -> v only       */
#define CUPAT_GRAPH_UNDIRECTED 1u /* flags: (u, v) is u -> v and v -> u      */

/* From nedges pairs edges[2i] -> edges[2i + 1] (Graph500's packed edge
 * list) of id_type CUPAT_I32, CUPAT_U32, CUPAT_I64 or CUPAT_U64; every id in
 * [0, n) (the message names the first pair that is not). n == 0 needs
 * nedges == 0; edges may be NULL when nedges == 0. */
cupat_status cupat_graph_create_edges(cupat_ctx *ctx, cupat_graph **g, size_t n,
                                      size_t nedges, cupat_type id_type, const void *edges,
                                      unsigned flags);
/* From a CSR triple: row_ptr (n + 1 entries, starting at 0, never
 * decreasing, ending at nnz) and col_idx (nnz entries in [0, n)), both of
 * index_type (the four integer types). Self-loops and repeated columns are
 * dropped; CUPAT_GRAPH_UNDIRECTED symmetrizes. */
cupat_status cupat_graph_create_csr(cupat_ctx *ctx, cupat_graph **g, size_t n, size_t nnz,
                                    cupat_type index_type, const void *row_ptr,
                                    const void *col_idx, unsigned flags);
/* From a file (or `size` bytes in memory; messages then say "(memory)").
 * A file starting with "%%MatrixMarket" is read by cupat_mm_read's parser
 * (its rules and messages; the matrix must be square): the pattern of the
 * matrix, entry (i, j) is the edge i -> j (values ignored; each entry a
 * tuple, repeats included), a symmetric file comes with both triangles.
 * Otherwise a plain edge list: one edge "u v" a
 * line (0-based decimal ids separated by blanks or tabs, an optional third
 * numeric field, a weight, is ignored), blank lines and lines starting with
 * '#' or '%' skipped; n = the largest id + 1. Refused with
 * CUPAT_ERROR_FORMAT and a message naming the file and the line: a missing
 * or non-numeric id, a negative id or one >= INT32_MAX - 1, a third field
 * that is not a number, a fourth field; with CUPAT_ERROR_SIZE, n beyond
 * 2^24 and beyond 16 for each edge listed (as cupat_mm_read holds a
 * header's sizes). Unreadable file (or a directory): CUPAT_ERROR_IO. */
cupat_status cupat_graph_read(cupat_ctx *ctx, cupat_graph **g, const char *path,
                              unsigned flags);
cupat_status cupat_graph_read_memory(cupat_ctx *ctx, cupat_graph **g, const void *data,
                                     size_t size, unsigned flags);

/* The Graph500 Kronecker (R-MAT) generator: 2^scale vertices, edge_factor
 * 2^scale edges, each placed by scale quadrant choices with
 * (A, B, C, D) = (0.57, 0.19, 0.19, 0.05), then the vertex labels permuted
 * and the edge list shuffled, as the Graph500 specification says. The
 * random stream is splitmix64 from `seed` (the same edges for the same
 * seed on every machine and thread count), not the reference code's MRG.
 * cupat_kronecker_edges writes the 2 edge_factor 2^scale ids (int64_t,
 * host memory) of the input list; cupat_graph_kronecker builds the
 * undirected graph of those edges. scale 1..30, edge_factor 1..1024. */
cupat_status cupat_kronecker_edges(int scale, int edge_factor, uint64_t seed, int64_t *edges);
cupat_status cupat_graph_kronecker(cupat_ctx *ctx, cupat_graph **g, int scale,
                                   int edge_factor, uint64_t seed);

/* Frees the handle; NULL g is accepted. ctx: the context g was made on. */
cupat_status cupat_graph_destroy(cupat_ctx *ctx, cupat_graph *g);

/* What a handle holds. */
typedef struct cupat_graph_info {
    size_t vertices;     /* n                                                 */
    size_t edges;        /* CSR entries (an undirected edge counts twice)     */
    size_t input_edges;  /* tuples given (Graph500's M)                       */
    size_t self_loops;   /* input tuples (u, u), dropped                      */
    size_t duplicates;   /* CSR entries dropped as repeats                    */
    size_t max_degree;   /* longest adjacency list (out-degree)               */
    size_t isolated;     /* vertices with no edge in or out                   */
    int undirected;      /* 1 when symmetrized                                */
} cupat_graph_info;
cupat_status cupat_graph_get_info(cupat_ctx *ctx, const cupat_graph *g,
                                  cupat_graph_info *info);
/* Copy the CSR out (n + 1 uint64_t, edges int32_t; host or backend memory;
 * either pointer may be NULL to skip it). */
cupat_status cupat_graph_get_csr(cupat_ctx *ctx, const cupat_graph *g, uint64_t *row_ptr,
                                 int32_t *col_idx);

/* Breadth-first search (pattern "bfs") from `source`: levels[v] = the
 * number of edges on a shortest path source -> v, -1 where v is not
 * reachable; parents[v] = v's predecessor on one such path (the BFS tree),
 * parents[source] = source, -1 where unreached. levels and parents have n
 * int32_t elements of backend memory (parents may be NULL: levels only;
 * they must not overlap). Levels are unique; parents may differ between
 * rungs and runs (any valid tree). The default CUDA rung is
 * direction-optimizing (Beamer 2012): top-down while the frontier is small,
 * bottom-up while it is large. The call waits for its work (each level's
 * frontier size decides the next step on the host). */
cupat_status cupat_bfs(cupat_ctx *ctx, const cupat_graph *g, int32_t source, int32_t *levels,
                       int32_t *parents);
/* From nsources sources at once (host array, repeats allowed, nsources >= 1):
 * levels[v] = the distance to the nearest source; parents[s] = s for every
 * source. */
cupat_status cupat_bfs_multi(cupat_ctx *ctx, const cupat_graph *g, size_t nsources,
                             const int32_t *sources, int32_t *levels, int32_t *parents);

/* The Graph500 validation of a search result (levels and parents: n int32_t,
 * host or backend memory; sources as for cupat_bfs_multi). The rules:
 *   CUPAT_BFS_RULE_SOURCE: a source has level 0 and is its own parent, and
 *     only sources have level 0;
 *   CUPAT_BFS_RULE_RANGE: every level is -1 or in [0, n), every parent -1
 *     or a vertex, and a vertex is unreached in both arrays or in neither;
 *   CUPAT_BFS_RULE_TREE_EDGE: every tree edge parents[v] -> v is an edge;
 *   CUPAT_BFS_RULE_TREE_LEVEL: levels differ by one along tree edges
 *     (levels[parents[v]] = levels[v] - 1: no cycles);
 *   CUPAT_BFS_RULE_EDGE_LEVEL: every edge u -> w with u reached has
 *     levels[w] <= levels[u] + 1 (undirected: they differ by at most one);
 *   CUPAT_BFS_RULE_SPAN: every vertex reachable is reached (no edge leads
 *     from a reached vertex to an unreached one).
 * Returns CUPAT_SUCCESS when the check ran; check->valid says whether the
 * result passed, and otherwise check->rule, check->vertex and
 * check->message (one line) name the first violation found. Host work
 * (OpenMP); waits for the context's stream. */
typedef enum cupat_bfs_rule {
    CUPAT_BFS_RULE_NONE = 0,
    CUPAT_BFS_RULE_SOURCE = 1,
    CUPAT_BFS_RULE_RANGE = 2,
    CUPAT_BFS_RULE_TREE_EDGE = 3,
    CUPAT_BFS_RULE_TREE_LEVEL = 4,
    CUPAT_BFS_RULE_EDGE_LEVEL = 5,
    CUPAT_BFS_RULE_SPAN = 6
} cupat_bfs_rule;
typedef struct cupat_bfs_check {
    int valid;                /* 1: every rule holds                           */
    cupat_bfs_rule rule;      /* the first rule broken (NONE when valid)        */
    int64_t vertex;           /* the vertex where it was found (-1 if none)     */
    size_t reached;           /* vertices with a level                          */
    int32_t depth;            /* the largest level                              */
    uint64_t traversed_edges; /* input tuples (u, v) with u reached: the TEPS m */
    char message[192];
} cupat_bfs_check;
cupat_status cupat_bfs_check_result(cupat_ctx *ctx, const cupat_graph *g, size_t nsources,
                                    const int32_t *sources, const int32_t *levels,
                                    const int32_t *parents, cupat_bfs_check *check);
/* ========================================================= end graph == */

/* ------------------------------------------------------- merge and sort -- */
/* Key order of cupat_merge and the sorts. Integers by value. Floats (f32,
 * f64) in a total order on their bits, the usual radix-sort bit flip
 * (negative: all bits inverted; positive: the sign bit set):
 *   -NaN (largest payload first) < ... < -NaN (smallest payload) < -inf
 *   < negative numbers < -denormals < -0 < +0 < +denormals < ... < +inf
 *   < +NaN (smallest payload) < ... < +NaN (largest payload)
 * so -0 sorts before +0 and every NaN has one place: negative NaNs first,
 * positive NaNs last. DESCENDING is the exact reverse of that order. Every
 * merge and sort is stable: equal keys (same bits; for a bit range, same
 * bits in the range) keep their input order, in either direction. */
typedef enum cupat_sort_order {
    CUPAT_SORT_ASCENDING = 0,
    CUPAT_SORT_DESCENDING = 1
} cupat_sort_order;

/* Merge two sorted arrays into one (pattern "merge", PMPP ch. 12):
 * a_keys[0, na) and b_keys[0, nb), each sorted in `order`, into
 * keys_out[0, na + nb) sorted in `order`; equal keys keep a's before b's
 * (stable). key_type: any cupat_type. value_size 0 merges keys alone (the
 * value pointers must then be NULL); 4 or 8 carries a_values / b_values
 * (value_size bytes each, moved as raw words) to values_out alongside their
 * keys. Unsorted inputs are the caller's mistake, never a fault: the default
 * rung ("partitioned") and the CPU rungs then give every element once (with
 * its value) in an unspecified order; the CUDA lab rungs (corank, tiled,
 * circular) write only elements of the inputs, but may repeat some and drop
 * others. Nothing outside the arrays is read or written in either case.
 * Outputs must not overlap any input. n beyond 2^32 works. Stream-ordered. */
cupat_status cupat_merge(cupat_ctx *ctx, cupat_type key_type, size_t value_size,
                         cupat_sort_order order, size_t na, const void *a_keys,
                         const void *a_values, size_t nb, const void *b_keys,
                         const void *b_values, void *keys_out, void *values_out);

/* Stable sort of n keys (pattern "sort", PMPP ch. 13), optionally with values
 * (value_size 0: keys alone, values pointers NULL; 4 or 8: values moved with
 * their keys as raw words, e.g. u32 or u64 indices). key_type: U32, I32, F32,
 * U64, I64, F64, in the order described above. keys_out may be exactly
 * keys_in (in place; likewise values_out == values_in); any other overlap
 * between outputs and inputs is refused. The double buffer the passes need
 * comes from the context's scratch pool (n keys and n values of it, plus
 * small tables), so nothing is sized by the caller. n may exceed 2^32.
 * The default CUDA rung is a single-pass-per-digit radix sort (one
 * histogram pass over all digits, then one pass per 8-bit digit with
 * decoupled look-back; Adinets & Merrill 2022). Stream-ordered. */
cupat_status cupat_sort(cupat_ctx *ctx, cupat_type key_type, size_t value_size,
                        cupat_sort_order order, size_t n, const void *keys_in,
                        void *keys_out, const void *values_in, void *values_out);
/* The same, ordering by bits [begin_bit, end_bit) of integer keys only
 * (0 <= begin_bit < end_bit <= 32 or 64): keys equal in those bits keep their
 * input order, so a caller who knows the keys are below 2^20 pays for 3
 * digit passes instead of 4. For I32 / I64 the bits are those of the key
 * with its sign bit inverted (the unsigned order of the signed values), as
 * in CUB. Float keys refuse bit ranges (CUPAT_ERROR_INVALID_VALUE). */
cupat_status cupat_sort_bits(cupat_ctx *ctx, cupat_type key_type, size_t value_size,
                             cupat_sort_order order, size_t n, const void *keys_in,
                             void *keys_out, const void *values_in, void *values_out,
                             int begin_bit, int end_bit);

/* Sort many independent segments (pattern "segsort"): segment s is
 * [offsets[s], offsets[s + 1]), s < num_segments; offsets (num_segments + 1
 * uint64_t, backend memory) must start at 0, end at n and never decrease
 * (empty segments are fine). Each segment is sorted stably in `order`, keys
 * and values as cupat_sort (in place allowed). Checking the offsets reads
 * them on the device and this call waits for that check (one small
 * device-to-host copy); the sorting itself is stream-ordered. Segments of up
 * to 4096 keys are sorted by one block in shared memory; longer ones by the
 * device sort. */
cupat_status cupat_sort_segmented(cupat_ctx *ctx, cupat_type key_type, size_t value_size,
                                  cupat_sort_order order, size_t n, size_t num_segments,
                                  const uint64_t *offsets, const void *keys_in,
                                  void *keys_out, const void *values_in, void *values_out);

/* ---------------------------------------------------------- histogram -- */
/* Histograms (pattern "histogram", PMPP ch. 9). Sample types: */
typedef enum cupat_hist_sample {
    CUPAT_HIST_U8 = 0,  /* uint8_t  */
    CUPAT_HIST_U16 = 1, /* uint16_t */
    CUPAT_HIST_I32 = 2, /* int32_t  */
    CUPAT_HIST_F32 = 3  /* float    */
} cupat_hist_sample;
/* Flags: overwrite `counts` (0) or add to what it holds. */
#define CUPAT_HIST_OVERWRITE 0u
#define CUPAT_HIST_ACCUMULATE 1u
/* Most bins of one histogram (per channel). */
#define CUPAT_HIST_MAX_BINS ((size_t)1 << 20)

/* counts[b] (+)= the number of the n samples x[i] that fall in bin b, b <
 * bins (1 .. CUPAT_HIST_MAX_BINS). count_type is CUPAT_U32 (counts wrap
 * modulo 2^32: use CUPAT_U64 beyond 2^32 - 1 samples a bin) or CUPAT_U64
 * (exact). A sample outside [lower, upper), and a NaN, is not counted.
 *
 * The bin of a sample, exactly (every backend and rung gives the same
 * counts, bit for bit):
 *   u8, u16, i32: lower and upper must be integers (|v| <= 2^40) with lower
 *     < upper; with d = x - lower and R = upper - lower, a sample with
 *     0 <= d < R goes to bin floor(d * bins / R), computed in exact
 *     integer arithmetic (so bins of equal width when R is a multiple of
 *     bins; otherwise widths differ by at most one value).
 *   f32: lo = (float)lower and hi = (float)upper (round to nearest; both
 *     finite, lo < hi, hi - lo finite in float), and scale = (float)bins /
 *     (hi - lo), one f32 division. A sample with lo <= x < hi goes to bin
 *     min((uint32_t)((x - lo) * scale), bins - 1), the subtraction and the
 *     product each rounded to nearest f32 (never fused into an FMA). So a
 *     sample exactly on an interior edge lo + k (hi - lo) / bins lands in
 *     the bin this formula gives, which is bin k when the product is exact.
 * x: n samples (backend memory, aligned to the sample size; any start);
 * counts: bins elements of count_type (backend memory, aligned), sharing no
 * byte with x. Stream-ordered. n may exceed 2^32. */
cupat_status cupat_histogram_even(cupat_ctx *ctx, cupat_hist_sample sample, size_t n,
                                  const void *x, size_t bins, double lower, double upper,
                                  cupat_type count_type, void *counts, unsigned flags);

/* The same with given bin boundaries: `boundaries` holds bins + 1
 * non-decreasing doubles (host memory, read before the call returns; no
 * NaN; +-inf allowed), and sample x goes to bin b when boundaries[b] <= x <
 * boundaries[b + 1], compared exactly as real numbers (found by binary
 * search); below boundaries[0], at or above boundaries[bins], or NaN: not
 * counted. */
cupat_status cupat_histogram_range(cupat_ctx *ctx, cupat_hist_sample sample, size_t n,
                                   const void *x, size_t bins, const double *boundaries,
                                   cupat_type count_type, void *counts, unsigned flags);

/* Multi-channel 8-bit images in one pass: `pixels` pixels of `channels`
 * (1..4) interleaved bytes (RGB: 3, RGBA: 4); counts holds one histogram per
 * channel, channel c at counts[c * bins .. c * bins + bins), each with
 * cupat_histogram_even's integer rule over [lower, upper). */
cupat_status cupat_histogram_channels(cupat_ctx *ctx, int channels, size_t pixels,
                                      const uint8_t *x, size_t bins, double lower,
                                      double upper, cupat_type count_type, void *counts,
                                      unsigned flags);


/* ============================================================== sparse == */
/* Sparse matrices (PMPP ch. 14): a handle, Matrix Market files, the storage
 * formats, SpMV and conjugate gradient. docs/sparse.md has the ladder.
 *
 * A cupat_sparse holds one rows x cols matrix on one context's backend.
 * Index type: CUPAT_I32 or CUPAT_I64 (every index array of the handle);
 * value type: CUPAT_F32 or CUPAT_F64. Its canonical storage is CSR; the
 * other formats are built from it on the backend (cupat_sparse_convert, or
 * the first cupat_spmv that needs one) and kept in the handle until it is
 * destroyed, so a matrix converted once is multiplied many times.
 *
 * Ownership: by default a create call COPIES the caller's arrays (host or
 * backend memory, detected per pointer) into backend memory the handle owns;
 * the caller may free its arrays when the call returns. With
 * CUPAT_SPARSE_BORROW (CSR only) the handle keeps the caller's three CSR
 * arrays, which must be backend memory, unchanged and alive until
 * cupat_sparse_destroy; everything the handle builds beyond them it owns.
 *
 * CSR input: row_ptr (rows + 1 entries) starts at 0, never decreases and
 * ends at nnz; every column index is in [0, cols). Columns within a row may
 * come in any order, and a repeated column adds up in every product. COO
 * input: nnz (row, col, value) triples in any order; duplicates are SUMMED
 * (Matrix Market's rule), so nnz of the handle may be less than given. The
 * create calls check every index (one kernel and one wait on CUDA) and fail
 * with CUPAT_ERROR_INVALID_VALUE naming the first bad entry. */
typedef struct cupat_sparse cupat_sparse;

/* Storage formats (PMPP 14.2 .. 14.6, and SELL-C-sigma). */
typedef enum cupat_sparse_format {
    CUPAT_SPARSE_CSR = 0, /* row pointers, column indices, values (14.3)       */
    CUPAT_SPARSE_COO = 1, /* row index of each entry + CSR's columns/values (14.2) */
    CUPAT_SPARSE_ELL = 2, /* rows padded to the longest, column-major (14.4)   */
    CUPAT_SPARSE_HYB = 3, /* ELL of width K + COO of the entries beyond K (14.5) */
    CUPAT_SPARSE_JDS = 4, /* rows sorted by length, jagged diagonals (14.6)    */
    CUPAT_SPARSE_SELL = 5 /* SELL-C-sigma: slices of 32 rows sorted by length
                           * within windows of sigma rows, each slice padded to
                           * its own longest row, column-major (Kreutzer et al.
                           * 2014; beyond the book) */
} cupat_sparse_format;
#define CUPAT_SPARSE_FORMATS 6
const char *cupat_sparse_format_name(cupat_sparse_format f);

#define CUPAT_SPARSE_COPY 0u   /* flags: copy the caller's arrays (default)  */
#define CUPAT_SPARSE_BORROW 1u /* CSR only: keep the caller's backend arrays */

/* rows, cols >= 0 (an empty matrix is allowed; an I32 matrix needs rows,
 * cols and nnz <= INT32_MAX). row_ptr / col_idx have index_type elements,
 * values value_type elements; with nnz == 0 col_idx and values may be NULL. */
cupat_status cupat_sparse_create_csr(cupat_ctx *ctx, cupat_sparse **A, size_t rows,
                                     size_t cols, size_t nnz, cupat_type index_type,
                                     cupat_type value_type, const void *row_ptr,
                                     const void *col_idx, const void *values,
                                     unsigned flags);
/* flags must be CUPAT_SPARSE_COPY. */
cupat_status cupat_sparse_create_coo(cupat_ctx *ctx, cupat_sparse **A, size_t rows,
                                     size_t cols, size_t nnz, cupat_type index_type,
                                     cupat_type value_type, const void *row_idx,
                                     const void *col_idx, const void *values,
                                     unsigned flags);
/* Frees what the handle owns (never borrowed arrays); NULL A is accepted.
 * ctx must be the context A was created on. */
cupat_status cupat_sparse_destroy(cupat_ctx *ctx, cupat_sparse *A);

/* What a handle holds: shape, types, and the row-length statistics taken
 * when it was created (exact: integer sums). */
typedef struct cupat_sparse_info {
    size_t rows, cols, nnz;
    cupat_type index_type, value_type;
    size_t row_min, row_max;  /* shortest / longest row (0 for no rows) */
    double row_mean, row_std; /* mean and population standard deviation */
    size_t empty_rows;
    unsigned formats;         /* bit (1u << f) set for each format built */
    int borrowed;             /* 1: the CSR arrays are the caller's      */
} cupat_sparse_info;
cupat_status cupat_sparse_get_info(cupat_ctx *ctx, const cupat_sparse *A,
                                   cupat_sparse_info *info);

/* Build format f on the backend (no-op when built). CSR -> COO expands row
 * indices; -> ELL pads every row to the longest (CUPAT_ERROR_SIZE when the
 * padded array would pass both 2^24 slots and 64 (nnz + rows)); -> HYB takes
 * K = min(max, ceil(mean + std)) and moves the rest to COO (counts by
 * cupat_scan); -> JDS sorts rows by length (cupat_sort, stable) and places
 * the diagonals by cupat_scan; -> SELL sorts rows by length within each
 * window of sigma = 1024 rows (cupat_sort_segmented, stable), cuts slices
 * of 32 sorted rows, pads each to its longest row and places the slices by
 * cupat_scan (CUPAT_ERROR_SIZE only when the padded slots would not fit the
 * index type). COO input goes to CSR by cupat_sort of
 * (row, col) keys, a cupat_scan of the run heads and an in-order sum of
 * each run (deterministic). */
cupat_status cupat_sparse_convert(cupat_ctx *ctx, cupat_sparse *A, cupat_sparse_format f);

/* Copy the CSR arrays out to caller memory (host or backend; rows + 1, nnz,
 * nnz elements of the handle's types). Any pointer may be NULL to skip it. */
cupat_status cupat_sparse_get_csr(cupat_ctx *ctx, const cupat_sparse *A, void *row_ptr,
                                  void *col_idx, void *values);

/* y = alpha A x + beta y (pattern "spmv"). x has cols, y rows elements of
 * A's value type (backend memory; y shares no byte with x). beta == 0
 * never reads y (NaN there is ignored). Each y_i is within
 * (len_i + 2) u (|alpha| sum_j |a_ij x_j| + |beta y_i|) of the exact value,
 * u the unit roundoff of the value type (accumulation is in the value
 * type; CPU rungs accumulate in f64). The default CUDA rung is chosen from
 * the row-length statistics (docs/sparse.md); a rung pinned with
 * cupat_set_variant(ctx, "spmv", name) is honoured, building its format on
 * first use. Stream-ordered, except that the first use of a format waits
 * for its conversion. */
cupat_status cupat_spmv(cupat_ctx *ctx, const cupat_sparse *A, double alpha, const void *x,
                        double beta, void *y);

/* Conjugate gradient with a Jacobi (diagonal) preconditioner for a
 * symmetric positive-definite A (pattern "cg"): solves A x = b from the
 * initial guess in x. b, x: rows elements of A's value type (backend
 * memory), A square. Converged means the true residual meets rtol:
 * ||b - A x||_2 <= rtol ||b||_2, recomputed from x with each row summed in
 * f64 (never the recurrence's r_k alone, which rounding lets drift far
 * below it, in f32 most of all).
 * The true residual is recomputed every 50 iterations and whenever the
 * recurrence falls below rtol, and replaces r_k (residual replacement).
 * Stops when it meets rtol, after max_iter iterations, or when the
 * recurrence has twice claimed convergence without the true residual
 * halving: the value type cannot attain rtol on this system (converged = 0,
 * residual = what it attained; f64 reaches about 1e-15 times the condition
 * number, f32 1e-7 times). residuals (host memory; NULL only with
 * history_len 0) receives ||r_k||_2 / ||b||_2 for k = 0 .. iterations, at
 * most history_len values, the true residual at each check.
 * flags: CUPAT_CG_JACOBI (default) or CUPAT_CG_NONE (plain CG). A diagonal
 * entry <= 0 or p.Ap <= 0 proves A not SPD: CUPAT_ERROR_INVALID_VALUE. Not
 * converging is a success with converged = 0. b == 0 gives x = 0 at once.
 * Waits for the result (one small copy an iteration). */
#define CUPAT_CG_JACOBI 0u
#define CUPAT_CG_NONE 1u
typedef struct cupat_cg_result {
    size_t iterations; /* CG steps taken                              */
    double residual;   /* final ||b - Ax||_2 / ||b||_2, recomputed      */
    int converged;     /* 1 exactly when residual <= rtol               */
} cupat_cg_result;
cupat_status cupat_cg(cupat_ctx *ctx, const cupat_sparse *A, const void *b, void *x,
                      double rtol, size_t max_iter, unsigned flags, double *residuals,
                      size_t history_len, cupat_cg_result *result);

/* Matrix Market files (math.nist.gov/MatrixMarket): banner
 * "%%MatrixMarket matrix coordinate|array real|integer|pattern
 * general|symmetric|skew-symmetric" (case-insensitive), '%' comment lines and
 * blank lines, the size line, then the entries with 1-based indices.
 * symmetric / skew-symmetric files hold the lower triangle and are expanded
 * to full storage (skew: a_ji = -a_ij, no diagonal entries). pattern gives
 * values 1; array files list all entries column by column and only the
 * nonzero ones are kept; duplicates in coordinate files are summed.
 * Refused with CUPAT_ERROR_FORMAT and a message naming the file and line:
 * a bad or missing banner, complex / hermitian (CUPAT_ERROR_NOT_SUPPORTED),
 * a bad size line, sizes beyond what the file's length can hold, an entry
 * line with missing or extra fields, an index out of range, a value that
 * is not a finite number (NaN, inf) or not an integer in an integer file,
 * fewer or more entries than declared. With CUPAT_F32 values, also a
 * value finite as text that overflows f32 (1e39). CUPAT_ERROR_SIZE, also
 * with file and line: rows or cols beyond 2^24 and beyond 16 for each
 * entry the file lists (the CSR keeps a pointer for every row, so a short
 * file may not declare billions of them). An I32 handle needs sizes and
 * nnz <= INT32_MAX (CUPAT_ERROR_SIZE). Unreadable file (or a directory):
 * CUPAT_ERROR_IO. */
cupat_status cupat_mm_read(cupat_ctx *ctx, const char *path, cupat_type index_type,
                           cupat_type value_type, cupat_sparse **A);
/* The same from `size` bytes in memory (messages say "(memory)"). */
cupat_status cupat_mm_read_memory(cupat_ctx *ctx, const void *data, size_t size,
                                  cupat_type index_type, cupat_type value_type,
                                  cupat_sparse **A);
/* Write A. flags: CUPAT_MM_ARRAY (dense, column by column; else
 * coordinate), CUPAT_MM_INTEGER or CUPAT_MM_PATTERN (else real: %.9g for
 * f32, %.17g for f64, so the values read back exactly), CUPAT_MM_SYMMETRIC
 * or CUPAT_MM_SKEW (the lower triangle; else general). Refused
 * (CUPAT_ERROR_INVALID_VALUE): integer with a non-integer value, symmetric
 * / skew with a matrix that is not, array + pattern, a non-square matrix
 * as symmetric. A failed write removes the partial file. */
#define CUPAT_MM_ARRAY 1u
#define CUPAT_MM_INTEGER 2u
#define CUPAT_MM_PATTERN 4u
#define CUPAT_MM_SYMMETRIC 8u
#define CUPAT_MM_SKEW 16u
cupat_status cupat_mm_write(cupat_ctx *ctx, const char *path, const cupat_sparse *A,
                            unsigned flags);

/* Generators of the standard test families (host-side construction, then
 * a CSR handle on ctx's backend). Values are deterministic from `seed`.
 *   POISSON2D: the 5-point Laplacian on an n x n grid (rows n^2; 4 on the
 *     diagonal, -1 off it): SPD.      POISSON3D: 7-point on n^3 (6, -1).
 *   BANDED: n rows, the diagonals |i - j| <= k (k <= n - 1, else
 *     CUPAT_ERROR_INVALID_VALUE), symmetric values in [-1, 1) off the
 *     diagonal, 2k + 1 on it (diagonally dominant: SPD).
 *   RANDOM: n x n, k distinct random columns per row, values in [-1, 1).
 *   RMAT: n x n (n rounded up to a power of two), about k n entries from
 *     R-MAT (a, b, c) = (0.57, 0.19, 0.19): power-law row lengths;
 *     duplicates summed. */
typedef enum cupat_sparse_family {
    CUPAT_GEN_POISSON2D = 0,
    CUPAT_GEN_POISSON3D = 1,
    CUPAT_GEN_BANDED = 2,
    CUPAT_GEN_RANDOM = 3,
    CUPAT_GEN_RMAT = 4
} cupat_sparse_family;
cupat_status cupat_sparse_generate(cupat_ctx *ctx, cupat_sparse **A, cupat_sparse_family family,
                                   size_t n, size_t k, uint64_t seed, cupat_type index_type,
                                   cupat_type value_type);
/* ========================================================== end sparse == */

#ifdef __cplusplus
}
#endif
#endif /* CUPAT_H */
