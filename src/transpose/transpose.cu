// SPDX-License-Identifier: Apache-2.0
/* transpose.cu — the transpose ladder: out (cols x rows) = in (rows x cols)^T,
 * row-major, leading dimensions in elements. Elements are moved as raw 4- or
 * 8-byte words (uint32_t / uint64_t), so every rung is exact.
 *
 * Naming: x is the input column (the fast index of `in`), y the input row.
 * "Row" kernels load rows of `in` (coalesced) and store columns of `out`
 * (strided); "Col" kernels do the opposite.
 *
 * Every tiled kernel walks a 1D list of tiles (grid-stride), so any shape
 * fits the grid limits; the diagonal rungs only permute that list. */
#include "transpose_internal.h"

#include <stdint.h>

namespace {

/* ---------------------------------------------------------- tile order -- */

enum { ORDER_ROWS, ORDER_DIAG, ORDER_GROUPED };

struct TileGrid {
    size_t ntx, nty, count; /* tiles along x, along y, in all */
    int order;              /* ORDER_*                         */
};

#define GROUP 16 /* tile rows a group in ORDER_GROUPED */

/* Tile t's coordinates, a bijection for any ntx, nty.
 * Rows: row-major. Blocks running together read whole input rows but write
 * each output row in one tile-wide piece.
 * Diagonal (PCCP 4.4, in the general form for non-square grids): consecutive
 * t walk a diagonal, so blocks running together touch rows and columns spread
 * over the matrix instead of camping on a few DRAM partitions.
 * Grouped: column-major inside bands of GROUP tile rows, so blocks running
 * together cover a squarish patch and both the rows they read and the rows
 * they write come in runs of several tiles. */
__device__ __forceinline__ void tile_xy(size_t t, const TileGrid &g, size_t &bx, size_t &by)
{
    if (g.order == ORDER_DIAG) {
        by = t % g.nty;
        bx = (t / g.nty + by) % g.ntx;
    } else if (g.order == ORDER_GROUPED) {
        size_t span = (size_t)GROUP * g.ntx, first = t / span * GROUP;
        size_t rows = g.nty - first < GROUP ? g.nty - first : GROUP, k = t % span;
        by = first + k % rows;
        bx = k / rows;
    } else {
        bx = t % g.ntx;
        by = t / g.ntx;
    }
}

/* The one grid helper: tiles of tw x th items over an nx x ny item space. */
TileGrid make_tiles(size_t nx, size_t ny, size_t tw, size_t th, int order)
{
    TileGrid g;
    g.ntx = (nx + tw - 1) / tw;
    g.nty = (ny + th - 1) / th;
    g.count = g.ntx * g.nty;
    g.order = order;
    return g;
}
unsigned grid_of(const TileGrid &g)
{
    const size_t cap = (size_t)1 << 30; /* blocks beyond this loop (grid-stride) */
    return (unsigned)(g.count < cap ? g.count : cap);
}

/* ------------------------------------------------ lecture 10: the start -- */

/* One device thread does everything: reads in order, writes strided, and
 * nothing runs in parallel. Lecture 10's first version. */
template <typename T>
__global__ void k_serial(const T *in, size_t ld_in, T *out, size_t ld_out, size_t rows,
                         size_t cols)
{
    for (size_t y = 0; y < rows; y++)
        for (size_t x = 0; x < cols; x++) out[x * ld_out + y] = in[y * ld_in + x];
}

/* One thread per output row (= input column x): at each step a warp reads 32
 * neighbours of one input row (coalesced) and writes 32 rows apart. */
template <typename T>
__global__ void k_row(const T *in, size_t ld_in, T *out, size_t ld_out, size_t rows,
                      size_t cols)
{
    for (size_t x = (size_t)blockIdx.x * blockDim.x + threadIdx.x; x < cols;
         x += (size_t)gridDim.x * blockDim.x)
        for (size_t y = 0; y < rows; y++) out[x * ld_out + y] = in[y * ld_in + x];
}

/* ------------------------------------------------- PCCP 4.4: no tiling -- */

/* One element a thread over a BX x BY block: LOAD_ROWS reads rows of `in`
 * (transposeNaiveRow; lecture 10's thread-per-element with 32x32), else it
 * reads columns and writes rows (transposeNaiveCol). UNROLL elements a thread,
 * BX apart, all loaded before any is stored (transposeUnroll4Row/Col). */
template <typename T, int BX, int BY, int UNROLL, bool LOAD_ROWS>
__global__ void __launch_bounds__(BX *BY)
    k_naive(const T *in, size_t ld_in, T *out, size_t ld_out, size_t rows, size_t cols,
            TileGrid g)
{
    /* Block b takes tiles b, b + gridDim.x, ... (usually exactly one). */
    for (size_t t = blockIdx.x; t < g.count; t += gridDim.x) {
        size_t bx, by;
        tile_xy(t, g, bx, by);
        /* (i, j): i runs along threadIdx.x. Row form: i is x (input column),
         * j is y. Col form: i is y (the output's fast index), j is x. */
        size_t i0 = bx * (BX * UNROLL) + threadIdx.x, j = by * BY + threadIdx.y;
        size_t ni = LOAD_ROWS ? cols : rows, nj = LOAD_ROWS ? rows : cols;
        T v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; u++) {
            size_t i = i0 + (size_t)u * BX;
            if (i < ni && j < nj) v[u] = LOAD_ROWS ? in[j * ld_in + i] : in[i * ld_in + j];
        }
#pragma unroll
        for (int u = 0; u < UNROLL; u++) {
            size_t i = i0 + (size_t)u * BX;
            if (i < ni && j < nj) {
                if (LOAD_ROWS) out[i * ld_out + j] = v[u];
                else out[j * ld_out + i] = v[u];
            }
        }
    }
}

