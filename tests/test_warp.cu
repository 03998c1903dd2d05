// SPDX-License-Identifier: Apache-2.0
// test_warp.cu — src/core/cupat_warp.cuh, every helper against a host model.
//
// The host models replay the header's trees step by step (the same
// operations in the same order), so integers AND floats must match bit for
// bit; each check also asserts what the header promises beyond the values
// (every lane of a segment holds the same reduce bits, exclusive[t] ==
// inclusive[t - 1], the totals are the last inclusive value). Inputs are
// fresh random numbers (seed printed; CUPAT_TEST_SEED replays). Float inputs
// span 20 binades so the order of the additions shows in the bits, and min /
// max inputs hold -0 and +0 so the operand order shows too.
//
// GPU only: a device header has no CPU side (the cpu run is not registered;
// the cuda run exits 77 without a device).
#include "testutil.h"

#include "cupat_warp.cuh"

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

using namespace cupat_dev;

typedef unsigned long long u64;
typedef long long i64;

#define CUDA_OK(call)                                                                              \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

// ------------------------------------------------------------ host side --
// The operators on the host: the same expressions as OpSum / OpMin / OpMax.
struct HSum {
    template <class T> T operator()(T a, T b) const { return a + b; }
};
struct HMin {
    template <class T> T operator()(T a, T b) const { return a < b ? a : b; }
};
struct HMax {
    template <class T> T operator()(T a, T b) const { return a > b ? a : b; }
};
template <class Op> struct HostOf;
template <> struct HostOf<OpSum> { typedef HSum type; };
template <> struct HostOf<OpMin> { typedef HMin type; };
template <> struct HostOf<OpMax> { typedef HMax type; };

template <class Op> const char *op_name();
template <> const char *op_name<OpSum>() { return "sum"; }
template <> const char *op_name<OpMin>() { return "min"; }
template <> const char *op_name<OpMax>() { return "max"; }

template <typename T> const char *type_name();
template <> const char *type_name<unsigned>() { return "u32"; }
template <> const char *type_name<int>() { return "i32"; }
template <> const char *type_name<u64>() { return "u64"; }
template <> const char *type_name<i64>() { return "i64"; }
template <> const char *type_name<float>() { return "f32"; }
template <> const char *type_name<double>() { return "f64"; }

template <typename T> bool same_bits(const T &a, const T &b) { return memcmp(&a, &b, sizeof(T)) == 0; }

template <typename T> double show(T v) { return (double)v; }

// Random inputs. Sums of signed integers stay far from overflow (the device
// adds them as signed numbers); unsigned sums may wrap (defined). Floats: a
// random mantissa in one of 20 binades; for min/max one value in 8 is -0 or +0.
template <typename T> T rnd(bool for_sum)
{
    uint64_t r = test_rand();
    if (std::is_floating_point<T>::value) {
        if (!for_sum && (r & 7) == 0) return (r & 8) ? T(-0.0) : T(0.0);
        double m = (double)((r >> 11) & ((1ull << 40) - 1)) * 0x1p-40 * 2.0 - 1.0;
        int e = (int)((r >> 3) % 20) - 10;
        return (T)ldexp(m, e);
    }
    if (std::is_signed<T>::value)
        return (T)((int64_t)(r % (1u << 21)) - (1 << 20)) * (sizeof(T) == 8 ? (T)(1 << 20) : (T)1);
    return (T)r;
}

