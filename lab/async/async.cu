// SPDX-License-Identifier: Apache-2.0
// async.cu — `cupat lab async`'s dispatch, its streaming input, and the two
// barrier experiments: cuda::barrier against __syncthreads (Guide
// 10.26.1-10.26.4) and warp specialization with a double buffer and two
// barriers a buffer (10.26.5). The copy experiments are in async_copy.cu,
// TMA in async_tma.cu; the table and host models in async_lab.c.
#include "async/async_internal.cuh"

#include <cuda/barrier>

#include <string.h>
#include <utility>

namespace cupat_async {

// ================================================================ input ==

__global__ void k_fill(uint32_t *d, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        d[i] = lab_async_word(i);
}

cupat_status stream_make(Run &X, Stream &S)
{
    const size_t n = STREAM_WORDS + STREAM_PAD;
    S.max_blocks = (unsigned)X.sms * 32; // the most blocks an SM holds
    CK(S.B.alloc((void **)&S.d, n * 4));
    CK(S.B.alloc((void **)&S.part, (size_t)S.max_blocks * 4));
    S.want = (uint32_t *)malloc((size_t)S.max_blocks * 4);
    S.got = (uint32_t *)malloc((size_t)S.max_blocks * 4);
    if (!S.want || !S.got) return oom(X);
    return fill_words(X, S.d, n);
}

cupat_status fill_words(Run &X, uint32_t *d, size_t n)
{
    k_fill<<<X.sms * 8, 256, 0, X.s>>>(d, n);
    CUPAT_TRY(cupat__launched(X.ctx, "k_fill"));
    return cupat__cuda(X.ctx, cudaStreamSynchronize(X.s), "k_fill");
}

cupat_status stream_sums(Run &X, Stream &S, size_t off, int heavy, const uint32_t **sums)
{
    int k = 0;
    for (; k < 4 && S.sums[k]; k++)
        if (S.sum_off[k] == off && S.sum_heavy[k] == heavy) {
            *sums = S.sums[k];
            return CUPAT_SUCCESS;
        }
    if (k == 4) { // four kinds at most a run: drop the oldest
        free(S.sums[0]);
        memmove(S.sums, S.sums + 1, 3 * sizeof S.sums[0]);
        memmove(S.sum_off, S.sum_off + 1, 3 * sizeof S.sum_off[0]);
        memmove(S.sum_heavy, S.sum_heavy + 1, 3 * sizeof S.sum_heavy[0]);
        S.sums[3] = nullptr;
        k = 3;
    }
    S.sums[k] = (uint32_t *)malloc(STREAM_TILES * 4);
    if (!S.sums[k] || lab_async_tile_sums(S.sums[k], STREAM_TILES, off, heavy)) return oom(X);
    S.sum_off[k] = off;
    S.sum_heavy[k] = heavy;
    *sums = S.sums[k];
    return CUPAT_SUCCESS;
}

// ============================================================== barrier ==
// One block an SM (it asks for most of an SM's shared memory, so no second
// block fits: each block's barrier runs alone on its SM), `phases` phases:
// each thread publishes v, synchronizes, does WORK xorshift rounds on a
// private x (work that needs nothing from the other threads), and reads
// its neighbour's v. Two buffers, so one
// barrier a phase is enough: a thread can write phase p + 1's buffer while
// a slow one still reads phase p's, and reaches phase p + 2's write only
// after everyone arrived at p + 1 (done reading p).
//   SY_NONE        the loop and the work, no exchange, no barrier (the floor)
//   SY_SYNC        __syncthreads(), then the work
//   SY_AAW         bar.arrive_and_wait(), then the work (Guide 10.26.1)
//   SY_SPLIT       token = bar.arrive(); the work; bar.wait(token) (10.26.2):
//                  the work overlaps the other threads' arrival
enum { SY_NONE, SY_SYNC, SY_AAW, SY_SPLIT };
constexpr int PHASES = 4096, WORK = 8;

template <int N> __device__ __forceinline__ uint32_t work(uint32_t x)
{
#pragma unroll
    for (int k = 0; k < N; k++) x = lab_async_xorshift(x);
    return x;
}

template <int SY, int W> __global__ void __launch_bounds__(1024) k_phase(uint32_t *out, int phases)
{
#if ASY_SM80
    using barrier = cuda::barrier<cuda::thread_scope_block>;
    __shared__ uint32_t sh[2][1024];
    __shared__ barrier bar;
    const unsigned n = blockDim.x, t = threadIdx.x, nb = t + 1 == n ? 0 : t + 1;
    if (SY == SY_AAW || SY == SY_SPLIT) { // Guide 10.26.3: initialised once, before anyone arrives
        if (t == 0) init(&bar, n);
        __syncthreads();
    }
    uint32_t v = t * 0x9E3779B1u + 1u, x = t;
    for (int p = 0; p < phases; p++) {
        uint32_t *b = sh[p & 1];
        if (SY == SY_NONE) {
            x = work<W>(x);
            v = 4u * v;
            continue;
        }
        b[t] = v;
        if (SY == SY_SYNC) {
            __syncthreads();
            x = work<W>(x);
        } else if (SY == SY_AAW) {
            bar.arrive_and_wait();
            x = work<W>(x);
        } else {
            barrier::arrival_token tok = bar.arrive();
            x = work<W>(x);
            bar.wait(std::move(tok));
        }
        v = 3u * v + b[nb];
    }
    out[(size_t)blockIdx.x * n + t] = v ^ x;
#endif
}

template <int SY, int W>
cupat_status phase_row(Run &X, unsigned n, uint32_t *d, uint32_t *h, const uint32_t *want, const char *what)
{
    lab_row *r = add(X, "%u threads: %s", n, what);
    const unsigned grid = (unsigned)X.sms;
    // Dynamic shared memory (unused) that leaves room for one block an SM.
    int optin = 0, occ = 0;
    CK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, cupat_get_device(X.ctx)));
    const size_t pad = (size_t)optin - 16384;
    CK(cudaFuncSetAttribute(k_phase<SY, W>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)pad));
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k_phase<SY, W>, (int)n, pad));
    CK(fill(X.s, d, 0xff, (size_t)grid * n * 4));
    CUPAT_TRY(timed(X.ctx, X.reps, X.t, [&]() {
        k_phase<SY, W><<<grid, n, pad, X.s>>>(d, PHASES);
        return cupat__launched(X.ctx, "k_phase");
    }));
    r->ms = median(X.t, X.reps);
    r->value = r->ms * 1e6 / PHASES;
    CK(copy(X.s, h, d, (size_t)grid * n * 4));
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < (size_t)grid * n; i++)
        if (h[i] != want[i % n] && !bad++) first = i;
    r->ok = bad == 0;
    lab_row_note(r, "%u blocks, %d an SM at most, %d phases%s; ", grid, occ, PHASES,
                 W ? ", 8 xorshift rounds of private work a phase" : "");
    if (bad) lab_row_note(r, "%zu of %zu words wrong, first block %zu thread %zu", bad, (size_t)grid * n, first / n,
                          first % n);
    return CUPAT_SUCCESS;
}

