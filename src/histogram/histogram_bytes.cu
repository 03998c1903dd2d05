// histogram_bytes.cu — byte_counters: 8-bit samples counted with no atomics
// (the CUDA SDK's histogram64, Podlozhnyuk 2007, taken to 256 values and to
// 16-byte loads). Every thread owns one 8-bit counter per (channel, byte
// value) in shared memory and counts with a plain load, add and store: nobody
// else touches its counters, so there is no atomic and no contention, and
// skewed or all-equal data run as fast as uniform data.
//
// Layout: row v (256 bytes) of a 64 KiB plane holds value v's counters of
// every thread; thread t's byte in it is
//   off(t) = 4 (t mod 32) + (t / 32 mod 4) + 128 (t / 128),
// so the 32 lanes of a warp fall in 32 different banks whatever values they
// count, and a counter's address (v << 8 | off, plus its plane) is one byte
// permute of the loaded word. A counter holds 255: every ROUND vectors a
// thread (240 samples) the block syncs and sums each row into 32-bit totals
// held in registers (four counters a __dp4a), zeroing it as it goes.
//
// Samples are counted by byte value; the bin rule (even, range, channel
// offsets) is applied once per value at the end, so one kernel serves every
// 8-bit request. 1..3 channels: 256 threads, a 64 KiB plane a channel;
// 4 channels: 128 threads, two channels a plane. The launch is in
// histogram_book.cu.
#include "histogram/histogram_device.cuh"

#include <stdlib.h>

