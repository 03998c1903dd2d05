// SPDX-License-Identifier: Apache-2.0
// bfs_fast.cu — the "bfs" rungs beyond PMPP ch. 15: warp-cooperative
// expansion (load balancing by degree), frontier compaction through the
// scan pattern's select, edge-balanced expansion (a scan of the frontier's
// degrees: every block the same number of edges, hubs split across the
// grid), and direction-optimizing BFS (Beamer, Asanovic & Patterson 2012)
// on top of it, the CUDA default.
#include "internal.h"
#include "bfs/bfs_internal.h"
#include "bfs/bfs_device.cuh"

#include <stdlib.h>

namespace cupat_bfs_dev {

// One top-down level from the queue, a warp per 32 queue entries, the loop
// uniform in the warp. Lists of 32 or more neighbours are expanded by the
// whole warp, one list at a time (coalesced reads of col, no lane idle on a
// hub while the others wait); the short lists in lockstep, one neighbour a
// lane a round. (Merrill, Garland & Grimshaw 2012 add a block-wide stage
// for lists of thousands; on power-law graphs the warp stage takes most of
// the imbalance.)
//   FLAGS: the scan_compact form: no atomics, every finder writes level
//     cur + 1 and the parent (benign races, as k_push_vertex) and sets
//     flags[w]; the queue comes from cupat_select afterwards.
//   else: atomicCAS claims, warp-aggregated appends (one atomicAdd a warp
//     a round).
// Its weakness, measured (docs/bfs.md): a hub's list of 10^5 neighbours is
// one warp's serial work while the rest of the grid has finished.
template <bool FLAGS>
__global__ void k_expand(const uint64_t *rp, const int32_t *col, const int32_t *q, size_t qn,
                         int32_t *nq, uint8_t *flags, int32_t *levels, int32_t *parents,
                         int32_t cur, bfs_ctrl *ctrl)
{
    const unsigned lane = cupat_dev::lane_id();
    const size_t warp = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / 32;
    const size_t nwarps = (size_t)gridDim.x * blockDim.x / 32;
    for (size_t base = warp * 32; base < qn; base += nwarps * 32) {
        const size_t i = base + lane;
        int32_t v = 0;
        uint64_t beg = 0, end = 0;
        if (i < qn) {
            v = q[i];
            beg = rp[v];
            end = rp[v + 1];
        }
        // Visit neighbour w of v (lane-local); returns whether this lane
        // put w on the next frontier.
        auto visit = [&](int32_t from, int32_t w) -> bool {
            if (FLAGS) {
                if (levels[w] != -1) return false;
                levels[w] = cur + 1;
                parents[w] = from;
                flags[w] = 1;
                return false;
            }
            if (!claim(levels, w, cur + 1)) return false;
            parents[w] = from;
            return true;
        };
        unsigned big = __ballot_sync(FULL, end - beg >= 32);
        while (big) {
            const int leader = __ffs(big) - 1;
            big &= big - 1;
            const int32_t bv = __shfl_sync(FULL, v, leader);
            const uint64_t bb = __shfl_sync(FULL, beg, leader), be = __shfl_sync(FULL, end, leader);
            for (uint64_t e0 = bb; e0 < be; e0 += 32) { // uniform in the warp
                const uint64_t e = e0 + lane;
                int32_t w = 0;
                bool got = false;
                if (e < be) {
                    w = col[e];
                    got = visit(bv, w);
                }
                if (!FLAGS) warp_push(got, w, nq, &ctrl->count);
            }
        }
        const unsigned len = end - beg >= 32 ? 0u : (unsigned)(end - beg);
        const unsigned rounds = cupat_dev::warp_reduce_max_u32(len);
        for (unsigned k = 0; k < rounds; k++) {
            int32_t w = 0;
            bool got = false;
            if (k < len) {
                w = col[beg + k];
                got = visit(v, w);
            }
            if (!FLAGS) warp_push(got, w, nq, &ctrl->count);
        }
    }
}

// The frontier's edges summed into ctrl->edges, one atomic a warp.
__device__ __forceinline__ void add_edges(unsigned long long edges, bfs_ctrl *ctrl)
{
    for (int o = 16; o; o >>= 1) edges += __shfl_xor_sync(FULL, edges, o);
    if (cupat_dev::lane_id() == 0 && edges) atomicAdd(&ctrl->edges, edges);
}

// ---- edge-balanced top-down (scan-based load balancing) -------------------
// The queue q[0..qn) holds the frontier; off[i] is the exclusive prefix sum
// of its out-degrees and `total` their sum. Edge rank r in [0, total) is
// neighbour r - off[i] of q[i], i the last entry with off[i] <= r. A block
// takes LB_TILE consecutive ranks whatever vertices they belong to (a hub's
// list is split over many blocks, a run of short lists shares one), stages
// the tile's queue entries, offsets and list starts in shared memory, and a
// thread takes LB_ITEMS consecutive ranks (one search in shared memory,
// then a walk; its col reads are one 32-byte sector). Claims as k_queue:
// a plain read, then atomicCAS. Appends carry the new vertex's degree
// (only vertices with out-edges enter the queue: nothing else can expand,
// and it bounds a tile's entries by LB_TILE); ctrl->edges gets their sum,
// the next level's total.
constexpr int LB_BLOCK = 256, LB_ITEMS = 8, LB_TILE = LB_BLOCK * LB_ITEMS;

template <typename OffT>
__global__ void __launch_bounds__(LB_BLOCK)
    k_expand_lb(const uint64_t *rp, const int32_t *col, const int32_t *q, const OffT *off,
                size_t qn, uint64_t total, int32_t *nq, OffT *ndeg, int32_t *levels,
                int32_t *parents, int32_t cur, bfs_ctrl *ctrl)
{
    __shared__ OffT s_off[LB_TILE + 1];
    __shared__ int32_t s_v[LB_TILE];
    __shared__ uint64_t s_beg[LB_TILE];
    __shared__ size_t s_lo, s_hi;
    unsigned long long edges = 0;
    const uint64_t ntiles = (total + LB_TILE - 1) / LB_TILE;
    for (uint64_t t = blockIdx.x; t < ntiles; t += gridDim.x) { // uniform in the block
        const uint64_t start = t * LB_TILE, end = min(total, start + LB_TILE);
        // the entries holding ranks start and end - 1 (two warps search)
        if (threadIdx.x == 0 || threadIdx.x == 32) {
            const uint64_t x = threadIdx.x == 0 ? start : end - 1;
            size_t a = 0, b = qn; // off[a] <= x < off[b] (off[qn] = total)
            while (b - a > 1) {
                const size_t mid = a + (b - a) / 2;
                if ((uint64_t)off[mid] <= x) a = mid;
                else b = mid;
            }
            if (threadIdx.x == 0) s_lo = a;
            else s_hi = a;
        }
        __syncthreads();
        const size_t lo = s_lo, cnt = s_hi - s_lo + 1;
        // Entries without edges (only sources can be) could make a tile's
        // entries outnumber its ranks: then the tile reads global memory.
        const bool staged = cnt <= LB_TILE;
        if (staged) {
            for (size_t j = threadIdx.x; j < cnt; j += LB_BLOCK) {
                const int32_t v = q[lo + j];
                s_off[j] = off[lo + j];
                s_v[j] = v;
                s_beg[j] = rp[v];
            }
            if (threadIdx.x == 0) s_off[cnt] = lo + cnt < qn ? off[lo + cnt] : (OffT)total;
        }
        __syncthreads();
        // local entry k (relative to lo): its offset, vertex, list start
        auto off_at = [&](size_t k) -> uint64_t {
            if (staged) return s_off[k];
            return lo + k < qn ? (uint64_t)off[lo + k] : total;
        };
        auto v_at = [&](size_t k) -> int32_t { return staged ? s_v[k] : q[lo + k]; };
        auto beg_at = [&](size_t k) -> uint64_t { return staged ? s_beg[k] : rp[q[lo + k]]; };
        const uint64_t r0 = start + (uint64_t)threadIdx.x * LB_ITEMS;
        int32_t w[LB_ITEMS], from[LB_ITEMS];
        if (r0 < end) {
            size_t a = 0, b = cnt;
            while (b - a > 1) {
                const size_t mid = a + (b - a) / 2;
                if (off_at(mid) <= r0) a = mid;
                else b = mid;
            }
            size_t k = a;
            uint64_t base = off_at(k), next = off_at(k + 1), beg = beg_at(k);
            int32_t v = v_at(k);
#pragma unroll
            for (int i = 0; i < LB_ITEMS; i++) {
                const uint64_t r = r0 + i;
                w[i] = -1;
                if (r < end) {
                    while (r >= next) { // the walk crosses into the next list
                        k++;
                        base = next;
                        next = off_at(k + 1);
                        beg = beg_at(k);
                        v = v_at(k);
                    }
                    from[i] = v;
                    w[i] = col[beg + (r - base)];
                }
            }
        } else {
#pragma unroll
            for (int i = 0; i < LB_ITEMS; i++) w[i] = -1;
        }
        int32_t lv[LB_ITEMS]; // the levels of all items read before any claim
#pragma unroll
        for (int i = 0; i < LB_ITEMS; i++) lv[i] = w[i] >= 0 ? levels[w[i]] : 0;
#pragma unroll
        for (int i = 0; i < LB_ITEMS; i++) {
            bool push = false;
            OffT d = 0;
            if (lv[i] == -1 && atomicCAS(&levels[w[i]], -1, cur + 1) == -1) {
                parents[w[i]] = from[i];
                d = (OffT)(rp[w[i] + 1] - rp[w[i]]);
                edges += d;
                push = d > 0;
            }
            warp_push_deg(push, w[i], d, nq, ndeg, &ctrl->count);
        }
        __syncthreads(); // the staged arrays are reused by the next tile
    }
    add_edges(edges, ctrl);
}

// The out-degree of every queue entry (the first level's queue: the sources).
template <typename OffT>
__global__ void k_degrees(const uint64_t *rp, const int32_t *q, size_t qn, OffT *deg)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < qn;
         i += (size_t)gridDim.x * blockDim.x) {
        const int32_t v = q[i];
        deg[i] = (OffT)(rp[v + 1] - rp[v]);
    }
}

