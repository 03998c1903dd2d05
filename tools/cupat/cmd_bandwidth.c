/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_bandwidth.c — `cupat bandwidth`: host<->device transfer rates over a
 * size sweep for each kind of host memory PCCP 4.2 and the "Advanced
 * Techniques" lecture describe (pageable, pinned, write-combined pinned,
 * mapped zero-copy, managed), and device-to-device for scale. */
#define _GNU_SOURCE /* sysconf page counts */
#include "bandwidth.h"
#include "cli.h"
#include "commands.h"

#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char CMD[] = "cupat bandwidth";

enum kind {
    PAGE_H2D, PAGE_D2H, PIN_H2D, PIN_D2H, WC_H2D, WC_D2H,
    ZC_READ, ZC_WRITE, MAN_FAULT, MAN_PREFETCH, D2D, NKINDS
};
enum group { G_PAGEABLE, G_PINNED, G_WC, G_ZEROCOPY, G_MANAGED, G_DEVICE, NGROUPS };

static const struct {
    const char *title;
    int first, count;
} groups[NGROUPS] = {
    {"pageable", PAGE_H2D, 2}, {"pinned", PIN_H2D, 2},   {"pinned WC", WC_H2D, 2},
    {"zero-copy", ZC_READ, 2}, {"managed", MAN_FAULT, 2}, {"device", D2D, 1},
};
static const char *const kind_label[NKINDS] = {"H2D",  "D2H",  "H2D",   "D2H",      "H2D", "D2H",
                                               "read", "write", "fault", "prefetch", "D2D"};

#define MAXSIZES 16
#define MAXREPS 99
#define CELL_NA (-1.0)  /* not supported on this device / system */
#define CELL_ERR (-2.0) /* not measured: a CUDA call failed */

typedef struct sweep {
    int dev, blocks, reps;
    cudaStream_t s;
    cudaEvent_t e0, e1;
    void *dbuf; /* device buffer every copy kind moves to / from */
    size_t sizes[MAXSIZES], max;
    int nsizes;
    double gbs[MAXSIZES][NKINDS];
    double host_pin_gbs, host_wc_gbs; /* CPU reading pinned / WC memory */
    size_t host_read_bytes;
    const char *what; /* the CUDA call that failed */
    int failed, sticky;
} sweep;

typedef struct bufs {
    void *host;   /* the group's host-side (or managed) allocation */
    void *mapped; /* its device pointer (zero-copy) */
    void *dev2;   /* second device buffer (D2D) */
} bufs;

#define CK(w, call)                                                                      \
    do {                                                                                 \
        cudaError_t e_ = (call);                                                         \
        if (e_ != cudaSuccess) {                                                         \
            (w)->what = #call;                                                           \
            return e_;                                                                   \
        }                                                                                \
    } while (0)

