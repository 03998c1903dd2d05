/* SPDX-License-Identifier: Apache-2.0 */
/* test_scan.c — every rung of "scan", "segscan" and "select" on the chosen
 * backend, against references written here (not the library's CPU path; the
 * CPU run checks the serial reference rung itself against them).
 *
 * Integers and MIN / MAX must match exactly (bits; a NaN prefix gives the
 * quiet NaN 0x7fc00000 / 0x7ff8000000000000). A float sum's output i must lie
 * within gamma(d) * sum_{j <= i} |x_j| of the exact prefix (long double
 * TwoSum), d = the rung's summation depth (cupat__scan_depth /
 * cupat__segscan_depth), gamma(d) = d u / (1 - d u); an exclusive float sum
 * writes +0 where nothing precedes; a NaN output passes only where the exact
 * prefix is NaN; all -0 prefixes must be -0, other all-zero prefixes +0.
 * Outputs are poisoned first (0xFF: NaN for floats; 0x5A for integers and
 * where NaN is the right answer), so an unwritten element fails.
 *
 * Sizes 0, 1, 31, 32, 33, 1023, 1025, 4096 +- 1, 2^20 +- 1; CUDA (not
 * --small) 3 x 2^24 + 7 (several times the L2) and, with --large or more than
 * 40 GB free, 2^32 + 5 u32 in place on the default rung (x = 0x01010101,
 * checked at sample indices against the closed form). Misaligned starts
 * (x, y or both one to three elements past an aligned allocation), in place,
 * IEEE special values, determinism (same bits again, other thread counts,
 * another stream), segmented scans by head flags and by keys, select /
 * partition / unique with the count in host and in backend memory, and
 * bad arguments (status and a message naming the argument).
 * Options: --small (sanitizer sizes), --large (force the 2^32 + 5 case),
 * --rung NAME (only rungs of that name), --part NAME (one section: sweep,
 * misaligned, specials, segmented, select, ...). */
#include "testutil.h"

#include "../src/scan/scan_internal.h"

#include <cuda_runtime_api.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static cupat_ctx *ctx;
static int large;
static const char *only_rung;
#define xmalloc(bytes) test_xmalloc(bytes)
#define dalloc(bytes) test_dalloc(ctx, bytes)

#define NTYPES 6
#define NOPS 3
static const cupat_type types[NTYPES] = {CUPAT_F32, CUPAT_F64, CUPAT_I32,
                                         CUPAT_U32, CUPAT_I64, CUPAT_U64};
static const cupat_op ops[NOPS] = {CUPAT_OP_SUM, CUPAT_OP_MIN, CUPAT_OP_MAX};

/* ------------------------------------------------------------- helpers -- */

static int is_cuda(void) { return t_backend == CUPAT_BACKEND_CUDA; }
static int is_float(cupat_type t) { return t == CUPAT_F32 || t == CUPAT_F64; }
static int is_signed(cupat_type t) { return t == CUPAT_I32 || t == CUPAT_I64; }

#define dfree(p) test_dfree(ctx, p)
#define put(d, h, bytes) test_put(ctx, d, h, bytes)
#define get(h, d, bytes) test_get(ctx, h, d, bytes)
static void poison(void *d, size_t bytes, int byte)
{
    if (bytes) CHECK_OK(ctx, cupat_memset(ctx, d, byte, bytes));
}

/* Buffers reused from call to call (growing): backend slots and host slots.
 * Fresh allocations per case cost more than the scans (page faults). */
#define NPOOL 4
static void *pool_p[NPOOL], *hpool_p[NPOOL];
static size_t pool_n[NPOOL], hpool_n[NPOOL];
static void *pool(int slot, size_t bytes)
{
    if (bytes > pool_n[slot]) {
        if (pool_p[slot]) dfree(pool_p[slot]);
        pool_p[slot] = dalloc(bytes);
        pool_n[slot] = bytes;
    }
    return pool_p[slot];
}
static void *hpool(int slot, size_t bytes)
{
    if (bytes > hpool_n[slot]) {
        free(hpool_p[slot]);
        hpool_p[slot] = xmalloc(bytes);
        hpool_n[slot] = bytes;
    }
    return hpool_p[slot];
}
static void pool_release(void)
{
    for (int i = 0; i < NPOOL; i++) {
        if (pool_p[i]) dfree(pool_p[i]);
        free(hpool_p[i]);
        pool_p[i] = hpool_p[i] = NULL;
        pool_n[i] = hpool_n[i] = 0;
    }
}

/* A formatted string that lives until eight more calls. */

#define rungs_of(pattern, list, idx) test_rungs_of(pattern, only_rung, 0, list, idx)

/* A call's status: success, or a refusal a non-default rung may give for a
 * size beyond what it takes (printed, not a failure). Returns 1 to check. */
static int call_ok(cupat_status s, const cupat_variant_info *v, size_t n, const char *tag)
{
    if (s == CUPAT_SUCCESS) return 1;
    if (s == CUPAT_ERROR_NOT_SUPPORTED && !v->is_default && n > ((size_t)1 << 20) + 1) {
        printf("note: %s: rung %s refuses n = %zu: %s\n", tag, v->name, n, cupat_last_error(ctx));
        return 0;
    }
    CHECK(0, "%s: rung %s n=%zu: %s: %s", tag, v->name, n, cupat_status_string(s),
          cupat_last_error(ctx));
    return 0;
}

/* ------------------------------------------------------------- inputs -- */

static double rand_unit(void) { return (double)(test_rand() >> 11) * 0x1p-53; } /* [0, 1) */

static void setf(cupat_type t, void *h, size_t i, double v)
{
    if (t == CUPAT_F32) ((float *)h)[i] = (float)v;
    else ((double *)h)[i] = v;
}

/* A NaN other than the default one: payload 0x12345, quiet, sign as given. */
static void set_nan(cupat_type t, void *h, size_t i, int neg)
{
    if (t == CUPAT_F32) ((uint32_t *)h)[i] = (neg ? 0xffc00000u : 0x7fc00000u) | 0x12345u;
    else ((uint64_t *)h)[i] = (neg ? 0xfff8000000000000ull : 0x7ff8000000000000ull) | 0x12345u;
}

/* Random elements: floats uniform in [-1, 1), integers over their whole range. */
static void gen(cupat_type t, void *h, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t r = test_rand();
        switch (t) {
        case CUPAT_F32: ((float *)h)[i] = test_randf(); break;
        case CUPAT_F64: ((double *)h)[i] = 2 * rand_unit() - 1; break;
        case CUPAT_I32:
        case CUPAT_U32: ((uint32_t *)h)[i] = (uint32_t)r; break;
        default: ((uint64_t *)h)[i] = r; break;
        }
    }
}

/* Bytes of an element (the checks' inner loops: no library call). */
static inline size_t tsz(cupat_type t)
{
    return t == CUPAT_F64 || t == CUPAT_I64 || t == CUPAT_U64 ? 8 : 4;
}

/* Raw bits of element i (zero-extended) and its value. */
static inline uint64_t bits_at(cupat_type t, const void *h, size_t i)
{
    if (tsz(t) == 4) return ((const uint32_t *)h)[i];
    return ((const uint64_t *)h)[i];
}
static long double fval(cupat_type t, const void *h, size_t i)
{
    return t == CUPAT_F32 ? (long double)((const float *)h)[i] : (long double)((const double *)h)[i];
}

/* ---------------------------------------------------- scan reference -- */

/* A scan to check: op, mode and the segments (seg 0 none, 1 head flags,
 * 2 keys of key_type, compared as raw bits). */
typedef struct {
    cupat_type t;
    cupat_op op;
    int excl;
    int seg;
    const uint8_t *flags;
    const void *keys;
    cupat_type kt;
} scase;

static int ref_head(const scase *c, size_t i)
{
    if (i == 0) return 1;
    if (c->seg == 1) return c->flags[i] != 0;
    if (c->seg == 2) return bits_at(c->kt, c->keys, i) != bits_at(c->kt, c->keys, i - 1);
    return 0;
}

/* Identity bits, written out by hand. */
static uint64_t ident_bits(cupat_type t, cupat_op op)
{
    if (op == CUPAT_OP_SUM) return 0;
    int mx = op == CUPAT_OP_MAX;
    switch (t) {
    case CUPAT_F32: return mx ? 0xff800000u : 0x7f800000u;
    case CUPAT_F64: return mx ? 0xfff0000000000000ull : 0x7ff0000000000000ull;
    case CUPAT_I32: return mx ? 0x80000000u : 0x7fffffffu;
    case CUPAT_U32: return mx ? 0 : 0xffffffffu;
    case CUPAT_I64: return mx ? 0x8000000000000000ull : 0x7fffffffffffffffull;
    default: return mx ? 0 : UINT64_MAX;
    }
}
static uint64_t qnan_bits(cupat_type t)
{
    return t == CUPAT_F32 ? 0x7fc00000u : 0x7ff8000000000000ull;
}

