/* SPDX-License-Identifier: Apache-2.0 */
/* bench_histogram.c — the histogram ladder (PMPP 9.2-9.6, then beyond the
 * book) against CUB in the same run, timed the same way (harness.c).
 *
 * u8, 256 bins over [0, 256), 1 GiB: uniform, skewed (90% one value) and
 *   all-equal bytes: cub::DeviceHistogram::HistogramEven.
 * f32 in [0, 1), 2^28 samples, 256 / 4096 / 65536 bins: Even
 *   (HistogramEven) and Range (boundaries b / bins: HistogramRange); and
 *   Range over 4096 uneven boundaries ((b / bins)^2), where no shortcut
 *   applies. Each table ends with a "default" row: no rung pinned.
 * RGB 3840x2160 (uniform bytes), 256 bins a channel: cupat_histogram_channels
 *   against cub::DeviceHistogram::MultiHistogramEven<3, 3> and, where NPP was
 *   found at configure time, nppiHistogramEven_8u_C3R_Ctx.
 * CPU backend: 2^24 samples, the RGB image 1280x720. --n N: N samples.
 *
 * Byte model: the samples read once (plus the counts written): % of the
 * read ceiling. Rows that cannot hold the bin count (a block's or a
 * cluster's shared memory) are left out, and so are the one-update-a-sample
 * global rungs on the skewed and all-equal inputs (seconds a call; --variant
 * names them back). Checks: every row's counts against counts the host
 * computes from the generators, exactly (CUB and NPP too: the bins here are
 * exact in f32). */
#include "harness.h"

#include "histogram/histogram_internal.h"
#include "internal.h"

#include <stdlib.h>
#include <string.h>

int bench_hist_fill(int dist, void *p, size_t n, int f32, cupat_stream s);
uint8_t bench_hist_u8(int dist, size_t i);
int bench_cub_hist_even(int f32, const void *x, size_t n, int bins, float lo, float hi, unsigned *counts,
                        void *temp, size_t *temp_bytes, cupat_stream s);
int bench_cub_hist_range(const float *x, size_t n, int bins, const float *levels, unsigned *counts,
                         void *temp, size_t *temp_bytes, cupat_stream s);
int bench_cub_hist_rgb(const uint8_t *x, size_t pixels, unsigned *counts, void *temp, size_t *temp_bytes,
                       cupat_stream s);
int bench_npp_hist_rgb(const uint8_t *x, int width, int height, unsigned *counts, void *temp,
                       size_t *temp_bytes, cupat_stream s);

enum { K_U8, K_F32_EVEN, K_F32_RANGE, K_RGB };

typedef struct hb_state {
    int kind, dist;
    size_t n, bins, width, height;
    void *x;
    unsigned *counts;
    double *bounds;  /* host, cupat */
    float *hlevels;  /* host copy of dlevels (the uneven case's reference) */
    int uneven;      /* range boundaries (b / bins)^2, not an even grid */
    float *dlevels;  /* device, CUB */
    uint64_t *ref;
    void *temp;
    size_t temp_bytes;
    int npp;
} hb_state;

static int gpu(const bench_run *run) { return run->backend == CUPAT_BACKEND_CUDA; }
static cupat_stream stream(bench_run *run) { return cupat_get_stream(run->ctx); }

static cupat_status hb_prepare(bench_run *run, void *p)
{
    hb_state *st = p;
    return cupat_memset(run->ctx, st->counts, 0xFF, st->bins * (st->kind == K_RGB ? 3 : 1) * 4);
}

static cupat_status hb_run(bench_run *run, void *p)
{
    hb_state *st = p;
    switch (st->kind) {
    case K_U8:
        return cupat_histogram_even(run->ctx, CUPAT_HIST_U8, st->n, st->x, 256, 0, 256, CUPAT_U32, st->counts, 0);
    case K_F32_EVEN:
        return cupat_histogram_even(run->ctx, CUPAT_HIST_F32, st->n, st->x, st->bins, 0, 1, CUPAT_U32,
                                    st->counts, 0);
    case K_F32_RANGE:
        return cupat_histogram_range(run->ctx, CUPAT_HIST_F32, st->n, st->x, st->bins, st->bounds, CUPAT_U32,
                                     st->counts, 0);
    default:
        return cupat_histogram_channels(run->ctx, 3, st->width * st->height, st->x, 256, 0, 256, CUPAT_U32,
                                        st->counts, 0);
    }
}

