/* SPDX-License-Identifier: Apache-2.0 */
/* reduce.c — cupat_reduce / cupat_dot: argument checks, the "reduce" and
 * "dot" ladders (registry descriptors), and dispatch to the backends. */
#include "internal.h"
#include "reduce_priv.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* ------------------------------------------------------------- ladders -- */

#define CUDA CUPAT_BACKEND_CUDA
#define CPU CUPAT_BACKEND_CPU

static const cupat_variant_info reduce_rungs[RR_COUNT] = {
    [RR_NEIGHBORED] = {"reduce", "neighbored",
                       "neighbored pairs in place in global memory; tid % (2*stride) picks "
                       "the working threads, so every warp diverges",
                       "PCCP 3.4 reduceNeighbored; lecture Advanced Techniques; PMPP 10.3",
                       CUDA, 0},
    [RR_NEIGHBORED_LESS] = {"reduce", "neighbored_less",
                            "neighbored pairs with index 2*stride*tid: the working threads "
                            "are packed into the first warps",
                            "PCCP 3.4 reduceNeighboredLess", CUDA, 0},
    [RR_INTERLEAVED] = {"reduce", "interleaved",
                        "interleaved pairs: stride from blockDim/2 down, contiguous active "
                        "threads, coalesced accesses",
                        "PCCP 3.4 reduceInterleaved; PMPP 10.4; lecture", CUDA, 0},
    [RR_UNROLL2] = {"reduce", "unroll2",
                    "each block first adds 2 data blocks: half the blocks, 2 loads in flight",
                    "PCCP 3.5 reduceUnrolling2", CUDA, 0},
    [RR_UNROLL4] = {"reduce", "unroll4", "4 data blocks per thread block",
                    "PCCP 3.5 reduceUnrolling4", CUDA, 0},
    [RR_UNROLL8] = {"reduce", "unroll8", "8 data blocks per thread block",
                    "PCCP 3.5 reduceUnrolling8", CUDA, 0},
    [RR_UNROLL_WARPS8] = {"reduce", "unroll_warps8",
                          "unroll8 + last warp without __syncthreads (__syncwarp between "
                          "steps, not the volatile idiom)",
                          "PCCP 3.5 reduceUnrollWarps8", CUDA, 0},
    [RR_COMPLETE_UNROLL8] = {"reduce", "complete_unroll8",
                             "block loop fully unrolled into tests on blockDim",
                             "PCCP 3.5 reduceCompleteUnrollWarps8", CUDA, 0},
    [RR_TEMPLATE_UNROLL8] = {"reduce", "template_unroll8",
                             "block size a template parameter: dead levels removed at "
                             "compile time",
                             "PCCP 3.5 reduceCompleteUnroll<iBlockSize>", CUDA, 0},
    [RR_GMEM] = {"reduce", "gmem",
                 "5.3 baseline: one data block per block, unrolled tree in place in global "
                 "memory (block 128)",
                 "PCCP 5.3 reduceGmem", CUDA, 0},
    [RR_SMEM] = {"reduce", "smem", "the same tree in a static __shared__ array",
                 "PCCP 5.3 reduceSmem", CUDA, 0},
    [RR_SMEM_DYN] = {"reduce", "smem_dyn", "the same with extern (dynamic) shared memory",
                     "PCCP 5.3 reduceSmemDyn; lecture (dynamic shared memory)", CUDA, 0},
    [RR_SMEM_UNROLL4] = {"reduce", "smem_unroll4",
                         "shared memory + 4 data blocks per thread block",
                         "PCCP 5.3 reduceSmemUnroll", CUDA, 0},
    [RR_SMEM_UNROLL4_DYN] = {"reduce", "smem_unroll4_dyn",
                             "shared memory + unroll 4, dynamic shared memory",
                             "PCCP 5.3 reduceSmemUnrollDyn", CUDA, 0},
    [RR_SHFL] = {"reduce", "shfl",
                 "warp shuffle (__shfl_xor_sync) for the last 5 levels: registers only",
                 "PCCP 5.6 reduceSmemUnrollShfl", CUDA, 0},
    [RR_CDP_RECURSIVE] = {"reduce", "cdp_recursive",
                          "dynamic parallelism: each block recurses with a child grid of "
                          "half the threads (CDP2: no device sync)",
                          "PCCP 3.6 gpuRecursiveReduce", CUDA, 0},
    [RR_CDP_NOSYNC] = {"reduce", "cdp_nosync",
                       "recursion without block barriers: child as a tail launch (CDP2)",
                       "PCCP 3.6 gpuRecursiveReduceNosync", CUDA, 0},
    [RR_CDP_RECURSIVE2] = {"reduce", "cdp_recursive2",
                           "one child grid per level, launched by block 0 (tail launch)",
                           "PCCP 3.6 gpuRecursiveReduce2", CUDA, 0},
    [RR_VEC16] = {"reduce", "vec16",
                  "16-byte vector loads (LDG.128), 4 in flight per thread; one tile per "
                  "block, second pass",
                  "beyond the books (CUDA best practices: vectorized access)", CUDA, 0},
    [RR_PERSISTENT] = {"reduce", "persistent",
                       "grid-stride persistent blocks, grid = SMs x resident blocks; "
                       "fixed order; second pass",
                       "beyond the books (grid-stride loops)", CUDA, 0},
    [RR_LAST_BLOCK] = {"reduce", "last_block",
                       "single pass: __threadfence + atomic ticket, the last block to "
                       "finish reduces the partials",
                       "beyond the books (CUDA sample threadFenceReduction)", CUDA, 0},
    [RR_DECOUPLED] = {"reduce", "decoupled",
                      "single pass, atomic-free: block G-1 waits on per-block epoch flags "
                      "and reduces the partials in fixed order",
                      "beyond the books (decoupled look-back, Merrill & Garland 2016)", CUDA,
                      1},
    [RR_EVEN_SHARE] = {"reduce", "even_share",
                       "block-contiguous even share: equal contiguous ranges, one 16 KiB "
                       "tile a block by default, blocks retire in order; two-level "
                       "decoupled finish, one kernel",
                       "beyond the books (CUB GridEvenShare; Merrill & Garland 2016)", CUDA, 0},
    [RR_COMPENSATED] = {"reduce", "compensated",
                        "decoupled + TwoSum on every float addition (Neumaier-style "
                        "compensated sum)",
                        "beyond the books (Kahan 1965; Neumaier 1974; Ogita-Rump-Oishi 2005)",
                        CUDA, 0},
    [RR_CPU_SERIAL] = {"reduce", "serial", "one loop, left to right: the textbook reference",
                       "PMPP 10.1", CPU, 0},
    [RR_CPU_OPENMP] = {"reduce", "openmp",
                       "OpenMP over fixed chunks, 8 interleaved accumulators, chunks "
                       "combined as a tree: deterministic for any thread count",
                       "PMPP 10; OpenMP", CPU, 1},
    [RR_CPU_COMPENSATED] = {"reduce", "openmp_compensated",
                            "openmp with TwoSum on every float addition",
                            "Kahan 1965; Neumaier 1974", CPU, 0},
};
_Static_assert(sizeof reduce_rungs / sizeof reduce_rungs[0] == RR_COUNT, "reduce ladder");

