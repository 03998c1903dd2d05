/* SPDX-License-Identifier: Apache-2.0 */
/* conv2d.c — cupat_conv2d and cupat_conv2d_separable: argument checks, the
 * "conv2d" and "conv2d_sep" ladders, dispatch.
 * Rung -> file: basic .. cached: conv2d_book.cu; regtile, regtile_vec:
 * conv2d_regtile.cu (instances in conv2d_regtile_f32.cu, _u8.cu); async:
 * conv2d_async.cu; columns: conv2d_columns.cuh (fits and f32 instances in
 * conv2d_columns.cu, u8 in conv2d_columns_u8.cu); two_pass, fused (and
 * blur's "conv"): conv2d_sep.cu; serial, openmp: conv2d_cpu.c. */
#include "conv2d/conv2d_internal.h"

#include <stdint.h>

#define CUDA CUPAT_BACKEND_CUDA
#define CPU CUPAT_BACKEND_CPU

static const cupat_variant_info conv_rungs[CV_COUNT] = {
    [CV_BASIC] = {"conv2d", "basic",
                  "one thread an output sample, every input and coefficient read from "
                  "global memory, borders by index arithmetic",
                  "PMPP 7.2", CUDA, 0},
    [CV_CONST] = {"conv2d", "const",
                  "the filter in __constant__ memory: one broadcast read a warp",
                  "PMPP 7.3", CUDA, 0},
    [CV_TILED_IN] = {"conv2d", "tiled_in",
                     "block = input tile (32 x 32 samples): every thread loads one input, the "
                     "inner ones compute; the filter's width eats the output tile (wider "
                     "filters run tiled_out)",
                     "PMPP 7.4", CUDA, 0},
    [CV_TILED_OUT] = {"conv2d", "tiled_out",
                      "block = output tile (32 x 16): loops load the tile and its halo into "
                      "shared memory, every thread computes",
                      "PMPP 7.4", CUDA, 0},
    [CV_CACHED] = {"conv2d", "cached",
                   "only the output tile in shared memory; halo taps read global memory "
                   "through L1/L2",
                   "PMPP 7.5", CUDA, 0},
    [CV_REGTILE] = {"conv2d", "regtile",
                    "channels split into planes in shared memory; 8 outputs a thread along a "
                    "row from a register window (float4 shared loads), filter width a "
                    "template, taps by value (constant bank)",
                    "beyond the books (register tiling, PMPP 8.5 in 2D)", CUDA, 0},
    [CV_REGTILE_VEC] = {"conv2d", "regtile_vec",
                        "regtile with 16-byte global loads of the tile and 16-byte stores "
                        "where rows are aligned",
                        "beyond the books (PCCP 4.3 vector access)", CUDA, 0},
    [CV_ASYNC] = {"conv2d", "async",
                  "blocks walk down a column of tiles; the next input tile comes into "
                  "shared memory by cuda::memcpy_async on a 2-stage cuda::pipeline while "
                  "the current one is computed",
                  "beyond the books (CUDA Guide: asynchronous data copies, pipelines)", CUDA,
                  0},
    [CV_COLUMNS] = {"conv2d", "columns",
                    "no shared memory, no barrier: a warp is a row segment, a lane owns 4 "
                    "pixels (f32: one 16-byte load a row) and walks down a chunk of rows; each "
                    "input row starts, continues and ends the chains of kh outputs (kh partial "
                    "sums a sample in registers), x neighbours by shuffles, the next row "
                    "loaded a step ahead, taps in the constant bank. Square 1..9 for f32 and "
                    "u8 one channel, 1..5 for u8 3 and 4 channels, width a multiple of 4, rows "
                    "aligned to the lane's load; every other call runs regtile_vec",
                    "beyond the books (register blocking with warp shuffles)", CUDA, 1},
    [CV_SERIAL] = {"conv2d", "serial", "one thread, the documented fmaf chain: the reference",
                   "PMPP 7.1", CPU, 0},
    [CV_OPENMP] = {"conv2d", "openmp", "OpenMP over rows, the same chain", "OpenMP", CPU, 1},
};
_Static_assert(sizeof conv_rungs / sizeof conv_rungs[0] == CV_COUNT, "conv2d ladder");

