/* SPDX-License-Identifier: Apache-2.0 */
/* float_host.c — the host model of `cupat lab float`: the IEEE 754 encoder /
 * decoder and the lecture's examples, the correctly rounded reference of the
 * rounding-mode intrinsics, the inputs, ulp errors and histograms, and the
 * summation orders. Plain C: the tests check all of it without a GPU. */
#include "float/float.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------ encoder and decoder -- */

static const char *const class_names[LAB_FP_NCLASSES] = {
    [LAB_FP_ZERO] = "zero",         [LAB_FP_DENORMAL] = "denormal", [LAB_FP_NORMAL] = "normal",
    [LAB_FP_INF] = "infinity",      [LAB_FP_QNAN] = "quiet NaN",    [LAB_FP_SNAN] = "signalling NaN",
};

const char *lab_float_class_name(int cls)
{
    return cls >= 0 && cls < LAB_FP_NCLASSES ? class_names[cls] : NULL;
}

uint32_t lab_float_bits(float x)
{
    uint32_t u;
    memcpy(&u, &x, 4);
    return u;
}

float lab_float_from_bits(uint32_t u)
{
    float x;
    memcpy(&x, &u, 4);
    return x;
}

uint64_t lab_double_bits(double x)
{
    uint64_t u;
    memcpy(&u, &x, 8);
    return u;
}

/* One decoder for both widths: ebits exponent bits, mbits fraction bits. */
static void fields(uint64_t bits, int ebits, int mbits, lab_fp_fields *f)
{
    const unsigned emax = (1u << ebits) - 1;
    f->bits = 1 + ebits + mbits;
    f->sign = (unsigned)(bits >> (ebits + mbits)) & 1u;
    f->exp_field = (unsigned)(bits >> mbits) & emax;
    f->frac = bits & ((UINT64_C(1) << mbits) - 1);
    f->bias = (int)(emax >> 1);
    if (f->exp_field == 0) {
        f->cls = f->frac ? LAB_FP_DENORMAL : LAB_FP_ZERO;
        f->E = 1 - f->bias; /* not 0 - bias: the lecture's denormalized encoding */
    } else if (f->exp_field == emax) {
        f->cls = !f->frac ? LAB_FP_INF : (f->frac >> (mbits - 1)) ? LAB_FP_QNAN : LAB_FP_SNAN;
        f->E = 0;
    } else {
        f->cls = LAB_FP_NORMAL;
        f->E = (int)f->exp_field - f->bias;
    }
}

void lab_float_fields32(uint32_t bits, lab_fp_fields *f)
{
    fields(bits, 8, 23, f);
}

void lab_float_fields64(uint64_t bits, lab_fp_fields *f)
{
    fields(bits, 11, 52, f);
}

char *lab_float_bit_string(uint32_t bits, char *buf)
{
    char *p = buf;
    for (int i = 31; i >= 0; i--) {
        *p++ = (char)('0' + ((bits >> i) & 1u));
        if (i == 31 || i == 23) *p++ = ' ';
    }
    *p = 0;
    return buf;
}

int lab_float_parse_bits(const char *s, uint32_t *bits, char *why, size_t whylen)
{
    uint64_t v = 0;
    size_t digits = 0;
    for (const char *p = s; *p; p++) {
        if (*p == '0' || *p == '1') {
            if (digits < 64) v = (v << 1) | (uint64_t)(*p - '0');
            digits++;
        } else if (*p != ' ' && *p != '_' && *p != '|') {
            snprintf(why, whylen, "'%c' is not a binary digit", *p);
            return -1;
        }
    }
    if (digits != 32) {
        snprintf(why, whylen, "%zu binary digits, not 32", digits);
        return -1;
    }
    *bits = (uint32_t)v;
    return 0;
}

/* The fraction's leading binary digits, trailing zeros cut ("1011"). */
static void frac_digits(uint64_t frac, int mbits, char *out, size_t len)
{
    int last = -1;
    for (int i = 0; i < mbits; i++)
        if ((frac >> (mbits - 1 - i)) & 1u) last = i;
    size_t k = 0;
    for (int i = 0; i <= last && k + 1 < len; i++) out[k++] = (char)('0' + ((frac >> (mbits - 1 - i)) & 1u));
    if (k == 0 && len > 1) out[k++] = '0';
    out[k] = 0;
}

