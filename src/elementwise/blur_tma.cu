// SPDX-License-Identifier: Apache-2.0
/* blur_tma.cu — cupat_blur's columns-tma rung: blur_columns' one-pass walk
 * down a chunk of rows, with the rows moved by the tensor memory accelerator
 * (TMA, sm_90).
 *
 * blur_columns reads a lane's 4 C bytes a row with its own loads (three
 * 4-byte loads at a 12-byte stride for RGB, each predicated on the row and
 * the column lying in the image) and writes them the same way: a third of
 * every 32-byte sector an instruction. Here each warp asks the copy engine
 * for boxes of RB rows x its segment into a ring in shared memory (zeros
 * outside the image, completion counted on an mbarrier a box); the lanes read
 * their bytes from shared memory (the leaving row too: the ring holds the
 * window) and write their means to a staging box that one lane hands back as
 * a TMA store, which drops what lies outside the image. No predicate, no
 * global address and no partial sector in the loop. A group of RB steps
 * waits once, finds its rows at fixed offsets and stores once.
 *
 * What it teaches (measured, H100, 3840 x 2160 RGB; docs/elementwise.md):
 * the data movement was not what held blur_columns back. This rung issues
 * about as many instructions (14.3 M against 13.0 M at radius 1: the
 * arithmetic is the same, blur_columns.cuh's) with fewer warps an SM (shared
 * memory bounds them), and runs 0.86x blur_columns; both are bound by
 * instruction issue. And a TMA box's first column must lie on 16 bytes: a
 * box at word 1 of a row raised an illegal instruction.
 *
 * Taken where the copy engine can address the image: compute capability 9.0
 * or later, both images 16-byte aligned, rows a multiple of 16 bytes;
 * otherwise the columns rung runs. */
#include "elementwise.h"
#include "blur_columns.cuh"
#include "blur_ring.cuh"

#include <cuda_runtime.h>
#include <stdint.h>

namespace {

using namespace blur_dev;

constexpr int RB = 4;       /* rows a box */
constexpr int NSTG = 1;     /* staging boxes a warp (2: 0.0297 ms against 0.0283, fewer warps an SM) */

/* Lanes that write: 32 less ceil(r / 4) halo lanes each side, rounded down
 * so their bytes (4 C a lane) are a multiple of 16, as a TMA box's rows must
 * be. The spare lanes are halo on the right. */
__host__ __device__ constexpr int writing_lanes(int C, int hl)
{
    return (32 - 2 * hl) / ((C & 1) ? 4 : C == 2 ? 2 : 1) * ((C & 1) ? 4 : C == 2 ? 2 : 1);
}
/* Ring stages: ring_stages (blur_ring.cuh). More boxes ahead measured
 * slower (r = 1, one staging box: 0.0283 ms with the fewest, 0.0292 with 8
 * rows more; two staging boxes 0.0297, and 0.0353 with 12 rows more): shared
 * memory, not latency, bounds the warps an SM. */
/* A box's first column must lie on 16 bytes (the copy engine raises an
 * illegal instruction otherwise; measured), so a load box starts at the
 * segment's first word rounded down to 4 words and is 4 words wider than
 * the segment: rows of 128 C + 16 bytes. */
__host__ __device__ constexpr int box_row_bytes(int C) { return 128 * C + 16; }
/* A warp's shared memory: the ring (nst boxes, each padded to 128 bytes), two
 * staging boxes, the ring's mbarriers; each part 128-byte aligned (TMA's
 * shared-memory boxes must be). */
struct WarpSmem {
    int box, ring, stage, bytes;
    __host__ __device__ WarpSmem(int C, int nw, int nst)
        : box((RB * box_row_bytes(C) + 127) & ~127), ring(nst * box), stage((RB * 4 * C * nw + 127) & ~127),
          bytes(ring + NSTG * stage + ((8 * nst + 127) & ~127))
    {
    }
};

template <int C>
__device__ __forceinline__ void lds_row(const unsigned char *p, uint32_t (&wd)[C])
{
    if (C == 4) {
        const uint4 v = *(const uint4 *)p;
        wd[0] = v.x, wd[1 % C] = v.y, wd[2 % C] = v.z, wd[3 % C] = v.w;
    } else if (C == 2) {
        const uint2 v = *(const uint2 *)p;
        wd[0] = v.x, wd[1 % C] = v.y;
    } else {
#pragma unroll
        for (int k = 0; k < C; k++) wd[k] = ((const uint32_t *)p)[k];
    }
}
template <int C>
__device__ __forceinline__ void sts_row(unsigned char *p, const uint32_t (&wd)[C])
{
    if (C == 4)
        *(uint4 *)p = make_uint4(wd[0], wd[1 % C], wd[2 % C], wd[3 % C]);
    else if (C == 2)
        *(uint2 *)p = make_uint2(wd[0], wd[1 % C]);
    else
#pragma unroll
        for (int k = 0; k < C; k++) ((uint32_t *)p)[k] = wd[k];
}

/* tin / tout: the images as rows of w C / 4 words; boxes of 32 C + 4 words x
 * RB rows (a warp's segment and up to 3 words before it) and nw C words x RB
 * rows (its writing lanes). */
template <int C, int K>
__global__ void __launch_bounds__(BT_WARPS * 32)
    blur_tma(const __grid_constant__ CUtensorMap tin, const __grid_constant__ CUtensorMap tout, int w, int h, int r,
             int nseg, int nchunk, int rows, int nst, float inv, float hb)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    using namespace cupat_tma;
    extern __shared__ __align__(128) unsigned char smem[];
    constexpr int ROWB = box_row_bytes(C); /* a load box's row */
    const int lane = threadIdx.x & 31, wib = threadIdx.x >> 5;
    const long long gw = (long long)blockIdx.x * BT_WARPS + wib;
    if (gw >= (long long)nseg * nchunk) return; /* a whole warp; no block barrier below */
    const int seg = (int)(gw % nseg), chunk = (int)(gw / nseg);
    const int q = r >> 2, hl = (r + 3) >> 2, nw = writing_lanes(C, hl);
    const WarpSmem L(C, nw, nst);
    unsigned char *base = smem + (size_t)wib * L.bytes;
    const unsigned ring = smem_addr(base), stg = ring + L.ring, bars = stg + NSTG * L.stage;

