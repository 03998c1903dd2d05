// bfs_book.cu — the PMPP ch. 15 rungs of "bfs": vertex-centric push and
// pull (15.3), edge-centric (15.4), frontier queues with global atomics
// (15.5), privatized block-level queues (15.6). One level a launch; the host
// reads the level's counter to decide whether to go on.
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

constexpr int BLOCK = 256;

} // namespace cupat_bfs_dev

using namespace cupat_bfs_dev;

extern "C" cupat_status cupat__bfs_cuda_book(cupat_ctx *ctx, const bfs_req *r)
{
    cupat_graph *g = r->g;
    const size_t n = g->n, m = g->m;
    CUPAT_TRY(cupat__bfs_cuda_work(ctx, g, r->rung));
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
