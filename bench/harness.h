/* SPDX-License-Identifier: Apache-2.0 */
/* harness.h — the benchmark harness: walks a case's ladder, times every rung
 * (CUDA events, or the host clock on the CPU backend), checks its output
 * against a host reference, adds the vendor and reference rows, and prints or
 * saves the tables. A pattern's cases live in bench_<pattern>.c and are
 * listed once in bench_patterns.c. */
#ifndef CUPAT_BENCH_HARNESS_H
#define CUPAT_BENCH_HARNESS_H

#include "ceilings.h"
#include "cupat.h"
#include "ncu.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------- sizes -- */

/* A --n value: a count ("268435456", "2^28", "256M": K/M/G/T are binary) or a
 * shape ("16384x16384", "7680x4320": rows x cols, or width x height). */
typedef struct bench_size {
    size_t n;         /* element count (rows * cols for a shape) */
    size_t rows, cols; /* the shape as given, both 0 for a plain count */
} bench_size;
/* 0 on success; -1 with a one-line reason in err. */
int bench_parse_size(const char *s, bench_size *out, char *err, size_t errlen);
/* "2^28" for powers of two >= 1024, else the decimal number. Returns buf. */
char *bench_fmt_count(char *buf, size_t len, size_t n);

/* ------------------------------------------------------------ tables -- */

typedef enum bench_bound {
    BENCH_BOUND_COPY, /* read + write streams: % of copy_gbs */
    BENCH_BOUND_READ, /* read-only: % of read_gbs */
    BENCH_BOUND_FP32,  /* compute-bound: % of fp32_gflops */
    BENCH_BOUND_TENSOR /* tensor-core bound: % of tc_bf16_gflops (fp32_gflops where unmeasured) */
} bench_bound;

typedef enum bench_row_kind {
    BENCH_ROW_RUNG,      /* a rung of cupat's ladder */
    BENCH_ROW_VENDOR,    /* the vendor library, same inputs */
    BENCH_ROW_REFERENCE, /* e.g. a copy of the same byte count */
    BENCH_ROW_CONFIG     /* one launch configuration of a sweep */
} bench_row_kind;

typedef enum bench_verdict {
    BENCH_UNCHECKED = 0, /* nothing to check (reference rows) */
    BENCH_OK,
    BENCH_FAIL,  /* ran, output wrong */
    BENCH_ERROR  /* the call itself failed */
} bench_verdict;

typedef struct bench_row {
    char name[64];
    bench_row_kind kind;
    const char *technique; /* one line, static storage (registry) or NULL */
    const char *source;    /* "PMPP 2.3", or NULL */
    int is_default;        /* the rung that runs unless one is pinned */
    int reps;
    double ms, ms_min, ms_max; /* median, min, max of one call (0 when not timed) */
    double gbs, gflops, pct;   /* achieved rates, % of the table's ceiling */
    double speedup;   /* previous rung's ms / this ms; 0: none */
    double vs_vendor; /* vendor ms / this ms (> 1: faster than vendor); 0: none */
    /* sweeps */
    unsigned bx, by;  /* block shape */
    size_t gx, gy;    /* grid shape */
    double occupancy; /* theoretical, 0..1; < 0: n/a */
    double book_ms;   /* the book's figure for this configuration; 0: none */
    double x_best;    /* ms / best ms of the sweep */
    bench_verdict verdict;
    char message[256]; /* why FAIL / ERROR */
    bench_ncu ncu;     /* --ncu: the row's call under Nsight Compute */
} bench_row;

typedef struct bench_table {
    char pattern[32];
    char title[64];  /* "vadd", "matadd block-shape sweep (PCCP 3.3)" */
    char label[128]; /* "n=2^28 (268435456 floats)" */
    double bytes, flops; /* minimum model of one call */
    bench_bound bound;
    int sweep;
    const char *note; /* a footnote line, or NULL */
    bench_row *rows;
    size_t nrows, cap;
    /* The `cupat bench` PATTERN whose cases made it (static storage; NULL
     * where unknown) and its place among that pattern's tables: an --ncu
     * child runs that pattern alone. cmd_bench sets them. */
    const char *made_by;
    size_t made_index;
} bench_table;

/* --------------------------------------------------------------- run -- */

typedef struct bench_options {
    int reps;            /* > 0: exactly this many timed calls per row; 0: adaptive */
    const char *variant; /* one rung; NULL or "all": every rung of the backend */
    int progress;        /* one-line progress on stderr (cmd_bench: isatty(2)) */
    FILE *out;           /* tables go here (stdout) */
    int quick;           /* --quick: fewer repetitions (adaptive reps aim at less time) */
    int ncu;             /* --ncu: tables printed after the profiles (bench_ncu_rows), not
                          * as each ends */
    /* --ncu-child T:R:NAME: this process runs under ncu for one row (row R of
     * table T, named NAME): no ceilings, no tables, nothing else measured;
     * that row's call once untimed, then once between cudaProfilerStart and
     * cudaProfilerStop. */
    int ncu_child;
    size_t ncu_table, ncu_row;
    const char *ncu_name;
} bench_options;

