/* SPDX-License-Identifier: Apache-2.0 */
/* test_conv2d.c — every rung of "conv2d" and "conv2d_sep" on the context's
 * backend against a reference written here from the documented rules (one
 * fmaf chain a sample, i outer, j inner; the border maps; round half to even
 * and saturate for 8 bits), compared bit for bit: filters 1, 3, 5, 9, 31 (and
 * non-square), images 1x1, 1xN, Nx1, odd sizes and a larger one, every border,
 * 1-4 channels, f32 and u8, padded pitches; the separable form against the
 * full product filter within its bound; shapes the columns rung takes (and
 * a few it hands on), that rung alone; blur's "conv" rung is tested by
 * test_elementwise; then the argument checks. */
#include "testutil.h"

#include <math.h>

static long long map(long long i, long long n, int b)
{
    if (i >= 0 && i < n) return i;
    if (b == CUPAT_BORDER_ZERO) return -1;
    if (b == CUPAT_BORDER_CLAMP) return i < 0 ? 0 : n - 1;
    if (n == 1) return 0;
    /* reflect without repeating the edge, step by step (not the library's modulo) */
    while (i < 0 || i >= n) i = i < 0 ? -i : 2 * (n - 1) - i;
    return i;
}

static uint8_t to_u8(float acc)
{
    float a = rintf(acc);
    if (!(a > 0.0f)) return 0;
    return a >= 255.0f ? 255 : (uint8_t)a;
}

typedef struct img {
    int f32;
    size_t w, h, pitch; /* pitch in samples */
    int C;
    void *p;
} img;

static float px(const img *m, long long y, long long x, int c, int b)
{
    long long ym = map(y, (long long)m->h, b), xm = map(x, (long long)m->w, b);
    if (ym < 0 || xm < 0) return 0.0f;
    size_t i = (size_t)ym * m->pitch + (size_t)xm * m->C + c;
    return m->f32 ? ((float *)m->p)[i] : (float)((uint8_t *)m->p)[i];
}

static void put(img *o, size_t y, size_t x, int c, float acc)
{
    size_t i = y * o->pitch + x * o->C + c;
    if (o->f32) ((float *)o->p)[i] = acc;
    else ((uint8_t *)o->p)[i] = to_u8(acc);
}

static void ref_full(const img *in, img *out, int kw, int kh, const float *k, int b)
{
    for (size_t y = 0; y < in->h; y++)
        for (size_t x = 0; x < in->w; x++)
            for (int c = 0; c < in->C; c++) {
                float acc = 0.0f;
                for (int i = 0; i < kh; i++)
                    for (int j = 0; j < kw; j++)
                        acc = fmaf(k[i * kw + j],
                                   px(in, (long long)y + i - kh / 2, (long long)x + j - kw / 2, c, b),
                                   acc);
                put(out, y, x, c, acc);
            }
}

static void ref_sep(const img *in, img *out, int kw, const float *row, int kh, const float *col,
                    int b)
{
    for (size_t y = 0; y < in->h; y++)
        for (size_t x = 0; x < in->w; x++)
            for (int c = 0; c < in->C; c++) {
                float acc = 0.0f;
                for (int i = 0; i < kh; i++) {
                    float t = 0.0f;
                    long long yy = (long long)y + i - kh / 2;
                    for (int j = 0; j < kw; j++)
                        t = fmaf(row[j], px(in, yy, (long long)x + j - kw / 2, c, b), t);
                    acc = fmaf(col[i], t, acc);
                }
                put(out, y, x, c, acc);
            }
}

static size_t es_of(int f32) { return f32 ? 4 : 1; }

static void fill(img *m)
{
    size_t n = m->h * m->pitch;
    for (size_t i = 0; i < n; i++) {
        if (m->f32) ((float *)m->p)[i] = test_randf();
        else ((uint8_t *)m->p)[i] = (uint8_t)(test_rand() >> 56);
    }
}

