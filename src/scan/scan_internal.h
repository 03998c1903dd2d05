/* SPDX-License-Identifier: Apache-2.0 */
/* scan_internal.h — what scan.c (entry points, checks, ladders) shares with
 * the backends:
 *   scan_book.cu      PMPP ch. 11 rungs (Kogge-Stone .. domino)
 *   scan_multi.cu     beyond the books, multi-kernel or grid-synchronized:
 *                     warp-shuffle block scan, reduce-then-scan, cooperative
 *                     grid sync
 *   scan_lookback.cu  the single-pass decoupled look-back (the default) and
 *                     the segmented scans
 *   select.cu         stream compaction (select, partition, unique)
 *   scan_cpu.c        OpenMP reference and backend
 * C interface; .cu files include it inside their extern "C" parts; tests
 * include it for the rungs' summation depth. */
#ifndef CUPAT_SCAN_INTERNAL_H
#define CUPAT_SCAN_INTERNAL_H

#include "cupat.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The "scan" ladder in registry order (scan.c's table follows it). */
typedef enum scan_rung {
    /* PMPP ch. 11 */
    SR_KOGGE_STONE = 0, /* 11.2: one block, in place in shared memory */
    SR_KOGGE_STONE_DB,  /* 11.2: double buffer: no write-after-read race */
    SR_BRENT_KUNG,      /* 11.4: up-sweep, down-sweep */
    SR_COARSENED,       /* 11.5: three phases, coarsened threads */
    SR_HIERARCHICAL,    /* 11.6: scan blocks, scan block sums, add back */
    SR_DOMINO,          /* 11.7: single kernel, adjacent-block flags */
    /* beyond the books */
    SR_WARP_SHFL,       /* warp-shuffle block scan, hierarchical */
    SR_REDUCE_THEN_SCAN,
    SR_DECOUPLED,       /* the CUDA default */
    SR_DECOUPLED_TMA,   /* persistent, cp.async.bulk into shared memory */
    SR_COOP_GRID,       /* cooperative launch, grid.sync() */
    /* CPU backend */
    SR_CPU_SERIAL,
    SR_CPU_OPENMP,      /* the CPU default */
    SR_COUNT
} scan_rung;

/* The "segscan" ladder (cupat_scan_segmented / cupat_scan_by_key). */
typedef enum segscan_rung {
    SG_DECOUPLED = 0, /* the CUDA default */
    SG_CPU_SERIAL,
    SG_CPU_OPENMP,    /* the CPU default */
    SG_COUNT
} segscan_rung;

/* The "select" ladder (select, partition, unique). */
typedef enum select_rung {
    SL_SCAN_SCATTER = 0, /* flags -> cupat scan of the flags -> scatter (3 passes) */
    SL_DECOUPLED,        /* single pass: ballot + block scan + look-back (default) */
    SL_CPU_SERIAL,
    SL_CPU_OPENMP,       /* the CPU default */
    SL_COUNT
} select_rung;

/* A checked scan request. seg: 0 plain, 1 head flags, 2 keys. */
typedef struct scan_req {
    const char *fn;
    int rung;
    cupat_type type;
    cupat_op op; /* SUM, MIN, MAX */
    int exclusive;
    size_t n;
    const void *x;
    void *y;
    int seg;
    const uint8_t *flags;
    const void *keys;
    cupat_type key_type;
} scan_req;

/* A checked compaction request. mode: 0 select, 1 partition, 2 unique.
 * Keep element i when flags[i] != 0 (flags non-NULL) or pred holds (use_pred). */
typedef struct select_req {
    const char *fn;
    int rung;
    int mode;
    cupat_type type;
    size_t n;
    const void *x;
    const uint8_t *flags;
    int use_pred;
    cupat_predicate pred;
    void *y;
    uint64_t *count;
    int count_host; /* count is host memory: wait and write it */
} select_req;

/* The identity of op for type, as one element (exclusive scans start with it). */
void cupat__scan_identity(cupat_type t, cupat_op op, void *out);

cupat_status cupat__scan_cuda(cupat_ctx *ctx, const scan_req *r);      /* scan_lookback.cu */
/* Every CUDA rung but SR_DECOUPLED (scan_book.cu, scan_multi.cu). */
cupat_status cupat__scan_book_cuda(cupat_ctx *ctx, const scan_req *r);
cupat_status cupat__scan_cpu(cupat_ctx *ctx, const scan_req *r);
cupat_status cupat__select_cuda(cupat_ctx *ctx, const select_req *r);
cupat_status cupat__select_cpu(cupat_ctx *ctx, const select_req *r);

/* Summation depth of a float-sum scan rung: the most additions any input
 * element passes through on its way to any output (0 for n <= 1). The bound
 * of output i is gamma(depth) * sum_{j <= i} |x_j|. Depends on the device for
 * the CUDA rungs, hence ctx. */
size_t cupat__scan_depth(const cupat_ctx *ctx, int rung, cupat_type t, size_t n);
size_t cupat__scan_depth_cuda(const cupat_ctx *ctx, int rung, cupat_type t, size_t n);
size_t cupat__scan_book_depth(const cupat_ctx *ctx, int rung, cupat_type t, size_t n);
size_t cupat__segscan_depth(const cupat_ctx *ctx, int rung, cupat_type t, size_t n);
/* the decoupled (CUDA) segmented rung's depth, n > 1 (scan_lookback.cu) */
size_t cupat__segscan_depth_cuda(const cupat_ctx *ctx, int rung, cupat_type t, size_t n);

#ifdef __cplusplus
}
#endif
#endif
