// SPDX-License-Identifier: Apache-2.0
// sort_book.cu — the radix-sort rungs of PMPP ch. 13 on CUDA. Keys are
// sorted on their order bits (Xf: the first pass maps the input keys, the
// last maps them back; between passes the buffers hold order bits), bits
// [lo, hi) of them, least significant digit first; every pass is a stable
// split, so the sort is stable.
//
//   radix_1bit  13.2  per bit: k_bit writes each key's bit (u64), cupat's
//                     decoupled exclusive scan counts the ones before each
//                     key, k_split1 scatters: a 0 to i - ones_before, a 1 to
//                     zeros + ones_before. Three kernels and about 8 + 16 +
//                     2x(key+value) bytes a key a bit; the scatter's writes
//                     land far apart (uncoalesced).
//   local_sort  13.3  per bit: k_local sorts each 1024-key tile in shared
//                     memory by the bit (a block scan of the ones), writes the
//                     tile back sorted and its two bucket counts to a table
//                     laid out bucket-major ([bucket][block]); the table is
//                     scanned; k_scatter moves each tile's buckets to
//                     table-scan + rank-in-bucket: runs of consecutive
//                     addresses, coalesced.
//   multibit    13.4  the same with 4-bit digits (four 1-bit splits in shared
//                     memory, 16 buckets): a quarter of the passes.
//   coarsened   13.5  4-bit digits, 128 threads x 16 keys: tiles of 2048,
//                     so half the blocks and table of multibit's and longer
//                     runs in the scatter.
#include "scan/lookback.cuh"
#include "sort/sort_device.cuh"

