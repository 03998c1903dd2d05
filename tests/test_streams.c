/* SPDX-License-Identifier: Apache-2.0 */
/* test_streams.c — out-of-core streaming (src/stream, cupat_set_streaming):
 * vadd, saxpy, reduce / dot (every op), gray and histogram on pinned host
 * memory, streamed in chunks, against the same call on unstreamed memory
 * (CUDA: device copies; CPU: streaming off) and host references; chunk
 * boundaries (1 item, a chunk exactly, a ragged tail), 1 and 3 lanes, in
 * place, mixed device and pinned arguments, the argmin / argmax index across
 * chunks, reproducible float sums; the bad arguments of every new function.
 *
 * --large (CUDA): a 32 GiB pinned input (u32 sum and u8 histogram, exact),
 * GB/s against the pinned host-to-device copy rate of the same input
 * measured alone (see large()). */
#include "testutil.h"

#include <cuda_runtime_api.h>
#include <time.h>

static cupat_ctx *ctx;
static int cuda;

/* ------------------------------------------------------------ helpers -- */

static void *hmalloc(size_t bytes)
{
    void *p = NULL;
    CHECK_OK(ctx, cupat_malloc_host(ctx, &p, bytes));
    if (!p && bytes) {
        fprintf(stderr, "cannot pin %zu bytes\n", bytes);
        exit(1);
    }
    return p;
}

static void hfree(void *p)
{
    CHECK_OK(ctx, cupat_free_host(ctx, p));
}

static void streaming(size_t chunk, int lanes)
{
    CHECK_OK(ctx, cupat_set_streaming(ctx, chunk, lanes));
}

/* Unstreamed memory holding `bytes` of host data: a device copy on CUDA,
 * the host data itself on the CPU (where streaming is then switched off). */
static void *plain_in(const void *h, size_t bytes)
{
    return cuda ? test_upload(ctx, h, bytes) : (void *)(uintptr_t)h;
}

static void plain_out(void *h, void *d, size_t bytes)
{
    if (!cuda) return;
    test_download(ctx, h, d, bytes);
    CHECK_OK(ctx, cupat_free(ctx, d));
}

static void plain_drop(void *d)
{
    if (cuda) CHECK_OK(ctx, cupat_free(ctx, d));
}

static double now(void)
{
    struct timespec t;
    timespec_get(&t, TIME_UTC);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* ------------------------------------------------------- elementwise -- */

static void check_ew(size_t n, size_t chunk, int lanes)
{
    const size_t bytes = n * 4;
    float *a = hmalloc(bytes), *b = hmalloc(bytes), *c = hmalloc(bytes), *ref = test_xmalloc(bytes);
    for (size_t i = 0; i < n; i++) {
        a[i] = test_randf();
        b[i] = test_randf();
        c[i] = test_bits_f32(0x7fc00001u); /* poison */
    }
    streaming(chunk, lanes);
    CHECK_OK(ctx, cupat_vadd_f32(ctx, n, a, b, c));
    CHECK_OK(ctx, cupat_sync(ctx));
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) bad += test_f32_bits(c[i]) != test_f32_bits(a[i] + b[i]);
    CHECK(bad == 0, "vadd n=%zu chunk=%zu lanes=%d: %zu wrong", n, chunk, lanes, bad);

    /* saxpy in place on y = c; reference: fmaf on the host, as the library */
    memcpy(ref, c, bytes);
    CHECK_OK(ctx, cupat_saxpy(ctx, n, 0.75f, a, c));
    CHECK_OK(ctx, cupat_sync(ctx));
    bad = 0;
    for (size_t i = 0; i < n; i++) bad += test_f32_bits(c[i]) != test_f32_bits(fmaf(0.75f, a[i], ref[i]));
    CHECK(bad == 0, "saxpy n=%zu chunk=%zu lanes=%d: %zu wrong", n, chunk, lanes, bad);

    /* vadd in place: c = a + c */
    memcpy(ref, c, bytes);
    CHECK_OK(ctx, cupat_vadd_f32(ctx, n, a, c, c));
    CHECK_OK(ctx, cupat_sync(ctx));
    bad = 0;
    for (size_t i = 0; i < n; i++) bad += test_f32_bits(c[i]) != test_f32_bits(a[i] + ref[i]);
    CHECK(bad == 0, "vadd in place n=%zu: %zu wrong", n, bad);

    if (cuda) { /* mixed: b in device memory, used in place; a and c pinned */
        float *db = test_upload(ctx, b, bytes);
        CHECK_OK(ctx, cupat_vadd_f32(ctx, n, a, db, c));
        CHECK_OK(ctx, cupat_sync(ctx));
        bad = 0;
        for (size_t i = 0; i < n; i++) bad += test_f32_bits(c[i]) != test_f32_bits(a[i] + b[i]);
        CHECK(bad == 0, "vadd pinned + device n=%zu: %zu wrong", n, bad);
        CHECK_OK(ctx, cupat_free(ctx, db));
    }
    hfree(a);
    hfree(b);
    hfree(c);
    free(ref);
}

