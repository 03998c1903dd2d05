// select.cu — stream compaction (pattern "select"): cupat_select,
// cupat_partition, cupat_unique on the GPU.
//   scan_scatter  the textbook pipeline: keep-flags as u64 counts, an
//                 exclusive scan of them (the default scan), a scatter
//   decoupled     one pass: each thread's keep bits, popc counts, the tile
//                 scan and look-back of scan_lookback.cu (UNORDERED: counts
//                 are exact), kept elements written at their rank
// Partition writes element i, when not kept, at K + (i - kept before i),
// with K the total kept, counted first by k_count (one read of the flags or
// of x): stable on both sides.
#include "internal.h"
#include "scan/lookback.cuh"
#include "scan/scan_ops.cuh"

#include <cstdint>
#include <cstring>

namespace cupat_scan_dev {

constexpr int SE_BLOCK = 256;

typedef unsigned long long u64;

// What decides whether element i stays.
struct Keep {
    const uint8_t *flags; // non-NULL: flags[i] != 0
    int mode;             // 0 select, 1 partition, 2 unique
    int kind;             // predicate kind when flags is NULL and mode != 2
    cupat_value a, b;
};

template <typename T> __device__ __forceinline__ T val_of(const cupat_value &v);
template <> __device__ __forceinline__ float val_of<float>(const cupat_value &v) { return v.f32; }
template <> __device__ __forceinline__ double val_of<double>(const cupat_value &v) { return v.f64; }
template <> __device__ __forceinline__ int32_t val_of<int32_t>(const cupat_value &v) { return v.i32; }
template <> __device__ __forceinline__ uint32_t val_of<uint32_t>(const cupat_value &v) { return v.u32; }
template <> __device__ __forceinline__ int64_t val_of<int64_t>(const cupat_value &v) { return v.i64; }
template <> __device__ __forceinline__ uint64_t val_of<uint64_t>(const cupat_value &v) { return v.u64; }

template <typename T> __device__ __forceinline__ bool pred(const Keep &kp, T v)
{
    switch (kp.kind) {
    case CUPAT_PRED_NONZERO: return v != T(0); // NaN != 0: kept
    case CUPAT_PRED_LESS: return v < val_of<T>(kp.a);
    case CUPAT_PRED_GREATER: return v > val_of<T>(kp.a);
    default: return val_of<T>(kp.a) <= v && v < val_of<T>(kp.b);
    }
}

// Bits of an element, for unique's comparison and for moving it.
template <typename T> struct Bits {
    typedef typename std::conditional<sizeof(T) == 4, uint32_t, uint64_t>::type type;
};

template <typename T> __device__ __forceinline__ bool keep_at(const Keep &kp, const T *x, size_t i, T v)
{
    if (kp.mode == 2) {
        if (i == 0) return true;
        typedef typename Bits<T>::type U;
        return ((const U *)x)[i] != ((const U *)x)[i - 1];
    }
    if (kp.flags) return kp.flags[i] != 0;
    return pred<T>(kp, v);
}

// ------------------------------------------------------------ k_count --
// Total kept into *total (zeroed before): grid-stride, per-block reduce, one
// atomic per block (integers: any order gives the same count).
template <typename T> __global__ void __launch_bounds__(SE_BLOCK) k_count(const T *x, size_t n, Keep kp, u64 *total)
{
    u64 c = 0;
    for (size_t i = (size_t)blockIdx.x * SE_BLOCK + threadIdx.x; i < n; i += (size_t)gridDim.x * SE_BLOCK)
        c += keep_at<T>(kp, x, i, x[i]);
    c = cupat_dev::block_reduce<SE_BLOCK>(c, cupat_dev::OpSum());
    if (threadIdx.x == 0 && c) atomicAdd(total, c);
}

// --------------------------------------------------------- k_decoupled --
// Kept elements go to shared memory at their rank in the tile first (and,
// for partition, the others after them), then out in contiguous runs:
// coalesced stores instead of one scattered store per element.
constexpr int SEL_BLOCK = 128, SEL_NV = 4, SEL_MINB = 8;

template <typename T>
__global__ void __launch_bounds__(SEL_BLOCK, SEL_MINB)
    k_select(const T *x, T *y, size_t n, Keep kp, int vec, const u64 *kept_total, u64 *count, LookbackState<u64> st)
{
    constexpr int V = 16 / sizeof(T), NV = SEL_NV;
    constexpr int NW = SEL_BLOCK / 32, WARP_ITEMS = 32 * NV * V, TILE = NW * WARP_ITEMS;
    typedef typename Bits<T>::type U;
    __shared__ U buf[TILE];
    __shared__ u64 tile_pre, tile_kept;
    const unsigned tile = tile_of_block<false>(st.counter);
    const unsigned lane = cupat_dev::lane_id(), w = threadIdx.x / 32;
    const size_t tbase = (size_t)tile * TILE;
    const size_t wbase = tbase + (size_t)w * WARP_ITEMS;
    const bool fast = vec && tbase + TILE <= n;

    T a[NV][V];
    if (fast) {
        const uint4 *xv = (const uint4 *)(x + wbase);
#pragma unroll
        for (int j = 0; j < NV; j++) {
            uint4 q = xv[j * 32 + lane];
            memcpy(a[j], &q, 16);
        }
    } else {
#pragma unroll
        for (int j = 0; j < NV; j++)
#pragma unroll
            for (int k = 0; k < V; k++) {
                size_t i = wbase + (size_t)(j * 32 + lane) * V + k;
                a[j][k] = i < n ? x[i] : T(0);
            }
    }
    unsigned km = 0; // keep bits, bit j * V + k
#pragma unroll
    for (int j = 0; j < NV; j++)
#pragma unroll
        for (int k = 0; k < V; k++) {
            size_t i = wbase + (size_t)(j * 32 + lane) * V + k;
            if (i < n && keep_at<T>(kp, x, i, a[j][k])) km |= 1u << (j * V + k);
        }
    // Counts per vector through the scan machinery (u64 rows of 2: the count
    // in the last slot).
    u64 rows[NV][2], pre[NV], row_count[NV];
#pragma unroll
    for (int j = 0; j < NV; j++) {
        rows[j][0] = 0;
        rows[j][1] = row_count[j] = (u64)__popc((km >> (j * V)) & ((1u << V) - 1u));
    }
    tile_scan<false, SEL_BLOCK, NV>(rows, pre, (u64)0, cupat_dev::OpSum(), NoHead(), st, tile);
    if (threadIdx.x == 0) tile_pre = pre[0];
    if (threadIdx.x == SEL_BLOCK - 1) tile_kept = pre[NV - 1] + row_count[NV - 1];
    __syncthreads();
    const u64 P = tile_pre, c = tile_kept - P; // kept before the tile, kept in it
    const size_t m = n - tbase < (size_t)TILE ? n - tbase : (size_t)TILE; // elements in the tile
#pragma unroll
    for (int j = 0; j < NV; j++) {
        unsigned r = (unsigned)(pre[j] - P);
#pragma unroll
        for (int k = 0; k < V; k++) {
            const unsigned li = (w * 32 * NV + j * 32 + lane) * V + k; // position in the tile
            if (li >= m) break;
            U bits;
            memcpy(&bits, &a[j][k], sizeof(T));
            if (km >> (j * V + k) & 1u) buf[r++] = bits;
            else if (kp.mode == 1) buf[c + (li - r)] = bits;
        }
    }
    __syncthreads();
    U *yu = (U *)y;
    for (unsigned i = threadIdx.x; i < c; i += SEL_BLOCK) yu[P + i] = buf[i];
    if (kp.mode == 1) { // the others: after all K kept ones, in order
        const u64 K = *kept_total, q0 = K + (tbase - P);
        for (unsigned i = (unsigned)c + threadIdx.x; i < m; i += SEL_BLOCK) yu[q0 + (i - c)] = buf[i];
    }
    if (tile == gridDim.x - 1 && threadIdx.x == 0) *count = tile_kept;
}

// ---------------------------------------------------------- scan_scatter --
template <typename T> __global__ void __launch_bounds__(SE_BLOCK) k_keep(const T *x, size_t n, Keep kp, u64 *keep)
{
    for (size_t i = (size_t)blockIdx.x * SE_BLOCK + threadIdx.x; i < n; i += (size_t)gridDim.x * SE_BLOCK)
        keep[i] = keep_at<T>(kp, x, i, x[i]);
}

template <typename T>
__global__ void __launch_bounds__(SE_BLOCK)
    k_scatter(const T *x, T *y, size_t n, Keep kp, const u64 *keep, const u64 *off, u64 *count)
{
    const u64 K = off[n - 1] + keep[n - 1];
    for (size_t i = (size_t)blockIdx.x * SE_BLOCK + threadIdx.x; i < n; i += (size_t)gridDim.x * SE_BLOCK) {
        if (keep[i]) y[off[i]] = x[i];
        else if (kp.mode == 1) y[K + (i - off[i])] = x[i];
        if (i == n - 1) *count = K;
    }
}

// ------------------------------------------------------------- launcher --
static Keep keep_of(const select_req *r)
{
    Keep kp;
    memset(&kp, 0, sizeof kp);
    kp.flags = r->flags;
    kp.mode = r->mode;
    kp.kind = r->use_pred ? (int)r->pred.kind : 0;
    kp.a = r->pred.a;
    kp.b = r->pred.b;
    return kp;
}

static unsigned grid_for(cupat_ctx *ctx, size_t n)
{
    size_t g = (n + SE_BLOCK - 1) / SE_BLOCK, cap = (size_t)ctx->sm_count * 8;
    return (unsigned)(g < cap ? g : cap);
}

template <typename T> static cupat_status run_select(cupat_ctx *ctx, const select_req *r)
{
    constexpr int TILE = SEL_BLOCK / 32 * 32 * SEL_NV * (16 / sizeof(T));
    const T *x = (const T *)r->x;
    T *y = (T *)r->y;
    const size_t n = r->n;
    Keep kp = keep_of(r);
    // scratch: [0, 256) counts (total kept, count for a host result) | the
    // rung's arrays, 256-byte aligned
    size_t tiles = (n + TILE - 1) / TILE;
    if (tiles > 0x7fffffffu)
        return cupat__fail(ctx, CUPAT_ERROR_SIZE, "%s: n = %zu is too large", r->fn, n);
    size_t body = 0;
    if (r->rung == SL_SCAN_SCATTER) {
        size_t arr = ((n * sizeof(u64)) + 255) / 256 * 256;
        body = 2 * arr + exclusive_sum_u64_state_bytes(n);
    } else {
        body = LookbackState<u64>::bytes(tiles);
    }
    void *p;
    CUPAT_TRY(cupat__scratch(ctx, 256 + body, &p));
    u64 *hdr = (u64 *)p;
    char *b = (char *)p + 256;
    CUPAT_CUDA_TRY(ctx, cudaMemsetAsync(hdr, 0, 256, ctx->stream));
    u64 *count = r->count_host ? hdr + 1 : (u64 *)r->count;
    if (n == 0) {
        CUPAT_CUDA_TRY(ctx, cudaMemsetAsync(count, 0, sizeof(u64), ctx->stream));
    } else if (r->rung == SL_SCAN_SCATTER) {
        size_t arr = ((n * sizeof(u64)) + 255) / 256 * 256;
        u64 *keep = (u64 *)b, *off = (u64 *)(b + arr);
        unsigned g = grid_for(ctx, n);
        k_keep<T><<<g, SE_BLOCK, 0, ctx->stream>>>(x, n, kp, keep);
        CUPAT_TRY(cupat__launched(ctx, "k_keep"));
        CUPAT_TRY(exclusive_sum_u64(ctx, keep, off, n, b + 2 * arr));
        k_scatter<T><<<g, SE_BLOCK, 0, ctx->stream>>>(x, y, n, kp, keep, off, count);
        CUPAT_TRY(cupat__launched(ctx, "k_scatter"));
    } else {
        if (r->mode == 1) {
            k_count<T><<<grid_for(ctx, n), SE_BLOCK, 0, ctx->stream>>>(x, n, kp, hdr);
            CUPAT_TRY(cupat__launched(ctx, "k_count"));
        }
        CUPAT_CUDA_TRY(ctx, cudaMemsetAsync(b, 0, body, ctx->stream));
        LookbackState<u64> st = LookbackState<u64>::carve(b);
        int vec = ((uintptr_t)x & 15) == 0;
        k_select<T><<<(unsigned)tiles, SEL_BLOCK, 0, ctx->stream>>>(x, y, n, kp, vec, hdr, count, st);
        CUPAT_TRY(cupat__launched(ctx, "k_select"));
    }
    if (r->count_host) {
        CUPAT_CUDA_TRY(ctx, cudaMemcpyAsync(r->count, count, sizeof(u64), cudaMemcpyDeviceToHost, ctx->stream));
        CUPAT_CUDA_TRY(ctx, cudaStreamSynchronize(ctx->stream));
    }
    return CUPAT_SUCCESS;
}

} // namespace cupat_scan_dev

extern "C" cupat_status cupat__select_cuda(cupat_ctx *ctx, const select_req *r)
{
    using namespace cupat_scan_dev;
    switch (r->type) {
    case CUPAT_F32: return run_select<float>(ctx, r);
    case CUPAT_F64: return run_select<double>(ctx, r);
    case CUPAT_I32: return run_select<int32_t>(ctx, r);
    case CUPAT_U32: return run_select<uint32_t>(ctx, r);
    case CUPAT_I64: return run_select<int64_t>(ctx, r);
    case CUPAT_U64: return run_select<uint64_t>(ctx, r);
    }
    return cupat__fail(ctx, CUPAT_ERROR_INTERNAL, "%s: type %d", r->fn, (int)r->type);
}
