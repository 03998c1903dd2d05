// SPDX-License-Identifier: Apache-2.0
/* gemm.cu — the FP32 matrix-multiplication ladder on CUDA cores, rung by rung,
 * up to the warp-tiled kernel; the multistage cp.async kernels that finish the
 * ladder are in gemm_async.cu.
 *
 * Every problem is row-major (gemm.c turns column-major calls around):
 * C (M x N, ldc) = alpha op(A) op(B) + beta C, with op(A)(i,p) = A[i*lda+p]
 * (TA false) or A[p*lda+i] (TA true), op(B)(p,j) = B[p*ldb+j] (TB false) or
 * B[j*ldb+p] (TB true). Each kernel is instantiated for the four op
 * combinations, so the layout costs nothing at run time. All rungs handle any
 * shape and leading dimension; vec4 and warptile use 16-byte loads when the
 * leading dimensions and pointers allow and scalar loads otherwise. */
#include "gemm/gemm_device.cuh"
#include "gemm/gemm_internal.h"

#include <stdint.h>
#include <type_traits>

namespace {
using namespace cupat_gemm_dev;

typedef void (*gemm_kernel_t)(int, int, int, float, const float *, size_t, const float *,
                              size_t, float, float *, size_t);

/* Element (i, p) of op(A) and (p, j) of op(B). */
template <bool TA>
__device__ __forceinline__ float op_a(const float *A, size_t lda, int i, int p)
{
    return TA ? A[(size_t)p * lda + i] : A[(size_t)i * lda + p];
}
template <bool TB>
__device__ __forceinline__ float op_b(const float *B, size_t ldb, int p, int j)
{
    return TB ? B[(size_t)j * ldb + p] : B[(size_t)p * ldb + j];
}

/* ---- rung "naive" (PMPP 3.4): one thread per output element. Each thread
 * reads a row of op(A) and a column of op(B) from global memory: 2 loads per
 * FMA, so the kernel runs at the speed of the L1/L2, not the FP32 units. */
template <bool TA, bool TB>
__global__ void __launch_bounds__(256)
    gemm_naive(int M, int N, int K, float alpha, const float *__restrict__ A, size_t lda,
               const float *__restrict__ B, size_t ldb, float beta, float *__restrict__ C,
               size_t ldc)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= M || j >= N) return;
    float acc = 0.0f;
    for (int p = 0; p < K; ++p) acc = fmaf(op_a<TA>(A, lda, i, p), op_b<TB>(B, ldb, p, j), acc);
    float *c = C + (size_t)i * ldc + j;
    *c = axpby(acc, alpha, beta, c);
}

/* ---- rungs "tiled16" / "tiled32" (PMPP 5.3-5.5): the block stages a
 * TILE x TILE tile of op(A) and of op(B) in shared memory and every element
 * loaded is used TILE times: global traffic falls by TILE. Tiles past the
 * matrix edges are zero-filled (boundary checks, 5.5), so any M, N, K works.
 * Corner turning (PMPP 6.1): for a transposed operand the threads of a warp
 * still read consecutive addresses and write the tile transposed; the +1
 * padding keeps those column writes free of bank conflicts. The inner loop is
 * kept rolled (#pragma unroll 1) so the unroll rung shows what unrolling buys. */