/* Runs one case on every rung of `pattern` (or only the rung named `only`)
 * and compares with want. */
static void run_case_on(cupat_ctx *ctx, const char *only, int sep, int f32, size_t w, size_t h,
                        int C, int kw, int kh, int b, size_t pad)
{
    const char *pattern = sep ? "conv2d_sep" : "conv2d";
    size_t es = es_of(f32), pitch = w * C + pad, bytes = h * pitch * es;
    img in = {f32, w, h, pitch, C, test_xmalloc(bytes)};
    img want = {f32, w, h, pitch, C, test_xmalloc(bytes)};
    uint8_t *got = test_xmalloc(bytes);
    fill(&in);
    memset(want.p, 0xFF, bytes);
    float k[31 * 31], row[31], col[31];
    /* u8: taps that sum to about 1 keep outputs in range, plus a spread */
    for (int i = 0; i < kw * kh; i++) k[i] = f32 ? test_randf() : (test_randf() + 1.2f) / (kw * kh);
    for (int j = 0; j < kw; j++) row[j] = f32 ? test_randf() : (test_randf() + 1.2f) / kw;
    for (int i = 0; i < kh; i++) col[i] = f32 ? test_randf() : (test_randf() + 1.2f) / kh;
    if (sep) ref_sep(&in, &want, kw, row, kh, col, b);
    else ref_full(&in, &want, kw, kh, k, b);
    void *din = test_upload(ctx, in.p, bytes), *dout = test_upload(ctx, NULL, bytes);
    const cupat_variant_info *list;
    size_t count;
    CHECK_OK(ctx, cupat_variants(pattern, &list, &count));
    for (size_t v = 0; v < count; v++) {
        if (list[v].backend != t_backend || (only && strcmp(list[v].name, only) != 0)) continue;
        CHECK_OK(ctx, cupat_set_variant(ctx, pattern, list[v].name));
        test_poison(ctx, dout, bytes);
        cupat_pixel_type t = f32 ? CUPAT_PIXEL_F32 : CUPAT_PIXEL_U8;
        if (sep)
            CHECK_OK(ctx, cupat_conv2d_separable(ctx, t, w, h, C, din, pitch * es, dout, pitch * es,
                                                 kw, row, kh, col, (cupat_border)b));
        else
            CHECK_OK(ctx, cupat_conv2d(ctx, t, w, h, C, din, pitch * es, dout, pitch * es, kw, kh,
                                       k, (cupat_border)b));
        test_download(ctx, got, dout, bytes);
        size_t bad = 0, first = 0;
        for (size_t y = 0; y < h; y++)
            for (size_t s = 0; s < w * C; s++) {
                size_t i = (y * pitch + s) * es;
                if (memcmp(got + i, (uint8_t *)want.p + i, es) != 0 && bad++ == 0) first = i / es;
            }
        for (size_t y = 0; y < h; y++) /* padding untouched */
            for (size_t s = w * C; s < pitch; s++)
                for (size_t q = 0; q < es; q++) bad += got[(y * pitch + s) * es + q] != 0xFF;
        CHECK(bad == 0,
              "%s/%s %s %zux%zu C=%d k=%dx%d border %d pad %zu: %zu wrong, first sample %zu "
              "(%g vs %g)",
              pattern, list[v].name, f32 ? "f32" : "u8", w, h, C, kw, kh, b, pad, bad, first,
              bad ? (f32 ? ((float *)got)[first] : got[first]) : 0.0,
              bad ? (f32 ? ((float *)want.p)[first] : ((uint8_t *)want.p)[first]) : 0.0);
    }
    CHECK_OK(ctx, cupat_set_variant(ctx, pattern, NULL));
    cupat_free(ctx, din);
    cupat_free(ctx, dout);
    free(in.p), free(want.p), free(got);
}

static void run_case(cupat_ctx *ctx, int sep, int f32, size_t w, size_t h, int C, int kw, int kh,
                     int b, size_t pad)
{
    run_case_on(ctx, NULL, sep, f32, w, h, C, kw, kh, b, pad);
}