/* ---------------------------------------------------------- reduction -- */

/* The streamed result of (type, op) on x against the unstreamed one: equal
 * bits (exact ops), or within the sum's error bound (f32 / f64 sums). */
static void check_red(cupat_type t, cupat_op op, const void *x, size_t n, size_t chunk, int lanes,
                      int exact)
{
    const size_t ts = cupat_type_size(t), rb = op >= CUPAT_OP_ARGMIN ? sizeof(cupat_indexed) : ts;
    cupat_indexed got, want, dev;
    memset(&got, 0xAB, sizeof got);
    memset(&want, 0xCD, sizeof want);
    streaming(chunk, lanes);
    CHECK_OK(ctx, cupat_reduce_host(ctx, t, op, n, x, &got));
    /* cupat_reduce: a device result on CUDA */
    void *r = cuda ? test_dalloc(ctx, rb) : &dev;
    memset(&dev, 0xEF, sizeof dev);
    CHECK_OK(ctx, cupat_reduce(ctx, t, op, n, x, r));
    if (cuda) plain_out(&dev, r, rb);
    else CHECK_OK(ctx, cupat_sync(ctx));
    CHECK(!memcmp(&got, &dev, rb), "%s %s n=%zu: cupat_reduce and cupat_reduce_host differ",
          cupat_type_name(t), cupat_op_name(op), n);
    streaming(0, 0);
    void *px = plain_in(x, n * ts);
    CHECK_OK(ctx, cupat_reduce_host(ctx, t, op, n, px, &want));
    plain_drop(px);
    const char *what = fmt("%s %s n=%zu chunk=%zu lanes=%d", cupat_type_name(t), cupat_op_name(op), n,
                           chunk, lanes);
    if (op >= CUPAT_OP_ARGMIN)
        CHECK(got.index == want.index, "%s: index %llu, unstreamed %llu", what,
              (unsigned long long)got.index, (unsigned long long)want.index);
    if (exact) {
        CHECK(!memcmp(&got, &want, rb), "%s: streamed result differs from the unstreamed one", what);
    } else { /* f32 sum: |got - exact| <= (n + 2) eps sum|x| (each way's bound, generously summed) */
        double s = 0, a = 0;
        for (size_t i = 0; i < n; i++) {
            s += ((const float *)x)[i];
            a += fabs(((const float *)x)[i]);
        }
        const double bound = ((double)n + 2) * 0x1p-24 * a;
        CHECK(fabs((double)got.value.f32 - s) <= bound, "%s: %.9g vs %.9g (bound %.3g)", what,
              (double)got.value.f32, s, bound);
    }
}

