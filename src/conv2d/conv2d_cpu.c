/* SPDX-License-Identifier: Apache-2.0 */
/* conv2d_cpu.c — the CPU reference and backend of cupat_conv2d and
 * cupat_conv2d_separable: the documented chains of fmaf in the documented
 * order (full: i outer, j inner; separable: row chains, then the column
 * chain), so every GPU rung is compared bit for bit. "serial" is one thread,
 * "openmp" the same loop over rows in parallel. x86 hosts with FMA take a
 * clone compiled for it (fmaf is exact either way; without the instruction
 * it is a library call). */
#include "conv2d/conv2d_internal.h"

#include <stdlib.h>

static inline float sample(const conv2d_req *r, long long ym, long long xm, int c)
{
    if (ym < 0 || xm < 0) return 0.0f;
    size_t i = (size_t)ym * r->ip + (size_t)xm * r->C + c;
    return r->type == CUPAT_PIXEL_F32 ? ((const float *)r->in)[i]
                                      : (float)((const uint8_t *)r->in)[i];
}

static inline void store(const conv2d_req *r, size_t y, size_t x, int c, float acc)
{
    size_t i = y * r->op + x * r->C + c;
    if (r->type == CUPAT_PIXEL_F32) {
        ((float *)r->out)[i] = acc;
    } else if (r->mode == CONV_OUT_MEAN) {
        long long n = conv_inside((long long)x, r->kw / 2, (long long)r->w) *
                      conv_inside((long long)y, r->kh / 2, (long long)r->h);
        ((uint8_t *)r->out)[i] = (uint8_t)((long long)acc / n);
    } else {
        ((uint8_t *)r->out)[i] = conv_u8(acc);
    }
}

/* One output row of the full filter. ys[i]: the mapped input row of tap row i. */
static inline void full_row(const conv2d_req *r, size_t y, const long long *ys)
{
    const int rx = r->kw / 2, C = r->C;
    for (size_t x = 0; x < r->w; x++)
        for (int c = 0; c < C; c++) {
            float acc = 0.0f;
            for (int i = 0; i < r->kh; i++)
                for (int j = 0; j < r->kw; j++) {
                    long long xm = conv_map((long long)x + j - rx, (long long)r->w, r->border);
                    acc = fmaf(r->k[i * r->kw + j], sample(r, ys[i], xm, c), acc);
                }
            store(r, y, x, c, acc);
        }
}

static inline void full_rows(const conv2d_req *r, int parallel)
{
    const int ry = r->kh / 2;
#pragma omp parallel for schedule(dynamic, 4) if (parallel)
    for (size_t y = 0; y < r->h; y++) {
        long long ys[CUPAT_CONV2D_MAX_K];
        for (int i = 0; i < r->kh; i++)
            ys[i] = conv_map((long long)y + i - ry, (long long)r->h, r->border);
        full_row(r, y, ys);
    }
}

/* Separable: the row chains of every input row into t (h rows of w * C
 * floats), then the column chains; an outside row under ZERO is t0. */
static inline void sep_rows(const conv2d_req *r, float *t, float t0, int parallel)
{
    const int rx = r->kw / 2, C = r->C;
    const size_t wc = r->w * (size_t)C;
#pragma omp parallel for schedule(static) if (parallel)
    for (size_t y = 0; y < r->h; y++)
        for (size_t x = 0; x < r->w; x++)
            for (int c = 0; c < C; c++) {
                float acc = 0.0f;
                for (int j = 0; j < r->kw; j++) {
                    long long xm = conv_map((long long)x + j - rx, (long long)r->w, r->border);
                    acc = fmaf(r->row[j], sample(r, (long long)y, xm, c), acc);
                }
                t[y * wc + x * C + c] = acc;
            }
#pragma omp parallel for schedule(static) if (parallel)
    for (size_t y = 0; y < r->h; y++)
        for (size_t s = 0; s < wc; s++) {
            float acc = 0.0f;
            for (int i = 0; i < r->kh; i++) {
                long long ym = conv_map((long long)y + i - r->kh / 2, (long long)r->h, r->border);
                acc = fmaf(r->col[i], ym < 0 ? t0 : t[(size_t)ym * wc + s], acc);
            }
            store(r, y, s / C, (int)(s % C), acc);
        }
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("fma"))) static void full_fma(const conv2d_req *r, int parallel)
{
    full_rows(r, parallel);
}
__attribute__((target("fma"))) static void sep_fma(const conv2d_req *r, float *t, float t0,
                                                   int parallel)
{
    sep_rows(r, t, t0, parallel);
}
#define HAVE_FMA_CLONE 1
#endif

void cupat__conv2d_cpu(const conv2d_req *r, int parallel)
{
#ifdef HAVE_FMA_CLONE
    if (__builtin_cpu_supports("fma")) {
        full_fma(r, parallel);
        return;
    }
#endif
    full_rows(r, parallel);
}

cupat_status cupat__conv2d_sep_cpu(cupat_ctx *ctx, const conv2d_req *r, int parallel)
{
    size_t bytes;
    void *t;
    CUPAT_TRY(cupat__size_mul(ctx, "cupat_conv2d_separable", "row-pass scratch bytes",
                              r->w * (size_t)r->C, r->h, sizeof(float), &bytes));
    CUPAT_TRY(cupat__scratch(ctx, bytes, &t));
    float t0 = conv_row_of_zeros(r->kw, r->row);
#ifdef HAVE_FMA_CLONE
    if (__builtin_cpu_supports("fma")) {
        sep_fma(r, t, t0, parallel);
        return CUPAT_SUCCESS;
    }
#endif
    sep_rows(r, t, t0, parallel);
    return CUPAT_SUCCESS;
}
