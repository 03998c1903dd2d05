/* SPDX-License-Identifier: Apache-2.0 */
/* reduce_priv.h — what reduce.c (entry points, checks, registry) shares with
 * its backends: reduce.cu (the CUDA ladder), reduce_cdp.cu (the dynamic-
 * parallelism rungs, relocatable device code) and reduce_cpu.c (OpenMP).
 * C interface; the .cu files include it inside their extern "C" parts.
 * Tests include it too, for the summation depth of each rung. */
#ifndef CUPAT_REDUCE_PRIV_H
#define CUPAT_REDUCE_PRIV_H

#include "cupat.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The "reduce" ladder, in registry order (reduce.c's table follows it). */
typedef enum reduce_rung {
    /* PCCP 3.4 / lecture / PMPP 10: in place in global memory */
    RR_NEIGHBORED = 0,
    RR_NEIGHBORED_LESS,
    RR_INTERLEAVED,
    /* PCCP 3.5: unrolling */
    RR_UNROLL2,
    RR_UNROLL4,
    RR_UNROLL8,
    RR_UNROLL_WARPS8,
    RR_COMPLETE_UNROLL8,
    RR_TEMPLATE_UNROLL8,
    /* PCCP 5.3: global vs shared memory */
    RR_GMEM,
    RR_SMEM,
    RR_SMEM_DYN,
    RR_SMEM_UNROLL4,
    RR_SMEM_UNROLL4_DYN,
    /* PCCP 5.6 */
    RR_SHFL,
    /* PCCP 3.6: dynamic parallelism (reduce_cdp.cu) */
    RR_CDP_RECURSIVE,
    RR_CDP_NOSYNC,
    RR_CDP_RECURSIVE2,
    /* beyond the books */
    RR_VEC16,
    RR_PERSISTENT,
    RR_LAST_BLOCK,
    RR_DECOUPLED, /* the CUDA default */
    RR_EVEN_SHARE,
    RR_COMPENSATED,
    /* CPU backend */
    RR_CPU_SERIAL,
    RR_CPU_OPENMP, /* the CPU default */
    RR_CPU_COMPENSATED,
    RR_COUNT
} reduce_rung;

/* The "dot" ladder. */
typedef enum dot_rung {
    DR_SINGLE_PASS = 0, /* the CUDA default */
    DR_COMPENSATED,
    DR_CPU_SERIAL,      /* the lecture's "serial": p = rn(a*b), t = rn(t + p) */
    DR_CPU_SERIAL_FMA,  /* the lecture's "FMA": t = rn(a*b + t) */
    DR_CPU_PAIRWISE,    /* the lecture's "parallel": a balanced tree of products */
    DR_CPU_OPENMP,      /* the CPU default */
    DR_CPU_COMPENSATED, /* Dot2 on the CPU: "compensated" pinned on a CPU context */
    DR_COUNT
} dot_rung;

/* One request, already checked by reduce.c. */
typedef struct reduce_req {
    const char *fn;   /* public function name, for messages */
    int rung;         /* reduce_rung, or dot_rung when dot != 0 */
    int dot;          /* 1: dot product of x and y (op is SUM) */
    cupat_type type;
    cupat_op op;
    size_t n;
    const void *x, *y;
    void *out;        /* device (CUDA) or host (CPU) result */
    int out_host;     /* CUDA: out is host memory; copy back and wait for it */
} reduce_req;

/* Bytes of the result: sizeof(T) for SUM/MIN/MAX, sizeof(cupat_indexed) for
 * ARGMIN/ARGMAX. */
size_t cupat__reduce_result_bytes(cupat_type t, cupat_op op);
/* The operation's identity in result layout (n == 0). */
void cupat__reduce_identity(cupat_type t, cupat_op op, void *out);

cupat_status cupat__reduce_cuda(cupat_ctx *ctx, const reduce_req *r);
cupat_status cupat__reduce_cpu(cupat_ctx *ctx, const reduce_req *r);

