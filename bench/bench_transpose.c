/* SPDX-License-Identifier: Apache-2.0 */
/* bench_transpose.c — the transpose ladder (lecture 10, PCCP 4.4 and 5.4, and
 * beyond) beside cublasSgeam/cublasDgeam (transpose mode), PCCP 4.4's copy
 * bounds (copyRow: both accesses coalesced; copyCol: both strided) and a
 * device-to-device copy of the same bytes. */
#include "harness.h"

#include "access/access.h"
#include "internal.h"

#include <cublas_v2.h>
#include <stdlib.h>
#include <string.h>

int bench_transpose_verify(const void *in, const void *out, size_t rows, size_t cols,
                           size_t elem_size, unsigned long long *res, cupat_stream s);

enum { SEED_T = 21 };
/* Lecture 10's serial and thread-per-row versions only run at its size. */
#define SLOW_MAX ((size_t)1 << 20)
/* Up to 2048^2 elements (32 MiB each way in f64) a call is a few
 * microseconds: its table ends with the launch-floor rows (issue 22). */
#define LAUNCH_FLOOR_MAX ((size_t)2048 * 2048)

typedef struct tr_state {
    size_t rows, cols, es;
    void *in, *out;
    unsigned long long *res; /* device: wrong count, first wrong index */
    unsigned char *host_in, *host_out; /* CPU backend checks */
} tr_state;

static int gpu(const bench_run *run)
{
    return run->backend == CUPAT_BACKEND_CUDA;
}

static size_t bytes_of(const tr_state *st)
{
    return st->rows * st->cols * st->es;
}

static cupat_status tr_poison(bench_run *run, void *p)
{
    tr_state *st = p;
    return cupat_memset(run->ctx, st->out, 0xFF, bytes_of(st));
}

static cupat_status tr_run(bench_run *run, void *p)
{
    tr_state *st = p;
    return cupat_transpose(run->ctx, st->rows, st->cols, st->es, st->in, st->cols, st->out,
                           st->rows);
}

/* Row-major rows x cols is column-major cols x rows (ld cols); its transpose,
 * column-major rows x cols with ld rows, is the row-major cols x rows output.
 * beta = 0 with B = C (ldb = ldc): C is not read. */
static cupat_status tr_geam(bench_run *run, void *p)
{
    tr_state *st = p;
    void *h;
    CUPAT_TRY(bench_cublas(run, &h));
    int64_t m = (int64_t)st->rows, n = (int64_t)st->cols;
    if (st->es == 4) {
        const float one = 1.0f, zero = 0.0f;
        return bench_cublas_status(
            run,
            cublasSgeam_64((cublasHandle_t)h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, &one, st->in, n,
                           &zero, st->out, m, st->out, m),
            "cublasSgeam_64");
    }
    const double one = 1.0, zero = 0.0;
    return bench_cublas_status(run,
                               cublasDgeam_64((cublasHandle_t)h, CUBLAS_OP_T, CUBLAS_OP_N, m, n,
                                              &one, st->in, n, &zero, st->out, m, st->out, m),
                               "cublasDgeam_64");
}

static cupat_status tr_copy_row(bench_run *run, void *p)
{
    tr_state *st = p;
    return cupat__lab_copy2d(run->ctx, LAB_COPY_ROW, st->rows, st->cols, st->es, st->in, st->out);
}
static cupat_status tr_copy_col(bench_run *run, void *p)
{
    tr_state *st = p;
    return cupat__lab_copy2d(run->ctx, LAB_COPY_COL, st->rows, st->cols, st->es, st->in, st->out);
}
static cupat_status tr_memcpy(bench_run *run, void *p)
{
    tr_state *st = p;
    return cupat_memcpy(run->ctx, st->out, st->in, bytes_of(st));
}

