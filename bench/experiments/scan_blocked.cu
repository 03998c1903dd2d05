// SPDX-License-Identifier: Apache-2.0
// bench/experiments/scan_blocked.cu — the experiment behind docs/scan-tuning.md
// section 5: the default scan's tile in its two layouts (warp-striped, scanned
// with NV warp scans a thread; thread-blocked through shared memory, one warp
// scan), resident blocks, and look-back windows read a poll (1, 2, 4), with
// the look-back's rounds and polls counted, against CUB on the same buffers.
// Outside the library build (not in CMake).
//
// Build here, run on the GPU machine (carry the exp/ folder):
//   mkdir -p exp && nvcc -std=c++17 --expt-relaxed-constexpr -diag-suppress 225 \
//     -gencode=arch=compute_90,code=sm_90 -Iinclude -Isrc -Isrc/core \
//     -o exp/scan_blocked bench/experiments/scan_blocked.cu src/core/status.c \
//     src/core/memory.c src/core/context.c src/core/types.c
//   ./exp/scan_blocked
// Windows of 2 and 4 a poll were measured with lookback.cuh of commit 5a512f6
// (-DCUPAT_SCAN_WINDOWS=2 or 4); the library reads one. Every configuration's output is checked against the host before it is timed.
#include "internal.h"
__device__ int g_stats = 0;
__device__ unsigned long long g_rounds, g_polls, g_tiles;
#define CUPAT_SCAN_LB_STATS(r, p)                                                                                   \
    do {                                                                                                           \
        if (g_stats) {                                                                                             \
            atomicAdd(&g_rounds, (unsigned long long)(r));                                                         \
            atomicAdd(&g_polls, (unsigned long long)(p));                                                          \
            atomicAdd(&g_tiles, 1ull);                                                                             \
        }                                                                                                          \
    } while (0)
#include "scan/scan_internal.h"
#include "scan/scan_lookback.cu"
#include <cub/cub.cuh>
#include "exp_timing.h"
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

using namespace cupat_scan_dev;

template <typename T, int OP, int NV, int MINB, bool BL> static void run(const T *x, T *y, size_t n, int excl)
{
    typedef typename ScanOp<T, OP>::Acc A;
    constexpr int TILE = Shape<A, 128, NV>::TILE;
    unsigned tiles = (unsigned)((n + TILE - 1) / TILE);
    size_t bytes = LookbackState<A>::bytes(tiles);
    void *p;
    if (cupat__scratch(ctx, bytes, &p)) { printf("scratch\n"); exit(1); }
    CK(cudaMemsetAsync(p, 0, bytes, ctx->stream));
    k_decoupled<T, OP, 128, NV, false, MINB, BL><<<tiles, 128, 0, ctx->stream>>>(x, y, n, excl, 1, LookbackState<A>::carve(p));
}
template <typename T, int OP, int NV, int MINB, bool BL> static int resident()
{
    int nb = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, k_decoupled<T, OP, 128, NV, false, MINB, BL>, 128, 0);
    return nb;
}
static void stats(bool on)
{
    int s = on;
    unsigned long long z = 0;
    CK(cudaMemcpyToSymbol(g_stats, &s, 4));
    CK(cudaMemcpyToSymbol(g_rounds, &z, 8));
    CK(cudaMemcpyToSymbol(g_polls, &z, 8));
    CK(cudaMemcpyToSymbol(g_tiles, &z, 8));
}
static void print_stats()
{
    unsigned long long r, p, t;
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpyFromSymbol(&r, g_rounds, 8));
    CK(cudaMemcpyFromSymbol(&p, g_polls, 8));
    CK(cudaMemcpyFromSymbol(&t, g_tiles, 8));
    printf("      look-back: %llu tiles, %.2f rounds and %.2f polls a tile\n", t, t ? (double)r / t : 0, t ? (double)p / t : 0);
}

