/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_lab_float.c — `cupat lab float`: parse, run the floating-point lab's
 * experiments (lab/float), print them as tables beside the lecture's
 * figures. encode and classes are host-only; sum runs on either backend
 * (--backend cpu: the reduce rows are the OpenMP rungs); rounding,
 * intrinsics and fp64 need a GPU. A GPU result that differs from the host
 * reference (rounding), a precise function past its documented bound, or a
 * lecture example that does not decode exits 1. --json FILE also writes
 * every row as JSON. */
#include "cli.h"
#include "commands.h"

#include "float/float.h"
#include "harness.h"
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char CMD[] = "cupat lab float";

enum { EXP_ENCODE, EXP_CLASSES, EXP_ROUNDING, EXP_INTRINSICS, EXP_FP64, EXP_SUM, NEXP };
static const char *const exp_names[NEXP] = {"encode", "classes", "rounding", "intrinsics", "fp64", "sum"};
static const int exp_gpu[NEXP] = {0, 0, 1, 1, 1, 0};
static const char *const exp_help[NEXP] = {
    "IEEE 754 encodings of the lecture's examples (-0.75, 15213.0, a decode, -1.625)",
    "the classes decoded: +-0, denormals, normals, +-inf, quiet / signalling NaN",
    "__fadd/__fmul/__fdiv/__fmaf/__frcp/__fsqrt in rn, rz, ru, rd against the exact result",
    "expf, sinf, logf, x / y, sqrtf: precise vs intrinsic vs --use_fast_math, speed and ulps",
    "FP64 against FP32 FMA throughput",
    "summation order: unsorted, presorted, pairwise, Kahan, cupat_reduce (default, compensated)",
};

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: cupat lab float [EXPERIMENT...] [options]\n"
            "\n"
            "Floating point (lecture \"Advanced Techniques\": Floating Point, FP Support in\n"
            "CUDA; CUDA Guide 8.4.1). EXPERIMENT (default all):\n");
    for (int e = 0; e < NEXP; e++) fprintf(f, "  %-11s %s%s\n", exp_names[e], exp_help[e], exp_gpu[e] ? " (GPU)" : "");
    fprintf(f,
            "\n"
            "Options:\n"
            "  --decode HEX     decode one binary32 (e.g. 0xBF400000) and stop\n"
            "  --bits STRING    decode 32 binary digits (spaces allowed) and stop\n"
            "  --encode VALUE   encode one decimal value as binary32 and binary64 and stop\n"
            "  --n N            inputs of the ulp histograms and the sums (default 2^20)\n"
            "  --reps N         timed launches a rate, the median reported (default 7)\n"
            "  --backend B      sum: auto|cpu|cuda (default auto)\n"
            "  --json FILE      also write every row as JSON\n"
            "  --device N       CUDA device\n"
            "  -h, --help       this text\n");
}

/* --------------------------------------------------------------- encode -- */

static void print_bits(const char *label, uint32_t u)
{
    char b[40], e[160];
    printf("  %-34s %s  %08X  %s\n", label, lab_float_bit_string(u, b), u, lab_float_explain(u, e, sizeof e));
}

static int exp_encode(cli_json *J)
{
    int bad = 0;
    printf("encode: binary32 = sign | 8-bit exponent (bias 127) | 23-bit fraction (hidden 1);\n"
           "  binary64: 11-bit exponent (bias 1023), 52-bit fraction (lecture \"IEEE 754\")\n");
    for (int i = 0; lab_float_example_get(i); i++) {
        const lab_float_example *x = lab_float_example_get(i);
        const int ok = (double)lab_float_from_bits(x->bits) == x->value;
        bad += !ok;
        printf("  %s  (lecture: %s)  %s\n", x->what, x->lecture, ok ? "OK" : "MISMATCH");
        char hex[16];
        snprintf(hex, sizeof hex, "%08X", x->bits);
        cli_json_row(J);
        cli_json_str(J, "what", x->what);
        cli_json_str(J, "lecture", x->lecture);
        cli_json_num(J, "value", x->value);
        cli_json_str(J, "binary32", hex);
        cli_json_str(J, "check", ok ? "ok" : "MISMATCH");
        cli_json_end_row(J);
        print_bits("", x->bits);
        char d[200];
        printf("  %-34s binary64 %016llX  %s\n", "", (unsigned long long)lab_double_bits(x->value),
               lab_double_explain(lab_double_bits(x->value), d, sizeof d));
        if (x->note) {
            uint32_t u;
            char why[96], first[33];
            if (lab_float_parse_bits(LAB_FLOAT_LECTURE_M1625, &u, why, sizeof why)) printf("    slide's string: %s\n", why);
            memcpy(first, LAB_FLOAT_LECTURE_M1625, 32);
            first[32] = 0;
            if (!lab_float_parse_bits(first, &u, why, sizeof why)) print_bits("    its first 32 digits:", u);
            printf("    note: %s\n", x->note);
        }
    }
    printf("\n");
    return bad;
}

