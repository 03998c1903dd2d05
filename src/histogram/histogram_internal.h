/* SPDX-License-Identifier: Apache-2.0 */
/* histogram_internal.h — what histogram.c (entry points, checks, the ladder)
 * shares with the backends:
 *   histogram_book.cu     PMPP ch. 9 rungs: global atomics, privatized copies
 *                         in global and in shared memory, coarsening
 *                         (contiguous, interleaved), aggregation of runs
 *   histogram_warp.cu     beyond the book: warp-aggregated updates
 *                         (match_any), per-warp sub-histograms, 16-byte loads
 *                         (the default for histograms that fit a block)
 *   histogram_cluster.cu  one histogram spread over a thread-block cluster's
 *                         distributed shared memory (sm_90)
 *   histogram_bytes.cu    8-bit samples in per-thread 8-bit counters (no
 *                         atomics; the default for u8 up to 3 channels)
 *   histogram_packed.cu   16-bit counters in pairs, overflows sent to the
 *                         output exactly (twice the bins a block holds)
 *   histogram_device.cuh  the bin rule on the device, the rungs' shared parts
 *   histogram_cpu.c       OpenMP reference and backend
 * C interface; .cu files include it inside their extern "C" parts. */
#ifndef CUPAT_HISTOGRAM_INTERNAL_H
#define CUPAT_HISTOGRAM_INTERNAL_H

#include "cupat.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The "histogram" ladder in registry order (histogram.c's table follows it). */
typedef enum hist_rung {
    /* PMPP ch. 9 */
    HR_GLOBAL_ATOMIC = 0, /* 9.2-9.3: one thread a sample, atomicAdd in global memory */
    HR_PRIVATE_GLOBAL,    /* 9.4: a private copy per block in global memory, merged */
    HR_PRIVATE_SHARED,    /* 9.4: the block's copy in shared memory */
    HR_COARSE_CONTIGUOUS, /* 9.5: coarsening, contiguous partitioning */
    HR_COARSE_INTERLEAVED,/* 9.5: coarsening, interleaved partitioning */
    HR_AGGREGATE,         /* 9.6: aggregation of runs of equal bins */
    /* beyond the book */
    HR_WARP_AGGREGATED,   /* __match_any_sync: one update per distinct bin a warp */
    HR_PER_WARP,          /* per-warp sub-histograms in shared memory */
    HR_VEC16,             /* per-warp copies + 16-byte loads + runs + match (default) */
    HR_CLUSTER,           /* distributed shared memory over a thread-block cluster */
    HR_BYTE_COUNTERS,     /* 8-bit samples: a thread's own 8-bit counters, no atomics */
    HR_PACKED16,          /* 16-bit counters in pairs: twice the bins in a block */
    /* CPU backend */
    HR_CPU_SERIAL,
    HR_CPU_OPENMP,        /* the CPU default */
    HR_COUNT
} hist_rung;

/* Integer bin rule modes: how floor(d * bins / R) is evaluated. */
enum {
    HIST_IMODE_SHIFT = 0, /* R == bins << ishift: d >> ishift */
    HIST_IMODE_DIV32 = 1, /* R < 2^32 and (R - 1) * bins < 2^32: 32-bit division */
    HIST_IMODE_DIV64 = 2  /* 64-bit division (d * bins < 2^61) */
};

/* A checked histogram request. */
typedef struct hist_req {
    const char *fn;
    int rung;
    cupat_hist_sample sample;
    int range;    /* 0 even, 1 boundaries */
    int channels; /* 1..4 (u8 only beyond 1); sample i is channel i % channels */
    size_t n;     /* samples, all channels together */
    const void *x;
    unsigned bins;  /* per channel */
    unsigned total; /* bins * channels: the length of counts */
    int out64;      /* counts are u64 (else u32) */
    void *counts;
    int accumulate;
    /* even, integer samples (see cupat.h): d = x - ilo, counted when d < irange */
    int64_t ilo;
    uint64_t irange;
    int imode;
    unsigned ishift;
    /* even, f32 samples */
    float flo, fhi, fscale;
    /* range: bins + 1 keys in host memory: float for f32 samples (the least
     * float >= the boundary), int64 for integer samples (the least integer
     * >= it, clamped to +-2^40); x is in bin b when key[b] <= x < key[b + 1]. */
    const void *keys;
} hist_req;

/* Keys are float for f32 samples, int64 otherwise. */
static inline size_t hist_key_size(cupat_hist_sample s)
{
    return s == CUPAT_HIST_F32 ? 4 : 8;
}
static inline size_t hist_sample_size(cupat_hist_sample s)
{
    return s == CUPAT_HIST_U8 ? 1 : s == CUPAT_HIST_U16 ? 2 : 4;
}

/* The bin of sample i (its channel offset included), or -1: the rule every
 * backend follows (histogram_cpu.c). */
int64_t cupat__hist_bin(const hist_req *r, size_t i);

/* Boundary to key (see hist_req.keys): the least float >= v (v not NaN),
 * the least integer >= v clamped to +-2^40. */
static inline float hist_fkey(double v)
{
    float f = (float)v;
    if ((double)f < v) f = nextafterf(f, INFINITY);
    return f;
}
static inline int64_t hist_ikey(double v)
{
    double c = ceil(v);
    return c < -0x1p40 ? -(int64_t)0x1p40 : c > 0x1p40 ? (int64_t)0x1p40 : (int64_t)c;
}

/* Whether the keys of boundaries bd (bins + 1, checked) are exactly even
 * request e's rule, e being over [key 0, key bins): 1 when every sample gets
 * the same bin from both rules. */
int cupat__hist_keys_even(const hist_req *e, const double *bd);

cupat_status cupat__histogram_cpu(cupat_ctx *ctx, const hist_req *r);
cupat_status cupat__histogram_cuda(cupat_ctx *ctx, const hist_req *r); /* histogram_book.cu */

/* Whether CUDA rung `rung` can take a request of `total` bins (with range
 * keys when range != 0) on ctx's device: 1, or 0 with the reason in why. */
int cupat__histogram_fits(const cupat_ctx *ctx, int rung, cupat_hist_sample s, int range,
                          unsigned total, char *why, size_t len);

/* Streamed histograms (histogram_stream.c), called by the entry points when
 * cupat__stream_wanted says so; boundaries NULL: the even rule over
 * [lower, upper). */
cupat_status cupat__stream_hist(cupat_ctx *ctx, const char *fn, cupat_hist_sample sample,
                                size_t n, size_t sample_bytes, const void *x, size_t bins,
                                double lower, double upper, const double *boundaries,
                                cupat_type count_type, void *counts, unsigned flags);
/* histogram_stream.cu: counts[i] += lanes[l * total + i] for l < nlanes (u32
 * or u64, wrapping). Queued on ctx's stream. */
cupat_status cupat__stream_sum_lanes_cuda(cupat_ctx *ctx, void *counts, const void *lanes,
                                          size_t total, int nlanes, int is64);

#ifdef __cplusplus
}
#endif
#endif