static char *explain(const lab_fp_fields *f, double value, char *buf, size_t len)
{
    const int mbits = f->bits == 32 ? 23 : 52;
    char fd[64];
    frac_digits(f->frac, mbits, fd, sizeof fd);
    switch (f->cls) {
    case LAB_FP_ZERO: snprintf(buf, len, "%s0 (exponent and fraction all zeros)", f->sign ? "-" : "+"); break;
    case LAB_FP_INF: snprintf(buf, len, "%sinf (exponent all ones, fraction zero)", f->sign ? "-" : "+"); break;
    case LAB_FP_QNAN:
    case LAB_FP_SNAN:
        snprintf(buf, len, "%s (exponent all ones, fraction %s0: %s)", class_names[f->cls],
                 f->cls == LAB_FP_QNAN ? "top bit 1, " : "top bit 0, not ", "no numeric value");
        break;
    case LAB_FP_DENORMAL:
        snprintf(buf, len, "(-1)^%u x 0.%sb x 2^(1 - %d) = %.9g (no hidden 1)", f->sign, fd, f->bias, value);
        break;
    default:
        snprintf(buf, len, "(-1)^%u x 1.%sb x 2^(%u - %d) = %.*g", f->sign, fd, f->exp_field, f->bias,
                 f->bits == 32 ? 9 : 17, value);
    }
    return buf;
}

char *lab_float_explain(uint32_t bits, char *buf, size_t len)
{
    lab_fp_fields f;
    lab_float_fields32(bits, &f);
    return explain(&f, (double)lab_float_from_bits(bits), buf, len);
}

char *lab_double_explain(uint64_t bits, char *buf, size_t len)
{
    lab_fp_fields f;
    double x;
    memcpy(&x, &bits, 8);
    lab_float_fields64(bits, &f);
    return explain(&f, x, buf, len);
}

static const lab_float_example examples[] = {
    {"encode -0.75", "1 01111110 1000...0 (exponent 126)", 0xBF400000u, -0.75, NULL},
    {"encode 15213.0", "1.1101101101101b x 2^13, exponent 140 = 10001100", 0x466DB400u, 15213.0, NULL},
    {"decode 1 01110110 10110000...0", "(the slide asks; no answer printed)", 0xBB580000u, -0.0032958984375,
     NULL},
    {"decode -1.625", LAB_FLOAT_LECTURE_M1625, 0xBFD00000u, -1.625,
     "the slide's string has 34 digits, not 32 (its first 32 decode to -7.11e-20); -1.625 = "
     "-1.101b x 2^0 is 1 01111111 10100000000000000000000"},
};

const lab_float_example *lab_float_example_get(int i)
{
    return i >= 0 && i < (int)(sizeof examples / sizeof examples[0]) ? &examples[i] : NULL;
}

static const lab_float_sample samples[] = {
    {"+0", 0x00000000u},
    {"-0", 0x80000000u},
    {"smallest denormal 2^-149", 0x00000001u},
    {"largest denormal", 0x007FFFFFu},
    {"smallest normal 2^-126", 0x00800000u},
    {"1.0", 0x3F800000u},
    {"1 + 2^-23 (next after 1)", 0x3F800001u},
    {"largest finite (FLT_MAX)", 0x7F7FFFFFu},
    {"+inf (1.0 / 0.0)", 0x7F800000u},
    {"-inf (1.0 / -0.0)", 0xFF800000u},
    {"quiet NaN (sqrt(-1), inf - inf)", 0x7FC00000u},
    {"signalling NaN", 0x7FA00000u},
};

const lab_float_sample *lab_float_sample_get(int i)
{
    return i >= 0 && i < (int)(sizeof samples / sizeof samples[0]) ? &samples[i] : NULL;
}

/* ------------------------------------------- rounding-mode intrinsics -- */

static const char *const mode_names[LAB_NMODES] = {"rn", "rz", "ru", "rd"};
static const char *const op_names[LAB_NOPS] = {"__fadd", "__fmul", "__fdiv", "__fmaf", "__frcp", "__fsqrt"};
static const int op_arity[LAB_NOPS] = {2, 2, 2, 3, 1, 1};

const char *lab_float_mode_name(int mode)
{
    return mode >= 0 && mode < LAB_NMODES ? mode_names[mode] : NULL;
}

const char *lab_float_op_name(int op)
{
    return op >= 0 && op < LAB_NOPS ? op_names[op] : NULL;
}

int lab_float_op_arity(int op)
{
    return op >= 0 && op < LAB_NOPS ? op_arity[op] : 0;
}

