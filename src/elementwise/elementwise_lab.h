/* SPDX-License-Identifier: Apache-2.0 */
/* elementwise_lab.h — lab hooks of the elementwise family for the benchmark
 * (not public API; the symbols live in libcupat).
 *
 * PCCP 3.3 block-shape sweep: run matadd's 2D-grid/2D-block kernel
 * (sumMatrixOnGPU2D style, lda = ldb = ldc = cols) with block (bx, by) on
 * ctx's stream, and report the launch's theoretical occupancy (0..1, from
 * cudaOccupancyMaxActiveBlocksPerMultiprocessor: resident warps / max warps
 * per SM). CUDA backend only (else CUPAT_ERROR_NOT_SUPPORTED). bx, by >= 1,
 * bx * by <= 1024, by <= 1024. occupancy may be NULL. Empty matrices still
 * report the occupancy and launch nothing. */
#ifndef CUPAT_ELEMENTWISE_LAB_H
#define CUPAT_ELEMENTWISE_LAB_H

#include "cupat.h"

#ifdef __cplusplus
extern "C" {
#endif

cupat_status cupat__matadd_blockshape(cupat_ctx *ctx, unsigned bx, unsigned by, size_t rows,
                                      size_t cols, const float *A, const float *B, float *C,
                                      double *occupancy);

#ifdef __cplusplus
}
#endif
#endif
