/* SPDX-License-Identifier: Apache-2.0 */
/* test_diff.c — seeded randomized differential test (DESIGN.md, Correctness).
 *
 * Case K draws one family's parameters (size, types, order, value size, in
 * place, misaligned starts, segment shapes, key distributions) from an RNG
 * seeded by (seed, K), builds the inputs and a plain reference written here
 * (stable merge sort, loops), and runs the library on the backend under test
 * with no rung pinned (the default) and then with each of that backend's
 * rungs of the family's pattern pinned (cupat_variants, cupat_set_variant).
 * Integers and orders compare exactly; float sums within the bound cupat.h
 * documents (or the any-order bound gamma(m) sum|x| where it gives none);
 * NaN passes only where NaN is the answer. Outputs are poisoned first. A
 * pinned non-default rung may refuse what it does not take
 * (CUPAT_ERROR_NOT_SUPPORTED): counted and listed, not a failure.
 *
 * Options: --backend cpu|cuda, --seed S, --cases N (default 2000 on the
 * CPU, 2800 on CUDA: about a minute on an H200), --case K (that case
 * alone), --family NAME (case K is family K mod 15 unless one is named),
 * --list (families and rungs), --verbose (a line a case), --small
 * (sanitizer sizes). A mismatch prints one line: family, rung, the case's
 * parameters, the first wrong index with got / want, and the command that
 * replays it. Families: sort, sort_bits, segsort, merge, scan, scan_by_key,
 * scan_segmented, select (select / partition / unique), hist_even,
 * hist_range, hist_channels, reduce, dot, spmv, bfs. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "testutil.h"

#include <float.h>
#include <unistd.h>

/* Merge of unsorted inputs: cupat.h says the default rung and the CPU rungs
 * give every element once (with its value), the CUDA lab rungs (corank,
 * tiled, circular) only elements of the inputs. 1: ask every rung for a
 * permutation. */
#define MERGE_UNSORTED_STRICT_ALL 0

static cupat_ctx *ctx;
static uint64_t g_seed = 20250101;
static long long g_case;
static const char *g_only;  /* --family */
static const char *g_fam;   /* family of the running case */
static char g_par[512];     /* its parameters, for messages */
static long g_mismatch;
static int g_poison;        /* poison byte of the case */
static int g_verbose;       /* --verbose: a line a case */
static int g_dead;          /* a sticky CUDA error: stop */

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define NONE SIZE_MAX

static int is_cuda(void) { return t_backend == CUPAT_BACKEND_CUDA; }
static uint64_t rnd(void) { return test_rand(); }
static size_t rn(size_t m) { return m ? (size_t)(test_rand() % m) : 0; }
static double ru(void) { return (double)(test_rand() >> 11) * 0x1p-53; }
static void par(const char *f, ...)
{
    size_t l = strlen(g_par);
    va_list ap;
    va_start(ap, f);
    vsnprintf(g_par + l, sizeof g_par - l, f, ap);
    va_end(ap);
}

/* ------------------------------------------------------------ verdicts -- */

typedef struct rung {
    const char *name;            /* "default" when nothing is pinned */
    const cupat_variant_info *v; /* NULL for the default            */
} rung;

static int verdict(int ok, const rung *r, const char *what, size_t i, const char *got, const char *want)
{
    if (!ok) g_mismatch++;
    CHECK(ok, "diff %s rung=%s %s: %s at %zu: got %s want %s | replay: test_diff --backend %s --seed %llu --case %lld%s%s",
          g_fam, r->name, g_par, what, i, got, want, cupat_backend_name(t_backend), (unsigned long long)g_seed, g_case,
          g_only ? " --family " : "", g_only ? g_only : "");
    return ok;
}

/* Refusals by rung (pattern, name, count). */
static struct {
    const char *pattern, *name;
    long n;
} g_ref[64];
static long g_refused;
static void refused(const rung *r)
{
    g_refused++;
    for (int i = 0; i < 64; i++)
        if (!g_ref[i].name || (g_ref[i].name == r->v->name && g_ref[i].pattern == r->v->pattern)) {
            g_ref[i].pattern = r->v->pattern;
            g_ref[i].name = r->v->name;
            g_ref[i].n++;
            return;
        }
}
/* 1: the call succeeded, check its output. */
static int status_ok(cupat_status s, const rung *r)
{
    if (s == CUPAT_SUCCESS) return 1;
    if (s == CUPAT_ERROR_NOT_SUPPORTED && r->v && !r->v->is_default) {
        refused(r);
        return 0;
    }
    verdict(0, r, "status", 0, fmt("%s (%s)", cupat_status_string(s), cupat_last_error(ctx)), "CUPAT_SUCCESS");
    return 0;
}

/* ------------------------------------------------------------- buffers -- */

#define NSLOT 12
static void *d_p[NSLOT], *h_p[NSLOT];
static size_t d_n[NSLOT], h_n[NSLOT];
/* Backend slot s (grows; 64 spare bytes for a misaligned start). */
static void *dbuf(int s, size_t bytes)
{
    bytes += 64;
    if (bytes > d_n[s]) {
        if (d_p[s]) CHECK_OK(ctx, cupat_free(ctx, d_p[s]));
        d_p[s] = test_dalloc(ctx, bytes);
        d_n[s] = bytes;
    }
    return d_p[s];
}
static void *hbuf(int s, size_t bytes)
{
    bytes += 64;
    if (bytes > h_n[s]) {
        free(h_p[s]);
        h_p[s] = test_xmalloc(bytes);
        h_n[s] = bytes;
    }
    return h_p[s];
}
static void pool_release(void)
{
    for (int s = 0; s < NSLOT; s++) {
        if (d_p[s]) CHECK_OK(ctx, cupat_free(ctx, d_p[s]));
        free(h_p[s]);
        d_p[s] = h_p[s] = NULL;
        d_n[s] = h_n[s] = 0;
    }
}
#define put(d, h, bytes) test_put(ctx, d, h, bytes)
static void get(void *h, const void *d, size_t b)
{
    if (b) test_download(ctx, h, d, b);
    else CHECK_OK(ctx, cupat_sync(ctx));
}
static void poison(void *d, size_t b)
{
    if (b) CHECK_OK(ctx, cupat_memset(ctx, d, g_poison, b));
}
/* Slot s, misaligned by one element of es bytes when mis. */
static void *dslot(int s, size_t n, size_t es, int mis) { return (char *)dbuf(s, (n + 1) * es) + (mis ? es : 0); }

/* --------------------------------------------------------------- types -- */

static const cupat_type T6[6] = {CUPAT_F32, CUPAT_F64, CUPAT_I32, CUPAT_U32, CUPAT_I64, CUPAT_U64};
static const cupat_type TI[4] = {CUPAT_I32, CUPAT_U32, CUPAT_I64, CUPAT_U64};
static size_t tsz(cupat_type t) { return cupat_type_size(t); }
static int isf(cupat_type t) { return t == CUPAT_F32 || t == CUPAT_F64; }
static int iss(cupat_type t) { return t == CUPAT_I32 || t == CUPAT_I64; }
static uint64_t tmask(cupat_type t) { return tsz(t) == 8 ? ~0ull : 0xffffffffull; }
static uint64_t rd(cupat_type t, const void *p, size_t i)
{
    return tsz(t) == 4 ? ((const uint32_t *)p)[i] : ((const uint64_t *)p)[i];
}
static void wr(cupat_type t, void *p, size_t i, uint64_t v)
{
    if (tsz(t) == 4) ((uint32_t *)p)[i] = (uint32_t)v;
    else ((uint64_t *)p)[i] = v;
}
static double f64of(uint64_t b)
{
    double d;
    memcpy(&d, &b, 8);
    return d;
}
static uint64_t bitsf64(double d)
{
    uint64_t b;
    memcpy(&b, &d, 8);
    return b;
}
/* The value of bits b of type t. */
static long double num(cupat_type t, uint64_t b)
{
    switch (t) {
    case CUPAT_F32: return test_bits_f32((uint32_t)b);
    case CUPAT_F64: return f64of(b);
    case CUPAT_I32: return (int32_t)(uint32_t)b;
    case CUPAT_U32: return (uint32_t)b;
    case CUPAT_I64: return (int64_t)b;
    default: return b;
    }
}
/* v rounded to float type t, as bits. */
static uint64_t fbits(cupat_type t, long double v)
{
    return t == CUPAT_F32 ? test_f32_bits((float)v) : bitsf64((double)v);
}
static int isnanb(cupat_type t, uint64_t b) { return isf(t) && isnan(num(t, b)); }
/* cupat.h's key order as an unsigned order: integers by value, floats by the
 * radix flip (-NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN). */
static uint64_t okey(cupat_type t, uint64_t b)
{
    switch (t) {
    case CUPAT_I32: return b ^ 0x80000000u;
    case CUPAT_I64: return b ^ (1ull << 63);
    case CUPAT_F32: return (b & 0x80000000u) ? (~b & 0xffffffffu) : (b | 0x80000000u);
    case CUPAT_F64: return (b >> 63) ? ~b : (b | (1ull << 63));
    default: return b;
    }
}
static const char *vstr(cupat_type t, uint64_t b)
{
    switch (t) {
    case CUPAT_F32: return fmt("%.9g(0x%08llx)", (double)num(t, b), (unsigned long long)b);
    case CUPAT_F64: return fmt("%.17g(0x%016llx)", f64of(b), (unsigned long long)b);
    case CUPAT_I32: return fmt("%d", (int32_t)(uint32_t)b);
    case CUPAT_I64: return fmt("%lld", (long long)(int64_t)b);
    default: return fmt("%llu", (unsigned long long)b);
    }
}

/* Stable merge sort of idx[0, n) by k[idx[.]] (descending: the reverse
 * order, still stable). tmp: n slots. */
static void msort(size_t *idx, size_t n, const uint64_t *k, int desc)
{
    size_t *tmp = test_xmalloc(n * sizeof *tmp), *a = idx, *b = tmp;
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = MIN(lo + w, n), hi = MIN(lo + 2 * w, n), i = lo, j = mid, o = lo;
            while (i < mid && j < hi) {
                uint64_t ki = k[a[i]], kj = k[a[j]];
                b[o++] = (desc ? kj > ki : kj < ki) ? a[j++] : a[i++];
            }
            while (i < mid) b[o++] = a[i++];
            while (j < hi) b[o++] = a[j++];
        }
        size_t *t = a;
        a = b;
        b = t;
    }
    if (a != idx) memcpy(idx, a, n * sizeof *idx);
    free(tmp);
}
/* idx = the stable order of keys h[0, n) of type t. */
static size_t *order_of(cupat_type t, const void *h, size_t n, int desc)
{
    uint64_t *k = test_xmalloc(n * 8);
    size_t *idx = test_xmalloc(n * sizeof *idx);
    for (size_t i = 0; i < n; i++) k[i] = okey(t, rd(t, h, i)), idx[i] = i;
    msort(idx, n, k, desc);
    free(k);
    return idx;
}
static void sort_in_place(cupat_type t, void *h, size_t n, int desc)
{
    size_t *o = order_of(t, h, n, desc);
    uint64_t *c = test_xmalloc(n * 8);
    for (size_t i = 0; i < n; i++) c[i] = rd(t, h, o[i]);
    for (size_t i = 0; i < n; i++) wr(t, h, i, c[i]);
    free(c);
    free(o);
}

/* ------------------------------------------------------------- drawing -- */

/* Largest size a case draws: CPU 10^5; CUDA 2^18, but 10^7 in one case of
 * LARGE_EVERY ("large" in its parameters), whose sizes are then mostly
 * beyond 10^5. */
