// SPDX-License-Identifier: Apache-2.0
// sort_onesweep.cu — the default CUDA sort: an Onesweep-class LSD radix sort
// (Adinets & Merrill 2022, "Onesweep: a faster least significant digit
// radix sort for GPUs"; CUB's DeviceRadixSort onesweep path).
//
//   1. k_upsweep: one read of the keys counts every 8-bit digit of every
//      pass at once (shared-memory histograms, P x 256 bins a block, added to
//      global counters), and notes whether the keys are already in order or
//      in strictly reverse order: then k_ordered copies them and every
//      pass returns at once (k_pass_reset).
//   2. k_bins: per pass, the exclusive scan of the 256 digit totals: where
//      each digit's keys start in the output.
//   3. one k_onesweep launch a digit pass, each block one tile of
//      BLOCK x ITEMS keys taken in order from an atomic counter:
//        - keys loaded warp-striped (coalesced), mapped to order bits;
//        - ranked in shared memory (BlockRank: per-warp counters, warp match
//          for equal digits, a block scan of the digit totals), which gives
//          each key its place in the tile sorted by digit;
//        - the tile's count of each digit published at once in a status word
//          (2 flag bits + 30 count bits: A = tile count only, P = inclusive
//          prefix), one word a (tile, digit), thread d for digit d;
//        - thread d walks back over the preceding tiles' words for digit d,
//          adding A counts until a P (decoupled look-back, Merrill & Garland
//          2016), publishes its own P;
//        - keys scattered into shared memory by rank, then written out
//          striped: consecutive keys of one digit go to consecutive
//          addresses (coalesced runs); values follow the same way.
//      So each pass reads the keys once and writes them once: about
//      2 (key + value) bytes a key a pass, plus the upsweep's one read.
// Status counts have 30 bits: the keys are processed in portions of fewer
// than 2^30, one launch a portion, so n may exceed 2^32. A portion's digit
// bases are the previous portion's plus its digit counts in this pass
// (k_portion_bases); the upsweep gives only the pass totals.
// Bit ranges trim the passes: ceil((hi - lo) / 8) of them, the last one with
// the leftover bits. Up to 4096 keys, one block sorts everything in shared
// memory (block_sort).
#include "sort/sort_device.cuh"

