/* SPDX-License-Identifier: Apache-2.0 */
/* histogram.c — cupat_histogram_even, _range and _channels: argument checks,
 * the bin rule's parameters, the "histogram" ladder, dispatch.
 * Rung -> file: global_atomic .. aggregate: histogram_book.cu;
 * warp_aggregated, per_warp, vec16: histogram_warp.cu; cluster:
 * histogram_cluster.cu; byte_counters: histogram_bytes.cu; packed16:
 * histogram_packed.cu; serial, openmp: histogram_cpu.c. */
#include "internal.h"
#include "histogram/histogram_internal.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CUDA CUPAT_BACKEND_CUDA
#define CPU CUPAT_BACKEND_CPU

/* ------------------------------------------------------------- ladder -- */

static const cupat_variant_info hist_rungs[HR_COUNT] = {
    [HR_GLOBAL_ATOMIC] = {"histogram", "global_atomic",
                          "one thread a sample, atomicAdd on the bin in global memory: "
                          "every update contends in the L2",
                          "PMPP 9.2-9.3", CUDA, 0},
    [HR_PRIVATE_GLOBAL] = {"histogram", "private_global",
                           "privatization: blocks add into private copies in global memory "
                           "(block b into copy b mod copies), a second kernel merges them",
                           "PMPP 9.4", CUDA, 0},
    [HR_PRIVATE_SHARED] = {"histogram", "private_shared",
                           "the block's private copy in shared memory, one thread a sample, "
                           "flushed to global once a block",
                           "PMPP 9.4 (shared memory)", CUDA, 0},
    [HR_COARSE_CONTIGUOUS] = {"histogram", "coarse_contiguous",
                              "thread coarsening, contiguous partitioning: each thread a run "
                              "of consecutive samples (uncoalesced: the book's bad case)",
                              "PMPP 9.5", CUDA, 0},
    [HR_COARSE_INTERLEAVED] = {"histogram", "coarse_interleaved",
                               "thread coarsening, interleaved partitioning: a resident grid "
                               "strides over the samples (coalesced)",
                               "PMPP 9.5", CUDA, 0},
    [HR_AGGREGATE] = {"histogram", "aggregate",
                      "aggregation: a thread counts a run of equal bins in a register and "
                      "makes one update a run",
                      "PMPP 9.6", CUDA, 0},
    [HR_WARP_AGGREGATED] = {"histogram", "warp_aggregated",
                            "warp-aggregated updates: __match_any_sync groups the lanes of "
                            "a bin, the group's lowest lane adds the group's count",
                            "beyond the book (CUDA Guide: warp match functions)", CUDA, 0},
    [HR_PER_WARP] = {"histogram", "per_warp",
                     "per-warp sub-histograms in shared memory (fewer lanes on each copy), "
                     "summed into the output once a block",
                     "beyond the book (replicated privatization)", CUDA, 0},
    [HR_VEC16] = {"histogram", "vec16",
                  "per-warp sub-histograms, 16-byte loads, runs counted in registers and "
                  "each thread's last run warp-aggregated (match_any); 8-bit samples map "
                  "through a table in shared memory",
                  "beyond the book (CUB DeviceHistogram's shape, plus run aggregation)", CUDA,
                  1},
    [HR_CLUSTER] = {"histogram", "cluster",
                    "one histogram spread over the shared memory of a thread-block cluster "
                    "(distributed shared memory: atomics into the owning block's slice) for "
                    "bin counts too big for one block",
                    "beyond the book (CUDA Guide: thread-block clusters, DSMEM; sm_90)", CUDA,
                    0},
    [HR_BYTE_COUNTERS] = {"histogram", "byte_counters",
                          "8-bit samples: every thread its own 8-bit counter per byte value in "
                          "shared memory (banks by lane), one shared atomic add on the counter's "
                          "word a sample (no contention, no result awaited); 16-byte loads; rows "
                          "summed with __dp4a every 240 samples; the bin rule once per value",
                          "beyond the book (CUDA SDK histogram64, Podlozhnyuk 2007)", CUDA, 0},
    [HR_PACKED16] = {"histogram", "packed16",
                     "16-bit counters in pairs (one 32-bit shared atomic adds to either half; "
                     "the old value shows each overflow, sent to the output exactly): twice "
                     "the bins one block holds, e.g. 65536 in 128 KiB; loads and runs as vec16",
                     "beyond the book (packed counters)", CUDA, 0},
    [HR_CPU_SERIAL] = {"histogram", "serial", "one loop over the samples: the reference",
                       "PMPP 9.1", CPU, 0},
    [HR_CPU_OPENMP] = {"histogram", "openmp",
                       "OpenMP: a private histogram per thread over a static slice, summed "
                       "bin by bin",
                       "PMPP 9.4 on the host; OpenMP", CPU, 1},
};
_Static_assert(sizeof hist_rungs / sizeof hist_rungs[0] == HR_COUNT, "histogram ladder");

