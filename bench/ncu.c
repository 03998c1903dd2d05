/* SPDX-License-Identifier: Apache-2.0 */
/* ncu.c — `cupat bench --ncu`: find Nsight Compute, run one row of the bench
 * under it, read its CSV (ncu.h). */
#define _POSIX_C_SOURCE 200809L
#include "ncu.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* The metrics of BENCH_NCU_METRICS, in its order, and what unit each is in.
 * Those before M_REGS are summed or time-weighted over the call's kernels;
 * from M_REGS on they describe one launch and only the main kernel's are
 * kept. */
enum {
    M_READ,
    M_WRITE,
    M_TIME,
    M_OCC,
    M_ISSUE,
    M_MEM,
    M_SM,
    M_REGS,
    M_SMEM_STATIC,
    M_SMEM_DYNAMIC,
    M_BLOCK,
    M_THEO,
    M_COUNT
};
enum { U_BYTES, U_TIME, U_PCT, U_REGS, U_BLOCK_BYTES, U_THREADS };
static const struct {
    const char *name;
    int unit;
} metrics[M_COUNT] = {
    [M_READ] = {"dram__bytes_read.sum", U_BYTES},
    [M_WRITE] = {"dram__bytes_write.sum", U_BYTES},
    [M_TIME] = {"gpu__time_duration.sum", U_TIME},
    [M_OCC] = {"sm__warps_active.avg.pct_of_peak_sustained_active", U_PCT},
    [M_ISSUE] = {"sm__inst_issued.avg.pct_of_peak_sustained_active", U_PCT},
    [M_MEM] = {"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", U_PCT},
    [M_SM] = {"sm__throughput.avg.pct_of_peak_sustained_elapsed", U_PCT},
    [M_REGS] = {"launch__registers_per_thread", U_REGS},
    [M_SMEM_STATIC] = {"launch__shared_mem_per_block_static", U_BLOCK_BYTES},
    [M_SMEM_DYNAMIC] = {"launch__shared_mem_per_block_dynamic", U_BLOCK_BYTES},
    [M_BLOCK] = {"launch__block_size", U_THREADS},
    [M_THEO] = {"sm__maximum_warps_per_active_cycle_pct", U_PCT},
};

#define MAX_FIELDS 512

const char *bench_ncu_limiter(double memory_pct, double sm_pct)
{
    if (memory_pct >= sm_pct && memory_pct >= BENCH_NCU_BUSY_PCT) return "memory";
    if (sm_pct > memory_pct && sm_pct >= BENCH_NCU_BUSY_PCT) return "compute";
    return "latency";
}

static int fail(bench_ncu *out, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static int fail(bench_ncu *out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->error, sizeof out->error, fmt, ap);
    va_end(ap);
    out->state = BENCH_NCU_ERROR;
    return -1;
}

/* Split one CSV line in place: fields quoted ("a ""b"", c") or bare. The
 * number of fields, or -1 for a quote left open or text after a closing
 * quote. */
static int csv_split(char *line, char **f, int max)
{
    int n = 0;
    char *p = line;
    for (;;) {
        if (n == max) return -1;
        if (*p == '"') {
            char *w = ++p;
            f[n++] = w;
            for (;;) {
                if (!*p) return -1; /* no closing quote */
                if (*p == '"') {
                    if (p[1] == '"') {
                        *w++ = '"';
                        p += 2;
                        continue;
                    }
                    p++;
                    break;
                }
                *w++ = *p++;
            }
            *w = '\0';
            while (*p == ' ' || *p == '\t') p++;
            if (*p == '\0') return n;
            if (*p != ',') return -1;
            p++;
        } else {
            f[n++] = p;
            char *c = strchr(p, ',');
            if (!c) return n;
            *c = '\0';
            p = c + 1;
        }
    }
}

/* A value of ncu's: "1,234,567.5" (thousands separators), "12.5", "4.0e-05".
 * 0 with *v; -1 for "n/a", "", text. */
static int parse_number(const char *s, double *v)
{
    char buf[64];
    size_t k = 0;
    for (; *s; s++) {
        if (*s == ',' || *s == ' ') continue;
        if (k + 1 >= sizeof buf) return -1;
        buf[k++] = *s;
    }
    buf[k] = '\0';
    if (!k) return -1;
    char *end = NULL;
    errno = 0;
    double x = strtod(buf, &end);
    if (errno || *end || !isfinite(x)) return -1;
    *v = x;
    return 0;
}

