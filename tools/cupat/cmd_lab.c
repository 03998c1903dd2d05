/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_lab.c — `cupat lab access`: the memory-access experiments of PCCP
 * 4.2-4.5 and 5.2 and lecture 10, as measured tables: aligned vs misaligned
 * reads and writes, AoS vs SoA, the copy kernels with and without __ldg /
 * const __restrict__, shared-memory layouts and bank conflicts, and matrix
 * addition over device, managed and zero-copy memory. Every row is checked
 * like a bench rung: outputs poisoned, one call, compared with values the
 * host recomputes ("ok" / FAIL in the check column; a FAIL exits 1). With --ncu it re-runs
 * itself under Nsight Compute and adds the counters the books quote (load /
 * store efficiency, sectors per request, shared wavefronts and conflicts). */
#define _GNU_SOURCE /* popen, readlink */
#include "cli.h"
#include "commands.h"
#include "harness.h"

#include "access/access.h"
#include "internal.h"

#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char CMD[] = "cupat lab";

enum { EXP_OFFSET, EXP_AOS, EXP_COPY, EXP_SMEM, EXP_UM, NEXP };
static const char *const exp_names[NEXP] = {"offset", "aos", "copy", "smem", "um"};
static const char *const exp_help[NEXP] = {
    "readOffset, writeOffset, readOffsetUnroll4 over offsets 0..33 (PCCP 4.3)",
    "array of structures vs structure of arrays (PCCP 4.3, lecture 10)",
    "copyKernel, __ldg, const __restrict__ (PCCP 4.3)",
    "shared-memory layouts: square/rectangular, row/column, static/dynamic, padding (PCCP 5.2)",
    "matrix addition: explicit copies, unified memory, zero-copy (PCCP 4.2, 4.5)",
};

#define MAX_OFFSET 33
#define NMETRIC 4

/* Counters of the launches in profile order (filled by the ncu pass). */
typedef struct counters {
    int have;          /* 1: ncu gave numbers */
    char why[200];     /* else: why not */
    double (*v)[2 * NMETRIC]; /* a launch: the global metrics, then the shared ones */
    size_t n, next;    /* launches parsed, next to hand out */
} counters;

static const char *const global_metrics[NMETRIC] = {
    "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct",   /* gld_efficiency */
    "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct",   /* gst_efficiency */
    "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio",
    "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_st.ratio",
};
static const char *const shared_metrics[NMETRIC] = {
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
};

typedef struct lab {
    bench_run *run; /* NULL in the profile pass */
    cupat_ctx *ctx;
    size_t n;       /* elements of the 1D experiments */
    int profile;    /* launch each kernel once, no timing (under ncu) */
    counters ncu;
    /* state the bench_fn callbacks read */
    int kind;
    size_t offset;
    float *a, *b, *c, *d;
    int *ia, *ib;
    uint32_t *smem_out;
    unsigned smem_blocks;
    int smem_iters;
    const float *ma, *mb;
    float *mc;
    size_t nx, ny;
    float *pin_a, *pin_b, *pin_c; /* pinned host buffers of the explicit-copy row */
    int um_pattern; /* matadd inputs: 1 the pat() values, 0 the seeded random fill */
    float *mc_host; /* zero-copy row: C as the host sees it (poisoned from the host) */
} lab;

typedef cupat_status (*check_fn)(bench_run *, void *, int, bench_check *);

/* Inputs: a and b hold bench_rand_f32 values of these seeds (2n floats each),
 * so every check recomputes them on the host instead of copying them back. */
enum { SEED_A = 41, SEED_B = 42, SEED_C = 43 };
#define CHECK_CHUNK ((size_t)1 << 16)
static float in_a(size_t i)
{
    return bench_rand_f32(SEED_A, i, -1.0f, 2.0f);
}
static float in_b(size_t i)
{
    return bench_rand_f32(SEED_B, i, -1.0f, 2.0f);
}
/* The host-side matrices of the explicit, managed and zero-copy rows. */
static float pat(size_t k)
{
    return (float)(k % 1000) * 0.001f;
}
/* One float addition: host and device both round to nearest; the bound also
 * covers a host compiler that contracts the input generation. */
static double add_tol(double v)
{
    return fabs(v) * 0x1p-24;
}

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: cupat lab access [EXPERIMENT...] [options]\n"
            "\n"
            "Memory-access experiments as measured tables (effective GB/s = the bytes the\n"
            "kernel must move / its median time). EXPERIMENT (default: all of them):\n");
    for (int e = 0; e < NEXP; e++) fprintf(f, "  %-7s %s\n", exp_names[e], exp_help[e]);
    fprintf(f,
            "\n"
            "Options:\n"
            "  --n COUNT     elements of the 1D experiments (default 2^26; matrix 4096x4096)\n"
            "  --reps N      timed calls a row (default: adaptive)\n"
            "  --ncu         also run under Nsight Compute (ncu from $CUPAT_NCU, the PATH or\n"
            "                $CUDA_HOME/bin) and print load/store\n"
            "                efficiency, sectors per request, shared wavefronts and bank\n"
            "                conflicts; needs permission to read GPU counters\n"
            "  --device N    CUDA device (the lab needs the CUDA backend)\n"
            "  -h, --help    this text\n"
            "\n"
            "The other labs: 'cupat lab --help'.\n");
}

/* The labs (topics): one table for the dispatch, `cupat lab --help` and the
 * "which lab?" message. access is this file's; the others have commands of
 * their own (argv[0] = the topic). */
