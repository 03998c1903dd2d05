/* SPDX-License-Identifier: Apache-2.0 */
/* ceilings.h — the device's measured ceilings, the denominators of every
 * "% of ceiling" the lab prints. Measured on the spot (cupat info, cupat bench). */
#ifndef CUPAT_BENCH_CEILINGS_H
#define CUPAT_BENCH_CEILINGS_H

#include "cupat.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bench_ceilings {
    double copy_gbs;    /* device-to-device copy, bytes read + written per second / 1e9 */
    double read_gbs;    /* read-only streaming kernel, bytes read per second / 1e9      */
    double fp32_gflops; /* FP32 FMA rate, 2 flops per FMA, / 1e9                        */
    double tc_f16_gflops;  /* dense f16 tensor-core rate (wgmma, f32 accumulation), / 1e9;  */
    double tc_bf16_gflops; /* likewise bf16; both 0 where not measured (no sm_90a device)  */
    size_t copy_bytes;  /* size of the buffers the figures were measured on             */
    const char *method; /* how each figure was taken ("median of 8 calls"), static      */
} bench_ceilings;

/* Measure all three on ctx's backend (CUDA: kernels and cudaMemcpyAsync with
 * events, the median of 8 calls; CPU: OpenMP loops, the fastest of several
 * calls, since on a shared host other work only slows a call down and a
 * median would follow the load). Takes about a second. */
cupat_status bench_ceilings_measure(cupat_ctx *ctx, bench_ceilings *out);

#ifdef __cplusplus
}
#endif
#endif
