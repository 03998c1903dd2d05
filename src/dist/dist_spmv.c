/* SPDX-License-Identifier: Apache-2.0 */
/* dist_spmv.c — cupat_spmv_dist: SpMV over rows split between the ranks
 * (PMPP 20's domain decomposition applied to ch. 14). Each rank holds its
 * rows of A (a cupat_sparse over every column) and its slice of x; x is
 * gathered whole on every rank by one exchange (an all-gather through the
 * transport, into a buffer the communicator keeps), then cupat_spmv of the
 * rank's rows gives its slice of y. Gathering all of x is the simple form:
 * its bytes (cols elements a rank) are small beside A's when rows hold many
 * entries; a form that sends only the columns a rank's rows touch is the
 * next step for matrices with few entries a row. */
#include "dist/dist_internal.h"

#include <stdint.h>
#include <stdlib.h>

cupat_status cupat_spmv_dist(cupat_comm *comm, const cupat_sparse *A, double alpha, size_t n_x,
                             const void *x, double beta, void *y)
{
    static const char fn[] = "cupat_spmv_dist";
    CUPAT_TRY(cupat__dist_begin(comm, fn));
    cupat_ctx *ctx = comm->ctx;
    if (!A) return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "%s: A is NULL", fn);
    cupat_sparse_info info;
    CUPAT_TRY(cupat_sparse_get_info(ctx, A, &info));
    const size_t es = cupat_type_size(info.value_type);
    if (n_x > info.cols)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "%s: n_x = %zu is more than A's %zu columns", fn, n_x,
                           info.cols);
    CUPAT_TRY(cupat__check_data(ctx, fn, "x", x, n_x * es));
    CUPAT_TRY(cupat__check_data(ctx, fn, "y", y, info.rows * es));
    CUPAT_TRY(cupat__check_disjoint(ctx, fn, "y", cupat__extent1(y, info.rows * es), "x",
                                    cupat__extent1(x, n_x * es), NULL));
    const int p = comm->size;
    /* every rank's slice length, in rank order; they must add up to cols
     * (every rank sees the same counts, so every rank fails alike) */
    uint64_t mine = n_x, *counts = malloc((size_t)p * sizeof *counts);
    dist_xfer *xs = calloc((size_t)p, sizeof *xs);
    cupat_status s = CUPAT_SUCCESS;
    if (!counts || !xs) {
        s = cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY, "%s: out of host memory", fn);
        goto done;
    }
    int e = MPI_Allgather(&mine, 1, MPI_UINT64_T, counts, 1, MPI_UINT64_T, comm->mpi);
    if (e != MPI_SUCCESS) {
        s = cupat__dist_mpi_fail(ctx, fn, "MPI_Allgather (x slices)", e);
        goto done;
    }
    uint64_t total = 0;
    for (int r = 0; r < p; r++) total += counts[r];
    if (total != info.cols) {
        s = cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                        "%s: the ranks' x slices add up to %llu elements, A has %zu columns", fn,
                        (unsigned long long)total, info.cols);
        goto done;
    }
    void *xall = NULL;
    if (info.cols) {
        s = cupat__dist_buffer(comm, DIST_BUF_X, info.cols * es, &xall);
        if (s != CUPAT_SUCCESS) goto done;
    }
    /* the all-gather: our slice to everyone (and into place here), theirs in */
    size_t off = 0;
    for (int r = 0; r < p; r++) {
        xs[r].peer = r;
        xs[r].send = x;
        xs[r].send_bytes = n_x * es;
        xs[r].recv = (unsigned char *)xall + off * es;
        xs[r].recv_bytes = counts[r] * es;
        off += counts[r];
    }
    s = cupat__dist_exchange(comm, fn, p, xs,
                             ctx->backend == CUPAT_BACKEND_CUDA ? ctx->stream : NULL);
    if (s == CUPAT_SUCCESS) s = cupat_spmv(ctx, A, alpha, xall, beta, y);
done:
    free(counts);
    free(xs);
    return s;
}
