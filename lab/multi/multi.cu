// SPDX-License-Identifier: Apache-2.0
// multi.cu — the multi-GPU lab's inputs and checks (multi_gen.h): each a
// grid-stride kernel on the context's stream, or the same loop on the host
// for the CPU backend; the values come from the bench harness's generator
// (bench_hash), so host and device agree bit for bit.
#include "multi/multi_gen.h"

#include "cupat_warp.cuh"
#include "harness.h"
#include "internal.h"
#include "lab_timing.cuh"

#include <string.h>

namespace {

enum : uint64_t { SEED_GRID = 0x6d756c7469ull, SEED_KEYS = 0x6b657973ull };

__host__ __device__ inline float ar_value(int rank, uint64_t i)
{
    // -8 .. 8, every value once in 17 consecutive i: integers, so any sum of
    // a few of them is exact in f32
    return (float)((int)((i % 17 * 7 + (uint64_t)rank * 13) % 17) - 8);
}
__host__ __device__ inline float ar_expect(int p, uint64_t i)
{
    float s = 0.0f;
    for (int r = 0; r < p; r++) s += ar_value(r, i);
    return s;
}
__host__ __device__ inline uint64_t grid_hash(float v, uint64_t gi)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    return bench_hash(u, gi);
}
__host__ __device__ inline uint32_t key_at(uint64_t gi) { return (uint32_t)(bench_hash(SEED_KEYS, gi) >> 32); }

// --------------------------------------------------------------- kernels --

#define GRID_STRIDE(i, n)                                                                          \
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += (size_t)gridDim.x * blockDim.x)

__global__ void k_fill_ar(float *x, size_t n, int rank)
{
    GRID_STRIDE(i, n) x[i] = ar_value(rank, i);
}

__global__ void k_fill_grid(float *a, size_t n, uint64_t first)
{
    GRID_STRIDE(i, n) a[i] = bench_rand_f32(SEED_GRID, first + i, 0.0f, 1.0f);
}

__global__ void k_fill_keys(uint32_t *k, size_t n, uint64_t first)
{
    GRID_STRIDE(i, n) k[i] = key_at(first + i);
}

// One atomicAdd a warp of each count (every lane's partial summed by the
// shared warp reduce first).
__device__ inline void add_warp(unsigned long long *to, unsigned long long v)
{
    v = cupat_dev::warp_reduce(v, cupat_dev::OpSum());
    if (cupat_dev::lane_id() == 0 && v) atomicAdd(to, v);
}

__global__ void k_check_ar(const float *y, size_t n, int p, unsigned long long *bad)
{
    unsigned long long b = 0;
    GRID_STRIDE(i, n) b += !(y[i] == ar_expect(p, i)); // NaN never passes
    add_warp(bad, b);
}

__global__ void k_grid_sum(const float *a, size_t n, uint64_t first, unsigned long long *sum)
{
    unsigned long long s = 0;
    GRID_STRIDE(i, n) s += grid_hash(a[i], first + i);
    add_warp(sum, s);
}

// out[0]: descents (k[i] > k[i + 1]), out[1]: the keys' checksum.
__global__ void k_key_facts(const uint32_t *k, size_t n, unsigned long long *out)
{
    unsigned long long d = 0, s = 0;
    GRID_STRIDE(i, n)
    {
        s += bench_mix64(k[i]);
        d += i + 1 < n && k[i] > k[i + 1];
    }
    add_warp(&out[0], d);
    add_warp(&out[1], s);
}

unsigned blocks_for(const cupat_ctx *ctx, size_t n)
{
    const size_t want = (n + 255) / 256, most = 8 * (size_t)(ctx->sm_count > 0 ? ctx->sm_count : 1);
    return (unsigned)(want < 1 ? 1 : want < most ? want : most);
}

bool on_cpu(const cupat_ctx *ctx) { return ctx->backend == CUPAT_BACKEND_CPU; }

// A fill of n elements: the host loop on the CPU backend, else the kernel
// launch, checked.
template <class Host, class Launch>
cupat_status fill_pass(cupat_ctx *ctx, const char *fn, const char *kernel, size_t n, Host host, Launch launch)
{
    CUPAT_TRY(cupat__begin(ctx, fn));
    if (!n) return CUPAT_SUCCESS;
    if (on_cpu(ctx)) {
        host();
        return CUPAT_SUCCESS;
    }
    launch();
    return cupat__launched(ctx, kernel);
}

