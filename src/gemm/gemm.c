/* SPDX-License-Identifier: Apache-2.0 */
/* gemm.c — cupat_gemm_f32 and cupat_gemv_f32: argument checks (one
 * cupat__gemm_check for every GEMM entry point), the ladders, the
 * column-major to row-major turn, dispatch, and the shape-based choice of
 * tile configuration that the default ("auto") rung runs. */
#include "gemm/gemm_internal.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

static const cupat_variant_info gemm_variants[] = {
    {"gemm", "naive", "one thread per output; dot product straight from global memory",
     "PMPP 3.4", CUPAT_BACKEND_CUDA, 0},
    {"gemm", "tiled16",
     "shared-memory tiles, TILE_WIDTH 16, boundary checks, corner turning for transposes",
     "PMPP 5.3-5.5, 6.1", CUPAT_BACKEND_CUDA, 0},
    {"gemm", "tiled32", "the same with TILE_WIDTH 32: half the global loads per FMA",
     "PMPP 5.4, 5.6", CUPAT_BACKEND_CUDA, 0},
    {"gemm", "coarse", "thread coarsening: 4 outputs per thread share each A element",
     "PMPP 6.3", CUPAT_BACKEND_CUDA, 0},
    {"gemm", "unroll", "inner product fully unrolled: no loop or index instructions per FMA",
     "lecture: instruction mix", CUPAT_BACKEND_CUDA, 0},
    {"gemm", "prefetch", "next tile loaded into registers while the current one is used",
     "lecture: prefetching", CUPAT_BACKEND_CUDA, 0},
    {"gemm", "regblock", "2D register blocking: 128x128 tile, 8x8 outputs per thread",
     "PMPP 5.6, 6.3; lecture: granularity", CUPAT_BACKEND_CUDA, 0},
    {"gemm", "vec4", "16-byte loads, A tile stored K-major (transposed), 16-byte LDS",
     "CUDA guide 5.3.2; lecture: memory", CUPAT_BACKEND_CUDA, 0},
    {"gemm", "warptile",
     "warp tiles (conflict-free broadcast LDS.128), double-buffered shared and fragments",
     "lecture: prefetching, banks", CUPAT_BACKEND_CUDA, 0},
    {"gemm", "async", "4-stage cp.async pipeline global->shared, swizzled tile order",
     "CUDA guide 10.27-10.28", CUPAT_BACKEND_CUDA, 0},
    {"gemm", "auto", "tile configuration and split-K chosen by shape (tuned table)",
     "PMPP 5.6; CUDA guide 10.28", CUPAT_BACKEND_CUDA, 1},
    {"gemm", "cpu", "OpenMP over output tiles, packed cache-sized panels, f32 accumulation",
     "PMPP 5.2", CUPAT_BACKEND_CPU, 1},
};
_Static_assert(sizeof gemm_variants / sizeof gemm_variants[0] == GEMM_NRUNGS,
               "gemm rung table and enum disagree");

const cupat_pattern_desc cupat__pattern_gemm = {
    "gemm", gemm_variants, sizeof gemm_variants / sizeof gemm_variants[0]};

static const cupat_variant_info gemv_variants[] = {
    {"gemv", "naive", "one thread per output element", "PMPP 3 (exercise)",
     CUPAT_BACKEND_CUDA, 0},
    {"gemv", "warp",
     "op N: one warp per row, shuffle reduction; op T: coalesced column sums, split rows",
     "PMPP 3 exercise, 10.4; PCCP 5.6", CUPAT_BACKEND_CUDA, 1},
    {"gemv", "cpu", "OpenMP over rows (op N) or row blocks (op T)", "PMPP 3 (exercise)",
     CUPAT_BACKEND_CPU, 1},
};
_Static_assert(sizeof gemv_variants / sizeof gemv_variants[0] == GEMV_NRUNGS,
               "gemv rung table and enum disagree");

const cupat_pattern_desc cupat__pattern_gemv = {
    "gemv", gemv_variants, sizeof gemv_variants / sizeof gemv_variants[0]};

/* ------------------------------------------------------------ checks -- */

static cupat_status check_op(cupat_ctx *ctx, const char *fn, const char *arg, cupat_trans op)
{
    if (op != CUPAT_TRANS_N && op != CUPAT_TRANS_T)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: %s = %d is neither CUPAT_TRANS_N (0) nor CUPAT_TRANS_T (1)", fn, arg,
                           (int)op);
    return CUPAT_SUCCESS;
}

static cupat_status check_flags(cupat_ctx *ctx, const char *fn, unsigned flags)
{
    if (flags & ~CUPAT_COL_MAJOR)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: flags = 0x%x has bits other than CUPAT_COL_MAJOR (0x1)", fn,
                           flags);
    return CUPAT_SUCCESS;
}

