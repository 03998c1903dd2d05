/* transpose_cpu.c — the CPU backend of cupat_transpose (OpenMP) and the
 * reference the tests hold the GPU rungs against. */
#include "transpose_internal.h"

#include <stdint.h>

/* Naive: one output row (= input column) an iteration; writes stream,
 * reads jump a row of `in` each step. */
#define NAIVE(T)                                                                         \
    static void naive_##T(size_t rows, size_t cols, const T *in, size_t ld_in, T *out,   \
                          size_t ld_out)                                                 \
    {                                                                                    \
        _Pragma("omp parallel for schedule(static)") for (size_t x = 0; x < cols; x++)   \
            for (size_t y = 0; y < rows; y++) out[x * ld_out + y] = in[y * ld_in + x];   \
    }

/* Cache-blocked: 32 x 32 blocks, whose 32 input and 32 output rows stay in
 * L1 while the block is copied; threads take block rows. */
#define BLOCKED(T)                                                                       \
    static void blocked_##T(size_t rows, size_t cols, const T *in, size_t ld_in, T *out, \
                            size_t ld_out)                                               \
    {                                                                                    \
        const size_t B = 32;                                                             \
        _Pragma("omp parallel for collapse(2) schedule(static)") for (size_t y0 = 0;     \
                                                                     y0 < rows; y0 += B) \
            for (size_t x0 = 0; x0 < cols; x0 += B) {                                    \
                size_t y1 = y0 + B < rows ? y0 + B : rows;                               \
                size_t x1 = x0 + B < cols ? x0 + B : cols;                               \
                for (size_t x = x0; x < x1; x++)                                         \
                    for (size_t y = y0; y < y1; y++) out[x * ld_out + y] = in[y * ld_in + x]; \
            }                                                                            \
    }

NAIVE(uint32_t)
NAIVE(uint64_t)
BLOCKED(uint32_t)
BLOCKED(uint64_t)

void cupat__transpose_cpu(int rung, size_t rows, size_t cols, size_t elem_size,
                          const void *in, size_t ld_in, void *out, size_t ld_out)
{
    if (elem_size == 4) {
        if (rung == TR_CPU_NAIVE) naive_uint32_t(rows, cols, in, ld_in, out, ld_out);
        else blocked_uint32_t(rows, cols, in, ld_in, out, ld_out);
    } else {
        if (rung == TR_CPU_NAIVE) naive_uint64_t(rows, cols, in, ld_in, out, ld_out);
        else blocked_uint64_t(rows, cols, in, ld_in, out, ld_out);
    }
}
