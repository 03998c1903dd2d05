// SPDX-License-Identifier: Apache-2.0
/* gemv.cu — y = alpha op(A) x + beta y on the GPU (PMPP ch. 3 exercise).
 * A is row-major m x n (gemm.c turned column-major calls around). */
#include "cupat_warp.cuh"
#include "gemm/gemm_device.cuh"
#include "gemm/gemm_internal.h"

#include <stdint.h>

namespace {

using cupat_gemm_dev::axpby; /* beta 0: y unread */
/* s + a . b, one fmaf a lane in x, y, z, w order (every op N form sums so) */
__device__ __forceinline__ float dot4(float4 a, float4 b, float s)
{
    s = fmaf(a.x, b.x, s);
    s = fmaf(a.y, b.y, s);
    s = fmaf(a.z, b.z, s);
    return fmaf(a.w, b.w, s);
}

/* ---- rung "naive": one thread per output. For op N a thread walks its own
 * row, so the lanes of a warp read addresses lda apart (uncoalesced); for op
 * T a thread walks a column and the warp reads consecutive addresses. */
__global__ void gemv_naive(size_t m, size_t n, int ta, float alpha, const float *__restrict__ A,
                           size_t lda, const float *__restrict__ x, float beta,
                           float *__restrict__ y)
{
    size_t ylen = ta ? n : m, xlen = ta ? m : n;
    for (size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x; t < ylen;
         t += (size_t)gridDim.x * blockDim.x) {
        float s = 0.0f;
        for (size_t q = 0; q < xlen; ++q)
            s = fmaf(ta ? A[q * lda + t] : A[t * lda + q], x[q], s);
        y[t] = axpby(s, alpha, beta, y + t);
    }
}

/* ---- rung "warp", op N: one warp per row. The lanes read the row with
 * consecutive addresses (16-byte loads when aligned), each keeps a partial
 * sum, and five shuffles (PCCP 5.6; cupat_warp.cuh's butterfly, neighbours
 * first) add them without shared memory. */
template <bool VEC>
__global__ void __launch_bounds__(256)
    gemv_rows(size_t m, size_t n, float alpha, const float *__restrict__ A, size_t lda,
              const float *__restrict__ x, float beta, float *__restrict__ y)
{
    const int lane = threadIdx.x % 32;
    const size_t warps = (size_t)gridDim.x * (blockDim.x / 32);
    for (size_t i = (size_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; i < m;
         i += warps) {
        const float *r = A + i * lda;
        float s = 0.0f;
        size_t j = 0;
        if (VEC) {
            const size_t n4 = n / 4;
            for (size_t q = lane; q < n4; q += 32) {
                float4 a = __ldg(reinterpret_cast<const float4 *>(r) + q);
                float4 b = __ldg(reinterpret_cast<const float4 *>(x) + q);
                s = dot4(a, b, s);
            }
            j = n4 * 4;
        }
        for (size_t q = j + lane; q < n; q += 32) s = fmaf(__ldg(r + q), __ldg(x + q), s);
        s = cupat_dev::warp_reduce(s, cupat_dev::OpSum()); /* core's butterfly */
        if (lane == 0) y[i] = axpby(s, alpha, beta, y + i);
    }
}

/* ---- op N with few, long rows (2048 x 131072: 2048 row-warps, 16 an SM):
 * a block of 8 warps a row, each thread 4 of the row's 16-byte loads in
 * flight, the 8 warp sums added in shared memory in a fixed order. Four
 * times the bytes in flight of one warp a row. */
template <bool VEC>
__global__ void __launch_bounds__(256)
    gemv_rows_block(size_t m, size_t n, float alpha, const float *__restrict__ A, size_t lda,
                    const float *__restrict__ x, float beta, float *__restrict__ y)
{
    __shared__ float part[8];
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    for (size_t i = blockIdx.x; i < m; i += gridDim.x) {
        const float *r = A + i * lda;
        float s = 0.0f;
        size_t j = 0;
        if (VEC) {
            const size_t n4 = n / 4;
            const float4 *r4 = reinterpret_cast<const float4 *>(r), *x4 = reinterpret_cast<const float4 *>(x);
            size_t q = tid;
#pragma unroll 1
            for (; q + 3 * 256 < n4; q += 4 * 256) { // 4 loads of each first
                float4 a[4], b[4];
#pragma unroll
                for (int u = 0; u < 4; u++) a[u] = __ldg(r4 + q + 256 * u), b[u] = __ldg(x4 + q + 256 * u);
#pragma unroll
                for (int u = 0; u < 4; u++) s = dot4(a[u], b[u], s);
            }
            for (; q < n4; q += 256) {
                s = dot4(__ldg(r4 + q), __ldg(x4 + q), s);
            }
            j = n4 * 4;
        }
        for (size_t q = j + tid; q < n; q += 256) s = fmaf(__ldg(r + q), __ldg(x + q), s);
        s = cupat_dev::warp_reduce(s, cupat_dev::OpSum());
        if (lane == 0) part[warp] = s;
        __syncthreads();
        if (tid == 0) {
            float t = 0.0f;
#pragma unroll
            for (int w = 0; w < 8; w++) t += part[w];
            y[i] = axpby(t, alpha, beta, y + i);
        }
        __syncthreads(); // part is reused by the next row
    }
}

/* ---- rung "warp", op T: y_j = sum_i A[i][j] x_i. A block of 32 x 8
 * threads owns 32 W columns (a lane W consecutive ones); its 8 thread rows
 * take every 8th row of A, so each warp reads 128 W consecutive bytes of a
 * row (coalesced), U rows' loads in flight before their FMAs, and the 8
 * partial sums meet in shared memory. With few columns, gridDim.y blocks
 * split the rows and write partial sums (P[y][j]) for gemv_cols_finish.
 * W = 4 (16-byte loads) where A, lda and n allow it: the 4-byte form was
 * 0.79x cublasSgemv at 4096^2, this one 0.91x (H100). Each column's sum
 * runs over the rows in the same order for both widths. */
template <int W> __device__ __forceinline__ void load_cols(const float *p, float (&v)[W])
{
    if constexpr (W == 4) {
        const float4 q = __ldg(reinterpret_cast<const float4 *>(p));
        v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
    } else {
        v[0] = __ldg(p);
    }
}

template <int W, int U = 4>
__global__ void __launch_bounds__(256)
    gemv_cols(size_t m, size_t n, size_t rows_per, float alpha, const float *__restrict__ A,
              size_t lda, const float *__restrict__ x, float beta, float *__restrict__ y,
              float *__restrict__ P)
{
    __shared__ float part[8][32 * W + 1];
    const size_t j = ((size_t)blockIdx.x * 32 + threadIdx.x) * W;
    const size_t i0 = (size_t)blockIdx.y * rows_per;
    const size_t i1 = i0 + rows_per < m ? i0 + rows_per : m;
    float s[W] = {};
    if (j < n) {
        const float *a = A + j;
        size_t i = i0 + threadIdx.y;
        for (; i + 8 * (U - 1) < i1; i += 8 * U) { // U rows a step, their loads first
            float v[U][W], xv[U];
#pragma unroll
            for (int u = 0; u < U; u++) {
                load_cols<W>(a + (i + 8 * u) * lda, v[u]);
                xv[u] = __ldg(x + i + 8 * u);
            }
#pragma unroll
            for (int u = 0; u < U; u++)
#pragma unroll
                for (int c = 0; c < W; c++) s[c] = fmaf(v[u][c], xv[u], s[c]);
        }
        for (; i < i1; i += 8) {
            float v[W];
            load_cols<W>(a + i * lda, v);
            const float xv = __ldg(x + i);
#pragma unroll
            for (int c = 0; c < W; c++) s[c] = fmaf(v[c], xv, s[c]);
        }
    }
#pragma unroll
    for (int c = 0; c < W; c++) part[threadIdx.y][threadIdx.x * W + c] = s[c];
    __syncthreads();
    if (threadIdx.y == 0 && j < n) {
#pragma unroll
        for (int c = 0; c < W; c++) {
            float t = 0.0f;
#pragma unroll
            for (int r = 0; r < 8; ++r) t += part[r][threadIdx.x * W + c];
            if (P) P[(size_t)blockIdx.y * n + j + c] = t;
            else y[j + c] = axpby(t, alpha, beta, y + j + c);
        }
    }
}

/* ---- op T where the 32-column blocks alone give each SM about one block
 * (4096^2: 128 blocks): a block of 32 x R threads owns 32 columns (a warp
 * reads one 128-byte line of a row) and every row, R warps taking every R-th
 * row with U rows' loads in flight, and sums its R partials in shared memory:
 * one kernel, no partial sums through memory. The split form above wrote
 * partials for a second kernel, gemv_cols_finish, which cost 5 us of 31 at
 * 4096^2 (Nsight Compute: gemv_cols 25.3-26.3 us, as fast as cuBLAS's
 * kernel, 26.1-26.7; the finish 4.9 us). Each step's x values come one a
 * lane and go round by shuffles, so the registers hold A's loads. */
template <int R, int U>
__global__ void __launch_bounds__(32 * R, 1)
    gemv_cols_tall(size_t m, size_t n, float alpha, const float *__restrict__ A, size_t lda,
                   const float *__restrict__ x, float beta, float *__restrict__ y)
{
    static_assert(U <= 32, "a step's x values come one a lane");
    __shared__ float part[R][33];
    const int lane = threadIdx.x;
    const size_t j = (size_t)blockIdx.x * 32 + lane;
    const float *a = A + (j < n ? j : 0); // lanes past n read column 0 and never store
    float s = 0.0f;
    size_t i = threadIdx.y;
    for (; i + (size_t)R * (U - 1) < m; i += (size_t)R * U) { // U rows a step, their loads first
        float v[U];
#pragma unroll
        for (int u = 0; u < U; u++) v[u] = __ldg(a + (i + (size_t)R * u) * lda);
        // the step's U values of x, one a lane, handed round by shuffles
        // (registers for A's loads, not for copies of x)
        const float xl = lane < U ? __ldg(x + i + (size_t)R * lane) : 0.0f;
#pragma unroll
        for (int u = 0; u < U; u++) s = fmaf(v[u], __shfl_sync(0xffffffffu, xl, u), s);
    }
    for (; i < m; i += R) s = fmaf(__ldg(a + i * lda), __ldg(x + i), s);
    part[threadIdx.y][lane] = s;
    __syncthreads();
    if (threadIdx.y == 0 && j < n) {
        float t = 0.0f;
#pragma unroll
        for (int r = 0; r < R; ++r) t += part[r][lane];
        y[j] = axpby(t, alpha, beta, y + j);
    }
}
// 16 warps x 32 rows' loads: 4096^2 op T 0.0271-0.0273 ms; 32 x 32 and
// 32 x 24 0.0275-0.0280, 16 x 16 0.0278-0.0284, 16 x 8 0.0313 (fewer bytes in
// flight, slower). H100, docs/vendor-gaps.md.
constexpr int TALL_R = 16, TALL_U = 32;

__global__ void gemv_cols_finish(size_t n, int parts, float alpha, const float *__restrict__ P,
                                 float beta, float *__restrict__ y)
{
    for (size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x; j < n;
         j += (size_t)gridDim.x * blockDim.x) {
        float t = 0.0f;
        for (int q = 0; q < parts; ++q) t += P[(size_t)q * n + j];
        y[j] = axpby(t, alpha, beta, y + j);
    }
}

/* y = beta y (alpha == 0 or an empty x). */
__global__ void gemv_scale(size_t len, float beta, float *__restrict__ y)
{
    for (size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x; t < len;
         t += (size_t)gridDim.x * blockDim.x)
        y[t] = beta != 0.0f ? beta * y[t] : 0.0f;
}

unsigned blocks_for(size_t work, size_t per_block, int sms)
{
    size_t b = (work + per_block - 1) / per_block, cap = (size_t)(sms > 0 ? sms : 132) * 32;
    return (unsigned)(b < 1 ? 1 : (b < cap ? b : cap));
}

} // namespace

extern "C" int cupat__gemv_u8_rows = 512;
extern "C" int cupat__gemv_tall = 0;
extern "C" size_t cupat__gemv_wide_n = 16384;

extern "C" cupat_status cupat__gemv_cuda(cupat_ctx *ctx, int rung, const cupat_gemv_args *a)
{
    const size_t ylen = a->ta ? a->n : a->m;
    const size_t sms = (size_t)(ctx->sm_count > 0 ? ctx->sm_count : 132); /* the forms below size by it */
    cudaStream_t s = ctx->stream;
    if (a->alpha == 0.0f) {
        gemv_scale<<<blocks_for(ylen, 256, ctx->sm_count), 256, 0, s>>>(ylen, a->beta, a->y);
        return cupat__launched(ctx, "gemv_scale");
    }
    if (rung == GEMV_NAIVE) {
        gemv_naive<<<blocks_for(ylen, 256, ctx->sm_count), 256, 0, s>>>(
            a->m, a->n, a->ta, a->alpha, a->A, a->lda, a->x, a->beta, a->y);
        return cupat__launched(ctx, "gemv_naive");
    }
    if (!a->ta) {
        bool vec = ((uintptr_t)a->A & 15) == 0 && (a->lda & 3) == 0 && ((uintptr_t)a->x & 15) == 0;
        /* fewer than 32 row-warps an SM and long rows: a block a row */
        if (a->m > 0 && a->m < sms * 32 && a->n >= cupat__gemv_wide_n) {
            const unsigned gb = (unsigned)a->m;
            if (vec) gemv_rows_block<true><<<gb, 256, 0, s>>>(a->m, a->n, a->alpha, a->A, a->lda, a->x, a->beta, a->y);
            else gemv_rows_block<false><<<gb, 256, 0, s>>>(a->m, a->n, a->alpha, a->A, a->lda, a->x, a->beta, a->y);
            return cupat__launched(ctx, "gemv_rows_block");
        }
        unsigned g = blocks_for(a->m, 8, ctx->sm_count);
        if (vec) gemv_rows<true><<<g, 256, 0, s>>>(a->m, a->n, a->alpha, a->A, a->lda, a->x, a->beta, a->y);
        else gemv_rows<false><<<g, 256, 0, s>>>(a->m, a->n, a->alpha, a->A, a->lda, a->x, a->beta, a->y);
        return cupat__launched(ctx, "gemv_rows");
    }
    /* op T: enough blocks to fill the GPU several times; split rows when the
     * columns alone do not */
    const bool vec4 = ((uintptr_t)a->A & 15) == 0 && (a->lda & 3) == 0 && (a->n & 3) == 0;
    const size_t colblocks = vec4 ? (a->n + 127) / 128 : (a->n + 31) / 32;
    if (colblocks > 0x7fffffffu)
        return cupat__fail(ctx, CUPAT_ERROR_SIZE,
                           "cupat_gemv_f32: %zu columns with op T exceed the grid (2^36)", a->n);
    const size_t want = sms * 8;
    /* about one 32-column block an SM (half to two) where the split form
     * would need partial sums: the one-kernel form (cupat__gemv_tall forces
     * it, for the tests) */
    const size_t cols32 = (a->n + 31) / 32;
    if (cols32 <= 0x7fffffffu && (cupat__gemv_tall || (colblocks < want && 2 * cols32 >= sms && cols32 <= 2 * sms))) {
        gemv_cols_tall<TALL_R, TALL_U><<<(unsigned)cols32, dim3(32, TALL_R), 0, s>>>(
            a->m, a->n, a->alpha, a->A, a->lda, a->x, a->beta, a->y);
        return cupat__launched(ctx, "gemv_cols_tall");
    }
    size_t parts = colblocks >= want ? 1 : (want + colblocks - 1) / colblocks;
    size_t max_parts = (a->m + 63) / 64; /* at least 64 rows a block */
    if (parts > max_parts) parts = max_parts;
    if (parts > 65535) parts = 65535;
    if (parts < 1) parts = 1;
    size_t rows_per = (a->m + parts - 1) / parts;
    parts = (a->m + rows_per - 1) / rows_per;
    float *P = NULL;
    if (parts > 1) {
        void *w;
        CUPAT_TRY(cupat__scratch(ctx, parts * a->n * sizeof(float), &w));
        P = (float *)w;
    }
    /* gridDim.x is limited to 2^31 - 1 blocks of 32 columns: n < 2^36 */
    dim3 grid((unsigned)colblocks, (unsigned)parts);
    /* long row ranges: 8 rows' loads in flight a thread (16384^2 op T: 0.3773 ->
     * 0.3544 ms, 0.95x -> 1.01x cublasSgemv); short ones keep 4 (4096^2,
     * 125 rows a block: 0.0305 with 4, 0.0313 with 8). H100, docs/vendor-gaps.md */
    if (vec4 && rows_per >= (size_t)cupat__gemv_u8_rows)
        gemv_cols<4, 8><<<grid, dim3(32, 8), 0, s>>>(a->m, a->n, rows_per, a->alpha, a->A, a->lda,
                                                     a->x, a->beta, a->y, P);
    else if (vec4)
        gemv_cols<4><<<grid, dim3(32, 8), 0, s>>>(a->m, a->n, rows_per, a->alpha, a->A, a->lda,
                                                  a->x, a->beta, a->y, P);
    else
        gemv_cols<1><<<grid, dim3(32, 8), 0, s>>>(a->m, a->n, rows_per, a->alpha, a->A, a->lda,
                                                  a->x, a->beta, a->y, P);
    CUPAT_TRY(cupat__launched(ctx, "gemv_cols"));
    if (P) {
        gemv_cols_finish<<<blocks_for(a->n, 256, ctx->sm_count), 256, 0, s>>>(
            a->n, (int)parts, a->alpha, P, a->beta, a->y);
        CUPAT_TRY(cupat__launched(ctx, "gemv_cols_finish"));
    }
    return CUPAT_SUCCESS;
}
