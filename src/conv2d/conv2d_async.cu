// SPDX-License-Identifier: Apache-2.0
// conv2d_async.cu — the async rung: input tiles brought into shared memory by
// cuda::memcpy_async on a two-stage cuda::pipeline (CUDA Guide, asynchronous
// data copies), so the copy of the next tile overlaps the arithmetic on this
// one. A block owns a column of 32 x 16 output tiles and walks down it
// (gridDim.y bands apart); the buffers hold samples in their own type (an
// 8-bit copy is not a cp.async size and falls back to an ordinary copy inside
// memcpy_async; f32 samples go by 4-byte cp.async). Border samples under
// CLAMP and MIRROR are copied from their mapped address; ZERO samples are
// stored as 0 directly. The chain per output is the documented one.
#include "conv2d/conv2d_dev.cuh"

#include <cuda/pipeline>

using namespace cupat_conv;

namespace {

constexpr int AX = 32, AY = 16;

template <class T>
__global__ void __launch_bounds__(AX *AY) k_async(Img g, const float *__restrict__ dk)
{
    extern __shared__ __align__(16) float smf[];
    float *taps = smf;
    const int hx = g.rx * g.C, tw = AX + 2 * hx, th = AY + 2 * g.ry, n = tw * th;
    T *buf0 = reinterpret_cast<T *>(smf + MAXK * MAXK), *buf1 = buf0 + n;
    const int tid = threadIdx.y * AX + threadIdx.x;
    for (int i = tid; i < g.kw * g.kh; i += AX * AY) taps[i] = dk[i];
    const T *in = static_cast<const T *>(g.in);
    const long long s0 = (long long)blockIdx.x * AX;
    const long long nb = (g.h + AY - 1) / AY;
    cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();

    auto fetch = [&](long long band, T *dst) {
        pipe.producer_acquire();
        if (band < nb) {
            const long long y0 = band * AY - g.ry;
            for (int q = tid; q < n; q += AX * AY) {
                int r = q / tw, c = q - r * tw;
                long long s = s0 - hx + c, y = y0 + r;
                long long x = floor_div(s, g.C);
                int ch = (int)(s - x * g.C);
                long long xm = conv_map(x, g.w, g.border), ym = conv_map(y, g.h, g.border);
                if (xm < 0 || ym < 0) dst[q] = T(0);
                else cuda::memcpy_async(dst + q, in + ym * g.ip + xm * g.C + ch, sizeof(T), pipe);
            }
        }
        pipe.producer_commit(); // an empty stage past the last band keeps the count even
    };

    long long band = blockIdx.y;
    fetch(band, buf0);
    for (int st = 0; band < nb; band += gridDim.y, st ^= 1) {
        fetch(band + gridDim.y, st ? buf0 : buf1); // the next tile, into the other buffer
        pipe.consumer_wait();                      // this tile's copies (this thread's)
        __syncthreads();                           // ... and everyone's, and the zeros
        const T *tile = st ? buf1 : buf0;
        const long long s = s0 + threadIdx.x, y = band * AY + threadIdx.y;
        if (s < g.W && y < g.h) {
            float acc = 0.0f;
            for (int i = 0; i < g.kh; i++) {
                const T *row = tile + (threadIdx.y + i) * tw + threadIdx.x;
                for (int j = 0; j < g.kw; j++)
                    acc = fmaf(taps[i * g.kw + j], (float)row[j * g.C], acc);
            }
            put<T>(g, y, s, acc);
        }
        __syncthreads(); // the buffer is refilled two fetches on
        pipe.consumer_release();
    }
}

template <class T>
cupat_status async_launch(cupat_ctx *ctx, const Img &g, const float *dk)
{
    auto bytes = [](int hx, int ry) {
        return MAXK * MAXK * sizeof(float) + 2 * (size_t)(AX + 2 * hx) * (AY + 2 * ry) * sizeof(T);
    };
    const size_t need = bytes(g.rx * g.C, g.ry), most = bytes(15 * 4, 15);
    CUPAT_TRY(cupat__conv2d_smem(ctx, (const void *)k_async<T>, need, most));
    const long long nx = (g.W + AX - 1) / AX, nb = (g.h + AY - 1) / AY;
    if (nx > 0x7fffffffLL)
        return cupat__fail(ctx, CUPAT_ERROR_SIZE, "cupat_conv2d: %lld tiles across", nx);
    // About 4 blocks an SM in all; each walks nb / gy bands (at least 2 where
    // the image is tall enough, so the pipeline has something to overlap).
    long long gy = (long long)ctx->sm_count * 4 / nx;
    if (gy > nb / 2) gy = nb / 2;
    if (gy > 65535) gy = 65535;
    if (gy < 1) gy = 1;
    k_async<T><<<dim3((unsigned)nx, (unsigned)gy), dim3(AX, AY), need, ctx->stream>>>(g, dk);
    return cupat__launched(ctx, "conv2d k_async");
}

} // namespace

cupat_status cupat__conv2d_async(cupat_ctx *ctx, const Img &g, const float *dtaps)
{
    return g.es == 4 ? async_launch<float>(ctx, g, dtaps) : async_launch<uint8_t>(ctx, g, dtaps);
}