    const int x0 = seg * 4 * nw - 4 * hl + 4 * lane; /* the lane's first pixel */
    const int xw = (seg * nw - hl) * C, xs = seg * nw * C; /* the segment's and the store box's first words */
    const int xa = xw & ~3, lb = (xw - xa + lane * C) * 4; /* the load box's first word; the lane's bytes in a row */
    const bool writes = lane >= hl && lane < hl + nw;
    int nx[4];
    const bool edge_cols = window_cols(x0, w, r, writes, nx);

    const int c0 = chunk * rows, c1 = rows < h - c0 ? c0 + rows : h, nout = c1 - c0;
    /* Input rows and boxes: blur_ring.cuh; box g in stage g mod nst. */
    const int pre = ring_pre(r, RB), W = 2 * r + pre;
    BoxRing R{&tin, ring, bars, L.box, RB * ROWB, nst, (W + nout + RB - 1) / RB, xa, c0 - r - pre, RB};
    R.start(lane);
    auto row_at = [&](int t) { /* byte offset of input row t (and this lane) in the ring */
        return (t / RB) % nst * L.box + t % RB * ROWB + lb;
    };

    float V[4 * C];
#pragma unroll
    for (int s = 0; s < 4 * C; s++) V[s] = 0.f;
    const uint32_t none[C] = {};
    for (int t = pre; t < W; t++) { /* warm-up: the first window less its entering row */
        if (t == pre || t % RB == 0) R.wait();
        uint32_t wd[C];
        lds_row<C>(base + row_at(t), wd);
        slide<C>(V, wd, none);
    }

