// SPDX-License-Identifier: Apache-2.0
// vendor_sort.cu — the inputs of `cupat bench sort|merge|segsort` and their
// CUB baselines (cub::DeviceRadixSort::SortKeys / SortPairs,
// cub::DeviceMerge::MergeKeys, cub::DeviceSegmentedSort::SortKeys) behind C
// entry points (bench_sort.h). Temporary storage is sized by CUB's first call
// and allocated by the caller outside the timed region.
#include "bench_sort.h"

#include <cub/device/device_merge.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <cuda_runtime.h>

namespace {

__global__ void k_fill(int gen, void *p, size_t n, uint64_t from)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const uint64_t j = from + i;
        switch (gen) {
        case BSORT_GEN_U32: ((uint32_t *)p)[i] = bsort_u32(j); break;
        case BSORT_GEN_U64: ((uint64_t *)p)[i] = bsort_u64(j); break;
        case BSORT_GEN_F32: ((float *)p)[i] = bsort_f32(j); break;
        case BSORT_GEN_IOTA32: ((uint32_t *)p)[i] = (uint32_t)j; break;
        default: break;
        }
    }
}

} // namespace

extern "C" int bench_sort_fill(int gen, void *p, size_t n, uint64_t from, cupat_stream s)
{
    if (!n) return 0;
    size_t g = (n + 255) / 256;
    k_fill<<<(unsigned)(g < 65536 ? g : 65536), 256, 0, (cudaStream_t)s>>>(gen, p, n, from);
    return (int)cudaGetLastError();
}

extern "C" int bench_cub_sort(int key_type, const void *kin, void *kout, const uint32_t *vin, uint32_t *vout,
                              size_t n, void *temp, size_t *temp_bytes, cupat_stream s)
{
    cudaStream_t st = (cudaStream_t)s;
    cudaError_t e = cudaErrorInvalidValue;
#define CUB_SORT(T)                                                                                               \
    e = vin ? cub::DeviceRadixSort::SortPairs(temp, *temp_bytes, (const T *)kin, (T *)kout, vin, vout, (int64_t)n, 0, \
                                              (int)(8 * sizeof(T)), st)                                           \
            : cub::DeviceRadixSort::SortKeys(temp, *temp_bytes, (const T *)kin, (T *)kout, (int64_t)n, 0,          \
                                             (int)(8 * sizeof(T)), st)
    switch (key_type) {
    case CUPAT_U32: CUB_SORT(uint32_t); break;
    case CUPAT_U64: CUB_SORT(uint64_t); break;
    case CUPAT_F32: CUB_SORT(float); break;
    default: break;
    }
#undef CUB_SORT
    return (int)e;
}

extern "C" int bench_cub_merge_u32(const uint32_t *a, size_t na, const uint32_t *b, size_t nb, uint32_t *out,
                                   void *temp, size_t *temp_bytes, cupat_stream s)
{
    return (int)cub::DeviceMerge::MergeKeys(temp, *temp_bytes, a, (int64_t)na, b, (int64_t)nb, out,
                                            cuda::std::less<uint32_t>{}, (cudaStream_t)s);
}

extern "C" int bench_cub_segsort_u32(const uint32_t *kin, uint32_t *kout, size_t n, size_t nseg,
                                     const uint64_t *offsets, void *temp, size_t *temp_bytes, cupat_stream s)
{
    return (int)cub::DeviceSegmentedSort::SortKeys(temp, *temp_bytes, kin, kout, (int64_t)n, (int64_t)nseg,
                                                   offsets, offsets + 1, (cudaStream_t)s);
}
