// SPDX-License-Identifier: Apache-2.0
// conv2d_book.cu — the PMPP chapter 7 rungs of the conv2d ladder (basic,
// const, tiled_in, tiled_out, cached) and the dispatcher of every CUDA rung.
// Every rung computes each output as the one documented chain
//   acc = fmaf(k[i * kw + j], in(x + j - rx, y + i - ry), acc), i outer, j inner,
// so all of them equal the CPU reference bit for bit. An image row is w * C
// samples; filter column j of channel c is C samples from column j - 1.
#include "conv2d/conv2d_dev.cuh"

using namespace cupat_conv;

namespace {

// ------------------------------------------------------------- basic --
// PMPP 7.2: one thread an output sample; the filter and every input from
// global memory (neighbours re-read each other's inputs through L1).
// 7.3 (COEF_CONST): the filter in __constant__ memory: every thread of a
// warp reads the same tap at once, one broadcast from the constant cache.
__constant__ float c_taps[MAXK * MAXK];

constexpr int BX = 32, BY = 16; // block / output tile of the tiled rungs

template <class T, bool CONST>
__global__ void __launch_bounds__(BX *BY) k_basic(Img g, const float *__restrict__ kg)
{
    const Tiles t = {(g.W + BX - 1) / BX, ((g.W + BX - 1) / BX) * ((g.h + BY - 1) / BY)};
    for (long long b = blockIdx.x; b < t.n; b += gridDim.x) {
        long long ty = b / t.nx, tx = b - ty * t.nx;
        long long s = tx * BX + threadIdx.x, y = ty * BY + threadIdx.y;
        if (s >= g.W || y >= g.h) continue;
        float acc = 0.0f;
        for (int i = 0; i < g.kh; i++)
            for (int j = 0; j < g.kw; j++) {
                float k = CONST ? c_taps[i * g.kw + j] : kg[i * g.kw + j];
                acc = fmaf(k, at<T>(g, y + i - g.ry, s + (long long)(j - g.rx) * g.C), acc);
            }
        put<T>(g, y, s, acc);
    }
}

// ----------------------------------------------------------- tiled_in --
// PMPP 7.4, first form: the block is the input tile, 32 x 32 samples; every
// thread loads one input (halo included), then only the threads of the
// (32 - 2 rx C) x (32 - 2 ry) output tile compute. The wider the filter, the
// more threads idle after the load: the lesson of the rung.
constexpr int IT = 32;

template <class T>
__global__ void __launch_bounds__(IT *IT) k_tiled_in(Img g)
{
    __shared__ float tile[IT][IT + 1];
    const int hx = g.rx * g.C, ox = IT - 2 * hx, oy = IT - 2 * g.ry;
    const Tiles t = {(g.W + ox - 1) / ox, ((g.W + ox - 1) / ox) * ((g.h + oy - 1) / oy)};
    for (long long b = blockIdx.x; b < t.n; b += gridDim.x) {
        long long ty = b / t.nx, tx = b - ty * t.nx;
        long long s = tx * ox - hx + threadIdx.x, y = ty * oy - g.ry + threadIdx.y;
        __syncthreads(); // the previous tile is consumed
        tile[threadIdx.y][threadIdx.x] = at<T>(g, y, s);
        __syncthreads();
        int cx = threadIdx.x - hx, cy = threadIdx.y - g.ry;
        if (cx < 0 || cx >= ox || cy < 0 || cy >= oy || s >= g.W || y >= g.h) continue;
        float acc = 0.0f;
        for (int i = 0; i < g.kh; i++)
            for (int j = 0; j < g.kw; j++)
                acc = fmaf(c_taps[i * g.kw + j], tile[cy + i][cx + j * g.C], acc);
        put<T>(g, y, s, acc);
    }
}

// ---------------------------------------------------------- tiled_out --
// PMPP 7.4, second form: the block is the 32 x 16 output tile; its threads
// loop to load the (16 + 2 ry) x (32 + 2 rx C) input tile into dynamic
// shared memory, then all of them compute.
template <class T>
__global__ void __launch_bounds__(BX *BY) k_tiled_out(Img g)
{
    extern __shared__ float tile[];
    const int hx = g.rx * g.C, tw = BX + 2 * hx, th = BY + 2 * g.ry;
    const int tid = threadIdx.y * BX + threadIdx.x;
    const Tiles t = {(g.W + BX - 1) / BX, ((g.W + BX - 1) / BX) * ((g.h + BY - 1) / BY)};
    for (long long b = blockIdx.x; b < t.n; b += gridDim.x) {
        long long ty = b / t.nx, tx = b - ty * t.nx;
        long long s0 = tx * BX, y0 = ty * BY;
        __syncthreads();
        for (int q = tid; q < tw * th; q += BX * BY) {
            int r = q / tw, c = q - r * tw;
            tile[q] = at<T>(g, y0 - g.ry + r, s0 - hx + c);
        }
        __syncthreads();
        long long s = s0 + threadIdx.x, y = y0 + threadIdx.y;
        if (s >= g.W || y >= g.h) continue;
        float acc = 0.0f;
        for (int i = 0; i < g.kh; i++) {
            const float *row = tile + (threadIdx.y + i) * tw + threadIdx.x;
            for (int j = 0; j < g.kw; j++) acc = fmaf(c_taps[i * g.kw + j], row[j * g.C], acc);
        }
        put<T>(g, y, s, acc);
    }
}

// ------------------------------------------------------------- cached --
// PMPP 7.5: shared memory holds only the block's own 32 x 16 inputs; taps
// that fall outside it (the halo) read global memory and are served by L1/L2,
// which hold them because neighbouring blocks load them as their interior.
template <class T>
__global__ void __launch_bounds__(BX *BY) k_cached(Img g)
{
    __shared__ float tile[BY][BX];
    const Tiles t = {(g.W + BX - 1) / BX, ((g.W + BX - 1) / BX) * ((g.h + BY - 1) / BY)};
    for (long long b = blockIdx.x; b < t.n; b += gridDim.x) {
        long long ty = b / t.nx, tx = b - ty * t.nx;
        long long s = tx * BX + threadIdx.x, y = ty * BY + threadIdx.y;
        __syncthreads();
        tile[threadIdx.y][threadIdx.x] = at<T>(g, y, s);
        __syncthreads();
        if (s >= g.W || y >= g.h) continue;
        float acc = 0.0f;
        for (int i = 0; i < g.kh; i++) {
            int r = (int)threadIdx.y + i - g.ry;
            for (int j = 0; j < g.kw; j++) {
                int c = (int)threadIdx.x + (j - g.rx) * g.C;
                float v = (r >= 0 && r < BY && c >= 0 && c < BX)
                              ? tile[r][c]
                              : at<T>(g, y + i - g.ry, s + (long long)(j - g.rx) * g.C);
                acc = fmaf(c_taps[i * g.kw + j], v, acc);
            }
        }
        put<T>(g, y, s, acc);
    }
}

__global__ void k_put_taps(Taps t, float *dst, int n)
{
    for (int i = threadIdx.x; i < n; i += blockDim.x) dst[i] = t.k[i];
}

template <class T>
cupat_status book_launch(cupat_ctx *ctx, int rung, const Img &g, const float *dk)
{
    cudaStream_t s = ctx->stream;
    const dim3 blk(BX, BY);
    const long long n = tiles(g.W, g.h, BX, BY).n;
    if (rung == CV_BASIC) {
        k_basic<T, false><<<grid_for(n), blk, 0, s>>>(g, dk);
        return cupat__launched(ctx, "conv2d k_basic");
    }
    // The symbol is one per device: concurrent streams with different
    // filters would race on it (the later rungs read taps from memory
    // that belongs to the call).
    CUPAT_CUDA_TRY(ctx, cudaMemcpyToSymbolAsync(c_taps, dk, (size_t)g.kw * g.kh * sizeof(float),
                                                0, cudaMemcpyDeviceToDevice, s));
    switch (rung) {
    case CV_CONST:
        k_basic<T, true><<<grid_for(n), blk, 0, s>>>(g, nullptr);
        return cupat__launched(ctx, "conv2d k_basic<__constant__>");
    case CV_TILED_IN: {
        const int ox = IT - 2 * g.rx * g.C, oy = IT - 2 * g.ry;
        if (ox >= 1 && oy >= 1) {
            k_tiled_in<T><<<grid_for(tiles(g.W, g.h, ox, oy).n), dim3(IT, IT), 0, s>>>(g);
            return cupat__launched(ctx, "conv2d k_tiled_in");
        }
        rung = CV_TILED_OUT; // no output tile left inside 32 x 32: the output-tile form
    }
        /* fall through */
    case CV_TILED_OUT: {
        size_t smem = (size_t)(BX + 2 * g.rx * g.C) * (BY + 2 * g.ry) * sizeof(float);
        size_t most = (size_t)(BX + 2 * 15 * 4) * (BY + 2 * 15) * sizeof(float);
        CUPAT_TRY(cupat__conv2d_smem(ctx, (const void *)k_tiled_out<T>, smem, most));
        k_tiled_out<T><<<grid_for(n), blk, smem, s>>>(g);
        return cupat__launched(ctx, "conv2d k_tiled_out");
    }
    case CV_CACHED:
        k_cached<T><<<grid_for(n), blk, 0, s>>>(g);
        return cupat__launched(ctx, "conv2d k_cached");
    }
    return cupat__fail(ctx, CUPAT_ERROR_INTERNAL, "cupat_conv2d: no book rung %d", rung);
}

} // namespace

