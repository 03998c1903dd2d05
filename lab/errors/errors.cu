// SPDX-License-Identifier: Apache-2.0
// errors.cu — the kernels of `cupat lab errors`, each classic bug beside its
// fix (lecture 10 "Common CUDA Programming Errors"; PCCP 5.1; PMPP 3.1 and
// 5 exercises 3, 10; CUDA Guide 7.2). The bugs are written as the books
// write them, on purpose. Every buffer is the case's own, allocated with
// cudaMalloc at its exact size (so memcheck and initcheck know its bounds),
// and no kernel waits in a loop on another thread, so none can hang except
// by the barrier rule the divergent case breaks (which the callers run in a
// child process).
#include "errors/errors.h"

#include "internal.h"
#include "lab_timing.cuh"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

namespace {

// ---- lecture 10: A[i] += A[i-1] ------------------------------------------

// As the lecture writes it (with i >= 1: the slide's `i > 1` also skips
// A[1], a second bug). Thread i reads A[i-1] while thread i-1 may already
// have written it: within a warp the load comes first, but a block that runs
// after its left neighbour's block reads the updated value.
__global__ void k_rw_inplace(int *A, int len)
{
    const int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i >= 1 && i < len) A[i] += A[i - 1];
}

// Double buffering: read one array, write another.
__global__ void k_rw_double(const int *in, int *out, int len)
{
    const int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < len) out[i] = i >= 1 ? in[i] + in[i - 1] : in[0];
}

// ---- a missing barrier (PMPP ex. 5.3) -------------------------------------

// Reverse a block's 1024 values through shared memory. Without the barrier
// a warp reads s[1023 - t] before the warp that owns it has written it.
template <bool SYNC> __global__ void __launch_bounds__(1024) k_reverse(const float *in, float *out)
{
    __shared__ float s[1024];
    const unsigned t = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * 1024 + t;
    s[t] = in[i];
    if (SYNC) __syncthreads();
    out[i] = s[1023 - t];
}

// ---- PMPP exercise 5.10: BlockTranspose -----------------------------------

// The exercise's kernel. The race is in shared memory: a thread reads
// blockA[tx][ty], which thread (ty, tx) writes; with BW x BW <= 32 threads
// the block is one warp, whose store completes before its load (so it works
// in practice, though only __syncwarp would promise it under independent
// thread scheduling); past that, other warps may not have stored yet. The
// book's answer key (a temporary array in global memory) misses it: each
// thread writes only the global element it read itself; the fix is a
// __syncthreads() between the store and the load.
template <int BW, bool SYNC> __global__ void k_block_transpose(float *A_elements, int A_width, int A_height)
{
    __shared__ float blockA[BW][BW];
    int baseIdx = blockIdx.x * BW + threadIdx.x;
    baseIdx += (blockIdx.y * BW + threadIdx.y) * A_width;
    blockA[threadIdx.y][threadIdx.x] = A_elements[baseIdx];
    if (SYNC) __syncthreads();
    A_elements[baseIdx] = blockA[threadIdx.x][threadIdx.y];
}

// ---- PCCP 5.1: __syncthreads in divergent code -----------------------------

// The lower half of the block waits at a barrier the upper half never
// reaches; the upper half reads the lower half's values without waiting.
// (Before Volta this could hang; since then a barrier is per thread and
// counts threads that exited as arrived, so it returns, but the result is a
// race. compute-sanitizer synccheck reports a divergent barrier only where
// the architecture does not allow one: on the H100 it reported 0 errors for
// this kernel, so racecheck is the tool that finds it there.)
template <bool FIX> __global__ void __launch_bounds__(256) k_divergent(const float *in, float *out)
{
    __shared__ float s[256];
    const unsigned t = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * 256 + t;
    s[t] = in[i];
    if (FIX) __syncthreads();
    else if (t < 128) __syncthreads();
    out[i] = s[255 - t];
}

// ---- out of bounds --------------------------------------------------------

__global__ void k_scale_unguarded(const float *in, float *out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    (void)n; // the forgotten guard
    out[i] = 2.0f * in[i];
}

__global__ void k_scale(const float *in, float *out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2.0f * in[i];
}

// ---- bytes against elements -------------------------------------------------