namespace cupat_sort_dev {

constexpr unsigned FLAG_A = 1u << 30, FLAG_P = 2u << 30, VALUE_MASK = (1u << 30) - 1;
constexpr int UP_BLOCK = 256, UP_ITEMS = 16;

// Tuning: threads, keys a thread and blocks an SM by key and value width,
// the largest tiles whose registers (keys and their places; values come in
// after the keys have gone out) fit MINB blocks an SM without
// spilling (ptxas -v), and whose shared memory (counters, keys, values)
// fits them too. u32 keys with 4-byte values take CUB's shape instead, 23
// keys at two blocks an SM: 9.37 ms at 2^28 on the H100 against 10.16 for
// 18 at three (fewer, larger tiles).
template <typename U, typename V> struct OsCfg {
    static constexpr bool K8 = sizeof(U) == 8, V8 = HasV<V>::value && sizeof(V) == 8;
    static constexpr int BLOCK = 384;
    static constexpr bool P44 = !K8 && HasV<V>::value && !V8; // u32 keys, 4-byte values
    static constexpr int ITEMS = K8 ? (HasV<V>::value ? 15 : 14) : P44 ? 23 : (HasV<V>::value ? 18 : 20);
    static constexpr int MINB = V8 || P44 || (K8 && HasV<V>::value) ? 2 : 3;
};

// *order (one word after hist, zeroed with it): bit 0 is set once some key
// is above its successor in the sort bits (the keys are not already in
// order), bit 1 once some key is not strictly above its successor (they are
// not in strictly reverse order). `more` keys past len may be read as the
// last key's successor (the next portion's first key). Both tests ride on
// the upsweep's one read: a warp's neighbour comes by shuffle, the next
// warp's first key by one load a warp.
template <typename U>
__global__ void __launch_bounds__(UP_BLOCK) k_upsweep(const U *__restrict__ src, size_t len, size_t more, Xf<U> xi,
                                                      int lo, int hi, unsigned *__restrict__ hist,
                                                      unsigned *__restrict__ order)
{
    __shared__ unsigned h[8 * RADIX];
    const int P = (hi - lo + 7) / 8;
    for (int i = threadIdx.x; i < P * RADIX; i += UP_BLOCK) h[i] = 0;
    // Each pass's shift and digit mask, worked out once (unrolled: registers).
    int sh[8];
    unsigned mk[8];
#pragma unroll
    for (int p = 0; p < 8; p++) {
        sh[p] = lo + 8 * p;
        const int width = hi - sh[p] < 8 ? hi - sh[p] : 8;
        mk[p] = p < P ? (1u << width) - 1u : 0u;
    }
    // the sort bits [lo, hi) of an order key, for the order tests
    const U bits = (hi - lo == 8 * (int)sizeof(U) ? ~(U)0 : (((U)1 << (hi - lo)) - 1)) << lo;
    const unsigned lane = cupat_dev::lane_id();
    bool up = false, flat = false; // a descent seen; a pair not strictly descending seen
    // Warp-uniform: a warp stops testing once it has seen both (random keys:
    // after its first chunk), so the tests cost almost nothing where they
    // cannot succeed.
    bool testing = order != nullptr;
    __syncthreads();
    // Chunks of UP_BLOCK x UP_ITEMS keys: a thread's UP_ITEMS loads are all
    // issued before its first count (bytes in flight), then counted.
    constexpr size_t CHUNK = (size_t)UP_BLOCK * UP_ITEMS;
    for (size_t c0 = (size_t)blockIdx.x * CHUNK; c0 < len; c0 += (size_t)gridDim.x * CHUNK) {
        U t[UP_ITEMS];
        const bool whole = len - c0 >= CHUNK;
#pragma unroll
        for (int k = 0; k < UP_ITEMS; k++) {
            const size_t i = c0 + (size_t)k * UP_BLOCK + threadIdx.x;
            if (whole || i < len) t[k] = src[i];
        }
        if (testing) {
            // lane 31's successor is the next warp's first key, the last
            // key's the one past the portion: loaded here, not beside t (an
            // array of them cost the upsweep registers: u64 keys sorted
            // 8% slower on the H100, 17.2 against 15.9 ms at 2^28)
#pragma unroll
            for (int k = 0; k < UP_ITEMS; k++) {
                const size_t i = c0 + (size_t)k * UP_BLOCK + threadIdx.x;
                const U x = xi.fwd(t[k]);
                U y = cupat_dev::shfl_down(x, 1);
                if ((lane == 31 || i + 1 == len) && i + 1 < len + more) y = xi.fwd(src[i + 1]);
                if ((whole || i < len) && i + 1 < len + more) {
                    up |= (x & bits) > (y & bits);
                    flat |= (x & bits) <= (y & bits);
                }
            }
            testing = !(__any_sync(0xffffffffu, up) && __any_sync(0xffffffffu, flat));
        }
#pragma unroll
        for (int k = 0; k < UP_ITEMS; k++) {
            if (!whole && c0 + (size_t)k * UP_BLOCK + threadIdx.x >= len) break;
            const U x = xi.fwd(t[k]);
#pragma unroll
            for (int p = 0; p < 8 * (int)sizeof(U) / 8 && p < 8; p++)
                if (p < P) atomicAdd(&h[p * RADIX + ((unsigned)(x >> sh[p]) & mk[p])], 1u);
        }
    }
    const int seen_up = __syncthreads_or(up), seen_flat = __syncthreads_or(flat);
    if (order && threadIdx.x == 0 && (seen_up || seen_flat)) atomicOr(order, (seen_up ? 1u : 0u) | (seen_flat ? 2u : 0u));
    for (int i = threadIdx.x; i < P * RADIX; i += UP_BLOCK)
        if (h[i]) atomicAdd(&hist[i], h[i]);
}

// hist[q][p][d] (Q portions, P passes) -> bins[0][p][d]: where the keys of
// digit d start in pass p's output (the totals over all portions, in 64
// bits). Portion q > 0's bases are known only once portion q - 1 of that
// pass has run (k_portion_bases): its keys are the pass's input at those
// positions, which after the first pass are not the input's.
__global__ void __launch_bounds__(RADIX) k_bins(const unsigned *__restrict__ hist, u64 *__restrict__ bins, int Q, int P)
{
    const int d = threadIdx.x;
    for (int p = 0; p < P; p++) {
        u64 tot = 0;
        for (int q = 0; q < Q; q++) tot += hist[((size_t)q * P + p) * RADIX + d];
        u64 all;
        bins[(size_t)p * RADIX + d] = cupat_dev::block_exclusive_scan<RADIX>(tot, cupat_dev::OpSum(), 0ull, all);
    }
}

// next[d] = bins[d] + the count of digit d in the portion just sorted: its
// last tile's inclusive status word (a full tile: only the last portion has
// a short one, and it has no successor).
__global__ void __launch_bounds__(RADIX) k_portion_bases(const u64 *__restrict__ bins,
                                                         const unsigned *__restrict__ last, u64 *__restrict__ next)
{
    const int d = threadIdx.x;
    next[d] = bins[d] + (last[d] & VALUE_MASK);
}

template <int BLOCK, int ITEMS, typename U, typename V> struct OsSmem {
    typedef BlockRank<BLOCK, ITEMS> BR;
    static constexpr int TILE = BLOCK * ITEMS;
    static constexpr size_t GOFF = BR::SMEM_WORDS * 4; // after the rank counters
    static constexpr size_t KEYS = GOFF + RADIX * sizeof(u64);
    static constexpr size_t VALS = KEYS + ((size_t)TILE * sizeof(U) + 15) / 16 * 16;
    static constexpr size_t BYTES = VALS + (HasV<V>::value ? (size_t)TILE * sizeof(V) : 0);
};

// Keys the upsweep found already in order need no digit pass: k_ordered
// copies them to the output (stable: the identity) and k_pass_reset makes
// every pass's blocks return at once (their tile counter starts past the
// end). Keys in strictly reverse order (no ties, so stability is not at
// stake) are copied reversed. Sorting in place with an even pass count, the
// reversal goes through the scratch buffer (a first k_ordered launch: kin ->
// alt, a second: alt -> kout). On keys in neither order both kernels cost a
// launch and one load a block (k_pass_reset then zeroes as a memset would).
constexpr unsigned SKIP_TILES = 0x80000000u; // a tile counter past any portion's end
__device__ __forceinline__ bool keys_ordered(unsigned order) { return order != 3u; }

template <typename U, typename V>
__global__ void __launch_bounds__(256) k_ordered(const unsigned *__restrict__ order, const U *ksrc, const V *vsrc,
                                                 U *kout, V *vout, U *kalt, V *valt, size_t n, int via_alt, int second)
{
    const unsigned o = *order;
    if (!keys_ordered(o)) return;
    const bool rev = (o & 1u) != 0;
    if (second && !rev) return; // the second launch only brings a reversal back from alt
    const bool flip = rev && !second;
    U *kd = flip && via_alt ? kalt : kout;
    V *vd = flip && via_alt ? valt : vout;
    if (second) ksrc = kalt, vsrc = valt;
    const bool kmove = flip || (const void *)ksrc != (const void *)kd; // in place and in order: nothing moves
    const bool vmove = HasV<V>::value && (flip || (const void *)vsrc != (const void *)vd);
    constexpr int UNROLL = 8;
    const size_t step = (size_t)gridDim.x * blockDim.x * UNROLL;
    for (size_t b = (size_t)blockIdx.x * blockDim.x * UNROLL + threadIdx.x; b < n; b += step) {
        U k[UNROLL];
        V v[UNROLL];
#pragma unroll
        for (int j = 0; j < UNROLL; j++) {
            const size_t i = b + (size_t)j * blockDim.x;
            if (i < n && kmove) k[j] = ksrc[i];
            if constexpr (HasV<V>::value)
                if (i < n && vmove) v[j] = vsrc[i];
        }
#pragma unroll
        for (int j = 0; j < UNROLL; j++) {
            const size_t i = b + (size_t)j * blockDim.x, at = flip ? n - 1 - i : i;
            if (i < n && kmove) kd[at] = k[j];
            if constexpr (HasV<V>::value)
                if (i < n && vmove) vd[at] = v[j];
        }
    }
}

// Before each pass (and portion): zero the tile counter and the status
// words the pass will use, or, for keys in order, park the counter past the
// end so that the pass's blocks return at once.
__global__ void __launch_bounds__(256) k_pass_reset(const unsigned *__restrict__ order, unsigned *counter,
                                                    uint4 *__restrict__ status, size_t quads)
{
    const bool skip = keys_ordered(*order);
    if (blockIdx.x == 0 && threadIdx.x == 0) *counter = skip ? SKIP_TILES : 0u;
    if (skip) return;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < quads; i += (size_t)gridDim.x * blockDim.x)
        status[i] = make_uint4(0, 0, 0, 0);
}

