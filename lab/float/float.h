/* SPDX-License-Identifier: Apache-2.0 */
/* float.h — the floating-point lab (`cupat lab float`): the lecture's IEEE
 * 754 slides ("Advanced Techniques": Floating Point, FP Support in CUDA) and
 * the CUDA Guide's 8.4.1 (intrinsics, -ftz / -prec-div / -prec-sqrt).
 *   - an IEEE 754 encoder / decoder (binary32 and binary64) that reproduces
 *     the lecture's worked examples and decodes every class (±0, denormals,
 *     normals, ±inf, quiet / signalling NaN);
 *   - the four rounding-mode intrinsics (__fadd_rn/rz/ru/rd, __fmul_*,
 *     __fdiv_*, __fmaf_*, __frcp_*, __fsqrt_*) on the GPU against a host
 *     reference that rounds the exact result (no fesetround needed);
 *   - precise functions against the fast intrinsics and against the same
 *     source compiled with --use_fast_math (float_fast.cu): speed, and the
 *     error as a histogram of ulps against a correctly rounded reference;
 *   - FP64 against FP32 FMA throughput;
 *   - summation order: unsorted, sorted by magnitude, Kahan, pairwise, and
 *     cupat_reduce's default and compensated rungs, against the exact sum.
 * Not library API: linked into the CLI and the tests (lab/CMakeLists.txt).
 * The host parts run anywhere; the GPU parts need the CUDA backend
 * (CUPAT_ERROR_NOT_SUPPORTED on the CPU) and check their arguments first. */
#ifndef CUPAT_LAB_FLOAT_H
#define CUPAT_LAB_FLOAT_H

#include "cupat.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------ encoder and decoder -- */

enum { LAB_FP_ZERO, LAB_FP_DENORMAL, LAB_FP_NORMAL, LAB_FP_INF, LAB_FP_QNAN, LAB_FP_SNAN, LAB_FP_NCLASSES };
const char *lab_float_class_name(int cls); /* "zero", "denormal", ...; NULL past the end */

typedef struct lab_fp_fields {
    int bits;           /* 32 or 64 */
    unsigned sign;      /* 0 or 1 */
    unsigned exp_field; /* the stored (biased) exponent */
    uint64_t frac;      /* the stored fraction (23 or 52 bits) */
    int bias;           /* 127 or 1023 */
    int E;              /* the real exponent: exp - bias, or 1 - bias for denormals */
    int cls;            /* LAB_FP_* */
} lab_fp_fields;

void lab_float_fields32(uint32_t bits, lab_fp_fields *f);
void lab_float_fields64(uint64_t bits, lab_fp_fields *f);
/* Bits and value in both directions (memcpy; no aliasing tricks). */
uint32_t lab_float_bits(float x);
float lab_float_from_bits(uint32_t u);
uint64_t lab_double_bits(double x);

/* "s eeeeeeee fffffffffffffffffffffff" (34 characters + NUL; buf >= 35). */
char *lab_float_bit_string(uint32_t bits, char *buf);
/* Parse 32 binary digits (spaces, '_' and '|' between them are ignored) into
 * *bits. 0, or -1 with the reason in why (e.g. "34 binary digits, not 32"). */
int lab_float_parse_bits(const char *s, uint32_t *bits, char *why, size_t whylen);
/* One line: "(-1)^1 x 1.1000...b x 2^(126 - 127) = -0.75" for normals, the
 * denormal form "0.f x 2^(1 - 127)", or the special value's name. */
char *lab_float_explain(uint32_t bits, char *buf, size_t len);
char *lab_double_explain(uint64_t bits, char *buf, size_t len);

/* The lecture's worked examples, as data the lab prints and the tests hold. */
typedef struct lab_float_example {
    const char *what;     /* "encode -0.75" */
    const char *lecture;  /* what the slide prints */
    uint32_t bits;        /* the right encoding */
    double value;         /* its value */
    const char *note;     /* NULL, or where the slide is wrong */
} lab_float_example;
const lab_float_example *lab_float_example_get(int i); /* NULL past the end */
/* The slide's 34-digit string for -1.625, as printed. */
#define LAB_FLOAT_LECTURE_M1625 "1001111110101000000000000000000000"

/* The classes, one sample each (binary32), for the table. */
typedef struct lab_float_sample {
    const char *what;
    uint32_t bits;
} lab_float_sample;
const lab_float_sample *lab_float_sample_get(int i); /* NULL past the end */

