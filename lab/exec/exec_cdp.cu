// SPDX-License-Identifier: Apache-2.0
// exec_cdp.cu — dynamic parallelism in `cupat lab exec` (PCCP 3.6, PMPP 21,
// Guide "CUDA Dynamic Parallelism"): PCCP's nestedHelloWorld with device
// printf, the nesting-depth and pending-launch limits, and Mandelbrot by
// Mariani-Silver subdivision against the flat kernel.
//
// Relocatable device code: lab/CMakeLists.txt builds lab/*/*_cdp.cu into its
// own shared library (libcupat_lab_cdp.so) with CUDA_SEPARABLE_COMPILATION,
// device-linked with cudadevrt there, so nothing else in the lab is compiled
// with -rdc. Shared, not static: libcupat.a already carries a device link
// with cudadevrt (src/*/*_cdp.cu), and one program can hold only one such
// link; the shared library keeps its own (symbols hidden, bound locally).
// So this file uses plain CUDA only, no libcupat: every entry point returns
// a cudaError_t and names the failing call in *what.
//
// CUDA 12+ has only CDP2: no cudaDeviceSynchronize() in device code. None of
// these parents needs a child's result, so every child goes to the
// fire-and-forget stream (cudaStreamFireAndForget): it may start at once,
// and the parent grid completes only when all its children have, so the
// host's stream synchronization after the top-level launch sees every
// level's work.
#include "exec/exec.h"
#include "exec/exec_work.h"

#include <cstdio>
#include <cuda_runtime.h>

#define CDP_API extern "C" __attribute__((visibility("default")))
#define CDP_TRY(call)                                                                                                  \
    do {                                                                                                               \
        const cudaError_t e_ = (call);                                                                                 \
        if (e_ != cudaSuccess) {                                                                                       \
            *what = #call;                                                                                             \
            return (int)e_;                                                                                            \
        }                                                                                                              \
    } while (0)
#define CDP_LAUNCHED(name)                                                                                             \
    do {                                                                                                               \
        const cudaError_t e_ = cudaGetLastError();                                                                     \
        if (e_ != cudaSuccess) {                                                                                       \
            *what = name;                                                                                              \
            return (int)e_;                                                                                            \
        }                                                                                                              \
    } while (0)

namespace {

__device__ __forceinline__ void note_err(int *slot)
{
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) atomicCAS(slot, 0, (int)e);
}

// ---- nestedHelloWorld (PCCP 3.6) -----------------------------------------------

// counts[depth] += 1 a thread; counts[LAB_CDP_MAX_DEPTH] the first failed launch.
__global__ void k_hello(int size, int depth, int print, int *counts)
{
    if (print) printf("Recursion=%d: Hello World from thread %d block %d\n", depth, (int)threadIdx.x, (int)blockIdx.x);
    atomicAdd(&counts[depth], 1);
    if (size == 1) return; // the book's stop
    const int nthreads = size >> 1;
    if (threadIdx.x == 0 && nthreads > 0 && depth + 1 < LAB_CDP_MAX_DEPTH) {
        k_hello<<<1, nthreads, 0, cudaStreamFireAndForget>>>(nthreads, depth + 1, print, counts);
        note_err(&counts[LAB_CDP_MAX_DEPTH]);
        if (print) printf("-------> nested execution depth: %d\n", depth + 1);
    }
}

// ---- nesting depth -----------------------------------------------------------------

// st[0]: deepest level that ran; st[1]: first failed launch.
__global__ void k_depth(int depth, int max, int *st)
{
    atomicMax(&st[0], depth);
    if (depth < max) {
        k_depth<<<1, 1, 0, cudaStreamFireAndForget>>>(depth + 1, max, st);
        note_err(&st[1]);
    }
}

// ---- pending launches -----------------------------------------------------------------

__device__ __forceinline__ unsigned long long gtimer()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// st: attempted, launched, failed, ran, first error
__global__ void k_pend_child(unsigned spin_ns, unsigned *st)
{
    const unsigned long long t0 = gtimer();
    while (gtimer() - t0 < spin_ns) {
    }
    atomicAdd(&st[3], 1u);
}

