/* SPDX-License-Identifier: Apache-2.0 */
/* cli_lab.c — the command of a lab whose experiments fill lab_row tables
 * (lab/rows): `cupat lab cluster`, `cupat lab coop`. Parses the experiment
 * names and the common options, runs each experiment, prints its table
 * (ms, figure, ok / FAIL / -, note) and writes --json FILE. Exit 1 when a
 * row's check fails or an experiment cannot run, 2 on bad arguments. */
#include "cli.h"
#include "commands.h"

#include "harness.h"
#include "rows/lab_rows.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_EXP 32

static void usage(const cli_lab_desc *d)
{
    printf("Usage: %s [EXPERIMENT...] [options]\n\n%s EXPERIMENT (default all):\n", d->cmd, d->intro);
    for (int e = 0; d->exp(e); e++) printf("  %-10s %s\n", d->exp(e)->name, d->exp(e)->title);
    printf("\n"
           "Options:\n"
           "  --reps N     timed launches a row, the median reported (default 5)\n"
           "  --json FILE  also write the rows as JSON\n"
           "  --list       the experiments and their sources (no GPU)\n"
           "  --device N   CUDA device\n"
           "  -h, --help   this text\n");
}

/* One experiment's table; the rows whose check failed. */
static int print_rows(cli_json *J, const lab_exp *x, const lab_row *rows, int n)
{
    int bad = 0;
    printf("%s: %s  [%s]\n", x->name, x->title, x->source);
    printf("  %-58s %10s %12s  %-5s %s\n", "row", "ms", x->unit, "check", "note");
    cli_json_exp(J, x->name);
    for (int k = 0; k < n; k++) {
        const lab_row *r = &rows[k];
        const char *chk = r->ok < 0 ? "-" : r->ok ? "ok" : "FAIL";
        bad += r->ok == 0;
        if (r->ms > 0) printf("  %-58s %10.4f %12.5g  %-5s %s\n", r->name, r->ms, r->value, chk, r->note);
        else printf("  %-58s %10s %12.6g  %-5s %s\n", r->name, "", r->value, chk, r->note);
        cli_json_row(J);
        cli_json_str(J, "name", r->name);
        cli_json_num(J, "ms", r->ms);
        cli_json_num(J, "value", r->value);
        cli_json_str(J, "unit", x->unit);
        cli_json_str(J, "check", chk);
        cli_json_str(J, "note", r->note);
        cli_json_end_row(J);
    }
    cli_json_end_exp(J);
    printf("\n");
    return bad;
}

int cli_lab_main(int argc, char **argv, const cli_lab_desc *d)
{
    const char *names[MAX_EXP];
    int want[MAX_EXP] = {0}, nexp = 0;
    while (nexp < MAX_EXP && d->exp(nexp)) names[nexp] = d->exp(nexp)->name, nexp++;
    long device = -1, reps = 5;
    const char *json = NULL;
    for (int i = 1; i < argc; i++) {
        int r;
        if (cli_is_help(argv[i])) {
            usage(d);
            return 0;
        }
        if ((r = cli_lab_opt(argc, argv, &i, d->cmd, &device, &reps, &json)) != 0) {
            if (r < 0) return 2;
            continue;
        }
        if (!strcmp(argv[i], "--list")) {
            for (int e = 0; e < nexp; e++)
                printf("%-10s %s  [%s]\n", names[e], d->exp(e)->title, d->exp(e)->source);
            return 0;
        }
        if (argv[i][0] == '-') return cli_unknown(d->cmd, argv[i]);
        if (cli_pick(d->cmd, argv[i], names, nexp, want)) return 2;
    }
    cli_pick_all(want, nexp);
    const char *why = cli_no_cuda_reason();
    if (why) {
        fprintf(stderr, "%s: the %s experiments need a GPU: %s\n", d->cmd, d->lab, why);
        return 1;
    }
    cupat_ctx *ctx = cli_context(CUPAT_BACKEND_CUDA, (int)device);
    if (!ctx) return 1;
    char dev[320] = "", date[32] = "", commit[64] = "";
    bench_describe(ctx, dev, sizeof dev, date, sizeof date, commit, sizeof commit);
    cli_json J;
    if (cli_json_open(&J, d->cmd, json, d->lab, dev, date, commit, (int)reps)) {
        cupat_destroy(ctx);
        return 1;
    }
    printf("%s\ndevice: %s\ndate:   %s\ncommit: %s\n%ld timed launches a row, the median\n\n", d->cmd, dev, date,
           commit, reps);
    int bad = 0, fail = 0;
    lab_row rows[LAB_MAX_ROWS];
    for (int e = 0; e < nexp; e++) {
        if (!want[e]) continue;
        int n = 0;
        if (d->run(ctx, e, (int)reps, rows, &n)) {
            /* one experiment that cannot run stops none of the others */
            fprintf(stderr, "%s: %s: %s\n", d->cmd, names[e], cupat_last_error(ctx));
            printf("%s: FAILED: %s\n\n", names[e], cupat_last_error(ctx));
            fail = 1;
            continue;
        }
        bad += print_rows(&J, d->exp(e), rows, n);
    }
    printf("%s lab: %s\n", d->lab,
           fail ? "some experiments FAILED to run" : bad ? "WRONG results in some rows" : "every check OK");
    const int jbad = cli_json_close(&J, d->cmd, json);
    cupat_destroy(ctx);
    return fail || bad || jbad ? 1 : 0;
}
