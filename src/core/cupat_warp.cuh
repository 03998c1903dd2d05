// SPDX-License-Identifier: Apache-2.0
// cupat_warp.cuh — the warp and block helpers every pattern uses (PCCP 5.6;
// CUDA C++ Programming Guide, warp shuffle, vote, match and reduce
// functions): shuffles of any type, warp reduce / scan by shuffles over
// segments of WIDTH lanes, partial warps, ballot ranks (compaction), match_any,
// __reduce_*_sync, and block reduce / scan built on them.
//
// Determinism: every tree here has a fixed shape that depends only on the
// template arguments (and nactive), never on timing, so float results have
// the same bits run after run. The shapes are written out beside each
// function so a host model can reproduce the bits (tests/test_warp does).
//
// Operands are always combined in lane order, op(lower lanes, higher lanes),
// so an associative op need not be commutative (segmented-scan operators,
// "first of", float min over -0/+0); see op_commutes for the one exception.
#ifndef CUPAT_WARP_CUH
#define CUPAT_WARP_CUH

#include <cstring>
#include <type_traits>

namespace cupat_dev {

constexpr unsigned FULL_MASK = 0xffffffffu;

// Lane of the calling thread in its warp. %laneid is right for any block
// shape (threadIdx.x & 31 is only right for 1D blocks or x a multiple of 32).
__device__ __forceinline__ unsigned lane_id()
{
    unsigned r;
    asm("mov.u32 %0, %%laneid;" : "=r"(r));
    return r;
}

// Bits of the lanes below this one: popc(ballot & lanemask_lt()) is the rank
// of this lane among the voters (stream compaction).
__device__ __forceinline__ unsigned lanemask_lt()
{
    unsigned r;
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(r));
    return r;
}

// Lane within a segment of WIDTH lanes (WIDTH a power of two <= 32).
template <int WIDTH> __device__ __forceinline__ unsigned segment_lane()
{
    static_assert(WIDTH >= 1 && WIDTH <= 32 && (WIDTH & (WIDTH - 1)) == 0, "WIDTH: power of two <= 32");
    return lane_id() & (WIDTH - 1);
}

// ------------------------------------------------------------- shuffles --
// The hardware moves 32 bits a lane; a T of any size goes word by word
// (a 1- or 2-byte T in the low bytes of one word; a 12-byte struct in three).
// memcpy keeps this free of aliasing games; it compiles to register moves.
namespace detail {
template <typename T> struct Words {
    static_assert(std::is_trivially_copyable<T>::value, "shuffle: T must be trivially copyable");
    static constexpr int N = (int)((sizeof(T) + 3) / 4);
    unsigned w[N];
    __device__ __forceinline__ explicit Words(const T &v)
    {
        if (sizeof(T) % 4) w[N - 1] = 0u; // defined bits in the word's tail
        memcpy(w, &v, sizeof(T));
    }
    __device__ __forceinline__ T get() const
    {
        T v;
        memcpy(&v, w, sizeof(T));
        return v;
    }
};
} // namespace detail

// Value of lane `src` of this lane's segment of `width` lanes (PCCP 5.6
// "__shfl": broadcast when src is the same in all lanes; src is taken
// modulo width, so src = lane + k is a wrap-around shift).
template <typename T> __device__ __forceinline__ T shfl(T v, int src, int width = 32, unsigned mask = FULL_MASK)
{
    detail::Words<T> x(v);
#pragma unroll
    for (int k = 0; k < detail::Words<T>::N; k++) x.w[k] = __shfl_sync(mask, x.w[k], src, width);
    return x.get();
}
// Value of lane - d; lanes whose segment lane is < d keep their own value.
template <typename T> __device__ __forceinline__ T shfl_up(T v, unsigned d, int width = 32, unsigned mask = FULL_MASK)
{
    detail::Words<T> x(v);
#pragma unroll
    for (int k = 0; k < detail::Words<T>::N; k++) x.w[k] = __shfl_up_sync(mask, x.w[k], d, width);
    return x.get();
}
// Value of lane + d; lanes whose segment lane + d >= width keep their own.
template <typename T> __device__ __forceinline__ T shfl_down(T v, unsigned d, int width = 32, unsigned mask = FULL_MASK)
{
    detail::Words<T> x(v);
#pragma unroll
    for (int k = 0; k < detail::Words<T>::N; k++) x.w[k] = __shfl_down_sync(mask, x.w[k], d, width);
    return x.get();
}
// Value of lane ^ m (the butterfly). With m >= width the partner lies in
// another segment: one in a LATER segment gives the lane its own value, but
// one in an EARLIER segment is read (PTX clamps the source only upward), so
// keep m < width where segments must stay apart.
template <typename T> __device__ __forceinline__ T shfl_xor(T v, int m, int width = 32, unsigned mask = FULL_MASK)
{
    detail::Words<T> x(v);
#pragma unroll
    for (int k = 0; k < detail::Words<T>::N; k++) x.w[k] = __shfl_xor_sync(mask, x.w[k], m, width);
    return x.get();
}

