/* SPDX-License-Identifier: Apache-2.0 */
/* bench_reduce.c — the reduction ladder (PCCP 3.4-3.6, 5.3, 5.6; PMPP 10; the
 * lecture; then beyond the books) at 2^16, 2^20, 2^24 and 2^28 elements,
 * against cub::DeviceReduce in the same run; and the dot product against
 * cuBLAS (`cupat bench dot`, its own pattern). At n <= LAUNCH_FLOOR_MAX_N
 * (latency-bound: issue 22) each table ends with the launch-floor rows.
 *
 * f32 sum runs the whole ladder; i32 sum, f32 max and f32 argmax run the
 * rungs beyond the books (the ones that can beat CUB). The recursive rungs
 * (dynamic parallelism) launch ~n/512 x 8 grids: they run at n <= 2^24 only
 * (the library refuses more). CUPAT_BENCH_REDUCE_SWEEP (below) adds rows
 * for the configurations of even_share.
 * Every checked call must lie within its rung's a-priori error bound. */
#include "harness.h"

#include "internal.h"
#include "reduce/reduce_priv.h"

#include <cublas_v2.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* vendor_reduce.cu: cub::DeviceReduce; returns a cudaError_t. temp == NULL
 * asks for *temp_bytes. */
int bench_cub_reduce(cupat_type t, cupat_op op, const void *x, size_t n, void *out, void *temp,
                     size_t *temp_bytes, cupat_stream s);

enum { SEED_X = 41, SEED_Y = 42 };
#define CDP_MAX_N CUPAT_REDUCE_CDP_MAX_N
/* Up to here a call reads at most 8 MiB (dot): a few microseconds of DRAM
 * time, the same order as one launch. */
#define LAUNCH_FLOOR_MAX_N ((size_t)1 << 20)

/* CUPAT_BENCH_REDUCE_SWEEP=1: after the ladder of f32 sum, i32 sum and f32
 * max, time even_share in more configurations (grid: sub 0 = one tile per
 * block, else sub x resident; block; 16-byte loads in flight per thread;
 * cache hint), one row each, named "es s<sub> b<block> l<loads> h<hint>".
 * CUPAT_BENCH_REDUCE_SWEEP=full: every combination (sub 0, 1, 2, 4 x block x
 * loads x hint: 32 rows); otherwise each knob moved alone from sub 0, and
 * sub 1, 2, 4, 16. The library's configuration is put back afterwards. */
static const reduce_even_cfg sweep_short[] = {
    {0, 4, 256, 0}, {1, 4, 256, 0}, {2, 4, 256, 0}, {4, 4, 256, 0}, {16, 4, 256, 0},
    {0, 8, 256, 0}, {0, 4, 512, 0}, {0, 4, 256, 1}, {0, 8, 256, 1}, {2, 4, 256, 1},
};

typedef struct red_state {
    size_t n;
    cupat_type type;
    cupat_op op;
    int dot;
    float *x, *y;  /* i32 cases read the f32 fill's bits */
    void *out;     /* 16 bytes */
    void *temp;    /* CUB's temporary storage */
    size_t temp_bytes;
    /* reference */
    double hi, lo, abs; /* float sum / dot: double-double and sum of |terms| */
    uint32_t isum;      /* i32 sum, mod 2^32 */
    float best;         /* max */
    size_t best_i;      /* argmax: first index */
    int rung;           /* the pinned rung (-1: vendor) */
} red_state;

static float in_x(size_t i) { return bench_rand_f32(SEED_X, i, -1.0f, 2.0f); }
static float in_y(size_t i) { return bench_rand_f32(SEED_Y, i, -1.0f, 2.0f); }

