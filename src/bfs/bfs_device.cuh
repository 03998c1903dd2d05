// SPDX-License-Identifier: Apache-2.0
// bfs_device.cuh — device pieces the "bfs" kernels share: claiming a
// vertex, the warp-aggregated queue append, the frontier bitmap.
#ifndef CUPAT_BFS_DEVICE_CUH
#define CUPAT_BFS_DEVICE_CUH

#include "cupat_warp.cuh"

#include <stdint.h>

namespace cupat_bfs_dev {

constexpr unsigned FULL = 0xffffffffu;

// Claim unvisited w for level `next`: a plain read first (most neighbours
// are visited: no atomic for them), then one atomicCAS decides among the
// threads that found it unvisited together (PMPP 15.5).
__device__ __forceinline__ bool claim(int32_t *levels, int32_t w, int32_t next)
{
    return levels[w] == -1 && atomicCAS(&levels[w], -1, next) == -1;
}

// The queue place of each pushing lane: one atomicAdd a warp (ballot rank,
// the leader's add broadcast). Every lane of the warp calls; lanes that do
// not push get ~0u.
__device__ __forceinline__ unsigned warp_slot(bool push, unsigned int *count)
{
    unsigned n;
    const unsigned rank = cupat_dev::warp_ballot_rank(push, n);
    if (n == 0) return ~0u; // the whole warp agrees
    unsigned base = 0;
    if (cupat_dev::lane_id() == 0) base = atomicAdd(count, n);
    base = __shfl_sync(FULL, base, 0);
    return push ? base + rank : ~0u;
}

// Append the lanes' claimed vertices to the queue (warp-aggregated).
__device__ __forceinline__ void warp_push(bool push, int32_t w, int32_t *queue,
                                          unsigned int *count)
{
    const unsigned at = warp_slot(push, count);
    if (push) queue[at] = w;
}

// warp_push with a payload: the vertex's out-degree goes to degs at the
// same place (the edge-balanced expansion scans them into offsets).
template <typename D>
__device__ __forceinline__ void warp_push_deg(bool push, int32_t w, D deg, int32_t *queue,
                                              D *degs, unsigned int *count)
{
    const unsigned at = warp_slot(push, count);
    if (push) {
        queue[at] = w;
        degs[at] = deg;
    }
}

__device__ __forceinline__ bool bit_test(const uint32_t *bm, int32_t v)
{
    return (bm[v >> 5] >> (v & 31)) & 1u;
}

} // namespace cupat_bfs_dev
#endif
