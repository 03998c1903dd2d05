// SPDX-License-Identifier: Apache-2.0
// vendor_sparse.cu — the cuSPARSE baseline of `cupat bench spmv`:
// cusparseSpMV on the same CSR arrays, x and y cupat's rungs get. The
// workspace is sized and allocated at setup (outside the timed region, as
// cupat's scratch is warm by then), and the faster of CSR_ALG1 and CSR_ALG2
// on this matrix is kept ("the best algorithm"). Without cuSPARSE the entry
// points report that it is absent.
#include "bench_sparse.h"

#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef CUPAT_HAVE_CUSPARSE
#include <cublas_v2.h>
#include <cusparse.h>

struct bench_cusparse {
    cusparseHandle_t handle;
    cusparseSpMatDescr_t A;
    cusparseDnVecDescr_t x, y;
    cudaDataType vt;
    cusparseSpMVAlg_t alg;
    void *work;
    size_t work_bytes;
    cudaStream_t stream;
    // CG (bench_cusparse_cg), made on first use
    int64_t rows, cols, nnz;
    void *rp, *ci, *val; // the CSR arrays (the caller's)
    int i64;
    cublasHandle_t blas;
    void *r, *z, *p, *q, *dinv;
    cusparseDnVecDescr_t dp, dq, dx, dr;
    void *cg_x; // the x dx describes
};

static int fail(char *err, size_t len, const char *what, int code)
{
    snprintf(err, len, "%s failed (%d)", what, code);
    return -1;
}

// A fresh matrix descriptor: cusparseSpMV_preprocess ties a descriptor to one
// algorithm, and SpMV with another on it gave wrong y (seen on the H100,
// 2026-11-23): each algorithm tried, and the one kept, get their own.
static cusparseStatus_t make_A(bench_cusparse *h)
{
    if (h->A) cusparseDestroySpMat(h->A);
    h->A = NULL;
    cusparseIndexType_t it = h->i64 ? CUSPARSE_INDEX_64I : CUSPARSE_INDEX_32I;
    return cusparseCreateCsr(&h->A, h->rows, h->cols, h->nnz, h->rp, h->ci, h->val, it, it,
                             CUSPARSE_INDEX_BASE_ZERO, h->vt);
}