// One digit pass over one portion: src / dst point at the portion's first
// key (dst: the whole output, offsets from bins are global).
template <int BLOCK, int ITEMS, int MINB, typename U, typename V>
__global__ void __launch_bounds__(BLOCK, MINB)
    k_onesweep(const U *__restrict__ src, const V *__restrict__ vsrc, size_t len, U *__restrict__ dst,
               V *__restrict__ vdst, int shift, int width, Xf<U> xi, Xf<U> xo, const u64 *__restrict__ bins,
               unsigned *__restrict__ counter, unsigned *__restrict__ status)
{
    static_assert(BLOCK >= RADIX, "one thread a digit for the look-back");
    typedef OsSmem<BLOCK, ITEMS, U, V> SM;
    typedef BlockRank<BLOCK, ITEMS> BR;
    constexpr int TILE = SM::TILE;
    extern __shared__ __align__(16) unsigned char smem[];
    BR br((unsigned *)smem);
    u64 *goff = (u64 *)(smem + SM::GOFF);
    U *sk = (U *)(smem + SM::KEYS);
    __shared__ unsigned s_tile;
    if (threadIdx.x == 0) s_tile = atomicAdd(counter, 1u);
    __syncthreads();
    const unsigned tile = s_tile;
    const size_t t0 = (size_t)tile * TILE;
    if (t0 >= len) return; // keys already in order: k_pass_reset parked the counter past the end
    const unsigned valid = len - t0 < (size_t)TILE ? (unsigned)(len - t0) : (unsigned)TILE;
    const unsigned lane = cupat_dev::lane_id(), w = threadIdx.x / 32;
    const unsigned e0 = w * 32 * ITEMS + lane; // this thread's first element (warp-striped)

    U key[ITEMS];
    unsigned pos[ITEMS];
    const U *ps = src + t0 + e0;
    auto load_keys = [&](auto fwd) {
        if (valid == (unsigned)TILE) {
#pragma unroll
            for (int j = 0; j < ITEMS; j++) key[j] = fwd(ps[j * 32]);
        } else {
#pragma unroll
            for (int j = 0; j < ITEMS; j++) key[j] = e0 + j * 32 < valid ? fwd(ps[j * 32]) : ~(U)0;
        }
    };
    if (xi.is_identity()) load_keys([](U u) { return u; });
    else load_keys([&](U u) { return xi.fwd(u); });
    // A short tile is padded with the largest key: the padding ranks after
    // every real key (largest digit, highest element index) and is never
    // written; its count reaches only this tile's own digit-max status word,
    // which no later tile of the portion reads (it is the last).
    auto dg = [&](int j) { return digit_of(key[j], shift, width); };
    __shared__ unsigned s_d0; // the digit of the tile's first key (count_digits' barriers publish it)
    if (threadIdx.x == 0) s_d0 = dg(0);
    br.template count_digits<true>(dg);

    // Publish this tile's digit counts at once: successors looking back
    // need them, and ranking the keys takes a while.
    const unsigned d = threadIdx.x;
    unsigned cnt = 0;
    if (d < RADIX) {
        cnt = br.count[d];
        st_relaxed(&status[(size_t)tile * RADIX + d], (tile == 0 ? FLAG_P : FLAG_A) | cnt);
    }
    // Every key of the tile has the same digit (sorted or low-entropy keys,
    // the top digits of small keys): the tile order is already the sorted
    // order, no ranking needed (Onesweep's short circuit). The test is the
    // same in every thread, without a barrier of its own. The counts include
    // a short tile's padding (digit pad_d): where the first key has that
    // digit too, all TILE slots must, or padding would stand in for real
    // keys of other digits and they would be written unranked.
    const unsigned pad_d = (1u << width) - 1u;
    if (br.count[s_d0] == (s_d0 == pad_d ? (unsigned)TILE : valid)) {
#pragma unroll
        for (int j = 0; j < ITEMS; j++) pos[j] = e0 + j * 32;
    } else {
        br.template place<true>(dg, pos);
    }
#pragma unroll
    for (int j = 0; j < ITEMS; j++)
        if (e0 + j * 32 < valid) sk[pos[j]] = key[j];
    if (d < RADIX) {
        unsigned excl = 0;
        if (tile > 0) {
            long long k = (long long)tile - 1;
            for (;;) {
                const unsigned s = ld_relaxed(&status[(size_t)k * RADIX + d]);
                if ((s & ~VALUE_MASK) == 0) continue; // not published yet
                excl += s & VALUE_MASK;
                if (s & FLAG_P) break;
                k--;
            }
            st_relaxed(&status[(size_t)tile * RADIX + d], FLAG_P | (excl + cnt));
        }
        goff[d] = bins[d] + excl - br.start[d];
    }
    __syncthreads();
    auto write_keys = [&](auto inv) {
#pragma unroll
        for (int k = 0; k < ITEMS; k++) {
            const unsigned i = threadIdx.x + k * BLOCK;
            if (i < valid) {
                const U t = sk[i];
                dst[goff[digit_of(t, shift, width)] + i] = inv(t);
            }
        }
    };
    if (xo.is_identity()) write_keys([](U t) { return t; });
    else write_keys([&](U t) { return xo.inv(t); });
    // Values last (as Onesweep does): their registers are not held while the
    // keys are ranked. Measured on the H100 (u32 pairs, 2^28): loaded here,
    // 10.26 ms; loaded before the look-back, 10.70 (they delayed it);
    // copied by cp.async under the key stores, 10.94.
    if constexpr (HasV<V>::value) {
        V *sv = (V *)(smem + SM::VALS);
#pragma unroll
        for (int j = 0; j < ITEMS; j++)
            if (e0 + j * 32 < valid) sv[pos[j]] = vsrc[t0 + e0 + j * 32];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < ITEMS; k++) {
            const unsigned i = threadIdx.x + k * BLOCK;
            if (i < valid) vdst[goff[digit_of(sk[i], shift, width)] + i] = sv[i];
        }
    }
}