// ---- host models of the trees (cupat_warp.cuh's comments give the shapes) --
// warp_reduce<W>: butterfly xor 1, 2, ..., W/2, op(lower lanes, higher lanes).
template <class H, typename T> void model_reduce(const T *v, T *out, int W, H op)
{
    for (int b = 0; b < 32; b += W) {
        T s[32];
        for (int l = 0; l < W; l++) s[l] = v[b + l];
        for (int m = 1; m < W; m <<= 1) {
            T n[32];
            for (int l = 0; l < W; l++) n[l] = (l & m) == 0 ? op(s[l], s[l ^ m]) : op(s[l ^ m], s[l]);
            memcpy(s, n, sizeof(T) * W);
        }
        for (int l = 0; l < W; l++) out[b + l] = s[l];
    }
}
// warp_inclusive_scan<W>: Kogge-Stone, v[j] = op(v[j - d], v[j]).
template <class H, typename T> void model_kogge(const T *v, T *out, int n, int W, H op)
{
    for (int b = 0; b < n; b += W) {
        std::vector<T> s(v + b, v + b + W), t(W);
        for (int d = 1; d < W; d <<= 1) {
            for (int l = 0; l < W; l++) t[l] = l >= d ? op(s[l - d], s[l]) : s[l];
            s = t;
        }
        for (int l = 0; l < W; l++) out[b + l] = s[l];
    }
}
// first_n tree (warp_reduce_partial, block_reduce over warp results): lane l
// (a multiple of 2m) takes l + m at step m when l + m < n; lane 0's value.
template <class H, typename T> T model_first_n(const T *v, int n, H op)
{
    std::vector<T> s(v, v + n);
    for (int m = 1; m < n; m <<= 1)
        for (int l = 0; l + m < n; l += 2 * m) s[l] = op(s[l], s[l + m]);
    return s[0];
}

// ---------------------------------------------------------------- kernels --
// Whole-segment warp helpers for every WIDTH: out[(4 * wi + k) * n + t],
// k = reduce, inclusive, exclusive, total.
template <int W, class Op, typename T>
__device__ __forceinline__ void warp_all(T v, Op op, T identity, T *out, int wi, int n)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    T tot;
    out[(4 * wi + 0) * n + t] = warp_reduce<W>(v, op);
    out[(4 * wi + 1) * n + t] = warp_inclusive_scan<W>(v, op);
    out[(4 * wi + 2) * n + t] = warp_exclusive_scan<W>(v, op, identity, tot);
    out[(4 * wi + 3) * n + t] = tot;
}
template <class Op, typename T> __global__ void k_warp(const T *in, T *out, T identity, int n)
{
    const T v = in[blockIdx.x * blockDim.x + threadIdx.x];
    Op op;
    warp_all<1>(v, op, identity, out, 0, n);
    warp_all<2>(v, op, identity, out, 1, n);
    warp_all<4>(v, op, identity, out, 2, n);
    warp_all<8>(v, op, identity, out, 3, n);
    warp_all<16>(v, op, identity, out, 4, n);
    warp_all<32>(v, op, identity, out, 5, n);
}

// Partial warps: warp w of a 1024-thread block has nactive = w + 1; only
// those lanes call.
template <class Op, typename T> __global__ void k_partial(const T *in, T *out)
{
    const int t = threadIdx.x, w = t / 32, lane = t % 32;
    if (lane > w) return;
    out[t] = warp_reduce_partial(in[t], Op(), w + 1);
}

// Block helpers, each called twice in a row on two inputs (the second call
// must not overwrite shared memory a slower warp still reads).
// out[k * n + t]: k = 0/1 reduce of a/b, 2/3 inclusive of a/b, 4 exclusive
// of a, 5 its block total, 6 the inclusive total of a, 7 block_reduce of b
// again right after the exclusive scan.
template <int BLOCK, class Op, typename T>
__global__ void __launch_bounds__(BLOCK) k_block(const T *a, const T *b, T *out, T identity, int n)
{
    const int t = blockIdx.x * BLOCK + threadIdx.x;
    Op op;
    const T va = a[t], vb = b[t];
    T tot_i, tot_i2, tot_e;
    out[0 * n + t] = block_reduce<BLOCK>(va, op);
    out[1 * n + t] = block_reduce<BLOCK>(vb, op);
    out[2 * n + t] = block_inclusive_scan<BLOCK>(va, op, tot_i);
    out[3 * n + t] = block_inclusive_scan<BLOCK>(vb, op, tot_i2);
    out[4 * n + t] = block_exclusive_scan<BLOCK>(va, op, identity, tot_e);
    out[5 * n + t] = tot_e;
    out[6 * n + t] = tot_i;
    out[7 * n + t] = block_reduce<BLOCK>(vb, op);
}

