/* SPDX-License-Identifier: Apache-2.0 */
/* memory.h — the memory lab (`cupat lab memory`), the rows of PCCP 4.1-4.3
 * and 5.1 / 5.5, PMPP 5.2 and 6.2, the CUDA Guide 6.2.2, 8.3 and 19.4 / 19.7,
 * and the lectures' banks and coalescing slides that `cupat lab access` does
 * not measure: cached against uncached loads, strides, aligned structs,
 * pitched and 3D arrays, __device__ / __managed__ symbols, UVA zero-copy,
 * batched transfers, bytes in flight, the L1 / shared carveout, bank
 * strides, constant-cache divergence, local memory, texture objects, a
 * memory-fence litmus test, volatile, __restrict__, unified-memory
 * migration against prefetch and advice; and the seed rows that came after
 * (issue 16): PCCP 4.3's readSegmentUnroll block / grid sweep and its -G
 * debug build, managed working sets near the free device memory, arrays of
 * mixed types carved from one extern __shared__ buffer, shared against
 * global latency, latency across the cache sizes, and the shared capacity a
 * carveout gives.
 * Each experiment fills rows (a name, a median time, a figure, a check);
 * the host models below (DRAM rate, Little's law, bank wavefronts) are
 * plain C the tests check without a GPU. Not library API. */
#ifndef CUPAT_LAB_MEMORY_H
#define CUPAT_LAB_MEMORY_H

#include "cupat.h"
#include "rows/lab_rows.h"

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
    LAB_MEM_SEGMENT,   /* readSegmentUnroll at offset 11: blocks 1024..128, then the grid (PCCP 4.3) */
    LAB_MEM_DEBUG,     /* readOffset vs readOffsetUnroll4, release against -G (PCCP 4.3) */
    LAB_MEM_OVERSUB,   /* managed working sets of 25 / 50 / 90 % of free memory; host-preferred pages */
    LAB_MEM_CARVE,     /* int / float / char / double arrays carved from one extern __shared__ buffer */
    LAB_MEM_LATENCY,   /* pointer chase: shared against global in L1, L2 and DRAM (lecture 10) */
    LAB_MEM_CACHESIZE, /* chase latency against the working set across L1 and L2 */
    LAB_MEM_SPLIT,     /* the shared capacity each carveout selects: 8 KiB blocks an SM holds */
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

/* The memory lab's rows are the labs' common row (lab/rows). */
#define LAB_MEM_MAX_ROWS LAB_MAX_ROWS
typedef lab_row lab_mem_row;

/* Run experiment e: rows[0 .. *nrows). reps: timed launches a row (>= 1).
 * CUDA backend only; a wrong row is a row with ok = 0, not an error. */
cupat_status lab_memory_run(cupat_ctx *ctx, int e, int reps, lab_mem_row rows[LAB_MEM_MAX_ROWS], int *nrows);

/* What the oversub rows may take. Managed memory is never allocated beyond
 * 90 % of the device memory free at the start (cudaMemGetInfo) nor beyond
 * half of the host's available memory (sysconf: every page may come back to
 * the host, and the host writes each working set before a launch). Past the
 * free device memory the driver would evict and
 * re-fault pages at every pass (oversubscription proper): a run whose time
 * has no bound and which takes memory from anything else on the GPU; the
 * oversub rows show that cost instead by keeping the pages on the host
 * (cudaMemAdviseSetPreferredLocation host + SetAccessedBy: every access
 * crosses the link, as an evicted page's would) within the same bound. */
typedef struct lab_mem_opts {
    /* 0: the working sets are fractions of min(free, 1 GiB) (safe beside
     * other GPU work, as in the tests). Else hold all but um_free of the
     * free device memory in a cudaMalloc ballast while the rows run, so that
     * fractions of the whole remaining free memory take seconds (a run that
     * has the GPU to itself). */
    size_t um_free;
} lab_mem_opts;
/* lab_memory_run with options; o NULL: all defaults. */
cupat_status lab_memory_run_opts(cupat_ctx *ctx, int e, int reps, const lab_mem_opts *o,
                                 lab_mem_row rows[LAB_MEM_MAX_ROWS], int *nrows);

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

/* Managed working sets: pct[k] % of dev_free, at most half of host_avail,
 * rounded down to 2 MiB; 0 where that leaves less than 2 MiB (the row is
 * skipped). pct[k] is clamped to 1..90. */
void lab_memory_um_sizes(size_t dev_free, size_t host_avail, const int *pct, int n, size_t *out);

/* Shared-memory capacities (KB) an SM can be configured to, ascending, for
 * compute capability major.minor (CUDA Guide 19.x-20.x "Shared Memory",
 * PCCP 5.1): 7.0: 0 8 16 32 64 96; 8.0 / 8.7: .. 100 132 164; 8.6 / 8.9:
 * .. 64 100; 9.0: .. 164 196 228. Returns the count (0: not known). */
int lab_memory_smem_caps(int major, int minor, const int **caps_kb);
/* The capacity a PreferredSharedMemoryCarveout of pct (0..100: a percentage
 * of the largest capacity) selects: the smallest supported capacity >= pct %
 * of the largest ("rounded up": 50 % of 96 KB -> 64 KB on 7.0, of 164 KB ->
 * 100 KB on 8.0), and at least need_kb (a block must fit: the driver takes
 * a larger configuration where the preferred one holds none). -1: none fits. */
int lab_memory_carveout_kb(int pct, const int *caps_kb, int ncaps, int need_kb);

/* Arrays of several types carved from one dynamic shared buffer (lecture
 * 10, lecture "Advanced Techniques"). Types in that order: */
enum { LAB_CARVE_INT, LAB_CARVE_FLOAT, LAB_CARVE_CHAR, LAB_CARVE_DOUBLE, LAB_CARVE_NTYPES };
size_t lab_memory_carve_size(int type); /* 4, 4, 1, 8: also each type's alignment */
/* Place count[t] elements of each type, in the order order[0..n), one after
 * the other from byte 0; pad != 0 rounds each start up to its type's
 * alignment (the fix), pad == 0 packs them (the bug). off[t]: the byte
 * offset of type t (0 where count[t] = 0). Returns the bytes used. */
size_t lab_memory_carve(const size_t count[LAB_CARVE_NTYPES], const int *order, int n, int pad,
                        size_t off[LAB_CARVE_NTYPES]);
/* The first type whose offset is not a multiple of its alignment (an
 * access would raise cudaErrorMisalignedAddress), or -1. */
int lab_memory_carve_misaligned(const size_t count[LAB_CARVE_NTYPES], const size_t off[LAB_CARVE_NTYPES]);

/* ---------------------------------------------------- the kernels (.cu) -- */
cupat_status cupat__lab_mem_run(cupat_ctx *ctx, int e, int reps, const lab_mem_opts *opts, lab_mem_row *rows,
                                int *nrows);

#ifdef __cplusplus
}
#endif
#endif
