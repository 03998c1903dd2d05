/* SPDX-License-Identifier: Apache-2.0 */
/* test_sort.c — every rung of "merge", "sort" and "segsort" on the chosen
 * backend against a reference written here: qsort of (key, original index)
 * in the documented order (floats: -NaN first .. -0 < +0 .. +NaN last by
 * the sign-flip total order; descending its exact reverse), ties broken by
 * the index, which makes it the one stable answer. Values carry the original
 * indices (u32 or u64), so a value check is a stability check. Keys must
 * match bit for bit. Outputs are poisoned first.
 *
 * Inputs: random, all equal, sorted, reverse sorted, few distinct values,
 * float specials (+-0, NaNs of both signs and several payloads, +-inf,
 * denormals), integer extremes; n = 0, 1, 2, odd sizes around the tiles,
 * 2^20 + 3 on CUDA; bit ranges; descending; in place; keys in order or
 * reversed (the onesweep's copy path, part "ordered"); merges with ties
 * across the arrays and empty sides; segmented sorts with empty segments and
 * segments of every size class; bad arguments for every function.
 * Options: --small (sanitizer sizes), --rung NAME, --part NAME,
 * --large (CUDA: 2^32 + 7 u32 keys through the default sort; about 50 GB of
 * device memory, not run by default). */
#include "testutil.h"

#include <stdarg.h>
#include <stdint.h>

static cupat_ctx *ctx;
static int large;
static const char *only_rung;

#define NKT 6
static const cupat_type ktypes[NKT] = {CUPAT_U32, CUPAT_I32, CUPAT_F32,
                                       CUPAT_U64, CUPAT_I64, CUPAT_F64};

static int is_cuda(void) { return t_backend == CUPAT_BACKEND_CUDA; }
static int is_float(cupat_type t) { return t == CUPAT_F32 || t == CUPAT_F64; }
static size_t tsz(cupat_type t) { return cupat_type_size(t); }

static void *dalloc(size_t b) { return test_dalloc(ctx, b ? b : 1); }
#define dfree(p) test_dfree(ctx, p)
#define put(d, h, bytes) test_put(ctx, d, h, bytes)
#define get(h, d, bytes) test_get(ctx, h, d, bytes)

/* ------------------------------------------------------------ the order -- */

static uint64_t kbits(cupat_type t, const void *h, size_t i)
{
    if (tsz(t) == 4) {
        uint32_t v;
        memcpy(&v, (const char *)h + 4 * i, 4);
        return v;
    }
    uint64_t v;
    memcpy(&v, (const char *)h + 8 * i, 8);
    return v;
}
static void kset(cupat_type t, void *h, size_t i, uint64_t v)
{
    if (tsz(t) == 4) {
        uint32_t w = (uint32_t)v;
        memcpy((char *)h + 4 * i, &w, 4);
    } else {
        memcpy((char *)h + 8 * i, &v, 8);
    }
}
/* The order key, written independently of the library: unsigned compare. */
static uint64_t ordkey(cupat_type t, uint64_t b)
{
    int bits = (int)(8 * tsz(t));
    uint64_t sign = 1ull << (bits - 1), all = bits == 64 ? ~0ull : (1ull << bits) - 1;
    if (is_float(t)) return (b & sign) ? (~b & all) : (b | sign);
    if (t == CUPAT_I32 || t == CUPAT_I64) return b ^ sign;
    return b;
}

typedef struct rec {
    uint64_t key; /* order key, masked, descending folded in */
    uint64_t idx;
} rec;
static int rec_cmp(const void *x, const void *y)
{
    const rec *a = x, *b = y;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}
/* The stable order of keys[0, n): idx of the i-th output. */
static uint64_t *ref_order(cupat_type t, const void *keys, size_t n, int desc, int lo, int hi)
{
    rec *r = test_xmalloc(n * sizeof *r);
    int bits = (int)(8 * tsz(t));
    uint64_t mask = (hi - lo == 64 ? ~0ull : ((1ull << (hi - lo)) - 1)) << lo;
    uint64_t all = bits == 64 ? ~0ull : (1ull << bits) - 1;
    for (size_t i = 0; i < n; i++) {
        uint64_t k = ordkey(t, kbits(t, keys, i));
        if (desc) k = ~k & all;
        r[i].key = k & mask;
        r[i].idx = i;
    }
    qsort(r, n, sizeof *r, rec_cmp);
    uint64_t *o = test_xmalloc((n ? n : 1) * sizeof *o);
    for (size_t i = 0; i < n; i++) o[i] = r[i].idx;
    free(r);
    return o;
}

/* -------------------------------------------------------------- inputs -- */

enum { G_RANDOM, G_EQUAL, G_SORTED, G_REVERSE, G_FEW, G_SPECIAL, G_EXTREME, NGEN };
static const char *gen_name[NGEN] = {"random", "equal", "sorted", "reverse", "few", "special", "extreme"};

static uint64_t rand_bits(cupat_type t)
{
    uint64_t r = test_rand();
    return tsz(t) == 4 ? (r >> 32) : r;
}
static uint64_t special_bits(cupat_type t, uint64_t r)
{
    if (tsz(t) == 4) {
        static const uint32_t f[] = {0x00000000u, 0x80000000u, 0x7fc00000u, 0xffc00000u, 0x7f800001u,
                                     0xff800001u, 0x7fffffffu, 0xffffffffu, 0x7f800000u, 0xff800000u,
                                     0x00000001u, 0x80000001u, 0x007fffffu, 0x807fffffu, 0x3f800000u,
                                     0xbf800000u};
        static const uint32_t i[] = {0, 1, 0x7fffffffu, 0x80000000u, 0xffffffffu, 0x80000001u, 2, 0xfffffffeu};
        return t == CUPAT_F32 ? f[r % 16] : i[r % 8];
    }
    static const uint64_t f[] = {0, 0x8000000000000000ull, 0x7ff8000000000000ull, 0xfff8000000000000ull,
                                 0x7ff0000000000001ull, 0xfff0000000000001ull, 0x7fffffffffffffffull,
                                 0xffffffffffffffffull, 0x7ff0000000000000ull, 0xfff0000000000000ull, 1,
                                 0x8000000000000001ull, 0x000fffffffffffffull, 0x800fffffffffffffull,
                                 0x3ff0000000000000ull, 0xbff0000000000000ull};
    static const uint64_t i[] = {0, 1, 0x7fffffffffffffffull, 0x8000000000000000ull, ~0ull,
                                 0x8000000000000001ull, 2, ~1ull};
    return t == CUPAT_F64 ? f[r % 16] : i[r % 8];
}
static void gen(cupat_type t, void *h, size_t n, int g)
{
    uint64_t c = rand_bits(t);
    for (size_t i = 0; i < n; i++) {
        uint64_t v;
        switch (g) {
        case G_EQUAL: v = c; break;
        case G_FEW: v = special_bits(t, test_rand() % 4 + 8) ^ (test_rand() % 3); break;
        case G_SPECIAL: v = special_bits(t, test_rand()); break;
        case G_EXTREME: v = special_bits(is_float(t) ? (tsz(t) == 4 ? CUPAT_U32 : CUPAT_U64) : t, test_rand());
            break;
        default: v = rand_bits(t); break;
        }
        kset(t, h, i, v);
    }
    if (g == G_SORTED || g == G_REVERSE) {
        uint64_t *o = ref_order(t, h, n, g == G_REVERSE, 0, (int)(8 * tsz(t)));
        void *c2 = test_xmalloc(n * tsz(t) + 1);
        for (size_t i = 0; i < n; i++) kset(t, c2, i, kbits(t, h, o[i]));
        memcpy(h, c2, n * tsz(t));
        free(c2);
        free(o);
    }
}