static void usage(void)
{
    printf("Usage: cupat bandwidth [--sizes small|full] [--max SIZE] [--reps N] [--device N]\n"
           "\n"
           "Host<->device transfer rates in GB/s over sizes 4 KiB, 16 KiB, ... (powers of 4)\n"
           "for each kind of host memory (PCCP 4.2):\n"
           "  pageable   malloc'd memory; the driver stages it through a pinned buffer\n"
           "  pinned     cudaMallocHost; DMA straight from / to it\n"
           "  pinned WC  cudaHostAlloc(cudaHostAllocWriteCombined): no host caching, so\n"
           "             the link may go faster, but host reads of it are slow\n"
           "  zero-copy  cudaHostAlloc(cudaHostAllocMapped): a kernel reads / writes host\n"
           "             memory in place through cudaHostGetDevicePointer\n"
           "  managed    cudaMallocManaged, written by the host then read by a kernel:\n"
           "             pages migrate on fault, or in bulk after cudaMemPrefetchAsync\n"
           "  device     device-to-device cudaMemcpy (bytes read + written)\n"
           "Copies use cudaMemcpyAsync (H2D and D2H); each figure is the median of\n"
           "several runs timed with CUDA events after a warm-up. Needs a CUDA device;\n"
           "without one it says so and exits 0.\n"
           "\n"
           "Options:\n"
           "  --sizes S    full (default: up to 256 MiB) or small (up to 4 MiB, quick)\n"
           "  --max SIZE   largest size (e.g. 64M, 1G); capped by free memory\n"
           "  --reps N     timed runs per figure (default 7, small: 5)\n"
           "  --device N   CUDA device index (default: the current device, 0)\n"
           "  --backend B  auto or cuda (cpu: nothing to measure)\n"
           "  -h, --help   this text\n");
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int is_managed(int k) { return k == MAN_FAULT || k == MAN_PREFETCH; }

/* Queue one transfer of `bytes` of kind k. */
static cudaError_t enqueue(sweep *w, int k, const bufs *b, size_t bytes)
{
    switch (k) {
    case PAGE_H2D: case PIN_H2D: case WC_H2D:
        CK(w, cudaMemcpyAsync(w->dbuf, b->host, bytes, cudaMemcpyHostToDevice, w->s));
        break;
    case PAGE_D2H: case PIN_D2H: case WC_D2H:
        CK(w, cudaMemcpyAsync(b->host, w->dbuf, bytes, cudaMemcpyDeviceToHost, w->s));
        break;
    case ZC_READ: CK(w, bench_bw_read(b->mapped, bytes, w->blocks, w->s)); break;
    case ZC_WRITE: CK(w, bench_bw_write(b->mapped, bytes, 0xA5, w->blocks, w->s)); break;
    case MAN_FAULT: CK(w, bench_bw_read(b->host, bytes, w->blocks, w->s)); break;
    case MAN_PREFETCH: {
        struct cudaMemLocation to = {cudaMemLocationTypeDevice, w->dev};
        CK(w, cudaMemPrefetchAsync(b->host, bytes, to, 0, w->s));
        CK(w, bench_bw_read(b->host, bytes, w->blocks, w->s));
        break;
    }
    case D2D:
        CK(w, cudaMemcpyAsync(b->dev2, w->dbuf, bytes, cudaMemcpyDeviceToDevice, w->s));
        break;
    }
    return cudaSuccess;
}

/* Median rate of kind k at `bytes`. Small transfers are batched between one
 * pair of events so the figure is not the events' resolution. */
static cudaError_t time_kind(sweep *w, int k, const bufs *b, size_t bytes, double *gbs)
{
    size_t inner = is_managed(k) ? 1 : ((size_t)4 << 20) / bytes;
    if (inner < 1) inner = 1;
    if (inner > 64) inner = 64;
    double ms[MAXREPS];
    for (int r = -1; r < w->reps; r++) { /* r = -1: warm-up */
        /* Each managed run starts from pages the host just wrote (so they
         * live on the host), as in PCCP 4.5's initialise-then-launch. */
        if (is_managed(k)) memset(b->host, 0x11 + (r & 0x3f), bytes);
        CK(w, cudaEventRecord(w->e0, w->s));
        for (size_t j = 0; j < inner; j++) {
            cudaError_t e = enqueue(w, k, b, bytes);
            if (e != cudaSuccess) return e;
        }
        CK(w, cudaEventRecord(w->e1, w->s));
        CK(w, cudaEventSynchronize(w->e1));
        float t = 0.0f;
        CK(w, cudaEventElapsedTime(&t, w->e0, w->e1));
        if (r >= 0) ms[r] = t;
    }
    qsort(ms, (size_t)w->reps, sizeof ms[0], cmp_double);
    double med = w->reps % 2 ? ms[w->reps / 2] : 0.5 * (ms[w->reps / 2 - 1] + ms[w->reps / 2]);
    double moved = (double)bytes * (double)inner * (k == D2D ? 2.0 : 1.0);
    *gbs = med > 0.0 ? moved / (med * 1e-3) / 1e9 : CELL_NA;
    return cudaSuccess;
}

static cudaError_t alloc_group(sweep *w, int g, bufs *b)
{
    size_t n = w->max;
    switch (g) {
    case G_PAGEABLE:
        if (!(b->host = aligned_alloc(4096, n))) {
            w->what = "aligned_alloc (pageable host buffer)";
            return cudaErrorMemoryAllocation;
        }
        break;
    case G_PINNED: CK(w, cudaMallocHost(&b->host, n)); break;
    case G_WC: CK(w, cudaHostAlloc(&b->host, n, cudaHostAllocWriteCombined)); break;
    case G_ZEROCOPY:
        CK(w, cudaHostAlloc(&b->host, n, cudaHostAllocMapped));
        /* Under UVA this is the host pointer itself; ask anyway (PCCP 4.2). */
        CK(w, cudaHostGetDevicePointer(&b->mapped, b->host, 0));
        break;
    case G_MANAGED: CK(w, cudaMallocManaged(&b->host, n, cudaMemAttachGlobal)); break;
    case G_DEVICE: CK(w, cudaMalloc(&b->dev2, n)); break;
    }
    /* Real bytes, and host pages that exist before any timing. */
    if (b->host) memset(b->host, 0x5A, n);
    return cudaSuccess;
}

static cudaError_t free_group(sweep *w, int g, bufs *b)
{
    cudaError_t e = cudaSuccess;
    switch (g) {
    case G_PAGEABLE: free(b->host); break;
    case G_PINNED: case G_WC: case G_ZEROCOPY:
        if (b->host && (e = cudaFreeHost(b->host)) != cudaSuccess) w->what = "cudaFreeHost";
        break;
    case G_MANAGED:
        if (b->host && (e = cudaFree(b->host)) != cudaSuccess) w->what = "cudaFree (managed)";
        break;
    case G_DEVICE:
        if (b->dev2 && (e = cudaFree(b->dev2)) != cudaSuccess) w->what = "cudaFree";
        break;
    }
    memset(b, 0, sizeof *b);
    return e;
}

static void report(sweep *w, cudaError_t e, size_t at)
{
    char sz[32];
    (void)cudaGetLastError();
    fprintf(stderr, "%s: %s failed%s%s: %s (%s)\n", CMD, w->what, at ? " at " : "",
            at ? cli_bytes(sz, sizeof sz, (double)at) : "", cudaGetErrorString(e),
            cudaGetErrorName(e));
    w->failed = 1;
    /* A sticky error (a faulting kernel) poisons the context: stop there. */
    if (cudaDeviceSynchronize() != cudaSuccess) w->sticky = 1;
}

static void run_group(sweep *w, int g)
{
    bufs b = {0};
    size_t at = 0;
    cudaError_t e = alloc_group(w, g, &b);
    for (int i = 0; e == cudaSuccess && i < w->nsizes; i++)
        for (int k = groups[g].first; e == cudaSuccess && k < groups[g].first + groups[g].count;
             k++) {
            if (w->gbs[i][k] == CELL_NA) continue;
            at = w->sizes[i];
            e = time_kind(w, k, &b, w->sizes[i], &w->gbs[i][k]);
        }
    if (e != cudaSuccess) report(w, e, at);
    if (w->sticky) return; /* freeing would only fail again */
    e = free_group(w, g, &b);
    if (e != cudaSuccess) report(w, e, 0);
}

static double now_s(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static volatile uint64_t host_sink;

/* Host read rate of a buffer (best of 2 passes of a summing loop). */
static double host_read_gbs(const void *p, size_t bytes)
{
    const uint64_t *q = p;
    double best = 1e30;
    for (int r = 0; r < 2; r++) {
        uint64_t acc = 0;
        double t0 = now_s();
        for (size_t i = 0; i < bytes / 8; i++) acc += q[i];
        double t = now_s() - t0;
        host_sink = acc;
        if (t < best) best = t;
    }
    return best > 0.0 ? (double)bytes / best / 1e9 : 0.0;
}

/* What PCCP and the lecture say about WC: cheap for the link, slow for host
 * reads. Measured on pinned vs write-combined buffers of the same size. */
static void host_reads(sweep *w)
{
    size_t n = w->max < ((size_t)8 << 20) ? w->max : (size_t)8 << 20;
    void *pin = NULL, *wc = NULL;
    cudaError_t e;
    if ((e = cudaMallocHost(&pin, n)) != cudaSuccess) {
        w->what = "cudaMallocHost";
        report(w, e, n);
        return;
    }
    if ((e = cudaHostAlloc(&wc, n, cudaHostAllocWriteCombined)) != cudaSuccess) {
        w->what = "cudaHostAlloc(cudaHostAllocWriteCombined)";
        report(w, e, n);
        cudaFreeHost(pin);
        return;
    }
    memset(pin, 0x5A, n);
    memset(wc, 0x5A, n);
    w->host_pin_gbs = host_read_gbs(pin, n);
    w->host_wc_gbs = host_read_gbs(wc, n);
    w->host_read_bytes = n;
    if ((e = cudaFreeHost(wc)) != cudaSuccess || (e = cudaFreeHost(pin)) != cudaSuccess) {
        w->what = "cudaFreeHost";
        report(w, e, 0);
    }
}

static void print_cell(double v)
{
    if (v == CELL_NA) printf(" %8s", "n/a");
    else if (v == CELL_ERR) printf(" %8s", "err");
    else if (v >= 1000.0) printf(" %8.0f", v);
    else if (v >= 10.0) printf(" %8.1f", v);
    else printf(" %8.2f", v);
}

static void print_table(const sweep *w)
{
    char sz[32];
    printf("%8s", "");
    for (int g = 0; g < NGROUPS; g++)
        printf(" %-*s", g + 1 < NGROUPS ? groups[g].count * 9 - 1 : 0, groups[g].title);
    printf("\n%8s", "size");
    for (int k = 0; k < NKINDS; k++) printf(" %8s", kind_label[k]);
    putchar('\n');
    for (int i = 0; i < w->nsizes; i++) {
        printf("%8s", cli_bytes(sz, sizeof sz, (double)w->sizes[i]));
        for (int k = 0; k < NKINDS; k++) print_cell(w->gbs[i][k]);
        putchar('\n');
    }
}

/* "here:" num/den at the largest (or smallest) size where both figures exist. */
static void ratio(const sweep *w, int num, int den, const char *label, int smallest, int *first)
{
    for (int j = 0; j < w->nsizes; j++) {
        int i = smallest ? j : w->nsizes - 1 - j;
        if (w->gbs[i][num] > 0.0 && w->gbs[i][den] > 0.0) {
            char sz[32];
            printf("%s%s%s%.2fx at %s", *first ? "" : ", ", label, *label ? " " : "",
                   w->gbs[i][num] / w->gbs[i][den], cli_bytes(sz, sizeof sz, (double)w->sizes[i]));
            *first = 0;
            return;
        }
    }
}

static void print_notes(const sweep *w)
{
    int first = 1;
    printf("GB/s = bytes moved / median time (D2D: bytes read + written); n/a: not supported "
           "here; err: a CUDA call failed (see stderr)\n");
    if (w->host_read_bytes) {
        char sz[32];
        printf("host reads of %s (CPU loop): pinned %.2f GB/s, write-combined %.2f GB/s\n",
               cli_bytes(sz, sizeof sz, (double)w->host_read_bytes), w->host_pin_gbs,
               w->host_wc_gbs);
    }
    printf("here: ");
    ratio(w, PIN_H2D, PAGE_H2D, "pinned/pageable H2D", 0, &first);
    ratio(w, PIN_D2H, PAGE_D2H, "D2H", 0, &first);
    ratio(w, ZC_READ, PIN_H2D, "zero-copy read/pinned H2D", 1, &first);
    ratio(w, ZC_READ, PIN_H2D, "", 0, &first);
    ratio(w, MAN_PREFETCH, MAN_FAULT, "managed prefetch/fault", 0, &first);
    printf("%s\n", first ? "nothing to compare" : "");
    printf("theory (PCCP 4.2, lecture \"Advanced Techniques\"): pinned beats pageable (no "
           "staging copy); write-combined may cross the link faster but host reads of it are "
           "slow; zero-copy pays the link on every access, so it suits small or touched-once "
           "data; managed memory read in place pays page faults unless prefetched.\n");
}

int cmd_bandwidth(int argc, char **argv)
{
    cupat_backend backend = CUPAT_BACKEND_AUTO;
    long device = -1, reps = 0;
    size_t max = 0;
    int small = 0;
    for (int i = 1; i < argc; i++)
        if (cli_is_help(argv[i])) {
            usage();
            return 0;
        }
    for (int i = 1; i < argc; i++) {
        int common = cli_backend_opt(argc, argv, &i, CMD, &backend, &device);
        if (common) {
            if (common == 2) return 2;
            continue;
        }
        const char *v = NULL;
        int r;
        if ((r = cli_opt(argc, argv, &i, "--reps", &v, CMD)) != 0) {
            if (r < 0 || cli_parse_int(CMD, "--reps", v, 1, MAXREPS, &reps)) return 2;
        } else if ((r = cli_opt(argc, argv, &i, "--max", &v, CMD)) != 0) {
            if (r < 0 || cli_parse_size(CMD, "--max", v, &max)) return 2;
            if (max < 4096) {
                fprintf(stderr, "%s: --max %s is below the smallest size, 4 KiB\n", CMD, v);
                return 2;
            }
        } else if ((r = cli_opt(argc, argv, &i, "--sizes", &v, CMD)) != 0) {
            if (r < 0) return 2;
            if (strcmp(v, "small") == 0) small = 1;
            else if (strcmp(v, "full") == 0) small = 0;
            else {
                fprintf(stderr, "%s: --sizes '%s' is not small or full\n", CMD, v);
                return 2;
            }
        } else {
            return cli_unknown(CMD, argv[i]);
        }
    }
    if (backend == CUPAT_BACKEND_CPU) {
        printf("%s: measures host<->device transfers and needs a CUDA device; nothing to do "
               "with --backend cpu\n", CMD);
        return 0;
    }
    const char *why = cli_no_cuda_reason();
    if (why) {
        printf("%s: needs a CUDA device (%s); nothing measured\n", CMD, why);
        return 0;
    }
    cupat_ctx *ctx = cli_context(CUPAT_BACKEND_CUDA, (int)device);
    if (!ctx) return 1;

    static sweep w; /* large tables: not on the stack */
    memset(&w, 0, sizeof w);
    w.dev = cupat_get_device(ctx);
    w.s = (cudaStream_t)cupat_get_stream(ctx);
    w.reps = reps ? (int)reps : small ? 5 : 7;
    if (!max) max = small ? (size_t)4 << 20 : (size_t)256 << 20;

    int rc = 1;
    struct cudaDeviceProp p;
    cudaError_t e;
    size_t dfree = 0, dtotal = 0;
#define SETUP(call)                                                                      \
    do {                                                                                 \
        if ((e = (call)) != cudaSuccess) {                                               \
            w.what = #call;                                                              \
            report(&w, e, 0);                                                            \
            goto out;                                                                    \
        }                                                                                \
    } while (0)
    SETUP(cudaGetDeviceProperties(&p, w.dev));
    SETUP(cudaMemGetInfo(&dfree, &dtotal));

    /* Peak use: two device-resident buffers of the largest size (D2D; or the
     * device buffer plus prefetched managed memory), one host buffer. Stay
     * well inside what is free on both sides. */
    long pages = sysconf(_SC_AVPHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    double host_free = pages > 0 && psz > 0 ? (double)pages * (double)psz : 1e18;
    size_t cap = max;
    while (cap >= 4096 && ((double)cap * 2.0 + (256 << 20) > (double)dfree ||
                           (double)cap * 4.0 > host_free))
        cap /= 2;
    char b1[32], b2[32];
    if (cap < 4096) {
        fprintf(stderr, "%s: too little free memory (device %s) for even a 4 KiB sweep\n", CMD,
                cli_bytes(b1, sizeof b1, (double)dfree));
        goto out;
    }
    for (size_t s = 4096; s <= cap && w.nsizes < MAXSIZES; s *= 4) w.sizes[w.nsizes++] = s;
    w.max = w.sizes[w.nsizes - 1];
    w.blocks = p.multiProcessorCount * (p.maxThreadsPerMultiProcessor / 256);

    for (int i = 0; i < MAXSIZES; i++)
        for (int k = 0; k < NKINDS; k++) w.gbs[i][k] = CELL_ERR;
    const char *na[3] = {NULL, NULL, NULL};
    if (!p.canMapHostMemory) na[0] = "zero-copy: the device cannot map host memory";
    if (!p.managedMemory) na[1] = "managed: not supported on this system";
    else if (!p.concurrentManagedAccess)
        na[2] = "managed prefetch: needs concurrent managed access, which this system lacks";
    for (int i = 0; i < w.nsizes; i++) {
        if (na[0]) w.gbs[i][ZC_READ] = w.gbs[i][ZC_WRITE] = CELL_NA;
        if (na[1]) w.gbs[i][MAN_FAULT] = w.gbs[i][MAN_PREFETCH] = CELL_NA;
        if (na[2]) w.gbs[i][MAN_PREFETCH] = CELL_NA;
    }

    printf("cupat bandwidth: %s (device %d), %d copy engine%s, %s free; sizes 4 KiB .. %s, "
           "median of %d\n",
           p.name, w.dev, p.asyncEngineCount, p.asyncEngineCount == 1 ? "" : "s",
           cli_bytes(b1, sizeof b1, (double)dfree), cli_bytes(b2, sizeof b2, (double)w.max),
           w.reps);
    if (cap < max)
        printf("note: largest size capped at %s by free memory\n",
               cli_bytes(b1, sizeof b1, (double)w.max));
    for (int i = 0; i < 3; i++)
        if (na[i]) printf("note: %s\n", na[i]);
    fflush(stdout);

    SETUP(cudaEventCreate(&w.e0));
    SETUP(cudaEventCreate(&w.e1));
    SETUP(cudaMalloc(&w.dbuf, w.max));
    SETUP(cudaMemsetAsync(w.dbuf, 0x3C, w.max, w.s));
    SETUP(cudaStreamSynchronize(w.s));
    for (int g = 0; g < NGROUPS && !w.sticky; g++) run_group(&w, g);
    if (!w.sticky) host_reads(&w);
    putchar('\n');
    print_table(&w);
    print_notes(&w);
    rc = w.failed ? 1 : 0;
out:
#undef SETUP
    if (!w.sticky) {
        if (w.dbuf && (e = cudaFree(w.dbuf)) != cudaSuccess) {
            w.what = "cudaFree";
            report(&w, e, 0);
            rc = 1;
        }
        cudaEvent_t ev[2] = {w.e0, w.e1};
        for (int i = 0; i < 2; i++)
            if (ev[i] && (e = cudaEventDestroy(ev[i])) != cudaSuccess) {
                w.what = "cudaEventDestroy";
                report(&w, e, 0);
                rc = 1;
            }
    }
    cupat_destroy(ctx);
    return rc;
}
