// SPDX-License-Identifier: Apache-2.0
/* gemm_async.cuh — the top of the gemm ladder: warp-tiled FP32 GEMM fed by a
 * multistage cp.async pipeline (CUDA guide 10.27-10.28), its tile
 * configurations (rung "auto" picks one by shape, gemm.c), and split-K.
 *
 * Row-major problem as in gemm.cu. Shared tiles are K-major for both operands
 * (As[p][i], Bs[p][j]) so every fragment read is a 16-byte LDS along i or j.
 *
 * Copies: cp.async moves global memory straight into shared memory without
 * passing through registers, and a thread can have several tiles in flight
 * (one commit group per tile) while it computes on an older one: STAGES - 1
 * tiles are always on their way. Its src-size operand zero-fills the bytes past
 * it, which is how the tiles at the matrix edges are padded (no branches).
 *   - operand contiguous along i (A^T stored) or j (B stored), rows 16-byte
 *     aligned (VEC): 16-byte copies, a warp covering 512 contiguous bytes;
 *   - the same without alignment: 4-byte copies, 128 contiguous bytes a warp;
 *   - operand contiguous along k (A stored, B^T stored): 4-byte copies that
 *     transpose on the way in; lanes take 8 consecutive k of 4 rows (four full
 *     32-byte sectors) and the row stride of the shared tile, BM + 4, spreads
 *     those 32 writes over 32 banks.
 * This is the primitive behind cuda::memcpy_async with a cuda::pipeline
 * (cp.async, commit_group, wait_group), written directly so that the src-size
 * is a register and the copy loop has no switch. */
#ifndef CUPAT_GEMM_ASYNC_CUH
#define CUPAT_GEMM_ASYNC_CUH
/* The kernel template and the configuration table live here; the
 * instantiations are spread over gemm_async.cu (part 0), gemm_async_p1.cu and
 * gemm_async_p2.cu (parts 1 and 2: the 8x16 / 16x8 thread tiles) so that a
 * parallel build compiles them at once. Each part's table holds the kernels
 * of its own configurations and null elsewhere. */
#include "gemm/gemm_device.cuh"
#include "gemm/gemm_internal.h"

#include <stdint.h>

namespace cupat_gemm_detail {
typedef void (*async_fn)(int, int, int, int, float, const float *, size_t, const float *,
                         size_t, float, float *, size_t, float *);
struct config_fns {
    async_fn (*vec)(int, int);
    async_fn (*scalar)(int, int);
};
constexpr int kMaxConfigs = 32; /* allow_smem keeps 8 bits a config */
extern const config_fns part0[], part1[], part2[];
} // namespace cupat_gemm_detail