static const struct lab_topic {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *what;
} topics[] = {
    {"access", NULL, "memory access: coalescing, AoS/SoA, shared-memory banks, host memory"},
    {"warp", cmd_lab_warp, "shuffles, votes"},
    {"atomics", cmd_lab_atomics, "races, custom atomics, contention"},
    {"float", cmd_lab_float, "IEEE 754, rounding, intrinsics"},
    {"errors", cmd_lab_errors, "classic bugs"},
    {"memory", cmd_lab_memory, "caches, symbols, pitch, fences, unified memory"},
    {"streams", cmd_lab_streams, "overlap, false dependencies, priorities, events, graphs"},
    {"exec", cmd_lab_exec, "divergence, latency, occupancy, register cliffs, CDP"},
    {"cluster", cmd_lab_cluster, "thread-block clusters, distributed shared memory"},
    {"coop", cmd_lab_coop, "cooperative groups, grid sync"},
    {"async", cmd_lab_async, "cuda::barrier, memcpy_async, pipelines, TMA"},
    {"l2", cmd_lab_l2, "L2 persistence, access-policy windows, sm_90a feature sets"},
    {"multi", cmd_lab_multi,
     "under mpirun -np 2: GPU links, all-reduce vs NCCL, stencil and sort scaling"},
};
#define NTOPICS (sizeof topics / sizeof topics[0])

static void lab_usage(FILE *f)
{
    fprintf(f, "Usage: cupat lab TOPIC [EXPERIMENT...] [options]\n"
               "\n"
               "Experiments on the GPU as measured tables, every row checked (a FAIL exits 1).\n"
               "TOPIC:\n");
    for (size_t t = 0; t < NTOPICS; t++) fprintf(f, "  %-8s %s\n", topics[t].name, topics[t].what);
    fprintf(f, "\n'cupat lab TOPIC --help' lists a topic's experiments and options.\n");
}

/* ------------------------------------------------------------- ncu pass -- */

/* Split one CSV line (quoted fields) in place; returns the field count. */
static int csv_split(char *line, char **f, int max)
{
    int n = 0;
    char *p = line;
    while (*p && n < max) {
        if (*p == '"') {
            char *start = ++p, *w = p;
            while (*p && !(*p == '"' && p[1] != '"')) {
                if (*p == '"') p++; /* "" inside a field */
                *w++ = *p++;
            }
            if (*p == '"') p++;
            *w = '\0';
            f[n++] = start;
        } else {
            f[n++] = p;
            while (*p && *p != ',') p++;
            if (*p) *p++ = '\0';
            continue;
        }
        if (*p == ',') p++;
        else break;
    }
    return n;
}

static double parse_value(const char *s)
{
    char buf[64];
    size_t k = 0;
    for (; *s && k + 1 < sizeof buf; s++)
        if (*s != ',') buf[k++] = *s; /* thousands separators */
    buf[k] = '\0';
    char *end;
    double v = strtod(buf, &end);
    return end == buf ? -1.0 : v;
}

/* $CUPAT_NCU, else ncu on the PATH, else the toolkit's; NULL if none. */
static const char *find_ncu(char *buf, size_t len)
{
    const char *env = getenv("CUPAT_NCU");
    if (env && *env) return env;
    const char *path = getenv("PATH");
    while (path && *path) {
        size_t n = strcspn(path, ":");
        snprintf(buf, len, "%.*s/ncu", (int)n, path);
        if (n && access(buf, X_OK) == 0) return buf;
        path += n + (path[n] == ':');
    }
    const char *home = getenv("CUDA_HOME");
    snprintf(buf, len, "%s/bin/ncu", home && *home ? home : "/usr/local/cuda");
    return access(buf, X_OK) == 0 ? buf : NULL;
}

static void run_ncu(lab *L, const int *want, const char *nstr)
{
    counters *c = &L->ncu;
    char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0) {
        snprintf(c->why, sizeof c->why, "cannot find this executable (/proc/self/exe)");
        return;
    }
    self[len] = '\0';
    char ncu_buf[4096];
    const char *ncu = find_ncu(ncu_buf, sizeof ncu_buf);
    if (!ncu) {
        snprintf(c->why, sizeof c->why, "ncu not found (PATH, $CUDA_HOME/bin; or set CUPAT_NCU)");
        return;
    }
    char cmd[16384];
    int k = snprintf(cmd, sizeof cmd, "'%s' --csv --target-processes all -k regex:lab_ --metrics ",
                     ncu);
    for (int m = 0; m < NMETRIC; m++)
        k += snprintf(cmd + k, sizeof cmd - k, "%s%s,%s", m ? "," : "", global_metrics[m],
                      shared_metrics[m]);
    k += snprintf(cmd + k, sizeof cmd - k, " '%s' lab access --profile --device %d", self,
                  cupat_get_device(L->ctx));
    if (nstr) k += snprintf(cmd + k, sizeof cmd - k, " --n '%s'", nstr);
    for (int e = 0; e < NEXP; e++)
        if (want[e]) k += snprintf(cmd + k, sizeof cmd - k, " %s", exp_names[e]);
    snprintf(cmd + k, sizeof cmd - k, " 2>&1");
    fprintf(stderr, "running: %s\n", cmd);
    FILE *p = popen(cmd, "r");
    if (!p) {
        snprintf(c->why, sizeof c->why, "cannot start ncu");
        return;
    }
    char line[4096], first_err[200] = "";
    int col_id = -1, col_name = -1, col_val = -1;
    size_t cap = 0;
    while (fgets(line, sizeof line, p)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] != '"') {
            if (!first_err[0] && (strstr(line, "ERR") || strstr(line, "rror")))
                snprintf(first_err, sizeof first_err, "%.199s", line);
            continue;
        }
        char *f[32];
        int nf = csv_split(line, f, 32);
        if (col_id < 0) { /* the header */
            for (int i = 0; i < nf; i++) {
                if (!strcmp(f[i], "ID")) col_id = i;
                if (!strcmp(f[i], "Metric Name")) col_name = i;
                if (!strcmp(f[i], "Metric Value")) col_val = i;
            }
            continue;
        }
        if (col_name < 0 || col_val < 0 || nf <= col_val || nf <= col_id) continue;
        size_t id = (size_t)strtoul(f[col_id], NULL, 10);
        if (id >= cap) {
            size_t nc = cap ? 2 * cap : 256;
            while (nc <= id) nc *= 2;
            double(*v)[2 * NMETRIC] = realloc(c->v, nc * sizeof *v);
            if (!v) break;
            for (size_t i = cap; i < nc; i++)
                for (int m = 0; m < 2 * NMETRIC; m++) v[i][m] = -1;
            c->v = v;
            cap = nc;
        }
        /* every launch reports both sets; each keeps its own slot */
        for (int m = 0; m < NMETRIC; m++) {
            if (!strcmp(f[col_name], global_metrics[m])) c->v[id][m] = parse_value(f[col_val]);
            if (!strcmp(f[col_name], shared_metrics[m]))
                c->v[id][NMETRIC + m] = parse_value(f[col_val]);
        }
        if (id + 1 > c->n) c->n = id + 1;
    }
    int rc = pclose(p);
    if (c->n > 0) c->have = 1;
    else
        snprintf(c->why, sizeof c->why, "ncu gave no counters (exit %d)%s%s", rc,
                 first_err[0] ? ": " : "", first_err);
}

