/* SPDX-License-Identifier: Apache-2.0 */
/* sort_internal.h — what sort.c (entry points, checks, the "merge", "sort" and
 * "segsort" ladders) shares with the backends:
 *   merge.cu            PMPP ch. 12 merge rungs and the partitioned merge
 *                       (merge_path.cuh, shared with the merge sort)
 *   sort_book.cu        PMPP 13.2-13.5 radix rungs (1-bit, local sort,
 *                       multi-bit, coarsened)
 *   sort_mergesort.cu   PMPP 13.7 merge sort on the parallel merge
 *   sort_onesweep.cu    the default: upsweep histogram + one pass a digit
 *   sort_segmented.cu   segmented sort
 *   sort_cpu.c          OpenMP reference and backend
 * C interface; .cu files include it inside their extern "C" parts. */
#ifndef CUPAT_SORT_INTERNAL_H
#define CUPAT_SORT_INTERNAL_H

#include "cupat.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The "merge" ladder in registry order. */
typedef enum merge_rung {
    MR_SEQUENTIAL = 0, /* PMPP 12.2: one thread */
    MR_CORANK,         /* 12.3-12.4: co-rank, one thread an output range */
    MR_TILED,          /* 12.5: shared-memory tiles */
    MR_CIRCULAR,       /* 12.6: circular-buffer tiles */
    MR_PARTITIONED,    /* beyond: merge path partitions, one tile a block (default) */
    MR_CPU_SERIAL,
    MR_CPU_OPENMP,     /* the CPU default */
    MR_COUNT
} merge_rung;

/* The "sort" ladder. */
typedef enum sort_rung {
    SOR_RADIX_1BIT = 0, /* 13.2: one bit a pass, a scan of the bits */
    SOR_LOCAL_SORT,     /* 13.3: local sort in shared memory, coalesced writes */
    SOR_MULTIBIT,       /* 13.4: 4-bit digits */
    SOR_COARSENED,      /* 13.5: 4-bit digits, 16 keys a thread */
    SOR_MERGE_SORT,     /* 13.7: block sort + parallel merges */
    SOR_ONESWEEP,       /* beyond: Adinets & Merrill 2022 (default) */
    SOR_CPU_SERIAL,
    SOR_CPU_OPENMP,     /* the CPU default */
    SOR_COUNT
} sort_rung;

/* The "segsort" ladder. */
typedef enum segsort_rung {
    SSR_BLOCK = 0, /* block radix sort in shared memory per segment (default) */
    SSR_CPU_SERIAL,
    SSR_CPU_OPENMP, /* the CPU default */
    SSR_COUNT
} segsort_rung;

/* Key transform to unsigned bits in the sort order: u -> u ^ (top bit of u ?
 * m1 : m0), then ^ d (d = all ones for descending). Inverse: x = t ^ d, then
 * x ^ (top bit of x ? m0 : m1). Floats: m0 = sign bit, m1 = all ones; signed
 * integers: m0 = m1 = sign bit; unsigned: 0. */
typedef struct sort_xform {
    uint64_t m0, m1, d;
} sort_xform;
sort_xform cupat__sort_xform(cupat_type t, cupat_sort_order order);

/* A checked merge request. */
typedef struct merge_req {
    const char *fn;
    int rung;
    cupat_type key_type;
    size_t ksize, vsize; /* key bytes (4 or 8), value bytes (0, 4, 8) */
    sort_xform x;
    size_t na, nb;
    const void *a, *av, *b, *bv;
    void *out, *outv;
} merge_req;

/* A checked sort request (cupat_sort, cupat_sort_bits, each segment of a
 * segmented sort). Bits [lo, hi) of the transformed key order it. */
typedef struct sort_req {
    const char *fn;
    int rung;
    cupat_type key_type;
    size_t ksize, vsize;
    sort_xform x;
    int lo, hi;
    size_t n;
    const void *kin, *vin;
    void *kout, *vout;
    /* segmented */
    size_t nseg;
    const uint64_t *offsets;
} sort_req;

cupat_status cupat__merge_cuda(cupat_ctx *ctx, const merge_req *r);   /* merge.cu */
cupat_status cupat__merge_cpu(cupat_ctx *ctx, const merge_req *r);    /* sort_cpu.c */
cupat_status cupat__sort_book_cuda(cupat_ctx *ctx, const sort_req *r); /* sort_book.cu */
cupat_status cupat__sort_mergesort_cuda(cupat_ctx *ctx, const sort_req *r);
cupat_status cupat__sort_onesweep_cuda(cupat_ctx *ctx, const sort_req *r);
/* Tests: tiles a onesweep portion (0: as many as 30-bit counts allow), so
 * that the multi-portion path runs on small inputs. */
extern size_t cupat__sort_portion_tiles;
cupat_status cupat__sort_cpu(cupat_ctx *ctx, const sort_req *r);
cupat_status cupat__segsort_cuda(cupat_ctx *ctx, const sort_req *r);  /* sort_segmented.cu */
cupat_status cupat__segsort_cpu(cupat_ctx *ctx, const sort_req *r);

/* Teaching rungs that walk the whole array with one thread refuse more. */
#define MERGE_SEQUENTIAL_MAX ((size_t)1 << 22)

#ifdef __cplusplus
}
#endif
#endif
