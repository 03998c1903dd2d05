/* SPDX-License-Identifier: Apache-2.0 */
/* stencil3d.c — cupat_stencil3d, cupat_stencil3d_run and the presets:
 * argument checks, the "stencil3d" ladder, dispatch and the step driver.
 * Rung -> file: basic .. regtile: stencil3d_book.cu; pipeline:
 * stencil3d_pipeline.cu; columns, columns_t2: stencil3d_columns.cu; temporal:
 * stencil3d_temporal.cu; serial, openmp: stencil3d_cpu.c. */
#include "stencil3d/stencil3d_internal.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#define CUDA CUPAT_BACKEND_CUDA
#define CPU CUPAT_BACKEND_CPU

static const cupat_variant_info s3_rungs[S3_COUNT] = {
    [S3_BASIC] = {"stencil3d", "basic",
                  "one thread a point (3D blocks of 32 x 4 x 2), every neighbour read from "
                  "global memory",
                  "PMPP 8.2", CUDA, 0},
    [S3_SMEM] = {"stencil3d", "smem",
                 "block = 8 x 8 x 8 input tile in shared memory, the inner 6^3 threads "
                 "compute: small tiles, much of each block idle",
                 "PMPP 8.3", CUDA, 0},
    [S3_COARSE_Z] = {"stencil3d", "coarse_z",
                     "32 x 32 threads walk z through their column: three planes (z-1, z, z+1) "
                     "in shared memory, one new plane loaded a step",
                     "PMPP 8.4 (thread coarsening)", CUDA, 0},
    [S3_REGTILE] = {"stencil3d", "regtile",
                    "coarse_z with the z-1 and z+1 values in registers and only plane z in "
                    "shared memory (7-point; 27-point needs the neighbours' z-1 and z+1, and "
                    "keeps three shared planes)",
                    "PMPP 8.5 (register tiling)", CUDA, 0},
    [S3_PIPELINE] = {"stencil3d", "pipeline",
                     "coarse_z with the planes brought into a ring of shared-memory stages by "
                     "asynchronous copies (cp.async), several planes ahead: loads in flight "
                     "without the registers regtile's prefetch holds them in",
                     "beyond the books (CUDA Guide: asynchronous data copies)", CUDA, 0},
    [S3_COLUMNS] = {"stencil3d", "columns",
                    "f32: a thread walks a column of four x points through z (one 16-byte "
                    "load a plane), its z neighbours in registers, x neighbours by shuffles, "
                    "y neighbours through L1: no shared memory, no barrier (f64 or unaligned "
                    "grids: the pipeline rung)",
                    "beyond the books (register blocking with warp shuffles)", CUDA, 1},
    [S3_TEMPORAL] = {"stencil3d", "temporal",
                     "temporal blocking: a 32 x 16 tile with a halo of T points walks z and "
                     "applies T steps (1, 2 or 4) in one pass, each level three planes in "
                     "shared memory: one read and one write of the grid for T steps",
                     "beyond the books (2.5D temporal blocking)", CUDA, 0},
    [S3_COLUMNS_T2] = {"stencil3d", "columns_t2",
                       "temporal blocking in the columns form (f32 7-point): a block of 18 "
                       "output rows and one row above and below walks z; each input plane "
                       "gives the first step's plane (to a shared ring of three), then the "
                       "second step's plane before it, every read beyond the warp's columns "
                       "loaded a plane ahead: one read and one write of the grid for two steps "
                       "(cupat_stencil3d_run: passes of 2, for the default too; other grids: "
                       "temporal)",
                       "beyond the books (2.5D temporal blocking, register columns)", CUDA, 0},
    [S3_SERIAL] = {"stencil3d", "serial", "one thread, the documented fma chain: the reference",
                   "PMPP 8.1", CPU, 0},
    [S3_OPENMP] = {"stencil3d", "openmp", "OpenMP over planes, the same chain", "OpenMP", CPU,
                   1},
};
_Static_assert(sizeof s3_rungs / sizeof s3_rungs[0] == S3_COUNT, "stencil3d ladder");

const cupat_pattern_desc cupat__pattern_stencil3d = {"stencil3d", s3_rungs, S3_COUNT};

/* Checks shared by both calls (and cupat_stencil3d_dist); fills r (ldy, ldz
 * resolved) and *bytes. */