/* Counters of the next launch in profile order, or NULL. */
static const double *next_counters(lab *L)
{
    counters *c = &L->ncu;
    if (!c->have || c->next >= c->n) {
        c->next++;
        return NULL;
    }
    return c->v[c->next++];
}

static void print_counters(lab *L, const bench_table *t, const double (*got)[NMETRIC],
                           const int *has, size_t nrows, int shared)
{
    FILE *f = stdout;
    if (!L->ncu.have) {
        if (L->ncu.why[0]) fprintf(f, "  ncu counters: unavailable (%s)\n", L->ncu.why);
        return;
    }
    fprintf(f, "  ncu counters of %s:\n", t->title);
    if (shared)
        fprintf(f, "  %-26s %12s %12s %14s %14s\n", "kernel", "ld wavefr.", "st wavefr.",
                "ld conflicts", "st conflicts");
    else
        fprintf(f, "  %-26s %9s %9s %12s %12s\n", "kernel", "gld eff", "gst eff", "ld sect/req",
                "st sect/req");
    for (size_t i = 0; i < nrows && i < t->nrows; i++) {
        fprintf(f, "  %-26s", t->rows[i].name);
        for (int m = 0; m < NMETRIC; m++) {
            double v = has[i] ? got[i][m] : -1;
            int w = shared ? (m < 2 ? 12 : 14) : (m < 2 ? 8 : 12);
            if (v < 0) fprintf(f, " %*s", w + (shared || m >= 2 ? 0 : 1), "-");
            else if (shared) fprintf(f, " %*.0f", w, v);
            else if (m < 2) fprintf(f, " %*.1f%%", w, v);
            else fprintf(f, " %*.2f", w, v);
        }
        fputc('\n', f);
    }
}

/* ----------------------------------------------------- the callbacks -- */

static cupat_status f_offset(bench_run *r, void *p)
{
    lab *L = p;
    (void)r;
    return cupat__lab_offset(L->ctx, L->kind, L->a, L->b, L->c, L->n, L->offset, 512);
}
static cupat_status f_aos(bench_run *r, void *p)
{
    lab *L = p;
    (void)r;
    /* a: interleaved input (2n floats), c: interleaved output; SoA uses the
     * halves of the same buffers. */
    return cupat__lab_aos(L->ctx, L->kind, L->n, L->a, L->c, L->a, L->a + L->n, L->c,
                          L->c + L->n);
}
static cupat_status f_copy(bench_run *r, void *p)
{
    lab *L = p;
    (void)r;
    return cupat__lab_copy(L->ctx, L->kind, L->ia, L->ib, L->n);
}
static cupat_status f_smem(bench_run *r, void *p)
{
    lab *L = p;
    (void)r;
    return cupat__lab_smem(L->ctx, L->kind, L->smem_blocks, L->smem_iters, L->smem_out);
}
static cupat_status f_matadd(bench_run *r, void *p)
{
    lab *L = p;
    (void)r;
    return cupat__lab_matadd(L->ctx, L->ma, L->mb, L->mc, L->nx, L->ny);
}
/* Explicit copies: pinned host A, B in; kernel; C back to pinned host. */
static cupat_status f_explicit(bench_run *r, void *p)
{
    lab *L = p;
    (void)r;
    size_t bytes = L->nx * L->ny * sizeof(float);
    cudaStream_t s = L->ctx->stream;
    CUPAT_CUDA_TRY(L->ctx, cudaMemcpyAsync(L->a, L->pin_a, bytes, cudaMemcpyHostToDevice, s));
    CUPAT_CUDA_TRY(L->ctx, cudaMemcpyAsync(L->b, L->pin_b, bytes, cudaMemcpyHostToDevice, s));
    CUPAT_TRY(cupat__lab_matadd(L->ctx, L->a, L->b, L->c, L->nx, L->ny));
    return cupat__cuda(L->ctx, cudaMemcpyAsync(L->pin_c, L->c, bytes, cudaMemcpyDeviceToHost, s),
                       "cudaMemcpyAsync D2H");
}

/* ------------------------------------------- checks (every row has one) -- */

