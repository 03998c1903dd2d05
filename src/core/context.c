/* SPDX-License-Identifier: Apache-2.0 */
/* context.c — backend choice, device facts, streams, version. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STR2(x) #x
#define STR(x) STR2(x)

const char *cupat_version(void)
{
    return STR(CUPAT_VERSION_MAJOR) "." STR(CUPAT_VERSION_MINOR) "." STR(CUPAT_VERSION_PATCH);
}

cupat_status cupat_get_version(int *version)
{
    if (!version) return cupat__fail(NULL, CUPAT_ERROR_NULL_POINTER, "cupat_get_version: version is NULL");
    *version = CUPAT_VERSION;
    return CUPAT_SUCCESS;
}

cupat_status cupat_check_version(int header_version)
{
    if (header_version < 0)
        return cupat__fail(NULL, CUPAT_ERROR_NOT_SUPPORTED,
                           "cupat_check_version: header_version = %d is not a version (pass CUPAT_VERSION)",
                           header_version);
    const int hmaj = header_version / 10000, hmin = header_version / 100 % 100;
    const int ok = hmaj == CUPAT_VERSION_MAJOR &&
                   (hmaj == 0 ? hmin == CUPAT_VERSION_MINOR : hmin <= CUPAT_VERSION_MINOR);
    if (!ok)
        return cupat__fail(NULL, CUPAT_ERROR_NOT_SUPPORTED,
                           "cupat_check_version: the program was compiled with cupat.h %d.%d.%d (%d); the "
                           "library linked is %s (%d): %s",
                           hmaj, hmin, header_version % 100, header_version, cupat_version(), CUPAT_VERSION,
                           hmaj != CUPAT_VERSION_MAJOR ? "another major version"
                           : hmaj == 0            ? "0.x releases keep their ABI within one minor version"
                                                  : "the header is newer than the library");
    return CUPAT_SUCCESS;
}

int cupat_cuda_available(void)
{
    /* Without a driver (libcuda.so.1 absent) the runtime answers with an error
     * here rather than failing to load: the library never links libcuda. */
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return n > 0;
}

const char *cupat_backend_name(cupat_backend b)
{
    switch (b) {
    case CUPAT_BACKEND_AUTO: return "auto";
    case CUPAT_BACKEND_CPU: return "cpu";
    case CUPAT_BACKEND_CUDA: return "cuda";
    }
    return "unknown";
}

static cupat_status init_cuda(cupat_ctx *c, int device)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return cupat__fail(NULL, CUPAT_ERROR_NO_DEVICE,
                           "cupat_create: CUDA backend unavailable: %s (%s)",
                           cudaGetErrorString(e), cudaGetErrorName(e));
    }
    if (n == 0)
        return cupat__fail(NULL, CUPAT_ERROR_NO_DEVICE, "cupat_create: no CUDA device present");
    if (device < 0) {
        e = cudaGetDevice(&device);
        if (e != cudaSuccess) return cupat__cuda(NULL, e, "cupat_create: cudaGetDevice");
    }
    if (device >= n)
        return cupat__fail(NULL, CUPAT_ERROR_INVALID_VALUE,
                           "cupat_create: device = %d, but only %d CUDA device(s) present",
                           device, n);
    struct cudaDeviceProp p;
    if ((e = cudaSetDevice(device)) != cudaSuccess)
        return cupat__cuda(NULL, e, "cupat_create: cudaSetDevice");
    if ((e = cudaGetDeviceProperties(&p, device)) != cudaSuccess)
        return cupat__cuda(NULL, e, "cupat_create: cudaGetDeviceProperties");
    if ((e = cudaStreamCreateWithFlags(&c->own_stream, cudaStreamNonBlocking)) != cudaSuccess)
        return cupat__cuda(NULL, e, "cupat_create: cudaStreamCreateWithFlags");
    c->backend = CUPAT_BACKEND_CUDA;
    c->device = device;
    c->stream = c->own_stream;
    c->sm_count = p.multiProcessorCount;
    c->max_threads_per_sm = p.maxThreadsPerMultiProcessor;
    c->l2_bytes = (size_t)p.l2CacheSize;
    return CUPAT_SUCCESS;
}

