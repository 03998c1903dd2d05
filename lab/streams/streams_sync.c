/* SPDX-License-Identifier: Apache-2.0 */
/* streams_sync.c — the runners of `cupat lab streams` about synchronization:
 * events (a cudaStreamWaitEvent dependency graph, BlockingSync against
 * spinning, DisableTiming's cost; PCCP 6.1.4-6.1.5), which calls block the
 * host (PCCP 6.1.5's implicit synchronization; the lecture's "Asynchronous
 * Execution"), host callbacks in a pipeline and CUDA graphs (beyond the
 * books: CUDA Guide, stream callbacks and graphs). */
#define _POSIX_C_SOURCE 200809L
#include "streams/streams_priv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ----------------------------------------------------------------- events -- */

const char *lab_st_cpu_verdict(char *buf, size_t n, int blocking, double cpu_pct)
{
    if (blocking)
        snprintf(buf, n, cpu_pct <= 20 ? "slept: the CPU was free" : "the CPU stayed busy: no sleep seen");
    else
        snprintf(buf, n, cpu_pct >= 80 ? "spun: a core busy the whole wait" : "did not spin the whole wait");
    return buf;
}

const char *lab_st_timing_verdict(char *buf, size_t n, double ratio)
{
    if (ratio > 1.2) snprintf(buf, n, "timing costs %.1f x", ratio);
    else if (ratio < 1 / 1.2) snprintf(buf, n, "timing cheaper (%.2f x)", ratio);
    else snprintf(buf, n, "about the same");
    return buf;
}

#define EV_LOOPS 2000

