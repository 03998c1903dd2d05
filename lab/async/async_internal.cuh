// SPDX-License-Identifier: Apache-2.0
// async_internal.cuh — what the async lab's three kernel files share: the
// run's state, the streaming input (lab_async_word on the device, the host's
// weighted tile sums), the one timed-and-checked row of a copy-and-sum
// kernel, and the device helpers (block sum, mbarrier, cp.async, bulk copy
// PTX). Included by async.cu, async_copy.cu and async_tma.cu only.
#pragma once

#include "async/async.h"

#include "internal.h"
#include "lab_timing.cuh"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

// A __shared__ cuda::barrier or pipeline_shared_state is declared without
// an initializer and set up by init() / make_pipeline (Guide 10.26.3); nvcc
// warns about its non-trivial constructor, which never runs for shared
// memory. The Guide's own examples silence the same warning.
#pragma nv_diag_suppress static_var_with_dynamic_init

namespace cupat_async {

using cupat_lab::Bufs;
using cupat_lab::copy;
using cupat_lab::fill;
using cupat_lab::median;
using cupat_lab::timed;

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define ASY_SM90 1
#else
#define ASY_SM90 0
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define ASY_SM80 1
#else
#define ASY_SM80 0
#endif

constexpr unsigned THREADS = 256;                     // every streaming kernel's block
constexpr unsigned TW = LAB_ASY_TILE_WORDS;           // words an 8 KiB tile
constexpr unsigned T4 = TW / 4;                       // uint4s an 8 KiB tile
// The streamed input: 2^26 words (256 MiB: five times the H100's L2), or
// 2^20 (4 MiB) under CUPAT_TEST_SMALL, where compute-sanitizer runs the
// test (racecheck did not get through 256 MiB a row in 300 s).
inline size_t stream_words()
{
    static const size_t w = getenv("CUPAT_TEST_SMALL") ? (size_t)1 << 20 : (size_t)1 << 26;
    return w;
}
#define STREAM_WORDS (stream_words())
constexpr size_t STREAM_PAD = 64;                     // words past the end (the offset sources)
#define STREAM_TILES (STREAM_WORDS / TW)              // 32768 tiles of 8 KiB (128 small)

struct Run : cupat_lab::RunBase {
    int sms;
    int cc; // compute capability x 10
};

inline cupat_status oom(Run &X)
{
    return cupat__fail(X.ctx, CUPAT_ERROR_OUT_OF_MEMORY, "lab async: out of host memory");
}

inline lab_row *add(Run &X, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lab_row *r = lab_row_vadd(X.rows, X.n, fmt, ap);
    va_end(ap);
    return r;
}

// A launch that may be refused (an attribute the device lacks): the error,
// cleared so that the next call does not see it.
inline cudaError_t refusable(cudaError_t e)
{
    if (e != cudaSuccess) cudaGetLastError();
    return e;
}

// ================================================================ input ==
// STREAM_WORDS + STREAM_PAD words of lab_async_word, written on the device
// (no 256 MiB upload), and a partial sum a block. The host's tile sums are
// made once an offset and kind (lab_async_tile_sums: about 0.1 s each).
struct Stream {
    Bufs B;
    uint32_t *d = nullptr;    // the words
    uint32_t *part = nullptr; // one partial a block
    unsigned max_blocks = 0;
    uint32_t *sums[4] = {nullptr, nullptr, nullptr, nullptr}; // host tile sums, by key
    size_t sum_off[4] = {0, 0, 0, 0};
    int sum_heavy[4] = {0, 0, 0, 0};
    uint32_t *want = nullptr; // host: a block's expected partial
    uint32_t *got = nullptr;  // host: the partials read back
    Stream() = default;
    Stream(const Stream &) = delete;
    ~Stream()
    {
        for (uint32_t *p : sums) free(p);
        free(want);
        free(got);
    }
};
cupat_status stream_make(Run &X, Stream &S);
// d[i] = lab_async_word(i), i < n, on the device (and waited for).
cupat_status fill_words(Run &X, uint32_t *d, size_t n);
// The host's tile sums of the words from offset `off` (words), heavy or not.
cupat_status stream_sums(Run &X, Stream &S, size_t off, int heavy, const uint32_t **sums);

// One row r of a copy-and-sum kernel: `fn` (for the occupancy query) runs
// THREADS threads and `smem` dynamic bytes; a kernel tile is `per` 8 KiB
// tiles; the grid is one resident wave (the occupancy API's blocks an SM x
// SMs), each block looping over kernel tiles b, b + grid, ...; launch(grid)
// returns the launch's cudaError_t. Times reps launches, the median; GB/s
// = 4 STREAM_WORDS / time; checks every block's partial against `sums`. A
// kernel that fits no SM gives a failed row saying so.
template <class L>
cupat_status sum_row(Run &X, Stream &S, lab_row *r, const void *fn, size_t smem, unsigned per, const uint32_t *sums,
                     L launch)
{
    if (smem > 48 * 1024) CK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    int occ = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, fn, THREADS, smem));
    if (occ < 1) {
        lab_row_note(r, "not run: no block of %u threads with %zu bytes of shared memory fits an SM", THREADS, smem);
        r->ok = 0;
        return CUPAT_SUCCESS;
    }
    const size_t ktiles = STREAM_TILES / per;
    unsigned grid = (unsigned)occ * (unsigned)X.sms;
    if (grid > ktiles) grid = (unsigned)ktiles;
    if (grid > S.max_blocks) grid = S.max_blocks;
    CK(fill(X.s, S.part, 0xff, (size_t)grid * 4)); // poison: a block that writes nothing fails
    cupat_status st = timed(X.ctx, X.reps, X.t, [&]() { return cupat__cuda(X.ctx, launch(grid), "kernel launch"); });
    if (st) return st;
    r->ms = median(X.t, X.reps);
    r->value = r->ms > 0 ? 4.0 * STREAM_WORDS / (r->ms * 1e-3) * 1e-9 : 0;
    CK(copy(X.s, S.got, S.part, (size_t)grid * 4));
    lab_async_block_expect(sums, STREAM_TILES, per, grid, S.want);
    unsigned bad = 0, first = 0;
    for (unsigned b = 0; b < grid; b++)
        if (S.got[b] != S.want[b] && !bad++) first = b;
    r->ok = bad == 0;
    lab_row_note(r, "%d blocks an SM, %u blocks; ", occ, grid);
    if (bad) lab_row_note(r, "%u of %u block sums wrong (block %u: %08x, want %08x); ", bad, grid, first, S.got[first],
                          S.want[first]);
    return CUPAT_SUCCESS;
}

