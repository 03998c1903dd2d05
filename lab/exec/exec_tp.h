/* SPDX-License-Identifier: Apache-2.0 */
/* exec_tp.h — the instruction-throughput kernels' arithmetic (CUDA Guide
 * 8.4.1, "Arithmetic Instructions"), written once for the device
 * (exec_throughput.cu) and the host model (exec_tp.c): a thread keeps
 * TP_CHAINS independent values, each step updates every one of them with
 * the instruction measured. Integer steps read the next chain's old value
 * as the second operand (a ring): every intermediate feeds two later
 * instructions, so the compiler cannot fuse two steps into one (two adds
 * into one 3-input IADD3, say). C and CUDA both include it. */
#ifndef CUPAT_LAB_EXEC_TP_H
#define CUPAT_LAB_EXEC_TP_H

#include "exec/exec.h"
#include "exec/exec_work.h"

#include <stdint.h>

#define TP_CHAINS 8 /* independent chains a thread: enough to cover every pipe's latency */
#define TP_UNROLL 4 /* steps a loop iteration */
#define TP_THREADS 256

/* Integer ops' runtime operand: IMAD adds it (2 keeps odd products odd). */
#define TP_IMAD_K 2u

#if defined(__CUDA_ARCH__)
#define TP_POPC(x) ((uint32_t)__popc(x))
#define TP_CLZ(x) ((uint32_t)__clz(x))
#define TP_BREV(x) __brev(x)
#define TP_ROTL(x, s) __funnelshift_l((x), (x), (s)) /* one SHF: the shift taken mod 32 */
#define TP_MUL24(x, y) __umul24((x), (y))
#else
static inline uint32_t tp_popc(uint32_t x)
{
    uint32_t c = 0;
    for (; x; x &= x - 1) c++;
    return c;
}
static inline uint32_t tp_clz(uint32_t x)
{
    uint32_t c = 0;
    for (uint32_t m = 0x80000000u; m && !(x & m); m >>= 1) c++;
    return c;
}
static inline uint32_t tp_brev(uint32_t x)
{
    uint32_t r = 0;
    for (int i = 0; i < 32; i++) r |= ((x >> i) & 1u) << (31 - i);
    return r;
}
#define TP_POPC(x) tp_popc(x)
#define TP_CLZ(x) tp_clz(x)
#define TP_BREV(x) tp_brev(x)
#define TP_ROTL(x, s) (((x) << ((s) & 31u)) | ((x) >> ((32u - ((s) & 31u)) & 31u)))
#define TP_MUL24(x, y) (((x) & 0xFFFFFFu) * ((y) & 0xFFFFFFu))
#endif

/* One integer step of chain j: a = its value, b = the next chain's. */
EXEC_HD uint32_t tp_int_step(int op, uint32_t a, uint32_t b)
{
    switch (op) {
    case LAB_TP_IADD: return a + b;
    case LAB_TP_IMAD: return a * b + TP_IMAD_K;
    case LAB_TP_MUL24: return TP_MUL24(a, b);
    case LAB_TP_SHF: return TP_ROTL(a, b);
    case LAB_TP_POPC: return TP_POPC(a) ^ b;
    case LAB_TP_CLZ: return TP_CLZ(a) ^ b;
    case LAB_TP_BREV: return TP_BREV(a) ^ b;
    }
    return a;
}

/* Chain j of thread t starts at: */
EXEC_HD uint32_t tp_init_u32(uint32_t t, int j)
{
    return exec_seed(t * TP_CHAINS + (uint32_t)j) | 1u; /* odd: products stay nonzero */
}
EXEC_HD float tp_init_f32(uint32_t t, int j)
{
    return (float)((t * TP_CHAINS + (uint32_t)j) % 64u) * 0.0625f + 0.5f; /* 0.5 .. 4.4375 */
}
/* half2: lo and hi as floats, both exact in half. */
EXEC_HD float tp_init_h_lo(uint32_t t, int j)
{
    return (float)((t * TP_CHAINS + (uint32_t)j) % 16u) * 0.25f + 0.25f;
}
EXEC_HD float tp_init_h_hi(uint32_t t, int j)
{
    return (float)((t * TP_CHAINS + (uint32_t)j) % 7u) * 0.5f + 0.25f;
}

/* The floating-point steps' operands. */
#define TP_FADD_B 0.001f
#define TP_FMUL_B 0.99999f
#define TP_FMA_A 0.999f
#define TP_FMA_B 0.001f
#define TP_DFMA_A 0.999
#define TP_DFMA_B 0.001
#define TP_HFMA_A 0.5f
#define TP_HFMA_B 0.25f

#endif
