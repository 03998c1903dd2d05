// SPDX-License-Identifier: Apache-2.0
// stencil3d_columns.cu — the "columns" rung (f32): a thread owns a column of
// four consecutive x points (one 16-byte load a plane) and walks it through
// z with the planes it needs in registers, no shared memory and no barrier:
//   - z neighbours: the column's planes z - 1, z, z + 1 stay in registers,
//     plane z + 2 is loaded one step ahead;
//   - x neighbours: inside the four, registers; across threads, the next
//     and previous lanes' values by shuffles (the warp is one row of 128
//     points); the warp's two ends load one scalar each;
//   - y neighbours: the rows above and below are other warps' columns,
//     read again through L1 (they loaded them a moment before; the block's
//     first and last rows come from L2).
// Why: the shared-memory rungs spend their instructions on the tile's halo,
// barriers and 4-byte traffic (ncu: instruction-bound at 0.70 of the copy
// rate); here a warp moves 512 bytes a load and every output tile is
// aligned, so DRAM sees one read and one write of each point.
// Every point is the one chain of stencil3d_dev.cuh (point<T, P>): bitwise
// equal to the other rungs. Taken when the grid allows 16-byte columns (f32,
// nx, ldy, ldz multiples of 4, both pointers 16-byte aligned); otherwise the
// pipeline rung runs (cupat__stencil3d_columns_fits). Honours the z window.
#include "stencil3d/stencil3d_dev.cuh"

#include <stdint.h>

using namespace cupat_s3;

