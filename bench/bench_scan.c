/* SPDX-License-Identifier: Apache-2.0 */
/* bench_scan.c — the scan ladder (PMPP 11.2-11.7, then beyond the books), the
 * segmented scans and stream compaction, each table against CUB in the same
 * run, timed the same way (harness.c: events, warm-up, L2 flushed between
 * calls, median).
 *
 * scan     u32 exclusive sum, the whole ladder at 2^22, then 2^24 and 2^28;
 *          f32 inclusive sum 2^24, 2^28; i32 inclusive max 2^28; u64 exclusive
 *          sum 2^27. The one-block rungs (kogge_stone .. coarsened: one block
 *          walks the whole array) run at n <= 2^22 only, unless --variant
 *          names one. Vendor: cub::DeviceScan.
 * segscan  u32 exclusive sum by u32 key (runs of 1000): cub::DeviceScan::
 *          ExclusiveSumByKey; f32 inclusive sum with head flags (1 in 1000):
 *          CUB has no head-flag scan, so the vendor row is cub::DeviceScan::
 *          InclusiveScan of (flag, value) pairs under the segmented operator
 *          (same inputs, same result). 2^28.
 * select   u32 by flags (50%): cub::DeviceSelect::Flagged; f32 by predicate
 *          x < 0 (the inputs' median): DeviceSelect::If; u32 partition by the
 *          same flags: DevicePartition::Flagged; u32 unique (runs of 1..64):
 *          DeviceSelect::Unique. The count goes to device memory on both
 *          sides. 2^28.
 * CPU backend: every table at 2^24; --n N: every table at N elements.
 *
 * Byte model (the minimum traffic; % of the copy ceiling, and a copy of the
 * same bytes as the last row): scan reads x and writes y (2 n size); segscan
 * reads keys or flags and x, writes y; select reads x (and the flags), writes
 * the kept elements and the 8-byte count (partition: all n).
 *
 * Checks: every row once, against outputs recomputed from the inputs'
 * generators (bench_scan.h) and reference values at every 2^16th element
 * computed once per table: integers exactly, f32 sums within gamma(d) times
 * the prefix sum of |x|, d the smaller of the rung's summation depth and the
 * prefix's length (no order of k terms is deeper than k; the vendor, which
 * promises no order, gets that bound alone). CUB's partition writes the
 * rejected elements in reverse order; its row is checked against that. */
#include "harness.h"

#include "bench_scan.h"
#include "internal.h"
#include "scan/scan_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The unit of the reference values and of the checks. */
#define CHUNK ((size_t)1 << 16)
/* The one-block rungs of the scan ladder run up to here. */
#define BOOK_LOG2 22
#define BOOK_MAX_N ((size_t)1 << BOOK_LOG2)
/* As the harness: outputs up to 256 MiB checked whole, larger ones on the
 * first and last chunk and 62 random others, copied back 64 MiB at a time. */
#define FULL_CHECK_BYTES ((size_t)256 << 20)
#define SAMPLE_CHUNKS 64
#define SPAN_BYTES ((size_t)64 << 20)

static int gpu(const bench_run *run)
{
    return run->backend == CUPAT_BACKEND_CUDA;
}

static double gamma_(double k)
{
    double ku = k * 0x1p-24;
    return ku >= 1 ? INFINITY : ku / (1 - ku);
}

/* The f32 inputs are multiples of 2^-23 in [-1, 1): their prefix sums are
 * exact in double while n <= 2^30; past that, allow the reference's error. */
static double ref_slack(size_t n, double abs_sum)
{
    return n > ((size_t)1 << 30) ? (double)n * 0x1p-53 * abs_sum : 0;
}

static uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* ------------------------------------------------------------ inputs -- */

#define HOST_FILL(T, fn)                                                                   \
    do {                                                                                   \
        T *q = p;                                                                          \
        _Pragma("omp parallel for schedule(static)")                                       \
        for (size_t i = 0; i < n; i++) q[i] = fn(i);                                       \
    } while (0)

static cupat_status fill_gen(bench_run *run, bscan_gen gen, void *p, size_t n)
{
    if (gpu(run))
        return bench_cuda_status(run, bench_scan_fill(gen, p, n, cupat_get_stream(run->ctx)),
                                 "bench scan fill kernel");
    switch (gen) {
    case BSCAN_GEN_U32: HOST_FILL(uint32_t, bscan_u32); break;
    case BSCAN_GEN_I32: HOST_FILL(int32_t, bscan_i32); break;
    case BSCAN_GEN_U64: HOST_FILL(uint64_t, bscan_u64); break;
    case BSCAN_GEN_FLAG50: HOST_FILL(uint8_t, bscan_flag50); break;
    case BSCAN_GEN_HEAD: HOST_FILL(uint8_t, bscan_head); break;
    case BSCAN_GEN_KEY: HOST_FILL(uint32_t, bscan_key); break;
    case BSCAN_GEN_UNIQ: HOST_FILL(uint32_t, bscan_uniq); break;
    }
    return CUPAT_SUCCESS;
}

/* CUB's temporary storage: at least `bytes`, kept for the next table. */
static cupat_status grow_temp(bench_run *run, void **temp, size_t *have, size_t bytes)
{
    if (bytes <= *have && *temp) return CUPAT_SUCCESS;
    cupat_free(run->ctx, *temp);
    *temp = NULL;
    *have = 0;
    CUPAT_TRY(cupat_malloc(run->ctx, temp, bytes ? bytes : 16));
    *have = bytes ? bytes : 16;
    return CUPAT_SUCCESS;
}

/* ------------------------------------------------------- exact check -- */

/* Expected bytes of out[start, start + len) (elements of the table's type). */
typedef void (*expect_exact)(void *state, size_t start, size_t len, void *expect);