/* IEEE 754-2019 order of two non-NaN floats given as bits: a < b (-0 < +0). */
static int fbits_less(cupat_type t, uint64_t a, uint64_t b)
{
    int sh = t == CUPAT_F32 ? 31 : 63;
    uint64_t mag = t == CUPAT_F32 ? 0x7fffffffu : 0x7fffffffffffffffull;
    /* map to an unsigned order key */
    uint64_t ka = (a >> sh) ? (~a & mag) : (a | (mag + 1)), kb = (b >> sh) ? (~b & mag) : (b | (mag + 1));
    return ka < kb;
}
static int fbits_nan(cupat_type t, uint64_t a)
{
    if (t == CUPAT_F32) return (a & 0x7fffffffu) > 0x7f800000u;
    return (a & 0x7fffffffffffffffull) > 0x7ff0000000000000ull;
}

/* Exact running value of a MIN / MAX or integer-sum scan, as bits. */
static inline uint64_t comb_exact(cupat_type t, cupat_op op, uint64_t a, uint64_t b)
{
    size_t es = tsz(t);
    uint64_t mask = es == 4 ? 0xffffffffu : UINT64_MAX;
    if (op == CUPAT_OP_SUM) return (a + b) & mask;
    int mx = op == CUPAT_OP_MAX;
    if (is_float(t)) {
        if (fbits_nan(t, a) || fbits_nan(t, b)) return qnan_bits(t);
        return (mx ? fbits_less(t, a, b) : fbits_less(t, b, a)) ? b : a;
    }
    int less;
    if (is_signed(t)) {
        int64_t sa = es == 4 ? (int64_t)(int32_t)(uint32_t)a : (int64_t)a;
        int64_t sb = es == 4 ? (int64_t)(int32_t)(uint32_t)b : (int64_t)b;
        less = mx ? sa < sb : sb < sa;
    } else {
        less = mx ? a < b : b < a;
    }
    return less ? b : a;
}

/* Exact float prefix: long double TwoSum (about 2^-128 relative), the sum of
 * magnitudes, and the special cases. */
typedef struct {
    long double hi, lo, abs;
    int nan, pinf, ninf, cnt, allneg0;
} fprefix;
static void fp_reset(fprefix *p)
{
    memset(p, 0, sizeof *p);
    p->allneg0 = 1;
}
static void fp_add(fprefix *p, long double v)
{
    p->cnt++;
    if (!(v == 0 && signbit(v))) p->allneg0 = 0;
    if (isnan(v)) p->nan = 1;
    else if (isinf(v)) {
        if (v > 0) p->pinf = 1;
        else p->ninf = 1;
    } else {
        long double t = p->hi + v, bb = t - p->hi;
        long double e = (p->hi - (t - bb)) + (v - bb);
        p->hi = t;
        p->lo += e;
        p->abs += fabsl(v);
    }
}

static double gamma_(size_t d, double u)
{
    double du = (double)d * u;
    return du >= 1 ? INFINITY : du / (1 - du);
}

static long double bits_value(cupat_type t, uint64_t b)
{
    if (t == CUPAT_F32) {
        uint32_t b32 = (uint32_t)b;
        float f;
        memcpy(&f, &b32, 4);
        return f;
    }
    double d;
    memcpy(&d, &b, 8);
    return d;
}

/* Whether output bits g are right for the float-sum prefix p; why (when not
 * NULL, on a failure only: formatting is slow): the reason. */
#define WHY(...)                                                                         \
    do {                                                                                 \
        if (why) snprintf(why, wl, __VA_ARGS__);                                         \
    } while (0)
static int fp_ok(cupat_type t, const fprefix *p, uint64_t gbits, size_t depth, char *why,
                 size_t wl)
{
    long double g = bits_value(t, gbits);
    if (p->cnt == 0) { /* exclusive, nothing before: +0 */
        WHY("want +0");
        return gbits == 0;
    }
    if (p->nan || (p->pinf && p->ninf)) {
        WHY("want NaN");
        return isnan(g);
    }
    if (isnan(g)) {
        WHY("NaN where the exact prefix is a number");
        return 0;
    }
    if (p->pinf || p->ninf) {
        WHY("want %cinf", p->pinf ? '+' : '-');
        return isinf(g) && (g > 0) == (p->pinf != 0);
    }
    if (p->allneg0) {
        WHY("want -0");
        return g == 0 && signbit(g);
    }
    if (p->abs == 0) {
        WHY("want +0");
        return g == 0 && !signbit(g);
    }
    double u = t == CUPAT_F32 ? 0x1p-24 : 0x1p-53;
    long double exact = p->hi + p->lo;
    long double err = fabsl(g - exact);
    long double bound = (long double)gamma_(depth, u) * p->abs + p->abs * 0x1p-100L * p->cnt;
    WHY("|error| %.3Lg > bound %.3Lg (exact %.17Lg, depth %zu)", err, bound, exact, depth);
    return err <= bound;
}
#undef WHY

/* Check y (host copy) against x for case c; one CHECK per call. */
static int check_scan(const char *tag, const scase *c, size_t n, const void *x, const void *y,
                      size_t depth)
{
    cupat_type t = c->t;
    int fsum = is_float(t) && c->op == CUPAT_OP_SUM;
    uint64_t acc = 0, first_bad = UINT64_MAX, gbad = 0, wbad = 0;
    size_t nbad = 0;
    char why[200] = "";
    fprefix p;
    fp_reset(&p);
    for (size_t i = 0; i < n; i++) {
        int head = ref_head(c, i);
        uint64_t v = bits_at(t, x, i), g = bits_at(t, y, i);
        if (fsum) {
            if (head) fp_reset(&p);
            if (!c->excl) fp_add(&p, fval(t, x, i));
            if (!fp_ok(t, &p, g, depth, NULL, 0) && nbad++ == 0) {
                first_bad = i;
                gbad = g;
                fp_ok(t, &p, g, depth, why, sizeof why);
            }
            if (c->excl) fp_add(&p, fval(t, x, i));
            continue;
        }
        uint64_t want;
        if (head) acc = ident_bits(t, c->op);
        if (c->excl) {
            want = acc;
            acc = comb_exact(t, c->op, acc, v);
        } else {
            acc = comb_exact(t, c->op, acc, v);
            want = acc;
        }
        if (g != want && nbad++ == 0) {
            first_bad = i;
            gbad = g;
            wbad = want;
        }
    }
    if (fsum)
        CHECK(nbad == 0, "%s: %zu of %zu outputs wrong, first y[%llu] bits 0x%llx: %s", tag, nbad,
              n, (unsigned long long)first_bad, (unsigned long long)gbad, why);
    else
        CHECK(nbad == 0, "%s: %zu of %zu outputs wrong, first y[%llu] = 0x%llx, want 0x%llx", tag,
              nbad, n, (unsigned long long)first_bad, (unsigned long long)gbad,
              (unsigned long long)wbad);
    return nbad == 0;
}

static size_t depth_of(int seg, int rung, cupat_type t, size_t n)
{
    return seg ? cupat__segscan_depth(ctx, rung, t, n) : cupat__scan_depth(ctx, rung, t, n);
}

/* Run every rung of the ladder on (c, n, x) and check. dx: backend copy of x
 * (n elements at offset xo elements), dy: output (offset yo); in_place: y = x
 * (dx is uploaded again before each rung). dflags / dkeys: backend copies. */
typedef struct {
    const char *what;
    int xo, yo, in_place;
    int poison_byte; /* 0: 0xFF for floats not expecting NaN, else 0x5A */
    int ko;          /* flags / keys start ko elements past an aligned allocation */
} runopt;

