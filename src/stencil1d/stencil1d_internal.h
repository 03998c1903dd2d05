/* SPDX-License-Identifier: Apache-2.0 */
/* stencil1d_internal.h — rung numbers of the 1D stencil ladder (registry
 * order, see stencil1d.c) and the backend entry points. */
#ifndef CUPAT_STENCIL1D_INTERNAL_H
#define CUPAT_STENCIL1D_INTERNAL_H

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CUPAT_STENCIL1D_MAX_RADIUS 8

enum cupat_stencil1d_rung {
    ST_GMEM,      /* every input and coefficient from global memory           */
    ST_SMEM,      /* shared-memory tile with halo                 PCCP 5.5    */
    ST_CONST,     /* + coefficients in __constant__ memory        PCCP 5.5    */
    ST_LDG,       /* + coefficients through the read-only cache   PCCP 5.5    */
    ST_VEC,       /* 16-byte accesses, radius a template, 8 outputs a thread  */
    ST_CUDA_COUNT,
    ST_CPU = ST_CUDA_COUNT,
    ST_COUNT
};

/* Arguments checked; n > 0; coeffs is host memory of 2 radius + 1 floats. */
cupat_status cupat__stencil1d_cuda(cupat_ctx *ctx, int rung, size_t n, int radius,
                                   const float *coeffs, const float *in, float *out);
void cupat__stencil1d_cpu(size_t n, int radius, const float *coeffs, const float *in,
                          float *out);

#ifdef __cplusplus
}
#endif
#endif
