// cupat_async.cuh — asynchronous global -> shared copies (cp.async, sm_80+;
// CUDA Guide 10.27): a thread hands the copy to the memory system and goes
// on; the data is in shared memory after wait_all (and a barrier, for the
// other threads). No registers hold it in between.
// (gemm_async.cuh keeps its float forms with a source size for zero-filled
// edges; these are the plain whole-element copies.)
#ifndef CUPAT_ASYNC_CUH
#define CUPAT_ASYNC_CUH

namespace cupat_dev {

// Copy BYTES (4, 8 or 16; aligned to BYTES at both ends) from global src to
// shared dst.
template <int BYTES> __device__ __forceinline__ void cp_async(void *dst, const void *src)
{
    static_assert(BYTES == 4 || BYTES == 8 || BYTES == 16, "cp.async copies 4, 8 or 16 bytes");
    const unsigned s = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(s), "l"(src), "n"(BYTES) : "memory");
}
// Wait for every copy this thread has issued.
__device__ __forceinline__ void cp_async_wait_all() { asm volatile("cp.async.wait_all;\n" ::: "memory"); }

} // namespace cupat_dev
#endif