namespace {
using cupat_gemm_detail::async_fn;
using cupat_gemm_detail::config_fns;

__device__ __forceinline__ void cp_async4(float *smem, const float *gmem, int src_bytes)
{
    unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(s), "l"(gmem),
                 "r"(src_bytes));
}
__device__ __forceinline__ void cp_async16(float *smem, const float *gmem, int src_bytes)
{
    unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem),
                 "r"(src_bytes));
}
/* The same without src-size: the whole element is inside the matrix. */
__device__ __forceinline__ void cp_async4_full(float *smem, const float *gmem)
{
    unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(s), "l"(gmem));
}
__device__ __forceinline__ void cp_async16_full(float *smem, const float *gmem)
{
    unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> __device__ __forceinline__ void cp_async_wait()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

/* Copies of one operand's BK x BD tile (D = i for A, j for B) into a K-major
 * shared tile with row stride SD, by NT threads. KCONTIG: the operand is
 * contiguous along k in global memory (A, or B^T). Per-thread pointers and
 * row masks are set once; a tile only adds k0 (the loop over copies unrolls,
 * every offset but k0 is a constant or a multiple of ld). */
template <int BD, int BK, int NT, int SD, bool KCONTIG, bool VEC>
struct TileCopy {
    /* KCONTIG: thread = (row r0 + 32/.. , k-lane kq); copy u adds rows */
    static constexpr int ROWS_PER = NT / 8;              /* rows a pass covers      */
    static constexpr int KC_COPIES = BD * BK / NT;        /* 4-byte copies a thread  */
    static constexpr int RPASS = BD / ROWS_PER;           /* passes over the rows    */
    /* !KCONTIG & VEC: thread = (k row, 4-float column run) */
    static constexpr int V_RUNS = BD / 4;                 /* runs per k row          */
    static constexpr int V_KPER = NT / V_RUNS;            /* k rows a pass covers    */
    static constexpr int V_COPIES = BK / V_KPER;
    /* !KCONTIG & !VEC: thread = (k row, one column; S_CPASS columns S_COLS
     * apart when the tile is wider than the CTA) */
    static constexpr int S_COLS = NT < BD ? NT : BD;
    static constexpr int S_CPASS = BD / S_COLS;
    static constexpr int S_KPER = NT / S_COLS;
    static constexpr int S_COPIES = S_CPASS * (BK / S_KPER);
    static_assert(!KCONTIG || (BD % ROWS_PER == 0 && BK % 8 == 0 && NT % 8 == 0 && RPASS <= 32),
                  "kcontig");
    static_assert(KCONTIG || !VEC || (NT % V_RUNS == 0 && BK % V_KPER == 0), "vec");
    static_assert(KCONTIG || VEC || (BD % S_COLS == 0 && BK % S_KPER == 0 && S_CPASS <= 32),
                  "scalar");

    const float *g;  /* thread's first element at k0 = 0, clamped into the matrix
                      * (where it is clamped, none of its copies is valid, and it
                      * is only the harmless source of zero-byte copies) */
    size_t ld;
    int sofs;        /* thread's first element in the shared tile */
    unsigned mask;   /* KCONTIG: bit u set when row of copy u exists;
                      * !KCONTIG & !VEC: bit cp when column pass cp exists */
    int kq;          /* KCONTIG: k within an 8-run; else: k row of copy 0 */
    int vbytes;      /* !KCONTIG & VEC: bytes of the run that exist */

    __device__ __forceinline__ void init(const float *base, size_t ld_, int d0, int D, int K,
                                         int tid)
    {
        ld = ld_;
        if (KCONTIG) {
            kq = tid % 8;
            int r = tid / 8;
            g = base + (size_t)min(d0 + r, D - 1) * ld + min(kq, K - 1);
            sofs = kq * SD + r;
            mask = 0;
#pragma unroll
            for (int u = 0; u < RPASS; ++u)
                if (d0 + r + u * ROWS_PER < D) mask |= 1u << u;
        } else if (VEC) {
            int c = (tid % V_RUNS) * 4;
            kq = tid / V_RUNS;
            g = base + (size_t)min(kq, K - 1) * ld + min(d0 + c, (D - 1) & ~3);
            sofs = kq * SD + c;
            int left = D - (d0 + c);
            vbytes = left >= 4 ? 16 : (left > 0 ? left * 4 : 0);
        } else {
            int c = tid % S_COLS;
            kq = tid / S_COLS;
            g = base + (size_t)min(kq, K - 1) * ld + min(d0 + c, D - 1);
            sofs = kq * SD + c;
            mask = 0;
#pragma unroll
            for (int cp = 0; cp < S_CPASS; ++cp)
                if (d0 + c + cp * S_COLS < D) mask |= 1u << cp;
        }
    }

    static constexpr int COPIES = KCONTIG ? KC_COPIES : VEC ? V_COPIES : S_COPIES;

    /* Copy u (0 <= u < COPIES) of the tile at k0 into shared tile s; klim = K - k0. */
    __device__ __forceinline__ void copy(int u, float *s, int k0, int klim) const
    {
        if (KCONTIG) {
            const int pass = u % RPASS, kh = u / RPASS; /* rows first, then k halves */
            bool ok = ((mask >> pass) & 1u) && (kq + kh * 8 < klim);
            const float *src = g + k0 + (size_t)pass * ROWS_PER * ld + kh * 8;
            cp_async4(s + sofs + kh * 8 * SD + pass * ROWS_PER, ok ? src : g, ok ? 4 : 0);
        } else if (VEC) {
            bool ok = kq + u * V_KPER < klim;
            const float *src = g + (size_t)(k0 + u * V_KPER) * ld;
            cp_async16(s + sofs + u * V_KPER * SD, ok ? src : g, ok ? vbytes : 0);
        } else {
            const int cp = u % S_CPASS, kr = u / S_CPASS; /* column pass, k row */
            bool ok = ((mask >> cp) & 1u) && (kq + kr * S_KPER < klim);
            const float *src = g + (size_t)(k0 + kr * S_KPER) * ld + cp * S_COLS;
            cp_async4(s + sofs + kr * S_KPER * SD + cp * S_COLS, ok ? src : g, ok ? 4 : 0);
        }
    }
    /* All copies of the tile at once. */
    __device__ __forceinline__ void issue(float *s, int k0, int klim) const
    {
#pragma unroll
        for (int u = 0; u < COPIES; ++u) copy(u, s, k0, klim);
    }
    /* The same for a tile wholly inside the matrix (all BD rows or columns,
     * all BK k): no masks, no clamps, no size operands. Interior tiles are
     * nearly all of a large problem, and the edge path's per-copy predicates
     * and pointer selects cost ~15% of a k tile's non-FMA instructions. */
    __device__ __forceinline__ void issue_full(float *s, int k0) const
    {
#pragma unroll
        for (int u = 0; u < COPIES; ++u) {
            if (KCONTIG) {
                const int pass = u % RPASS, kh = u / RPASS;
                cp_async4_full(s + sofs + kh * 8 * SD + pass * ROWS_PER,
                               g + k0 + (size_t)pass * ROWS_PER * ld + kh * 8);
            } else if (VEC) {
                cp_async16_full(s + sofs + u * V_KPER * SD, g + (size_t)(k0 + u * V_KPER) * ld);
            } else {
                const int cp = u % S_CPASS, kr = u / S_CPASS;
                cp_async4_full(s + sofs + kr * S_KPER * SD + cp * S_COLS,
                               g + (size_t)(k0 + kr * S_KPER) * ld + cp * S_COLS);
            }
        }
    }
};

/* The kernel. CTA tile BM x BN, k step BK, STAGES shared buffers, WM x WN
 * warps; each thread owns TM x TN outputs as (TM/4) x (TN/4) blocks of 4x4
 * (see gemm.cu "warptile"). Lanes form LI x LJ: 8 x 4 for 8-row thread tiles
 * (8x8: warp tile 64 x 32; 8x16: 64 x 64), 4 x 8 for 16x8 (64 x 64). A
 * thread's blocks lie LI*4 rows and LJ*4 columns apart, so each fragment read
 * of a warp is LI (A) or LJ (B) distinct float4 side by side, broadcast to the
 * other lanes: conflict-free LDS.128. Per k step a thread issues TM/4 + TN/4
 * LDS.128 for TM*TN FFMA (4 for 64 at 8x8, 6 for 128 at 8x16: the larger
 * thread tile halves the shared-memory reads per FMA along one side and
 * doubles the independent FMAs between them). Grid: one CTA per tile in a 1-D grid,
 * rasterized in groups of 8 tile-rows (consecutive CTAs share B panels and a
 * few A panels in L2); gridDim.z K slices of length kslice. With W != NULL the
 * raw sums go to W[z][i][j] (split-K) for gemm_splitk_reduce. */
template <int BM, int BN, int BK, int STAGES, int WM, int WN, int TM, int TN, int MINB, bool TA,
          bool TB, bool VEC>
__global__ void __launch_bounds__(WM *WN * 32, MINB)
    gemm_async(int M, int N, int K, int kslice, float alpha, const float *__restrict__ A,
               size_t lda, const float *__restrict__ B, size_t ldb, float beta,
               float *__restrict__ C, size_t ldc, float *__restrict__ W)
{
    constexpr int NT = WM * WN * 32;
    constexpr int SA = BM + 4, SB = BN + 4; /* row strides; keep 16-byte alignment */
    constexpr int FM = TM / 4, FN = TN / 4;  /* 4x4 blocks a thread along i, j */
    constexpr int LI = TM >= 16 ? 4 : 8, LJ = 32 / LI; /* lane grid */
    constexpr int WTM = LI * TM, WTN = LJ * TN;       /* warp tile */
    static_assert(TM % 4 == 0 && TN % 4 == 0, "4x4 blocks");
    static_assert(BM == WM * WTM && BN == WN * WTN, "warps must tile the CTA tile");
    extern __shared__ float4 smem4[];
    float *As = reinterpret_cast<float *>(smem4); /* [STAGES][BK][SA] */
    float *Bs = As + STAGES * BK * SA;            /* [STAGES][BK][SB] */

    /* swizzled tile order */
    const int tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN;
    constexpr int G = 8;
    const int pid = blockIdx.x, per_group = G * tiles_n;
    const int first = (pid / per_group) * G;
    const int gsize = min(tiles_m - first, G);
    const int tm = first + (pid % per_group) % gsize, tn = (pid % per_group) / gsize;
    const int m0 = tm * BM, n0 = tn * BN;

    /* this CTA's K slice */
    const int kb = blockIdx.z * kslice;
    const int Kl = min(K - kb, kslice);
    A += TA ? (size_t)kb * lda : (size_t)kb;
    B += TB ? (size_t)kb : (size_t)kb * ldb;

    /* Lane -> (row group ga, column group gb): bit 0 of the lane goes to ga
     * and the next log2(LJ) bits to gb, so lanes n and n^1 read the same B
     * float4 and lanes n and n^2 the same A float4. An LDS.128 whose lanes
     * pair up like that returns in half the cycles (8x16 tiles: 0.80x -> 0.86x
     * cuBLAS at 4096^3, H100), with the same banks as lane / LJ, lane % LJ. */
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    constexpr int LJB = LJ == 4 ? 2 : 3;
    const int ga = (lane & 1) | ((lane >> (1 + LJB)) << 1), gb = (lane >> 1) & (LJ - 1);
    const int wi = (warp / WN) * WTM + ga * 4;
    const int wj = (warp % WN) * WTN + gb * 4;

    TileCopy<BM, BK, NT, SA, !TA, VEC> ca;
    TileCopy<BN, BK, NT, SB, TB, VEC> cb;
    ca.init(A, lda, m0, M, Kl, tid);
    cb.init(B, ldb, n0, N, Kl, tid);

    float acc[TM][TN];
#pragma unroll
    for (int x = 0; x < TM; ++x)
#pragma unroll
        for (int y = 0; y < TN; ++y) acc[x][y] = 0.0f;
    float fa[2][TM], fb[2][TN];

    const int ktiles = (Kl + BK - 1) / BK;
    /* Tiles wholly inside the matrices take the copy path without masks (the
     * test is uniform over the CTA: no divergence). */
    const bool inside = m0 + BM <= M && n0 + BN <= N;
    auto issue = [&](int st, int k0) {
        if (inside && Kl - k0 >= BK) {
            ca.issue_full(As + st * BK * SA, k0);
            cb.issue_full(Bs + st * BK * SB, k0);
        } else {
            ca.issue(As + st * BK * SA, k0, Kl - k0);
            cb.issue(Bs + st * BK * SB, k0, Kl - k0);
        }
    };
    /* prologue: STAGES - 1 tiles in flight (empty groups keep the count) */
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < ktiles) issue(s, s * BK);
        cp_async_commit();
    }
    cp_async_wait<STAGES - 2>();
    __syncthreads();

    auto frag = [&](int buf, int st, int p) {
        const float *as = As + (st * BK + p) * SA + wi, *bs = Bs + (st * BK + p) * SB + wj;
#pragma unroll
        for (int b = 0; b < FM; ++b)
            *reinterpret_cast<float4 *>(&fa[buf][4 * b]) =
                *reinterpret_cast<const float4 *>(as + b * LI * 4);
#pragma unroll
        for (int b = 0; b < FN; ++b)
            *reinterpret_cast<float4 *>(&fb[buf][4 * b]) =
                *reinterpret_cast<const float4 *>(bs + b * LJ * 4);
    };

    int rs = 0;          /* stage being read */
    int ws = STAGES - 1; /* stage being written */
    frag(0, 0, 0);
    for (int kt = 0; kt < ktiles; ++kt) {
#pragma unroll
        for (int p = 0; p < BK; ++p) {
            if (p == BK - 1) {
                /* tile kt+1 must have landed, and every warp be done with
                 * the stage the next issue overwrites */
                cp_async_wait<STAGES - 2>();
                __syncthreads();
                rs = rs + 1 == STAGES ? 0 : rs + 1;
            }
            if (p < BK - 1 || kt + 1 < ktiles)
                frag((p + 1) & 1, rs, (p + 1) % BK); /* next step's fragments */
            if (p == 0) {
                /* refill the stage read in the previous tile (freed by the
                 * barrier at its last step) with tile kt + STAGES - 1 */
                int kn = (kt + STAGES - 1) * BK;
                if (kn < Kl) issue(ws, kn);
                cp_async_commit();
                ws = ws + 1 == STAGES ? 0 : ws + 1;
            }
            /* FMA order by row width (measured: gemm_device.cuh) */
            constexpr cupat_gemm_dev::fma_order ORDER =
                TN >= 16 ? cupat_gemm_dev::COLUMNS : cupat_gemm_dev::SERPENTINE;
            cupat_gemm_dev::outer_product<ORDER>(acc, fa[p & 1], fb[p & 1]);
        }
    }
    cp_async_wait<0>(); /* nothing may be in flight when the CTA exits */

    /* epilogue: each thread's rows wi + 4 LI b + {0..3}, columns wj + 4 LJ b +
     * {0..3}; 16-byte stores where C allows */
    float *out = W ? W + (size_t)blockIdx.z * M * N : C;
    const size_t ldo = W ? (size_t)N : ldc;
    const bool vec = cupat_gemm_dev::c_vectorizable(out, ldo);
    const float al = W ? 1.0f : alpha, be = W ? 0.0f : beta;
