/* SPDX-License-Identifier: Apache-2.0 */
/* half_bits.h — the bit-level rounding of f32 to f16, bf16 and tf32 and
 * back, shared by the host conversions (half.c) and device code (the
 * tensor-core rungs round their tf32 inputs and f16 / bf16 outputs the same
 * way, bit for bit). Integer work on the bit patterns only: IEEE round to
 * nearest, ties to even, by adding half an ulp minus one plus the lowest kept
 * bit and truncating (the carry walks into the exponent, so overflow to inf
 * and subnormal-to-normal round-ups need no special case); NaNs stay NaN of
 * the same sign, made quiet, with the payload's top bits. */
#ifndef CUPAT_HALF_BITS_H
#define CUPAT_HALF_BITS_H

#include <stdint.h>

#ifdef __CUDACC__
#define CUPAT_HB __host__ __device__ static inline
#else
#define CUPAT_HB static inline
#endif

#define CUPAT_F32_ABS 0x7fffffffu
#define CUPAT_F32_INF 0x7f800000u
#define CUPAT_F32_QUIET 0x00400000u

/* Round u's low `drop` bits away (ties to even); the result is still shifted. */
CUPAT_HB uint32_t cupat__round_drop(uint32_t u, int drop)
{
    uint32_t half_minus_1 = (1u << (drop - 1)) - 1u;
    return (u + half_minus_1 + ((u >> drop) & 1u)) >> drop;
}

CUPAT_HB uint16_t cupat__f32_to_f16_bits(uint32_t u)
{
    const uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    const uint32_t a = u & CUPAT_F32_ABS;
    if (a > CUPAT_F32_INF) /* NaN: quiet, the payload's top 9 bits after the quiet bit */
        return (uint16_t)(sign | 0x7e00u | ((a >> 13) & 0x1ffu));
    if (a >= 0x477ff000u) /* >= 65520 (and inf): the midpoint above 65504 */
        return (uint16_t)(sign | 0x7c00u);
    if (a >= 0x38800000u) /* >= 2^-14: normal; rebias 127 -> 15 */
        return (uint16_t)(sign | cupat__round_drop(a - (112u << 23), 13));
    if (a > 0x33000000u) { /* (2^-25, 2^-14): the subnormal grid of 2^-24 */
        /* value = m 2^(e - 150) = (m >> (126 - e)) 2^-24, e in [102, 112]
         * (f32 subnormals, e = 0, lie far below 2^-25) */
        const uint32_t e = a >> 23, m = (a & 0x7fffffu) | 0x800000u;
        return (uint16_t)(sign | cupat__round_drop(m, (int)(126u - e)));
    }
    return sign; /* <= 2^-25, half the smallest subnormal: ties to even give 0 */
}

CUPAT_HB uint32_t cupat__f16_bits_to_f32(uint16_t h)
{
    const uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    const uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0x1f) /* inf, or NaN made quiet with its payload */
        return sign | CUPAT_F32_INF | (m << 13) | (m ? CUPAT_F32_QUIET : 0u);
    if (e != 0) return sign | ((e + 112u) << 23) | (m << 13);
    if (m == 0) return sign;
    /* subnormal m 2^-24: normalize, m = 1.f 2^(s) with s the top bit's place */
    int s = 9;
    while (!(m >> s)) s--;
    return sign | ((uint32_t)(s - 24 + 127) << 23) | ((m << (23 - s)) & 0x7fffffu);
}

CUPAT_HB uint16_t cupat__f32_to_bf16_bits(uint32_t u)
{
    if ((u & CUPAT_F32_ABS) > CUPAT_F32_INF) /* NaN: quiet, the payload's top 6 bits kept */
        return (uint16_t)((u >> 16) | 0x0040u);
    return (uint16_t)cupat__round_drop(u, 16); /* covers subnormals, overflow and inf */
}

CUPAT_HB uint32_t cupat__bf16_bits_to_f32(uint16_t b)
{
    uint32_t u = (uint32_t)b << 16;
    if ((u & CUPAT_F32_ABS) > CUPAT_F32_INF) u |= CUPAT_F32_QUIET;
    return u;
}

CUPAT_HB uint32_t cupat__f32_to_tf32_bits(uint32_t u)
{
    if ((u & CUPAT_F32_ABS) > CUPAT_F32_INF) return (u | CUPAT_F32_QUIET) & ~0x1fffu;
    return cupat__round_drop(u, 13) << 13;
}

#endif