static cupat_status check_dim(cupat_ctx *ctx, const char *fn, const char *arg, size_t v)
{
    if (v > (size_t)INT_MAX)
        return cupat__fail(ctx, CUPAT_ERROR_SIZE, "%s: %s = %zu exceeds INT_MAX (%d)", fn, arg,
                           v, INT_MAX);
    return CUPAT_SUCCESS;
}

/* A matrix argument of `elem`-byte elements stored `rows` x `cols` (before
 * op) in the caller's layout: check its leading dimension and, when it is
 * used, its memory; *ext gets the bytes it spans (none when unused). */
static cupat_status check_matrix(cupat_ctx *ctx, const char *fn, const char *name,
                                 const char *ldname, const void *p, size_t ld, size_t rows,
                                 size_t cols, size_t elem, int colmajor, int used,
                                 cupat__extent *ext)
{
    size_t inner = colmajor ? rows : cols; /* contiguous run */
    size_t outer = colmajor ? cols : rows;
    size_t need = inner > 1 ? inner : 1;
    *ext = cupat__extent1(p, 0);
    if (ld < need)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: %s = %zu is less than %zu (the %s of %s, stored %zu x %zu %s)",
                           fn, ldname, ld, need, colmajor ? "rows" : "columns", name, rows,
                           cols, colmajor ? "column-major" : "row-major");
    if (!used || inner == 0 || outer == 0) return CUPAT_SUCCESS;
    size_t span, bytes;
    CUPAT_TRY(cupat__size_mul(ctx, fn, ldname, outer - 1, ld, 1, &span));
    if (span > SIZE_MAX - inner)
        return cupat__fail(ctx, CUPAT_ERROR_SIZE, "%s: extent of %s overflows size_t", fn, name);
    CUPAT_TRY(cupat__size_mul(ctx, fn, name, span + inner, elem, 1, &bytes));
    CUPAT_TRY(cupat__check_data(ctx, fn, name, p, bytes));
    *ext = cupat__extent2(p, outer, inner * elem, ld * elem);
    return CUPAT_SUCCESS;
}

cupat_status cupat__gemm_check(cupat_ctx *ctx, const char *fn, unsigned flags,
                               cupat_trans op_a, cupat_trans op_b, size_t m, size_t n,
                               size_t k, int reads_ab, const void *A, size_t lda,
                               size_t a_elem, const void *B, size_t ldb, size_t b_elem,
                               const void *C, size_t ldc, size_t c_elem)
{
    CUPAT_TRY(check_flags(ctx, fn, flags));
    CUPAT_TRY(check_op(ctx, fn, "op_a", op_a));
    CUPAT_TRY(check_op(ctx, fn, "op_b", op_b));
    CUPAT_TRY(check_dim(ctx, fn, "m", m));
    CUPAT_TRY(check_dim(ctx, fn, "n", n));
    CUPAT_TRY(check_dim(ctx, fn, "k", k));
    int colmajor = (flags & CUPAT_COL_MAJOR) != 0;
    int ta = op_a == CUPAT_TRANS_T, tb = op_b == CUPAT_TRANS_T;
    reads_ab = reads_ab && k > 0 && m > 0 && n > 0;
    /* stored shapes: op(A) is m x k, so A is m x k (N) or k x m (T) */
    cupat__extent ea, eb, ec;
    CUPAT_TRY(check_matrix(ctx, fn, "A", "lda", A, lda, ta ? k : m, ta ? m : k, a_elem,
                           colmajor, reads_ab, &ea));
    CUPAT_TRY(check_matrix(ctx, fn, "B", "ldb", B, ldb, tb ? n : k, tb ? k : n, b_elem,
                           colmajor, reads_ab, &eb));
    CUPAT_TRY(check_matrix(ctx, fn, "C", "ldc", C, ldc, m, n, c_elem, colmajor,
                           m > 0 && n > 0, &ec));
    /* Every rung reads A and B while C is written: no in-place product. */
    CUPAT_TRY(cupat__check_disjoint(ctx, fn, "C", ec, "A", ea, NULL));
    CUPAT_TRY(cupat__check_disjoint(ctx, fn, "C", ec, "B", eb, NULL));
    return CUPAT_SUCCESS;
}

/* ---------------------------------------------------- auto: the table -- */

/* The auto rung models each configuration's time on the device and runs the
 * fastest. A CTA of config c holds bm x bn outputs and walks k; slots = SMs x
 * CTAs per SM run at once, so a grid of t tiles takes ceil(t / slots) waves of
 * one CTA's time (wave quantization, PMPP 5.6). One CTA's time is its FMAs
 * over its share of the SM's FP32 rate at efficiency eff (the fraction of the
 * model's peak that configuration reaches, measured with `cupat bench gemm
 * --sweep-blocks` on the H100 and fitted by scripts/gemm-fit-eff:
 * gemm_async.cuh, docs/gemm.md); a configuration has one efficiency for its
 * 16-byte-copy build and one for its 4-byte build, which unaligned operands
 * run. Split-K divides
 * k among s CTAs per tile and pays for writing and summing s partial products. */
