/* SPDX-License-Identifier: Apache-2.0 */
/* gemm_internal.h — what gemm.c (entry points, dispatch), gemm.cu (the teaching
 * ladder), gemm_async.cuh + gemm_async*.cu (the multistage
 * kernels), gemm_cpu.c, gemm_tc.c + gemm_tc_cpu.c (cupat_gemm) and the bench
 * share.
 *
 * Every problem reaching a backend is row-major: gemm.c turns a column-major
 * call into the row-major problem C^T = op(B)^T op(A)^T (same memory, roles of A
 * and B swapped), so kernels only know one layout. Element (i, p) of op(A) is
 * A[i*lda + p] when ta == 0 and A[p*lda + i] when ta == 1; likewise for B. */
#ifndef CUPAT_GEMM_INTERNAL_H
#define CUPAT_GEMM_INTERNAL_H

#include "internal.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cupat_gemm_args {
    int m, n, k;  /* C is m x n, the inner dimension k; each <= INT_MAX        */
    int ta, tb;   /* 1: op(A) = A^T (A stored k x m) / op(B) = B^T (n x k)    */
    float alpha, beta;
    const float *A;
    size_t lda;
    const float *B;
    size_t ldb;
    float *C;
    size_t ldc;
} cupat_gemm_args;

/* y = alpha op(A) x + beta y; A is m x n row-major (before op), y has
 * rows(op(A)) elements and x cols(op(A)). */
typedef struct cupat_gemv_args {
    size_t m, n;
    int ta;
    float alpha, beta;
    const float *A;
    size_t lda;
    const float *x;
    float *y;
} cupat_gemv_args;

/* Rungs of the "gemm" ladder, in registry order (gemm.c owns the table). */
enum {
    GEMM_NAIVE = 0,
    GEMM_TILED16,
    GEMM_TILED32,
    GEMM_COARSE,
    GEMM_UNROLL,
    GEMM_PREFETCH,
    GEMM_REGBLOCK,
    GEMM_VEC4,
    GEMM_WARPTILE,
    GEMM_ASYNC,
    GEMM_AUTO,
    GEMM_CPU,
    GEMM_NRUNGS
};
enum { GEMV_NAIVE = 0, GEMV_WARP, GEMV_CPU, GEMV_NRUNGS };

/* One tile configuration of the multistage kernel (gemm_async.cu): CTA tile,
 * pipeline depth, and outputs per thread (8 x 8: warp tiles of 64 x 32;
 * 8 x 16 and 16 x 8: 64 x 64). */
typedef struct cupat_gemm_config {
    const char *name;  /* "128x128x16/4/2 8x8": BM x BN x BK / stages / min CTAs per SM,
                        * then outputs a thread TM x TN */
    int bm, bn, bk, stages, threads;
    int tm, tn;        /* outputs a thread */
    int min_ctas;      /* __launch_bounds__ minimum CTAs per SM (register cap) */
    double eff_vec;    /* expected fraction of the model's FP32 peak on full waves (see  */
    double eff_scalar; /* gemm.c): 16-byte-copy build / 4-byte-copy build            */
} cupat_gemm_config;

extern const cupat_gemm_config cupat__gemm_configs[];

/* 1 when the multistage kernel can use its 16-byte copy build: the rows of
 * each operand that is contiguous along i (A^T stored) or j (B stored) are
 * 16-byte aligned. (The k-contiguous operands always copy 4 bytes.) */
/* Whether A (op T: stored contiguous along i) and B (op N: contiguous along
 * j) take 16-byte copies; operands contiguous along k always can. */
static inline int cupat__gemm_vec_a(const cupat_gemm_args *a)
{
    return !a->ta || (((uintptr_t)a->A & 15) == 0 && (a->lda & 3) == 0);
}
static inline int cupat__gemm_vec_b(const cupat_gemm_args *a)
{
    return a->tb || (((uintptr_t)a->B & 15) == 0 && (a->ldb & 3) == 0);
}
static inline int cupat__gemm_vec(const cupat_gemm_args *a)
{
    return cupat__gemm_vec_a(a) && cupat__gemm_vec_b(a);
}
extern const int cupat__gemm_nconfigs;
#define GEMM_CONFIG_ASYNC 0 /* the config the "async" rung runs */

/* Resource report of one kernel: what cudaFuncGetAttributes and the occupancy
 * API say about it (PMPP 5.6). */