const cupat_pattern_desc cupat__pattern_histogram = {"histogram", hist_rungs, HR_COUNT};

/* -------------------------------------------------------------- checks -- */

static const char *sample_name(cupat_hist_sample s)
{
    switch (s) {
    case CUPAT_HIST_U8: return "u8";
    case CUPAT_HIST_U16: return "u16";
    case CUPAT_HIST_I32: return "i32";
    case CUPAT_HIST_F32: return "f32";
    }
    return "?";
}

/* Everything but the bin rule: ctx, types, bins, flags, the two arrays. */
static cupat_status check_common(cupat_ctx *ctx, const char *fn, cupat_hist_sample sample,
                                 int channels, size_t n, const void *x, size_t bins,
                                 cupat_type count_type, void *counts, unsigned flags,
                                 hist_req *r)
{
    CUPAT_TRY(cupat__begin(ctx, fn));
    if ((int)sample < CUPAT_HIST_U8 || (int)sample > CUPAT_HIST_F32)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: sample = %d is not a cupat_hist_sample (CUPAT_HIST_U8 .. "
                           "CUPAT_HIST_F32)",
                           fn, (int)sample);
    if (count_type != CUPAT_U32 && count_type != CUPAT_U64)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: count_type = %d: counts are CUPAT_U32 or CUPAT_U64", fn,
                           (int)count_type);
    if (bins == 0 || bins > CUPAT_HIST_MAX_BINS)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: bins = %zu is outside 1 .. %zu (CUPAT_HIST_MAX_BINS)", fn, bins,
                           CUPAT_HIST_MAX_BINS);
    if (flags & ~CUPAT_HIST_ACCUMULATE)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: flags = 0x%x: only CUPAT_HIST_ACCUMULATE (0x1) is defined", fn,
                           flags);
    size_t es = hist_sample_size(sample), cs = count_type == CUPAT_U64 ? 8 : 4, xb, cb;
    CUPAT_TRY(cupat__size_mul(ctx, fn, "x", n, es, 1, &xb));
    CUPAT_TRY(cupat__check_data(ctx, fn, "x", x, xb));
    if (xb && (uintptr_t)x % es != 0)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: x = %p is not aligned to its %zu-byte %s samples", fn, x, es,
                           sample_name(sample));
    CUPAT_TRY(cupat__size_mul(ctx, fn, "counts", bins, (size_t)channels, cs, &cb));
    CUPAT_TRY(cupat__check_data(ctx, fn, "counts", counts, cb));
    if ((uintptr_t)counts % cs != 0)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: counts = %p is not aligned to its %zu-byte counts", fn, counts,
                           cs);
    CUPAT_TRY(cupat__check_disjoint(ctx, fn, "counts", cupat__extent1(counts, cb), "x",
                                    cupat__extent1(x, xb), NULL));
    memset(r, 0, sizeof *r);
    r->fn = fn;
    r->sample = sample;
    r->channels = channels;
    r->n = n;
    r->x = x;
    r->bins = (unsigned)bins;
    r->total = (unsigned)(bins * (size_t)channels);
    r->out64 = count_type == CUPAT_U64;
    r->counts = counts;
    r->accumulate = (flags & CUPAT_HIST_ACCUMULATE) != 0;
    return CUPAT_SUCCESS;
}

#define INT_BOUND 0x1p40 /* |lower|, |upper| of the integer rule */

