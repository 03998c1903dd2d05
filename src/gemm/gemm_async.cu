/* gemm_async.cu — the top of the gemm ladder: warp-tiled FP32 GEMM fed by a
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
#include "gemm/gemm_internal.h"

#include <atomic>
#include <stdint.h>

namespace {

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
    /* !KCONTIG & !VEC: thread = (k row, one column) */
    static constexpr int S_KPER = NT / BD;
    static constexpr int S_COPIES = BK / S_KPER;
    static_assert(!KCONTIG || (BD % ROWS_PER == 0 && BK % 8 == 0 && NT % 8 == 0), "kcontig");
    static_assert(KCONTIG || !VEC || (NT % V_RUNS == 0 && BK % V_KPER == 0), "vec");
    static_assert(KCONTIG || VEC || (NT % BD == 0 && BK % S_KPER == 0), "scalar");

    const float *g;  /* thread's first element at k0 = 0, clamped into the matrix
                      * (where it is clamped, none of its copies is valid, and it
                      * is only the harmless source of zero-byte copies) */
    size_t ld;
    int sofs;        /* thread's first element in the shared tile */
    unsigned mask;   /* KCONTIG: bit u set when row of copy u exists */
    int kq;          /* KCONTIG: k within an 8-run; else: k row of copy 0 */
    int vbytes;      /* !KCONTIG: bytes of the run that exist (VEC) or 4/0 */

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
            int c = tid % BD;
            kq = tid / BD;
            g = base + (size_t)min(kq, K - 1) * ld + min(d0 + c, D - 1);
            sofs = kq * SD + c;
            vbytes = d0 + c < D ? 4 : 0;
        }
    }

    /* Issue the copies of the tile at k0 into shared tile s; klim = K - k0. */
    __device__ __forceinline__ void issue(float *s, int k0, int klim) const
    {
        if (KCONTIG) {
            const float *p = g + k0;
#pragma unroll
            for (int u = 0; u < KC_COPIES; ++u) {
                const int pass = u % RPASS, kh = u / RPASS; /* rows first, then k halves */
                bool ok = ((mask >> pass) & 1u) && (kq + kh * 8 < klim);
                const float *src = p + (size_t)pass * ROWS_PER * ld + kh * 8;
                cp_async4(s + sofs + kh * 8 * SD + pass * ROWS_PER, ok ? src : g, ok ? 4 : 0);
            }
        } else if (VEC) {
            const float *p = g + (size_t)k0 * ld;
#pragma unroll
            for (int u = 0; u < V_COPIES; ++u) {
                bool ok = kq + u * V_KPER < klim;
                const float *src = p + (size_t)u * V_KPER * ld;
                cp_async16(s + sofs + u * V_KPER * SD, ok ? src : g, ok ? vbytes : 0);
            }
        } else {
            const float *p = g + (size_t)k0 * ld;
#pragma unroll
            for (int u = 0; u < S_COPIES; ++u) {
                bool ok = kq + u * S_KPER < klim;
                const float *src = p + (size_t)u * S_KPER * ld;
                cp_async4(s + sofs + u * S_KPER * SD, ok ? src : g, ok ? vbytes : 0);
            }
        }
    }
};

/* The kernel. CTA tile BM x BN, k step BK, STAGES shared buffers, WM x WN
 * warps of 64 x 32 outputs, lanes 8 x 4 with 8 x 8 outputs each (four 4x4
 * blocks, see gemm.cu "warptile"). Grid: one CTA per tile in a 1-D grid,
 * rasterized in groups of 8 tile-rows (consecutive CTAs share B panels and a
 * few A panels in L2); gridDim.z K slices of length kslice. With W != NULL the
 * raw sums go to W[z][i][j] (split-K) for gemm_splitk_reduce. */
template <int BM, int BN, int BK, int STAGES, int WM, int WN, int MINB, bool TA, bool TB,
          bool VEC>
