// SPDX-License-Identifier: Apache-2.0
// exec_warps.cu — kernels of `cupat lab exec` about warps and blocks:
// divergence (PCCP 3.2's three kernels, long branches, a 32-way switch),
// partial warps, how a 3D block forms warps, where blocks run (%smid), and
// the cost of __syncthreads. The branches are written inline on purpose: the
// lesson is the branch.
#include "exec/exec.h"
#include "exec/exec_work.h"

#include "cupat_warp.cuh"
#include "internal.h"
#include "lab_sreg.cuh"

namespace {

using cupat_dev::lane_id;

// ---- divergence ----------------------------------------------------------

// PCCP 3.2 (the notes' goodPractice, the book's mathKernel2): the branch
// granularity is a whole warp, so no warp diverges.
__global__ void k_div_warp(uint32_t *c)
{
    const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    float a = 0.0f, b = 0.0f;
    if ((tid / warpSize) % 2 == 0) a = 100.0f;
    else b = 200.0f;
    c[tid] = __float_as_uint(a + b);
}

// mathKernel1 (doesNotDivergeThanksToCompilerOptimizations): even and odd
// lanes differ, but each body is one move, so the compiler predicates it
// (SEL / FSEL, no branch): branch efficiency 100%.
__global__ void k_div_pred(uint32_t *c)
{
    const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    float a = 0.0f, b = 0.0f;
    if (tid % 2 == 0) a = 100.0f;
    else b = 200.0f;
    c[tid] = __float_as_uint(a + b);
}

// mathKernel3 (willCertainlyDiverge): the condition in a variable and two
// separate ifs. At -O3 the compiler may still predicate bodies this short:
// ncu's branch efficiency says what it did.
__global__ void k_div_split(uint32_t *c)
{
    const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    float a = 0.0f, b = 0.0f;
    const bool pred = tid % 2 == 0;
    if (pred) a = 100.0f;
    if (!pred) b = 200.0f;
    c[tid] = __float_as_uint(a + b);
}

// Long bodies cannot be predicated: a diverged warp runs both loops, one
// after the other, with half its lanes masked off in each.
template <bool WARP> __global__ void k_div_long(uint32_t *c, int iters)
{
    const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    const bool even = WARP ? (tid / warpSize) % 2 == 0 : tid % 2 == 0;
    uint32_t x = exec_seed(tid);
    if (even) x = exec_lcg(x, iters);
    else x = exec_xorshift(x, iters);
    c[tid] = x;
}

// PMPP 4.5's "up to 32x": 32 different paths. Chosen per warp, every warp
// runs one; chosen per lane, every warp runs all 32, one lane each.
template <int P> __device__ __noinline__ uint32_t way(uint32_t x, int iters)
{
    constexpr unsigned r = P % 31 + 1;
    constexpr uint32_t k = 0x9E3779B9u * (P + 1);
    for (int i = 0; i < iters; i++) x = ((x << r) | (x >> (32u - r))) + (x ^ k);
    return x;
}

template <bool WARP> __global__ void k_div_way32(uint32_t *c, int iters)
{
    const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned p = WARP ? (tid / warpSize) % 32 : tid % 32;
    uint32_t x = exec_seed(tid);
    switch (p) {
#define WAY(n) \
    case n: x = way<n>(x, iters); break;
        WAY(0) WAY(1) WAY(2) WAY(3) WAY(4) WAY(5) WAY(6) WAY(7) WAY(8) WAY(9) WAY(10) WAY(11) WAY(12) WAY(13)
        WAY(14) WAY(15) WAY(16) WAY(17) WAY(18) WAY(19) WAY(20) WAY(21) WAY(22) WAY(23) WAY(24) WAY(25)
        WAY(26) WAY(27) WAY(28) WAY(29) WAY(30) WAY(31)
#undef WAY
    }
    c[tid] = x;
}

struct div_args {
    int k;
    unsigned n;
    int iters;
    uint32_t *out;
};

cupat_status div_launch(cupat_ctx *ctx, void *p)
{
    const div_args *a = (const div_args *)p;
    const unsigned B = 256, G = a->n / B;
    switch (a->k) {
    case LAB_DIV_WARP: k_div_warp<<<G, B, 0, ctx->stream>>>(a->out); break;
    case LAB_DIV_PRED: k_div_pred<<<G, B, 0, ctx->stream>>>(a->out); break;
    case LAB_DIV_SPLIT: k_div_split<<<G, B, 0, ctx->stream>>>(a->out); break;
    case LAB_DIV_LONG_WARP: k_div_long<true><<<G, B, 0, ctx->stream>>>(a->out, a->iters); break;
    case LAB_DIV_LONG_ODD: k_div_long<false><<<G, B, 0, ctx->stream>>>(a->out, a->iters); break;
    case LAB_DIV_WAY32_WARP: k_div_way32<true><<<G, B, 0, ctx->stream>>>(a->out, a->iters); break;
    case LAB_DIV_WAY32_LANE: k_div_way32<false><<<G, B, 0, ctx->stream>>>(a->out, a->iters); break;
    default: return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab exec: divergence kernel %d", a->k);
    }
    return cupat__launched(ctx, "k_div");
}

// ---- partial warps -------------------------------------------------------

__global__ void k_partial(uint32_t *out, uint32_t *active, int iters)
{
    const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    active[tid] = __popc(__activemask()); // straight-line code: the whole (partial) warp
    out[tid] = exec_lcg(exec_seed(tid), iters);
}

struct partial_args {
    int threads;
    unsigned blocks;
    int iters;
    uint32_t *out, *active;
};

cupat_status partial_launch(cupat_ctx *ctx, void *p)
{
    const partial_args *a = (const partial_args *)p;
    k_partial<<<a->blocks, a->threads, 0, ctx->stream>>>(a->out, a->active, a->iters);
    return cupat__launched(ctx, "k_partial");
}

// ---- warp formation --------------------------------------------------------

// d[3 t + 0] = %laneid, d[3 t + 1] = the linear index that lane 0 of this
// thread's warp holds (a shuffle: threads that share it share a warp),
// d[3 t + 2] = lanes in __activemask().
__global__ void k_warp_map(uint32_t *d)
{
    const unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    const unsigned m = __activemask();
    const unsigned leader_lane = __ffs(m) - 1;
    d[3 * t + 0] = lane_id();
    d[3 * t + 1] = __shfl_sync(m, t, leader_lane);
    d[3 * t + 2] = __popc(m);
}

// ---- placement ---------------------------------------------------------------

using cupat_lab::globaltimer;
using cupat_lab::nsmid;
using cupat_lab::smid;

// ticket[0] is the start counter; ticket[1 + b] the order block b started.
__global__ void k_place(uint32_t *sm, uint32_t *ticket, unsigned spin_ns, uint32_t *ns)
{
    if (threadIdx.x == 0) {
        sm[blockIdx.x] = smid();
        ticket[1 + blockIdx.x] = atomicAdd(&ticket[0], 1u);
        if (blockIdx.x == 0) *ns = nsmid();
    }
    const unsigned long long t0 = globaltimer();
    while (globaltimer() - t0 < spin_ns) {
    }
}

// ---- __syncthreads ------------------------------------------------------------

// Thread 0 of each block times `iters` x 8 barriers with clock64.
__global__ void k_barrier(unsigned long long *cycles, int iters)
{
    __syncthreads();
    const long long t0 = clock64();
    for (int i = 0; i < iters; i++) {
        __syncthreads(); __syncthreads(); __syncthreads(); __syncthreads();
        __syncthreads(); __syncthreads(); __syncthreads(); __syncthreads();
    }
    const long long t1 = clock64();
    if (threadIdx.x == 0) cycles[blockIdx.x] = (unsigned long long)(t1 - t0);
}

} // namespace

