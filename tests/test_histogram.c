/* SPDX-License-Identifier: Apache-2.0 */
/* test_histogram.c — every rung of "histogram" on the chosen backend against
 * counts computed here (the bin rules of cupat.h written out again, not the
 * library's CPU path): exact, bin for bin.
 *
 * Sample types u8, u16, i32, f32; bins 1, 2, 255, 256, 257, 4096, 65536,
 * 2^20; uniform, skewed (90% one value), all-equal and sorted inputs; n = 0,
 * 1, odd sizes; misaligned starts; values on bin edges and outside the
 * range; NaN and +-inf; u32 and u64 counts; accumulate and overwrite (outputs
 * poisoned first); boundaries (range) with duplicates and fractional values
 * for integer samples; 1..4 interleaved 8-bit channels; bad arguments.
 * A rung that cannot hold a bin count must refuse it (NOT_SUPPORTED, naming
 * the rung) exactly when cupat__histogram_fits says so.
 * Options: --small (sanitizer sizes), --large (2^32 + 5 u8 samples on the
 * GPU, u64 and u32 counts; not run by default), --rung NAME. */
#include "testutil.h"

#include "../src/histogram/histogram_internal.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>

static cupat_ctx *ctx;
static int large;
static const char *only_rung;

static size_t ssize(cupat_hist_sample s) { return s == CUPAT_HIST_U8 ? 1 : s == CUPAT_HIST_U16 ? 2 : 4; }
static const char *sname(cupat_hist_sample s)
{
    static const char *n[] = {"u8", "u16", "i32", "f32"};
    return n[s];
}

/* ------------------------------------------------------------ the rules -- */

typedef struct rule {
    int range;
    size_t bins;
    double lower, upper;    /* even */
    const double *bounds;   /* range: bins + 1 */
    int channels;
    int chan_api; /* through cupat_histogram_channels (u8) */
} rule;

static double sample_at(cupat_hist_sample s, const void *x, size_t i)
{
    switch (s) {
    case CUPAT_HIST_U8: return ((const uint8_t *)x)[i];
    case CUPAT_HIST_U16: return ((const uint16_t *)x)[i];
    case CUPAT_HIST_I32: return ((const int32_t *)x)[i];
    default: return ((const float *)x)[i];
    }
}

/* cupat.h's rule, independently: integers by exact 128-bit-free arithmetic
 * (d * bins < 2^61), floats by the two f32 roundings, range by comparing as
 * doubles (every sample converts exactly). */
static int64_t want_bin(cupat_hist_sample s, const rule *r, const void *x, size_t i)
{
    double v = sample_at(s, x, i);
    int64_t b = -1;
    if (r->range) {
        if (v >= r->bounds[0] && v < r->bounds[r->bins]) {
            size_t lo = 0, hi = r->bins; /* bounds[lo] <= v < bounds[hi] */
            while (hi - lo > 1) {
                size_t mid = (lo + hi) / 2;
                if (r->bounds[mid] <= v) lo = mid;
                else hi = mid;
            }
            b = (int64_t)lo;
        }
    } else if (s == CUPAT_HIST_F32) {
        float lo = (float)r->lower, hi = (float)r->upper, f = (float)v;
        volatile float w = hi - lo;
        volatile float scale = (float)r->bins / w;
        if (f >= lo && f < hi) {
            volatile float d = f - lo;
            volatile float p = d * scale;
            uint32_t u = (uint32_t)p;
            b = u < r->bins ? (int64_t)u : (int64_t)r->bins - 1;
        }
    } else {
        int64_t d = (int64_t)v - (int64_t)r->lower, R = (int64_t)r->upper - (int64_t)r->lower;
        if (d >= 0 && d < R) b = (int64_t)((uint64_t)d * r->bins / (uint64_t)R);
    }
    if (b >= 0 && r->channels > 1) b += (int64_t)(i % (size_t)r->channels) * (int64_t)r->bins;
    return b;
}

/* ------------------------------------------------------------- inputs -- */

enum { D_UNIFORM, D_SKEWED, D_EQUAL, D_SORTED, D_COUNT };
static const char *dname[D_COUNT] = {"uniform", "skewed", "all-equal", "sorted"};

/* A value a bit beyond the rule's range on both sides, plus, for f32,
 * the interior edges, infinities and NaN now and then. */
