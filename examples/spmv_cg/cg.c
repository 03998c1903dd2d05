/* SPDX-License-Identifier: Apache-2.0 */
/* cg.c — PMPP 14: sparse matrices at work. The 2D Poisson matrix of a 128 x 128
 * grid (CSR), solved by conjugate gradients: one SpMV, two dot products and
 * three axpys an iteration. "converged" means the true residual ||b - Ax||
 * met rtol, not the recurrence's estimate. */
#include <cupat.h>
#include <stdio.h>
#include <stdlib.h>

#define TRY(call) do { cupat_status s_ = (call); if (s_) { fprintf(stderr, "%s: %s\n", #call, cupat_last_error(ctx)); return 1; } } while (0)

int main(void)
{
    const size_t grid = 128, n = grid * grid;
    cupat_ctx *ctx = NULL;
    if (cupat_create(&ctx, CUPAT_BACKEND_AUTO, -1)) return fprintf(stderr, "%s\n", cupat_last_error(NULL)), 1;
    cupat_sparse *A = NULL;
    TRY(cupat_sparse_generate(ctx, &A, CUPAT_GEN_POISSON2D, grid, 0, 1, CUPAT_I32, CUPAT_F64));
    double *b = malloc(n * sizeof *b), *db, *dx;
    for (size_t i = 0; i < n; i++) b[i] = 1.0; /* a uniform load */
    TRY(cupat_malloc(ctx, (void **)&db, n * sizeof *db));
    TRY(cupat_malloc(ctx, (void **)&dx, n * sizeof *dx));
    TRY(cupat_memcpy(ctx, db, b, n * sizeof *b));
    TRY(cupat_memset(ctx, dx, 0, n * sizeof *dx)); /* x0 = 0 */
    cupat_cg_result r;
    TRY(cupat_cg(ctx, A, db, dx, 1e-8, 2000, CUPAT_CG_JACOBI, NULL, 0, &r));
    TRY(cupat_memcpy(ctx, b, dx, n * sizeof *b));
    printf("%s: CG on the %zux%zu Poisson grid (%zu unknowns): %s after %zu iterations, true residual %.2e; "
           "x at the centre %.4f\n",
           cupat_backend_name(cupat_get_backend(ctx)), grid, grid, n, r.converged ? "converged" : "NOT converged",
           r.iterations, r.residual, b[(grid / 2) * grid + grid / 2]);
    cupat_sparse_destroy(ctx, A);
    cupat_free(ctx, db);
    cupat_free(ctx, dx);
    cupat_destroy(ctx);
    free(b);
    return !r.converged;
}
