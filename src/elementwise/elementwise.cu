// SPDX-License-Identifier: Apache-2.0
/* elementwise.cu — the CUDA ladders of the elementwise family: vadd/saxpy,
 * matadd, gray, blur. Each kernel names its technique and book section; the
 * launchers below pick grid shapes and fall back where alignment forbids a rung's
 * wide accesses. Indices are 64-bit throughout: n beyond 2^32 works. */
#include "elementwise.h"
#include "conv2d/conv2d_internal.h" /* the blur rung "conv" */
#include "core/cupat_tma.cuh"

#include <cuda_runtime.h>
#include <limits.h>
#include <stdint.h>

#define EW_BLOCK 256      /* threads per 1D block */
#define MAX_GRID_Y 65535u /* gridDim.y limit: 2D kernels loop over rows past it */

static size_t cdiv(size_t a, size_t b) { return a / b + (a % b != 0); }
static unsigned grid_y(size_t blocks) { return blocks < MAX_GRID_Y ? (unsigned)blocks : MAX_GRID_Y; }

/* Blocks that fill every SM exactly once for `kernel` at `block` threads and
 * `smem` bytes (occupancy API, CUDA PG 8.2.3.1), capped at `want`, at least 1.
 * A grid-stride kernel then runs as one wave: no tail of late blocks. */
static cupat_status fill_grid(cupat_ctx *ctx, const void *kernel, int block, size_t smem,
                              size_t want, unsigned *grid)
{
    int per_sm = 0;
    CUPAT_CUDA_TRY(ctx, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block, smem));
    size_t g = (size_t)(per_sm > 0 ? per_sm : 1) * (size_t)ctx->sm_count;
    if (want < g) g = want;
    *grid = g ? (unsigned)g : 1u;
    return CUPAT_SUCCESS;
}

/* Grid-stride walk over a rows x upr space of (row, unit) pairs, row-major, as
 * one flat index: a division at the start, then the stride is added as its
 * (quotient, remainder) — no 64-bit division per step. */
typedef struct { size_t r, u, dq, du; } flat_walk;
__device__ __forceinline__ flat_walk flat_start(size_t upr)
{
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t s = (size_t)gridDim.x * blockDim.x;
    flat_walk w = {t / upr, t % upr, s / upr, s % upr};
    return w;
}
__device__ __forceinline__ void flat_next(flat_walk *w, size_t upr)
{
    w->r += w->dq;
    w->u += w->du;
    if (w->u >= upr) {
        w->u -= upr;
        w->r++;
    }
}

static int aligned(const void *p, size_t a) { return ((uintptr_t)p & (a - 1)) == 0; }

/* ======================================================= vadd / saxpy == */
/* No __restrict__: saxpy's y is both b and c, and vadd may run in place. */

template <int OP>
__device__ __forceinline__ float ew_f(float alpha, float a, float b)
{
    return OP == EW_OP_AXPY ? __fmaf_rn(alpha, a, b) : __fadd_rn(a, b);
}
template <int OP>
__device__ __forceinline__ float4 ew_f4(float alpha, float4 a, float4 b)
{
    return make_float4(ew_f<OP>(alpha, a.x, b.x), ew_f<OP>(alpha, a.y, b.y),
                       ew_f<OP>(alpha, a.z, b.z), ew_f<OP>(alpha, a.w, b.w));
}

/* naive — PMPP 2.3 vecAddKernel: one thread per element, the grid covers n. */
template <int OP>
__global__ void ew_naive(size_t n, float alpha, const float *a, const float *b, float *c)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = ew_f<OP>(alpha, a[i], b[i]);
}

/* grid-stride — PCCP 5.5's loop: a fixed grid of one wave of resident blocks
 * strides over n, so the grid no longer grows with n and block launch and
 * retirement costs are paid once per SM slot, not once per 256 elements. */
template <int OP>
__global__ void ew_grid_stride(size_t n, float alpha, const float *a, const float *b, float *c)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        c[i] = ew_f<OP>(alpha, a[i], b[i]);
}

template <bool STREAM>
__device__ __forceinline__ float4 ld4(const float4 *p)
{
    return STREAM ? __ldcs(p) : *p;
}
template <bool STREAM>
__device__ __forceinline__ void st4(float4 *p, float4 v)
{
    if (STREAM) __stcs(p, v);
    else *p = v;
}

/* The scalar edges of a float4 walk: the head (elements before the first
 * 16-byte boundary, < 4) and the tail (after the last whole float4, < 4),
 * done by the grid's first threads. */
template <int OP>
__device__ __forceinline__ void ew_edges(size_t head, size_t n4, size_t tail, float alpha,
                                         const float *a, const float *b, float *c)
{
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t < head) c[t] = ew_f<OP>(alpha, a[t], b[t]);
    if (t < tail) {
        size_t i = head + 4 * n4 + t;
        c[i] = ew_f<OP>(alpha, a[i], b[i]);
    }
}

/* Split n floats at `a` into head, whole float4s and tail (see ew_edges). */
static void ew_split(size_t n, const float *a, size_t *head, size_t *n4, size_t *tail)
{
    *head = ((16 - ((uintptr_t)a & 15)) & 15) / sizeof(float);
    if (*head > n) *head = n;
    *n4 = (n - *head) / 4;
    *tail = n - *head - 4 * *n4;
}

/* One grid-stride step of the vec4 rungs: U float4s of each input at i0,
 * i0 + step, ... are all loaded before any is used or stored. GUARD only on
 * the last, partial tile, so full tiles issue their loads back to back. */