// ------------------------------------------------------------ operators --
struct OpSum {
    template <class T> __device__ __forceinline__ T operator()(T a, T b) const { return a + b; }
};
// Plain comparisons: a NaN operand, and -0 against +0, make the result
// depend on the operand order (callers with NaN rules pass their own op).
struct OpMin {
    template <class T> __device__ __forceinline__ T operator()(T a, T b) const { return a < b ? a : b; }
};
struct OpMax {
    template <class T> __device__ __forceinline__ T operator()(T a, T b) const { return a > b ? a : b; }
};

// op_commutes<Op, T>: op(a, b) and op(b, a) have the same bits for every a,
// b of T. Then warp_reduce may combine (own, partner) in every lane instead of
// (lower, upper), which saves two selects a step and gives the same bits.
// True for sums of arithmetic types (IEEE addition is commutative; the GPU's
// NaN results are canonical), integer min/max, and any Op with
// `static constexpr bool commutative = true;`. False otherwise.
namespace detail {
template <class Op, class = void> struct declares_commutative : std::false_type {};
template <class Op>
struct declares_commutative<Op, typename std::enable_if<Op::commutative>::type> : std::true_type {};
} // namespace detail
template <class Op, typename T> struct op_commutes : detail::declares_commutative<Op> {};
template <typename T> struct op_commutes<OpSum, T> : std::is_arithmetic<T> {};
template <typename T> struct op_commutes<OpMin, T> : std::is_integral<T> {};
template <typename T> struct op_commutes<OpMax, T> : std::is_integral<T> {};

// ------------------------------------------------------ warp, whole segments --
// Reduce over each segment of WIDTH lanes; every lane of the segment gets the
// same bits. Butterfly, xor 1, 2, 4, ...: neighbours first, so lane 0 of a
// segment of 8 holds ((v0 v1)(v2 v3))((v4 v5)(v6 v7)), a fixed tree.
template <int WIDTH = 32, class Op, typename T> __device__ __forceinline__ T warp_reduce(T v, Op op)
{
    static_assert(WIDTH >= 1 && WIDTH <= 32 && (WIDTH & (WIDTH - 1)) == 0, "WIDTH: power of two <= 32");
    const unsigned lane = lane_id();
#pragma unroll
    for (int m = 1; m < WIDTH; m <<= 1) {
        T p = shfl_xor(v, m, WIDTH);
        if constexpr (op_commutes<Op, T>::value) {
            v = op(v, p);
        } else {
            const bool lower = (lane & m) == 0; // same operands, same order in both lanes
            v = lower ? op(v, p) : op(p, v);
        }
    }
    return v;
}

// Inclusive scan over each segment (Kogge-Stone, PMPP 11.2, by shuffles):
// step d = 1, 2, 4, ...: v[j] = op(v[j - d], v[j]) where j - d is in the
// segment. log2(WIDTH) steps, WIDTH log2(WIDTH) combines.
template <int WIDTH = 32, class Op, typename T> __device__ __forceinline__ T warp_inclusive_scan(T v, Op op)
{
    const unsigned sl = segment_lane<WIDTH>();
#pragma unroll
    for (int d = 1; d < WIDTH; d <<= 1) {
        T p = shfl_up(v, d, WIDTH);
        if (sl >= (unsigned)d) v = op(p, v);
    }
    return v;
}