cupat_status lab_streams_events(cupat_ctx *ctx, const lab_st_opts *o, lab_st_report *r)
{
    CUPAT_TRY(lab_st_check(ctx, o, r));
    cupat_status s = CUPAT_SUCCESS;
    cudaStream_t st[4] = {0};
    cudaEvent_t e[4] = {0}, ew = NULL;
    lab_st_stamps sp = {0};
    const unsigned long long spin = (unsigned long long)(o->spin_ms * 1e6);
    ST_TRY(lab_st_stamps_new(&sp, 4));
    for (int i = 0; i < 4; i++) {
        ST_TRY(cudaStreamCreateWithFlags(&st[i], cudaStreamNonBlocking));
        ST_TRY(cudaEventCreateWithFlags(&e[i], cudaEventDisableTiming));
    }

    /* A -> (B || C) -> D across four streams. */
    {
        static const char *const cols[] = {"total ms", "x spin", "expected x spin"};
        lab_st_table *t = lab_st_table_new(
            r, "events: a dependency graph across streams with cudaStreamWaitEvent",
            "PCCP 6.1.5: cudaStreamWaitEvent(stream, event) holds the stream's later work until the "
            "event, recorded on another stream, completes. A on stream 0; B on stream 1 and C on stream "
            "2 wait for A's event; D on stream 3 waits for B's and C's: A, then B and C together, then "
            "D (3 x one kernel, not 4). The check: every kernel started after the kernels it waits for "
            "ended (their own %globaltimer stamps).",
            3, cols);
        ST_TRY(lab_st_stamps_reset(&sp, st[0]));
        ST_TRY(cudaStreamSynchronize(st[0]));
        ST_TRY(lab_st_spin(st[0], 1, 32, spin, sp.d, 0));
        ST_TRY(cudaEventRecord(e[0], st[0]));
        ST_TRY(cudaStreamWaitEvent(st[1], e[0], 0));
        ST_TRY(cudaStreamWaitEvent(st[2], e[0], 0));
        ST_TRY(lab_st_spin(st[1], 1, 32, spin, sp.d, 1));
        ST_TRY(cudaEventRecord(e[1], st[1]));
        ST_TRY(lab_st_spin(st[2], 1, 32, spin, sp.d, 2));
        ST_TRY(cudaEventRecord(e[2], st[2]));
        ST_TRY(cudaStreamWaitEvent(st[3], e[1], 0));
        ST_TRY(cudaStreamWaitEvent(st[3], e[2], 0));
        ST_TRY(lab_st_spin(st[3], 1, 32, spin, sp.d, 3));
        ST_TRY(lab_st_stamps_read(&sp));
        double total;
        (void)lab_st_max_concurrent(&sp, 4, &total);
#define AT(i, end) lab_st_stamp_ms(&sp, 4, (i), (end))
        const int ok = AT(1, 0) >= AT(0, 1) && AT(2, 0) >= AT(0, 1) && AT(3, 0) >= AT(1, 1) && AT(3, 0) >= AT(2, 1);
#undef AT
        r->bad += !ok;
        const double v[3] = {total, total / o->spin_ms, 3};
        lab_st_row(t, "A -> (B || C) -> D", v, ok ? "order respected" : "ORDER VIOLATED");
        lab_st_timeline *tl = lab_st_timeline_new(r, "events: A -> (B || C) -> D", 4, "stream %d");
        for (int i = 0; i < 4; i++) lab_st_span_add(tl, i, 'K', i, lab_st_stamp_ms(&sp, 4, i, 0), lab_st_stamp_ms(&sp, 4, i, 1));
    }

    /* BlockingSync against spinning: the host's CPU time while it waits. */
    {
        static const char *const cols[] = {"wait ms", "host CPU ms", "CPU % of wait"};
        char title[200];
        snprintf(title, sizeof title, "events: cudaEventSynchronize on a %.0f ms kernel, spin vs BlockingSync",
                 20 * o->spin_ms);
        lab_st_table *t = lab_st_table_new(
            r, title,
            "PCCP 6.1.5 (configurable events): an event made with cudaEventBlockingSync puts the waiting "
            "thread to sleep until the GPU signals it; a default event is waited for by spinning (with "
            "one GPU and more cores than GPUs the runtime spins: cudaDeviceScheduleAuto). Host CPU time "
            "from CLOCK_PROCESS_CPUTIME_ID (every thread of the process) around the wait.",
            3, cols);
        for (int blocking = 0; blocking < 2; blocking++) {
            ST_TRY(cudaEventCreateWithFlags(&ew, blocking ? cudaEventBlockingSync | cudaEventDisableTiming
                                                          : cudaEventDisableTiming));
            ST_TRY(lab_st_spin(st[0], 1, 32, 20 * spin, NULL, 0));
            ST_TRY(cudaEventRecord(ew, st[0]));
            const double c0 = lab_st_cpu_ms(), w0 = lab_st_wall_ms();
            ST_TRY(cudaEventSynchronize(ew));
            const double c1 = lab_st_cpu_ms(), w1 = lab_st_wall_ms();
            const double v[3] = {w1 - w0, c1 - c0, 100.0 * (c1 - c0) / (w1 - w0)};
            char verdict[96];
            lab_st_row(t, blocking ? "cudaEventBlockingSync" : "default (spin)", v,
                       lab_st_cpu_verdict(verdict, sizeof verdict, blocking, v[2]));
            ST_TRY(cudaEventDestroy(ew));
            ew = NULL;
        }
    }

    /* DisableTiming: what an event's timestamp costs. */
    {
        static const char *const cols[] = {"timing us", "no timing us", "ratio"};
        char note[600];
        snprintf(note, sizeof note,
                 "PCCP 6.1.5: cudaEventDisableTiming marks an event used only to synchronize; it makes "
                 "cudaStreamWaitEvent and cudaEventQuery cheaper (no timestamp to write). Host "
                 "microseconds a pair of calls on an idle stream, mean of %d.",
                 EV_LOOPS);
        lab_st_table *t = lab_st_table_new(r, "events: the cost of timing (cudaEventDisableTiming)", note, 3, cols);
        static const char *const what[] = {"record + cudaStreamWaitEvent", "record + cudaEventSynchronize",
                                           "record + cudaEventQuery until done"};
        for (int w = 0; w < 3; w++) {
            double us[2];
            for (int dis = 0; dis < 2; dis++) {
                ST_TRY(cudaEventCreateWithFlags(&ew, dis ? cudaEventDisableTiming : cudaEventDefault));
                ST_TRY(cudaStreamSynchronize(st[0]));
                const double t0 = lab_st_wall_ms();
                for (int k = 0; k < EV_LOOPS; k++) {
                    ST_TRY(cudaEventRecord(ew, st[0]));
                    if (w == 0) ST_TRY(cudaStreamWaitEvent(st[1], ew, 0));
                    else if (w == 1) ST_TRY(cudaEventSynchronize(ew));
                    else {
                        cudaError_t q;
                        while ((q = cudaEventQuery(ew)) == cudaErrorNotReady) {
                        }
                        ST_TRY(q);
                    }
                }
                ST_TRY(cudaDeviceSynchronize());
                us[dis] = (lab_st_wall_ms() - t0) * 1e3 / EV_LOOPS;
                ST_TRY(cudaEventDestroy(ew));
                ew = NULL;
            }
            const double v[3] = {us[0], us[1], us[0] / us[1]};
            char verdict[96];
            lab_st_row(t, what[w], v, lab_st_timing_verdict(verdict, sizeof verdict, v[2]));
        }
    }
out:
    (void)cudaGetLastError();
    if (ew) cudaEventDestroy(ew);
    for (int i = 0; i < 4; i++) {
        if (e[i]) cudaEventDestroy(e[i]);
        if (st[i]) cudaStreamDestroy(st[i]);
    }
    lab_st_stamps_free(&sp);
    return s;
}

