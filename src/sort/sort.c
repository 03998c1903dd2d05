/* SPDX-License-Identifier: Apache-2.0 */
/* sort.c — cupat_merge, cupat_sort, cupat_sort_bits, cupat_sort_segmented:
 * argument checks, the "merge", "sort" and "segsort" ladders, dispatch.
 * Rung -> file: merge sequential .. partitioned: merge.cu; sort radix_1bit ..
 * coarsened: sort_book.cu; merge_sort: sort_mergesort.cu; onesweep:
 * sort_onesweep.cu; segsort block: sort_segmented.cu; serial, openmp:
 * sort_cpu.c. */
#include "internal.h"
#include "sort/sort_internal.h"

#include <stdint.h>
#include <string.h>

#define CUDA CUPAT_BACKEND_CUDA
#define CPU CUPAT_BACKEND_CPU

/* ------------------------------------------------------------- ladders -- */

static const cupat_variant_info merge_rungs[MR_COUNT] = {
    [MR_SEQUENTIAL] = {"merge", "sequential",
                       "one GPU thread walks both arrays (two fingers): the textbook "
                       "baseline; refuses more than 2^22 outputs",
                       "PMPP 12.2", CUDA, 0},
    [MR_CORANK] = {"merge", "corank",
                   "each thread finds where its output range starts in A and B by a binary "
                   "search (co-rank) and merges it sequentially from global memory",
                   "PMPP 12.3-12.4", CUDA, 0},
    [MR_TILED] = {"merge", "tiled",
                  "each block co-ranks its output section, then walks it tile by tile: A "
                  "and B tiles loaded coalesced into shared memory, threads co-rank and "
                  "merge there",
                  "PMPP 12.5", CUDA, 0},
    [MR_CIRCULAR] = {"merge", "circular",
                     "tiled, but the elements a tile left unused stay in shared memory as a "
                     "circular buffer: each input element is loaded once",
                     "PMPP 12.6", CUDA, 0},
    [MR_PARTITIONED] = {"merge", "partitioned",
                        "merge path: one kernel co-ranks every tile boundary, then one tile "
                        "a block: A and B ranges loaded coalesced into shared memory, each "
                        "thread merges 15 (8 in the merge sort's passes) in registers, staged through shared memory for "
                        "coalesced stores",
                        "beyond the books (Green et al. 2012 merge path; CUB DeviceMerge)",
                        CUDA, 1},
    [MR_CPU_SERIAL] = {"merge", "serial", "two fingers, one loop", "PMPP 12.2", CPU, 0},
    [MR_CPU_OPENMP] = {"merge", "openmp",
                       "OpenMP: the output cut in equal chunks, each chunk's start co-ranked, "
                       "each merged sequentially",
                       "PMPP 12.3 on the host; OpenMP", CPU, 1},
};
_Static_assert(sizeof merge_rungs / sizeof merge_rungs[0] == MR_COUNT, "merge ladder");

