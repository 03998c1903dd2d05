// SPDX-License-Identifier: Apache-2.0
// vendor_reduce.cu — cub::DeviceReduce baselines for `cupat bench reduce`,
// behind one C entry point. Temporary storage is sized once (temp == NULL
// asks for the size) and allocated by the caller outside the timed region.
#include "cupat.h"

#include <cub/device/device_reduce.cuh>
#include <cuda/std/cstdint>

namespace {

template <typename T>
cudaError_t cub_reduce_t(cupat_op op, const void *x, size_t n, void *out, void *temp,
                         size_t *temp_bytes, cudaStream_t s)
{
    const T *in = static_cast<const T *>(x);
    T *o = static_cast<T *>(out);
    const int64_t items = (int64_t)n;
    switch (op) {
    case CUPAT_OP_SUM: return cub::DeviceReduce::Sum(temp, *temp_bytes, in, o, items, s);
    case CUPAT_OP_MIN: return cub::DeviceReduce::Min(temp, *temp_bytes, in, o, items, s);
    case CUPAT_OP_MAX: return cub::DeviceReduce::Max(temp, *temp_bytes, in, o, items, s);
    case CUPAT_OP_ARGMIN:
    case CUPAT_OP_ARGMAX: {
        // cupat_indexed layout: value at 0, index at 8.
        auto *idx = reinterpret_cast<::cuda::std::int64_t *>(static_cast<char *>(out) + 8);
        if (op == CUPAT_OP_ARGMIN) return cub::DeviceReduce::ArgMin(temp, *temp_bytes, in, o, idx, items, s);
        return cub::DeviceReduce::ArgMax(temp, *temp_bytes, in, o, idx, items, s);
    }
    }
    return cudaErrorInvalidValue;
}

} // namespace

// Returns a cudaError_t.
extern "C" int bench_cub_reduce(cupat_type t, cupat_op op, const void *x, size_t n, void *out,
                                void *temp, size_t *temp_bytes, cupat_stream s)
{
    cudaStream_t st = (cudaStream_t)s;
    switch (t) {
    case CUPAT_F32: return cub_reduce_t<float>(op, x, n, out, temp, temp_bytes, st);
    case CUPAT_F64: return cub_reduce_t<double>(op, x, n, out, temp, temp_bytes, st);
    case CUPAT_I32: return cub_reduce_t<int32_t>(op, x, n, out, temp, temp_bytes, st);
    case CUPAT_U32: return cub_reduce_t<uint32_t>(op, x, n, out, temp, temp_bytes, st);
    case CUPAT_I64: return cub_reduce_t<int64_t>(op, x, n, out, temp, temp_bytes, st);
    case CUPAT_U64: return cub_reduce_t<uint64_t>(op, x, n, out, temp, temp_bytes, st);
    }
    return cudaErrorInvalidValue;
}