// Shuffles of any type: warp w uses its own d / m; src per lane.
// out[k * n + t]: k = shfl(src), shfl_up(d), shfl_down(d), shfl_xor(m).
template <typename T>
__global__ void k_shfl(const T *in, const int *src, const int *dm, T *out, int width, int n)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x, w = t / 32;
    const T v = in[t];
    out[0 * n + t] = shfl(v, src[t], width);
    out[1 * n + t] = shfl_up(v, (unsigned)dm[w], width);
    out[2 * n + t] = shfl_down(v, (unsigned)dm[w], width);
    out[3 * n + t] = shfl_xor(v, dm[w], width);
}

// Ballot rank, match_any and __reduce_*_sync: the lanes of mask[w] call
// (every lane for FULL_MASK warps). out u32 [k * n + t]: k = 0 rank, 1 count,
// 2 match_any on the u32 bits, 3 its shuffle form, 4 match on the u64 value,
// 5 its shuffle form, 6..11 add/min/max u32 then i32, 12..17 the same by the
// shuffle fallback.
__global__ void k_vote(const unsigned *pred, const unsigned *vals, const u64 *v64, const int *ivals,
                       const unsigned *mask, unsigned *out, int n)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x, w = t / 32;
    const unsigned m = mask[w];
    if (!((m >> lane_id()) & 1u)) return;
    unsigned c;
    out[0 * n + t] = warp_ballot_rank(pred[t] != 0, c, m);
    out[1 * n + t] = c;
    out[2 * n + t] = warp_match_any(vals[t], m);
    out[3 * n + t] = detail::match_any_shfl(vals[t], m);
    out[4 * n + t] = warp_match_any(v64[t], m);
    out[5 * n + t] = detail::match_any_shfl(v64[t], m);
    const unsigned u = vals[t];
    const int i = ivals[t];
    out[6 * n + t] = warp_reduce_add_u32(u, m);
    out[7 * n + t] = warp_reduce_min_u32(u, m);
    out[8 * n + t] = warp_reduce_max_u32(u, m);
    out[9 * n + t] = (unsigned)warp_reduce_add_i32(i, m);
    out[10 * n + t] = (unsigned)warp_reduce_min_i32(i, m);
    out[11 * n + t] = (unsigned)warp_reduce_max_i32(i, m);
    out[12 * n + t] = detail::reduce_sync_shfl(u, m, detail::redux_op_add());
    out[13 * n + t] = detail::reduce_sync_shfl(u, m, detail::redux_op_min());
    out[14 * n + t] = detail::reduce_sync_shfl(u, m, detail::redux_op_max());
    out[15 * n + t] = (unsigned)detail::reduce_sync_shfl(i, m, detail::redux_op_add());
    out[16 * n + t] = (unsigned)detail::reduce_sync_shfl(i, m, detail::redux_op_min());
    out[17 * n + t] = (unsigned)detail::reduce_sync_shfl(i, m, detail::redux_op_max());
}

// warp_aggregate_add: out[t] = the group's sum, out[n + t] = leader.
__global__ void k_aggregate(const int *keys, const unsigned *v, const unsigned *mask, unsigned *out, int n)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x, w = t / 32;
    const unsigned m = mask[w];
    if (!((m >> lane_id()) & 1u)) return;
    bool leader;
    out[t] = warp_aggregate_add(keys[t], v[t], leader, m);
    out[n + t] = leader ? 1u : 0u;
}

// lane_id / lanemask_lt in a 2D block (32 x 3 is fine; 24 x 4 puts warps
// across rows, where threadIdx.x & 31 would be wrong).
__global__ void k_lane(unsigned *out)
{
    const int t = threadIdx.y * blockDim.x + threadIdx.x;
    out[2 * t] = lane_id();
    out[2 * t + 1] = lanemask_lt();
}

