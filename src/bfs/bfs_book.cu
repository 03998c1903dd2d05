// SPDX-License-Identifier: Apache-2.0
// bfs_book.cu — the PMPP ch. 15 rungs of "bfs": vertex-centric push and
// pull (15.3), edge-centric (15.4), frontier queues with global atomics
// (15.5), privatized block-level queues (15.6), fewer launches for small
// frontiers (15.7). One level a launch, the host reading the level's counter
// to decide whether to go on, except 15.7's single-block kernel, which runs
// levels until the frontier outgrows it or empties.
#include "internal.h"
#include "bfs/bfs_internal.h"
#include "bfs/bfs_device.cuh"

namespace cupat_bfs_dev {

// 15.3, push (top-down): a thread per vertex; those on the frontier (level
// cur) visit their unvisited neighbours. Races are benign: every writer of
// levels[w] writes cur + 1, and parents[w] ends as one of the writers', each
// a frontier vertex joined to w: a valid tree either way.
__global__ void k_push_vertex(const uint64_t *rp, const int32_t *col, size_t n, int32_t *levels,
                              int32_t *parents, int32_t cur, bfs_ctrl *ctrl)
{
    for (size_t v = blockIdx.x * (size_t)blockDim.x + threadIdx.x; v < n;
         v += (size_t)gridDim.x * blockDim.x) {
        if (levels[v] != cur) continue;
        for (uint64_t e = rp[v]; e < rp[v + 1]; e++) {
            const int32_t w = col[e];
            if (levels[w] == -1) {
                levels[w] = cur + 1;
                parents[w] = (int32_t)v;
                ctrl->count = 1; // "something changed": the host goes on
            }
        }
    }
}

// 15.3, pull (bottom-up): a thread per unvisited vertex looks through its
// in-edges for a frontier vertex and stops at the first. Only level -1
// entries are written (to cur + 1), so the level-cur reads never race.
__global__ void k_pull_vertex(const uint64_t *trp, const int32_t *tcol, size_t n,
                              int32_t *levels, int32_t *parents, int32_t cur, bfs_ctrl *ctrl)
{
    for (size_t v = blockIdx.x * (size_t)blockDim.x + threadIdx.x; v < n;
         v += (size_t)gridDim.x * blockDim.x) {
        if (levels[v] != -1) continue;
        for (uint64_t e = trp[v]; e < trp[v + 1]; e++) {
            const int32_t u = tcol[e];
            if (levels[u] == cur) {
                levels[v] = cur + 1;
                parents[v] = u;
                ctrl->count = 1;
                break;
            }
        }
    }
}

// 15.4: a thread per edge (u, w): balanced whatever the degrees, but all m
// edges are read every level.
__global__ void k_edge_centric(const int32_t *src, const int32_t *col, size_t m,
                               int32_t *levels, int32_t *parents, int32_t cur, bfs_ctrl *ctrl)
{
    for (size_t e = blockIdx.x * (size_t)blockDim.x + threadIdx.x; e < m;
         e += (size_t)gridDim.x * blockDim.x) {
        const int32_t u = src[e], w = col[e];
        if (levels[u] == cur && levels[w] == -1) {
            levels[w] = cur + 1;
            parents[w] = u;
            ctrl->count = 1;
        }
    }
}

// 15.5: a thread per frontier vertex; atomicCAS claims a neighbour (so each
// vertex enters the next queue once), atomicAdd on one global counter places
// it: every claim contends for the same word.
__global__ void k_queue(const uint64_t *rp, const int32_t *col, const int32_t *q, size_t qn,
                        int32_t *nq, int32_t *levels, int32_t *parents, int32_t cur,
                        bfs_ctrl *ctrl)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < qn;
         i += (size_t)gridDim.x * blockDim.x) {
        const int32_t v = q[i];
        for (uint64_t e = rp[v]; e < rp[v + 1]; e++) {
            const int32_t w = col[e];
            if (claim(levels, w, cur + 1)) {
                parents[w] = v;
                nq[atomicAdd(&ctrl->count, 1u)] = w;
            }
        }
    }
}

