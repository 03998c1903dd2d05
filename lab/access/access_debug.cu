// SPDX-License-Identifier: Apache-2.0
// access_debug.cu — the offset kernels of access_offset.cuh compiled with -G
// (lab/CMakeLists.txt sets it on this file alone): device code built for
// the debugger, unoptimized, as PCCP 4.3's "Debug build (-g -G -O0)" timed
// readOffset against readOffsetUnroll4. The same source as the release
// kernels in access.cu, so the two builds differ in the flag only.
#include "access_offset.cuh"

extern "C" cupat_status cupat__lab_offset_debug(cupat_ctx *ctx, int kind, const float *a, const float *b, float *c,
                                                size_t n, size_t offset, unsigned block, unsigned grid)
{
    return lab_offset_launch(ctx, kind, a, b, c, n, offset, block, grid);
}