static double gen_value(cupat_hist_sample s, const rule *r, uint64_t h)
{
    double lo = r->range ? r->bounds[0] : r->lower, hi = r->range ? r->bounds[r->bins] : r->upper;
    if (isinf(lo)) lo = -1e6;
    if (isinf(hi)) hi = 1e6;
    double w = hi - lo, u = (double)(h >> 11) * 0x1p-53;
    double v = lo - w / 8 + u * (w * 1.25);
    if (s == CUPAT_HIST_F32) {
        unsigned k = (unsigned)(h & 63);
        if (k == 0) return NAN;
        if (k == 1) return INFINITY;
        if (k == 2) return -INFINITY;
        if (k < 12 && !r->range) { /* on an interior edge, as f32 computes it */
            float flo = (float)r->lower, fhi = (float)r->upper;
            size_t e = (size_t)(h >> 20) % (r->bins + 1);
            return (double)(flo + (float)e * ((fhi - flo) / (float)r->bins));
        }
        if (k < 20 && r->range) return r->bounds[(h >> 20) % (r->bins + 1)];
        return (double)(float)v;
    }
    double m = s == CUPAT_HIST_U8 ? 255 : s == CUPAT_HIST_U16 ? 65535 : 2147483647.0;
    double mn = s == CUPAT_HIST_I32 ? -2147483648.0 : 0;
    v = floor(v);
    return v < mn ? mn : v > m ? m : v;
}

static void put_value(cupat_hist_sample s, void *x, size_t i, double v)
{
    switch (s) {
    case CUPAT_HIST_U8: ((uint8_t *)x)[i] = (uint8_t)v; break;
    case CUPAT_HIST_U16: ((uint16_t *)x)[i] = (uint16_t)v; break;
    case CUPAT_HIST_I32: ((int32_t *)x)[i] = (int32_t)v; break;
    default: ((float *)x)[i] = (float)v; break;
    }
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    if (isnan(x)) return isnan(y) ? 0 : 1;
    if (isnan(y)) return -1;
    return x < y ? -1 : x > y;
}

static void fill(cupat_hist_sample s, const rule *r, int dist, void *x, size_t n)
{
    double hot = gen_value(s, r, test_rand() | 64); /* not a special */
    double *tmp = dist == D_SORTED ? test_xmalloc(n * sizeof *tmp) : NULL;
    for (size_t i = 0; i < n; i++) {
        uint64_t h = test_rand();
        double v = dist == D_EQUAL                          ? hot
                   : dist == D_SKEWED && (h >> 32) % 10 != 0 ? hot
                                                            : gen_value(s, r, h);
        if (tmp) tmp[i] = v;
        else put_value(s, x, i, v);
    }
    if (tmp) {
        qsort(tmp, n, sizeof *tmp, cmp_d);
        for (size_t i = 0; i < n; i++) put_value(s, x, i, tmp[i]);
        free(tmp);
    }
}

/* ------------------------------------------------------------ one case -- */

static int rung_index(const cupat_variant_info *v)
{
    const cupat_variant_info *list;
    size_t nv;
    if (cupat_variants("histogram", &list, &nv)) return -1;
    return (int)(v - list);
}

static cupat_status call(cupat_hist_sample s, const rule *r, size_t n, const void *dx,
                         cupat_type ct, void *dc, unsigned flags)
{
    if (r->chan_api)
        return cupat_histogram_channels(ctx, r->channels, n / (size_t)r->channels, dx, r->bins,
                                        r->lower, r->upper, ct, dc, flags);
    if (r->range) return cupat_histogram_range(ctx, s, n, dx, r->bins, r->bounds, ct, dc, flags);
    return cupat_histogram_even(ctx, s, n, dx, r->bins, r->lower, r->upper, ct, dc, flags);
}

/* Run the current rung on host samples hx (n, `off` elements past an aligned
 * start) and compare with the rule: u32 overwrite and u64 accumulate. */
