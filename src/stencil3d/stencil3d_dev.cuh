// SPDX-License-Identifier: Apache-2.0
// stencil3d_dev.cuh — what the stencil3d kernels share: the grid, the
// coefficients by value (kernel parameters: the constant bank), and the one
// evaluation order of a point (a chain of fma from +0 over the coefficients
// in index order), unrolled so every coefficient index is a constant.
#pragma once

#include "stencil3d/stencil3d_internal.h"

#include <cuda_runtime.h>

namespace cupat_s3 {

struct Grid {
    long long nx, ny, nz, ldy, ldz;
    long long z0, z1; // the planes written: [z0, z1) (coarse_z / regtile; the others: 0, nz)
};

template <class T>
struct Coef {
    T c[27];
};

__device__ __forceinline__ float fmat(float a, float b, float c) { return fmaf(a, b, c); }
__device__ __forceinline__ double fmat(double a, double b, double c) { return fma(a, b, c); }

// v(dx, dy, dz): the neighbour's value.
template <class T, int P, class F>
__device__ __forceinline__ T point(const Coef<T> &k, F v)
{
    T acc = 0;
    if constexpr (P == 7) {
        acc = fmat(k.c[0], v(0, 0, 0), acc);
        acc = fmat(k.c[1], v(-1, 0, 0), acc);
        acc = fmat(k.c[2], v(1, 0, 0), acc);
        acc = fmat(k.c[3], v(0, -1, 0), acc);
        acc = fmat(k.c[4], v(0, 1, 0), acc);
        acc = fmat(k.c[5], v(0, 0, -1), acc);
        acc = fmat(k.c[6], v(0, 0, 1), acc);
    } else {
#pragma unroll
        for (int dz = -1; dz <= 1; dz++)
#pragma unroll
            for (int dy = -1; dy <= 1; dy++)
#pragma unroll
                for (int dx = -1; dx <= 1; dx++)
                    acc = fmat(k.c[(dz + 1) * 9 + (dy + 1) * 3 + dx + 1], v(dx, dy, dz), acc);
    }
    return acc;
}

__device__ __forceinline__ bool halo(const Grid &g, long long x, long long y, long long z)
{
    return x == 0 || y == 0 || z == 0 || x == g.nx - 1 || y == g.ny - 1 || z == g.nz - 1;
}

// The walk coarse_z, regtile and pipeline share: a block of CI x CI threads
// (x = the thread's column) takes output tiles CI - 2 wide in x and y and
// chunks of ZC planes of the window [g.z0, g.z1); f(c) runs once a tile.
struct Column {
    long long y, col, z0, z1; // the thread's row, its column's offset, the chunk's planes
    bool in_xy;               // the column is inside the grid
};
// RY rows a thread (threadIdx.y takes rows RY ty .. RY ty + RY - 1): c is
// the first row's.
template <int CI, int ZC, int RY = 1, class F>
__device__ __forceinline__ void for_each_column(const Grid &g, long long x, F f)
{
    constexpr int CO = CI - 2;
    for (long long zc = blockIdx.z; g.z0 + zc * ZC < g.z1; zc += gridDim.z)
        for (long long by = blockIdx.y; by * CO < g.ny; by += gridDim.y) {
            Column c;
            c.y = by * CO - 1 + threadIdx.y * RY;
            c.in_xy = x >= 0 && x < g.nx && c.y >= 0 && c.y < g.ny;
            c.col = x + c.y * g.ldy;
            c.z0 = g.z0 + zc * ZC;
            c.z1 = c.z0 + ZC < g.z1 ? c.z0 + ZC : g.z1;
            f(c);
        }
}

template <class T>
inline Coef<T> make_coef(const s3_req *r)
{
    Coef<T> k = {};
    for (int i = 0; i < r->points; i++) k.c[i] = (T)r->c[i];
    return k;
}
inline Grid make_grid(const s3_req *r)
{
    return Grid{(long long)r->nx, (long long)r->ny, (long long)r->nz, (long long)r->ldy,
                (long long)r->ldz, (long long)r->z0, (long long)r->z1};
}

} // namespace cupat_s3

cupat_status cupat__stencil3d_pipeline(cupat_ctx *ctx, const s3_req *r, cudaStream_t stream,
                                       const void *in, void *out);
// The columns rung (f32, 16-byte columns); _fits: whether r, in and out
// allow it (else the caller runs the pipeline rung).
int cupat__stencil3d_columns_fits(const s3_req *r, const void *in, const void *out);
cupat_status cupat__stencil3d_columns(cupat_ctx *ctx, const s3_req *r, cudaStream_t stream,
                                      const void *in, void *out);
// Two 7-point steps in one pass over the whole grid (columns_fits grids).
cupat_status cupat__stencil3d_columns_t2(cupat_ctx *ctx, const s3_req *r, cudaStream_t stream,
                                         const void *in, void *out);
cupat_status cupat__stencil3d_temporal(cupat_ctx *ctx, const s3_req *r, int steps,
                                       cudaStream_t stream, const void *in, void *out);