static int vendor_call(bench_run *run, hb_state *st, void *temp, size_t *tb)
{
    switch (st->kind) {
    case K_U8: return bench_cub_hist_even(0, st->x, st->n, 256, 0, 256, st->counts, temp, tb, stream(run));
    case K_F32_EVEN:
        return bench_cub_hist_even(1, st->x, st->n, (int)st->bins, 0, 1, st->counts, temp, tb, stream(run));
    case K_F32_RANGE:
        return bench_cub_hist_range(st->x, st->n, (int)st->bins, st->dlevels, st->counts, temp, tb,
                                    stream(run));
    default:
        if (st->npp)
            return bench_npp_hist_rgb(st->x, (int)st->width, (int)st->height, st->counts, temp, tb, stream(run));
        return bench_cub_hist_rgb(st->x, st->width * st->height, st->counts, temp, tb, stream(run));
    }
}

static cupat_status hb_vendor(bench_run *run, void *p)
{
    hb_state *st = p;
    size_t tb = st->temp_bytes;
    return bench_cuda_status(run, vendor_call(run, st, st->temp, &tb), "vendor histogram");
}

static cupat_status hb_check(bench_run *run, void *p, int strict, bench_check *chk)
{
    (void)strict;
    hb_state *st = p;
    size_t total = st->bins * (st->kind == K_RGB ? 3 : 1);
    unsigned *h = malloc(total * 4);
    if (!h) return bench_fail(run, CUPAT_ERROR_OUT_OF_MEMORY, "bench: out of host memory");
    cupat_status s = cupat_memcpy(run->ctx, h, st->counts, total * 4);
    if (!s) s = cupat_sync(run->ctx);
    for (size_t b = 0; !s && b < total; b++) {
        chk->checked++;
        if (h[b] != (unsigned)st->ref[b] && chk->wrong++ == 0)
            snprintf(chk->msg, sizeof chk->msg, "counts[%zu] = %u, want %llu", b, h[b],
                     (unsigned long long)st->ref[b]);
    }
    free(h);
    return s;
}

/* The counts the generators give (OpenMP, a private histogram a thread). */
static void reference(hb_state *st)
{
    size_t total = st->bins * (st->kind == K_RGB ? 3 : 1);
    memset(st->ref, 0, total * sizeof *st->ref);
    size_t n = st->kind == K_RGB ? st->width * st->height * 3 : st->n;
#pragma omp parallel
    {
        uint64_t *mine = calloc(total, sizeof *mine);
#pragma omp for schedule(static)
        for (size_t i = 0; i < n; i++) {
            if (!mine) continue;
            if (st->kind == K_F32_RANGE && st->uneven) {
                float v = bench_rand_f32(72, i, 0.0f, 1.0f);
                size_t lo = 0, hi = st->bins + 1; /* the first level > v */
                while (lo < hi) {
                    size_t mid = (lo + hi) / 2;
                    if (st->hlevels[mid] <= v) lo = mid + 1;
                    else hi = mid;
                }
                if (lo >= 1 && lo <= st->bins) mine[lo - 1]++;
            } else if (st->kind == K_F32_EVEN || st->kind == K_F32_RANGE) {
                float v = bench_rand_f32(72, i, 0.0f, 1.0f);
                float t = v * (float)st->bins; /* exact: bins a power of two */
                mine[(size_t)t]++;
            } else if (st->kind == K_RGB) {
                mine[(i % 3) * 256 + bench_hist_u8(0, i)]++;
            } else {
                mine[bench_hist_u8(st->dist, i)]++;
            }
        }
#pragma omp critical
        for (size_t b = 0; mine && b < total; b++) st->ref[b] += mine[b];
        free(mine);
    }
}

static cupat_status fill(bench_run *run, hb_state *st, size_t n, int f32)
{
    if (gpu(run)) return bench_cuda_status(run, bench_hist_fill(st->dist, st->x, n, f32, stream(run)), "fill");
    if (f32) return bench_fill_f32(run, st->x, n, 72, 0.0f, 1.0f);
    uint8_t *q = st->x;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) q[i] = bench_hist_u8(st->dist, i);
    return CUPAT_SUCCESS;
}

static const char *const skip_on_contention[] = {"global_atomic", "private_global"};