// One bottom-up level (Beamer): a thread per vertex; an unvisited one looks
// through its in-edges for a vertex of the frontier bitmap and stops at the
// first. Lists longer than 32 are searched by the whole warp, 32 in-edges a
// round (a lane alone would walk them one dependent load after another);
// shorter ones by their lane, 4 in-edges in flight. The warp's 32 vertices
// make one word of the next bitmap (ballot: written whole, no atomics, no
// clearing), and the found vertices with out-edges go to the next queue
// with their degrees, in case the next level is top-down.
template <typename OffT>
__global__ void __launch_bounds__(256)
    k_bottom_up(const uint64_t *rp, const uint64_t *trp, const int32_t *tcol, size_t n,
                const uint32_t *front, uint32_t *next, int32_t *nq, OffT *ndeg,
                int32_t *levels, int32_t *parents, int32_t cur, bfs_ctrl *ctrl)
{
    constexpr uint64_t LONG = 32;
    const unsigned lane = cupat_dev::lane_id();
    const size_t warp = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / 32;
    const size_t nwarps = (size_t)gridDim.x * blockDim.x / 32;
    unsigned long long edges = 0;
    for (size_t base = warp * 32; base < n; base += nwarps * 32) {
        const size_t v = base + lane;
        const bool open = v < n && levels[v] == -1;
        uint64_t b = 0, e = 0;
        if (open) {
            b = trp[v];
            e = trp[v + 1];
        }
        int32_t par = -1;
        unsigned big = __ballot_sync(FULL, open && e - b > LONG);
        while (big) { // uniform in the warp
            const int leader = __ffs(big) - 1;
            big &= big - 1;
            const uint64_t bb = __shfl_sync(FULL, b, leader), be = __shfl_sync(FULL, e, leader);
            int32_t found = -1;
            for (uint64_t x = bb; x < be; x += 32) {
                const uint64_t y = x + lane;
                int32_t u = 0;
                bool hit = false;
                if (y < be) {
                    u = tcol[y];
                    hit = bit_test(front, u);
                }
                const unsigned h = __ballot_sync(FULL, hit);
                if (h) {
                    found = __shfl_sync(FULL, u, __ffs(h) - 1);
                    break;
                }
            }
            if ((int)lane == leader) par = found;
        }
        if (open && e - b <= LONG) {
            for (uint64_t x = b; x < e && par < 0; x += 4) {
                int32_t u[4];
#pragma unroll
                for (int k = 0; k < 4; k++) u[k] = x + k < e ? tcol[x + k] : -1;
#pragma unroll
                for (int k = 0; k < 4; k++)
                    if (par < 0 && u[k] >= 0 && bit_test(front, u[k])) par = u[k];
            }
        }
        const bool found = par >= 0;
        OffT d = 0;
        if (found) {
            levels[v] = cur + 1;
            parents[v] = par;
            d = (OffT)(rp[v + 1] - rp[v]);
            edges += d;
        }
        const unsigned word = __ballot_sync(FULL, found);
        if (lane == 0) next[base / 32] = word;
        warp_push_deg(found && d > 0, (int32_t)v, d, nq, ndeg, &ctrl->count);
    }
    add_edges(edges, ctrl);
}

