/* SPDX-License-Identifier: Apache-2.0 */
/* test_float_lab.c — the floating-point lab (lab/float).
 * cpu:  the decoder on the lecture's examples and every class (binary32 and
 *       binary64); the bit-string parser refuses the slide's 34-digit
 *       "-1.625"; the rounding reference against a second, independent one
 *       (the host FPU under fesetround) on every op, mode and input kind,
 *       and on hand-made ties, overflows, signed zeros and denormals; the ulp
 *       measure and the histogram buckets; the summation orders against the
 *       exact sum (the compensated reduce rung within an ulp everywhere; Kahan
 *       within two except on the cancelling set, where its correction is lost
 *       and the naive order and Kahan are far off while presorting helps); every GPU
 *       entry point refuses bad arguments, and the CPU backend.
 * cuda: every rounding-mode intrinsic equals the reference bit for bit; the
 *       precise functions stay within their documented ulp bounds, __fdividef
 *       is far off (0) for divisors in [2^126, 2^128), the --use_fast_math
 *       build flushes denormal inputs (its sqrt of a denormal is lost) while
 *       the precise build does not; the rates are positive; FP64 FMA is slower than FP32 or
 *       equal (never faster). */
#include "testutil.h"

#include "float/float.h"

#include <fenv.h>
#include <float.h>

static uint32_t bits(float x)
{
    return lab_float_bits(x);
}

static void check_decoder(void)
{
    for (int i = 0; lab_float_example_get(i); i++) {
        const lab_float_example *e = lab_float_example_get(i);
        CHECK((double)lab_float_from_bits(e->bits) == e->value, "%s: %08x is %.9g, not %.9g", e->what, e->bits,
              (double)lab_float_from_bits(e->bits), e->value);
    }
    CHECK(bits(-0.75f) == 0xBF400000u && bits(15213.0f) == 0x466DB400u && bits(-1.625f) == 0xBFD00000u,
          "the lecture's encodings");
    char buf[64], why[96];
    CHECK(!strcmp(lab_float_bit_string(0xBF400000u, buf), "1 01111110 10000000000000000000000"), "%s", buf);
    uint32_t u = 0;
    CHECK(lab_float_parse_bits(LAB_FLOAT_LECTURE_M1625, &u, why, sizeof why) == -1 && strstr(why, "34 binary digits"),
          "the slide's 34-digit string refused: %s", why);
    CHECK(lab_float_parse_bits("1 01111111 10100000000000000000000", &u, why, sizeof why) == 0 && u == 0xBFD00000u,
          "-1.625 parsed: %08x", u);
    CHECK(lab_float_parse_bits("1 0111x", &u, why, sizeof why) == -1 && strstr(why, "'x'"), "bad digit: %s", why);
    /* The first 32 digits of the slide's string: what the note says they decode to. */
    char first[33];
    memcpy(first, LAB_FLOAT_LECTURE_M1625, 32);
    first[32] = 0;
    CHECK(lab_float_parse_bits(first, &u, why, sizeof why) == 0 && fabs(lab_float_from_bits(u) + 7.11e-20) < 1e-22,
          "first 32 digits: %g", (double)lab_float_from_bits(u));

    lab_fp_fields f;
    lab_float_fields32(0xBB580000u, &f);
    CHECK(f.sign == 1 && f.exp_field == 118 && f.E == -9 && f.frac == 0x580000u && f.cls == LAB_FP_NORMAL,
          "decode 1 01110110 1011...: exp %u E %d", f.exp_field, f.E);
    lab_float_explain(0xBF400000u, buf, sizeof buf);
    CHECK(strstr(buf, "1.1b x 2^(126 - 127) = -0.75") != NULL, "explain -0.75: %s", buf);
    const struct {
        uint32_t b;
        int cls, E;
    } cl[] = {{0x00000000u, LAB_FP_ZERO, -126}, {0x80000000u, LAB_FP_ZERO, -126}, {0x00000001u, LAB_FP_DENORMAL, -126},
              {0x007FFFFFu, LAB_FP_DENORMAL, -126}, {0x00800000u, LAB_FP_NORMAL, -126}, {0x7F7FFFFFu, LAB_FP_NORMAL, 127},
              {0x7F800000u, LAB_FP_INF, 0}, {0xFF800000u, LAB_FP_INF, 0}, {0x7FC00000u, LAB_FP_QNAN, 0},
              {0x7FA00000u, LAB_FP_SNAN, 0}};
    for (size_t i = 0; i < sizeof cl / sizeof cl[0]; i++) {
        lab_float_fields32(cl[i].b, &f);
        CHECK(f.cls == cl[i].cls && f.E == cl[i].E, "%08x: class %s E %d", cl[i].b, lab_float_class_name(f.cls), f.E);
        const float x = lab_float_from_bits(cl[i].b);
        const int c99 = fpclassify(x);
        CHECK((c99 == FP_ZERO) == (f.cls == LAB_FP_ZERO) && (c99 == FP_SUBNORMAL) == (f.cls == LAB_FP_DENORMAL) &&
                  (c99 == FP_INFINITE) == (f.cls == LAB_FP_INF) && (c99 == FP_NAN) == (f.cls >= LAB_FP_QNAN),
              "%08x agrees with fpclassify", cl[i].b);
    }
    for (int i = 0; lab_float_sample_get(i); i++) CHECK(lab_float_sample_get(i)->what != NULL, "sample %d", i);
    lab_float_fields64(lab_double_bits(-0.75), &f);
    CHECK(f.bits == 64 && f.exp_field == 1022 && f.bias == 1023 && f.E == -1 && f.sign == 1, "double -0.75");
    lab_float_fields64(lab_double_bits(0x1p-1074), &f);
    CHECK(f.cls == LAB_FP_DENORMAL && f.E == -1022 && f.frac == 1, "double denormal");
    CHECK(lab_float_class_name(LAB_FP_NCLASSES) == NULL, "class names end");
}

