// SPDX-License-Identifier: Apache-2.0
/* blur_ring.cuh — the walk the TMA blur kernels share (blur_tma.cu,
 * blur_tc.cu): a warp walks a chunk of rows down one strip of the image, its
 * input rows brought by the copy engine in boxes of RB rows into a ring of
 * nst stages in shared memory, an mbarrier a stage, and its host-side chunk
 * geometry. */
#ifndef CUPAT_BLUR_RING_CUH
#define CUPAT_BLUR_RING_CUH

#include "core/cupat_tma.cuh"

#include <cuda_runtime.h>

namespace blur_dev {

constexpr int BT_WARPS = 4; /* warps a block, each on its own */

/* Input rows t = 0, 1, .. of a chunk from image row c0 are rows c0 - r - pre
 * + t; box g holds t in [RB g, RB g + RB). pre (0 .. RB - 1 rows read and
 * never used) puts step i's entering row, t = i + 2r + pre, at row i mod RB of
 * a box, so a group of RB steps waits once and finds its rows at fixed
 * offsets; step i's leaving row is t = i - 1 + pre. */
__host__ __device__ constexpr int ring_pre(int r, int rb) { return (rb - (2 * r) % rb) % rb; }
/* The fewest stages the walk needs (fewer and it waits for a box never
 * requested): the most a group of RB steps spans, from its oldest leaving row
 * to its entering rows. */
__host__ __device__ constexpr int ring_stages(int r, int rb) { return (2 * r + rb - 1) / rb + 2; }

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
/* The ring of one warp: stage s at ring + s * stride (stride >= rb rows of a
 * box), its mbarrier at bars + 8 s. Boxes are requested in order and waited
 * for in order; lane 0 talks to the copy engine. */
struct BoxRing {
    const CUtensorMap *map;
    unsigned ring, bars;
    int stride, bytes, nst, ng; /* stage stride; a box's bytes; stages; boxes in all */
    int x, y0, rb;              /* box g is columns from word x, rows from y0 + rb g */
    int ws = 0, gi = 0, is = 0; /* the stage to wait for; the next box to request, its stage */
    unsigned wpar = 0;

