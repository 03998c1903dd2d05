// SPDX-License-Identifier: Apache-2.0
// sparse_device.cuh — what the sparse .cu files share: the (index, value)
// type dispatch, grid sizes, and the y = alpha acc + beta y epilogue.
#ifndef CUPAT_SPARSE_DEVICE_CUH
#define CUPAT_SPARSE_DEVICE_CUH

#include "cupat_warp.cuh"
#include "internal.h"
#include "sparse/sparse_internal.h"

#include <cuda_runtime.h>
#include <stdint.h>

namespace cupat_sparse_dev {

constexpr int BLOCK = 256;

// Call f(I{}, V{}) with the handle's index and value types.
template <class F> cupat_status dispatch(cupat_type it, cupat_type vt, F &&f)
{
    if (it == CUPAT_I32) return vt == CUPAT_F32 ? f(int32_t{}, float{}) : f(int32_t{}, double{});
    return vt == CUPAT_F32 ? f(int64_t{}, float{}) : f(int64_t{}, double{});
}
template <class F> cupat_status dispatch_i(cupat_type it, F &&f)
{
    return it == CUPAT_I32 ? f(int32_t{}) : f(int64_t{});
}
template <class F> cupat_status dispatch_v(cupat_type vt, F &&f)
{
    return vt == CUPAT_F32 ? f(float{}) : f(double{});
}

// Blocks for a grid-stride loop over n items: enough to fill the device.
inline unsigned grid_for(const cupat_ctx *ctx, size_t n, int block = BLOCK)
{
    size_t g = (n + block - 1) / block, cap = (size_t)ctx->sm_count * 32;
    if (g > cap) g = cap;
    return g ? (unsigned)g : 1u;
}
// Blocks for one item a thread (no grid-stride loop), n >= 1.
inline unsigned grid_exact(size_t n, int block = BLOCK)
{
    return (unsigned)((n + block - 1) / block);
}

// y = alpha acc + beta y; beta == 0 never reads y.
template <typename V> __device__ __forceinline__ void store_y(V *y, size_t r, V acc, V alpha, V beta)
{
    V out = alpha * acc;
    if (beta != V(0)) out += beta * y[r];
    y[r] = out;
}

// Largest i in [lo, hi) with a[i] <= key, for a non-decreasing a (lo - 1 if none).
template <typename I> __device__ __forceinline__ int64_t upper_bound_m1(const I *a, int64_t lo, int64_t hi, int64_t key)
{
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if ((int64_t)a[mid] <= key) lo = mid + 1;
        else hi = mid;
    }
    return lo - 1;
}

// The book rungs (spmv_book.cu): coo_atomic, csr_scalar, ell, hyb, jds.
cupat_status spmv_book(cupat_ctx *ctx, const spmv_req *r);

// y = beta y (0 when beta == 0, never reading y): the start of the atomic rungs.
cupat_status scale_y(cupat_ctx *ctx, const cupat_sparse *A, double beta, void *y);

} // namespace cupat_sparse_dev

#endif