#define SM_FLOPS_PER_NS 512.0 /* 128 FP32 FMA per clock at ~2 GHz: model scale only */
#define HBM_BYTES_PER_NS 2500.0
#define LAUNCH_NS 2500.0

static double model_ns(const cupat_gemm_config *c, double eff, int ctas_per_sm, int sms,
                       double m, double n, double k, int s)
{
    double tiles = ceil(m / c->bm) * ceil(n / c->bn);
    double slots = (double)sms * ctas_per_sm;
    double kslice = ceil(ceil(k / s) / c->bk) * c->bk;
    double waves = ceil(tiles * s / slots);
    /* a CTA gets 1/ctas_per_sm of its SM */
    double cta_ns = 2.0 * c->bm * c->bn * kslice * ctas_per_sm / (SM_FLOPS_PER_NS * eff);
    double t = waves * cta_ns;
    if (s > 1) t += (2.0 * s + 2.0) * m * n * 4.0 / HBM_BYTES_PER_NS + LAUNCH_NS;
    return t;
}

/* B^T unpacked in the 16-byte build, as a factor on the time. A thread
 * copies BN x BK / threads elements of B a k tile: four at a time where B is
 * stored contiguous along j (op N, what eff_vec was fitted on), one at a time
 * where it is stored contiguous along k (op T). Each copy instruction more
 * costs about the issue of BT_COPY_FMAS of the thread's FMAs: fitted on the
 * 1000^3 runs of 2026-11-25 (H100), where 64x256x16 (12 copies more, of 1024
 * FMAs a k tile) ran N,T 1.18x its N,N and 64x256's rank fell from first to
 * ninth among the configurations (`bench gemm --sweep-blocks` with
 * CUPAT_BENCH_GEMM_SWEEP_OPS). A's op is left out: A^T's 16-byte copies
 * against A's 4-byte ones measured within 2% (64x256: T,N 0.98x its N,N).
 * Copies made before the kernel (B^T packed) are in the ops it sees. */
#define BT_COPY_FMAS 12.0
static double bt_factor(const cupat_gemm_config *c, int tb)
{
    /* cb elements of B a thread a k tile: op N copies them in cb / 4
     * instructions, op T in cb, so 0.75 cb more */
    const double fmas = (double)c->tm * c->tn * c->bk, cb = (double)c->bn * c->bk / c->threads;
    return tb ? 1.0 + BT_COPY_FMAS * 0.75 * cb / fmas : 1.0;
}

void cupat__gemm_pick(const cupat_ctx *ctx, const cupat_gemm_args *a, int *cfg, int *splitk)
{
    cupat__gemm_pick_vec(ctx, a, cupat__gemm_vec(a), cfg, splitk);
}

void cupat__gemm_pick_vec(const cupat_ctx *ctx, const cupat_gemm_args *a, int vec, int *cfg,
                          int *splitk)
{
    int sms = ctx->sm_count > 0 ? ctx->sm_count : 132;
    double best = INFINITY;
    *cfg = GEMM_CONFIG_ASYNC;
    *splitk = 1;
    for (int c = 0; c < cupat__gemm_nconfigs; c++) {
        const cupat_gemm_config *g = &cupat__gemm_configs[c];
        for (int s = 1; s <= 16; s *= 2) {
            /* slices of < 128 k are all prologue and epilogue */
            if (s > 1 && (size_t)a->k < (size_t)s * 128) break;
            double t = model_ns(g, vec ? g->eff_vec : g->eff_scalar, g->min_ctas, sms, a->m,
                                a->n, a->k, s) *
                       (vec ? bt_factor(g, a->tb) : 1.0);
            if (t < best * 0.999) { /* ties keep the earlier (larger, tested) entry */
                best = t;
                *cfg = c;
                *splitk = s;
            }
        }
    }
}

/* ------------------------------------------------------------ entries -- */