/* ------------------------------------------ PCCP 5.4: shared-memory tile -- */

/* Shared-memory tile of BY rows x (BX * UNROLL) columns, loaded by rows and
 * read by columns, so both global accesses are coalesced. The block's thread
 * index is re-read as (irow, icol) of the transposed tile: each warp then
 * writes BY consecutive output elements of two output rows.
 * PAD words a row break the bank conflicts of the column read: with BX = 32,
 * BY = 16, a warp reads icol = 0..15 of two neighbouring columns; row stride
 * 32 (+0) puts all 16 in one bank (16-way), 32 + 2 spreads them over 32 banks
 * (+1 would leave 2-way conflicts between the two columns). For 8-byte words
 * a half-warp is one phase, and +1 (row stride 66 banks) is the conflict-free pad.
 * DYN: the same tile in dynamic shared memory, indexed in 1D. */
template <typename T, int BX, int BY, int UNROLL, int PAD, bool DYN>
__global__ void __launch_bounds__(BX *BY)
    k_smem(const T *in, size_t ld_in, T *out, size_t ld_out, size_t rows, size_t cols,
           TileGrid g)
{
    constexpr int W = BX * UNROLL + PAD; /* tile row stride in elements */
    __shared__ T stile[DYN ? 1 : BY * W];
    extern __shared__ __align__(16) unsigned char dyn_smem[];
    T *tile = DYN ? reinterpret_cast<T *>(dyn_smem) : stile;

    const unsigned bidx = threadIdx.y * BX + threadIdx.x;
    const unsigned irow = bidx / BY, icol = bidx % BY;
    /* Block b takes tiles b, b + gridDim.x, ... (usually exactly one). */
    for (size_t t = blockIdx.x; t < g.count; t += gridDim.x) {
        size_t bx, by;
        tile_xy(t, g, bx, by);
        size_t x0 = bx * (BX * UNROLL), y0 = by * BY;
        size_t y = y0 + threadIdx.y;
#pragma unroll
        for (int u = 0; u < UNROLL; u++) {
            size_t x = x0 + threadIdx.x + u * BX;
            if (x < cols && y < rows) tile[threadIdx.y * W + threadIdx.x + u * BX] = in[y * ld_in + x];
        }
        __syncthreads();
        /* Output element: out row x0 + irow (+ u*BX), out column y0 + icol. */
        size_t oc = y0 + icol;
#pragma unroll
        for (int u = 0; u < UNROLL; u++) {
            size_t orow = x0 + irow + u * BX;
            if (orow < cols && oc < rows) out[orow * ld_out + oc] = tile[icol * W + irow + u * BX];
        }
        __syncthreads(); /* the tile is reused by the next iteration */
    }
}

