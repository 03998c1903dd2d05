/* SPDX-License-Identifier: Apache-2.0 */
/* exec_tp.c — `cupat lab exec throughput` (CUDA Guide 8.4.1): the table of
 * instructions measured with the Guide's figure beside each, the host model
 * of every chain (exec_tp.h) and the run: the GPU's results a clock an SM,
 * three sampled warps checked against the model. */
#include "exec/exec_tp.h"

#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* guide: the CUDA C++ Programming Guide's "Throughput of Native Arithmetic
 * Instructions" for compute capability 9.0, as read in a copy of the 12.6
 * table (16-bit 256 counting a half2 as two results, 32-bit fp 128, 32-bit
 * integer add, shift 64, warp shuffle 32) and the 2:1 FP32:FP64 ratio of cc
 * 9.0 (64). 0 where the table's cc 9.0 cell was not found: not guessed. */
static const lab_exec_tp_op ops[LAB_TP_NOPS] = {
    [LAB_TP_FADD] = {"fp32 add", "x = __fadd_rn(x, b)", 1, 128, ""},
    [LAB_TP_FMUL] = {"fp32 mul", "x = __fmul_rn(x, b)", 1, 128, ""},
    [LAB_TP_FFMA] = {"fp32 fma", "x = __fmaf_rn(x, a, b)", 1, 128, ""},
    [LAB_TP_DFMA] = {"fp64 fma", "x = __fma_rn(x, a, b)", 1, 64, ""},
    [LAB_TP_HFMA2] = {"fp16x2 fma", "x = __hfma2(x, a2, b2)", 2, 256, ""},
    [LAB_TP_IADD] = {"int32 add", "x[j] = x[j] + x[j+1]", 1, 64, "(ptxas may move some to the FMA pipe)"},
    [LAB_TP_IMAD] = {"int32 mul-add", "x[j] = x[j] * x[j+1] + 2", 1, 0, ""},
    [LAB_TP_MUL24] = {"__umul24", "x[j] = __umul24(x[j], x[j+1])", 1, 0, "emulated: masks (LOP3) + IMAD"},
    [LAB_TP_SHF] = {"shift (funnel)", "x[j] = __funnelshift_l(x[j], x[j], x[j+1])", 1, 64, ""},
    [LAB_TP_POPC] = {"__popc", "x[j] = __popc(x[j]) ^ x[j+1]", 1, 0, "+ an XOR (LOP3)"},
    [LAB_TP_CLZ] = {"__clz", "x[j] = __clz(x[j]) ^ x[j+1]", 1, 0, "+ an XOR (LOP3)"},
    [LAB_TP_BREV] = {"__brev", "x[j] = __brev(x[j]) ^ x[j+1]", 1, 0, "+ an XOR (LOP3)"},
    [LAB_TP_RSQRT] = {"rsqrt (MUFU)", "x = rsqrt.approx.ftz(x)", 1, 0, ""},
    [LAB_TP_SIN] = {"__sinf (MUFU)", "x = sin.approx.ftz(x)", 1, 0, ""},
    [LAB_TP_EX2] = {"exp2 (MUFU)", "x = ex2.approx.ftz(-x)", 1, 0, "(the negation folds into the operand)"},
    [LAB_TP_SHFL] = {"__shfl_xor_sync", "x = __shfl_xor_sync(~0, x, 1 << u)", 1, 32, ""},
    [LAB_TP_VOTE] = {"__ballot_sync", "x[j] = __ballot_sync(~0, x[j] & 1) ^ x[j+1]", 1, 0,
                     "+ the predicate and an XOR"},
};

const lab_exec_tp_op *lab_exec_tp_op_info(int op)
{
    return op >= 0 && op < LAB_TP_NOPS ? &ops[op] : NULL;
}

/* ---------------------------------------------------------- host model -- */

/* A float's or a double's bits, widened. */
static uint64_t bits64(const void *p, size_t n)
{
    uint32_t u32 = 0;
    uint64_t u64 = 0;
    if (n == 4) memcpy(&u32, p, 4), u64 = u32;
    else memcpy(&u64, p, 8);
    return u64;
}

