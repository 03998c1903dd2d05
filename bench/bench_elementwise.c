/* SPDX-License-Identifier: Apache-2.0 */
/* bench_elementwise.c — cases of vadd, saxpy, matadd, gray and blur, and
 * PCCP 3.3's block-shape sweep of matadd's 2D kernel. */
#include "harness.h"

#include "elementwise/elementwise_lab.h"
#include "internal.h"

#include <cublas_v2.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Input seeds: checks recompute any input element from (seed, index). */
enum { SEED_A = 11, SEED_B = 12, SEED_IMG = 13 };
#define U 0x1p-24 /* unit roundoff of f32 */
#define SAXPY_ALPHA 0.75f

static int gpu(const bench_run *run)
{
    return run->backend == CUPAT_BACKEND_CUDA;
}

/* f32 inputs, uniform in [-1, 1) on a 2^-23 grid: random, not zeros. */
static float in_a(size_t i)
{
    return bench_rand_f32(SEED_A, i, -1.0f, 2.0f);
}
static float in_b(size_t i)
{
    return bench_rand_f32(SEED_B, i, -1.0f, 2.0f);
}

/* ---------------------------------------------------- vadd, saxpy, matadd -- */

typedef struct vec_state {
    size_t n, rows, cols; /* matadd: n = rows * cols */
    float *a, *b, *c;     /* saxpy: x = a, y = c */
    int strict;
    unsigned bx, by; /* sweep */
    double occupancy;
} vec_state;

static void *alloc_f32(bench_run *run, size_t n, cupat_status *s)
{
    void *p = NULL;
    if (!*s) *s = cupat_malloc(run->ctx, &p, n * sizeof(float));
    return p;
}

static cupat_status vec_setup(bench_run *run, vec_state *st, size_t n, int two_inputs)
{
    size_t bytes; /* x 3 arrays and the reference copy: well below the limit */
    cupat_status s = cupat__size_mul(run->ctx, "bench", "16 x elements", n, 16, 1, &bytes);
    st->n = n;
    st->a = alloc_f32(run, n, &s);
    if (two_inputs) st->b = alloc_f32(run, n, &s);
    st->c = alloc_f32(run, n, &s);
    if (!s) s = bench_fill_f32(run, st->a, n, SEED_A, -1.0f, 2.0f);
    if (!s && two_inputs) s = bench_fill_f32(run, st->b, n, SEED_B, -1.0f, 2.0f);
    return s;
}

static void vec_free(bench_run *run, void *p)
{
    vec_state *st = p;
    cupat_sync(run->ctx);
    cupat_free(run->ctx, st->a);
    cupat_free(run->ctx, st->b);
    cupat_free(run->ctx, st->c);
}

static cupat_status poison_c(bench_run *run, void *p)
{
    vec_state *st = p; /* all-ones bytes: NaN, so an unwritten element fails */
    return cupat_memset(run->ctx, st->c, 0xFF, st->n * sizeof(float));
}

/* a + b is rounded once: within U |a + b| of the exact sum (exact in double). */
static void add_expect(void *p, size_t start, size_t len, double *e, double *tol)
{
    (void)p;
    for (size_t k = 0; k < len; k++) {
        e[k] = (double)in_a(start + k) + (double)in_b(start + k);
        tol[k] = U * fabs(e[k]);
    }
}

static cupat_status add_check(bench_run *run, void *p, int strict, bench_check *chk)
{
    vec_state *st = p;
    size_t chunk = st->cols && st->cols <= ((size_t)1 << 20) ? st->cols : (size_t)1 << 16;
    return bench_verify_f32(run, st->c, st->n, chunk, add_expect, st, chk);
}

static cupat_status vadd_run(bench_run *run, void *p)
{
    vec_state *st = p;
    return cupat_vadd_f32(run->ctx, st->n, st->a, st->b, st->c);
}

static cupat_status vadd_cub(bench_run *run, void *p)
{
    vec_state *st = p;
    return bench_cuda_status(run,
                             bench_cub_vadd(st->a, st->b, st->c, st->n, cupat_get_stream(run->ctx)),
                             "cub::DeviceTransform::Transform");
}

/* saxpy is in place: y gets its original values back before a checked call. */
static cupat_status saxpy_prepare(bench_run *run, void *p)
{
    vec_state *st = p;
    return bench_fill_f32(run, st->c, st->n, SEED_B, -1.0f, 2.0f);
}

