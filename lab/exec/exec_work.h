/* SPDX-License-Identifier: Apache-2.0 */
/* exec_work.h — the arithmetic the execution-model lab's kernels do, written
 * once for the device and the host model (exec_lab.c), so every output the
 * GPU writes is checked against the same function on the CPU, bit for bit.
 * C and CUDA both include it; nothing here allocates or launches. */
#ifndef CUPAT_LAB_EXEC_WORK_H
#define CUPAT_LAB_EXEC_WORK_H

#include <stdint.h>

#if defined(__CUDACC__)
#define EXEC_HD __host__ __device__ __forceinline__
#else
#define EXEC_HD static inline
#endif

/* A thread's starting value (a multiplicative hash of its index). */
EXEC_HD uint32_t exec_seed(uint32_t i)
{
    return i * 2654435761u + 1u;
}

/* The two long branch bodies of the divergence kernels: structurally
 * different loops, so the compiler cannot merge them into one loop with a
 * selected constant (then the branch would be gone). */
EXEC_HD uint32_t exec_lcg(uint32_t x, int iters)
{
    for (int i = 0; i < iters; i++) x = x * 1664525u + 1013904223u;
    return x;
}
EXEC_HD uint32_t exec_xorshift(uint32_t x, int iters)
{
    for (int i = 0; i < iters; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
    }
    return x;
}
/* Path p (0..31) of the 32-way switch: a rotate by p % 31 + 1 (1 .. 31) and
 * an add of a constant that depends on p. On the device each p is its own loop (a
 * template instantiation); this is the same arithmetic with p a variable. */
EXEC_HD uint32_t exec_way(uint32_t x, int p, int iters)
{
    const unsigned r = (unsigned)p % 31u + 1u;
    const uint32_t k = 0x9E3779B9u * ((unsigned)p + 1u);
    for (int i = 0; i < iters; i++) x = ((x << r) | (x >> (32u - r))) + (x ^ k);
    return x;
}

/* Word i of the bytes-in-flight sweep's input. */
EXEC_HD uint32_t exec_mlp_word(uint32_t i)
{
    return exec_seed(i) ^ (i >> 7);
}

/* Float i of the register-cliff input: in [0, 1) on a 2^-24 grid. */
EXEC_HD float exec_cliff_in(uint32_t i)
{
    return (float)(exec_seed(i) >> 8) * 0x1p-24f;
}
/* The cliff kernel's work: CLIFF_NACC accumulators a thread, each
 * acc[j] = fma(acc[j], c_j, v[j % 4]) for every float4 v the thread reads
 * (c_j = 0.5 + j / 128, exact), summed in order at the end. 56 live floats
 * plus addresses: about 70 registers when nothing bounds them. */
#define CLIFF_NACC 56
EXEC_HD float exec_cliff_coef(int j)
{
    return 0.5f + (float)j * 0.0078125f;
}

/* The Mandelbrot dwell of pixel (px, py): the escape count of z = z^2 + c
 * for c = (x0 + px dx, y0 + py dy), at most max_dwell. Every operation is
 * one rounded float operation (no contraction on either side), so host and
 * device give the same dwell. */
#if defined(__CUDA_ARCH__)
#define EXEC_MUL(a, b) __fmul_rn((a), (b))
#define EXEC_ADD(a, b) __fadd_rn((a), (b))
#define EXEC_SUB(a, b) __fsub_rn((a), (b))
#else
#define EXEC_MUL(a, b) ((float)((a) * (b)))
#define EXEC_ADD(a, b) ((float)((a) + (b)))
#define EXEC_SUB(a, b) ((float)((a) - (b)))
#endif
EXEC_HD int exec_dwell(int px, int py, float x0, float y0, float dx, float dy, int max_dwell)
{
    const float cr = EXEC_ADD(x0, EXEC_MUL((float)px, dx));
    const float ci = EXEC_ADD(y0, EXEC_MUL((float)py, dy));
    float zr = cr, zi = ci;
    int d = 0;
    for (;;) {
        const float zr2 = EXEC_MUL(zr, zr), zi2 = EXEC_MUL(zi, zi);
        if (d >= max_dwell || EXEC_ADD(zr2, zi2) >= 4.0f) break;
        zi = EXEC_ADD(EXEC_MUL(EXEC_ADD(zr, zr), zi), ci);
        zr = EXEC_ADD(EXEC_SUB(zr2, zi2), cr);
        d++;
    }
    return d;
}
/* Mariani-Silver's border test: the common dwell of two, -1 none yet, -2
 * they differ. */
#define EXEC_DWELL_NONE (-1)
#define EXEC_DWELL_DIFF (-2)
EXEC_HD int exec_same_dwell(int a, int b)
{
    if (a == b) return a;
    if (a == EXEC_DWELL_NONE) return b;
    if (b == EXEC_DWELL_NONE) return a;
    return EXEC_DWELL_DIFF;
}
/* Border pixel i (0 .. 4d-1) of the d x d square at (x0, y0): the top row,
 * the bottom row, the left column, the right column. */
EXEC_HD void exec_border_pixel(int i, int x0, int y0, int d, int *px, int *py)
{
    const int side = i / d, k = i % d;
    if (side == 0) *px = x0 + k, *py = y0;
    else if (side == 1) *px = x0 + k, *py = y0 + d - 1;
    else if (side == 2) *px = x0, *py = y0 + k;
    else *px = x0 + d - 1, *py = y0 + k;
}

#endif