cupat_status cupat_gemm_f32(cupat_ctx *ctx, unsigned flags, cupat_trans op_a, cupat_trans op_b,
                            size_t m, size_t n, size_t k, float alpha, const float *A,
                            size_t lda, const float *B, size_t ldb, float beta, float *C,
                            size_t ldc)
{
    CUPAT_TRACE_CALL();
    static const char fn[] = "cupat_gemm_f32";
    CUPAT_TRY(cupat__begin(ctx, fn));
    int reads_ab = alpha != 0.0f && k > 0 && m > 0 && n > 0;
    CUPAT_TRY(cupat__gemm_check(ctx, fn, flags, op_a, op_b, m, n, k, reads_ab, A, lda,
                                sizeof(float), B, ldb, sizeof(float), C, ldc, sizeof(float)));
    int colmajor = (flags & CUPAT_COL_MAJOR) != 0;
    int ta = op_a == CUPAT_TRANS_T, tb = op_b == CUPAT_TRANS_T;
    if (m == 0 || n == 0) return CUPAT_SUCCESS;

    const cupat_variant_info *v;
    CUPAT_TRY(cupat__select(ctx, "gemm", &v));
    int rung = cupat__rung_index(v);

    /* Column-major C is row-major C^T = op(B)^T op(A)^T over the same memory:
     * swap the operands and the roles of m and n; each op stays as it was. */
    cupat_gemm_args a;
    if (!colmajor) {
        a = (cupat_gemm_args){(int)m, (int)n, (int)k, ta, tb, alpha, beta,
                              A, lda, B, ldb, C, ldc};
    } else {
        a = (cupat_gemm_args){(int)n, (int)m, (int)k, tb, ta, alpha, beta,
                              B, ldb, A, lda, C, ldc};
    }

    if (ctx->backend != CUPAT_BACKEND_CUDA) return cupat__gemm_cpu(ctx, &a);
    if (!reads_ab) return cupat__gemm_cuda_scale(ctx, &a);
    if (rung == GEMM_AUTO) return cupat__gemm_cuda_auto(ctx, &a);
    if (rung == GEMM_ASYNC) return cupat__gemm_cuda_async(ctx, GEMM_CONFIG_ASYNC, 1, &a, 0);
    return cupat__gemm_cuda_rung(ctx, rung, &a);
}

cupat_status cupat_gemv_f32(cupat_ctx *ctx, unsigned flags, cupat_trans op_a, size_t m,
                            size_t n, float alpha, const float *A, size_t lda,
                            const float *x, float beta, float *y)
{
    CUPAT_TRACE_CALL();
    static const char fn[] = "cupat_gemv_f32";
    CUPAT_TRY(cupat__begin(ctx, fn));
    CUPAT_TRY(check_flags(ctx, fn, flags));
    CUPAT_TRY(check_op(ctx, fn, "op_a", op_a));
    int colmajor = (flags & CUPAT_COL_MAJOR) != 0;
    int ta = op_a == CUPAT_TRANS_T;
    size_t ylen = ta ? n : m, xlen = ta ? m : n;
    int reads_ax = alpha != 0.0f && xlen > 0 && ylen > 0;
    /* the dimensions before lda: A's extent grows with both, and a size that
     * overflows is m's or n's fault, not the leading dimension's */
    size_t xb, yb, ab;
    CUPAT_TRY(cupat__size_mul(ctx, fn, ta ? "x (m floats)" : "x (n floats)", xlen,
                              sizeof(float), 1, &xb));
    CUPAT_TRY(cupat__size_mul(ctx, fn, ta ? "y (n floats)" : "y (m floats)", ylen,
                              sizeof(float), 1, &yb));
    if (reads_ax)
        CUPAT_TRY(cupat__size_mul(ctx, fn, "A (m x n floats)", m, n, sizeof(float), &ab));
    cupat__extent ea;
    CUPAT_TRY(check_matrix(ctx, fn, "A", "lda", A, lda, m, n, sizeof(float), colmajor,
                           reads_ax, &ea));
    if (reads_ax) CUPAT_TRY(cupat__check_data(ctx, fn, "x", x, xb));
    CUPAT_TRY(cupat__check_data(ctx, fn, "y", y, yb));
    /* y is written while A and x are read (by other threads): no overlap. */
    if (reads_ax) {
        cupat__extent ey = cupat__extent1(y, yb);
        CUPAT_TRY(cupat__check_disjoint(ctx, fn, "y", ey, "x", cupat__extent1(x, xb), NULL));
        CUPAT_TRY(cupat__check_disjoint(ctx, fn, "y", ey, "A", ea, NULL));
    }
    if (ylen == 0) return CUPAT_SUCCESS;

    const cupat_variant_info *v;
    CUPAT_TRY(cupat__select(ctx, "gemv", &v));
    /* A column-major m x n matrix is the row-major n x m matrix A^T: flip op. */
    cupat_gemv_args a = {colmajor ? n : m, colmajor ? m : n, colmajor ? !ta : ta,
                         alpha, beta, A, lda, x, y};
    if (!reads_ax) a.alpha = 0.0f; /* y = beta y, x unread */
    if (ctx->backend != CUPAT_BACKEND_CUDA) return cupat__gemv_cpu(ctx, &a);
    return cupat__gemv_cuda(ctx, cupat__rung_index(v), &a);
}
