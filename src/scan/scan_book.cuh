// SPDX-License-Identifier: Apache-2.0
// scan_book.cuh — what scan_book.cu (PMPP ch. 11 rungs) and scan_multi.cu
// (warp shuffle, reduce-then-scan, cooperative grid) share: host-side sizes
// and summation-depth helpers, the join of an output from its optional
// parts, and the entry points of scan_multi.cu.
//
// Summation depth (the error model, see scan_internal.h): the most rounding
// additions on the path from any input x_j to any output y_i. Every rung
// computes y_i as a tree over x_0..x_i, each element used once; a combine
// with the identity (-0 for float sums, x + -0 == x) is exact and not
// counted, so the depth of a scan of m elements is also at most m - 1.
#ifndef CUPAT_SCAN_BOOK_CUH
#define CUPAT_SCAN_BOOK_CUH

#include "scan/scan_ops.cuh"

extern "C" {
#include "internal.h"
}

#include <cstddef>
#include <cstdint>

namespace cupat_scanbook {

using namespace cupat_scan_dev;

// Grids of the multi-block tile kernels are capped and the blocks loop over
// their tiles (gridDim.x limits, n beyond 2^32).
constexpr size_t GRID_CAP = (size_t)1 << 16;

inline size_t cdiv(size_t a, size_t b) { return (a + b - 1) / b; }
inline size_t align_up(size_t v, size_t a) { return (v + a - 1) / a * a; }
inline size_t dmax(size_t a, size_t b) { return a > b ? a : b; }
inline size_t dmin(size_t a, size_t b) { return a < b ? a : b; }
inline size_t clog2(size_t k)
{
    size_t d = 0;
    while (((size_t)1 << d) < k) d++;
    return d;
}

// Scratch carved into 256-byte aligned regions (one cupat__scratch a call).
struct Carve {
    size_t off = 0;
    size_t take(size_t bytes)
    {
        size_t o = off;
        off = align_up(off + bytes, 256);
        return o;
    }
};

// Sizes of the levels of a hierarchical scan: m[0] = n, m[k+1] =
// cdiv(m[k], tile), until a level fits one tile. Returns the number of
// levels above level 0 (0 when n <= tile).
inline int hier_levels(size_t n, size_t tile, size_t *m, int cap)
{
    int k = 0;
    m[0] = n;
    while (m[k] > tile && k + 1 < cap) {
        m[k + 1] = cdiv(m[k], tile);
        k++;
    }
    return k;
}
constexpr int MAX_LEVELS = 16; // tile >= 512: 512^16 is far beyond any n

// ------------------------------------------------------------- depths --
// A tile (section) scan is described by
//   L: the depth of any of its outputs (the local inclusive scan),
//   T: the depth of its total (what is carried or written as a block sum).
//
// One block walking sections of S elements, output = carry + local and
// carry' = carry + total (section 0 has no carry: no add). An element of
// section s' reaches the carry of section s > s' through its section total
// (T), one add into carry(s'+1) unless s' = 0, s - s' - 1 adds along the
// chain, then the output's add: T + s - s' + [s' > 0] <= T + s. An element
// of section s itself: L + 1 (L when s = 0). So, over nsec >= 2 sections,
// max(L + 1, T + nsec - 1); one section: L.
inline size_t walk_depth(size_t nsec, size_t L, size_t T)
{
    return nsec <= 1 ? L : dmax(L + 1, T + nsec - 1);
}
// Hierarchical (scan tiles, scan the tile totals recursively, add the
// prefix): an element of another tile reaches output i through its tile
// total (T), the scan of the totals (the same depth one level up), and the
// add of the prefix; an element of the same tile through L and that add.
// One tile: L. Each level is also bounded by its size - 1.
inline size_t hier_depth(size_t m, size_t tile, size_t L, size_t T)
{
    if (m <= 1) return 0;
    if (m <= tile) return dmin(L, m - 1);
    size_t up = hier_depth(cdiv(m, tile), tile, L, T);
    return dmin(dmax(L, T + up) + 1, m - 1);
}

// Resident blocks per SM of `kernel` (occupancy API), asked once per
// (kernel, device) and kept; 1 when the query fails.
int resident_per_sm(const cupat_ctx *ctx, const void *kernel, int block);

// scan_multi.cu: SR_WARP_SHFL, SR_REDUCE_THEN_SCAN, SR_COOP_GRID.
cupat_status multi_run(cupat_ctx *ctx, const scan_req *r);
size_t multi_depth(const cupat_ctx *ctx, int rung, cupat_type t, size_t n);

} // namespace cupat_scanbook

namespace cupat_scanbook_dev {

using namespace cupat_scan_dev;

// An element as the scan sees it: identity op v. For float min/max that
// makes a NaN the canonical quiet NaN even where v is never combined with
// anything (y[0] of an inclusive scan), as every other rung and the CPU
// give; for everything else it is v itself, so it is skipped.
template <class S> __device__ __forceinline__ typename S::Acc lift(typename S::Acc v)
{
    if constexpr (S::CANON) return S::comb(S::identity(), v);
    else return v;
}

// Element i of x as an accumulator, the identity past the end (the padding
// of a partial tile: combining with it is exact).
template <class S, typename T>
__device__ __forceinline__ typename S::Acc ld_elem(const T *x, size_t n, size_t i)
{
    return i < n ? lift<S>((typename S::Acc)x[i]) : S::identity();
}

// An output from its optional parts: the carry (everything before the
// tile), and the tile-local value (absent only for the first element of an
// exclusive scan). With neither, `empty`: ScanOp::first() for y[0], or the
// identity where a later pass adds the prefix (comb(P, identity) == P).
// Parts that are absent are not combined, so the first outputs have the
// bits of a sequential scan and no extra rounding.
template <class S>
__device__ __forceinline__ typename S::Acc join(bool has_carry, typename S::Acc carry, bool has_local,
                                                typename S::Acc local, typename S::Acc empty)
{
    if (has_carry) return has_local ? S::comb(carry, local) : carry;
    return has_local ? local : empty;
}

__device__ __forceinline__ bool aligned16(const void *p) { return ((uintptr_t)p & 15) == 0; }
__device__ __forceinline__ size_t dmin_dev(size_t a, size_t b) { return a < b ? a : b; }

} // namespace cupat_scanbook_dev

#endif
