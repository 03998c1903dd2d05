// SPDX-License-Identifier: Apache-2.0
// reduce.cu — the CUDA reduction ladder, rung by rung, and its launchers.
//
// Rungs 0-14 follow PCCP 3.4-3.5, 5.3 and 5.6 (and the lecture / PMPP 10),
// templated over element type and operation; each writes one partial per
// block and a second, fixed-order pass (k_acc) finishes on the GPU. Rungs
// 15-17 (dynamic parallelism) live in reduce_cdp.cu. Rungs 18-22 go beyond
// the books: 16-byte loads, persistent grid, single-pass finishes. Every
// rung is deterministic: fixed grid, fixed per-thread order, fixed trees.
#include "reduce_ops.cuh"

extern "C" {
#include "internal.h"
#include "reduce_priv.h"
}

#include <atomic>
#include <ctime>
#include <mutex>

using namespace cupat_red;

namespace {

constexpr int B3 = 512; // PCCP 3.4-3.5 run with 512-thread blocks
constexpr int B5 = 128; // PCCP 5.3 / 5.6: DIM = 128
constexpr int BS = 256; // streaming rungs (18-22) and the final pass
constexpr int US = 4;   // 16-byte loads in flight per thread per iteration

// ============================================================ book rungs ==

// Rung 0 — neighbored pairs (PCCP 3.4 reduceNeighbored; the lecture's first
// kernel; PMPP 10.3): stride doubles, the thread with tid % (2*stride) == 0
// adds its neighbour. Active threads are spread over every warp, so each
// warp diverges at every level. In place in global memory, like the book —
// except that level 1 reads the (const) input and writes the work copy.
template <class R, typename T>
__global__ void k_neighbored(const T *__restrict__ x, size_t n, typename R::Acc *work,
                             typename R::Acc *part)
{
    typedef typename R::Acc Acc;
    const unsigned tid = threadIdx.x;
    const size_t base = (size_t)blockIdx.x * blockDim.x;
    Acc *idata = work + base;
    if (tid % 2 == 0) idata[tid] = R::comb(ld<R>(x, n, base + tid), ld<R>(x, n, base + tid + 1));
    __syncthreads();
    for (unsigned stride = 2; stride < blockDim.x; stride *= 2) {
        if (tid % (2 * stride) == 0) idata[tid] = R::comb(idata[tid], idata[tid + stride]);
        __syncthreads();
    }
    if (tid == 0) part[blockIdx.x] = idata[0];
}

// Rung 1 — neighbored, less divergence (reduceNeighboredLess): thread tid
// works on index 2*stride*tid, so the active threads are the first ones and
// whole warps retire instead of diverging.
template <class R, typename T>
__global__ void k_neighbored_less(const T *__restrict__ x, size_t n, typename R::Acc *work,
                                  typename R::Acc *part)
{
    typedef typename R::Acc Acc;
    const unsigned tid = threadIdx.x;
    const size_t base = (size_t)blockIdx.x * blockDim.x;
    Acc *idata = work + base;
    unsigned index = 2 * tid;
    if (index < blockDim.x)
        idata[index] = R::comb(ld<R>(x, n, base + index), ld<R>(x, n, base + index + 1));
    __syncthreads();
    for (unsigned stride = 2; stride < blockDim.x; stride *= 2) {
        index = 2 * stride * tid;
        if (index < blockDim.x) idata[index] = R::comb(idata[index], idata[index + stride]);
        __syncthreads();
    }
    if (tid == 0) part[blockIdx.x] = idata[0];
}

// Rung 2 — interleaved pairs (reduceInterleaved; PMPP 10.4's convergent
// kernel; the lecture's second kernel): the stride starts at blockDim/2 and
// halves; active threads are contiguous and their accesses coalesce.
template <class R, typename T>
__global__ void k_interleaved(const T *__restrict__ x, size_t n, typename R::Acc *work,
                              typename R::Acc *part)
{
    typedef typename R::Acc Acc;
    const unsigned tid = threadIdx.x;
    const size_t base = (size_t)blockIdx.x * blockDim.x;
    Acc *idata = work + base;
    const unsigned half = blockDim.x / 2;
    if (tid < half) idata[tid] = R::comb(ld<R>(x, n, base + tid), ld<R>(x, n, base + tid + half));
    __syncthreads();
    for (unsigned stride = half / 2; stride > 0; stride >>= 1) {
        if (tid < stride) idata[tid] = R::comb(idata[tid], idata[tid + stride]);
        __syncthreads();
    }
    if (tid == 0) part[blockIdx.x] = idata[0];
}

// K data blocks per thread block: thread tid adds element tid of each
// (cyclic partitioning), loads first so all K are in flight, then left to
// right as the book writes a1 + a2 + ... .
template <class R, typename T, int K>
__device__ __forceinline__ typename R::Acc unrolled_load(const T *__restrict__ x, size_t n,
                                                         size_t idx, unsigned stride)
{
    typedef typename R::Acc Acc;
    Acc v[K];
#pragma unroll
    for (int k = 0; k < K; k++) v[k] = ld<R>(x, n, idx + (size_t)k * stride);
    Acc a = v[0];
#pragma unroll
    for (int k = 1; k < K; k++) a = R::comb(a, v[k]);
    return a;
}

// Rungs 3-5 — unrolling 2, 4, 8 (reduceUnrolling2/4/8, PCCP 3.5): each block
// first folds K data blocks into one, so the grid is K times smaller and K
// loads per thread are in flight; then the interleaved tree.
template <class R, typename T, int K>
__global__ void k_unroll(const T *__restrict__ x, size_t n, typename R::Acc *work,
                         typename R::Acc *part)
{
    typedef typename R::Acc Acc;
    const unsigned tid = threadIdx.x;
    const size_t idx = (size_t)blockIdx.x * blockDim.x * K + tid;
    Acc *idata = work + (size_t)blockIdx.x * blockDim.x;
    idata[tid] = unrolled_load<R, T, K>(x, n, idx, blockDim.x);
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (tid < stride) idata[tid] = R::comb(idata[tid], idata[tid + stride]);
        __syncthreads();
    }
    if (tid == 0) part[blockIdx.x] = idata[0];
}

// The last six levels inside one warp, on memory d[0..64). The book's
// volatile idiom assumed the warp runs in lockstep; with independent thread
// scheduling (Volta and later) it is a race. Correct form: every lane reads,
// __syncwarp, the low lanes write, __syncwarp (which also orders memory
// among the warp's lanes).
template <class R, typename P> __device__ __forceinline__ void warp_fold_mem(P d, unsigned tid)
{
    typedef typename R::Acc Acc;
    Acc v = d[tid];
#pragma unroll
    for (unsigned h = 32; h >= 1; h >>= 1) {
        Acc o = d[tid + h];
        __syncwarp();
        v = R::comb(v, o);
        if (tid < h) d[tid] = v;
        __syncwarp();
    }
}

// Rung 6 — unrolled last warp (reduceUnrollWarps8): unroll8, the block loop
// stops at stride 64, the last warp runs without __syncthreads.
template <class R, typename T>
__global__ void k_unroll_warps8(const T *__restrict__ x, size_t n, typename R::Acc *work,
                                typename R::Acc *part)
{
    typedef typename R::Acc Acc;
    const unsigned tid = threadIdx.x;
    const size_t idx = (size_t)blockIdx.x * blockDim.x * 8 + tid;
    Acc *idata = work + (size_t)blockIdx.x * blockDim.x;
    idata[tid] = unrolled_load<R, T, 8>(x, n, idx, blockDim.x);
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 32; stride >>= 1) {
        if (tid < stride) idata[tid] = R::comb(idata[tid], idata[tid + stride]);
        __syncthreads();
    }
    if (tid < 32) warp_fold_mem<R>(idata, tid);
    if (tid == 0) part[blockIdx.x] = idata[0];
}

// Rung 7 — complete unrolling (reduceCompleteUnrollWarps8): blockDim is at
// most 1024, so the block loop becomes four tests on blockDim.
template <class R, typename T>
__global__ void k_complete_unroll8(const T *__restrict__ x, size_t n, typename R::Acc *work,
                                   typename R::Acc *part)
{
    typedef typename R::Acc Acc;
    const unsigned tid = threadIdx.x;
    const size_t idx = (size_t)blockIdx.x * blockDim.x * 8 + tid;
    Acc *idata = work + (size_t)blockIdx.x * blockDim.x;
    idata[tid] = unrolled_load<R, T, 8>(x, n, idx, blockDim.x);
    __syncthreads();
    if (blockDim.x >= 1024 && tid < 512) idata[tid] = R::comb(idata[tid], idata[tid + 512]);
    __syncthreads();
    if (blockDim.x >= 512 && tid < 256) idata[tid] = R::comb(idata[tid], idata[tid + 256]);
    __syncthreads();
    if (blockDim.x >= 256 && tid < 128) idata[tid] = R::comb(idata[tid], idata[tid + 128]);
    __syncthreads();
    if (blockDim.x >= 128 && tid < 64) idata[tid] = R::comb(idata[tid], idata[tid + 64]);
    __syncthreads();
    if (tid < 32) warp_fold_mem<R>(idata, tid);
    if (tid == 0) part[blockIdx.x] = idata[0];
}

