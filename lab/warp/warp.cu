// SPDX-License-Identifier: Apache-2.0
// warp.cu — the kernels of `cupat lab warp` (PCCP 5.6; CUDA C++ Programming
// Guide, warp shuffle, vote, match and reduce functions). One kernel, one
// case per experiment; each writes its rows of lane values as doubles to
// out[row * LAB_WARP_MAXV + i]. The intrinsics are called inline on purpose:
// the lesson is the intrinsic itself (patterns use src/core/cupat_warp.cuh).
//
// The book's kernels use __shfl / __shfl_up / ... without a mask (removed in
// CUDA 9); here every call names the lanes that take part: the book launches
// 16 threads, so the mask is 0xffff (FULL_MASK there would name lanes that
// do not exist: undefined behaviour). A -1 in a row: that lane did not call.
#include "warp/warp.h"

#include "cupat_warp.cuh"
#include "internal.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace {

constexpr int BDIMX = 16; // the book's block: one 16-lane segment
constexpr int SEGM = 4;   // values a thread in the array experiments
constexpr unsigned FULL = 0xffffffffu;

__device__ __forceinline__ void put(double *out, int row, int i, double v) { out[row * LAB_WARP_MAXV + i] = v; }

// PCCP's swap: lane pairs (mask apart) exchange value[first] of the lower
// lane with value[second] of the upper one. Only lanes with laneIdx / mask
// == 0 (here lane 0) take the pre- and post-swap, so lanes 2 and 3 exchange
// plain value[second]s: the book's output shows exactly that.
__device__ __forceinline__ void book_swap(int *value, int laneIdx, int mask, int first, int second)
{
    const bool pred = laneIdx / mask + 1 == 1;
    if (pred) {
        int t = value[first];
        value[first] = value[second];
        value[second] = t;
    }
    value[second] = __shfl_xor_sync(0xfu, value[second], mask, BDIMX);
    if (pred) {
        int t = value[first];
        value[first] = value[second];
        value[second] = t;
    }
}

// The shuffle forms of the bitwise __reduce_*_sync, for targets below sm_80.
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ < 800
struct OpAnd {
    __device__ unsigned operator()(unsigned a, unsigned b) const { return a & b; }
};
struct OpOr {
    __device__ unsigned operator()(unsigned a, unsigned b) const { return a | b; }
};
struct OpXor {
    __device__ unsigned operator()(unsigned a, unsigned b) const { return a ^ b; }
};
#endif

