// SPDX-License-Identifier: Apache-2.0
// gemm_tc_wgmma_sm90a.cu — the "wgmma" rung of "gemm_tc": Hopper's
// warp-group MMA fed by the Tensor Memory Accelerator (sm_90a only).
//
//   * wgmma.mma_async m64n256k16 (f16 or bf16 in, f32 accumulation): a warp
//     group (4 warps) owns 64 x 256 of the block's 128 x 256 tile of C, its
//     128 accumulators a thread in registers to the end; both operands are
//     read by the tensor cores straight from shared memory through matrix
//     descriptors (no ldmatrix into registers, as mma_sync needs);
//   * TMA (cp.async.bulk.tensor.2d) loads each 64-deep k-slice of op(A)
//     (128 x 64) and op(B) (64 x 256) into 128-byte-swizzled shared tiles,
//     the edges zero-filled by the copy engine, 4 stages (192 KiB) deep;
//   * persistent blocks (one an SM) when C takes column-pair stores: the
//     producer fills the next tile's stages while the consumers store C;
//     128-wide tiles (m64n128k16) where 256-wide ones would leave half the
//     SMs idle (1000^3), and C^T for skinny shapes (dispatch16's caller);
//   * warp specialization: warp group 0 is the producer (one thread issues
//     the copies, after giving its registers away with setmaxnreg), warp
//     groups 1 and 2 the consumers (setmaxnreg up to 232); full and empty
//     mbarriers a stage hand each stage from one to the other;
//   * transposes cost nothing: a row-major A (op N) is K-major, an A^T is
//     M-major, a row-major B is N-major and a B^T K-major, and wgmma reads
//     16-bit operands in either order (its transpose immediates), so each
//     of the four op pairs is its own instantiation with its own copy boxes.
// It takes f16 / bf16 inputs (an operand not 16-byte aligned, or whose
// leading dimension is not a multiple of 8 — the copy engine's 16-byte
// strides — is first copied with padded rows), and tf32 and i8 inputs of any
// layout (wgmma reads them K-major only: op(A) and op(B)^T are
// first copied K-major into scratch where they are not already; the copy
// engine rounds tf32 on its way into shared memory), on a compute capability
// 9.0 device (the sm_90a
// image); anything else runs mma_sync's launcher (and so on down). The tile, the pipeline and the descriptors are
// explained in docs/gemm-tensor.md. Built only for sm_90a (CMakeLists.txt:
// the *_sm90a.cu files): the device code is compiled where
// __CUDA_ARCH_FEAT_SM90_ALL says wgmma exists.
#include "gemm/gemm_internal.h"
#include "gemm/gemm_tc_epilogue.h"
#include "internal.h"
#include "core/cupat_tma.cuh"
#include "transpose/transpose_internal.h"

#include <cmath>
#include <cuda.h>
#include <stdint.h>
#include <type_traits>
#include <string.h>

