/* SPDX-License-Identifier: Apache-2.0 */
/* test_gemm_tc.c — the half-precision types and cupat_gemm (pattern
 * "gemm_tc"; docs/gemm-tensor.md).
 *
 * Conversions: every one of the 65536 f16 and bf16 bit patterns to f32
 * against the value its fields spell (ldexp), and back; f32 -> f16 / bf16 /
 * tf32 against an independent reference in exact double arithmetic (the two
 * neighbours on the target grid, the nearer one, ties to the even pattern),
 * over every f32 exponent with halfway patterns at every bit position, every
 * midpoint between neighbouring f16 / bf16 values and the floats next to it,
 * the subnormal and overflow boundaries, NaN, inf and -0.
 *
 * cupat_gemm: every type pair against an f64 reference of the rounded inputs
 * within cupat.h's bound,
 *   2 max(k,1) eps (|alpha| (|A||B|)_ij + |beta| |C_ij|) + u_out |r| + t_out
 * (eps = FLT_EPSILON: f32 accumulation; r the value before the output
 * rounding, so |r| <= |ref| + the first term), i8 -> i32 exactly modulo
 * 2^32; shapes 1x1x1, 17x33x65, 64x1x128, tile and k-panel crossings and zero
 * dimensions, all four ops, both layouts, ld > minimum, beta != 0, NaN in C
 * with beta = 0, alpha = 0 with A = B = NULL; then every argument's bad-input
 * rows; tf32's rounding inside the product checked exactly (tf32_ties,
 * tf32_sweep). The same cases on the CPU's rung and on every CUDA rung
 * pinned. */
#include "testutil.h"

#include <float.h>
#include <limits.h>
#include <stdint.h>

static int on_gpu(void) { return t_backend == CUPAT_BACKEND_CUDA; }


/* ------------------------------------------------------- conversions -- */

/* A 16-bit format's non-negative finite values by pattern, from the fields
 * alone: mbits mantissa bits, bias; table[inf] is the value the grid would
 * have next (2^(emax+1)), where IEEE's overflow rule sends ties and beyond. */
typedef struct grid {
    const char *name;
    int mbits, bias;
    uint32_t inf; /* pattern of +inf: the number of finite non-negative values */
    double *table;
} grid;

static double field_value(const grid *g, uint32_t pattern)
{
    uint32_t e = pattern >> g->mbits, m = pattern & ((1u << g->mbits) - 1u);
    if (e == 0) return ldexp((double)m, 1 - g->bias - g->mbits);
    return ldexp((double)((1u << g->mbits) | m), (int)e - g->bias - g->mbits);
}

static void grid_init(grid *g)
{
    g->table = test_xmalloc(((size_t)g->inf + 1) * sizeof(double));
    for (uint32_t i = 0; i <= g->inf; i++) g->table[i] = field_value(g, i);
}

/* The pattern nearest to finite |x| (ties to the even pattern), or g->inf. */
static uint32_t grid_round(const grid *g, double ax)
{
    if (ax >= g->table[g->inf]) return g->inf;
    uint32_t lo = 0, hi = g->inf; /* table[lo] <= ax < table[hi] */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (g->table[mid] <= ax) lo = mid;
        else hi = mid;
    }
    if (g->table[lo] == ax) return lo;
    /* both differences are exact in double: the operands are within one
     * binade of each other and carry at most 24 significant bits */
    double dlo = ax - g->table[lo], dhi = g->table[hi] - ax;
    if (dlo < dhi) return lo;
    if (dhi < dlo) return hi;
    return (lo & 1u) ? hi : lo;
}

static grid g16 = {"f16", 10, 15, 0x7c00u, NULL};
static grid gbf = {"bf16", 7, 127, 0x7f80u, NULL};

/* Every 16-bit pattern to f32 (exact, fields by ldexp) and back. */
static void conv_exhaustive(const grid *g, int is_f16)
{
    size_t bad_to = 0, bad_back = 0;
    uint32_t first_to = 0, first_back = 0;
    const uint32_t sign16 = 0x8000u, expmask = (0xffffu >> 1) & ~((1u << g->mbits) - 1u);
    for (uint32_t p = 0; p < 0x10000u; p++) {
        float f;
        uint16_t back;
        if (is_f16) {
            f = cupat_f16_to_f32((cupat_f16){(uint16_t)p});
            back = cupat_f32_to_f16(f).bits;
        } else {
            f = cupat_bf16_to_f32((cupat_bf16){(uint16_t)p});
            back = cupat_f32_to_bf16(f).bits;
        }
        uint32_t mag = p & 0x7fffu, m = p & ((1u << g->mbits) - 1u);
        int neg = (p & sign16) != 0;
        int ok;
        uint16_t want_back = (uint16_t)p;
        if ((mag & expmask) == expmask && m) { /* NaN: quiet, payload and sign kept */
            uint32_t want = (neg ? 0x80000000u : 0) | 0x7f800000u | (m << (23 - g->mbits)) |
                            0x400000u;
            ok = test_f32_bits(f) == want;
            want_back = (uint16_t)(p | (1u << (g->mbits - 1)));
        } else if (mag == g->inf) {
            ok = isinf(f) && (signbit(f) != 0) == neg;
        } else {
            double v = field_value(g, mag);
            ok = (double)f == (neg ? -v : v) && (signbit(f) != 0) == neg;
        }
        if (!ok && bad_to++ == 0) first_to = p;
        if (back != want_back && bad_back++ == 0) first_back = p;
    }
    CHECK(bad_to == 0, "%s -> f32: %zu of 65536 wrong, first 0x%04x", g->name, bad_to, first_to);
    CHECK(bad_back == 0, "%s -> f32 -> %s: %zu of 65536 changed, first 0x%04x", g->name, g->name,
          bad_back, first_back);
}