template <int TILE, bool TA, bool TB>
__global__ void __launch_bounds__(TILE *TILE)
    gemm_tiled(int M, int N, int K, float alpha, const float *__restrict__ A, size_t lda,
               const float *__restrict__ B, size_t ldb, float beta, float *__restrict__ C,
               size_t ldc)
{
    __shared__ float As[TILE][TILE + 1]; /* As[i][p] */
    __shared__ float Bs[TILE][TILE + 1]; /* Bs[p][j] */
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int m0 = blockIdx.y * TILE, n0 = blockIdx.x * TILE;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TILE) {
        if (!TA) {
            int i = m0 + ty, p = k0 + tx;
            As[ty][tx] = (i < M && p < K) ? A[(size_t)i * lda + p] : 0.0f;
        } else { /* A stored K x M: lanes walk i, the contiguous index */
            int p = k0 + ty, i = m0 + tx;
            As[tx][ty] = (i < M && p < K) ? A[(size_t)p * lda + i] : 0.0f;
        }
        if (!TB) {
            int p = k0 + ty, j = n0 + tx;
            Bs[ty][tx] = (p < K && j < N) ? B[(size_t)p * ldb + j] : 0.0f;
        } else { /* B stored N x K: lanes walk p */
            int j = n0 + ty, p = k0 + tx;
            Bs[tx][ty] = (p < K && j < N) ? B[(size_t)j * ldb + p] : 0.0f;
        }
        __syncthreads();
#pragma unroll 1
        for (int p = 0; p < TILE; ++p) acc = fmaf(As[ty][p], Bs[p][tx], acc);
        __syncthreads();
    }
    int i = m0 + ty, j = n0 + tx;
    if (i < M && j < N) {
        float *c = C + (size_t)i * ldc + j;
        *c = axpby(acc, alpha, beta, c);
    }
}

/* ---- rungs "coarse", "unroll", "prefetch" (PMPP 6.3; lecture "Advanced
 * Techniques"). TILE 32, and each thread computes CF = 4 outputs of one row,
 * CF tiles apart: the A tile is loaded once for CF B tiles and each As read
 * feeds CF FMAs (coarsening removes the redundant A loads of CF blocks).
 *   UNROLL:   the inner product is fully unrolled, so the instruction stream is
 *             FMAs with constant shared-memory offsets instead of
 *             load/add/compare/branch per step (instruction mix).
 *   PREFETCH: the next tile is read from global memory into registers before
 *             the current tile is consumed, so its latency overlaps the FMAs
 *             (the lecture's "with prefetching" loop). */
