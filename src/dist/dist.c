/* dist.c — cupat_dist.h over MPI: the communicator, the distributed reduce
 * and the sample sort. Built into libcupat_dist only (never libcupat, which
 * has no MPI dependency), where CMake finds MPI.
 *
 * Transport: MPI on host buffers. A CUDA context's data goes through host
 * memory ("mpi-staged": cupat_memcpy to a host buffer, MPI, back), which any
 * MPI can carry; NCCL between GPUs comes with the multi-GPU session
 * (docs/dist.md). MPI counts are ints: one exchange moves at most
 * 2^31 - 1 elements a rank (CUPAT_ERROR_SIZE beyond). */
#include "cupat_dist.h"
#include "internal.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct cupat_comm {
    cupat_ctx *ctx;
    MPI_Comm mpi;
    int rank, size;
    int staged; /* CUDA context: device data staged through host memory */
};

/* Samples each rank contributes to the choice of splitters. */
#define SAMPLES_PER_RANK 32

static cupat_status mpi_fail(cupat_ctx *ctx, const char *fn, const char *what, int err)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(err, msg, &len) != MPI_SUCCESS) snprintf(msg, sizeof msg, "error %d", err);
    return cupat__fail(ctx, CUPAT_ERROR_INTERNAL, "%s: %s failed: %s", fn, what, msg);
}
#define MPI_TRY(ctx, fn, call)                                                                     \
    do {                                                                                           \
        int mpi_e_ = (call);                                                                       \
        if (mpi_e_ != MPI_SUCCESS) return mpi_fail((ctx), (fn), #call, mpi_e_);                    \
    } while (0)

cupat_status cupat_comm_create(cupat_comm **comm, cupat_ctx *ctx, MPI_Comm mpi)
{
    static const char fn[] = "cupat_comm_create";
    if (comm) *comm = NULL;
    CUPAT_TRY(cupat__begin(ctx, fn));
    if (!comm) return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "%s: comm is NULL", fn);
    int init = 0;
    MPI_Initialized(&init);
    if (!init) return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "%s: MPI is not initialized (MPI_Init first)", fn);
    if (mpi == MPI_COMM_NULL) return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "%s: mpi is MPI_COMM_NULL", fn);
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
    c->staged = cupat_get_backend(ctx) == CUPAT_BACKEND_CUDA;
    *comm = c;
    return CUPAT_SUCCESS;
}

void cupat_comm_destroy(cupat_comm *comm)
{
    if (!comm) return;
    MPI_Comm_free(&comm->mpi);
    free(comm);
}

int cupat_comm_rank(const cupat_comm *comm) { return comm ? comm->rank : -1; }
int cupat_comm_size(const cupat_comm *comm) { return comm ? comm->size : 0; }
const char *cupat_comm_transport(const cupat_comm *comm)
{
    return !comm ? "none" : comm->staged ? "mpi-staged" : "mpi";
}

static cupat_status begin(cupat_comm *comm, const char *fn)
{
    if (!comm) return cupat__fail(NULL, CUPAT_ERROR_NULL_POINTER, "%s: comm is NULL", fn);
    return cupat__begin(comm->ctx, fn);
}