/* What one unit of `u` is in bytes, nanoseconds, percent, registers or
 * threads; < 0 unknown. An empty unit is the base unit (no units row, or
 * --print-units base). Shared memory a block comes as "byte/block" (or
 * "Kbyte/block" auto-scaled): the bytes before the "/block". */
typedef struct unit {
    const char *name;
    double scale;
} unit;
static const unit byte_units[] = {
    {"", 1},     {"byte", 1},  {"B", 1},          {"Kbyte", 1e3},         {"KB", 1e3},
    {"Mbyte", 1e6}, {"MB", 1e6}, {"Gbyte", 1e9},  {"GB", 1e9},            {"Tbyte", 1e12},
    {"TB", 1e12}, {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0}};
static const unit time_units[] = {{"", 1},         {"nsecond", 1}, {"ns", 1},
                                  {"usecond", 1e3}, {"us", 1e3},    {"msecond", 1e6},
                                  {"ms", 1e6},      {"second", 1e9}, {"s", 1e9}};
static const unit pct_units[] = {{"", 1}, {"%", 1}};
static const unit reg_units[] = {{"", 1}, {"register", 1}, {"register/thread", 1}};
static const unit thread_units[] = {{"", 1}, {"thread", 1}, {"thread/block", 1}};

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static double unit_scale(int kind, const char *u)
{
    char per_block[32];
    const unit *t = pct_units;
    size_t n = N_OF(pct_units);
    switch (kind) {
    case U_BLOCK_BYTES: {
        size_t len = strlen(u), sfx = strlen("/block");
        if (len >= sfx && strcmp(u + len - sfx, "/block") == 0) {
            if (len - sfx >= sizeof per_block) return -1;
            memcpy(per_block, u, len - sfx);
            per_block[len - sfx] = '\0';
            u = per_block;
        }
        t = byte_units;
        n = N_OF(byte_units);
        break;
    }
    case U_BYTES: t = byte_units, n = N_OF(byte_units); break;
    case U_TIME: t = time_units, n = N_OF(time_units); break;
    case U_REGS: t = reg_units, n = N_OF(reg_units); break;
    case U_THREADS: t = thread_units, n = N_OF(thread_units); break;
    default: break;
    }
    for (size_t i = 0; i < n; i++)
        if (strcmp(t[i].name, u) == 0) return t[i].scale;
    return -1;
}

/* A launch figure (registers, threads: whole numbers), capped where no int
 * holds it; the parser has already refused negative ones. */
static int count_of(double v)
{
    return v >= (double)INT_MAX ? INT_MAX : (int)lround(v);
}