// ------------------------------------------------------------------ runs --
template <typename T> T *dup(const std::vector<T> &h)
{
    T *d = NULL;
    CUDA_OK(cudaMalloc((void **)&d, h.size() * sizeof(T) + 1));
    CUDA_OK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
    return d;
}
template <typename T> T *dalloc(size_t n)
{
    T *d = NULL;
    CUDA_OK(cudaMalloc((void **)&d, n * sizeof(T) + 1));
    CUDA_OK(cudaMemset(d, 0xFF, n * sizeof(T))); // poison: unwritten output fails
    return d;
}
template <typename T> std::vector<T> back(const T *d, size_t n)
{
    std::vector<T> h(n);
    CUDA_OK(cudaDeviceSynchronize());
    CUDA_OK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
}

// Compare got[0..n) with want; one CHECK per array, the first bad index named.
template <typename T>
void cmp_bits(const T *got, const T *want, int n, const char *what, const char *ty, const char *op, int w)
{
    int bad = 0, first = -1;
    for (int i = 0; i < n; i++)
        if (!same_bits(got[i], want[i]) && bad++ == 0) first = i;
    CHECK(bad == 0, "%s %s %s width/block %d: %d wrong, first [%d] = %.17g, expected %.17g", what, ty,
          op, w, bad, first, bad ? show(got[first]) : 0.0, bad ? show(want[first]) : 0.0);
}

template <class Op, typename T> void test_warp_type(T identity)
{
    typedef typename HostOf<Op>::type H;
    H op;
    const int n = 256;
    const bool sum = std::is_same<Op, OpSum>::value;
    std::vector<T> in(n);
    for (auto &x : in) x = rnd<T>(sum);
    T *din = dup(in), *dout = dalloc<T>((size_t)6 * 4 * n);
    k_warp<Op, T><<<2, n / 2>>>(din, dout, identity, n);
    CUDA_OK(cudaGetLastError());
    std::vector<T> got = back(dout, (size_t)6 * 4 * n);
    for (int wi = 0; wi < 6; wi++) {
        const int W = 1 << wi;
        std::vector<T> red(n), inc(n), exc(n), tot(n);
        for (int b = 0; b < n; b += 32) {
            model_reduce(&in[b], &red[b], W, op);
            model_kogge(&in[b], &inc[b], 32, W, op);
        }
        for (int t = 0; t < n; t++) {
            exc[t] = t % W == 0 ? identity : inc[t - 1];
            tot[t] = inc[t / W * W + W - 1];
        }
        const T *g = &got[(size_t)4 * wi * n];
        cmp_bits(g, red.data(), n, "warp_reduce", type_name<T>(), op_name<Op>(), W);
        cmp_bits(g + n, inc.data(), n, "warp_inclusive_scan", type_name<T>(), op_name<Op>(), W);
        cmp_bits(g + 2 * n, exc.data(), n, "warp_exclusive_scan", type_name<T>(), op_name<Op>(), W);
        cmp_bits(g + 3 * n, tot.data(), n, "warp_exclusive_scan total", type_name<T>(), op_name<Op>(), W);
        // The promise beyond the model: one set of bits per segment.
        int split = 0;
        for (int t = 0; t < n; t++) split += !same_bits(g[t], g[t / W * W]);
        CHECK(split == 0, "warp_reduce %s %s width %d: %d lanes differ from their segment's lane 0",
              type_name<T>(), op_name<Op>(), W, split);
    }
    cudaFree(din);
    cudaFree(dout);

    // Partial warps, nactive 1..32.
    std::vector<T> pin(1024);
    for (auto &x : pin) x = rnd<T>(sum);
    T *dp = dup(pin), *dpo = dalloc<T>(1024);
    k_partial<Op, T><<<1, 1024>>>(dp, dpo);
    CUDA_OK(cudaGetLastError());
    std::vector<T> pg = back(dpo, 1024);
    int bad = 0;
    for (int w = 0; w < 32; w++) {
        const T want = model_first_n(&pin[32 * w], w + 1, op);
        for (int l = 0; l <= w; l++)
            if (!same_bits(pg[32 * w + l], want) && bad++ == 0)
                fprintf(stderr, "warp_reduce_partial %s %s nactive %d lane %d: %.17g, expected %.17g\n",
                        type_name<T>(), op_name<Op>(), w + 1, l, show(pg[32 * w + l]), show(want));
    }
    // nactive == 32 is warp_reduce's tree: the same bits.
    std::vector<T> full(32);
    model_reduce(&pin[31 * 32], full.data(), 32, op);
    CHECK(bad == 0, "warp_reduce_partial %s %s: %d lanes wrong", type_name<T>(), op_name<Op>(), bad);
    CHECK(same_bits(pg[31 * 32], full[0]), "warp_reduce_partial %s %s: nactive 32 differs from warp_reduce",
          type_name<T>(), op_name<Op>());
    cudaFree(dp);
    cudaFree(dpo);
}

