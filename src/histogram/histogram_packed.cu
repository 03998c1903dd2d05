// SPDX-License-Identifier: Apache-2.0
// histogram_packed.cu — packed16: a histogram of up to twice the bins a
// block holds as u32, as 16-bit counters in pairs: bin b is half (b & 1) of
// shared word b >> 1, added to with one 32-bit shared atomic. 65536 bins
// (256 KiB as u32, more than a block may hold) take 128 KiB: one block a
// SM, one histogram for the whole block instead of a cluster's.
//
// A 16-bit half overflows; the atomic's old value says when, exactly:
//   - the low half (even bin) passing 0xFFFF carries one into the high half:
//     2^16 counts go to the output for b, and an atomic takes the carry back;
//   - the word passing 2^32 (high half over 0xFFFF) drops 2^16 counts of the
//     odd bin: they go to the output;
//   - a take-back that finds the high half at 0 wraps the word below zero,
//     lending 2^16 to the odd bin: the output gets them subtracted.
// All adds commute, so the order in which these reach the output does not
// matter, and what the word holds at the end is each bin's count modulo
// 2^16. Loads, runs in registers and the warp-aggregated last run as vec16
// (a run longer than 0xFFFF sends its bulk straight to the output). The
// launch is in histogram_book.cu.
#include "histogram/histogram_device.cuh"

namespace cupat_histogram {
namespace {

__device__ __forceinline__ void out_sub_64k(const Params &p, unsigned b)
{
    if (p.out64) atomicAdd(static_cast<unsigned long long *>(p.out) + b, (unsigned long long)-0x10000ll);
    else atomicAdd(static_cast<unsigned *>(p.out) + b, 0u - 0x10000u);
}

template <typename T, bool RANGE, bool FAST8>
__global__ void __launch_bounds__(PACKED_BLOCK) k_packed16(Params p)
{
    extern __shared__ __align__(16) unsigned char smem[];
    stage<T, RANGE>(p, smem);
    unsigned *h = reinterpret_cast<unsigned *>(smem + p.hist_off);
    const unsigned words = (p.total + 1) / 2;
    zero_shared(h, words);
    __syncthreads();
    const Binner<T, RANGE> bin{p, smem};
    auto update = [&](unsigned b, unsigned c) {
        if (c > 0xFFFFu) { // at most 0xFFFF a word update: one overflow at most
            out_add(p, b, c & ~0xFFFFu);
            c &= 0xFFFFu;
            if (!c) return;
        }
        unsigned *w = &h[b >> 1];
        if (b & 1) {
            const unsigned d = c << 16, old = atomicAdd(w, d);
            if (old + d < old) out_add(p, b, 0x10000u); // the word wrapped
        } else {
            const unsigned old = atomicAdd(w, c);
            if (old + c < old) out_add(p, b | 1, 0x10000u); // the carry wrapped the word
            if ((old & 0xFFFFu) + c > 0xFFFFu) {           // b's half overflowed
                out_add(p, b, 0x10000u);
                const unsigned f = atomicAdd(w, 0xFFFF0000u); // take the carry back
                if (f < 0x10000u) out_sub_64k(p, b | 1);      // ... which wrapped below zero
            }
        }
    };
    Run<decltype(update)> run(update);
    for_each_bin16<T, FAST8>(p, bin, run);
    run.finish();
    __syncthreads();
    for (unsigned j = threadIdx.x; j < words; j += blockDim.x) {
        const unsigned v = h[j], b = 2 * j;
        if (v & 0xFFFFu) out_add(p, b, v & 0xFFFFu);
        if ((v >> 16) && b + 1 < p.total) out_add(p, b + 1, v >> 16);
    }
}

struct Kernels {
    template <typename T, bool R, bool F> static const void *get() { return (const void *)k_packed16<T, R, F>; }
};

} // namespace

const void *packed_kernel(cupat_hist_sample s, int range, int fast8)
{
    return kernel_for<Kernels>(s, range, fast8);
}

} // namespace cupat_histogram