namespace cupat_sort_dev {

typedef unsigned long long u64;

// ------------------------------------------------------------ 1 bit ----
constexpr int B1_BLOCK = 256;

template <typename U>
__global__ void k_bit(const U *__restrict__ src, size_t n, int bit, Xf<U> xi, u64 *__restrict__ flag)
{
    const size_t i = (size_t)blockIdx.x * B1_BLOCK + threadIdx.x;
    if (i < n) flag[i] = (xi.fwd(src[i]) >> bit) & 1u;
}

template <typename U, typename V>
__global__ void k_split1(const U *__restrict__ src, const V *__restrict__ vsrc, size_t n, int bit, Xf<U> xi, Xf<U> xo,
                         const u64 *__restrict__ ones_before, U *__restrict__ dst, V *__restrict__ vdst)
{
    const size_t i = (size_t)blockIdx.x * B1_BLOCK + threadIdx.x;
    if (i >= n) return;
    const u64 ones = ones_before[n - 1] + ((xi.fwd(src[n - 1]) >> bit) & 1u);
    const U t = xi.fwd(src[i]);
    const size_t o = ((t >> bit) & 1u) ? (size_t)(n - ones + ones_before[i]) : (size_t)(i - ones_before[i]);
    dst[o] = xo.inv(t);
    if constexpr (HasV<V>::value) vdst[o] = vsrc[i];
}

template <typename U, typename V> cupat_status sort_1bit(cupat_ctx *ctx, const sort_req *r)
{
    const size_t n = r->n;
    const int P = r->hi - r->lo;
    const size_t st_bytes = cupat_scan_dev::exclusive_sum_u64_state_bytes(n);
    Carver c{nullptr, 0};
    c.take<U>(n);
    if (HasV<V>::value) c.take<V>(n);
    c.take<u64>(n);
    c.take<u64>(n);
    c.take<char>(st_bytes);
    void *base;
    CUPAT_TRY(cupat__scratch(ctx, c.off, &base));
    c = Carver{(char *)base, 0};
    PingPong<U, V> pp{(const U *)r->kin, (const V *)r->vin, (U *)r->kout, nullptr, (V *)r->vout, nullptr, P};
    pp.kalt = c.take<U>(n);
    if (HasV<V>::value) pp.valt = c.take<V>(n);
    u64 *flag = c.take<u64>(n), *before = c.take<u64>(n);
    void *state = c.take<char>(st_bytes);
    CUPAT_TRY(pp.prepare(ctx, n));
    const Xf<U> user = Xf<U>::of(r->x), id = Xf<U>::identity();
    const unsigned g = grid_of(n, B1_BLOCK);
    for (int p = 0; p < P; p++) {
        const Xf<U> xi = p == 0 ? user : id, xo = p == P - 1 ? user : id;
        k_bit<U><<<g, B1_BLOCK, 0, ctx->stream>>>(pp.ksrc(p), n, r->lo + p, xi, flag);
        CUPAT_TRY(cupat__launched(ctx, "k_bit"));
        CUPAT_TRY(cupat_scan_dev::exclusive_sum_u64(ctx, flag, before, n, state));
        k_split1<U, V><<<g, B1_BLOCK, 0, ctx->stream>>>(pp.ksrc(p), pp.vsrc(p), n, r->lo + p, xi, xo, before,
                                                        pp.kdst(p), pp.vdst(p));
        CUPAT_TRY(cupat__launched(ctx, "k_split1"));
    }
    return CUPAT_SUCCESS;
}

// ------------------------------------------------- local sort + scatter --
// One pass on R bits at `shift` (the last pass of a range may have fewer:
// `width`). Tile = BLOCK x ITEMS keys, blocked (thread t holds t*ITEMS ..).
template <int BLOCK, int ITEMS, typename U, typename V>
__global__ void __launch_bounds__(BLOCK)
    k_local(const U *__restrict__ src, const V *__restrict__ vsrc, size_t n, int shift, int width, Xf<U> xi,
            U *__restrict__ loc, V *__restrict__ vloc, u64 *__restrict__ table, size_t nblocks)
{
    constexpr int TILE = BLOCK * ITEMS;
    __shared__ U sk[TILE];
    __shared__ typename std::conditional<HasV<V>::value, V, char>::type sv[HasV<V>::value ? TILE : 1];
    __shared__ unsigned cnt[16];
    const size_t base = (size_t)blockIdx.x * TILE;
    const unsigned valid = n - base < (size_t)TILE ? (unsigned)(n - base) : (unsigned)TILE;
    // Coalesced loads through shared memory, then blocked in registers.
    for (int x = threadIdx.x; x < TILE; x += BLOCK) {
        if ((unsigned)x < valid) {
            sk[x] = xi.fwd(src[base + x]);
            if constexpr (HasV<V>::value) sv[x] = vsrc[base + x];
        }
    }
    if (threadIdx.x < 16) cnt[threadIdx.x] = 0;
    __syncthreads();
    U key[ITEMS];
    typename std::conditional<HasV<V>::value, V, char>::type val[ITEMS];
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        key[j] = sk[threadIdx.x * ITEMS + j];
        if constexpr (HasV<V>::value) val[j] = sv[threadIdx.x * ITEMS + j];
    }
    // PMPP 13.3: one stable split a bit, each a block scan of the ones.
    for (int b = 0; b < width; b++) {
        unsigned bitv[ITEMS], ones = 0;
#pragma unroll
        for (int j = 0; j < ITEMS; j++) {
            // empty slots (the last tile) count as 1s: they stay behind
            const unsigned idx = threadIdx.x * ITEMS + j;
            bitv[j] = idx < valid ? (unsigned)((key[j] >> (shift + b)) & 1u) : 1u;
            ones += bitv[j];
        }
        unsigned total;
        unsigned run = cupat_dev::block_exclusive_scan<BLOCK>(ones, cupat_dev::OpSum(), 0u, total);
        const unsigned zeros = TILE - total;
        __syncthreads(); // the registers were loaded from sk: done reading
#pragma unroll
        for (int j = 0; j < ITEMS; j++) {
            const unsigned idx = threadIdx.x * ITEMS + j;
            const unsigned o = bitv[j] ? zeros + run : idx - run;
            run += bitv[j];
            sk[o] = key[j];
            if constexpr (HasV<V>::value) sv[o] = val[j];
        }
        __syncthreads();
#pragma unroll
        for (int j = 0; j < ITEMS; j++) {
            key[j] = sk[threadIdx.x * ITEMS + j];
            if constexpr (HasV<V>::value) val[j] = sv[threadIdx.x * ITEMS + j];
        }
    }
    // Bucket counts of the tile; the sorted tile leaves coalesced.
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        const unsigned idx = threadIdx.x * ITEMS + j;
        if (idx < valid) atomicAdd(&cnt[(unsigned)(key[j] >> shift) & ((1u << width) - 1u)], 1u);
    }
    __syncthreads();
    if ((int)threadIdx.x < (1 << width)) table[(size_t)threadIdx.x * nblocks + blockIdx.x] = cnt[threadIdx.x];
    for (int x = threadIdx.x; x < (int)valid; x += BLOCK) {
        loc[base + x] = sk[x];
        if constexpr (HasV<V>::value) vloc[base + x] = sv[x];
    }
}

