/* SPDX-License-Identifier: Apache-2.0 */
/* harness.c — timing, checking and the ladder walk of the benchmark. */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"

#include "internal.h"

#include <cublas_v2.h>
#include <cuda_profiler_api.h>
#include <cuda_runtime_api.h>
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Adaptive repetitions: enough calls for this much measured time per row. */
#define GPU_TARGET_S 0.3
#define GPU_MIN_REPS 5
#define GPU_MAX_REPS 1000
#define CPU_TARGET_S 0.15
#define CPU_MIN_REPS 3
#define CPU_MAX_REPS 100
/* --quick: a tour, not a measurement to commit; medians of a few calls. */
#define QUICK_TARGET_S 0.03
#define QUICK_MIN_REPS 3
#define QUICK_MAX_REPS 50
/* Outputs up to this size are checked whole; larger ones are sampled. */
#define FULL_CHECK_BYTES ((size_t)256 << 20)
#define SAMPLE_CHUNKS 64
#define SPAN_BYTES ((size_t)64 << 20)

#ifndef CUPAT_GIT_COMMIT
#define CUPAT_GIT_COMMIT "unknown"
#endif

static int on_gpu(const bench_run *r)
{
    return r->backend == CUPAT_BACKEND_CUDA;
}
static cudaStream_t stream_of(const bench_run *r)
{
    return (cudaStream_t)cupat_get_stream(r->ctx);
}

/* ------------------------------------------------------------- sizes -- */

int bench_parse_size(const char *s, bench_size *out, char *err, size_t errlen)
{
    const char *x = s ? strchr(s, 'x') : NULL;
    if (s && x) { /* a shape: both sides plain counts */
        char a[64];
        size_t len = (size_t)(x - s);
        bench_size r, c;
        if (len == 0 || len >= sizeof a) goto bad;
        memcpy(a, s, len);
        a[len] = '\0';
        if (bench_parse_size(a, &r, err, errlen) || bench_parse_size(x + 1, &c, err, errlen))
            goto bad;
        if (r.rows || c.rows || c.n > SIZE_MAX / r.n) goto bad;
        out->rows = r.n;
        out->cols = c.n;
        out->n = r.n * c.n;
        return 0;
    }
    if (!s || *s < '0' || *s > '9') goto bad; /* strtoull would take "-1" and " 1" */
    errno = 0;
    char *end = NULL;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno) goto bad;
    if (*end == '^') { /* 2^k */
        if (v != 2) goto bad;
        const char *e = end + 1;
        if (*e < '0' || *e > '9') goto bad;
        unsigned long long k = strtoull(e, &end, 10);
        if (errno || *end || k >= sizeof(size_t) * 8) goto bad;
        v = 1ull << k;
    } else if (*end) {
        unsigned shift = 0;
        switch (*end) {
        case 'k': case 'K': shift = 10; break;
        case 'm': case 'M': shift = 20; break;
        case 'g': case 'G': shift = 30; break;
        case 't': case 'T': shift = 40; break;
        default: goto bad;
        }
        if (end[1] || v > (SIZE_MAX >> shift)) goto bad;
        v <<= shift;
    }
    if (v == 0 || v > SIZE_MAX) goto bad;
    out->n = (size_t)v;
    out->rows = out->cols = 0;
    return 0;
bad:
    snprintf(err, errlen,
             "'%s' is not a size (examples: 268435456, 2^28, 256M, 16384x16384)", s ? s : "");
    return -1;
}

char *bench_fmt_count(char *buf, size_t len, size_t n)
{
    if (n >= 1024 && (n & (n - 1)) == 0) {
        int k = 0;
        while (((size_t)1 << k) != n) k++;
        snprintf(buf, len, "2^%d", k);
    } else {
        snprintf(buf, len, "%zu", n);
    }
    return buf;
}

/* ------------------------------------------------------------ errors -- */

cupat_status bench_fail(bench_run *run, cupat_status status, const char *fmt, ...)
{
    char msg[CUPAT_ERRMSG];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return cupat__fail(run->ctx, status, "%s", msg);
}

cupat_status bench_cuda_status(bench_run *run, int err, const char *what)
{
    return cupat__cuda(run->ctx, (cudaError_t)err, what);
}

cupat_status bench_cublas_status(bench_run *run, int status, const char *what)
{
    if (status == CUBLAS_STATUS_SUCCESS) return CUPAT_SUCCESS;
    return cupat__fail(run->ctx,
                       status == CUBLAS_STATUS_ALLOC_FAILED ? CUPAT_ERROR_OUT_OF_MEMORY
                                                            : CUPAT_ERROR_CUDA,
                       "%s failed: %s", what, cublasGetStatusString((cublasStatus_t)status));
}

cupat_status bench_cublas(bench_run *run, void **handle)
{
    if (!run->cublas) {
        cublasHandle_t h = NULL;
        CUPAT_TRY(bench_cublas_status(run, cublasCreate(&h), "cublasCreate"));
        run->cublas = h;
    }
    /* Re-bound each time: the context's stream may have been changed. */
    CUPAT_TRY(bench_cublas_status(run, cublasSetStream((cublasHandle_t)run->cublas,
                                                       stream_of(run)),
                                  "cublasSetStream"));
    *handle = run->cublas;
    return CUPAT_SUCCESS;
}

