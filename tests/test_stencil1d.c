/* SPDX-License-Identifier: Apache-2.0 */
/* test_stencil1d.c — every rung of the context's backend against a reference
 * loop that evaluates the documented sum in the documented order (a chain of
 * fmaf from 0, j = 0..2r, zero padding), so the comparison is bitwise.
 * Radii 0..8, sizes around the tile edges, misaligned pointers, then the
 * argument checks. */
#include "testutil.h"

#include <math.h>

static void reference(size_t n, int r, const float *c, const float *x, float *y)
{
    for (size_t i = 0; i < n; i++) {
        float acc = 0.0f;
        for (int j = 0; j <= 2 * r; j++) {
            long long k = (long long)i + j - r;
            acc = fmaf(c[j], (k >= 0 && (size_t)k < n) ? x[k] : 0.0f, acc);
        }
        y[i] = acc;
    }
}

/* One run; `shift` floats of offset on in and out (misaligned starts). */
static void check_one(cupat_ctx *ctx, const char *rung, size_t n, int r, size_t shift)
{
    float c[17];
    for (int j = 0; j <= 2 * r; j++) c[j] = test_randf();
    size_t bytes = (n + shift) * sizeof(float);
    float *h_in = malloc(bytes), *want = malloc(n * sizeof(float)), *got = malloc(bytes);
    if (!h_in || !want || !got) {
        CHECK(0, "host allocation");
        free(h_in), free(want), free(got);
        return;
    }
    for (size_t i = 0; i < n + shift; i++) h_in[i] = test_randf();
    reference(n, r, c, h_in + shift, want);
    float *d_in = test_upload(ctx, h_in, bytes);
    float *d_out = test_upload(ctx, NULL, bytes);
    test_poison(ctx, d_out, bytes);
    CHECK_OK(ctx, cupat_stencil1d(ctx, n, r, c, d_in + shift, d_out + shift));
    test_download(ctx, got, d_out, bytes);
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < n; i++)
        if (memcmp(&got[shift + i], &want[i], sizeof(float)) != 0 && bad++ == 0) first = i;
    for (size_t i = 0; i < shift; i++) /* nothing written before out */
        if (memcmp(&got[i], &(uint32_t){0xFFFFFFFFu}, 4) != 0) bad++;
    CHECK(bad == 0, "rung %s, n %zu, radius %d, shift %zu: %zu wrong, first at %zu (%a vs %a)",
          rung, n, r, shift, bad, first, bad ? got[shift + first] : 0.0, bad ? want[first] : 0.0);
    cupat_free(ctx, d_in);
    cupat_free(ctx, d_out);
    free(h_in), free(want), free(got);
}

static void test_rungs(cupat_ctx *ctx)
{
    static const size_t sizes[] = {1, 2, 7, 31, 255, 256, 257, 2047, 2048, 2049, 6144, 10007, 65536};
    static const size_t big[] = {1000003, ((size_t)1 << 22) + 5};
    static const int radii[] = {0, 1, 2, 3, 4, 5, 8};
    const cupat_variant_info *list;
    size_t count;
    CHECK_OK(ctx, cupat_variants("stencil1d", &list, &count));
    for (size_t v = 0; v < count; v++) {
        if (list[v].backend != t_backend) continue;
        CHECK_OK(ctx, cupat_set_variant(ctx, "stencil1d", list[v].name));
        for (size_t ri = 0; ri < sizeof radii / sizeof radii[0]; ri++) {
            int r = radii[ri];
            for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
                if (t_small && sizes[si] > 10007) continue;
                check_one(ctx, list[v].name, sizes[si], r, 0);
                if (sizes[si] % 7 == 0 || sizes[si] == 2049) check_one(ctx, list[v].name, sizes[si], r, 1);
            }
            if (!t_small && t_backend == CUPAT_BACKEND_CUDA && (r == 4 || r == 8))
                for (size_t bi = 0; bi < sizeof big / sizeof big[0]; bi++) {
                    check_one(ctx, list[v].name, big[bi], r, 0);
                    check_one(ctx, list[v].name, big[bi], r, 3);
                }
        }
        /* Every radius 0..8 once at a size with full and partial tiles. */
        for (int r = 0; r <= 8; r++) check_one(ctx, list[v].name, 4099, r, 0);
    }
    CHECK_OK(ctx, cupat_set_variant(ctx, "stencil1d", NULL));
}