namespace {

constexpr int CX = 32; // columns a block in x (a warp: 128 points)
// The launch shape: CY rows a block (8), CZ planes a chunk (64: 2 extra
// plane reads a chunk, 3%), AHEAD planes in flight (7-point). Template
// parameters on purpose: this form compiled to 0.388 ms on the 7-point
// (H100, 512^3), the same code with namespace constants to 0.43 (57
// registers, the step's loads scheduled differently); measured twice each.
constexpr int CY = 8, CZ = 64, AHEAD = 1;
constexpr unsigned FULL = 0xffffffffu;

// A row's four points with their x neighbours: v[0] = x - 1, v[1..4] the
// four, v[5] = x + 4 (only the ones a written point reads are filled).
struct Row {
    float v[6];
};

struct Col {
    long long x, nx4, x4;
    bool xin; // the column is inside the grid
    // the 16-byte value at p (a column of some row and plane)
    // (volatile asm: the load is issued where it is written, so a plane
    // loaded a step ahead is in flight during the step, whatever the
    // compiler's scheduling of the ordinary code around it)
    __device__ float4 ld(const float4 *p) const
    {
        float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
        if (xin)
            asm volatile("ld.global.nc.v4.f32 {%0, %1, %2, %3}, [%4];"
                         : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                         : "l"(p));
        return v;
    }
    // q (loaded from p) with its x neighbours: shuffles inside the warp,
    // one load at each end. Every lane of the warp calls (the row is the
    // warp's). x = 0 and x = nx - 1 are halo points (copied): their outer
    // neighbours are never read, so nothing is loaded for them.
    __device__ Row row(float4 q, const float4 *p) const
    {
        Row r;
        r.v[1] = q.x, r.v[2] = q.y, r.v[3] = q.z, r.v[4] = q.w;
        r.v[0] = __shfl_up_sync(FULL, q.w, 1);
        r.v[5] = __shfl_down_sync(FULL, q.x, 1);
        const float *f = reinterpret_cast<const float *>(p);
        if (threadIdx.x == 0 && xin && x4 > 0) r.v[0] = f[-1];
        if (threadIdx.x == CX - 1 && x4 + 1 < nx4) r.v[5] = f[4];
        return r;
    }
};

__device__ __forceinline__ float comp(const float4 &q, int e)
{
    return e == 0 ? q.x : e == 1 ? q.y : e == 2 ? q.z : q.w;
}

// The four outputs of a row: the halo points at x = 0 and x = nx - 1 copy
// their input, the others are f(e) (e: 0..3).
template <class F>
__device__ __forceinline__ float4 outputs(const Col &c, const Row &mid, F f)
{
    float o[4];
#pragma unroll
    for (int e = 0; e < 4; e++) {
        const long long xe = c.x + e;
        o[e] = (xe == 0 || xe == 4 * c.nx4 - 1) ? mid.v[e + 1] : f(e);
    }
    return make_float4(o[0], o[1], o[2], o[3]);
}

// (__launch_bounds__ without a block count: with "1 block" the compiler
// took 72 registers for the 27-point, three blocks an SM: 0.476 against
// 0.440 ms at 64)
template <int P, int CY, int CZ, int AHEAD>
__global__ void __launch_bounds__(CX *CY) k_columns(Grid g, Coef<float> k, const float *__restrict__ in,
                                                   float *__restrict__ out)
{
    Col c;
    c.nx4 = g.nx / 4;
    const long long ldy4 = g.ldy / 4, ldz4 = g.ldz / 4;
    c.x4 = (long long)blockIdx.x * CX + threadIdx.x;
    c.x = 4 * c.x4;
    c.xin = c.x4 < c.nx4;
    for (long long zc = blockIdx.z; g.z0 + zc * CZ < g.z1; zc += gridDim.z)
        for (long long by = blockIdx.y; by * CY < g.ny; by += gridDim.y) {
            const long long y = by * CY + threadIdx.y;
            if (y >= g.ny) continue; // the whole warp (one row)
            const long long zs = g.z0 + zc * CZ, ze = zs + CZ < g.z1 ? zs + CZ : g.z1;
            // the column at plane zs, in and out; stepped a plane a step
            const float4 *cz = reinterpret_cast<const float4 *>(in) + c.x4 + y * ldy4 + zs * ldz4;
            float4 *oz = reinterpret_cast<float4 *>(out) + c.x4 + y * ldy4 + zs * ldz4;
            if (y == 0 || y == g.ny - 1) { // a halo row: copied
                for (long long z = zs; z < ze; z++, cz += ldz4, oz += ldz4)
                    if (c.xin) *oz = c.ld(cz);
                continue;
            }
            if constexpr (P == 7) {
                // registers: planes z - 1, z, z + 1 of the column, the next
                // AHEAD in flight (two planes ahead measured slower: 0.47 ms)
                float4 m = zs > 0 ? c.ld(cz - ldz4) : float4{}, q = c.ld(cz);
                float4 p = zs + 1 < g.nz ? c.ld(cz + ldz4) : float4{};
                float4 a[AHEAD];
#pragma unroll
                for (int i = 0; i < AHEAD - 1; i++)
                    a[i] = zs + 2 + i < g.nz && zs + 1 + i < ze ? c.ld(cz + (2 + i) * ldz4) : float4{};
                for (long long z = zs; z < ze; z++, cz += ldz4, oz += ldz4) {
                    a[AHEAD - 1] =
                        z + 1 + AHEAD < g.nz && z + AHEAD < ze ? c.ld(cz + (1 + AHEAD) * ldz4) : float4{};
                    // the step's body written out here on purpose: the same code through
                    // a shared step function compiled to 0.432 ms against 0.388 (H100, 512^3)
                    float4 o;
                    if (z == 0 || z == g.nz - 1) {
                        o = q;
                    } else {
                        const float4 ym = c.ld(cz - ldy4), yp = c.ld(cz + ldy4);
                        const Row mid = c.row(q, cz);
                        o = outputs(c, mid, [&](int e) {
                            return point<float, 7>(k, [&](int dx, int dy, int dz) {
                                if (dz) return comp(dz < 0 ? m : p, e);
                                if (dy) return comp(dy < 0 ? ym : yp, e);
                                return mid.v[e + 1 + dx];
                            });
                        });
                    }
                    if (c.xin) *oz = o;
                    m = q, q = p, p = a[0];
#pragma unroll
                    for (int i = 0; i < AHEAD - 1; i++) a[i] = a[i + 1];
                }
            } else {
                // The chain of a 27-point output runs plane by plane (dz =
                // -1, 0, 1: the index order), so each plane q, as it
                // arrives, starts the chain of output q + 1, continues output
                // q's and ends output q - 1's, which is stored: three rows of
                // one plane and three partial sums in registers instead of
                // nine rows (111 -> fewer registers, more blocks an SM).
                // Same fma chain, same bits.
                float acc[3][4]; // outputs q - 1, q, q + 1 (rotating)
                float4 prevc = float4{}; // plane q - 1's own row (the halo copies)
                const long long q0 = zs > 0 ? zs - 1 : 0, q1 = ze < g.nz ? ze : g.nz - 1;
                const float4 *pq = cz + (q0 - zs) * ldz4;
                float4 *oq = oz + (q0 - zs) * ldz4;
                float4 ahead = c.ld(pq);
                for (long long q = q0; q <= q1; q++, pq += ldz4, oq += ldz4) {
                    const float4 own = ahead;
                    if (q + 1 <= q1) ahead = c.ld(pq + ldz4);
                    Row R[3];
                    R[0] = c.row(c.ld(pq - ldy4), pq - ldy4);
                    R[1] = c.row(own, pq);
                    R[2] = c.row(c.ld(pq + ldy4), pq + ldy4);
                    // dz = 1 for output q - 1, 0 for q, -1 for q + 1
#pragma unroll
                    for (int e = 0; e < 4; e++) {
                        acc[2][e] = 0.f;
#pragma unroll
                        for (int dz = 1; dz >= -1; dz--)
#pragma unroll
                            for (int dy = -1; dy <= 1; dy++)
#pragma unroll
                                for (int dx = -1; dx <= 1; dx++)
                                    acc[1 - dz][e] = fmat(k.c[(dz + 1) * 9 + (dy + 1) * 3 + dx + 1],
                                                          R[dy + 1].v[e + 1 + dx], acc[1 - dz][e]);
                    }
                    const long long zo = q - 1; // finished
                    if (zo >= zs && zo < ze && zo > 0 && zo < g.nz - 1 && c.xin) {
                        float o[4];
#pragma unroll
                        for (int e = 0; e < 4; e++) {
                            const long long xe = c.x + e;
                            o[e] = (xe == 0 || xe == g.nx - 1) ? comp(prevc, e) : acc[0][e];
                        }
                        oq[-ldz4] = make_float4(o[0], o[1], o[2], o[3]);
                    }
                    if ((q == 0 || q == g.nz - 1) && q >= zs && q < ze && c.xin) *oq = own; // halo plane
#pragma unroll
                    for (int e = 0; e < 4; e++) acc[0][e] = acc[1][e], acc[1][e] = acc[2][e];
                    prevc = own;
                }
            }
        }
}

// ---- two steps a pass (7-point): temporal blocking in the columns form ----
// The block is CY output rows plus one row above and below (warps 0 and
// CY + 1, their first step recomputed by the neighbouring blocks too), each
// warp one row of 128 points walking z. As input plane p
// arrives, every warp computes the first step's plane p for its row (as
// k_columns does) and puts it in a shared ring of three planes; after one
// barrier, the output rows compute the second step's plane p - 1 from the
// first step's planes p - 2, p - 1, p of their own column (registers), of
// the rows above and below (the ring) and of the next lanes (shuffles); the
// warp's two ends compute the one first-step point beyond them from the
// input. Every value is the chain of point<float, 7> over the level below,
// halo points copy it: two passes of k_columns, bit for bit. The grid is
// read once and written once for two steps; the extra rows and the chunks'
// extra planes are re-read mostly from L2.
// Every plane ends in a barrier, so a load that a plane's first step waits
// for stalls the whole block: all of them (the rows above and below, the
// end lanes' seven values) are issued a plane ahead. Measured: 8 steps at
// 512^3 3.66 -> 2.73 ms (H100), from 0.78 to 1.04 of the copy rate.
template <int CY, int CZ>
__global__ void __launch_bounds__(CX *(CY + 2)) k_columns_t2(Grid g, Coef<float> k, const float *__restrict__ in,
                                                            float *__restrict__ out)
{
    constexpr int R = CY + 2;
    __shared__ float4 ring[3][R][CX]; // first-step planes, slot p % 3
    Col c;
    c.nx4 = g.nx / 4;
    const long long ldy4 = g.ldy / 4, ldz4 = g.ldz / 4;
    c.x4 = (long long)blockIdx.x * CX + threadIdx.x;
    c.x = 4 * c.x4;
    c.xin = c.x4 < c.nx4;
    const int w = threadIdx.y, lane = threadIdx.x;
    for (long long zc = blockIdx.z; g.z0 + zc * CZ < g.z1; zc += gridDim.z)
        for (long long by = blockIdx.y; by * CY < g.ny; by += gridDim.y) { // uniform in the block
            const long long y = by * CY - 1 + w;
            const bool yin = y >= 0 && y < g.ny, hrow = y == 0 || y == g.ny - 1;
            const bool orow = w >= 1 && w <= CY && yin; // a row this block writes
            const long long zs = g.z0 + zc * CZ, ze = zs + CZ < g.z1 ? zs + CZ : g.z1;
            const long long p0 = zs > 0 ? zs - 1 : 0, p1 = ze < g.nz ? ze : g.nz - 1;
            const long long yy = yin ? y : 0; // (pointers of rows outside the grid: never read)
            const float4 *col = reinterpret_cast<const float4 *>(in) + c.x4 + yy * ldy4;
            float4 *ocol = reinterpret_cast<float4 *>(out) + c.x4 + yy * ldy4;
            auto inp = [&](long long p) { return yin && p >= 0 && p < g.nz ? c.ld(col + p * ldz4) : float4{}; };
            // Everything a plane's first step reads beyond the warp's own
            // columns is loaded a plane ahead, so no load waits inside the
            // step between two barriers: the input rows y - 1 and y + 1
            // (ym, yp), and for the warp's two end lanes the column beyond
            // them (xx = x - 1 or x + 4, the one first-step point they
            // compute there): its planes p - 1, p, p + 1 (ec, a window), its
            // rows y -+ 1 (eym, eyp) and the column past it (exo, x - 2 or
            // x + 5). ec1 is also the row's input neighbour the first step
            // takes at the warp's end (a shuffle elsewhere).
            const bool el = yin && lane == 0 && c.xin && c.x4 > 0, er = yin && lane == CX - 1 && c.x4 + 1 < c.nx4;
            const long long xx = el ? c.x - 1 : c.x + 4, xo = el ? c.x - 2 : c.x + 5;
            const float *fx = in + xx + yy * g.ldy, *fo = in + xo + yy * g.ldy; // (read only where el || er)
            const bool inner = yin && !hrow; // rows with y -+ 1 in the grid and a computed first step
            auto mid_plane = [&](long long q) { return q > 0 && q < g.nz - 1; };
            auto ld1 = [](const float *f) {
                float v;
                asm volatile("ld.global.nc.f32 %0, [%1];" : "=f"(v) : "l"(f));
                return v;
            };
            float4 ym = float4{}, yp = float4{};
            float ec0 = 0.f, ec1 = 0.f, ec2 = 0.f, exo = 0.f, eym = 0.f, eyp = 0.f;
            auto fetch = [&](long long q, float4 &ymq, float4 &ypq, float &exoq, float &eymq, float &eypq) {
                if (inner && mid_plane(q)) {
                    ymq = c.ld(col + q * ldz4 - ldy4);
                    ypq = c.ld(col + q * ldz4 + ldy4);
                    if (el || er) {
                        exoq = ld1(fo + q * g.ldz);
                        eymq = ld1(fx + q * g.ldz - g.ldy);
                        eypq = ld1(fx + q * g.ldz + g.ldy);
                    }
                }
            };
            if (el || er) {
                if (p0 - 1 >= 0) ec0 = ld1(fx + (p0 - 1) * g.ldz);
                ec1 = ld1(fx + p0 * g.ldz);
                if (p0 + 1 < g.nz) ec2 = ld1(fx + (p0 + 1) * g.ldz);
            }
            fetch(p0, ym, yp, exo, eym, eyp);
            float4 am = inp(p0 - 1), a0 = inp(p0), ap = inp(p0 + 1); // input planes p - 1, p, p + 1
            float4 s1mm = float4{}, s1m = float4{}; // first step, planes p - 2, p - 1
            float exlm = 0.f, exrm = 0.f;            // its points beyond the warp, plane p - 1
            for (long long p = p0; p <= p1; p++) {
                const float4 ahead = p + 1 <= p1 ? inp(p + 2) : float4{};
                // the next plane's reads beyond the warp's columns
                float4 ymn = float4{}, ypn = float4{};
                float ecn = 0.f, exon = 0.f, eymn = 0.f, eypn = 0.f;
                if (p + 1 <= p1) {
                    fetch(p + 1, ymn, ypn, exon, eymn, eypn);
                    if ((el || er) && p + 2 < g.nz) ecn = ld1(fx + (p + 2) * g.ldz);
                }
                // the first step, plane p, this row
                float4 s1c = a0;
                float ex = 0.f; // the end lane's point beyond the warp
                if (inner && mid_plane(p)) {
                    Row mid;
                    mid.v[1] = a0.x, mid.v[2] = a0.y, mid.v[3] = a0.z, mid.v[4] = a0.w;
                    mid.v[0] = __shfl_up_sync(FULL, a0.w, 1);
                    mid.v[5] = __shfl_down_sync(FULL, a0.x, 1);
                    if (el) mid.v[0] = ec1;
                    if (er) mid.v[5] = ec1;
                    s1c = outputs(c, mid, [&](int e) {
                        return point<float, 7>(k, [&](int dx, int dy, int dz) {
                            if (dz) return comp(dz < 0 ? am : ap, e);
                            if (dy) return comp(dy < 0 ? ym : yp, e);
                            return mid.v[e + 1 + dx];
                        });
                    });
                }
                if (el || er) { // (xx is never a halo column: 3 <= xx <= nx - 4)
                    ex = ec1;
                    if (inner && mid_plane(p)) {
                        const float near = el ? a0.x : a0.w; // x or x + 3: this lane's own
                        ex = point<float, 7>(k, [&](int dx, int dy, int dz) {
                            if (dz) return dz < 0 ? ec0 : ec2;
                            if (dy) return dy < 0 ? eym : eyp;
                            if (dx == 0) return ec1;
                            return (dx < 0) == el ? exo : near;
                        });
                    }
                }
                const float exl = el ? ex : 0.f, exr = er ? ex : 0.f;
                ring[p % 3][w][lane] = s1c;
                __syncthreads();
                // the second step, plane z = p - 1, the output rows
                const long long z = p - 1;
                if (orow && z >= zs && z < ze) {
                    float4 o = am; // halo rows and planes: the input (= the first step there)
                    if (!hrow && z != 0 && z != g.nz - 1) {
                        const float4 ym = ring[z % 3][w - 1][lane], yp = ring[z % 3][w + 1][lane];
                        Row mid;
                        mid.v[1] = s1m.x, mid.v[2] = s1m.y, mid.v[3] = s1m.z, mid.v[4] = s1m.w;
                        mid.v[0] = __shfl_up_sync(FULL, s1m.w, 1);
                        mid.v[5] = __shfl_down_sync(FULL, s1m.x, 1);
                        if (lane == 0) mid.v[0] = exlm;
                        if (lane == CX - 1) mid.v[5] = exrm;
                        o = outputs(c, mid, [&](int e) {
                            return point<float, 7>(k, [&](int dx, int dy, int dz) {
                                if (dz) return comp(dz < 0 ? s1mm : s1c, e);
                                if (dy) return comp(dy < 0 ? ym : yp, e);
                                return mid.v[e + 1 + dx];
                            });
                        });
                    }
                    if (c.xin) ocol[z * ldz4] = o;
                }
                if (orow && p == g.nz - 1 && p >= zs && p < ze && c.xin) ocol[p * ldz4] = a0; // last plane: halo
                s1mm = s1m, s1m = s1c, exlm = exl, exrm = exr;
                am = a0, a0 = ap, ap = ahead;
                ym = ymn, yp = ypn, exo = exon, eym = eymn, eyp = eypn;
                ec0 = ec1, ec1 = ec2, ec2 = ecn;
            }
            __syncthreads(); // the ring is the next tile's
        }
}

unsigned gdim(long long n, long long cap) { return (unsigned)(n < cap ? n : cap); }

template <int P>
cupat_status launch(cupat_ctx *ctx, const s3_req *r, cudaStream_t st, const void *in, void *out)
{
    const Grid g = make_grid(r);
    auto cd = [](long long n, long long d) { return (n + d - 1) / d; };
    const dim3 grid(gdim(cd(g.nx / 4, CX), 0x7fffffff), gdim(cd(g.ny, CY), 65535),
                    gdim(cd(g.z1 - g.z0, CZ), 65535));
    k_columns<P, CY, CZ, AHEAD><<<grid, dim3(CX, CY), 0, st>>>(g, make_coef<float>(r), static_cast<const float *>(in),
                                                static_cast<float *>(out));
    return cupat__launched(ctx, "stencil3d k_columns");
}

} // namespace