/* The second reference: the host FPU in each rounding mode (volatile
 * operands so nothing is folded at compile time). */
static float fpu(int op, int mode, float a, float b, float c)
{
    static const int fe[LAB_NMODES] = {FE_TONEAREST, FE_TOWARDZERO, FE_UPWARD, FE_DOWNWARD};
    volatile float x = a, y = b, z = c, r = 0;
    fesetround(fe[mode]);
    switch (op) {
    case LAB_OP_ADD: r = x + y; break;
    case LAB_OP_MUL: r = x * y; break;
    case LAB_OP_DIV: r = x / y; break;
    case LAB_OP_FMA: r = fmaf(x, y, z); break;
    case LAB_OP_RCP: r = 1.0f / x; break;
    case LAB_OP_SQRT: r = sqrtf(x); break;
    }
    fesetround(FE_TONEAREST);
    return r;
}

static int same(float a, float b)
{
    return bits(a) == bits(b) || (isnan(a) && isnan(b));
}

static void check_rounding_ref(void)
{
    const size_t n = t_small ? 20000 : 200000;
    float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    CHECK(a && b && c, "host memory");
    if (!a || !b || !c) return;
    for (int op = 0; op < LAB_NOPS; op++) {
        lab_float_round_inputs(op, 11, a, b, c, n);
        size_t bad = 0, inexact = 0;
        for (size_t i = 0; i < n; i++)
            for (int m = 0; m < LAB_NMODES; m++) {
                const float r = lab_float_round_ref(op, m, a[i], b[i], c[i]), f = fpu(op, m, a[i], b[i], c[i]);
                if (!same(r, f) && bad++ < 3)
                    CHECK(0, "%s_%s(%a, %a, %a): reference %a, FPU %a", lab_float_op_name(op), lab_float_mode_name(m),
                          (double)a[i], (double)b[i], (double)c[i], (double)r, (double)f);
                if (m == LAB_RU) inexact += !same(r, lab_float_round_ref(op, LAB_RD, a[i], b[i], c[i]));
            }
        CHECK(bad == 0, "%s: %zu results differ from the FPU", lab_float_op_name(op), bad);
        CHECK(inexact > n / 4, "%s: only %zu of %zu inputs inexact (ru != rd): the inputs test little",
              lab_float_op_name(op), inexact, n);
    }
    /* Hand-made cases. */
    const float one = 1.0f, h = 0x1p-24f; /* half an ulp of 1 */
    CHECK(lab_float_round_ref(LAB_OP_ADD, LAB_RN, one, h, 0) == one, "1 + 2^-24 ties to even: 1");
    CHECK(lab_float_round_ref(LAB_OP_ADD, LAB_RN, 1.0f + 0x1p-23f, h, 0) == 1.0f + 0x1p-22f, "odd tie rounds up");
    CHECK(lab_float_round_ref(LAB_OP_ADD, LAB_RU, one, 0x1p-60f, 0) == 1.0f + 0x1p-23f, "ru of 1 + tiny");
    CHECK(lab_float_round_ref(LAB_OP_ADD, LAB_RZ, -one, -0x1p-60f, 0) == -one, "rz of -1 - tiny");
    CHECK(lab_float_round_ref(LAB_OP_ADD, LAB_RD, -one, -0x1p-60f, 0) == -1.0f - 0x1p-23f, "rd of -1 - tiny");
    CHECK(bits(lab_float_round_ref(LAB_OP_ADD, LAB_RD, one, -one, 0)) == 0x80000000u, "x - x = -0 in rd");
    CHECK(bits(lab_float_round_ref(LAB_OP_ADD, LAB_RU, one, -one, 0)) == 0u, "x - x = +0 in ru");
    CHECK(bits(lab_float_round_ref(LAB_OP_ADD, LAB_RN, -0.0f, -0.0f, 0)) == 0x80000000u, "-0 + -0 = -0");
    CHECK(lab_float_round_ref(LAB_OP_MUL, LAB_RZ, FLT_MAX, 2.0f, 0) == FLT_MAX, "rz overflow: FLT_MAX");
    CHECK(isinf(lab_float_round_ref(LAB_OP_MUL, LAB_RU, FLT_MAX, 2.0f, 0)), "ru overflow: inf");
    CHECK(lab_float_round_ref(LAB_OP_MUL, LAB_RD, FLT_MAX, -2.0f, 0) == -INFINITY, "rd overflow: -inf");
    CHECK(lab_float_round_ref(LAB_OP_MUL, LAB_RU, 0x1p-100f, 0x1p-100f, 0) == 0x1p-149f, "ru underflow: 2^-149");
    CHECK(bits(lab_float_round_ref(LAB_OP_MUL, LAB_RD, 0x1p-100f, -0x1p-100f, 0)) == 0x80000001u,
          "rd underflow: -2^-149");
    CHECK(lab_float_round_ref(LAB_OP_DIV, LAB_RU, 1.0f, 3.0f, 0) > lab_float_round_ref(LAB_OP_DIV, LAB_RD, 1.0f, 3.0f, 0),
          "1/3 ru > rd");
    CHECK(lab_float_round_ref(LAB_OP_SQRT, LAB_RN, 2.0f, 0, 0) == sqrtf(2.0f), "sqrt 2");
    CHECK(lab_float_round_ref(LAB_OP_RCP, LAB_RZ, 3.0f, 0, 0) == lab_float_round_ref(LAB_OP_DIV, LAB_RZ, 1.0f, 3.0f, 0),
          "rcp = 1 / x");
    CHECK(!strcmp(lab_float_op_name(LAB_OP_FMA), "__fmaf") && lab_float_op_arity(LAB_OP_FMA) == 3 &&
              lab_float_op_name(LAB_NOPS) == NULL && lab_float_mode_name(LAB_NMODES) == NULL,
          "names");
    free(a);
    free(b);
    free(c);
}

