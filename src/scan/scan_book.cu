// SPDX-License-Identifier: Apache-2.0
// scan_book.cu — the PMPP ch. 11 rungs of the "scan" ladder and their
// launchers; the entry point of every CUDA rung but SR_DECOUPLED (the
// beyond-the-books multi-pass rungs are in scan_multi.cu).
//
//   k_kogge_stone     11.2  Kogge-Stone, in place in shared memory
//   k_kogge_stone_db  11.2  Kogge-Stone, double-buffered
//   k_brent_kung      11.4  Brent-Kung, 2 elements a thread
//   k_coarsened       11.5  three-phase coarsened scan
//   k_hier_tiles,     11.6  hierarchical: scan tiles (the coarsened scan) +
//   k_hier_add              tile totals, scan the totals, add back
//   k_domino          11.7  single kernel, adjacent-block flags
//
// The first four are the book's one-block kernels. The book runs them on
// one section of blockDim (or 2 x blockDim, or the coarsened section)
// elements; here one block walks the whole array section by section and
// carries the running total (the section's last output) into the next, so
// they are correct for any n, and as slow as one SM is: that is the lesson
// of 11.6. The in-shared-memory algorithm IS each rung's lesson, so these
// kernels keep their trees inline instead of calling core's warp helpers.
//
// All rungs: any n (size_t indices, capped grids that loop), in place
// (every tile is read whole before it is written, and by its own block),
// pointers aligned to the element only (scalar accesses), exclusive scans
// by shifting by one inside the tile on the way out (no extra pass), fixed
// trees (float sums have the same bits run after run).
#include "scan/scan_book.cuh"

#include <mutex>

using namespace cupat_scanbook;
using namespace cupat_scanbook_dev;

