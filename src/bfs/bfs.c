/* SPDX-License-Identifier: Apache-2.0 */
/* bfs.c — cupat_bfs and cupat_bfs_multi: argument checks, the "bfs" ladder,
 * dispatch; cupat_bfs_check_result, the Graph500 validation.
 * Rung -> file: push_vertex .. small_frontier: bfs_book.cu; warp_coop,
 * scan_compact, edge_balanced, direction_opt: bfs_fast.cu; serial, openmp_*: bfs_cpu.c. */
#include "internal.h"
#include "bfs/bfs_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CUDA CUPAT_BACKEND_CUDA
#define CPU CUPAT_BACKEND_CPU

static const cupat_variant_info bfs_rungs[BR_COUNT] = {
    [BR_PUSH_VERTEX] = {"bfs", "push_vertex",
                        "vertex-centric push (top-down): a thread per vertex, every level; "
                        "the frontier's vertices mark their unvisited neighbours (benign "
                        "races: every writer writes the same level)",
                        "PMPP 15.3", CUDA, 0},
    [BR_PULL_VERTEX] = {"bfs", "pull_vertex",
                        "vertex-centric pull (bottom-up): a thread per unvisited vertex looks "
                        "for a parent in the frontier and stops at the first",
                        "PMPP 15.3", CUDA, 0},
    [BR_EDGE_CENTRIC] = {"bfs", "edge_centric",
                         "a thread per edge, every level: balanced whatever the degrees, but "
                         "every edge is read every level",
                         "PMPP 15.4", CUDA, 0},
    [BR_QUEUE] = {"bfs", "queue",
                  "frontier queues: a thread per frontier vertex, atomicCAS claims a "
                  "neighbour, atomicAdd on one global counter appends it",
                  "PMPP 15.5", CUDA, 0},
    [BR_PRIVATIZED] = {"bfs", "privatized",
                       "block-level queues in shared memory (overflow to global), one global "
                       "atomicAdd a block to place them",
                       "PMPP 15.6", CUDA, 0},
    [BR_SMALL_FRONTIER] = {"bfs", "small_frontier",
                           "fewer launches: while the frontier fits one block's shared-memory "
                           "queue (2048 vertices), a single block runs level after level "
                           "(barriers between them, one launch and one counter read for the "
                           "whole run); a bigger frontier goes to the privatized kernel, a "
                           "level a launch, until it shrinks again",
                           "PMPP 15.7", CUDA, 0},
    [BR_WARP_COOP] = {"bfs", "warp_coop",
                      "load balancing: lists of 32+ neighbours expanded by the whole warp, "
                      "short ones in lockstep; warp-aggregated appends (ballot rank, one "
                      "atomic a warp)",
                      "PMPP 15.7 (load balance); Merrill, Garland & Grimshaw 2012", CUDA, 0},
    [BR_SCAN_COMPACT] = {"bfs", "scan_compact",
                         "no atomics in the expansion: benign-race flags per vertex, the next "
                         "queue by stream compaction (cupat_select, decoupled look-back)",
                         "PMPP 11 (compaction) applied to 15.5; Merrill et al. 2012", CUDA, 0},
    [BR_EDGE_BALANCED] = {"bfs", "edge_balanced",
                          "load balancing by a scan of the frontier's degrees: every block the "
                          "same number of edges (a hub's list split across the grid), a "
                          "thread 8 consecutive edges, the tile's lists staged in shared memory",
                          "PMPP 11 (scan) applied to 15.5; Merrill, Garland & Grimshaw 2012",
                          CUDA, 0},
    [BR_DIRECTION_OPT] = {"bfs", "direction_opt",
                          "direction-optimizing: edge_balanced top-down while the frontier is "
                          "small, bottom-up over a frontier bitmap (ballot-built, no atomics; "
                          "long in-edge lists searched by the warp) while its edges pass the "
                          "unvisited edges / 14",
                          "beyond the books (Beamer, Asanovic & Patterson 2012)", CUDA, 1},
    [BR_CPU_SERIAL] = {"bfs", "serial", "one FIFO queue: the textbook reference", "PMPP 15.2",
                       CPU, 0},
    [BR_CPU_QUEUE] = {"bfs", "openmp_queue",
                      "OpenMP level-synchronous top-down: compare-and-swap claims, per-thread "
                      "next queues joined by one fetch-add each",
                      "PMPP 15.5 on the host; OpenMP", CPU, 0},
    [BR_CPU_DIRECTION_OPT] = {"bfs", "openmp_direction_opt",
                              "OpenMP direction-optimizing: top-down / bottom-up by Beamer's "
                              "rule",
                              "Beamer, Asanovic & Patterson 2012; OpenMP", CPU, 1},
};
_Static_assert(sizeof bfs_rungs / sizeof bfs_rungs[0] == BR_COUNT, "bfs ladder");
const cupat_pattern_desc cupat__pattern_bfs = {"bfs", bfs_rungs, BR_COUNT};