// Rung 8 — block size as a template parameter (reduceCompleteUnroll<iBlockSize>):
// the tests are on a constant, so the compiler drops the dead levels.
template <class R, typename T, unsigned IBS>
__global__ void __launch_bounds__(IBS) k_template_unroll8(const T *__restrict__ x, size_t n,
                                                          typename R::Acc *work,
                                                          typename R::Acc *part)
{
    typedef typename R::Acc Acc;
    const unsigned tid = threadIdx.x;
    const size_t idx = (size_t)blockIdx.x * IBS * 8 + tid;
    Acc *idata = work + (size_t)blockIdx.x * IBS;
    idata[tid] = unrolled_load<R, T, 8>(x, n, idx, IBS);
    __syncthreads();
    if (IBS >= 1024 && tid < 512) idata[tid] = R::comb(idata[tid], idata[tid + 512]);
    __syncthreads();
    if (IBS >= 512 && tid < 256) idata[tid] = R::comb(idata[tid], idata[tid + 256]);
    __syncthreads();
    if (IBS >= 256 && tid < 128) idata[tid] = R::comb(idata[tid], idata[tid + 128]);
    __syncthreads();
    if (IBS >= 128 && tid < 64) idata[tid] = R::comb(idata[tid], idata[tid + 64]);
    __syncthreads();
    if (tid < 32) warp_fold_mem<R>(idata, tid);
    if (tid == 0) part[blockIdx.x] = idata[0];
}

// One level of the unrolled tree of 5.3: fold d[0, 2h) into d[0, h). The
// top level (h == blockDim/2) reads the input instead of d.
template <class R, typename T, typename P>
__device__ __forceinline__ void fold_level(P d, const T *__restrict__ x, size_t n, size_t base,
                                           unsigned tid, unsigned h)
{
    if (h == blockDim.x / 2)
        d[tid] = R::comb(ld<R>(x, n, base + tid), ld<R>(x, n, base + tid + h));
    else
        d[tid] = R::comb(d[tid], d[tid + h]);
}

// Rung 9 — global memory baseline of 5.3 (reduceGmem): one data block per
// thread block, complete unrolling, in place in global memory (DIM 128).
template <class R, typename T>
__global__ void k_gmem(const T *__restrict__ x, size_t n, typename R::Acc *work, typename R::Acc *part)
{
    typedef typename R::Acc Acc;
    const unsigned tid = threadIdx.x;
    const size_t base = (size_t)blockIdx.x * blockDim.x;
    Acc *idata = work + base;
    if (blockDim.x >= 1024 && tid < 512) fold_level<R>(idata, x, n, base, tid, 512);
    __syncthreads();
    if (blockDim.x >= 512 && tid < 256) fold_level<R>(idata, x, n, base, tid, 256);
    __syncthreads();
    if (blockDim.x >= 256 && tid < 128) fold_level<R>(idata, x, n, base, tid, 128);
    __syncthreads();
    if (blockDim.x >= 128 && tid < 64) fold_level<R>(idata, x, n, base, tid, 64);
    __syncthreads();
    if (tid < 32) warp_fold_mem<R>(idata, tid);
    if (tid == 0) part[blockIdx.x] = idata[0];
}

// Shared-memory tree of 5.3 on smem[0, blockDim), then the last warp.
template <class R, typename P> __device__ __forceinline__ void smem_tree(P smem, unsigned tid)
{
    if (blockDim.x >= 1024 && tid < 512) smem[tid] = R::comb(smem[tid], smem[tid + 512]);
    __syncthreads();
    if (blockDim.x >= 512 && tid < 256) smem[tid] = R::comb(smem[tid], smem[tid + 256]);
    __syncthreads();
    if (blockDim.x >= 256 && tid < 128) smem[tid] = R::comb(smem[tid], smem[tid + 128]);
    __syncthreads();
    if (blockDim.x >= 128 && tid < 64) smem[tid] = R::comb(smem[tid], smem[tid + 64]);
    __syncthreads();
    if (tid < 32) warp_fold_mem<R>(smem, tid);
}

// Rung 10 — shared memory (reduceSmem): the block's data is loaded once into
// a static __shared__ array and folded there; global memory is read once.
template <class R, typename T>
__global__ void __launch_bounds__(B5) k_smem(const T *__restrict__ x, size_t n, typename R::Acc *part)
{
    typedef typename R::Acc Acc;
    __shared__ Acc smem[B5];
    const unsigned tid = threadIdx.x;
    smem[tid] = ld<R>(x, n, (size_t)blockIdx.x * blockDim.x + tid);
    __syncthreads();
    smem_tree<R>(smem, tid);
    if (tid == 0) part[blockIdx.x] = smem[0];
}

// Rung 11 — dynamic shared memory (reduceSmemDyn): the same with an extern
// array sized at launch (the lecture's "Dynamic Shared Memory").
template <class R, typename T>
__global__ void k_smem_dyn(const T *__restrict__ x, size_t n, typename R::Acc *part)
{
    typedef typename R::Acc Acc;
    extern __shared__ __align__(16) unsigned char dsm[];
    Acc *smem = reinterpret_cast<Acc *>(dsm);
    const unsigned tid = threadIdx.x;
    smem[tid] = ld<R>(x, n, (size_t)blockIdx.x * blockDim.x + tid);
    __syncthreads();
    smem_tree<R>(smem, tid);
    if (tid == 0) part[blockIdx.x] = smem[0];
}

// Rung 12 — shared memory with unrolling 4 (reduceSmemUnroll): four data
// blocks per thread block folded while loading, static shared array.
template <class R, typename T>
__global__ void __launch_bounds__(B5) k_smem_unroll4(const T *__restrict__ x, size_t n,
                                                    typename R::Acc *part)
{
    typedef typename R::Acc Acc;
    __shared__ Acc smem[B5];
    const unsigned tid = threadIdx.x;
    smem[tid] = unrolled_load<R, T, 4>(x, n, (size_t)blockIdx.x * blockDim.x * 4 + tid, blockDim.x);
    __syncthreads();
    smem_tree<R>(smem, tid);
    if (tid == 0) part[blockIdx.x] = smem[0];
}

// Rung 13 — the same with dynamic shared memory (reduceSmemUnrollDyn).
template <class R, typename T>
__global__ void k_smem_unroll4_dyn(const T *__restrict__ x, size_t n, typename R::Acc *part)
{
    typedef typename R::Acc Acc;
    extern __shared__ __align__(16) unsigned char dsm[];
    Acc *smem = reinterpret_cast<Acc *>(dsm);
    const unsigned tid = threadIdx.x;
    smem[tid] = unrolled_load<R, T, 4>(x, n, (size_t)blockIdx.x * blockDim.x * 4 + tid, blockDim.x);
    __syncthreads();
    smem_tree<R>(smem, tid);
    if (tid == 0) part[blockIdx.x] = smem[0];
}

// Rung 14 — warp shuffle (PCCP 5.6 reduceSmemUnrollShfl): shared memory down
// to 32 values, then __shfl_xor_sync within the warp: registers only, no
// shared-memory round trips and no barriers for the last five levels.
template <class R, typename T>
__global__ void __launch_bounds__(B5) k_shfl(const T *__restrict__ x, size_t n, typename R::Acc *part)
{
    typedef typename R::Acc Acc;
    __shared__ Acc smem[B5];
    const unsigned tid = threadIdx.x;
    smem[tid] = unrolled_load<R, T, 4>(x, n, (size_t)blockIdx.x * blockDim.x * 4 + tid, blockDim.x);
    __syncthreads();
    if (blockDim.x >= 1024 && tid < 512) smem[tid] = R::comb(smem[tid], smem[tid + 512]);
    __syncthreads();
    if (blockDim.x >= 512 && tid < 256) smem[tid] = R::comb(smem[tid], smem[tid + 256]);
    __syncthreads();
    if (blockDim.x >= 256 && tid < 128) smem[tid] = R::comb(smem[tid], smem[tid + 128]);
    __syncthreads();
    if (blockDim.x >= 128 && tid < 64) smem[tid] = R::comb(smem[tid], smem[tid + 64]);
    __syncthreads();
    if (blockDim.x >= 64 && tid < 32) smem[tid] = R::comb(smem[tid], smem[tid + 32]);
    __syncthreads();
    if (tid < 32) {
        Acc v = warp_reduce<R>(smem[tid]);
        if (tid == 0) part[blockIdx.x] = v;
    }
}

// ================================================== beyond the books: 18+ ==

// Per-thread accumulation policies of the streaming kernel. `tile` gets the
// US 16-byte vectors one thread loaded in one iteration; `vec` a vector of
// the partial tile; `one` a head/tail element. y is the second input of dot.
template <int K, typename T> __device__ __forceinline__ T tree_sum(const T *v)
{
    if constexpr (K == 1) return v[0];
    else return tree_sum<K / 2>(v) + tree_sum<K - K / 2>(v + K / 2);
}

// Generic: combine element by element.
template <class R, typename T> struct TaGeneric {
    typename R::Acc a;
    __device__ void init() { a = R::identity(); }
    __device__ void one(T v, T, u64 i) { a = R::comb(a, R::lift(v, i)); }
    template <int N> __device__ void vec(const T (&v)[N], const T (&)[N], u64 i0)
    {
#pragma unroll
        for (int j = 0; j < N; j++) one(v[j], v[j], i0 + j);
    }
    template <int U, int N> __device__ void tile(const T (&v)[U][N], const T (&w)[U][N], const u64 (&i0)[U])
    {
#pragma unroll
        for (int u = 0; u < U; u++) vec(v[u], w[u], i0[u]);
    }
    __device__ typename R::Acc get() { return a; }
};

