/* SPDX-License-Identifier: Apache-2.0 */
/* dist_ipc.c — the direct all-reduce between GPUs of one node (peer access
 * between every pair). Each rank owns one cudaMalloc'd block that every
 * other rank maps once through CUDA IPC: flags, then two halves of inboxes
 * (a slot per source rank). A call is cut into rounds of at most a slot;
 * round e's kernel (dist_kernels.cu, k_push) pushes each chunk of the
 * rank's x into its slot of every peer's half e % 2 over NVLink, raises the
 * chunk's flag there to e (a release at system scope), waits until every
 * peer's flag for that chunk in its own block reaches e, and combines the
 * chunk in rank order into y. Nothing waits on the host and no MPI call is
 * made: the call is ordered on the stream like any kernel. Only
 * library-owned memory is shared: the user's x and y are never mapped by
 * another process (freeing an exported allocation that a peer still maps
 * is undefined behaviour, and the user may free x the moment we return).
 *
 * The block is one of the communicator's shared blocks (cupat__dist_shared:
 * every rank's, mapped by every other once, remade larger when a call needs
 * more); the sample sort's exchange lands in another.
 *
 * Why two halves suffice: a rank starts round e + 2 (writing half e % 2 of
 * its peers) only after its round e + 1 kernel saw every peer's round
 * e + 1 flags, which a peer raises only after its round e kernel ended,
 * reads of half e % 2 included. Flags only grow (epochs count up), so a
 * waiter that is overtaken by a later round's flag still sees >= e. */
#include "dist/dist_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Tests: bytes a slot holds (0: DIST_IPC_SLOT_MAX), so that small calls take
 * several rounds. */
size_t cupat__dist_ipc_slot_cap = 0;

static size_t flags_bytes(void) { return (size_t)DIST_IPC_MAX_RANKS * DIST_IPC_CHUNKS * sizeof(unsigned long long); }

/* The slot size a call takes: every rank computes the same from (p, n, es). */
static size_t slot_bytes_for(int p, size_t bytes)
{
    size_t cap = DIST_IPC_SLOT_MAX / (size_t)(p - 1) / DIST_IPC_CHUNK * DIST_IPC_CHUNK;
    if (cupat__dist_ipc_slot_cap && cupat__dist_ipc_slot_cap < cap)
        cap = (cupat__dist_ipc_slot_cap + DIST_IPC_CHUNK - 1) / DIST_IPC_CHUNK * DIST_IPC_CHUNK;
    if (cap < DIST_IPC_CHUNK) cap = DIST_IPC_CHUNK;
    const size_t need = (bytes + DIST_IPC_CHUNK - 1) / DIST_IPC_CHUNK * DIST_IPC_CHUNK;
    return need < cap ? need : cap;
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
    /* the same grid on every rank: block b of each rank waits only for
     * block b of the others (same chunks, same order), and two blocks an SM
     * of the smallest device are resident together */
    int sms = c->ctx->sm_count > 0 ? c->ctx->sm_count : 1, least = 0;
    DIST_MPI_TRY(c->ctx, fn, MPI_Allreduce(&sms, &least, 1, MPI_INT, MPI_MIN, c->mpi));
    c->ipc_grid = 2 * least;
    c->ipc = every;
    return CUPAT_SUCCESS;
}

/* Unmaps the peers' blocks, then frees ours once every rank has unmapped it
 * (barrier: a peer must close a mapping before its owner frees it). The
 * barrier is taken where the blocks were shared (bytes set: the same on
 * every rank). */
static void shared_release(cupat_comm *c, dist_shared *b, int barrier)
{
    cudaSetDevice(c->ctx->device);
    cudaStreamSynchronize(c->ctx->stream); /* nothing of ours still using them */
    if (c->side) cudaStreamSynchronize(c->side);
    for (int r = 0; r < DIST_IPC_MAX_RANKS; r++) {
        if (b->peer[r]) cudaIpcCloseMemHandle(b->peer[r]);
        b->peer[r] = NULL;
    }
    if (barrier) MPI_Barrier(c->mpi);
    if (b->mem) cudaFree(b->mem);
    b->mem = NULL;
    b->bytes = 0;
    (void)cudaGetLastError();
}

void cupat__dist_ipc_close(cupat_comm *c)
{
    for (int i = 0; i < DIST_SHARED_BLOCKS; i++)
        if (c->shared[i].mem) shared_release(c, &c->shared[i], c->shared[i].bytes > 0);
}

/* Every rank's block i of at least `bytes` (collective: every rank asks for
 * the same), zeroed where made. Grows by remaking it: every rank's work on
 * it done and a barrier first, so no peer still writes to or reads the old
 * one. */
