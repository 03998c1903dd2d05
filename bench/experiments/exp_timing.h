/* SPDX-License-Identifier: Apache-2.0 */
// bench/experiments/exp_timing.h — what the scan experiments share: CUDA call
// checks, the context and the L2-flush buffer they time with, and the timer
// (median of `reps` calls, EXP_REPS by default, the L2 flushed by a 256 MiB
// memset before each).
#pragma once
#include "internal.h"
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

static cupat_ctx *ctx;
static void *flushbuf; // 256 MiB, cudaMalloc'd by main

#ifndef EXP_REPS
#define EXP_REPS 20
#endif
template <class F> static double timeit(F f, int reps = EXP_REPS)
{
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    std::vector<float> t;
    f();
    for (int r = 0; r < reps; r++) {
        CK(cudaMemsetAsync(flushbuf, 1, 256 << 20, ctx->stream));
        CK(cudaEventRecord(a, ctx->stream));
        f();
        CK(cudaEventRecord(b, ctx->stream));
        CK(cudaEventSynchronize(b));
        float ms;
        CK(cudaEventElapsedTime(&ms, a, b));
        t.push_back(ms);
    }
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}
