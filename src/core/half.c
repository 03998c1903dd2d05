/* half.c — the 16-bit float storage types (cupat_f16, cupat_bf16) and TF32
 * rounding on the host: the conversions every pattern with half-precision
 * data uses for its CPU rung and its references.
 *
 * All of it is integer work on the bit patterns, so the result is the same
 * whatever the compiler does with float arithmetic (no F16C, no flush to
 * zero, no x87 excess precision). Rounding is IEEE 754 round to nearest,
 * ties to even: add half an ulp minus one, plus the lowest kept bit, then
 * truncate; the carry walks into the exponent by itself, so the largest
 * values overflow to infinity and the largest subnormals round up to the
 * smallest normal without special cases. */
#include "cupat.h"

#include <stdint.h>
#include <string.h>

static uint32_t f32_bits(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static float bits_f32(uint32_t u)
{
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* Round u's low `drop` bits away (ties to even); the result is still shifted. */
static uint32_t round_drop(uint32_t u, int drop)
{
    uint32_t half_minus_1 = (1u << (drop - 1)) - 1u;
    return (u + half_minus_1 + ((u >> drop) & 1u)) >> drop;
}

#define F32_ABS 0x7fffffffu
#define F32_INF 0x7f800000u
#define F32_QUIET 0x00400000u

cupat_f16 cupat_f32_to_f16(float x)
{
    const uint32_t u = f32_bits(x);
    const uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    const uint32_t a = u & F32_ABS;
    cupat_f16 h;
    if (a > F32_INF) { /* NaN: quiet, the payload's top 9 bits after the quiet bit */
        h.bits = (uint16_t)(sign | 0x7e00u | ((a >> 13) & 0x1ffu));
    } else if (a >= 0x477ff000u) { /* >= 65520 (and inf): the midpoint above 65504 */
        h.bits = (uint16_t)(sign | 0x7c00u);
    } else if (a >= 0x38800000u) { /* >= 2^-14: normal; rebias 127 -> 15 */
        h.bits = (uint16_t)(sign | round_drop(a - (112u << 23), 13));
    } else if (a > 0x33000000u) { /* (2^-25, 2^-14): the subnormal grid of 2^-24 */
        /* value = m 2^(e - 150) = (m >> (126 - e)) 2^-24, e in [102, 112]
         * (f32 subnormals, e = 0, lie far below 2^-25) */
        const uint32_t e = a >> 23, m = (a & 0x7fffffu) | 0x800000u;
        h.bits = (uint16_t)(sign | round_drop(m, (int)(126u - e)));
    } else { /* <= 2^-25, half the smallest subnormal: ties to even give 0 */
        h.bits = sign;
    }
    return h;
}

float cupat_f16_to_f32(cupat_f16 h)
{
    const uint32_t sign = (uint32_t)(h.bits & 0x8000u) << 16;
    const uint32_t e = (h.bits >> 10) & 0x1fu, m = h.bits & 0x3ffu;
    if (e == 0x1f) /* inf, or NaN made quiet with its payload */
        return bits_f32(sign | F32_INF | (m << 13) | (m ? F32_QUIET : 0u));
    if (e != 0) return bits_f32(sign | ((e + 112u) << 23) | (m << 13));
    if (m == 0) return bits_f32(sign);
    /* subnormal m 2^-24: normalize, m = 1.f 2^(s) with s the top bit's place */
    int s = 9;
    while (!(m >> s)) s--;
    return bits_f32(sign | ((uint32_t)(s - 24 + 127) << 23) | ((m << (23 - s)) & 0x7fffffu));
}

cupat_bf16 cupat_f32_to_bf16(float x)
{
    const uint32_t u = f32_bits(x);
    cupat_bf16 b;
    if ((u & F32_ABS) > F32_INF) /* NaN: quiet, the payload's top 6 bits kept */
        b.bits = (uint16_t)((u >> 16) | 0x0040u);
    else /* the same rounding covers subnormals, overflow and inf */
        b.bits = (uint16_t)round_drop(u, 16);
    return b;
}

float cupat_bf16_to_f32(cupat_bf16 b)
{
    uint32_t u = (uint32_t)b.bits << 16;
    if ((u & F32_ABS) > F32_INF) u |= F32_QUIET;
    return bits_f32(u);
}

float cupat_f32_to_tf32(float x)
{
    const uint32_t u = f32_bits(x);
    if ((u & F32_ABS) > F32_INF) return bits_f32((u | F32_QUIET) & ~0x1fffu);
    return bits_f32(round_drop(u, 13) << 13);
}