typedef struct bench_run {
    cupat_ctx *ctx;
    bench_options opt;
    bench_ceilings ceil;
    cupat_backend backend;
    char device[320]; /* "NVIDIA H100 80GB HBM3 (cuda:0, 132 SMs)" / host CPU */
    char date[32];    /* UTC, ISO 8601 */
    char commit[64];
    bench_table *tables;
    size_t ntables, cap;
    int failures; /* rows that FAILed or errored, over the whole run */
    /* --ncu-child: the row was reached (its call profiled unless ncu_failed) */
    int ncu_reached, ncu_failed;
    char ncu_message[256];
    /* private: timing resources */
    void *flush; /* read between calls to evict the caches */
    size_t flush_bytes;
    float *sink; /* device: where the flush's sum goes */
    float host_sink;
    double flush_ms; /* one CPU cache flush, timed once at start (--quick counts it) */
    int wave; /* blocks of 256 threads filling the GPU once */
    void *events; /* cudaEvent_t[2 * ev_count] */
    int ev_count, ev_made;
    void *cublas; /* cublasHandle_t, created on first use */
    void *scratch; /* the reference-copy buffer */
    size_t scratch_bytes, ref_half;
} bench_run;

/* Set up: measures the ceilings (about a second), takes the device name, date
 * and commit. On failure the reason is in cupat_last_error(ctx). */
cupat_status bench_run_init(bench_run *run, cupat_ctx *ctx, const bench_options *opt);
/* What a run names, without the rest of bench_run_init: the device ("NVIDIA
 * H100 ... (cuda:0, 132 SMs, cc 9.0)", or the host CPU on the CPU backend),
 * the date (UTC, ISO 8601) and the commit ($CUPAT_COMMIT, else the build's). */
cupat_status bench_describe(cupat_ctx *ctx, char *device, size_t device_len, char *date,
                            size_t date_len, char *commit, size_t commit_len);
void bench_run_free(bench_run *run);
/* Give back what the run holds on the backend (buffers, events, cuBLAS) and
 * forget the context; the tables stay (--ncu: the children get the memory). */
void bench_run_release(bench_run *run);
/* The header lines: device, backend, date, commit, ceilings. */
void bench_print_header(const bench_run *run, FILE *f);

/* ------------------------------------------------------------- cases -- */

typedef cupat_status (*bench_fn)(bench_run *run, void *state);

typedef struct bench_check {
    size_t checked, wrong;
    char msg[256]; /* the first wrong element, when any */
} bench_check;

/* One case: a pattern at one size. Its rows: every rung of the backend in
 * ladder order (or the one --variant names), the vendor, the reference copy. */
typedef struct bench_case {
    const char *pattern; /* the ladder: cupat_variants(pattern) */
    char label[128];
    double bytes, flops; /* minimum traffic (each input read once, each output
                          * written once) and arithmetic of one call */
    bench_bound bound;
    void *state;
    /* Optional: before a checked call (restore in-place inputs, poison outputs). */
    bench_fn prepare;
    /* One call with the pinned rung: the timed region. */
    bench_fn run;
    /* Compare the outputs of the last call with the host reference. `strict`
     * is 0 for the vendor row (which does not promise cupat's rounding). */
    cupat_status (*check)(bench_run *run, void *state, int strict, bench_check *out);
    const char *vendor_name; /* NULL: no vendor row */
    bench_fn vendor;
    int memcpy_ref; /* add a device copy of the same byte count */
    const char *note; /* the table's footnote (static storage), or NULL */
    /* 1: only the backend's default rung (or the one --variant names), then
     * the vendor: a case that measures the gap to the vendor at a size or op
     * the full ladder is not walked at (issue 22's extra gemm ops). */
    int default_only;
    /* 1: add the launch-floor rows (bench_add_launch_rows) after the others,
     * for sizes where launch latency decides (GPU only). */
    int launch_floor;
} bench_case;

/* Measure one case and print its table. Row failures are recorded in the
 * table (and run->failures); only setup failures return an error. */
cupat_status bench_run_case(bench_run *run, const bench_case *c);
/* The reference row of a table: a copy of t->bytes / 2 bytes into another
 * t->bytes / 2 (cudaMemcpyAsync on the GPU, OpenMP memcpy slices on the
 * CPU), timed as the rungs are; for patterns that walk their own ladder. */
