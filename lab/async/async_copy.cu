// SPDX-License-Identifier: Apache-2.0
// async_copy.cu — the memcpy_async experiments of `cupat lab async`: the
// copy-and-compute pattern with register staging against every memcpy_async
// flavour (Guide 10.27.1-10.27.4), the alignment rule (10.27.6.1-2), warp
// entanglement (10.27.6.3-6), and cuda::pipeline in its forms against the
// <cuda_pipeline.h> primitives and raw cp.async (10.28). Every kernel reads
// the 256 MiB stream in 8 KiB tiles, one resident wave of blocks looping
// over them, and writes one weighted sum a block that the host checks.
//
// What the library makes of each call (CCCL 3.0 in CUDA 13.0, read from its
// headers; the rows' timings are the evidence): cuda::memcpy_async picks the
// copy at compile time from alignof(T) and cuda::aligned_size_t<N>, never
// from the pointers' values: int pointers and a size_t give 4-byte
// cp.async, char pointers a synchronous byte loop, aligned_size_t<16>
// 16-byte cp.async with a pipeline and, with a block barrier in shared
// memory on sm_90, one cp.async.bulk (TMA) issued by the group's first
// thread. cooperative_groups::memcpy_async takes the alignment of T, or
// with void pointers finds the pointers' common alignment at run time.
#include "async/async_internal.cuh"

#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cuda_pipeline.h>

namespace cg = cooperative_groups;