cupat_status cupat__dist_shared(cupat_comm *c, const char *fn, int i, size_t bytes)
{
    dist_shared *b = &c->shared[i];
    if (b->mem && b->bytes >= bytes) return CUPAT_SUCCESS;
    cupat_ctx *ctx = c->ctx;
    const int p = c->size;
    size_t want = (size_t)1 << 20; /* powers of two from 1 MiB: few remakes */
    while (want < bytes) want *= 2;
    if (b->bytes) shared_release(c, b, 1);
    cudaIpcMemHandle_t h, *all = calloc((size_t)p, sizeof h);
    if (!all) return cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    memset(&h, 0, sizeof h);
    cupat_status s = cupat__cuda(ctx, cudaMalloc(&b->mem, want), "cudaMalloc (shared block)");
    if (s == CUPAT_SUCCESS) s = cupat__cuda(ctx, cudaMemset(b->mem, 0, want), "cudaMemset");
    if (s == CUPAT_SUCCESS) s = cupat__cuda(ctx, cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    if (s == CUPAT_SUCCESS) s = cupat__cuda(ctx, cudaIpcGetMemHandle(&h, b->mem), "cudaIpcGetMemHandle");
    int e = MPI_Allgather(&h, (int)sizeof h, MPI_BYTE, all, (int)sizeof h, MPI_BYTE, c->mpi);
    for (int r = 0; r < p && s == CUPAT_SUCCESS && e == MPI_SUCCESS; r++)
        if (r != c->rank)
            s = cupat__cuda(ctx, cudaIpcOpenMemHandle(&b->peer[r], all[r], cudaIpcMemLazyEnablePeerAccess),
                            "cudaIpcOpenMemHandle");
    free(all);
    if (e != MPI_SUCCESS) {
        shared_release(c, b, 0);
        return cupat__dist_mpi_fail(ctx, fn, "MPI_Allgather (IPC handles)", e);
    }
    /* all or none: a rank that failed makes every rank take the other form */
    int ok = s == CUPAT_SUCCESS, every = 0;
    DIST_MPI_TRY(ctx, fn, MPI_Allreduce(&ok, &every, 1, MPI_INT, MPI_MIN, c->mpi));
    if (!every) {
        shared_release(c, b, 1);
        return cupat__fail(ctx, CUPAT_ERROR_NOT_SUPPORTED, "%s: a block could not be shared between the ranks", fn);
    }
    b->bytes = want;
    return CUPAT_SUCCESS;
}

cupat_status cupat__dist_allreduce_ipc(cupat_comm *c, const char *fn, cupat_type type, cupat_op op, size_t n,
                                       const void *x, void *y)
{
    const int p = c->size, me = c->rank;
    const size_t es = cupat_type_size(type), slot = slot_bytes_for(p, n * es);
    /* the slot size a block holds is its size's, so every call with the
     * same need finds it (powers of two past the flags) */
    dist_shared *b = &c->shared[DIST_SHARED_ALLREDUCE];
    const size_t need = flags_bytes() + 2 * (size_t)p * slot;
    const cupat_status s = cupat__dist_shared(c, fn, DIST_SHARED_ALLREDUCE, need);
    if (s != CUPAT_SUCCESS) {
        if (s == CUPAT_ERROR_NOT_SUPPORTED) c->ipc = 0;
        return s;
    }
    const size_t slot_at = (b->bytes - flags_bytes()) / (2 * (size_t)p) / DIST_IPC_CHUNK * DIST_IPC_CHUNK;
    const size_t half = (size_t)p * slot_at, round = slot / es;
    for (size_t r0 = 0; r0 < n; r0 += round) {
        const size_t m = n - r0 < round ? n - r0 : round;
        const unsigned long long epoch = ++c->ipc_epoch;
        const size_t hoff = flags_bytes() + (size_t)(epoch % 2) * half;
        dist_push q;
        memset(&q, 0, sizeof q);
        q.p = p;
        q.me = me;
        q.flags = (unsigned long long *)b->mem;
        for (int r = 0; r < p; r++) {
            q.in[r] = (char *)b->mem + hoff + (size_t)r * slot_at;
            if (r == me) continue;
            q.peer_flags[r] = (unsigned long long *)b->peer[r] + (size_t)me * DIST_IPC_CHUNKS;
            q.peer_in[r] = (char *)b->peer[r] + hoff + (size_t)me * slot_at;
        }
        CUPAT_TRY(cupat__dist_push_round(c->ctx, type, op, m, (const char *)x + r0 * es, (char *)y + r0 * es, &q,
                                         epoch, c->ipc_grid));
    }
    return CUPAT_SUCCESS;
}
