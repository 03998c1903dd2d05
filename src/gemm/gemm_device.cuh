// SPDX-License-Identifier: Apache-2.0
/* gemm_device.cuh — device helpers every gemm kernel shares (gemm.cu's
 * rungs, the multistage kernel of gemm_async.cuh, gemv.cu): the alpha/beta
 * update that never reads C when beta == 0, the 4-wide row store of an
 * epilogue, and the outer product of one k step in the FMA orders the rungs
 * use. */
#ifndef CUPAT_GEMM_DEVICE_CUH
#define CUPAT_GEMM_DEVICE_CUH

#include <stddef.h>
#include <stdint.h>

namespace cupat_gemm_dev {

/* c = alpha acc + beta c; beta == 0 must not read C (it may hold NaN). */
__device__ __forceinline__ float axpby(float acc, float alpha, float beta, const float *c)
{
    float r = alpha * acc;
    return beta != 0.0f ? fmaf(beta, *c, r) : r;
}

/* Store row i, columns j..j+3 of the result (those < N); 16-byte stores when
 * C allows (ldc % 4 == 0 and C 16-byte aligned: then j % 4 == 0 is aligned). */
__device__ __forceinline__ void store_row4(float *C, size_t ldc, int M, int N, int i, int j,
                                           const float *v, float alpha, float beta, bool cvec)
{
    if (i >= M || j >= N) return;
    float *c = C + (size_t)i * ldc + j;
    if (cvec && j + 3 < N) {
        float4 r = make_float4(alpha * v[0], alpha * v[1], alpha * v[2], alpha * v[3]);
        if (beta != 0.0f) {
            float4 o = *reinterpret_cast<const float4 *>(c);
            r.x = fmaf(beta, o.x, r.x);
            r.y = fmaf(beta, o.y, r.y);
            r.z = fmaf(beta, o.z, r.z);
            r.w = fmaf(beta, o.w, r.w);
        }
        *reinterpret_cast<float4 *>(c) = r;
        return;
    }
    for (int q = 0; q < 4 && j + q < N; ++q) c[q] = axpby(v[q], alpha, beta, c + q);
}

/* 16-byte stores are possible: ldc % 4 == 0 and C 16-byte aligned. */
__device__ __forceinline__ bool c_vectorizable(const float *C, size_t ldc)
{
    return (ldc & 3) == 0 && ((uintptr_t)C & 15) == 0;
}

/* The order of an outer product's FMAs decides how ptxas can reuse operands
 * and avoid register-bank conflicts (ncu: dispatch stalls). ROWS: row by row
 * (the teaching rungs); SERPENTINE: odd rows walk j backwards; COLUMNS:
 * column by column. Measured on the H100 for the multistage kernel (docs/
 * gemm.md): 8-wide rows in a serpentine beat row order by 3%, 16-wide rows
 * go best column by column (+2%). */
enum fma_order { ROWS, SERPENTINE, COLUMNS };

/* acc += a b^T: one k step of a thread's TM x TN outputs. */
template <fma_order ORDER = ROWS, int TM, int TN>
__device__ __forceinline__ void outer_product(float (&acc)[TM][TN], const float *a,
                                              const float *b)
{
    if (ORDER == COLUMNS) {
#pragma unroll
        for (int y = 0; y < TN; ++y)
#pragma unroll
            for (int x = 0; x < TM; ++x) acc[x][y] = fmaf(a[x], b[y], acc[x][y]);
    } else {
#pragma unroll
        for (int x = 0; x < TM; ++x)
#pragma unroll
            for (int yy = 0; yy < TN; ++yy) {
                const int y = ORDER == SERPENTINE && (x & 1) ? TN - 1 - yy : yy;
                acc[x][y] = fmaf(a[x], b[y], acc[x][y]);
            }
    }
}

} // namespace cupat_gemm_dev

#endif