/* 32x32 tile moved by a 32x8 block, 4 rows a thread (the CUDA samples' form):
 * square tile, rectangular block; a warp stores 32 consecutive elements of one
 * output row (128 bytes for 4-byte words). Pad 1: row stride 33 words puts a
 * column on 32 banks (66 banks, i.e. 16 distinct pairs, for 8-byte words). */
template <typename T>
__global__ void __launch_bounds__(256)
    k_tile32(const T *__restrict__ in, size_t ld_in, T *__restrict__ out, size_t ld_out,
             size_t rows, size_t cols, TileGrid g)
{
    __shared__ T tile[32][33];
    /* Block b takes tiles b, b + gridDim.x, ... (usually exactly one). */
    for (size_t t = blockIdx.x; t < g.count; t += gridDim.x) {
        size_t bx, by;
        tile_xy(t, g, bx, by);
        size_t x = bx * 32 + threadIdx.x, y0 = by * 32;
#pragma unroll
        for (int j = 0; j < 32; j += 8) {
            size_t y = y0 + threadIdx.y + j;
            if (x < cols && y < rows) tile[threadIdx.y + j][threadIdx.x] = in[y * ld_in + x];
        }
        __syncthreads();
        size_t oc = y0 + threadIdx.x; /* output column = input row */
#pragma unroll
        for (int j = 0; j < 32; j += 8) {
            size_t orow = bx * 32 + threadIdx.y + j; /* output row = input column */
            if (orow < cols && oc < rows) out[orow * ld_out + oc] = tile[threadIdx.x][threadIdx.y + j];
        }
        __syncthreads();
    }
}

/* ------------------------------------------- beyond: 16-byte everything -- */

/* Four 4-byte or two 8-byte words as one 16-byte register quad. */
__device__ __forceinline__ uint4 pack16(const uint32_t (&e)[4])
{
    return make_uint4(e[0], e[1], e[2], e[3]);
}
__device__ __forceinline__ uint4 pack16(const uint64_t (&e)[2])
{
    return make_uint4((uint32_t)e[0], (uint32_t)(e[0] >> 32), (uint32_t)e[1], (uint32_t)(e[1] >> 32));
}

/* TILE x TILE tile, every global load and store 16 bytes wide (V = 4 floats
 * or 2 doubles a vector), VR = TILE / V vectors a tile row. A warp loads whole
 * 256- or 512-byte row pieces and stores 128-byte row pieces of the output.
 *
 * Shared layout: vector v of tile row r sits at slot v ^ ((r / V) & 7) of that
 * row (an XOR swizzle instead of padding, which would break 16-byte alignment).
 * - Row phase: 8 threads of a quarter-warp store vectors v..v+7 of one row:
 *   distinct slots mod 8, i.e. 8 distinct 16-byte bank groups. No conflict.
 * - Column phase: a thread builds output vector u of output row c from rows
 *   u*V .. u*V+V-1, column c. Lanes are laid out so one bank phase (32 lanes
 *   for 4-byte words, 16 for 8-byte) holds 8 values of u and the V columns c of
 *   one vector: the swizzle sends the 8 u to 8 bank groups, the V columns to the
 *   V words of a group. No conflict.
 * Tiles that stick out of the matrix take a guarded element-by-element path
 * through the same layout (a block-uniform branch). The caller guarantees
 * 16-byte aligned bases and leading dimensions (else TR_TILE32 runs). */