#define LARGE_EVERY 200
static size_t g_cap;
static int g_large;
static size_t draw_n(size_t cap)
{
    static const size_t e[] = {0,    1,    2,    3,    5,    7,    8,     15,    16,    17,    31,   32,   33,
                               63,   64,   65,   127,  128,  129,  255,   256,   257,   511,   512,  513,  767,
                               768,  769,  1023, 1024, 1025, 2047, 2048,  2049,  3071,  3072,  3073, 4095, 4096,
                               4097, 6143, 6144, 6145, 8191, 8192, 8193, 12287, 12288, 12289, 16383, 16384, 16385};
    size_t n, r = rn(64);
    if (g_large && cap > 100000 && rn(2)) r = 64;
    if (r < 24) n = e[rn(sizeof e / sizeof *e)];
    else if (r < 30) n = 7680 + rn(17) - 8;
    else if (r < 36) n = 8832 + rn(17) - 8;
    else if (r < 42) {
        int p = 1;
        while (((size_t)2 << p) <= cap) p++;
        n = ((size_t)1 << (1 + rn((size_t)p))) + rn(5) - 2;
    } else if (r < 56) n = rn(5000);
    else if (r < 64) n = rn(cap + 1);
    else n = (size_t)exp(log(1e5) + ru() * (log((double)cap) - log(1e5)));
    return MIN(n, cap);
}

enum { D_RANDOM, D_EQUAL, D_FEW, D_SORTED, D_REVERSED, D_SPECIAL, D_SMALL, D_ZEROS, D_RANGE, ND };
static const char *const dname[ND] = {"random", "equal", "few", "sorted", "reversed", "special", "small", "zeros", "range"};

/* Special values: IEEE classes for floats (numeric: no finite extremes that
 * would overflow a sum), the ends of the range for integers. */
static uint64_t special(cupat_type t, int numeric)
{
    static const uint32_t s32[] = {0, 0x80000000u, 0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xff812345u, 0x7fffffffu,
                                   0x7f800000u, 0xff800000u, 1, 0x80000001u, 0x007fffffu, 0x807fffffu, 0x00800000u,
                                   0x3f800000u, 0xbf800000u, 0x7f7fffffu, 0xff7fffffu};
    static const uint64_t s64[] = {0, 1ull << 63, 0x7ff8000000000000ull, 0xfff8000000000000ull,
                                   0x7ff0000000000001ull, 0xfff0000000abcdefull, 0x7fffffffffffffffull,
                                   0x7ff0000000000000ull, 0xfff0000000000000ull, 1, 0x8000000000000001ull,
                                   0x000fffffffffffffull, 0x800fffffffffffffull, 0x0010000000000000ull,
                                   0x3ff0000000000000ull, 0xbff0000000000000ull, 0x7fefffffffffffffull,
                                   0xffefffffffffffffull};
    size_t ns = numeric ? 16 : 18;
    if (t == CUPAT_F32) return s32[rn(ns)];
    if (t == CUPAT_F64) return s64[rn(ns)];
    uint64_t m = tmask(t), top = iss(t) ? m >> 1 : m; /* the largest value */
    uint64_t v[] = {0, 1, m /* -1 or max */, top, top - 1, iss(t) ? top + 1 : 2, 0x80, 0xff, 0x100};
    return v[rn(9)] & m;
}
/* One value of distribution d (random, special or small; numeric: floats
 * are numbers in [-1, 1) or widely scaled, else every bit pattern). */
static uint64_t one(cupat_type t, int d, int numeric)
{
    if (d == D_SPECIAL && rn(2)) return special(t, numeric);
    if (d == D_ZEROS) { /* -0 and +0 (floats), with a few other specials */
        if (rn(8) == 0) return special(t, numeric);
        return isf(t) && rn(2) ? (tsz(t) == 4 ? 0x80000000u : 1ull << 63) : 0;
    }
    if (d == D_SMALL) {
        int64_t v = (int64_t)rn(17) - (isf(t) || iss(t) ? 8 : 0);
        return isf(t) ? fbits(t, v) : (uint64_t)v & tmask(t);
    }
    if (isf(t) && numeric) return fbits(t, (ru() * 2 - 1) * ldexp(1.0, rn(2) ? 0 : (int)rn(41) - 20));
    return rnd() & tmask(t);
}
static void gen(cupat_type t, void *h, size_t n, int d, int numeric)
{
    uint64_t pool[1000] = {0}, c = one(t, D_RANDOM, numeric);
    size_t np = (size_t[]){2, 16, 1000}[rn(3)];
    for (size_t k = 0; k < np; k++) pool[k] = one(t, rn(4) ? D_RANDOM : D_SPECIAL, numeric);
    /* range: integers in [0, R) (or centred on 0): the top digits all equal */
    int64_t R = (int64_t[]){10, 1000, 1 << 16, 1 << 20, 3000000}[rn(5)], base = rn(3) == 0 && (iss(t) || isf(t)) ? -R / 2 : 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t v = d == D_EQUAL ? c : d == D_FEW ? pool[rn(np)] : 0;
        if (d == D_RANGE) {
            int64_t x = base + (int64_t)rn((size_t)R);
            v = isf(t) ? fbits(t, (long double)x) : (uint64_t)x & tmask(t);
        } else if (d != D_EQUAL && d != D_FEW) v = one(t, d == D_SORTED || d == D_REVERSED ? D_RANDOM : d, numeric);
        wr(t, h, i, v);
    }
    if (d == D_SORTED || d == D_REVERSED) sort_in_place(t, h, n, d == D_REVERSED);
}

/* Segment lengths of shape s summing to at most cap; returns the count. */
static const char *const segname[] = {"one", "singletons", "many_small", "huge+small", "empties", "tile_edges", "none", "random"};
static size_t draw_segments(int s, size_t cap, uint64_t **len_out)
{
    size_t ns = s == 0 ? 1 : s == 6 ? 0 : s == 3 ? 1 + rn(8) : 1 + rn(s == 1 ? 5000 : s == 2 ? 3000 : 300);
    uint64_t *len = test_xmalloc((ns + 1) * 8), tot = 0;
    size_t big = rn(ns ? ns : 1);
    for (size_t k = 0; k < ns; k++) {
        static const uint64_t te[] = {31, 32, 33, 1023, 1024, 1025, 4095, 4096, 4097, 8191, 8192, 8193};
        uint64_t l = s == 0 ? draw_n(cap) : s == 1 ? 1 : s == 2 ? rn(41) : s == 3 ? (k == big ? draw_n(cap) : rn(100))
                   : s == 4 ? (rn(3) ? 0 : rn(5)) : s == 5 ? te[rn(12)] : draw_n(cap / 8 + 1);
        if (tot + l > cap) l = cap - tot;
        len[k] = l;
        tot += l;
    }
    *len_out = len;
    return ns;
}

/* ---------------------------------------------------------- float sums -- */

/* The exact sum of the terms so far (long double Neumaier, IEEE specials
 * tracked apart) and sum |x|. */
typedef struct acc {
    long double s, c, abs;
    int nan, pinf, ninf;
    size_t terms;
} acc;
static void acc_add(acc *a, long double v)
{
    a->terms++;
    if (isnan(v)) a->nan = 1;
    else if (isinf(v)) {
        if (v > 0) a->pinf = 1;
        else a->ninf = 1;
    } else {
        long double t = a->s + v;
        a->c += fabsl(a->s) >= fabsl(v) ? (a->s - t) + v : (v - t) + a->s;
        a->s = t;
        a->abs += fabsl(v);
    }
}
static long double acc_val(const acc *a)
{
    if (a->nan || (a->pinf && a->ninf)) return NAN;
    if (a->pinf) return INFINITY;
    if (a->ninf) return -INFINITY;
    return a->s + a->c;
}
static double gam(double m, double u) { return m * u >= 1 ? INFINITY : m * u / (1 - m * u); }
/* The reference's own error (Neumaier in long double). */
static long double ref_err(const acc *a)
{
    return 2 * LDBL_EPSILON * fabsl(a->s + a->c) + (long double)a->terms * LDBL_EPSILON * LDBL_EPSILON * a->abs;
}
/* got against the exact value within tol: NaN only where NaN is exact,
 * infinities equal. */
static int near(long double got, long double want, long double tol)
{
    if (isnan(want)) return isnan(got);
    if (isnan(got)) return 0;
    if (isinf(want) || isinf(got)) return got == want;
    return fabsl(got - want) <= tol;
}
static double unit(cupat_type t) { return t == CUPAT_F32 ? FLT_EPSILON / 2 : DBL_EPSILON / 2; }

/* ============================================================ families == */

/* ---------------------------------------------------------------- sort -- */

static struct {
    cupat_type t;
    size_t n, vs, ks, nseg;
    int desc, inpl, bits, lo, hi, segmented, mis;
    void *hk, *hv, *dk, *dko, *dv, *dvo, *gk, *gv;
    uint64_t *off;
    size_t *ref;
} S;