namespace {

constexpr int MB = 128, NB = 256, KB = 64, STAGES = 4, THREADS = 384;
constexpr int A_BYTES = MB * KB * 2, B_BYTES = KB * NB * 2, STAGE_BYTES = A_BYTES + B_BYTES;
// the stages, then 2 STAGES mbarriers; 1 KiB of slack to align the tiles to
// 1024 bytes (the 128-byte swizzle's period: the descriptors assume it)
// The input kinds: 0 f16, 1 bf16 (k16 an instruction, either operand order),
// 2 tf32 (k8), 3 i8 (k32, s32 accumulators); tf32 and i8 read K-major
// operands only. Every kind takes 128 bytes of k a tile row (KB elements).
enum { K_F16 = 0, K_BF16, K_TF32, K_I8 };
template <int KIND> struct Kind {
    static constexpr int KB = KIND == K_TF32 ? 32 : KIND == K_I8 ? 128 : 64;
    typedef typename std::conditional<KIND == K_I8, uint32_t, float>::type acc;
};

constexpr int EPI_LD = 256 + 8; // floats a parked row of the epilogue
static_assert(2 * 64 * EPI_LD * 4 <= STAGES * STAGE_BYTES, "the epilogue parks C's tile in the stages");
// The sizes for a tile NT columns wide: 256 (the default) or 128 (few-tile
// shapes, persistent form only: see dispatch16).
// The persistent form adds C's staging after the stages: two 8 KiB buffers
// a consumer warp group (see store_c), so SMEM <= 227 KiB at NT = 256.
template <int NT, bool PERSIST = false> struct Tile {
    static constexpr int B = KB * NT * 2, STAGE = A_BYTES + B, CSTAGE = PERSIST ? 2 * 2 * 8192 : 0;
    static constexpr int SMEM = STAGES * STAGE + CSTAGE + 2 * STAGES * 8 + 1024;
};
static_assert(Tile<NB, true>::SMEM <= 227 * 1024, "an H100 block's shared memory");

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
using namespace cupat_tma; // smem_addr, the mbarrier wrappers, load_2d (core/cupat_tma.cuh)

// A shared-memory matrix descriptor: start address, leading and stride
// byte offsets (16-byte units), 128-byte swizzle (mode 1 in bits 62-63).
__device__ __forceinline__ uint64_t desc(unsigned addr, unsigned lbo, unsigned sbo)
{
    return (uint64_t)((addr & 0x3FFFF) >> 4) | (uint64_t)(lbo >> 4) << 16 | (uint64_t)(sbo >> 4) << 32 | 1ull << 62;
}

#define R8(b) "+r"(d[b + 0]), "+r"(d[b + 1]), "+r"(d[b + 2]), "+r"(d[b + 3]), "+r"(d[b + 4]), "+r"(d[b + 5]), "+r"(d[b + 6]), "+r"(d[b + 7])
#define F8(b) "+f"(d[b + 0]), "+f"(d[b + 1]), "+f"(d[b + 2]), "+f"(d[b + 3]), "+f"(d[b + 4]), "+f"(d[b + 5]), "+f"(d[b + 6]), "+f"(d[b + 7])
#define WGMMA_D64 \
    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
    "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
    "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
#define WGMMA_D                                                                                                        \
    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
    "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
    "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, " \
    "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, " \
    "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, " \
    "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, " \
    "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"

// D (64 x 256) += A (64 x k) B (k x 256), both from shared memory, k = 32
// bytes of the kind; TA / TB: the 16-bit kinds' transpose immediates (0:
// K-major, 1: M- / N-major)
template <int KIND, int TA, int TB, int N = 256>
__device__ __forceinline__ void wgmma(typename Kind<KIND>::acc (&d)[N / 2], uint64_t da, uint64_t db)
{
    static_assert(N == 256 || ((KIND == K_F16 || KIND == K_BF16) && N == 128), "n128: 16-bit kinds only");
    if constexpr (N == 128 && KIND == K_BF16)
        asm volatile("{ .reg .pred p; setp.ne.b32 p, %66, 0; wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {" WGMMA_D64
                     "}, %64, %65, p, 1, 1, %67, %68; }"
                     : F8(0), F8(8), F8(16), F8(24), F8(32), F8(40), F8(48), F8(56)
                     : "l"(da), "l"(db), "r"(1), "n"(TA), "n"(TB));
    else if constexpr (N == 128)
        asm volatile("{ .reg .pred p; setp.ne.b32 p, %66, 0; wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {" WGMMA_D64
                     "}, %64, %65, p, 1, 1, %67, %68; }"
                     : F8(0), F8(8), F8(16), F8(24), F8(32), F8(40), F8(48), F8(56)
                     : "l"(da), "l"(db), "r"(1), "n"(TA), "n"(TB));
    else if constexpr (KIND == K_BF16)
        asm volatile("{ .reg .pred p; setp.ne.b32 p, %130, 0; wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {" WGMMA_D
                     "}, %128, %129, p, 1, 1, %131, %132; }"
                     : F8(0), F8(8), F8(16), F8(24), F8(32), F8(40), F8(48), F8(56), F8(64), F8(72), F8(80), F8(88),
                       F8(96), F8(104), F8(112), F8(120)
                     : "l"(da), "l"(db), "r"(1), "n"(TA), "n"(TB));
    else if constexpr (KIND == K_F16)
        asm volatile("{ .reg .pred p; setp.ne.b32 p, %130, 0; wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {" WGMMA_D
                     "}, %128, %129, p, 1, 1, %131, %132; }"
                     : F8(0), F8(8), F8(16), F8(24), F8(32), F8(40), F8(48), F8(56), F8(64), F8(72), F8(80), F8(88),
                       F8(96), F8(104), F8(112), F8(120)
                     : "l"(da), "l"(db), "r"(1), "n"(TA), "n"(TB));
    else if constexpr (KIND == K_TF32)
        asm volatile("{ .reg .pred p; setp.ne.b32 p, %130, 0; wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 {" WGMMA_D
                     "}, %128, %129, p, 1, 1; }"
                     : F8(0), F8(8), F8(16), F8(24), F8(32), F8(40), F8(48), F8(56), F8(64), F8(72), F8(80), F8(88),
                       F8(96), F8(104), F8(112), F8(120)
                     : "l"(da), "l"(db), "r"(1));
    else
        asm volatile("{ .reg .pred p; setp.ne.b32 p, %130, 0; wgmma.mma_async.sync.aligned.m64n256k32.s32.s8.s8 {" WGMMA_D
                     "}, %128, %129, p; }"
                     : R8(0), R8(8), R8(16), R8(24), R8(32), R8(40), R8(48), R8(56), R8(64), R8(72), R8(80), R8(88),
                       R8(96), R8(104), R8(112), R8(120)
                     : "l"(da), "l"(db), "r"(1));
}
#undef F8
#undef R8
#undef WGMMA_D
#undef WGMMA_D64

// alpha x and alpha y rounded to the 16-bit output type (ties to even) and
// packed, x in the low half: one cvt for two. The same bits as
// cupat__tc_half: the only NaN the products and alpha's multiply give is the
// canonical 0x7fffffff, which both make 0x7fff.
template <bool BF16> __device__ __forceinline__ uint32_t half2_bits(float x, float y)
{
    uint32_t r;
    if constexpr (BF16) asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(y), "f"(x));
    else asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(y), "f"(x));
    return r;
}

// The persistent epilogue through the copy engine (beta = 0, not C^T, C's
// rows 16-byte aligned and n a whole number of 16-byte chunks: the engine
// clips a store at the tensor's edge in 16-byte chunks, not elements).
// A consumer warp group's 64 x NT of C goes out in chunks of 128 bytes of
// columns (64 16-bit or 32 4-byte elements): the threads write a chunk into
// one of the group's two 8 KiB buffers, 128-byte swizzled as the tensor map
// says (a warp's 4-byte stores land on 32 banks), and one thread stores it
// with a TMA box while the threads fill the other buffer. The consumers
// return to the products as soon as the last chunk is issued.
// OUT: 0 f32 (or i32 from i8), 1 f16, 2 bf16.
template <int KIND, int OUT, int NT, typename Acc>
__device__ __forceinline__ void store_c(const Acc (&d)[NT / 2], const cupat_gemm_tc_args &a, const CUtensorMap *mapC,
                                        unsigned stg, int cw, int i0, int j0, int t)
{
    stg += cw * 16384; // this warp group's two buffers; its rows of C from i0 + 64 cw
    i0 += 64 * cw;
    constexpr int ESZ = OUT ? 2 : 4, CW = 128 / ESZ; // a chunk: 64 rows x CW columns
    const int w = t / 32, lane = t % 32, row = w * 16 + lane / 4;
#pragma unroll
    for (int q = 0; q < NT / CW; q++) {
        const unsigned buf = stg + (q % 2) * 8192;
        if (t == 0) cupat_tma::wait_read<1>(); // the store that read buf (two chunks ago) is done with it
        asm volatile("bar.sync %0, 128;" ::"r"(2 + cw) : "memory");
#pragma unroll
        for (int jj = 0; jj < CW / 8; jj++)
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const int j = q * (CW / 8) + jj, e = 4 * j + 2 * h, r = row + 8 * h;
                const int byte = (8 * jj + 2 * (lane % 4)) * ESZ; // in the chunk's 128-byte row
                const unsigned at = buf + r * 128 + ((((byte >> 4) ^ r) & 7) << 4) + (byte & 15);
                if constexpr (OUT) {
                    const uint32_t v = half2_bits<OUT == 2>(a.alpha * d[e], a.alpha * d[e + 1]);
                    asm volatile("st.shared.u32 [%0], %1;" ::"r"(at), "r"(v) : "memory");
                } else if constexpr (KIND == K_I8) { // modulo 2^32, as cupat__tc_epilogue_i32
                    asm volatile("st.shared.v2.u32 [%0], {%1, %2};" ::"r"(at), "r"((uint32_t)a.ialpha * d[e]),
                                 "r"((uint32_t)a.ialpha * d[e + 1])
                                 : "memory");
                } else {
                    asm volatile("st.shared.v2.f32 [%0], {%1, %2};" ::"r"(at), "f"(a.alpha * d[e]), "f"(a.alpha * d[e + 1])
                                 : "memory");
                }
            }
        cupat_tma::fence_async_shared(); // the threads' writes, then the copy engine's read
        asm volatile("bar.sync %0, 128;" ::"r"(2 + cw) : "memory");
        if (t == 0) {
            cupat_tma::store_2d(mapC, j0 + q * CW, i0, buf);
            cupat_tma::commit();
        }
    }
}
#endif

