/* SPDX-License-Identifier: Apache-2.0 */
/* transpose_internal.h — the transpose ladder's rung numbers (registry order,
 * see the table in transpose.c) and the backend entry points. */
#ifndef CUPAT_TRANSPOSE_INTERNAL_H
#define CUPAT_TRANSPOSE_INTERNAL_H

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

enum cupat_transpose_rung {
    TR_SERIAL,           /* one device thread for the whole matrix   lecture 10 */
    TR_ROW,              /* one thread per output row                lecture 10 */
    TR_ELEMENT,          /* one thread per element, 32x32 blocks     lecture 10 */
    TR_NAIVE_ROW,        /* load rows, store columns, 16x16          PCCP 4.4   */
    TR_NAIVE_COL,        /* load columns, store rows, 16x16          PCCP 4.4   */
    TR_UNROLL4_ROW,      /* 4 elements a thread                      PCCP 4.4   */
    TR_UNROLL4_COL,
    TR_DIAG_ROW,         /* diagonal block coordinates               PCCP 4.4   */
    TR_DIAG_COL,
    TR_NAIVE_ROW_8X32,   /* thin blocks                              PCCP 4.4   */
    TR_NAIVE_COL_8X32,
    TR_UNROLL4_COL_8X32,
    TR_NAIVE_GMEM,       /* 32x16 baseline of PCCP 5.4                          */
    TR_SMEM,             /* shared-memory tile                       PCCP 5.4   */
    TR_SMEM_PAD,         /* padded: no bank conflicts                PCCP 5.4   */
    TR_SMEM_UNROLL_PAD,  /* two tiles a block                        PCCP 5.4   */
    TR_SMEM_DYN,         /* the same three with dynamic shared memory           */
    TR_SMEM_PAD_DYN,
    TR_SMEM_UNROLL_PAD_DYN,
    TR_TILE32,           /* 32x32 tile, 32x8 block, 4 elements a thread         */
    TR_VEC16,            /* 16-byte accesses, swizzled 128-byte tile rows       */
    TR_VEC16_WIDE,       /* 16-byte accesses, 256-byte tile rows: the default   */
    TR_VEC16_STREAM,     /* the same with evict-first cache hints               */
    TR_VEC16_GROUPED,    /* the same, tiles in grouped (squarish) order          */
    TR_VEC8_2X2,         /* 8-byte words, 256-byte tile rows, 2x2 register tiles */
    TR_VEC8_2X2_PIPE,    /* the same, persistent, next tile's loads in flight    */
    TR_CUDA_COUNT,
    TR_CPU_NAIVE = TR_CUDA_COUNT, /* OpenMP over output rows                    */
    TR_CPU,                       /* OpenMP, cache-blocked 32x32: CPU default   */
    TR_COUNT
};

/* The one-thread rung refuses matrices above this many elements. */
#define CUPAT_TRANSPOSE_SERIAL_MAX ((size_t)1 << 22)

/* Launch rung `rung` on ctx->stream; arguments already checked, rows, cols > 0. */
cupat_status cupat__transpose_cuda(cupat_ctx *ctx, int rung, size_t rows, size_t cols,
                                   size_t elem_size, const void *in, size_t ld_in, void *out,
                                   size_t ld_out);
void cupat__transpose_cpu(int rung, size_t rows, size_t cols, size_t elem_size,
                          const void *in, size_t ld_in, void *out, size_t ld_out);

#ifdef __cplusplus
}
#endif
#endif
