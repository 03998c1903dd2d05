/* SPDX-License-Identifier: Apache-2.0 */
/* dist.c — cupat_dist.h over MPI (and NCCL): the communicator, the one
 * bulk-data primitive (cupat__dist_exchange) on each transport, the
 * distributed reduce, all-reduce and sample sort. Built into libcupat_dist
 * only (never libcupat, which has no MPI dependency), where CMake finds MPI.
 *
 * Small host metadata (partials, counts, samples) goes through MPI on the
 * communicator's own MPI_Comm; bulk data through the transport: MPI on host
 * buffers (CPU contexts), NCCL on device buffers (loaded at run time:
 * nccl_shim.c), or device data staged through pinned host memory and MPI
 * ("mpi-staged", any MPI). MPI messages are cut into pieces of at most
 * 1 GiB (MPI counts are ints). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "dist/dist_internal.h"
#include "dist/nccl_shim.h"

#include <limits.h>
#include <stdint.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

/* Samples each rank contributes to the choice of splitters. */
#define SAMPLES_PER_RANK 2048
/* Largest piece of one MPI message. */
#define MPI_PIECE ((size_t)1 << 30)

cupat_status cupat__dist_mpi_fail(cupat_ctx *ctx, const char *fn, const char *what, int err)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(err, msg, &len) != MPI_SUCCESS) snprintf(msg, sizeof msg, "error %d", err);
    return cupat__fail(ctx, CUPAT_ERROR_INTERNAL, "%s: %s failed: %s", fn, what, msg);
}

static const char *const transport_names[] = {"mpi", "mpi-staged", "nccl"};

static cupat_status nccl_fail(cupat_ctx *ctx, const char *fn, const char *what, int err)
{
    const nccl_api *nc = cupat__nccl(NULL);
    return cupat__fail(ctx, CUPAT_ERROR_INTERNAL, "%s: %s failed: %s", fn, what,
                       nc ? nc->get_error_string(err) : "NCCL not loaded");
}

/* The transport a CUDA / CPU context gets when none is named. */
static const char *default_transport(int cuda)
{
    const char *env = getenv("CUPAT_DIST_TRANSPORT");
    if (env && *env) return env;
    if (!cuda) return "mpi";
    return cupat__nccl(NULL) ? "nccl" : "mpi-staged";
}

/* Whether two ranks of c->mpi drive the same GPU (same host, same PCI bus
 * id): NCCL refuses that ("invalid usage"), so the default transport is then
 * mpi-staged. Collective. */
static cupat_status ranks_share_gpu(cupat_comm *c, const char *fn, int *shared)
{
    enum { ID = MPI_MAX_PROCESSOR_NAME + 32 };
    char mine[ID];
    memset(mine, 0, sizeof mine);
    int len = 0;
    MPI_Get_processor_name(mine, &len);
    if (cudaDeviceGetPCIBusId(mine + MPI_MAX_PROCESSOR_NAME, 32, c->ctx->device) != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(mine + MPI_MAX_PROCESSOR_NAME, 32, "device %d", c->ctx->device);
    }
    char *all = malloc((size_t)c->size * ID);
    if (!all) return cupat__fail(c->ctx, CUPAT_ERROR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    int e = MPI_Allgather(mine, ID, MPI_CHAR, all, ID, MPI_CHAR, c->mpi);
    if (e != MPI_SUCCESS) {
        free(all);
        return cupat__dist_mpi_fail(c->ctx, fn, "MPI_Allgather (devices)", e);
    }
    *shared = 0;
    for (int r = 0; r < c->size && !*shared; r++)
        if (r != c->rank && !memcmp(all + (size_t)r * ID, mine, ID)) *shared = 1;
    free(all);
    int any = 0;
    DIST_MPI_TRY(c->ctx, fn, MPI_Allreduce(shared, &any, 1, MPI_INT, MPI_MAX, c->mpi));
    *shared = any;
    return CUPAT_SUCCESS;
}

/* NCCL's communicator over the ranks of c->mpi: rank 0 makes the unique id,
 * MPI carries it to the others. */
static cupat_status nccl_init(cupat_comm *c, const char *fn)
{
    const nccl_api *nc = cupat__nccl(NULL);
    nccl_unique_id id;
    memset(&id, 0, sizeof id);
    if (c->rank == 0) {
        int e = nc->get_unique_id(&id);
        if (e != NCCL_OK) return nccl_fail(c->ctx, fn, "ncclGetUniqueId", e);
    }
    DIST_MPI_TRY(c->ctx, fn, MPI_Bcast(&id, (int)sizeof id, MPI_BYTE, 0, c->mpi));
    nccl_comm_t nccl = NULL;
    int e = nc->comm_init_rank(&nccl, c->size, id, c->rank);
    if (e != NCCL_OK) return nccl_fail(c->ctx, fn, "ncclCommInitRank", e);
    c->nccl = nccl;
    return CUPAT_SUCCESS;
}

cupat_status cupat_comm_create_transport(cupat_comm **comm, cupat_ctx *ctx, MPI_Comm mpi,
                                         const char *transport)
{
    static const char fn[] = "cupat_comm_create";
    if (comm) *comm = NULL;
    CUPAT_TRY(cupat__begin(ctx, fn));
    if (!comm) return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "%s: comm is NULL", fn);
    int init = 0;
    MPI_Initialized(&init);
    if (!init) return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "%s: MPI is not initialized (MPI_Init first)", fn);
    if (mpi == MPI_COMM_NULL) return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "%s: mpi is MPI_COMM_NULL", fn);
    const int cuda = ctx->backend == CUPAT_BACKEND_CUDA;
    const char *env = getenv("CUPAT_DIST_TRANSPORT");
    const int chosen = (transport && *transport) || (env && *env); /* else the default may change below */
    if (!transport || !*transport) transport = default_transport(cuda);
    int t = -1;
    for (int i = 0; i < 3; i++)
        if (!strcmp(transport, transport_names[i])) t = i;
    if (t < 0)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "%s: unknown transport \"%s\" (nccl, mpi-staged, mpi)", fn,
                           transport);
    if ((t == DIST_MPI) == cuda)
        return cupat__fail(ctx, CUPAT_ERROR_NOT_SUPPORTED, "%s: transport \"%s\" is for %s contexts", fn, transport,
                           cuda ? "CPU" : "CUDA");
    const char *why = NULL;
    if (t == DIST_NCCL && !cupat__nccl(&why))
        return cupat__fail(ctx, CUPAT_ERROR_NOT_SUPPORTED, "%s: transport \"nccl\": %s", fn, why);
    cupat_comm *c = calloc(1, sizeof *c);
    if (!c) return cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    int e = MPI_Comm_dup(mpi, &c->mpi);
    if (e != MPI_SUCCESS) {
        free(c);
        return cupat__dist_mpi_fail(ctx, fn, "MPI_Comm_dup", e);
    }
    /* errors come back as codes (the default handler would abort the job) */
    MPI_Comm_set_errhandler(c->mpi, MPI_ERRORS_RETURN);
    MPI_Comm_rank(c->mpi, &c->rank);
    MPI_Comm_size(c->mpi, &c->size);
    c->ctx = ctx;
    c->transport = (dist_transport)t;
    cupat_status si = cupat__dist_ipc_init(c, fn);
    if (si != CUPAT_SUCCESS) {
        MPI_Comm_free(&c->mpi);
        free(c);
        return si;
    }
    if (t == DIST_NCCL) {
        int shared = 0;
        cupat_status s = ranks_share_gpu(c, fn, &shared);
        if (s == CUPAT_SUCCESS && shared && chosen)
            s = cupat__fail(ctx, CUPAT_ERROR_NOT_SUPPORTED,
                            "%s: transport \"nccl\": two ranks drive the same GPU (NCCL needs one GPU a rank): "
                            "use mpi-staged",
                            fn);
        if (s == CUPAT_SUCCESS && shared) {
            t = DIST_MPI_STAGED; /* the default, where NCCL cannot run */
            c->transport = DIST_MPI_STAGED;
        }
        if (s != CUPAT_SUCCESS) {
            cupat__dist_ipc_close(c);
            MPI_Comm_free(&c->mpi);
            free(c);
            return s;
        }
    }
    if (t == DIST_NCCL) {
        cupat_status s = nccl_init(c, fn);
        if (s != CUPAT_SUCCESS) {
            MPI_Comm_free(&c->mpi);
            free(c);
            return s;
        }
    }
    *comm = c;
    return CUPAT_SUCCESS;
}

