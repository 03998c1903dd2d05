/* SPDX-License-Identifier: Apache-2.0 */
/* bandwidth.h — the kernels `cupat bandwidth` times where the GPU itself
 * touches memory: zero-copy (mapped pinned host memory read or written over
 * the link) and managed memory read in place (page faults or prefetched). */
#ifndef CUPAT_BENCH_BANDWIDTH_H
#define CUPAT_BENCH_BANDWIDTH_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Queue on `stream` a kernel of `blocks` x 256 threads that reads all `bytes`
 * at p (a device-visible address: device, mapped host or managed memory; 16-byte
 * aligned for full speed) once, with loads that refetch system memory rather
 * than hit a stale L2 line. Returns the launch's error. */
cudaError_t bench_bw_read(const void *p, size_t bytes, int blocks, cudaStream_t stream);

/* Same shape, writing `bytes` of the byte `value` at p with write-through
 * stores (so zero-copy writes reach host memory, not just L2). */
cudaError_t bench_bw_write(void *p, size_t bytes, unsigned char value, int blocks,
                           cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
