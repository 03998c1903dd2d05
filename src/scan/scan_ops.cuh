// SPDX-License-Identifier: Apache-2.0
// scan_ops.cuh — what every scan kernel file shares: the operation traits
// (reduce's Red<T, OP>: identity, combine, with the same NaN and signed-zero
// rules), the value an exclusive scan writes first, and the dispatch from the
// run-time (type, op) pair to a template instantiation.
#ifndef CUPAT_SCAN_OPS_CUH
#define CUPAT_SCAN_OPS_CUH

#include "reduce/reduce_ops.cuh"
#include "scan/scan_internal.h"

#include <cstdint>
#include <type_traits>

namespace cupat_scan_dev {

using cupat_red::OP_MAX;
using cupat_red::OP_MIN;
using cupat_red::OP_SUM;

// Scan traits of (element type T, op): Acc is the type combined (the unsigned
// twin of an integer for sums, so they wrap), comb the operation.
template <typename T, int OP> struct ScanOp {
    typedef cupat_red::Red<T, OP> R;
    typedef typename R::Acc Acc;
    static constexpr bool FLOAT_SUM = std::is_floating_point<T>::value && OP == OP_SUM;
    // Float min/max: a lone NaN must still come out as the canonical NaN.
    static constexpr bool CANON = std::is_floating_point<T>::value && OP != OP_SUM;
    __device__ __forceinline__ static Acc identity() { return R::identity(); }
    __device__ __forceinline__ static Acc comb(Acc a, Acc b) { return R::comb(a, b); }
    // What an exclusive scan writes at y[0]: the identity, except that an empty
    // float sum is +0 (inside the trees the neutral element is -0).
    __device__ __forceinline__ static Acc first() { return FLOAT_SUM ? Acc(0) : R::identity(); }
    // A functor for the cupat_dev warp/block helpers.
    struct F {
        // Integer sums wrap, min/max pick: both orders give the same bits
        // (cupat_dev::op_commutes; lets the look-back fold windows per lane).
        static constexpr bool commutative = std::is_integral<T>::value;
        __device__ __forceinline__ Acc operator()(Acc a, Acc b) const { return R::comb(a, b); }
    };
};

template <typename T> struct TypeTag { typedef T type; };
template <int V> struct OpTag { static constexpr int value = V; };

// f(TypeTag<T>{}, OpTag<OP>{}) for the run-time pair; unknown values give
// CUPAT_ERROR_INTERNAL (scan.c checked them).
template <typename T, class F> cupat_status dispatch_op(cupat_op op, F &&f)
{
    switch (op) {
    case CUPAT_OP_SUM: return f(TypeTag<T>{}, OpTag<OP_SUM>{});
    case CUPAT_OP_MIN: return f(TypeTag<T>{}, OpTag<OP_MIN>{});
    case CUPAT_OP_MAX: return f(TypeTag<T>{}, OpTag<OP_MAX>{});
    default: return CUPAT_ERROR_INTERNAL;
    }
}
template <class F> cupat_status dispatch(cupat_type t, cupat_op op, F &&f)
{
    switch (t) {
    case CUPAT_F32: return dispatch_op<float>(op, f);
    case CUPAT_F64: return dispatch_op<double>(op, f);
    case CUPAT_I32: return dispatch_op<int32_t>(op, f);
    case CUPAT_U32: return dispatch_op<uint32_t>(op, f);
    case CUPAT_I64: return dispatch_op<int64_t>(op, f);
    case CUPAT_U64: return dispatch_op<uint64_t>(op, f);
    }
    return CUPAT_ERROR_INTERNAL;
}

} // namespace cupat_scan_dev

#endif
