// SPDX-License-Identifier: Apache-2.0
// cupat.hpp — a header-only C++ layer over cupat.h: an RAII context and
// backend buffer, element types mapped to cupat_type, and typed calls.
//
//   cupat::context ctx;                           // CUPAT_BACKEND_AUTO
//   cupat::buffer<uint32_t> keys(ctx, n);          // backend memory, freed by RAII
//   keys.upload(host.data());
//   cupat::sort(ctx, keys, keys);                  // in place, ascending
//   uint32_t total = cupat::reduce(ctx, keys);     // SUM, into a host value
//
// Errors: a failed call throws cupat::error (status() and what() hold the
// status and cupat_last_error's message). With CUPAT_NO_EXCEPTIONS defined
// before the include, every call returns its cupat_status instead (marked
// [[nodiscard]]) and the calls that return a value are absent (use the form
// with an output argument); a context's constructor that fails leaves it
// empty (ok() is false, cupat_last_error(NULL) says why).
//
// Arguments: anything with data() and size() (cupat::buffer, cupat::span,
// std::span, std::vector on the CPU backend). Only the element types of
// cupat_type map (float, double, int32_t, uint32_t, int64_t, uint64_t):
// another one does not compile. C++17 or later (g++, clang++, nvcc).
#ifndef CUPAT_HPP
#define CUPAT_HPP

#include "cupat.h"

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#if __has_include(<span>) && __cplusplus >= 202002L
#include <span>
#define CUPAT_HPP_STD_SPAN 1
#endif

#ifndef CUPAT_NO_EXCEPTIONS
#include <stdexcept>
#include <string>
#endif

namespace cupat {

// ---------------------------------------------------------------- types --

template <class T>
struct type_of; // no cupat_type for T: a compile error names it
template <> struct type_of<float> { static constexpr cupat_type value = CUPAT_F32; };
template <> struct type_of<double> { static constexpr cupat_type value = CUPAT_F64; };
template <> struct type_of<int32_t> { static constexpr cupat_type value = CUPAT_I32; };
template <> struct type_of<uint32_t> { static constexpr cupat_type value = CUPAT_U32; };
template <> struct type_of<int64_t> { static constexpr cupat_type value = CUPAT_I64; };
template <> struct type_of<uint64_t> { static constexpr cupat_type value = CUPAT_U64; };
template <class T>
inline constexpr cupat_type type_v = type_of<std::remove_cv_t<T>>::value;

// A run of elements in backend (or, on the CPU backend, host) memory.
template <class T>
struct span {
    T *ptr = nullptr;
    size_t count = 0;
    constexpr span() = default;
    constexpr span(T *p, size_t n) : ptr(p), count(n) {}
    template <class U, class = std::enable_if_t<std::is_convertible_v<U (*)[], T (*)[]>>>
    constexpr span(span<U> o) : ptr(o.ptr), count(o.count) {}
#ifdef CUPAT_HPP_STD_SPAN
    template <class U, size_t E, class = std::enable_if_t<std::is_convertible_v<U (*)[], T (*)[]>>>
    constexpr span(std::span<U, E> s) : ptr(s.data()), count(s.size()) {}
#endif
    constexpr T *data() const { return ptr; }
    constexpr size_t size() const { return count; }
};

// ---------------------------------------------------------------- errors --

#ifdef CUPAT_NO_EXCEPTIONS
using result = cupat_status;
#define CUPAT_HPP_RESULT [[nodiscard]] inline ::cupat::result
#define CUPAT_HPP_RETURN(ctx, call) return (call)
#else
class error : public std::runtime_error {
public:
    error(cupat_status s, const char *message)
        : std::runtime_error(std::string(cupat_status_string(s)) + ": " + (message ? message : "")), status_(s) {}
    cupat_status status() const noexcept { return status_; }

private:
    cupat_status status_;
};
using result = void;
// Throws cupat::error for a failed status, with the context's message.
inline void check(cupat_status s, const cupat_ctx *ctx)
{
    if (s != CUPAT_SUCCESS) throw error(s, cupat_last_error(ctx));
}
#define CUPAT_HPP_RESULT inline void
#define CUPAT_HPP_RETURN(ctx, call) ::cupat::check((call), (ctx))
#endif

// --------------------------------------------------------------- context --

// Owns a cupat_ctx: one per host thread (cupat.h). Move-only.
class context {
public:
    explicit context(cupat_backend backend = CUPAT_BACKEND_AUTO, int device = -1)
    {
        cupat_status s = cupat_create(&ctx_, backend, device);
#ifndef CUPAT_NO_EXCEPTIONS
        if (s != CUPAT_SUCCESS) throw error(s, cupat_last_error(nullptr));
#else
        (void)s;
#endif
    }
    ~context() { cupat_destroy(ctx_); }
    context(const context &) = delete;
    context &operator=(const context &) = delete;
    context(context &&o) noexcept : ctx_(std::exchange(o.ctx_, nullptr)) {}
    context &operator=(context &&o) noexcept
    {
        if (this != &o) {
            cupat_destroy(ctx_);
            ctx_ = std::exchange(o.ctx_, nullptr);
        }
        return *this;
    }
    bool ok() const { return ctx_ != nullptr; }
    cupat_ctx *get() const { return ctx_; }
    operator cupat_ctx *() const { return ctx_; }
    cupat_backend backend() const { return cupat_get_backend(ctx_); }
    const char *last_error() const { return cupat_last_error(ctx_); }
    CUPAT_HPP_RESULT sync() { CUPAT_HPP_RETURN(ctx_, cupat_sync(ctx_)); }
    CUPAT_HPP_RESULT set_stream(cupat_stream s) { CUPAT_HPP_RETURN(ctx_, cupat_set_stream(ctx_, s)); }
    // Pin a rung of a ladder (NULL variant: back to the default).
    CUPAT_HPP_RESULT set_variant(const char *pattern, const char *variant)
    {
        CUPAT_HPP_RETURN(ctx_, cupat_set_variant(ctx_, pattern, variant));
    }

private:
    cupat_ctx *ctx_ = nullptr;
};

// ---------------------------------------------------------------- buffer --

// count elements of backend memory (cupat_malloc), freed on destruction.
template <class T>
class buffer {
public:
    buffer() = default;
    buffer(const context &ctx, size_t count) : ctx_(ctx.get()), count_(count)
    {
        void *p = nullptr;
        cupat_status s = cupat_malloc(ctx_, &p, count * sizeof(T));
#ifndef CUPAT_NO_EXCEPTIONS
        check(s, ctx_);
#else
        if (s != CUPAT_SUCCESS) count_ = 0;
#endif
        ptr_ = static_cast<T *>(p);
    }
    ~buffer()
    {
        if (ptr_) cupat_free(ctx_, ptr_);
    }
    buffer(const buffer &) = delete;
    buffer &operator=(const buffer &) = delete;
    buffer(buffer &&o) noexcept
        : ctx_(o.ctx_), ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0))
    {
    }
    buffer &operator=(buffer &&o) noexcept
    {
        if (this != &o) {
            if (ptr_) cupat_free(ctx_, ptr_);
            ctx_ = o.ctx_;
            ptr_ = std::exchange(o.ptr_, nullptr);
            count_ = std::exchange(o.count_, 0);
        }
        return *this;
    }
    T *data() const { return ptr_; }
    size_t size() const { return count_; }
    cupat::span<T> span() const { return {ptr_, count_}; }
    // Host <-> backend copies of the whole buffer (stream-ordered; they wait
    // where a pageable host buffer is involved, as cupat_memcpy does).
    CUPAT_HPP_RESULT upload(const T *host) { CUPAT_HPP_RETURN(ctx_, cupat_memcpy(ctx_, ptr_, host, bytes())); }
    CUPAT_HPP_RESULT download(T *host) const { CUPAT_HPP_RETURN(ctx_, cupat_memcpy(ctx_, host, ptr_, bytes())); }

