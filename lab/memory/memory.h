/* memory.h — the memory lab (`cupat lab memory`), the rows of PCCP 4.1-4.3
 * and 5.1 / 5.5, PMPP 5.2 and 6.2, the CUDA Guide 6.2.2, 8.3 and 19.4 / 19.7,
 * and the lectures' banks and coalescing slides that `cupat lab access` does
 * not measure: cached against uncached loads, strides, aligned structs,
 * pitched and 3D arrays, __device__ / __managed__ symbols, UVA zero-copy,
 * batched transfers, bytes in flight, the L1 / shared carveout, bank
 * strides, constant-cache divergence, local memory, texture objects, a
 * memory-fence litmus test, volatile, __restrict__, and unified-memory
 * migration against prefetch and advice.
 * Each experiment fills rows (a name, a median time, a figure, a check);
 * the host models below (DRAM rate, Little's law, bank wavefronts) are
 * plain C the tests check without a GPU. Not library API. */
#ifndef CUPAT_LAB_MEMORY_H
#define CUPAT_LAB_MEMORY_H

#include "cupat.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
    LAB_MEM_CACHE,     /* __ldca / __ldcg / __ldg / default on a re-read window; offset-11 stream */
    LAB_MEM_STRIDE,    /* out[i] = in[i * stride], stride 1..32 */
    LAB_MEM_ALIGN,     /* 12-byte struct, __align__(16) struct, float4 */
    LAB_MEM_PITCH,     /* odd-width rows: plain against cudaMallocPitch; cudaMalloc3D round trip */
    LAB_MEM_SYMBOLS,   /* __device__ + MemcpyTo/FromSymbol + GetSymbolAddress/Size; __managed__ */
    LAB_MEM_UVA,       /* mapped pinned pointer straight to a kernel */
    LAB_MEM_TRANSFERS, /* 1024 x 4 KiB against 64 x 64 KiB against 1 x 4 MiB */
    LAB_MEM_INFLIGHT,  /* bytes in flight against bandwidth */
    LAB_MEM_CARVEOUT,  /* PreferredSharedMemoryCarveout against an L1-bound read */
    LAB_MEM_BANKS,     /* shared-memory strides, broadcast, multicast, 8-byte words */
    LAB_MEM_CONSTANT,  /* uniform against divergent __constant__ reads */
    LAB_MEM_LOCAL,     /* a dynamically indexed per-thread array: local memory */
    LAB_MEM_TEXTURE,   /* tex1Dfetch against loads; tex2D linear filtering */
    LAB_MEM_FENCE,     /* message-passing litmus test with and without __threadfence */
    LAB_MEM_VOLATILE,  /* a polled flag: plain load hoisted, volatile seen */
    LAB_MEM_RESTRICT,  /* __restrict__: loads, registers, time */
    LAB_MEM_UM,        /* managed memory: fault migration, prefetch, advice */
    LAB_MEM_NEXP
};

typedef struct lab_mem_exp {
    const char *name;   /* "cache" */
    const char *title;  /* one line */
    const char *source; /* the seeds' sections */
    const char *unit;   /* the figure's unit: "GB/s", "polls", ... */
} lab_mem_exp;
const lab_mem_exp *lab_memory_exp(int e); /* NULL past the end */
int lab_memory_find(const char *name);    /* -1 when unknown */

#define LAB_MEM_MAX_ROWS 16
typedef struct lab_mem_row {
    char name[64];
    double ms;     /* median of the timed launches; 0: not timed */
    double value;  /* the row's figure in the experiment's unit */
    int ok;        /* 1 checked and right, 0 wrong, -1 nothing to check */
    char note[192];
} lab_mem_row;

/* Run experiment e: rows[0 .. *nrows). reps: timed launches a row (>= 1).
 * CUDA backend only; a wrong row is a row with ok = 0, not an error. */
cupat_status lab_memory_run(cupat_ctx *ctx, int e, int reps, lab_mem_row rows[LAB_MEM_MAX_ROWS], int *nrows);

/* ----------------------------------------------------- host models -- */

/* Peak DRAM rate in GB/s: bus_bits / 8 bytes x clock x transfers a clock
 * (PMPP 6.2: a 64-bit DDR channel at 1 GHz = 16 GB/s). */
double lab_memory_dram_gbs(int bus_bits, double clock_ghz, int per_clock);
/* The fraction of a channel used when each access waits `ratio` times its
 * transfer time (PMPP 6.2: 20:1 -> 1 / 21 = 4.8 %). */
double lab_memory_channel_use(double ratio);
/* Little's law: bytes that must be in flight to sustain gbs at latency_ns. */
double lab_memory_bytes_in_flight(double gbs, double latency_ns);
/* Shared-memory wavefronts of one warp access: lane l reads `bytes` (4 or
 * 8) at byte address addr[l] (lanes with addr = UINT32_MAX do not access);
 * 32 banks of 4 bytes; the same word read by several lanes is one access
 * (broadcast / multicast). The most distinct words any bank must serve. */
int lab_memory_wavefronts(const uint32_t addr[32], int bytes);

/* ---------------------------------------------------- the kernels (.cu) -- */
cupat_status cupat__lab_mem_run(cupat_ctx *ctx, int e, int reps, lab_mem_row *rows, int *nrows);

#ifdef __cplusplus
}
#endif
#endif