/* f32 -> 16 bits, one value against the grid reference. */
static size_t conv_bad;
static uint32_t conv_first;
static void check_to16(const grid *g, int is_f16, float x)
{
    uint32_t u = test_f32_bits(x), want;
    uint16_t got = is_f16 ? cupat_f32_to_f16(x).bits : cupat_f32_to_bf16(x).bits;
    uint32_t sign = (u >> 31) ? 0x8000u : 0u;
    if (isnan(x)) { /* quiet, sign and the payload's top bits kept */
        uint32_t keep = (u & 0x7fffffu) >> (23 - g->mbits);
        want = sign | g->inf | keep | (1u << (g->mbits - 1));
    } else if (isinf(x)) {
        want = sign | g->inf;
    } else {
        want = sign | grid_round(g, fabs((double)x));
    }
    if (got != want && conv_bad++ == 0) conv_first = u;
}

/* f32 -> tf32 reference: the grid of 11 significant bits (quantum
 * 2^(E - 11) for |x| in [2^(E-1), 2^E)), never finer than 2^-136 (the
 * subnormal range keeps f32's exponent and 10 bits), ties to even, overflow
 * at 2^128. Exact in double. */
static float tf32_ref(float x)
{
    if (isnan(x)) return test_bits_f32((test_f32_bits(x) | 0x400000u) & ~0x1fffu);
    if (isinf(x) || x == 0.0f) return x;
    double ax = fabs((double)x);
    int E;
    frexp(ax, &E);
    double q = ldexp(1.0, E - 11 > -136 ? E - 11 : -136);
    double n = floor(ax / q), r = ax - n * q;
    if (r > q / 2 || (r == q / 2 && fmod(n, 2.0) == 1.0)) n += 1.0;
    double v = n * q;
    float out = v >= ldexp(1.0, 128) ? INFINITY : (float)v;
    return signbit(x) ? -out : out;
}

static size_t tf_bad;
static uint32_t tf_first;
static void check_tf32(float x)
{
    uint32_t got = test_f32_bits(cupat_f32_to_tf32(x)), want = test_f32_bits(tf32_ref(x));
    if (got != want && tf_bad++ == 0) tf_first = test_f32_bits(x);
}

static void check_all(float x)
{
    check_to16(&g16, 1, x);
    check_to16(&gbf, 0, x);
    check_tf32(x);
}

static void conversions(void)
{
    grid_init(&g16);
    grid_init(&gbf);
    conv_exhaustive(&g16, 1);
    conv_exhaustive(&gbf, 0);

    conv_bad = 0;
    tf_bad = 0;
    /* every exponent, both signs: halfway patterns at every bit position
     * (the rounding point of f16 subnormals moves from bit 13 to 24 with
     * the exponent), their neighbours, the ends, random mantissas */
    for (uint32_t e = 0; e < 256; e++)
        for (uint32_t s = 0; s < 2; s++) {
            const uint32_t base = (s << 31) | (e << 23);
            static const uint32_t ends[] = {0, 1, 2, 3, 0x400000u, 0x7ffffeu, 0x7fffffu};
            for (size_t q = 0; q < sizeof ends / sizeof ends[0]; q++)
                check_all(test_bits_f32(base | ends[q]));
            for (int d = 1; d <= 23; d++) {
                uint32_t half = 1u << (d - 1), hi = (uint32_t)test_rand() & 0x7fffffu;
                for (uint32_t odd = 0; odd < 2; odd++) {
                    uint32_t mm = ((hi >> d) << d) & 0x7fffffu;
                    if (d < 23) mm = (mm & ~(1u << d)) | (odd << d);
                    uint32_t mid = (mm | half) & 0x7fffffu;
                    for (int delta = -1; delta <= 1; delta++)
                        check_all(test_bits_f32(base | ((mid + (uint32_t)delta) & 0x7fffffu)));
                }
            }
            for (int r = 0; r < 256; r++)
                check_all(test_bits_f32(base | ((uint32_t)test_rand() & 0x7fffffu)));
        }
    /* every midpoint between neighbouring finite values (and the one above
     * the largest, where overflow starts), and the floats next to it */
    const grid *gs[2] = {&g16, &gbf};
    for (int w = 0; w < 2; w++)
        for (uint32_t i = 0; i < gs[w]->inf; i++) {
            float mid = (float)((gs[w]->table[i] + gs[w]->table[i + 1]) / 2); /* exact */
            float xs[3] = {nextafterf(mid, 0.0f), mid, nextafterf(mid, INFINITY)};
            for (int q = 0; q < 3; q++) {
                check_all(xs[q]);
                check_all(-xs[q]);
            }
        }
    /* specials */
    const float specials[] = {0.0f, -0.0f, INFINITY, -INFINITY, FLT_MAX, -FLT_MAX, FLT_MIN,
                              FLT_TRUE_MIN, -FLT_TRUE_MIN, 65504.0f, 65519.99f, 65520.0f,
                              -65520.0f, 0x1p-14f, 0x1p-24f, 0x1p-25f, 0x1.000002p-25f,
                              0x1.ffp127f, 0x1.fep127f, 0x1.fefffep127f, 0x1.ffep127f,
                              0x1.ffdffep127f, 1.0f, -1.0f};
    for (size_t q = 0; q < sizeof specials / sizeof specials[0]; q++) check_all(specials[q]);
    const uint32_t nans[] = {0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xff800001u, 0x7fffffffu,
                             0xffffffffu, 0x7fa00000u, 0x7f802000u, 0x7fc0dead};
    for (size_t q = 0; q < sizeof nans / sizeof nans[0]; q++) check_all(test_bits_f32(nans[q]));
    CHECK(conv_bad == 0, "f32 -> f16/bf16: %zu wrong, first input 0x%08x (%a)", conv_bad,
          conv_first, test_bits_f32(conv_first));
    CHECK(tf_bad == 0, "f32 -> tf32: %zu wrong, first input 0x%08x (%a)", tf_bad, tf_first,
          test_bits_f32(tf_first));

    /* the documented boundaries, spelled out */
    CHECK(cupat_f32_to_f16(65519.99f).bits == 0x7bff, "65519.99 -> 65504");
    CHECK(cupat_f32_to_f16(65520.0f).bits == 0x7c00, "65520 -> inf");
    CHECK(cupat_f32_to_f16(-0.0f).bits == 0x8000, "-0 -> -0 (f16)");
    CHECK(cupat_f32_to_bf16(-0.0f).bits == 0x8000, "-0 -> -0 (bf16)");
    CHECK(cupat_f32_to_f16(0x1p-25f).bits == 0 && cupat_f32_to_f16(0x1.000002p-25f).bits == 1,
          "f16: 2^-25 ties to 0, above it to the smallest subnormal");
    CHECK(cupat_f32_to_f16(0x1.ffcp-15f).bits == 0x0400, "largest subnormal's tie up to 2^-14");
    CHECK(cupat_f32_to_bf16(0x1.ffp127f).bits == 0x7f80 &&
              cupat_f32_to_bf16(0x1.fefffep127f).bits == 0x7f7f &&
              cupat_f32_to_bf16(0x1.fep127f).bits == 0x7f7f,
          "bf16 overflow at 0x1.ffp127, the midpoint above 0x1.fep127");
    CHECK(isinf(cupat_f32_to_tf32(0x1.ffep127f)) &&
              cupat_f32_to_tf32(0x1.ffdffep127f) == 0x1.ffcp127f,
          "tf32 overflow at 0x1.ffep127");
    CHECK(test_f32_bits(cupat_f32_to_tf32(-0.0f)) == 0x80000000u, "tf32 keeps -0");
    CHECK(test_f32_bits(cupat_f16_to_f32((cupat_f16){0x7d00})) == 0x7fe00000u,
          "signalling f16 NaN comes back quiet with its payload");
    CHECK(sizeof(cupat_f16) == 2 && sizeof(cupat_bf16) == 2, "16-bit storage");
    free(g16.table);
    free(gbf.table);
}

