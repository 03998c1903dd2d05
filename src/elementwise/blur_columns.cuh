// SPDX-License-Identifier: Apache-2.0
/* blur_columns.cuh — the arithmetic the one-pass blur kernels share
 * (blur_columns.cu reads rows from global memory, blur_tma.cu from shared
 * memory filled by the tensor memory accelerator): a row's bytes as exact
 * floats, the sliding column sums, and a row of means from them.
 *
 * A lane holds 4 consecutive pixels (4 C bytes) of a warp's row segment; V
 * are their column sums over the window's rows, sample p C + c for pixel p,
 * channel c. */
#ifndef CUPAT_BLUR_COLUMNS_CUH
#define CUPAT_BLUR_COLUMNS_CUH

#include "core/cupat_warp.cuh"
#include "internal.h"

#include <stdint.h>
#include <type_traits>

namespace blur_dev {

constexpr unsigned FULL = cupat_dev::FULL_MASK;

/* 2^23 + byte J of w, as a float: the byte into the mantissa of 0x4B000000. */
template <int J>
__device__ __forceinline__ float byte_f(uint32_t w)
{
    return __int_as_float((int)__byte_perm(w, 0x4B000000u, 0x7540u + J));
}

/* V[s] += entering - leaving for the lane's samples s: (2^23 + a) - (2^23 + b)
 * is exact, and so is every sum below 2^24. Floats, not integers: adds go to
 * the FP32 pipes (128 lanes an SM a clock) rather than the integer ALU (64). */
template <int C>
__device__ __forceinline__ void slide(float (&V)[4 * C], const uint32_t (&in)[C],
                                      const uint32_t (&out)[C])
{
#pragma unroll
    for (int k = 0; k < C; k++) {
        V[4 * k + 0] += byte_f<0>(in[k]) - byte_f<0>(out[k]);
        V[4 * k + 1] += byte_f<1>(in[k]) - byte_f<1>(out[k]);
        V[4 * k + 2] += byte_f<2>(in[k]) - byte_f<2>(out[k]);
        V[4 * k + 3] += byte_f<3>(in[k]) - byte_f<3>(out[k]);
    }
}

/* floor(H / count) for an integer H < 2^24 and count <= 33^2, given
 * inv = fl(1/count) and hb = fl(0.5 inv - 0.5): t = H inv + hb is
 * (H + 0.5) / count - 0.5 within 3e-5, and that lies at least 0.5 / count
 * (>= 4.6e-4) inside (q - 0.5, q + 0.5) for q = floor(H / count); adding
 * 1.5 * 2^23 rounds t to q, which lands in the low byte of the float's bits. */
__device__ __forceinline__ uint32_t blur_mean(float H, float inv, float hb)
{
    return __float_as_uint(fmaf(H, inv, hb) + 12582912.0f);
}

/* The row of means of a step, from the column sums V of the lane's 4 pixels.
 * K < 4: r = K, the window reaches one lane each side: its r nearest sums
 * arrive by shuffles (2 r a channel) and the window slides along the lane's
 * pixels. K = 5..7: r > 4 with M = r mod 4 = K - 4: the prefix form (see the
 * head of this file), the window's ends q = r / 4 lanes or one more away.
 * K = 8..11: r = 4 (K - 7): lane totals (below).
 * EDGE: windows cut by the image's border, each pixel's own count ny nx[p];
 * otherwise all full, count (2r + 1)^2 (inv, hb). */
template <int C, int K, bool EDGE>
__device__ __forceinline__ void row_means(const float (&V)[4 * C], int q, float inv,
                                          float hb, int ny, const int (&nx)[4],
                                          uint32_t (&res)[C])
{
    float ie[4], he[4];
    if (EDGE)
#pragma unroll
        for (int p = 0; p < 4; p++) {
            ie[p] = __frcp_rn((float)(ny * nx[p]));
            he[p] = 0.5f * ie[p] - 0.5f;
        }
    uint32_t F[4 * C]; /* sample p C + c: a float whose low byte is the mean */
#pragma unroll
    for (int c = 0; c < C; c++) {
        float H[4];
        /* r >= 4: the lane's inclusive prefix of its 4 column sums (dead code below 4) */
        const float L0 = V[c], L1 = L0 + V[C + c], L2 = L1 + V[2 * C + c],
                    L3 = L2 + V[3 * C + c];
        if (K < 4) {
            constexpr int R = K < 4 ? K : 0;
            float X[4 + 2 * R]; /* the sums of pixels -R .. 3 + R of the lane */
#pragma unroll
            for (int p = 0; p < 4; p++) X[R + p] = V[p * C + c];
#pragma unroll
            for (int j = 1; j <= R; j++) {
                X[R - j] = __shfl_up_sync(FULL, X[R + 4 - j], 1);
                X[R + 3 + j] = __shfl_down_sync(FULL, X[R + j - 1], 1);
            }
            float t = X[0];
#pragma unroll
            for (int j = 1; j <= 2 * R; j++) t += X[j];
            H[0] = t;
#pragma unroll
            for (int p = 1; p < 4; p++) H[p] = H[p - 1] + (X[p + 2 * R] - X[p - 1]);
        } else if (K >= 8) {
            /* r = 4Q: the window of pixel p is lane l - Q from p on, lanes
             * l - Q + 1 .. l + Q - 1, lane l + Q up to p; with the lane totals
             * T and the lane's inclusive prefix L: S = sum of T over lanes
             * l - Q .. l + Q - 1 (by doubling), less L(l - Q) at p - 1, plus
             * L(l + Q) at p. 9 shuffles for r = 8 (the prefix form: 13), and
             * no 5-step scan chain. */
            constexpr int Q = K >= 8 ? K - 7 : 1;
            float S;
            if (Q == 1) {
                S = L3 + __shfl_up_sync(FULL, L3, 1);
            } else {
                const float P2 = L3 + __shfl_down_sync(FULL, L3, 1); /* T(l), T(l + 1) */
                if (Q == 2) {
                    S = P2 + __shfl_up_sync(FULL, P2, 2);
                } else {
                    const float P4 = P2 + __shfl_down_sync(FULL, P2, 2); /* T(l .. l + 3) */
                    if (Q == 3) {
                        S = __shfl_up_sync(FULL, P4, 3) + __shfl_down_sync(FULL, P2, 1);
                    } else {
                        const float P8 = P4 + __shfl_down_sync(FULL, P4, 4);
                        S = __shfl_up_sync(FULL, P8, 4);
                    }
                }
            }
            const float a0 = __shfl_up_sync(FULL, L0, Q), a1 = __shfl_up_sync(FULL, L1, Q),
                        a2 = __shfl_up_sync(FULL, L2, Q);
            const float b0 = __shfl_down_sync(FULL, L0, Q), b1 = __shfl_down_sync(FULL, L1, Q),
                        b2 = __shfl_down_sync(FULL, L2, Q), b3 = __shfl_down_sync(FULL, L3, Q);
            H[0] = S + b0;
            H[1] = (S - a0) + b1;
            H[2] = (S - a1) + b2;
            H[3] = (S - a2) + b3;
        } else {
            constexpr int M = K >= 4 ? K - 4 : 0;
            const float S = cupat_dev::warp_inclusive_scan(L3, cupat_dev::OpSum{});
            const float E = S - L3;
            /* Qe[k]: the sum of V over the segment's pixels before the lane's pixel k. */
            const float Qe[5] = {E, E + L0, E + L1, E + L2, S};
#pragma unroll
            for (int p = 0; p < 4; p++) {
                /* window [x - r, x + r] of x = 4 lane + p: Qe at x + r + 1 less Qe at x - r */
                const float A = __shfl_down_sync(FULL, Qe[((p + M) & 3) + 1], q + ((p + M) >> 2));
                const float B = __shfl_up_sync(FULL, Qe[(p - M + 4) & 3], q + (p < M ? 1 : 0));
                H[p] = A - B;
            }
        }
#pragma unroll
        for (int p = 0; p < 4; p++)
            F[p * C + c] = EDGE ? blur_mean(H[p], ie[p], he[p]) : blur_mean(H[p], inv, hb);
    }
#pragma unroll
    for (int k = 0; k < C; k++)
        res[k] = __byte_perm(__byte_perm(F[4 * k], F[4 * k + 1], 0x0040u),
                             __byte_perm(F[4 * k + 2], F[4 * k + 3], 0x0040u), 0x5410u);
}

/* The window's rows (or columns) inside [0, n) around y: a count of 1 to 2r + 1. */
__device__ __forceinline__ int win_count(int y, int r, int n)
{
    return (y + r < n ? y + r : n - 1) - (y > r ? y - r : 0) + 1;
}

/* The window's columns inside the image for the lane's 4 pixels from x0 (1
 * outside the image: never written); returns whether a written pixel of the
 * warp has a window that leaves the image (the counting path). */
__device__ __forceinline__ bool window_cols(int x0, int w, int r, bool writes, int (&nx)[4])
{
#pragma unroll
    for (int p = 0; p < 4; p++) nx[p] = (unsigned)(x0 + p) < (unsigned)w ? win_count(x0 + p, r, w) : 1;
    return __any_sync(FULL, writes && x0 < w && (x0 < r || x0 + 3 + r >= w));
}

/* f(std::integral_constant<int, K>{}) for the row_means form K of radius r:
 * K = r below 4; 5..7 for the prefix form (r mod 4 = K - 4); 8..11 for r =
 * 4 (K - 7). Radii above 16 are not the kernels' (callers check). */
template <class F>
auto with_form(int r, F &&f)
{
    using std::integral_constant;
    switch (r < 4 ? r : (r & 3) ? 4 + (r & 3) : 7 + r / 4) {
    case 0: return f(integral_constant<int, 0>{});
    case 1: return f(integral_constant<int, 1>{});
    case 2: return f(integral_constant<int, 2>{});
    case 3: return f(integral_constant<int, 3>{});
    case 5: return f(integral_constant<int, 5>{});
    case 6: return f(integral_constant<int, 6>{});
    case 7: return f(integral_constant<int, 7>{});
    case 8: return f(integral_constant<int, 8>{});
    case 9: return f(integral_constant<int, 9>{});
    case 10: return f(integral_constant<int, 10>{});
    default: return f(integral_constant<int, 11>{});
    }
}

/* f(std::integral_constant<int, C>{}) for a channel count of 1 to 4;
 * otherwise CUPAT_ERROR_INTERNAL (cupat_blur checked it). */
template <class F>
cupat_status with_channels(cupat_ctx *ctx, int channels, F &&f)
{
    using std::integral_constant;
    switch (channels) {
    case 1: return f(integral_constant<int, 1>{});
    case 2: return f(integral_constant<int, 2>{});
    case 3: return f(integral_constant<int, 3>{});
    case 4: return f(integral_constant<int, 4>{});
    }
    return cupat__fail(ctx, CUPAT_ERROR_INTERNAL, "blur: channels = %d", channels);
}

} // namespace blur_dev

#endif
