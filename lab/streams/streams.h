/* SPDX-License-Identifier: Apache-2.0 */
/* streams.h — the streams and concurrency lab (`cupat lab streams`): PCCP
 * 6.1 (streams, scheduling, priorities, events, synchronization), the
 * lecture's "Asynchronous Execution" and "Other Sources of Concurrency", the
 * CUDA Guide's asynchronous concurrent execution, and beyond the books host
 * callbacks and CUDA graphs.
 *
 * Each experiment fills a report: tables (a label, numbers and a verdict a
 * row) and timelines (spans on lanes, milliseconds from the experiment's
 * start), which the CLI prints (a text Gantt chart) and writes as JSON.
 * Kernel spans come from the kernels' own %globaltimer stamps (the first
 * block's start to the last block's end); copy spans from CUDA events
 * recorded around each copy on its stream (a bar starts when its stream
 * reached the copy, so a copy waiting for its engine shows the wait inside
 * its bar). CUPTI is not used.
 * Not library API: linked into the CLI (lab/CMakeLists.txt). Every run
 * function needs the CUDA backend (CUPAT_ERROR_NOT_SUPPORTED otherwise). */
#ifndef CUPAT_LAB_STREAMS_H
#define CUPAT_LAB_STREAMS_H

#include "cupat.h"

#include <cuda_runtime_api.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ reports -- */

#define LAB_ST_SPANS 512
#define LAB_ST_LANES 64
#define LAB_ST_COLS 8
#define LAB_ST_ROWS 48
#define LAB_ST_TABLES 24
#define LAB_ST_TIMELINES 16

/* kind: 'H' host-to-device copy, 'D' device-to-host, 'K' kernel, 'k' a
 * short kernel, 'C' host callback, 'E' event wait; item: the chunk or kernel */
typedef struct lab_st_span {
    int lane, item;
    char kind;
    double t0, t1; /* ms from the timeline's zero */
} lab_st_span;

typedef struct lab_st_timeline {
    char title[160];
    int nlanes, n;
    char lanes[LAB_ST_LANES][24];
    lab_st_span s[LAB_ST_SPANS];
} lab_st_timeline;

typedef struct lab_st_table {
    char title[200];
    char note[1200]; /* what the table shows, and the book's figure */
    int ncols, nrows;
    char cols[LAB_ST_COLS][28];
    char label[LAB_ST_ROWS][72];
    double v[LAB_ST_ROWS][LAB_ST_COLS];
    char verdict[LAB_ST_ROWS][64];
} lab_st_table;

typedef struct lab_st_report {
    int ntables, ntimelines;
    int bad; /* failed checks (wrong data, an order a dependency forbids) */
    lab_st_table t[LAB_ST_TABLES];
    lab_st_timeline tl[LAB_ST_TIMELINES];
} lab_st_report;

/* Options; lab_streams_defaults gives the short defaults. */
typedef struct lab_st_opts {
    size_t bytes;    /* overlap: bytes of each array (a, b, c) */
    int streams;     /* overlap: chunks = streams */
    int reps;        /* timed repetitions, the median reported */
    int heavy_iters; /* overlap: the heavy kernel's FMAs an element */
    double spin_ms;  /* falsedep, nullstream, events: one spin kernel */
} lab_st_opts;
void lab_streams_defaults(lab_st_opts *o);

/* The experiments (each appends its tables and timelines to r). */
cupat_status lab_streams_overlap(cupat_ctx *ctx, const lab_st_opts *o, lab_st_report *r);
/* connections: CUDA_DEVICE_MAX_CONNECTIONS this process runs with (for the
 * titles; the variable must be set before CUDA starts, see the CLI). */
cupat_status lab_streams_falsedep(cupat_ctx *ctx, const lab_st_opts *o, int connections,
                                  lab_st_report *r);
cupat_status lab_streams_nullstream(cupat_ctx *ctx, const lab_st_opts *o, lab_st_report *r);
cupat_status lab_streams_priority(cupat_ctx *ctx, const lab_st_opts *o, lab_st_report *r);
cupat_status lab_streams_events(cupat_ctx *ctx, const lab_st_opts *o, lab_st_report *r);
cupat_status lab_streams_blocking(cupat_ctx *ctx, const lab_st_opts *o, lab_st_report *r);
cupat_status lab_streams_graphs(cupat_ctx *ctx, const lab_st_opts *o, lab_st_report *r);

/* Printing: every table, then every timeline as a Gantt chart `width`
 * columns wide. JSON: {"lab": "streams", "tables": [...], "timelines": [...],
 * "children": [raw...]} where each of the nchild strings is a child
 * process's own report JSON (the falsedep runs). 0 or -1 (errno set). */
void lab_streams_print(FILE *f, const lab_st_report *r, int width);
void lab_streams_print_table(FILE *f, const lab_st_table *t);
void lab_streams_gantt(FILE *f, const lab_st_timeline *tl, int width);
int lab_streams_json(FILE *f, const lab_st_report *r, const char *const *child, int nchild);

/* The kernels (streams.cu); each returns the launch's error. Spin kernels
 * spin every thread for `ns` nanoseconds of %globaltimer; block 0's thread 0
 * of each block folds its start into stamps[2 * slot] (atomicMin) and the
 * complement of its end into stamps[2 * slot + 1] (atomicMin), so a buffer
 * set to 0xff bytes gives the first start and the last end. */
cudaError_t lab_st_spin(cudaStream_t s, unsigned blocks, unsigned threads, unsigned long long ns,
                        unsigned long long *stamps, int slot);
cudaError_t lab_st_vadd(cudaStream_t s, const float *a, const float *b, float *c, size_t n,
                        int iters);
cudaError_t lab_st_inc(cudaStream_t s, float *x, unsigned n, float add);
/* cudaFuncSetCacheConfig on k_inc: PCCP's L1 / shared configuration change. */
cudaError_t lab_st_cache_config(int prefer_shared);

#ifdef __cplusplus
}
#endif
#endif
