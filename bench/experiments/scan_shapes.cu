// SPDX-License-Identifier: Apache-2.0
// bench/experiments/scan_shapes.cu — tile shapes of the 8-byte scan and of
// stream compaction (vectors a thread, resident blocks) against CUB on the
// same buffers, outside the library build (not in CMake). The numbers behind
// the u64 and select shapes in docs/scan-tuning.md.
//
// Build here, run on the GPU machine (carry the exp/ folder):
//   mkdir -p exp && nvcc -std=c++17 --expt-relaxed-constexpr -diag-suppress 225 \
//     -gencode=arch=compute_90,code=sm_90 -Iinclude -Isrc -Isrc/core \
//     -o exp/scan_shapes bench/experiments/scan_shapes.cu src/core/status.c \
//     src/core/memory.c src/core/context.c src/core/types.c
//   ./exp/scan_shapes
// Every shape's output is checked against the host before it is timed.
#include "internal.h"
#include "scan/scan_internal.h"
#include "scan/scan_lookback.cu"
#include "scan/select.cu"
#include <cub/cub.cuh>
#define EXP_REPS 15
#include "exp_timing.h"
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

using namespace cupat_scan_dev;

static void *scratch(size_t bytes)
{
    void *p;
    if (cupat__scratch(ctx, bytes, &p)) { printf("scratch\n"); exit(1); }
    CK(cudaMemsetAsync(p, 0, bytes, ctx->stream));
    return p;
}

template <int NV, int MINB> static void u64_scan(const uint64_t *x, uint64_t *y, size_t n)
{
    typedef ScanOp<uint64_t, OP_SUM>::Acc A;
    constexpr int TILE = Shape<A, 128, NV>::TILE;
    unsigned tiles = (unsigned)((n + TILE - 1) / TILE);
    auto st = LookbackState<A>::carve(scratch(LookbackState<A>::bytes(tiles)));
    k_decoupled<uint64_t, OP_SUM, 128, NV, false, MINB><<<tiles, 128, 0, ctx->stream>>>(x, y, n, 1, 1, st);
}

template <int NV, int MINB> static void sel(const uint32_t *x, const uint8_t *f, uint32_t *y, size_t n, u64 *hdr)
{
    constexpr int TILE = SEL_BLOCK * NV * 4;
    unsigned tiles = (unsigned)((n + TILE - 1) / TILE);
    auto st = LookbackState<u64>::carve(scratch(LookbackState<u64>::bytes(tiles)));
    Keep kp;
    memset(&kp, 0, sizeof kp);
    kp.flags = f;
    k_select<uint32_t, NV, MINB><<<tiles, SEL_BLOCK, 0, ctx->stream>>>(x, y, n, kp, VEC_DATA | VEC_HEADS, hdr, hdr + 1, st);
}

