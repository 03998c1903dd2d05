// SPDX-License-Identifier: Apache-2.0
// conv2d_regtile_u8.cu — the regtile rungs' 8-bit instances (R = 0..15); the
// kernel is in conv2d_regtile.cuh.
#include "conv2d/conv2d_regtile.cuh"

cupat_status cupat__conv2d_regtile_u8(cupat_ctx *ctx, const cupat_conv::Img &g,
                                      const float *dtaps, bool vec)
{
    return cupat_conv::rt_launch<uint8_t>(ctx, g, dtaps, vec);
}