static const cupat_variant_info dot_rungs[DR_COUNT] = {
    [DR_SINGLE_PASS] = {"dot", "single_pass",
                        "16-byte loads, products fused into the first tree level (FMA), "
                        "pairwise in registers, atomic-free single pass",
                        "lecture Advanced Techniques (dot product); PMPP 10", CUDA, 1},
    [DR_COMPENSATED] = {"dot", "compensated",
                        "Dot2: FMA product error + TwoSum, as if in twice the precision",
                        "Ogita, Rump, Oishi 2005", CUDA, 0},
    [DR_CPU_SERIAL] = {"dot", "serial", "p = rn(a*b); t = rn(t + p), left to right",
                       "lecture Advanced Techniques: serial", CPU, 0},
    [DR_CPU_SERIAL_FMA] = {"dot", "serial_fma", "t = rn(a*b + t), left to right",
                           "lecture Advanced Techniques: FMA", CPU, 0},
    [DR_CPU_PAIRWISE] = {"dot", "pairwise",
                         "rounded products added as a balanced tree",
                         "lecture Advanced Techniques: parallel", CPU, 0},
    [DR_CPU_OPENMP] = {"dot", "openmp",
                       "OpenMP over fixed chunks, 8 fused runs each, trees above",
                       "PMPP 10; OpenMP", CPU, 1},
    [DR_CPU_COMPENSATED] = {"dot", "openmp_compensated",
                            "openmp with Dot2: each product's error by FMA (TwoProduct), "
                            "TwoSum on every addition",
                            "Ogita, Rump, Oishi 2005", CPU, 0},
};
_Static_assert(sizeof dot_rungs / sizeof dot_rungs[0] == DR_COUNT, "dot ladder");

