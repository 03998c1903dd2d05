/* SPDX-License-Identifier: Apache-2.0 */
/* reduction.c — PMPP 10 / PCCP 3.4: a sum of 2^22 floats by the default rung
 * and by the compensated one (TwoSum on every addition), against the host's
 * sum in double. The default's error grows with n; the compensated one's does not. */
#include <cupat.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define TRY(call) do { cupat_status s_ = (call); if (s_) { fprintf(stderr, "%s: %s\n", #call, cupat_last_error(ctx)); return 1; } } while (0)

int main(void)
{
    const size_t n = (size_t)1 << 22;
    float *x = malloc(n * sizeof *x);
    double exact = 0;
    for (size_t i = 0; i < n; i++) exact += x[i] = 1.0f / (float)(1 + i % 1000); /* values of many exponents */
    cupat_ctx *ctx = NULL;
    if (cupat_create(&ctx, CUPAT_BACKEND_AUTO, -1)) return fprintf(stderr, "%s\n", cupat_last_error(NULL)), 1;
    float *dx, sum_default, sum_compensated;
    TRY(cupat_malloc(ctx, (void **)&dx, n * sizeof *dx));
    TRY(cupat_memcpy(ctx, dx, x, n * sizeof *x));
    TRY(cupat_reduce_host(ctx, CUPAT_F32, CUPAT_OP_SUM, n, dx, &sum_default));
    TRY(cupat_set_variant(ctx, "reduce", "compensated")); /* the CPU's "openmp_compensated" */
    TRY(cupat_reduce_host(ctx, CUPAT_F32, CUPAT_OP_SUM, n, dx, &sum_compensated));
    double e1 = fabs(sum_default - exact) / exact, e2 = fabs(sum_compensated - exact) / exact;
    printf("%s: sum of %zu floats = %.9g (relative error %.2e), compensated %.9g (%.2e); exact %.9g\n",
           cupat_backend_name(cupat_get_backend(ctx)), n, sum_default, e1, sum_compensated, e2, exact);
    cupat_free(ctx, dx);
    cupat_destroy(ctx);
    free(x);
    return !(e2 <= 1.25e-7 && e1 < 1e-4); /* compensated: within an ulp or two of the exact sum */
}
