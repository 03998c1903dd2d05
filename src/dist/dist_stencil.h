/* SPDX-License-Identifier: Apache-2.0 */
/* dist_stencil.h — the internal entry of the distributed 3D stencil
 * (cupat_stencil3d_dist, dist_stencil.c) that the lab times: the same call
 * with the overlap of the exchange and the interior on or off, so
 * `cupat lab multi` can show what the overlap buys. */
#ifndef CUPAT_DIST_STENCIL_H
#define CUPAT_DIST_STENCIL_H

#include "cupat_dist.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum dist_s3_mode {
    /* cupat_stencil3d_dist: the two boundary planes and the exchange on a
     * second stream while the interior runs on the context's stream */
    DIST_S3_OVERLAP = 0,
    /* the baseline: boundary planes, exchange, interior one after the other
     * on the context's stream (what the overlap hides is the exchange) */
    DIST_S3_SERIAL = 1
} dist_s3_mode;

/* Timing it (cupat lab multi, 512^3 f32 a GPU): every rank allocates two
 * slabs of 512 x 512 x 514 points (512 own planes and the two ghosts), fills
 * a, makes one warm-up call, then MPI_Barrier, an event on
 * cupat_get_stream(ctx), one call of N steps (N = 20: about 6-13 ms), an
 * event, cudaEventSynchronize; ms / N a step, the slowest rank's
 * (MPI_Allreduce MAX). Rows: DIST_S3_OVERLAP, DIST_S3_SERIAL, and as the
 * bound the one-GPU cupat_stencil3d_run of the same slab with the regtile
 * rung pinned (cupat_set_variant: the same kernel, no exchange); the
 * exchange moves 2 planes a neighbour a step ((ny - 1) * ldy + nx elements
 * each way). The overlap is won when OVERLAP is within a few percent of the
 * bound while SERIAL is the bound plus the exchange.
 *
 * cupat_stencil3d_dist with the mode named. Neither mode synchronizes the
 * host between steps on the NCCL transport (the staged and MPI transports
 * complete each exchange before returning: they wait for the boundary
 * planes, not for the interior). The work is stream-ordered on the
 * context's stream when the call returns: cupat_sync (or an event on
 * cupat_get_stream) before reading the clock. */
cupat_status cupat__stencil3d_dist_mode(cupat_comm *comm, cupat_type type, size_t nx, size_t ny,
                                        size_t nz, size_t ldy, size_t ldz, int points,
                                        const double *coeffs, int steps, void *a, void *b,
                                        void **result, dist_s3_mode mode);

#ifdef __cplusplus
}
#endif
#endif
