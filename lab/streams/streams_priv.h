/* SPDX-License-Identifier: Apache-2.0 */
/* streams_priv.h — what the streams lab's runners share (streams_lab.c:
 * overlap, scheduling, priorities; streams_sync.c: events, which calls block,
 * callbacks and graphs): report building, clocks, stamps, the error macro. */
#ifndef CUPAT_LAB_STREAMS_PRIV_H
#define CUPAT_LAB_STREAMS_PRIV_H

#include "streams/streams.h"

#include "internal.h"

/* A CUDA call inside a runner: on failure record it on ctx and jump to the
 * runner's `out:` (which frees what it made). Needs `cupat_status s`. */
#define ST_TRY(call)                                                                     \
    do {                                                                                 \
        cudaError_t st_e_ = (call);                                                      \
        if (st_e_ != cudaSuccess) {                                                      \
            s = cupat__cuda(ctx, st_e_, #call);                                          \
            goto out;                                                                    \
        }                                                                                \
    } while (0)

cupat_status lab_st_need_cuda(cupat_ctx *ctx);
/* The CUDA backend, o and r non-NULL, every option in its range. */
cupat_status lab_st_check(cupat_ctx *ctx, const lab_st_opts *o, lab_st_report *r);
double lab_st_wall_ms(void); /* CLOCK_MONOTONIC */
double lab_st_cpu_ms(void);  /* CLOCK_PROCESS_CPUTIME_ID: every thread's CPU time */
double lab_st_median(double *v, int n); /* sorts v */

/* A new table / timeline in r (NULL when r is full: the runner skips it). */
lab_st_table *lab_st_table_new(lab_st_report *r, const char *title, const char *note, int ncols,
                               const char *const *cols);
void lab_st_row(lab_st_table *t, const char *label, const double *v, const char *verdict);
lab_st_timeline *lab_st_timeline_new(lab_st_report *r, const char *title, int nlanes,
                                     const char *lane_fmt);
void lab_st_span_add(lab_st_timeline *tl, int lane, char kind, int item, double t0, double t1);

/* Stamps of spin kernels (streams.h): `slots` start / end pairs. */
typedef struct lab_st_stamps {
    unsigned long long *d, *h;
    int slots;
} lab_st_stamps;
cudaError_t lab_st_stamps_new(lab_st_stamps *st, int slots);
cudaError_t lab_st_stamps_reset(lab_st_stamps *st, cudaStream_t s); /* 0xff, ordered on s */
cudaError_t lab_st_stamps_read(lab_st_stamps *st);                  /* synchronizes the device */
void lab_st_stamps_free(lab_st_stamps *st);
/* ms of slot i's start / end from the earliest start of slots [0, n). */
double lab_st_stamp_ms(const lab_st_stamps *st, int n, int i, int end);
/* The most kernels of slots [0, n) that ran at once, and the span from the
 * first start to the last end (ms). */
int lab_st_max_concurrent(const lab_st_stamps *st, int n, double *total_ms);

/* Verdicts from the measurements (pure; tests/test_streams_lab.c). buf
 * receives the text; the functions return buf. */
/* `launched` independent kernels, one a stream, `most` of them seen at once. */
const char *lab_st_many_verdict(char *buf, size_t n, int most, int launched, int connections);
/* Short kernels beside a long one of blocks of block_ms: with or without
 * the greatest priority, the first and the worst latency. */
const char *lab_st_priority_verdict(char *buf, size_t n, int with, double first_ms, double max_ms,
                                    double block_ms);
/* The host's CPU time during an event wait, in % of the wait. */
const char *lab_st_cpu_verdict(char *buf, size_t n, int blocking, double cpu_pct);
/* Host cost with a timing event over without (ratio). */
const char *lab_st_timing_verdict(char *buf, size_t n, double ratio);

#endif
