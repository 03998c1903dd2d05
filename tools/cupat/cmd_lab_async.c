/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_lab_async.c — `cupat lab async`: asynchronous barriers, memcpy_async,
 * cuda::pipeline and TMA (lab/async); the command is cli_lab_main. */
#include "cli.h"
#include "commands.h"

#include "async/async.h"

int cmd_lab_async(int argc, char **argv)
{
    static const cli_lab_desc d = {
        "cupat lab async", "async",
        "Asynchronous data movement (CUDA Guide 10.26-10.29): cuda::barrier against __syncthreads,\n"
        "warp specialization with full / empty barriers, memcpy_async (cooperative groups, barrier,\n"
        "pipeline) against register staging, the alignment rule, warp entanglement, cuda::pipeline\n"
        "and the primitives against raw cp.async, and TMA: 1D bulk copies, 2D tensor-map tiles in\n"
        "each swizzle mode. Every row checks its data (ok / FAIL); the TMA experiments need cc 9.0,\n"
        "the others cc 8.0, and a device below gets one 'not supported' row.",
        lab_async_exp, lab_async_run};
    return cli_lab_main(argc, argv, &d);
}