__global__ void k_add_one(const float *in, float *out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] + 1.0f;
}

// ---- an invalid launch configuration ----------------------------------------

__global__ void k_index(int *out)
{
    const int per = blockDim.x * blockDim.y * blockDim.z;
    const int t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    out[blockIdx.x * per + t] = blockIdx.x * per + t;
}

// ---- too many resources requested ---------------------------------------------

// LAB_ERR_HEAVY_REGS values live in registers at once: well over 64 a thread,
// so 1024 threads need more than the 65,536 registers an SM (and a block)
// has. The same body under __launch_bounds__(1024) is held to 64 registers
// (the compiler spills the rest to local memory) and launches.
__device__ __forceinline__ void heavy_body(const float *in, float *out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    constexpr int R = LAB_ERR_HEAVY_REGS;
    float r[R];
#pragma unroll
    for (int j = 0; j < R; j++) r[j] = in[(size_t)j * n + i];
#pragma unroll
    for (int k = 0; k < 4; k++)
#pragma unroll
        for (int j = 0; j < R; j++) r[j] = fmaf(r[j], r[(j + 7) % R], r[(j + 13) % R]) * 0.5f;
    float s = 0.0f;
#pragma unroll
    for (int j = 0; j < R; j++) s += r[j];
    out[i] = s;
}

__global__ void k_heavy(const float *in, float *out, int n)
{
    heavy_body(in, out, n);
}

__global__ void __launch_bounds__(1024) k_heavy_bounded(const float *in, float *out, int n)
{
    heavy_body(in, out, n);
}

// ---- asynchronous error reporting -----------------------------------------------

__global__ void k_write_index(int *p, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = i;
}

// ---- host side -------------------------------------------------------------------

void note(lab_err_result *r, cudaError_t e)
{
    r->error = (int)e;
    snprintf(r->error_name, sizeof r->error_name, "%s", e ? cudaGetErrorName(e) : "");
}

cupat_status unexpected(cupat_ctx *ctx, lab_err_result *r, cudaError_t e, const char *what)
{
    note(r, e);
    return cupat__fail(ctx, CUPAT_ERROR_CUDA, "lab errors: %s: %s (%s)", what, cudaGetErrorString(e),
                       cudaGetErrorName(e));
}

