// SPDX-License-Identifier: Apache-2.0
// conv2d_columns.cuh — the "columns" rung: no shared memory, no barrier.
// A warp is one row segment of 32 lanes; a lane owns 4 consecutive pixels
// (f32 C = 1: 16 bytes, one load a row; u8: 4C bytes, C 32-bit words; the
// f32 9x9 on widths a multiple of 6 owns 6: three 8-byte loads, and each
// tap's uniform load and each row's shuffles serve 6 outputs, at 128
// registers, two blocks an SM: measured 7% faster than 4 pixels) and
// walks DOWN its column of outputs over a chunk of CZ rows, everything in
// registers:
//   - the chain is i outer, so each input row, as it arrives (increasing y),
//     starts the chain of the output it is filter row 0 for, continues the
//     ones it is row i for and ends the one it is row kh - 1 for, which is
//     then stored: kh partial sums an owned sample. Within the row the taps
//     j = 0..kw-1 run in order: the documented chain, the same bits.
//   - x neighbours: the lane's 4 pixels plus rx on each side; the sides come
//     from the neighbouring lanes by shuffles (rx <= 4), the warp's end lanes
//     load the neighbouring segment's 4 pixels themselves, and the lanes at
//     the image's left and right edges fill the outside positions by the
//     border rule from their own window (every mapped x of an edge lies in
//     it; fixed register indices, see edge_mode). Rows above / below the
//     image are the border-mapped rows (ZERO: a row of zeros, halo included).
//   - the next row is loaded a step ahead by volatile asm (the compiler
//     otherwise sinks the load to its use; as stencil3d_columns.cu found).
// Taps are kernel parameters (the constant bank: FFMA's operand, no load).
// The kh partial-sum slots rotate: slot (S - i) mod kh holds the output that
// takes filter row i at step S of a group of U steps, so inside a group the
// slots are names, and after it they shift by U (register moves, unless the
// allocator coalesces them). U = 1: unrolled over the kh steps, ptxas
// overlapped the steps and took 96-183 registers for f32 5x5..9x9 (spilling
// when capped); one step a trip: 64 (5x5, 7x7) and 80 (9x9).
// Chunks overlap by kh - 1 input rows (re-read), and the first and last kh - 1
// steps of a chunk also run the chains of rows outside it (computed, never
// stored: cheaper than a branch a filter row).
// Instances: square 1, 3, 5, 7, 9 for f32 C = 1 and u8 C = 1, square 1, 3,
// 5 for u8 C = 3 and C = 4 (conv2d_columns.cu, conv2d_columns_u8.cu);
// cupat__conv2d_columns_fits says which calls they take; others run
// regtile_vec.
#pragma once

#include "conv2d/conv2d_dev.cuh"

#include <stdint.h>