// The tiles in shared memory, 128-byte rows of 64 elements, swizzled by the
// copy engine in 1024-byte periods:
//   K-major operand (A op N, B op T): rows = the M (N) index, 64 k a row;
//     the descriptor steps 8 rows by SBO = 1024; LBO unused; the k16 step
//     moves the start 32 bytes.
//   M/N-major operand (A op T, B op N): 64-wide chunks of the M (N) index,
//     each chunk 64 k-rows of 128 bytes (8 KiB); LBO = 8192 steps chunks,
//     SBO = 1024 steps 8 k-rows; the k16 step moves the start 16 rows (2 KiB).
//
// Two forms of one kernel. PERSIST: one block an SM walks the tiles (tile
// b, b + grid, ...); the producer runs ahead into the next tile's k-slices
// while the consumers store this tile's C straight from their registers,
// column pairs in one 4- or 8-byte store (beta = 0, C 8- / 4-byte aligned,
// ldc and n even: the common case). Otherwise one block a tile, C parked in the free
// stages and stored a float4 a thread (beta != 0, any alignment, odd n).
template <int KIND, int TA, int TB, bool PERSIST, int NT = NB>
__global__ void __launch_bounds__(THREADS, 1)
    k_wgmma(const __grid_constant__ CUtensorMap mapA, const __grid_constant__ CUtensorMap mapB,
            const __grid_constant__ CUtensorMap mapC, cupat_gemm_tc_args a, int cstore)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    constexpr bool AK = TA == 0, BK = TB == 1; // which operands are K-major in memory
    extern __shared__ unsigned char dyn[];
    const unsigned raw = smem_addr(dyn), base = (raw + 1023u) & ~1023u;
    constexpr int STAGE = Tile<NT, PERSIST>::STAGE;
    const unsigned stg = base + STAGES * STAGE;                    // C's staging (persistent form)
    const unsigned bars = stg + Tile<NT, PERSIST>::CSTAGE; // full[s] at bars + 8 s, empty[s] at bars + 8 (STAGES + s)
    const int wg = threadIdx.x / 128, t = threadIdx.x % 128;
    constexpr int KB = Kind<KIND>::KB;
    typedef typename Kind<KIND>::acc acc;
    const int kt = (a.k + KB - 1) / KB, nt = (a.n + NT - 1) / NT, mt = (a.m + MB - 1) / MB;
    const int ntiles = PERSIST ? mt * nt : 1;
    // tile -> (i0, j0): persistent blocks take tiles in groups of 8 row
    // tiles, column by column, so the blocks at work share A's and B's
    // panels in L2
    auto origin = [&](int tile, int &i0, int &j0) {
        if (!PERSIST) {
            i0 = blockIdx.y * MB;
            j0 = blockIdx.x * NT;
            return;
        }
        const int g = tile / (8 * nt), rows = mt - 8 * g < 8 ? mt - 8 * g : 8, r = tile - g * 8 * nt;
        i0 = (8 * g + r % rows) * MB;
        j0 = (r / rows) * NT;
    };
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; s++) {
            bar_init(bars + 8 * s, 1);            // the producer's expect_tx
            bar_init(bars + 8 * (STAGES + s), 2); // one arrive a consumer warp group
        }
        bar_init_fence();
    }
    __syncthreads();
    if (wg == 0) {
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
        if (t == 0) {
            int it = 0; // k-slices issued by this block, across its tiles
            for (int tile = PERSIST ? blockIdx.x : 0; tile < ntiles; tile += PERSIST ? gridDim.x : 1) {
                int i0, j0;
                origin(tile, i0, j0);
                for (int s = 0; s < kt; s++, it++) {
                    const int st = it % STAGES;
                    const unsigned full = bars + 8 * st, sa = base + st * STAGE, sb = sa + A_BYTES;
                    if (it >= STAGES) bar_wait(bars + 8 * (STAGES + st), ((it / STAGES) - 1) & 1);
                    bar_expect(full, STAGE);
                    const int p0 = s * KB;
                    if (AK) load_2d(sa, &mapA, p0, i0, full); // box KB k x 128 m
                    else
                        for (int c = 0; c < MB / 64; c++) load_2d(sa + c * 8192, &mapA, i0 + 64 * c, p0, full); // 64 m x 64 k
                    if (BK) load_2d(sb, &mapB, p0, j0, full); // box KB k x 256 n
                    else
                        for (int c = 0; c < NT / 64; c++) load_2d(sb + c * 8192, &mapB, j0 + 64 * c, p0, full); // 64 n x 64 k
                }
            }
        }
    } else {
        asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
        const int cw = wg - 1; // rows 64 cw of the tile
        const int w = t / 32, lane = t % 32;
        int it = 0;
        for (int tile = PERSIST ? blockIdx.x : 0; tile < ntiles; tile += PERSIST ? gridDim.x : 1) {
            int i0, j0;
            origin(tile, i0, j0);
            acc d[NT / 2];
#pragma unroll
            for (int e = 0; e < NT / 2; e++) d[e] = 0;
            for (int s = 0; s < kt; s++, it++) {
                const int st = it % STAGES;
                const unsigned sa = base + st * STAGE, sb = sa + A_BYTES;
                bar_wait(bars + 8 * st, (it / STAGES) & 1);
                asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
                for (int kk = 0; kk < 4; kk++) { // 32 bytes of k an instruction
                    const uint64_t da = AK ? desc(sa + cw * 8192 + kk * 32, 16, 1024)
                                           : desc(sa + cw * 8192 + kk * 2048, 8192, 1024);
                    const uint64_t db = BK ? desc(sb + kk * 32, 16, 1024) : desc(sb + kk * 2048, 8192, 1024);
                    wgmma<KIND, AK ? 0 : 1, BK ? 0 : 1, NT>(d, da, db);
                }
                asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
                // the previous slice's products are done: its stage may refill
                asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
                if (s > 0 && t == 0) bar_arrive(bars + 8 * (STAGES + (it - 1) % STAGES));
            }
            asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
            // accumulator 4 j + e: row 16 w + lane / 4 + 8 (e / 2), column
            // 8 j + 2 (lane % 4) + e % 2 of the warp group's 64 x 256
            const int r = i0 + cw * 64 + w * 16 + lane / 4, c = j0 + 2 * (lane % 4);
            if (PERSIST) {
                if (t == 0) bar_arrive(bars + 8 * (STAGES + (it - 1) % STAGES)); // the last stage, too
                // beta = 0 (the launcher's rule): alpha s, rounded once, the
                // same bits as cupat__tc_epilogue_f32x2, one loop of bare
                // stores per output width (few instructions: see below).
                if (cstore) { // through shared memory and the copy engine (launch: cstore)
                    if constexpr (KIND == K_F16 || KIND == K_BF16) {
                        if (a.out == CUPAT_GEMM_BF16) store_c<KIND, 2, NT>(d, a, &mapC, stg, cw, i0, j0, t);
                        else if (a.out == CUPAT_GEMM_F16) store_c<KIND, 1, NT>(d, a, &mapC, stg, cw, i0, j0, t);
                        else store_c<KIND, 0, NT>(d, a, &mapC, stg, cw, i0, j0, t);
                    } else {
                        store_c<KIND, 0, NT>(d, a, &mapC, stg, cw, i0, j0, t);
                    }
                    continue;
                }
                if constexpr (KIND == K_F16 || KIND == K_BF16) {
                    if (a.ct) { // C^T: this (row, column) of the tile is C's (column, row);
                        // a warp's store is 4 runs of 8 consecutive elements of C

#define CUPAT_WG_T(STORE)                                                                                             \
    _Pragma("unroll") for (int j = 0; j < NT / 8; j++) _Pragma("unroll") for (int h = 0; h < 2; h++) if (r + 8 * h < a.m) \
        _Pragma("unroll") for (int e = 0; e < 2; e++) if (c + 8 * j + e < a.n)                                        \
            STORE((size_t)(c + 8 * j + e) * a.ldc + r + 8 * h, d[4 * j + 2 * h + e]);
#define CUPAT_WG_T_F32(at, x) ((float *)a.C)[at] = a.alpha * (x)
#define CUPAT_WG_T_HALF(at, x) ((uint16_t *)a.C)[at] = cupat__tc_half(a.out, a.alpha * (x))
                        if (a.out == CUPAT_GEMM_F32) {
                            CUPAT_WG_T(CUPAT_WG_T_F32)
                        } else {
                            CUPAT_WG_T(CUPAT_WG_T_HALF)
                        }
#undef CUPAT_WG_T_F32
#undef CUPAT_WG_T_HALF
#undef CUPAT_WG_T
                        continue;
                    }
                }
                // n even: a pair in range has its second column in range
#define CUPAT_WG_PAIRS(STORE)                                                                                        \
    _Pragma("unroll") for (int j = 0; j < NT / 8; j++) _Pragma("unroll") for (int h = 0; h < 2; h++) if (            \
        r + 8 * h < a.m && c + 8 * j < a.n) STORE((size_t)(r + 8 * h) * a.ldc + c + 8 * j, d[4 * j + 2 * h],            \
                                                  d[4 * j + 2 * h + 1]);
                if constexpr (KIND == K_I8) { // modulo 2^32, as cupat__tc_epilogue_i32
#define CUPAT_WG_I32(at, x, y) *(uint2 *)((uint32_t *)a.C + (at)) = make_uint2((uint32_t)a.ialpha * (x), (uint32_t)a.ialpha * (y))
                    CUPAT_WG_PAIRS(CUPAT_WG_I32)
                } else if (a.out == CUPAT_GEMM_F32) {
#define CUPAT_WG_F32(at, x, y) *(float2 *)((float *)a.C + (at)) = make_float2(a.alpha * (x), a.alpha * (y))
                    CUPAT_WG_PAIRS(CUPAT_WG_F32)
                } else if (a.out == CUPAT_GEMM_BF16) {
#define CUPAT_WG_BF16(at, x, y) *(uint32_t *)((uint16_t *)a.C + (at)) = half2_bits<true>(a.alpha * (x), a.alpha * (y))
                    CUPAT_WG_PAIRS(CUPAT_WG_BF16)
                } else {
#define CUPAT_WG_F16(at, x, y) *(uint32_t *)((uint16_t *)a.C + (at)) = half2_bits<false>(a.alpha * (x), a.alpha * (y))
                    CUPAT_WG_PAIRS(CUPAT_WG_F16)
                }
#undef CUPAT_WG_I32
#undef CUPAT_WG_F32
#undef CUPAT_WG_BF16
#undef CUPAT_WG_F16
#undef CUPAT_WG_PAIRS
                continue;
            }
            if constexpr (!PERSIST) { // (NT = 256: the park is 256 columns wide)
            // One block a tile: the stages are free once both consumer warp
            // groups are done reading them. Each warp group parks its 64 x 256
            // accumulators in rows of 264 floats (the 8-float pad puts a
            // warp's 8 rows of a store on different banks), then reads them
            // back a row-contiguous float4 a thread and stores 4 columns at
            // once where C allows. (An unrolled element-by-element store with
            // its alignment fallbacks was instruction-cache bound: 2x slower.)
            asm volatile("bar.sync 1, 256;" ::: "memory"); // both warp groups' products done
            acc *park = (acc *)(dyn + (base - raw)) + cw * (64 * EPI_LD);
            const int pr = w * 16 + lane / 4, pc = 2 * (lane % 4);
#pragma unroll
            for (int j = 0; j < 32; j++) {
                park[pr * EPI_LD + 8 * j + pc] = d[4 * j];
                park[pr * EPI_LD + 8 * j + pc + 1] = d[4 * j + 1];
                park[(pr + 8) * EPI_LD + 8 * j + pc] = d[4 * j + 2];
                park[(pr + 8) * EPI_LD + 8 * j + pc + 1] = d[4 * j + 3];
            }
            asm volatile("bar.sync %0, 128;" ::"r"(2 + cw) : "memory"); // this warp group's rows are parked
            const size_t esz = a.out == CUPAT_GEMM_F32 ? 4 : 2;
            const bool quads = a.ldc % 4 == 0 && (uintptr_t)a.C % (4 * esz) == 0;
            for (int q = t; q < 64 * 64; q += 128) {
                const int pq = q / 64, c4 = (q % 64) * 4, i = i0 + cw * 64 + pq, cc = j0 + c4;
                if (i >= a.m || cc >= a.n) continue;
                const size_t at = (size_t)i * a.ldc + cc;
                if constexpr (KIND == K_I8) {
                    for (int u = 0; u < 4 && cc + u < a.n; u++) cupat__tc_epilogue_i32(&a, at + u, park[pq * EPI_LD + c4 + u]);
                    continue;
                }
                const float4 v = *(const float4 *)&park[pq * EPI_LD + c4];
                if (quads && cc + 3 < a.n) cupat__tc_epilogue_f32x4(&a, at, v);
                else {
                    const float e[4] = {v.x, v.y, v.z, v.w};
                    for (int u = 0; u < 4 && cc + u < a.n; u++) cupat__tc_epilogue_f32(&a, at + u, e[u]);
                }
            }
            }
        }
        if (PERSIST && cstore && t == 0) cupat_tma::wait_read<0>(); // the last stores have read the staging
    }
