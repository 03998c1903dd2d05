/* SPDX-License-Identifier: Apache-2.0 */
/* bench_sparse.h — what bench_sparse.c (the spmv and cg cases) shares with
 * vendor_sparse.cu: the cuSPARSE SpMV baseline (cusparseSpMV on CSR, the
 * faster of CSR_ALG1 and CSR_ALG2 picked at setup) behind C entry points.
 * Built only where CMake finds cuSPARSE (CUPAT_HAVE_CUSPARSE). */
#ifndef CUPAT_BENCH_SPARSE_H
#define CUPAT_BENCH_SPARSE_H

#include "harness.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bench_cusparse bench_cusparse;
/* A CSR matrix (device arrays, i32 or i64 indices, f32 or f64 values) and
 * dense x (cols) and y (rows); y = A x is what spmv computes. 0 on success,
 * else -1 with a one-line reason in err. */
int bench_cusparse_create(bench_cusparse **h, cupat_stream s, size_t rows, size_t cols, size_t nnz,
                          int i64, int f64, void *row_ptr, void *col_idx, void *values, void *x, void *y,
                          char *err, size_t errlen);
/* y = A x (alpha 1, beta 0) with the algorithm chosen at create; 0 or -1. */
int bench_cusparse_spmv(bench_cusparse *h);
/* "CSR_ALG1" or "CSR_ALG2". */
const char *bench_cusparse_alg(const bench_cusparse *h);
void bench_cusparse_destroy(bench_cusparse *h);

/* The same Jacobi-preconditioned CG as cupat_cg, written the way a cuSPARSE +
 * cuBLAS user writes it (cusparseSpMV, cublas dot / axpy / scal / dgmm with
 * host scalars: three dots, three waits an iteration), on h's matrix (square,
 * SPD). b and x are device vectors of h's value type; x holds the initial
 * guess. Setup (vectors, descriptors, the inverse diagonal) happens at the
 * first call and is kept. 0 on success with *iters and *rel_res
 * (||r_k|| / ||b|| by the recurrence); -1 with a reason in err. */
int bench_cusparse_cg(bench_cusparse *h, const void *b, void *x, double rtol, size_t max_iter,
                      size_t *iters, double *rel_res, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
