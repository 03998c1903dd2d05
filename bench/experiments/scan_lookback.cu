// SPDX-License-Identifier: Apache-2.0
// bench/experiments/scan_lookback.cu — the experiment behind docs/scan-tuning.md:
// the decoupled look-back scan in several shapes (block, vectors a thread,
// resident blocks, persistent/TMA, first wait and poll back-off at run time)
// against CUB on the same buffers, outside the library build (not in CMake).
//
// Build here, run on the GPU machine (carry the exp/ folder):
//   mkdir -p exp && nvcc -std=c++17 --expt-relaxed-constexpr -diag-suppress 225 \
//     -gencode=arch=compute_90,code=sm_90 -Iinclude -Isrc -Isrc/core \
//     -o exp/scan_exp bench/experiments/scan_lookback.cu src/core/status.c \
//     src/core/memory.c src/core/context.c src/core/types.c
//   ./exp/scan_exp 28        (log2 of n)
// It includes src/scan/scan_lookback.cu itself, with CUPAT_SCAN_FIRST_WAIT and
// CUPAT_SCAN_BACKOFF turned into device variables so one binary sweeps them.
#include "internal.h"
__device__ unsigned g_first_wait, g_backoff;
#define CUPAT_SCAN_FIRST_WAIT g_first_wait
#define CUPAT_SCAN_BACKOFF g_backoff
#include "scan/scan_internal.h"
#include "scan/scan_lookback.cu"
#include <cub/cub.cuh>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cmath>
#include <algorithm>

#define CK(x) do { cudaError_t e_ = (x); if (e_) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1);} } while (0)
#define CS(x) do { cupat_status s_ = (x); if (s_) { printf("%s:%d status %d: %s\n", __FILE__, __LINE__, (int)s_, cupat_last_error(ctx)); exit(1);} } while (0)


template <typename T, int OP, int BLOCK, int NV, bool DYN, int MINB = 1>
static void run_cfg(cupat_ctx *ctx, const T *x, T *y, size_t n, int excl)
{
    using namespace cupat_scan_dev;
    typedef typename ScanOp<T, OP>::Acc A;
    constexpr int TILE = Shape<A, BLOCK, NV>::TILE;
    unsigned tiles = (unsigned)((n + TILE - 1) / TILE);
    size_t bytes = LookbackState<A>::bytes(tiles);
    void *p; cupat__scratch(ctx, bytes, &p);
    cudaMemsetAsync(p, 0, bytes, ctx->stream);
    k_decoupled<T, OP, BLOCK, NV, DYN, MINB><<<tiles, BLOCK, 0, ctx->stream>>>(x, y, n, excl, 1, LookbackState<A>::carve(p));
}