static void fmt_elem(char *b, size_t len, cupat_type t, const unsigned char *p)
{
    uint32_t u32;
    uint64_t u64;
    float f;
    switch (t) {
    case CUPAT_I32: memcpy(&u32, p, 4); snprintf(b, len, "%d", (int)(int32_t)u32); break;
    case CUPAT_U32: memcpy(&u32, p, 4); snprintf(b, len, "%u", u32); break;
    case CUPAT_F32: memcpy(&f, p, 4); snprintf(b, len, "%.9g", f); break;
    case CUPAT_I64: memcpy(&u64, p, 8); snprintf(b, len, "%lld", (long long)(int64_t)u64); break;
    default: memcpy(&u64, p, 8); snprintf(b, len, "%llu", (unsigned long long)u64); break;
    }
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

/* Compare out[0, n) bit for bit with fn's values, chunk by chunk (sampled as
 * the harness samples). Adds to chk. */
static cupat_status verify_exact(bench_run *run, const void *out, cupat_type t, size_t n,
                                 expect_exact fn, void *state, bench_check *chk)
{
    if (n == 0) return CUPAT_SUCCESS;
    const size_t es = cupat_type_size(t), chunk = n < CHUNK ? n : CHUNK;
    size_t nchunks = (n + chunk - 1) / chunk, nids = nchunks;
    int sampled = n * es > FULL_CHECK_BYTES && nchunks > SAMPLE_CHUNKS;
    if (sampled) nids = SAMPLE_CHUNKS;
    size_t *ids = malloc(nids * sizeof *ids);
    size_t span_chunks = SPAN_BYTES / (chunk * es);
    if (span_chunks == 0) span_chunks = 1;
    unsigned char *host = gpu(run) ? malloc(span_chunks * chunk * es) : NULL;
    if (!ids || (gpu(run) && !host)) {
        free(ids);
        free(host);
        return bench_fail(run, CUPAT_ERROR_OUT_OF_MEMORY, "bench: out of host memory");
    }
    if (sampled) { /* both ends, where indexing bugs live, and random others */
        ids[0] = 0;
        ids[1] = nchunks - 1;
        for (size_t i = 2; i < nids; i++) ids[i] = bench_hash(0x5CA2, i) % nchunks;
        qsort(ids, nids, sizeof *ids, cmp_size);
        size_t u = 1;
        for (size_t i = 1; i < nids; i++)
            if (ids[i] != ids[u - 1]) ids[u++] = ids[i];
        nids = u;
    } else {
        for (size_t i = 0; i < nids; i++) ids[i] = i;
    }
    size_t wrong = 0, first = SIZE_MAX, checked = 0;
    unsigned char got[8] = {0}, want[8] = {0};
    int oom = 0;
    cupat_status s = CUPAT_SUCCESS;
    for (size_t a = 0; a < nids && !s;) {
        size_t b = a + 1;
        while (b < nids && ids[b] == ids[b - 1] + 1 && b - a < span_chunks) b++;
        size_t base = ids[a] * chunk, end = (ids[b - 1] + 1) * chunk;
        if (end > n) end = n;
        const unsigned char *src = (const unsigned char *)out + base * es;
        if (gpu(run)) {
            s = cupat_memcpy(run->ctx, host, src, (end - base) * es);
            if (s) break;
            src = host;
        }
#pragma omp parallel
        {
            unsigned char *exp = malloc(chunk * es);
            if (!exp) {
#pragma omp atomic write
                oom = 1;
            }
#pragma omp for schedule(dynamic)
            for (size_t q = a; q < b; q++) {
                if (!exp) continue;
                size_t start = ids[q] * chunk, len = n - start < chunk ? n - start : chunk;
                const unsigned char *o = src + (start - base) * es;
                fn(state, start, len, exp);
                size_t w = 0, f = SIZE_MAX;
                for (size_t i = 0; i < len; i++)
                    if (memcmp(o + i * es, exp + i * es, es) != 0 && !w++) f = i;
                if (w) {
#pragma omp critical(bench_scan_verify)
                    {
                        wrong += w;
                        if (start + f < first) {
                            first = start + f;
                            memcpy(got, o + f * es, es);
                            memcpy(want, exp + f * es, es);
                        }
                    }
                }
            }
            free(exp);
        }
        checked += end - base;
        a = b;
    }
    free(host);
    free(ids);
    if (!s && oom) s = bench_fail(run, CUPAT_ERROR_OUT_OF_MEMORY, "bench: out of host memory");
    if (s) return s;
    chk->checked += checked;
    chk->wrong += wrong;
    if (wrong && !chk->msg[0]) {
        char g[32], w[32];
        fmt_elem(g, sizeof g, t, got);
        fmt_elem(w, sizeof w, t, want);
        snprintf(chk->msg, sizeof chk->msg, "out[%zu] = %s, expected %s; %zu of %zu checked wrong",
                 first, g, w, wrong, checked);
    }
    return CUPAT_SUCCESS;
}

/* ------------------------------------------------------- ladder walk -- */

/* One table: the rungs of the backend in ladder order (or the one --variant
 * names), the vendor (GPU), a copy of the same bytes. */
typedef struct ladder {
    const char *pattern, *title;
    char label[128];
    size_t n;
    double bytes;
    void *state;
    /* Before each row: the rung about to run (-1: the vendor). */
    void (*pin)(bench_run *run, void *state, int rung);
    bench_fn prepare, run, vendor;
    cupat_status (*check)(bench_run *, void *, int, bench_check *);
    const char *vendor_name, *vendor_technique;
    int cap_book; /* skip scan's one-block rungs above BOOK_MAX_N */
} ladder;

static cupat_status run_ladder(bench_run *run, const ladder *L)
{
    const cupat_variant_info *v;
    size_t nv;
    CUPAT_TRY(cupat_variants(L->pattern, &v, &nv));
    bench_table *t = bench_table_begin(run, L->pattern, L->title, L->label, L->bytes, 0,
                                       BENCH_BOUND_COPY);
    if (!t) return CUPAT_ERROR_OUT_OF_MEMORY;
    const char *only = run->opt.variant && strcmp(run->opt.variant, "all") ? run->opt.variant
                                                                          : NULL;
    int skipped = 0;
    for (size_t i = 0; i < nv; i++) {
        if (v[i].backend != run->backend || (only && strcmp(only, v[i].name))) continue;
        if (L->cap_book && !only && (int)i <= SR_COARSENED && L->n > BOOK_MAX_N) {
            skipped = 1;
            continue;
        }
        bench_progress(run, "bench %s %s %s: %s", L->pattern, L->title, L->label, v[i].name);
        bench_row *row = bench_table_add(run, t, v[i].name, BENCH_ROW_RUNG);
        if (!row) return CUPAT_ERROR_OUT_OF_MEMORY;
        row->technique = v[i].technique;
        row->source = v[i].source;
        row->is_default = v[i].is_default;
        L->pin(run, L->state, (int)i);
        if (cupat_set_variant(run->ctx, L->pattern, v[i].name)) {
            row->verdict = BENCH_ERROR;
            snprintf(row->message, sizeof row->message, "%s", cupat_last_error(run->ctx));
        } else {
            bench_measure(run, t, row, L->run, L->prepare, L->check, 1, L->state);
        }
    }
    cupat_set_variant(run->ctx, L->pattern, NULL);
    if (gpu(run) && L->vendor) {
        bench_progress(run, "bench %s %s %s: %s", L->pattern, L->title, L->label,
                       L->vendor_name);
        bench_row *row = bench_table_add(run, t, L->vendor_name, BENCH_ROW_VENDOR);
        if (!row) return CUPAT_ERROR_OUT_OF_MEMORY;
        row->technique = L->vendor_technique;
        L->pin(run, L->state, -1);
        bench_measure(run, t, row, L->vendor, L->prepare, L->check, 0, L->state);
    }
    bench_progress(run, "bench %s %s %s: copy", L->pattern, L->title, L->label);
    CUPAT_TRY(bench_add_copy_row(run, t));
    if (skipped)
        t->note = "kogge_stone, kogge_stone_db, brent_kung, coarsened (one block walks the "
                  "whole array): measured at n <= 2^22 only (the 2^22 table, --n 2^22; "
                  "--variant NAME runs one at any n)";
    bench_table_end(run, t);
    return CUPAT_SUCCESS;
}

/* -------------------------------------------------------------- scan -- */

typedef struct scan_state {
    cupat_type type;
    cupat_op op;
    int exclusive;
    size_t n;
    void *x, *y;
    void *temp; /* CUB's temporary storage */
    size_t temp_bytes;
    /* reference at k CHUNK: op over x[0, k CHUNK) (integers, in 64 bits);
     * the exact f32 sum and the sum of |x| */
    size_t nb;
    uint64_t *ipre;
    double *fpre, *apre;
    int strict;
    size_t depth; /* the pinned rung's summation depth (f32 sum) */
} scan_state;

static int is_signed(cupat_type t)
{
    return t == CUPAT_I32 || t == CUPAT_I64;
}

/* Integer inputs as 64 bits (i32 sign-extended): sums wrap and the low
 * bytes are the element; max / min compare in the element's signedness. */
static uint64_t ival(cupat_type t, size_t i)
{
    switch (t) {
    case CUPAT_U32: return bscan_u32(i);
    case CUPAT_I32: return (uint64_t)(int64_t)bscan_i32(i);
    default: return bscan_u64(i);
    }
}

static uint64_t iidentity(cupat_type t, cupat_op op)
{
    if (op == CUPAT_OP_SUM) return 0;
    int lo = op == CUPAT_OP_MAX;
    switch (t) {
    case CUPAT_I32: return (uint64_t)(int64_t)(lo ? INT32_MIN : INT32_MAX);
    case CUPAT_U32: return lo ? 0 : UINT32_MAX;
    case CUPAT_I64: return (uint64_t)(lo ? INT64_MIN : INT64_MAX);
    default: return lo ? 0 : UINT64_MAX;
    }
}

static uint64_t icombine(cupat_type t, cupat_op op, uint64_t a, uint64_t b)
{
    if (op == CUPAT_OP_SUM) return a + b;
    int a_gt = is_signed(t) ? (int64_t)a > (int64_t)b : a > b;
    return (op == CUPAT_OP_MAX) == a_gt ? a : b;
}

static void scan_free_ref(scan_state *st)
{
    free(st->ipre);
    free(st->fpre);
    free(st->apre);
    st->ipre = NULL;
    st->fpre = st->apre = NULL;
}

static cupat_status scan_reference(bench_run *run, scan_state *st)
{
    const size_t n = st->n, nb = (n + CHUNK - 1) / CHUNK;
    const int f32 = st->type == CUPAT_F32;
    st->nb = nb;
    if (f32) {
        st->fpre = malloc((nb + 1) * sizeof *st->fpre);
        st->apre = malloc((nb + 1) * sizeof *st->apre);
    } else {
        st->ipre = malloc((nb + 1) * sizeof *st->ipre);
    }
    if (f32 ? !st->fpre || !st->apre : !st->ipre) {
        scan_free_ref(st);
        return bench_fail(run, CUPAT_ERROR_OUT_OF_MEMORY, "bench: out of host memory");
    }
    const uint64_t id = iidentity(st->type, st->op);
#pragma omp parallel for schedule(dynamic, 16)
    for (size_t k = 0; k < nb; k++) {
        size_t a = k * CHUNK, b = a + CHUNK < n ? a + CHUNK : n;
        if (f32) {
            double s = 0, ab = 0;
            for (size_t i = a; i < b; i++) {
                float v = bscan_f32(i);
                s += v;
                ab += fabsf(v);
            }
            st->fpre[k + 1] = s;
            st->apre[k + 1] = ab;
        } else {
            uint64_t acc = id;
            for (size_t i = a; i < b; i++) acc = icombine(st->type, st->op, acc, ival(st->type, i));
            st->ipre[k + 1] = acc;
        }
    }
    if (f32) {
        st->fpre[0] = st->apre[0] = 0;
        for (size_t k = 1; k <= nb; k++) {
            st->fpre[k] += st->fpre[k - 1];
            st->apre[k] += st->apre[k - 1];
        }
    } else {
        st->ipre[0] = id;
        for (size_t k = 1; k <= nb; k++)
            st->ipre[k] = icombine(st->type, st->op, st->ipre[k - 1], st->ipre[k]);
    }
    return CUPAT_SUCCESS;
}

static void scan_expect_int(void *p, size_t start, size_t len, void *out)
{
    const scan_state *st = p;
    const size_t es = cupat_type_size(st->type);
    uint64_t acc = st->ipre[start / CHUNK];
    unsigned char *o = out;
    for (size_t j = 0; j < len; j++) {
        uint64_t v = ival(st->type, start + j);
        if (!st->exclusive) acc = icombine(st->type, st->op, acc, v);
        memcpy(o + j * es, &acc, es); /* the low bytes: little-endian hosts */
        if (st->exclusive) acc = icombine(st->type, st->op, acc, v);
    }
}

static void scan_expect_f32(void *p, size_t start, size_t len, double *e, double *tol)
{
    const scan_state *st = p;
    const size_t k = start / CHUNK;
    double s = st->fpre[k], a = st->apre[k], g = gamma_((double)st->depth);
    for (size_t j = 0; j < len; j++) {
        size_t i = start + j;
        float v = bscan_f32(i);
        if (!st->exclusive) s += v, a += fabsf(v);
        /* i + 1 terms: no order of them is deeper than that (the vendor
         * promises no order: that bound alone) */
        double gi = st->strict && (double)st->depth < (double)i + 1 ? g : gamma_((double)i + 1);
        e[j] = s;
        tol[j] = gi * a + ref_slack(st->n, a);
        if (st->exclusive) s += v, a += fabsf(v);
    }
}

static void scan_pin(bench_run *run, void *p, int rung)
{
    scan_state *st = p;
    st->depth = rung >= 0 && st->type == CUPAT_F32
                    ? cupat__scan_depth(run->ctx, rung, st->type, st->n)
                    : st->n;
}

static cupat_status scan_poison(bench_run *run, void *p)
{
    scan_state *st = p; /* all-ones: NaN for f32 */
    return cupat_memset(run->ctx, st->y, 0xFF, st->n * cupat_type_size(st->type));
}

static cupat_status scan_run(bench_run *run, void *p)
{
    scan_state *st = p;
    return cupat_scan(run->ctx, st->type, st->op,
                      st->exclusive ? CUPAT_SCAN_EXCLUSIVE : CUPAT_SCAN_INCLUSIVE, st->n, st->x,
                      st->y);
}

static cupat_status scan_cub(bench_run *run, void *p)
{
    scan_state *st = p;
    return bench_cuda_status(run,
                             bench_cub_scan(st->type, st->op, st->exclusive, st->x, st->y, st->n,
                                            st->temp, &st->temp_bytes,
                                            cupat_get_stream(run->ctx)),
                             "cub::DeviceScan");
}

static cupat_status scan_check(bench_run *run, void *p, int strict, bench_check *chk)
{
    scan_state *st = p;
    st->strict = strict;
    if (st->type == CUPAT_F32)
        return bench_verify_f32(run, st->y, st->n, CHUNK, scan_expect_f32, st, chk);
    return verify_exact(run, st->y, st->type, st->n, scan_expect_int, st, chk);
}

static const struct scan_kind {
    const char *title;
    cupat_type type;
    cupat_op op;
    int exclusive;
    int log2n[3]; /* the GPU's default sizes, 0 ends */
} scan_kinds[] = {
    {"u32 exclusive sum", CUPAT_U32, CUPAT_OP_SUM, 1, {BOOK_LOG2, 24, 28}},
    {"f32 inclusive sum", CUPAT_F32, CUPAT_OP_SUM, 0, {24, 28, 0}},
    {"i32 inclusive max", CUPAT_I32, CUPAT_OP_MAX, 0, {28, 0, 0}},
    {"u64 exclusive sum", CUPAT_U64, CUPAT_OP_SUM, 1, {27, 0, 0}},
};
#define NKINDS(a) (sizeof a / sizeof a[0])

/* The sizes of kind k: --n, 2^24 on the CPU, else the GPU's list. */
static size_t scan_sizes(const bench_run *run, const bench_size *size, size_t k, size_t *out)
{
    if (size && size->n) return out[0] = size->n, 1;
    if (!gpu(run)) return out[0] = (size_t)1 << 24, 1;
    size_t m = 0;
    for (int j = 0; j < 3 && scan_kinds[k].log2n[j]; j++) out[m++] = (size_t)1 << scan_kinds[k].log2n[j];
    return m;
}

static cupat_status scan_table(bench_run *run, scan_state *st, const struct scan_kind *kind,
                               size_t n)
{
    st->type = kind->type;
    st->op = kind->op;
    st->exclusive = kind->exclusive;
    st->n = n;
    switch (kind->type) {
    case CUPAT_F32: CUPAT_TRY(bench_fill_f32(run, st->x, n, BSCAN_SEED_X, -1.0f, 2.0f)); break;
    case CUPAT_I32: CUPAT_TRY(fill_gen(run, BSCAN_GEN_I32, st->x, n)); break;
    case CUPAT_U64: CUPAT_TRY(fill_gen(run, BSCAN_GEN_U64, st->x, n)); break;
    default: CUPAT_TRY(fill_gen(run, BSCAN_GEN_U32, st->x, n)); break;
    }
    if (gpu(run)) {
        size_t b = 0;
        CUPAT_TRY(bench_cuda_status(run,
                                    bench_cub_scan(st->type, st->op, st->exclusive, st->x, st->y,
                                                   n, NULL, &b, cupat_get_stream(run->ctx)),
                                    "cub::DeviceScan (temporary storage size)"));
        CUPAT_TRY(grow_temp(run, &st->temp, &st->temp_bytes, b));
    }
    char cnt[32];
    bench_progress(run, "bench scan %s n=%s: host reference", kind->title,
                   bench_fmt_count(cnt, sizeof cnt, n));
    CUPAT_TRY(scan_reference(run, st));
    ladder L;
    memset(&L, 0, sizeof L);
    L.pattern = "scan";
    L.title = kind->title;
    snprintf(L.label, sizeof L.label, "n=%s, x read once, y written once", cnt);
    L.n = n;
    L.bytes = 2.0 * (double)n * (double)cupat_type_size(st->type);
    L.state = st;
    L.pin = scan_pin;
    L.prepare = scan_poison;
    L.run = scan_run;
    L.check = scan_check;
    L.vendor = scan_cub;
    L.vendor_name = kind->op != CUPAT_OP_SUM ? (kind->exclusive ? "cub::DeviceScan::ExclusiveScan"
                                                                : "cub::DeviceScan::InclusiveScan")
                    : kind->exclusive ? "cub::DeviceScan::ExclusiveSum"
                                      : "cub::DeviceScan::InclusiveSum";
    L.vendor_technique = kind->op == CUPAT_OP_SUM
                             ? "vendor baseline, same inputs"
                             : "vendor baseline, same inputs (cuda::maximum / cuda::minimum)";
    L.cap_book = 1;
    cupat_status s = run_ladder(run, &L);
    scan_free_ref(st);
    return s;
}

cupat_status bench_scan_cases(bench_run *run, const bench_size *size)
{
    scan_state st;
    memset(&st, 0, sizeof st);
    size_t most = 0, sizes[3];
    for (size_t k = 0; k < NKINDS(scan_kinds); k++) {
        size_t m = scan_sizes(run, size, k, sizes);
        for (size_t j = 0; j < m; j++) {
            size_t b;
            if (__builtin_mul_overflow(sizes[j], cupat_type_size(scan_kinds[k].type), &b))
                return bench_fail(run, CUPAT_ERROR_SIZE, "bench scan: n = %zu is too large",
                                  sizes[j]);
            if (b > most) most = b;
        }
    }
    cupat_status s = cupat_malloc(run->ctx, &st.x, most);
    if (!s) s = cupat_malloc(run->ctx, &st.y, most);
    for (size_t k = 0; !s && k < NKINDS(scan_kinds); k++) {
        size_t m = scan_sizes(run, size, k, sizes);
        for (size_t j = 0; !s && j < m; j++) s = scan_table(run, &st, &scan_kinds[k], sizes[j]);
    }
    cupat_sync(run->ctx);
    cupat_free(run->ctx, st.x);
    cupat_free(run->ctx, st.y);
    cupat_free(run->ctx, st.temp);
    return s;
}

/* ----------------------------------------------------------- segscan -- */

typedef struct seg_state {
    int by_key; /* 1: u32 keys, u32 values, exclusive sum; 0: head flags, f32, inclusive sum */
    size_t n;
    uint32_t *keys;
    uint8_t *flags;
    void *x, *y;
    void *temp;
    size_t temp_bytes;
    /* reference at k CHUNK: the running sum entering the chunk (u32 in 64
     * bits, or the exact f32 sum), its sum of |x|, and how many elements of
     * the segment came before */
    size_t nb;
    uint64_t *icarry, *pos;
    double *fcarry, *acarry;
    int strict;
    size_t depth;
} seg_state;

static int seg_head(const seg_state *st, size_t i)
{
    if (i == 0) return 1;
    return st->by_key ? bscan_key(i) != bscan_key(i - 1) : bscan_head(i) != 0;
}

static void seg_free_ref(seg_state *st)
{
    free(st->icarry);
    free(st->pos);
    free(st->fcarry);
    free(st->acarry);
    st->icarry = st->pos = NULL;
    st->fcarry = st->acarry = NULL;
}

static cupat_status seg_reference(bench_run *run, seg_state *st)
{
    const size_t n = st->n, nb = (n + CHUNK - 1) / CHUNK;
    st->nb = nb;
    st->icarry = malloc((nb + 1) * sizeof *st->icarry);
    st->pos = malloc((nb + 1) * sizeof *st->pos);
    st->fcarry = malloc((nb + 1) * sizeof *st->fcarry);
    st->acarry = malloc((nb + 1) * sizeof *st->acarry);
    uint8_t *has = malloc(nb);
    if (!st->icarry || !st->pos || !st->fcarry || !st->acarry || !has) {
        free(has);
        seg_free_ref(st);
        return bench_fail(run, CUPAT_ERROR_OUT_OF_MEMORY, "bench: out of host memory");
    }
    /* Each chunk on its own from 0, restarting at its heads ... */
#pragma omp parallel for schedule(dynamic, 16)
    for (size_t k = 0; k < nb; k++) {
        size_t a = k * CHUNK, b = a + CHUNK < n ? a + CHUNK : n;
        uint64_t is = 0, cnt = 0;
        double fs = 0, ab = 0;
        int h = 0;
        for (size_t i = a; i < b; i++) {
            if (seg_head(st, i)) is = 0, fs = ab = 0, cnt = 0, h = 1;
            if (st->by_key) {
                is += bscan_u32(i);
            } else {
                float v = bscan_f32(i);
                fs += v;
                ab += fabsf(v);
            }
            cnt++;
        }
        st->icarry[k + 1] = is;
        st->fcarry[k + 1] = fs;
        st->acarry[k + 1] = ab;
        st->pos[k + 1] = cnt;
        has[k] = (uint8_t)h;
    }
    /* ... then the carries in order: a chunk with a head passes on its own tail. */
    st->icarry[0] = st->pos[0] = 0;
    st->fcarry[0] = st->acarry[0] = 0;
    for (size_t k = 0; k < nb; k++) {
        if (has[k]) continue;
        st->icarry[k + 1] += st->icarry[k];
        st->fcarry[k + 1] += st->fcarry[k];
        st->acarry[k + 1] += st->acarry[k];
        st->pos[k + 1] += st->pos[k];
    }
    free(has);
    return CUPAT_SUCCESS;
}

static void seg_expect_u32(void *p, size_t start, size_t len, void *out)
{
    const seg_state *st = p;
    uint32_t acc = (uint32_t)st->icarry[start / CHUNK], *o = out;
    for (size_t j = 0; j < len; j++) {
        size_t i = start + j;
        if (seg_head(st, i)) acc = 0;
        o[j] = acc; /* exclusive */
        acc += bscan_u32(i);
    }
}

static void seg_expect_f32(void *p, size_t start, size_t len, double *e, double *tol)
{
    const seg_state *st = p;
    const size_t k = start / CHUNK;
    double s = st->fcarry[k], a = st->acarry[k], g = gamma_((double)st->depth);
    uint64_t cnt = st->pos[k];
    for (size_t j = 0; j < len; j++) {
        size_t i = start + j;
        if (seg_head(st, i)) s = a = 0, cnt = 0;
        float v = bscan_f32(i);
        s += v; /* inclusive */
        a += fabsf(v);
        cnt++;
        e[j] = s;
        /* cnt terms: no order of them is deeper (the vendor: that bound alone) */
        double gi = st->strict && st->depth < cnt ? g : gamma_((double)cnt);
        tol[j] = gi * a + ref_slack(st->n, a);
    }
}

static void seg_pin(bench_run *run, void *p, int rung)
{
    seg_state *st = p;
    st->depth = rung >= 0 && !st->by_key ? cupat__segscan_depth(run->ctx, rung, CUPAT_F32, st->n)
                                         : st->n;
}

static cupat_status seg_poison(bench_run *run, void *p)
{
    seg_state *st = p;
    return cupat_memset(run->ctx, st->y, 0xFF, st->n * 4);
}

static cupat_status seg_run(bench_run *run, void *p)
{
    seg_state *st = p;
    if (st->by_key)
        return cupat_scan_by_key(run->ctx, CUPAT_U32, CUPAT_U32, CUPAT_OP_SUM,
                                 CUPAT_SCAN_EXCLUSIVE, st->n, st->keys, st->x, st->y);
    return cupat_scan_segmented(run->ctx, CUPAT_F32, CUPAT_OP_SUM, CUPAT_SCAN_INCLUSIVE, st->n,
                                st->flags, st->x, st->y);
}

static int seg_cub_call(seg_state *st, void *temp, size_t *bytes, cupat_stream s)
{
    if (st->by_key)
        return bench_cub_sum_by_key_u32(st->keys, st->x, st->y, st->n, temp, bytes, s);
    return bench_cub_segsum_flags_f32(st->flags, st->x, st->y, st->n, temp, bytes, s);
}

static cupat_status seg_cub(bench_run *run, void *p)
{
    seg_state *st = p;
    return bench_cuda_status(
        run, seg_cub_call(st, st->temp, &st->temp_bytes, cupat_get_stream(run->ctx)),
        st->by_key ? "cub::DeviceScan::ExclusiveSumByKey" : "cub::DeviceScan::InclusiveScan");
}

static cupat_status seg_check(bench_run *run, void *p, int strict, bench_check *chk)
{
    seg_state *st = p;
    st->strict = strict;
    if (st->by_key) return verify_exact(run, st->y, CUPAT_U32, st->n, seg_expect_u32, st, chk);
    return bench_verify_f32(run, st->y, st->n, CHUNK, seg_expect_f32, st, chk);
}

static cupat_status seg_table(bench_run *run, seg_state *st, int by_key)
{
    const size_t n = st->n;
    st->by_key = by_key;
    if (by_key) {
        CUPAT_TRY(fill_gen(run, BSCAN_GEN_KEY, st->keys, n));
        CUPAT_TRY(fill_gen(run, BSCAN_GEN_U32, st->x, n));
    } else {
        CUPAT_TRY(fill_gen(run, BSCAN_GEN_HEAD, st->flags, n));
        CUPAT_TRY(bench_fill_f32(run, st->x, n, BSCAN_SEED_X, -1.0f, 2.0f));
    }
    if (gpu(run)) {
        size_t b = 0;
        CUPAT_TRY(bench_cuda_status(run, seg_cub_call(st, NULL, &b, cupat_get_stream(run->ctx)),
                                    "CUB scan by key (temporary storage size)"));
        CUPAT_TRY(grow_temp(run, &st->temp, &st->temp_bytes, b));
    }
    char cnt[32];
    bench_fmt_count(cnt, sizeof cnt, n);
    bench_progress(run, "bench segscan n=%s: host reference", cnt);
    CUPAT_TRY(seg_reference(run, st));
    ladder L;
    memset(&L, 0, sizeof L);
    L.pattern = "segscan";
    L.n = n;
    L.state = st;
    L.pin = seg_pin;
    L.prepare = seg_poison;
    L.run = seg_run;
    L.check = seg_check;
    L.vendor = seg_cub;
    if (by_key) {
        L.title = "u32 exclusive sum by u32 key";
        snprintf(L.label, sizeof L.label, "n=%s, runs of %d keys; keys, x read, y written", cnt,
                 BSCAN_KEY_RUN);
        L.bytes = 12.0 * (double)n;
        L.vendor_name = "cub::DeviceScan::ExclusiveSumByKey";
        L.vendor_technique = "vendor baseline, same inputs";
    } else {
        L.title = "f32 inclusive sum, head flags";
        snprintf(L.label, sizeof L.label, "n=%s, 1 head in %d; flags, x read, y written", cnt,
                 BSCAN_HEAD_EVERY);
        L.bytes = 9.0 * (double)n;
        L.vendor_name = "cub::DeviceScan::InclusiveScan";
        L.vendor_technique = "vendor baseline, same inputs: CUB has no head-flag scan; a scan "
                             "of (flag, value) pairs under the segmented operator";
    }
    cupat_status s = run_ladder(run, &L);
    seg_free_ref(st);
    return s;
}

/* Default 2^28 on the GPU, 2^24 on the CPU. */
cupat_status bench_segscan_cases(bench_run *run, const bench_size *size)
{
    seg_state st;
    memset(&st, 0, sizeof st);
    st.n = size && size->n ? size->n : gpu(run) ? (size_t)1 << 28 : (size_t)1 << 24;
    size_t b;
    if (__builtin_mul_overflow(st.n, (size_t)4, &b))
        return bench_fail(run, CUPAT_ERROR_SIZE, "bench segscan: n = %zu is too large", st.n);
    cupat_status s = cupat_malloc(run->ctx, (void **)&st.keys, b);
    if (!s) s = cupat_malloc(run->ctx, (void **)&st.flags, st.n);
    if (!s) s = cupat_malloc(run->ctx, &st.x, b);
    if (!s) s = cupat_malloc(run->ctx, &st.y, b);
    if (!s) s = seg_table(run, &st, 1);
    if (!s) s = seg_table(run, &st, 0);
    cupat_sync(run->ctx);
    cupat_free(run->ctx, st.keys);
    cupat_free(run->ctx, st.flags);
    cupat_free(run->ctx, st.x);
    cupat_free(run->ctx, st.y);
    cupat_free(run->ctx, st.temp);
    return s;
}

/* ------------------------------------------------------------ select -- */

enum { SEL_FLAGS, SEL_PRED, SEL_PARTITION, SEL_UNIQUE };

typedef struct sel_state {
    int mode;
    size_t n;
    void *x, *y;
    uint8_t *flags;
    uint64_t *count;
    void *temp;
    size_t temp_bytes;
    /* reference: elements kept before k CHUNK, and in all */
    size_t nb;
    uint64_t *kcum, kept;
    int strict;
} sel_state;

/* f32 select: x < 0, the median of inputs uniform on [-1, 1) (exactly half
 * of the grid's values are negative). */
#define SEL_PIVOT 0.0f

static int sel_keep(const sel_state *st, size_t i)
{
    switch (st->mode) {
    case SEL_PRED: return bscan_f32(i) < SEL_PIVOT;
    case SEL_UNIQUE: return i == 0 || bscan_uniq(i) != bscan_uniq(i - 1);
    default: return bscan_flag50(i) != 0;
    }
}

static uint32_t sel_value(const sel_state *st, size_t i)
{
    switch (st->mode) {
    case SEL_PRED: return f32_bits(bscan_f32(i));
    case SEL_UNIQUE: return bscan_uniq(i);
    default: return bscan_u32(i);
    }
}

static cupat_status sel_reference(bench_run *run, sel_state *st)
{
    const size_t n = st->n, nb = (n + CHUNK - 1) / CHUNK;
    st->nb = nb;
    st->kcum = malloc((nb + 1) * sizeof *st->kcum);
    if (!st->kcum) return bench_fail(run, CUPAT_ERROR_OUT_OF_MEMORY, "bench: out of host memory");
#pragma omp parallel for schedule(dynamic, 16)
    for (size_t k = 0; k < nb; k++) {
        size_t a = k * CHUNK, b = a + CHUNK < n ? a + CHUNK : n;
        uint64_t c = 0;
        for (size_t i = a; i < b; i++) c += (uint64_t)sel_keep(st, i);
        st->kcum[k + 1] = c;
    }
    st->kcum[0] = 0;
    for (size_t k = 1; k <= nb; k++) st->kcum[k] += st->kcum[k - 1];
    st->kept = st->kcum[nb];
    return CUPAT_SUCCESS;
}

/* Elements before chunk k with keep == want. */
static uint64_t sel_before(const sel_state *st, int want, size_t k)
{
    return want ? st->kcum[k] : (uint64_t)(k * CHUNK) - st->kcum[k];
}

/* Values of the elements with keep == want of ranks [r0, r0 + len), in order. */
static void sel_ranked(const sel_state *st, int want, uint64_t r0, size_t len, uint32_t *out)
{
    size_t lo = 0, hi = st->nb; /* the last chunk starting at rank <= r0 */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (sel_before(st, want, mid) <= r0) lo = mid;
        else hi = mid;
    }
    uint64_t r = sel_before(st, want, lo);
    size_t j = 0;
    for (size_t i = lo * CHUNK; j < len && i < st->n; i++) {
        if (sel_keep(st, i) != want) continue;
        if (r++ >= r0) out[j++] = sel_value(st, i);
    }
    for (; j < len; j++) out[j] = 0xDEADBEEFu; /* past the end: cannot happen */
}