namespace cupat_async {

// ================================================== copy and compute ==
// One stage: copy an 8 KiB tile to shared memory, wait, the weighted sum,
// __syncthreads (the next copy overwrites the tile). M picks the copy.
enum {
    M_REG4,      // register staging, 4-byte loads (the Guide's "without memcpy_async")
    M_REG16,     // register staging, 16-byte loads
    M_CG4,       // cg::memcpy_async(block, uint32_t*, ...) + cg::wait
    M_CG16,      // cg::memcpy_async(block, uint4*, ...) + cg::wait
    M_CGVOID,    // cg::memcpy_async(block, void*, ...): alignment found at run time
    M_BAR4,      // cuda::memcpy_async(block, uint32_t*, size_t, barrier) + arrive_and_wait
    M_BAR16,     // the same with cuda::aligned_size_t<16>
    M_PIPE4,     // cuda::memcpy_async(block, uint32_t*, size_t, pipeline<thread>) + wait + __syncthreads
    M_PIPE_A4,   // ... cuda::aligned_size_t<4>
    M_PIPE_A8,   // ... cuda::aligned_size_t<8>
    M_PIPE_A16,  // ... cuda::aligned_size_t<16>
    M_PIPE_CHAR, // ... char pointers and a size_t: alignment 1
};

template <int M> __global__ void __launch_bounds__(THREADS) k_cc(const uint32_t *src, unsigned nk, uint32_t *part)
{
#if ASY_SM80
    using barrier = cuda::barrier<cuda::thread_scope_block>;
    __shared__ __align__(128) uint4 sh4[T4];
    __shared__ barrier bar;
    uint32_t *sh = reinterpret_cast<uint32_t *>(sh4);
    cg::thread_block block = cg::this_thread_block();
    const unsigned t = threadIdx.x, K = my_tiles(nk);
    constexpr bool BAR = M == M_BAR4 || M == M_BAR16;
    if (BAR) {
        if (t == 0) {
            init(&bar, THREADS);
            fence_proxy_async(); // M_BAR16's bulk copy completes on it from the async proxy
        }
        __syncthreads();
    }
    cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
    uint32_t s = 0;
    for (unsigned k = 0; k < K; k++) {
        const uint32_t *g = src + tile_of(k) * TW;
        if (M == M_REG4) {
            uint32_t r[TW / THREADS];
#pragma unroll
            for (unsigned i = 0; i < TW / THREADS; i++) r[i] = g[t + i * THREADS];
#pragma unroll
            for (unsigned i = 0; i < TW / THREADS; i++) sh[t + i * THREADS] = r[i];
            __syncthreads();
        } else if (M == M_REG16) {
            const uint4 *g4 = reinterpret_cast<const uint4 *>(g);
            uint4 r[T4 / THREADS];
#pragma unroll
            for (unsigned i = 0; i < T4 / THREADS; i++) r[i] = g4[t + i * THREADS];
#pragma unroll
            for (unsigned i = 0; i < T4 / THREADS; i++) sh4[t + i * THREADS] = r[i];
            __syncthreads();
        } else if (M == M_CG4 || M == M_CG16 || M == M_CGVOID) {
            if (M == M_CG4) cg::memcpy_async(block, sh, g, (size_t)TW * 4);
            else if (M == M_CG16) cg::memcpy_async(block, sh4, reinterpret_cast<const uint4 *>(g), (size_t)TW * 4);
            else cg::memcpy_async(block, (void *)sh, (const void *)g, (size_t)TW * 4);
            cg::wait(block); // this thread's copies, then block.sync()
        } else if (BAR) {
            if (M == M_BAR4) (void)cuda::memcpy_async(block, sh, g, (size_t)TW * 4, bar);
            else {
                fence_proxy_async(); // the last tile's reads before the copy engine's writes
                (void)cuda::memcpy_async(block, sh, g, cuda::aligned_size_t<16>((size_t)TW * 4), bar);
            }
            bar.arrive_and_wait();
        } else {
            pipe.producer_acquire();
            if (M == M_PIPE4) (void)cuda::memcpy_async(block, sh, g, (size_t)TW * 4, pipe);
            if (M == M_PIPE_A4) (void)cuda::memcpy_async(block, sh, g, cuda::aligned_size_t<4>((size_t)TW * 4), pipe);
            if (M == M_PIPE_A8) (void)cuda::memcpy_async(block, sh, g, cuda::aligned_size_t<8>((size_t)TW * 4), pipe);
            if (M == M_PIPE_A16)
                (void)cuda::memcpy_async(block, sh, g, cuda::aligned_size_t<16>((size_t)TW * 4), pipe);
            if (M == M_PIPE_CHAR)
                (void)cuda::memcpy_async(block, reinterpret_cast<char *>(sh), reinterpret_cast<const char *>(g),
                                         (size_t)TW * 4, pipe);
            pipe.producer_commit();
            pipe.consumer_wait(); // this thread's copies
            pipe.consumer_release();
            __syncthreads(); // everyone's
        }
        s += sum_tile(sh4, T4, t, THREADS);
        __syncthreads();
    }
    block_total(s, part);
#endif
}

struct CcCase {
    const char *what;
    const void *fn;
};
#define CC(M) (const void *)k_cc<M>

cupat_status exp_memcpy(Run &X)
{
    Stream S;
    CUPAT_TRY(stream_make(X, S));
    const uint32_t *sums = nullptr;
    CUPAT_TRY(stream_sums(X, S, 0, 0, &sums));
    const CcCase cases[] = {
        {"register staging, 4-byte loads (no memcpy_async)", CC(M_REG4)},
        {"register staging, 16-byte loads", CC(M_REG16)},
        {"cg::memcpy_async, uint32_t* + cg::wait", CC(M_CG4)},
        {"cg::memcpy_async, uint4* + cg::wait", CC(M_CG16)},
        {"cuda::memcpy_async + cuda::barrier, size_t", CC(M_BAR4)},
        {"cuda::memcpy_async + cuda::barrier, aligned_size_t<16>", CC(M_BAR16)},
        {"cuda::memcpy_async + cuda::pipeline, size_t", CC(M_PIPE4)},
        {"cuda::memcpy_async + cuda::pipeline, aligned_size_t<16>", CC(M_PIPE_A16)},
    };
    for (const CcCase &c : cases) {
        lab_row *r = add(X, "%s", c.what);
        if (c.fn == CC(M_BAR16) && X.cc < 90) lab_row_note(r, "cc < 9.0: cp.async, not the bulk copy; ");
        if (c.fn == CC(M_BAR4) &&
            !lab_row_unless_tool(r, "synccheck", "it does not model cp.async's arrive-on completion (docs/async.md)"))
            continue;
        CUPAT_TRY(std_row(X, S, r, c.fn, 0, 1, sums, S.d));
        lab_row_note(r, "8 KiB tiles, one stage");
    }
    return CUPAT_SUCCESS;
}

// ============================================================== align ==
// The same kernels reading from S.d + off: sources aligned to exactly 4, 8,
// 16 bytes (off 1, 2, 4 words) and to 128 (off 0; cudaMalloc gives 256);
// the shared destination is 128-byte aligned in every row.
cupat_status exp_align(Run &X)
{
    Stream S;
    CUPAT_TRY(stream_make(X, S));
    static const struct {
        unsigned align, off;
        const void *fn_a; // aligned_size_t<min(align, 16)>
        const char *a;
    } al[] = {
        {4, 1, CC(M_PIPE_A4), "aligned_size_t<4>"},
        {8, 2, CC(M_PIPE_A8), "aligned_size_t<8>"},
        {16, 4, CC(M_PIPE_A16), "aligned_size_t<16>"},
        {128, 0, CC(M_PIPE_A16), "aligned_size_t<16>"},
    };
    for (const auto &A : al) {
        const uint32_t *sums = nullptr;
        CUPAT_TRY(stream_sums(X, S, A.off, 0, &sums));
        const uint32_t *src = S.d + A.off;
        const CcCase cases[] = {
            {"register staging (4-byte loads)", CC(M_REG4)},
            {"cg::memcpy_async, void* (alignment at run time)", CC(M_CGVOID)},
            {"cuda::memcpy_async + pipeline, uint32_t*, size_t", CC(M_PIPE4)},
            {A.a, A.fn_a},
        };
        for (const CcCase &c : cases) {
            lab_row *r = add(X, "source %u-aligned: %s", A.align, c.what);
            CUPAT_TRY(std_row(X, S, r, c.fn, 0, 1, sums, src));
        }
        if (A.align >= 16) {
            lab_row *r = add(X, "source %u-aligned: barrier + aligned_size_t<16> (bulk)", A.align);
            if (X.cc < 90) lab_row_note(r, "cc < 9.0: cp.async, not the bulk copy; ");
            CUPAT_TRY(std_row(X, S, r, CC(M_BAR16), 0, 1, sums, src));
        }
        if (A.align == 128) {
            lab_row *r = add(X, "source 128-aligned: char*, size_t (alignment 1)");
            CUPAT_TRY(std_row(X, S, r, CC(M_PIPE_CHAR), 0, 1, sums, src));
            lab_row_note(r, "the library's synchronous byte loop");
        }
    }
    return CUPAT_SUCCESS;
}
#undef CC

// =========================================================== entangle ==
// Every thread runs its own cuda::pipeline<thread_scope_thread> of S
// stages over its own 2 x 16 bytes of each tile (it reads back only what
// it copied, so no block barrier). Each iteration issues tile k and
// consumes tile k - (S - 1) with pipeline_consumer_wait_prior<S - 1>. A
// lane loop makes the warp fully diverged (one lane at a time; `key` is 0
// at run time but unknown to the compiler, so the loop stays):
//   E_CONV   no divergence: acquire, copy, commit, wait by the whole warp
//   E_FIXED  the diverged lane loop computes the lane's copy order, then
//            __syncwarp() and the pipeline calls converged (Guide 10.27.6.6)
//   E_SPLIT  the copies converged, commit and wait inside the lane loop
//   E_ALL    copies, commit and wait inside the lane loop
// The Guide (cc 8.x): commits are shared by the warp, so a diverged warp
// commits 32 batches a stage and wait_prior<N> waits for more than the
// thread's own N-th batch: the stages stop overlapping.
enum { E_CONV, E_FIXED, E_SPLIT, E_ALL };

template <int S, int E> __global__ void __launch_bounds__(THREADS) k_ent(const uint4 *src, unsigned nk, uint32_t *part)
{
#if ASY_SM80
    __shared__ __align__(128) uint4 sh[S][T4];
    cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
    const unsigned t = threadIdx.x, lane = t & 31, K = my_tiles(nk), key = nk >> 30;
    uint32_t s = 0;
    for (unsigned k = 0; k < K + S - 1; k++) {
        const uint4 *g = src + tile_of(k) * T4;
        uint4 *d = sh[k % S];
        // the lane's order of its two copies: work that differs by lane
        auto order = [&]() { return (lab_async_xorshift(lane * 977u + k + 1u) >> 7) & 1u; };
        auto copies = [&](unsigned o) {
            if (k < K) {
                const unsigned a = t + o * THREADS, b = t + (1u - o) * THREADS;
                (void)cuda::memcpy_async(d + a, g + a, cuda::aligned_size_t<16>(16), pipe);
                (void)cuda::memcpy_async(d + b, g + b, cuda::aligned_size_t<16>(16), pipe);
            }
        };
        auto wait = [&]() {
            if (k + 1 >= (unsigned)S) cuda::pipeline_consumer_wait_prior<S - 1>(pipe);
        };
        if (E == E_CONV) {
            pipe.producer_acquire();
            copies(order());
            pipe.producer_commit();
            wait();
        } else if (E == E_FIXED) {
            unsigned o = 0;
            for (unsigned l = 0; l < 32; l++)
                if (lane == (l ^ key)) o = order();
            __syncwarp();
            pipe.producer_acquire();
            copies(o);
            pipe.producer_commit();
            wait();
        } else if (E == E_SPLIT) {
            pipe.producer_acquire();
            copies(order());
            for (unsigned l = 0; l < 32; l++)
                if (lane == (l ^ key)) {
                    pipe.producer_commit();
                    wait();
                }
        } else {
            for (unsigned l = 0; l < 32; l++)
                if (lane == (l ^ key)) {
                    pipe.producer_acquire();
                    copies(order());
                    pipe.producer_commit();
                    wait();
                }
        }
        if (k + 1 >= (unsigned)S) {
            const uint4 *c = sh[(k - (S - 1)) % S];
            s += sum4<false>(c[t], t) + sum4<false>(c[t + THREADS], t + THREADS);
            pipe.consumer_release();
        }
    }
    block_total(s, part);
#endif
}

cupat_status exp_entangle(Run &X)
{
    Stream S;
    CUPAT_TRY(stream_make(X, S));
    const uint32_t *sums = nullptr;
    CUPAT_TRY(stream_sums(X, S, 0, 0, &sums));
    const CcCase cases[] = {
        {"1 stage: converged", (const void *)k_ent<1, E_CONV>},
        {"1 stage: diverged, __syncwarp, then commit / wait", (const void *)k_ent<1, E_FIXED>},
        {"1 stage: commit / wait in the diverged lanes", (const void *)k_ent<1, E_SPLIT>},
        {"1 stage: copy, commit, wait in the diverged lanes", (const void *)k_ent<1, E_ALL>},
        {"4 stages: converged", (const void *)k_ent<4, E_CONV>},
        {"4 stages: diverged, __syncwarp, then commit / wait", (const void *)k_ent<4, E_FIXED>},
        {"4 stages: commit / wait in the diverged lanes", (const void *)k_ent<4, E_SPLIT>},
        {"4 stages: copy, commit, wait in the diverged lanes", (const void *)k_ent<4, E_ALL>},
    };
    for (const CcCase &c : cases) {
        lab_row *r = add(X, "%s", c.what);
        CUPAT_TRY(std_row(X, S, r, c.fn, 0, 1, sums, S.d));
        lab_row_note(r, "per-thread pipelines, 2 x 16 B a thread a tile");
    }
    return CUPAT_SUCCESS;
}

// =========================================================== pipeline ==
// The same tiled copy-and-sum through an S-stage ring of 8 KiB stages.
// Where each thread waits only for its own copies (thread-scope pipeline,
// primitives, raw cp.async), the loop is: issue tile k into stage k % S and
// commit (an empty group past the end, so the counts stay aligned), wait
// until at most S - 1 groups are pending (tile k - S + 1 landed),
// __syncthreads (everyone's copies landed), sum, __syncthreads (the stage
// may be refilled).

// cuda::pipeline<thread_scope_thread> (make_pipeline()) with the block's
// copies (cuda::memcpy_async(block, ...)): S = 1 is the Guide's single
// stage (10.28.1), S > 1 its "pipeline<thread_scope_thread> + __syncthreads".
template <int S> __global__ void __launch_bounds__(THREADS) k_pthread(const uint4 *src, unsigned nk, uint32_t *part)
{
#if ASY_SM80
    __shared__ __align__(128) uint4 sh[S][T4];
    cg::thread_block block = cg::this_thread_block();
    cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
    const unsigned t = threadIdx.x, K = my_tiles(nk);
    uint32_t s = 0;
    for (unsigned k = 0; k < K + S - 1; k++) {
        pipe.producer_acquire();
        if (k < K)
            (void)cuda::memcpy_async(block, sh[k % S], src + tile_of(k) * T4, cuda::aligned_size_t<16>(T4 * 16),
                                     pipe);
        pipe.producer_commit();
        if (k + 1 >= (unsigned)S) {
            cuda::pipeline_consumer_wait_prior<S - 1>(pipe);
            __syncthreads();
            s += sum_tile(sh[(k - (S - 1)) % S], T4, t, THREADS);
            pipe.consumer_release();
            __syncthreads();
        }
    }
    block_total(s, part);
#endif
}

// cuda::pipeline<thread_scope_block> over pipeline_shared_state<block, S>:
// every thread produces and consumes (Guide 10.28.2, its loop with the
// prologue folded in); the stage barriers replace __syncthreads.
template <int S> __global__ void __launch_bounds__(THREADS) k_pblock(const uint4 *src, unsigned nk, uint32_t *part)
{
#if ASY_SM80
    __shared__ __align__(128) uint4 sh[S][T4];
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, S> state;
    cg::thread_block block = cg::this_thread_block();
    const unsigned t = threadIdx.x, K = my_tiles(nk);
    uint32_t s = 0;
    {
        cuda::pipeline<cuda::thread_scope_block> pipe = cuda::make_pipeline(block, &state);
        for (unsigned c = 0, f = 0; c < K; c++) {
            for (; f < K && f < c + S; f++) {
                pipe.producer_acquire();
                (void)cuda::memcpy_async(block, sh[f % S], src + tile_of(f) * T4, cuda::aligned_size_t<16>(T4 * 16),
                                         pipe);
                pipe.producer_commit();
            }
            pipe.consumer_wait();
            s += sum_tile(sh[c % S], T4, t, THREADS);
            pipe.consumer_release();
        }
    }
    block_total(s, part);
#endif
}

// Partitioned (Guide 10.28.2): half the threads produce (each copies its
// 4 x 16 bytes of a tile), half consume (sum the tile). BY_WARP: even warps
// produce; else even threads (the Guide's split: every warp holds both
// roles, diverged).
template <int S, bool BY_WARP>
__global__ void __launch_bounds__(THREADS) k_ppart(const uint4 *src, unsigned nk, uint32_t *part)
{
#if ASY_SM80
    __shared__ __align__(128) uint4 sh[S][T4];
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, S> state;
    cg::thread_block block = cg::this_thread_block();
    const unsigned t = threadIdx.x, K = my_tiles(nk);
    const bool producer = BY_WARP ? (t / 32) % 2 == 0 : t % 2 == 0;
    const unsigned i = BY_WARP ? t / 64 * 32 + t % 32 : t / 2; // index among the 128 of its role
    constexpr unsigned HALF = THREADS / 2;
    uint32_t s = 0;
    {
        const cuda::pipeline_role role = producer ? cuda::pipeline_role::producer : cuda::pipeline_role::consumer;
        cuda::pipeline<cuda::thread_scope_block> pipe = cuda::make_pipeline(block, &state, role);
        if (producer) {
            for (unsigned k = 0; k < K; k++) {
                const uint4 *g = src + tile_of(k) * T4;
                pipe.producer_acquire();
#pragma unroll
                for (unsigned u = 0; u < T4 / HALF; u++)
                    (void)cuda::memcpy_async(&sh[k % S][i + u * HALF], g + i + u * HALF, cuda::aligned_size_t<16>(16),
                                             pipe);
                pipe.producer_commit();
            }
        } else {
            for (unsigned k = 0; k < K; k++) {
                pipe.consumer_wait();
                s += sum_tile(sh[k % S], T4, i, HALF);
                pipe.consumer_release();
            }
        }
    }
    block_total(s, part);
#endif
}

// <cuda_pipeline.h>'s primitives: __pipeline_memcpy_async (16 bytes a
// call), __pipeline_commit, __pipeline_wait_prior.
template <int S> __global__ void __launch_bounds__(THREADS) k_prim(const uint4 *src, unsigned nk, uint32_t *part)
{
#if ASY_SM80
    __shared__ __align__(128) uint4 sh[S][T4];
    const unsigned t = threadIdx.x, K = my_tiles(nk);
    uint32_t s = 0;
    for (unsigned k = 0; k < K + S - 1; k++) {
        if (k < K) {
            const uint4 *g = src + tile_of(k) * T4;
#pragma unroll
            for (unsigned u = 0; u < T4 / THREADS; u++)
                __pipeline_memcpy_async(&sh[k % S][t + u * THREADS], g + t + u * THREADS, 16);
        }
        __pipeline_commit();
        if (k + 1 >= (unsigned)S) {
            __pipeline_wait_prior(S - 1);
            __syncthreads();
            s += sum_tile(sh[(k - (S - 1)) % S], T4, t, THREADS);
            __syncthreads();
        }
    }
    block_total(s, part);
#endif
}

// Raw PTX: cp.async.cg.shared.global 16 bytes, cp.async.commit_group,
// cp.async.wait_group S - 1 (what the three above compile to at best).
template <int S> __global__ void __launch_bounds__(THREADS) k_raw(const uint4 *src, unsigned nk, uint32_t *part)
{
#if ASY_SM80
    __shared__ __align__(128) uint4 sh[S][T4];
    const unsigned t = threadIdx.x, K = my_tiles(nk);
    uint32_t s = 0;
    for (unsigned k = 0; k < K + S - 1; k++) {
        if (k < K) {
            const uint4 *g = src + tile_of(k) * T4;
#pragma unroll
            for (unsigned u = 0; u < T4 / THREADS; u++) cp_async16(&sh[k % S][t + u * THREADS], g + t + u * THREADS);
        }
        cp_commit();
        if (k + 1 >= (unsigned)S) {
            cp_wait<S - 1>();
            __syncthreads();
            s += sum_tile(sh[(k - (S - 1)) % S], T4, t, THREADS);
            __syncthreads();
        }
    }
    block_total(s, part);
#endif
}

// The roof: the same sums straight from global memory (16-byte loads, no
// shared memory, nothing to wait for but the loads).
__global__ void __launch_bounds__(THREADS) k_direct(const uint4 *src, unsigned nk, uint32_t *part)
{
    const unsigned t = threadIdx.x, K = my_tiles(nk);
    uint32_t s = 0;
    for (unsigned k = 0; k < K; k++) {
        const uint4 *g = src + tile_of(k) * T4;
        uint4 r[T4 / THREADS];
#pragma unroll
        for (unsigned u = 0; u < T4 / THREADS; u++) r[u] = g[t + u * THREADS];
#pragma unroll
        for (unsigned u = 0; u < T4 / THREADS; u++) s += sum4<false>(r[u], t + u * THREADS);
    }
    block_total(s, part);
}

cupat_status baseline_row(Run &X, Stream &S, int which)
{
    const uint32_t *sums = nullptr;
    CUPAT_TRY(stream_sums(X, S, 0, 0, &sums));
    const char *name = which == BASE_DIRECT     ? "direct 16-byte loads, no shared memory (the roof)"
                       : which == BASE_REGSTAGE ? "register staging, 16-byte loads, 1 stage"
                                                : "raw cp.async.cg 16 B, 4 stages";
    const void *fn = which == BASE_DIRECT     ? (const void *)k_direct
                     : which == BASE_REGSTAGE ? (const void *)k_cc<M_REG16>
                                              : (const void *)k_raw<4>;
    lab_row *r = add(X, "%s", name);
    return std_row(X, S, r, fn, 0, 1, sums, S.d);
}

cupat_status exp_pipeline(Run &X)
{
    Stream S;
    CUPAT_TRY(stream_make(X, S));
    const uint32_t *sums = nullptr;
    CUPAT_TRY(stream_sums(X, S, 0, 0, &sums));
    const CcCase cases[] = {
        {"pipeline<thread>, 1 stage (Guide 10.28.1)", (const void *)k_pthread<1>},
        {"pipeline<thread> + __syncthreads, 4 stages", (const void *)k_pthread<4>},
        {"pipeline<block>, shared state, 2 stages", (const void *)k_pblock<2>},
        {"pipeline<block>, shared state, 3 stages", (const void *)k_pblock<3>},
        {"pipeline<block>, shared state, 4 stages", (const void *)k_pblock<4>},
        {"partitioned, even warps produce, 4 stages", (const void *)k_ppart<4, true>},
        {"partitioned, even threads produce, 4 stages", (const void *)k_ppart<4, false>},
        {"primitives __pipeline_*, 1 stage", (const void *)k_prim<1>},
        {"primitives __pipeline_*, 4 stages", (const void *)k_prim<4>},
        {"raw cp.async.cg 16 B, 1 stage", (const void *)k_raw<1>},
        {"raw cp.async.cg 16 B, 2 stages", (const void *)k_raw<2>},
        {"raw cp.async.cg 16 B, 4 stages", (const void *)k_raw<4>},
    };
    for (const CcCase &c : cases) {
        lab_row *r = add(X, "%s", c.what);
        CUPAT_TRY(std_row(X, S, r, c.fn, 0, 1, sums, S.d));
        lab_row_note(r, "8 KiB stages, 16-byte copies");
    }
    CUPAT_TRY(baseline_row(X, S, BASE_REGSTAGE));
    return baseline_row(X, S, BASE_DIRECT);
}

} // namespace cupat_async
