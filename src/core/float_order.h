/* SPDX-License-Identifier: Apache-2.0 */
/* float_order.h — the host side of the IEEE 754-2019 minimum / maximum rules
 * every CPU backend shares (reduce, scan): the quiet NaN min/max return on
 * every backend (0x7fc00000 / 0x7ff8000000000000, as the GPU's fminmax), and
 * an order key that sorts non-NaN floats as -inf < ... < -0 < +0 < ... < +inf. */
#ifndef CUPAT_FLOAT_ORDER_H
#define CUPAT_FLOAT_ORDER_H

#include <math.h>
#include <stdint.h>
#include <string.h>

static const float QNAN_F = (float)NAN;
static const double QNAN_D = NAN;

/* Order key of a non-NaN float as a signed integer (-0 below +0). */
static inline int32_t okey_f(float v)
{
    int32_t b;
    memcpy(&b, &v, 4);
    return b ^ (int32_t)((uint32_t)(b >> 31) & 0x7fffffffu);
}
static inline int64_t okey_d(double v)
{
    int64_t b;
    memcpy(&b, &v, 8);
    return b ^ (int64_t)((uint64_t)(b >> 63) & 0x7fffffffffffffffull);
}

#endif