#endif
}

// A row-major rows x cols matrix of the kind's elements (leading dimension
// ld) as a tensor map with a box of bc x br, 128-byte swizzle, zeros past the
// edges. tf32 (an input operand of K_TF32): data type TFLOAT32, so the copy
// engine rounds each f32 to tf32, to nearest with ties to even (cupat's rule,
// test_gemm_tc's tf32_sweep checks it bit for bit), on its way into shared
// memory; as FLOAT32 it would copy the bits and the tensor cores would read
// their top 19 (truncation). C's map is FLOAT32.
cupat_status tensor_map(cupat_ctx *ctx, CUtensorMap *map, const void *p, int rows, int cols, size_t ld, int br,
                        int bc, int kind, bool tf32 = false)
{
    const size_t esz = kind == K_TF32 ? 4 : kind == K_I8 ? 1 : 2;
    const CUtensorMapDataType dt = kind == K_BF16   ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                   : kind == K_F16  ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                   : kind == K_TF32 ? (tf32 ? CU_TENSOR_MAP_DATA_TYPE_TFLOAT32
                                                            : CU_TENSOR_MAP_DATA_TYPE_FLOAT32)
                                                    : CU_TENSOR_MAP_DATA_TYPE_UINT8;
    return cupat__tensor_map_2d(ctx, map, dt, p, (uint64_t)cols, (uint64_t)rows, (uint64_t)(ld * esz), (uint32_t)bc,
                                (uint32_t)br, CU_TENSOR_MAP_SWIZZLE_128B, "cupat_gemm");
}

