// SPDX-License-Identifier: Apache-2.0
/* blur_columns.cu — cupat_blur's columns rung (the default on devices and images the
 * tensor-core rung cannot take): the box blur in one pass over the image, no
 * shared memory, no barrier.
 *
 * A warp owns a segment of a row band: lane l holds 4 consecutive pixels
 * (4 C bytes) and the warp walks down (or up) a chunk of rows.
 *   vertical:   V = the column sums of the 2r + 1 rows around the current one,
 *               kept in registers; a step adds the entering row and takes away
 *               the leaving one (read again: L1 saw it 2r + 1 steps before).
 *   horizontal: r < 4: the r nearest column sums of each neighbouring lane
 *               come by shuffles and the window slides along the lane's 4
 *               pixels. r = 4, 8, 12, 16: the totals of the lanes the window
 *               covers (doubling shuffles) and the prefixes of its two end
 *               lanes. Other r: an inclusive prefix Q of V along the segment (3
 *               adds in a lane, a 5-step warp scan a channel); the window sum
 *               of pixel x is Q(x + r) - Q(x - r - 1): two shuffles whatever r.
 *   the mean:   floor(H / count) by one FMA and one add (see blur_mean).
 * Lanes within ceil(r / 4) of the warp's ends only feed their neighbours'
 * windows (the segments overlap by that halo), so r <= 16 keeps 24 of 32
 * lanes writing; wider radii run the separable rung.
 *
 * Everything is exact: samples enter as floats 2^23 + byte (one byte_perm, no
 * conversion instruction) and every sum is an integer below 2^24. Pixels and
 * rows outside the image are zeros and count = valid rows x valid columns, so
 * the bytes are those of the truncated integer mean over the window's pixels
 * inside the image, as every blur rung gives.
 *
 * Chunks: consecutive rows of one segment split into chunks run by different
 * warps (one wave of them); each chunk first sums the 2r rows before its
 * first output (read by the neighbouring chunk too). Even chunks walk down and
 * odd ones up, so two neighbouring chunks reach their shared rows at the same
 * time and the second read is an L2 hit rather than DRAM. */
#include "elementwise.h"
#include "blur_columns.cuh"

#include <cuda_runtime.h>
#include <stdint.h>

