/* SPDX-License-Identifier: Apache-2.0 */
/* test_cluster_lab.c — the cluster lab (lab/cluster).
 * cpu:  the experiment table; what each block of a cluster should see (1D,
 *       2D, 3D clusters; grids that are not whole clusters refused); the
 *       most intervals open at once and the clusters co-resident from block
 *       stamps (touching intervals do not overlap); the DSMEM words differ
 *       across ranks; bad arguments, the CPU backend.
 * cuda: every experiment runs and no row's check fails (a device below cc
 *       9.0 gives one 'not supported' row). With --small (compute-sanitizer)
 *       launch, api, sizes and dsmem only. */
#include "testutil.h"

#include "cluster/cluster.h"

static void check_table(void)
{
    for (int e = 0; e < LAB_CLU_NEXP; e++) {
        const lab_exp *x = lab_cluster_exp(e);
        CHECK(x && x->name && x->title && x->source && x->unit && lab_cluster_find(x->name) == e, "experiment %d", e);
    }
    CHECK(lab_cluster_exp(LAB_CLU_NEXP) == NULL && lab_cluster_exp(-1) == NULL && lab_cluster_find("nope") == -1,
          "table ends");
}

static void check_expect(void)
{
    lab_clu_view v;
    const unsigned g1[3] = {32, 1, 1}, c4[3] = {4, 1, 1}, b5[3] = {5, 0, 0};
    CHECK(lab_cluster_expect(g1, c4, b5, &v) == 0 && v.rank == 1 && v.cluster[0] == 1 && v.index[0] == 1 &&
              v.blocks == 4 && v.cluster_rank == 1,
          "1D: block 5 in clusters of 4: rank %u, cluster %u", v.rank, v.cluster[0]);
    const unsigned g2[3] = {8, 4, 1}, c22[3] = {2, 2, 1}, b2[3] = {5, 3, 0};
    CHECK(lab_cluster_expect(g2, c22, b2, &v) == 0 && v.index[0] == 1 && v.index[1] == 1 && v.rank == 3 &&
              v.cluster[0] == 2 && v.cluster[1] == 1 && v.blocks == 4 && v.cluster_rank == 2 + 4 * 1,
          "2D: block (5,3) in (2,2): rank %u", v.rank);
    const unsigned g3[3] = {4, 4, 2}, c3[3] = {2, 1, 2}, b3[3] = {3, 2, 1};
    CHECK(lab_cluster_expect(g3, c3, b3, &v) == 0 && v.rank == 1 + 2 * 1 && v.blocks == 4 && v.cluster[0] == 1 &&
              v.cluster[1] == 2 && v.cluster[2] == 0,
          "3D: block (3,2,1) in (2,1,2): rank %u", v.rank);
    const unsigned g15[3] = {15, 1, 1}, c2[3] = {2, 1, 1}, b0[3] = {0, 0, 0}, b40[3] = {40, 0, 0}, c0[3] = {0, 1, 1};
    CHECK(lab_cluster_expect(g15, c2, b0, &v) == -1, "15 blocks are not clusters of 2");
    CHECK(lab_cluster_expect(g1, c4, b40, &v) == -1, "a block outside the grid");
    CHECK(lab_cluster_expect(g1, c0, b0, &v) == -1, "a zero cluster dimension");
    /* every rank of a cluster once */
    int seen[8] = {0};
    const unsigned c8[3] = {8, 1, 1};
    for (unsigned b = 0; b < 32; b++) {
        const unsigned blk[3] = {b, 0, 0};
        if (!lab_cluster_expect(g1, c8, blk, &v) && v.cluster[0] == 2) seen[v.rank]++;
    }
    for (int r = 0; r < 8; r++) CHECK(seen[r] == 1, "rank %d of cluster 2: %d times", r, seen[r]);
}

