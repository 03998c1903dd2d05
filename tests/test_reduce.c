/* SPDX-License-Identifier: Apache-2.0 */
/* test_reduce.c — every rung of "reduce" and "dot" on the chosen backend,
 * against references written here (not the library's CPU path).
 *
 * Integers, min, max, argmin and argmax must match exactly (bits; NaN: any
 * NaN). Float sums must lie within the a-priori bound of the rung's
 * summation tree, gamma(h) * sum|x_i| with h its depth (Higham, Accuracy and
 * Stability of Numerical Algorithms, 2nd ed., sec. 4.2), or for compensated
 * rungs u |s| + 2 gamma(h)^2 sum|x_i|, against a double-double reference.
 * Sizes 0, 1, 31, 32, 33, 1023, 1025, 2^20+7, 2^28 (CPU: 2^22), 2^32+3 (CUDA,
 * default rung, memory permitting); fresh seeded inputs, poisoned outputs,
 * IEEE special values, determinism, bad arguments, and the dot-product
 * example of the lecture "Advanced Techniques".
 *
 * even_share runs in every configuration the bench sweeps; the CDP rungs at
 * their cap, 2^24, and refuse 2^24 + 1.
 * Options: --small (sizes <= 2^16, for compute-sanitizer), --rung NAME (one
 * rung only), --report (print each rung's f32 sum error, for docs/reduce.md);
 * CUPAT_TEST_NO_CDP=1 skips the dynamic-parallelism rungs. */
#include "testutil.h"

#include "../src/reduce/reduce_priv.h"

#include <cuda_runtime_api.h>
#include <float.h>
#include <math.h>
#include <stdint.h>

static cupat_ctx *ctx;
#define xmalloc(bytes) test_xmalloc(bytes)
#define dalloc(bytes) test_dalloc(ctx, bytes)
static const char *only_rung;
static int no_cdp, report;

/* ------------------------------------------------------------- helpers -- */

#define dfree(p) test_dfree(ctx, p)
#define put(d, h, bytes) test_put(ctx, d, h, bytes)
#define get(h, d, bytes) test_get(ctx, h, d, bytes)

static const cupat_type types[] = {CUPAT_F32, CUPAT_F64, CUPAT_I32, CUPAT_U32, CUPAT_I64, CUPAT_U64};
static const cupat_op ops[] = {CUPAT_OP_SUM, CUPAT_OP_MIN, CUPAT_OP_MAX, CUPAT_OP_ARGMIN, CUPAT_OP_ARGMAX};
#define NTYPES 6
#define NOPS 5

static int is_float(cupat_type t) { return t == CUPAT_F32 || t == CUPAT_F64; }
static int is_arg(cupat_op op) { return op == CUPAT_OP_ARGMIN || op == CUPAT_OP_ARGMAX; }
static size_t rbytes(cupat_type t, cupat_op op)
{
    return is_arg(op) ? sizeof(cupat_indexed) : cupat_type_size(t);
}
static int is_cdp(const char *name) { return strncmp(name, "cdp_", 4) == 0; }

#define rungs_of(pattern, list, idx) test_rungs_of(pattern, only_rung, no_cdp, list, idx)

/* ------------------------------------------------------------ inputs -- */

static double rand_unit(void) { return (double)(test_rand() >> 11) * 0x1p-53; } /* [0, 1) */

/* ties != 0: few distinct values, so min/max occur many times (first index). */
static void gen(cupat_type t, void *h, size_t n, int ties)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t r = test_rand();
        switch (t) {
        case CUPAT_F32:
            ((float *)h)[i] = ties ? (float)((int)(r % 9) - 4) * 0.25f : test_randf();
            break;
        case CUPAT_F64:
            ((double *)h)[i] = ties ? (double)((int)(r % 9) - 4) * 0.25 : 2 * rand_unit() - 1;
            break;
        case CUPAT_I32: ((int32_t *)h)[i] = ties ? (int32_t)(r % 9) - 4 : (int32_t)(uint32_t)r; break;
        case CUPAT_U32: ((uint32_t *)h)[i] = ties ? (uint32_t)(r % 9) : (uint32_t)r; break;
        case CUPAT_I64: ((int64_t *)h)[i] = ties ? (int64_t)(r % 9) - 4 : (int64_t)r; break;
        case CUPAT_U64: ((uint64_t *)h)[i] = ties ? r % 9 : r; break;
        }
    }
}

/* --------------------------------------------------------- references -- */

/* Element i as the reference sees it. */
static double getf(cupat_type t, const void *h, size_t i)
{
    return t == CUPAT_F32 ? (double)((const float *)h)[i] : ((const double *)h)[i];
}
static int64_t geti(cupat_type t, const void *h, size_t i)
{
    switch (t) {
    case CUPAT_I32: return ((const int32_t *)h)[i];
    case CUPAT_U32: return (int64_t)((const uint32_t *)h)[i];
    case CUPAT_I64: return ((const int64_t *)h)[i];
    default: return (int64_t)((const uint64_t *)h)[i];
    }
}
static uint64_t getu(cupat_type t, const void *h, size_t i) { return (uint64_t)geti(t, h, i); }
static int is_signed(cupat_type t) { return t == CUPAT_I32 || t == CUPAT_I64; }

/* a strictly before b in IEEE 754-2019 order (-0 < +0); neither NaN. */
static int flt_less(double a, double b)
{
    return a < b || (a == 0 && b == 0 && signbit(a) && !signbit(b));
}
static int int_less(cupat_type t, uint64_t a, uint64_t b)
{
    return is_signed(t) ? (int64_t)a < (int64_t)b : a < b;
}

/* Double-double sum (TwoSum in double): exact to ~2^-104 relative per step. */
typedef struct {
    double hi, lo, abs;
    int nan, pinf, ninf;
} fsum;
static void fsum_add(fsum *s, double v)
{
    if (isnan(v)) s->nan = 1;
    else if (isinf(v)) {
        if (v > 0) s->pinf = 1;
        else s->ninf = 1;
    }
    else {
        double t = s->hi + v, bb = t - s->hi;
        double e = (s->hi - (t - bb)) + (v - bb);
        s->hi = t;
        s->lo += e;
        s->abs += fabs(v);
    }
}

typedef struct {
    /* exact results (ints, min/max/arg): the result bytes expected */
    unsigned char bytes[16];
    int want_nan; /* float result must be NaN (bytes not compared) */
    /* float sums */
    fsum s;
    int negzero_sum; /* every element is -0: the sum must be -0 */
} ref_t;