static void sort_prep_common(void)
{
    cupat_type t = S.t;
    S.ks = tsz(t);
    S.vs = (size_t[]){0, 4, 8}[rn(3)];
    S.desc = (int)rn(2);
    S.inpl = rn(3) == 0;
    S.mis = rn(4) == 0;
    int d = (int)rn(ND);
    S.hk = hbuf(0, S.n * S.ks);
    gen(t, S.hk, S.n, d, (int)rn(2));
    S.hv = hbuf(1, S.n * 8);
    for (size_t i = 0; i < S.n; i++) {
        if (S.vs == 4) ((uint32_t *)S.hv)[i] = (uint32_t)i;
        else ((uint64_t *)S.hv)[i] = i;
    }
    /* reference order: by the (bit range of the) ordered key, stable */
    uint64_t *k = test_xmalloc(S.n * 8 + 8);
    uint64_t m = S.hi - S.lo == 64 ? ~0ull : (1ull << (S.hi - S.lo)) - 1;
    for (size_t i = 0; i < S.n; i++) k[i] = (okey(t, rd(t, S.hk, i)) >> S.lo) & m;
    S.ref = test_xmalloc(S.n * sizeof *S.ref + 8);
    for (size_t i = 0; i < S.n; i++) S.ref[i] = i;
    for (size_t s = 0; s < (S.segmented ? S.nseg : 1); s++) {
        size_t a = S.segmented ? S.off[s] : 0, b = S.segmented ? S.off[s + 1] : S.n;
        msort(S.ref + a, b - a, k, S.desc);
    }
    free(k);
    S.dk = dslot(0, S.n, S.ks, S.mis);
    S.dko = S.inpl ? S.dk : dslot(1, S.n, S.ks, S.mis);
    S.dv = S.vs ? dslot(2, S.n, S.vs, S.mis) : NULL;
    S.dvo = S.inpl ? S.dv : S.vs ? dslot(3, S.n, S.vs, S.mis) : NULL;
    S.gk = hbuf(2, S.n * S.ks);
    S.gv = hbuf(3, S.n * 8);
    put(S.dk, S.hk, S.n * S.ks);
    if (S.vs) put(S.dv, S.hv, S.n * S.vs);
    par("%s n=%zu v%zu %s %s%s%s", cupat_type_name(t), S.n, S.vs, S.desc ? "desc" : "asc", dname[d],
        S.inpl ? " in-place" : "", S.mis ? " misaligned" : "");
}
static void sort_prep(void)
{
    S.segmented = 0;
    S.t = T6[rn(6)];
    S.n = draw_n(g_cap);
    S.bits = 0;
    S.lo = 0;
    S.hi = (int)(8 * tsz(S.t));
    sort_prep_common();
}
static void sort_bits_prep(void)
{
    S.segmented = 0;
    S.t = TI[rn(4)];
    S.n = draw_n(g_cap);
    int w = (int)(8 * tsz(S.t));
    S.bits = 1;
    switch (rn(5)) {
    case 0: S.lo = 0, S.hi = 1 + (int)rn((size_t)w); break;
    case 1: S.lo = (int)rn((size_t)w), S.hi = w; break;
    case 2: S.lo = 8 * (int)rn((size_t)w / 8), S.hi = S.lo + 8; break;
    case 3: S.lo = 0, S.hi = w; break;
    default: S.lo = (int)rn((size_t)w), S.hi = S.lo + 1 + (int)rn((size_t)(w - S.lo)); break;
    }
    sort_prep_common();
    par(" bits [%d,%d)", S.lo, S.hi);
}
static void segsort_prep(void)
{
    S.segmented = 1;
    S.t = T6[rn(6)];
    int shape = (int)rn(8);
    uint64_t *len;
    S.nseg = draw_segments(shape, g_cap, &len);
    S.off = test_xmalloc((S.nseg + 1) * 8);
    S.off[0] = 0;
    for (size_t s = 0; s < S.nseg; s++) S.off[s + 1] = S.off[s] + len[s];
    free(len);
    S.n = S.off[S.nseg];
    S.bits = 0;
    S.lo = 0;
    S.hi = (int)(8 * tsz(S.t));
    sort_prep_common();
    par(" segments=%zu (%s)", S.nseg, segname[shape]);
}
static void sort_run(const rung *r)
{
    cupat_type t = S.t;
    size_t n = S.n, ks = S.ks, vs = S.vs;
    if (S.inpl) {
        put(S.dk, S.hk, n * ks);
        if (vs) put(S.dv, S.hv, n * vs);
    } else {
        poison(S.dko, n * ks);
        if (vs) poison(S.dvo, n * vs);
    }
    cupat_sort_order o = S.desc ? CUPAT_SORT_DESCENDING : CUPAT_SORT_ASCENDING;
    cupat_status s;
    if (S.segmented) {
        uint64_t *doff = dslot(4, S.nseg + 1, 8, 0);
        put(doff, S.off, (S.nseg + 1) * 8);
        s = cupat_sort_segmented(ctx, t, vs, o, n, S.nseg, doff, S.dk, S.dko, S.dv, S.dvo);
    } else if (S.bits) s = cupat_sort_bits(ctx, t, vs, o, n, S.dk, S.dko, S.dv, S.dvo, S.lo, S.hi);
    else s = cupat_sort(ctx, t, vs, o, n, S.dk, S.dko, S.dv, S.dvo);
    if (!status_ok(s, r)) return;
    get(S.gk, S.dko, n * ks);
    if (vs) get(S.gv, S.dvo, n * vs);
    size_t bad = NONE;
    int val = 0;
    for (size_t i = 0; i < n && bad == NONE; i++) {
        if (rd(t, S.gk, i) != rd(t, S.hk, S.ref[i])) bad = i;
        else if (vs && (vs == 4 ? ((uint32_t *)S.gv)[i] != (uint32_t)S.ref[i] : ((uint64_t *)S.gv)[i] != S.ref[i]))
            bad = i, val = 1;
    }
    if (bad == NONE) verdict(1, r, "", 0, "", "");
    else if (!val) verdict(0, r, "key", bad, vstr(t, rd(t, S.gk, bad)), vstr(t, rd(t, S.hk, S.ref[bad])));
    else
        verdict(0, r, "value (stability)", bad,
                fmt("%llu", (unsigned long long)(vs == 4 ? ((uint32_t *)S.gv)[bad] : ((uint64_t *)S.gv)[bad])),
                fmt("%zu", S.ref[bad]));
}
static void sort_done(void)
{
    free(S.ref);
    if (S.segmented) free(S.off);
    S.ref = NULL;
    S.off = NULL;
}

/* --------------------------------------------------------------- merge -- */

static struct {
    cupat_type t;
    size_t na, nb, vs;
    int desc, unsorted, mis;
    void *hk, *hv, *da, *db, *dav, *dbv, *dko, *dvo, *gk, *gv;
    size_t *ref;      /* sorted inputs: the output order (input indices) */
    uint64_t *sorted; /* unsorted inputs: the input keys' ordered keys, sorted */
} M;

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}
static void merge_prep(void)
{
    cupat_type t = M.t = T6[rn(6)];
    size_t ks = tsz(t);
    M.na = draw_n(g_cap / 2);
    M.nb = rn(4) == 0 ? draw_n(g_cap / 2) : rn(3) == 0 ? rn(3) : M.na + rn(3) - 1;
    if (M.nb > g_cap / 2) M.nb = 0;
    M.vs = (size_t[]){0, 4, 8}[rn(3)];
    M.desc = (int)rn(2);
    M.unsorted = rn(6) == 0;
    if (M.unsorted && rn(2)) { /* large: many partitions, chunks and tiles */
        M.na = g_cap / 2 - rn(g_cap / 8);
        M.nb = g_cap / 2 - rn(g_cap / 8);
    }
    size_t n = M.na + M.nb;
    M.mis = rn(4) == 0;
    int d = (int)rn(ND), split = (int)rn(4);
    M.hk = hbuf(0, n * ks);
    gen(t, M.hk, n, d, (int)rn(2));
    if (!M.unsorted) {
        if (split) { /* a before b, b before a, or interleaved, in the merge's order */
            sort_in_place(t, M.hk, n, M.desc);
            if (split > 1) {
                uint64_t *c = test_xmalloc(n * 8 + 8);
                size_t ia = 0, ib = M.na;
                if (split == 2) {
                    for (size_t i = 0; i < n; i++) c[i] = rd(t, M.hk, (i + M.nb) % n);
                } else {
                    for (size_t i = 0; i < n; i++) /* deal the sorted keys out to a and b */
                        if ((i % 2 == 0 && ia < M.na) || ib == n) c[ia++] = rd(t, M.hk, i);
                        else c[ib++] = rd(t, M.hk, i);
                }
                for (size_t i = 0; i < n; i++) wr(t, M.hk, i, c[i]);
                free(c);
            }
        }
        sort_in_place(t, M.hk, M.na, M.desc);
        sort_in_place(t, (char *)M.hk + M.na * ks, M.nb, M.desc);
    }
    M.hv = hbuf(1, n * 8);
    for (size_t i = 0; i < n; i++) {
        if (M.vs == 4) ((uint32_t *)M.hv)[i] = (uint32_t)i;
        else ((uint64_t *)M.hv)[i] = i;
    }
    uint64_t *k = test_xmalloc(n * 8 + 8);
    for (size_t i = 0; i < n; i++) k[i] = okey(t, rd(t, M.hk, i));
    M.ref = NULL;
    M.sorted = NULL;
    if (!M.unsorted) { /* the stable merge: a's element first on ties */
        M.ref = test_xmalloc(n * sizeof *M.ref + 8);
        size_t i = 0, j = M.na, o = 0;
        while (i < M.na && j < n) M.ref[o++] = (M.desc ? k[j] > k[i] : k[j] < k[i]) ? j++ : i++;
        while (i < M.na) M.ref[o++] = i++;
        while (j < n) M.ref[o++] = j++;
        free(k);
    } else {
        qsort(k, n, 8, cmp_u64);
        M.sorted = k;
    }
    size_t vs = M.vs;
    M.da = dslot(0, M.na, ks, M.mis);
    M.db = dslot(1, M.nb, ks, rn(2) && M.mis);
    M.dav = vs ? dslot(2, M.na, vs, M.mis) : NULL;
    M.dbv = vs ? dslot(3, M.nb, vs, 0) : NULL;
    M.dko = dslot(4, n, ks, rn(2) && M.mis);
    M.dvo = vs ? dslot(5, n, vs, M.mis) : NULL;
    put(M.da, M.hk, M.na * ks);
    put(M.db, (char *)M.hk + M.na * ks, M.nb * ks);
    if (vs) {
        put(M.dav, M.hv, M.na * vs);
        put(M.dbv, (char *)M.hv + M.na * vs, M.nb * vs);
    }
    M.gk = hbuf(2, n * ks);
    M.gv = hbuf(3, n * 8);
    static const char *const sp[] = {"random", "a<b", "b<a", "interleaved"};
    par("%s na=%zu nb=%zu v%zu %s %s %s%s", cupat_type_name(t), M.na, M.nb, vs, M.desc ? "desc" : "asc", dname[d],
        M.unsorted ? "UNSORTED" : sp[split], M.mis ? " misaligned" : "");
}
static void merge_run(const rung *r)
{
    cupat_type t = M.t;
    size_t n = M.na + M.nb, ks = tsz(t), vs = M.vs;
    poison(M.dko, n * ks);
    if (vs) poison(M.dvo, n * vs);
    cupat_status s = cupat_merge(ctx, t, vs, M.desc ? CUPAT_SORT_DESCENDING : CUPAT_SORT_ASCENDING, M.na, M.da,
                                 M.dav, M.nb, M.db, M.dbv, M.dko, M.dvo);
    if (!status_ok(s, r)) return;
    get(M.gk, M.dko, n * ks);
    if (vs) get(M.gv, M.dvo, n * vs);
    uint64_t gvi = 0;
#define GV(i) (vs == 4 ? ((uint32_t *)M.gv)[i] : ((uint64_t *)M.gv)[i])
    if (!M.unsorted) {
        for (size_t i = 0; i < n; i++) {
            if (rd(t, M.gk, i) != rd(t, M.hk, M.ref[i]))
                return (void)verdict(0, r, "key", i, vstr(t, rd(t, M.gk, i)), vstr(t, rd(t, M.hk, M.ref[i])));
            if (vs && (gvi = GV(i)) != (vs == 4 ? (uint32_t)M.ref[i] : M.ref[i]))
                return (void)verdict(0, r, "value (stability)", i, fmt("%llu", (unsigned long long)gvi),
                                     fmt("%zu", M.ref[i]));
        }
        verdict(1, r, "", 0, "", "");
        return;
    }
    /* unsorted inputs: a permutation (strict) or elements of the inputs */
    int strict = MERGE_UNSORTED_STRICT_ALL || !r->v || r->v->is_default || r->v->backend == CUPAT_BACKEND_CPU;
    if (vs) {
        unsigned char *seen = calloc(n + 1, 1);
        for (size_t i = 0; i < n; i++) {
            uint64_t v = GV(i);
            if (v >= n || rd(t, M.hk, v) != rd(t, M.gk, i)) {
                free(seen);
                return (void)verdict(0, r, "unsorted inputs: not an input pair", i,
                                     fmt("%s/%llu", vstr(t, rd(t, M.gk, i)), (unsigned long long)v), "an input pair");
            }
            if (strict && seen[v]++) {
                free(seen);
                return (void)verdict(0, r, "unsorted inputs: pair repeated", i, fmt("%llu", (unsigned long long)v),
                                     "each input once");
            }
        }
        free(seen);
    } else {
        uint64_t *g = test_xmalloc(n * 8 + 8);
        for (size_t i = 0; i < n; i++) g[i] = okey(t, rd(t, M.gk, i));
        for (size_t i = 0; i < n; i++)
            if (!bsearch(&g[i], M.sorted, n, 8, cmp_u64)) {
                free(g);
                return (void)verdict(0, r, "unsorted inputs: not an input key", i, vstr(t, rd(t, M.gk, i)),
                                     "an input key");
            }
        if (strict) {
            qsort(g, n, 8, cmp_u64);
            for (size_t i = 0; i < n; i++)
                if (g[i] != M.sorted[i]) {
                    free(g);
                    return (void)verdict(0, r, "unsorted inputs: keys not a permutation (sorted, ordered keys)", i,
                                         fmt("0x%llx", (unsigned long long)g[i]), fmt("0x%llx", (unsigned long long)M.sorted[i]));
                }
        }
        free(g);
    }
#undef GV
    verdict(1, r, "", 0, "", "");
}
static void merge_done(void)
{
    free(M.ref);
    free(M.sorted);
    M.ref = NULL;
    M.sorted = NULL;
}

