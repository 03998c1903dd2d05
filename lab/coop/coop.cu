// SPDX-License-Identifier: Apache-2.0
// coop.cu — the kernels of `cupat lab coop` and their host halves; the
// experiment table and the host references are in coop_lab.c. Every row that
// produces data checks it against the host (u32 sums wrap: exact; the
// Jacobi iteration does one add and one multiply by 0.5 an element: exact).
#include "coop/coop.h"

#include "internal.h"
#include "lab_timing.cuh"

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <utility>

namespace cg = cooperative_groups;

namespace {

using cupat_lab::Bufs;
using cupat_lab::copy;
using cupat_lab::fill;
using cupat_lab::median;
using cupat_lab::timed;

struct Run : cupat_lab::RunBase {
    int sms;
};

cupat_status oom(Run &X)
{
    return cupat__fail(X.ctx, CUPAT_ERROR_OUT_OF_MEMORY, "lab coop: out of host memory");
}

// Upload lab_coop_word(0 .. n) into d.
cupat_status upload_words(Run &X, unsigned *d, size_t n, uint32_t **keep)
{
    uint32_t *h = (uint32_t *)malloc(n * 4);
    if (!h) return oom(X);
    for (size_t i = 0; i < n; i++) h[i] = lab_coop_word(i);
    const cudaError_t e = copy(X.s, d, h, n * 4);
    if (keep && !e) *keep = h;
    else free(h);
    CK(e);
    return CUPAT_SUCCESS;
}

// Words of h that differ from want; the first index in *first.
size_t differ(const uint32_t *h, const uint32_t *want, size_t n, size_t *first)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        if (h[i] != want[i] && !bad++) *first = i;
    return bad;
}

// The sum of a block's values, valid in thread 0: cg::reduce in each warp
// tile, the warps' sums through shared memory, block.sync() between.
__device__ unsigned block_sum(cg::thread_block block, unsigned v)
{
    __shared__ unsigned warp[32];
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    v = cg::reduce(tile, v, cg::plus<unsigned>());
    if (tile.thread_rank() == 0) warp[tile.meta_group_rank()] = v;
    block.sync();
    if (tile.meta_group_rank() == 0) {
        v = tile.thread_rank() < tile.meta_group_size() ? warp[tile.thread_rank()] : 0;
        v = cg::reduce(tile, v, cg::plus<unsigned>());
    }
    block.sync(); // warp[] may be reused by the caller's next call
    return v;
}

// ============================================================ block =====
// What this_thread_block() says, per thread and per block.
__global__ void k_block_view(unsigned *rank, unsigned *meta)
{
    cg::thread_block b = cg::this_thread_block();
    const dim3 ti = b.thread_index(), gi = b.group_index(), dt = b.dim_threads();
    const unsigned blk = gi.x + gridDim.x * (gi.y + gridDim.y * gi.z);
    rank[blk * b.size() + b.thread_rank()] = ti.x + dt.x * (ti.y + dt.y * ti.z);
    if (b.thread_rank() == 0) {
        unsigned *m = meta + 8 * blk;
        m[0] = gi.x, m[1] = gi.y, m[2] = gi.z, m[3] = dt.x, m[4] = dt.y, m[5] = dt.z, m[6] = b.num_threads();
        m[7] = b.size();
    }
}

__global__ void __launch_bounds__(256) k_block_sum(const unsigned *x, size_t n, unsigned *out)
{
    cg::thread_block b = cg::this_thread_block();
    unsigned s = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) s += x[i];
    s = block_sum(b, s);
    if (b.thread_rank() == 0) atomicAdd(out, s);
}

