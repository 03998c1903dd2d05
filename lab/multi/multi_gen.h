/* SPDX-License-Identifier: Apache-2.0 */
/* multi_gen.h — the multi-GPU lab's inputs and checks (multi.cu): CUDA
 * kernels on the CUDA backend, host loops on the CPU backend, the same values
 * on both. No MPI here (multi.h has the collective parts). */
#ifndef CUPAT_LAB_MULTI_GEN_H
#define CUPAT_LAB_MULTI_GEN_H

#include "cupat.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The all-reduce's input: element i of rank r (small integers, so every sum
 * of them is exact in f32 and the host knows the answer). */
float lab_multi_ar_value(int rank, size_t i);

/* x[i] = lab_multi_ar_value(rank, i), i < n. */
cupat_status lab_multi_fill_ar(cupat_ctx *ctx, float *x, size_t n, int rank);
/* *bad = the elements of y[0, n) that differ from the sum over ranks < p of
 * lab_multi_ar_value (host memory result; waits). */
cupat_status lab_multi_check_ar(cupat_ctx *ctx, const float *y, size_t n, int p, uint64_t *bad);
/* a[i] = the grid value of global point first + i, in [0, 1). */
cupat_status lab_multi_fill_grid(cupat_ctx *ctx, float *a, size_t n, uint64_t first);
/* An order-free checksum of the bits of a[0, n) at global points first + i
 * (sum of hashes modulo 2^64): equal sums from two runs mean the same bits
 * at the same points, to a 2^-64 chance. Waits. */
cupat_status lab_multi_grid_sum(cupat_ctx *ctx, const float *a, size_t n, uint64_t first, uint64_t *sum);
/* k[i] = the u32 key of global index first + i. */
cupat_status lab_multi_fill_keys(cupat_ctx *ctx, uint32_t *k, size_t n, uint64_t first);
/* The facts the sort's check needs of a run k[0, n): places where
 * k[i] > k[i + 1], the first and last keys, and an order-free checksum of
 * the keys (a permutation keeps it). Waits. */
typedef struct lab_multi_run_facts {
    uint64_t descents, sum;
    uint32_t first, last;
} lab_multi_run_facts;
cupat_status lab_multi_key_facts(cupat_ctx *ctx, const uint32_t *k, size_t n, lab_multi_run_facts *f);

#ifdef __cplusplus
}
#endif
#endif
