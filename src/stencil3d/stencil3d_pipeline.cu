// SPDX-License-Identifier: Apache-2.0
// stencil3d_pipeline.cu — the "pipeline" rung: coarse_z's walk through z,
// with the planes brought into a ring of S shared-memory stages by
// asynchronous copies (cp.async through __pipeline_memcpy_async), S - 3
// planes ahead of the ones a step needs. The copies in flight cost no
// registers: regtile's prefetch holds its plane in a register, and at the
// 32 registers that keep two 1024-thread blocks on an SM it can hold one.
// Every point is the one chain of stencil3d_dev.cuh: bitwise equal to the
// other rungs. Honours the z window (cupat__stencil3d_window).
#include "stencil3d/stencil3d_dev.cuh"

#include <cuda_pipeline.h>

using namespace cupat_s3;

namespace {

constexpr int PI = 32, PO = PI - 2, PZ = 32;
// stages: f32 6 (24 KB a block, two blocks an SM), f64 4 (32 KB)
template <class T> constexpr int stages() { return sizeof(T) == 4 ? 6 : 4; }

__device__ __forceinline__ int next_stage(int i, int s) { return i + 1 == s ? 0 : i + 1; }

// RY rows a thread: f32 27-point 2 (512-thread blocks, four an SM): the
// barriers, the waits and the loop paid once for two points (H100, 512^3:
// 0.846 -> 0.746 ms). The 7-point stays at 1 (2 rows: 0.513 -> 0.679 ms;
// with little work a point, the barriers wait on half the warps).
template <class T, int P> constexpr int rows() { return sizeof(T) == 4 && P == 27 ? 2 : 1; }

template <class T, int P, int RY = rows<T, P>()>
__global__ void __launch_bounds__(PI *PI / RY, sizeof(T) == 4 ? 2 * RY : 1)
    k_pipeline(Grid g, Coef<T> k, const T *__restrict__ in, T *__restrict__ out)
{
    constexpr int S = stages<T>();
    __shared__ T s[S][PI][PI];
    const long long x = (long long)blockIdx.x * PO - 1 + threadIdx.x;
    const int tx = threadIdx.x, ty = threadIdx.y;
    for_each_column<PI, PZ, RY>(g, x, [&](const Column &c) {
        const long long z0 = c.z0, z1 = c.z1, ldz = g.ldz, ldy = g.ldy;
        // each row's place: inside the grid, on its x / y halo, an output of
        // the tile (the instruction count sets the pace: made once a tile)
        const bool in_x = x >= 0 && x < g.nx;
        bool in_r[RY], edge_r[RY], out_r[RY];
#pragma unroll
        for (int r = 0; r < RY; r++) {
            const long long yr = c.y + r;
            const int iy = ty * RY + r;
            in_r[r] = in_x && yr >= 0 && yr < g.ny;
            edge_r[r] = x == 0 || yr == 0 || x == g.nx - 1 || yr == g.ny - 1;
            out_r[r] = in_r[r] && tx >= 1 && tx <= PO && iy >= 1 && iy <= PO;
        }
        // plane q (at pq, row 0) of this thread's rows into stage st; outside
        // the grid nothing is copied (never read for a written point)
        const T *pq = in + c.col + (z0 - 1) * ldz;
        long long q = z0 - 1;
        auto issue = [&](int st) {
            if (q >= 0 && q < g.nz) {
#pragma unroll
                for (int r = 0; r < RY; r++)
                    if (in_r[r]) __pipeline_memcpy_async(&s[st][ty * RY + r][tx], pq + r * ldy, sizeof(T));
            }
            __pipeline_commit();
            q++, pq += ldz;
        };
        __syncthreads(); // the previous tile's readers are done with the ring
        // planes z0 - 1 .. z0 + S - 3 into stages 0 .. S - 2
        for (int d = 0; d < S - 1; d++) issue(d);
        int sm = 0, s0 = 1, sp = 2, si = S - 1; // stages of z - 1, z, z + 1, the next issue
        T *po = out + c.col + z0 * ldz;
        for (long long z = z0; z < z1; z++, po += ldz) {
            issue(si); // plane z + S - 2
            // plane z + 1 landed: at most S - 3 later groups still in flight
            __pipeline_wait_prior(S - 3);
            __syncthreads();
            const bool edge_z = z == 0 || z == g.nz - 1;
#pragma unroll
            for (int r = 0; r < RY; r++) {
                if (!out_r[r]) continue;
                const int iy = ty * RY + r;
                if (edge_r[r] || edge_z) {
                    po[r * ldy] = s[s0][iy][tx];
                } else {
                    po[r * ldy] = point<T, P>(k, [&](int dx, int dy, int dz) {
                        return s[dz < 0 ? sm : dz > 0 ? sp : s0][iy + dy][tx + dx];
                    });
                }
            }
            __syncthreads(); // stage sm is the next issue's
            const int free_stage = sm;
            sm = s0, s0 = sp, sp = next_stage(sp, S);
            si = free_stage;
        }
        __pipeline_wait_prior(0); // nothing of this tile lands in the next one's ring
    });
}

unsigned gdim(long long n, long long cap) { return (unsigned)(n < cap ? n : cap); }

template <class T, int P>
cupat_status launch(cupat_ctx *ctx, const s3_req *r, cudaStream_t st, const void *in, void *out)
{
    const Grid g = make_grid(r);
    auto cd = [](long long n, long long d) { return (n + d - 1) / d; };
    const dim3 grid(gdim(cd(g.nx, PO), 0x7fffffff), gdim(cd(g.ny, PO), 65535),
                    gdim(cd(g.z1 - g.z0, PZ), 65535));
    k_pipeline<T, P><<<grid, dim3(PI, PI / rows<T, P>()), 0, st>>>(
        g, make_coef<T>(r), static_cast<const T *>(in), static_cast<T *>(out));
    return cupat__launched(ctx, "stencil3d k_pipeline");
}

} // namespace

cupat_status cupat__stencil3d_pipeline(cupat_ctx *ctx, const s3_req *r, cudaStream_t stream,
                                       const void *in, void *out)
{
    if (r->f64)
        return r->points == 7 ? launch<double, 7>(ctx, r, stream, in, out)
                              : launch<double, 27>(ctx, r, stream, in, out);
    return r->points == 7 ? launch<float, 7>(ctx, r, stream, in, out)
                          : launch<float, 27>(ctx, r, stream, in, out);
}
