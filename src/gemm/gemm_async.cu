// SPDX-License-Identifier: Apache-2.0
/* gemm_async.cu — the top of the gemm ladder, host side: the table of tile
 * configurations the auto rung picks from (gemm.c), the launch of the
 * multistage cp.async kernel (gemm_async.cuh explains it) with banded grids
 * and split-K, its second pass, and the resource report. Also part 0 of the
 * kernel instantiations (the 8x8-per-thread configurations). */
#define GEMM_ASYNC_PART 0
#include "gemm/gemm_async.cuh"
#include "transpose/transpose_internal.h"

#include <atomic>

GEMM_ASYNC_PART_TABLE(part0)

using namespace cupat_gemm_detail;

namespace {

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

/* Configuration cfg's kernel for the op pair and copy width: from the part
 * that instantiates it (null when cfg is out of range). */
async_fn config_kernel(int cfg, bool vec, int ta, int tb)
{
    if (cfg < 0 || cfg >= cupat__gemm_nconfigs) return nullptr;
    const config_fns *parts[] = {part0, part1, part2};
    for (const config_fns *t : parts)
        if (t[cfg].vec) return vec ? t[cfg].vec(ta, tb) : t[cfg].scalar(ta, tb);
    return nullptr;
}

size_t smem_bytes(const cupat_gemm_config *c)
{
    return (size_t)c->stages * c->bk * ((c->bm + 4) + (c->bn + 4)) * sizeof(float);
}

} // namespace


#define GEMM_CFG_DESC(part, bm, bn, bk, st, wm, wn, tm, tn, minb, effv, effs)           \
    {#bm "x" #bn "x" #bk "/" #st "/" #minb " " #tm "x" #tn, bm, bn, bk, st, wm * wn * 32,    \
     tm, tn, minb, effv, effs},
extern "C" const cupat_gemm_config cupat__gemm_configs[] = {GEMM_ASYNC_CONFIGS(GEMM_CFG_DESC)};
extern "C" const int cupat__gemm_nconfigs =
    (int)(sizeof cupat__gemm_configs / sizeof cupat__gemm_configs[0]);
static_assert(sizeof cupat__gemm_configs / sizeof cupat__gemm_configs[0] <= kMaxConfigs,
              "allow_smem's bit mask");

/* Opt a kernel into more than 48 KiB of dynamic shared memory, once per
 * device and build (bit `slot` of the device's mask; a race only repeats the
 * idempotent call). */
static cupat_status allow_smem(cupat_ctx *ctx, async_fn fn, size_t bytes, int slot)
{
    static std::atomic<unsigned long long> done[64][kMaxConfigs / 8];
    if (bytes <= 48 * 1024) return CUPAT_SUCCESS;
    const int dev = ctx->device;
    const unsigned long long bit = 1ull << (slot % 64);
    std::atomic<unsigned long long> *word =
        dev >= 0 && dev < 64 && slot >= 0 && slot < kMaxConfigs * 8 ? &done[dev][slot / 64]
                                                                  : nullptr;
    if (word && (word->load(std::memory_order_relaxed) & bit)) return CUPAT_SUCCESS;
    CUPAT_TRY(cupat__cuda(ctx,
                          cudaFuncSetAttribute((const void *)fn,
                                               cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               (int)bytes),
                          "cudaFuncSetAttribute(MaxDynamicSharedMemorySize)"));
    if (word) word->fetch_or(bit, std::memory_order_relaxed);
    return CUPAT_SUCCESS;
}

/* Floats in a row of w padded to 16 bytes; bytes of k such rows, rounded up
 * to 256. */
static size_t pad4(int w) { return ((size_t)w + 3) & ~(size_t)3; }
static size_t padded_bytes(int k, int w)
{
    return ((size_t)k * pad4(w) * sizeof(float) + 255) & ~(size_t)255;
}

/* k rows of w floats from src (pitch ld) into dst with rows padded to 16
 * bytes, on ctx's stream; `what` names the copy in an error. */
