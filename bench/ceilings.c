/* SPDX-License-Identifier: Apache-2.0 */
/* ceilings.c — the device's measured ceilings: copy, read and FP32 rates.
 * CUDA: cudaMemcpyAsync D2D, a read-only streaming kernel and an FMA kernel
 * (bench_kernels.cu), timed back to back with events, median of 8 calls.
 * CPU: the same three as OpenMP loops on the host clock, the fastest of
 * CPU_NT calls: a ceiling is the best the host can do, and on a shared
 * machine (CI, a laptop) the median moved 4x from run to run with the load
 * while the best call stays put (issue 18.10: "% of ceiling" read 346%). */
#define _POSIX_C_SOURCE 200809L
#include "ceilings.h"

#include "gemm/gemm_internal.h"
#include "harness.h"
#include "internal.h"

#include <cuda_runtime_api.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define GPU_BYTES ((size_t)1 << 30) /* each side of the copy */
#define CPU_BYTES ((size_t)256 << 20)
#define NT 8 /* timed calls per figure */
#define CPU_NT 8

static double median(double *t, int n)
{
    for (int i = 1; i < n; i++) /* insertion sort: n is tiny */
        for (int j = i; j > 0 && t[j] < t[j - 1]; j--) {
            double x = t[j];
            t[j] = t[j - 1];
            t[j - 1] = x;
        }
    return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

/* ------------------------------------------------------------- CUDA -- */

typedef enum { K_COPY, K_READ, K_FMA } kind;

/* One warm-up call, then NT calls between NT + 1 events; median ms. */
static cupat_status gpu_time(cupat_ctx *ctx, kind k, void *dst, const void *src, size_t bytes,
                             float *sink, int blocks, double *ms, double *flops)
{
    cudaStream_t s = (cudaStream_t)cupat_get_stream(ctx);
    cudaEvent_t ev[NT + 1];
    int made = 0;
    cupat_status st = CUPAT_SUCCESS;
    for (; made < NT + 1 && !st; made++)
        st = cupat__cuda(ctx, cudaEventCreate(&ev[made]), "cudaEventCreate");
    if (st) made--;
    for (int i = -1; i < NT && !st; i++) {
        cudaError_t e;
        if (k == K_COPY) e = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s);
        else if (k == K_READ) e = (cudaError_t)bench_kernel_read(src, bytes, sink, blocks, s);
        else e = (cudaError_t)bench_kernel_fma(sink, blocks, 4096, s, flops);
        st = cupat__cuda(ctx, e, k == K_COPY ? "ceilings: cudaMemcpyAsync" : "ceilings: kernel");
        if (!st) st = cupat__cuda(ctx, cudaEventRecord(ev[i + 1], s), "cudaEventRecord");
    }
    if (!st) st = cupat__cuda(ctx, cudaStreamSynchronize(s), "ceilings: cudaStreamSynchronize");
    double t[NT];
    for (int i = 0; i < NT && !st; i++) {
        float x = 0;
        st = cupat__cuda(ctx, cudaEventElapsedTime(&x, ev[i], ev[i + 1]), "cudaEventElapsedTime");
        t[i] = x;
    }
    for (int i = 0; i < made; i++) cudaEventDestroy(ev[i]);
    if (!st) *ms = median(t, NT);
    return st;
}