cupat_status exp_barrier(Run &X)
{
    static const unsigned sizes[] = {128, 256, 1024};
    Bufs B;
    uint32_t *d = nullptr;
    CK(B.alloc((void **)&d, (size_t)X.sms * 1024 * 4));
    uint32_t *h = (uint32_t *)malloc((size_t)X.sms * 1024 * 4);
    uint32_t *w0 = (uint32_t *)malloc(1024 * 4), *w1 = (uint32_t *)malloc(1024 * 4),
             *wn = (uint32_t *)malloc(1024 * 4);
    cupat_status s = !h || !w0 || !w1 || !wn ? oom(X) : CUPAT_SUCCESS;
    for (unsigned k = 0; k < 3 && !s; k++) {
        const unsigned n = sizes[k];
        if (lab_async_phase_model(n, PHASES, 0, w0) || lab_async_phase_model(n, PHASES, WORK, w1)) {
            s = oom(X);
            break;
        }
        for (unsigned t = 0; t < n; t++) { // SY_NONE: v = 4^PHASES v (0 mod 2^32), x as the work left it
            uint32_t v = t * 0x9E3779B1u + 1u, x = t;
            for (int p = 0; p < PHASES; p++) v *= 4u;
            for (int p = 0; p < PHASES * WORK; p++) x = lab_async_xorshift(x);
            wn[t] = v ^ x;
        }
        if (!s) s = phase_row<SY_NONE, WORK>(X, n, d, h, wn, "no barrier, the work only (floor)");
        if (!s) s = phase_row<SY_SYNC, 0>(X, n, d, h, w0, "__syncthreads()");
        if (!s) s = phase_row<SY_AAW, 0>(X, n, d, h, w0, "bar.arrive_and_wait()");
        if (!s) s = phase_row<SY_SPLIT, 0>(X, n, d, h, w0, "bar.arrive(); bar.wait()");
        if (!s) s = phase_row<SY_SYNC, WORK>(X, n, d, h, w1, "__syncthreads(); work");
        if (!s) s = phase_row<SY_AAW, WORK>(X, n, d, h, w1, "bar.arrive_and_wait(); work");
        if (!s) s = phase_row<SY_SPLIT, WORK>(X, n, d, h, w1, "bar.arrive(); work; bar.wait()");
    }
    free(h), free(w0), free(w1), free(wn);
    return s;
}