/* --------------------------------------------------------- cupat_gemm -- */

typedef struct tpair {
    cupat_gemm_type in, out;
} tpair;
static const tpair pairs[] = {
    {CUPAT_GEMM_F16, CUPAT_GEMM_F16},  {CUPAT_GEMM_F16, CUPAT_GEMM_F32},
    {CUPAT_GEMM_BF16, CUPAT_GEMM_BF16}, {CUPAT_GEMM_BF16, CUPAT_GEMM_F32},
    {CUPAT_GEMM_TF32, CUPAT_GEMM_F32}, {CUPAT_GEMM_I8, CUPAT_GEMM_I32},
};
#define NPAIRS (sizeof pairs / sizeof pairs[0])

typedef struct tcase {
    tpair t;
    size_t m, n, k;
    int col, ta, tb;
    double alpha, beta;
    size_t pad;
    int nulls; /* A = B = NULL (alpha == 0 or k == 0) */
} tcase;

/* An element of a matrix in the test's layout, as stored. */
static size_t idx(size_t ld, int col, size_t r, size_t c) { return col ? c * ld + r : r * ld + c; }

static void set_ld(size_t rows, size_t cols, int col, size_t pad, size_t *ld, size_t *elems)
{
    size_t inner = col ? rows : cols, outer = col ? cols : rows;
    *ld = (inner ? inner : 1) + pad;
    *elems = outer * *ld;
}

/* Input element i of a buffer of type t, as the product sees it. */
static double in_value(cupat_gemm_type t, const void *p, size_t i)
{
    switch (t) {
    case CUPAT_GEMM_F16: return cupat_f16_to_f32(((const cupat_f16 *)p)[i]);
    case CUPAT_GEMM_BF16: return cupat_bf16_to_f32(((const cupat_bf16 *)p)[i]);
    case CUPAT_GEMM_TF32: return cupat_f32_to_tf32(((const float *)p)[i]);
    case CUPAT_GEMM_I8: return ((const int8_t *)p)[i];
    default: return NAN;
    }
}
static double out_value(cupat_gemm_type t, const void *p, size_t i)
{
    switch (t) {
    case CUPAT_GEMM_F16: return cupat_f16_to_f32(((const cupat_f16 *)p)[i]);
    case CUPAT_GEMM_BF16: return cupat_bf16_to_f32(((const cupat_bf16 *)p)[i]);
    case CUPAT_GEMM_F32: return ((const float *)p)[i];
    case CUPAT_GEMM_I32: return ((const int32_t *)p)[i];
    default: return NAN;
    }
}

/* Random storage of type t: floats in [-1, 1) (tf32 keeps all 24 bits, so
 * its rounding is exercised), i8 over its whole range, i32 over its whole
 * range (the wrap-around is part of the contract). */
static void fill(cupat_gemm_type t, void *p, size_t n)
{
    for (size_t i = 0; i < n; i++) switch (t) {
        case CUPAT_GEMM_F16: ((cupat_f16 *)p)[i] = cupat_f32_to_f16(test_randf()); break;
        case CUPAT_GEMM_BF16: ((cupat_bf16 *)p)[i] = cupat_f32_to_bf16(test_randf()); break;
        case CUPAT_GEMM_TF32:
        case CUPAT_GEMM_F32: ((float *)p)[i] = test_randf(); break;
        case CUPAT_GEMM_I8: ((int8_t *)p)[i] = (int8_t)(test_rand() >> 56); break;
        case CUPAT_GEMM_I32: ((int32_t *)p)[i] = (int32_t)(uint32_t)test_rand(); break;
        }
}

/* NaN in every element of a float C (0xFF bytes are NaN in f16, bf16, f32). */
static void poison(void *p, size_t bytes) { memset(p, 0xFF, bytes); }

static double unit_out(cupat_gemm_type t)
{
    return t == CUPAT_GEMM_F16 ? 0x1p-11 : t == CUPAT_GEMM_BF16 ? 0x1p-8 : 0.0;
}
static double tiny_out(cupat_gemm_type t)
{
    return t == CUPAT_GEMM_F16 ? 0x1p-25 : t == CUPAT_GEMM_BF16 ? 0x1p-134 : 0.0;
}