namespace cupat_scan_dev {
// experiment: no look-back at all (the local ceiling)
template <typename T, int OP, int BLOCK, int NV, bool LB, int PERSIST, int MINB = 1>
__global__ void __launch_bounds__(BLOCK, MINB) k_exp(const T *x, T *y, size_t n, int exclusive, LookbackState<typename ScanOp<T, OP>::Acc> st, unsigned ntiles)
{
    typedef ScanOp<T, OP> O;
    typedef typename O::Acc A;
    typedef Shape<A, BLOCK, NV> SH;
    constexpr int V = SH::V;
    typename O::F op;
    const A id = O::identity();
    const unsigned lane = cupat_dev::lane_id(), w = threadIdx.x / 32;
    const A *xa = (const A *)x;
    A *ya = (A *)y;
    A a[NV][V], b[NV][V];
    auto load = [&](A (&r)[NV][V], unsigned tile) {
        const size_t wbase = (size_t)tile * SH::TILE + (size_t)w * SH::WARP_ITEMS;
        const uint4 *xv = (const uint4 *)(xa + wbase);
#pragma unroll
        for (int j = 0; j < NV; j++) { uint4 q = xv[j * 32 + lane]; memcpy(r[j], &q, 16); }
    };
    auto body = [&](A (&r)[NV][V], unsigned tile) {
        const size_t wbase = (size_t)tile * SH::TILE + (size_t)w * SH::WARP_ITEMS;
        A pre[NV];
        if (LB) tile_scan<O::FLOAT_SUM, BLOCK, NV>(r, pre, id, op, NoHead(), st, tile);
        else {
#pragma unroll
            for (int j = 0; j < NV; j++) {
#pragma unroll
                for (int k = 1; k < V; k++) r[j][k] = op(r[j][k - 1], r[j][k]);
                A inc = cupat_dev::warp_inclusive_scan<32>(r[j][V - 1], op);
                pre[j] = cupat_dev::shfl_up(inc, 1);
            }
        }
        uint4 *yv = (uint4 *)(ya + wbase);
#pragma unroll
        for (int j = 0; j < NV; j++) {
            A o[V];
#pragma unroll
            for (int k = 0; k < V; k++) o[k] = op(pre[j], r[j][k]);
            uint4 q; memcpy(&q, o, 16); yv[j * 32 + lane] = q;
        }
    };
    if (!PERSIST) { load(a, blockIdx.x); body(a, blockIdx.x); return; }
    unsigned t = blockIdx.x;
    if (t >= ntiles) return;
    load(a, t);
    for (;;) {
        unsigned t2 = t + gridDim.x;
        if (t2 < ntiles) load(b, t2);
        body(a, t);
        if (t2 >= ntiles) return;
        t = t2 + gridDim.x;
        if (t < ntiles) load(a, t);
        body(b, t2);
        if (t >= ntiles) return;
    }
}
}
template <typename T, int OP, int BLOCK, int NV, bool LB, int PERSIST, int MINB = 1>
static void run_exp(cupat_ctx *ctx, const T *x, T *y, size_t n)
{
    using namespace cupat_scan_dev;
    typedef typename ScanOp<T, OP>::Acc A;
    constexpr int TILE = Shape<A, BLOCK, NV>::TILE;
    unsigned tiles = (unsigned)((n + TILE - 1) / TILE);
    size_t bytes = LookbackState<A>::bytes(tiles);
    void *p; cupat__scratch(ctx, bytes, &p);
    cudaMemsetAsync(p, 0, bytes, ctx->stream);
    unsigned grid = tiles;
    if (PERSIST) { int nb = 0; cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, cupat_scan_dev::k_exp<T, OP, BLOCK, NV, LB, PERSIST, MINB>, BLOCK, 0); grid = (unsigned)(nb * ctx->sm_count); if (grid > tiles) grid = tiles; }
    k_exp<T, OP, BLOCK, NV, LB, PERSIST, MINB><<<grid, BLOCK, 0, ctx->stream>>>(x, y, n, 0, LookbackState<A>::carve(p), tiles);
}
template <typename T, int OP, int BLOCK, int NV, int STAGES>
static void run_tma(cupat_ctx *ctx, const T *x, T *y, size_t n, int excl)
{
    using namespace cupat_scan_dev;
    typedef typename ScanOp<T, OP>::Acc A;
    constexpr int TILE = Shape<A, BLOCK, NV>::TILE;
    unsigned tiles = (unsigned)((n + TILE - 1) / TILE);
    size_t bytes = LookbackState<A>::bytes(tiles);
    void *p; cupat__scratch(ctx, bytes, &p);
    cudaMemsetAsync(p, 0, bytes, ctx->stream);
    auto k = k_decoupled_tma<T, OP, BLOCK, NV, STAGES>;
    int smem = STAGES * TILE * (int)sizeof(A);
    static bool set = false; if (!set) { cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem); set = true; }
    int nb = 0; cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, k, BLOCK, smem);
    unsigned grid = (unsigned)(nb * ctx->sm_count); if (grid > tiles) grid = tiles;
    k<<<grid, BLOCK, smem, ctx->stream>>>(x, y, n, excl, LookbackState<A>::carve(p), tiles);
}
static cupat_ctx *ctx;
static void *flushbuf;
static void flush() { CK(cudaMemsetAsync(flushbuf, 1, 256 << 20, ctx->stream)); }

