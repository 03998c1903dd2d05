// SPDX-License-Identifier: Apache-2.0
// conv2d_columns_u8.cu — the "columns" rung's 8-bit instances: one channel
// square 1..9, three and four channels square 1, 3, 5 (their kh x 12 or
// kh x 16 partial sums a lane: bigger filters would spill). The kernel is in
// conv2d_columns.cuh; cupat__conv2d_columns_fits (conv2d_columns.cu) says
// which calls come here.
#include "conv2d/conv2d_columns.cuh"

using namespace cupat_conv;

cupat_status cupat__conv2d_columns_u8(cupat_ctx *ctx, const conv2d_req *r)
{
#define COL_CASE(CH, KS) \
    if (r->C == CH && r->kw == KS) return col::launch<uint8_t, CH, KS>(ctx, r);
    COL_CASE(1, 1) COL_CASE(1, 3) COL_CASE(1, 5) COL_CASE(1, 7) COL_CASE(1, 9)
    COL_CASE(3, 1) COL_CASE(3, 3) COL_CASE(3, 5)
    COL_CASE(4, 1) COL_CASE(4, 3) COL_CASE(4, 5)
#undef COL_CASE
    return cupat__fail(ctx, CUPAT_ERROR_INTERNAL, "cupat_conv2d: columns has no u8 C = %d kw = %d",
                       r->C, r->kw);
}