template <typename T, int TILE, int NT, bool STREAM>
__global__ void __launch_bounds__(NT, 1536 / NT) /* >= 1536 threads an SM: bytes in flight */
    k_vec(const T *__restrict__ in, size_t ld_in, T *__restrict__ out, size_t ld_out,
          size_t rows, size_t cols, TileGrid g)
{
    constexpr int V = 16 / (int)sizeof(T);
    constexpr int VR = TILE / V;
    constexpr int NV = TILE * VR; /* vectors a tile */
    constexpr int PER = NV / NT;  /* vectors a thread */
    static_assert(VR % 8 == 0 && (VR & (VR - 1)) == 0, "tile row must be 8, 16, 32.. vectors");
    static_assert(NT % VR == 0 && NV % NT == 0, "threads must tile the tile");
    constexpr int R = NT / (8 * V); /* lane groups of 8 u x V columns a pass */
    static_assert(R % (VR / 8) == 0, "u must not change between passes");
    __shared__ uint4 tile[NV];
    T *ts = reinterpret_cast<T *>(tile);
#define slot(r, c) (((r) * VR + (((c) / V) ^ (((r) / V) & 7))) * V + (c) % V) /* in T units */

    /* This thread's places, the same in every tile. Load pass p: tile row
     * lr + p * NT / VR, vector lv. Store pass p: output row sc + p * CSTEP,
     * output vector su (input rows su * V ..). */
    const int lr = threadIdx.x / VR, lv = threadIdx.x % VR;
    const int sc_lo = (threadIdx.x >> 3) % V, rest = threadIdx.x / (8 * V);
    const int su = (rest % (VR / 8)) * 8 + (threadIdx.x & 7);
    const int sc = (rest / (VR / 8)) * V + sc_lo;
    constexpr int CSTEP = R / (VR / 8) * V;

    for (size_t t = blockIdx.x; t < g.count; t += gridDim.x) {
        size_t bx, by;
        tile_xy(t, g, bx, by);
        const size_t r0 = by * TILE, c0 = bx * TILE; /* input row, input column */
        const bool full = r0 + TILE <= rows && c0 + TILE <= cols;
        if (full) {
            const T *src = in + (r0 + lr) * ld_in + c0 + lv * V;
            const size_t step = (size_t)(NT / VR) * ld_in;
            uint4 buf[PER];
#pragma unroll
            for (int p = 0; p < PER; p++) /* all loads in flight before any store */
                buf[p] = STREAM ? __ldcs(reinterpret_cast<const uint4 *>(src + p * step))
                                : __ldg(reinterpret_cast<const uint4 *>(src + p * step));
#pragma unroll
            for (int p = 0; p < PER; p++) {
                int r = lr + p * (NT / VR);
                tile[r * VR + (lv ^ ((r / V) & 7))] = buf[p];
            }
        } else {
            for (int idx = threadIdx.x; idx < TILE * TILE; idx += NT) {
                int r = idx / TILE, c = idx % TILE;
                if (r0 + r < rows && c0 + c < cols) ts[slot(r, c)] = in[(r0 + r) * ld_in + c0 + c];
            }
        }
        __syncthreads();
        if (full) {
            T *dst = out + (c0 + sc) * ld_out + r0 + su * V;
            const size_t step = (size_t)CSTEP * ld_out;
#pragma unroll
            for (int p = 0; p < PER; p++) {
                int c = sc + p * CSTEP;
                T e[V];
#pragma unroll
                for (int k = 0; k < V; k++) e[k] = ts[slot(su * V + k, c)];
                uint4 *d = reinterpret_cast<uint4 *>(dst + p * step); /* one 16-byte store */
                if (STREAM) __stcs(d, pack16(e));
                else __stwb(d, pack16(e));
            }
        } else {
            for (int idx = threadIdx.x; idx < TILE * TILE; idx += NT) {
                int c = idx / TILE, r = idx % TILE;
                if (r0 + r < rows && c0 + c < cols) out[(c0 + c) * ld_out + r0 + r] = ts[slot(r, c)];
            }
        }
        __syncthreads();
    }
#undef slot
}

/* ------------------------------------- beyond: 8-byte words, 2x2 tiles -- */