// Each thread launches one child. A device-side launch is compiled as
// cudaGetParameterBufferV2, stores of the arguments into that buffer, then
// cudaLaunchDeviceV2 (the store is skipped only for a NULL buffer). Past
// cudaLimitDevRuntimePendingLaunchCount the runtime hands every failing
// launch the same scratch buffer, outside any allocation memcheck knows
// (H100, CUDA 13.0: 4,908 errors, "Invalid __global__ write of size 4" on
// the launch line, every printed one at the same address from different
// threads: the 4-byte spin_ns), and the launch returns
// cudaErrorLaunchPendingCountExceeded. Nothing of ours is written out of
// bounds, but memcheck stops the kernel there; so the sanitizer tests
// (--small) keep the launches under the limit, and only the lab and the
// full test go past it.
__global__ void k_pend_parent(unsigned spin_ns, unsigned *st)
{
    atomicAdd(&st[0], 1u);
    k_pend_child<<<1, 1, 0, cudaStreamFireAndForget>>>(spin_ns, st);
    const cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess) {
        atomicAdd(&st[1], 1u);
    } else {
        atomicAdd(&st[2], 1u);
        atomicCAS(&st[4], 0u, (unsigned)e);
    }
}

// ---- Mandelbrot ------------------------------------------------------------------------

__global__ void k_mandel_flat(int *dwell, lab_exec_mandel_geom g)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < g.size && y < g.size) dwell[(size_t)y * g.size + x] = exec_dwell(x, y, g.x0, g.y0, g.dx, g.dy, g.max_dwell);
}

constexpr int MS_THREADS = 256;

// Mariani-Silver: block (bx, by) of this grid owns the d x d square at
// (x0 + bx d, y0 + by d). Its border's common dwell fills it; a border of
// different dwells splits it into SUBDIV x SUBDIV children (one child grid,
// launched by thread 0) while they stay >= MIN_SIZE, else every pixel.
// st[0]: child grids launched; st[1]: first failed launch.
__global__ void __launch_bounds__(MS_THREADS) k_mandel_ms(int *dwell, lab_exec_mandel_geom g, int x0, int y0, int d,
                                                          int depth, unsigned *st)
{
    __shared__ int comm_s[MS_THREADS];
    x0 += blockIdx.x * d;
    y0 += blockIdx.y * d;
    const int t = threadIdx.x;
    int comm = EXEC_DWELL_NONE;
    for (int i = t; i < 4 * d; i += MS_THREADS) {
        int px, py;
        exec_border_pixel(i, x0, y0, d, &px, &py);
        comm = exec_same_dwell(comm, exec_dwell(px, py, g.x0, g.y0, g.dx, g.dy, g.max_dwell));
    }
    comm_s[t] = comm;
    __syncthreads();
    for (int h = MS_THREADS / 2; h > 0; h /= 2) { // same_dwell is associative and commutative
        if (t < h) comm_s[t] = exec_same_dwell(comm_s[t], comm_s[t + h]);
        __syncthreads();
    }
    comm = comm_s[0];
    if (comm >= 0) {
        for (int i = t; i < d * d; i += MS_THREADS)
            dwell[(size_t)(y0 + i / d) * g.size + x0 + i % d] = comm;
    } else if (depth + 1 < LAB_MS_MAX_DEPTH && d / LAB_MS_SUBDIV >= LAB_MS_MIN_SIZE) {
        if (t == 0) {
            k_mandel_ms<<<dim3(LAB_MS_SUBDIV, LAB_MS_SUBDIV), MS_THREADS, 0, cudaStreamFireAndForget>>>(
                dwell, g, x0, y0, d / LAB_MS_SUBDIV, depth + 1, st);
            const cudaError_t e = cudaGetLastError();
            if (e == cudaSuccess) atomicAdd(&st[0], 1u);
            else atomicCAS(&st[1], 0u, (unsigned)e);
        }
    } else {
        for (int i = t; i < d * d; i += MS_THREADS) {
            const int px = x0 + i % d, py = y0 + i / d;
            dwell[(size_t)py * g.size + px] = exec_dwell(px, py, g.x0, g.y0, g.dx, g.dy, g.max_dwell);
        }
    }
}

} // namespace