// Float sum, pairwise in registers: the U*N values of an iteration are added
// as a balanced tree (depth log2(U*N)) before the running sum: 16x fewer
// rounding steps on each element's path than a plain loop, at no cost.
template <typename T> struct TaSumTree {
    T a;
    __device__ void init() { a = -T(0); }
    __device__ void one(T v, T, u64) { a += v; }
    template <int N> __device__ void vec(const T (&v)[N], const T (&)[N], u64)
    {
        a += tree_sum<N>(v);
    }
    template <int U, int N> __device__ void tile(const T (&v)[U][N], const T (&)[U][N], const u64 (&)[U])
    {
        a += tree_sum<U * N>(&v[0][0]);
    }
    __device__ T get() { return a; }
};

// Compensated sum: TwoSum on every addition, errors summed apart (the
// Neumaier/Kahan idea, branch-free). 7 flops per element, hidden under the loads.
template <typename T> struct TaSumComp {
    T s, c;
    __device__ void init() { s = -T(0); c = -T(0); }
    __device__ void one(T v, T, u64)
    {
        T e;
        two_sum(s, v, s, e);
        c += e;
    }
    template <int N> __device__ void vec(const T (&v)[N], const T (&)[N], u64)
    {
#pragma unroll
        for (int j = 0; j < N; j++) one(v[j], v[j], 0);
    }
    template <int U, int N> __device__ void tile(const T (&v)[U][N], const T (&w)[U][N], const u64 (&)[U])
    {
#pragma unroll
        for (int u = 0; u < U; u++) vec(v[u], w[u], 0);
    }
    __device__ Comp<T> get() { return Comp<T>{s, c}; }
};

// Float min/max on order keys (integer max of the sign-folded bits) and the
// largest |bits| seen (> inf means a NaN): 5 integer ops an element, every
// IEEE 754-2019 rule exact. KEYS: get() hands the tree the key itself, a
// NaN's key beyond every number's (MinMaxKeyF); else the float.
template <typename T, bool MAX, bool KEYS = false> struct TaMinMaxKey {
    typedef typename std::conditional<sizeof(T) == 4, int32_t, int64_t>::type K;
    typedef typename std::make_unsigned<K>::type UK;
    static constexpr UK ABS = (UK)~(UK)0 >> 1;
    static constexpr UK INF = sizeof(T) == 4 ? (UK)0x7f800000u : (UK)0x7ff0000000000000ull;
    K k;
    UK nan;
    __device__ void init()
    {
        k = MinMaxKeyF<T, MAX>::identity(); // the key of -inf (max) or +inf (min)
        nan = 0;
    }
    __device__ void one(T v, T, u64)
    {
        K b;
        memcpy(&b, &v, sizeof b);
        K key = b ^ (K)((UK)(b >> (8 * sizeof(K) - 1)) & ABS);
        k = MAX ? (key > k ? key : k) : (key < k ? key : k);
        UK m = (UK)b & ABS;
        nan = m > nan ? m : nan;
    }
    template <int N> __device__ void vec(const T (&v)[N], const T (&)[N], u64)
    {
#pragma unroll
        for (int j = 0; j < N; j++) one(v[j], v[j], 0);
    }
    template <int U, int N> __device__ void tile(const T (&v)[U][N], const T (&w)[U][N], const u64 (&)[U])
    {
#pragma unroll
        for (int u = 0; u < U; u++) vec(v[u], w[u], 0);
    }
    __device__ auto get()
    {
        if constexpr (KEYS) return nan > INF ? MinMaxKeyF<T, MAX>::NANKEY : k;
        else return get_value();
    }
    __device__ T get_value()
    {
        return nan > INF ? qnan(T(0)) : okey_value(k);
    }
};

// Dot: products fused into the first level of the tree
// (fma(x0, y0, x1*y1)), then pairwise as TaSumTree.
template <typename T> struct TaDot {
    T a;
    __device__ void init() { a = -T(0); }
    __device__ void one(T v, T w, u64) { a = fma(v, w, a); }
    template <int N> __device__ void vec(const T (&v)[N], const T (&w)[N], u64)
    {
#pragma unroll
        for (int j = 0; j < N; j++) a = fma(v[j], w[j], a);
    }
    template <int U, int N> __device__ void tile(const T (&v)[U][N], const T (&w)[U][N], const u64 (&)[U])
    {
        constexpr int M = U * N;
        const T *p = &v[0][0], *q = &w[0][0];
        if constexpr (M == 1) {
            a = fma(p[0], q[0], a);
        } else {
            T s[M / 2];
#pragma unroll
            for (int j = 0; j < M / 2; j++) s[j] = fma(p[2 * j], q[2 * j], p[2 * j + 1] * q[2 * j + 1]);
            a += tree_sum<M / 2>(s);
        }
    }
    __device__ T get() { return a; }
};

