/* SPDX-License-Identifier: Apache-2.0 */
/* conv2d_internal.h — rung numbers of the "conv2d" and "conv2d_sep" ladders
 * (registry order, see conv2d.c), the request both backends take, and the
 * border and rounding rules as host/device functions shared by the CPU
 * reference and every CUDA kernel (one definition, so they cannot drift). */
#ifndef CUPAT_CONV2D_INTERNAL_H
#define CUPAT_CONV2D_INTERNAL_H

#include "internal.h"

#include <math.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum cupat_conv2d_rung {
    CV_BASIC,       /* one thread an output, filter in global memory   PMPP 7.2 */
    CV_CONST,       /* + filter in __constant__ memory                 PMPP 7.3 */
    CV_TILED_IN,    /* block = input tile (halo loaded by threads)     PMPP 7.4 */
    CV_TILED_OUT,   /* block = output tile, loops load the halo        PMPP 7.4 */
    CV_CACHED,      /* tile in shared memory, halo through L1/L2       PMPP 7.5 */
    CV_REGTILE,     /* 8 outputs a thread along a row, register window          */
    CV_REGTILE_VEC, /* + 16-byte global loads and stores                        */
    CV_ASYNC,       /* input tiles by cuda::memcpy_async, 2-stage pipeline      */
    CV_COLUMNS,     /* lanes walk columns of 4 pixels, partial sums in registers */
    CV_CUDA_COUNT,
    CV_SERIAL = CV_CUDA_COUNT,
    CV_OPENMP,
    CV_COUNT
};

enum cupat_conv2d_sep_rung {
    CS_TWO_PASS, /* row pass to a float scratch image, column pass             */
    CS_FUSED,    /* both passes through shared memory in one kernel            */
    CS_CUDA_COUNT,
    CS_SERIAL = CS_CUDA_COUNT,
    CS_OPENMP,
    CS_COUNT
};

/* What the output stage does with the float sum. */
enum { CONV_OUT_PLAIN = 0, /* f32 as is; u8 rounded to even, saturated    */
       CONV_OUT_MEAN = 1   /* u8 only: (int)sum / (pixels of the window that
                            * lie inside the image): cupat_blur's rule     */
};

/* A checked request (sizes > 0). Pitches in elements of the pixel type. */
typedef struct conv2d_req {
    cupat_pixel_type type;
    size_t w, h;
    int C;
    const void *in;
    size_t ip;
    void *out;
    size_t op;
    int kw, kh;
    const float *k;   /* full: kh * kw; separable: NULL                         */
    const float *row; /* separable: kw taps                                     */
    const float *col; /* separable: kh taps                                     */
    cupat_border border;
    int mode; /* CONV_OUT_* */
} conv2d_req;

#ifdef __CUDACC__
#define CONV_HD static __host__ __device__ __forceinline__
#else
#define CONV_HD static inline
#endif

/* Index i (any integer) under the border rule for an axis of n; -1 where
 * the ZERO rule gives 0. MIRROR reflects about the edge sample without
 * repeating it, with period 2 (n - 1). */
CONV_HD long long conv_map(long long i, long long n, int border)
{
    if (i >= 0 && i < n) return i;
    if (border == CUPAT_BORDER_ZERO) return -1;
    if (border == CUPAT_BORDER_CLAMP) return i < 0 ? 0 : n - 1;
    if (n == 1) return 0;
    long long p = 2 * (n - 1);
    i %= p;
    if (i < 0) i += p;
    return i < n ? i : p - i;
}

/* conv_map without a division (a loop of reflections), for kernels that map
 * in their inner loops: the same index for every i (each reflection keeps
 * the index's class modulo 2 (n - 1)); cheap where i is a few samples
 * outside, as a filter's reach is. */
CONV_HD long long conv_map_near(long long i, long long n, int border)
{
    if (i >= 0 && i < n) return i;
    if (border == CUPAT_BORDER_ZERO) return -1;
    if (border == CUPAT_BORDER_CLAMP || n == 1) return i < 0 ? 0 : n - 1;
    while (i < 0 || i >= n) i = i < 0 ? -i : 2 * (n - 1) - i;
    return i;
}

/* The 8-bit output rule: round half to even, saturate, NaN -> 0. */
CONV_HD uint8_t conv_u8(float acc)
{
    float a = rintf(acc);
    return !(a > 0.0f) ? (uint8_t)0 : a >= 255.0f ? (uint8_t)255 : (uint8_t)a;
}

/* Pixels of a (2r+1)-wide window at v that lie in [0, n). */
CONV_HD long long conv_inside(long long v, int r, long long n)
{
    long long lo = v - r < 0 ? 0 : v - r, hi = v + r >= n ? n - 1 : v + r;
    return hi - lo + 1;
}

/* t_zero of the separable form: the row chain over a row of zeros (+0 for
 * finite taps; NaN if a tap is infinite or NaN, as fmaf gives). */
static inline float conv_row_of_zeros(int kw, const float *row)
{
    float t = 0.0f;
    for (int j = 0; j < kw; j++) t = fmaf(row[j], 0.0f, t);
    return t;
}

/* Dynamic shared memory past 48 KiB (CUDA): opt `kernel` in to `most` bytes
 * (the same for every call, so concurrent callers agree); fails with
 * CUPAT_ERROR_NOT_SUPPORTED, naming `fn`, if the device has less than `need`.
 * Also used by stencil3d. */
cupat_status cupat__opt_in_smem(cupat_ctx *ctx, const char *fn, const void *kernel, size_t need,
                                size_t most);

cupat_status cupat__conv2d_cuda(cupat_ctx *ctx, int rung, const conv2d_req *r);
/* Whether the columns rung takes r (conv2d_columns.cu): width a multiple of
 * 4, square kw = kh with an instance (f32 C = 1 and u8 C = 1: 1..9; u8 C = 3,
 * 4: 1..5), the plain output rule, pointers and pitches aligned to a lane's
 * load (f32 and u8 C = 4: 16 bytes; u8 C = 1, 3: 4 bytes). */
int cupat__conv2d_columns_fits(const conv2d_req *r);
cupat_status cupat__conv2d_sep_cuda(cupat_ctx *ctx, int rung, const conv2d_req *r);
void cupat__conv2d_cpu(const conv2d_req *r, int parallel);
cupat_status cupat__conv2d_sep_cpu(cupat_ctx *ctx, const conv2d_req *r, int parallel);
/* cupat_blur's "conv" rung: radius <= 15, the fused separable kernel with a
 * ones filter, zero border and the mean output rule. */
cupat_status cupat__conv2d_blur_cuda(cupat_ctx *ctx, size_t w, size_t h, int C, int radius,
                                     const uint8_t *in, uint8_t *out);

#ifdef __cplusplus
}
#endif
#endif