static cupat_status table(bench_run *run, hb_state *st, const char *title, const char *label)
{
    size_t nsamp = st->kind == K_RGB ? st->width * st->height * 3 : st->n;
    double bytes = (double)nsamp * (st->kind == K_F32_EVEN || st->kind == K_F32_RANGE ? 4 : 1) +
                   (double)st->bins * 4 * (st->kind == K_RGB ? 3 : 1);
    reference(st);
    bench_table *t = bench_table_begin(run, "histogram", title, label, bytes, 0, BENCH_BOUND_READ);
    if (!t) return CUPAT_ERROR_OUT_OF_MEMORY;
    const cupat_variant_info *v;
    size_t nv;
    CUPAT_TRY(cupat_variants("histogram", &v, &nv));
    const char *only = run->opt.variant && strcmp(run->opt.variant, "all") ? run->opt.variant : NULL;
    for (size_t i = 0; i < nv; i++) {
        if (v[i].backend != run->backend || (only && strcmp(only, v[i].name))) continue;
        char why[200];
        unsigned total = (unsigned)(st->bins * (st->kind == K_RGB ? 3 : 1));
        if (gpu(run) && !cupat__histogram_fits((cupat_ctx *)run->ctx, (int)i,
                                               st->kind == K_U8 || st->kind == K_RGB ? CUPAT_HIST_U8
                                                                                     : CUPAT_HIST_F32,
                                               st->kind == K_F32_RANGE, total, why, sizeof why))
            continue;
        if (!only && st->kind == K_U8 && st->dist &&
            (!strcmp(v[i].name, skip_on_contention[0]) || !strcmp(v[i].name, skip_on_contention[1])))
            continue;
        bench_progress(run, "bench histogram %s: %s", title, v[i].name);
        bench_row *row = bench_table_add(run, t, v[i].name, BENCH_ROW_RUNG);
        if (!row) return CUPAT_ERROR_OUT_OF_MEMORY;
        row->technique = v[i].technique;
        row->source = v[i].source;
        row->is_default = 0; /* the "default" row below is what runs unpinned */
        if (cupat_set_variant(run->ctx, "histogram", v[i].name) == CUPAT_SUCCESS)
            bench_measure(run, t, row, hb_run, hb_prepare, hb_check, 1, st);
        cupat_set_variant(run->ctx, "histogram", NULL);
    }
    if (!only) { /* no rung pinned: the library's choice (docs/histogram.md, "The default") */
        bench_progress(run, "bench histogram %s: default", title);
        bench_row *row = bench_table_add(run, t, "default", BENCH_ROW_RUNG);
        if (!row) return CUPAT_ERROR_OUT_OF_MEMORY;
        row->technique = "no rung pinned: picks by sample type, bin count and boundaries (u8: "
                         "byte_counters; a block's worth of bins: vec16; twice that: packed16; then "
                         "cluster; boundaries on an exact even grid: the even rule)";
        row->is_default = 1;
        bench_measure(run, t, row, hb_run, hb_prepare, hb_check, 1, st);
    }
    for (int npp = 0; gpu(run) && npp < (st->kind == K_RGB ? 2 : 1); npp++) {
        st->npp = npp;
        size_t tb = 0;
        if (vendor_call(run, st, NULL, &tb) != 0) continue; /* NPP absent */
        if (tb > st->temp_bytes) {
            cupat_free(run->ctx, st->temp);
            st->temp = NULL;
            CUPAT_TRY(cupat_malloc(run->ctx, &st->temp, tb));
            st->temp_bytes = tb;
        }
        bench_row *row = bench_table_add(run, t,
                                         npp ? "nppiHistogramEven_8u_C3R"
                                         : st->kind == K_RGB   ? "cub MultiHistogramEven"
                                         : st->kind == K_F32_RANGE ? "cub HistogramRange"
                                                                   : "cub HistogramEven",
                                         BENCH_ROW_VENDOR);
        if (!row) return CUPAT_ERROR_OUT_OF_MEMORY;
        row->technique = "vendor baseline, same inputs";
        bench_measure(run, t, row, hb_vendor, hb_prepare, hb_check, 0, st);
    }
    st->npp = 0;
    bench_table_end(run, t);
    return CUPAT_SUCCESS;
}