static void run_case(cupat_ctx *ctx, const tcase *g)
{
    const size_t ein = cupat_gemm_type_size(g->t.in), eout = cupat_gemm_type_size(g->t.out);
    size_t lda, ldb, ldc, na, nb, nc;
    set_ld(g->ta ? g->k : g->m, g->ta ? g->m : g->k, g->col, g->pad, &lda, &na);
    set_ld(g->tb ? g->n : g->k, g->tb ? g->k : g->n, g->col, g->pad, &ldb, &nb);
    set_ld(g->m, g->n, g->col, g->pad, &ldc, &nc);
    unsigned char *hA = test_xmalloc(na * ein), *hB = test_xmalloc(nb * ein);
    unsigned char *hC0 = test_xmalloc(nc * eout), *hC = test_xmalloc(nc * eout);
    fill(g->t.in, hA, na);
    fill(g->t.in, hB, nb);
    fill(g->t.out, hC0, nc);
    const int is_int = g->t.in == CUPAT_GEMM_I8;
    if (g->beta == 0.0 && !is_int) poison(hC0, nc * eout); /* must not be read */
    void *dA = test_upload(ctx, hA, na * ein), *dB = test_upload(ctx, hB, nb * ein);
    void *dC = test_upload(ctx, hC0, nc * eout);
    const char *lbl = fmt("%s->%s %zux%zux%zu %s op(%c,%c) alpha %g beta %g pad %zu",
                          cupat_gemm_type_name(g->t.in), cupat_gemm_type_name(g->t.out), g->m,
                          g->n, g->k, g->col ? "col" : "row", g->ta ? 'T' : 'N',
                          g->tb ? 'T' : 'N', g->alpha, g->beta, g->pad);
    cupat_status s = cupat_gemm(ctx, g->col ? CUPAT_COL_MAJOR : CUPAT_ROW_MAJOR,
                                g->ta ? CUPAT_TRANS_T : CUPAT_TRANS_N,
                                g->tb ? CUPAT_TRANS_T : CUPAT_TRANS_N, g->m, g->n, g->k,
                                g->t.in, g->t.out, g->alpha, g->nulls ? NULL : dA, lda,
                                g->nulls ? NULL : dB, ldb, g->beta, dC, ldc);
    CHECK(s == CUPAT_SUCCESS, "%s: %s: %s", lbl, cupat_status_string(s), cupat_last_error(ctx));
    if (s != CUPAT_SUCCESS) goto out;
    if (nc) test_download(ctx, hC, dC, nc * eout);

    const float fa = (float)g->alpha, fb = (float)g->beta;
    const uint32_t ia = (uint32_t)(int32_t)g->alpha, ib = (uint32_t)(int32_t)g->beta;
    const int reads = g->alpha != 0.0 && g->k > 0;
    size_t bad = 0, checked = 0;
    char first[200] = "";
    for (size_t i = 0; i < g->m; i++)
        for (size_t j = 0; j < g->n; j++) {
            double sum = 0, mag = 0;
            int64_t isum = 0;
            for (size_t p = 0; reads && p < g->k; p++) {
                size_t ai = g->ta ? idx(lda, g->col, p, i) : idx(lda, g->col, i, p);
                size_t bi = g->tb ? idx(ldb, g->col, j, p) : idx(ldb, g->col, p, j);
                double a = in_value(g->t.in, hA, ai), b = in_value(g->t.in, hB, bi);
                sum += a * b; /* exact: products of <= 11-bit significands, short sums */
                mag += fabs(a * b);
                isum += (int64_t)a * (int64_t)b;
            }
            const size_t at = idx(ldc, g->col, i, j);
            double got = out_value(g->t.out, hC, at);
            double c0 = g->beta != 0.0 ? out_value(g->t.out, hC0, at) : 0.0;
            int ok;
            double want, tol = 0;
            if (is_int) { /* exact modulo 2^32 */
                uint32_t r = reads ? ia * (uint32_t)isum : 0u;
                if (ib) r += ib * (uint32_t)(int32_t)c0;
                int64_t w = r <= (uint32_t)INT32_MAX ? (int64_t)r : (int64_t)r - ((int64_t)1 << 32);
                want = (double)w;
                ok = got == want;
            } else {
                want = (double)fa * sum + (double)fb * c0;
                double acc = 2.0 * (double)(g->k > 1 ? g->k : 1) * FLT_EPSILON *
                             (fabs((double)fa) * mag + fabs((double)fb) * fabs(c0));
                tol = acc + unit_out(g->t.out) * (fabs(want) + acc) + tiny_out(g->t.out);
                ok = fabs(got - want) <= tol; /* NaN never passes */
            }
            checked++;
            if (!ok && bad++ == 0)
                snprintf(first, sizeof first, "C[%zu][%zu] = %.9g, expected %.9g (tol %.3g)", i,
                         j, got, want, tol);
        }
    CHECK(bad == 0, "%s: %zu of %zu wrong; first %s", lbl, bad, checked, first);
    /* the padding of C comes back as it went in */
    size_t inner = g->col ? g->m : g->n, outer = g->col ? g->n : g->m, pad_bad = 0;
    for (size_t o = 0; o < outer; o++)
        for (size_t q = inner; q < ldc; q++)
            pad_bad += memcmp(hC + (o * ldc + q) * eout, hC0 + (o * ldc + q) * eout, eout) != 0;
    CHECK(pad_bad == 0, "%s: %zu padding elements of C changed", lbl, pad_bad);
out:
    cupat_sync(ctx);
    cupat_free(ctx, dA);
    cupat_free(ctx, dB);
    cupat_free(ctx, dC);
    free(hA);
    free(hB);
    free(hC0);
    free(hC);
}

/* tf32's rounding inside the product, exactly (k = 8, C 64 x 64, every
 * element of A and B = x, so C = 8 t(x)^2 with t(x) the tf32 rounding of x,
 * exact in f32 with its partial sums): x = 1 + 3 2^-12 (t = 1 + 2^-10, where
 * truncation would give 1) and the ties 1 + 3 2^-11 (to even: up) and
 * 1 + 2^-11 (to even: down). A(0,0) is the signaling NaN 0x7f800001, whose
 * payload lies in the low 13 bits alone: quieted, not read as an infinity
 * (C's row 0 NaN). Ops N,N (wgmma reads op(A) in place) and T,T (both
 * operands copied K-major first). */
