// SPDX-License-Identifier: Apache-2.0
// atomics.cu — the kernels of `cupat lab atomics` (lecture 10 "Atomic
// Operations"; PMPP 9.2-9.4; CUDA Guide, atomic functions). The updates are
// written inline on purpose: the lesson is the update itself (the histogram
// ladder in src/histogram/ uses them for real).
#include "atomics/atomics.h"

#include "internal.h"

#include <stdlib.h>

namespace {

// ---- the race and its fixes --------------------------------------------

// Thread t adds 1 to counter t % addresses, per_thread times.
template <int M> __global__ void k_race(uint32_t *c, unsigned addresses, unsigned per_thread)
{
    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned a = t % addresses;
    if (M == LAB_ATOM_PRIVATE) {
        // PMPP 9.4: a private copy a block in shared memory; the block's
        // threads contend there (near the SM), and each counter costs one
        // global atomic a block.
        extern __shared__ uint32_t s[];
        for (unsigned i = threadIdx.x; i < addresses; i += blockDim.x) s[i] = 0;
        __syncthreads();
        for (unsigned k = 0; k < per_thread; k++) atomicAdd(&s[a], 1u);
        __syncthreads();
        for (unsigned i = threadIdx.x; i < addresses; i += blockDim.x)
            if (s[i]) atomicAdd(&c[i], s[i]);
    } else {
        for (unsigned k = 0; k < per_thread; k++) {
            if (M == LAB_ATOM_PLAIN) {
                // The lecture's A[index] += 1: a load, an add, a store. volatile
                // keeps one load and one store an increment (else the compiler may
                // fold the loop into one += per_thread, a smaller race). Two
                // threads that load the same value both store value + 1: one
                // update is lost.
                volatile uint32_t *v = c;
                v[a] = v[a] + 1u;
            } else if (M == LAB_ATOM_ATOMIC) {
                atomicAdd(&c[a], 1u); // the read-modify-write in one indivisible step (in the L2)
            } else {
                // Lock-free: read, then swap in old + 1 only if nobody changed it
                // in between; atomicCAS returns what it found, which is the next
                // guess when we lost. Every retry is another trip to the L2.
                uint32_t old = *(volatile uint32_t *)&c[a];
                for (;;) {
                    const uint32_t prev = atomicCAS(&c[a], old, old + 1u);
                    if (prev == old) break;
                    old = prev;
                }
            }
        }
    }
}

// ---- custom atomics on atomicCAS -----------------------------------------

__device__ __forceinline__ bool nan_bits(uint32_t u)
{
    return (u & 0x7fffffffu) > 0x7f800000u;
}
// The sign flip: negative floats reversed, positive ones above them, so the
// unsigned order of the keys is the float order with -0 just below +0.
__device__ __forceinline__ uint32_t f32_key(uint32_t u)
{
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

// atomicMax / atomicMin for float (CUDA has none): compare in the key order,
// swap with atomicCAS on the bits, retry with what was found. A NaN value is
// ignored; a NaN in memory (the start value) loses to any number.
template <bool MAX> __device__ __forceinline__ void atomic_f32_extreme(uint32_t *addr, float v)
{
    const uint32_t vb = __float_as_uint(v);
    if (nan_bits(vb)) return;
    const uint32_t kv = f32_key(vb);
    uint32_t old = *(volatile uint32_t *)addr;
    while (nan_bits(old) || (MAX ? kv > f32_key(old) : kv < f32_key(old))) {
        const uint32_t prev = atomicCAS(addr, old, vb);
        if (prev == old) break;
        old = prev;
    }
}

// The argmax: (key << 32) | ~index in one 64-bit word, raised with a 64-bit
// atomicCAS loop (value and index move together: no torn pair). Ties keep
// the lower index, because ~index is larger for it.
__device__ __forceinline__ void atomic_argmax(unsigned long long *addr, float v, uint32_t i)
{
    const uint32_t vb = __float_as_uint(v);
    if (nan_bits(vb)) return;
    const unsigned long long p = ((unsigned long long)f32_key(vb) << 32) | (uint32_t)~i;
    unsigned long long old = *(volatile unsigned long long *)addr;
    while (p > old) {
        const unsigned long long prev = atomicCAS(addr, old, p);
        if (prev == old) break;
        old = prev;
    }
}

__global__ void k_custom(const float *x, size_t n, uint32_t *mx, uint32_t *mn, unsigned long long *am)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        const float v = x[i];
        atomic_f32_extreme<true>(mx, v);
        atomic_f32_extreme<false>(mn, v);
        atomic_argmax(am, v, (uint32_t)i);
    }
}

__global__ void k_custom_init(uint32_t *mx, uint32_t *mn, unsigned long long *am)
{
    *mx = 0x7fc00000u; // canonical NaN: no value yet
    *mn = 0x7fc00000u;
    *am = 0ull; // empty
}

// ---- throughput against contention -------------------------------------

