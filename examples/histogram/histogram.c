/* SPDX-License-Identifier: Apache-2.0 */
/* histogram.c — PMPP 9: the 256-bin histogram of 8-bit samples (an image's
 * intensities), atomics privatized per block on the GPU. */
#include <cupat.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define TRY(call) do { cupat_status s_ = (call); if (s_) { fprintf(stderr, "%s: %s\n", #call, cupat_last_error(ctx)); return 1; } } while (0)

int main(void)
{
    const size_t n = (size_t)1920 * 1080;
    uint8_t *img = malloc(n);
    uint32_t want[256] = {0}, got[256];
    for (size_t i = 0; i < n; i++) want[img[i] = (uint8_t)((i % 1920) * 255 / 1919 / 2 + (i / 1920) * 127 / 1079)]++;
    cupat_ctx *ctx = NULL;
    if (cupat_create(&ctx, CUPAT_BACKEND_AUTO, -1)) return fprintf(stderr, "%s\n", cupat_last_error(NULL)), 1;
    uint8_t *dimg;
    uint32_t *dcounts;
    TRY(cupat_malloc(ctx, (void **)&dimg, n));
    TRY(cupat_malloc(ctx, (void **)&dcounts, sizeof got));
    TRY(cupat_memcpy(ctx, dimg, img, n));
    /* 256 even bins over [0, 256): bin b counts the samples equal to b */
    TRY(cupat_histogram_even(ctx, CUPAT_HIST_U8, n, dimg, 256, 0.0, 256.0, CUPAT_U32, dcounts, CUPAT_HIST_OVERWRITE));
    TRY(cupat_memcpy(ctx, got, dcounts, sizeof got));
    int bad = 0, mode = 0;
    for (int b = 0; b < 256; b++) bad += got[b] != want[b], mode = got[b] > got[mode] ? b : mode;
    printf("%s: histogram of %zu pixels: the most common intensity is %d (%u pixels); %d bins wrong\n",
           cupat_backend_name(cupat_get_backend(ctx)), n, mode, got[mode], bad);
    cupat_free(ctx, dimg);
    cupat_free(ctx, dcounts);
    cupat_destroy(ctx);
    free(img);
    return bad != 0;
}