static void reference(cupat_type t, cupat_op op, const void *h, size_t n, ref_t *r)
{
    memset(r, 0, sizeof *r);
    size_t esz = cupat_type_size(t);
    cupat_indexed ix;
    memset(&ix, 0, sizeof ix);
    if (n == 0) {
        /* identities, written out by hand */
        ix.index = CUPAT_NO_INDEX;
        int lo = op == CUPAT_OP_MAX || op == CUPAT_OP_ARGMAX;
        if (op != CUPAT_OP_SUM) switch (t) {
            case CUPAT_F32: ix.value.f32 = lo ? -INFINITY : INFINITY; break;
            case CUPAT_F64: ix.value.f64 = lo ? -INFINITY : INFINITY; break;
            case CUPAT_I32: ix.value.i32 = lo ? INT32_MIN : INT32_MAX; break;
            case CUPAT_U32: ix.value.u32 = lo ? 0 : UINT32_MAX; break;
            case CUPAT_I64: ix.value.i64 = lo ? INT64_MIN : INT64_MAX; break;
            case CUPAT_U64: ix.value.u64 = lo ? 0 : UINT64_MAX; break;
            }
        memcpy(r->bytes, &ix, sizeof ix);
        return;
    }
    if (op == CUPAT_OP_SUM) {
        if (is_float(t)) {
            int allneg0 = 1;
            for (size_t i = 0; i < n; i++) {
                double v = getf(t, h, i);
                fsum_add(&r->s, v);
                if (!(v == 0 && signbit(v))) allneg0 = 0;
            }
            r->want_nan = r->s.nan || (r->s.pinf && r->s.ninf);
            r->negzero_sum = allneg0;
        } else {
            uint64_t acc = 0;
            for (size_t i = 0; i < n; i++) acc += getu(t, h, i);
            memcpy(r->bytes, &acc, esz); /* little-endian: low bytes */
        }
        return;
    }
    int want_max = op == CUPAT_OP_MAX || op == CUPAT_OP_ARGMAX;
    size_t best = 0;
    if (is_float(t)) {
        size_t first_nan = SIZE_MAX;
        for (size_t i = 0; i < n; i++) {
            double v = getf(t, h, i), b = getf(t, h, best);
            if (isnan(v)) {
                first_nan = i;
                break;
            }
            if (want_max ? flt_less(b, v) : flt_less(v, b)) best = i;
        }
        if (first_nan != SIZE_MAX) {
            r->want_nan = 1;
            best = first_nan;
        }
    } else {
        for (size_t i = 0; i < n; i++) {
            uint64_t v = getu(t, h, i), b = getu(t, h, best);
            if (want_max ? int_less(t, b, v) : int_less(t, v, b)) best = i;
        }
    }
    memcpy(&ix.value, (const char *)h + best * esz, esz);
    ix.index = best;
    memcpy(r->bytes, &ix, is_arg(op) ? sizeof ix : esz);
}

/* ------------------------------------------------------------- checks -- */

static double gamma_(size_t k, double u)
{
    double ku = (double)k * u;
    return ku >= 1 ? INFINITY : ku / (1 - ku);
}

/* Observed |got - exact| and the bound, for a float sum. */
typedef struct {
    double err, bound;
} ferr;

static ferr sum_error(cupat_type t, const ref_t *r, double got, size_t depth, int comp,
                      size_t n, double abs_sum)
{
    double u = t == CUPAT_F32 ? 0x1p-24 : 0x1p-53;
    long double exact = (long double)r->s.hi + (long double)r->s.lo;
    ferr f;
    f.err = (double)fabsl((long double)got - exact);
    double g = gamma_(depth, u);
    double ref_err = (double)n * 0x1p-104 * abs_sum; /* the double-double reference */
    f.bound = comp ? u * fabs((double)exact) + 2 * g * g * abs_sum + ref_err : g * abs_sum + ref_err;
    return f;
}

/* Compare one result; returns 1 when right. */
static int check_one(const char *what, const char *rung, cupat_type t, cupat_op op, size_t n,
                     const ref_t *r, const unsigned char *got, size_t depth, int comp)
{
    char tag[160];
    snprintf(tag, sizeof tag, "%s rung %s %s %s n=%zu", what, rung, cupat_type_name(t),
             cupat_op_name(op), n);
    size_t esz = cupat_type_size(t);
    if (op == CUPAT_OP_SUM && is_float(t) && n > 0) {
        double g = t == CUPAT_F32 ? (double)*(const float *)got : *(const double *)got;
        if (r->want_nan) {
            CHECK(isnan(g), "%s: got %.17g, want NaN", tag, g);
            return isnan(g);
        }
        if (r->s.pinf || r->s.ninf) {
            double want = r->s.pinf ? INFINITY : -INFINITY;
            CHECK(g == want, "%s: got %.17g, want %g", tag, g, want);
            return g == want;
        }
        if (r->negzero_sum) {
            int ok = g == 0 && signbit(g);
            CHECK(ok, "%s: got %.17g, want -0", tag, g);
            return ok;
        }
        CHECK(!isnan(g), "%s: got NaN", tag);
        ferr f = sum_error(t, r, g, depth, comp, n, r->s.abs);
        CHECK(f.err <= f.bound, "%s: |error| %.3g > bound %.3g (depth %zu, sum|x| %.6g)", tag,
              f.err, f.bound, depth, r->s.abs);
        return f.err <= f.bound;
    }
    if (r->want_nan) {
        double g = t == CUPAT_F32 ? (double)*(const float *)got : *(const double *)got;
        int ok = isnan(g);
        if (is_arg(op)) {
            /* argmin/argmax return the winning element itself: its NaN's bits */
            uint64_t gi, wi, gb = 0, wb = 0;
            memcpy(&gi, got + 8, 8);
            memcpy(&wi, r->bytes + 8, 8);
            memcpy(&gb, got, esz);
            memcpy(&wb, r->bytes, esz);
            ok = ok && gi == wi && gb == wb;
            CHECK(ok, "%s: got (%g 0x%llx, %llu), want (NaN 0x%llx, %llu)", tag, g,
                  (unsigned long long)gb, (unsigned long long)gi, (unsigned long long)wb,
                  (unsigned long long)wi);
        } else {
            CHECK(ok, "%s: got %g, want NaN", tag, g);
        }
        return ok;
    }
    size_t nb = is_arg(op) ? 16 : esz;
    int ok = memcmp(got, r->bytes, nb) == 0;
    uint64_t gv = 0, wv = 0, gi = 0, wi = 0;
    memcpy(&gv, got, esz);
    memcpy(&wv, r->bytes, esz);
    if (is_arg(op)) {
        memcpy(&gi, got + 8, 8);
        memcpy(&wi, r->bytes + 8, 8);
    }
    CHECK(ok, "%s: got bits 0x%llx index %llu, want bits 0x%llx index %llu", tag,
          (unsigned long long)gv, (unsigned long long)gi, (unsigned long long)wv,
          (unsigned long long)wi);
    return ok;
}

/* Run the pinned rung on device data dx (n elements) and check. `hostres`
 * alternates between the device-result and host-result entry points. */