// The frontier bitmap of a queue (when a top-down level hands over to
// bottom-up; the bitmap was cleared first).
__global__ void k_queue_to_bitmap(const int32_t *q, size_t qn, uint32_t *bm)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < qn;
         i += (size_t)gridDim.x * blockDim.x) {
        const int32_t v = q[i];
        atomicOr(&bm[v >> 5], 1u << (v & 31));
    }
}

constexpr int BLOCK = 256;

} // namespace cupat_bfs_dev

using namespace cupat_bfs_dev;

template <bool FLAGS>
static cupat_status expand(cupat_ctx *ctx, const bfs_req *r, const int32_t *q, size_t qn,
                           int32_t *nq, int32_t cur)
{
    cupat_graph *g = r->g;
    // a warp per 32 entries
    k_expand<FLAGS><<<cupat__bfs_grid(ctx, qn, BLOCK), BLOCK, 0, ctx->stream>>>(
        g->row_ptr, g->col, q, qn, nq, g->work.flags, r->levels, r->parents, cur,
        (bfs_ctrl *)g->work.ctrl);
    return cupat__launched(ctx, "k_expand");
}

// A switch parameter: the environment's value when it is a positive number
// (tuning runs), else the paper's.
static double switch_param(const char *name, double dflt)
{
    const char *e = getenv(name);
    if (!e || !*e) return dflt;
    char *end;
    double v = strtod(e, &end);
    return (*end == 0 && v > 0) ? v : dflt;
}