static uint32_t bits_of(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* The host reference, once per case: double-double sums per thread slice,
 * then the slices in order. */
static void reference(red_state *st)
{
    const size_t n = st->n;
    int nt = 1;
#pragma omp parallel
    {
#pragma omp single
        nt = omp_get_num_threads();
    }
    double *hi = calloc((size_t)nt, sizeof *hi), *lo = calloc((size_t)nt, sizeof *lo),
           *ab = calloc((size_t)nt, sizeof *ab);
    uint32_t *is = calloc((size_t)nt, sizeof *is);
    float *bv = malloc((size_t)nt * sizeof *bv);
    size_t *bi = calloc((size_t)nt, sizeof *bi);
#pragma omp parallel
    {
        int id = omp_get_thread_num();
        size_t a = n * (size_t)id / (size_t)nt, b = n * (size_t)(id + 1) / (size_t)nt;
        double h = 0, l = 0, s = 0;
        uint32_t isum = 0;
        float best = -INFINITY;
        size_t best_i = SIZE_MAX;
        for (size_t i = a; i < b; i++) {
            float xv = in_x(i);
            double t = st->dot ? (double)xv * (double)in_y(i) : (double)xv; /* exact */
            double u = h + t, bb = u - h;
            l += (h - (u - bb)) + (t - bb);
            h = u;
            s += fabs(t);
            isum += bits_of(xv);
            if (best_i == SIZE_MAX || xv > best) {
                best = xv;
                best_i = i;
            }
        }
        hi[id] = h;
        lo[id] = l;
        ab[id] = s;
        is[id] = isum;
        bv[id] = best;
        bi[id] = best_i;
    }
    st->hi = st->lo = st->abs = 0;
    st->isum = 0;
    st->best_i = SIZE_MAX;
    for (int k = 0; k < nt; k++) {
        double u = st->hi + hi[k], bb = u - st->hi;
        st->lo += (st->hi - (u - bb)) + (hi[k] - bb) + lo[k];
        st->hi = u;
        st->abs += ab[k];
        st->isum += is[k];
        if (bi[k] != SIZE_MAX && (st->best_i == SIZE_MAX || bv[k] > st->best)) {
            st->best = bv[k];
            st->best_i = bi[k];
        }
    }
    free(hi);
    free(lo);
    free(ab);
    free(is);
    free(bv);
    free(bi);
}

static double gamma_(size_t k)
{
    double ku = (double)k * 0x1p-24;
    return ku >= 1 ? INFINITY : ku / (1 - ku);
}

static cupat_status red_prepare(bench_run *run, void *p)
{
    red_state *st = p; /* all-ones bytes: NaN, index 2^64-1 */
    return cupat_memset(run->ctx, st->out, 0xFF, 16);
}

static cupat_status red_run(bench_run *run, void *p)
{
    red_state *st = p;
    if (st->dot) return cupat_dot(run->ctx, CUPAT_F32, st->n, st->x, st->y, st->out);
    return cupat_reduce(run->ctx, st->type, st->op, st->n, st->x, st->out);
}

static cupat_status red_cub(bench_run *run, void *p)
{
    red_state *st = p;
    return bench_cuda_status(run,
                             bench_cub_reduce(st->type, st->op, st->x, st->n, st->out, st->temp,
                                              &st->temp_bytes, cupat_get_stream(run->ctx)),
                             "cub::DeviceReduce");
}

/* cublasSdot with the result in device memory (no synchronization). */
static cupat_status dot_cublas(bench_run *run, void *p)
{
    red_state *st = p;
    void *h;
    CUPAT_TRY(bench_cublas(run, &h));
    cublasHandle_t hb = (cublasHandle_t)h;
    cublasPointerMode_t mode;
    CUPAT_TRY(bench_cublas_status(run, cublasGetPointerMode(hb, &mode), "cublasGetPointerMode"));
    CUPAT_TRY(bench_cublas_status(run, cublasSetPointerMode(hb, CUBLAS_POINTER_MODE_DEVICE),
                                  "cublasSetPointerMode"));
    cupat_status s = bench_cublas_status(
        run, cublasSdot_64(hb, (int64_t)st->n, st->x, 1, st->y, 1, (float *)st->out), "cublasSdot_64");
    cublasSetPointerMode(hb, mode);
    return s;
}

static cupat_status red_check(bench_run *run, void *p, int strict, bench_check *chk)
{
    red_state *st = p;
    unsigned char got[16];
    CUPAT_TRY(cupat_memcpy(run->ctx, got, st->out, 16));
    CUPAT_TRY(cupat_sync(run->ctx));
    chk->checked++;
    int ok = 1;
    if (st->type == CUPAT_I32 && st->op == CUPAT_OP_SUM) {
        uint32_t g;
        memcpy(&g, got, 4);
        ok = g == st->isum;
        if (!ok) snprintf(chk->msg, sizeof chk->msg, "i32 sum 0x%08x, want 0x%08x", g, st->isum);
    } else if (st->op == CUPAT_OP_SUM) {
        float g;
        memcpy(&g, got, 4);
        /* cupat: the rung's summation depth; the vendor promises no order, so
         * the bound of any order (depth n, often vacuous: then only NaN fails) */
        size_t depth = strict ? cupat__reduce_depth(run->ctx, st->dot, st->rung, CUPAT_F32, st->n)
                              : st->n;
        int comp = strict && (st->dot ? st->rung == DR_COMPENSATED ||
                                            st->rung == DR_CPU_COMPENSATED
                                      : st->rung == RR_COMPENSATED ||
                                            st->rung == RR_CPU_COMPENSATED);
        long double exact = (long double)st->hi + st->lo;
        double err = (double)fabsl((long double)g - exact);
        double g1 = gamma_(depth);
        double bound = comp ? 0x1p-24 * fabs((double)exact) + 2 * g1 * g1 * st->abs
                            : g1 * st->abs;
        bound += (double)st->n * 0x1p-100 * st->abs; /* the reference's own error */
        ok = !isnan(g) && err <= bound;
        if (!ok)
            snprintf(chk->msg, sizeof chk->msg, "sum %.9g: |error| %.3g > bound %.3g (depth %zu)",
                     g, err, bound, depth);
    } else {
        float g;
        uint64_t gi;
        memcpy(&g, got, 4);
        memcpy(&gi, got + 8, 8);
        ok = bits_of(g) == bits_of(st->best) && (st->op == CUPAT_OP_MAX || gi == st->best_i);
        if (!ok)
            snprintf(chk->msg, sizeof chk->msg, "got %.9g at %llu, want %.9g at %zu", g,
                     (unsigned long long)gi, st->best, st->best_i);
    }
    if (!ok) chk->wrong++;
    return CUPAT_SUCCESS;
}

static int is_cdp(int rung) { return rung >= RR_CDP_RECURSIVE && rung <= RR_CDP_RECURSIVE2; }

static void red_free(bench_run *run, void *p)
{
    red_state *st = p;
    cupat_sync(run->ctx);
    cupat_free(run->ctx, st->x);
    cupat_free(run->ctx, st->y);
    cupat_free(run->ctx, st->out);
    cupat_free(run->ctx, st->temp);
}

/* One table: the chosen rungs in ladder order, then the vendor row. */
static cupat_status run_table(bench_run *run, red_state *st, const char *title, int full_ladder)
{
    const char *pattern = st->dot ? "dot" : "reduce";
    const cupat_variant_info *v;
    size_t nv;
    CUPAT_TRY(cupat_variants(pattern, &v, &nv));
    char label[128], cnt[32];
    snprintf(label, sizeof label, "n=%s%s", bench_fmt_count(cnt, sizeof cnt, st->n),
             st->dot ? ", x and y read once" : ", read once");
    double bytes = (double)st->n * 4 * (st->dot ? 2 : 1);
    bench_table *t = bench_table_begin(run, pattern, title, label, bytes,
                                       (double)st->n * (st->dot ? 2 : 1), BENCH_BOUND_READ);
    if (!t) return CUPAT_ERROR_OUT_OF_MEMORY;
    const char *only = run->opt.variant && strcmp(run->opt.variant, "all") ? run->opt.variant : NULL;
    int skipped_cdp = 0;
    for (size_t i = 0; i < nv; i++) {
        if (v[i].backend != run->backend || (only && strcmp(only, v[i].name))) continue;
        int rung = (int)i;
        if (!st->dot && run->backend == CUPAT_BACKEND_CUDA && !full_ladder && rung < RR_VEC16)
            continue;
        if (!st->dot && is_cdp(rung) && st->n > CDP_MAX_N) {
            skipped_cdp = 1;
            continue;
        }
        bench_progress(run, "bench %s %s: %s", pattern, label, v[i].name);
        bench_row *row = bench_table_add(run, t, v[i].name, BENCH_ROW_RUNG);
        if (!row) return CUPAT_ERROR_OUT_OF_MEMORY;
        row->technique = v[i].technique;
        row->source = v[i].source;
        row->is_default = v[i].is_default; /* the JSON's "default" (bench-summary) */
        st->rung = rung;
        if (cupat_set_variant(run->ctx, pattern, v[i].name)) {
            row->verdict = BENCH_ERROR;
            snprintf(row->message, sizeof row->message, "%s", cupat_last_error(run->ctx));
        } else {
            bench_measure(run, t, row, red_run, red_prepare, red_check, 1, st);
        }
    }
    const char *sweep = getenv("CUPAT_BENCH_REDUCE_SWEEP");
    if (sweep && *sweep && strcmp(sweep, "0") != 0 && !st->dot && run->backend == CUPAT_BACKEND_CUDA &&
        (st->type == CUPAT_F32 || st->type == CUPAT_I32) && st->op != CUPAT_OP_ARGMAX &&
        (!only || !strcmp(only, "even_share"))) {
        reduce_even_cfg keep = cupat__reduce_even_get();
        reduce_even_cfg full[32];
        const reduce_even_cfg *cfgs = sweep_short;
        size_t ncfg = sizeof sweep_short / sizeof sweep_short[0];
        if (!strcmp(sweep, "full")) {
            for (int k = 0; k < 32; k++)
                full[k] = (reduce_even_cfg){(1 << (k >> 3)) >> 1, k & 4 ? 8 : 4, k & 2 ? 512 : 256, k & 1};
            cfgs = full;
            ncfg = 32;
        }
        CUPAT_TRY(cupat_set_variant(run->ctx, pattern, "even_share"));
        st->rung = RR_EVEN_SHARE;
        for (size_t k = 0; k < ncfg; k++) {
            char name[64];
            snprintf(name, sizeof name, "es s%d b%d l%d h%d", cfgs[k].sub, cfgs[k].block,
                     cfgs[k].loads, cfgs[k].hint);
            bench_progress(run, "bench %s %s: %s", pattern, label, name);
            bench_row *row = bench_table_add(run, t, name, BENCH_ROW_RUNG);
            if (!row) return CUPAT_ERROR_OUT_OF_MEMORY;
            row->technique = "even_share sweep: grid s0 one tile a block / s<k> k x resident; "
                             "block; 16-byte loads in flight; hint 0 ldg, 1 "
                             "L1::no_allocate.L2::256B";
            if (cupat__reduce_even_set(&cfgs[k]) != 0) {
                row->verdict = BENCH_ERROR;
                snprintf(row->message, sizeof row->message, "configuration refused");
                continue;
            }
            bench_measure(run, t, row, red_run, red_prepare, red_check, 1, st);
        }
        cupat__reduce_even_set(&keep);
    }
    cupat_set_variant(run->ctx, pattern, NULL);
    if (run->backend == CUPAT_BACKEND_CUDA && !only) {
        bench_row *row = bench_table_add(run, t, st->dot ? "cublasSdot" : "cub::DeviceReduce",
                                         BENCH_ROW_VENDOR);
        if (!row) return CUPAT_ERROR_OUT_OF_MEMORY;
        row->technique = "vendor baseline, same inputs";
        st->rung = -1;
        bench_progress(run, "bench %s %s: vendor", pattern, label);
        bench_measure(run, t, row, st->dot ? dot_cublas : red_cub, red_prepare, red_check, 0, st);
    }
    if (run->backend == CUPAT_BACKEND_CUDA && !only && st->n <= LAUNCH_FLOOR_MAX_N)
        CUPAT_TRY(bench_add_launch_rows(run, t));
    if (skipped_cdp)
        t->note = "cdp_* (dynamic parallelism): ~n/512 x 8 device launches, measured at n <= 2^24 only";
    bench_table_end(run, t);
    return CUPAT_SUCCESS;
}

/* The reduce tables (dot = 0) or the dot table (dot = 1) at n elements. */
static cupat_status one_size(bench_run *run, size_t n, int dot)
{
    red_state st;
    memset(&st, 0, sizeof st);
    st.n = n;
    cupat_ctx *ctx = run->ctx;
    cupat_status s = cupat_malloc(ctx, (void **)&st.x, n * sizeof(float));
    if (!s && dot) s = cupat_malloc(ctx, (void **)&st.y, n * sizeof(float));
    if (!s) s = cupat_malloc(ctx, &st.out, 16);
    if (!s) s = bench_fill_f32(run, st.x, n, SEED_X, -1.0f, 2.0f);
    if (!s && dot) s = bench_fill_f32(run, st.y, n, SEED_Y, -1.0f, 2.0f);
    if (!s && !dot && run->backend == CUPAT_BACKEND_CUDA) {
        /* CUB's temporary storage: the largest of the cases, allocated once */
        static const struct {
            cupat_type t;
            cupat_op op;
        } q[] = {{CUPAT_F32, CUPAT_OP_SUM}, {CUPAT_I32, CUPAT_OP_SUM}, {CUPAT_F32, CUPAT_OP_MAX},
                 {CUPAT_F32, CUPAT_OP_ARGMAX}};
        size_t most = 0;
        for (size_t k = 0; !s && k < sizeof q / sizeof q[0]; k++) {
            size_t b = 0;
            s = bench_cuda_status(run, bench_cub_reduce(q[k].t, q[k].op, st.x, n, st.out, NULL, &b, NULL),
                                  "cub::DeviceReduce (temporary storage size)");
            if (b > most) most = b;
        }
        st.temp_bytes = most;
        if (!s) s = cupat_malloc(ctx, &st.temp, most);
    }
    if (!s && dot) {
        bench_progress(run, "bench dot n=%zu: host reference", n);
        st.dot = 1;
        st.type = CUPAT_F32;
        st.op = CUPAT_OP_SUM;
        reference(&st); /* dot terms */
        s = run_table(run, &st, "f32 dot", 1);
    } else if (!s) {
        bench_progress(run, "bench reduce n=%zu: host reference", n);
        reference(&st);
        st.type = CUPAT_F32;
        st.op = CUPAT_OP_SUM;
        s = run_table(run, &st, "f32 sum", 1);
        if (!s) {
            st.type = CUPAT_I32;
            s = run_table(run, &st, "i32 sum", 0);
        }
        if (!s) {
            st.type = CUPAT_F32;
            st.op = CUPAT_OP_MAX;
            s = run_table(run, &st, "f32 max", 0);
        }
        if (!s) {
            st.op = CUPAT_OP_ARGMAX;
            s = run_table(run, &st, "f32 argmax", 0);
        }
    }
    return bench_finish(run, s, red_free, &st);
}

/* GPU: 2^16 and 2^20 (latency-bound; the inputs fit in the L2 but the flush
 * between calls evicts them), 2^24 and 2^28 (1 GiB of f32: DRAM-bound).
 * CPU: 2^24. */
static cupat_status sizes(bench_run *run, const bench_size *size, int dot)
{
    static const int gpu_log2[] = {16, 20, 24, 28};
    if (size && size->n) return one_size(run, size->n, dot);
    if (run->backend != CUPAT_BACKEND_CUDA) return one_size(run, (size_t)1 << 24, dot);
    for (size_t k = 0; k < sizeof gpu_log2 / sizeof gpu_log2[0]; k++)
        CUPAT_TRY(one_size(run, (size_t)1 << gpu_log2[k], dot));
    return CUPAT_SUCCESS;
}

cupat_status bench_reduce_cases(bench_run *run, const bench_size *size)
{
    return sizes(run, size, 0);
}

cupat_status bench_dot_cases(bench_run *run, const bench_size *size)
{
    return sizes(run, size, 1);
}