static void check_ulps(void)
{
    CHECK(lab_float_ulp_error(1.0f, 1.0) == 0, "exact");
    CHECK(fabs(lab_float_ulp_error(1.0f + 0x1p-23f, 1.0) - 1.0) < 1e-12, "one ulp above 1");
    CHECK(fabs(lab_float_ulp_error(1.0f, 1.0 + 0x1p-24) - 0.5) < 1e-12, "half an ulp");
    CHECK(fabs(lab_float_ulp_error(0.0f, 0x1p-149) - 1.0) < 1e-12, "denormal ulp 2^-149");
    CHECK(lab_float_ulp_error(0.0f, 0x1p-130) == 0x1p19, "a flushed denormal: 2^19 ulps");
    CHECK(lab_float_ulp_error(NAN, NAN) == 0 && isinf(lab_float_ulp_error(NAN, 1.0)) &&
              isinf(lab_float_ulp_error(1.0f, NAN)) && lab_float_ulp_error(INFINITY, 1e300) == 0,
          "NaN and infinity");
    CHECK(lab_float_bucket(0.5) == 0 && lab_float_bucket(0.51) == 1 && lab_float_bucket(3) == 3 &&
              lab_float_bucket(1e9) == LAB_ULP_NBUCKETS - 1 && lab_float_bucket(NAN) == LAB_ULP_NBUCKETS - 1,
          "buckets");
    /* The host's own float functions land in the first buckets; a flush to 0 in the last. */
    const size_t n = 4096;
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *g = malloc(n * sizeof *g);
    CHECK(x && y && g, "host memory");
    if (!x || !y || !g) return;
    for (int fn = 0; fn < LAB_NFNS; fn++)
        for (int set = 0; set < LAB_FLOAT_NSETS; set++) {
            CHECK(lab_float_fn_inputs(fn, set, 3, x, y, n) != NULL, "inputs");
            for (size_t i = 0; i < n; i++) {
                CHECK(isfinite(x[i]) && isfinite(y[i]) && y[i] != 0, "%s set %d: input %zu finite", lab_float_fn_name(fn),
                      set, i);
                g[i] = (float)lab_float_fn_ref(fn, x[i], y[i]); /* correctly rounded (ties aside) */
            }
            lab_ulp_hist hst;
            lab_float_ulp_hist(fn, x, y, g, n, &hst);
            CHECK(hst.count[0] == n, "%s set %d: rounded reference in the first bucket (%zu of %zu), max %g",
                  lab_float_fn_name(fn), set, hst.count[0], n, hst.max_ulp);
            for (size_t i = 0; i < n; i++) g[i] = 0.0f;
            lab_float_ulp_hist(fn, x, y, g, n, &hst);
            CHECK(hst.count[0] < n, "%s set %d: zeros are not the function", lab_float_fn_name(fn), set);
        }
    free(x);
    free(y);
    free(g);
}