static void sel_expect(void *p, size_t start, size_t len, void *out)
{
    const sel_state *st = p;
    uint32_t *o = out;
    size_t nk = start < st->kept ? (st->kept - start < len ? (size_t)(st->kept - start) : len) : 0;
    if (nk) sel_ranked(st, 1, start, nk, o);
    if (nk == len) return;
    /* partition: the rejected elements, in order (cupat) or reversed (CUB) */
    uint64_t q = start + nk - st->kept, m = len - nk;
    if (st->strict) {
        sel_ranked(st, 0, q, m, o + nk);
        return;
    }
    uint64_t rejected = st->n - st->kept;
    sel_ranked(st, 0, rejected - q - m, m, o + nk);
    for (size_t a = nk, b = len - 1; a < b; a++, b--) {
        uint32_t t = o[a];
        o[a] = o[b];
        o[b] = t;
    }
}

static cupat_status sel_poison(bench_run *run, void *p)
{
    sel_state *st = p;
    CUPAT_TRY(cupat_memset(run->ctx, st->count, 0xFF, 8));
    return cupat_memset(run->ctx, st->y, 0xFF, st->n * 4);
}

static cupat_status sel_run(bench_run *run, void *p)
{
    sel_state *st = p;
    cupat_predicate pred;
    memset(&pred, 0, sizeof pred);
    pred.kind = CUPAT_PRED_LESS;
    pred.a.f32 = SEL_PIVOT;
    switch (st->mode) {
    case SEL_FLAGS:
        return cupat_select(run->ctx, CUPAT_U32, st->n, st->x, st->flags, NULL, st->y, st->count);
    case SEL_PRED:
        return cupat_select(run->ctx, CUPAT_F32, st->n, st->x, NULL, &pred, st->y, st->count);
    case SEL_PARTITION:
        return cupat_partition(run->ctx, CUPAT_U32, st->n, st->x, st->flags, NULL, st->y,
                               st->count);
    default: return cupat_unique(run->ctx, CUPAT_U32, st->n, st->x, st->y, st->count);
    }
}

