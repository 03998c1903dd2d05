/* SPDX-License-Identifier: Apache-2.0 */
/* bench_sort.h — what bench_sort.c (the merge, sort and segsort cases)
 * shares with vendor_sort.cu (input kernels and CUB baselines): generators
 * identical on host and device, so a check recomputes any input key from its
 * index. */
#ifndef CUPAT_BENCH_SORT_H
#define CUPAT_BENCH_SORT_H

#include "harness.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { BSORT_SEED = 71, BSORT_SEED_SEG = 72 };

typedef enum bsort_gen {
    BSORT_GEN_U32 = 0, /* uniform u32 */
    BSORT_GEN_U64,     /* uniform u64 */
    BSORT_GEN_F32,     /* uniform in [-1, 1) */
    BSORT_GEN_IOTA32   /* i (values: the original index) */
} bsort_gen;

BENCH_HD static inline uint32_t bsort_u32(uint64_t i) { return (uint32_t)(bench_hash(BSORT_SEED, i) >> 32); }
BENCH_HD static inline uint64_t bsort_u64(uint64_t i) { return bench_hash(BSORT_SEED, i); }
BENCH_HD static inline float bsort_f32(uint64_t i) { return bench_rand_f32(BSORT_SEED, i, -1.0f, 2.0f); }

/* Every entry returns a cudaError_t; temp == NULL asks for *temp_bytes. */
int bench_sort_fill(int gen, void *p, size_t n, uint64_t from, cupat_stream s);
/* cub::DeviceRadixSort::SortKeys (vin NULL) / SortPairs with u32 values;
 * key_type CUPAT_U32, CUPAT_U64 or CUPAT_F32. */
int bench_cub_sort(int key_type, const void *kin, void *kout, const uint32_t *vin, uint32_t *vout, size_t n,
                   void *temp, size_t *temp_bytes, cupat_stream s);
int bench_cub_merge_u32(const uint32_t *a, size_t na, const uint32_t *b, size_t nb, uint32_t *out, void *temp,
                        size_t *temp_bytes, cupat_stream s);
int bench_cub_segsort_u32(const uint32_t *kin, uint32_t *kout, size_t n, size_t nseg, const uint64_t *offsets,
                          void *temp, size_t *temp_bytes, cupat_stream s);

#ifdef __cplusplus
}
#endif
#endif
