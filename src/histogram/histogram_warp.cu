// SPDX-License-Identifier: Apache-2.0
// histogram_warp.cu — histogram rungs beyond the book, on warps: warp-
// aggregated updates (__match_any_sync), per-warp sub-histograms, and the
// default vec16 (per-warp copies, 16-byte loads, runs counted in registers,
// the last run warp-aggregated). The launches are in histogram_book.cu.
#include "histogram/histogram_device.cuh"

namespace cupat_histogram {
namespace {

// warp_aggregated: a resident grid strides over the samples a warp at a
// time (warp-uniform trip count, so match_any sees all 32 lanes); the lanes
// of one bin elect their lowest lane, which adds the group's size to the
// block's shared copy. All-equal data: one shared atomic per 32 samples.
template <typename T, bool RANGE> __global__ void __launch_bounds__(BLOCK) k_warp_aggregated(Params p)
{
    extern __shared__ __align__(16) unsigned char smem[];
    stage<T, RANGE>(p, smem);
    unsigned *h = reinterpret_cast<unsigned *>(smem + p.hist_off);
    zero_shared(h, p.total);
    __syncthreads();
    const Binner<T, RANGE> bin{p, smem};
    const unsigned lane = cupat_dev::lane_id();
    const size_t stride = (size_t)gridDim.x * BLOCK;
    for (size_t base = (size_t)blockIdx.x * BLOCK + (threadIdx.x & ~31u); base < p.n; base += stride) {
        const size_t i = base + lane;
        const int b = i < p.n ? bin(load<T>(p, (unsigned)i), (unsigned)i) : -1;
        bool leader;
        const unsigned c = cupat_dev::warp_aggregate_add(b, 1u, leader);
        if (leader && b >= 0) atomicAdd(&h[b], c);
    }
    __syncthreads();
    flush_shared(p, h, 1);
}

// per_warp: the same stride, one update a sample, but each warp adds into its
// own sub-histogram (warp w into copy w mod copies): a hot bin is contended
// by 32 lanes, not by the block; the copies are summed at the end.
template <typename T, bool RANGE> __global__ void __launch_bounds__(BLOCK) k_per_warp(Params p)
{
    extern __shared__ __align__(16) unsigned char smem[];
    stage<T, RANGE>(p, smem);
    unsigned *hb = reinterpret_cast<unsigned *>(smem + p.hist_off);
    zero_shared(hb, (size_t)p.copies * p.total);
    __syncthreads();
    unsigned *h = hb + (size_t)((threadIdx.x / 32) % p.copies) * p.total;
    const Binner<T, RANGE> bin{p, smem};
    for (unsigned i = blockIdx.x * BLOCK + threadIdx.x; i < p.n; i += gridDim.x * BLOCK) {
        const int b = bin(load<T>(p, i), i);
        if (b >= 0) atomicAdd(&h[b], 1u);
    }
    __syncthreads();
    flush_shared(p, hb, p.copies);
}

// vec16 (the default): 16-byte loads, two in flight a thread; each thread
// counts runs of equal bins in a register and updates its warp's copy once a
// run (uniform data: nearly every sample; all-equal data: never until the
// end); the last run of every thread is warp-aggregated. copies == 0: no
// shared histogram (too many bins), updates go to the output.
template <typename T, bool RANGE, bool FAST8> __global__ void __launch_bounds__(BLOCK) k_vec16(Params p)
{
    extern __shared__ __align__(16) unsigned char smem[];
    stage<T, RANGE>(p, smem);
    unsigned *hb = reinterpret_cast<unsigned *>(smem + p.hist_off);
    if (p.copies) zero_shared(hb, (size_t)p.copies * p.total);
    __syncthreads();
    unsigned *h = p.copies ? hb + (size_t)((threadIdx.x / 32) % p.copies) * p.total : nullptr;
    const Binner<T, RANGE> bin{p, smem};
    auto update = [&](unsigned b, unsigned c) {
        if (h) atomicAdd(&h[b], c);
        else out_add(p, b, c);
    };
    Run<decltype(update)> run(update);
    for_each_bin16<T, FAST8>(p, bin, run);
    run.finish();
    if (p.copies) {
        __syncthreads();
        flush_shared(p, hb, p.copies);
    }
}

template <typename T, bool R> const void *kernel_of(int rung, int fast8)
{
    switch (rung) {
    case HR_WARP_AGGREGATED: return (const void *)k_warp_aggregated<T, R>;
    case HR_PER_WARP: return (const void *)k_per_warp<T, R>;
    case HR_VEC16:
        if constexpr (sizeof(T) == 1 && !R)
            if (fast8) return (const void *)k_vec16<T, R, true>;
        return (const void *)k_vec16<T, R, false>;
    default: return nullptr;
    }
}

} // namespace

const void *warp_kernel(int rung, cupat_hist_sample s, int range, int fast8)
{
    switch (s) {
    case CUPAT_HIST_U8: return range ? kernel_of<uint8_t, true>(rung, 0) : kernel_of<uint8_t, false>(rung, fast8);
    case CUPAT_HIST_U16: return range ? kernel_of<uint16_t, true>(rung, 0) : kernel_of<uint16_t, false>(rung, 0);
    case CUPAT_HIST_I32: return range ? kernel_of<int32_t, true>(rung, 0) : kernel_of<int32_t, false>(rung, 0);
    case CUPAT_HIST_F32: return range ? kernel_of<float, true>(rung, 0) : kernel_of<float, false>(rung, 0);
    }
    return nullptr;
}

} // namespace cupat_histogram