/* The geometry of f64 tile32, the fastest transpose the H100 table shows
 * (97.5% of the copy ceiling, ahead of cublasDgeam), applied to f32: every
 * global access is one 8-byte word and every warp instruction moves one
 * 256-byte row piece, on the load side and on the store side.
 *
 * A word is P = 8 / sizeof(T) elements (a float pair, or one double). The
 * tile is TILE = 32 * P elements square (64x64 f32, 32x32 f64): 32 words a
 * tile row. A 32 x 8 block loads rows ty, ty + 8, ... (TILE / 8 words a
 * thread, all in flight before the first shared store). For f32 the tile is
 * a 32 x 32 grid of 2x2 micro-tiles: the column phase reads the two words of
 * input rows 2tx, 2tx + 1 at word column wc, transposes that 2x2 block in
 * registers, and stores word tx of output rows 2wc and 2wc + 1 (for f64 the
 * micro-tile is 1x1).
 *
 * Shared layout: word w of tile row r sits at slot w ^ ((r / P) & 15). 8-byte
 * shared accesses run a half-warp a phase (16 slots = 32 banks): the row
 * phase stores 16 consecutive words of one row (16 distinct slots), the
 * column phase reads one word column from 16 rows (row pairs for f32) whose
 * XOR keys are 0..15. No conflicts, and no padding to break the 8-byte
 * alignment.
 *
 * PIPE: persistent blocks (one wave, from the occupancy calculator) walk the
 * tiles grid-stride with the next tile's loads issued right after the
 * barrier, so they are in flight while the current tile is stored; the tile
 * is double-buffered, which leaves one barrier a tile.
 *
 * Tiles that stick out of the matrix take the same thread mapping with
 * per-element guards (a block-uniform branch). The caller guarantees 8-byte
 * aligned bases and row pitches (else TR_TILE32 runs). */
template <typename T>
__device__ __forceinline__ T word_elem(const uint2 &w, int q)
{
    if constexpr (sizeof(T) == 4) return q ? w.y : w.x;
    else return ((uint64_t)w.y << 32) | w.x;
}
template <typename T>
__device__ __forceinline__ void word_set(uint2 &w, int q, T v)
{
    if constexpr (sizeof(T) == 4) (q ? w.y : w.x) = v;
    else w = make_uint2((uint32_t)v, (uint32_t)(v >> 32));
}

/* Blocks an SM: f32 6 (40 registers; at 32 ptxas spills), f64 8 (32 registers,
 * as tile32); PIPE 4 (up to 64 registers, two tile buffers). */
