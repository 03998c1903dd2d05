/* SPDX-License-Identifier: Apache-2.0 */
/* elementwise.c — public entry points of the elementwise family (vadd, saxpy,
 * matadd, gray, blur): argument checks, the registered ladders, dispatch to
 * the CUDA launchers or the CPU rung. Also the PCCP 3.3 block-shape lab hook. */
#include "elementwise.h"
#include "elementwise_lab.h"

#include <limits.h>
#include <stdint.h>

/* ------------------------------------------------------------ ladders -- */

#define CUDA CUPAT_BACKEND_CUDA
#define CPU CUPAT_BACKEND_CPU

/* vadd and saxpy share kernels, so they share the ladder. */
#define EW_LADDER(pat)                                                                   \
    {                                                                                    \
        {pat, "naive", "one thread per element, the grid covers n", "PMPP 2.3", CUDA, 0}, \
        {pat, "grid-stride", "fixed grid, one wave of resident blocks; grid-stride loop", \
         "PCCP 5.5", CUDA, 0},                                                           \
        {pat, "vec4", "16-byte float4 loads/stores; scalar head/tail for misaligned starts", \
         "PCCP 4.3", CUDA, 0},                                                           \
        {pat, "vec4-unroll", "4 independent float4 loads per input in flight per thread", \
         "PCCP 4.3", CUDA, 0},                                                           \
        {pat, "vec4-stream", "evict-first streaming cache hints (__ldcs/__stcs)",        \
         "CUDA PG 6.2.3", CUDA, 0},                                                      \
        {pat, "vec4-tile", "no loop: the grid covers n, 4 float4s per thread, blocks retire", \
         "PMPP 6.3", CUDA, 0},                                                           \
        {pat, "vec4-tile8", "vec4-tile with 8 float4s per thread: twice the bytes in flight", \
         "PMPP 6.3", CUDA, 0},                                                           \
        {pat, "bulk-copy", "Hopper bulk copy engine (cp.async.bulk + mbarrier) into shared", \
         "CUDA PG TMA", CUDA, 1},                                                        \
        {pat, "cpu", "OpenMP parallel for simd", "OpenMP", CPU, 1},                      \
    }

static const cupat_variant_info vadd_rungs[] = EW_LADDER("vadd");
static const cupat_variant_info saxpy_rungs[] = EW_LADDER("saxpy");

static const cupat_variant_info matadd_rungs[] = {
    {"matadd", "1d-grid", "1D grid over columns, each thread walks down its column",
     "PCCP 2.4", CUDA, 0},
    {"matadd", "2d", "2D grid of 32x16 blocks, one thread per element", "PCCP 3.3", CUDA, 0},
    {"matadd", "mix", "2D grid of 1D (256x1) blocks, one thread per element", "PCCP 2.4", CUDA,
     0},
    {"matadd", "vec4-rows",
     "float4 along 16-byte aligned rows, flat grid-stride over (row, unit)", "PCCP 4.3", CUDA,
     0},
    {"matadd", "vec4-tile", "no loop: a 2D grid of row slices, 4 float4s a thread", "PMPP 6.3",
     CUDA, 1},
    {"matadd", "cpu", "OpenMP over rows, SIMD along a row", "OpenMP", CPU, 1},
};

static const cupat_variant_info gray_rungs[] = {
    {"gray", "naive-2d", "2D grid of 16x16 blocks, one thread per pixel", "PMPP 3.2", CUDA, 0},
    {"gray", "coarse4", "4 pixels a thread: 3 x 32-bit loads in, one 32-bit store out",
     "PMPP 6.3", CUDA, 0},
    {"gray", "coarse16", "16 pixels a thread: 3 x 128-bit loads in, one 128-bit store out",
     "PMPP 6.3", CUDA, 1},
    {"gray", "cpu", "OpenMP over rows", "OpenMP", CPU, 1},
};