cupat_status cupat_comm_create(cupat_comm **comm, cupat_ctx *ctx, MPI_Comm mpi)
{
    return cupat_comm_create_transport(comm, ctx, mpi, NULL);
}

cupat_status cupat__dist_buffer(cupat_comm *c, int i, size_t bytes, void **p)
{
    if (c->buf_bytes[i] < bytes) {
        cupat_free(c->ctx, c->buf[i]);
        c->buf[i] = NULL;
        c->buf_bytes[i] = 0;
        CUPAT_TRY(cupat_malloc(c->ctx, &c->buf[i], bytes));
        c->buf_bytes[i] = bytes;
    }
    *p = c->buf[i];
    return CUPAT_SUCCESS;
}

cupat_status cupat__dist_side(cupat_comm *c)
{
    if (c->side) return CUPAT_SUCCESS;
    /* the highest priority: what runs there (an exchange, the stencil's
     * boundary planes) is what the other ranks wait for, so its blocks go
     * ahead of the context stream's waiting ones */
    int least = 0, greatest = 0;
    CUPAT_CUDA_TRY(c->ctx, cudaDeviceGetStreamPriorityRange(&least, &greatest));
    CUPAT_CUDA_TRY(c->ctx, cudaStreamCreateWithPriority(&c->side, cudaStreamNonBlocking, greatest));
    for (int i = 0; i < 2; i++)
        CUPAT_CUDA_TRY(c->ctx, cudaEventCreateWithFlags(&c->ev[i], cudaEventDisableTiming));
    return CUPAT_SUCCESS;
}

void cupat_comm_destroy(cupat_comm *comm)
{
    if (!comm) return;
    cupat__dist_ipc_close(comm); /* collective: before the side stream goes */
    for (int i = 0; i < DIST_BUFFERS; i++) cupat_free(comm->ctx, comm->buf[i]);
    for (int i = 0; i < 2; i++) cupat_free_host(comm->ctx, comm->stage[i]);
    if (comm->side) {
        cudaSetDevice(comm->ctx->device);
        cudaStreamSynchronize(comm->side);
        cudaStreamDestroy(comm->side);
        for (int i = 0; i < 2; i++)
            if (comm->ev[i]) cudaEventDestroy(comm->ev[i]);
    }
    if (comm->nccl) {
        cudaSetDevice(comm->ctx->device);
        cupat__nccl(NULL)->comm_destroy((nccl_comm_t)comm->nccl);
    }
    MPI_Comm_free(&comm->mpi);
    free(comm);
}

int cupat_comm_rank(const cupat_comm *comm) { return comm ? comm->rank : -1; }
int cupat_comm_size(const cupat_comm *comm) { return comm ? comm->size : 0; }
cupat_ctx *cupat_comm_ctx(const cupat_comm *comm) { return comm ? comm->ctx : NULL; }
const char *cupat_comm_transport(const cupat_comm *comm)
{
    return comm ? transport_names[comm->transport] : "none";
}

