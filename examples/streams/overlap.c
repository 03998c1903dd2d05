/* SPDX-License-Identifier: Apache-2.0 */
/* overlap.c — PCCP 6: data in pinned host memory, reduced by the GPU while it
 * is still arriving: the library cuts it in chunks and puts chunk k's copy and
 * kernel on stream k % 3, so copies and kernels of different chunks overlap
 * (larger than the device's memory works the same way). The result depends on
 * the chunk size, never on the streams or the timing. */
#include <cupat.h>
#include <stdio.h>

#define TRY(call) do { cupat_status s_ = (call); if (s_) { fprintf(stderr, "%s: %s\n", #call, cupat_last_error(ctx)); return 1; } } while (0)

int main(void)
{
    const size_t n = (size_t)1 << 24; /* 128 MiB of doubles */
    cupat_ctx *ctx = NULL;
    if (cupat_create(&ctx, CUPAT_BACKEND_AUTO, -1)) return fprintf(stderr, "%s\n", cupat_last_error(NULL)), 1;
    double *x, sum3 = 0, sum1 = 0;
    TRY(cupat_malloc_host(ctx, (void **)&x, n * sizeof *x));
    for (size_t i = 0; i < n; i++) x[i] = (double)(i % 1000);
    TRY(cupat_set_streaming(ctx, (size_t)8 << 20, 3)); /* 8 MiB chunks over 3 streams */
    TRY(cupat_reduce_host(ctx, CUPAT_F64, CUPAT_OP_SUM, n, x, &sum3));
    TRY(cupat_set_streaming(ctx, (size_t)8 << 20, 1)); /* the same chunks, one stream */
    TRY(cupat_reduce_host(ctx, CUPAT_F64, CUPAT_OP_SUM, n, x, &sum1));
    const double exact = (double)(n / 1000) * 499500.0 + (double)((n % 1000) * (n % 1000 - 1) / 2);
    printf("%s: sum of %zu pinned doubles streamed in 8 MiB chunks: %.1f over 3 streams, %.1f over 1; exact %.1f\n",
           cupat_backend_name(cupat_get_backend(ctx)), n, sum3, sum1, exact);
    cupat_free_host(ctx, x);
    cupat_destroy(ctx);
    return !(sum3 == exact && sum1 == exact);
}