template <int BLOCK, int ITEMS, typename U, typename V>
__global__ void __launch_bounds__(BLOCK)
    k_scatter(const U *__restrict__ loc, const V *__restrict__ vloc, size_t n, int shift, int width, Xf<U> xo,
              const u64 *__restrict__ table, const u64 *__restrict__ scanned, size_t nblocks, U *__restrict__ dst,
              V *__restrict__ vdst)
{
    constexpr int TILE = BLOCK * ITEMS;
    __shared__ u64 start[16], goff[16];
    const size_t base = (size_t)blockIdx.x * TILE;
    const unsigned valid = n - base < (size_t)TILE ? (unsigned)(n - base) : (unsigned)TILE;
    if (threadIdx.x == 0) {
        u64 run = 0;
        for (int d = 0; d < (1 << width); d++) {
            start[d] = run;
            run += table[(size_t)d * nblocks + blockIdx.x];
            goff[d] = scanned[(size_t)d * nblocks + blockIdx.x];
        }
    }
    __syncthreads();
    for (int x = threadIdx.x; x < (int)valid; x += BLOCK) {
        const U t = loc[base + x];
        const unsigned d = (unsigned)(t >> shift) & ((1u << width) - 1u);
        const size_t o = goff[d] + (x - start[d]);
        dst[o] = xo.inv(t);
        if constexpr (HasV<V>::value) vdst[o] = vloc[base + x];
    }
}

template <int BLOCK, int ITEMS, int R, typename U, typename V>
cupat_status sort_local(cupat_ctx *ctx, const sort_req *r)
{
    constexpr int TILE = BLOCK * ITEMS;
    const size_t n = r->n, nb = (n + TILE - 1) / TILE, nt = nb << R;
    const int P = (r->hi - r->lo + R - 1) / R;
    const size_t st_bytes = cupat_scan_dev::exclusive_sum_u64_state_bytes(nt);
    Carver c{nullptr, 0};
    c.take<U>(n);
    c.take<U>(n);
    if (HasV<V>::value) {
        c.take<V>(n);
        c.take<V>(n);
    }
    c.take<u64>(nt);
    c.take<u64>(nt);
    c.take<char>(st_bytes);
    void *base;
    CUPAT_TRY(cupat__scratch(ctx, c.off, &base));
    c = Carver{(char *)base, 0};
    PingPong<U, V> pp{(const U *)r->kin, (const V *)r->vin, (U *)r->kout, nullptr, (V *)r->vout, nullptr, P};
    pp.kalt = c.take<U>(n);
    U *loc = c.take<U>(n);
    V *vloc = nullptr;
    if (HasV<V>::value) {
        pp.valt = c.take<V>(n);
        vloc = c.take<V>(n);
    }
    u64 *table = c.take<u64>(nt), *scanned = c.take<u64>(nt);
    void *state = c.take<char>(st_bytes);
    CUPAT_TRY(pp.prepare(ctx, n));
    // Bucket counts of tiles with fewer than 2^R buckets in use stay 0.
    CUPAT_CUDA_TRY(ctx, cudaMemsetAsync(table, 0, nt * sizeof(u64), ctx->stream));
    const Xf<U> user = Xf<U>::of(r->x), id = Xf<U>::identity();
    for (int p = 0; p < P; p++) {
        const int shift = r->lo + p * R, width = r->hi - shift < R ? r->hi - shift : R;
        const Xf<U> xi = p == 0 ? user : id, xo = p == P - 1 ? user : id;
        k_local<BLOCK, ITEMS, U, V><<<(unsigned)nb, BLOCK, 0, ctx->stream>>>(pp.ksrc(p), pp.vsrc(p), n, shift, width,
                                                                            xi, loc, vloc, table, nb);
        CUPAT_TRY(cupat__launched(ctx, "k_local"));
        CUPAT_TRY(cupat_scan_dev::exclusive_sum_u64(ctx, table, scanned, nt, state));
        k_scatter<BLOCK, ITEMS, U, V><<<(unsigned)nb, BLOCK, 0, ctx->stream>>>(
            loc, vloc, n, shift, width, xo, table, scanned, nb, pp.kdst(p), pp.vdst(p));
        CUPAT_TRY(cupat__launched(ctx, "k_scatter"));
    }
    return CUPAT_SUCCESS;
}

struct BookDispatch {
    cupat_ctx *ctx;
    const sort_req *r;
    template <typename U, typename V> cupat_status operator()() const
    {
        switch (r->rung) {
        case SOR_RADIX_1BIT: return sort_1bit<U, V>(ctx, r);
        case SOR_LOCAL_SORT: return sort_local<256, 4, 1, U, V>(ctx, r);
        case SOR_MULTIBIT: return sort_local<256, 4, 4, U, V>(ctx, r);
        case SOR_COARSENED: return sort_local<128, 16, 4, U, V>(ctx, r);
        default: return cupat__fail(ctx, CUPAT_ERROR_INTERNAL, "%s: sort rung %d in sort_book.cu", r->fn, r->rung);
        }
    }
};

} // namespace cupat_sort_dev

extern "C" cupat_status cupat__sort_book_cuda(cupat_ctx *ctx, const sort_req *r)
{
    return cupat_sort_dev::dispatch_kv(r->ksize, r->vsize, cupat_sort_dev::BookDispatch{ctx, r});
}