__global__ void __launch_bounds__(WM *WN * 32, MINB)
    gemm_async(int M, int N, int K, int kslice, float alpha, const float *__restrict__ A,
               size_t lda, const float *__restrict__ B, size_t ldb, float beta,
               float *__restrict__ C, size_t ldc, float *__restrict__ W)
{
    constexpr int NT = WM * WN * 32;
    constexpr int SA = BM + 4, SB = BN + 4; /* row strides; keep 16-byte alignment */
    static_assert(BM == WM * 64 && BN == WN * 32, "warp tiles are 64 x 32");
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

    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int wi = (warp / WN) * 64 + (lane / 4) * 4;
    const int wj = (warp % WN) * 32 + (lane % 4) * 4;

    TileCopy<BM, BK, NT, SA, !TA, VEC> ca;
    TileCopy<BN, BK, NT, SB, TB, VEC> cb;
    ca.init(A, lda, m0, M, Kl, tid);
    cb.init(B, ldb, n0, N, Kl, tid);

    float acc[8][8];
#pragma unroll
    for (int x = 0; x < 8; ++x)
#pragma unroll
        for (int y = 0; y < 8; ++y) acc[x][y] = 0.0f;
    float fa[2][8], fb[2][8];

    const int ktiles = (Kl + BK - 1) / BK;
    /* prologue: STAGES - 1 tiles in flight (empty groups keep the count) */
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < ktiles) {
            ca.issue(As + s * BK * SA, s * BK, Kl - s * BK);
            cb.issue(Bs + s * BK * SB, s * BK, Kl - s * BK);
        }
        cp_async_commit();
    }
    cp_async_wait<STAGES - 2>();
    __syncthreads();

    auto frag = [&](int buf, int st, int p) {
        const float *as = As + (st * BK + p) * SA + wi, *bs = Bs + (st * BK + p) * SB + wj;
        *reinterpret_cast<float4 *>(&fa[buf][0]) = *reinterpret_cast<const float4 *>(as);
        *reinterpret_cast<float4 *>(&fa[buf][4]) = *reinterpret_cast<const float4 *>(as + 32);
        *reinterpret_cast<float4 *>(&fb[buf][0]) = *reinterpret_cast<const float4 *>(bs);
        *reinterpret_cast<float4 *>(&fb[buf][4]) = *reinterpret_cast<const float4 *>(bs + 16);
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
                if (kn < Kl) {
                    ca.issue(As + ws * BK * SA, kn, Kl - kn);
                    cb.issue(Bs + ws * BK * SB, kn, Kl - kn);
                }
                cp_async_commit();
                ws = ws + 1 == STAGES ? 0 : ws + 1;
            }
#pragma unroll
            for (int x = 0; x < 8; ++x)
#pragma unroll
                for (int y = 0; y < 8; ++y)
                    acc[x][y] = fmaf(fa[p & 1][x], fb[p & 1][y], acc[x][y]);
        }
    }
    cp_async_wait<0>(); /* nothing may be in flight when the CTA exits */

    /* epilogue: each thread's rows wi + {0..3, 32..35}, columns wj + {0..3,
     * 16..19}; 16-byte stores where C allows */
    float *out = W ? W + (size_t)blockIdx.z * M * N : C;
    const size_t ldo = W ? (size_t)N : ldc;
    const bool vec = (ldo & 3) == 0 && ((uintptr_t)out & 15) == 0;
    const float al = W ? 1.0f : alpha, be = W ? 0.0f : beta;
#pragma unroll
    for (int x = 0; x < 8; ++x) {
        int i = m0 + wi + (x / 4) * 32 + x % 4;
        if (i >= M) continue;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            int j = n0 + wj + h * 16;
            if (j >= N) continue;
            const float *v = &acc[x][h * 4];
            float *c = out + (size_t)i * ldo + j;
            if (vec && j + 3 < N) {
                float4 r = make_float4(al * v[0], al * v[1], al * v[2], al * v[3]);
                if (be != 0.0f) {
                    float4 o = *reinterpret_cast<const float4 *>(c);
                    r.x = fmaf(be, o.x, r.x);
                    r.y = fmaf(be, o.y, r.y);
                    r.z = fmaf(be, o.z, r.z);
                    r.w = fmaf(be, o.w, r.w);
                }
                *reinterpret_cast<float4 *>(c) = r;
            } else {
                for (int q = 0; q < 4 && j + q < N; ++q) {
                    float r = al * v[q];
                    c[q] = be != 0.0f ? fmaf(be, c[q], r) : r;
                }
            }
        }
    }
}

/* C = alpha sum_z W[z] + beta C: the second pass of split-K. The slices are
 * added in a fixed order, so the result does not depend on timing. */
