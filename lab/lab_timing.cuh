// SPDX-License-Identifier: Apache-2.0
// lab_timing.cuh — what the GPU labs share: the run state every experiment gets
// (RunBase) and its CUDA-call check (CK), the launch timer,
// `reps` + 1 launches of a callable, the first untimed, each timed with a
// pair of CUDA events on ctx's stream; the median; the device buffers of a run.
#pragma once

#include "internal.h"
#include "rows/lab_rows.h"

#include <stdlib.h>

namespace cupat_lab {

// What every experiment of a lab runs with: the context, launches a row, the
// table being filled (rows, *n of them), the timer's scratch (reps floats) and
// the stream. A lab's own Run derives from it and adds its fields.
struct RunBase {
    cupat_ctx *ctx;
    int reps;
    lab_row *rows;
    int *n;
    float *t; // reps times
    cudaStream_t s;
};

// A CUDA call inside an experiment (a Run named X in scope): a failure
// returns its status with the call's text.
#define CK(call)                                                                                                       \
    do {                                                                                                               \
        const cudaError_t e_ = (call);                                                                                 \
        if (e_ != cudaSuccess) return cupat__cuda(X.ctx, e_, #call);                                                   \
    } while (0)

// times[r] = the ms of launch r + 1. `launch` returns a cupat_status.
template <class Launch> cupat_status timed(cupat_ctx *ctx, int reps, float *times, Launch launch)
{
    cudaEvent_t *ev = (cudaEvent_t *)calloc(2 * (size_t)reps, sizeof *ev);
    if (!ev) return cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY, "lab: out of host memory");
    cupat_status s = CUPAT_SUCCESS;
    int made = 0;
    for (; made < 2 * reps && !s; made++) s = cupat__cuda(ctx, cudaEventCreate(&ev[made]), "cudaEventCreate");
    if (s) made--;
    for (int r = 0; r <= reps && !s; r++) {
        if (r) s = cupat__cuda(ctx, cudaEventRecord(ev[2 * (r - 1)], ctx->stream), "cudaEventRecord");
        if (!s) s = launch();
        if (!s && r) s = cupat__cuda(ctx, cudaEventRecord(ev[2 * (r - 1) + 1], ctx->stream), "cudaEventRecord");
    }
    if (!s) s = cupat__cuda(ctx, cudaStreamSynchronize(ctx->stream), "cudaStreamSynchronize");
    for (int r = 0; r < reps && !s; r++)
        s = cupat__cuda(ctx, cudaEventElapsedTime(&times[r], ev[2 * r], ev[2 * r + 1]), "cudaEventElapsedTime");
    for (int i = 0; i < made; i++) cudaEventDestroy(ev[i]);
    free(ev);
    return s;
}

// The median of n floats (sorts them in place).
inline double median(float *t, int n)
{
    for (int i = 1; i < n; i++) // insertion sort: n is a handful
        for (int j = i; j > 0 && t[j - 1] > t[j]; j--) {
            const float x = t[j];
            t[j] = t[j - 1];
            t[j - 1] = x;
        }
    return n % 2 ? t[n / 2] : 0.5 * ((double)t[n / 2 - 1] + t[n / 2]);
}

// Copies and sets on a lab's stream. ctx->stream is created
// cudaStreamNonBlocking (src/core/context.c): it does not synchronize with the
// legacy default stream, so a plain cudaMemcpy or cudaMemset is NOT ordered
// with the kernels a lab launches on ctx->stream. A read-back with cudaMemcpy
// can copy the output before the kernel has written it, and an upload or a
// cudaMemset can land after the kernel has read or written the buffer (on the
// H100 this showed as fixed cases "WRONG" and a fence litmus test counting the
// previous launch's violations). copy() queues the copy on the stream and
// waits for it (the host side may be read or reused at once); fill() is a
// stream-ordered cudaMemsetAsync.
inline cudaError_t copy(cudaStream_t s, void *dst, const void *src, size_t bytes)
{
    const cudaError_t e = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, s);
    return e != cudaSuccess ? e : cudaStreamSynchronize(s);
}
inline cudaError_t fill(cudaStream_t s, void *dst, int value, size_t bytes)
{
    return cudaMemsetAsync(dst, value, bytes, s);
}

// Device buffers of one run, cudaMalloc'd at their exact sizes (so memcheck
// and initcheck know the bounds) and freed together.
struct Bufs {
    void *p[8] = {nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};
    int k = 0;
    cudaError_t alloc(void **out, size_t bytes)
    {
        if (k == 8) return cudaErrorMemoryAllocation;
        cudaError_t e = cudaMalloc(out, bytes);
        if (e == cudaSuccess) p[k++] = *out;
        return e;
    }
    ~Bufs()
    {
        for (int i = 0; i < k; i++) cudaFree(p[i]);
    }
};

} // namespace cupat_lab