static cupat_status gpu_ceilings(cupat_ctx *ctx, bench_ceilings *out)
{
    int dev = cupat_get_device(ctx), sms = 0, tps = 0;
    CUPAT_CUDA_TRY(ctx, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CUPAT_CUDA_TRY(ctx, cudaDeviceGetAttribute(&tps, cudaDevAttrMaxThreadsPerMultiProcessor, dev));
    int wave = sms * (tps / 256); /* one full wave of 256-thread blocks */
    /* 1 GiB each side; smaller where the device cannot hold 2 GiB spare. */
    size_t bytes = GPU_BYTES;
    void *a = NULL, *b = NULL, *sink = NULL;
    cupat_status s;
    for (;;) {
        s = cupat_malloc(ctx, &a, bytes);
        if (!s && (s = cupat_malloc(ctx, &b, bytes))) {
            cupat_free(ctx, a);
            a = NULL;
        }
        if (s != CUPAT_ERROR_OUT_OF_MEMORY || bytes <= ((size_t)64 << 20)) break;
        bytes /= 2;
    }
    if (!s) s = cupat_malloc(ctx, &sink, 256);
    if (!s) s = cupat_memset(ctx, sink, 0, 256);
    if (!s) /* random contents: never time on zeros */
        s = cupat__cuda(ctx,
                        (cudaError_t)bench_kernel_fill_f32(a, bytes / 4, 0xCE11, -1.0f, 2.0f,
                                                           cupat_get_stream(ctx)),
                        "ceilings: fill kernel");
    double ms = 0, flops = 0;
    if (!s) s = gpu_time(ctx, K_COPY, b, a, bytes, NULL, 0, &ms, NULL);
    if (!s) out->copy_gbs = 2.0 * (double)bytes / ms / 1e6;
    if (!s) s = gpu_time(ctx, K_READ, NULL, a, bytes, sink, wave, &ms, NULL);
    if (!s) out->read_gbs = (double)bytes / ms / 1e6;
    if (!s) s = gpu_time(ctx, K_FMA, NULL, NULL, 0, sink, 4 * wave, &ms, &flops);
    if (!s) out->fp32_gflops = flops / ms / 1e6;
    /* the tensor cores (library: gemm_tc_wgmma_sm90a.cu); a device without
     * the sm_90a image has no figure, and that is no failure */
    for (int bf = 0; bf < 2 && !s; bf++) {
        double g = 0;
        cupat_status t = cupat__tc_ceiling(ctx, bf, &g);
        if (t == CUPAT_SUCCESS) *(bf ? &out->tc_bf16_gflops : &out->tc_f16_gflops) = g;
        else if (t != CUPAT_ERROR_NOT_SUPPORTED) s = t;
    }
    out->copy_bytes = bytes;
    out->method = "median of 8 calls (tensor: fastest of 5)";
    cupat_sync(ctx);
    cupat_free(ctx, a);
    cupat_free(ctx, b);
    cupat_free(ctx, sink);
    return s;
}

/* -------------------------------------------------------------- CPU -- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void cpu_copy(char *dst, const char *src, size_t n)
{
#pragma omp parallel
    {
        size_t nt = (size_t)omp_get_num_threads(), id = (size_t)omp_get_thread_num();
        size_t a = n * id / nt, b = n * (id + 1) / nt;
        memcpy(dst + a, src + a, b - a);
    }
}

static float cpu_read(const float *p, size_t n)
{
    float s = 0;
#pragma omp parallel for simd reduction(+ : s) schedule(static)
    for (size_t i = 0; i < n; i++) s += p[i];
    return s;
}

#define CPU_CHAINS 32
#define CPU_ITERS (1 << 21)
/* Multiply-add chains (mul then add: this build does not assume FMA
 * hardware), vectorized across chains. Returns the flops done. */
static double cpu_fma(volatile float *sink)
{
    double flops = 0;
#pragma omp parallel reduction(+ : flops)
    {
        float a[CPU_CHAINS];
        const float m = 0.999999f, c = 1e-6f;
        for (int k = 0; k < CPU_CHAINS; k++) a[k] = (float)(omp_get_thread_num() + k) * 1e-3f;
        for (int it = 0; it < CPU_ITERS; it++) {
#pragma omp simd
            for (int k = 0; k < CPU_CHAINS; k++) a[k] = a[k] * m + c;
        }
        float s = 0;
        for (int k = 0; k < CPU_CHAINS; k++) s += a[k];
        if (s == -1.0f) *sink = s;
        flops += 2.0 * CPU_CHAINS * CPU_ITERS;
    }
    return flops;
}

static cupat_status cpu_ceilings(cupat_ctx *ctx, bench_ceilings *out)
{
    size_t bytes = CPU_BYTES, n = bytes / sizeof(float);
    float *a = NULL, *b = NULL;
    CUPAT_TRY(cupat_malloc(ctx, (void **)&a, bytes));
    cupat_status s = cupat_malloc(ctx, (void **)&b, bytes);
    if (s) {
        cupat_free(ctx, a);
        return s;
    }
#pragma omp parallel for schedule(static) /* first touch, from the threads that use it */
    for (size_t i = 0; i < n; i++) {
        a[i] = bench_rand_f32(0xCE11, i, -1.0f, 2.0f);
        b[i] = 0;
    }
    volatile float sink = 0;
    double best = 0;
    cpu_copy((char *)b, (const char *)a, bytes); /* warm-up */
    for (int i = 0; i < CPU_NT; i++) {
        double t0 = now_s();
        cpu_copy((char *)b, (const char *)a, bytes);
        double t = now_s() - t0;
        if (i == 0 || t < best) best = t;
    }
    out->copy_gbs = 2.0 * (double)bytes / best / 1e9;
    sink = cpu_read(b, n);
    for (int i = 0; i < CPU_NT; i++) {
        double t0 = now_s();
        sink = sink + cpu_read(a, n);
        double t = now_s() - t0;
        if (i == 0 || t < best) best = t;
    }
    out->read_gbs = (double)bytes / best / 1e9;
    double flops = 0;
    for (int i = 0; i < 3; i++) {
        double t0 = now_s();
        flops = cpu_fma(&sink);
        double t = now_s() - t0;
        if (i == 0 || t < best) best = t;
    }
    out->fp32_gflops = flops / best / 1e9;
    out->copy_bytes = bytes;
    out->method = "fastest of 8 calls (3 for FP32)";
    cupat_free(ctx, a);
    cupat_free(ctx, b);
    return CUPAT_SUCCESS;
}

cupat_status bench_ceilings_measure(cupat_ctx *ctx, bench_ceilings *out)
{
    if (!ctx)
        return cupat__fail(NULL, CUPAT_ERROR_NULL_POINTER, "bench_ceilings_measure: ctx is NULL");
    if (!out)
        return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "bench_ceilings_measure: out is NULL");
    memset(out, 0, sizeof *out);
    return cupat_get_backend(ctx) == CUPAT_BACKEND_CUDA ? gpu_ceilings(ctx, out)
                                                        : cpu_ceilings(ctx, out);
}