/* Exact: out[x][y] must hold in[y][x]'s bits. */
static cupat_status tr_check(bench_run *run, void *p, int strict, bench_check *chk)
{
    (void)strict;
    tr_state *st = p;
    size_t n = st->rows * st->cols, wrong = 0, first = 0;
    if (gpu(run)) {
        unsigned long long res[2];
        CUPAT_TRY(bench_cuda_status(run,
                                    bench_transpose_verify(st->in, st->out, st->rows, st->cols,
                                                           st->es, st->res,
                                                           cupat_get_stream(run->ctx)),
                                    "transpose verify kernel"));
        CUPAT_TRY(cupat_memcpy(run->ctx, res, st->res, sizeof res));
        CUPAT_TRY(cupat_sync(run->ctx));
        wrong = (size_t)res[0];
        first = (size_t)res[1];
    } else {
        const unsigned char *in = st->in, *out = st->out;
        for (size_t k = 0; k < n; k++) {
            size_t x = k / st->rows, y = k % st->rows;
            if (memcmp(out + k * st->es, in + (y * st->cols + x) * st->es, st->es) && !wrong++)
                first = k;
        }
    }
    chk->checked += n;
    chk->wrong += wrong;
    if (wrong)
        snprintf(chk->msg, sizeof chk->msg, "%zu of %zu elements wrong, first out[%zu][%zu]",
                 wrong, n, first / st->rows, first % st->rows);
    return CUPAT_SUCCESS;
}

static int is_slow(const char *name)
{
    return !strcmp(name, "serial") || !strcmp(name, "row");
}

static cupat_status add_row(bench_run *run, bench_table *t, tr_state *st, const char *name,
                            bench_row_kind kind, const char *technique, bench_fn fn,
                            int checked)
{
    bench_row *row = bench_table_add(run, t, name, kind);
    if (!row) return CUPAT_ERROR_OUT_OF_MEMORY;
    row->technique = technique;
    bench_progress(run, "bench transpose %s: %s", t->label, name);
    bench_measure(run, t, row, fn, checked ? tr_poison : NULL, checked ? tr_check : NULL,
                  kind != BENCH_ROW_VENDOR, st);
    return CUPAT_SUCCESS;
}