static void test_rungs(cupat_ctx *ctx)
{
    static const size_t shapes[][2] = {{1, 1}, {1, 37}, {37, 1}, {3, 2}, {17, 13}, {130, 9}, {67, 45}};
    static const int ks[] = {1, 3, 5, 9, 31};
    for (int sep = 0; sep <= 1; sep++)
        for (int f32 = 0; f32 <= 1; f32++)
            for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
                for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++)
                    for (int b = 0; b < 3; b++) {
                        int C = 1 + (int)((si + ki + b) % 4);
                        run_case(ctx, sep, f32, shapes[si][0], shapes[si][1], C, ks[ki], ks[ki], b,
                                 (si % 2) ? 5 : 0);
                    }
    /* every channel count on one odd shape, non-square filters, misaligned pitch */
    for (int C = 1; C <= 4; C++) {
        run_case(ctx, 0, 1, 29, 23, C, 5, 3, CUPAT_BORDER_MIRROR, 3);
        run_case(ctx, 0, 0, 29, 23, C, 1, 7, CUPAT_BORDER_CLAMP, 1);
        run_case(ctx, 1, 0, 29, 23, C, 7, 3, CUPAT_BORDER_ZERO, 0);
    }
    /* a larger image (several tiles, 16-byte paths); bigger on the GPU */
    size_t W = t_backend == CUPAT_BACKEND_CUDA && !t_small ? 1031 : 261;
    size_t H = t_backend == CUPAT_BACKEND_CUDA && !t_small ? 517 : 67;
    for (int f32 = 0; f32 <= 1; f32++) {
        run_case(ctx, 0, f32, W, H, 1, 5, 5, CUPAT_BORDER_CLAMP, 0);
        run_case(ctx, 0, f32, W, H, 1, 9, 9, CUPAT_BORDER_ZERO, 0);
        run_case(ctx, 0, f32, W, H, 3, 3, 3, CUPAT_BORDER_MIRROR, 0);
        run_case(ctx, 1, f32, W, H, 3, 17, 17, CUPAT_BORDER_MIRROR, 0);
    }
    if (t_backend == CUPAT_BACKEND_CUDA && !t_small) {
        run_case(ctx, 0, 1, 1920, 1080, 1, 31, 31, CUPAT_BORDER_MIRROR, 0);
        run_case(ctx, 0, 0, 3, (1 << 17) + 3, 1, 3, 3, CUPAT_BORDER_CLAMP, 0); /* tall */
    }
}

/* The columns rung (CUDA) on shapes it takes: widths a multiple of 4 (one
 * lane; a warp's 128 pixels exactly; a second warp with one lane; a middle
 * warp whose both end lanes load the neighbours' pixels), heights 1 (shorter
 * than every filter) to past several chunks (images this small get the
 * shortest chunks: 16 rows for kh <= 5, 24 for 7, 32 for 9; 64 ends on a
 * boundary, 65, 97 = 3 x 32 + 1, 193 = 12 x 16 + 1 = 8 x 24 + 1 are one row
 * past one), pitches padded in
 * 16-byte steps, every border, square 1..9; and calls it hands to
 * regtile_vec (11 x 11, u8 C = 3 7 x 7, a pitch that is not 16-byte rows).
 * Only that rung runs here: the others see these shapes' kind above. */
