/* SPDX-License-Identifier: Apache-2.0 */
/* cluster_lab.c — the experiments of `cupat lab cluster` as a table, their
 * argument checks, and the host models (what each block of a cluster should
 * see, clusters co-resident from per-block timestamps) that the tests check
 * on the CPU. The kernels and their host halves are in cluster.cu. */
#include "cluster/cluster.h"

#include "internal.h"

#include <stdlib.h>
#include <string.h>

static const lab_exp exps[LAB_CLU_NEXP] = {
    [LAB_CLU_LAUNCH] = {"launch",
                        "__cluster_dims__(2,1,1) launched with <<< >>>; run-time sizes through cudaLaunchKernelEx; "
                        "a grid that is not a whole number of clusters",
                        "Guide 5.2.1 Thread Block Clusters (G01, G02)", "blocks"},
    [LAB_CLU_API] = {"api", "cg::this_cluster() as each block sees it: block_rank, block_index, dim_blocks, num_threads, "
                            "sync; 1D and 2D clusters",
                     "Guide 5.2.1, 11 (cluster group) (G03)", "blocks"},
    [LAB_CLU_SIZES] = {"sizes", "the largest portable (8) and non-portable (16) cluster, 32 refused; "
                                "cudaOccupancyMaxPotentialClusterSize",
                       "Guide 5.2.1 (G04)", "blocks"},
    [LAB_CLU_OCCUPANCY] = {"occupancy",
                           "cudaOccupancyMaxActiveClusters against the clusters counted resident at once (%globaltimer)",
                           "Guide 8.2.3.1 Occupancy Calculator (G26)", "clusters"},
    [LAB_CLU_DSMEM] = {"dsmem", "distributed shared memory: reads, writes and atomics into other blocks' shared memory",
                       "Guide 5.2.1, 5.3 Distributed Shared Memory (G05)", "words"},
    [LAB_CLU_LATENCY] = {"latency", "one thread's pointer chase: its own shared memory, a remote block's, the L2",
                         "Guide 5.3 (DSMEM); lab exec latency's chase", "cycles"},
    [LAB_CLU_BANDWIDTH] = {"bandwidth", "every block reading its neighbour's shared memory, against its own and the L2",
                           "Guide 5.3 (DSMEM)", "GB/s"},
    [LAB_CLU_HISTOGRAM] = {"histogram",
                           "the library's cluster rung (65536 bins spread over a cluster's shared memory) beside "
                           "packed16 and the default",
                           "src/histogram/histogram_cluster.cu; docs/histogram.md", "GB/s"},
};

const lab_exp *lab_cluster_exp(int e)
{
    return e >= 0 && e < LAB_CLU_NEXP ? &exps[e] : NULL;
}

int lab_cluster_find(const char *name)
{
    for (int e = 0; name && e < LAB_CLU_NEXP; e++)
        if (!strcmp(exps[e].name, name)) return e;
    return -1;
}

cupat_status lab_cluster_run(cupat_ctx *ctx, int e, int reps, lab_row rows[LAB_MAX_ROWS], int *nrows)
{
    if (!ctx) return cupat__fail(NULL, CUPAT_ERROR_INVALID_VALUE, "lab cluster: ctx is NULL");
    if (e < 0 || e >= LAB_CLU_NEXP)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab cluster: experiment = %d (0 to %d)", e,
                           LAB_CLU_NEXP - 1);
    if (reps < 1 || reps > 1000)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab cluster: reps = %d (1 to 1000)", reps);
    if (!rows || !nrows)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab cluster: %s is NULL", !rows ? "rows" : "nrows");
    if (cupat_get_backend(ctx) != CUPAT_BACKEND_CUDA)
        return cupat__fail(ctx, CUPAT_ERROR_NOT_SUPPORTED, "lab cluster: the experiments need the CUDA backend");
    memset(rows, 0, sizeof(lab_row) * LAB_MAX_ROWS);
    *nrows = 0;
    return cupat__lab_cluster_run(ctx, e, reps, rows, nrows);
}

/* ----------------------------------------------------- host models -- */

int lab_cluster_expect(const unsigned grid[3], const unsigned cdim[3], const unsigned blk[3], lab_clu_view *v)
{
    unsigned nc[3];
    for (int d = 0; d < 3; d++) {
        if (!cdim[d] || !grid[d] || grid[d] % cdim[d] || blk[d] >= grid[d]) return -1;
        nc[d] = grid[d] / cdim[d];
        v->cluster[d] = blk[d] / cdim[d];
        v->index[d] = blk[d] % cdim[d];
    }
    v->rank = v->index[0] + cdim[0] * (v->index[1] + cdim[1] * v->index[2]);
    v->blocks = cdim[0] * cdim[1] * cdim[2];
    v->cluster_rank = v->cluster[0] + nc[0] * (v->cluster[1] + nc[1] * v->cluster[2]);
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int lab_cluster_max_overlap(const uint64_t *start, const uint64_t *end, int n)
{
    if (n <= 0) return 0;
    if (n > (1 << 20)) return -1;
    uint64_t *s = malloc(2 * (size_t)n * sizeof *s);
    if (!s) return -1;
    uint64_t *e = s + n;
    memcpy(s, start, (size_t)n * sizeof *s);
    memcpy(e, end, (size_t)n * sizeof *e);
    qsort(s, (size_t)n, sizeof *s, cmp_u64);
    qsort(e, (size_t)n, sizeof *e, cmp_u64);
    int open = 0, most = 0;
    for (int i = 0, j = 0; i < n;) { /* ends at t close before starts at t */
        if (j < n && e[j] <= s[i]) {
            open--;
            j++;
        } else {
            open++;
            i++;
            most = open > most ? open : most;
        }
    }
    free(s);
    return most;
}

int lab_cluster_coresident(const uint64_t *bstart, const uint64_t *bend, int nblocks, int cs)
{
    if (cs < 1 || nblocks < 0 || nblocks % cs) return -1;
    const int nc = nblocks / cs;
    if (!nc) return 0;
    uint64_t *s = malloc(2 * (size_t)nc * sizeof *s);
    if (!s) return -1;
    uint64_t *e = s + nc;
    for (int c = 0; c < nc; c++) {
        s[c] = UINT64_MAX;
        e[c] = 0;
        for (int b = c * cs; b < (c + 1) * cs; b++) {
            s[c] = bstart[b] < s[c] ? bstart[b] : s[c];
            e[c] = bend[b] > e[c] ? bend[b] : e[c];
        }
    }
    const int most = lab_cluster_max_overlap(s, e, nc);
    free(s);
    return most;
}
