// SPDX-License-Identifier: Apache-2.0
// lookback.cuh — the single-pass decoupled look-back (Merrill & Garland 2016)
// that the default scan, the segmented scans and stream compaction share.
//
// Each tile publishes a status word: X (not ready), A (its own aggregate) or
// P (its inclusive prefix: everything up to and including it). A tile's
// exclusive prefix is found by warp 0 reading the 32 tiles before it at once.
//
// Two folds:
//  * UNORDERED, for exact operations (integer sums, min/max, counts): the
//    window's values are reduced as a tree and the look-back walks back
//    window by window until it meets a P, as in the paper.
//  * ORDERED, for float sums (not associative): the prefix is defined as the
//    left-to-right chain P(t) = P(t-1) + agg(t). From the nearest P(k), the
//    aggregates agg(k+1) .. agg(t-1) are added one by one in tile order, which
//    gives P(t-1) bit for bit whatever k the timing offered (by induction on
//    t). Windows with no P are kept in shared memory (up to LB_STASH) and
//    folded forward once a P is found; past that the warp waits on the
//    oldest window. Same bits every run.
// Tile ids come from an atomic counter, so every tile a block waits on
// belongs to a block that is already running: no deadlock.
#ifndef CUPAT_SCAN_LOOKBACK_CUH
#define CUPAT_SCAN_LOOKBACK_CUH

#include "core/cupat_warp.cuh"
#include "internal.h"

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace cupat_scan_dev {

typedef unsigned long long u64;
enum : unsigned { ST_X = 0, ST_A = 1, ST_P = 2 };
constexpr int LB_STASH = 4; // windows an ORDERED look-back keeps before it waits

// ---------------------------------------------------------- status words --
// A status and a value in one word that is read and written whole, so a
// reader never sees a flag without its value: 8 bytes for values of up to 4
// bytes (flag in the high half), 16 for 8-byte values (st/ld .v2.u64 move
// 16 aligned bytes as one access on sm_70+).
template <typename A, int SZ = sizeof(A)> struct Status;

template <typename A> struct Status<A, 4> {
    typedef u64 Word;
    __device__ __forceinline__ static void put(Word *w, unsigned flag, A v)
    {
        unsigned bits;
        memcpy(&bits, &v, 4);
        u64 x = ((u64)flag << 32) | bits;
        asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(w), "l"(x) : "memory");
    }
    __device__ __forceinline__ static void get(const Word *w, unsigned &flag, A &v)
    {
        u64 x;
        asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(x) : "l"(w) : "memory");
        flag = (unsigned)(x >> 32);
        unsigned bits = (unsigned)x;
        memcpy(&v, &bits, 4);
    }
};
template <typename A> struct Status<A, 8> {
    struct __align__(16) Word {
        u64 flag, bits;
    };
    __device__ __forceinline__ static void put(Word *w, unsigned flag, A v)
    {
        u64 bits;
        memcpy(&bits, &v, 8);
        asm volatile("st.volatile.global.v2.u64 [%0], {%1, %2};" ::"l"(w), "l"((u64)flag), "l"(bits)
                     : "memory");
    }
    __device__ __forceinline__ static void get(const Word *w, unsigned &flag, A &v)
    {
        u64 f, bits;
        asm volatile("ld.volatile.global.v2.u64 {%0, %1}, [%2];" : "=l"(f), "=l"(bits) : "l"(w) : "memory");
        flag = (unsigned)f;
        memcpy(&v, &bits, 8);
    }
};
// Up to 12 bytes of value with the flag in 16: segmented values {v, head} of
// an 8-byte type (their last 4 bytes are padding).
template <typename A> struct Status<A, 16> {
    struct __align__(16) Word {
        unsigned w[4];
    };
    __device__ __forceinline__ static void put(Word *w, unsigned flag, A v)
    {
        unsigned b[3] = {0, 0, 0};
        memcpy(b, &v, sizeof(A) < 12 ? sizeof(A) : 12);
        asm volatile("st.volatile.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(w), "r"(flag), "r"(b[0]), "r"(b[1]),
                     "r"(b[2])
                     : "memory");
    }
    __device__ __forceinline__ static void get(const Word *w, unsigned &flag, A &v)
    {
        unsigned b[3];
        asm volatile("ld.volatile.global.v4.u32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(flag), "=r"(b[0]), "=r"(b[1]), "=r"(b[2])
                     : "l"(w)
                     : "memory");
        memcpy(&v, b, sizeof(A) < 12 ? sizeof(A) : 12);
    }
};

