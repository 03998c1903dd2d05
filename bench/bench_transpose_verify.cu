// SPDX-License-Identifier: Apache-2.0
/* bench_transpose_verify.cu — checks a transpose on the device (the outputs
 * of the 16384^2 cases are 1-2 GiB: too much to copy back for every rung). */
#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

template <typename T>
__global__ void verify_transpose(const T *in, const T *out, size_t rows, size_t cols,
                                 unsigned long long *res)
{
    /* res[0]: wrong elements; res[1]: smallest wrong output index */
    size_t n = rows * cols;
    for (size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x; k < n;
         k += (size_t)gridDim.x * blockDim.x) {
        size_t x = k / rows, y = k % rows; /* out[x][y] = in[y][x] */
        if (out[k] != in[y * cols + x]) {
            atomicAdd(&res[0], 1ull);
            atomicMin(&res[1], (unsigned long long)k);
        }
    }
}

extern "C" int bench_transpose_verify(const void *in, const void *out, size_t rows, size_t cols,
                                      size_t elem_size, unsigned long long *res,
                                      cudaStream_t s)
{
    cudaError_t e = cudaMemsetAsync(res, 0, sizeof *res, s);
    if (e == cudaSuccess) e = cudaMemsetAsync(res + 1, 0xFF, sizeof *res, s);
    if (e != cudaSuccess) return (int)e;
    unsigned blocks = 132 * 16;
    if (elem_size == 4)
        verify_transpose<uint32_t><<<blocks, 256, 0, s>>>((const uint32_t *)in, (const uint32_t *)out,
                                                         rows, cols, res);
    else
        verify_transpose<uint64_t><<<blocks, 256, 0, s>>>((const uint64_t *)in, (const uint64_t *)out,
                                                         rows, cols, res);
    return (int)cudaGetLastError();
}