/* ------------------------------------------- rounding-mode intrinsics -- */

enum { LAB_RN, LAB_RZ, LAB_RU, LAB_RD, LAB_NMODES };
enum { LAB_OP_ADD, LAB_OP_MUL, LAB_OP_DIV, LAB_OP_FMA, LAB_OP_RCP, LAB_OP_SQRT, LAB_NOPS };
const char *lab_float_mode_name(int mode); /* "rn", "rz", "ru", "rd" */
const char *lab_float_op_name(int op);     /* "__fadd", "__fmul", ... */
int lab_float_op_arity(int op);            /* 1, 2 or 3 */

/* The exact result of op(a, b, c), rounded to binary32 in `mode` (host, for
 * finite inputs whose exact result is not NaN): the result is computed in
 * double with its exact error term (TwoSum, the FMA residual of a quotient or
 * a square root), and rounded from there. Arguments past the op's arity are
 * ignored. */
float lab_float_round_ref(int op, int mode, float a, float b, float c);
/* Round hi + lo (an exact value; |lo| < ulp(hi), only its sign is used) to
 * binary32 in `mode`. */
float lab_float_round_dd(double hi, double lo, int mode);

/* Inputs for op: n finite triples spread over magnitudes (some of them
 * denormal, some exact cases, some ties), seeded; b != 0 for division, a >= 0
 * for sqrt and a != 0 for rcp. */
void lab_float_round_inputs(int op, uint64_t seed, float *a, float *b, float *c, size_t n);

/* op in each mode on the GPU: out[4 * i + mode]. a, b, c host arrays (b, c
 * may be NULL past the arity), n >= 1. */
cupat_status lab_float_round_gpu(cupat_ctx *ctx, int op, const float *a, const float *b,
                                 const float *c, size_t n, float *out);

/* ------------------------------------------- precise against intrinsic -- */

enum { LAB_FN_EXP, LAB_FN_SIN, LAB_FN_LOG, LAB_FN_DIV, LAB_FN_SQRT, LAB_NFNS };
/* PRECISE: expf / sinf / logf / x / y / sqrtf in the default build (IEEE
 * division and square root, denormals kept); INTRINSIC: __expf / __sinf /
 * __logf / __fdividef / __fsqrt_rn in the same build; FASTMATH: the PRECISE
 * source compiled with --use_fast_math (-ftz=true -prec-div=false
 * -prec-sqrt=false -fmad=true, and expf -> __expf ...). */
enum { LAB_VAR_PRECISE, LAB_VAR_INTRINSIC, LAB_VAR_FASTMATH, LAB_NVARS };
const char *lab_float_fn_name(int fn);           /* "exp", ... */
const char *lab_float_var_code(int fn, int var); /* "expf(x)", "__expf(x)", ... */
const char *lab_float_var_name(int var);         /* "precise", "intrinsic", "--use_fast_math" */

/* The input sets of fn: 0 its usual range, 1 where the fast forms break
 * (large arguments for sin, results or inputs in the denormal range, huge
 * divisors for __fdividef). Fills x (and y for division; NULL otherwise is
 * fine for the other functions), returns the set's name, NULL past the end. */
#define LAB_FLOAT_NSETS 2
const char *lab_float_fn_inputs(int fn, int set, uint64_t seed, float *x, float *y, size_t n);
/* The reference in double (libm's exp, sin, log, sqrt in double and the
 * double quotient): within about 1 ulp of double of the exact value, so its
 * rounding to float is the correctly rounded result except in ties that
 * random inputs do not hit. */
double lab_float_fn_ref(int fn, float x, float y);

/* Error of a binary32 result against a reference value, in ulps of binary32
 * at the reference (the float spacing at |ref|, 2^-149 below 2^-126). NaN
 * against NaN and equal infinities are 0; a NaN or infinity against a
 * finite reference is INFINITY. */
double lab_float_ulp_error(float got, double ref);

/* The histogram's buckets: <= 0.5 ulp (correctly rounded), <= 1, <= 2, <= 4,
 * <= 16, <= 1024, more (flushed denormals, wrong ranges, NaN). */