static void test_columns(cupat_ctx *ctx)
{
    if (t_backend != CUPAT_BACKEND_CUDA) return;
    static const size_t fw[] = {4, 128, 132, 200, 260};
    static const size_t fh[] = {1, 2, 5, 64, 65, 97, 193};
    static const int fk[] = {1, 3, 5, 7, 9, 11};
    int n = 0;
    for (size_t wi = 0; wi < sizeof fw / sizeof fw[0]; wi++)
        for (size_t hi = 0; hi < sizeof fh / sizeof fh[0]; hi++)
            for (size_t ki = 0; ki < sizeof fk / sizeof fk[0]; ki++, n++)
                run_case_on(ctx, "columns", 0, 1, fw[wi], fh[hi], 1, fk[ki], fk[ki], n % 3,
                            (size_t)(4 * ((n / 3) % 3)));
    /* f32 9x9 on widths a multiple of 6 runs six pixels a lane (132 above
     * too): two lanes; a warp's 192 pixels exactly; a second warp with one
     * lane; a middle warp whose both end lanes load the neighbours' pixels */
    static const size_t sw[] = {12, 192, 204, 588};
    for (size_t wi = 0; wi < sizeof sw / sizeof sw[0]; wi++)
        for (size_t hi = 0; hi < sizeof fh / sizeof fh[0]; hi++)
            for (int b = 0; b < 3; b++, n++)
                run_case_on(ctx, "columns", 0, 1, sw[wi], fh[hi], 1, 9, 9, b, (size_t)(4 * (n % 3)));
    /* a pitch of 133 floats: not 16-byte rows, regtile_vec runs */
    run_case_on(ctx, "columns", 0, 1, 132, 65, 1, 5, 5, CUPAT_BORDER_MIRROR, 1);
    /* 8-bit RGB: a lane owns 4 pixels, three 32-bit words */
    static const size_t cw[] = {4, 132, 260};
    static const size_t ch[] = {1, 5, 64, 65, 129};
    static const int ck[] = {1, 3, 5, 7};
    for (size_t wi = 0; wi < sizeof cw / sizeof cw[0]; wi++)
        for (size_t hi = 0; hi < sizeof ch / sizeof ch[0]; hi++)
            for (size_t ki = 0; ki < sizeof ck / sizeof ck[0]; ki++, n++)
                run_case_on(ctx, "columns", 0, 0, cw[wi], ch[hi], 3, ck[ki], ck[ki], n % 3,
                            (size_t)(4 * ((n / 3) % 3)));
    /* 8-bit, one channel (a word a lane) and four (16 bytes a lane) */
    static const int gk[] = {1, 3, 5, 7, 9};
    for (size_t ki = 0; ki < sizeof gk / sizeof gk[0]; ki++)
        for (int b = 0; b < 3; b++, n++) {
            run_case_on(ctx, "columns", 0, 0, 260, 97, 1, gk[ki], gk[ki], b, (size_t)(4 * (n % 2)));
            run_case_on(ctx, "columns", 0, 0, 4, 3, 1, gk[ki], gk[ki], b, 0);
            if (gk[ki] <= 5) {
                run_case_on(ctx, "columns", 0, 0, 132, 65, 4, gk[ki], gk[ki], b,
                            (size_t)(16 * (n % 2)));
                run_case_on(ctx, "columns", 0, 0, 4, 2, 4, gk[ki], gk[ki], b, 0);
            }
        }
    if (!t_small) { /* many chunks and warps */
        run_case_on(ctx, "columns", 0, 1, 1024, 517, 1, 9, 9, CUPAT_BORDER_ZERO, 0);
        run_case_on(ctx, "columns", 0, 1, 1020, 517, 1, 9, 9, CUPAT_BORDER_MIRROR, 0);
        run_case_on(ctx, "columns", 0, 1, 1024, 517, 1, 5, 5, CUPAT_BORDER_MIRROR, 0);
        run_case_on(ctx, "columns", 0, 0, 1024, 517, 3, 3, 3, CUPAT_BORDER_CLAMP, 0);
        run_case_on(ctx, "columns", 0, 0, 1024, 517, 3, 5, 5, CUPAT_BORDER_CLAMP, 0);
        /* one warp a row, tall: chunks longer than the shortest (one wave) */
        run_case_on(ctx, "columns", 0, 1, 128, 70001, 1, 5, 5, CUPAT_BORDER_MIRROR, 0);
    }
}