private:
    size_t bytes() const { return count_ * sizeof(T); }
    cupat_ctx *ctx_ = nullptr;
    T *ptr_ = nullptr;
    size_t count_ = 0;
};

// ------------------------------------------------------------ primitives --
// Each is the C call of the same name, with the types and sizes taken from
// its arguments: anything with data() and size() over backend memory
// (cupat::buffer, cupat::span, std::span; on the CPU backend host memory, a
// std::vector too). The C header's rules (sizes, overlap, streams) hold as
// written there; sizes that do not match give CUPAT_ERROR_SIZE here.

namespace detail {
template <class R>
using elem_t = std::remove_cv_t<std::remove_pointer_t<decltype(std::declval<R &>().data())>>;
template <class A, class B>
inline constexpr bool same_v = std::is_same_v<elem_t<A>, elem_t<B>>;
// A size mismatch the C call cannot see: thrown (or returned) here.
inline result mismatch(const char *fn, size_t a, size_t b)
{
#ifdef CUPAT_NO_EXCEPTIONS
    (void)fn, (void)a, (void)b;
    return CUPAT_ERROR_SIZE;
#else
    throw error(CUPAT_ERROR_SIZE,
                (std::string(fn) + ": sizes " + std::to_string(a) + " and " + std::to_string(b) + " differ").c_str());
#endif
}
} // namespace detail