/* The even rule's parameters (cupat.h). */
static cupat_status even_params(cupat_ctx *ctx, const char *fn, double lower, double upper,
                                hist_req *r)
{
    if (isnan(lower) || isnan(upper))
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: lower = %g, upper = %g: a bound is NaN", fn, lower, upper);
    if (r->sample == CUPAT_HIST_F32) {
        float lo = (float)lower, hi = (float)upper;
        if (!isfinite(lo) || !isfinite(hi))
            return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                               "%s: lower = %g, upper = %g: f32 bounds must be finite floats",
                               fn, lower, upper);
        if (!(lo < hi))
            return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                               "%s: lower = %.9g must be below upper = %.9g (as f32)", fn,
                               (double)lo, (double)hi);
        volatile float w = hi - lo; /* one f32 rounding, as on the device */
        if (!isfinite(w))
            return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                               "%s: upper - lower = %g overflows f32", fn, upper - lower);
        volatile float sc = (float)r->bins / w;
        r->flo = lo;
        r->fhi = hi;
        r->fscale = sc;
        return CUPAT_SUCCESS;
    }
    if (lower != floor(lower) || upper != floor(upper) || fabs(lower) > INT_BOUND ||
        fabs(upper) > INT_BOUND)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: lower = %.17g, upper = %.17g: integer samples take integer "
                           "bounds of magnitude at most 2^40",
                           fn, lower, upper);
    if (!(lower < upper))
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: lower = %.17g must be below upper = %.17g", fn, lower, upper);
    r->ilo = (int64_t)lower;
    r->irange = (uint64_t)((int64_t)upper - (int64_t)lower);
    uint64_t R = r->irange, b = r->bins;
    r->imode = HIST_IMODE_DIV64;
    if (R % b == 0 && ((R / b) & (R / b - 1)) == 0) {
        r->imode = HIST_IMODE_SHIFT;
        r->ishift = (unsigned)__builtin_ctzll(R / b);
    } else if (R < ((uint64_t)1 << 32) && (R - 1) * b < ((uint64_t)1 << 32)) {
        r->imode = HIST_IMODE_DIV32;
    }
    return CUPAT_SUCCESS;
}

/* The boundaries: host memory, no NaN, sorted. */
static cupat_status check_bounds(cupat_ctx *ctx, const char *fn, const double *bd, size_t bins)
{
    if (!bd) return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "%s: boundaries is NULL", fn);
    cupat_memory_kind k = cupat__pointer_kind(bd);
    if (k == CUPAT_MEMORY_DEVICE)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: boundaries = %p is device memory; it must be host memory", fn,
                           (const void *)bd);
    for (size_t i = 0; i <= bins; i++) {
        if (isnan(bd[i]))
            return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "%s: boundaries[%zu] is NaN",
                               fn, i);
        if (i && bd[i] < bd[i - 1])
            return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                               "%s: boundaries are not sorted: boundaries[%zu] = %.17g < "
                               "boundaries[%zu] = %.17g",
                               fn, i, bd[i], i - 1, bd[i - 1]);
    }
    return CUPAT_SUCCESS;
}

/* Checked boundaries to keys (histogram_internal.h); *keys is malloc'd. */
static cupat_status range_keys(cupat_ctx *ctx, const char *fn, const double *bd, hist_req *r,
                               void **keys)
{
    const size_t nb = (size_t)r->bins + 1;
    void *p = malloc(nb * hist_key_size(r->sample));
    if (!p) return cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    if (r->sample == CUPAT_HIST_F32) {
        float *f = p;
        for (size_t i = 0; i < nb; i++) f[i] = hist_fkey(bd[i]);
    } else {
        int64_t *q = p;
        for (size_t i = 0; i < nb; i++) q[i] = hist_ikey(bd[i]);
    }
    *keys = p;
    return CUPAT_SUCCESS;
}

/* Whether the checked boundaries bd are exactly an even grid: then r (a
 * range request without keys yet) becomes the even request that counts
 * every sample in the same bin. The bounds are checked first so that
 * even_params never fails. */