static void check_sums(cupat_ctx *ctx)
{
    const size_t n = t_small ? ((size_t)1 << 16) : ((size_t)1 << 20);
    float *x = malloc(n * sizeof *x);
    CHECK(x != NULL, "host memory");
    if (!x) return;
    for (int set = 0; set < LAB_SUM_NSETS; set++) {
        lab_float_sum_inputs(set, 5, x, n);
        const double exact = lab_float_sum_exact(x, n);
        float sums[LAB_NSUMS];
        CHECK_OK(ctx, lab_float_sum_all(ctx, x, n, sums));
        const double e_kahan = lab_float_ulp_error(sums[LAB_SUM_KAHAN], exact);
        const double e_comp = lab_float_ulp_error(sums[LAB_SUM_REDUCE_COMP], exact);
        const double e_naive = lab_float_ulp_error(sums[LAB_SUM_NAIVE], exact);
        /* Kahan's correction is lost when a large term cancels the running sum
         * (set 2: +L then -L); Neumaier's variant (the compensated rung) keeps it. */
        if (set < 2) CHECK(e_kahan <= 2, "set %d: Kahan %g ulps", set, e_kahan);
        else CHECK(e_kahan > 100, "set %d: Kahan was expected to lose the small values (%g ulps)", set, e_kahan);
        CHECK(e_comp <= 1, "set %d: compensated reduce %g ulps", set, e_comp);
        for (int k = 0; k < LAB_NSUMS; k++)
            CHECK(isfinite(sums[k]), "set %d: %s finite", set, lab_float_sum_name(k));
        if (set == 2) /* the running sum of the small values is absorbed by each +L */
            CHECK(e_naive > 100 && lab_float_ulp_error(sums[LAB_SUM_ASCENDING], exact) < e_naive,
                  "cancelling: naive %g ulps, sorted ascending %g", e_naive,
                  lab_float_ulp_error(sums[LAB_SUM_ASCENDING], exact));
    }
    /* Small exact cases. */
    const float v[] = {1.0f, 0x1p-24f, 0x1p-24f, 0x1p-24f, 0x1p-24f};
    CHECK(lab_float_sum_exact(v, 5) == 1.0 + 0x1p-22, "exact sum");
    CHECK(lab_float_sum_host(LAB_SUM_NAIVE, v, 5) == 1.0f, "naive loses every 2^-24");
    CHECK(lab_float_sum_host(LAB_SUM_ASCENDING, v, 5) == 1.0f + 0x1p-22f, "presorted keeps them");
    CHECK(lab_float_sum_host(LAB_SUM_KAHAN, v, 5) == 1.0f + 0x1p-22f, "Kahan keeps them");
    free(x);
}

