/* SPDX-License-Identifier: Apache-2.0 */
/* test_elementwise.c — every rung of vadd, saxpy, matadd, gray and blur that
 * runs on the chosen backend, against loops written here (not the library's
 * CPU path): edge sizes, misaligned starts, special values, padded layouts,
 * grids past gridDim.y, n > 2^31 (CUDA, memory permitting), bad arguments.
 * Floats compare bitwise (or both NaN), bytes exactly; outputs are poisoned
 * first and the bytes around them must stay poisoned. */
#include "testutil.h"

#include "../src/elementwise/elementwise_lab.h"

#include <cuda_runtime_api.h> /* cudaMemGetInfo: room for the n > 2^31 case */
#include <float.h>
#include <stdint.h>

static cupat_ctx *ctx;
#define xmalloc(bytes) test_xmalloc(bytes)
#define dalloc(bytes) test_dalloc(ctx, bytes)

/* ------------------------------------------------------------- helpers -- */

#define dfree(p) test_dfree(ctx, p)
#define put(d, h, bytes) test_put(ctx, d, h, bytes)
#define get(h, d, bytes) test_get(ctx, h, d, bytes)

/* Pin, in turn, each rung of `pattern` that runs on this backend; NULL at the
 * end, with the default restored. */
static const char *next_rung(const char *pattern, size_t *i)
{
    const cupat_variant_info *list;
    size_t n = 0;
    CHECK_OK(NULL, cupat_variants(pattern, &list, &n));
    while (*i < n) {
        const cupat_variant_info *v = &list[(*i)++];
        if (v->backend != t_backend) continue;
        CHECK_OK(ctx, cupat_set_variant(ctx, pattern, v->name));
        return v->name;
    }
    CHECK_OK(ctx, cupat_set_variant(ctx, pattern, NULL));
    return NULL;
}
#define FOR_RUNGS(pattern, rung) \
    for (size_t it_ = 0; ((rung) = next_rung((pattern), &it_)) != NULL;)

static int same_f32(float x, float y)
{
    return (isnan(x) && isnan(y)) || memcmp(&x, &y, sizeof x) == 0;
}
/* First index where got and want differ (floats: bits, or both NaN), or n. */
static size_t diff_f32(const float *got, const float *want, size_t n)
{
    size_t i = 0;
    while (i < n && same_f32(got[i], want[i])) i++;
    return i;
}
static size_t diff_u8(const uint8_t *got, const uint8_t *want, size_t n)
{
    size_t i = 0;
    while (i < n && got[i] == want[i]) i++;
    return i;
}

/* Random floats over a range of exponents, so roundings differ. */
static float rand_f32(void)
{
    return ldexpf(test_randf(), (int)(test_rand() % 40) - 20);
}
static void fill_f32(float *p, size_t n)
{
    for (size_t i = 0; i < n; i++) p[i] = rand_f32();
}
static void fill_u8(uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) p[i] = (uint8_t)test_rand();
}

/* ------------------------------------------------------- vadd / saxpy -- */

static float ew_ref(int axpy, float alpha, float a, float b)
{
    return axpy ? fmaf(alpha, a, b) : a + b;
}

/* One case on every rung: n elements at offsets (in floats) oa of a and ob of
 * b; vadd writes c at oc, saxpy updates b (= y) in place. Buffers carry 4
 * guard floats that must stay poisoned. */
static void ew_case(int axpy, float alpha, size_t n, const float *ha, const float *hb,
                    size_t oa, size_t ob, size_t oc)
{
    const char *pat = axpy ? "saxpy" : "vadd", *rung;
    size_t cap = n + 4, bytes = n * sizeof(float);
    float *want = xmalloc(cap * sizeof(float)), *got = xmalloc(cap * sizeof(float));
    float *da = dalloc(cap * sizeof(float)), *db = dalloc(cap * sizeof(float));
    float *dc = axpy ? db : dalloc(cap * sizeof(float));
    size_t out_off = axpy ? ob : oc;
    memset(want, 0xFF, cap * sizeof(float));
    for (size_t i = 0; i < n; i++) want[out_off + i] = ew_ref(axpy, alpha, ha[i], hb[i]);
    put(da + oa, ha, bytes);
    FOR_RUNGS(pat, rung) {
        test_poison(ctx, dc, cap * sizeof(float));
        put(db + ob, hb, bytes);
        if (axpy) CHECK_OK(ctx, cupat_saxpy(ctx, n, alpha, da + oa, db + ob));
        else CHECK_OK(ctx, cupat_vadd_f32(ctx, n, da + oa, db + ob, dc + oc));
        get(got, dc, cap * sizeof(float));
        size_t k = diff_f32(got, want, cap);
        CHECK(k == cap,
              "%s/%s n=%zu alpha=%a offsets a%zu b%zu c%zu: float %zu of the output buffer "
              "(element %zd) = %a (0x%08x), want %a",
              pat, rung, n, (double)alpha, oa, ob, out_off, k, (ptrdiff_t)(k - out_off),
              k < cap ? (double)got[k] : 0.0, k < cap ? *(uint32_t *)&got[k] : 0u,
              k < cap ? (double)want[k] : 0.0);
    }
    if (!axpy) dfree(dc);
    dfree(da);
    dfree(db);
    free(want);
    free(got);
}