uint64_t mix(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

using cupat_lab::Bufs;
using cupat_lab::copy;
using cupat_lab::fill;

#define CU(call)                                                                                                       \
    do {                                                                                                               \
        const cudaError_t e_ = (call);                                                                                 \
        if (e_ != cudaSuccess) return unexpected(ctx, r, e_, #call);                                                   \
    } while (0)

cupat_status run_rw(cupat_ctx *ctx, int fixed, lab_err_result *r)
{
    const int n = 1 << 20;
    int32_t *h = (int32_t *)malloc(n * sizeof *h), *e = (int32_t *)malloc(n * sizeof *e), *g = (int32_t *)malloc(n * sizeof *g);
    cupat_status s = CUPAT_SUCCESS;
    Bufs b;
    int *da = nullptr, *db = nullptr;
    if (!h || !e || !g) s = cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY, "lab errors: out of host memory");
    cudaError_t err = cudaSuccess;
    if (!s) {
        for (int i = 0; i < n; i++) h[i] = (int32_t)(mix((uint64_t)i) % 1000);
        lab_errors_rw_expected(h, n, e);
        err = b.alloc((void **)&da, n * sizeof(int));
        if (!err) err = copy(ctx->stream, da, h, n * sizeof(int));
        if (!err && fixed) err = b.alloc((void **)&db, n * sizeof(int));
        if (!err) {
            if (fixed) k_rw_double<<<n / 256, 256, 0, ctx->stream>>>(da, db, n);
            else k_rw_inplace<<<n / 256, 256, 0, ctx->stream>>>(da, n);
            err = cudaGetLastError();
        }
        if (!err) err = copy(ctx->stream, g, fixed ? db : da, n * sizeof(int));
        if (err) s = unexpected(ctx, r, err, "rw-race");
    }
    if (!s) {
        r->n = n;
        size_t first = 0;
        for (int i = 0; i < n; i++)
            if (g[i] != e[i] && r->wrong++ == 0) first = (size_t)i;
        if (r->wrong)
            snprintf(r->detail, sizeof r->detail, "%zu of %d wrong; first A[%zu] = %d, intended %d + %d = %d", r->wrong, n,
                     first, g[first], h[first], h[first - (first > 0)], e[first]);
        else snprintf(r->detail, sizeof r->detail, "all %d right", n);
    }
    free(h), free(e), free(g);
    return s;
}

// The reverse (missing barrier) and divergent-barrier cases share their shape.
cupat_status run_reverse(cupat_ctx *ctx, int c, int fixed, lab_err_result *r)
{
    const int block = c == LAB_ERR_MISSING_BARRIER ? 1024 : 256, blocks = 1024, n = block * blocks;
    float *h = (float *)malloc(n * sizeof *h), *g = (float *)malloc(n * sizeof *g);
    cupat_status s = h && g ? CUPAT_SUCCESS : cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY, "lab errors: out of host memory");
    Bufs b;
    float *din = nullptr, *dout = nullptr;
    if (!s) {
        for (int i = 0; i < n; i++) h[i] = (float)(mix((uint64_t)i + 77) % 1000003);
        cudaError_t err = b.alloc((void **)&din, n * sizeof(float));
        if (!err) err = b.alloc((void **)&dout, n * sizeof(float));
        if (!err) err = copy(ctx->stream, din, h, n * sizeof(float));
        if (!err) {
            if (c == LAB_ERR_MISSING_BARRIER) {
                if (fixed) k_reverse<true><<<blocks, 1024, 0, ctx->stream>>>(din, dout);
                else k_reverse<false><<<blocks, 1024, 0, ctx->stream>>>(din, dout);
            } else {
                if (fixed) k_divergent<true><<<blocks, 256, 0, ctx->stream>>>(din, dout);
                else k_divergent<false><<<blocks, 256, 0, ctx->stream>>>(din, dout);
            }
            err = cudaGetLastError();
        }
        if (!err) err = copy(ctx->stream, g, dout, n * sizeof(float));
        if (err) s = unexpected(ctx, r, err, lab_errors_case(c)->name);
    }
    if (!s) {
        r->n = n;
        size_t first = 0, upper = 0;
        for (int i = 0; i < n; i++) {
            const int t = i % block;
            if (g[i] != h[i - t + block - 1 - t]) {
                if (r->wrong++ == 0) first = (size_t)i;
                upper += t >= block / 2;
            }
        }
        if (r->wrong)
            snprintf(r->detail, sizeof r->detail, "%zu of %d wrong (%zu in the upper half of a block); first out[%zu] = %g, intended %g",
                     r->wrong, n, upper, first, (double)g[first],
                     (double)h[first - first % block + block - 1 - first % block]);
        else snprintf(r->detail, sizeof r->detail, "all %d right", n);
    }
    free(h), free(g);
    return s;
}

cupat_status run_oob(cupat_ctx *ctx, int fixed, lab_err_result *r)
{
    // 1000 floats: 4000 bytes. The unguarded grid's 24 extra threads touch
    // bytes 4000..4095, inside the allocation's 256-byte-aligned slot, so
    // nothing else is hit: the classic silent overrun that only memcheck sees.
    const int n = 1000;
    float h[1000], g[1000];
    Bufs b;
    float *din = nullptr, *dout = nullptr;
    for (int i = 0; i < n; i++) h[i] = (float)i * 0.25f;
    CU(b.alloc((void **)&din, n * sizeof(float)));
    CU(b.alloc((void **)&dout, n * sizeof(float)));
    CU(copy(ctx->stream, din, h, n * sizeof(float)));
    const int blocks = (n + 255) / 256;
    if (fixed) k_scale<<<blocks, 256, 0, ctx->stream>>>(din, dout, n);
    else k_scale_unguarded<<<blocks, 256, 0, ctx->stream>>>(din, dout, n);
    CU(cudaGetLastError());
    CU(copy(ctx->stream, g, dout, n * sizeof(float)));
    r->n = n;
    for (int i = 0; i < n; i++) r->wrong += g[i] != 2.0f * h[i];
    snprintf(r->detail, sizeof r->detail, "%d threads for %d elements: %s; %zu of %d outputs wrong, no error reported", blocks * 256,
             n, fixed ? "the guard stops the extra 24" : "the extra 24 read and write past the end", r->wrong, n);
    return CUPAT_SUCCESS;
}