/* -------------------------------------------------------------- rungs ---- */

#define rungs_of(pattern, list, idx) test_rungs_of(pattern, only_rung, 0, list, idx)

/* Values 0 .. n-1 as vs-byte words (4 or 8): each key's input index. */
static void *index_values(size_t n, size_t vs)
{
    void *hv = test_xmalloc(n * vs + 1);
    for (size_t i = 0; i < n; i++) {
        if (vs == 4) ((uint32_t *)hv)[i] = (uint32_t)i;
        else ((uint64_t *)hv)[i] = i;
    }
    return hv;
}

/* --------------------------------------------------------------- sort ---- */

/* Sort hk[0, n) with the pinned rung; values = indices; check. */
static int run_sort(const char *tag, cupat_type t, size_t vs, int desc, const void *hk, size_t n, int lo,
                    int hi, int in_place, const char *rung)
{
    if (!test_keep_case()) return 1;
    size_t ks = tsz(t);
    int full = lo == 0 && hi == (int)(8 * ks);
    void *dk = dalloc(n * ks), *dko = in_place ? dk : dalloc(n * ks);
    void *dv = NULL, *dvo = NULL, *hv = NULL;
    put(dk, hk, n * ks);
    if (!in_place) test_poison(ctx, dko, n * ks > 0 ? n * ks : 1);
    if (vs) {
        hv = index_values(n, vs);
        dv = dalloc(n * vs);
        dvo = in_place ? dv : dalloc(n * vs);
        put(dv, hv, n * vs);
        if (!in_place) test_poison(ctx, dvo, n * vs > 0 ? n * vs : 1);
    }
    cupat_sort_order o = desc ? CUPAT_SORT_DESCENDING : CUPAT_SORT_ASCENDING;
    cupat_status s = full ? cupat_sort(ctx, t, vs, o, n, dk, dko, dv, dvo)
                          : cupat_sort_bits(ctx, t, vs, o, n, dk, dko, dv, dvo, lo, hi);
    int ok = 1;
    if (s == CUPAT_ERROR_NOT_SUPPORTED && !full && strcmp(rung, "merge_sort") == 0) {
        ok = 1; /* documented: merge_sort compares whole keys */
    } else {
        CHECK(s == CUPAT_SUCCESS, "%s: %s", tag, cupat_last_error(ctx));
        void *gk = test_xmalloc(n * ks + 1), *gv = vs ? test_xmalloc(n * vs + 1) : NULL;
        get(gk, dko, n * ks);
        if (vs) get(gv, dvo, n * vs);
        uint64_t *ref = ref_order(t, hk, n, desc, lo, hi);
        size_t bad = SIZE_MAX;
        for (size_t i = 0; i < n && bad == SIZE_MAX; i++) {
            if (kbits(t, gk, i) != kbits(t, hk, ref[i])) bad = i;
            if (vs == 4 && ((uint32_t *)gv)[i] != (uint32_t)ref[i]) bad = i;
            if (vs == 8 && ((uint64_t *)gv)[i] != ref[i]) bad = i;
        }
        CHECK(bad == SIZE_MAX, "%s: output %zu: key 0x%llx value %llu, want key 0x%llx (input %llu)", tag, bad,
              bad == SIZE_MAX ? 0ull : (unsigned long long)kbits(t, gk, bad),
              bad == SIZE_MAX || !vs ? 0ull
                                     : (unsigned long long)(vs == 4 ? ((uint32_t *)gv)[bad] : ((uint64_t *)gv)[bad]),
              bad == SIZE_MAX ? 0ull : (unsigned long long)kbits(t, hk, ref[bad]),
              bad == SIZE_MAX ? 0ull : (unsigned long long)ref[bad]);
        ok = bad == SIZE_MAX;
        free(ref);
        free(gk);
        free(gv);
    }
    dfree(dk);
    if (!in_place) dfree(dko);
    if (vs) {
        dfree(dv);
        if (!in_place) dfree(dvo);
    }
    free(hv);
    return ok;
}

static void test_sort(void)
{
    const cupat_variant_info *list;
    int idx[32];
    size_t nr = rungs_of("sort", &list, idx);
    size_t sizes[] = {0, 1, 2, 31, 33, 1000, 4097, 5761, 70001, ((size_t)1 << 20) + 3};
    size_t nsz = sizeof sizes / sizeof *sizes;
    for (size_t ri = 0; ri < nr; ri++) {
        const char *rung = list[idx[ri]].name;
        CHECK_OK(ctx, cupat_set_variant(ctx, "sort", rung));
        int failed = 0;
        for (int ti = 0; ti < NKT && !failed; ti++) {
            cupat_type t = ktypes[ti];
            for (size_t si = 0; si < nsz && !failed; si++) {
                size_t n = sizes[si];
                if (n > 100000 && (!is_cuda() || t_small)) continue;
                if (n > 5000 && t_small) continue;
                for (int g = 0; g < NGEN && !failed; g++) {
                    if (n > 5000 && g != G_RANDOM && g != G_SPECIAL && g != G_FEW) continue;
                    void *hk = test_xmalloc(n * tsz(t) + 1);
                    gen(t, hk, n, g);
                    int k = (int)(ti + si + g);
                    size_t vs = (size_t[]){0, 4, 8}[k % 3];
                    int desc = (k / 3) % 2;
                    int inpl = n > 0 && k % 5 == 0;
                    const char *tag = fmt("sort %s %s %s n=%zu v%zu %s%s", rung, cupat_type_name(t), gen_name[g],
                                          n, vs, desc ? "desc" : "asc", inpl ? " in place" : "");
                    failed |= !run_sort(tag, t, vs, desc, hk, n, 0, (int)(8 * tsz(t)), inpl, rung);
                    free(hk);
                }
            }
        }
        /* bit ranges on integer keys */
        for (int ti = 0; ti < NKT && !failed; ti++) {
            cupat_type t = ktypes[ti];
            if (is_float(t)) continue;
            int bits = (int)(8 * tsz(t));
            int ranges[][2] = {{0, 8}, {4, 20}, {3, bits}, {bits - 1, bits}, {0, bits - 5}};
            size_t n = t_small ? 3000 : 20011;
            for (int q = 0; q < 5 && !failed; q++) {
                void *hk = test_xmalloc(n * tsz(t));
                gen(t, hk, n, q % 2 ? G_FEW : G_RANDOM);
                failed |= !run_sort(fmt("sort_bits %s %s [%d,%d)", rung, cupat_type_name(t), ranges[q][0],
                                        ranges[q][1]),
                                    t, q % 2 ? 4 : 8, q == 2, hk, n, ranges[q][0], ranges[q][1], q == 4, rung);
                free(hk);
            }
        }
    }
    CHECK_OK(ctx, cupat_set_variant(ctx, "sort", NULL));
}