#pragma unroll
    for (int x = 0; x < TM; ++x)
#pragma unroll
        for (int h = 0; h < FN; ++h)
            cupat_gemm_dev::store_row4(out, ldo, M, N, m0 + wi + (x / 4) * (LI * 4) + x % 4,
                                       n0 + wj + h * (LJ * 4), &acc[x][h * 4], al, be, vec);
}

template <int BM, int BN, int BK, int ST, int WM, int WN, int TM, int TN, int MINB, bool VEC>
async_fn pick_ops(int ta, int tb)
{
    if (ta)
        return tb ? gemm_async<BM, BN, BK, ST, WM, WN, TM, TN, MINB, true, true, VEC>
                  : gemm_async<BM, BN, BK, ST, WM, WN, TM, TN, MINB, true, false, VEC>;
    return tb ? gemm_async<BM, BN, BK, ST, WM, WN, TM, TN, MINB, false, true, VEC>
              : gemm_async<BM, BN, BK, ST, WM, WN, TM, TN, MINB, false, false, VEC>;
}

/* The configurations. Each entry: BM, BN, BK, stages, warps along M and N,
 * outputs a thread (TM x TN), minimum CTAs per SM (caps registers at 64K /
 * (threads x MINB)), and the efficiencies the auto rung's model assumes
 * (gemm.c: relative to its 512 FLOP/ns a SM scale, not to the measured FP32
 * ceiling) for the 16-byte-copy build (aligned operands) and the 4-byte one.
 * Measured with `cupat bench gemm --sweep-blocks` (H100, 2026-11-22, commit
 * 587fc5d; scripts/gemm-fit-eff does the fit): the 16-byte value is the mean
 * over 4096^3 and 8192^3, the 4-byte value the one on 4097x3001x2003, of the
 * efficiency that makes the model reproduce the config's split-1 time. With
 * them the model picks the measured best config on every issue shape but
 * 1000^3 (where its pick is within 2.5%). Each is built twice per op pair:
 * 16-byte copies for aligned operands, 4-byte ones otherwise. Entry 0 is the
 * "async" rung. The 8x16 / 16x8 entries (one CTA of 256 threads a SM, or two
 * of 128, up to 255 registers) are the shape of cuBLAS's SIMT SGEMM kernel on
 * the H100 (ncu: 256x128x8, 3 stages, 8 warps of 64x64, 254 registers); with
 * only two warps a scheduler they lose to the 8x8 tiles here. 256x64 and
 * 64x256 stream the long operand of the skinny shapes once with the short
 * side in one tile. The first field is the part (translation unit) that
 * instantiates it. */