cupat_status run_bytes(cupat_ctx *ctx, int fixed, lab_err_result *r)
{
    static unsigned run; // fresh values each run: stale memory never matches them
    const int n = 1 << 16;
    const unsigned k = run++ % 1000;
    float *h = (float *)malloc(n * sizeof *h), *g = (float *)malloc(n * sizeof *g);
    cupat_status s = h && g ? CUPAT_SUCCESS : cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY, "lab errors: out of host memory");
    Bufs b;
    float *din = nullptr, *dout = nullptr;
    if (!s) {
        for (int i = 0; i < n; i++) h[i] = (float)(i + 1 + 7919 * (int)k);
        // The bug: the count is in elements, the copy wants bytes (the lecture's
        // cudaMemcpy(d, h, n); here on the lab's stream, with the same count).
        const size_t bytes = fixed ? n * sizeof(float) : (size_t)n;
        cudaError_t err = b.alloc((void **)&din, n * sizeof(float));
        if (!err) err = b.alloc((void **)&dout, n * sizeof(float));
        if (!err) err = copy(ctx->stream, din, h, bytes);
        if (!err) {
            k_add_one<<<n / 256, 256, 0, ctx->stream>>>(din, dout, n);
            err = cudaGetLastError();
        }
        if (!err) err = copy(ctx->stream, g, dout, n * sizeof(float));
        if (err) s = unexpected(ctx, r, err, "bytes");
    }
    if (!s) {
        r->n = n;
        for (int i = 0; i < n; i++) r->wrong += g[i] != h[i] + 1.0f;
        snprintf(r->detail, sizeof r->detail, "cudaMemcpy(d, h, %s) copied %zu of %d floats; %zu outputs wrong",
                 fixed ? "n * sizeof(float)" : "n", fixed ? (size_t)n : (size_t)n / 4, n, r->wrong);
    }
    free(h), free(g);
    return s;
}

cupat_status run_launch_config(cupat_ctx *ctx, int fixed, lab_err_result *r)
{
    const int n = 2048;
    static int g[2048];
    Bufs b;
    int *d = nullptr;
    CU(b.alloc((void **)&d, n * sizeof(int)));
    CU(fill(ctx->stream, d, 0xFF, n * sizeof(int))); // -1: "not written"
    const dim3 blk = fixed ? dim3(32, 16, 2) : dim3(32, 32, 2);
    k_index<<<fixed ? 2 : 1, blk, 0, ctx->stream>>>(d);
    // A configuration error is reported here, at once, and is not sticky. The
    // runtime names it cudaErrorInvalidConfiguration in the books and older
    // toolkits; CUDA 13.0 (driver 580, H100) returned cudaErrorInvalidValue
    // ("invalid argument") for this 2048-thread block. Either one is the bug's.
    const cudaError_t le = cudaGetLastError();
    if (le != cudaSuccess && (fixed || !lab_errors_is_config_error((int)le))) return unexpected(ctx, r, le, "k_index launch");
    note(r, le);
    CU(copy(ctx->stream, g, d, n * sizeof(int)));
    r->n = n;
    for (int i = 0; i < n; i++) r->wrong += g[i] != i;
    snprintf(r->detail, sizeof r->detail, "<<<%d, (%u, %u, %u)>>> = %u threads a block: launch %s; %zu of %d outputs unwritten",
             fixed ? 2 : 1, blk.x, blk.y, blk.z, blk.x * blk.y * blk.z, le ? cudaGetErrorString(le) : "ok", r->wrong, n);
    return CUPAT_SUCCESS;
}