static const char *const sel_cub_name[] = {
    [SEL_FLAGS] = "cub::DeviceSelect::Flagged",
    [SEL_PRED] = "cub::DeviceSelect::If",
    [SEL_PARTITION] = "cub::DevicePartition::Flagged",
    [SEL_UNIQUE] = "cub::DeviceSelect::Unique",
};

static int sel_cub_call(sel_state *st, void *temp, size_t *bytes, cupat_stream s)
{
    switch (st->mode) {
    case SEL_FLAGS:
        return bench_cub_select_flagged_u32(st->x, st->flags, st->y, st->count, st->n, temp,
                                            bytes, s);
    case SEL_PRED:
        return bench_cub_select_less_f32(st->x, SEL_PIVOT, st->y, st->count, st->n, temp, bytes,
                                         s);
    case SEL_PARTITION:
        return bench_cub_partition_flagged_u32(st->x, st->flags, st->y, st->count, st->n, temp,
                                               bytes, s);
    default: return bench_cub_unique_u32(st->x, st->y, st->count, st->n, temp, bytes, s);
    }
}

static cupat_status sel_cub(bench_run *run, void *p)
{
    sel_state *st = p;
    return bench_cuda_status(
        run, sel_cub_call(st, st->temp, &st->temp_bytes, cupat_get_stream(run->ctx)),
        sel_cub_name[st->mode]);
}