static void run_rungs(const scase *c, size_t n, const void *hx, const runopt *o)
{
    if (!test_keep_case()) return;
    const char *pattern = c->seg ? "segscan" : "scan";
    const cupat_variant_info *list;
    int idx[64];
    size_t nr = rungs_of(pattern, &list, idx);
    size_t es = cupat_type_size(c->t);
    size_t xo = (size_t)o->xo, yo = (size_t)o->yo;
    char *dx = pool(0, (n + xo) * es);
    char *dy = o->in_place ? dx : pool(1, (n + yo) * es);
    if (o->in_place) yo = xo;
    void *hy = hpool(0, n * es);
    void *df = NULL, *dk = NULL;
    size_t ks = c->seg == 2 ? cupat_type_size(c->kt) : 0;
    size_t ko = (size_t)o->ko;
    if (c->seg == 1) put(df = (char *)pool(2, n + ko) + ko, c->flags, n);
    if (c->seg == 2) put(dk = (char *)pool(3, (n + ko) * ks) + ko * ks, c->keys, n * ks);
    int pb = o->poison_byte ? o->poison_byte : is_float(c->t) ? 0xFF : 0x5A;
    if (!o->in_place) put(dx + xo * es, hx, n * es);
    for (size_t k = 0; k < nr; k++) {
        const cupat_variant_info *v = &list[idx[k]];
        char tag[256];
        snprintf(tag, sizeof tag, "%s %s %s %s %s%s n=%zu xo=%d yo=%d ko=%d%s", o->what, pattern,
                 cupat_type_name(c->t), cupat_op_name(c->op), c->excl ? "exclusive" : "inclusive",
                 c->seg == 2 ? fmt(" keys %s", cupat_type_name(c->kt)) : "", n, o->xo, o->yo, o->ko,
                 o->in_place ? " in place" : "");
        CHECK_OK(ctx, cupat_set_variant(ctx, pattern, v->name));
        if (o->in_place) put(dx + xo * es, hx, n * es);
        else poison(dy + yo * es, n * es, pb);
        const void *x = n ? dx + xo * es : NULL;
        void *y = n ? dy + yo * es : NULL;
        cupat_scan_mode m = c->excl ? CUPAT_SCAN_EXCLUSIVE : CUPAT_SCAN_INCLUSIVE;
        cupat_status s;
        if (c->seg == 1) s = cupat_scan_segmented(ctx, c->t, c->op, m, n, df, x, y);
        else if (c->seg == 2) s = cupat_scan_by_key(ctx, c->kt, c->t, c->op, m, n, dk, x, y);
        else s = cupat_scan(ctx, c->t, c->op, m, n, x, y);
        if (!call_ok(s, v, n, tag)) continue;
        get(hy, dy + yo * es, n * es);
        char rtag[300];
        snprintf(rtag, sizeof rtag, "%s rung %s", tag, v->name);
        check_scan(rtag, c, n, hx, hy, depth_of(c->seg, idx[k], c->t, n));
    }
    CHECK_OK(ctx, cupat_set_variant(ctx, pattern, NULL));
}

/* ------------------------------------------------------------- sizes -- */

static const size_t sizes_base[] = {0, 1, 31, 32, 33, 1023, 1025, 4095, 4097};
#define NBASE (sizeof sizes_base / sizeof *sizes_base)
/* Under racecheck (shared-memory hazards within a block: more tiles only
 * repeat the same block's accesses) 2^14: still two or more tiles of every
 * rung (the largest, TMA's, holds 6,144 4-byte elements). */
static size_t small_big(void) { return test_racecheck() ? (size_t)1 << 14 : (size_t)1 << 16; }
static size_t big(void) { return t_small ? small_big() : (size_t)1 << 20; }
/* Past several CPU chunks (2^16; three or more so the carries chain) and
 * many GPU tiles, for the sections after the sweep: 3 x 2^16 + 5 on the CPU
 * (whose run time counts in CI), 2^20 + 1 on CUDA (2^16 + 1 under --small). */
static size_t mid(void)
{
    if (!is_cuda()) return ((size_t)3 << 16) + 5;
    return t_small ? small_big() + 1 : ((size_t)1 << 20) + 1;
}

/* Several times the L2 (CUDA, not --small), else 0. */
static size_t l2_size(void)
{
    if (!is_cuda() || t_small) return 0;
    int dev = cupat_get_device(ctx), l2 = 0;
    cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev);
    size_t n = ((size_t)3 << 24) + 7;
    while (n * 4 < (size_t)l2 * 3) n *= 2;
    return n;
}

/* ------------------------------------------------------- plain sweep -- */

static void test_sweep(void)
{
    size_t sizes[NBASE + 2];
    size_t ns = 0;
    for (size_t i = 0; i < NBASE; i++) sizes[ns++] = sizes_base[i];
    sizes[ns++] = big() - 1;
    sizes[ns++] = big() + 1;
    for (int ti = 0; ti < NTYPES; ti++) {
        cupat_type t = types[ti];
        for (size_t si = 0; si < ns; si++) {
            size_t n = sizes[si];
            void *h = xmalloc(n * cupat_type_size(t));
            gen(t, h, n);
            for (int oi = 0; oi < NOPS; oi++)
                for (int ex = 0; ex < 2; ex++) {
                    scase c = {t, ops[oi], ex, 0, NULL, NULL, CUPAT_U32};
                    runopt o = {"sweep", 0, 0, 0, 0, 0};
                    run_rungs(&c, n, h, &o);
                }
            free(h);
        }
        printf("scan %s: %zu sizes x %d ops x 2 modes done\n", cupat_type_name(t), ns, NOPS);
        fflush(stdout);
    }
}

/* Several times the L2 (CUDA only): f32 / u32 sums, f64 max, i64 min. */
static void test_l2(void)
{
    size_t n = l2_size();
    if (!n) return;
    const cupat_type ts[4] = {CUPAT_F32, CUPAT_U32, CUPAT_F64, CUPAT_I64};
    const cupat_op os[4] = {CUPAT_OP_SUM, CUPAT_OP_SUM, CUPAT_OP_MAX, CUPAT_OP_MIN};
    for (int q = 0; q < 4; q++) {
        void *h = xmalloc(n * cupat_type_size(ts[q]));
        gen(ts[q], h, n);
        for (int ex = 0; ex < 2; ex++) {
            scase c = {ts[q], os[q], ex, 0, NULL, NULL, CUPAT_U32};
            runopt o = {"l2", 0, 0, 0, 0, 0};
            run_rungs(&c, n, h, &o);
        }
        free(h);
    }
    printf("scan n = %zu (several times the L2) done\n", n);
}

/* Misaligned starts: x, y or both past an aligned allocation. */
static void test_misaligned(void)
{
    const int offs4[5][2] = {{1, 1}, {2, 2}, {3, 3}, {1, 0}, {0, 3}};
    const int offs8[3][2] = {{1, 1}, {1, 0}, {0, 1}};
    size_t sizes[2] = {1025, mid()};
    for (int ti = 0; ti < NTYPES; ti++) {
        cupat_type t = types[ti];
        int four = cupat_type_size(t) == 4;
        for (int si = 0; si < 2; si++) {
            size_t n = sizes[si];
            void *h = xmalloc(n * cupat_type_size(t));
            gen(t, h, n);
            for (int k = 0; k < (four ? 5 : 3); k++) {
                const int *of = four ? offs4[k] : offs8[k];
                /* big inputs: one op and mode per offset pair */
                for (int q = 0; q < 4; q++) {
                    if (si == 1 && q != k % 4) continue;
                    scase c = {t, q & 1 ? CUPAT_OP_MIN : CUPAT_OP_SUM, q >> 1, 0, NULL, NULL,
                               CUPAT_U32};
                    runopt o = {"misaligned", of[0], of[1], 0, 0, 0};
                    run_rungs(&c, n, h, &o);
                }
            }
            free(h);
        }
    }
}

/* y == x: the input overwritten by its scan. */
static void test_in_place(void)
{
    size_t sizes[3] = {33, 4097, mid()};
    for (int ti = 0; ti < NTYPES; ti++) {
        cupat_type t = types[ti];
        for (int si = 0; si < 3; si++) {
            size_t n = sizes[si];
            void *h = xmalloc(n * cupat_type_size(t));
            gen(t, h, n);
            for (int q = 0; q < 4; q++) {
                scase c = {t, q & 1 ? CUPAT_OP_MAX : CUPAT_OP_SUM, q >> 1, 0, NULL, NULL,
                           CUPAT_U32};
                runopt o = {"in-place", si == 1, si == 1, 1, 0, 0};
                run_rungs(&c, n, h, &o);
            }
            free(h);
        }
    }
}

/* NaN, +-0, +-inf: every float rung, op and mode. */
static void test_specials(void)
{
    enum { NCASE = 8 };
    const char *cname[NCASE] = {"+-0 only",   "+-0, +-inf, +-1", "one NaN",  "NaN first",
                                "+inf",       "+inf and -inf",   "all -0",   "-inf"};
    size_t ns[3] = {33, 1025, mid()};
    for (int fi = 0; fi < 2; fi++) {
        cupat_type t = fi ? CUPAT_F64 : CUPAT_F32;
        for (int cs = 0; cs < NCASE; cs++)
            for (int si = 0; si < 3; si++) {
                size_t n = ns[si];
                void *h = xmalloc(n * 8);
                size_t p1 = test_rand() % n, p2 = test_rand() % n;
                const double pick[6] = {0.0, -0.0, INFINITY, -INFINITY, 1.0, -1.0};
                for (size_t i = 0; i < n; i++) {
                    double v = 2 * rand_unit() - 1;
                    if (cs == 0) v = pick[test_rand() % 2];
                    if (cs == 1) v = pick[test_rand() % 6];
                    if (cs == 6) v = -0.0;
                    setf(t, h, i, v);
                }
                /* NaNs with a payload and a sign: MIN / MAX must give the quiet NaN */
                if (cs == 2) set_nan(t, h, p1, 0);
                if (cs == 3) set_nan(t, h, 0, 1);
                if (cs == 4) setf(t, h, p1, INFINITY);
                if (cs == 5) {
                    setf(t, h, p1, INFINITY);
                    setf(t, h, (p1 + 1 + p2 % (n - 1)) % n, -INFINITY);
                }
                if (cs == 7) setf(t, h, p1, -INFINITY);
                for (int oi = 0; oi < NOPS; oi++)
                    for (int ex = 0; ex < 2; ex++) {
                        scase c = {t, ops[oi], ex, 0, NULL, NULL, CUPAT_U32};
                        runopt o = {fmt("specials (%s)", cname[cs]), 0, 0, 0, 0x5A, 0};
                        run_rungs(&c, n, h, &o);
                    }
                free(h);
            }
    }
}

