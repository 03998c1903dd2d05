/* SPDX-License-Identifier: Apache-2.0 */
/* elementwise_cpu.c — the CPU backend's rung "cpu" of the elementwise family
 * (OpenMP). Same arithmetic as the GPU, op for op: saxpy is fmaf, gray is
 * three products and two sums each rounded (this file is built with
 * -ffp-contract=off), blur is integer. */
#include "elementwise.h"

#include <float.h>
#include <math.h>
#include <omp.h>
#include <string.h>

#if FLT_EVAL_METHOD != 0
#error "gray needs float expressions evaluated in float (FLT_EVAL_METHOD == 0)"
#endif

/* Below this many elements a parallel region costs more than it saves. */
#define PAR_MIN ((size_t)1 << 16)

void cupat__ew_cpu(ew_op op, size_t n, float alpha, const float *a, const float *b, float *c)
{
    if (op == EW_OP_AXPY) {
#pragma omp parallel for simd schedule(static) if (n >= PAR_MIN)
        for (size_t i = 0; i < n; i++) c[i] = fmaf(alpha, a[i], b[i]);
    } else {
#pragma omp parallel for simd schedule(static) if (n >= PAR_MIN)
        for (size_t i = 0; i < n; i++) c[i] = a[i] + b[i];
    }
}

void cupat__matadd_cpu(size_t rows, size_t cols, const float *A, size_t lda, const float *B,
                       size_t ldb, float *C, size_t ldc)
{
#pragma omp parallel for schedule(static) if (rows * cols >= PAR_MIN)
    for (size_t y = 0; y < rows; y++) {
        const float *a = A + y * lda, *b = B + y * ldb;
        float *c = C + y * ldc;
#pragma omp simd
        for (size_t x = 0; x < cols; x++) c[x] = a[x] + b[x];
    }
}

void cupat__gray_cpu(size_t width, size_t height, const uint8_t *rgb, size_t rgb_pitch,
                     uint8_t *gray, size_t gray_pitch)
{
#pragma omp parallel for schedule(static) if (width * height >= PAR_MIN)
    for (size_t y = 0; y < height; y++) {
        const uint8_t *p = rgb + y * rgb_pitch;
        uint8_t *g = gray + y * gray_pitch;
        for (size_t x = 0; x < width; x++, p += 3)
            g[x] = (uint8_t)(0.21f * (float)p[0] + 0.71f * (float)p[1] + 0.07f * (float)p[2]);
    }
}

static size_t lo(size_t v, int r) { return v > (size_t)r ? v - r : 0; }
static size_t hi(size_t v, int r, size_t n) { return v + r < n ? v + r : n - 1; }

/* Horizontal box sums of one row, by a running sum per channel. */
static void row_sums(const uint8_t *in, uint16_t *out, size_t w, int C, int r)
{
    for (int c = 0; c < C; c++) {
        unsigned s = 0;
        for (size_t x = 0; x <= hi(0, r, w); x++) s += in[x * C + c];
        for (size_t x = 0; x < w; x++) {
            out[x * C + c] = (uint16_t)s;
            if (x + r + 1 < w) s += in[(x + r + 1) * C + c];
            if (x >= (size_t)r) s -= in[(x - r) * C + c];
        }
    }
}

/* Rows [y0, y1) of the output: a running column sum `s` (w*C ints) slides down. */
static void col_band(const uint16_t *rs, uint8_t *out, size_t w, size_t h, int C, int r,
                     size_t y0, size_t y1, uint32_t *s)
{
    size_t wc = w * C;
    memset(s, 0, wc * sizeof *s);
    for (size_t y = lo(y0, r); y <= hi(y0, r, h); y++)
        for (size_t j = 0; j < wc; j++) s[j] += rs[y * wc + j];
    for (size_t y = y0; y < y1; y++) {
        uint32_t ny = (uint32_t)(hi(y, r, h) - lo(y, r) + 1);
        uint8_t *o = out + y * wc;
        for (size_t x = 0; x < w; x++) {
            uint32_t cnt = ny * (uint32_t)(hi(x, r, w) - lo(x, r) + 1);
            for (int c = 0; c < C; c++) o[x * C + c] = (uint8_t)(s[x * C + c] / cnt);
        }
        if (y + r + 1 < h)
            for (size_t j = 0; j < wc; j++) s[j] += rs[(y + r + 1) * wc + j];
        if (y >= (size_t)r)
            for (size_t j = 0; j < wc; j++) s[j] -= rs[(y - r) * wc + j];
    }
}

/* Separable box blur with running sums: O(1) work per output at any radius.
 * Scratch: the 16-bit row sums, then one column-sum row per thread. */
cupat_status cupat__blur_cpu(cupat_ctx *ctx, size_t w, size_t h, int C, int r,
                             const uint8_t *in, uint8_t *out)
{
    static const char fn[] = "cupat_blur";
    size_t wc = w * C;
    int nt = wc * h >= PAR_MIN ? omp_get_max_threads() : 1;
    if ((size_t)nt > h) nt = (int)h;
    size_t rs_bytes, cs_bytes;
    CUPAT_TRY(cupat__size_mul(ctx, fn, "row-sum scratch bytes", wc, h, sizeof(uint16_t),
                              &rs_bytes));
    rs_bytes = (rs_bytes + 63) & ~(size_t)63;
    CUPAT_TRY(cupat__size_mul(ctx, fn, "column-sum scratch bytes", wc, (size_t)nt,
                              sizeof(uint32_t), &cs_bytes));
    if (rs_bytes + cs_bytes < rs_bytes)
        return cupat__fail(ctx, CUPAT_ERROR_SIZE, "%s: scratch of %zu + %zu bytes overflows",
                           fn, rs_bytes, cs_bytes);
    void *mem;
    CUPAT_TRY(cupat__scratch(ctx, rs_bytes + cs_bytes, &mem));
    uint16_t *rs = mem;
    uint32_t *cs = (uint32_t *)((char *)mem + rs_bytes);

#pragma omp parallel for schedule(static) num_threads(nt)
    for (size_t y = 0; y < h; y++) row_sums(in + y * wc, rs + y * wc, w, C, r);

#pragma omp parallel num_threads(nt)
    {
        size_t t = (size_t)omp_get_thread_num(), T = (size_t)omp_get_num_threads();
        size_t q = h / T, m = h % T; /* rows per thread, first m get one more */
        size_t y0 = t * q + (t < m ? t : m), y1 = y0 + q + (t < m);
        if (y0 < y1) col_band(rs, out, w, h, C, r, y0, y1, cs + t * wc);
    }
    return CUPAT_SUCCESS;
}