/* Poison what a row writes, so an unwritten element fails (NaN never passes). */
static cupat_status p_poison_c(bench_run *r, void *p)
{
    lab *L = p;
    (void)r;
    return cupat_memset(L->ctx, L->c, 0xFF, 2 * L->n * sizeof(float));
}
static cupat_status p_aos(bench_run *r, void *p)
{
    lab *L = p;
    /* the in-place kind reads c: give it known values */
    if (L->kind == LAB_AOS_ONE) return bench_fill_f32(r, L->c, 2 * L->n, SEED_C, -1.0f, 2.0f);
    return p_poison_c(r, p);
}
static cupat_status p_smem(bench_run *r, void *p)
{
    lab *L = p;
    (void)r;
    return cupat_memset(L->ctx, L->smem_out, 0xFF, (size_t)L->smem_blocks * 1024 * 4);
}
static cupat_status p_matadd(bench_run *r, void *p)
{
    lab *L = p;
    (void)r;
    if (L->mc_host) { /* mapped host memory: poison it from the host */
        CUPAT_TRY(cupat_sync(L->ctx));
        memset(L->mc_host, 0xFF, L->nx * L->ny * sizeof(float));
        return CUPAT_SUCCESS;
    }
    /* C may be device or managed memory: the runtime's memset takes both */
    return cupat__cuda(L->ctx,
                       cudaMemsetAsync(L->mc, 0xFF, L->nx * L->ny * sizeof(float), L->ctx->stream),
                       "cudaMemsetAsync (poison C)");
}
static cupat_status p_explicit(bench_run *r, void *p)
{
    lab *L = p;
    CUPAT_TRY(cupat_sync(L->ctx)); /* no copy into pin_c still queued */
    memset(L->pin_c, 0xFF, L->nx * L->ny * sizeof(float));
    return cupat_memset(L->ctx, L->c, 0xFF, L->nx * L->ny * sizeof(float));
}

/* Expected outputs, element `start` on (relative to the checked range). */
static void e_offset(void *p, size_t start, size_t len, double *e, double *tol)
{
    lab *L = p;
    /* read kinds: c[i] = a[i + off] + b[i + off]; write: c[off + i] = a[i] + b[i],
     * checked from c + off */
    size_t shift = L->kind == LAB_WRITE_OFFSET ? 0 : L->offset;
    for (size_t k = 0; k < len; k++) {
        size_t i = start + k + shift;
        e[k] = (double)(in_a(i) + in_b(i));
        tol[k] = add_tol(e[k]);
    }
}
static void e_aos(void *p, size_t start, size_t len, double *e, double *tol)
{
    lab *L = p;
    size_t n = L->n;
    for (size_t k = 0; k < len; k++) {
        size_t i = start + k;
        float v;
        switch (L->kind) {
        case LAB_AOS:
        case LAB_AOS_F2: v = in_a(i) + (i % 2 ? 20.0f : 10.0f); break; /* {x + 10, y + 20} */
        case LAB_SOA: v = in_a(i) + (i < n ? 10.0f : 20.0f); break;    /* x[], then y[] */
        case LAB_AOS_ONE: v = bench_rand_f32(SEED_C, i | 1, -1.0f, 2.0f); break; /* x = y */
        default: v = in_a(n + i); break; /* SOA_ONE: a[i] = b[i], b = the second half */
        }
        e[k] = (double)v;
        tol[k] = L->kind == LAB_AOS_ONE || L->kind == LAB_SOA_ONE ? 0 : add_tol(e[k]);
    }
}
static void e_copy(void *p, size_t start, size_t len, double *e, double *tol)
{
    (void)p;
    for (size_t k = 0; k < len; k++) { /* the ints carry the float bits of a */
        e[k] = (double)in_a(start + k);
        tol[k] = 0;
    }
}
static void e_matadd(void *p, size_t start, size_t len, double *e, double *tol)
{
    lab *L = p;
    size_t n = L->nx * L->ny;
    for (size_t k = 0; k < len; k++) {
        size_t i = start + k;
        e[k] = L->um_pattern ? (double)(pat(i) + pat(n + i)) : (double)(in_a(i) + in_b(i));
        tol[k] = add_tol(e[k]);
    }
}

static cupat_status c_offset(bench_run *r, void *p, int strict, bench_check *chk)
{
    lab *L = p;
    (void)strict;
    size_t m = L->n - L->offset, base = L->kind == LAB_WRITE_OFFSET ? L->offset : 0;
    return bench_verify_f32(r, L->c + base, m, CHECK_CHUNK, e_offset, L, chk);
}
static cupat_status c_aos(bench_run *r, void *p, int strict, bench_check *chk)
{
    lab *L = p;
    (void)strict;
    size_t count = L->kind == LAB_SOA_ONE ? L->n : 2 * L->n;
    return bench_verify_f32(r, L->c, count, CHECK_CHUNK, e_aos, L, chk);
}
static cupat_status c_copy(bench_run *r, void *p, int strict, bench_check *chk)
{
    lab *L = p;
    (void)strict;
    return bench_verify_f32(r, (const float *)L->ib, L->n, CHECK_CHUNK, e_copy, L, chk);
}
static cupat_status c_matadd(bench_run *r, void *p, int strict, bench_check *chk)
{
    lab *L = p;
    (void)strict;
    return bench_verify_f32(r, L->mc, L->nx * L->ny, L->nx, e_matadd, L, chk);
}
static cupat_status c_explicit(bench_run *r, void *p, int strict, bench_check *chk)
{
    lab *L = p;
    (void)strict; /* what came back to the host, not only what the kernel wrote */
    return bench_verify_f32(r, L->pin_c, L->nx * L->ny, L->nx, e_matadd, L, chk);
}
/* Shared-memory layouts: exact sums of the values each thread read back. */
static cupat_status c_smem(bench_run *r, void *p, int strict, bench_check *chk)
{
    lab *L = p;
    (void)r, (void)strict;
    size_t T = lab_smem_threads(L->kind), n = (size_t)L->smem_blocks * T;
    uint32_t *h = malloc(n * sizeof *h);
    if (!h) return cupat__fail(L->ctx, CUPAT_ERROR_OUT_OF_MEMORY, "lab: out of host memory");
    cupat_status s = cupat_memcpy(L->ctx, h, L->smem_out, n * sizeof *h);
    if (!s) s = cupat_sync(L->ctx);
    size_t wrong = 0, first = 0;
    for (size_t i = 0; !s && i < n; i++)
        if (h[i] != lab_smem_expect(L->kind, (unsigned)(i % T), L->smem_iters) && !wrong++)
            first = i;
    if (!s) {
        chk->checked += n;
        chk->wrong += wrong;
        if (wrong && !chk->msg[0])
            snprintf(chk->msg, sizeof chk->msg,
                     "out[%zu] = %u, expected %u; %zu of %zu wrong", first, h[first],
                     lab_smem_expect(L->kind, (unsigned)(first % T), L->smem_iters), wrong, n);
    }
    free(h);
    return s;
}

