// SPDX-License-Identifier: Apache-2.0
// l2_sm90a.cu — the feature-set experiment's sm_90a kernel (`cupat lab l2
// features`): setmaxnreg, a compute_90a feature (Guide 19.1: compute_90
// does not allow it; ptxas for sm_90 stops with "Instruction
// 'setmaxnreg.dec' not supported on .target 'sm_90'", docs/feature-sets.md).
// Built for sm_90a alone (lab/CMakeLists.txt puts every lab/*/*_sm90a.cu in
// an object library with -gencode=arch=compute_90a,code=sm_90a, as the
// library's src/*/*_sm90a.cu), so its image loads on a cc 9.0 device only;
// l2.cu asks cudaFuncGetAttributes first and expects a refusal elsewhere.
// The body is compiled where __CUDA_ARCH_FEAT_SM90_ALL says the feature set
// is there: built for compute_90 by mistake, the kernel writes nothing and
// the poisoned outputs fail the check.
#include "l2/l2.h"

#include <cuda_runtime.h>
#include <stdint.h>

namespace {

constexpr int THREADS = LAB_L2_SM90A_THREADS;

// 384 threads and one block an SM: ptxas gives each thread 168 registers
// at launch (65536 / 384, rounded down to 8). Warp group 0 returns 128 of
// each of its threads' (to 40); groups 1 and 2 take 64 more each (to 232):
// 128 x 40 + 256 x 232 = 128 x 3 x 168, the block's registers exactly, the
// split the library's wgmma GEMM makes between its producer and consumers.
__global__ void __launch_bounds__(THREADS, 1) k_setmaxnreg(uint32_t *out, int *arch)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    const unsigned wg = threadIdx.x / 128;
    if (wg == 0) asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
    else asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
    const uint64_t g = (uint64_t)blockIdx.x * THREADS + threadIdx.x;
    out[g] = lab_l2_word(wg + 1, g);
    if (g == 0) {
        arch[0] = __CUDA_ARCH__;
        arch[1] = 1; // __CUDA_ARCH_FEAT_SM90_ALL was defined
    }
#endif
}

} // namespace

// cudaFuncGetAttributes of the kernel: the error says whether this device
// can load the sm_90a image at all.
extern "C" cudaError_t cupat__lab_l2_sm90a_attributes(cudaFuncAttributes *fa)
{
    return cudaFuncGetAttributes(fa, k_setmaxnreg);
}

extern "C" cudaError_t cupat__lab_l2_sm90a_launch(cudaStream_t s, int blocks, uint32_t *out, int *arch)
{
    k_setmaxnreg<<<blocks, THREADS, 0, s>>>(out, arch);
    return cudaGetLastError();
}