template <class F> static double timeit(F f, int reps = 20)
{
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
    std::vector<float> t;
    f(); f();
    for (int r = 0; r < reps; r++) {
        flush();
        cudaEventRecord(a, ctx->stream); f(); cudaEventRecord(b, ctx->stream);
        CK(cudaEventSynchronize(b)); float ms; cudaEventElapsedTime(&ms, a, b); t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

static scan_req req(cupat_type t, cupat_op op, int excl, size_t n, const void *x, void *y)
{
    scan_req r; memset(&r, 0, sizeof r); r.fn = "exp"; r.rung = SR_DECOUPLED; r.type = t; r.op = op; r.exclusive = excl; r.n = n; r.x = x; r.y = y; return r;
}

int main(int argc, char **argv)
{
    int lg = argc > 1 ? atoi(argv[1]) : 28;
    size_t n = (size_t)1 << lg;
    if (cupat_create(&ctx, CUPAT_BACKEND_CUDA, 0)) { printf("no ctx: %s\n", cupat_last_error(NULL)); return 77; }
    CK(cudaMalloc(&flushbuf, 256 << 20));
    std::vector<uint32_t> hx(n); srand(1);
    for (size_t i = 0; i < n; i++) hx[i] = rand() & 0xff;
    uint32_t *dx, *dy; CK(cudaMalloc(&dx, n * 4)); CK(cudaMalloc(&dy, n * 4));
    CK(cudaMemcpy(dx, hx.data(), n * 4, cudaMemcpyHostToDevice));
    // correctness: u32 exclusive sum
    for (size_t nn : {(size_t)1, (size_t)33, (size_t)4095, (size_t)4097, (size_t)1000003, n}) {
        CK(cudaMemsetAsync(dy, 0xcd, n * 4, ctx->stream));
        scan_req r = req(CUPAT_U32, CUPAT_OP_SUM, 1, nn, dx, dy); CS(cupat_scan_dev::scan_decoupled(ctx, &r));
        CK(cudaStreamSynchronize(ctx->stream)); std::vector<uint32_t> hy(nn); CK(cudaMemcpy(hy.data(), dy, nn * 4, cudaMemcpyDeviceToHost));
        uint32_t s = 0; size_t bad = 0;
        for (size_t i = 0; i < nn; i++) { if (hy[i] != s && bad++ < 3) printf("  u32 excl n=%zu i=%zu got %u want %u\n", nn, i, hy[i], s); s += hx[i]; }
        printf("check u32 exclusive sum n=%zu: %s\n", nn, bad ? "FAIL" : "ok");
    }
    // float inclusive: determinism + bound
    std::vector<float> hf(n); for (size_t i = 0; i < n; i++) hf[i] = (float)rand() / RAND_MAX - 0.3f;
    float *fx, *fy; CK(cudaMalloc(&fx, n * 4)); CK(cudaMalloc(&fy, n * 4));
    CK(cudaMemcpy(fx, hf.data(), n * 4, cudaMemcpyHostToDevice));
    {
        scan_req r = req(CUPAT_F32, CUPAT_OP_SUM, 0, n, fx, fy); CS(cupat_scan_dev::scan_decoupled(ctx, &r));
        CK(cudaStreamSynchronize(ctx->stream)); std::vector<float> a(n), b(n); CK(cudaMemcpy(a.data(), fy, n * 4, cudaMemcpyDeviceToHost));
        for (int rep = 0; rep < 3; rep++) { CS(cupat_scan_dev::scan_decoupled(ctx, &r)); } CK(cudaStreamSynchronize(ctx->stream));
        CK(cudaMemcpy(b.data(), fy, n * 4, cudaMemcpyDeviceToHost));
        size_t diff = 0; for (size_t i = 0; i < n; i++) diff += memcmp(&a[i], &b[i], 4) != 0;
        double s = 0, sa = 0, worst = 0; size_t d = cupat__scan_depth_cuda(ctx, SR_DECOUPLED, CUPAT_F32, n);
        double u = ldexp(1.0, -24), g = d * u / (1 - d * u);
        for (size_t i = 0; i < n; i++) { s += hf[i]; sa += fabs(hf[i]); double e = fabs(a[i] - s) / (g * sa); if (!(e <= worst)) worst = e; }
        printf("check f32 inclusive n=%zu: run-to-run differing=%zu, worst err/bound=%.3g (depth %zu)\n", n, diff, worst, d);
    }
    // timing
    void *tmp = nullptr; size_t tb = 0;
    cub::DeviceScan::ExclusiveSum(tmp, tb, dx, dy, (int64_t)n, ctx->stream); CK(cudaMalloc(&tmp, tb));
    double bytes = 2.0 * n * 4;
    double tc = timeit([&] { cub::DeviceScan::ExclusiveSum(tmp, tb, dx, dy, (int64_t)n, ctx->stream); });
    scan_req r = req(CUPAT_U32, CUPAT_OP_SUM, 1, n, dx, dy);
    double tu = timeit([&] { cupat_scan_dev::scan_decoupled(ctx, &r); });
    double tm = timeit([&] { cudaMemcpyAsync(dy, dx, n * 4, cudaMemcpyDeviceToDevice, ctx->stream); });
    printf("u32 excl sum n=2^%d: cub %.4f ms (%.0f GB/s)  ours %.4f ms (%.0f GB/s)  memcpy %.4f ms  ours/cub speed %.3fx  of copy %.3f\n",
           lg, tc, bytes / tc / 1e6, tu, bytes / tu / 1e6, tm, tc / tu, tm / tu);
    void *tmp2 = nullptr; size_t tb2 = 0;
    cub::DeviceScan::InclusiveSum(tmp2, tb2, fx, fy, (int64_t)n, ctx->stream); CK(cudaMalloc(&tmp2, tb2));
    double tcf = timeit([&] { cub::DeviceScan::InclusiveSum(tmp2, tb2, fx, fy, (int64_t)n, ctx->stream); });
    scan_req rf = req(CUPAT_F32, CUPAT_OP_SUM, 0, n, fx, fy);
    double tuf = timeit([&] { cupat_scan_dev::scan_decoupled(ctx, &rf); });
    printf("f32 incl sum n=2^%d: cub %.4f ms  ours %.4f ms  ours/cub speed %.3fx\n", lg, tcf, tuf, tcf / tuf);
    scan_req rm = req(CUPAT_I32, CUPAT_OP_MAX, 0, n, dx, dy);
    double tmx = timeit([&] { cupat_scan_dev::scan_decoupled(ctx, &rm); });
    printf("i32 incl max: ours %.4f ms\n", tmx);
#define CFG(B, NV, DYN) { double t1 = timeit([&] { run_cfg<uint32_t, cupat_red::OP_SUM, B, NV, DYN>(ctx, dx, dy, n, 1); }); \
        double t2 = timeit([&] { run_cfg<float, cupat_red::OP_SUM, B, NV, DYN>(ctx, fx, fy, n, 0); }); \
        printf("cfg block %4d nv %d dyn %d: u32 excl %.4f ms (%.3fx cub, %.3f copy)  f32 incl %.4f ms (%.3fx cub)\n", B, NV, DYN, t1, tc / t1, tm / t1, t2, tcf / t2, tcf / t2 * 0 + tcf / t2); }
    CFG(256, 4, false) CFG(512, 4, false)
#define EXP(B, NV, LB, P, M) { double t1 = timeit([&] { run_exp<uint32_t, cupat_red::OP_SUM, B, NV, LB, P, M>(ctx, dx, dy, n); }); \
        double t2 = timeit([&] { run_exp<float, cupat_red::OP_SUM, B, NV, LB, P, M>(ctx, fx, fy, n); }); \
        int nb = 0; cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, cupat_scan_dev::k_exp<uint32_t, cupat_red::OP_SUM, B, NV, LB, P, M>, B, 0); \
        printf("exp block %4d nv %d lookback %d persist %d minb %d (resident %d): u32 %.4f ms (%.3fx cub, %.3f copy)  f32 %.4f ms (%.3fx cub)\n", B, NV, LB, P, M, nb, t1, tc / t1, tm / t1, t2, tcf / t2); }