/* One row: in the profile pass a single launch; else checked, then measured. */
static cupat_status row(lab *L, bench_table *t, const char *name, const char *technique,
                        bench_fn fn, bench_fn prepare, check_fn check)
{
    if (L->profile) {
        CUPAT_TRY(fn(NULL, L));
        return cupat_sync(L->ctx);
    }
    bench_row *r = bench_table_add(L->run, t, name, BENCH_ROW_CONFIG);
    if (!r) return CUPAT_ERROR_OUT_OF_MEMORY;
    r->technique = technique;
    bench_progress(L->run, "lab access %s: %s", t->title, name);
    bench_measure(L->run, t, r, fn, prepare, check, 1, L);
    return CUPAT_SUCCESS;
}

static bench_table *begin(lab *L, const char *title, const char *label, double bytes,
                          const char *note)
{
    if (L->profile) return NULL;
    bench_table *t = bench_table_begin(L->run, "lab", title, label, bytes, 0, BENCH_BOUND_COPY);
    if (t) t->note = note;
    return t;
}

/* End a table and print the counters of its launches (profile order). */
static void end(lab *L, bench_table *t, size_t first_launch, int shared)
{
    if (L->profile || !t) return;
    bench_table_end(L->run, t);
    size_t nr = t->nrows;
    double(*got)[NMETRIC] = calloc(nr ? nr : 1, sizeof *got);
    int *has = calloc(nr ? nr : 1, sizeof *has);
    if (got && has) {
        L->ncu.next = first_launch;
        for (size_t i = 0; i < nr; i++) {
            const double *v = next_counters(L);
            if (v) memcpy(got[i], v + (shared ? NMETRIC : 0), sizeof got[i]), has[i] = 1;
        }
        print_counters(L, t, (const double(*)[NMETRIC])got, has, nr, shared);
    }
    free(got);
    free(has);
}

/* ------------------------------------------------------ experiments -- */

static cupat_status exp_offset(lab *L, size_t *launch)
{
    static const char *const title[3] = {"readOffset (PCCP 4.3)", "writeOffset (PCCP 4.3)",
                                         "readOffsetUnroll4 (PCCP 4.3)"};
    static const int kinds[3] = {LAB_READ_OFFSET, LAB_WRITE_OFFSET, LAB_READ_OFFSET_UNROLL4};
    static char names[MAX_OFFSET + 1][16];
    char label[96], cnt[32];
    snprintf(label, sizeof label, "n=%s f32, c = a + b, 512 threads a block",
             bench_fmt_count(cnt, sizeof cnt, L->n));
    for (int k = 0; k < 3; k++) {
        bench_table *t = begin(L, title[k], label, 12.0 * (double)L->n,
                               "offset in floats; the bytes model counts n elements a "
                               "stream (offset <= 33 changes it by < 0.1%)");
        if (!L->profile && !t) return CUPAT_ERROR_OUT_OF_MEMORY;
        size_t first = *launch;
        L->kind = kinds[k];
        for (int o = 0; o <= MAX_OFFSET; o++) {
            snprintf(names[o], sizeof names[o], "offset %d", o);
            L->offset = (size_t)o;
            CUPAT_TRY(row(L, t, names[o], NULL, f_offset, p_poison_c, c_offset));
            (*launch)++;
        }
        end(L, t, first, 0);
    }
    return CUPAT_SUCCESS;
}

static cupat_status exp_aos(lab *L, size_t *launch)
{
    char label[96], cnt[32];
    snprintf(label, sizeof label, "n=%s points of two floats", bench_fmt_count(cnt, sizeof cnt, L->n));
    bench_table *t = begin(L, "AoS vs SoA, both fields", label, 16.0 * (double)L->n,
                           "every byte of both layouts is used: the same DRAM traffic");
    if (!L->profile && !t) return CUPAT_ERROR_OUT_OF_MEMORY;
    size_t first = *launch;
    static const struct {
        int kind;
        const char *name, *tech;
    } both[] = {
        {LAB_AOS, "AoS struct{x,y}", "two 4-byte accesses a thread, 8 bytes apart"},
        {LAB_AOS_F2, "AoS float2", "one 8-byte access a thread (8-byte aligned type)"},
        {LAB_SOA, "SoA x[], y[]", "two coalesced 4-byte streams"},
    }, one[] = {
        {LAB_AOS_ONE, "AoS X[i].a = X[i].b", "lecture 10: one field of each struct"},
        {LAB_SOA_ONE, "SoA a[i] = b[i]", "the same field as its own array"},
    };
    for (size_t i = 0; i < 3; i++) {
        L->kind = both[i].kind;
        CUPAT_TRY(row(L, t, both[i].name, both[i].tech, f_aos, p_aos, c_aos));
        (*launch)++;
    }
    end(L, t, first, 0);
    t = begin(L, "AoS vs SoA, one field (lecture 10)", label, 8.0 * (double)L->n,
              "bytes model: the field read and the field written (4 + 4 bytes a point); "
              "AoS moves both fields through DRAM");
    if (!L->profile && !t) return CUPAT_ERROR_OUT_OF_MEMORY;
    first = *launch;
    for (size_t i = 0; i < 2; i++) {
        L->kind = one[i].kind;
        CUPAT_TRY(row(L, t, one[i].name, one[i].tech, f_aos, p_aos, c_aos));
        (*launch)++;
    }
    end(L, t, first, 0);
    return CUPAT_SUCCESS;
}