template <bool TA, bool TB, bool UNROLL, bool PREFETCH>
__global__ void __launch_bounds__(1024)
    gemm_coarse(int M, int N, int K, float alpha, const float *__restrict__ A, size_t lda,
                const float *__restrict__ B, size_t ldb, float beta, float *__restrict__ C,
                size_t ldc)
{
    constexpr int T = 32, CF = 4;
    __shared__ float As[T][T + 1];
    __shared__ float Bs[CF][T][T + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int m0 = blockIdx.y * T, n0 = blockIdx.x * T * CF;
    float acc[CF];
#pragma unroll
    for (int c = 0; c < CF; ++c) acc[c] = 0.0f;
    float ra, rb[CF]; /* this thread's share of a tile, in registers */

    /* corner-turned loads: lanes (tx) always walk the contiguous index */
    auto load = [&](int k0) {
        int i = TA ? m0 + tx : m0 + ty, p = TA ? k0 + ty : k0 + tx;
        ra = (i < M && p < K) ? op_a<TA>(A, lda, i, p) : 0.0f;
#pragma unroll
        for (int c = 0; c < CF; ++c) {
            int j = n0 + c * T + (TB ? ty : tx), q = TB ? k0 + tx : k0 + ty;
            rb[c] = (q < K && j < N) ? op_b<TB>(B, ldb, q, j) : 0.0f;
        }
    };

    if (PREFETCH) load(0);
    for (int k0 = 0; k0 < K; k0 += T) {
        if (!PREFETCH) load(k0);
        if (TA) As[tx][ty] = ra; else As[ty][tx] = ra;
#pragma unroll
        for (int c = 0; c < CF; ++c) {
            if (TB) Bs[c][tx][ty] = rb[c]; else Bs[c][ty][tx] = rb[c];
        }
        __syncthreads();
        if (PREFETCH && k0 + T < K) load(k0 + T); /* in flight during the FMAs */
#pragma unroll(UNROLL ? T : 1)
        for (int p = 0; p < T; ++p) {
            float a = As[ty][p];
#pragma unroll
            for (int c = 0; c < CF; ++c) acc[c] = fmaf(a, Bs[c][p][tx], acc[c]);
        }
        __syncthreads();
    }
    int i = m0 + ty;
    if (i >= M) return;
#pragma unroll
    for (int c = 0; c < CF; ++c) {
        int j = n0 + c * T + tx;
        if (j < N) {
            float *cp = C + (size_t)i * ldc + j;
            *cp = axpby(acc[c], alpha, beta, cp);
        }
    }
}

/* Up to four consecutive floats starting at p, of which `valid` exist
 * (the rest read as 0). VEC: p is 16-byte aligned, so four valid ones are one
 * 16-byte load (LDG.128). */
template <bool VEC>
__device__ __forceinline__ float4 load4(const float *p, int valid)
{
    if (VEC && valid >= 4) return __ldg(reinterpret_cast<const float4 *>(p));
    float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (valid > 0) v.x = __ldg(p);
    if (valid > 1) v.y = __ldg(p + 1);
    if (valid > 2) v.z = __ldg(p + 2);
    if (valid > 3) v.w = __ldg(p + 3);
    return v;
}

__device__ __forceinline__ int clamp4(int v) { return v < 0 ? 0 : (v > 4 ? 4 : v); }

/* The epilogue of a thread that owns the contiguous TM x TN block at (i0, j0)
 * (regblock, vec4): 16-byte stores where C allows. */
template <int TM, int TN>
__device__ __forceinline__ void store_block(float *C, size_t ldc, int M, int N, int i0, int j0,
                                            const float (&acc)[TM][TN], float alpha, float beta)
{
    const bool cvec = c_vectorizable(C, ldc);
#pragma unroll
    for (int x = 0; x < TM; ++x)
#pragma unroll
        for (int y = 0; y < TN; y += 4)
            store_row4(C, ldc, M, N, i0 + x, j0 + y, &acc[x][y], alpha, beta, cvec);
}

/* ---- rung "regblock" (PMPP 6.3 taken to two dimensions; PMPP 5.6): a 128x128
 * block tile, K step 8, 256 threads, each computing an 8x8 block of outputs in
 * registers. Per K step a thread reads 8 values of A and 8 of B from shared
 * memory and does 64 FMAs (vs 1 FMA per 2 shared loads in the tiled rungs):
 * register blocking moves the bottleneck from shared memory to the FP32 units.
 * Loads are scalar and any layout works; As is stored as it is read from an
 * untransposed A (As[i][p]), so a thread's 8 A values are 8 separate loads,
 * and the B reads Bs[p][8 tx + j] collide four ways in the banks. */
template <bool TA, bool TB>
__global__ void __launch_bounds__(256)
    gemm_regblock(int M, int N, int K, float alpha, const float *__restrict__ A, size_t lda,
                  const float *__restrict__ B, size_t ldb, float beta, float *__restrict__ C,
                  size_t ldc)
{
    constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
    __shared__ float As[BM][BK];
    __shared__ float Bs[BK][BN];
    const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    float acc[TM][TN] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
        for (int r = 0; r < BM * BK / 256; ++r) {
            int e = r * 256 + tid;
            /* consecutive threads take consecutive addresses in either layout */
            int i = TA ? e % BM : e / BK, p = TA ? e / BM : e % BK;
            As[i][p] = (m0 + i < M && k0 + p < K) ? op_a<TA>(A, lda, m0 + i, k0 + p) : 0.0f;
            int j = TB ? e / BK : e % BN, q = TB ? e % BK : e / BN;
            Bs[q][j] = (k0 + q < K && n0 + j < N) ? op_b<TB>(B, ldb, k0 + q, n0 + j) : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int p = 0; p < BK; ++p) {
            float a[TM], b[TN];
#pragma unroll
            for (int x = 0; x < TM; ++x) a[x] = As[ty * TM + x][p];
#pragma unroll
            for (int y = 0; y < TN; ++y) b[y] = Bs[p][tx * TN + y];
            outer_product(acc, a, b);
        }
        __syncthreads();
    }
    store_block(C, ldc, M, N, m0 + ty * TM, n0 + tx * TN, acc, alpha, beta);
}

