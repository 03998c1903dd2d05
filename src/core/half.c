/* SPDX-License-Identifier: Apache-2.0 */
/* half.c — the 16-bit float storage types (cupat_f16, cupat_bf16) and TF32
 * rounding on the host: the conversions every pattern with half-precision
 * data uses for its CPU rung and its references. The bit work is
 * half_bits.h's, shared with the device code that must round the same way;
 * here only the float <-> bits moves (memcpy: no aliasing, no excess
 * precision, no F16C). */
#include "cupat.h"
#include "half_bits.h"

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

cupat_f16 cupat_f32_to_f16(float x)
{
    cupat_f16 h = {cupat__f32_to_f16_bits(f32_bits(x))};
    return h;
}

float cupat_f16_to_f32(cupat_f16 h) { return bits_f32(cupat__f16_bits_to_f32(h.bits)); }

cupat_bf16 cupat_f32_to_bf16(float x)
{
    cupat_bf16 b = {cupat__f32_to_bf16_bits(f32_bits(x))};
    return b;
}

float cupat_bf16_to_f32(cupat_bf16 b) { return bits_f32(cupat__bf16_bits_to_f32(b.bits)); }

float cupat_f32_to_tf32(float x) { return bits_f32(cupat__f32_to_tf32_bits(f32_bits(x))); }