cupat_status exp_block(Run &X)
{
    const dim3 g(3, 2, 2), bd(8, 4, 2);
    const unsigned nb = 12, bt = 64;
    Bufs B;
    unsigned *dr = nullptr, *dm = nullptr;
    CK(B.alloc((void **)&dr, nb * bt * 4));
    CK(B.alloc((void **)&dm, nb * 8 * 4));
    CK(fill(X.s, dr, 0xff, nb * bt * 4));
    CK(fill(X.s, dm, 0xff, nb * 8 * 4));
    k_block_view<<<g, bd, 0, X.s>>>(dr, dm);
    CUPAT_TRY(cupat__launched(X.ctx, "k_block_view"));
    unsigned hr[12 * 64], hm[12 * 8];
    CK(copy(X.s, hr, dr, sizeof hr));
    CK(copy(X.s, hm, dm, sizeof hm));
    lab_row *r = lab_row_add(X.rows, X.n, "grid (3,2,2) of blocks (8,4,2): the group's view");
    unsigned bad = 0;
    for (unsigned blk = 0; blk < nb; blk++) {
        const unsigned *m = hm + 8 * blk;
        bad += m[0] != blk % 3 || m[1] != blk / 3 % 2 || m[2] != blk / 6 || m[3] != 8 || m[4] != 4 || m[5] != 2 ||
               m[6] != bt || m[7] != bt;
        for (unsigned t = 0; t < bt; t++) bad += hr[blk * bt + t] != t; // thread_rank = x + 8 (y + 4 z)
    }
    r->value = nb * bt;
    r->ok = bad == 0;
    lab_row_note(r, "thread_rank = x + dim.x (y + dim.y z), group_index = blockIdx, size = num_threads = 64%s",
                 bad ? "; WRONG" : "");

    // A block reduction of 2^24 words: the warps' cg::reduce, block.sync().
    const size_t n = (size_t)1 << 24;
    unsigned *dx = nullptr, *ds = nullptr;
    uint32_t *hx = nullptr;
    CK(B.alloc((void **)&dx, n * 4));
    CK(B.alloc((void **)&ds, 4));
    CUPAT_TRY(upload_words(X, dx, n, &hx));
    uint32_t want = 0;
    for (size_t i = 0; i < n; i++) want += hx[i];
    free(hx);
    r = lab_row_add(X.rows, X.n, "block sum of 2^24 words (tile reduce + block.sync())");
    const unsigned grid = (unsigned)X.sms * 8;
    CUPAT_TRY(timed(X.ctx, X.reps, X.t, [&]() {
        cudaError_t e = cudaMemsetAsync(ds, 0, 4, X.s);
        if (e) return cupat__cuda(X.ctx, e, "cudaMemsetAsync");
        k_block_sum<<<grid, 256, 0, X.s>>>(dx, n, ds);
        return cupat__launched(X.ctx, "k_block_sum");
    }));
    r->ms = median(X.t, X.reps);
    r->value = n / (r->ms * 1e-3) * 1e-9;
    unsigned got = 0;
    CK(copy(X.s, &got, ds, 4));
    r->ok = got == want;
    lab_row_note(r, "sum %u, host %u", got, want);
    return CUPAT_SUCCESS;
}

// ============================================================ tiles =====
// Static tiles: thread_block_tile<T> has the collectives (shuffles under
// them). Dynamic tiles: thread_group has sync(), size() and thread_rank()
// only, so the same results go through shared memory.
template <unsigned T> __global__ void __launch_bounds__(256) k_tile(const unsigned *x, unsigned *red, unsigned *scan)
{
    cg::thread_block_tile<T> tile = cg::tiled_partition<T>(cg::this_thread_block());
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    const unsigned v = x[i];
    red[i] = cg::reduce(tile, v, cg::plus<unsigned>());
    scan[i] = cg::inclusive_scan(tile, v, cg::plus<unsigned>());
}

__global__ void __launch_bounds__(256) k_tile_dyn(const unsigned *x, unsigned *red, unsigned *scan, unsigned T)
{
    __shared__ unsigned sh[256];
    cg::thread_group tile = cg::tiled_partition(cg::this_thread_block(), T);
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    sh[threadIdx.x] = x[i];
    tile.sync();
    const unsigned base = threadIdx.x - tile.thread_rank();
    unsigned s = 0, p = 0;
    for (unsigned k = 0; k < tile.size(); k++) {
        s += sh[base + k];
        if (k == tile.thread_rank()) p = s;
    }
    red[i] = s;
    scan[i] = p;
}