static int exp_classes(cli_json *J)
{
    printf("classes: exponent field all zeros = zero or denormal (E = 1 - bias, no hidden 1);\n"
           "  all ones = infinity (fraction 0) or NaN (fraction != 0; top fraction bit 1: quiet)\n");
    printf("  %-34s %-34s  %-8s  %-14s %s\n", "value", "bits", "hex", "class", "decoded");
    for (int i = 0; lab_float_sample_get(i); i++) {
        const lab_float_sample *s = lab_float_sample_get(i);
        lab_fp_fields f;
        char b[40], e[160];
        lab_float_fields32(s->bits, &f);
        printf("  %-34s %s  %08X  %-14s %s\n", s->what, lab_float_bit_string(s->bits, b), s->bits,
               lab_float_class_name(f.cls), lab_float_explain(s->bits, e, sizeof e));
        snprintf(b, sizeof b, "%08X", s->bits);
        cli_json_row(J);
        cli_json_str(J, "what", s->what);
        cli_json_str(J, "binary32", b);
        cli_json_str(J, "class", lab_float_class_name(f.cls));
        cli_json_str(J, "decoded", e);
        cli_json_end_row(J);
    }
    printf("\n");
    return 0;
}

/* ------------------------------------------------------------- rounding -- */

static int same_bits(float a, float b)
{
    return lab_float_bits(a) == lab_float_bits(b) || (isnan(a) && isnan(b));
}

static void json_round_demo(cli_json *J, const char *op, const char *what, const float o[LAB_NMODES], int ok)
{
    static const char *const modes[LAB_NMODES] = {"rn", "rz", "ru", "rd"};
    char hx[40];
    cli_json_row(J);
    cli_json_str(J, "op", op);
    cli_json_str(J, "operands", what);
    for (int m = 0; m < LAB_NMODES; m++) {
        snprintf(hx, sizeof hx, "%a", (double)o[m]);
        cli_json_str(J, modes[m], hx);
    }
    cli_json_str(J, "check", ok ? "ok" : "MISMATCH");
    cli_json_end_row(J);
}