static void tf32_ties(cupat_ctx *ctx)
{
    enum { S = 64, K = 8 };
    static float hA[S * K], hB[K * S], hC[S * S];
    static const float xs[] = {1.0f + 0x3p-12f, 1.0f + 0x3p-11f, 1.0f + 0x1p-11f};
    const uint32_t snan = 0x7f800001u;
    for (size_t xi = 0; xi < sizeof xs / sizeof xs[0]; xi++)
        for (int tt = 0; tt < 2; tt++) {
            for (size_t i = 0; i < S * K; i++) hA[i] = hB[i] = xs[xi];
            memcpy(&hA[0], &snan, sizeof snan);
            float *dA = test_upload(ctx, hA, sizeof hA), *dB = test_upload(ctx, hB, sizeof hB);
            float *dC = test_upload(ctx, hC, sizeof hC);
            const cupat_trans op = tt ? CUPAT_TRANS_T : CUPAT_TRANS_N;
            /* op N: A is S x K, B K x S; op T: A is K x S, B S x K */
            cupat_status st = cupat_gemm(ctx, CUPAT_ROW_MAJOR, op, op, S, S, K, CUPAT_GEMM_TF32,
                                         CUPAT_GEMM_F32, 1.0, dA, tt ? S : K, dB, tt ? K : S, 0.0,
                                         dC, S);
            CHECK(st == CUPAT_SUCCESS, "tf32 ties: %s", cupat_last_error(ctx));
            if (st == CUPAT_SUCCESS) test_download(ctx, hC, dC, sizeof hC);
            const double t = tf32_ref(xs[xi]);
            const float want = (float)(K * t * t);
            size_t bad = 0;
            char first[160] = "";
            for (size_t i = 0; st == CUPAT_SUCCESS && i < S; i++)
                for (size_t j = 0; j < S; j++) {
                    const float got = hC[i * S + j];
                    /* row 0 of op(A): A(0,0) is in it for both ops */
                    const int ok = i == 0 ? isnan(got) : got == want;
                    if (!ok && bad++ == 0)
                        snprintf(first, sizeof first, "C[%zu][%zu] = %a, expected %a", i, j, got,
                                 i == 0 ? NAN : want);
                }
            CHECK(bad == 0, "tf32 ties: x = %a op %c,%c: %zu wrong; first %s", xs[xi],
                  tt ? 'T' : 'N', tt ? 'T' : 'N', bad, first);
            cupat_sync(ctx);
            cupat_free(ctx, dA);
            cupat_free(ctx, dB);
            cupat_free(ctx, dC);
        }
}

/* tf32's rounding of all 8192 low-bit patterns under eight high parts (1.0
 * with an even and an odd last tf32 bit, a negative, the largest finite tf32
 * whose round-up overflows, the smallest normal, zero and an odd subnormal,
 * the infinities' exponent with NaN payloads): A (8192 x 8) times the
 * identity (8 x 8), so each C element is one input as the product read it,
 * the other seven products zero (NaN where the row holds an inf or NaN).
 * Checked against cupat_f32_to_tf32 summed the same way in double: equal, or
 * both NaN; each high part its own check. On wgmma this is the copy engine's
 * rounding (a TFLOAT32 tensor map), checked bit for bit. */
static void tf32_sweep(cupat_ctx *ctx)
{
    enum { M = 8192, K = 8 };
    static const uint32_t hi[8] = {0x3f800000u, 0x3f802000u, 0xbf802000u, 0x7f7fe000u,
                                   0x00800000u, 0x00000000u, 0x00002000u, 0x7f800000u};
    static float hA[M * K], hC[M * K];
    float hB[K * K];
    for (int p = 0; p < K; p++)
        for (int j = 0; j < K; j++) hB[p * K + j] = p == j ? 1.0f : 0.0f;
    for (size_t e = 0; e < M * K; e++) {
        uint32_t u = hi[e / 8192] | (uint32_t)(e % 8192);
        memcpy(&hA[e], &u, 4);
    }
    float *dA = test_upload(ctx, hA, sizeof hA), *dB = test_upload(ctx, hB, sizeof hB);
    float *dC = test_upload(ctx, hC, sizeof hC);
    const cupat_gemm_type t = CUPAT_GEMM_TF32;
    cupat_status st = cupat_gemm(ctx, CUPAT_ROW_MAJOR, CUPAT_TRANS_N, CUPAT_TRANS_N, M, K, K, t,
                                 CUPAT_GEMM_F32, 1.0, dA, K, dB, K, 0.0, dC, K);
    CHECK(st == CUPAT_SUCCESS, "tf32 sweep: %s", cupat_last_error(ctx));
    if (st == CUPAT_SUCCESS) test_download(ctx, hC, dC, sizeof hC);
    for (int g = 0; st == CUPAT_SUCCESS && g < 8; g++) {
        size_t bad = 0;
        char first[200] = "";
        for (size_t e = (size_t)g * 8192; e < (size_t)(g + 1) * 8192; e++) {
            const size_t i = e / K, j = e % K;
            double want = 0;
            for (int p = 0; p < K; p++)
                want += in_value(t, hA, i * K + p) * (double)hB[p * K + j];
            const float got = hC[e];
            const int ok = isnan(want) ? isnan(got) : (double)got == want;
            if (!ok && bad++ == 0)
                snprintf(first, sizeof first, "input 0x%08x: C = %a (0x%08x), expected %a",
                         test_f32_bits(hA[e]), got, test_f32_bits(got), want);
        }
        CHECK(bad == 0, "tf32 sweep: high part 0x%08x: %zu of 8192 wrong; first %s", hi[g],
              bad, first);
    }
    cupat_sync(ctx);
    cupat_free(ctx, dA);
    cupat_free(ctx, dB);
    cupat_free(ctx, dC);
}

