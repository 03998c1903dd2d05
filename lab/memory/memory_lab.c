/* SPDX-License-Identifier: Apache-2.0 */
/* memory_lab.c — the experiments of `cupat lab memory` as a table, their
 * argument checks, and the host models (PMPP 6.2's DRAM arithmetic, Little's
 * law, shared-memory bank wavefronts) that the tests check on the CPU. The
 * kernels and their host halves are in memory.cu. */
#include "memory/memory.h"

#include "internal.h"

#include <string.h>

static const lab_mem_exp exps[LAB_MEM_NEXP] = {
    [LAB_MEM_CACHE] = {"cache", "cached (ld.ca) vs uncached (ld.cg) loads: a re-read window, an offset-11 stream",
                       "PCCP 4.1 GPU Caches, 4.3 Global Memory Reads (-dlcm=ca / cg)", "GB/s"},
    [LAB_MEM_STRIDE] = {"stride", "out[i] = in[i x stride]: the useful GB/s as the stride grows",
                        "lecture 10 bursts; Guide 8.3.2", "GB/s"},
    [LAB_MEM_ALIGN] = {"align", "a 12-byte struct, the same __align__(16), float4", "Guide 8.3.2 Size and Alignment; lecture A",
                       "GB/s"},
    [LAB_MEM_PITCH] = {"pitch", "odd-width 2D rows: cudaMalloc vs cudaMallocPitch (+ Memcpy2D); cudaMalloc3D / Memcpy3D",
                       "Guide 6.2.2, 8.3.2 Two-Dimensional Arrays", "GB/s"},
    [LAB_MEM_SYMBOLS] = {"symbols", "__device__ float + cudaMemcpyTo/FromSymbol, GetSymbolAddress/Size; __managed__",
                         "PCCP 4.1 Static Global Memory, 4.2 Unified Memory; Guide 6.2.2", "value"},
    [LAB_MEM_UVA] = {"uva", "a mapped pinned pointer passed straight to a kernel (no cudaHostGetDevicePointer)",
                     "PCCP 4.2 UVA", "GB/s"},
    [LAB_MEM_TRANSFERS] = {"transfers", "4 MiB host to device as 1024 x 4 KiB, 64 x 64 KiB, 1 x 4 MiB (pinned)",
                           "Guide 8.3.1", "GB/s"},
    [LAB_MEM_INFLIGHT] = {"inflight", "bytes in flight (blocks x threads x loads) against read bandwidth",
                          "PMPP 6.2 (Little's law)", "GB/s"},
    [LAB_MEM_CARVEOUT] = {"carveout", "PreferredSharedMemoryCarveout 0 / 25 / 50 / 75 / 100 % against an L1-bound read",
                          "PCCP 5.1; Guide 19.7.3", "GB/s"},
    [LAB_MEM_BANKS] = {"banks", "shared-memory stride 1..33, broadcast, multicast, 8-byte words",
                       "lecture 10 banks; lecture A; Guide 19.4.3", "Gload/s"},
    [LAB_MEM_CONSTANT] = {"constant", "__constant__ reads: 1, 2, 8, 32 distinct addresses a warp", "PCCP 5.5", "Gload/s"},
    [LAB_MEM_LOCAL] = {"local", "a per-thread array indexed at run time (local memory) vs unrolled (registers)",
                       "PCCP 4.1 Local Memory; Guide 8.3.2", "GB/s"},
    [LAB_MEM_TEXTURE] = {"texture", "tex1Dfetch vs plain loads; tex2D with linear filtering", "PCCP 4.1; Guide 5.3, 6.2.2",
                         "GB/s"},
    [LAB_MEM_FENCE] = {"fence", "message passing: data then flag; a reader seeing the flag but old data", "PCCP 5.1 (fences)",
                       "violations"},
    [LAB_MEM_VOLATILE] = {"volatile", "a flag another warp sets, polled with a plain and a volatile load",
                          "PCCP 5.1 Volatile Qualifier", "polls"},
    [LAB_MEM_RESTRICT] = {"restrict", "the same kernel with and without __restrict__: registers and time",
                          "Guide 10.2.6", "GB/s"},
    [LAB_MEM_UM] = {"um", "managed memory read by a kernel: on fault, prefetched, read-mostly, resident",
                    "PCCP 4.2 Unified Memory; Guide (unified memory)", "GB/s"},
    [LAB_MEM_SEGMENT] = {"segment", "readSegmentUnroll at offset 11: blocks of 1024 / 512 / 256 / 128, then fewer blocks",
                         "PCCP 4.3 Exposing More Parallelism", "GB/s"},
    [LAB_MEM_DEBUG] = {"debug", "readOffset vs readOffsetUnroll4 at offset 11, release against the -G debug build",
                       "PCCP 4.3 Performance Tuning", "GB/s"},
    [LAB_MEM_OVERSUB] = {"oversub", "managed working sets of 25 / 50 / 90 % of free memory; host-preferred pages over the link",
                         "PCCP 4.2 Unified Memory; issue 16 (a safe bound)", "GB/s"},
    [LAB_MEM_CARVE] = {"carve", "int / float / char / double arrays carved from one extern __shared__ buffer",
                       "lecture 10 and lecture A: shared memory allocation", "bytes"},
    [LAB_MEM_LATENCY] = {"latency", "pointer chase: shared memory against global memory in L1, L2 and DRAM",
                         "lecture 10: shared ~100x faster than global", "cycles"},
    [LAB_MEM_CACHESIZE] = {"cachesize", "pointer-chase latency against the working set, across L1 and L2",
                           "PCCP 4.1 GPU Caches", "cycles"},
    [LAB_MEM_SPLIT] = {"split", "the shared capacity each carveout selects, seen in the 8 KiB blocks an SM holds",
                       "PCCP 5.1; Guide 19.7.3 / 20.8.3 (rounded up)", "KB"},
};