__device__ __forceinline__ float mul_rn(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ double mul_rn(double a, double b) { return __dmul_rn(a, b); }

// Compensated dot (Dot2, Ogita-Rump-Oishi 2005): the product error from an
// FMA, the sum error from TwoSum, both summed apart: as if computed in twice
// the working precision.
template <typename T> struct TaDotComp {
    T s, c;
    __device__ void init() { s = -T(0); c = -T(0); }
    __device__ void one(T v, T w, u64)
    {
        T p = mul_rn(v, w); // never contracted into the add below
        T pe = fma(v, w, -p);
        T e;
        two_sum(s, p, s, e);
        c += pe + e;
    }
    template <int N> __device__ void vec(const T (&v)[N], const T (&w)[N], u64)
    {
#pragma unroll
        for (int j = 0; j < N; j++) one(v[j], w[j], 0);
    }
    template <int U, int N> __device__ void tile(const T (&v)[U][N], const T (&w)[U][N], const u64 (&)[U])
    {
#pragma unroll
        for (int u = 0; u < U; u++) vec(v[u], w[u], 0);
    }
    __device__ Comp<T> get() { return Comp<T>{s, c}; }
};

// Float argmin/argmax on order keys. A NaN's key lies beyond every number's
// (ArgOp: a NaN beats every number), and tile() and vec() see a thread's
// elements in increasing index order, so a strict compare keeps the first of
// equal keys: the smaller index, without comparing indices. one() (the head
// and tail elements, out of that order) takes ArgOp's full combine. The
// winner's own bits are kept (a NaN's payload, -0 vs +0), as ArgOp keeps them.
template <typename T, bool MAX> struct TaArgKey {
    typedef ArgOp<T, MAX> O;
    typedef typename O::Acc Acc;
    typedef decltype(okey(T(0))) K;
    static constexpr K KMAX = std::numeric_limits<K>::max(), KMIN = std::numeric_limits<K>::min();
    K best;
    Acc a;
    // okey's order, a NaN's key beyond every number's on the winning side
    __device__ static K key(T v) { return nan_key<T, MAX>(v); }
    __device__ void init()
    {
        a = O::identity(); // index ~0: no element yet
        best = MAX ? KMIN : KMAX;
    }
    __device__ void elem(T v, u64 i)
    {
        const K k = key(v);
        if (MAX ? k > best : k < best) {
            best = k;
            a.v = v;
            a.i = i;
        }
    }
    __device__ void one(T v, T, u64 i)
    {
        a = O::comb(a, O::lift(v, i));
        best = a.i == ~0ull ? (MAX ? KMIN : KMAX) : key(a.v);
    }
    template <int N> __device__ void vec(const T (&v)[N], const T (&)[N], u64 i0)
    {
#pragma unroll
        for (int j = 0; j < N; j++) elem(v[j], i0 + j);
    }
    template <int U, int N> __device__ void tile(const T (&v)[U][N], const T (&)[U][N], const u64 (&i0)[U])
    {
#pragma unroll
        for (int u = 0; u < U; u++)
#pragma unroll
            for (int j = 0; j < N; j++) elem(v[u][j], i0[u] + j);
    }
    __device__ Acc get() { return a; }
};

// f32 argmin/argmax below 2^32 elements on (key, index) words (ArgPackF32):
// each element one 64-bit compare, a tile's elements a tree of them (the
// order of combines does not matter: the order is total).
template <bool MAX> struct TaArgPack {
    typedef ArgPackF32<MAX> O;
    typedef u64 Acc;
    Acc a;
    template <int K> __device__ static Acc fold(Acc (&p)[K])
    {
#pragma unroll
        for (int s = 1; s < K; s *= 2)
#pragma unroll
            for (int j = 0; j + s < K; j += 2 * s) p[j] = O::comb(p[j], p[j + s]);
        return p[0];
    }
    __device__ void init() { a = O::identity(); }
    __device__ void one(float v, float, u64 i) { a = O::comb(a, O::lift(v, i)); }
    template <int N> __device__ void vec(const float (&v)[N], const float (&)[N], u64 i0)
    {
        Acc p[N];
#pragma unroll
        for (int j = 0; j < N; j++) p[j] = O::lift(v[j], i0 + j);
        a = O::comb(a, fold(p));
    }
    template <int U, int N>
    __device__ void tile(const float (&v)[U][N], const float (&)[U][N], const u64 (&i0)[U])
    {
        Acc p[U * N];
#pragma unroll
        for (int u = 0; u < U; u++)
#pragma unroll
            for (int j = 0; j < N; j++) p[u * N + j] = O::lift(v[u][j], i0[u] + j);
        a = O::comb(a, fold(p));
    }
    __device__ Acc get() { return a; }
};

// Which policy a (type, op) uses in the streaming kernel.
template <typename T, int OP, int DOT> struct TaSel {
    typedef TaGeneric<Red<T, OP>, T> type;
};
template <> struct TaSel<float, OP_SUM, 0> { typedef TaSumTree<float> type; };
template <> struct TaSel<double, OP_SUM, 0> { typedef TaSumTree<double> type; };
template <> struct TaSel<float, OP_SUMC, 0> { typedef TaSumComp<float> type; };
template <> struct TaSel<double, OP_SUMC, 0> { typedef TaSumComp<double> type; };
template <> struct TaSel<float, OP_MIN, 0> { typedef TaMinMaxKey<float, false> type; };
template <> struct TaSel<float, OP_MAX, 0> { typedef TaMinMaxKey<float, true> type; };
template <> struct TaSel<double, OP_MIN, 0> { typedef TaMinMaxKey<double, false> type; };
template <> struct TaSel<double, OP_MAX, 0> { typedef TaMinMaxKey<double, true> type; };
template <> struct TaSel<float, OP_ARGMIN, 0> { typedef TaArgKey<float, false> type; };
template <> struct TaSel<float, OP_ARGMAX, 0> { typedef TaArgKey<float, true> type; };
template <> struct TaSel<double, OP_ARGMIN, 0> { typedef TaArgKey<double, false> type; };
template <> struct TaSel<double, OP_ARGMAX, 0> { typedef TaArgKey<double, true> type; };
template <typename T> struct TaSel<T, OP_MIN_K, 0> { typedef TaMinMaxKey<T, false, true> type; };
template <typename T> struct TaSel<T, OP_MAX_K, 0> { typedef TaMinMaxKey<T, true, true> type; };
template <> struct TaSel<float, OP_ARGMIN_P, 0> { typedef TaArgPack<false> type; };
template <> struct TaSel<float, OP_ARGMAX_P, 0> { typedef TaArgPack<true> type; };
template <typename T> struct TaSel<T, OP_SUM, 1> { typedef TaDot<T> type; };
template <typename T> struct TaSel<T, OP_SUMC, 1> { typedef TaDotComp<T> type; };

// NV elements per load: 16 bytes (LDG.E.128) or, for a dot whose inputs
// are misaligned with each other, 1.
template <typename T, int NV> __device__ __forceinline__ void ldv(const T *p, T (&v)[NV])
{
    if constexpr (NV * sizeof(T) == 16) {
        int4 q = __ldg(reinterpret_cast<const int4 *>(p));
        memcpy(v, &q, 16);
    } else {
#pragma unroll
        for (int j = 0; j < NV; j++) v[j] = __ldg(p + j);
    }
}

// Rungs 18-22 — the streaming kernel. A tile is BS*US vectors; tile t goes
// to block t % G (grid-stride, G blocks), each thread loading US vectors
// before using any (several 16-byte loads in flight). The partial tile, the
// `head` elements before the first 16-byte boundary and the tail go to one
// fixed block. Then the block tree and the grid finish FIN.
template <class R, class TA, typename T, int NV, int FIN, bool DOT>
__global__ void __launch_bounds__(BS) k_stream(const T *__restrict__ x, const T *__restrict__ y,
                                               size_t n, size_t head, size_t nvec,
                                               GridScratch<typename R::Acc> g, void *out)
{
    constexpr size_t TILE = (size_t)BS * US;
    const size_t full = nvec / TILE;
    const T *xb = x + head;
    const T *yb = DOT ? y + head : x + head;
    TA ta;
    ta.init();
    for (size_t t = blockIdx.x; t < full; t += gridDim.x) {
        T v[US][NV], w[US][NV];
        u64 i0[US];
#pragma unroll
        for (int u = 0; u < US; u++) {
            const size_t vi = t * TILE + (size_t)u * BS + threadIdx.x;
            ldv<T, NV>(xb + vi * NV, v[u]);
            if (DOT) ldv<T, NV>(yb + vi * NV, w[u]);
            i0[u] = head + vi * NV;
        }
        if (!DOT) {
#pragma unroll
            for (int u = 0; u < US; u++)
#pragma unroll
                for (int j = 0; j < NV; j++) w[u][j] = v[u][j];
        }
        ta.tile(v, w, i0);
    }
    if (blockIdx.x == full % gridDim.x) {
#pragma unroll
        for (int u = 0; u < US; u++) {
            const size_t vi = full * TILE + (size_t)u * BS + threadIdx.x;
            if (vi < nvec) {
                T v[NV], w[NV];
                ldv<T, NV>(xb + vi * NV, v);
                if (DOT) ldv<T, NV>(yb + vi * NV, w);
                else
#pragma unroll
                    for (int j = 0; j < NV; j++) w[j] = v[j];
                ta.vec(v, w, head + vi * NV);
            }
        }
        if (threadIdx.x < head) ta.one(x[threadIdx.x], DOT ? y[threadIdx.x] : T(0), threadIdx.x);
        const size_t tail0 = head + nvec * NV;
        if (tail0 + threadIdx.x < n)
            ta.one(x[tail0 + threadIdx.x], DOT ? y[tail0 + threadIdx.x] : T(0), tail0 + threadIdx.x);
    }
    typename R::Acc a = block_reduce<R, BS>(ta.get());
    grid_finish<R, BS, FIN>(a, g, out);
}

// 16-byte load with a cache hint. HINT 0: ld.global.nc (__ldg). HINT 1:
// ld.global.nc.L1::no_allocate.L2::256B: no L1 line for data read once, and
// the L2 asked to fetch the whole 256-byte block around the miss (the
// neighbouring sectors of this warp's 512-byte access arrive in one DRAM
// request instead of several).
template <typename T, int NV, int HINT> __device__ __forceinline__ void ldv_hint(const T *p, T (&v)[NV])
{
    if constexpr (HINT == 1 && NV * sizeof(T) == 16) {
        int4 q;
        asm("ld.global.nc.L1::no_allocate.L2::256B.v4.s32 {%0, %1, %2, %3}, [%4];"
            : "=r"(q.x), "=r"(q.y), "=r"(q.z), "=r"(q.w)
            : "l"(p));
        memcpy(v, &q, 16);
    } else {
        ldv<T, NV>(p, v);
    }
}

// Rung `even_share` — block-contiguous even share (CUB's GridEvenShare). The
// nvec vectors are cut into G contiguous ranges whose lengths differ by at
// most one vector; block b streams range b with BSZ threads, UL 16-byte
// loads in flight per thread per iteration, and retires. G is one tile per
// block (sub = 0, as vec16, up to BSZ x half the resident slots) or sub x
// SMs x resident: blocks retire and new ones start in index order, so the
// addresses in flight stay a narrow window, and the work is balanced to one
// vector. One kernel: the two-level decoupled finish (grid_finish_2level)
// costs four L2 round trips after the last tile whatever G is (level 1: one
// partial a thread; level 2: at most slots / 2 groups, K = 4 loads a thread
// in one round trip). Block 0 also
// takes the elements before the first 16-byte boundary and the tail.
// Registers: with 4-byte accumulators and 4 loads in flight the kernel fits
// in 32 registers a thread, the budget of a full SM (2048 threads), without
// spilling (ptxas, sm_90); the launch bounds keep the finish from raising
// it. 8 loads need 59 (f32 sum): half the blocks per SM, the same bytes in
// flight. Wider accumulators (f64, argmin/argmax) are left unbounded, as in
// k_stream, rather than spill.
template <class R, class TA, typename T, int NV, int BSZ, int UL, int HINT>
__global__ void __launch_bounds__(BSZ, (UL == 4 && sizeof(typename R::Acc) <= 4) ? 2048 / BSZ : 1)
    k_even(const T *__restrict__ x, size_t n, size_t head,
                                              size_t nvec, GridScratch<typename R::Acc> g,
                                              GridScratch<typename R::Acc> g2, void *out)
{
    constexpr size_t TILE = (size_t)BSZ * UL;
    const size_t G = gridDim.x, b = blockIdx.x;
    const size_t per = nvec / G, rem = nvec % G;
    const size_t v0 = b * per + (b < rem ? b : rem);
    const size_t len = per + (b < rem ? 1 : 0);
    const T *xb = x + head + v0 * NV;
    TA ta;
    ta.init();
    size_t t = 0;
    for (; t + TILE <= len; t += TILE) {
        T v[UL][NV];
        u64 i0[UL];
#pragma unroll
        for (int u = 0; u < UL; u++) {
            const size_t k = t + (size_t)u * BSZ + threadIdx.x;
            ldv_hint<T, NV, HINT>(xb + k * NV, v[u]);
            i0[u] = head + (v0 + k) * NV;
        }
        ta.tile(v, v, i0);
    }
    if (t < len) { // the rest of the range, less than a tile
        // Every load issued before any add (clamped into the range, so none
        // is conditional), then only the vectors in range are added.
        T v[UL][NV];
#pragma unroll
        for (int u = 0; u < UL; u++) {
            const size_t k = t + (size_t)u * BSZ + threadIdx.x;
            ldv_hint<T, NV, HINT>(xb + (k < len ? k : len - 1) * NV, v[u]);
        }
#pragma unroll
        for (int u = 0; u < UL; u++) {
            const size_t k = t + (size_t)u * BSZ + threadIdx.x;
            if (k < len) ta.vec(v[u], v[u], head + (v0 + k) * NV);
        }
    }
    if (b == 0) {
        if (threadIdx.x < head) ta.one(x[threadIdx.x], T(0), threadIdx.x);
        const size_t tail0 = head + nvec * NV;
        if (tail0 + threadIdx.x < n) ta.one(x[tail0 + threadIdx.x], T(0), tail0 + threadIdx.x);
    }
    typename R::Acc a = block_reduce<R, BSZ>(ta.get());
    grid_finish_2level<R, BSZ, 4>(a, g, g2, out);
}

// The second pass of the multi-pass rungs: reduce `count` accumulators in a
// fixed order (grid-stride, then the decoupled finish).
template <class R>
__global__ void __launch_bounds__(BS) k_acc(const typename R::Acc *__restrict__ in, size_t count,
                                            GridScratch<typename R::Acc> g, void *out)
{
    typedef typename R::Acc Acc;
    Acc a = R::identity();
    for (size_t i = (size_t)blockIdx.x * BS + threadIdx.x; i < count; i += (size_t)gridDim.x * BS)
        a = R::comb(a, in[i]);
    a = block_reduce<R, BS>(a);
    grid_finish<R, BS, FIN_DECOUPLED>(a, g, out);
}

// n == 0: the identity, as the host computed it.
struct Bytes32 {
    unsigned char b[32];
};
__global__ void k_identity(Bytes32 v, unsigned bytes, void *out)
{
    if (threadIdx.x < bytes) ((unsigned char *)out)[threadIdx.x] = v.b[threadIdx.x];
}

// ============================================================== host side ==

// A fresh 64-bit epoch per decoupled launch: flags left by earlier calls (or
// by other users of the scratch pool) never match it.
u64 next_epoch()
{
    static std::atomic<u64> counter{0};
    static const u64 seed = (u64)time(nullptr) * 0x9E3779B97F4A7C15ull ^ (u64)(uintptr_t)&counter;
    u64 z = seed + 0x9E3779B97F4A7C15ull * (counter.fetch_add(1) + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return z ? z : 1;
}

size_t align_up(size_t v, size_t a) { return (v + a - 1) / a * a; }
size_t cdiv(size_t a, size_t b) { return (a + b - 1) / b; }
unsigned clog2(size_t k)
{
    unsigned d = 0;
    while (((size_t)1 << d) < k) d++;
    return d;
}

// Resident blocks per SM of a kernel, asked once per (kernel, device) and
// kept: the persistent grids are sized from it.
int resident_per_sm(cupat_ctx *ctx, const void *kernel, int block, size_t smem)
{
    static std::mutex mu;
    static struct {
        const void *k;
        int dev, v;
    } tab[1024];
    static int ntab;
    std::lock_guard<std::mutex> lock(mu);
    for (int i = 0; i < ntab; i++)
        if (tab[i].k == kernel && tab[i].dev == ctx->device) return tab[i].v;
    int nb = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, kernel, block, smem) != cudaSuccess ||
        nb < 1) {
        (void)cudaGetLastError();
        nb = 1;
    }
    if (ntab < 1024) tab[ntab++] = {kernel, ctx->device, nb};
    return nb;
}