static void run_case(const char *rung, cupat_hist_sample s, const rule *r, const void *hx,
                     size_t n, size_t off, const char *what)
{
    if (!test_keep_case()) return;
    const size_t es = ssize(s), total = r->bins * (size_t)r->channels;
    if (r->channels > 1) n -= n % (size_t)r->channels;
    uint64_t *want = test_xmalloc(total * sizeof *want);
    for (size_t i = 0; i < n; i++) {
        int64_t b = want_bin(s, r, hx, i);
        if (b >= 0) want[b]++;
    }
    char *dbuf = test_dalloc(ctx, (n + off) * es + 16);
    void *dx = dbuf + off * es;
    if (n) CHECK_OK(ctx, cupat_memcpy(ctx, dx, hx, n * es));
    uint64_t *dc = test_dalloc(ctx, total * 8);
    uint64_t *got = test_xmalloc(total * 8);
    for (int pass = 0; pass < 2; pass++) {
        cupat_type ct = pass ? CUPAT_U64 : CUPAT_U32;
        size_t cs = pass ? 8 : 4;
        unsigned flags = pass ? CUPAT_HIST_ACCUMULATE : CUPAT_HIST_OVERWRITE;
        if (pass) { /* accumulate onto b * 7 + 3 */
            for (size_t b = 0; b < total; b++) got[b] = b * 7 + 3;
            CHECK_OK(ctx, cupat_memcpy(ctx, dc, got, total * cs));
        } else {
            test_poison(ctx, dc, total * cs);
        }
        cupat_status st = call(s, r, n, dx, ct, dc, flags);
        if (st == CUPAT_ERROR_NOT_SUPPORTED) {
            char why[200];
            const cupat_variant_info *v;
            CHECK_OK(ctx, cupat_get_variant(ctx, "histogram", &v));
            int fits = cupat__histogram_fits(ctx, rung_index(v), s, r->range,
                                             (unsigned)total, why, sizeof why);
            CHECK(!fits && n > 0, "%s %s: refused (%s) but fits", rung, what, cupat_last_error(ctx));
            CHECK(strstr(cupat_last_error(ctx), rung) != NULL, "%s: message \"%s\" lacks the rung",
                  what, cupat_last_error(ctx));
            break;
        }
        CHECK(st == CUPAT_SUCCESS, "%s %s: %s: %s", rung, what, cupat_status_string(st),
              cupat_last_error(ctx));
        if (st) break;
        memset(got, 0, total * 8);
        test_download(ctx, got, dc, total * cs);
        size_t bad = 0, first = 0;
        for (size_t b = 0; b < total; b++) {
            uint64_t g = pass ? got[b] : ((uint32_t *)got)[b];
            uint64_t w = pass ? want[b] + b * 7 + 3 : (uint32_t)want[b];
            if (g != w && bad++ == 0) first = b;
        }
        CHECK(bad == 0, "%s %s %s %s: %zu of %zu bins wrong, first bin %zu: got %llu, want %llu", rung,
              sname(s), what, pass ? "u64 accumulate" : "u32 overwrite", bad, total, first,
              (unsigned long long)(pass ? got[first] : ((uint32_t *)got)[first]),
              (unsigned long long)(pass ? want[first] + first * 7 + 3 : want[first]));
    }
    CHECK_OK(ctx, cupat_free(ctx, dbuf));
    CHECK_OK(ctx, cupat_free(ctx, dc));
    free(want);
    free(got);
}

/* ------------------------------------------------------------ sweeps -- */

static const size_t all_bins[] = {1, 2, 255, 256, 257, 4096, 65536, (size_t)1 << 20};
#define NBINS (sizeof all_bins / sizeof all_bins[0])

/* An even rule for sample type s with `bins` bins: u8 [0, 256) (the shift
 * rule) or an offset range (division); others a range that fits the type. */
static rule even_rule(cupat_hist_sample s, size_t bins, int variant)
{
    rule r = {0};
    r.bins = bins;
    r.channels = 1;
    switch (s) {
    case CUPAT_HIST_U8: r.lower = variant ? 3 : 0; r.upper = variant ? 250 : 256; break;
    case CUPAT_HIST_U16: r.lower = variant ? 100 : 0; r.upper = variant ? 60001 : 65536; break;
    case CUPAT_HIST_I32:
        r.lower = variant ? -2147483648.0 : -1000003;
        r.upper = variant ? 2147483648.0 : 999999;
        break;
    default: r.lower = variant ? -3.5 : -1; r.upper = variant ? 1000.25 : 1; break;
    }
    /* integer ranges narrower than the bins: still a rule (empty bins) */
    return r;
}

/* bins + 1 sorted boundaries: random points in the even rule's span, a
 * duplicate now and then, fractional for integer samples; -inf / +inf ends
 * in the second variant. */
static double *range_bounds(cupat_hist_sample s, size_t bins, int variant)
{
    rule e = even_rule(s, bins, 0);
    double *b = test_xmalloc((bins + 1) * sizeof *b);
    for (size_t i = 0; i <= bins; i++) {
        double u = (double)(test_rand() >> 11) * 0x1p-53;
        double v = e.lower + u * (e.upper - e.lower);
        if (s == CUPAT_HIST_F32) v = (double)(float)v + (test_rand() & 1 ? 1e-9 : 0);
        else v = floor(v) + (test_rand() % 3 == 0 ? 0.5 : 0);
        b[i] = i && test_rand() % 16 == 0 ? b[i - 1] : v;
    }
    qsort(b, bins + 1, sizeof *b, cmp_d);
    if (variant) {
        b[0] = -INFINITY;
        b[bins] = INFINITY;
    }
    return b;
}