static void check_reduce(size_t n, size_t chunk, int lanes)
{
    float *xf = hmalloc(n * 4);
    int32_t *xi = hmalloc(n * 4);
    for (size_t i = 0; i < n; i++) {
        xf[i] = test_randf();
        xi[i] = (int32_t)(test_rand() % 2001) - 1000;
    }
    /* ties at chunk boundaries: the minimum twice, the later copy in an
     * earlier position of its own chunk (the first occurrence must win) */
    if (n > 300) {
        xi[n - 1] = -5000;
        xi[260] = -5000;
        xf[n - 2] = -7.0f;
        xf[257] = -7.0f;
        xf[3] = 9.0f;
        xf[n / 2] = 9.0f;
    }
    static const cupat_op ops[] = {CUPAT_OP_SUM, CUPAT_OP_MIN, CUPAT_OP_MAX, CUPAT_OP_ARGMIN,
                                   CUPAT_OP_ARGMAX};
    for (size_t o = 0; o < 5; o++) {
        check_red(CUPAT_I32, ops[o], xi, n, chunk, lanes, 1);
        check_red(CUPAT_F32, ops[o], xf, n, chunk, lanes, ops[o] != CUPAT_OP_SUM);
    }
    /* NaN: min and argmin give the first NaN wherever the chunks fall */
    if (n > 600) {
        xf[n - 3] = test_bits_f32(0x7fc00000u);
        xf[555] = test_bits_f32(0xffc00000u);
        check_red(CUPAT_F32, CUPAT_OP_ARGMIN, xf, n, chunk, lanes, 1);
        check_red(CUPAT_F32, CUPAT_OP_MAX, xf, n, chunk, lanes, 1);
    }
    /* reproducible: the same chunks give the same bits on 1 and 3 lanes */
    float s1, s3, s3b;
    streaming(chunk, 1);
    CHECK_OK(ctx, cupat_reduce_host(ctx, CUPAT_F32, CUPAT_OP_SUM, n, xf, &s1));
    streaming(chunk, 3);
    CHECK_OK(ctx, cupat_reduce_host(ctx, CUPAT_F32, CUPAT_OP_SUM, n, xf, &s3));
    CHECK_OK(ctx, cupat_reduce_host(ctx, CUPAT_F32, CUPAT_OP_SUM, n, xf, &s3b));
    CHECK(test_f32_bits(s1) == test_f32_bits(s3) && test_f32_bits(s3) == test_f32_bits(s3b),
          "f32 sum n=%zu chunk=%zu: 1 lane %a, 3 lanes %a then %a", n, chunk, s1, s3, s3b);
    /* dot: streamed against unstreamed, within the bound */
    double d, dw;
    double *y = hmalloc(n * 8), *z = hmalloc(n * 8);
    double ab = 0;
    for (size_t i = 0; i < n; i++) {
        y[i] = test_randf();
        z[i] = test_randf();
        ab += fabs(y[i] * z[i]);
    }
    streaming(chunk, lanes);
    CHECK_OK(ctx, cupat_dot_host(ctx, CUPAT_F64, n, y, z, &d));
    streaming(0, 0);
    void *py = plain_in(y, n * 8), *pz = plain_in(z, n * 8);
    CHECK_OK(ctx, cupat_dot_host(ctx, CUPAT_F64, n, py, pz, &dw));
    plain_drop(py);
    plain_drop(pz);
    CHECK(fabs(d - dw) <= 2.0 * ((double)n + 2) * 0x1p-53 * ab, "f64 dot n=%zu: %.17g vs %.17g", n, d, dw);
    hfree(xf);
    hfree(xi);
    hfree(y);
    hfree(z);
}

/* ------------------------------------------------------ gray, histogram -- */

static void check_gray(size_t w, size_t h, size_t chunk, int lanes)
{
    const size_t rp = 3 * w + 5, gp = w + 3;
    uint8_t *rgb = hmalloc(rp * h), *g = hmalloc(gp * h), *want = test_xmalloc(gp * h);
    for (size_t i = 0; i < rp * h; i++) rgb[i] = (uint8_t)test_rand();
    memset(g, 0xEE, gp * h);
    memset(want, 0xEE, gp * h);
    streaming(chunk, lanes);
    CHECK_OK(ctx, cupat_rgb_to_gray(ctx, w, h, rgb, rp, g, gp));
    CHECK_OK(ctx, cupat_sync(ctx));
    streaming(0, 0);
    void *pr = plain_in(rgb, rp * h);
    void *pg = cuda ? test_upload(ctx, want, gp * h) : want;
    CHECK_OK(ctx, cupat_rgb_to_gray(ctx, w, h, pr, rp, pg, gp));
    plain_out(want, pg, gp * h);
    plain_drop(pr);
    /* the padding between rows must be left alone too */
    CHECK(!memcmp(g, want, gp * h), "gray %zux%zu chunk=%zu lanes=%d differs", w, h, chunk, lanes);
    hfree(rgb);
    hfree(g);
    free(want);
}