/* cupat promises one rounding (fused multiply-add): U |r|, plus the double
 * evaluation's own 2^-52 |r|. The vendor promises no fusion: U (|ax| + |r|). */
static void saxpy_expect(void *p, size_t start, size_t len, double *e, double *tol)
{
    const vec_state *st = p;
    for (size_t k = 0; k < len; k++) {
        double ax = (double)SAXPY_ALPHA * in_a(start + k); /* exact: 48 bits */
        e[k] = ax + (double)in_b(start + k);
        tol[k] = st->strict ? (U + 0x1p-52) * fabs(e[k])
                            : U * (fabs(ax) + fabs(e[k])) + 0x1p-52 * fabs(e[k]);
    }
}

static cupat_status saxpy_check(bench_run *run, void *p, int strict, bench_check *chk)
{
    vec_state *st = p;
    st->strict = strict;
    return bench_verify_f32(run, st->c, st->n, (size_t)1 << 16, saxpy_expect, st, chk);
}

static cupat_status saxpy_run(bench_run *run, void *p)
{
    vec_state *st = p;
    return cupat_saxpy(run->ctx, st->n, SAXPY_ALPHA, st->a, st->c);
}

static cupat_status saxpy_cublas(bench_run *run, void *p)
{
    vec_state *st = p;
    void *h;
    const float alpha = SAXPY_ALPHA;
    CUPAT_TRY(bench_cublas(run, &h));
    return bench_cublas_status(
        run, cublasSaxpy_64((cublasHandle_t)h, (int64_t)st->n, &alpha, st->a, 1, st->c, 1),
        "cublasSaxpy_64");
}

static cupat_status matadd_run(bench_run *run, void *p)
{
    vec_state *st = p;
    return cupat_matadd_f32(run->ctx, st->rows, st->cols, st->a, st->cols, st->b, st->cols,
                            st->c, st->cols);
}

/* Row-major rows x cols is column-major cols x rows with the same leading
 * dimension, and elementwise C = A + B reads the same either way. */
static cupat_status matadd_cublas(bench_run *run, void *p)
{
    vec_state *st = p;
    void *h;
    const float one = 1.0f;
    int64_t m = (int64_t)st->cols, n = (int64_t)st->rows;
    CUPAT_TRY(bench_cublas(run, &h));
    return bench_cublas_status(run,
                               cublasSgeam_64((cublasHandle_t)h, CUBLAS_OP_N, CUBLAS_OP_N, m, n,
                                              &one, st->a, m, &one, st->b, m, st->c, m),
                               "cublasSgeam_64");
}

static cupat_status blockshape_run(bench_run *run, void *p)
{
    vec_state *st = p;
    return cupat__matadd_blockshape(run->ctx, st->bx, st->by, st->rows, st->cols, st->a, st->b,
                                    st->c, &st->occupancy);
}

/* ------------------------------------------------------------- images -- */

typedef struct img_state {
    size_t w, h;
    int channels, radius;
    uint8_t *in, *out;
    const uint8_t *host_in; /* blur's reference reads the whole input */
    uint8_t *host_copy;
    int oom;
} img_state;

static cupat_status img_setup(bench_run *run, img_state *st, size_t w, size_t h, int ch_in,
                              int ch_out, int need_host)
{
    size_t nin = 0;
    cupat_status s = cupat__size_mul(run->ctx, "bench", "image bytes", w, h, 4, &nin);
    nin = w * h * (size_t)ch_in;
    st->w = w;
    st->h = h;
    if (!s) s = cupat_malloc(run->ctx, (void **)&st->in, nin);
    if (!s) s = cupat_malloc(run->ctx, (void **)&st->out, w * h * (size_t)ch_out);
    if (!s) s = bench_fill_u8(run, st->in, nin, SEED_IMG);
    if (!s && need_host) {
        if (!gpu(run)) {
            st->host_in = st->in;
        } else if (!(st->host_copy = malloc(nin))) {
            s = bench_fail(run, CUPAT_ERROR_OUT_OF_MEMORY, "bench blur: %zu bytes of host memory",
                           nin);
        } else {
            s = cupat_memcpy(run->ctx, st->host_copy, st->in, nin);
            st->host_in = st->host_copy;
        }
    }
    return s;
}

static void img_free(bench_run *run, void *p)
{
    img_state *st = p;
    cupat_sync(run->ctx);
    cupat_free(run->ctx, st->in);
    cupat_free(run->ctx, st->out);
    free(st->host_copy);
}