cupat_status bench_add_copy_row(bench_run *run, bench_table *t);
/* The launch floor of a table, on the GPU (nothing on the CPU), as reference
 * rows timed exactly as the rungs are (flush, event, call, event): "empty
 * kernel" (one launch of an empty kernel, 1 block of 32 threads: the least
 * any one-kernel call can take in this table), "2 empty kernels" (the same for
 * a call of two launches: CUB's reduce and cublasSdot beyond one tile), and
 * "empty kernel + sync" (one launch, then cudaStreamSynchronize inside the
 * timed region: what a caller that waits for each result pays). Nothing is
 * checked; --ncu profiles none of them. */
cupat_status bench_add_launch_rows(bench_run *run, bench_table *t);

/* Building blocks for tables that are not ladders (sweeps). */
bench_table *bench_table_begin(bench_run *run, const char *pattern, const char *title,
                               const char *label, double bytes, double flops,
                               bench_bound bound);
bench_row *bench_table_add(bench_run *run, bench_table *t, const char *name,
                           bench_row_kind kind);
/* Check (when check != NULL) then time fn; fills row's figures and verdict. */
void bench_measure(bench_run *run, bench_table *t, bench_row *row, bench_fn fn,
                   bench_fn prepare,
                   cupat_status (*check)(bench_run *, void *, int, bench_check *),
                   int strict, void *state);
/* Derived columns (rates, %, ratios), print, record failures. */
void bench_table_end(bench_run *run, bench_table *t);
void bench_progress(const bench_run *run, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* --------------------------------------------------- inputs and checks -- */

/* Deterministic pseudo-random inputs, identical on host and device, so a
 * check can recompute any input element without copying it back. */
#if defined(__CUDACC__)
#define BENCH_HD __host__ __device__
#else
#define BENCH_HD
#endif
BENCH_HD static inline uint64_t bench_mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull; /* splitmix64 */
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}
BENCH_HD static inline uint64_t bench_hash(uint64_t seed, uint64_t i)
{
    return bench_mix64(seed * 0xD1B54A32D192ED03ull + i);
}
/* lo + scale * u with u in [0, 1) on a 2^-24 grid; no contraction anywhere,
 * so host and device give the same bits. */
BENCH_HD static inline float bench_rand_f32(uint64_t seed, uint64_t i, float lo, float scale)
{
    float u = (float)(bench_hash(seed, i) >> 40) * 0x1p-24f;
#if defined(__CUDA_ARCH__)
    return __fadd_rn(lo, __fmul_rn(scale, u));
#else
    float t = scale * u;
    return lo + t;
#endif
}
BENCH_HD static inline uint8_t bench_rand_u8(uint64_t seed, uint64_t i)
{
    return (uint8_t)(bench_hash(seed, i) >> 56);
}

/* Fill backend memory with bench_rand_f32 / bench_rand_u8 values. */
cupat_status bench_fill_f32(bench_run *run, float *p, size_t n, uint64_t seed, float lo,
                            float scale);
cupat_status bench_fill_u8(bench_run *run, uint8_t *p, size_t n, uint64_t seed);

/* Expected values of out[start, start + len) and their tolerances (|got -
 * expect| <= tol passes; NaN never does). Called from several threads. */
typedef void (*bench_expect_f32)(void *state, size_t start, size_t len, double *expect,
                                 double *tol);
typedef void (*bench_expect_u8)(void *state, size_t start, size_t len, uint8_t *expect);
/* Compare n outputs in chunks of `chunk` elements (a chunk is the unit
 * expected values are computed for: a row for images). Outputs up to 256 MiB
 * are checked whole; larger ones on the first and last chunk and 62 random
 * others. Adds to chk. */
cupat_status bench_verify_f32(bench_run *run, const float *out, size_t n, size_t chunk,
                              bench_expect_f32 fn, void *state, bench_check *chk);
cupat_status bench_verify_u8(bench_run *run, const uint8_t *out, size_t n, size_t chunk,
                             bench_expect_u8 fn, void *state, bench_check *chk);

/* ------------------------------------------------------------ vendor -- */

