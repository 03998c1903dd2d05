/* SPDX-License-Identifier: Apache-2.0 */
/* occupancy_query.c — occ_device_query: the calculator's figures of the
 * device present, from cudaGetDeviceProperties. */
#include "exec/occupancy.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <string.h>

int occ_device_query(int device, occ_device *d, char *what_buf, size_t what_len, char *why, size_t why_len)
{
    struct cudaDeviceProp p;
    cudaError_t e = cudaGetDeviceProperties(&p, device);
    if (e != cudaSuccess) {
        snprintf(why, why_len, "device %d: %s", device, cudaGetErrorString(e));
        cudaGetLastError();
        return -1;
    }
    memset(d, 0, sizeof *d);
    snprintf(what_buf, what_len, "%s (sm_%d%d, device %d): %d threads, %d blocks, %d registers, %zu KiB shared an SM",
             p.name, p.major, p.minor, device, p.maxThreadsPerMultiProcessor, p.maxBlocksPerMultiProcessor,
             p.regsPerMultiprocessor, p.sharedMemPerMultiprocessor / 1024);
    d->name = "device";
    d->what = what_buf;
    d->cc_major = p.major;
    d->cc_minor = p.minor;
    d->warp_size = p.warpSize;
    d->max_threads_per_block = p.maxThreadsPerBlock;
    d->threads_per_sm = p.maxThreadsPerMultiProcessor;
    d->blocks_per_sm = p.maxBlocksPerMultiProcessor;
    d->regs_per_sm = p.regsPerMultiprocessor;
    d->regs_per_block = p.regsPerBlock;
    d->max_regs_per_thread = 255;
    d->reg_unit = 256;  /* cc 3.0 and later */
    d->sub_partitions = p.major == 6 && p.minor == 0 ? 2 : 4;
    d->smem_per_sm = p.sharedMemPerMultiprocessor;
    d->smem_per_block = p.sharedMemPerBlock;
    d->smem_per_block_optin = p.sharedMemPerBlockOptin;
    d->smem_reserved = p.reservedSharedMemPerBlock;
    d->smem_unit = p.major >= 8 ? 128 : 256;
    d->rule = OCC_RULE_HARDWARE;
    return 0;
}
