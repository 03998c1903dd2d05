// SPDX-License-Identifier: Apache-2.0
// vendor_conv.cu — the vendor baselines of `cupat bench conv2d` and
// `cupat bench conv2d_sep` behind C entry points (bench_conv2d.c):
// cuDNN's fastest forward convolution for the shape (found by
// cudnnFindConvolutionForwardAlgorithm; FP32 FMA math, no TF32), built only
// where cuDNN's header and library were found (CUPAT_HAVE_CUDNN), and NPP's
// nppiFilterBox_8u_C3R_Ctx / nppiFilterGauss_8u_C3R_Ctx where NPP's
// filtering library was found (CUPAT_HAVE_NPPIF). Without them every entry
// point returns cudaErrorNotSupported and the table has no vendor row.
#include "harness.h"

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#ifdef CUPAT_HAVE_CUDNN
#include <cudnn.h>
#endif
#ifdef CUPAT_HAVE_NPPIF
#include <nppi_filtering_functions.h>
#include "vendor_npp.cuh"
#endif

extern "C" {
int bench_cudnn_setup(int width, int height, int kw, int kh, const float *k_dev, cupat_stream s,
                      void **handle, char *name, size_t name_len);
int bench_cudnn_run(void *handle, const float *in, float *out);
void bench_cudnn_free(void *handle);
int bench_npp_filter_rgb(int gauss5, const uint8_t *in, int width, int height, int ksize,
                         uint8_t *out, cupat_stream s);
}

#ifdef CUPAT_HAVE_CUDNN
namespace {
struct cudnn_conv {
    cudnnHandle_t h;
    cudnnTensorDescriptor_t x, y;
    cudnnFilterDescriptor_t w;
    cudnnConvolutionDescriptor_t conv;
    cudnnConvolutionFwdAlgo_t algo;
    void *ws;
    size_t ws_bytes;
    const float *k;
};
const char *algo_name(cudnnConvolutionFwdAlgo_t a)
{
    switch (a) {
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM: return "implicit_gemm";
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM: return "implicit_precomp_gemm";
    case CUDNN_CONVOLUTION_FWD_ALGO_GEMM: return "gemm";
    case CUDNN_CONVOLUTION_FWD_ALGO_DIRECT: return "direct";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT: return "fft";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING: return "fft_tiling";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD: return "winograd";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED: return "winograd_nonfused";
    default: return "?";
    }
}
} // namespace
#endif

// One f32 channel, NCHW 1x1xHxW, zero padding kh/2, kw/2 (CUPAT_BORDER_ZERO),
// cross-correlation (cupat's rule). *name: "cuDNN <algo>".
extern "C" int bench_cudnn_setup(int width, int height, int kw, int kh, const float *k_dev,
                                 cupat_stream s, void **handle, char *name, size_t name_len)
{
    *handle = NULL;
#ifdef CUPAT_HAVE_CUDNN
    cudnn_conv *c = (cudnn_conv *)calloc(1, sizeof *c);
    if (!c) return (int)cudaErrorMemoryAllocation;
    c->k = k_dev;
    int ok = cudnnCreate(&c->h) == CUDNN_STATUS_SUCCESS;
    if (!ok) {
        free(c);
        return (int)cudaErrorNotSupported; // no usable cuDNN at run time
    }
    ok = cudnnSetStream(c->h, (cudaStream_t)s) == CUDNN_STATUS_SUCCESS &&
         cudnnCreateTensorDescriptor(&c->x) == CUDNN_STATUS_SUCCESS &&
         cudnnCreateTensorDescriptor(&c->y) == CUDNN_STATUS_SUCCESS &&
         cudnnCreateFilterDescriptor(&c->w) == CUDNN_STATUS_SUCCESS &&
         cudnnCreateConvolutionDescriptor(&c->conv) == CUDNN_STATUS_SUCCESS &&
         cudnnSetTensor4dDescriptor(c->x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, height,
                                    width) == CUDNN_STATUS_SUCCESS &&
         cudnnSetTensor4dDescriptor(c->y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, height,
                                    width) == CUDNN_STATUS_SUCCESS &&
         cudnnSetFilter4dDescriptor(c->w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 1, 1, kh, kw) ==
             CUDNN_STATUS_SUCCESS &&
         cudnnSetConvolution2dDescriptor(c->conv, kh / 2, kw / 2, 1, 1, 1, 1,
                                         CUDNN_CROSS_CORRELATION,
                                         CUDNN_DATA_FLOAT) == CUDNN_STATUS_SUCCESS &&
         cudnnSetConvolutionMathType(c->conv, CUDNN_FMA_MATH) == CUDNN_STATUS_SUCCESS;
    cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int got = 0, pick = -1;
    if (ok)
        ok = cudnnFindConvolutionForwardAlgorithm(c->h, c->x, c->w, c->conv, c->y,
                                                  CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &got,
                                                  perf) == CUDNN_STATUS_SUCCESS;
    for (int i = 0; ok && i < got && pick < 0; i++) // sorted fastest first
        if (perf[i].status == CUDNN_STATUS_SUCCESS) pick = i;
    if (!ok || pick < 0) {
        bench_cudnn_free(c);
        return (int)cudaErrorUnknown;
    }
    c->algo = perf[pick].algo;
    c->ws_bytes = perf[pick].memory;
    if (c->ws_bytes && cudaMalloc(&c->ws, c->ws_bytes) != cudaSuccess) {
        bench_cudnn_free(c);
        return (int)cudaErrorMemoryAllocation;
    }
    snprintf(name, name_len, "cuDNN %s", algo_name(c->algo));
    *handle = c;
    return 0;
#else
    (void)width; (void)height; (void)kw; (void)kh; (void)k_dev; (void)s; (void)name;
    (void)name_len;
    return (int)cudaErrorNotSupported;
#endif
}

