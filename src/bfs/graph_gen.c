/* SPDX-License-Identifier: Apache-2.0 */
/* graph_gen.c — the Graph500 Kronecker generator (specification 3.0,
 * section 3): each edge descends `scale` levels of the 2x2 initiator
 * (A, B, C, D) = (0.57, 0.19, 0.19, 0.05), then the vertex labels are
 * permuted and the edge list shuffled. Random numbers: splitmix64, one
 * stream per edge (from seed and the edge's index), so the list does not
 * depend on the thread count. */
#include "internal.h"
#include "bfs/bfs_internal.h"

#include <stdlib.h>

static inline uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static inline uint64_t next(uint64_t *s) { return mix(*s += 0x9E3779B97F4A7C15ull); }
/* Uniform in [0, 1) with 53 bits. */
static inline double unif(uint64_t *s) { return (double)(next(s) >> 11) * 0x1p-53; }
/* Uniform in [0, k), k > 0 (Lemire's multiply; the bias is below 2^-32 for
 * k < 2^32, as the spec's permutation needs no more). */
static inline uint64_t below(uint64_t *s, uint64_t k)
{
    return (uint64_t)(((unsigned __int128)next(s) * k) >> 64);
}

#define KRON_A 0.57
#define KRON_B 0.19
#define KRON_C 0.19

cupat_status cupat_kronecker_edges(int scale, int edge_factor, uint64_t seed, int64_t *edges)
{
    CUPAT_TRACE_CALL();
    const char *fn = "cupat_kronecker_edges";
    if (scale < 1 || scale > 30)
        return cupat__fail(NULL, CUPAT_ERROR_INVALID_VALUE, "%s: scale = %d: 1 .. 30", fn,
                           scale);
    if (edge_factor < 1 || edge_factor > 1024)
        return cupat__fail(NULL, CUPAT_ERROR_INVALID_VALUE, "%s: edge_factor = %d: 1 .. 1024",
                           fn, edge_factor);
    if (!edges) return cupat__fail(NULL, CUPAT_ERROR_NULL_POINTER, "%s: edges is NULL", fn);
    const size_t n = (size_t)1 << scale, m = (size_t)edge_factor << scale;
    int64_t *perm = malloc(n * sizeof *perm);
    if (!perm)
        return cupat__fail(NULL, CUPAT_ERROR_OUT_OF_MEMORY, "%s: no host memory for %zu labels",
                           fn, n);
    const double ab = KRON_A + KRON_B, c_norm = KRON_C / (1.0 - ab), a_norm = KRON_A / ab;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < m; i++) {
        uint64_t s = mix(seed ^ mix(i + 0x632BE59BD9B4E019ull));
        int64_t u = 0, v = 0;
        for (int b = 0; b < scale; b++) {
            int ii = unif(&s) > ab;
            int jj = unif(&s) > (ii ? c_norm : a_norm);
            u |= (int64_t)ii << b;
            v |= (int64_t)jj << b;
        }
        edges[2 * i] = u;
        edges[2 * i + 1] = v;
    }
    /* The vertex permutation (Fisher-Yates), then relabel. */
    uint64_t s = mix(seed ^ 0xA0761D6478BD642Full);
    for (size_t i = 0; i < n; i++) perm[i] = (int64_t)i;
    for (size_t i = n - 1; i > 0; i--) {
        size_t j = (size_t)below(&s, i + 1);
        int64_t t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < 2 * m; i++) edges[i] = perm[edges[i]];
    free(perm);
    /* The edge list shuffled (Fisher-Yates over the pairs). */
    for (size_t i = m - 1; i > 0; i--) {
        size_t j = (size_t)below(&s, i + 1);
        int64_t u = edges[2 * i], v = edges[2 * i + 1];
        edges[2 * i] = edges[2 * j];
        edges[2 * i + 1] = edges[2 * j + 1];
        edges[2 * j] = u;
        edges[2 * j + 1] = v;
    }
    return CUPAT_SUCCESS;
}

cupat_status cupat_graph_kronecker(cupat_ctx *ctx, cupat_graph **g, int scale,
                                   int edge_factor, uint64_t seed)
{
    CUPAT_TRACE_CALL();
    const char *fn = "cupat_graph_kronecker";
    CUPAT_TRY(cupat__begin(ctx, fn));
    if (!g) return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "%s: g is NULL", fn);
    *g = NULL;
    if (scale < 1 || scale > 30)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "%s: scale = %d: 1 .. 30", fn, scale);
    if (edge_factor < 1 || edge_factor > 1024)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "%s: edge_factor = %d: 1 .. 1024", fn,
                           edge_factor);
    if (((size_t)1 << scale) > BFS_MAX_VERTICES)
        return cupat__fail(ctx, CUPAT_ERROR_SIZE, "%s: scale = %d: 2^%d vertices pass %zu", fn,
                           scale, scale, BFS_MAX_VERTICES);
    const size_t m = (size_t)edge_factor << scale;
    int64_t *e = malloc(2 * m * sizeof *e);
    if (!e)
        return cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY, "%s: no host memory for %zu edges",
                           fn, m);
    cupat_status s = cupat_kronecker_edges(scale, edge_factor, seed, e);
    if (s == CUPAT_SUCCESS)
        s = cupat__graph_build(ctx, fn, g, (size_t)1 << scale, m, CUPAT_I64, e,
                               CUPAT_GRAPH_UNDIRECTED);
    free(e);
    return s;
}