static const cupat_variant_info sort_rungs[SOR_COUNT] = {
    [SOR_RADIX_1BIT] = {"sort", "radix_1bit",
                        "one bit a pass: a kernel writes each key's bit, cupat's exclusive "
                        "scan counts the ones before it, a kernel scatters (zeros first); "
                        "32 or 64 passes, uncoalesced writes",
                        "PMPP 13.2", CUDA, 0},
    [SOR_LOCAL_SORT] = {"sort", "local_sort",
                        "one bit a pass, each block first sorts its tile in shared memory, "
                        "so keys with the same bit leave in contiguous runs (coalesced); a "
                        "table of per-block bucket counts, scanned",
                        "PMPP 13.3", CUDA, 0},
    [SOR_MULTIBIT] = {"sort", "multibit",
                      "4-bit digits: 16 buckets a block, a quarter of the passes",
                      "PMPP 13.4", CUDA, 0},
    [SOR_COARSENED] = {"sort", "coarsened",
                       "4-bit digits and 16 keys a thread: 16x fewer blocks, so a 16x "
                       "smaller count table to scan and longer coalesced runs",
                       "PMPP 13.5", CUDA, 0},
    [SOR_MERGE_SORT] = {"sort", "merge_sort",
                        "tiles of 1024 sorted in shared memory, then log2(n / 1024) passes "
                        "of the partitioned parallel merge over runs of doubling width",
                        "PMPP 13.7", CUDA, 0},
    [SOR_ONESWEEP] = {"sort", "onesweep",
                      "one upsweep pass counts every 8-bit digit of every key; then one pass "
                      "a digit: keys ranked in shared memory by warp match, the digit's "
                      "global offset by decoupled look-back over per-digit status words, "
                      "scattered through shared memory; bit ranges trim passes",
                      "beyond the books (Adinets & Merrill 2022, Onesweep)", CUDA, 1},
    [SOR_CPU_SERIAL] = {"sort", "serial",
                        "LSD radix sort, 8-bit digits, one histogram for all passes",
                        "PMPP 13.1", CPU, 0},
    [SOR_CPU_OPENMP] = {"sort", "openmp",
                        "LSD radix sort, 8-bit digits: per-chunk histograms in parallel, "
                        "their offsets scanned, chunks scattered in parallel (stable)",
                        "PMPP 13.4 on the host; OpenMP", CPU, 1},
};
_Static_assert(sizeof sort_rungs / sizeof sort_rungs[0] == SOR_COUNT, "sort ladder");

static const cupat_variant_info segsort_rungs[SSR_COUNT] = {
    [SSR_BLOCK] = {"segsort", "block",
                   "segments binned by size: up to 256, 1024 and 4096 keys each sorted by "
                   "one block in shared memory (8-bit radix passes, warp-match ranking); "
                   "longer ones by the device sort",
                   "beyond the books (CUB DeviceSegmentedSort's size classes)", CUDA, 1},
    [SSR_CPU_SERIAL] = {"segsort", "serial", "each segment sorted in turn", "PMPP 13", CPU, 0},
    [SSR_CPU_OPENMP] = {"segsort", "openmp", "segments spread over OpenMP threads",
                        "OpenMP", CPU, 1},
};
_Static_assert(sizeof segsort_rungs / sizeof segsort_rungs[0] == SSR_COUNT, "segsort ladder");

const cupat_pattern_desc cupat__pattern_merge = {"merge", merge_rungs, MR_COUNT};
const cupat_pattern_desc cupat__pattern_sort = {"sort", sort_rungs, SOR_COUNT};
const cupat_pattern_desc cupat__pattern_segsort = {"segsort", segsort_rungs, SSR_COUNT};
size_t cupat__sort_portion_tiles = 0;

/* ------------------------------------------------------------ the order -- */

sort_xform cupat__sort_xform(cupat_type t, cupat_sort_order order)
{
    sort_xform x = {0, 0, 0};
    int bits = (int)(8 * cupat_type_size(t));
    uint64_t all = bits == 64 ? ~0ull : (1ull << bits) - 1, sign = 1ull << (bits - 1);
    if (t == CUPAT_F32 || t == CUPAT_F64) {
        x.m0 = sign;
        x.m1 = all;
    } else if (t == CUPAT_I32 || t == CUPAT_I64) {
        x.m0 = x.m1 = sign;
    }
    x.d = order == CUPAT_SORT_DESCENDING ? all : 0;
    return x;
}

/* -------------------------------------------------------------- checks -- */

static cupat_status check_key_type(cupat_ctx *ctx, const char *fn, cupat_type t)
{
    if (cupat_type_size(t) == 0)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: key_type = %d is not a cupat_type (CUPAT_F32 .. CUPAT_U64)", fn,
                           (int)t);
    return CUPAT_SUCCESS;
}

static cupat_status check_order(cupat_ctx *ctx, const char *fn, cupat_sort_order o)
{
    if (o != CUPAT_SORT_ASCENDING && o != CUPAT_SORT_DESCENDING)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: order = %d is not CUPAT_SORT_ASCENDING or CUPAT_SORT_DESCENDING",
                           fn, (int)o);
    return CUPAT_SUCCESS;
}