/* Known values: a Laplacian on a ramp, the mirror rule on a 3-pixel row,
 * rounding ties to even, saturation. */
static void test_special(cupat_ctx *ctx)
{
    float x[5] = {0, 1, 2, 3, 4}, y[5];
    float lap[3] = {1, -2, 1};
    float *d = test_upload(ctx, x, sizeof x), *o = test_upload(ctx, NULL, sizeof y);
    CHECK_OK(ctx, cupat_conv2d(ctx, CUPAT_PIXEL_F32, 5, 1, 1, d, 20, o, 20, 3, 1, lap,
                               CUPAT_BORDER_MIRROR));
    test_download(ctx, y, o, sizeof y);
    /* x[-1] -> x[1] = 1: 1 - 0 + 1 = 2 at 0; x[5] -> x[3] = 3: 3 - 8 + 3 = -2 at 4 */
    CHECK(y[0] == 2 && y[1] == 0 && y[2] == 0 && y[3] == 0 && y[4] == -2,
          "mirror Laplacian: %g %g %g %g %g", y[0], y[1], y[2], y[3], y[4]);
    CHECK_OK(ctx, cupat_conv2d(ctx, CUPAT_PIXEL_F32, 5, 1, 1, d, 20, o, 20, 3, 1, lap,
                               CUPAT_BORDER_CLAMP));
    test_download(ctx, y, o, sizeof y);
    CHECK(y[0] == 1 && y[4] == -1, "clamp Laplacian ends: %g %g", y[0], y[4]);
    cupat_free(ctx, d);
    cupat_free(ctx, o);
    uint8_t u[4] = {1, 3, 5, 255}, v[4];
    float half[1] = {0.5f}, big[1] = {2.0f}, neg[1] = {-1.0f};
    uint8_t *du = test_upload(ctx, u, 4), *dv = test_upload(ctx, NULL, 4);
    CHECK_OK(ctx, cupat_conv2d(ctx, CUPAT_PIXEL_U8, 4, 1, 1, du, 4, dv, 4, 1, 1, half,
                               CUPAT_BORDER_ZERO));
    test_download(ctx, v, dv, 4);
    CHECK(v[0] == 0 && v[1] == 2 && v[2] == 2 && v[3] == 128, "ties to even: %d %d %d %d", v[0],
          v[1], v[2], v[3]);
    CHECK_OK(ctx, cupat_conv2d(ctx, CUPAT_PIXEL_U8, 4, 1, 1, du, 4, dv, 4, 1, 1, big,
                               CUPAT_BORDER_ZERO));
    test_download(ctx, v, dv, 4);
    CHECK(v[3] == 255 && v[2] == 10, "saturation high: %d", v[3]);
    CHECK_OK(ctx, cupat_conv2d(ctx, CUPAT_PIXEL_U8, 4, 1, 1, du, 4, dv, 4, 1, 1, neg,
                               CUPAT_BORDER_ZERO));
    test_download(ctx, v, dv, 4);
    CHECK(v[0] == 0 && v[3] == 0, "saturation low: %d %d", v[0], v[3]);
    cupat_free(ctx, du);
    cupat_free(ctx, dv);
}

/* Separable vs the full product filter: both are float sums of the same
 * products, rounded differently: the full chain has kw kh roundings (and the product
 * taps one each), the separable kw + kh: |a - b| <= (kw kh + kw + kh + 2) u sum |k||x|. */