template <int OP, int U, bool STREAM, bool GUARD>
__device__ __forceinline__ void ew_tile(size_t i0, size_t step, size_t n4, float alpha,
                                        const float4 *a4, const float4 *b4, float4 *c4)
{
    float4 va[U], vb[U];
#pragma unroll
    for (int k = 0; k < U; k++) {
        size_t i = i0 + k * step;
        if (!GUARD || i < n4) {
            va[k] = ld4<STREAM>(a4 + i);
            vb[k] = ld4<STREAM>(b4 + i);
        }
    }
#pragma unroll
    for (int k = 0; k < U; k++) {
        size_t i = i0 + k * step;
        if (!GUARD || i < n4) st4<STREAM>(c4 + i, ew_f4<OP>(alpha, va[k], vb[k]));
    }
}

/* vec4 (U = 1) — PCCP 4.3 aligned access: the grid-stride loop moves whole
 * 16-byte float4s, one 128-bit load/store per four elements.
 * vec4-unroll (U = 4) — PCCP 4.3 unrolling: each thread issues U independent
 * float4 loads of each input before the first use, so more bytes are in flight
 * per thread (without it a store fences the next iteration's loads, since the
 * arrays may alias).
 * vec4-stream — adds the evict-first hints __ldcs/__stcs (CUDA PG 6.2.3:
 * streaming accesses): data touched once should not displace L2 lines.
 * The head and tail go scalar in the first threads (ew_edges). */
template <int OP, int U, bool STREAM>
__global__ void __launch_bounds__(EW_BLOCK)
    ew_vec4(size_t head, size_t n4, size_t tail, float alpha, const float *a, const float *b,
            float *c)
{
    ew_edges<OP>(head, n4, tail, alpha, a, b, c);
    const float4 *a4 = (const float4 *)(a + head), *b4 = (const float4 *)(b + head);
    float4 *c4 = (float4 *)(c + head);
    const size_t step = blockDim.x, tile = (size_t)U * step;
    for (size_t i0 = blockIdx.x * tile + threadIdx.x; i0 < n4; i0 += gridDim.x * tile) {
        if (i0 + (U - 1) * step < n4)
            ew_tile<OP, U, STREAM, false>(i0, step, n4, alpha, a4, b4, c4);
        else
            ew_tile<OP, U, STREAM, true>(i0, step, n4, alpha, a4, b4, c4);
    }
}

template <int OP, int U, bool STREAM>
static cupat_status ew_vec4_launch(cupat_ctx *ctx, size_t n, float alpha, const float *a,
                                   const float *b, float *c, const char *name)
{
    size_t head, n4, tail;
    ew_split(n, a, &head, &n4, &tail);
    unsigned grid;
    CUPAT_TRY(fill_grid(ctx, (const void *)ew_vec4<OP, U, STREAM>, EW_BLOCK, 0,
                        cdiv(n4, (size_t)U * EW_BLOCK), &grid));
    ew_vec4<OP, U, STREAM><<<grid, EW_BLOCK, 0, ctx->stream>>>(head, n4, tail, alpha, a, b, c);
    return cupat__launched(ctx, name);
}

/* vec4-tile — the grid covers n, one tile of U float4s per thread per block,
 * no loop: blocks retire and the block scheduler refills the SMs, and no store
 * of one iteration orders the next iteration's loads behind it (the arrays may
 * alias, so a grid-stride loop cannot hoist them). */
template <int OP, int U>
__global__ void __launch_bounds__(EW_BLOCK)
    ew_vec4_tile(size_t head, size_t n4, size_t tail, float alpha, const float *a,
                 const float *b, float *c)
{
    ew_edges<OP>(head, n4, tail, alpha, a, b, c);
    size_t i0 = (size_t)blockIdx.x * U * EW_BLOCK + threadIdx.x;
    const float4 *a4 = (const float4 *)(a + head), *b4 = (const float4 *)(b + head);
    float4 *c4 = (float4 *)(c + head);
    if (i0 + (U - 1) * EW_BLOCK < n4)
        ew_tile<OP, U, false, false>(i0, EW_BLOCK, n4, alpha, a4, b4, c4);
    else
        ew_tile<OP, U, false, true>(i0, EW_BLOCK, n4, alpha, a4, b4, c4);
}

/* bulk-copy — Hopper's bulk copy engine (cp.async.bulk, PTX ISA 9.7.9.25;
 * CUDA PG "TMA"; the wrappers are core/cupat_tma.cuh's): one thread asks the
 * copy engine for the block's whole tile of a and b into shared memory,
 * completion counted in bytes on an mbarrier; the threads then compute from
 * shared memory and store. Few instructions per byte and the block's bytes in
 * flight without registers to hold them. Small tiles, many blocks, as
 * CUB's transform on this GPU uses (768 floats): T4 float4s of each input a
 * block, one a thread (4 KiB) or 0.75 a thread (3 KiB, CUB's). Tiles of 4
 * float4s a thread were 2% slower than CUB. Measured (H100, three rounds,
 * docs/elementwise.md): 4 KiB and 3 KiB tie at 2^24, 3 KiB is 0.3-0.5%
 * faster from 2^25 to 2^28 (and 4-byte stores by every thread, as CUB's,
 * change nothing), so the launch takes 3 KiB from 2^25 floats. */