float lab_float_round_dd(double hi, double lo, int mode)
{
    if (isnan(hi)) return NAN;
    const float r = (float)hi; /* hi rounded to nearest */
    if (isinf(r) && !isinf(hi)) { /* overflow of the rounding, not of the value */
        const int neg = hi < 0;
        const double mid = (double)FLT_MAX + 0x1p103; /* halfway to 2^128 */
        switch (mode) {
        case LAB_RZ: return neg ? -FLT_MAX : FLT_MAX;
        case LAB_RU: return neg ? -FLT_MAX : INFINITY;
        case LAB_RD: return neg ? -INFINITY : FLT_MAX;
        default:
            if (fabs(hi) == mid && (neg ? lo > 0 : lo < 0)) return neg ? -FLT_MAX : FLT_MAX;
            return r;
        }
    }
    const double d = hi - (double)r; /* exact: r is hi's neighbour */
    const int sgn = d > 0 ? 1 : d < 0 ? -1 : (lo > 0) - (lo < 0); /* sign of exact - r */
    if (sgn == 0) return r;
    switch (mode) {
    case LAB_RZ:
        if (r == 0) return sgn > 0 ? 0.0f : -0.0f;
        return (sgn > 0) == (r > 0) ? r : nextafterf(r, 0.0f);
    case LAB_RU: return sgn > 0 ? nextafterf(r, INFINITY) : r;
    case LAB_RD: return sgn < 0 ? nextafterf(r, -INFINITY) : r;
    default: {
        if (d == 0) return r; /* |lo| is far below half a float ulp */
        const float nb = nextafterf(r, sgn > 0 ? INFINITY : -INFINITY);
        const double half = ((double)nb - (double)r) / 2; /* exact */
        if (d == half && lo != 0) /* hi a midpoint: lo decides (lo == 0: ties to even, done) */
            return (lo > 0) == (d > 0) ? nb : r;
        return r;
    }
    }
}

/* lo as a sign only: a tiny double of the residual's sign. */
static double sign_of(double r)
{
    return r > 0 ? 0x1p-1060 : r < 0 ? -0x1p-1060 : 0.0;
}

/* The sign of an exact zero sum a + b (IEEE 754 6.3). */
static float zero_sum(double a, double b, int mode)
{
    if (a == 0 && b == 0 && signbit(a) == signbit(b)) return signbit(a) ? -0.0f : 0.0f;
    return mode == LAB_RD ? -0.0f : 0.0f;
}

/* a + b = s + e exactly (Knuth's TwoSum). */
static void two_sum(double a, double b, double *s, double *e)
{
    const double x = a + b, bb = x - a;
    *s = x;
    *e = (a - (x - bb)) + (b - bb);
}

float lab_float_round_ref(int op, int mode, float a, float b, float c)
{
    double hi, lo;
    switch (op) {
    case LAB_OP_ADD:
        two_sum(a, b, &hi, &lo);
        if (hi == 0 && lo == 0) return zero_sum(a, b, mode);
        return lab_float_round_dd(hi, lo, mode);
    case LAB_OP_MUL: return lab_float_round_dd((double)a * (double)b, 0.0, mode); /* 48 bits: exact */
    case LAB_OP_FMA: {
        const double p = (double)a * (double)b;
        two_sum(p, c, &hi, &lo);
        if (hi == 0 && lo == 0) return zero_sum(p, c, mode);
        return lab_float_round_dd(hi, lo, mode);
    }
    case LAB_OP_DIV:
    case LAB_OP_RCP: {
        const double num = op == LAB_OP_DIV ? (double)a : 1.0;
        const double den = op == LAB_OP_DIV ? (double)b : (double)a;
        hi = num / den;
        if (hi == 0 || isinf(hi) || isnan(hi)) return (float)hi;
        const double r = fma(-hi, den, num); /* the quotient's exact residual */
        return lab_float_round_dd(hi, den > 0 ? sign_of(r) : -sign_of(r), mode);
    }
    case LAB_OP_SQRT:
        hi = sqrt((double)a);
        if (hi == 0 || isnan(hi) || isinf(hi)) return (float)hi;
        return lab_float_round_dd(hi, sign_of(fma(-hi, hi, (double)a)), mode); /* exact residual */
    default: return NAN;
    }
}

