// SPDX-License-Identifier: Apache-2.0
/* access.cu — the kernels of the memory-access experiments (`cupat lab
 * access`): each isolates one effect the books measure. Kernel names start
 * with lab_ so ncu can pick them out (-k regex:lab_). */
#include "access.h"

#include <stdint.h>

/* The offset kernels, their launch and lab_blocks_for live in
 * access_offset.cuh, which access_debug.cu compiles a second time under -G
 * (PCCP 4.3's debug build). */
#include "access_offset.cuh"

/* ------------------------------------------- aligned vs misaligned (4.3) -- */

extern "C" cupat_status cupat__lab_offset(cupat_ctx *ctx, int kind, const float *a,
                                          const float *b, float *c, size_t n, size_t offset,
                                          unsigned block)
{
    return lab_offset_launch(ctx, kind, a, b, c, n, offset, block, 0);
}

extern "C" cupat_status cupat__lab_offset_grid(cupat_ctx *ctx, int kind, const float *a,
                                               const float *b, float *c, size_t n, size_t offset,
                                               unsigned block, unsigned grid)
{
    return lab_offset_launch(ctx, kind, a, b, c, n, offset, block, grid);
}

/* ------------------------------------------------------ AoS vs SoA (4.3) -- */

/* Two 4-byte loads a thread, 8 bytes apart across the warp: each instruction
 * uses half of every sector it touches (50% efficiency), though the second
 * load finds the sectors in L1. */
__global__ void lab_aos(const lab_pt *__restrict__ in, lab_pt *__restrict__ out, size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        lab_pt t = in[i];
        t.x += 10.0f;
        t.y += 20.0f;
        out[i] = t;
    }
}

/* float2 is 8-byte aligned: one 8-byte access a thread, 100% efficiency. */
__global__ void lab_aos_f2(const float2 *__restrict__ in, float2 *__restrict__ out, size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        float2 t = in[i];
        t.x += 10.0f;
        t.y += 20.0f;
        out[i] = t;
    }
}

__global__ void lab_soa(const float *__restrict__ x, const float *__restrict__ y,
                        float *__restrict__ ox, float *__restrict__ oy, size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        ox[i] = x[i] + 10.0f;
        oy[i] = y[i] + 20.0f;
    }
}

/* Lecture 10: X[i].a = X[i].b. Only one field is wanted, but every sector
 * carries both: half of the traffic is wasted, in DRAM too. */
__global__ void lab_aos_one(lab_pt *X, size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        X[i].x = X[i].y;
}

__global__ void lab_soa_one(float *__restrict__ a, const float *__restrict__ b, size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        a[i] = b[i];
}

extern "C" cupat_status cupat__lab_aos(cupat_ctx *ctx, int kind, size_t n, const void *in,
                                       void *out, const float *x, const float *y, float *ox,
                                       float *oy)
{
    if (n == 0) return CUPAT_SUCCESS;
    const unsigned B = 256;
    unsigned g = lab_blocks_for(n, B);
    cudaStream_t s = ctx->stream;
    switch (kind) {
    case LAB_AOS:
        lab_aos<<<g, B, 0, s>>>((const lab_pt *)in, (lab_pt *)out, n);
        return cupat__launched(ctx, "lab_aos");
    case LAB_AOS_F2:
        lab_aos_f2<<<g, B, 0, s>>>((const float2 *)in, (float2 *)out, n);
        return cupat__launched(ctx, "lab_aos_f2");
    case LAB_SOA:
        lab_soa<<<g, B, 0, s>>>(x, y, ox, oy, n);
        return cupat__launched(ctx, "lab_soa");
    case LAB_AOS_ONE:
        lab_aos_one<<<g, B, 0, s>>>((lab_pt *)out, n);
        return cupat__launched(ctx, "lab_aos_one");
    case LAB_SOA_ONE:
        lab_soa_one<<<g, B, 0, s>>>(ox, y, n);
        return cupat__launched(ctx, "lab_soa_one");
    }
    return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab aos: kind = %d", kind);
}

