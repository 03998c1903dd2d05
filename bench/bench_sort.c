/* SPDX-License-Identifier: Apache-2.0 */
/* bench_sort.c — `cupat bench sort|merge|segsort`: the "sort" ladder on u32
 * keys, u32/u32 pairs, u64 keys and f32 keys (default 2^28 on the GPU, 2^22
 * on the CPU), the "merge" ladder on two sorted u32 arrays of 2^27 each
 * (CPU 2^21; the one-thread rung sequential only up to 2^22 outputs), and
 * "segsort" on u32 keys in 1M segments of 16..1024 keys (CPU 16K segments;
 * --n sets the segment count). The sort ladder also runs on random u32 keys
 * already in order and on distinct u32 keys (0..n-1) in reverse order. Vendor rows: cub::DeviceRadixSort::SortKeys /
 * SortPairs, cub::DeviceMerge::MergeKeys, cub::DeviceSegmentedSort::SortKeys.
 * Checks: the output is in order (per segment), it is the same multiset as
 * the input (a sum of hashed keys), and pairs carry their own index, in
 * increasing order among equal keys (stable). Bytes: each key and value read
 * once and written once (the minimum of any sort). */
#include "bench_sort.h"
#include "sort/sort_internal.h"

#include <stdlib.h>
#include <string.h>

#define TRY(expr)                                                                        \
    do {                                                                                 \
        cupat_status try_s_ = (expr);                                                    \
        if (try_s_ != CUPAT_SUCCESS) return try_s_;                                      \
    } while (0)

typedef struct bs_state {
    int mode; /* 0 sort, 1 merge, 2 segsort */
    cupat_type kt;
    size_t ks, n, na, nseg;
    int pairs;
    int iota; /* keys 0..n-1 instead of the generator's */
    void *kin, *kout;
    uint32_t *vin, *vout;
    uint64_t *off, *hoff;
    void *temp;
    size_t temp_bytes;
    uint64_t fp; /* fingerprint of the input multiset */
} bs_state;

static int gpu(const bench_run *run) { return run->backend == CUPAT_BACKEND_CUDA; }

static uint64_t key_at(const bs_state *st, const void *p, size_t i)
{
    if (st->ks == 8) return ((const uint64_t *)p)[i];
    return ((const uint32_t *)p)[i];
}
static uint64_t gen_bits(const bs_state *st, uint64_t i)
{
    if (st->iota) return (uint32_t)i;
    if (st->kt == CUPAT_U64) return bsort_u64(i);
    if (st->kt == CUPAT_F32) {
        float f = bsort_f32(i);
        uint32_t b;
        memcpy(&b, &f, 4);
        return b;
    }
    return bsort_u32(i);
}
static uint64_t ordk(const bs_state *st, uint64_t b)
{
    if (st->kt == CUPAT_F32) return (b & 0x80000000u) ? (~b & 0xffffffffu) : (b | 0x80000000u);
    return b;
}

/* Fill kin with the generator (GPU kernel or host loop). */
static cupat_status fill_iota(bench_run *run, uint32_t *p, size_t n);
static cupat_status fill_keys(bench_run *run, bs_state *st, void *p, size_t n, uint64_t from)
{
    if (st->iota) return fill_iota(run, p, n); /* from is 0 where iota is used */
    int g = st->kt == CUPAT_U64 ? BSORT_GEN_U64 : st->kt == CUPAT_F32 ? BSORT_GEN_F32 : BSORT_GEN_U32;
    if (gpu(run))
        return bench_cuda_status(run, bench_sort_fill(g, p, n, from, cupat_get_stream(run->ctx)), "fill");
    for (size_t i = 0; i < n; i++) {
        uint64_t b = gen_bits(st, from + i);
        if (st->ks == 8) ((uint64_t *)p)[i] = b;
        else ((uint32_t *)p)[i] = (uint32_t)b;
    }
    return CUPAT_SUCCESS;
}
static cupat_status fill_iota(bench_run *run, uint32_t *p, size_t n)
{
    if (gpu(run))
        return bench_cuda_status(run, bench_sort_fill(BSORT_GEN_IOTA32, p, n, 0, cupat_get_stream(run->ctx)),
                                 "fill");
    for (size_t i = 0; i < n; i++) p[i] = (uint32_t)i;
    return CUPAT_SUCCESS;
}

static cupat_status bs_prepare(bench_run *run, void *p)
{
    bs_state *st = p;
    TRY(cupat_memset(run->ctx, st->kout, 0xFF, st->n * st->ks));
    if (st->pairs) TRY(cupat_memset(run->ctx, st->vout, 0xFF, st->n * 4));
    return CUPAT_SUCCESS;
}