static uint16_t hfma_h(uint16_t x, float a, float b)
{
    /* x has 11 significant bits and a, b are 0.5, 0.25: x a + b is exact in
     * float, so rounding it to half is HFMA2's one rounding */
    const cupat_f16 h = {x};
    return cupat_f32_to_f16(fmaf(cupat_f16_to_f32(h), a, b)).bits;
}

void lab_exec_tp_host(int op, uint32_t warp, int iters, uint64_t *out)
{
    const int steps = iters * TP_UNROLL;
    uint32_t u[32][TP_CHAINS];
    for (int l = 0; l < 32; l++) {
        const uint32_t t = warp * 32 + (uint32_t)l;
        for (int j = 0; j < TP_CHAINS; j++) {
            uint64_t *o = &out[l * TP_CHAINS + j];
            switch (op) {
            case LAB_TP_FADD: case LAB_TP_FMUL: case LAB_TP_FFMA: {
                float x = tp_init_f32(t, j);
                for (int s = 0; s < steps; s++)
                    x = op == LAB_TP_FADD ? x + TP_FADD_B : op == LAB_TP_FMUL ? x * TP_FMUL_B : fmaf(x, TP_FMA_A, TP_FMA_B);
                *o = bits64(&x, 4);
                break;
            }
            case LAB_TP_DFMA: {
                double x = tp_init_f32(t, j);
                for (int s = 0; s < steps; s++) x = fma(x, TP_DFMA_A, TP_DFMA_B);
                *o = bits64(&x, 8);
                break;
            }
            case LAB_TP_HFMA2: {
                uint16_t lo = cupat_f32_to_f16(tp_init_h_lo(t, j)).bits, hi = cupat_f32_to_f16(tp_init_h_hi(t, j)).bits;
                for (int s = 0; s < steps; s++) lo = hfma_h(lo, TP_HFMA_A, TP_HFMA_B), hi = hfma_h(hi, TP_HFMA_A, TP_HFMA_B);
                *o = (uint64_t)lo | (uint64_t)hi << 16;
                break;
            }
            case LAB_TP_RSQRT: case LAB_TP_SIN: case LAB_TP_EX2: {
                double x = tp_init_f32(t, j);
                for (int s = 0; s < steps; s++) x = op == LAB_TP_RSQRT ? 1.0 / sqrt(x) : op == LAB_TP_SIN ? sin(x) : exp2(-x);
                const float f = (float)x;
                *o = bits64(&f, 4);
                break;
            }
            default: u[l][j] = tp_init_u32(t, j);
            }
        }
    }
    if (op < LAB_TP_IADD || (op >= LAB_TP_RSQRT && op <= LAB_TP_EX2)) return;
    /* integer ops, shuffle and vote: whole-warp steps */
    for (int s = 0; s < steps; s++) {
        uint32_t n[32][TP_CHAINS];
        uint32_t ballot[TP_CHAINS] = {0};
        if (op == LAB_TP_VOTE)
            for (int l = 0; l < 32; l++)
                for (int j = 0; j < TP_CHAINS; j++) ballot[j] |= (u[l][j] & 1u) << l;
        for (int l = 0; l < 32; l++)
            for (int j = 0; j < TP_CHAINS; j++) {
                const uint32_t b = u[l][(j + 1) % TP_CHAINS];
                n[l][j] = op == LAB_TP_SHFL   ? u[l ^ (1 << (s % TP_UNROLL))][j]
                          : op == LAB_TP_VOTE ? ballot[j] ^ b
                                              : tp_int_step(op, u[l][j], b);
            }
        memcpy(u, n, sizeof u);
    }
    for (int l = 0; l < 32; l++)
        for (int j = 0; j < TP_CHAINS; j++) out[l * TP_CHAINS + j] = u[l][j];
}

/* ----------------------------------------------------------------- run -- */