// The common signature of the streaming kernels: (src, kernel tiles, partials).
inline cudaError_t launch_std(const void *fn, unsigned grid, size_t smem, cudaStream_t s, const void *src, unsigned nk,
                              uint32_t *part)
{
    void *args[] = {(void *)&src, (void *)&nk, (void *)&part};
    return cudaLaunchKernel(fn, dim3(grid), dim3(THREADS), args, smem, s);
}
// sum_row of a kernel of that signature reading from src.
inline cupat_status std_row(Run &X, Stream &S, lab_row *r, const void *fn, size_t smem, unsigned per,
                            const uint32_t *sums, const void *src)
{
    const unsigned nk = (unsigned)(STREAM_TILES / per);
    return sum_row(X, S, r, fn, smem, per, sums,
                   [&](unsigned g) { return launch_std(fn, g, smem, X.s, src, nk, S.part); });
}

// ======================================================= device helpers ==

// The kernel tiles block blockIdx.x takes: blockIdx.x, + gridDim.x, ... < nk.
__device__ __forceinline__ unsigned my_tiles(unsigned nk)
{
    return blockIdx.x < nk ? (nk - 1 - blockIdx.x) / gridDim.x + 1 : 0;
}
__device__ __forceinline__ size_t tile_of(unsigned k)
{
    return (size_t)blockIdx.x + (size_t)k * gridDim.x;
}