/* Global -> register staging shared by vec4 and warptile: one tile of op(A)
 * (BM x BK) and of op(B) (BK x BN) as float4 runs along each operand's
 * contiguous index, and the matching stores into K-major shared tiles
 * As[p][i], Bs[p][j]. Untransposed A (and transposed B) are contiguous in k,
 * so their runs are written transposed, one float per row of the tile: that
 * is what makes the later fragment reads 16-byte loads along i. Thread t
 * takes row (t % 128) and k-run (t / 128) there, so a warp writes 32
 * consecutive floats: no bank conflicts. */
template <bool TA, bool TB, bool VEC, int BM, int BN, int BK, int NT, int SA, int SB>
struct Stage4 {
    static_assert(BM == 128 && BN == 128 && BK == 8 && NT == 256, "layout written for this");
    float4 ra, rb;
    __device__ __forceinline__ void load(const float *A, size_t lda, const float *B,
                                         size_t ldb, int M, int N, int K, int m0, int n0,
                                         int k0, int tid)
    {
        if (!TA) { /* A row i, k run p..p+3 */
            int i = m0 + tid % 128, p = k0 + (tid / 128) * 4;
            ra = load4<VEC>(A + (size_t)i * lda + p, i < M ? clamp4(K - p) : 0);
        } else { /* A^T stored: row p, i run */
            int p = k0 + tid / 32, i = m0 + (tid % 32) * 4;
            ra = load4<VEC>(A + (size_t)p * lda + i, p < K ? clamp4(M - i) : 0);
        }
        if (!TB) {
            int p = k0 + tid / 32, j = n0 + (tid % 32) * 4;
            rb = load4<VEC>(B + (size_t)p * ldb + j, p < K ? clamp4(N - j) : 0);
        } else {
            int j = n0 + tid % 128, p = k0 + (tid / 128) * 4;
            rb = load4<VEC>(B + (size_t)j * ldb + p, j < N ? clamp4(K - p) : 0);
        }
    }
    __device__ __forceinline__ void store(float *As, float *Bs, int tid) const
    {
        if (!TA) {
            int i = tid % 128, p = (tid / 128) * 4;
            As[(p + 0) * SA + i] = ra.x;
            As[(p + 1) * SA + i] = ra.y;
            As[(p + 2) * SA + i] = ra.z;
            As[(p + 3) * SA + i] = ra.w;
        } else {
            *reinterpret_cast<float4 *>(&As[(tid / 32) * SA + (tid % 32) * 4]) = ra;
        }
        if (!TB) {
            *reinterpret_cast<float4 *>(&Bs[(tid / 32) * SB + (tid % 32) * 4]) = rb;
        } else {
            int j = tid % 128, p = (tid / 128) * 4;
            Bs[(p + 0) * SB + j] = rb.x;
            Bs[(p + 1) * SB + j] = rb.y;
            Bs[(p + 2) * SB + j] = rb.z;
            Bs[(p + 3) * SB + j] = rb.w;
        }
    }
};

/* ---- rung "vec4" (lecture: memory coalescing and granularity; CUDA guide
 * 5.3.2 on 16-byte accesses): the regblock tile with 16-byte global loads and
 * the A tile stored K-major (transposed), so the 8 A values and 8 B values a
 * thread needs per k are two 16-byte shared loads each (LDS.128) instead of
 * eight 4-byte ones. Threads still own contiguous 8x8 blocks, so the B reads
 * of a warp (16 threads 32 bytes apart) still hit the same banks. */