namespace {

using namespace blur_dev;

constexpr int BC_WARPS = 8; /* warps a block */
constexpr int DEPTH = 2;    /* entering rows in flight a warp (4 measured no faster) */
constexpr int WARM = 8;     /* warm-up rows requested at a time */

/* The lane's 4 C bytes of a row at p (the row's start plus the lane's column);
 * zeros where the row is outside the image (row_ok false) or a byte outside
 * the row (in[b] false). AL: image and rows aligned to a lane's vector (16, 8,
 * 4 bytes for C = 4, 2, 1; words for C = 3), so each vector is wholly inside or
 * outside (the lane's column is a multiple of 4 C bytes) and in[0] / in[4k]
 * stands for it. Predicated loads, no branches. */
template <int C, bool AL>
__device__ __forceinline__ void load_row(const uint8_t *p, bool row_ok, const bool (&in)[4 * C],
                                         uint32_t (&wd)[C])
{
#pragma unroll
    for (int k = 0; k < C; k++) wd[k] = 0;
    if (AL) {
        /* Volatile: the load stays where it is written, DEPTH steps before its
         * use (the compiler otherwise sinks loads to their use, as
         * conv2d_columns found). Predicated in PTX: no branch. */
        const int ok = row_ok && in[0];
        if (C == 4)
            asm volatile("{ .reg .pred q; setp.ne.s32 q, %4, 0;\n\t"
                         "@q ld.global.nc.v4.u32 {%0, %1, %2, %3}, [%5]; }"
                         : "+r"(wd[0]), "+r"(wd[1 % C]), "+r"(wd[2 % C]), "+r"(wd[3 % C])
                         : "r"(ok), "l"(p));
        else if (C == 2)
            asm volatile("{ .reg .pred q; setp.ne.s32 q, %2, 0;\n\t"
                         "@q ld.global.nc.v2.u32 {%0, %1}, [%3]; }"
                         : "+r"(wd[0]), "+r"(wd[1 % C])
                         : "r"(ok), "l"(p));
        else
#pragma unroll
            for (int k = 0; k < C; k++)
                asm volatile("{ .reg .pred q; setp.ne.s32 q, %1, 0;\n\t"
                             "@q ld.global.nc.u32 %0, [%2]; }"
                             : "+r"(wd[k])
                             : "r"((int)(row_ok && in[4 * k])), "l"(p + 4 * k));
    } else {
#pragma unroll
        for (int k = 0; k < C; k++)
#pragma unroll
            for (int j = 0; j < 4; j++)
                if (row_ok && in[4 * k + j]) wd[k] |= (uint32_t)__ldg(p + 4 * k + j) << (8 * j);
    }
}

/* The lane's means to its column at p, where ok (per byte; AL as load_row).
 * C = 3 stores three words at a 12-byte stride: each instruction writes a
 * third of every 32-byte sector of the warp's row. Staging the row through
 * shared memory for three coalesced stores cut the L2 traffic (120 -> 88 MB at
 * 3840x2160) but measured 6% slower (0.0265 -> 0.0281 ms, radius 1). */
template <int C, bool AL>
__device__ __forceinline__ void store_row(uint8_t *p, const bool (&ok)[4 * C], const uint32_t (&wd)[C])
{
    if (AL && C == 4) {
        if (ok[0]) *(uint4 *)p = make_uint4(wd[0], wd[1 % C], wd[2 % C], wd[3 % C]);
    } else if (AL && C == 2) {
        if (ok[0]) *(uint2 *)p = make_uint2(wd[0], wd[1 % C]);
    } else {
#pragma unroll
        for (int k = 0; k < C; k++) {
            if (AL) {
                if (ok[4 * k]) *(uint32_t *)(p + 4 * k) = wd[k];
            } else {
#pragma unroll
                for (int j = 0; j < 4; j++)
                    if (ok[4 * k + j]) p[4 * k + j] = (uint8_t)(wd[k] >> (8 * j));
            }
        }
    }
}

/* Sizes are ints here: cupat__blur_columns_fits keeps w C and h below 2^30. */
template <int C, int K, bool AL>
__global__ void __launch_bounds__(BC_WARPS * 32, C == 4 ? 2 : K <= 1 ? 4 : 3)
    blur_columns(int w, int h, int r, int nseg, int nchunk, int rows, float inv, float hb,
                 const uint8_t *__restrict__ in, uint8_t *__restrict__ out)
{
    const int lane = threadIdx.x & 31;
    const long long gw = (long long)blockIdx.x * BC_WARPS + (threadIdx.x >> 5);
    if (gw >= (long long)nseg * nchunk) return; /* a whole warp */
    const int seg = (int)(gw % nseg), chunk = (int)(gw / nseg);
    const int q = r >> 2, hl = (r + 3) >> 2; /* halo lanes at each end */
    const int x0 = seg * (4 * (32 - 2 * hl)) - 4 * hl + 4 * lane; /* lane's first pixel */
    const int rb = w * C, bo = x0 * C;
    const bool writes = lane >= hl && lane < 32 - hl;
    bool inside[4 * C], wr[4 * C]; /* the lane's byte b lies in the row; and is written */
#pragma unroll
    for (int b = 0; b < 4 * C; b++) {
        inside[b] = (unsigned)(bo + b) < (unsigned)rb;
        wr[b] = writes && inside[b];
    }
    int nx[4];
    const bool edge_cols = window_cols(x0, w, r, writes, nx);

    const int c0 = chunk * rows, c1 = rows < h - c0 ? c0 + rows : h;
    const int dir = (chunk & 1) ? -1 : 1; /* odd chunks walk up */
    const int ys = dir > 0 ? c0 : c1 - 1, nout = c1 - c0;
    const long long step = (long long)dir * rb;
    const uint8_t *col = in + bo; /* the lane's column; read only where inside */

    uint8_t *pw = out + bo + (long long)ys * rb;
    float V[4 * C];
#pragma unroll
    for (int s = 0; s < 4 * C; s++) V[s] = 0.f;
    /* Step i's means from V, to output row ys + dir i. */
    auto emit = [&](int i) {
        const int y = ys + dir * i;
        const int ny = win_count(y, r, h);
        uint32_t res[C]; /* the means, byte p C + c of the lane for pixel p, channel c */
        if (edge_cols || ny != 2 * r + 1)
            row_means<C, K, true>(V, q, inv, hb, ny, nx, res);
        else
            row_means<C, K, false>(V, q, inv, hb, ny, nx, res);
        store_row<C, AL>(pw, wr, res);
        pw += step;
    };

    if constexpr (K <= 2) {
        /* r <= 2: the window's rows stay in registers, a ring of RS rows: step
         * i's entering row in slot i mod RS, loaded DEPTH steps before, leaves
         * 2r + 1 steps after from the same slot (no second read). The warm-up's
         * 2r rows are steps -2r .. -1's entering rows; slot -2r - 1 is zeros
         * (nothing leaves at step 0). */
        constexpr int R = K, RS = 2 * R + 1 + DEPTH;
        uint32_t ring[RS][C];
        int yn = ys + dir * r;
        const uint8_t *pn = col + (long long)yn * rb;
#pragma unroll
        for (int u = 0; u < DEPTH; u++) {
            load_row<C, AL>(pn, u < nout && (unsigned)yn < (unsigned)h, inside, ring[u]);
            yn += dir, pn += step;
        }
#pragma unroll
        for (int k = 0; k < C; k++) ring[DEPTH][k] = 0;
#pragma unroll
        for (int j = 0; j < 2 * R; j++) {
            const int y = ys + dir * (j - R);
            load_row<C, AL>(col + (long long)y * rb, (unsigned)y < (unsigned)h, inside,
                            ring[DEPTH + 1 + j]);
        }
#pragma unroll
        for (int j = 0; j < 2 * R; j++) slide<C>(V, ring[DEPTH + 1 + j], ring[DEPTH]);
        for (int i0 = 0; i0 < nout; i0 += RS) {
#pragma unroll
            for (int u = 0; u < RS; u++) {
                const int i = i0 + u;
                if (i < nout) {
                    const int lv = (u + DEPTH) % RS; /* the leaving row's slot, then step i + DEPTH's */
                    slide<C>(V, ring[u], ring[lv]);
                    load_row<C, AL>(pn, i + DEPTH < nout && (unsigned)yn < (unsigned)h, inside,
                                    ring[lv]);
                    yn += dir, pn += step;
                    emit(i);
                }
            }
        }
    } else {
        /* The entering and leaving rows of the next DEPTH steps are in flight
         * (step i's in nw, ow[i mod DEPTH]; a leaving row is an L1 or L2 hit:
         * it entered 2r + 1 steps before). None leaves at the first step. The
         * first DEPTH are requested before the warm-up's rows, so the two wait
         * once. */
        uint32_t nw[DEPTH][C], ow[DEPTH][C];
        int yn = ys + dir * r, yo = ys - dir * (r + 1);
        const uint8_t *pn = col + (long long)yn * rb, *po = col + (long long)yo * rb;
#pragma unroll
        for (int u = 0; u < DEPTH; u++) {
            load_row<C, AL>(pn, u < nout && (unsigned)yn < (unsigned)h, inside, nw[u]);
            load_row<C, AL>(po, u > 0 && u < nout && (unsigned)yo < (unsigned)h, inside, ow[u]);
            yn += dir, pn += step, yo += dir, po += step;
        }

        /* Warm-up: the window of the first output row, less its entering row;
         * WARM rows' loads at a time. */
        const uint32_t none[C] = {};
        for (int t0 = -r; t0 < r; t0 += WARM) {
            uint32_t wd[WARM][C];
#pragma unroll
            for (int u = 0; u < WARM; u++) {
                const int y = ys + dir * (t0 + u);
                load_row<C, AL>(col + (long long)y * rb, t0 + u < r && (unsigned)y < (unsigned)h,
                                inside, wd[u]);
            }
#pragma unroll
            for (int u = 0; u < WARM; u++) slide<C>(V, wd[u], none);
        }

        for (int i0 = 0; i0 < nout; i0 += DEPTH) {
#pragma unroll
            for (int u = 0; u < DEPTH; u++) {
                const int i = i0 + u;
                if (i < nout) {
                    slide<C>(V, nw[u], ow[u]);
                    /* Refill: step i + DEPTH's entering and leaving rows. */
                    const bool more = i + DEPTH < nout;
                    load_row<C, AL>(pn, more && (unsigned)yn < (unsigned)h, inside, nw[u]);
                    load_row<C, AL>(po, more && (unsigned)yo < (unsigned)h, inside, ow[u]);
                    yn += dir, pn += step, yo += dir, po += step;
                    emit(i);
                }
            }
        }
    }
}

template <int C, int K>
cupat_status launch(cupat_ctx *ctx, int w, int h, int r, const uint8_t *in, uint8_t *out)
{
    const int vec = C == 3 ? 4 : 4 * C; /* a lane's vector: load_row's AL */
    const bool al4 = ((uintptr_t)in % vec == 0) && ((uintptr_t)out % vec == 0) && ((w * C) % vec == 0);
    const void *kern = al4 ? (const void *)blur_columns<C, K, true> : (const void *)blur_columns<C, K, false>;
    const int hl = (r + 3) / 4;
    const int seg_px = 4 * (32 - 2 * hl);
    const long long nseg = (w + seg_px - 1) / seg_px;
    int per_sm = 0;
    CUPAT_CUDA_TRY(ctx, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kern,
                                                                      BC_WARPS * 32, 0));
    /* One wave of warps; at least 2r + 8 rows a chunk, so the warm-up stays a
     * fraction of a chunk's work. */
    long long wave = (long long)(per_sm > 0 ? per_sm : 1) * (ctx->sm_count > 0 ? ctx->sm_count : 1) *
                     BC_WARPS;
    long long nchunk = wave / nseg;
    long long min_rows = 2LL * r + 8;
    if (nchunk > (h + min_rows - 1) / min_rows) nchunk = (h + min_rows - 1) / min_rows;
    if (nchunk < 1) nchunk = 1;
    const long long rows = (h + nchunk - 1) / nchunk;
    nchunk = (h + rows - 1) / rows;
    const long long blocks = (nseg * nchunk + BC_WARPS - 1) / BC_WARPS;
    const float inv = 1.0f / (float)((2 * r + 1) * (2 * r + 1)), hb = 0.5f * inv - 0.5f;
    if (al4)
        blur_columns<C, K, true><<<(unsigned)blocks, BC_WARPS * 32, 0, ctx->stream>>>(
            w, h, r, (int)nseg, (int)nchunk, (int)rows, inv, hb, in, out);
    else
        blur_columns<C, K, false><<<(unsigned)blocks, BC_WARPS * 32, 0, ctx->stream>>>(
            w, h, r, (int)nseg, (int)nchunk, (int)rows, inv, hb, in, out);
    return cupat__launched(ctx, "blur_columns");
}

template <int C>
cupat_status launch_c(cupat_ctx *ctx, int w, int h, int r, const uint8_t *in, uint8_t *out)
{
    return with_form(r, [&](auto k) { return launch<C, decltype(k)::value>(ctx, w, h, r, in, out); });
}

} // namespace

int cupat__blur_columns_fits(size_t width, size_t height, int channels, int radius)
{
    /* int offsets in the kernel: a row's bytes and the rows below 2^31, with
     * room for a segment's halo past the row's end */
    return radius >= 0 && radius <= BL_COLUMNS_MAX_R && width * (size_t)channels < ((size_t)1 << 30) &&
           height < ((size_t)1 << 30);
}

cupat_status cupat__blur_columns_cuda(cupat_ctx *ctx, size_t width, size_t height, int channels,
                                      int radius, const uint8_t *in, uint8_t *out)
{
    const int w = (int)width, h = (int)height;
    return with_channels(ctx, channels, [&](auto c) { return launch_c<decltype(c)::value>(ctx, w, h, radius, in, out); });
}
