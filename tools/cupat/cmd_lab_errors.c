/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_lab_errors.c — `cupat lab errors`: each classic bug (lab/errors) run
 * buggy and fixed, its symptom and the tool that finds it. The cases whose
 * error is sticky or that could hang run in a child process (this command
 * again, with --case NAME --buggy / --fixed), killed after a timeout.
 * --case NAME runs one case in this process: the form to run under
 * compute-sanitizer (scripts/errors-sanitize). Exit 1 when a fixed version
 * is wrong or a buggy one shows a symptom its bug cannot give; a race that
 * this run did not lose is reported, not failed. --json FILE writes every
 * version's result (and the BLOCK_WIDTH sweep) as JSON. */
#define _GNU_SOURCE /* readlink */
#include "cli.h"
#include "commands.h"

#include "errors/errors.h"
#include "harness.h"
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char CMD[] = "cupat lab errors";
#define CHILD_TIMEOUT_S 30

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: cupat lab errors [CASE...] [options]\n"
            "\n"
            "Common CUDA errors (lecture 10; PCCP 5.1; PMPP 3.1, 5 exercises 3 and 10; CUDA Guide 7.2),\n"
            "each run buggy and fixed with its symptom and the tool that finds it. CASE (default all):\n");
    for (int c = 0; lab_errors_case(c); c++)
        fprintf(f, "  %-18s %s%s\n", lab_errors_case(c)->name, lab_errors_case(c)->bug,
                lab_errors_case(c)->child ? " (child process)" : "");
    fprintf(f,
            "\n"
            "Options:\n"
            "  --list         the cases, their symptoms and tools (no GPU)\n"
            "  --case NAME    run one case in this process (for compute-sanitizer)\n"
            "  --buggy        with --case: the buggy version only\n"
            "  --fixed        with --case: the fixed version only\n"
            "  --json FILE    also write every result as JSON\n"
            "  --device N     CUDA device\n"
            "  -h, --help     this text\n");
}

static void list_cases(void)
{
    for (int c = 0; lab_errors_case(c); c++) {
        const lab_err_case *k = lab_errors_case(c);
        printf("%s: %s  [%s]\n  symptom:  %s\n  fix:      %s\n  found by: %s%s\n", k->name, k->bug, k->source, k->symptom,
               k->fix, k->tool, k->child ? "\n  runs in a child process (sticky error or possible hang)" : "");
    }
}

/* One version in this process into *r; prints its line and (tag) the
 * machine-readable lines the parent of a child run reads: "result N WRONG
 * ERROR NAME", "detail TEXT", then "verdict VERSION V". Returns the verdict,
 * or -1. */
static int run_one(cupat_ctx *ctx, int c, int fixed, int tag, lab_err_result *r)
{
    if (lab_errors_run(ctx, c, fixed, r)) {
        printf("  %-6s FAILED: %s\n", fixed ? "fixed:" : "buggy:", cupat_last_error(ctx));
        snprintf(r->detail, sizeof r->detail, "FAILED: %s", cupat_last_error(ctx));
        return -1;
    }
    const int v = lab_errors_verdict(c, fixed, r);
    printf("  %-6s %-18s %s%s%s\n", fixed ? "fixed:" : "buggy:", lab_errors_verdict_name(v), r->detail,
           r->error_name[0] ? "; error " : "", r->error_name);
    if (tag) {
        printf("  result %zu %zu %d %s\n", r->n, r->wrong, r->error, r->error_name[0] ? r->error_name : "-");
        printf("  detail %s\n", r->detail);
        printf("  verdict %s %d\n", fixed ? "fixed" : "buggy", v);
    }
    fflush(stdout);
    return v;
}

static int acceptable(int fixed, int v)
{
    return fixed ? v == LAB_ERR_RIGHT : v == LAB_ERR_SHOWN || v == LAB_ERR_NOT_SHOWN;
}

/* One version in a child process: this command with --case NAME --buggy|--fixed;
 * *r from the child's result lines. */
