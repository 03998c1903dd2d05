/* SPDX-License-Identifier: Apache-2.0 */
/* cuda_runtime_api.h, the stand-in of the build without the CUDA toolkit
 * (-DCUPAT_CUDA=OFF): on the include path of that build alone. It declares
 * the few CUDA runtime types, values and calls the C code names, with
 * CUDA's own spellings; every call says CUDA is absent (nocuda.c), so no
 * CUDA context is ever made and the code on that side of each backend test
 * is never reached. The values are CUDA's where the C code compares them. */
#ifndef CUPAT_NOCUDA_RUNTIME_API_H
#define CUPAT_NOCUDA_RUNTIME_API_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CUPAT_NOCUDA 1

typedef enum cudaError {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInitializationError = 3,
    cudaErrorInsufficientDriver = 35,
    cudaErrorNoDevice = 100,
    cudaErrorInvalidDevice = 101,
    cudaErrorNotSupported = 801,
} cudaError_t;

typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;

enum cudaMemcpyKind {
    cudaMemcpyHostToHost = 0,
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3,
    cudaMemcpyDefault = 4,
};
enum cudaMemoryType {
    cudaMemoryTypeUnregistered = 0,
    cudaMemoryTypeHost = 1,
    cudaMemoryTypeDevice = 2,
    cudaMemoryTypeManaged = 3,
};
enum cudaDeviceAttr {
    cudaDevAttrMaxThreadsPerBlock = 1,
    cudaDevAttrMultiProcessorCount = 16,
    cudaDevAttrAsyncEngineCount = 40,
    cudaDevAttrComputeCapabilityMajor = 75,
    cudaDevAttrComputeCapabilityMinor = 76,
    cudaDevAttrL2CacheSize = 89,
};

#define cudaStreamNonBlocking 0x01
#define cudaEventDisableTiming 0x02
#define cudaHostRegisterDefault 0x00

struct cudaPointerAttributes {
    enum cudaMemoryType type;
    int device;
    void *devicePointer;
    void *hostPointer;
};

struct cudaDeviceProp {
    char name[256];
    size_t totalGlobalMem;
    int multiProcessorCount;
    int maxThreadsPerMultiProcessor;
    int maxThreadsPerBlock;
    int l2CacheSize;
    int major, minor;
    int warpSize;
};

const char *cudaGetErrorString(cudaError_t e);
const char *cudaGetErrorName(cudaError_t e);
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
cudaError_t cudaGetDeviceCount(int *n);
cudaError_t cudaGetDevice(int *d);
cudaError_t cudaSetDevice(int d);
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *p, int d);
cudaError_t cudaDeviceGetAttribute(int *v, enum cudaDeviceAttr a, int d);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes);
cudaError_t cudaMalloc(void **p, size_t bytes);
cudaError_t cudaMallocAsync(void **p, size_t bytes, cudaStream_t s);
cudaError_t cudaMallocHost(void **p, size_t bytes);
cudaError_t cudaFree(void *p);
cudaError_t cudaFreeAsync(void *p, cudaStream_t s);
cudaError_t cudaFreeHost(void *p);
cudaError_t cudaHostRegister(void *p, size_t bytes, unsigned flags);
cudaError_t cudaHostUnregister(void *p);
cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *a, const void *p);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind k);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind k,
                            cudaStream_t s);
cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
                              size_t width, size_t height, enum cudaMemcpyKind k, cudaStream_t s);
cudaError_t cudaMemset(void *p, int v, size_t bytes);
cudaError_t cudaMemsetAsync(void *p, int v, size_t bytes, cudaStream_t s);
cudaError_t cudaStreamCreate(cudaStream_t *s);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags);
cudaError_t cudaStreamDestroy(cudaStream_t s);
cudaError_t cudaStreamSynchronize(cudaStream_t s);
cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned flags);
cudaError_t cudaEventCreate(cudaEvent_t *e);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned flags);
cudaError_t cudaEventDestroy(cudaEvent_t e);
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s);
cudaError_t cudaEventSynchronize(cudaEvent_t e);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b);

#ifdef __cplusplus
}
#endif
#endif