__global__ void k_lab_warp(int e, double *out)
{
    const int lane = (int)threadIdx.x;
    switch (e) {
    // ---- PCCP 5.6, one 16-thread block, v = lane ------------------------
    case LAB_WARP_BROADCAST: put(out, 0, lane, __shfl_sync(0xffffu, lane, 2, BDIMX)); break;
    case LAB_WARP_UP: put(out, 0, lane, __shfl_up_sync(0xffffu, lane, 2, BDIMX)); break;
    case LAB_WARP_DOWN: put(out, 0, lane, __shfl_down_sync(0xffffu, lane, 2, BDIMX)); break;
    case LAB_WARP_WRAP: put(out, 0, lane, __shfl_sync(0xffffu, lane, lane + 2, BDIMX)); break;
    case LAB_WARP_XOR: put(out, 0, lane, __shfl_xor_sync(0xffffu, lane, 1, BDIMX)); break;
    case LAB_WARP_XOR_ARRAY: { // BDIMX / SEGM = 4 threads, value[i] = 4 lane + i
        int value[SEGM];
        for (int i = 0; i < SEGM; i++) value[i] = SEGM * lane + i;
        for (int i = 0; i < SEGM; i++) value[i] = __shfl_xor_sync(0xfu, value[i], 1, BDIMX);
        for (int i = 0; i < SEGM; i++) put(out, 0, SEGM * lane + i, value[i]);
        break;
    }
    case LAB_WARP_SWAP: {
        int value[SEGM];
        for (int i = 0; i < SEGM; i++) value[i] = SEGM * lane + i;
        book_swap(value, lane, 1, 0, 3);
        for (int i = 0; i < SEGM; i++) put(out, 0, SEGM * lane + i, value[i]);
        break;
    }
    // ---- width and mask rules: a full warp, v = lane --------------------
    case LAB_WARP_WIDTH: {
        put(out, 0, lane, __shfl_sync(FULL, lane, 0, 1));
        put(out, 1, lane, __shfl_sync(FULL, lane, 0, 2));
        put(out, 2, lane, __shfl_sync(FULL, lane, 0, 4));
        put(out, 3, lane, __shfl_sync(FULL, lane, 0, 8));
        put(out, 4, lane, __shfl_sync(FULL, lane, 0, 16));
        put(out, 5, lane, __shfl_sync(FULL, lane, 0, 32));
        put(out, 6, lane, __shfl_sync(FULL, lane, 20, 16));
        put(out, 7, lane, __shfl_xor_sync(FULL, lane, 8, 8));
        put(out, 8, lane, __shfl_up_sync(FULL, lane, 3, 8));
        int v = lane;
        if (lane < 16) v = __shfl_sync(0x0000ffffu, lane, 15 - lane);
        put(out, 9, lane, v);
        break;
    }
    // ---- 16-bit floats: the native overloads, and core's 32-bit path ----
    case LAB_WARP_HALF: {
        const __half h = __float2half(lane * 0.5f);
        put(out, 0, lane, __half2float(__shfl_xor_sync(FULL, h, 1)));
        const __half2 h2 = __halves2half2(__float2half(lane * 0.5f), __float2half(-(float)lane));
        const __half2 r2 = __shfl_down_sync(FULL, h2, 1);
        put(out, 1, lane, __low2float(r2));
        put(out, 2, lane, __high2float(r2));
        const __nv_bfloat16 b = __float2bfloat16(lane + 0.5f);
        put(out, 3, lane, __bfloat162float(__shfl_sync(FULL, b, 31 - lane)));
        const __nv_bfloat162 b2 = __halves2bfloat162(__float2bfloat16((float)lane), __float2bfloat16(lane * 0.25f));
        const __nv_bfloat162 s2 = __shfl_up_sync(FULL, b2, 3);
        put(out, 4, lane, __low2float(s2));
        put(out, 5, lane, __high2float(s2));
        put(out, 6, lane, __half2float(cupat_dev::shfl_xor(h, 16)));
        break;
    }
    // ---- votes --------------------------------------------------------
    case LAB_WARP_VOTE: {
        put(out, 0, lane, __all_sync(FULL, lane < 32));
        put(out, 1, lane, __all_sync(FULL, lane != 7));
        put(out, 2, lane, __any_sync(FULL, lane == 17));
        put(out, 3, lane, __any_sync(FULL, lane > 31));
        put(out, 4, lane, __ballot_sync(FULL, lane % 3 == 0));
        unsigned count;
        put(out, 5, lane, cupat_dev::warp_ballot_rank(lane % 3 == 0, count));
        put(out, 6, lane, lane < 16 ? (double)__ballot_sync(0x0000ffffu, lane % 3 == 0) : -1.0);
        break;
    }
    // ---- __reduce_*_sync (sm_80+; shuffles below) ------------------------
    case LAB_WARP_REDUCE: {
        const int s = (lane * 7) % 32 - 10; // every value of -10..21 once
#if __CUDA_ARCH__ >= 800
        put(out, 0, lane, __reduce_add_sync(FULL, (unsigned)lane));
        put(out, 1, lane, lane < 16 ? (double)__reduce_add_sync(0x0000ffffu, (unsigned)lane) : -1.0);
        put(out, 2, lane, __reduce_min_sync(FULL, s));
        put(out, 3, lane, __reduce_max_sync(FULL, s));
        put(out, 4, lane, __reduce_and_sync(FULL, (unsigned)lane | 0x20u));
        put(out, 5, lane, __reduce_or_sync(FULL, 1u << (lane % 8)));
        put(out, 6, lane, __reduce_xor_sync(FULL, 1u << (lane % 5)));
#else
        using cupat_dev::detail::reduce_sync_shfl;
        put(out, 0, lane, cupat_dev::warp_reduce_add_u32((unsigned)lane));
        put(out, 1, lane, lane < 16 ? (double)cupat_dev::warp_reduce_add_u32((unsigned)lane, 0x0000ffffu) : -1.0);
        put(out, 2, lane, cupat_dev::warp_reduce_min_i32(s));
        put(out, 3, lane, cupat_dev::warp_reduce_max_i32(s));
        put(out, 4, lane, reduce_sync_shfl((unsigned)lane | 0x20u, FULL, OpAnd()));
        put(out, 5, lane, reduce_sync_shfl(1u << (lane % 8), FULL, OpOr()));
        put(out, 6, lane, reduce_sync_shfl(1u << (lane % 5), FULL, OpXor()));
#endif
        break;
    }
    // ---- __match_any_sync / __match_all_sync (sm_70+) -------------------
    case LAB_WARP_MATCH: {
        put(out, 0, lane, __match_any_sync(FULL, lane % 3));
        put(out, 1, lane, __match_any_sync(FULL, lane / 8));
        int pred;
        put(out, 2, lane, __match_all_sync(FULL, 7, &pred));
        put(out, 3, lane, pred);
        put(out, 4, lane, __match_all_sync(FULL, lane / 16, &pred));
        put(out, 5, lane, pred);
        put(out, 6, lane, cupat_dev::warp_match_any(lane % 2 ? -0.0f : 0.0f));
        break;
    }
    default: break;
    }
}

} // namespace

extern "C" cupat_status cupat__lab_warp(cupat_ctx *ctx, int e, double *out)
{
    if (e < 0 || e >= LAB_WARP_NEXP)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab warp: experiment = %d", e);
    // The book's launches: 16 threads, or BDIMX / SEGM = 4 for the arrays.
    const unsigned threads = e <= LAB_WARP_XOR                                    ? BDIMX
                             : e == LAB_WARP_XOR_ARRAY || e == LAB_WARP_SWAP ? BDIMX / SEGM
                                                                                   : 32;
    k_lab_warp<<<1, threads, 0, ctx->stream>>>(e, out);
    return cupat__launched(ctx, "k_lab_warp");
}