cupat_status exp_tiles(Run &X)
{
    const size_t n = (size_t)1 << 22;
    Bufs B;
    unsigned *dx = nullptr, *dr = nullptr, *dsc = nullptr;
    CK(B.alloc((void **)&dx, n * 4));
    CK(B.alloc((void **)&dr, n * 4));
    CK(B.alloc((void **)&dsc, n * 4));
    uint32_t *hx = nullptr;
    CUPAT_TRY(upload_words(X, dx, n, &hx));
    uint32_t *wr = (uint32_t *)malloc(n * 4), *ws = (uint32_t *)malloc(n * 4), *h = (uint32_t *)malloc(n * 4);
    cupat_status s = wr && ws && h ? CUPAT_SUCCESS : oom(X);
    static const unsigned sizes[] = {32, 16, 8, 4};
    for (int dyn = 0; dyn <= 1 && !s; dyn++)
        for (unsigned T : sizes) {
            lab_row *r = lab_row_add(X.rows, X.n, dyn ? "tiled_partition(block, %u): thread_group" :
                                                        "tiled_partition<%u>: thread_block_tile", T);
            lab_coop_tile_ref(hx, n, T, wr, ws);
            const unsigned grid = (unsigned)(n / 256);
            cudaError_t e = fill(X.s, dr, 0xff, n * 4);
            if (!e) e = fill(X.s, dsc, 0xff, n * 4);
            if (e) { s = cupat__cuda(X.ctx, e, "cudaMemsetAsync"); break; }
            s = timed(X.ctx, X.reps, X.t, [&]() {
                if (dyn) k_tile_dyn<<<grid, 256, 0, X.s>>>(dx, dr, dsc, T);
                else if (T == 32) k_tile<32><<<grid, 256, 0, X.s>>>(dx, dr, dsc);
                else if (T == 16) k_tile<16><<<grid, 256, 0, X.s>>>(dx, dr, dsc);
                else if (T == 8) k_tile<8><<<grid, 256, 0, X.s>>>(dx, dr, dsc);
                else k_tile<4><<<grid, 256, 0, X.s>>>(dx, dr, dsc);
                return cupat__launched(X.ctx, dyn ? "k_tile_dyn" : "k_tile");
            });
            if (s) break;
            r->ms = median(X.t, X.reps);
            r->value = n / (r->ms * 1e-3) * 1e-9;
            size_t first = 0, bad;
            if ((e = copy(X.s, h, dr, n * 4))) { s = cupat__cuda(X.ctx, e, "read-back"); break; }
            bad = differ(h, wr, n, &first);
            if ((e = copy(X.s, h, dsc, n * 4))) { s = cupat__cuda(X.ctx, e, "read-back"); break; }
            const size_t bad2 = differ(h, ws, n, &first);
            r->ok = bad == 0 && bad2 == 0;
            lab_row_note(r, "%s over 2^22 words: %zu reduce and %zu scan results wrong",
                         dyn ? "sum and prefix through shared memory" : "cg::reduce + cg::inclusive_scan", bad, bad2);
        }
    free(hx), free(wr), free(ws), free(h);
    return s;
}

// ======================================================== coalesced =====
// The lanes that took a branch, as a group: its lane mask (an or-reduce of
// 1 << lane over the group), each lane's rank, the group's sum and prefix.
__global__ void __launch_bounds__(256) k_coalesced(const unsigned *x, unsigned *out, int mode)
{
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    const unsigned v = x[i], lane = threadIdx.x & 31;
    const bool take = mode == 0 ? lane % 3 == 0 : mode == 1 ? (v & 1) != 0 : true;
    unsigned *o = out + 4 * i;
    if (take) {
        cg::coalesced_group g = cg::coalesced_threads();
        o[0] = cg::reduce(g, 1u << lane, cg::bit_or<unsigned>());
        o[1] = g.thread_rank();
        o[2] = cg::reduce(g, v, cg::plus<unsigned>());
        o[3] = cg::inclusive_scan(g, v, cg::plus<unsigned>());
    }
}