static const cupat_variant_info sep_rungs[CS_COUNT] = {
    [CS_TWO_PASS] = {"conv2d_sep", "two_pass",
                     "row filter into a float scratch image, then the column filter: kw + kh "
                     "taps an output instead of kw * kh, two round trips to memory",
                     "PMPP 7 (separable filters)", CUDA, 0},
    [CS_FUSED] = {"conv2d_sep", "fused",
                  "one kernel: the tile and its halo in shared memory, the row pass into a "
                  "second shared tile, the column pass from it: one read, one write",
                  "beyond the books", CUDA, 1},
    [CS_SERIAL] = {"conv2d_sep", "serial", "one thread, row chains then column chains",
                   "PMPP 7.1", CPU, 0},
    [CS_OPENMP] = {"conv2d_sep", "openmp", "OpenMP over rows, both passes", "OpenMP", CPU, 1},
};
_Static_assert(sizeof sep_rungs / sizeof sep_rungs[0] == CS_COUNT, "conv2d_sep ladder");

const cupat_pattern_desc cupat__pattern_conv2d = {"conv2d", conv_rungs, CV_COUNT};
const cupat_pattern_desc cupat__pattern_conv2d_sep = {"conv2d_sep", sep_rungs, CS_COUNT};

/* -------------------------------------------------------------- checks -- */

static cupat_status check_taps(cupat_ctx *ctx, const char *fn, const char *name, int n,
                               const char *cname, const float *c, int count)
{
    if (n < 1 || n > CUPAT_CONV2D_MAX_K || n % 2 == 0)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "%s: %s = %d (must be odd, 1..%d)", fn,
                           name, n, CUPAT_CONV2D_MAX_K);
    if (!c) return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "%s: %s is NULL", fn, cname);
    if (ctx->backend == CUPAT_BACKEND_CUDA && cupat__pointer_kind(c) == CUPAT_MEMORY_DEVICE)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: %s = %p is device memory; it must be host memory (%d floats)",
                           fn, cname, (const void *)c, count);
    return CUPAT_SUCCESS;
}

/* One image argument: pitch, span, pointer kind, alignment. */
static cupat_status check_image(cupat_ctx *ctx, const char *fn, const char *arg,
                                const char *pitch_name, const void *p, size_t pitch,
                                size_t height, size_t row, size_t es, size_t *bytes)
{
    if (pitch < row)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: %s = %zu is less than width * channels * %zu = %zu bytes", fn,
                           pitch_name, pitch, es, row);
    if (pitch % es)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: %s = %zu is not a multiple of %zu (f32 samples)", fn, pitch_name,
                           pitch, es);
    *bytes = 0;
    if (height && row) {
        size_t n;
        CUPAT_TRY(cupat__size_mul(ctx, fn, "(height - 1) * pitch", height - 1, pitch, 1, &n));
        if (n + row < n)
            return cupat__fail(ctx, CUPAT_ERROR_SIZE, "%s: %s spans more than size_t", fn, arg);
        *bytes = n + row;
    }
    CUPAT_TRY(cupat__check_data(ctx, fn, arg, p, *bytes));
    if (*bytes && (uintptr_t)p % es)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: %s = %p is not %zu-byte aligned (f32 samples)", fn, arg, p, es);
    return CUPAT_SUCCESS;
}

static cupat_status check_common(cupat_ctx *ctx, const char *fn, cupat_pixel_type type,
                                 size_t width, size_t height, int channels, const void *in,
                                 size_t in_pitch, void *out, size_t out_pitch,
                                 cupat_border border, size_t *es)
{
    if (type != CUPAT_PIXEL_U8 && type != CUPAT_PIXEL_F32)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: type = %d (CUPAT_PIXEL_U8 or CUPAT_PIXEL_F32)", fn, (int)type);
    if (channels < 1 || channels > 4)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "%s: channels = %d (must be 1..4)", fn,
                           channels);
    if ((int)border < CUPAT_BORDER_ZERO || (int)border > CUPAT_BORDER_MIRROR)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: border = %d (CUPAT_BORDER_ZERO, _CLAMP or _MIRROR)", fn,
                           (int)border);
    *es = type == CUPAT_PIXEL_F32 ? sizeof(float) : 1;
    size_t row, ib, ob;
    CUPAT_TRY(cupat__size_mul(ctx, fn, "width * channels * sample size", width, (size_t)channels,
                              *es, &row));
    CUPAT_TRY(check_image(ctx, fn, "in", "in_pitch", in, in_pitch, height, row, *es, &ib));
    CUPAT_TRY(check_image(ctx, fn, "out", "out_pitch", out, out_pitch, height, row, *es, &ob));
    if (ib && ob)
        CUPAT_TRY(cupat__check_disjoint(ctx, fn, "out", cupat__extent2(out, height, row, out_pitch),
                                        "in", cupat__extent2(in, height, row, in_pitch), NULL));
    return CUPAT_SUCCESS;
}