static int exp_rounding(cupat_ctx *ctx, size_t n, cli_json *J)
{
    static const struct {
        int op;
        float a, b, c;
        const char *what;
    } demo[] = {
        {LAB_OP_ADD, 1.0f, 0x1p-24f, 0, "1 + 2^-24: a tie (half an ulp)"},
        {LAB_OP_ADD, 1.0f, 0x1.8p-24f, 0, "1 + 0.75 ulp"},
        {LAB_OP_ADD, -1.0f, -0x1p-60f, 0, "-1 - 2^-60"},
        {LAB_OP_ADD, 1.0f, -1.0f, 0, "1 - 1: the sign of an exact zero"},
        {LAB_OP_MUL, 0x1p-100f, 0x1p-60f, 0, "2^-160: below the smallest denormal"},
        {LAB_OP_MUL, 3.4e38f, 2.0f, 0, "overflow"},
        {LAB_OP_DIV, 1.0f, 3.0f, 0, "1 / 3"},
        {LAB_OP_DIV, -2.0f, 3.0f, 0, "-2 / 3"},
        {LAB_OP_FMA, 1.0f + 0x1p-23f, 1.0f - 0x1p-23f, -1.0f, "(1+u)(1-u) - 1 = -u^2, exact in one FMA"},
        {LAB_OP_RCP, 3.0f, 0, 0, "1 / 3"},
        {LAB_OP_SQRT, 2.0f, 0, 0, "sqrt(2)"},
    };
    const size_t nd = sizeof demo / sizeof demo[0];
    int bad = 0;
    printf("rounding: the intrinsics __fadd_r?, __fmul_r?, __fdiv_r?, __fmaf_r?, __frcp_r?, __fsqrt_r? with\n"
           "  r? = rn (nearest, ties to even), rz (toward 0), ru (toward +inf), rd (toward -inf); the host\n"
           "  reference rounds the exact result (double plus its exact error term)\n");
    printf("  %-8s %-40s %-16s %-16s %-16s %-16s %s\n", "op", "operands", "rn", "rz", "ru", "rd", "check");
    for (size_t k = 0; k < nd; k++) {
        float o[4] = {NAN, NAN, NAN, NAN};
        const float a = demo[k].a, b = demo[k].b, c = demo[k].c;
        if (lab_float_round_gpu(ctx, demo[k].op, &a, &b, &c, 1, o)) {
            fprintf(stderr, "%s: rounding: %s\n", CMD, cupat_last_error(ctx));
            return -1;
        }
        int ok = 1;
        printf("  %-8s %-40s", lab_float_op_name(demo[k].op), demo[k].what);
        for (int m = 0; m < LAB_NMODES; m++) {
            ok &= same_bits(o[m], lab_float_round_ref(demo[k].op, m, a, b, c));
            printf(" %-16a", (double)o[m]);
        }
        printf(" %s\n", ok ? "OK" : "MISMATCH");
        json_round_demo(J, lab_float_op_name(demo[k].op), demo[k].what, o, ok);
        bad += !ok;
    }
    float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c), *o = malloc(4 * n * sizeof *o);
    if (!a || !b || !c || !o) {
        fprintf(stderr, "%s: out of host memory\n", CMD);
        free(a), free(b), free(c), free(o);
        return -1;
    }
    printf("  random inputs (%zu per op: normals over 120 binades, denormals, exact cases, ties):\n", n);
    printf("  %-8s %12s %12s %12s  %s\n", "op", "results", "inexact", "differ", "check");
    for (int op = 0; op < LAB_NOPS && bad >= 0; op++) {
        lab_float_round_inputs(op, 17, a, b, c, n);
        if (lab_float_round_gpu(ctx, op, a, b, c, n, o)) {
            fprintf(stderr, "%s: rounding: %s\n", CMD, cupat_last_error(ctx));
            bad = -1;
            break;
        }
        size_t differ = 0, inexact = 0;
        for (size_t i = 0; i < n; i++) {
            for (int m = 0; m < LAB_NMODES; m++) differ += !same_bits(o[4 * i + m], lab_float_round_ref(op, m, a[i], b[i], c[i]));
            inexact += !same_bits(o[4 * i + LAB_RU], o[4 * i + LAB_RD]);
        }
        printf("  %-8s %12zu %12zu %12zu  %s\n", lab_float_op_name(op), 4 * n, inexact, differ, differ ? "MISMATCH" : "OK");
        cli_json_row(J);
        cli_json_str(J, "op", lab_float_op_name(op));
        cli_json_str(J, "operands", "random");
        cli_json_num(J, "results", (double)(4 * n));
        cli_json_num(J, "inexact", (double)inexact);
        cli_json_num(J, "differ", (double)differ);
        cli_json_str(J, "check", differ ? "MISMATCH" : "ok");
        cli_json_end_row(J);
        bad += differ != 0;
    }
    printf("\n");
    free(a), free(b), free(c), free(o);
    return bad;
}

/* ----------------------------------------------------------- intrinsics -- */