static void run_check(const char *rung, int rung_idx, cupat_type t, cupat_op op, size_t n,
                      const void *dx, const ref_t *r, void *dres, int hostres)
{
    unsigned char got[16];
    memset(got, 0xFF, sizeof got);
    size_t nb = rbytes(t, op);
    cupat_status s;
    if (hostres) {
        s = cupat_reduce_host(ctx, t, op, n, dx, got);
    } else {
        test_poison(ctx, dres, 16);
        s = cupat_reduce(ctx, t, op, n, dx, dres);
        if (s == CUPAT_SUCCESS) get(got, dres, nb);
    }
    CHECK(s == CUPAT_SUCCESS, "rung %s %s %s n=%zu: %s: %s", rung, cupat_type_name(t),
          cupat_op_name(op), n, cupat_status_string(s), cupat_last_error(ctx));
    if (s != CUPAT_SUCCESS) return;
    size_t depth = cupat__reduce_depth(ctx, 0, rung_idx, t, n);
    int comp = strstr(rung, "compensated") != NULL;
    check_one(hostres ? "host" : "device", rung, t, op, n, r, got, depth, comp);
}

/* ------------------------------------------------------ the main sweep -- */

static size_t max_size(void) { return t_backend == CUPAT_BACKEND_CUDA ? (size_t)1 << 28 : (size_t)1 << 22; }

static void test_sweep(void)
{
    size_t sizes_full[] = {0, 1, 31, 32, 33, 1023, 1025, ((size_t)1 << 20) + 7, max_size()};
    size_t sizes_small[] = {0, 1, 31, 32, 33, 1023, 1025, 4097, (size_t)1 << 16};
    size_t *sizes = t_small ? sizes_small : sizes_full;
    size_t nsizes = t_small ? sizeof sizes_small / sizeof *sizes_small
                            : sizeof sizes_full / sizeof *sizes_full;
    const cupat_variant_info *list;
    int idx[64];
    size_t nr = rungs_of("reduce", &list, idx);
    void *dres = dalloc(16);
    for (int ti = 0; ti < NTYPES; ti++) {
        cupat_type t = types[ti];
        size_t esz = cupat_type_size(t);
        for (size_t si = 0; si < nsizes; si++) {
            size_t n = sizes[si];
            void *h = xmalloc(n * esz);
            gen(t, h, n, 0);
            void *dx = dalloc(n * esz);
            put(dx, h, n * esz);
            for (int oi = 0; oi < NOPS; oi++) {
                if (!test_keep_case()) continue;
                ref_t r;
                reference(t, ops[oi], h, n, &r);
                for (size_t k = 0; k < nr; k++) {
                    const char *name = list[idx[k]].name;
                    /* the recursive rungs launch ~n/512 x 8 grids: keep them to 2^20+7 */
                    if (is_cdp(name) && n > ((size_t)1 << 20) + 7) continue;
                    CHECK_OK(ctx, cupat_set_variant(ctx, "reduce", name));
                    run_check(name, idx[k], t, ops[oi], n, dx, &r, dres, (int)((k + si) & 1));
                }
            }
            dfree(dx);
            free(h);
        }
        printf("reduce %s: %zu rungs x %d ops x %zu sizes done\n", cupat_type_name(t), nr, NOPS,
               nsizes);
        fflush(stdout);
    }
    CHECK_OK(ctx, cupat_set_variant(ctx, "reduce", NULL));
    dfree(dres);
}

/* First-index ties and misaligned starts: few distinct values, x + 1. */
static void test_ties_misaligned(void)
{
    const cupat_variant_info *list;
    int idx[64];
    size_t nr = rungs_of("reduce", &list, idx);
    void *dres = dalloc(16);
    size_t sizes[] = {1025, t_small ? 4099 : ((size_t)1 << 20) + 7};
    for (int ti = 0; ti < NTYPES; ti++) {
        cupat_type t = types[ti];
        size_t esz = cupat_type_size(t);
        for (int si = 0; si < 2; si++) {
            size_t n = sizes[si];
            void *h = xmalloc((n + 1) * esz);
            gen(t, h, n + 1, 1);
            void *dx = dalloc((n + 1) * esz);
            put(dx, h, (n + 1) * esz);
            for (int oi = 0; oi < NOPS; oi++) {
                if (!test_keep_case()) continue;
                ref_t r;
                /* misaligned by one element: x + 1 */
                reference(t, ops[oi], (char *)h + esz, n, &r);
                for (size_t k = 0; k < nr; k++) {
                    const char *name = list[idx[k]].name;
                    CHECK_OK(ctx, cupat_set_variant(ctx, "reduce", name));
                    run_check(name, idx[k], t, ops[oi], n, (char *)dx + esz, &r, dres, 0);
                }
            }
            dfree(dx);
            free(h);
        }
    }
    CHECK_OK(ctx, cupat_set_variant(ctx, "reduce", NULL));
    dfree(dres);
}

/* IEEE special values at random places (every float rung and op). */
static void test_specials(void)
{
    const cupat_variant_info *list;
    int idx[64];
    size_t nr = rungs_of("reduce", &list, idx);
    void *dres = dalloc(16);
    enum { NCASE = 8 };
    const char *cname[NCASE] = {"one NaN", "+inf", "+inf and -inf", "-inf",
                                "all -0", "+0 and -0", "NaN and inf", "NaNs with payloads"};
    size_t ns[] = {33, 1025, t_small ? 4099 : ((size_t)1 << 20) + 7};
    for (int fi = 0; fi < 2; fi++) {
        cupat_type t = fi ? CUPAT_F64 : CUPAT_F32;
        size_t esz = cupat_type_size(t);
        for (int c = 0; c < NCASE; c++)
            for (int si = 0; si < 3; si++) {
                size_t n = ns[si];
                double *v = xmalloc(n * sizeof *v);
                for (size_t i = 0; i < n; i++) v[i] = 2 * rand_unit() - 1;
                size_t p1 = test_rand() % n, p2 = test_rand() % n;
                switch (c) {
                case 0: v[p1] = NAN; break;
                case 1: v[p1] = INFINITY; break;
                case 2: v[p1] = INFINITY; v[p2 == p1 ? (p1 + 1) % n : p2] = -INFINITY; break;
                case 3: v[p1] = -INFINITY; break;
                case 4: for (size_t i = 0; i < n; i++) v[i] = -0.0; break;
                case 5:
                    for (size_t i = 0; i < n; i++) v[i] = (i & 1) ? -0.0 : 0.0;
                    break;
                case 6: v[p1] = NAN; v[p2 == p1 ? (p1 + 1) % n : p2] = INFINITY; break;
                }
                void *h = xmalloc(n * esz);
                for (size_t i = 0; i < n; i++) {
                    if (t == CUPAT_F32) ((float *)h)[i] = (float)v[i];
                    else ((double *)h)[i] = v[i];
                }
                if (c == 7) { /* two quiet NaNs with their own sign and payload */
                    size_t q = p2 == p1 ? (p1 + 1) % n : p2;
                    if (t == CUPAT_F32) {
                        uint32_t a = 0xffc0beefu, b = 0x7fc01234u;
                        memcpy((float *)h + p1, &a, 4);
                        memcpy((float *)h + q, &b, 4);
                    } else {
                        uint64_t a = 0xfff800000000beefull, b = 0x7ff8000000001234ull;
                        memcpy((double *)h + p1, &a, 8);
                        memcpy((double *)h + q, &b, 8);
                    }
                }
                void *dx = dalloc(n * esz);
                put(dx, h, n * esz);
                for (int oi = 0; oi < NOPS; oi++) {
                    if (!test_keep_case()) continue;
                    ref_t r;
                    reference(t, ops[oi], h, n, &r);
                    for (size_t k = 0; k < nr; k++) {
                        const char *name = list[idx[k]].name;
                        CHECK_OK(ctx, cupat_set_variant(ctx, "reduce", name));
                        int before = t_failures;
                        run_check(name, idx[k], t, ops[oi], n, dx, &r, dres, (int)(k & 1));
                        if (t_failures != before) fprintf(stderr, "  (case: %s)\n", cname[c]);
                    }
                }
                dfree(dx);
                free(h);
                free(v);
            }
    }
    CHECK_OK(ctx, cupat_set_variant(ctx, "reduce", NULL));
    dfree(dres);
}

