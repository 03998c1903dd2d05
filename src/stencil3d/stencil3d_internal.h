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
    S3_TEMPORAL, /* several steps a pass, 2.5D blocking           beyond    */
    S3_CUDA_COUNT,
    S3_SERIAL = S3_CUDA_COUNT,
    S3_OPENMP,
    S3_COUNT
};

/* A checked request: sizes include the halo; ldy, ldz resolved (elements). */
typedef struct s3_req {
    int f64; /* 0: float, 1: double */
    size_t nx, ny, nz, ldy, ldz;
    int points;        /* 7 or 27 */
    double c[27];      /* as given; f32 rungs round each to float */
} s3_req;

/* One step in -> out with rung `rung` (a CUDA rung; S3_TEMPORAL runs
 * `steps` (1, 2 or 4) steps in one pass). */
cupat_status cupat__stencil3d_cuda(cupat_ctx *ctx, int rung, const s3_req *r, int steps,
                                   const void *in, void *out);
void cupat__stencil3d_cpu(const s3_req *r, int parallel, const void *in, void *out);

#ifdef __cplusplus
}
#endif
#endif