cupat_status run_resources(cupat_ctx *ctx, int fixed, lab_err_result *r)
{
    const int n = 4096, R = LAB_ERR_HEAVY_REGS;
    float *h = (float *)malloc((size_t)R * n * sizeof *h), *g = (float *)malloc(n * sizeof *g);
    cupat_status s = h && g ? CUPAT_SUCCESS : cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY, "lab errors: out of host memory");
    Bufs b;
    float *din = nullptr, *dout = nullptr;
    cudaFuncAttributes fa, fb;
    cudaError_t err = cudaSuccess, le = cudaSuccess;
    if (!s) {
        for (size_t i = 0; i < (size_t)R * n; i++) h[i] = (float)(mix(i + 5) >> 40) * 0x1p-24f;
        err = cudaFuncGetAttributes(&fa, k_heavy);
        if (!err) err = cudaFuncGetAttributes(&fb, k_heavy_bounded);
        if (!err) err = b.alloc((void **)&din, (size_t)R * n * sizeof(float));
        if (!err) err = b.alloc((void **)&dout, n * sizeof(float));
        if (!err) err = copy(ctx->stream, din, h, (size_t)R * n * sizeof(float));
        if (!err) err = fill(ctx->stream, dout, 0xFF, n * sizeof(float));
        if (!err) {
            if (fixed) k_heavy_bounded<<<n / 1024, 1024, 0, ctx->stream>>>(din, dout, n);
            else k_heavy<<<n / 1024, 1024, 0, ctx->stream>>>(din, dout, n);
            le = cudaGetLastError(); // "too many resources requested for launch": at once, not sticky
            if (le != cudaSuccess && (fixed || le != cudaErrorLaunchOutOfResources)) err = le;
        }
        if (!err) err = copy(ctx->stream, g, dout, n * sizeof(float));
        if (err) s = unexpected(ctx, r, err, "resources");
    }
    if (!s) {
        note(r, le);
        r->n = n;
        for (int i = 0; i < n; i++) {
            const float x = lab_errors_heavy_expected(h, n, (size_t)i);
            r->wrong += memcmp(&g[i], &x, sizeof x) != 0; // bit for bit: same operations, same order
        }
        const cudaFuncAttributes &a = fixed ? fb : fa;
        snprintf(r->detail, sizeof r->detail,
                 "%s: %d registers a thread x 1024 threads = %ld registers a block (65536 an SM), %zu bytes spilled; "
                 "cudaFuncGetAttributes: at most %d threads; launch %s; %zu of %d outputs differ from the host",
                 fixed ? "__launch_bounds__(1024)" : "no launch bounds", a.numRegs, lab_errors_block_registers(a.numRegs, 1024),
                 a.localSizeBytes, a.maxThreadsPerBlock, le ? cudaGetErrorString(le) : "ok", r->wrong, n);
    }
    free(h), free(g);
    return s;
}

cupat_status run_async(cupat_ctx *ctx, int fixed, lab_err_result *r)
{
    const int n = 1 << 16;
    Bufs b;
    int *dst = nullptr, *other = nullptr;
    CU(b.alloc((void **)&other, n * sizeof(int)));
    if (fixed) CU(b.alloc((void **)&dst, n * sizeof(int)));
    // The bug: dst was never allocated (NULL). The launch is only queued, so
    // it reports success; the fault happens later, on the device.
    k_write_index<<<n / 256, 256, 0, ctx->stream>>>(dst, n);
    const cudaError_t e_launch = cudaGetLastError();
    const cudaError_t e_memset = cudaMemsetAsync(other, 0, n * sizeof(int), ctx->stream);
    const cudaError_t e_sync = cudaDeviceSynchronize();
    void *probe = nullptr;
    const cudaError_t e_after = cudaMalloc(&probe, 256);
    if (!e_after) cudaFree(probe);
    r->n = 1;
    r->wrong = e_launch != cudaSuccess; // the launch itself must not know yet
    note(r, e_sync);
    snprintf(r->detail, sizeof r->detail,
             "launch: %s; cudaGetLastError: %s; cudaMemsetAsync: %s; cudaDeviceSynchronize: %s; cudaMalloc after: %s%s",
             cudaGetErrorName(e_launch), cudaGetErrorName(e_launch), cudaGetErrorName(e_memset), cudaGetErrorName(e_sync),
             cudaGetErrorName(e_after), e_after == cudaErrorIllegalAddress ? " (sticky: the context is lost)" : "");
    if (fixed && (e_launch || e_memset || e_sync || e_after)) return unexpected(ctx, r, e_sync ? e_sync : e_launch, "async");
    if (!fixed && e_sync != cudaErrorIllegalAddress && e_sync != cudaSuccess && e_sync != cudaErrorLaunchFailure)
        return unexpected(ctx, r, e_sync, "async: cudaDeviceSynchronize");
    if (fixed) {
        static int g[1 << 16];
        CU(copy(ctx->stream, g, dst, n * sizeof(int)));
        r->n = n;
        for (int i = 0; i < n; i++) r->wrong += g[i] != i;
    }
    return CUPAT_SUCCESS;
}

