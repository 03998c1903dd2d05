// SPDX-License-Identifier: Apache-2.0
// histogram_device.cuh — what the histogram rungs share on the device: the
// launch parameters, the bin rule (cupat.h; histogram_cpu.c is its host
// twin, operation for operation), the prologue that stages an 8-bit table or
// the range keys in shared memory, counter flushes, and the launch helpers.
#ifndef CUPAT_HISTOGRAM_DEVICE_CUH
#define CUPAT_HISTOGRAM_DEVICE_CUH

#include "cupat_warp.cuh"
#include "histogram/histogram_internal.h"
#include "internal.h"

#include <cuda_runtime.h>
#include <stdint.h>

namespace cupat_histogram {

constexpr int BLOCK = 256;
constexpr int NWARP = BLOCK / 32;
// Samples a launch takes at most: every shared and per-thread u32 counter
// of one launch stays below 2^31 (no overflow before the flush), and the
// launch start stays a multiple of 1..4 channels and of 16 bytes.
constexpr size_t LAUNCH_MAX = (size_t)3 << 29;

// One launch's parameters (a chunk of at most LAUNCH_MAX samples).
struct Params {
    const unsigned char *x; // the chunk's first sample
    unsigned n;             // samples in the chunk
    unsigned bins, total;   // bins a channel, bins * channels
    int channels;
    void *out;
    int out64;
    // even, integer samples
    long long ilo;
    unsigned long long irange;
    int imode;
    unsigned ishift;
    // even, f32
    float flo, fhi, fscale;
    // range: bins + 1 keys in device memory (float or long long)
    const void *keys;
    int keys_smem; // stage them in shared memory
    // private_global: copies of `total` u32 counters
    unsigned *priv;
    unsigned ncopies;
    // sub-histograms per block in shared memory (per_warp, vec16): 1..NWARP;
    // 0 (vec16 only): no shared histogram, updates go to the output
    int copies;
    int lut; // u8 samples: bins looked up in a 256 x channels table in shared memory
    int fast8; // u8, [0, 256), bins = 256 >> ishift: the bin is x >> ishift (vec16, cluster)
    unsigned hist_off; // bytes of the prologue region before the shared histogram
    unsigned sshift;   // cluster: each block holds 2^sshift bins (bin >> sshift: the owner)
};

template <typename T> struct KeyOf {
    typedef long long type;
};
template <> struct KeyOf<float> {
    typedef float type;
};

// ------------------------------------------------------------ bin rule --
__device__ __forceinline__ int even_bin(const Params &p, long long v)
{
    const long long d = v - p.ilo;
    if (d < 0 || (unsigned long long)d >= p.irange) return -1;
    if (p.imode == HIST_IMODE_SHIFT) return (int)((unsigned long long)d >> p.ishift);
    if (p.imode == HIST_IMODE_DIV32) return (int)((unsigned)d * p.bins / (unsigned)p.irange);
    return (int)((unsigned long long)d * p.bins / p.irange);
}
__device__ __forceinline__ int even_bin(const Params &p, float v)
{
    if (!(v >= p.flo && v < p.fhi)) return -1; // NaN fails both
    const unsigned b = (unsigned)__fmul_rn(__fsub_rn(v, p.flo), p.fscale); // no FMA
    return (int)(b < p.bins ? b : p.bins - 1);
}
// The number of keys <= v, less one: the bin, or -1 (below, above, NaN).
template <typename K, typename V>
__device__ __forceinline__ int range_bin(const Params &p, const K *keys, V v)
{
    unsigned lo = 0, len = p.bins + 1;
    while (len > 0) { // lower-bound style search for the first key > v
        const unsigned half = len >> 1, mid = lo + half;
        if (keys[mid] <= v) {
            lo = mid + 1;
            len -= half + 1;
        } else {
            len = half;
        }
    }
    return lo >= 1 && lo <= p.bins ? (int)lo - 1 : -1;
}

// The bin of a sample in this chunk at index i (channel offset included), -1
// for none. `smem` is the prologue's table or keys (or nullptr).
template <typename T, bool RANGE> struct Binner {
    const Params &p;
    const void *staged;
    __device__ __forceinline__ int operator()(T v, unsigned i) const
    {
        typedef typename KeyOf<T>::type K;
        if constexpr (sizeof(T) == 1) {
            if (p.lut) {
                const int *t = static_cast<const int *>(staged);
                return p.channels == 1 ? t[v] : t[(i % (unsigned)p.channels) * 256u + v];
            }
        }
        int b;
        if (RANGE) {
            const K *k = p.keys_smem ? static_cast<const K *>(staged) : static_cast<const K *>(p.keys);
            b = range_bin(p, k, (K)v);
        } else {
            b = even_bin(p, (typename KeyOf<T>::type)v);
        }
        if (b < 0 || p.channels == 1) return b;
        return b + (int)((i % (unsigned)p.channels) * p.bins);
    }
};

// Bytes of the prologue region (before any histogram in shared memory).
__host__ __device__ inline size_t prologue_bytes(const Params &p, int range, size_t ksize)
{
    size_t b = p.lut ? (size_t)256 * p.channels * 4 : range && p.keys_smem ? ((size_t)p.bins + 1) * ksize : 0;
    return (b + 15) & ~(size_t)15;
}

// Fill the prologue region; the caller syncs. The 8-bit table holds each
// byte value's bin under the full rule (channel offset included).
template <typename T, bool RANGE> __device__ __forceinline__ void stage(const Params &p, void *smem)
{
    typedef typename KeyOf<T>::type K;
    if (sizeof(T) == 1 && p.lut) { // (stage only builds the table for u8)
        int *t = static_cast<int *>(smem);
        Params q = p;
        q.lut = 0;
        q.keys_smem = 0;
        Binner<T, RANGE> b{q, nullptr};
        for (unsigned j = threadIdx.x; j < 256u * p.channels; j += blockDim.x) {
            const int c = (int)(j / 256u), bin = b((T)(j % 256u), (unsigned)c);
            t[j] = bin; // b() adds channel c's offset itself (i = c: i % channels == c)
        }
    } else if (RANGE && p.keys_smem) {
        K *k = static_cast<K *>(smem);
        const K *g = static_cast<const K *>(p.keys);
        for (unsigned j = threadIdx.x; j <= p.bins; j += blockDim.x) k[j] = g[j];
    }
}

// --------------------------------------------------------------- output --
__device__ __forceinline__ void out_add(const Params &p, unsigned b, unsigned c)
{
    if (p.out64) atomicAdd(static_cast<unsigned long long *>(p.out) + b, (unsigned long long)c);
    else atomicAdd(static_cast<unsigned *>(p.out) + b, c);
}

// Add `copies` shared sub-histograms (consecutive, `total` apart) into the
// output; zeros skipped. The caller syncs first.
__device__ __forceinline__ void flush_shared(const Params &p, const unsigned *h, int copies)
{
    for (unsigned b = threadIdx.x; b < p.total; b += blockDim.x) {
        unsigned s = 0;
        for (int c = 0; c < copies; c++) s += h[(size_t)c * p.total + b];
        if (s) out_add(p, b, s);
    }
}

__device__ __forceinline__ void zero_shared(unsigned *h, size_t count)
{
    for (size_t j = threadIdx.x; j < count; j += blockDim.x) h[j] = 0;
}

template <typename T> __device__ __forceinline__ T load(const Params &p, unsigned i)
{
    return reinterpret_cast<const T *>(p.x)[i];
}

// Every sample of the chunk, 16-byte loads (two in flight a thread) over a
// grid-stride loop, the unaligned head and the tail one sample a thread:
// add(bin) for each, in the thread's own order.
// The chunk as 16-byte vectors: `head` samples before the first aligned
// one, `nvec` vectors, then the samples from `tail` on.
template <typename T> struct Split16 {
    unsigned head, nvec, tail;
    __device__ __forceinline__ explicit Split16(const Params &p)
    {
        constexpr unsigned V = 16 / sizeof(T);
        const unsigned mis = (unsigned)(((uintptr_t)p.x & 15) / sizeof(T));
        head = mis ? (V - mis < p.n ? V - mis : p.n) : 0;
        nvec = (p.n - head) / V;
        tail = head + nvec * V;
    }
};

template <typename T, bool FAST8, class Bin, class Add>
__device__ __forceinline__ void for_each_bin16(const Params &p, const Bin &bin, Add &add)
{
    constexpr unsigned V = 16 / sizeof(T);
    const Split16<T> sp(p);
    const unsigned head = sp.head, nvec = sp.nvec, tail = sp.tail;
    const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x, nth = gridDim.x * blockDim.x;
    const uint4 *xv = reinterpret_cast<const uint4 *>(p.x + (size_t)head * sizeof(T));
    auto one = [&](T v, unsigned i) { add(FAST8 ? (int)((unsigned)v >> p.ishift) : bin(v, i)); };
    auto vec = [&](uint4 w, unsigned i0) {
        T s[V];
        memcpy(s, &w, 16);
#pragma unroll
        for (unsigned k = 0; k < V; k++) one(s[k], i0 + k);
    };
    for (unsigned v = tid; v < nvec; v += 2 * nth) {
        const uint4 a = __ldg(xv + v);
        const bool two = v + nth < nvec;
        uint4 b = a;
        if (two) b = __ldg(xv + v + nth);
        vec(a, head + v * V);
        if (two) vec(b, head + (v + nth) * V);
    }
    if (tid < head) one(load<T>(p, tid), tid);
    if (tid < p.n - tail) one(load<T>(p, tail + tid), tail + tid);
}

// A thread's run of equal bins, counted in a register (PMPP 9.6's
// aggregation): update(bin, count) when the bin changes; finish() leaves
// the last run for the caller (warp-aggregated there).
template <class Update> struct Run {
    Update &update;
    int cur = -1;
    unsigned cnt = 0;
    __device__ __forceinline__ explicit Run(Update &u) : update(u) {}
    __device__ __forceinline__ void operator()(int b)
    {
        if (b == cur) {
            cnt++;
        } else {
            if (cur >= 0) update((unsigned)cur, cnt);
            cur = b;
            cnt = 1;
        }
    }
    // Every lane of the warp calls: the lanes holding the same last bin add
    // their counts and the group's lowest lane makes the one update.
    __device__ __forceinline__ void finish()
    {
        __syncwarp();
        bool leader;
        const unsigned s = cupat_dev::warp_aggregate_add(cur, cnt, leader);
        if (leader && cur >= 0 && s) update((unsigned)cur, s);
    }
};

} // namespace cupat_histogram