/* -------------------------------------------------------------- merge ---- */

static void test_merge(void)
{
    const cupat_variant_info *list;
    int idx[32];
    size_t nr = rungs_of("merge", &list, idx);
    size_t sz[][2] = {{0, 0}, {0, 5}, {7, 0}, {1, 1}, {33, 1000}, {1000, 33}, {4097, 4099},
                      {50001, 70001}, {9600, 9600} /* whole tiles of 4-byte keys */, {3840, 3840},
                      {(1u << 20) + 1, (1u << 19) + 7}};
    for (size_t ri = 0; ri < nr; ri++) {
        const char *rung = list[idx[ri]].name;
        CHECK_OK(ctx, cupat_set_variant(ctx, "merge", rung));
        int failed = 0;
        for (int ti = 0; ti < NKT && !failed; ti++) {
            cupat_type t = ktypes[ti];
            size_t ks = tsz(t);
            for (size_t si = 0; si < sizeof sz / sizeof *sz && !failed; si++) {
                size_t na = sz[si][0], nb = sz[si][1], n = na + nb;
                if (n > 200000 && (!is_cuda() || t_small)) continue;
                if (n > 10000 && t_small) continue;
                int g = (int)((ti + si) % 4 == 0 ? G_FEW : (ti + si) % 4 == 1 ? G_SPECIAL : G_RANDOM);
                int desc = (int)((ti + si) % 2);
                size_t vs = (size_t[]){0, 4, 8}[(ti + si) % 3];
                /* a and b each sorted; the concatenation's stable sort is the merge */
                void *h = test_xmalloc(n * ks + 1), *sa = test_xmalloc(na * ks + 1), *sb = test_xmalloc(nb * ks + 1);
                gen(t, h, n, g);
                uint64_t *oa = ref_order(t, h, na, desc, 0, (int)(8 * ks));
                uint64_t *ob = ref_order(t, (char *)h + na * ks, nb, desc, 0, (int)(8 * ks));
                for (size_t i = 0; i < na; i++) kset(t, sa, i, kbits(t, h, oa[i]));
                for (size_t i = 0; i < nb; i++) kset(t, sb, i, kbits(t, h, na + ob[i]));
                memcpy(h, sa, na * ks);
                memcpy((char *)h + na * ks, sb, nb * ks);
                uint64_t *ref = ref_order(t, h, n, desc, 0, (int)(8 * ks));
                void *da = dalloc(na * ks), *db = dalloc(nb * ks), *dout = dalloc(n * ks);
                void *dav = NULL, *dbv = NULL, *dov = NULL;
                put(da, sa, na * ks);
                put(db, sb, nb * ks);
                test_poison(ctx, dout, n * ks > 0 ? n * ks : 1);
                if (vs) {
                    void *hv = index_values(n, vs);
                    dav = dalloc(na * vs);
                    dbv = dalloc(nb * vs);
                    dov = dalloc(n * vs);
                    put(dav, hv, na * vs);
                    put(dbv, (char *)hv + na * vs, nb * vs);
                    test_poison(ctx, dov, n * vs > 0 ? n * vs : 1);
                    free(hv);
                }
                const char *tag = fmt("merge %s %s na=%zu nb=%zu v%zu %s", rung, cupat_type_name(t), na, nb, vs,
                                      desc ? "desc" : "asc");
                cupat_status s = cupat_merge(ctx, t, vs, desc ? CUPAT_SORT_DESCENDING : CUPAT_SORT_ASCENDING, na,
                                             na ? da : NULL, na && vs ? dav : NULL, nb, nb ? db : NULL,
                                             nb && vs ? dbv : NULL, dout, vs ? dov : NULL);
                CHECK(s == CUPAT_SUCCESS, "%s: %s", tag, cupat_last_error(ctx));
                void *gk = test_xmalloc(n * ks + 1), *gv = test_xmalloc(n * (vs ? vs : 1) + 1);
                get(gk, dout, n * ks);
                if (vs) get(gv, dov, n * vs);
                size_t bad = SIZE_MAX;
                for (size_t i = 0; i < n && bad == SIZE_MAX; i++) {
                    if (kbits(t, gk, i) != kbits(t, h, ref[i])) bad = i;
                    if (vs == 4 && ((uint32_t *)gv)[i] != (uint32_t)ref[i]) bad = i;
                    if (vs == 8 && ((uint64_t *)gv)[i] != ref[i]) bad = i;
                }
                CHECK(bad == SIZE_MAX, "%s: output %zu wrong (key 0x%llx, want 0x%llx)", tag, bad,
                      bad == SIZE_MAX ? 0ull : (unsigned long long)kbits(t, gk, bad),
                      bad == SIZE_MAX ? 0ull : (unsigned long long)kbits(t, h, ref[bad]));
                failed |= bad != SIZE_MAX || s != CUPAT_SUCCESS;
                dfree(da);
                dfree(db);
                dfree(dout);
                if (vs) {
                    dfree(dav);
                    dfree(dbv);
                    dfree(dov);
                }
                free(h);
                free(sa);
                free(sb);
                free(oa);
                free(ob);
                free(ref);
                free(gk);
                free(gv);
            }
        }
    }
    CHECK_OK(ctx, cupat_set_variant(ctx, "merge", NULL));
}