template <bool TA, bool TB, bool VEC>
__global__ void __launch_bounds__(256)
    gemm_vec4(int M, int N, int K, float alpha, const float *__restrict__ A, size_t lda,
              const float *__restrict__ B, size_t ldb, float beta, float *__restrict__ C,
              size_t ldc)
{
    constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
    __shared__ __align__(16) float As[BK * BM];
    __shared__ __align__(16) float Bs[BK * BN];
    const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    Stage4<TA, TB, VEC, BM, BN, BK, 256, BM, BN> st;
    float acc[TM][TN] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
        st.load(A, lda, B, ldb, M, N, K, m0, n0, k0, tid);
        st.store(As, Bs, tid);
        __syncthreads();
#pragma unroll
        for (int p = 0; p < BK; ++p) {
            float a[TM], b[TN];
            *reinterpret_cast<float4 *>(&a[0]) =
                *reinterpret_cast<const float4 *>(&As[p * BM + ty * TM]);
            *reinterpret_cast<float4 *>(&a[4]) =
                *reinterpret_cast<const float4 *>(&As[p * BM + ty * TM + 4]);
            *reinterpret_cast<float4 *>(&b[0]) =
                *reinterpret_cast<const float4 *>(&Bs[p * BN + tx * TN]);
            *reinterpret_cast<float4 *>(&b[4]) =
                *reinterpret_cast<const float4 *>(&Bs[p * BN + tx * TN + 4]);
            outer_product(acc, a, b);
        }
        __syncthreads();
    }
    store_block(C, ldc, M, N, m0 + ty * TM, n0 + tx * TN, acc, alpha, beta);
}

/* ---- rung "warptile": the 128x128 tile split into 2 x 4 warp tiles of
 * 64 x 32; inside a warp, lanes form 8 x 4 and each owns four 4x4 blocks, 32
 * rows / 16 columns apart. A fragment read As[p][lane_i*4 .. +3] then covers
 * 128 contiguous bytes over the warp (8 distinct float4, each broadcast to 4
 * lanes) and B 64 bytes: conflict-free LDS.128. Two shared buffers let the
 * next tile be stored while the current one is read (one barrier per tile);
 * it is fetched into registers at the top of the tile (prefetching), and the
 * fragments of step p+1 are loaded while step p's 64 FMAs run. */
template <bool TA, bool TB, bool VEC>
__global__ void __launch_bounds__(256)
    gemm_warptile(int M, int N, int K, float alpha, const float *__restrict__ A, size_t lda,
                  const float *__restrict__ B, size_t ldb, float beta, float *__restrict__ C,
                  size_t ldc)
{
    constexpr int BM = 128, BN = 128, BK = 8, WN = 4;
    __shared__ __align__(16) float As[2][BK * BM];
    __shared__ __align__(16) float Bs[2][BK * BN];
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int wi = (warp / WN) * 64 + (lane / 4) * 4; /* first row of the thread's blocks */
    const int wj = (warp % WN) * 32 + (lane % 4) * 4; /* first column */
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    Stage4<TA, TB, VEC, BM, BN, BK, 256, BM, BN> st;
    float acc[8][8] = {};
    float fa[2][8], fb[2][8];

    auto frag = [&](int buf, int s, int p) {
        const float *as = &As[s][p * BM + wi], *bs = &Bs[s][p * BN + wj];
        *reinterpret_cast<float4 *>(&fa[buf][0]) = *reinterpret_cast<const float4 *>(as);
        *reinterpret_cast<float4 *>(&fa[buf][4]) = *reinterpret_cast<const float4 *>(as + 32);
        *reinterpret_cast<float4 *>(&fb[buf][0]) = *reinterpret_cast<const float4 *>(bs);
        *reinterpret_cast<float4 *>(&fb[buf][4]) = *reinterpret_cast<const float4 *>(bs + 16);
    };

    st.load(A, lda, B, ldb, M, N, K, m0, n0, 0, tid);
    st.store(As[0], Bs[0], tid);
    __syncthreads();
    frag(0, 0, 0);
    int s = 0;
    for (int k0 = 0; k0 < K; k0 += BK) {
        const bool next = k0 + BK < K;
        if (next) st.load(A, lda, B, ldb, M, N, K, m0, n0, k0 + BK, tid);
#pragma unroll
        for (int p = 0; p < BK; ++p) {
            if (p + 1 < BK) frag((p + 1) & 1, s, p + 1);
            outer_product(acc, fa[p & 1], fb[p & 1]);
        }
        if (next) {
            st.store(As[s ^ 1], Bs[s ^ 1], tid);
            __syncthreads();
            s ^= 1;
            frag(0, s, 0);
        }
    }
    bool cvec = c_vectorizable(C, ldc);
#pragma unroll
    for (int x = 0; x < 8; ++x)
#pragma unroll
        for (int y = 0; y < 8; y += 4)
            store_row4(C, ldc, M, N, m0 + wi + (x / 4) * 32 + x % 4, n0 + wj + (y / 4) * 16,
                       &acc[x][y], alpha, beta, cvec);
}