static conv2d_req make_req(cupat_pixel_type type, size_t width, size_t height, int channels,
                           const void *in, size_t in_pitch, void *out, size_t out_pitch,
                           size_t es, cupat_border border)
{
    conv2d_req r = {0};
    r.type = type, r.w = width, r.h = height, r.C = channels;
    r.in = in, r.ip = in_pitch / es, r.out = out, r.op = out_pitch / es;
    r.border = border, r.mode = CONV_OUT_PLAIN;
    return r;
}

cupat_status cupat_conv2d(cupat_ctx *ctx, cupat_pixel_type type, size_t width, size_t height,
                          int channels, const void *in, size_t in_pitch, void *out,
                          size_t out_pitch, int kw, int kh, const float *coeffs,
                          cupat_border border)
{
    CUPAT_TRACE_CALL();
    static const char fn[] = "cupat_conv2d";
    size_t es;
    CUPAT_TRY(cupat__begin(ctx, fn));
    if (kh < 1 || kh > CUPAT_CONV2D_MAX_K || kh % 2 == 0)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "%s: kh = %d (must be odd, 1..%d)", fn,
                           kh, CUPAT_CONV2D_MAX_K);
    CUPAT_TRY(check_taps(ctx, fn, "kw", kw, "coeffs", coeffs, kw * kh));
    CUPAT_TRY(check_common(ctx, fn, type, width, height, channels, in, in_pitch, out, out_pitch,
                           border, &es));
    const cupat_variant_info *v;
    CUPAT_TRY(cupat__select(ctx, "conv2d", &v));
    if (width == 0 || height == 0) return CUPAT_SUCCESS;
    conv2d_req r = make_req(type, width, height, channels, in, in_pitch, out, out_pitch, es,
                            border);
    r.kw = kw, r.kh = kh, r.k = coeffs;
    int rung = cupat__rung_index(v);
    if (ctx->backend != CUPAT_BACKEND_CUDA) {
        cupat__conv2d_cpu(&r, rung == CV_OPENMP);
        return CUPAT_SUCCESS;
    }
    return cupat__conv2d_cuda(ctx, rung, &r);
}

cupat_status cupat_conv2d_separable(cupat_ctx *ctx, cupat_pixel_type type, size_t width,
                                    size_t height, int channels, const void *in,
                                    size_t in_pitch, void *out, size_t out_pitch, int kw,
                                    const float *row_coeffs, int kh, const float *col_coeffs,
                                    cupat_border border)
{
    CUPAT_TRACE_CALL();
    static const char fn[] = "cupat_conv2d_separable";
    size_t es;
    CUPAT_TRY(cupat__begin(ctx, fn));
    CUPAT_TRY(check_taps(ctx, fn, "kw", kw, "row_coeffs", row_coeffs, kw));
    CUPAT_TRY(check_taps(ctx, fn, "kh", kh, "col_coeffs", col_coeffs, kh));
    CUPAT_TRY(check_common(ctx, fn, type, width, height, channels, in, in_pitch, out, out_pitch,
                           border, &es));
    const cupat_variant_info *v;
    CUPAT_TRY(cupat__select(ctx, "conv2d_sep", &v));
    if (width == 0 || height == 0) return CUPAT_SUCCESS;
    conv2d_req r = make_req(type, width, height, channels, in, in_pitch, out, out_pitch, es,
                            border);
    r.kw = kw, r.kh = kh, r.row = row_coeffs, r.col = col_coeffs;
    int rung = cupat__rung_index(v);
    if (ctx->backend != CUPAT_BACKEND_CUDA) return cupat__conv2d_sep_cpu(ctx, &r, rung == CS_OPENMP);
    return cupat__conv2d_sep_cuda(ctx, rung, &r);
}