// Scratch of one look-back launch: the tile counter, then one word per tile.
// Both are zeroed (X) by a memset before the launch.
template <typename A> struct LookbackState {
    typedef typename Status<A>::Word Word;
    unsigned *counter;
    Word *status;
    static size_t bytes(size_t tiles) { return 256 + tiles * sizeof(Word); }
    static LookbackState carve(void *scratch)
    {
        LookbackState s;
        s.counter = (unsigned *)scratch;
        s.status = (Word *)((char *)scratch + 256);
        return s;
    }
};

// The tile of this block. DYN: thread 0 takes the next from an atomic
// counter, so a tile only ever waits on tiles of blocks already running
// (the guarantee the CUDA model gives). Otherwise blockIdx.x, as CUB does:
// the hardware starts the blocks of a grid in index order, so every
// lower-numbered block is running or done; it saves the atomic's round trip
// before the first load.
template <bool DYN> __device__ __forceinline__ unsigned tile_of_block(unsigned *counter)
{
    if constexpr (DYN) {
        __shared__ unsigned tile;
        if (threadIdx.x == 0) tile = atomicAdd(counter, 1u);
        __syncthreads();
        return tile;
    } else {
        return blockIdx.x;
    }
}
__device__ __forceinline__ unsigned next_tile(unsigned *counter) { return tile_of_block<true>(counter); }

// Nanoseconds a look-back warp sleeps between polls of tiles not ready yet
// (0: spin); fewer polls leave the L2 to the data.
#ifndef CUPAT_SCAN_BACKOFF
#define CUPAT_SCAN_BACKOFF 300
#endif
// Nanoseconds a look-back warp sleeps after publishing its aggregate, before
// the first poll: the predecessors get that long to publish theirs.
#ifndef CUPAT_SCAN_FIRST_WAIT
#define CUPAT_SCAN_FIRST_WAIT 1200
#endif

// Experiment hook (bench/experiments/scan_blocked.cu): called by lane 0 of
// the look-back warp once its tile's prefix is known, with the windows it
// read and the polls it made.
#ifndef CUPAT_SCAN_LB_STATS
#define CUPAT_SCAN_LB_STATS(windows, polls)
#endif

// Warp 0 only (all 32 lanes). Publishes the tile's aggregate (or, for tile 0,
// its prefix) and returns the tile's exclusive prefix in every lane (tile 0:
// `identity`), after publishing its inclusive prefix op(excl, agg).
// `is_head(v)`: a value that already contains a segment head is its own
// prefix (segmented scans); return false for plain scans.
// `during()`: the warp's own work that needs no prefix (select's shared-memory
// scatter), done after publishing, in the time the predecessors are given.
struct NoWork {
    __device__ __forceinline__ void operator()() const {}
};

template <bool ORDERED, class Op, typename A, class IsHead, class During = NoWork>
__device__ __forceinline__ A lookback(LookbackState<A> st, unsigned tile, A agg, A identity, Op op, IsHead is_head,
                                      During during = During())
{
    typedef Status<A> S;
    const unsigned lane = cupat_dev::lane_id();
    if (tile == 0) {
        if (lane == 0) S::put(&st.status[0], ST_P, agg);
        during();
        return identity;
    }
    if (lane == 0) S::put(&st.status[tile], is_head(agg) ? ST_P : ST_A, agg);
    during();
    if (CUPAT_SCAN_FIRST_WAIT) __nanosleep(CUPAT_SCAN_FIRST_WAIT);

    __shared__ A stash[ORDERED ? LB_STASH : 1][32];
    int nstash = 0, windows = 0, polls = 0;
    (void)windows;
    (void)polls;
    A later = identity; // UNORDERED: the windows after the current one, reduced
    long long base = (long long)tile - 32;
    for (;;) {
        const long long idx = base + lane;
        unsigned flag = ST_P; // before tile 0: the identity, final
        A v = identity;
        if (idx >= 0) S::get(&st.status[idx], flag, v);
        windows++;
        while (__any_sync(cupat_dev::FULL_MASK, flag == ST_X)) { // wait until all 32 have published
            polls++;
            if (CUPAT_SCAN_BACKOFF) __nanosleep(CUPAT_SCAN_BACKOFF);
            if (flag == ST_X) S::get(&st.status[idx], flag, v);
        }
        const bool final_ = flag == ST_P || (flag == ST_A && is_head(v));
        const unsigned pmask = __ballot_sync(cupat_dev::FULL_MASK, final_);
        if (pmask) {
            const int k = 31 - __clz(pmask); // the nearest final tile
            A acc = identity;
            if constexpr (ORDERED) {
#pragma unroll
                for (int l = 0; l < 32; l++) { // unrolled: the 32 shuffles issue at once, the adds chain
                    const A s = cupat_dev::shfl(v, l);
                    if (l == k) acc = s;
                    else if (l > k) acc = op(acc, s);
                }
                for (int s = nstash - 1; s >= 0; s--) // stashed windows, oldest first
#pragma unroll
                    for (int l = 0; l < 32; l++) acc = op(acc, stash[s][l]);
            } else {
                A mine = (int)lane >= k ? v : identity;
                acc = op(cupat_dev::warp_reduce<32>(mine, op), later);
            }
            if (lane == 0) {
                S::put(&st.status[tile], ST_P, op(acc, agg));
                CUPAT_SCAN_LB_STATS(windows, polls);
            }
            return acc;
        }
        if constexpr (ORDERED) {
            if (nstash == LB_STASH) continue; // wait on this window for a P
            stash[nstash][lane] = v; // slot 0: the nearest window, then older ones
            __syncwarp();
            nstash++;
        } else {
            later = op(cupat_dev::warp_reduce<32>(v, op), later);
        }
        base -= 32;
    }
}