static size_t rungs_here(const cupat_variant_info **list, int *idx)
{
    size_t nv = 0, k = 0;
    CHECK_OK(NULL, cupat_variants("histogram", list, &nv));
    for (size_t i = 0; i < nv; i++)
        if ((*list)[i].backend == t_backend && (!only_rung || !strcmp(only_rung, (*list)[i].name)))
            idx[k++] = (int)i;
    return k;
}

/* One sample type's sweep over every rung (u8's with the channels cases): a
 * part each, so that the sanitizer runs go side by side. */
static void sweep(cupat_hist_sample only)
{
    const cupat_variant_info *list;
    int idx[32];
    size_t nr = rungs_here(&list, idx);
    const int cuda = t_backend == CUPAT_BACKEND_CUDA;
    size_t big = t_small ? 3001 : cuda ? ((size_t)1 << 20) + 13 : 20011;
    size_t mid = t_small ? 3001 : cuda ? 200003 : 20011;
    /* n 0, 1, odd, misaligned (started 0 or 3 elements in), below */
    static const size_t sizes[] = {0, 1, 31, 33, 1023, 4097};
    /* the sample buffer holds the largest case of every loop, also in --small mode */
    size_t cap = big > mid ? big : mid;
    if (cap < sizes[5] + 3) cap = sizes[5] + 3;
    for (size_t k = 0; k < nr; k++) {
        const char *name = list[idx[k]].name;
        CHECK_OK(ctx, cupat_set_variant(ctx, "histogram", name));
        for (int s = 0; s < 4; s++) {
            if (s != (int)only) continue;
            size_t es = ssize((cupat_hist_sample)s);
            void *hx = test_xmalloc(cap * es + 16);
            /* every bin count, uniform, both the even rule's forms and range */
            for (size_t bi = 0; bi < NBINS; bi++) {
                size_t bins = all_bins[bi];
                if (t_small && bins > 4096) continue;
                size_t n = bins > 65536 && !cuda ? 5003 : big;
                for (int variant = 0; variant < 2; variant++) {
                    rule r = even_rule((cupat_hist_sample)s, bins, variant);
                    fill((cupat_hist_sample)s, &r, D_UNIFORM, hx, n);
                    run_case(name, (cupat_hist_sample)s, &r, hx, n, 0,
                             fmt("even %zu bins [%g, %g) uniform n=%zu", bins, r.lower, r.upper, n));
                    double *bd = range_bounds((cupat_hist_sample)s, bins, variant);
                    rule q = {1, bins, 0, 0, bd, 1, 0};
                    fill((cupat_hist_sample)s, &q, D_UNIFORM, hx, n);
                    run_case(name, (cupat_hist_sample)s, &q, hx, n, 0,
                             fmt("range %zu bins%s uniform n=%zu", bins, variant ? " (+-inf ends)" : "", n));
                    free(bd);
                }
            }
            /* distributions and sizes at 256 and 4096 bins: n 0, 1, odd, misaligned */
            for (int d = 0; d < D_COUNT; d++)
                for (size_t bi = 3; bi <= 5; bi += 2) {
                    rule r = even_rule((cupat_hist_sample)s, all_bins[bi], 0);
                    fill((cupat_hist_sample)s, &r, d, hx, mid);
                    run_case(name, (cupat_hist_sample)s, &r, hx, mid, 0,
                             fmt("even %zu bins %s n=%zu", all_bins[bi], dname[d], mid));
                    for (size_t j = 0; j < sizeof sizes / sizeof sizes[0]; j++)
                        for (size_t off = 0; off < 4; off += 3) {
                            fill((cupat_hist_sample)s, &r, d, hx, sizes[j]);
                            run_case(name, (cupat_hist_sample)s, &r, hx, sizes[j], off,
                                     fmt("even %zu bins %s n=%zu start +%zu", all_bins[bi], dname[d],
                                         sizes[j], off));
                        }
                }
            free(hx);
        }
        /* channels: 1..4 interleaved bytes, 256 and 17 bins */
        if (only != CUPAT_HIST_U8) continue;
        uint8_t *img = test_xmalloc(mid + 16);
        for (int c = 1; c <= 4; c++)
            for (int d = 0; d < D_COUNT; d += 2)
                for (size_t bins = 17; bins <= 256; bins += 239) {
                    rule r = even_rule(CUPAT_HIST_U8, bins, bins == 17);
                    r.channels = c;
                    r.chan_api = 1;
                    fill(CUPAT_HIST_U8, &r, d, img, mid);
                    run_case(name, CUPAT_HIST_U8, &r, img, mid - 1, (size_t)c - 1,
                             fmt("channels %d, %zu bins %s", c, bins, dname[d]));
                }
        free(img);
    }
    CHECK_OK(ctx, cupat_set_variant(ctx, "histogram", NULL));
}

