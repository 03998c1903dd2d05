/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_bench.c — `cupat bench PATTERN|all`: every rung of a pattern's ladder,
 * timed, checked and set beside the device's ceilings and the vendor. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "commands.h"
#include "harness.h"
#include "outfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CMD "cupat bench"

/* "    gemm        S: an S x S x S ..." wrapped under the options' text column. */
static void print_wrapped(FILE *f, const char *name, const char *text)
{
    const int col = 34, width = 88;
    fprintf(f, "                      %-11s ", name);
    int at = col;
    const char *p = text;
    while (*p) {
        const char *sp = strchr(p, ' ');
        int len = sp ? (int)(sp - p) : (int)strlen(p);
        if (at > col && at + 1 + len > width) {
            fprintf(f, "\n%*s", col, "");
            at = col;
        } else if (at > col) {
            fputc(' ', f);
            at++;
        }
        fprintf(f, "%.*s", len, p);
        at += len;
        p += len;
        while (*p == ' ') p++;
    }
    fputc('\n', f);
}

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: cupat bench PATTERN|all [options]\n"
            "\n"
            "Run a pattern's ladder: every rung of the backend in order, then the vendor\n"
            "library and a copy of the same bytes. Each row: median/min/max time, GB/s,\n"
            "GFLOP/s, %% of the ceiling measured at start, speed-up over the previous\n"
            "rung, vendor time / our time (> 1: faster than the vendor), and a check of\n"
            "the output against a host reference (FAIL marks a wrong rung).\n"
            "\n"
            "Patterns:");
    for (size_t i = 0; i < bench_npatterns; i++) fprintf(f, " %s", bench_patterns[i].name);
    fprintf(f,
            "; all runs each of them.\n"
            "\n"
            "Options:\n"
            "  --variant NAME|all  only rung NAME (default all); a rung of the other\n"
            "                      backend runs as its form on this one where it has one\n"
            "                      (compensated <-> openmp_compensated)\n"
            "  --n SIZE            the problem size, a count (268435456, 2^28, 256M: K, M, G,\n"
            "                      T are binary) or a shape (16384x16384); per pattern:\n");
    for (size_t i = 0; i < bench_npatterns; i++) {
        const bench_size_model *m = bench_find_size_model(bench_patterns[i].name);
        print_wrapped(f, bench_patterns[i].name, m ? m->help : "(not described)");
    }
    fprintf(f,
            "                      A size whose case does not fit in the backend's memory\n"
            "                      is refused before anything runs (exit status 2).\n"
            "                      The rows 'empty kernel', '2 empty kernels' and 'empty\n"
            "                      kernel + sync' (GPU; the small reduce, dot and transpose\n"
            "                      tables) are the launch floor, timed as every row is.\n"
            "  --reps N            exactly N timed calls a row (default: adaptive)\n"
            "  --quick             a tour: one small case per pattern, a few calls a row\n"
            "                      (what `make run` shows; --n and --reps still apply)\n"
            "  --list              list the ladder: name, backend, technique, source\n"
            "  --sweep-blocks      matadd: PCCP 3.3's block shapes; gemm: tile configs x split-K (GPU)\n"
            "  --json FILE         write all tables as JSON (needs cJSON); FILE - is\n"
            "                      stdout, and the tables then go to stderr\n"
            "  --csv FILE          write all rows as CSV (- as for --json)\n"
            "  --ncu               then each timed row's call once more under Nsight Compute\n"
            "                      (ncu: $CUPAT_NCU, the PATH or /usr/local/cuda/bin): DRAM\n"
            "                      bytes against the case's minimum bytes, achieved\n"
            "                      occupancy, issue-slot use and the limiter; the main\n"
            "                      kernel's registers, shared memory, block size and\n"
            "                      theoretical occupancy; in the tables\n"
            "                      (printed when all rows are done) and the JSON; a child\n"
            "                      process per row, $CUPAT_NCU_TIMEOUT seconds each (900)\n"
            "  --backend B         auto (default), cpu or cuda\n"
            "  --device N          CUDA device index\n"
            "  -h, --help          this text\n"
            "\n"
            "The environment variable CUPAT_COMMIT overrides the commit in the header.\n"
            "Exit status: 0 all rows checked ok, 1 a row failed or errored (or a file\n"
            "could not be written, or --ncu found no ncu or a row's profile failed), 2 bad\n"
            "arguments, a --n too large for the backend's memory among them (all checked\n"
            "before the ceilings are measured).\n");
}