/* bytes of backend memory at src into a new host buffer (*host; NULL for 0) */
static cupat_status to_host(cupat_comm *c, const void *src, size_t bytes, void **host)
{
    *host = NULL;
    if (bytes == 0) return CUPAT_SUCCESS;
    void *h = malloc(bytes);
    if (!h) return cupat__fail(c->ctx, CUPAT_ERROR_OUT_OF_MEMORY, "out of host memory (%zu bytes)", bytes);
    cupat_status s = cupat_memcpy(c->ctx, h, src, bytes);
    if (s != CUPAT_SUCCESS) {
        free(h);
        return s;
    }
    *host = h;
    return CUPAT_SUCCESS;
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
    if (n > (size_t)INT_MAX)
        return cupat__fail(ctx, CUPAT_ERROR_SIZE, "%s: n = %zu keys on rank %d: an exchange moves at most %d", fn, n,
                           comm->rank, INT_MAX);
    CUPAT_TRY(cupat__check_data(ctx, fn, "keys", keys, n * es));
    const int p = comm->size;
    cupat_status s = CUPAT_SUCCESS;
    void *sorted = NULL, *recv_dev = NULL;
    unsigned char *h = NULL, *recv = NULL;
    uint64_t *samples = NULL, *all = NULL, *split = NULL;
    int *scount = NULL, *rcount = NULL, *sdisp = NULL, *rdisp = NULL;
    MPI_Datatype key = MPI_DATATYPE_NULL;

    /* 1. local sort, to host */
    CUPAT_TRY(cupat_malloc(ctx, &sorted, n * es));
    s = cupat_sort(ctx, key_type, 0, order, n, keys, sorted, NULL, NULL);
    if (s == CUPAT_SUCCESS) s = to_host(comm, sorted, n * es, (void **)&h);
    if (s != CUPAT_SUCCESS) goto done;

    /* 2. regular samples of the sorted run (order keys), gathered everywhere */
    samples = malloc(SAMPLES_PER_RANK * sizeof *samples);
    all = malloc((size_t)p * SAMPLES_PER_RANK * sizeof *all);
    split = malloc((size_t)(p > 1 ? p - 1 : 1) * sizeof *split);
    scount = calloc((size_t)p, sizeof *scount);
    rcount = calloc((size_t)p, sizeof *rcount);
    sdisp = calloc((size_t)p, sizeof *sdisp);
    rdisp = calloc((size_t)p, sizeof *rdisp);
    if (!samples || !all || !split || !scount || !rcount || !sdisp || !rdisp) {
        s = cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY, "%s: out of host memory", fn);
        goto done;
    }
    /* an empty rank sends "no sample" markers: a flag word beside each */
    uint64_t flags[SAMPLES_PER_RANK];
    for (int j = 0; j < SAMPLES_PER_RANK; j++) {
        flags[j] = n > 0;
        samples[j] = n ? order_key(key_type, h + (size_t)((n * (2 * (size_t)j + 1)) / (2 * SAMPLES_PER_RANK)) * es) : 0;
    }
    uint64_t *allflags = malloc((size_t)p * SAMPLES_PER_RANK * sizeof *allflags);
    if (!allflags) {
        s = cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY, "%s: out of host memory", fn);
        goto done;
    }
    int e = MPI_Allgather(samples, SAMPLES_PER_RANK, MPI_UINT64_T, all, SAMPLES_PER_RANK, MPI_UINT64_T, comm->mpi);
    if (e == MPI_SUCCESS)
        e = MPI_Allgather(flags, SAMPLES_PER_RANK, MPI_UINT64_T, allflags, SAMPLES_PER_RANK, MPI_UINT64_T, comm->mpi);
    if (e != MPI_SUCCESS) {
        free(allflags);
        s = mpi_fail(ctx, fn, "MPI_Allgather (samples)", e);
        goto done;
    }
    size_t ns = 0;
    for (size_t j = 0; j < (size_t)p * SAMPLES_PER_RANK; j++)
        if (allflags[j]) all[ns++] = all[j];
    free(allflags);
    /* 3. p - 1 splitters at regular places of the sorted samples (ascending
     * order keys; descending reads them from the top) */
    qsort(all, ns, sizeof *all, cmp_asc);
    for (int r = 0; r + 1 < p; r++) {
        if (!ns) {
            split[r] = 0;
            continue;
        }
        size_t at = (size_t)(r + 1) * ns / (size_t)p;
        if (at >= ns) at = ns - 1;
        split[r] = order == CUPAT_SORT_ASCENDING ? all[at] : all[ns - 1 - at];
    }
    /* 4. bucket r: keys after splitter r - 1 up to and including splitter r
     * (in `order`); the run is sorted, so each bucket is a slice */
    {
        size_t i = 0;
        for (int r = 0; r < p; r++) {
            size_t start = i;
            if (r + 1 < p) {
                while (i < n && !before(order, split[r], order_key(key_type, h + i * es))) i++;
            } else {
                i = n;
            }
            scount[r] = (int)(i - start);
            sdisp[r] = (int)start;
        }
    }
    e = MPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, comm->mpi);
    if (e != MPI_SUCCESS) {
        s = mpi_fail(ctx, fn, "MPI_Alltoall (counts)", e);
        goto done;
    }
    size_t total = 0;
    for (int r = 0; r < p; r++) {
        rdisp[r] = (int)total;
        total += (size_t)rcount[r];
        if (total > (size_t)INT_MAX) {
            s = cupat__fail(ctx, CUPAT_ERROR_SIZE, "%s: rank %d would receive more than %d keys", fn, comm->rank,
                            INT_MAX);
            goto done;
        }
    }
    /* 5. the exchange, in whole keys */
    recv = malloc(total ? total * es : 1);
    if (!recv) {
        s = cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY, "%s: out of host memory (%zu keys)", fn, total);
        goto done;
    }
    MPI_Type_contiguous((int)es, MPI_BYTE, &key);
    MPI_Type_commit(&key);
    e = MPI_Alltoallv(h, scount, sdisp, key, recv, rcount, rdisp, key, comm->mpi);
    if (e != MPI_SUCCESS) {
        s = mpi_fail(ctx, fn, "MPI_Alltoallv (keys)", e);
        goto done;
    }
    /* 6. what arrived (p sorted runs) sorted into the output */
    if (total) {
        s = cupat_malloc(ctx, &recv_dev, total * es);
        if (s == CUPAT_SUCCESS) s = cupat_memcpy(ctx, recv_dev, recv, total * es);
        if (s == CUPAT_SUCCESS) s = cupat_sort(ctx, key_type, 0, order, total, recv_dev, recv_dev, NULL, NULL);
        if (s != CUPAT_SUCCESS) goto done;
        *out = recv_dev;
        recv_dev = NULL;
    }
    *n_out = total;
done:
    if (key != MPI_DATATYPE_NULL) MPI_Type_free(&key);
    cupat_free(ctx, sorted);
    cupat_free(ctx, recv_dev);
    free(h);
    free(recv);
    free(samples);
    free(all);
    free(split);
    free(scount);
    free(rcount);
    free(sdisp);
    free(rdisp);
    return s;
}
