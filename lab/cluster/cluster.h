/* SPDX-License-Identifier: Apache-2.0 */
/* cluster.h — the cluster lab (`cupat lab cluster`, issue 23): thread-block
 * clusters and distributed shared memory (CUDA Guide 5.2.1, 5.3, 8.2.3.1;
 * INVENTORY G01-G05, G26). Compile-time __cluster_dims__ and run-time
 * cluster sizes (cudaLaunchKernelEx), the cluster group API as each block
 * sees it, the portable (8) and non-portable (16) sizes, the occupancy API's
 * active clusters against those counted on the device, DSMEM reads, writes
 * and atomics, their latency and bandwidth beside local shared memory and
 * the L2, and the library's cluster histogram rung.
 * Each experiment fills rows (lab_rows.h); on a device below cc 9.0 one row
 * says clusters are not supported (no launch). The host models below
 * (what each block should see, co-resident clusters from timestamps) are
 * plain C the tests check without a GPU. Not library API. */
#ifndef CUPAT_LAB_CLUSTER_H
#define CUPAT_LAB_CLUSTER_H

#include "cupat.h"
#include "rows/lab_rows.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
    LAB_CLU_LAUNCH,    /* __cluster_dims__(2,1,1) with <<< >>>; cudaLaunchKernelEx 1/2/4/8; a bad grid refused */
    LAB_CLU_API,       /* cluster.block_rank / block_index / dim_blocks / num_threads / sync, 1D and 2D */
    LAB_CLU_SIZES,     /* portable 8, non-portable 16, 32 refused; MaxPotentialClusterSize */
    LAB_CLU_OCCUPANCY, /* cudaOccupancyMaxActiveClusters against clusters counted co-resident */
    LAB_CLU_DSMEM,     /* reads, writes, atomics into other blocks' shared memory, checked */
    LAB_CLU_LATENCY,   /* pointer chase: local shared, a remote block's shared, the L2 */
    LAB_CLU_BANDWIDTH, /* every block reading its neighbour's shared memory; local; L2 */
    LAB_CLU_HISTOGRAM, /* the library's cluster histogram rung (DSMEM atomics) beside its others */
    LAB_CLU_NEXP
};

const lab_exp *lab_cluster_exp(int e); /* NULL past the end */
int lab_cluster_find(const char *name); /* -1 when unknown */

/* Run experiment e: rows[0 .. *nrows). reps: timed launches a row (1..1000).
 * CUDA backend only; a wrong row is a row with ok = 0, not an error. */
cupat_status lab_cluster_run(cupat_ctx *ctx, int e, int reps, lab_row rows[LAB_MAX_ROWS], int *nrows);

/* ----------------------------------------------------- host models -- */

/* What block `blk` of a grid of `grid` blocks in clusters of `cdim` blocks
 * should see (CUDA Guide 5.2.1; the cluster group API): its cluster's
 * index, its index and rank inside the cluster (x fastest), the blocks of a
 * cluster. 0, or -1 when cdim does not divide grid or blk is outside it. */
typedef struct lab_clu_view {
    unsigned cluster[3]; /* blockIdx / cdim */
    unsigned index[3];   /* cluster.block_index(): blockIdx % cdim */
    unsigned rank;       /* cluster.block_rank() */
    unsigned blocks;     /* cluster.num_blocks() */
    unsigned cluster_rank; /* the cluster's linear index in the grid, x fastest */
} lab_clu_view;
int lab_cluster_expect(const unsigned grid[3], const unsigned cdim[3], const unsigned blk[3], lab_clu_view *v);

/* Most intervals [start[i], end[i]) open at once (an end at t closes before
 * a start at t). n <= 1 << 20; scratch-free (sorts copies it allocates);
 * -1 on out of memory. */
int lab_cluster_max_overlap(const uint64_t *start, const uint64_t *end, int n);
/* Clusters of cs consecutive blocks (1D grid): cluster c's interval is
 * [min start, max end) of its blocks. The most clusters resident at once,
 * or -1 (cs < 1, nblocks not a multiple of cs, out of memory). */
int lab_cluster_coresident(const uint64_t *bstart, const uint64_t *bend, int nblocks, int cs);

#ifdef __CUDACC__
#define LAB_CLU_HD __host__ __device__
#else
#define LAB_CLU_HD
#endif
/* The word block `rank` puts at index i of its shared array in the dsmem
 * and bandwidth experiments (distinct across ranks and indices). */
static inline LAB_CLU_HD uint32_t lab_cluster_word(unsigned rank, unsigned i)
{
    return (rank + 1u) * 0x9E3779B1u ^ (i * 2654435761u + 0x5bd1e995u);
}

/* ---------------------------------------------------- the kernels (.cu) -- */
cupat_status cupat__lab_cluster_run(cupat_ctx *ctx, int e, int reps, lab_row *rows, int *nrows);

#ifdef __cplusplus
}
#endif
#endif