static void test_ew_sizes(void)
{
    size_t sizes[] = {0, 1, 31, 32, 33, 1023, 1025, t_small ? (1u << 16) - 3 : (1u << 20) + 7};
    size_t offs[][3] = {{0, 0, 0}, {1, 1, 1}, {2, 2, 2}, {3, 3, 3}, {0, 1, 2}, {3, 0, 1}};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        size_t n = sizes[s];
        float *a = xmalloc(n * sizeof(float)), *b = xmalloc(n * sizeof(float));
        fill_f32(a, n);
        fill_f32(b, n);
        float alpha = rand_f32();
        for (size_t o = 0; o < sizeof offs / sizeof *offs; o++) {
            ew_case(0, 0, n, a, b, offs[o][0], offs[o][1], offs[o][2]);
            ew_case(1, alpha, n, a, b, offs[o][0], offs[o][1], 0);
        }
        free(a);
        free(b);
    }
    if (t_backend == CUPAT_BACKEND_CUDA && !t_small) {
        /* Several times the L2 (50 MB on H100): 3 x 128 MB. */
        size_t n = ((size_t)1 << 25) + 3;
        float *a = xmalloc(n * sizeof(float)), *b = xmalloc(n * sizeof(float));
        fill_f32(a, n);
        fill_f32(b, n);
        ew_case(0, 0, n, a, b, 0, 0, 0);
        ew_case(0, 0, n, a, b, 1, 1, 1);
        ew_case(0, 0, n, a, b, 0, 2, 0);
        ew_case(1, -1.75f, n, a, b, 0, 0, 0);
        ew_case(1, 3.0f, n, a, b, 3, 3, 0);
        free(a);
        free(b);
    }
}

static void test_ew_special(void)
{
    const float s[] = {NAN,        -NAN,       INFINITY,    -INFINITY, 0.0f,     -0.0f,
                       FLT_MIN,    -FLT_MIN,   0x1p-149f,   -0x1p-149f, 0x1.fffffcp-127f,
                       FLT_MAX,    -FLT_MAX,   1.0f,        -1.0f,     0x1p-100f};
    const size_t k = sizeof s / sizeof *s, n = k * k;
    float a[sizeof s / sizeof *s * sizeof s / sizeof *s], b[sizeof a / sizeof *a];
    for (size_t i = 0; i < k; i++)
        for (size_t j = 0; j < k; j++) {
            a[i * k + j] = s[i];
            b[i * k + j] = s[j];
        }
    const float alphas[] = {1.0f, -2.5f, 0x1p-40f, FLT_MAX, INFINITY, -0.0f, NAN};
    for (size_t o = 0; o < 2; o++) {
        ew_case(0, 0, n, a, b, o, o, o);
        for (size_t i = 0; i < sizeof alphas / sizeof *alphas; i++)
            ew_case(1, alphas[i], n, a, b, o, o, 0);
    }
}

/* Fill n floats of backend memory with host pattern p (period P) by doubling
 * copies on the backend: a multiple of P is copied each time, so element i
 * ends as p[i % P]. */
static void fill_periodic(float *d, const float *p, size_t P, size_t n)
{
    put(d, p, P * sizeof(float));
    for (size_t len = P; len < n;) {
        size_t m = n - len < len ? n - len : len;
        CHECK_OK(ctx, cupat_memcpy(ctx, d + len, d, m * sizeof(float)));
        len += m;
    }
}

/* Windows of the output: start, end, around every 2^30 boundary (2^31 and
 * 2^32 among them), and random places, each compared with want[i % P]. */
static void check_periodic(const char *what, const char *rung, const float *d, size_t n,
                           const float *want, size_t P)
{
    enum { W = 4096 };
    static float got[W];
    size_t starts[64], ns = 0;
    starts[ns++] = 0;
    starts[ns++] = n - W;
    for (size_t b = (size_t)1 << 30; b < n && ns < 40; b += (size_t)1 << 30) starts[ns++] = b - W / 2;
    while (ns < 64) starts[ns++] = test_rand() % (n - W);
    for (size_t s = 0; s < ns; s++) {
        get(got, d + starts[s], sizeof got);
        size_t i = 0;
        while (i < W && same_f32(got[i], want[(starts[s] + i) % P])) i++;
        CHECK(i == W, "%s/%s n=%zu: element %zu = %a, want %a", what, rung, n, starts[s] + i,
              i < W ? (double)got[i] : 0.0, i < W ? (double)want[(starts[s] + i) % P] : 0.0);
        if (i != W) break;
    }
}

/* n > 2^31 (> 2^32 where the device holds 3 x 17 GB), so 32-bit indexing
 * anywhere would show. Inputs are periodic with a prime period, which divides
 * no power of two: a wrapped index reads the wrong value. */
