/* SPDX-License-Identifier: Apache-2.0 */
/* scan.c — cupat_scan, the segmented scans and stream compaction: argument
 * checks, the "scan", "segscan" and "select" ladders, dispatch.
 * Rung -> file: kogge_stone .. domino: scan_book.cu; warp_shfl,
 * reduce_then_scan, coop_grid: scan_multi.cu; decoupled and segscan:
 * scan_lookback.cu; select: select.cu; serial, openmp: scan_cpu.c. */
#include "internal.h"
#include "scan/scan_internal.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#define CUDA CUPAT_BACKEND_CUDA
#define CPU CUPAT_BACKEND_CPU

/* ------------------------------------------------------------- ladders -- */

static const cupat_variant_info scan_rungs[SR_COUNT] = {
    [SR_KOGGE_STONE] = {"scan", "kogge_stone",
                        "Kogge-Stone in one block, in place in shared memory (a barrier "
                        "between each step's reads and writes); one block walks the array "
                        "section by section",
                        "PMPP 11.2", CUDA, 0},
    [SR_KOGGE_STONE_DB] = {"scan", "kogge_stone_db",
                           "Kogge-Stone with two shared buffers: the write-after-read race "
                           "gone, one barrier a step; one block walks the array",
                           "PMPP 11.2 (double buffering)", CUDA, 0},
    [SR_BRENT_KUNG] = {"scan", "brent_kung",
                       "Brent-Kung: reduction tree up, distribution tree down, 2 elements "
                       "a thread (2n adds instead of n log n); one block walks the array",
                       "PMPP 11.4", CUDA, 0},
    [SR_COARSENED] = {"scan", "coarsened",
                      "three phases: each thread scans its sub-section serially, a scan of "
                      "the thread totals, add back; coalesced shared-memory loads; one "
                      "block walks the array",
                      "PMPP 11.5", CUDA, 0},
    [SR_HIERARCHICAL] = {"scan", "hierarchical",
                         "scan each block's section, scan the block sums (recursively), "
                         "add them back: 3 kernels, any n",
                         "PMPP 11.6", CUDA, 0},
    [SR_DOMINO] = {"scan", "domino",
                   "single kernel: each block waits for its left neighbour's running sum "
                   "and passes its own on (flags in global memory, dynamic block ids)",
                   "PMPP 11.7 (stream-based / domino scan)", CUDA, 0},
    [SR_WARP_SHFL] = {"scan", "warp_shfl",
                      "block scan from warp shuffle scans (registers, no shared-memory "
                      "tree), hierarchical; 16-byte loads",
                      "beyond the books (PCCP 5.6 shuffles; CUB WarpScan / BlockScan)", CUDA,
                      0},
    [SR_REDUCE_THEN_SCAN] = {"scan", "reduce_then_scan",
                             "reduce the tiles, scan the tile sums, rescan each tile from "
                             "its prefix: 3n traffic, no block waits on another",
                             "beyond the books (Merrill & Grimshaw 2009)", CUDA, 0},
    [SR_DECOUPLED] = {"scan", "decoupled",
                      "single pass: 16-byte loads transposed through shared memory so "
                      "each thread scans 24 consecutive elements serially and one warp "
                      "scan joins them; decoupled look-back over 32 predecessors at once "
                      "after a 1.2 us wait; float sums chained in a fixed order "
                      "(deterministic)",
                      "beyond the books (Merrill & Garland 2016)", CUDA, 1},
    [SR_DECOUPLED_TMA] = {"scan", "decoupled_tma",
                          "decoupled look-back with persistent blocks: each 24 KiB tile comes "
                          "into shared memory by one cp.async.bulk (TMA) two tiles ahead, "
                          "on an mbarrier, while the block waits for the previous prefix",
                          "beyond the books (CUDA Guide: TMA bulk copies, mbarrier)", CUDA, 0},
    [SR_COOP_GRID] = {"scan", "coop_grid",
                      "one cooperative launch: chunk sums, grid.sync(), chunk prefixes, "
                      "grid.sync(), scan with the offset",
                      "CUDA Guide: cooperative groups, grid synchronization", CUDA, 0},
    [SR_CPU_SERIAL] = {"scan", "serial", "one loop, left to right: the textbook reference",
                       "PMPP 11.1", CPU, 0},
    [SR_CPU_OPENMP] = {"scan", "openmp",
                       "OpenMP: scan fixed chunks in parallel, scan the chunk totals, add "
                       "back (reduce-then-scan on the host); deterministic",
                       "PMPP 11.6 on the host; OpenMP", CPU, 1},
};
_Static_assert(sizeof scan_rungs / sizeof scan_rungs[0] == SR_COUNT, "scan ladder");