/* value_size 0 (and then no value pointers), 4 or 8. */
static cupat_status check_values(cupat_ctx *ctx, const char *fn, size_t vsize, const void *v1,
                                 const char *n1, const void *v2, const char *n2,
                                 const void *v3, const char *n3)
{
    if (vsize != 0 && vsize != 4 && vsize != 8)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: value_size = %zu: values are 4 or 8 bytes (0: keys alone)", fn,
                           vsize);
    if (vsize == 0) {
        const void *p[3] = {v1, v2, v3};
        const char *nm[3] = {n1, n2, n3};
        for (int i = 0; i < 3; i++)
            if (nm[i] && p[i])
                return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                                   "%s: %s = %p with value_size = 0 (keys alone: pass NULL)",
                                   fn, nm[i], p[i]);
    }
    return CUPAT_SUCCESS;
}

/* An array of n elements of `esize` bytes: size, pointer kind, alignment. */
static cupat_status check_array(cupat_ctx *ctx, const char *fn, const char *arg, const void *p,
                                size_t n, size_t esize, size_t *bytes)
{
    CUPAT_TRY(cupat__size_mul(ctx, fn, arg, n, esize, 1, bytes));
    CUPAT_TRY(cupat__check_data(ctx, fn, arg, p, *bytes));
    if (*bytes && (uintptr_t)p % esize != 0)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: %s = %p is not aligned to its %zu-byte elements", fn, arg, p,
                           esize);
    return CUPAT_SUCCESS;
}

typedef struct named {
    const char *name;
    const void *p;
    size_t bytes;
} named;

/* Output o against inputs: disjoint, except exactly `same` (in place). */
static cupat_status check_apart(cupat_ctx *ctx, const char *fn, named o, const named *in,
                                int nin, const void *same)
{
    for (int i = 0; i < nin; i++) {
        if (!in[i].name || !in[i].bytes || !o.bytes) continue;
        if (same && in[i].p == same && o.p == same) continue;
        CUPAT_TRY(cupat__check_disjoint(ctx, fn, o.name, cupat__extent1(o.p, o.bytes), in[i].name,
                                        cupat__extent1(in[i].p, in[i].bytes),
                                        same && in[i].p == same
                                            ? "an output may be exactly its input (in place) "
                                              "or apart from it"
                                            : NULL));
    }
    return CUPAT_SUCCESS;
}

/* ---------------------------------------------------------------- merge -- */

