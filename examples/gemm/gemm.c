/* SPDX-License-Identifier: Apache-2.0 */
/* gemm.c — PMPP 3 and 5: C = A B in f32 for 512 x 384 by 384 x 256 row-major
 * matrices, by the library's tiled GEMM, every element checked against the
 * host's product in double within the header's error bound. */
#include <cupat.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define TRY(call) do { cupat_status s_ = (call); if (s_) { fprintf(stderr, "%s: %s\n", #call, cupat_last_error(ctx)); return 1; } } while (0)

int main(void)
{
    const size_t m = 512, k = 384, n = 256;
    float *A = malloc(m * k * 4), *B = malloc(k * n * 4), *C = malloc(m * n * 4);
    for (size_t i = 0; i < m * k; i++) A[i] = (float)((int)(i * 7 % 17) - 8) / 8.0f;
    for (size_t i = 0; i < k * n; i++) B[i] = (float)((int)(i * 5 % 13) - 6) / 4.0f;
    cupat_ctx *ctx = NULL;
    if (cupat_create(&ctx, CUPAT_BACKEND_AUTO, -1)) return fprintf(stderr, "%s\n", cupat_last_error(NULL)), 1;
    float *dA, *dB, *dC;
    TRY(cupat_malloc(ctx, (void **)&dA, m * k * 4));
    TRY(cupat_malloc(ctx, (void **)&dB, k * n * 4));
    TRY(cupat_malloc(ctx, (void **)&dC, m * n * 4));
    TRY(cupat_memcpy(ctx, dA, A, m * k * 4));
    TRY(cupat_memcpy(ctx, dB, B, k * n * 4));
    TRY(cupat_gemm_f32(ctx, 0, CUPAT_TRANS_N, CUPAT_TRANS_N, m, n, k, 1.0f, dA, k, dB, n, 0.0f, dC, n));
    TRY(cupat_memcpy(ctx, C, dC, m * n * 4));
    size_t bad = 0;
    double worst = 0;
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++) {
            double exact = 0, mag = 0;
            for (size_t p = 0; p < k; p++) exact += (double)A[i * k + p] * B[p * n + j], mag += fabs((double)A[i * k + p] * B[p * n + j]);
            double err = fabs(C[i * n + j] - exact);
            bad += err > 2.0 * (double)k * FLT_EPSILON * mag; /* cupat.h's bound */
            if (mag > 0 && err / mag > worst) worst = err / mag;
        }
    printf("%s: C = A B, %zux%zu by %zux%zu (%.1f MFLOP): C[0][0] = %g; worst error %.2e of sum|a b|; %zu outside the bound\n",
           cupat_backend_name(cupat_get_backend(ctx)), m, k, k, n, 2e-6 * (double)(m * n * k), C[0], worst, bad);
    cupat_free(ctx, dA), cupat_free(ctx, dB), cupat_free(ctx, dC);
    cupat_destroy(ctx);
    free(A), free(B), free(C);
    return bad != 0;
}