/* ---------------------------------------------------------------- scan -- */

static const cupat_op SOPS[3] = {CUPAT_OP_SUM, CUPAT_OP_MIN, CUPAT_OP_MAX};
static struct {
    int kind; /* 0 scan, 1 by key, 2 head flags */
    cupat_type t, kt;
    cupat_op op;
    int excl, inpl, misx, misy;
    size_t n;
    void *hx, *hkeys, *dx, *dy, *dkeys, *gy;
    uint8_t *hflags, *dflags;
} C;

/* a op b on bits (MIN / MAX; integer SUM wraps); floats: IEEE 754-2019
 * minimum / maximum (NaN wins, -0 < +0). */
static uint64_t combine(cupat_type t, cupat_op op, uint64_t a, uint64_t b)
{
    if (op == CUPAT_OP_SUM) return (a + b) & tmask(t);
    if (isnanb(t, a)) return a;
    if (isnanb(t, b)) return b;
    int less = okey(t, a) < okey(t, b);
    return (op == CUPAT_OP_MIN) == less ? a : b;
}
static uint64_t identity(cupat_type t, cupat_op op)
{
    if (op == CUPAT_OP_SUM) return 0;
    int mn = op == CUPAT_OP_MIN;
    if (t == CUPAT_F32) return mn ? 0x7f800000u : 0xff800000u;
    if (t == CUPAT_F64) return mn ? 0x7ff0000000000000ull : 0xfff0000000000000ull;
    uint64_t m = tmask(t);
    if (iss(t)) return mn ? m >> 1 : (m >> 1) + 1;
    return mn ? m : 0;
}

static void scan_prep_kind(int kind)
{
    C.kind = kind;
    cupat_type t = C.t = T6[rn(6)];
    C.op = SOPS[rn(3)];
    C.excl = (int)rn(2);
    C.inpl = rn(3) == 0;
    C.misx = rn(4) == 0;
    C.misy = C.inpl ? C.misx : rn(4) == 0;
    int d = (int)rn(ND), shape = 0;
    size_t ts = tsz(t);
    if (kind == 0) C.n = draw_n(g_cap);
    uint64_t *len = NULL;
    size_t ns = 0;
    if (kind) { /* segments: runs of keys or head flags */
        shape = (int)rn(8);
        ns = draw_segments(shape, g_cap, &len);
        C.n = 0;
        for (size_t s = 0; s < ns; s++) C.n += len[s];
    }
    size_t n = C.n;
    C.hx = hbuf(0, n * ts);
    gen(t, C.hx, n, d, 1);
    C.hkeys = NULL;
    C.hflags = NULL;
    if (kind == 1) {
        C.kt = T6[rn(6)];
        C.hkeys = hbuf(1, n * 8);
        uint64_t pool[8];
        for (int k = 0; k < 8; k++) pool[k] = one(C.kt, rn(2) ? D_SPECIAL : D_RANDOM, 0);
        size_t i = 0;
        for (size_t s = 0; s < ns; s++) {
            uint64_t key = pool[rn(8)];
            for (uint64_t j = 0; j < len[s]; j++) wr(C.kt, C.hkeys, i++, key);
        }
    } else if (kind == 2) {
        C.hflags = hbuf(1, n);
        memset(C.hflags, 0, n);
        size_t i = 0;
        for (size_t s = 0; s < ns; i += len[s], s++)
            if (i < n) C.hflags[i] = (uint8_t)(1 + rn(255));
        if (n && rn(2)) C.hflags[0] = 0; /* element 0 starts a segment anyway */
    }
    free(len);
    C.dx = dslot(0, n, ts, C.misx);
    C.dy = C.inpl ? C.dx : dslot(1, n, ts, C.misy);
    C.gy = hbuf(2, n * ts);
    if (kind == 1) {
        C.dkeys = dslot(2, n, tsz(C.kt), rn(4) == 0);
        put(C.dkeys, C.hkeys, n * tsz(C.kt));
    } else if (kind == 2) {
        C.dflags = dslot(2, n, 1, rn(4) == 0);
        put(C.dflags, C.hflags, n);
    }
    put(C.dx, C.hx, n * ts);
    par("%s %s %s n=%zu %s%s%s%s", cupat_type_name(t), cupat_op_name(C.op), C.excl ? "exclusive" : "inclusive", n,
        dname[d], C.inpl ? " in-place" : "", C.misx ? " x-misaligned" : "", C.misy ? " y-misaligned" : "");
    if (kind) par(" %s segments=%zu (%s)", kind == 1 ? cupat_type_name(C.kt) : "flags", ns, segname[shape]);
}
static void scan_prep(void) { scan_prep_kind(0); }
static void scan_by_key_prep(void) { scan_prep_kind(1); }
static void scan_seg_prep(void) { scan_prep_kind(2); }

static void scan_run(const rung *r)
{
    cupat_type t = C.t;
    size_t n = C.n, ts = tsz(t);
    cupat_scan_mode mode = C.excl ? CUPAT_SCAN_EXCLUSIVE : CUPAT_SCAN_INCLUSIVE;
    if (C.inpl) put(C.dx, C.hx, n * ts);
    else poison(C.dy, n * ts);
    cupat_status s = C.kind == 0   ? cupat_scan(ctx, t, C.op, mode, n, C.dx, C.dy)
                     : C.kind == 1 ? cupat_scan_by_key(ctx, C.kt, t, C.op, mode, n, C.dkeys, C.dx, C.dy)
                                   : cupat_scan_segmented(ctx, t, C.op, mode, n, C.dflags, C.dx, C.dy);
    if (!status_ok(s, r)) return;
    get(C.gy, C.dy, n * ts);
    /* the CUDA default scan's depth (cupat.h, docs/scan.md): at most
     * 24 + 5 + 32 + 4 + the tile's index, a tile >= 512 elements */
    int tight = C.kind == 0 && is_cuda() && (!r->v || r->v->is_default);
    int fsum = isf(t) && C.op == CUPAT_OP_SUM;
    double u = isf(t) ? unit(t) : 0;
    uint64_t ex = 0;
    acc a = {0};
    for (size_t i = 0; i < n; i++) {
        int head = i == 0 || (C.kind == 2 && C.hflags[i]) ||
                   (C.kind == 1 && rd(C.kt, C.hkeys, i) != rd(C.kt, C.hkeys, i - 1));
        if (head) {
            ex = identity(t, C.op);
            memset(&a, 0, sizeof a);
        }
        uint64_t x = rd(t, C.hx, i), g = rd(t, C.gy, i);
        if (!C.excl) {
            if (fsum) acc_add(&a, num(t, x));
            else ex = combine(t, C.op, ex, x);
        }
        int ok;
        if (fsum) {
            long double w = acc_val(&a);
            double dpt = (double)a.terms + 1;
            if (tight) dpt = MIN(dpt, 66.0 + (double)(i / 512));
            ok = near(num(t, g), w, gam(dpt, u) * a.abs + ref_err(&a));
            if (!ok)
                return (void)verdict(0, r, "prefix", i, vstr(t, g),
                                     fmt("%.17Lg (tol %.3g)", w, (double)(gam(dpt, u) * a.abs)));
        } else {
            ok = isnanb(t, ex) ? isnanb(t, g) : g == ex;
            if (!ok) return (void)verdict(0, r, "prefix", i, vstr(t, g), vstr(t, ex));
        }
        if (C.excl) {
            if (fsum) acc_add(&a, num(t, x));
            else ex = combine(t, C.op, ex, x);
        }
    }
    verdict(1, r, "", 0, "", "");
}
static void scan_done(void) {}

/* -------------------------------------------------------------- select -- */

static struct {
    int what, by_pred, host_count, misx, misy;
    cupat_type t;
    size_t n;
    cupat_predicate pred;
    void *hx, *dx, *dy, *gy;
    uint8_t *hflags, *dflags;
    uint64_t *dcount;
} L;
static const char *const lname[] = {"select", "partition", "unique"};
static const char *const pname[] = {"nonzero", "less", "greater", "in_range"};

static int keep(size_t i)
{
    if (L.what == 2) return i == 0 || rd(L.t, L.hx, i) != rd(L.t, L.hx, i - 1);
    if (!L.by_pred) return L.hflags[i] != 0;
    cupat_type t = L.t;
    uint64_t b = rd(t, L.hx, i), pa = 0, pb = 0;
    memcpy(&pa, &L.pred.a, tsz(t));
    memcpy(&pb, &L.pred.b, tsz(t));
    if (isf(t)) {
        long double v = num(t, b), a = num(t, pa), c = num(t, pb);
        switch (L.pred.kind) {
        case CUPAT_PRED_NONZERO: return v != 0;
        case CUPAT_PRED_LESS: return v < a;
        case CUPAT_PRED_GREATER: return v > a;
        default: return a <= v && v < c;
        }
    }
    uint64_t v = okey(t, b), a = okey(t, pa), c = okey(t, pb);
    switch (L.pred.kind) {
    case CUPAT_PRED_NONZERO: return b != 0;
    case CUPAT_PRED_LESS: return v < a;
    case CUPAT_PRED_GREATER: return v > a;
    default: return a <= v && v < c;
    }
}
static void select_prep(void)
{
    L.what = (int)rn(3);
    cupat_type t = L.t = T6[rn(6)];
    size_t n = L.n = draw_n(g_cap), ts = tsz(t);
    int d = (int)rn(ND);
    L.hx = hbuf(0, n * ts);
    gen(t, L.hx, n, d, 1);
    L.by_pred = L.what < 2 && rn(2);
    L.host_count = (int)rn(2);
    L.misx = rn(4) == 0;
    L.misy = rn(4) == 0;
    L.hflags = NULL;
    double dens = (double[]){0, 0.01, 0.5, 0.99, 1}[rn(5)];
    if (L.what < 2 && !L.by_pred) {
        L.hflags = hbuf(1, n);
        for (size_t i = 0; i < n; i++) L.hflags[i] = ru() < dens ? (uint8_t)(1 + rn(255)) : 0;
        L.dflags = dslot(1, n, 1, rn(4) == 0);
        put(L.dflags, L.hflags, n);
    }
    memset(&L.pred, 0, sizeof L.pred);
    if (L.by_pred) {
        L.pred.kind = (cupat_pred_kind)rn(4);
        uint64_t a = n && rn(4) ? rd(t, L.hx, rn(n)) : one(t, D_SPECIAL, 1);
        uint64_t b = n && rn(4) ? rd(t, L.hx, rn(n)) : one(t, D_SPECIAL, 1);
        if (okey(t, a) > okey(t, b) && rn(4)) {
            uint64_t c = a;
            a = b;
            b = c;
        }
        memcpy(&L.pred.a, &a, ts);
        memcpy(&L.pred.b, &b, ts);
    }
    L.dx = dslot(0, n, ts, L.misx);
    L.dy = dslot(2, n, ts, L.misy);
    L.dcount = dslot(3, 1, 8, 0);
    L.gy = hbuf(2, n * ts);
    put(L.dx, L.hx, n * ts);
    par("%s %s n=%zu %s", lname[L.what], cupat_type_name(t), n, dname[d]);
    if (L.what < 2) {
        if (L.by_pred) {
            uint64_t a = 0, b = 0;
            memcpy(&a, &L.pred.a, ts);
            memcpy(&b, &L.pred.b, ts);
            par(" pred=%s a=%s b=%s", pname[L.pred.kind], vstr(t, a), vstr(t, b));
        } else par(" flags density %g", dens);
    }
    par(" count in %s memory%s%s", L.host_count ? "host" : "backend", L.misx ? " x-misaligned" : "",
        L.misy ? " y-misaligned" : "");
}
static void select_run(const rung *r)
{
    cupat_type t = L.t;
    size_t n = L.n, ts = tsz(t);
    uint64_t hc = 0xA5A5A5A5A5A5A5A5ull, *cp = L.host_count ? &hc : L.dcount;
    poison(L.dy, n * ts);
    if (!L.host_count) poison(L.dcount, 8);
    const uint8_t *fl = L.what < 2 && !L.by_pred ? L.dflags : NULL;
    const cupat_predicate *pr = L.by_pred ? &L.pred : NULL;
    cupat_status s = L.what == 0   ? cupat_select(ctx, t, n, L.dx, fl, pr, L.dy, cp)
                     : L.what == 1 ? cupat_partition(ctx, t, n, L.dx, fl, pr, L.dy, cp)
                                   : cupat_unique(ctx, t, n, L.dx, L.dy, cp);
    if (!status_ok(s, r)) return;
    if (!L.host_count) get(&hc, L.dcount, 8);
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) kept += keep(i);
    if (hc != kept) return (void)verdict(0, r, "count", 0, fmt("%llu", (unsigned long long)hc), fmt("%zu", kept));
    size_t m = L.what == 1 ? n : kept;
    get(L.gy, L.dy, m * ts);
    size_t o = 0, o2 = kept;
    for (size_t i = 0; i < n; i++) {
        int k = keep(i);
        if (!k && L.what != 1) continue;
        size_t at = k ? o++ : o2++;
        uint64_t g = rd(t, L.gy, at), w = rd(t, L.hx, i);
        if (g != w) return (void)verdict(0, r, "output", at, vstr(t, g), vstr(t, w));
    }
    verdict(1, r, "", 0, "", "");
}
static void select_done(void) {}