/* Same bits run after run, and on another stream. */
static void test_determinism(void)
{
    size_t n = t_small ? ((size_t)1 << 16) + 3 : t_backend == CUPAT_BACKEND_CUDA ? ((size_t)1 << 24) + 3 : ((size_t)1 << 22) + 3;
    const char *rungs_cuda[] = {"decoupled", "even_share", "compensated", "last_block", "persistent", "shfl"};
    const char *rungs_cpu[] = {"openmp", "openmp_compensated"};
    const char **rs = t_backend == CUPAT_BACKEND_CUDA ? rungs_cuda : rungs_cpu;
    size_t nrs = t_backend == CUPAT_BACKEND_CUDA ? 6 : 2;
    float *h = xmalloc(n * sizeof *h);
    gen(CUPAT_F32, h, n, 0);
    float *dx = dalloc(n * sizeof *h);
    put(dx, h, n * sizeof *h);
    for (size_t k = 0; k < nrs; k++) {
        if (only_rung && strcmp(only_rung, rs[k]) != 0) continue;
        CHECK_OK(ctx, cupat_set_variant(ctx, "reduce", rs[k]));
        float first = 0, again = 0;
        CHECK_OK(ctx, cupat_reduce_host(ctx, CUPAT_F32, CUPAT_OP_SUM, n, dx, &first));
        for (int rep = 0; rep < 3; rep++) {
            CHECK_OK(ctx, cupat_reduce_host(ctx, CUPAT_F32, CUPAT_OP_SUM, n, dx, &again));
            CHECK(memcmp(&first, &again, 4) == 0, "rung %s: run %d gave %.9g, first %.9g", rs[k],
                  rep, again, first);
        }
        if (t_backend == CUPAT_BACKEND_CUDA) {
            cudaStream_t s2;
            CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking) == cudaSuccess, "stream");
            CHECK_OK(ctx, cupat_set_stream(ctx, (cupat_stream)s2));
            /* queue other work first so the timing differs */
            float *junk = dalloc(n * sizeof *h);
            CHECK_OK(ctx, cupat_memcpy(ctx, junk, dx, n * sizeof *h));
            CHECK_OK(ctx, cupat_reduce_host(ctx, CUPAT_F32, CUPAT_OP_SUM, n, dx, &again));
            CHECK(memcmp(&first, &again, 4) == 0, "rung %s: other stream gave %.9g, first %.9g",
                  rs[k], again, first);
            CHECK_OK(ctx, cupat_sync(ctx));
            dfree(junk);
            CHECK_OK(ctx, cupat_set_stream(ctx, NULL));
            cudaStreamDestroy(s2);
        }
    }
    CHECK_OK(ctx, cupat_set_variant(ctx, "reduce", NULL));
    dfree(dx);
    free(h);
}

/* even_share in every configuration the bench sweeps (block 256/512, 4 or 8
 * loads in flight, cache hint; grid one tile per block, 1 or 7 x resident):
 * f32 sum (bound), i32
 * sum, f32 max, f32 argmax (exact), aligned and misaligned. */
static void test_even_configs(void)
{
    if (t_backend != CUPAT_BACKEND_CUDA) return;
    if (only_rung && strcmp(only_rung, "even_share") != 0) return;
    const cupat_variant_info *list;
    size_t nv = 0;
    CHECK_OK(NULL, cupat_variants("reduce", &list, &nv));
    int idx = -1;
    for (size_t i = 0; i < nv; i++)
        if (strcmp(list[i].name, "even_share") == 0) idx = (int)i;
    CHECK(idx >= 0, "even_share is registered");
    if (idx < 0) return;
    /* 2^24 + 7: G > block in every configuration, so the two-level finish
     * runs (one group only under --small) */
    size_t n = t_small ? 40000 : ((size_t)1 << 24) + 7;
    float *h = xmalloc((n + 1) * 4);
    gen(CUPAT_F32, h, n + 1, 0);
    float *dx = dalloc((n + 1) * 4);
    put(dx, h, (n + 1) * 4);
    void *dres = dalloc(16);
    const cupat_type ts[4] = {CUPAT_F32, CUPAT_I32, CUPAT_F32, CUPAT_F32};
    const cupat_op os[4] = {CUPAT_OP_SUM, CUPAT_OP_SUM, CUPAT_OP_MAX, CUPAT_OP_ARGMAX};
    const int subs[3] = {0, 1, 7};
    CHECK_OK(ctx, cupat_set_variant(ctx, "reduce", "even_share"));
    for (int mis = 0; mis < 2; mis++)
        for (int q = 0; q < 4; q++) {
            ref_t r;
            reference(ts[q], os[q], h + mis, n, &r);
            for (int key = 0; key < 8; key++)
                for (int si = 0; si < 3; si++) {
                    reduce_even_cfg c = {subs[si], key & 4 ? 8 : 4, key & 2 ? 512 : 256, key & 1};
                    CHECK(cupat__reduce_even_set(&c) == 0, "even config %d", key);
                    char name[64];
                    snprintf(name, sizeof name, "even_share[sub %d loads %d block %d hint %d%s]",
                             c.sub, c.loads, c.block, c.hint, mis ? " misaligned" : "");
                    run_check(name, idx, ts[q], os[q], n, dx + mis, &r, dres, (key + si) & 1);
                }
        }
    reduce_even_cfg bad = {-1, 4, 256, 0}, bad_loads = {0, 6, 256, 0};
    CHECK(cupat__reduce_even_set(&bad) == -1, "even config sub -1 refused");
    CHECK(cupat__reduce_even_set(&bad_loads) == -1, "even config loads 6 refused");
    CHECK(cupat__reduce_even_set(NULL) == 0, "even config defaults");
    CHECK_OK(ctx, cupat_set_variant(ctx, "reduce", NULL));
    dfree(dx);
    dfree(dres);
    free(h);
}

