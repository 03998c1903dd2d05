/* SPDX-License-Identifier: Apache-2.0 */
/* ncu.h — `cupat bench --ncu`: finding Nsight Compute, running one row of the
 * bench under it (a child `cupat bench ... --ncu-child T:R:NAME` that runs
 * the row's call once untimed, then once between cudaProfilerStart and
 * cudaProfilerStop), and reading what it measured from ncu's CSV. Host code
 * only, no CUDA: tests/test_ncu_parse.c runs all of it on the CPU, with
 * sample CSV and a stand-in ncu. */
#ifndef CUPAT_BENCH_NCU_H
#define CUPAT_BENCH_NCU_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What ncu collects for every kernel of the profiled call. */
#define BENCH_NCU_METRICS                                                                \
    "dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum,"                 \
    "sm__warps_active.avg.pct_of_peak_sustained_active,"                                 \
    "sm__inst_issued.avg.pct_of_peak_sustained_active,"                                  \
    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed,"                  \
    "sm__throughput.avg.pct_of_peak_sustained_elapsed,"                                  \
    "launch__registers_per_thread,launch__shared_mem_per_block_static,"                  \
    "launch__shared_mem_per_block_dynamic,launch__block_size,"                           \
    "sm__maximum_warps_per_active_cycle_pct"

/* The limiter: memory (or compute) when its % of peak is the larger of the
 * two and at least this; below it on both, neither unit is busy: latency. */
#define BENCH_NCU_BUSY_PCT 60.0

/* A child's time limit when $CUPAT_NCU_TIMEOUT (seconds) does not set one. */
#define BENCH_NCU_TIMEOUT_S 900.0

typedef enum bench_ncu_state {
    BENCH_NCU_NONE = 0, /* not profiled (reference copies, rows that did not run) */
    BENCH_NCU_OK,
    BENCH_NCU_ERROR /* the reason in error */
} bench_ncu_state;

/* One call's profile: sums over its kernels, percentages weighted by each
 * kernel's time (plain means where ncu gave no time); and the launch of its
 * main kernel, the one with the longest gpu__time_duration (the first of
 * equals): a call may launch small helper kernels beside the one that does
 * the work, and their registers or block size would say nothing of it. */
typedef struct bench_ncu {
    bench_ncu_state state;
    int kernels;
    double dram_read_bytes, dram_write_bytes;
    double gpu_ns;        /* gpu__time_duration.sum, summed */
    double occupancy_pct; /* achieved occupancy: sm__warps_active */
    double issue_pct;     /* issue-slot use: sm__inst_issued */
    double memory_pct;    /* gpu__compute_memory_throughput */
    double sm_pct;        /* sm__throughput */
    const char *limiter;  /* "memory", "compute" or "latency" (static storage) */
    /* the main kernel */
    char main_kernel[128];     /* its name as ncu gives it (cut to fit; "" without the column) */
    double main_ns;            /* its gpu__time_duration.sum */
    int regs_per_thread;       /* launch__registers_per_thread */
    double smem_per_block;     /* bytes: launch__shared_mem_per_block_static + _dynamic */
    int threads_per_block;     /* launch__block_size */
    double theo_occupancy_pct; /* theoretical occupancy: sm__maximum_warps_per_active_cycle_pct */
    char error[256];
} bench_ncu;

/* "memory", "compute" or "latency" (BENCH_NCU_BUSY_PCT). */
const char *bench_ncu_limiter(double memory_pct, double sm_pct);

/* Read ncu's `--csv --page raw` output: ==PROF== lines and the program's own
 * lines anywhere, a header row ("ID", ..., the metric names), a units row,
 * one row per kernel; numbers may have thousands separators; units as
 * `--print-units base` gives them ("byte", "nsecond", "%", "register/thread",
 * "byte/block"; auto-scaled ones such as "Kbyte/block" are read too). 0 with out
 * filled (state BENCH_NCU_OK); -1 with state BENCH_NCU_ERROR and a one-line
 * reason in out->error: no header, a metric column missing, a row of the
 * wrong width, a value that is not a number, an unknown unit, no kernels. */
int bench_ncu_parse(const char *text, bench_ncu *out);

/* Nsight Compute's command: $CUPAT_NCU (which must then be executable), else
 * ncu on the PATH, else /usr/local/cuda/bin/ncu. 0 with the path in path; -1
 * with where it looked in looked. */
int bench_ncu_find(char *path, size_t path_len, char *looked, size_t looked_len);

/* Run `ncu --profile-from-start off --csv --page raw --print-units base
 * --metrics BENCH_NCU_METRICS --log-file TMP app...` (app: NULL-terminated,
 * app[0] the program's path), its output and the program's in files under
 * $TMPDIR (removed after), killed with its process group after timeout_s
 * (<= 0: no limit), and parse the CSV. 0 with out filled; -1 with the reason
 * in out->error (ncu's ==ERROR== line or the program's last message where
 * there is one). */
int bench_ncu_profile(const char *ncu, const char *const *app, double timeout_s, bench_ncu *out);

/* The time limit for one child: $CUPAT_NCU_TIMEOUT, else BENCH_NCU_TIMEOUT_S. */
double bench_ncu_timeout(void);

#ifdef __cplusplus
}
#endif
#endif
