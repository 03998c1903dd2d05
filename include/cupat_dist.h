/* SPDX-License-Identifier: Apache-2.0 */
/* cupat_dist.h — cupat beyond one process (PMPP ch. 20): a communicator over
 * MPI (and NCCL between GPUs) and the distributed primitives built on the
 * single-device ones.
 *
 * One process per device (or per CPU process on the CPU backend), started by
 * mpirun; each rank's context names its own device (e.g. the node-local rank
 * modulo the device count). Link libcupat_dist and MPI (CMake:
 * cupat::cupat_dist; built where CMake finds MPI). Small metadata always goes
 * through MPI; bulk data through the transport:
 *   "mpi"        CPU contexts: host buffers straight to MPI;
 *   "nccl"       CUDA contexts, the default where NCCL loads (libnccl.so.2,
 *                or the file $CUPAT_NCCL_LIBRARY names; found at run time,
 *                so nothing links NCCL): device buffers over NVLink / the
 *                network, the communicator bootstrapped through MPI;
 *   "mpi-staged" CUDA contexts without NCCL: device data staged through host
 *                memory, so any MPI carries it (slow; correct everywhere).
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
/* The same with the transport named: NULL or "" for the default above,
 * "nccl", "mpi-staged" (CUDA contexts) or "mpi" (CPU contexts). A transport
 * the context cannot use is CUPAT_ERROR_NOT_SUPPORTED (NCCL missing: the
 * message says why). The environment variable CUPAT_DIST_TRANSPORT, when
 * set, names the default. Collective: every rank must ask for the same. */
cupat_status cupat_comm_create_transport(cupat_comm **comm, cupat_ctx *ctx, MPI_Comm mpi,
                                         const char *transport);
void cupat_comm_destroy(cupat_comm *comm);
int cupat_comm_rank(const cupat_comm *comm);
int cupat_comm_size(const cupat_comm *comm);
cupat_ctx *cupat_comm_ctx(const cupat_comm *comm);
const char *cupat_comm_transport(const cupat_comm *comm); /* "mpi", "mpi-staged", "nccl" */

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

/* Elementwise all-reduce: every rank gives n elements at x (the same n on
 * every rank) and gets y[i] = x_0[i] op x_1[i] op ... op x_{p-1}[i], combined
 * in rank order, so every rank holds the same bits, run after run. op: SUM,
 * MIN or MAX (cupat_reduce's rules for NaN). x and y are backend memory and
 * may be the same buffer (in place); any other overlap is refused. Where
 * the ranks' GPUs share a node with peer access: each rank pushes x over
 * NVLink into inboxes the library owns in the peers' memory and combines
 * what arrives, one kernel a round, ordered on the context's stream (no host
 * wait). Elsewhere: a reduce-scatter (rank r gathers slice r of every
 * rank's x through the transport and combines it) and an all-gather of the
 * combined slices. Collective: every rank calls it with the same n, type
 * and op, in the same order as its other distributed calls. */
cupat_status cupat_allreduce_dist(cupat_comm *comm, cupat_type type, cupat_op op, size_t n,
                                  const void *x, void *y);

/* Sample sort of a distributed array of keys: rank r gives n_r keys at keys
 * (backend memory) and receives *out, a backend buffer from cupat_malloc
 * (release it with cupat_free; NULL when *n_out is 0) of *n_out keys, sorted
 * in `order` (cupat_sort's total order for floats). Rank 0's keys, then rank
 * 1's, ... form the whole input sorted: a permutation of all ranks' keys.
 * 2048 regular samples a rank gathered everywhere, p - 1 splitters, the
 * keys partitioned into p buckets (each key to the rank of the first
 * splitter not below it: equal keys go to one rank), the own bucket sorted
 * (cupat_sort) while the others travel (copy engines into the peers'
 * library-owned IPC blocks where the ranks share a node, else the
 * transport), what arrived sorted, and the two runs merged (cupat_merge).
 * Collective: waits for the stream (bucket sizes, the exchange).
 * key_type as cupat_sort. */
cupat_status cupat_sort_dist(cupat_comm *comm, cupat_type key_type, cupat_sort_order order, size_t n,
                             const void *keys, void **out, size_t *n_out);

/* Distributed SpMV, rows split between the ranks: rank r holds A_r, its
 * rows of the global matrix as a cupat_sparse over ALL the columns (cols the
 * same on every rank), x_r, its slice of the global x (n_x elements; the
 * slices in rank order are x, so they must add up to cols), and y_r (A_r's
 * rows elements): y_r = alpha A_r x + beta y_r, as cupat_spmv (its rules,
 * rungs and error bound) with x gathered whole on every rank first (one
 * all-gather through the transport). Backend memory; y_r shares no byte
 * with x_r. */
cupat_status cupat_spmv_dist(cupat_comm *comm, const cupat_sparse *A, double alpha, size_t n_x,
                             const void *x, double beta, void *y);

/* A 3D stencil over a grid decomposed in z (PMPP 20.3): the global grid is
 * nx * ny * NZ points with a one-point halo, as cupat_stencil3d; rank r holds
 * a slab of it: nz local planes (nz >= 3), planes 1 .. nz - 2 its own part of
 * the global interior planes (rank 0 the lowest, rank p - 1 the highest),
 * plane 0 and nz - 1 ghost planes: on rank 0 plane 0 is the global halo
 * plane z = 0 (fixed), on rank p - 1 plane nz - 1 is the global halo plane
 * NZ - 1; between ranks the ghost planes are copies of the neighbour's
 * outermost own planes, which this call fills (their contents on entry are
 * ignored). Layout (ldy, ldz), points and coeffs as cupat_stencil3d, the
 * same on every rank (nz may differ). `steps` steps over ping-pong buffers a
 * (the start) and b as cupat_stencil3d_run; *result gets the one holding the
 * final slab. Each step computes the two outermost own planes first, sends
 * them to the neighbours while the interior planes are computed (a second
 * stream, joined by events), so the exchange hides behind the interior.
 * The own planes equal cupat_stencil3d_run on the whole grid bit for bit. */
cupat_status cupat_stencil3d_dist(cupat_comm *comm, cupat_type type, size_t nx, size_t ny,
                                  size_t nz, size_t ldy, size_t ldz, int points,
                                  const double *coeffs, int steps, void *a, void *b,
                                  void **result);

#ifdef __cplusplus
}
#endif
#endif
