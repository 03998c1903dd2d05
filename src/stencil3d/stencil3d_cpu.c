/* SPDX-License-Identifier: Apache-2.0 */
/* stencil3d_cpu.c — the CPU reference and backend of cupat_stencil3d: every
 * interior point is one chain of fma (f64) / fmaf (f32) from +0 over the
 * coefficients in index order; halo points are copied. "serial" is one
 * thread, "openmp" splits the planes. x86 hosts with FMA take a clone
 * compiled for it (fma is exact either way). Only the planes of the request's
 * window [z0, z1) are written. */
#include "stencil3d/stencil3d_internal.h"

#include <math.h>

/* Offsets of the 7 points in coefficient order. */
static const int o7[7][3] = {{0, 0, 0},  {-1, 0, 0}, {1, 0, 0}, {0, -1, 0},
                             {0, 1, 0},  {0, 0, -1}, {0, 0, 1}};

#define S3_BODY(T, FMA)                                                                      \
    {                                                                                        \
        const T *in = vin;                                                                   \
        T *out = vout;                                                                       \
        T c[27];                                                                             \
        long long off[27];                                                                   \
        const int np = r->points;                                                            \
        for (int k = 0; k < np; k++) {                                                       \
            int dx, dy, dz;                                                                  \
            if (np == 7) dx = o7[k][0], dy = o7[k][1], dz = o7[k][2];                       \
            else dx = k % 3 - 1, dy = k / 3 % 3 - 1, dz = k / 9 - 1;                         \
            c[k] = (T)r->c[k];                                                               \
            off[k] = dx + dy * (long long)r->ldy + dz * (long long)r->ldz;                   \
        }                                                                                    \
        const size_t nx = r->nx, ny = r->ny, nz = r->nz;                                     \
        _Pragma("omp parallel for schedule(static) if (parallel)")                           \
        for (size_t z = r->z0; z < r->z1; z++)                                               \
            for (size_t y = 0; y < ny; y++) {                                                \
                const size_t row = z * r->ldz + y * r->ldy;                                  \
                const int hy = z == 0 || z == nz - 1 || y == 0 || y == ny - 1;               \
                for (size_t x = 0; x < nx; x++) {                                            \
                    const size_t p = row + x;                                                \
                    if (hy || x == 0 || x == nx - 1) {                                       \
                        out[p] = in[p];                                                      \
                        continue;                                                            \
                    }                                                                        \
                    T acc = 0;                                                               \
                    for (int k = 0; k < np; k++) acc = FMA(c[k], in[p + off[k]], acc);      \
                    out[p] = acc;                                                            \
                }                                                                            \
            }                                                                                \
    }

static inline void s3_f32(const s3_req *r, int parallel, const void *vin, void *vout)
    S3_BODY(float, fmaf)
static inline void s3_f64(const s3_req *r, int parallel, const void *vin, void *vout)
    S3_BODY(double, fma)

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("fma"))) static void s3_f32_fma(const s3_req *r, int parallel,
                                                      const void *in, void *out)
{
    s3_f32(r, parallel, in, out);
}
__attribute__((target("fma"))) static void s3_f64_fma(const s3_req *r, int parallel,
                                                      const void *in, void *out)
{
    s3_f64(r, parallel, in, out);
}
#endif

void cupat__stencil3d_cpu(const s3_req *r, int parallel, const void *in, void *out)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (__builtin_cpu_supports("fma")) {
        if (r->f64) s3_f64_fma(r, parallel, in, out);
        else s3_f32_fma(r, parallel, in, out);
        return;
    }
#endif
    if (r->f64) s3_f64(r, parallel, in, out);
    else s3_f32(r, parallel, in, out);
}
