// SPDX-License-Identifier: Apache-2.0
// conv2d_regtile_f32.cu — the regtile rungs' f32 instances (R = 0..15); the
// kernel is in conv2d_regtile.cuh. Split from the u8 instances so the two
// compile in parallel.
#include "conv2d/conv2d_regtile.cuh"

cupat_status cupat__conv2d_regtile_f32(cupat_ctx *ctx, const cupat_conv::Img &g,
                                       const float *dtaps, bool vec)
{
    return cupat_conv::rt_launch<float>(ctx, g, dtaps, vec);
}