static int run_child(const char *self, int c, int fixed, long device, lab_err_result *r)
{
    char dev[24], out[8192];
    snprintf(dev, sizeof dev, "%ld", device < 0 ? 0 : device);
    char *argv[] = {(char *)self, "lab", "errors", "--case", (char *)lab_errors_case(c)->name,
                    fixed ? "--fixed" : "--buggy", "--device", dev, NULL};
    int code = 0;
    const int k = lab_errors_spawn(argv, CHILD_TIMEOUT_S, out, sizeof out, &code);
    if (k < 0) {
        printf("  %-6s FAILED: could not start a child: %s\n", fixed ? "fixed:" : "buggy:", out);
        return -1;
    }
    if (k == 1) {
        /* A hang is the pre-Volta symptom of a divergent barrier; elsewhere a failure. */
        const int v = !fixed && c == LAB_ERR_DIVERGENT_BARRIER ? LAB_ERR_SHOWN : LAB_ERR_WRONG;
        printf("  %-6s %-18s hung: killed after %d s\n", fixed ? "fixed:" : "buggy:", lab_errors_verdict_name(v),
               CHILD_TIMEOUT_S);
        snprintf(r->detail, sizeof r->detail, "hung: killed after %d s", CHILD_TIMEOUT_S);
        return v;
    }
    int v = -1;
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
        int got;
        char which[8];
        if (sscanf(line, " verdict %7s %d", which, &got) == 2) v = got;
        else if (sscanf(line, " result %zu %zu %d %63s", &r->n, &r->wrong, &r->error, r->error_name) == 4) {
            if (!strcmp(r->error_name, "-")) r->error_name[0] = 0;
        } else if (!strncmp(line, "  detail ", 9)) snprintf(r->detail, sizeof r->detail, "%s", line + 9);
        else printf("%s\n", line);
    }
    if (v < 0) printf("  %-6s FAILED: the child exited %d without a verdict\n", fixed ? "fixed:" : "buggy:", code);
    return v;
}

static int transpose_sweep(cupat_ctx *ctx, cli_json *J)
{
    int bad = 0;
    printf("  BLOCK_WIDTH sweep (the exercise asks for which widths the kernel is correct):\n");
    printf("  %11s %8s %6s %16s %16s\n", "BLOCK_WIDTH", "threads", "warps", "buggy wrong", "fixed wrong");
    for (int k = 0; lab_errors_transpose_width(k); k++) {
        const int w = lab_errors_transpose_width(k);
        lab_err_result b, f;
        if (lab_errors_transpose(ctx, w, 0, &b) || lab_errors_transpose(ctx, w, 1, &f)) {
            fprintf(stderr, "%s: block-transpose: %s\n", CMD, cupat_last_error(ctx));
            return 1;
        }
        bad += f.wrong != 0;
        cli_json_row(J);
        cli_json_num(J, "block_width", w);
        cli_json_num(J, "threads", w * w);
        cli_json_num(J, "warps", (w * w + 31) / 32);
        cli_json_num(J, "n", (double)f.n);
        cli_json_num(J, "buggy_wrong", (double)b.wrong);
        cli_json_num(J, "fixed_wrong", (double)f.wrong);
        cli_json_end_row(J);
        printf("  %11d %8d %6d %9zu/%-6zu %9zu/%-6zu%s\n", w, w * w, (w * w + 31) / 32, b.wrong, b.n, f.wrong, f.n,
               f.wrong ? "  FIXED VERSION WRONG" : "");
    }
    return bad;
}

