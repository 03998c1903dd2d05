// SPDX-License-Identifier: Apache-2.0
// dist_kernels.cu — the elementwise combine of cupat_allreduce_dist
// (out = a op b), on the GPU and on the CPU, with cupat_reduce's operators
// (reduce_ops.cuh on the device, float_order.h's rules on the host), so a
// distributed result has the bits a one-process reduction of the same
// operands in the same order has.
#include "dist/dist_internal.h"
#include "float_order.h"
#include "reduce/reduce_ops.cuh"
#include "sort/sort_device.cuh"
#include "sort/sort_internal.h"

#include <cstdint>
#include <type_traits>

namespace {

using namespace cupat_red;
using cupat_sort_dev::Xf;

template <class T, int OP>
__global__ void k_combine(size_t n, const T *__restrict__ a, const T *__restrict__ b, T *out)
{
    typedef Red<T, OP> R;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        T v;
        R::store(&v, R::comb(R::lift(a[i], 0), R::lift(b[i], 0)));
        out[i] = v;
    }
}

template <class T, int OP>
cupat_status launch(cupat_ctx *ctx, size_t n, const void *a, const void *b, void *out)
{
    // a grid of a few waves: the loop covers the rest (bandwidth-bound)
    const size_t blocks = (n + 255) / 256;
    const unsigned cap = (unsigned)ctx->sm_count * 8;
    k_combine<T, OP><<<(unsigned)(blocks < cap ? blocks : cap), 256, 0, ctx->stream>>>(
        n, static_cast<const T *>(a), static_cast<const T *>(b), static_cast<T *>(out));
    return cupat__launched(ctx, "dist k_combine");
}

template <class T>
cupat_status launch_op(cupat_ctx *ctx, cupat_op op, size_t n, const void *a, const void *b, void *out)
{
    switch (op) {
    case CUPAT_OP_SUM: return launch<T, OP_SUM>(ctx, n, a, b, out);
    case CUPAT_OP_MIN: return launch<T, OP_MIN>(ctx, n, a, b, out);
    default: return launch<T, OP_MAX>(ctx, n, a, b, out);
    }
}

// ----------------------------------------------------------------- push --
// One round of the direct all-reduce (dist_ipc.c says the protocol). Block b
// takes chunks b, b + grid, ... For each it first pushes the next one (x's
// chunk loaded into registers, stored to every peer's inbox slot for this
// rank over NVLink, the chunk's flag raised at each peer), then waits for
// every peer's flag of the current chunk in its own block and combines it
// in rank order: x again at its own rank's turn (local and cheap: the link
// is the bottleneck), the inboxes (local, read past L1) at the others'. The
// push runs one chunk ahead so the link stays busy while a block waits and
// combines. x may be y (in place): x's chunk c is read (pushed) before y's
// chunk c is written, and the combine reads and writes the same elements
// in the same thread.
constexpr int PUSH_THREADS = 512;