__global__ void gemm_splitk_reduce(int M, int N, int splits, float alpha,
                                   const float *__restrict__ W, float beta,
                                   float *__restrict__ C, size_t ldc)
{
    const size_t total = (size_t)M * N;
    for (size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x; e < total;
         e += (size_t)gridDim.x * blockDim.x) {
        float s = 0.0f;
        for (int z = 0; z < splits; ++z) s += W[(size_t)z * total + e];
        size_t i = e / (size_t)N, j = e % (size_t)N;
        float *c = C + i * ldc + j;
        float r = alpha * s;
        *c = beta != 0.0f ? fmaf(beta, *c, r) : r;
    }
}

typedef void (*async_fn)(int, int, int, int, float, const float *, size_t, const float *,
                         size_t, float, float *, size_t, float *);

template <int BM, int BN, int BK, int ST, int WM, int WN, int MINB, bool VEC>
async_fn pick_ops(int ta, int tb)
{
    if (ta)
        return tb ? gemm_async<BM, BN, BK, ST, WM, WN, MINB, true, true, VEC>
                  : gemm_async<BM, BN, BK, ST, WM, WN, MINB, true, false, VEC>;
    return tb ? gemm_async<BM, BN, BK, ST, WM, WN, MINB, false, true, VEC>
              : gemm_async<BM, BN, BK, ST, WM, WN, MINB, false, false, VEC>;
}

/* The configurations. Each entry: BM, BN, BK, stages, warps along M and N,
 * minimum CTAs per SM (caps registers at 64K / (threads x MINB)), and the
 * fraction of FP32 peak the auto rung's model assumes on full waves (set
 * from the --sweep-blocks table of `cupat bench gemm` on the H100). Each is
 * built twice per op pair: 16-byte copies for aligned operands, 4-byte ones
 * otherwise. */
#define GEMM_ASYNC_CONFIGS(X)                                                            \
    X(128, 128, 16, 4, 2, 4, 2, 0.80)                                                    \
    X(128, 128, 8, 4, 2, 4, 2, 0.78)                                                     \
    X(128, 256, 16, 3, 2, 8, 1, 0.80)                                                    \
    X(256, 128, 16, 3, 4, 4, 1, 0.80)                                                    \
    X(128, 64, 16, 4, 2, 2, 4, 0.74)                                                     \
    X(64, 128, 16, 4, 1, 4, 4, 0.74)                                                     \
    X(64, 64, 16, 4, 1, 2, 6, 0.62)

struct config_fns {
    async_fn (*vec)(int, int);
    async_fn (*scalar)(int, int);
};

#define GEMM_CFG_FNS(bm, bn, bk, st, wm, wn, minb, eff)                                   \
    {pick_ops<bm, bn, bk, st, wm, wn, minb, true>, pick_ops<bm, bn, bk, st, wm, wn, minb, false>},
const config_fns cfg_fns[] = {GEMM_ASYNC_CONFIGS(GEMM_CFG_FNS)};
static_assert(sizeof cfg_fns / sizeof cfg_fns[0] <= 8, "allow_smem keeps 8 bits a config");

size_t smem_bytes(const cupat_gemm_config *c)
{
    return (size_t)c->stages * c->bk * ((c->bm + 4) + (c->bn + 4)) * sizeof(float);
}

bool aligned16(const void *p, size_t ld) { return ((uintptr_t)p & 15) == 0 && (ld & 3) == 0; }

} // namespace