// Sort keys (in place when out is in); ascending unless told.
template <class In, class Out>
CUPAT_HPP_RESULT sort(const context &ctx, const In &in, Out &&out, cupat_sort_order order = CUPAT_SORT_ASCENDING)
{
    static_assert(detail::same_v<const In, Out>, "cupat::sort: in and out hold other element types");
    if (in.size() != out.size()) return detail::mismatch("cupat::sort", in.size(), out.size());
    CUPAT_HPP_RETURN(ctx.get(), cupat_sort(ctx, type_v<detail::elem_t<const In>>, 0, order, in.size(), in.data(),
                                           out.data(), nullptr, nullptr));
}
// Sort (key, value) pairs by key, stably; values of 4 or 8 bytes (cupat_sort).
template <class KI, class KO, class VI, class VO>
CUPAT_HPP_RESULT sort_pairs(const context &ctx, const KI &keys_in, KO &&keys_out, const VI &values_in,
                            VO &&values_out, cupat_sort_order order = CUPAT_SORT_ASCENDING)
{
    static_assert(detail::same_v<const KI, KO> && detail::same_v<const VI, VO>,
                  "cupat::sort_pairs: inputs and outputs hold other element types");
    const size_t n = keys_in.size();
    if (keys_out.size() != n) return detail::mismatch("cupat::sort_pairs", n, keys_out.size());
    if (values_in.size() != n) return detail::mismatch("cupat::sort_pairs", n, values_in.size());
    if (values_out.size() != n) return detail::mismatch("cupat::sort_pairs", n, values_out.size());
    CUPAT_HPP_RETURN(ctx.get(), cupat_sort(ctx, type_v<detail::elem_t<const KI>>, sizeof(detail::elem_t<const VI>),
                                           order, n, keys_in.data(), keys_out.data(), values_in.data(),
                                           values_out.data()));
}
// Merge two sorted key runs into out (out.size() == a.size() + b.size()).
template <class A, class B, class Out>
CUPAT_HPP_RESULT merge(const context &ctx, const A &a, const B &b, Out &&out,
                       cupat_sort_order order = CUPAT_SORT_ASCENDING)
{
    static_assert(detail::same_v<const A, const B> && detail::same_v<const A, Out>,
                  "cupat::merge: a, b and out hold other element types");
    if (out.size() != a.size() + b.size()) return detail::mismatch("cupat::merge", a.size() + b.size(), out.size());
    CUPAT_HPP_RETURN(ctx.get(), cupat_merge(ctx, type_v<detail::elem_t<const A>>, 0, order, a.size(), a.data(),
                                            nullptr, b.size(), b.data(), nullptr, out.data(), nullptr));
}
// Scan (inclusive unless told) with op SUM, MIN or MAX.
template <class In, class Out>
CUPAT_HPP_RESULT scan(const context &ctx, const In &in, Out &&out, cupat_op op = CUPAT_OP_SUM,
                      cupat_scan_mode mode = CUPAT_SCAN_INCLUSIVE)
{
    static_assert(detail::same_v<const In, Out>, "cupat::scan: in and out hold other element types");
    if (in.size() != out.size()) return detail::mismatch("cupat::scan", in.size(), out.size());
    CUPAT_HPP_RETURN(ctx.get(),
                     cupat_scan(ctx, type_v<detail::elem_t<const In>>, op, mode, in.size(), in.data(), out.data()));
}
// Reduce with op SUM, MIN or MAX into a host value (waits for this call).
template <class In>
CUPAT_HPP_RESULT reduce(const context &ctx, const In &in, detail::elem_t<const In> &out,
                        cupat_op op = CUPAT_OP_SUM)
{
    CUPAT_HPP_RETURN(ctx.get(),
                     cupat_reduce_host(ctx, type_v<detail::elem_t<const In>>, op, in.size(), in.data(), &out));
}
// Dot product of two equal-length f32 or f64 vectors into a host value.
template <class X, class Y>
CUPAT_HPP_RESULT dot(const context &ctx, const X &x, const Y &y, detail::elem_t<const X> &out)
{
    static_assert(detail::same_v<const X, const Y>, "cupat::dot: x and y hold other element types");
    if (x.size() != y.size()) return detail::mismatch("cupat::dot", x.size(), y.size());
    CUPAT_HPP_RETURN(ctx.get(),
                     cupat_dot_host(ctx, type_v<detail::elem_t<const X>>, x.size(), x.data(), y.data(), &out));
}
// y = alpha * x + y (f32).
template <class X, class Y>
CUPAT_HPP_RESULT saxpy(const context &ctx, float alpha, const X &x, Y &&y)
{
    static_assert(std::is_same_v<detail::elem_t<const X>, float> && std::is_same_v<detail::elem_t<Y>, float>,
                  "cupat::saxpy: x and y hold float");
    if (x.size() != y.size()) return detail::mismatch("cupat::saxpy", x.size(), y.size());
    CUPAT_HPP_RETURN(ctx.get(), cupat_saxpy(ctx, x.size(), alpha, x.data(), y.data()));
}

#ifndef CUPAT_NO_EXCEPTIONS
// The value-returning forms.
template <class In>
inline detail::elem_t<const In> reduce(const context &ctx, const In &in, cupat_op op = CUPAT_OP_SUM)
{
    detail::elem_t<const In> r{};
    reduce(ctx, in, r, op);
    return r;
}
template <class X, class Y>
inline detail::elem_t<const X> dot(const context &ctx, const X &x, const Y &y)
{
    detail::elem_t<const X> r{};
    dot(ctx, x, y, r);
    return r;
}
#endif

} // namespace cupat

#undef CUPAT_HPP_RESULT
#undef CUPAT_HPP_RETURN
#endif