/* ----------------------------------------------------------- segmented --- */

/* Sort hk's nseg segments (offsets off) with the pinned segsort rung; values
 * = indices; check every segment against the reference. */
static int run_segmented(const char *tag, cupat_type t, size_t vs, int desc, int inpl, const uint64_t *off,
                         size_t nseg, const void *hk)
{
    size_t ks = tsz(t), n = off[nseg];
    void *dk = dalloc(n * ks), *dko = inpl ? dk : dalloc(n * ks), *doff = dalloc((nseg + 1) * 8);
    void *dv = NULL, *dvo = NULL;
    put(dk, hk, n * ks);
    put(doff, off, (nseg + 1) * 8);
    if (!inpl) test_poison(ctx, dko, n * ks > 0 ? n * ks : 1);
    if (vs) {
        void *hv = index_values(n, vs);
        dv = dalloc(n * vs);
        dvo = inpl ? dv : dalloc(n * vs);
        put(dv, hv, n * vs);
        if (!inpl) test_poison(ctx, dvo, n * vs > 0 ? n * vs : 1);
        free(hv);
    }
    CHECK_OK(ctx, cupat_sort_segmented(ctx, t, vs, desc ? CUPAT_SORT_DESCENDING : CUPAT_SORT_ASCENDING, n, nseg,
                                       doff, dk, dko, dv, dvo));
    void *gk = test_xmalloc(n * ks + 1), *gv = test_xmalloc(n * (vs ? vs : 1) + 1);
    get(gk, dko, n * ks);
    if (vs) get(gv, dvo, n * vs);
    size_t bad = SIZE_MAX, wrong = 0;
    for (size_t s = 0; s < nseg; s++) {
        size_t b = off[s], len = off[s + 1] - b;
        uint64_t *ref = ref_order(t, (const char *)hk + b * ks, len, desc, 0, (int)(8 * ks));
        for (size_t i = 0; i < len; i++) {
            int ok = kbits(t, gk, b + i) == kbits(t, hk, b + ref[i]);
            if (vs == 4) ok &= ((uint32_t *)gv)[b + i] == (uint32_t)(b + ref[i]);
            if (vs == 8) ok &= ((uint64_t *)gv)[b + i] == b + ref[i];
            if (!ok && bad == SIZE_MAX) bad = b + i;
            wrong += !ok;
        }
        free(ref);
    }
    CHECK(bad == SIZE_MAX, "%s: %zu outputs wrong, the first at %zu (key 0x%llx)", tag, wrong, bad,
          bad == SIZE_MAX ? 0ull : (unsigned long long)kbits(t, gk, bad));
    dfree(dk);
    if (!inpl) dfree(dko);
    dfree(doff);
    if (vs) {
        dfree(dv);
        if (!inpl) dfree(dvo);
    }
    free(gk);
    free(gv);
    return bad == SIZE_MAX;
}

static void test_segmented(void)
{
    const cupat_variant_info *list;
    int idx[32];
    size_t nr = rungs_of("segsort", &list, idx);
    for (size_t ri = 0; ri < nr; ri++) {
        CHECK_OK(ctx, cupat_set_variant(ctx, "segsort", list[idx[ri]].name));
        for (int ti = 0; ti < NKT; ti++) {
            cupat_type t = ktypes[ti];
            size_t ks = tsz(t), nseg = t_small ? 40 : 400;
            size_t vs = (size_t[]){0, 4, 8}[ti % 3];
            int desc = ti % 2, inpl = ti == 2;
            uint64_t *off = test_xmalloc((nseg + 1) * 8);
            off[0] = 0;
            for (size_t s = 0; s < nseg; s++) {
                uint64_t r = test_rand() % 16, len;
                if (r < 3) len = 0;
                else if (r < 8) len = test_rand() % 300;
                else if (r < 12) len = test_rand() % 1100;
                else if (r < 15) len = test_rand() % 4200;
                else len = 4097 + test_rand() % (t_small ? 2000 : 9000);
                if (s == 5) len = 4096;
                if (s == 6) len = 4097;
                off[s + 1] = off[s] + len;
            }
            size_t n = off[nseg];
            void *hk = test_xmalloc(n * ks + 1);
            gen(t, hk, n, ti % 2 ? G_FEW : G_SPECIAL);
            run_segmented(fmt("segsort %s %s n=%zu v%zu %s", list[idx[ri]].name, cupat_type_name(t), n, vs,
                              desc ? "desc" : "asc"),
                          t, vs, desc, inpl, off, nseg, hk);
            free(off);
            free(hk);
        }
    }
    CHECK_OK(ctx, cupat_set_variant(ctx, "segsort", NULL));
}

/* ------------------------------------------------------ bad arguments ---- */