cupat_status cupat__conv2d_put_taps(cupat_ctx *ctx, const float *host, int n, size_t extra,
                                    float **dtaps, void **extra_ptr)
{
    Taps t;
    for (int i = 0; i < n; i++) t.k[i] = host[i];
    const size_t head = ((size_t)n * sizeof(float) + 255) & ~(size_t)255;
    void *mem;
    CUPAT_TRY(cupat__scratch(ctx, head + extra, &mem));
    *dtaps = (float *)mem;
    if (extra_ptr) *extra_ptr = (char *)mem + head;
    k_put_taps<<<1, 256, 0, ctx->stream>>>(t, *dtaps, n);
    return cupat__launched(ctx, "conv2d k_put_taps");
}

cupat_status cupat__opt_in_smem(cupat_ctx *ctx, const char *fn, const void *kernel, size_t need,
                                size_t most)
{
    if (need <= 48 * 1024) return CUPAT_SUCCESS;
    int optin = 0;
    CUPAT_CUDA_TRY(ctx, cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin,
                                               ctx->device));
    if (need > (size_t)optin)
        return cupat__fail(ctx, CUPAT_ERROR_NOT_SUPPORTED,
                           "%s: the tile needs %zu bytes of shared memory; the device has %d",
                           fn, need, optin);
    if (most > (size_t)optin) most = (size_t)optin;
    if (most < need) most = need;
    return cupat__cuda(ctx,
                       cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            (int)most),
                       "cudaFuncSetAttribute(MaxDynamicSharedMemorySize)");
}