/* -------------------------------------------------------------- search -- */

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

static cupat_status check_sources(cupat_ctx *ctx, const char *fn, const cupat_graph *g,
                                  size_t nsources, const int32_t *sources)
{
    if (!sources) return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "%s: sources is NULL", fn);
    if (nsources == 0)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "%s: nsources = 0: at least one",
                           fn);
    for (size_t i = 0; i < nsources; i++)
        if (sources[i] < 0 || (size_t)sources[i] >= g->n)
        {
            if (nsources == 1)
                return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                                   "%s: source %d is not a vertex (n = %zu)", fn, sources[i],
                                   g->n);
            return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                               "%s: sources[%zu] = %d is not a vertex (n = %zu)", fn, i,
                               sources[i], g->n);
        }
    return CUPAT_SUCCESS;
}

static cupat_status bfs_entry(cupat_ctx *ctx, const char *fn, const cupat_graph *g,
                              size_t nsources, const int32_t *sources, int32_t *levels,
                              int32_t *parents)
{
    CUPAT_TRY(cupat__begin(ctx, fn));
    CUPAT_TRY(cupat__graph_check(ctx, fn, g));
    CUPAT_TRY(check_sources(ctx, fn, g, nsources, sources));
    size_t bytes = g->n * sizeof(int32_t);
    if (!levels) return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "%s: levels is NULL", fn);
    CUPAT_TRY(cupat__check_data(ctx, fn, "levels", levels, bytes));
    if (parents) {
        CUPAT_TRY(cupat__check_data(ctx, fn, "parents", parents, bytes));
        CUPAT_TRY(cupat__check_disjoint(ctx, fn, "parents", cupat__extent1(parents, bytes),
                                        "levels", cupat__extent1(levels, bytes),
                                        "levels and parents are two separate arrays"));
    }
    const cupat_variant_info *v;
    CUPAT_TRY(cupat__select(ctx, "bfs", &v));
    int32_t *src = malloc(nsources * sizeof *src);
    if (!src) return cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY, "%s: no host memory", fn);
    memcpy(src, sources, nsources * sizeof *src);
    qsort(src, nsources, sizeof *src, cmp_i32);
    size_t k = 0;
    for (size_t i = 0; i < nsources; i++)
        if (k == 0 || src[i] != src[k - 1]) src[k++] = src[i];
    bfs_req r = {(cupat_graph *)g, cupat__rung_index(v), k, src, levels, parents};
    cupat_status s = CUPAT_SUCCESS;
    if (!parents) { /* every rung builds the tree: give it somewhere to go */
        s = cupat_malloc(ctx, (void **)&r.parents, bytes);
    }
    if (s == CUPAT_SUCCESS) {
        if (ctx->backend == CUPAT_BACKEND_CPU) s = cupat__bfs_cpu(ctx, &r);
        else if (r.rung <= BR_SMALL_FRONTIER) s = cupat__bfs_cuda_book(ctx, &r);
        else s = cupat__bfs_cuda_fast(ctx, &r);
    }
    if (!parents && r.parents) {
        if (ctx->backend == CUPAT_BACKEND_CUDA) cudaStreamSynchronize(ctx->stream);
        cupat_free(ctx, r.parents);
    }
    free(src);
    return s;
}

cupat_status cupat_bfs(cupat_ctx *ctx, const cupat_graph *g, int32_t source, int32_t *levels,
                       int32_t *parents)
{
    CUPAT_TRACE_CALL();
    return bfs_entry(ctx, "cupat_bfs", g, 1, &source, levels, parents);
}

cupat_status cupat_bfs_multi(cupat_ctx *ctx, const cupat_graph *g, size_t nsources,
                             const int32_t *sources, int32_t *levels, int32_t *parents)
{
    CUPAT_TRACE_CALL();
    return bfs_entry(ctx, "cupat_bfs_multi", g, nsources, sources, levels, parents);
}