cupat_status cupat__dist_begin(cupat_comm *comm, const char *fn)
{
    if (!comm) return cupat__fail(NULL, CUPAT_ERROR_NULL_POINTER, "%s: comm is NULL", fn);
    return cupat__begin(comm->ctx, fn);
}

static double wall_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

void cupat__dist_phase_begin(cupat_comm *c)
{
    if (!c->profile) return;
    if (c->ctx->backend == CUPAT_BACKEND_CUDA) cudaStreamSynchronize(c->ctx->stream);
    c->phase_t0 = wall_ms();
}

void cupat__dist_phase(cupat_comm *c, int phase)
{
    if (!c->profile) return;
    if (c->ctx->backend == CUPAT_BACKEND_CUDA) cudaStreamSynchronize(c->ctx->stream);
    const double t = wall_ms();
    c->phase_ms[phase] += t - c->phase_t0;
    c->phase_t0 = t;
}

/* ------------------------------------------------------------- exchange -- */

static cupat_status exchange_nccl(cupat_comm *c, const char *fn, int n, const dist_xfer *x, cudaStream_t st)
{
    const nccl_api *nc = cupat__nccl(NULL);
    nccl_comm_t comm = (nccl_comm_t)c->nccl;
    int e = nc->group_start();
    if (e != NCCL_OK) return nccl_fail(c->ctx, fn, "ncclGroupStart", e);
    int first = NCCL_OK;
    for (int i = 0; i < n; i++) {
        if (x[i].peer == c->rank) continue;
        if (x[i].recv_bytes) {
            e = nc->recv(x[i].recv, x[i].recv_bytes, NCCL_UINT8, x[i].peer, comm, st);
            if (e != NCCL_OK && first == NCCL_OK) first = e;
        }
        if (x[i].send_bytes) {
            e = nc->send(x[i].send, x[i].send_bytes, NCCL_UINT8, x[i].peer, comm, st);
            if (e != NCCL_OK && first == NCCL_OK) first = e;
        }
    }
    e = nc->group_end();
    if (first != NCCL_OK) return nccl_fail(c->ctx, fn, "ncclSend / ncclRecv", first);
    if (e != NCCL_OK) return nccl_fail(c->ctx, fn, "ncclGroupEnd", e);
    return CUPAT_SUCCESS;
}

/* MPI on host buffers: every piece of every message posted at once. */
static cupat_status exchange_mpi(cupat_comm *c, const char *fn, int n, const dist_xfer *x,
                                 const void *const *send, void *const *recv)
{
    size_t nreq = 0;
    for (int i = 0; i < n; i++)
        if (x[i].peer != c->rank)
            nreq += (x[i].send_bytes + MPI_PIECE - 1) / MPI_PIECE + (x[i].recv_bytes + MPI_PIECE - 1) / MPI_PIECE;
    if (!nreq) return CUPAT_SUCCESS;
    MPI_Request *req = malloc(nreq * sizeof *req);
    if (!req) return cupat__fail(c->ctx, CUPAT_ERROR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    size_t k = 0;
    int e = MPI_SUCCESS;
    for (int i = 0; i < n && e == MPI_SUCCESS; i++) {
        if (x[i].peer == c->rank) continue;
        for (size_t o = 0, t = 0; o < x[i].recv_bytes && e == MPI_SUCCESS; o += MPI_PIECE, t++) {
            const size_t len = x[i].recv_bytes - o < MPI_PIECE ? x[i].recv_bytes - o : MPI_PIECE;
            e = MPI_Irecv((char *)recv[i] + o, (int)len, MPI_BYTE, x[i].peer, (int)t, c->mpi, &req[k++]);
        }
        for (size_t o = 0, t = 0; o < x[i].send_bytes && e == MPI_SUCCESS; o += MPI_PIECE, t++) {
            const size_t len = x[i].send_bytes - o < MPI_PIECE ? x[i].send_bytes - o : MPI_PIECE;
            e = MPI_Isend((const char *)send[i] + o, (int)len, MPI_BYTE, x[i].peer, (int)t, c->mpi, &req[k++]);
        }
    }
    /* wait for what was posted even after a failure: the buffers are the caller's */
    int w = MPI_Waitall((int)k, req, MPI_STATUSES_IGNORE);
    free(req);
    if (e != MPI_SUCCESS) return cupat__dist_mpi_fail(c->ctx, fn, "MPI_Isend / MPI_Irecv", e);
    if (w != MPI_SUCCESS) return cupat__dist_mpi_fail(c->ctx, fn, "MPI_Waitall", w);
    return CUPAT_SUCCESS;
}

/* c->stage[i]: pinned host memory of at least `bytes`, grown when smaller. */
static cupat_status stage_buffer(cupat_comm *c, int i, size_t bytes, void **p)
{
    if (c->stage_bytes[i] < bytes) {
        cupat_free_host(c->ctx, c->stage[i]);
        c->stage[i] = NULL;
        c->stage_bytes[i] = 0;
        CUPAT_TRY(cupat_malloc_host(c->ctx, &c->stage[i], bytes));
        c->stage_bytes[i] = bytes;
    }
    *p = c->stage[i];
    return CUPAT_SUCCESS;
}

cupat_status cupat__dist_exchange(cupat_comm *c, const char *fn, int n, const dist_xfer *x, cudaStream_t st)
{
    cupat_ctx *ctx = c->ctx;
    const int cuda = ctx->backend == CUPAT_BACKEND_CUDA;
    /* the rank's share with itself: a local copy */
    for (int i = 0; i < n; i++) {
        if (x[i].peer != c->rank) continue;
        const size_t b = x[i].send_bytes < x[i].recv_bytes ? x[i].send_bytes : x[i].recv_bytes;
        if (!b || x[i].recv == x[i].send) continue;
        if (cuda) CUPAT_CUDA_TRY(ctx, cudaMemcpyAsync(x[i].recv, x[i].send, b, cudaMemcpyDeviceToDevice, st));
        else memmove(x[i].recv, x[i].send, b);
    }
    if (c->transport == DIST_NCCL) return exchange_nccl(c, fn, n, x, st);
    const void **send = calloc((size_t)n + 1, sizeof *send);
    void **recv = calloc((size_t)n + 1, sizeof *recv);
    cupat_status s = CUPAT_SUCCESS;
    if (!send || !recv) {
        s = cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY, "%s: out of host memory", fn);
        goto done;
    }
    if (c->transport == DIST_MPI) {
        for (int i = 0; i < n; i++) send[i] = x[i].send, recv[i] = x[i].recv;
        s = exchange_mpi(c, fn, n, x, send, recv);
        goto done;
    }
    /* staged: device -> pinned host, MPI, pinned host -> device, through
     * two pinned buffers the communicator keeps (freeing pinned memory
     * waits for the whole device: once a call would serialize everything) */
    size_t sb = 0, rb = 0;
    for (int i = 0; i < n; i++)
        if (x[i].peer != c->rank) sb += x[i].send_bytes, rb += x[i].recv_bytes;
    unsigned char *hs = NULL, *hr = NULL;
    s = stage_buffer(c, 0, sb, (void **)&hs);
    if (s == CUPAT_SUCCESS) s = stage_buffer(c, 1, rb, (void **)&hr);
    for (int i = 0; i < n && s == CUPAT_SUCCESS; i++) {
        if (x[i].peer == c->rank) continue;
        send[i] = hs, recv[i] = hr;
        if (x[i].send_bytes)
            s = cupat__cuda(ctx, cudaMemcpyAsync(hs, x[i].send, x[i].send_bytes, cudaMemcpyDeviceToHost, st),
                            "cudaMemcpyAsync (staging)");
        hs += x[i].send_bytes, hr += x[i].recv_bytes;
    }
    if (s == CUPAT_SUCCESS) s = cupat__cuda(ctx, cudaStreamSynchronize(st), "cudaStreamSynchronize (staging)");
    if (s == CUPAT_SUCCESS) s = exchange_mpi(c, fn, n, x, send, recv);
    for (int i = 0; i < n && s == CUPAT_SUCCESS; i++)
        if (x[i].peer != c->rank && x[i].recv_bytes)
            s = cupat__cuda(ctx, cudaMemcpyAsync(x[i].recv, recv[i], x[i].recv_bytes, cudaMemcpyHostToDevice, st),
                            "cudaMemcpyAsync (staging)");
    /* the staging buffers are reused by the next call: the copies out of
     * them finish here */
    if (s == CUPAT_SUCCESS) s = cupat__cuda(ctx, cudaStreamSynchronize(st), "cudaStreamSynchronize (staging)");
    else cudaStreamSynchronize(st);
done:
    free(send);
    free(recv);
    return s;
}