/* splitmix64: the same inputs on every machine */
static uint64_t mix(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint64_t rnd(uint64_t seed, size_t i, unsigned k)
{
    return mix(seed * 0x100000001B3ull + (uint64_t)i * 8 + k);
}

static double unit(uint64_t seed, size_t i, unsigned k) /* [0, 1) */
{
    return (double)(rnd(seed, i, k) >> 11) * 0x1p-53;
}

/* A float of biased exponent e (clamped to [0, 254]; 0: denormal) with a
 * random fraction and sign. */
static float make(uint64_t r, int e)
{
    if (e < 0) e = 0;
    if (e > 254) e = 254;
    uint32_t u = ((uint32_t)(r >> 63) << 31) | ((uint32_t)e << 23) | ((uint32_t)(r >> 20) & 0x7FFFFFu);
    if (e == 0 && !(u & 0x7FFFFFu)) u |= 1u;
    return lab_float_from_bits(u);
}

void lab_float_round_inputs(int op, uint64_t seed, float *a, float *b, float *c, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const uint64_t r0 = rnd(seed, i, 0), r1 = rnd(seed, i, 1), r2 = rnd(seed, i, 2);
        const unsigned kind = (unsigned)(rnd(seed, i, 3) % 32);
        const int ea = 127 + (int)(rnd(seed, i, 4) % 121) - 60;
        int eb = op == LAB_OP_ADD ? ea + (int)(rnd(seed, i, 5) % 61) - 30 : 127 + (int)(rnd(seed, i, 5) % 121) - 60;
        float x = make(r0, ea), y = make(r1, eb), z = 0.0f;
        if (kind == 0) { /* a denormal operand */
            x = make(r0, 0);
        } else if (kind == 1) { /* small integers: exact results */
            x = (float)((int)(r0 % 64) - 32);
            y = (float)((int)(r1 % 64) - 32);
        } else if (kind == 2 && op == LAB_OP_ADD) { /* a tie: y is half an ulp of x */
            const float up = nextafterf(x, INFINITY);
            y = (float)(((double)up - (double)x) / 2) * ((r1 >> 63) ? -1.0f : 1.0f);
        } else if (kind == 3 && op == LAB_OP_MUL) { /* a product in the denormal range */
            x = make(r0, 127 - 70);
            y = make(r1, 127 - 60);
        }
        if (op == LAB_OP_FMA) {
            const int ep = (int)((lab_float_bits(x) >> 23) & 0xFF) + (int)((lab_float_bits(y) >> 23) & 0xFF) - 127;
            z = make(r2, ep + (int)(r2 % 61) - 30);
            if (kind == 4) z = -(float)((double)x * (double)y); /* near-total cancellation */
        }
        if ((op == LAB_OP_DIV && y == 0) || (op == LAB_OP_RCP && x == 0)) x = y = 1.0f;
        if (op == LAB_OP_SQRT) x = fabsf(x);
        a[i] = x;
        if (b) b[i] = y;
        if (c) c[i] = z;
    }
}

/* ------------------------------------------- precise against intrinsic -- */

static const char *const fn_names[LAB_NFNS] = {"exp", "sin", "log", "div", "sqrt"};
static const char *const var_codes[LAB_NFNS][LAB_NVARS] = {
    {"expf(x)", "__expf(x)", "expf(x) --use_fast_math"},
    {"sinf(x)", "__sinf(x)", "sinf(x) --use_fast_math"},
    {"logf(x)", "__logf(x)", "logf(x) --use_fast_math"},
    {"x / y", "__fdividef(x, y)", "x / y --use_fast_math"},
    {"sqrtf(x)", "__fsqrt_rn(x)", "sqrtf(x) --use_fast_math"},
};
static const char *const var_names[LAB_NVARS] = {"precise", "intrinsic", "--use_fast_math"};

const char *lab_float_fn_name(int fn)
{
    return fn >= 0 && fn < LAB_NFNS ? fn_names[fn] : NULL;
}

const char *lab_float_var_code(int fn, int var)
{
    return fn >= 0 && fn < LAB_NFNS && var >= 0 && var < LAB_NVARS ? var_codes[fn][var] : NULL;
}

const char *lab_float_var_name(int var)
{
    return var >= 0 && var < LAB_NVARS ? var_names[var] : NULL;
}