// Small inputs: one block sorts all of them in shared memory.
constexpr int SMALL_BLOCK = 512, SMALL_ITEMS = 8, SMALL_MAX = SMALL_BLOCK * SMALL_ITEMS;

template <typename U, typename V>
__global__ void __launch_bounds__(SMALL_BLOCK)
    k_sort_small(const U *kin, const V *vin, U *kout, V *vout, unsigned len, Xf<U> xf, int lo, int hi)
{
    extern __shared__ __align__(16) unsigned char smem[];
    block_sort<SMALL_BLOCK, SMALL_ITEMS, U, V>(kin, vin, kout, vout, len, xf, xf, lo, hi, smem);
}

template <typename U, typename V> cupat_status onesweep(cupat_ctx *ctx, const sort_req *r)
{
    const size_t n = r->n;
    const Xf<U> user = Xf<U>::of(r->x), id = Xf<U>::identity();
    if (n <= (size_t)SMALL_MAX) {
        constexpr size_t SMEM = block_sort_smem<SMALL_BLOCK, SMALL_ITEMS, U>();
        auto k = k_sort_small<U, V>;
        CUPAT_CUDA_TRY(ctx, cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)SMEM));
        k<<<1, SMALL_BLOCK, SMEM, ctx->stream>>>((const U *)r->kin, (const V *)r->vin, (U *)r->kout, (V *)r->vout,
                                                  (unsigned)n, user, r->lo, r->hi);
        return cupat__launched(ctx, "k_sort_small");
    }
    typedef OsCfg<U, V> CF;
    constexpr int BLOCK = CF::BLOCK, ITEMS = CF::ITEMS, TILE = BLOCK * ITEMS;
    typedef OsSmem<BLOCK, ITEMS, U, V> SM;
    const int P = (r->hi - r->lo + 7) / 8;
    size_t ptiles = VALUE_MASK / TILE;
    if (cupat__sort_portion_tiles > 0 && cupat__sort_portion_tiles < ptiles) ptiles = cupat__sort_portion_tiles;
    const size_t portion = ptiles * TILE;
    const int Q = (int)((n + portion - 1) / portion);
    const size_t tiles_max = (n < portion ? (n + TILE - 1) / TILE : ptiles);
    const size_t st_bytes = 256 + tiles_max * RADIX * sizeof(unsigned);
    Carver c{nullptr, 0};
    c.take<U>(n);
    if (HasV<V>::value) c.take<V>(n);
    c.take<unsigned>((size_t)Q * P * RADIX + 1);
    c.take<u64>((size_t)Q * P * RADIX);
    c.take<char>(st_bytes);
    void *base;
    CUPAT_TRY(cupat__scratch(ctx, c.off, &base));
    c = Carver{(char *)base, 0};
    PingPong<U, V> pp{(const U *)r->kin, (const V *)r->vin, (U *)r->kout, nullptr, (V *)r->vout, nullptr, P};
    pp.kalt = c.take<U>(n);
    if (HasV<V>::value) pp.valt = c.take<V>(n);
    unsigned *hist = c.take<unsigned>((size_t)Q * P * RADIX + 1);
    u64 *bins = c.take<u64>((size_t)Q * P * RADIX);
    char *st = c.take<char>(st_bytes);
    unsigned *counter = (unsigned *)st, *status = (unsigned *)(st + 256);

    unsigned *order = hist + (size_t)Q * P * RADIX; // k_upsweep's two bits
    CUPAT_CUDA_TRY(ctx, cudaMemsetAsync(hist, 0, ((size_t)Q * P * RADIX + 1) * sizeof(unsigned), ctx->stream));
    const unsigned up_cap = (unsigned)(ctx->sm_count > 0 ? ctx->sm_count * 8 : 1024);
    for (int q = 0; q < Q; q++) {
        const size_t q0 = (size_t)q * portion, len = n - q0 < portion ? n - q0 : portion;
        unsigned g = grid_of(len, (size_t)UP_BLOCK * UP_ITEMS);
        if (g > up_cap) g = up_cap;
        k_upsweep<U><<<g, UP_BLOCK, 0, ctx->stream>>>((const U *)r->kin + q0, len, n - q0 - len, user, r->lo, r->hi,
                                                       hist + (size_t)q * P * RADIX, order);
        CUPAT_TRY(cupat__launched(ctx, "k_upsweep"));
    }
    k_bins<<<1, RADIX, 0, ctx->stream>>>(hist, bins, Q, P);
    CUPAT_TRY(cupat__launched(ctx, "k_bins"));
    const bool aliased = (const void *)pp.kin == (const void *)pp.kout ||
                         (HasV<V>::value && (const void *)pp.vin == (const void *)pp.vout);
    CUPAT_TRY(pp.prepare(ctx, n));
    {
        const int via_alt = P % 2 == 0 && aliased;
        size_t g = (n + 2047) / 2048, cap = (size_t)(ctx->sm_count > 0 ? ctx->sm_count * 8 : 1024);
        if (g > cap) g = cap;
        for (int second = 0; second <= via_alt; second++) {
            k_ordered<U, V><<<(unsigned)g, 256, 0, ctx->stream>>>(order, pp.kin, pp.vin, pp.kout, pp.vout, pp.kalt,
                                                                  pp.valt, n, via_alt, second);
            CUPAT_TRY(cupat__launched(ctx, "k_ordered"));
        }
    }

    auto k = k_onesweep<BLOCK, ITEMS, CF::MINB, U, V>;
    CUPAT_CUDA_TRY(ctx, cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)SM::BYTES));
    for (int p = 0; p < P; p++) {
        const int shift = r->lo + 8 * p, width = r->hi - shift < 8 ? r->hi - shift : 8;
        const Xf<U> xi = p == 0 ? user : id, xo = p == P - 1 ? user : id;
        for (int q = 0; q < Q; q++) {
            const size_t q0 = (size_t)q * portion, len = n - q0 < portion ? n - q0 : portion;
            const size_t tiles = (len + TILE - 1) / TILE;
            const size_t quads = tiles * RADIX / 4;
            size_t g = (quads + 255) / 256, cap = (size_t)(ctx->sm_count > 0 ? ctx->sm_count * 4 : 512);
            k_pass_reset<<<(unsigned)(g < cap ? g : cap), 256, 0, ctx->stream>>>(order, counter, (uint4 *)status, quads);
            CUPAT_TRY(cupat__launched(ctx, "k_pass_reset"));
            const V *vs = HasV<V>::value ? pp.vsrc(p) + q0 : nullptr;
            k<<<(unsigned)tiles, BLOCK, SM::BYTES, ctx->stream>>>(pp.ksrc(p) + q0, vs, len, pp.kdst(p), pp.vdst(p),
                                                                  shift, width, xi, xo,
                                                                  bins + ((size_t)q * P + p) * RADIX, counter, status);
            CUPAT_TRY(cupat__launched(ctx, "k_onesweep"));
            if (q + 1 < Q) {
                k_portion_bases<<<1, RADIX, 0, ctx->stream>>>(bins + ((size_t)q * P + p) * RADIX,
                                                              status + (tiles - 1) * RADIX,
                                                              bins + ((size_t)(q + 1) * P + p) * RADIX);
                CUPAT_TRY(cupat__launched(ctx, "k_portion_bases"));
            }
        }
    }
    return CUPAT_SUCCESS;
}

struct OnesweepDispatch {
    cupat_ctx *ctx;
    const sort_req *r;
    template <typename U, typename V> cupat_status operator()() const { return onesweep<U, V>(ctx, r); }
};

} // namespace cupat_sort_dev

extern "C" cupat_status cupat__sort_onesweep_cuda(cupat_ctx *ctx, const sort_req *r)
{
    return cupat_sort_dev::dispatch_kv(r->ksize, r->vsize, cupat_sort_dev::OnesweepDispatch{ctx, r});
}