static const cupat_variant_info segscan_rungs[SG_COUNT] = {
    [SG_DECOUPLED] = {"segscan", "decoupled",
                      "single pass: each thread scans its consecutive elements serially, "
                      "restarting at heads; (head, value) thread totals under the "
                      "segmented operator; decoupled look-back that stops at a segment head",
                      "beyond the books (Schwartz 1980 segmented operator; Merrill & "
                      "Garland 2016)",
                      CUDA, 1},
    [SG_CPU_SERIAL] = {"segscan", "serial", "one loop, restarting at each head",
                       "PMPP 11.1", CPU, 0},
    [SG_CPU_OPENMP] = {"segscan", "openmp",
                       "OpenMP over fixed chunks with the segmented operator, chunk carries "
                       "scanned in order",
                       "OpenMP", CPU, 1},
};
_Static_assert(sizeof segscan_rungs / sizeof segscan_rungs[0] == SG_COUNT, "segscan ladder");

static const cupat_variant_info select_rungs[SL_COUNT] = {
    [SL_SCAN_SCATTER] = {"select", "scan_scatter",
                         "three passes: keep-flags to 32-bit counts, an exclusive scan of "
                         "them, a scatter of the kept elements",
                         "PMPP 11 (stream compaction as an application of scan)", CUDA, 0},
    [SL_DECOUPLED] = {"select", "decoupled",
                      "single pass: predicate, warp ballot + popc ranks, block scan of the "
                      "warp counts, decoupled look-back for the tile's offset",
                      "beyond the books (Merrill & Garland 2016; CUB DeviceSelect)", CUDA, 1},
    [SL_CPU_SERIAL] = {"select", "serial", "one loop", "PMPP 11", CPU, 0},
    [SL_CPU_OPENMP] = {"select", "openmp",
                       "OpenMP: count per chunk, scan the counts, copy per chunk", "OpenMP",
                       CPU, 1},
};
_Static_assert(sizeof select_rungs / sizeof select_rungs[0] == SL_COUNT, "select ladder");

const cupat_pattern_desc cupat__pattern_scan = {"scan", scan_rungs, SR_COUNT};
const cupat_pattern_desc cupat__pattern_segscan = {"segscan", segscan_rungs, SG_COUNT};
const cupat_pattern_desc cupat__pattern_select = {"select", select_rungs, SL_COUNT};

/* ---------------------------------------------------------- identities -- */

void cupat__scan_identity(cupat_type t, cupat_op op, void *out)
{
    cupat_value v;
    memset(&v, 0, sizeof v);
    int lo = op == CUPAT_OP_MAX; /* the identity of MAX is the lowest value */
    if (op != CUPAT_OP_SUM) {
        switch (t) {
        case CUPAT_F32: v.f32 = lo ? -INFINITY : INFINITY; break;
        case CUPAT_F64: v.f64 = lo ? -(double)INFINITY : (double)INFINITY; break;
        case CUPAT_I32: v.i32 = lo ? INT32_MIN : INT32_MAX; break;
        case CUPAT_U32: v.u32 = lo ? 0 : UINT32_MAX; break;
        case CUPAT_I64: v.i64 = lo ? INT64_MIN : INT64_MAX; break;
        case CUPAT_U64: v.u64 = lo ? 0 : UINT64_MAX; break;
        }
    }
    memcpy(out, &v, cupat_type_size(t));
}