int main()
{
    if (cupat_create(&ctx, CUPAT_BACKEND_CUDA, 0)) { printf("no device\n"); return 77; }
    CK(cudaMalloc(&flushbuf, 256 << 20));
    srand(7);
    // ---- u64 exclusive sum, 2^27
    {
        size_t n = (size_t)1 << 27;
        std::vector<uint64_t> hx(n), hy(n);
        for (size_t i = 0; i < n; i++) hx[i] = ((uint64_t)rand() << 20) ^ (uint64_t)rand();
        uint64_t *dx, *dy;
        CK(cudaMalloc(&dx, n * 8));
        CK(cudaMalloc(&dy, n * 8));
        CK(cudaMemcpy(dx, hx.data(), n * 8, cudaMemcpyHostToDevice));
        void *tmp = nullptr;
        size_t tb = 0;
        cub::DeviceScan::ExclusiveSum(tmp, tb, dx, dy, (int64_t)n, ctx->stream);
        CK(cudaMalloc(&tmp, tb));
        double tc = timeit([&] { cub::DeviceScan::ExclusiveSum(tmp, tb, dx, dy, (int64_t)n, ctx->stream); });
        double tm = timeit([&] { cudaMemcpyAsync(dy, dx, n * 8, cudaMemcpyDeviceToDevice, ctx->stream); });
        printf("u64 exclusive sum 2^27: cub %.4f ms, copy %.4f ms\n", tc, tm);
        auto check = [&](const char *name, auto run) {
            CK(cudaMemset(dy, 0xcd, n * 8));
            run();
            CK(cudaStreamSynchronize(ctx->stream));
            CK(cudaMemcpy(hy.data(), dy, n * 8, cudaMemcpyDeviceToHost));
            uint64_t s = 0;
            size_t bad = 0;
            for (size_t i = 0; i < n; i++) { bad += hy[i] != s; s += hx[i]; }
            double t = timeit(run);
            printf("  %-22s %.4f ms  %.3fx cub  %.3f of copy  %s\n", name, t, tc / t, tm / t, bad ? "WRONG" : "ok");
        };
#define U64(NV, M) check("nv " #NV " minb " #M, [&] { u64_scan<NV, M>(dx, dy, n); });
        U64(6, 6) U64(6, 8) U64(6, 10) U64(4, 10) U64(4, 12) U64(3, 16) U64(8, 6)
        CK(cudaFree(dx));
        CK(cudaFree(dy));
        CK(cudaFree(tmp));
    }
    // ---- u32 select by flags, 50%, 2^28
    {
        size_t n = (size_t)1 << 28;
        std::vector<uint32_t> hx(n), hy(n);
        std::vector<uint8_t> hf(n);
        for (size_t i = 0; i < n; i++) { hx[i] = (uint32_t)i * 2654435761u; hf[i] = (rand() >> 3) & 1; }
        uint32_t *dx, *dy;
        uint8_t *df;
        u64 *hdr;
        CK(cudaMalloc(&dx, n * 4));
        CK(cudaMalloc(&dy, n * 4));
        CK(cudaMalloc(&df, n));
        CK(cudaMalloc(&hdr, 256));
        CK(cudaMemcpy(dx, hx.data(), n * 4, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(df, hf.data(), n, cudaMemcpyHostToDevice));
        void *tmp = nullptr;
        size_t tb = 0;
        cub::DeviceSelect::Flagged(tmp, tb, dx, df, dy, hdr + 2, (int64_t)n, ctx->stream);
        CK(cudaMalloc(&tmp, tb));
        double tc = timeit([&] { cub::DeviceSelect::Flagged(tmp, tb, dx, df, dy, hdr + 2, (int64_t)n, ctx->stream); });
        printf("u32 select flagged 50%% 2^28: cub %.4f ms\n", tc);
        size_t kept = 0;
        for (size_t i = 0; i < n; i++) if (hf[i]) kept++;
        auto check = [&](const char *name, auto run) {
            CK(cudaMemset(dy, 0xcd, n * 4));
            run();
            CK(cudaStreamSynchronize(ctx->stream));
            CK(cudaMemcpy(hy.data(), dy, n * 4, cudaMemcpyDeviceToHost));
            u64 cnt = 0;
            CK(cudaMemcpy(&cnt, hdr + 1, 8, cudaMemcpyDeviceToHost));
            size_t bad = cnt != kept, r = 0;
            for (size_t i = 0; i < n; i++) if (hf[i]) bad += hy[r++] != hx[i];
            double t = timeit(run);
            printf("  %-22s %.4f ms  %.3fx cub  %s\n", name, t, tc / t, bad ? "WRONG" : "ok");
        };
#define SEL(NV, M) check("nv " #NV " minb " #M, [&] { sel<NV, M>(dx, df, dy, n, hdr); });
        SEL(6, 10) SEL(6, 8) SEL(4, 12) SEL(4, 14) SEL(8, 8) SEL(5, 12)
    }
    CK(cudaDeviceSynchronize());
    return 0;
}