/* ---------------------------------------------------------- validation -- */

static const char *rule_name(cupat_bfs_rule r)
{
    static const char *names[] = {"none",       "source",     "range", "tree_edge",
                                  "tree_level", "edge_level", "span"};
    return names[r];
}

static void violate(cupat_bfs_check *c, cupat_bfs_rule rule, int64_t v, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static void violate(cupat_bfs_check *c, cupat_bfs_rule rule, int64_t v, const char *fmt, ...)
{
    c->valid = 0;
    c->rule = rule;
    c->vertex = v;
    int k = snprintf(c->message, sizeof c->message, "rule %s: ", rule_name(rule));
    va_list ap;
    va_start(ap, fmt);
    if (k > 0 && (size_t)k < sizeof c->message)
        vsnprintf(c->message + k, sizeof c->message - (size_t)k, fmt, ap);
    va_end(ap);
}

/* The rules in the order cupat.h lists them; the smallest vertex breaking
 * the first broken rule is reported (the same report on every run). */
static void validate(const cupat_graph *g, const uint8_t *is_src, size_t nsrc,
                     const int32_t *sources, const int32_t *lv, const int32_t *pa,
                     uint8_t *found, cupat_bfs_check *c)
{
    const int64_t n = (int64_t)g->n;
    const uint64_t *rp = g->h_row_ptr;
    const int32_t *col = g->h_col;
    int64_t bad = INT64_MAX;
#pragma omp parallel for reduction(min : bad)
    for (int64_t v = 0; v < n; v++)
        if (lv[v] < -1 || lv[v] >= n || pa[v] < -1 || pa[v] >= n || (lv[v] == -1) != (pa[v] == -1))
            if (v < bad) bad = v;
    if (bad != INT64_MAX) {
        violate(c, CUPAT_BFS_RULE_RANGE, bad, "vertex %lld has level %d and parent %d",
                (long long)bad, lv[bad], pa[bad]);
        return;
    }
    for (size_t i = 0; i < nsrc; i++) {
        int32_t s = sources[i];
        if (lv[s] != 0 || pa[s] != s) {
            violate(c, CUPAT_BFS_RULE_SOURCE, s,
                    "source %d has level %d and parent %d (want 0 and itself)", s, lv[s], pa[s]);
            return;
        }
    }
#pragma omp parallel for reduction(min : bad)
    for (int64_t v = 0; v < n; v++)
        if (lv[v] == 0 && !is_src[v] && v < bad) bad = v;
    if (bad != INT64_MAX) {
        violate(c, CUPAT_BFS_RULE_SOURCE, bad, "vertex %lld has level 0 but is no source",
                (long long)bad);
        return;
    }
    /* Tree edges exist: mark each v whose parent's list holds it. */
    memset(found, 0, (size_t)n);
#pragma omp parallel for schedule(dynamic, 1024)
    for (int64_t u = 0; u < n; u++) {
        if (lv[u] < 0) continue;
        for (uint64_t e = rp[u]; e < rp[u + 1]; e++)
            if (pa[col[e]] == u) found[col[e]] = 1; /* many writers of 1: fine */
    }
    int64_t bad_edge = INT64_MAX;
#pragma omp parallel for reduction(min : bad, bad_edge)
    for (int64_t v = 0; v < n; v++) {
        if (lv[v] <= 0) continue;
        if (lv[pa[v]] != lv[v] - 1 && v < bad) bad = v;
        if (!found[v] && v < bad_edge) bad_edge = v;
    }
    if (bad_edge != INT64_MAX) {
        violate(c, CUPAT_BFS_RULE_TREE_EDGE, bad_edge,
                "tree edge %d -> %lld (the parent of %lld) is no edge of the graph",
                pa[bad_edge], (long long)bad_edge, (long long)bad_edge);
        return;
    }
    if (bad != INT64_MAX) {
        violate(c, CUPAT_BFS_RULE_TREE_LEVEL, bad,
                "vertex %lld has level %d, its parent %d level %d (want one less)",
                (long long)bad, lv[bad], pa[bad], lv[pa[bad]]);
        return;
    }
    /* Every edge from a reached vertex: the other end reached, within one
     * level further. */
    int64_t bad_span = INT64_MAX;
#pragma omp parallel for schedule(dynamic, 1024) reduction(min : bad, bad_span)
    for (int64_t u = 0; u < n; u++) {
        if (lv[u] < 0) continue;
        for (uint64_t e = rp[u]; e < rp[u + 1]; e++) {
            int32_t w = col[e];
            if (lv[w] < 0) {
                if (u < bad_span) bad_span = u;
            } else if (lv[w] > lv[u] + 1 && u < bad) {
                bad = u;
            }
        }
    }
    if (bad != INT64_MAX) {
        for (uint64_t e = rp[bad]; e < rp[bad + 1]; e++)
            if (lv[col[e]] > lv[bad] + 1) {
                violate(c, CUPAT_BFS_RULE_EDGE_LEVEL, bad,
                        "edge %lld -> %d joins levels %d and %d (more than one apart)",
                        (long long)bad, col[e], lv[bad], lv[col[e]]);
                return;
            }
    }
    if (bad_span != INT64_MAX) {
        for (uint64_t e = rp[bad_span]; e < rp[bad_span + 1]; e++)
            if (lv[col[e]] < 0) {
                violate(c, CUPAT_BFS_RULE_SPAN, col[e],
                        "vertex %d is reachable (edge from %lld, level %d) but unreached",
                        col[e], (long long)bad_span, lv[bad_span]);
                return;
            }
    }
}

cupat_status cupat_bfs_check_result(cupat_ctx *ctx, const cupat_graph *g, size_t nsources,
                                    const int32_t *sources, const int32_t *levels,
                                    const int32_t *parents, cupat_bfs_check *check)
{
    CUPAT_TRACE_CALL();
    const char *fn = "cupat_bfs_check_result";
    CUPAT_TRY(cupat__begin(ctx, fn));
    CUPAT_TRY(cupat__graph_check(ctx, fn, g));
    if (!check) return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "%s: check is NULL", fn);
    CUPAT_TRY(check_sources(ctx, fn, g, nsources, sources));
    if (!levels) return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "%s: levels is NULL", fn);
    if (!parents) return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "%s: parents is NULL", fn);
    const size_t n = g->n, bytes = n * sizeof(int32_t);
    if (ctx->backend == CUPAT_BACKEND_CUDA) CUPAT_CUDA_TRY(ctx, cudaStreamSynchronize(ctx->stream));
    int32_t *lv = (int32_t *)levels, *pa = (int32_t *)parents, *hl = NULL, *hp = NULL;
    uint8_t *marks = malloc(2 * (n ? n : 1));
    if (!marks) return cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY, "%s: no host memory", fn);
    cupat_status s = CUPAT_SUCCESS;
    if (cupat__pointer_kind(levels) == CUPAT_MEMORY_DEVICE) {
        hl = malloc(bytes ? bytes : 1);
        if (!hl) s = cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY, "%s: no host memory", fn);
        else s = cupat__cuda(ctx, cudaMemcpy(hl, levels, bytes, cudaMemcpyDeviceToHost),
                             "cudaMemcpy (levels)");
        lv = hl;
    }
    if (!s && cupat__pointer_kind(parents) == CUPAT_MEMORY_DEVICE) {
        hp = malloc(bytes ? bytes : 1);
        if (!hp) s = cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY, "%s: no host memory", fn);
        else s = cupat__cuda(ctx, cudaMemcpy(hp, parents, bytes, cudaMemcpyDeviceToHost),
                             "cudaMemcpy (parents)");
        pa = hp;
    }
    if (!s) {
        memset(check, 0, sizeof *check);
        check->valid = 1;
        check->vertex = -1;
        memset(marks, 0, n);
        for (size_t i = 0; i < nsources; i++) marks[sources[i]] = 1;
        validate(g, marks, nsources, sources, lv, pa, marks + n, check);
        size_t reached = 0;
        int32_t depth = 0;
        uint64_t te = 0;
#pragma omp parallel for reduction(+ : reached, te) reduction(max : depth)
        for (size_t v = 0; v < n; v++)
            if (lv[v] >= 0) {
                reached++;
                te += g->tuples[v];
                if (lv[v] > depth) depth = lv[v];
            }
        check->reached = reached;
        check->depth = depth;
        check->traversed_edges = te;
    }
    free(marks);
    free(hl);
    free(hp);
    return s;
}