/* ----------------------------------------------------------- histogram -- */

static struct {
    int kind; /* 0 even, 1 range, 2 channels */
    cupat_hist_sample st;
    int ch;
    cupat_type ct;
    unsigned flags;
    size_t n, bins, ss;
    double lower, upper, *bounds;
    void *hx, *dx, *dc, *gc, *pre;
    uint64_t *want;
} H;
static const char *const hsname[] = {"u8", "u16", "i32", "f32"};

static long double hsample(size_t i)
{
    switch (H.st) {
    case CUPAT_HIST_U8: return ((uint8_t *)H.hx)[i];
    case CUPAT_HIST_U16: return ((uint16_t *)H.hx)[i];
    case CUPAT_HIST_I32: return ((int32_t *)H.hx)[i];
    default: return ((float *)H.hx)[i];
    }
}
/* The bin of sample x (cupat.h's rules) or -1. */
static int64_t hbin(long double x)
{
    if (H.kind == 1) {
        if (isnan(x) || x < H.bounds[0] || x >= H.bounds[H.bins]) return -1;
        size_t lo = 0, hi = H.bins; /* bounds[lo] <= x < bounds[hi] */
        while (hi - lo > 1) {
            size_t mid = lo + (hi - lo) / 2;
            if (H.bounds[mid] <= x) lo = mid;
            else hi = mid;
        }
        return (int64_t)lo;
    }
    if (H.st == CUPAT_HIST_F32) {
        float lo = (float)H.lower, hi = (float)H.upper, xf = (float)x;
        float scale = (float)H.bins / (hi - lo);
        if (!(xf >= lo && xf < hi)) return -1;
        float dd = xf - lo;
        float p = dd * scale;
        uint32_t b = (uint32_t)p;
        return b > H.bins - 1 ? (int64_t)H.bins - 1 : (int64_t)b;
    }
    int64_t d = (int64_t)x - (int64_t)H.lower, R = (int64_t)H.upper - (int64_t)H.lower;
    if (d < 0 || d >= R) return -1;
    return (int64_t)((uint64_t)d * H.bins / (uint64_t)R);
}
static void hist_prep_kind(int kind)
{
    H.kind = kind;
    H.st = kind == 2 ? CUPAT_HIST_U8 : (cupat_hist_sample)rn(4);
    H.ch = kind == 2 ? 1 + (int)rn(4) : 1;
    H.ss = H.st == CUPAT_HIST_U8 ? 1 : H.st == CUPAT_HIST_U16 ? 2 : 4;
    H.ct = rn(2) ? CUPAT_U32 : CUPAT_U64;
    H.flags = rn(3) == 0 ? CUPAT_HIST_ACCUMULATE : CUPAT_HIST_OVERWRITE;
    static const size_t bl[] = {1, 2, 3, 7, 16, 64, 255, 256, 257, 1000, 1024, 4096, 65536, (size_t)1 << 20};
    H.bins = bl[rn(rn(4) ? 12 : 14)];
    int isfl = H.st == CUPAT_HIST_F32;
    /* the range [lower, upper) */
    if (isfl) {
        double c = (ru() * 2 - 1) * ldexp(1, (int)rn(21) - 10), w = ldexp(1, (int)rn(21) - 10) * (0.5 + ru());
        H.lower = c - w;
        H.upper = c + w;
        if (!((float)H.lower < (float)H.upper)) H.upper = H.lower + 1;
    } else {
        int64_t span = H.st == CUPAT_HIST_U8 ? 256 : H.st == CUPAT_HIST_U16 ? 65536 : (int64_t)1 << 32;
        int64_t base = H.st == CUPAT_HIST_I32 ? INT32_MIN : 0;
        int64_t R;
        switch (rn(4)) {
        case 0: R = (int64_t)H.bins; break;
        case 1: R = (int64_t)H.bins * (int64_t)(1 + rn(5)); break;
        case 2: R = span; break;
        default: R = 1 + (int64_t)rn((size_t)span); break;
        }
        int64_t lo = base + (int64_t)rn((size_t)span) - (rn(4) == 0 ? (int64_t)rn(50) : 0);
        if (rn(3) == 0) lo = base;
        H.lower = (double)lo;
        H.upper = (double)(lo + R);
    }
    H.bounds = NULL;
    if (kind == 1) { /* bins + 1 non-decreasing, maybe repeated, +-inf, fractional */
        H.bounds = test_xmalloc((H.bins + 1) * sizeof *H.bounds);
        double w = (H.upper - H.lower) / (double)H.bins;
        for (size_t b = 0; b <= H.bins; b++) {
            double v = H.lower + w * (double)b;
            if (!isfl && rn(2)) v = floor(v);
            if (rn(8) == 0) v += w * ru() * 0.5; /* uneven */
            H.bounds[b] = v;
        }
        for (size_t b = 1; b <= H.bins; b++) /* keep them non-decreasing; some repeated */
            if (H.bounds[b] < H.bounds[b - 1] || rn(16) == 0) H.bounds[b] = H.bounds[b - 1];
        if (rn(6) == 0) H.bounds[0] = -INFINITY;
        if (rn(6) == 0) H.bounds[H.bins] = INFINITY;
    }
    size_t n = H.n = draw_n(g_cap), ns = n * (size_t)H.ch;
    H.hx = hbuf(0, ns * H.ss);
    int d = (int)rn(5); /* uniform over the range +- 1/8, skewed, all equal, sorted, on edges / specials */
    double lo = H.lower, hi = H.upper, w = hi - lo;
    double one_v = lo + w * ru();
    for (size_t i = 0; i < ns; i++) {
        double v = d == 2 ? one_v : d == 1 && rn(10) ? lo + w * 0.3 : lo - w / 8 + ru() * w * 1.25;
        if (d == 3) v = lo - w / 8 + w * 1.25 * (double)i / (double)(ns ? ns : 1);
        if (d == 4) v = lo + w * (double)rn(H.bins + 1) / (double)H.bins; /* on a bin edge */
        switch (H.st) {
        case CUPAT_HIST_U8: ((uint8_t *)H.hx)[i] = (uint8_t)(d == 0 && rn(2) ? rn(256) : (size_t)fmin(fmax(v, 0), 255)); break;
        case CUPAT_HIST_U16: ((uint16_t *)H.hx)[i] = (uint16_t)fmin(fmax(v, 0), 65535); break;
        case CUPAT_HIST_I32: ((int32_t *)H.hx)[i] = (int32_t)fmin(fmax(v, INT32_MIN), INT32_MAX); break;
        default: {
            float f = (float)v;
            if (d == 4 && rn(2)) f = nextafterf(f, rn(2) ? INFINITY : -INFINITY); /* or next to one */
            if (d == 4 && rn(4) == 0) f = test_bits_f32((uint32_t)special(CUPAT_F32, 0));
            ((float *)H.hx)[i] = f;
        }
        }
    }
    /* expected counts (accumulate: on top of random ones) */
    size_t nc = H.bins * (size_t)H.ch, cs = tsz(H.ct);
    H.pre = hbuf(1, nc * cs);
    H.want = hbuf(2, nc * 8);
    for (size_t b = 0; b < nc; b++) {
        uint64_t p = H.flags ? rnd() & tmask(H.ct) : 0;
        if (H.flags && rn(2)) p &= 0xff;
        wr(H.ct, H.pre, b, p);
        H.want[b] = p;
    }
    for (size_t i = 0; i < ns; i++) {
        int64_t b = hbin(hsample(i));
        if (b >= 0) H.want[(size_t)b + (i % (size_t)H.ch) * H.bins]++;
    }
    for (size_t b = 0; b < nc; b++) H.want[b] &= tmask(H.ct);
    H.dx = dslot(0, ns, H.ss, rn(4) == 0);
    H.dc = dslot(1, nc, cs, 0);
    H.gc = hbuf(3, nc * cs);
    put(H.dx, H.hx, ns * H.ss);
    par("%s %s n=%zu bins=%zu [%.17g, %.17g) counts %s %s data%d", kind == 0 ? "even" : kind == 1 ? "range" : "channels",
        hsname[H.st], n, H.bins, H.lower, H.upper, cupat_type_name(H.ct), H.flags ? "accumulate" : "overwrite", d);
    if (kind == 2) par(" channels=%d", H.ch);
}
static void hist_even_prep(void) { hist_prep_kind(0); }
static void hist_range_prep(void) { hist_prep_kind(1); }
static void hist_channels_prep(void) { hist_prep_kind(2); }
static void hist_run(const rung *r)
{
    size_t nc = H.bins * (size_t)H.ch, cs = tsz(H.ct);
    if (H.flags) put(H.dc, H.pre, nc * cs);
    else poison(H.dc, nc * cs);
    cupat_status s =
        H.kind == 0 ? cupat_histogram_even(ctx, H.st, H.n, H.dx, H.bins, H.lower, H.upper, H.ct, H.dc, H.flags)
        : H.kind == 1
            ? cupat_histogram_range(ctx, H.st, H.n, H.dx, H.bins, H.bounds, H.ct, H.dc, H.flags)
            : cupat_histogram_channels(ctx, H.ch, H.n, H.dx, H.bins, H.lower, H.upper, H.ct, H.dc, H.flags);
    if (!status_ok(s, r)) return;
    get(H.gc, H.dc, nc * cs);
    for (size_t b = 0; b < nc; b++)
        if (rd(H.ct, H.gc, b) != H.want[b])
            return (void)verdict(0, r, "bin", b, fmt("%llu", (unsigned long long)rd(H.ct, H.gc, b)),
                                 fmt("%llu", (unsigned long long)H.want[b]));
    verdict(1, r, "", 0, "", "");
}
static void hist_done(void)
{
    free(H.bounds);
    H.bounds = NULL;
}