#define BULK_TILE4 EW_BLOCK          /* float4s of each input a block: 4 KiB */
#define BULK_TILE4_BIG (3 * EW_BLOCK / 4) /* 3 KiB, for n >= BULK_BIG_N */
#define BULK_BIG_N ((size_t)1 << 25)
template <int OP, int T4>
__global__ void __launch_bounds__(EW_BLOCK)
    ew_bulk(size_t head, size_t n4, size_t tail, float alpha, const float *a, const float *b,
            float *c)
{
    ew_edges<OP>(head, n4, tail, alpha, a, b, c);
    const float4 *a4 = (const float4 *)(a + head), *b4 = (const float4 *)(b + head);
    float4 *c4 = (float4 *)(c + head);
    size_t base = (size_t)blockIdx.x * T4;
    if (base >= n4) return;
    unsigned cnt = (unsigned)(n4 - base < T4 ? n4 - base : T4);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    using namespace cupat_tma;
    __shared__ alignas(128) float4 sa[T4];
    __shared__ alignas(128) float4 sb[T4];
    __shared__ alignas(8) unsigned long long bar;
    const unsigned mb = smem_addr(&bar);
    if (threadIdx.x == 0) {
        bar_init(mb, 1);
        bar_init_fence(); /* the initialised barrier, visible to the copy engine */
        const unsigned bytes = cnt * 16u;
        bar_expect(mb, 2u * bytes);
        load_1d(smem_addr(sa), a4 + base, bytes, mb);
        load_1d(smem_addr(sb), b4 + base, bytes, mb);
    }
    __syncthreads(); /* the barrier is initialised before anyone waits on it */
    bar_wait(mb, 0);
    for (unsigned k = threadIdx.x; k < cnt; k += EW_BLOCK)
        c4[base + k] = ew_f4<OP>(alpha, sa[k], sb[k]);
#else /* no copy engine before sm_90: the same tile through registers */
    for (unsigned k = threadIdx.x; k < cnt; k += EW_BLOCK)
        c4[base + k] = ew_f4<OP>(alpha, a4[base + k], b4[base + k]);
#endif
}

/* Launch a no-loop kernel whose blocks each cover `per_block` float4s. */
static cupat_status ew_tiled_launch(cupat_ctx *ctx, size_t per_block,
                                    size_t n, const float *a, unsigned *grid, size_t *head,
                                    size_t *n4, size_t *tail)
{
    ew_split(n, a, head, n4, tail);
    size_t blocks = cdiv(*n4, per_block);
    if (blocks == 0) blocks = 1; /* head and tail still need a thread */
    if (blocks > INT_MAX)
        return cupat__fail(ctx, CUPAT_ERROR_SIZE, "vadd/saxpy: n = %zu needs %zu blocks (> 2^31)",
                           n, blocks);
    *grid = (unsigned)blocks;
    return CUPAT_SUCCESS;
}

template <int OP>
static cupat_status ew_launch(cupat_ctx *ctx, int rung, size_t n, float alpha, const float *a,
                              const float *b, float *c)
{
    /* float4 needs the three arrays at the same offset mod 16 bytes. */
    uintptr_t pa = (uintptr_t)a, pb = (uintptr_t)b, pc = (uintptr_t)c;
    if (rung >= EW_VEC4 && (((pa ^ pb) | (pa ^ pc)) & 15)) rung = EW_GRID_STRIDE;
    switch (rung) {
    case EW_NAIVE: {
        const size_t chunk = (size_t)INT_MAX * EW_BLOCK; /* gridDim.x limit */
        for (size_t off = 0; off < n; off += chunk) {
            size_t m = n - off < chunk ? n - off : chunk;
            ew_naive<OP><<<(unsigned)cdiv(m, EW_BLOCK), EW_BLOCK, 0, ctx->stream>>>(
                m, alpha, a + off, b + off, c + off);
            CUPAT_TRY(cupat__launched(ctx, "ew_naive"));
        }
        return CUPAT_SUCCESS;
    }
    case EW_GRID_STRIDE: {
        unsigned grid;
        CUPAT_TRY(fill_grid(ctx, (const void *)ew_grid_stride<OP>, EW_BLOCK, 0,
                            cdiv(n, EW_BLOCK), &grid));
        ew_grid_stride<OP><<<grid, EW_BLOCK, 0, ctx->stream>>>(n, alpha, a, b, c);
        return cupat__launched(ctx, "ew_grid_stride");
    }
    case EW_VEC4: return ew_vec4_launch<OP, 1, false>(ctx, n, alpha, a, b, c, "ew_vec4<1>");
    case EW_VEC4_UNROLL:
        return ew_vec4_launch<OP, 4, false>(ctx, n, alpha, a, b, c, "ew_vec4<4>");
    case EW_VEC4_STREAM:
        return ew_vec4_launch<OP, 4, true>(ctx, n, alpha, a, b, c, "ew_vec4<4,stream>");
    case EW_VEC4_TILE:
    case EW_BULK: {
        unsigned grid = 1;
        size_t head = 0, n4 = 0, tail = 0;
        const bool bulk = rung == EW_BULK, big = bulk && n >= BULK_BIG_N;
        CUPAT_TRY(ew_tiled_launch(ctx, bulk ? (big ? BULK_TILE4_BIG : BULK_TILE4) : 4 * EW_BLOCK, n, a, &grid,
                                  &head, &n4, &tail));
        if (big)
            ew_bulk<OP, BULK_TILE4_BIG><<<grid, EW_BLOCK, 0, ctx->stream>>>(head, n4, tail, alpha, a, b, c);
        else if (bulk)
            ew_bulk<OP, BULK_TILE4><<<grid, EW_BLOCK, 0, ctx->stream>>>(head, n4, tail, alpha, a, b, c);
        else
            ew_vec4_tile<OP, 4><<<grid, EW_BLOCK, 0, ctx->stream>>>(head, n4, tail, alpha, a,
                                                                    b, c);
        return cupat__launched(ctx, bulk ? "ew_bulk" : "ew_vec4_tile<4>");
    }
    case EW_VEC4_TILE8: {
        unsigned grid = 1;
        size_t head = 0, n4 = 0, tail = 0;
        CUPAT_TRY(ew_tiled_launch(ctx, 8 * EW_BLOCK, n, a, &grid, &head, &n4, &tail));
        ew_vec4_tile<OP, 8><<<grid, EW_BLOCK, 0, ctx->stream>>>(head, n4, tail, alpha, a, b, c);
        return cupat__launched(ctx, "ew_vec4_tile<8>");
    }
    }
    return cupat__fail(ctx, CUPAT_ERROR_INTERNAL, "vadd/saxpy: no CUDA rung %d", rung);
}