/* ------------------------------------ read-only cache and qualifiers (4.3) -- */

/* Plain pointers: the compiler must assume out may alias in. */
__global__ void lab_copy(int *out, int *in, size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        out[i] = in[i];
}

/* __ldg: this load goes through the read-only (texture) path (LDG.E.CONSTANT). */
__global__ void lab_copy_ldg(int *out, int *in, size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        out[i] = __ldg(&in[i]);
}

/* const __restrict__: no aliasing, so the compiler may use the read-only
 * path itself and reorder loads ahead of stores. */
__global__ void lab_copy_restrict(int *__restrict__ out, const int *__restrict__ in, size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        out[i] = in[i];
}

extern "C" cupat_status cupat__lab_copy(cupat_ctx *ctx, int kind, const int *in, int *out,
                                        size_t n)
{
    if (n == 0) return CUPAT_SUCCESS;
    const unsigned B = 256;
    unsigned g = lab_blocks_for(n, B);
    cudaStream_t s = ctx->stream;
    int *inw = (int *)in; /* the book's kernels take non-const pointers */
    switch (kind) {
    case LAB_COPY: lab_copy<<<g, B, 0, s>>>(out, inw, n); return cupat__launched(ctx, "lab_copy");
    case LAB_COPY_LDG:
        lab_copy_ldg<<<g, B, 0, s>>>(out, inw, n);
        return cupat__launched(ctx, "lab_copy_ldg");
    case LAB_COPY_RESTRICT:
        lab_copy_restrict<<<g, B, 0, s>>>(out, in, n);
        return cupat__launched(ctx, "lab_copy_restrict");
    }
    return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab copy: kind = %d", kind);
}

/* ------------------------------------------- transpose bounds (4.4) -- */

/* (ix, iy): ix runs along threadIdx.x. Row: element iy * cols + ix, so a
 * warp touches consecutive words. Col: element ix * rows + iy (the matrix
 * read as cols x rows column-major), so a warp touches words `rows` apart.
 * Both visit every element once: out is a copy of in. */
template <typename T, bool ROW>
__global__ void lab_copy2d(const T *in, T *out, size_t rows, size_t cols, size_t ntx, size_t ntiles)
{
    for (size_t t = blockIdx.x; t < ntiles; t += gridDim.x) {
        size_t ix = (t % ntx) * 16 + threadIdx.x, iy = (t / ntx) * 16 + threadIdx.y;
        if (ix < cols && iy < rows) {
            size_t k = ROW ? iy * cols + ix : ix * rows + iy;
            out[k] = in[k];
        }
    }
}

extern "C" cupat_status cupat__lab_copy2d(cupat_ctx *ctx, int kind, size_t rows, size_t cols,
                                          size_t elem_size, const void *in, void *out)
{
    if (rows == 0 || cols == 0) return CUPAT_SUCCESS;
    size_t ntx = (cols + 15) / 16, ntiles = ntx * ((rows + 15) / 16);
    unsigned g = lab_blocks_for(ntiles, 1);
    dim3 b(16, 16);
    cudaStream_t s = ctx->stream;
    bool row = kind == LAB_COPY_ROW;
    if (elem_size == 4) {
        if (row) lab_copy2d<uint32_t, true><<<g, b, 0, s>>>((const uint32_t *)in, (uint32_t *)out, rows, cols, ntx, ntiles);
        else lab_copy2d<uint32_t, false><<<g, b, 0, s>>>((const uint32_t *)in, (uint32_t *)out, rows, cols, ntx, ntiles);
    } else {
        if (row) lab_copy2d<uint64_t, true><<<g, b, 0, s>>>((const uint64_t *)in, (uint64_t *)out, rows, cols, ntx, ntiles);
        else lab_copy2d<uint64_t, false><<<g, b, 0, s>>>((const uint64_t *)in, (uint64_t *)out, rows, cols, ntx, ntiles);
    }
    return cupat__launched(ctx, row ? "lab_copy2d<row>" : "lab_copy2d<col>");
}

