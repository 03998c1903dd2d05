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
#include "dist/dist_internal.h"
#include "dist/nccl_shim.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Samples each rank contributes to the choice of splitters. */
#define SAMPLES_PER_RANK 32
/* Largest piece of one MPI message. */
#define MPI_PIECE ((size_t)1 << 30)

cupat_status cupat__dist_mpi_fail(cupat_ctx *ctx, const char *fn, const char *what, int err)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(err, msg, &len) != MPI_SUCCESS) snprintf(msg, sizeof msg, "error %d", err);
    return cupat__fail(ctx, CUPAT_ERROR_INTERNAL, "%s: %s failed: %s", fn, what, msg);
}
#define MPI_TRY DIST_MPI_TRY
#define mpi_fail cupat__dist_mpi_fail

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
    MPI_TRY(c->ctx, fn, MPI_Bcast(&id, (int)sizeof id, MPI_BYTE, 0, c->mpi));
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
        return mpi_fail(ctx, fn, "MPI_Comm_dup", e);
    }
    /* errors come back as codes (the default handler would abort the job) */
    MPI_Comm_set_errhandler(c->mpi, MPI_ERRORS_RETURN);
    MPI_Comm_rank(c->mpi, &c->rank);
    MPI_Comm_size(c->mpi, &c->size);
    c->ctx = ctx;
    c->transport = (dist_transport)t;
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