static const char *const set_names[LAB_NFNS][LAB_FLOAT_NSETS] = {
    {"x in [-10, 10]", "x in [-103, -88]: results denormal"},
    {"x in [-pi, pi]", "x in [-1e5, 1e5]"},
    {"x = 2^[-20, 20) m", "x denormal"},
    {"x, y = +-2^[-20, 20) m", "y in [2^126, 2^128), x = 2^[100, 120) m"},
    {"x = 2^[-20, 20) m", "x denormal"},
};

const char *lab_float_fn_inputs(int fn, int set, uint64_t seed, float *x, float *y, size_t n)
{
    if (fn < 0 || fn >= LAB_NFNS || set < 0 || set >= LAB_FLOAT_NSETS) return NULL;
    if (!x) return set_names[fn][set];
    seed = seed * 16 + (uint64_t)fn * 2 + (uint64_t)set;
    for (size_t i = 0; i < n; i++) {
        const double u = unit(seed, i, 0), v = unit(seed, i, 1);
        const double m = 1.0 + unit(seed, i, 2); /* [1, 2) */
        float xv = 0, yv = 1;
        switch (fn) {
        case LAB_FN_EXP: xv = set ? (float)(-103.0 + 15.0 * u) : (float)(-10.0 + 20.0 * u); break;
        case LAB_FN_SIN: xv = set ? (float)(-1e5 + 2e5 * u) : (float)(-3.14159265358979 + 6.28318530717959 * u); break;
        case LAB_FN_LOG:
        case LAB_FN_SQRT:
            xv = set ? make(rnd(seed, i, 3) >> 1, 0) : (float)ldexp(m, (int)floor(-20 + 40 * u));
            break;
        case LAB_FN_DIV:
            if (set) {
                xv = (float)ldexp(m, 100 + (int)floor(20 * u));
                yv = (float)ldexp(1.0 + v, 126 + (int)floor(2 * unit(seed, i, 4)));
            } else {
                xv = (float)ldexp(m, (int)floor(-20 + 40 * u)) * ((rnd(seed, i, 5) & 1) ? -1.0f : 1.0f);
                yv = (float)ldexp(1.0 + v, (int)floor(-20 + 40 * unit(seed, i, 4))) * ((rnd(seed, i, 6) & 1) ? -1.0f : 1.0f);
            }
            break;
        }
        x[i] = xv;
        if (y) y[i] = yv;
    }
    return set_names[fn][set];
}

double lab_float_fn_ref(int fn, float x, float y)
{
    switch (fn) {
    case LAB_FN_EXP: return exp((double)x);
    case LAB_FN_SIN: return sin((double)x);
    case LAB_FN_LOG: return log((double)x);
    case LAB_FN_DIV: return (double)x / (double)y;
    case LAB_FN_SQRT: return sqrt((double)x);
    default: return NAN;
    }
}

double lab_float_ulp_error(float got, double ref)
{
    if (isnan(ref)) return isnan(got) ? 0.0 : INFINITY;
    const float rf = (float)ref;
    if (isnan(got) || isinf(got) || isinf(rf)) return got == rf ? 0.0 : INFINITY;
    const double a = fabs(ref);
    double ulp = 0x1p-149;
    if (a >= 0x1p-126) {
        int e;
        frexp(a, &e); /* a = m 2^e, m in [0.5, 1): the float spacing there is 2^(e - 24) */
        ulp = ldexp(1.0, e - 24);
    }
    return fabs((double)got - ref) / ulp;
}

static const double bucket_top[LAB_ULP_NBUCKETS - 1] = {0.5 + 0x1p-20, 1, 2, 4, 16, 1024};
static const char *const bucket_names[LAB_ULP_NBUCKETS] = {"<=0.5", "<=1", "<=2", "<=4", "<=16", "<=1024", ">1024"};

const char *lab_float_bucket_name(int k)
{
    return k >= 0 && k < LAB_ULP_NBUCKETS ? bucket_names[k] : NULL;
}

int lab_float_bucket(double ulps)
{
    for (int k = 0; k < LAB_ULP_NBUCKETS - 1; k++)
        if (ulps <= bucket_top[k]) return k; /* NaN falls through to the last */
    return LAB_ULP_NBUCKETS - 1;
}