#define GEMM_ASYNC_CONFIGS(X)                                                            \
    X(0, 128, 128, 16, 4, 2, 4, 8, 8, 2, 0.749, 0.683)                                   \
    X(0, 128, 128, 8, 4, 2, 4, 8, 8, 2, 0.717, 0.642)                                    \
    X(0, 128, 256, 16, 3, 2, 8, 8, 8, 1, 0.751, 0.653)                                   \
    X(0, 256, 128, 16, 3, 4, 4, 8, 8, 1, 0.725, 0.671)                                   \
    X(0, 64, 128, 16, 4, 1, 4, 8, 8, 4, 0.748, 0.585)                                    \
    X(0, 64, 64, 16, 4, 1, 2, 8, 8, 6, 0.711, 0.590)                                     \
    X(1, 128, 256, 8, 4, 2, 4, 8, 16, 1, 0.739, 0.647)                                   \
    X(2, 256, 128, 8, 4, 4, 2, 16, 8, 1, 0.713, 0.661)                                   \
    X(2, 128, 128, 8, 4, 2, 2, 8, 16, 2, 0.718, 0.625)                                   \
    X(1, 128, 128, 32, 3, 2, 4, 8, 8, 2, 0.759, 0.648)                                   \
    X(2, 128, 256, 16, 4, 2, 8, 8, 8, 1, 0.753, 0.655)                                   \
    X(1, 128, 256, 32, 3, 2, 8, 8, 8, 1, 0.748, 0.641)                                   \
    X(0, 256, 64, 16, 4, 4, 2, 8, 8, 2, 0.683, 0.716)                                    \
    X(0, 64, 256, 16, 4, 1, 8, 8, 8, 2, 0.762, 0.538)