// ============================================================= warpspec ==
// 8 KiB tiles through a double buffer in shared memory (Guide 10.26.5).
// Two barriers a buffer, each counting every thread of the block: `ready`
// (the consumers are done with it: the producers wait, the consumers
// arrive) and `filled` (the producers wrote it: the consumers wait, the
// producers arrive). The consumers arrive on both `ready`s once before
// the loop: both buffers start empty.
//   PW > 0   PW producer warps load the tile to registers (all their loads
//            first, then the stores) and store it to the buffer.
//   PW = 0   one producer warp whose lane 0 calls cuda::memcpy_async with
//            cuda::aligned_size_t<16> on the `filled` barrier: on sm_90 the
//            library issues one cp.async.bulk (TMA) for the whole tile and
//            counts its bytes on the barrier (barrier_expect_tx).
// The rest of the 8 warps consume: the weighted sum of the tile, light or
// heavy (LAB_ASY_MIX_ROUNDS dependent rounds a word).
template <int PW, bool HEAVY>
__global__ void __launch_bounds__(THREADS) k_ws(const uint4 *src, unsigned nk, uint32_t *part)
{
#if ASY_SM80
    using barrier = cuda::barrier<cuda::thread_scope_block>;
    __shared__ __align__(128) uint4 buf[2][T4];
    __shared__ barrier ready[2], filled[2];
    constexpr unsigned NP = (PW > 0 ? PW : 1) * 32, NC = THREADS - NP;
    const unsigned t = threadIdx.x;
    if (t == 0) {
        for (int b = 0; b < 2; b++) init(&ready[b], THREADS), init(&filled[b], THREADS);
        fence_proxy_async(); // the barriers as the copy engine sees them (PW = 0)
    }
    __syncthreads();
    const unsigned K = my_tiles(nk);
    uint32_t s = 0;
    if (t < NP) { // producer
        for (unsigned k = 0; k < K; k++) {
            const unsigned b = k & 1;
            ready[b].arrive_and_wait(); // buffer b is free
            const uint4 *g = src + tile_of(k) * T4;
            if (PW == 0) {
#if ASY_SM90
                if (t == 0) (void)cuda::memcpy_async(buf[b], g, cuda::aligned_size_t<16>(T4 * 16), filled[b]);
#endif
            } else {
                constexpr unsigned PER = T4 / NP;
                uint4 r[PER];
#pragma unroll
                for (unsigned i = 0; i < PER; i++) r[i] = g[t + i * NP];
#pragma unroll
                for (unsigned i = 0; i < PER; i++) buf[b][t + i * NP] = r[i];
            }
            (void)filled[b].arrive(); // buffer b is full (PW = 0: once its bytes land)
        }
    } else { // consumer
        const unsigned c = t - NP;
        (void)ready[0].arrive();
        (void)ready[1].arrive();
        for (unsigned k = 0; k < K; k++) {
            const unsigned b = k & 1;
            filled[b].arrive_and_wait();
            s += sum_tile<HEAVY>(buf[b], T4, c, NC);
            (void)ready[b].arrive();
        }
    }
    block_total(s, part);
#endif
}