template <int KIND, int TA, int TB, bool PERSIST, int NT = NB>
cupat_status launch(cupat_ctx *ctx, const cupat_gemm_tc_args *a)
{
    static unsigned char ready[64]; // the opt-in above 48 KiB, once a device (wgmma_runs_here bounds it)
    constexpr int SMEM = Tile<NT, PERSIST>::SMEM;
    if (!ready[ctx->device]) {
        CUPAT_CUDA_TRY(ctx, cudaFuncSetAttribute(k_wgmma<KIND, TA, TB, PERSIST, NT>,
                                                 cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM));
        ready[ctx->device] = 1;
    }
    constexpr int KB = Kind<KIND>::KB;
    CUtensorMap ma, mb;
    // op(A) is m x k: A stored m x k (op N) or k x m (op T); op(B) k x n: B
    // stored k x n (op N) or n x k (op T). Boxes as the kernel reads them.
    const bool rnd = KIND == K_TF32;
    if (TA == 0) CUPAT_TRY(tensor_map(ctx, &ma, a->A, a->m, a->k, a->lda, MB, KB, KIND, rnd)); // K-major
    else CUPAT_TRY(tensor_map(ctx, &ma, a->A, a->k, a->m, a->lda, KB, 64, KIND, rnd));        // M-major
    if (TB == 0) CUPAT_TRY(tensor_map(ctx, &mb, a->B, a->k, a->n, a->ldb, KB, 64, KIND, rnd)); // N-major
    else CUPAT_TRY(tensor_map(ctx, &mb, a->B, a->n, a->k, a->ldb, NT, KB, KIND, rnd));        // K-major
    // C through the copy engine (persistent form, beta = 0 there, not C^T):
    // where its base and rows are 16-byte aligned and n fills whole 16-byte
    // chunks (the engine clips a store at n rounded up to 16 bytes)
    const size_t esz = cupat_gemm_type_size(a->out);
    const int cstore = PERSIST && !a->ct && (uintptr_t)a->C % 16 == 0 && (a->ldc * esz) % 16 == 0 &&
                       ((size_t)a->n * esz) % 16 == 0;
    CUtensorMap mc;
    memset(&mc, 0, sizeof mc);
    if (cstore) CUPAT_TRY(tensor_map(ctx, &mc, a->C, a->m, a->n, a->ldc, 64, (int)(128 / esz),
                                     esz == 4 ? K_TF32 : a->out == CUPAT_GEMM_BF16 ? K_BF16 : K_F16));
    const int nt = (a->n + NT - 1) / NT, mt = (a->m + MB - 1) / MB;
    dim3 grid((unsigned)nt, (unsigned)mt);
    if (PERSIST) {
        const long tiles = (long)nt * mt;
        grid = dim3((unsigned)(tiles < ctx->sm_count ? tiles : ctx->sm_count));
    }
    k_wgmma<KIND, TA, TB, PERSIST, NT><<<grid, THREADS, SMEM, ctx->stream>>>(ma, mb, mc, *a, cstore);
    return cupat__launched(ctx, "k_wgmma");
}