#define LAB_ULP_NBUCKETS 7
const char *lab_float_bucket_name(int k); /* "<=0.5", ... */
int lab_float_bucket(double ulps);
typedef struct lab_ulp_hist {
    size_t count[LAB_ULP_NBUCKETS];
    size_t n;
    double max_ulp;
    float max_x, max_y; /* the input of the largest error */
    float max_got;
    double max_ref;
} lab_ulp_hist;
/* The histogram of got[i] against lab_float_fn_ref(fn, x[i], y[i]). */
void lab_float_ulp_hist(int fn, const float *x, const float *y, const float *got, size_t n,
                        lab_ulp_hist *h);

/* fn in variant var on the GPU over x (and y), one result each into got
 * (host arrays of n). */
cupat_status lab_float_fn_gpu(cupat_ctx *ctx, int fn, int var, const float *x, const float *y,
                              size_t n, float *got);
/* Throughput of fn in var: n threads, each `iters` evaluations on arguments
 * from x (and y); median ms of `reps` launches after one untimed; *per_s the
 * evaluations a second. */
cupat_status lab_float_fn_rate(cupat_ctx *ctx, int fn, int var, size_t n, int iters, int reps,
                               double *ms, double *per_s);

/* -------------------------------------------------- FP64 against FP32 -- */

/* blocks x 256 threads, 8 independent FMA chains a thread, `iters` steps
 * each: median ms of `reps` launches, the FLOP/s (2 a FMA). double_prec 0:
 * float, 1: double. */
cupat_status lab_float_fma_rate(cupat_ctx *ctx, int double_prec, unsigned blocks, int iters,
                                int reps, double *ms, double *flops_per_s);

/* ----------------------------------------------------- summation order -- */

enum {
    LAB_SUM_NAIVE,      /* left to right in float, as given */
    LAB_SUM_ASCENDING,  /* sorted by |x| ascending first (the lecture's presort) */
    LAB_SUM_DESCENDING, /* sorted by |x| descending first */
    LAB_SUM_PAIRWISE,   /* a balanced tree (the parallel order) */
    LAB_SUM_KAHAN,      /* Kahan's compensated sum in float */
    LAB_SUM_REDUCE,     /* cupat_reduce, the default rung of ctx's backend */
    LAB_SUM_REDUCE_COMP, /* cupat_reduce pinned to "compensated" */
    LAB_NSUMS
};
const char *lab_float_sum_name(int k);
/* Input sets: uniform [0, 1); positive over 40 binades; cancelling
 * (large +/- pairs and small values). Fills x, returns the name. */
#define LAB_SUM_NSETS 3
const char *lab_float_sum_inputs(int set, uint64_t seed, float *x, size_t n);
/* The exact sum, rounded once to double (long double Neumaier accumulation:
 * its error is far below a float ulp for every n this lab uses). */
double lab_float_sum_exact(const float *x, size_t n);
/* The host orders (k < LAB_SUM_REDUCE) of x, n >= 1 (x is not changed). */
float lab_float_sum_host(int k, const float *x, size_t n);
/* Every order: sums[k]; the reduce rows on ctx (either backend; NULL ctx:
 * those two are NaN). */
cupat_status lab_float_sum_all(cupat_ctx *ctx, const float *x, size_t n, float sums[LAB_NSUMS]);

/* ---------------------------------------------------- the kernels (.cu) -- */
cupat_status cupat__lab_float_round(cupat_ctx *ctx, int op, const float *da, const float *db,
                                    const float *dc, size_t n, float *dout);
cupat_status cupat__lab_float_fn(cupat_ctx *ctx, int fn, int var, const float *dx, const float *dy,
                                 size_t n, float *dout);
/* times[r] (host): the ms of launch r + 1 of reps + 1. */
cupat_status cupat__lab_float_fn_rate(cupat_ctx *ctx, int fn, int var, const float *dx, const float *dy,
                                      size_t n, int iters, int reps, float *dsink, float *times);
cupat_status cupat__lab_float_fma(cupat_ctx *ctx, int double_prec, unsigned blocks, int iters, int reps,
                                  void *dsink, float *times);
/* float_fast.cu (--use_fast_math): the PRECISE source under fast math. */
cupat_status cupat__lab_float_fn_fast(cupat_ctx *ctx, int fn, const float *dx, const float *dy, size_t n,
                                      float *dout);
cupat_status cupat__lab_float_fn_rate_fast(cupat_ctx *ctx, int fn, const float *dx, const float *dy,
                                           size_t n, int iters, int reps, float *dsink, float *times);

#ifdef __cplusplus
}
#endif
#endif