static void check_bad(cupat_ctx *ctx)
{
    float f = 1.0f, o[4];
    double ms, r;
    const cupat_status INV = CUPAT_ERROR_INVALID_VALUE;
    CHECK_FAILS(ctx, INV, "op = 9", lab_float_round_gpu(ctx, 9, &f, &f, &f, 1, o));
    CHECK_FAILS(ctx, INV, "n = 0", lab_float_round_gpu(ctx, LAB_OP_ADD, &f, &f, &f, 0, o));
    CHECK_FAILS(ctx, INV, "b is NULL", lab_float_round_gpu(ctx, LAB_OP_ADD, &f, NULL, NULL, 1, o));
    CHECK_FAILS(ctx, INV, "c is NULL", lab_float_round_gpu(ctx, LAB_OP_FMA, &f, &f, NULL, 1, o));
    CHECK_FAILS(NULL, INV, "ctx is NULL", lab_float_round_gpu(NULL, LAB_OP_ADD, &f, &f, &f, 1, o));
    CHECK_FAILS(ctx, INV, "fn = 7", lab_float_fn_gpu(ctx, 7, 0, &f, &f, 1, o));
    CHECK_FAILS(ctx, INV, "variant = 3", lab_float_fn_gpu(ctx, LAB_FN_EXP, 3, &f, &f, 1, o));
    CHECK_FAILS(ctx, INV, "y is NULL", lab_float_fn_gpu(ctx, LAB_FN_DIV, 0, &f, NULL, 1, o));
    CHECK_FAILS(ctx, INV, "got is NULL", lab_float_fn_gpu(ctx, LAB_FN_EXP, 0, &f, NULL, 1, NULL));
    CHECK_FAILS(ctx, INV, "iters = 0", lab_float_fn_rate(ctx, LAB_FN_EXP, 0, 1024, 0, 1, &ms, &r));
    CHECK_FAILS(ctx, INV, "n = 5", lab_float_fn_rate(ctx, LAB_FN_EXP, 0, 5, 1, 1, &ms, &r));
    CHECK_FAILS(ctx, INV, "blocks = 0", lab_float_fma_rate(ctx, 0, 0, 1, 1, &ms, &r));
    CHECK_FAILS(ctx, INV, "reps = 0", lab_float_fma_rate(ctx, 1, 1, 1, 0, &ms, &r));
    if (t_backend == CUPAT_BACKEND_CPU) {
        const cupat_status NS = CUPAT_ERROR_NOT_SUPPORTED;
        CHECK_FAILS(ctx, NS, "CUDA backend", lab_float_round_gpu(ctx, LAB_OP_ADD, &f, &f, &f, 1, o));
        CHECK_FAILS(ctx, NS, "CUDA backend", lab_float_fn_gpu(ctx, LAB_FN_EXP, 0, &f, NULL, 1, o));
        CHECK_FAILS(ctx, NS, "CUDA backend", lab_float_fma_rate(ctx, 0, 1, 1, 1, &ms, &r));
    }
}

/* ------------------------------------------------------------------ cuda -- */

static void check_round_gpu(cupat_ctx *ctx)
{
    const size_t n = t_small ? 4096 : 100003;
    float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c),
          *o = malloc(4 * n * sizeof *o);
    CHECK(a && b && c && o, "host memory");
    if (!a || !b || !c || !o) return;
    for (int op = 0; op < LAB_NOPS; op++) {
        lab_float_round_inputs(op, 21, a, b, c, n);
        CHECK_OK(ctx, lab_float_round_gpu(ctx, op, a, b, c, n, o));
        size_t bad = 0;
        for (size_t i = 0; i < n; i++)
            for (int m = 0; m < LAB_NMODES; m++) {
                const float r = lab_float_round_ref(op, m, a[i], b[i], c[i]);
                if (!same(o[4 * i + m], r) && bad++ < 3)
                    CHECK(0, "%s_%s(%a, %a, %a): GPU %a, reference %a", lab_float_op_name(op), lab_float_mode_name(m),
                          (double)a[i], (double)b[i], (double)c[i], (double)o[4 * i + m], (double)r);
            }
        CHECK(bad == 0, "%s: %zu GPU results differ", lab_float_op_name(op), bad);
    }
    free(a);
    free(b);
    free(c);
    free(o);
}

