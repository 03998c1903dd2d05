/* SPDX-License-Identifier: Apache-2.0 */
/* bfs_cpu.c — the CPU rungs of "bfs": the serial FIFO reference, OpenMP
 * level-synchronous top-down, OpenMP direction-optimizing (the default).
 * Levels and parents are host memory here. */
#include "internal.h"
#include "bfs/bfs_internal.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

static cupat_status oom(cupat_ctx *ctx)
{
    return cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY, "cupat_bfs: no host memory for queues");
}

/* levels, parents := -1, the sources at level 0 and their own parents; the
 * queue holds the sources. */
static void init(const bfs_req *r, int32_t *queue)
{
    const size_t n = r->g->n;
#pragma omp parallel for schedule(static)
    for (size_t v = 0; v < n; v++) r->levels[v] = r->parents[v] = -1;
    for (size_t i = 0; i < r->nsrc; i++) {
        r->levels[r->src[i]] = 0;
        r->parents[r->src[i]] = r->src[i];
        queue[i] = r->src[i];
    }
}

/* PMPP 15.2's sequential BFS: one FIFO queue, a vertex's parent is the first
 * vertex that reaches it. */
static void serial(const bfs_req *r, int32_t *q)
{
    const uint64_t *rp = r->g->row_ptr;
    const int32_t *col = r->g->col;
    size_t head = 0, tail = r->nsrc;
    while (head < tail) {
        int32_t u = q[head++];
        for (uint64_t e = rp[u]; e < rp[u + 1]; e++) {
            int32_t w = col[e];
            if (r->levels[w] == -1) {
                r->levels[w] = r->levels[u] + 1;
                r->parents[w] = u;
                q[tail++] = w;
            }
        }
    }
}

/* One top-down level: claim each unvisited neighbour of the frontier with a
 * compare-and-swap on its level; each thread gathers its claims in its own
 * buffer (sized for the worst case: n) and places them by one fetch-add.
 * Returns the next frontier's size and out-edges. */
static size_t top_down(const bfs_req *r, const int32_t *q, size_t qn, int32_t *next,
                       int32_t cur, uint64_t *edges_next)
{
    const uint64_t *rp = r->g->row_ptr;
    const int32_t *col = r->g->col;
    size_t tail = 0;
    uint64_t en = 0;
#pragma omp parallel reduction(+ : en)
    {
        int32_t local[1024];
        size_t k = 0;
#pragma omp for schedule(dynamic, 64) nowait
        for (size_t i = 0; i < qn; i++) {
            int32_t u = q[i];
            for (uint64_t e = rp[u]; e < rp[u + 1]; e++) {
                int32_t w = col[e], want = -1;
                if (__atomic_load_n(&r->levels[w], __ATOMIC_RELAXED) != -1) continue;
                if (!__atomic_compare_exchange_n(&r->levels[w], &want, cur + 1, 0,
                                                 __ATOMIC_RELAXED, __ATOMIC_RELAXED))
                    continue;
                r->parents[w] = u;
                en += rp[w + 1] - rp[w];
                local[k++] = w;
                if (k == sizeof local / sizeof local[0]) {
                    size_t at = __atomic_fetch_add(&tail, k, __ATOMIC_RELAXED);
                    memcpy(next + at, local, k * sizeof *local);
                    k = 0;
                }
            }
        }
        size_t at = __atomic_fetch_add(&tail, k, __ATOMIC_RELAXED);
        memcpy(next + at, local, k * sizeof *local);
    }
    *edges_next = en;
    return tail;
}

/* One bottom-up level: every unvisited vertex looks through its in-edges
 * for a frontier vertex (level == cur) and stops at the first. Only
 * vertices at level -1 are written (to cur + 1), so the reads of level cur
 * see no change. */
static size_t bottom_up(const bfs_req *r, int32_t *next, int32_t cur, uint64_t *edges_next)
{
    const cupat_graph *g = r->g;
    const uint64_t *trp = g->t_row_ptr, *rp = g->row_ptr;
    const int32_t *tcol = g->t_col;
    size_t tail = 0;
    uint64_t en = 0;
    const int64_t n = (int64_t)g->n;
#pragma omp parallel reduction(+ : en)
    {
        int32_t local[1024];
        size_t k = 0;
#pragma omp for schedule(dynamic, 1024) nowait
        for (int64_t v = 0; v < n; v++) {
            if (__atomic_load_n(&r->levels[v], __ATOMIC_RELAXED) != -1) continue;
            for (uint64_t e = trp[v]; e < trp[v + 1]; e++) {
                int32_t u = tcol[e];
                if (__atomic_load_n(&r->levels[u], __ATOMIC_RELAXED) != cur) continue;
                __atomic_store_n(&r->levels[v], cur + 1, __ATOMIC_RELAXED);
                r->parents[v] = u;
                en += rp[v + 1] - rp[v];
                local[k++] = (int32_t)v;
                if (k == sizeof local / sizeof local[0]) {
                    size_t at = __atomic_fetch_add(&tail, k, __ATOMIC_RELAXED);
                    memcpy(next + at, local, k * sizeof *local);
                    k = 0;
                }
                break;
            }
        }
        size_t at = __atomic_fetch_add(&tail, k, __ATOMIC_RELAXED);
        memcpy(next + at, local, k * sizeof *local);
    }
    *edges_next = en;
    return tail;
}

cupat_status cupat__bfs_cpu(cupat_ctx *ctx, const bfs_req *r)
{
    const cupat_graph *g = r->g;
    const size_t n = g->n;
    int32_t *q = malloc((n ? n : 1) * sizeof *q), *nq = NULL;
    if (!q) return oom(ctx);
    init(r, q);
    if (r->rung == BR_CPU_SERIAL) {
        serial(r, q);
        free(q);
        return CUPAT_SUCCESS;
    }
    nq = malloc((n ? n : 1) * sizeof *nq);
    if (!nq) {
        free(q);
        return oom(ctx);
    }
    const int dobfs = r->rung == BR_CPU_DIRECTION_OPT;
    size_t qn = r->nsrc;
    uint64_t mf = 0, mu = g->m; /* frontier's and unvisited vertices' out-edges */
    for (size_t i = 0; i < qn; i++) mf += g->row_ptr[q[i] + 1] - g->row_ptr[q[i]];
    mu -= mf;
    int bu = 0;
    for (int32_t cur = 0; qn; cur++) {
        if (dobfs) { /* Beamer's switch */
            if (!bu && mf > mu / BFS_ALPHA) bu = 1;
            else if (bu && qn < n / BFS_BETA) bu = 0;
        }
        uint64_t en;
        size_t nn = bu ? bottom_up(r, nq, cur, &en) : top_down(r, q, qn, nq, cur, &en);
        int32_t *t = q;
        q = nq;
        nq = t;
        qn = nn;
        mf = en;
        mu -= en;
    }
    free(q);
    free(nq);
    return CUPAT_SUCCESS;
}