template <int BLOCK, class Op, typename T> void test_block_type(T identity)
{
    typedef typename HostOf<Op>::type H;
    H op;
    const int G = 3, n = G * BLOCK, NW = BLOCK / 32;
    const bool sum = std::is_same<Op, OpSum>::value;
    std::vector<T> a(n), b(n);
    for (auto &x : a) x = rnd<T>(sum);
    for (auto &x : b) x = rnd<T>(sum);
    T *da = dup(a), *db = dup(b), *dout = dalloc<T>((size_t)8 * n);
    k_block<BLOCK, Op, T><<<G, BLOCK>>>(da, db, dout, identity, n);
    CUDA_OK(cudaGetLastError());
    std::vector<T> got = back(dout, (size_t)8 * n);

    // Model of one block's reduce and inclusive scan.
    auto reduce = [&](const T *v) {
        std::vector<T> r(BLOCK), wr(NW);
        for (int w = 0; w < NW; w++) model_reduce(v + 32 * w, &r[32 * w], 32, op);
        for (int w = 0; w < NW; w++) wr[w] = r[32 * w]; // lane 0's bits (all lanes agree)
        return model_first_n(wr.data(), NW, op);
    };
    auto inclusive = [&](const T *v, std::vector<T> &inc, T &total) {
        std::vector<T> wi(BLOCK), x(NW), tk(NW);
        model_kogge(v, wi.data(), BLOCK, 32, op);
        for (int w = 0; w < NW; w++) x[w] = wi[32 * w + 31];
        model_kogge(x.data(), tk.data(), NW, NW, op); // Kogge-Stone bits do not depend on the width
        inc.resize(BLOCK);
        for (int t = 0; t < BLOCK; t++) inc[t] = t < 32 ? wi[t] : op(tk[t / 32 - 1], wi[t]);
        total = inc[BLOCK - 1];
    };
    std::vector<std::vector<T>> want(8, std::vector<T>(n));
    for (int g = 0; g < G; g++) {
        const int o = g * BLOCK;
        const T ra = reduce(&a[o]), rb = reduce(&b[o]);
        std::vector<T> ia, ib;
        T ta, tb;
        inclusive(&a[o], ia, ta);
        inclusive(&b[o], ib, tb);
        for (int t = 0; t < BLOCK; t++) {
            want[0][o + t] = ra;
            want[1][o + t] = rb;
            want[2][o + t] = ia[t];
            want[3][o + t] = ib[t];
            want[4][o + t] = t == 0 ? identity : ia[t - 1];
            want[5][o + t] = ta;
            want[6][o + t] = ta;
            want[7][o + t] = rb;
        }
    }
    static const char *const what[8] = {"block_reduce", "block_reduce (2nd call)", "block_inclusive_scan",
                                        "block_inclusive_scan (2nd call)", "block_exclusive_scan",
                                        "block_exclusive_scan total", "block_inclusive_scan total",
                                        "block_reduce (after the scans)"};
    for (int k = 0; k < 8; k++)
        cmp_bits(&got[(size_t)k * n], want[k].data(), n, what[k], type_name<T>(), op_name<Op>(), BLOCK);
    cudaFree(da);
    cudaFree(db);
    cudaFree(dout);
}