static int is_registered(const char *pattern)
{
    const char *const *names;
    size_t n;
    if (cupat_patterns(&names, &n)) return 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(names[i], pattern) == 0) return 1;
    return 0;
}

/* Width of the longest rung name of `pattern`, at least w. */
static int name_width(const char *pattern, int w)
{
    const cupat_variant_info *v;
    size_t n;
    if (cupat_variants(pattern, &v, &n)) return w;
    for (size_t i = 0; i < n; i++)
        if ((int)strlen(v[i].name) > w) w = (int)strlen(v[i].name);
    return w;
}

static void list_ladder(const char *pattern, int with_pattern, int w)
{
    const cupat_variant_info *v;
    size_t n;
    if (cupat_variants(pattern, &v, &n)) return;
    for (size_t i = 0; i < n; i++) {
        if (with_pattern) printf("%-8s ", pattern);
        printf("%-*s  %-4s  %-7s  %s  [%s]\n", w, v[i].name, cupat_backend_name(v[i].backend),
               v[i].is_default ? "default" : "", v[i].technique, v[i].source);
    }
}

/* The rung `name` of `pattern`, or NULL after a one-line reason. */
static const cupat_variant_info *find_rung(const char *pattern, const char *name)
{
    const cupat_variant_info *v;
    size_t n;
    if (cupat_variants(pattern, &v, &n)) return NULL;
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i].name, name) == 0) return &v[i];
    char known[256] = "";
    for (size_t i = 0; i < n; i++) {
        strncat(known, i ? ", " : "", sizeof known - strlen(known) - 1);
        strncat(known, v[i].name, sizeof known - strlen(known) - 1);
    }
    fprintf(stderr, "%s: pattern %s has no rung '%s' (rungs: %s)\n", CMD, pattern, name, known);
    return NULL;
}

/* Fail early on an output file that cannot be written, not after the run. */
static int check_writable(const char *opt, const char *path)
{
    if (!path || !strcmp(path, "-")) return 0; /* '-': stdout */
    if (out_file_check(path)) { /* creates nothing: the file is written after the run */
        fprintf(stderr, "%s: %s %s: cannot write: %s\n", CMD, opt, path, strerror(errno));
        return 2;
    }
    return 0;
}

/* --ncu-child T:R:NAME (what bench_ncu_rows passes): 0, or 2 after a line. */
static int parse_ncu_child(const char *spec, bench_options *opt)
{
    char *end = NULL;
    unsigned long long t = strtoull(spec, &end, 10), r = 0;
    int ok = end != spec && *end == ':' && spec[0] >= '0' && spec[0] <= '9';
    if (ok) {
        const char *p = end + 1;
        r = strtoull(p, &end, 10);
        ok = end != p && *end == ':' && p[0] >= '0' && p[0] <= '9';
    }
    if (!ok) {
        fprintf(stderr, "%s: --ncu-child '%s' is not TABLE:ROW:NAME (it is for --ncu's own "
                        "children)\n", CMD, spec);
        return 2;
    }
    opt->ncu_child = 1;
    opt->ncu_table = (size_t)t;
    opt->ncu_row = (size_t)r;
    opt->ncu_name = end + 1;
    return 0;
}

/* The command line of an --ncu child: this program and the options that make
 * the same tables (bench_ncu_rows sets the PATTERN, argv[2], to the table's
 * and adds --ncu-child). NULL-terminated, in static storage; NULL when this
 * program cannot be found. */