static void test_sep_vs_full(cupat_ctx *ctx)
{
    enum { W = 41, H = 29, KW = 9, KH = 5 };
    float row[KW], col[KH], k[KW * KH], x[W * H], a[W * H], b[W * H], bound[W * H];
    for (int j = 0; j < KW; j++) row[j] = test_randf();
    for (int i = 0; i < KH; i++) col[i] = test_randf();
    for (int i = 0; i < KH; i++)
        for (int j = 0; j < KW; j++) k[i * KW + j] = col[i] * row[j];
    for (int i = 0; i < W * H; i++) x[i] = test_randf();
    for (int bd = 0; bd < 3; bd++) {
        float *dx = test_upload(ctx, x, sizeof x), *da = test_upload(ctx, NULL, sizeof a),
              *db = test_upload(ctx, NULL, sizeof b);
        CHECK_OK(ctx, cupat_conv2d(ctx, CUPAT_PIXEL_F32, W, H, 1, dx, W * 4, da, W * 4, KW, KH, k,
                                   (cupat_border)bd));
        CHECK_OK(ctx, cupat_conv2d_separable(ctx, CUPAT_PIXEL_F32, W, H, 1, dx, W * 4, db, W * 4,
                                             KW, row, KH, col, (cupat_border)bd));
        test_download(ctx, a, da, sizeof a);
        test_download(ctx, b, db, sizeof b);
        img in = {1, W, H, W, 1, x};
        size_t bad = 0;
        for (int y = 0; y < H; y++)
            for (int xx = 0; xx < W; xx++) {
                double s = 0;
                for (int i = 0; i < KH; i++)
                    for (int j = 0; j < KW; j++)
                        s += fabs((double)col[i] * row[j]) * fabs(px(&in, y + i - KH / 2, xx + j - KW / 2, 0, bd));
                bound[y * W + xx] = (float)((KW * KH + KW + KH + 2) * 0x1p-24 * s);
                if (!(fabsf(a[y * W + xx] - b[y * W + xx]) <= bound[y * W + xx])) bad++;
            }
        CHECK(bad == 0, "separable vs full, border %d: %zu outside the bound", bd, bad);
        cupat_free(ctx, dx), cupat_free(ctx, da), cupat_free(ctx, db);
    }
}