namespace cupat_conv {
namespace col {

constexpr int CX = 32;   // lanes a warp: one row segment of 128 pixels
constexpr int CY = 8;    // warps a block (consecutive segments of one chunk)
constexpr int PX = 4;    // pixels a lane
constexpr unsigned FULL = 0xffffffffu;

// Rows a chunk (CZ, chosen at launch): chains of kh - 1 rows outside it are
// computed and kh - 1 input rows re-read, (kh - 1) / CZ of the work; shorter
// chunks give more warps. The launch picks the shortest chunks (at least
// min_chunk) that keep the warps within one wave of resident blocks, so no
// tail of late blocks (7680 x 4320, 5x5 at 4 blocks an SM: 60 segments x
// 70 chunks of 62 rows; 9x9 at 3: 52 chunks of 84); a taller image walks
// chunks of up to MAX_CHUNK rows in more waves.
constexpr int min_chunk(int K) { return 4 * (K - 1) > 16 ? 4 * (K - 1) : 16; }
constexpr int MAX_CHUNK = 512;
// Steps the row loop is unrolled (see the header; a tuning knob).
constexpr int unroll(int) { return 1; }

template <int N>
struct Taps {
    float k[N];
};

// 32-bit words a lane's P pixels (4, or 6 for the f32 9x9) take.
template <class T, int C, int P = PX>
constexpr int words()
{
    return P * C * (int)sizeof(T) / 4;
}

// NW words at p (aligned to their size: one v4 load for 16 bytes),
// non-coherent path; volatile: it stays where it is written.
template <int NW>
__device__ __forceinline__ void ld_words(uint32_t (&v)[NW], const uint32_t *p)
{
    if constexpr (NW == 4) {
        asm volatile("ld.global.nc.v4.u32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3])
                     : "l"(p));
    } else if constexpr (NW == 6) { // 24 bytes: 8-byte aligned
        asm volatile("ld.global.nc.v2.u32 {%0, %1}, [%6];\n\t"
                     "ld.global.nc.v2.u32 {%2, %3}, [%6+8];\n\t"
                     "ld.global.nc.v2.u32 {%4, %5}, [%6+16];"
                     : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3]), "=r"(v[4]), "=r"(v[5])
                     : "l"(p));
    } else if constexpr (NW == 3) {
        asm volatile("ld.global.nc.u32 %0, [%3];\n\t"
                     "ld.global.nc.u32 %1, [%3+4];\n\t"
                     "ld.global.nc.u32 %2, [%3+8];"
                     : "=r"(v[0]), "=r"(v[1]), "=r"(v[2])
                     : "l"(p));
    } else {
        static_assert(NW == 1, "words a lane: 1, 3, 4 or 6");
        asm volatile("ld.global.nc.u32 %0, [%1];" : "=r"(v[0]) : "l"(p));
    }
}

template <int NW>
__device__ __forceinline__ void st_words(uint32_t *p, const uint32_t (&v)[NW])
{
    if constexpr (NW == 4) {
        *reinterpret_cast<uint4 *>(p) = make_uint4(v[0], v[1], v[2], v[3]);
    } else if constexpr (NW == 6) {
#pragma unroll
        for (int i = 0; i < 3; i++) reinterpret_cast<uint2 *>(p)[i] = make_uint2(v[2 * i], v[2 * i + 1]);
    } else {
#pragma unroll
        for (int i = 0; i < NW; i++) p[i] = v[i];
    }
}

// Sample s of a lane's words as a float. u8, exactly: the byte as the low
// mantissa bits of 2^23 (one byte permute), minus 2^23; cheaper than an
// integer-to-float conversion (a quarter-rate unit).
template <class T, int NW>
__device__ __forceinline__ float sample(const uint32_t (&w)[NW], int s)
{
    if constexpr (sizeof(T) == 4) {
        return __uint_as_float(w[s]);
    } else {
        const uint32_t bits = __byte_perm(w[s >> 2], 0x4b000000u, 0x7440u | (unsigned)(s & 3));
        return __fsub_rn(__uint_as_float(bits), 8388608.0f);
    }
}

// What an edge lane does with its window positions outside the image
// (computed once a chunk): bit 0 the left side is outside (x0 = 0), bit 1
// the right side (x0 + 4 = w), bits 2-3 how they are filled: 0 zeros
// (ZERO), 1 the edge pixel (CLAMP), 2 the reflection (MIRROR: pixel k
// outside takes pixel k inside, which lies in the window for k <= R < w),
// 3 a mirror that folds more than once (w <= R: w = 4, R = 4), by the
// shared rule position by position. 0: not an edge lane.
template <int R, int P>
__device__ __forceinline__ int edge_mode(long long x0, long long w, int border)
{
    if (R == 0) return 0;
    const int m = (x0 == 0 ? 1 : 0) | (x0 + P == w ? 2 : 0);
    if (!m) return 0;
    const int how = border == CUPAT_BORDER_ZERO    ? 0
                    : border == CUPAT_BORDER_CLAMP ? 1
                    : w > R                        ? 2
                                                   : 3;
    return m | how << 2;
}