/* ---------------------------------------------------------- reduce_dist -- */

cupat_status cupat_reduce_dist(cupat_comm *comm, cupat_type type, cupat_op op, size_t n, const void *x,
                               void *result)
{
    static const char fn[] = "cupat_reduce_dist";
    CUPAT_TRY(cupat__dist_begin(comm, fn));
    cupat_ctx *ctx = comm->ctx;
    const size_t es = cupat_type_size(type);
    if (!es) return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "%s: unknown type %d", fn, (int)type);
    if ((int)op < CUPAT_OP_SUM || (int)op > CUPAT_OP_ARGMAX)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "%s: unknown op %d", fn, (int)op);
    if (!result) return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "%s: result is NULL", fn);
    const int arg = op == CUPAT_OP_ARGMIN || op == CUPAT_OP_ARGMAX;
    const size_t rs = arg ? sizeof(cupat_indexed) : es;

    /* this rank's part: one element or cupat_indexed, in host memory */
    unsigned char part[sizeof(cupat_indexed)];
    CUPAT_TRY(cupat_reduce_host(ctx, type, op, n, x, part));
    /* every rank's part and count, in rank order */
    const int p = comm->size;
    unsigned char *parts = malloc((size_t)p * rs);
    uint64_t *counts = malloc((size_t)p * sizeof *counts);
    if (!parts || !counts) {
        free(parts);
        free(counts);
        return cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    }
    uint64_t mine = n;
    int e = MPI_Allgather(part, (int)rs, MPI_BYTE, parts, (int)rs, MPI_BYTE, comm->mpi);
    if (e == MPI_SUCCESS) e = MPI_Allgather(&mine, 1, MPI_UINT64_T, counts, 1, MPI_UINT64_T, comm->mpi);
    if (e != MPI_SUCCESS) {
        free(parts);
        free(counts);
        return cupat__dist_mpi_fail(ctx, fn, "MPI_Allgather", e);
    }
    /* The non-empty parts' values side by side, combined by cupat_reduce on
     * the CPU (the same rules; a fixed tree: same bits on every rank). */
    unsigned char *vals = malloc((size_t)p * es + 1);
    int *from = malloc((size_t)p * sizeof *from);
    uint64_t *base = malloc((size_t)p * sizeof *base);
    cupat_ctx *cpu = NULL;
    cupat_status s = CUPAT_SUCCESS;
    if (!vals || !from || !base) {
        s = cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY, "%s: out of host memory", fn);
        goto done;
    }
    size_t k = 0;
    uint64_t off = 0;
    for (int r = 0; r < p; r++) {
        base[r] = off;
        off += counts[r];
        if (!counts[r]) continue;
        const unsigned char *src = parts + (size_t)r * rs;
        if (arg) src = (const unsigned char *)&((const cupat_indexed *)src)->value;
        memcpy(vals + k * es, src, es);
        from[k++] = r;
    }
    if (cupat_create(&cpu, CUPAT_BACKEND_CPU, -1) != CUPAT_SUCCESS) {
        s = cupat__fail(ctx, CUPAT_ERROR_INTERNAL, "%s: no CPU context: %s", fn, cupat_last_error(NULL));
        goto done;
    }
    if (!arg) {
        s = cupat_reduce_host(cpu, type, op, k, vals, result);
    } else {
        cupat_indexed best;
        s = cupat_reduce_host(cpu, type, op, k, vals, &best);
        if (s == CUPAT_SUCCESS && best.index != CUPAT_NO_INDEX) {
            /* the first part holding the winner: its rank's own index, shifted */
            const int r = from[best.index];
            const cupat_indexed *w = (const cupat_indexed *)(parts + (size_t)r * rs);
            best.index = base[r] + w->index;
        }
        if (s == CUPAT_SUCCESS) memcpy(result, &best, sizeof best);
    }
    if (s != CUPAT_SUCCESS && s != CUPAT_ERROR_INTERNAL)
        s = cupat__fail(ctx, s, "%s: combining the parts: %s", fn, cupat_last_error(cpu));
