// SPDX-License-Identifier: Apache-2.0
// lab_sreg.cuh — the PTX special registers the GPU labs read: which SM runs
// this thread (%smid, below %nsmid) and the global nanosecond timer
// (%globaltimer), for spinning a fixed time whatever the SM clock.
#pragma once

namespace cupat_lab {

__device__ __forceinline__ unsigned smid()
{
    unsigned r;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
    return r;
}
__device__ __forceinline__ unsigned nsmid()
{
    unsigned r;
    asm volatile("mov.u32 %0, %%nsmid;" : "=r"(r));
    return r;
}
__device__ __forceinline__ unsigned long long globaltimer()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

} // namespace cupat_lab

// Thread-block clusters (sm_90): this block's rank in its cluster, the
// cluster's blocks, and the cluster's index in the grid, as the hardware
// numbers them (the labs compare them with the cluster group API).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define CUPAT_LAB_SREG(name, reg)                                                                                     \
    __device__ __forceinline__ unsigned name()                                                                         \
    {                                                                                                                  \
        unsigned r;                                                                                                    \
        asm volatile("mov.u32 %0, %%" reg ";" : "=r"(r));                                                              \
        return r;                                                                                                      \
    }
namespace cupat_lab {
CUPAT_LAB_SREG(cluster_ctarank, "cluster_ctarank")
CUPAT_LAB_SREG(cluster_nctarank, "cluster_nctarank")
CUPAT_LAB_SREG(clusterid_x, "clusterid.x")
CUPAT_LAB_SREG(clusterid_y, "clusterid.y")
CUPAT_LAB_SREG(clusterid_z, "clusterid.z")
} // namespace cupat_lab
#undef CUPAT_LAB_SREG
#endif