const lab_mem_exp *lab_memory_exp(int e)
{
    return e >= 0 && e < LAB_MEM_NEXP ? &exps[e] : NULL;
}

int lab_memory_find(const char *name)
{
    for (int e = 0; name && e < LAB_MEM_NEXP; e++)
        if (!strcmp(exps[e].name, name)) return e;
    return -1;
}

cupat_status lab_memory_run(cupat_ctx *ctx, int e, int reps, lab_mem_row rows[LAB_MEM_MAX_ROWS], int *nrows)
{
    return lab_memory_run_opts(ctx, e, reps, NULL, rows, nrows);
}

cupat_status lab_memory_run_opts(cupat_ctx *ctx, int e, int reps, const lab_mem_opts *o,
                                 lab_mem_row rows[LAB_MEM_MAX_ROWS], int *nrows)
{
    static const lab_mem_opts defaults = {0};
    if (!ctx) return cupat__fail(NULL, CUPAT_ERROR_INVALID_VALUE, "lab memory: ctx is NULL");
    if (e < 0 || e >= LAB_MEM_NEXP)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab memory: experiment = %d (0 to %d)", e, LAB_MEM_NEXP - 1);
    if (reps < 1 || reps > 1000)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab memory: reps = %d (1 to 1000)", reps);
    if (!rows || !nrows) return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab memory: %s is NULL", !rows ? "rows" : "nrows");
    if (cupat_get_backend(ctx) != CUPAT_BACKEND_CUDA)
        return cupat__fail(ctx, CUPAT_ERROR_NOT_SUPPORTED, "lab memory: the experiments need the CUDA backend");
    memset(rows, 0, sizeof(lab_mem_row) * LAB_MEM_MAX_ROWS);
    *nrows = 0;
    return cupat__lab_mem_run(ctx, e, reps, o ? o : &defaults, rows, nrows);
}

/* ----------------------------------------------------- host models -- */

double lab_memory_dram_gbs(int bus_bits, double clock_ghz, int per_clock)
{
    return bus_bits / 8.0 * clock_ghz * per_clock;
}

double lab_memory_channel_use(double ratio)
{
    return 1.0 / (1.0 + ratio);
}

