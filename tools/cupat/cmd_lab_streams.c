/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_lab_streams.c — `cupat lab streams`: parse, run the streams lab's
 * experiments (lab/streams), print each one's tables and Gantt charts as it
 * finishes, and write the whole report as JSON (--json FILE).
 *
 * CUDA_DEVICE_MAX_CONNECTIONS is read when CUDA starts, so the false-
 * dependency experiment runs in child processes: this binary again
 * (/proc/self/exe) with the variable set to 1 and to 32 and `falsedep
 * --connections N`; each child prints its own tables and hands its JSON back
 * through a temporary file. `--connections N` given by the user: this
 * process re-executes itself with the variable set (unless it already is).
 * Exit 1 when a check fails (wrong data, an order an event forbids) or without
 * a GPU; 2 for bad arguments. */
#define _GNU_SOURCE
#include "cli.h"
#include "commands.h"

#include "streams/streams.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char CMD[] = "cupat lab streams";

enum { EXP_OVERLAP, EXP_FALSEDEP, EXP_NULL, EXP_PRIORITY, EXP_EVENTS, EXP_BLOCKING, EXP_GRAPHS, NEXP };
static const char *const exp_names[NEXP] = {"overlap", "falsedep", "nullstream", "priority",
                                            "events",  "blocking", "graphs"};
static const char *const exp_help[NEXP] = {
    "H2D / kernel / D2H over N chunks on N streams vs serial (vadd, heavy kernel); bidirectional copies",
    "depth- vs breadth-first issue with CUDA_DEVICE_MAX_CONNECTIONS 1 and 32 (Hyper-Q); 64 streams",
    "PCCP's kernel_1/2/3: blocking / non-blocking streams, legacy and per-thread default stream",
    "stream priority range; short kernels beside a long low-priority kernel, with and without",
    "cudaStreamWaitEvent dependency graph; BlockingSync vs spin (host CPU time); DisableTiming cost",
    "which calls block the host (allocation, memset, copies by size and kind, launches, queries)",
    "host callbacks in a pipeline; a chain of small kernels as stream launches vs a CUDA graph; update",
};

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: cupat lab streams [EXPERIMENT...] [options]\n"
            "\n"
            "Streams and concurrency (PCCP 6.1; lecture \"Asynchronous Execution\", \"Streams\",\n"
            "\"Other Sources of Concurrency\"; CUDA Guide, asynchronous concurrent execution,\n"
            "graphs). EXPERIMENT (default all):\n");
    for (int e = 0; e < NEXP; e++) fprintf(f, "  %-10s %s\n", exp_names[e], exp_help[e]);
    fprintf(f,
            "\n"
            "Options:\n"
            "  --bytes N        overlap: bytes of each array (default 64M; K, M, G suffixes)\n"
            "  --streams N      overlap: chunks and streams (default 4, 1 to 32)\n"
            "  --reps N         repetitions a row, the median reported (default 5)\n"
            "  --heavy N        overlap: FMAs an element of the heavy kernel (default 4000)\n"
            "  --spin-ms X      one spin kernel's milliseconds (default 2)\n"
            "  --connections N  run falsedep only at CUDA_DEVICE_MAX_CONNECTIONS=N (1 to 32): the\n"
            "                   command re-executes itself with the variable set (it must be set\n"
            "                   before CUDA starts); default: falsedep runs twice, at 1 and 32,\n"
            "                   each in a child process\n"
            "  --json FILE      write every table and timeline as JSON\n"
            "  --width N        Gantt chart columns (default 72)\n"
            "  --device N       CUDA device (the experiments need the CUDA backend)\n"
            "  -h, --help       this text\n");
}

static int parse_ms(const char *v, double *out)
{
    char *end = NULL;
    errno = 0;
    double x = strtod(v, &end);
    if (errno || end == v || *end || !(x >= 0.05 && x <= 100)) {
        fprintf(stderr, "%s: --spin-ms '%s': a number of milliseconds, 0.05 to 100\n", CMD, v);
        return 2;
    }
    *out = x;
    return 0;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n + 4096 + 1 > cap) {
            cap = (n + 4096 + 1) * 2;
            char *b = realloc(buf, cap);
            if (!b) break;
            buf = b;
        }
        size_t k = fread(buf + n, 1, 4096, f);
        n += k;
        if (k < 4096) break;
    }
    fclose(f);
    if (buf) buf[n] = '\0';
    return buf;
}