// The same tiles without specialization: every thread loads its share of
// the tile, __syncthreads, every thread computes, __syncthreads.
template <bool HEAVY> __global__ void __launch_bounds__(THREADS) k_all(const uint4 *src, unsigned nk, uint32_t *part)
{
    __shared__ __align__(128) uint4 buf[T4];
    const unsigned t = threadIdx.x, K = my_tiles(nk);
    uint32_t s = 0;
    for (unsigned k = 0; k < K; k++) {
        const uint4 *g = src + tile_of(k) * T4;
        uint4 r[T4 / THREADS];
#pragma unroll
        for (unsigned i = 0; i < T4 / THREADS; i++) r[i] = g[t + i * THREADS];
#pragma unroll
        for (unsigned i = 0; i < T4 / THREADS; i++) buf[t + i * THREADS] = r[i];
        __syncthreads();
        s += sum_tile<HEAVY>(buf, T4, t, THREADS);
        __syncthreads();
    }
    block_total(s, part);
}

template <bool HEAVY> cupat_status ws_rows(Run &X, Stream &S)
{
    const uint32_t *sums = nullptr;
    CUPAT_TRY(stream_sums(X, S, 0, HEAVY, &sums));
    const char *load = HEAVY ? "balanced compute" : "light compute";
    struct Case {
        const char *what;
        const void *fn;
    };
    const Case cases[] = {
        {"all 8 warps load, __syncthreads, compute", (const void *)k_all<HEAVY>},
        {"1 producer warp + 7 consumer warps", (const void *)k_ws<1, HEAVY>},
        {"2 producer warps + 6 consumer warps", (const void *)k_ws<2, HEAVY>},
        {"4 producer warps + 4 consumer warps", (const void *)k_ws<4, HEAVY>},
        {"1 lane issues memcpy_async (bulk) + 7 consumer warps", (const void *)k_ws<0, HEAVY>},
    };
    for (const Case &c : cases) {
        lab_row *r = add(X, "%s: %s", load, c.what);
        if (c.fn == (const void *)k_ws<0, HEAVY> && X.cc < 90) {
            lab_row_note(r, "not run: the bulk copy needs cc 9.0");
            continue;
        }
        CUPAT_TRY(std_row(X, S, r, c.fn, 0, 1, sums, S.d));
    }
    return CUPAT_SUCCESS;
}

cupat_status exp_warpspec(Run &X)
{
    Stream S;
    CUPAT_TRY(stream_make(X, S));
    CUPAT_TRY(ws_rows<false>(X, S));
    return ws_rows<true>(X, S);
}

} // namespace cupat_async

using namespace cupat_async;

extern "C" cupat_status cupat__lab_async_run(cupat_ctx *ctx, int e, int reps, lab_row *rows, int *nrows)
{
    Run X = {{ctx, reps, rows, nrows, nullptr, ctx->stream}, ctx->sm_count, 0};
    int major = 0, minor = 0;
    const int dev = cupat_get_device(ctx);
    CUPAT_CUDA_TRY(ctx, cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
    CUPAT_CUDA_TRY(ctx, cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
    X.cc = major * 10 + minor;
    const int need = lab_async_need(e);
    if (X.cc < need) {
        lab_row *r = lab_row_add(rows, nrows, "not supported");
        lab_row_note(r, "%s needs cc %d.%d; device %d is cc %d.%d", need >= 90 ? "TMA" : "cp.async / mbarrier",
                     need / 10, need % 10, dev, major, minor);
        return CUPAT_SUCCESS;
    }
    X.t = (float *)calloc((size_t)reps, sizeof(float));
    if (!X.t) return cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY, "lab async: out of host memory");
    cupat_status s = CUPAT_SUCCESS;
    switch (e) {
    case LAB_ASY_BARRIER: s = exp_barrier(X); break;
    case LAB_ASY_WARPSPEC: s = exp_warpspec(X); break;
    case LAB_ASY_MEMCPY: s = exp_memcpy(X); break;
    case LAB_ASY_ALIGN: s = exp_align(X); break;
    case LAB_ASY_ENTANGLE: s = exp_entangle(X); break;
    case LAB_ASY_PIPELINE: s = exp_pipeline(X); break;
    case LAB_ASY_BULK: s = exp_bulk(X); break;
    case LAB_ASY_SWIZZLE: s = exp_swizzle(X); break;
    case LAB_ASY_TENSOR: s = exp_tensor(X); break;
    }
    free(X.t);
    return s;
}
