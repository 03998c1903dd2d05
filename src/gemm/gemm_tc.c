/* SPDX-License-Identifier: Apache-2.0 */
/* gemm_tc.c — cupat_gemm, the mixed-type product (pattern "gemm_tc", the
 * tensor-core ladder; docs/gemm-tensor.md): the type pairs and scalars, the
 * shared argument checks (gemm.c), the column-major turn, dispatch.
 *
 * Rung -> file: wmma, wmma_tiled -> gemm_tc_wmma.cu, mma_sync ->
 * gemm_tc_mma.cu, wgmma -> gemm_tc_wgmma_sm90a.cu, cpu -> gemm_tc_cpu.c. */
#include "gemm/gemm_internal.h"

#include <float.h>
#include <math.h>
#include <stdint.h>

int cupat__gemm_tc_tile_n = 0;

static const cupat_variant_info gemm_tc_variants[] = {
    [GEMM_TC_WMMA] = {"gemm_tc", "wmma",
                      "one warp a 16x16 tile of C; op(A), op(B) slices staged in shared memory "
                      "(zero past the edges, transposes turned), load_matrix_sync / mma_sync / "
                      "store_matrix_sync, f32 (i32) accumulation, an element-wise epilogue",
                      "CUDA guide 10.24 (warp matrix functions)", CUPAT_BACKEND_CUDA, 0},
    [GEMM_TC_WMMA_TILED] = {"gemm_tc", "wmma_tiled",
                            "8 warps share a 128x128 tile of C (64x32 a warp, 4x2 fragments): each "
                            "staged element feeds 2 or 4 warps' products; k-slices of 32 staged by "
                            "all threads with coalesced loads, 32-byte-aligned fragment layouts; "
                            "two blocks an SM",
                            "CUDA guide 10.24; PMPP 5.4 (tiling)", CUPAT_BACKEND_CUDA, 0},
    [GEMM_TC_MMA] = {"gemm_tc", "mma_sync",
                     "PTX mma.sync m16n8k16 (f16, bf16) on ldmatrix fragments from XOR-swizzled "
                     "shared tiles, 3-stage cp.async pipeline with zero-filled edges, 64x32 a "
                     "warp; op N with 16-byte aligned A, B and ld multiples of 8 only (else, "
                     "and for tf32 and i8, wmma_tiled's kernel)",
                     "PTX ISA: mma.sync, ldmatrix, cp.async; CUDA guide (async copies)",
                     CUPAT_BACKEND_CUDA, 0},
    [GEMM_TC_WGMMA] = {"gemm_tc", "wgmma",
                       "Hopper (sm_90a): wgmma.mma_async m64n256k16 from 128-byte-swizzled shared "
                       "tiles through matrix descriptors, 128 x 256 a block; TMA tile copies in a "
                       "4-stage full/empty mbarrier ring; a producer warp group and two consumer "
                       "warp groups (setmaxnreg 40 / 232), persistent where C allows; all four op "
                       "pairs of f16 / bf16 (operands the copy engine cannot read copied with "
                       "padded rows); tf32 (k8; the copy engine rounds each f32 to tf32 on its "
                       "way in) and i8 (k32) read K-major, copied first where they are not",
                       "PTX ISA: wgmma, cp.async.bulk.tensor, mbarrier, setmaxnreg; CUDA guide "
                       "(TMA)",
                       CUPAT_BACKEND_CUDA, 1},
    [GEMM_TC_CPU] = {"gemm_tc", "cpu",
                     "OpenMP over output tiles; panels converted to f32 (i32 for i8) once, "
                     "f32 / i32 accumulation",
                     "PMPP 5.2; CUDA guide 10.24 (the types)", CUPAT_BACKEND_CPU, 1},
};
_Static_assert(sizeof gemm_tc_variants / sizeof gemm_tc_variants[0] == GEMM_TC_NRUNGS,
               "gemm_tc rung table and enum disagree");

const cupat_pattern_desc cupat__pattern_gemm_tc = {
    "gemm_tc", gemm_tc_variants, sizeof gemm_tc_variants / sizeof gemm_tc_variants[0]};

size_t cupat_gemm_type_size(cupat_gemm_type t)
{
    switch (t) {
    case CUPAT_GEMM_F16:
    case CUPAT_GEMM_BF16: return 2;
    case CUPAT_GEMM_TF32:
    case CUPAT_GEMM_F32:
    case CUPAT_GEMM_I32: return 4;
    case CUPAT_GEMM_I8: return 1;
    }
    return 0;
}

const char *cupat_gemm_type_name(cupat_gemm_type t)
{
    switch (t) {
    case CUPAT_GEMM_F16: return "f16";
    case CUPAT_GEMM_BF16: return "bf16";
    case CUPAT_GEMM_TF32: return "tf32";
    case CUPAT_GEMM_F32: return "f32";
    case CUPAT_GEMM_I8: return "i8";
    case CUPAT_GEMM_I32: return "i32";
    }
    return "unknown";
}

/* The pairs of cupat.h's table, each one cublasGemmEx also takes, so the
 * CUDA rungs to come and the vendor baseline can run the same set. */
static int pair_ok(cupat_gemm_type in, cupat_gemm_type out)
{
    switch (in) {
    case CUPAT_GEMM_F16: return out == CUPAT_GEMM_F16 || out == CUPAT_GEMM_F32;
    case CUPAT_GEMM_BF16: return out == CUPAT_GEMM_BF16 || out == CUPAT_GEMM_F32;
    case CUPAT_GEMM_TF32: return out == CUPAT_GEMM_F32;
    case CUPAT_GEMM_I8: return out == CUPAT_GEMM_I32;
    default: return 0;
    }
}