__device__ __forceinline__ void st_release_sys(unsigned long long *p, unsigned long long v)
{
    asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ unsigned long long ld_acquire_sys(const unsigned long long *p)
{
    unsigned long long v;
    asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ unsigned long long global_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// V elements a vector (16 bytes, or 1 where x or y is not 16-byte aligned).
template <class T, int V> struct alignas(sizeof(T) * V) PushVec {
    T v[V];
};

// Vector k of this thread in a chunk of m valid elements at p: whole, or
// element by element at the end (the rest zero).
template <class T, int V, bool CG>
__device__ __forceinline__ PushVec<T, V> push_load(const T *p, int e, int m)
{
    PushVec<T, V> r;
    if (e + V <= m) {
        if constexpr (CG && V * sizeof(T) == 16) {
            const uint4 u = __ldcg(reinterpret_cast<const uint4 *>(p + e));
            memcpy(&r, &u, 16);
        } else if constexpr (CG) {
            for (int j = 0; j < V; j++) r.v[j] = __ldcg(p + e + j);
        } else {
            r = *reinterpret_cast<const PushVec<T, V> *>(p + e);
        }
    } else {
        for (int j = 0; j < V; j++) r.v[j] = e + j < m ? (CG ? __ldcg(p + e + j) : p[e + j]) : T();
    }
    return r;
}
template <class T, int V> __device__ __forceinline__ void push_store(T *p, int e, int m, const PushVec<T, V> &v)
{
    if (e + V <= m) *reinterpret_cast<PushVec<T, V> *>(p + e) = v;
    else
        for (int j = 0; j < V && e + j < m; j++) p[e + j] = v.v[j];
}

template <class T, int OP, int V>
__global__ void __launch_bounds__(PUSH_THREADS, 2) k_push(size_t n, const T *x, T *y, dist_push q,
                                                          unsigned long long epoch)
{
    typedef Red<T, OP> R;
    typedef typename R::Acc Acc;
    typedef PushVec<T, V> Vec;
    constexpr int CE = (int)(DIST_IPC_CHUNK / sizeof(T)); // elements a chunk
    constexpr int ITEMS = CE / (V * PUSH_THREADS);         // vectors a thread a chunk
    static_assert(ITEMS * V * PUSH_THREADS == CE, "a chunk is whole vectors of every thread");
    const size_t nch = (n + CE - 1) / CE;
    auto valid = [&](size_t c) { return n - c * CE < (size_t)CE ? (int)(n - c * CE) : CE; };
    auto push = [&](size_t c) {
        const size_t c0 = c * CE;
        const int m = valid(c);
        Vec v[ITEMS];
#pragma unroll
        for (int k = 0; k < ITEMS; k++) v[k] = push_load<T, V, false>(x + c0, (threadIdx.x + k * PUSH_THREADS) * V, m);
        for (int r = 0; r < q.p; r++) {
            if (r == q.me) continue;
            T *to = static_cast<T *>(q.peer_in[r]) + c0;
#pragma unroll
            for (int k = 0; k < ITEMS; k++) push_store<T, V>(to, (threadIdx.x + k * PUSH_THREADS) * V, m, v[k]);
        }
        // every thread's stores before the flags: one thread a peer raises it
        __syncthreads();
        const int r = threadIdx.x;
        if (r < q.p && r != q.me) {
            __threadfence_system();
            st_release_sys(q.peer_flags[r] + c, epoch);
        }
    };
    if (blockIdx.x < nch) push(blockIdx.x);
    for (size_t c = blockIdx.x; c < nch; c += gridDim.x) {
        if (c + gridDim.x < nch) push(c + gridDim.x);
        // every peer's chunk c here (a dead peer: give up after 10 s rather
        // than hold the GPU; the result is then wrong)
        const int r = threadIdx.x;
        if (r < q.p && r != q.me) {
            const unsigned long long *f = q.flags + (size_t)r * DIST_IPC_CHUNKS + c;
            if (ld_acquire_sys(f) < epoch) {
                const unsigned long long t0 = global_ns();
                while (ld_acquire_sys(f) < epoch && global_ns() - t0 < 10000000000ull) {
                }
            }
        }
        __syncthreads();
        const size_t c0 = c * CE;
        const int m = valid(c);
        Acc acc[ITEMS][V];
        for (int s = 0; s < q.p; s++) {
#pragma unroll
            for (int k = 0; k < ITEMS; k++) {
                const int e = (threadIdx.x + k * PUSH_THREADS) * V;
                const Vec b = s == q.me ? push_load<T, V, false>(x + c0, e, m)
                                        : push_load<T, V, true>(static_cast<const T *>(q.in[s]) + c0, e, m);
#pragma unroll
                for (int j = 0; j < V; j++)
                    acc[k][j] = s == 0 ? R::lift(b.v[j], 0) : R::comb(acc[k][j], R::lift(b.v[j], 0));
            }
        }
#pragma unroll
        for (int k = 0; k < ITEMS; k++) {
            Vec out;
#pragma unroll
            for (int j = 0; j < V; j++) R::store(&out.v[j], acc[k][j]);
            push_store<T, V>(y + c0, (threadIdx.x + k * PUSH_THREADS) * V, m, out);
        }
    }
}

template <class T, int OP>
cupat_status launch_push(cupat_ctx *ctx, size_t n, const void *x, void *y, const dist_push &q,
                         unsigned long long epoch, int grid)
{
    constexpr int V = 16 / sizeof(T);
    const bool vec = (uintptr_t)x % 16 == 0 && (uintptr_t)y % 16 == 0;
    if (vec)
        k_push<T, OP, V><<<(unsigned)grid, PUSH_THREADS, 0, ctx->stream>>>(n, static_cast<const T *>(x),
                                                                           static_cast<T *>(y), q, epoch);
    else
        k_push<T, OP, 1><<<(unsigned)grid, PUSH_THREADS, 0, ctx->stream>>>(n, static_cast<const T *>(x),
                                                                           static_cast<T *>(y), q, epoch);
    return cupat__launched(ctx, "dist k_push");
}

template <class T>
cupat_status push_op(cupat_ctx *ctx, cupat_op op, size_t n, const void *x, void *y, const dist_push &q,
                     unsigned long long epoch, int grid)
{
    switch (op) {
    case CUPAT_OP_SUM: return launch_push<T, OP_SUM>(ctx, n, x, y, q, epoch, grid);
    case CUPAT_OP_MIN: return launch_push<T, OP_MIN>(ctx, n, x, y, q, epoch, grid);
    default: return launch_push<T, OP_MAX>(ctx, n, x, y, q, epoch, grid);
    }
}

// ------------------------------------------------------------ partition --
// The sample sort's bucket partition: a block takes a tile of PT_TILE keys;
// pass 1 counts its keys per bucket (warps group the lanes of a bucket,
// one shared atomic a group), pass 2 (after an exclusive scan of
// the counts, bucket-major) writes each key at its bucket's next place for
// the block. Keys compare in the transformed order (Xf::fwd: unsigned order
// = the requested order), against splitters transformed the same way.
constexpr int PT_BLOCK = 256, PT_ITEMS = 16, PT_TILE = PT_BLOCK * PT_ITEMS;

template <class U> struct Splits {
    U s[DIST_MAX_BUCKETS - 1];
    int p;
};

// The bucket of transformed key k: how many splitters come before it.
template <class U> __device__ __forceinline__ int bucket_of(const U *sp, int p, U k)
{
    int lo = 0, hi = p - 1; // first splitter not below k, by binary search
    while (lo < hi) {
        const int mid = (lo + hi) / 2;
        if (sp[mid] < k) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

// A block's tile of keys, strided by the block (coalesced), every load
// issued before any is used (PT_ITEMS in flight a thread); past n zeros.
template <class U> __device__ __forceinline__ void load_tile(const U *keys, size_t n, size_t t0, U (&key)[PT_ITEMS])
{
#pragma unroll
    for (int q = 0; q < PT_ITEMS; q++) {
        const size_t i = t0 + (size_t)q * PT_BLOCK + threadIdx.x;
        key[q] = i < n ? keys[i] : U(0);
    }
}

template <class U, bool SCATTER>
__global__ void __launch_bounds__(PT_BLOCK) k_bucket(const U *__restrict__ keys, size_t n, Xf<U> xf, Splits<U> sp,
                                                     unsigned long long *__restrict__ table, U *__restrict__ out)
{
    __shared__ U ss[DIST_MAX_BUCKETS];
    __shared__ unsigned cnt[DIST_MAX_BUCKETS];
    __shared__ unsigned long long base[DIST_MAX_BUCKETS];
    const int p = sp.p;
    const size_t blocks = gridDim.x;
    for (int i = threadIdx.x; i < p; i += PT_BLOCK) {
        if (i < p - 1) ss[i] = sp.s[i];
        cnt[i] = 0;
        if (SCATTER) base[i] = table[(size_t)i * blocks + blockIdx.x];
    }
    __syncthreads();
    const unsigned lane = threadIdx.x & 31;
    const size_t t0 = (size_t)blockIdx.x * PT_TILE;
    U key[PT_ITEMS];
    load_tile(keys, n, t0, key);
#pragma unroll
    for (int q = 0; q < PT_ITEMS; q++) {
        if (t0 + (size_t)q * PT_BLOCK + threadIdx.x >= n) break;
        const U k = key[q];
        const int b = bucket_of(ss, p, xf.fwd(k));
        // the lanes with the same bucket: a ballot a bucket for few buckets
        // (match_any is a slow instruction: the histogram ladder's
        // warp_aggregated rung measures it), match_any for many
        const unsigned act = __activemask();
        unsigned peers = 0;
        if (p <= 16) {
            for (int c = 0; c < p; c++) {
                const unsigned m = __ballot_sync(act, b == c);
                if (b == c) peers = m;
            }
        } else {
            peers = __match_any_sync(act, b);
        }
        const int leader = __ffs(peers) - 1;
        unsigned at = 0;
        if ((int)lane == leader) at = atomicAdd(&cnt[b], (unsigned)__popc(peers));
        if (SCATTER) {
            at = __shfl_sync(peers, at, leader) + (unsigned)__popc(peers & ((1u << lane) - 1));
            out[base[b] + at] = k;
        }
    }
    if (!SCATTER) {
        __syncthreads();
        for (int i = threadIdx.x; i < p; i += PT_BLOCK) table[(size_t)i * blocks + blockIdx.x] = cnt[i];
    }
}

// Two buckets in one pass (two ranks, the common case): bucket 0 fills the
// output from the front and bucket 1 from the back, each block taking its
// places with one global atomic a bucket (the order inside a bucket is
// free), so the keys are read once and written once; no count pass, no scan.
template <class U>
__global__ void __launch_bounds__(PT_BLOCK, 3) k_split2(const U *__restrict__ keys, size_t n, Xf<U> xf, U s0,
                                                     unsigned long long *__restrict__ cursor, U *__restrict__ out)
{
    constexpr int WARPS = PT_BLOCK / 32;
    __shared__ unsigned wc[2][WARPS];
    __shared__ unsigned long long base[2];
    const unsigned lane = threadIdx.x & 31, w = threadIdx.x / 32, lt = (1u << lane) - 1;
    const size_t t0 = (size_t)blockIdx.x * PT_TILE;
    U key[PT_ITEMS];
    load_tile(keys, n, t0, key);
    // each key's place among its warp's keys of its bucket
    unsigned short rank[PT_ITEMS];
    unsigned hi = 0, c0 = 0, c1 = 0; // hi: bit q set = key q goes to bucket 1
#pragma unroll
    for (int q = 0; q < PT_ITEMS; q++) {
        const bool valid = t0 + (size_t)q * PT_BLOCK + threadIdx.x < n;
        const bool b = s0 < xf.fwd(key[q]);
        const unsigned m0 = __ballot_sync(~0u, valid && !b), m1 = __ballot_sync(~0u, valid && b);
        rank[q] = (unsigned short)(b ? c1 + __popc(m1 & lt) : c0 + __popc(m0 & lt));
        hi |= (unsigned)b << q;
        c0 += __popc(m0);
        c1 += __popc(m1);
    }
    if (lane == 0) wc[0][w] = c0, wc[1][w] = c1;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned t[2] = {0, 0};
        for (int k = 0; k < WARPS; k++)
            for (int b = 0; b < 2; b++) {
                const unsigned c = wc[b][k];
                wc[b][k] = t[b];
                t[b] += c;
            }
        base[0] = t[0] ? atomicAdd(&cursor[0], (unsigned long long)t[0]) : 0;
        base[1] = t[1] ? atomicAdd(&cursor[1], (unsigned long long)t[1]) : 0;
    }
    __syncthreads();
    const unsigned long long b0 = base[0] + wc[0][w], b1 = base[1] + wc[1][w];
#pragma unroll
    for (int q = 0; q < PT_ITEMS; q++) {
        if (t0 + (size_t)q * PT_BLOCK + threadIdx.x >= n) break;
        if ((hi >> q) & 1) out[n - 1 - (b1 + rank[q])] = key[q];
        else out[b0 + rank[q]] = key[q];
    }
}

template <class U>
cupat_status partition_cuda(cupat_ctx *ctx, cupat_type t, cupat_sort_order order, size_t n, const void *keys, int p,
                            const uint64_t *split, void *tables, void *out, size_t *bucket_n)
{
    const size_t blocks = (n + PT_TILE - 1) / PT_TILE, m = (size_t)p * blocks;
    const Xf<U> xf = Xf<U>::of(cupat__sort_xform(t, order));
    Splits<U> sp = {};
    sp.p = p;
    for (int r = 0; r + 1 < p; r++) sp.s[r] = (U)(split[r] ^ (order == CUPAT_SORT_DESCENDING ? ~0ull : 0ull));
    unsigned long long *counts = static_cast<unsigned long long *>(tables), *offs = counts + m;
    const U *k = static_cast<const U *>(keys);
    if (p == 2) {
        CUPAT_CUDA_TRY(ctx, cudaMemsetAsync(counts, 0, 2 * sizeof *counts, ctx->stream));
        k_split2<U><<<(unsigned)blocks, PT_BLOCK, 0, ctx->stream>>>(k, n, xf, sp.s[0], counts, static_cast<U *>(out));
        CUPAT_TRY(cupat__launched(ctx, "dist k_split2"));
        unsigned long long front = 0;
        CUPAT_CUDA_TRY(ctx, cudaMemcpyAsync(&front, counts, sizeof front, cudaMemcpyDeviceToHost, ctx->stream));
        CUPAT_CUDA_TRY(ctx, cudaStreamSynchronize(ctx->stream));
        bucket_n[0] = (size_t)front;
        bucket_n[1] = n - (size_t)front;
        return CUPAT_SUCCESS;
    }
    k_bucket<U, false><<<(unsigned)blocks, PT_BLOCK, 0, ctx->stream>>>(k, n, xf, sp, counts, nullptr);
    CUPAT_TRY(cupat__launched(ctx, "dist k_bucket (count)"));
    CUPAT_TRY(cupat_scan(ctx, CUPAT_U64, CUPAT_OP_SUM, CUPAT_SCAN_EXCLUSIVE, m, counts, offs));
    k_bucket<U, true><<<(unsigned)blocks, PT_BLOCK, 0, ctx->stream>>>(k, n, xf, sp, offs, static_cast<U *>(out));
    CUPAT_TRY(cupat__launched(ctx, "dist k_bucket (scatter)"));
    // each bucket's first place: offs[r * blocks]
    unsigned long long first[DIST_MAX_BUCKETS];
    if (p > 1)
        CUPAT_CUDA_TRY(ctx, cudaMemcpy2DAsync(first, sizeof first[0], offs, blocks * sizeof first[0], sizeof first[0],
                                              (size_t)p, cudaMemcpyDeviceToHost, ctx->stream));
    else
        first[0] = 0;
    CUPAT_CUDA_TRY(ctx, cudaStreamSynchronize(ctx->stream));
    for (int r = 0; r < p; r++) bucket_n[r] = (r + 1 < p ? (size_t)first[r + 1] : n) - (size_t)first[r];
    return CUPAT_SUCCESS;
}

// The CPU's partition: the buckets counted, then filled in input order.
cupat_status partition_cpu(cupat_type t, cupat_sort_order order, size_t n, const void *keys, int p,
                           const uint64_t *split, void *out, size_t *bucket_n)
{
    const size_t es = cupat_type_size(t);
    const unsigned char *k = static_cast<const unsigned char *>(keys);
    unsigned char *o = static_cast<unsigned char *>(out);
    size_t at[DIST_MAX_BUCKETS];
    auto bucket = [&](size_t i) {
        const uint64_t v = cupat__dist_order_key(t, k + i * es);
        int r = 0;
        while (r + 1 < p && (order == CUPAT_SORT_ASCENDING ? split[r] < v : split[r] > v)) r++;
        return r;
    };
    for (int r = 0; r < p; r++) bucket_n[r] = 0;
    for (size_t i = 0; i < n; i++) bucket_n[bucket(i)]++;
    for (int r = 0; r < p; r++) at[r] = r ? at[r - 1] + bucket_n[r - 1] : 0;
    for (size_t i = 0; i < n; i++) memcpy(o + at[bucket(i)]++ * es, k + i * es, es);
    return CUPAT_SUCCESS;
}

// ------------------------------------------------------------------ CPU --
template <class T> T host_qnan();
template <> float host_qnan<float>() { return QNAN_F; }
template <> double host_qnan<double>() { return QNAN_D; }
inline int64_t host_okey(float v) { return okey_f(v); }
inline int64_t host_okey(double v) { return okey_d(v); }

template <class T> T host_comb(cupat_op op, T a, T b)
{
    if constexpr (std::is_floating_point<T>::value) {
        if (op == CUPAT_OP_SUM) return a + b;
        if (a != a || b != b) return host_qnan<T>();
        const bool a_wins = op == CUPAT_OP_MAX ? host_okey(a) >= host_okey(b) : host_okey(a) <= host_okey(b);
        return a_wins ? a : b;
    } else {
        typedef typename std::make_unsigned<T>::type U;
        if (op == CUPAT_OP_SUM) return (T)(U)((U)a + (U)b); // wraps
        return op == CUPAT_OP_MAX ? (a > b ? a : b) : (a < b ? a : b);
    }
}

template <class T> void host_combine(cupat_op op, size_t n, const void *a, const void *b, void *out)
{
    const T *x = static_cast<const T *>(a), *y = static_cast<const T *>(b);
    T *o = static_cast<T *>(out);
    for (size_t i = 0; i < n; i++) o[i] = host_comb<T>(op, x[i], y[i]);
}

template <class T> cupat_status combine(cupat_ctx *ctx, cupat_op op, size_t n, const void *a, const void *b, void *out)
{
    if (ctx->backend != CUPAT_BACKEND_CUDA) {
        host_combine<T>(op, n, a, b, out);
        return CUPAT_SUCCESS;
    }
    return launch_op<T>(ctx, op, n, a, b, out);
}

} // namespace

size_t cupat__dist_partition_tables(size_t n, int p)
{
    return 2 * (size_t)p * ((n + PT_TILE - 1) / PT_TILE) * sizeof(unsigned long long);
}

cupat_status cupat__dist_partition(cupat_ctx *ctx, cupat_type t, cupat_sort_order order, size_t n, const void *keys,
                                   int p, const uint64_t *split, void *tables, void *out, size_t *bucket_n)
{
    if (ctx->backend != CUPAT_BACKEND_CUDA || n == 0) {
        if (n == 0)
            for (int r = 0; r < p; r++) bucket_n[r] = 0;
        return n ? partition_cpu(t, order, n, keys, p, split, out, bucket_n) : CUPAT_SUCCESS;
    }
    if (cupat_type_size(t) == 4)
        return partition_cuda<unsigned>(ctx, t, order, n, keys, p, split, tables, out, bucket_n);
    return partition_cuda<unsigned long long>(ctx, t, order, n, keys, p, split, tables, out, bucket_n);
}

cupat_status cupat__dist_push_round(cupat_ctx *ctx, cupat_type type, cupat_op op, size_t n, const void *x, void *y,
                                    const dist_push *q, unsigned long long epoch, int grid)
{
    // a grid of more blocks than chunks: the extra ones return at once
    const size_t chunks = (n * cupat_type_size(type) + DIST_IPC_CHUNK - 1) / DIST_IPC_CHUNK;
    if (chunks < (size_t)grid) grid = (int)(chunks ? chunks : 1);
    switch (type) {
    case CUPAT_F32: return push_op<float>(ctx, op, n, x, y, *q, epoch, grid);
    case CUPAT_F64: return push_op<double>(ctx, op, n, x, y, *q, epoch, grid);
    case CUPAT_I32: return push_op<int32_t>(ctx, op, n, x, y, *q, epoch, grid);
    case CUPAT_U32: return push_op<uint32_t>(ctx, op, n, x, y, *q, epoch, grid);
    case CUPAT_I64: return push_op<int64_t>(ctx, op, n, x, y, *q, epoch, grid);
    case CUPAT_U64: return push_op<uint64_t>(ctx, op, n, x, y, *q, epoch, grid);
    }
    return cupat__fail(ctx, CUPAT_ERROR_INTERNAL, "cupat__dist_push_round: type %d", (int)type);
}

cupat_status cupat__dist_combine(cupat_ctx *ctx, cupat_type type, cupat_op op, size_t n, const void *a,
                                 const void *b, void *out)
{
    if (n == 0) return CUPAT_SUCCESS;
    switch (type) {
    case CUPAT_F32: return combine<float>(ctx, op, n, a, b, out);
    case CUPAT_F64: return combine<double>(ctx, op, n, a, b, out);
    case CUPAT_I32: return combine<int32_t>(ctx, op, n, a, b, out);
    case CUPAT_U32: return combine<uint32_t>(ctx, op, n, a, b, out);
    case CUPAT_I64: return combine<int64_t>(ctx, op, n, a, b, out);
    case CUPAT_U64: return combine<uint64_t>(ctx, op, n, a, b, out);
    }
    return cupat__fail(ctx, CUPAT_ERROR_INTERNAL, "cupat__dist_combine: type %d", (int)type);
}
