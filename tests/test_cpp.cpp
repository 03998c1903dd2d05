// SPDX-License-Identifier: Apache-2.0
// test_cpp.cpp — cupat.hpp from C++: the RAII context and buffer, the typed
// calls against host references, size mismatches, a failing C call's status
// and message, move semantics. Built three ways (tests/cpp.cmake): g++ with
// C++20 (std::span), g++ with C++17 and CUPAT_NO_EXCEPTIONS (-fno-exceptions),
// and nvcc (test_cpp_nvcc.cu includes this file). Args: --backend cpu|cuda;
// exit 77 where that backend is absent.
#include "cupat.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <vector>
#if defined(CUPAT_HPP_STD_SPAN)
#include <span>
#endif

static int checks, failures;
#define EXPECT(cond, ...)                                                 \
    do {                                                                  \
        checks++;                                                         \
        if (!(cond)) {                                                    \
            failures++;                                                   \
            std::fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
            std::fprintf(stderr, __VA_ARGS__);                            \
            std::fputc('\n', stderr);                                     \
        }                                                                 \
    } while (0)

#ifdef CUPAT_NO_EXCEPTIONS
#define OK(call) EXPECT((call) == CUPAT_SUCCESS, "%s", #call)
#define FAILS(want, needle, call)                                                      \
    do {                                                                                 \
        cupat_status s_ = (call);                                                        \
        EXPECT(s_ == (want), "%s -> %s", #call, cupat_status_string(s_));              \
        (void)(needle);                                                                  \
    } while (0)
#else
#define OK(call) call
#define FAILS(want, needle, call)                                                      \
    do {                                                                                 \
        bool thrown_ = false;                                                            \
        try {                                                                            \
            call;                                                                        \
        } catch (const cupat::error &e) {                                                \
            thrown_ = true;                                                              \
            EXPECT(e.status() == (want), "%s: status %s", #call, cupat_status_string(e.status())); \
            EXPECT(std::strstr(e.what(), (needle)) != nullptr, "%s: \"%s\" lacks \"%s\"", #call, e.what(), \
                   (needle));                                                            \
        }                                                                                \
        EXPECT(thrown_, "%s did not throw", #call);                                      \
    } while (0)
#endif

static void run(cupat_backend backend)
{
    cupat::context ctx(backend);
    EXPECT(ctx.ok(), "context: %s", cupat_last_error(nullptr));
    if (!ctx.ok()) return;
    EXPECT(ctx.backend() == backend, "backend %d", (int)ctx.backend());

    const size_t n = 100003;
    std::vector<uint32_t> h(n), got(n);
    uint64_t s = 12345;
    for (auto &x : h) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        x = (uint32_t)(s >> 40);
    }
    cupat::buffer<uint32_t> keys(ctx, n), out(ctx, n);
    EXPECT(keys.size() == n && keys.data() != nullptr, "buffer of %zu", n);
    OK(keys.upload(h.data()));

    // sort, into another buffer and in place
    OK(cupat::sort(ctx, keys, out));
    OK(out.download(got.data()));
    OK(ctx.sync());
    std::vector<uint32_t> ref = h;
    std::sort(ref.begin(), ref.end());
    EXPECT(got == ref, "sort");
    OK(cupat::sort(ctx, keys, keys, CUPAT_SORT_DESCENDING));
    OK(keys.download(got.data()));
    OK(ctx.sync());
    EXPECT(std::equal(got.begin(), got.end(), ref.rbegin()), "sort descending in place");

    // pairs: values follow their keys, stably
    OK(keys.upload(h.data()));
    std::vector<int32_t> hv(n), gv(n);
    std::iota(hv.begin(), hv.end(), 0);
    cupat::buffer<int32_t> vals(ctx, n), vout(ctx, n);
    OK(vals.upload(hv.data()));
    OK(cupat::sort_pairs(ctx, keys, out, vals, vout));
    OK(out.download(got.data()));
    OK(vout.download(gv.data()));
    OK(ctx.sync());
    int pairs_ok = 1;
    for (size_t i = 0; i < n; i++) {
        pairs_ok &= h[(size_t)gv[i]] == got[i];
        if (i) pairs_ok &= got[i - 1] < got[i] || (got[i - 1] == got[i] && gv[i - 1] < gv[i]);
    }
    EXPECT(pairs_ok, "sort_pairs: keys sorted, values theirs, ties in input order");

    // scan and reduce (u32 wraps)
    OK(keys.upload(h.data()));
    OK(cupat::scan(ctx, keys, out));
    OK(out.download(got.data()));
    OK(ctx.sync());
    std::vector<uint32_t> pre(n);
    std::partial_sum(h.begin(), h.end(), pre.begin());
    EXPECT(got == pre, "inclusive scan");
    uint32_t total = 0;
    OK(cupat::reduce(ctx, keys, total));
    EXPECT(total == pre.back(), "reduce %u, want %u", total, pre.back());
    OK(cupat::reduce(ctx, keys, total, CUPAT_OP_MAX));
    EXPECT(total == ref.back(), "reduce max %u, want %u", total, ref.back());
#ifndef CUPAT_NO_EXCEPTIONS
    EXPECT(cupat::reduce(ctx, keys) == pre.back(), "value-returning reduce");
#endif

    // merge of the two sorted halves
    std::vector<uint32_t> a(ref.begin(), ref.begin() + n / 3), b(ref.begin() + n / 3, ref.end());
    cupat::buffer<uint32_t> da(ctx, a.size()), db(ctx, b.size());
    OK(da.upload(a.data()));
    OK(db.upload(b.data()));
    OK(cupat::merge(ctx, da, db, out));
    OK(out.download(got.data()));
    OK(ctx.sync());
    EXPECT(got == ref, "merge");

    // saxpy and dot on f32
    const size_t m = 4099;
    std::vector<float> hx(m), hy(m), gy(m);
    for (size_t i = 0; i < m; i++) hx[i] = 0.25f * (float)(i % 7), hy[i] = (float)(i % 5);
    cupat::buffer<float> x(ctx, m), y(ctx, m);
    OK(x.upload(hx.data()));
    OK(y.upload(hy.data()));
    OK(cupat::saxpy(ctx, 2.0f, x, y));
    OK(y.download(gy.data()));
    OK(ctx.sync());
    int axpy_ok = 1;
    for (size_t i = 0; i < m; i++) axpy_ok &= gy[i] == 2.0f * hx[i] + hy[i];
    EXPECT(axpy_ok, "saxpy");
    float d = 0;
    OK(cupat::dot(ctx, x, x, d));
    double want = 0;
    for (float v : hx) want += (double)v * v;
    EXPECT(d == (float)want, "dot %g, want %g", (double)d, want); // small integers x 1/16: exact

#if defined(CUPAT_HPP_STD_SPAN)
    // std::span and cupat::span over backend memory
    std::span<uint32_t> whole(keys.data(), n);
    OK(cupat::sort(ctx, whole, cupat::span<uint32_t>(out.data(), n)));
    OK(out.download(got.data()));
    OK(ctx.sync());
    EXPECT(got == ref, "sort through std::span");
#endif
    if (backend == CUPAT_BACKEND_CPU) { // host memory is backend memory here
        std::vector<uint32_t> v = h;
        OK(cupat::sort(ctx, v, v));
        EXPECT(v == ref, "sort of a std::vector on the CPU backend");
    }

    // errors: a size mismatch (here), a refused C call (its status and message)
    FAILS(CUPAT_ERROR_SIZE, "sizes 100003 and 4099 differ", cupat::sort(ctx, keys, cupat::span<uint32_t>(out.data(), m)));
    FAILS(CUPAT_ERROR_INVALID_VALUE, "mode = 9",
          cupat::scan(ctx, keys, out, CUPAT_OP_SUM, (cupat_scan_mode)9));
    FAILS(CUPAT_ERROR_NOT_FOUND, "nosuch", ctx.set_variant("sort", "nosuch"));

    // moves: the moved-from objects own nothing, the new ones work
    cupat::buffer<uint32_t> moved(std::move(keys));
    EXPECT(keys.data() == nullptr && keys.size() == 0 && moved.size() == n, "buffer move");
    cupat::context c2(std::move(ctx));
    EXPECT(!ctx.ok() && c2.ok(), "context move");
    OK(c2.sync());
}

int main(int argc, char **argv)
{
    cupat_backend backend = CUPAT_BACKEND_CPU;
    for (int i = 1; i + 1 < argc; i++)
        if (!std::strcmp(argv[i], "--backend")) backend = !std::strcmp(argv[i + 1], "cuda") ? CUPAT_BACKEND_CUDA : CUPAT_BACKEND_CPU;
    if (backend == CUPAT_BACKEND_CUDA && !cupat_cuda_available()) {
        std::printf("SKIP: no CUDA device present\n");
        return 77;
    }
#ifndef CUPAT_NO_EXCEPTIONS
    try {
        run(backend);
    } catch (const std::exception &e) {
        failures++;
        std::fprintf(stderr, "FAIL: unexpected exception: %s\n", e.what());
    }
#else
    run(backend);
#endif
    std::printf("%s: %d checks, %d failed (C++%ld%s)\n", failures ? "FAILED" : "PASSED", checks, failures,
                (long)__cplusplus / 100 % 100,
#ifdef CUPAT_NO_EXCEPTIONS
                ", no exceptions"
#else
                ""
#endif
    );
    return failures ? 1 : 0;
}