    int lo = row_at(pre - 1 + RB * nst), tl = pre - 1; /* the last row to have left, at lo after it */
    unsigned char *sp0 = base + L.ring + (lane - hl) * 4 * C; /* this lane's bytes in staging box 0 */
    int sbuf = 0;
    for (int i0 = 0; i0 < nout; i0 += RB) {
        R.wait(); /* the group's entering rows: box (i0 + W) / RB */
        const unsigned char *en = base + (i0 + W) / RB % nst * L.box + lb;
        unsigned char *sp = sp0 + sbuf * L.stage;
        staging_free<NSTG - 1>(lane); /* this staging box's last store has read it */
        /* Step i = i0 + u: slide V a row, then its row of means to staging row u. */
        auto slide_row = [&](int u) {
            uint32_t ent[C], lv[C];
            lds_row<C>(en + u * ROWB, ent);
            if (i0 + u > 0) {
                tl++;
                lo += ROWB;
                if (tl % RB == 0) {
                    lo += L.box - RB * ROWB;
                    if (lo >= L.ring) lo -= L.ring;
                }
                lds_row<C>(base + lo, lv);
            } else {
#pragma unroll
                for (int k = 0; k < C; k++) lv[k] = 0;
            }
            slide<C>(V, ent, lv);
        };
        const int y0 = c0 + i0;
        if (!edge_cols && y0 >= r && y0 + RB - 1 + r < h && i0 + RB <= nout) {
#pragma unroll
            for (int u = 0; u < RB; u++) { /* full windows: one count */
                slide_row(u);
                uint32_t res[C];
                row_means<C, K, false>(V, q, inv, hb, 0, nx, res);
                if (writes) sts_row<C>(sp + u * 4 * C * nw, res);
            }
        } else {
            for (int u = 0; u < RB && i0 + u < nout; u++) { /* near the image's border */
                slide_row(u);
                const int y = y0 + u, ny = win_count(y, r, h);
                uint32_t res[C];
                row_means<C, K, true>(V, q, inv, hb, ny, nx, res);
                if (writes) sts_row<C>(sp + u * 4 * C * nw, res);
            }
        }
        store_box(lane, &tout, xs, y0, stg + sbuf * L.stage);
        if (++sbuf == NSTG) sbuf = 0;
        R.refill(lane, tl); /* boxes whose rows have all left (the reads above are fenced) */
    }
    if (lane == 0) wait_read<0>(); /* shared memory stays until the stores have read it */
#endif
}

template <int C, int K>
cupat_status launch(cupat_ctx *ctx, int w, int h, int r, const uint8_t *in, uint8_t *out)
{
    const auto kern = blur_tma<C, K>;
    const int hl = (r + 3) / 4, nw = writing_lanes(C, hl);
    const int nst = ring_stages(r, RB);
    const int smem = BT_WARPS * WarpSmem(C, nw, nst).bytes;
    static unsigned char ready[64];
    const long long nseg = (w + 4 * nw - 1) / (4 * nw);
    WalkLaunch L;
    CUPAT_TRY(walk_setup(ctx, (const void *)kern, ready, smem,
                         BT_WARPS * WarpSmem(C, writing_lanes(C, 1), ring_stages(BL_COLUMNS_MAX_R, RB)).bytes, nseg,
                         w * C, h, r, RB, box_row_bytes(C) / 4, (uint32_t)(nw * C), in, out, false, &L));
    const float inv = 1.0f / (float)((2 * r + 1) * (2 * r + 1)), hb = 0.5f * inv - 0.5f;
    kern<<<(unsigned)L.blocks, BT_WARPS * 32, smem, ctx->stream>>>(L.tin, L.tout, w, h, r, (int)nseg, L.nchunk, L.rows,
                                                                   nst, inv, hb);
    return cupat__launched(ctx, "blur_tma");
}

} // namespace

int cupat__blur_tma_fits(cupat_ctx *ctx, size_t width, size_t height, int channels, int radius,
                         const uint8_t *in, const uint8_t *out)
{
    /* the device and the code this library carries for it (a build for an
     * older target alone has the kernel without its body): asked once a
     * device, 1 yes, 2 no */
    static unsigned char dev_ok[64];
    const int d = ctx->device;
    if (d < 0 || d >= 64) return 0;
    if (!dev_ok[d]) {
        int major = 0;
        cudaFuncAttributes fa;
        const bool ok = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, d) == cudaSuccess &&
                        cudaFuncGetAttributes(&fa, (const void *)blur_tma<1, 0>) == cudaSuccess && major >= 9 &&
                        fa.ptxVersion >= 90;
        if (!ok) (void)cudaGetLastError();
        dev_ok[d] = ok ? 1 : 2;
    }
    /* the copy engine's rules: 16-byte aligned bases and row pitch; rows of
     * 4-byte words; int coordinates */
    return dev_ok[d] == 1 && cupat__blur_columns_fits(width, height, channels, radius) &&
           (uintptr_t)in % 16 == 0 && (uintptr_t)out % 16 == 0 && (width * (size_t)channels) % 16 == 0 &&
           height < ((size_t)1 << 30);
}

cupat_status cupat__blur_tma_cuda(cupat_ctx *ctx, size_t width, size_t height, int channels, int radius,
                                  const uint8_t *in, uint8_t *out)
{
    const int w = (int)width, h = (int)height;
    return with_channels(ctx, channels, [&](auto c) {
        constexpr int C = decltype(c)::value;
        return with_form(radius, [&](auto k) { return launch<C, decltype(k)::value>(ctx, w, h, radius, in, out); });
    });
}