static void test_ew_huge(void)
{
    size_t free_b = 0, total_b = 0;
    cudaError_t e = cudaMemGetInfo(&free_b, &total_b);
    if (e != cudaSuccess) {
        printf("note: cudaMemGetInfo failed (%s): n > 2^31 vadd/saxpy skipped\n",
               cudaGetErrorString(e));
        return;
    }
    const size_t slack = (size_t)1 << 30;
    size_t n = ((size_t)1 << 32) + ((size_t)1 << 20) + 3;
    if (3 * n * sizeof(float) + slack > free_b) n = ((size_t)1 << 31) + ((size_t)1 << 20) + 3;
    if (3 * n * sizeof(float) + slack > free_b) {
        printf("note: %zu MiB free on the device, n > 2^31 vadd/saxpy needs %zu: skipped\n",
               free_b >> 20, (3 * n * sizeof(float) + slack) >> 20);
        return;
    }
    printf("n > 2^31 case: n = %zu\n", n);
    const size_t P = 1000003;
    const float alpha = -0.8125f;
    float *pa = xmalloc(P * sizeof(float)), *pb = xmalloc(P * sizeof(float));
    float *add = xmalloc(P * sizeof(float)), *axpy = xmalloc(P * sizeof(float));
    fill_f32(pa, P);
    fill_f32(pb, P);
    for (size_t i = 0; i < P; i++) {
        add[i] = pa[i] + pb[i];
        axpy[i] = fmaf(alpha, pa[i], pb[i]);
    }
    float *da = dalloc(n * sizeof(float)), *db = dalloc(n * sizeof(float));
    float *dc = dalloc(n * sizeof(float));
    fill_periodic(da, pa, P, n);
    fill_periodic(db, pb, P, n);
    const char *rung;
    FOR_RUNGS("vadd", rung) {
        test_poison(ctx, dc, n * sizeof(float));
        CHECK_OK(ctx, cupat_vadd_f32(ctx, n, da, db, dc));
        check_periodic("vadd", rung, dc, n, add, P);
    }
    FOR_RUNGS("saxpy", rung) {
        fill_periodic(db, pb, P, n);
        CHECK_OK(ctx, cupat_saxpy(ctx, n, alpha, da, db));
        check_periodic("saxpy", rung, db, n, axpy, P);
    }
    dfree(da);
    dfree(db);
    dfree(dc);
    free(pa);
    free(pb);
    free(add);
    free(axpy);
}

/* ------------------------------------------------------------- matadd -- */

static size_t extent(size_t rows, size_t cols, size_t ld)
{
    return rows && cols ? (rows - 1) * ld + cols : 0;
}

/* rows x cols with leading dims and start offsets (floats); in place: C = A
 * (then ldc = lda, oc = oa). The whole C buffer is compared, so writes into
 * the padding between rows or the guard floats show. */
static void matadd_case(size_t rows, size_t cols, size_t lda, size_t ldb, size_t ldc,
                        size_t oa, size_t ob, size_t oc, int inplace)
{
    if (inplace) ldc = lda, oc = oa;
    size_t na = oa + extent(rows, cols, lda) + 4, nb = ob + extent(rows, cols, ldb) + 4;
    size_t nc = oc + extent(rows, cols, ldc) + 4;
    float *A = xmalloc(na * sizeof(float)), *B = xmalloc(nb * sizeof(float));
    float *want = xmalloc(nc * sizeof(float)), *got = xmalloc(nc * sizeof(float));
    fill_f32(A, na);
    fill_f32(B, nb);
    if (inplace) memcpy(want, A, nc * sizeof(float));
    else memset(want, 0xFF, nc * sizeof(float));
    for (size_t y = 0; y < rows; y++)
        for (size_t x = 0; x < cols; x++)
            want[oc + y * ldc + x] = A[oa + y * lda + x] + B[ob + y * ldb + x];
    float *dA = dalloc(na * sizeof(float)), *dB = dalloc(nb * sizeof(float));
    float *dC = inplace ? dA : dalloc(nc * sizeof(float));
    put(dB, B, nb * sizeof(float));
    const char *rung;
    FOR_RUNGS("matadd", rung) {
        if (inplace) put(dA, A, na * sizeof(float));
        else {
            put(dA, A, na * sizeof(float));
            test_poison(ctx, dC, nc * sizeof(float));
        }
        CHECK_OK(ctx, cupat_matadd_f32(ctx, rows, cols, dA + oa, lda, dB + ob, ldb, dC + oc, ldc));
        get(got, dC, nc * sizeof(float));
        size_t k = diff_f32(got, want, nc);
        CHECK(k == nc,
              "matadd/%s %zux%zu ld %zu,%zu,%zu offsets %zu,%zu,%zu%s: C buffer float %zu = %a, "
              "want %a",
              rung, rows, cols, lda, ldb, ldc, oa, ob, oc, inplace ? " in place" : "", k,
              k < nc ? (double)got[k] : 0.0, k < nc ? (double)want[k] : 0.0);
    }
    if (!inplace) dfree(dC);
    dfree(dA);
    dfree(dB);
    free(A);
    free(B);
    free(want);
    free(got);
}