namespace {

constexpr unsigned KS_BLOCK = 1024;             // 11.2: one element a thread
constexpr unsigned BK_BLOCK = 1024;             // 11.4: two elements a thread
constexpr unsigned BK_SEC = 2 * BK_BLOCK;
constexpr unsigned CO_BLOCK = 256, CO_C = 8;    // 11.5: 8 elements a thread
constexpr unsigned CO_TILE = CO_BLOCK * CO_C;   // 2048

// Write output j of a section whose local inclusive scan is s[] (after the
// barrier that ends the scan): inclusive s[j], exclusive s[j-1] (shifted by
// one; j = 0 has no local part), each behind the carry when there is one.
template <class S, typename T>
__device__ __forceinline__ void put(T *y, size_t n, size_t base, unsigned j, const typename S::Acc *s,
                                    bool excl, bool has_carry, typename S::Acc carry, typename S::Acc empty)
{
    const size_t i = base + j;
    if (i >= n) return;
    const bool has_local = !excl || j > 0;
    const typename S::Acc local = excl ? (j > 0 ? s[j - 1] : empty) : s[j];
    y[i] = (T)join<S>(has_carry, carry, has_local, local, empty);
}

// =============================================================== 11.2 ==
// Kogge-Stone (PMPP 11.2): after step d, s[i] holds the sum of
// the 2d elements ending at i; log2(SEC) steps, SEC log2(SEC) adds (not work
// efficient). In place, as in the book: s[i] += s[i - d] reads a value that
// another thread overwrites in the same step, so every step needs a barrier
// between all reads and all writes (the value goes through a register) and
// another before the next step's reads: two barriers a step.
template <typename T, int OP>
__global__ void __launch_bounds__(KS_BLOCK) k_kogge_stone(const T *x, T *y, size_t n, int excl)
{
    typedef ScanOp<T, OP> S;
    typedef typename S::Acc Acc;
    __shared__ Acc s[KS_BLOCK];
    const unsigned tid = threadIdx.x;
    Acc carry = S::identity();
    bool has_carry = false;
    for (size_t base = 0; base < n; base += KS_BLOCK) {
        __syncthreads(); // the previous section's readers of s are done
        s[tid] = ld_elem<S>(x, n, base + tid);
        for (unsigned d = 1; d < KS_BLOCK; d *= 2) {
            __syncthreads(); // the previous step's writes are visible
            Acc t = S::identity();
            if (tid >= d) t = S::comb(s[tid - d], s[tid]);
            __syncthreads(); // every read of this step is done (write-after-read)
            if (tid >= d) s[tid] = t;
        }
        __syncthreads();
        put<S>(y, n, base, tid, s, excl, has_carry, carry, S::first());
        const Acc tot = s[KS_BLOCK - 1];
        carry = has_carry ? S::comb(carry, tot) : tot;
        has_carry = true;
    }
}

// Kogge-Stone, double-buffered (PMPP 11.2's remedy for the race): step k
// reads one shared buffer and writes the other, so no thread
// overwrites what another still reads in the same step; the buffers swap
// roles and the write-after-read race is gone with one barrier a step.
template <typename T, int OP>
__global__ void __launch_bounds__(KS_BLOCK) k_kogge_stone_db(const T *x, T *y, size_t n, int excl)
{
    typedef ScanOp<T, OP> S;
    typedef typename S::Acc Acc;
    __shared__ Acc buf[2][KS_BLOCK];
    const unsigned tid = threadIdx.x;
    Acc carry = S::identity();
    bool has_carry = false;
    for (size_t base = 0; base < n; base += KS_BLOCK) {
        __syncthreads(); // the previous section's readers of buf are done
        buf[0][tid] = ld_elem<S>(x, n, base + tid);
        int in = 0;
        for (unsigned d = 1; d < KS_BLOCK; d *= 2) {
            __syncthreads(); // buf[in] is complete; nobody reads buf[in ^ 1] any more
            const Acc v = buf[in][tid];
            buf[in ^ 1][tid] = tid >= d ? S::comb(buf[in][tid - d], v) : v;
            in ^= 1;
        }
        __syncthreads();
        put<S>(y, n, base, tid, buf[in], excl, has_carry, carry, S::first());
        const Acc tot = buf[in][KS_BLOCK - 1];
        carry = has_carry ? S::comb(carry, tot) : tot;
        has_carry = true;
    }
}

// =============================================================== 11.4 ==
// Brent-Kung (PMPP 11.4): a reduction tree up (step d: the
// element at (t+1)2d - 1 adds the one d before it) leaves the sums of
// aligned power-of-two blocks, a distribution tree down (the element at
// (t+1)2d - 1 + d adds the one at (t+1)2d - 1) completes the prefixes;
// 2 log2(SEC) - 1 steps, about 2 SEC adds (work efficient). Each thread
// owns two elements; at every step the indices written and read are
// distinct, so one barrier a step suffices.
template <typename T, int OP>
__global__ void __launch_bounds__(BK_BLOCK) k_brent_kung(const T *x, T *y, size_t n, int excl)
{
    typedef ScanOp<T, OP> S;
    typedef typename S::Acc Acc;
    __shared__ Acc s[BK_SEC];
    const unsigned tid = threadIdx.x;
    Acc carry = S::identity();
    bool has_carry = false;
    for (size_t base = 0; base < n; base += BK_SEC) {
        __syncthreads(); // the previous section's readers of s are done
        s[tid] = ld_elem<S>(x, n, base + tid);
        s[tid + BK_BLOCK] = ld_elem<S>(x, n, base + tid + BK_BLOCK);
        for (unsigned d = 1; d <= BK_BLOCK; d *= 2) { // reduction tree
            __syncthreads();
            const unsigned i = (tid + 1) * 2 * d - 1;
            if (i < BK_SEC) s[i] = S::comb(s[i - d], s[i]);
        }
        for (unsigned d = BK_SEC / 4; d > 0; d /= 2) { // distribution tree
            __syncthreads();
            const unsigned i = (tid + 1) * 2 * d - 1;
            if (i + d < BK_SEC) s[i + d] = S::comb(s[i], s[i + d]);
        }
        __syncthreads();
        put<S>(y, n, base, tid, s, excl, has_carry, carry, S::first());
        put<S>(y, n, base, tid + BK_BLOCK, s, excl, has_carry, carry, S::first());
        const Acc tot = s[BK_SEC - 1];
        carry = has_carry ? S::comb(carry, tot) : tot;
        has_carry = true;
    }
}

// =============================================================== 11.5 ==
// The coarsened three-phase scan of one tile of CO_TILE elements, loaded
// into s[] (coalesced: element j by thread j % CO_BLOCK) and followed by a
// barrier. Phase 1: thread t scans its sub-section s[tC, tC + C) serially
// (C - 1 adds; the book's layout, C-way bank conflicts included). Phase 2:
// Kogge-Stone over the CO_BLOCK thread totals (double-buffered). Phase 3:
// thread t > 0 adds total t - 1's prefix to its sub-section. Ends with a
// barrier; s[] then holds the tile's inclusive scan.
template <class S> struct CoShared {
    typename S::Acc s[CO_TILE];
    typename S::Acc tot[2][CO_BLOCK];
};

template <class S> __device__ __forceinline__ void coarsened_scan(CoShared<S> &sh)
{
    typedef typename S::Acc Acc;
    const unsigned tid = threadIdx.x;
    Acc *p = sh.s + tid * CO_C;
    Acc run = p[0];
#pragma unroll
    for (unsigned q = 1; q < CO_C; q++) {
        run = S::comb(run, p[q]);
        p[q] = run;
    }
    sh.tot[0][tid] = run;
    int in = 0;
    for (unsigned d = 1; d < CO_BLOCK; d *= 2) {
        __syncthreads();
        const Acc v = sh.tot[in][tid];
        sh.tot[in ^ 1][tid] = tid >= d ? S::comb(sh.tot[in][tid - d], v) : v;
        in ^= 1;
    }
    __syncthreads();
    if (tid > 0) {
        const Acc pre = sh.tot[in][tid - 1];
#pragma unroll
        for (unsigned q = 0; q < CO_C; q++) p[q] = S::comb(pre, p[q]);
    }
    __syncthreads();
}

template <class S, typename T>
__device__ __forceinline__ void coarsened_load(CoShared<S> &sh, const T *x, size_t n, size_t base)
{
#pragma unroll
    for (unsigned k = 0; k < CO_C; k++) {
        const unsigned j = k * CO_BLOCK + threadIdx.x;
        sh.s[j] = ld_elem<S>(x, n, base + j);
    }
}

// Coarsened scan (PMPP 11.5), one block walking the array.
template <typename T, int OP>
__global__ void __launch_bounds__(CO_BLOCK) k_coarsened(const T *x, T *y, size_t n, int excl)
{
    typedef ScanOp<T, OP> S;
    typedef typename S::Acc Acc;
    __shared__ CoShared<S> sh;
    Acc carry = S::identity();
    bool has_carry = false;
    for (size_t base = 0; base < n; base += CO_TILE) {
        __syncthreads(); // the previous section's readers of sh are done
        coarsened_load(sh, x, n, base);
        __syncthreads();
        coarsened_scan(sh);
#pragma unroll
        for (unsigned k = 0; k < CO_C; k++)
            put<S>(y, n, base, k * CO_BLOCK + threadIdx.x, sh.s, excl, has_carry, carry, S::first());
        const Acc tot = sh.s[CO_TILE - 1];
        carry = has_carry ? S::comb(carry, tot) : tot;
        has_carry = true;
    }
}

// =============================================================== 11.6 ==
// Hierarchical scan (PMPP 11.6), kernel 1: each tile scanned by the
// coarsened scan and written back tile-local (exclusive: shifted by one,
// the tile's first slot the identity, y[0] ScanOp::first()); the tile's
// total goes to sums[b]. Blocks loop over tiles (capped grid). Kernel 2 is
// this same kernel one level up, in place on the totals, until a level
// fits one tile (any n). Kernel 3 below adds the scanned totals back.
template <typename T, int OP>
__global__ void __launch_bounds__(CO_BLOCK)
    k_hier_tiles(const T *x, T *y, size_t n, size_t ntiles, typename ScanOp<T, OP>::Acc *sums, int excl)
{
    typedef ScanOp<T, OP> S;
    __shared__ CoShared<S> sh;
    for (size_t b = blockIdx.x; b < ntiles; b += gridDim.x) {
        const size_t base = b * CO_TILE;
        __syncthreads(); // the previous tile's readers of sh are done
        coarsened_load(sh, x, n, base);
        __syncthreads();
        coarsened_scan(sh);
        const typename S::Acc empty = b == 0 ? S::first() : S::identity();
#pragma unroll
        for (unsigned k = 0; k < CO_C; k++)
            put<S>(y, n, base, k * CO_BLOCK + threadIdx.x, sh.s, excl, false, S::identity(), empty);
        if (sums && threadIdx.x == 0) sums[b] = sh.s[CO_TILE - 1];
    }
}

// Kernel 3: tile b > 0 gets the inclusive scan of the totals before it.
template <typename T, int OP>
__global__ void __launch_bounds__(CO_BLOCK)
    k_hier_add(T *y, size_t n, size_t ntiles, const typename ScanOp<T, OP>::Acc *sums)
{
    typedef ScanOp<T, OP> S;
    typedef typename S::Acc Acc;
    for (size_t b = (size_t)blockIdx.x + 1; b < ntiles; b += gridDim.x) {
        const Acc pre = sums[b - 1];
#pragma unroll
        for (unsigned k = 0; k < CO_C; k++) {
            const size_t i = b * CO_TILE + k * CO_BLOCK + threadIdx.x;
            if (i < n) y[i] = (T)S::comb(pre, (Acc)y[i]);
        }
    }
}

// =============================================================== 11.7 ==
// Domino / stream-based scan (PMPP 11.7): one kernel; a block scans its tile
// (the coarsened scan), then thread 0 waits until the tile to its left has
// published its running sum, adds its own total and publishes that for the
// tile to its right. Tile ids come from an atomic counter in the order
// blocks start (PMPP 11.7's dynamic block index), so the tile a block waits
// for belongs to a block that already runs: no deadlock, whatever the
// scheduler does. A block takes its next tile only when it has finished its
// current one, so a grid of any size (capped here at what the device holds)
// loops over every tile. Publication: sums[t], then flags[t] = 1 with
// st.release.gpu; the waiter reads the flag with ld.acquire.gpu, then the
// sum from L2 (PTX memory model: the release/acquire pair orders the sum's
// write before its read). Flags and counter are zeroed before the launch.
template <typename T, int OP>
__global__ void __launch_bounds__(CO_BLOCK)
    k_domino(const T *x, T *y, size_t n, size_t ntiles, typename ScanOp<T, OP>::Acc *sums,
             unsigned long long *flags, unsigned long long *counter, int excl)
{
    typedef ScanOp<T, OP> S;
    typedef typename S::Acc Acc;
    __shared__ CoShared<S> sh;
    __shared__ unsigned long long tile_s;
    __shared__ Acc prev_s;
    for (;;) {
        __syncthreads(); // the previous tile's readers of sh, tile_s, prev_s are done
        if (threadIdx.x == 0) tile_s = atomicAdd(counter, 1ull);
        __syncthreads();
        const size_t t = (size_t)tile_s;
        if (t >= ntiles) break; // the same in every thread
        const size_t base = t * CO_TILE;
        coarsened_load(sh, x, n, base);
        __syncthreads();
        coarsened_scan(sh);
        if (threadIdx.x == 0) {
            const Acc tot = sh.s[CO_TILE - 1];
            Acc run = tot;
            if (t > 0) {
                while (cupat_red::ld_acquire(flags + (t - 1)) == 0) __nanosleep(32);
                const Acc prev = cupat_red::load_cg(sums + (t - 1));
                prev_s = prev;
                run = S::comb(prev, tot);
            }
            if (t + 1 < ntiles) {
                sums[t] = run;
                cupat_red::st_release(flags + t, 1ull);
            }
        }
        __syncthreads();
        const Acc carry = t > 0 ? prev_s : S::identity();
#pragma unroll
        for (unsigned k = 0; k < CO_C; k++)
            put<S>(y, n, base, k * CO_BLOCK + threadIdx.x, sh.s, excl, t > 0, carry, S::first());
    }
}

// ============================================================ launchers ==

template <typename T, int OP> struct Book {
    typedef ScanOp<T, OP> S;
    typedef typename S::Acc Acc;
    cupat_ctx *ctx;
    const scan_req *r;
    const T *x;
    T *y;
    size_t n;
    int excl;

    cupat_status launched(const char *k) { return cupat__launched(ctx, k); }

    cupat_status one_block(int rung)
    {
        cudaStream_t st = ctx->stream;
        switch (rung) {
        case SR_KOGGE_STONE:
            k_kogge_stone<T, OP><<<1, KS_BLOCK, 0, st>>>(x, y, n, excl);
            return launched("k_kogge_stone");
        case SR_KOGGE_STONE_DB:
            k_kogge_stone_db<T, OP><<<1, KS_BLOCK, 0, st>>>(x, y, n, excl);
            return launched("k_kogge_stone_db");
        case SR_BRENT_KUNG:
            k_brent_kung<T, OP><<<1, BK_BLOCK, 0, st>>>(x, y, n, excl);
            return launched("k_brent_kung");
        default:
            k_coarsened<T, OP><<<1, CO_BLOCK, 0, st>>>(x, y, n, excl);
            return launched("k_coarsened");
        }
    }

    // 11.6: level k of m[k] elements; level 0 is x -> y (type T), the levels
    // above are the tile totals (type Acc, scanned in place, inclusive).
    cupat_status hierarchical()
    {
        size_t m[MAX_LEVELS];
        const int K = hier_levels(n, CO_TILE, m, MAX_LEVELS);
        Carve c;
        size_t off[MAX_LEVELS] = {0};
        for (int k = 1; k <= K; k++) off[k] = c.take(m[k] * sizeof(Acc));
        unsigned char *scr = nullptr;
        if (K > 0) {
            void *p = nullptr;
            CUPAT_TRY(cupat__scratch(ctx, c.off, &p));
            scr = (unsigned char *)p;
        }
        Acc *lv[MAX_LEVELS] = {nullptr};
        for (int k = 1; k <= K; k++) lv[k] = (Acc *)(scr + off[k]);
        cudaStream_t st = ctx->stream;
        // Down: scan the tiles of each level, totals to the next one.
        for (int k = 0; k <= K; k++) {
            const size_t nt = cdiv(m[k], CO_TILE);
            const unsigned g = (unsigned)dmin(nt, GRID_CAP);
            Acc *sums = k < K ? lv[k + 1] : nullptr;
            if (k == 0)
                k_hier_tiles<T, OP><<<g, CO_BLOCK, 0, st>>>(x, y, n, nt, sums, excl);
            else
                k_hier_tiles<Acc, OP><<<g, CO_BLOCK, 0, st>>>(lv[k], lv[k], m[k], nt, sums, 0);
            CUPAT_TRY(launched("k_hier_tiles"));
        }
        // Up: add each level's scanned totals to the level below.
        for (int k = K - 1; k >= 0; k--) {
            const size_t nt = cdiv(m[k], CO_TILE);
            const unsigned g = (unsigned)dmin(nt - 1, GRID_CAP);
            if (k == 0)
                k_hier_add<T, OP><<<g, CO_BLOCK, 0, st>>>(y, n, nt, lv[1]);
            else
                k_hier_add<Acc, OP><<<g, CO_BLOCK, 0, st>>>(lv[k], m[k], nt, lv[k + 1]);
            CUPAT_TRY(launched("k_hier_add"));
        }
        return CUPAT_SUCCESS;
    }

    cupat_status domino()
    {
        const size_t nt = cdiv(n, CO_TILE);
        Carve c;
        const size_t o_ctr = c.take(sizeof(unsigned long long));
        const size_t o_flags = c.take(nt * sizeof(unsigned long long));
        const size_t o_sums = c.take(nt * sizeof(Acc));
        const size_t zero_bytes = o_sums; // counter and flags
        void *p = nullptr;
        CUPAT_TRY(cupat__scratch(ctx, c.off, &p));
        unsigned char *scr = (unsigned char *)p;
        cudaStream_t st = ctx->stream;
        CUPAT_CUDA_TRY(ctx, cudaMemsetAsync(scr, 0, zero_bytes, st));
        const size_t res = (size_t)ctx->sm_count *
                           resident_per_sm(ctx, (const void *)k_domino<T, OP>, CO_BLOCK);
        const unsigned g = (unsigned)dmin(dmin(nt, res < 1 ? 1 : res), GRID_CAP);
        k_domino<T, OP><<<g, CO_BLOCK, 0, st>>>(x, y, n, nt, (Acc *)(scr + o_sums),
                                                 (unsigned long long *)(scr + o_flags),
                                                 (unsigned long long *)(scr + o_ctr), excl);
        return launched("k_domino");
    }

    cupat_status run()
    {
        switch (r->rung) {
        case SR_KOGGE_STONE:
        case SR_KOGGE_STONE_DB:
        case SR_BRENT_KUNG:
        case SR_COARSENED: return one_block(r->rung);
        case SR_HIERARCHICAL: return hierarchical();
        case SR_DOMINO: return domino();
        }
        return cupat__fail(ctx, CUPAT_ERROR_INTERNAL, "%s: rung %d is not a scan_book.cu rung", r->fn,
                           r->rung);
    }
};

// ------------------------------------------------------- summation depth --
// (scan_book.cuh: walk_depth, hier_depth; the path counts below are per
// element, the bound of output i is gamma(depth) * sum_{j<=i} |x_j|.)
//
// Kogge-Stone over S = 1024: the path from x_j to output i gains one add at
// every step d <= (its position <= i): at most clog2(S) adds, clog2(n)
// within one partial section. L = T = log2(S).
//
// Brent-Kung over S = 2048 (lg = log2 S = 11): the up-sweep leaves at
// position p the sum of an aligned block of 2^k elements, a balanced tree k
// adds deep. The prefix of p is the sum of the blocks of the binary
// decomposition of p + 1, largest first, and the down-sweep adds them left
// to right: ((B1 + B2) + B3) + ... So an element of B1 (size 2^k1, k1 =
// floor(log2(p + 1))) goes through k1 adds up and popcount(p + 1) - 1 adds
// down. Over p + 1 <= m: m a power of two 2^k gives max(k, 2k - 2) (the
// block itself, or 2^k - 1 = k ones), otherwise 2 floor(log2 m) at most. A
// full section: L = 2 lg - 2 = 20; its total (the root) T = lg = 11.
//
// Coarsened, C = 8, B = 256: phase 1 takes an element through at most C - 1
// adds to its thread's total, phase 2 (Kogge-Stone) through at most log2 B,
// phase 3 one: L = T = C - 1 + log2 B + 1 = C + log2 B = 16.
size_t coarsened_L() { return CO_C + clog2(CO_BLOCK); }
size_t brent_kung_L(size_t m)
{
    const size_t k = clog2(m + 1) - 1; // floor(log2 m)
    if (((size_t)1 << k) != m) return 2 * k;
    return k >= 2 ? 2 * k - 2 : k;
}

size_t book_depth(const cupat_ctx *ctx, int rung, size_t n)
{
    switch (rung) {
    case SR_KOGGE_STONE:
    case SR_KOGGE_STONE_DB: {
        const size_t L = clog2(KS_BLOCK), nsec = cdiv(n, KS_BLOCK);
        return nsec <= 1 ? clog2(n) : walk_depth(nsec, L, L);
    }
    case SR_BRENT_KUNG: {
        const size_t nsec = cdiv(n, BK_SEC);
        return nsec <= 1 ? brent_kung_L(n) : walk_depth(nsec, brent_kung_L(BK_SEC), clog2(BK_SEC));
    }
    case SR_COARSENED: return walk_depth(cdiv(n, CO_TILE), coarsened_L(), coarsened_L());
    case SR_HIERARCHICAL: return hier_depth(n, CO_TILE, coarsened_L(), coarsened_L());
    // The domino chain is the walk's: run(t) = run(t - 1) + total(t).
    case SR_DOMINO: return walk_depth(cdiv(n, CO_TILE), coarsened_L(), coarsened_L());
    }
    return n;
}

} // namespace