/* ----------------------------------------------------- which calls block -- */

enum {
    BL_MALLOC, BL_FREE, BL_MALLOC_HOST, BL_FREE_HOST, BL_MALLOC_ASYNC, BL_MEMSET, BL_MEMSET_ASYNC,
    BL_H2D_PAGE_4K, BL_H2D_PAGE_64K, BL_H2D_PAGE_1M, BL_H2D_PIN_4K, BL_H2D_PIN_64K, BL_H2D_PIN_1M,
    BL_D2H_PAGE_4K, BL_D2H_PIN_4K, BL_D2D_1M, BL_ASYNC_PAGE_1M, BL_ASYNC_PIN_1M, BL_LAUNCH_NULL,
    BL_LAUNCH_STREAM, BL_EVENT_QUERY, BL_STREAM_QUERY, BL_CACHE_CONFIG, BL_DEVICE_SYNC, BL_COUNT
};
static const char *const bl_names[BL_COUNT] = {
    [BL_MALLOC] = "cudaMalloc 1 MiB",
    [BL_FREE] = "cudaFree 1 MiB",
    [BL_MALLOC_HOST] = "cudaMallocHost 1 MiB",
    [BL_FREE_HOST] = "cudaFreeHost 1 MiB",
    [BL_MALLOC_ASYNC] = "cudaMallocAsync 1 MiB (other stream)",
    [BL_MEMSET] = "cudaMemset 1 MiB",
    [BL_MEMSET_ASYNC] = "cudaMemsetAsync 1 MiB (other stream)",
    [BL_H2D_PAGE_4K] = "cudaMemcpy H2D pageable 4 KiB",
    [BL_H2D_PAGE_64K] = "cudaMemcpy H2D pageable 64 KiB",
    [BL_H2D_PAGE_1M] = "cudaMemcpy H2D pageable 1 MiB",
    [BL_H2D_PIN_4K] = "cudaMemcpy H2D pinned 4 KiB",
    [BL_H2D_PIN_64K] = "cudaMemcpy H2D pinned 64 KiB",
    [BL_H2D_PIN_1M] = "cudaMemcpy H2D pinned 1 MiB",
    [BL_D2H_PAGE_4K] = "cudaMemcpy D2H pageable 4 KiB",
    [BL_D2H_PIN_4K] = "cudaMemcpy D2H pinned 4 KiB",
    [BL_D2D_1M] = "cudaMemcpy D2D 1 MiB",
    [BL_ASYNC_PAGE_1M] = "cudaMemcpyAsync H2D pageable 1 MiB (other)",
    [BL_ASYNC_PIN_1M] = "cudaMemcpyAsync H2D pinned 1 MiB (other)",
    [BL_LAUNCH_NULL] = "kernel launch, legacy NULL stream",
    [BL_LAUNCH_STREAM] = "kernel launch, other stream",
    [BL_EVENT_QUERY] = "cudaEventQuery (event after the kernel)",
    [BL_STREAM_QUERY] = "cudaStreamQuery (the kernel's stream)",
    [BL_CACHE_CONFIG] = "cudaFuncSetCacheConfig",
    [BL_DEVICE_SYNC] = "cudaDeviceSynchronize",
};

