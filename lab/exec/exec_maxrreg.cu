// SPDX-License-Identifier: Apache-2.0
// exec_maxrreg.cu — the register-cliff kernel compiled with -maxrregcount=64
// (lab/CMakeLists.txt sets it on this file only): the command-line cap,
// which applies to every kernel of the file that has no launch bounds of
// its own (PCCP 4.1, Guide 8.2.3).
#include "exec/exec_cliff.cuh"

namespace {
__global__ void k_cliff_maxrreg(const float4 *in, size_t n4, float *out)
{
    exec_cliff_body(in, n4, out);
}
} // namespace

extern "C" cupat_status cupat__lab_exec_cliff_maxrreg(cupat_ctx *ctx, const float *d_in, size_t n4, int reps,
                                                      float *d_out, float *times, lab_exec_cliff *attr)
{
    return exec_cliff_measure(ctx, k_cliff_maxrreg, d_in, n4, reps, d_out, times, attr);
}