    /* Initialise the barriers and request the first nst boxes. */
    __device__ void start(int lane)
    {
        using namespace cupat_tma;
        if (lane == 0) {
            for (int s = 0; s < nst; s++) bar_init(bars + 8 * s, 1);
            bar_init_fence();
        }
        while (gi < ng && gi < nst) request(lane);
        __syncwarp();
    }
    __device__ void request(int lane)
    {
        using namespace cupat_tma;
        if (lane == 0) {
            bar_expect(bars + 8 * is, bytes);
            load_2d(ring + is * stride, map, x, y0 + gi * rb, bars + 8 * is);
        }
        gi++;
        if (++is == nst) is = 0;
    }
    /* Until the next box in order has landed. */
    __device__ void wait()
    {
        cupat_tma::bar_wait(bars + 8 * ws, wpar);
        if (++ws == nst) ws = 0, wpar ^= 1;
    }
    /* One box into the stage of the box that has just left, if any remain
     * (a walk that frees exactly one box a group), after the warp's reads of
     * it (fenced against the copy engine's write). */
    __device__ void refill_one(int lane)
    {
        cupat_tma::fence_async_shared();
        __syncwarp();
        if (gi < ng) request(lane);
    }
    /* Boxes whose rows have all left (input rows up to `left`) take the next
     * boxes; the caller has fenced its reads (fence_async_shared). */
    __device__ void refill(int lane, int left)
    {
        while (gi < ng && rb * (gi - nst) + rb - 1 <= left) request(lane);
    }
};

/* Until at most N of lane 0's staging-box stores still read shared memory
 * (the box about to be written is free). */
template <int N> __device__ __forceinline__ void staging_free(int lane)
{
    if (lane == 0) cupat_tma::wait_read<N>();
    __syncwarp();
}
/* The staging box at src to the image at word x, row y (what lies past the
 * image is dropped); the fence also orders the warp's ring reads before the
 * copy engine refills those stages. */
__device__ __forceinline__ void store_box(int lane, const CUtensorMap *map, int x, int y, unsigned src)
{
    cupat_tma::fence_async_shared();
    __syncwarp();
    if (lane == 0) {
        cupat_tma::store_2d(map, x, y, src);
        cupat_tma::commit();
    }
}
#endif

/* Chunks of a walk over `units` strips: chunks of at least 2r + 8 rows (the
 * warm-up stays a fraction of a chunk), a whole number of boxes (a chunk's
 * last store box must not cover the next chunk's rows), and at most one wave
 * of warps (per_sm blocks an SM). Among those, the geometry whose busiest SM
 * has the least work: an SM's blocks share its issue slots, so a walk lasts
 * about (blocks on the busiest SM) x (a chunk's rows + half its 2r + 1
 * warm-up rows, one product a row where a step takes two); and an SM one
 * block short of what it holds hides latency about 5% worse. Candidates: the
 * most chunks that fit per_sm or per_sm - 1 blocks an SM, and the next two
 * box counts up. (Measured, H100, 3840x2160 RGB, tensor-core rung, r = 1:
 * the old rule, the most chunks a wave holds, took 28 rows, 585 blocks for
 * 132 SMs: five on some, four on the rest, 0.0213 ms; 32 rows, 510 blocks,
 * 0.0204; 36 rows, 450 blocks (four on some, three on most), 0.0231; 44, 375
 * blocks, 0.0212. r = 8: 32 rows 0.0282, 44 0.0287, 36 0.0321.) That is the
 * tensor-core walk (balance); columns-tma keeps the most chunks a wave holds
 * (the rule above made its r = 8 0.0412 -> 0.0443 ms). Returns the blocks;
 * rows and nchunk out. */
inline long long walk_chunks(long long units, int h, int r, int rb, int per_sm, int sms, bool balance, int *rows,
                             int *nchunk)
{
    const long long S = sms > 0 ? sms : 1, min_rows = 2LL * r + 8;
    auto up = [&](long long v) { return (v + rb - 1) / rb * rb; };
    long long best_rw = -1;
    if (balance) {
        double best = 0;
        for (int k = per_sm > 1 ? per_sm - 1 : 1; k <= per_sm; k++) {
            const long long n = (long long)k * S * BT_WARPS / units; /* chunks a strip in k blocks an SM */
            if (n < 1) continue;
            long long rw0 = (h + n - 1) / n;
            rw0 = up(rw0 < min_rows ? min_rows : rw0);
            for (long long rw = rw0; rw < rw0 + 3LL * rb; rw += rb) {
                const long long blocks = (units * ((h + rw - 1) / rw) + BT_WARPS - 1) / BT_WARPS,
                                per = (blocks + S - 1) / S;
                if (per > per_sm) continue;
                const double cost = (double)per * ((double)rw + r + 0.5) * (1.0 + 0.05 * (double)(per_sm - per));
                if (best_rw < 0 || cost < best) best = cost, best_rw = rw;
            }
        }
    } else { /* the most chunks one wave holds */
        long long n = (long long)per_sm * S * BT_WARPS / units;
        if (n < 1) n = 1;
        const long long rw = (h + n - 1) / n;
        best_rw = up(rw < min_rows ? min_rows : rw);
    }
    /* more strips than a wave holds: one chunk a strip */
    const long long rw = best_rw > 0 ? best_rw : up(h < min_rows ? min_rows : h), n = (h + rw - 1) / rw;
    *rows = (int)rw;
    *nchunk = (int)n;
    return (units * n + BT_WARPS - 1) / BT_WARPS;
}

/* The host side of a walk's launch. */
struct WalkLaunch {
    CUtensorMap tin, tout; /* the images as rows of wb / 4 words */
    long long blocks;
    int rows, nchunk;
};
/* For kern at smem bytes a block: the dynamic shared-memory opt-in (once a
 * device, to smem_max, the most any radius of this instance asks), one wave
 * of chunks over `units` strips (balance: by the busiest SM, walk_chunks),
 * and the tensor maps of in (boxes of in_words x rb) and out (out_words x rb). */
inline cupat_status walk_setup(cupat_ctx *ctx, const void *kern, unsigned char (&ready)[64], int smem,
                               int smem_max, long long units, int wb, int h, int r, int rb, uint32_t in_words,
                               uint32_t out_words, const uint8_t *in, uint8_t *out, bool balance, WalkLaunch *L)
{
    if (ctx->device < 64 && !ready[ctx->device]) {
        CUPAT_CUDA_TRY(ctx, cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_max));
        ready[ctx->device] = 1;
    }
    int per_sm = 0;
    CUPAT_CUDA_TRY(ctx, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kern, BT_WARPS * 32, smem));
    if (per_sm < 1) return cupat__fail(ctx, CUPAT_ERROR_INTERNAL, "blur: the kernel fits no SM (%d bytes)", smem);
    L->blocks = walk_chunks(units, h, r, rb, per_sm, ctx->sm_count, balance, &L->rows, &L->nchunk);
    const uint64_t words = (uint64_t)wb / 4;
    CUPAT_TRY(cupat__tensor_map_2d(ctx, &L->tin, CU_TENSOR_MAP_DATA_TYPE_UINT32, in, words, (uint64_t)h,
                                   (uint64_t)wb, in_words, (uint32_t)rb, CU_TENSOR_MAP_SWIZZLE_NONE, "cupat_blur"));
    return cupat__tensor_map_2d(ctx, &L->tout, CU_TENSOR_MAP_DATA_TYPE_UINT32, out, words, (uint64_t)h,
                                (uint64_t)wb, out_words, (uint32_t)rb, CU_TENSOR_MAP_SWIZZLE_NONE, "cupat_blur");
}

} // namespace blur_dev

#endif