cupat_status cupat__stencil3d_check_grid(cupat_ctx *ctx, const char *fn, cupat_type type,
                                         size_t nx, size_t ny, size_t nz, size_t ldy,
                                         size_t ldz, int points, const double *coeffs,
                                         s3_req *r, size_t *bytes)
{
    if (type != CUPAT_F32 && type != CUPAT_F64)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "%s: type = %d (CUPAT_F32 or CUPAT_F64)",
                           fn, (int)type);
    if (points != 7 && points != 27)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "%s: points = %d (7 or 27)", fn,
                           points);
    if (!coeffs) return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "%s: coeffs is NULL", fn);
    if (ctx->backend == CUPAT_BACKEND_CUDA && cupat__pointer_kind(coeffs) == CUPAT_MEMORY_DEVICE)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: coeffs = %p is device memory; it must be host memory (%d "
                           "doubles)",
                           fn, (const void *)coeffs, points);
    if (ldy == 0) ldy = nx;
    if (ldy < nx)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "%s: ldy = %zu is less than nx = %zu",
                           fn, ldy, nx);
    size_t plane;
    CUPAT_TRY(cupat__size_mul(ctx, fn, "ldy * ny", ldy, ny, 1, &plane));
    if (ldz == 0) ldz = plane;
    if (ldz < plane)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: ldz = %zu is less than ldy * ny = %zu", fn, ldz, plane);
    const size_t es = type == CUPAT_F64 ? 8 : 4;
    *bytes = 0;
    if (nx && ny && nz) {
        size_t a, b;
        CUPAT_TRY(cupat__size_mul(ctx, fn, "(nz - 1) * ldz", nz - 1, ldz, 1, &a));
        CUPAT_TRY(cupat__size_mul(ctx, fn, "(ny - 1) * ldy", ny - 1, ldy, 1, &b));
        if (a + b < a || a + b + nx < a + b)
            return cupat__fail(ctx, CUPAT_ERROR_SIZE, "%s: the grid spans more than size_t", fn);
        CUPAT_TRY(cupat__size_mul(ctx, fn, "grid bytes", a + b + nx, es, 1, bytes));
    }
    memset(r, 0, sizeof *r);
    r->f64 = type == CUPAT_F64;
    r->nx = nx, r->ny = ny, r->nz = nz, r->ldy = ldy, r->ldz = ldz, r->points = points;
    r->z0 = 0, r->z1 = nz;
    for (int k = 0; k < points; k++) r->c[k] = coeffs[k];
    return CUPAT_SUCCESS;
}

cupat_status cupat__stencil3d_check_buf(cupat_ctx *ctx, const char *fn, const char *arg,
                                        const void *p, size_t bytes, size_t es)
{
    CUPAT_TRY(cupat__check_data(ctx, fn, arg, p, bytes));
    if (bytes && (uintptr_t)p % es)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "%s: %s = %p is not %zu-byte aligned",
                           fn, arg, p, es);
    return CUPAT_SUCCESS;
}

static cupat_status one_step(cupat_ctx *ctx, int rung, const s3_req *r, int steps,
                             const void *in, void *out)
{
    if (ctx->backend != CUPAT_BACKEND_CUDA) {
        cupat__stencil3d_cpu(r, rung == S3_OPENMP, in, out);
        return CUPAT_SUCCESS;
    }
    return cupat__stencil3d_cuda(ctx, rung, r, steps, ctx->stream, in, out);
}

cupat_status cupat__stencil3d_window(cupat_ctx *ctx, const s3_req *r, cudaStream_t stream,
                                     const void *in, void *out)
{
    if (r->z1 <= r->z0 || !r->nx || !r->ny) return CUPAT_SUCCESS;
    if (ctx->backend != CUPAT_BACKEND_CUDA) {
        cupat__stencil3d_cpu(r, 1, in, out);
        return CUPAT_SUCCESS;
    }
    return cupat__stencil3d_cuda(ctx, S3_COLUMNS, r, 1, stream, in, out);
}

cupat_status cupat_stencil3d(cupat_ctx *ctx, cupat_type type, size_t nx, size_t ny, size_t nz,
                             size_t ldy, size_t ldz, int points, const double *coeffs,
                             const void *in, void *out)
{
    CUPAT_TRACE_CALL();
    static const char fn[] = "cupat_stencil3d";
    s3_req r;
    size_t bytes;
    CUPAT_TRY(cupat__begin(ctx, fn));
    CUPAT_TRY(cupat__stencil3d_check_grid(ctx, fn, type, nx, ny, nz, ldy, ldz, points, coeffs,
                                          &r, &bytes));
    const size_t es = r.f64 ? 8 : 4;
    CUPAT_TRY(cupat__stencil3d_check_buf(ctx, fn, "in", in, bytes, es));
    CUPAT_TRY(cupat__stencil3d_check_buf(ctx, fn, "out", out, bytes, es));
    CUPAT_TRY(cupat__check_disjoint(ctx, fn, "out", cupat__extent1(out, bytes), "in",
                                    cupat__extent1(in, bytes), NULL));
    const cupat_variant_info *v;
    CUPAT_TRY(cupat__select(ctx, "stencil3d", &v));
    if (bytes == 0) return CUPAT_SUCCESS;
    return one_step(ctx, cupat__rung_index(v), &r, 1, in, out);
}