static cupat_status bs_run(bench_run *run, void *p)
{
    bs_state *st = p;
    const cupat_sort_order A = CUPAT_SORT_ASCENDING;
    if (st->mode == 1)
        return cupat_merge(run->ctx, st->kt, 0, A, st->na, st->kin, NULL, st->n - st->na,
                           (char *)st->kin + st->na * st->ks, NULL, st->kout, NULL);
    if (st->mode == 2)
        return cupat_sort_segmented(run->ctx, st->kt, 0, A, st->n, st->nseg, st->off, st->kin, st->kout, NULL,
                                    NULL);
    return cupat_sort(run->ctx, st->kt, st->pairs ? 4 : 0, A, st->n, st->kin, st->kout, st->pairs ? st->vin : NULL,
                      st->pairs ? st->vout : NULL);
}

static cupat_status bs_vendor(bench_run *run, void *p)
{
    bs_state *st = p;
    cupat_stream s = cupat_get_stream(run->ctx);
    size_t tb = st->temp_bytes;
    int e;
    if (st->mode == 1)
        e = bench_cub_merge_u32(st->kin, st->na, (uint32_t *)st->kin + st->na, st->n - st->na, st->kout, st->temp,
                                &tb, s);
    else if (st->mode == 2)
        e = bench_cub_segsort_u32(st->kin, st->kout, st->n, st->nseg, st->off, st->temp, &tb, s);
    else
        e = bench_cub_sort((int)st->kt, st->kin, st->kout, st->pairs ? st->vin : NULL, st->pairs ? st->vout : NULL,
                           st->n, st->temp, &tb, s);
    if (!st->temp) st->temp_bytes = tb; /* the size query */
    return bench_cuda_status(run, e, "CUB");
}

/* Size and allocate CUB's temporary storage (outside the timed region). */
static cupat_status bs_vendor_temp(bench_run *run, bs_state *st)
{
    void *keep = st->temp;
    st->temp = NULL;
    st->temp_bytes = 0;
    TRY(bs_vendor(run, st)); /* temp NULL: the size query */
    st->temp = keep;
    return cupat_malloc(run->ctx, &st->temp, st->temp_bytes);
}

static cupat_status bs_check(bench_run *run, void *p, int strict, bench_check *chk)
{
    bs_state *st = p;
    size_t n = st->n;
    void *hk = malloc(n * st->ks + 1);
    uint32_t *hv = st->pairs ? malloc(n * 4 + 1) : NULL;
    if (!hk || (st->pairs && !hv)) {
        free(hk);
        free(hv);
        return bench_fail(run, CUPAT_ERROR_OUT_OF_MEMORY, "check: no host memory");
    }
    cupat_status s = cupat_memcpy(run->ctx, hk, st->kout, n * st->ks);
    if (!s && st->pairs) s = cupat_memcpy(run->ctx, hv, st->vout, n * 4);
    if (!s) s = cupat_sync(run->ctx);
    if (s) {
        free(hk);
        free(hv);
        return s;
    }
    uint64_t fp = 0;
    size_t wrong = 0, first = SIZE_MAX, seg = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t b = key_at(st, hk, i);
        fp += bench_mix64(b);
        int head = i == 0;
        if (st->mode == 2) {
            while (seg < st->nseg && st->hoff[seg + 1] <= i) seg++;
            head = head || st->hoff[seg] == i;
        }
        int bad = !head && ordk(st, key_at(st, hk, i - 1)) > ordk(st, b);
        if (hv) {
            bad |= gen_bits(st, hv[i]) != b;
            bad |= i > 0 && key_at(st, hk, i - 1) == b && hv[i - 1] >= hv[i];
        }
        if (bad && wrong++ == 0) first = i;
    }
    chk->checked += n;
    chk->wrong += wrong;
    if (wrong)
        snprintf(chk->msg, sizeof chk->msg, "%zu keys out of order or off their values, the first at %zu", wrong,
                 first);
    else if (fp != st->fp) {
        chk->wrong += 1;
        snprintf(chk->msg, sizeof chk->msg, "the output is not the input's multiset of keys");
    }
    (void)strict;
    free(hk);
    free(hv);
    return CUPAT_SUCCESS;
}

static cupat_status bs_free(bench_run *run, bs_state *st)
{
    cupat_sync(run->ctx);
    cupat_free(run->ctx, st->kin);
    cupat_free(run->ctx, st->kout);
    cupat_free(run->ctx, st->vin);
    cupat_free(run->ctx, st->vout);
    cupat_free(run->ctx, st->off);
    cupat_free(run->ctx, st->temp);
    free(st->hoff);
    memset(st, 0, sizeof *st);
    return CUPAT_SUCCESS;
}

