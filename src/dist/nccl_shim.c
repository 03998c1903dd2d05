/* SPDX-License-Identifier: Apache-2.0 */
/* nccl_shim.c — NCCL loaded at run time (nccl_shim.h says why). */
#include "nccl_shim.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>

static nccl_api api;
static const nccl_api *loaded;
static const char *failure = "NCCL not loaded";
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void)
{
    const char *name = getenv("CUPAT_NCCL_LIBRARY");
    void *h = dlopen(name && *name ? name : "libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        failure = "libnccl.so.2 not found (set CUPAT_NCCL_LIBRARY to its path)";
        return;
    }
    /* each entry point by its exported name; a missing one disables NCCL */
#define SYM(field, sym)                                                                            \
    do {                                                                                           \
        *(void **)&api.field = dlsym(h, sym);                                                      \
        if (!api.field) {                                                                          \
            failure = "libnccl.so.2 lacks " sym;                                                   \
            return;                                                                                \
        }                                                                                          \
    } while (0)
    SYM(get_version, "ncclGetVersion");
    SYM(get_unique_id, "ncclGetUniqueId");
    SYM(comm_init_rank, "ncclCommInitRank");
    SYM(comm_destroy, "ncclCommDestroy");
    SYM(get_error_string, "ncclGetErrorString");
    SYM(group_start, "ncclGroupStart");
    SYM(group_end, "ncclGroupEnd");
    SYM(send, "ncclSend");
    SYM(recv, "ncclRecv");
    SYM(all_reduce, "ncclAllReduce");
#undef SYM
    int v = 0;
    if (api.get_version(&v) != NCCL_OK || v < 20700) {
        failure = "NCCL older than 2.7 (no send/recv)";
        return;
    }
    loaded = &api;
}

const nccl_api *cupat__nccl(const char **why)
{
    pthread_once(&once, load);
    if (why) *why = loaded ? NULL : failure;
    return loaded;
}