cupat_status exp_coalesced(Run &X)
{
    const size_t n = (size_t)1 << 20;
    Bufs B;
    unsigned *dx = nullptr, *d = nullptr;
    CK(B.alloc((void **)&dx, n * 4));
    CK(B.alloc((void **)&d, n * 16));
    uint32_t *hx = nullptr;
    CUPAT_TRY(upload_words(X, dx, n, &hx));
    uint32_t *h = (uint32_t *)malloc(n * 16);
    if (!h) {
        free(hx);
        return oom(X);
    }
    static const char *const names[] = {"if (lane % 3 == 0): 11 lanes a warp", "if (x[i] odd): data-dependent lanes",
                                        "no divergence: the whole warp"};
    cupat_status s = CUPAT_SUCCESS;
    for (int mode = 0; mode < 3 && !s; mode++) {
        lab_row *r = lab_row_add(X.rows, X.n, "coalesced_threads() %s", names[mode]);
        cudaError_t e = fill(X.s, d, 0xff, n * 16);
        if (!e) {
            k_coalesced<<<(unsigned)(n / 256), 256, 0, X.s>>>(dx, d, mode);
            e = cudaGetLastError();
        }
        if (!e) e = copy(X.s, h, d, n * 16);
        if (e) {
            s = cupat__cuda(X.ctx, e, "k_coalesced");
            break;
        }
        size_t bad = 0, lanes = 0, split = 0;
        for (size_t w = 0; w < n / 32; w++) {
            uint32_t take = 0;
            for (unsigned l = 0; l < 32; l++) {
                const uint32_t v = hx[32 * w + l];
                take |= (mode == 0 ? l % 3 == 0 : mode == 1 ? (v & 1) != 0 : 1) ? 1u << l : 0;
            }
            for (unsigned l = 0; l < 32; l++) {
                const uint32_t *o = h + 4 * (32 * w + l);
                if (!(take >> l & 1)) {
                    bad += o[0] != 0xffffffffu; // a lane that did not take the branch wrote nothing
                    continue;
                }
                uint32_t red, scan;
                unsigned rank;
                lanes++;
                // The group's lanes are those the hardware ran together: a
                // subset of `take` (independent thread scheduling may split
                // it; counted); the collectives must match that subset.
                if ((o[0] & ~take) || lab_coop_masked_ref(hx + 32 * w, o[0], l, &red, &scan, &rank)) {
                    bad++;
                    continue;
                }
                split += o[0] != take;
                bad += o[1] != rank || o[2] != red || o[3] != scan;
            }
        }
        r->value = (double)lanes;
        r->ok = bad == 0;
        lab_row_note(r, "%zu lanes in groups; %zu wrong; %zu lanes in a group smaller than the branch's lanes", lanes,
                     bad, split);
    }
    free(hx), free(h);
    return s;
}

// ============================================================= grid =====
// Every thread counts itself, grid.sync(), then one thread reads the count:
// the whole grid must have arrived. out: count, num_threads, num_blocks,
// is_valid.
__global__ void k_grid_count(unsigned *out)
{
    cg::grid_group grid = cg::this_grid();
    atomicAdd(out, 1u);
    grid.sync();
    if (grid.thread_rank() == 0) {
        out[1] = atomicAdd(out, 0u);
        out[2] = (unsigned)grid.num_threads();
        out[3] = grid.num_blocks();
        out[4] = grid.is_valid();
    }
}

__global__ void k_grid_valid(unsigned *out)
{
    cg::grid_group grid = cg::this_grid();
    if (blockIdx.x == 0 && threadIdx.x == 0) out[0] = grid.is_valid();
}

