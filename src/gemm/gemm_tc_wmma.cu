// SPDX-License-Identifier: Apache-2.0
// gemm_tc_wmma.cu — the first tensor-core rung of "gemm_tc": WMMA (CUDA
// Guide, warp matrix functions). One warp computes a 16x16 tile of C: for
// each k-slice it stages op(A)'s 16 x KS and op(B)'s KS x 16 pieces in shared
// memory (row-major, zero past the matrix's edges, the transposes and the
// caller's leading dimensions turned there), loads them into fragments
// (load_matrix_sync), multiplies (mma_sync: f32 accumulation, i32 for i8),
// and at the end stores the accumulator (store_matrix_sync) for an
// element-wise epilogue r = alpha s + beta c, rounded to the output type:
// gemm_tc_epilogue.h, the CPU rung's own. Staging makes it correct for
// any shape, layout and alignment; it is the ladder's teaching baseline, not
// its fast rung. TF32 inputs are rounded to tf32 (ties to even) while staged.
#include "gemm/gemm_internal.h"
#include "gemm/gemm_tc_epilogue.h"
#include "half_bits.h"
#include "internal.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>
#include <stdint.h>
#include <string.h>

using namespace nvcuda;

namespace {

constexpr int TILE = 16;

// What each input type stages and multiplies with: the shared-memory
// element, the fragment's element type, the k-slice of one mma_sync, the
// accumulator.
template <cupat_gemm_type IN> struct In;
// f16 and bf16: 16-bit patterns staged as they are.
template <typename H> struct In16 {
    typedef H smem_t;
    typedef H frag_t;
    typedef float acc_t;
    static constexpr int KS = 16;
    static __device__ __forceinline__ smem_t load(const void *p, size_t i)
    {
        return from_bits(static_cast<const unsigned short *>(p)[i]);
    }
    static __device__ __forceinline__ smem_t zero() { return from_bits(0); }
    static __device__ __forceinline__ smem_t from_bits(unsigned short u)
    {
        H h;
        memcpy(&h, &u, sizeof h);
        return h;
    }
};
template <> struct In<CUPAT_GEMM_F16> : In16<__half> {};
template <> struct In<CUPAT_GEMM_BF16> : In16<__nv_bfloat16> {};
template <> struct In<CUPAT_GEMM_TF32> {
    typedef float smem_t;
    typedef wmma::precision::tf32 frag_t;
    typedef float acc_t;
    static constexpr int KS = 8;
    static __device__ __forceinline__ smem_t load(const void *p, size_t i)
    {
        const uint32_t u = __float_as_uint(static_cast<const float *>(p)[i]);
        return __uint_as_float(cupat__f32_to_tf32_bits(u)); // exact tf32: the mma drops nothing
    }
    static __device__ __forceinline__ smem_t zero() { return 0.0f; }
};
template <> struct In<CUPAT_GEMM_I8> {
    typedef signed char smem_t;
    typedef signed char frag_t;
    typedef int acc_t;
    static constexpr int KS = 16;
    static __device__ __forceinline__ smem_t load(const void *p, size_t i)
    {
        return static_cast<const signed char *>(p)[i];
    }
    static __device__ __forceinline__ smem_t zero() { return 0; }
};

// One warp a block, one 16x16 tile of C a warp; blockIdx.x walks n's tiles,
// blockIdx.y (striding by gridDim.y) m's.
template <cupat_gemm_type IN> __global__ void __launch_bounds__(32) k_wmma(cupat_gemm_tc_args a)
{
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800 // bf16 / tf32 fragments: sm_80 on (the launcher checks)
    typedef In<IN> T;
    constexpr int KS = T::KS;
    __shared__ __align__(32) typename T::smem_t sa[TILE * KS];
    __shared__ __align__(32) typename T::smem_t sb[KS * TILE];
    __shared__ __align__(32) typename T::acc_t sc[TILE * TILE];
    const int lane = threadIdx.x;
    const int j0 = blockIdx.x * TILE, mt = (a.m + TILE - 1) / TILE;
    for (int ti = blockIdx.y; ti < mt; ti += gridDim.y) {
        const int i0 = ti * TILE;
        wmma::fragment<wmma::accumulator, 16, 16, KS, typename T::acc_t> acc;
        wmma::fill_fragment(acc, (typename T::acc_t)0);
        for (int p0 = 0; a.reads_ab && p0 < a.k; p0 += KS) {
            for (int e = lane; e < TILE * KS; e += 32) { // op(A)(i, p), row-major in sa
                const int i = i0 + e / KS, p = p0 + e % KS;
                sa[e] = i < a.m && p < a.k
                            ? T::load(a.A, a.ta ? (size_t)p * a.lda + i : (size_t)i * a.lda + p)
                            : T::zero();
            }
            for (int e = lane; e < KS * TILE; e += 32) { // op(B)(p, j), row-major in sb
                const int p = p0 + e / TILE, j = j0 + e % TILE;
                sb[e] = p < a.k && j < a.n
                            ? T::load(a.B, a.tb ? (size_t)j * a.ldb + p : (size_t)p * a.ldb + j)
                            : T::zero();
            }
            __syncwarp();
            wmma::fragment<wmma::matrix_a, 16, 16, KS, typename T::frag_t, wmma::row_major> fa;
            wmma::fragment<wmma::matrix_b, 16, 16, KS, typename T::frag_t, wmma::row_major> fb;
            wmma::load_matrix_sync(fa, sa, KS);
            wmma::load_matrix_sync(fb, sb, TILE);
            wmma::mma_sync(acc, fa, fb, acc);
            __syncwarp(); // the next slice overwrites sa, sb
        }
        wmma::store_matrix_sync(sc, acc, TILE, wmma::mem_row_major);
        __syncwarp();
        for (int e = lane; e < TILE * TILE; e += 32) {
            const int i = i0 + e / TILE, j = j0 + e % TILE;
            if (i >= a.m || j >= a.n) continue;
            const size_t at = (size_t)i * a.ldc + j;
            if constexpr (IN == CUPAT_GEMM_I8) cupat__tc_epilogue_i32(&a, at, (uint32_t)sc[e]);
            else cupat__tc_epilogue_f32(&a, at, sc[e]);
        }
        __syncwarp(); // sc is reused by the next tile
    }
#endif
}

// ------------------------------------------------------ wmma_tiled --
// Block tiles: 8 warps share a 128 x 128 tile of C, each warp 64 x 32 (4 x 2
// fragments), so every staged element of op(A) feeds 2 warps' 8 mma_sync
// and every one of op(B) 4 warps' (the one-warp rung loads each element for
// a single 16 x 16 product). k-slices of 32 are staged in shared memory by
// all 256 threads, coalesced whatever the transposes (the fastest-moving
// index follows memory); two blocks an SM, so one block's loads overlap the
// other's products (a register prefetch of the next slice took all 255
// registers with the accumulators). Shared layouts in chunks of KS columns of
// op(A) and 16 columns of op(B), rows padded by 16 bytes: every fragment
// starts 32-byte aligned (load_matrix_sync's rule) for all four input types.
constexpr int TB_M = 128, TB_N = 128, TB_K = 32, TB_THREADS = 256;

template <cupat_gemm_type IN> struct TiledShape {
    typedef In<IN> T;
    typedef typename T::smem_t E;
    static constexpr int KS = T::KS;
    static constexpr int A_PITCH = (KS * (int)sizeof(E) + 16) / (int)sizeof(E); // elements a row of a chunk
    static constexpr int B_PITCH = (16 * (int)sizeof(E) + 16) / (int)sizeof(E);
    static constexpr int A_ELEMS = (TB_K / KS) * TB_M * A_PITCH;           // chunk c: op(A)(i, c KS + q)
    static constexpr int B_ELEMS = (TB_N / 16) * TB_K * B_PITCH;           // chunk c: op(B)(p, 16 c + q)
    static constexpr int PER_THREAD = TB_M * TB_K / TB_THREADS;            // staged elements of A (and of B)
    static constexpr int BYTES = (A_ELEMS + B_ELEMS) * (int)sizeof(E);
    static constexpr int EPI_BYTES = 8 * 16 * 16 * 4;                     // a 16 x 16 scratch a warp
    static_assert(TB_M * TB_K == TB_N * TB_K, "A and B slices hold as many elements");
    static_assert(BYTES >= EPI_BYTES, "the epilogue scratch reuses the staging buffer");
};

template <cupat_gemm_type IN> __global__ void __launch_bounds__(TB_THREADS, 2) k_wmma_tiled(cupat_gemm_tc_args a)
{
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
    typedef TiledShape<IN> SH;
    typedef typename SH::T T;
    typedef typename SH::E E;
    constexpr int KS = SH::KS;
    __shared__ __align__(128) unsigned char smem[SH::BYTES];
    E *sa = (E *)smem, *sb = sa + SH::A_ELEMS;
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int wm = warp / 4, wn = warp % 4; // the warp's 64 x 32 part: rows 64 wm, columns 32 wn
    const int j0 = blockIdx.x * TB_N, mt = (a.m + TB_M - 1) / TB_M;
    for (int ti = blockIdx.y; ti < mt; ti += gridDim.y) {
        const int i0 = ti * TB_M;
        wmma::fragment<wmma::accumulator, 16, 16, KS, typename T::acc_t> acc[4][2];
#pragma unroll
        for (int x = 0; x < 4; x++)
#pragma unroll
            for (int y = 0; y < 2; y++) wmma::fill_fragment(acc[x][y], (typename T::acc_t)0);
        // element r of this thread's share of slice p0: (i, p) of op(A) and
        // (p, j) of op(B), the index that is contiguous in memory fastest;
        // loaded and stored to the chunked layout
        auto stage = [&](int p0) {
#pragma unroll 4
            for (int r = 0; r < SH::PER_THREAD; r++) {
                const int e = tid + r * TB_THREADS;
                const int i = a.ta ? e % TB_M : e / TB_K, p = a.ta ? e / TB_M : e % TB_K;
                const int gi = i0 + i, gp = p0 + p;
                sa[((p / KS) * TB_M + i) * SH::A_PITCH + p % KS] =
                    gi < a.m && gp < a.k ? T::load(a.A, a.ta ? (size_t)gp * a.lda + gi : (size_t)gi * a.lda + gp)
                                         : T::zero();
                const int pb = a.tb ? e % TB_K : e / TB_N, jb = a.tb ? e / TB_K : e % TB_N;
                const int gq = p0 + pb, gj = j0 + jb;
                sb[((jb / 16) * TB_K + pb) * SH::B_PITCH + jb % 16] =
                    gq < a.k && gj < a.n ? T::load(a.B, a.tb ? (size_t)gj * a.ldb + gq : (size_t)gq * a.ldb + gj)
                                         : T::zero();
            }
        };
        for (int p0 = 0; a.reads_ab && p0 < a.k; p0 += TB_K) {
            stage(p0);
            __syncthreads();
#pragma unroll
            for (int kk = 0; kk < TB_K; kk += KS) {
                wmma::fragment<wmma::matrix_a, 16, 16, KS, typename T::frag_t, wmma::row_major> fa[4];
                wmma::fragment<wmma::matrix_b, 16, 16, KS, typename T::frag_t, wmma::row_major> fb[2];
#pragma unroll
                for (int x = 0; x < 4; x++)
                    wmma::load_matrix_sync(fa[x], sa + ((kk / KS) * TB_M + wm * 64 + x * 16) * SH::A_PITCH,
                                           SH::A_PITCH);
#pragma unroll
                for (int y = 0; y < 2; y++)
                    wmma::load_matrix_sync(fb[y], sb + ((wn * 2 + y) * TB_K + kk) * SH::B_PITCH, SH::B_PITCH);
#pragma unroll
                for (int x = 0; x < 4; x++)
#pragma unroll
                    for (int y = 0; y < 2; y++) wmma::mma_sync(acc[x][y], fa[x], fb[y], acc[x][y]);
            }
            __syncthreads(); // every warp is done with the slice
        }
        // epilogue: each fragment through the warp's 16 x 16 scratch
        typename T::acc_t *sc = (typename T::acc_t *)smem + warp * 256;
#pragma unroll
        for (int x = 0; x < 4; x++)
#pragma unroll
            for (int y = 0; y < 2; y++) {
                wmma::store_matrix_sync(sc, acc[x][y], 16, wmma::mem_row_major);
                __syncwarp();
                for (int e = lane; e < 256; e += 32) {
                    const int i = i0 + wm * 64 + x * 16 + e / 16, j = j0 + wn * 32 + y * 16 + e % 16;
                    if (i >= a.m || j >= a.n) continue;
                    const size_t at = (size_t)i * a.ldc + j;
                    if constexpr (IN == CUPAT_GEMM_I8) cupat__tc_epilogue_i32(&a, at, (uint32_t)sc[e]);
                    else cupat__tc_epilogue_f32(&a, at, sc[e]);
                }
                __syncwarp();
            }
        __syncthreads(); // the next tile's staging overwrites the scratch
    }
#endif
}

} // namespace