static void test_matadd(void)
{
    size_t R = t_small ? 200 : 1000, Cc = t_small ? 199 : 999; /* 1000 x 999, or <= 2^16 */
    matadd_case(1, 1, 1, 1, 1, 0, 0, 0, 0);
    matadd_case(0, 5, 5, 5, 5, 0, 0, 0, 0);
    matadd_case(5, 0, 0, 0, 0, 0, 0, 0, 0);
    matadd_case(17, 33, 33, 33, 33, 0, 0, 0, 0);
    matadd_case(17, 33, 36, 40, 44, 0, 0, 0, 0); /* float4 rows, cols % 4 = 1 */
    matadd_case(17, 33, 36, 36, 36, 1, 1, 1, 0); /* rows not 16-byte aligned */
    matadd_case(17, 33, 35, 37, 33, 1, 2, 3, 0);
    matadd_case(17, 32, 32, 32, 32, 0, 0, 0, 0);
    matadd_case(R, Cc, R, R + 4, R + 8, 0, 0, 0, 0);
    matadd_case(R, Cc, R + 1, Cc, R + 3, 0, 3, 1, 0);
    size_t L = t_small ? 256 : 1024;
    matadd_case(R, Cc, L, L, L, 0, 0, 0, 0);
    matadd_case(R, Cc, R + 4, R, 0, 0, 0, 0, 1);
    matadd_case(R, 4, 4, 4, 4, 2, 2, 2, 0);
    if (t_backend == CUPAT_BACKEND_CUDA && !t_small) {
        /* Past gridDim.y x 16 rows (the 2d rung loops), and one long row. */
        matadd_case(((size_t)1 << 20) + 5, 3, 4, 4, 4, 0, 0, 0, 0);
        matadd_case(((size_t)1 << 20) + 5, 3, 3, 3, 3, 0, 1, 0, 0);
        matadd_case(1, ((size_t)1 << 20) + 7, ((size_t)1 << 20) + 7, ((size_t)1 << 20) + 7,
                    ((size_t)1 << 20) + 7, 0, 0, 0, 0);
    }
}

/* The PCCP 3.3 lab hook: block shapes (including odd ones), result and occupancy. */
static void test_blockshape(void)
{
    size_t rows = t_small ? 200 : 1000, cols = t_small ? 199 : 999, n = rows * cols;
    float *A = xmalloc(n * sizeof(float)), *B = xmalloc(n * sizeof(float));
    float *want = xmalloc(n * sizeof(float)), *got = xmalloc(n * sizeof(float));
    fill_f32(A, n);
    fill_f32(B, n);
    for (size_t i = 0; i < n; i++) want[i] = A[i] + B[i];
    float *dA = dalloc(n * sizeof(float)), *dB = dalloc(n * sizeof(float));
    float *dC = dalloc(n * sizeof(float));
    double occ = -1;
    if (t_backend != CUPAT_BACKEND_CUDA) {
        CHECK_FAILS(ctx, CUPAT_ERROR_NOT_SUPPORTED, "CUDA",
                    cupat__matadd_blockshape(ctx, 32, 16, rows, cols, dA, dB, dC, &occ));
        goto out;
    }
    put(dA, A, n * sizeof(float));
    put(dB, B, n * sizeof(float));
    const unsigned shapes[][2] = {{32, 32}, {32, 16}, {16, 32}, {16, 16}, {256, 1},
                                  {1, 1},   {7, 3},   {1, 1024}, {1024, 1}, {64, 16}};
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        unsigned bx = shapes[s][0], by = shapes[s][1];
        occ = -1;
        test_poison(ctx, dC, n * sizeof(float));
        CHECK_OK(ctx, cupat__matadd_blockshape(ctx, bx, by, rows, cols, dA, dB, dC, &occ));
        CHECK(occ > 0 && occ <= 1, "blockshape %ux%u: occupancy %g not in (0, 1]", bx, by, occ);
        get(got, dC, n * sizeof(float));
        size_t k = diff_f32(got, want, n);
        CHECK(k == n, "blockshape %ux%u: element %zu wrong", bx, by, k);
    }
    CHECK_OK(ctx, cupat__matadd_blockshape(ctx, 32, 16, rows, cols, dA, dB, dC, NULL));
    occ = -1;
    CHECK_OK(ctx, cupat__matadd_blockshape(ctx, 32, 32, 0, 0, NULL, NULL, NULL, &occ));
    CHECK(occ > 0 && occ <= 1, "blockshape on an empty matrix still reports occupancy");
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "64 x 32",
                cupat__matadd_blockshape(ctx, 64, 32, rows, cols, dA, dB, dC, &occ));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "0 x 16",
                cupat__matadd_blockshape(ctx, 0, 16, rows, cols, dA, dB, dC, &occ));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "1 x 2048",
                cupat__matadd_blockshape(ctx, 1, 2048, rows, cols, dA, dB, dC, &occ));
    CHECK_FAILS(ctx, CUPAT_ERROR_HOST_POINTER, "B = ",
                cupat__matadd_blockshape(ctx, 32, 16, rows, cols, dA, B, dC, &occ));
    CHECK_FAILS(NULL, CUPAT_ERROR_NULL_POINTER, "ctx is NULL",
                cupat__matadd_blockshape(NULL, 32, 16, rows, cols, dA, dB, dC, &occ));
out:
    dfree(dA);
    dfree(dB);
    dfree(dC);
    free(A);
    free(B);
    free(want);
    free(got);
}

/* --------------------------------------------------------------- gray -- */

/* PMPP 3.2's formula, each product and sum rounded to float on its own
 * (volatile forbids contraction whatever the compiler flags). */
static uint8_t ref_gray(uint8_t r, uint8_t g, uint8_t b)
{
    volatile float pr = 0.21f * (float)r, pg = 0.71f * (float)g, pb = 0.07f * (float)b;
    volatile float s = pr + pg;
    return (uint8_t)(s + pb);
}

/* w x h with pitches and byte offsets of the two images; the whole gray
 * buffer (padding and guard included) is compared. `rgb_host` may give the
 * pixels (tight rows), else random. */
