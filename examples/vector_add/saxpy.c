/* SPDX-License-Identifier: Apache-2.0 */
/* saxpy.c — the smallest complete cupat program: y = 2x + y on the best backend. */
#include <cupat.h>
#include <stdio.h>

int main(void)
{
    enum { N = 1 << 20 };
    static float x[N], y[N];
    for (int i = 0; i < N; i++) { x[i] = (float)i; y[i] = 1.0f; }

    cupat_ctx *ctx;
    if (cupat_create(&ctx, CUPAT_BACKEND_AUTO, -1) != CUPAT_SUCCESS) {
        fprintf(stderr, "cupat: %s\n", cupat_last_error(NULL));
        return 1;
    }
    float *dx, *dy;                       /* device memory on CUDA, host on CPU */
    cupat_status s = cupat_malloc(ctx, (void **)&dx, sizeof x);
    if (!s) s = cupat_malloc(ctx, (void **)&dy, sizeof y);
    if (!s) s = cupat_memcpy(ctx, dx, x, sizeof x);
    if (!s) s = cupat_memcpy(ctx, dy, y, sizeof y);
    if (!s) s = cupat_saxpy(ctx, N, 2.0f, dx, dy);
    if (!s) s = cupat_memcpy(ctx, y, dy, sizeof y);   /* waits: y is pageable */
    if (s) fprintf(stderr, "cupat: %s\n", cupat_last_error(ctx));
    else printf("%s backend: y[%d] = %.1f\n", cupat_backend_name(cupat_get_backend(ctx)),
                N - 1, y[N - 1]);
    cupat_free(ctx, dx);
    cupat_free(ctx, dy);
    cupat_destroy(ctx);
    return s != CUPAT_SUCCESS || y[N - 1] != 2.0f * (N - 1) + 1.0f;
}
