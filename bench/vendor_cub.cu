// SPDX-License-Identifier: Apache-2.0
// vendor_cub.cu — CUB baselines (C++ templates) behind C entry points.
#include "harness.h"

#include <cub/device/device_transform.cuh>
#include <cuda/std/tuple>

namespace {

struct add_f32 {
    __device__ float operator()(float a, float b) const { return a + b; }
};

struct rgb8 {
    uint8_t r, g, b;
};

// cupat_rgb_to_gray's formula, evaluated the same way: f32, no contraction.
struct gray_op {
    __device__ uint8_t operator()(rgb8 p) const
    {
        float v = __fadd_rn(__fadd_rn(__fmul_rn(0.21f, (float)p.r), __fmul_rn(0.71f, (float)p.g)),
                            __fmul_rn(0.07f, (float)p.b));
        return (uint8_t)v;
    }
};

} // namespace

extern "C" int bench_cub_vadd(const float *a, const float *b, float *c, size_t n, cupat_stream s)
{
    return cub::DeviceTransform::Transform(cuda::std::make_tuple(a, b), c, (int64_t)n, add_f32{},
                                           (cudaStream_t)s);
}

extern "C" int bench_cub_gray(const uint8_t *rgb, uint8_t *gray, size_t pixels, cupat_stream s)
{
    return cub::DeviceTransform::Transform((const rgb8 *)rgb, gray, (int64_t)pixels, gray_op{},
                                           (cudaStream_t)s);
}