double lab_memory_bytes_in_flight(double gbs, double latency_ns)
{
    return gbs * latency_ns; /* GB/s x ns = bytes */
}

int lab_memory_wavefronts(const uint32_t addr[32], int bytes)
{
    uint32_t words[32][64]; /* per bank: the distinct 4-byte word indexes */
    int count[32] = {0}, most = 0;
    const int nw = bytes >= 8 ? bytes / 4 : 1;
    for (int l = 0; l < 32; l++) {
        if (addr[l] == UINT32_MAX) continue;
        for (int k = 0; k < nw; k++) {
            const uint32_t w = addr[l] / 4 + (uint32_t)k, b = w % 32;
            int seen = 0;
            for (int i = 0; i < count[b] && !seen; i++) seen = words[b][i] == w;
            if (!seen && count[b] < 64) words[b][count[b]++] = w;
        }
    }
    for (int b = 0; b < 32; b++) most = count[b] > most ? count[b] : most;
    return most;
}

void lab_memory_um_sizes(size_t dev_free, size_t host_avail, const int *pct, int n, size_t *out)
{
    const size_t unit = (size_t)2 << 20;
    for (int k = 0; k < n; k++) {
        const int p = pct[k] < 1 ? 1 : pct[k] > 90 ? 90 : pct[k];
        size_t b = (size_t)((unsigned long long)dev_free * (unsigned)p / 100u); /* < 2^64 below 2^57 bytes */
        if (b > host_avail / 2) b = host_avail / 2;
        out[k] = b / unit * unit;
    }
}

int lab_memory_smem_caps(int major, int minor, const int **caps_kb)
{
    static const int v70[] = {0, 8, 16, 32, 64, 96};
    static const int v80[] = {0, 8, 16, 32, 64, 100, 132, 164};
    static const int v86[] = {0, 8, 16, 32, 64, 100};
    static const int v90[] = {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};
#define CAPS(v) (*caps_kb = (v), (int)(sizeof(v) / sizeof(v)[0]))
    if (major == 7 && (minor == 0 || minor == 2)) return CAPS(v70);
    if (major == 8 && (minor == 0 || minor == 7)) return CAPS(v80);
    if (major == 8 && (minor == 6 || minor == 9)) return CAPS(v86);
    if (major == 9 && minor == 0) return CAPS(v90);
#undef CAPS
    *caps_kb = NULL;
    return 0;
}

int lab_memory_carveout_kb(int pct, const int *caps_kb, int ncaps, int need_kb)
{
    if (ncaps <= 0 || pct < 0 || pct > 100) return -1;
    const int most = caps_kb[ncaps - 1];
    for (int k = 0; k < ncaps; k++) /* caps_kb[k] >= pct % of most, in integers */
        if (caps_kb[k] * 100 >= pct * most && caps_kb[k] >= need_kb) return caps_kb[k];
    return -1;
}

size_t lab_memory_carve_size(int type)
{
    static const size_t sz[LAB_CARVE_NTYPES] = {sizeof(int), sizeof(float), sizeof(char), sizeof(double)};
    return type >= 0 && type < LAB_CARVE_NTYPES ? sz[type] : 0;
}

size_t lab_memory_carve(const size_t count[LAB_CARVE_NTYPES], const int *order, int n, int pad,
                        size_t off[LAB_CARVE_NTYPES])
{
    size_t at = 0;
    for (int t = 0; t < LAB_CARVE_NTYPES; t++) off[t] = 0;
    for (int k = 0; k < n; k++) {
        const int t = order[k];
        const size_t a = lab_memory_carve_size(t);
        if (!a || !count[t]) continue;
        if (pad) at = (at + a - 1) / a * a;
        off[t] = at;
        at += count[t] * a;
    }
    return at;
}

int lab_memory_carve_misaligned(const size_t count[LAB_CARVE_NTYPES], const size_t off[LAB_CARVE_NTYPES])
{
    for (int t = 0; t < LAB_CARVE_NTYPES; t++)
        if (count[t] && off[t] % lab_memory_carve_size(t)) return t;
    return -1;
}