static cupat_status sel_check(bench_run *run, void *p, int strict, bench_check *chk)
{
    sel_state *st = p;
    uint64_t got = 0;
    st->strict = strict;
    CUPAT_TRY(cupat_memcpy(run->ctx, &got, st->count, 8));
    CUPAT_TRY(cupat_sync(run->ctx));
    chk->checked++;
    if (got != st->kept) {
        chk->wrong++;
        snprintf(chk->msg, sizeof chk->msg, "count %llu, expected %llu",
                 (unsigned long long)got, (unsigned long long)st->kept);
    }
    size_t m = st->mode == SEL_PARTITION ? st->n : (size_t)st->kept;
    return verify_exact(run, st->y, st->mode == SEL_PRED ? CUPAT_F32 : CUPAT_U32, m, sel_expect,
                        st, chk);
}

static void sel_pin(bench_run *run, void *p, int rung)
{
    (void)run;
    (void)p;
    (void)rung;
}

static const struct sel_kind {
    const char *title;
    int mode;
} sel_kinds[] = {
    {"u32 select by flags", SEL_FLAGS},
    {"f32 select x < 0", SEL_PRED},
    {"u32 partition by flags", SEL_PARTITION},
    {"u32 unique", SEL_UNIQUE},
};

static cupat_status sel_table(bench_run *run, sel_state *st, const struct sel_kind *kind)
{
    const size_t n = st->n;
    const double dn = (double)n;
    st->mode = kind->mode;
    switch (kind->mode) {
    case SEL_PRED: CUPAT_TRY(bench_fill_f32(run, st->x, n, BSCAN_SEED_X, -1.0f, 2.0f)); break;
    case SEL_UNIQUE: CUPAT_TRY(fill_gen(run, BSCAN_GEN_UNIQ, st->x, n)); break;
    default: CUPAT_TRY(fill_gen(run, BSCAN_GEN_U32, st->x, n)); break;
    }
    if (gpu(run)) {
        size_t b = 0;
        CUPAT_TRY(bench_cuda_status(run, sel_cub_call(st, NULL, &b, cupat_get_stream(run->ctx)),
                                    "CUB select (temporary storage size)"));
        CUPAT_TRY(grow_temp(run, &st->temp, &st->temp_bytes, b));
    }
    char cnt[32];
    bench_fmt_count(cnt, sizeof cnt, n);
    bench_progress(run, "bench select %s n=%s: host reference", kind->title, cnt);
    CUPAT_TRY(sel_reference(run, st));
    const double kept = (double)st->kept, pct = 100.0 * kept / dn;
    ladder L;
    memset(&L, 0, sizeof L);
    L.pattern = "select";
    L.title = kind->title;
    L.n = n;
    L.state = st;
    L.pin = sel_pin;
    L.prepare = sel_poison;
    L.run = sel_run;
    L.check = sel_check;
    L.vendor = sel_cub;
    L.vendor_name = sel_cub_name[kind->mode];
    L.vendor_technique = kind->mode == SEL_PARTITION
                             ? "vendor baseline, same inputs (rejected part written in reverse)"
                             : "vendor baseline, same inputs";
    switch (kind->mode) {
    case SEL_FLAGS:
        snprintf(L.label, sizeof L.label, "n=%s, %.1f%% kept; x, flags read, kept written", cnt,
                 pct);
        L.bytes = 5 * dn + 4 * kept + 8;
        break;
    case SEL_PRED:
        snprintf(L.label, sizeof L.label, "n=%s, %.1f%% kept; x read, kept written", cnt, pct);
        L.bytes = 4 * dn + 4 * kept + 8;
        break;
    case SEL_PARTITION:
        snprintf(L.label, sizeof L.label, "n=%s, %.1f%% first; x, flags read, all written", cnt,
                 pct);
        L.bytes = 9 * dn + 8;
        break;
    default:
        snprintf(L.label, sizeof L.label, "n=%s, runs of 1..%d, %.1f%% kept; x read, kept written",
                 cnt, BSCAN_UNIQ_MAX_RUN, pct);
        L.bytes = 4 * dn + 4 * kept + 8;
        break;
    }
    cupat_status s = run_ladder(run, &L);
    free(st->kcum);
    st->kcum = NULL;
    return s;
}

