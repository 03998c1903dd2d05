// bfs_fast.cu — the "bfs" rungs beyond PMPP ch. 15: warp-cooperative
// expansion (load balancing by degree), frontier compaction through the
// scan pattern's select, and direction-optimizing BFS (Beamer, Asanovic &
// Patterson 2012), the CUDA default.
#include "internal.h"
#include "bfs/bfs_internal.h"
#include "bfs/bfs_device.cuh"

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
//     a round); COUNT also sums the new frontier's out-degrees (m_f for
//     Beamer's switch).
template <bool FLAGS, bool COUNT>
__global__ void k_expand(const uint64_t *rp, const int32_t *col, const int32_t *q, size_t qn,
                         int32_t *nq, uint8_t *flags, int32_t *levels, int32_t *parents,
                         int32_t cur, bfs_ctrl *ctrl)
{
    const unsigned lane = cupat_dev::lane_id();
    const size_t warp = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / 32;
    const size_t nwarps = (size_t)gridDim.x * blockDim.x / 32;
    unsigned long long edges = 0;
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
            if (COUNT) edges += rp[w + 1] - rp[w];
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
    if (COUNT) {
        // one atomic a warp for the frontier's edges
        for (int o = 16; o; o >>= 1) edges += __shfl_xor_sync(FULL, edges, o);
        if (lane == 0 && edges) atomicAdd(&ctrl->edges, edges);
    }
}

// One bottom-up level (Beamer): a thread per vertex; an unvisited one looks
// through its in-edges for a vertex of the frontier bitmap and stops at the
// first. The warp's 32 vertices make one word of the next bitmap (ballot:
// written whole, no atomics, no clearing), and the found vertices go to the
// next queue too (warp-aggregated), in case the next level is top-down.
__global__ void k_bottom_up(const uint64_t *rp, const uint64_t *trp, const int32_t *tcol,
                            size_t n, const uint32_t *front, uint32_t *next, int32_t *nq,
                            int32_t *levels, int32_t *parents, int32_t cur, bfs_ctrl *ctrl)
{
    const unsigned lane = cupat_dev::lane_id();
    const size_t warp = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / 32;
    const size_t nwarps = (size_t)gridDim.x * blockDim.x / 32;
    unsigned long long edges = 0;
    for (size_t base = warp * 32; base < n; base += nwarps * 32) {
        const size_t v = base + lane;
        bool found = false;
        if (v < n && levels[v] == -1) {
            for (uint64_t e = trp[v]; e < trp[v + 1]; e++) {
                const int32_t u = tcol[e];
                if (bit_test(front, u)) {
                    levels[v] = cur + 1;
                    parents[v] = u;
                    edges += rp[v + 1] - rp[v];
                    found = true;
                    break;
                }
            }
        }
        const unsigned word = __ballot_sync(FULL, found);
        if (lane == 0) next[base / 32] = word;
        warp_push(found, (int32_t)v, nq, &ctrl->count);
    }
    for (int o = 16; o; o >>= 1) edges += __shfl_xor_sync(FULL, edges, o);
    if (lane == 0 && edges) atomicAdd(&ctrl->edges, edges);
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

template <bool FLAGS, bool COUNT>
static cupat_status expand(cupat_ctx *ctx, const bfs_req *r, const int32_t *q, size_t qn,
                           int32_t *nq, int32_t cur)
{
    cupat_graph *g = r->g;
    // a warp per 32 entries
    k_expand<FLAGS, COUNT><<<cupat__bfs_grid(ctx, qn, BLOCK), BLOCK, 0, ctx->stream>>>(
        g->row_ptr, g->col, q, qn, nq, g->work.flags, r->levels, r->parents, cur,
        (bfs_ctrl *)g->work.ctrl);
    return cupat__launched(ctx, "k_expand");
}

extern "C" cupat_status cupat__bfs_cuda_fast(cupat_ctx *ctx, const bfs_req *r)
{
    cupat_graph *g = r->g;
    const size_t n = g->n, words = (n + 31) / 32;
    CUPAT_TRY(cupat__bfs_cuda_work(ctx, g, r->rung));
    bfs_work *w = &g->work;
    int32_t *q = w->queue[0], *nq = w->queue[1];
    CUPAT_TRY(cupat__bfs_cuda_init(ctx, r, q));
    size_t qn = r->nsrc;
    // Beamer's quantities: the frontier's out-edges m_f, the unvisited
    // vertices' m_u (from the host CSR for the sources).
    uint64_t mf = 0, mu = g->m;
    for (size_t i = 0; i < r->nsrc; i++) mf += g->h_row_ptr[r->src[i] + 1] - g->h_row_ptr[r->src[i]];
    mu -= mf;
    int bu = 0, have_bitmap = 0;
    uint32_t *front = w->bitmap[0], *next = w->bitmap[1];
    bfs_ctrl h;
    for (int32_t cur = 0; qn; cur++) {
        CUPAT_TRY(cupat__bfs_ctrl_clear(ctx, g));
        if (r->rung == BR_WARP_COOP) {
            CUPAT_TRY((expand<false, false>(ctx, r, q, qn, nq, cur)));
        } else if (r->rung == BR_SCAN_COMPACT) {
            CUPAT_TRY((expand<true, false>(ctx, r, q, qn, nq, cur)));
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
        } else { // BR_DIRECTION_OPT
            if (!bu && mf > mu / BFS_ALPHA) {
                bu = 1;
                have_bitmap = 0;
            } else if (bu && qn < n / BFS_BETA) {
                bu = 0;
            }
            if (bu) {
                if (!have_bitmap) { // top-down handed over: the queue to a bitmap
                    CUPAT_CUDA_TRY(ctx, cudaMemsetAsync(front, 0, words * sizeof(uint32_t),
                                                        ctx->stream));
                    k_queue_to_bitmap<<<cupat__bfs_grid(ctx, qn, BLOCK), BLOCK, 0, ctx->stream>>>(
                        q, qn, front);
                    CUPAT_TRY(cupat__launched(ctx, "k_queue_to_bitmap"));
                    have_bitmap = 1;
                }
                k_bottom_up<<<cupat__bfs_grid(ctx, n, BLOCK), BLOCK, 0, ctx->stream>>>(
                    g->row_ptr, g->t_row_ptr, g->t_col, n, front, next, nq, r->levels,
                    r->parents, cur, (bfs_ctrl *)w->ctrl);
                CUPAT_TRY(cupat__launched(ctx, "k_bottom_up"));
                uint32_t *t = front;
                front = next;
                next = t;
            } else {
                have_bitmap = 0;
                CUPAT_TRY((expand<false, true>(ctx, r, q, qn, nq, cur)));
            }
        }
        CUPAT_TRY(cupat__bfs_ctrl_read(ctx, g, &h));
        int32_t *t = q;
        q = nq;
        nq = t;
        qn = h.count;
        mf = h.edges;
        mu -= h.edges;
    }
    return CUPAT_SUCCESS;
}
