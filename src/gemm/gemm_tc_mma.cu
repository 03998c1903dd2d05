// SPDX-License-Identifier: Apache-2.0
// gemm_tc_mma.cu — the "mma_sync" rung of "gemm_tc": the tensor cores through
// PTX instead of nvcuda::wmma, fed by an asynchronous copy pipeline.
//
//   * mma.sync.aligned.m16n8k16 (f16 or bf16 in, f32 accumulation): a warp
//     owns 64 x 32 of the block's 128 x 128 tile of C, 4 x 4 such products a
//     k-step, its 64 accumulators in registers to the end;
//   * ldmatrix.x4 loads a 16 x 16 piece of op(A), and .trans two k16 x n8
//     pieces of B (stored k-major, n contiguous), straight into the
//     fragments' registers: one instruction where wmma staged through its
//     own layout;
//   * shared tiles XOR-swizzled by 16-byte chunk (A: chunk ^ (row / 2 mod 4),
//     B: chunk ^ (row mod 8)), so the 8 rows an ldmatrix phase reads fall in
//     different banks;
//   * cp.async.cg 16-byte copies, 3 stages in flight (48 KiB), the edges
//     zero-filled by the copy's source size (no scalar path for a ragged m,
//     n or k).
// It takes what the 16-byte copies can read: f16 / bf16 inputs, op N on
// both operands (after the column-major turn), 16-byte aligned A and B,
// lda and ldb multiples of 8. Anything else (tf32, i8, a transpose, an odd
// leading dimension) runs wmma_tiled's kernel: the rung says so in its
// description. Output through the shared epilogue (gemm_tc_epilogue.h).
#include "gemm/gemm_internal.h"
#include "gemm/gemm_tc_epilogue.h"
#include "internal.h"

#include <stdint.h>

namespace {

constexpr int MB = 128, NB = 128, KB = 32, THREADS = 256, STAGES = 3;
constexpr int A_BYTES = MB * KB * 2, B_BYTES = KB * NB * 2, STAGE_BYTES = A_BYTES + B_BYTES;

__device__ __forceinline__ unsigned smem_addr(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

// 16 bytes from global to shared; only `bytes` (0..16) read, the rest zero.
__device__ __forceinline__ void cp16(unsigned dst, const void *src, int bytes)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src), "r"(bytes) : "memory");
}
__device__ __forceinline__ void cp_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int N> __device__ __forceinline__ void cp_wait() { asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory"); }

__device__ __forceinline__ void ldsm_x4(unsigned addr, unsigned (&r)[4])
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}
__device__ __forceinline__ void ldsm_x4_t(unsigned addr, unsigned (&r)[4])
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