cupat_status bench_histogram_cases(bench_run *run, const bench_size *size)
{
    hb_state st;
    memset(&st, 0, sizeof st);
    const size_t n8 = size && size->n ? size->n : gpu(run) ? (size_t)1 << 30 : (size_t)1 << 24;
    const size_t n32 = size && size->n ? size->n : gpu(run) ? (size_t)1 << 28 : (size_t)1 << 24;
    st.width = gpu(run) ? 3840 : 1280;
    st.height = gpu(run) ? 2160 : 720;
    size_t xb = n8 > n32 * 4 ? n8 : n32 * 4;
    if (st.width * st.height * 3 > xb) xb = st.width * st.height * 3;
    cupat_status s = cupat_malloc(run->ctx, &st.x, xb);
    if (!s) s = cupat_malloc(run->ctx, (void **)&st.counts, 65536 * 4);
    st.ref = malloc(65536 * sizeof *st.ref);
    st.bounds = malloc((65536 + 1) * sizeof *st.bounds);
    float *lv = malloc((65536 + 1) * sizeof *lv);
    if (!s && gpu(run)) s = cupat_malloc(run->ctx, (void **)&st.dlevels, (65536 + 1) * sizeof(float));
    if (!s && (!st.ref || !st.bounds || !lv)) s = bench_fail(run, CUPAT_ERROR_OUT_OF_MEMORY, "bench: out of host memory");
    char label[128], nb[32];
    static const char *const dn[3] = {"uniform", "skewed (90% one value)", "all-equal"};
    for (int d = 0; !s && d < 3; d++) {
        st.kind = K_U8;
        st.dist = d;
        st.n = n8;
        st.bins = 256;
        s = fill(run, &st, n8, 0);
        snprintf(label, sizeof label, "n=%s u8, 256 bins, %s", bench_fmt_count(nb, sizeof nb, n8), dn[d]);
        if (!s) s = table(run, &st, "histogram u8", label);
    }
    st.dist = 0;
    if (!s) s = fill(run, &st, n32, 1);
    static const size_t fbins[] = {256, 4096, 65536};
    for (size_t k = 0; !s && k < 3; k++)
        for (int range = 0; !s && range < 2; range++) {
            st.kind = range ? K_F32_RANGE : K_F32_EVEN;
            st.n = n32;
            st.bins = fbins[k];
            for (size_t b = 0; b <= st.bins; b++) {
                st.bounds[b] = (double)b / (double)st.bins;
                lv[b] = (float)st.bounds[b];
            }
            if (range && gpu(run))
                s = cupat_memcpy(run->ctx, st.dlevels, lv, (st.bins + 1) * sizeof(float));
            snprintf(label, sizeof label, "n=%s f32 in [0, 1), %zu bins, %s", bench_fmt_count(nb, sizeof nb, n32),
                     st.bins, range ? "range (boundaries b / bins)" : "even");
            if (!s) s = table(run, &st, range ? "histogram f32 range" : "histogram f32 even", label);
        }
    if (!s) { /* uneven boundaries: the search itself (no even-grid shortcut) */
        st.kind = K_F32_RANGE;
        st.n = n32;
        st.bins = 4096;
        st.uneven = 1;
        st.hlevels = lv;
        for (size_t b = 0; b <= st.bins; b++) {
            double q = (double)b / (double)st.bins;
            lv[b] = (float)(q * q);
            st.bounds[b] = lv[b];
        }
        if (gpu(run)) s = cupat_memcpy(run->ctx, st.dlevels, lv, (st.bins + 1) * sizeof(float));
        snprintf(label, sizeof label, "n=%s f32 in [0, 1), %zu bins, range (boundaries (b / bins)^2: uneven)",
                 bench_fmt_count(nb, sizeof nb, n32), st.bins);
        if (!s) s = table(run, &st, "histogram f32 range", label);
        st.uneven = 0;
    }
    if (!s) {
        st.kind = K_RGB;
        st.dist = 0;
        st.bins = 256;
        s = fill(run, &st, st.width * st.height * 3, 0);
        snprintf(label, sizeof label, "RGB %zux%zu, 256 bins a channel", st.width, st.height);
        if (!s) s = table(run, &st, "histogram rgb", label);
    }
    cupat_sync(run->ctx);
    cupat_free(run->ctx, st.x);
    cupat_free(run->ctx, st.counts);
    cupat_free(run->ctx, st.dlevels);
    cupat_free(run->ctx, st.temp);
    free(st.ref);
    free(st.bounds);
    free(lv);
    return s;
}