constexpr unsigned RATE_THREADS = 1024;

template <int W> __global__ void __launch_bounds__(RATE_THREADS) k_rate(uint32_t *c, unsigned spread, unsigned iters)
{
    if (W == LAB_ATOM_GLOBAL) {
        const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
        const unsigned a = spread ? t % spread : t;
        for (unsigned k = 0; k < iters; k++) atomicAdd(&c[a], 1u);
    } else {
        __shared__ uint32_t s[RATE_THREADS];
        const unsigned a = spread ? threadIdx.x % spread : threadIdx.x;
        s[threadIdx.x] = 0;
        __syncthreads();
        for (unsigned k = 0; k < iters; k++) atomicAdd(&s[a], 1u);
        __syncthreads();
        if (s[threadIdx.x]) atomicAdd(&c[threadIdx.x], s[threadIdx.x]); // checkable sums
    }
}

} // namespace

extern "C" cupat_status cupat__lab_atom_race(cupat_ctx *ctx, int method, int addresses, unsigned blocks,
                                             unsigned threads, unsigned per_thread, uint32_t *d_counts)
{
    const unsigned a = (unsigned)addresses;
    switch (method) {
    case LAB_ATOM_PLAIN: k_race<LAB_ATOM_PLAIN><<<blocks, threads, 0, ctx->stream>>>(d_counts, a, per_thread); break;
    case LAB_ATOM_ATOMIC: k_race<LAB_ATOM_ATOMIC><<<blocks, threads, 0, ctx->stream>>>(d_counts, a, per_thread); break;
    case LAB_ATOM_PRIVATE:
        k_race<LAB_ATOM_PRIVATE><<<blocks, threads, a * sizeof(uint32_t), ctx->stream>>>(d_counts, a, per_thread);
        break;
    case LAB_ATOM_CAS: k_race<LAB_ATOM_CAS><<<blocks, threads, 0, ctx->stream>>>(d_counts, a, per_thread); break;
    default: return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab atomics: method = %d", method);
    }
    return cupat__launched(ctx, "k_race");
}

extern "C" cupat_status cupat__lab_atom_custom(cupat_ctx *ctx, const float *d_x, size_t n, uint32_t *d_max,
                                               uint32_t *d_min, unsigned long long *d_argmax)
{
    k_custom_init<<<1, 1, 0, ctx->stream>>>(d_max, d_min, d_argmax);
    CUPAT_TRY(cupat__launched(ctx, "k_custom_init"));
    size_t blocks = (n + 255) / 256;
    if (blocks > 1024) blocks = 1024;
    k_custom<<<(unsigned)blocks, 256, 0, ctx->stream>>>(d_x, n, d_max, d_min, d_argmax);
    return cupat__launched(ctx, "k_custom");
}

extern "C" cupat_status cupat__lab_atom_rate(cupat_ctx *ctx, int where, unsigned spread, unsigned blocks,
                                             unsigned iters, int reps, uint32_t *d_counts, size_t ncounts,
                                             float *times)
{
    cudaEvent_t *ev = (cudaEvent_t *)calloc(2 * (size_t)reps, sizeof *ev);
    if (!ev) return cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY, "lab atomics: out of host memory");
    cupat_status s = CUPAT_SUCCESS;
    int made = 0;
    for (; made < 2 * reps && !s; made++) s = cupat__cuda(ctx, cudaEventCreate(&ev[made]), "cudaEventCreate");
    if (s) made--; // the failed one was not made
    for (int r = 0; r <= reps && !s; r++) {
        s = cupat__cuda(ctx, cudaMemsetAsync(d_counts, 0, ncounts * sizeof(uint32_t), ctx->stream),
                        "cudaMemsetAsync");
        if (!s && r) s = cupat__cuda(ctx, cudaEventRecord(ev[2 * (r - 1)], ctx->stream), "cudaEventRecord");
        if (s) break;
        if (where == LAB_ATOM_GLOBAL) k_rate<LAB_ATOM_GLOBAL><<<blocks, RATE_THREADS, 0, ctx->stream>>>(d_counts, spread, iters);
        else k_rate<LAB_ATOM_SHARED><<<blocks, RATE_THREADS, 0, ctx->stream>>>(d_counts, spread, iters);
        s = cupat__launched(ctx, "k_rate");
        if (!s && r) s = cupat__cuda(ctx, cudaEventRecord(ev[2 * (r - 1) + 1], ctx->stream), "cudaEventRecord");
    }
    if (!s) s = cupat__cuda(ctx, cudaStreamSynchronize(ctx->stream), "cudaStreamSynchronize");
    for (int r = 0; r < reps && !s; r++)
        s = cupat__cuda(ctx, cudaEventElapsedTime(&times[r], ev[2 * r], ev[2 * r + 1]), "cudaEventElapsedTime");
    for (int i = 0; i < made; i++) cudaEventDestroy(ev[i]);
    free(ev);
    return s;
}