// Grid of the streaming kernel: one block per tile, or (persistent) at most
// what the device holds at once, SMs x resident blocks per SM.
template <typename T, int OPX, int FIN, int NV, int DOT>
size_t stream_blocks(cupat_ctx *ctx, size_t nvec, bool persistent)
{
    typedef Red<T, OPX> RR;
    typedef typename TaSel<T, OPX, DOT>::type TA;
    size_t tiles = cdiv(nvec, (size_t)BS * US);
    if (tiles < 1) tiles = 1;
    if (!persistent) return tiles;
    size_t res = (size_t)ctx->sm_count *
                 resident_per_sm(ctx, (const void *)k_stream<RR, TA, T, NV, FIN, DOT != 0>, BS, 0);
    return tiles < res ? tiles : res;
}
// Grid of k_acc over `count` accumulators.
template <class RR> size_t acc_blocks(cupat_ctx *ctx, size_t count)
{
    size_t res = (size_t)ctx->sm_count * resident_per_sm(ctx, (const void *)k_acc<RR>, BS, 0);
    size_t g = cdiv(count, BS);
    return g < 1 ? 1 : g < res ? g : res;
}

// ------------------------------------------------------- even_share --
// Compile-time defaults (cmake -DCMAKE_CUDA_FLAGS=-DCUPAT_REDUCE_EVEN_SUB=4 ...),
// and a process-wide override for the bench's sweep (reduce_priv.h).
#ifndef CUPAT_REDUCE_EVEN_SUB
#define CUPAT_REDUCE_EVEN_SUB 0
#endif
#ifndef CUPAT_REDUCE_EVEN_LOADS
#define CUPAT_REDUCE_EVEN_LOADS 4
#endif
#ifndef CUPAT_REDUCE_EVEN_BLOCK
#define CUPAT_REDUCE_EVEN_BLOCK 256
#endif
#ifndef CUPAT_REDUCE_EVEN_HINT
#define CUPAT_REDUCE_EVEN_HINT 0
#endif
static_assert(CUPAT_REDUCE_EVEN_LOADS == 4 || CUPAT_REDUCE_EVEN_LOADS == 8, "loads: 4 or 8");
static_assert(CUPAT_REDUCE_EVEN_BLOCK == 256 || CUPAT_REDUCE_EVEN_BLOCK == 512, "block: 256 or 512");
static_assert(CUPAT_REDUCE_EVEN_HINT == 0 || CUPAT_REDUCE_EVEN_HINT == 1, "hint: 0 or 1");
static_assert(CUPAT_REDUCE_EVEN_SUB >= 0 && CUPAT_REDUCE_EVEN_SUB <= 64, "sub: 0..64");

std::atomic<int> even_sub{CUPAT_REDUCE_EVEN_SUB}, even_loads{CUPAT_REDUCE_EVEN_LOADS},
    even_block{CUPAT_REDUCE_EVEN_BLOCK}, even_hint{CUPAT_REDUCE_EVEN_HINT};

reduce_even_cfg even_cfg()
{
    return reduce_even_cfg{even_sub.load(), even_loads.load(), even_block.load(), even_hint.load()};
}

// The kernel, grid and summation depth of one even_share configuration.
template <typename T, int OP, int BSZ, int UL, int HINT> struct Even {
    typedef Red<T, OP> R;
    typedef typename TaSel<T, OP, 0>::type TA;
    static constexpr int NV = 16 / sizeof(T);
    static constexpr size_t TILE = (size_t)BSZ * UL;
    static const void *kernel() { return (const void *)k_even<R, TA, T, NV, BSZ, UL, HINT>; }
    // sub = 0: one tile per block; the two-level finish needs fewer waiting
    // leaders (G / BSZ) than block slots, so G <= BSZ x half the slots.
    // Whole tiles, rounded down: every range then holds at least one full
    // tile (the loop, all loads in flight), and the vectors past the last
    // whole tile spread evenly over the ranges.
    static size_t grid(cupat_ctx *ctx, size_t nvec, int sub)
    {
        size_t tiles = nvec / TILE;
        if (tiles < 1) tiles = 1;
        size_t slots = (size_t)ctx->sm_count * resident_per_sm(ctx, kernel(), BSZ, 0);
        size_t cap = (size_t)BSZ * (slots / 2 > 0 ? slots / 2 : 1);
        if (sub > 0 && (size_t)sub * slots < cap) cap = (size_t)sub * slots;
        return tiles < cap ? tiles : cap;
    }
    // Full tiles of the longest range, one add each; the tile's tree; the
    // partial tile (UL adds); head and tail; block tree; the finish (a group
    // of at most BSZ partials, one a thread, and its tree; then the groups).
    // The head (0 .. NV-1 elements, alignment) changes nvec: take the deeper.
    static size_t depth_nvec(cupat_ctx *ctx, size_t nvec, int sub)
    {
        size_t G = grid(ctx, nvec, sub);
        size_t longest = cdiv(nvec, G);
        size_t d = longest / TILE + clog2(UL * NV) + UL + 2 + clog2(BSZ);
        if (G > 1) d += 1 + clog2(BSZ);
        size_t groups = cdiv(G, BSZ);
        if (groups > 1) d += cdiv(groups, BSZ) + clog2(BSZ);
        return d;
    }
    static size_t depth(cupat_ctx *ctx, size_t n, int sub)
    {
        size_t hi = n / NV, lo = n >= (size_t)(NV - 1) ? (n - (NV - 1)) / NV : 0;
        size_t a = depth_nvec(ctx, hi, sub), b = depth_nvec(ctx, lo, sub);
        return a > b ? a : b;
    }
};

// The bench sweeps loads/block/hint only where it measures: f32 sum, i32 sum,
// f32 max. Elsewhere the compiled-in configuration runs.
template <typename T, int OP> constexpr bool even_tunable()
{
    return (std::is_same<T, float>::value && (OP == OP_SUM || OP == OP_MAX)) ||
           (std::is_same<T, int32_t>::value && OP == OP_SUM);
}

// Calls F::template go<BSZ, UL, HINT>(args...) for the configuration c.
#define EVEN_DISPATCH(T, OP, c, CALL)                                                           \
    do {                                                                                       \
        if constexpr (even_tunable<T, OP>()) {                                                 \
            int key_ = ((c).loads == 8) * 4 + ((c).block == 512) * 2 + ((c).hint == 1);        \
            switch (key_) {                                                                    \
            case 0: CALL(256, 4, 0);                                                           \
            case 1: CALL(256, 4, 1);                                                           \
            case 2: CALL(512, 4, 0);                                                           \
            case 3: CALL(512, 4, 1);                                                           \
            case 4: CALL(256, 8, 0);                                                           \
            case 5: CALL(256, 8, 1);                                                           \
            case 6: CALL(512, 8, 0);                                                           \
            default: CALL(512, 8, 1);                                                          \
            }                                                                                  \
        } else {                                                                               \
            CALL(CUPAT_REDUCE_EVEN_BLOCK, CUPAT_REDUCE_EVEN_LOADS, CUPAT_REDUCE_EVEN_HINT);    \
        }                                                                                      \
    } while (0)