int cmd_lab_errors(int argc, char **argv)
{
    int want[LAB_ERR_NCASES] = {0}, any = 0, only = -1, list = 0, one = -1;
    long device = -1;
    const char *json = NULL;
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        int r;
        if (cli_is_help(argv[i])) {
            usage(stdout);
            return 0;
        }
        if ((r = cli_lab_opt(argc, argv, &i, CMD, &device, NULL, &json)) != 0) {
            if (r < 0) return 2;
            continue;
        }
        if ((r = cli_opt(argc, argv, &i, "--case", &v, CMD)) != 0) {
            if (r < 0) return 2;
            if ((one = lab_errors_find(v)) < 0) {
                fprintf(stderr, "%s: unknown case '%s' (try '%s --list')\n", CMD, v, CMD);
                return 2;
            }
            continue;
        }
        if (!strcmp(argv[i], "--buggy")) only = 0;
        else if (!strcmp(argv[i], "--fixed")) only = 1;
        else if (!strcmp(argv[i], "--list")) list = 1;
        else if (argv[i][0] != '-') {
            const int c = lab_errors_find(argv[i]);
            if (c < 0 && strcmp(argv[i], "all")) {
                fprintf(stderr, "%s: unknown case '%s' (try '%s --list')\n", CMD, argv[i], CMD);
                return 2;
            }
            for (int k = 0; k < LAB_ERR_NCASES; k++) want[k] |= c < 0 || k == c;
            any = 1;
        } else return cli_unknown(CMD, argv[i]);
    }
    if (list) {
        list_cases();
        return 0;
    }
    if (json && one >= 0) {
        fprintf(stderr, "%s: --json goes with the full run, not with --case\n", CMD);
        return 2;
    }
    if (only >= 0 && one < 0) {
        fprintf(stderr, "%s: --buggy and --fixed go with --case NAME\n", CMD);
        return 2;
    }
    if (!any)
        for (int k = 0; k < LAB_ERR_NCASES; k++) want[k] = 1;
    const char *why = cli_no_cuda_reason();
    if (why) {
        fprintf(stderr, "%s: the cases need a GPU: %s\n", CMD, why);
        return 1;
    }
    cupat_ctx *ctx = cli_context(CUPAT_BACKEND_CUDA, (int)device);
    if (!ctx) return 1;
    int bad = 0;
    if (one >= 0) { /* in this process: what compute-sanitizer watches */
        const lab_err_case *k = lab_errors_case(one);
        printf("%s: %s  [%s]\n", k->name, k->bug, k->source);
        for (int fixed = 0; fixed <= 1; fixed++) {
            if (only >= 0 && fixed != only) continue;
            lab_err_result r;
            const int v = run_one(ctx, one, fixed, 1, &r);
            bad += v < 0 || !acceptable(fixed, v);
            if (!fixed && (one == LAB_ERR_ASYNC)) break; /* the context is gone after the buggy run */
        }
        cupat_destroy(ctx);
        return bad ? 1 : 0;
    }
    char self[4096];
    const ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
    self[sl > 0 ? sl : 0] = 0;
    char dev[320] = "", date[32] = "", commit[64] = "";
    bench_describe(ctx, dev, sizeof dev, date, sizeof date, commit, sizeof commit);
    cli_json J;
    if (cli_json_open(&J, CMD, json, "errors", dev, date, commit, 1)) {
        cupat_destroy(ctx);
        return 1;
    }
    printf("cupat lab errors\ndevice: %s\ndate:   %s\ncommit: %s\n\n", dev, date, commit);
    printf("Common errors: each bug run buggy and fixed (outputs checked against the host); a race that a\n"
           "run does not lose is \"not shown this run\", not a failure. Sanitizer runs: scripts/errors-sanitize.\n\n");
    for (int c = 0; c < LAB_ERR_NCASES; c++) {
        if (!want[c]) continue;
        const lab_err_case *k = lab_errors_case(c);
        printf("%s: %s  [%s]\n  symptom:  %s\n  fix:      %s\n", k->name, k->bug, k->source, k->symptom, k->fix);
        cli_json_exp(&J, k->name);
        for (int fixed = 0; fixed <= 1; fixed++) {
            int v;
            lab_err_result r;
            memset(&r, 0, sizeof r);
            if (k->child) {
                v = sl > 0 ? run_child(self, c, fixed, device, &r) : -1;
                if (sl <= 0) printf("  FAILED: cannot find this program (/proc/self/exe) to run the child\n");
            } else {
                v = run_one(ctx, c, fixed, 0, &r);
            }
            bad += v < 0 || !acceptable(fixed, v);
            cli_json_row(&J);
            cli_json_str(&J, "version", fixed ? "fixed" : "buggy");
            cli_json_str(&J, "verdict", v < 0 ? "FAILED" : lab_errors_verdict_name(v));
            cli_json_num(&J, "n", (double)r.n);
            cli_json_num(&J, "wrong", (double)r.wrong);
            cli_json_str(&J, "error", r.error_name);
            cli_json_str(&J, "detail", r.detail);
            cli_json_str(&J, "found_by", k->tool);
            cli_json_str(&J, "sanitizer", k->sanitizer ? k->sanitizer : "");
            cli_json_num(&J, "child", k->child);
            cli_json_end_row(&J);
        }
        cli_json_end_exp(&J);
        if (c == LAB_ERR_BLOCK_TRANSPOSE) {
            cli_json_exp(&J, "block-transpose-sweep");
            bad += transpose_sweep(ctx, &J);
            cli_json_end_exp(&J);
        }
        printf("  found by: %s\n\n", k->tool);
    }
    printf("%s\n", bad ? "errors lab: WRONG results in some cases" : "errors lab: every case as expected");
    const int jbad = cli_json_close(&J, CMD, json);
    cupat_destroy(ctx);
    return bad || jbad ? 1 : 0;
}
