/* dist_internal.h — what the files of libcupat_dist share: the communicator
 * and the one bulk-data primitive every distributed pattern is built on
 * (cupat__dist_exchange: point-to-point transfers with several peers at
 * once). Small host metadata (counts, samples, partial results) always goes
 * through MPI on the communicator's own MPI_Comm; bulk data goes through the
 * transport. */
#ifndef CUPAT_DIST_INTERNAL_H
#define CUPAT_DIST_INTERNAL_H

#include "cupat_dist.h"
#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum dist_transport {
    DIST_MPI = 0,        /* CPU context: host buffers straight to MPI            */
    DIST_MPI_STAGED = 1, /* CUDA context: device data through pinned host memory */
    DIST_NCCL = 2        /* CUDA context: device buffers through NCCL            */
} dist_transport;

struct cupat_comm {
    cupat_ctx *ctx;
    MPI_Comm mpi; /* duplicated from the caller's, errors returned */
    int rank, size;
    dist_transport transport;
    void *nccl; /* ncclComm_t (DIST_NCCL) */
};

/* One peer's share of an exchange: send_bytes from send to peer, and
 * recv_bytes from peer into recv (either may be 0; then its pointer is not
 * touched). Backend memory. peer == own rank copies locally. */
typedef struct dist_xfer {
    int peer;
    const void *send;
    size_t send_bytes;
    void *recv;
    size_t recv_bytes;
} dist_xfer;

/* Every transfer of x[0, n) at once; the peer must post the matching
 * transfer (its send_bytes = our recv_bytes). On the CUDA backend the
 * transfers are ordered after the work already queued on `stream` and the
 * stream's later work after them: NCCL enqueues them and returns; the
 * staged transport waits for the stream, moves the data, and returns with
 * it done. Messages of any size (MPI ones are cut into pieces below 2^31
 * bytes). fn names the public call for error messages. */
cupat_status cupat__dist_exchange(cupat_comm *c, const char *fn, int n, const dist_xfer *x,
                                  cudaStream_t stream);

/* cupat__begin on the communicator's context; NULL comm refused. */
cupat_status cupat__dist_begin(cupat_comm *c, const char *fn);

/* An MPI error code as a cupat status with MPI's message. */
cupat_status cupat__dist_mpi_fail(cupat_ctx *ctx, const char *fn, const char *what, int err);
#define DIST_MPI_TRY(ctx, fn, call)                                                                \
    do {                                                                                           \
        int mpi_e_ = (call);                                                                       \
        if (mpi_e_ != MPI_SUCCESS) return cupat__dist_mpi_fail((ctx), (fn), #call, mpi_e_);        \
    } while (0)

/* Elementwise out[i] = a[i] op b[i] for n elements of type, on the
 * context's stream (dist_kernels.cu on CUDA; a loop on the CPU). op: SUM,
 * MIN, MAX with cupat_reduce's rules (NaN propagates through MIN / MAX,
 * -0 < +0; integer sums wrap). out may be a or b. */
cupat_status cupat__dist_combine(cupat_ctx *ctx, cupat_type type, cupat_op op, size_t n,
                                 const void *a, const void *b, void *out);

#ifdef __cplusplus
}
#endif
#endif
