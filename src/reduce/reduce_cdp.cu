// SPDX-License-Identifier: Apache-2.0
// reduce_cdp.cu — PCCP 3.6: recursive reduction with dynamic parallelism.
// Built as relocatable device code (-rdc) and device-linked with cudadevrt
// inside libcupat (see CMakeLists.txt: src/*/*_cdp.cu).
//
// CUDA 12+ on sm_90 has only CDP2: device-side cudaDeviceSynchronize() is
// gone. The book's kernels are written here in the form CDP2 allows:
//  - gpuRecursiveReduce: the parent never used the child's result (the child
//    writes it), so its cudaDeviceSynchronize() was pure cost; the block
//    barrier before the launch stays (it makes the block's adds visible to
//    the child), the child goes to the fire-and-forget stream.
//  - gpuRecursiveReduceNosync: the book launches right after thread 0's own
//    add, with no barrier; the child then reads other threads' adds with
//    nothing ordering them (a race under CDP1 too). Here the child is a tail
//    launch: it starts when the whole parent grid has finished, so every add
//    is visible without a barrier.
//  - gpuRecursiveReduce2: one launch per level by block 0 thread 0, for the
//    whole grid; each level needs the previous level complete: a tail launch.
// A parent grid completes only when all its children have, so the final
// pass queued after the top-level launch sees every partial.
#include "reduce_ops.cuh"

extern "C" {
#include "internal.h"
#include "reduce_priv.h"
}

using namespace cupat_red;

namespace {

constexpr unsigned SEG = 512; // elements per top-level block (the book's block)
enum { M_SYNC = 0, M_NOSYNC = 1 };

__device__ __forceinline__ void note_launch(int *err)
{
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) atomicExch(err, (int)e);
}

// gpuRecursiveReduce / gpuRecursiveReduceNosync. A top-level block folds
// its SEG input elements into SEG/2 work values (reading the const input;
// the book folds in place); each child halves the segment again with half
// the threads, until two values remain.
template <class R, typename T, int MODE>
__global__ void k_cdp_rec(const T *__restrict__ x, size_t n, size_t xbase,
                          typename R::Acc *idata_base, typename R::Acc *odata_base, unsigned isize,
                          int *err)
{
    typedef typename R::Acc Acc;
    const unsigned tid = threadIdx.x;
    Acc *idata = idata_base + (size_t)blockIdx.x * (isize / 2); // a child has blockIdx 0
    Acc *odata = odata_base + blockIdx.x;
    const size_t seg = xbase + (size_t)blockIdx.x * isize;
    if (isize == 2) {
        if (tid == 0)
            *odata = x ? R::comb(ld<R>(x, n, seg), ld<R>(x, n, seg + 1)) : R::comb(idata[0], idata[1]);
        return;
    }
    const unsigned istride = isize >> 1;
    if (tid < istride)
        idata[tid] = x ? R::comb(ld<R>(x, n, seg + tid), ld<R>(x, n, seg + tid + istride))
                       : R::comb(idata[tid], idata[tid + istride]);
    if (MODE == M_SYNC) {
        __syncthreads();
        if (tid == 0) {
            k_cdp_rec<R, T, MODE><<<1, istride, 0, cudaStreamFireAndForget>>>(
                nullptr, 0, 0, idata, odata, istride, err);
            note_launch(err);
        }
        __syncthreads(); // the book's second barrier (after its device sync)
    } else {
        if (tid == 0) {
            k_cdp_rec<R, T, MODE><<<1, istride, 0, cudaStreamTailLaunch>>>(nullptr, 0, 0, idata,
                                                                           odata, istride, err);
            note_launch(err);
        }
    }
}

// gpuRecursiveReduce2: every level is one grid of all segments with half the
// threads of the level before; block 0's thread 0 launches the next level.
template <class R, typename T>
__global__ void k_cdp_rec2(const T *__restrict__ x, size_t n, typename R::Acc *work,
                           typename R::Acc *odata, unsigned istride, int *err)
{
    typedef typename R::Acc Acc;
    Acc *idata = work + (size_t)blockIdx.x * (SEG / 2);
    if (x) { // top level: fold SEG input elements into SEG/2
        const size_t seg = (size_t)blockIdx.x * SEG;
        idata[threadIdx.x] = R::comb(ld<R>(x, n, seg + threadIdx.x), ld<R>(x, n, seg + threadIdx.x + istride));
    } else if (istride == 1) {
        if (threadIdx.x == 0) odata[blockIdx.x] = R::comb(idata[0], idata[1]);
        return;
    } else {
        idata[threadIdx.x] = R::comb(idata[threadIdx.x], idata[threadIdx.x + istride]);
    }
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        // Each level halves the values of every segment: SEG/2, SEG/4, ..., 2.
        unsigned next = istride / 2;
        k_cdp_rec2<R, T><<<gridDim.x, next, 0, cudaStreamTailLaunch>>>(
            nullptr, 0, work, odata, next, err);
        note_launch(err);
    }
}

