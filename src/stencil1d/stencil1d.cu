// SPDX-License-Identifier: Apache-2.0
/* stencil1d.cu — the 1D stencil ladder (PCCP 5.5):
 * out[i] = sum_j c[j] * in[i + j - r], j = 0..2r, zero outside [0, n).
 * Every rung evaluates acc = fmaf(c[j], x_j, acc) from acc = 0 in the order
 * j = 0..2r, the CPU's order, so all results are bitwise equal. */
#include "stencil1d_internal.h"

#include <stdint.h>

#define MAXR CUPAT_STENCIL1D_MAX_RADIUS
#define MAXC (2 * MAXR + 1)

namespace {

/* Coefficients by value: kernel parameters live in the constant bank, so this
 * is constant memory with the lifetime of one launch. */
struct Coeffs {
    float c[MAXC];
};

constexpr int BLOCK = 256; /* threads a block, outputs a tile for rungs 1-3 */

/* Zero-padded read of in[k], k signed. */
__device__ __forceinline__ float at(const float *in, long long k, size_t n)
{
    return (k >= 0 && (size_t)k < n) ? in[k] : 0.0f;
}

/* Rung 0: each thread reads its 2r+1 inputs and the coefficients straight
 * from global memory; neighbours re-read each other's inputs (through L1). */
__global__ void k_gmem(const float *in, float *out, size_t n, int r, const float *coef)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        float acc = 0.0f;
        for (int j = 0; j <= 2 * r; j++) acc = fmaf(coef[j], at(in, (long long)i + j - r, n), acc);
        out[i] = acc;
    }
}

/* Rungs 1-3: a tile of BLOCK outputs and its 2r halo in shared memory
 * (dynamic: BLOCK + 2r floats), each input read from global memory once a
 * tile. COEF picks where the coefficients come from:
 *   0 global memory (plain pointer), 1 __constant__, 2 read-only cache. */
__constant__ float c_coef[MAXC];

template <int COEF>
__global__ void __launch_bounds__(BLOCK)
    k_smem(const float *__restrict__ in, float *__restrict__ out, size_t n, int r,
           const float *gcoef, const float *__restrict__ rocoef)
{
    extern __shared__ float s[];
    for (size_t base = (size_t)blockIdx.x * BLOCK; base < n; base += (size_t)gridDim.x * BLOCK) {
        long long i = (long long)(base + threadIdx.x);
        s[threadIdx.x + r] = at(in, i, n);
        if ((int)threadIdx.x < r) { /* halo: r on the left, r on the right */
            s[threadIdx.x] = at(in, (long long)base - r + threadIdx.x, n);
            s[BLOCK + r + threadIdx.x] = at(in, (long long)base + BLOCK + threadIdx.x, n);
        }
        __syncthreads();
        float acc = 0.0f;
        for (int j = 0; j <= 2 * r; j++) {
            float c = COEF == 0 ? gcoef[j] : COEF == 1 ? c_coef[j] : __ldg(&rocoef[j]);
            acc = fmaf(c, s[threadIdx.x + j], acc);
        }
        if ((size_t)i < n) out[i] = acc;
        __syncthreads(); /* s is refilled by the next tile */
    }
}

/* Rung 4: 8 outputs a thread, 2048 a block. The tile is loaded with 16-byte
 * loads into shared memory at a 16-byte aligned offset (8 floats of room for
 * the left halo), each thread reads its 8 + 2R window as six float4, and
 * writes two float4. R is a template so the window and the FMA chain unroll
 * into registers; the coefficients are kernel parameters (constant bank),
 * used as FFMA operands directly. VEC = 0 (unaligned in or out) keeps the
 * structure with 4-byte global accesses. */
constexpr int VT = 256, VI = 8, VTILE = VT * VI;

template <int R, bool VEC>
__global__ void __launch_bounds__(VT)
    k_vec(const float *__restrict__ in, float *__restrict__ out, size_t n, Coeffs cf)
{
    __shared__ __align__(16) float s[8 + VTILE + 8];
    for (size_t base = (size_t)blockIdx.x * VTILE; base < n; base += (size_t)gridDim.x * VTILE) {
        const bool full = base + VTILE <= n;
        if (full && VEC) {
            const float4 *src = reinterpret_cast<const float4 *>(in + base);
            float4 a = __ldg(src + threadIdx.x), b = __ldg(src + threadIdx.x + VT);
            reinterpret_cast<float4 *>(s + 8)[threadIdx.x] = a;
            reinterpret_cast<float4 *>(s + 8)[threadIdx.x + VT] = b;
        } else {
            for (int k = threadIdx.x; k < VTILE; k += VT) s[8 + k] = at(in, (long long)(base + k), n);
        }
        if (threadIdx.x < 8) { /* halos: 8 left, 8 right (only R of each are used) */
            s[threadIdx.x] = at(in, (long long)base - 8 + threadIdx.x, n);
            s[8 + VTILE + threadIdx.x] = at(in, (long long)(base + VTILE + threadIdx.x), n);
        }
        __syncthreads();
        /* window w[k] = in[base + 8 t - 8 + k], k = 0..23 */
        float w[24];
        const float4 *s4 = reinterpret_cast<const float4 *>(s) + 2 * threadIdx.x;
#pragma unroll
        for (int q = 0; q < 6; q++) {
            float4 v = s4[q];
            w[4 * q] = v.x, w[4 * q + 1] = v.y, w[4 * q + 2] = v.z, w[4 * q + 3] = v.w;
        }
        float o[VI];
#pragma unroll
        for (int m = 0; m < VI; m++) { /* output base + 8 t + m needs w[8 + m - R + j] */
            float acc = 0.0f;
#pragma unroll
            for (int j = 0; j <= 2 * R; j++) acc = fmaf(cf.c[j], w[8 + m - R + j], acc);
            o[m] = acc;
        }
        size_t i0 = base + (size_t)VI * threadIdx.x;
        if (full && VEC) {
            float4 *dst = reinterpret_cast<float4 *>(out + i0);
            __stwb(dst, make_float4(o[0], o[1], o[2], o[3]));
            __stwb(dst + 1, make_float4(o[4], o[5], o[6], o[7]));
        } else {
#pragma unroll
            for (int m = 0; m < VI; m++)
                if (i0 + m < n) out[i0 + m] = o[m];
        }
        __syncthreads();
    }
}