/* Default 2^28 on the GPU, 2^24 on the CPU. */
cupat_status bench_select_cases(bench_run *run, const bench_size *size)
{
    sel_state st;
    memset(&st, 0, sizeof st);
    st.n = size && size->n ? size->n : gpu(run) ? (size_t)1 << 28 : (size_t)1 << 24;
    size_t b;
    if (__builtin_mul_overflow(st.n, (size_t)4, &b))
        return bench_fail(run, CUPAT_ERROR_SIZE, "bench select: n = %zu is too large", st.n);
    cupat_status s = cupat_malloc(run->ctx, &st.x, b);
    if (!s) s = cupat_malloc(run->ctx, (void **)&st.flags, st.n);
    if (!s) s = cupat_malloc(run->ctx, &st.y, b);
    if (!s) s = cupat_malloc(run->ctx, (void **)&st.count, 256);
    if (!s) s = fill_gen(run, BSCAN_GEN_FLAG50, st.flags, st.n);
    for (size_t k = 0; !s && k < NKINDS(sel_kinds); k++) s = sel_table(run, &st, &sel_kinds[k]);
    cupat_sync(run->ctx);
    cupat_free(run->ctx, st.x);
    cupat_free(run->ctx, st.flags);
    cupat_free(run->ctx, st.y);
    cupat_free(run->ctx, st.count);
    cupat_free(run->ctx, st.temp);
    return s;
}