cupat_status cupat_merge(cupat_ctx *ctx, cupat_type key_type, size_t value_size,
                         cupat_sort_order order, size_t na, const void *a_keys,
                         const void *a_values, size_t nb, const void *b_keys,
                         const void *b_values, void *keys_out, void *values_out)
{
    CUPAT_TRACE_CALL();
    const char *fn = "cupat_merge";
    CUPAT_TRY(cupat__begin(ctx, fn));
    CUPAT_TRY(check_key_type(ctx, fn, key_type));
    CUPAT_TRY(check_order(ctx, fn, order));
    CUPAT_TRY(check_values(ctx, fn, value_size, a_values, "a_values", b_values, "b_values",
                           values_out, "values_out"));
    size_t ks = cupat_type_size(key_type), n;
    if (na > SIZE_MAX - nb)
        return cupat__fail(ctx, CUPAT_ERROR_SIZE, "%s: na + nb = %zu + %zu overflows size_t", fn,
                           na, nb);
    n = na + nb;
    size_t ab, bb, ob, avb = 0, bvb = 0, ovb = 0;
    CUPAT_TRY(check_array(ctx, fn, "a_keys", a_keys, na, ks, &ab));
    CUPAT_TRY(check_array(ctx, fn, "b_keys", b_keys, nb, ks, &bb));
    CUPAT_TRY(check_array(ctx, fn, "keys_out", keys_out, n, ks, &ob));
    if (value_size) {
        CUPAT_TRY(check_array(ctx, fn, "a_values", a_values, na, value_size, &avb));
        CUPAT_TRY(check_array(ctx, fn, "b_values", b_values, nb, value_size, &bvb));
        CUPAT_TRY(check_array(ctx, fn, "values_out", values_out, n, value_size, &ovb));
    }
    named in[5] = {{"a_keys", a_keys, ab},
                   {"b_keys", b_keys, bb},
                   {"a_values", a_values, avb},
                   {"b_values", b_values, bvb},
                   {"keys_out", keys_out, ob}};
    CUPAT_TRY(check_apart(ctx, fn, (named){"keys_out", keys_out, ob}, in, 4, NULL));
    CUPAT_TRY(check_apart(ctx, fn, (named){"values_out", values_out, ovb}, in, 5, NULL));
    const cupat_variant_info *v;
    CUPAT_TRY(cupat__select(ctx, "merge", &v));
    merge_req r;
    memset(&r, 0, sizeof r);
    r.fn = fn;
    r.rung = cupat__rung_index(v);
    r.key_type = key_type;
    r.ksize = ks;
    r.vsize = value_size;
    r.x = cupat__sort_xform(key_type, order);
    r.na = na;
    r.nb = nb;
    r.a = a_keys;
    r.av = a_values;
    r.b = b_keys;
    r.bv = b_values;
    r.out = keys_out;
    r.outv = values_out;
    if (n == 0) return CUPAT_SUCCESS;
    if (r.rung == MR_SEQUENTIAL && n > MERGE_SEQUENTIAL_MAX)
        return cupat__fail(ctx, CUPAT_ERROR_NOT_SUPPORTED,
                           "%s: rung sequential (one thread) takes at most %zu outputs, not %zu",
                           fn, (size_t)MERGE_SEQUENTIAL_MAX, n);
    if (ctx->backend == CUPAT_BACKEND_CPU) return cupat__merge_cpu(ctx, &r);
    return cupat__merge_cuda(ctx, &r);
}

/* ----------------------------------------------------------------- sort -- */

static cupat_status sort_common(cupat_ctx *ctx, const char *fn, sort_req *r,
                                cupat_type key_type, size_t value_size, cupat_sort_order order,
                                size_t n, const void *keys_in, void *keys_out,
                                const void *values_in, void *values_out)
{
    CUPAT_TRY(cupat__begin(ctx, fn));
    CUPAT_TRY(check_key_type(ctx, fn, key_type));
    CUPAT_TRY(check_order(ctx, fn, order));
    CUPAT_TRY(check_values(ctx, fn, value_size, values_in, "values_in", values_out,
                           "values_out", NULL, NULL));
    size_t ks = cupat_type_size(key_type), kib, kob, vib = 0, vob = 0;
    CUPAT_TRY(check_array(ctx, fn, "keys_in", keys_in, n, ks, &kib));
    CUPAT_TRY(check_array(ctx, fn, "keys_out", keys_out, n, ks, &kob));
    if (value_size) {
        CUPAT_TRY(check_array(ctx, fn, "values_in", values_in, n, value_size, &vib));
        CUPAT_TRY(check_array(ctx, fn, "values_out", values_out, n, value_size, &vob));
    }
    named kin[2] = {{"keys_in", keys_in, kib}, {"values_in", values_in, vib}};
    CUPAT_TRY(check_apart(ctx, fn, (named){"keys_out", keys_out, kob}, kin, 2, keys_in));
    named vin[3] = {{"values_in", values_in, vib},
                    {"keys_in", keys_in, kib},
                    {"keys_out", keys_out, kob}};
    CUPAT_TRY(check_apart(ctx, fn, (named){"values_out", values_out, vob}, vin, 3, values_in));
    memset(r, 0, sizeof *r);
    r->fn = fn;
    r->key_type = key_type;
    r->ksize = ks;
    r->vsize = value_size;
    r->x = cupat__sort_xform(key_type, order);
    r->lo = 0;
    r->hi = (int)(8 * ks);
    r->n = n;
    r->kin = keys_in;
    r->kout = keys_out;
    r->vin = values_in;
    r->vout = values_out;
    return CUPAT_SUCCESS;
}