/* -------------------------------------------------------- reduce / dot -- */

static struct {
    int dot, host;
    cupat_type t;
    cupat_op op;
    size_t n;
    void *hx, *hy, *dx, *dy, *dr;
    long double want;
    acc a;
    uint64_t wbits, windex; /* exact ops */
} R;
static void reduce_prep_kind(int dot)
{
    R.dot = dot;
    cupat_type t = R.t = dot ? T6[rn(2)] : T6[rn(6)];
    R.op = dot ? CUPAT_OP_SUM : (cupat_op)rn(5);
    R.host = (int)rn(2);
    size_t n = R.n = draw_n(g_cap), ts = tsz(t);
    int d = (int)rn(ND), d2 = (int)rn(ND);
    if (dot && d == D_SPECIAL && rn(2)) d = D_RANDOM;
    R.hx = hbuf(0, n * ts);
    gen(t, R.hx, n, d, 1);
    R.hy = NULL;
    if (dot) {
        R.hy = hbuf(1, n * ts);
        gen(t, R.hy, n, d2 == D_SPECIAL ? D_RANDOM : d2, 1);
    }
    int mis = rn(4) == 0;
    R.dx = dslot(0, n, ts, mis);
    put(R.dx, R.hx, n * ts);
    if (dot) {
        R.dy = dslot(1, n, ts, rn(2) && mis);
        put(R.dy, R.hy, n * ts);
    }
    R.dr = dslot(2, 1, sizeof(cupat_indexed), 0);
    /* reference */
    memset(&R.a, 0, sizeof R.a);
    if (R.op == CUPAT_OP_SUM && isf(t)) {
        for (size_t i = 0; i < n; i++) {
            if (!dot) acc_add(&R.a, num(t, rd(t, R.hx, i)));
            else if (t == CUPAT_F32) acc_add(&R.a, (long double)((double)num(t, rd(t, R.hx, i)) * (double)num(t, rd(t, R.hy, i))));
            else { /* the product exactly: p + e */
                double x = (double)num(t, rd(t, R.hx, i)), y = (double)num(t, rd(t, R.hy, i)), p = x * y;
                acc_add(&R.a, p);
                if (isfinite(p)) {
                    acc_add(&R.a, fma(x, y, -p));
                    R.a.terms--;
                }
            }
        }
        R.want = acc_val(&R.a);
    } else {
        cupat_op op = R.op == CUPAT_OP_ARGMIN ? CUPAT_OP_MIN : R.op == CUPAT_OP_ARGMAX ? CUPAT_OP_MAX : R.op;
        uint64_t v = identity(t, op);
        R.windex = CUPAT_NO_INDEX;
        for (size_t i = 0; i < n; i++) {
            uint64_t x = rd(t, R.hx, i), nv = combine(t, op, v, x);
            if (R.windex == CUPAT_NO_INDEX || (nv != v && !isnanb(t, v))) R.windex = i;
            v = nv;
        }
        R.wbits = v;
    }
    par("%s %s%s n=%zu %s%s%s result in %s memory", dot ? "dot" : "reduce", cupat_type_name(t),
        dot ? "" : fmt(" %s", cupat_op_name(R.op)), n, dname[d], dot ? fmt("/%s", dname[d2]) : "",
        mis ? " misaligned" : "", R.host ? "host" : "backend");
}
static void reduce_prep(void) { reduce_prep_kind(0); }
static void dot_prep(void) { reduce_prep_kind(1); }
static void reduce_run(const rung *r)
{
    cupat_type t = R.t;
    int arg = R.op == CUPAT_OP_ARGMIN || R.op == CUPAT_OP_ARGMAX;
    cupat_indexed res;
    memset(&res, g_poison, sizeof res);
    void *out = R.host ? (void *)&res : R.dr;
    if (!R.host) poison(R.dr, sizeof res);
    cupat_status s = R.dot ? (R.host ? cupat_dot_host : cupat_dot)(ctx, t, R.n, R.dx, R.dy, out)
                           : (R.host ? cupat_reduce_host : cupat_reduce)(ctx, t, R.op, R.n, R.dx, out);
    if (!status_ok(s, r)) return;
    if (!R.host) get(&res, R.dr, arg ? sizeof res : tsz(t));
    uint64_t g = 0;
    memcpy(&g, &res, tsz(t));
    if (R.op == CUPAT_OP_SUM && isf(t)) {
        double u = unit(t), m = (double)MAX(R.n, (size_t)1);
        int comp = strstr(r->name, "compensated") != NULL;
        /* Sum2 / Dot2 (cupat.h): u |s| + gamma(n)^2 sum|x|; the CUDA default
         * sum: (n / (threads x 16) + 30) u sum|x| <= gamma(n / 16 + 30) sum|x|;
         * else any order: gamma(n) sum|x| */
        if (!R.dot && is_cuda() && (!r->v || r->v->is_default)) m = MIN(m, (double)(R.n / 16) + 30);
        long double tol = comp ? u * fabsl(R.want) + gam(m, u) * gam(m, u) * R.a.abs : gam(m, u) * R.a.abs;
        if (R.dot) tol += m * (t == CUPAT_F32 ? FLT_TRUE_MIN : DBL_TRUE_MIN); /* underflow of products */
        tol += ref_err(&R.a);
        verdict(near(num(t, g), R.want, tol), r, "sum", 0, vstr(t, g), fmt("%.17Lg (tol %.3Lg)", R.want, tol));
        return;
    }
    int ok = isnanb(t, R.wbits) ? isnanb(t, g) : g == R.wbits;
    if (!ok) return (void)verdict(0, r, "value", 0, vstr(t, g), vstr(t, R.wbits));
    if (arg)
        return (void)verdict(res.index == R.windex, r, "index", 0, fmt("%llu", (unsigned long long)res.index),
                             fmt("%llu", (unsigned long long)R.windex));
    verdict(1, r, "", 0, "", "");
}
static void reduce_done(void) {}

/* ---------------------------------------------------------------- spmv -- */

static struct {
    cupat_type it, vt;
    size_t rows, cols, nnz;
    int64_t *rp, *ci;
    double *v;
    int how;
    double alpha, beta;
    cupat_sparse *A;
    void *dx, *dy, *hx, *hy, *gy;
    size_t row_max;
} P;
static const char *const spname[] = {"uniform", "half_empty", "one_huge_row", "power_law", "empty", "dense", "degenerate"};
static const char *const howname[] = {"csr-host", "csr-backend", "csr-borrow", "coo"};

/* Pack host int64 / double arrays into type t in slot s (host) or slot s (backend). */
static void *pack_i(int s, const int64_t *a, size_t n, cupat_type t, int dev)
{
    void *h = hbuf(s, n * 8);
    for (size_t i = 0; i < n; i++) wr(t, h, i, (uint64_t)a[i]);
    if (!dev) return h;
    void *d = dslot(s, n, 8, 0);
    put(d, h, n * tsz(t));
    return d;
}
static void *pack_v(int s, const double *a, size_t n, cupat_type t, int dev)
{
    void *h = hbuf(s, n * 8);
    for (size_t i = 0; i < n; i++) wr(t, h, i, fbits(t, a[i]));
    if (!dev) return h;
    void *d = dslot(s, n, 8, 0);
    put(d, h, n * tsz(t));
    return d;
}
static int ell_too_big(void) /* cupat_sparse_convert's ELL refusal: rows padded to a multiple of 4 */
{
    double slots = (double)((P.rows + 3) & ~(size_t)3) * (double)P.row_max;
    return slots > (double)(1u << 24) && slots > 64.0 * (double)(P.nnz + P.rows);
}
static void spmv_prep(void)
{
    P.it = rn(2) ? CUPAT_I32 : CUPAT_I64;
    cupat_type vt = P.vt = rn(2) ? CUPAT_F32 : CUPAT_F64;
    int shape = (int)rn(7);
    size_t cap = g_cap / 4 + 1; /* nonzeros */
    P.rows = shape == 6 ? rn(2) * draw_n(1000) : shape == 5 ? 1 + rn(200) : draw_n(MIN(cap, is_cuda() ? 1000000 : 20000));
    P.cols = shape == 6 ? (P.rows ? 0 : draw_n(1000)) : shape == 5 ? 1 + rn(200) : rn(2) ? P.rows : 1 + draw_n(cap);
    size_t k = (size_t[]){1, 4, 16, 64}[rn(4)], huge = rn(P.rows ? P.rows : 1);
    P.rp = test_xmalloc((P.rows + 1) * 8);
    P.rp[0] = 0;
    for (size_t r = 0; r < P.rows; r++) {
        size_t l = 0;
        if (P.cols) switch (shape) {
            case 0: l = rn(2 * k + 1); break;
            case 1: l = rn(2) ? 0 : rn(8); break;
            case 2: l = r == huge ? MIN(P.cols + rn(3), cap) : rn(4); break;
            case 3: l = (size_t)fmin((double)k / (ru() + 1e-3), (double)P.cols); break;
            case 5: l = P.cols; break;
            default: l = 0;
            }
        if ((size_t)P.rp[r] + l > cap) l = 0;
        P.rp[r + 1] = P.rp[r] + (int64_t)l;
    }
    size_t nnz = P.nnz = (size_t)P.rp[P.rows];
    P.ci = test_xmalloc(nnz * 8 + 8);
    P.v = test_xmalloc(nnz * 8 + 8);
    int sorted_cols = (int)rn(2);
    for (size_t r = 0; r < P.rows; r++) {
        size_t a = (size_t)P.rp[r], b = (size_t)P.rp[r + 1];
        for (size_t j = a; j < b; j++) {
            P.ci[j] = shape == 5 ? (int64_t)(j - a) : (int64_t)rn(P.cols); /* repeats allowed: they add up */
            P.v[j] = (double)num(vt, fbits(vt, ru() * 2 - 1));
        }
        if (sorted_cols) qsort(P.ci + a, b - a, 8, cmp_u64);
    }
    P.row_max = 0;
    P.how = (int)rn(4);
    static const double ab[] = {1, 0, -1, 0.5, 2.5, -3};
    P.alpha = ab[rn(6)];
    P.beta = ab[rn(6)];
    /* the handle */
    cupat_status s;
    if (P.how < 3) {
        int dev = P.how > 0;
        void *rp = pack_i(0, P.rp, P.rows + 1, P.it, dev), *ci = pack_i(1, P.ci, nnz, P.it, dev);
        void *v = pack_v(2, P.v, nnz, vt, dev);
        s = cupat_sparse_create_csr(ctx, &P.A, P.rows, P.cols, nnz, P.it, vt, rp, ci, v,
                                    P.how == 2 ? CUPAT_SPARSE_BORROW : CUPAT_SPARSE_COPY);
    } else { /* COO triples in a random order */
        int64_t *ri = test_xmalloc(nnz * 8 + 8), *cj = test_xmalloc(nnz * 8 + 8);
        double *vv = test_xmalloc(nnz * 8 + 8);
        for (size_t r = 0; r < P.rows; r++)
            for (int64_t j = P.rp[r]; j < P.rp[r + 1]; j++) ri[j] = (int64_t)r, cj[j] = P.ci[j], vv[j] = P.v[j];
        for (size_t j = nnz; j > 1; j--) {
            size_t q = rn(j);
            int64_t t0 = ri[j - 1], t1 = cj[j - 1];
            double t2 = vv[j - 1];
            ri[j - 1] = ri[q], cj[j - 1] = cj[q], vv[j - 1] = vv[q];
            ri[q] = t0, cj[q] = t1, vv[q] = t2;
        }
        int dev = (int)rn(2);
        s = cupat_sparse_create_coo(ctx, &P.A, P.rows, P.cols, nnz, P.it, vt, pack_i(0, ri, nnz, P.it, dev),
                                    pack_i(1, cj, nnz, P.it, dev), pack_v(2, vv, nnz, vt, dev), CUPAT_SPARSE_COPY);
        free(ri);
        free(cj);
        free(vv);
    }
    CHECK(s == CUPAT_SUCCESS, "diff spmv: create (%s): %s", howname[P.how], cupat_last_error(ctx));
    if (s != CUPAT_SUCCESS) P.A = NULL;
    if (P.A) {
        cupat_sparse_info in;
        CHECK_OK(ctx, cupat_sparse_get_info(ctx, P.A, &in));
        P.row_max = in.row_max;
    }
    size_t ts = tsz(vt);
    P.hx = hbuf(3, P.cols * ts);
    P.hy = hbuf(4, P.rows * ts);
    P.gy = hbuf(5, P.rows * ts);
    for (size_t j = 0; j < P.cols; j++) wr(vt, P.hx, j, fbits(vt, (ru() * 2 - 1) * (rn(8) ? 1 : 1024)));
    for (size_t i = 0; i < P.rows; i++) wr(vt, P.hy, i, fbits(vt, ru() * 2 - 1));
    P.dx = dslot(3, P.cols, ts, rn(4) == 0);
    P.dy = dslot(4, P.rows, ts, rn(4) == 0);
    put(P.dx, P.hx, P.cols * ts);
    int conv = P.A && rn(4) == 0;
    par("%s/%s %zux%zu nnz=%zu %s %s alpha=%g beta=%g%s", cupat_type_name(P.it), cupat_type_name(vt), P.rows, P.cols,
        nnz, spname[shape], howname[P.how], P.alpha, P.beta, conv ? " converted" : "");
    if (conv) /* every format built up front (else on first use by a rung) */
        for (int f = 0; f < CUPAT_SPARSE_FORMATS; f++) {
            cupat_status c = cupat_sparse_convert(ctx, P.A, (cupat_sparse_format)f);
            CHECK(c == CUPAT_SUCCESS || (c == CUPAT_ERROR_SIZE && f == CUPAT_SPARSE_ELL && ell_too_big()),
                  "diff spmv %s: convert to %s: %s", g_par, cupat_sparse_format_name((cupat_sparse_format)f),
                  cupat_last_error(ctx));
        }
}
static void spmv_run(const rung *r)
{
    if (!P.A) return;
    cupat_type vt = P.vt;
    size_t ts = tsz(vt);
    if (P.beta == 0) poison(P.dy, P.rows * ts); /* never read */
    else put(P.dy, P.hy, P.rows * ts);
    cupat_status s = cupat_spmv(ctx, P.A, P.alpha, P.dx, P.beta, P.dy);
    if (s == CUPAT_ERROR_SIZE && r->v && ell_too_big() && (strncmp(r->name, "ell", 3) == 0 || !strcmp(r->name, "hyb"))) {
        refused(r);
        return;
    }
    if (!status_ok(s, r)) return;
    get(P.gy, P.dy, P.rows * ts);
    double u = unit(vt);
    for (size_t i = 0; i < P.rows; i++) {
        long double sum = 0, abs = 0;
        for (int64_t j = P.rp[i]; j < P.rp[i + 1]; j++) {
            long double p = (long double)P.v[j] * num(vt, rd(vt, P.hx, (size_t)P.ci[j]));
            sum += p;
            abs += fabsl(p);
        }
        long double yb = P.beta == 0 ? 0 : P.beta * num(vt, rd(vt, P.hy, i));
        long double w = P.alpha * sum + yb, len = (long double)(P.rp[i + 1] - P.rp[i]);
        /* (len + 2) u (|alpha| sum|a x| + |beta y|) (cupat.h); + 1 u for COO's summed duplicates */
        long double bound = fabsl(P.alpha) * abs + fabsl(yb);
        long double tol = (len + 3) * u * bound + (len + 2) * LDBL_EPSILON * bound;
        uint64_t g = rd(vt, P.gy, i);
        if (!near(num(vt, g), w, tol))
            return (void)verdict(0, r, "y", i, vstr(vt, g), fmt("%.17Lg (tol %.3Lg)", w, tol));
    }
    verdict(1, r, "", 0, "", "");
}
static void spmv_done(void)
{
    if (P.A) CHECK_OK(ctx, cupat_sparse_destroy(ctx, P.A));
    P.A = NULL;
    free(P.rp);
    free(P.ci);
    free(P.v);
    P.rp = P.ci = NULL;
    P.v = NULL;
}