// A fresh scratch pool is zeroed once, so that the first poll of an epoch
// flag reads written memory (compute-sanitizer initcheck). cupat__scratch
// clears ctx->scratch_zeroed whenever it allocates, so this follows the pool
// itself: a pool freed and handed back at the same address (cudaFreeAsync
// then cudaMallocAsync), or the pool of a context copy that lives at the
// address of an earlier one (the streaming lanes), is zeroed again. (A table
// keyed by (ctx, pool, size) missed exactly those: 384 initcheck errors in
// test_streams.)
bool pool_needs_zero(cupat_ctx *ctx)
{
    if (ctx->scratch_zeroed) return false;
    ctx->scratch_zeroed = 1;
    return true;
}

// Scratch header (offset 0 of every call's scratch).
constexpr size_t HDR_ERR = 16, HDR_TICKET = 20;

// Scratch carved into aligned regions.
struct Carve {
    size_t off = 0;
    size_t take(size_t bytes) { size_t o = off; off = align_up(off + bytes, 256); return o; }
};

// The single-pass rungs' trees on integer keys: float min/max on order
// keys (MinMaxKeyF), f32 argmin/argmax below 2^32 elements on packed
// (key, index) words (ArgPackF32); other calls on op OP itself. Apart from
// Run: only its reduce paths name these, and as members of Run every dot
// instantiation (DOT = 1) drew nvcc's warning #177 ("declared but never
// referenced") for each; this struct is instantiated only where one is used.
template <typename T, int OP, int DOT> struct KeyForm {
    static constexpr bool FLT = std::is_floating_point<T>::value && !DOT;
    static constexpr bool PACKS = std::is_same<T, float>::value && !DOT && (OP == OP_ARGMIN || OP == OP_ARGMAX);
    static constexpr int OPP = !PACKS ? OP : OP == OP_ARGMIN ? OP_ARGMIN_P : OP_ARGMAX_P;
    static constexpr int OPK = !FLT ? OP : OP == OP_MIN ? OP_MIN_K : OP == OP_MAX ? OP_MAX_K : OPP;
};