// Exclusive scan over each segment: the inclusive result of the lane below
// (the segment's lane 0 gets `identity`, never combined with anything, so an
// identity like -0.0f for float sums cannot change a bit). `total` is the
// segment's inclusive result at its last lane, in every lane.
template <int WIDTH = 32, class Op, typename T>
__device__ __forceinline__ T warp_exclusive_scan(T v, Op op, T identity, T &total)
{
    T inc = warp_inclusive_scan<WIDTH>(v, op);
    total = shfl(inc, WIDTH - 1, WIDTH);
    T ex = shfl_up(inc, 1, WIDTH);
    return segment_lane<WIDTH>() == 0 ? identity : ex;
}

// ---------------------------------------------------------- partial warps --
namespace detail {
// Lanes 0..n-1 hold data (n the same in every calling lane, 1..32); every
// lane in `mask` calls. A tree toward lane 0, lane l taking l + m at step m
// where l is a multiple of 2m and l + m < n; then lane 0 broadcasts. For
// n = 32 this is warp_reduce's tree, so the bits are the same.
template <class Op, typename T> __device__ __forceinline__ T first_n_reduce(T v, Op op, int n, unsigned mask)
{
    const unsigned lane = lane_id();
    for (int m = 1; m < n; m <<= 1) {
        T p = shfl_down(v, m, 32, mask); // from an idle lane: undefined, unused
        if ((lane & (2 * m - 1)) == 0 && (int)lane + m < n) v = op(v, p);
    }
    return shfl(v, 0, 32, mask);
}
} // namespace detail

// Reduce over lanes 0..nactive-1 (nactive 1..32, the same in all of them),
// result in every one of them. ONLY THOSE LANES CALL: lanes >= nactive must
// not (they may have returned; the shuffles name just the first nactive
// lanes). Tree: see detail::first_n_reduce; bits equal to warp_reduce when
// nactive == 32.
template <class Op, typename T> __device__ __forceinline__ T warp_reduce_partial(T v, Op op, int nactive)
{
    const unsigned mask = nactive >= 32 ? FULL_MASK : (1u << nactive) - 1u;
    return detail::first_n_reduce(v, op, nactive, mask);
}

// ---------------------------------------------------------- vote and match --
// Rank of this lane among the lanes of `mask` whose pred is set (where a
// compaction writes it), and in `count` how many have it set. Every lane of
// mask calls.
__device__ __forceinline__ unsigned warp_ballot_rank(bool pred, unsigned &count, unsigned mask = FULL_MASK)
{
    const unsigned b = __ballot_sync(mask, pred);
    count = (unsigned)__popc(b);
    return (unsigned)__popc(b & lanemask_lt());
}

namespace detail {
template <typename T> struct MatchBits {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "warp_match_any: T of 4 or 8 bytes");
    typedef typename std::conditional<sizeof(T) == 4, unsigned, unsigned long long>::type type;
};
// The shuffle form of __match_any_sync: every lane of mask broadcasts its
// value in turn (up to 32 shuffles). Used below sm_70; tested on its own.
template <typename T> __device__ __forceinline__ unsigned match_any_shfl(T v, unsigned mask)
{
    typedef typename MatchBits<T>::type U;
    U b;
    memcpy(&b, &v, sizeof(T));
    unsigned r = 0;
    for (unsigned m = mask; m; m &= m - 1) {
        const int src = __ffs(m) - 1;
        if (shfl(b, src, 32, mask) == b) r |= 1u << src;
    }
    return r;
}
} // namespace detail

// Lanes of `mask` holding the same bits as this one (bits, not values: -0 and
// +0 differ, a NaN matches only the same NaN). 4- or 8-byte T.
template <typename T> __device__ __forceinline__ unsigned warp_match_any(T v, unsigned mask = FULL_MASK)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 700
    return detail::match_any_shfl(v, mask);
#else
    typedef typename detail::MatchBits<T>::type U;
    U b;
    memcpy(&b, &v, sizeof(T));
    return __match_any_sync(mask, b);
#endif
}

