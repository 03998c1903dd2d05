/* dist_ipc.c — the direct all-reduce between GPUs of one node: every rank
 * maps the other ranks' buffers through CUDA IPC and one kernel a rank
 * combines its slice of all of them over NVLink (no staging, no second
 * exchange). Synchronization is host-side and collective: a stream wait and
 * an MPI exchange of the handles before the kernel (every x is ready), a
 * stream wait and an MPI barrier after it (every y is complete, no x is read
 * any more), so the call returns with the result in place on every rank. */
#include "dist/dist_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* One peer allocation mapped into this process. */
struct dist_ipc_map {
    cudaIpcMemHandle_t handle;
    void *base;
};
#define MAX_MAPS 64

/* What a rank tells the others about one buffer: its allocation's handle
 * and the buffer's offset in it. */
typedef struct {
    cudaIpcMemHandle_t handle;
    uint64_t offset;
} ipc_buf;

typedef int (*addr_range_fn)(unsigned long long *base, size_t *size, unsigned long long ptr);

/* The base of the allocation holding p (cuMemGetAddressRange, found at run
 * time so nothing links the driver library). */
static int alloc_base(const void *p, char **base)
{
    static addr_range_fn range;
    if (!range) {
        void *f = NULL;
        enum cudaDriverEntryPointQueryResult q;
        if (cudaGetDriverEntryPointByVersion("cuMemGetAddressRange", &f, 12000, cudaEnableDefault, &q) !=
                cudaSuccess ||
            q != cudaDriverEntryPointSuccess || !f)
            return -1;
        range = (addr_range_fn)f;
    }
    unsigned long long b = 0;
    size_t size = 0;
    if (range(&b, &size, (unsigned long long)(uintptr_t)p) != 0) return -1;
    *base = (char *)(uintptr_t)b;
    return 0;
}

