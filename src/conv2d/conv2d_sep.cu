// SPDX-License-Identifier: Apache-2.0
// conv2d_sep.cu — the conv2d_sep ladder (two_pass, fused) and cupat_blur's
// "conv" rung, which is the fused kernel with a ones filter, the zero border
// and the integer-mean output rule. Per output, every rung evaluates the
// documented order: the row chains t_i (from the border-mapped row; zeros
// under ZERO, whose chain is t0), then the column chain over i.
#include "conv2d/conv2d_dev.cuh"

using namespace cupat_conv;

namespace {

constexpr int TB = 256; // threads a block of the two_pass kernels (32 x 8)

// two_pass, pass 1: t(y, s) = row chain over the input row y (global reads
// through L1), into a float scratch image of h x W.
template <class T>
__global__ void __launch_bounds__(TB) k_rows(Img g, const float *__restrict__ taps,
                                             float *__restrict__ t)
{
    const Tiles tl = {(g.W + 31) / 32, ((g.W + 31) / 32) * ((g.h + 7) / 8)};
    for (long long b = blockIdx.x; b < tl.n; b += gridDim.x) {
        long long ty = b / tl.nx, tx = b - ty * tl.nx;
        long long s = tx * 32 + threadIdx.x, y = ty * 8 + threadIdx.y;
        if (s >= g.W || y >= g.h) continue;
        float acc = 0.0f;
        for (int j = 0; j < g.kw; j++)
            acc = fmaf(taps[j], at<T>(g, y, s + (long long)(j - g.rx) * g.C), acc);
        t[y * g.W + s] = acc;
    }
}

// two_pass, pass 2: the column chain over the mapped rows of t.
template <class T>
__global__ void __launch_bounds__(TB) k_cols(Img g, const float *__restrict__ taps,
                                             const float *__restrict__ t, float t0)
{
    const float *col = taps + g.kw;
    const Tiles tl = {(g.W + 31) / 32, ((g.W + 31) / 32) * ((g.h + 7) / 8)};
    for (long long b = blockIdx.x; b < tl.n; b += gridDim.x) {
        long long ty = b / tl.nx, tx = b - ty * tl.nx;
        long long s = tx * 32 + threadIdx.x, y = ty * 8 + threadIdx.y;
        if (s >= g.W || y >= g.h) continue;
        float acc = 0.0f;
        for (int i = 0; i < g.kh; i++) {
            long long ym = conv_map(y + i - g.ry, g.h, g.border);
            acc = fmaf(col[i], ym < 0 ? t0 : t[ym * g.W + s], acc);
        }
        put<T>(g, y, s, acc);
    }
}

// fused: a 64-sample x 16-row output tile. The input tile with its halo goes
// to shared memory, the row pass writes (16 + 2 ry) x 64 row sums to a second
// shared tile, the column pass reads them: one global read and one write a
// sample. 256 threads, 4 output rows each.
constexpr int FX = 64, FY = 16, FT = 256;

inline size_t fused_smem(int hx, int ry)
{
    const size_t th = FY + 2 * (size_t)ry;
    return (2 * MAXK + th * (FX + 2 * (size_t)hx) + th * FX) * sizeof(float);
}

template <class T>
__global__ void __launch_bounds__(FT) k_fused(Img g, const float *__restrict__ dk)
{
    extern __shared__ float sm[];
    const int hx = g.rx * g.C, tw = FX + 2 * hx, th = FY + 2 * g.ry;
    float *taps = sm, *tin = sm + 2 * MAXK, *trow = tin + th * tw;
    const float *row = taps, *col = taps + g.kw;
    const int tid = threadIdx.y * FX + threadIdx.x;
    for (int i = tid; i < g.kw + g.kh; i += FT) taps[i] = dk[i];
    const long long ntx = (g.W + FX - 1) / FX, n = ntx * ((g.h + FY - 1) / FY);
    for (long long b = blockIdx.x; b < n; b += gridDim.x) {
        const long long ty = b / ntx, tx = b - ty * ntx;
        const long long s0 = tx * FX, y0 = ty * FY;
        __syncthreads();
        for (int q = tid; q < th * tw; q += FT) {
            int r = q / tw, c = q - r * tw;
            tin[q] = at<T>(g, y0 - g.ry + r, s0 - hx + c);
        }
        __syncthreads();
        for (int q = tid; q < th * FX; q += FT) {
            int r = q / FX, c = q - r * FX;
            const float *src = tin + r * tw + c;
            float acc = 0.0f;
            for (int j = 0; j < g.kw; j++) acc = fmaf(row[j], src[j * g.C], acc);
            trow[q] = acc;
        }
        __syncthreads();
        const long long s = s0 + threadIdx.x;
        if (s >= g.W) continue;
        for (int rr = threadIdx.y; rr < FY; rr += FT / FX) {
            const long long y = y0 + rr;
            if (y >= g.h) break;
            float acc = 0.0f;
            for (int i = 0; i < g.kh; i++) acc = fmaf(col[i], trow[(rr + i) * FX + threadIdx.x], acc);
            put<T>(g, y, s, acc);
        }
    }
}

template <class T>
cupat_status fused_launch(cupat_ctx *ctx, const Img &g, const float *dk)
{
    const size_t need = fused_smem(g.rx * g.C, g.ry), most = fused_smem(15 * 4, 15);
    CUPAT_TRY(cupat__conv2d_smem(ctx, (const void *)k_fused<T>, need, most));
    k_fused<T><<<grid_for(tiles(g.W, g.h, FX, FY).n), dim3(FX, FT / FX), need, ctx->stream>>>(g,
                                                                                           dk);
    return cupat__launched(ctx, "conv2d_sep k_fused");
}

template <class T>
cupat_status sep_launch(cupat_ctx *ctx, int rung, const conv2d_req *r)
{
    const Img g = make_img(r);
    float taps[2 * MAXK];
    for (int j = 0; j < r->kw; j++) taps[j] = r->row[j];
    for (int i = 0; i < r->kh; i++) taps[r->kw + i] = r->col[i];
    float *dk;
    if (rung == CS_FUSED) {
        CUPAT_TRY(cupat__conv2d_put_taps(ctx, taps, r->kw + r->kh, 0, &dk, nullptr));
        return fused_launch<T>(ctx, g, dk);
    }
    size_t bytes;
    void *t;
    CUPAT_TRY(cupat__size_mul(ctx, "cupat_conv2d_separable", "row-pass scratch bytes",
                              (size_t)g.W, r->h, sizeof(float), &bytes));
    CUPAT_TRY(cupat__conv2d_put_taps(ctx, taps, r->kw + r->kh, bytes, &dk, &t));
    const unsigned grid = grid_for(tiles(g.W, g.h, 32, 8).n);
    k_rows<T><<<grid, dim3(32, 8), 0, ctx->stream>>>(g, dk, (float *)t);
    CUPAT_TRY(cupat__launched(ctx, "conv2d_sep k_rows"));
    k_cols<T><<<grid, dim3(32, 8), 0, ctx->stream>>>(g, dk, (const float *)t,
                                                     conv_row_of_zeros(r->kw, r->row));
    return cupat__launched(ctx, "conv2d_sep k_cols");
}

} // namespace

cupat_status cupat__conv2d_sep_cuda(cupat_ctx *ctx, int rung, const conv2d_req *r)
{
    return r->type == CUPAT_PIXEL_F32 ? sep_launch<float>(ctx, rung, r)
                                      : sep_launch<uint8_t>(ctx, rung, r);
}

cupat_status cupat__conv2d_blur_cuda(cupat_ctx *ctx, size_t w, size_t h, int C, int radius,
                                     const uint8_t *in, uint8_t *out)
{
    float ones[2 * MAXK];
    for (int i = 0; i < 2 * MAXK; i++) ones[i] = 1.0f;
    conv2d_req r = {};
    r.type = CUPAT_PIXEL_U8, r.w = w, r.h = h, r.C = C;
    r.in = in, r.ip = w * C, r.out = out, r.op = w * C;
    r.kw = r.kh = 2 * radius + 1, r.row = ones, r.col = ones;
    r.border = CUPAT_BORDER_ZERO, r.mode = CONV_OUT_MEAN;
    return sep_launch<uint8_t>(ctx, CS_FUSED, &r);
}