// ------------------------------------------------------------ tile scan --
// The tile layout and scan of scan_lookback.cu's file comment, shared with
// select.cu (counts).
constexpr int DC_BLOCK = 256; // threads a tile
constexpr int DC_NV = 4;      // 16-byte vectors a thread

template <typename A, int BLOCK = DC_BLOCK, int NV = DC_NV> struct Shape {
    static constexpr int V = 16 / sizeof(A) > 0 ? 16 / sizeof(A) : 1;
    static constexpr int NW = BLOCK / 32;
    static constexpr int WARP_ITEMS = 32 * NV * V;
    static constexpr int TILE = NW * WARP_ITEMS;
};

// ------------------------------------------------------------- tile I/O --

// A warp's part of a tile, warp-striped: element (j, k) of a thread is
// wbase + (j * 32 + lane) * V + k, so each vector instruction of the warp
// moves 512 contiguous bytes. `fast`: the whole part lies below n and the
// pointer is 16-byte aligned (one 16-byte access a vector); otherwise element
// accesses, `pad` past n on loads, nothing written past n. `stream`: the
// 16-byte accesses are marked evict-first (ld/st.global.cs): the data passes
// once and the look-back's status words stay in L2 (plain scan: 1.5% faster
// on the H100; the head-flag scan 12% slower, so not there).
template <int NV, int V, typename A>
__device__ __forceinline__ void load_striped(const A *x, size_t wbase, size_t n, bool fast, A pad, A (&a)[NV][V],
                                             bool stream = false)
{
    static_assert(NV > 0 && V * sizeof(A) == 16, "16-byte vectors");
    const unsigned lane = cupat_dev::lane_id();
    if (fast) {
        const uint4 *xv = (const uint4 *)(x + wbase);
#pragma unroll
        for (int j = 0; j < NV; j++) {
            uint4 q = stream ? __ldcs(xv + j * 32 + lane) : xv[j * 32 + lane];
            memcpy(a[j], &q, 16);
        }
    } else {
#pragma unroll
        for (int j = 0; j < NV; j++)
#pragma unroll
            for (int k = 0; k < V; k++) {
                size_t i = wbase + (size_t)(j * 32 + lane) * V + k;
                a[j][k] = i < n ? x[i] : pad;
            }
    }
}
template <int NV, int V, typename A>
__device__ __forceinline__ void store_striped(A *y, size_t wbase, size_t n, bool fast, const A (&o)[NV][V],
                                              bool stream = false)
{
    const unsigned lane = cupat_dev::lane_id();
    if (fast) {
        uint4 *yv = (uint4 *)(y + wbase);
#pragma unroll
        for (int j = 0; j < NV; j++) {
            uint4 q;
            memcpy(&q, o[j], 16);
            if (stream) __stcs(yv + j * 32 + lane, q);
            else yv[j * 32 + lane] = q;
        }
    } else {
#pragma unroll
        for (int j = 0; j < NV; j++)
#pragma unroll
            for (int k = 0; k < V; k++) {
                size_t i = wbase + (size_t)(j * 32 + lane) * V + k;
                if (i < n) y[i] = o[j][k];
            }
    }
}

// What may be read as vectors (the `vec` bits of the kernels): the data (x,
// and y where it is written in place of x: 16-byte aligned) and the heads or
// flags (flags aligned to V bytes, keys to min(V * key size, 16)).
enum { VEC_DATA = 1, VEC_HEADS = 2 };