cupat_status cupat__ew_cuda(cupat_ctx *ctx, int rung, ew_op op, size_t n, float alpha,
                            const float *a, const float *b, float *c)
{
    return op == EW_OP_AXPY ? ew_launch<EW_OP_AXPY>(ctx, rung, n, alpha, a, b, c)
                            : ew_launch<EW_OP_ADD>(ctx, rung, n, alpha, a, b, c);
}

/* ============================================================= matadd == */
/* One thread per element in x everywhere: gridDim.x (2^31 - 1) times the
 * block covers any row that fits in memory. */

/* 1d-grid — PCCP 2.4 sumMatrixOnGPU1D: a 1D grid covers the columns and each
 * thread walks down its column. Rows stay coalesced, but only `cols` threads
 * exist: a narrow matrix leaves most of the GPU idle. */
__global__ void ma_1d(size_t rows, size_t cols, const float *A, size_t lda, const float *B,
                      size_t ldb, float *C, size_t ldc)
{
    size_t x = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= cols) return;
    for (size_t y = 0; y < rows; y++) C[y * ldc + x] = A[y * lda + x] + B[y * ldb + x];
}

/* 2d — PCCP 3.3 sumMatrixOnGPU2D: a 2D grid of 2D blocks, one thread per element.
 * mix — PCCP 2.4 sumMatrixOnGPUMix: the same kernel with 1D blocks (by = 1),
 * each block a row segment. Rows past gridDim.y * blockDim.y loop. */
__global__ void ma_2d(size_t rows, size_t cols, const float *A, size_t lda, const float *B,
                      size_t ldb, float *C, size_t ldc)
{
    size_t x = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= cols) return;
    for (size_t y = (size_t)blockIdx.y * blockDim.y + threadIdx.y; y < rows;
         y += (size_t)gridDim.y * blockDim.y)
        C[y * ldc + x] = A[y * lda + x] + B[y * ldb + x];
}

/* vec4-rows — PCCP 4.3 aligned 128-bit access on strided rows: when every row
 * of A, B, C starts 16-byte aligned, a row is vpr float4 units followed by
 * cols % 4 scalar units (vpr = 0: all scalar). The (row, unit) space is walked
 * grid-stride as one flat index, so narrow and wide matrices fill the GPU alike. */
__global__ void ma_vec4_rows(size_t rows, size_t vpr, size_t upr, const float *A, size_t lda,
                             const float *B, size_t ldb, float *C, size_t ldc)
{
    for (flat_walk w = flat_start(upr); w.r < rows; flat_next(&w, upr)) {
        const float *a = A + w.r * lda, *b = B + w.r * ldb;
        float *c = C + w.r * ldc;
        if (w.u < vpr) {
            float4 va = ((const float4 *)a)[w.u], vb = ((const float4 *)b)[w.u];
            ((float4 *)c)[w.u] = make_float4(va.x + vb.x, va.y + vb.y, va.z + vb.z, va.w + vb.w);
        } else {
            size_t x = 4 * vpr + (w.u - vpr);
            c[x] = a[x] + b[x];
        }
    }
}

cupat_status cupat__matadd_2d_cuda(cupat_ctx *ctx, unsigned bx, unsigned by, size_t rows,
                                   size_t cols, const float *A, size_t lda, const float *B,
                                   size_t ldb, float *C, size_t ldc, double *occupancy)
{
    if (occupancy) {
        /* CUDA PG 8.2.3.1: resident blocks x warps per block / max warps per SM. */
        int blocks = 0;
        unsigned threads = bx * by;
        CUPAT_CUDA_TRY(ctx, cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                                &blocks, (const void *)ma_2d, (int)threads, 0));
        *occupancy = (double)blocks * ((threads + 31) / 32) * 32 / ctx->max_threads_per_sm;
    }
    if (rows == 0 || cols == 0) return CUPAT_SUCCESS;
    dim3 block(bx, by), grid((unsigned)cdiv(cols, bx), grid_y(cdiv(rows, by)));
    ma_2d<<<grid, block, 0, ctx->stream>>>(rows, cols, A, lda, B, ldb, C, ldc);
    return cupat__launched(ctx, "ma_2d");
}

/* vec4-tile (matadd) — vadd's no-loop tile applied per row: blockIdx.x picks
 * a 4 x 256-float4 slice of a row, blockIdx.y the row (rows past the grid's
 * 65535 loop). Needs 16-byte aligned rows and cols % 4 == 0. */
