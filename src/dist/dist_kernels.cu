// dist_kernels.cu — the elementwise combine of cupat_allreduce_dist
// (out = a op b), on the GPU and on the CPU, with cupat_reduce's operators
// (reduce_ops.cuh on the device, float_order.h's rules on the host), so a
// distributed result has the bits a one-process reduction of the same
// operands in the same order has.
#include "dist/dist_internal.h"
#include "float_order.h"
#include "reduce/reduce_ops.cuh"

#include <cstdint>
#include <type_traits>

namespace {

using namespace cupat_red;

template <class T, int OP>
__global__ void k_combine(size_t n, const T *__restrict__ a, const T *__restrict__ b, T *out)
{
    typedef Red<T, OP> R;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        T v;
        R::store(&v, R::comb(R::lift(a[i], 0), R::lift(b[i], 0)));
        out[i] = v;
    }
}

template <class T, int OP>
cupat_status launch(cupat_ctx *ctx, size_t n, const void *a, const void *b, void *out)
{
    // a grid of a few waves: the loop covers the rest (bandwidth-bound)
    const size_t blocks = (n + 255) / 256;
    const unsigned cap = (unsigned)ctx->sm_count * 8;
    k_combine<T, OP><<<(unsigned)(blocks < cap ? blocks : cap), 256, 0, ctx->stream>>>(
        n, static_cast<const T *>(a), static_cast<const T *>(b), static_cast<T *>(out));
    return cupat__launched(ctx, "dist k_combine");
}

template <class T>
cupat_status launch_op(cupat_ctx *ctx, cupat_op op, size_t n, const void *a, const void *b, void *out)
{
    switch (op) {
    case CUPAT_OP_SUM: return launch<T, OP_SUM>(ctx, n, a, b, out);
    case CUPAT_OP_MIN: return launch<T, OP_MIN>(ctx, n, a, b, out);
    default: return launch<T, OP_MAX>(ctx, n, a, b, out);
    }
}

// ------------------------------------------------------------------ CPU --
template <class T> T host_qnan();
template <> float host_qnan<float>() { return QNAN_F; }
template <> double host_qnan<double>() { return QNAN_D; }
inline int64_t host_okey(float v) { return okey_f(v); }
inline int64_t host_okey(double v) { return okey_d(v); }

template <class T> T host_comb(cupat_op op, T a, T b)
{
    if constexpr (std::is_floating_point<T>::value) {
        if (op == CUPAT_OP_SUM) return a + b;
        if (a != a || b != b) return host_qnan<T>();
        const bool a_wins = op == CUPAT_OP_MAX ? host_okey(a) >= host_okey(b) : host_okey(a) <= host_okey(b);
        return a_wins ? a : b;
    } else {
        typedef typename std::make_unsigned<T>::type U;
        if (op == CUPAT_OP_SUM) return (T)(U)((U)a + (U)b); // wraps
        return op == CUPAT_OP_MAX ? (a > b ? a : b) : (a < b ? a : b);
    }
}

template <class T> void host_combine(cupat_op op, size_t n, const void *a, const void *b, void *out)
{
    const T *x = static_cast<const T *>(a), *y = static_cast<const T *>(b);
    T *o = static_cast<T *>(out);
    for (size_t i = 0; i < n; i++) o[i] = host_comb<T>(op, x[i], y[i]);
}

template <class T> cupat_status combine(cupat_ctx *ctx, cupat_op op, size_t n, const void *a, const void *b, void *out)
{
    if (ctx->backend != CUPAT_BACKEND_CUDA) {
        host_combine<T>(op, n, a, b, out);
        return CUPAT_SUCCESS;
    }
    return launch_op<T>(ctx, op, n, a, b, out);
}

} // namespace

cupat_status cupat__dist_combine(cupat_ctx *ctx, cupat_type type, cupat_op op, size_t n, const void *a,
                                 const void *b, void *out)
{
    if (n == 0) return CUPAT_SUCCESS;
    switch (type) {
    case CUPAT_F32: return combine<float>(ctx, op, n, a, b, out);
    case CUPAT_F64: return combine<double>(ctx, op, n, a, b, out);
    case CUPAT_I32: return combine<int32_t>(ctx, op, n, a, b, out);
    case CUPAT_U32: return combine<uint32_t>(ctx, op, n, a, b, out);
    case CUPAT_I64: return combine<int64_t>(ctx, op, n, a, b, out);
    case CUPAT_U64: return combine<uint64_t>(ctx, op, n, a, b, out);
    }
    return cupat__fail(ctx, CUPAT_ERROR_INTERNAL, "cupat__dist_combine: type %d", (int)type);
}
