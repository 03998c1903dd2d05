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

template <class T, int P>
__global__ void __launch_bounds__(PI *PI, sizeof(T) == 4 ? 2 : 1)
    k_pipeline(Grid g, Coef<T> k, const T *__restrict__ in, T *__restrict__ out)
{
    constexpr int S = stages<T>();
    __shared__ T s[S][PI][PI];
    const long long x = (long long)blockIdx.x * PO - 1 + threadIdx.x;
    const int tx = threadIdx.x, ty = threadIdx.y;
    const bool inner = tx >= 1 && tx <= PO && ty >= 1 && ty <= PO;
    for_each_column<PI, PZ>(g, x, [&](const Column &c) {
        const long long z0 = c.z0, z1 = c.z1, ldz = g.ldz;
        const bool in_xy = c.in_xy;
        // pointers step a plane a step and the x / y half of the halo test is
        // made once a tile (as regtile: the instruction count sets the pace)
        const bool edge_xy = x == 0 || c.y == 0 || x == g.nx - 1 || c.y == g.ny - 1;
        // plane q (at pq) of this thread's column into stage st; outside the
        // grid nothing is copied (such a value is never read for a written point)
        const T *pq = in + c.col + (z0 - 1) * ldz;
        long long q = z0 - 1;
        auto issue = [&](int st) {
            if (in_xy && q >= 0 && q < g.nz) __pipeline_memcpy_async(&s[st][ty][tx], pq, sizeof(T));
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
            if (inner && in_xy) {
                if (edge_xy || z == 0 || z == g.nz - 1) {
                    *po = s[s0][ty][tx];
                } else {
                    *po = point<T, P>(k, [&](int dx, int dy, int dz) {
                        return s[dz < 0 ? sm : dz > 0 ? sp : s0][ty + dy][tx + dx];
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
    k_pipeline<T, P><<<grid, dim3(PI, PI), 0, st>>>(g, make_coef<T>(r), static_cast<const T *>(in),
                                                    static_cast<T *>(out));
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
