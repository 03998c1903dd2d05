/* SPDX-License-Identifier: Apache-2.0 */
/* access.h — the kernels of `cupat lab access` (PCCP 4.2-4.5, 5.2, lecture 10):
 * memory-access experiments, not public API. Each launcher queues one launch
 * on ctx->stream and returns a status naming the kernel on failure; tests
 * check their outputs like any rung's (tests/test_access.c). */
#ifndef CUPAT_ACCESS_H
#define CUPAT_ACCESS_H

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------- aligned vs misaligned (4.3) -- */
/* With m = n - offset (offset <= n), i < m:
 *   READ_OFFSET:         c[i] = a[i + offset] + b[i + offset]
 *   WRITE_OFFSET:        c[i + offset] = a[i] + b[i]
 *   READ_OFFSET_UNROLL4: as READ_OFFSET, 4 elements a thread, a block apart.
 * Other elements of c are not written. */
enum { LAB_READ_OFFSET, LAB_WRITE_OFFSET, LAB_READ_OFFSET_UNROLL4 };
cupat_status cupat__lab_offset(cupat_ctx *ctx, int kind, const float *a, const float *b,
                               float *c, size_t n, size_t offset, unsigned block);
/* The same on `grid` blocks (0: the grid above; fewer blocks loop over the
 * rest). _debug launches the same kernels compiled with -G (access_debug.cu). */
cupat_status cupat__lab_offset_grid(cupat_ctx *ctx, int kind, const float *a, const float *b,
                                    float *c, size_t n, size_t offset, unsigned block, unsigned grid);
cupat_status cupat__lab_offset_debug(cupat_ctx *ctx, int kind, const float *a, const float *b,
                                     float *c, size_t n, size_t offset, unsigned block, unsigned grid);

/* ------------------------------------------------------ AoS vs SoA (4.3) -- */
typedef struct lab_pt {
    float x, y; /* 4-byte aligned: the compiler must load x and y apart */
} lab_pt;
/* AOS:      out[i] = {in[i].x + 10, in[i].y + 20} over lab_pt
 * AOS_F2:   the same over float2 (8-byte aligned: one 8-byte access)
 * SOA:      ox[i] = x[i] + 10, oy[i] = y[i] + 20
 * AOS_ONE:  lecture 10's X[i].a = X[i].b over lab_pt, in place (x = y):
 *           half of every sector moved is the other field
 * SOA_ONE:  x[i] = y[i], separate arrays.
 * The AoS kinds take `in`/`out` as lab_pt or float2 arrays; the SoA kinds
 * x, y, ox, oy. Unused pointers may be NULL. */
enum { LAB_AOS, LAB_AOS_F2, LAB_SOA, LAB_AOS_ONE, LAB_SOA_ONE };
cupat_status cupat__lab_aos(cupat_ctx *ctx, int kind, size_t n, const void *in, void *out,
                            const float *x, const float *y, float *ox, float *oy);

/* ------------------------------------ read-only cache and qualifiers (4.3) -- */
/* out[i] = in[i] over ints: COPY plain pointers, COPY_LDG __ldg,
 * COPY_RESTRICT const __restrict__ (PCCP's copyKernel, Version2, Version3). */
enum { LAB_COPY, LAB_COPY_LDG, LAB_COPY_RESTRICT };
cupat_status cupat__lab_copy(cupat_ctx *ctx, int kind, const int *in, int *out, size_t n);

/* ------------------------------------------- transpose bounds (4.4) -- */
/* out = in for a rows x cols matrix of 4- or 8-byte words, 16x16 blocks:
 * COPY_ROW walks rows (both accesses coalesced: the transpose's upper
 * bound), COPY_COL walks columns (both strided: its lower bound). */
enum { LAB_COPY_ROW, LAB_COPY_COL };
cupat_status cupat__lab_copy2d(cupat_ctx *ctx, int kind, size_t rows, size_t cols,
                               size_t elem_size, const void *in, void *out);

/* ---------------------------------------- shared-memory layouts (5.2) -- */
/* Each of `blocks` blocks runs the access pattern `iters` times: write a
 * tile (value = thread's row-major index + iteration), __syncthreads, read
 * one element back, accumulate. out[block * T + idx] (T = 1024 square, 512
 * rectangular) gets the sum. lab_smem_expect gives the expected value. */
enum {
    LAB_SMEM_ROW_ROW,       /* square 32x32: tile[ty][tx] both ways: no conflict   */
    LAB_SMEM_COL_COL,       /* tile[tx][ty] both ways: 32-way conflicts             */
    LAB_SMEM_ROW_COL,       /* write rows, read columns                            */
    LAB_SMEM_ROW_COL_DYN,   /* the same, dynamic shared memory                     */
    LAB_SMEM_ROW_COL_PAD,   /* + one pad word a row: conflict-free                 */
    LAB_SMEM_ROW_COL_DYN_PAD,
    LAB_SMEM_ROW_COL_FILE,  /* tile declared at file scope                         */
    LAB_SMEM_RECT_ROW_ROW,  /* rectangular 32 wide x 16 high                       */
    LAB_SMEM_RECT_ROW_COL,  /* write rows, read the transposed element             */
    LAB_SMEM_RECT_ROW_COL_DYN,
    LAB_SMEM_RECT_ROW_COL_PAD, /* pad 2 a row                                      */
    LAB_SMEM_RECT_ROW_COL_DYN_PAD,
    LAB_SMEM_COUNT
};
extern const char *const lab_smem_names[LAB_SMEM_COUNT];
cupat_status cupat__lab_smem(cupat_ctx *ctx, int kind, unsigned blocks, int iters,
                             uint32_t *out);
/* Threads a block of `kind` (1024 or 512), and the value out[b * T + idx] must hold. */
unsigned lab_smem_threads(int kind);
uint32_t lab_smem_expect(int kind, unsigned idx, int iters);

/* --------------------------------------- matrix addition (4.2, 4.5) -- */
/* C = A + B over nx * ny floats, 2D grid of 32x32 blocks (PCCP sumMatrixGPU).
 * Pointers may be device, managed or mapped pinned host memory: no checks. */
cupat_status cupat__lab_matadd(cupat_ctx *ctx, const float *A, const float *B, float *C,
                               size_t nx, size_t ny);

#ifdef __cplusplus
}
#endif
#endif