static void test_errors(cupat_ctx *ctx)
{
    enum { W = 8, H = 4 };
    float k[9] = {0}, host[W * H];
    const cupat_pixel_type F = CUPAT_PIXEL_F32;
    float *in = test_dalloc(ctx, W * H * 4), *out = test_dalloc(ctx, W * H * 4);
    const cupat_border Z = CUPAT_BORDER_ZERO;
    CHECK_FAILS(NULL, CUPAT_ERROR_NULL_POINTER, "ctx is NULL",
                cupat_conv2d(NULL, F, W, H, 1, in, W * 4, out, W * 4, 3, 3, k, Z));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "kw = 4",
                cupat_conv2d(ctx, F, W, H, 1, in, W * 4, out, W * 4, 4, 3, k, Z));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "kh = 33",
                cupat_conv2d(ctx, F, W, H, 1, in, W * 4, out, W * 4, 3, 33, k, Z));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "kw = 0",
                cupat_conv2d(ctx, F, W, H, 1, in, W * 4, out, W * 4, 0, 3, k, Z));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "coeffs is NULL",
                cupat_conv2d(ctx, F, W, H, 1, in, W * 4, out, W * 4, 3, 3, NULL, Z));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "type = 7",
                cupat_conv2d(ctx, (cupat_pixel_type)7, W, H, 1, in, W * 4, out, W * 4, 3, 3, k, Z));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "channels = 5",
                cupat_conv2d(ctx, F, W, H, 5, in, W * 4, out, W * 4, 3, 3, k, Z));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "channels = 0",
                cupat_conv2d(ctx, F, W, H, 0, in, W * 4, out, W * 4, 3, 3, k, Z));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "border = 3",
                cupat_conv2d(ctx, F, W, H, 1, in, W * 4, out, W * 4, 3, 3, k, (cupat_border)3));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "in_pitch = 28",
                cupat_conv2d(ctx, F, W, H, 1, in, 28, out, W * 4, 3, 3, k, Z));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "out_pitch = 33 is not a multiple of 4",
                cupat_conv2d(ctx, F, W, H / 2, 1, in, W * 4, out, 33, 3, 3, k, Z));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "aligned",
                cupat_conv2d(ctx, F, 2, 1, 1, (char *)in + 2, 8, out, 8, 3, 3, k, Z));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "in is NULL",
                cupat_conv2d(ctx, F, W, H, 1, NULL, W * 4, out, W * 4, 3, 3, k, Z));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "out is NULL",
                cupat_conv2d(ctx, F, W, H, 1, in, W * 4, NULL, W * 4, 3, 3, k, Z));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "overlap",
                cupat_conv2d(ctx, F, W, H, 1, in, W * 4, in, W * 4, 3, 3, k, Z));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "overlap",
                cupat_conv2d(ctx, F, W, H / 2, 1, in, W * 4, in + W, W * 4, 3, 3, k, Z));
    CHECK_FAILS(ctx, CUPAT_ERROR_SIZE, "overflows",
                cupat_conv2d(ctx, F, SIZE_MAX / 2, 2, 4, in, W * 4, out, W * 4, 3, 3, k, Z));
    CHECK_OK(ctx, cupat_conv2d(ctx, F, 0, H, 1, NULL, 0, NULL, 0, 3, 3, k, Z));
    CHECK_OK(ctx, cupat_conv2d(ctx, F, W, 0, 1, NULL, W * 4, NULL, W * 4, 3, 3, k, Z));
    /* separable */
    CHECK_FAILS(NULL, CUPAT_ERROR_NULL_POINTER, "ctx is NULL",
                cupat_conv2d_separable(NULL, F, W, H, 1, in, W * 4, out, W * 4, 3, k, 3, k, Z));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "kw = 2",
                cupat_conv2d_separable(ctx, F, W, H, 1, in, W * 4, out, W * 4, 2, k, 3, k, Z));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "kh = 35",
                cupat_conv2d_separable(ctx, F, W, H, 1, in, W * 4, out, W * 4, 3, k, 35, k, Z));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "row_coeffs is NULL",
                cupat_conv2d_separable(ctx, F, W, H, 1, in, W * 4, out, W * 4, 3, NULL, 3, k, Z));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "col_coeffs is NULL",
                cupat_conv2d_separable(ctx, F, W, H, 1, in, W * 4, out, W * 4, 3, k, 3, NULL, Z));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "border = -1",
                cupat_conv2d_separable(ctx, F, W, H, 1, in, W * 4, out, W * 4, 3, k, 3, k,
                                       (cupat_border)-1));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "overlap",
                cupat_conv2d_separable(ctx, F, W, H, 1, in, W * 4, in, W * 4, 3, k, 3, k, Z));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "in_pitch = 4",
                cupat_conv2d_separable(ctx, F, W, H, 1, in, 4, out, W * 4, 3, k, 3, k, Z));
    if (t_backend == CUPAT_BACKEND_CUDA) {
        CHECK_FAILS(ctx, CUPAT_ERROR_HOST_POINTER, "in = ",
                    cupat_conv2d(ctx, F, W, H, 1, host, W * 4, out, W * 4, 3, 3, k, Z));
        CHECK_FAILS(ctx, CUPAT_ERROR_HOST_POINTER, "out = ",
                    cupat_conv2d_separable(ctx, F, W, H, 1, in, W * 4, host, W * 4, 3, k, 3, k, Z));
        CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "device memory",
                    cupat_conv2d(ctx, F, W, H, 1, in, W * 4, out, W * 4, 3, 3, in, Z));
        CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "device memory",
                    cupat_conv2d_separable(ctx, F, W, H, 1, in, W * 4, out, W * 4, 3, in, 3, k, Z));
    }
    cupat_free(ctx, in);
    cupat_free(ctx, out);
}

int main(int argc, char **argv)
{
    cupat_ctx *ctx = test_init(argc, argv);
    test_seed();
    test_rungs(ctx);
    test_columns(ctx);
    test_special(ctx);
    test_sep_vs_full(ctx);
    test_errors(ctx);
    return test_finish(ctx);
}