/* slow: lecture 10's serial and row rungs too, where n <= SLOW_MAX. */
static cupat_status tr_case(bench_run *run, size_t rows, size_t cols, size_t es, int slow)
{
    tr_state st = {rows, cols, es, NULL, NULL, NULL, NULL, NULL};
    size_t n = rows * cols, bytes = n * es;
    char label[128];
    snprintf(label, sizeof label, "%zux%zu %s", rows, cols, es == 4 ? "f32" : "f64");
    cupat_status s = cupat_malloc(run->ctx, &st.in, bytes);
    if (!s) s = cupat_malloc(run->ctx, &st.out, bytes);
    if (!s && gpu(run)) s = cupat_malloc(run->ctx, (void **)&st.res, 2 * sizeof *st.res);
    /* Random words (as floats: never all zeros), viewed as 4- or 8-byte elements. */
    if (!s) s = bench_fill_f32(run, st.in, bytes / 4, SEED_T, -1.0f, 2.0f);
    bench_table *t = s ? NULL
                       : bench_table_begin(run, "transpose", "transpose", label,
                                           2.0 * (double)bytes, 0, BENCH_BOUND_COPY);
    if (!s && !t) s = CUPAT_ERROR_OUT_OF_MEMORY;

    const cupat_variant_info *v = NULL;
    size_t nv = 0;
    if (!s) s = cupat_variants("transpose", &v, &nv);
    const char *only = run->opt.variant && strcmp(run->opt.variant, "all") ? run->opt.variant : NULL;
    int skipped = 0;
    for (size_t i = 0; !s && i < nv; i++) {
        if (v[i].backend != run->backend || (only && strcmp(only, v[i].name))) continue;
        if (is_slow(v[i].name) && (n > SLOW_MAX || !slow)) {
            skipped = 1;
            continue;
        }
        bench_row *row = bench_table_add(run, t, v[i].name, BENCH_ROW_RUNG);
        if (!row) {
            s = CUPAT_ERROR_OUT_OF_MEMORY;
            break;
        }
        row->technique = v[i].technique;
        row->source = v[i].source;
        /* on CUDA the "default" row below is what runs unpinned */
        row->is_default = run->backend == CUPAT_BACKEND_CUDA && !only ? 0 : v[i].is_default;
        bench_progress(run, "bench transpose %s: %s", label, v[i].name);
        if (cupat_set_variant(run->ctx, "transpose", v[i].name)) {
            row->verdict = BENCH_ERROR;
            snprintf(row->message, sizeof row->message, "%s", cupat_last_error(run->ctx));
            continue;
        }
        bench_measure(run, t, row, tr_run, tr_poison, tr_check, 1, &st);
    }
    cupat_set_variant(run->ctx, "transpose", NULL);
    if (!s && !only && run->backend == CUPAT_BACKEND_CUDA) {
        /* no rung pinned: the library's choice (vec8_2x2, or vec16 for f32 that fits in L2) */
        bench_row *row = bench_table_add(run, t, "default", BENCH_ROW_RUNG);
        if (!row) {
            s = CUPAT_ERROR_OUT_OF_MEMORY;
        } else {
            row->technique = "no rung pinned: vec8_2x2, or vec16 where an f32 matrix's read and "
                             "write fit in L2";
            row->source = "beyond the books";
            row->is_default = 1;
            bench_progress(run, "bench transpose %s: default", label);
            bench_measure(run, t, row, tr_run, tr_poison, tr_check, 1, &st);
        }
    }
    if (t && skipped)
        t->note = "serial and row (lecture 10) run in the 1024x1024 f32 table (at most "
                  "2^20 elements)";
    if (!s && gpu(run)) {
        s = add_row(run, t, &st, es == 4 ? "cublasSgeam" : "cublasDgeam", BENCH_ROW_VENDOR,
                    "vendor transpose (geam, op T), same inputs", tr_geam, 1);
        if (!s)
            s = add_row(run, t, &st, "copyRow", BENCH_ROW_REFERENCE,
                        "PCCP 4.4 upper bound: a copy by rows, every access coalesced",
                        tr_copy_row, 0);
        if (!s)
            s = add_row(run, t, &st, "copyCol", BENCH_ROW_REFERENCE,
                        "PCCP 4.4 lower bound: a copy by columns, every access strided",
                        tr_copy_col, 0);
    }
    if (!s)
        s = add_row(run, t, &st, gpu(run) ? "cudaMemcpy D2D" : "memcpy", BENCH_ROW_REFERENCE,
                    "reference: a copy moving the same bytes", tr_memcpy, 0);
    if (!s && !only && n <= LAUNCH_FLOOR_MAX) s = bench_add_launch_rows(run, t);
    if (t) bench_table_end(run, t);
    cupat_sync(run->ctx);
    cupat_free(run->ctx, st.in);
    cupat_free(run->ctx, st.out);
    cupat_free(run->ctx, st.res);
    return s;
}

/* GPU: 16384^2 in f32 and f64 (the acceptance size), lecture 10's 1024^2
 * f32 with every rung, then the L2-sized shapes of issue 22: 1024^2 f64 and
 * 2048^2 f32 and f64. CPU: 4096^2 and 1024^2 f32. --n R x C or a count
 * (square) replaces the big size and drops the L2-sized ones. */
cupat_status bench_transpose_cases(bench_run *run, const bench_size *size)
{
    size_t r = gpu(run) ? 16384 : 4096, c = r;
    if (size && size->rows) r = size->rows, c = size->cols;
    else if (size && size->n) {
        r = 1;
        while ((r + 1) * (r + 1) <= size->n) r++;
        c = r;
    }
    CUPAT_TRY(tr_case(run, r, c, 4, 1));
    CUPAT_TRY(tr_case(run, r, c, 8, 1));
    if (r * c > SLOW_MAX) CUPAT_TRY(tr_case(run, 1024, 1024, 4, 1));
    if (size || !gpu(run)) return CUPAT_SUCCESS;
    CUPAT_TRY(tr_case(run, 1024, 1024, 8, 0)); /* the slow rungs: in the f32 table only */
    CUPAT_TRY(tr_case(run, 2048, 2048, 4, 0));
    return tr_case(run, 2048, 2048, 8, 0);
}
