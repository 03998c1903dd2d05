/* SPDX-License-Identifier: Apache-2.0 */
/* transpose_cpu.c — the CPU backend of cupat_transpose (OpenMP) and the
 * reference the tests hold the GPU rungs against. Elements are 4- or 8-byte
 * words; T below is uint32_t or uint64_t. */
#include "transpose_internal.h"

#include <stdint.h>

/* Naive: threads take output rows (= input columns); writes stream, reads
 * jump a whole input row each step. */
#define NAIVE_BODY(T)                                                                    \
    const T *src = in;                                                                   \
    T *dst = out;                                                                        \
    _Pragma("omp parallel for schedule(static)")                                         \
    for (size_t x = 0; x < cols; x++)                                                    \
        for (size_t y = 0; y < rows; y++) dst[x * ld_out + y] = src[y * ld_in + x];

/* Cache-blocked: 32 x 32 blocks, whose 32 input and 32 output rows stay in
 * L1 while the block is copied; threads take blocks. */
#define BLOCKED_BODY(T)                                                                  \
    const T *src = in;                                                                   \
    T *dst = out;                                                                        \
    const size_t B = 32;                                                                 \
    _Pragma("omp parallel for collapse(2) schedule(static)")                             \
    for (size_t y0 = 0; y0 < rows; y0 += B)                                              \
        for (size_t x0 = 0; x0 < cols; x0 += B) {                                        \
            size_t y1 = y0 + B < rows ? y0 + B : rows, x1 = x0 + B < cols ? x0 + B : cols; \
            for (size_t x = x0; x < x1; x++)                                             \
                for (size_t y = y0; y < y1; y++) dst[x * ld_out + y] = src[y * ld_in + x]; \
        }

static void naive32(size_t rows, size_t cols, const void *in, size_t ld_in, void *out, size_t ld_out)
{
    NAIVE_BODY(uint32_t)
}
static void naive64(size_t rows, size_t cols, const void *in, size_t ld_in, void *out, size_t ld_out)
{
    NAIVE_BODY(uint64_t)
}
static void blocked32(size_t rows, size_t cols, const void *in, size_t ld_in, void *out,
                      size_t ld_out)
{
    BLOCKED_BODY(uint32_t)
}
static void blocked64(size_t rows, size_t cols, const void *in, size_t ld_in, void *out,
                      size_t ld_out)
{
    BLOCKED_BODY(uint64_t)
}

void cupat__transpose_cpu(int rung, size_t rows, size_t cols, size_t elem_size,
                          const void *in, size_t ld_in, void *out, size_t ld_out)
{
    if (rung == TR_CPU_NAIVE) {
        if (elem_size == 4) naive32(rows, cols, in, ld_in, out, ld_out);
        else naive64(rows, cols, in, ld_in, out, ld_out);
    } else {
        if (elem_size == 4) blocked32(rows, cols, in, ld_in, out, ld_out);
        else blocked64(rows, cols, in, ld_in, out, ld_out);
    }
}