// 15.6: the block gathers its claims in a shared-memory queue (atomics on a
// shared counter), then one atomicAdd a block reserves its place in the
// global queue and the block copies it there, coalesced. A full local queue
// overflows to the global one directly. The loop over the queue is uniform
// in the block (base, not i), so every thread reaches the barriers.
template <int BLOCK, int LOCAL>
__global__ void k_privatized(const uint64_t *rp, const int32_t *col, const int32_t *q,
                             size_t qn, int32_t *nq, int32_t *levels, int32_t *parents,
                             int32_t cur, bfs_ctrl *ctrl)
{
    __shared__ int32_t lq[LOCAL];
    __shared__ unsigned ln, gbase;
    for (size_t base = blockIdx.x * (size_t)BLOCK; base < qn; base += (size_t)gridDim.x * BLOCK) {
        if (threadIdx.x == 0) ln = 0;
        __syncthreads();
        const size_t i = base + threadIdx.x;
        if (i < qn) {
            const int32_t v = q[i];
            for (uint64_t e = rp[v]; e < rp[v + 1]; e++) {
                const int32_t w = col[e];
                if (!claim(levels, w, cur + 1)) continue;
                parents[w] = v;
                const unsigned k = atomicAdd(&ln, 1u);
                if (k < LOCAL) lq[k] = w;
                else nq[atomicAdd(&ctrl->count, 1u)] = w; // overflow
            }
        }
        __syncthreads();
        const unsigned kept = ln < LOCAL ? ln : LOCAL;
        if (threadIdx.x == 0) gbase = atomicAdd(&ctrl->count, kept);
        __syncthreads();
        for (unsigned k = threadIdx.x; k < kept; k += BLOCK) nq[gbase + k] = lq[k];
        __syncthreads(); // lq and ln are reused by the next round
    }
}

// 15.7, fewer launches: while the frontier fits one block's shared memory,
// a single block expands level after level, a barrier between levels
// standing in for the kernel boundary (a launch and a counter read each cost
// more than a small level's work). The frontier ping-pongs between two
// shared queues; a level whose next frontier passes CAP is finished in full
// (claims past CAP go straight to the global queue, at their own index: one
// block, so the shared counter is the global position too), its first CAP
// entries are copied out, and the block returns so the grid can take the big
// levels. ctrl->count: the next frontier's size (0: the search is over);
// ctrl->levels: the levels this launch completed (the host's level counter).
//
// One barrier a level is enough because the counters rotate through three
// words: level p adds into cnt[p % 3]; every thread reads it after the
// barrier ending level p; thread 0 clears cnt[(p + 1) % 3] during level p,
// when every read of it (after level p - 2) is behind the barrier ending
// level p - 1, and the clear is seen before level p + 1 adds (barrier p).
// Every thread reads the same count, so every thread takes the same branch:
// all of them reach every barrier and return together.
template <int BLOCK, int CAP>
__global__ void __launch_bounds__(BLOCK, 1)
    k_small_frontier(const uint64_t *rp, const int32_t *col, const int32_t *q, unsigned qn,
                     int32_t *nq, int32_t *levels, int32_t *parents, int32_t cur,
                     bfs_ctrl *ctrl)
{
    __shared__ int32_t buf[2][CAP];
    __shared__ unsigned cnt[3];
    for (unsigned i = threadIdx.x; i < qn; i += BLOCK) buf[0][i] = q[i];
    if (threadIdx.x < 3) cnt[threadIdx.x] = 0;
    __syncthreads();
    unsigned fn = qn; // the frontier's size, the same in every thread
    int side = 0, slot = 0;
    for (int32_t lvl = cur;; lvl++) {
        const int32_t *fq = buf[side];
        int32_t *xq = buf[side ^ 1];
        const int after = slot == 2 ? 0 : slot + 1;
        if (threadIdx.x == 0) cnt[after] = 0;
        for (unsigned i = threadIdx.x; i < fn; i += BLOCK) {
            const int32_t v = fq[i];
            for (uint64_t e = rp[v]; e < rp[v + 1]; e++) {
                const int32_t w = col[e];
                if (!claim(levels, w, lvl + 1)) continue;
                parents[w] = v;
                const unsigned k = atomicAdd(&cnt[slot], 1u);
                if (k < CAP) xq[k] = w;
                else nq[k] = w; // overflow: this level ends the run
            }
        }
        __syncthreads(); // the level's claims, levels and parents seen by all
        const unsigned next = cnt[slot];
        if (next == 0 || next > CAP) {
            for (unsigned k = threadIdx.x; k < CAP && k < next; k += BLOCK) nq[k] = xq[k];
            if (threadIdx.x == 0) {
                ctrl->count = next;
                ctrl->levels = (unsigned)(lvl + 1 - cur);
            }
            return;
        }
        fn = next;
        side ^= 1;
        slot = after;
    }
}

constexpr int BLOCK = 256;
// small_frontier: the single block's size and its queues' capacity (two
// queues of 2048 ids, 16 KB of shared memory; the same capacity as
// k_privatized's local queue).
constexpr int SMALL_BLOCK = 1024;
constexpr int SMALL_CAP = 2048;

} // namespace cupat_bfs_dev

using namespace cupat_bfs_dev;