static void check_hist(size_t n, size_t chunk, int lanes)
{
    uint8_t *x = hmalloc(n);
    uint32_t want[64], got[64];
    for (size_t i = 0; i < n; i++) x[i] = (uint8_t)(test_rand() % 200);
    memset(want, 0, sizeof want);
    for (size_t i = 0; i < n; i++)
        if (x[i] >= 8 && x[i] < 136) want[(x[i] - 8) / 2]++;
    void *dc = cuda ? test_dalloc(ctx, sizeof got) : got;
    memset(got, 0x55, sizeof got); /* OVERWRITE: the old counts must go */
    if (cuda) CHECK_OK(ctx, cupat_memset(ctx, dc, 0x55, sizeof got));
    streaming(chunk, lanes);
    CHECK_OK(ctx, cupat_histogram_even(ctx, CUPAT_HIST_U8, n, x, 64, 8, 136, CUPAT_U32, dc,
                                       CUPAT_HIST_OVERWRITE));
    if (cuda) test_download(ctx, got, dc, sizeof got);
    else CHECK_OK(ctx, cupat_sync(ctx));
    CHECK(!memcmp(got, want, sizeof got), "histogram even n=%zu chunk=%zu lanes=%d differs", n, chunk,
          lanes);
    /* range rule with uneven edges, accumulated on top */
    double edges[65];
    for (int b = 0; b <= 64; b++) edges[b] = 8 + 2 * b + (b % 3 == 1 ? 0.5 : 0);
    uint32_t want2[64];
    memcpy(want2, want, sizeof want);
    for (size_t i = 0; i < n; i++)
        for (int b = 0; b < 64; b++)
            if (x[i] >= edges[b] && x[i] < edges[b + 1]) want2[b]++;
    CHECK_OK(ctx, cupat_histogram_range(ctx, CUPAT_HIST_U8, n, x, 64, edges, CUPAT_U32, dc,
                                        CUPAT_HIST_ACCUMULATE));
    if (cuda) test_download(ctx, got, dc, sizeof got);
    else CHECK_OK(ctx, cupat_sync(ctx));
    CHECK(!memcmp(got, want2, sizeof got), "histogram range n=%zu chunk=%zu lanes=%d differs", n,
          chunk, lanes);
    plain_drop(cuda ? dc : NULL);
    hfree(x);
}

/* ------------------------------------------------------- bad arguments -- */