extern "C" cupat_status cupat__lab_exec_div(cupat_ctx *ctx, int k, unsigned n, int iters, int reps, uint32_t *d_out,
                                            float *times)
{
    div_args a = {k, n, iters, d_out};
    return cupat__lab_exec_time(ctx, reps, div_launch, &a, times);
}

extern "C" cupat_status cupat__lab_exec_partial(cupat_ctx *ctx, int threads, unsigned blocks, int iters, int reps,
                                                uint32_t *d_out, uint32_t *d_active, float *times, int *resident)
{
    CUPAT_CUDA_TRY(ctx, cudaOccupancyMaxActiveBlocksPerMultiprocessor(resident, k_partial, threads, 0));
    partial_args a = {threads, blocks, iters, d_out, d_active};
    return cupat__lab_exec_time(ctx, reps, partial_launch, &a, times);
}

extern "C" cupat_status cupat__lab_exec_warp_map(cupat_ctx *ctx, int bx, int by, int bz, uint32_t *d)
{
    k_warp_map<<<1, dim3(bx, by, bz), 0, ctx->stream>>>(d);
    return cupat__launched(ctx, "k_warp_map");
}

extern "C" cupat_status cupat__lab_exec_place(cupat_ctx *ctx, unsigned blocks, int threads, unsigned spin_ns,
                                              uint32_t *d_smid, uint32_t *d_ticket, int *nsm)
{
    // d_ticket: 1 + blocks counters, then one word for %nsmid
    CUPAT_CUDA_TRY(ctx, cudaMemsetAsync(d_ticket, 0, sizeof(uint32_t) * (2 + (size_t)blocks), ctx->stream));
    k_place<<<blocks, threads, 0, ctx->stream>>>(d_smid, d_ticket, spin_ns, d_ticket + 1 + blocks);
    CUPAT_TRY(cupat__launched(ctx, "k_place"));
    uint32_t ns = 0;
    CUPAT_CUDA_TRY(ctx, cudaMemcpyAsync(&ns, d_ticket + 1 + blocks, sizeof ns, cudaMemcpyDeviceToHost, ctx->stream));
    CUPAT_CUDA_TRY(ctx, cudaStreamSynchronize(ctx->stream));
    *nsm = (int)ns;
    return CUPAT_SUCCESS;
}

extern "C" cupat_status cupat__lab_exec_barrier(cupat_ctx *ctx, int threads, unsigned blocks, int iters,
                                                unsigned long long *d_cycles, int *resident)
{
    CUPAT_CUDA_TRY(ctx, cudaOccupancyMaxActiveBlocksPerMultiprocessor(resident, k_barrier, threads, 0));
    k_barrier<<<blocks, threads, 0, ctx->stream>>>(d_cycles, iters);
    return cupat__launched(ctx, "k_barrier");
}