// Resident blocks per SM, asked once per (kernel, device).
int cupat_scanbook::resident_per_sm(const cupat_ctx *ctx, const void *kernel, int block)
{
    static std::mutex mu;
    static struct {
        const void *k;
        int dev, block, v;
    } tab[256];
    static int ntab;
    std::lock_guard<std::mutex> lock(mu);
    for (int i = 0; i < ntab; i++)
        if (tab[i].k == kernel && tab[i].dev == ctx->device && tab[i].block == block) return tab[i].v;
    int nb = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, kernel, block, 0) != cudaSuccess || nb < 1) {
        (void)cudaGetLastError();
        nb = 1;
    }
    if (ntab < 256) tab[ntab++] = {kernel, ctx->device, block, nb};
    return nb;
}

extern "C" cupat_status cupat__scan_book_cuda(cupat_ctx *ctx, const scan_req *r)
{
    if (r->n == 0) return CUPAT_SUCCESS;
    switch (r->rung) {
    case SR_WARP_SHFL:
    case SR_REDUCE_THEN_SCAN:
    case SR_COOP_GRID: return multi_run(ctx, r);
    default: break;
    }
    cupat_status s = dispatch(r->type, r->op, [&](auto tt, auto ot) -> cupat_status {
        typedef typename decltype(tt)::type T;
        constexpr int OP = decltype(ot)::value;
        Book<T, OP> b{ctx, r, (const T *)r->x, (T *)r->y, r->n, r->exclusive ? 1 : 0};
        return b.run();
    });
    if (s == CUPAT_ERROR_INTERNAL && !ctx->err[0])
        return cupat__fail(ctx, s, "%s: type %d / op %d reached the CUDA launcher", r->fn, (int)r->type,
                           (int)r->op);
    return s;
}

extern "C" size_t cupat__scan_book_depth(const cupat_ctx *ctx, int rung, cupat_type t, size_t n)
{
    if (n <= 1) return 0;
    size_t d;
    switch (rung) {
    case SR_WARP_SHFL:
    case SR_REDUCE_THEN_SCAN:
    case SR_COOP_GRID: d = multi_depth(ctx, rung, t, n); break;
    default: d = book_depth(ctx, rung, n); break;
    }
    return dmin(d, n - 1);
}