size_t cdiv(size_t a, size_t b) { return (a + b - 1) / b; }

// Launch plan. Under CDP2 a device-side launch holds a slot of the device
// runtime's launch pool (cudaLimitDevRuntimePendingLaunchCount, default 2048)
// until the grid it launched has completed, children included; a launch that
// finds the pool full fails with cudaErrorLaunchPendingCountExceeded. One
// top-level block of k_cdp_rec makes a chain of LEVELS child grids (isize
// 256, 128, ..., 2), and in the worst case all of them hold slots at once, so
// a host launch of `chunk` blocks needs up to chunk * LEVELS slots (tail
// launches of cdp_nosync: the same bound; cdp_recursive2: one grid per level,
// at most two alive). Chunks run one after the other in stream order, so the
// pool needs plan = chunk * LEVELS + slack, whatever n is. Before the first
// launch we raise the limit to the plan when it is lower: a per-device
// setting (the process's primary context), it stays raised for every later
// user of the device in this process, and it reserves device memory for the
// pool (a few tens of MB).
constexpr unsigned LEVELS = 8; // log2(SEG) - 1 child grids per top-level block
constexpr size_t CHUNK_SYNC = 1024;
constexpr size_t CHUNK_NOSYNC = 128;
constexpr size_t PLAN_SLACK = 256; // device launches of other work in this process

size_t chunk_of(int rung) { return rung == RR_CDP_NOSYNC ? CHUNK_NOSYNC : CHUNK_SYNC; }

cupat_status ensure_launch_pool(cupat_ctx *ctx, size_t chunk)
{
    const size_t plan = chunk * (LEVELS + 1) + PLAN_SLACK;
    size_t have = 0;
    CUPAT_CUDA_TRY(ctx, cudaDeviceGetLimit(&have, cudaLimitDevRuntimePendingLaunchCount));
    if (have >= plan) return CUPAT_SUCCESS;
    CUPAT_CUDA_TRY(ctx, cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, plan));
    CUPAT_CUDA_TRY(ctx, cudaDeviceGetLimit(&have, cudaLimitDevRuntimePendingLaunchCount));
    if (have < plan)
        return cupat__fail(ctx, CUPAT_ERROR_CUDA,
                           "cdp: cudaLimitDevRuntimePendingLaunchCount is %zu after asking for %zu",
                           have, plan);
    return CUPAT_SUCCESS;
}

template <typename T, int OP>
cupat_status launch_t(cupat_ctx *ctx, int rung, size_t n, const T *x, void *work, void *partials,
                      int *err)
{
    typedef Red<T, OP> R;
    typedef typename R::Acc Acc;
    const size_t blocks = cdiv(n, SEG);
    Acc *w = (Acc *)work, *p = (Acc *)partials;
    if (n > CUPAT_REDUCE_CDP_MAX_N)
        return cupat__fail(ctx, CUPAT_ERROR_NOT_SUPPORTED,
                           "cupat_reduce: n = %zu: the dynamic-parallelism rungs take n <= 2^24 "
                           "(%zu); they make ~n/512 x 8 device launches",
                           n, (size_t)CUPAT_REDUCE_CDP_MAX_N);
    CUPAT_TRY(ensure_launch_pool(ctx, rung == RR_CDP_RECURSIVE2 ? 1 : chunk_of(rung)));
    if (rung == RR_CDP_RECURSIVE2) {
        if (blocks > 0x7fffffffu)
            return cupat__fail(ctx, CUPAT_ERROR_SIZE, "cdp_recursive2: n = %zu is too large", n);
        k_cdp_rec2<R, T><<<(unsigned)blocks, SEG / 2, 0, ctx->stream>>>(x, n, w, p, SEG / 2, err);
        return cupat__launched(ctx, "k_cdp_rec2 (gpuRecursiveReduce2)");
    }
    const size_t chunk = chunk_of(rung);
    for (size_t b0 = 0; b0 < blocks; b0 += chunk) {
        unsigned nb = (unsigned)(blocks - b0 < chunk ? blocks - b0 : chunk);
        // Chunks run in stream order and each finishes with its children,
        // so they can share the work buffer.
        if (rung == RR_CDP_NOSYNC) {
            k_cdp_rec<R, T, M_NOSYNC><<<nb, SEG, 0, ctx->stream>>>(x, n, b0 * SEG, w, p + b0, SEG, err);
            CUPAT_TRY(cupat__launched(ctx, "k_cdp_rec (gpuRecursiveReduceNosync)"));
        } else {
            k_cdp_rec<R, T, M_SYNC><<<nb, SEG, 0, ctx->stream>>>(x, n, b0 * SEG, w, p + b0, SEG, err);
            CUPAT_TRY(cupat__launched(ctx, "k_cdp_rec (gpuRecursiveReduce)"));
        }
    }
    return CUPAT_SUCCESS;
}