static cupat_status exp_copy(lab *L, size_t *launch)
{
    char label[96], cnt[32];
    snprintf(label, sizeof label, "n=%s ints", bench_fmt_count(cnt, sizeof cnt, L->n));
    bench_table *t = begin(L, "copy kernels (PCCP 4.3)", label, 8.0 * (double)L->n, NULL);
    if (!L->profile && !t) return CUPAT_ERROR_OUT_OF_MEMORY;
    size_t first = *launch;
    static const struct {
        int kind;
        const char *name, *tech;
    } k[] = {
        {LAB_COPY, "copyKernel", "plain int * pointers (may alias)"},
        {LAB_COPY_LDG, "copyKernelVersion2", "__ldg: the read-only data path"},
        {LAB_COPY_RESTRICT, "copyKernelVersion3", "const int *__restrict__: no aliasing"},
    };
    for (size_t i = 0; i < 3; i++) {
        L->kind = k[i].kind;
        CUPAT_TRY(row(L, t, k[i].name, k[i].tech, f_copy, p_poison_c, c_copy));
        (*launch)++;
    }
    end(L, t, first, 0);
    return CUPAT_SUCCESS;
}

static cupat_status exp_smem(lab *L, size_t *launch)
{
    static const char *const tech[LAB_SMEM_COUNT] = {
        "32x32 tile[ty][tx] written and read: conflict-free",
        "tile[tx][ty] both ways: a warp hits one bank (32-way)",
        "write rows, read columns: 32-way conflicts on the read",
        "the same in dynamic shared memory (1D index)",
        "one pad word a row: columns spread over 32 banks",
        "padded, dynamic",
        "tile declared at file scope",
        "rectangular 16 rows x 32: conflict-free",
        "rectangular, read the transposed element: 16-way",
        "rectangular, dynamic",
        "rectangular, 2 pad words a row: conflict-free",
        "rectangular, padded, dynamic",
    };
    char label[96];
    snprintf(label, sizeof label, "%u blocks x %d iterations (write, sync, read, sync)",
             L->smem_blocks, L->smem_iters);
    /* Bytes: one shared write and one shared read a thread an iteration; a
     * rectangular block has half the threads, so its GB/s is comparable. */
    bench_table *t = begin(L, "shared-memory layouts (PCCP 5.2)", label,
                           8.0 * 1024 * (double)L->smem_blocks * L->smem_iters,
                           "GB/s counts shared-memory traffic of the square kernels (the "
                           "rectangular ones move half): compare times within a shape; "
                           "% of the DRAM copy ceiling is for scale only");
    if (!L->profile && !t) return CUPAT_ERROR_OUT_OF_MEMORY;
    size_t first = *launch;
    for (int k = 0; k < LAB_SMEM_COUNT; k++) {
        L->kind = k;
        CUPAT_TRY(row(L, t, lab_smem_names[k], tech[k], f_smem, p_smem, c_smem));
        (*launch)++;
    }
    end(L, t, first, 1);
    return CUPAT_SUCCESS;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Managed memory, touched by the host before every call: the kernel's page
 * faults migrate A and B back. Timed by hand (host touch excluded). */
static cupat_status managed_first_touch(lab *L, bench_table *t, float *m, size_t n)
{
    bench_row *r = bench_table_add(L->run, t, "managed, host-touched", BENCH_ROW_CONFIG);
    if (!r) return CUPAT_ERROR_OUT_OF_MEMORY;
    r->technique = "host writes A, B before each call: on-demand page migration";
    enum { REPS = 7 };
    double ms[REPS];
    cudaEvent_t e0, e1;
    CUPAT_CUDA_TRY(L->ctx, cudaEventCreate(&e0));
    CUPAT_CUDA_TRY(L->ctx, cudaEventCreate(&e1));
    cupat_status s = cupat_sync(L->ctx);
    /* Poison C from the host: every call must overwrite all of it (checked
     * after the last one). */
    if (!s) memset(m + 2 * n, 0xFF, n * sizeof(float));
    for (int i = 0; i < REPS && !s; i++) {
        for (size_t k = 0; k < 2 * n; k += 1024) m[k] += 0.0f; /* one write a page or so */
        L->ma = m, L->mb = m + n, L->mc = m + 2 * n;
        s = cupat__cuda(L->ctx, cudaEventRecord(e0, L->ctx->stream), "cudaEventRecord");
        if (!s) s = f_matadd(NULL, L);
        if (!s) s = cupat__cuda(L->ctx, cudaEventRecord(e1, L->ctx->stream), "cudaEventRecord");
        if (!s) s = cupat__cuda(L->ctx, cudaEventSynchronize(e1), "cudaEventSynchronize");
        float f = 0;
        if (!s) s = cupat__cuda(L->ctx, cudaEventElapsedTime(&f, e0, e1), "cudaEventElapsedTime");
        ms[i] = f;
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    if (s) {
        r->verdict = BENCH_ERROR;
        snprintf(r->message, sizeof r->message, "%s", cupat_last_error(L->ctx));
        return CUPAT_SUCCESS;
    }
    bench_check chk = {0};
    L->um_pattern = 1;
    s = c_matadd(L->run, L, 1, &chk);
    if (s) {
        r->verdict = BENCH_ERROR;
        snprintf(r->message, sizeof r->message, "check: %s", cupat_last_error(L->ctx));
        return CUPAT_SUCCESS;
    }
    r->verdict = chk.wrong ? BENCH_FAIL : BENCH_OK;
    if (chk.wrong) snprintf(r->message, sizeof r->message, "%s", chk.msg);
    qsort(ms, REPS, sizeof ms[0], cmp_d);
    r->reps = REPS;
    r->ms = ms[REPS / 2];
    r->ms_min = ms[0];
    r->ms_max = ms[REPS - 1];
    return CUPAT_SUCCESS;
}

static cupat_status exp_um(lab *L, size_t *launch)
{
    size_t n = L->nx * L->ny, bytes = n * sizeof(float);
    char label[96];
    snprintf(label, sizeof label, "%zux%zu f32, C = A + B, 32x32 blocks", L->ny, L->nx);
    bench_table *t = begin(L, "matrix addition and host memory (PCCP 4.2, 4.5)", label,
                           3.0 * (double)bytes,
                           "explicit copies: pinned H2D of A and B, kernel, D2H of C, all "
                           "in the time; zero-copy: the kernel reads and writes host memory "
                           "over the bus");
    if (!L->profile && !t) return CUPAT_ERROR_OUT_OF_MEMORY;
    size_t first = *launch;
    cupat_status s = CUPAT_SUCCESS;
    float *m = NULL, *z = NULL, *zd = NULL;

    /* 1. device memory (the lab's a, b, c buffers hold >= n floats) */
    L->ma = L->a, L->mb = L->b, L->mc = L->c;
    L->um_pattern = 0;
    s = row(L, t, "device memory", "cudaMalloc: the kernel alone", f_matadd, p_matadd, c_matadd);
    (*launch)++;
    /* 2. explicit copies around it (every row launches lab_matadd once: the
     * ncu pass maps rows to launches by order) */
    if (!s) s = cupat__cuda(L->ctx, cudaMallocHost((void **)&L->pin_a, 3 * bytes), "cudaMallocHost");
    if (!s) {
        L->pin_b = L->pin_a + n, L->pin_c = L->pin_a + 2 * n;
        for (size_t k = 0; k < 2 * n; k++) L->pin_a[k] = pat(k);
        L->um_pattern = 1;
        s = row(L, t, "explicit copies", "pinned cudaMemcpy H2D, kernel, D2H", f_explicit,
                p_explicit, c_explicit);
        cupat_sync(L->ctx);
        cudaFreeHost(L->pin_a);
        L->pin_a = NULL;
        (*launch)++;
    }
    /* 3-4. managed: resident after a prefetch; then host-touched every call */
    if (!s) s = cupat__cuda(L->ctx, cudaMallocManaged((void **)&m, 3 * bytes, cudaMemAttachGlobal),
                            "cudaMallocManaged");
    if (!s) {
        for (size_t k = 0; k < 2 * n; k++) m[k] = pat(k);
        struct cudaMemLocation loc = {cudaMemLocationTypeDevice, cupat_get_device(L->ctx)};
        cudaError_t e = cudaMemPrefetchAsync(m, 3 * bytes, loc, 0, L->ctx->stream);
        if (e != cudaSuccess) (void)cudaGetLastError(); /* no prefetch: first call migrates */
        L->ma = m, L->mb = m + n, L->mc = m + 2 * n;
        L->um_pattern = 1;
        s = row(L, t, "managed, resident", "cudaMallocManaged, prefetched to the GPU", f_matadd,
                p_matadd, c_matadd);
        (*launch)++;
        if (!s && !L->profile) s = managed_first_touch(L, t, m, n);
        if (L->profile && !s) { /* profile the same launches: one host-touched call */
            for (size_t k = 0; k < 2 * n; k += 1024) m[k] += 0.0f;
            s = row(L, t, "managed, host-touched", NULL, f_matadd, NULL, NULL);
        }
        (*launch)++;
    }
    /* 5. zero-copy: mapped pinned host memory */
    if (!s) s = cupat__cuda(L->ctx, cudaHostAlloc((void **)&z, 3 * bytes, cudaHostAllocMapped),
                            "cudaHostAlloc(mapped)");
    if (!s) s = cupat__cuda(L->ctx, cudaHostGetDevicePointer((void **)&zd, z, 0),
                            "cudaHostGetDevicePointer");
    if (!s) {
        for (size_t k = 0; k < 2 * n; k++) z[k] = pat(k);
        L->ma = zd, L->mb = zd + n, L->mc = zd + 2 * n;
        L->mc_host = z + 2 * n;
        s = row(L, t, "zero-copy", "cudaHostAllocMapped: every access crosses the bus", f_matadd,
                p_matadd, c_matadd);
        (*launch)++;
    }
    cupat_sync(L->ctx);
    L->mc_host = NULL;
    if (m) cudaFree(m);
    if (z) cudaFreeHost(z);
    end(L, t, first, 0);
    return s;
}

/* ------------------------------------------------------------ command -- */

int cmd_lab(int argc, char **argv)
{
    const char *nstr = NULL;
    long reps = 0, device = -1;
    int want[NEXP] = {0}, any = 0, use_ncu = 0, profile = 0, sub = 0;
    /* Topics with a command of their own. */
    for (size_t t = 0; argc > 1 && t < NTOPICS; t++)
        if (topics[t].fn && !strcmp(argv[1], topics[t].name))
            return topics[t].fn(argc - 1, argv + 1);
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        int r;
        if (cli_is_help(argv[i])) { /* before a topic: the list of them */
            if (sub) usage(stdout);
            else lab_usage(stdout);
            return 0;
        }
        if ((r = cli_opt(argc, argv, &i, "--n", &v, CMD)) != 0) {
            if (r < 0) return 2;
            nstr = v;
            continue;
        }
        if ((r = cli_opt(argc, argv, &i, "--reps", &v, CMD)) != 0) {
            if (r < 0 || cli_parse_int(CMD, "--reps", v, 1, 10000, &reps)) return 2;
            continue;
        }
        if ((r = cli_opt(argc, argv, &i, "--device", &v, CMD)) != 0) {
            if (r < 0 || cli_parse_int(CMD, "--device", v, 0, 1023, &device)) return 2;
            continue;
        }
        if (!strcmp(argv[i], "--ncu")) use_ncu = 1;
        else if (!strcmp(argv[i], "--profile")) profile = 1; /* internal: the ncu pass */
        else if (!sub && !strcmp(argv[i], "access")) sub = 1;
        else if (sub && argv[i][0] != '-') {
            int e = 0;
            if (!strcmp(argv[i], "all")) {
                for (e = 0; e < NEXP; e++) want[e] = 1;
                any = 1;
                continue;
            }
            for (e = 0; e < NEXP && strcmp(argv[i], exp_names[e]); e++) {}
            if (e == NEXP) {
                fprintf(stderr, "%s: unknown experiment '%s' (offset, aos, copy, smem, um, all)\n",
                        CMD, argv[i]);
                return 2;
            }
            want[e] = any = 1;
        } else return cli_unknown(CMD, argv[i]);
    }
    if (!sub) {
        fprintf(stderr, "%s: which lab? (", CMD);
        for (size_t t = 0; t < NTOPICS; t++)
            fprintf(stderr, "%s'%scupat lab %s'", t == 0 ? "" : t + 1 < NTOPICS ? ", " : " or ",
                    strcmp(topics[t].name, "multi") ? "" : "mpirun -np 2 ", topics[t].name);
        fprintf(stderr, "; try '%s --help')\n", CMD);
        return 2;
    }
    if (!any)
        for (int e = 0; e < NEXP; e++) want[e] = 1;
    size_t n = profile ? (size_t)1 << 22 : (size_t)1 << 26;
    if (nstr) {
        bench_size bs;
        char err[160];
        if (bench_parse_size(nstr, &bs, err, sizeof err)) {
            fprintf(stderr, "%s: --n %s\n", CMD, err);
            return 2;
        }
        if (bs.n < 4096) {
            fprintf(stderr, "%s: --n %s: need at least 4096 elements\n", CMD, nstr);
            return 2;
        }
        n = bs.n;
    }
    const char *why = cli_no_cuda_reason();
    if (why) {
        fprintf(stderr, "%s: the access experiments need a GPU: %s\n", CMD, why);
        return 1;
    }
    cupat_ctx *ctx = cli_context(CUPAT_BACKEND_CUDA, (int)device);
    if (!ctx) return 1;

    lab L;
    memset(&L, 0, sizeof L);
    L.ctx = ctx;
    L.n = n;
    L.profile = profile;
    L.nx = L.ny = 4096;
    while (L.nx * L.ny > n && L.nx > 64) L.nx /= 2, L.ny /= 2;
    L.smem_blocks = (unsigned)(ctx->sm_count > 0 ? ctx->sm_count : 1) * 64;
    L.smem_iters = 256;
    if (profile) L.smem_blocks = 1, L.smem_iters = 1;
    if (use_ncu && !profile) run_ncu(&L, want, nstr);

    bench_run run;
    bench_options opt = {.reps = (int)reps, .progress = isatty(fileno(stderr)), .out = stdout};
    cupat_status s = CUPAT_SUCCESS;
    if (!profile) {
        if (opt.progress) fprintf(stderr, "measuring the ceilings...");
        s = bench_run_init(&run, ctx, &opt);
        if (opt.progress) fprintf(stderr, "\r\033[K");
        if (s) {
            fprintf(stderr, "%s: setting up: %s\n", CMD, cupat_last_error(ctx));
            cupat_destroy(ctx);
            return 1;
        }
        L.run = &run;
        bench_print_header(&run, stdout);
        if (!use_ncu)
            printf("(add --ncu for load/store efficiency and bank-conflict counters)\n");
    }
    /* Buffers: 2n floats each for a (input) and c (output), n for b; ints alias
     * a and c. Filled with non-zero values once. */
    size_t fb = 2 * n * sizeof(float);
    if (!s) s = cupat_malloc(ctx, (void **)&L.a, fb);
    if (!s) s = cupat_malloc(ctx, (void **)&L.b, fb);
    if (!s) s = cupat_malloc(ctx, (void **)&L.c, fb);
    if (!s) s = cupat_malloc(ctx, (void **)&L.smem_out, (size_t)L.smem_blocks * 1024 * 4);
    if (!s && !profile) s = bench_fill_f32(&run, L.a, 2 * n, SEED_A, -1.0f, 2.0f);
    if (!s && !profile) s = bench_fill_f32(&run, L.b, 2 * n, SEED_B, -1.0f, 2.0f);
    if (!s && profile) s = cupat_memset(ctx, L.a, 0x3F, fb); /* counters only: any values */
    if (!s && profile) s = cupat_memset(ctx, L.b, 0x3F, fb);
    L.ia = (int *)L.a;
    L.ib = (int *)L.c;
    size_t launch = 0;
    if (!s && want[EXP_OFFSET]) s = exp_offset(&L, &launch);
    if (!s && want[EXP_AOS]) s = exp_aos(&L, &launch);
    if (!s && want[EXP_COPY]) s = exp_copy(&L, &launch);
    if (!s && want[EXP_SMEM]) s = exp_smem(&L, &launch);
    if (!s && want[EXP_UM]) s = exp_um(&L, &launch);
    if (s) fprintf(stderr, "%s: %s\n", CMD, cupat_last_error(ctx));
    cupat_sync(ctx);
    cupat_free(ctx, L.a);
    cupat_free(ctx, L.b);
    cupat_free(ctx, L.c);
    cupat_free(ctx, L.smem_out);
    free(L.ncu.v);
    int failed = !profile && run.failures;
    if (!profile) bench_run_free(&run);
    cupat_destroy(ctx);
    return s || failed ? 1 : 0;
}