static void check_bad(void)
{
    void *p = NULL;
    size_t cb;
    int st;
    CHECK(cupat_malloc_host(NULL, &p, 16) == CUPAT_ERROR_NULL_POINTER, "malloc_host NULL ctx");
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "ptr is NULL", cupat_malloc_host(ctx, NULL, 16));
    CHECK_OK(ctx, cupat_malloc_host(ctx, &p, 0));
    CHECK(p == NULL, "malloc_host 0 bytes gives %p", p);
    CHECK_FAILS(ctx, CUPAT_ERROR_OUT_OF_MEMORY, "bytes = ", cupat_malloc_host(ctx, &p, SIZE_MAX - 8));
    CHECK(cupat_free_host(NULL, NULL) == CUPAT_ERROR_NULL_POINTER, "free_host NULL ctx");
    CHECK_OK(ctx, cupat_free_host(ctx, NULL));
    if (cuda) {
        void *d = test_dalloc(ctx, 64);
        CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "not live pinned host memory", cupat_free_host(ctx, d));
        CHECK_OK(ctx, cupat_free(ctx, d));
        /* pinned by cudaHostRegister, a double free, an interior pointer: refused, no CUDA error */
        static unsigned char reg[1 << 16];
        if (cudaHostRegister(reg, sizeof reg, cudaHostRegisterDefault) == cudaSuccess) {
            CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "not live pinned", cupat_free_host(ctx, reg));
            CHECK(cudaHostUnregister(reg) == cudaSuccess, "cudaHostUnregister");
        }
        void *h = NULL;
        CHECK_OK(ctx, cupat_malloc_host(ctx, &h, 64));
        CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "not live pinned", cupat_free_host(ctx, (char *)h + 16));
        CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "not live memory", cupat_free(ctx, h));
        CHECK_OK(ctx, cupat_free_host(ctx, h));
        CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "not live pinned", cupat_free_host(ctx, h));
        CHECK(cudaGetLastError() == cudaSuccess, "a refused free left a CUDA error");
    }
    CHECK(cupat_set_streaming(NULL, 0, 0) == CUPAT_ERROR_NULL_POINTER, "set_streaming NULL ctx");
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "streams = -1", cupat_set_streaming(ctx, 0, -1));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "streams = 17", cupat_set_streaming(ctx, 0, 17));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "chunk_bytes",
                cupat_set_streaming(ctx, ((size_t)1 << 40) + 1, 2));
    CHECK(cupat_get_streaming(NULL, &cb, &st) == CUPAT_ERROR_NULL_POINTER, "get_streaming NULL ctx");
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "chunk_bytes is NULL", cupat_get_streaming(ctx, NULL, &st));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "streams is NULL", cupat_get_streaming(ctx, &cb, NULL));
    streaming(1000, 2);
    CHECK_OK(ctx, cupat_get_streaming(ctx, &cb, &st));
    CHECK(cb == 1000 && st == 2, "get_streaming: %zu %d", cb, st);
    streaming(0, 0);
    CHECK_OK(ctx, cupat_get_streaming(ctx, &cb, &st));
    /* CUDA: large data's chunk, min(256 MiB, device memory / 64) in whole MiB */
    CHECK(cuda ? cb >= ((size_t)1 << 20) && cb <= ((size_t)256 << 20) && cb % ((size_t)1 << 20) == 0 && st >= 2
               : cb == 0 && st == 3,
          "auto: %zu bytes, %d streams", cb, st);

    /* the streamed calls' own checks (on the CPU with a chunk set) */
    streaming(256, 2);
    const size_t n = 1000;
    float *a = hmalloc(n * 4 + 64), *c = hmalloc(n * 4 + 64);
    memset(a, 0, n * 4 + 64);
    memset(c, 0, n * 4 + 64);
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "cupat_vadd_f32: a is NULL", cupat_vadd_f32(ctx, n, NULL, c, c));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "not 4-byte aligned",
                cupat_vadd_f32(ctx, n, (const float *)(const void *)((char *)a + 2), a, c));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "overlaps", cupat_vadd_f32(ctx, n, a, a, a + 1));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "overlaps", cupat_saxpy(ctx, n, 2.0f, a + 3, a));
    float r;
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "not 4-byte aligned",
                cupat_reduce_host(ctx, CUPAT_F32, CUPAT_OP_SUM, n, (const char *)a + 1, &r));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "op = 9", cupat_reduce_host(ctx, CUPAT_F32, (cupat_op)9, n, a, &r));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "result", cupat_reduce_host(ctx, CUPAT_F32, CUPAT_OP_SUM, n, a, a + 5));
    if (cuda) {
        float *pageable = test_xmalloc(n * 4);
        void *d = test_dalloc(ctx, 16);
        CHECK_FAILS(ctx, CUPAT_ERROR_HOST_POINTER, "pageable host memory",
                    cupat_vadd_f32(ctx, n, a, pageable, c));
        CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "device memory",
                    cupat_reduce_host(ctx, CUPAT_F32, CUPAT_OP_SUM, n, a, d));
        CHECK_FAILS(ctx, CUPAT_ERROR_HOST_POINTER, "result", cupat_reduce(ctx, CUPAT_F32, CUPAT_OP_SUM, n, a, c));
        CHECK_FAILS(ctx, CUPAT_ERROR_HOST_POINTER, "counts",
                    cupat_histogram_even(ctx, CUPAT_HIST_U8, n, a, 4, 0, 4, CUPAT_U32, c, 0));
        CHECK_OK(ctx, cupat_free(ctx, d));
        free(pageable);
    }
    uint32_t counts[4];
    void *dc = cuda ? test_dalloc(ctx, sizeof counts) : counts;
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "bins = 0",
                cupat_histogram_even(ctx, CUPAT_HIST_U8, n, a, 0, 0, 4, CUPAT_U32, dc, 0));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "sample = 7",
                cupat_histogram_even(ctx, (cupat_hist_sample)7, n, a, 4, 0, 4, CUPAT_U32, dc, 0));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "x = ",
                cupat_histogram_even(ctx, CUPAT_HIST_F32, n, (const char *)a + 2, 4, 0, 4, CUPAT_U32, dc, 0));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "not sorted",
                cupat_histogram_range(ctx, CUPAT_HIST_U8, n, a, 2, (const double[]){3, 1, 2}, CUPAT_U32, dc, 0));
    if (cuda) CHECK_OK(ctx, cupat_free(ctx, dc));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "must not overlap",
                cupat_rgb_to_gray(ctx, 10, 10, (const uint8_t *)a, 30, (uint8_t *)a + 40, 10));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "gray is NULL",
                cupat_rgb_to_gray(ctx, 10, 10, (const uint8_t *)a, 30, NULL, 10));
    streaming(0, 0);
    hfree(a);
    hfree(c);
}

/* -------------------------------------------------------------- large -- */

