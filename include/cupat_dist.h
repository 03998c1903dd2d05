/* cupat_dist.h — cupat beyond one process (PMPP ch. 20): a communicator over
 * MPI and the distributed primitives built on the single-device ones.
 *
 * One process per device (or per CPU process on the CPU backend), started by
 * mpirun. Link libcupat_dist and MPI (CMake: cupat::cupat_dist; built where
 * CMake finds MPI). The transport follows the context's backend: "mpi" for CPU
 * contexts (host buffers straight to MPI); "mpi-staged" for CUDA contexts
 * (device buffers staged through pinned host memory, so any MPI works); NCCL
 * between GPUs is the next step (docs/dist.md).
 *
 * Every call is collective: every rank of the communicator makes it, with the
 * same type, op and order (n may differ from rank to rank). Errors are local:
 * a rank whose arguments are bad returns the error without communicating, so
 * the other ranks would wait; check arguments the same way on every rank. */
#ifndef CUPAT_DIST_H
#define CUPAT_DIST_H

#include "cupat.h"

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cupat_comm cupat_comm;

/* A communicator for ctx over the ranks of mpi (duplicated: cupat's messages
 * never mix with the caller's). MPI must be initialized. */
cupat_status cupat_comm_create(cupat_comm **comm, cupat_ctx *ctx, MPI_Comm mpi);
void cupat_comm_destroy(cupat_comm *comm);
int cupat_comm_rank(const cupat_comm *comm);
int cupat_comm_size(const cupat_comm *comm);
const char *cupat_comm_transport(const cupat_comm *comm); /* "mpi", "mpi-staged" */

/* Reduce a distributed array: rank r holds n_r elements at x (backend
 * memory); every rank gets op over all of them, in the order of the ranks,
 * in host memory `result` (one element of type, or a cupat_indexed for
 * ARGMIN / ARGMAX whose index counts from the start of rank 0's part).
 * Each rank reduces its part with cupat_reduce, then the partials are
 * gathered and combined in rank order by cupat_reduce on the CPU: every rank
 * gets the same bits, run after run. Float sums are within cupat_reduce's
 * bound of the sum of the parts plus p - 1 more additions. Ranks with n = 0
 * take no part (ARGMIN / ARGMAX index CUPAT_NO_INDEX when all are empty). */
cupat_status cupat_reduce_dist(cupat_comm *comm, cupat_type type, cupat_op op, size_t n,
                               const void *x, void *result);

/* Sample sort of a distributed array of keys: rank r gives n_r keys at keys
 * (backend memory) and receives *out, a backend buffer from cupat_malloc
 * (release it with cupat_free; NULL when *n_out is 0) of *n_out keys, sorted
 * in `order` (cupat_sort's total order for floats). Rank 0's keys, then rank
 * 1's, ... form the whole input sorted: a permutation of all ranks' keys.
 * Local sort (cupat_sort), 32 regular samples a rank gathered everywhere,
 * p - 1 splitters, each key sent to the rank of the first splitter not below
 * it (equal keys go to one rank), an all-to-all exchange, and a sort of what
 * arrived. key_type as cupat_sort. */
cupat_status cupat_sort_dist(cupat_comm *comm, cupat_type key_type, cupat_sort_order order, size_t n,
                             const void *keys, void **out, size_t *n_out);

#ifdef __cplusplus
}
#endif
#endif