/* ----------------------------------------------------------------- bfs -- */

static struct {
    size_t n, m, ns;
    int64_t *e;
    int undirected, multi, parents;
    int32_t src[8];
    cupat_graph *g;
    uint64_t *rp; /* reference adjacency (both ways when undirected), rows sorted */
    int32_t *adj, *lev;
    int32_t *dl, *dp, *gl, *gp;
} G;
static const char *const gname[] = {"random", "chain", "star", "kronecker", "components", "loops+dups", "grid"};
static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return x < y ? -1 : x > y;
}
static int has_edge(int32_t u, int32_t v)
{
    return bsearch(&v, G.adj + G.rp[u], G.rp[u + 1] - G.rp[u], 4, cmp_i32) != NULL;
}
static void bfs_prep(void)
{
    int shape = (int)rn(7);
    size_t cap = is_cuda() ? MIN(g_cap, (size_t)4000000) : MIN(g_cap, (size_t)20000);
    /* a chain: a level a vertex, and a host wait a level on CUDA */
    size_t n = 1 + draw_n(shape == 1 ? (is_cuda() && !g_large ? 1024 : 4096) : cap / 4), m = 0;
    int64_t *e = NULL;
    if (shape == 3) {
        int scale = 1 + (int)rn(is_cuda() ? 17 : 11), ef = (int)(size_t[]){1, 4, 16}[rn(3)];
        while (scale > 1 && ((size_t)ef << scale) > cap) scale--;
        n = (size_t)1 << scale;
        m = (size_t)ef << scale;
        e = test_xmalloc(2 * m * 8);
        CHECK_OK(ctx, cupat_kronecker_edges(scale, ef, rnd(), e));
    } else {
        size_t deg = (size_t[]){0, 1, 2, 4, 16}[rn(5)], w = (size_t)sqrt((double)n) + 1;
        m = shape == 0 || shape == 5 ? MIN(n * deg + rn(3), cap) : shape == 4 ? MIN(n * 2, cap) : shape == 6 ? 2 * n : n;
        e = test_xmalloc(2 * m * 8 + 16);
        size_t comp = 1 + rn(5), cs = n / comp + 1;
        for (size_t i = 0; i < m; i++) {
            int64_t u, v;
            switch (shape) {
            case 1: u = (int64_t)i, v = (int64_t)((i + 1) % n); break;                 /* a path (and back to 0) */
            case 2: u = 0, v = (int64_t)i; break;                                       /* a star */
            case 4: u = (int64_t)rn(n), v = u / (int64_t)cs * (int64_t)cs + (int64_t)rn(cs); break;
            case 6: u = (int64_t)(i / 2), v = u + (i % 2 ? (int64_t)w : 1); break;     /* a grid */
            default: u = (int64_t)rn(n), v = (int64_t)rn(n);
            }
            if (shape == 5 && rn(3) == 0) v = u;                  /* self-loops */
            if (shape == 5 && i && rn(3) == 0) u = e[2 * i - 2], v = e[2 * i - 1]; /* duplicates */
            if (v >= (int64_t)n) v = (int64_t)n - 1;
            e[2 * i] = u;
            e[2 * i + 1] = v;
        }
        if (shape == 1 && n > 1 && rn(2)) m = n - 1; /* an open path */
    }
    G.n = n;
    G.m = m;
    G.e = e;
    G.undirected = (int)rn(2);
    /* the handle: an edge list of any id type, or a CSR triple */
    int via = (int)rn(5);
    cupat_type idt = TI[rn(4)];
    unsigned fl = G.undirected ? CUPAT_GRAPH_UNDIRECTED : CUPAT_GRAPH_DIRECTED;
    /* reference CSR of the input (both ways when undirected) */
    size_t me = G.undirected ? 2 * m : m;
    G.rp = test_xmalloc((n + 2) * 8);
    memset(G.rp, 0, (n + 2) * 8);
    G.adj = test_xmalloc(me * 4 + 4);
    for (size_t i = 0; i < m; i++) {
        G.rp[e[2 * i] + 2]++;
        if (G.undirected) G.rp[e[2 * i + 1] + 2]++;
    }
    for (size_t v = 0; v < n; v++) G.rp[v + 2] += G.rp[v + 1];
    for (size_t i = 0; i < m; i++) {
        G.adj[G.rp[e[2 * i] + 1]++] = (int32_t)e[2 * i + 1];
        if (G.undirected) G.adj[G.rp[e[2 * i + 1] + 1]++] = (int32_t)e[2 * i];
    }
    for (size_t v = 0; v < n; v++) qsort(G.adj + G.rp[v], G.rp[v + 1] - G.rp[v], 4, cmp_i32);
    cupat_status s;
    if (via < 4) {
        void *h = hbuf(0, 2 * m * 8);
        for (size_t i = 0; i < 2 * m; i++) wr(idt, h, i, (uint64_t)e[i]);
        void *p = h;
        if (via == 3) put(p = dslot(0, 2 * m, 8, 0), h, 2 * m * tsz(idt));
        s = cupat_graph_create_edges(ctx, &G.g, n, m, idt, p, fl);
    } else { /* the directed input as CSR (rows in input order) */
        uint64_t *rp = test_xmalloc((n + 2) * 8);
        int64_t *ci = test_xmalloc(m * 8 + 8);
        memset(rp, 0, (n + 2) * 8);
        for (size_t i = 0; i < m; i++) rp[e[2 * i] + 2]++;
        for (size_t v = 0; v < n; v++) rp[v + 2] += rp[v + 1];
        for (size_t i = 0; i < m; i++) ci[rp[e[2 * i] + 1]++] = e[2 * i + 1];
        void *hr = hbuf(0, (n + 1) * 8), *hc = hbuf(1, m * 8);
        for (size_t v = 0; v <= n; v++) wr(idt, hr, v, rp[v]);
        for (size_t i = 0; i < m; i++) wr(idt, hc, i, (uint64_t)ci[i]);
        s = cupat_graph_create_csr(ctx, &G.g, n, m, idt, hr, hc, fl);
        free(rp);
        free(ci);
    }
    CHECK(s == CUPAT_SUCCESS, "diff bfs: create: %s", cupat_last_error(ctx));
    if (s != CUPAT_SUCCESS) G.g = NULL;
    /* sources and the reference levels (FIFO BFS) */
    G.multi = rn(3) == 0;
    G.ns = G.multi ? 1 + rn(8) : 1;
    for (size_t k = 0; k < G.ns; k++) G.src[k] = (int32_t)(rn(3) == 0 ? (rn(2) ? 0 : n - 1) : rn(n));
    if (G.multi && rn(2)) G.src[G.ns - 1] = G.src[0]; /* a repeat */
    G.parents = rn(4) != 0;
    G.lev = test_xmalloc(n * 4);
    int32_t *q = test_xmalloc(n * 4);
    size_t qh = 0, qt = 0;
    for (size_t v = 0; v < n; v++) G.lev[v] = -1;
    for (size_t k = 0; k < G.ns; k++)
        if (G.lev[G.src[k]] < 0) G.lev[G.src[k]] = 0, q[qt++] = G.src[k];
    while (qh < qt) {
        int32_t u = q[qh++];
        for (uint64_t j = G.rp[u]; j < G.rp[u + 1]; j++)
            if (G.lev[G.adj[j]] < 0) G.lev[G.adj[j]] = G.lev[u] + 1, q[qt++] = G.adj[j];
    }
    free(q);
    G.dl = dslot(1, n, 4, 0);
    G.dp = dslot(2, n, 4, 0);
    G.gl = hbuf(2, n * 4);
    G.gp = hbuf(3, n * 4);
    par("%s n=%zu m=%zu %s %s %s sources=%zu (first %d)%s", gname[shape], n, m, G.undirected ? "undirected" : "directed",
        via < 4 ? "edges" : "csr", cupat_type_name(idt), G.ns, G.src[0], G.parents ? "" : " levels-only");
}
static void bfs_run(const rung *r)
{
    if (!G.g) return;
    size_t n = G.n;
    poison(G.dl, n * 4);
    poison(G.dp, n * 4);
    int32_t *pp = G.parents ? G.dp : NULL;
    cupat_status s = G.multi ? cupat_bfs_multi(ctx, G.g, G.ns, G.src, G.dl, pp) : cupat_bfs(ctx, G.g, G.src[0], G.dl, pp);
    if (!status_ok(s, r)) return;
    get(G.gl, G.dl, n * 4);
    for (size_t v = 0; v < n; v++)
        if (G.gl[v] != G.lev[v]) return (void)verdict(0, r, "level", v, fmt("%d", G.gl[v]), fmt("%d", G.lev[v]));
    if (G.parents) {
        get(G.gp, G.dp, n * 4);
        for (size_t k = 0; k < G.ns; k++)
            if (G.gp[G.src[k]] != G.src[k])
                return (void)verdict(0, r, "parent of a source", (size_t)G.src[k], fmt("%d", G.gp[G.src[k]]), "itself");
        for (size_t v = 0; v < n; v++) {
            int32_t p = G.gp[v], l = G.lev[v];
            if (l == 0) continue;
            int ok = l < 0 ? p == -1 : p >= 0 && (size_t)p < n && G.lev[p] == l - 1 && has_edge(p, (int32_t)v);
            if (!ok) return (void)verdict(0, r, "parent", v, fmt("%d", p), l < 0 ? "-1" : "a vertex one level up with an edge to it");
        }
    }
    verdict(1, r, "", 0, "", "");
}
static void bfs_done(void)
{
    if (G.g) CHECK_OK(ctx, cupat_graph_destroy(ctx, G.g));
    G.g = NULL;
    free(G.e);
    free(G.rp);
    free(G.adj);
    free(G.lev);
    G.e = NULL;
    G.rp = NULL;
    G.adj = G.lev = NULL;
}