/* Same bits run after run, at other thread counts, and on another stream. */
static void test_determinism(void)
{
    size_t n = t_small ? ((size_t)1 << 16) + 3 : is_cuda() ? ((size_t)1 << 24) + 3 : ((size_t)1 << 21) + 3;
    for (int fi = 0; fi < 2; fi++) {
        cupat_type t = fi ? CUPAT_F64 : CUPAT_F32;
        size_t es = cupat_type_size(t), bytes = n * es;
        void *h = xmalloc(bytes), *first = xmalloc(bytes), *again = xmalloc(bytes);
        gen(t, h, n);
        void *dx = test_upload(ctx, h, bytes), *dy = dalloc(bytes);
        CHECK_OK(ctx, cupat_set_variant(ctx, "scan", NULL));
        for (int ex = 0; ex < 2; ex++) {
            cupat_scan_mode m = ex ? CUPAT_SCAN_EXCLUSIVE : CUPAT_SCAN_INCLUSIVE;
            poison(dy, bytes, 0xFF);
            CHECK_OK(ctx, cupat_scan(ctx, t, CUPAT_OP_SUM, m, n, dx, dy));
            get(first, dy, bytes);
            for (int rep = 0; rep < 4; rep++) {
                const char *how = "again";
#ifdef _OPENMP
                int saved = omp_get_max_threads();
                if (!is_cuda() && rep >= 2) {
                    omp_set_num_threads(rep == 2 ? 1 : 3);
                    how = rep == 2 ? "1 thread" : "3 threads";
                }
#endif
                poison(dy, bytes, 0xFF);
                CHECK_OK(ctx, cupat_scan(ctx, t, CUPAT_OP_SUM, m, n, dx, dy));
                get(again, dy, bytes);
#ifdef _OPENMP
                omp_set_num_threads(saved);
#endif
                CHECK(memcmp(first, again, bytes) == 0, "determinism %s %s: %s gave other bits",
                      cupat_type_name(t), ex ? "exclusive" : "inclusive", how);
            }
            if (is_cuda()) {
                cudaStream_t s2;
                CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking) == cudaSuccess, "stream");
                CHECK_OK(ctx, cupat_set_stream(ctx, (cupat_stream)s2));
                void *junk = dalloc(bytes);
                CHECK_OK(ctx, cupat_memcpy(ctx, junk, dx, bytes)); /* other work first */
                poison(dy, bytes, 0xFF);
                CHECK_OK(ctx, cupat_scan(ctx, t, CUPAT_OP_SUM, m, n, dx, dy));
                get(again, dy, bytes);
                CHECK(memcmp(first, again, bytes) == 0, "determinism %s: other stream gave other bits",
                      cupat_type_name(t));
                dfree(junk);
                CHECK_OK(ctx, cupat_set_stream(ctx, NULL));
                cudaStreamDestroy(s2);
            }
        }
        dfree(dx);
        dfree(dy);
        free(h);
        free(first);
        free(again);
    }
}

/* The CPU serial rung is the reference: a float sum left to right from -0,
 * bit for bit (inclusive, exclusive, and restarting at segment heads). */
static void test_serial_order(void)
{
    if (is_cuda() || (only_rung && strcmp(only_rung, "serial") != 0)) return;
    size_t n = mid();
    float *x = xmalloc(n * 4), *want = xmalloc(n * 4), *got = xmalloc(n * 4);
    uint8_t *f = xmalloc(n);
    gen(CUPAT_F32, x, n);
    for (size_t i = 0; i < n; i++) f[i] = test_rand() % 100 == 0;
    CHECK_OK(ctx, cupat_set_variant(ctx, "scan", "serial"));
    CHECK_OK(ctx, cupat_set_variant(ctx, "segscan", "serial"));
    for (int q = 0; q < 4; q++) {
        int ex = q & 1, seg = q >> 1;
        volatile float acc = -0.0f;
        for (size_t i = 0; i < n; i++) {
            if (i == 0 || (seg && f[i])) acc = -0.0f;
            if (ex) {
                want[i] = (i == 0 || (seg && f[i])) ? 0.0f : acc;
                acc = acc + x[i];
            } else {
                acc = acc + x[i];
                want[i] = acc;
            }
        }
        cupat_scan_mode m = ex ? CUPAT_SCAN_EXCLUSIVE : CUPAT_SCAN_INCLUSIVE;
        memset(got, 0xFF, n * 4);
        if (seg) CHECK_OK(ctx, cupat_scan_segmented(ctx, CUPAT_F32, CUPAT_OP_SUM, m, n, f, x, got));
        else CHECK_OK(ctx, cupat_scan(ctx, CUPAT_F32, CUPAT_OP_SUM, m, n, x, got));
        CHECK(memcmp(got, want, n * 4) == 0, "serial f32 %s%s sum is not the left-to-right loop",
              seg ? "segmented " : "", ex ? "exclusive" : "inclusive");
    }
    CHECK_OK(ctx, cupat_set_variant(ctx, "scan", NULL));
    CHECK_OK(ctx, cupat_set_variant(ctx, "segscan", NULL));
    free(x);
    free(want);
    free(got);
    free(f);
}

/* ---------------------------------------------------------- segmented -- */

/* Head flags: pattern 0 all heads, 1 none, 2 one in 1000, 3 one in 3, 4 at
 * and next to multiples of 2^16 (the CPU chunk edges) and of 4096. */
static void gen_flags(uint8_t *f, size_t n, int pat)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t r = test_rand();
        switch (pat) {
        case 0: f[i] = (uint8_t)(1 + r % 255); break;
        case 1: f[i] = 0; break;
        case 2: f[i] = r % 1000 == 0 ? (uint8_t)(1 + (r >> 20) % 255) : 0; break;
        case 3: f[i] = r % 3 == 0; break;
        default: {
            size_t a = i % 65536, b = i % 4096;
            f[i] = a == 0 || a == 1 || a == 65535 || b == 0 || b == 4095;
        }
        }
    }
}
#define NFLAGPAT 5
/* Keys with runs: pattern 0 runs of 1..8, 1 runs of 1..5000, 2 one key for
 * all; f32 keys alternate +0 and -0 (other bits: other segments) and repeat
 * one NaN bit pattern (same bits: one segment). */
static void gen_keys(cupat_type kt, void *k, size_t n, int pat)
{
    size_t left = 0;
    uint64_t key = test_rand(), sign = 0;
    for (size_t i = 0; i < n; i++) {
        if (left == 0) {
            left = pat == 0 ? 1 + test_rand() % 8 : pat == 1 ? 1 + test_rand() % 5000 : SIZE_MAX;
            key = test_rand();
            sign ^= 1;
            if (kt == CUPAT_F32) {
                const uint32_t fk[4] = {0x00000000u, 0x80000000u, 0x7fc00001u, 0x3f800000u};
                key = fk[(key % 2) * 2 + sign];
            }
        }
        left--;
        if (cupat_type_size(kt) == 4) ((uint32_t *)k)[i] = (uint32_t)key;
        else ((uint64_t *)k)[i] = key;
    }
}
#define NKEYPAT 3

