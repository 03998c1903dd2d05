/* SPDX-License-Identifier: Apache-2.0 */
/* atomics.h — the atomics lab (`cupat lab atomics`), lecture 10 "Atomic
 * Operations" and PMPP 9.2-9.4: the read-modify-write race made visible
 * (plain `counter++` from many threads, the lost updates counted), its fixes
 * (atomicAdd, privatization in shared memory, a lock-free atomicCAS loop),
 * custom atomics built on atomicCAS (float max / min, a 64-bit packed
 * value + index argmax) checked against the host, and atomic throughput
 * against contention in global and shared memory.
 * Not library API: linked into the CLI and the tests (lab/CMakeLists.txt).
 * Every run function checks its arguments first (a message naming the bad
 * one), then needs the CUDA backend (CUPAT_ERROR_NOT_SUPPORTED on the CPU). */
#ifndef CUPAT_LAB_ATOMICS_H
#define CUPAT_LAB_ATOMICS_H

#include "cupat.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------ the race and its fixes -- */

enum {
    LAB_ATOM_PLAIN,   /* volatile c[a] = c[a] + 1: the race (lecture: A[index] += 1) */
    LAB_ATOM_ATOMIC,  /* atomicAdd(&c[a], 1) in global memory                     */
    LAB_ATOM_PRIVATE, /* shared-memory counters a block, then one atomicAdd each   */
    LAB_ATOM_CAS,     /* lock-free: read, atomicCAS(old, old + 1), retry on a loss */
    LAB_ATOM_NMETHODS
};
const char *lab_atomics_method_name(int m); /* "plain", ...; NULL past the end */
const char *lab_atomics_method_code(int m); /* the update as written in the kernel */

#define LAB_ATOM_MAX_ADDRESSES 1024 /* the private copy lives in shared memory */

/* Thread t (of blocks x threads) adds 1 to counter t % addresses, `per_thread`
 * times; counts[a] receives the final counters (host memory, `addresses`
 * entries). addresses 1..LAB_ATOM_MAX_ADDRESSES, threads 32..1024 and a
 * multiple of 32, blocks >= 1, per_thread >= 1, every expected count < 2^32. */
cupat_status lab_atomics_race(cupat_ctx *ctx, int method, int addresses, unsigned blocks,
                              unsigned threads, unsigned per_thread, uint32_t *counts);
/* What counter a must hold after lab_atomics_race with these sizes. */
uint64_t lab_atomics_race_expected(int addresses, unsigned blocks, unsigned threads,
                                   unsigned per_thread, int a);

/* --------------------------------------------- custom atomics on atomicCAS -- */

/* The float order of the custom max / min (IEEE 754-2019 maximumNumber /
 * minimumNumber): -inf < ... < -0 < +0 < ... < +inf, and a NaN operand is
 * ignored (max(x, NaN) = x), so the result is NaN only when every value is NaN
 * (the start value is the canonical NaN 0x7fc00000: "no value yet"). -0 and
 * +0 are told apart: max(-0, +0) = +0, min(-0, +0) = -0. */
uint32_t lab_atomics_f32_key(float x); /* an unsigned key in that order (x not NaN) */
float lab_atomics_f32_max_host(const float *x, size_t n);
float lab_atomics_f32_min_host(const float *x, size_t n);

/* The argmax as one 64-bit word: the high half the value's key, the low half
 * ~index, so the larger word is the larger value and, on a tie, the lower
 * index; 0 means empty (no non-NaN value). NaN values are skipped. */
uint64_t lab_atomics_argmax_pack(float v, uint32_t index);
int64_t lab_atomics_argmax_index(uint64_t packed); /* -1 when empty */
float lab_atomics_argmax_value(uint64_t packed);   /* NaN when empty */
uint64_t lab_atomics_argmax_host(const float *x, size_t n);

/* The inputs the lab and the tests check the custom atomics on: fills x[0..n)
 * (host memory; NULL: only the name) and returns the case's name, or NULL
 * past the end. */
enum {
    LAB_ATOM_CASE_UNIFORM,
    LAB_ATOM_CASE_NEGATIVE,
    LAB_ATOM_CASE_ZEROS,
    LAB_ATOM_CASE_NAN,
    LAB_ATOM_CASE_ALL_NAN,
    LAB_ATOM_CASE_TIES,
    LAB_ATOM_NCASES
};
const char *lab_atomics_case(int c, float *x, size_t n);

/* One atomic update a sample, the samples spread over a grid: *max_out and
 * *min_out (bits: -0 / +0 and NaN compare as bits) and *argmax_out. x: n
 * floats in host memory (copied to the device), 1 <= n < 2^32. */
cupat_status lab_atomics_custom(cupat_ctx *ctx, const float *x, size_t n, float *max_out,
                                float *min_out, uint64_t *argmax_out);

/* ---------------------------------------------- throughput vs contention -- */

enum { LAB_ATOM_GLOBAL, LAB_ATOM_SHARED };
#define LAB_ATOM_SPREAD_ALL 0 /* every thread its own counter */

typedef struct lab_atomics_rate {
    double ms;          /* median time of one launch (CUDA events) */
    double updates;     /* atomicAdds one launch makes */
    double per_s;       /* updates / (ms / 1000) */
    int ok;             /* the counters' sum after the last launch is exact */
    char msg[160];      /* why not, when !ok */
} lab_atomics_rate;

/* blocks x 1024 threads, each `iters` atomicAdd(&c[t % spread], 1), t the
 * thread's index in the grid (global) or in its block (shared; the block's
 * counters are added to global memory at its end, so the sum is checkable).
 * spread 1..1024 or LAB_ATOM_SPREAD_ALL; `reps` timed launches after one
 * untimed, the counters zeroed before each (outside the timed region). */
cupat_status lab_atomics_rate_run(cupat_ctx *ctx, int where, unsigned spread, unsigned blocks,
                                  unsigned iters, int reps, lab_atomics_rate *out);

/* ---------------------------------------------------- the kernels (.cu) -- */
cupat_status cupat__lab_atom_race(cupat_ctx *ctx, int method, int addresses, unsigned blocks,
                                  unsigned threads, unsigned per_thread, uint32_t *d_counts);
cupat_status cupat__lab_atom_custom(cupat_ctx *ctx, const float *d_x, size_t n, uint32_t *d_max,
                                    uint32_t *d_min, unsigned long long *d_argmax);
/* Queues `reps` + 1 launches; times[r] (host) the milliseconds of launch r + 1. */
cupat_status cupat__lab_atom_rate(cupat_ctx *ctx, int where, unsigned spread, unsigned blocks,
                                  unsigned iters, int reps, uint32_t *d_counts, size_t ncounts,
                                  float *times);

#ifdef __cplusplus
}
#endif
#endif