void cupat_comm_destroy(cupat_comm *comm)
{
    if (!comm) return;
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
#define begin cupat__dist_begin

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
    if (e != MPI_SUCCESS) return mpi_fail(c->ctx, fn, "MPI_Isend / MPI_Irecv", e);
    if (w != MPI_SUCCESS) return mpi_fail(c->ctx, fn, "MPI_Waitall", w);
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
    /* staged: device -> pinned host, MPI, pinned host -> device */
    for (int i = 0; i < n && s == CUPAT_SUCCESS; i++) {
        if (x[i].peer == c->rank) continue;
        if (x[i].send_bytes) {
            s = cupat_malloc_host(ctx, (void **)&send[i], x[i].send_bytes);
            if (s == CUPAT_SUCCESS)
                s = cupat__cuda(ctx, cudaMemcpyAsync((void *)send[i], x[i].send, x[i].send_bytes, cudaMemcpyDeviceToHost, st),
                                "cudaMemcpyAsync (staging)");
        }
        if (x[i].recv_bytes && s == CUPAT_SUCCESS) s = cupat_malloc_host(ctx, &recv[i], x[i].recv_bytes);
    }
    if (s == CUPAT_SUCCESS) s = cupat__cuda(ctx, cudaStreamSynchronize(st), "cudaStreamSynchronize (staging)");
    if (s == CUPAT_SUCCESS) s = exchange_mpi(c, fn, n, x, send, recv);
    for (int i = 0; i < n && s == CUPAT_SUCCESS; i++)
        if (x[i].peer != c->rank && x[i].recv_bytes)
            s = cupat__cuda(ctx, cudaMemcpyAsync(x[i].recv, recv[i], x[i].recv_bytes, cudaMemcpyHostToDevice, st),
                            "cudaMemcpyAsync (staging)");
    /* the host buffers go when the copies from them are done */
    if (s == CUPAT_SUCCESS) s = cupat__cuda(ctx, cudaStreamSynchronize(st), "cudaStreamSynchronize (staging)");
    else cudaStreamSynchronize(st);
    for (int i = 0; i < n; i++) {
        cupat_free_host(ctx, (void *)send[i]);
        cupat_free_host(ctx, recv[i]);
    }
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
    CUPAT_TRY(begin(comm, fn));
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
        return mpi_fail(ctx, fn, "MPI_Allgather", e);
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

/* The key's place in cupat_sort's ascending total order as an unsigned
 * number: signed integers with the sign bit flipped, floats by the sign flip
 * (negative: every bit; positive: the sign bit), so -NaN < -inf < ... < -0 <
 * +0 < ... < +inf < +NaN. */
static uint64_t order_key(cupat_type t, const unsigned char *p)
{
    uint32_t u32;
    uint64_t u64;
    switch (t) {
    case CUPAT_U32: memcpy(&u32, p, 4); return u32;
    case CUPAT_I32: memcpy(&u32, p, 4); return u32 ^ 0x80000000u;
    case CUPAT_F32: memcpy(&u32, p, 4); return (u32 & 0x80000000u) ? (uint32_t)~u32 : (u32 | 0x80000000u);
    case CUPAT_U64: memcpy(&u64, p, 8); return u64;
    case CUPAT_I64: memcpy(&u64, p, 8); return u64 ^ 0x8000000000000000ull;
    default: memcpy(&u64, p, 8); return (u64 >> 63) ? ~u64 : (u64 | 0x8000000000000000ull);
    }
}

/* a before b in `order` (strictly) */
static int before(cupat_sort_order order, uint64_t a, uint64_t b) { return order == CUPAT_SORT_ASCENDING ? a < b : a > b; }

static int cmp_asc(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The key at index i of a backend array, as an order key. */
static cupat_status key_at(cupat_ctx *ctx, cupat_type t, const void *base, size_t i, uint64_t *k)
{
    const size_t es = cupat_type_size(t);
    unsigned char b[8];
    CUPAT_TRY(cupat_memcpy(ctx, b, (const unsigned char *)base + i * es, es));
    *k = order_key(t, b);
    return CUPAT_SUCCESS;
}

/* Merge the sorted runs [off[k], off[k + 1]) of buf, k < runs, pairwise
 * (runs k and k + 1 are adjacent, so a merged pair lands where they were) in
 * rounds between buf and tmp; *result gets the buffer holding the one run. */
static cupat_status merge_runs(cupat_ctx *ctx, cupat_type t, cupat_sort_order order, int runs, size_t *off,
                               void *buf, void *tmp, void **result)
{
    const size_t es = cupat_type_size(t);
    unsigned char *src = buf, *dst = tmp;
    while (runs > 1) {
        int k = 0;
        for (int r = 0; r < runs; r += 2) {
            const size_t a = off[r], m = off[r + 1], e = r + 1 < runs ? off[r + 2] : m;
            if (r + 1 < runs)
                CUPAT_TRY(cupat_merge(ctx, t, 0, order, m - a, src + a * es, NULL, e - m, src + m * es, NULL,
                                      dst + a * es, NULL));
            else if (m > a)
                CUPAT_TRY(cupat_memcpy(ctx, dst + a * es, src + a * es, (m - a) * es));
            off[k++] = a;
        }
        off[k] = off[runs];
        runs = k;
        unsigned char *x = src;
        src = dst, dst = x;
    }
    *result = src;
    return CUPAT_SUCCESS;
}

cupat_status cupat_sort_dist(cupat_comm *comm, cupat_type key_type, cupat_sort_order order, size_t n,
                             const void *keys, void **out, size_t *n_out)
{
    static const char fn[] = "cupat_sort_dist";
    CUPAT_TRY(begin(comm, fn));
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
    const int p = comm->size;
    const int cuda = ctx->backend == CUPAT_BACKEND_CUDA;
    cupat_status s = CUPAT_SUCCESS;
    void *sorted = NULL, *recv = NULL, *tmp = NULL;
    uint64_t *all = NULL, *allflags = NULL, *split = NULL, *scount = NULL, *rcount = NULL;
    size_t *roff = NULL;
    dist_xfer *x = NULL;

    /* 1. local sort */
    if (n) CUPAT_TRY(cupat_malloc(ctx, &sorted, n * es));
    s = cupat_sort(ctx, key_type, 0, order, n, keys, sorted, NULL, NULL);
    if (s != CUPAT_SUCCESS) goto done;

    /* 2. regular samples of the sorted run (order keys), gathered everywhere;
     * an empty rank sends "no sample" flags */
    all = malloc((size_t)p * SAMPLES_PER_RANK * sizeof *all);
    allflags = malloc((size_t)p * SAMPLES_PER_RANK * sizeof *allflags);
    split = malloc((size_t)p * sizeof *split);
    scount = calloc((size_t)p, sizeof *scount);
    rcount = calloc((size_t)p, sizeof *rcount);
    roff = calloc((size_t)p + 1, sizeof *roff);
    x = calloc((size_t)p, sizeof *x);
    if (!all || !allflags || !split || !scount || !rcount || !roff || !x) {
        s = cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY, "%s: out of host memory", fn);
        goto done;
    }
    uint64_t samples[SAMPLES_PER_RANK], flags[SAMPLES_PER_RANK];
    for (int j = 0; j < SAMPLES_PER_RANK && s == CUPAT_SUCCESS; j++) {
        flags[j] = n > 0;
        samples[j] = 0;
        if (n) s = key_at(ctx, key_type, sorted, (n * (2 * (size_t)j + 1)) / (2 * SAMPLES_PER_RANK), &samples[j]);
    }
    if (s != CUPAT_SUCCESS) goto done;
    int e = MPI_Allgather(samples, SAMPLES_PER_RANK, MPI_UINT64_T, all, SAMPLES_PER_RANK, MPI_UINT64_T, comm->mpi);
    if (e == MPI_SUCCESS)
        e = MPI_Allgather(flags, SAMPLES_PER_RANK, MPI_UINT64_T, allflags, SAMPLES_PER_RANK, MPI_UINT64_T, comm->mpi);
    if (e != MPI_SUCCESS) {
        s = mpi_fail(ctx, fn, "MPI_Allgather (samples)", e);
        goto done;
    }
    size_t ns = 0;
    for (size_t j = 0; j < (size_t)p * SAMPLES_PER_RANK; j++)
        if (allflags[j]) all[ns++] = all[j];
    /* 3. p - 1 splitters at regular places of the sorted samples (ascending
     * order keys; descending reads them from the top) */
    qsort(all, ns, sizeof *all, cmp_asc);
    for (int r = 0; r + 1 < p; r++) {
        size_t at = (size_t)(r + 1) * ns / (size_t)p;
        if (at >= ns) at = ns ? ns - 1 : 0;
        split[r] = !ns ? 0 : order == CUPAT_SORT_ASCENDING ? all[at] : all[ns - 1 - at];
    }
    /* 4. bucket r: keys after splitter r - 1 up to and including splitter r
     * (in `order`); the run is sorted, so each bucket is a slice, found by a
     * binary search (a few key reads on the device) */
    {
        size_t lo = 0;
        for (int r = 0; r < p; r++) {
            size_t hi = n;
            if (r + 1 < p) {
                size_t a = lo, b = n; /* first index whose key comes after split[r] */
                while (a < b && s == CUPAT_SUCCESS) {
                    const size_t mid = a + (b - a) / 2;
                    uint64_t k = 0;
                    s = key_at(ctx, key_type, sorted, mid, &k);
                    if (before(order, split[r], k)) b = mid;
                    else a = mid + 1;
                }
                hi = a;
            }
            scount[r] = hi - lo;
            x[r].peer = r;
            x[r].send = (const unsigned char *)sorted + lo * es;
            x[r].send_bytes = (hi - lo) * es;
            lo = hi;
        }
    }
    if (s != CUPAT_SUCCESS) goto done;
    e = MPI_Alltoall(scount, 1, MPI_UINT64_T, rcount, 1, MPI_UINT64_T, comm->mpi);
    if (e != MPI_SUCCESS) {
        s = mpi_fail(ctx, fn, "MPI_Alltoall (counts)", e);
        goto done;
    }
    size_t total = 0;
    for (int r = 0; r < p; r++) {
        roff[r] = total;
        if (rcount[r] > (SIZE_MAX / es - total)) {
            s = cupat__fail(ctx, CUPAT_ERROR_SIZE, "%s: rank %d would receive more than size_t holds", fn, comm->rank);
            goto done;
        }
        total += rcount[r];
    }
    roff[p] = total;
    /* 5. the exchange: bucket r to rank r, rank r's bucket for us at roff[r] */
    if (total) {
        s = cupat_malloc(ctx, &recv, total * es);
        if (s != CUPAT_SUCCESS) goto done;
    }
    for (int r = 0; r < p; r++) {
        x[r].recv = (unsigned char *)recv + roff[r] * es;
        x[r].recv_bytes = rcount[r] * es;
    }
    s = cupat__dist_exchange(comm, fn, p, x, cuda ? ctx->stream : NULL);
    if (s != CUPAT_SUCCESS) goto done;
    /* 6. what arrived is p sorted runs in rank order: merged pairwise */
    int runs = 0;
    for (int r = 0; r < p; r++) /* drop empty runs */
        if (rcount[r]) roff[runs++] = roff[r];
    roff[runs] = total;
    void *res = recv;
    if (runs > 1) {
        s = cupat_malloc(ctx, &tmp, total * es);
        if (s == CUPAT_SUCCESS) s = merge_runs(ctx, key_type, order, runs, roff, recv, tmp, &res);
        if (s != CUPAT_SUCCESS) goto done;
        if (res == tmp) tmp = recv;
    }
    *out = res;
    *n_out = total;
    recv = NULL;
done:
    cupat_free(ctx, sorted);
    cupat_free(ctx, recv);
    cupat_free(ctx, tmp);
    free(all);
    free(allflags);
    free(split);
    free(scount);
    free(rcount);
    free(roff);
    free(x);
    return s;
}

/* --------------------------------------------------------- allreduce_dist -- */

cupat_status cupat_allreduce_dist(cupat_comm *comm, cupat_type type, cupat_op op, size_t n, const void *xin,
                                  void *y)
{
    static const char fn[] = "cupat_allreduce_dist";
    CUPAT_TRY(begin(comm, fn));
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
    /* slice r = [off(r), off(r + 1)): rank r combines it */
#define SLICE(r) (n / (size_t)p * (size_t)(r) + ((size_t)(r) < n % (size_t)p ? (size_t)(r) : n % (size_t)p))
    const size_t mine = SLICE(me + 1) - SLICE(me);
    void *g = NULL;
    dist_xfer *xs = calloc((size_t)p, sizeof *xs);
    if (!xs) return cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    cupat_status s = mine ? cupat_malloc(ctx, &g, (size_t)p * mine * es) : CUPAT_SUCCESS;
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
    cupat_free(ctx, g);
    free(xs);
    return s;
}