CDP_API int lab_exec_cdp_k_hello(void *stream, int blocks, int threads, int print, int *d_counts, const char **what)
{
    const cudaStream_t st = (cudaStream_t)stream;
    CDP_TRY(cudaMemsetAsync(d_counts, 0, sizeof(int) * (LAB_CDP_MAX_DEPTH + 1), st));
    k_hello<<<blocks, threads, 0, st>>>(threads, 0, print, d_counts);
    CDP_LAUNCHED("k_hello");
    CDP_TRY(cudaStreamSynchronize(st));
    return 0;
}

CDP_API int lab_exec_cdp_k_depth(void *stream, int depth, int *d_state, const char **what)
{
    const cudaStream_t st = (cudaStream_t)stream;
    const int init[2] = {-1, 0};
    CDP_TRY(cudaMemcpyAsync(d_state, init, sizeof init, cudaMemcpyHostToDevice, st));
    k_depth<<<1, 1, 0, st>>>(0, depth, d_state);
    CDP_LAUNCHED("k_depth");
    // A launch past the limit may also surface here, as the grid's error.
    const cudaError_t e = cudaStreamSynchronize(st);
    if (e != cudaSuccess) {
        cudaGetLastError();
        int s[2];
        if (cudaMemcpy(s, d_state, sizeof s, cudaMemcpyDeviceToHost) == cudaSuccess && s[1] == 0) {
            s[1] = (int)e;
            cudaMemcpy(d_state, s, sizeof s, cudaMemcpyHostToDevice);
        }
    }
    return 0;
}

CDP_API int lab_exec_cdp_k_pending(void *stream, size_t limit, unsigned parents, unsigned spin_ns, unsigned *d_state,
                                   size_t *limit_read, const char **what)
{
    const cudaStream_t st = (cudaStream_t)stream;
    size_t old = 0;
    CDP_TRY(cudaDeviceGetLimit(&old, cudaLimitDevRuntimePendingLaunchCount));
    if (limit) CDP_TRY(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, limit));
    int r = 0;
    cudaError_t e = cudaDeviceGetLimit(limit_read, cudaLimitDevRuntimePendingLaunchCount);
    if (e) *what = "cudaDeviceGetLimit";
    if (!e && (e = cudaMemsetAsync(d_state, 0, 5 * sizeof(unsigned), st))) *what = "cudaMemsetAsync";
    if (!e) {
        k_pend_parent<<<parents, 128, 0, st>>>(spin_ns, d_state);
        if ((e = cudaGetLastError())) *what = "k_pend_parent";
    }
    if (!e && (e = cudaStreamSynchronize(st))) *what = "cudaStreamSynchronize (pending launches)";
    r = (int)e;
    if (limit) {
        const cudaError_t e2 = cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, old);
        if (!r && e2) {
            *what = "cudaDeviceSetLimit (restore)";
            r = (int)e2;
        }
    }
    return r;
}

CDP_API int lab_exec_cdp_k_mandel_prepare(const char **what)
{
    // Every square of a level may split at once: room for that many pending
    // child grids (the default is 2,048).
    size_t cur = 0;
    CDP_TRY(cudaDeviceGetLimit(&cur, cudaLimitDevRuntimePendingLaunchCount));
    if (cur < 32768) CDP_TRY(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, 32768));
    return 0;
}

CDP_API int lab_exec_cdp_k_mandel(void *stream, int method, const lab_exec_mandel_geom *g, int *d_dwell,
                                  unsigned *d_state, const char **what)
{
    const cudaStream_t st = (cudaStream_t)stream;
    const int S = g->size;
    if (method == LAB_MANDEL_FLAT) {
        k_mandel_flat<<<dim3((S + 15) / 16, (S + 15) / 16), dim3(16, 16), 0, st>>>(d_dwell, *g);
        CDP_LAUNCHED("k_mandel_flat");
        return 0;
    }
    CDP_TRY(cudaMemsetAsync(d_state, 0, 2 * sizeof(unsigned), st));
    k_mandel_ms<<<dim3(LAB_MS_INIT_SUBDIV, LAB_MS_INIT_SUBDIV), MS_THREADS, 0, st>>>(d_dwell, *g, 0, 0,
                                                                                     S / LAB_MS_INIT_SUBDIV, 0, d_state);
    CDP_LAUNCHED("k_mandel_ms");
    return 0;
}