__global__ void __launch_bounds__(EW_BLOCK)
    ma_vec4_tile(size_t rows, size_t upr, const float *A, size_t lda, const float *B,
                 size_t ldb, float *C, size_t ldc)
{
    size_t u0 = (size_t)blockIdx.x * 4 * EW_BLOCK + threadIdx.x;
    bool full = u0 + 3 * EW_BLOCK < upr;
    for (size_t r = blockIdx.y; r < rows; r += gridDim.y) {
        const float4 *a = (const float4 *)(A + r * lda), *b = (const float4 *)(B + r * ldb);
        float4 *c = (float4 *)(C + r * ldc);
        if (full) ew_tile<EW_OP_ADD, 4, false, false>(u0, EW_BLOCK, upr, 0.f, a, b, c);
        else ew_tile<EW_OP_ADD, 4, false, true>(u0, EW_BLOCK, upr, 0.f, a, b, c);
    }
}

cupat_status cupat__matadd_cuda(cupat_ctx *ctx, int rung, size_t rows, size_t cols,
                                const float *A, size_t lda, const float *B, size_t ldb,
                                float *C, size_t ldc)
{
    switch (rung) {
    case MA_1D:
        ma_1d<<<(unsigned)cdiv(cols, EW_BLOCK), EW_BLOCK, 0, ctx->stream>>>(rows, cols, A, lda,
                                                                             B, ldb, C, ldc);
        return cupat__launched(ctx, "ma_1d");
    case MA_2D:
        return cupat__matadd_2d_cuda(ctx, MA_2D_BX, MA_2D_BY, rows, cols, A, lda, B, ldb, C,
                                     ldc, NULL);
    case MA_MIX:
        return cupat__matadd_2d_cuda(ctx, EW_BLOCK, 1, rows, cols, A, lda, B, ldb, C, ldc, NULL);
    case MA_VEC4_ROWS: {
        int vec = aligned(A, 16) && aligned(B, 16) && aligned(C, 16) && lda % 4 == 0 &&
                  ldb % 4 == 0 && ldc % 4 == 0;
        size_t vpr = vec ? cols / 4 : 0, upr = vpr + (cols - 4 * vpr);
        unsigned grid;
        CUPAT_TRY(fill_grid(ctx, (const void *)ma_vec4_rows, EW_BLOCK, 0,
                            cdiv(rows * upr, EW_BLOCK), &grid));
        ma_vec4_rows<<<grid, EW_BLOCK, 0, ctx->stream>>>(rows, vpr, upr, A, lda, B, ldb, C, ldc);
        return cupat__launched(ctx, "ma_vec4_rows");
    }
    case MA_VEC4_TILE: {
        /* Contiguous rows are one vector: the vadd tile covers it whole. */
        if (lda == cols && ldb == cols && ldc == cols)
            return ew_launch<EW_OP_ADD>(ctx, EW_VEC4_TILE, rows * cols, 0.f, A, B, C);
        int vec = aligned(A, 16) && aligned(B, 16) && aligned(C, 16) && lda % 4 == 0 &&
                  ldb % 4 == 0 && ldc % 4 == 0 && cols % 4 == 0;
        size_t upr = cols / 4;
        /* Narrow rows would leave most of a 1024-unit slice idle: walk them flat. */
        if (!vec || upr < 2 * EW_BLOCK)
            return cupat__matadd_cuda(ctx, MA_VEC4_ROWS, rows, cols, A, lda, B, ldb, C, ldc);
        dim3 grid((unsigned)cdiv(upr, 4 * EW_BLOCK), grid_y(rows));
        ma_vec4_tile<<<grid, EW_BLOCK, 0, ctx->stream>>>(rows, upr, A, lda, B, ldb, C, ldc);
        return cupat__launched(ctx, "ma_vec4_tile");
    }
    }
    return cupat__fail(ctx, CUPAT_ERROR_INTERNAL, "matadd: no CUDA rung %d", rung);
}

/* =============================================================== gray == */

/* PMPP 3.2's weights as ((0.21 r + 0.71 g) + 0.07 b), every op rounded on its
 * own (__fmul_rn/__fadd_rn forbid FMA contraction), truncated: the CPU
 * backend computes the same bytes. */
__device__ __forceinline__ unsigned gray_px(unsigned r, unsigned g, unsigned b)
{
    float s = __fadd_rn(__fadd_rn(__fmul_rn(0.21f, (float)r), __fmul_rn(0.71f, (float)g)),
                        __fmul_rn(0.07f, (float)b));
    return __float2uint_rz(s);
}

/* naive-2d — PMPP 3.2 colorToGrayscaleConversion: 16x16 blocks on a 2D grid,
 * one thread per pixel, three byte loads and one byte store. */
__global__ void gray_naive(size_t w, size_t h, const uint8_t *__restrict__ rgb, size_t rp,
                           uint8_t *__restrict__ gray, size_t gp)
{
    size_t x = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= w) return;
    for (size_t y = (size_t)blockIdx.y * blockDim.y + threadIdx.y; y < h;
         y += (size_t)gridDim.y * blockDim.y) {
        const uint8_t *p = rgb + y * rp + 3 * x;
        gray[y * gp + x] = (uint8_t)gray_px(p[0], p[1], p[2]);
    }
}