/* cuBLAS handle on ctx's stream, created on first use (cublasHandle_t). */
cupat_status bench_cublas(bench_run *run, void **handle);
/* A failed cuBLAS status as CUPAT_ERROR_CUDA with `what` in the message. */
cupat_status bench_cublas_status(bench_run *run, int status, const char *what);
/* Record a failure in cupat_last_error(run->ctx) and return `status`. */
cupat_status bench_fail(bench_run *run, cupat_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* cleanup(run, state), keeping the message of the failure s (cleanup calls
 * would clear it); returns s. */
cupat_status bench_finish(bench_run *run, cupat_status s, void (*cleanup)(bench_run *, void *),
                          void *state);
/* A failed CUDA call as a cupat status with `what` in the message. */
cupat_status bench_cuda_status(bench_run *run, int err, const char *what);

/* CUB, C++ templates behind C entry points (vendor_cub.cu). */
int bench_cub_vadd(const float *a, const float *b, float *c, size_t n, cupat_stream s);
int bench_cub_gray(const uint8_t *rgb, uint8_t *gray, size_t pixels, cupat_stream s);

/* Device kernels of the harness (bench_kernels.cu); return cudaError_t. */
int bench_kernel_fill_f32(float *p, size_t n, uint64_t seed, float lo, float scale,
                          cupat_stream s);
int bench_kernel_fill_u8(uint8_t *p, size_t n, uint64_t seed, cupat_stream s);
/* Read `bytes` (a multiple of 16, 16-byte aligned) once; the sum lands in *sink. */
int bench_kernel_read(const void *p, size_t bytes, float *sink, int blocks, cupat_stream s);
/* FMA chains on blocks x 256 threads; *flops gets the flop count queued. */
int bench_kernel_fma(float *sink, int blocks, int iters, cupat_stream s, double *flops);
/* `count` launches of an empty kernel (1 block of 32 threads): the launch floor. */
int bench_kernel_empty(int count, cupat_stream s);

/* -------------------------------------------------------------- ncu -- */

/* Rows --ncu profiles: those timed, but not the reference copies (a
 * cudaMemcpy runs no kernel). */
int bench_ncu_wanted(const bench_row *r);
/* --ncu: every wanted row of the run under Nsight Compute, one child each:
 * `ncu ... argv... --ncu-child T:R:NAME` (argv: this program and the bench
 * options that make the same tables, NULL-terminated; argv[pattern_arg] the
 * PATTERN operand, which becomes the table's made_by, T then its made_index,
 * so a child of `bench all` sets up one pattern's cases, not all before it);
 * each row's figures or error in row->ncu. Call after bench_run_release.
 * Returns the number of rows whose profile failed. */
int bench_ncu_rows(bench_run *run, const char *ncu, const char *const *argv, size_t pattern_arg);

/* ----------------------------------------------------------- output -- */

/* Write every table of the run. 0, or a status with the reason in err. */
cupat_status bench_write_json(const bench_run *run, const char *path, char *err,
                              size_t errlen);
cupat_status bench_write_csv(const bench_run *run, const char *path, char *err,
                             size_t errlen);
void bench_print_table(const bench_run *run, const bench_table *t, FILE *f);

/* ----------------------------------------------------------- patterns -- */

/* A pattern's cases: `size` is the --n override (NULL: the default sizes).
 * bench_patterns.c lists them; a new pattern adds its bench_<pattern>.c and
 * one line there. */
typedef cupat_status (*bench_cases_fn)(bench_run *run, const bench_size *size);
typedef struct bench_pattern {
    const char *name;
    bench_cases_fn cases;
    bench_cases_fn sweep; /* --sweep-blocks, or NULL */
    /* --quick: one small case, a --n value on the GPU and on the CPU; NULL:
     * the default cases (and a note that the pattern lacks a quick size). */
    const char *quick_gpu, *quick_cpu;
} bench_pattern;
extern const bench_pattern bench_patterns[];
extern const size_t bench_npatterns;
const bench_pattern *bench_find_pattern(const char *name);
/* The --quick size of p on run's backend: 0 with *out set, -1 when p has none. */
int bench_quick_size(const bench_run *run, const bench_pattern *p, bench_size *out);

/* What --n means for a pattern, and the backend memory its largest case at a
 * given size takes (sizes.c: one line a pattern, as in bench_patterns.c). */
typedef struct bench_size_model {
    const char *name;
    const char *help; /* one line for `cupat bench --help`: what --n means, the defaults */
    /* Bytes of backend memory; < 0 with a one-line reason in err for a size
     * the pattern cannot take. */
    double (*need)(const bench_size *size, char *err, size_t errlen);
} bench_size_model;
extern const bench_size_model bench_size_models[];
extern const size_t bench_nsize_models;
const bench_size_model *bench_find_size_model(const char *name);
/* Bytes the backend can still give: free device memory (cudaMemGetInfo) on
 * CUDA, MemAvailable (else free pages) on the CPU; *what names the figure.
 * < 0 when unknown. */
double bench_memory_available(cupat_ctx *ctx, const char **what);
double bench_host_memory_available(void);
/* 0 when `pattern` at --n `size` fits in the backend's memory (with a margin
 * for the harness); else -1 with a one-line reason in err. Before anything
 * is allocated: a size the machine cannot hold is an argument error. */
int bench_check_size(cupat_ctx *ctx, const char *pattern, const bench_size *size, char *err,
                     size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