extern "C" int bench_cusparse_create(bench_cusparse **out, cupat_stream s, size_t rows, size_t cols,
                                     size_t nnz, int i64, int f64, void *row_ptr, void *col_idx,
                                     void *values, void *x, void *y, char *err, size_t errlen)
{
    *out = NULL;
    bench_cusparse *h = (bench_cusparse *)calloc(1, sizeof *h);
    if (!h) return fail(err, errlen, "calloc", 0);
    cusparseStatus_t st;
    h->vt = f64 ? CUDA_R_64F : CUDA_R_32F;
    h->stream = (cudaStream_t)s;
    h->rows = (int64_t)rows;
    h->cols = (int64_t)cols;
    h->nnz = (int64_t)nnz;
    h->rp = row_ptr;
    h->ci = col_idx;
    h->val = values;
    h->i64 = i64;
    if ((st = cusparseCreate(&h->handle)) != CUSPARSE_STATUS_SUCCESS)
        return free(h), fail(err, errlen, "cusparseCreate", (int)st);
    cusparseSetStream(h->handle, (cudaStream_t)s);
    st = make_A(h);
    if (st == CUSPARSE_STATUS_SUCCESS) st = cusparseCreateDnVec(&h->x, (int64_t)cols, x, h->vt);
    if (st == CUSPARSE_STATUS_SUCCESS) st = cusparseCreateDnVec(&h->y, (int64_t)rows, y, h->vt);
    if (st != CUSPARSE_STATUS_SUCCESS) {
        bench_cusparse_destroy(h);
        return fail(err, errlen, "cusparseCreateCsr / CreateDnVec", (int)st);
    }
    // workspace for both algorithms, then time each (5 calls, after one)
    const cusparseSpMVAlg_t algs[2] = {CUSPARSE_SPMV_CSR_ALG1, CUSPARSE_SPMV_CSR_ALG2};
    double one = 1.0, zero = 0.0;
    float onef = 1.0f, zerof = 0.0f;
    const void *a = f64 ? (const void *)&one : (const void *)&onef;
    const void *b = f64 ? (const void *)&zero : (const void *)&zerof;
    size_t most = 0;
    for (int i = 0; i < 2; i++) {
        size_t bytes = 0;
        st = cusparseSpMV_bufferSize(h->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, a, h->A, h->x, b, h->y, h->vt,
                                     algs[i], &bytes);
        if (st != CUSPARSE_STATUS_SUCCESS) {
            bench_cusparse_destroy(h);
            return fail(err, errlen, "cusparseSpMV_bufferSize", (int)st);
        }
        if (bytes > most) most = bytes;
    }
    h->work_bytes = most;
    if (most && cudaMalloc(&h->work, most) != cudaSuccess) {
        bench_cusparse_destroy(h);
        return fail(err, errlen, "cudaMalloc (workspace)", 0);
    }
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    float best = -1;
    for (int i = 0; i < 2; i++) {
        if (i && make_A(h) != CUSPARSE_STATUS_SUCCESS) continue;
        st = cusparseSpMV_preprocess(h->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, a, h->A, h->x, b, h->y, h->vt,
                                     algs[i], h->work);
        (void)st; // preprocess is optional: an algorithm without it still runs
        st = cusparseSpMV(h->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, a, h->A, h->x, b, h->y, h->vt, algs[i],
                          h->work);
        if (st != CUSPARSE_STATUS_SUCCESS) continue;
        cudaEventRecord(e0, (cudaStream_t)s);
        for (int r = 0; r < 5; r++)
            cusparseSpMV(h->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, a, h->A, h->x, b, h->y, h->vt, algs[i],
                         h->work);
        cudaEventRecord(e1, (cudaStream_t)s);
        cudaEventSynchronize(e1);
        float ms = 0;
        cudaEventElapsedTime(&ms, e0, e1);
        if (best < 0 || ms < best) {
            best = ms;
            h->alg = algs[i];
        }
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    if (best < 0) {
        bench_cusparse_destroy(h);
        return fail(err, errlen, "cusparseSpMV (both CSR algorithms)", 0);
    }
    if (h->alg != algs[1]) { // the descriptor holds the last algorithm's preprocessing
        st = make_A(h);
        if (st == CUSPARSE_STATUS_SUCCESS)
            st = cusparseSpMV_preprocess(h->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, a, h->A, h->x, b, h->y,
                                         h->vt, h->alg, h->work);
        if (st != CUSPARSE_STATUS_SUCCESS && st != CUSPARSE_STATUS_NOT_SUPPORTED) {
            bench_cusparse_destroy(h);
            return fail(err, errlen, "cusparseCreateCsr / SpMV_preprocess (chosen algorithm)", (int)st);
        }
    }
    *out = h;
    return 0;
}

extern "C" int bench_cusparse_spmv(bench_cusparse *h)
{
    double one = 1.0, zero = 0.0;
    float onef = 1.0f, zerof = 0.0f;
    int f64 = h->vt == CUDA_R_64F;
    cusparseStatus_t st = cusparseSpMV(h->handle, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                       f64 ? (const void *)&one : (const void *)&onef, h->A, h->x,
                                       f64 ? (const void *)&zero : (const void *)&zerof, h->y, h->vt, h->alg,
                                       h->work);
    return st == CUSPARSE_STATUS_SUCCESS ? 0 : -1;
}

extern "C" const char *bench_cusparse_alg(const bench_cusparse *h)
{
    return h->alg == CUSPARSE_SPMV_CSR_ALG2 ? "CSR_ALG2" : "CSR_ALG1";
}

extern "C" void bench_cusparse_destroy(bench_cusparse *h)
{
    if (!h) return;
    if (h->A) cusparseDestroySpMat(h->A);
    if (h->x) cusparseDestroyDnVec(h->x);
    if (h->y) cusparseDestroyDnVec(h->y);
    if (h->work) cudaFree(h->work);
    if (h->handle) cusparseDestroy(h->handle);
    if (h->dp) cusparseDestroyDnVec(h->dp);
    if (h->dq) cusparseDestroyDnVec(h->dq);
    if (h->dx) cusparseDestroyDnVec(h->dx);
    if (h->dr) cusparseDestroyDnVec(h->dr);
    void *bufs[] = {h->r, h->z, h->p, h->q, h->dinv};
    for (int i = 0; i < 5; i++)
        if (bufs[i]) cudaFree(bufs[i]);
    if (h->blas) cublasDestroy(h->blas);
    free(h);
}

// dinv[i] = 1 / (sum of row i's diagonal entries)
template <typename I, typename V>
__global__ void k_dinv(int64_t rows, const I *rp, const I *ci, const V *val, V *dinv)
{
    for (int64_t r = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; r < rows; r += (int64_t)gridDim.x * blockDim.x) {
        V d = 0;
        for (int64_t k = rp[r]; k < (int64_t)rp[r + 1]; k++)
            if ((int64_t)ci[k] == r) d += val[k];
        dinv[r] = V(1) / d;
    }
}

static int cg_setup(bench_cusparse *h, char *err, size_t len)
{
    size_t vs = h->vt == CUDA_R_64F ? 8 : 4, bytes = (size_t)h->rows * vs;
    if (cublasCreate(&h->blas) != CUBLAS_STATUS_SUCCESS) return fail(err, len, "cublasCreate", 0);
    cublasSetStream(h->blas, h->stream);
    cublasSetPointerMode(h->blas, CUBLAS_POINTER_MODE_HOST);
    void **bufs[] = {&h->r, &h->z, &h->p, &h->q, &h->dinv};
    for (int i = 0; i < 5; i++)
        if (cudaMalloc(bufs[i], bytes ? bytes : 1) != cudaSuccess) return fail(err, len, "cudaMalloc (CG)", 0);
    if (cusparseCreateDnVec(&h->dp, h->rows, h->p, h->vt) != CUSPARSE_STATUS_SUCCESS ||
        cusparseCreateDnVec(&h->dq, h->rows, h->q, h->vt) != CUSPARSE_STATUS_SUCCESS ||
        cusparseCreateDnVec(&h->dr, h->rows, h->r, h->vt) != CUSPARSE_STATUS_SUCCESS)
        return fail(err, len, "cusparseCreateDnVec (CG)", 0);
    unsigned g = (unsigned)((h->rows + 255) / 256 < 4096 ? (h->rows + 255) / 256 + 1 : 4096);
    if (h->vt == CUDA_R_64F) {
        if (h->i64) k_dinv<int64_t, double><<<g, 256, 0, h->stream>>>(h->rows, (const int64_t *)h->rp, (const int64_t *)h->ci, (const double *)h->val, (double *)h->dinv);
        else k_dinv<int32_t, double><<<g, 256, 0, h->stream>>>(h->rows, (const int32_t *)h->rp, (const int32_t *)h->ci, (const double *)h->val, (double *)h->dinv);
    } else {
        if (h->i64) k_dinv<int64_t, float><<<g, 256, 0, h->stream>>>(h->rows, (const int64_t *)h->rp, (const int64_t *)h->ci, (const float *)h->val, (float *)h->dinv);
        else k_dinv<int32_t, float><<<g, 256, 0, h->stream>>>(h->rows, (const int32_t *)h->rp, (const int32_t *)h->ci, (const float *)h->val, (float *)h->dinv);
    }
    return cudaGetLastError() == cudaSuccess ? 0 : fail(err, len, "k_dinv", 0);
}

// The cuBLAS calls of one value type.
template <typename V> struct Blas;
template <> struct Blas<float> {
    static cublasStatus_t dot(cublasHandle_t b, int n, const float *x, const float *y, float *r) { return cublasSdot(b, n, x, 1, y, 1, r); }
    static cublasStatus_t axpy(cublasHandle_t b, int n, float a, const float *x, float *y) { return cublasSaxpy(b, n, &a, x, 1, y, 1); }
    static cublasStatus_t scal(cublasHandle_t b, int n, float a, float *x) { return cublasSscal(b, n, &a, x, 1); }
    static cublasStatus_t dgmm(cublasHandle_t b, int n, const float *r, const float *d, float *z) { return cublasSdgmm(b, CUBLAS_SIDE_LEFT, n, 1, r, n, d, 1, z, n); }
};
template <> struct Blas<double> {
    static cublasStatus_t dot(cublasHandle_t b, int n, const double *x, const double *y, double *r) { return cublasDdot(b, n, x, 1, y, 1, r); }
    static cublasStatus_t axpy(cublasHandle_t b, int n, double a, const double *x, double *y) { return cublasDaxpy(b, n, &a, x, 1, y, 1); }
    static cublasStatus_t scal(cublasHandle_t b, int n, double a, double *x) { return cublasDscal(b, n, &a, x, 1); }
    static cublasStatus_t dgmm(cublasHandle_t b, int n, const double *r, const double *d, double *z) { return cublasDdgmm(b, CUBLAS_SIDE_LEFT, n, 1, r, n, d, 1, z, n); }
};

template <typename V>
static int cg_run(bench_cusparse *h, const V *b, V *x, double rtol, size_t max_iter, size_t *iters, double *rel,
                  char *err, size_t len)
{
    typedef Blas<V> B;
    const int n = (int)h->rows;
    V *r = (V *)h->r, *z = (V *)h->z, *p = (V *)h->p, *q = (V *)h->q, *dinv = (V *)h->dinv;
    V one = 1, mone = -1, zero = 0;
    if (h->cg_x != (void *)x) {
        if (h->dx) cusparseDestroyDnVec(h->dx);
        h->dx = NULL;
        if (cusparseCreateDnVec(&h->dx, h->rows, x, h->vt) != CUSPARSE_STATUS_SUCCESS)
            return fail(err, len, "cusparseCreateDnVec (x)", 0);
        h->cg_x = x;
    }
#define SPMV(alpha, in, beta, out)                                                                            \
    cusparseSpMV(h->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, h->A, in, &beta, out, h->vt, h->alg, h->work)
    cudaMemcpyAsync(r, b, (size_t)n * sizeof(V), cudaMemcpyDeviceToDevice, h->stream);
    if (SPMV(mone, h->dx, one, h->dr) != CUSPARSE_STATUS_SUCCESS) return fail(err, len, "cusparseSpMV (r)", 0);
    V rz, rr, bb, pq, rz_new;
    B::dgmm(h->blas, n, r, dinv, z);
    cudaMemcpyAsync(p, z, (size_t)n * sizeof(V), cudaMemcpyDeviceToDevice, h->stream);
    B::dot(h->blas, n, r, z, &rz);
    B::dot(h->blas, n, r, r, &rr);
    if (B::dot(h->blas, n, b, b, &bb) != CUBLAS_STATUS_SUCCESS) return fail(err, len, "cublas dot", 0);
    double bn = sqrt((double)bb), res = bn > 0 ? sqrt((double)rr) / bn : 0;
    size_t k = 0;
    while (res > rtol && k < max_iter) {
        if (SPMV(one, h->dp, zero, h->dq) != CUSPARSE_STATUS_SUCCESS) return fail(err, len, "cusparseSpMV (q)", 0);
        B::dot(h->blas, n, p, q, &pq);
        V alpha = rz / pq;
        B::axpy(h->blas, n, alpha, p, x);
        B::axpy(h->blas, n, -alpha, q, r);
        B::dgmm(h->blas, n, r, dinv, z);
        B::dot(h->blas, n, r, z, &rz_new);
        if (B::dot(h->blas, n, r, r, &rr) != CUBLAS_STATUS_SUCCESS) return fail(err, len, "cublas dot", 0);
        k++;
        res = sqrt((double)rr) / bn;
        if (res <= rtol) break;
        B::scal(h->blas, n, rz_new / rz, p);
        B::axpy(h->blas, n, one, z, p);
        rz = rz_new;
    }
#undef SPMV
    *iters = k;
    *rel = res;
    return cudaStreamSynchronize(h->stream) == cudaSuccess ? 0 : fail(err, len, "cudaStreamSynchronize", 0);
}

extern "C" int bench_cusparse_cg(bench_cusparse *h, const void *b, void *x, double rtol, size_t max_iter,
                                 size_t *iters, double *rel_res, char *err, size_t errlen)
{
    if (!h->blas && cg_setup(h, err, errlen)) return -1;
    if (h->vt == CUDA_R_64F)
        return cg_run<double>(h, (const double *)b, (double *)x, rtol, max_iter, iters, rel_res, err, errlen);
    return cg_run<float>(h, (const float *)b, (float *)x, rtol, max_iter, iters, rel_res, err, errlen);
}

#else // no cuSPARSE in this build

struct bench_cusparse {
    int unused;
};
extern "C" int bench_cusparse_create(bench_cusparse **out, cupat_stream, size_t, size_t, size_t, int, int, void *,
                                     void *, void *, void *, void *, char *err, size_t errlen)
{
    *out = NULL;
    snprintf(err, errlen, "cuSPARSE not found at configure time");
    return -1;
}
extern "C" int bench_cusparse_spmv(bench_cusparse *) { return -1; }
extern "C" const char *bench_cusparse_alg(const bench_cusparse *) { return "none"; }
extern "C" void bench_cusparse_destroy(bench_cusparse *) {}
extern "C" int bench_cusparse_cg(bench_cusparse *, const void *, void *, double, size_t, size_t *, double *,
                                 char *err, size_t errlen)
{
    snprintf(err, errlen, "cuSPARSE not found at configure time");
    return -1;
}

#endif
