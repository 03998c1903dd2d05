/* SPDX-License-Identifier: Apache-2.0 */
/* sort_cpu.c — the CPU backend of merge, sort and segmented sort (OpenMP),
 * and the order every backend shares: keys compared as their transformed
 * bits (sort_xform: floats by the sign-flip total order, signed integers
 * with the sign bit inverted, descending as all bits inverted).
 *
 * merge serial: two fingers. merge openmp: the output cut in equal chunks,
 * each chunk's start co-ranked (PMPP 12.3), chunks merged in parallel.
 * sort: LSD radix sort on (transformed key, index) pairs, 8-bit digits over
 * bits [lo, hi): per pass, per-chunk digit histograms, the offsets of digit d
 * in chunk c (all smaller digits, then d in earlier chunks), a stable scatter
 * per chunk. serial runs one chunk, openmp fixed 64K-key chunks in parallel
 * (the result never depends on the thread count: a stable sort has one
 * answer). The sorted indices gather the values; keys are written back from
 * their transformed bits, so keys_out == keys_in (in place) works.
 * segsort: each segment sorted by the same routine (openmp: segments spread
 * over threads). */
#include "internal.h"
#include "sort/sort_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK ((size_t)1 << 16)

static inline uint64_t ld_bits(const void *p, size_t i, size_t ks)
{
    if (ks == 4) {
        uint32_t v;
        memcpy(&v, (const char *)p + i * 4, 4);
        return v;
    }
    uint64_t v;
    memcpy(&v, (const char *)p + i * 8, 8);
    return v;
}
static inline void st_bits(void *p, size_t i, size_t ks, uint64_t v)
{
    if (ks == 4) {
        uint32_t w = (uint32_t)v;
        memcpy((char *)p + i * 4, &w, 4);
    } else {
        memcpy((char *)p + i * 8, &v, 8);
    }
}
static inline uint64_t fwd(const sort_xform *x, uint64_t u, int bits)
{
    return u ^ (((u >> (bits - 1)) & 1) ? x->m1 : x->m0) ^ x->d;
}
static inline uint64_t inv(const sort_xform *x, uint64_t t, int bits)
{
    uint64_t u = t ^ x->d;
    return u ^ (((u >> (bits - 1)) & 1) ? x->m0 : x->m1);
}

/* ---------------------------------------------------------------- merge -- */

typedef struct mview {
    const merge_req *r;
    int bits;
} mview;

static inline uint64_t ka(const mview *m, size_t i) { return fwd(&m->r->x, ld_bits(m->r->a, i, m->r->ksize), m->bits); }
static inline uint64_t kb(const mview *m, size_t j) { return fwd(&m->r->x, ld_bits(m->r->b, j, m->r->ksize), m->bits); }

