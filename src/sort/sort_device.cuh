// SPDX-License-Identifier: Apache-2.0
// sort_device.cuh — what the merge and sort kernels share: the key order as
// unsigned bits (Xf), the value types, relaxed status words, the block
// digit ranking by warp match (Onesweep's WLMS) and the block radix sort of
// one tile in shared memory built on it (segments, merge sort's tiles).
#ifndef CUPAT_SORT_DEVICE_CUH
#define CUPAT_SORT_DEVICE_CUH

#include "core/cupat_warp.cuh"
#include "internal.h"
#include "sort/sort_internal.h"

#include <cstdint>
#include <type_traits>

namespace cupat_sort_dev {

typedef unsigned long long u64;

// ------------------------------------------------------------- the order --
// sort_xform on the device: fwd maps a key's bits to unsigned bits whose
// unsigned order is the sort order (descending folded in); inv undoes it.
// The identity (all masks 0) moves keys that are already transformed.
template <typename U> struct Xf {
    // Folded masks: fwd(u) = u ^ c0 ^ (sign(u) ? c1 : 0) and inv(t) = t ^ e0 ^
    // (sign(t ^ d) ? c1 : 0), with c0 = m0 ^ d, c1 = m0 ^ m1, e0 = m1 ^ d:
    // arithmetic only (a select between two parameters costs predicated
    // constant loads in the kernels' inner loops).
    U c0, c1, e0, d;
    static constexpr int TOP = 8 * sizeof(U) - 1;
    typedef typename std::make_signed<U>::type S;
    __host__ static Xf of(const sort_xform &x)
    {
        Xf f;
        f.c0 = (U)(x.m0 ^ x.d);
        f.c1 = (U)(x.m0 ^ x.m1);
        f.e0 = (U)(x.m1 ^ x.d);
        f.d = (U)x.d;
        return f;
    }
    __host__ static Xf identity()
    {
        Xf f;
        f.c0 = f.c1 = f.e0 = f.d = 0;
        return f;
    }
    // No change at all (unsigned ascending keys; the passes between the
    // first and the last): kernels test this once and skip the transform.
    __host__ __device__ __forceinline__ bool is_identity() const { return !(c0 | c1 | e0 | d); }
    __device__ __forceinline__ U fwd(U u) const { return u ^ c0 ^ ((U)((S)u >> TOP) & c1); }
    __device__ __forceinline__ U inv(U t) const { return t ^ e0 ^ ((U)((S)(t ^ d) >> TOP) & c1); }
};

// Values: NoVal for keys alone, else moved as raw 4- or 8-byte words.
struct NoVal {};
template <typename V> struct HasV : std::integral_constant<bool, !std::is_same<V, NoVal>::value> {};

// Dispatch on (key bytes, value bytes) to f.template operator()<U, V>().
template <class F> __host__ cupat_status dispatch_kv(size_t ks, size_t vs, F f)
{
    if (ks == 4) {
        if (vs == 0) return f.template operator()<unsigned, NoVal>();
        if (vs == 4) return f.template operator()<unsigned, unsigned>();
        return f.template operator()<unsigned, u64>();
    }
    if (vs == 0) return f.template operator()<u64, NoVal>();
    if (vs == 4) return f.template operator()<u64, unsigned>();
    return f.template operator()<u64, u64>();
}

// --------------------------------------------------------- status words --
__device__ __forceinline__ void st_relaxed(unsigned *p, unsigned v)
{
    asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ unsigned ld_relaxed(const unsigned *p)
{
    unsigned v;
    asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

// ----------------------------------------------------- block digit rank --
// Stable ranks of BLOCK x ITEMS digits (RADIX = 256) held warp-striped:
// item j of lane l in warp w is tile element w*32*ITEMS + j*32 + l. Two
// steps (Adinets & Merrill 2022, "early counts"), so that a caller can
// publish the tile's digit counts before the slower second step:
//  1. count(): each warp counts its digits in a private row of shared
//     counters (fire-and-forget shared atomics, no chain between items); per
//     digit the warps' counts are scanned (warp order = element order), the
//     digit totals block-scanned, and each row entry becomes where that warp's
//     first key of the digit goes in the tile sorted by digit.
//  2. place(): per item, the lanes with the same digit find each other
//     (warp_match_bits: 8 ballots), the highest of them takes the group's
//     places with one atomicAdd on its warp's counter and passes the old
//     value to the others by shuffle; items of one warp follow each other
//     through the atomics alone, so they overlap.
// The digits come from dg(j) (item j's digit, recomputed each time instead of
// held in registers); a digit >= RADIX marks an empty slot: not counted, not
// placed. FULL = true promises no empty slot (the caller pads), which saves
// a vote and the tests an item.
constexpr int RADIX = 256;

// Lanes of `among` whose digit agrees with this one on the low BITS bits:
// BITS ballots, one a bit (cheaper than __match_any_sync for 8-bit digits).
// Written in PTX so that each bit costs a test, the vote, a conditional
// complement and an AND (the C++ form compiled to seven instructions a bit).
// Every lane of the warp calls; `among` holds the lanes taking part.
template <int BITS> __device__ __forceinline__ unsigned warp_match_bits(unsigned v, unsigned among)
{
    unsigned m = among;
#pragma unroll
    for (int b = 0; b < BITS; b++) {
        unsigned t;
        asm("{\n\t.reg .pred p;\n\t"
            "and.b32 %0, %1, %2;\n\t"
            "setp.ne.u32 p, %0, 0;\n\t"
            "vote.sync.ballot.b32 %0, p, 0xffffffff;\n\t"
            "@!p not.b32 %0, %0;\n\t}"
            : "=r"(t)
            : "r"(v), "r"(1u << b));
        m &= t;
    }
    return m;
}

template <int BLOCK, int ITEMS> struct BlockRank {
    static constexpr int NW = BLOCK / 32;
    static constexpr int TILE = BLOCK * ITEMS;
    static constexpr int DPT = RADIX > BLOCK ? RADIX / BLOCK : 1; // digits a thread
    static_assert(BLOCK % 32 == 0 && (RADIX % BLOCK == 0 || BLOCK >= RADIX), "BLOCK");
    // woff[NW][RADIX], start[RADIX], count[RADIX]
    static constexpr size_t SMEM_WORDS = (size_t)NW * RADIX + 2 * RADIX;
    unsigned *woff, *start, *count;

    __device__ __forceinline__ explicit BlockRank(unsigned *smem)
        : woff(smem), start(smem + NW * RADIX), count(smem + NW * RADIX + RADIX)
    {
    }

    // Step 1. Afterwards count[d] / start[d] hold the tile's digit counts and
    // starts (in the tile sorted by digit). Begins and ends with a barrier.
    template <bool FULL = false, class DG> __device__ __forceinline__ void count_digits(DG dg)
    {
        const unsigned lane = cupat_dev::lane_id(), w = threadIdx.x / 32;
        unsigned *h = woff + w * RADIX;
        __syncthreads(); // the previous use of the counters is over
#pragma unroll
        for (int i = (int)lane; i < RADIX; i += 32) h[i] = 0;
        __syncwarp();
#pragma unroll
        for (int j = 0; j < ITEMS; j++) {
            const unsigned d = dg(j);
            if (FULL || d < (unsigned)RADIX) atomicAdd(&h[d], 1u);
        }
        __syncthreads();
        unsigned tot[DPT], mine = 0;
#pragma unroll
        for (int k = 0; k < DPT; k++) {
            const int d = (int)threadIdx.x * DPT + k;
            tot[k] = 0;
            if (d < RADIX) {
                unsigned run = 0;
#pragma unroll
                for (int ww = 0; ww < NW; ww++) {
                    const unsigned c = woff[ww * RADIX + d];
                    woff[ww * RADIX + d] = run;
                    run += c;
                }
                tot[k] = run;
                count[d] = run;
            }
            mine += tot[k];
        }
        unsigned total;
        unsigned excl = cupat_dev::block_exclusive_scan<BLOCK>(mine, cupat_dev::OpSum(), 0u, total);
#pragma unroll
        for (int k = 0; k < DPT; k++) {
            const int d = (int)threadIdx.x * DPT + k;
            if (d < RADIX) {
                start[d] = excl;
#pragma unroll
                for (int ww = 0; ww < NW; ww++) woff[ww * RADIX + d] += excl;
            }
            excl += tot[k];
        }
        __syncthreads();
    }

    // Step 2 (after count_digits): pos[j], the element's place in the tile
    // sorted stably by digit. Leaves the counters spent; no barrier.
    template <bool FULL = false, class DG> __device__ __forceinline__ void place(DG dg, unsigned (&pos)[ITEMS])
    {
        const unsigned lane = cupat_dev::lane_id(), w = threadIdx.x / 32;
        unsigned *h = woff + w * RADIX;
        const unsigned le = cupat_dev::lanemask_lt() | (1u << lane);
#pragma unroll
        for (int j = 0; j < ITEMS; j++) {
            const unsigned d = dg(j);
            const bool valid = FULL || d < (unsigned)RADIX;
            const unsigned peers =
                warp_match_bits<8>(d, FULL ? cupat_dev::FULL_MASK : __ballot_sync(cupat_dev::FULL_MASK, valid));
            const unsigned below = (unsigned)__popc(peers & le); // this lane's place in its group, from 1
            const int leader = valid ? 31 - __clz(peers) : (int)lane;
            unsigned base = 0;
            if (valid && (int)lane == leader) base = atomicAdd(&h[d], below);
            base = __shfl_sync(cupat_dev::FULL_MASK, base, leader);
            pos[j] = base + below - 1;
        }
    }

    // Both steps: ranks, with count[] / start[] set as by count_digits.
    template <class DG> __device__ __forceinline__ void rank(DG dg, unsigned (&pos)[ITEMS])
    {
        count_digits(dg);
        place(dg, pos);
    }
};

// Digit of transformed key t for the pass at bit `shift` with `width` bits.
template <typename U> __device__ __forceinline__ unsigned digit_of(U t, int shift, int width)
{
    return (unsigned)(t >> shift) & ((1u << width) - 1u);
}

// ------------------------------------------------------ block radix sort --
// Sort len <= BLOCK*ITEMS keys (kin[0, len), their bits mapped by xi) stably
// on bits [lo, hi) in shared memory, 8 bits a pass, and write them (mapped
// by xo) to kout[0, len), their values (vin[origin]) to vout. kin may equal
// kout, vin vout (everything is read before anything is written).
// Shared memory: block_sort_smem<BLOCK, ITEMS, U>() bytes at `smem`.
template <int BLOCK, int ITEMS, typename U> constexpr size_t block_sort_smem()
{
    return BlockRank<BLOCK, ITEMS>::SMEM_WORDS * 4 + (size_t)BLOCK * ITEMS * (sizeof(U) + 2);
}

template <int BLOCK, int ITEMS, typename U, typename V>
__device__ __forceinline__ void block_sort(const U *kin, const V *vin, U *kout, V *vout, unsigned len, Xf<U> xi,
                                           Xf<U> xo, int lo, int hi, unsigned char *smem)
{
    typedef BlockRank<BLOCK, ITEMS> BR;
    constexpr int TILE = BR::TILE;
    BR br((unsigned *)smem);
    U *sk = (U *)(smem + BR::SMEM_WORDS * 4);
    unsigned short *sx = (unsigned short *)(sk + TILE);
    const unsigned lane = cupat_dev::lane_id(), w = threadIdx.x / 32;
    U key[ITEMS];
    unsigned short org[ITEMS];
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        const unsigned e = w * 32 * ITEMS + j * 32 + lane;
        key[j] = e < len ? xi.fwd(kin[e]) : (U)0;
        org[j] = (unsigned short)e;
    }
    for (int shift = lo; shift < hi; shift += 8) {
        const int width = hi - shift < 8 ? hi - shift : 8;
        unsigned pos[ITEMS];
        auto dg = [&](int j) {
            return w * 32 * ITEMS + j * 32 + lane < len ? digit_of(key[j], shift, width) : 0xffffffffu;
        };
        br.rank(dg, pos);
#pragma unroll
        for (int j = 0; j < ITEMS; j++)
            if (w * 32 * ITEMS + j * 32 + lane < len) {
                sk[pos[j]] = key[j];
                sx[pos[j]] = org[j];
            }
        __syncthreads();
#pragma unroll
        for (int j = 0; j < ITEMS; j++) {
            const unsigned e = w * 32 * ITEMS + j * 32 + lane;
            if (e < len) {
                key[j] = sk[e];
                org[j] = sx[e];
            }
        }
    }
    // key[j] / org[j] now hold sorted element e (warp-striped).
    if constexpr (HasV<V>::value) {
        V val[ITEMS];
#pragma unroll
        for (int j = 0; j < ITEMS; j++) {
            const unsigned e = w * 32 * ITEMS + j * 32 + lane;
            if (e < len) val[j] = vin[org[j]];
        }
        __syncthreads(); // every value read before any is written (vin == vout)
#pragma unroll
        for (int j = 0; j < ITEMS; j++) {
            const unsigned e = w * 32 * ITEMS + j * 32 + lane;
            if (e < len) vout[e] = val[j];
        }
    }
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        const unsigned e = w * 32 * ITEMS + j * 32 + lane;
        if (e < len) kout[e] = xo.inv(key[j]);
    }
}

// ----------------------------------------------------------- co-rank ----
// How many of the first k outputs of the stable merge of a[0, na) and
// b[0, nb) come from a (ties: a first). a(i), b(j) give transformed keys.
template <typename I, class FA, class FB> __device__ __forceinline__ I corank(I k, FA a, I na, FB b, I nb)
{
    I lo = k > nb ? k - nb : 0, hi = k < na ? k : na;
    while (lo < hi) {
        const I mid = lo + (hi - lo) / 2;
        if (!(b(k - 1 - mid) < a(mid))) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}


// ------------------------------------------------------ pass buffers ----
// Keys (and values) go through P passes, ping-ponging between the output and
// a scratch buffer so that the last pass lands in the output. In place with
// P odd, the first pass would read and write the same array: the input is
// first copied to the scratch buffer and read from there.
template <typename U, typename V> struct PingPong {
    const U *kin;
    const V *vin;
    U *kout, *kalt;
    V *vout, *valt;
    int P;
    __host__ cupat_status prepare(cupat_ctx *ctx, size_t n)
    {
        if (P % 2 == 1 && (const void *)kin == (const void *)kout) {
            CUPAT_CUDA_TRY(ctx, cudaMemcpyAsync(kalt, kin, n * sizeof(U), cudaMemcpyDeviceToDevice, ctx->stream));
            kin = kalt;
        }
        if constexpr (HasV<V>::value) {
            if (P % 2 == 1 && (const void *)vin == (const void *)vout) {
                CUPAT_CUDA_TRY(ctx,
                               cudaMemcpyAsync(valt, vin, n * sizeof(V), cudaMemcpyDeviceToDevice, ctx->stream));
                vin = valt;
            }
        }
        return CUPAT_SUCCESS;
    }
    __host__ bool to_out(int p) const { return (P - 1 - p) % 2 == 0; }
    __host__ U *kdst(int p) const { return to_out(p) ? kout : kalt; }
    __host__ V *vdst(int p) const { return to_out(p) ? vout : valt; }
    __host__ const U *ksrc(int p) const { return p == 0 ? kin : kdst(p - 1); }
    __host__ const V *vsrc(int p) const { return p == 0 ? vin : vdst(p - 1); }
};

// Carve scratch: consecutive 256-byte aligned pieces.
struct Carver {
    char *base;
    size_t off;
    template <typename T> __host__ T *take(size_t count)
    {
        T *p = (T *)(base ? base + off : nullptr);
        off += (count * sizeof(T) + 255) / 256 * 256;
        return p;
    }
};

// Launch geometry helpers.
inline unsigned grid_of(size_t n, size_t per_block)
{
    size_t g = (n + per_block - 1) / per_block;
    return (unsigned)(g < 1 ? 1 : g);
}

} // namespace cupat_sort_dev
#endif