template <typename T, bool PIPE>
__global__ void __launch_bounds__(256, PIPE ? 4 : sizeof(T) == 8 ? 8 : 6)
    k_pair(const T *__restrict__ in, size_t ld_in, T *__restrict__ out, size_t ld_out,
           size_t rows, size_t cols, TileGrid g)
{
    constexpr int P = 8 / (int)sizeof(T); /* elements a word      */
    constexpr int TILE = 32 * P;          /* tile side, elements  */
    constexpr int LD = TILE / 8;          /* words a thread loads */
    constexpr int NB = PIPE ? 2 : 1;      /* tile buffers         */
    __shared__ uint2 tile[NB][TILE * 32];
    const int tx = threadIdx.x, ty = threadIdx.y;
#define pslot(r, w) ((r) * 32 + ((w) ^ (((r) / P) & 15)))

    uint2 v[LD];
    auto load = [&](size_t t) {
        size_t bx, by;
        tile_xy(t, g, bx, by);
        const size_t r0 = by * TILE, c0 = bx * TILE;
        if (r0 + TILE <= rows && c0 + TILE <= cols) {
            const T *src = in + (r0 + ty) * ld_in + c0 + P * tx;
#pragma unroll
            for (int j = 0; j < LD; j++)
                v[j] = *reinterpret_cast<const uint2 *>(src + (size_t)(8 * j) * ld_in);
        } else {
#pragma unroll
            for (int j = 0; j < LD; j++) {
                v[j] = make_uint2(0, 0);
                size_t r = r0 + ty + 8 * j;
#pragma unroll
                for (int q = 0; q < P; q++) {
                    size_t c = c0 + P * tx + q;
                    if (r < rows && c < cols) word_set<T>(v[j], q, in[r * ld_in + c]);
                }
            }
        }
    };
    auto store = [&](size_t t, const uint2 *ts) {
        size_t bx, by;
        tile_xy(t, g, bx, by);
        const size_t r0 = by * TILE, c0 = bx * TILE; /* input row, input column */
        const bool full = r0 + TILE <= rows && c0 + TILE <= cols;
#pragma unroll
        for (int j = 0; j < LD / P; j++) {
            const int wc = ty + 8 * j; /* input word column: output rows P*wc .. */
            uint2 R[P];
#pragma unroll
            for (int k = 0; k < P; k++) R[k] = ts[pslot(P * tx + k, wc)];
#pragma unroll
            for (int q = 0; q < P; q++) {
                uint2 o;
                if constexpr (P == 2) o = q ? make_uint2(R[0].y, R[1].y) : make_uint2(R[0].x, R[1].x);
                else o = R[0];
                const size_t orow = c0 + P * wc + q, ocol = r0 + P * tx;
                if (full) { /* one 8-byte store (a plain assignment may split in two) */
                    __stwb(reinterpret_cast<uint2 *>(out + orow * ld_out + ocol), o);
                } else if (orow < cols) {
#pragma unroll
                    for (int k = 0; k < P; k++)
                        if (ocol + k < rows) out[orow * ld_out + ocol + k] = word_elem<T>(o, k);
                }
            }
        }
    };

    size_t t = blockIdx.x;
    if (PIPE && t < g.count) load(t);
    for (int b = 0; t < g.count; b = PIPE ? b ^ 1 : 0) {
        if (!PIPE) load(t);
        uint2 *ts = tile[b];
#pragma unroll
        for (int j = 0; j < LD; j++) ts[pslot(ty + 8 * j, tx)] = v[j];
        __syncthreads();
        const size_t tn = t + gridDim.x;
        if (PIPE && tn < g.count) load(tn); /* in flight while this tile is stored */
        store(t, ts);
        if (!PIPE) __syncthreads(); /* one buffer: the next tile overwrites it */
        t = tn;
    }
#undef pslot
}

/* ------------------------------------------------------------ launching -- */

struct Args {
    size_t rows, cols, ld_in, ld_out;
    cudaStream_t s;
    int sm_count;
};

template <typename T, int BX, int BY, int UNROLL, bool LOAD_ROWS>
void launch_naive(const Args &a, const T *in, T *out, int order)
{
    /* Tiles cover the input (row form) or the output (col form). */
    TileGrid g = LOAD_ROWS ? make_tiles(a.cols, a.rows, BX * UNROLL, BY, order)
                           : make_tiles(a.rows, a.cols, BX * UNROLL, BY, order);
    k_naive<T, BX, BY, UNROLL, LOAD_ROWS><<<grid_of(g), dim3(BX, BY), 0, a.s>>>(
        in, a.ld_in, out, a.ld_out, a.rows, a.cols, g);
}

template <typename T, int UNROLL, int PAD, bool DYN>
void launch_smem(const Args &a, const T *in, T *out)
{
    constexpr int BX = 32, BY = 16; /* PCCP 5.4's BDIMX x BDIMY */
    TileGrid g = make_tiles(a.cols, a.rows, BX * UNROLL, BY, ORDER_ROWS);
    size_t dyn = DYN ? sizeof(T) * BY * (BX * UNROLL + PAD) : 0;
    k_smem<T, BX, BY, UNROLL, PAD, DYN><<<grid_of(g), dim3(BX, BY), dyn, a.s>>>(
        in, a.ld_in, out, a.ld_out, a.rows, a.cols, g);
}

template <typename T, int TILE, int NT, bool STREAM = false>
void launch_vec(const Args &a, const T *in, T *out, int order = ORDER_ROWS)
{
    TileGrid g = make_tiles(a.cols, a.rows, TILE, TILE, order);
    k_vec<T, TILE, NT, STREAM><<<grid_of(g), NT, 0, a.s>>>(in, a.ld_in, out, a.ld_out, a.rows, a.cols, g);
}

template <typename T>
void launch_tile32(const Args &a, const T *in, T *out)
{
    TileGrid g = make_tiles(a.cols, a.rows, 32, 32, ORDER_ROWS);
    k_tile32<T><<<grid_of(g), dim3(32, 8), 0, a.s>>>(in, a.ld_in, out, a.ld_out, a.rows, a.cols, g);
}