static const char *const *child_argv(const char *pattern, const char *variant, const char *nstr,
                                     int quick, int sweep, int device)
{
    static char self[4096], dev[16];
    static const char *argv[16];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0) return NULL;
    self[len] = '\0';
    snprintf(dev, sizeof dev, "%d", device);
    int k = 0;
    argv[k++] = self;
    argv[k++] = "bench";
    argv[k++] = pattern;
    if (variant) argv[k++] = "--variant", argv[k++] = variant;
    if (nstr) argv[k++] = "--n", argv[k++] = nstr;
    if (quick) argv[k++] = "--quick";
    if (sweep) argv[k++] = "--sweep-blocks";
    argv[k++] = "--backend";
    argv[k++] = "cuda";
    argv[k++] = "--device";
    argv[k++] = dev;
    argv[k] = NULL;
    return argv;
}

static double wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int cmd_bench(int argc, char **argv)
{
    const char *pattern = NULL, *variant = NULL, *nstr = NULL, *json = NULL, *csv = NULL;
    const char *backend_s = "auto";
    long reps = 0, device = -1;
    int list = 0, sweep = 0, quick = 0, use_ncu = 0;
    bench_options child = {0}; /* --ncu-child: the row it profiles */
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        int r;
        if (cli_is_help(argv[i])) {
            usage(stdout);
            return 0;
        }
#define OPT(name, dst)                                                                   \
    if ((r = cli_opt(argc, argv, &i, name, &v, CMD)) != 0) {                             \
        if (r < 0) return 2;                                                             \
        dst = v;                                                                         \
        continue;                                                                        \
    }
        const char *reps_s = NULL, *dev_s = NULL, *child_s = NULL;
        OPT("--variant", variant);
        OPT("--n", nstr);
        OPT("--json", json);
        OPT("--csv", csv);
        OPT("--backend", backend_s);
        if ((r = cli_opt(argc, argv, &i, "--reps", &reps_s, CMD)) != 0) {
            if (r < 0 || cli_parse_int(CMD, "--reps", reps_s, 1, 10000, &reps)) return 2;
            continue;
        }
        if ((r = cli_opt(argc, argv, &i, "--device", &dev_s, CMD)) != 0) {
            if (r < 0 || cli_parse_int(CMD, "--device", dev_s, 0, 1023, &device)) return 2;
            continue;
        }
        if ((r = cli_opt(argc, argv, &i, "--ncu-child", &child_s, CMD)) != 0) {
            if (r < 0 || parse_ncu_child(child_s, &child)) return 2;
            continue;
        }
#undef OPT
        if (strcmp(argv[i], "--list") == 0) list = 1;
        else if (strcmp(argv[i], "--ncu") == 0) use_ncu = 1;
        else if (strcmp(argv[i], "--sweep-blocks") == 0) sweep = 1;
        else if (strcmp(argv[i], "--quick") == 0) quick = 1;
        else if (argv[i][0] != '-' && !pattern) pattern = argv[i];
        else return cli_unknown(CMD, argv[i]);
    }

    /* ---- arguments, all checked before any device work ---- */
    if (!pattern) {
        fprintf(stderr, "%s: no pattern given (a pattern name or 'all'); try '%s --help'\n", CMD,
                CMD);
        return 2;
    }
    int all = strcmp(pattern, "all") == 0;
    const bench_pattern *one = all ? NULL : bench_find_pattern(pattern);
    if (!all && !one && !(list && is_registered(pattern))) {
        char known[256] = "";
        for (size_t i = 0; i < bench_npatterns; i++) {
            strncat(known, i ? ", " : "", sizeof known - strlen(known) - 1);
            strncat(known, bench_patterns[i].name, sizeof known - strlen(known) - 1);
        }
        fprintf(stderr, "%s: %s '%s' (benchmarked: %s, or all)\n", CMD,
                is_registered(pattern) ? "no benchmark cases yet for pattern" : "unknown pattern",
                pattern, known);
        return 2;
    }
    if (list) {
        if (!all) {
            list_ladder(pattern, 0, name_width(pattern, 4));
        } else {
            int w = 4;
            for (size_t i = 0; i < bench_npatterns; i++) w = name_width(bench_patterns[i].name, w);
            for (size_t i = 0; i < bench_npatterns; i++) list_ladder(bench_patterns[i].name, 1, w);
        }
        return 0;
    }
    const char *only = variant && strcmp(variant, "all") ? variant : NULL;
    const cupat_variant_info *rung = NULL;
    if (only && all) {
        fprintf(stderr, "%s: --variant %s needs a single pattern, not 'all'\n", CMD, only);
        return 2;
    }
    if (only && !(rung = find_rung(pattern, only))) return 2;
    bench_size size, *sizep = NULL;
    if (nstr) {
        char err[160];
        if (bench_parse_size(nstr, &size, err, sizeof err)) {
            fprintf(stderr, "%s: --n %s\n", CMD, err);
            return 2;
        }
        sizep = &size;
    }
    if (sweep && only) {
        fprintf(stderr, "%s: --variant does not apply to --sweep-blocks (it sweeps one kernel)\n",
                CMD);
        return 2;
    }
    if (sweep && (all || !one->sweep)) {
        fprintf(stderr, "%s: '%s' has no --sweep-blocks experiment (matadd and gemm do)\n", CMD,
                pattern);
        return 2;
    }
