// SPDX-License-Identifier: Apache-2.0
// conv2d_columns.cu — the "columns" rung's dispatch: which calls it takes
// (cupat__conv2d_columns_fits) and the f32 instances (square 1, 3, 5, 7, 9,
// one channel); the kernel is in conv2d_columns.cuh, the 8-bit instances in
// conv2d_columns_u8.cu. Everything else runs regtile_vec (conv2d_book.cu).
#include "conv2d/conv2d_columns.cuh"

using namespace cupat_conv;

namespace {

bool odd_upto(int k, int most) { return k >= 1 && k <= most && k % 2 == 1; }

// The f32 9x9 runs six pixels a lane (24 bytes: three 8-byte loads) where a
// row splits into them: each tap a uniform load brings and each row's
// shuffles serve 6 outputs instead of 4.
bool fits6(const conv2d_req *r) { return r->w % 6 == 0; }

} // namespace

int cupat__conv2d_columns_fits(const conv2d_req *r)
{
    // a lane reads and writes 4 whole pixels a row with aligned loads
    if (r->mode != CONV_OUT_PLAIN || r->kw != r->kh || r->w % 4 != 0) return 0;
    if (r->h >= ((size_t)1 << 30)) return 0; // rows in int
    const uintptr_t in = (uintptr_t)r->in, out = (uintptr_t)r->out;
    size_t align, ipb, opb;
    if (r->type == CUPAT_PIXEL_F32) {
        if (r->C != 1 || !odd_upto(r->kw, 9)) return 0;
        align = 16, ipb = r->ip * 4, opb = r->op * 4; // one 16-byte load a lane
    } else {
        if (r->C == 1) {
            if (!odd_upto(r->kw, 9)) return 0;
            align = 4; // one 32-bit word a lane
        } else if (r->C == 3 || r->C == 4) {
            if (!odd_upto(r->kw, 5)) return 0;
            align = r->C == 4 ? 16 : 4; // 16 bytes, or three words
        } else {
            return 0;
        }
        ipb = r->ip, opb = r->op;
    }
    if (in % align || out % align || ipb % align || opb % align) return 0;
    // warps (segments x chunks) are counted in 32 bits
    const size_t seg = (r->w + col::CX * col::PX - 1) / (col::CX * col::PX);
    const size_t chunks = (r->h + col::min_chunk(r->kw) - 1) / col::min_chunk(r->kw);
    return chunks <= ((size_t)1 << 31) / seg;
}

cupat_status cupat__conv2d_columns_f32(cupat_ctx *ctx, const conv2d_req *r)
{
    switch (r->kw) {
    case 1: return col::launch<float, 1, 1>(ctx, r);
    case 3: return col::launch<float, 1, 3>(ctx, r);
    case 5: return col::launch<float, 1, 5>(ctx, r);
    case 7: return col::launch<float, 1, 7>(ctx, r);
    case 9: // six pixels a lane where the rows split into them (fits6)
        return fits6(r) ? col::launch<float, 1, 9, 6>(ctx, r) : col::launch<float, 1, 9>(ctx, r);
    }
    return cupat__fail(ctx, CUPAT_ERROR_INTERNAL, "cupat_conv2d: columns has no f32 kw = %d",
                       r->kw);
}