/* Word loads/stores: W = uint32_t (4 pixels) or uint4 (16 pixels). */
__device__ __forceinline__ void load3(uint32_t *w, const uint32_t *p)
{
    w[0] = p[0];
    w[1] = p[1];
    w[2] = p[2];
}
__device__ __forceinline__ void load3(uint32_t *w, const uint4 *p)
{
#pragma unroll
    for (int k = 0; k < 3; k++) {
        uint4 v = p[k];
        w[4 * k] = v.x;
        w[4 * k + 1] = v.y;
        w[4 * k + 2] = v.z;
        w[4 * k + 3] = v.w;
    }
}
__device__ __forceinline__ void store1(uint32_t *p, const uint32_t *w) { *p = w[0]; }
__device__ __forceinline__ void store1(uint4 *p, const uint32_t *w)
{
    *p = make_uint4(w[0], w[1], w[2], w[3]);
}

/* coarse4 / coarse16 — PMPP 6.3 thread coarsening: a thread converts P = 4
 * (or 16) consecutive pixels, reading their 3P bytes as three 32-bit (128-bit)
 * words and writing the P gray bytes as one word: 4 wide accesses instead of
 * 4P byte accesses. Needs rows aligned to the word (else wpr = 0 and every
 * pixel is a scalar unit); the width % P last pixels of a row are scalar
 * units. Flat grid-stride over (row, unit), like vec4-rows. */
template <typename W>
__global__ void gray_coarse(size_t h, size_t wpr, size_t upr, const uint8_t *__restrict__ rgb,
                            size_t rp, uint8_t *__restrict__ gray, size_t gp)
{
    const int P = sizeof(W);
    for (flat_walk f = flat_start(upr); f.r < h; flat_next(&f, upr)) {
        const uint8_t *src = rgb + f.r * rp;
        uint8_t *dst = gray + f.r * gp;
        if (f.u < wpr) {
            uint32_t in[3 * P / 4], out[P / 4];
            load3(in, (const W *)(src + 3 * P * f.u));
#pragma unroll
            for (int k = 0; k < P / 4; k++) out[k] = 0;
#pragma unroll
            for (int i = 0; i < P; i++) {
                unsigned r = (in[(3 * i) / 4] >> (8 * ((3 * i) % 4))) & 0xFF;
                unsigned g = (in[(3 * i + 1) / 4] >> (8 * ((3 * i + 1) % 4))) & 0xFF;
                unsigned b = (in[(3 * i + 2) / 4] >> (8 * ((3 * i + 2) % 4))) & 0xFF;
                out[i / 4] |= gray_px(r, g, b) << (8 * (i % 4));
            }
            store1((W *)(dst + P * f.u), out);
        } else {
            size_t x = P * wpr + (f.u - wpr);
            const uint8_t *p = src + 3 * x;
            dst[x] = (uint8_t)gray_px(p[0], p[1], p[2]);
        }
    }
}

template <typename W>
static cupat_status gray_coarse_launch(cupat_ctx *ctx, int vec, size_t w, size_t h,
                                       const uint8_t *rgb, size_t rp, uint8_t *gray, size_t gp)
{
    const size_t P = sizeof(W);
    size_t wpr = vec ? w / P : 0, upr = wpr + (w - P * wpr);
    unsigned grid;
    CUPAT_TRY(fill_grid(ctx, (const void *)gray_coarse<W>, EW_BLOCK, 0, cdiv(h * upr, EW_BLOCK),
                        &grid));
    gray_coarse<W><<<grid, EW_BLOCK, 0, ctx->stream>>>(h, wpr, upr, rgb, rp, gray, gp);
    return cupat__launched(ctx, P == 16 ? "gray_coarse<16>" : "gray_coarse<4>");
}

cupat_status cupat__gray_cuda(cupat_ctx *ctx, int rung, size_t w, size_t h, const uint8_t *rgb,
                              size_t rp, uint8_t *gray, size_t gp)
{
    int a16 = aligned(rgb, 16) && aligned(gray, 16) && rp % 16 == 0 && gp % 16 == 0;
    int a4 = aligned(rgb, 4) && aligned(gray, 4) && rp % 4 == 0 && gp % 4 == 0;
    switch (rung) {
    case GR_NAIVE_2D: {
        dim3 block(16, 16), grid((unsigned)cdiv(w, 16), grid_y(cdiv(h, 16)));
        gray_naive<<<grid, block, 0, ctx->stream>>>(w, h, rgb, rp, gray, gp);
        return cupat__launched(ctx, "gray_naive");
    }
    case GR_COARSE16:
        if (a16) return gray_coarse_launch<uint4>(ctx, 1, w, h, rgb, rp, gray, gp);
        /* fall through: rows not 16-byte aligned, 32-bit words may still do */
    case GR_COARSE4: return gray_coarse_launch<uint32_t>(ctx, a4, w, h, rgb, rp, gray, gp);
    }
    return cupat__fail(ctx, CUPAT_ERROR_INTERNAL, "gray: no CUDA rung %d", rung);
}

/* =============================================================== blur == */
/* Coordinates are signed 64-bit (windows reach below 0); the window of v is
 * [lo, hi] clamped to the image, so count = valid rows x valid cols. */

__device__ __forceinline__ long long win_lo(long long v, int r) { return v > r ? v - r : 0; }
__device__ __forceinline__ long long win_hi(long long v, int r, long long n)
{
    return v + r < n ? v + r : n - 1;
}

/* Sum the C channels of `n` consecutive pixels at p into sum[]. */
template <int C>
__device__ __forceinline__ void sum_px(int *sum, const uint8_t *p, int n)
{
    for (int i = 0; i < n * C; i += C)
#pragma unroll
        for (int c = 0; c < C; c++) sum[c] += p[i + c];
}

/* naive — PMPP 3.3 blurKernel, generalised to radius r and C channels: one
 * thread per pixel sums its clamped window straight from global memory;
 * neighbours re-read the same bytes, (2r+1)^2 loads per output (L1 hits). */
