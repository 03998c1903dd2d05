// SPDX-License-Identifier: Apache-2.0
// vendor_scan.cu — the inputs of `cupat bench scan|segscan|select` and their
// CUB baselines (cub::DeviceScan, DeviceSelect, DevicePartition) behind C
// entry points (bench_scan.h). Each CUB call is the one a CUB user writes for
// the case, on the same device buffers cupat gets; temporary storage is sized
// by the first of CUB's two calls and allocated by the caller, outside the
// timed region, as for cupat (whose scratch pool is warm by then).
#include "bench_scan.h"

#include <cub/device/device_partition.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <cuda/functional>
#include <cuda_runtime.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/transform_output_iterator.h>

namespace {

constexpr int kThreads = 256;

int grid_for(size_t n)
{
    size_t b = (n + kThreads - 1) / kThreads;
    return (int)(b < 65536 ? (b ? b : 1) : 65536);
}

template <typename T, typename Gen>
__global__ void fill(T *p, size_t n, Gen gen)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        p[i] = gen(i);
}

#define GEN(name, T, fn)                                                               \
    struct name {                                                                      \
        __device__ T operator()(size_t i) const { return fn(i); }                     \
    };
GEN(gen_u32, uint32_t, bscan_u32)
GEN(gen_i32, int32_t, bscan_i32)
GEN(gen_u64, uint64_t, bscan_u64)
GEN(gen_flag50, uint8_t, bscan_flag50)
GEN(gen_head, uint8_t, bscan_head)
GEN(gen_key, uint32_t, bscan_key)
GEN(gen_uniq, uint32_t, bscan_uniq)
#undef GEN

template <typename T, typename Gen>
cudaError_t launch_fill(void *p, size_t n, cudaStream_t s)
{
    fill<<<grid_for(n), kThreads, 0, s>>>(static_cast<T *>(p), n, Gen{});
    return cudaGetLastError();
}

template <typename T>
cudaError_t scan_t(cupat_op op, int exclusive, const void *x, void *y, size_t n, void *temp,
                   size_t *temp_bytes, cudaStream_t s)
{
    const T *in = static_cast<const T *>(x);
    T *out = static_cast<T *>(y);
    const int64_t items = (int64_t)n;
    size_t &tb = *temp_bytes;
    switch (op) {
    case CUPAT_OP_SUM:
        return exclusive ? cub::DeviceScan::ExclusiveSum(temp, tb, in, out, items, s)
                         : cub::DeviceScan::InclusiveSum(temp, tb, in, out, items, s);
    case CUPAT_OP_MAX:
        // The exclusive form needs the identity: the lowest value of T.
        return exclusive ? cub::DeviceScan::ExclusiveScan(temp, tb, in, out, cuda::maximum<>{},
                                                          cuda::std::numeric_limits<T>::lowest(),
                                                          items, s)
                         : cub::DeviceScan::InclusiveScan(temp, tb, in, out, cuda::maximum<>{},
                                                          items, s);
    case CUPAT_OP_MIN:
        return exclusive ? cub::DeviceScan::ExclusiveScan(temp, tb, in, out, cuda::minimum<>{},
                                                          cuda::std::numeric_limits<T>::max(),
                                                          items, s)
                         : cub::DeviceScan::InclusiveScan(temp, tb, in, out, cuda::minimum<>{},
                                                          items, s);
    default: return cudaErrorInvalidValue;
    }
}

// The segmented operator on (value, flag) pairs (Schwartz 1980): associative,
// so a plain scan of pairs is the head-flag segmented scan.
struct seg_pair {
    float v;
    int head;
};
struct seg_load {
    const uint8_t *flags;
    const float *x;
    __device__ seg_pair operator()(int64_t i) const { return seg_pair{x[i], flags[i] != 0}; }
};
struct seg_op {
    __device__ seg_pair operator()(const seg_pair &a, const seg_pair &b) const
    {
        return seg_pair{b.head ? b.v : a.v + b.v, a.head | b.head};
    }
};
struct seg_value {
    __device__ float operator()(const seg_pair &p) const { return p.v; }
};

struct less_than {
    float a;
    __device__ bool operator()(float v) const { return v < a; }
};

} // namespace