cupat_status exp_grid(Run &X)
{
    const int dev = cupat_get_device(X.ctx);
    int coop = 0;
    CK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
    lab_row *r = lab_row_add(X.rows, X.n, "cudaDevAttrCooperativeLaunch");
    r->value = coop;
    if (!coop) {
        lab_row_note(r, "no cooperative launch on this device: the grid rows are not run");
        return CUPAT_SUCCESS;
    }
    r->ok = 1;
    Bufs B;
    unsigned *d = nullptr;
    CK(B.alloc((void **)&d, 8 * 4));
    static const int threads[] = {256, 1024};
    for (int bt : threads) {
        int per = 0;
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, k_grid_count, bt, 0));
        const unsigned most = (unsigned)per * (unsigned)X.sms;
        for (int extra = 0; extra <= 1; extra++) {
            const unsigned g = most + (unsigned)extra;
            r = lab_row_add(X.rows, X.n, "cooperative launch, %u blocks of %d (%s)", g, bt,
                            extra ? "one more than fits" : "all that fit");
            r->value = g;
            if (extra && !lab_row_refusal(r)) continue;
            CK(fill(X.s, d, 0xff, 8 * 4));
            CK(fill(X.s, d, 0, 4));
            void *args[] = {&d};
            const cudaError_t e = cudaLaunchCooperativeKernel((const void *)k_grid_count, dim3(g), dim3(bt), args, 0, X.s);
            if (extra) {
                if (e != cudaSuccess) cudaGetLastError(); // not sticky: a refused launch
                r->ok = e == cudaErrorCooperativeLaunchTooLarge;
                lab_row_note(r, "%s: %s", e ? "refused" : "LAUNCHED", e ? cudaGetErrorName(e) : "expected "
                                                                                             "cudaErrorCooperativeLaunchTooLarge");
                continue;
            }
            CK(e);
            unsigned h[5];
            CK(copy(X.s, h, d, sizeof h));
            const unsigned nt = g * (unsigned)bt;
            r->ok = h[1] == nt && h[2] == nt && h[3] == g && h[4] == 1;
            lab_row_note(r, "%d blocks an SM x %d SMs; after grid.sync() the count is %u of %u; is_valid %u", per,
                         X.sms, h[1], nt, h[4]);
        }
    }
    r = lab_row_add(X.rows, X.n, "<<< >>> launch: grid.is_valid()");
    CK(fill(X.s, d, 0xff, 4));
    k_grid_valid<<<4, 64, 0, X.s>>>(d);
    CUPAT_TRY(cupat__launched(X.ctx, "k_grid_valid"));
    unsigned v = 0;
    CK(copy(X.s, &v, d, 4));
    r->value = v;
    lab_row_note(r, "%s (grid.sync() needs a cooperative launch)", v == 0 ? "false" : v == 1 ? "true" : "not written");
    return CUPAT_SUCCESS;
}

// =========================================================== reduce =====
// The same block partial sums either way; then one cooperative kernel
// waits at grid.sync() and block 0 adds the partials, or a second launch
// (one block) does.
__device__ unsigned grid_partial(const unsigned *x, size_t n)
{
    unsigned s = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) s += x[i];
    return block_sum(cg::this_thread_block(), s);
}

__device__ void final_sum(const unsigned *part, unsigned G, unsigned *out)
{
    unsigned s = 0;
    for (unsigned b = threadIdx.x; b < G; b += blockDim.x) s += __ldcg(part + b); // L2: written by other SMs
    s = block_sum(cg::this_thread_block(), s);
    if (threadIdx.x == 0) *out = s;
}

__global__ void __launch_bounds__(256) k_red_coop(const unsigned *x, size_t n, unsigned *part, unsigned *out)
{
    cg::grid_group grid = cg::this_grid();
    const unsigned s = grid_partial(x, n);
    if (threadIdx.x == 0) part[blockIdx.x] = s;
    grid.sync();
    if (blockIdx.x == 0) final_sum(part, gridDim.x, out);
}

__global__ void __launch_bounds__(256) k_red_part(const unsigned *x, size_t n, unsigned *part)
{
    const unsigned s = grid_partial(x, n);
    if (threadIdx.x == 0) part[blockIdx.x] = s;
}

__global__ void __launch_bounds__(256) k_red_final(const unsigned *part, unsigned G, unsigned *out)
{
    final_sum(part, G, out);
}