int main(int argc, char **argv)
{
    int lg = argc > 1 ? atoi(argv[1]) : 28;
    if (cupat_create(&ctx, CUPAT_BACKEND_CUDA, 0)) { printf("no device\n"); return 77; }
    CK(cudaMalloc(&flushbuf, 256 << 20));
    srand(3);
    const size_t n = (size_t)1 << lg;
    std::vector<uint32_t> hx(n), hy(n);
    std::vector<float> hf(n), hg(n), hg2(n);
    for (size_t i = 0; i < n; i++) { hx[i] = rand() & 0xffff; hf[i] = (float)rand() / RAND_MAX - 0.3f; }
    uint32_t *dx, *dy;
    float *fx, *fy;
    CK(cudaMalloc(&dx, n * 4)); CK(cudaMalloc(&dy, n * 4)); CK(cudaMalloc(&fx, n * 4)); CK(cudaMalloc(&fy, n * 4));
    CK(cudaMemcpy(dx, hx.data(), n * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(fx, hf.data(), n * 4, cudaMemcpyHostToDevice));
    void *t1 = nullptr, *t2 = nullptr;
    size_t b1 = 0, b2 = 0;
    cub::DeviceScan::ExclusiveSum(t1, b1, dx, dy, (int64_t)n, ctx->stream);
    cub::DeviceScan::InclusiveSum(t2, b2, fx, fy, (int64_t)n, ctx->stream);
    CK(cudaMalloc(&t1, b1)); CK(cudaMalloc(&t2, b2));
    double tcu = timeit([&] { cub::DeviceScan::ExclusiveSum(t1, b1, dx, dy, (int64_t)n, ctx->stream); });
    double tcf = timeit([&] { cub::DeviceScan::InclusiveSum(t2, b2, fx, fy, (int64_t)n, ctx->stream); });
    double tm = timeit([&] { cudaMemcpyAsync(dy, dx, n * 4, cudaMemcpyDeviceToDevice, ctx->stream); });
    printf("first wait %d ns, back-off %d ns\n", (int)CUPAT_SCAN_FIRST_WAIT, (int)CUPAT_SCAN_BACKOFF);
    printf("n = 2^%d: cub u32 exclusive %.4f ms, cub f32 inclusive %.4f ms, copy %.4f ms\n", lg, tcu, tcf, tm);

    // u32 exclusive (exact) at n and n - 5; f32 inclusive: same bits twice, within the bound
    auto check = [&](auto launch_u, auto launch_f) -> const char * {
        for (size_t nn : {n, n - 5, (size_t)4097, (size_t)1}) {
            CK(cudaMemset(dy, 0xcd, n * 4));
            launch_u(nn);
            CK(cudaStreamSynchronize(ctx->stream));
            CK(cudaMemcpy(hy.data(), dy, n * 4, cudaMemcpyDeviceToHost));
            uint32_t s = 0;
            for (size_t i = 0; i < nn; i++) { if (hy[i] != s) return "WRONG u32"; s += hx[i]; }
            if (nn < n && hy[nn] != 0xcdcdcdcdu) return "WROTE PAST n";
        }
        launch_f(n);
        CK(cudaStreamSynchronize(ctx->stream));
        CK(cudaMemcpy(hg.data(), fy, n * 4, cudaMemcpyDeviceToHost));
        launch_f(n);
        CK(cudaStreamSynchronize(ctx->stream));
        CK(cudaMemcpy(hg2.data(), fy, n * 4, cudaMemcpyDeviceToHost));
        if (memcmp(hg.data(), hg2.data(), n * 4)) return "f32 NOT DETERMINISTIC";
        double s = 0, sa = 0, g = 200000 * ldexp(1.0, -24);
        for (size_t i = 0; i < n; i++) { s += hf[i]; sa += fabs(hf[i]); if (!(fabs(hg[i] - s) <= g * sa)) return "f32 OUT OF BOUND"; }
        return "ok";
    };
#define CFG(NV, MINB, BL)                                                                                          \
    {                                                                                                              \
        const int w = 1;                                                                          \
        auto lu = [&](size_t nn) { run<uint32_t, OP_SUM, NV, MINB, BL>(dx, dy, nn, 1); };                          \
        auto lf = [&](size_t nn) { run<float, OP_SUM, NV, MINB, BL>(fx, fy, nn, 0); };                             \
        const char *ok = check(lu, lf);                                                                            \
        double a = timeit([&] { lu(n); }), b = timeit([&] { lf(n); });                                            \
        printf("  %s nv %d minb %2d (resident %2d) windows %d: u32 %.4f ms %.3fx cub %.3f copy | f32 %.4f ms %.3fx cub  %s\n", \
               BL ? "blocked" : "striped", NV, MINB, resident<uint32_t, OP_SUM, NV, MINB, BL>(), w, a, tcu / a, tm / a, b, \
               tcf / b, ok);                                                                                       \
        stats(true); lu(n); print_stats(); stats(false);                                                           \
    }
    CFG(6, 10, false)
    CFG(6, 10, true)
    CFG(6, 8, true)
    CFG(5, 10, true)
    CFG(5, 12, true)
    CFG(7, 9, true)
    CFG(4, 12, true)
    CK(cudaFree(dx)); CK(cudaFree(dy)); CK(cudaFree(fx)); CK(cudaFree(fy));

    // u64 exclusive sum, 2^27
    {
        size_t m = n / 2;
        std::vector<uint64_t> hx8(m), hy8(m);
        for (size_t i = 0; i < m; i++) hx8[i] = ((uint64_t)rand() << 20) ^ (uint64_t)rand();
        uint64_t *x8, *y8;
        CK(cudaMalloc(&x8, m * 8)); CK(cudaMalloc(&y8, m * 8));
        CK(cudaMemcpy(x8, hx8.data(), m * 8, cudaMemcpyHostToDevice));
        void *t3 = nullptr; size_t b3 = 0;
        cub::DeviceScan::ExclusiveSum(t3, b3, x8, y8, (int64_t)m, ctx->stream);
        CK(cudaMalloc(&t3, b3));
        double tc8 = timeit([&] { cub::DeviceScan::ExclusiveSum(t3, b3, x8, y8, (int64_t)m, ctx->stream); });
        printf("u64 exclusive sum n = 2^%d: cub %.4f ms\n", lg - 1, tc8);
#define U64(NV, MINB, BL)                                                                                          \
        {                                                                                                          \
            const int w = 1;                                                                      \
            CK(cudaMemset(y8, 0xcd, m * 8));                                                                       \
            run<uint64_t, OP_SUM, NV, MINB, BL>(x8, y8, m - 3, 1);                                                 \
            CK(cudaStreamSynchronize(ctx->stream));                                                                \
            CK(cudaMemcpy(hy8.data(), y8, m * 8, cudaMemcpyDeviceToHost));                                         \
            uint64_t s = 0; size_t bad = 0;                                                                        \
            for (size_t i = 0; i < m - 3; i++) { bad += hy8[i] != s; s += hx8[i]; }                                \
            double a = timeit([&] { run<uint64_t, OP_SUM, NV, MINB, BL>(x8, y8, m, 1); });                          \
            printf("  %s nv %d minb %2d (resident %2d) windows %d: %.4f ms %.3fx cub  %s\n", BL ? "blocked" : "striped", NV, \
                   MINB, resident<uint64_t, OP_SUM, NV, MINB, BL>(), w, a, tc8 / a, bad ? "WRONG" : "ok");        \
        }
        U64(6, 6, false)
        U64(6, 10, true)
        U64(8, 8, true)
        U64(8, 6, true)
        U64(10, 6, true)
        U64(7, 8, true)
        U64(12, 5, true)
    }
    CK(cudaDeviceSynchronize());
    return 0;
}