static void gray_case(size_t w, size_t h, size_t rp, size_t gp, size_t orgb, size_t ogray,
                      const uint8_t *rgb_host)
{
    size_t nr = orgb + extent(h, 3 * w, rp) + 16, ng = ogray + extent(h, w, gp) + 16;
    uint8_t *rgb = xmalloc(nr), *want = xmalloc(ng), *got = xmalloc(ng);
    fill_u8(rgb, nr);
    if (rgb_host)
        for (size_t y = 0; y < h; y++) memcpy(rgb + orgb + y * rp, rgb_host + y * 3 * w, 3 * w);
    memset(want, 0xFF, ng);
    for (size_t y = 0; y < h; y++)
        for (size_t x = 0; x < w; x++) {
            const uint8_t *p = rgb + orgb + y * rp + 3 * x;
            want[ogray + y * gp + x] = ref_gray(p[0], p[1], p[2]);
        }
    uint8_t *drgb = dalloc(nr), *dgray = dalloc(ng);
    put(drgb, rgb, nr);
    const char *rung;
    FOR_RUNGS("gray", rung) {
        test_poison(ctx, dgray, ng);
        CHECK_OK(ctx, cupat_rgb_to_gray(ctx, w, h, drgb + orgb, rp, dgray + ogray, gp));
        get(got, dgray, ng);
        size_t k = diff_u8(got, want, ng);
        CHECK(k == ng, "gray/%s %zux%zu pitches %zu,%zu offsets %zu,%zu: byte %zu = %d, want %d",
              rung, w, h, rp, gp, orgb, ogray, k, k < ng ? got[k] : -1, k < ng ? want[k] : -1);
    }
    dfree(drgb);
    dfree(dgray);
    free(rgb);
    free(want);
    free(got);
}

static void test_gray(void)
{
    size_t W = t_small ? 160 : 640, H = t_small ? 96 : 480;
    gray_case(1, 1, 3, 1, 0, 0, NULL);
    gray_case(17, 13, 51, 17, 0, 0, NULL);
    gray_case(17, 13, 64, 32, 0, 0, NULL);  /* 16-byte rows */
    gray_case(17, 13, 52, 20, 0, 0, NULL);  /* 4-byte rows only */
    gray_case(17, 13, 52, 20, 4, 8, NULL);
    gray_case(33, 7, 112, 48, 16, 16, NULL);
    gray_case(W, H, 3 * W, W, 0, 0, NULL);  /* tight, 16-byte aligned rows */
    gray_case(W, H, 3 * W + 1, W + 3, 0, 0, NULL);
    gray_case(W, H, 3 * W, W, 1, 0, NULL);  /* misaligned start */
    gray_case(W, H, 3 * W, W, 4, 4, NULL);
    gray_case(W + 5, H, 3 * (W + 5) + 11, W + 7, 16, 32, NULL);
    if (!t_small) {
        /* Every colour once: 4096 x 4096 pixels, pixel i = (r, g, b) of i. */
        size_t n = (size_t)1 << 24;
        uint8_t *all = xmalloc(3 * n);
        for (size_t i = 0; i < n; i++) {
            all[3 * i] = (uint8_t)(i >> 16);
            all[3 * i + 1] = (uint8_t)(i >> 8);
            all[3 * i + 2] = (uint8_t)i;
        }
        gray_case(4096, 4096, 3 * 4096, 4096, 0, 0, all);
        free(all);
    }
    if (t_backend == CUPAT_BACKEND_CUDA && !t_small)
        gray_case(5, ((size_t)1 << 20) + 9, 16, 16, 0, 0, NULL); /* past gridDim.y x 16 */
}

/* --------------------------------------------------------------- blur -- */

/* Reference by a summed-area table: S(y, x) = sum of the pixels above-left. */
static void ref_blur(size_t w, size_t h, int C, int r, const uint8_t *in, uint8_t *out)
{
    size_t W = w + 1;
    uint64_t *S = calloc(W * (h + 1) * C, sizeof *S);
    if (!S) exit(1);
    for (size_t y = 0; y < h; y++)
        for (size_t x = 0; x < w; x++)
            for (int c = 0; c < C; c++)
                S[((y + 1) * W + x + 1) * C + c] = in[(y * w + x) * C + c] +
                                                   S[((y + 1) * W + x) * C + c] +
                                                   S[(y * W + x + 1) * C + c] -
                                                   S[(y * W + x) * C + c];
    for (size_t y = 0; y < h; y++) {
        size_t y0 = y > (size_t)r ? y - r : 0, y1 = y + r + 1 < h ? y + r + 1 : h;
        for (size_t x = 0; x < w; x++) {
            size_t x0 = x > (size_t)r ? x - r : 0, x1 = x + r + 1 < w ? x + r + 1 : w;
            for (int c = 0; c < C; c++) {
                uint64_t s = S[(y1 * W + x1) * C + c] - S[(y0 * W + x1) * C + c] -
                             S[(y1 * W + x0) * C + c] + S[(y0 * W + x0) * C + c];
                out[(y * w + x) * C + c] = (uint8_t)(s / ((y1 - y0) * (x1 - x0)));
            }
        }
    }
    free(S);
}

/* fill: -1 random, else every byte = fill. off: bytes by which the device
 * images start past an allocation (1..3: misaligned rows for the word paths). */