static void test_special(cupat_ctx *ctx)
{
    /* Known values: the 3-point Laplacian [1 -2 1] on x = i^2 gives 2 inside,
     * and the zero padding shows at both ends. */
    enum { N = 9 };
    float c[3] = {1.0f, -2.0f, 1.0f}, x[N], y[N];
    for (int i = 0; i < N; i++) x[i] = (float)(i * i);
    float *d_in = test_upload(ctx, x, sizeof x), *d_out = test_upload(ctx, NULL, sizeof y);
    CHECK_OK(ctx, cupat_stencil1d(ctx, N, 1, c, d_in, d_out));
    test_download(ctx, y, d_out, sizeof y);
    CHECK(y[0] == 1.0f, "y[0] = %g, want 0 - 0 + 1 = 1", y[0]);
    for (int i = 1; i < N - 1; i++) CHECK(y[i] == 2.0f, "y[%d] = %g, want 2", i, y[i]);
    CHECK(y[N - 1] == 49.0f - 128.0f, "y[8] = %g, want 49 - 128 + 0", y[N - 1]);
    /* NaN propagates. */
    x[4] = NAN;
    CHECK_OK(ctx, cupat_memcpy(ctx, d_in, x, sizeof x));
    CHECK_OK(ctx, cupat_stencil1d(ctx, N, 1, c, d_in, d_out));
    test_download(ctx, y, d_out, sizeof y);
    CHECK(isnan(y[3]) && isnan(y[4]) && isnan(y[5]) && !isnan(y[2]) && !isnan(y[6]),
          "NaN spreads to its window only");
    cupat_free(ctx, d_in);
    cupat_free(ctx, d_out);
}

static void test_errors(cupat_ctx *ctx)
{
    enum { N = 64 };
    float c[17] = {0}, host[N];
    float *in = test_upload(ctx, NULL, N * 4), *out = test_upload(ctx, NULL, N * 4);
    CHECK_FAILS(NULL, CUPAT_ERROR_NULL_POINTER, "ctx is NULL",
                cupat_stencil1d(NULL, N, 1, c, in, out));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "radius = 9",
                cupat_stencil1d(ctx, N, 9, c, in, out));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "radius = -1",
                cupat_stencil1d(ctx, N, -1, c, in, out));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "coeffs is NULL",
                cupat_stencil1d(ctx, N, 1, NULL, in, out));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "in is NULL",
                cupat_stencil1d(ctx, N, 1, c, NULL, out));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "out is NULL",
                cupat_stencil1d(ctx, N, 1, c, in, NULL));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "overlap",
                cupat_stencil1d(ctx, N, 1, c, in, in));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "overlap",
                cupat_stencil1d(ctx, N - 1, 1, c, in, in + 1));
    CHECK_FAILS(ctx, CUPAT_ERROR_SIZE, "overflows",
                cupat_stencil1d(ctx, SIZE_MAX / 2, 1, c, in, out));
    if (t_backend == CUPAT_BACKEND_CUDA) {
        CHECK_FAILS(ctx, CUPAT_ERROR_HOST_POINTER, "in = ",
                    cupat_stencil1d(ctx, N, 1, c, host, out));
        CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "coeffs",
                    cupat_stencil1d(ctx, N, 1, in, in, out));
    }
    CHECK_OK(ctx, cupat_stencil1d(ctx, 0, 8, c, NULL, NULL));
    cupat_free(ctx, in);
    cupat_free(ctx, out);
}

int main(int argc, char **argv)
{
    cupat_ctx *ctx = test_init(argc, argv);
    test_seed();
    test_rungs(ctx);
    test_special(ctx);
    test_errors(ctx);
    return test_finish(ctx);
}