const cupat_pattern_desc cupat__pattern_reduce = {"reduce", reduce_rungs, RR_COUNT};
const cupat_pattern_desc cupat__pattern_dot = {"dot", dot_rungs, DR_COUNT};

static int is_arg(cupat_op op) { return op == CUPAT_OP_ARGMIN || op == CUPAT_OP_ARGMAX; }

size_t cupat__reduce_result_bytes(cupat_type t, cupat_op op)
{
    return is_arg(op) ? sizeof(cupat_indexed) : cupat_type_size(t);
}

void cupat__reduce_identity(cupat_type t, cupat_op op, void *out)
{
    int lo = op == CUPAT_OP_MAX || op == CUPAT_OP_ARGMAX; /* identity is the lowest value */
    cupat_indexed r;
    memset(&r, 0, sizeof r);
    r.index = CUPAT_NO_INDEX;
    if (op != CUPAT_OP_SUM) {
        switch (t) {
        case CUPAT_F32: r.value.f32 = lo ? -INFINITY : INFINITY; break;
        case CUPAT_F64: r.value.f64 = lo ? -(double)INFINITY : (double)INFINITY; break;
        case CUPAT_I32: r.value.i32 = lo ? INT32_MIN : INT32_MAX; break;
        case CUPAT_U32: r.value.u32 = lo ? 0 : UINT32_MAX; break;
        case CUPAT_I64: r.value.i64 = lo ? INT64_MIN : INT64_MAX; break;
        case CUPAT_U64: r.value.u64 = lo ? 0 : UINT64_MAX; break;
        }
    } /* SUM: +0 / 0, all bytes zero */
    memcpy(out, &r, cupat__reduce_result_bytes(t, op));
}

/* ---------------------------------------------------------- entry points -- */

static cupat_status check_input(cupat_ctx *ctx, const char *fn, const char *arg,
                                const void *p, size_t n, cupat_type t)
{
    size_t bytes;
    CUPAT_TRY(cupat__size_mul(ctx, fn, "n * element size", n, cupat_type_size(t), 1, &bytes));
    CUPAT_TRY(cupat__check_data(ctx, fn, arg, p, bytes));
    if (n > 0 && (uintptr_t)p % cupat_type_size(t) != 0)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: %s = %p is not aligned to its %s elements (%zu bytes)", fn, arg,
                           p, cupat_type_name(t), cupat_type_size(t));
    return CUPAT_SUCCESS;
}