static int exp_intrinsics(cupat_ctx *ctx, size_t n, int reps, cli_json *J)
{
    /* The CUDA Guide's bounds for the precise forms (math appendix), set 0. */
    static const double bound[LAB_NFNS] = {2, 2, 1, 0.5, 0.5};
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *g = malloc(n * sizeof *g);
    if (!x || !y || !g) {
        fprintf(stderr, "%s: out of host memory\n", CMD);
        free(x), free(y), free(g);
        return -1;
    }
    int bad = 0;
    const size_t rn = (size_t)1 << 22;
    const int iters = 32;
    printf("intrinsics: the precise function, its intrinsic, and the precise source compiled with\n"
           "  --use_fast_math (-ftz=true -prec-div=false -prec-sqrt=false) in its own object; speed: %zu threads\n"
           "  x %d evaluations, median of %d; error: %% of %zu inputs by ulps against the correctly rounded\n"
           "  result (host double), and the largest error\n",
           rn, iters, reps, n);
    printf("  %-5s %-26s %9s  %-38s", "fn", "code", "Geval/s", "inputs");
    for (int k = 0; k < LAB_ULP_NBUCKETS; k++) printf(" %7s", lab_float_bucket_name(k));
    printf(" %10s  %s\n", "max ulp", "at x");
    for (int fn = 0; fn < LAB_NFNS && bad >= 0; fn++)
        for (int var = 0; var < LAB_NVARS && bad >= 0; var++) {
            double ms = 0, per_s = 0;
            if (lab_float_fn_rate(ctx, fn, var, rn, iters, reps, &ms, &per_s)) {
                fprintf(stderr, "%s: intrinsics: %s\n", CMD, cupat_last_error(ctx));
                bad = -1;
                break;
            }
            for (int set = 0; set < LAB_FLOAT_NSETS; set++) {
                const char *sname = lab_float_fn_inputs(fn, set, 9, x, y, n);
                if (lab_float_fn_gpu(ctx, fn, var, x, y, n, g)) {
                    fprintf(stderr, "%s: intrinsics: %s\n", CMD, cupat_last_error(ctx));
                    bad = -1;
                    break;
                }
                lab_ulp_hist h;
                lab_float_ulp_hist(fn, x, fn == LAB_FN_DIV ? y : NULL, g, n, &h);
                if (set == 0) printf("  %-5s %-26s %9.2f  %-38s", lab_float_fn_name(fn), lab_float_var_code(fn, var), per_s * 1e-9, sname);
                else printf("  %-5s %-26s %9s  %-38s", "", "", "", sname);
                for (int k = 0; k < LAB_ULP_NBUCKETS; k++) printf(" %6.2f%%", 100.0 * (double)h.count[k] / (double)n);
                printf(" %10.3g  %a", h.max_ulp, (double)h.max_x);
                const int check = var == LAB_VAR_PRECISE && (set == 0 || fn >= LAB_FN_DIV);
                const int past = check && h.max_ulp > bound[fn] + 1e-6;
                if (past) {
                    printf("  PAST THE GUIDE'S %g ULP", bound[fn]);
                    bad++;
                }
                char at[40];
                snprintf(at, sizeof at, "%a", (double)h.max_x);
                cli_json_row(J);
                cli_json_str(J, "fn", lab_float_fn_name(fn));
                cli_json_str(J, "code", lab_float_var_code(fn, var));
                cli_json_num(J, "geval_s", per_s * 1e-9);
                cli_json_num(J, "ms", ms);
                cli_json_str(J, "inputs", sname);
                for (int k = 0; k < LAB_ULP_NBUCKETS; k++)
                    cli_json_num(J, lab_float_bucket_name(k), 100.0 * (double)h.count[k] / (double)n);
                cli_json_num(J, "max_ulp", h.max_ulp);
                cli_json_str(J, "at_x", at);
                cli_json_str(J, "check", !check ? "-" : past ? "PAST THE GUIDE'S BOUND" : "ok");
                cli_json_end_row(J);
                printf("\n");
            }
        }
    printf("  (Guide bounds, precise: expf 2, sinf 2, logf 1 ulp; x / y and sqrtf correctly rounded. __fdividef\n"
           "  returns 0 for 2^126 < |y| < 2^128; -ftz flushes denormal inputs and results to 0.)\n\n");
    free(x), free(y), free(g);
    return bad;
}

/* ----------------------------------------------------------------- fp64 -- */

static int exp_fp64(cupat_ctx *ctx, int reps, cli_json *J)
{
    const unsigned blocks = 8u * (unsigned)(ctx->sm_count > 0 ? ctx->sm_count : 1);
    const int iters = 4096;
    double ms32, f32, ms64, f64;
    if (lab_float_fma_rate(ctx, 0, blocks, iters, reps, &ms32, &f32) ||
        lab_float_fma_rate(ctx, 1, blocks, iters, reps, &ms64, &f64)) {
        fprintf(stderr, "%s: fp64: %s\n", CMD, cupat_last_error(ctx));
        return -1;
    }
    printf("fp64: %u blocks x 256 threads, 8 independent FMA chains a thread, %d steps (2 FLOP a FMA)\n", blocks, iters);
    printf("  %-6s %10s %12s\n", "type", "ms", "GFLOP/s");
    printf("  %-6s %10.4f %12.1f\n", "fp32", ms32, f32 * 1e-9);
    printf("  %-6s %10.4f %12.1f\n", "fp64", ms64, f64 * 1e-9);
    for (int k = 0; k < 2; k++) {
        cli_json_row(J);
        cli_json_str(J, "type", k ? "fp64" : "fp32");
        cli_json_num(J, "ms", k ? ms64 : ms32);
        cli_json_num(J, "gflop_s", (k ? f64 : f32) * 1e-9);
        cli_json_num(J, "blocks", blocks);
        cli_json_num(J, "steps", iters);
        cli_json_end_row(J);
    }
    printf("  fp64 / fp32 = 1 : %.2f (CUDA Guide 8.4.1 throughput table, cc 9.0: 64 FP64 vs 128 FP32 results\n"
           "  a clock an SM, 1 : 2)\n\n",
           f64 > 0 ? f32 / f64 : 0.0);
    return 0;
}