static void check_overlap(void)
{
    const uint64_t s1[] = {0, 10, 20}, e1[] = {10, 20, 30};
    CHECK(lab_cluster_max_overlap(s1, e1, 3) == 1, "touching intervals: 1 at a time");
    const uint64_t s2[] = {0, 1, 2, 50}, e2[] = {100, 99, 3, 60};
    CHECK(lab_cluster_max_overlap(s2, e2, 4) == 3, "nested: 3");
    const uint64_t s3[] = {5, 5, 5, 5, 5}, e3[] = {9, 9, 9, 9, 9};
    CHECK(lab_cluster_max_overlap(s3, e3, 5) == 5, "equal: 5");
    CHECK(lab_cluster_max_overlap(s3, e3, 0) == 0, "none");
    /* 8 blocks in clusters of 2: clusters 0, 1 together, then 2, 3 together
     * after them; one block of cluster 1 starts late but inside. */
    const uint64_t bs[] = {0, 0, 1, 3, 100, 100, 100, 101}, be[] = {100, 90, 99, 100, 200, 200, 201, 200};
    CHECK(lab_cluster_coresident(bs, be, 8, 2) == 2, "2 clusters of 2 at a time (%d)", lab_cluster_coresident(bs, be, 8, 2));
    CHECK(lab_cluster_coresident(bs, be, 8, 4) == 1, "clusters of 4: one after the other");
    CHECK(lab_cluster_coresident(bs, be, 8, 1) == 4, "single blocks: 4 at once (%d)", lab_cluster_coresident(bs, be, 8, 1));
    CHECK(lab_cluster_coresident(bs, be, 7, 2) == -1 && lab_cluster_coresident(bs, be, 8, 0) == -1, "bad sizes");
}

static void check_words(void)
{
    int same = 0;
    for (unsigned r = 0; r < 16; r++)
        for (unsigned i = 0; i < 4096; i++) same += lab_cluster_word(r, i) == lab_cluster_word(r + 1, i);
    CHECK(same == 0, "a rank's words differ from the next rank's (%d equal)", same);
}

static void check_bad(cupat_ctx *ctx)
{
    lab_row rows[LAB_MAX_ROWS];
    int n = 0;
    const cupat_status INV = CUPAT_ERROR_INVALID_VALUE;
    CHECK_FAILS(ctx, INV, "experiment = 99", lab_cluster_run(ctx, 99, 1, rows, &n));
    CHECK_FAILS(ctx, INV, "reps = 0", lab_cluster_run(ctx, LAB_CLU_API, 0, rows, &n));
    CHECK_FAILS(ctx, INV, "rows is NULL", lab_cluster_run(ctx, LAB_CLU_API, 1, NULL, &n));
    CHECK_FAILS(NULL, INV, "ctx is NULL", lab_cluster_run(NULL, LAB_CLU_API, 1, rows, &n));
    if (t_backend == CUPAT_BACKEND_CPU)
        CHECK_FAILS(ctx, CUPAT_ERROR_NOT_SUPPORTED, "CUDA backend", lab_cluster_run(ctx, LAB_CLU_API, 1, rows, &n));
}

static void check_gpu(cupat_ctx *ctx)
{
    /* under compute-sanitizer the launches meant to be refused are not made:
     * each would count as an API error */
    lab_set_sanitizer(t_sanitizer[0] ? t_sanitizer : t_small ? "compute-sanitizer" : NULL);
    static const int small[] = {LAB_CLU_LAUNCH, LAB_CLU_API, LAB_CLU_SIZES, LAB_CLU_DSMEM};
    for (int e = 0; e < LAB_CLU_NEXP; e++) {
        int run = !t_small;
        for (size_t k = 0; k < sizeof small / sizeof small[0]; k++) run |= small[k] == e;
        if (!run) continue;
        lab_row rows[LAB_MAX_ROWS];
        int n = 0;
        CHECK_OK(ctx, lab_cluster_run(ctx, e, 2, rows, &n));
        CHECK(n > 0, "%s: rows", lab_cluster_exp(e)->name);
        for (int k = 0; k < n; k++) {
            printf("%-10s %-58s %10.4f ms %12.5g %s  %s\n", lab_cluster_exp(e)->name, rows[k].name, rows[k].ms,
                   rows[k].value, rows[k].ok < 0 ? "-" : rows[k].ok ? "ok" : "FAIL", rows[k].note);
            CHECK(rows[k].ok != 0, "%s / %s: %s", lab_cluster_exp(e)->name, rows[k].name, rows[k].note);
            CHECK(rows[k].ms >= 0, "%s / %s: time", lab_cluster_exp(e)->name, rows[k].name);
        }
        if (n == 1 && !strcmp(rows[0].name, "not supported")) return; /* below cc 9.0: said once */
    }
}

int main(int argc, char **argv)
{
    cupat_ctx *ctx = test_init(argc, argv);
    check_table();
    check_expect();
    check_overlap();
    check_words();
    check_bad(ctx);
    if (t_backend == CUPAT_BACKEND_CUDA) check_gpu(ctx);
    return test_finish(ctx);
}