/* Summation depth of a rung: the largest number of additions any one input
 * element passes through on its way to the result (a product counts as one
 * more for dot without FMA). The a-priori bound of a floating-point sum is
 * gamma(depth) * sum|x_i|, gamma(k) = k u / (1 - k u) (Higham, ch. 4);
 * compensated rungs: u |s| + 2 gamma(depth)^2 sum|x_i|. Returns 0 for n <= 1.
 * Depends on the device (SM count) for the CUDA rungs, hence ctx. */
size_t cupat__reduce_depth(const cupat_ctx *ctx, int dot, int rung, cupat_type t, size_t n);
size_t cupat__reduce_depth_cuda(const cupat_ctx *ctx, int dot, int rung, cupat_type t,
                                size_t n);
size_t cupat__reduce_depth_cpu(int dot, int rung, size_t n);

/* The dynamic-parallelism rungs refuse n above this (CUPAT_ERROR_NOT_SUPPORTED):
 * they make ~n/512 x 8 device launches (cdp_nosync runs them one after the
 * other: ~3 s at 2^24 on an H100). Every n up to it is supported. */
#define CUPAT_REDUCE_CDP_MAX_N ((size_t)1 << 24)

/* Tuning of the even_share rung (block-contiguous partition), for the bench's
 * sweep (CUPAT_BENCH_REDUCE_SWEEP=1). Process-wide; the compiled-in defaults
 * are the CUPAT_REDUCE_EVEN_* macros of reduce.cu. sub: 0 = one tile per
 * block (G = tiles, at most block x half the resident slots), else grid =
 * sub x SMs x resident blocks per SM (1..64); loads: 16-byte loads in flight per thread
 * per iteration (4 or 8); block: 256 or 512 threads; hint: 0 = ld.global.nc
 * (__ldg), 1 = ld.global.nc.L1::no_allocate.L2::256B. Only f32 sum, i32 sum
 * and f32 max honour loads/block/hint (the bench's cases); every case honours
 * sub. Returns 0, or -1 (nothing changed) for a value out of range. Not for
 * use while reductions run on other threads. */
typedef struct reduce_even_cfg {
    int sub, loads, block, hint;
} reduce_even_cfg;
int cupat__reduce_even_set(const reduce_even_cfg *cfg); /* NULL: the defaults */
reduce_even_cfg cupat__reduce_even_get(void);

/* reduce_cdp.cu: the three PCCP 3.6 rungs. `partials` is device scratch of
 * cupat__cdp_partials(n) accumulators of the op (cupat__cdp_acc_bytes each),
 * `work` of cupat__cdp_work_bytes bytes, `err` one int set to the CUDA error
 * when a device-side launch failed. Queues work on ctx->stream; reduce.cu
 * then reduces the partials. */
size_t cupat__cdp_partials(size_t n);
size_t cupat__cdp_work_bytes(int rung, cupat_type t, cupat_op op, size_t n);
size_t cupat__cdp_acc_bytes(cupat_type t, cupat_op op);
cupat_status cupat__cdp_launch(cupat_ctx *ctx, int rung, cupat_type t, cupat_op op,
                               size_t n, const void *x, void *work, void *partials,
                               int *err);

/* Streamed reduce and dot (reduce_stream.c), called by the entry point when
 * cupat__stream_wanted says so, after the checks that need no pointer. */
cupat_status cupat__stream_reduce(cupat_ctx *ctx, const char *fn, int dot, cupat_type type,
                                  cupat_op op, size_t n, const void *x, const void *y,
                                  void *result, int out_host);
/* reduce_stream.cu: with c = tmp->index (the chunk of the best partial),
 * *dst = {partials[c].value, c * chunk_items + partials[c].index}; dst may be
 * tmp. Queued on ctx's stream. */
cupat_status cupat__stream_arg_fix_cuda(cupat_ctx *ctx, const cupat_indexed *partials,
                                        const cupat_indexed *tmp, size_t chunk_items,
                                        cupat_indexed *dst);

#ifdef __cplusplus
}
#endif
#endif