static cupat_status reduce_entry(cupat_ctx *ctx, const char *fn, int dot, cupat_type type,
                                 cupat_op op, size_t n, const void *x, const void *y,
                                 void *result, int out_host)
{
    CUPAT_TRY(cupat__begin(ctx, fn));
    if (cupat_type_size(type) == 0)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: type = %d is not a cupat_type (CUPAT_F32 .. CUPAT_U64)", fn,
                           (int)type);
    if (dot && type != CUPAT_F32 && type != CUPAT_F64)
        return cupat__fail(ctx, CUPAT_ERROR_NOT_SUPPORTED,
                           "%s: type = %s: the dot product is defined for CUPAT_F32 and "
                           "CUPAT_F64",
                           fn, cupat_type_name(type));
    if ((int)op < (int)CUPAT_OP_SUM || (int)op > (int)CUPAT_OP_ARGMAX)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: op = %d is not a cupat_op (CUPAT_OP_SUM .. CUPAT_OP_ARGMAX)",
                           fn, (int)op);
    if (!result) return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "%s: result is NULL", fn);
    /* pinned host (or large managed) data: streamed in chunks (src/stream) */
    size_t xb;
    if (!__builtin_mul_overflow(n, cupat_type_size(type), &xb) &&
        cupat__stream_wanted(ctx, 2, (const void *const[]){x, y}, (const size_t[]){xb, dot ? xb : 0}))
        return cupat__stream_reduce(ctx, fn, dot, type, op, n, x, y, result, out_host);
    CUPAT_TRY(check_input(ctx, fn, "x", x, n, type));
    if (dot) CUPAT_TRY(check_input(ctx, fn, "y", y, n, type));

    size_t rbytes = cupat__reduce_result_bytes(type, op);
    size_t ralign = is_arg(op) ? 8 : cupat_type_size(type);
    if (ctx->backend == CUPAT_BACKEND_CUDA && out_host) {
        if (cupat__pointer_kind(result) == CUPAT_MEMORY_DEVICE)
            return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                               "%s: result = %p is device memory; this function writes a host "
                               "value (%s writes device memory)",
                               fn, result, dot ? "cupat_dot" : "cupat_reduce");
    } else {
        CUPAT_TRY(cupat__check_data(ctx, fn, "result", result, rbytes));
        if ((uintptr_t)result % ralign != 0)
            return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                               "%s: result = %p is not aligned to %zu bytes", fn, result,
                               ralign);
    }

    /* The result is written while (on the GPU: before every block has read)
     * x and y are read: it must lie outside them. */
    size_t xbytes = n * cupat_type_size(type); /* checked by check_input */
    cupat__extent er = cupat__extent1(result, rbytes);
    CUPAT_TRY(cupat__check_disjoint(ctx, fn, "result", er, "x", cupat__extent1(x, xbytes), NULL));
    if (dot)
        CUPAT_TRY(cupat__check_disjoint(ctx, fn, "result", er, "y", cupat__extent1(y, xbytes),
                                        NULL));

    const cupat_variant_info *v;
    CUPAT_TRY(cupat__select(ctx, dot ? "dot" : "reduce", &v));
    reduce_req r;
    memset(&r, 0, sizeof r);
    r.fn = fn;
    r.rung = cupat__rung_index(v);
    r.dot = dot;
    r.type = type;
    r.op = op;
    r.n = n;
    r.x = x;
    r.y = y;
    r.out = result;
    r.out_host = out_host;
    if (ctx->backend == CUPAT_BACKEND_CUDA) return cupat__reduce_cuda(ctx, &r);
    return cupat__reduce_cpu(ctx, &r);
}

cupat_status cupat_reduce(cupat_ctx *ctx, cupat_type type, cupat_op op, size_t n,
                          const void *x, void *result)
{
    CUPAT_TRACE_CALL();
    return reduce_entry(ctx, "cupat_reduce", 0, type, op, n, x, NULL, result, 0);
}

cupat_status cupat_reduce_host(cupat_ctx *ctx, cupat_type type, cupat_op op, size_t n,
                               const void *x, void *result)
{
    CUPAT_TRACE_CALL();
    return reduce_entry(ctx, "cupat_reduce_host", 0, type, op, n, x, NULL, result, 1);
}

cupat_status cupat_dot(cupat_ctx *ctx, cupat_type type, size_t n, const void *x,
                       const void *y, void *result)
{
    CUPAT_TRACE_CALL();
    return reduce_entry(ctx, "cupat_dot", 1, type, CUPAT_OP_SUM, n, x, y, result, 0);
}

cupat_status cupat_dot_host(cupat_ctx *ctx, cupat_type type, size_t n, const void *x,
                            const void *y, void *result)
{
    CUPAT_TRACE_CALL();
    return reduce_entry(ctx, "cupat_dot_host", 1, type, CUPAT_OP_SUM, n, x, y, result, 1);
}

size_t cupat__reduce_depth(const cupat_ctx *ctx, int dot, int rung, cupat_type t, size_t n)
{
    const cupat_variant_info *v = dot ? &dot_rungs[rung] : &reduce_rungs[rung];
    if (v->backend == CUPAT_BACKEND_CPU) return cupat__reduce_depth_cpu(dot, rung, n);
    return cupat__reduce_depth_cuda(ctx, dot, rung, t, n);
}
