/* SPDX-License-Identifier: Apache-2.0 */
/* streams_lab.c — the runners of `cupat lab streams` that schedule work:
 * overlap of copies and kernels over N streams (PCCP 6.1.1), false
 * dependencies and Hyper-Q (6.1.2), the NULL stream against blocking and
 * non-blocking streams (6.1.5's kernel_1/2/3), stream priorities (6.1.3);
 * and the report helpers every runner uses (streams_priv.h). */
#define _POSIX_C_SOURCE 200809L
#include "streams/streams_priv.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------ helpers -- */

cupat_status lab_st_need_cuda(cupat_ctx *ctx)
{
    if (!ctx) return cupat__fail(NULL, CUPAT_ERROR_NULL_POINTER, "lab streams: ctx is NULL");
    if (cupat_get_backend(ctx) != CUPAT_BACKEND_CUDA)
        return cupat__fail(ctx, CUPAT_ERROR_NOT_SUPPORTED, "lab streams: the experiments need the CUDA backend");
    return CUPAT_SUCCESS;
}

static double clock_ms(clockid_t c)
{
    struct timespec t;
    clock_gettime(c, &t);
    return 1e3 * (double)t.tv_sec + 1e-6 * (double)t.tv_nsec;
}

double lab_st_wall_ms(void)
{
    return clock_ms(CLOCK_MONOTONIC);
}