static const cupat_variant_info blur_rungs[] = {
    {"blur", "naive", "one thread per pixel sums its window from global memory", "PMPP 3.3",
     CUDA, 0},
    {"blur", "smem-tile", "output tile + r-pixel halo staged in shared memory", "PMPP 7.4",
     CUDA, 0},
    {"blur", "separable",
     "row sums (16-bit scratch), then sliding column sums: O(1) per output",
     "beyond the books", CUDA, 0},
    {"blur", "conv",
     "cupat_conv2d_separable's fused kernel (tile, row pass, column pass in shared "
     "memory; one read, one write) with a ones filter and the integer-mean output; "
     "radius > 15 runs separable",
     "PMPP 7 (separable filter)", CUDA, 0},
    {"blur", "columns",
     "one pass, no shared memory: a warp walks a row segment down a chunk of rows, "
     "column sums in registers (add the entering row, drop the leaving one), row "
     "windows by shuffles (neighbour sums, lane totals or a warp prefix sum, by r), the "
     "mean by one FMA; radius > 16 runs separable",
     "beyond the books", CUDA, 0},
    {"blur", "columns-tma",
     "columns with the rows moved by the tensor memory accelerator: boxes of rows into "
     "a ring in shared memory (an mbarrier a box, zeros outside the image), the means "
     "back by TMA stores from a staging box; as many instructions as columns, fewer "
     "warps an SM (slower: not the default); unaligned images or rows run columns",
     "beyond the books (CUDA Guide: tensor memory access)", CUDA, 0},
    {"blur", "tensor-core",
     "the box sums on the tensor cores: per row, an s8 x u8 mma.sync of a constant band "
     "with the row's bytes (the row window), accumulated down the walk with the "
     "entering row's product and the leaving row's with minus the band (the column "
     "window); rows by TMA as columns-tma; the mean by one multiply-high; unaligned "
     "images or rows run columns, r = 0 columns-tma, radius > 16 separable",
     "beyond the books (PTX mma.sync; CUDA Guide: tensor memory access)", CUDA, 1},
    {"blur", "cpu", "OpenMP separable running sums", "OpenMP", CPU, 1},
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
_Static_assert(COUNT(vadd_rungs) == EW_COUNT, "vadd ladder and EW_* rung indices disagree");
_Static_assert(COUNT(matadd_rungs) == MA_COUNT, "matadd ladder and MA_* indices disagree");
_Static_assert(COUNT(gray_rungs) == GR_COUNT, "gray ladder and GR_* indices disagree");
_Static_assert(COUNT(blur_rungs) == BL_COUNT, "blur ladder and BL_* indices disagree");

const cupat_pattern_desc cupat__pattern_vadd = {"vadd", vadd_rungs, COUNT(vadd_rungs)};
const cupat_pattern_desc cupat__pattern_saxpy = {"saxpy", saxpy_rungs, COUNT(saxpy_rungs)};
const cupat_pattern_desc cupat__pattern_matadd = {"matadd", matadd_rungs, COUNT(matadd_rungs)};
const cupat_pattern_desc cupat__pattern_gray = {"gray", gray_rungs, COUNT(gray_rungs)};
const cupat_pattern_desc cupat__pattern_blur = {"blur", blur_rungs, COUNT(blur_rungs)};

/* ------------------------------------------------------------- checks -- */

/* A float array argument: valid backend memory of `bytes`, 4-byte aligned. */
static cupat_status check_f32(cupat_ctx *ctx, const char *fn, const char *arg, const void *p,
                              size_t bytes)
{
    CUPAT_TRY(cupat__check_data(ctx, fn, arg, p, bytes));
    if (bytes && ((uintptr_t)p & 3))
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: %s = %p is not 4-byte aligned (float data)", fn, arg, p);
    return CUPAT_SUCCESS;
}

/* Bytes spanned by `rows` rows of `cols` elements of `elem` bytes, rows `ld`
 * elements apart: ((rows - 1) * ld + cols) * elem. */
static cupat_status span(cupat_ctx *ctx, const char *fn, const char *what, size_t rows,
                         size_t cols, size_t ld, size_t elem, size_t *bytes)
{
    size_t n;
    *bytes = 0;
    if (rows == 0 || cols == 0) return CUPAT_SUCCESS;
    CUPAT_TRY(cupat__size_mul(ctx, fn, what, rows - 1, ld, 1, &n));
    if (n + cols < n)
        return cupat__fail(ctx, CUPAT_ERROR_SIZE,
                           "%s: %s: %zu rows of %zu with stride %zu overflows size_t", fn, what,
                           rows, cols, ld);
    return cupat__size_mul(ctx, fn, what, n + cols, elem, 1, bytes);
}

/* An output may be one of the inputs exactly (same start and layout) — each
 * element is read and written by one thread — but no other overlap. */
static cupat_status check_alias(cupat_ctx *ctx, const char *fn, const char *out,
                                cupat__extent o, const char *in, cupat__extent i,
                                int same_layout)
{
    if (o.p == i.p && same_layout) return CUPAT_SUCCESS;
    return cupat__check_disjoint(ctx, fn, out, o, in, i,
                                 "an output may only be an input exactly, same start and layout");
}

static cupat_status check_ld(cupat_ctx *ctx, const char *fn, const char *arg, size_t ld,
                             size_t cols)
{
    if (ld < cols)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "%s: %s = %zu is less than cols = %zu",
                           fn, arg, ld, cols);
    return CUPAT_SUCCESS;
}