#define GEMM_CFG_DESC(bm, bn, bk, st, wm, wn, minb, eff)                                  \
    {#bm "x" #bn "x" #bk "/" #st "/" #minb, bm, bn, bk, st, wm * wn * 32, minb, eff},
extern "C" const cupat_gemm_config cupat__gemm_configs[] = {GEMM_ASYNC_CONFIGS(GEMM_CFG_DESC)};
extern "C" const int cupat__gemm_nconfigs =
    (int)(sizeof cupat__gemm_configs / sizeof cupat__gemm_configs[0]);

/* Opt a kernel into more than 48 KiB of dynamic shared memory, once per
 * device and build (bit `slot` of the device's mask; a race only repeats the
 * idempotent call). */
static cupat_status allow_smem(cupat_ctx *ctx, async_fn fn, size_t bytes, int slot)
{
    static std::atomic<unsigned long long> done[64];
    if (bytes <= 48 * 1024) return CUPAT_SUCCESS;
    const int dev = ctx->device;
    const unsigned long long bit = 1ull << slot;
    if (dev >= 0 && dev < 64 && (done[dev].load(std::memory_order_relaxed) & bit))
        return CUPAT_SUCCESS;
    CUPAT_TRY(cupat__cuda(ctx,
                          cudaFuncSetAttribute((const void *)fn,
                                               cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               (int)bytes),
                          "cudaFuncSetAttribute(MaxDynamicSharedMemorySize)"));
    if (dev >= 0 && dev < 64) done[dev].fetch_or(bit, std::memory_order_relaxed);
    return CUPAT_SUCCESS;
}

extern "C" cupat_status cupat__gemm_cuda_async(cupat_ctx *ctx, int cfg, int splitk,
                                               const cupat_gemm_args *a)
{
    if (cfg < 0 || cfg >= cupat__gemm_nconfigs)
        return cupat__fail(ctx, CUPAT_ERROR_INTERNAL, "cupat_gemm_f32: no config %d", cfg);
    /* 16-byte copies need aligned rows of the operands contiguous along i / j */
    bool vec = (!a->ta || aligned16(a->A, a->lda)) && (a->tb || aligned16(a->B, a->ldb));
    const cupat_gemm_config *c = &cupat__gemm_configs[cfg];
    async_fn fn = vec ? cfg_fns[cfg].vec(a->ta, a->tb) : cfg_fns[cfg].scalar(a->ta, a->tb);
    size_t smem = smem_bytes(c);
    CUPAT_TRY(allow_smem(ctx, fn, smem, cfg * 8 + vec * 4 + a->ta * 2 + a->tb));

    long long tiles_n = (a->n + c->bn - 1) / c->bn;
    int kslice = a->k;
    float *W = NULL;
    int band = a->m; /* rows per launch: the 1-D grid holds < 2^31 CTAs */
    long long max_tm = (0x7fffffffLL / tiles_n);
    if ((long long)(a->m + c->bm - 1) / c->bm > max_tm) band = (int)(max_tm * c->bm);
    if (splitk > 1) {
        /* K slices of whole BK steps; partial sums in scratch */
        kslice = (((a->k + splitk - 1) / splitk + c->bk - 1) / c->bk) * c->bk;
        splitk = (a->k + kslice - 1) / kslice;
        if (band < a->m || splitk > 65535) splitk = 1, kslice = a->k;
    }
    if (splitk > 1) {
        size_t elems = (size_t)splitk * (size_t)a->m * (size_t)a->n;
        void *w;
        CUPAT_TRY(cupat__scratch(ctx, elems * sizeof(float), &w));
        W = (float *)w;
    }
    for (int r0 = 0; r0 < a->m; r0 += band) {
        int rows = a->m - r0 < band ? a->m - r0 : band;
        long long tiles = (long long)((rows + c->bm - 1) / c->bm) * tiles_n;
        const float *A = a->A + (a->ta ? (size_t)r0 : (size_t)r0 * a->lda);
        dim3 grid((unsigned)tiles, 1, (unsigned)splitk);
        fn<<<grid, c->threads, smem, ctx->stream>>>(rows, a->n, a->k, kslice, a->alpha, A,
                                                    a->lda, a->B, a->ldb, a->beta,
                                                    a->C + (size_t)r0 * a->ldc, a->ldc, W);
        CUPAT_TRY(cupat__launched(ctx, "gemm_async"));
    }
    if (W) {
        size_t total = (size_t)a->m * a->n;
        size_t blocks = (total + 255) / 256;
        size_t cap = (size_t)(ctx->sm_count > 0 ? ctx->sm_count : 132) * 8;
        gemm_splitk_reduce<<<(unsigned)(blocks < cap ? blocks : cap), 256, 0, ctx->stream>>>(
            a->m, a->n, splitk, a->alpha, W, a->beta, a->C, a->ldc);
        CUPAT_TRY(cupat__launched(ctx, "gemm_splitk_reduce"));
    }
    return CUPAT_SUCCESS;
}

extern "C" cupat_status cupat__gemm_cuda_async_resources(cupat_ctx *ctx, int cfg,
                                                         cupat_gemm_resources *out)
{
    if (cfg < 0 || cfg >= cupat__gemm_nconfigs)
        return cupat__fail(ctx, CUPAT_ERROR_NOT_FOUND, "gemm resources: no config %d", cfg);
    const cupat_gemm_config *c = &cupat__gemm_configs[cfg];
    async_fn fn = cfg_fns[cfg].vec(0, 0);
    size_t smem = smem_bytes(c);
    CUPAT_TRY(allow_smem(ctx, fn, smem, cfg * 8 + 4));
    return cupat__gemm_fill_resources(ctx, (const void *)fn, c->threads, smem, c->name, out);
}