double lab_st_cpu_ms(void)
{
    return clock_ms(CLOCK_PROCESS_CPUTIME_ID);
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double lab_st_median(double *v, int n)
{
    if (n <= 0) return NAN;
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

lab_st_table *lab_st_table_new(lab_st_report *r, const char *title, const char *note, int ncols,
                               const char *const *cols)
{
    if (r->ntables >= LAB_ST_TABLES) return NULL;
    lab_st_table *t = &r->t[r->ntables++];
    memset(t, 0, sizeof *t);
    snprintf(t->title, sizeof t->title, "%s", title);
    snprintf(t->note, sizeof t->note, "%s", note ? note : "");
    t->ncols = ncols < LAB_ST_COLS ? ncols : LAB_ST_COLS;
    for (int c = 0; c < t->ncols; c++) snprintf(t->cols[c], sizeof t->cols[c], "%s", cols[c]);
    return t;
}

void lab_st_row(lab_st_table *t, const char *label, const double *v, const char *verdict)
{
    if (!t || t->nrows >= LAB_ST_ROWS) return;
    const int i = t->nrows++;
    snprintf(t->label[i], sizeof t->label[i], "%s", label);
    for (int c = 0; c < t->ncols; c++) t->v[i][c] = v ? v[c] : NAN;
    snprintf(t->verdict[i], sizeof t->verdict[i], "%s", verdict ? verdict : "");
}

lab_st_timeline *lab_st_timeline_new(lab_st_report *r, const char *title, int nlanes,
                                     const char *lane_fmt)
{
    if (r->ntimelines >= LAB_ST_TIMELINES) return NULL;
    lab_st_timeline *tl = &r->tl[r->ntimelines++];
    memset(tl, 0, sizeof *tl);
    snprintf(tl->title, sizeof tl->title, "%s", title);
    tl->nlanes = nlanes < LAB_ST_LANES ? nlanes : LAB_ST_LANES;
    for (int l = 0; l < tl->nlanes; l++) snprintf(tl->lanes[l], sizeof tl->lanes[l], lane_fmt, l);
    return tl;
}

void lab_st_span_add(lab_st_timeline *tl, int lane, char kind, int item, double t0, double t1)
{
    if (!tl || tl->n >= LAB_ST_SPANS || lane < 0 || lane >= tl->nlanes) return;
    lab_st_span *p = &tl->s[tl->n++];
    p->lane = lane;
    p->kind = kind;
    p->item = item;
    p->t0 = t0;
    p->t1 = t1;
}

cudaError_t lab_st_stamps_new(lab_st_stamps *st, int slots)
{
    st->slots = slots;
    st->d = NULL;
    st->h = calloc((size_t)slots * 2, sizeof *st->h);
    if (!st->h) return cudaErrorMemoryAllocation;
    return cudaMalloc((void **)&st->d, (size_t)slots * 2 * sizeof *st->d);
}

cudaError_t lab_st_stamps_reset(lab_st_stamps *st, cudaStream_t s)
{
    return cudaMemsetAsync(st->d, 0xff, (size_t)st->slots * 2 * sizeof *st->d, s);
}

cudaError_t lab_st_stamps_read(lab_st_stamps *st)
{
    cudaError_t e = cudaDeviceSynchronize();
    if (e == cudaSuccess)
        e = cudaMemcpy(st->h, st->d, (size_t)st->slots * 2 * sizeof *st->h, cudaMemcpyDeviceToHost);
    return e;
}

void lab_st_stamps_free(lab_st_stamps *st)
{
    if (st->d) cudaFree(st->d);
    free(st->h);
    st->d = NULL;
    st->h = NULL;
}

static unsigned long long stamp_ns(const lab_st_stamps *st, int i, int end)
{
    return end ? ~st->h[2 * i + 1] : st->h[2 * i];
}

double lab_st_stamp_ms(const lab_st_stamps *st, int n, int i, int end)
{
    unsigned long long z = ~0ull;
    for (int k = 0; k < n; k++)
        if (stamp_ns(st, k, 0) < z) z = stamp_ns(st, k, 0);
    return 1e-6 * (double)(stamp_ns(st, i, end) - z);
}

int lab_st_max_concurrent(const lab_st_stamps *st, int n, double *total_ms)
{
    int best = 0;
    double last = 0;
    for (int i = 0; i < n; i++) { /* at each start, how many run */
        const unsigned long long t = stamp_ns(st, i, 0);
        int c = 0;
        for (int k = 0; k < n; k++) c += stamp_ns(st, k, 0) <= t && t < stamp_ns(st, k, 1);
        if (c > best) best = c;
        const double e = lab_st_stamp_ms(st, n, i, 1);
        if (e > last) last = e;
    }
    if (total_ms) *total_ms = last;
    return best;
}

const char *lab_st_many_verdict(char *buf, size_t n, int most, int launched, int connections)
{
    if (most >= launched)
        snprintf(buf, n, "all %d at once: independent kernels share a queue freely", launched);
    else if (most == connections)
        snprintf(buf, n, "%d at once: limited by the connections", most);
    else
        snprintf(buf, n, "at most %d of %d at once", most, launched);
    return buf;
}

const char *lab_st_priority_verdict(char *buf, size_t n, int with, double first_ms, double max_ms,
                                    double block_ms)
{
    if (with)
        snprintf(buf, n, max_ms <= 2 * block_ms ? "next free slot: every one within 2 long blocks"
                                                : "waited more than 2 long blocks: priority not seen");
    else
        snprintf(buf, n, first_ms > 4 * block_ms ? "the first waited for the long kernel's blocks"
                                                 : "the first did not wait for the long kernel");
    return buf;
}

void lab_streams_defaults(lab_st_opts *o)
{
    o->bytes = (size_t)64 << 20;
    o->streams = 4;
    o->reps = 5;
    o->heavy_iters = 4000;
    o->spin_ms = 2.0;
}

cupat_status lab_st_check(cupat_ctx *ctx, const lab_st_opts *o, lab_st_report *r)
{
    CUPAT_TRY(lab_st_need_cuda(ctx));
    if (!o || !r) return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "lab streams: %s is NULL", !o ? "opts" : "report");
    if (o->streams < 1 || o->streams > 32)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab streams: streams = %d (1 to 32)", o->streams);
    if (o->bytes < ((size_t)1 << 20) || o->bytes > ((size_t)16 << 30))
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab streams: bytes = %zu (1 MiB to 16 GiB)", o->bytes);
    if (o->reps < 1 || o->reps > 100)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab streams: reps = %d (1 to 100)", o->reps);
    if (o->heavy_iters < 1 || o->heavy_iters > 100000)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab streams: heavy_iters = %d (1 to 100000)",
                           o->heavy_iters);
    if (!(o->spin_ms >= 0.05 && o->spin_ms <= 100))
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab streams: spin_ms = %g (0.05 to 100)", o->spin_ms);
    return CUPAT_SUCCESS;
}

static unsigned long long spin_ns(double ms)
{
    return (unsigned long long)(ms * 1e6);
}

/* ------------------------------------------------------------- overlap -- */

#define OV_EVENTS (32 * 6 + 2)

static float ev_ms(cudaEvent_t a, cudaEvent_t b)
{
    float ms = NAN;
    if (cudaEventElapsedTime(&ms, a, b) != cudaSuccess) {
        (void)cudaGetLastError();
        return NAN;
    }
    return ms;
}