template <int BW> cupat_status transpose_w(cupat_ctx *ctx, int fixed, lab_err_result *r)
{
    const int tiles = 40, w = BW * tiles, h = BW * tiles;
    const size_t n = (size_t)w * h;
    float *a = (float *)malloc(n * sizeof *a), *e = (float *)malloc(n * sizeof *e), *g = (float *)malloc(n * sizeof *g);
    cupat_status s = a && e && g ? CUPAT_SUCCESS : cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY, "lab errors: out of host memory");
    Bufs b;
    float *d = nullptr;
    if (!s) {
        for (size_t i = 0; i < n; i++) a[i] = (float)i;
        lab_errors_transpose_expected(a, w, h, BW, e);
        cudaError_t err = b.alloc((void **)&d, n * sizeof(float));
        if (!err) err = copy(ctx->stream, d, a, n * sizeof(float));
        if (!err) {
            const dim3 blk(BW, BW), grid(w / BW, h / BW);
            if (fixed) k_block_transpose<BW, true><<<grid, blk, 0, ctx->stream>>>(d, w, h);
            else k_block_transpose<BW, false><<<grid, blk, 0, ctx->stream>>>(d, w, h);
            err = cudaGetLastError();
        }
        if (!err) err = copy(ctx->stream, g, d, n * sizeof(float));
        if (err) s = unexpected(ctx, r, err, "block-transpose");
    }
    if (!s) {
        r->n = n;
        for (size_t i = 0; i < n; i++) r->wrong += g[i] != e[i];
        snprintf(r->detail, sizeof r->detail, "BLOCK_WIDTH %d (%d threads, %d warp%s): %zu of %zu elements wrong", BW, BW * BW,
                 (BW * BW + 31) / 32, (BW * BW + 31) / 32 > 1 ? "s" : "", r->wrong, n);
    }
    free(a), free(e), free(g);
    return s;
}

} // namespace

extern "C" cupat_status cupat__lab_err_transpose(cupat_ctx *ctx, int width, int fixed, lab_err_result *r)
{
    switch (width) {
    case 2: return transpose_w<2>(ctx, fixed, r);
    case 4: return transpose_w<4>(ctx, fixed, r);
    case 5: return transpose_w<5>(ctx, fixed, r);
    case 6: return transpose_w<6>(ctx, fixed, r);
    case 8: return transpose_w<8>(ctx, fixed, r);
    case 16: return transpose_w<16>(ctx, fixed, r);
    case 20: return transpose_w<20>(ctx, fixed, r);
    default: return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab errors: BLOCK_WIDTH = %d (2, 4, 5, 6, 8, 16 or 20)", width);
    }
}

extern "C" cupat_status cupat__lab_err_run(cupat_ctx *ctx, int c, int fixed, lab_err_result *r)
{
    cudaGetLastError(); // a previous case's non-sticky error is not this one's
    switch (c) {
    case LAB_ERR_RW_RACE: return run_rw(ctx, fixed, r);
    case LAB_ERR_MISSING_BARRIER:
    case LAB_ERR_DIVERGENT_BARRIER: return run_reverse(ctx, c, fixed, r);
    case LAB_ERR_BLOCK_TRANSPOSE: return transpose_w<16>(ctx, fixed, r);
    case LAB_ERR_OOB: return run_oob(ctx, fixed, r);
    case LAB_ERR_BYTES: return run_bytes(ctx, fixed, r);
    case LAB_ERR_LAUNCH_CONFIG: return run_launch_config(ctx, fixed, r);
    case LAB_ERR_RESOURCES: return run_resources(ctx, fixed, r);
    case LAB_ERR_ASYNC: return run_async(ctx, fixed, r);
    default: return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab errors: case = %d", c);
    }
}