/* ------------------------------------------------------------ inputs -- */

cupat_status bench_fill_f32(bench_run *run, float *p, size_t n, uint64_t seed, float lo,
                            float scale)
{
    if (on_gpu(run))
        return bench_cuda_status(run, bench_kernel_fill_f32(p, n, seed, lo, scale,
                                                            cupat_get_stream(run->ctx)),
                                 "bench fill_f32 kernel");
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) p[i] = bench_rand_f32(seed, i, lo, scale);
    return CUPAT_SUCCESS;
}

cupat_status bench_fill_u8(bench_run *run, uint8_t *p, size_t n, uint64_t seed)
{
    if (on_gpu(run))
        return bench_cuda_status(
            run, bench_kernel_fill_u8(p, n, seed, cupat_get_stream(run->ctx)),
            "bench fill_u8 kernel");
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) p[i] = bench_rand_u8(seed, i);
    return CUPAT_SUCCESS;
}

/* -------------------------------------------------------------- setup -- */

static void host_name(char *buf, size_t len)
{
    char model[128] = "unknown CPU";
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[256];
        while (fgets(line, sizeof line, f)) {
            char *c = strchr(line, ':');
            if (strncmp(line, "model name", 10) != 0 || !c) continue;
            c++;
            while (*c == ' ' || *c == '\t') c++;
            c[strcspn(c, "\n")] = '\0';
            snprintf(model, sizeof model, "%s", c);
            break;
        }
        fclose(f);
    }
    snprintf(buf, len, "%s (%d OpenMP threads)", model, omp_get_max_threads());
}

/* Last-level cache of the host, for the flush buffer (32 MiB when unknown). */
static double host_seconds(void);
static cupat_status flush_caches(bench_run *r);

static size_t host_llc_bytes(void)
{
    size_t best = 0;
    for (int i = 0; i < 8; i++) {
        char path[96];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        unsigned long v = 0;
        char unit = 0;
        if (fscanf(f, "%lu%c", &v, &unit) >= 1) {
            size_t b = v * (unit == 'K' ? 1024ul : unit == 'M' ? 1024ul * 1024 : 1);
            if (b > best) best = b;
        }
        fclose(f);
    }
    return best ? best : (size_t)32 << 20;
}

cupat_status bench_finish(bench_run *run, cupat_status s, void (*cleanup)(bench_run *, void *),
                          void *state)
{
    char msg[CUPAT_ERRMSG];
    cupat_ctx *ctx = run->ctx; /* cleanup may be bench_run_free */
    snprintf(msg, sizeof msg, "%s", s ? cupat_last_error(ctx) : "");
    cleanup(run, state);
    return s ? cupat__fail(ctx, s, "%s", msg) : CUPAT_SUCCESS;
}

static void free_run(bench_run *run, void *unused)
{
    (void)unused;
    bench_run_free(run);
}

cupat_status bench_describe(cupat_ctx *ctx, char *device, size_t device_len, char *date,
                            size_t date_len, char *commit, size_t commit_len)
{
    const char *env = getenv("CUPAT_COMMIT");
    snprintf(commit, commit_len, "%s", env && *env ? env : CUPAT_GIT_COMMIT);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(date, date_len, "%Y-%m-%dT%H:%M:%SZ", &tm);
    if (cupat_get_backend(ctx) != CUPAT_BACKEND_CUDA) {
        host_name(device, device_len);
        return CUPAT_SUCCESS;
    }
    int dev = cupat_get_device(ctx);
    struct cudaDeviceProp p;
    CUPAT_CUDA_TRY(ctx, cudaGetDeviceProperties(&p, dev));
    snprintf(device, device_len, "%s (cuda:%d, %d SMs, cc %d.%d)", p.name, dev,
             p.multiProcessorCount, p.major, p.minor);
    return CUPAT_SUCCESS;
}