template <typename T, bool PIPE>
void launch_pair(const Args &a, const T *in, T *out)
{
    constexpr int TILE = 32 * (8 / (int)sizeof(T));
    TileGrid g = make_tiles(a.cols, a.rows, TILE, TILE, ORDER_ROWS);
    unsigned grid = grid_of(g);
    if (PIPE) { /* persistent: one wave of resident blocks */
        int per_sm = 0;
        if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k_pair<T, PIPE>, 256, 0) !=
                cudaSuccess ||
            per_sm < 1) {
            (void)cudaGetLastError();
            per_sm = 1;
        }
        size_t wave = (size_t)per_sm * (size_t)(a.sm_count > 0 ? a.sm_count : 1);
        if (wave < grid) grid = (unsigned)wave;
    }
    k_pair<T, PIPE><<<grid, dim3(32, 8), 0, a.s>>>(in, a.ld_in, out, a.ld_out, a.rows, a.cols, g);
}

/* 16-byte accesses need 16-byte aligned bases and row pitches. */
bool vec_ok(const void *in, size_t ld_in, const void *out, size_t ld_out, size_t esize)
{
    return ((uintptr_t)in % 16 == 0) && ((uintptr_t)out % 16 == 0) && (ld_in * esize) % 16 == 0 &&
           (ld_out * esize) % 16 == 0;
}
/* 8-byte words need 8-byte aligned bases and row pitches. */
bool pair_ok(const void *in, size_t ld_in, const void *out, size_t ld_out, size_t esize)
{
    return ((uintptr_t)in % 8 == 0) && ((uintptr_t)out % 8 == 0) && (ld_in * esize) % 8 == 0 &&
           (ld_out * esize) % 8 == 0;
}