// tf32 and i8 read K-major operands only: op(A) (m x k) and op(B)^T (n x k)
// are first copied K-major into scratch where they are not already, rows
// padded to 16 bytes for the copy engine. out[r][c] = in[r][c] (trans 0) or
// in[c][r] (trans 1), 32 x 32 tiles through shared memory so both sides
// coalesce (a transposed f32 operand takes the transpose pattern's kernel
// instead: to_kmajor).
template <typename T>
__global__ void k_kmajor(const T *in, size_t ld_in, int trans, int rows, int cols, T *out, size_t ld_out)
{
    __shared__ T tile[32][33];
    const int r0 = blockIdx.y * 32, c0 = blockIdx.x * 32, tx = threadIdx.x, ty = threadIdx.y; // 32 x 8 threads
    for (int y = ty; y < 32; y += 8) {
        const int r = r0 + y, c = c0 + tx; // trans: read in[c0 + y][r0 + tx], rows of in along out's columns
        if (!trans) tile[y][tx] = r < rows && c < cols ? in[(size_t)r * ld_in + c] : T(0);
        else tile[tx][y] = c0 + y < cols && r0 + tx < rows ? in[(size_t)(c0 + y) * ld_in + r0 + tx] : T(0);
    }
    __syncthreads();
    for (int y = ty; y < 32; y += 8) {
        const int r = r0 + y, c = c0 + tx;
        if (r < rows && c < ld_out) out[(size_t)r * ld_out + c] = c < cols ? tile[y][tx] : T(0); // pad: zeros
    }
}

} // namespace

// ---- the tensor-core ceiling (cupat info, the gemm_tc bench's % column) ----
// Every SM: two warp groups issue wgmma m64n256k16 back to back on operands
// already in shared memory (48 KiB of pseudo-random values in [-1, 1): the
// tensor cores' power, and so the clock, depends on the data), no loads, no
// epilogue but one sum. Flops: 2 * 64 * 256 * 16 a wgmma.
namespace {
constexpr int PEAK_ITERS = 1024;
template <bool BF16> __global__ void __launch_bounds__(256, 1) k_tc_peak(float *sink)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    extern __shared__ unsigned char dyn[];
    const unsigned raw = smem_addr(dyn), base = (raw + 1023u) & ~1023u;
    uint16_t *tile = (uint16_t *)(dyn + (base - raw));
    for (int i = threadIdx.x; i < STAGE_BYTES / 2; i += blockDim.x) {
        uint32_t h = (uint32_t)i * 2654435761u ^ 0x9E3779B9u;
        h ^= h >> 15;
        const float v = (float)(h & 0xFFFF) / 32768.0f - 1.0f; // [-1, 1)
        uint32_t u;
        memcpy(&u, &v, 4);
        tile[i] = BF16 ? cupat__f32_to_bf16_bits(u) : cupat__f32_to_f16_bits(u);
    }
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); // generic stores, read by the tensor cores
    __syncthreads();
    const int wg = threadIdx.x / 128;
    float d[128];
#pragma unroll
    for (int e = 0; e < 128; e++) d[e] = 0.0f;
    for (int it = 0; it < PEAK_ITERS; it++) {
        asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
        for (int kk = 0; kk < 4; kk++)
            wgmma<BF16 ? K_BF16 : K_F16, 0, 0>(d, desc(base + wg * 8192 + kk * 32, 16, 1024), desc(base + A_BYTES + kk * 32, 16, 1024));
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
    }
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    float sum = 0.0f;
#pragma unroll
    for (int e = 0; e < 128; e++) sum += d[e];
    if (sum == 1234.5f) sink[threadIdx.x] = sum; // never, but the compiler cannot know
#endif
}
} // namespace

static int wgmma_runs_here(cupat_ctx *ctx);