done:
    cupat_destroy(cpu);
    free(vals);
    free(from);
    free(base);
    free(parts);
    free(counts);
    return s;
}

/* ------------------------------------------------------------ sort_dist -- */


static int cmp_asc(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* count (<= SAMPLES_PER_RANK) keys of a backend array at first, first +
 * stride, ..., as order keys in k[]: one strided copy (CUDA: cudaMemcpy2D
 * into a host buffer, a single wait). */
static cupat_status keys_at(cupat_ctx *ctx, cupat_type t, const void *base, size_t first, size_t stride,
                            size_t count, uint64_t *k)
{
    const size_t es = cupat_type_size(t);
    unsigned char b[SAMPLES_PER_RANK * 8];
    const unsigned char *src = (const unsigned char *)base + first * es;
    if (ctx->backend != CUPAT_BACKEND_CUDA) {
        for (size_t j = 0; j < count; j++) memcpy(b + j * es, src + j * stride * es, es);
    } else if (count == 1 || stride == 1) {
        CUPAT_CUDA_TRY(ctx, cudaMemcpyAsync(b, src, count * es, cudaMemcpyDeviceToHost, ctx->stream));
        CUPAT_CUDA_TRY(ctx, cudaStreamSynchronize(ctx->stream));
    } else if (stride * es <= ((size_t)1 << 30)) {
        CUPAT_CUDA_TRY(ctx, cudaMemcpy2DAsync(b, es, src, stride * es, es, count, cudaMemcpyDeviceToHost, ctx->stream));
        CUPAT_CUDA_TRY(ctx, cudaStreamSynchronize(ctx->stream));
    } else { /* a pitch beyond what cudaMemcpy2D takes: key by key */
        for (size_t j = 0; j < count; j++)
            CUPAT_CUDA_TRY(ctx, cudaMemcpyAsync(b + j * es, src + j * stride * es, es, cudaMemcpyDeviceToHost, ctx->stream));
        CUPAT_CUDA_TRY(ctx, cudaStreamSynchronize(ctx->stream));
    }
    for (size_t j = 0; j < count; j++) k[j] = cupat__dist_order_key(t, b + j * es);
    return CUPAT_SUCCESS;
}

/* p - 1 splitters (ascending order keys) from SAMPLES_PER_RANK regular
 * samples of every rank's keys (fewer where a rank has fewer keys), placed
 * at regular ranks of all the samples sorted (descending reads them from
 * the top). Collective. */
/* A local step's status agreed between the ranks before the next
 * collective, so a rank that failed does not leave the others waiting in
 * it: every rank returns, the failed one with its own status and message,
 * the others with the largest failing status code and a message saying
 * another rank failed. */
static cupat_status dist_agree(cupat_comm *c, const char *fn, cupat_status s)
{
    int mine = (int)s, worst = 0;
    const int e = MPI_Allreduce(&mine, &worst, 1, MPI_INT, MPI_MAX, c->mpi);
    if (s != CUPAT_SUCCESS) return s;
    if (e != MPI_SUCCESS) return cupat__dist_mpi_fail(c->ctx, fn, "MPI_Allreduce (agreeing on errors)", e);
    if (worst != CUPAT_SUCCESS)
        return cupat__fail(c->ctx, (cupat_status)worst, "%s: another rank failed (%s)", fn,
                           cupat_status_string((cupat_status)worst));
    return CUPAT_SUCCESS;
}

static cupat_status choose_splitters(cupat_comm *comm, const char *fn, cupat_type t, cupat_sort_order order,
                                     size_t n, const void *keys, uint64_t *split)
{
    cupat_ctx *ctx = comm->ctx;
    const int p = comm->size;
    uint64_t samples[SAMPLES_PER_RANK], flags[SAMPLES_PER_RANK];
    const size_t take = n < SAMPLES_PER_RANK ? n : SAMPLES_PER_RANK, stride = take ? n / take : 1;
    for (int j = 0; j < SAMPLES_PER_RANK; j++) flags[j] = (size_t)j < take, samples[j] = 0;
    cupat_status s = take ? keys_at(ctx, t, keys, stride / 2, stride, take, samples) : CUPAT_SUCCESS;
    uint64_t *all = malloc((size_t)p * SAMPLES_PER_RANK * sizeof *all);
    uint64_t *allflags = malloc((size_t)p * SAMPLES_PER_RANK * sizeof *allflags);
    if (s == CUPAT_SUCCESS && (!all || !allflags))
        s = cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    s = dist_agree(comm, fn, s);
    if (s != CUPAT_SUCCESS) {
        free(all);
        free(allflags);
        return s;
    }
    int e = MPI_Allgather(samples, SAMPLES_PER_RANK, MPI_UINT64_T, all, SAMPLES_PER_RANK, MPI_UINT64_T, comm->mpi);
    if (e == MPI_SUCCESS)
        e = MPI_Allgather(flags, SAMPLES_PER_RANK, MPI_UINT64_T, allflags, SAMPLES_PER_RANK, MPI_UINT64_T, comm->mpi);
    if (e == MPI_SUCCESS) {
        size_t ns = 0;
        for (size_t j = 0; j < (size_t)p * SAMPLES_PER_RANK; j++)
            if (allflags[j]) all[ns++] = all[j];
        qsort(all, ns, sizeof *all, cmp_asc);
        for (int r = 0; r + 1 < p; r++) {
            size_t at = (size_t)(r + 1) * ns / (size_t)p;
            if (at >= ns) at = ns ? ns - 1 : 0;
            split[r] = !ns ? 0 : order == CUPAT_SORT_ASCENDING ? all[at] : all[ns - 1 - at];
        }
    }
    free(all);
    free(allflags);
    return e == MPI_SUCCESS ? CUPAT_SUCCESS : cupat__dist_mpi_fail(ctx, fn, "MPI_Allgather (samples)", e);
}

/* cupat_sort_dist's arguments on this rank (the out pointers cleared). */
static cupat_status sort_dist_args(cupat_comm *comm, const char *fn, cupat_type key_type, cupat_sort_order order,
                                   size_t n, const void *keys, void **out, size_t *n_out)
{
    cupat_ctx *ctx = comm->ctx;
    if (!out) return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "%s: out is NULL", fn);
    if (!n_out) return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "%s: n_out is NULL", fn);
    *out = NULL;
    *n_out = 0;
    const size_t es = cupat_type_size(key_type);
    if (!es) return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "%s: unknown key type %d", fn, (int)key_type);
    if (order != CUPAT_SORT_ASCENDING && order != CUPAT_SORT_DESCENDING)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "%s: unknown order %d", fn, (int)order);
    if (n > SIZE_MAX / es) return cupat__fail(ctx, CUPAT_ERROR_SIZE, "%s: n = %zu keys overflow size_t", fn, n);
    CUPAT_TRY(cupat__check_data(ctx, fn, "keys", keys, n * es));
    if (comm->size > DIST_MAX_BUCKETS)
        return cupat__fail(ctx, CUPAT_ERROR_NOT_SUPPORTED, "%s: %d ranks (at most %d)", fn, comm->size,
                           DIST_MAX_BUCKETS);
    return CUPAT_SUCCESS;
}