extern int cupat__gemm_tc_tile_n; /* gemm_internal.h's test hook */
static void gemm_cases(cupat_ctx *ctx)
{
    typedef struct { size_t m, n, k; } shp;
    /* the three; 70 x 260 x 300: two row tiles, two column tiles
     * and two k panels of the CPU rung (64 x 256 x 256) */
    static const shp shapes[] = {{1, 1, 1}, {17, 33, 65}, {64, 1, 128}, {301, 40, 70}, {70, 260, 300}, {257, 129, 33}};
    /* 257 x 129 x 33: three row tiles, two column tiles and two k-slices of
     * wmma_tiled (128 x 128 x 32); 301 x 40 x 70: skinny, so wgmma computes
     * C^T and stores it transposed (an odd count of C's rows) */
    const size_t nshapes = t_small ? 4 : sizeof shapes / sizeof shapes[0];
    for (size_t pi = 0; pi < NPAIRS; pi++) {
        const int is_int = pairs[pi].in == CUPAT_GEMM_I8;
        for (size_t s = 0; s < nshapes; s++)
            for (int col = 0; col < 2; col++)
                for (int op = 0; op < 4; op++) {
                    tcase g = {pairs[pi], shapes[s].m, shapes[s].n, shapes[s].k, col, op & 1,
                               op >> 1, 1.0, 0.0, 0, 0};
                    if (op == 1 || op == 2) { /* beta != 0, alpha != 1 */
                        g.alpha = is_int ? -3.0 : -1.5;
                        g.beta = is_int ? 2.0 : 0.75;
                    }
                    if (op == 3) g.pad = 3; /* ld > minimum */
                    if (col && op == 0) g.beta = is_int ? -1.0 : 1.0;
                    run_case(ctx, &g);
                }
        /* the wgmma rung's persistent tile both ways (it picks 128 columns
         * for these few-tile shapes on its own): 256 forced, beta = 0 */
        for (int tw = 0; tw < 2; tw++) {
            cupat__gemm_tc_tile_n = tw ? 256 : 128;
            /* the last two: C stored by the copy engine (n a whole number of
             * 16-byte chunks) into padded rows, which must stay untouched */
            const tcase w[] = {{pairs[pi], 70, 260, 300, 0, 0, 0, 1.0, 0.0, 0, 0},
                               {pairs[pi], 301, 40, 70, 0, 1, 1, 1.0, 0.0, 0, 0},
                               {pairs[pi], 200, 136, 72, 1, 1, 0, 1.0, 0.0, 0, 0},
                               {pairs[pi], 200, 136, 72, 0, 0, 0, 1.0, 0.0, 8, 0},
                               {pairs[pi], 136, 200, 72, 1, 0, 1, is_int ? -3.0 : -1.5, 0.0, 8, 0}};
            for (size_t q = 0; q < sizeof w / sizeof w[0]; q++) run_case(ctx, &w[q]);
        }
        cupat__gemm_tc_tile_n = 0;
        /* alpha == 0 and k == 0: C = beta C, A and B unread (NULL); empty C */
        const tcase z[] = {
            {pairs[pi], 20, 30, 10, 0, 0, 0, 0.0, 2.0, 0, 1},
            {pairs[pi], 20, 30, 10, 1, 1, 1, 0.0, 0.0, 2, 1},
            {pairs[pi], 20, 30, 0, 0, 0, 0, 1.0, -1.0, 0, 1},
            {pairs[pi], 20, 30, 0, 1, 0, 1, 1.0, 0.0, 0, 1},
            {pairs[pi], 0, 30, 10, 0, 0, 0, 1.0, 1.0, 0, 0},
            {pairs[pi], 20, 0, 10, 1, 1, 0, 1.0, 1.0, 0, 0},
        };
        for (size_t q = 0; q < sizeof z / sizeof z[0]; q++) run_case(ctx, &z[q]);
        /* what 16-byte copies can read (mma_sync's path for f16 / bf16: op N,
         * leading dimensions multiples of 8): ragged m and n tiles, a last
         * k-slice of 8, a k of 76 in rows of 80 (a partial 16-byte chunk),
         * both layouts, beta != 0 */
        const tcase v[] = {
            {pairs[pi], 200, 136, 72, 0, 0, 0, 1.0, 0.0, 0, 0},
            {pairs[pi], 200, 136, 72, 1, 0, 0, is_int ? -3.0 : -1.5, is_int ? 2.0 : 0.75, 0, 0},
            {pairs[pi], 130, 132, 76, 0, 0, 0, 1.0, 0.0, 4, 0},
            {pairs[pi], 136, 130, 76, 1, 0, 0, 1.0, 1.0, 4, 0},
        };
        for (size_t q = 0; !t_small && q < sizeof v / sizeof v[0]; q++) run_case(ctx, &v[q]);
        /* what the copy engine can read (wgmma's path for f16 / bf16: every
         * op pair, leading dimensions multiples of 8): ragged 128 x 256
         * tiles, k-slices of 64 with a partial last one, a k of 8, padded
         * leading dimensions, both layouts, beta != 0 */
        const int cuda = cupat_get_backend(ctx) == CUPAT_BACKEND_CUDA; /* the CPU rung has no such path: keep CI (valgrind) short */
        for (int op = 0; cuda && !t_small && !is_int && op < 8; op++) {
            tcase g = {pairs[pi], 200, 264, 136, op & 1, (op >> 1) & 1, op >> 2, 1.0, 0.0, 0, 0};
            if (op & 2) g.pad = 8;
            if (op == 3 || op == 4) {
                g.alpha = -1.5;
                g.beta = 0.75;
            }
            run_case(ctx, &g);
        }
        const tcase wk[] = {
            {pairs[pi], 136, 520, 8, 0, 0, 0, 1.0, 0.0, 0, 0},
            {pairs[pi], 256, 16, 64, 1, 1, 1, 1.0, 0.0, 0, 0},
        };
        for (size_t q = 0; !is_int && q < sizeof wk / sizeof wk[0]; q++) run_case(ctx, &wk[q]); /* --small too: the sanitizers see wgmma */
    }
    /* more 128 x 256 tiles (144) than an H100 has SMs: wgmma's persistent
     * blocks take two tiles, its stage ring wrapping from one to the next */
    const tcase many = {{CUPAT_GEMM_BF16, CUPAT_GEMM_F32}, 1536, 3072, 136, 0, 0, 0, 1.0, 0.0, 0, 0};
    if (!t_small && cupat_get_backend(ctx) == CUPAT_BACKEND_CUDA) run_case(ctx, &many);
    /* the same for 16-bit C through the copy engine, 128-wide tiles (162 for
     * 132 SMs): a block's staging buffers reused from one tile to the next */
    const tcase many16 = {{CUPAT_GEMM_BF16, CUPAT_GEMM_BF16}, 1100, 2304, 64, 0, 0, 0, 1.0, 0.0, 8, 0};
    cupat__gemm_tc_tile_n = 128;
    if (!t_small && cupat_get_backend(ctx) == CUPAT_BACKEND_CUDA) run_case(ctx, &many16);
    cupat__gemm_tc_tile_n = 0;
    /* i8: sums and scalars that wrap modulo 2^32 */
    const tpair i8 = {CUPAT_GEMM_I8, CUPAT_GEMM_I32};
    tcase w = {i8, 9, 7, 500, 0, 1, 0, 2147483647.0, -2147483648.0, 1, 0};
    run_case(ctx, &w);
    tf32_ties(ctx);
    tf32_sweep(ctx);
}

