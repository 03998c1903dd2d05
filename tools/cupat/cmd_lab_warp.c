/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_lab_warp.c — `cupat lab warp`: parse, run the warp lab's experiments
 * (lab/warp), print each row's lanes beside the expected ones and the book's
 * line, OK or MISMATCH. Exit 1 when a row mismatches or no GPU is present;
 * --expected prints the expected lanes without a GPU. */
#include "cli.h"
#include "commands.h"

#include "warp/warp.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char CMD[] = "cupat lab warp";

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: cupat lab warp [EXPERIMENT...] [options]\n"
            "\n"
            "Warp shuffles, votes, reductions and matches (PCCP 5.6; CUDA Programming Guide):\n"
            "each row prints the lanes the GPU returned, the lanes the CUDA rules give, the\n"
            "book's line where the book has one, and OK or MISMATCH. EXPERIMENT (default all):\n");
    for (int e = 0; e < LAB_WARP_NEXP; e++) {
        const lab_warp_exp *x = lab_warp_get(e);
        fprintf(f, "  %-10s %s\n", x->name, x->title);
    }
    fprintf(f,
            "\n"
            "Options:\n"
            "  --expected  print the expected lanes and the book's lines only (no GPU)\n"
            "  --device N  CUDA device (the experiments need the CUDA backend)\n"
            "  -h, --help  this text\n");
}

static void print_lanes(const char *label, const double *v, int n, int fmt)
{
    printf("  %-9s", label);
    for (int i = 0; i < n; i++) {
        if (isnan(v[i])) printf(" ?");
        else if (v[i] == -1.0 && fmt != LAB_WARP_REAL) printf(" -"); /* lane did not call */
        else if (fmt == LAB_WARP_HEX) printf(" %08x", (unsigned)v[i]);
        else if (fmt == LAB_WARP_REAL) printf(" %g", v[i]);
        else printf(" %.0f", v[i]);
    }
    printf("\n");
}

static int same(const double *a, const double *b, int n)
{
    for (int i = 0; i < n; i++)
        if (!(a[i] == b[i])) return 0; /* NaN (unwritten) never matches */
    return 1;
}

int cmd_lab_warp(int argc, char **argv)
{
    int want[LAB_WARP_NEXP] = {0}, any = 0, expected_only = 0;
    long device = -1;
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        int r;
        if (cli_is_help(argv[i])) {
            usage(stdout);
            return 0;
        }
        if ((r = cli_opt(argc, argv, &i, "--device", &v, CMD)) != 0) {
            if (r < 0 || cli_parse_int(CMD, "--device", v, 0, 1023, &device)) return 2;
            continue;
        }
        if (!strcmp(argv[i], "--expected")) {
            expected_only = 1;
        } else if (argv[i][0] != '-') {
            int e = lab_warp_find(argv[i]);
            if (!strcmp(argv[i], "all")) {
                for (e = 0; e < LAB_WARP_NEXP; e++) want[e] = 1;
            } else if (e < 0) {
                fprintf(stderr, "%s: unknown experiment '%s' (try '%s --help')\n", CMD, argv[i], CMD);
                return 2;
            } else {
                want[e] = 1;
            }
            any = 1;
        } else {
            return cli_unknown(CMD, argv[i]);
        }
    }
    if (!any)
        for (int e = 0; e < LAB_WARP_NEXP; e++) want[e] = 1;

    cupat_ctx *ctx = NULL;
    if (!expected_only) {
        const char *why = cli_no_cuda_reason();
        if (why) {
            fprintf(stderr, "%s: the warp experiments need a GPU: %s\n", CMD, why);
            return 1;
        }
        ctx = cli_context(CUPAT_BACKEND_CUDA, (int)device);
        if (!ctx) return 1;
    }

    int bad = 0;
    static double got[LAB_WARP_MAXROWS][LAB_WARP_MAXV];
    for (int e = 0; e < LAB_WARP_NEXP; e++) {
        if (!want[e]) continue;
        const lab_warp_exp *x = lab_warp_get(e);
        printf("%s: %s\n  (%s; %s)\n", x->name, x->title, x->setup, x->lesson);
        if (ctx) {
            cupat_status s = lab_warp_run(ctx, e, got);
            if (s) {
                fprintf(stderr, "%s: %s: %s\n", CMD, x->name, cupat_last_error(ctx));
                cupat_destroy(ctx);
                return 1;
            }
        }
        for (int r = 0; r < x->nrows; r++) {
            const lab_warp_row *w = &x->rows[r];
            double exp[LAB_WARP_MAXV], book[LAB_WARP_MAXV];
            lab_warp_expected(e, r, exp);
            printf("  %s\n", w->call);
            if (ctx) print_lanes("got", got[r], w->n, w->fmt);
            print_lanes("expected", exp, w->n, w->fmt);
            if (w->book) {
                int nb = lab_warp_parse(w->book, book, LAB_WARP_MAXV);
                print_lanes("book", book, nb, w->fmt);
                if (nb != w->n || !same(book, exp, w->n))
                    printf("  note      %s\n", w->note ? w->note : "the book's line differs");
            }
            if (ctx) {
                int ok = same(got[r], exp, w->n);
                bad += !ok;
                printf("  %s\n", ok ? "OK" : "MISMATCH");
            }
        }
        printf("\n");
    }
    if (ctx) {
        printf("%s\n", bad ? "warp lab: MISMATCH in some rows" : "warp lab: every row OK");
        cupat_destroy(ctx);
    }
    return bad ? 1 : 0;
}