/* No rung pinned: the library's own choice (byte_counters for u8, packed16
 * for 65536 bins on the GPU) and its range shortcut: boundaries that are
 * exactly an even grid run as the even rule. Exact grids, the same grid with
 * one key moved by one ulp or one unit (the shortcut must not apply), and
 * random boundaries; boundary values are frequent samples (gen_value). */
static void test_default(void)
{
    if (only_rung) return;
    CHECK_OK(ctx, cupat_set_variant(ctx, "histogram", NULL));
    const size_t n = t_small ? 3001 : t_backend == CUPAT_BACKEND_CUDA ? 200003 : 20011;
    static const size_t bins_list[] = {1, 256, 4096, 65536};
    for (int s = 0; s < 4; s++) {
        void *hx = test_xmalloc(n * 4 + 16);
        for (size_t bi = 0; bi < 4; bi++) {
            size_t bins = bins_list[bi];
            if (t_small && bins > 4096) continue;
            for (int variant = 0; variant < 2; variant++) {
                rule e = even_rule((cupat_hist_sample)s, bins, variant);
                fill((cupat_hist_sample)s, &e, D_UNIFORM, hx, n);
                run_case("default", (cupat_hist_sample)s, &e, hx, n, 0,
                         fmt("even %zu bins [%g, %g)", bins, e.lower, e.upper));
                /* the even grid as boundaries, then one key moved */
                double *bd = test_xmalloc((bins + 1) * sizeof *bd);
                for (int moved = 0; moved < 2; moved++) {
                    for (size_t i = 0; i <= bins; i++)
                        bd[i] = e.lower + (e.upper - e.lower) * (double)i / (double)bins;
                    if (s != CUPAT_HIST_F32)
                        for (size_t i = 0; i <= bins; i++) bd[i] = ceil(bd[i]);
                    if (moved && bins > 1) {
                        size_t k = bins / 2;
                        bd[k] = s == CUPAT_HIST_F32 ? (double)nextafterf((float)bd[k], INFINITY) : bd[k] + 1;
                        if (bd[k] > bd[k + 1]) bd[k] = bd[k + 1];
                    }
                    rule q = {1, bins, 0, 0, bd, 1, 0};
                    fill((cupat_hist_sample)s, &q, D_UNIFORM, hx, n);
                    run_case("default", (cupat_hist_sample)s, &q, hx, n, 0,
                             fmt("range, %s even grid, %zu bins over [%g, %g)", moved ? "a moved key in an" : "an",
                                 bins, e.lower, e.upper));
                }
                free(bd);
            }
        }
        free(hx);
    }
}

/* 2^32 + 5 u8 samples (GPU, --large): all 7 but 1000 of them 200; the u64
 * counts exact, the u32 counts modulo 2^32; chunked launches. */
static void test_large(void)
{
    const size_t n = ((size_t)1 << 32) + 5;
    uint8_t *dx = NULL;
    cupat_status st = cupat_malloc(ctx, (void **)&dx, n);
    if (st) {
        printf("SKIP --large: cannot allocate %zu bytes: %s\n", n, cupat_last_error(ctx));
        return;
    }
    CHECK_OK(ctx, cupat_memset(ctx, dx, 7, n));
    for (int k = 0; k < 1000; k++) {
        size_t i = k == 0 ? n - 1 : k == 1 ? ((size_t)1 << 32) : test_rand() % n;
        CHECK_OK(ctx, cupat_memset(ctx, dx + i, 200, 1)); /* duplicates: counted below */
    }
    uint64_t twohundred = 0;
    uint64_t *dc = test_dalloc(ctx, 256 * 8), h[256];
    const char *rungs[] = {"vec16", "coarse_interleaved", "cluster", "byte_counters", "packed16"};
    for (size_t k = 0; k < 5; k++) {
        CHECK_OK(ctx, cupat_set_variant(ctx, "histogram", rungs[k]));
        CHECK_OK(ctx, cupat_histogram_even(ctx, CUPAT_HIST_U8, n, dx, 256, 0, 256, CUPAT_U64, dc, 0));
        test_download(ctx, h, dc, sizeof h);
        if (k == 0) twohundred = h[200];
        CHECK(h[7] + h[200] == n && h[200] == twohundred && twohundred >= 1 && twohundred <= 1000,
              "--large %s: counts[7] = %llu, counts[200] = %llu, n = %zu", rungs[k],
              (unsigned long long)h[7], (unsigned long long)h[200], n);
        CHECK_OK(ctx, cupat_histogram_even(ctx, CUPAT_HIST_U8, n, dx, 256, 0, 256, CUPAT_U32, dc, 0));
        uint32_t h32[256];
        test_download(ctx, h32, dc, sizeof h32);
        CHECK(h32[7] == (uint32_t)(n - twohundred), "--large %s u32: counts[7] = %u, want %u", rungs[k],
              h32[7], (uint32_t)(n - twohundred));
    }
    CHECK_OK(ctx, cupat_set_variant(ctx, "histogram", NULL));
    CHECK_OK(ctx, cupat_free(ctx, dc));
    CHECK_OK(ctx, cupat_free(ctx, dx));
}

