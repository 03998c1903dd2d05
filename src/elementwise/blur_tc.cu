// SPDX-License-Identifier: Apache-2.0
/* blur_tc.cu — cupat_blur's default rung: the box sums on the tensor cores.
 *
 * A warp walks a chunk of rows down a strip of 384 output bytes (three
 * sub-strips of 8 segments x 16 bytes). For each row and sub-strip one
 * mma.sync.m16n8k32 (s8 x u8 -> s32) multiplies a constant band A (16 output
 * bytes x 32 input bytes: A[m][k] = 1 where input byte k is a same-channel
 * neighbour of output byte o(m) within r pixels) by the row's bytes as they
 * lie in shared memory (B: 32 input bytes of each segment, 4 a register, a
 * thread's 8 bytes in one 8-byte shared load: the band's k order is
 * permuted to match): the row window sums of 8 segments x 16 bytes. KS such
 * products (32 KS input bytes a segment) cover r C <= 16 KS - 8. The
 * accumulator is the vertical window: a step adds the entering row's product
 * with A and the leaving row's with -A, so it holds the box sum of the
 * step's row; the sums never touch the FP32 or integer pipes. Left for them:
 * the mean, one IMAD.HI by a magic (exact: see blur_magic), two byte packs
 * and two 2-byte shared stores a thread a sub-strip a row.
 *
 * Output byte o(m) = 2 (m & 7) + (m >> 3) of a segment: the accumulator's
 * rows m = g and g + 8 of a thread are then adjacent bytes. Rows come by TMA
 * into a ring and the means leave by TMA stores from a staging box, as in
 * blur_tma.cu (blur_ring.cuh). The sub-strips give each thread independent
 * chains (one measured 0.0266 / 0.0323 ms at r = 1 / 8, two 0.0223 / 0.0311;
 * after the leaner walk of 2026-11-25 two 0.0222 / 0.0298, three 0.0217 /
 * 0.0291 with 96 registers (five blocks an SM at r = 1; at r = 8 shared
 * memory allows four), four 0.0235 / 0.0309).
 * The prologue builds the band from two funnel shifts a word and skips the
 * per-column counts in strips whose windows lie inside the image: with 28
 * rows a chunk, a warp's fixed costs are a fair part of its work.
 *
 * Taken where blur_tma is (cupat__blur_tma_fits) and r >= 1 (r = 0 is a copy,
 * count 1, which has no 32-bit magic: the columns-tma rung). */
#include "elementwise.h"
#include "blur_columns.cuh"
#include "blur_ring.cuh"

#include <cuda_runtime.h>
#include <limits.h>
#include <stdint.h>