static void test_errors(void)
{
    const cupat_type U = CUPAT_U32;
    const cupat_sort_order A = CUPAT_SORT_ASCENDING;
    char *dk = dalloc(256), *dv = dalloc(256), *dout = dalloc(256), *dvo = dalloc(256);
    uint64_t hoff[3] = {0, 2, 4};
    uint64_t *doff = dalloc(64);
    put(doff, hoff, sizeof hoff);
    static uint32_t hbuf[64];
    /* merge */
    CHECK_FAILS(NULL, CUPAT_ERROR_NULL_POINTER, "cupat_merge: ctx is NULL",
                cupat_merge(NULL, U, 0, A, 4, dk, NULL, 4, dk + 16, NULL, dout, NULL));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "a_keys is NULL",
                cupat_merge(ctx, U, 0, A, 4, NULL, NULL, 4, dk, NULL, dout, NULL));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "keys_out is NULL",
                cupat_merge(ctx, U, 0, A, 4, dk, NULL, 4, dk + 16, NULL, NULL, NULL));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "key_type = 42",
                cupat_merge(ctx, (cupat_type)42, 0, A, 4, dk, NULL, 4, dk, NULL, dout, NULL));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "order = 7",
                cupat_merge(ctx, U, 0, (cupat_sort_order)7, 4, dk, NULL, 4, dk, NULL, dout, NULL));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "value_size = 2",
                cupat_merge(ctx, U, 2, A, 4, dk, dv, 4, dk, dv, dout, dvo));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "a_values = ",
                cupat_merge(ctx, U, 0, A, 4, dk, dv, 4, dk, NULL, dout, NULL));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "b_values is NULL",
                cupat_merge(ctx, U, 4, A, 4, dk, dv, 4, dk, NULL, dout, dvo));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, fmt("keys_out = %p overlaps a_keys", (void *)(dk + 8)),
                cupat_merge(ctx, U, 0, A, 4, dk, NULL, 4, dk + 64, NULL, dk + 8, NULL));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, fmt("values_out = %p overlaps keys_out", (void *)(dout + 4)),
                cupat_merge(ctx, U, 4, A, 4, dk, dv, 4, dk + 16, dv + 16, dout, dout + 4));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "is not aligned",
                cupat_merge(ctx, U, 0, A, 4, dk + 1, NULL, 4, dk + 16, NULL, dout, NULL));
    CHECK_FAILS(ctx, CUPAT_ERROR_SIZE, "overflows",
                cupat_merge(ctx, U, 0, A, SIZE_MAX, dk, NULL, 4, dk, NULL, dout, NULL));
    /* sort */
    CHECK_FAILS(NULL, CUPAT_ERROR_NULL_POINTER, "cupat_sort: ctx is NULL",
                cupat_sort(NULL, U, 0, A, 4, dk, dout, NULL, NULL));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "keys_in is NULL", cupat_sort(ctx, U, 0, A, 4, NULL, dout, NULL, NULL));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "keys_out is NULL", cupat_sort(ctx, U, 0, A, 4, dk, NULL, NULL, NULL));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "values_in is NULL", cupat_sort(ctx, U, 4, A, 4, dk, dout, NULL, dvo));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "key_type = -1",
                cupat_sort(ctx, (cupat_type)-1, 0, A, 4, dk, dout, NULL, NULL));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "order = 2",
                cupat_sort(ctx, U, 0, (cupat_sort_order)2, 4, dk, dout, NULL, NULL));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "value_size = 16",
                cupat_sort(ctx, U, 16, A, 4, dk, dout, dv, dvo));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "values_out = ",
                cupat_sort(ctx, U, 0, A, 4, dk, dout, NULL, dvo));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, fmt("keys_out = %p overlaps keys_in", (void *)(dk + 4)),
                cupat_sort(ctx, U, 0, A, 4, dk, dk + 4, NULL, NULL));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, fmt("values_out = %p overlaps keys_out", (void *)dout),
                cupat_sort(ctx, U, 4, A, 4, dk, dout, dv, dout));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, fmt("keys_out = %p overlaps values_in", (void *)dv),
                cupat_sort(ctx, U, 4, A, 4, dk, dv, dv, dvo));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "is not aligned",
                cupat_sort(ctx, CUPAT_U64, 0, A, 4, dk + 4, dout, NULL, NULL));
    CHECK_FAILS(ctx, CUPAT_ERROR_SIZE, "keys_in", cupat_sort(ctx, U, 0, A, SIZE_MAX / 2, dk, dout, NULL, NULL));
    /* in place is allowed */
    CHECK_OK(ctx, cupat_sort(ctx, U, 4, A, 16, dk, dk, dv, dv));
    /* sort_bits */
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "bit range [0, 33)",
                cupat_sort_bits(ctx, U, 0, A, 4, dk, dout, NULL, NULL, 0, 33));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "bit range [8, 8)",
                cupat_sort_bits(ctx, U, 0, A, 4, dk, dout, NULL, NULL, 8, 8));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "bit range [-1, 8)",
                cupat_sort_bits(ctx, CUPAT_I64, 0, A, 4, dk, dout, NULL, NULL, -1, 8));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "key_type = f32: bit ranges are for integer keys",
                cupat_sort_bits(ctx, CUPAT_F32, 0, A, 4, dk, dout, NULL, NULL, 0, 16));
    CHECK_FAILS(NULL, CUPAT_ERROR_NULL_POINTER, "cupat_sort_bits: ctx is NULL",
                cupat_sort_bits(NULL, U, 0, A, 4, dk, dout, NULL, NULL, 0, 16));
    /* segmented */
    CHECK_FAILS(NULL, CUPAT_ERROR_NULL_POINTER, "cupat_sort_segmented: ctx is NULL",
                cupat_sort_segmented(NULL, U, 0, A, 4, 2, doff, dk, dout, NULL, NULL));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "offsets is NULL",
                cupat_sort_segmented(ctx, U, 0, A, 4, 2, NULL, dk, dout, NULL, NULL));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "offsets[num_segments = 2] = 4, not n = 5",
                cupat_sort_segmented(ctx, U, 0, A, 5, 2, doff, dk, dout, NULL, NULL));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, fmt("keys_out = %p overlaps offsets", (void *)doff),
                cupat_sort_segmented(ctx, U, 0, A, 4, 2, doff, dk, doff, NULL, NULL));
    uint64_t bad1[3] = {0, 3, 2}, bad2[3] = {1, 2, 4};
    put(doff, bad1, sizeof bad1);
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "offsets decrease at segment 1: offsets[1] = 3 > offsets[2] = 2",
                cupat_sort_segmented(ctx, U, 0, A, 2, 2, doff, dk, dout, NULL, NULL));
    put(doff, bad2, sizeof bad2);
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "offsets[0] = 1",
                cupat_sort_segmented(ctx, U, 0, A, 4, 2, doff, dk, dout, NULL, NULL));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "key_type = 9",
                cupat_sort_segmented(ctx, (cupat_type)9, 0, A, 4, 2, doff, dk, dout, NULL, NULL));
    if (is_cuda()) {
        CHECK_FAILS(ctx, CUPAT_ERROR_HOST_POINTER, fmt("keys_in = %p is", (void *)hbuf),
                    cupat_sort(ctx, U, 0, A, 16, hbuf, dout, NULL, NULL));
        CHECK_FAILS(ctx, CUPAT_ERROR_HOST_POINTER, fmt("values_out = %p is", (void *)hbuf),
                    cupat_sort(ctx, U, 4, A, 16, dk, dout, dv, hbuf));
        CHECK_FAILS(ctx, CUPAT_ERROR_HOST_POINTER, fmt("b_keys = %p is", (void *)hbuf),
                    cupat_merge(ctx, U, 0, A, 4, dk, NULL, 4, hbuf, NULL, dout, NULL));
        CHECK_FAILS(ctx, CUPAT_ERROR_HOST_POINTER, fmt("offsets = %p is", (void *)hoff),
                    cupat_sort_segmented(ctx, U, 0, A, 4, 2, hoff, dk, dout, NULL, NULL));
        CHECK_FAILS(ctx, CUPAT_ERROR_NOT_SUPPORTED, "cpu backend", cupat_set_variant(ctx, "sort", "serial"));
    } else {
        CHECK_FAILS(ctx, CUPAT_ERROR_NOT_SUPPORTED, "cuda backend", cupat_set_variant(ctx, "sort", "onesweep"));
        CHECK_FAILS(ctx, CUPAT_ERROR_NOT_SUPPORTED, "cuda backend", cupat_set_variant(ctx, "merge", "circular"));
    }
    CHECK_FAILS(ctx, CUPAT_ERROR_NOT_FOUND, "nope", cupat_set_variant(ctx, "segsort", "nope"));
    /* the sequential merge refuses what one thread would take minutes for */
    if (is_cuda()) {
        size_t big = (size_t)1 << 22;
        char *da = dalloc(big * 4 + 4), *dbig = dalloc(big * 4 + 4);
        CHECK_OK(ctx, cupat_set_variant(ctx, "merge", "sequential"));
        CHECK_FAILS(ctx, CUPAT_ERROR_NOT_SUPPORTED, "at most",
                    cupat_merge(ctx, U, 0, A, big, da, NULL, 1, da, NULL, dbig, NULL));
        CHECK_OK(ctx, cupat_set_variant(ctx, "merge", NULL));
        dfree(da);
        dfree(dbig);
    }
    /* a failed call leaves the context usable */
    CHECK_OK(ctx, cupat_sort(ctx, U, 0, A, 16, dk, dout, NULL, NULL));
    CHECK_OK(ctx, cupat_sync(ctx));
    dfree(dk);
    dfree(dv);
    dfree(dout);
    dfree(dvo);
    dfree(doff);
}