/* ------------------------------------------------------------------ sum -- */

static int exp_sum(cupat_ctx *ctx, size_t n, cli_json *J)
{
    float *x = malloc(n * sizeof *x);
    if (!x) {
        fprintf(stderr, "%s: out of host memory\n", CMD);
        return -1;
    }
    printf("sum: %zu floats in float, each order against the exact sum (long double, compensated); the\n"
           "  lecture: \"presort data before a reduction\"; cupat_reduce on the %s backend\n",
           n, ctx ? cupat_backend_name(cupat_get_backend(ctx)) : "(none)");
    int r = 0;
    for (int set = 0; set < LAB_SUM_NSETS && !r; set++) {
        const char *name = lab_float_sum_inputs(set, 5, x, n);
        const double exact = lab_float_sum_exact(x, n);
        float sums[LAB_NSUMS];
        if (lab_float_sum_all(ctx, x, n, sums)) {
            fprintf(stderr, "%s: sum: %s\n", CMD, cupat_last_error(ctx));
            r = -1;
            break;
        }
        printf("  %s: exact %.17g\n", name, exact);
        printf("  %-32s %18s %14s %12s\n", "order", "float sum", "error (ulps)", "relative");
        for (int k = 0; k < LAB_NSUMS; k++) {
            printf("  %-32s %18.9g %14.4g %12.3g\n", lab_float_sum_name(k), (double)sums[k],
                   lab_float_ulp_error(sums[k], exact), fabs((double)sums[k] - exact) / fabs(exact));
            cli_json_row(J);
            cli_json_str(J, "inputs", name);
            cli_json_num(J, "n", (double)n);
            cli_json_num(J, "exact", exact);
            cli_json_str(J, "order", lab_float_sum_name(k));
            cli_json_num(J, "sum", (double)sums[k]);
            cli_json_num(J, "error_ulps", lab_float_ulp_error(sums[k], exact));
            cli_json_num(J, "relative", fabs((double)sums[k] - exact) / fabs(exact));
            cli_json_end_row(J);
        }
    }
    printf("\n");
    free(x);
    return r;
}

/* ------------------------------------------------------------- command -- */

static int decode_one(uint32_t u)
{
    char b[40], e[160];
    lab_fp_fields f;
    lab_float_fields32(u, &f);
    printf("%s  %08X  %s: sign %u, exponent field %u (E = %d), fraction 0x%06llX\n  %s\n", lab_float_bit_string(u, b),
           u, lab_float_class_name(f.cls), f.sign, f.exp_field, f.E, (unsigned long long)f.frac,
           lab_float_explain(u, e, sizeof e));
    return 0;
}