static cupat_status sort_run(cupat_ctx *ctx, sort_req *r)
{
    const cupat_variant_info *v;
    CUPAT_TRY(cupat__select(ctx, "sort", &v));
    r->rung = cupat__rung_index(v);
    if (r->n == 0) return CUPAT_SUCCESS;
    if (ctx->backend == CUPAT_BACKEND_CPU) return cupat__sort_cpu(ctx, r);
    switch (r->rung) {
    case SOR_ONESWEEP: return cupat__sort_onesweep_cuda(ctx, r);
    case SOR_MERGE_SORT: return cupat__sort_mergesort_cuda(ctx, r);
    default: return cupat__sort_book_cuda(ctx, r);
    }
}

cupat_status cupat_sort(cupat_ctx *ctx, cupat_type key_type, size_t value_size,
                        cupat_sort_order order, size_t n, const void *keys_in,
                        void *keys_out, const void *values_in, void *values_out)
{
    CUPAT_TRACE_CALL();
    sort_req r;
    CUPAT_TRY(sort_common(ctx, "cupat_sort", &r, key_type, value_size, order, n, keys_in,
                          keys_out, values_in, values_out));
    return sort_run(ctx, &r);
}

cupat_status cupat_sort_bits(cupat_ctx *ctx, cupat_type key_type, size_t value_size,
                             cupat_sort_order order, size_t n, const void *keys_in,
                             void *keys_out, const void *values_in, void *values_out,
                             int begin_bit, int end_bit)
{
    CUPAT_TRACE_CALL();
    const char *fn = "cupat_sort_bits";
    sort_req r;
    CUPAT_TRY(sort_common(ctx, fn, &r, key_type, value_size, order, n, keys_in, keys_out,
                          values_in, values_out));
    if (key_type == CUPAT_F32 || key_type == CUPAT_F64)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: key_type = %s: bit ranges are for integer keys (sort floats "
                           "with cupat_sort)",
                           fn, cupat_type_name(key_type));
    if (begin_bit < 0 || end_bit > r.hi || begin_bit >= end_bit)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: bit range [%d, %d) is not within [0, %d) with begin_bit < "
                           "end_bit",
                           fn, begin_bit, end_bit, r.hi);
    r.lo = begin_bit;
    r.hi = end_bit;
    return sort_run(ctx, &r);
}

cupat_status cupat_sort_segmented(cupat_ctx *ctx, cupat_type key_type, size_t value_size,
                                  cupat_sort_order order, size_t n, size_t num_segments,
                                  const uint64_t *offsets, const void *keys_in,
                                  void *keys_out, const void *values_in, void *values_out)
{
    CUPAT_TRACE_CALL();
    const char *fn = "cupat_sort_segmented";
    sort_req r;
    CUPAT_TRY(sort_common(ctx, fn, &r, key_type, value_size, order, n, keys_in, keys_out,
                          values_in, values_out));
    if (num_segments == SIZE_MAX)
        return cupat__fail(ctx, CUPAT_ERROR_SIZE, "%s: num_segments = %zu is too large", fn,
                           num_segments);
    size_t ob;
    CUPAT_TRY(check_array(ctx, fn, "offsets", offsets, num_segments + 1, 8, &ob));
    named outs[2] = {{"keys_out", keys_out, n * r.ksize}, {"values_out", values_out, n * r.vsize}};
    for (int i = 0; i < 2; i++)
        CUPAT_TRY(check_apart(ctx, fn, outs[i], &(named){"offsets", offsets, ob}, 1, NULL));
    const cupat_variant_info *v;
    CUPAT_TRY(cupat__select(ctx, "segsort", &v));
    r.rung = cupat__rung_index(v);
    r.nseg = num_segments;
    r.offsets = offsets;
    if (ctx->backend == CUPAT_BACKEND_CPU) return cupat__segsort_cpu(ctx, &r);
    return cupat__segsort_cuda(ctx, &r);
}
