/* SPDX-License-Identifier: Apache-2.0 */
/* conv2d.c — PMPP 7: a 5 x 5 Gaussian blur of a 640 x 480 f32 image with
 * clamped borders. Every backend and rung evaluates the same chain of fused
 * multiply-adds, so the result is bitwise the host's (checked here). */
#include <cupat.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define TRY(call) do { cupat_status s_ = (call); if (s_) { fprintf(stderr, "%s: %s\n", #call, cupat_last_error(ctx)); return 1; } } while (0)

static size_t clampi(long v, size_t hi) { return v < 0 ? 0 : (size_t)v >= hi ? hi - 1 : (size_t)v; }

int main(void)
{
    const size_t w = 640, h = 480;
    const float g[5] = {1, 4, 6, 4, 1};
    float k[25], *img = malloc(w * h * 4), *out = malloc(w * h * 4);
    for (int i = 0; i < 25; i++) k[i] = g[i / 5] * g[i % 5] / 256.0f;
    for (size_t i = 0; i < w * h; i++) img[i] = (float)((i % w / 16 + i / w / 16) % 2); /* a checkerboard */
    cupat_ctx *ctx = NULL;
    if (cupat_create(&ctx, CUPAT_BACKEND_AUTO, -1)) return fprintf(stderr, "%s\n", cupat_last_error(NULL)), 1;
    float *din, *dout;
    TRY(cupat_malloc(ctx, (void **)&din, w * h * 4));
    TRY(cupat_malloc(ctx, (void **)&dout, w * h * 4));
    TRY(cupat_memcpy(ctx, din, img, w * h * 4));
    TRY(cupat_conv2d(ctx, CUPAT_PIXEL_F32, w, h, 1, din, w * 4, dout, w * 4, 5, 5, k, CUPAT_BORDER_CLAMP));
    TRY(cupat_memcpy(ctx, out, dout, w * h * 4));
    size_t bad = 0;
    for (size_t y = 0; y < h; y++)
        for (size_t x = 0; x < w; x++) {
            float acc = 0.0f; /* the header's order: i outer, j inner, fmaf from +0 */
            for (int i = 0; i < 5; i++)
                for (int j = 0; j < 5; j++) acc = fmaf(k[i * 5 + j], img[clampi((long)y + i - 2, h) * w + clampi((long)x + j - 2, w)], acc);
            bad += acc != out[y * w + x];
        }
    printf("%s: 5x5 blur of a %zux%zu image: an edge of the checkerboard goes 0 -> %.4f -> %.4f -> 1; %zu pixels differ from the host's\n",
           cupat_backend_name(cupat_get_backend(ctx)), w, h, out[14], out[15], bad);
    cupat_free(ctx, din), cupat_free(ctx, dout);
    cupat_destroy(ctx);
    free(img), free(out);
    return bad != 0;
}