/* ---------------------------------------- shared-memory layouts (5.2) -- */

#define SQ 32      /* square tile: 32 x 32 ints, 32 x 32 block */
#define RX 32      /* rectangular tile: RY rows of RX ints, RX x RY block */
#define RY 16

__shared__ uint32_t lab_file_tile[SQ][SQ]; /* file scope: visible to every kernel here */

/* Index pairs (write, read) into a tile of row stride W, per kind. The
 * square kinds read back tile[tx][ty] (column) or tile[ty][tx] (row); the
 * rectangular ones read the element of the transposed block that thread idx
 * owns (irow = idx / RY, icol = idx % RY) as PCCP 5.2 does. */
template <int KIND>
__device__ __forceinline__ void smem_pattern(unsigned tx, unsigned ty, unsigned &w, unsigned &r)
{
    constexpr bool rect = KIND >= LAB_SMEM_RECT_ROW_ROW;
    constexpr bool pad = KIND == LAB_SMEM_ROW_COL_PAD || KIND == LAB_SMEM_ROW_COL_DYN_PAD ||
                         KIND == LAB_SMEM_RECT_ROW_COL_PAD || KIND == LAB_SMEM_RECT_ROW_COL_DYN_PAD;
    constexpr unsigned W = rect ? RX + (pad ? 2 : 0) : SQ + (pad ? 1 : 0);
    if (rect) {
        unsigned idx = ty * RX + tx, irow = idx / RY, icol = idx % RY;
        w = ty * W + tx;
        r = KIND == LAB_SMEM_RECT_ROW_ROW ? w : icol * W + irow;
    } else if (KIND == LAB_SMEM_COL_COL) {
        w = r = tx * W + ty;
    } else {
        w = ty * W + tx;
        r = KIND == LAB_SMEM_ROW_ROW ? w : tx * W + ty;
    }
}

template <int KIND>
__global__ void lab_smem(uint32_t *out, int iters)
{
    constexpr bool rect = KIND >= LAB_SMEM_RECT_ROW_ROW;
    constexpr bool dyn = KIND == LAB_SMEM_ROW_COL_DYN || KIND == LAB_SMEM_ROW_COL_DYN_PAD ||
                         KIND == LAB_SMEM_RECT_ROW_COL_DYN || KIND == LAB_SMEM_RECT_ROW_COL_DYN_PAD;
    constexpr bool own = !dyn && KIND != LAB_SMEM_ROW_COL_FILE;
    /* kernel-scope static tile, with room for the pad */
    __shared__ uint32_t stat[own ? (rect ? RY * (RX + 2) : SQ * (SQ + 1)) : 1];
    extern __shared__ uint32_t dynt[];
    uint32_t *tile = dyn ? dynt : own ? stat : &lab_file_tile[0][0];
    unsigned w, r;
    smem_pattern<KIND>(threadIdx.x, threadIdx.y, w, r);
    const unsigned idx = threadIdx.y * blockDim.x + threadIdx.x;
    uint32_t acc = 0;
    for (int it = 0; it < iters; it++) {
        tile[w] = idx + (uint32_t)it;
        __syncthreads();
        acc += tile[r];
        __syncthreads();
    }
    out[(size_t)blockIdx.x * blockDim.x * blockDim.y + idx] = acc;
}

