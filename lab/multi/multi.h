/* SPDX-License-Identifier: Apache-2.0 */
/* multi.h — the multi-GPU lab (`cupat lab multi`, issue 19, PMPP ch. 20):
 * one MPI rank a GPU (or a CPU process on the CPU backend), the
 * communicator of include/cupat_dist.h, and five tables:
 *   1. link:      cudaMemcpyPeerAsync bandwidth GPU0 -> GPU1, GPU1 -> GPU0
 *                 and both at once, and the small-copy latency (rank 0
 *                 alone, both devices visible to it);
 *   2. allreduce: cupat_allreduce_dist against ncclAllReduce (or
 *                 MPI_Allreduce on the "mpi" transport) on the same buffers,
 *                 algorithm and bus bandwidth, every result checked; and
 *                 cupat_reduce_dist of one large array a rank;
 *   3. stencil:   cupat_stencil3d_dist weak scaling (a fixed slab a GPU) and
 *                 strong scaling (a fixed global grid) against one rank, and
 *                 the single-GPU cupat_stencil3d_run for reference;
 *   4. sort:      cupat_sort of every key on one GPU against cupat_sort_dist
 *                 over every rank, the output checked;
 *   5. model:     a cost model for 8 and 64 GPUs from the figures above
 *                 (multi_model.h).
 * Every function here is collective over lab->world: every rank calls it
 * with the same arguments; results are complete on rank 0 (the one that
 * prints). Errors are agreed (lab_multi_agree): when one rank fails, every
 * rank returns the failure and the message names the rank. Not library API:
 * linked into the CLI where CMake found MPI (lab/CMakeLists.txt). */
#ifndef CUPAT_LAB_MULTI_H
#define CUPAT_LAB_MULTI_H

#include "cupat_dist.h"
#include "multi/multi_gen.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lab_multi {
    cupat_ctx *ctx;    /* this rank's context (device rank % device count on CUDA) */
    cupat_comm *comm;  /* every rank of world */
    MPI_Comm world;    /* the ranks taking part (MPI_COMM_WORLD from the CLI) */
    int rank, size;
    int cuda;          /* the context is on the CUDA backend */
    int reps;          /* timed calls a measurement (the median is reported) */
    int quick;         /* smaller sizes, fewer steps */
    const char *transport; /* asked for (NULL: the library's default) */
} lab_multi;

/* Every rank's status s: when any rank failed, every rank returns the
 * failure of the lowest such rank, its message on every context ("rank R:
 * ..."). Collective; the barrier every row uses between phases. */
cupat_status lab_multi_agree(lab_multi *L, cupat_status s);

/* A measured time: the median, min and max over reps of one call, each
 * call's time the slowest rank's (every rank starts after a barrier; CUDA
 * events on the context's stream, MPI_Wtime on the CPU backend). */
typedef struct lab_multi_time {
    double ms, ms_min, ms_max;
    int reps;
} lab_multi_time;

#define LAB_MULTI_MAX_SIZES 16
#define LAB_MULTI_WHY 200

/* ---------------------------------------------------------------- link -- */
typedef struct lab_multi_link {
    int ran;                 /* 0: skipped, `why` says why */
    char why[LAB_MULTI_WHY];
    int dev0, dev1;          /* the devices measured (rank 0's and the next) */
    int peer01, peer10;      /* cudaDeviceCanAccessPeer each way (0: copies staged by the driver) */
    int nbw;
    size_t bw_bytes[LAB_MULTI_MAX_SIZES];
    double ms01[LAB_MULTI_MAX_SIZES], ms10[LAB_MULTI_MAX_SIZES], msbi[LAB_MULTI_MAX_SIZES];
    int nlat;
    size_t lat_bytes[LAB_MULTI_MAX_SIZES];
    double us01[LAB_MULTI_MAX_SIZES], us10[LAB_MULTI_MAX_SIZES]; /* one copy, of a batch */
    int lat_batch;           /* copies a latency batch */
} lab_multi_link;
cupat_status lab_multi_run_link(lab_multi *L, lab_multi_link *out);

/* ----------------------------------------------------------- allreduce -- */
typedef struct lab_multi_ar_row {
    size_t bytes;            /* f32 elements x 4, every rank */
    lab_multi_time cupat, base;
    lab_multi_time staged;   /* cupat's staged form, where the direct one ran */
    int have_base, have_staged;
    uint64_t bad_cupat, bad_base; /* elements off the host's sum, all ranks */
} lab_multi_ar_row;
typedef struct lab_multi_allreduce {
    char transport[16];      /* the communicator's */
    int direct;              /* cupat's direct (CUDA IPC) form in use */
    const char *base_name;   /* "ncclAllReduce", "MPI_Allreduce" or NULL */
    char why_no_base[LAB_MULTI_WHY];
    int nrows;
    lab_multi_ar_row row[LAB_MULTI_MAX_SIZES];
    /* cupat_reduce_dist, f32 sum of reduce_n elements a rank */
    size_t reduce_n;
    lab_multi_time reduce;
    double reduce_got, reduce_want, reduce_bound;
    int reduce_ok;
} lab_multi_allreduce;
cupat_status lab_multi_run_allreduce(lab_multi *L, lab_multi_allreduce *out);

/* ------------------------------------------------------------- stencil -- */
typedef struct lab_multi_stencil {
    size_t edge;             /* interior points an axis of a rank's weak slab (512) */
    size_t strong_nz;        /* interior planes of the strong grid (edge x edge x strong_nz) */
    int steps;
    double copy_gbs;         /* device copy bandwidth, read + write (0: not measured) */
    /* per step, ms: rank 0 alone */
    lab_multi_time ref_run;  /* cupat_stencil3d_run, default rungs (temporal blocking) */
    lab_multi_time ref_step; /* `steps` calls of cupat_stencil3d (one step each, default rung) */
    lab_multi_time weak1, weakp;     /* cupat_stencil3d_dist: a slab on 1 rank, a slab each on p */
    lab_multi_time strong1, strongp; /* the fixed grid on 1 and on p ranks */
    int strong_checked, strong_ok;   /* the p-rank slabs against the 1-rank grid, bit for bit */
    char strong_note[LAB_MULTI_WHY];
} lab_multi_stencil;
cupat_status lab_multi_run_stencil(lab_multi *L, size_t edge, size_t strong_nz, int steps,
                                   lab_multi_stencil *out);

/* ---------------------------------------------------------------- sort -- */
typedef struct lab_multi_sort {
    size_t n;                /* keys in all, u32 */
    lab_multi_time one;      /* cupat_sort on rank 0 alone */
    lab_multi_time dist;     /* cupat_sort_dist, n / p a rank */
    int one_ok, dist_ok;
    size_t out_min, out_max; /* keys a rank after the exchange (balance) */
    /* one more call, timed phase by phase (the communicator's profile: a
     * stream wait at each mark, so the phases add up to a little more than
     * dist): partition, exchange (the own bucket's sort under it), sort of
     * what arrived, merge; the slowest rank's each */
    double phase_ms[4];
    char note[LAB_MULTI_WHY]; /* what failed */
} lab_multi_sort;
cupat_status lab_multi_run_sort(lab_multi *L, size_t n, lab_multi_sort *out);

#ifdef __cplusplus
}
#endif
#endif
