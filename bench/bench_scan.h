/* SPDX-License-Identifier: Apache-2.0 */
/* bench_scan.h — what bench_scan.c (the scan, segscan and select cases) shares
 * with vendor_scan.cu (the input kernels and the CUB baselines): the input
 * generators, identical on host and device, so a check recomputes any input
 * element from its index without copying the input back. */
#ifndef CUPAT_BENCH_SCAN_H
#define CUPAT_BENCH_SCAN_H

#include "harness.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    BSCAN_SEED_X = 61,    /* values of every case */
    BSCAN_SEED_FLAG = 62, /* select / partition keep-flags */
    BSCAN_SEED_HEAD = 63, /* segscan head flags */
    BSCAN_SEED_KEY = 64,  /* segscan keys */
    BSCAN_SEED_RUN = 65,  /* unique: where a run starts */
    BSCAN_SEED_UNIQ = 66  /* unique: a run's value */
};
#define BSCAN_KEY_RUN 1000   /* segscan by key: runs of 1000 equal keys */
#define BSCAN_HEAD_EVERY 1000 /* segscan head flags: 1 element in 1000 on average */
#define BSCAN_UNIQ_MAX_RUN 64 /* unique: a run starts at least every 64 elements */

/* What bench_scan_fill writes (f32 values come from bench_fill_f32). */
typedef enum bscan_gen {
    BSCAN_GEN_U32 = 0, /* uniform u32 */
    BSCAN_GEN_I32,     /* a slow upward trend plus noise: the running max keeps moving */
    BSCAN_GEN_U64,     /* uniform u64 */
    BSCAN_GEN_FLAG50,  /* u8: 0 or a nonzero byte, each with probability 1/2 */
    BSCAN_GEN_HEAD,    /* u8: nonzero with probability 1/1000 */
    BSCAN_GEN_KEY,     /* u32: one random key per run of 1000 */
    BSCAN_GEN_UNIQ     /* u32: runs of random length (a new run at 1/2 odds, at most 64) */
} bscan_gen;

BENCH_HD static inline uint32_t bscan_u32(uint64_t i)
{
    return (uint32_t)(bench_hash(BSCAN_SEED_X, i) >> 32);
}
BENCH_HD static inline uint64_t bscan_u64(uint64_t i)
{
    return bench_hash(BSCAN_SEED_X, i);
}
BENCH_HD static inline int32_t bscan_i32(uint64_t i)
{
    uint32_t noise = (uint32_t)(bench_hash(BSCAN_SEED_X, i) >> 40); /* 24 bits */
    return (int32_t)((uint32_t)(i >> 4) - (1u << 23) + noise);
}
BENCH_HD static inline float bscan_f32(uint64_t i)
{
    return bench_rand_f32(BSCAN_SEED_X, i, -1.0f, 2.0f);
}
/* A nonzero byte other than 1, so "nonzero keeps" is what is tested. */
BENCH_HD static inline uint8_t bscan_nonzero(uint64_t h)
{
    return (uint8_t)(1 + (h >> 32) % 255);
}
BENCH_HD static inline uint8_t bscan_flag50(uint64_t i)
{
    uint64_t h = bench_hash(BSCAN_SEED_FLAG, i);
    return h >> 63 ? bscan_nonzero(h) : 0;
}
BENCH_HD static inline uint8_t bscan_head(uint64_t i)
{
    uint64_t h = bench_hash(BSCAN_SEED_HEAD, i);
    return h % BSCAN_HEAD_EVERY == 0 ? bscan_nonzero(h) : 0;
}
BENCH_HD static inline uint32_t bscan_key(uint64_t i)
{
    return (uint32_t)(bench_hash(BSCAN_SEED_KEY, i / BSCAN_KEY_RUN) >> 32);
}
/* A run starts at i when i is a multiple of 64 or a coin says so; the value
 * is a hash of the run's first index (two runs next to each other are equal
 * once in 2^32: the checks compare values, so that is still right). */
BENCH_HD static inline uint32_t bscan_uniq(uint64_t i)
{
    uint64_t j = i;
    while (j % BSCAN_UNIQ_MAX_RUN != 0 && !(bench_hash(BSCAN_SEED_RUN, j) >> 63)) j--;
    return (uint32_t)(bench_hash(BSCAN_SEED_UNIQ, j) >> 32);
}

/* ---------------------------------------------------- vendor_scan.cu -- */
/* Every entry returns a cudaError_t. temp == NULL asks for *temp_bytes (CUB's
 * two-phase call); the caller allocates it outside the timed region. */

/* Fill p[0, n) with generator `gen` (a bscan_gen) on stream s. */
int bench_scan_fill(int gen, void *p, size_t n, cupat_stream s);

/* cub::DeviceScan: ExclusiveSum / InclusiveSum for CUPAT_OP_SUM,
 * InclusiveScan / ExclusiveScan with cuda::maximum / cuda::minimum otherwise;
 * u32, i32, u64, f32 (cudaErrorInvalidValue for the rest). */
int bench_cub_scan(cupat_type t, cupat_op op, int exclusive, const void *x, void *y, size_t n,
                   void *temp, size_t *temp_bytes, cupat_stream s);
/* cub::DeviceScan::ExclusiveSumByKey, u32 keys and values. */
int bench_cub_sum_by_key_u32(const uint32_t *keys, const uint32_t *x, uint32_t *y, size_t n,
                             void *temp, size_t *temp_bytes, cupat_stream s);
/* Head-flag segmented inclusive f32 sum: cub::DeviceScan::InclusiveScan over
 * (flag, value) pairs with the segmented operator (CUB has no head-flag scan). */
int bench_cub_segsum_flags_f32(const uint8_t *flags, const float *x, float *y, size_t n,
                               void *temp, size_t *temp_bytes, cupat_stream s);
/* cub::DeviceSelect::Flagged / DevicePartition::Flagged (u32, u8 flags),
 * DeviceSelect::If (f32, x < a), DeviceSelect::Unique (u32); the count goes to
 * *count (device memory). */
int bench_cub_select_flagged_u32(const uint32_t *x, const uint8_t *flags, uint32_t *y,
                                 uint64_t *count, size_t n, void *temp, size_t *temp_bytes,
                                 cupat_stream s);
int bench_cub_partition_flagged_u32(const uint32_t *x, const uint8_t *flags, uint32_t *y,
                                    uint64_t *count, size_t n, void *temp, size_t *temp_bytes,
                                    cupat_stream s);
int bench_cub_select_less_f32(const float *x, float a, float *y, uint64_t *count, size_t n,
                              void *temp, size_t *temp_bytes, cupat_stream s);
int bench_cub_unique_u32(const uint32_t *x, uint32_t *y, uint64_t *count, size_t n, void *temp,
                         size_t *temp_bytes, cupat_stream s);

#ifdef __cplusplus
}
#endif
#endif