cupat_status cupat__conv2d_cuda(cupat_ctx *ctx, int rung, const conv2d_req *r)
{
    if (rung == CV_COLUMNS) { // taps by value: no put_taps launch
        if (cupat__conv2d_columns_fits(r))
            return r->type == CUPAT_PIXEL_F32 ? cupat__conv2d_columns_f32(ctx, r)
                                              : cupat__conv2d_columns_u8(ctx, r);
        rung = CV_REGTILE_VEC; // any other shape, type, size or alignment
    }
    const Img g = make_img(r);
    float *dk;
    CUPAT_TRY(cupat__conv2d_put_taps(ctx, r->k, r->kw * r->kh, 0, &dk, nullptr));
    const bool f32 = r->type == CUPAT_PIXEL_F32;
    switch (rung) {
    case CV_REGTILE:
    case CV_REGTILE_VEC: {
        const size_t es = f32 ? 4 : 1;
        bool vec = rung == CV_REGTILE_VEC && (uintptr_t)r->in % 16 == 0 &&
                   (uintptr_t)r->out % 16 == 0 && (r->ip * es) % 16 == 0 && (r->op * es) % 16 == 0;
        return f32 ? cupat__conv2d_regtile_f32(ctx, g, dk, vec)
                   : cupat__conv2d_regtile_u8(ctx, g, dk, vec);
    }
    case CV_ASYNC: return cupat__conv2d_async(ctx, g, dk);
    }
    return f32 ? book_launch<float>(ctx, rung, g, dk) : book_launch<uint8_t>(ctx, rung, g, dk);
}