cupat_status cupat__dist_ipc_init(cupat_comm *c, const char *fn)
{
    c->ipc = 0;
    if (c->ctx->backend != CUPAT_BACKEND_CUDA || c->size < 2 || c->size > DIST_IPC_MAX_RANKS ||
        getenv("CUPAT_DIST_NO_IPC"))
        return CUPAT_SUCCESS;
    /* one node? */
    MPI_Comm node;
    DIST_MPI_TRY(c->ctx, fn, MPI_Comm_split_type(c->mpi, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    int nsize = 0;
    MPI_Comm_size(node, &nsize);
    MPI_Comm_free(&node);
    /* every rank's device by PCI id, and peer access to each */
    char mine[32] = "", *all = calloc((size_t)c->size, sizeof mine);
    if (!all) return cupat__fail(c->ctx, CUPAT_ERROR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    int ok = nsize == c->size && cudaDeviceGetPCIBusId(mine, (int)sizeof mine, c->ctx->device) == cudaSuccess;
    int e = MPI_Allgather(mine, (int)sizeof mine, MPI_CHAR, all, (int)sizeof mine, MPI_CHAR, c->mpi);
    if (e != MPI_SUCCESS) {
        free(all);
        return cupat__dist_mpi_fail(c->ctx, fn, "MPI_Allgather (devices)", e);
    }
    for (int r = 0; r < c->size && ok; r++) {
        if (r == c->rank) continue;
        int dev = -1, can = 0;
        if (cudaDeviceGetByPCIBusId(&dev, all + (size_t)r * sizeof mine) != cudaSuccess || dev == c->ctx->device ||
            cudaDeviceCanAccessPeer(&can, c->ctx->device, dev) != cudaSuccess || !can)
            ok = 0;
    }
    (void)cudaGetLastError();
    free(all);
    int every = 0;
    DIST_MPI_TRY(c->ctx, fn, MPI_Allreduce(&ok, &every, 1, MPI_INT, MPI_MIN, c->mpi));
    c->ipc = every;
    return CUPAT_SUCCESS;
}

void cupat__dist_ipc_close(cupat_comm *c)
{
    for (int i = 0; i < c->nmaps; i++) cudaIpcCloseMemHandle(c->maps[i].base);
    free(c->maps);
    c->maps = NULL;
    c->nmaps = 0;
}

/* A peer buffer mapped here: its allocation opened once and kept (the
 * oldest mapping closed when the table is full). */
static cupat_status peer_ptr(cupat_comm *c, const char *fn, const ipc_buf *b, void **p)
{
    for (int i = 0; i < c->nmaps; i++)
        if (!memcmp(&c->maps[i].handle, &b->handle, sizeof b->handle)) {
            *p = (char *)c->maps[i].base + b->offset;
            return CUPAT_SUCCESS;
        }
    if (!c->maps) {
        c->maps = calloc(MAX_MAPS, sizeof *c->maps);
        if (!c->maps) return cupat__fail(c->ctx, CUPAT_ERROR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    }
    if (c->nmaps == MAX_MAPS) {
        cudaIpcCloseMemHandle(c->maps[0].base);
        memmove(c->maps, c->maps + 1, (MAX_MAPS - 1) * sizeof *c->maps);
        c->nmaps--;
    }
    void *base = NULL;
    CUPAT_CUDA_TRY(c->ctx, cudaIpcOpenMemHandle(&base, b->handle, cudaIpcMemLazyEnablePeerAccess));
    c->maps[c->nmaps].handle = b->handle;
    c->maps[c->nmaps++].base = base;
    *p = (char *)base + b->offset;
    return CUPAT_SUCCESS;
}

static cupat_status describe(cupat_comm *c, const void *p, ipc_buf *b)
{
    char *base = NULL;
    if (alloc_base(p, &base) != 0)
        return cupat__fail(c->ctx, CUPAT_ERROR_CUDA, "cupat_allreduce_dist: no allocation holds %p", p);
    CUPAT_CUDA_TRY(c->ctx, cudaIpcGetMemHandle(&b->handle, base));
    b->offset = (uint64_t)((const char *)p - base);
    return CUPAT_SUCCESS;
}

cupat_status cupat__dist_allreduce_ipc(cupat_comm *c, const char *fn, cupat_type type, cupat_op op, size_t n,
                                       const void *x, void *y)
{
    cupat_ctx *ctx = c->ctx;
    const int p = c->size, me = c->rank;
    const size_t es = cupat_type_size(type);
    ipc_buf mine[2], all[2 * DIST_IPC_MAX_RANKS];
    memset(mine, 0, sizeof mine);
    /* x ready and y free here; then everyone's (the allgather meets them all) */
    cupat_status s = cupat__cuda(ctx, cudaStreamSynchronize(ctx->stream), "cudaStreamSynchronize");
    if (s == CUPAT_SUCCESS) s = describe(c, x, &mine[0]);
    if (s == CUPAT_SUCCESS) s = describe(c, y, &mine[1]);
    /* a rank that failed still takes part (zeroed handles), then all fail */
    int ok = s == CUPAT_SUCCESS, every = 0;
    DIST_MPI_TRY(ctx, fn, MPI_Allgather(mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, c->mpi));
    DIST_MPI_TRY(ctx, fn, MPI_Allreduce(&ok, &every, 1, MPI_INT, MPI_MIN, c->mpi));
    /* a buffer IPC cannot share (managed or pool memory, say) on any rank:
     * every rank takes the staged form instead */
    if (!every) {
        (void)cudaGetLastError();
        return cupat__fail(ctx, CUPAT_ERROR_NOT_SUPPORTED, "%s: a rank's buffers cannot be shared by IPC", fn);
    }
    /* slice `me`: elements [lo, hi), a multiple of 4 elements so vectors stay aligned */
    const size_t q = (n / 4 + (size_t)p - 1) / (size_t)p * 4;
    size_t lo = q * (size_t)me, hi = lo + q;
    if (lo > n) lo = n;
    if (hi > n || me == p - 1) hi = n;
    const void *src[DIST_IPC_MAX_RANKS];
    void *dst[DIST_IPC_MAX_RANKS];
    for (int r = 0; r < p && s == CUPAT_SUCCESS; r++) {
        void *px = (void *)x, *py = y;
        if (r != me) {
            s = peer_ptr(c, fn, &all[2 * r], &px);
            if (s == CUPAT_SUCCESS) s = peer_ptr(c, fn, &all[2 * r + 1], &py);
        }
        src[r] = (const char *)px + lo * es;
        dst[r] = (char *)py + lo * es;
    }
    if (s == CUPAT_SUCCESS && hi > lo) s = cupat__dist_combine_direct(ctx, type, op, hi - lo, p, src, dst);
    /* every rank's writes done before anyone goes on */
    cupat_status w = cupat__cuda(ctx, cudaStreamSynchronize(ctx->stream), "cudaStreamSynchronize");
    if (s == CUPAT_SUCCESS) s = w;
    ok = s == CUPAT_SUCCESS;
    DIST_MPI_TRY(ctx, fn, MPI_Allreduce(&ok, &every, 1, MPI_INT, MPI_MIN, c->mpi));
    if (!every && s == CUPAT_SUCCESS)
        return cupat__fail(ctx, CUPAT_ERROR_CUDA, "%s: the direct all-reduce failed on another rank", fn);
    return s;
}