template <int C>
__global__ void blur_naive(long long w, long long h, int r, const uint8_t *__restrict__ in,
                           uint8_t *__restrict__ out)
{
    long long x = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= w) return;
    long long x0 = win_lo(x, r);
    int nx = (int)(win_hi(x, r, w) - x0 + 1);
    for (long long y = (long long)blockIdx.y * blockDim.y + threadIdx.y; y < h;
         y += (long long)gridDim.y * blockDim.y) {
        long long y0 = win_lo(y, r), y1 = win_hi(y, r, h);
        int sum[C] = {};
        for (long long yy = y0; yy <= y1; yy++) sum_px<C>(sum, in + (yy * w + x0) * C, nx);
        int cnt = (int)(y1 - y0 + 1) * nx;
        uint8_t *o = out + (y * w + x) * C;
#pragma unroll
        for (int c = 0; c < C; c++) o[c] = (uint8_t)(sum[c] / cnt);
    }
}

#define TILE_X 32
#define TILE_Y 16
static size_t tile_bytes(int r, int C) { return (size_t)(TILE_Y + 2 * r) * (TILE_X + 2 * r) * C; }

/* smem-tile — PMPP 7.4 tiled convolution with halo cells (tiling, PMPP 5.3):
 * a 32x16 block stages its output tile plus an r-pixel halo in shared memory
 * (sized at launch: (16+2r) x (32+2r) x C bytes, up to 92 KB at r = 64), then
 * every window read hits shared memory instead of L1/global. */
template <int C>
__global__ void __launch_bounds__(TILE_X *TILE_Y)
    blur_tile(long long w, long long h, int r, const uint8_t *__restrict__ in,
              uint8_t *__restrict__ out)
{
    extern __shared__ uint8_t tile[];
    const int tw = (TILE_X + 2 * r) * C, th = TILE_Y + 2 * r; /* tile row bytes, rows */
    const long long tx0 = (long long)blockIdx.x * TILE_X - r; /* tile's first pixel column */
    const long long x = tx0 + r + threadIdx.x;
    for (long long by = (long long)blockIdx.y * TILE_Y; by < h; by += (long long)gridDim.y * TILE_Y) {
        const long long ty0 = by - r;
        __syncthreads(); /* the previous tile is consumed */
        for (int ty = threadIdx.y; ty < th; ty += TILE_Y) {
            long long gy = ty0 + ty;
            for (int tx = threadIdx.x; tx < tw; tx += TILE_X) {
                long long g = tx0 * C + tx; /* byte column in the image row */
                tile[ty * tw + tx] = gy >= 0 && gy < h && g >= 0 && g < w * C ? in[gy * w * C + g] : 0;
            }
        }
        __syncthreads();
        long long y = by + threadIdx.y;
        if (x < w && y < h) {
            long long x0 = win_lo(x, r), y0 = win_lo(y, r), y1 = win_hi(y, r, h);
            int nx = (int)(win_hi(x, r, w) - x0 + 1);
            int sum[C] = {};
            for (long long yy = y0; yy <= y1; yy++)
                sum_px<C>(sum, tile + (yy - ty0) * tw + (x0 - tx0) * C, nx);
            int cnt = (int)(y1 - y0 + 1) * nx;
            uint8_t *o = out + (y * w + x) * C;
#pragma unroll
            for (int c = 0; c < C; c++) o[c] = (uint8_t)(sum[c] / cnt);
        }
    }
}

/* separable, pass 1: horizontal box sums. A block stages its 256-pixel row
 * segment plus the r-pixel halo each side in shared memory; each thread sums
 * its clamped 2r+1 pixels. Sums fit 16 bits (129 * 255 < 65536), which halves
 * the traffic of the intermediate. */
template <int C>
__global__ void blur_rows(long long w, long long h, int r, const uint8_t *__restrict__ in,
                          uint16_t *__restrict__ rs)
{
    extern __shared__ uint8_t seg[];
    const long long sx0 = (long long)blockIdx.x * blockDim.x - r;
    const int sw = ((int)blockDim.x + 2 * r) * C;
    const long long x = sx0 + r + threadIdx.x;
    for (long long y = blockIdx.y; y < h; y += gridDim.y) {
        const uint8_t *row = in + y * w * C;
        __syncthreads();
        for (int i = threadIdx.x; i < sw; i += blockDim.x) {
            long long g = sx0 * C + i;
            seg[i] = g >= 0 && g < w * C ? row[g] : 0;
        }
        __syncthreads();
        if (x < w) {
            long long x0 = win_lo(x, r);
            int sum[C] = {};
            sum_px<C>(sum, seg + (x0 - sx0) * C, (int)(win_hi(x, r, w) - x0 + 1));
            uint16_t *o = rs + (y * w + x) * C;
#pragma unroll
            for (int c = 0; c < C; c++) o[c] = (uint16_t)sum[c];
        }
    }
}

/* separable, pass 2: vertical running sums of the row sums. Thread j owns
 * sample column j (pixel j / C) over a band of BAND rows: it sums the band's
 * first window once, then slides it a row at a time (add the entering row,
 * drop the leaving one): O(1) per output whatever r. Box sums are separable and
 * count = valid rows x valid cols, so the bytes equal the 2D window's. */