struct Args {
    const unsigned char *in;
    unsigned char *out;
    long long w, h, ipb, opb; // pixels, rows, pitches in bytes
    unsigned nseg, nwarps;    // row segments, segments x chunks (< 2^31: fits)
    int cz, border;           // rows a chunk, border rule
};

// One row's window: win[c][p] = channel c of pixel x0 - R + p.
template <class T, int C, int R, int P>
struct Window {
    float v[C][P + 2 * R];
};

template <class T, int C, int R, int P>
__device__ __forceinline__ void make_window(Window<T, C, R, P> &win,
                                            const uint32_t (&own)[words<T, C, P>()],
                                            const uint32_t (&halo)[words<T, C, P>()], int lane,
                                            int emode, long long w)
{
    constexpr int NW = words<T, C, P>(), ES = (int)sizeof(T), PX = P;
    constexpr int WL = (PX - R) * C * ES / 4;      // first word the left side needs
    constexpr int WR = (R * C * ES + 3) / 4;       // words the right side needs
    uint32_t L[NW], Rt[NW];
#pragma unroll
    for (int i = 0; i < NW; i++) {
        L[i] = Rt[i] = 0;
        if (R > 0 && i >= WL) {
            L[i] = __shfl_up_sync(FULL, own[i], 1);
            if (lane == 0) L[i] = halo[i];
        }
        if (R > 0 && i < WR) {
            Rt[i] = __shfl_down_sync(FULL, own[i], 1);
            if (lane == CX - 1) Rt[i] = halo[i];
        }
    }
#pragma unroll
    for (int c = 0; c < C; c++)
#pragma unroll
        for (int p = 0; p < PX + 2 * R; p++) {
            if (p < R) win.v[c][p] = sample<T>(L, (PX - R + p) * C + c);
            else if (p < R + PX) win.v[c][p] = sample<T>(own, (p - R) * C + c);
            else win.v[c][p] = sample<T>(Rt, (p - R - PX) * C + c);
        }
    if constexpr (R > 0) {
        if (emode) { // the image's left or right edge (a few lanes)
            const bool left = emode & 1, right = emode & 2;
            const int how = emode >> 2;
            if (how == 3) { // w = 4 = R under MIRROR: x0 = 0, every source is the lane's own
#pragma unroll
                for (int q = 0; q < 2 * R; q++) {
                    const int p = q < R ? q : PX + q;
                    const int src = (int)conv_map_near(p - R, w, CUPAT_BORDER_MIRROR) + R;
#pragma unroll
                    for (int c = 0; c < C; c++) {
                        float v = 0.0f;
#pragma unroll
                        for (int r = R; r < R + PX; r++)
                            if (r == src) v = win.v[c][r];
                        win.v[c][p] = v;
                    }
                }
            } else {
#pragma unroll
                for (int c = 0; c < C; c++)
#pragma unroll
                    for (int k = 1; k <= R; k++) {
                        // left before right: with both sides outside (w = 4)
                        // the sources are the lane's own pixels (k <= R < 4)
                        if (left)
                            win.v[c][R - k] = how == 0   ? 0.0f
                                              : how == 1 ? win.v[c][R]
                                                         : win.v[c][R + k];
                        if (right)
                            win.v[c][R + PX - 1 + k] = how == 0   ? 0.0f
                                                       : how == 1 ? win.v[c][R + PX - 1]
                                                                  : win.v[c][R + PX - 1 - k];
                    }
            }
        }
    }
}