static int cmp_d(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The approximate functions: |device - exact chain| within this. rsqrt and
 * exp2(-x) contract toward their fixed points (|f'| <= 1/2), so a step's
 * error (about 2^-22) does not grow; sin's fixed point 0 is neutral
 * (f' -> 1): its errors (2^-20.9 a step) may add up. */
static double tp_tolerance(int op, int iters)
{
    if (op == LAB_TP_SIN) return (double)iters * TP_UNROLL * 0x1p-20;
    return 1e-5;
}

cupat_status lab_exec_throughput(cupat_ctx *ctx, int op, int iters, int reps, lab_exec_tp *out)
{
    const cupat_status INV = CUPAT_ERROR_INVALID_VALUE;
    if (!ctx) return cupat__fail(NULL, INV, "lab exec: ctx is NULL");
    if (op < 0 || op >= LAB_TP_NOPS) return cupat__fail(ctx, INV, "lab exec: throughput op = %d", op);
    if (iters < 1 || iters > (1 << 16)) return cupat__fail(ctx, INV, "lab exec: iters = %d (1 to 2^16)", iters);
    if (reps < 1 || reps > 1000) return cupat__fail(ctx, INV, "lab exec: reps = %d (1 to 1000)", reps);
    if (!out) return cupat__fail(ctx, INV, "lab exec: out is NULL");
    if (cupat_get_backend(ctx) != CUPAT_BACKEND_CUDA)
        return cupat__fail(ctx, CUPAT_ERROR_NOT_SUPPORTED, "lab exec: the experiments need the CUDA backend");
    memset(out, 0, sizeof *out);
    const size_t per = 32 * TP_CHAINS;
    uint64_t *got = malloc(3 * per * sizeof *got), *want = malloc(per * sizeof *want);
    double *rate = malloc((size_t)reps * sizeof *rate);
    float *t = malloc((size_t)reps * sizeof *t);
    cupat_status s = got && want && rate && t ? CUPAT_SUCCESS
                                              : cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY, "lab exec: out of host memory");
    uint32_t warps[3] = {0, 0, 0};
    if (!s) s = cupat__lab_exec_tp(ctx, op, iters, reps, warps, got, rate, t, &out->blocks_per_sm);
    if (!s) {
        qsort(rate, (size_t)reps, sizeof *rate, cmp_d);
        out->per_clk_sm = reps % 2 ? rate[reps / 2] : 0.5 * (rate[reps / 2 - 1] + rate[reps / 2]);
        double ms[1000];
        for (int r = 0; r < reps; r++) ms[r] = t[r];
        qsort(ms, (size_t)reps, sizeof *ms, cmp_d);
        out->ms = reps % 2 ? ms[reps / 2] : 0.5 * (ms[reps / 2 - 1] + ms[reps / 2]);
        const int approx = op == LAB_TP_RSQRT || op == LAB_TP_SIN || op == LAB_TP_EX2;
        out->ok = out->per_clk_sm > 0;
        for (int w = 0; w < 3 && out->ok; w++) {
            lab_exec_tp_host(op, warps[w], iters, want);
            for (size_t k = 0; k < per && out->ok; k++) {
                const uint64_t g = got[w * per + k];
                int same = g == want[k];
                if (approx) {
                    float gf, wf;
                    const uint32_t g32 = (uint32_t)g, w32 = (uint32_t)want[k];
                    memcpy(&gf, &g32, 4), memcpy(&wf, &w32, 4);
                    same = fabs((double)gf - wf) <= tp_tolerance(op, iters);
                }
                if (!same) {
                    out->ok = 0;
                    snprintf(out->msg, sizeof out->msg, "warp %u lane %zu chain %zu: 0x%llx, expected 0x%llx", warps[w],
                             k / TP_CHAINS, k % TP_CHAINS, (unsigned long long)g, (unsigned long long)want[k]);
                }
            }
        }
        if (out->per_clk_sm <= 0 && !out->msg[0]) snprintf(out->msg, sizeof out->msg, "no SM reported a busy span");
        /* Above the Guide's peak: the steps were not one instruction each
         * (fused by the compiler) or the cycles were miscounted. Integer
         * adds are exempt: ptxas may issue some as IMAD.IADD on the FMA
         * pipe, and then more than 64 a clock is the hardware's doing. */
        if (out->ok && ops[op].guide && op != LAB_TP_IADD && out->per_clk_sm > 1.1 * ops[op].guide) {
            out->ok = 0;
            snprintf(out->msg, sizeof out->msg, "%.1f results a clock an SM: above the Guide's %d", out->per_clk_sm,
                     ops[op].guide);
        }
    }
    free(got), free(want), free(rate), free(t);
    return s;
}