int bench_ncu_parse(const char *text, bench_ncu *out)
{
    memset(out, 0, sizeof *out);
    if (!text) return fail(out, "no output from ncu");
    char *buf = strdup(text);
    char **f = malloc(MAX_FIELDS * sizeof *f);
    if (!buf || !f) {
        free(buf);
        free(f);
        return fail(out, "out of host memory reading ncu's CSV");
    }
    int col[M_COUNT], name_col = -1, nhead = 0, header = 0, units_next = 0, rc = 0;
    double scale[M_COUNT], sum[M_COUNT] = {0}, weighted[M_COUNT] = {0};
    double main_v[M_COUNT] = {0}, main_t = -1;
    char prof_err[160] = "";
    size_t lineno = 0;
    for (char *line = buf, *next; line && !rc; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = '\0';
        lineno++;
        line[strcspn(line, "\r")] = '\0';
        while (*line == ' ' || *line == '\t') line++;
        if (!*line) continue;
        if (line[0] == '=' && line[1] == '=') { /* ==PROF==, ==WARNING==, ==ERROR== */
            if (!prof_err[0] && strncmp(line, "==ERROR==", 9) == 0)
                snprintf(prof_err, sizeof prof_err, "%s", line);
            continue;
        }
        /* the program's own lines (not CSV) may sit anywhere */
        if (line[0] != '"' && !(header && isdigit((unsigned char)line[0]))) continue;
        int nf = csv_split(line, f, MAX_FIELDS);
        if (!header) {
            if (nf < 1 || strcmp(f[0], "ID") != 0) continue;
            for (int m = 0; m < M_COUNT; m++) {
                col[m] = -1;
                scale[m] = 1;
                for (int i = 0; i < nf; i++)
                    if (strcmp(f[i], metrics[m].name) == 0) col[m] = i;
            }
            for (int i = 0; i < nf; i++)
                if (strcmp(f[i], "Kernel Name") == 0) name_col = i;
            for (int m = 0; m < M_COUNT && !rc; m++)
                if (col[m] < 0)
                    rc = fail(out, "ncu's CSV has no column '%s' (line %zu)", metrics[m].name,
                              lineno);
            nhead = nf;
            header = units_next = 1;
            continue;
        }
        if (nf != nhead) {
            rc = nf < 0 ? fail(out, "ncu's CSV line %zu is not CSV (a quote left open)", lineno)
                        : fail(out, "ncu's CSV line %zu has %d fields, its header %d", lineno, nf,
                               nhead);
            break;
        }
        if (units_next && f[0][0] == '\0') { /* the units row */
            units_next = 0;
            for (int m = 0; m < M_COUNT && !rc; m++)
                if ((scale[m] = unit_scale(metrics[m].unit, f[col[m]])) < 0)
                    rc = fail(out, "ncu's CSV: unit '%s' of %s is not one this reads",
                              f[col[m]], metrics[m].name);
            continue;
        }
        units_next = 0;
        double id;
        if (parse_number(f[0], &id) || id < 0) {
            rc = fail(out, "ncu's CSV line %zu: ID '%s' is not a kernel number", lineno, f[0]);
            break;
        }
        double v[M_COUNT];
        for (int m = 0; m < M_COUNT && !rc; m++) {
            const char *s = f[col[m]];
            if (parse_number(s, &v[m]) || v[m] < 0)
                rc = fail(out, "ncu's CSV line %zu (kernel %s): %s = '%s' is not a %s", lineno,
                          name_col >= 0 ? f[name_col] : f[0], metrics[m].name, s,
                          metrics[m].unit == U_PCT ? "percentage" : "count");
            else
                v[m] *= scale[m];
        }
        if (rc) break;
        out->kernels++;
        for (int m = 0; m < M_REGS; m++) {
            sum[m] += v[m];
            weighted[m] += v[m] * v[M_TIME];
        }
        if (v[M_TIME] > main_t) { /* the longest so far: the main kernel */
            main_t = v[M_TIME];
            memcpy(main_v, v, sizeof main_v);
            snprintf(out->main_kernel, sizeof out->main_kernel, "%s",
                     name_col >= 0 ? f[name_col] : "");
        }
    }
    free(buf);
    free(f);
    if (rc) return rc;
    if (!header)
        return fail(out, "no CSV from ncu (no header line \"ID\",...)%s%s", prof_err[0] ? ": " : "",
                    prof_err);
    if (out->kernels == 0)
        return fail(out, "ncu profiled no kernels in the call%s%s", prof_err[0] ? ": " : "",
                    prof_err);
    double t = sum[M_TIME], pct[M_REGS];
    for (int m = 0; m < M_REGS; m++)
        pct[m] = t > 0 ? weighted[m] / t : sum[m] / out->kernels;
    out->dram_read_bytes = sum[M_READ];
    out->dram_write_bytes = sum[M_WRITE];
    out->gpu_ns = t;
    out->occupancy_pct = pct[M_OCC];
    out->issue_pct = pct[M_ISSUE];
    out->memory_pct = pct[M_MEM];
    out->sm_pct = pct[M_SM];
    out->limiter = bench_ncu_limiter(out->memory_pct, out->sm_pct);
    out->main_ns = main_v[M_TIME];
    out->regs_per_thread = count_of(main_v[M_REGS]);
    out->smem_per_block = main_v[M_SMEM_STATIC] + main_v[M_SMEM_DYNAMIC];
    out->threads_per_block = count_of(main_v[M_BLOCK]);
    out->theo_occupancy_pct = main_v[M_THEO];
    out->state = BENCH_NCU_OK;
    return 0;
}

/* ------------------------------------------------------------ finding -- */

/* p is never NULL here (a test for it made GCC take the path buffer for a
 * possible NULL and warn at every snprintf into it: -Wformat-truncation). */