static void test_ladders(void)
{
    const char *pats[3] = {"merge", "sort", "segsort"};
    for (int p = 0; p < 3; p++) {
        const cupat_variant_info *list;
        size_t n = 0;
        CHECK_OK(NULL, cupat_variants(pats[p], &list, &n));
        int defaults[3] = {0, 0, 0};
        for (size_t i = 0; i < n; i++)
            if (list[i].is_default) defaults[list[i].backend]++;
        CHECK(defaults[CUPAT_BACKEND_CPU] == 1 && defaults[CUPAT_BACKEND_CUDA] == 1, "%s: %d CPU and %d CUDA defaults",
              pats[p], defaults[CUPAT_BACKEND_CPU], defaults[CUPAT_BACKEND_CUDA]);
    }
}

/* The onesweep's portions (launches of fewer than 2^30 keys each, so that n
 * can pass 2^32), made a few tiles long so that small inputs cross several:
 * every pass after the first must find each portion's digit bases from the
 * keys that pass reads (sort_internal.h). */
extern size_t cupat__sort_portion_tiles;
static void test_portions(void)
{
    if (!is_cuda()) return;
    CHECK_OK(ctx, cupat_set_variant(ctx, "sort", "onesweep"));
    const cupat_type types[] = {CUPAT_U32, CUPAT_I64, CUPAT_F32, CUPAT_F64};
    const size_t sizes[] = {50001, 200003};
    const size_t tiles[] = {1, 3};
    int failed = 0;
    for (int pi = 0; pi < 2 && !failed; pi++) {
        cupat__sort_portion_tiles = tiles[pi];
        for (int ti = 0; ti < 4 && !failed; ti++)
            for (int si = 0; si < 2 && !failed; si++) {
                const cupat_type t = types[ti];
                const size_t n = sizes[si];
                const int g = (ti + si) % 2 ? G_FEW : G_RANDOM, k = pi + ti + si;
                const size_t vs = (size_t[]){0, 4, 8}[k % 3];
                void *hk = test_xmalloc(n * tsz(t));
                gen(t, hk, n, g);
                failed |= !run_sort(fmt("portions of %zu tiles: %s %s n=%zu v%zu", tiles[pi], cupat_type_name(t),
                                        gen_name[g], n, vs),
                                    t, vs, k % 2, hk, n, 0, (int)(8 * tsz(t)), 0, "onesweep");
                free(hk);
            }
    }
    cupat__sort_portion_tiles = 0;
    CHECK_OK(ctx, cupat_set_variant(ctx, "sort", NULL));
}

/* Keys already in order, or in strictly reverse order, take the onesweep's
 * copy path (sort_onesweep.cu, OsOrdered); keys one swap or one tie away
 * must not. Shapes: both pass parities (full width, 2 or 3 digit passes by
 * bit ranges), in place and not, values of each width, portions of a few
 * tiles (the reversal's global offsets, the order test across a portion
 * boundary), and input in order by its sort bits only (stability). */