/* The part's table: the kernels of configurations instantiated in part P,
 * null for the others (not instantiated here). */
template <bool ON, int BM, int BN, int BK, int ST, int WM, int WN, int TM, int TN, int MINB>
struct fns_if {
    static constexpr config_fns v = {nullptr, nullptr};
};
template <int BM, int BN, int BK, int ST, int WM, int WN, int TM, int TN, int MINB>
struct fns_if<true, BM, BN, BK, ST, WM, WN, TM, TN, MINB> {
    static constexpr config_fns v = {pick_ops<BM, BN, BK, ST, WM, WN, TM, TN, MINB, true>,
                                     pick_ops<BM, BN, BK, ST, WM, WN, TM, TN, MINB, false>};
};
} // namespace

#define GEMM_CFG_FNS_PART(part, bm, bn, bk, st, wm, wn, tm, tn, minb, effv, effs)                \
    fns_if<part == GEMM_ASYNC_PART, bm, bn, bk, st, wm, wn, tm, tn, minb>::v,
/* Define part P's table (in the part's .cu, with GEMM_ASYNC_PART defined as P). */
#define GEMM_ASYNC_PART_TABLE(name)                                                        \
    namespace cupat_gemm_detail {                                                          \
    const config_fns name[] = {GEMM_ASYNC_CONFIGS(GEMM_CFG_FNS_PART)};                     \
    }

#endif