static int executable(const char *p)
{
    struct stat st;
    return *p && stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0;
}

int bench_ncu_find(char *path, size_t path_len, char *looked, size_t looked_len)
{
    const char *env = getenv("CUPAT_NCU");
    if (env && *env) {
        if (executable(env)) {
            snprintf(path, path_len, "%s", env);
            return 0;
        }
        snprintf(looked, looked_len, "$CUPAT_NCU=%s, which is not an executable file", env);
        return -1;
    }
    const char *p = getenv("PATH");
    while (p && *p) {
        size_t n = strcspn(p, ":");
        if (n) {
            snprintf(path, path_len, "%.*s/ncu", (int)n, p);
            if (executable(path)) return 0;
        }
        p += n + (p[n] == ':');
    }
    snprintf(path, path_len, "/usr/local/cuda/bin/ncu");
    if (executable(path)) return 0;
    snprintf(looked, looked_len, "$CUPAT_NCU (unset), ncu on the PATH, /usr/local/cuda/bin/ncu");
    return -1;
}

double bench_ncu_timeout(void)
{
    const char *s = getenv("CUPAT_NCU_TIMEOUT");
    char *end = NULL;
    double v = s && *s ? strtod(s, &end) : 0;
    return s && *s && end && !*end && v > 0 ? v : BENCH_NCU_TIMEOUT_S;
}

/* ------------------------------------------------------------ running -- */

/* A file's text (at most `cap` bytes), or NULL. */
static char *slurp(const char *path, size_t cap)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t len = 0, sz = 65536;
    char *b = malloc(sz + 1);
    while (b) {
        size_t got = fread(b + len, 1, sz - len, f);
        len += got;
        if (got == 0 || len >= cap) break;
        if (len == sz) {
            char *nb = realloc(b, 2 * sz + 1);
            if (!nb) break;
            b = nb;
            sz *= 2;
        }
    }
    fclose(f);
    if (b) b[len] = '\0';
    return b;
}

/* The line that says what went wrong: the program's first "cupat bench: ..."
 * message (the cause; ncu then only says the program failed), else ncu's
 * first ==ERROR==, else the last line. */
static void reason(const char *log, const char *console, char *buf, size_t len)
{
    buf[0] = '\0';
    const char *texts[2] = {log, console};
    const char *keys[2] = {"cupat bench:", "==ERROR=="};
    for (int k = 0; k < 2 && !buf[0]; k++)
        for (int i = 0; i < 2 && !buf[0]; i++) {
            const char *p = texts[i] ? strstr(texts[i], keys[k]) : NULL;
            if (p) snprintf(buf, len, "%.*s", (int)strcspn(p, "\r\n"), p);
        }
    if (buf[0] || !console) return;
    const char *last = NULL;
    for (const char *p = console; *p;) {
        size_t n = strcspn(p, "\r\n");
        if (n) last = p;
        p += n;
        while (*p == '\r' || *p == '\n') p++;
    }
    if (last) snprintf(buf, len, "%.*s", (int)strcspn(last, "\r\n"), last);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* environ with LC_ALL=C: ncu's numbers in the C locale (',' separates
 * thousands, '.' is the decimal point). NULL when out of memory. */
static char **c_locale_env(void)
{
    size_t n = 0;
    while (environ && environ[n]) n++;
    char **e = malloc((n + 2) * sizeof *e);
    if (!e) return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "LC_ALL=", 7) != 0) e[k++] = environ[i];
    e[k++] = "LC_ALL=C";
    e[k] = NULL;
    return e;
}

/* Start argv[0] with stdin from /dev/null, stdout and stderr into `con`, in
 * a process group of its own (a timeout kills ncu and the program it started
 * together), and wait for it. 0 with *status (*timed_out set when killed);
 * -1 with the reason in out. */