cupat_status bench_run_init(bench_run *run, cupat_ctx *ctx, const bench_options *opt)
{
    memset(run, 0, sizeof *run);
    run->ctx = ctx;
    run->opt = *opt;
    if (!run->opt.out) run->opt.out = stdout;
    run->backend = cupat_get_backend(ctx);

    CUPAT_TRY(bench_describe(ctx, run->device, sizeof run->device, run->date, sizeof run->date,
                             run->commit, sizeof run->commit));

    if (on_gpu(run)) {
        int dev = cupat_get_device(ctx), l2 = 0;
        struct cudaDeviceProp p;
        CUPAT_CUDA_TRY(ctx, cudaGetDeviceProperties(&p, dev));
        CUPAT_CUDA_TRY(ctx, cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
        /* Twice the L2, so no line of the previous call survives the flush. */
        run->flush_bytes = 2 * (size_t)(l2 > 0 ? l2 : 64 << 20);
        run->wave = p.multiProcessorCount * (p.maxThreadsPerMultiProcessor / 256);
        int n = run->opt.reps > GPU_MAX_REPS ? run->opt.reps : GPU_MAX_REPS;
        cudaEvent_t *ev = calloc(2 * (size_t)n, sizeof *ev);
        if (!ev) return cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY, "bench: out of host memory");
        run->events = ev;
        for (int i = 0; i < 2 * n; i++) {
            cupat_status s = cupat__cuda(ctx, cudaEventCreate(&ev[i]), "cudaEventCreate");
            if (s) return bench_finish(run, s, free_run, NULL);
            run->ev_made = i + 1;
        }
        run->ev_count = n;
    } else {
        /* cpu0's LLC may be one of several (chiplets): 4x, not 2x. */
        run->flush_bytes = 4 * host_llc_bytes();
    }
    cupat_status s = cupat_malloc(ctx, &run->flush, run->flush_bytes);
    if (!s && on_gpu(run)) s = cupat_malloc(ctx, (void **)&run->sink, 256);
    if (!s && on_gpu(run)) s = cupat_memset(ctx, run->sink, 0, 256);
    if (!s) s = bench_fill_f32(run, run->flush, run->flush_bytes / 4, 0xF1, -1.0f, 2.0f);
    if (!s && !on_gpu(run)) {
        /* 4x the LLC the host reports: 1.9 GB on a 2-core VM shown its host's
         * 480 MiB L3, about 0.2 s a flush, which --quick must budget for */
        double t0 = host_seconds();
        s = flush_caches(run);
        run->flush_ms = 1e3 * (host_seconds() - t0);
    }
    /* an --ncu child measures no rates: a second saved per profiled row */
    if (!s && !run->opt.ncu_child) s = bench_ceilings_measure(ctx, &run->ceil);
    if (!s) s = cupat_sync(ctx);
    return s ? bench_finish(run, s, free_run, NULL) : CUPAT_SUCCESS;
}

void bench_run_release(bench_run *run)
{
    if (run->ctx) {
        cupat_sync(run->ctx);
        cupat_free(run->ctx, run->flush);
        cupat_free(run->ctx, run->sink);
        cupat_free(run->ctx, run->scratch);
    }
    if (run->events) {
        cudaEvent_t *ev = run->events;
        for (int i = 0; i < run->ev_made; i++) cudaEventDestroy(ev[i]);
        free(ev);
    }
    if (run->cublas) cublasDestroy((cublasHandle_t)run->cublas);
    run->flush = run->sink = run->scratch = run->events = run->cublas = NULL;
    run->flush_bytes = run->scratch_bytes = 0;
    run->ev_made = run->ev_count = 0;
    run->ctx = NULL;
}

void bench_run_free(bench_run *run)
{
    bench_run_release(run);
    for (size_t i = 0; i < run->ntables; i++) free(run->tables[i].rows);
    free(run->tables);
    memset(run, 0, sizeof *run);
}

/* ------------------------------------------------------------ timing -- */

static double host_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Evict the caches between calls, outside every timed region, by reading a
 * buffer several times the last-level cache: what stays behind is clean, so
 * the timed call pays no write-back of the flush (a memset would leave
 * dirty lines). */