// Bits of the B bytes at p (B = 2, 4, 8, 16 or 32, p aligned to min(B, 16))
// into w, in one or two vector loads.
template <int B> __device__ __forceinline__ void load_bytes(const void *p, void *w)
{
    if constexpr (B == 2) {
        *(unsigned short *)w = *(const unsigned short *)p;
    } else if constexpr (B == 4) {
        *(unsigned *)w = *(const unsigned *)p;
    } else if constexpr (B == 8) {
        uint2 q = *(const uint2 *)p;
        memcpy(w, &q, 8);
    } else {
        static_assert(B == 16 || B == 32, "load_bytes: 2, 4, 8, 16 or 32 bytes");
#pragma unroll
        for (int h = 0; h < B / 16; h++) {
            uint4 q = ((const uint4 *)p)[h];
            memcpy((char *)w + 16 * h, &q, 16);
        }
    }
}

// Bit k set where byte flags[i0 + k] (k < V) is nonzero, in one load when
// `vec` (flags + i0 aligned to V bytes and all V below n).
template <int V> __device__ __forceinline__ unsigned flag_bits(const uint8_t *flags, size_t i0, size_t n, bool vec)
{
    unsigned m = 0;
    if (vec) {
        uint8_t b[V];
        load_bytes<V>(flags + i0, b);
#pragma unroll
        for (int k = 0; k < V; k++) m |= (unsigned)(b[k] != 0) << k;
    } else {
#pragma unroll
        for (int k = 0; k < V; k++)
            if (i0 + k < n) m |= (unsigned)(flags[i0 + k] != 0) << k;
    }
    return m;
}

// Bit k set where key i0 + k differs from key i0 + k - 1 (keys of K bytes
// compared as bits; i0 + k == 0 never sets it: callers add the first head).
// One vector load when `vec` (keys + i0 aligned to min(V K, 16) bytes and all
// V below n), plus the key before i0.
template <int V, int K> __device__ __forceinline__ unsigned key_change_bits(const void *keys, size_t i0, size_t n, bool vec)
{
    typedef typename std::conditional<K == 4, uint32_t, uint64_t>::type U;
    const U *kp = (const U *)keys;
    unsigned m = 0;
    if (vec) {
        U kk[V];
        load_bytes<V * K>(kp + i0, kk);
        U prev = i0 ? kp[i0 - 1] : kk[0];
#pragma unroll
        for (int k = 0; k < V; k++) {
            m |= (unsigned)(kk[k] != prev) << k;
            prev = kk[k];
        }
    } else {
#pragma unroll
        for (int k = 0; k < V; k++) {
            size_t i = i0 + k;
            if (i < n && i > 0) m |= (unsigned)(kp[i] != kp[i - 1]) << k;
        }
    }
    return m;
}

struct NoHead {
    template <typename A> __device__ __forceinline__ bool operator()(const A &) const { return false; }
};

// Steps 3-4: warp w's total (in every lane of the warp) in, the exclusive
// prefix of warp w out (the tile's prefix from the look-back combined in).
// Warp totals are folded left to right through shared memory.
template <bool ORDERED, int BLOCK, class Op, typename A, class IsHead>
__device__ __forceinline__ A warp_prefix(A wtotal, A identity, Op op, IsHead is_head, LookbackState<A> st,
                                         unsigned tile)
{
    constexpr int NW = BLOCK / 32;
    const unsigned lane = cupat_dev::lane_id(), w = threadIdx.x / 32;
    __shared__ A wt[NW];
    __shared__ A excl_sh;
    if (lane == 31) wt[w] = wtotal;
    __syncthreads();
    if (w == 0) {
        A agg = identity;
#pragma unroll
        for (int k = 0; k < NW; k++) agg = op(agg, wt[k]);
        A excl = lookback<ORDERED>(st, tile, agg, identity, op, is_head);
        if (lane == 0) excl_sh = excl;
    }
    A wpre = identity;
    for (int k = 0; k < (int)w; k++) wpre = op(wpre, wt[k]);
    __syncthreads();
    return op(excl_sh, wpre);
}