/* The rung that runs for `pattern`; *cpu says whether it is the CPU one. */
static cupat_status pick(cupat_ctx *ctx, const char *pattern, int *rung, int *cpu)
{
    const cupat_variant_info *v;
    CUPAT_TRY(cupat__select(ctx, pattern, &v));
    *rung = cupat__rung_index(v);
    *cpu = v->backend == CUPAT_BACKEND_CPU;
    return CUPAT_SUCCESS;
}

/* -------------------------------------------------------------- entries -- */

static cupat_status ew_run(cupat_ctx *ctx, const char *fn, const char *pattern, ew_op op,
                           size_t n, float alpha, const float *a, const char *an,
                           const float *b, const char *bn, float *c, const char *cn)
{
    size_t bytes;
    int rung, cpu;
    CUPAT_TRY(cupat__begin(ctx, fn));
    CUPAT_TRY(cupat__size_mul(ctx, fn, "n * sizeof(float)", n, sizeof(float), 1, &bytes));
    /* pinned host (or large managed) data: streamed in chunks (src/stream) */
    if (cupat__stream_wanted(ctx, 3, (const void *const[]){a, b, c}, (const size_t[]){bytes, bytes, bytes}))
        return cupat__stream_ew(ctx, fn, op == EW_OP_AXPY, n, alpha, a, an, b, bn, c, cn);
    CUPAT_TRY(check_f32(ctx, fn, an, a, bytes));
    CUPAT_TRY(check_f32(ctx, fn, bn, b, bytes));
    if (c != b) CUPAT_TRY(check_f32(ctx, fn, cn, c, bytes));
    CUPAT_TRY(check_alias(ctx, fn, cn, cupat__extent1(c, bytes), an, cupat__extent1(a, bytes), 1));
    CUPAT_TRY(check_alias(ctx, fn, cn, cupat__extent1(c, bytes), bn, cupat__extent1(b, bytes), 1));
    if (n == 0) return CUPAT_SUCCESS;
    CUPAT_TRY(pick(ctx, pattern, &rung, &cpu));
    if (cpu) {
        cupat__ew_cpu(op, n, alpha, a, b, c);
        return CUPAT_SUCCESS;
    }
    return cupat__ew_cuda(ctx, rung, op, n, alpha, a, b, c);
}

cupat_status cupat_vadd_f32(cupat_ctx *ctx, size_t n, const float *a, const float *b, float *c)
{
    CUPAT_TRACE_CALL();
    return ew_run(ctx, "cupat_vadd_f32", "vadd", EW_OP_ADD, n, 0.0f, a, "a", b, "b", c, "c");
}