static void check_fn_gpu(cupat_ctx *ctx)
{
    const size_t n = t_small ? 4096 : 1 << 18;
    /* Documented bounds (CUDA Guide, math appendix) for set 0, precise: exp 2,
     * sin 2, log 1, x / y 0 (IEEE), sqrt 0 (IEEE). */
    static const double precise_max[LAB_NFNS] = {2, 2, 1, 0.5, 0.5};
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *g = malloc(n * sizeof *g);
    CHECK(x && y && g, "host memory");
    if (!x || !y || !g) return;
    for (int fn = 0; fn < LAB_NFNS; fn++)
        for (int set = 0; set < LAB_FLOAT_NSETS; set++)
            for (int var = 0; var < LAB_NVARS; var++) {
                lab_float_fn_inputs(fn, set, 9, x, y, n);
                CHECK_OK(ctx, lab_float_fn_gpu(ctx, fn, var, x, y, n, g));
                lab_ulp_hist h;
                lab_float_ulp_hist(fn, x, y, g, n, &h);
                printf("%-5s set %d %-16s max %.3g ulp\n", lab_float_fn_name(fn), set, lab_float_var_name(var), h.max_ulp);
                if (var == LAB_VAR_PRECISE && (set == 0 || fn == LAB_FN_DIV || fn == LAB_FN_SQRT))
                    CHECK(h.max_ulp <= precise_max[fn] + 1e-6, "%s set %d precise: max %g ulp at x = %a", lab_float_fn_name(fn),
                          set, h.max_ulp, (double)h.max_x);
                if (fn == LAB_FN_SQRT && var == LAB_VAR_INTRINSIC)
                    CHECK(h.max_ulp <= 0.5 + 1e-6, "__fsqrt_rn is correctly rounded: max %g", h.max_ulp);
                if (fn == LAB_FN_DIV && set == 1 && var == LAB_VAR_INTRINSIC)
                    CHECK(h.count[LAB_ULP_NBUCKETS - 1] >= n * 9 / 10,
                          "__fdividef with y in [2^126, 2^128) returns 0 (the Guide): %zu of %zu past 1024 ulps, x[0] / y[0] = %g",
                          h.count[LAB_ULP_NBUCKETS - 1], n, (double)g[0]);
                if (fn == LAB_FN_SQRT && set == 1 && var == LAB_VAR_FASTMATH)
                    CHECK(h.count[LAB_ULP_NBUCKETS - 1] == n, "-ftz: a denormal input is flushed, its sqrt lost (%zu of %zu; "
                          "sqrt(x[0]) = %g)", h.count[LAB_ULP_NBUCKETS - 1], n, (double)g[0]);
            }
    free(x);
    free(y);
    free(g);
}

static void check_rates(cupat_ctx *ctx)
{
    double ms, r, r32 = 0, r64 = 0;
    for (int fn = 0; fn < LAB_NFNS; fn++)
        for (int var = 0; var < LAB_NVARS; var++) {
            CHECK_OK(ctx, lab_float_fn_rate(ctx, fn, var, 1 << 14, 8, 3, &ms, &r));
            CHECK(ms > 0 && r > 0, "%s %s: %g ms", lab_float_fn_name(fn), lab_float_var_name(var), ms);
        }
    CHECK_OK(ctx, lab_float_fma_rate(ctx, 0, 264, 2048, 5, &ms, &r32));
    CHECK_OK(ctx, lab_float_fma_rate(ctx, 1, 264, 2048, 5, &ms, &r64));
    printf("FMA: fp32 %.3g GFLOP/s, fp64 %.3g GFLOP/s\n", r32 * 1e-9, r64 * 1e-9);
    CHECK(r32 > 0 && r64 > 0, "fp64 %g, fp32 %g FLOP/s", r64, r32);
    if (!t_small) CHECK(r64 <= r32 * 1.1, "fp64 %g faster than fp32 %g FLOP/s", r64, r32); /* not timed under a sanitizer */
}

int main(int argc, char **argv)
{
    cupat_ctx *ctx = test_init(argc, argv);
    check_decoder();
    check_rounding_ref();
    check_ulps();
    check_sums(ctx);
    check_bad(ctx);
    if (t_backend == CUPAT_BACKEND_CUDA) {
        check_round_gpu(ctx);
        check_fn_gpu(ctx);
        check_rates(ctx);
    }
    return test_finish(ctx);
}