/* -------------------------------------------------------------- checks -- */

static cupat_status check_type(cupat_ctx *ctx, const char *fn, const char *arg, cupat_type t)
{
    if (cupat_type_size(t) == 0)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: %s = %d is not a cupat_type (CUPAT_F32 .. CUPAT_U64)", fn, arg,
                           (int)t);
    return CUPAT_SUCCESS;
}

/* An array of n elements of `esize` bytes: size, pointer kind, alignment. */
static cupat_status check_array(cupat_ctx *ctx, const char *fn, const char *arg,
                                const void *p, size_t n, size_t esize, size_t *bytes)
{
    CUPAT_TRY(cupat__size_mul(ctx, fn, arg, n, esize, 1, bytes));
    CUPAT_TRY(cupat__check_data(ctx, fn, arg, p, *bytes));
    if (*bytes && (uintptr_t)p % esize != 0)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: %s = %p is not aligned to its %zu-byte elements", fn, arg, p,
                           esize);
    return CUPAT_SUCCESS;
}

static cupat_status check_common(cupat_ctx *ctx, const char *fn, cupat_type type,
                                 cupat_op op, cupat_scan_mode mode)
{
    CUPAT_TRY(check_type(ctx, fn, "type", type));
    if (op != CUPAT_OP_SUM && op != CUPAT_OP_MIN && op != CUPAT_OP_MAX)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: op = %d: a scan takes CUPAT_OP_SUM, CUPAT_OP_MIN or "
                           "CUPAT_OP_MAX",
                           fn, (int)op);
    if (mode != CUPAT_SCAN_INCLUSIVE && mode != CUPAT_SCAN_EXCLUSIVE)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: mode = %d is not CUPAT_SCAN_INCLUSIVE or CUPAT_SCAN_EXCLUSIVE",
                           fn, (int)mode);
    return CUPAT_SUCCESS;
}

static cupat_status scan_entry(cupat_ctx *ctx, const char *fn, int seg, cupat_type key_type,
                               cupat_type type, cupat_op op, cupat_scan_mode mode, size_t n,
                               const void *keys, const uint8_t *flags, const void *x, void *y)
{
    CUPAT_TRY(cupat__begin(ctx, fn));
    CUPAT_TRY(check_common(ctx, fn, type, op, mode));
    if (seg == 2) CUPAT_TRY(check_type(ctx, fn, "key_type", key_type));
    size_t es = cupat_type_size(type), xb, yb, sb = 0;
    CUPAT_TRY(check_array(ctx, fn, "x", x, n, es, &xb));
    CUPAT_TRY(check_array(ctx, fn, "y", y, n, es, &yb));
    if (x != y)
        CUPAT_TRY(cupat__check_disjoint(ctx, fn, "y", cupat__extent1(y, yb), "x",
                                        cupat__extent1(x, xb),
                                        "y may be exactly x (in place) or apart from it"));
    if (seg == 1) {
        CUPAT_TRY(check_array(ctx, fn, "head_flags", flags, n, 1, &sb));
        CUPAT_TRY(cupat__check_disjoint(ctx, fn, "y", cupat__extent1(y, yb), "head_flags",
                                        cupat__extent1(flags, sb), NULL));
    } else if (seg == 2) {
        CUPAT_TRY(check_array(ctx, fn, "keys", keys, n, cupat_type_size(key_type), &sb));
        CUPAT_TRY(cupat__check_disjoint(ctx, fn, "y", cupat__extent1(y, yb), "keys",
                                        cupat__extent1(keys, sb), NULL));
    }
    const cupat_variant_info *v;
    CUPAT_TRY(cupat__select(ctx, seg ? "segscan" : "scan", &v));
    scan_req r;
    memset(&r, 0, sizeof r);
    r.fn = fn;
    r.rung = cupat__rung_index(v);
    r.type = type;
    r.op = op;
    r.exclusive = mode == CUPAT_SCAN_EXCLUSIVE;
    r.n = n;
    r.x = x;
    r.y = y;
    r.seg = seg;
    r.flags = flags;
    r.keys = keys;
    r.key_type = key_type;
    if (n == 0) return CUPAT_SUCCESS;
    if (ctx->backend == CUPAT_BACKEND_CPU) return cupat__scan_cpu(ctx, &r);
    if (!seg && r.rung != SR_DECOUPLED && r.rung != SR_DECOUPLED_TMA)
        return cupat__scan_book_cuda(ctx, &r);
    return cupat__scan_cuda(ctx, &r);
}

