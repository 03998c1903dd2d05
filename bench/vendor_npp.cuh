// SPDX-License-Identifier: Apache-2.0
// The NppStreamContext that NPP's _Ctx entry points take (CUDA 13 keeps only
// those): the stream and the device's properties, filled once per call. One
// copy for every NPP baseline (histogram, filters). Include after an NPP header.
#pragma once
#include <cuda_runtime.h>

static inline NppStreamContext bench_npp_context(cudaStream_t s)
{
    NppStreamContext c = {};
    int dev = 0;
    cudaDeviceProp p;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&p, dev) != cudaSuccess) return c;
    c.hStream = s;
    c.nCudaDeviceId = dev;
    c.nMultiProcessorCount = p.multiProcessorCount;
    c.nMaxThreadsPerMultiProcessor = p.maxThreadsPerMultiProcessor;
    c.nMaxThreadsPerBlock = p.maxThreadsPerBlock;
    c.nSharedMemPerBlock = p.sharedMemPerBlock;
    c.nCudaDevAttrComputeCapabilityMajor = p.major;
    c.nCudaDevAttrComputeCapabilityMinor = p.minor;
    cudaStreamGetFlags(s, &c.nStreamFlags);
    return c;
}