/* This binary, `lab streams falsedep --connections N`, with the variable set.
 * Its stdout is ours; *json gets its report (malloc'd; NULL if none). */
static int run_child(int conns, const lab_st_opts *o, long device, long width, char **json)
{
    char tmp[] = "/tmp/cupat-streams-XXXXXX";
    int fd = mkstemp(tmp);
    *json = NULL;
    if (fd < 0) {
        fprintf(stderr, "%s: falsedep: cannot make a temporary file: %s\n", CMD, strerror(errno));
        return 1;
    }
    close(fd);
    char cs[24], ds[24], ws[24], ms[32], env[48];
    snprintf(cs, sizeof cs, "%d", conns);
    snprintf(ds, sizeof ds, "%ld", device < 0 ? 0L : device);
    snprintf(ws, sizeof ws, "%ld", width);
    snprintf(ms, sizeof ms, "%.6g", o->spin_ms);
    snprintf(env, sizeof env, "CUDA_DEVICE_MAX_CONNECTIONS=%d", conns);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "%s: falsedep: fork: %s\n", CMD, strerror(errno));
        unlink(tmp);
        return 1;
    }
    if (pid == 0) {
        putenv(env);
        char *args[] = {"cupat", "lab", "streams", "falsedep", "--connections", cs, "--spin-ms", ms,
                        "--width", ws, "--json", tmp, device < 0 ? NULL : "--device", ds, NULL};
        execv("/proc/self/exe", args);
        fprintf(stderr, "%s: falsedep: cannot run /proc/self/exe: %s\n", CMD, strerror(errno));
        _exit(127);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
    *json = slurp(tmp);
    unlink(tmp);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "%s: falsedep at CUDA_DEVICE_MAX_CONNECTIONS=%d: the child exited with %d\n", CMD, conns,
                WIFEXITED(st) ? WEXITSTATUS(st) : -1);
        return 1;
    }
    return 0;
}

/* `--connections N` without the variable at N: run again with it set. */
static int reexec_with(int conns, int argc, char **argv)
{
    char val[16];
    snprintf(val, sizeof val, "%d", conns);
    const char *cur = getenv("CUDA_DEVICE_MAX_CONNECTIONS");
    if (cur && !strcmp(cur, val)) return 0;
    if (setenv("CUDA_DEVICE_MAX_CONNECTIONS", val, 1)) return 1;
    char **args = calloc((size_t)argc + 3, sizeof *args);
    if (!args) return 1;
    args[0] = "cupat";
    args[1] = "lab";
    for (int i = 0; i < argc; i++) args[2 + i] = argv[i];
    fflush(stdout);
    execv("/proc/self/exe", args);
    fprintf(stderr, "%s: --connections: cannot re-execute /proc/self/exe: %s\n", CMD, strerror(errno));
    free(args);
    return 1;
}

