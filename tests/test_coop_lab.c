/* SPDX-License-Identifier: Apache-2.0 */
/* test_coop_lab.c — the cooperative-groups lab (lab/coop).
 * cpu:  the experiment table; the tile references (sums and inclusive
 *       prefixes of tiles of 32 / 16 / 8 / 4, wrapping u32); the coalesced
 *       group reference (ranks, sums, prefixes over a lane mask); the Jacobi
 *       reference (a step by hand, the ends held, a constant array fixed,
 *       odd and even step counts); bad arguments, the CPU backend.
 * cuda: every experiment runs and no row's check fails; --small runs block,
 *       tiles, coalesced and grid only. */
#include "testutil.h"

#include "coop/coop.h"

static void check_table(void)
{
    for (int e = 0; e < LAB_COOP_NEXP; e++) {
        const lab_exp *x = lab_coop_exp(e);
        CHECK(x && x->name && x->title && x->source && x->unit && lab_coop_find(x->name) == e, "experiment %d", e);
    }
    CHECK(lab_coop_exp(LAB_COOP_NEXP) == NULL && lab_coop_find("nope") == -1, "table ends");
}

static void check_tiles(void)
{
    uint32_t v[64], red[64], scan[64];
    for (int i = 0; i < 64; i++) v[i] = (uint32_t)i + 1;
    lab_coop_tile_ref(v, 64, 4, red, scan);
    CHECK(red[0] == 10 && red[3] == 10 && red[4] == 26 && scan[0] == 1 && scan[3] == 10 && scan[5] == 5 + 6,
          "tiles of 4: %u %u %u", red[0], red[4], scan[5]);
    lab_coop_tile_ref(v, 64, 32, red, scan);
    CHECK(red[31] == 528 && red[32] == (33 + 64) * 16 && scan[33] == 33 + 34, "tiles of 32");
    for (int i = 0; i < 64; i++) v[i] = 0x80000000u;
    lab_coop_tile_ref(v, 64, 16, red, scan);
    CHECK(red[0] == 0 && scan[0] == 0x80000000u && scan[1] == 0, "u32 sums wrap");
}

static void check_masked(void)
{
    uint32_t v[32], red = 0, scan = 0;
    unsigned rank = 0;
    for (int l = 0; l < 32; l++) v[l] = 1u << (l % 8);
    const uint32_t m3 = 0x49249249u; /* lanes 0, 3, 6, ..., 30: lane % 3 == 0 */
    CHECK(lab_coop_masked_ref(v, m3, 6, &red, &scan, &rank) == 0 && rank == 2 && scan == 1 + 8 + 64, "lane 6 of m3");
    uint32_t want = 0;
    for (int l = 0; l < 32; l += 3) want += v[l];
    CHECK(red == want, "the group's sum");
    CHECK(lab_coop_masked_ref(v, m3, 1, &red, &scan, &rank) == -1, "lane 1 is not in the group");
    CHECK(lab_coop_masked_ref(v, 0xffffffffu, 31, &red, &scan, &rank) == 0 && rank == 31 && scan == red, "full warp");
    CHECK(lab_coop_masked_ref(v, 1u << 17, 17, &red, &scan, &rank) == 0 && rank == 0 && red == v[17] && scan == v[17],
          "a group of one");
}