/* How many of the first k outputs come from a (ties: a first). */
static size_t corank(const mview *m, size_t k)
{
    size_t lo = k > m->r->nb ? k - m->r->nb : 0, hi = k < m->r->na ? k : m->r->na;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (!(kb(m, k - 1 - mid) < ka(m, mid))) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Outputs [k0, k1) from a[i0, i1) and b[k0 - i0, k1 - i1): bounded by the
 * chunk's own ranges, so that chunks whose co-ranks agree give every
 * element once even where the runs are not sorted. */
static void merge_range(const mview *m, size_t k0, size_t k1, size_t i0, size_t i1)
{
    const merge_req *r = m->r;
    size_t i = i0, j = k0 - i0, j1 = k1 - i1, vs = r->vsize, ks = r->ksize;
    for (size_t k = k0; k < k1; k++) {
        int take_a = j >= j1 || (i < i1 && !(kb(m, j) < ka(m, i)));
        const void *src = take_a ? r->a : r->b;
        const void *vsrc = take_a ? r->av : r->bv;
        size_t s = take_a ? i++ : j++;
        memcpy((char *)r->out + k * ks, (const char *)src + s * ks, ks);
        if (vs) memcpy((char *)r->outv + k * vs, (const char *)vsrc + s * vs, vs);
    }
}

cupat_status cupat__merge_cpu(cupat_ctx *ctx, const merge_req *r)
{
    mview m = {r, (int)(8 * r->ksize)};
    size_t n = r->na + r->nb;
    if (r->rung == MR_CPU_SERIAL) {
        merge_range(&m, 0, n, 0, r->na);
        return CUPAT_SUCCESS;
    }
    /* Every chunk's start co-ranked first. On sorted runs consecutive
     * co-ranks never step back in a or in b; where they do (unsorted input)
     * the chunks take the proportional split k na / n instead, which never
     * does: every element still comes out once. */
    long long nc = (long long)((n + CHUNK - 1) / CHUNK);
    size_t *cut = malloc(((size_t)nc + 1) * sizeof *cut);
    if (!cut)
        return cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY, "%s: %zu bytes of host memory for the chunk co-ranks",
                           r->fn, ((size_t)nc + 1) * sizeof *cut);
#pragma omp parallel for schedule(static)
    for (long long c = 0; c < nc; c++) cut[c] = corank(&m, (size_t)c * CHUNK);
    cut[nc] = r->na;
    int stepped_back = 0;
    for (long long c = 0; c < nc && !stepped_back; c++) {
        size_t k0 = (size_t)c * CHUNK, k1 = k0 + CHUNK < n ? k0 + CHUNK : n;
        stepped_back = cut[c + 1] < cut[c] || k1 - cut[c + 1] < k0 - cut[c];
    }
    if (stepped_back)
        for (long long c = 0; c < nc; c++)
            cut[c] = (size_t)((unsigned __int128)((size_t)c * CHUNK) * r->na / n);
#pragma omp parallel for schedule(static)
    for (long long c = 0; c < nc; c++) {
        size_t k0 = (size_t)c * CHUNK, k1 = k0 + CHUNK < n ? k0 + CHUNK : n;
        merge_range(&m, k0, k1, cut[c], cut[c + 1]);
    }
    free(cut);
    return CUPAT_SUCCESS;
}

/* ----------------------------------------------------------------- sort -- */

typedef struct kv {
    uint64_t t;   /* transformed key */
    uint64_t idx; /* where it came from */
} kv;

/* Stable LSD radix sort of a[0, n) on bits [lo, hi) of .t; tmp of n. The
 * result ends in a. chunked: parallel per-chunk histograms and scatters. */
static void radix_kv(kv *a, kv *tmp, size_t n, int lo, int hi, int parallel)
{
    size_t nc = parallel ? (n + CHUNK - 1) / CHUNK : 1;
    if (nc == 0) nc = 1;
    size_t csz = parallel ? CHUNK : n;
    size_t *hist = malloc(nc * 256 * sizeof *hist);
    if (!hist) parallel = 0, nc = 1, csz = n, hist = NULL;
    size_t one[256];
    size_t *h = hist ? hist : one;
    kv *src = a, *dst = tmp;
    for (int b = lo; b < hi; b += 8) {
        int w = hi - b < 8 ? hi - b : 8;
        uint64_t mask = (1ull << w) - 1;
        memset(h, 0, nc * 256 * sizeof *h);
#pragma omp parallel for schedule(static) if (parallel)
        for (long long c = 0; c < (long long)nc; c++) {
            size_t s = (size_t)c * csz, e = s + csz < n ? s + csz : n;
            size_t *hc = h + (size_t)c * 256;
            for (size_t i = s; i < e; i++) hc[(src[i].t >> b) & mask]++;
        }
        size_t run = 0;
        for (int d = 0; d < 256; d++)
            for (size_t c = 0; c < nc; c++) {
                size_t v = h[c * 256 + (size_t)d];
                h[c * 256 + (size_t)d] = run;
                run += v;
            }
#pragma omp parallel for schedule(static) if (parallel)
        for (long long c = 0; c < (long long)nc; c++) {
            size_t s = (size_t)c * csz, e = s + csz < n ? s + csz : n;
            size_t *hc = h + (size_t)c * 256;
            for (size_t i = s; i < e; i++) dst[hc[(src[i].t >> b) & mask]++] = src[i];
        }
        kv *t = src;
        src = dst;
        dst = t;
    }
    if (src != a) memcpy(a, src, n * sizeof *a);
    free(hist);
}

