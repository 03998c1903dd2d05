// SPDX-License-Identifier: Apache-2.0
// stencil3d_book.cu — the PMPP chapter 8 rungs of the stencil3d ladder
// (basic, smem, coarse_z, regtile) and the dispatcher. Every rung evaluates
// each interior point by the one chain in stencil3d_dev.cuh and copies halo
// points, so all of them equal the CPU reference bit for bit.
#include "stencil3d/stencil3d_dev.cuh"

using namespace cupat_s3;

namespace {

// -------------------------------------------------------------- basic --
// PMPP 8.2: one thread a point, every neighbour from global memory (L1/L2
// serve the reuse). Blocks of 32 x 4 x 2; y and z loop past the grid limits.
template <class T, int P>
__global__ void __launch_bounds__(256) k_basic(Grid g, Coef<T> k, const T *__restrict__ in,
                                               T *__restrict__ out)
{
    const long long x = (long long)blockIdx.x * 32 + threadIdx.x;
    if (x >= g.nx) return;
    for (long long z = (long long)blockIdx.z * 2 + threadIdx.z; z < g.nz; z += 2LL * gridDim.z)
        for (long long y = (long long)blockIdx.y * 4 + threadIdx.y; y < g.ny;
             y += 4LL * gridDim.y) {
            const long long p = x + y * g.ldy + z * g.ldz;
            if (halo(g, x, y, z)) {
                out[p] = in[p];
                continue;
            }
            out[p] = point<T, P>(k, [&](int dx, int dy, int dz) {
                return in[p + dx + dy * g.ldy + dz * g.ldz];
            });
        }
}

// --------------------------------------------------------------- smem --
// PMPP 8.3: the block is an 8^3 input tile; each thread loads its point, the
// inner 6^3 compute from shared memory. 8^3 = 512 threads is the most a
// block has, so the tile stays small and (8^3 - 6^3) / 8^3 = 58% of the
// threads only load: the limit PMPP 8.4 lifts.
constexpr int SI = 8, SO = SI - 2;

template <class T, int P>
__global__ void __launch_bounds__(SI *SI *SI) k_smem(Grid g, Coef<T> k, const T *__restrict__ in,
                                                     T *__restrict__ out)
{
    __shared__ T s[SI][SI][SI];
    const long long x = (long long)blockIdx.x * SO - 1 + threadIdx.x;
    for (long long tz = blockIdx.z; tz * SO < g.nz; tz += gridDim.z)
        for (long long ty = blockIdx.y; ty * SO < g.ny; ty += gridDim.y) {
            const long long y = ty * SO - 1 + threadIdx.y, z = tz * SO - 1 + threadIdx.z;
            const bool inside = x >= 0 && x < g.nx && y >= 0 && y < g.ny && z >= 0 && z < g.nz;
            const long long p = x + y * g.ldy + z * g.ldz;
            __syncthreads();
            if (inside) s[threadIdx.z][threadIdx.y][threadIdx.x] = in[p];
            __syncthreads();
            if (!inside || threadIdx.x < 1 || threadIdx.x > SO || threadIdx.y < 1 ||
                threadIdx.y > SO || threadIdx.z < 1 || threadIdx.z > SO)
                continue;
            if (halo(g, x, y, z)) {
                out[p] = s[threadIdx.z][threadIdx.y][threadIdx.x];
                continue;
            }
            out[p] = point<T, P>(k, [&](int dx, int dy, int dz) {
                return s[threadIdx.z + dz][threadIdx.y + dy][threadIdx.x + dx];
            });
        }
}

// ----------------------------------------------------- coarse_z, regtile --
// PMPP 8.4: a 32 x 32 block (a 30 x 30 output tile) walks ZC planes of z.
// Three planes z-1, z, z+1 sit in shared memory as a ring (slot z % 3): a
// step loads one new plane. PMPP 8.5 (REG, 7-point only): the z-1 and z+1
// values of the thread's own column live in registers, only plane z in
// shared memory: a third of the shared memory, no ring. Both write only the
// planes [g.z0, g.z1) (the window cupat__stencil3d_window gives; the whole
// grid otherwise), reading z0 - 1 and z1 as neighbours.
constexpr int CI = 32, CO = CI - 2, ZC = 32;

template <class T, int P, bool REG>
__global__ void __launch_bounds__(CI *CI, sizeof(T) == 4 ? 2 : 1) k_coarse(Grid g, Coef<T> k, const T *__restrict__ in,
                                                   T *__restrict__ out)
{
    __shared__ T s[REG ? 1 : 3][CI][CI];
    const long long x = (long long)blockIdx.x * CO - 1 + threadIdx.x;
    const int tx = threadIdx.x, ty = threadIdx.y;
    const bool inner = tx >= 1 && tx <= CO && ty >= 1 && ty <= CO;
    for_each_column<CI, ZC>(g, x, [&](const Column &c) {
        const long long z0 = c.z0, z1 = c.z1, ldz = g.ldz;
        const bool in_xy = c.in_xy;
        // the instruction count sets the pace here (ncu: SM throughput 71%,
        // DRAM 50%): pointers step a plane a step, the x / y part of the
        // halo test is made once a tile, loads test only their plane
        const bool edge_xy = x == 0 || c.y == 0 || x == g.nx - 1 || c.y == g.ny - 1;
        auto ld = [&](long long z) { return in_xy && z >= 0 && z < g.nz ? in[c.col + z * ldz] : T(0); };
        // the column's values z - 1, z, z + 1 (REG: the neighbours come from
        // here), and plane z + 2 loaded one step ahead so two loads a thread
        // are in flight across the barrier
        T prev = ld(z0 - 1), cur = ld(z0), next = ld(z0 + 1);
        const long long last = (z1 < g.nz - 2 ? z1 : g.nz - 2); // plane z + 2 exists while z < last
        const T *pa = in + c.col + (z0 + 2) * ldz;
        T *po = out + c.col + z0 * ldz;
        __syncthreads();
        if (!REG) {
            s[(z0 + 2) % 3][ty][tx] = prev; // slot of z0 - 1
            s[z0 % 3][ty][tx] = cur;
        }
        for (long long z = z0; z < z1; z++, pa += ldz, po += ldz) {
            const T ahead = in_xy && z + 1 < z1 && z < last ? *pa : T(0);
            if (REG) s[0][ty][tx] = cur;
            else s[(z + 1) % 3][ty][tx] = next;
            __syncthreads();
            if (inner && in_xy) {
                if (edge_xy || z == 0 || z == g.nz - 1) {
                    *po = cur;
                } else if (REG) {
                    *po = point<T, P>(k, [&](int dx, int dy, int dz) {
                        return dz < 0 ? prev : dz > 0 ? next : s[0][ty + dy][tx + dx];
                    });
                } else {
                    *po = point<T, P>(k, [&](int dx, int dy, int dz) {
                        return s[(z + 3 + dz) % 3][ty + dy][tx + dx];
                    });
                }
            }
            __syncthreads();
            prev = cur, cur = next, next = ahead;
        }
    });
}

unsigned gdim(long long n, long long cap) { return (unsigned)(n < cap ? n : cap); }

template <class T, int P>
cupat_status launch(cupat_ctx *ctx, int rung, const s3_req *r, cudaStream_t s, const void *vin,
                    void *vout)
{
    const Grid g = make_grid(r);
    const Coef<T> k = make_coef<T>(r);
    const T *in = static_cast<const T *>(vin);
    T *out = static_cast<T *>(vout);
    auto cd = [](long long n, long long d) { return (n + d - 1) / d; };
    if ((g.z0 != 0 || g.z1 != g.nz) && rung != S3_COARSE_Z && rung != S3_REGTILE)
        return cupat__fail(ctx, CUPAT_ERROR_INTERNAL, "cupat_stencil3d: rung %d takes no z window",
                           rung);
    switch (rung) {
    case S3_BASIC:
        k_basic<T, P><<<dim3(gdim(cd(g.nx, 32), 0x7fffffff), gdim(cd(g.ny, 4), 65535),
                         gdim(cd(g.nz, 2), 65535)),
                        dim3(32, 4, 2), 0, s>>>(g, k, in, out);
        return cupat__launched(ctx, "stencil3d k_basic");
    case S3_SMEM:
        k_smem<T, P><<<dim3(gdim(cd(g.nx, SO), 0x7fffffff), gdim(cd(g.ny, SO), 65535),
                        gdim(cd(g.nz, SO), 65535)),
                       dim3(SI, SI, SI), 0, s>>>(g, k, in, out);
        return cupat__launched(ctx, "stencil3d k_smem");
    case S3_COARSE_Z:
    case S3_REGTILE: {
        const dim3 grid(gdim(cd(g.nx, CO), 0x7fffffff), gdim(cd(g.ny, CO), 65535),
                        gdim(cd(g.z1 - g.z0, ZC), 65535));
        // Register tiling needs only the column's own z neighbours: 7-point.
        if (rung == S3_REGTILE && P == 7) {
            k_coarse<T, P, true><<<grid, dim3(CI, CI), 0, s>>>(g, k, in, out);
            return cupat__launched(ctx, "stencil3d k_coarse<registers>");
        }
        k_coarse<T, P, false><<<grid, dim3(CI, CI), 0, s>>>(g, k, in, out);
        return cupat__launched(ctx, "stencil3d k_coarse");
    }
    }
    return cupat__fail(ctx, CUPAT_ERROR_INTERNAL, "cupat_stencil3d: no book rung %d", rung);
}

} // namespace