template <int BLOCK> void test_blocks()
{
    test_block_type<BLOCK, OpSum>(0u);
    test_block_type<BLOCK, OpMax>(0u);
    test_block_type<BLOCK, OpSum>(0);
    test_block_type<BLOCK, OpMin>(0x7fffffff);
    test_block_type<BLOCK, OpSum>(0ull);
    test_block_type<BLOCK, OpMin>(~0ull);
    test_block_type<BLOCK, OpSum>(0ll);
    test_block_type<BLOCK, OpMax>((i64)INT64_MIN);
    test_block_type<BLOCK, OpSum>(-0.0f);
    test_block_type<BLOCK, OpMin>(INFINITY);
    test_block_type<BLOCK, OpMax>(-INFINITY);
    test_block_type<BLOCK, OpSum>(-0.0);
    test_block_type<BLOCK, OpMax>(-(double)INFINITY);
}

struct S12 {
    unsigned a;
    float b;
    int c;
};
template <> double show<S12>(S12 v) { return (double)v.a; }
template <typename T> T rnd_any()
{
    T v;
    uint64_t r[2] = {test_rand(), test_rand()};
    memcpy(&v, r, sizeof(T));
    return v;
}

// The CUDA Guide's (and PTX shfl.sync's) rules, width a power of two: a
// source outside the lane's segment gives the lane its own value, except that
// the butterfly may read an EARLIER segment (PTX clamps j <= the segment's
// last lane only).
static int src_idx(int l, int s, int W) { return (l & ~(W - 1)) + (s & (W - 1)); }
static int src_up(int l, unsigned d, int W)
{
    int j = l - (int)(d & 31);
    return j >= (l & ~(W - 1)) ? j : l;
}
static int src_down(int l, unsigned d, int W)
{
    int j = l + (int)(d & 31);
    return j <= (l & ~(W - 1)) + W - 1 ? j : l;
}
static int src_xor(int l, int m, int W)
{
    int j = l ^ (m & 31);
    return j <= (l & ~(W - 1)) + W - 1 ? j : l;
}

template <typename T> void test_shfl_type(const char *name)
{
    const int n = 8 * 32;
    std::vector<T> in(n);
    std::vector<int> src(n), dm(n / 32);
    for (auto &x : in) x = rnd_any<T>();
    T *din = dup(in), *dout = dalloc<T>((size_t)4 * n);
    for (int W = 1; W <= 32; W *= 2) {
        for (auto &s : src) s = (int)(test_rand() % 81) - 40; // outside [0, W) too
        for (int w = 0; w < n / 32; w++) dm[w] = w == 0 ? 0 : w == 1 ? W : (int)(test_rand() % 32);
        int *dsrc = dup(src), *ddm = dup(dm);
        k_shfl<T><<<2, n / 2>>>(din, dsrc, ddm, dout, W, n);
        CUDA_OK(cudaGetLastError());
        std::vector<T> got = back(dout, (size_t)4 * n);
        std::vector<T> want(4 * n);
        for (int t = 0; t < n; t++) {
            const int b = t & ~31, l = t & 31, d = dm[t / 32];
            want[0 * n + t] = in[b + src_idx(l, src[t], W)];
            want[1 * n + t] = in[b + src_up(l, (unsigned)d, W)];
            want[2 * n + t] = in[b + src_down(l, (unsigned)d, W)];
            want[3 * n + t] = in[b + src_xor(l, d, W)];
        }
        static const char *const what[4] = {"shfl", "shfl_up", "shfl_down", "shfl_xor"};
        for (int k = 0; k < 4; k++) cmp_bits(&got[(size_t)k * n], &want[(size_t)k * n], n, what[k], name, "", W);
        cudaFree(dsrc);
        cudaFree(ddm);
    }
    cudaFree(din);
    cudaFree(dout);
}