static void fingerprint(bs_state *st)
{
    st->fp = 0;
    for (size_t i = 0; i < st->n; i++) st->fp += bench_mix64(gen_bits(st, i));
}

/* One table: the rungs, the vendor (GPU), a copy of the same bytes. The
 * one-thread merge rung sits out above MERGE_SEQUENTIAL_MAX (--variant
 * sequential still runs it, and it refuses). */
static cupat_status bs_table(bench_run *run, const char *pattern, const char *label, bs_state *st,
                             const char *vendor_name)
{
    const cupat_variant_info *v;
    size_t nv;
    TRY(cupat_variants(pattern, &v, &nv));
    double bytes = 2.0 * (double)st->n * (double)(st->ks + (st->pairs ? 4 : 0));
    bench_table *t = bench_table_begin(run, pattern, pattern, label, bytes, 0, BENCH_BOUND_COPY);
    if (!t) return CUPAT_ERROR_OUT_OF_MEMORY;
    const char *only = run->opt.variant && strcmp(run->opt.variant, "all") ? run->opt.variant : NULL;
    for (size_t i = 0; i < nv; i++) {
        if (v[i].backend != run->backend || (only && strcmp(only, v[i].name))) continue;
        if (!only && st->mode == 1 && (int)i == MR_SEQUENTIAL && st->n > MERGE_SEQUENTIAL_MAX) continue;
        bench_progress(run, "bench %s %s: %s", pattern, label, v[i].name);
        bench_row *row = bench_table_add(run, t, v[i].name, BENCH_ROW_RUNG);
        if (!row) return CUPAT_ERROR_OUT_OF_MEMORY;
        row->technique = v[i].technique;
        row->source = v[i].source;
        row->is_default = v[i].is_default;
        if (cupat_set_variant(run->ctx, pattern, v[i].name)) {
            row->verdict = BENCH_ERROR;
            snprintf(row->message, sizeof row->message, "%s", cupat_last_error(run->ctx));
        } else {
            bench_measure(run, t, row, bs_run, bs_prepare, bs_check, 1, st);
        }
    }
    cupat_set_variant(run->ctx, pattern, NULL);
    if (gpu(run)) {
        bench_progress(run, "bench %s %s: %s", pattern, label, vendor_name);
        bench_row *row = bench_table_add(run, t, vendor_name, BENCH_ROW_VENDOR);
        if (!row) return CUPAT_ERROR_OUT_OF_MEMORY;
        row->technique = "vendor baseline, same inputs";
        if (bs_vendor_temp(run, st)) {
            row->verdict = BENCH_ERROR;
            snprintf(row->message, sizeof row->message, "%s", cupat_last_error(run->ctx));
        } else {
            bench_measure(run, t, row, bs_vendor, bs_prepare, bs_check, 0, st);
        }
    }
    TRY(bench_add_copy_row(run, t));
    bench_table_end(run, t);
    return CUPAT_SUCCESS;
}

cupat_status bench_sort_cases(bench_run *run, const bench_size *size)
{
    static const struct {
        const char *title;
        cupat_type kt;
        int pairs;
        const char *vendor;
        int presort; /* the input already sorted by cupat: 1 ascending, 2 descending */
    } kinds[] = {{"u32 keys", CUPAT_U32, 0, "cub::DeviceRadixSort::SortKeys", 0},
                 {"u32/u32 pairs", CUPAT_U32, 1, "cub::DeviceRadixSort::SortPairs", 0},
                 {"u64 keys", CUPAT_U64, 0, "cub::DeviceRadixSort::SortKeys", 0},
                 {"f32 keys", CUPAT_F32, 0, "cub::DeviceRadixSort::SortKeys", 0},
                 {"u32 keys already in order", CUPAT_U32, 0, "cub::DeviceRadixSort::SortKeys", 1},
                 {"u32 keys in reverse order", CUPAT_U32, 0, "cub::DeviceRadixSort::SortKeys", 2}};
    size_t n = size && size->n ? size->n : gpu(run) ? (size_t)1 << 28 : (size_t)1 << 22;
    cupat_status s = CUPAT_SUCCESS;
    for (size_t k = 0; !s && k < sizeof kinds / sizeof kinds[0]; k++) {
        bs_state st = {0};
        st.kt = kinds[k].kt;
        st.ks = cupat_type_size(st.kt);
        st.n = n;
        st.pairs = kinds[k].pairs;
        st.iota = kinds[k].presort == 2; /* distinct: strictly reverse order once sorted descending */
        s = cupat_malloc(run->ctx, &st.kin, n * st.ks);
        if (!s) s = cupat_malloc(run->ctx, &st.kout, n * st.ks);
        if (!s && st.pairs) s = cupat_malloc(run->ctx, (void **)&st.vin, n * 4);
        if (!s && st.pairs) s = cupat_malloc(run->ctx, (void **)&st.vout, n * 4);
        if (!s) s = fill_keys(run, &st, kinds[k].presort ? st.kout : st.kin, n, 0);
        if (!s && kinds[k].presort)
            s = cupat_sort(run->ctx, st.kt, 0, kinds[k].presort == 1 ? CUPAT_SORT_ASCENDING : CUPAT_SORT_DESCENDING,
                           n, st.kout, st.kin, NULL, NULL);
        if (!s && st.pairs) s = fill_iota(run, st.vin, n);
        fingerprint(&st);
        char label[128], c[32];
        snprintf(label, sizeof label, "n=%s %s", bench_fmt_count(c, sizeof c, n), kinds[k].title);
        if (!s) s = bs_table(run, "sort", label, &st, kinds[k].vendor);
        bs_free(run, &st);
    }
    return s;
}

