/* SPDX-License-Identifier: Apache-2.0 */
/* bfs.c — PMPP 15: breadth-first search over a Graph500 Kronecker graph
 * (2^14 vertices, 16 edges a vertex, power-law degrees): the levels of every
 * vertex from the best-connected one, direction-optimizing on the GPU. */
#include <cupat.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define TRY(call) do { cupat_status s_ = (call); if (s_) { fprintf(stderr, "%s: %s\n", #call, cupat_last_error(ctx)); return 1; } } while (0)

int main(void)
{
    cupat_ctx *ctx = NULL;
    if (cupat_create(&ctx, CUPAT_BACKEND_AUTO, -1)) return fprintf(stderr, "%s\n", cupat_last_error(NULL)), 1;
    cupat_graph *g = NULL;
    TRY(cupat_graph_kronecker(ctx, &g, 14, 16, 2));
    cupat_graph_info info;
    TRY(cupat_graph_get_info(ctx, g, &info));
    /* the source: the vertex of most edges (many of a Kronecker graph have none) */
    uint64_t *row = malloc((info.vertices + 1) * sizeof *row);
    int32_t *col = malloc(info.edges * sizeof *col), source = 0;
    TRY(cupat_graph_get_csr(ctx, g, row, col));
    for (size_t v = 1; v < info.vertices; v++)
        if (row[v + 1] - row[v] > row[source + 1] - row[source]) source = (int32_t)v;
    int32_t *dl, *level = malloc(info.vertices * sizeof *level);
    TRY(cupat_malloc(ctx, (void **)&dl, info.vertices * sizeof *dl));
    TRY(cupat_bfs(ctx, g, source, dl, NULL));
    TRY(cupat_memcpy(ctx, level, dl, info.vertices * sizeof *level));
    size_t reached = 0, at[64] = {0};
    int deepest = 0;
    for (size_t v = 0; v < info.vertices; v++)
        if (level[v] >= 0) {
            reached++;
            if (level[v] < 64) at[level[v]]++;
            if (level[v] > deepest) deepest = level[v];
        }
    printf("%s: BFS from vertex %d (%zu edges) of %zu vertices, %zu edges: %zu reached in %d levels;",
           cupat_backend_name(cupat_get_backend(ctx)), (int)source, (size_t)(row[source + 1] - row[source]),
           info.vertices, info.edges, reached, deepest);
    for (int l = 0; l <= deepest && l < 64; l++) printf(" %zu", at[l]);
    printf(" a level\n");
    const int ok = level[source] == 0 && reached > 1;
    cupat_graph_destroy(ctx, g);
    cupat_free(ctx, dl);
    cupat_destroy(ctx);
    free(level), free(row), free(col);
    return !ok;
}
