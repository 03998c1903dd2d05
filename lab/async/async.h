/* SPDX-License-Identifier: Apache-2.0 */
/* async.h — the asynchronous-copy lab (`cupat lab async`, issue 23): the
 * CUDA Guide's asynchronous barrier, memcpy_async, pipeline and TMA
 * chapters (10.26-10.29; INVENTORY G44-G55) as measured experiments:
 * cuda::barrier against __syncthreads, warp specialization with two
 * barriers a buffer, the copy-and-compute pattern with every memcpy_async
 * flavour against register staging, the alignment rule, warp entanglement,
 * cuda::pipeline (single, multi-stage, partitioned) and the primitives
 * against raw cp.async, and Hopper's TMA: 1D bulk copies and 2D tensor-map
 * tiles with the four swizzle modes.
 * Each experiment fills rows (lab_rows.h). The host models below (the
 * words, the weighted tile sums, the swizzle layout, the barrier loop's
 * result) are plain C the tests check without a GPU. Not library API. */
#ifndef CUPAT_LAB_ASYNC_H
#define CUPAT_LAB_ASYNC_H

#include "cupat.h"
#include "rows/lab_rows.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
    LAB_ASY_BARRIER,  /* cuda::barrier arrive_and_wait and split arrive / wait against __syncthreads, ns a phase */
    LAB_ASY_WARPSPEC, /* producer / consumer warps, a double buffer, full / empty barriers, against all-threads */
    LAB_ASY_MEMCPY,   /* copy and compute: register staging, cg::memcpy_async, cuda::memcpy_async (barrier, pipeline) */
    LAB_ASY_ALIGN,    /* source alignment 4 / 8 / 16 / 128 bytes, cuda::aligned_size_t, the synchronous fallback */
    LAB_ASY_ENTANGLE, /* commit / wait from a diverged warp against the same after __syncwarp */
    LAB_ASY_PIPELINE, /* cuda::pipeline single / multi-stage / partitioned, the primitives, raw cp.async */
    LAB_ASY_BULK,     /* TMA 1D: cp.async.bulk + mbarrier rings against ordinary loads and cp.async */
    LAB_ASY_SWIZZLE,  /* TMA 2D: one tile's shared-memory image in each swizzle mode against the model */
    LAB_ASY_TENSOR,   /* TMA 2D tile copy and transpose (loads and stores) against ordinary loads */
    LAB_ASY_NEXP
};

const lab_exp *lab_async_exp(int e); /* NULL past the end */
int lab_async_find(const char *name); /* -1 when unknown */

/* Run experiment e: rows[0 .. *nrows). reps: timed launches a row (1..1000).
 * CUDA backend only; a wrong row is a row with ok = 0, not an error. */
cupat_status lab_async_run(cupat_ctx *ctx, int e, int reps, lab_row rows[LAB_MAX_ROWS], int *nrows);

/* The compute capability (x 10) an experiment needs: 80 (cp.async,
 * hardware barriers) or 90 (TMA); -1 for an unknown one. */
int lab_async_need(int e);

/* ----------------------------------------------------- host models -- */

#ifdef __CUDACC__
#define LAB_ASY_HD __host__ __device__
#else
#define LAB_ASY_HD
#endif

/* The streaming experiments read tiles of 8 KiB (2048 words); a word's
 * weight in a tile sum is odd and depends on its place in its 8 KiB tile,
 * so a copy that moves words inside a tile changes the sum. */
#define LAB_ASY_TILE_WORDS 2048u
#define LAB_ASY_MIX_ROUNDS 8 /* the warp-specialization experiment's balanced compute */

/* The word at index i of every experiment's input (a 32-bit hash). */
static inline LAB_ASY_HD uint32_t lab_async_word(uint64_t i)
{
    uint32_t x = (uint32_t)i * 0x9E3779B1u ^ (uint32_t)(i >> 32) * 0x85EBCA77u;
    x ^= x >> 16;
    x *= 0x7FEB352Du;
    x ^= x >> 15;
    x *= 0x846CA68Bu;
    return x ^ (x >> 16);
}
static inline LAB_ASY_HD uint32_t lab_async_weight(uint32_t j)
{
    return 2u * (j & (LAB_ASY_TILE_WORDS - 1u)) + 1u;
}
/* The balanced compute: LAB_ASY_MIX_ROUNDS dependent multiply / shift
 * rounds on the word's low 16 bits (so the host tabulates 65536 values),
 * xor the word. */