static cupat_status pad_rows(cupat_ctx *ctx, float *dst, const float *src, size_t ld, int w, int k,
                             const char *what)
{
    cudaError_t e = cudaMemcpy2DAsync(dst, pad4(w) * sizeof(float), src, ld * sizeof(float),
                                      (size_t)w * sizeof(float), (size_t)k,
                                      cudaMemcpyDeviceToDevice, ctx->stream);
    return cupat__cuda(ctx, e, what);
}

extern "C" cupat_status cupat__gemm_cuda_async(cupat_ctx *ctx, int cfg, int splitk,
                                               const cupat_gemm_args *a0, int copies)
{
    const cupat_gemm_config *c = &cupat__gemm_configs[cfg];
    cupat_gemm_args p = *a0;
    const cupat_gemm_args *a = &p;
    const size_t ldp = pad4(a0->n);
    const int pack_b = (copies & GEMM_PACK_B) && a0->tb;
    const int pad_a = (copies & GEMM_PAD_A) && a0->ta, pad_b = (copies & GEMM_PAD_B) && !a0->tb;
    const size_t pad_a_bytes = pad_a ? padded_bytes(a0->k, a0->m) : 0;
    const size_t pack_bytes =
        (pack_b || pad_b ? padded_bytes(a0->k, a0->n) : 0) + pad_a_bytes;

    long long tiles_n = (a->n + c->bn - 1) / c->bn;
    int kslice = a->k;
    int band = a->m; /* rows per launch: the 1-D grid holds < 2^31 CTAs */
    long long max_tm = (0x7fffffffLL / tiles_n);
    if ((long long)(a->m + c->bm - 1) / c->bm > max_tm) band = (int)(max_tm * c->bm);
    if (splitk > 1) {
        /* K slices of whole BK steps; partial sums in scratch */
        kslice = (((a->k + splitk - 1) / splitk + c->bk - 1) / c->bk) * c->bk;
        splitk = (a->k + kslice - 1) / kslice;
        if (band < a->m || splitk > 65535) splitk = 1, kslice = a->k;
    }
    /* One scratch block: A's padded rows, B packed or padded, then split-K's
     * partial sums. */
    const size_t w_bytes =
        splitk > 1 ? (size_t)splitk * (size_t)a->m * (size_t)a->n * sizeof(float) : 0;
    float *W = NULL;
    if (pack_bytes + w_bytes) {
        void *mem;
        CUPAT_TRY(cupat__scratch(ctx, pack_bytes + w_bytes, &mem));
        float *bp = (float *)((char *)mem + pad_a_bytes);
        if (pack_b) {
            /* stored B is n x k (ldb); its transpose is op(B), k x n */
            CUPAT_TRY(cupat__transpose_cuda(ctx, TR_VEC8_2X2, (size_t)a0->n, (size_t)a0->k,
                                            sizeof(float), a0->B, a0->ldb, bp, ldp));
            p.B = bp;
            p.ldb = ldp;
            p.tb = 0;
        } else if (pad_b) { /* stored B is k x n: the same rows, padded */
            CUPAT_TRY(pad_rows(ctx, bp, a0->B, a0->ldb, a0->n, a0->k,
                               "cudaMemcpy2DAsync (B, padded rows)"));
            p.B = bp;
            p.ldb = ldp;
        }
        if (pad_a) { /* stored A is k x m */
            CUPAT_TRY(pad_rows(ctx, (float *)mem, a0->A, a0->lda, a0->m, a0->k,
                               "cudaMemcpy2DAsync (A, padded rows)"));
            p.A = (float *)mem;
            p.lda = pad4(a0->m);
        }
        if (w_bytes) W = (float *)((char *)mem + pack_bytes);
    }

    bool vec = cupat__gemm_vec(a) != 0;
    async_fn fn = config_kernel(cfg, vec, a->ta, a->tb);
    if (!fn) return cupat__fail(ctx, CUPAT_ERROR_INTERNAL, "cupat_gemm_f32: no config %d", cfg);
    size_t smem = smem_bytes(c);
    CUPAT_TRY(allow_smem(ctx, fn, smem, cfg * 8 + vec * 4 + a->ta * 2 + a->tb));
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

/* B^T stored (contiguous along k) reaches shared memory by 4-byte copies that
 * transpose on the way in, the kernel's slowest path (4096^3: N,T 0.83x and
 * T,T 0.91x cuBLAS where N,N and T,N run 0.96x; docs/vendor-gaps.md). Where
 * the GEMM is long beside one transpose of B (a pass over 8 n k bytes and a
 * launch within 5% of the GEMM's time by the model below), B is transposed
 * into scratch first: N,T runs as N,N and T,T as T,N. Likewise an operand
 * stored contiguous along i or j (A^T, B) whose base or leading dimension is
 * not 16-byte aligned sends the whole kernel to its 4-byte copy build
 * (eff_scalar); it is copied into rows padded to 16 bytes first where that
 * pays the same way and leaves both operands aligned. */
static int copy_pays(const cupat_ctx *ctx, const cupat_gemm_args *a, double elems)
{
    const double sms = ctx->sm_count > 0 ? ctx->sm_count : 132;
    const double copy_ns = 8.0 * elems / 2500.0 + 4000.0; /* 2.5 bytes a ns, a launch */
    const double gemm_ns = 2.0 * a->m * a->n * a->k / (sms * 512.0 * 0.7);
    return copy_ns < 0.05 * gemm_ns;
}

extern "C" void cupat__gemm_auto_plan(const cupat_ctx *ctx, const cupat_gemm_args *a, int *cfg,
                                      int *splitk, int *copies)
{
    const double mk = (double)a->m * a->k, nk = (double)a->n * a->k;
    const int va = cupat__gemm_vec_a(a);
    const int vb = cupat__gemm_vec_b(a);
    int c = 0;
    if (!va && copy_pays(ctx, a, mk)) c |= GEMM_PAD_A;
    const int a_ok = va || (c & GEMM_PAD_A);
    if (a->tb && a_ok && copy_pays(ctx, a, nk)) c |= GEMM_PACK_B;
    if (!vb && a_ok && copy_pays(ctx, a, nk)) c |= GEMM_PAD_B;
    /* a pad alone, with the other operand still unaligned, buys nothing */
    if ((c & GEMM_PAD_A) && !(vb || (c & (GEMM_PACK_B | GEMM_PAD_B)))) c &= ~GEMM_PAD_A;
    *copies = c;
    cupat_gemm_args view = *a; /* what the kernel will see */
    if (c & GEMM_PACK_B) view.tb = 0;
    const int vec = (va || (c & GEMM_PAD_A)) && (vb || (c & (GEMM_PACK_B | GEMM_PAD_B)));
    cupat__gemm_pick_vec(ctx, &view, vec, cfg, splitk);
}

extern "C" cupat_status cupat__gemm_cuda_auto(cupat_ctx *ctx, const cupat_gemm_args *a)
{
    int cfg, splitk, pack;
    cupat__gemm_auto_plan(ctx, a, &cfg, &splitk, &pack);
    return cupat__gemm_cuda_async(ctx, cfg, splitk, a, pack);
}

extern "C" cupat_status cupat__gemm_cuda_async_resources(cupat_ctx *ctx, int cfg,
                                                         cupat_gemm_resources *out)
{
    async_fn fn = config_kernel(cfg, true, 0, 0);
    if (!fn) return cupat__fail(ctx, CUPAT_ERROR_NOT_FOUND, "gemm resources: no config %d", cfg);
    const cupat_gemm_config *c = &cupat__gemm_configs[cfg];
    size_t smem = smem_bytes(c);
    CUPAT_TRY(allow_smem(ctx, fn, smem, cfg * 8 + 4));
    return cupat__gemm_fill_resources(ctx, (const void *)fn, c->threads, smem, c->name, out);
}