extern "C" {
const char *const lab_smem_names[LAB_SMEM_COUNT] = {
    "setRowReadRow",       "setColReadCol",       "setRowReadCol",
    "setRowReadColDyn",    "setRowReadColPad",    "setRowReadColDynPad",
    "setRowReadColFile",   "setRowReadRowRect",   "setRowReadColRect",
    "setRowReadColRectDyn", "setRowReadColRectPad", "setRowReadColRectDynPad",
};

unsigned lab_smem_threads(int kind)
{
    return kind >= LAB_SMEM_RECT_ROW_ROW ? RX * RY : SQ * SQ;
}

/* The value written by the thread whose element this thread reads, summed
 * over the iterations (mod 2^32). */
uint32_t lab_smem_expect(int kind, unsigned idx, int iters)
{
    unsigned src;
    if (kind >= LAB_SMEM_RECT_ROW_ROW) {
        unsigned irow = idx / RY, icol = idx % RY;
        src = kind == LAB_SMEM_RECT_ROW_ROW ? idx : icol * RX + irow;
    } else if (kind == LAB_SMEM_ROW_ROW || kind == LAB_SMEM_COL_COL) {
        src = idx;
    } else {
        unsigned tx = idx % SQ, ty = idx / SQ;
        src = tx * SQ + ty;
    }
    uint32_t n = (uint32_t)iters;
    return src * n + (uint32_t)((uint64_t)n * (n - 1) / 2);
}
}

extern "C" cupat_status cupat__lab_smem(cupat_ctx *ctx, int kind, unsigned blocks, int iters,
                                        uint32_t *out)
{
    if (blocks == 0) return CUPAT_SUCCESS;
    cudaStream_t s = ctx->stream;
    const dim3 sq(SQ, SQ), re(RX, RY);
    const size_t dsq = SQ * SQ * 4, dsqp = SQ * (SQ + 1) * 4, dre = RX * RY * 4,
                 drep = (RX + 2) * RY * 4;
    switch (kind) {
#define L(K, B, D) \
    case K: lab_smem<K><<<blocks, B, D, s>>>(out, iters); break;
        L(LAB_SMEM_ROW_ROW, sq, 0)
        L(LAB_SMEM_COL_COL, sq, 0)
        L(LAB_SMEM_ROW_COL, sq, 0)
        L(LAB_SMEM_ROW_COL_DYN, sq, dsq)
        L(LAB_SMEM_ROW_COL_PAD, sq, 0)
        L(LAB_SMEM_ROW_COL_DYN_PAD, sq, dsqp)
        L(LAB_SMEM_ROW_COL_FILE, sq, 0)
        L(LAB_SMEM_RECT_ROW_ROW, re, 0)
        L(LAB_SMEM_RECT_ROW_COL, re, 0)
        L(LAB_SMEM_RECT_ROW_COL_DYN, re, dre)
        L(LAB_SMEM_RECT_ROW_COL_PAD, re, 0)
        L(LAB_SMEM_RECT_ROW_COL_DYN_PAD, re, drep)
#undef L
    default: return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab smem: kind = %d", kind);
    }
    return cupat__launched(ctx, lab_smem_names[kind]);
}

/* --------------------------------------- matrix addition (4.2, 4.5) -- */

__global__ void lab_matadd(const float *A, const float *B, float *C, size_t nx, size_t ny)
{
    size_t ix = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (size_t iy = (size_t)blockIdx.y * blockDim.y + threadIdx.y; iy < ny;
         iy += (size_t)gridDim.y * blockDim.y)
        if (ix < nx) C[iy * nx + ix] = A[iy * nx + ix] + B[iy * nx + ix];
}

extern "C" cupat_status cupat__lab_matadd(cupat_ctx *ctx, const float *A, const float *B,
                                          float *C, size_t nx, size_t ny)
{
    if (nx == 0 || ny == 0) return CUPAT_SUCCESS;
    size_t gx = (nx + 31) / 32, gy = (ny + 31) / 32;
    if (gx > 0x7fffffff)
        return cupat__fail(ctx, CUPAT_ERROR_SIZE, "lab matadd: nx = %zu too wide", nx);
    dim3 grid((unsigned)gx, (unsigned)(gy < 65535 ? gy : 65535));
    lab_matadd<<<grid, dim3(32, 32), 0, ctx->stream>>>(A, B, C, nx, ny);
    return cupat__launched(ctx, "lab_matadd");
}