int cupat__stencil3d_pairs(const s3_req *r, const void *a, const void *b)
{
    // (columns_fits asks both pointers: one call covers a -> b and b -> a)
    return r->points == 7 && r->z0 == 0 && r->z1 == r->nz && cupat__stencil3d_columns_fits(r, a, b);
}

cupat_status cupat__stencil3d_cuda(cupat_ctx *ctx, int rung, const s3_req *r, int steps,
                                   cudaStream_t stream, const void *in, void *out)
{
    if (rung == S3_COLUMNS && cupat__stencil3d_columns_fits(r, in, out))
        return cupat__stencil3d_columns(ctx, r, stream, in, out);
    if (rung == S3_PIPELINE || rung == S3_COLUMNS) // (columns: f64 or unaligned)
        return cupat__stencil3d_pipeline(ctx, r, stream, in, out);
    if (rung == S3_COLUMNS_T2) { // two steps: its own kernel where it fits, else temporal's
        const int fits = cupat__stencil3d_columns_fits(r, in, out) && r->points == 7;
        const int whole = r->z0 == 0 && r->z1 == r->nz;
        if (fits && steps == 1) return cupat__stencil3d_columns(ctx, r, stream, in, out);
        if (fits && whole && steps == 2) return cupat__stencil3d_columns_t2(ctx, r, stream, in, out);
        rung = S3_TEMPORAL;
    }
    if (rung == S3_TEMPORAL) {
        if (r->z0 != 0 || r->z1 != r->nz)
            return cupat__fail(ctx, CUPAT_ERROR_INTERNAL,
                               "cupat_stencil3d: temporal takes no z window");
        return cupat__stencil3d_temporal(ctx, r, steps, stream, in, out);
    }
    if (r->f64)
        return r->points == 7 ? launch<double, 7>(ctx, rung, r, stream, in, out)
                              : launch<double, 27>(ctx, rung, r, stream, in, out);
    return r->points == 7 ? launch<float, 7>(ctx, rung, r, stream, in, out)
                          : launch<float, 27>(ctx, rung, r, stream, in, out);
}