cupat_status cupat_scan(cupat_ctx *ctx, cupat_type type, cupat_op op, cupat_scan_mode mode,
                        size_t n, const void *x, void *y)
{
    CUPAT_TRACE_CALL();
    return scan_entry(ctx, "cupat_scan", 0, CUPAT_U32, type, op, mode, n, NULL, NULL, x, y);
}

cupat_status cupat_scan_segmented(cupat_ctx *ctx, cupat_type type, cupat_op op,
                                  cupat_scan_mode mode, size_t n, const uint8_t *head_flags,
                                  const void *x, void *y)
{
    CUPAT_TRACE_CALL();
    return scan_entry(ctx, "cupat_scan_segmented", 1, CUPAT_U32, type, op, mode, n, NULL,
                      head_flags, x, y);
}

cupat_status cupat_scan_by_key(cupat_ctx *ctx, cupat_type key_type, cupat_type type,
                               cupat_op op, cupat_scan_mode mode, size_t n, const void *keys,
                               const void *x, void *y)
{
    CUPAT_TRACE_CALL();
    return scan_entry(ctx, "cupat_scan_by_key", 2, key_type, type, op, mode, n, keys, NULL,
                      x, y);
}

/* ---------------------------------------------------------- compaction -- */

static cupat_status select_entry(cupat_ctx *ctx, const char *fn, int mode, cupat_type type,
                                 size_t n, const void *x, const uint8_t *flags,
                                 const cupat_predicate *pred, void *y, uint64_t *count)
{
    CUPAT_TRY(cupat__begin(ctx, fn));
    CUPAT_TRY(check_type(ctx, fn, "type", type));
    if (mode != 2) {
        /* n == 0: an empty flag array may be NULL (cupat_malloc(0) gives NULL) */
        if ((flags && pred) || (!flags && !pred && n > 0))
            return cupat__fail(ctx, flags ? CUPAT_ERROR_INVALID_VALUE : CUPAT_ERROR_NULL_POINTER,
                               "%s: flags = %p and pred = %p: give exactly one of them", fn,
                               (const void *)flags, (const void *)pred);
        if (pred && (pred->kind < CUPAT_PRED_NONZERO || pred->kind > CUPAT_PRED_IN_RANGE))
            return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                               "%s: pred->kind = %d is not a cupat_pred_kind "
                               "(CUPAT_PRED_NONZERO .. CUPAT_PRED_IN_RANGE)",
                               fn, (int)pred->kind);
    }
    if (!count) return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "%s: count is NULL", fn);
    if ((uintptr_t)count % 8 != 0)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: count = %p is not aligned to 8 bytes", fn, (void *)count);
    cupat_memory_kind ck = cupat__pointer_kind(count);
    int count_host = ck == CUPAT_MEMORY_HOST || ck == CUPAT_MEMORY_HOST_PINNED;
    if (ctx->backend == CUPAT_BACKEND_CPU && ck == CUPAT_MEMORY_DEVICE)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: count = %p is device memory; the CPU backend needs host memory",
                           fn, (void *)count);
    size_t es = cupat_type_size(type), xb, yb, fb = 0;
    CUPAT_TRY(check_array(ctx, fn, "x", x, n, es, &xb));
    CUPAT_TRY(check_array(ctx, fn, "y", y, n, es, &yb));
    if (flags) CUPAT_TRY(check_array(ctx, fn, "flags", flags, n, 1, &fb));
    CUPAT_TRY(cupat__check_disjoint(ctx, fn, "y", cupat__extent1(y, yb), "x",
                                    cupat__extent1(x, xb), NULL));
    if (flags)
        CUPAT_TRY(cupat__check_disjoint(ctx, fn, "y", cupat__extent1(y, yb), "flags",
                                        cupat__extent1(flags, fb), NULL));
    CUPAT_TRY(cupat__check_disjoint(ctx, fn, "count", cupat__extent1(count, 8), "y",
                                    cupat__extent1(y, yb), NULL));
    CUPAT_TRY(cupat__check_disjoint(ctx, fn, "count", cupat__extent1(count, 8), "x",
                                    cupat__extent1(x, xb), NULL));
    if (flags)
        CUPAT_TRY(cupat__check_disjoint(ctx, fn, "count", cupat__extent1(count, 8), "flags",
                                        cupat__extent1(flags, fb), NULL));

    const cupat_variant_info *v;
    CUPAT_TRY(cupat__select(ctx, "select", &v));
    select_req r;
    memset(&r, 0, sizeof r);
    r.fn = fn;
    r.rung = cupat__rung_index(v);
    r.mode = mode;
    r.type = type;
    r.n = n;
    r.x = x;
    r.flags = mode == 2 ? NULL : flags;
    r.use_pred = mode != 2 && pred != NULL;
    if (r.use_pred) r.pred = *pred;
    r.y = y;
    r.count = count;
    r.count_host = count_host;
    if (ctx->backend == CUPAT_BACKEND_CPU) return cupat__select_cpu(ctx, &r);
    return cupat__select_cuda(ctx, &r);
}