#ifndef CUPAT_HAVE_CJSON
    if (json) {
        fprintf(stderr, "%s: --json needs cJSON, which this build lacks (install libcjson-dev "
                        "and rebuild)\n", CMD);
        return 2;
    }
#endif
    if (use_ncu && child.ncu_child) {
        fprintf(stderr, "%s: --ncu and --ncu-child do not go together\n", CMD);
        return 2;
    }
    if (child.ncu_child && (json || csv)) {
        fprintf(stderr, "%s: --ncu-child writes no --json or --csv\n", CMD);
        return 2;
    }
    if (check_writable("--json", json) || check_writable("--csv", csv)) return 2;
    /* FILE '-' is stdout: the JSON or CSV then owns it, and the tables go to stderr. */
    const int json_std = json && !strcmp(json, "-"), csv_std = csv && !strcmp(csv, "-");
    if (json_std && csv_std) {
        fprintf(stderr, "%s: --json - and --csv - cannot both go to stdout\n", CMD);
        return 2;
    }
    FILE *out = json_std || csv_std ? stderr : stdout;
    cupat_backend backend;
    if (cli_parse_backend(backend_s, &backend)) return 2;
    char ncu[4096] = "";
    if (use_ncu) {
        char looked[512];
        if (bench_ncu_find(ncu, sizeof ncu, looked, sizeof looked)) {
            fprintf(stderr, "%s: --ncu needs Nsight Compute (ncu); looked at: %s\n", CMD, looked);
            return 1;
        }
    }

    /* ---- the run ---- */
    cupat_ctx *ctx = cli_context(backend, (int)device);
    if (!ctx) return 1;
    cupat_backend actual = cupat_get_backend(ctx);
    if (rung && rung->backend != actual) {
        /* the same technique's rung on this backend, where there is one */
        const cupat_variant_info *here = NULL;
        if (cupat_set_variant(ctx, pattern, rung->name) == CUPAT_SUCCESS &&
            cupat_get_variant(ctx, pattern, &here) == CUPAT_SUCCESS && here->backend == actual) {
            cupat_set_variant(ctx, pattern, NULL);
            fprintf(stderr, "%s: rung '%s' runs on %s; on %s it is '%s'\n", CMD, rung->name,
                    cupat_backend_name(rung->backend), cupat_backend_name(actual), here->name);
            rung = here;
            variant = here->name;
        } else {
            fprintf(stderr, "%s: rung '%s' of %s runs on the %s backend; this run is on %s "
                            "(try --backend %s)\n",
                    CMD, rung->name, pattern, cupat_backend_name(rung->backend),
                    cupat_backend_name(actual), cupat_backend_name(rung->backend));
            cupat_destroy(ctx);
            return 2;
        }
    }
    /* A --n the backend cannot hold is an argument error: refused before the
     * ceilings are measured and anything is allocated. */
    for (size_t i = 0; sizep && i < bench_npatterns; i++) {
        char err[320];
        if (!all && &bench_patterns[i] != one) continue;
        if (bench_check_size(ctx, bench_patterns[i].name, sizep, err, sizeof err)) {
            fprintf(stderr, "%s: --n %s: %s\n", CMD, nstr, err);
            cupat_destroy(ctx);
            return 2;
        }
    }
    if ((use_ncu || child.ncu_child) && actual != CUPAT_BACKEND_CUDA) {
        fprintf(stderr, "%s: --ncu profiles GPU kernels: it needs the CUDA backend (this run is "
                        "on %s)\n", CMD, cupat_backend_name(actual));
        cupat_destroy(ctx);
        return 1;
    }
    if (child.ncu_child) { /* nothing on stdout: ncu's CSV may share it */
        out = fopen("/dev/null", "w");
        if (!out) {
            fprintf(stderr, "%s: --ncu-child: cannot open /dev/null: %s\n", CMD, strerror(errno));
            cupat_destroy(ctx);
            return 1;
        }
    }
    if (sweep && actual != CUPAT_BACKEND_CUDA) {
        fprintf(out, "%s --sweep-blocks needs a GPU (the CUDA backend); nothing to sweep on %s\n",
                pattern, cupat_backend_name(actual));
        cupat_destroy(ctx);
        return 0;
    }
    double t0 = wall_s();
    bench_options opt = {.reps = (int)reps, .variant = variant,
                         .progress = isatty(fileno(stderr)) && out != stderr, .out = out,
                         .quick = quick};
    opt.ncu = use_ncu;
    if (child.ncu_child) {
        opt.progress = 0;
        opt.ncu_child = 1;
        opt.ncu_table = child.ncu_table;
        opt.ncu_row = child.ncu_row;
        opt.ncu_name = child.ncu_name;
    }
    bench_run run;
    if (opt.progress) fprintf(stderr, "measuring the ceilings...");
    cupat_status s = bench_run_init(&run, ctx, &opt);
    if (opt.progress) fprintf(stderr, "\r\033[K");
    if (s) {
        fprintf(stderr, "%s: setting up: %s\n", CMD, cupat_last_error(ctx));
        if (child.ncu_child) fclose(out);
        cupat_destroy(ctx);
        return 1;
    }
    bench_print_header(&run, out);
    if (quick)
        fprintf(out, "--quick: one small case per pattern, a few calls a row (the full sweep: "
               "cupat bench %s)\n", pattern);
    fflush(stdout); /* before any message on stderr */
    int failed = 0, case_errors = 0;
    for (size_t i = 0; i < bench_npatterns; i++) {
        const bench_pattern *p = &bench_patterns[i];
        if (!all && p != one) continue;
        if (run.ncu_reached) break; /* an --ncu child whose row is done */
        bench_size qsize; /* --quick without --n: the pattern's small case */
        const bench_size *sz = sizep;
        if (quick && !sz && bench_quick_size(&run, p, &qsize) == 0) sz = &qsize;
        else if (quick && !sz) {
            fflush(stdout);
            fprintf(stderr, "%s: %s has no --quick size (bench_patterns.c); default cases\n",
                    CMD, p->name);
        }
        size_t before = run.ntables;
        s = sweep ? p->sweep(&run, sz) : p->cases(&run, sz);
        for (size_t k = before; k < run.ntables; k++) { /* --ncu: a child runs p alone */
            run.tables[k].made_by = p->name;
            run.tables[k].made_index = k - before;
        }
        if (s) {
            if (opt.progress) fprintf(stderr, "\r\033[K");
            fflush(stdout);
            fprintf(stderr, "%s: %s: %s\n", CMD, p->name, cupat_last_error(ctx));
            failed = 1;
            case_errors++;
        }
    }
    if (child.ncu_child) { /* under ncu: only whether the row's call ran matters */
        int rc = 0;
        if (!run.ncu_reached) {
            fprintf(stderr, "%s: --ncu-child: this run has no row %zu of table %zu ('%s')\n",
                    CMD, child.ncu_row, child.ncu_table, child.ncu_name);
            rc = 1;
        } else if (run.ncu_failed) {
            fprintf(stderr, "%s: --ncu-child: %s\n", CMD, run.ncu_message);
            rc = 1;
        }
        bench_run_free(&run);
        cupat_destroy(ctx);
        fclose(out);
        return rc;
    }
    int ncu_failed = 0;
    if (use_ncu) {
        const char *const *cargv = child_argv(pattern, variant, nstr, quick, sweep,
                                              cupat_get_device(ctx));
        size_t wanted = 0;
        for (size_t i = 0; i < run.ntables; i++)
            for (size_t j = 0; j < run.tables[i].nrows; j++)
                wanted += (size_t)bench_ncu_wanted(&run.tables[i].rows[j]);
        /* the children need the GPU's memory more than this process does */
        bench_run_release(&run);
        cupat_destroy(ctx);
        ctx = NULL;
        if (!cargv) {
            fprintf(stderr, "%s: --ncu: cannot find this program (/proc/self/exe) to run "
                            "under ncu\n", CMD);
            ncu_failed = (int)wanted;
        } else {
            fflush(stdout);
            fprintf(stderr, "%s: profiling %zu row%s under %s, one call a row...\n", CMD, wanted,
                    wanted == 1 ? "" : "s", ncu);
            ncu_failed = bench_ncu_rows(&run, ncu, cargv, 2); /* cargv[2]: PATTERN */
        }
        for (size_t i = 0; i < run.ntables; i++) {
            if (!cargv) /* the rows say why they have no profile */
                for (size_t j = 0; j < run.tables[i].nrows; j++)
                    if (bench_ncu_wanted(&run.tables[i].rows[j])) {
                        run.tables[i].rows[j].ncu.state = BENCH_NCU_ERROR;
                        snprintf(run.tables[i].rows[j].ncu.error,
                                 sizeof run.tables[i].rows[j].ncu.error,
                                 "this program was not found to run under ncu");
                    }
            bench_print_table(&run, &run.tables[i], out);
        }
        fflush(out);
    }
    size_t rows = 0;
    for (size_t i = 0; i < run.ntables; i++) rows += run.tables[i].nrows;
    fprintf(out, "\n%zu table%s, %zu rows, %d failed", run.ntables, run.ntables == 1 ? "" : "s", rows,
           run.failures);
    if (case_errors) fprintf(out, ", %d pattern%s could not run", case_errors, case_errors == 1 ? "" : "s");
    fprintf(out, "; %.1f s\n", wall_s() - t0);
    fflush(stdout);
    char err[512];
    if (json && bench_write_json(&run, json, err, sizeof err)) {
        fprintf(stderr, "%s: --json %s\n", CMD, err);
        failed = 1;
    }
    if (csv && bench_write_csv(&run, csv, err, sizeof err)) {
        fprintf(stderr, "%s: --csv %s\n", CMD, err);
        failed = 1;
    }
    if (run.failures) {
        fprintf(stderr, "%s: %d row%s failed the check or errored (marked FAIL / ERROR)\n", CMD,
                run.failures, run.failures == 1 ? "" : "s");
        failed = 1;
    }
    if (ncu_failed) {
        fprintf(stderr, "%s: --ncu: %d row%s could not be profiled (the '! ROW: ncu:' lines)\n",
                CMD, ncu_failed, ncu_failed == 1 ? "" : "s");
        failed = 1;
    }
    bench_run_free(&run);
    if (ctx) cupat_destroy(ctx);
    return failed ? 1 : 0;
}