static cupat_status flush_caches(bench_run *r)
{
    if (on_gpu(r))
        return cupat__cuda(r->ctx,
                           (cudaError_t)bench_kernel_read(r->flush, r->flush_bytes, r->sink,
                                                          r->wave, cupat_get_stream(r->ctx)),
                           "bench: L2 flush kernel");
    const float *p = r->flush;
    size_t n = r->flush_bytes / sizeof(float);
    float s = 0;
#pragma omp parallel for simd reduction(+ : s) schedule(static)
    for (size_t k = 0; k < n; k++) s += p[k];
    r->host_sink += s;
    return CUPAT_SUCCESS;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int choose_reps(const bench_run *r, double est_ms)
{
    if (r->opt.reps > 0) return r->opt.reps;
    int gpu = on_gpu(r);
    double target_ms = 1e3 * (r->opt.quick ? QUICK_TARGET_S : gpu ? GPU_TARGET_S : CPU_TARGET_S);
    int lo = gpu ? GPU_MIN_REPS : CPU_MIN_REPS, hi = gpu ? GPU_MAX_REPS : CPU_MAX_REPS;
    if (r->opt.quick) lo = QUICK_MIN_REPS, hi = QUICK_MAX_REPS;
    /* --quick is a tour: its time target covers the flush before each
     * repetition too (on the CPU the flush can cost 100x the call) */
    if (r->opt.quick) est_ms += r->flush_ms;
    double want = est_ms > 0 ? ceil(target_ms / est_ms) : hi;
    return want < lo ? lo : want > hi ? hi : (int)want;
}

/* One warm-up call, one timed call to size the loop, then the timed loop:
 * flush, start, call, stop. On the GPU the whole loop is queued before one
 * synchronization, so the host never gaps the device. */
static cupat_status time_calls(bench_run *r, bench_fn fn, void *st, bench_row *row)
{
    cupat_ctx *ctx = r->ctx;
    cudaEvent_t *ev = r->events;
    cudaStream_t s = stream_of(r);
    double est = 0;
    CUPAT_TRY(fn(r, st));
    CUPAT_TRY(flush_caches(r));
    if (on_gpu(r)) {
        float ms = 0;
        CUPAT_CUDA_TRY(ctx, cudaEventRecord(ev[0], s));
        CUPAT_TRY(fn(r, st));
        CUPAT_CUDA_TRY(ctx, cudaEventRecord(ev[1], s));
        CUPAT_CUDA_TRY(ctx, cudaEventSynchronize(ev[1]));
        CUPAT_CUDA_TRY(ctx, cudaEventElapsedTime(&ms, ev[0], ev[1]));
        est = ms;
    } else {
        double t0 = host_seconds();
        CUPAT_TRY(fn(r, st));
        est = 1e3 * (host_seconds() - t0);
    }
    int reps = choose_reps(r, est);
    if (on_gpu(r) && reps > r->ev_count) reps = r->ev_count;
    double *t = malloc((size_t)reps * sizeof *t);
    if (!t) return cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY, "bench: out of host memory");
    cupat_status stat = CUPAT_SUCCESS;
    for (int i = 0; i < reps && !stat; i++) {
        stat = flush_caches(r);
        if (stat) break;
        if (on_gpu(r)) {
            stat = cupat__cuda(ctx, cudaEventRecord(ev[2 * i], s), "cudaEventRecord");
            if (!stat) stat = fn(r, st);
            if (!stat) stat = cupat__cuda(ctx, cudaEventRecord(ev[2 * i + 1], s), "cudaEventRecord");
        } else {
            double t0 = host_seconds();
            stat = fn(r, st);
            t[i] = 1e3 * (host_seconds() - t0);
        }
        if (r->opt.progress && (i & 63) == 0) fprintf(stderr, ".");
    }
    if (on_gpu(r)) {
        cupat_status w = cupat__cuda(ctx, cudaStreamSynchronize(s), "cudaStreamSynchronize");
        if (!stat) stat = w;
        for (int i = 0; i < reps && !stat; i++) {
            float ms = 0;
            stat = cupat__cuda(ctx, cudaEventElapsedTime(&ms, ev[2 * i], ev[2 * i + 1]),
                               "cudaEventElapsedTime");
            t[i] = ms;
        }
    }
    if (!stat) {
        qsort(t, (size_t)reps, sizeof *t, cmp_double);
        row->reps = reps;
        row->ms_min = t[0];
        row->ms_max = t[reps - 1];
        row->ms = reps % 2 ? t[reps / 2] : 0.5 * (t[reps / 2 - 1] + t[reps / 2]);
    }
    free(t);
    return stat;
}

/* ------------------------------------------------------------ tables -- */