/* Sort [s, e) of r's arrays; a and tmp hold at least e - s pairs. */
static void sort_range(const sort_req *r, size_t s, size_t e, kv *a, kv *tmp, void *vcopy,
                       int parallel)
{
    size_t n = e - s, ks = r->ksize, vs = r->vsize;
    int bits = (int)(8 * ks);
    for (size_t i = 0; i < n; i++) {
        a[i].t = fwd(&r->x, ld_bits(r->kin, s + i, ks), bits);
        a[i].idx = s + i;
    }
    radix_kv(a, tmp, n, r->lo, r->hi, parallel);
    const char *vin = (const char *)r->vin + s * vs; /* value of key s + i at vin + i */
    if (vs && r->vout == r->vin) { /* in place: gather from a copy */
        memcpy(vcopy, vin, n * vs);
        vin = vcopy;
    }
    for (size_t i = 0; i < n; i++) {
        st_bits(r->kout, s + i, ks, inv(&r->x, a[i].t, bits));
        if (vs) memcpy((char *)r->vout + (s + i) * vs, vin + (a[i].idx - s) * vs, vs);
    }
}

static cupat_status host_buffers(cupat_ctx *ctx, const char *fn, size_t n, size_t vs, kv **a,
                                 kv **tmp, void **vcopy)
{
    *a = malloc((n ? n : 1) * sizeof **a);
    *tmp = malloc((n ? n : 1) * sizeof **tmp);
    *vcopy = malloc(n * vs > 0 ? n * vs : 1);
    if (!*a || !*tmp || !*vcopy) {
        free(*a);
        free(*tmp);
        free(*vcopy);
        return cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY,
                           "%s: %zu bytes of host memory for the sort unavailable", fn,
                           n * (2 * sizeof(kv) + vs));
    }
    return CUPAT_SUCCESS;
}

/* The sort's two pair arrays and the in-place value copy come from the
 * context's workspace (cupat_set_workspace_limit holds for them). */
cupat_status cupat__sort_cpu(cupat_ctx *ctx, const sort_req *r)
{
    const size_t n = r->n ? r->n : 1, pairs = n * sizeof(kv), vbytes = r->n * r->vsize;
    void *w = NULL;
    CUPAT_TRY(cupat__scratch(ctx, 2 * pairs + vbytes, &w));
    kv *a = (kv *)w, *tmp = a + n;
    sort_range(r, 0, r->n, a, tmp, (char *)w + 2 * pairs, r->rung == SOR_CPU_OPENMP);
    return CUPAT_SUCCESS;
}

/* ------------------------------------------------------------ segmented -- */

cupat_status cupat__segsort_cpu(cupat_ctx *ctx, const sort_req *r)
{
    const uint64_t *o = r->offsets;
    if (o[0] != 0)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: offsets[0] = %llu: the first segment starts at 0", r->fn,
                           (unsigned long long)o[0]);
    if (o[r->nseg] != r->n)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: offsets[num_segments = %zu] = %llu, not n = %zu", r->fn, r->nseg,
                           (unsigned long long)o[r->nseg], r->n);
    size_t longest = 0;
    for (size_t s = 0; s < r->nseg; s++) {
        if (o[s + 1] < o[s])
            return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                               "%s: offsets decrease at segment %zu: offsets[%zu] = %llu > "
                               "offsets[%zu] = %llu",
                               r->fn, s, s, (unsigned long long)o[s], s + 1,
                               (unsigned long long)o[s + 1]);
        if (o[s + 1] - o[s] > longest) longest = (size_t)(o[s + 1] - o[s]);
    }
    if (r->n == 0) return CUPAT_SUCCESS;
    int par = r->rung == SSR_CPU_OPENMP;
    cupat_status st = CUPAT_SUCCESS;
#pragma omp parallel if (par)
    {
        kv *a = NULL, *tmp = NULL;
        void *vc = NULL;
        cupat_status my = host_buffers(NULL, r->fn, longest, r->vsize, &a, &tmp, &vc);
        if (my != CUPAT_SUCCESS) {
#pragma omp critical
            st = my;
        }
#pragma omp for schedule(dynamic, 64)
        for (long long s = 0; s < (long long)r->nseg; s++)
            if (my == CUPAT_SUCCESS && o[s + 1] > o[s])
                sort_range(r, (size_t)o[s], (size_t)o[s + 1], a, tmp, vc, 0);
        free(a);
        free(tmp);
        free(vc);
    }
    if (st != CUPAT_SUCCESS)
        return cupat__fail(ctx, st, "%s: %zu bytes a thread of host memory unavailable", r->fn,
                           longest * (2 * sizeof(kv) + r->vsize));
    return CUPAT_SUCCESS;
}