template <typename T>
const char *launch(int rung, const Args &a, const T *in, T *out)
{
    constexpr bool f32 = sizeof(T) == 4;
    constexpr int PAD = sizeof(T) == 4 ? 2 : 1; /* see k_smem */
    switch (rung) {
    case TR_SERIAL:
        k_serial<T><<<1, 1, 0, a.s>>>(in, a.ld_in, out, a.ld_out, a.rows, a.cols);
        return "k_serial";
    case TR_ROW: {
        size_t b = (a.cols + 255) / 256;
        k_row<T><<<(unsigned)(b < 65535 ? b : 65535), 256, 0, a.s>>>(in, a.ld_in, out, a.ld_out,
                                                                   a.rows, a.cols);
        return "k_row";
    }
    case TR_ELEMENT: launch_naive<T, 32, 32, 1, true>(a, in, out, ORDER_ROWS); return "k_naive<32x32,row>";
    case TR_NAIVE_ROW: launch_naive<T, 16, 16, 1, true>(a, in, out, ORDER_ROWS); return "k_naive<16x16,row>";
    case TR_NAIVE_COL: launch_naive<T, 16, 16, 1, false>(a, in, out, ORDER_ROWS); return "k_naive<16x16,col>";
    case TR_UNROLL4_ROW: launch_naive<T, 16, 16, 4, true>(a, in, out, ORDER_ROWS); return "k_naive<16x16,unroll4,row>";
    case TR_UNROLL4_COL: launch_naive<T, 16, 16, 4, false>(a, in, out, ORDER_ROWS); return "k_naive<16x16,unroll4,col>";
    case TR_DIAG_ROW: launch_naive<T, 16, 16, 1, true>(a, in, out, ORDER_DIAG); return "k_naive<16x16,row,diag>";
    case TR_DIAG_COL: launch_naive<T, 16, 16, 1, false>(a, in, out, ORDER_DIAG); return "k_naive<16x16,col,diag>";
    case TR_NAIVE_ROW_8X32: launch_naive<T, 8, 32, 1, true>(a, in, out, ORDER_ROWS); return "k_naive<8x32,row>";
    case TR_NAIVE_COL_8X32: launch_naive<T, 8, 32, 1, false>(a, in, out, ORDER_ROWS); return "k_naive<8x32,col>";
    case TR_UNROLL4_COL_8X32: launch_naive<T, 8, 32, 4, false>(a, in, out, ORDER_ROWS); return "k_naive<8x32,unroll4,col>";
    case TR_NAIVE_GMEM: launch_naive<T, 32, 16, 1, true>(a, in, out, ORDER_ROWS); return "k_naive<32x16,row>";
    case TR_SMEM: launch_smem<T, 1, 0, false>(a, in, out); return "k_smem";
    case TR_SMEM_PAD: launch_smem<T, 1, PAD, false>(a, in, out); return "k_smem<pad>";
    case TR_SMEM_UNROLL_PAD: launch_smem<T, 2, PAD, false>(a, in, out); return "k_smem<unroll2,pad>";
    case TR_SMEM_DYN: launch_smem<T, 1, 0, true>(a, in, out); return "k_smem<dyn>";
    case TR_SMEM_PAD_DYN: launch_smem<T, 1, PAD, true>(a, in, out); return "k_smem<pad,dyn>";
    case TR_SMEM_UNROLL_PAD_DYN: launch_smem<T, 2, PAD, true>(a, in, out); return "k_smem<unroll2,pad,dyn>";
    case TR_TILE32: launch_tile32<T>(a, in, out); return "k_tile32";
    case TR_VEC16:
    case TR_VEC16_WIDE:
    case TR_VEC16_STREAM:
    case TR_VEC16_GROUPED:
        if (!vec_ok(in, a.ld_in, out, a.ld_out, sizeof(T))) {
            launch_tile32<T>(a, in, out); /* unaligned rows: no 16-byte accesses */
            return "k_tile32";
        }
        if (rung == TR_VEC16) {
            if constexpr (f32) launch_vec<T, 32, 128>(a, in, out); /* 32x32 floats    */
            else launch_vec<T, 16, 128>(a, in, out);     /* 16x16 doubles   */
        } else if (rung == TR_VEC16_WIDE) {
            /* 64 bytes of loads in flight a thread either way */
            if constexpr (f32) launch_vec<T, 64, 256>(a, in, out); /* 64x64 floats    */
            else launch_vec<T, 32, 128>(a, in, out);     /* 32x32 doubles   */
        } else if (rung == TR_VEC16_STREAM) { /* evict-first: data touched once */
            if constexpr (f32) launch_vec<T, 64, 256, true>(a, in, out);
            else launch_vec<T, 32, 128, true>(a, in, out);
        } else {
            if constexpr (f32) launch_vec<T, 64, 256>(a, in, out, ORDER_GROUPED);
            else launch_vec<T, 32, 128>(a, in, out, ORDER_GROUPED);
        }
        return "k_vec";
    case TR_VEC8_2X2:
    case TR_VEC8_2X2_PIPE:
        if (!pair_ok(in, a.ld_in, out, a.ld_out, sizeof(T))) {
            launch_tile32<T>(a, in, out); /* odd f32 pitches: no 8-byte words */
            return "k_tile32";
        }
        if (rung == TR_VEC8_2X2) {
            launch_pair<T, false>(a, in, out);
            return "k_pair";
        }
        launch_pair<T, true>(a, in, out);
        return "k_pair<pipe>";
    }
    return NULL;
}

} /* namespace */

extern "C" cupat_status cupat__transpose_cuda(cupat_ctx *ctx, int rung, size_t rows, size_t cols,
                                              size_t elem_size, const void *in, size_t ld_in,
                                              void *out, size_t ld_out)
{
    Args a = {rows, cols, ld_in, ld_out, ctx->stream, ctx->sm_count};
    const char *name =
        elem_size == 4
            ? launch<uint32_t>(rung, a, (const uint32_t *)in, (uint32_t *)out)
            : launch<uint64_t>(rung, a, (const uint64_t *)in, (uint64_t *)out);
    if (!name)
        return cupat__fail(ctx, CUPAT_ERROR_INTERNAL, "cupat_transpose: no CUDA kernel for rung %d",
                           rung);
    return cupat__launched(ctx, name);
}