// ------------------------------------------------------ __reduce_*_sync --
// sm_80+ reduces 32-bit integers across the lanes of `mask` in one
// instruction (REDUX); below that, the shuffle form. Every lane of mask calls
// and gets the result. Integer results do not depend on the order.
namespace detail {
// Full warp: the butterfly. Any other mask: each lane gathers every member
// (a butterfly would pull from lanes outside the mask).
template <class Op, typename T> __device__ __forceinline__ T reduce_sync_shfl(T v, unsigned mask, Op op)
{
    if (mask == FULL_MASK) return warp_reduce<32>(v, op);
    T r = v;
    bool first = true;
    for (unsigned m = mask; m; m &= m - 1) {
        T p = shfl(v, __ffs(m) - 1, 32, mask);
        r = first ? p : op(r, p);
        first = false;
    }
    return r;
}
} // namespace detail

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define CUPAT_REDUX_(fn, T, op)                                                                        \
    __device__ __forceinline__ T warp_reduce_##fn(T v, unsigned mask = FULL_MASK) { return __reduce_##op##_sync(mask, v); }
#else
#define CUPAT_REDUX_(fn, T, op)                                                                        \
    __device__ __forceinline__ T warp_reduce_##fn(T v, unsigned mask = FULL_MASK)                      \
    {                                                                                                  \
        return detail::reduce_sync_shfl(v, mask, detail::redux_op_##op());                             \
    }
#endif
namespace detail {
struct redux_op_add {
    template <class T> __device__ __forceinline__ T operator()(T a, T b) const { return a + b; }
    static constexpr bool commutative = true;
};
struct redux_op_min {
    template <class T> __device__ __forceinline__ T operator()(T a, T b) const { return a < b ? a : b; }
    static constexpr bool commutative = true;
};
struct redux_op_max {
    template <class T> __device__ __forceinline__ T operator()(T a, T b) const { return a > b ? a : b; }
    static constexpr bool commutative = true;
};
} // namespace detail
CUPAT_REDUX_(add_u32, unsigned, add) // wraps modulo 2^32
CUPAT_REDUX_(min_u32, unsigned, min)
CUPAT_REDUX_(max_u32, unsigned, max)
CUPAT_REDUX_(add_i32, int, add)      // wraps modulo 2^32 (as the hardware does)
CUPAT_REDUX_(min_i32, int, min)
CUPAT_REDUX_(max_i32, int, max)
#undef CUPAT_REDUX_

// ---------------------------------------------------- aggregated updates --
// Warp-aggregated update (match_any, then a group reduce): the lanes of
// `mask` holding the same key (bits) form a group; every lane gets its
// group's sum of v (modulo 2^32), and `leader` is set in the group's lowest
// lane, which alone makes the update: one atomic per distinct key instead of
// one per lane (histograms, counters). Every lane of mask calls.
template <typename K>
__device__ __forceinline__ unsigned warp_aggregate_add(K key, unsigned v, bool &leader, unsigned mask = FULL_MASK)
{
    const unsigned g = warp_match_any(key, mask);
    leader = (g & lanemask_lt()) == 0;
    return warp_reduce_add_u32(v, g);
}

// ------------------------------------------------------------ block level --
// 1D blocks of BLOCK threads (a multiple of 32, <= 1024), every thread calls.
// Each function has its own static __shared__ array per instantiation and
// begins with a __syncthreads(), so two calls in a row (or in a loop) never
// overwrite what a slower warp is still reading from the previous call; the
// caller needs no barrier of its own between calls.
namespace detail {
template <int BLOCK> struct BlockShape {
    static_assert(BLOCK >= 32 && BLOCK <= 1024 && BLOCK % 32 == 0, "BLOCK: a multiple of 32, <= 1024");
    static constexpr int NW = BLOCK / 32;
    // Next power of two >= NW: the segment width of the scan over warp totals.
    static constexpr int NWP = NW <= 1 ? 1 : NW <= 2 ? 2 : NW <= 4 ? 4 : NW <= 8 ? 8 : NW <= 16 ? 16 : 32;
};
} // namespace detail

// Reduce over the block, result (same bits) in ALL threads. Tree: each warp's
// warp_reduce, then over the NW warp results the first_n tree (warp 0 first,
// neighbours first; for NW a power of two, warp_reduce's butterfly shape).
// Every warp reduces the warp results itself: one barrier instead of two.
template <int BLOCK, class Op, typename T> __device__ __forceinline__ T block_reduce(T v, Op op)
{
    typedef detail::BlockShape<BLOCK> S;
    v = warp_reduce<32>(v, op);
    if constexpr (S::NW == 1) {
        return v;
    } else {
        __shared__ T warp_res[S::NW];
        const unsigned lane = lane_id(), w = threadIdx.x / 32;
        __syncthreads(); // a previous call's readers are done with warp_res
        if (lane == 0) warp_res[w] = v;
        __syncthreads();
        T x = lane < (unsigned)S::NW ? warp_res[lane] : v; // lanes >= NW: unused
        return detail::first_n_reduce(x, op, S::NW, FULL_MASK);
    }
}

namespace detail {
// The block scans' common part. `inc` is the thread's warp-inclusive value.
// Every warp scans the NW warp totals x_k itself (Kogge-Stone over NWP
// lanes, t_k; the same bits in every warp: one barrier instead of two) and
// takes:
//   prefix      t_{w-1}: what warp w > 0 puts in front of its own values;
//   prev_last   (PREV) the block-inclusive value of the thread before the
//               warp's lane 0, i.e. of warp w-1's last lane: x_0 for w = 1,
//               op(t_{w-2}, x_{w-1}) for w >= 2 (NOT t_{w-1}: a Kogge-Stone
//               tree is not a left fold, so the bits would differ);
//   block_total the last thread's block-inclusive value, op(t_{NW-2}, x_{NW-1}).
// So exclusive[t] == inclusive[t - 1] and block_total == inclusive[BLOCK - 1]
// bit for bit, as a sequential scan has them.
template <int BLOCK, bool PREV, class Op, typename T>
__device__ __forceinline__ void block_scan_prefix(T inc, Op op, T &prefix, T &prev_last, T &block_total)
{
    typedef BlockShape<BLOCK> S;
    static_assert(S::NW >= 2, "one warp needs no block scan");
    __shared__ T warp_tot[S::NW];
    const unsigned lane = lane_id(), w = threadIdx.x / 32;
    __syncthreads(); // a previous call's readers are done with warp_tot
    if (lane == 31) warp_tot[w] = inc;
    __syncthreads();
    const T x = lane < (unsigned)S::NW ? warp_tot[lane] : inc; // lanes >= NW: unused
    const T t = warp_inclusive_scan<S::NWP>(x, op);
    block_total = op(shfl(t, S::NW - 2), shfl(x, S::NW - 1));
    prefix = shfl(t, w == 0 ? 0 : (int)w - 1);
    if (PREV) {
        const T tp = shfl(t, w >= 2 ? (int)w - 2 : 0), xp = shfl(x, w >= 1 ? (int)w - 1 : 0);
        prev_last = w >= 2 ? op(tp, xp) : xp;
    }
}
} // namespace detail

// Inclusive scan over the block (thread order), block_total (the last
// thread's result) in all threads. Shape: warp_inclusive_scan in each warp;
// the warp totals x_k scanned the same way (t_k); thread t of warp w > 0 gets
// op(t_{w-1}, its warp-inclusive value).
template <int BLOCK, class Op, typename T>
__device__ __forceinline__ T block_inclusive_scan(T v, Op op, T &block_total)
{
    T inc = warp_inclusive_scan<32>(v, op);
    if constexpr (detail::BlockShape<BLOCK>::NW == 1) {
        block_total = shfl(inc, 31);
        return inc;
    } else {
        T prefix, unused;
        detail::block_scan_prefix<BLOCK, false>(inc, op, prefix, unused, block_total);
        return threadIdx.x >= 32 ? op(prefix, inc) : inc;
    }
}

// Exclusive scan over the block: thread 0 gets `identity` (never combined),
// thread t > 0 the bits of block_inclusive_scan's result at thread t - 1.
// block_total as block_inclusive_scan's.
template <int BLOCK, class Op, typename T>
__device__ __forceinline__ T block_exclusive_scan(T v, Op op, T identity, T &block_total)
{
    T inc = warp_inclusive_scan<32>(v, op);
    T below = shfl_up(inc, 1); // warp-inclusive value of the lane below
    const unsigned lane = lane_id();
    if constexpr (detail::BlockShape<BLOCK>::NW == 1) {
        block_total = shfl(inc, 31);
        return lane == 0 ? identity : below;
    } else {
        T prefix, prev_last;
        detail::block_scan_prefix<BLOCK, true>(inc, op, prefix, prev_last, block_total);
        if (threadIdx.x < 32) return lane == 0 ? identity : below;
        return lane == 0 ? prev_last : op(prefix, below);
    }
}

} // namespace cupat_dev
#endif