/* ------------------------------------------------------- bad arguments -- */

static void test_bad(void)
{
    const cupat_hist_sample U8 = CUPAT_HIST_U8, F = CUPAT_HIST_F32;
    float *dx = test_dalloc(ctx, 64 * sizeof(float));
    uint32_t *dc = test_dalloc(ctx, 64 * sizeof(uint32_t));
    double bd[5] = {0, 1, 2, 3, 4}, unsorted[5] = {0, 2, 1, 3, 4}, nanb[5] = {0, 1, NAN, 3, 4};
    float hostx[8] = {0};
    const char *E = "cupat_histogram_even", *R = "cupat_histogram_range", *C = "cupat_histogram_channels";
    /* even */
    CHECK_FAILS(NULL, CUPAT_ERROR_NULL_POINTER, fmt("%s: ctx is NULL", E),
                cupat_histogram_even(NULL, F, 4, dx, 4, 0, 1, CUPAT_U32, dc, 0));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "x is NULL",
                cupat_histogram_even(ctx, F, 4, NULL, 4, 0, 1, CUPAT_U32, dc, 0));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "counts is NULL",
                cupat_histogram_even(ctx, F, 4, dx, 4, 0, 1, CUPAT_U32, NULL, 0));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "bins = 0 is outside",
                cupat_histogram_even(ctx, F, 4, dx, 0, 0, 1, CUPAT_U32, dc, 0));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "bins = 1048577 is outside",
                cupat_histogram_even(ctx, F, 4, dx, ((size_t)1 << 20) + 1, 0, 1, CUPAT_U32, dc, 0));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "lower = 1 must be below upper = 1",
                cupat_histogram_even(ctx, F, 4, dx, 4, 1, 1, CUPAT_U32, dc, 0));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "must be below",
                cupat_histogram_even(ctx, U8, 4, dx, 4, 5, 2, CUPAT_U32, dc, 0));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "a bound is NaN",
                cupat_histogram_even(ctx, F, 4, dx, 4, NAN, 1, CUPAT_U32, dc, 0));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "a bound is NaN",
                cupat_histogram_even(ctx, U8, 4, dx, 4, 0, NAN, CUPAT_U32, dc, 0));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "f32 bounds must be finite",
                cupat_histogram_even(ctx, F, 4, dx, 4, -INFINITY, 1, CUPAT_U32, dc, 0));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "overflows f32",
                cupat_histogram_even(ctx, F, 4, dx, 4, -3e38, 3e38, CUPAT_U32, dc, 0));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "integer samples take integer bounds",
                cupat_histogram_even(ctx, U8, 4, dx, 4, 0.5, 10, CUPAT_U32, dc, 0));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "sample = 7 is not a cupat_hist_sample",
                cupat_histogram_even(ctx, (cupat_hist_sample)7, 4, dx, 4, 0, 1, CUPAT_U32, dc, 0));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "count_type = 0: counts are CUPAT_U32 or CUPAT_U64",
                cupat_histogram_even(ctx, F, 4, dx, 4, 0, 1, CUPAT_F32, dc, 0));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "flags = 0x6",
                cupat_histogram_even(ctx, F, 4, dx, 4, 0, 1, CUPAT_U32, dc, 6));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, fmt("counts = %p overlaps x", (void *)(dx + 2)),
                cupat_histogram_even(ctx, F, 8, dx, 4, 0, 1, CUPAT_U32, dx + 2, 0));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "is not aligned to its 4-byte f32 samples",
                cupat_histogram_even(ctx, F, 4, (char *)dx + 1, 4, 0, 1, CUPAT_U32, dc, 0));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "is not aligned to its 8-byte counts",
                cupat_histogram_even(ctx, F, 4, dx, 4, 0, 1, CUPAT_U64, dc + 1, 0));
    CHECK_FAILS(ctx, CUPAT_ERROR_SIZE, "x = ",
                cupat_histogram_even(ctx, F, SIZE_MAX / 2, dx, 4, 0, 1, CUPAT_U32, dc, 0));
    if (t_backend == CUPAT_BACKEND_CUDA) {
        CHECK_FAILS(ctx, CUPAT_ERROR_HOST_POINTER, "x = ",
                    cupat_histogram_even(ctx, F, 8, hostx, 4, 0, 1, CUPAT_U32, dc, 0));
        CHECK_FAILS(ctx, CUPAT_ERROR_HOST_POINTER, "counts = ",
                    cupat_histogram_even(ctx, F, 8, dx, 4, 0, 1, CUPAT_U32, (uint32_t *)hostx, 0));
        CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "boundaries = ",
                    cupat_histogram_range(ctx, F, 4, dx, 4, (const double *)dc, CUPAT_U32, dc + 8, 0));
    }
    /* range */
    CHECK_FAILS(NULL, CUPAT_ERROR_NULL_POINTER, fmt("%s: ctx is NULL", R),
                cupat_histogram_range(NULL, F, 4, dx, 4, bd, CUPAT_U32, dc, 0));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "boundaries is NULL",
                cupat_histogram_range(ctx, F, 4, dx, 4, NULL, CUPAT_U32, dc, 0));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "x is NULL",
                cupat_histogram_range(ctx, F, 4, NULL, 4, bd, CUPAT_U32, dc, 0));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "boundaries are not sorted: boundaries[2] = 1",
                cupat_histogram_range(ctx, F, 4, dx, 4, unsorted, CUPAT_U32, dc, 0));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "boundaries[2] is NaN",
                cupat_histogram_range(ctx, F, 4, dx, 4, nanb, CUPAT_U32, dc, 0));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "bins = 0",
                cupat_histogram_range(ctx, F, 4, dx, 0, bd, CUPAT_U32, dc, 0));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "overlaps x",
                cupat_histogram_range(ctx, F, 8, dx, 4, bd, CUPAT_U32, dx + 1, 0));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "sample = -1",
                cupat_histogram_range(ctx, (cupat_hist_sample)-1, 4, dx, 4, bd, CUPAT_U32, dc, 0));
    /* channels */
    CHECK_FAILS(NULL, CUPAT_ERROR_NULL_POINTER, fmt("%s: ctx is NULL", C),
                cupat_histogram_channels(NULL, 3, 4, (uint8_t *)dx, 4, 0, 256, CUPAT_U32, dc, 0));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "channels = 5 is outside 1 .. 4",
                cupat_histogram_channels(ctx, 5, 4, (uint8_t *)dx, 4, 0, 256, CUPAT_U32, dc, 0));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "channels = 0",
                cupat_histogram_channels(ctx, 0, 4, (uint8_t *)dx, 4, 0, 256, CUPAT_U32, dc, 0));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "x is NULL",
                cupat_histogram_channels(ctx, 3, 4, NULL, 4, 0, 256, CUPAT_U32, dc, 0));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "bins = 2000000",
                cupat_histogram_channels(ctx, 3, 4, (uint8_t *)dx, 2000000, 0, 256, CUPAT_U32, dc, 0));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "must be below",
                cupat_histogram_channels(ctx, 3, 4, (uint8_t *)dx, 4, 256, 0, CUPAT_U32, dc, 0));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "overlaps x",
                cupat_histogram_channels(ctx, 4, 16, (uint8_t *)dx, 4, 0, 256, CUPAT_U32, dx, 0));
    CHECK_FAILS(ctx, CUPAT_ERROR_SIZE, "pixels",
                cupat_histogram_channels(ctx, 4, SIZE_MAX / 2, (uint8_t *)dx, 4, 0, 256, CUPAT_U32, dc, 0));
    /* n == 0 with NULL x is fine; overwrite still clears */
    CHECK_OK(ctx, cupat_histogram_even(ctx, F, 0, NULL, 4, 0, 1, CUPAT_U32, dc, 0));
    uint32_t z[4];
    test_download(ctx, z, dc, sizeof z);
    CHECK(z[0] == 0 && z[3] == 0, "n = 0 overwrite: counts %u .. %u, want 0", z[0], z[3]);
    CHECK_OK(ctx, cupat_free(ctx, dx));
    CHECK_OK(ctx, cupat_free(ctx, dc));
}