template <class T, int C, int K, int PX>
__device__ __forceinline__ void columns_body(const Args &a, const Taps<K * K> &k)
{
    constexpr int R = K / 2, NW = words<T, C, PX>(), NS = PX * C, U = unroll(K);
    const int CZ = a.cz;
    constexpr int LB = PX * C * (int)sizeof(T); // bytes a lane a row
    const int lane = threadIdx.x;
    // warp wv: segment wv mod nseg of chunk wv / nseg (32-bit: a 64-bit
    // division is a called routine, and its calling convention costs registers)
    for (unsigned wv = blockIdx.x * CY + threadIdx.y; wv < a.nwarps; wv += gridDim.x * CY) {
        const unsigned ch = wv / a.nseg, seg = wv - ch * a.nseg;
        const long long x0 = ((long long)seg * CX + lane) * PX;
        const long long ys = (long long)ch * CZ;
        const int n = (int)(a.h - ys < CZ ? a.h - ys : CZ);
        const bool xin = x0 < a.w;
        // the warp's end lanes load the next segment's pixels (not past the image)
        const bool hx = (lane == 0 && x0 > 0) || (lane == CX - 1 && x0 + PX < a.w);
        const int hoff = lane == 0 ? -LB : LB;
        const int emode = xin ? edge_mode<R, PX>(x0, a.w, a.border) : 0;
        const long long xb = x0 * C * (long long)sizeof(T);
        unsigned char *ob = a.out + xb + ys * a.opb; // the next output row to store
        // input row t of the chunk is image row y0 + t, t in [0, nt)
        const int y0 = (int)ys - R; // rows < 2^30 (fits)
        const int nt = n + K - 1;
        // Every lane loads both words every row, without a predicate (a
        // predicated load must keep its old value: the loop then copied the
        // ring's registers; measured 3.5% of the 9x9's time): a lane past the
        // image reads the row's first words and a lane that is not an end
        // lane its own words again (an L1 hit); neither value reaches a
        // stored output (the image's edge lanes overwrite what they shuffle
        // in from beyond it, see make_window).
        const long long xo = xin ? xb : 0;
        const long long xh = R > 0 && hx ? xb + hoff : xo;
        uint32_t nxt[NW], hnx[NW];
#pragma unroll
        for (int i = 0; i < NW; i++) nxt[i] = hnx[i] = 0;
        // Input row t's byte offset while it lies in the image, kept by one
        // add a step: the border map and its 64-bit product run only for the
        // rows above and below the image.
        long long roff = (long long)y0 * a.ipb;
        auto load = [&](int t) {
            const int y = y0 + t;
            long long off = roff;
            if ((unsigned)y >= (unsigned)a.h) { // above or below the image
                const int ym = (int)conv_map_near(y, a.h, a.border);
                if (ym < 0) { // ZERO: a row of zeros
#pragma unroll
                    for (int i = 0; i < NW; i++) nxt[i] = hnx[i] = 0;
                    return;
                }
                off = (long long)ym * a.ipb;
            }
            const unsigned char *row = a.in + off;
            ld_words<NW>(nxt, reinterpret_cast<const uint32_t *>(row + xo));
            if (R > 0) ld_words<NW>(hnx, reinterpret_cast<const uint32_t *>(row + xh));
        };
        float acc[K][NS];
#pragma unroll
        for (int m = 0; m < K; m++)
#pragma unroll
            for (int s = 0; s < NS; s++) acc[m][s] = 0.0f;
        load(0);
        for (int t0 = 0; t0 < nt; t0 += U) {
#pragma unroll
            for (int S = 0; S < U; S++) {
                const int t = t0 + S;
                if (t >= nt) break;
                uint32_t own[NW], halo[NW];
#pragma unroll
                for (int i = 0; i < NW; i++) own[i] = nxt[i], halo[i] = hnx[i];
                roff += a.ipb;               // row t + 1
                if (t + 1 < nt) load(t + 1); // in flight during this step
                Window<T, C, R, PX> win;
                make_window<T, C, R, PX>(win, own, halo, lane, emode, a.w);
                // filter row i of this input row belongs to the output in
                // slot (S - i) mod K (fixed for the group of U steps)
#pragma unroll
                for (int i = 0; i < K; i++) {
                    const int m = ((S - i) % K + K) % K;
#pragma unroll
                    for (int p = 0; p < PX; p++)
#pragma unroll
                        for (int c = 0; c < C; c++) {
                            float v = i == 0 ? 0.0f : acc[m][p * C + c];
#pragma unroll
                            for (int j = 0; j < K; j++)
                                v = fmaf(k.k[i * K + j], win.v[c][p + j], v);
                            acc[m][p * C + c] = v;
                        }
                }
                // the output in slot (S + 1) mod K got its last filter row
                if (t >= K - 1 && xin) {
                    const int m = (S + 1) % K;
                    uint32_t o[NW];
                    if constexpr (sizeof(T) == 4) {
#pragma unroll
                        for (int s = 0; s < NS; s++) o[s] = __float_as_uint(acc[m][s]);
                    } else {
#pragma unroll
                        for (int i = 0; i < NW; i++) o[i] = 0;
#pragma unroll
                        for (int s = 0; s < NS; s++)
                            o[s >> 2] |= (uint32_t)conv_u8(acc[m][s]) << (8 * (s & 3));
                    }
                    st_words<NW>(reinterpret_cast<uint32_t *>(ob), o); // row ys + t - (K - 1)
                    ob += a.opb;
                }
            }
            if constexpr (U < K) { // slot m now holds what slot m + U held
                float r[K][NS];
#pragma unroll
                for (int m = 0; m < K; m++)
#pragma unroll
                    for (int s = 0; s < NS; s++) r[m][s] = acc[(m + U) % K][s];
#pragma unroll
                for (int m = 0; m < K; m++)
#pragma unroll
                    for (int s = 0; s < NS; s++) acc[m][s] = r[m][s];
            }
        }
    }
}