cupat_status cupat_sort_dist(cupat_comm *comm, cupat_type key_type, cupat_sort_order order, size_t n,
                             const void *keys, void **out, size_t *n_out)
{
    static const char fn[] = "cupat_sort_dist";
    CUPAT_TRY(cupat__dist_begin(comm, fn));
    cupat_ctx *ctx = comm->ctx;
    /* one rank's bad argument stops every rank (none waits in a collective) */
    CUPAT_TRY(dist_agree(comm, fn, sort_dist_args(comm, fn, key_type, order, n, keys, out, n_out)));
    const size_t es = cupat_type_size(key_type);
    const int p = comm->size, me = comm->rank;
    const int cuda = ctx->backend == CUPAT_BACKEND_CUDA;
    dist_phase_begin(comm);
    if (p == 1) { /* one rank: the local sort is the answer */
        void *res = NULL;
        if (n) CUPAT_TRY(cupat_malloc(ctx, &res, n * es));
        cupat_status s = cupat_sort(ctx, key_type, 0, order, n, keys, res, NULL, NULL);
        if (s != CUPAT_SUCCESS) {
            cupat_free(ctx, res);
            return s;
        }
        dist_phase(comm, DIST_PHASE_LOCAL);
        *out = res;
        *n_out = n;
        return CUPAT_SUCCESS;
    }
    uint64_t split[DIST_MAX_BUCKETS], scount[DIST_MAX_BUCKETS], rcount[DIST_MAX_BUCKETS] = {0};
    size_t bucket_n[DIST_MAX_BUCKETS];
    dist_xfer x[DIST_MAX_BUCKETS];
    void *part = NULL, *tables = NULL, *recv = NULL, *res = NULL;
    memset(x, 0, sizeof x);

    /* 1. splitters from samples of the unsorted keys */
    CUPAT_TRY(choose_splitters(comm, fn, key_type, order, n, keys, split));
    /* 2. the keys partitioned into p buckets (one pass, unsorted inside) */
    cupat_status s = CUPAT_SUCCESS;
    if (n) {
        s = cupat__dist_buffer(comm, DIST_BUF_PART, n * es, &part);
        if (s == CUPAT_SUCCESS && cuda)
            s = cupat__dist_buffer(comm, DIST_BUF_TABLES, cupat__dist_partition_tables(n, p), &tables);
    }
    if (s == CUPAT_SUCCESS) s = cupat__dist_partition(ctx, key_type, order, n, keys, p, split, tables, part, bucket_n);
    /* Where peers write into our shared block (below), our last call's reads
     * of it (the arrivals' sort, the merge) must be over before anyone
     * writes: the partition waited for the stream where it had keys; a rank
     * with none waits here, before the counts' allgather lets peers go on. */
    if (s == CUPAT_SUCCESS && cuda && comm->ipc && !n)
        s = cupat__cuda(ctx, cudaStreamSynchronize(ctx->stream), "cudaStreamSynchronize");
    CUPAT_TRY(dist_agree(comm, fn, s));
    dist_phase(comm, DIST_PHASE_SPLIT);
    for (int r = 0; r < p; r++) scount[r] = bucket_n[r];
    /* every rank's counts to every rank: mat[s * p + r] keys go from s to r */
    uint64_t mat[DIST_MAX_BUCKETS * DIST_MAX_BUCKETS]; /* 32 KiB */
    DIST_MPI_TRY(ctx, fn, MPI_Allgather(scount, p, MPI_UINT64_T, mat, p, MPI_UINT64_T, comm->mpi));
    for (int r = 0; r < p; r++) rcount[r] = mat[(size_t)r * p + me];
    size_t total = 0, from_others = 0;
    for (int r = 0; r < p && s == CUPAT_SUCCESS; r++) {
        if (rcount[r] > (SIZE_MAX / es - total))
            s = cupat__fail(ctx, CUPAT_ERROR_SIZE, "%s: rank %d would receive more than size_t holds", fn, me);
        else total += rcount[r];
    }
    from_others = s == CUPAT_SUCCESS ? total - rcount[me] : 0;
    /* 3. our own bucket is sorted in place while the others travel (the
     * exchange on the communicator's second stream), then what arrived is
     * sorted, and the two sorted runs merge into the output */
    if (s == CUPAT_SUCCESS && total) s = cupat_malloc(ctx, &res, total * es);
    s = dist_agree(comm, fn, s);
    if (s != CUPAT_SUCCESS) {
        cupat_free(ctx, res);
        return s;
    }
    /* GPUs of one node with peer access: what arrives lands in a block the
     * senders map (copy engines over NVLink, no SMs taken from the own
     * sort); otherwise in a buffer of our own through the transport */
    int direct = 0;
    if (cuda && comm->ipc) {
        uint64_t most = 0;
        for (int r = 0; r < p; r++) {
            uint64_t in = 0;
            for (int q = 0; q < p; q++)
                if (q != r) in += mat[(size_t)q * p + r];
            if (in > most) most = in;
        }
        s = most ? cupat__dist_shared(comm, fn, DIST_SHARED_SORT, (size_t)most * es) : CUPAT_SUCCESS;
        direct = most && s == CUPAT_SUCCESS;
        if (s == CUPAT_ERROR_NOT_SUPPORTED) s = CUPAT_SUCCESS, ctx->err[0] = '\0'; /* the transport instead */
        if (direct) recv = comm->shared[DIST_SHARED_SORT].mem;
    }
    if (s == CUPAT_SUCCESS && from_others && !direct) s = cupat__dist_buffer(comm, DIST_BUF_RECV, from_others * es, &recv);
    cudaStream_t side = NULL;
    if (s == CUPAT_SUCCESS && cuda) {
        s = cupat__dist_side(comm);
        if (s == CUPAT_SUCCESS) side = comm->side;
        if (s == CUPAT_SUCCESS) s = cupat__cuda(ctx, cudaEventRecord(comm->ev[0], ctx->stream), "cudaEventRecord");
        if (s == CUPAT_SUCCESS) s = cupat__cuda(ctx, cudaStreamWaitEvent(side, comm->ev[0], 0), "cudaStreamWaitEvent");
    }
    size_t off = 0, own_off = 0, got = 0;
    for (int r = 0; r < p; r++) {
        if (r == me) own_off = off;
        x[r].peer = r;
        x[r].send = (const unsigned char *)part + off * es;
        x[r].send_bytes = r == me ? 0 : scount[r] * es;
        x[r].recv = (unsigned char *)recv + got * es;
        x[r].recv_bytes = r == me ? 0 : rcount[r] * es;
        off += scount[r];
        if (r != me) got += rcount[r];
    }
    unsigned char *own = (unsigned char *)part + own_off * es;
    const size_t nown = scount[me];
    if (s == CUPAT_SUCCESS && cuda) /* GPU: the own sort queued first, so it runs under the exchange */
        s = cupat_sort(ctx, key_type, 0, order, nown, own, own, NULL, NULL);
    if (direct) { /* every rank alike (the shared block is collective) */
        /* our bucket r to rank r's block, after the arrivals there from the
         * ranks before us. Its previous contents are free: every rank's
         * stream was drained of its last call (the partition's wait, or the
         * one above) before the counts' allgather. A rank that failed
         * before still meets the others in the allreduce below. */
        for (int r = 0; r < p && s == CUPAT_SUCCESS; r++) {
            if (r == me || !scount[r]) continue;
            uint64_t at = 0;
            for (int q = 0; q < me; q++)
                if (q != r) at += mat[(size_t)q * p + r];
            s = cupat__cuda(ctx,
                            cudaMemcpyAsync((char *)comm->shared[DIST_SHARED_SORT].peer[r] + at * es, x[r].send,
                                            scount[r] * es, cudaMemcpyDeviceToDevice, side),
                            "cudaMemcpyAsync (to a peer)");
        }
        /* ours sent, then everyone's (the agreement is the barrier): what
         * we receive is here */
        if (s == CUPAT_SUCCESS) s = cupat__cuda(ctx, cudaStreamSynchronize(side), "cudaStreamSynchronize");
        s = dist_agree(comm, fn, s);
    } else {
        s = dist_agree(comm, fn, s); /* every rank ready, or none goes into the exchange */
        if (s == CUPAT_SUCCESS) s = cupat__dist_exchange(comm, fn, p, x, side);
    }
    if (s == CUPAT_SUCCESS && !cuda) s = cupat_sort(ctx, key_type, 0, order, nown, own, own, NULL, NULL);
    if (s == CUPAT_SUCCESS && cuda) {
        s = cupat__cuda(ctx, cudaEventRecord(comm->ev[1], side), "cudaEventRecord");
        if (s == CUPAT_SUCCESS) s = cupat__cuda(ctx, cudaStreamWaitEvent(ctx->stream, comm->ev[1], 0), "cudaStreamWaitEvent");
    }
    dist_phase(comm, DIST_PHASE_EXCHANGE);
    if (s == CUPAT_SUCCESS) s = cupat_sort(ctx, key_type, 0, order, from_others, recv, recv, NULL, NULL);
    if (s == CUPAT_SUCCESS) dist_phase(comm, DIST_PHASE_LOCAL);
    if (s == CUPAT_SUCCESS && total) {
        if (nown && from_others)
            s = cupat_merge(ctx, key_type, 0, order, nown, own, NULL, from_others, recv, NULL, res, NULL);
        else
            s = cupat_memcpy(ctx, res, nown ? (const void *)own : recv, total * es);
    }
    if (s != CUPAT_SUCCESS) {
        if (cuda && side) cudaStreamSynchronize(side); /* nothing of ours still moving */
        cupat_free(ctx, res);
        return s;
    }
    dist_phase(comm, DIST_PHASE_MERGE);
    *out = res;
    *n_out = total;
    return CUPAT_SUCCESS;
}