/* ============================================================= runner == */

typedef struct family {
    const char *name, *pattern;
    void (*prep)(void), (*run)(const rung *), (*done)(void);
    long cases, runs;
    double secs;
} family;
static family fams[] = {
    {"sort", "sort", sort_prep, sort_run, sort_done, 0, 0, 0},
    {"sort_bits", "sort", sort_bits_prep, sort_run, sort_done, 0, 0, 0},
    {"segsort", "segsort", segsort_prep, sort_run, sort_done, 0, 0, 0},
    {"merge", "merge", merge_prep, merge_run, merge_done, 0, 0, 0},
    {"scan", "scan", scan_prep, scan_run, scan_done, 0, 0, 0},
    {"scan_by_key", "segscan", scan_by_key_prep, scan_run, scan_done, 0, 0, 0},
    {"scan_segmented", "segscan", scan_seg_prep, scan_run, scan_done, 0, 0, 0},
    {"select", "select", select_prep, select_run, select_done, 0, 0, 0},
    {"hist_even", "histogram", hist_even_prep, hist_run, hist_done, 0, 0, 0},
    {"hist_range", "histogram", hist_range_prep, hist_run, hist_done, 0, 0, 0},
    {"hist_channels", "histogram", hist_channels_prep, hist_run, hist_done, 0, 0, 0},
    {"reduce", "reduce", reduce_prep, reduce_run, reduce_done, 0, 0, 0},
    {"dot", "dot", dot_prep, reduce_run, reduce_done, 0, 0, 0},
    {"spmv", "spmv", spmv_prep, spmv_run, spmv_done, 0, 0, 0},
    {"bfs", "bfs", bfs_prep, bfs_run, bfs_done, 0, 0, 0},
};
#define NFAM (sizeof fams / sizeof *fams)

/* The default (nothing pinned), then every rung of this backend.
 * CUPAT_TEST_NO_CDP=1 leaves out the dynamic-parallelism rungs (cdp_*):
 * compute-sanitizer's tools other than memcheck do not support them. */
static size_t rungs_of(const char *pattern, rung *out)
{
    const cupat_variant_info *l;
    size_t n = 0, k = 0;
    const char *e = getenv("CUPAT_TEST_NO_CDP");
    int no_cdp = e && *e && strcmp(e, "0") != 0;
    CHECK_OK(NULL, cupat_variants(pattern, &l, &n));
    out[k++] = (rung){"default", NULL};
    for (size_t i = 0; i < n && k < 64; i++)
        if (l[i].backend == t_backend && !(no_cdp && strncmp(l[i].name, "cdp_", 4) == 0))
            out[k++] = (rung){l[i].name, &l[i]};
    return k;
}

static double now(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void run_case(family *f, long long k)
{
    if (g_verbose) { /* before the case, in case it never ends */
        printf("case %lld %s\n", k, f->name);
        fflush(stdout);
    }
    double t0 = now();
    g_case = k;
    g_fam = f->name;
    g_par[0] = 0;
    t_rng_state = (g_seed + 1) * 0x9E3779B97F4A7C15ull ^ ((uint64_t)k + 1) * 0xD1B54A32D192ED03ull;
    test_rand();
    g_poison = rn(3) ? 0xA5 : 0xFF;
    g_large = is_cuda() && !t_small && rn(LARGE_EVERY) == 0;
    g_cap = t_small ? 5000 : !is_cuda() ? 100000 : g_large ? 10000000 : (size_t)1 << 18;
    if (g_large) par("large: ");
    int fp = t_failures;
    f->prep();
    rung rs[64];
    if (t_failures > fp) verdict(0, &(rung){"(inputs)", NULL}, "building the case failed (FAIL lines above)", 0, "-", "-");
    size_t nr = rungs_of(f->pattern, rs);
    for (size_t i = 0; i < nr && !g_dead; i++) {
        int f0 = t_failures;
        long m0 = g_mismatch;
        CHECK_OK(ctx, cupat_set_variant(ctx, f->pattern, rs[i].v ? rs[i].name : NULL));
        f->run(&rs[i]);
        f->runs++;
        /* a helper's CHECK failed (a copy after a faulting kernel...): name
         * the case; a sticky CUDA error ends the run */
        cupat_status ss = cupat_sync(ctx);
        if (t_failures > f0 && g_mismatch == m0)
            verdict(0, &rs[i], "a call failed (FAIL lines above)", 0, cupat_status_string(ss), "CUPAT_SUCCESS");
        if (ss != CUPAT_SUCCESS) {
            printf("diff: the context is unusable after case %lld (%s): %s; stopping\n", k, cupat_status_string(ss),
                   cupat_last_error(ctx));
            g_dead = 1;
        }
    }
    if (g_dead) return;
    CHECK_OK(ctx, cupat_set_variant(ctx, f->pattern, NULL));
    f->done();
    f->cases++;
    f->secs += now() - t0;
    if (g_verbose) printf("case %lld %s %s: %.3f s\n", k, f->name, g_par, now() - t0);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    /* The CPU rungs' OpenMP workers wait passively, as under CTest: spinning
     * workers took the 2 cores from the references (56 s instead of 8).
     * libgomp reads the variable when it loads, hence the re-exec. */
    if (!getenv("OMP_WAIT_POLICY")) {
        setenv("OMP_WAIT_POLICY", "passive", 1);
        execv("/proc/self/exe", argv); /* on failure: go on spinning */
    }
    long long only_case = -1, ncases = -1;
    int list = 0;
    for (int i = 1; i < argc; i++) {
        if (i + 1 < argc && strcmp(argv[i], "--seed") == 0) g_seed = strtoull(argv[++i], NULL, 0);
        else if (i + 1 < argc && strcmp(argv[i], "--case") == 0) only_case = strtoll(argv[++i], NULL, 0);
        else if (i + 1 < argc && strcmp(argv[i], "--cases") == 0) ncases = strtoll(argv[++i], NULL, 0);
        else if (i + 1 < argc && strcmp(argv[i], "--family") == 0) g_only = argv[++i];
        else if (strcmp(argv[i], "--list") == 0) list = 1;
        else if (strcmp(argv[i], "--verbose") == 0) g_verbose = 1;
    }
    family *only = NULL;
    for (size_t f = 0; f < NFAM; f++)
        if (g_only && strcmp(g_only, fams[f].name) == 0) only = &fams[f];
    if (g_only && !only) {
        fprintf(stderr, "unknown family %s; families:", g_only);
        for (size_t f = 0; f < NFAM; f++) fprintf(stderr, " %s", fams[f].name);
        fputc('\n', stderr);
        return 2;
    }
    ctx = test_init(argc, argv);
    if (list) {
        for (size_t f = 0; f < NFAM; f++) {
            rung rs[64];
            size_t nr = rungs_of(fams[f].pattern, rs);
            printf("%-15s %-10s", fams[f].name, fams[f].pattern);
            for (size_t i = 0; i < nr; i++) printf(" %s", rs[i].name);
            printf("\n");
        }
        return test_finish(ctx);
    }
    /* racecheck (its cost is per launch, and a hazard shows at any size):
     * three cases a family */
    if (ncases < 0) ncases = strcmp(t_sanitizer, "racecheck") == 0 ? 3 * (long long)NFAM : t_small ? 200 : is_cuda() ? 2800 : 2000;
    long long k0 = only_case >= 0 ? only_case : 0, k1 = only_case >= 0 ? only_case : ncases - 1;
    printf("diff: backend %s, seed %llu, cases %lld..%lld%s%s\n", cupat_backend_name(t_backend),
           (unsigned long long)g_seed, k0, k1, g_only ? ", family " : "", g_only ? g_only : "");
    fflush(stdout);
    double t0 = now();
    long long k = k0;
    for (; k <= k1 && !g_dead; k++) run_case(only ? only : &fams[(size_t)k % NFAM], k);
    k1 = k - 1;
    if (!g_dead) pool_release();
    for (size_t f = 0; f < NFAM; f++)
        if (fams[f].cases)
            printf("  %-15s %6ld cases %7ld runs %7.2f s\n", fams[f].name, fams[f].cases, fams[f].runs, fams[f].secs);
    printf("refused by a pinned rung (NOT_SUPPORTED; spmv's ELL rungs: SIZE): %ld runs", g_refused);
    for (int i = 0; i < 64 && g_ref[i].name; i++) printf("%s %s/%s %ld", i ? "," : ":", g_ref[i].pattern, g_ref[i].name, g_ref[i].n);
    printf("\n%.1f s\n", now() - t0);
    int rc = test_finish(ctx);
    printf("diff: %lld cases (seed %llu, cases %lld..%lld), %ld mismatches\n", k1 - k0 + 1, (unsigned long long)g_seed,
           k0, k1, g_mismatch);
    return rc;
}
