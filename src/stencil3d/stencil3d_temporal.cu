// SPDX-License-Identifier: Apache-2.0
// stencil3d_temporal.cu — the temporal rung: TS steps (1, 2 or 4) in one
// pass over the grid (2.5D temporal blocking). A block owns a 32 x 16 tile
// of (x, y) and walks z from 0 to nz - 1 + TS. Level 0 is the input, level
// k the grid after k steps; level k is computed over the tile widened by
// TS - k points each side (what level k + 1 needs), so level k - 1 is read
// over the tile widened by TS - k + 1. Each level below TS keeps the last
// three planes in shared memory (slot z % 3); at iteration zz, level 0 loads
// plane zz and level k computes plane zz - k; level TS is written to out.
// Points past the grid edge are never computed; halo points copy the level
// below (= the input), interior points take the chain of stencil3d_dev.cuh,
// so every level equals a single step bit for bit. The widened tile costs
// redundant work ((32 + 2 TS)(16 + 2 TS) / 512 a level) and buys one read
// and one write of the grid for TS steps.
#include "conv2d/conv2d_internal.h" /* cupat__opt_in_smem */
#include "stencil3d/stencil3d_dev.cuh"

using namespace cupat_s3;

namespace {

constexpr int TX = 32, TY = 16;

template <class T, int P, int TS>
__global__ void __launch_bounds__(TX *TY) k_temporal(Grid g, Coef<T> k, const T *__restrict__ in,
                                                     T *__restrict__ out)
{
    constexpr int EW = TX + 2 * TS, EH = TY + 2 * TS, PL = EW * EH;
    extern __shared__ __align__(16) unsigned char raw[];
    T *lv = reinterpret_cast<T *>(raw); // [level 0..TS-1][slot 0..2][EH][EW]
    auto L = [&](int level, long long z) { return lv + (level * 3 + (int)((z + 3) % 3)) * PL; }; // z >= -1
    const int tid = threadIdx.y * TX + threadIdx.x;
    const long long ntx = (g.nx + TX - 1) / TX, n = ntx * ((g.ny + TY - 1) / TY);
    for (long long b = blockIdx.x; b < n; b += gridDim.x) {
        const long long ox = (b % ntx) * TX - TS, oy = (b / ntx) * TY - TS;
        for (long long zz = 0; zz < g.nz + TS; zz++) {
            __syncthreads();
            if (zz < g.nz) { // level 0: plane zz of the input
                T *d = L(0, zz);
                for (int q = tid; q < PL; q += TX * TY) {
                    long long x = ox + q % EW, y = oy + q / EW;
                    if (x >= 0 && x < g.nx && y >= 0 && y < g.ny) d[q] = in[x + y * g.ldy + zz * g.ldz];
                }
            }
#pragma unroll
            for (int lvl = 1; lvl < TS; lvl++) {
                __syncthreads();
                const long long z = zz - lvl;
                if (z < 0 || z >= g.nz) continue;
                const T *m = L(lvl - 1, z - 1), *c = L(lvl - 1, z), *p = L(lvl - 1, z + 1);
                T *d = L(lvl, z);
                const int w = EW - 2 * lvl; // the region: [lvl, EW - lvl) x [lvl, EH - lvl)
                for (int q = tid; q < w * (EH - 2 * lvl); q += TX * TY) {
                    const int ex = lvl + q % w, ey = lvl + q / w, e = ey * EW + ex;
                    const long long x = ox + ex, y = oy + ey;
                    if (x < 0 || x >= g.nx || y < 0 || y >= g.ny) continue;
                    if (halo(g, x, y, z)) {
                        d[e] = c[e];
                        continue;
                    }
                    d[e] = point<T, P>(k, [&](int dx, int dy, int dz) {
                        return (dz < 0 ? m : dz > 0 ? p : c)[e + dx + dy * EW];
                    });
                }
            }
            __syncthreads();
            const long long z = zz - TS; // the last level: straight to out
            if (z < 0 || z >= g.nz) continue;
            const int ex = TS + threadIdx.x, ey = TS + threadIdx.y, e = ey * EW + ex;
            const long long x = ox + ex, y = oy + ey;
            if (x >= g.nx || y >= g.ny) continue;
            const T *m = L(TS - 1, z - 1), *c = L(TS - 1, z), *p = L(TS - 1, z + 1);
            const long long o = x + y * g.ldy + z * g.ldz;
            if (halo(g, x, y, z)) {
                out[o] = c[e];
                continue;
            }
            out[o] = point<T, P>(k, [&](int dx, int dy, int dz) {
                return (dz < 0 ? m : dz > 0 ? p : c)[e + dx + dy * EW];
            });
        }
    }
}

template <class T, int P, int TS>
cupat_status launch(cupat_ctx *ctx, const s3_req *r, cudaStream_t stream, const void *in, void *out)
{
    const size_t smem = (size_t)TS * 3 * (TX + 2 * TS) * (TY + 2 * TS) * sizeof(T);
    CUPAT_TRY(cupat__opt_in_smem(ctx, "cupat_stencil3d", (const void *)k_temporal<T, P, TS>, smem,
                                 smem));
    const Grid g = make_grid(r);
    const long long n = ((g.nx + TX - 1) / TX) * ((g.ny + TY - 1) / TY);
    k_temporal<T, P, TS><<<(unsigned)(n < 0x7fffffff ? n : 0x7fffffff), dim3(TX, TY), smem,
                           stream>>>(g, make_coef<T>(r), static_cast<const T *>(in),
                                          static_cast<T *>(out));
    return cupat__launched(ctx, "stencil3d k_temporal");
}

template <class T, int P>
cupat_status by_steps(cupat_ctx *ctx, const s3_req *r, int steps, cudaStream_t stream,
                      const void *in, void *out)
{
    switch (steps) {
    case 1: return launch<T, P, 1>(ctx, r, stream, in, out);
    case 2: return launch<T, P, 2>(ctx, r, stream, in, out);
    case 4: return launch<T, P, 4>(ctx, r, stream, in, out);
    }
    return cupat__fail(ctx, CUPAT_ERROR_INTERNAL, "cupat_stencil3d: temporal has no %d steps",
                       steps);
}

} // namespace

cupat_status cupat__stencil3d_temporal(cupat_ctx *ctx, const s3_req *r, int steps,
                                       cudaStream_t stream, const void *in, void *out)
{
    if (r->f64)
        return r->points == 7 ? by_steps<double, 7>(ctx, r, steps, stream, in, out)
                              : by_steps<double, 27>(ctx, r, steps, stream, in, out);
    return r->points == 7 ? by_steps<float, 7>(ctx, r, steps, stream, in, out)
                          : by_steps<float, 27>(ctx, r, steps, stream, in, out);
}