/* The dynamic-parallelism rungs at their largest accepted size, 2^24 (many
 * host chunks, the device launch pool sized from the launch plan), and the
 * refusal one element above it. */
static void test_cdp_cap(void)
{
    if (t_backend != CUPAT_BACKEND_CUDA || t_small || no_cdp) return;
    if (only_rung && !is_cdp(only_rung)) return;
    const size_t n = CUPAT_REDUCE_CDP_MAX_N;
    const cupat_variant_info *list;
    int idx[64];
    size_t nr = rungs_of("reduce", &list, idx);
    float *h = xmalloc((n + 1) * 4);
    gen(CUPAT_F32, h, n + 1, 0);
    float *dx = dalloc((n + 1) * 4);
    put(dx, h, (n + 1) * 4);
    void *dres = dalloc(16);
    ref_t rs, ra;
    reference(CUPAT_F32, CUPAT_OP_SUM, h, n, &rs);
    reference(CUPAT_F32, CUPAT_OP_ARGMAX, h, n, &ra);
    for (size_t k = 0; k < nr; k++) {
        const char *name = list[idx[k]].name;
        if (!is_cdp(name)) continue;
        CHECK_OK(ctx, cupat_set_variant(ctx, "reduce", name));
        run_check(name, idx[k], CUPAT_F32, CUPAT_OP_SUM, n, dx, &rs, dres, 1);
        run_check(name, idx[k], CUPAT_F32, CUPAT_OP_ARGMAX, n, dx, &ra, dres, 0);
        float got = 0;
        CHECK_FAILS(ctx, CUPAT_ERROR_NOT_SUPPORTED, "n <= 2^24",
                    cupat_reduce_host(ctx, CUPAT_F32, CUPAT_OP_SUM, n + 1, dx, &got));
        printf("%s: n = 2^24 checked, 2^24 + 1 refused\n", name);
    }
    CHECK_OK(ctx, cupat_set_variant(ctx, "reduce", NULL));
    dfree(dx);
    dfree(dres);
    free(h);
}

/* ------------------------------------------------------------------ dot -- */

static void dot_ref(cupat_type t, const void *x, const void *y, size_t n, fsum *s, double *pabs)
{
    memset(s, 0, sizeof *s);
    *pabs = 0;
    for (size_t i = 0; i < n; i++) {
        double a = getf(t, x, i), b = getf(t, y, i);
        if (t == CUPAT_F32) {
            fsum_add(s, a * b); /* exact in double */
        } else {
            double p = a * b, pe = fma(a, b, -p); /* exact product as p + pe */
            fsum_add(s, p);
            s->lo += pe;
        }
        *pabs += fabs(a * b);
    }
}

static void test_dot(void)
{
    const cupat_variant_info *list;
    int idx[16];
    size_t nr = rungs_of("dot", &list, idx);
    size_t sizes_full[] = {0, 1, 4, 33, 1025, ((size_t)1 << 20) + 7, t_backend == CUPAT_BACKEND_CUDA ? (size_t)1 << 26 : (size_t)1 << 21};
    size_t sizes_small[] = {0, 1, 4, 33, 1025, (size_t)1 << 16};
    size_t *sizes = t_small ? sizes_small : sizes_full;
    size_t nsz = t_small ? 6 : 7;
    void *dres = dalloc(16);
    for (int fi = 0; fi < 2; fi++) {
        cupat_type t = fi ? CUPAT_F64 : CUPAT_F32;
        size_t esz = cupat_type_size(t);
        for (size_t si = 0; si < nsz; si++)
            for (int mis = 0; mis < 2; mis++) { /* mis: y one element off x's alignment */
                size_t n = sizes[si];
                void *hx = xmalloc((n + 1) * esz), *hy = xmalloc((n + 1) * esz);
                gen(t, hx, n + 1, 0);
                gen(t, hy, n + 1, 0);
                void *dx = dalloc((n + 1) * esz), *dy = dalloc((n + 1) * esz);
                put(dx, hx, (n + 1) * esz);
                put(dy, hy, (n + 1) * esz);
                const void *hyy = mis ? (char *)hy + esz : hy;
                const void *dyy = mis ? (char *)dy + esz : dy;
                fsum s;
                double pabs;
                dot_ref(t, hx, hyy, n, &s, &pabs);
                for (size_t k = 0; k < nr; k++) {
                    const char *name = list[idx[k]].name;
                    if (n > ((size_t)1 << 21) && t_backend == CUPAT_BACKEND_CPU &&
                        strcmp(name, "pairwise") == 0)
                        continue;
                    CHECK_OK(ctx, cupat_set_variant(ctx, "dot", name));
                    unsigned char got[16];
                    memset(got, 0xFF, sizeof got);
                    cupat_status st;
                    if (k & 1) {
                        st = cupat_dot_host(ctx, t, n, dx, dyy, got);
                    } else {
                        test_poison(ctx, dres, 16);
                        st = cupat_dot(ctx, t, n, dx, dyy, dres);
                        if (st == CUPAT_SUCCESS) get(got, dres, esz);
                    }
                    CHECK(st == CUPAT_SUCCESS, "dot %s %s n=%zu: %s", name, cupat_type_name(t), n,
                          cupat_last_error(ctx));
                    if (st != CUPAT_SUCCESS) continue;
                    double g = t == CUPAT_F32 ? (double)*(float *)got : *(double *)got;
                    if (n == 0) {
                        CHECK(g == 0 && !signbit(g), "dot %s n=0: got %g, want +0", name, g);
                        continue;
                    }
                    ref_t r;
                    memset(&r, 0, sizeof r);
                    r.s = s;
                    size_t depth = cupat__reduce_depth(ctx, 1, idx[k], t, n);
                    int comp = strstr(name, "compensated") != NULL;
                    ferr f = sum_error(t, &r, g, depth, comp, n, pabs);
                    CHECK(f.err <= f.bound, "dot %s %s n=%zu%s: |error| %.3g > bound %.3g (depth %zu)",
                          name, cupat_type_name(t), n, mis ? " misaligned" : "", f.err, f.bound,
                          depth);
                }
                dfree(dx);
                dfree(dy);
                free(hx);
                free(hy);
            }
    }
    CHECK_OK(ctx, cupat_set_variant(ctx, "dot", NULL));
    dfree(dres);
}