static void reorder(cupat_type t, void *h, size_t n, int desc, int lo, int hi)
{
    uint64_t *o = ref_order(t, h, n, desc, lo, hi);
    void *c = test_xmalloc(n * tsz(t) + 1);
    for (size_t i = 0; i < n; i++) kset(t, c, i, kbits(t, h, o[i]));
    memcpy(h, c, n * tsz(t));
    free(c);
    free(o);
}
static void test_ordered(void)
{
    if (only_rung && strcmp(only_rung, is_cuda() ? "onesweep" : "openmp")) return;
    const cupat_type types[] = {CUPAT_U32, CUPAT_I32, CUPAT_F32, CUPAT_U64, CUPAT_I64, CUPAT_F64};
    const size_t sizes[] = {4097, 70001, ((size_t)1 << 20) + 3};
    enum { IN_ORDER, REVERSED, EQUAL, ONE_SWAP, ONE_TIE, TWO_RUNS, NKIND };
    static const char *kname[NKIND] = {"in order", "reversed", "all equal", "one swap", "reversed but one tie",
                                       "two sorted runs"};
    int failed = 0, k = 0;
    for (int pt = 0; pt < (is_cuda() ? 3 : 1) && !failed; pt++) {
        cupat__sort_portion_tiles = (size_t[]){0, 1, 3}[pt];
        for (int ti = 0; ti < 6 && !failed; ti++)
            for (int si = 0; si < 3 && !failed; si++) {
                const cupat_type t = types[ti];
                const size_t n = sizes[si];
                if (n > 100000 && (!is_cuda() || t_small || pt)) continue;
                if (n > 5000 && t_small) continue;
                for (int kind = 0; kind < NKIND && !failed; kind++, k++) {
                    void *hk = test_xmalloc(n * tsz(t));
                    const int desc = k % 2, bits = (int)(8 * tsz(t));
                    gen(t, hk, n, kind == EQUAL ? G_EQUAL : kind == ONE_SWAP || kind == IN_ORDER ? G_RANDOM : G_FEW);
                    if (kind == IN_ORDER || kind == ONE_SWAP) reorder(t, hk, n, desc, 0, bits);
                    if (kind == REVERSED || kind == ONE_TIE) {
                        /* distinct keys (few-valued keys give ties): index bits, then reverse */
                        for (size_t i = 0; i < n; i++)
                            kset(t, hk, i, is_float(t) ? (tsz(t) == 4 ? (uint64_t)0x3f800000u + i * 8
                                                                      : 0x3ff0000000000000ull + (uint64_t)i * 8)
                                                       : (uint64_t)i * 3 + 1);
                        reorder(t, hk, n, !desc, 0, bits);
                        if (kind == ONE_TIE) kset(t, hk, n / 2 + 1, kbits(t, hk, n / 2));
                    }
                    if (kind == ONE_SWAP) {
                        uint64_t a = kbits(t, hk, n / 3), b = kbits(t, hk, n / 3 + 1);
                        if (ordkey(t, a) == ordkey(t, b)) kset(t, hk, n / 3 + 1, a ^ 1); /* make them differ */
                        a = kbits(t, hk, n / 3), b = kbits(t, hk, n / 3 + 1);
                        kset(t, hk, n / 3, b);
                        kset(t, hk, n / 3 + 1, a);
                    }
                    if (kind == TWO_RUNS) { /* each half in order, the halves not */
                        reorder(t, hk, n / 2, desc, 0, bits);
                        reorder(t, (char *)hk + n / 2 * tsz(t), n - n / 2, desc, 0, bits);
                    }
                    const size_t vs = (size_t[]){0, 4, 8}[k % 3];
                    const int inpl = (k / 2) % 2;
                    failed |= !run_sort(fmt("ordered: %s %s n=%zu v%zu %s%s, portions of %zu tiles", kname[kind],
                                            cupat_type_name(t), n, vs, desc ? "desc" : "asc", inpl ? " in place" : "",
                                            cupat__sort_portion_tiles),
                                        t, vs, desc, hk, n, 0, bits, inpl, only_rung ? only_rung : "default");
                    free(hk);
                }
            }
    }
    cupat__sort_portion_tiles = 0;
    /* in order by the sort bits only: the copy must keep the input order of
     * keys equal in those bits (2 and 3 digit passes: both parities) */
    const int ranges[][2] = {{0, 12}, {0, 24}, {8, 24}};
    for (int q = 0; q < 3 && !failed; q++)
        for (int inpl = 0; inpl < 2 && !failed; inpl++) {
            const size_t n = t_small ? 4500 : 70001;
            uint32_t *hk = test_xmalloc(n * 4);
            gen(CUPAT_U32, hk, n, G_RANDOM);
            reorder(CUPAT_U32, hk, n, q == 2, ranges[q][0], ranges[q][1]);
            failed |= !run_sort(fmt("ordered by bits [%d,%d) only%s", ranges[q][0], ranges[q][1],
                                    inpl ? ", in place" : ""),
                                CUPAT_U32, 4, q == 2, hk, n, ranges[q][0], ranges[q][1], inpl,
                                only_rung ? only_rung : "default");
            free(hk);
        }
}

/* 2^32 + 7 u32 keys through the default CUDA sort: sorted, and the same
 * multiset (count of each of 2^16 top-bit buckets and a wrapping sum). */
static void test_huge(void)
{
    if (!large || !is_cuda()) return;
    size_t n = ((size_t)1 << 32) + 7;
    uint32_t *h = malloc(n * 4);
    if (!h) {
        printf("note: --large: no host memory for 2^32 + 7 keys\n");
        return;
    }
    uint64_t sum = 0;
    size_t *cnt = calloc(65536, sizeof *cnt);
    for (size_t i = 0; i < n; i++) {
        h[i] = (uint32_t)(test_rand() >> 32);
        sum += h[i];
        cnt[h[i] >> 16]++;
    }
    void *dk = NULL, *dout = NULL;
    if (cupat_malloc(ctx, &dk, n * 4) != CUPAT_SUCCESS || cupat_malloc(ctx, &dout, n * 4) != CUPAT_SUCCESS) {
        printf("note: --large: no device memory for 2^32 + 7 keys: %s\n", cupat_last_error(ctx));
        cupat_free(ctx, dk);
        free(h);
        free(cnt);
        return;
    }
    put(dk, h, n * 4);
    CHECK_OK(ctx, cupat_sort(ctx, CUPAT_U32, 0, CUPAT_SORT_ASCENDING, n, dk, dout, NULL, NULL));
    get(h, dout, n * 4);
    size_t unsorted = 0;
    uint64_t sum2 = 0;
    for (size_t i = 0; i < n; i++) {
        sum2 += h[i];
        cnt[h[i] >> 16]--;
        if (i && h[i - 1] > h[i]) unsorted++;
    }
    size_t off = 0;
    for (size_t b = 0; b < 65536; b++) off += cnt[b] != 0;
    CHECK(unsorted == 0 && sum == sum2 && off == 0, "2^32+7: %zu pairs out of order, sum %s, %zu buckets differ",
          unsorted, sum == sum2 ? "equal" : "differs", off);
    dfree(dk);
    dfree(dout);
    free(h);
    free(cnt);
}

/* ---------------------------------------------------- found outside ---- */

/* The onesweep's short last tile pads with the largest key. Where the tile's
 * first key has the padding's digit and the padding makes that digit's count
 * equal the tile's real keys, the all-one-digit short cut once wrote the
 * tile unranked. Here: the last tile holds 3/4 of a tile, half a tile of its
 * keys (the first among them) with low byte 0xFF (0x00 descending), the rest
 * other bytes. Tile sizes: the onesweep's shapes (sort_onesweep.cu, OsCfg). */
static void test_short_tile(void)
{
    struct { cupat_type t; size_t vs, tile; } shapes[] = {
        {CUPAT_U32, 0, 384 * 20}, {CUPAT_U32, 4, 384 * 23}, {CUPAT_U32, 8, 384 * 18},
        {CUPAT_U64, 0, 384 * 14}, {CUPAT_U64, 4, 384 * 15}, {CUPAT_U64, 8, 384 * 15}};
    for (size_t q = 0; q < sizeof shapes / sizeof *shapes; q++)
        for (int desc = 0; desc < 2; desc++) {
            cupat_type t = shapes[q].t;
            size_t tile = shapes[q].tile, valid = tile * 3 / 4, n = 2 * tile + valid, ks = tsz(t);
            uint64_t pad_byte = desc ? 0x00 : 0xFF;
            void *hk = test_xmalloc(n * ks);
            for (size_t i = 0; i < n; i++) {
                uint64_t low = 1 + test_rand() % 254; /* neither 0x00 nor 0xFF */
                kset(t, hk, i, (test_rand() & ~(uint64_t)0xFF) | low);
            }
            size_t last = 2 * tile, want = 2 * valid - tile; /* keys of the padding's digit */
            for (size_t m = 0; m < want;) {
                size_t i = m == 0 ? last : last + 1 + test_rand() % (valid - 1);
                uint64_t k = kbits(t, hk, i);
                if ((k & 0xFF) == pad_byte) continue;
                kset(t, hk, i, (k & ~(uint64_t)0xFF) | pad_byte);
                m++;
            }
            run_sort(fmt("short last tile %s v%zu n=%zu %s", cupat_type_name(t), shapes[q].vs, n,
                         desc ? "desc" : "asc"),
                     t, shapes[q].vs, desc, hk, n, 0, (int)(8 * ks), 0, "default");
            free(hk);
        }
}