#define BL_MIB ((size_t)1 << 20)

cupat_status lab_streams_blocking(cupat_ctx *ctx, const lab_st_opts *o, lab_st_report *r)
{
    CUPAT_TRY(lab_st_check(ctx, o, r));
    cupat_status s = CUPAT_SUCCESS;
    cudaStream_t kb = NULL, kn = NULL, other = NULL;
    cudaEvent_t ev = NULL;
    char *dev = NULL, *dev2 = NULL, *pin = NULL, *page = NULL;
    void *tmp = NULL;
    const double spin_ms = 5 * o->spin_ms;
    ST_TRY(cudaStreamCreateWithFlags(&kb, cudaStreamDefault));
    ST_TRY(cudaStreamCreateWithFlags(&kn, cudaStreamNonBlocking));
    ST_TRY(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking));
    ST_TRY(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
    ST_TRY(cudaMalloc((void **)&dev, BL_MIB));
    ST_TRY(cudaMalloc((void **)&dev2, BL_MIB));
    ST_TRY(cudaMallocHost((void **)&pin, BL_MIB));
    if (!(page = malloc(BL_MIB))) {
        s = cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY, "lab streams: out of host memory");
        goto out;
    }
    memset(page, 1, BL_MIB);
    memset(pin, 1, BL_MIB);
    ST_TRY(cudaMemset(dev, 0, BL_MIB));
    ST_TRY(cudaMemset(dev2, 0, BL_MIB));
    static const char *const cols[] = {"ms, blocking", "ms, non-blocking"};
    char note[1400];
    snprintf(note, sizeof note,
             "Host milliseconds of one call made right after a %.0f ms one-block kernel was launched on "
             "a blocking stream (cudaStreamCreate: first column) or on a non-blocking stream (second). "
             "A call that takes about the kernel's time waited for it. PCCP 6.1.5: cudaMemcpy, pinned "
             "and device allocation, device memset, a same-device copy and an L1/shared configuration "
             "change synchronize implicitly (the NULL stream waits for blocking streams only); the "
             "lecture: launches, same-device copies, H2D copies of 64 KB or less and *Async calls return "
             "at once. 'other': a third, non-blocking stream. A pageable H2D cudaMemcpy returns once the "
             "data is staged, so a small one may return before the kernel ends. Every call is made once "
             "untimed first (first-use costs are not implicit synchronization).",
             spin_ms);
    lab_st_table *t = lab_st_table_new(r, "which calls block the host", note, 2, cols);
    /* Pass 0 makes every call once, untimed: a call's first use in the
     * process (the stream-ordered allocator's set-up, a lazily loaded
     * kernel) is not what this table is about. (Without it, the first
     * cudaMallocAsync measured 10.3 ms behind a 10 ms kernel on a blocking
     * stream and 0.08 ms on a non-blocking one.) */
    for (int pass = 0; pass < 2; pass++)
    for (int row = 0; row < BL_COUNT; row++) {
        double ms[2];
        for (int col = 0; col < 2; col++) {
            cudaStream_t ks = col ? kn : kb;
            if (row == BL_FREE) ST_TRY(cudaMalloc(&tmp, BL_MIB));
            if (row == BL_FREE_HOST) ST_TRY(cudaMallocHost(&tmp, BL_MIB));
            ST_TRY(cudaDeviceSynchronize());
            ST_TRY(lab_st_spin(ks, 1, 32, (unsigned long long)(spin_ms * 1e6), NULL, 0));
            if (row == BL_EVENT_QUERY) ST_TRY(cudaEventRecord(ev, ks));
            const double t0 = lab_st_wall_ms();
            cudaError_t e = cudaSuccess;
            switch (row) {
            case BL_MALLOC: e = cudaMalloc(&tmp, BL_MIB); break;
            case BL_FREE: e = cudaFree(tmp); tmp = NULL; break;
            case BL_MALLOC_HOST: e = cudaMallocHost(&tmp, BL_MIB); break;
            case BL_FREE_HOST: e = cudaFreeHost(tmp); tmp = NULL; break;
            case BL_MALLOC_ASYNC: e = cudaMallocAsync(&tmp, BL_MIB, other); break;
            case BL_MEMSET: e = cudaMemset(dev, 0, BL_MIB); break;
            case BL_MEMSET_ASYNC: e = cudaMemsetAsync(dev, 0, BL_MIB, other); break;
            case BL_H2D_PAGE_4K: e = cudaMemcpy(dev, page, 4096, cudaMemcpyHostToDevice); break;
            case BL_H2D_PAGE_64K: e = cudaMemcpy(dev, page, 65536, cudaMemcpyHostToDevice); break;
            case BL_H2D_PAGE_1M: e = cudaMemcpy(dev, page, BL_MIB, cudaMemcpyHostToDevice); break;
            case BL_H2D_PIN_4K: e = cudaMemcpy(dev, pin, 4096, cudaMemcpyHostToDevice); break;
            case BL_H2D_PIN_64K: e = cudaMemcpy(dev, pin, 65536, cudaMemcpyHostToDevice); break;
            case BL_H2D_PIN_1M: e = cudaMemcpy(dev, pin, BL_MIB, cudaMemcpyHostToDevice); break;
            case BL_D2H_PAGE_4K: e = cudaMemcpy(page, dev, 4096, cudaMemcpyDeviceToHost); break;
            case BL_D2H_PIN_4K: e = cudaMemcpy(pin, dev, 4096, cudaMemcpyDeviceToHost); break;
            case BL_D2D_1M: e = cudaMemcpy(dev2, dev, BL_MIB, cudaMemcpyDeviceToDevice); break;
            case BL_ASYNC_PAGE_1M: e = cudaMemcpyAsync(dev, page, BL_MIB, cudaMemcpyHostToDevice, other); break;
            case BL_ASYNC_PIN_1M: e = cudaMemcpyAsync(dev, pin, BL_MIB, cudaMemcpyHostToDevice, other); break;
            case BL_LAUNCH_NULL: e = lab_st_inc(cudaStreamLegacy, (float *)(void *)dev2, 256, 1.0f); break;
            case BL_LAUNCH_STREAM: e = lab_st_inc(other, (float *)(void *)dev2, 256, 1.0f); break;
            case BL_EVENT_QUERY: e = cudaEventQuery(ev); break;
            case BL_STREAM_QUERY: e = cudaStreamQuery(ks); break;
            case BL_CACHE_CONFIG: e = lab_st_cache_config(col); break;
            case BL_DEVICE_SYNC: e = cudaDeviceSynchronize(); break;
            }
            ms[col] = lab_st_wall_ms() - t0;
            if (e == cudaErrorNotReady) {
                (void)cudaGetLastError();
                e = cudaSuccess;
            }
            ST_TRY(e);
            ST_TRY(cudaDeviceSynchronize());
            if (tmp && (row == BL_MALLOC)) ST_TRY(cudaFree(tmp));
            if (tmp && (row == BL_MALLOC_HOST)) ST_TRY(cudaFreeHost(tmp));
            if (tmp && (row == BL_MALLOC_ASYNC)) ST_TRY(cudaFree(tmp));
            tmp = NULL;
        }
        if (!pass) continue;
        const int wb = ms[0] > 0.5 * spin_ms, wn = ms[1] > 0.5 * spin_ms;
        lab_st_row(t, bl_names[row], ms,
                   wb && wn   ? "waits for the device"
                   : wb       ? "waits for blocking streams"
                   : wn       ? "waits for the non-blocking stream only (?)"
                              : "returns at once");
    }