template <int TY, int TZ>
static cupat_status launch_t2(cupat_ctx *ctx, const s3_req *r, cudaStream_t stream, const void *in, void *out)
{
    const Grid g = make_grid(r);
    auto cd = [](long long n, long long d) { return (n + d - 1) / d; };
    const dim3 grid(gdim(cd(g.nx / 4, CX), 0x7fffffff), gdim(cd(g.ny, TY), 65535),
                    gdim(cd(g.z1 - g.z0, TZ), 65535));
    k_columns_t2<TY, TZ><<<grid, dim3(CX, TY + 2), 0, stream>>>(
        g, make_coef<float>(r), static_cast<const float *>(in), static_cast<float *>(out));
    return cupat__launched(ctx, "stencil3d k_columns_t2");
}
// 18 output rows a block (640 threads, one block an SM, 96 registers): the
// rows a barrier covers set the pace, and with the neighbours' reads loaded
// a plane ahead the registers decide. H100, 512^3, 8 steps (2026-11-25):
// 14 rows 2.89 ms, 16 2.86, 18 2.73, 22 2.80 (80 registers, 12 bytes
// spilled), 26 3.14 (72, spills), 30 4.58 (64, spills); 18 rows with chunks
// of 128 planes 2.94; single steps of columns 3.13, the copy 2.83.
cupat_status cupat__stencil3d_columns_t2(cupat_ctx *ctx, const s3_req *r, cudaStream_t stream,
                                         const void *in, void *out)
{
    return launch_t2<18, 64>(ctx, r, stream, in, out);
}

int cupat__stencil3d_columns_fits(const s3_req *r, const void *in, const void *out)
{
    return !r->f64 && r->nx % 4 == 0 && r->ldy % 4 == 0 && r->ldz % 4 == 0 &&
           (uintptr_t)in % 16 == 0 && (uintptr_t)out % 16 == 0;
}

cupat_status cupat__stencil3d_columns(cupat_ctx *ctx, const s3_req *r, cudaStream_t stream,
                                      const void *in, void *out)
{
    return r->points == 7 ? launch<7>(ctx, r, stream, in, out) : launch<27>(ctx, r, stream, in, out);
}