/* The outside check's case: u32 keys of 1000 values with u32 values,
 * descending, 27.8 M keys in 20,000 segments: empty ones, length 1, short
 * ones, ones beyond 4096 (each through the onesweep) and one of 3,000,000
 * (5,049 keys out of place before the short-tile fix). CUDA, full size. */
static void test_segmented_large(void)
{
    if (!is_cuda() || t_small) return;
    const size_t nseg = 20000;
    uint64_t *off = test_xmalloc((nseg + 1) * 8);
    off[0] = 0;
    for (size_t s = 0; s < nseg; s++) {
        uint64_t r = test_rand() % 20, len;
        if (s == nseg / 2) len = 3000000;
        else if (r < 3) len = 0;
        else if (r < 6) len = 1;
        else if (r < 18) len = 2 + test_rand() % 2000;
        else len = 4097 + test_rand() % 4000;
        off[s + 1] = off[s] + len;
    }
    size_t n = off[nseg];
    uint32_t *hk = test_xmalloc(n * 4);
    for (size_t i = 0; i < n; i++) hk[i] = (uint32_t)(test_rand() % 1000);
    CHECK_OK(ctx, cupat_set_variant(ctx, "segsort", NULL));
    run_segmented(fmt("segsort default u32 v4 desc, %zu keys of 1000 values in %zu segments", n, nseg), CUPAT_U32,
                  4, 1, 0, off, nseg, hk);
    free(off);
    free(hk);
}

/* Merge of unsorted inputs (the caller's mistake): never a fault. The
 * default rung and the CPU rungs give every (key, value) pair once; the
 * CUDA lab rungs (corank, tiled, circular) write only pairs of the inputs
 * (cupat.h). Values carry the input index, so both are checked exactly. */
static void test_merge_unsorted(void)
{
    size_t sz[][2] = {{100003, 50001}, {1000003, 500001}, {9600, 9600}, {5000, 3}};
    const cupat_variant_info *list;
    int idx[32];
    size_t nr = rungs_of("merge", &list, idx);
    for (size_t si = 0; si < sizeof sz / sizeof *sz; si++) {
        size_t na = sz[si][0], nb = sz[si][1], n = na + nb;
        if (n > 200000 && t_small) continue;
        uint32_t *hk = test_xmalloc(n * 4), *hv = test_xmalloc(n * 4);
        for (size_t i = 0; i < n; i++) hk[i] = (uint32_t)test_rand(), hv[i] = (uint32_t)i;
        void *da = dalloc(na * 4), *db = dalloc(nb * 4), *dav = dalloc(na * 4), *dbv = dalloc(nb * 4);
        void *dout = dalloc(n * 4), *dov = dalloc(n * 4);
        put(da, hk, na * 4);
        put(db, hk + na, nb * 4);
        put(dav, hv, na * 4);
        put(dbv, hv + na, nb * 4);
        uint32_t *gk = test_xmalloc(n * 4), *gv = test_xmalloc(n * 4);
        unsigned char *seen = test_xmalloc(n);
        for (size_t ri = 0; ri <= nr; ri++) {
            const char *rung = ri < nr ? list[idx[ri]].name : "default";
            if (ri < nr && strcmp(rung, "sequential") == 0 && n > 200000) continue;
            CHECK_OK(ctx, cupat_set_variant(ctx, "merge", ri < nr ? rung : NULL));
            int perm = ri == nr || !is_cuda() || strcmp(rung, "partitioned") == 0;
            for (int desc = 0; desc < 2; desc++) {
                test_poison(ctx, dout, n * 4);
                test_poison(ctx, dov, n * 4);
                const char *tag = fmt("merge %s unsorted na=%zu nb=%zu %s", rung, na, nb, desc ? "desc" : "asc");
                CHECK_OK(ctx, cupat_merge(ctx, CUPAT_U32, 4, desc ? CUPAT_SORT_DESCENDING : CUPAT_SORT_ASCENDING,
                                          na, da, dav, nb, db, dbv, dout, dov));
                CHECK_OK(ctx, cupat_sync(ctx));
                get(gk, dout, n * 4);
                get(gv, dov, n * 4);
                memset(seen, 0, n);
                size_t foreign = 0, repeated = 0;
                for (size_t i = 0; i < n; i++) {
                    if (gv[i] >= n || hk[gv[i]] != gk[i]) foreign++;
                    else repeated += seen[gv[i]]++ != 0;
                }
                CHECK(foreign == 0, "%s: %zu outputs are not input pairs", tag, foreign);
                if (perm) CHECK(repeated == 0, "%s: %zu input pairs repeated (and as many lost)", tag, repeated);
            }
        }
        CHECK_OK(ctx, cupat_set_variant(ctx, "merge", NULL));
        dfree(da);
        dfree(db);
        dfree(dav);
        dfree(dbv);
        dfree(dout);
        dfree(dov);
        free(hk);
        free(hv);
        free(gk);
        free(gv);
        free(seen);
    }
}

static void test_found(void)
{
    test_short_tile();
    test_segmented_large();
    test_merge_unsorted();
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--rung") == 0 && i + 1 < argc) only_rung = argv[++i];
        else if (strcmp(argv[i], "--large") == 0) large = 1;
    }
    ctx = test_init(argc, argv);
    test_seed();
    static const test_part parts[] = {{"ladders", test_ladders}, {"errors", test_errors},
                                      {"merge", test_merge},     {"sort", test_sort},
                                      {"segmented", test_segmented}, {"portions", test_portions},
                                      {"ordered", test_ordered},
                                      {"found", test_found},
                                      {"huge", test_huge}};
    test_run_parts(argc, argv, parts, sizeof parts / sizeof *parts, NULL);
    return test_finish(ctx);
}