out:
    (void)cudaGetLastError();
    cudaDeviceSynchronize();
    if (ev) cudaEventDestroy(ev);
    if (kb) cudaStreamDestroy(kb);
    if (kn) cudaStreamDestroy(kn);
    if (other) cudaStreamDestroy(other);
    cudaFree(dev);
    cudaFree(dev2);
    cudaFreeHost(pin);
    free(page);
    return s;
}

/* ------------------------------------------------- callbacks and graphs -- */

#define CB_CHUNKS 8
#define CB_N ((size_t)1 << 20)
#define GR_KERNELS 64
#define GR_REPS 50
#define GR_N 256u

typedef struct cb_info {
    const float *out;
    float expect;
    double t_ms, t0;
    size_t bad;
    int order; /* 1 + the index of this callback among all that ran */
    int *counter;
} cb_info;

/* Runs on a runtime thread once the chunk's copy out is done: checks the
 * chunk on the host (no CUDA call is allowed here). */
static void CUDART_CB on_chunk(void *user)
{
    cb_info *c = user;
    c->t_ms = lab_st_wall_ms() - c->t0;
    size_t bad = 0;
    for (size_t i = 0; i < CB_N; i++) bad += c->out[i] != c->expect;
    c->bad = bad;
    c->order = ++*c->counter; /* callbacks run one at a time */
}