static void test_segmented(void)
{
    size_t sizes[NBASE + 1];
    size_t ns = 0;
    for (size_t i = 0; i < NBASE; i++) sizes[ns++] = sizes_base[i];
    sizes[ns++] = mid();
    const cupat_type kts[3] = {CUPAT_U32, CUPAT_I64, CUPAT_F32};
    for (size_t si = 0; si < ns; si++) {
        size_t n = sizes[si];
        int bign = n > 4097;
        uint8_t *f = xmalloc(n);
        void *k = xmalloc(n * 8);
        for (int ti = 0; ti < NTYPES; ti++) {
            cupat_type t = types[ti];
            void *h = xmalloc(n * cupat_type_size(t));
            gen(t, h, n);
            for (int pat = 0; pat < NFLAGPAT + NKEYPAT; pat++) {
                int seg = pat < NFLAGPAT ? 1 : 2;
                cupat_type kt = kts[(pat + ti) % 3];
                if (seg == 1) gen_flags(f, n, pat);
                else gen_keys(kt, k, n, pat - NFLAGPAT);
                for (int oi = 0; oi < NOPS; oi++)
                    for (int ex = 0; ex < 2; ex++) {
                        /* big inputs: one op and mode of each (type, pattern) */
                        if (bign && oi * 2 + ex != (ti + pat) % 6) continue;
                        scase c = {t, ops[oi], ex, seg, f, k, kt};
                        runopt o = {fmt("segmented (%s %d)", seg == 1 ? "flags" : "keys",
                                        seg == 1 ? pat : pat - NFLAGPAT),
                                    0, 0, 0, 0, 0};
                        run_rungs(&c, n, h, &o);
                    }
            }
            free(h);
        }
        free(f);
        free(k);
    }
    /* misaligned and in place, one case each */
    size_t n = mid();
    float *h = xmalloc(n * 4);
    uint8_t *f = xmalloc(n);
    gen(CUPAT_F32, h, n);
    gen_flags(f, n, 2);
    scase c = {CUPAT_F32, CUPAT_OP_SUM, 1, 1, f, NULL, CUPAT_U32};
    runopt mis = {"segmented misaligned", 1, 3, 0, 0, 0}, inpl = {"segmented", 0, 0, 1, 0, 0};
    run_rungs(&c, n, h, &mis);
    run_rungs(&c, n, h, &inpl);
    uint64_t *k = xmalloc(n * 8);
    gen_keys(CUPAT_U64, k, n, 1);
    scase ck = {CUPAT_F32, CUPAT_OP_MAX, 0, 2, NULL, k, CUPAT_U64};
    run_rungs(&ck, n, h, &inpl);
    /* flags and keys off their vector alignment (the kernels read the heads
     * of a 16-byte data vector in one load where aligned): values of 4 and 8
     * bytes, keys of 4 and 8 */
    for (int ko = 1; ko <= 3; ko += 2) {
        runopt kmis = {"segmented heads misaligned", 0, 0, 0, 0, ko};
        scase cf = {CUPAT_F32, CUPAT_OP_SUM, 1, 1, f, NULL, CUPAT_U32};
        run_rungs(&cf, n, h, &kmis);
        scase c8 = {CUPAT_F64, CUPAT_OP_SUM, 0, 1, f, NULL, CUPAT_U32};
        double *h8 = xmalloc(n * 8);
        gen(CUPAT_F64, h8, n);
        run_rungs(&c8, n, h8, &kmis);
        for (int ki = 0; ki < 2; ki++) {
            cupat_type kt = ki ? CUPAT_U64 : CUPAT_U32;
            gen_keys(kt, k, n, 1);
            scase c4 = {CUPAT_U32, CUPAT_OP_SUM, 1, 2, NULL, k, kt};
            scase c88 = {CUPAT_F64, CUPAT_OP_MAX, 0, 2, NULL, k, kt};
            run_rungs(&c4, n, h, &kmis); /* the f32 data as u32 bits */
            run_rungs(&c88, n, h8, &kmis);
        }
        free(h8);
    }
    free(h);
    free(f);
    free(k);
    /* several times the L2 */
    n = l2_size();
    if (n) {
        void *hx = xmalloc(n * 4);
        f = xmalloc(n);
        k = xmalloc(n * 4);
        gen(CUPAT_U32, hx, n);
        gen_flags(f, n, 2);
        gen_keys(CUPAT_U32, k, n, 1);
        scase c1 = {CUPAT_U32, CUPAT_OP_SUM, 1, 1, f, NULL, CUPAT_U32};
        scase c2 = {CUPAT_F32, CUPAT_OP_SUM, 0, 2, NULL, k, CUPAT_U32};
        runopt o = {"segmented l2", 0, 0, 0, 0, 0};
        run_rungs(&c1, n, hx, &o);
        gen(CUPAT_F32, hx, n);
        run_rungs(&c2, n, hx, &o);
        free(hx);
        free(f);
        free(k);
    }
    printf("segmented scans done\n");
}

/* --------------------------------------------------------- compaction -- */

/* Data for compaction: floats in [-1, 1) with a few NaN, +-0 and +-inf;
 * integers over their range with one in four zero. runs != 0: runs of equal
 * values from a small set (for unique), floats with +0 / -0 and NaN runs. */
static void gen_sel(cupat_type t, void *h, size_t n, int runs)
{
    size_t left = 0;
    uint64_t cur = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = test_rand();
        if (runs) {
            if (left == 0) {
                left = 1 + r % 6;
                cur = (r >> 8) % 5;
                if (is_float(t)) {
                    const double fv[5] = {0.0, -0.0, NAN, 1.5, -2.0};
                    setf(t, &cur, 0, fv[cur]);
                }
                r = test_rand();
            }
            left--;
            if (cupat_type_size(t) == 4) ((uint32_t *)h)[i] = (uint32_t)cur;
            else ((uint64_t *)h)[i] = cur;
            continue;
        }
        if (is_float(t)) {
            double v = 2 * rand_unit() - 1;
            const double sp[6] = {NAN, 0.0, -0.0, INFINITY, -INFINITY, NAN};
            if (r % 50 == 0) v = sp[(r >> 10) % 6];
            setf(t, h, i, v);
            if (r % 50 == 0 && (r >> 10) % 6 == 5) set_nan(t, h, i, 1); /* moved as bits */
        } else if (cupat_type_size(t) == 4) {
            ((uint32_t *)h)[i] = r % 4 == 0 ? 0 : (uint32_t)(r >> 16);
        } else {
            ((uint64_t *)h)[i] = r % 4 == 0 ? 0 : test_rand();
        }
    }
}

/* A predicate of about 50% selectivity on gen_sel's data. */
static cupat_predicate make_pred(cupat_type t, cupat_pred_kind kind)
{
    cupat_predicate p;
    memset(&p, 0, sizeof p);
    p.kind = kind;
    switch (t) {
    case CUPAT_F32:
        p.a.f32 = kind == CUPAT_PRED_LESS ? 0.25f : kind == CUPAT_PRED_GREATER ? -0.25f : -0.5f;
        p.b.f32 = 0.5f;
        break;
    case CUPAT_F64:
        p.a.f64 = kind == CUPAT_PRED_LESS ? 0.25 : kind == CUPAT_PRED_GREATER ? -0.25 : -0.5;
        p.b.f64 = 0.5;
        break;
    case CUPAT_I32:
        p.a.i32 = kind == CUPAT_PRED_LESS ? 0 : kind == CUPAT_PRED_GREATER ? 1 << 29 : -(1 << 30);
        p.b.i32 = 1 << 30;
        break;
    case CUPAT_U32:
        p.a.u32 = kind == CUPAT_PRED_LESS ? 1u << 31 : kind == CUPAT_PRED_GREATER ? 1u << 30 : 1u << 30;
        p.b.u32 = 3u << 30;
        break;
    case CUPAT_I64:
        p.a.i64 = kind == CUPAT_PRED_LESS ? 0 : kind == CUPAT_PRED_GREATER ? (int64_t)1 << 61 : -((int64_t)1 << 62);
        p.b.i64 = (int64_t)1 << 62;
        break;
    case CUPAT_U64:
        p.a.u64 = kind == CUPAT_PRED_LESS ? 1ull << 63 : 1ull << 62;
        p.b.u64 = 3ull << 62;
        break;
    }
    return p;
}

/* The reference predicate, from the element's value. */
static int ref_pred(cupat_type t, const void *h, size_t i, const cupat_predicate *p)
{
    int k = (int)p->kind;
    switch (t) {
    case CUPAT_F32:
    case CUPAT_F64: {
        double v = (double)fval(t, h, i);
        double a = t == CUPAT_F32 ? (double)p->a.f32 : p->a.f64;
        double b = t == CUPAT_F32 ? (double)p->b.f32 : p->b.f64;
        if (isnan(v)) return k == CUPAT_PRED_NONZERO;
        return k == 0 ? v != 0 : k == 1 ? v < a : k == 2 ? v > a : (a <= v && v < b);
    }
    case CUPAT_I32:
    case CUPAT_I64: {
        int64_t v = t == CUPAT_I32 ? ((const int32_t *)h)[i] : ((const int64_t *)h)[i];
        int64_t a = t == CUPAT_I32 ? p->a.i32 : p->a.i64, b = t == CUPAT_I32 ? p->b.i32 : p->b.i64;
        return k == 0 ? v != 0 : k == 1 ? v < a : k == 2 ? v > a : (a <= v && v < b);
    }
    default: {
        uint64_t v = bits_at(t, h, i);
        uint64_t a = t == CUPAT_U32 ? p->a.u32 : p->a.u64, b = t == CUPAT_U32 ? p->b.u32 : p->b.u64;
        return k == 0 ? v != 0 : k == 1 ? v < a : k == 2 ? v > a : (a <= v && v < b);
    }
    }
}

/* One compaction: mode 0 select, 1 partition, 2 unique; flags or pred. */
typedef struct {
    int mode;
    const uint8_t *flags;
    const cupat_predicate *pred;
    const char *what;
    int fo; /* flags start fo bytes past an aligned allocation */
} selcase;