// The weighted sum of the 16 bytes at uint4 index q of a tile (words 4q..4q+3).
template <bool HEAVY> __device__ __forceinline__ uint32_t sum4(uint4 v, unsigned q)
{
    const unsigned j = 4 * q;
    if (HEAVY) {
        v.x = lab_async_heavy(v.x), v.y = lab_async_heavy(v.y);
        v.z = lab_async_heavy(v.z), v.w = lab_async_heavy(v.w);
    }
    return v.x * lab_async_weight(j) + v.y * lab_async_weight(j + 1) + v.z * lab_async_weight(j + 2) +
           v.w * lab_async_weight(j + 3);
}
// The weighted sum of a tile of `n4` uint4s in shared memory by threads
// t, t + nt, ... (any t < nt).
template <bool HEAVY = false>
__device__ __forceinline__ uint32_t sum_tile(const uint4 *sh, unsigned n4, unsigned t, unsigned nt)
{
    uint32_t s = 0;
    for (unsigned q = t; q < n4; q += nt) s += sum4<HEAVY>(sh[q], q);
    return s;
}

// Every thread's s summed; thread 0 writes part[blockIdx.x]. All threads of
// the block call it (it has a __syncthreads).
__device__ __forceinline__ void block_total(uint32_t s, uint32_t *part)
{
    __shared__ uint32_t warp_sums[32];
    s = __reduce_add_sync(0xffffffffu, s);
    if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x / 32] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        uint32_t t = 0;
        for (unsigned w = 0; w < blockDim.x / 32; w++) t += warp_sums[w];
        part[blockIdx.x] = t;
    }
}

__device__ __forceinline__ unsigned smem_u32(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

// cp.async (sm_80): 16 bytes global -> shared, L1 bypassed; groups.
__device__ __forceinline__ void cp_async16(void *dst, const void *src)
{
#if ASY_SM80
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(smem_u32(dst)), "l"(src) : "memory");
#endif
}
__device__ __forceinline__ void cp_commit()
{
#if ASY_SM80
    asm volatile("cp.async.commit_group;" ::: "memory");
#endif
}
template <int N> __device__ __forceinline__ void cp_wait()
{
#if ASY_SM80
    asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
#endif
}

// mbarrier (sm_90 for expect_tx and the bulk copies).
__device__ __forceinline__ void mbar_init(uint64_t *bar, unsigned count)
{
#if ASY_SM80
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(bar)), "r"(count) : "memory");
#endif
}
// Make initialised barriers visible to the async proxy (the copy engine).
__device__ __forceinline__ void mbar_fence_init()
{
#if ASY_SM90
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#endif
}
__device__ __forceinline__ void mbar_expect_tx(uint64_t *bar, unsigned bytes)
{
#if ASY_SM90
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_u32(bar)), "r"(bytes) : "memory");
#endif
}
__device__ __forceinline__ void mbar_wait(uint64_t *bar, unsigned parity)
{
#if ASY_SM90
    unsigned ok = 0;
    do {
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                     : "=r"(ok)
                     : "r"(smem_u32(bar)), "r"(parity)
                     : "memory");
    } while (!ok);
#endif
}
// Order this thread's generic-proxy accesses to shared memory before later
// async-proxy ones (a bulk copy into a stage just read, a TMA store of
// what threads wrote).
__device__ __forceinline__ void fence_proxy_async()
{
#if ASY_SM90
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
}
// TMA 1D: `bytes` (a multiple of 16, both addresses 16-aligned) from global
// to this block's shared memory, completion counted in bytes on bar.
__device__ __forceinline__ void bulk_g2s(void *dst, const void *src, unsigned bytes, uint64_t *bar)
{
#if ASY_SM90
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                     smem_u32(dst)),
                 "l"(src), "r"(bytes), "r"(smem_u32(bar))
                 : "memory");
#endif
}

// Experiments, one a file's function (async.cu, async_copy.cu, async_tma.cu).
cupat_status exp_barrier(Run &X);
cupat_status exp_warpspec(Run &X);
cupat_status exp_memcpy(Run &X);
cupat_status exp_align(Run &X);
cupat_status exp_entangle(Run &X);
cupat_status exp_pipeline(Run &X);
cupat_status exp_bulk(Run &X);
cupat_status exp_swizzle(Run &X);
cupat_status exp_tensor(Run &X);

// The baselines the bulk experiment shares with the pipeline one
// (async_copy.cu): direct loads, register staging, raw cp.async (4 stages).
enum { BASE_DIRECT, BASE_REGSTAGE, BASE_CPASYNC4 };
cupat_status baseline_row(Run &X, Stream &S, int which);

} // namespace cupat_async
