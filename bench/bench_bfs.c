/* SPDX-License-Identifier: Apache-2.0 */
/* bench_bfs.c — the "bfs" ladder on Graph500 Kronecker graphs (edge factor
 * 16): one search from a fixed root per call, each rung checked by the
 * Graph500 validation (which pins every level). The table's GFLOP/s column
 * carries GTEPS: "flops" is the Graph500 m of the root's component (input
 * tuples with an end in it). GB/s: the minimum traffic, the CSR read once
 * and levels and parents written once. No CUDA library has a BFS (CUB,
 * cuSPARSE, cuGraph's C++ is not in the toolkit): there is no vendor row;
 * `cupat bench bfs --backend cpu` gives the OpenMP direction-optimizing rung
 * to compare with, and `cupat bfs --kronecker S --roots 64` the Graph500
 * statistics over 64 roots. */
#include "harness.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

typedef struct bfs_state {
    cupat_graph *g;
    int32_t root;
    int32_t *levels, *parents;
    size_t n;
} bfs_state;

static cupat_status bfs_poison(bench_run *run, void *p)
{
    bfs_state *st = p;
    cupat_status s = cupat_memset(run->ctx, st->levels, 0xFF, st->n * sizeof(int32_t));
    return s ? s : cupat_memset(run->ctx, st->parents, 0xFF, st->n * sizeof(int32_t));
}

static cupat_status bfs_run(bench_run *run, void *p)
{
    bfs_state *st = p;
    return cupat_bfs(run->ctx, st->g, st->root, st->levels, st->parents);
}

static cupat_status bfs_verify(bench_run *run, void *p, int strict, bench_check *chk)
{
    (void)strict;
    bfs_state *st = p;
    cupat_bfs_check c;
    cupat_status s = cupat_bfs_check_result(run->ctx, st->g, 1, &st->root, st->levels,
                                            st->parents, &c);
    if (s) return s;
    chk->checked = st->n;
    chk->wrong = c.valid ? 0 : 1;
    if (!c.valid) snprintf(chk->msg, sizeof chk->msg, "%s", c.message);
    return CUPAT_SUCCESS;
}

/* The root: the first vertex from a fixed stream with an edge (Graph500
 * draws its roots among the vertices of degree > 0). */
static int32_t pick_root(const cupat_graph_info *in, const uint64_t *rp)
{
    for (uint64_t k = 0;; k++) {
        int32_t v = (int32_t)(bench_mix64(0xB0F5 + k) % in->vertices);
        if (rp[v + 1] > rp[v] || k > 1000) return v;
    }
}

/* Default scales 20 and 22 on the GPU, 16 on the CPU; --n 2^S gives scale S. */
cupat_status bench_bfs_cases(bench_run *run, const bench_size *size)
{
    int scales[2] = {20, 22}, ns = 2;
    if (run->backend != CUPAT_BACKEND_CUDA) scales[0] = 16, ns = 1;
    if (size && size->n) {
        scales[0] = (int)ceil(log2((double)size->n));
        if (scales[0] < 1) scales[0] = 1;
        ns = 1;
    }
    cupat_status s = CUPAT_SUCCESS;
    for (int k = 0; !s && k < ns; k++) {
        bfs_state st = {0};
        bench_progress(run, "bfs: building the scale-%d Kronecker graph", scales[k]);
        s = cupat_graph_kronecker(run->ctx, &st.g, scales[k], 16, 2);
        cupat_graph_info in;
        uint64_t *rp = NULL;
        if (!s) s = cupat_graph_get_info(run->ctx, st.g, &in);
        if (!s) {
            st.n = in.vertices;
            rp = malloc((st.n + 1) * sizeof *rp);
            s = rp ? cupat_graph_get_csr(run->ctx, st.g, rp, NULL) : CUPAT_ERROR_OUT_OF_MEMORY;
        }
        if (!s) st.root = pick_root(&in, rp);
        free(rp);
        if (!s) s = cupat_malloc(run->ctx, (void **)&st.levels, st.n * sizeof(int32_t));
        if (!s) s = cupat_malloc(run->ctx, (void **)&st.parents, st.n * sizeof(int32_t));
        /* the component's m, from one default search */
        cupat_bfs_check c = {0};
        if (!s) s = cupat_bfs(run->ctx, st.g, st.root, st.levels, st.parents);
        if (!s) s = cupat_bfs_check_result(run->ctx, st.g, 1, &st.root, st.levels, st.parents, &c);
        if (!s) {
            bench_case bc = {0};
            char nv[32];
            bc.pattern = "bfs";
            snprintf(bc.label, sizeof bc.label,
                     "Kronecker scale %d ef 16 (%s vertices, m=%llu): GFLOP/s column = GTEPS",
                     scales[k], bench_fmt_count(nv, sizeof nv, st.n),
                     (unsigned long long)c.traversed_edges);
            bc.bytes = 8.0 * (double)(st.n + 1) + 4.0 * (double)in.edges + 8.0 * (double)st.n;
            bc.flops = (double)c.traversed_edges;
            bc.bound = BENCH_BOUND_READ;
            bc.state = &st;
            bc.prepare = bfs_poison;
            bc.run = bfs_run;
            bc.check = bfs_verify;
            s = bench_run_case(run, &bc);
        }
        cupat_sync(run->ctx);
        cupat_free(run->ctx, st.levels);
        cupat_free(run->ctx, st.parents);
        cupat_graph_destroy(run->ctx, st.g);
    }
    return s;
}