extern "C" int bench_cudnn_run(void *handle, const float *in, float *out)
{
#ifdef CUPAT_HAVE_CUDNN
    cudnn_conv *c = (cudnn_conv *)handle;
    const float one = 1.0f, zero = 0.0f;
    cudnnStatus_t st = cudnnConvolutionForward(c->h, &one, c->x, in, c->w, c->k, c->conv, c->algo,
                                               c->ws, c->ws_bytes, &zero, c->y, out);
    return st == CUDNN_STATUS_SUCCESS ? (int)cudaGetLastError() : (int)cudaErrorUnknown;
#else
    (void)handle; (void)in; (void)out;
    return (int)cudaErrorNotSupported;
#endif
}

extern "C" void bench_cudnn_free(void *handle)
{
#ifdef CUPAT_HAVE_CUDNN
    cudnn_conv *c = (cudnn_conv *)handle;
    if (!c) return;
    cudaFree(c->ws);
    if (c->conv) cudnnDestroyConvolutionDescriptor(c->conv);
    if (c->w) cudnnDestroyFilterDescriptor(c->w);
    if (c->y) cudnnDestroyTensorDescriptor(c->y);
    if (c->x) cudnnDestroyTensorDescriptor(c->x);
    if (c->h) cudnnDestroy(c->h);
    free(c);
#else
    (void)handle;
#endif
}

// 8-bit RGB, packed rows (pitch 3 width). NPP's non-border filters read the
// pixels around the ROI, so the ROI is the interior: the outputs within
// ksize / 2 of an edge are not written (bench_conv2d.c checks the interior).
// gauss5: nppiFilterGauss_8u_C3R_Ctx with NPP_MASK_SIZE_5_X_5; else
// nppiFilterBox_8u_C3R_Ctx with a ksize x ksize mask, anchor at its centre.
// in == NULL: only whether NPP is there (0) or not.
extern "C" int bench_npp_filter_rgb(int gauss5, const uint8_t *in, int width, int height,
                                    int ksize, uint8_t *out, cupat_stream s)
{
#ifdef CUPAT_HAVE_NPPIF
    if (!in) return 0;
    NppStreamContext c = bench_npp_context((cudaStream_t)s);
    const int r = ksize / 2, step = 3 * width;
    NppiSize roi = {width - 2 * r, height - 2 * r};
    const size_t off = (size_t)r * step + 3 * (size_t)r;
    NppStatus st;
    if (gauss5) {
        st = nppiFilterGauss_8u_C3R_Ctx(in + off, step, out + off, step, roi, NPP_MASK_SIZE_5_X_5, c);
    } else {
        NppiSize mask = {ksize, ksize};
        NppiPoint anchor = {r, r};
        st = nppiFilterBox_8u_C3R_Ctx(in + off, step, out + off, step, roi, mask, anchor, c);
    }
    return st == NPP_SUCCESS ? (int)cudaGetLastError() : (int)cudaErrorUnknown;
#else
    (void)gauss5; (void)in; (void)width; (void)height; (void)ksize; (void)out; (void)s;
    return (int)cudaErrorNotSupported;
#endif
}