cupat_status exp_reduce(Run &X)
{
    const size_t n = (size_t)1 << 26;
    int per = 0, coop = 0;
    CK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, cupat_get_device(X.ctx)));
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, k_red_coop, 256, 0));
    const unsigned G = (unsigned)(per > 0 ? per : 1) * (unsigned)X.sms;
    Bufs B;
    unsigned *dx = nullptr, *dp = nullptr, *dout = nullptr;
    CK(B.alloc((void **)&dx, n * 4));
    CK(B.alloc((void **)&dp, G * 4));
    CK(B.alloc((void **)&dout, 4 * 4));
    uint32_t *hx = nullptr;
    CUPAT_TRY(upload_words(X, dx, n, &hx));
    uint32_t want = 0;
    for (size_t i = 0; i < n; i++) want += hx[i];
    for (int k = 0; k < 3; k++) {
        static const char *const names[] = {"one cooperative kernel: partials, grid.sync(), block 0 adds",
                                            "two launches: partials, then one block adds",
                                            "library: cupat_reduce u32 sum (default rung)"};
        lab_row *r = lab_row_add(X.rows, X.n, "%s", names[k]);
        if (k == 0 && !coop) {
            lab_row_note(r, "no cooperative launch on this device");
            continue;
        }
        CK(fill(X.s, dout, 0xff, 4));
        cupat_status s = timed(X.ctx, X.reps, X.t, [&]() {
            if (k == 0) {
                const unsigned *xa = dx;
                size_t na = n;
                void *args[] = {(void *)&xa, (void *)&na, (void *)&dp, (void *)&dout};
                return cupat__cuda(X.ctx,
                                   cudaLaunchCooperativeKernel((const void *)k_red_coop, dim3(G), dim3(256), args, 0, X.s),
                                   "cudaLaunchCooperativeKernel(k_red_coop)");
            }
            if (k == 1) {
                k_red_part<<<G, 256, 0, X.s>>>(dx, n, dp);
                CUPAT_TRY(cupat__launched(X.ctx, "k_red_part"));
                k_red_final<<<1, 256, 0, X.s>>>(dp, G, dout);
                return cupat__launched(X.ctx, "k_red_final");
            }
            return cupat_reduce(X.ctx, CUPAT_U32, CUPAT_OP_SUM, n, dx, dout);
        });
        if (s) {
            free(hx);
            return s;
        }
        r->ms = median(X.t, X.reps);
        r->value = n * 4.0 / (r->ms * 1e-3) * 1e-9;
        unsigned got = 0;
        CK(copy(X.s, &got, dout, 4));
        r->ok = got == want;
        lab_row_note(r, "2^26 words, %u blocks; sum %u, host %u", k == 2 ? 0u : G, got, want);
    }
    // The library's scan: its coop_grid rung (grid.sync() twice, one
    // launch: src/scan/scan_multi.cu) against reduce_then_scan (three
    // launches), the same inputs, checked against the host's scan.
    const size_t ns = (size_t)1 << 24;
    uint32_t *ref = (uint32_t *)malloc(ns * 4), *h = (uint32_t *)malloc(ns * 4);
    unsigned *dy = nullptr;
    cudaError_t e = B.alloc((void **)&dy, ns * 4);
    cupat_status s = !ref || !h ? oom(X) : e ? cupat__cuda(X.ctx, e, "cudaMalloc") : CUPAT_SUCCESS;
    uint32_t run = 0;
    for (size_t i = 0; !s && i < ns; i++) ref[i] = run += hx[i];
    static const char *const rungs[] = {"coop_grid", "reduce_then_scan"};
    for (int k = 0; k < 2 && !s; k++) {
        lab_row *r = lab_row_add(X.rows, X.n, "library: cupat_scan u32 2^24, rung %s", rungs[k]);
        s = cupat_set_variant(X.ctx, "scan", rungs[k]);
        if (!s) s = cupat__cuda(X.ctx, fill(X.s, dy, 0xff, ns * 4), "cudaMemsetAsync");
        if (!s)
            s = timed(X.ctx, X.reps, X.t, [&]() {
                return cupat_scan(X.ctx, CUPAT_U32, CUPAT_OP_SUM, CUPAT_SCAN_INCLUSIVE, ns, dx, dy);
            });
        if (s == CUPAT_ERROR_NOT_SUPPORTED) {
            lab_row_note(r, "not run: %s", cupat_last_error(X.ctx));
            s = CUPAT_SUCCESS;
            continue;
        }
        if (s) break;
        r->ms = median(X.t, X.reps);
        r->value = ns * 8.0 / (r->ms * 1e-3) * 1e-9; // read + write
        if ((e = copy(X.s, h, dy, ns * 4))) {
            s = cupat__cuda(X.ctx, e, "read-back");
            break;
        }
        size_t first = 0;
        const size_t bad = differ(h, ref, ns, &first);
        r->ok = bad == 0;
        lab_row_note(r, "GB/s counts read + write; %zu outputs wrong", bad);
    }
    const cupat_status u = cupat_set_variant(X.ctx, "scan", NULL);
    free(hx), free(ref), free(h);
    return s ? s : u;
}