static void test_vote()
{
    const int NWARP = 16, n = NWARP * 32;
    std::vector<unsigned> pred(n), vals(n), mask(NWARP);
    std::vector<u64> v64(n);
    std::vector<int> ivals(n);
    for (int t = 0; t < n; t++) {
        pred[t] = (unsigned)(test_rand() % 3 == 0);
        vals[t] = (unsigned)(test_rand() % 4) * 0x40000001u; // few distinct values, wide range
        v64[t] = (test_rand() % 3) << (t % 2 ? 40 : 0);      // same low word, different high
        ivals[t] = (int)test_rand();                         // adds wrap (the hardware's rule)
    }
    for (int w = 0; w < NWARP; w++)
        mask[w] = w < 4 ? FULL_MASK : w == 4 ? 1u : w == 5 ? 0x80000000u : (unsigned)test_rand() | 1u << (w % 32);
    unsigned *dp = dup(pred), *dv = dup(vals), *dm = dup(mask), *dout = dalloc<unsigned>((size_t)18 * n);
    u64 *d64 = dup(v64);
    int *di = dup(ivals);
    k_vote<<<2, n / 2>>>(dp, dv, d64, di, dm, dout, n);
    CUDA_OK(cudaGetLastError());
    std::vector<unsigned> got = back(dout, (size_t)18 * n);
    int bad[18] = {0};
    for (int t = 0; t < n; t++) {
        const int w = t / 32, l = t % 32, b = 32 * w;
        const unsigned m = mask[w];
        if (!((m >> l) & 1u)) {
            for (int k = 0; k < 18; k++) bad[k] += got[(size_t)k * n + t] != ~0u; // untouched
            continue;
        }
        unsigned ballot = 0, match = 0, match64 = 0, add = 0, mn = ~0u, mx = 0;
        int iadd = 0, imn = 0x7fffffff, imx = (int)0x80000000;
        for (int j = 0; j < 32; j++) {
            if (!((m >> j) & 1u)) continue;
            if (pred[b + j]) ballot |= 1u << j;
            if (vals[b + j] == vals[t]) match |= 1u << j;
            if (v64[b + j] == v64[t]) match64 |= 1u << j;
            add += vals[b + j];
            mn = vals[b + j] < mn ? vals[b + j] : mn;
            mx = vals[b + j] > mx ? vals[b + j] : mx;
            iadd = (int)((unsigned)iadd + (unsigned)ivals[b + j]);
            imn = ivals[b + j] < imn ? ivals[b + j] : imn;
            imx = ivals[b + j] > imx ? ivals[b + j] : imx;
        }
        const unsigned want[18] = {(unsigned)__builtin_popcount(ballot & ((1u << l) - 1u)),
                                   (unsigned)__builtin_popcount(ballot),
                                   match, match, match64, match64,
                                   add, mn, mx, (unsigned)iadd, (unsigned)imn, (unsigned)imx,
                                   add, mn, mx, (unsigned)iadd, (unsigned)imn, (unsigned)imx};
        for (int k = 0; k < 18; k++) {
            if (got[(size_t)k * n + t] != want[k] && bad[k]++ == 0)
                fprintf(stderr, "vote item %d, warp %d (mask %08x) lane %d: %08x, expected %08x\n", k, w, m, l,
                        got[(size_t)k * n + t], want[k]);
        }
    }
    static const char *const what[18] = {
        "warp_ballot_rank",          "warp_ballot_rank count",   "warp_match_any u32",
        "match_any_shfl u32",        "warp_match_any u64",       "match_any_shfl u64",
        "warp_reduce_add_u32",       "warp_reduce_min_u32",      "warp_reduce_max_u32",
        "warp_reduce_add_i32",       "warp_reduce_min_i32",      "warp_reduce_max_i32",
        "reduce_sync_shfl add u32",  "reduce_sync_shfl min u32", "reduce_sync_shfl max u32",
        "reduce_sync_shfl add i32",  "reduce_sync_shfl min i32", "reduce_sync_shfl max i32"};
    for (int k = 0; k < 18; k++) CHECK(bad[k] == 0, "%s: %d lanes wrong", what[k], bad[k]);
    cudaFree(dp);
    cudaFree(dv);
    cudaFree(dm);
    cudaFree(dout);
    cudaFree(d64);
    cudaFree(di);
}