/* -------------------------------------------------------- bad inputs -- */

static void bad_inputs(cupat_ctx *ctx)
{
    void *p = test_dalloc(ctx, 64 * 64 * 4);
    unsigned char *d = p;
    const cupat_trans N = CUPAT_TRANS_N, T = CUPAT_TRANS_T;
    const cupat_gemm_type H = CUPAT_GEMM_F16, BF = CUPAT_GEMM_BF16, TF = CUPAT_GEMM_TF32,
                          F = CUPAT_GEMM_F32, I8 = CUPAT_GEMM_I8, I32 = CUPAT_GEMM_I32;
    CHECK_FAILS(NULL, CUPAT_ERROR_NULL_POINTER, "ctx",
                cupat_gemm(NULL, 0, N, N, 4, 4, 4, H, F, 1, d, 4, d, 4, 0, d + 512, 4));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "A",
                cupat_gemm(ctx, 0, N, N, 4, 4, 4, H, F, 1, NULL, 4, d, 4, 0, d + 512, 4));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "B",
                cupat_gemm(ctx, 0, N, N, 4, 4, 4, I8, I32, 1, d, 4, NULL, 4, 0, d + 512, 4));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "C",
                cupat_gemm(ctx, 0, N, N, 4, 4, 4, BF, BF, 1, d, 4, d, 4, 0, NULL, 4));
    /* enums and pairs */
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "flags",
                cupat_gemm(ctx, 2, N, N, 4, 4, 4, H, F, 1, d, 4, d, 4, 0, d + 512, 4));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "op_a",
                cupat_gemm(ctx, 0, (cupat_trans)2, N, 4, 4, 4, H, F, 1, d, 4, d, 4, 0, d + 512, 4));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "op_b",
                cupat_gemm(ctx, 0, N, (cupat_trans)-1, 4, 4, 4, H, F, 1, d, 4, d, 4, 0, d + 512,
                           4));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "in_type = 99",
                cupat_gemm(ctx, 0, N, N, 4, 4, 4, (cupat_gemm_type)99, F, 1, d, 4, d, 4, 0,
                           d + 512, 4));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "in_type = 3 (f32)",
                cupat_gemm(ctx, 0, N, N, 4, 4, 4, F, F, 1, d, 4, d, 4, 0, d + 512, 4));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "in_type = 5 (i32)",
                cupat_gemm(ctx, 0, N, N, 4, 4, 4, I32, I32, 1, d, 4, d, 4, 0, d + 512, 4));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "out_type = -1 (unknown)",
                cupat_gemm(ctx, 0, N, N, 4, 4, 4, H, (cupat_gemm_type)-1, 1, d, 4, d, 4, 0,
                           d + 512, 4));
    static const tpair bad_pairs[] = {{CUPAT_GEMM_F16, CUPAT_GEMM_BF16},
                                      {CUPAT_GEMM_BF16, CUPAT_GEMM_F16},
                                      {CUPAT_GEMM_TF32, CUPAT_GEMM_F16},
                                      {CUPAT_GEMM_TF32, CUPAT_GEMM_TF32},
                                      {CUPAT_GEMM_I8, CUPAT_GEMM_F32},
                                      {CUPAT_GEMM_I8, CUPAT_GEMM_I8},
                                      {CUPAT_GEMM_F16, CUPAT_GEMM_I32},
                                      {CUPAT_GEMM_BF16, CUPAT_GEMM_TF32}};
    for (size_t q = 0; q < sizeof bad_pairs / sizeof bad_pairs[0]; q++)
        CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "does not go with in_type",
                    cupat_gemm(ctx, 0, N, N, 4, 4, 4, bad_pairs[q].in, bad_pairs[q].out, 1, d, 4,
                               d, 4, 0, d + 512, 4));
    /* scalars */
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "alpha = 2.5",
                cupat_gemm(ctx, 0, N, N, 4, 4, 4, I8, I32, 2.5, d, 4, d, 4, 0, d + 512, 4));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "alpha = 2147483648",
                cupat_gemm(ctx, 0, N, N, 4, 4, 4, I8, I32, 2147483648.0, d, 4, d, 4, 0, d + 512,
                           4));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "beta = nan",
                cupat_gemm(ctx, 0, N, N, 4, 4, 4, I8, I32, 1, d, 4, d, 4, NAN, d + 512, 4));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "alpha = 1e+300 is beyond FLT_MAX",
                cupat_gemm(ctx, 0, N, N, 4, 4, 4, H, H, 1e300, d, 4, d, 4, 0, d + 512, 4));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "beta = -1e+39 is beyond FLT_MAX",
                cupat_gemm(ctx, 0, N, N, 4, 4, 4, TF, F, 1, d, 4, d, 4, -1e39, d + 512, 4));
    /* leading dimensions, in elements, for each operand's layout and op */
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "lda",
                cupat_gemm(ctx, 0, N, N, 4, 4, 8, H, F, 1, d, 7, d, 4, 0, d + 512, 4));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "lda", /* op T: A is k x m */
                cupat_gemm(ctx, 0, T, N, 6, 4, 2, BF, F, 1, d, 5, d, 4, 0, d + 512, 4));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "ldb",
                cupat_gemm(ctx, CUPAT_COL_MAJOR, N, N, 4, 4, 8, I8, I32, 1, d, 4, d, 7, 0,
                           d + 512, 4));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "ldc",
                cupat_gemm(ctx, 0, N, N, 4, 5, 4, TF, F, 1, d, 4, d, 5, 0, d + 512, 4));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "ldc", /* >= 1 even when empty */
                cupat_gemm(ctx, 0, N, N, 0, 0, 0, H, H, 1, d, 1, d, 1, 0, d, 0));
    /* sizes */
    CHECK_FAILS(ctx, CUPAT_ERROR_SIZE, "m",
                cupat_gemm(ctx, 0, N, N, (size_t)INT_MAX + 1, 4, 4, H, F, 1, d, 4, d, 4, 0, d, 4));
    CHECK_FAILS(ctx, CUPAT_ERROR_SIZE, "n",
                cupat_gemm(ctx, 0, N, N, 4, (size_t)INT_MAX + 1, 4, H, F, 1, d, 4, d, 4, 0, d, 4));
    CHECK_FAILS(ctx, CUPAT_ERROR_SIZE, "k",
                cupat_gemm(ctx, 0, N, N, 4, 4, SIZE_MAX, I8, I32, 1, d, SIZE_MAX, d, 4, 0, d, 4));
    CHECK_FAILS(ctx, CUPAT_ERROR_SIZE, "lda", /* extent (m - 1) * lda overflows */
                cupat_gemm(ctx, 0, N, N, 1 << 20, 4, 4, H, F, 1, d, SIZE_MAX / 1024, d, 4, 0,
                           d, 4));
    /* overlap: C on A, C inside B, C's last byte on A's first (sizes in bytes
     * of each type: an f32 C of 2 x 2 spans 16 bytes) */
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "overlaps A = ",
                cupat_gemm(ctx, 0, N, N, 8, 8, 8, H, F, 1, d, 8, d + 1024, 8, 0, d, 8));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "overlaps B = ",
                cupat_gemm(ctx, CUPAT_COL_MAJOR, T, T, 8, 8, 8, I8, I32, 1, d, 8, d + 1024, 8, 1,
                           d + 1024 + 60, 8));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "overlaps A = ",
                cupat_gemm(ctx, 0, N, N, 2, 2, 2, BF, F, 1, d + 15, 2, d + 1024, 2, 0, d, 2));
    /* ... and just past it: accepted (f32 C of 2 x 2 ends at byte 16) */
    CHECK_OK(ctx, cupat_gemm(ctx, 0, N, N, 2, 2, 2, BF, F, 1, d + 16, 2, d + 1024, 2, 0, d, 2));
    /* alpha == 0: A and B unread, C may sit on them */
    CHECK_OK(ctx, cupat_gemm(ctx, 0, N, N, 8, 8, 8, H, H, 0, d, 8, d, 8, 0, d, 8));
    if (on_gpu()) {
        static unsigned char host[4096];
        CHECK_FAILS(ctx, CUPAT_ERROR_HOST_POINTER, "A",
                    cupat_gemm(ctx, 0, N, N, 4, 4, 4, H, F, 1, host, 4, d, 4, 0, d + 512, 4));
        CHECK_FAILS(ctx, CUPAT_ERROR_HOST_POINTER, "C",
                    cupat_gemm(ctx, 0, N, N, 4, 4, 4, H, F, 1, d, 4, d, 4, 0, host, 4));
    }
    /* nothing to do: success without touching anything */
    CHECK_OK(ctx, cupat_gemm(ctx, 0, N, N, 0, 5, 3, I8, I32, 1, NULL, 3, NULL, 5, 1, NULL, 5));
    /* the type helpers */
    CHECK(cupat_gemm_type_size(H) == 2 && cupat_gemm_type_size(BF) == 2 &&
              cupat_gemm_type_size(TF) == 4 && cupat_gemm_type_size(F) == 4 &&
              cupat_gemm_type_size(I8) == 1 && cupat_gemm_type_size(I32) == 4,
          "type sizes");
    CHECK(cupat_gemm_type_size((cupat_gemm_type)6) == 0 &&
              cupat_gemm_type_size((cupat_gemm_type)-1) == 0,
          "size of a type outside the enum is 0");
    CHECK(strcmp(cupat_gemm_type_name(BF), "bf16") == 0 &&
              strcmp(cupat_gemm_type_name((cupat_gemm_type)42), "unknown") == 0,
          "type names");
    /* the ladder: wmma, wmma_tiled, mma_sync, wgmma (CUDA, default) and cpu (CPU, default) */
    const cupat_variant_info *v;
    size_t nv;
    CHECK_OK(NULL, cupat_variants("gemm_tc", &v, &nv));
    static const char *const names[] = {"wmma", "wmma_tiled", "mma_sync", "wgmma", "cpu"};
    int ladder_ok = nv == 5;
    for (size_t r = 0; ladder_ok && r < nv; r++)
        ladder_ok = strcmp(v[r].name, names[r]) == 0 &&
                    v[r].backend == (r == 4 ? CUPAT_BACKEND_CPU : CUPAT_BACKEND_CUDA) &&
                    v[r].is_default == (r >= 3);
    CHECK(ladder_ok, "gemm_tc ladder: %zu rungs", nv);
    cupat_free(ctx, p);
}

int main(int argc, char **argv)
{
    cupat_ctx *ctx = test_init(argc, argv);
    test_seed();
    conversions();
    bad_inputs(ctx);
    if (on_gpu()) { /* every CUDA rung, pinned, on the same cases */
        static const char *const rungs[] = {"wmma", "wmma_tiled", "mma_sync", "wgmma"};
        for (size_t r = 0; r < sizeof rungs / sizeof rungs[0]; r++) {
            CHECK_OK(ctx, cupat_set_variant(ctx, "gemm_tc", rungs[r]));
            gemm_cases(ctx);
        }
        CHECK_OK(ctx, cupat_set_variant(ctx, "gemm_tc", NULL));
    } else {
        gemm_cases(ctx);
    }
    return test_finish(ctx);
}