// Everything one call needs, worked out before the single cupat__scratch.
template <typename T, int OP, int DOT> struct Run {
    typedef Red<T, OP> R;
    typedef typename R::Acc Acc;
    cupat_ctx *ctx;
    const reduce_req *r;
    const T *x, *y;
    size_t n;
    void *out; // device result
    unsigned char *scr = nullptr;
    int *err = nullptr;
    unsigned *ticket = nullptr;

    cupat_status launched(const char *k) { return cupat__launched(ctx, k); }

    unsigned acc_grid(size_t count) { return (unsigned)acc_blocks<R>(ctx, count); }
    cupat_status finish_acc(const Acc *part, size_t count, Acc *part2, u64 *flags)
    {
        unsigned g = acc_grid(count);
        GridScratch<Acc> gs{part2, flags, nullptr, next_epoch()};
        k_acc<R><<<g, BS, 0, ctx->stream>>>(part, count, gs, out);
        return launched("k_acc (final pass)");
    }

    // Streaming geometry.
    template <int NV> void geometry(size_t &head, size_t &nvec)
    {
        head = 0;
        if (NV > 1) {
            uintptr_t a = (uintptr_t)x;
            head = ((16 - (a & 15)) & 15) / sizeof(T);
            if (head > n) head = n;
        }
        nvec = (n - head) / NV;
    }
    // Rungs 18-22.
    template <int NV, int OPX, int FIN> cupat_status stream(bool persistent)
    {
        typedef Red<T, OPX> RR;
        typedef typename RR::Acc AccX;
        typedef typename TaSel<T, OPX, DOT>::type TA;
        size_t head, nvec;
        geometry<NV>(head, nvec);
        unsigned G = (unsigned)stream_blocks<T, OPX, FIN, NV, DOT>(ctx, nvec, persistent);
        // scratch: header | flags(G) | partials(G) | pass-2 flags | pass-2 partials
        Carve c;
        size_t o_hdr = c.take(64);
        size_t o_flags = c.take((size_t)G * 8);
        size_t o_part = c.take((size_t)G * sizeof(AccX));
        unsigned G2 = FIN == FIN_PARTIALS ? (unsigned)acc_blocks<RR>(ctx, G) : 0;
        size_t o_flags2 = c.take((size_t)G2 * 8);
        size_t o_part2 = c.take((size_t)G2 * sizeof(AccX));
        CUPAT_TRY(alloc(c.off, o_hdr));
        AccX *part = (AccX *)(scr + o_part);
        GridScratch<AccX> gs{part, (u64 *)(scr + o_flags), ticket, next_epoch(), x};
        if (FIN == FIN_LAST_BLOCK)
            CUPAT_CUDA_TRY(ctx, cudaMemsetAsync(ticket, 0, sizeof *ticket, ctx->stream));
        k_stream<RR, TA, T, NV, FIN, DOT != 0><<<G, BS, 0, ctx->stream>>>(x, y, n, head, nvec, gs, out);
        CUPAT_TRY(launched("k_stream"));
        if (FIN != FIN_PARTIALS || G == 1) return CUPAT_SUCCESS;
        GridScratch<AccX> gs2{(AccX *)(scr + o_part2), (u64 *)(scr + o_flags2), nullptr, next_epoch()};
        k_acc<RR><<<G2, BS, 0, ctx->stream>>>(part, G, gs2, out);
        return launched("k_acc (final pass)");
    }
    typedef KeyForm<T, OP, DOT> KF;
    bool packs() const { return KF::PACKS && n <= 0xffffffffull; }
    cupat_status decoupled()
    {
        if constexpr (KF::OPK == OP_MIN_K || KF::OPK == OP_MAX_K)
            return stream<16 / sizeof(T), KF::OPK, FIN_DECOUPLED>(true);
        if constexpr (KF::PACKS)
            if (packs()) return stream<16 / sizeof(T), KF::OPP, FIN_DECOUPLED>(true);
        return stream<16 / sizeof(T), OP, FIN_DECOUPLED>(true);
    }

    // Rung even_share in configuration (BSZ, UL, HINT), on op OPX.
    template <int BSZ, int UL, int HINT, int OPX = OP> cupat_status even_t(int sub)
    {
        typedef Even<T, OPX, BSZ, UL, HINT> E;
        typedef typename E::R::Acc Acc;
        size_t head, nvec;
        geometry<E::NV>(head, nvec);
        unsigned G = (unsigned)E::grid(ctx, nvec, sub);
        unsigned groups = (unsigned)cdiv(G, BSZ);
        Carve c;
        size_t o_hdr = c.take(64);
        size_t o_flags = c.take((size_t)G * 8);
        size_t o_part = c.take((size_t)G * sizeof(Acc));
        size_t o_flags2 = c.take((size_t)groups * 8);
        size_t o_part2 = c.take((size_t)groups * sizeof(Acc));
        CUPAT_TRY(alloc(c.off, o_hdr));
        const u64 epoch = next_epoch();
        GridScratch<Acc> g1{(Acc *)(scr + o_part), (u64 *)(scr + o_flags), nullptr, epoch, x};
        GridScratch<Acc> g2{(Acc *)(scr + o_part2), (u64 *)(scr + o_flags2), nullptr, epoch, x};
        k_even<typename E::R, typename E::TA, T, E::NV, BSZ, UL, HINT><<<G, BSZ, 0, ctx->stream>>>(x, n, head, nvec, g1, g2, out);
        return launched("k_even");
    }
    cupat_status even()
    {
        if constexpr (DOT) {
            return cupat__fail(ctx, CUPAT_ERROR_INTERNAL, "%s: even_share is not a dot rung", r->fn);
        } else {
            const reduce_even_cfg c = even_cfg();
            if constexpr (KF::PACKS)
                if (packs())
                    return even_t<CUPAT_REDUCE_EVEN_BLOCK, CUPAT_REDUCE_EVEN_LOADS,
                                  CUPAT_REDUCE_EVEN_HINT, KF::OPP>(c.sub);
#define EVEN_RUN(B, U, H) return even_t<B, U, H>(c.sub)
            EVEN_DISPATCH(T, OP, c, EVEN_RUN);
#undef EVEN_RUN
        }
    }

    // One scratch allocation for the whole call; the header holds the
    // host-result slot [0, 16), the CDP error word [16, 20) and the
    // last-block ticket [20, 24).
    cupat_status alloc(size_t bytes, size_t o_hdr)
    {
        void *p = nullptr;
        CUPAT_TRY(cupat__scratch(ctx, bytes, &p));
        scr = (unsigned char *)p;
        if (pool_needs_zero(ctx)) {
            cupat_status zs = cupat__cuda(ctx, cudaMemsetAsync(p, 0, ctx->scratch_bytes, ctx->stream),
                                          "cudaMemsetAsync (scratch)");
            if (zs != CUPAT_SUCCESS) {
                ctx->scratch_zeroed = 0;
                return zs;
            }
        }
        err = (int *)(scr + o_hdr + HDR_ERR);
        ticket = (unsigned *)(scr + o_hdr + HDR_TICKET);
        if (r->out_host) out = scr + o_hdr;
        return CUPAT_SUCCESS;
    }

    // Rungs 0-14: one kernel writes a partial per block, k_acc finishes.
    template <typename K>
    cupat_status book(K kernel, const char *name, unsigned block, unsigned per_block, bool work,
                      size_t dyn_smem)
    {
        size_t G = cdiv(n, (size_t)block * per_block);
        if (G > 0x7fffffffu)
            return cupat__fail(ctx, CUPAT_ERROR_SIZE, "%s: n = %zu needs %zu blocks for rung %s",
                               r->fn, n, G, name);
        unsigned G2 = acc_grid(G);
        Carve c;
        size_t o_hdr = c.take(64);
        size_t o_part = c.take(G * sizeof(Acc));
        size_t o_flags2 = c.take((size_t)G2 * 8);
        size_t o_part2 = c.take((size_t)G2 * sizeof(Acc));
        size_t o_work = c.take(work ? G * block * sizeof(Acc) : 0);
        CUPAT_TRY(alloc(c.off, o_hdr));
        Acc *part = (Acc *)(scr + o_part);
        kernel<<<(unsigned)G, block, dyn_smem, ctx->stream>>>(x, n, (Acc *)(scr + o_work), part);
        CUPAT_TRY(launched(name));
        return finish_acc(part, G, (Acc *)(scr + o_part2), (u64 *)(scr + o_flags2));
    }
    template <typename K>
    cupat_status book_smem(K kernel, const char *name, unsigned block, unsigned per_block,
                           size_t dyn_smem)
    {
        size_t G = cdiv(n, (size_t)block * per_block);
        if (G > 0x7fffffffu)
            return cupat__fail(ctx, CUPAT_ERROR_SIZE, "%s: n = %zu needs %zu blocks for rung %s",
                               r->fn, n, G, name);
        unsigned G2 = acc_grid(G);
        Carve c;
        size_t o_hdr = c.take(64);
        size_t o_part = c.take(G * sizeof(Acc));
        size_t o_flags2 = c.take((size_t)G2 * 8);
        size_t o_part2 = c.take((size_t)G2 * sizeof(Acc));
        CUPAT_TRY(alloc(c.off, o_hdr));
        Acc *part = (Acc *)(scr + o_part);
        kernel<<<(unsigned)G, block, dyn_smem, ctx->stream>>>(x, n, part);
        CUPAT_TRY(launched(name));
        return finish_acc(part, G, (Acc *)(scr + o_part2), (u64 *)(scr + o_flags2));
    }

    cupat_status cdp()
    {
        if (n > CUPAT_REDUCE_CDP_MAX_N)
            return cupat__fail(ctx, CUPAT_ERROR_NOT_SUPPORTED,
                               "%s: n = %zu: the dynamic-parallelism rungs take n <= 2^24 (they "
                               "make ~n/512 x 8 device launches); pin another rung",
                               r->fn, n);
        size_t P = cupat__cdp_partials(n);
        unsigned G2 = acc_grid(P);
        Carve c;
        size_t o_hdr = c.take(64);
        size_t o_part = c.take(P * sizeof(Acc));
        size_t o_flags2 = c.take((size_t)G2 * 8);
        size_t o_part2 = c.take((size_t)G2 * sizeof(Acc));
        size_t o_work = c.take(cupat__cdp_work_bytes(r->rung, r->type, r->op, n));
        CUPAT_TRY(alloc(c.off, o_hdr));
        // The whole [0, HDR_ERR + 4) is copied back for a host result: zero it
        // all (the result slot is written later, by k_acc).
        CUPAT_CUDA_TRY(ctx, cudaMemsetAsync(scr + o_hdr, 0, HDR_ERR + sizeof *err, ctx->stream));
        Acc *part = (Acc *)(scr + o_part);
        CUPAT_TRY(cupat__cdp_launch(ctx, r->rung, r->type, r->op, n, x, scr + o_work, part, err));
        return finish_acc(part, P, (Acc *)(scr + o_part2), (u64 *)(scr + o_flags2));
    }

    cupat_status identity()
    {
        Carve c;
        size_t o_hdr = c.take(64);
        CUPAT_TRY(alloc(c.off, o_hdr));
        Bytes32 v;
        memset(&v, 0, sizeof v);
        cupat__reduce_identity(r->type, r->op, v.b);
        unsigned bytes = (unsigned)cupat__reduce_result_bytes(r->type, r->op);
        k_identity<<<1, 32, 0, ctx->stream>>>(v, bytes, out);
        return launched("k_identity");
    }

    cupat_status go_reduce()
    {
        switch (r->rung) {
        case RR_NEIGHBORED: return book(k_neighbored<R, T>, "k_neighbored", B3, 1, true, 0);
        case RR_NEIGHBORED_LESS:
            return book(k_neighbored_less<R, T>, "k_neighbored_less", B3, 1, true, 0);
        case RR_INTERLEAVED: return book(k_interleaved<R, T>, "k_interleaved", B3, 1, true, 0);
        case RR_UNROLL2: return book(k_unroll<R, T, 2>, "k_unroll<2>", B3, 2, true, 0);
        case RR_UNROLL4: return book(k_unroll<R, T, 4>, "k_unroll<4>", B3, 4, true, 0);
        case RR_UNROLL8: return book(k_unroll<R, T, 8>, "k_unroll<8>", B3, 8, true, 0);
        case RR_UNROLL_WARPS8:
            return book(k_unroll_warps8<R, T>, "k_unroll_warps8", B3, 8, true, 0);
        case RR_COMPLETE_UNROLL8:
            return book(k_complete_unroll8<R, T>, "k_complete_unroll8", B3, 8, true, 0);
        case RR_TEMPLATE_UNROLL8:
            // The book switches over 1024/512/256/128/64; we launch 512 only.
            return book(k_template_unroll8<R, T, B3>, "k_template_unroll8<512>", B3, 8, true, 0);
        case RR_GMEM: return book(k_gmem<R, T>, "k_gmem", B5, 1, true, 0);
        case RR_SMEM: return book_smem(k_smem<R, T>, "k_smem", B5, 1, 0);
        case RR_SMEM_DYN: return book_smem(k_smem_dyn<R, T>, "k_smem_dyn", B5, 1, B5 * sizeof(Acc));
        case RR_SMEM_UNROLL4: return book_smem(k_smem_unroll4<R, T>, "k_smem_unroll4", B5, 4, 0);
        case RR_SMEM_UNROLL4_DYN:
            return book_smem(k_smem_unroll4_dyn<R, T>, "k_smem_unroll4_dyn", B5, 4, B5 * sizeof(Acc));
        case RR_SHFL: return book_smem(k_shfl<R, T>, "k_shfl", B5, 4, 0);
        case RR_CDP_RECURSIVE:
        case RR_CDP_NOSYNC:
        case RR_CDP_RECURSIVE2: return cdp();
        case RR_VEC16: return stream<16 / sizeof(T), OP, FIN_PARTIALS>(false);
        case RR_PERSISTENT: return stream<16 / sizeof(T), OP, FIN_PARTIALS>(true);
        case RR_LAST_BLOCK: return stream<16 / sizeof(T), OP, FIN_LAST_BLOCK>(true);
        case RR_DECOUPLED: return decoupled();
        case RR_EVEN_SHARE: return even();
        case RR_COMPENSATED:
            if constexpr (OP == OP_SUM) return stream<16 / sizeof(T), OP_SUMC, FIN_DECOUPLED>(true);
            else return decoupled();
        }
        return cupat__fail(ctx, CUPAT_ERROR_INTERNAL, "%s: rung %d is not a CUDA reduce rung",
                           r->fn, r->rung);
    }

    cupat_status go_dot()
    {
        // Both inputs must share their offset from a 16-byte boundary for
        // vector loads; otherwise one element per load.
        bool same = (((uintptr_t)x ^ (uintptr_t)y) & 15) == 0;
        switch (r->rung) {
        case DR_SINGLE_PASS:
            return same ? stream<16 / sizeof(T), OP_SUM, FIN_DECOUPLED>(true)
                        : stream<1, OP_SUM, FIN_DECOUPLED>(true);
        case DR_COMPENSATED:
            return same ? stream<16 / sizeof(T), OP_SUMC, FIN_DECOUPLED>(true)
                        : stream<1, OP_SUMC, FIN_DECOUPLED>(true);
        }
        return cupat__fail(ctx, CUPAT_ERROR_INTERNAL, "%s: rung %d is not a CUDA dot rung",
                           r->fn, r->rung);
    }

    cupat_status go()
    {
        if (n == 0) return identity();
        if constexpr (DOT) return go_dot();
        else return go_reduce();
    }
};