/* One run of the loop: N == 1 is the serial version (whole arrays, one
 * stream); else chunk i's H2D (a and b), kernel and D2H on stream i. Fills
 * per-stage sums (serial: the stage times) and the total; tl may be NULL. */
static cupat_status ov_run(cupat_ctx *ctx, cudaStream_t *st, cudaEvent_t *ev, int N, size_t n,
                           const float *ha, const float *hb, float *hc, float *da, float *db, float *dc,
                           int iters, double stage[3], double *total, lab_st_timeline *tl)
{
    cupat_status s = CUPAT_SUCCESS;
    const size_t per = n / (size_t)N;
    ST_TRY(cudaEventRecord(ev[0], st[0]));
    for (int i = 1; i < N; i++) ST_TRY(cudaStreamWaitEvent(st[i], ev[0], 0));
    for (int i = 0; i < N; i++) {
        const size_t off = (size_t)i * per, m = i == N - 1 ? n - off : per;
        cudaEvent_t *e = ev + 1 + 4 * i;
        ST_TRY(cudaEventRecord(e[0], st[i]));
        ST_TRY(cudaMemcpyAsync(da + off, ha + off, m * 4, cudaMemcpyHostToDevice, st[i]));
        ST_TRY(cudaMemcpyAsync(db + off, hb + off, m * 4, cudaMemcpyHostToDevice, st[i]));
        ST_TRY(cudaEventRecord(e[1], st[i]));
        ST_TRY(lab_st_vadd(st[i], da + off, db + off, dc + off, m, iters));
        ST_TRY(cudaEventRecord(e[2], st[i]));
        ST_TRY(cudaMemcpyAsync(hc + off, dc + off, m * 4, cudaMemcpyDeviceToHost, st[i]));
        ST_TRY(cudaEventRecord(e[3], st[i]));
    }
    ST_TRY(cudaDeviceSynchronize());
    stage[0] = stage[1] = stage[2] = 0;
    *total = 0;
    for (int i = 0; i < N; i++) {
        cudaEvent_t *e = ev + 1 + 4 * i;
        double t[4];
        for (int k = 0; k < 4; k++) t[k] = ev_ms(ev[0], e[k]);
        for (int k = 0; k < 3; k++) {
            stage[k] += t[k + 1] - t[k];
            lab_st_span_add(tl, i, "HKD"[k], i, t[k], t[k + 1]);
        }
        if (t[3] > *total) *total = t[3];
    }
out:
    return s;
}

/* About 2000 elements spread over c against the host: vadd exact; the
 * chain by the same fmaf steps. */
static size_t ov_check(const float *ha, const float *hb, const float *hc, size_t n, int iters)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i += n / 2039 + 1) {
        float v = ha[i] + hb[i];
        for (int k = 0; k < iters; k++) v = fmaf(v, 0.999f, hb[i]);
        bad += memcmp(&v, &hc[i], 4) != 0;
    }
    return bad;
}