static cupat_status poison_img(bench_run *run, void *p)
{
    img_state *st = p;
    return cupat_memset(run->ctx, st->out, 0xA5, st->w * st->h * (size_t)st->channels);
}

/* cupat_rgb_to_gray's formula: f32, left to right, no contraction (this file
 * is built with -ffp-contract=off). */
static void gray_expect(void *p, size_t start, size_t len, uint8_t *e)
{
    (void)p;
    for (size_t k = 0; k < len; k++) {
        size_t i = 3 * (start + k);
        float r = bench_rand_u8(SEED_IMG, i), g = bench_rand_u8(SEED_IMG, i + 1),
              b = bench_rand_u8(SEED_IMG, i + 2);
        float v = 0.21f * r;
        v = v + 0.71f * g;
        v = v + 0.07f * b;
        e[k] = (uint8_t)v;
    }
}

static cupat_status gray_check(bench_run *run, void *p, int strict, bench_check *chk)
{
    img_state *st = p;
    return bench_verify_u8(run, st->out, st->w * st->h, st->w, gray_expect, st, chk);
}

static cupat_status gray_run(bench_run *run, void *p)
{
    img_state *st = p;
    return cupat_rgb_to_gray(run->ctx, st->w, st->h, st->in, 3 * st->w, st->out, st->w);
}

static cupat_status gray_cub(bench_run *run, void *p)
{
    img_state *st = p;
    return bench_cuda_status(
        run, bench_cub_gray(st->in, st->out, st->w * st->h, cupat_get_stream(run->ctx)),
        "cub::DeviceTransform::Transform");
}

/* One output row of the box blur: column sums over the rows in the window,
 * then a sliding sum along the row; integer mean of the pixels inside. */
static void blur_expect(void *p, size_t start, size_t len, uint8_t *e)
{
    img_state *st = p;
    size_t W = st->w, H = st->h, C = (size_t)st->channels, R = (size_t)st->radius;
    size_t y = start / (W * C);
    size_t y0 = y >= R ? y - R : 0, y1 = y + R < H ? y + R : H - 1;
    uint32_t *col = malloc(W * C * sizeof *col);
    if (!col) {
        st->oom = 1;
        memset(e, 0, len);
        return;
    }
    memset(col, 0, W * C * sizeof *col);
    for (size_t yy = y0; yy <= y1; yy++) {
        const uint8_t *row = st->host_in + yy * W * C;
        for (size_t k = 0; k < W * C; k++) col[k] += row[k];
    }
    for (size_t c = 0; c < C; c++) {
        uint64_t sum = 0;
        for (size_t x = 0; x <= R && x < W; x++) sum += col[x * C + c];
        for (size_t x = 0; x < W; x++) {
            size_t x0 = x >= R ? x - R : 0, x1 = x + R < W ? x + R : W - 1;
            e[x * C + c] = (uint8_t)(sum / ((x1 - x0 + 1) * (y1 - y0 + 1)));
            if (x + R + 1 < W) sum += col[(x + R + 1) * C + c];
            if (x >= R) sum -= col[(x - R) * C + c];
        }
    }
    free(col);
}

static cupat_status blur_check(bench_run *run, void *p, int strict, bench_check *chk)
{
    img_state *st = p;
    st->oom = 0;
    CUPAT_TRY(bench_verify_u8(run, st->out, st->w * st->h * (size_t)st->channels,
                              st->w * (size_t)st->channels, blur_expect, st, chk));
    return st->oom ? bench_fail(run, CUPAT_ERROR_OUT_OF_MEMORY, "blur check: out of host memory")
                   : CUPAT_SUCCESS;
}

static cupat_status blur_run(bench_run *run, void *p)
{
    img_state *st = p;
    return cupat_blur(run->ctx, st->w, st->h, st->channels, st->radius, st->in, st->out);
}

/* -------------------------------------------------------------- cases -- */

/* The 1D sizes: --n, else two (one inside a large L2's reach, one far beyond). */
static size_t sizes_1d(const bench_run *run, const bench_size *size, size_t out[2])
{
    if (size) {
        out[0] = size->n;
        return 1;
    }
    out[0] = gpu(run) ? (size_t)1 << 24 : (size_t)1 << 22;
    out[1] = gpu(run) ? (size_t)1 << 28 : (size_t)1 << 24;
    return 2;
}