template <bool BF16>
__device__ __forceinline__ void mma16816(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1)
{
    if constexpr (BF16)
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
                     "{%8, %9}, {%0, %1, %2, %3};"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    else
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
                     "{%8, %9}, {%0, %1, %2, %3};"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// Byte offsets of 16-byte chunk c of row r in the swizzled tiles: A is
// 128 rows of 4 chunks (32 k), B 32 rows (k) of 16 chunks (128 n).
__device__ __forceinline__ unsigned a_off(int r, int c) { return (unsigned)(r * 4 + (c ^ ((r >> 1) & 3))) * 16; }
__device__ __forceinline__ unsigned b_off(int r, int c) { return (unsigned)(r * 16 + (c ^ (r & 7))) * 16; }

template <bool BF16> __global__ void __launch_bounds__(THREADS, 2) k_mma(cupat_gemm_tc_args a)
{
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
    __shared__ __align__(128) unsigned char smem[STAGES * STAGE_BYTES];
    const unsigned sbase = smem_addr(smem);
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int wm = warp / 4, wn = warp % 4; // rows 64 wm, columns 32 wn of the tile
    const uint16_t *A = (const uint16_t *)a.A, *B = (const uint16_t *)a.B;
    const int j0 = blockIdx.x * NB, mt = (a.m + MB - 1) / MB, kt = (a.k + KB - 1) / KB;
    for (int ti = blockIdx.y; ti < mt; ti += gridDim.y) {
        const int i0 = ti * MB;
        // the copies of k-slice s into stage s % STAGES: 2 chunks of A and 2
        // of B a thread; a chunk past an edge reads fewer bytes (or none)
        auto load = [&](int s) {
            const unsigned st = sbase + (unsigned)(s % STAGES) * STAGE_BYTES;
            const int p0 = s * KB;
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const int q = tid + h * THREADS;
                const int ar = q / 4, ac = q % 4, gi = i0 + ar, gp = p0 + ac * 8;
                const int an = gi < a.m && gp < a.k ? 2 * (a.k - gp < 8 ? a.k - gp : 8) : 0;
                cp16(st + a_off(ar, ac), an ? A + (size_t)gi * a.lda + gp : A, an);
                const int br = q / 16, bc = q % 16, gq = p0 + br, gj = j0 + bc * 8;
                const int bn = gq < a.k && gj < a.n ? 2 * (a.n - gj < 8 ? a.n - gj : 8) : 0;
                cp16(st + A_BYTES + b_off(br, bc), bn ? B + (size_t)gq * a.ldb + gj : B, bn);
            }
        };
        float acc[4][4][4];
#pragma unroll
        for (int x = 0; x < 4; x++)
#pragma unroll
            for (int y = 0; y < 4; y++)
#pragma unroll
                for (int e = 0; e < 4; e++) acc[x][y][e] = 0.0f;
        if (a.reads_ab) {
#pragma unroll
            for (int s = 0; s < STAGES - 1; s++) {
                if (s < kt) load(s);
                cp_commit(); // empty groups keep the count: wait_group below stays exact
            }
            for (int s = 0; s < kt; s++) {
                cp_wait<STAGES - 2>(); // slice s has landed (this thread's copies)
                __syncthreads();       // ... everyone's; and slice s - 1 is no longer read
                if (s + STAGES - 1 < kt) load(s + STAGES - 1);
                cp_commit();
                const unsigned st = sbase + (unsigned)(s % STAGES) * STAGE_BYTES;
#pragma unroll
                for (int kk = 0; kk < KB / 16; kk++) {
                    unsigned fa[4][4], fb[2][4];
#pragma unroll
                    for (int x = 0; x < 4; x++) // rows 16 x, k 16 kk: lane gives row lane % 16, k-chunk lane / 16
                        ldsm_x4(st + a_off(wm * 64 + x * 16 + lane % 16, kk * 2 + lane / 16), fa[x]);
#pragma unroll
                    for (int y = 0; y < 2; y++) // k rows 16 kk + lane % 16, n chunk of 8: two n8 pieces
                        ldsm_x4_t(st + A_BYTES + b_off(kk * 16 + lane % 16, (wn * 32 + y * 16) / 8 + lane / 16),
                                  fb[y]);
#pragma unroll
                    for (int x = 0; x < 4; x++)
#pragma unroll
                        for (int y = 0; y < 4; y++)
                            mma16816<BF16>(acc[x][y], fa[x], fb[y / 2][(y % 2) * 2], fb[y / 2][(y % 2) * 2 + 1]);
                }
            }
            cp_wait<0>();
            __syncthreads(); // the next tile's copies reuse the stages
        }
        // accumulator element e of (x, y): row 16 x + lane / 4 + 8 (e / 2),
        // column 8 y + 2 (lane % 4) + e % 2 of the warp's part
#pragma unroll
        for (int x = 0; x < 4; x++)
#pragma unroll
            for (int y = 0; y < 4; y++)
#pragma unroll
                for (int e = 0; e < 4; e++) {
                    const int i = i0 + wm * 64 + x * 16 + lane / 4 + 8 * (e / 2);
                    const int j = j0 + wn * 32 + y * 8 + 2 * (lane % 4) + e % 2;
                    if (i < a.m && j < a.n) cupat__tc_epilogue_f32(&a, (size_t)i * a.ldc + j, acc[x][y][e]);
                }
    }
#endif
}

} // namespace

extern "C" int cupat__gemm_tc_mma_takes(const cupat_gemm_tc_args *a)
{
    return (a->in == CUPAT_GEMM_F16 || a->in == CUPAT_GEMM_BF16) && !a->ta && !a->tb &&
           ((uintptr_t)a->A % 16) == 0 && ((uintptr_t)a->B % 16) == 0 && a->lda % 8 == 0 && a->ldb % 8 == 0;
}

extern "C" cupat_status cupat__gemm_tc_mma(cupat_ctx *ctx, const cupat_gemm_tc_args *a)
{
    if (!a->reads_ab || !cupat__gemm_tc_mma_takes(a)) return cupat__gemm_tc_wmma_tiled(ctx, a);
    CUPAT_TRY(cupat__gemm_tc_needs_sm80(ctx, "mma_sync"));
    const int nt = (a->n + NB - 1) / NB, mt = (a->m + MB - 1) / MB;
    const dim3 grid((unsigned)nt, (unsigned)(mt < 65535 ? mt : 65535));
    if (a->in == CUPAT_GEMM_BF16) k_mma<true><<<grid, THREADS, 0, ctx->stream>>>(*a);
    else k_mma<false><<<grid, THREADS, 0, ctx->stream>>>(*a);
    return cupat__launched(ctx, "k_mma");
}
