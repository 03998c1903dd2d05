/* SPDX-License-Identifier: Apache-2.0 */
/* nccl_shim.h — the part of NCCL's C API cupat uses, loaded at run time
 * (dlopen of $CUPAT_NCCL_LIBRARY, else libnccl.so.2) so libcupat_dist builds
 * where NCCL is not installed (CI) and a machine without it falls back to
 * the staged MPI transport. The declarations follow NCCL's public ABI
 * (nccl.h, 2.x): opaque communicator, 128-byte unique id passed by value,
 * enums as ints. */
#ifndef CUPAT_NCCL_SHIM_H
#define CUPAT_NCCL_SHIM_H

#include <cuda_runtime.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nccl_comm *nccl_comm_t;
typedef struct {
    char internal[128];
} nccl_unique_id;

enum { NCCL_OK = 0 };
enum { NCCL_INT8 = 0, NCCL_UINT8 = 1, NCCL_INT32 = 2, NCCL_UINT32 = 3, NCCL_INT64 = 4,
       NCCL_UINT64 = 5, NCCL_FLOAT16 = 6, NCCL_FLOAT32 = 7, NCCL_FLOAT64 = 8 };
enum { NCCL_SUM = 0, NCCL_PROD = 1, NCCL_MAX = 2, NCCL_MIN = 3 };

typedef struct nccl_api {
    int (*get_version)(int *version);
    int (*get_unique_id)(nccl_unique_id *id);
    int (*comm_init_rank)(nccl_comm_t *comm, int nranks, nccl_unique_id id, int rank);
    int (*comm_destroy)(nccl_comm_t comm);
    const char *(*get_error_string)(int result);
    int (*group_start)(void);
    int (*group_end)(void);
    int (*send)(const void *buf, size_t count, int type, int peer, nccl_comm_t comm,
                cudaStream_t stream);
    int (*recv)(void *buf, size_t count, int type, int peer, nccl_comm_t comm,
                cudaStream_t stream);
    int (*all_reduce)(const void *send, void *recv, size_t count, int type, int op,
                      nccl_comm_t comm, cudaStream_t stream);
} nccl_api;

/* NCCL's entry points, loaded once (thread-safe); NULL where the library or
 * one of them is missing, with the reason in *why (static text). */
const nccl_api *cupat__nccl(const char **why);

#ifdef __cplusplus
}
#endif
#endif