template <typename T, int OP, int DOT> cupat_status run(cupat_ctx *ctx, const reduce_req *r)
{
    Run<T, OP, DOT> run;
    run.ctx = ctx;
    run.r = r;
    run.x = (const T *)r->x;
    run.y = (const T *)r->y;
    run.n = r->n;
    run.out = r->out;
    CUPAT_TRY(run.go());
    if (!r->out_host) return CUPAT_SUCCESS;
    // Host result: copy the slot back and wait for this call's work only
    // (an event after the copy, not the whole stream or device).
    // Copy only bytes this call wrote: the result (4, 8 or 16 bytes), and for
    // the CDP rungs the error word (their header is zeroed first).
    const bool cdp = !DOT && r->n > 0 && r->rung >= RR_CDP_RECURSIVE && r->rung <= RR_CDP_RECURSIVE2;
    const size_t rb = cupat__reduce_result_bytes(r->type, r->op);
    unsigned char buf[64];
    memset(buf, 0, sizeof buf);
    CUPAT_CUDA_TRY(ctx, cudaMemcpyAsync(buf, run.scr, cdp ? HDR_ERR + sizeof(int) : rb,
                                        cudaMemcpyDeviceToHost, ctx->stream));
    cudaEvent_t ev;
    CUPAT_CUDA_TRY(ctx, cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
    cudaError_t e = cudaEventRecord(ev, ctx->stream);
    if (e == cudaSuccess) e = cudaEventSynchronize(ev);
    cudaEventDestroy(ev);
    CUPAT_TRY(cupat__cuda(ctx, e, "cudaEventSynchronize (host result)"));
    int derr;
    memcpy(&derr, buf + HDR_ERR, sizeof derr);
    if (cdp && derr != 0)
        return cupat__fail(ctx, CUPAT_ERROR_CUDA, "%s: a device-side launch failed: %s (%s)",
                           r->fn, cudaGetErrorString((cudaError_t)derr),
                           cudaGetErrorName((cudaError_t)derr));
    memcpy(r->out, buf, rb);
    return CUPAT_SUCCESS;
}

template <typename T, int DOT> cupat_status run_op(cupat_ctx *ctx, const reduce_req *r)
{
    switch (r->op) {
    case CUPAT_OP_SUM: return run<T, OP_SUM, DOT>(ctx, r);
    case CUPAT_OP_MIN: if constexpr (!DOT) return run<T, OP_MIN, 0>(ctx, r); break;
    case CUPAT_OP_MAX: if constexpr (!DOT) return run<T, OP_MAX, 0>(ctx, r); break;
    case CUPAT_OP_ARGMIN: if constexpr (!DOT) return run<T, OP_ARGMIN, 0>(ctx, r); break;
    case CUPAT_OP_ARGMAX: if constexpr (!DOT) return run<T, OP_ARGMAX, 0>(ctx, r); break;
    }
    return cupat__fail(ctx, CUPAT_ERROR_INTERNAL, "%s: op %d reached the CUDA launcher", r->fn,
                       (int)r->op);
}

// ------------------------------------------------------- summation depth --

// Depth added by k_acc over P partials: per-thread run, block tree, and the
// last block's run over the k_acc grid plus its tree.
template <class R> size_t acc_depth(cupat_ctx *ctx, size_t P)
{
    if (P <= 1) return 0;
    size_t G2 = acc_blocks<R>(ctx, P);
    size_t d = cdiv(P, G2 * BS) + clog2(BS);
    if (G2 > 1) d += cdiv(G2, BS) + clog2(BS);
    return d;
}
// Streaming kernel: a tile's tree, one add per tile of the thread's run
// (US*NV sequential TwoSums per tile when compensated), the partial-tile
// and head/tail adds, the block tree, then the finish.
template <typename T, int OPX, int FIN, int NV, int DOT>
size_t stream_depth(cupat_ctx *ctx, size_t n, bool persistent)
{
    size_t nvec = n / NV;
    size_t tiles = cdiv(nvec, (size_t)BS * US);
    if (tiles < 1) tiles = 1;
    size_t G = stream_blocks<T, OPX, FIN, NV, DOT>(ctx, nvec, persistent);
    size_t run = cdiv(tiles, G) * (OPX == OP_SUMC ? US * NV : 1);
    size_t d = run + clog2(US * NV) + US + 2 + clog2(BS);
    if (G > 1) d += FIN == FIN_PARTIALS ? acc_depth<Red<T, OPX>>(ctx, G) : cdiv(G, BS) + clog2(BS);
    return d + (DOT ? 1 : 0); // dot: the product's rounding
}

template <typename T, int DOT> size_t depth_t(const cupat_ctx *cctx, int rung, size_t n)
{
    cupat_ctx *ctx = (cupat_ctx *)cctx;
    typedef Red<T, OP_SUM> R;
    constexpr int NV = 16 / sizeof(T);
    if (DOT) {
        // Inputs misaligned with each other load one element at a time: a
        // deeper per-thread run, so that is the bound for both.
        if (rung == DR_COMPENSATED) return stream_depth<T, OP_SUMC, FIN_DECOUPLED, 1, 1>(ctx, n, true);
        return stream_depth<T, OP_SUM, FIN_DECOUPLED, 1, 1>(ctx, n, true);
    }
    switch (rung) {
    case RR_NEIGHBORED:
    case RR_NEIGHBORED_LESS:
    case RR_INTERLEAVED:
    case RR_CDP_RECURSIVE:
    case RR_CDP_NOSYNC:
    case RR_CDP_RECURSIVE2: return clog2(B3) + acc_depth<R>(ctx, cdiv(n, B3));
    case RR_UNROLL2: return 1 + clog2(B3) + acc_depth<R>(ctx, cdiv(n, 2 * B3));
    case RR_UNROLL4: return 3 + clog2(B3) + acc_depth<R>(ctx, cdiv(n, 4 * B3));
    case RR_UNROLL8:
    case RR_UNROLL_WARPS8:
    case RR_COMPLETE_UNROLL8:
    case RR_TEMPLATE_UNROLL8: return 7 + clog2(B3) + acc_depth<R>(ctx, cdiv(n, 8 * B3));
    case RR_GMEM:
    case RR_SMEM:
    case RR_SMEM_DYN: return clog2(B5) + acc_depth<R>(ctx, cdiv(n, B5));
    case RR_SMEM_UNROLL4:
    case RR_SMEM_UNROLL4_DYN:
    case RR_SHFL: return 3 + clog2(B5) + acc_depth<R>(ctx, cdiv(n, 4 * B5));
    case RR_VEC16: return stream_depth<T, OP_SUM, FIN_PARTIALS, NV, 0>(ctx, n, false);
    case RR_PERSISTENT: return stream_depth<T, OP_SUM, FIN_PARTIALS, NV, 0>(ctx, n, true);
    case RR_LAST_BLOCK: return stream_depth<T, OP_SUM, FIN_LAST_BLOCK, NV, 0>(ctx, n, true);
    case RR_DECOUPLED: return stream_depth<T, OP_SUM, FIN_DECOUPLED, NV, 0>(ctx, n, true);
    case RR_EVEN_SHARE: {
        const reduce_even_cfg c = even_cfg();
#define EVEN_DEPTH(B, U, H) return Even<T, OP_SUM, B, U, H>::depth(ctx, n, c.sub)
        EVEN_DISPATCH(T, OP_SUM, c, EVEN_DEPTH);
#undef EVEN_DEPTH
    }
    case RR_COMPENSATED: return stream_depth<T, OP_SUMC, FIN_DECOUPLED, NV, 0>(ctx, n, true);
    }
    return n;
}

} // namespace

extern "C" cupat_status cupat__reduce_cuda(cupat_ctx *ctx, const reduce_req *r)
{
    if (r->dot) {
        switch (r->type) {
        case CUPAT_F32: return run_op<float, 1>(ctx, r);
        case CUPAT_F64: return run_op<double, 1>(ctx, r);
        default: break;
        }
    } else {
        switch (r->type) {
        case CUPAT_F32: return run_op<float, 0>(ctx, r);
        case CUPAT_F64: return run_op<double, 0>(ctx, r);
        case CUPAT_I32: return run_op<int32_t, 0>(ctx, r);
        case CUPAT_U32: return run_op<uint32_t, 0>(ctx, r);
        case CUPAT_I64: return run_op<int64_t, 0>(ctx, r);
        case CUPAT_U64: return run_op<uint64_t, 0>(ctx, r);
        }
    }
    return cupat__fail(ctx, CUPAT_ERROR_INTERNAL, "%s: type %d reached the CUDA launcher", r->fn,
                       (int)r->type);
}

extern "C" int cupat__reduce_even_set(const reduce_even_cfg *cfg)
{
    reduce_even_cfg c = cfg ? *cfg
                            : reduce_even_cfg{CUPAT_REDUCE_EVEN_SUB, CUPAT_REDUCE_EVEN_LOADS,
                                              CUPAT_REDUCE_EVEN_BLOCK, CUPAT_REDUCE_EVEN_HINT};
    if (c.sub < 0 || c.sub > 64 || (c.loads != 4 && c.loads != 8) ||
        (c.block != 256 && c.block != 512) || (c.hint != 0 && c.hint != 1))
        return -1;
    even_sub = c.sub;
    even_loads = c.loads;
    even_block = c.block;
    even_hint = c.hint;
    return 0;
}

extern "C" reduce_even_cfg cupat__reduce_even_get(void) { return even_cfg(); }

extern "C" size_t cupat__reduce_depth_cuda(const cupat_ctx *ctx, int dot, int rung, cupat_type t,
                                           size_t n)
{
    // n == 1: no addition, but a dot product's one product is rounded once
    // (FMA-fused or not), so its depth is 1.
    if (n <= 1) return dot && n == 1 ? 1 : 0;
    if (t == CUPAT_F64) return dot ? depth_t<double, 1>(ctx, rung, n) : depth_t<double, 0>(ctx, rung, n);
    return dot ? depth_t<float, 1>(ctx, rung, n) : depth_t<float, 0>(ctx, rung, n);
}