static void run_select(cupat_type t, size_t n, const void *hx, const selcase *sc, int xo,
                       int counter)
{
    const cupat_variant_info *list;
    int idx[16];
    size_t nr = rungs_of("select", &list, idx);
    size_t es = cupat_type_size(t);
    /* the expected output */
    char *want = hpool(0, n * es), *hy = hpool(1, n * es);
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        int keep = sc->mode == 2 ? (i == 0 || bits_at(t, hx, i) != bits_at(t, hx, i - 1))
                   : sc->flags ? sc->flags[i] != 0
                               : ref_pred(t, hx, i, sc->pred);
        if (keep) memcpy(want + kept++ * es, (const char *)hx + i * es, es);
    }
    if (sc->mode == 1) {
        size_t r = kept;
        for (size_t i = 0; i < n; i++) {
            int keep = sc->flags ? sc->flags[i] != 0 : ref_pred(t, hx, i, sc->pred);
            if (!keep) memcpy(want + r++ * es, (const char *)hx + i * es, es);
        }
    }
    size_t cmp = sc->mode == 1 ? n : kept;
    char *dx = pool(0, (n + (size_t)xo) * es), *dy = pool(1, n * es);
    put(dx + (size_t)xo * es, hx, n * es);
    uint8_t *df = NULL;
    if (sc->flags) /* n + 1: non-NULL for n = 0 */
        put(df = (uint8_t *)pool(2, n + 1 + (size_t)sc->fo) + sc->fo, sc->flags, n);
    uint64_t *dcount = pool(3, 8);
    const void *x = n ? dx + (size_t)xo * es : NULL;
    void *y = n ? dy : NULL;
    static const char *mname[3] = {"select", "partition", "unique"};
    for (size_t k = 0; k < nr; k++) {
        const cupat_variant_info *v = &list[idx[k]];
        char tag[256];
        snprintf(tag, sizeof tag, "%s %s %s n=%zu%s%s rung %s", mname[sc->mode], sc->what,
                 cupat_type_name(t), n, xo ? " misaligned" : "", sc->fo ? " flags misaligned" : "",
                 v->name);
        CHECK_OK(ctx, cupat_set_variant(ctx, "select", v->name));
        poison(dy, n * es, 0x5A);
        int dev_count = (int)((k + (size_t)counter) & 1);
        uint64_t hcount = 0x5A5A5A5A5A5A5A5Aull, *cp = &hcount;
        if (dev_count) {
            poison(dcount, 8, 0x5A);
            cp = dcount;
        }
        cupat_status s;
        if (sc->mode == 0) s = cupat_select(ctx, t, n, x, df, sc->pred, y, cp);
        else if (sc->mode == 1) s = cupat_partition(ctx, t, n, x, df, sc->pred, y, cp);
        else s = cupat_unique(ctx, t, n, x, y, cp);
        if (!call_ok(s, v, n, tag)) continue;
        if (dev_count) get(&hcount, dcount, 8);
        get(hy, dy, n * es);
        CHECK(hcount == kept, "%s: count %llu (in %s memory), want %zu", tag,
              (unsigned long long)hcount, dev_count ? "backend" : "host", kept);
        if (hcount != kept) continue;
        size_t bad = SIZE_MAX;
        for (size_t i = 0; i < cmp && bad == SIZE_MAX; i++)
            if (memcmp(hy + i * es, want + i * es, es) != 0) bad = i;
        CHECK(bad == SIZE_MAX, "%s: y[%zu] = 0x%llx, want 0x%llx", tag, bad,
              (unsigned long long)(bad == SIZE_MAX ? 0 : bits_at(t, hy, bad)),
              (unsigned long long)(bad == SIZE_MAX ? 0 : bits_at(t, want, bad)));
    }
    CHECK_OK(ctx, cupat_set_variant(ctx, "select", NULL));
}

static void test_select(void)
{
    size_t sizes[NBASE + 2];
    size_t ns = 0;
    for (size_t i = 0; i < NBASE; i++) sizes[ns++] = sizes_base[i];
    sizes[ns++] = mid();
    if (l2_size()) sizes[ns++] = l2_size();
    int counter = 0;
    for (size_t si = 0; si < ns; si++) {
        size_t n = sizes[si];
        int bign = n > 4097;
        uint8_t *f = xmalloc(n);
        for (int ti = 0; ti < NTYPES; ti++) {
            cupat_type t = types[ti];
            size_t es = cupat_type_size(t);
            if (n > mid() && es == 8) continue; /* beyond the L2: 4-byte types */
            void *h = xmalloc(n * es);
            gen_sel(t, h, n, 0);
            /* flags at 0%, 50%, 100% and one in 1000; each predicate kind */
            for (int c = 0; c < 8; c++) {
                cupat_predicate p;
                selcase sc = {0, NULL, NULL, "", 0};
                if (c < 4) {
                    for (size_t i = 0; i < n; i++) {
                        uint64_t r = test_rand();
                        f[i] = c == 0 ? 0 : c == 1 ? (uint8_t)(r & 1 ? 1 + (r >> 8) % 255 : 0)
                               : c == 2 ? (uint8_t)(1 + r % 255) : r % 1000 == 0;
                    }
                    sc.flags = f;
                    sc.what = c == 0 ? "flags 0%" : c == 1 ? "flags 50%" : c == 2 ? "flags 100%"
                                                                                   : "flags 0.1%";
                } else {
                    p = make_pred(t, (cupat_pred_kind)(c - 4));
                    sc.pred = &p;
                    const char *pn[4] = {"nonzero", "less", "greater", "in_range"};
                    sc.what = pn[c - 4];
                }
                for (int mode = 0; mode < 2; mode++) {
                    /* big inputs: select or partition, alternating */
                    if (bign && ((c + mode + ti) & 1)) continue;
                    sc.mode = mode;
                    run_select(t, n, h, &sc, 0, counter++);
                }
            }
            /* unique: runs; and the random data (few equal neighbours) */
            gen_sel(t, h, n, 1);
            selcase su = {2, NULL, NULL, "runs", 0};
            run_select(t, n, h, &su, 0, counter++);
            if (!bign) {
                gen_sel(t, h, n, 0);
                su.what = "random";
                run_select(t, n, h, &su, 0, counter++);
            }
            free(h);
        }
        free(f);
    }
    /* misaligned x (one element past an aligned allocation) */
    size_t n = mid();
    uint8_t *f = xmalloc(n);
    for (int ti = 0; ti < NTYPES; ti++) {
        cupat_type t = types[ti];
        void *h = xmalloc(n * 8);
        gen_sel(t, h, n, 0);
        for (size_t i = 0; i < n; i++) f[i] = test_rand() & 1;
        selcase sc = {ti % 2, f, NULL, "flags 50%", 0};
        run_select(t, n, h, &sc, 1, counter++);
        /* flags off their vector alignment (4 bytes for 4-byte types, 2 for 8) */
        selcase sf = {(ti + 1) % 2, f, NULL, "flags 50%", 1 + ti % 3};
        run_select(t, n, h, &sf, 0, counter++);
        gen_sel(t, h, n, 1);
        selcase su = {2, NULL, NULL, "runs", 0};
        run_select(t, n, h, &su, 1, counter++);
        free(h);
    }
    free(f);
    printf("select / partition / unique done\n");
}

/* ---------------------------------------------------------- n > 2^32 -- */

/* u32, x[i] = 0x01010101 (a byte memset), in place on the default rung:
 * inclusive y[i] = (i + 1) c mod 2^32, exclusive y[i] = i c mod 2^32. */
static void test_huge(void)
{
    if (!is_cuda() || t_small) return;
    if (only_rung && strcmp(only_rung, "decoupled") != 0) return;
    const size_t n = ((size_t)1 << 32) + 5, bytes = n * 4;
    size_t free_b = 0, total_b = 0;
    cudaMemGetInfo(&free_b, &total_b);
    if (!(large || free_b > ((size_t)40 << 30)) || free_b < bytes + ((size_t)256 << 20)) {
        printf("n = 2^32+5: skipped (%zu MiB free; needs --large or > 40 GB free, and %zu MiB)\n",
               free_b >> 20, bytes >> 20);
        return;
    }
    CHECK_OK(ctx, cupat_set_variant(ctx, "scan", NULL));
    uint32_t *d = dalloc(bytes);
    const uint32_t c = 0x01010101u;
    size_t samples[64];
    int ns = 0;
    const size_t fixed[] = {0, 1, 2, 1023, 1024, ((size_t)1 << 31) - 1, (size_t)1 << 31,
                            ((size_t)1 << 32) - 1, (size_t)1 << 32, ((size_t)1 << 32) + 1, n - 1};
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++) samples[ns++] = fixed[i];
    while (ns < 64) samples[ns++] = test_rand() % n;
    for (int ex = 0; ex < 2; ex++) {
        CHECK_OK(ctx, cupat_memset(ctx, d, 0x01, bytes));
        cupat_scan_mode m = ex ? CUPAT_SCAN_EXCLUSIVE : CUPAT_SCAN_INCLUSIVE;
        cupat_status s = cupat_scan(ctx, CUPAT_U32, CUPAT_OP_SUM, m, n, d, d);
        CHECK(s == CUPAT_SUCCESS, "n = 2^32+5 u32 sum in place: %s: %s", cupat_status_string(s),
              cupat_last_error(ctx));
        if (s != CUPAT_SUCCESS) continue;
        int bad = 0;
        for (int k = 0; k < ns; k++) {
            uint32_t g = 0;
            get(&g, d + samples[k], 4);
            uint32_t w = (uint32_t)((uint64_t)(samples[k] + (ex ? 0 : 1)) * c);
            if (g != w && bad++ < 4)
                CHECK(0, "n = 2^32+5 %s: y[%zu] = %u, want %u", ex ? "exclusive" : "inclusive",
                      samples[k], g, w);
        }
        CHECK(bad == 0, "n = 2^32+5: %d of %d samples wrong", bad, ns);
    }
    dfree(d);
    printf("n = 2^32+5: u32 inclusive and exclusive sums in place checked at %d indices\n", ns);
}

