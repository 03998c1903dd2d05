/* SPDX-License-Identifier: Apache-2.0 */
/* nocuda.c — the CUDA runtime calls of the build without the CUDA toolkit
 * (cuda_runtime_api.h beside it): each says there is no CUDA here. */
#include "cuda_runtime_api.h"

#define NO return cudaErrorNoDevice

const char *cudaGetErrorString(cudaError_t e)
{
    switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorNoDevice:
        return "this cupat was built without the CUDA toolkit (-DCUPAT_CUDA=OFF): the CPU "
               "backend alone";
    default: return "CUDA is not part of this build (-DCUPAT_CUDA=OFF)";
    }
}
const char *cudaGetErrorName(cudaError_t e) { return e == cudaSuccess ? "cudaSuccess" : "cudaErrorNoDevice"; }
cudaError_t cudaGetLastError(void) { return cudaSuccess; }
cudaError_t cudaPeekAtLastError(void) { return cudaSuccess; }
cudaError_t cudaGetDeviceCount(int *n) { if (n) *n = 0; NO; }
cudaError_t cudaGetDevice(int *d) { NO; }
cudaError_t cudaSetDevice(int d) { NO; }
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *p, int d) { NO; }
cudaError_t cudaDeviceGetAttribute(int *v, enum cudaDeviceAttr a, int d) { NO; }
cudaError_t cudaDeviceSynchronize(void) { NO; }
cudaError_t cudaMemGetInfo(size_t *f, size_t *t) { NO; }
cudaError_t cudaMalloc(void **p, size_t bytes) { NO; }
cudaError_t cudaMallocAsync(void **p, size_t bytes, cudaStream_t s) { NO; }
cudaError_t cudaMallocHost(void **p, size_t bytes) { NO; }
cudaError_t cudaFree(void *p) { NO; }
cudaError_t cudaFreeAsync(void *p, cudaStream_t s) { NO; }
cudaError_t cudaFreeHost(void *p) { NO; }
cudaError_t cudaHostRegister(void *p, size_t bytes, unsigned flags) { NO; }
cudaError_t cudaHostUnregister(void *p) { NO; }
cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *a, const void *p) { NO; }
cudaError_t cudaMemcpy(void *d, const void *s, size_t b, enum cudaMemcpyKind k) { NO; }
cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t b, enum cudaMemcpyKind k, cudaStream_t st) { NO; }
cudaError_t cudaMemcpy2DAsync(void *d, size_t dp, const void *s, size_t sp, size_t w, size_t h,
                              enum cudaMemcpyKind k, cudaStream_t st) { NO; }
cudaError_t cudaMemset(void *p, int v, size_t b) { NO; }
cudaError_t cudaMemsetAsync(void *p, int v, size_t b, cudaStream_t s) { NO; }
cudaError_t cudaStreamCreate(cudaStream_t *s) { NO; }
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned f) { NO; }
cudaError_t cudaStreamDestroy(cudaStream_t s) { NO; }
cudaError_t cudaStreamSynchronize(cudaStream_t s) { NO; }
cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned f) { NO; }
cudaError_t cudaEventCreate(cudaEvent_t *e) { NO; }
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned f) { NO; }
cudaError_t cudaEventDestroy(cudaEvent_t e) { NO; }
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) { NO; }
cudaError_t cudaEventSynchronize(cudaEvent_t e) { NO; }
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b) { NO; }
