/* SPDX-License-Identifier: Apache-2.0 */
/* elementwise.h — what elementwise.c (entry points, checks, registry),
 * elementwise.cu (CUDA ladders) and elementwise_cpu.c (OpenMP) share.
 * Arguments reaching these functions are already validated and non-empty. */
#ifndef CUPAT_ELEMENTWISE_H
#define CUPAT_ELEMENTWISE_H

#include "internal.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Rung indices: the order of each pattern's table in elementwise.c. */
enum {
    EW_NAIVE, EW_GRID_STRIDE, EW_VEC4, EW_VEC4_UNROLL, EW_VEC4_STREAM, EW_VEC4_TILE, EW_VEC4_TILE8, EW_BULK,
    EW_CPU, EW_COUNT
};
enum { MA_1D, MA_2D, MA_MIX, MA_VEC4_ROWS, MA_VEC4_TILE, MA_CPU, MA_COUNT };
enum { GR_NAIVE_2D, GR_COARSE4, GR_COARSE16, GR_CPU, GR_COUNT };
enum { BL_NAIVE, BL_SMEM_TILE, BL_SEPARABLE, BL_CONV, BL_COLUMNS, BL_COLUMNS_TMA, BL_TENSOR, BL_CPU, BL_COUNT };
/* The columns rung's widest radius (blur_columns.cu): past it, separable. */
#define BL_COLUMNS_MAX_R 16

/* vadd and saxpy are one op family: c = a + b, or y = fmaf(alpha, x, y)
 * (then a = x, b = c = y). */
typedef enum { EW_OP_ADD, EW_OP_AXPY } ew_op;

/* matadd's "2d" rung block shape (PCCP 3.3: x a multiple of the warp). */
#define MA_2D_BX 32
#define MA_2D_BY 16

cupat_status cupat__ew_cuda(cupat_ctx *ctx, int rung, ew_op op, size_t n, float alpha,
                            const float *a, const float *b, float *c);
cupat_status cupat__matadd_cuda(cupat_ctx *ctx, int rung, size_t rows, size_t cols,
                                const float *A, size_t lda, const float *B, size_t ldb,
                                float *C, size_t ldc);
/* The "2d" kernel with block (bx, by); *occupancy (may be NULL) gets the
 * theoretical occupancy of that launch. */
cupat_status cupat__matadd_2d_cuda(cupat_ctx *ctx, unsigned bx, unsigned by, size_t rows,
                                   size_t cols, const float *A, size_t lda, const float *B,
                                   size_t ldb, float *C, size_t ldc, double *occupancy);
cupat_status cupat__gray_cuda(cupat_ctx *ctx, int rung, size_t width, size_t height,
                              const uint8_t *rgb, size_t rgb_pitch, uint8_t *gray,
                              size_t gray_pitch);
cupat_status cupat__blur_cuda(cupat_ctx *ctx, int rung, size_t width, size_t height,
                              int channels, int radius, const uint8_t *in, uint8_t *out);
/* The columns rung, where cupat__blur_columns_fits (radius <= BL_COLUMNS_MAX_R,
 * rows and row bytes below 2^30). */
int cupat__blur_columns_fits(size_t width, size_t height, int channels, int radius);
cupat_status cupat__blur_columns_cuda(cupat_ctx *ctx, size_t width, size_t height, int channels,
                                      int radius, const uint8_t *in, uint8_t *out);
/* The columns-tma rung, where cupat__blur_tma_fits (the columns rung's limits,
 * a compute capability 9.0 device, 16-byte aligned images whose rows are a
 * multiple of 16 bytes). */
int cupat__blur_tma_fits(cupat_ctx *ctx, size_t width, size_t height, int channels, int radius,
                         const uint8_t *in, const uint8_t *out);
/* The tensor-core rung: where cupat__blur_tma_fits too. */
cupat_status cupat__blur_tc_cuda(cupat_ctx *ctx, size_t width, size_t height, int channels,
                                 int radius, const uint8_t *in, uint8_t *out);
cupat_status cupat__blur_tma_cuda(cupat_ctx *ctx, size_t width, size_t height, int channels,
                                  int radius, const uint8_t *in, uint8_t *out);

void cupat__ew_cpu(ew_op op, size_t n, float alpha, const float *a, const float *b,
                   float *c);
void cupat__matadd_cpu(size_t rows, size_t cols, const float *A, size_t lda,
                       const float *B, size_t ldb, float *C, size_t ldc);
void cupat__gray_cpu(size_t width, size_t height, const uint8_t *rgb, size_t rgb_pitch,
                     uint8_t *gray, size_t gray_pitch);
cupat_status cupat__blur_cpu(cupat_ctx *ctx, size_t width, size_t height, int channels,
                             int radius, const uint8_t *in, uint8_t *out);

/* Streamed vadd / saxpy and gray (elementwise_stream.c), called by the entry
 * points when cupat__stream_wanted says so, after the checks that need no
 * pointer. */
cupat_status cupat__stream_ew(cupat_ctx *ctx, const char *fn, int axpy, size_t n, float alpha,
                              const float *a, const char *an, const float *b, const char *bn,
                              float *c, const char *cn);
cupat_status cupat__stream_gray(cupat_ctx *ctx, const char *fn, size_t width, size_t height,
                                const uint8_t *rgb, size_t rgb_pitch, uint8_t *gray,
                                size_t gray_pitch);

#ifdef __cplusplus
}
#endif
#endif