// The kernel: the body above inlined (this form measured 0.156 ms on the
// f32 9x9 case, the body written as the kernel itself 0.167; H100, the
// same run's conditions). A "4 blocks an SM" bound spills: 9x9 0.165, RGB
// Gaussian 0.141 (from 0.055).
template <class T, int C, int K, int P>
__global__ void __launch_bounds__(CX *CY) k_columns(Args a, Taps<K * K> k) { columns_body<T, C, K, P>(a, k); }

template <class T, int C, int K, int P = PX>
cupat_status launch(cupat_ctx *ctx, const conv2d_req *r)
{
    Args a;
    a.in = static_cast<const unsigned char *>(r->in);
    a.out = static_cast<unsigned char *>(r->out);
    a.w = (long long)r->w, a.h = (long long)r->h;
    a.ipb = (long long)(r->ip * sizeof(T)), a.opb = (long long)(r->op * sizeof(T));
    a.border = (int)r->border;
    a.nseg = (unsigned)((a.w + CX * P - 1) / (CX * P));
    int per_sm = 0;
    CUPAT_CUDA_TRY(ctx, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k_columns<T, C, K, P>,
                                                                      CX * CY, 0));
    const long long wave =
        (long long)(per_sm > 0 ? per_sm : 1) * (ctx->sm_count > 0 ? ctx->sm_count : 1) * CY;
    long long per_col = wave / a.nseg > 0 ? wave / a.nseg : 1; // chunks a column in one wave
    long long cz = (a.h + per_col - 1) / per_col;
    if (cz > MAX_CHUNK) { // several waves of chunks of at most MAX_CHUNK rows
        const long long waves = (a.h + per_col * MAX_CHUNK - 1) / (per_col * MAX_CHUNK);
        cz = (a.h + waves * per_col - 1) / (waves * per_col);
    }
    if (cz < min_chunk(K)) cz = min_chunk(K);
    a.cz = (int)cz;
    a.nwarps = (unsigned)(a.nseg * ((a.h + cz - 1) / cz));
    Taps<K * K> k;
    for (int i = 0; i < K * K; i++) k.k[i] = r->k[i];
    k_columns<T, C, K, P><<<grid_for((a.nwarps + CY - 1) / CY), dim3(CX, CY), 0, ctx->stream>>>(a, k);
    return cupat__launched(ctx, "conv2d k_columns");
}

} // namespace col
} // namespace cupat_conv