cupat_status cupat_stencil3d_run(cupat_ctx *ctx, cupat_type type, size_t nx, size_t ny,
                                 size_t nz, size_t ldy, size_t ldz, int points,
                                 const double *coeffs, int steps, void *a, void *b,
                                 void **result)
{
    CUPAT_TRACE_CALL();
    static const char fn[] = "cupat_stencil3d_run";
    s3_req r;
    size_t bytes;
    CUPAT_TRY(cupat__begin(ctx, fn));
    if (!result) return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "%s: result is NULL", fn);
    *result = a;
    if (steps < 0)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "%s: steps = %d (must be >= 0)", fn,
                           steps);
    CUPAT_TRY(cupat__stencil3d_check_grid(ctx, fn, type, nx, ny, nz, ldy, ldz, points, coeffs,
                                          &r, &bytes));
    const size_t es = r.f64 ? 8 : 4;
    CUPAT_TRY(cupat__stencil3d_check_buf(ctx, fn, "a", a, bytes, es));
    CUPAT_TRY(cupat__stencil3d_check_buf(ctx, fn, "b", b, bytes, es));
    CUPAT_TRY(cupat__check_disjoint(ctx, fn, "b", cupat__extent1(b, bytes), "a",
                                    cupat__extent1(a, bytes), NULL));
    const cupat_variant_info *v;
    CUPAT_TRY(cupat__select(ctx, "stencil3d", &v));
    if (bytes == 0 || steps == 0) return CUPAT_SUCCESS;
    const int rung = cupat__rung_index(v);
    /* Several steps a pass: temporal only where pinned (on the H100 its
     * passes of 4 steps ran slower than 4 single steps of the default);
     * columns_t2's pairs where pinned, and for the default (columns) where
     * the grid takes them: measured 2.73 ms against 3.13 for 8 steps at
     * 512^3 (docs/stencil3d.md). A pinned columns steps one at a time. */
    const int cuda = ctx->backend == CUPAT_BACKEND_CUDA;
    const int temporal = cuda && rung == S3_TEMPORAL;
    const int pairs = cuda && (rung == S3_COLUMNS_T2 ||
                               (rung == S3_COLUMNS && !cupat__pinned(ctx, "stencil3d") &&
                                cupat__stencil3d_pairs(&r, a, b)));
    void *cur = a, *nxt = b;
    for (int left = steps; left > 0;) {
        int t = 1, rr = rung;
        if (temporal) {
            t = left >= 4 ? 4 : left >= 2 ? 2 : 1;
            if (t > 1 || rung == S3_TEMPORAL) rr = S3_TEMPORAL;
        } else if (pairs) {
            t = left >= 2 ? 2 : 1;
            if (t == 2) rr = S3_COLUMNS_T2;
        }
        CUPAT_TRY(one_step(ctx, rr, &r, t, cur, nxt));
        void *s = cur;
        cur = nxt, nxt = s;
        left -= t;
    }
    *result = cur;
    return CUPAT_SUCCESS;
}

cupat_status cupat_stencil3d_coeffs(cupat_stencil3d_preset preset, double param, int *points,
                                    double coeffs[27])
{
    static const char fn[] = "cupat_stencil3d_coeffs";
    if (!points || !coeffs)
        return cupat__fail(NULL, CUPAT_ERROR_NULL_POINTER, "%s: %s is NULL", fn,
                           !points ? "points" : "coeffs");
    if (!isfinite(param))
        return cupat__fail(NULL, CUPAT_ERROR_INVALID_VALUE, "%s: param = %g is not finite", fn,
                           param);
    double center, side;
    switch (preset) {
    case CUPAT_STENCIL3D_LAPLACIAN:
        if (!(param > 0))
            return cupat__fail(NULL, CUPAT_ERROR_INVALID_VALUE,
                               "%s: param = %g: the Laplacian's spacing h must be > 0", fn, param);
        side = 1.0 / (param * param), center = -6.0 * side;
        break;
    case CUPAT_STENCIL3D_HEAT:
        side = param, center = 1.0 - 6.0 * param;
        break;
    default:
        return cupat__fail(NULL, CUPAT_ERROR_INVALID_VALUE,
                           "%s: preset = %d (CUPAT_STENCIL3D_LAPLACIAN or _HEAT)", fn,
                           (int)preset);
    }
    coeffs[0] = center;
    for (int k = 1; k < 7; k++) coeffs[k] = side;
    *points = 7;
    return CUPAT_SUCCESS;
}