// ========================================================== iterate =====
// Jacobi on a 1D array: b[i] = 0.5 (a[i-1] + a[i+1]), the ends held; one
// step a launch, or `steps` steps in one cooperative launch with
// grid.sync() (or its split form, barrier_arrive / barrier_wait) between.
__device__ __forceinline__ void jacobi_step(const float *src, float *dst, size_t n)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride) {
        if (i == 0 || i == n - 1) {
            dst[i] = src[i];
        } else {
            const float s = src[i - 1] + src[i + 1];
            dst[i] = 0.5f * s;
        }
    }
}

__global__ void __launch_bounds__(256) k_jacobi_step(const float *src, float *dst, size_t n)
{
    jacobi_step(src, dst, n);
}

template <bool SPLIT> __global__ void __launch_bounds__(256) k_jacobi_coop(float *a, float *b, size_t n, int steps)
{
    cg::grid_group grid = cg::this_grid();
    for (int s = 0; s < steps; s++) {
        jacobi_step(s % 2 ? b : a, s % 2 ? a : b, n);
        if (SPLIT) { // Guide 11.6.1: sync() is barrier_wait(barrier_arrive())
            auto token = grid.barrier_arrive();
            grid.barrier_wait(std::move(token));
        } else {
            grid.sync();
        }
    }
}