static void blur_case_at(size_t w, size_t h, int C, int r, int fill, size_t off)
{
    size_t n = w * h * C, cap = n + 16;
    uint8_t *in = xmalloc(n), *want = xmalloc(cap), *got = xmalloc(cap);
    if (fill < 0) fill_u8(in, n);
    else memset(in, fill, n);
    memset(want, 0xFF, cap);
    ref_blur(w, h, C, r, in, want);
    uint8_t *din0 = dalloc(n + off), *dout0 = dalloc(cap + off);
    uint8_t *din = din0 + off, *dout = dout0 + off;
    put(din, in, n);
    const char *rung;
    FOR_RUNGS("blur", rung) {
        test_poison(ctx, dout, cap);
        CHECK_OK(ctx, cupat_blur(ctx, w, h, C, r, din, dout));
        get(got, dout, cap);
        size_t k = diff_u8(got, want, cap);
        CHECK(k == cap, "blur/%s %zux%zu C=%d r=%d off %zu: byte %zu = %d, want %d", rung, w, h,
              C, r, off, k, k < cap ? got[k] : -1, k < cap ? want[k] : -1);
    }
    dfree(din0);
    dfree(dout0);
    free(in);
    free(want);
    free(got);
}

static void blur_case(size_t w, size_t h, int C, int r, int fill)
{
    blur_case_at(w, h, C, r, fill, 0);
}

static void test_blur(void)
{
    /* every form of the columns rung: r < 4, r mod 4 = 1..3 (and 9, 13: the
     * same form, larger rings), r = 4, 8, 12, 16; past it */
    const int radii[] = {0, 1, 2, 3, 4, 5, 8, 9, 12, 13, 16, 17, 64};
    const size_t shapes[][2] = {{1, 1}, {17, 13}, {t_small ? 100 : 640, t_small ? 80 : 480}};
    for (size_t s = 0; s < 3; s++)
        for (int C = 1; C <= 4; C++)
            for (size_t i = 0; i < sizeof radii / sizeof *radii; i++) {
                size_t w = shapes[s][0], h = shapes[s][1];
                if (t_small && radii[i] == 64 && w > 17) w = 40, h = 30; /* sanitizer time */
                blur_case(w, h, C, radii[i], -1);
            }
    blur_case(t_small ? 40 : 640, t_small ? 30 : 480, 4, 64, 255); /* largest sums */
    blur_case(200, 3, 3, 8, -1);                                    /* wide, few rows */
    blur_case(3, 200, 1, 8, -1);                                    /* tall, few cols */
    for (int C = 1; C <= 4; C++) { /* misaligned images: byte paths; many segments and chunks */
        blur_case_at(t_small ? 301 : 1001, t_small ? 45 : 167, C, 5, -1, 1);
        blur_case_at(t_small ? 300 : 1000, t_small ? 44 : 166, C, 2, -1, 3);
    }
    /* the columns-tma rung's images (rows a multiple of 16 bytes): one box and
     * less, partial last segments and boxes, several chunks, every form */
    const size_t tw[] = {16, 48, 208, 1040}, th[] = {1, 7, 37, 93};
    const int tr[] = {0, 1, 2, 3, 5, 8, 16};
    for (size_t s = 0; s < 4; s++)
        for (int C = 1; C <= 4; C++)
            for (size_t i = 0; i < sizeof tr / sizeof *tr; i++) blur_case(tw[s], th[s], C, tr[i], -1);
    blur_case_at(1040, 93, 3, 1, -1, 16); /* aligned, not at the allocation's start */
    blur_case(t_small ? 512 : 1920, t_small ? 64 : 1080, 3, 8, 255); /* all 255: exact means */
    if (t_backend == CUPAT_BACKEND_CUDA && !t_small) {
        blur_case(3, ((size_t)1 << 20) + 17, 1, 3, -1); /* past gridDim.y x 16 rows */
        blur_case(1, ((size_t)1 << 22) + ((size_t)1 << 20) + 1, 1, 2, -1); /* > 65535 bands */
    }
}

/* ------------------------------------------------------- bad arguments -- */