/* --------------------------------------------------------- allreduce_dist -- */

cupat_status cupat_allreduce_dist(cupat_comm *comm, cupat_type type, cupat_op op, size_t n, const void *xin,
                                  void *y)
{
    static const char fn[] = "cupat_allreduce_dist";
    CUPAT_TRY(cupat__dist_begin(comm, fn));
    cupat_ctx *ctx = comm->ctx;
    const size_t es = cupat_type_size(type);
    if (!es) return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "%s: unknown type %d", fn, (int)type);
    if (op != CUPAT_OP_SUM && op != CUPAT_OP_MIN && op != CUPAT_OP_MAX)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "%s: op = %d (CUPAT_OP_SUM, _MIN or _MAX)", fn, (int)op);
    if (n > SIZE_MAX / es) return cupat__fail(ctx, CUPAT_ERROR_SIZE, "%s: n = %zu elements overflow size_t", fn, n);
    const size_t bytes = n * es;
    CUPAT_TRY(cupat__check_data(ctx, fn, "x", xin, bytes));
    CUPAT_TRY(cupat__check_data(ctx, fn, "y", y, bytes));
    if (xin != y)
        CUPAT_TRY(cupat__check_disjoint(ctx, fn, "y", cupat__extent1(y, bytes), "x", cupat__extent1(xin, bytes), NULL));
    const int p = comm->size, me = comm->rank;
    const int cuda = ctx->backend == CUPAT_BACKEND_CUDA;
    cudaStream_t st = cuda ? ctx->stream : NULL;
    const unsigned char *x = xin;
    unsigned char *yb = y;
    if (p == 1 || n == 0) {
        if (x != yb && bytes) CUPAT_TRY(cupat_memcpy(ctx, yb, x, bytes));
        return CUPAT_SUCCESS;
    }
    /* one node with peer access: pushed into the peers' inboxes, one kernel a round (dist_ipc.c) */
    if (comm->ipc) {
        const cupat_status si = cupat__dist_allreduce_ipc(comm, fn, type, op, n, x, y);
        if (si != CUPAT_ERROR_NOT_SUPPORTED) return si;
        ctx->err[0] = '\0'; /* not an error: the staged form below */
    }
    /* slice r = [off(r), off(r + 1)): rank r combines it */