#define TMA(B, NV, S) { double t1 = timeit([&] { run_tma<uint32_t, cupat_red::OP_SUM, B, NV, S>(ctx, dx, dy, n, 1); }); \
        double t2 = timeit([&] { run_tma<float, cupat_red::OP_SUM, B, NV, S>(ctx, fx, fy, n, 0); }); \
        CK(cudaMemsetAsync(dy, 0xcd, n * 4, ctx->stream)); run_tma<uint32_t, cupat_red::OP_SUM, B, NV, S>(ctx, dx, dy, n - 5, 1); CK(cudaStreamSynchronize(ctx->stream)); \
        std::vector<uint32_t> hy(n); CK(cudaMemcpy(hy.data(), dy, n * 4, cudaMemcpyDeviceToHost)); uint32_t s = 0; size_t bad = 0; \
        for (size_t i = 0; i < n - 5; i++) { bad += hy[i] != s; s += hx[i]; } bad += hy[n - 5] != 0xcdcdcdcdu; \
        printf("tma block %4d nv %d stages %d: u32 excl %.4f ms (%.3fx cub, %.3f copy)  f32 incl %.4f ms (%.3fx cub)  check(n-5): %zu wrong\n", B, NV, S, t1, tc / t1, tm / t1, t2, tcf / t2, bad); }
