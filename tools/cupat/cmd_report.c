/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_report.c — `cupat report RESULTS.json... [--out DIR] [--python PY]`:
 * draws what `cupat bench --json` measured (roofline, one chart a ladder,
 * heat maps of block sweeps) as one self-contained HTML page plus PNG and SVG
 * files. The drawing is tools/report/cupat_report.py (matplotlib): this
 * command checks its arguments, finds the script and an interpreter, runs it
 * and turns its outcome into the CLI's exit codes. The library has no such
 * dependency. */
#define _GNU_SOURCE /* readlink */
#include "cli.h"
#include "commands.h"

#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static const char CMD[] = "cupat report";

/* The script's exit codes (cupat_report.py). */
enum { PY_OK = 0, PY_USAGE = 2, PY_INPUT = 3, PY_NO_PLOT = 4, PY_OUTPUT = 5 };

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: cupat report RESULTS.json [MORE.json...] [--out DIR] [--python PY]\n"
            "\n"
            "Draw bench results (`cupat bench PATTERN --json FILE`): DIR/index.html, one\n"
            "self-contained page (charts inline as SVG, the numbers beside them), and every\n"
            "chart as DIR/png/NAME.png and DIR/svg/NAME.svg for docs. The charts: a roofline\n"
            "(every rung at its arithmetic intensity under the measured ceilings), one chart\n"
            "a ladder (rate per rung, speed-ups, the ceiling and the vendor as lines, the\n"
            "books' figures marked), heat maps of block-size sweeps.\n"
            "\n"
            "Options:\n"
            "  --out DIR      where the page goes (default: report); the page and the\n"
            "                 charts it draws replace files of the same names there, and\n"
            "                 nothing else in DIR is touched\n"
            "  --python PY    the Python 3 interpreter (default: $CUPAT_PYTHON, else python3);\n"
            "                 it needs matplotlib (Debian/Ubuntu: python3-matplotlib)\n"
            "  -h, --help     this text\n"
            "\n"
            "The script: $CUPAT_REPORT_SCRIPT, else share/cupat/cupat_report.py beside the\n"
            "installed command, else the source tree's tools/report/cupat_report.py.\n"
            "Exit status: 0 page written, 1 failure (malformed or incomplete results: the\n"
            "field is named and no page is written; matplotlib missing: what to install is\n"
            "printed), 2 bad arguments.\n");
}

static int is_file(const char *p)
{
    struct stat st;
    return p && stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* The drawing script, or NULL (the places looked at printed). */
static const char *find_script(char *buf, size_t n)
{
    const char *env = getenv("CUPAT_REPORT_SCRIPT");
    if (env && *env) {
        if (is_file(env)) return env;
        fprintf(stderr, "%s: CUPAT_REPORT_SCRIPT=%s is not a file\n", CMD, env);
        return NULL;
    }
    /* an installed command: PREFIX/bin/cupat -> PREFIX/share/cupat/ */
    char exe[4096];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len > 0) {
        exe[len] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            snprintf(buf, n, "%s/../share/cupat/cupat_report.py", exe);
            if (is_file(buf)) return buf;
        }
    }
#ifdef CUPAT_REPORT_SOURCE
    if (is_file(CUPAT_REPORT_SOURCE)) return CUPAT_REPORT_SOURCE;
#endif
    fprintf(stderr,
            "%s: cannot find cupat_report.py (looked beside the command in "
            "../share/cupat/%s%s); set CUPAT_REPORT_SCRIPT to its path\n",
            CMD,
#ifdef CUPAT_REPORT_SOURCE
            " and at ", CUPAT_REPORT_SOURCE
#else
            "", ""
#endif
    );
    return NULL;
}

int cmd_report(int argc, char **argv)
{
    const char *out = "report", *python = NULL;
    const char **files = calloc((size_t)argc + 1, sizeof *files);
    if (!files) {
        fprintf(stderr, "%s: out of memory\n", CMD);
        return 1;
    }
    int nfiles = 0, r;
    for (int i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) {
            usage(stdout);
            free(files);
            return 0;
        }
        const char *v;
        if ((r = cli_opt(argc, argv, &i, "--out", &v, CMD)) != 0) {
            if (r < 0) goto bad;
            out = v;
            continue;
        }
        if ((r = cli_opt(argc, argv, &i, "--python", &v, CMD)) != 0) {
            if (r < 0) goto bad;
            python = v;
            continue;
        }
        if (argv[i][0] == '-' && argv[i][1] != '\0') {
            cli_unknown(CMD, argv[i]);
            goto bad;
        }
        files[nfiles++] = argv[i];
    }
    if (nfiles == 0) {
        fprintf(stderr, "%s: no results given (a JSON file from `cupat bench --json`); try '%s --help'\n",
                CMD, CMD);
        goto bad;
    }
    if (!*out) {
        fprintf(stderr, "%s: --out is empty\n", CMD);
        goto bad;
    }
    for (int k = 0; k < nfiles; k++) {
        FILE *f = fopen(files[k], "rb");
        if (!f) {
            fprintf(stderr, "%s: %s: %s\n", CMD, files[k], strerror(errno));
            goto bad;
        }
        fclose(f);
    }
    if (!python) python = getenv("CUPAT_PYTHON");
    if (!python || !*python) python = "python3";

    char sbuf[4200];
    const char *script = find_script(sbuf, sizeof sbuf);
    if (!script) {
        free(files);
        return 1;
    }
    /* python script FILES... --out DIR */
    char **args = calloc((size_t)nfiles + 6, sizeof *args);
    if (!args) {
        fprintf(stderr, "%s: out of memory\n", CMD);
        free(files);
        return 1;
    }
    int a = 0;
    args[a++] = (char *)python;
    args[a++] = (char *)script;
    for (int k = 0; k < nfiles; k++) args[a++] = (char *)files[k];
    args[a++] = "--out";
    args[a++] = (char *)out;
    args[a] = NULL;
    fflush(stdout);
    pid_t pid;
    int err = posix_spawnp(&pid, python, NULL, NULL, args, environ);
    free(args);
    free(files);
    if (err) {
        if (err == ENOENT)
            fprintf(stderr,
                    "%s: %s not found: install Python 3 with matplotlib (Debian/Ubuntu: apt-get "
                    "install python3 python3-matplotlib), or name an interpreter with --python\n",
                    CMD, python);
        else
            fprintf(stderr, "%s: cannot run %s: %s\n", CMD, python, strerror(err));
        return 1;
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) {
            fprintf(stderr, "%s: waiting for %s: %s\n", CMD, python, strerror(errno));
            return 1;
        }
    if (!WIFEXITED(st)) {
        fprintf(stderr, "%s: %s %s was killed (signal %d)\n", CMD, python, script,
                WIFSIGNALED(st) ? WTERMSIG(st) : 0);
        return 1;
    }
    switch (WEXITSTATUS(st)) {
    case PY_OK: return 0;
    case PY_USAGE: return 2;
    case PY_INPUT:   /* the script named the file and field */
    case PY_NO_PLOT: /* the script said what to install */
    case PY_OUTPUT:  /* the script named what in --out could not be written */
        return 1;
    default:
        fprintf(stderr, "%s: %s %s failed (exit %d)\n", CMD, python, script, WEXITSTATUS(st));
        return 1;
    }
bad:
    free(files);
    return 2;
}