#define SLICE(r) (n / (size_t)p * (size_t)(r) + ((size_t)(r) < n % (size_t)p ? (size_t)(r) : n % (size_t)p))
    const size_t mine = SLICE(me + 1) - SLICE(me);
    void *g = NULL;
    dist_xfer *xs = calloc((size_t)p, sizeof *xs);
    if (!xs) return cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    cupat_status s = mine ? cupat__scratch(ctx, (size_t)p * mine * es, &g) : CUPAT_SUCCESS;
    if (s != CUPAT_SUCCESS) goto done;
    /* 1. reduce-scatter: every rank's slice `me` to g[r] */
    for (int r = 0; r < p; r++) {
        xs[r].peer = r;
        xs[r].send = x + SLICE(r) * es;
        xs[r].send_bytes = (SLICE(r + 1) - SLICE(r)) * es;
        xs[r].recv = (unsigned char *)g + (size_t)r * mine * es;
        xs[r].recv_bytes = mine * es;
    }
    s = cupat__dist_exchange(comm, fn, p, xs, st);
    /* combined in rank order into y's slice: ((g0 op g1) op g2) ... */
    unsigned char *ys = yb + SLICE(me) * es;
    for (int r = 1; r < p && s == CUPAT_SUCCESS && mine; r++)
        s = cupat__dist_combine(ctx, type, op, mine, r == 1 ? g : ys, (unsigned char *)g + (size_t)r * mine * es, ys);
    if (s != CUPAT_SUCCESS) goto done;
    /* 2. all-gather: our slice to every rank, theirs into y */
    for (int r = 0; r < p; r++) {
        xs[r].send = ys;
        xs[r].send_bytes = r == me ? 0 : mine * es;
        xs[r].recv = yb + SLICE(r) * es;
        xs[r].recv_bytes = r == me ? 0 : (SLICE(r + 1) - SLICE(r)) * es;
    }
    s = cupat__dist_exchange(comm, fn, p, xs, st);
#undef SLICE
done:
    free(xs);
    return s;
}
