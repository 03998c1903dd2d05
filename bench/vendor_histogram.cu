// SPDX-License-Identifier: Apache-2.0
// vendor_histogram.cu — the inputs of `cupat bench histogram` and their
// vendor baselines behind C entry points (bench_histogram.c):
// cub::DeviceHistogram::HistogramEven / HistogramRange / MultiHistogramEven
// and, where NPP's headers and library were found (CUPAT_HAVE_NPP),
// nppiHistogramEven_8u_C3R_Ctx. Temporary storage is sized by the first of
// the two-phase calls and allocated by the caller, outside the timed region.
#include "harness.h"

#include <cub/device/device_histogram.cuh>
#include <cuda_runtime.h>
#ifdef CUPAT_HAVE_NPP
#include <nppi_statistics_functions.h>
#include "vendor_npp.cuh"
#endif

extern "C" {
// The generators (bench_histogram.c computes the same values on the host).
int bench_hist_fill(int dist, void *p, size_t n, int f32, cupat_stream s);
int bench_cub_hist_even(int f32, const void *x, size_t n, int bins, float lo, float hi, unsigned *counts,
                        void *temp, size_t *temp_bytes, cupat_stream s);
int bench_cub_hist_range(const float *x, size_t n, int bins, const float *levels, unsigned *counts, void *temp,
                         size_t *temp_bytes, cupat_stream s);
int bench_cub_hist_rgb(const uint8_t *x, size_t pixels, unsigned *counts, void *temp, size_t *temp_bytes,
                       cupat_stream s);
int bench_npp_hist_rgb(const uint8_t *x, int width, int height, unsigned *counts, void *temp,
                       size_t *temp_bytes, cupat_stream s);
}

namespace {
__host__ __device__ inline uint8_t gen_u8(int dist, size_t i)
{
    const uint64_t h = bench_hash(71, i);
    if (dist == 2) return 77;
    if (dist == 1 && (h >> 32) % 10 != 0) return 77;
    return (uint8_t)(h >> 56);
}
__global__ void k_fill(int dist, void *p, size_t n, int f32)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        if (f32) static_cast<float *>(p)[i] = bench_rand_f32(72, i, 0.0f, 1.0f);
        else static_cast<uint8_t *>(p)[i] = gen_u8(dist, i);
    }
}
} // namespace

extern "C" uint8_t bench_hist_u8(int dist, size_t i) { return gen_u8(dist, i); }

extern "C" int bench_hist_fill(int dist, void *p, size_t n, int f32, cupat_stream s)
{
    k_fill<<<4096, 256, 0, (cudaStream_t)s>>>(dist, p, n, f32);
    return (int)cudaGetLastError();
}

extern "C" int bench_cub_hist_even(int f32, const void *x, size_t n, int bins, float lo, float hi,
                                   unsigned *counts, void *temp, size_t *temp_bytes, cupat_stream s)
{
    cudaStream_t st = (cudaStream_t)s;
    if (f32)
        return (int)cub::DeviceHistogram::HistogramEven(temp, *temp_bytes, static_cast<const float *>(x),
                                                        counts, bins + 1, lo, hi, (int64_t)n, st);
    return (int)cub::DeviceHistogram::HistogramEven(temp, *temp_bytes, static_cast<const uint8_t *>(x), counts,
                                                    bins + 1, (int)lo, (int)hi, (int64_t)n, st);
}

extern "C" int bench_cub_hist_range(const float *x, size_t n, int bins, const float *levels, unsigned *counts,
                                    void *temp, size_t *temp_bytes, cupat_stream s)
{
    return (int)cub::DeviceHistogram::HistogramRange(temp, *temp_bytes, x, counts, bins + 1, levels, (int64_t)n,
                                                     (cudaStream_t)s);
}

// RGB: 256 bins a channel, channel c's counts at counts + 256 c (cupat's layout).
extern "C" int bench_cub_hist_rgb(const uint8_t *x, size_t pixels, unsigned *counts, void *temp,
                                  size_t *temp_bytes, cupat_stream s)
{
#if CCCL_MAJOR_VERSION >= 3 // CUB 3 deprecates the C-array overload for this one
    ::cuda::std::array<unsigned *, 3> h = {counts, counts + 256, counts + 512};
    ::cuda::std::array<int, 3> levels = {257, 257, 257};
    ::cuda::std::array<unsigned, 3> lo = {0, 0, 0}, hi = {256, 256, 256};
#else
    unsigned *h[3] = {counts, counts + 256, counts + 512};
    int levels[3] = {257, 257, 257};
    unsigned lo[3] = {0, 0, 0}, hi[3] = {256, 256, 256};
#endif
    return (int)cub::DeviceHistogram::MultiHistogramEven<3, 3>(temp, *temp_bytes, x, h, levels, lo, hi,
                                                               (int64_t)pixels, (cudaStream_t)s);
}

extern "C" int bench_npp_hist_rgb(const uint8_t *x, int width, int height, unsigned *counts, void *temp,
                                  size_t *temp_bytes, cupat_stream s)
{
#ifdef CUPAT_HAVE_NPP
    NppStreamContext c = bench_npp_context((cudaStream_t)s);
    NppiSize roi = {width, height};
    int levels[3] = {257, 257, 257};
    Npp32s lo[3] = {0, 0, 0}, hi[3] = {256, 256, 256};
    if (!temp) {
        size_t b = 0;
        NppStatus st = nppiHistogramEvenGetBufferSize_8u_C3R_Ctx(roi, levels, &b, c);
        *temp_bytes = b;
        return st == NPP_SUCCESS ? 0 : (int)cudaErrorUnknown;
    }
    Npp32s *h[3] = {(Npp32s *)counts, (Npp32s *)counts + 256, (Npp32s *)counts + 512};
    NppStatus st = nppiHistogramEven_8u_C3R_Ctx(x, 3 * width, roi, h, levels, lo, hi, (Npp8u *)temp, c);
    return st == NPP_SUCCESS ? 0 : (int)cudaErrorUnknown;
#else
    (void)x; (void)width; (void)height; (void)counts; (void)temp; (void)temp_bytes; (void)s;
    return (int)cudaErrorNotSupported;
#endif
}