// edge_balanced and direction_opt: OffT is the offsets' type (u32 while
// every frontier's edges fit: m < 2^32).
template <typename OffT>
static cupat_status balanced(cupat_ctx *ctx, const bfs_req *r)
{
    cupat_graph *g = r->g;
    const size_t n = g->n, words = (n + 31) / 32;
    const int dobfs = r->rung == BR_DIRECTION_OPT;
    const cupat_type ot = sizeof(OffT) == 4 ? CUPAT_U32 : CUPAT_U64;
    bfs_work *w = &g->work;
    bfs_ctrl *ctrl = (bfs_ctrl *)w->ctrl, h;
    int32_t *q = w->queue[0], *nq = w->queue[1];
    OffT *qo = (OffT *)w->qoff[0], *nqo = (OffT *)w->qoff[1];
    CUPAT_TRY(cupat__bfs_cuda_init(ctx, r, q));
    size_t qn = r->nsrc, prev_qn = 0;
    k_degrees<<<cupat__bfs_grid(ctx, qn, BLOCK), BLOCK, 0, ctx->stream>>>(g->row_ptr, q, qn, qo);
    CUPAT_TRY(cupat__launched(ctx, "k_degrees"));
    // Beamer's quantities: the frontier's out-edges m_f (the sources' from
    // the host CSR), the unvisited vertices' m_u.
    uint64_t mf = 0, mu = g->m;
    for (size_t i = 0; i < r->nsrc; i++) mf += g->h_row_ptr[r->src[i] + 1] - g->h_row_ptr[r->src[i]];
    mu -= mf;
    const double alpha = switch_param("CUPAT_BFS_ALPHA", BFS_ALPHA);
    const double beta = switch_param("CUPAT_BFS_BETA", BFS_BETA);
    int bu = 0, have_bitmap = 0;
    uint32_t *front = w->bitmap[0], *next = w->bitmap[1];
    for (int32_t cur = 0; qn; cur++) {
        CUPAT_TRY(cupat__bfs_ctrl_clear(ctx, g));
        if (dobfs) {
            if (!bu && (double)mf > (double)mu / alpha) {
                bu = 1;
                have_bitmap = 0;
            } else if (bu && (double)qn < (double)n / beta && qn < prev_qn) {
                bu = 0;
            }
        }
        if (bu) {
            if (!have_bitmap) { // top-down handed over: the queue to a bitmap
                CUPAT_CUDA_TRY(ctx, cudaMemsetAsync(front, 0, words * sizeof(uint32_t), ctx->stream));
                k_queue_to_bitmap<<<cupat__bfs_grid(ctx, qn, BLOCK), BLOCK, 0, ctx->stream>>>(
                    q, qn, front);
                CUPAT_TRY(cupat__launched(ctx, "k_queue_to_bitmap"));
                have_bitmap = 1;
            }
            k_bottom_up<OffT><<<cupat__bfs_grid(ctx, n, BLOCK), BLOCK, 0, ctx->stream>>>(
                g->row_ptr, g->t_row_ptr, g->t_col, n, front, next, nq, nqo, r->levels,
                r->parents, cur, ctrl);
            CUPAT_TRY(cupat__launched(ctx, "k_bottom_up"));
            uint32_t *t = front;
            front = next;
            next = t;
        } else if (mf) { // (no edges: the level adds nothing, the search ends)
            have_bitmap = 0;
            CUPAT_TRY(cupat_scan(ctx, ot, CUPAT_OP_SUM, CUPAT_SCAN_EXCLUSIVE, qn, qo, qo));
            k_expand_lb<OffT><<<cupat__bfs_grid(ctx, mf, LB_TILE), LB_BLOCK, 0, ctx->stream>>>(
                g->row_ptr, g->col, q, qo, qn, mf, nq, nqo, r->levels, r->parents, cur, ctrl);
            CUPAT_TRY(cupat__launched(ctx, "k_expand_lb"));
        }
        CUPAT_TRY(cupat__bfs_ctrl_read(ctx, g, &h));
        int32_t *t = q;
        q = nq;
        nq = t;
        OffT *to = qo;
        qo = nqo;
        nqo = to;
        prev_qn = qn;
        qn = h.count;
        mf = h.edges;
        mu -= h.edges;
    }
    return CUPAT_SUCCESS;
}