static int run_child(char **argv, char **envp, const char *con, double timeout_s, int *status,
                     int *timed_out, bench_ncu *out)
{
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    pid_t pid;
    *timed_out = 0;
    if (posix_spawn_file_actions_init(&fa)) return fail(out, "cannot set up ncu's process");
    if (posix_spawnattr_init(&attr)) {
        posix_spawn_file_actions_destroy(&fa);
        return fail(out, "cannot set up ncu's process");
    }
    int e = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    if (!e) e = posix_spawn_file_actions_addopen(&fa, 1, con, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (!e) e = posix_spawn_file_actions_adddup2(&fa, 1, 2);
    if (!e) e = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    if (!e) e = posix_spawnattr_setpgroup(&attr, 0);
    if (!e) e = posix_spawn(&pid, argv[0], &fa, &attr, argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    if (e) return fail(out, "cannot run %s: %s", argv[0], strerror(e));
    double t0 = now_s();
    for (;;) {
        pid_t w = waitpid(pid, status, WNOHANG);
        if (w == pid) return 0;
        if (w < 0 && errno != EINTR) {
            int err = errno;
            kill(-pid, SIGKILL);
            return fail(out, "waiting for ncu: %s", strerror(err));
        }
        if (timeout_s > 0 && now_s() - t0 > timeout_s) {
            *timed_out = 1;
            kill(-pid, SIGKILL);
            while (waitpid(pid, status, 0) < 0 && errno == EINTR) {}
            return 0;
        }
        struct timespec nap = {0, 20 * 1000 * 1000};
        nanosleep(&nap, NULL);
    }
}

int bench_ncu_profile(const char *ncu, const char *const *app, double timeout_s, bench_ncu *out)
{
    memset(out, 0, sizeof *out);
    /* before posix_spawn, which may report a program it cannot start only
     * as the child's exit status 127 (older C libraries, valgrind) */
    if (access(ncu, X_OK) != 0) return fail(out, "cannot run %s: %s", ncu, strerror(errno));
    const char *tmp = getenv("TMPDIR");
    char dir[512], log[600], con[600];
    snprintf(dir, sizeof dir, "%s/cupat-ncu-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir))
        return fail(out, "cannot make a folder for ncu's output (%s): %s", dir, strerror(errno));
    snprintf(log, sizeof log, "%s/ncu.csv", dir);
    snprintf(con, sizeof con, "%s/console.txt", dir);

    size_t napp = 0;
    while (app[napp]) napp++;
    const char *head[] = {ncu,     "--profile-from-start", "off",  "--csv",     "--page",
                          "raw",   "--print-units",        "base", "--metrics", BENCH_NCU_METRICS,
                          "--log-file", log};
    const size_t nhead = sizeof head / sizeof head[0];
    char **argv = malloc((nhead + napp + 1) * sizeof *argv);
    char **envp = c_locale_env();
    int rc = -1, status = 0, timed_out = 0;
    if (!argv || !envp) {
        fail(out, "out of host memory starting ncu");
    } else {
        for (size_t i = 0; i < nhead; i++) argv[i] = (char *)head[i];
        for (size_t i = 0; i < napp; i++) argv[nhead + i] = (char *)app[i];
        argv[nhead + napp] = NULL;
        rc = run_child(argv, envp, con, timeout_s, &status, &timed_out, out);
    }
    if (rc == 0) {
        rc = -1;
        char *log_text = slurp(log, (size_t)256 << 20), *con_text = slurp(con, (size_t)16 << 20);
        char why[200];
        reason(log_text, con_text, why, sizeof why);
        if (timed_out) {
            fail(out, "ncu did not finish in %.0f s ($CUPAT_NCU_TIMEOUT): killed", timeout_s);
        } else if (WIFSIGNALED(status)) {
            fail(out, "ncu was killed by signal %d%s%s", WTERMSIG(status), why[0] ? ": " : "",
                 why);
        } else if (WEXITSTATUS(status) != 0) {
            fail(out, "ncu exited %d%s%s", WEXITSTATUS(status), why[0] ? ": " : "", why);
        } else if (bench_ncu_parse(log_text, out) == 0) {
            rc = 0;
        } else if (con_text && strstr(out->error, "no CSV")) {
            /* an ncu that printed the CSV to stdout despite --log-file */
            char first[sizeof out->error];
            snprintf(first, sizeof first, "%s", out->error);
            if (bench_ncu_parse(con_text, out) == 0) rc = 0;
            else if (strstr(out->error, "no CSV"))
                fail(out, "%s%s%s", first, why[0] ? "; ncu said: " : "", why);
        }
        free(log_text);
        free(con_text);
    }
    free(argv);
    free(envp);
    unlink(log);
    unlink(con);
    rmdir(dir);
    return rc;
}