// bf16 and tf32 fragments, ldmatrix and cp.async: compute capability 8.0 on.
extern "C" cupat_status cupat__gemm_tc_needs_sm80(cupat_ctx *ctx, const char *rung)
{
    int major = 0;
    CUPAT_CUDA_TRY(ctx, cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, ctx->device));
    if (major < 8)
        return cupat__fail(ctx, CUPAT_ERROR_NOT_SUPPORTED,
                           "cupat_gemm: rung %s needs compute capability 8.0 or later (bf16 and "
                           "tf32 fragments); device %d is %d.x",
                           rung, ctx->device, major);
    return CUPAT_SUCCESS;
}

extern "C" cupat_status cupat__gemm_tc_wmma(cupat_ctx *ctx, const cupat_gemm_tc_args *a)
{
    CUPAT_TRY(cupat__gemm_tc_needs_sm80(ctx, "wmma"));
    const int nt = (a->n + TILE - 1) / TILE, mt = (a->m + TILE - 1) / TILE;
    const dim3 grid((unsigned)nt, (unsigned)(mt < 65535 ? mt : 65535));
    switch (a->in) {
    case CUPAT_GEMM_F16: k_wmma<CUPAT_GEMM_F16><<<grid, 32, 0, ctx->stream>>>(*a); break;
    case CUPAT_GEMM_BF16: k_wmma<CUPAT_GEMM_BF16><<<grid, 32, 0, ctx->stream>>>(*a); break;
    case CUPAT_GEMM_TF32: k_wmma<CUPAT_GEMM_TF32><<<grid, 32, 0, ctx->stream>>>(*a); break;
    case CUPAT_GEMM_I8: k_wmma<CUPAT_GEMM_I8><<<grid, 32, 0, ctx->stream>>>(*a); break;
    default:
        return cupat__fail(ctx, CUPAT_ERROR_INTERNAL, "cupat_gemm: wmma: input type %d (a bug)", (int)a->in);
    }
    return cupat__launched(ctx, "k_wmma");
}

