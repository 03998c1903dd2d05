/* SPDX-License-Identifier: Apache-2.0 */
/* stencil3d_internal.h — rung numbers of the "stencil3d" ladder (registry
 * order, see stencil3d.c), the request both backends take, the backends. */
#ifndef CUPAT_STENCIL3D_INTERNAL_H
#define CUPAT_STENCIL3D_INTERNAL_H

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

enum cupat_stencil3d_rung {
    S3_BASIC,    /* one thread a point, 3D grid                    PMPP 8.2 */
    S3_SMEM,     /* 8^3 input tile in shared memory               PMPP 8.3 */
    S3_COARSE_Z, /* 32 x 32 tile walks z, 3 planes in shared       PMPP 8.4 */
    S3_REGTILE,  /* z neighbours in registers, 1 plane in shared   PMPP 8.5 */
    S3_PIPELINE, /* planes by cp.async into a shared ring          beyond    */
    S3_COLUMNS,  /* 16-byte columns walk z in registers, no smem   beyond    */
    S3_TEMPORAL, /* several steps a pass, 2.5D blocking           beyond    */
    S3_COLUMNS_T2, /* columns, two steps a pass (7-point)           beyond    */
    S3_CUDA_COUNT,
    S3_SERIAL = S3_CUDA_COUNT,
    S3_OPENMP,
    S3_COUNT
};

/* A checked request: sizes include the halo; ldy, ldz resolved (elements).
 * z0, z1: the planes a step writes, [z0, z1) (0, nz: all; halo planes among
 * them are copied, the others read only as neighbours z0 - 1 and z1). Only
 * the CPU backend and the coarse_z / regtile rungs take a window (the others
 * refuse one): cupat__stencil3d_window. */
typedef struct s3_req {
    int f64; /* 0: float, 1: double */
    size_t nx, ny, nz, ldy, ldz;
    size_t z0, z1;
    int points;        /* 7 or 27 */
    double c[27];      /* as given; f32 rungs round each to float */
} s3_req;

/* The argument checks of cupat_stencil3d (type, points, coeffs, ldy, ldz,
 * sizes): fills r (ldy, ldz resolved, the whole grid as window) and *bytes
 * (what a grid spans); and of one grid argument (backend memory, aligned). */
cupat_status cupat__stencil3d_check_grid(cupat_ctx *ctx, const char *fn, cupat_type type,
                                         size_t nx, size_t ny, size_t nz, size_t ldy,
                                         size_t ldz, int points, const double *coeffs,
                                         s3_req *r, size_t *bytes);
cupat_status cupat__stencil3d_check_buf(cupat_ctx *ctx, const char *fn, const char *arg,
                                        const void *p, size_t bytes, size_t es);

/* One step in -> out over r's window of planes only, for callers that split
 * a step (cupat_stencil3d_dist): CUDA: the fastest single-step rung
 * (columns, or pipeline where columns does not fit) on `stream`; CPU: the OpenMP loop
 * (stream ignored). Every point as cupat_stencil3d computes it. */
cupat_status cupat__stencil3d_window(cupat_ctx *ctx, const s3_req *r, cudaStream_t stream,
                                     const void *in, void *out);

/* One step in -> out with rung `rung` (a CUDA rung; S3_TEMPORAL runs
 * `steps` (1, 2 or 4) steps in one pass) on `stream`. */
cupat_status cupat__stencil3d_cuda(cupat_ctx *ctx, int rung, const s3_req *r, int steps,
                                   cudaStream_t stream, const void *in, void *out);
void cupat__stencil3d_cpu(const s3_req *r, int parallel, const void *in, void *out);

/* Whether two 7-point steps a -> b and b -> a can run as one columns_t2
 * pass (f32, 16-byte columns, the whole grid): where they can,
 * cupat_stencil3d_run with the default rung takes its steps in pairs. */
int cupat__stencil3d_pairs(const s3_req *r, const void *a, const void *b);

#ifdef __cplusplus
}
#endif
#endif