extern "C" cupat_status cupat__bfs_cuda_fast(cupat_ctx *ctx, const bfs_req *r)
{
    cupat_graph *g = r->g;
    const size_t n = g->n;
    CUPAT_TRY(cupat__bfs_cuda_work(ctx, g, r->rung));
    if (r->rung == BR_EDGE_BALANCED || r->rung == BR_DIRECTION_OPT)
        return g->m <= UINT32_MAX ? balanced<uint32_t>(ctx, r) : balanced<uint64_t>(ctx, r);
    bfs_work *w = &g->work;
    int32_t *q = w->queue[0], *nq = w->queue[1];
    CUPAT_TRY(cupat__bfs_cuda_init(ctx, r, q));
    size_t qn = r->nsrc;
    bfs_ctrl h;
    for (int32_t cur = 0; qn; cur++) {
        CUPAT_TRY(cupat__bfs_ctrl_clear(ctx, g));
        if (r->rung == BR_WARP_COOP) {
            CUPAT_TRY((expand<false>(ctx, r, q, qn, nq, cur)));
        } else { // BR_SCAN_COMPACT
            CUPAT_TRY((expand<true>(ctx, r, q, qn, nq, cur)));
            // The next queue: the flagged ids, in order (cupat_select's
            // single pass); count to the host, then clear the flags.
            uint64_t kept = 0;
            CUPAT_TRY(cupat_select(ctx, CUPAT_I32, n, w->iota, w->flags, NULL, nq, &kept));
            CUPAT_CUDA_TRY(ctx, cudaMemsetAsync(w->flags, 0, n, ctx->stream));
            int32_t *t = q;
            q = nq;
            nq = t;
            qn = (size_t)kept;
            continue;
        }
        CUPAT_TRY(cupat__bfs_ctrl_read(ctx, g, &h));
        int32_t *t = q;
        q = nq;
        nq = t;
        qn = h.count;
    }
    return CUPAT_SUCCESS;
}