cupat_status exp_iterate(Run &X)
{
    const int steps = 100;
    int coop = 0, per = 0;
    CK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, cupat_get_device(X.ctx)));
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, k_jacobi_coop<false>, 256, 0));
    int per2 = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per2, k_jacobi_coop<true>, 256, 0));
    per = per2 < per ? per2 : per;
    static const size_t sizes[] = {(size_t)1 << 16, (size_t)1 << 20};
    for (size_t n : sizes) {
        // Enough blocks for one element a thread, at most the resident grid.
        unsigned G = (unsigned)((n + 255) / 256);
        const unsigned most = (unsigned)(per > 0 ? per : 1) * (unsigned)X.sms;
        G = G < most ? G : most;
        Bufs B;
        float *da = nullptr, *db = nullptr, *d0 = nullptr;
        CK(B.alloc((void **)&da, n * 4));
        CK(B.alloc((void **)&db, n * 4));
        CK(B.alloc((void **)&d0, n * 4));
        float *init = (float *)malloc(n * 4), *ref = (float *)malloc(n * 4), *tmp = (float *)malloc(n * 4),
              *h = (float *)malloc(n * 4);
        if (!init || !ref || !tmp || !h) {
            free(init), free(ref), free(tmp), free(h);
            return oom(X);
        }
        for (size_t i = 0; i < n; i++) init[i] = ref[i] = lab_coop_jacobi_init(i);
        lab_coop_jacobi_ref(ref, tmp, n, steps);
        cupat_status s = cupat__cuda(X.ctx, copy(X.s, d0, init, n * 4), "upload");
        for (int k = 0; k < 3 && !s; k++) {
            static const char *const names[] = {"1 cooperative launch, grid.sync()", "1 cooperative launch, arrive/wait",
                                                "1 launch a step"};
            lab_row *r = lab_row_add(X.rows, X.n, "n = 2^%d, %u blocks: %s", n == 65536 ? 16 : 20, G, names[k]);
            if (k < 2 && !coop) {
                lab_row_note(r, "no cooperative launch on this device");
                continue;
            }
            s = timed(X.ctx, X.reps, X.t, [&]() {
                // every repetition starts from the same array
                cudaError_t e = cudaMemcpyAsync(da, d0, n * 4, cudaMemcpyDeviceToDevice, X.s);
                if (e) return cupat__cuda(X.ctx, e, "cudaMemcpyAsync");
                if (k < 2) {
                    size_t na = n;
                    int st = steps;
                    void *args[] = {(void *)&da, (void *)&db, (void *)&na, (void *)&st};
                    const void *f = k ? (const void *)k_jacobi_coop<true> : (const void *)k_jacobi_coop<false>;
                    return cupat__cuda(X.ctx, cudaLaunchCooperativeKernel(f, dim3(G), dim3(256), args, 0, X.s),
                                       "cudaLaunchCooperativeKernel(k_jacobi_coop)");
                }
                for (int st = 0; st < steps; st++) {
                    k_jacobi_step<<<G, 256, 0, X.s>>>(st % 2 ? db : da, st % 2 ? da : db, n);
                    CUPAT_TRY(cupat__launched(X.ctx, "k_jacobi_step"));
                }
                return CUPAT_SUCCESS;
            });
            if (s) break;
            // Read the result back before the reset copy's own timing below
            // overwrites da (the first H100 run checked the reset data).
            const cudaError_t e = copy(X.s, h, steps % 2 ? db : da, n * 4);
            if (e) {
                s = cupat__cuda(X.ctx, e, "read-back");
                break;
            }
            size_t bad = 0;
            for (size_t i = 0; i < n; i++) bad += memcmp(&h[i], &ref[i], 4) != 0;
            // The timed region holds the reset copy too: time it alone and take it off.
            float up[9];
            const int nu = X.reps < 9 ? X.reps : 9;
            s = timed(X.ctx, nu, up, [&]() {
                return cupat__cuda(X.ctx, cudaMemcpyAsync(da, d0, n * 4, cudaMemcpyDeviceToDevice, X.s),
                                   "cudaMemcpyAsync");
            });
            if (s) break;
            const double upload = median(up, nu), all = median(X.t, X.reps);
            r->ms = all - upload > 0 ? all - upload : all;
            r->value = r->ms * 1e3 / steps;
            r->ok = bad == 0;
            lab_row_note(r, "%d steps, the reset copy (%.4f ms) taken off; %zu elements differ from the host's bits",
                         steps, upload, bad);
        }
        free(init), free(ref), free(tmp), free(h);
        CUPAT_TRY(s);
    }
    return CUPAT_SUCCESS;
}

} // namespace

extern "C" cupat_status cupat__lab_coop_run(cupat_ctx *ctx, int e, int reps, lab_row *rows, int *nrows)
{
    Run X = {{ctx, reps, rows, nrows, nullptr, ctx->stream}, ctx->sm_count};
    X.t = (float *)calloc((size_t)reps, sizeof(float));
    if (!X.t) return cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY, "lab coop: out of host memory");
    cupat_status s = CUPAT_SUCCESS;
    switch (e) {
    case LAB_COOP_BLOCK: s = exp_block(X); break;
    case LAB_COOP_TILES: s = exp_tiles(X); break;
    case LAB_COOP_COALESCED: s = exp_coalesced(X); break;
    case LAB_COOP_GRID: s = exp_grid(X); break;
    case LAB_COOP_REDUCE: s = exp_reduce(X); break;
    case LAB_COOP_ITERATE: s = exp_iterate(X); break;
    }
    free(X.t);
    return s;
}