#define BAND 64
template <int C>
__global__ void blur_cols(long long w, long long h, int r, const uint16_t *__restrict__ rs,
                          uint8_t *__restrict__ out)
{
    const long long wc = w * C;
    const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= wc) return;
    const long long x = j / C;
    const int nx = (int)(win_hi(x, r, w) - win_lo(x, r) + 1);
    for (long long y0 = (long long)blockIdx.y * BAND; y0 < h; y0 += (long long)gridDim.y * BAND) {
        long long y1 = y0 + BAND < h ? y0 + BAND : h;
        int s = 0;
        for (long long yy = win_lo(y0, r); yy <= win_hi(y0, r, h); yy++) s += rs[yy * wc + j];
        for (long long y = y0; y < y1; y++) {
            int ny = (int)(win_hi(y, r, h) - win_lo(y, r) + 1);
            out[y * wc + j] = (uint8_t)(s / (ny * nx));
            if (y + r + 1 < h) s += rs[(y + r + 1) * wc + j];
            if (y >= r) s -= rs[(y - r) * wc + j];
        }
    }
}

template <int C>
static cupat_status blur_launch(cupat_ctx *ctx, int rung, size_t w, size_t h, int r,
                                const uint8_t *in, uint8_t *out)
{
    cudaStream_t s = ctx->stream;
    if (rung == BL_TENSOR) {
        if (cupat__blur_tma_fits(ctx, w, h, C, r, in, out)) return cupat__blur_tc_cuda(ctx, w, h, C, r, in, out);
        rung = BL_COLUMNS; /* no copy engine, or an image it cannot address */
    }
    if (rung == BL_COLUMNS_TMA) {
        if (cupat__blur_tma_fits(ctx, w, h, C, r, in, out))
            return cupat__blur_tma_cuda(ctx, w, h, C, r, in, out);
        rung = BL_COLUMNS; /* no copy engine, or an image it cannot address */
    }
    if (rung == BL_COLUMNS) {
        if (cupat__blur_columns_fits(w, h, C, r))
            return cupat__blur_columns_cuda(ctx, w, h, C, r, in, out);
        rung = BL_SEPARABLE; /* wider windows; images past the kernel's int offsets */
    }
    if (rung == BL_CONV) {
        if (r <= CUPAT_CONV2D_MAX_K / 2) return cupat__conv2d_blur_cuda(ctx, w, h, C, r, in, out);
        rung = BL_SEPARABLE; /* past conv2d's 31 taps */
    }
    if (rung == BL_SMEM_TILE) {
        int optin = 0;
        CUPAT_CUDA_TRY(ctx, cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin,
                                                   ctx->device));
        size_t bytes = tile_bytes(r, C);
        if (bytes <= (size_t)optin) {
            /* Past the 48 KB default, opt in: always to the same size (the r = 64
             * tile, or all the device has), so concurrent callers agree. */
            size_t most = tile_bytes(64, C) < (size_t)optin ? tile_bytes(64, C) : (size_t)optin;
            if (bytes > 48 * 1024)
                CUPAT_CUDA_TRY(ctx, cudaFuncSetAttribute((const void *)blur_tile<C>,
                                                         cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                         (int)most));
            dim3 block(TILE_X, TILE_Y), grid((unsigned)cdiv(w, TILE_X), grid_y(cdiv(h, TILE_Y)));
            blur_tile<C><<<grid, block, bytes, s>>>((long long)w, (long long)h, r, in, out);
            return cupat__launched(ctx, "blur_tile");
        }
        rung = BL_NAIVE; /* halo tile larger than this device's shared memory */
    }
    if (rung == BL_NAIVE) {
        dim3 block(16, 16), grid((unsigned)cdiv(w, 16), grid_y(cdiv(h, 16)));
        blur_naive<C><<<grid, block, 0, s>>>((long long)w, (long long)h, r, in, out);
        return cupat__launched(ctx, "blur_naive");
    }
    if (rung == BL_SEPARABLE) {
        size_t bytes;
        void *tmp;
        CUPAT_TRY(cupat__size_mul(ctx, "cupat_blur", "row-sum scratch bytes", w * h, C,
                                  sizeof(uint16_t), &bytes));
        CUPAT_TRY(cupat__scratch(ctx, bytes, &tmp));
        uint16_t *rs = (uint16_t *)tmp;
        blur_rows<C><<<dim3((unsigned)cdiv(w, EW_BLOCK), grid_y(h)), EW_BLOCK,
                       (EW_BLOCK + 2 * r) * C, s>>>((long long)w, (long long)h, r, in, rs);
        CUPAT_TRY(cupat__launched(ctx, "blur_rows"));
        blur_cols<C><<<dim3((unsigned)cdiv(w * C, EW_BLOCK), grid_y(cdiv(h, BAND))), EW_BLOCK, 0,
                       s>>>((long long)w, (long long)h, r, rs, out);
        return cupat__launched(ctx, "blur_cols");
    }
    return cupat__fail(ctx, CUPAT_ERROR_INTERNAL, "blur: no CUDA rung %d", rung);
}

cupat_status cupat__blur_cuda(cupat_ctx *ctx, int rung, size_t w, size_t h, int channels,
                              int radius, const uint8_t *in, uint8_t *out)
{
    switch (channels) {
    case 1: return blur_launch<1>(ctx, rung, w, h, radius, in, out);
    case 2: return blur_launch<2>(ctx, rung, w, h, radius, in, out);
    case 3: return blur_launch<3>(ctx, rung, w, h, radius, in, out);
    case 4: return blur_launch<4>(ctx, rung, w, h, radius, in, out);
    }
    return cupat__fail(ctx, CUPAT_ERROR_INTERNAL, "blur: channels = %d", channels);
}