cupat_status lab_streams_overlap(cupat_ctx *ctx, const lab_st_opts *o, lab_st_report *r)
{
    CUPAT_TRY(lab_st_check(ctx, o, r));
    cupat_status s = CUPAT_SUCCESS;
    const int N = o->streams;
    const size_t n = o->bytes / 4;
    float *ha = NULL, *hb = NULL, *hc = NULL, *da = NULL, *db = NULL, *dc = NULL;
    cudaStream_t st[32] = {0};
    cudaEvent_t ev[OV_EVENTS] = {0};
    double *tt = calloc((size_t)o->reps, sizeof *tt);
    if (!tt) return cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY, "lab streams: out of host memory");
    ST_TRY(cudaMallocHost((void **)&ha, n * 4));
    ST_TRY(cudaMallocHost((void **)&hb, n * 4));
    ST_TRY(cudaMallocHost((void **)&hc, n * 4));
    ST_TRY(cudaMalloc((void **)&da, n * 4));
    ST_TRY(cudaMalloc((void **)&db, n * 4));
    ST_TRY(cudaMalloc((void **)&dc, n * 4));
    for (int i = 0; i < N; i++) ST_TRY(cudaStreamCreateWithFlags(&st[i], cudaStreamNonBlocking));
    for (int i = 0; i < OV_EVENTS; i++) ST_TRY(cudaEventCreate(&ev[i]));
    for (size_t i = 0; i < n; i++) {
        ha[i] = (float)(i % 1000) * 0.001f;
        hb[i] = (float)(i % 77) * 0.01f - 0.3f;
    }

    static const char *const cols[] = {"total ms", "H2D ms", "kernel ms", "D2H ms", "ideal ms", "speed-up",
                                       "% of ideal"};
    char title[200], note[1200];
    snprintf(title, sizeof title,
             "overlap: H2D (a, b), kernel, D2H (c) of %zu MiB arrays, serial vs %d chunks on %d streams "
             "(median of %d)",
             o->bytes >> 20, N, N, o->reps);
    snprintf(note, sizeof note,
             "PCCP 6.1.1: the loop issues chunk i's copy in, kernel and copy out to stream i; with pinned "
             "memory, non-default streams and separate copy engines the stages of different chunks "
             "overlap. PCCP's figure: 3 streams turn 9 equal slots into 5 (1.8x). ideal = (sum of the "
             "stages + (N - 1) x the longest) / N for N equal chunks (the copy-engine bound when the "
             "copies are the longest stage); %% of ideal = (serial - streamed) / (serial - ideal). "
             "H2D/kernel/D2H columns: the stage sums (streamed: bars include waits for an engine). "
             "vadd is copy-bound; the heavy kernel runs %d dependent FMAs an element.",
             o->heavy_iters);
    lab_st_table *t = lab_st_table_new(r, title, note, 7, cols);
    for (int heavy = 0; heavy < 2; heavy++) {
        const int iters = heavy ? o->heavy_iters : 0;
        const char *name = heavy ? "heavy" : "vadd";
        double serial_stage[3] = {0}, serial = 0;
        for (int pass = 0; pass < 2; pass++) { /* serial, then streamed */
            const int chunks = pass ? N : 1;
            double stage[3] = {0}, tot = 0, med_stage[3] = {0};
            lab_st_timeline *tl = NULL;
            for (int rep = 0; rep < o->reps; rep++) {
                if (rep == o->reps - 1 && (heavy || pass)) {
                    char tt_title[160];
                    snprintf(tt_title, sizeof tt_title, "overlap: %s, %s", name,
                             pass ? "one chunk a stream" : "serial (one stream)");
                    tl = lab_st_timeline_new(r, tt_title, chunks, "stream %d");
                }
                memset(hc, 0xff, n * 4);
                s = ov_run(ctx, st, ev, chunks, n, ha, hb, hc, da, db, dc, iters, stage, &tot, tl);
                if (s) goto out;
                tt[rep] = tot;
                for (int k = 0; k < 3; k++) med_stage[k] += stage[k] / o->reps;
                size_t bad = ov_check(ha, hb, hc, n, iters);
                if (bad) {
                    r->bad++;
                    lab_st_row(t, "WRONG RESULT", NULL, "c differs from the host's a + b");
                }
            }
            tot = lab_st_median(tt, o->reps);
            if (!pass) {
                serial = tot;
                memcpy(serial_stage, med_stage, sizeof serial_stage);
            }
            const double mx = fmax(serial_stage[0], fmax(serial_stage[1], serial_stage[2]));
            const double ideal = (serial_stage[0] + serial_stage[1] + serial_stage[2] + (N - 1) * mx) / N;
            char label[72];
            snprintf(label, sizeof label, "%s, %s", name, pass ? "streams" : "serial");
            const double v[7] = {tot, med_stage[0], med_stage[1], med_stage[2], pass ? ideal : NAN,
                                 pass ? serial / tot : 1.0,
                                 pass ? 100.0 * (serial - tot) / (serial - ideal) : NAN};
            char verdict[64] = "";
            if (pass)
                snprintf(verdict, sizeof verdict, "bound: %s", mx == serial_stage[1] ? "kernel" : "copies");
            lab_st_row(t, label, v, verdict);
        }
    }

    /* Bidirectional: each direction alone, then both at once (lecture:
     * "Other Sources of Concurrency"; CUDA Guide: concurrent data transfers). */
    {
        static const char *const bcols[] = {"ms", "H2D GB/s", "D2H GB/s", "sum GB/s"};
        snprintf(title, sizeof title, "bidirectional copies: %zu MiB each way, pinned (median of %d)",
                 o->bytes >> 20, o->reps);
        lab_st_table *b = lab_st_table_new(
            r, title,
            "Two copy engines: a host-to-device and a device-to-host copy on two streams run at once "
            "(PCIe is full duplex); the same direction twice would share one engine.",
            4, bcols);
        lab_st_timeline *tl = NULL;
        for (int mode = 0; mode < 3; mode++) { /* 0 H2D, 1 D2H, 2 both */
            double ms[100], h2d = 0, d2h = 0;
            for (int rep = 0; rep < o->reps; rep++) {
                if (mode == 2 && rep == o->reps - 1) tl = lab_st_timeline_new(r, "bidirectional: both at once", 2, "stream %d");
                ST_TRY(cudaEventRecord(ev[0], st[0]));
                if (N > 1) ST_TRY(cudaStreamWaitEvent(st[1], ev[0], 0));
                cudaStream_t s2 = N > 1 ? st[1] : st[0];
                if (mode != 1) {
                    ST_TRY(cudaEventRecord(ev[1], st[0]));
                    ST_TRY(cudaMemcpyAsync(da, ha, n * 4, cudaMemcpyHostToDevice, st[0]));
                    ST_TRY(cudaEventRecord(ev[2], st[0]));
                }
                if (mode != 0) {
                    ST_TRY(cudaEventRecord(ev[3], s2));
                    ST_TRY(cudaMemcpyAsync(hc, dc, n * 4, cudaMemcpyDeviceToHost, s2));
                    ST_TRY(cudaEventRecord(ev[4], s2));
                }
                ST_TRY(cudaDeviceSynchronize());
                double a0 = mode != 1 ? ev_ms(ev[0], ev[1]) : 0, a1 = mode != 1 ? ev_ms(ev[0], ev[2]) : 0;
                double b0 = mode != 0 ? ev_ms(ev[0], ev[3]) : 0, b1 = mode != 0 ? ev_ms(ev[0], ev[4]) : 0;
                ms[rep] = fmax(a1, b1);
                if (mode != 1) h2d += (double)n * 4 / ((a1 - a0) * 1e-3) / 1e9 / o->reps;
                if (mode != 0) d2h += (double)n * 4 / ((b1 - b0) * 1e-3) / 1e9 / o->reps;
                if (tl) {
                    lab_st_span_add(tl, 0, 'H', 0, a0, a1);
                    lab_st_span_add(tl, 1, 'D', 0, b0, b1);
                }
            }
            const double m = lab_st_median(ms, o->reps);
            const double v[4] = {m, mode != 1 ? h2d : NAN, mode != 0 ? d2h : NAN,
                                 (double)n * 4 * (mode == 2 ? 2 : 1) / (m * 1e-3) / 1e9};
            lab_st_row(b, mode == 0 ? "H2D alone" : mode == 1 ? "D2H alone" : "H2D + D2H at once", v, "");
        }
    }
