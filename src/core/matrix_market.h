/* SPDX-License-Identifier: Apache-2.0 */
/* matrix_market.h — the Matrix Market parser and writer (matrix_market.c):
 * pure C on host memory, no backend (the fuzz target links it alone). Shared
 * by two patterns, so in core: the sparse handles (cupat_mm_read / _write,
 * sparse.c) and the graph reader (graph.c). */
#ifndef CUPAT_CORE_MATRIX_MARKET_H
#define CUPAT_CORE_MATRIX_MARKET_H

#include "cupat.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MM_ARRAY 1u
#define MM_INTEGER 2u
#define MM_PATTERN 4u
#define MM_SYMMETRIC 8u
#define MM_SKEW 16u
/* A host matrix in 0-based COO, f64 values, duplicates as in the file
 * (symmetric halves expanded). */
typedef struct mm_coo {
    size_t rows, cols, nnz;
    int64_t *r, *c;
    double *v;
    unsigned kind; /* the file's MM_* flags */
} mm_coo;
/* Parse `size` bytes; `name` names the source in messages; ctx only
 * receives the message (may be NULL). On failure *out is empty. */
cupat_status cupat__mm_parse(cupat_ctx *ctx, const char *data, size_t size, const char *name,
                             mm_coo *out);
/* The same for a matrix to be held in `value_type`: with CUPAT_F32, a value
 * that is finite as text but overflows f32 (1e39) is refused with its line,
 * as inf is (cupat__mm_parse: CUPAT_F64). */
cupat_status cupat__mm_parse_as(cupat_ctx *ctx, const char *data, size_t size,
                                const char *name, cupat_type value_type, mm_coo *out);
void cupat__mm_free(mm_coo *m);
/* Format m (0-based COO, sorted by column then row for ARRAY; any order
 * else) with `flags` into a malloc'd text (*text, *len). `digits` 9 or 17.
 * Checks the flag rules (integer values, symmetry) and fails with a
 * message naming `fn`. */
cupat_status cupat__mm_format(cupat_ctx *ctx, const char *fn, const mm_coo *m, unsigned flags,
                              int digits, char **text, size_t *len);

#ifdef __cplusplus
}
#endif
#endif