namespace cupat_histogram {
namespace {

constexpr int ROUND = 15; // 16-byte vectors a thread between merges: 240 counts < 256
constexpr int BATCH = 5;  // vectors loaded before any is counted

// The bin of byte value v in channel c (sample index i with i % channels ==
// c), -1 for none: the full rule, keys read from global memory.
__device__ __forceinline__ int byte_bin(const Params &p, uint8_t v, unsigned i)
{
    return p.keys ? Binner<uint8_t, true>{p, nullptr}(v, i) : Binner<uint8_t, false>{p, nullptr}(v, i);
}

// Count the 16 samples of w; sample k is in channel (phase + k) mod C, and
// yr[m] is the counter offset word of channel (phase + m) mod C.
template <int C, bool RED>
__device__ __forceinline__ void count16(unsigned char *smem, const uint4 &w, const unsigned (&yr)[C], unsigned inc)
{
    const unsigned wd[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
    for (int k = 0; k < 16; k++) {
        // bytes of the address: yr's low byte, the sample, yr's plane bytes
        const unsigned a = __byte_perm(wd[k >> 2], yr[k % C], 0x7604u | ((unsigned)(k & 3) << 4));
        if (RED) atomicAdd(reinterpret_cast<unsigned *>(smem + (a & ~3u)), inc);
        else smem[a] = (unsigned char)(smem[a] + 1);
    }
}

template <int C, int T, bool RED> __global__ void __launch_bounds__(T, C == 1 ? 3 : 1) k_bytes(Params p)
{
    extern __shared__ __align__(16) unsigned char smem[];
    constexpr int PER = 256 / T;       // channel slices in a 256-byte row
    constexpr int PAIRS = 256 * C / T; // (channel, value) totals a thread keeps
    constexpr int CHUNKS = T / 16;     // 16-byte pieces of a slice
    constexpr unsigned BYTES = (unsigned)((C + PER - 1) / PER) << 16;
    const unsigned t = threadIdx.x, lane = t & 31;
    const unsigned off = 4 * lane + ((t >> 5) & 3) + 128 * (t >> 7);
    const unsigned inc = 1u << (8 * ((t >> 5) & 3)); // RED: this thread's byte of the word
    unsigned y[C]; // channel c: off within its slice, plane in bytes 2..3
#pragma unroll
    for (int c = 0; c < C; c++) y[c] = off + (unsigned)(c % PER) * T + ((unsigned)(c / PER) << 16);
    for (unsigned j = t; j < BYTES / 16; j += T) reinterpret_cast<uint4 *>(smem)[j] = make_uint4(0, 0, 0, 0);
    __syncthreads();

    const Split16<uint8_t> sp(p);
    const uint4 *xv = reinterpret_cast<const uint4 *>(p.x + sp.head);
    const unsigned nth = gridDim.x * T, gt = blockIdx.x * T + t;
    unsigned tot[PAIRS];
#pragma unroll
    for (int q = 0; q < PAIRS; q++) tot[q] = 0;

    for (unsigned base = 0; base < sp.nvec; base += nth * ROUND) {
#pragma unroll
        for (int b = 0; b < ROUND; b += BATCH) {
            uint4 w[BATCH];
#pragma unroll
            for (int k = 0; k < BATCH; k++) {
                const unsigned v = base + (unsigned)(b + k) * nth + gt;
                if (v < sp.nvec) w[k] = __ldg(xv + v);
            }
#pragma unroll
            for (int k = 0; k < BATCH; k++) {
                const unsigned v = base + (unsigned)(b + k) * nth + gt;
                if (v >= sp.nvec) continue;
                unsigned yr[C];
                const unsigned ph = (sp.head + v * 16u) % C; // channel of the vector's first byte
#pragma unroll
                for (int m = 0; m < C; m++) {
                    const unsigned s = ph + m >= (unsigned)C ? ph + m - C : ph + m;
                    yr[m] = y[0];
#pragma unroll
                    for (int c = 1; c < C; c++)
                        if (s == (unsigned)c) yr[m] = y[c];
                }
                count16<C, RED>(smem, w[k], yr, inc);
            }
        }
        __syncthreads();
        // Merge: thread t sums the rows of its PAIRS (channel, value) pairs,
        // its 16-byte pieces rotated by lane so that a quarter-warp's loads
        // fall in distinct banks, and zeroes them for the next round.
#pragma unroll
        for (int q = 0; q < PAIRS; q++) {
            const unsigned c = (unsigned)(q * T) >> 8, v = t + ((unsigned)(q * T) & 255u);
            uint4 *row = reinterpret_cast<uint4 *>(smem + ((c / PER) << 16) + (v << 8) + (c % PER) * T);
            unsigned s = 0;
#pragma unroll
            for (int k = 0; k < CHUNKS; k++) {
                const unsigned m = (k + lane) & (CHUNKS - 1);
                const uint4 z = row[m];
                s = __dp4a(z.x, 0x01010101u, s);
                s = __dp4a(z.y, 0x01010101u, s);
                s = __dp4a(z.z, 0x01010101u, s);
                s = __dp4a(z.w, 0x01010101u, s);
                row[m] = make_uint4(0, 0, 0, 0);
            }
            tot[q] += s;
        }
        __syncthreads();
    }

    // The unaligned head and the tail (fewer than 16 samples each): straight
    // to the output.
    if (gt < sp.head) {
        const int b = byte_bin(p, p.x[gt], gt);
        if (b >= 0) out_add(p, (unsigned)b, 1u);
    }
    if (gt < p.n - sp.tail) {
        const unsigned i = sp.tail + gt;
        const int b = byte_bin(p, p.x[i], i);
        if (b >= 0) out_add(p, (unsigned)b, 1u);
    }
    // Each (channel, value) total into its bin.
#pragma unroll
    for (int q = 0; q < PAIRS; q++) {
        if (!tot[q]) continue;
        const unsigned c = (unsigned)(q * T) >> 8, v = t + ((unsigned)(q * T) & 255u);
        const int b = byte_bin(p, (uint8_t)v, c);
        if (b >= 0) out_add(p, (unsigned)b, tot[q]);
    }
}

} // namespace

template <bool RED> const void *bytes_kernel_of(int channels)
{
    switch (channels) {
    case 1: return (const void *)k_bytes<1, 256, RED>;
    case 2: return (const void *)k_bytes<2, 256, RED>;
    case 3: return (const void *)k_bytes<3, 256, RED>;
    case 4: return (const void *)k_bytes<4, 128, RED>;
    }
    return nullptr;
}

const void *bytes_kernel(int channels)
{
    // EXPERIMENT (removed once measured): CUPAT_HIST_BYTES_RED=1 counts with a
    // shared atomic add on the counter's word instead of load-add-store.
    const char *e = getenv("CUPAT_HIST_BYTES_RED");
    return e && e[0] == '1' ? bytes_kernel_of<true>(channels) : bytes_kernel_of<false>(channels);
}

} // namespace cupat_histogram