// ---------------------------------------------------------- host side --
namespace cupat_histogram {
// A kernel family templated on <T, RANGE, FAST8> as a pointer for the
// request's sample type: K::template get<T, RANGE, FAST8>() names one
// instance; FAST8 only for u8 samples with the even rule.
template <class K> const void *kernel_for(cupat_hist_sample s, int range, int fast8)
{
    switch (s) {
    case CUPAT_HIST_U8:
        if (range) return K::template get<uint8_t, true, false>();
        return fast8 ? K::template get<uint8_t, false, true>() : K::template get<uint8_t, false, false>();
    case CUPAT_HIST_U16:
        return range ? K::template get<uint16_t, true, false>() : K::template get<uint16_t, false, false>();
    case CUPAT_HIST_I32:
        return range ? K::template get<int32_t, true, false>() : K::template get<int32_t, false, false>();
    case CUPAT_HIST_F32:
        return range ? K::template get<float, true, false>() : K::template get<float, false, false>();
    }
    return nullptr;
}
// The kernels of histogram_warp.cu and histogram_cluster.cu, as pointers
// for cudaLaunchKernel: (Params) each; the cluster kernel's grid must be a
// multiple of its cluster size.
const void *warp_kernel(int rung, cupat_hist_sample s, int range, int fast8);
const void *cluster_kernel(cupat_hist_sample s, int range, int fast8);
constexpr int CLUSTER_BLOCK = 512;
// histogram_packed.cu: 16-bit counters in pairs, blocks of PACKED_BLOCK.
const void *packed_kernel(cupat_hist_sample s, int range, int fast8);
constexpr int PACKED_BLOCK = 1024;
// histogram_bytes.cu: 8-bit samples of 1..4 channels; blocks of
// bytes_block(channels) threads with bytes_smem(channels) of shared memory.
const void *bytes_kernel(int channels);
inline int bytes_block(int channels) { return channels == 4 ? 128 : 256; }
inline size_t bytes_smem(int channels)
{
    const int per = 256 / bytes_block(channels); // channel slices a 256-byte row holds
    return (size_t)((channels + per - 1) / per) << 16;
}
} // namespace cupat_histogram

#endif
