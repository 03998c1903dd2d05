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
