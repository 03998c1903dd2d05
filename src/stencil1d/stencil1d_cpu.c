/* SPDX-License-Identifier: Apache-2.0 */
/* stencil1d_cpu.c — the CPU backend and reference of cupat_stencil1d: the
 * same chain of fmaf in the same order as every GPU rung, so results match
 * bit for bit. fmaf is exact wherever it runs; with the FMA instruction it
 * is one instruction instead of a library routine, so x86 hosts that have
 * it take a clone of the loop compiled for it. */
#include "stencil1d_internal.h"

#include <math.h>

static inline void stencil_range(size_t lo, size_t hi, size_t n, size_t r, const float *c,
                                 const float *in, float *out)
{
    for (size_t i = lo; i < hi; i++) {
        float acc = 0.0f;
        if (i >= r && i + r < n) { /* the whole window inside: no bounds tests */
            const float *x = in + i - r;
            for (size_t j = 0; j <= 2 * r; j++) acc = fmaf(c[j], x[j], acc);
            out[i] = acc;
            continue;
        }
        for (size_t j = 0; j <= 2 * r; j++) {
            /* in[i + j - r], zero outside [0, n) */
            float x = (i + j >= r && i + j - r < n) ? in[i + j - r] : 0.0f;
            acc = fmaf(c[j], x, acc);
        }
        out[i] = acc;
    }
}

static void stencil_generic(size_t n, size_t r, const float *c, const float *in, float *out)
{
#pragma omp parallel for schedule(static)
    for (size_t b = 0; b < n; b += 4096)
        stencil_range(b, b + 4096 < n ? b + 4096 : n, n, r, c, in, out);
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("fma"))) static void stencil_fma(size_t n, size_t r, const float *c,
                                                       const float *in, float *out)
{
#pragma omp parallel for schedule(static)
    for (size_t b = 0; b < n; b += 4096)
        stencil_range(b, b + 4096 < n ? b + 4096 : n, n, r, c, in, out);
}
#endif

void cupat__stencil1d_cpu(size_t n, int radius, const float *coeffs, const float *in,
                          float *out)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (__builtin_cpu_supports("fma")) {
        stencil_fma(n, (size_t)radius, coeffs, in, out);
        return;
    }
#endif
    stencil_generic(n, (size_t)radius, coeffs, in, out);
}