extern "C" int bench_scan_fill(int gen, void *p, size_t n, cupat_stream s)
{
    cudaStream_t st = (cudaStream_t)s;
    switch (gen) {
    case BSCAN_GEN_U32: return launch_fill<uint32_t, gen_u32>(p, n, st);
    case BSCAN_GEN_I32: return launch_fill<int32_t, gen_i32>(p, n, st);
    case BSCAN_GEN_U64: return launch_fill<uint64_t, gen_u64>(p, n, st);
    case BSCAN_GEN_FLAG50: return launch_fill<uint8_t, gen_flag50>(p, n, st);
    case BSCAN_GEN_HEAD: return launch_fill<uint8_t, gen_head>(p, n, st);
    case BSCAN_GEN_KEY: return launch_fill<uint32_t, gen_key>(p, n, st);
    case BSCAN_GEN_UNIQ: return launch_fill<uint32_t, gen_uniq>(p, n, st);
    }
    return cudaErrorInvalidValue;
}

extern "C" int bench_cub_scan(cupat_type t, cupat_op op, int exclusive, const void *x, void *y,
                              size_t n, void *temp, size_t *temp_bytes, cupat_stream s)
{
    cudaStream_t st = (cudaStream_t)s;
    switch (t) {
    case CUPAT_U32: return scan_t<uint32_t>(op, exclusive, x, y, n, temp, temp_bytes, st);
    case CUPAT_I32: return scan_t<int32_t>(op, exclusive, x, y, n, temp, temp_bytes, st);
    case CUPAT_U64: return scan_t<uint64_t>(op, exclusive, x, y, n, temp, temp_bytes, st);
    case CUPAT_F32: return scan_t<float>(op, exclusive, x, y, n, temp, temp_bytes, st);
    default: return cudaErrorInvalidValue;
    }
}

extern "C" int bench_cub_sum_by_key_u32(const uint32_t *keys, const uint32_t *x, uint32_t *y,
                                        size_t n, void *temp, size_t *temp_bytes, cupat_stream s)
{
    return cub::DeviceScan::ExclusiveSumByKey(temp, *temp_bytes, keys, x, y, (int64_t)n,
                                              cuda::std::equal_to<>{}, (cudaStream_t)s);
}

extern "C" int bench_cub_segsum_flags_f32(const uint8_t *flags, const float *x, float *y,
                                          size_t n, void *temp, size_t *temp_bytes,
                                          cupat_stream s)
{
    auto in = thrust::make_transform_iterator(thrust::counting_iterator<int64_t>(0),
                                              seg_load{flags, x});
    auto out = thrust::make_transform_output_iterator(y, seg_value{});
    return cub::DeviceScan::InclusiveScan(temp, *temp_bytes, in, out, seg_op{}, (int64_t)n,
                                          (cudaStream_t)s);
}

extern "C" int bench_cub_select_flagged_u32(const uint32_t *x, const uint8_t *flags,
                                            uint32_t *y, uint64_t *count, size_t n, void *temp,
                                            size_t *temp_bytes, cupat_stream s)
{
    return cub::DeviceSelect::Flagged(temp, *temp_bytes, x, flags, y, count, (int64_t)n,
                                      (cudaStream_t)s);
}

extern "C" int bench_cub_partition_flagged_u32(const uint32_t *x, const uint8_t *flags,
                                               uint32_t *y, uint64_t *count, size_t n,
                                               void *temp, size_t *temp_bytes, cupat_stream s)
{
    return cub::DevicePartition::Flagged(temp, *temp_bytes, x, flags, y, count, (int64_t)n,
                                         (cudaStream_t)s);
}

extern "C" int bench_cub_select_less_f32(const float *x, float a, float *y, uint64_t *count,
                                         size_t n, void *temp, size_t *temp_bytes,
                                         cupat_stream s)
{
    return cub::DeviceSelect::If(temp, *temp_bytes, x, y, count, (int64_t)n, less_than{a},
                                 (cudaStream_t)s);
}

extern "C" int bench_cub_unique_u32(const uint32_t *x, uint32_t *y, uint64_t *count, size_t n,
                                    void *temp, size_t *temp_bytes, cupat_stream s)
{
    return cub::DeviceSelect::Unique(temp, *temp_bytes, x, y, count, (int64_t)n,
                                     (cudaStream_t)s);
}
