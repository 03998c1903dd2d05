// SPDX-License-Identifier: Apache-2.0
// reduce_ops.cuh — the layers every reduction rung shares, CUB-style:
//   operation traits (Red<T, OP>: accumulator, identity, combine, store),
//   warp reduce (shuffle butterfly), block reduce (warps -> shared -> warp 0),
//   and the grid finishes (partials for a second pass, last-block ticket,
//   atomic-free epoch flags).
// Every combine here is commutative bit for bit and every tree has a fixed
// shape, so a reduction gives the same bits whatever the timing.
#ifndef CUPAT_REDUCE_OPS_CUH
#define CUPAT_REDUCE_OPS_CUH

#include "cupat_warp.cuh"

#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

namespace cupat_red {

typedef unsigned long long u64;

// Operation codes: the public cupat_op values, plus the compensated sum.
enum { OP_SUM = 0, OP_MIN = 1, OP_MAX = 2, OP_ARGMIN = 3, OP_ARGMAX = 4, OP_SUMC = 5,
       OP_ARGMIN_P = 6, OP_ARGMAX_P = 7,  // _P: f32, packed (ArgPackF32)
       OP_MIN_K = 8, OP_MAX_K = 9 };      // _K: float, on order keys (MinMaxKeyF)

template <typename T> struct Arg {  // ARGMIN / ARGMAX accumulator
    T v;
    u64 i;
};
template <typename T> struct Comp {  // compensated sum: value + running error
    T s, c;
};

// ---------------------------------------------------------------- floats --
// The quiet NaN min/max return on every backend (0x7fc00000 / 0x7ff8...).
__device__ __forceinline__ float qnan(float) { return __int_as_float(0x7fc00000); }
__device__ __forceinline__ double qnan(double) { return __longlong_as_double(0x7ff8000000000000ll); }
__device__ __forceinline__ bool is_nan(float v) { return v != v; }
__device__ __forceinline__ bool is_nan(double v) { return v != v; }

// Order key of a non-NaN float as a signed integer: -inf < ... < -0 < +0 <
// ... < +inf (IEEE 754-2019 minimum/maximum order, -0 below +0).
__device__ __forceinline__ int32_t okey(float v)
{
    int32_t b = __float_as_int(v);
    return b ^ ((b >> 31) & 0x7fffffff);
}
__device__ __forceinline__ int64_t okey(double v)
{
    int64_t b = __double_as_longlong(v);
    return b ^ ((b >> 63) & 0x7fffffffffffffffll);
}

// okey's inverse, the number whose key is k (the key map is an involution on
// the bits).
__device__ __forceinline__ float okey_value(int32_t k) { return __int_as_float(okey(__int_as_float(k))); }
__device__ __forceinline__ double okey_value(int64_t k)
{
    return __longlong_as_double(okey(__longlong_as_double(k)));
}
// A float's key where a NaN wins: a NaN's key beyond every number's, above
// them for max, below for min (okey(+-inf) lies strictly inside).
template <typename T, bool MAX> __device__ __forceinline__ auto nan_key(T v)
{
    typedef decltype(okey(v)) K;
    return is_nan(v) ? (MAX ? std::numeric_limits<K>::max() : std::numeric_limits<K>::min()) : okey(v);
}

// IEEE 754-2019 minimum / maximum: NaN in, NaN out; -0 < +0.
template <typename T, bool MAX> __device__ __forceinline__ T fminmax(T a, T b)
{
    if (is_nan(a) || is_nan(b)) return qnan(a);
    bool a_wins = MAX ? okey(a) >= okey(b) : okey(a) <= okey(b);
    return a_wins ? a : b;
}

// TwoSum (Knuth; Moller): s + e == a + b exactly, no branch, any order of
// magnitude. Exact error => same bits for (a, b) and (b, a).
template <typename T> __device__ __forceinline__ void two_sum(T a, T b, T &s, T &e)
{
    s = a + b;
    T bb = s - a;
    e = (a - (s - bb)) + (b - bb);
}

// ---------------------------------------------------------------- traits --
template <typename T, int OP, bool FLOAT = std::is_floating_point<T>::value> struct Red;

// Float sum. The neutral element inside the trees is -0 (x + -0 == x for every
// x, signed zeros included); an empty sum still returns +0 (see identity_out).
template <typename T> struct Red<T, OP_SUM, true> {
    typedef T Acc;
    __device__ static Acc identity() { return -T(0); }
    __device__ static Acc lift(T v, u64) { return v; }
    __device__ static Acc comb(Acc a, Acc b) { return a + b; }
    __device__ static void store(void *out, Acc a) { *(T *)out = a; }
};
// Integer sum: unsigned arithmetic, wraps modulo 2^bits; exact in any order.
template <typename T> struct Red<T, OP_SUM, false> {
    typedef typename std::make_unsigned<T>::type Acc;
    __device__ static Acc identity() { return 0; }
    __device__ static Acc lift(T v, u64) { return (Acc)v; }
    __device__ static Acc comb(Acc a, Acc b) { return a + b; }
    __device__ static void store(void *out, Acc a) { *(T *)out = (T)a; }
};
// Compensated float sum: (s, c) pairs, combined with TwoSum.
template <typename T> struct Red<T, OP_SUMC, true> {
    typedef Comp<T> Acc;
    __device__ static Acc identity() { return Acc{-T(0), -T(0)}; }
    __device__ static Acc lift(T v, u64) { return Acc{v, -T(0)}; }
    __device__ static Acc comb(Acc a, Acc b)
    {
        Acc r;
        T e;
        two_sum(a.s, b.s, r.s, e);
        r.c = (a.c + b.c) + e;
        return r;
    }
    __device__ static void store(void *out, Acc a)
    {
        // Once s is inf or NaN the error terms are meaningless (inf - inf);
        // c == 0 keeps a -0 sum negative.
        T r = (a.s - a.s != T(0) || a.c == T(0)) ? a.s : a.s + a.c;
        *(T *)out = r;
    }
};
// Integers have nothing to compensate.
template <typename T> struct Red<T, OP_SUMC, false> : Red<T, OP_SUM, false> {};

template <typename T, bool MAX> struct MinMaxF {
    typedef T Acc;
    __device__ static Acc identity()
    {
        return MAX ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
    }
    __device__ static Acc lift(T v, u64) { return v; }
    __device__ static Acc comb(Acc a, Acc b) { return fminmax<T, MAX>(a, b); }
    __device__ static void store(void *out, Acc a) { *(T *)out = a; }
};
template <typename T, bool MAX> struct MinMaxI {
    typedef T Acc;
    __device__ static Acc identity()
    {
        return MAX ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
    }
    __device__ static Acc lift(T v, u64) { return v; }
    __device__ static Acc comb(Acc a, Acc b) { return MAX ? (a >= b ? a : b) : (a <= b ? a : b); }
    __device__ static void store(void *out, Acc a) { *(T *)out = a; }
};
template <typename T> struct Red<T, OP_MIN, true> : MinMaxF<T, false> {};
template <typename T> struct Red<T, OP_MAX, true> : MinMaxF<T, true> {};
template <typename T> struct Red<T, OP_MIN, false> : MinMaxI<T, false> {};
template <typename T> struct Red<T, OP_MAX, false> : MinMaxI<T, true> {};

// ARGMIN / ARGMAX: (value, index); a NaN beats every number, the smaller
// index breaks ties. A strict total order on (value, index), so the combine
// is commutative and associative: any tree gives the same answer.
template <typename T, bool MAX> struct ArgOp {
    typedef Arg<T> Acc;
    static constexpr bool FL = std::is_floating_point<T>::value;
    __device__ static Acc identity() { return Acc{MinMaxSel::identity(), ~0ull}; }
    __device__ static Acc lift(T v, u64 i) { return Acc{v, i}; }
    __device__ static bool nan_(T v)
    {
        if constexpr (FL) return is_nan(v);
        else return false;
    }
    __device__ static auto key(T v)
    {
        if constexpr (FL) return okey(v);
        else return v;
    }
    __device__ static Acc comb(Acc a, Acc b)
    {
        bool an = nan_(a.v), bn = nan_(b.v);
        bool a_wins;
        if (an != bn) a_wins = an;
        else if (!an && key(a.v) != key(b.v)) a_wins = MAX ? key(a.v) > key(b.v) : key(a.v) < key(b.v);
        else a_wins = a.i <= b.i;
        return a_wins ? a : b;
    }
    __device__ static void store(void *out, Acc a)
    {
        u64 bits = 0; // value slot of cupat_indexed, upper bytes zero
        memcpy(&bits, &a.v, sizeof(T));
        ((u64 *)out)[0] = bits;
        ((u64 *)out)[1] = a.i;
    }
    typedef typename std::conditional<FL, MinMaxF<T, MAX>, MinMaxI<T, MAX>>::type MinMaxSel;
};
template <typename T> struct Red<T, OP_ARGMIN, true> : ArgOp<T, false> {};
template <typename T> struct Red<T, OP_ARGMAX, true> : ArgOp<T, true> {};
template <typename T> struct Red<T, OP_ARGMIN, false> : ArgOp<T, false> {};
template <typename T> struct Red<T, OP_ARGMAX, false> : ArgOp<T, true> {};

// f32 ARGMIN / ARGMAX over fewer than 2^32 elements (the streaming rungs'
// form): the order key and the index packed in one 64-bit word, so that one
// unsigned compare is ArgOp's whole combine. High word: the order key biased
// to unsigned, a NaN's beyond every number's (0xffffffff for max, 0 for min;
// -inf and +inf map strictly inside). Low word: the index for min, its
// complement for max, so that the larger word holds the smaller index among
// equal keys. Eight bytes through the shuffles and the partials instead of
// ArgOp's sixteen, and no NaN tests in the trees. The value is not carried:
// the key gives a number's bits back (okey is its own inverse); a NaN's
// payload is read from x at the winning index (store_src).
template <bool MAX> struct ArgPackF32 {
    typedef u64 Acc;
    static constexpr bool SRC = true; // store needs the input: see store_result
    __device__ static unsigned ukey(float v)
    {
        return (unsigned)nan_key<float, MAX>(v) ^ 0x80000000u;
    }
    __device__ static Acc identity() { return MAX ? 0ull : ~0ull; }
    __device__ static Acc lift(float v, u64 i)
    {
        const unsigned lo = MAX ? ~(unsigned)i : (unsigned)i;
        return ((u64)ukey(v) << 32) | lo;
    }
    __device__ static Acc comb(Acc a, Acc b) { return MAX ? (a > b ? a : b) : (a < b ? a : b); }
    __device__ static void store_src(void *out, Acc a, const void *src)
    {
        const unsigned key = (unsigned)(a >> 32), lo = (unsigned)a;
        const unsigned i = MAX ? ~lo : lo;
        unsigned bits;
        if (key == (MAX ? 0xffffffffu : 0u)) bits = __float_as_uint(((const float *)src)[i]);
        else bits = __float_as_uint(okey_value((int32_t)(key ^ 0x80000000u)));
        ((u64 *)out)[0] = bits;
        ((u64 *)out)[1] = i;
    }
};

// Float MIN / MAX on order keys (the single-pass rungs' form): the tree
// combines okey's signed integers, one integer max or min, where fminmax
// takes two NaN tests, two keys and a select. A NaN's key lies beyond every
// number's (INT_MAX for max, INT_MIN for min: okey(+-inf) lies strictly
// inside), so a NaN wins; the store turns it into the quiet NaN every
// backend returns, and a number's key back into its bits (okey is its own
// inverse). The identity is the key of -inf (max) or +inf (min).
template <typename T, bool MAX> struct MinMaxKeyF {
    typedef decltype(okey(T(0))) Acc;
    static constexpr Acc NANKEY = MAX ? std::numeric_limits<Acc>::max() : std::numeric_limits<Acc>::min();
    __device__ static Acc identity()
    {
        return okey(MAX ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity());
    }
    __device__ static Acc lift(T v, u64) { return nan_key<T, MAX>(v); }
    __device__ static Acc comb(Acc a, Acc b) { return MAX ? (a > b ? a : b) : (a < b ? a : b); }
    __device__ static void store(void *out, Acc a)
    {
        T v;
        if (a == NANKEY) {
            v = qnan(T(0));
        } else { // = okey_value(a), in the spelling whose machine code ran and was timed on the H100
            const Acc b = a ^ (Acc)((typename std::make_unsigned<Acc>::type)(a >> (8 * sizeof(Acc) - 1)) >> 1);
            memcpy(&v, &b, sizeof v);
        }
        *(T *)out = v;
    }
};
template <typename T> struct Red<T, OP_MIN_K, true> : MinMaxKeyF<T, false> {};
template <typename T> struct Red<T, OP_MAX_K, true> : MinMaxKeyF<T, true> {};

template <> struct Red<float, OP_ARGMIN_P, true> : ArgPackF32<false> {};
template <> struct Red<float, OP_ARGMAX_P, true> : ArgPackF32<true> {};

// Element i of x, or the identity past the end (the books' kernels assume n
// is a multiple of the block; padding with the identity removes that).
template <class R, typename T>
__device__ __forceinline__ typename R::Acc ld(const T *__restrict__ x, size_t n, size_t i)
{
    return i < n ? R::lift(x[i], i) : R::identity();
}

// ------------------------------------------------------------- warp/block --
// The warp shuffles are core's (cupat_warp.cuh: any accumulator type, 32
// bits at a time). R::comb as a functor for core's warp helpers. Every comb here is
// commutative bit for bit (see the top of this file), so the warp reduce may
// combine (own, partner) in every lane: the order of combines is the one this
// file always had.
template <class R> struct CombOp {
    static constexpr bool commutative = true;
    template <class A> __device__ __forceinline__ A operator()(A a, A b) const { return R::comb(a, b); }
};

// Butterfly over the warp, neighbours first ((v0+v1)+(v2+v3))...: every lane
// ends with the same bits because each combine is commutative bit for bit.
template <class R> __device__ __forceinline__ typename R::Acc warp_reduce(typename R::Acc v)
{
    return cupat_dev::warp_reduce<32>(v, CombOp<R>());
}

// Block reduce: warps, then warp 0 over the warp results. The result is valid
// in warp 0. Callers put a __syncthreads() between two calls (shared reuse).
template <class R, int BLOCK> __device__ __forceinline__ typename R::Acc block_reduce(typename R::Acc v)
{
    typedef typename R::Acc Acc;
    constexpr int NW = BLOCK / 32;
    __shared__ Acc warp_acc[NW];
    v = warp_reduce<R>(v);
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    if (NW == 1) return v;
    if (lane == 0) warp_acc[w] = v;
    __syncthreads();
    if (w == 0) {
        v = lane < NW ? warp_acc[lane] : R::identity();
        v = warp_reduce<R>(v);
    }
    return v;
}

// ----------------------------------------------------------- grid finish --
// Load an accumulator written by another block: L2 only (ld.global.cg), so no
// stale L1 line can answer.
template <typename A> __device__ __forceinline__ A load_cg(const A *p)
{
    static_assert(sizeof(A) % 4 == 0, "accumulator size");
    unsigned w[sizeof(A) / 4];
#pragma unroll
    for (int k = 0; k < (int)(sizeof(A) / 4); k++) w[k] = __ldcg((const unsigned *)p + k);
    A v;
    memcpy(&v, w, sizeof(A));
    return v;
}

// Scratch a single-pass finish uses: one accumulator and one flag per block.
template <typename Acc> struct GridScratch {
    Acc *partials;
    u64 *flags;            // decoupled: epoch of the call that wrote partials[b]
    unsigned *ticket;      // last-block: arrival counter (zeroed before the launch)
    u64 epoch;
    const void *src = nullptr; // the input, for an R that reads it back (R::SRC)
};

// The result through R::store, or R::store_src where R reads the input back.
template <class R, class = void> struct HasSrc : std::false_type {};
template <class R> struct HasSrc<R, std::void_t<decltype(R::SRC)>> : std::true_type {};
template <class R, typename A>
__device__ __forceinline__ void store_result(void *out, typename R::Acc a, const GridScratch<A> &g)
{
    if constexpr (HasSrc<R>::value) R::store_src(out, a, g.src);
    else R::store(out, a);
}

__device__ __forceinline__ void st_release(u64 *p, u64 v)
{
    asm volatile("st.release.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ u64 ld_acquire(const u64 *p)
{
    u64 v;
    asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}

// The last block reduces partials[0, G) in a fixed order: thread t takes
// t, t + BLOCK, ... ascending, then the block tree. `own` is block G-1's
// aggregate (not read back from memory). Flags and partials are read K per
// thread at a time (independent loads, one L2 round trip per batch, not per
// item); the order of the adds does not depend on K.
template <class R, int BLOCK, bool WAIT, int K = 4>
__device__ __forceinline__ void reduce_partials_fixed(const GridScratch<typename R::Acc> &g,
                                                      typename R::Acc own, void *out)
{
    typedef typename R::Acc Acc;
    __shared__ Acc own_s;
    const unsigned G = gridDim.x;
    if (threadIdx.x == 0) own_s = own;
    __syncthreads(); // also orders the block_reduce shared reuse
    Acc a = R::identity();
    for (unsigned j0 = threadIdx.x; j0 < G; j0 += K * BLOCK) {
        if (WAIT) {
            bool ready;
            do {
                u64 f[K];
#pragma unroll
                for (int k = 0; k < K; k++) {
                    unsigned j = j0 + k * BLOCK;
                    f[k] = j < G - 1 ? ld_acquire(g.flags + j) : g.epoch;
                }
                ready = true;
#pragma unroll
                for (int k = 0; k < K; k++) ready = ready && f[k] == g.epoch;
                if (!ready) __nanosleep(64);
            } while (!ready);
        }
        Acc p[K];
#pragma unroll
        for (int k = 0; k < K; k++) {
            unsigned j = j0 + k * BLOCK;
            p[k] = j < G - 1 ? load_cg(g.partials + j) : j == G - 1 ? own_s : R::identity();
        }
#pragma unroll
        for (int k = 0; k < K; k++) a = R::comb(a, p[k]);
    }
    a = block_reduce<R, BLOCK>(a);
    if (threadIdx.x == 0) store_result<R>(out, a, g);
}

enum { FIN_PARTIALS = 0, FIN_LAST_BLOCK = 1, FIN_DECOUPLED = 2 };

// Finish of a grid whose blocks hold `agg` (valid in thread 0).
//  PARTIALS:   write partials[b]; a second kernel reduces them.
//  LAST_BLOCK: write, __threadfence, take a ticket; the block that draws the
//              last ticket reduces all partials (CUDA sample threadFenceReduction).
//  DECOUPLED:  write, publish the call's epoch with a release store; block
//              G-1 (dispatched last) waits for every flag, so no atomics and
//              no counter to clear between calls. Only that one block ever
//              waits, so this cannot deadlock for any grid size, resident or
//              not, as long as the device holds two blocks at once: every
//              other block runs to completion without waiting on anything.
template <class R, int BLOCK, int FIN, int K = 4>
__device__ __forceinline__ void grid_finish(typename R::Acc agg, const GridScratch<typename R::Acc> &g,
                                            void *out)
{
    const unsigned b = blockIdx.x, G = gridDim.x;
    if (G == 1) {
        if (threadIdx.x == 0) store_result<R>(out, agg, g);
        return;
    }
    if (FIN == FIN_PARTIALS) {
        if (threadIdx.x == 0) g.partials[b] = agg;
    } else if (FIN == FIN_LAST_BLOCK) {
        __shared__ bool last;
        if (threadIdx.x == 0) {
            g.partials[b] = agg;
            __threadfence();
            last = atomicAdd(g.ticket, 1u) == G - 1;
        }
        __syncthreads();
        if (!last) return;
        __threadfence(); // see every other block's partial
        // The last arrival is not necessarily block G-1: its own aggregate
        // goes through memory like the others.
        reduce_partials_fixed<R, BLOCK, false, K>(g, load_cg(g.partials + (G - 1)), out);
    } else {
        if (b != G - 1) {
            if (threadIdx.x == 0) {
                g.partials[b] = agg;
                st_release(g.flags + b, g.epoch);
            }
            return;
        }
        reduce_partials_fixed<R, BLOCK, true, K>(g, agg, out);
    }
}

// ------------------------------------------------- two-level finish --
// Reduce partials [lo, hi] of one level in a fixed order, `own` standing for
// partial hi (the caller's own aggregate, not read back): thread t takes
// lo + t, lo + t + BLOCK, ... ascending, waiting for each flag to hold the
// epoch (K loads per thread per L2 round trip), then the block tree. The
// result is valid in thread 0. Two calls in one kernel may follow each
// other: the barrier after own_s orders the shared reuse.
template <class R, int BLOCK, int K>
__device__ __forceinline__ typename R::Acc reduce_level(const typename R::Acc *partials,
                                                        const u64 *flags, u64 epoch,
                                                        unsigned lo, unsigned hi,
                                                        typename R::Acc own)
{
    typedef typename R::Acc Acc;
    __shared__ Acc own_s;
    if (threadIdx.x == 0) own_s = own;
    __syncthreads();
    const unsigned cnt = hi - lo + 1;
    Acc a = R::identity();
    for (unsigned j0 = threadIdx.x; j0 < cnt; j0 += K * BLOCK) {
        bool ready;
        do {
            u64 f[K];
#pragma unroll
            for (int k = 0; k < K; k++) {
                unsigned j = j0 + k * BLOCK;
                f[k] = j < cnt - 1 ? ld_acquire(flags + lo + j) : epoch;
            }
            ready = true;
#pragma unroll
            for (int k = 0; k < K; k++) ready = ready && f[k] == epoch;
            if (!ready) __nanosleep(64);
        } while (!ready);
        Acc p[K];
#pragma unroll
        for (int k = 0; k < K; k++) {
            unsigned j = j0 + k * BLOCK;
            p[k] = j < cnt - 1 ? load_cg(partials + lo + j) : j == cnt - 1 ? own_s : R::identity();
        }
#pragma unroll
        for (int k = 0; k < K; k++) a = R::comb(a, p[k]);
    }
    return block_reduce<R, BLOCK>(a);
}

// Two-level decoupled finish, for grids of many blocks (one tile each).
// Blocks form groups of GROUP = BLOCK consecutive indices; the last block of
// each group (its leader) waits for the group's flags, reduces the group's
// partials in fixed order and publishes the group's partial at level 2;
// block G-1, leader of the last group, then reduces the level-2 partials.
// Only leaders wait, and only on lower-indexed blocks: with at most
// cdiv(G, GROUP) waiters and more block slots than that on the device, the
// other blocks always run, so it cannot deadlock (launchers keep G below
// GROUP x half the resident slots). The critical path after the last tile
// is four L2 round trips, whatever G is.
template <class R, int BLOCK, int K>
__device__ __forceinline__ void grid_finish_2level(typename R::Acc agg,
                                                   const GridScratch<typename R::Acc> &g1,
                                                   const GridScratch<typename R::Acc> &g2,
                                                   void *out)
{
    typedef typename R::Acc Acc;
    constexpr unsigned GROUP = BLOCK;
    const unsigned b = blockIdx.x, G = gridDim.x;
    if (G == 1) {
        if (threadIdx.x == 0) store_result<R>(out, agg, g1);
        return;
    }
    const unsigned grp = b / GROUP, ngrp = (G + GROUP - 1) / GROUP;
    const unsigned first = grp * GROUP;
    const unsigned leader = first + GROUP - 1 < G - 1 ? first + GROUP - 1 : G - 1;
    if (b != leader) {
        if (threadIdx.x == 0) {
            g1.partials[b] = agg;
            st_release(g1.flags + b, g1.epoch);
        }
        return;
    }
    Acc gsum = reduce_level<R, BLOCK, K>(g1.partials, g1.flags, g1.epoch, first, b, agg);
    if (ngrp == 1) {
        if (threadIdx.x == 0) store_result<R>(out, gsum, g1);
        return;
    }
    if (grp != ngrp - 1) {
        if (threadIdx.x == 0) {
            g2.partials[grp] = gsum;
            st_release(g2.flags + grp, g2.epoch);
        }
        return;
    }
    // gsum is valid in thread 0 only: reduce_level takes it through own_s.
    Acc tot = reduce_level<R, BLOCK, K>(g2.partials, g2.flags, g2.epoch, 0, ngrp - 1, gsum);
    if (threadIdx.x == 0) store_result<R>(out, tot, g1);
}

} // namespace cupat_red
#endif