int cmd_lab_float(int argc, char **argv)
{
    int want[NEXP] = {0};
    long device = -1, reps = 7;
    size_t n = (size_t)1 << 20;
    cupat_backend backend = CUPAT_BACKEND_AUTO;
    const char *json = NULL;
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        int r;
        if (cli_is_help(argv[i])) {
            usage(stdout);
            return 0;
        }
        if ((r = cli_backend_opt(argc, argv, &i, CMD, &backend, &device)) != 0) {
            if (r == 2) return 2;
            continue;
        }
        if ((r = cli_lab_opt(argc, argv, &i, CMD, NULL, &reps, &json)) != 0) {
            if (r < 0) return 2;
            continue;
        }
        if ((r = cli_opt(argc, argv, &i, "--n", &v, CMD)) != 0) {
            long nn;
            if (r < 0 || cli_parse_int(CMD, "--n", v, 1, 1L << 26, &nn)) return 2;
            n = (size_t)nn;
            continue;
        }
        if ((r = cli_opt(argc, argv, &i, "--decode", &v, CMD)) != 0) {
            char *end;
            unsigned long long u = r < 0 ? 0 : strtoull(v, &end, 16);
            if (r < 0 || *end || u > 0xFFFFFFFFull) {
                if (r > 0) fprintf(stderr, "%s: --decode %s: not a 32-bit hex number\n", CMD, v);
                return 2;
            }
            return decode_one((uint32_t)u);
        }
        if ((r = cli_opt(argc, argv, &i, "--bits", &v, CMD)) != 0) {
            uint32_t u;
            char why[96];
            if (r < 0) return 2;
            if (lab_float_parse_bits(v, &u, why, sizeof why)) {
                fprintf(stderr, "%s: --bits: %s\n", CMD, why);
                return 2;
            }
            return decode_one(u);
        }
        if ((r = cli_opt(argc, argv, &i, "--encode", &v, CMD)) != 0) {
            char *end, d[200];
            const double x = r < 0 ? 0 : strtod(v, &end);
            if (r < 0 || *end || end == v) {
                if (r > 0) fprintf(stderr, "%s: --encode %s: not a number\n", CMD, v);
                return 2;
            }
            decode_one(lab_float_bits((float)x));
            printf("binary64 %016llX  %s\n", (unsigned long long)lab_double_bits(x),
                   lab_double_explain(lab_double_bits(x), d, sizeof d));
            return 0;
        }
        if (argv[i][0] != '-') {
            if (cli_pick(CMD, argv[i], exp_names, NEXP, want)) return 2;
        } else {
            return cli_unknown(CMD, argv[i]);
        }
    }
    cli_pick_all(want, NEXP);
    int need_gpu = 0;
    for (int e = 0; e < NEXP; e++) need_gpu |= want[e] && exp_gpu[e];
    const char *why = cli_no_cuda_reason();
    if (backend == CUPAT_BACKEND_CPU && need_gpu) {
        fprintf(stderr, "%s: rounding, intrinsics and fp64 run on the GPU; --backend cpu is for 'sum'\n", CMD);
        return 2;
    }
    cupat_ctx *ctx = NULL;
    if (want[EXP_SUM] || (need_gpu && !why)) {
        cupat_backend b = need_gpu && !why ? CUPAT_BACKEND_CUDA : backend;
        if (b == CUPAT_BACKEND_CUDA && why) {
            fprintf(stderr, "%s: --backend cuda: %s\n", CMD, why);
            return 1;
        }
        if (!(ctx = cli_context(b, (int)device))) return 1;
    }
    char dev[320] = "(none: host only)", date[32] = "", commit[64] = "";
    if (ctx) bench_describe(ctx, dev, sizeof dev, date, sizeof date, commit, sizeof commit);
    cli_json J;
    if (cli_json_open(&J, CMD, json, "float", dev, date, commit, (int)reps)) {
        if (ctx) cupat_destroy(ctx);
        return 1;
    }
    if (ctx) printf("cupat lab float\ndevice: %s\ndate:   %s\ncommit: %s\n\n", dev, date, commit);
    int bad = 0, r = 0, skipped = 0;
    if (want[EXP_ENCODE]) {
        cli_json_exp(&J, "encode");
        bad += exp_encode(&J);
        cli_json_end_exp(&J);
    }
    if (want[EXP_CLASSES]) {
        cli_json_exp(&J, "classes");
        bad += exp_classes(&J);
        cli_json_end_exp(&J);
    }
    for (int e = EXP_ROUNDING; e <= EXP_FP64 && r >= 0; e++) {
        if (!want[e]) continue;
        if (why) {
            fprintf(stderr, "%s: %s needs a GPU: %s\n", CMD, exp_names[e], why);
            skipped = 1;
            continue;
        }
        cli_json_exp(&J, exp_names[e]);
        if (e == EXP_ROUNDING) r = exp_rounding(ctx, n < 100000 ? n : 100000, &J);
        if (e == EXP_INTRINSICS) r = exp_intrinsics(ctx, n, (int)reps, &J);
        if (e == EXP_FP64) r = exp_fp64(ctx, (int)reps, &J);
        cli_json_end_exp(&J);
        bad += r > 0 ? r : 0;
    }
    if (want[EXP_SUM] && r >= 0) {
        cli_json_exp(&J, "sum");
        r = exp_sum(ctx, n, &J);
        cli_json_end_exp(&J);
    }
    if (r >= 0)
        printf("%s\n", bad       ? "float lab: WRONG results in some rows"
                       : skipped ? "float lab: host checks OK; the GPU experiments were skipped (no GPU)"
                                 : "float lab: every check OK");
    if (cli_json_close(&J, CMD, json)) r = -1;
    if (ctx) cupat_destroy(ctx);
    return r < 0 || bad || skipped ? 1 : 0;
}