static void test_bad_args(void)
{
    float *d = dalloc(64 * sizeof(float)), *e = dalloc(64 * sizeof(float));
    CHECK_OK(ctx, cupat_memset(ctx, d, 0, 64 * sizeof(float))); /* initcheck: calls below read */
    CHECK_OK(ctx, cupat_memset(ctx, e, 0, 64 * sizeof(float)));
    uint8_t *img = (uint8_t *)d, *img2 = (uint8_t *)e;
    float *host = xmalloc(64 * sizeof(float));
    memset(host, 0, 64 * sizeof(float));
    const size_t huge = SIZE_MAX / 2;

    /* NULL ctx */
    CHECK_FAILS(NULL, CUPAT_ERROR_NULL_POINTER, "ctx is NULL", cupat_vadd_f32(NULL, 4, d, d, e));
    CHECK_FAILS(NULL, CUPAT_ERROR_NULL_POINTER, "ctx is NULL", cupat_saxpy(NULL, 4, 1, d, e));
    CHECK_FAILS(NULL, CUPAT_ERROR_NULL_POINTER, "ctx is NULL",
                cupat_matadd_f32(NULL, 2, 2, d, 2, d, 2, e, 2));
    CHECK_FAILS(NULL, CUPAT_ERROR_NULL_POINTER, "ctx is NULL",
                cupat_rgb_to_gray(NULL, 2, 2, img, 6, img2, 2));
    CHECK_FAILS(NULL, CUPAT_ERROR_NULL_POINTER, "ctx is NULL",
                cupat_blur(NULL, 2, 2, 1, 1, img, img2));

    /* NULL data */
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "a is NULL", cupat_vadd_f32(ctx, 4, NULL, d, e));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "b is NULL", cupat_vadd_f32(ctx, 4, d, NULL, e));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "c is NULL", cupat_vadd_f32(ctx, 4, d, d, NULL));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "x is NULL", cupat_saxpy(ctx, 4, 1, NULL, e));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "y is NULL", cupat_saxpy(ctx, 4, 1, d, NULL));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "A is NULL",
                cupat_matadd_f32(ctx, 2, 2, NULL, 2, d, 2, e, 2));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "B is NULL",
                cupat_matadd_f32(ctx, 2, 2, d, 2, NULL, 2, e, 2));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "C is NULL",
                cupat_matadd_f32(ctx, 2, 2, d, 2, d, 2, NULL, 2));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "rgb is NULL",
                cupat_rgb_to_gray(ctx, 2, 2, NULL, 6, img2, 2));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "gray is NULL",
                cupat_rgb_to_gray(ctx, 2, 2, img, 6, NULL, 2));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "in is NULL", cupat_blur(ctx, 2, 2, 1, 1, NULL, img2));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "out is NULL", cupat_blur(ctx, 2, 2, 1, 1, img, NULL));

    /* Zero sizes: success, nothing touched, NULL allowed. */
    CHECK_OK(ctx, cupat_vadd_f32(ctx, 0, NULL, NULL, NULL));
    CHECK_OK(ctx, cupat_saxpy(ctx, 0, 2, NULL, NULL));
    CHECK_OK(ctx, cupat_matadd_f32(ctx, 0, 7, NULL, 7, NULL, 7, NULL, 7));
    CHECK_OK(ctx, cupat_matadd_f32(ctx, 7, 0, NULL, 0, NULL, 0, NULL, 0));
    CHECK_OK(ctx, cupat_rgb_to_gray(ctx, 0, 5, NULL, 0, NULL, 0));
    CHECK_OK(ctx, cupat_rgb_to_gray(ctx, 5, 0, NULL, 15, NULL, 5));
    CHECK_OK(ctx, cupat_blur(ctx, 0, 9, 3, 2, NULL, NULL));
    CHECK_OK(ctx, cupat_blur(ctx, 9, 0, 3, 2, NULL, NULL));

    /* Host memory on the CUDA backend: refused, naming the argument. */
    if (t_backend == CUPAT_BACKEND_CUDA) {
        CHECK_FAILS(ctx, CUPAT_ERROR_HOST_POINTER, "b = ", cupat_vadd_f32(ctx, 4, d, host, e));
        CHECK_FAILS(ctx, CUPAT_ERROR_HOST_POINTER, "c = ", cupat_vadd_f32(ctx, 4, d, d, host));
        CHECK_FAILS(ctx, CUPAT_ERROR_HOST_POINTER, "x = ", cupat_saxpy(ctx, 4, 1, host, e));
        CHECK_FAILS(ctx, CUPAT_ERROR_HOST_POINTER, "y = ", cupat_saxpy(ctx, 4, 1, d, host));
        CHECK_FAILS(ctx, CUPAT_ERROR_HOST_POINTER, "A = ",
                    cupat_matadd_f32(ctx, 2, 2, host, 2, d, 2, e, 2));
        CHECK_FAILS(ctx, CUPAT_ERROR_HOST_POINTER, "rgb = ",
                    cupat_rgb_to_gray(ctx, 2, 2, (uint8_t *)host, 6, img2, 2));
        CHECK_FAILS(ctx, CUPAT_ERROR_HOST_POINTER, "out = ",
                    cupat_blur(ctx, 2, 2, 1, 1, img, (uint8_t *)host));
    }

    /* Absurd sizes: refused before any pointer is looked at. */
    CHECK_FAILS(ctx, CUPAT_ERROR_SIZE, "overflows", cupat_vadd_f32(ctx, huge, d, d, e));
    CHECK_FAILS(ctx, CUPAT_ERROR_SIZE, "overflows", cupat_saxpy(ctx, huge, 1, d, e));
    CHECK_FAILS(ctx, CUPAT_ERROR_SIZE, "overflows",
                cupat_matadd_f32(ctx, huge, 4, d, 4, d, 4, e, 4));
    CHECK_FAILS(ctx, CUPAT_ERROR_SIZE, "overflows",
                cupat_matadd_f32(ctx, 4, huge, d, huge, d, huge, e, huge));
    CHECK_FAILS(ctx, CUPAT_ERROR_SIZE, "overflows",
                cupat_rgb_to_gray(ctx, huge, 2, img, SIZE_MAX, img2, SIZE_MAX));
    CHECK_FAILS(ctx, CUPAT_ERROR_SIZE, "overflows",
                cupat_rgb_to_gray(ctx, 4, huge, img, 12, img2, 4));
    CHECK_FAILS(ctx, CUPAT_ERROR_SIZE, "overflows", cupat_blur(ctx, huge, 4, 1, 1, img, img2));
    CHECK_FAILS(ctx, CUPAT_ERROR_SIZE, "overflows", cupat_blur(ctx, huge, huge, 4, 1, img, img2));

    /* Leading dimensions and pitches too small. */
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "lda = 3",
                cupat_matadd_f32(ctx, 2, 4, d, 3, d, 4, e, 4));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "ldb = 2",
                cupat_matadd_f32(ctx, 2, 4, d, 4, d, 2, e, 4));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "ldc = 0",
                cupat_matadd_f32(ctx, 2, 4, d, 4, d, 4, e, 0));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "rgb_pitch = 5",
                cupat_rgb_to_gray(ctx, 2, 2, img, 5, img2, 2));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "gray_pitch = 1",
                cupat_rgb_to_gray(ctx, 2, 2, img, 6, img2, 1));

    /* Channels and radius. */
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "channels = 0", cupat_blur(ctx, 2, 2, 0, 1, img, img2));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "channels = 5", cupat_blur(ctx, 2, 2, 5, 1, img, img2));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "radius = -1", cupat_blur(ctx, 2, 2, 1, -1, img, img2));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "radius = 65", cupat_blur(ctx, 2, 2, 1, 65, img, img2));

    /* Misaligned floats; partial overlaps. */
    const float *odd = (const float *)((const char *)d + 2);
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "not 4-byte aligned",
                cupat_vadd_f32(ctx, 4, odd, d, e));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "x = ", cupat_saxpy(ctx, 4, 1, odd, e));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "C = ",
                cupat_matadd_f32(ctx, 2, 2, d, 2, d, 2, (float *)((char *)e + 1), 2));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "overlaps", cupat_vadd_f32(ctx, 8, d, e, d + 1));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "overlaps", cupat_saxpy(ctx, 8, 1, e + 3, e));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "overlaps",
                cupat_matadd_f32(ctx, 2, 2, d, 2, e, 2, d, 3));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "overlaps", cupat_blur(ctx, 4, 4, 1, 1, img, img));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "overlaps",
                cupat_rgb_to_gray(ctx, 4, 4, img, 12, img + 8, 4));
    /* Exact in-place use is allowed. */
    CHECK_OK(ctx, cupat_vadd_f32(ctx, 8, d, e, d));
    CHECK_OK(ctx, cupat_matadd_f32(ctx, 2, 2, d, 2, e, 2, e, 2));

    /* Rungs: unknown, and of the other backend. */
    CHECK_FAILS(ctx, CUPAT_ERROR_NOT_FOUND, "warp-magic",
                cupat_set_variant(ctx, "vadd", "warp-magic"));
    CHECK_FAILS(ctx, CUPAT_ERROR_NOT_FOUND, "no-such-pattern",
                cupat_set_variant(ctx, "no-such-pattern", "naive"));
    CHECK_FAILS(ctx, CUPAT_ERROR_NOT_SUPPORTED, "backend",
                cupat_set_variant(ctx, "blur", t_backend == CUPAT_BACKEND_CPU ? "separable" : "cpu"));
    CHECK_OK(ctx, cupat_sync(ctx));
    dfree(d);
    dfree(e);
    free(host);
}