/* C = beta C (alpha == 0 or k == 0); beta == 0 writes zeros without reading. */
__global__ void gemm_scale(int M, int N, float beta, float *__restrict__ C, size_t ldc)
{
    for (int i = blockIdx.y; i < M; i += gridDim.y)
        for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < N; j += gridDim.x * blockDim.x) {
            float *c = C + (size_t)i * ldc + j;
            *c = beta != 0.0f ? beta * *c : 0.0f;
        }
}

/* ------------------------------------------------------------ launch -- */

struct rung_launch {
    gemm_kernel_t fn;
    dim3 block;
    int bm, bn; /* output tile of one block */
    const char *name;
};

template <bool TA, bool TB, bool VEC>
rung_launch rung_kernel_t(int rung)
{
    switch (rung) {
    case GEMM_NAIVE: return {gemm_naive<TA, TB>, dim3(16, 16), 16, 16, "gemm_naive"};
    case GEMM_TILED16: return {gemm_tiled<16, TA, TB>, dim3(16, 16), 16, 16, "gemm_tiled<16>"};
    case GEMM_TILED32: return {gemm_tiled<32, TA, TB>, dim3(32, 32), 32, 32, "gemm_tiled<32>"};
    case GEMM_COARSE:
        return {gemm_coarse<TA, TB, false, false>, dim3(32, 32), 32, 128, "gemm_coarse"};
    case GEMM_UNROLL:
        return {gemm_coarse<TA, TB, true, false>, dim3(32, 32), 32, 128, "gemm_coarse<unroll>"};
    case GEMM_PREFETCH:
        return {gemm_coarse<TA, TB, true, true>, dim3(32, 32), 32, 128,
                "gemm_coarse<unroll,prefetch>"};
    case GEMM_REGBLOCK: return {gemm_regblock<TA, TB>, dim3(256), 128, 128, "gemm_regblock"};
    case GEMM_VEC4: return {gemm_vec4<TA, TB, VEC>, dim3(256), 128, 128, "gemm_vec4"};
    case GEMM_WARPTILE:
        return {gemm_warptile<TA, TB, VEC>, dim3(256), 128, 128, "gemm_warptile"};
    }
    return {nullptr, dim3(1), 1, 1, "none"};
}

rung_launch rung_kernel(int rung, int ta, int tb, bool vec)
{
    if (vec) {
        if (ta) return tb ? rung_kernel_t<true, true, true>(rung) : rung_kernel_t<true, false, true>(rung);
        return tb ? rung_kernel_t<false, true, true>(rung) : rung_kernel_t<false, false, true>(rung);
    }
    if (ta) return tb ? rung_kernel_t<true, true, false>(rung) : rung_kernel_t<true, false, false>(rung);
    return tb ? rung_kernel_t<false, true, false>(rung) : rung_kernel_t<false, false, false>(rung);
}

bool aligned16(const void *p, size_t ld) { return ((uintptr_t)p & 15) == 0 && (ld & 3) == 0; }

} // namespace

