/* SPDX-License-Identifier: Apache-2.0 */
/* gemm_tc_epilogue.h — the last step of every cupat_gemm rung, on the host
 * (gemm_tc_cpu.c) and on the device (gemm_tc_*.cu) alike: C's element at
 * `at` becomes alpha s + beta c (beta == 0: C unread; alpha == 0 or k == 0:
 * beta c only), computed in f32 and rounded once to the output type by
 * half_bits.h (ties to even), or for i8 -> i32 in 32-bit unsigned
 * arithmetic, modulo 2^32. One implementation, so every rung writes the same
 * bits for the same sum. */
#ifndef CUPAT_GEMM_TC_EPILOGUE_H
#define CUPAT_GEMM_TC_EPILOGUE_H

#include "gemm/gemm_internal.h"
#include "half_bits.h"

#include <string.h>

CUPAT_HB float cupat__tc_bits_f32(uint32_t u)
{
    float x;
    memcpy(&x, &u, 4);
    return x;
}
CUPAT_HB uint32_t cupat__tc_f32_bits(float x)
{
    uint32_t u;
    memcpy(&u, &x, 4);
    return u;
}

/* C's element at `at` as f32 (F16, BF16 or F32 output). */
CUPAT_HB float cupat__tc_c_load(cupat_gemm_type out, const void *C, size_t at)
{
    const uint16_t *h = (const uint16_t *)C;
    switch (out) {
    case CUPAT_GEMM_F16: return cupat__tc_bits_f32(cupat__f16_bits_to_f32(h[at]));
    case CUPAT_GEMM_BF16: return cupat__tc_bits_f32(cupat__bf16_bits_to_f32(h[at]));
    default: return ((const float *)C)[at];
    }
}

/* Float inputs: s is the f32 sum of the products; the value C's element at
 * `at` gets, in f32, and its bits in a 16-bit output type. */
CUPAT_HB float cupat__tc_value(const cupat_gemm_tc_args *a, size_t at, float s)
{
    float r = a->reads_ab ? a->alpha * s : 0.0f;
    if (a->beta != 0.0f) r = r + a->beta * cupat__tc_c_load(a->out, a->C, at);
    return r;
}
CUPAT_HB uint16_t cupat__tc_half(cupat_gemm_type out, float r)
{
    return out == CUPAT_GEMM_F16 ? cupat__f32_to_f16_bits(cupat__tc_f32_bits(r))
                                 : cupat__f32_to_bf16_bits(cupat__tc_f32_bits(r));
}
CUPAT_HB void cupat__tc_epilogue_f32(const cupat_gemm_tc_args *a, size_t at, float s)
{
    const float r = cupat__tc_value(a, at, s);
    if (a->out == CUPAT_GEMM_F16 || a->out == CUPAT_GEMM_BF16) ((uint16_t *)a->C)[at] = cupat__tc_half(a->out, r);
    else ((float *)a->C)[at] = r;
}
#ifdef __CUDACC__
/* Elements at and at + 1 in one 4-byte (16-bit output) or 8-byte (f32)
 * store: the caller checked that C + at is aligned to it. */
__device__ static inline void cupat__tc_epilogue_f32x2(const cupat_gemm_tc_args *a, size_t at, float s0, float s1)
{
    const float r0 = cupat__tc_value(a, at, s0), r1 = cupat__tc_value(a, at + 1, s1);
    if (a->out == CUPAT_GEMM_F16 || a->out == CUPAT_GEMM_BF16)
        *(uint32_t *)((uint16_t *)a->C + at) =
            (uint32_t)cupat__tc_half(a->out, r0) | (uint32_t)cupat__tc_half(a->out, r1) << 16;
    else *(float2 *)((float *)a->C + at) = make_float2(r0, r1);
}
/* Elements at .. at + 3 in one 8-byte (16-bit output) or 16-byte (f32)
 * store: the caller checked that C + at is aligned to it. Same bits as four
 * cupat__tc_epilogue_f32 calls. */
__device__ static inline void cupat__tc_epilogue_f32x4(const cupat_gemm_tc_args *a, size_t at, float4 s)
{
    const float r0 = cupat__tc_value(a, at, s.x), r1 = cupat__tc_value(a, at + 1, s.y),
                r2 = cupat__tc_value(a, at + 2, s.z), r3 = cupat__tc_value(a, at + 3, s.w);
    if (a->out == CUPAT_GEMM_F16 || a->out == CUPAT_GEMM_BF16)
        *(uint2 *)((uint16_t *)a->C + at) =
            make_uint2((uint32_t)cupat__tc_half(a->out, r0) | (uint32_t)cupat__tc_half(a->out, r1) << 16,
                       (uint32_t)cupat__tc_half(a->out, r2) | (uint32_t)cupat__tc_half(a->out, r3) << 16);
    else *(float4 *)((float *)a->C + at) = make_float4(r0, r1, r2, r3);
}
#endif

/* i8 -> i32: s is the sum modulo 2^32; C's bits read and written as uint32_t
 * (no implementation-defined casts). */
CUPAT_HB void cupat__tc_epilogue_i32(const cupat_gemm_tc_args *a, size_t at, uint32_t s)
{
    uint32_t *C = (uint32_t *)a->C;
    uint32_t r = a->reads_ab ? (uint32_t)a->ialpha * s : 0u;
    if (a->ibeta != 0) r += (uint32_t)a->ibeta * C[at];
    C[at] = r;
}

#endif