out:
    for (int i = 0; i < OV_EVENTS; i++)
        if (ev[i]) cudaEventDestroy(ev[i]);
    for (int i = 0; i < N; i++)
        if (st[i]) cudaStreamDestroy(st[i]);
    cudaFreeHost(ha);
    cudaFreeHost(hb);
    cudaFreeHost(hc);
    cudaFree(da);
    cudaFree(db);
    cudaFree(dc);
    free(tt);
    return s;
}

/* ----------------------------------------------------- false dependencies -- */

#define FD_STREAMS 4
#define FD_KERNELS 4
#define FD_MANY 64

static void stamps_timeline(lab_st_timeline *tl, const lab_st_stamps *sp, int n, int per_lane, char kind)
{
    for (int i = 0; i < n; i++)
        lab_st_span_add(tl, i / per_lane, kind, i % per_lane, lab_st_stamp_ms(sp, n, i, 0), lab_st_stamp_ms(sp, n, i, 1));
}

cupat_status lab_streams_falsedep(cupat_ctx *ctx, const lab_st_opts *o, int connections, lab_st_report *r)
{
    CUPAT_TRY(lab_st_check(ctx, o, r));
    cupat_status s = CUPAT_SUCCESS;
    cudaStream_t st[FD_MANY] = {0};
    lab_st_stamps sp = {0};
    ST_TRY(lab_st_stamps_new(&sp, FD_MANY));
    for (int i = 0; i < FD_MANY; i++) ST_TRY(cudaStreamCreateWithFlags(&st[i], cudaStreamNonBlocking));
    static const char *const cols[] = {"total ms", "x spin", "max at once", "expected x spin"};
    char title[200], note[1200];
    snprintf(title, sizeof title,
             "false dependencies: %d streams x %d one-block kernels of %.2f ms, CUDA_DEVICE_MAX_CONNECTIONS=%d",
             FD_STREAMS, FD_KERNELS, o->spin_ms, connections);
    snprintf(note, sizeof note,
             "PCCP 6.1.2: with one hardware work queue the streams' kernels queue in issue order, and a "
             "kernel waiting for its predecessor blocks every kernel behind it: depth-first issue (stream "
             "by stream) overlaps only a stream's last kernel with the next stream's first (PCCP: of "
             "A-B-C, D-E-F, G-H-I only C||D and F||G), %d x spin instead of %d; breadth-first issue "
             "(kernel k of every stream, then k + 1) runs all %d streams at once. Hyper-Q (Kepler on) "
             "gives a queue a stream up to CUDA_DEVICE_MAX_CONNECTIONS (default 8, at most 32). Last row: "
             "%d streams, one kernel each: how many run at once (lecture: at most 32 on cc 3.5; 128 "
             "since Volta); a single queue holds back only a kernel behind one that waits, so these "
             "independent kernels may all run at once even with one connection.",
             FD_STREAMS * FD_KERNELS - (FD_STREAMS - 1), FD_KERNELS, FD_STREAMS, FD_MANY);
    lab_st_table *t = lab_st_table_new(r, title, note, 4, cols);
    const int nk = FD_STREAMS * FD_KERNELS;
    for (int breadth = 0; breadth < 2; breadth++) {
        ST_TRY(lab_st_stamps_reset(&sp, st[0]));
        ST_TRY(cudaStreamSynchronize(st[0]));
        for (int a = 0; a < FD_STREAMS; a++)
            for (int b = 0; b < FD_KERNELS; b++) {
                const int str = breadth ? b : a, k = breadth ? a : b; /* breadth: a walks kernels */
                ST_TRY(lab_st_spin(st[str], 1, 32, spin_ns(o->spin_ms), sp.d, str * FD_KERNELS + k));
            }
        ST_TRY(lab_st_stamps_read(&sp));
        double total;
        const int most = lab_st_max_concurrent(&sp, nk, &total);
        const double one_queue = breadth ? FD_KERNELS : FD_STREAMS * FD_KERNELS - (FD_STREAMS - 1);
        const double v[4] = {total, total / o->spin_ms, most, connections == 1 ? one_queue : FD_KERNELS};
        const double x = total / o->spin_ms;
        lab_st_row(t, breadth ? "breadth-first issue" : "depth-first issue", v,
                   x < FD_KERNELS * 1.3 ? "streams ran concurrently" : x > FD_KERNELS * 2 ? "false dependencies: serialized" : "partly serialized");
        char tt[160];
        snprintf(tt, sizeof tt, "false dependencies: %s issue, CUDA_DEVICE_MAX_CONNECTIONS=%d",
                 breadth ? "breadth-first" : "depth-first", connections);
        stamps_timeline(lab_st_timeline_new(r, tt, FD_STREAMS, "stream %d"), &sp, nk, FD_KERNELS, 'K');
    }
    /* many streams, one kernel each */
    ST_TRY(lab_st_stamps_reset(&sp, st[0]));
    ST_TRY(cudaStreamSynchronize(st[0]));
    for (int i = 0; i < FD_MANY; i++) ST_TRY(lab_st_spin(st[i], 1, 32, spin_ns(o->spin_ms), sp.d, i));
    ST_TRY(lab_st_stamps_read(&sp));
    {
        double total;
        const int most = lab_st_max_concurrent(&sp, FD_MANY, &total);
        /* 64 one-block kernels fit the device at once (128 resident grids
         * since Volta): 1 x spin when nothing holds them back */
        const double v[4] = {total, total / o->spin_ms, most, 1};
        char label[72], verdict[96];
        snprintf(label, sizeof label, "%d streams x 1 kernel", FD_MANY);
        lab_st_row(t, label, v, lab_st_many_verdict(verdict, sizeof verdict, most, FD_MANY, connections));
    }
out:
    for (int i = 0; i < FD_MANY; i++)
        if (st[i]) cudaStreamDestroy(st[i]);
    lab_st_stamps_free(&sp);
    return s;
}