/* The lecture's example (slides "Advanced Techniques: Floating Point"; the
 * same vectors as NVIDIA's "Floating Point and IEEE 754 Compliance" paper,
 * which prints a3 = 1.147311; the slide prints 1.148311). Each method is
 * computed here in f32 by the algorithm the slide gives, and the matching
 * CPU rung must give the same bits. The slide's figures are printed beside:
 * they do not follow from the printed inputs (see docs/reduce.md). */
static double dd_exact4(const float *a, const float *b)
{
    fsum s;
    memset(&s, 0, sizeof s);
    for (int i = 0; i < 4; i++) fsum_add(&s, (double)a[i] * (double)b[i]);
    return s.hi + s.lo;
}

static void test_lecture_dot(void)
{
    const float b[4] = {-0.9355000f, -0.6915108f, 1.724470f, -0.7097529f};
    const float a_slide[4] = {1.907607f, -0.7862027f, 1.148311f, 0.9604002f};
    const float a_paper[4] = {1.907607f, -0.7862027f, 1.147311f, 0.9604002f};
    const char *lecture[4] = {".0559587528435...", ".0559588074", ".0559587515", ".0559587478"};
    float *dx = dalloc(16), *dy = dalloc(16);
    put(dy, b, 16);
    for (int v = 0; v < 2; v++) {
        const float *a = v ? a_paper : a_slide;
        put(dx, a, 16);
        volatile float serial = 0, p;
        for (int i = 0; i < 4; i++) {
            p = a[i] * b[i];
            serial = serial + p;
        }
        float fmav = 0;
        for (int i = 0; i < 4; i++) fmav = fmaf(a[i], b[i], fmav);
        volatile float p1 = a[0] * b[0], p2 = a[1] * b[1], p3 = a[2] * b[2], p4 = a[3] * b[3];
        volatile float sl = p1 + p2, sr = p3 + p4;
        volatile float par = sl + sr;
        double exact = dd_exact4(a, b);
        printf("lecture dot, a3 = %s:\n", v ? "1.147311 (NVIDIA paper)" : "1.148311 (slide)");
        printf("  %-10s %-18s %-16s %s\n", "method", "lecture", "IEEE f32 here", "error");
        printf("  %-10s %-18s %.13f\n", "exact", lecture[0], exact);
        const char *names[3] = {"serial", "FMA", "parallel"};
        const char *rungs[3] = {"serial", "serial_fma", "pairwise"};
        float mine[3] = {serial, fmav, par};
        for (int m = 0; m < 3; m++) {
            printf("  %-10s %-18s %.10f     %+.3g\n", names[m], lecture[m + 1], mine[m],
                   mine[m] - exact);
            if (t_backend == CUPAT_BACKEND_CPU) {
                float got = -1;
                CHECK_OK(ctx, cupat_set_variant(ctx, "dot", rungs[m]));
                CHECK_OK(ctx, cupat_dot_host(ctx, CUPAT_F32, 4, dx, dy, &got));
                CHECK(memcmp(&got, &mine[m], 4) == 0, "dot rung %s: %.10f, the %s method gives %.10f",
                      rungs[m], got, names[m], mine[m]);
            }
        }
        CHECK_OK(ctx, cupat_set_variant(ctx, "dot", NULL));
        float dflt = 0, comp = 0;
        CHECK_OK(ctx, cupat_dot_host(ctx, CUPAT_F32, 4, dx, dy, &dflt));
        if (t_backend == CUPAT_BACKEND_CUDA) {
            CHECK_OK(ctx, cupat_set_variant(ctx, "dot", "compensated"));
            CHECK_OK(ctx, cupat_dot_host(ctx, CUPAT_F32, 4, dx, dy, &comp));
            CHECK_OK(ctx, cupat_set_variant(ctx, "dot", NULL));
            printf("  %-10s %-18s %.10f     %+.3g\n", "compensated", "", comp, comp - exact);
            /* Dot2 at n = 4: within one rounding of the exact value */
            CHECK(fabs(comp - exact) <= 0x1p-24 * fabs(exact) * 1.01, "compensated dot %.10f vs exact %.13f", comp, exact);
        }
        printf("  %-10s %-18s %.10f     %+.3g\n", "default", "", dflt, dflt - exact);
        /* the serial and FMA orders are the slide's, so their ranking holds */
        CHECK(fabs(fmav - exact) <= fabs(serial - exact), "FMA should beat serial");
    }
    dfree(dx);
    dfree(dy);
}

/* --------------------------------------------------------- n > 2^32 -- */

static void test_huge(void)
{
    if (t_backend != CUPAT_BACKEND_CUDA || t_small) return;
    if (only_rung && strcmp(only_rung, "decoupled") != 0) return;
    const size_t n = ((size_t)1 << 32) + 3, chunk = (size_t)1 << 24;
    size_t need = n * 4 + ((size_t)64 << 20);
    size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess || free_b < need) {
        printf("n = 2^32+3: skipped (%zu MiB free, %zu MiB needed)\n", free_b >> 20, need >> 20);
        return;
    }
    CHECK_OK(ctx, cupat_set_variant(ctx, "reduce", NULL));
    /* f32: a random 2^24 chunk repeated 256 times, 3 more elements, and the
     * maximum 2.0 at index 2^32 + 1 */
    float *h = xmalloc(chunk * 4);
    gen(CUPAT_F32, h, chunk, 0);
    float *dx = dalloc(n * 4);
    put(dx, h, chunk * 4);
    for (size_t k = 1; k < 256; k++) CHECK_OK(ctx, cupat_memcpy(ctx, dx + k * chunk, dx, chunk * 4));
    const float tailv[3] = {0.5f, 2.0f, -0.25f};
    put(dx + 256 * chunk, tailv, sizeof tailv);
    fsum s;
    memset(&s, 0, sizeof s);
    for (size_t i = 0; i < chunk; i++) fsum_add(&s, h[i]);
    s.hi *= 256;
    s.lo *= 256;
    s.abs *= 256;
    for (int i = 0; i < 3; i++) fsum_add(&s, tailv[i]);
    ref_t r;
    memset(&r, 0, sizeof r);
    r.s = s;
    float sum = 0;
    CHECK_OK(ctx, cupat_reduce_host(ctx, CUPAT_F32, CUPAT_OP_SUM, n, dx, &sum));
    size_t depth = cupat__reduce_depth(ctx, 0, RR_DECOUPLED, CUPAT_F32, n);
    check_one("huge", "decoupled", CUPAT_F32, CUPAT_OP_SUM, n, &r, (unsigned char *)&sum, depth, 0);
    float mx = 0;
    CHECK_OK(ctx, cupat_reduce_host(ctx, CUPAT_F32, CUPAT_OP_MAX, n, dx, &mx));
    CHECK(mx == 2.0f, "n=2^32+3 max: %g", mx);
    cupat_indexed am;
    CHECK_OK(ctx, cupat_reduce_host(ctx, CUPAT_F32, CUPAT_OP_ARGMAX, n, dx, &am));
    CHECK(am.value.f32 == 2.0f && am.index == ((size_t)1 << 32) + 1,
          "n=2^32+3 argmax: (%g, %llu), want (2, %zu)", am.value.f32,
          (unsigned long long)am.index, ((size_t)1 << 32) + 1);
    /* i32 sum wraps: the same bytes read as integers */
    uint32_t *hi = (uint32_t *)h;
    uint64_t acc = 0;
    for (size_t i = 0; i < chunk; i++) acc += hi[i];
    acc *= 256;
    for (int i = 0; i < 3; i++) {
        uint32_t u;
        memcpy(&u, &tailv[i], 4);
        acc += u;
    }
    int32_t isum = 0;
    CHECK_OK(ctx, cupat_reduce_host(ctx, CUPAT_I32, CUPAT_OP_SUM, n, dx, &isum));
    CHECK((uint32_t)isum == (uint32_t)acc, "n=2^32+3 i32 sum: %d, want %d", isum, (int32_t)(uint32_t)acc);
    printf("n = 2^32+3: f32 sum %.9g (depth %zu), max, argmax, i32 sum checked\n", sum, depth);
    dfree(dx);
    free(h);
}