static int cmp_dbl(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Seconds of chunked pinned -> device copies of [x, x + bytes) in `chunk`
 * pieces, round robin over nst streams (one device buffer each), timed with
 * events from the first copy's start to the last one's end. One stream:
 * slice_gbs[i] is the rate of slice i of `slice` bytes (NULL: not asked). */
static double copy_pass(const char *x, size_t bytes, size_t chunk, int nst, void *const *d,
                        size_t slice, double *slice_gbs)
{
    cudaStream_t st[4];
    cudaEvent_t fork, join[4], mark[64];
    size_t at[64] = {0}; /* bytes copied at each mark */
    const int nmark = slice_gbs ? (int)((bytes - 1) / slice + 2) : 2;
    if (nst < 1 || nst > 4 || nmark > 64) {
        CHECK(0, "copy pass: %d streams, %d marks", nst, nmark);
        return 1;
    }
    for (int i = 0; i < nst; i++) {
        cudaStreamCreateWithFlags(&st[i], cudaStreamNonBlocking);
        cudaEventCreateWithFlags(&join[i], cudaEventDisableTiming);
    }
    cudaEventCreateWithFlags(&fork, cudaEventDisableTiming);
    for (int i = 0; i < nmark; i++) cudaEventCreate(&mark[i]);
    cudaEventRecord(mark[0], st[0]);
    cudaEventRecord(fork, st[0]);
    for (int i = 1; i < nst; i++) cudaStreamWaitEvent(st[i], fork, 0);
    size_t k = 0;
    int m = 1;
    for (size_t off = 0; off < bytes; off += chunk, k++) {
        const size_t c = bytes - off < chunk ? bytes - off : chunk;
        cudaMemcpyAsync(d[k % (size_t)nst], x + off, c, cudaMemcpyHostToDevice, st[k % (size_t)nst]);
        if (slice_gbs && (off + c) / slice > off / slice && off + c < bytes) { /* crossed a slice end */
            at[m] = off + c;
            cudaEventRecord(mark[m++], st[0]);
        }
    }
    at[m] = bytes;
    for (int i = 1; i < nst; i++) {
        cudaEventRecord(join[i], st[i]);
        cudaStreamWaitEvent(st[0], join[i], 0);
    }
    cudaEventRecord(mark[m], st[0]);
    cudaEventSynchronize(mark[m]);
    float ms = 0;
    cudaEventElapsedTime(&ms, mark[0], mark[m]);
    if (slice_gbs)
        for (int i = 0; i < m; i++) {
            float t = 0;
            cudaEventElapsedTime(&t, mark[i], mark[i + 1]);
            slice_gbs[i] = (double)(at[i + 1] - at[i]) / (t * 1e-3) / 1e9;
        }
    CHECK(cudaGetLastError() == cudaSuccess, "copy pass: a CUDA call failed");
    for (int i = 0; i < nmark; i++) cudaEventDestroy(mark[i]);
    for (int i = 0; i < nst; i++) {
        cudaEventDestroy(join[i]);
        cudaStreamDestroy(st[i]);
    }
    cudaEventDestroy(fork);
    return ms * 1e-3;
}

/* The u32 sum of x[0, n), wall seconds (the host result is waited for). */
static double timed_sum(const uint32_t *x, size_t n, uint32_t *sum)
{
    const double t0 = now();
    CHECK_OK(ctx, cupat_reduce_host(ctx, CUPAT_U32, CUPAT_OP_SUM, n, x, sum));
    return now() - t0;
}

/* The u8 histogram of x's bytes into dcnt (256 u64), wall seconds. */
static double timed_hist(const uint32_t *x, size_t bytes, uint64_t *dcnt)
{
    const double t0 = now();
    CHECK_OK(ctx, cupat_histogram_even(ctx, CUPAT_HIST_U8, bytes, x, 256, 0, 256, CUPAT_U64, dcnt, 0));
    CHECK_OK(ctx, cupat_sync(ctx));
    return now() - t0;
}

/* 32 GiB of u32 i % 1024 in pinned memory: the u32 sum (exact, modulo 2^32)
 * and the u8 histogram of its bytes, timed against the copy bound.
 *
 * The bound is the rate of copying this same input to the device alone
 * (one stream, the engine's chunk size, events; the better of two passes),
 * not of its first few GiB: where the host places pinned pages decides the
 * rate (a slice on the far NUMA node copies slower), so each 4 GiB slice's
 * rate is printed too, and the first slice (the probe an earlier version
 * used) beside it. The primitives: one untimed call on the first 1 GiB (the
 * kernels' lazy loading, the pools), then three timed calls on all 32 GiB,
 * each printed; the bar is on their median, wall clock (what a caller waits). */
static void large(void)
{
    /* CUPAT_TEST_LARGE_GIB: another size (a multiple of 4 up to 256; more
     * than the device's memory shows the streaming's point) */
    const char *env = getenv("CUPAT_TEST_LARGE_GIB");
    const long want_gib = env ? strtol(env, NULL, 10) : 32;
    const size_t gib = want_gib >= 4 && want_gib <= 256 && want_gib % 4 == 0 ? (size_t)want_gib : 32;
    const size_t GiB = (size_t)1 << 30, bytes = gib * GiB, n = bytes / 4, slice = 4 * GiB;
    printf("--large: pinning %zu GiB ...\n", gib);
    fflush(stdout);
    double t0 = now();
    uint32_t *x = hmalloc(bytes);
    const size_t period = (size_t)1 << 26; /* 256 MiB filled, then copied */
    for (size_t i = 0; i < period / 4; i++) x[i] = (uint32_t)(i % 1024);
    for (size_t off = period; off < bytes; off += period) memcpy((char *)x + off, x, period);
    printf("  pinned and filled in %.1f s\n", now() - t0);

    size_t chunk;
    int lanes;
    CHECK_OK(ctx, cupat_get_streaming(ctx, &chunk, &lanes));
    void *d[4] = {NULL, NULL, NULL, NULL};
    for (int i = 0; i < 4; i++) CHECK_OK(ctx, cupat_malloc(ctx, &d[i], chunk));

    /* the bound: copies alone */
    double sl[64] = {0}, sl2[64] = {0}; /* a chunk of more than a slice leaves some 0 */
    (void)copy_pass((const char *)x, GiB, chunk, 1, d, slice, NULL); /* warm-up */
    const double t_first = copy_pass((const char *)x, slice, chunk, 1, d, slice, NULL);
    const double ta = copy_pass((const char *)x, bytes, chunk, 1, d, slice, sl);
    const double tb = copy_pass((const char *)x, bytes, chunk, 1, d, slice, sl2);
    const double h2d = (double)bytes / (ta < tb ? ta : tb) / 1e9, first = (double)slice / t_first / 1e9;
    double lo = 1e30, hi = 0;
    for (int i = 0; i < (int)(bytes / slice); i++) {
        const double v = sl[i] > sl2[i] ? sl[i] : sl2[i];
        if (v <= 0) continue;
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    printf("  host-to-device copies alone (%zu MiB chunks, one stream): %zu GiB at %.2f GB/s (the bound); "
           "4 GiB slices %.2f .. %.2f GB/s; the first 4 GiB alone %.2f GB/s\n",
           chunk >> 20, gib, h2d, lo, hi, first);
    const double t_rr = copy_pass((const char *)x, bytes, chunk, lanes, d, slice, NULL);
    printf("  the same copies round robin over %d streams (the engine without kernels): %.2f GB/s = %.3f x\n",
           lanes, (double)bytes / t_rr / 1e9, (double)bytes / t_rr / 1e9 / h2d);
    for (int i = 0; i < 4; i++) CHECK_OK(ctx, cupat_free(ctx, d[i]));

    /* u32 sum */
    const uint32_t want = (uint32_t)((uint64_t)(n / 1024) * (1023u * 1024u / 2));
    uint32_t sum = 0;
    double t[3];
    (void)timed_sum(x, GiB / 4, &sum);
    CHECK(sum == (uint32_t)((uint64_t)(GiB / 4 / 1024) * (1023u * 1024u / 2)), "1 GiB u32 sum %u", sum);
    for (int r = 0; r < 3; r++) {
        sum = 0;
        t[r] = timed_sum(x, n, &sum);
        CHECK(sum == want, "%zu GiB u32 sum %u, expected %u", gib, sum, want);
    }
    printf("  cupat_reduce_host u32 sum, %zu GiB (%zu MiB x %d streams): %.3f, %.3f, %.3f s", gib, chunk >> 20,
           lanes, t[0], t[1], t[2]);
    qsort(t, 3, sizeof t[0], cmp_dbl);
    double gbs = (double)bytes / t[1] / 1e9;
    printf("; median %.2f GB/s = %.3f x the bound (%.3f x the first 4 GiB's rate)\n", gbs, gbs / h2d, gbs / first);
    CHECK(gbs >= 0.9 * h2d, "reduce below 0.9 x the copy bound");

    /* u8 histogram */
    uint64_t *dcnt = test_dalloc(ctx, 256 * 8), cnt[256];
    (void)timed_hist(x, GiB, dcnt);
    for (int r = 0; r < 3; r++) {
        CHECK_OK(ctx, cupat_memset(ctx, dcnt, 0xA5, 256 * 8)); /* the call must overwrite */
        t[r] = timed_hist(x, bytes, dcnt);
        test_download(ctx, cnt, dcnt, sizeof cnt);
        /* a period of 1024 words: byte 0 takes 0..255 four times, byte 1
         * 0..3 256 times each, bytes 2 and 3 are 0 */
        const uint64_t periods = n / 1024;
        size_t bad = 0;
        for (int b = 0; b < 256; b++) {
            uint64_t e = 4 * periods + (b < 4 ? 256 * periods : 0) + (b == 0 ? 2048 * periods : 0);
            bad += cnt[b] != e;
        }
        CHECK(bad == 0, "%zu GiB histogram: %zu bins wrong", gib, bad);
    }
    printf("  cupat_histogram_even u8, %zu GiB: %.3f, %.3f, %.3f s", gib, t[0], t[1], t[2]);
    qsort(t, 3, sizeof t[0], cmp_dbl);
    gbs = (double)bytes / t[1] / 1e9;
    printf("; median %.2f GB/s = %.3f x the bound (%.3f x the first 4 GiB's rate)\n", gbs, gbs / h2d, gbs / first);
    CHECK(gbs >= 0.9 * h2d, "histogram below 0.9 x the copy bound");
    CHECK_OK(ctx, cupat_free(ctx, dcnt));

    /* other settings, one call each (information for the defaults) */
    static const struct {
        size_t mib;
        int lanes;
    } alt[] = {{64, 3}, {256, 2}, {256, 4}, {1024, 3}};
    for (size_t i = 0; i < sizeof alt / sizeof alt[0]; i++) {
        streaming(alt[i].mib << 20, alt[i].lanes);
        sum = 0;
        const double ts = timed_sum(x, n, &sum);
        CHECK(sum == want, "%zu GiB u32 sum (%zu MiB x %d) %u", gib, alt[i].mib, alt[i].lanes, sum);
        printf("  (setting) reduce, %4zu MiB x %d streams: %.3f s, %.3f x the bound\n", alt[i].mib, alt[i].lanes,
               ts, (double)bytes / ts / 1e9 / h2d);
    }
    streaming(0, 0);
    hfree(x);
}

int main(int argc, char **argv)
{
    int want_large = 0;
    for (int i = 1; i < argc; i++) want_large |= !strcmp(argv[i], "--large");
    ctx = test_init(argc, argv);
    cuda = cupat_get_backend(ctx) == CUPAT_BACKEND_CUDA;
    test_seed();
    if (want_large) {
        if (!cuda) {
            printf("SKIP: --large needs --backend cuda\n");
            cupat_destroy(ctx);
            return TEST_SKIP;
        }
        large();
        return test_finish(ctx);
    }
    check_bad();
    /* chunks of 1 KiB: 256 floats; sizes around it, and one chunk for all */
    static const size_t sizes[] = {1, 255, 256, 257, 1000, 4099, 100003};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        const size_t n = sizes[i];
        for (int lanes = 1; lanes <= 3; lanes += 2) {
            check_ew(n, 1024, lanes);
            check_reduce(n, 1024, lanes);
            check_hist(n, 300, lanes); /* 300 bytes: 256 samples a chunk */
        }
    }
    if (cuda) { /* auto chunk: one chunk here */
        check_ew(100003, 0, 0);
        check_reduce(100003, 0, 0);
    }
    check_reduce(t_small ? 20000 : 1 << 20, 40000, 3); /* 10000 f32 a chunk: ~100 chunks */
    /* gray: rows of 3 * 37 bytes; chunks of 1 row (chunk < a row), 3 rows, all */
    check_gray(37, 29, 50, 2);
    check_gray(37, 29, 3 * 111 + 7, 3);
    check_gray(37, 29, 1 << 20, 3);
    check_gray(1, 1, 64, 1);
    return test_finish(ctx);
}