static int range_as_even(cupat_ctx *ctx, const char *fn, const double *bd, hist_req *r)
{
    double lo, hi;
    if (r->sample == CUPAT_HIST_F32) {
        float k0 = hist_fkey(bd[0]), kn = hist_fkey(bd[r->bins]), w = kn - k0;
        if (!isfinite(k0) || !isfinite(kn) || !(k0 < kn) || !isfinite(w)) return 0;
        lo = k0;
        hi = kn;
    } else {
        int64_t k0 = hist_ikey(bd[0]), kn = hist_ikey(bd[r->bins]);
        if (!(k0 < kn)) return 0;
        lo = (double)k0;
        hi = (double)kn;
    }
    hist_req e = *r;
    e.range = 0;
    if (even_params(ctx, fn, lo, hi, &e) != CUPAT_SUCCESS || !cupat__hist_keys_even(&e, bd)) return 0;
    *r = e;
    return 1;
}

static cupat_status run(cupat_ctx *ctx, hist_req *r)
{
    const cupat_variant_info *v;
    CUPAT_TRY(cupat__select(ctx, "histogram", &v));
    r->rung = cupat__rung_index(v);
    if (ctx->backend == CUPAT_BACKEND_CPU) return cupat__histogram_cpu(ctx, r);
    return cupat__histogram_cuda(ctx, r);
}

cupat_status cupat_histogram_even(cupat_ctx *ctx, cupat_hist_sample sample, size_t n,
                                  const void *x, size_t bins, double lower, double upper,
                                  cupat_type count_type, void *counts, unsigned flags)
{
    CUPAT_TRACE_CALL();
    static const char fn[] = "cupat_histogram_even";
    hist_req r;
    size_t xb, es = hist_sample_size(sample);
    if (es && !__builtin_mul_overflow(n, es, &xb) && cupat__stream_wanted(ctx, 1, &x, &xb))
        return cupat__stream_hist(ctx, fn, sample, n, es, x, bins, lower, upper, NULL, count_type,
                                  counts, flags);
    CUPAT_TRY(check_common(ctx, fn, sample, 1, n, x, bins, count_type, counts, flags, &r));
    CUPAT_TRY(even_params(ctx, fn, lower, upper, &r));
    return run(ctx, &r);
}

cupat_status cupat_histogram_range(cupat_ctx *ctx, cupat_hist_sample sample, size_t n,
                                   const void *x, size_t bins, const double *boundaries,
                                   cupat_type count_type, void *counts, unsigned flags)
{
    CUPAT_TRACE_CALL();
    static const char fn[] = "cupat_histogram_range";
    hist_req r;
    void *keys = NULL;
    size_t xb, es = hist_sample_size(sample);
    if (es && boundaries && !__builtin_mul_overflow(n, es, &xb) && cupat__stream_wanted(ctx, 1, &x, &xb))
        return cupat__stream_hist(ctx, fn, sample, n, es, x, bins, 0.0, 0.0, boundaries, count_type,
                                  counts, flags);
    CUPAT_TRY(check_common(ctx, fn, sample, 1, n, x, bins, count_type, counts, flags, &r));
    CUPAT_TRY(check_bounds(ctx, fn, boundaries, bins));
    /* Boundaries that are exactly an even grid run as the even rule (a
     * multiply instead of a search), unless a rung is pinned. */
    if (!cupat__pinned(ctx, "histogram") && range_as_even(ctx, fn, boundaries, &r)) return run(ctx, &r);
    CUPAT_TRY(range_keys(ctx, fn, boundaries, &r, &keys));
    r.range = 1;
    r.keys = keys;
    cupat_status s = run(ctx, &r);
    free(keys); /* the CUDA backend copied them (stream-ordered) before returning */
    return s;
}

cupat_status cupat_histogram_channels(cupat_ctx *ctx, int channels, size_t pixels,
                                      const uint8_t *x, size_t bins, double lower,
                                      double upper, cupat_type count_type, void *counts,
                                      unsigned flags)
{
    CUPAT_TRACE_CALL();
    static const char fn[] = "cupat_histogram_channels";
    CUPAT_TRY(cupat__begin(ctx, fn));
    if (channels < 1 || channels > 4)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: channels = %d is outside 1 .. 4", fn, channels);
    size_t n;
    CUPAT_TRY(cupat__size_mul(ctx, fn, "pixels", pixels, (size_t)channels, 1, &n));
    hist_req r;
    CUPAT_TRY(check_common(ctx, fn, CUPAT_HIST_U8, channels, n, x, bins, count_type, counts,
                           flags, &r));
    CUPAT_TRY(even_params(ctx, fn, lower, upper, &r));
    return run(ctx, &r);
}
