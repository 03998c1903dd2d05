/* SPDX-License-Identifier: Apache-2.0 */
/* status.c — status names and the per-context / per-thread error message. */
#include "internal.h"

#include <stdio.h>
#include <string.h>

/* Failures outside any context (cupat_create, NULL ctx) land here. */
static _Thread_local char thread_err[CUPAT_ERRMSG];

const char *cupat_status_string(cupat_status s)
{
    switch (s) {
    case CUPAT_SUCCESS: return "CUPAT_SUCCESS";
    case CUPAT_ERROR_INVALID_VALUE: return "CUPAT_ERROR_INVALID_VALUE";
    case CUPAT_ERROR_NULL_POINTER: return "CUPAT_ERROR_NULL_POINTER";
    case CUPAT_ERROR_HOST_POINTER: return "CUPAT_ERROR_HOST_POINTER";
    case CUPAT_ERROR_SIZE: return "CUPAT_ERROR_SIZE";
    case CUPAT_ERROR_OUT_OF_MEMORY: return "CUPAT_ERROR_OUT_OF_MEMORY";
    case CUPAT_ERROR_NO_DEVICE: return "CUPAT_ERROR_NO_DEVICE";
    case CUPAT_ERROR_CUDA: return "CUPAT_ERROR_CUDA";
    case CUPAT_ERROR_NOT_FOUND: return "CUPAT_ERROR_NOT_FOUND";
    case CUPAT_ERROR_NOT_SUPPORTED: return "CUPAT_ERROR_NOT_SUPPORTED";
    case CUPAT_ERROR_IO: return "CUPAT_ERROR_IO";
    case CUPAT_ERROR_FORMAT: return "CUPAT_ERROR_FORMAT";
    case CUPAT_ERROR_INTERNAL: return "CUPAT_ERROR_INTERNAL";
    }
    return "CUPAT_ERROR_UNKNOWN_STATUS";
}

const char *cupat_last_error(const cupat_ctx *ctx)
{
    return ctx ? ctx->err : thread_err;
}

cupat_status cupat__fail(cupat_ctx *ctx, cupat_status status, const char *fmt, ...)
{
    char *dst = ctx ? ctx->err : thread_err;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst, CUPAT_ERRMSG, fmt, ap);
    va_end(ap);
    return status;
}

cupat_status cupat__cuda(cupat_ctx *ctx, cudaError_t err, const char *what)
{
    if (err == cudaSuccess) return CUPAT_SUCCESS;
    (void)cudaGetLastError(); /* clear a non-sticky error so it is not reported twice */
    cupat_status s = err == cudaErrorMemoryAllocation ? CUPAT_ERROR_OUT_OF_MEMORY
                     : (err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver)
                         ? CUPAT_ERROR_NO_DEVICE
                         : CUPAT_ERROR_CUDA;
    return cupat__fail(ctx, s, "%s failed: %s (%s)", what, cudaGetErrorString(err),
                       cudaGetErrorName(err));
}

cupat_status cupat__launched(cupat_ctx *ctx, const char *kernel)
{
    cudaError_t err = cudaGetLastError();
    if (err == cudaSuccess) return CUPAT_SUCCESS;
    return cupat__fail(ctx, err == cudaErrorMemoryAllocation ? CUPAT_ERROR_OUT_OF_MEMORY
                                                             : CUPAT_ERROR_CUDA,
                       "launch of kernel %s failed: %s (%s)", kernel,
                       cudaGetErrorString(err), cudaGetErrorName(err));
}

cupat_status cupat__begin(cupat_ctx *ctx, const char *fn)
{
    if (!ctx) return cupat__fail(NULL, CUPAT_ERROR_NULL_POINTER, "%s: ctx is NULL", fn);
    ctx->err[0] = '\0';
    /* The current device is per host thread: a context may be used from a
     * thread that never selected its device. */
    if (ctx->backend == CUPAT_BACKEND_CUDA)
        return cupat__cuda(ctx, cudaSetDevice(ctx->device), fn);
    return CUPAT_SUCCESS;
}