static void test_aggregate()
{
    const int NWARP = 8, n = NWARP * 32;
    std::vector<int> keys(n);
    std::vector<unsigned> v(n), mask(NWARP);
    for (int t = 0; t < n; t++) {
        keys[t] = (t / 32) % 2 ? 5 : (int)(test_rand() % 4) - 1; // all-equal warps and mixed ones
        v[t] = (unsigned)test_rand();
    }
    for (int w = 0; w < NWARP; w++) mask[w] = w < 4 ? FULL_MASK : (unsigned)test_rand() | 1u << (w % 32);
    int *dk = dup(keys);
    unsigned *dv = dup(v), *dm = dup(mask), *dout = dalloc<unsigned>((size_t)2 * n);
    k_aggregate<<<2, n / 2>>>(dk, dv, dm, dout, n);
    CUDA_OK(cudaGetLastError());
    std::vector<unsigned> got = back(dout, (size_t)2 * n);
    int bad = 0;
    for (int t = 0; t < n; t++) {
        const int w = t / 32, l = t % 32, b = 32 * w;
        const unsigned m = mask[w];
        if (!((m >> l) & 1u)) continue;
        unsigned sum = 0;
        int first = -1;
        for (int j = 0; j < 32; j++)
            if (((m >> j) & 1u) && keys[b + j] == keys[t]) {
                sum += v[b + j];
                if (first < 0) first = j;
            }
        if ((got[t] != sum || got[n + t] != (unsigned)(first == l)) && bad++ == 0)
            fprintf(stderr, "warp_aggregate_add warp %d lane %d: sum %08x leader %u, expected %08x %d\n", w, l,
                    got[t], got[n + t], sum, first == l);
    }
    CHECK(bad == 0, "warp_aggregate_add: %d lanes wrong", bad);
    cudaFree(dk);
    cudaFree(dv);
    cudaFree(dm);
    cudaFree(dout);
}

static void test_lane()
{
    const int shapes[2][2] = {{32, 3}, {24, 4}};
    for (int s = 0; s < 2; s++) {
        const int bx = shapes[s][0], by = shapes[s][1], n = bx * by;
        unsigned *d = dalloc<unsigned>((size_t)2 * n);
        k_lane<<<1, dim3(bx, by)>>>(d);
        CUDA_OK(cudaGetLastError());
        std::vector<unsigned> got = back(d, (size_t)2 * n);
        int bad = 0;
        for (int t = 0; t < n; t++)
            bad += got[2 * t] != (unsigned)(t % 32) || got[2 * t + 1] != (1u << (t % 32)) - 1u;
        CHECK(bad == 0, "lane_id / lanemask_lt, block %dx%d: %d threads wrong", bx, by, bad);
        cudaFree(d);
    }
}

int main(int argc, char **argv)
{
    cupat_ctx *ctx = test_init(argc, argv);
    if (t_backend != CUPAT_BACKEND_CUDA) {
        printf("SKIP: cupat_warp.cuh is device code (run with --backend cuda)\n");
        cupat_destroy(ctx);
        return TEST_SKIP;
    }
    test_seed();
    test_lane();
    test_aggregate();

    test_warp_type<OpSum>(0u);
    test_warp_type<OpMin>(~0u);
    test_warp_type<OpMax>(0u);
    test_warp_type<OpSum>(0);
    test_warp_type<OpMin>(0x7fffffff);
    test_warp_type<OpMax>((int)0x80000000);
    test_warp_type<OpSum>(0ull);
    test_warp_type<OpMin>(~0ull);
    test_warp_type<OpMax>(0ull);
    test_warp_type<OpSum>(0ll);
    test_warp_type<OpMin>((i64)INT64_MAX);
    test_warp_type<OpMax>((i64)INT64_MIN);
    test_warp_type<OpSum>(-0.0f);
    test_warp_type<OpMin>(INFINITY);
    test_warp_type<OpMax>(-INFINITY);
    test_warp_type<OpSum>(-0.0);
    test_warp_type<OpMin>((double)INFINITY);
    test_warp_type<OpMax>(-(double)INFINITY);

    test_blocks<32>();
    test_blocks<64>();
    test_blocks<96>();
    test_blocks<128>();
    test_blocks<256>();
    test_blocks<512>();
    test_blocks<1024>();

    test_shfl_type<uint8_t>("u8");
    test_shfl_type<uint16_t>("u16");
    test_shfl_type<unsigned>("u32");
    test_shfl_type<u64>("u64");
    test_shfl_type<double>("f64");
    test_shfl_type<S12>("12-byte struct");

    test_vote();
    return test_finish(ctx);
}