/* A 2D shape: --n as RxC, or a count made square; else the default. */
static void shape_2d(const bench_size *size, size_t def_r, size_t def_c, size_t *r, size_t *c)
{
    *r = def_r;
    *c = def_c;
    if (!size) return;
    if (size->rows) {
        *r = size->rows;
        *c = size->cols;
        return;
    }
    size_t s = (size_t)sqrt((double)size->n);
    while (s * s > size->n) s--;
    while ((s + 1) * (s + 1) <= size->n) s++;
    *r = *c = s;
}

static cupat_status vec_cases(bench_run *run, const bench_size *size, int saxpy)
{
    size_t ns[2], count = sizes_1d(run, size, ns);
    for (size_t k = 0; k < count; k++) {
        vec_state st = {0};
        bench_case c = {0};
        char n[32];
        size_t bytes = ns[k] * sizeof(float);
        c.pattern = saxpy ? "saxpy" : "vadd";
        snprintf(c.label, sizeof c.label, "n=%s f32", bench_fmt_count(n, sizeof n, ns[k]));
        c.bytes = 3.0 * (double)bytes; /* vadd: a, b in, c out; saxpy: x, y in, y out */
        c.flops = (saxpy ? 2.0 : 1.0) * (double)ns[k];
        c.bound = BENCH_BOUND_COPY;
        c.state = &st;
        c.memcpy_ref = 1;
        if (saxpy) {
            c.prepare = saxpy_prepare;
            c.run = saxpy_run;
            c.check = saxpy_check;
            c.vendor_name = gpu(run) ? "cublasSaxpy" : NULL;
            c.vendor = gpu(run) ? saxpy_cublas : NULL;
        } else {
            c.prepare = poison_c;
            c.run = vadd_run;
            c.check = add_check;
            c.vendor_name = gpu(run) ? "cub::DeviceTransform" : NULL;
            c.vendor = gpu(run) ? vadd_cub : NULL;
        }
        cupat_status s = vec_setup(run, &st, ns[k], !saxpy);
        if (!s) s = bench_run_case(run, &c);
        CUPAT_TRY(bench_finish(run, s, vec_free, &st));
    }
    return CUPAT_SUCCESS;
}

cupat_status bench_vadd_cases(bench_run *run, const bench_size *size)
{
    return vec_cases(run, size, 0);
}
cupat_status bench_saxpy_cases(bench_run *run, const bench_size *size)
{
    return vec_cases(run, size, 1);
}

static cupat_status matadd_setup(bench_run *run, const bench_size *size, vec_state *st,
                                 char *label, size_t len)
{
    size_t def = gpu(run) ? 16384 : 2048;
    shape_2d(size, def, def, &st->rows, &st->cols);
    snprintf(label, len, "%zux%zu f32", st->rows, st->cols);
    return vec_setup(run, st, st->rows * st->cols, 1);
}

cupat_status bench_matadd_cases(bench_run *run, const bench_size *size)
{
    vec_state st = {0};
    bench_case c = {0};
    c.pattern = "matadd";
    cupat_status s = matadd_setup(run, size, &st, c.label, sizeof c.label);
    c.bytes = 3.0 * (double)st.n * sizeof(float);
    c.flops = (double)st.n;
    c.bound = BENCH_BOUND_COPY;
    c.state = &st;
    c.prepare = poison_c;
    c.run = matadd_run;
    c.check = add_check;
    c.vendor_name = gpu(run) ? "cublasSgeam" : NULL;
    c.vendor = gpu(run) ? matadd_cublas : NULL;
    c.memcpy_ref = 1;
    if (!s) s = bench_run_case(run, &c);
    return bench_finish(run, s, vec_free, &st);
}

/* PCCP 3.3: sumMatrixOnGPU2D on 16384 x 16384 with different block shapes;
 * the book's times (its GPU) for the four shapes it reports. */
