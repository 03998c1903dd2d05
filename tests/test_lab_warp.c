/* SPDX-License-Identifier: Apache-2.0 */
/* test_lab_warp.c — the warp lab (lab/warp).
 * cpu:  the host model of the CUDA rules reproduces the book's lines for
 *       PCCP 5.6's seven experiments, except the notes' butterfly typo (lanes
 *       2-3 exactly, and the row says so); every row has a model.
 * both: a bad experiment number is refused with a message naming it.
 * cuda: every experiment runs on the GPU and each row matches the model
 *       exactly (unwritten lanes stay NaN and fail). */
#include "testutil.h"

#include "warp/warp.h"

static void check_table(void)
{
    CHECK(lab_warp_get(LAB_WARP_NEXP) == NULL && lab_warp_get(-1) == NULL, "lab_warp_get past the end");
    for (int e = 0; e < LAB_WARP_NEXP; e++) {
        const lab_warp_exp *x = lab_warp_get(e);
        CHECK(x && x->nrows > 0 && x->nrows <= LAB_WARP_MAXROWS, "experiment %d: rows", e);
        if (!x) continue;
        CHECK(lab_warp_find(x->name) == e, "lab_warp_find(%s)", x->name);
        for (int r = 0; r < x->nrows; r++) {
            double v[LAB_WARP_MAXV];
            lab_warp_expected(e, r, v);
            int n = x->rows[r].n, set = 0;
            for (int i = 0; i < n; i++) set += !isnan(v[i]);
            CHECK(n > 0 && n <= LAB_WARP_MAXV && set == n, "%s row %d: %d of %d lanes modelled", x->name,
                  r, set, n);
        }
    }
    CHECK(lab_warp_find("bogus") == -1, "lab_warp_find(bogus)");
}

/* The seven book experiments: the model gives the book's line. */
static void check_book(void)
{
    for (int e = LAB_WARP_BROADCAST; e <= LAB_WARP_SWAP; e++) {
        const lab_warp_exp *x = lab_warp_get(e);
        const lab_warp_row *w = &x->rows[0];
        double book[LAB_WARP_MAXV], v[LAB_WARP_MAXV];
        CHECK(w->book != NULL, "%s: the book's line", x->name);
        int nb = lab_warp_parse(w->book, book, LAB_WARP_MAXV);
        CHECK(nb == w->n && nb == 16, "%s: %d values in the book's line", x->name, nb);
        lab_warp_expected(e, 0, v);
        unsigned diff = 0;
        for (int i = 0; i < nb && i < 32; i++)
            if (v[i] != book[i]) diff |= 1u << i;
        if (e == LAB_WARP_XOR) {
            /* The notes print "1 0 2 3 5 4 ...": lanes 2 and 3 are wrong there. */
            CHECK(diff == 0xCu, "xor: the model differs from the notes at lanes %04x, expected 000c", diff);
            CHECK(v[2] == 3 && v[3] == 2, "xor: lanes 2-3 = %g %g, expected 3 2", v[2], v[3]);
            CHECK(w->note && strstr(w->note, "typo"), "xor: the row says the notes have a typo");
        } else {
            CHECK(diff == 0, "%s: the model differs from the book at lanes %04x", x->name, diff);
        }
    }
}

static void check_gpu(cupat_ctx *ctx)
{
    static double got[LAB_WARP_MAXROWS][LAB_WARP_MAXV];
    for (int e = 0; e < LAB_WARP_NEXP; e++) {
        const lab_warp_exp *x = lab_warp_get(e);
        CHECK_OK(ctx, lab_warp_run(ctx, e, got));
        for (int r = 0; r < x->nrows; r++) {
            double v[LAB_WARP_MAXV];
            lab_warp_expected(e, r, v);
            int bad = 0, first = -1;
            for (int i = 0; i < x->rows[r].n; i++)
                if (!(got[r][i] == v[i]) && bad++ == 0) first = i;
            CHECK(bad == 0, "%s row %d (%s): %d lanes differ, first lane %d = %g, expected %g", x->name, r,
                  x->rows[r].call, bad, first, bad ? got[r][first] : 0.0, bad ? v[first] : 0.0);
        }
    }
}

int main(int argc, char **argv)
{
    cupat_ctx *ctx = test_init(argc, argv);
    check_table();
    check_book();
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "experiment = 99", cupat__lab_warp(ctx, 99, NULL));
    if (t_backend == CUPAT_BACKEND_CUDA) check_gpu(ctx);
    return test_finish(ctx);
}