typedef struct cupat_gemm_resources {
    const char *kernel;   /* short description of the instantiation */
    int regs;             /* registers per thread */
    size_t smem_static;   /* bytes of static shared memory per block */
    size_t smem_dynamic;  /* bytes of dynamic shared memory per block */
    size_t local_bytes;   /* local memory per thread (spills, stack) */
    int threads;          /* threads per block at launch */
    int blocks_per_sm;    /* resident blocks per SM (occupancy API) */
    double occupancy;     /* resident warps / max warps per SM */
} cupat_gemm_resources;

/* Kernel launchers (CUDA backend). All enqueue on ctx->stream; `a` is the
 * normalized row-major problem with m, n, k > 0 and alpha != 0. */
cupat_status cupat__gemm_cuda_rung(cupat_ctx *ctx, int rung, const cupat_gemm_args *a);
/* Copies made before the multistage kernel (a bit mask):
 * GEMM_PACK_B (with op(B) = T): B is transposed into scratch and the kernel
 * runs op N on that copy; GEMM_PAD_A (op(A) = T) / GEMM_PAD_B (op(B) = N):
 * the operand, stored contiguous along i / j, is copied into rows padded to
 * 16 bytes, so the 16-byte copy build can run where its base or leading
 * dimension is not 16-byte aligned. Each is ignored where it does not apply. */
enum { GEMM_PACK_B = 1, GEMM_PAD_A = 2, GEMM_PAD_B = 4 };
/* The multistage kernel with configuration `cfg`, split over `splitk` K slices
 * (1: none; > 1 uses scratch for partial sums and a reduction kernel), after
 * the copies in `copies` (GEMM_PACK_B | GEMM_PAD_A | GEMM_PAD_B). */
cupat_status cupat__gemm_cuda_async(cupat_ctx *ctx, int cfg, int splitk,
                                    const cupat_gemm_args *a, int copies);
/* The auto rung: configuration and split-K by shape (cupat__gemm_pick), after
 * the copies that pay (gemm_async.cu). */
cupat_status cupat__gemm_cuda_auto(cupat_ctx *ctx, const cupat_gemm_args *a);
/* The auto rung's whole plan: configuration, split-K and copies. */
void cupat__gemm_auto_plan(const cupat_ctx *ctx, const cupat_gemm_args *a, int *cfg, int *splitk,
                           int *copies);
/* C = beta C over m x n (k == 0 or alpha == 0); beta == 0 writes zeros. */
cupat_status cupat__gemm_cuda_scale(cupat_ctx *ctx, const cupat_gemm_args *a);
/* Resources of rung `rung` (for GEMM_AUTO: of config `cfg`) as launched on
 * ctx's device, with ta = tb = 0 and vector loads. */
cupat_status cupat__gemm_cuda_resources(cupat_ctx *ctx, int rung, int cfg,
                                        cupat_gemm_resources *out);
cupat_status cupat__gemm_cuda_async_resources(cupat_ctx *ctx, int cfg,
                                              cupat_gemm_resources *out);
/* Fill `out` for kernel `fn` launched with `threads` and `dyn_smem` bytes. */
cupat_status cupat__gemm_fill_resources(cupat_ctx *ctx, const void *fn, int threads,
                                        size_t dyn_smem, const char *name,
                                        cupat_gemm_resources *out);

/* The argument checks of every GEMM entry point (gemm.c): flags,
 * ops, m, n, k <= INT_MAX, each matrix's leading dimension and memory (elements
 * of a_elem / b_elem / c_elem bytes; A and B only when reads_ab), and C
 * disjoint from A and B. `fn` names the public call in messages. */
cupat_status cupat__gemm_check(cupat_ctx *ctx, const char *fn, unsigned flags,
                               cupat_trans op_a, cupat_trans op_b, size_t m, size_t n,
                               size_t k, int reads_ab, const void *A, size_t lda,
                               size_t a_elem, const void *B, size_t ldb, size_t b_elem,
                               const void *C, size_t ldc, size_t c_elem);

/* ------------------------------------------------ gemm_tc: cupat_gemm -- */

/* The normalized row-major problem of cupat_gemm (gemm_tc.c turns a
 * column-major call around as gemm.c does). The scalars are already in the
 * accumulate type: f32 for float inputs, i32 for I8. */
typedef struct cupat_gemm_tc_args {
    int m, n, k;
    int ta, tb;
    cupat_gemm_type in, out;
    float alpha, beta;         /* float inputs */
    int32_t ialpha, ibeta;     /* I8 -> I32     */
    int reads_ab;              /* 0: C = beta C (alpha == 0 or k == 0) */
    const void *A;
    size_t lda;
    const void *B;
    size_t ldb;
    void *C;
    size_t ldc;
    int ct; /* wgmma only: the kernel computes C^T (m x n here is C's n x m) and
               stores element (i, j) at C[j ldc + i] (skinny shapes, see
               cupat__gemm_tc_wgmma) */
} cupat_gemm_tc_args;

