// SPDX-License-Identifier: Apache-2.0
// conv2d_dev.cuh — what the conv2d kernels share: the image as the kernels
// see it (rows of w * C samples; a tap of filter column j is C samples
// away), border-mapped sample reads, the output rule, tile walking, and the
// launch helpers of every conv2d .cu file.
#pragma once

#include "conv2d/conv2d_internal.h"

#include <cuda_runtime.h>
#include <stdint.h>

namespace cupat_conv {

constexpr int MAXK = CUPAT_CONV2D_MAX_K;

struct Img {
    const void *in;
    void *out;
    long long w, h, W; // pixels a row, rows, samples a row (w * C)
    long long ip, op;  // pitches in samples
    int C, kw, kh, rx, ry, border, mode;
    int es; // bytes a sample: 4 (f32) or 1 (u8)
};

inline Img make_img(const conv2d_req *r)
{
    Img g;
    g.in = r->in, g.out = r->out;
    g.w = (long long)r->w, g.h = (long long)r->h, g.W = (long long)(r->w * (size_t)r->C);
    g.ip = (long long)r->ip, g.op = (long long)r->op;
    g.C = r->C, g.kw = r->kw, g.kh = r->kh, g.rx = r->kw / 2, g.ry = r->kh / 2;
    g.border = (int)r->border, g.mode = r->mode;
    g.es = r->type == CUPAT_PIXEL_F32 ? 4 : 1;
    return g;
}

__device__ __forceinline__ long long floor_div(long long a, int b)
{
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

// Sample s (any integer) of row y (any integer) under the border rule, as a
// float (8-bit samples convert exactly).
template <class T>
__device__ __forceinline__ float at(const Img &g, long long y, long long s)
{
    const T *in = static_cast<const T *>(g.in);
    if (y >= 0 && y < g.h && s >= 0 && s < g.W) return (float)in[y * g.ip + s];
    long long x = floor_div(s, g.C);
    int c = (int)(s - x * g.C);
    long long xm = conv_map(x, g.w, g.border), ym = conv_map(y, g.h, g.border);
    if (xm < 0 || ym < 0) return 0.0f;
    return (float)in[ym * g.ip + xm * g.C + c];
}

// The output rule for sample s of row y (both inside the image).
template <class T>
__device__ __forceinline__ T out_value(const Img &g, long long y, long long s, float acc)
{
    if constexpr (sizeof(T) == 4) {
        return acc;
    } else {
        if (g.mode == CONV_OUT_MEAN) {
            long long n = conv_inside(s / g.C, g.rx, g.w) * conv_inside(y, g.ry, g.h);
            return (T)((long long)acc / n);
        }
        return conv_u8(acc);
    }
}
template <class T>
__device__ __forceinline__ void put(const Img &g, long long y, long long s, float acc)
{
    static_cast<T *>(g.out)[y * g.op + s] = out_value<T>(g, y, s, acc);
}

// Tiles of tw samples x th rows, numbered row-major, walked by the blocks of
// a 1D grid (no gridDim.y limit on tall images).
struct Tiles {
    long long nx, n;
};
inline Tiles tiles(long long W, long long h, long long tw, long long th)
{
    Tiles t;
    t.nx = (W + tw - 1) / tw;
    t.n = t.nx * ((h + th - 1) / th);
    return t;
}
inline unsigned grid_for(long long n, long long cap = 0x7fffffffLL)
{
    return (unsigned)(n < cap ? n : cap);
}

// Copies taps to device memory without a host synchronization: by value
// into one kernel (the parameter space), written out in stream order.
struct Taps {
    float k[MAXK * MAXK];
};

} // namespace cupat_conv

// Launch helpers shared by the conv2d .cu files (conv2d_book.cu defines them).
// put_taps: the n host taps into scratch (256-byte aligned), followed by
// `extra` bytes of scratch for the caller (*extra_ptr, may be NULL).
cupat_status cupat__conv2d_put_taps(cupat_ctx *ctx, const float *host, int n, size_t extra,
                                    float **dtaps, void **extra_ptr);
inline cupat_status cupat__conv2d_smem(cupat_ctx *ctx, const void *kernel, size_t need,
                                      size_t most)
{
    return cupat__opt_in_smem(ctx, "cupat_conv2d", kernel, need, most);
}
cupat_status cupat__conv2d_regtile_f32(cupat_ctx *ctx, const cupat_conv::Img &g,
                                       const float *dtaps, bool vec);
cupat_status cupat__conv2d_regtile_u8(cupat_ctx *ctx, const cupat_conv::Img &g,
                                      const float *dtaps, bool vec);
cupat_status cupat__conv2d_async(cupat_ctx *ctx, const cupat_conv::Img &g,
                                 const float *dtaps);
// The columns rung (conv2d_columns.cu, _u8.cu): calls cupat__conv2d_columns_fits takes.
cupat_status cupat__conv2d_columns_f32(cupat_ctx *ctx, const conv2d_req *r);
cupat_status cupat__conv2d_columns_u8(cupat_ctx *ctx, const conv2d_req *r);