#define DC(B, NV, M) { double t1 = timeit([&] { run_cfg<uint32_t, cupat_red::OP_SUM, B, NV, false, M>(ctx, dx, dy, n, 1); }); \
        double t2 = timeit([&] { run_cfg<float, cupat_red::OP_SUM, B, NV, false, M>(ctx, fx, fy, n, 0); }); \
        int nb = 0; cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, cupat_scan_dev::k_decoupled<uint32_t, cupat_red::OP_SUM, B, NV, false, M>, B, 0); \
        printf("dc block %4d nv %d minb %2d (resident %2d): u32 excl %.4f ms (%.3fx cub, %.3f copy)  f32 incl %.4f ms (%.3fx cub)\n", B, NV, M, nb, t1, tc / t1, tm / t1, t2, tcf / t2); }
    for (unsigned fw : {1200u, 1800u}) {
        unsigned bo = 300; cudaMemcpyToSymbol(g_first_wait, &fw, 4); cudaMemcpyToSymbol(g_backoff, &bo, 4);
        printf("-- first wait %u ns backoff 300\n", fw);
        DC(256, 4, 6) DC(256, 4, 5) DC(128, 6, 10) DC(128, 6, 8) DC(256, 3, 8) DC(128, 8, 8)
        TMA(256, 6, 2)
    }
    { // persistent correctness (u32 inclusive vs host)
        CK(cudaMemsetAsync(dy, 0xcd, n * 4, ctx->stream)); run_exp<uint32_t, cupat_red::OP_SUM, 256, 4, true, 0, 4>(ctx, dx, dy, n); CK(cudaStreamSynchronize(ctx->stream));
        std::vector<uint32_t> hy(n); CK(cudaMemcpy(hy.data(), dy, n * 4, cudaMemcpyDeviceToHost)); uint32_t s = 0; size_t bad = 0;
        for (size_t i = 0; i < n; i++) { s += hx[i]; bad += hy[i] != s; }
        printf("persist u32 inclusive check: %zu wrong\n", bad);
    }
    CK(cudaDeviceSynchronize());
    return 0;
}