/* ------------------------------------------------------- bad arguments -- */

static void test_errors(void)
{
    float *dx = dalloc(64);
    void *dres = dalloc(16);
    float hbuf[16] = {0}, hres = 0;
    CHECK_FAILS(NULL, CUPAT_ERROR_NULL_POINTER, "ctx",
                cupat_reduce(NULL, CUPAT_F32, CUPAT_OP_SUM, 4, dx, dres));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "x is NULL",
                cupat_reduce(ctx, CUPAT_F32, CUPAT_OP_SUM, 4, NULL, dres));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "result is NULL",
                cupat_reduce(ctx, CUPAT_F32, CUPAT_OP_SUM, 4, dx, NULL));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "result is NULL",
                cupat_reduce_host(ctx, CUPAT_F32, CUPAT_OP_SUM, 4, dx, NULL));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "type = 99",
                cupat_reduce(ctx, (cupat_type)99, CUPAT_OP_SUM, 4, dx, dres));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "type = -1",
                cupat_reduce(ctx, (cupat_type)-1, CUPAT_OP_SUM, 4, dx, dres));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "op = 7",
                cupat_reduce(ctx, CUPAT_F32, (cupat_op)7, 4, dx, dres));
    CHECK_FAILS(ctx, CUPAT_ERROR_NOT_SUPPORTED, "type = i32",
                cupat_dot(ctx, CUPAT_I32, 4, dx, dx, dres));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "y is NULL",
                cupat_dot(ctx, CUPAT_F32, 4, dx, NULL, dres));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "not aligned",
                cupat_reduce(ctx, CUPAT_F32, CUPAT_OP_SUM, 4, (char *)dx + 2, dres));
    CHECK_FAILS(ctx, CUPAT_ERROR_SIZE, "overflows",
                cupat_reduce(ctx, CUPAT_F64, CUPAT_OP_SUM, SIZE_MAX / 4, dx, dres));
    /* issue 18: a result inside an input (on the GPU a race with the blocks
     * still reading it) */
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "result = ",
                cupat_reduce(ctx, CUPAT_F32, CUPAT_OP_SUM, 16, dx, dx + 4));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "overlaps x = ",
                cupat_reduce(ctx, CUPAT_F32, CUPAT_OP_SUM, 16, dx, dx + 15));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "overlaps x = ", /* 16-byte indexed result */
                cupat_reduce(ctx, CUPAT_F32, CUPAT_OP_ARGMAX, 4, dx, dx + 2));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "overlaps x = ",
                cupat_dot(ctx, CUPAT_F32, 4, dx, dx + 8, dx + 3));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "overlaps y = ",
                cupat_dot(ctx, CUPAT_F32, 4, dx, dx + 8, dx + 11));
    CHECK_OK(ctx, cupat_reduce(ctx, CUPAT_F32, CUPAT_OP_SUM, 8, dx, dx + 8)); /* just after x */
    CHECK_OK(ctx, cupat_dot(ctx, CUPAT_F32, 4, dx, dx, dx + 4));              /* x == y is fine */
    CHECK_OK(ctx, cupat_sync(ctx));
    if (t_backend == CUPAT_BACKEND_CPU) {
        CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "overlaps x = ",
                    cupat_reduce_host(ctx, CUPAT_F32, CUPAT_OP_SUM, 16, hbuf, hbuf + 7));
        CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "overlaps y = ",
                    cupat_dot_host(ctx, CUPAT_F32, 8, hbuf + 8, hbuf, hbuf + 1));
    }
    CHECK_FAILS(ctx, CUPAT_ERROR_NOT_FOUND, "no rung \"nope\"",
                cupat_set_variant(ctx, "reduce", "nope"));
    CHECK_FAILS(ctx, CUPAT_ERROR_NOT_FOUND, "unknown pattern",
                cupat_set_variant(ctx, "reduction", "shfl"));
    if (t_backend == CUPAT_BACKEND_CUDA) {
        CHECK_FAILS(ctx, CUPAT_ERROR_HOST_POINTER, "x = ",
                    cupat_reduce(ctx, CUPAT_F32, CUPAT_OP_SUM, 16, hbuf, dres));
        CHECK_FAILS(ctx, CUPAT_ERROR_HOST_POINTER, "result = ",
                    cupat_reduce(ctx, CUPAT_F32, CUPAT_OP_SUM, 16, dx, &hres));
        CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "device memory",
                    cupat_reduce_host(ctx, CUPAT_F32, CUPAT_OP_SUM, 16, dx, dres));
        CHECK_FAILS(ctx, CUPAT_ERROR_NOT_SUPPORTED, "cpu backend",
                    cupat_set_variant(ctx, "reduce", "serial"));
    } else {
        CHECK_FAILS(ctx, CUPAT_ERROR_NOT_SUPPORTED, "cuda backend",
                    cupat_set_variant(ctx, "reduce", "shfl"));
    }
    /* n == 0 accepts NULL x and gives the identity; a failed call leaves the
     * context usable */
    float z = -1;
    CHECK_OK(ctx, cupat_reduce_host(ctx, CUPAT_F32, CUPAT_OP_SUM, 0, NULL, &z));
    CHECK(z == 0 && !signbit(z), "empty sum: %g", z);
    cupat_indexed e;
    CHECK_OK(ctx, cupat_reduce_host(ctx, CUPAT_I64, CUPAT_OP_ARGMIN, 0, NULL, &e));
    CHECK(e.value.i64 == INT64_MAX && e.index == CUPAT_NO_INDEX, "empty argmin: %lld %llu",
          (long long)e.value.i64, (unsigned long long)e.index);
    CHECK(strcmp(cupat_type_name(CUPAT_U64), "u64") == 0 && cupat_type_size(CUPAT_F64) == 8 &&
              cupat_type_size((cupat_type)42) == 0 && strcmp(cupat_op_name(CUPAT_OP_ARGMAX), "argmax") == 0,
          "type/op names");
    dfree(dx);
    dfree(dres);
}