extern "C" cupat_status cupat__gemm_cuda_rung(cupat_ctx *ctx, int rung,
                                              const cupat_gemm_args *a)
{
    /* 16-byte loads need every row of both operands 16-byte aligned */
    bool vec = aligned16(a->A, a->lda) && aligned16(a->B, a->ldb);
    rung_launch L = rung_kernel(rung, a->ta, a->tb, vec);
    if (!L.fn)
        return cupat__fail(ctx, CUPAT_ERROR_INTERNAL, "cupat_gemm_f32: no CUDA rung %d", rung);
    /* gridDim.y <= 65535: taller problems run as bands of rows */
    const int band = 65535 * L.bm;
    for (int r0 = 0; r0 < a->m; r0 += band) {
        int rows = a->m - r0 < band ? a->m - r0 : band;
        const float *A = a->A + (a->ta ? (size_t)r0 : (size_t)r0 * a->lda);
        dim3 grid((unsigned)((a->n + L.bn - 1) / L.bn), (unsigned)((rows + L.bm - 1) / L.bm));
        L.fn<<<grid, L.block, 0, ctx->stream>>>(rows, a->n, a->k, a->alpha, A, a->lda, a->B,
                                                a->ldb, a->beta, a->C + (size_t)r0 * a->ldc,
                                                a->ldc);
        CUPAT_TRY(cupat__launched(ctx, L.name));
    }
    return CUPAT_SUCCESS;
}

extern "C" cupat_status cupat__gemm_cuda_scale(cupat_ctx *ctx, const cupat_gemm_args *a)
{
    if (a->m <= 0 || a->n <= 0) return CUPAT_SUCCESS;
    dim3 block(256);
    unsigned gx = (unsigned)((a->n + 255) / 256);
    dim3 grid(gx < 64 ? gx : 64, a->m < 65535 ? a->m : 65535);
    gemm_scale<<<grid, block, 0, ctx->stream>>>(a->m, a->n, a->beta, a->C, a->ldc);
    return cupat__launched(ctx, "gemm_scale");
}

/* Fill `out` from cudaFuncGetAttributes and the occupancy calculator. */
extern "C" cupat_status cupat__gemm_fill_resources(cupat_ctx *ctx, const void *fn,
                                                   int threads, size_t dyn_smem,
                                                   const char *name,
                                                   cupat_gemm_resources *out)
{
    cudaFuncAttributes fa;
    CUPAT_CUDA_TRY(ctx, cudaFuncGetAttributes(&fa, fn));
    int blocks = 0;
    CUPAT_CUDA_TRY(ctx, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, fn, threads,
                                                                      dyn_smem));
    out->kernel = name;
    out->regs = fa.numRegs;
    out->smem_static = fa.sharedSizeBytes;
    out->smem_dynamic = dyn_smem;
    out->local_bytes = fa.localSizeBytes;
    out->threads = threads;
    out->blocks_per_sm = blocks;
    int maxw = ctx->max_threads_per_sm > 0 ? ctx->max_threads_per_sm / 32 : 64;
    out->occupancy = (double)blocks * ((threads + 31) / 32) / maxw;
    return CUPAT_SUCCESS;
}

extern "C" cupat_status cupat__gemm_cuda_resources(cupat_ctx *ctx, int rung, int cfg,
                                                   cupat_gemm_resources *out)
{
    if (rung == GEMM_ASYNC) return cupat__gemm_cuda_async_resources(ctx, GEMM_CONFIG_ASYNC, out);
    if (rung == GEMM_AUTO) return cupat__gemm_cuda_async_resources(ctx, cfg, out);
    rung_launch L = rung_kernel(rung, 0, 0, true);
    if (!L.fn)
        return cupat__fail(ctx, CUPAT_ERROR_NOT_FOUND, "gemm resources: no CUDA rung %d", rung);
    return cupat__gemm_fill_resources(ctx, (const void *)L.fn,
                                      (int)(L.block.x * L.block.y * L.block.z), 0, L.name, out);
}