int cmd_lab_streams(int argc, char **argv)
{
    int want[NEXP] = {0};
    long device = -1, streams = 4, reps = 5, heavy = 4000, conns = 0, width = 72;
    size_t bytes = (size_t)64 << 20;
    const char *json = NULL;
    lab_st_opts o;
    lab_streams_defaults(&o);
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        int r;
        if (cli_is_help(argv[i])) {
            usage(stdout);
            return 0;
        }
#define INT_OPT(name, var, lo, hi)                                                                 \
    if ((r = cli_opt(argc, argv, &i, name, &v, CMD)) != 0) {                                       \
        if (r < 0 || cli_parse_int(CMD, name, v, lo, hi, &var)) return 2;                          \
        continue;                                                                                  \
    }
        INT_OPT("--device", device, 0, 1023)
        INT_OPT("--streams", streams, 1, 32)
        INT_OPT("--reps", reps, 1, 100)
        INT_OPT("--heavy", heavy, 1, 100000)
        INT_OPT("--connections", conns, 1, 32)
        INT_OPT("--width", width, 20, 400)
#undef INT_OPT
        if ((r = cli_opt(argc, argv, &i, "--bytes", &v, CMD)) != 0) {
            if (r < 0 || cli_parse_size(CMD, "--bytes", v, &bytes)) return 2;
            if (bytes < ((size_t)1 << 20) || bytes > ((size_t)16 << 30)) {
                fprintf(stderr, "%s: --bytes %s: 1 MiB to 16 GiB\n", CMD, v);
                return 2;
            }
            continue;
        }
        if ((r = cli_opt(argc, argv, &i, "--spin-ms", &v, CMD)) != 0) {
            if (r < 0 || parse_ms(v, &o.spin_ms)) return 2;
            continue;
        }
        if ((r = cli_opt(argc, argv, &i, "--json", &v, CMD)) != 0) {
            if (r < 0) return 2;
            json = v;
            continue;
        }
        if (argv[i][0] == '-') return cli_unknown(CMD, argv[i]);
        if (cli_pick(CMD, argv[i], exp_names, NEXP, want)) return 2;
    }
    cli_pick_all(want, NEXP);
    if (conns) {
        for (int e = 0; e < NEXP; e++)
            if (want[e] && e != EXP_FALSEDEP) {
                fprintf(stderr, "%s: --connections is for 'falsedep' only\n", CMD);
                return 2;
            }
    }
    o.bytes = bytes;
    o.streams = (int)streams;
    o.reps = (int)reps;
    o.heavy_iters = (int)heavy;
    FILE *jf = NULL;
    if (json && !(jf = fopen(json, "w"))) {
        fprintf(stderr, "%s: --json %s: cannot write: %s\n", CMD, json, strerror(errno));
        return 2;
    }
    const char *why = cli_no_cuda_reason();
    if (why) {
        fprintf(stderr, "%s: the streams experiments need a GPU: %s\n", CMD, why);
        if (jf) fclose(jf);
        return 1;
    }
    if (conns && reexec_with((int)conns, argc, argv)) {
        if (jf) fclose(jf);
        return 1;
    }
    cupat_ctx *ctx = cli_context(CUPAT_BACKEND_CUDA, (int)device);
    lab_st_report *rep = calloc(1, sizeof *rep);
    if (!ctx || !rep) {
        if (!rep) fprintf(stderr, "%s: out of host memory\n", CMD);
        if (ctx) cupat_destroy(ctx);
        free(rep);
        if (jf) fclose(jf);
        return 1;
    }
    char *child[2] = {NULL, NULL};
    int nchild = 0, failed = 0;
    for (int e = 0; e < NEXP; e++) {
        if (!want[e]) continue;
        const int t0 = rep->ntables, l0 = rep->ntimelines;
        cupat_status s = CUPAT_SUCCESS;
        switch (e) {
        case EXP_OVERLAP: s = lab_streams_overlap(ctx, &o, rep); break;
        case EXP_FALSEDEP:
            if (conns) {
                s = lab_streams_falsedep(ctx, &o, (int)conns, rep);
            } else {
                static const int levels[2] = {1, 32};
                for (int k = 0; k < 2; k++) failed += run_child(levels[k], &o, device, width, &child[nchild++]);
            }
            break;
        case EXP_NULL: s = lab_streams_nullstream(ctx, &o, rep); break;
        case EXP_PRIORITY: s = lab_streams_priority(ctx, &o, rep); break;
        case EXP_EVENTS: s = lab_streams_events(ctx, &o, rep); break;
        case EXP_BLOCKING: s = lab_streams_blocking(ctx, &o, rep); break;
        case EXP_GRAPHS: s = lab_streams_graphs(ctx, &o, rep); break;
        }
        /* what this experiment added, now */
        for (int i = t0; i < rep->ntables; i++) lab_streams_print_table(stdout, &rep->t[i]);
        for (int i = l0; i < rep->ntimelines; i++) lab_streams_gantt(stdout, &rep->tl[i], (int)width);
        fflush(stdout);
        if (s) {
            fprintf(stderr, "%s: %s: %s\n", CMD, exp_names[e], cupat_last_error(ctx));
            failed++;
        }
    }
    if (jf) {
        if (lab_streams_json(jf, rep, (const char *const *)child, nchild) || fclose(jf)) {
            fprintf(stderr, "%s: --json %s: write failed\n", CMD, json);
            failed++;
        }
    }
    const int bad = rep->bad;
    /* a --connections run (the falsedep children) names its level, so only
     * the whole command's line reads "streams lab: ..." */
    char who[64] = "streams lab";
    if (conns) snprintf(who, sizeof who, "streams lab (CUDA_DEVICE_MAX_CONNECTIONS=%ld)", conns);
    if (bad) printf("%s: %d check(s) FAILED\n", who, bad);
    else if (!failed) printf("%s: every check OK\n", who);
    free(child[0]);
    free(child[1]);
    free(rep);
    cupat_destroy(ctx);
    return failed || bad ? 1 : 0;
}