void bench_progress(const bench_run *run, const char *fmt, ...)
{
    if (!run->opt.progress) return;
    char line[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\r\033[K%s ", line);
    fflush(stderr);
}

bench_table *bench_table_begin(bench_run *run, const char *pattern, const char *title,
                               const char *label, double bytes, double flops,
                               bench_bound bound)
{
    if (run->ntables == run->cap) {
        size_t cap = run->cap ? 2 * run->cap : 16;
        bench_table *t = realloc(run->tables, cap * sizeof *t);
        if (!t) {
            cupat__fail(run->ctx, CUPAT_ERROR_OUT_OF_MEMORY, "bench: out of host memory");
            return NULL;
        }
        run->tables = t;
        run->cap = cap;
    }
    bench_table *t = &run->tables[run->ntables++];
    memset(t, 0, sizeof *t);
    snprintf(t->pattern, sizeof t->pattern, "%s", pattern);
    snprintf(t->title, sizeof t->title, "%s", title ? title : pattern);
    snprintf(t->label, sizeof t->label, "%s", label);
    t->bytes = bytes;
    t->flops = flops;
    t->bound = bound;
    return t;
}

bench_row *bench_table_add(bench_run *run, bench_table *t, const char *name,
                           bench_row_kind kind)
{
    if (t->nrows == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 8;
        bench_row *r = realloc(t->rows, cap * sizeof *r);
        if (!r) {
            cupat__fail(run->ctx, CUPAT_ERROR_OUT_OF_MEMORY, "bench: out of host memory");
            return NULL;
        }
        t->rows = r;
        t->cap = cap;
    }
    bench_row *r = &t->rows[t->nrows++];
    memset(r, 0, sizeof *r);
    snprintf(r->name, sizeof r->name, "%s", name);
    r->kind = kind;
    r->occupancy = -1;
    return r;
}

static void row_error(bench_run *run, bench_row *row, const char *when)
{
    row->verdict = BENCH_ERROR;
    snprintf(row->message, sizeof row->message, "%s%s", when, cupat_last_error(run->ctx));
}

/* --ncu-child: the one row asked for, once untimed (modules loaded, lazy
 * set-up done, caches as the timed loop leaves them), then once inside the
 * profiler's range: ncu --profile-from-start off sees that call's kernels
 * and nothing else. Every other row is left as it is (not measured). */
static void ncu_child_measure(bench_run *run, bench_table *t, bench_row *row, bench_fn fn,
                              bench_fn prepare, void *state)
{
    if (run->ncu_reached || (size_t)(t - run->tables) != run->opt.ncu_table ||
        (size_t)(row - t->rows) != run->opt.ncu_row)
        return;
    run->ncu_reached = 1;
    if (strcmp(row->name, run->opt.ncu_name ? run->opt.ncu_name : "") != 0) {
        run->ncu_failed = 1;
        snprintf(run->ncu_message, sizeof run->ncu_message,
                 "row %zu of table %zu is '%s' here, not '%s': this run's tables differ from "
                 "the one that asked",
                 run->opt.ncu_row, run->opt.ncu_table, row->name,
                 run->opt.ncu_name ? run->opt.ncu_name : "");
        return;
    }
    cupat_ctx *ctx = run->ctx;
    cupat_status s = prepare ? prepare(run, state) : CUPAT_SUCCESS;
    if (!s) s = fn(run, state);
    if (!s) s = flush_caches(run);
    if (!s) s = cupat_sync(ctx);
    if (!s) s = cupat__cuda(ctx, cudaProfilerStart(), "cudaProfilerStart");
    if (!s) {
        s = fn(run, state);
        if (!s) s = cupat_sync(ctx);
        char msg[CUPAT_ERRMSG];
        snprintf(msg, sizeof msg, "%s", s ? cupat_last_error(ctx) : "");
        cupat_status stop = cupat__cuda(ctx, cudaProfilerStop(), "cudaProfilerStop");
        if (s) cupat__fail(ctx, s, "%s", msg); /* the call's failure, not the stop's */
        else s = stop;
    }
    if (s) {
        run->ncu_failed = 1;
        snprintf(run->ncu_message, sizeof run->ncu_message, "%s: %s", row->name,
                 cupat_last_error(ctx));
    }
}

void bench_measure(bench_run *run, bench_table *t, bench_row *row, bench_fn fn,
                   bench_fn prepare,
                   cupat_status (*check)(bench_run *, void *, int, bench_check *),
                   int strict, void *state)
{
    if (run->opt.ncu_child) {
        ncu_child_measure(run, t, row, fn, prepare, state);
        return;
    }
    if (check) { /* the first call is the checked one */
        bench_check chk = {0};
        if ((prepare && prepare(run, state)) || fn(run, state) || cupat_sync(run->ctx))
            return row_error(run, row, "");
        if (check(run, state, strict, &chk)) return row_error(run, row, "check: ");
        row->verdict = chk.wrong ? BENCH_FAIL : BENCH_OK;
        if (chk.wrong) snprintf(row->message, sizeof row->message, "%s", chk.msg);
    }
    if (time_calls(run, fn, state, row)) {
        row->ms = 0;
        row_error(run, row, "");
        cupat_sync(run->ctx); /* leave no half-queued loop behind */
    }
}

void bench_table_end(bench_run *run, bench_table *t)
{
    double vendor_ms = 0, best = 0, prev = 0;
    const bench_ceilings *c = &run->ceil;
    for (size_t i = 0; i < t->nrows; i++) {
        bench_row *r = &t->rows[i];
        if (r->kind == BENCH_ROW_VENDOR && r->ms > 0 && !vendor_ms) vendor_ms = r->ms;
        if (r->verdict == BENCH_OK && r->ms > 0 && (!best || r->ms < best)) best = r->ms;
    }
    for (size_t i = 0; i < t->nrows; i++) {
        bench_row *r = &t->rows[i];
        if (r->verdict == BENCH_FAIL || r->verdict == BENCH_ERROR) run->failures++;
        if (r->ms <= 0) continue;
        r->gbs = t->bytes / r->ms / 1e6;
        /* a reference copy moves the bytes but does none of the arithmetic */
        r->gflops = r->kind == BENCH_ROW_REFERENCE ? 0 : t->flops / r->ms / 1e6;
        double ceil_v = t->bound == BENCH_BOUND_COPY   ? c->copy_gbs
                        : t->bound == BENCH_BOUND_READ ? c->read_gbs
                        : t->bound == BENCH_BOUND_TENSOR && c->tc_bf16_gflops > 0 ? c->tc_bf16_gflops
                                                       : c->fp32_gflops;
        double got = t->bound == BENCH_BOUND_FP32 || t->bound == BENCH_BOUND_TENSOR ? r->gflops : r->gbs;
        r->pct = ceil_v > 0 ? 100.0 * got / ceil_v : 0;
        if (r->kind == BENCH_ROW_RUNG) {
            if (prev > 0) r->speedup = prev / r->ms;
            prev = r->ms;
        }
        if (r->kind != BENCH_ROW_VENDOR && vendor_ms > 0) r->vs_vendor = vendor_ms / r->ms;
        if (best > 0) r->x_best = r->ms / best;
    }
    if (run->opt.progress) fprintf(stderr, "\r\033[K");
    if (run->opt.ncu || run->opt.ncu_child) return; /* --ncu: printed with the profiles */
    bench_print_table(run, t, run->opt.out);
    fflush(run->opt.out);
}

/* ------------------------------------------------------- ladder walk -- */

static cupat_status copy_ref(bench_run *r, void *st)
{
    (void)st;
    size_t half = r->ref_half;
    char *p = r->scratch;
    if (on_gpu(r))
        return cupat__cuda(r->ctx,
                           cudaMemcpyAsync(p + half, p, half, cudaMemcpyDeviceToDevice,
                                           stream_of(r)),
                           "cudaMemcpyAsync D2D");
    /* One slice per thread, as a parallel host copy would do it. */
#pragma omp parallel
    {
        int nt = omp_get_num_threads(), id = omp_get_thread_num();
        size_t a = half * (size_t)id / (size_t)nt, b = half * (size_t)(id + 1) / (size_t)nt;
        memcpy(p + half + a, p + a, b - a);
    }
    return CUPAT_SUCCESS;
}

/* The reference-copy buffer: 2 x half bytes, filled once (never zeros). */
static cupat_status ensure_scratch(bench_run *r, size_t half)
{
    size_t need = 2 * half;
    if (need <= r->scratch_bytes) return CUPAT_SUCCESS;
    cupat_free(r->ctx, r->scratch);
    r->scratch = NULL;
    r->scratch_bytes = 0;
    CUPAT_TRY(cupat_malloc(r->ctx, &r->scratch, need));
    CUPAT_TRY(bench_fill_f32(r, r->scratch, need / 4, 0x5C2A7C4, -1.0f, 2.0f));
    r->scratch_bytes = need;
    return CUPAT_SUCCESS;
}

cupat_status bench_run_case(bench_run *run, const bench_case *c)
{
    const cupat_variant_info *v = NULL;
    size_t nv = 0;
    CUPAT_TRY(cupat_variants(c->pattern, &v, &nv));
    bench_table *t =
        bench_table_begin(run, c->pattern, c->pattern, c->label, c->bytes, c->flops, c->bound);
    if (!t) return CUPAT_ERROR_OUT_OF_MEMORY;
    t->note = c->note;
    const char *only = run->opt.variant && strcmp(run->opt.variant, "all") ? run->opt.variant
                                                                          : NULL;
    size_t total = 0, k = 0;
    int oom = 0;
    /* --variant NAME picks the rung; else every rung, or the default alone */
#define WANTED(i)                                                                        \
    (v[i].backend == run->backend && (only ? !strcmp(only, v[i].name)                    \
                                           : !c->default_only || v[i].is_default))
    for (size_t i = 0; i < nv; i++)
        if (WANTED(i)) total++;
    total += (c->vendor != NULL) + (c->memcpy_ref != 0);

    for (size_t i = 0; i < nv; i++) {
        if (!WANTED(i)) continue;
        bench_progress(run, "bench %s %s: %s (%zu/%zu)", c->pattern, c->label, v[i].name,
                       ++k, total);
        bench_row *row = bench_table_add(run, t, v[i].name, BENCH_ROW_RUNG);
        if ((oom = !row)) break;
        row->technique = v[i].technique;
        row->source = v[i].source;
        row->is_default = v[i].is_default;
        if (cupat_set_variant(run->ctx, c->pattern, v[i].name)) row_error(run, row, "");
        else bench_measure(run, t, row, c->run, c->prepare, c->check, 1, c->state);
    }
    cupat_set_variant(run->ctx, c->pattern, NULL);
    if (oom) return bench_fail(run, CUPAT_ERROR_OUT_OF_MEMORY, "bench: out of host memory");

    if (c->vendor) {
        bench_progress(run, "bench %s %s: %s (%zu/%zu)", c->pattern, c->label, c->vendor_name,
                       ++k, total);
        bench_row *row = bench_table_add(run, t, c->vendor_name, BENCH_ROW_VENDOR);
        if (!row) return CUPAT_ERROR_OUT_OF_MEMORY;
        row->technique = "vendor baseline, same inputs";
        bench_measure(run, t, row, c->vendor, c->prepare, c->check, 0, c->state);
    }
    if (c->memcpy_ref) {
        bench_progress(run, "bench %s %s: copy (%zu/%zu)", c->pattern, c->label, ++k, total);
        CUPAT_TRY(bench_add_copy_row(run, t));
    }
    if (c->launch_floor) CUPAT_TRY(bench_add_launch_rows(run, t));
    bench_table_end(run, t);
    return CUPAT_SUCCESS;
#undef WANTED
}

cupat_status bench_add_copy_row(bench_run *run, bench_table *t)
{
    size_t half = (size_t)(t->bytes / 2);
    bench_row *row = bench_table_add(run, t, on_gpu(run) ? "cudaMemcpy D2D" : "memcpy",
                                     BENCH_ROW_REFERENCE);
    if (!row) return CUPAT_ERROR_OUT_OF_MEMORY;
    row->technique = "reference: a copy moving the same bytes";
    run->ref_half = half;
    if (run->opt.ncu_child) return CUPAT_SUCCESS; /* never profiled: no buffer for it */
    if (ensure_scratch(run, half)) row_error(run, row, "");
    else bench_measure(run, t, row, copy_ref, NULL, NULL, 0, NULL);
    return CUPAT_SUCCESS;
}

static cupat_status empty_1(bench_run *r, void *st)
{
    (void)st;
    return cupat__cuda(r->ctx, (cudaError_t)bench_kernel_empty(1, cupat_get_stream(r->ctx)),
                       "bench: empty kernel");
}
static cupat_status empty_2(bench_run *r, void *st)
{
    (void)st;
    return cupat__cuda(r->ctx, (cudaError_t)bench_kernel_empty(2, cupat_get_stream(r->ctx)),
                       "bench: empty kernels");
}
/* The end event is queued after the host's wait returns: the row adds the
 * wake-up of the waiting thread and the next submission to the launch. */
static cupat_status empty_sync(bench_run *r, void *st)
{
    CUPAT_TRY(empty_1(r, st));
    return cupat__cuda(r->ctx, cudaStreamSynchronize(stream_of(r)), "cudaStreamSynchronize");
}

cupat_status bench_add_launch_rows(bench_run *run, bench_table *t)
{
    static const struct {
        const char *name, *technique;
        bench_fn fn;
    } rows[] = {
        {"empty kernel",
         "launch floor: one empty kernel <<<1, 32>>>, timed as the rungs (events around it)",
         empty_1},
        {"2 empty kernels", "launch floor of a two-kernel call: two empty kernels back to back",
         empty_2},
        {"empty kernel + sync",
         "one empty kernel, then cudaStreamSynchronize inside the timed region",
         empty_sync},
    };
    if (!on_gpu(run)) return CUPAT_SUCCESS;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        bench_progress(run, "bench %s %s: %s", t->pattern, t->label, rows[i].name);
        bench_row *row = bench_table_add(run, t, rows[i].name, BENCH_ROW_REFERENCE);
        if (!row) return CUPAT_ERROR_OUT_OF_MEMORY;
        row->technique = rows[i].technique;
        bench_measure(run, t, row, rows[i].fn, NULL, NULL, 0, NULL);
    }
    return CUPAT_SUCCESS;
}

/* --------------------------------------------------------------- ncu -- */

int bench_ncu_wanted(const bench_row *r)
{
    return r->kind != BENCH_ROW_REFERENCE && r->ms > 0;
}

int bench_ncu_rows(bench_run *run, const char *ncu, const char *const *argv, size_t pattern_arg)
{
    size_t argc = 0, total = 0, k = 0;
    while (argv[argc]) argc++;
    for (size_t i = 0; i < run->ntables; i++)
        for (size_t j = 0; j < run->tables[i].nrows; j++)
            total += (size_t)bench_ncu_wanted(&run->tables[i].rows[j]);
    const char **args = malloc((argc + 3) * sizeof *args);
    char spec[160];
    int failed = 0;
    double limit = bench_ncu_timeout();
    for (size_t i = 0; args && i < argc; i++) args[i] = argv[i];
    for (size_t i = 0; i < run->ntables; i++) {
        bench_table *t = &run->tables[i];
        for (size_t j = 0; j < t->nrows; j++) {
            bench_row *r = &t->rows[j];
            if (!bench_ncu_wanted(r)) continue;
            if (!args) {
                r->ncu.state = BENCH_NCU_ERROR;
                snprintf(r->ncu.error, sizeof r->ncu.error, "out of host memory");
                failed++;
                continue;
            }
            /* the child finds the row by its place in the run, and checks its name */
            size_t ti = i;
            if (pattern_arg < argc) {
                args[pattern_arg] = t->made_by ? t->made_by : argv[pattern_arg];
                if (t->made_by) ti = t->made_index;
            }
            snprintf(spec, sizeof spec, "%zu:%zu:%s", ti, j, r->name);
            args[argc] = "--ncu-child";
            args[argc + 1] = spec;
            args[argc + 2] = NULL;
            bench_progress(run, "ncu %s %s: %s (%zu/%zu)", t->title, t->label, r->name, ++k,
                           total);
            if (bench_ncu_profile(ncu, args, limit, &r->ncu)) failed++;
        }
    }
    if (run->opt.progress) fprintf(stderr, "\r\033[K");
    free(args);
    return failed;
}

/* ------------------------------------------------------------ checks -- */

typedef struct verify_job {
    size_t esize, n, chunk;
    int f32;
    bench_expect_f32 ff;
    bench_expect_u8 fu;
    void *st;
    /* results */
    size_t wrong, first;
    double got, want, tol;
    int oom;
} verify_job;

/* Compare the chunks ids[0..m) whose outputs sit at host (which holds output
 * elements from `base` on). */
static void verify_span(verify_job *j, const size_t *ids, size_t m, const void *host,
                        size_t base)
{
#pragma omp parallel
    {
        double *exp = NULL, *tol = NULL;
        uint8_t *e8 = NULL;
        if (j->f32) {
            exp = malloc(j->chunk * sizeof *exp);
            tol = malloc(j->chunk * sizeof *tol);
        } else {
            e8 = malloc(j->chunk);
        }
        int ok = j->f32 ? exp && tol : e8 != NULL;
        if (!ok) {
#pragma omp atomic write
            j->oom = 1;
        }
#pragma omp for schedule(dynamic)
        for (size_t q = 0; q < m; q++) {
            if (!ok) continue;
            size_t start = ids[q] * j->chunk;
            size_t len = j->n - start < j->chunk ? j->n - start : j->chunk;
            size_t wrong = 0, first = SIZE_MAX;
            double got = 0, want = 0, tl = 0;
            if (j->f32) {
                const float *o = (const float *)host + (start - base);
                j->ff(j->st, start, len, exp, tol);
                for (size_t i = 0; i < len; i++) {
                    double d = fabs((double)o[i] - exp[i]);
                    if (d <= tol[i]) continue; /* false for NaN */
                    if (!wrong++) first = i, got = o[i], want = exp[i], tl = tol[i];
                }
            } else {
                const uint8_t *o = (const uint8_t *)host + (start - base);
                j->fu(j->st, start, len, e8);
                for (size_t i = 0; i < len; i++) {
                    if (o[i] == e8[i]) continue;
                    if (!wrong++) first = i, got = o[i], want = e8[i];
                }
            }
            if (wrong) {
#pragma omp critical(bench_verify)
                {
                    j->wrong += wrong;
                    if (start + first < j->first) {
                        j->first = start + first;
                        j->got = got;
                        j->want = want;
                        j->tol = tl;
                    }
                }
            }
        }
        free(exp);
        free(tol);
        free(e8);
    }
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

static cupat_status verify(bench_run *r, const void *out, size_t esize, size_t n,
                           size_t chunk, bench_expect_f32 ff, bench_expect_u8 fu, void *st,
                           bench_check *chk)
{
    if (n == 0) return CUPAT_SUCCESS;
    if (chunk == 0 || chunk > n) chunk = n;
    int f32 = ff != NULL;
    verify_job j = {esize, n, chunk, f32, ff, fu, st, 0, SIZE_MAX, 0, 0, 0, 0};
    size_t nchunks = (n + chunk - 1) / chunk, nids = nchunks;
    int sampled = n * esize > FULL_CHECK_BYTES && nchunks > SAMPLE_CHUNKS;
    if (sampled) nids = SAMPLE_CHUNKS;
    size_t *ids = malloc(nids * sizeof *ids);
    if (!ids) return cupat__fail(r->ctx, CUPAT_ERROR_OUT_OF_MEMORY, "bench: out of host memory");
    if (sampled) { /* both ends, where indexing bugs live, and random others */
        ids[0] = 0;
        ids[1] = nchunks - 1;
        for (size_t i = 2; i < nids; i++) ids[i] = bench_hash(0xC4EC, i) % nchunks;
        qsort(ids, nids, sizeof *ids, cmp_size);
        size_t u = 1;
        for (size_t i = 1; i < nids; i++)
            if (ids[i] != ids[u - 1]) ids[u++] = ids[i];
        nids = u;
    } else {
        for (size_t i = 0; i < nids; i++) ids[i] = i;
    }
    /* Contiguous chunk ids go down in one copy of at most SPAN_BYTES. */
    size_t span_chunks = SPAN_BYTES / (chunk * esize);
    if (span_chunks == 0) span_chunks = 1;
    void *host = NULL;
    cupat_status s = CUPAT_SUCCESS;
    if (on_gpu(r) && !(host = malloc(span_chunks * chunk * esize)))
        s = cupat__fail(r->ctx, CUPAT_ERROR_OUT_OF_MEMORY, "bench: out of host memory");
    size_t checked = 0;
    for (size_t a = 0; a < nids && !s;) {
        size_t b = a + 1;
        while (b < nids && ids[b] == ids[b - 1] + 1 && b - a < span_chunks) b++;
        size_t base = ids[a] * chunk, end = (ids[b - 1] + 1) * chunk;
        if (end > n) end = n;
        const void *src = (const char *)out + base * esize;
        if (on_gpu(r)) s = cupat_memcpy(r->ctx, host, src, (end - base) * esize);
        if (!s) verify_span(&j, ids + a, b - a, on_gpu(r) ? host : src, base);
        checked += end - base;
        a = b;
    }
    free(host);
    free(ids);
    if (!s && j.oom) s = cupat__fail(r->ctx, CUPAT_ERROR_OUT_OF_MEMORY, "bench: out of host memory");
    if (s) return s;
    chk->checked += checked;
    chk->wrong += j.wrong;
    if (j.wrong && !chk->msg[0]) {
        if (f32)
            snprintf(chk->msg, sizeof chk->msg,
                     "out[%zu] = %.9g, expected %.9g (tol %.2g); %zu of %zu checked wrong",
                     j.first, j.got, j.want, j.tol, j.wrong, checked);
        else
            snprintf(chk->msg, sizeof chk->msg,
                     "out[%zu] = %d, expected %d; %zu of %zu checked wrong", j.first,
                     (int)j.got, (int)j.want, j.wrong, checked);
    }
    return CUPAT_SUCCESS;
}

cupat_status bench_verify_f32(bench_run *run, const float *out, size_t n, size_t chunk,
                              bench_expect_f32 fn, void *state, bench_check *chk)
{
    return verify(run, out, sizeof(float), n, chunk, fn, NULL, state, chk);
}

cupat_status bench_verify_u8(bench_run *run, const uint8_t *out, size_t n, size_t chunk,
                             bench_expect_u8 fn, void *state, bench_check *chk)
{
    return verify(run, out, 1, n, chunk, NULL, fn, state, chk);
}