// A counting pass over n elements into h[0], h[1] (zeroed first): the host
// loop on the CPU backend, else the kernel into a zeroed device pair, which
// is copied back (waits).
template <class Host, class Launch>
cupat_status count_pass(cupat_ctx *ctx, const char *fn, const char *kernel, size_t n, unsigned long long h[2],
                        Host host, Launch launch)
{
    CUPAT_TRY(cupat__begin(ctx, fn));
    h[0] = h[1] = 0;
    if (!n) return CUPAT_SUCCESS;
    if (on_cpu(ctx)) {
        host();
        return CUPAT_SUCCESS;
    }
    cupat_lab::Bufs bufs;
    unsigned long long *d = nullptr;
    CUPAT_CUDA_TRY(ctx, bufs.alloc((void **)&d, 2 * sizeof *d));
    CUPAT_CUDA_TRY(ctx, cupat_lab::fill(ctx->stream, d, 0, 2 * sizeof *d));
    launch(d);
    CUPAT_TRY(cupat__launched(ctx, kernel));
    CUPAT_CUDA_TRY(ctx, cupat_lab::copy(ctx->stream, h, d, 2 * sizeof *d));
    return CUPAT_SUCCESS;
}

} // namespace

// ------------------------------------------------------------ the C API --

extern "C" float lab_multi_ar_value(int rank, size_t i) { return ar_value(rank, i); }

extern "C" cupat_status lab_multi_fill_ar(cupat_ctx *ctx, float *x, size_t n, int rank)
{
    return fill_pass(
        ctx, "lab_multi_fill_ar", "k_fill_ar", n, [&] { for (size_t i = 0; i < n; i++) x[i] = ar_value(rank, i); },
        [&] { k_fill_ar<<<blocks_for(ctx, n), 256, 0, ctx->stream>>>(x, n, rank); });
}

extern "C" cupat_status lab_multi_fill_grid(cupat_ctx *ctx, float *a, size_t n, uint64_t first)
{
    return fill_pass(
        ctx, "lab_multi_fill_grid", "k_fill_grid", n,
        [&] { for (size_t i = 0; i < n; i++) a[i] = bench_rand_f32(SEED_GRID, first + i, 0.0f, 1.0f); },
        [&] { k_fill_grid<<<blocks_for(ctx, n), 256, 0, ctx->stream>>>(a, n, first); });
}

extern "C" cupat_status lab_multi_fill_keys(cupat_ctx *ctx, uint32_t *k, size_t n, uint64_t first)
{
    return fill_pass(
        ctx, "lab_multi_fill_keys", "k_fill_keys", n, [&] { for (size_t i = 0; i < n; i++) k[i] = key_at(first + i); },
        [&] { k_fill_keys<<<blocks_for(ctx, n), 256, 0, ctx->stream>>>(k, n, first); });
}

extern "C" cupat_status lab_multi_check_ar(cupat_ctx *ctx, const float *y, size_t n, int p, uint64_t *bad)
{
    unsigned long long h[2];
    *bad = 0;
    CUPAT_TRY(count_pass(
        ctx, "lab_multi_check_ar", "k_check_ar", n, h, [&] { for (size_t i = 0; i < n; i++) h[0] += !(y[i] == ar_expect(p, i)); },
        [&](unsigned long long *d) { k_check_ar<<<blocks_for(ctx, n), 256, 0, ctx->stream>>>(y, n, p, d); }));
    *bad = h[0];
    return CUPAT_SUCCESS;
}

extern "C" cupat_status lab_multi_grid_sum(cupat_ctx *ctx, const float *a, size_t n, uint64_t first,
                                           uint64_t *sum)
{
    unsigned long long h[2];
    *sum = 0;
    CUPAT_TRY(count_pass(
        ctx, "lab_multi_grid_sum", "k_grid_sum", n, h,
        [&] { for (size_t i = 0; i < n; i++) h[0] += grid_hash(a[i], first + i); },
        [&](unsigned long long *d) { k_grid_sum<<<blocks_for(ctx, n), 256, 0, ctx->stream>>>(a, n, first, d); }));
    *sum = h[0];
    return CUPAT_SUCCESS;
}

extern "C" cupat_status lab_multi_key_facts(cupat_ctx *ctx, const uint32_t *k, size_t n, lab_multi_run_facts *f)
{
    unsigned long long h[2];
    memset(f, 0, sizeof *f);
    CUPAT_TRY(count_pass(
        ctx, "lab_multi_key_facts", "k_key_facts", n, h,
        [&] {
            for (size_t i = 0; i < n; i++) {
                h[0] += i + 1 < n && k[i] > k[i + 1];
                h[1] += bench_mix64(k[i]);
            }
        },
        [&](unsigned long long *d) { k_key_facts<<<blocks_for(ctx, n), 256, 0, ctx->stream>>>(k, n, d); }));
    f->descents = h[0];
    f->sum = h[1];
    if (!n) return CUPAT_SUCCESS;
    if (on_cpu(ctx)) {
        f->first = k[0];
        f->last = k[n - 1];
        return CUPAT_SUCCESS;
    }
    CUPAT_CUDA_TRY(ctx, cupat_lab::copy(ctx->stream, &f->first, k, 4));
    CUPAT_CUDA_TRY(ctx, cupat_lab::copy(ctx->stream, &f->last, k + n - 1, 4));
    return CUPAT_SUCCESS;
}