template <typename T>
cupat_status launch_op(cupat_ctx *ctx, int rung, cupat_op op, size_t n, const void *x, void *work,
                       void *partials, int *err)
{
    const T *xt = (const T *)x;
    switch (op) {
    case CUPAT_OP_SUM: return launch_t<T, OP_SUM>(ctx, rung, n, xt, work, partials, err);
    case CUPAT_OP_MIN: return launch_t<T, OP_MIN>(ctx, rung, n, xt, work, partials, err);
    case CUPAT_OP_MAX: return launch_t<T, OP_MAX>(ctx, rung, n, xt, work, partials, err);
    case CUPAT_OP_ARGMIN: return launch_t<T, OP_ARGMIN>(ctx, rung, n, xt, work, partials, err);
    case CUPAT_OP_ARGMAX: return launch_t<T, OP_ARGMAX>(ctx, rung, n, xt, work, partials, err);
    }
    return cupat__fail(ctx, CUPAT_ERROR_INTERNAL, "cdp: op %d", (int)op);
}

template <typename T> size_t acc_size(cupat_op op)
{
    switch (op) {
    case CUPAT_OP_SUM: return sizeof(typename Red<T, OP_SUM>::Acc);
    case CUPAT_OP_MIN: return sizeof(typename Red<T, OP_MIN>::Acc);
    case CUPAT_OP_MAX: return sizeof(typename Red<T, OP_MAX>::Acc);
    case CUPAT_OP_ARGMIN: return sizeof(typename Red<T, OP_ARGMIN>::Acc);
    case CUPAT_OP_ARGMAX: return sizeof(typename Red<T, OP_ARGMAX>::Acc);
    }
    return 16;
}

} // namespace

extern "C" size_t cupat__cdp_partials(size_t n) { return cdiv(n, SEG); }

extern "C" size_t cupat__cdp_acc_bytes(cupat_type t, cupat_op op)
{
    switch (t) {
    case CUPAT_F32: return acc_size<float>(op);
    case CUPAT_F64: return acc_size<double>(op);
    case CUPAT_I32: return acc_size<int32_t>(op);
    case CUPAT_U32: return acc_size<uint32_t>(op);
    case CUPAT_I64: return acc_size<int64_t>(op);
    case CUPAT_U64: return acc_size<uint64_t>(op);
    }
    return 16;
}

// Work values: SEG/2 per top-level block of one chunk (recursive, nosync;
// chunks run one after the other), of the whole grid (recursive2).
extern "C" size_t cupat__cdp_work_bytes(int rung, cupat_type t, cupat_op op, size_t n)
{
    size_t blocks = cdiv(n, SEG);
    size_t chunk = rung == RR_CDP_RECURSIVE2 ? blocks : chunk_of(rung);
    if (blocks < chunk) chunk = blocks;
    return chunk * (SEG / 2) * cupat__cdp_acc_bytes(t, op);
}

extern "C" cupat_status cupat__cdp_launch(cupat_ctx *ctx, int rung, cupat_type t, cupat_op op,
                                          size_t n, const void *x, void *work, void *partials,
                                          int *err)
{
    if (n == 0) return CUPAT_SUCCESS;
    switch (t) {
    case CUPAT_F32: return launch_op<float>(ctx, rung, op, n, x, work, partials, err);
    case CUPAT_F64: return launch_op<double>(ctx, rung, op, n, x, work, partials, err);
    case CUPAT_I32: return launch_op<int32_t>(ctx, rung, op, n, x, work, partials, err);
    case CUPAT_U32: return launch_op<uint32_t>(ctx, rung, op, n, x, work, partials, err);
    case CUPAT_I64: return launch_op<int64_t>(ctx, rung, op, n, x, work, partials, err);
    case CUPAT_U64: return launch_op<uint64_t>(ctx, rung, op, n, x, work, partials, err);
    }
    return cupat__fail(ctx, CUPAT_ERROR_INTERNAL, "cdp: type %d", (int)t);
}
