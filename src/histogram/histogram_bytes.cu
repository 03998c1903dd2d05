// SPDX-License-Identifier: Apache-2.0
// histogram_bytes.cu — byte_counters: 8-bit samples in per-thread 8-bit
// counters (the CUDA SDK's histogram64, Podlozhnyuk 2007, taken to 256
// values, 16-byte loads and 1..4 channels). Every thread owns one 8-bit
// counter per (channel, byte value) in shared memory: no other thread adds
// to it, so skewed or all-equal data run as fast as uniform data.
//
// Layout: row v (256 bytes) of a 64 KiB plane holds value v's counters of
// every thread; thread t's byte in it is
//   off(t) = 4 (t mod 32) + (t / 32 mod 4) + 128 (t / 128),
// so the 32 lanes of a warp fall in 32 different banks whatever values they
// count, and a counter's word address (v << 8 | off & ~3, plus its plane) is
// one byte permute of the loaded word. A count is one shared atomic add of
// 1 << 8 (off & 3) on that word: four threads (of four warps) share it, each
// in its own byte, and no byte carries into the next because a counter
// never passes 255 — every ROUND vectors a thread (240 samples) the block
// syncs and sums each row into 32-bit totals held in registers (four
// counters a __dp4a), zeroing it as it goes. The atomic's result is unused
// (a RED: no latency chain); a plain load-add-store of the byte measured
// 0.497 ms against the RED's 0.400 on 1 GiB (H100, docs/histogram.md).
//
// Samples are counted by byte value; the bin rule (even, range, channel
// offsets) is applied once per value at the end, so one kernel serves every
// 8-bit request. 1..3 channels: 256 threads, a 64 KiB plane a channel;
// 4 channels: 128 threads, two channels a plane. The launch is in
// histogram_book.cu.
#include "histogram/histogram_device.cuh"

namespace cupat_histogram {
namespace {

constexpr int ROUND = 15; // 16-byte vectors a thread between merges: 240 counts < 256
constexpr int BATCH = 3;  // vectors in flight while the previous BATCH are counted

// The bin of byte value v in channel c (sample index i with i % channels ==
// c), -1 for none: the full rule, keys read from global memory.
__device__ __forceinline__ int byte_bin(const Params &p, uint8_t v, unsigned i)
{
    return p.keys ? Binner<uint8_t, true>{p, nullptr}(v, i) : Binner<uint8_t, false>{p, nullptr}(v, i);
}

// Count the 16 samples of w; sample k is in channel (phase + k) mod C, and
// yr[m] is the counter offset word of channel (phase + m) mod C.
template <int C>
__device__ __forceinline__ void count16(unsigned char *smem, const uint4 &w, const unsigned (&yr)[C], unsigned inc)
{
    const unsigned wd[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
    for (int k = 0; k < 16; k++) {
        // bytes of the word address: yr's low byte, the sample, yr's plane
        const unsigned a = __byte_perm(wd[k >> 2], yr[k % C], 0x7604u | ((unsigned)(k & 3) << 4));
        atomicAdd(reinterpret_cast<unsigned *>(smem + a), inc); // the result unused: a RED
    }
}

template <int C, int T> __global__ void __launch_bounds__(T, C == 1 ? 3 : 1) k_bytes(Params p)
{
    extern __shared__ __align__(16) unsigned char smem[];
    constexpr int PER = 256 / T;       // channel slices in a 256-byte row
    constexpr int PAIRS = 256 * C / T; // (channel, value) totals a thread keeps
    constexpr int CHUNKS = T / 16;     // 16-byte pieces of a slice
    constexpr unsigned BYTES = (unsigned)((C + PER - 1) / PER) << 16;
    const unsigned t = threadIdx.x, lane = t & 31;
    const unsigned off = 4 * lane + ((t >> 5) & 3) + 128 * (t >> 7);
    const unsigned inc = 1u << (8 * (off & 3)); // this thread's byte of the word
    unsigned y[C]; // channel c: the word of off within its slice, plane in bytes 2..3
#pragma unroll
    for (int c = 0; c < C; c++) y[c] = (off & ~3u) + (unsigned)(c % PER) * T + ((unsigned)(c / PER) << 16);
    for (unsigned j = t; j < BYTES / 16; j += T) reinterpret_cast<uint4 *>(smem)[j] = make_uint4(0, 0, 0, 0);
    __syncthreads();

    const Split16<uint8_t> sp(p);
    const uint4 *xv = reinterpret_cast<const uint4 *>(p.x + sp.head);
    const unsigned nth = gridDim.x * T, gt = blockIdx.x * T + t;
    unsigned tot[PAIRS];
#pragma unroll
    for (int q = 0; q < PAIRS; q++) tot[q] = 0;

    // This thread's vectors are j nth + gt, j = 0, 1, ...; a round is ROUND
    // of them. Software-pipelined: the next BATCH are loaded before the
    // current BATCH are counted, and the next round's first batch is in
    // flight while the block merges.
    auto load = [&](uint4 (&w)[BATCH], unsigned j0) {
#pragma unroll
        for (int k = 0; k < BATCH; k++) {
            const unsigned v = (j0 + k) * nth + gt;
            if (v < sp.nvec) w[k] = __ldg(xv + v);
        }
    };
    auto count = [&](const uint4 (&w)[BATCH], unsigned j0) {
#pragma unroll
        for (int k = 0; k < BATCH; k++) {
            const unsigned v = (j0 + k) * nth + gt;
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
            count16<C>(smem, w[k], yr, inc);
        }
    };
    const unsigned rounds = (sp.nvec + nth * ROUND - 1) / (nth * ROUND); // the same in every block
    uint4 cur[BATCH], nxt[BATCH];
    load(cur, 0);
    for (unsigned r = 0; r < rounds; r++) {
#pragma unroll
        for (int b = 0; b < ROUND; b += BATCH) {
            const unsigned j0 = r * ROUND + b;
            load(nxt, j0 + BATCH);
            count(cur, j0);
#pragma unroll
            for (int k = 0; k < BATCH; k++) cur[k] = nxt[k];
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

const void *bytes_kernel(int channels)
{
    switch (channels) {
    case 1: return (const void *)k_bytes<1, 256>;
    case 2: return (const void *)k_bytes<2, 256>;
    case 3: return (const void *)k_bytes<3, 256>;
    case 4: return (const void *)k_bytes<4, 128>;
    }
    return nullptr;
}

} // namespace cupat_histogram