cupat_status lab_streams_graphs(cupat_ctx *ctx, const lab_st_opts *o, lab_st_report *r)
{
    CUPAT_TRY(lab_st_check(ctx, o, r));
    cupat_status s = CUPAT_SUCCESS;
    cudaStream_t st[2] = {0};
    cudaEvent_t e0 = NULL, e1 = NULL;
    float *h = NULL, *d = NULL, *x = NULL;
    cudaGraph_t g = NULL, g2 = NULL;
    cudaGraphExec_t ge = NULL, ge2 = NULL;
    cb_info cb[CB_CHUNKS];
    int counter = 0;
    for (int i = 0; i < 2; i++) ST_TRY(cudaStreamCreateWithFlags(&st[i], cudaStreamNonBlocking));
    ST_TRY(cudaEventCreate(&e0));
    ST_TRY(cudaEventCreate(&e1));
    ST_TRY(cudaMallocHost((void **)&h, CB_CHUNKS * CB_N * sizeof *h));
    ST_TRY(cudaMalloc((void **)&d, CB_CHUNKS * CB_N * sizeof *d));
    ST_TRY(cudaMalloc((void **)&x, GR_N * sizeof *x));

    /* The pipeline: chunk i's copy in, kernel (+ i + 1), copy out, then a
     * host callback that checks it, on stream i % 2. */
    {
        for (size_t i = 0; i < CB_CHUNKS * CB_N; i++) h[i] = 1.0f;
        const double t0 = lab_st_wall_ms();
        for (int i = 0; i < CB_CHUNKS; i++) {
            cudaStream_t q = st[i % 2];
            float *hc = h + (size_t)i * CB_N, *dc = d + (size_t)i * CB_N;
            cb[i] = (cb_info){hc, 1.0f + (float)(i + 1), 0, t0, 0, 0, &counter};
            ST_TRY(cudaMemcpyAsync(dc, hc, CB_N * 4, cudaMemcpyHostToDevice, q));
            ST_TRY(lab_st_inc(q, dc, (unsigned)CB_N, (float)(i + 1)));
            ST_TRY(cudaMemcpyAsync(hc, dc, CB_N * 4, cudaMemcpyDeviceToHost, q));
            ST_TRY(cudaLaunchHostFunc(q, on_chunk, &cb[i]));
        }
        const double issued = lab_st_wall_ms() - t0;
        ST_TRY(cudaDeviceSynchronize());
        const double done = lab_st_wall_ms() - t0;
        static const char *const cols[] = {"stream", "callback at ms", "order", "wrong elements"};
        char note[700];
        snprintf(note, sizeof note,
                 "cudaLaunchHostFunc queues a host function in a stream: it runs (on a runtime thread) "
                 "after the stream's earlier work and before its later work, so each chunk is checked on "
                 "the host as soon as its copy out lands, while later chunks still copy and compute. %d "
                 "chunks of %zu floats on 2 streams; issuing took %.3f ms, all done at %.3f ms. A "
                 "callback must not call CUDA.",
                 CB_CHUNKS, CB_N, issued, done);
        lab_st_table *t = lab_st_table_new(r, "host callbacks in a pipeline (cudaLaunchHostFunc)", note, 4, cols);
        int last[2] = {0, 0};
        for (int i = 0; i < CB_CHUNKS; i++) {
            char label[72];
            snprintf(label, sizeof label, "chunk %d", i);
            const double v[4] = {i % 2, cb[i].t_ms, cb[i].order, (double)cb[i].bad};
            const int in_order = cb[i].order > last[i % 2];
            last[i % 2] = cb[i].order;
            r->bad += cb[i].bad != 0 || !in_order || !cb[i].order;
            lab_st_row(t, label, v, !cb[i].order ? "NEVER RAN" : cb[i].bad ? "WRONG DATA" : in_order ? "ok" : "OUT OF ORDER");
        }
    }

    /* A chain of small kernels: launched one by one, then as a graph. */
    {
        static const char *const cols[] = {"device us/kernel", "host us/kernel", "total ms"};
        char note[800];
        snprintf(note, sizeof note,
                 "A chain of %d dependent one-block kernels (x[i] += 1 over %u floats), %d times: "
                 "launched on a stream one by one, then captured once (cudaStreamBeginCapture / "
                 "EndCapture) into a graph and launched with cudaGraphLaunch. device: event time a kernel; "
                 "host: the time to issue a kernel (a graph launch issues %d). Graphs remove the CPU "
                 "launch cost and let the GPU start each kernel right after the previous one. "
                 "cudaGraphExecUpdate gives an instantiated graph new kernel arguments (same topology) "
                 "instead of instantiating again.",
                 GR_KERNELS, GR_N, GR_REPS, GR_KERNELS);
        lab_st_table *t = lab_st_table_new(r, "CUDA graphs: launch overhead of a chain of small kernels", note, 3, cols);
        ST_TRY(cudaMemset(x, 0, GR_N * sizeof *x));
        for (int k = 0; k < GR_KERNELS; k++) ST_TRY(lab_st_inc(st[0], x, GR_N, 1.0f)); /* warm-up */
        ST_TRY(cudaStreamSynchronize(st[0]));
        double h0 = lab_st_wall_ms();
        ST_TRY(cudaEventRecord(e0, st[0]));
        for (int rep = 0; rep < GR_REPS; rep++)
            for (int k = 0; k < GR_KERNELS; k++) ST_TRY(lab_st_inc(st[0], x, GR_N, 1.0f));
        ST_TRY(cudaEventRecord(e1, st[0]));
        double h1 = lab_st_wall_ms();
        ST_TRY(cudaEventSynchronize(e1));
        float dms = 0;
        ST_TRY(cudaEventElapsedTime(&dms, e0, e1));
        const double per = 1.0 / (GR_REPS * GR_KERNELS);
        double v[3] = {dms * 1e3 * per, (h1 - h0) * 1e3 * per, dms};
        lab_st_row(t, "stream launches", v, "");

        h0 = lab_st_wall_ms();
        ST_TRY(cudaStreamBeginCapture(st[0], cudaStreamCaptureModeThreadLocal));
        for (int k = 0; k < GR_KERNELS; k++) ST_TRY(lab_st_inc(st[0], x, GR_N, 1.0f));
        ST_TRY(cudaStreamEndCapture(st[0], &g));
        ST_TRY(cudaGraphInstantiate(&ge, g, 0));
        const double inst_ms = lab_st_wall_ms() - h0;
        ST_TRY(cudaGraphLaunch(ge, st[0])); /* warm-up (uploads the graph) */
        ST_TRY(cudaStreamSynchronize(st[0]));
        h0 = lab_st_wall_ms();
        ST_TRY(cudaEventRecord(e0, st[0]));
        for (int rep = 0; rep < GR_REPS; rep++) ST_TRY(cudaGraphLaunch(ge, st[0]));
        ST_TRY(cudaEventRecord(e1, st[0]));
        h1 = lab_st_wall_ms();
        ST_TRY(cudaEventSynchronize(e1));
        ST_TRY(cudaEventElapsedTime(&dms, e0, e1));
        v[0] = dms * 1e3 * per;
        v[1] = (h1 - h0) * 1e3 * per;
        v[2] = dms;
        lab_st_row(t, "graph launches", v, "");
        v[0] = NAN;
        v[1] = inst_ms * 1e3;
        v[2] = inst_ms;
        lab_st_row(t, "capture + instantiate (once)", v, "host us in the middle column");

        /* the same chain adding 2: update the executable graph */
        ST_TRY(cudaStreamBeginCapture(st[0], cudaStreamCaptureModeThreadLocal));
        for (int k = 0; k < GR_KERNELS; k++) ST_TRY(lab_st_inc(st[0], x, GR_N, 2.0f));
        ST_TRY(cudaStreamEndCapture(st[0], &g2));
        cudaGraphExecUpdateResultInfo info;
        memset(&info, 0, sizeof info);
        h0 = lab_st_wall_ms();
        ST_TRY(cudaGraphExecUpdate(ge, g2, &info));
        const double upd_ms = lab_st_wall_ms() - h0;
        h0 = lab_st_wall_ms();
        ST_TRY(cudaGraphInstantiate(&ge2, g2, 0));
        const double inst2_ms = lab_st_wall_ms() - h0;
        ST_TRY(cudaGraphLaunch(ge, st[0])); /* the updated graph: + 2 a kernel */
        ST_TRY(cudaStreamSynchronize(st[0]));
        v[1] = upd_ms * 1e3;
        v[2] = upd_ms;
        lab_st_row(t, "cudaGraphExecUpdate (add 2 instead of 1)", v, "host us in the middle column");
        v[1] = inst2_ms * 1e3;
        v[2] = inst2_ms;
        lab_st_row(t, "cudaGraphInstantiate of the new graph", v, "host us in the middle column");

        /* x = warm-up + stream + graph warm-up + graphs, all + 1 a kernel,
         * then one updated launch, + 2 a kernel */
        float hx[GR_N];
        ST_TRY(cudaMemcpy(hx, x, sizeof hx, cudaMemcpyDeviceToHost));
        const float want = (float)(GR_KERNELS * (1 + GR_REPS + 1 + GR_REPS) + 2 * GR_KERNELS);
        size_t bad = 0;
        for (unsigned i = 0; i < GR_N; i++) bad += hx[i] != want;
        r->bad += bad != 0;
        lab_st_row(t, "check: x after every launch", NULL, bad ? "WRONG: a launch was lost or the update failed" : "ok");
    }
out:
    (void)cudaGetLastError();
    cudaDeviceSynchronize();
    if (ge) cudaGraphExecDestroy(ge);
    if (ge2) cudaGraphExecDestroy(ge2);
    if (g) cudaGraphDestroy(g);
    if (g2) cudaGraphDestroy(g2);
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    for (int i = 0; i < 2; i++)
        if (st[i]) cudaStreamDestroy(st[i]);
    cudaFreeHost(h);
    cudaFree(d);
    cudaFree(x);
    return s;
}