namespace {

using namespace blur_dev;

constexpr int NS = 3;  /* sub-strips of 128 bytes a warp (see above) */
constexpr int TRB = 4; /* rows a box and a group of steps (8: 0.0244 ms against 0.0225 at r = 1) */
__host__ __device__ constexpr int tc_row_bytes(int ks) { return 128 * NS + 32 * ks; } /* a load box's row */
/* A warp's shared memory: the ring (nst boxes of TRB rows, a multiple of
 * 128 bytes, so rows lie at a uniform pitch), a staging box, the mbarriers. */
struct TcSmem {
    int ring, bytes;
    __host__ __device__ TcSmem(int ks, int nst)
        : ring(nst * TRB * tc_row_bytes(ks)), bytes(ring + TRB * 128 * NS + ((8 * nst + 127) & ~127))
    {
    }
};

/* The input rows of a chunk: PRE rows above its first window's top row (2
 * for odd r, 4 for even r) put every group's entering rows at the start of a
 * box (2r + PRE is a multiple of TRB) and give step 0 a leaving row, so every
 * step is the same two products; a group's leaving rows start at row LO of a
 * box and run into the next box. */
template <int P> struct TcRows {
    static_assert(TRB == 4, "PRE from r's parity assumes boxes of 4 rows");
    static constexpr int PRE = P ? 2 : 4, LO = (PRE - 1) % TRB;
};

/* A magic for the mean: floor(H / n) = umulhi(H, M) exactly for every box
 * sum H <= 255 n when 2^32 / n <= M and the excess e = M n - 2^32 is below
 * 2^32 / (255 n) (the error H e / 2^32 stays under 1 / n). One IMAD.HI a
 * mean, where the float form takes a convert, an FMA and an add (measured
 * 0.0273 -> 0.0266 ms at r = 1 with one sub-strip). M = ceil(2^32 / n) on the
 * host (e < n); on the device 2^32 times the reciprocal rounded up, as a
 * float (e <= 2^32 2^-23 = 512): both within the bound for 2 <= n <= 33^2
 * (checked for every n and H). */
inline uint32_t blur_magic(int n) { return (uint32_t)((0x100000000ull + (uint64_t)n - 1) / (uint64_t)n); }
__device__ __forceinline__ uint32_t blur_magic_dev(int n) { return __float2uint_ru(4294967296.0f * __frcp_ru((float)n)); }

__device__ __forceinline__ void mma_s8u8(int (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1)
{
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
                 "{%0, %1, %2, %3};"
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

/* tin / tout: the images as rows of wb / 4 words; boxes of 32 NS + 8 KS words
 * x TRB rows (a strip and 16 KS bytes each side) and 32 NS words x TRB rows.
 * mfull: the magic of a window inside the image. P: r & 1 (where a group's
 * leaving rows lie, known to the compiler). */
template <int C, int KS, int P>
__global__ void __launch_bounds__(BT_WARPS * 32, KS <= 2 ? 5 : 3)
    blur_tc(const __grid_constant__ CUtensorMap tin, const __grid_constant__ CUtensorMap tout, int wb, int h, int r,
            int nstrip, int nchunk, int rows, int nst, uint32_t mfull)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    using namespace cupat_tma;
    extern __shared__ __align__(128) unsigned char smem[];
    constexpr int ROWB = tc_row_bytes(KS), BOX = TRB * ROWB, OFF = 16 * KS - 8; /* OFF: output byte 0 in its window */
    constexpr int PRE = TcRows<P>::PRE, LO = TcRows<P>::LO;
    const int lane = threadIdx.x & 31, wib = threadIdx.x >> 5, g = lane >> 2, t = lane & 3;
    const int gw = blockIdx.x * BT_WARPS + wib; /* the launch checks that the warps fit an int */
    if (gw >= nstrip * nchunk) return;          /* a whole warp; no block barrier below */
    const int strip = gw % nstrip, chunk = gw / nstrip;
    const TcSmem L(KS, nst);
    unsigned char *base = smem + (size_t)wib * L.bytes;
    const unsigned ring = smem_addr(base), stg = ring + L.ring;

    /* The first boxes are asked for before anything else: the band and the
     * magics below are computed while they travel. */
    const int c0 = chunk * rows, nout = min(rows, h - c0);
    const int W = 2 * r + PRE; /* input row t (image row c0 - r - PRE + t) at ring row t mod (nst TRB) */
    BoxRing R{&tin, ring, stg + TRB * 128 * NS, BOX, BOX, nst, (W + nout + TRB - 1) / TRB,
              (128 * NS * strip - 16 * KS) / 4, c0 - r - PRE, TRB};
    R.start(lane);

    /* The band, A (entering rows) and -A (leaving), in the mma's A layout,
     * its k slots permuted so that a thread's B operands are 8 KS consecutive
     * bytes of its segment's window (KS 8-byte shared loads): in k-step j,
     * slots 4t .. 4t + 3 are window bytes 8 KS t + 8 j + 0 .. 3 and slots
     * 16 + 4t .. are + 4 .. 7. a0 holds A[g][slots 4t ..], a1 rows g + 8,
     * a2 / a3 slots + 16. Window byte k of a segment is its output byte k - OFF. */
    uint32_t ap[KS][4], an[KS][4];
    constexpr uint32_t PAT = C == 1 ? 0x01010101u : C == 2 ? 0x00010001u : C == 3 ? 0x01000001u : 0x00000001u;
#pragma unroll
    for (int j = 0; j < KS; j++)
#pragma unroll
        for (int q = 0; q < 4; q++) {
            /* bytes i of the word: window bytes w0 + i, at distance d0 + i from
             * the output byte; a 1 where that is a multiple of C within r C */
            const int d0 = 8 * KS * t + 8 * j + 4 * (q >> 1) - OFF - (2 * g + (q & 1));
            const int lo = min(max(-r * C - d0, 0), 4), hi = min(max(r * C - d0 + 1, 0), 4); /* bytes [lo, hi) */
            const uint32_t in_r = __funnelshift_lc(0u, 0x01010101u, 8 * lo) & __funnelshift_rc(0x01010101u, 0u, 32 - 8 * hi);
            const uint32_t v = in_r & (PAT << (8 * ((128 * C - d0) % C)));
            ap[j][q] = v;
            an[j][q] = v * 255u; /* bytes 1 -> 0xff: -1 as s8 */
        }
    /* The thread's sums of sub-strip sg: d0 (m = g, segment n = 2t), d1 (g,
     * 2t + 1), d2 (g + 8, 2t), d3 (g + 8, 2t + 1): bytes ob, ob + 16, ob + 1,
     * ob + 17 of it. Per output the magic for rows whose window lies inside
     * (a per-row magic at the border columns made their warps the kernel's
     * last: the other SMs idled). */
    const int ob = 32 * t + 2 * g;
    uint32_t M[NS][4], NX[NS]; /* NX: the four column counts (<= 33) a byte each, for the border rows */
    if (128 * NS * strip >= r * C && 128 * NS * (strip + 1) + r * C <= wb) { /* every window's columns inside */
#pragma unroll
        for (int sg = 0; sg < NS; sg++) {
            NX[sg] = (uint32_t)(2 * r + 1) * 0x01010101u;
#pragma unroll
            for (int e = 0; e < 4; e++) M[sg][e] = mfull;
        }
    } else {
#pragma unroll
        for (int sg = 0; sg < NS; sg++) {
            NX[sg] = 0;
#pragma unroll
            for (int e = 0; e < 4; e++) {
                const int b = 128 * (NS * strip + sg) + ob + (e & 1) * 16 + (e >> 1), nx = b < wb ? win_count(b / C, r, wb / C) : 1;
                M[sg][e] = nx == 2 * r + 1 ? mfull : blur_magic_dev((2 * r + 1) * nx);
                NX[sg] |= (uint32_t)nx << (8 * e);
            }
        }
    }
    const int lb = 16 * g + 8 + 8 * KS * t; /* the thread's first B byte in a box row (sub-strip sg +128 sg) */

    auto add_row = [&](int (&d)[NS][4], const unsigned char *p, const uint32_t (&a)[KS][4]) {
#pragma unroll
        for (int sg = 0; sg < NS; sg++)
#pragma unroll
            for (int j = 0; j < KS; j++) {
                const uint2 b = *(const uint2 *)(p + 128 * sg + 8 * j);
                mma_s8u8(d[sg], a[j], b.x, b.y);
            }
    };

    int D[NS][4] = {};
    /* Warm-up: the first window less its entering row, and the row step 0
     * leaves (rows PRE - 1 .. W - 1, all in the first boxes: W - 1 < nst TRB). */
    for (int tt = PRE - 1; tt < W; tt++) {
        if (tt == PRE - 1 || tt % TRB == 0) R.wait();
        add_row(D, base + tt * ROWB + lb, ap);
    }
    int se = W / TRB % nst, sl = 0; /* the stages of a group's entering box and first leaving box */
    for (int i0 = 0; i0 < nout; i0 += TRB) {
        R.wait();
        const int y0 = c0 + i0;
        const unsigned char *pe = base + se * BOX + lb, *pl0 = base + sl * BOX + lb,
                            *pl1 = base + (sl + 1 == nst ? 0 : sl + 1) * BOX + lb;
        /* A step: its entering and leaving rows' products. After the last
         * step that reads the first leaving box (step TRB - 1 - LO), its stage
         * takes the next box at once (a group ahead of where a group's end
         * would request it). */
        auto step = [&](int u) {
            add_row(D, pe + u * ROWB, ap);
            add_row(D, u < TRB - LO ? pl0 + (LO + u) * ROWB : pl1 + (LO + u - TRB) * ROWB, an);
            if (u == TRB - 1 - LO) R.refill_one(lane);
        };
        auto put = [&](int u, const uint32_t (&F)[NS][4]) { /* the means' low bytes to staging row u */
            if (u == 0) staging_free<0>(lane); /* the staging box's last store has read it */
#pragma unroll
            for (int sg = 0; sg < NS; sg++) {
                unsigned char *p = base + L.ring + u * 128 * NS + 128 * sg + ob;
                *(uint16_t *)p = (uint16_t)__byte_perm(F[sg][0], F[sg][2], 0x0040);
                *(uint16_t *)(p + 16) = (uint16_t)__byte_perm(F[sg][1], F[sg][3], 0x0040);
            }
        };
        if (y0 >= r && y0 + TRB - 1 + r < h && i0 + TRB <= nout) {
#pragma unroll
            for (int u = 0; u < TRB; u++) { /* rows whose window lies inside */
                step(u);
                uint32_t F[NS][4];
#pragma unroll
                for (int sg = 0; sg < NS; sg++)
#pragma unroll
                    for (int e = 0; e < 4; e++) F[sg][e] = __umulhi((uint32_t)D[sg][e], M[sg][e]);
                put(u, F);
            }
        } else {
#pragma unroll
            for (int u = 0; u < TRB; u++) { /* near the top or bottom: the row's count */
                if (i0 + u < nout) {
                    step(u);
                    const int ny = win_count(y0 + u, r, h);
                    uint32_t F[NS][4];
#pragma unroll
                    for (int sg = 0; sg < NS; sg++)
#pragma unroll
                        for (int e = 0; e < 4; e++)
                            F[sg][e] = __umulhi((uint32_t)D[sg][e], blur_magic_dev(ny * (int)((NX[sg] >> (8 * e)) & 0xff)));
                    put(u, F);
                } else if (u == TRB - 1 - LO) { /* a short last group still hands on its first leaving box */
                    R.refill_one(lane);
                }
            }
        }
        store_box(lane, &tout, 32 * NS * strip, y0, stg); /* rows past the image are dropped */
        if (++se == nst) se = 0;
        if (++sl == nst) sl = 0;
    }
    if (lane == 0) wait_read<0>(); /* shared memory stays until the stores have read it */
#endif
}

template <int C, int KS, int P>
cupat_status launch(cupat_ctx *ctx, int w, int h, int r, const uint8_t *in, uint8_t *out)
{
    const auto kern = blur_tc<C, KS, P>;
    const int nst = ring_stages(r, TRB), wb = w * C, smem = BT_WARPS * TcSmem(KS, nst).bytes;
    static unsigned char ready[64];
    const long long nstrip = (wb + 128 * NS - 1) / (128 * NS);
    WalkLaunch W;
    CUPAT_TRY(walk_setup(ctx, (const void *)kern, ready, smem, BT_WARPS * TcSmem(KS, ring_stages(BL_COLUMNS_MAX_R, TRB)).bytes,
                         nstrip, wb, h, r, TRB, tc_row_bytes(KS) / 4, 32 * NS, in, out, true, &W));
    if (W.blocks > INT_MAX / BT_WARPS)
        return cupat__fail(ctx, CUPAT_ERROR_SIZE, "cupat_blur: %lld warps do not fit an int", W.blocks * BT_WARPS);
    kern<<<(unsigned)W.blocks, BT_WARPS * 32, smem, ctx->stream>>>(W.tin, W.tout, wb, h, r, (int)nstrip, W.nchunk, W.rows,
                                                                   nst, blur_magic((2 * r + 1) * (2 * r + 1)));
    return cupat__launched(ctx, "blur_tc");
}
template <int C, int KS>
cupat_status launch(cupat_ctx *ctx, int w, int h, int r, const uint8_t *in, uint8_t *out)
{
    return r & 1 ? launch<C, KS, 1>(ctx, w, h, r, in, out) : launch<C, KS, 0>(ctx, w, h, r, in, out);
}

template <int C>
cupat_status launch_c(cupat_ctx *ctx, int w, int h, int r, const uint8_t *in, uint8_t *out)
{
    constexpr int KMAX = (BL_COLUMNS_MAX_R * C + 8 + 15) / 16; /* instances for the radii that reach here */
    switch ((r * C + 8 + 15) / 16) {                          /* k-steps: r C <= 16 KS - 8 */
    case 1: return launch<C, 1>(ctx, w, h, r, in, out);
    case 2: return launch<C, 2>(ctx, w, h, r, in, out);
    case 3: return launch<C, KMAX < 3 ? KMAX : 3>(ctx, w, h, r, in, out);
    case 4: return launch<C, KMAX < 4 ? KMAX : 4>(ctx, w, h, r, in, out);
    default: return launch<C, KMAX < 5 ? KMAX : 5>(ctx, w, h, r, in, out);
    }
}

} // namespace

cupat_status cupat__blur_tc_cuda(cupat_ctx *ctx, size_t width, size_t height, int channels, int radius,
                                 const uint8_t *in, uint8_t *out)
{
    if (radius == 0) return cupat__blur_tma_cuda(ctx, width, height, channels, radius, in, out); /* a copy: count 1 */
    const int w = (int)width, h = (int)height;
    return with_channels(ctx, channels, [&](auto c) { return launch_c<decltype(c)::value>(ctx, w, h, radius, in, out); });
}
