// SPDX-License-Identifier: Apache-2.0
// access_offset.cuh — PCCP 4.3's readOffset / writeOffset / readOffsetUnroll4
// and their launch, in one place for the two objects that compile them:
// access.cu (the release build, `cupat lab access offset`, `lab memory
// segment`) and access_debug.cu (the same source under -G, `lab memory
// debug`). Everything here has internal linkage, so each object keeps its own
// copy and the kernel names stay lab_* for ncu (-k regex:lab_).
#pragma once

#include "access.h"

/* Loads start `offset` floats past a 128-byte boundary: offsets that are not
 * multiples of 8 (32 bytes) make each warp's 128 bytes straddle 5 sectors
 * instead of 4 (load efficiency 80%). */
static __global__ void lab_read_offset(const float *__restrict__ a, const float *__restrict__ b,
                                       float *__restrict__ c, size_t m, size_t offset)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < m;
         i += (size_t)gridDim.x * blockDim.x)
        c[i] = a[i + offset] + b[i + offset];
}

/* The misalignment moves to the store side: stores write whole 32-byte
 * sectors, so a warp's 128 misaligned bytes cost 5 sector writes. */
static __global__ void lab_write_offset(const float *__restrict__ a, const float *__restrict__ b,
                                        float *__restrict__ c, size_t m, size_t offset)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < m;
         i += (size_t)gridDim.x * blockDim.x)
        c[i + offset] = a[i] + b[i];
}

/* Four elements a thread, blockDim apart, all loads issued before the adds:
 * more independent requests in flight per thread (PCCP's readSegmentUnroll). */
static __global__ void lab_read_offset_unroll4(const float *__restrict__ a, const float *__restrict__ b,
                                               float *__restrict__ c, size_t m, size_t offset)
{
    const size_t bd = blockDim.x;
    for (size_t i = (size_t)blockIdx.x * bd * 4 + threadIdx.x; i < m;
         i += (size_t)gridDim.x * bd * 4) {
        float x[4], y[4];
#pragma unroll
        for (int u = 0; u < 4; u++) {
            size_t k = i + u * bd;
            x[u] = k < m ? a[k + offset] : 0.0f;
            y[u] = k < m ? b[k + offset] : 0.0f;
        }
#pragma unroll
        for (int u = 0; u < 4; u++)
            if (i + u * bd < m) c[i + u * bd] = x[u] + y[u];
    }
}

/* Blocks of `per` elements that cover m (the book's grid), at most 2^30:
 * beyond, the kernels' grid-stride loops take the rest. */
static inline unsigned lab_blocks_for(size_t m, size_t per)
{
    const size_t b = (m + per - 1) / per, cap = (size_t)1 << 30;
    return (unsigned)(b < cap ? b : cap);
}

/* grid 0: the book's grid (one element a thread, four for UNROLL4); else
 * `grid` blocks, each thread looping over the rest. */
static inline cupat_status lab_offset_launch(cupat_ctx *ctx, int kind, const float *a, const float *b, float *c,
                                             size_t n, size_t offset, unsigned block, unsigned grid)
{
    if (offset > n || block == 0 || block > 1024 || grid > (1u << 30))
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab offset: offset = %zu, n = %zu, block = %u, grid = %u",
                           offset, n, block, grid);
    const size_t m = n - offset;
    if (m == 0) return CUPAT_SUCCESS;
    cudaStream_t s = ctx->stream;
    switch (kind) {
    case LAB_READ_OFFSET:
        lab_read_offset<<<grid ? grid : lab_blocks_for(m, block), block, 0, s>>>(a, b, c, m, offset);
        return cupat__launched(ctx, "lab_read_offset");
    case LAB_WRITE_OFFSET:
        lab_write_offset<<<grid ? grid : lab_blocks_for(m, block), block, 0, s>>>(a, b, c, m, offset);
        return cupat__launched(ctx, "lab_write_offset");
    case LAB_READ_OFFSET_UNROLL4:
        lab_read_offset_unroll4<<<grid ? grid : lab_blocks_for(m, 4 * (size_t)block), block, 0, s>>>(a, b, c, m,
                                                                                                      offset);
        return cupat__launched(ctx, "lab_read_offset_unroll4");
    }
    return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab offset: kind = %d", kind);
}