/* packed16's overflow paths: both bins of one shared word (0 and 1) past
 * 2^16 counts in every block, alternating so that runs stay short, and one
 * hot odd bin (65535) in long runs; 65536 bins over u16 samples. */
static void test_packed_overflow(void)
{
    if (only_rung && strcmp(only_rung, "packed16")) return;
    const size_t n = t_small ? ((size_t)1 << 21) + 3 : ((size_t)1 << 25) + 3;
    uint16_t *hx = malloc(n * 2);
    uint32_t *want = calloc(65536, 4), *got = malloc(65536 * 4);
    CHECK(hx && want && got, "packed16 overflow: no host memory");
    if (!hx || !want || !got) {
        free(hx), free(want), free(got);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        /* the first half alternates 0/1; the second half mostly 65535 */
        uint16_t v = i < n / 2 ? (uint16_t)(i & 1) : (i % 97 == 0 ? (uint16_t)(i % 65536) : 65535);
        hx[i] = v;
        want[v]++;
    }
    uint16_t *dx = test_upload(ctx, hx, n * 2);
    uint32_t *dc = test_dalloc(ctx, 65536 * 4);
    CHECK_OK(ctx, cupat_set_variant(ctx, "histogram", "packed16"));
    /* one block holds far fewer samples than n: every block overflows */
    CHECK_OK(ctx, cupat_histogram_even(ctx, CUPAT_HIST_U16, n, dx, 65536, 0, 65536, CUPAT_U32, dc, 0));
    test_download(ctx, got, dc, 65536 * 4);
    size_t bad = 0, first = 0;
    for (size_t b = 0; b < 65536; b++)
        if (got[b] != want[b] && !bad++) first = b;
    CHECK(bad == 0, "packed16 overflow: %zu bins wrong, first %zu: got %u, want %u", bad, first, got[first],
          want[first]);
    /* u64 counts, accumulating onto the u32 result's values */
    uint64_t *dc64 = test_dalloc(ctx, 65536 * 8), *g64 = malloc(65536 * 8);
    CHECK_OK(ctx, cupat_histogram_even(ctx, CUPAT_HIST_U16, n, dx, 65536, 0, 65536, CUPAT_U64, dc64, 0));
    CHECK_OK(ctx, cupat_histogram_even(ctx, CUPAT_HIST_U16, n, dx, 65536, 0, 65536, CUPAT_U64, dc64, 1));
    if (g64) {
        test_download(ctx, g64, dc64, 65536 * 8);
        bad = 0;
        for (size_t b = 0; b < 65536; b++)
            if (g64[b] != 2 * (uint64_t)want[b] && !bad++) first = b;
        CHECK(bad == 0, "packed16 overflow u64: %zu bins wrong, first %zu: got %llu, want %llu", bad, first,
              (unsigned long long)g64[first], 2 * (unsigned long long)want[first]);
    }
    CHECK_OK(ctx, cupat_set_variant(ctx, "histogram", NULL));
    CHECK_OK(ctx, cupat_free(ctx, dx));
    CHECK_OK(ctx, cupat_free(ctx, dc));
    CHECK_OK(ctx, cupat_free(ctx, dc64));
    free(hx), free(want), free(got), free(g64);
}

static void sweep_u8(void) { sweep(CUPAT_HIST_U8); }
static void sweep_u16(void) { sweep(CUPAT_HIST_U16); }
static void sweep_i32(void) { sweep(CUPAT_HIST_I32); }
static void sweep_f32(void) { sweep(CUPAT_HIST_F32); }
static void part_overflow(void)
{
    if (t_backend == CUPAT_BACKEND_CUDA) test_packed_overflow();
}
/* --large only */
static void part_large(void)
{
    if (large && t_backend == CUPAT_BACKEND_CUDA) test_large();
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--large")) large = 1;
        else if (!strcmp(argv[i], "--rung") && i + 1 < argc) only_rung = argv[++i];
    }
    ctx = test_init(argc, argv);
    test_seed();
    static const test_part parts[] = {
        {"errors", test_bad},         {"sweep_u8", sweep_u8},   {"sweep_u16", sweep_u16},
        {"sweep_i32", sweep_i32},     {"sweep_f32", sweep_f32}, {"default", test_default},
        {"overflow", part_overflow},  {"large", part_large},
    };
    test_run_parts(argc, argv, parts, sizeof parts / sizeof *parts, NULL);
    return test_finish(ctx);
}