/* Writes the by-value coefficients to device memory, stream-ordered (no
 * pageable host copy, no host synchronization). */
__global__ void k_put_coeffs(Coeffs cf, float *dst, int count)
{
    if ((int)threadIdx.x < count) dst[threadIdx.x] = cf.c[threadIdx.x];
}

unsigned blocks_for(size_t items, size_t per_block, size_t cap)
{
    size_t b = (items + per_block - 1) / per_block;
    return (unsigned)(b < cap ? b : cap);
}

template <bool VEC>
void launch_vec(int r, unsigned grid, cudaStream_t s, const float *in, float *out, size_t n,
                const Coeffs &cf)
{
    switch (r) {
#define CASE(R) \
    case R: k_vec<R, VEC><<<grid, VT, 0, s>>>(in, out, n, cf); break;
        CASE(0) CASE(1) CASE(2) CASE(3) CASE(4) CASE(5) CASE(6) CASE(7) CASE(8)
#undef CASE
    }
}

} /* namespace */

extern "C" cupat_status cupat__stencil1d_cuda(cupat_ctx *ctx, int rung, size_t n, int radius,
                                              const float *coeffs, const float *in, float *out)
{
    Coeffs cf = {};
    const int nc = 2 * radius + 1;
    for (int j = 0; j < nc; j++) cf.c[j] = coeffs[j];
    cudaStream_t s = ctx->stream;

    if (rung == ST_VEC) {
        const bool vec = (uintptr_t)in % 16 == 0 && (uintptr_t)out % 16 == 0;
        unsigned grid = blocks_for(n, VTILE, (size_t)1 << 30);
        if (vec) launch_vec<true>(radius, grid, s, in, out, n, cf);
        else launch_vec<false>(radius, grid, s, in, out, n, cf);
        return cupat__launched(ctx, "stencil1d k_vec");
    }

    /* Rungs 0-3 read the coefficients from device memory: put them in scratch. */
    void *scratch;
    CUPAT_TRY(cupat__scratch(ctx, MAXC * sizeof(float), &scratch));
    float *dcoef = (float *)scratch;
    k_put_coeffs<<<1, 32, 0, s>>>(cf, dcoef, nc);
    CUPAT_TRY(cupat__launched(ctx, "stencil1d k_put_coeffs"));
    /* Enough blocks to fill the device; each loops over tiles. */
    const unsigned grid = blocks_for(n, BLOCK, (size_t)ctx->sm_count * 16);
    const size_t smem = (BLOCK + 2 * (size_t)radius) * sizeof(float);
    switch (rung) {
    case ST_GMEM:
        k_gmem<<<grid, BLOCK, 0, s>>>(in, out, n, radius, dcoef);
        return cupat__launched(ctx, "stencil1d k_gmem");
    case ST_SMEM:
        k_smem<0><<<grid, BLOCK, smem, s>>>(in, out, n, radius, dcoef, NULL);
        return cupat__launched(ctx, "stencil1d k_smem<global coefficients>");
    case ST_CONST:
        /* The symbol is one per device: concurrent streams with different
         * coefficients would race on it (the rung "vec" passes them by value). */
        CUPAT_CUDA_TRY(ctx, cudaMemcpyToSymbolAsync(c_coef, dcoef, nc * sizeof(float), 0,
                                                    cudaMemcpyDeviceToDevice, s));
        k_smem<1><<<grid, BLOCK, smem, s>>>(in, out, n, radius, NULL, NULL);
        return cupat__launched(ctx, "stencil1d k_smem<__constant__ coefficients>");
    case ST_LDG:
        k_smem<2><<<grid, BLOCK, smem, s>>>(in, out, n, radius, NULL, dcoef);
        return cupat__launched(ctx, "stencil1d k_smem<read-only cache coefficients>");
    }
    return cupat__fail(ctx, CUPAT_ERROR_INTERNAL, "cupat_stencil1d: no CUDA kernel for rung %d",
                       rung);
}