cupat_status cupat_create(cupat_ctx **ctx, cupat_backend backend, int device)
{
    CUPAT_TRACE_CALL();
    if (!ctx) return cupat__fail(NULL, CUPAT_ERROR_NULL_POINTER, "cupat_create: ctx is NULL");
    *ctx = NULL;
    if (backend != CUPAT_BACKEND_AUTO && backend != CUPAT_BACKEND_CPU &&
        backend != CUPAT_BACKEND_CUDA)
        return cupat__fail(NULL, CUPAT_ERROR_INVALID_VALUE,
                           "cupat_create: backend = %d is not AUTO (0), CPU (1) or CUDA (2)",
                           (int)backend);
    if (device < -1)
        return cupat__fail(NULL, CUPAT_ERROR_INVALID_VALUE,
                           "cupat_create: device = %d (must be >= 0, or -1 for current)",
                           device);
    cupat_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return cupat__fail(NULL, CUPAT_ERROR_OUT_OF_MEMORY, "cupat_create: out of host memory");
    c->backend = CUPAT_BACKEND_CPU;
    c->device = -1;
    if (backend == CUPAT_BACKEND_CUDA ||
        (backend == CUPAT_BACKEND_AUTO && cupat_cuda_available())) {
        cupat_status s = init_cuda(c, device);
        if (s != CUPAT_SUCCESS) {
            free(c);
            return s;
        }
    }
    *ctx = c;
    return CUPAT_SUCCESS;
}

cupat_status cupat_destroy(cupat_ctx *ctx)
{
    CUPAT_TRACE_CALL();
    if (!ctx) return CUPAT_SUCCESS;
    cupat_status s = CUPAT_SUCCESS;
    if (ctx->backend == CUPAT_BACKEND_CUDA) {
        cudaSetDevice(ctx->device);
        s = cupat__cuda(NULL, cudaStreamSynchronize(ctx->stream), "cupat_destroy: sync");
        if (ctx->scratch && !ctx->ws_user) cudaFree(ctx->scratch);
        if (ctx->own_stream) cudaStreamDestroy(ctx->own_stream);
    } else if (!ctx->ws_user) {
        free(ctx->scratch);
    }
    free(ctx);
    return s;
}

cupat_backend cupat_get_backend(const cupat_ctx *ctx)
{
    return ctx ? ctx->backend : CUPAT_BACKEND_CPU;
}

int cupat_get_device(const cupat_ctx *ctx)
{
    return ctx ? ctx->device : -1;
}

cupat_status cupat_set_stream(cupat_ctx *ctx, cupat_stream stream)
{
    CUPAT_TRACE_CALL();
    CUPAT_TRY(cupat__begin(ctx, "cupat_set_stream"));
    if (ctx->backend != CUPAT_BACKEND_CUDA) {
        if (stream)
            return cupat__fail(ctx, CUPAT_ERROR_NOT_SUPPORTED,
                               "cupat_set_stream: stream given on the CPU backend");
        return CUPAT_SUCCESS;
    }
    cudaStream_t next = stream ? (cudaStream_t)stream : ctx->own_stream;
    /* Scratch memory may still be in use by work on the old stream: order the
     * new stream after it, so reuse stays stream-ordered. */
    if (next != ctx->stream && ctx->scratch) {
        cudaEvent_t ev;
        CUPAT_CUDA_TRY(ctx, cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
        cupat_status s = cupat__cuda(ctx, cudaEventRecord(ev, ctx->stream), "cudaEventRecord");
        if (s == CUPAT_SUCCESS)
            s = cupat__cuda(ctx, cudaStreamWaitEvent(next, ev, 0), "cudaStreamWaitEvent");
        cudaEventDestroy(ev);
        CUPAT_TRY(s);
    }
    ctx->stream = next;
    return CUPAT_SUCCESS;
}

cupat_stream cupat_get_stream(const cupat_ctx *ctx)
{
    return ctx ? (cupat_stream)ctx->stream : NULL;
}

cupat_status cupat_sync(cupat_ctx *ctx)
{
    CUPAT_TRACE_CALL();
    CUPAT_TRY(cupat__begin(ctx, "cupat_sync"));
    if (ctx->backend != CUPAT_BACKEND_CUDA) return CUPAT_SUCCESS;
    return cupat__cuda(ctx, cudaStreamSynchronize(ctx->stream), "cupat_sync: cudaStreamSynchronize");
}
