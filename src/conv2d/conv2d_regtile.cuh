// SPDX-License-Identifier: Apache-2.0
// conv2d_regtile.cuh — the regtile and regtile_vec rungs: register tiling
// along rows. A block's tile is 128 pixels x 8 rows of every channel; the
// input tile is split into one shared-memory plane a channel (so a thread's
// window is contiguous whatever C is). Each thread computes 8 consecutive
// outputs of one row: for each filter row it loads a window of 8 + 2H
// samples into registers with float4 shared loads and does 8 (2R + 1) FMAs
// from it, each sample reused by up to 2R + 1 outputs. R (= kw / 2) is a
// template, so the window and the tap loop unroll; kh stays a loop. Taps are
// copied to shared memory once a block (a broadcast read a tap).
// The output chain per sample is the documented one (i outer, j inner).
// vec: 16-byte global loads of the tile's aligned middle, and for C = 1
// 16-byte (f32) / 8-byte (u8) stores.
// Instances: conv2d_regtile_f32.cu and conv2d_regtile_u8.cu (R = 0..15).
#pragma once

#include "conv2d/conv2d_dev.cuh"

namespace cupat_conv {

constexpr int RT_PX = 128, RT_TY = 8, RT_OUT = 8; // tile pixels, rows; outputs a thread
constexpr int RT_THREADS = (RT_PX / RT_OUT) * RT_TY;
constexpr int RT_TAPS = (MAXK * MAXK + 3) & ~3; // floats of taps before the tile (16-byte aligned)

constexpr int rt_halo(int R) { return R <= 4 ? 4 : R <= 8 ? 8 : R <= 12 ? 12 : 16; }
constexpr int rt_row(int R) { return RT_PX + 2 * rt_halo(R); }

inline size_t rt_smem(int R, int C, int ry)
{
    return ((size_t)C * (RT_TY + 2 * ry) * rt_row(R) + RT_TAPS) * sizeof(float);
}

template <class T>
__device__ __forceinline__ void rt_scatter(float *sm, int plane, int RW, int C, int r,
                                           long long q, float v)
{
    int col = (int)(q / C), c = (int)(q - (long long)col * C);
    sm[c * plane + r * RW + col] = v;
}

template <class T, int R>
__global__ void __launch_bounds__(RT_THREADS) k_regtile(Img g, const float *__restrict__ dk,
                                                        int vec)
{
    constexpr int H = rt_halo(R), RW = rt_row(R), WIN = RT_OUT + 2 * H;
    constexpr int V = 16 / sizeof(T); // samples a 16-byte load
    extern __shared__ __align__(16) float sm[];
    float *taps = sm;                // kh * kw
    float *tile = sm + RT_TAPS;      // C planes of rows x RW
    const int rows = RT_TY + 2 * g.ry;
    const int plane = rows * RW;
    const int tid = threadIdx.y * blockDim.x + threadIdx.x, nt = RT_THREADS;
    for (int i = tid; i < g.kw * g.kh; i += nt) taps[i] = dk[i];
    const T *in = static_cast<const T *>(g.in);
    const long long ntx = (g.w + RT_PX - 1) / RT_PX, n = ntx * ((g.h + RT_TY - 1) / RT_TY);
    const int ns = RW * g.C; // samples a tile row
    for (long long b = blockIdx.x; b < n; b += gridDim.x) {
        const long long ty = b / ntx, tx = b - ty * ntx;
        const long long px0 = tx * RT_PX, y0 = ty * RT_TY;
        const long long slo = (px0 - H) * g.C; // first sample of a tile row
        long long a = slo, e = slo;            // [a, e): the 16-byte loads
        if (vec) {
            long long lo = slo > 0 ? slo : 0, hi = slo + ns < g.W ? slo + ns : g.W;
            a = (lo + V - 1) / V * V, e = hi / V * V;
            if (e <= a) a = e = slo;
        }
        const int nv = (int)((e - a) / V), nsc = ns - (int)(e - a), head = (int)(a - slo);
        __syncthreads(); // the previous tile is consumed
        for (int q = tid; q < rows * nv; q += nt) {
            int r = q / nv, u = q - r * nv;
            long long ym = conv_map(y0 - g.ry + r, g.h, g.border);
            long long s = a + (long long)u * V;
            if (ym < 0) {
                for (int k = 0; k < V; k++) rt_scatter<T>(tile, plane, RW, g.C, r, s - slo + k, 0.0f);
                continue;
            }
            uint4 raw = __ldg(reinterpret_cast<const uint4 *>(in + ym * g.ip + s));
            const T *v = reinterpret_cast<const T *>(&raw);
#pragma unroll
            for (int k = 0; k < V; k++) rt_scatter<T>(tile, plane, RW, g.C, r, s - slo + k, (float)v[k]);
        }
        for (int q = tid; q < rows * nsc; q += nt) {
            int r = q / nsc, u = q - r * nsc;
            long long s = u < head ? slo + u : e + (u - head);
            rt_scatter<T>(tile, plane, RW, g.C, r, s - slo, at<T>(g, y0 - g.ry + r, s));
        }
        __syncthreads();
        const long long oy = y0 + threadIdx.y, ox = px0 + RT_OUT * threadIdx.x;
        if (oy >= g.h || ox >= g.w) continue;
        for (int c = 0; c < g.C; c++) {
            float acc[RT_OUT];
#pragma unroll
            for (int m = 0; m < RT_OUT; m++) acc[m] = 0.0f;
            const float *base = tile + c * plane + threadIdx.y * RW + RT_OUT * threadIdx.x;
            for (int i = 0; i < g.kh; i++) {
                const float4 *src = reinterpret_cast<const float4 *>(base + i * RW);
                float w[WIN];
#pragma unroll
                for (int q = 0; q < WIN / 4; q++) {
                    float4 v4 = src[q];
                    w[4 * q] = v4.x, w[4 * q + 1] = v4.y, w[4 * q + 2] = v4.z, w[4 * q + 3] = v4.w;
                }
                const float *ki = taps + i * (2 * R + 1);
#pragma unroll
                for (int j = 0; j <= 2 * R; j++) {
                    const float k = ki[j];
#pragma unroll
                    for (int m = 0; m < RT_OUT; m++) acc[m] = fmaf(k, w[H - R + m + j], acc[m]);
                }
            }
            T *o = static_cast<T *>(g.out) + oy * g.op;
            if (vec && g.C == 1 && ox + RT_OUT <= g.w) {
                T v[RT_OUT];
#pragma unroll
                for (int m = 0; m < RT_OUT; m++) v[m] = out_value<T>(g, oy, ox + m, acc[m]);
                if constexpr (sizeof(T) == 4) {
                    reinterpret_cast<float4 *>(o + ox)[0] = make_float4(v[0], v[1], v[2], v[3]);
                    reinterpret_cast<float4 *>(o + ox)[1] = make_float4(v[4], v[5], v[6], v[7]);
                } else {
                    uint2 p;
                    p.x = v[0] | v[1] << 8 | v[2] << 16 | (unsigned)v[3] << 24;
                    p.y = v[4] | v[5] << 8 | v[6] << 16 | (unsigned)v[7] << 24;
                    *reinterpret_cast<uint2 *>(o + ox) = p;
                }
            } else {
#pragma unroll
                for (int m = 0; m < RT_OUT; m++)
                    if (ox + m < g.w) put<T>(g, oy, (ox + m) * g.C + c, acc[m]);
            }
        }
    }
}

template <class T, int R>
cupat_status rt_launch_one(cupat_ctx *ctx, const Img &g, const float *dk, bool vec)
{
    const size_t need = rt_smem(R, g.C, g.ry), most = rt_smem(R, 4, MAXK / 2);
    CUPAT_TRY(cupat__conv2d_smem(ctx, (const void *)k_regtile<T, R>, need, most));
    const long long n = ((g.w + RT_PX - 1) / RT_PX) * ((g.h + RT_TY - 1) / RT_TY);
    k_regtile<T, R><<<grid_for(n), dim3(RT_PX / RT_OUT, RT_TY), need, ctx->stream>>>(g, dk, vec);
    return cupat__launched(ctx, "conv2d k_regtile");
}

template <class T>
cupat_status rt_launch(cupat_ctx *ctx, const Img &g, const float *dk, bool vec)
{
    switch (g.rx) {
#define RT_CASE(R) \
    case R: return rt_launch_one<T, R>(ctx, g, dk, vec);
        RT_CASE(0) RT_CASE(1) RT_CASE(2) RT_CASE(3) RT_CASE(4) RT_CASE(5) RT_CASE(6) RT_CASE(7)
        RT_CASE(8) RT_CASE(9) RT_CASE(10) RT_CASE(11) RT_CASE(12) RT_CASE(13) RT_CASE(14) RT_CASE(15)
#undef RT_CASE
    }
    return cupat__fail(ctx, CUPAT_ERROR_INTERNAL, "cupat_conv2d: regtile has no kw = %d", g.kw);
}

} // namespace cupat_conv