cupat_status bench_matadd_sweep(bench_run *run, const bench_size *size)
{
    static const struct {
        unsigned bx, by;
        double book_ms;
    } shapes[] = {{32, 32, 60}, {32, 16, 38}, {16, 32, 51}, {16, 16, 46}, {64, 8, 0},
                  {128, 4, 0},  {256, 1, 0},  {8, 64, 0},   {64, 16, 0}, {128, 8, 0}};
    if (!gpu(run)) {
        fprintf(run->opt.out, "matadd --sweep-blocks needs a GPU (the CUDA backend)\n");
        return CUPAT_SUCCESS;
    }
    vec_state st = {0};
    char label[128];
    cupat_status s = matadd_setup(run, size, &st, label, sizeof label);
    double bytes = 3.0 * (double)st.n * sizeof(float);
    bench_table *t = s ? NULL
                       : bench_table_begin(run, "matadd", "matadd block-shape sweep (PCCP 3.3)",
                                           label, bytes, (double)st.n, BENCH_BOUND_COPY);
    if (!s && !t) s = CUPAT_ERROR_OUT_OF_MEMORY; /* message set by bench_table_begin */
    int book = st.rows == 16384 && st.cols == 16384;
    if (t) {
        t->sweep = 1;
        if (book)
            t->note = "book ms: PCCP 3.3's times for these shapes on its (older) GPU; compare "
                      "the order, not the values";
    }
    for (size_t i = 0; t && i < sizeof shapes / sizeof shapes[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "(%u,%u)", shapes[i].bx, shapes[i].by);
        bench_progress(run, "bench matadd sweep: block %s (%zu/%zu)", name, i + 1,
                       sizeof shapes / sizeof shapes[0]);
        bench_row *row = bench_table_add(run, t, name, BENCH_ROW_CONFIG);
        if (!row) {
            s = CUPAT_ERROR_OUT_OF_MEMORY;
            break;
        }
        st.bx = row->bx = shapes[i].bx;
        st.by = row->by = shapes[i].by;
        row->gx = (st.cols + st.bx - 1) / st.bx;
        row->gy = (st.rows + st.by - 1) / st.by;
        row->book_ms = book ? shapes[i].book_ms : 0;
        st.occupancy = -1;
        bench_measure(run, t, row, blockshape_run, poison_c, add_check, 1, &st);
        row->occupancy = st.occupancy;
    }
    if (t) bench_table_end(run, t);
    return bench_finish(run, s, vec_free, &st);
}

/* Default images: 8K UHD for gray and 4K UHD for blur on the GPU, smaller on
 * the host. --n WxH (width first) or a pixel count (square) overrides. */
cupat_status bench_gray_cases(bench_run *run, const bench_size *size)
{
    img_state st = {0};
    bench_case c = {0};
    size_t w, h;
    shape_2d(size, gpu(run) ? 7680 : 1920, gpu(run) ? 4320 : 1080, &w, &h);
    st.channels = 1; /* of the output, which the checks walk */
    c.pattern = "gray";
    snprintf(c.label, sizeof c.label, "%zux%zu RGB", w, h);
    c.bytes = 4.0 * (double)w * (double)h; /* 3 bytes in, 1 out */
    c.flops = 5.0 * (double)w * (double)h; /* 3 mul, 2 add */
    c.bound = BENCH_BOUND_COPY;
    c.state = &st;
    c.prepare = poison_img;
    c.run = gray_run;
    c.check = gray_check;
    c.vendor_name = gpu(run) ? "cub::DeviceTransform" : NULL;
    c.vendor = gpu(run) ? gray_cub : NULL;
    c.memcpy_ref = 1;
    cupat_status s = img_setup(run, &st, w, h, 3, 1, 0);
    if (!s) s = bench_run_case(run, &c);
    return bench_finish(run, s, img_free, &st);
}

cupat_status bench_blur_cases(bench_run *run, const bench_size *size)
{
    static const int radii[] = {1, 8};
    img_state st = {0};
    size_t w, h;
    shape_2d(size, gpu(run) ? 3840 : 1280, gpu(run) ? 2160 : 720, &w, &h);
    st.channels = 3;
    cupat_status s = img_setup(run, &st, w, h, 3, 3, 1);
    for (size_t k = 0; !s && k < sizeof radii / sizeof radii[0]; k++) {
        bench_case c = {0};
        st.radius = radii[k];
        c.pattern = "blur";
        snprintf(c.label, sizeof c.label, "%zux%zu RGB, radius %d", w, h, radii[k]);
        c.bytes = 2.0 * 3.0 * (double)w * (double)h; /* integer work: no flop model */
        c.bound = BENCH_BOUND_COPY;
        c.state = &st;
        c.prepare = poison_img;
        c.run = blur_run;
        c.check = blur_check;
        c.memcpy_ref = 1; /* no vendor: the toolkit here ships no NPP */
        s = bench_run_case(run, &c);
    }
    return bench_finish(run, s, img_free, &st);
}