cupat_status cupat_select(cupat_ctx *ctx, cupat_type type, size_t n, const void *x,
                          const uint8_t *flags, const cupat_predicate *pred, void *y,
                          uint64_t *count)
{
    CUPAT_TRACE_CALL();
    return select_entry(ctx, "cupat_select", 0, type, n, x, flags, pred, y, count);
}

cupat_status cupat_partition(cupat_ctx *ctx, cupat_type type, size_t n, const void *x,
                             const uint8_t *flags, const cupat_predicate *pred, void *y,
                             uint64_t *count)
{
    CUPAT_TRACE_CALL();
    return select_entry(ctx, "cupat_partition", 1, type, n, x, flags, pred, y, count);
}

cupat_status cupat_unique(cupat_ctx *ctx, cupat_type type, size_t n, const void *x, void *y,
                          uint64_t *count)
{
    CUPAT_TRACE_CALL();
    return select_entry(ctx, "cupat_unique", 2, type, n, x, NULL, NULL, y, count);
}

/* ---------------------------------------------------------------- depth -- */

size_t cupat__scan_depth(const cupat_ctx *ctx, int rung, cupat_type t, size_t n)
{
    if (n <= 1) return 0;
    if (scan_rungs[rung].backend == CPU) {
        /* serial: n - 1 adds; openmp: a chunk serially, the chunk totals
         * chained in order, one add of the carry: fewer than n. */
        return n;
    }
    if (rung == SR_DECOUPLED || rung == SR_DECOUPLED_TMA) return cupat__scan_depth_cuda(ctx, rung, t, n);
    return cupat__scan_book_depth(ctx, rung, t, n);
}

size_t cupat__segscan_depth(const cupat_ctx *ctx, int rung, cupat_type t, size_t n)
{
    if (n <= 1) return 0;
    if (rung != SG_DECOUPLED) return n; /* CPU rungs: serial within segments */
    return cupat__segscan_depth_cuda(ctx, rung, t, n);
}