/* ------------------------------------------------------------ registry -- */

static void test_registry(void)
{
    const char *pats[] = {"vadd", "saxpy", "matadd", "gray", "blur"};
    for (size_t p = 0; p < 5; p++) {
        const cupat_variant_info *v, *def;
        size_t n = 0;
        CHECK_OK(NULL, cupat_variants(pats[p], &v, &n));
        int defaults[3] = {0, 0, 0};
        for (size_t i = 0; i < n; i++) {
            CHECK(strcmp(v[i].pattern, pats[p]) == 0, "%s rung %zu names pattern %s", pats[p], i,
                  v[i].pattern);
            CHECK(v[i].technique && *v[i].technique && v[i].source && *v[i].source,
                  "%s/%s: technique and source", pats[p], v[i].name);
            for (size_t j = 0; j < i; j++)
                CHECK(strcmp(v[i].name, v[j].name) != 0, "%s: rung %s twice", pats[p], v[i].name);
            if (v[i].is_default) defaults[v[i].backend]++;
        }
        CHECK(defaults[CUPAT_BACKEND_CPU] == 1 && defaults[CUPAT_BACKEND_CUDA] == 1,
              "%s: one default per backend (cpu %d, cuda %d)", pats[p], defaults[1], defaults[2]);
        CHECK_OK(ctx, cupat_get_variant(ctx, pats[p], &def));
        CHECK(def && def->is_default && def->backend == t_backend, "%s: default runs", pats[p]);
    }
}

static void part_errors(void)
{
    test_registry();
    test_bad_args();
}
/* CUDA, not --small */
static void part_huge(void)
{
    if (t_backend == CUPAT_BACKEND_CUDA && !t_small) test_ew_huge();
}

int main(int argc, char **argv)
{
    ctx = test_init(argc, argv);
    test_seed();
    static const test_part parts[] = {
        {"errors", part_errors}, {"sizes", test_ew_sizes},   {"special", test_ew_special},
        {"huge", part_huge},     {"matadd", test_matadd},    {"blockshape", test_blockshape},
        {"gray", test_gray},     {"blur", test_blur},
    };
    test_run_parts(argc, argv, parts, sizeof parts / sizeof *parts, NULL);
    return test_finish(ctx);
}
