// SPDX-License-Identifier: Apache-2.0
/* gemm_async_p2.cu — part 2 of the multistage kernel's instantiations (see
 * gemm_async.cuh): its configurations' kernels, built in parallel with the
 * other parts. */
#define GEMM_ASYNC_PART 2
#include "gemm/gemm_async.cuh"

GEMM_ASYNC_PART_TABLE(part2)