extern "C" cupat_status cupat__gemm_tc_wmma_tiled(cupat_ctx *ctx, const cupat_gemm_tc_args *a)
{
    CUPAT_TRY(cupat__gemm_tc_needs_sm80(ctx, "wmma_tiled"));
    const int nt = (a->n + TB_N - 1) / TB_N, mt = (a->m + TB_M - 1) / TB_M;
    const dim3 grid((unsigned)nt, (unsigned)(mt < 65535 ? mt : 65535));
    switch (a->in) {
    case CUPAT_GEMM_F16: k_wmma_tiled<CUPAT_GEMM_F16><<<grid, TB_THREADS, 0, ctx->stream>>>(*a); break;
    case CUPAT_GEMM_BF16: k_wmma_tiled<CUPAT_GEMM_BF16><<<grid, TB_THREADS, 0, ctx->stream>>>(*a); break;
    case CUPAT_GEMM_TF32: k_wmma_tiled<CUPAT_GEMM_TF32><<<grid, TB_THREADS, 0, ctx->stream>>>(*a); break;
    case CUPAT_GEMM_I8: k_wmma_tiled<CUPAT_GEMM_I8><<<grid, TB_THREADS, 0, ctx->stream>>>(*a); break;
    default:
        return cupat__fail(ctx, CUPAT_ERROR_INTERNAL, "cupat_gemm: wmma_tiled: input type %d (a bug)",
                           (int)a->in);
    }
    return cupat__launched(ctx, "k_wmma_tiled");
}