/* ------------------------------------------------------------ NULL stream -- */

cupat_status lab_streams_nullstream(cupat_ctx *ctx, const lab_st_opts *o, lab_st_report *r)
{
    CUPAT_TRY(lab_st_check(ctx, o, r));
    cupat_status s = CUPAT_SUCCESS;
    lab_st_stamps sp = {0};
    cudaStream_t s1 = NULL, s2 = NULL;
    ST_TRY(lab_st_stamps_new(&sp, 3));
    static const char *const cols[] = {"total ms", "x spin", "max at once"};
    char note[1200];
    snprintf(note, sizeof note,
             "PCCP 6.1.5: kernel_1<<<1, 1, 0, stream_1>>>; kernel_2<<<1, 1>>> (the NULL stream); "
             "kernel_3<<<1, 1, 0, stream_2>>>, each a %.2f ms spin. Streams from cudaStreamCreate are "
             "blocking: the legacy NULL stream waits for them and they for it, so the three run one after "
             "another (3 x); cudaStreamNonBlocking streams ignore the NULL stream (1 x). The per-thread "
             "default stream (cudaStreamPerThread, or nvcc --default-stream per-thread) is an ordinary "
             "stream that synchronizes with the legacy stream only, so it runs beside both kinds.",
             o->spin_ms);
    lab_st_table *t = lab_st_table_new(r, "blocking / non-blocking streams and the default stream (kernel_1/2/3)",
                                       note, 3, cols);
    static const struct {
        int nonblocking, per_thread;
        const char *label, *expect;
    } cases[] = {
        {0, 0, "blocking streams, legacy NULL stream", "serialized"},
        {1, 0, "non-blocking streams, legacy NULL stream", "concurrent"},
        {0, 1, "blocking streams, per-thread default stream", "concurrent"},
        {1, 1, "non-blocking streams, per-thread default stream", "concurrent"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const unsigned flags = cases[c].nonblocking ? cudaStreamNonBlocking : cudaStreamDefault;
        ST_TRY(cudaStreamCreateWithFlags(&s1, flags));
        ST_TRY(cudaStreamCreateWithFlags(&s2, flags));
        ST_TRY(lab_st_stamps_reset(&sp, s1));
        ST_TRY(cudaDeviceSynchronize());
        ST_TRY(lab_st_spin(s1, 1, 1, spin_ns(o->spin_ms), sp.d, 0));
        ST_TRY(lab_st_spin(cases[c].per_thread ? cudaStreamPerThread : cudaStreamLegacy, 1, 1,
                           spin_ns(o->spin_ms), sp.d, 1));
        ST_TRY(lab_st_spin(s2, 1, 1, spin_ns(o->spin_ms), sp.d, 2));
        ST_TRY(lab_st_stamps_read(&sp));
        double total;
        const int most = lab_st_max_concurrent(&sp, 3, &total);
        const double x = total / o->spin_ms, v[3] = {total, x, most};
        const char *got = x > 2.5 ? "serialized" : x < 1.5 ? "concurrent" : "partly serialized";
        char verdict[64];
        snprintf(verdict, sizeof verdict, "%s (expected %s)", got, cases[c].expect);
        lab_st_row(t, cases[c].label, v, verdict);
        lab_st_timeline *tl = lab_st_timeline_new(r, cases[c].label, 3, "kernel_%d");
        if (tl) {
            snprintf(tl->lanes[0], sizeof tl->lanes[0], "stream_1");
            snprintf(tl->lanes[1], sizeof tl->lanes[1], "%s", cases[c].per_thread ? "per-thread" : "NULL");
            snprintf(tl->lanes[2], sizeof tl->lanes[2], "stream_2");
        }
        stamps_timeline(tl, &sp, 3, 1, 'K');
        ST_TRY(cudaStreamDestroy(s1));
        s1 = NULL;
        ST_TRY(cudaStreamDestroy(s2));
        s2 = NULL;
    }
out:
    if (s1) cudaStreamDestroy(s1);
    if (s2) cudaStreamDestroy(s2);
    lab_st_stamps_free(&sp);
    return s;
}

/* ------------------------------------------------------------- priorities -- */

#define PR_SHORT 6
#define PR_BLOCK_US 500.0
#define PR_WAVES 24

static void sleep_ms(double ms)
{
    struct timespec t = {(time_t)(ms / 1e3), (long)(fmod(ms, 1e3) * 1e6)};
    nanosleep(&t, NULL);
}

cupat_status lab_streams_priority(cupat_ctx *ctx, const lab_st_opts *o, lab_st_report *r)
{
    CUPAT_TRY(lab_st_check(ctx, o, r));
    cupat_status s = CUPAT_SUCCESS;
    cudaStream_t lo = NULL, hi = NULL;
    lab_st_stamps sp = {0};
    int least = 0, greatest = 0;
    ST_TRY(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    ST_TRY(lab_st_stamps_new(&sp, 1 + PR_SHORT));
    const unsigned per_sm = ctx->max_threads_per_sm >= 1024 ? (unsigned)ctx->max_threads_per_sm / 1024 : 1;
    const unsigned blocks = (unsigned)(ctx->sm_count > 0 ? ctx->sm_count : 1) * per_sm * PR_WAVES;
    static const char *const cols[] = {"priority", "long kernel ms", "first ms", "median ms", "max ms"};
    char note[1200];
    snprintf(note, sizeof note,
             "PCCP 6.1.3: cudaDeviceGetStreamPriorityRange gives least = %d, greatest = %d (lower numbers "
             "are higher priorities; values outside are clamped). A long kernel of %u blocks x 1024 "
             "threads (%d waves of %.0f us blocks) runs on a stream of the least priority; %d one-block "
             "kernels of 20 us are launched one at a time on a second stream while it runs, each waited "
             "for by the host (latency = launch to cudaStreamSynchronize return). Without priority a "
             "short kernel's block waits behind every remaining block of the long one; with it, the "
             "block scheduler gives it the next free slot (about one long block's time). Priorities act "
             "on kernels only, never on copies.",
             least, greatest, blocks, PR_WAVES, PR_BLOCK_US, PR_SHORT);
    lab_st_table *t = lab_st_table_new(r, "stream priorities: short kernels beside a long low-priority kernel",
                                       note, 5, cols);
    for (int with = 0; with < 2; with++) {
        const int hp = with ? greatest : least;
        ST_TRY(cudaStreamCreateWithPriority(&lo, cudaStreamNonBlocking, least));
        ST_TRY(cudaStreamCreateWithPriority(&hi, cudaStreamNonBlocking, hp));
        ST_TRY(lab_st_stamps_reset(&sp, lo));
        ST_TRY(cudaDeviceSynchronize());
        ST_TRY(lab_st_spin(lo, blocks, 1024, spin_ns(PR_BLOCK_US * 1e-3), sp.d, 0));
        sleep_ms(1.0);
        double lat[PR_SHORT], sorted[PR_SHORT];
        for (int k = 0; k < PR_SHORT; k++) {
            const double t0 = lab_st_wall_ms();
            ST_TRY(lab_st_spin(hi, 1, 32, spin_ns(0.02), sp.d, 1 + k));
            ST_TRY(cudaStreamSynchronize(hi));
            lat[k] = sorted[k] = lab_st_wall_ms() - t0;
            sleep_ms(0.5);
        }
        ST_TRY(lab_st_stamps_read(&sp));
        const double v[5] = {hp, lab_st_stamp_ms(&sp, 1 + PR_SHORT, 0, 1) - lab_st_stamp_ms(&sp, 1 + PR_SHORT, 0, 0),
                             lat[0], lab_st_median(sorted, PR_SHORT), sorted[PR_SHORT - 1]};
        char verdict[96];
        lab_st_row(t, with ? "short kernels at the greatest priority" : "short kernels at the same priority", v,
                   lab_st_priority_verdict(verdict, sizeof verdict, with, lat[0], sorted[PR_SHORT - 1],
                                           PR_BLOCK_US * 1e-3));
        lab_st_timeline *tl = lab_st_timeline_new(r, with ? "priorities: short kernels at the greatest priority"
                                                          : "priorities: all at the same priority",
                                                  2, "lane %d");
        if (tl) {
            snprintf(tl->lanes[0], sizeof tl->lanes[0], "low (long)");
            snprintf(tl->lanes[1], sizeof tl->lanes[1], "%s", with ? "high (short)" : "same (short)");
            for (int i = 0; i <= PR_SHORT; i++)
                lab_st_span_add(tl, i ? 1 : 0, i ? 'k' : 'K', i, lab_st_stamp_ms(&sp, 1 + PR_SHORT, i, 0),
                                lab_st_stamp_ms(&sp, 1 + PR_SHORT, i, 1));
        }
        ST_TRY(cudaStreamDestroy(lo));
        lo = NULL;
        ST_TRY(cudaStreamDestroy(hi));
        hi = NULL;
    }
out:
    if (lo) cudaStreamDestroy(lo);
    if (hi) cudaStreamDestroy(hi);
    lab_st_stamps_free(&sp);
    return s;
}