void lab_float_ulp_hist(int fn, const float *x, const float *y, const float *got, size_t n, lab_ulp_hist *h)
{
    memset(h, 0, sizeof *h);
    h->n = n;
    h->max_ulp = -1;
    for (size_t i = 0; i < n; i++) {
        const float yi = y ? y[i] : 1.0f;
        const double ref = lab_float_fn_ref(fn, x[i], yi);
        const double e = lab_float_ulp_error(got[i], ref);
        h->count[lab_float_bucket(e)]++;
        if (e > h->max_ulp || (isnan(e) && !isnan(h->max_ulp))) {
            h->max_ulp = e;
            h->max_x = x[i];
            h->max_y = yi;
            h->max_got = got[i];
            h->max_ref = ref;
        }
    }
}

/* ----------------------------------------------------- summation order -- */

static const char *const sum_names[LAB_NSUMS] = {
    [LAB_SUM_NAIVE] = "unsorted, left to right",
    [LAB_SUM_ASCENDING] = "sorted |x| ascending (presort)",
    [LAB_SUM_DESCENDING] = "sorted |x| descending",
    [LAB_SUM_PAIRWISE] = "pairwise tree",
    [LAB_SUM_KAHAN] = "Kahan compensated",
    [LAB_SUM_REDUCE] = "cupat_reduce default rung",
    [LAB_SUM_REDUCE_COMP] = "cupat_reduce compensated rung",
};

const char *lab_float_sum_name(int k)
{
    return k >= 0 && k < LAB_NSUMS ? sum_names[k] : NULL;
}

static const char *const sum_sets[LAB_SUM_NSETS] = {
    "uniform [0, 1)",
    "positive over 40 binades: (1 + u) 2^[-20, 20)",
    "cancelling: +L, -L (L ~ 2^24), then a small value in [0, 1)",
};

const char *lab_float_sum_inputs(int set, uint64_t seed, float *x, size_t n)
{
    if (set < 0 || set >= LAB_SUM_NSETS) return NULL;
    if (!x) return sum_sets[set];
    seed = seed * 4 + (uint64_t)set + 1000;
    for (size_t i = 0; i < n; i++) {
        const double u = unit(seed, i, 0);
        switch (set) {
        case 0: x[i] = (float)u; break;
        case 1: x[i] = (float)ldexp(1.0 + u, (int)floor(-20 + 40 * unit(seed, i, 1))); break;
        default:
            if (i % 3 == 0) x[i] = (float)ldexp(1.0 + u, 24);
            else if (i % 3 == 1) x[i] = -x[i - 1];
            else x[i] = (float)u;
        }
    }
    return sum_sets[set];
}

double lab_float_sum_exact(const float *x, size_t n)
{
    long double s = 0, c = 0; /* Neumaier */
    for (size_t i = 0; i < n; i++) {
        const long double v = x[i], t = s + v;
        c += fabsl(s) >= fabsl(v) ? (s - t) + v : (v - t) + s;
        s = t;
    }
    return (double)(s + c);
}

static int cmp_abs_up(const void *a, const void *b)
{
    const float x = fabsf(*(const float *)a), y = fabsf(*(const float *)b);
    return (x > y) - (x < y);
}

static float sum_lr(const float *x, size_t n)
{
    float s = 0.0f;
    for (size_t i = 0; i < n; i++) s += x[i];
    return s;
}

static float sum_pairwise(const float *x, size_t n)
{
    if (n == 1) return x[0];
    const size_t m = n / 2;
    return sum_pairwise(x, m) + sum_pairwise(x + m, n - m);
}

float lab_float_sum_host(int k, const float *x, size_t n)
{
    if (n == 0) return 0.0f;
    switch (k) {
    case LAB_SUM_NAIVE: return sum_lr(x, n);
    case LAB_SUM_PAIRWISE: return sum_pairwise(x, n);
    case LAB_SUM_KAHAN: {
        float s = 0.0f, c = 0.0f;
        for (size_t i = 0; i < n; i++) {
            const float y = x[i] - c, t = s + y;
            c = (t - s) - y; /* what the addition lost */
            s = t;
        }
        return s;
    }
    case LAB_SUM_ASCENDING:
    case LAB_SUM_DESCENDING: {
        float *t = malloc(n * sizeof *t);
        if (!t) return NAN;
        memcpy(t, x, n * sizeof *t);
        qsort(t, n, sizeof *t, cmp_abs_up);
        if (k == LAB_SUM_DESCENDING)
            for (size_t i = 0; i < n / 2; i++) {
                const float v = t[i];
                t[i] = t[n - 1 - i];
                t[n - 1 - i] = v;
            }
        const float s = sum_lr(t, n);
        free(t);
        return s;
    }
    default: return NAN;
    }
}