/* Test hook (gemm_tc.c): the wgmma rung's persistent tile width, 0 = its
 * own choice (128 columns where 128 x 256 tiles would leave half the SMs
 * idle), 128 or 256 forced, so tests reach both forms at small sizes. */
extern int cupat__gemm_tc_tile_n;
/* Test hook: the op T gemv keeps 8 rows' loads in flight where a block walks
 * at least this many rows (512; tests lower it to reach that form on small
 * matrices). */
extern int cupat__gemv_u8_rows;
/* Test hook: nonzero sends every op T gemv of the warp rung to its one-kernel
 * form (gemv_cols_tall), which it otherwise takes where n / 32 is about the
 * SM count. */
extern int cupat__gemv_tall;
/* Test hook: op N rows at least this long (16384) take a block a row where
 * the rows alone give under 32 warps an SM (gemv_rows_block). */
extern size_t cupat__gemv_wide_n;

/* Rungs of the "gemm_tc" ladder, in registry order (gemm_tc.c owns the table).
 * Only rungs that exist are listed. */
enum { GEMM_TC_WMMA = 0, GEMM_TC_WMMA_TILED, GEMM_TC_MMA, GEMM_TC_WGMMA, GEMM_TC_CPU, GEMM_TC_NRUNGS };

/* CPU backend of cupat_gemm (gemm_tc_cpu.c): OpenMP, f32 / i32 accumulation. */
cupat_status cupat__gemm_tc_cpu(cupat_ctx *ctx, const cupat_gemm_tc_args *a);
/* The WMMA rung (gemm_tc_wmma.cu): one warp a 16x16 tile, operands staged in
 * shared memory. m, n >= 1. */
cupat_status cupat__gemm_tc_wmma(cupat_ctx *ctx, const cupat_gemm_tc_args *a);
/* The CUDA rungs' common refusal below compute capability 8.0 (gemm_tc_wmma.cu). */
cupat_status cupat__gemm_tc_needs_sm80(cupat_ctx *ctx, const char *rung);
/* WMMA with block tiles (same file): 8 warps a 128 x 128 tile of C. */
cupat_status cupat__gemm_tc_wmma_tiled(cupat_ctx *ctx, const cupat_gemm_tc_args *a);
/* PTX mma.sync + ldmatrix + cp.async (gemm_tc_mma.cu) for f16 / bf16, op N,
 * 16-byte aligned A and B, lda and ldb multiples of 8 (what _takes says);
 * anything else runs wmma_tiled. */
int cupat__gemm_tc_mma_takes(const cupat_gemm_tc_args *a);
cupat_status cupat__gemm_tc_mma(cupat_ctx *ctx, const cupat_gemm_tc_args *a);
/* Hopper wgmma + TMA (gemm_tc_wgmma_sm90a.cu, built for sm_90a only) for
 * f16 / bf16 (any op pair; an operand the copy engine cannot read in place
 * is copied with padded rows first) and tf32 / i8 (through K-major copies),
 * on a compute capability 9.0 device; anything else runs mma_sync. */
int cupat__gemm_tc_wgmma_takes(const cupat_gemm_tc_args *a);
cupat_status cupat__gemm_tc_wgmma(cupat_ctx *ctx, const cupat_gemm_tc_args *a);
/* The measured dense f16 (bf16 != 0: bf16) tensor-core rate, GFLOP/s: wgmma
 * back to back from shared memory on every SM (same file); NOT_SUPPORTED off
 * compute capability 9.0. */
cupat_status cupat__tc_ceiling(cupat_ctx *ctx, int bf16, double *gflops);

/* The configuration and split the auto rung picks for the problem (gemm.c). */
void cupat__gemm_pick(const cupat_ctx *ctx, const cupat_gemm_args *a, int *cfg, int *splitk);
/* The same with the 16-byte build's availability given (the auto rung's
 * packed B changes it). */
void cupat__gemm_pick_vec(const cupat_ctx *ctx, const cupat_gemm_args *a, int vec, int *cfg,
                          int *splitk);

/* CPU backend (gemm_cpu.c): OpenMP, cache-blocked, f32 accumulation. */
cupat_status cupat__gemm_cpu(cupat_ctx *ctx, const cupat_gemm_args *a);
cupat_status cupat__gemv_cpu(cupat_ctx *ctx, const cupat_gemv_args *a);

cupat_status cupat__gemv_cuda(cupat_ctx *ctx, int rung, const cupat_gemv_args *a);

#ifdef __cplusplus
}
#endif
#endif
