// SPDX-License-Identifier: Apache-2.0
// tensor_map.cu — cuTensorMapEncodeTiled for the kernels that use the tensor
// memory accelerator (cupat_tma.cuh), reached through the runtime's driver
// entry point so the library needs no -lcuda.
#include "cupat_tma.cuh"

#include <cudaTypedefs.h>
#include <cuda_runtime.h>

static PFN_cuTensorMapEncodeTiled_v12000 encode_fn(void)
{
    static PFN_cuTensorMapEncodeTiled_v12000 fn;
    if (!fn) {
        void *p = NULL;
        cudaDriverEntryPointQueryResult q;
        if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q) ==
                cudaSuccess &&
            q == cudaDriverEntryPointSuccess)
            fn = (PFN_cuTensorMapEncodeTiled_v12000)p;
    }
    return fn;
}

cupat_status cupat__tensor_map_2d(cupat_ctx *ctx, CUtensorMap *map, CUtensorMapDataType type,
                                  const void *base, uint64_t cols, uint64_t rows, uint64_t pitch,
                                  uint32_t box_cols, uint32_t box_rows, CUtensorMapSwizzle swizzle,
                                  const char *fn)
{
    PFN_cuTensorMapEncodeTiled_v12000 enc = encode_fn();
    if (!enc) return cupat__fail(ctx, CUPAT_ERROR_NOT_SUPPORTED, "%s: the driver has no cuTensorMapEncodeTiled", fn);
    const cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)rows}, strides[1] = {(cuuint64_t)pitch};
    const cuuint32_t box[2] = {box_cols, box_rows}, one[2] = {1, 1};
    CUresult r = enc(map, type, 2, (void *)base, dims, strides, box, one, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
                     CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS)
        return cupat__fail(ctx, CUPAT_ERROR_INTERNAL,
                           "%s: cuTensorMapEncodeTiled failed (%d) for %llu x %llu elements, box %u x %u", fn, (int)r,
                           (unsigned long long)rows, (unsigned long long)cols, box_rows, box_cols);
    return CUPAT_SUCCESS;
}
