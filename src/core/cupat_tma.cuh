// SPDX-License-Identifier: Apache-2.0
// cupat_tma.cuh — Hopper's tensor memory accelerator (TMA) and the mbarriers
// that count its bytes, as small wrappers over the PTX (PTX ISA 9.7.9.25-27,
// 9.7.13.15; CUDA C++ Programming Guide, "Tensor Memory Access"): a box of a
// 2D tensor map into shared memory, completion counted on an mbarrier; a box
// from shared memory back to global memory in a bulk async-group; and the
// host side, cuTensorMapEncodeTiled through the runtime's driver entry point
// (no -lcuda). The device wrappers exist for sm_90 and later only.
#ifndef CUPAT_TMA_CUH
#define CUPAT_TMA_CUH

#include "internal.h"

#include <cuda.h>
#include <stdint.h>

// A row-major rows x cols tensor of `type` (pitch bytes between rows, a
// multiple of 16; base 16-byte aligned) as a tensor map whose box is
// box_cols x box_rows; reads past the edges give zeros, writes past them are
// dropped. `fn` names the caller in the error message.
cupat_status cupat__tensor_map_2d(cupat_ctx *ctx, CUtensorMap *map, CUtensorMapDataType type,
                                  const void *base, uint64_t cols, uint64_t rows, uint64_t pitch,
                                  uint32_t box_cols, uint32_t box_rows, CUtensorMapSwizzle swizzle,
                                  const char *fn);

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
namespace cupat_tma {

__device__ __forceinline__ unsigned smem_addr(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

__device__ __forceinline__ void bar_init(unsigned bar, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
// After the inits, before the copy engine signals them (async proxy).
__device__ __forceinline__ void bar_init_fence()
{
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
__device__ __forceinline__ void bar_expect(unsigned bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void bar_arrive(unsigned bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}
__device__ __forceinline__ void bar_wait(unsigned bar, unsigned parity)
{
    unsigned ok = 0;
    do {
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                     : "=r"(ok)
                     : "r"(bar), "r"(parity)
                     : "memory");
    } while (!ok);
}
// Orders this thread's shared-memory accesses (generic proxy) before later
// copy-engine accesses (async proxy): before a TMA store reads what the
// threads wrote, and before a TMA load overwrites what they read.
__device__ __forceinline__ void fence_async_shared() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }

// The box at (c0 innermost, c1) of map into shared memory at dst; its bytes
// complete on bar.
__device__ __forceinline__ void load_2d(unsigned dst, const CUtensorMap *map, int c0, int c1, unsigned bar)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(dst),
                 "l"((uint64_t)map), "r"(c0), "r"(c1), "r"(bar)
                 : "memory");
}
// `bytes` contiguous bytes (a multiple of 16, both ends 16-byte aligned) from
// global memory at src into shared memory at dst; they complete on bar.
__device__ __forceinline__ void load_1d(unsigned dst, const void *src, unsigned bytes, unsigned bar)
{
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(dst),
                 "l"(src), "r"(bytes), "r"(bar)
                 : "memory");
}
// Shared memory at src to the box at (c0, c1) of map, in this thread's
// current bulk async-group (closed by commit()).
__device__ __forceinline__ void store_2d(const CUtensorMap *map, int c0, int c1, unsigned src)
{
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];" ::"l"((uint64_t)map),
                 "r"(c0), "r"(c1), "r"(src)
                 : "memory");
}
__device__ __forceinline__ void commit() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }
// Until at most N of this thread's committed groups still read shared memory.
template <int N> __device__ __forceinline__ void wait_read()
{
    asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}

} // namespace cupat_tma
#endif

#endif