static inline LAB_ASY_HD uint32_t lab_async_mix16(uint32_t y)
{
    for (int k = 0; k < LAB_ASY_MIX_ROUNDS; k++) {
        y = y * 0x9E3779B1u + 0x632BE5ABu;
        y ^= y >> 15;
    }
    return y;
}
static inline LAB_ASY_HD uint32_t lab_async_heavy(uint32_t x)
{
    return lab_async_mix16(x & 0xFFFFu) ^ x;
}

/* Weighted sums of the 8 KiB tiles of lab_async_word(off + i), i < ntiles
 * x 2048: sums[g] = sum over j of f(word(off + 2048 g + j)) x weight(j),
 * mod 2^32; f the identity, or lab_async_heavy when heavy. 0, or -1 on out
 * of memory. */
int lab_async_tile_sums(uint32_t *sums, size_t ntiles, size_t off, int heavy);
/* What block b of a grid of `grid` blocks should write when the kernel's
 * tiles are `per` consecutive 8 KiB tiles and block b takes kernel tiles
 * b, b + grid, b + 2 grid, ... < ntiles / per (ntiles a multiple of per). */
void lab_async_block_expect(const uint32_t *sums, size_t ntiles, unsigned per, unsigned grid, uint32_t *want);

/* The barrier experiment's loop, per thread of one block of n threads:
 * v = t * 0x9E3779B1 + 1, x = t; each phase publishes v, synchronizes,
 * does `work` xorshift rounds on x, and takes v = 3 v + v[(t + 1) % n];
 * out[t] = v ^ x. 0, or -1 (n not 1..1024, out of memory). */
int lab_async_phase_model(unsigned n, int phases, int work, uint32_t *out);
static inline LAB_ASY_HD uint32_t lab_async_xorshift(uint32_t x)
{
    x ^= x << 13;
    x ^= x >> 17;
    return x ^ (x << 5);
}

/* TMA swizzle (cuTensorMapEncodeTiled's CU_TENSOR_MAP_SWIZZLE_32B / 64B /
 * 128B; mode 0 none): within each 1024-byte-aligned region, bits 4.. of a
 * byte offset (the 16-byte chunk inside its span) are xored with bits 7..
 * (the 128-byte row group): 1 bit for 32B, 2 for 64B, 3 for 128B. */
static inline LAB_ASY_HD uint32_t lab_async_swizzle(unsigned mode, uint32_t off)
{
    const uint32_t m = mode == 128 ? 7u : mode == 64 ? 3u : mode == 32 ? 1u : 0u;
    return off ^ (((off >> 7) & m) << 4);
}
/* The byte offset of element (r, c) of the experiments' 32 x 32 tile of
 * 4-byte words in shared memory, loaded as boxes as wide as the mode's span
 * (32B: 8 columns, 64B: 16, 128B and none: 32) side by side, each box 32
 * rows packed at its width and swizzled. */
static inline LAB_ASY_HD uint32_t lab_async_tile_offset(unsigned mode, unsigned r, unsigned c)
{
    const unsigned w = mode == 32 ? 8u : mode == 64 ? 16u : 32u; /* columns a box */
    const unsigned box = c / w;
    return box * (w * 4u * 32u) + lab_async_swizzle(mode, r * w * 4u + (c % w) * 4u);
}
/* The bank conflict of a warp's access to that tile: lanes 0..31 reading
 * column c (rows 0..31; column = 1) or row c (columns 0..31): the most
 * distinct words in one bank, the worst over c. 1 is conflict-free. */
int lab_async_ways(unsigned mode, int column);

/* ---------------------------------------------------- the kernels (.cu) -- */
cupat_status cupat__lab_async_run(cupat_ctx *ctx, int e, int reps, lab_row *rows, int *nrows);

#ifdef __cplusplus
}
#endif
#endif