static void check_jacobi(void)
{
    float a[5] = {1, 0, 0, 0, 3}, t[5];
    lab_coop_jacobi_ref(a, t, 5, 1);
    CHECK(a[0] == 1 && a[1] == 0.5f && a[2] == 0 && a[3] == 1.5f && a[4] == 3, "one step: %g %g %g %g %g", a[0], a[1],
          a[2], a[3], a[4]);
    lab_coop_jacobi_ref(a, t, 5, 2);
    /* (1, .5, 0, 1.5, 3) -> (1, .5, 1, 1.5, 3) -> (1, 1, 1, 2, 3) */
    CHECK(a[1] == 1.0f && a[2] == 1.0f && a[3] == 2.0f, "three steps in all: %g %g %g", a[1], a[2], a[3]);
    float c[7], u[7];
    for (int i = 0; i < 7; i++) c[i] = 2.0f;
    lab_coop_jacobi_ref(c, u, 7, 100);
    int fixed = 1;
    for (int i = 0; i < 7; i++) fixed &= c[i] == 2.0f;
    CHECK(fixed, "a constant array is a fixed point");
    float l[9], w[9];
    for (int i = 0; i < 9; i++) l[i] = (float)i;
    lab_coop_jacobi_ref(l, w, 9, 7);
    int lin = 1;
    for (int i = 0; i < 9; i++) lin &= l[i] == (float)i;
    CHECK(lin, "a line is a fixed point (odd step count)");
    for (size_t i = 0; i < 1000; i++) {
        const float x = lab_coop_jacobi_init(i);
        if (!(x >= 0 && x < 1)) {
            CHECK(0, "init %zu = %g", i, x);
            break;
        }
    }
    CHECK(lab_coop_word(0) != lab_coop_word(1), "words differ");
}

static void check_bad(cupat_ctx *ctx)
{
    lab_row rows[LAB_MAX_ROWS];
    int n = 0;
    const cupat_status INV = CUPAT_ERROR_INVALID_VALUE;
    CHECK_FAILS(ctx, INV, "experiment = 99", lab_coop_run(ctx, 99, 1, rows, &n));
    CHECK_FAILS(ctx, INV, "reps = 1001", lab_coop_run(ctx, LAB_COOP_BLOCK, 1001, rows, &n));
    CHECK_FAILS(ctx, INV, "nrows is NULL", lab_coop_run(ctx, LAB_COOP_BLOCK, 1, rows, NULL));
    CHECK_FAILS(NULL, INV, "ctx is NULL", lab_coop_run(NULL, LAB_COOP_BLOCK, 1, rows, &n));
    if (t_backend == CUPAT_BACKEND_CPU)
        CHECK_FAILS(ctx, CUPAT_ERROR_NOT_SUPPORTED, "CUDA backend", lab_coop_run(ctx, LAB_COOP_BLOCK, 1, rows, &n));
}

static void check_gpu(cupat_ctx *ctx)
{
    /* under compute-sanitizer the launches meant to be refused are not made:
     * each would count as an API error */
    lab_set_sanitizer(t_sanitizer[0] ? t_sanitizer : t_small ? "compute-sanitizer" : NULL);
    static const int small[] = {LAB_COOP_BLOCK, LAB_COOP_TILES, LAB_COOP_COALESCED, LAB_COOP_GRID};
    for (int e = 0; e < LAB_COOP_NEXP; e++) {
        int run = !t_small;
        for (size_t k = 0; k < sizeof small / sizeof small[0]; k++) run |= small[k] == e;
        if (!run) continue;
        lab_row rows[LAB_MAX_ROWS];
        int n = 0;
        CHECK_OK(ctx, lab_coop_run(ctx, e, 2, rows, &n));
        CHECK(n > 0, "%s: rows", lab_coop_exp(e)->name);
        for (int k = 0; k < n; k++) {
            printf("%-10s %-58s %10.4f ms %12.5g %s  %s\n", lab_coop_exp(e)->name, rows[k].name, rows[k].ms,
                   rows[k].value, rows[k].ok < 0 ? "-" : rows[k].ok ? "ok" : "FAIL", rows[k].note);
            CHECK(rows[k].ok != 0, "%s / %s: %s", lab_coop_exp(e)->name, rows[k].name, rows[k].note);
            CHECK(rows[k].ms >= 0, "%s / %s: time", lab_coop_exp(e)->name, rows[k].name);
        }
    }
}

int main(int argc, char **argv)
{
    cupat_ctx *ctx = test_init(argc, argv);
    check_table();
    check_tiles();
    check_masked();
    check_jacobi();
    check_bad(ctx);
    if (t_backend == CUPAT_BACKEND_CUDA) check_gpu(ctx);
    return test_finish(ctx);
}