// Steps 1-4 on a tile already in registers (warp-striped). `a` holds Acc
// values (plain) or Seg<Acc> (segmented); on return a[j][k] is the element's
// inclusive value and pre[j] what comes before vector j (identity-free:
// combined in).
template <bool ORDERED, int BLOCK = DC_BLOCK, int NV = DC_NV, class Op, typename A, class IsHead>
__device__ __forceinline__ void tile_scan(A (&a)[NV][16 / sizeof(A) > 0 ? 16 / sizeof(A) : 1], A (&pre)[NV],
                                          A identity, Op op, IsHead is_head, LookbackState<A> st, unsigned tile)
{
    typedef Shape<A, BLOCK, NV> SH;
    const unsigned lane = cupat_dev::lane_id();
#pragma unroll
    for (int j = 0; j < NV; j++)
#pragma unroll
        for (int k = 1; k < SH::V; k++) a[j][k] = op(a[j][k - 1], a[j][k]);
    A carry = identity;
#pragma unroll
    for (int j = 0; j < NV; j++) {
        A inc = cupat_dev::warp_inclusive_scan<32>(a[j][SH::V - 1], op);
        A below = cupat_dev::shfl_up(inc, 1);
        if (lane == 0) below = identity;
        pre[j] = op(carry, below);
        carry = op(carry, cupat_dev::shfl(inc, 31));
    }
    const A p = warp_prefix<ORDERED, BLOCK>(carry, identity, op, is_head, st, tile);
#pragma unroll
    for (int j = 0; j < NV; j++) pre[j] = op(p, pre[j]);
}

// ------------------------------------------------- thread-blocked tiles --
// The warp's vectors pass through shared memory so that thread `lane` holds
// vectors lane * NV .. lane * NV + NV - 1 of the warp's run: NV * V
// consecutive elements, scanned serially, and only the thread's total goes
// through the warp's shuffles (CUB's BlockLoad warp transpose). Slot q of the
// warp's buffer sits at q + q / (P NV), one 16-byte pad every P threads
// (P = 8 / gcd(NV, 8)): the 8 lanes of each phase of a 16-byte shared access
// meet 8 different bank groups, in both directions.
template <int NV> struct Transpose {
    static constexpr int G = NV % 8 == 0 ? 8 : NV % 4 == 0 ? 4 : NV % 2 == 0 ? 2 : 1;
    static constexpr int P = 8 / G;
    static constexpr int SLOTS = 32 * NV + 32 / P; // 16-byte slots a warp
    __device__ __forceinline__ static int slot(int q) { return q + q / (P * NV); }
};

// TO_BLOCKED: striped -> blocked (after the loads); otherwise blocked ->
// striped (before the stores). The buffer is free again on return.
template <bool TO_BLOCKED, int NV, int V, typename A>
__device__ __forceinline__ void warp_transpose(A (&a)[NV][V], uint4 *buf)
{
    static_assert(V * sizeof(A) == 16, "16-byte vectors");
    const int lane = (int)cupat_dev::lane_id();
    auto striped = [&](int j) { return Transpose<NV>::slot(j * 32 + lane); };
    auto blocked = [&](int j) { return Transpose<NV>::slot(lane * NV + j); };
#pragma unroll
    for (int j = 0; j < NV; j++) {
        uint4 q;
        memcpy(&q, a[j], 16);
        buf[TO_BLOCKED ? striped(j) : blocked(j)] = q;
    }
    __syncwarp();
#pragma unroll
    for (int j = 0; j < NV; j++) {
        uint4 q = buf[TO_BLOCKED ? blocked(j) : striped(j)];
        memcpy(a[j], &q, 16);
    }
    __syncwarp();
}

// Steps 1-4 on a thread-blocked tile: a[][] becomes the thread's inclusive
// values (serial, left to right); returns what comes before the thread's
// first element (tile prefix, warp prefix, the lanes below).
template <bool ORDERED, int BLOCK, int NV, int V, class Op, typename A, class IsHead>
__device__ __forceinline__ A tile_scan_blocked(A (&a)[NV][V], A identity, Op op, IsHead is_head,
                                               LookbackState<A> st, unsigned tile)
{
    const unsigned lane = cupat_dev::lane_id();
    A run = a[0][0];
#pragma unroll
    for (int j = 0; j < NV; j++)
#pragma unroll
        for (int k = 0; k < V; k++)
            if (j + k > 0) run = a[j][k] = op(run, a[j][k]);
    const A inc = cupat_dev::warp_inclusive_scan<32>(a[NV - 1][V - 1], op);
    const A below = cupat_dev::shfl_up(inc, 1);
    const A p = warp_prefix<ORDERED, BLOCK>(cupat_dev::shfl(inc, 31), identity, op, is_head, st, tile);
    return lane == 0 ? p : op(p, below);
}

// scan_lookback.cu: the default scan as an exclusive u64 sum over caller
// scratch of exclusive_sum_u64_state_bytes(n) bytes (16-byte aligned).
size_t exclusive_sum_u64_state_bytes(size_t n);
cupat_status exclusive_sum_u64(cupat_ctx *ctx, const unsigned long long *x, unsigned long long *y, size_t n,
                               void *state);

} // namespace cupat_scan_dev
#endif