/* ------------------------------------------------------- bad arguments -- */

static void test_errors(void)
{
    const cupat_type F = CUPAT_F32;
    const cupat_op S = CUPAT_OP_SUM;
    const cupat_scan_mode I = CUPAT_SCAN_INCLUSIVE;
    char *dx = dalloc(256), *dy = dalloc(256);
    uint8_t *df = dalloc(64);
    uint32_t *dk = dalloc(256);
    uint64_t *dc = dalloc(16), hc = 0;
    float hbuf[64] = {0};
    uint8_t hflags[64] = {0};
    cupat_predicate pred = make_pred(F, CUPAT_PRED_LESS), badp = pred;
    badp.kind = (cupat_pred_kind)9;
    size_t huge = SIZE_MAX / 2;
    char *mis = dx + 1;

    /* ---- cupat_scan */
    CHECK_FAILS(NULL, CUPAT_ERROR_NULL_POINTER, "cupat_scan: ctx is NULL",
                cupat_scan(NULL, F, S, I, 4, dx, dy));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "x is NULL", cupat_scan(ctx, F, S, I, 4, NULL, dy));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "y is NULL", cupat_scan(ctx, F, S, I, 4, dx, NULL));
    CHECK_OK(ctx, cupat_scan(ctx, F, S, I, 0, NULL, NULL));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "type = 99",
                cupat_scan(ctx, (cupat_type)99, S, I, 4, dx, dy));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "op = 3",
                cupat_scan(ctx, F, CUPAT_OP_ARGMIN, I, 4, dx, dy));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "op = 4",
                cupat_scan(ctx, F, CUPAT_OP_ARGMAX, I, 4, dx, dy));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "op = -1",
                cupat_scan(ctx, F, (cupat_op)-1, I, 4, dx, dy));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "mode = 2",
                cupat_scan(ctx, F, S, (cupat_scan_mode)2, 4, dx, dy));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, fmt("y = %p overlaps x = %p", (void *)(dx + 4), (void *)dx),
                cupat_scan(ctx, F, S, I, 16, dx, dx + 4));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, fmt("y = %p overlaps x = %p", (void *)dx, (void *)(dx + 4)),
                cupat_scan(ctx, F, S, I, 16, dx + 4, dx));
    CHECK_OK(ctx, cupat_scan(ctx, F, S, I, 16, dx, dx + 64)); /* just after x */
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, fmt("x = %p is not aligned", (void *)mis),
                cupat_scan(ctx, F, S, I, 4, mis, dy));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, fmt("y = %p is not aligned", (void *)(dy + 4)),
                cupat_scan(ctx, CUPAT_F64, S, I, 4, dx, dy + 4));
    CHECK_FAILS(ctx, CUPAT_ERROR_SIZE, fmt("x = %zu x 4", huge), cupat_scan(ctx, F, S, I, huge, dx, dy));
    /* ---- cupat_scan_segmented */
    CHECK_FAILS(NULL, CUPAT_ERROR_NULL_POINTER, "cupat_scan_segmented: ctx is NULL",
                cupat_scan_segmented(NULL, F, S, I, 4, df, dx, dy));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "head_flags is NULL",
                cupat_scan_segmented(ctx, F, S, I, 4, NULL, dx, dy));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "x is NULL",
                cupat_scan_segmented(ctx, F, S, I, 4, df, NULL, dy));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "y is NULL",
                cupat_scan_segmented(ctx, F, S, I, 4, df, dx, NULL));
    CHECK_OK(ctx, cupat_scan_segmented(ctx, F, S, I, 0, NULL, NULL, NULL));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "type = 7",
                cupat_scan_segmented(ctx, (cupat_type)7, S, I, 4, df, dx, dy));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "op = 3",
                cupat_scan_segmented(ctx, F, CUPAT_OP_ARGMIN, I, 4, df, dx, dy));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "mode = 9",
                cupat_scan_segmented(ctx, F, S, (cupat_scan_mode)9, 4, df, dx, dy));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, fmt("y = %p overlaps x = %p", (void *)(dx + 4), (void *)dx),
                cupat_scan_segmented(ctx, F, S, I, 8, df, dx, dx + 4));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE,
                fmt("y = %p overlaps head_flags = %p", (void *)dy, (void *)(dy + 8)),
                cupat_scan_segmented(ctx, F, S, I, 8, (const uint8_t *)(dy + 8), dx, dy));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, fmt("x = %p is not aligned", (void *)mis),
                cupat_scan_segmented(ctx, F, S, I, 4, df, mis, dy));
    CHECK_FAILS(ctx, CUPAT_ERROR_SIZE, fmt("x = %zu x 4", huge),
                cupat_scan_segmented(ctx, F, S, I, huge, df, dx, dy));
    /* ---- cupat_scan_by_key */
    CHECK_FAILS(NULL, CUPAT_ERROR_NULL_POINTER, "cupat_scan_by_key: ctx is NULL",
                cupat_scan_by_key(NULL, CUPAT_U32, F, S, I, 4, dk, dx, dy));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "keys is NULL",
                cupat_scan_by_key(ctx, CUPAT_U32, F, S, I, 4, NULL, dx, dy));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "x is NULL",
                cupat_scan_by_key(ctx, CUPAT_U32, F, S, I, 4, dk, NULL, dy));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "y is NULL",
                cupat_scan_by_key(ctx, CUPAT_U32, F, S, I, 4, dk, dx, NULL));
    CHECK_OK(ctx, cupat_scan_by_key(ctx, CUPAT_U32, F, S, I, 0, NULL, NULL, NULL));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "key_type = 99",
                cupat_scan_by_key(ctx, (cupat_type)99, F, S, I, 4, dk, dx, dy));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "type = 99",
                cupat_scan_by_key(ctx, CUPAT_U32, (cupat_type)99, S, I, 4, dk, dx, dy));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "op = 4",
                cupat_scan_by_key(ctx, CUPAT_U32, F, CUPAT_OP_ARGMAX, I, 4, dk, dx, dy));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "mode = -1",
                cupat_scan_by_key(ctx, CUPAT_U32, F, S, (cupat_scan_mode)-1, 4, dk, dx, dy));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, fmt("y = %p overlaps x = %p", (void *)(dx + 4), (void *)dx),
                cupat_scan_by_key(ctx, CUPAT_U32, F, S, I, 8, dk, dx, dx + 4));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE,
                fmt("y = %p overlaps keys = %p", (void *)dy, (void *)(dy + 16)),
                cupat_scan_by_key(ctx, CUPAT_U32, F, S, I, 8, dy + 16, dx, dy));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE,
                fmt("keys = %p is not aligned", (void *)((char *)dk + 2)),
                cupat_scan_by_key(ctx, CUPAT_U32, F, S, I, 4, (char *)dk + 2, dx, dy));
    CHECK_FAILS(ctx, CUPAT_ERROR_SIZE, fmt("x = %zu x 4", huge),
                cupat_scan_by_key(ctx, CUPAT_U32, F, S, I, huge, dk, dx, dy));
    /* ---- cupat_select / cupat_partition / cupat_unique */
    CHECK_FAILS(NULL, CUPAT_ERROR_NULL_POINTER, "cupat_select: ctx is NULL",
                cupat_select(NULL, F, 4, dx, df, NULL, dy, &hc));
    CHECK_FAILS(NULL, CUPAT_ERROR_NULL_POINTER, "cupat_partition: ctx is NULL",
                cupat_partition(NULL, F, 4, dx, df, NULL, dy, &hc));
    CHECK_FAILS(NULL, CUPAT_ERROR_NULL_POINTER, "cupat_unique: ctx is NULL",
                cupat_unique(NULL, F, 4, dx, dy, &hc));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "x is NULL",
                cupat_select(ctx, F, 4, NULL, df, NULL, dy, &hc));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "y is NULL",
                cupat_select(ctx, F, 4, dx, NULL, &pred, NULL, &hc));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "count is NULL",
                cupat_select(ctx, F, 4, dx, df, NULL, dy, NULL));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "count is NULL",
                cupat_partition(ctx, F, 4, dx, df, NULL, dy, NULL));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "count is NULL", cupat_unique(ctx, F, 4, dx, dy, NULL));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "x is NULL", cupat_unique(ctx, F, 4, NULL, dy, &hc));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "y is NULL", cupat_unique(ctx, F, 4, dx, NULL, &hc));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "flags = (nil) and pred = (nil)",
                cupat_select(ctx, F, 4, dx, NULL, NULL, dy, &hc));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "flags = (nil) and pred = (nil)",
                cupat_partition(ctx, F, 4, dx, NULL, NULL, dy, &hc));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "give exactly one",
                cupat_select(ctx, F, 4, dx, df, &pred, dy, &hc));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "give exactly one",
                cupat_partition(ctx, F, 4, dx, df, &pred, dy, &hc));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "pred->kind = 9",
                cupat_select(ctx, F, 4, dx, NULL, &badp, dy, &hc));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "pred->kind = 9",
                cupat_partition(ctx, F, 4, dx, NULL, &badp, dy, &hc));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "type = 99",
                cupat_select(ctx, (cupat_type)99, 4, dx, df, NULL, dy, &hc));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "type = 99",
                cupat_unique(ctx, (cupat_type)99, 4, dx, dy, &hc));
    hc = 77;
    CHECK_OK(ctx, cupat_select(ctx, F, 0, NULL, NULL, &pred, NULL, &hc));
    CHECK(hc == 0, "select n = 0: count %llu", (unsigned long long)hc);
    hc = 77;
    CHECK_OK(ctx, cupat_unique(ctx, F, 0, NULL, NULL, &hc));
    CHECK(hc == 0, "unique n = 0: count %llu", (unsigned long long)hc);
    CHECK_OK(ctx, cupat_partition(ctx, F, 0, NULL, hflags, NULL, NULL, &hc));
    hc = 77; /* an empty flag array may be NULL (cupat_malloc(0) gives NULL) */
    CHECK_OK(ctx, cupat_select(ctx, F, 0, NULL, NULL, NULL, NULL, &hc));
    CHECK(hc == 0, "select n = 0, no flags: count %llu", (unsigned long long)hc);
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, fmt("y = %p overlaps x = %p", (void *)(dx + 4), (void *)dx),
                cupat_select(ctx, F, 8, dx, df, NULL, dx + 4, &hc));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, fmt("y = %p overlaps x = %p", (void *)dx, (void *)dx),
                cupat_unique(ctx, F, 8, dx, dx, &hc)); /* no in place for compaction */
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE,
                fmt("y = %p overlaps flags = %p", (void *)dy, (void *)(dy + 8)),
                cupat_select(ctx, F, 8, dx, (const uint8_t *)(dy + 8), NULL, dy, &hc));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE,
                fmt("count = %p overlaps y = %p", (void *)(dy + 8), (void *)dy),
                cupat_select(ctx, F, 8, dx, df, NULL, dy, (uint64_t *)(dy + 8)));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE,
                fmt("count = %p overlaps x = %p", (void *)(dx + 8), (void *)dx),
                cupat_partition(ctx, F, 8, dx, df, NULL, dy, (uint64_t *)(dx + 8)));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE,
                fmt("count = %p overlaps flags = %p", (void *)(df + 8), (void *)df),
                cupat_select(ctx, F, 16, dx, df, NULL, dy, (uint64_t *)(df + 8)));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE,
                fmt("count = %p overlaps x = %p", (void *)(dx + 16), (void *)dx),
                cupat_unique(ctx, F, 8, dx, dy, (uint64_t *)(dx + 16)));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, fmt("x = %p is not aligned", (void *)mis),
                cupat_select(ctx, F, 4, mis, df, NULL, dy, &hc));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, fmt("count = %p is not aligned", (void *)((char *)dc + 4)),
                cupat_select(ctx, F, 4, dx, df, NULL, dy, (uint64_t *)((char *)dc + 4)));
    CHECK_FAILS(ctx, CUPAT_ERROR_SIZE, fmt("x = %zu x 4", huge),
                cupat_select(ctx, F, huge, dx, df, NULL, dy, &hc));
    CHECK_FAILS(ctx, CUPAT_ERROR_SIZE, fmt("x = %zu x 4", huge), cupat_unique(ctx, F, huge, dx, dy, &hc));
    /* ---- host pointers on the CUDA backend */
    if (is_cuda()) {
        CHECK_FAILS(ctx, CUPAT_ERROR_HOST_POINTER, fmt("x = %p is", (void *)hbuf),
                    cupat_scan(ctx, F, S, I, 16, hbuf, dy));
        CHECK_FAILS(ctx, CUPAT_ERROR_HOST_POINTER, fmt("y = %p is", (void *)hbuf),
                    cupat_scan(ctx, F, S, I, 16, dx, hbuf));
        CHECK_FAILS(ctx, CUPAT_ERROR_HOST_POINTER, fmt("head_flags = %p is", (void *)hflags),
                    cupat_scan_segmented(ctx, F, S, I, 16, hflags, dx, dy));
        CHECK_FAILS(ctx, CUPAT_ERROR_HOST_POINTER, fmt("keys = %p is", (void *)hbuf),
                    cupat_scan_by_key(ctx, CUPAT_U32, F, S, I, 16, hbuf, dx, dy));
        CHECK_FAILS(ctx, CUPAT_ERROR_HOST_POINTER, fmt("x = %p is", (void *)hbuf),
                    cupat_select(ctx, F, 16, hbuf, df, NULL, dy, dc));
        CHECK_FAILS(ctx, CUPAT_ERROR_HOST_POINTER, fmt("flags = %p is", (void *)hflags),
                    cupat_partition(ctx, F, 16, dx, hflags, NULL, dy, dc));
        CHECK_FAILS(ctx, CUPAT_ERROR_HOST_POINTER, fmt("y = %p is", (void *)hbuf),
                    cupat_unique(ctx, F, 16, dx, hbuf, dc));
        CHECK_FAILS(ctx, CUPAT_ERROR_NOT_SUPPORTED, "cpu backend",
                    cupat_set_variant(ctx, "scan", "serial"));
    } else {
        CHECK_FAILS(ctx, CUPAT_ERROR_NOT_SUPPORTED, "cuda backend",
                    cupat_set_variant(ctx, "scan", "decoupled"));
        CHECK_FAILS(ctx, CUPAT_ERROR_NOT_SUPPORTED, "cuda backend",
                    cupat_set_variant(ctx, "select", "decoupled"));
    }
    CHECK_FAILS(ctx, CUPAT_ERROR_NOT_FOUND, "nope", cupat_set_variant(ctx, "segscan", "nope"));
    /* a failed call leaves the context usable */
    CHECK_OK(ctx, cupat_scan(ctx, F, S, I, 16, dx, dy));
    CHECK_OK(ctx, cupat_sync(ctx));
    dfree(dx);
    dfree(dy);
    dfree(df);
    dfree(dk);
    dfree(dc);
}