/* Two sorted halves of one buffer: random keys, each half sorted by cupat. */
cupat_status bench_merge_cases(bench_run *run, const bench_size *size)
{
    size_t half = size && size->n ? size->n / 2 : gpu(run) ? (size_t)1 << 27 : (size_t)1 << 21;
    bs_state st = {0};
    st.mode = 1;
    st.kt = CUPAT_U32;
    st.ks = 4;
    st.n = 2 * half;
    st.na = half;
    cupat_status s = cupat_malloc(run->ctx, &st.kin, st.n * 4);
    if (!s) s = cupat_malloc(run->ctx, &st.kout, st.n * 4);
    if (!s) s = fill_keys(run, &st, st.kout, st.n, 0);
    const cupat_sort_order A = CUPAT_SORT_ASCENDING;
    if (!s) s = cupat_sort(run->ctx, CUPAT_U32, 0, A, half, st.kout, st.kin, NULL, NULL);
    if (!s)
        s = cupat_sort(run->ctx, CUPAT_U32, 0, A, half, (uint32_t *)st.kout + half, (uint32_t *)st.kin + half, NULL,
                       NULL);
    fingerprint(&st);
    char label[128], c[32];
    snprintf(label, sizeof label, "2 x %s sorted u32 keys", bench_fmt_count(c, sizeof c, half));
    if (!s) s = bs_table(run, "merge", label, &st, "cub::DeviceMerge::MergeKeys");
    bs_free(run, &st);
    return s;
}

cupat_status bench_segsort_cases(bench_run *run, const bench_size *size)
{
    bs_state st = {0};
    st.mode = 2;
    st.kt = CUPAT_U32;
    st.ks = 4;
    st.nseg = size && size->n ? size->n : gpu(run) ? (size_t)1 << 20 : (size_t)1 << 14;
    st.hoff = malloc((st.nseg + 1) * 8);
    if (!st.hoff) return bench_fail(run, CUPAT_ERROR_OUT_OF_MEMORY, "segsort: no host memory");
    st.hoff[0] = 0;
    for (size_t i = 0; i < st.nseg; i++) st.hoff[i + 1] = st.hoff[i] + 16 + bench_hash(BSORT_SEED_SEG, i) % 1009;
    st.n = st.hoff[st.nseg];
    cupat_status s = cupat_malloc(run->ctx, &st.kin, st.n * 4);
    if (!s) s = cupat_malloc(run->ctx, &st.kout, st.n * 4);
    if (!s) s = cupat_malloc(run->ctx, (void **)&st.off, (st.nseg + 1) * 8);
    if (!s) s = cupat_memcpy(run->ctx, st.off, st.hoff, (st.nseg + 1) * 8);
    if (!s) s = fill_keys(run, &st, st.kin, st.n, 0);
    fingerprint(&st);
    char label[128], c[32], c2[32];
    snprintf(label, sizeof label, "%s u32 keys in %s segments of 16..1024", bench_fmt_count(c, sizeof c, st.n),
             bench_fmt_count(c2, sizeof c2, st.nseg));
    if (!s) s = bs_table(run, "segsort", label, &st, "cub::DeviceSegmentedSort::SortKeys");
    bs_free(run, &st);
    return s;
}