static cupat_status check_types(cupat_ctx *ctx, const char *fn, cupat_gemm_type in,
                                 cupat_gemm_type out)
{
    static const char pairs[] = "f16 -> f16 or f32, bf16 -> bf16 or f32, tf32 -> f32, i8 -> i32";
    if (in != CUPAT_GEMM_F16 && in != CUPAT_GEMM_BF16 && in != CUPAT_GEMM_TF32 &&
        in != CUPAT_GEMM_I8)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: in_type = %d (%s) is not an input type (F16, BF16, TF32, I8)",
                           fn, (int)in, cupat_gemm_type_name(in));
    if (!pair_ok(in, out))
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: out_type = %d (%s) does not go with in_type %s (pairs: %s)", fn,
                           (int)out, cupat_gemm_type_name(out), cupat_gemm_type_name(in),
                           pairs);
    return CUPAT_SUCCESS;
}

/* I8 scalars are int32_t: an integer in range, else refused by name. */
static cupat_status check_int_scalar(cupat_ctx *ctx, const char *fn, const char *name,
                                     double v, int32_t *out)
{
    if (!(v >= (double)INT32_MIN && v <= (double)INT32_MAX) || v != floor(v))
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: %s = %.17g is not an int32_t, which an i8 -> i32 product "
                           "scales by",
                           fn, name, v);
    *out = (int32_t)v;
    return CUPAT_SUCCESS;
}

/* Float scalars are rounded to f32 once, as a float argument would be; a
 * finite value no float holds is refused (the conversion would be undefined
 * in C); inf and NaN pass as they are. */
static cupat_status check_float_scalar(cupat_ctx *ctx, const char *fn, const char *name,
                                       double v, float *out)
{
    if (isfinite(v) && fabs(v) > (double)FLT_MAX)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: %s = %g is beyond FLT_MAX: the product scales in f32", fn,
                           name, v);
    *out = (float)v;
    return CUPAT_SUCCESS;
}

cupat_status cupat_gemm(cupat_ctx *ctx, unsigned flags, cupat_trans op_a, cupat_trans op_b,
                        size_t m, size_t n, size_t k, cupat_gemm_type in_type,
                        cupat_gemm_type out_type, double alpha, const void *A, size_t lda,
                        const void *B, size_t ldb, double beta, void *C, size_t ldc)
{
    CUPAT_TRACE_CALL();
    static const char fn[] = "cupat_gemm";
    CUPAT_TRY(cupat__begin(ctx, fn));
    CUPAT_TRY(check_types(ctx, fn, in_type, out_type));
    cupat_gemm_tc_args a = {0};
    int alpha_zero;
    if (in_type == CUPAT_GEMM_I8) {
        CUPAT_TRY(check_int_scalar(ctx, fn, "alpha", alpha, &a.ialpha));
        CUPAT_TRY(check_int_scalar(ctx, fn, "beta", beta, &a.ibeta));
        alpha_zero = a.ialpha == 0;
    } else {
        CUPAT_TRY(check_float_scalar(ctx, fn, "alpha", alpha, &a.alpha));
        CUPAT_TRY(check_float_scalar(ctx, fn, "beta", beta, &a.beta));
        alpha_zero = a.alpha == 0.0f;
    }
    /* the same checks as cupat_gemm_f32, in elements of each matrix's type */
    const size_t esz_in = cupat_gemm_type_size(in_type), esz_out = cupat_gemm_type_size(out_type);
    int reads_ab = !alpha_zero && k > 0 && m > 0 && n > 0;
    CUPAT_TRY(cupat__gemm_check(ctx, fn, flags, op_a, op_b, m, n, k, reads_ab, A, lda, esz_in,
                                B, ldb, esz_in, C, ldc, esz_out));
    if (m == 0 || n == 0) return CUPAT_SUCCESS;

    const cupat_variant_info *v;
    CUPAT_TRY(cupat__select(ctx, "gemm_tc", &v));
    /* Column-major C is row-major C^T = op(B)^T op(A)^T over the same memory
     * (gemm.c's turn): swap the operands and m with n; each op stays. */
    int colmajor = (flags & CUPAT_COL_MAJOR) != 0;
    int ta = op_a == CUPAT_TRANS_T, tb = op_b == CUPAT_TRANS_T;
    a.m = (int)(colmajor ? n : m);
    a.n = (int)(colmajor ? m : n);
    a.k = (int)k;
    a.ta = colmajor ? tb : ta;
    a.tb = colmajor ? ta : tb;
    a.in = in_type;
    a.out = out_type;
    a.reads_ab = reads_ab;
    a.A = colmajor ? B : A;
    a.lda = colmajor ? ldb : lda;
    a.B = colmajor ? A : B;
    a.ldb = colmajor ? lda : ldb;
    a.C = C;
    a.ldc = ldc;
    switch (cupat__rung_index(v)) {
    case GEMM_TC_WMMA: return cupat__gemm_tc_wmma(ctx, &a);
    case GEMM_TC_WMMA_TILED: return cupat__gemm_tc_wmma_tiled(ctx, &a);
    case GEMM_TC_MMA: return cupat__gemm_tc_mma(ctx, &a);
    case GEMM_TC_WGMMA: return cupat__gemm_tc_wgmma(ctx, &a);
    case GEMM_TC_CPU: return cupat__gemm_tc_cpu(ctx, &a);
    }
    return cupat__fail(ctx, CUPAT_ERROR_INTERNAL, "%s: rung \"%s\" has no launcher (a bug)", fn,
                       v->name);
}