extern "C" cupat_status cupat__tc_ceiling(cupat_ctx *ctx, int bf16, double *gflops)
{
    *gflops = 0;
    if (!wgmma_runs_here(ctx))
        return cupat__fail(ctx, CUPAT_ERROR_NOT_SUPPORTED,
                           "tensor ceiling: needs the sm_90a image (compute capability 9.0)");
    const int smem = STAGE_BYTES + 1024;
    if (bf16) CUPAT_CUDA_TRY(ctx, cudaFuncSetAttribute(k_tc_peak<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    else CUPAT_CUDA_TRY(ctx, cudaFuncSetAttribute(k_tc_peak<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    float *sink = NULL;
    CUPAT_TRY(cupat_malloc(ctx, (void **)&sink, 256 * sizeof(float)));
    cudaEvent_t ev[6];
    int made = 0;
    cupat_status st = CUPAT_SUCCESS;
    for (; made < 6 && !st; made++) st = cupat__cuda(ctx, cudaEventCreate(&ev[made]), "cudaEventCreate");
    if (st) made--;
    // a warm-up launch, then 5 timed back to back between 6 events: the fastest
    for (int i = -1; i < 5 && !st; i++) {
        if (bf16) k_tc_peak<true><<<ctx->sm_count, 256, smem, ctx->stream>>>(sink);
        else k_tc_peak<false><<<ctx->sm_count, 256, smem, ctx->stream>>>(sink);
        st = cupat__launched(ctx, "k_tc_peak");
        if (!st) st = cupat__cuda(ctx, cudaEventRecord(ev[i + 1], ctx->stream), "cudaEventRecord");
    }
    if (!st) st = cupat__cuda(ctx, cudaEventSynchronize(ev[5]), "cudaEventSynchronize");
    float best = 0;
    for (int i = 0; i < 5 && !st; i++) {
        float ms = 0;
        st = cupat__cuda(ctx, cudaEventElapsedTime(&ms, ev[i], ev[i + 1]), "cudaEventElapsedTime");
        if (!st && ms > 0 && (best == 0 || ms < best)) best = ms;
    }
    for (int i = 0; i < made; i++) cudaEventDestroy(ev[i]);
    cupat_free(ctx, sink);
    if (!st && best > 0) *gflops = 2.0 * 64 * 256 * 16 * 4 * (double)PEAK_ITERS * 2 * ctx->sm_count / (best * 1e6);
    return st;
}

// The sm_90a image runs on compute capability 9.0 only: asked once a
// process per device through the kernel's attributes (an error there means
// no loadable image: the rung falls back).
static int wgmma_runs_here(cupat_ctx *ctx)
{
    static signed char ok[64];
    const int dev = ctx->device;
    if (dev < 0 || dev >= 64) return 0;
    if (!ok[dev]) {
        int major = 0, minor = 0;
        cudaFuncAttributes fa;
        int yes = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) == cudaSuccess &&
                  cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) == cudaSuccess &&
                  major == 9 && minor == 0 && cudaFuncGetAttributes(&fa, k_wgmma<K_BF16, 0, 1, false>) == cudaSuccess;
        (void)cudaGetLastError(); // a refused query leaves no error behind
        ok[dev] = yes ? 1 : -1;
    }
    return ok[dev] > 0;
}

// A 16-bit operand the copy engine cannot read in place (unaligned, or a
// leading dimension not a multiple of 8) is copied first, same layout, rows
// padded to 16 bytes.
static int aligned16(const void *p, size_t ld) { return (uintptr_t)p % 16 == 0 && ld % 8 == 0; }

extern "C" int cupat__gemm_tc_wgmma_takes(const cupat_gemm_tc_args *a)
{
    // the copies' grid: a row of blocks a 32 rows of the copied matrix
    const int rows_a = a->ta ? a->k : a->m, rows_b = a->tb ? a->n : a->k;
    if (a->in == CUPAT_GEMM_TF32 || a->in == CUPAT_GEMM_I8) return a->m <= 65535 * 32 && a->n <= 65535 * 32;
    return (aligned16(a->A, a->lda) || rows_a <= 65535 * 32) && (aligned16(a->B, a->ldb) || rows_b <= 65535 * 32);
}

// One operand K-major into scratch (rows x cols, cols along k): in stored
// as it is (trans 0) or transposed (trans 1). A transposed f32 operand goes
// through the transpose pattern's vec8_2x2 (8-byte words; tile32 where its
// rows are not 8-byte aligned).
template <typename T>
cupat_status to_kmajor(cupat_ctx *ctx, const void *in, size_t ld_in, int trans, int rows, int cols, void *out,
                       size_t ld_out)
{
    if (sizeof(T) == 4 && trans)
        return cupat__transpose_cuda(ctx, TR_VEC8_2X2, (size_t)cols, (size_t)rows, 4, in, ld_in, out, ld_out);
    const dim3 grid((unsigned)((ld_out + 31) / 32), (unsigned)((rows + 31) / 32)), block(32, 8);
    k_kmajor<T><<<grid, block, 0, ctx->stream>>>((const T *)in, ld_in, trans, rows, cols, (T *)out, ld_out);
    return cupat__launched(ctx, "k_kmajor");
}

// tf32 / i8: K-major copies where needed, then the K-major instantiation. An
// operand already K-major, 16-byte aligned with 16-byte rows is read in place
// (tf32 too: the copy engine rounds it, see tensor_map).
template <int KIND, bool PERSIST> cupat_status launch_kmajor(cupat_ctx *ctx, const cupat_gemm_tc_args *a)
{
    typedef typename std::conditional<KIND == K_I8, int8_t, float>::type T;
    const size_t esz = sizeof(T), ld = ((size_t)a->k * esz + 15) / 16 * 16 / esz;
    const int copy_a = a->ta || (uintptr_t)a->A % 16 || (a->lda * esz) % 16;
    const int copy_b = !a->tb || (uintptr_t)a->B % 16 || (a->ldb * esz) % 16;
    const size_t bytes_a = copy_a ? (size_t)a->m * ld * esz : 0, bytes_b = copy_b ? (size_t)a->n * ld * esz : 0;
    unsigned char *scratch = NULL;
    if (bytes_a + bytes_b) CUPAT_TRY(cupat__scratch(ctx, bytes_a + bytes_b + 256, (void **)&scratch));
    cupat_gemm_tc_args k = *a;
    if (copy_a) {
        CUPAT_TRY(to_kmajor<T>(ctx, a->A, a->lda, a->ta, a->m, a->k, scratch, ld));
        k.A = scratch;
        k.lda = ld;
    }
    if (copy_b) {
        unsigned char *b = scratch + (bytes_a + 255) / 256 * 256;
        CUPAT_TRY(to_kmajor<T>(ctx, a->B, a->ldb, !a->tb, a->n, a->k, b, ld));
        k.B = b;
        k.ldb = ld;
    }
    k.ta = 0;
    k.tb = 1;
    return launch<KIND, 0, 1, PERSIST>(ctx, &k);
}

static cupat_status dispatch16(cupat_ctx *ctx, const cupat_gemm_tc_args *a, int persist);
// MB x w tiles over an m x n product
static double tiles(int m, int n, int w) { return std::ceil(m / (double)MB) * std::ceil(n / (double)w); }

extern "C" cupat_status cupat__gemm_tc_wgmma(cupat_ctx *ctx, const cupat_gemm_tc_args *a)
{
    if (!a->reads_ab || !cupat__gemm_tc_wgmma_takes(a) || (a->m + MB - 1) / MB > 65534 || !wgmma_runs_here(ctx))
        return cupat__gemm_tc_mma(ctx, a);
    // the persistent form where C takes column-pair stores and beta = 0
    // (see k_wgmma); fewer than 2^30 tiles keep its tile index an int
    const size_t esz = cupat_gemm_type_size(a->out);
    const int beta0 = a->in == CUPAT_GEMM_I8 ? a->ibeta == 0 : a->beta == 0.0f;
    const int persist = beta0 && a->n % 2 == 0 && a->ldc % 2 == 0 && (uintptr_t)a->C % (2 * esz) == 0 &&
                        tiles(a->m, a->n, NB) < 1073741824.0;
    if (a->in == CUPAT_GEMM_TF32) return persist ? launch_kmajor<K_TF32, true>(ctx, a) : launch_kmajor<K_TF32, false>(ctx, a);
    if (a->in == CUPAT_GEMM_I8) return persist ? launch_kmajor<K_I8, true>(ctx, a) : launch_kmajor<K_I8, false>(ctx, a);
    cupat_gemm_tc_args c = *a; // 16-bit operands copied where the copy engine cannot read them
    const int ca = !aligned16(a->A, a->lda), cb = !aligned16(a->B, a->ldb);
    if (ca || cb) {
        const int ra = a->ta ? a->k : a->m, wa = a->ta ? a->m : a->k; // A and B as stored
        const int rb = a->tb ? a->n : a->k, wb = a->tb ? a->k : a->n;
        const size_t la = ((size_t)wa + 7) / 8 * 8, lb = ((size_t)wb + 7) / 8 * 8;
        const size_t ba = ca ? ((size_t)ra * la * 2 + 255) / 256 * 256 : 0, bb = cb ? (size_t)rb * lb * 2 : 0;
        unsigned char *scratch = NULL;
        CUPAT_TRY(cupat__scratch(ctx, ba + bb, (void **)&scratch));
        if (ca) {
            CUPAT_TRY((to_kmajor<uint16_t>(ctx, a->A, a->lda, 0, ra, wa, scratch, la)));
            c.A = scratch;
            c.lda = la;
        }
        if (cb) {
            CUPAT_TRY((to_kmajor<uint16_t>(ctx, a->B, a->ldb, 0, rb, wb, scratch + ba, lb)));
            c.B = scratch + ba;
            c.ldb = lb;
        }
        a = &c;
    }
    // Skinny shapes: a 128 x 256 tile over m x n wastes the tensor cores'
    // work where n is small (65536 x 64: three quarters of every m64n256
    // instruction). Computing C^T = op(B)^T op(A)^T (n x m) wastes less where
    // n fills the tile's 128 rows better than its 256 columns; the kernel
    // then stores transposed (persistent form, beta = 0).
    auto fill = [](int m, int n) { return (double)m * n / (tiles(m, n, NB) * MB * NB); };
    if (beta0 && !a->ct && tiles(a->n, a->m, NB) < 1073741824.0 && fill(a->n, a->m) > 1.25 * fill(a->m, a->n)) {
        cupat_gemm_tc_args t = *a;
        t.m = a->n;
        t.n = a->m;
        t.A = a->B;
        t.lda = a->ldb;
        t.ta = !a->tb;
        t.B = a->A;
        t.ldb = a->lda;
        t.tb = !a->ta;
        t.ct = 1;
        return dispatch16(ctx, &t, 1);
    }
    return dispatch16(ctx, a, persist);
}

// f16 / bf16 operands the copy engine reads in place: one instantiation an
// op pair, kind and form
// One instantiation a kind and op pair for one form and tile width.
template <bool PERSIST, int NT> static cupat_status by_ops(cupat_ctx *ctx, const cupat_gemm_tc_args *a)
{
    switch (a->ta * 2 + a->tb + 4 * (a->in == CUPAT_GEMM_BF16)) {
    case 0: return launch<K_F16, 0, 0, PERSIST, NT>(ctx, a);
    case 1: return launch<K_F16, 0, 1, PERSIST, NT>(ctx, a);
    case 2: return launch<K_F16, 1, 0, PERSIST, NT>(ctx, a);
    case 3: return launch<K_F16, 1, 1, PERSIST, NT>(ctx, a);
    case 4: return launch<K_BF16, 0, 0, PERSIST, NT>(ctx, a);
    case 5: return launch<K_BF16, 0, 1, PERSIST, NT>(ctx, a);
    case 6: return launch<K_BF16, 1, 0, PERSIST, NT>(ctx, a);
    default: return launch<K_BF16, 1, 1, PERSIST, NT>(ctx, a);
    }
}

static cupat_status dispatch16(cupat_ctx *ctx, const cupat_gemm_tc_args *a, int persist)
{
    if (!persist) return by_ops<false, NB>(ctx, a);
    // Few tiles (1000^3: 32 of 128 x 256 for 132 SMs): 128-wide tiles give
    // twice as many blocks work, each half as long (persistent form).
    const int narrow = cupat__gemm_tc_tile_n ? cupat__gemm_tc_tile_n == 128
                                             : 2 * tiles(a->m, a->n, NB) <= ctx->sm_count && a->n > 128;
    return narrow ? by_ops<true, 128>(ctx, a) : by_ops<true, NB>(ctx, a);
}