/* Issue 18.7: a rung pinned for its technique works on either backend.
 * "compensated" (the CUDA name) and "openmp_compensated" (the CPU name) pin
 * this backend's compensated rung of reduce and of dot, which sum
 * 2^30 + 1 - 2^30 + 0.5 exactly where a plain f32 tree gives 0. */
static void test_technique_names(void)
{
    const float hx[4] = {0x1p30f, 1.0f, -0x1p30f, 0.5f}, hy[4] = {1.0f, 1.0f, 1.0f, 1.0f};
    float *dx = dalloc(sizeof hx), *dy = dalloc(sizeof hy);
    put(dx, hx, sizeof hx);
    put(dy, hy, sizeof hy);
    const char *names[2] = {"compensated", "openmp_compensated"};
    for (int dot = 0; dot < 2; dot++)
        for (int k = 0; k < 2; k++) {
            const char *pattern = dot ? "dot" : "reduce";
            CHECK_OK(ctx, cupat_set_variant(ctx, pattern, names[k]));
            const cupat_variant_info *v = NULL;
            CHECK_OK(ctx, cupat_get_variant(ctx, pattern, &v));
            CHECK(v && v->backend == t_backend && strstr(v->name, "compensated"),
                  "%s: pinning %s gives %s (%s)", pattern, names[k], v ? v->name : "none",
                  v ? cupat_backend_name(v->backend) : "");
            float r = -1;
            if (dot) CHECK_OK(ctx, cupat_dot_host(ctx, CUPAT_F32, 4, dx, dy, &r));
            else CHECK_OK(ctx, cupat_reduce_host(ctx, CUPAT_F32, CUPAT_OP_SUM, 4, dx, &r));
            CHECK(r == 1.5f, "%s pinned as %s: %.9g, want 1.5", pattern, names[k], r);
        }
    /* a rung with no form here names the ones there are */
    const char *other = t_backend == CUPAT_BACKEND_CUDA ? "serial" : "shfl";
    CHECK_FAILS(ctx, CUPAT_ERROR_NOT_SUPPORTED, "its rungs: ",
                cupat_set_variant(ctx, "reduce", other));
    CHECK_FAILS(ctx, CUPAT_ERROR_NOT_SUPPORTED,
                t_backend == CUPAT_BACKEND_CUDA ? "compensated" : "openmp_compensated",
                cupat_set_variant(ctx, "reduce", other));
    CHECK_OK(ctx, cupat_set_variant(ctx, "reduce", NULL));
    CHECK_OK(ctx, cupat_set_variant(ctx, "dot", NULL));
    dfree(dx);
    dfree(dy);
}

/* ---------------------------------------------------------------- report -- */

/* Each rung's f32 sum error against the double-double reference: uniform
 * [-1, 1) (cancelling) and [0, 1) (all positive, error grows with n). */
static void print_report(void)
{
    size_t n = t_backend == CUPAT_BACKEND_CUDA ? (size_t)1 << 24 : (size_t)1 << 22;
    const cupat_variant_info *list;
    int idx[64];
    size_t nr = rungs_of("reduce", &list, idx);
    float *h = xmalloc(n * 4), *h2 = xmalloc(n * 4);
    for (size_t i = 0; i < n; i++) {
        h[i] = test_randf();
        h2[i] = (float)rand_unit();
    }
    float *dx = dalloc(n * 4), *dx2 = dalloc(n * 4);
    put(dx, h, n * 4);
    put(dx2, h2, n * 4);
    ref_t r1, r2;
    reference(CUPAT_F32, CUPAT_OP_SUM, h, n, &r1);
    reference(CUPAT_F32, CUPAT_OP_SUM, h2, n, &r2);
    printf("\n| rung | depth h | error, x in [-1,1) | error, x in [0,1) | rel. error [0,1) | bound gamma(h) sum|x| / sum |\n");
    printf("| --- | ---: | ---: | ---: | ---: | ---: |\n");
    for (size_t k = 0; k < nr; k++) {
        const char *name = list[idx[k]].name;
        CHECK_OK(ctx, cupat_set_variant(ctx, "reduce", name));
        float g1 = 0, g2 = 0;
        CHECK_OK(ctx, cupat_reduce_host(ctx, CUPAT_F32, CUPAT_OP_SUM, n, dx, &g1));
        CHECK_OK(ctx, cupat_reduce_host(ctx, CUPAT_F32, CUPAT_OP_SUM, n, dx2, &g2));
        size_t depth = cupat__reduce_depth(ctx, 0, idx[k], CUPAT_F32, n);
        int comp = strstr(name, "compensated") != NULL;
        ferr f1 = sum_error(CUPAT_F32, &r1, g1, depth, comp, n, r1.s.abs);
        ferr f2 = sum_error(CUPAT_F32, &r2, g2, depth, comp, n, r2.s.abs);
        double exact2 = r2.s.hi + r2.s.lo;
        printf("| %s | %zu | %.3g | %.3g | %.2e | %.2e |\n", name, depth, f1.err, f2.err,
               f2.err / exact2, f2.bound / exact2);
    }
    printf("(n = %zu, f32; reference: double-double sum of the same floats)\n\n", n);
    CHECK_OK(ctx, cupat_set_variant(ctx, "reduce", NULL));
    dfree(dx);
    dfree(dx2);
    free(h);
    free(h2);
}

static void test_errors_names(void)
{
    test_errors();
    test_technique_names();
    test_lecture_dot();
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--rung") == 0 && i + 1 < argc) only_rung = argv[++i];
        else if (strcmp(argv[i], "--report") == 0) report = 1;
    }
    const char *e = getenv("CUPAT_TEST_NO_CDP");
    no_cdp = e && *e && strcmp(e, "0") != 0;
    ctx = test_init(argc, argv);
    test_seed();
    clock_t t0 = clock();
    if (report) {
        test_lecture_dot();
        print_report();
        return test_finish(ctx);
    }
    static const test_part parts[] = {
        {"errors", test_errors_names}, {"sweep", test_sweep},       {"misaligned", test_ties_misaligned},
        {"specials", test_specials}, {"determinism", test_determinism},
        {"configs", test_even_configs}, {"cdp", test_cdp_cap},
        {"dot", test_dot},           {"huge", test_huge}};
    test_run_parts(argc, argv, parts, sizeof parts / sizeof *parts, NULL);
    printf("cpu time %.1f s\n", (double)(clock() - t0) / CLOCKS_PER_SEC);
    return test_finish(ctx);
}