// small_frontier's driver: a frontier of at most SMALL_CAP vertices goes to
// the single block (which reports how many levels it ran), a bigger one to
// the privatized grid kernel for one level; the counter is read after each
// launch, so a run of small levels costs one launch and one read.
static cupat_status bfs_small_frontier(cupat_ctx *ctx, const bfs_req *r)
{
    cupat_graph *g = r->g;
    bfs_ctrl *ctrl = (bfs_ctrl *)g->work.ctrl, h;
    int32_t *q = g->work.queue[0], *nq = g->work.queue[1];
    CUPAT_TRY(cupat__bfs_cuda_init(ctx, r, q));
    size_t qn = r->nsrc;
    for (int32_t cur = 0;;) {
        CUPAT_TRY(cupat__bfs_ctrl_clear(ctx, g));
        const bool small = qn <= (size_t)SMALL_CAP;
        if (small) {
            k_small_frontier<SMALL_BLOCK, SMALL_CAP><<<1, SMALL_BLOCK, 0, ctx->stream>>>(
                g->row_ptr, g->col, q, (unsigned)qn, nq, r->levels, r->parents, cur, ctrl);
            CUPAT_TRY(cupat__launched(ctx, "k_small_frontier"));
        } else {
            k_privatized<BLOCK, 2048><<<cupat__bfs_grid(ctx, qn, BLOCK), BLOCK, 0, ctx->stream>>>(
                g->row_ptr, g->col, q, qn, nq, r->levels, r->parents, cur, ctrl);
            CUPAT_TRY(cupat__launched(ctx, "k_privatized"));
        }
        CUPAT_TRY(cupat__bfs_ctrl_read(ctx, g, &h));
        if (h.count == 0) break;
        cur += small ? (int32_t)h.levels : 1;
        int32_t *t = q;
        q = nq;
        nq = t;
        qn = h.count;
    }
    return CUPAT_SUCCESS;
}

extern "C" cupat_status cupat__bfs_cuda_book(cupat_ctx *ctx, const bfs_req *r)
{
    cupat_graph *g = r->g;
    const size_t n = g->n, m = g->m;
    CUPAT_TRY(cupat__bfs_cuda_work(ctx, g, r->rung));
    if (r->rung == BR_SMALL_FRONTIER) return bfs_small_frontier(ctx, r);
    bfs_ctrl *ctrl = (bfs_ctrl *)g->work.ctrl, h;
    const int queued = r->rung == BR_QUEUE || r->rung == BR_PRIVATIZED;
    int32_t *q = g->work.queue[0], *nq = g->work.queue[1];
    CUPAT_TRY(cupat__bfs_cuda_init(ctx, r, queued ? q : NULL));
    size_t qn = r->nsrc;
    for (int32_t cur = 0;; cur++) {
        CUPAT_TRY(cupat__bfs_ctrl_clear(ctx, g));
        const unsigned vg = cupat__bfs_grid(ctx, n, BLOCK);
        switch (r->rung) {
        case BR_PUSH_VERTEX:
            k_push_vertex<<<vg, BLOCK, 0, ctx->stream>>>(g->row_ptr, g->col, n, r->levels,
                                                         r->parents, cur, ctrl);
            break;
        case BR_PULL_VERTEX:
            k_pull_vertex<<<vg, BLOCK, 0, ctx->stream>>>(g->t_row_ptr, g->t_col, n, r->levels,
                                                         r->parents, cur, ctrl);
            break;
        case BR_EDGE_CENTRIC:
            if (m)
                k_edge_centric<<<cupat__bfs_grid(ctx, m, BLOCK), BLOCK, 0, ctx->stream>>>(
                    g->work.edge_src, g->col, m, r->levels, r->parents, cur, ctrl);
            break;
        case BR_QUEUE:
            k_queue<<<cupat__bfs_grid(ctx, qn, BLOCK), BLOCK, 0, ctx->stream>>>(
                g->row_ptr, g->col, q, qn, nq, r->levels, r->parents, cur, ctrl);
            break;
        default: // BR_PRIVATIZED
            k_privatized<BLOCK, 2048><<<cupat__bfs_grid(ctx, qn, BLOCK), BLOCK, 0, ctx->stream>>>(
                g->row_ptr, g->col, q, qn, nq, r->levels, r->parents, cur, ctrl);
            break;
        }
        CUPAT_TRY(cupat__launched(ctx, "bfs book kernel"));
        CUPAT_TRY(cupat__bfs_ctrl_read(ctx, g, &h));
        if (h.count == 0) break;
        if (queued) {
            int32_t *t = q;
            q = nq;
            nq = t;
            qn = h.count;
        }
    }
    return CUPAT_SUCCESS;
}