cupat_status cupat_saxpy(cupat_ctx *ctx, size_t n, float alpha, const float *x, float *y)
{
    CUPAT_TRACE_CALL();
    return ew_run(ctx, "cupat_saxpy", "saxpy", EW_OP_AXPY, n, alpha, x, "x", y, "y", y, "y");
}

/* Checks shared by cupat_matadd_f32 and the block-shape hook. */
static cupat_status matadd_check(cupat_ctx *ctx, const char *fn, size_t rows, size_t cols,
                                 const float *A, size_t lda, const float *B, size_t ldb,
                                 const float *C, size_t ldc)
{
    size_t ab, bb, cb;
    CUPAT_TRY(check_ld(ctx, fn, "lda", lda, cols));
    CUPAT_TRY(check_ld(ctx, fn, "ldb", ldb, cols));
    CUPAT_TRY(check_ld(ctx, fn, "ldc", ldc, cols));
    CUPAT_TRY(span(ctx, fn, "bytes of A", rows, cols, lda, sizeof(float), &ab));
    CUPAT_TRY(span(ctx, fn, "bytes of B", rows, cols, ldb, sizeof(float), &bb));
    CUPAT_TRY(span(ctx, fn, "bytes of C", rows, cols, ldc, sizeof(float), &cb));
    CUPAT_TRY(check_f32(ctx, fn, "A", A, ab));
    CUPAT_TRY(check_f32(ctx, fn, "B", B, bb));
    CUPAT_TRY(check_f32(ctx, fn, "C", C, cb));
    /* exact extents: C may be another column block of A's or B's matrix */
    size_t run = cols * sizeof(float);
    cupat__extent ec = cupat__extent2(C, rows, run, ldc * sizeof(float));
    CUPAT_TRY(check_alias(ctx, fn, "C", ec, "A", cupat__extent2(A, rows, run, lda * sizeof(float)),
                          ldc == lda));
    return check_alias(ctx, fn, "C", ec, "B", cupat__extent2(B, rows, run, ldb * sizeof(float)),
                       ldc == ldb);
}

cupat_status cupat_matadd_f32(cupat_ctx *ctx, size_t rows, size_t cols, const float *A,
                              size_t lda, const float *B, size_t ldb, float *C, size_t ldc)
{
    CUPAT_TRACE_CALL();
    static const char fn[] = "cupat_matadd_f32";
    int rung, cpu;
    CUPAT_TRY(cupat__begin(ctx, fn));
    CUPAT_TRY(matadd_check(ctx, fn, rows, cols, A, lda, B, ldb, C, ldc));
    if (rows == 0 || cols == 0) return CUPAT_SUCCESS;
    CUPAT_TRY(pick(ctx, "matadd", &rung, &cpu));
    if (cpu) {
        cupat__matadd_cpu(rows, cols, A, lda, B, ldb, C, ldc);
        return CUPAT_SUCCESS;
    }
    return cupat__matadd_cuda(ctx, rung, rows, cols, A, lda, B, ldb, C, ldc);
}

cupat_status cupat__matadd_blockshape(cupat_ctx *ctx, unsigned bx, unsigned by, size_t rows,
                                      size_t cols, const float *A, const float *B, float *C,
                                      double *occupancy)
{
    static const char fn[] = "cupat__matadd_blockshape";
    CUPAT_TRY(cupat__begin(ctx, fn));
    if (ctx->backend != CUPAT_BACKEND_CUDA)
        return cupat__fail(ctx, CUPAT_ERROR_NOT_SUPPORTED, "%s: needs the CUDA backend, ctx is %s",
                           fn, cupat_backend_name(ctx->backend));
    if (bx == 0 || by == 0 || bx > 1024 || by > 1024 || bx * by > 1024)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: block bx x by = %u x %u (each >= 1, bx * by <= 1024)", fn, bx,
                           by);
    CUPAT_TRY(matadd_check(ctx, fn, rows, cols, A, cols, B, cols, C, cols));
    if (cols / bx >= INT_MAX)
        return cupat__fail(ctx, CUPAT_ERROR_SIZE,
                           "%s: cols = %zu needs more than 2^31 - 1 blocks of bx = %u", fn, cols,
                           bx);
    return cupat__matadd_2d_cuda(ctx, bx, by, rows, cols, A, cols, B, cols, C, cols, occupancy);
}