/* The ladders: registered, one default per backend, CPU rungs named. */
static void test_ladders(void)
{
    const char *pats[3] = {"scan", "segscan", "select"};
    const size_t counts[3] = {SR_COUNT, SG_COUNT, SL_COUNT};
    for (int p = 0; p < 3; p++) {
        const cupat_variant_info *list;
        size_t n = 0;
        CHECK_OK(NULL, cupat_variants(pats[p], &list, &n));
        CHECK(n == counts[p], "%s: %zu rungs, want %zu", pats[p], n, counts[p]);
        int defaults[3] = {0, 0, 0};
        for (size_t i = 0; i < n; i++)
            if (list[i].is_default) defaults[list[i].backend]++;
        CHECK(defaults[CUPAT_BACKEND_CPU] == 1 && defaults[CUPAT_BACKEND_CUDA] == 1,
              "%s: %d CPU and %d CUDA defaults", pats[p], defaults[CUPAT_BACKEND_CPU],
              defaults[CUPAT_BACKEND_CUDA]);
    }
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--rung") == 0 && i + 1 < argc) only_rung = argv[++i];
        else if (strcmp(argv[i], "--large") == 0) large = 1;
    }
    ctx = test_init(argc, argv);
    test_seed();
    static const test_part parts[] = {
        {"ladders", test_ladders},       {"errors", test_errors},
        {"sweep", test_sweep},           {"l2", test_l2},
        {"misaligned", test_misaligned}, {"in place", test_in_place},
        {"specials", test_specials},     {"determinism", test_determinism},
        {"serial order", test_serial_order}, {"segmented", test_segmented},
        {"select", test_select},         {"huge", test_huge}};
    test_run_parts(argc, argv, parts, sizeof parts / sizeof *parts, pool_release);
    return test_finish(ctx);
}