cupat_status cupat_rgb_to_gray(cupat_ctx *ctx, size_t width, size_t height, const uint8_t *rgb,
                               size_t rgb_pitch, uint8_t *gray, size_t gray_pitch)
{
    CUPAT_TRACE_CALL();
    static const char fn[] = "cupat_rgb_to_gray";
    size_t row, rb, gb;
    int rung, cpu;
    CUPAT_TRY(cupat__begin(ctx, fn));
    CUPAT_TRY(cupat__size_mul(ctx, fn, "3 * width", width, 3, 1, &row));
    if (rgb_pitch < row)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: rgb_pitch = %zu is less than 3 * width = %zu", fn, rgb_pitch, row);
    if (gray_pitch < width)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: gray_pitch = %zu is less than width = %zu", fn, gray_pitch, width);
    CUPAT_TRY(span(ctx, fn, "bytes of rgb", height, row, rgb_pitch, 1, &rb));
    CUPAT_TRY(span(ctx, fn, "bytes of gray", height, width, gray_pitch, 1, &gb));
    if (cupat__stream_wanted(ctx, 2, (const void *const[]){rgb, gray}, (const size_t[]){rb, gb}))
        return cupat__stream_gray(ctx, fn, width, height, rgb, rgb_pitch, gray, gray_pitch);
    CUPAT_TRY(cupat__check_data(ctx, fn, "rgb", rgb, rb));
    CUPAT_TRY(cupat__check_data(ctx, fn, "gray", gray, gb));
    CUPAT_TRY(check_alias(ctx, fn, "gray", cupat__extent2(gray, height, width, gray_pitch), "rgb",
                          cupat__extent2(rgb, height, row, rgb_pitch), 0));
    if (width == 0 || height == 0) return CUPAT_SUCCESS;
    CUPAT_TRY(pick(ctx, "gray", &rung, &cpu));
    if (cpu) {
        cupat__gray_cpu(width, height, rgb, rgb_pitch, gray, gray_pitch);
        return CUPAT_SUCCESS;
    }
    return cupat__gray_cuda(ctx, rung, width, height, rgb, rgb_pitch, gray, gray_pitch);
}

cupat_status cupat_blur(cupat_ctx *ctx, size_t width, size_t height, int channels, int radius,
                        const uint8_t *in, uint8_t *out)
{
    CUPAT_TRACE_CALL();
    static const char fn[] = "cupat_blur";
    size_t bytes;
    int rung, cpu;
    CUPAT_TRY(cupat__begin(ctx, fn));
    if (channels < 1 || channels > 4)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "%s: channels = %d (must be 1..4)", fn,
                           channels);
    if (radius < 0 || radius > 64)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "%s: radius = %d (must be 0..64)", fn,
                           radius);
    CUPAT_TRY(cupat__size_mul(ctx, fn, "width * height * channels", width, height,
                              (size_t)channels, &bytes));
    CUPAT_TRY(cupat__check_data(ctx, fn, "in", in, bytes));
    CUPAT_TRY(cupat__check_data(ctx, fn, "out", out, bytes));
    CUPAT_TRY(check_alias(ctx, fn, "out", cupat__extent1(out, bytes), "in",
                          cupat__extent1(in, bytes), 0));
    if (bytes == 0) return CUPAT_SUCCESS;
    CUPAT_TRY(pick(ctx, "blur", &rung, &cpu));
    if (cpu) return cupat__blur_cpu(ctx, width, height, channels, radius, in, out);
    return cupat__blur_cuda(ctx, rung, width, height, channels, radius, in, out);
}
