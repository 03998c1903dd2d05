/* test_dist.c — cupat_dist.h under mpirun (tests/dist.cmake: -np 2 and 3).
 *
 * Every rank makes its part of a global array from the same generator (rank
 * r: elements [off_r, off_r + n_r) of it, the sizes uneven and one rank
 * empty in some cases); rank 0 also holds the whole array and checks the
 * distributed results against the single-process calls:
 *  - cupat_reduce_dist: every rank gets the same bits (gathered and
 *    compared); integers, MIN/MAX and ARGMIN/ARGMAX equal cupat_reduce over
 *    the whole array exactly (indices global); float sums within the bound
 *    of p + 1 more additions;
 *  - cupat_sort_dist: every rank's run sorted, the runs in rank order, and
 *    their concatenation bit for bit cupat_sort of the whole array (a
 *    permutation, sorted: the same bits since the order is total);
 *  - bad arguments: NULL comm, unknown type/op/order, NULL outputs, a host
 *    pointer on the CUDA backend, each a clear status on every rank.
 *  - cupat_allreduce_dist: every type and op, in place and not, n from 0 to
 *    more than the ranks, against a host combination in rank order (bits;
 *    NaN as NaN);
 * --backend cuda: the same on rank % device-count's GPU, through every
 * transport that loads (nccl where libnccl.so.2 is found, mpi-staged always),
 * or the one --transport names (skips without a GPU: every rank exits 77). */
#include "cupat_dist.h"

#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, nproc, nfail, nchecks;
static cupat_ctx *ctx;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        nchecks++;                                                                                 \
        if (!(cond)) {                                                                             \
            if (nfail++ < 20) {                                                                    \
                printf("rank %d FAIL %s:%d: ", rank, __FILE__, __LINE__);                          \
                printf(__VA_ARGS__);                                                               \
                printf("\n");                                                                      \
            }                                                                                      \
        }                                                                                          \
    } while (0)

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}

/* element i of the global array of type t, case `which`: 0 random, 1 few
 * distinct, 2 all equal, 3 specials (floats: NaN, +-0, +-inf) */
static void elem(cupat_type t, int which, uint64_t i, void *out)
{
    uint64_t r = mix(i * 7919 + (uint64_t)which * 104729 + (uint64_t)t);
    if (which == 1) r %= 5;
    if (which == 2) r = 3;
    switch (t) {
    case CUPAT_U32: { uint32_t v = (uint32_t)r; memcpy(out, &v, 4); break; }
    case CUPAT_I32: { int32_t v = (int32_t)(uint32_t)r; memcpy(out, &v, 4); break; }
    case CUPAT_U64: memcpy(out, &r, 8); break;
    case CUPAT_I64: { int64_t v = (int64_t)r; memcpy(out, &v, 8); break; }
    case CUPAT_F32: {
        float v = which == 0 ? (float)((double)(r % 2000001) / 1000.0 - 1000.0) : (float)(r % 7) - 3.0f;
        if (which == 3) {
            const float sp[] = {NAN, -NAN, 0.0f, -0.0f, INFINITY, -INFINITY, 1.5f, -2.5f};
            v = sp[r % 8];
        }
        memcpy(out, &v, 4);
        break;
    }
    default: {
        double v = which == 0 ? (double)(r % 2000001) / 1000.0 - 1000.0 : (double)(r % 7) - 3.0;
        if (which == 3) {
            const double sp[] = {NAN, -NAN, 0.0, -0.0, INFINITY, -INFINITY, 1.5, -2.5};
            v = sp[r % 8];
        }
        memcpy(out, &v, 8);
    }
    }
}

/* sizes of the parts: rank r gets part(r); `shape` 0 even, 1 uneven, 2 rank 1 empty */
static size_t part(size_t total, int r, int shape)
{
    if (shape == 2 && r == 1) return 0;
    if (shape == 1) return total / (size_t)(2 * nproc) + (size_t)r * total / (size_t)(nproc * nproc);
    return total / (size_t)nproc + (r == 0 ? total % (size_t)nproc : 0);
}

/* the global array and this rank's part, in backend memory */
typedef struct {
    size_t n, off, total;
    void *h_all;  /* host: the whole array (every rank builds it: small sizes) */
    void *d_part; /* backend: this rank's part */
} data;

static void make(data *d, cupat_type t, int which, size_t n_each, int shape)
{
    size_t es = cupat_type_size(t), total = 0, off = 0;
    for (int r = 0; r < nproc; r++) {
        size_t n = part(n_each * (size_t)nproc, r, shape);
        if (r < rank) off += n;
        total += n;
    }
    d->n = part(n_each * (size_t)nproc, rank, shape);
    d->off = off;
    d->total = total;
    d->h_all = malloc(total * es + 8);
    for (size_t i = 0; i < total; i++) elem(t, which, i, (char *)d->h_all + i * es);
    d->d_part = NULL;
    if (cupat_malloc(ctx, &d->d_part, d->n * es) == CUPAT_SUCCESS && d->n)
        cupat_memcpy(ctx, d->d_part, (char *)d->h_all + off * es, d->n * es);
}

static void drop(data *d)
{
    cupat_free(ctx, d->d_part);
    free(d->h_all);
}

static void test_reduce(cupat_comm *c)
{
    const cupat_type types[] = {CUPAT_F32, CUPAT_F64, CUPAT_I32, CUPAT_U32, CUPAT_I64, CUPAT_U64};
    for (int ti = 0; ti < 6; ti++)
        for (int op = CUPAT_OP_SUM; op <= CUPAT_OP_ARGMAX; op++)
            for (int shape = 0; shape < 3; shape++)
                for (int which = 0; which < 4; which += 3) {
                    cupat_type t = types[ti];
                    size_t es = cupat_type_size(t);
                    data d;
                    make(&d, t, which, 5000 + 37 * (size_t)ti, shape);
                    unsigned char got[sizeof(cupat_indexed)], want[sizeof(cupat_indexed)];
                    memset(got, 0, sizeof got);
                    memset(want, 0, sizeof want);
                    cupat_status s = cupat_reduce_dist(c, t, (cupat_op)op, d.n, d.d_part, got);
                    CHECK(s == CUPAT_SUCCESS, "reduce_dist %s %s: %s", cupat_type_name(t), cupat_op_name(op),
                          cupat_last_error(ctx));
                    /* every rank the same bits */
                    size_t rs = op >= CUPAT_OP_ARGMIN ? sizeof(cupat_indexed) : es;
                    unsigned char *all = malloc((size_t)nproc * rs);
                    MPI_Allgather(got, (int)rs, MPI_BYTE, all, (int)rs, MPI_BYTE, MPI_COMM_WORLD);
                    for (int r = 1; r < nproc; r++)
                        CHECK(!memcmp(all, all + (size_t)r * rs, rs), "reduce_dist %s %s: rank %d differs from rank 0",
                              cupat_type_name(t), cupat_op_name(op), r);
                    free(all);
                    /* against the whole array on one process (CPU) */
                    cupat_ctx *cpu = NULL;
                    cupat_create(&cpu, CUPAT_BACKEND_CPU, -1);
                    cupat_reduce_host(cpu, t, (cupat_op)op, d.total, d.h_all, want);
                    if (op == CUPAT_OP_SUM && (t == CUPAT_F32 || t == CUPAT_F64)) {
                        double g = t == CUPAT_F32 ? *(float *)got : *(double *)got;
                        double w = t == CUPAT_F32 ? *(float *)want : *(double *)want;
                        double abs_sum = 0;
                        for (size_t i = 0; i < d.total; i++)
                            abs_sum += fabs(t == CUPAT_F32 ? ((float *)d.h_all)[i] : ((double *)d.h_all)[i]);
                        double u = t == CUPAT_F32 ? 0x1p-24 : 0x1p-53;
                        /* both within about (log2 n + 40 + p) u sum|x| of the truth */
                        double tol = 2 * (64 + nproc) * u * abs_sum;
                        CHECK((isnan(g) && isnan(w)) || g == w || fabs(g - w) <= tol,
                              "reduce_dist %s sum shape %d: %.17g, one process %.17g (tol %.3g)", cupat_type_name(t),
                              shape, g, w, tol);
                    } else {
                        CHECK(!memcmp(got, want, rs), "reduce_dist %s %s shape %d which %d: differs from one process",
                              cupat_type_name(t), cupat_op_name(op), shape, which);
                    }
                    cupat_destroy(cpu);
                    drop(&d);
                }
}

static void test_sort(cupat_comm *c)
{
    const cupat_type types[] = {CUPAT_U32, CUPAT_I32, CUPAT_F32, CUPAT_U64, CUPAT_I64, CUPAT_F64};
    for (int ti = 0; ti < 6; ti++)
        for (int order = 0; order < 2; order++)
            for (int shape = 0; shape < 3; shape++)
                for (int which = 0; which < 4; which++) {
                    cupat_type t = types[ti];
                    size_t es = cupat_type_size(t);
                    data d;
                    make(&d, t, which, 3000 + 101 * (size_t)which, shape);
                    void *out = NULL;
                    size_t n_out = 0;
                    cupat_status s = cupat_sort_dist(c, t, (cupat_sort_order)order, d.n, d.d_part, &out, &n_out);
                    CHECK(s == CUPAT_SUCCESS, "sort_dist %s: %s", cupat_type_name(t), cupat_last_error(ctx));
                    /* gather the runs on every rank, in rank order */
                    int mine = (int)n_out, *counts = malloc(sizeof(int) * (size_t)nproc),
                        *disp = malloc(sizeof(int) * (size_t)nproc);
                    MPI_Allgather(&mine, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD);
                    size_t total = 0;
                    for (int r = 0; r < nproc; r++) {
                        disp[r] = (int)(total * es);
                        total += (size_t)counts[r];
                        counts[r] *= (int)es;
                    }
                    CHECK(total == d.total, "sort_dist %s: %zu keys in all, want %zu", cupat_type_name(t), total,
                          d.total);
                    /* distinct random keys: the splitters balance the runs (32 samples a rank:
                     * well within half again the mean) */
                    if (which == 0 && nproc > 1)
                        CHECK(n_out <= d.total / (size_t)nproc * 3 / 2 + 64,
                              "sort_dist %s %s shape %d: %zu keys on rank %d of %zu in all: unbalanced",
                              cupat_type_name(t), order ? "descending" : "ascending", shape, n_out, rank, d.total);
                    char *h = malloc(n_out * es + 1), *got = malloc(total * es + 1);
                    if (n_out) cupat_memcpy(ctx, h, out, n_out * es);
                    MPI_Allgatherv(h, (int)(n_out * es), MPI_BYTE, got, counts, disp, MPI_BYTE, MPI_COMM_WORLD);
                    /* the concatenation is the one-process sort, bit for bit */
                    if (total == d.total) {
                        cupat_ctx *cpu = NULL;
                        cupat_create(&cpu, CUPAT_BACKEND_CPU, -1);
                        char *want = malloc(total * es + 1);
                        cupat_sort(cpu, t, 0, (cupat_sort_order)order, total, d.h_all, want, NULL, NULL);
                        size_t bad = total;
                        for (size_t i = 0; i < total && bad == total; i++)
                            if (memcmp(got + i * es, want + i * es, es)) bad = i;
                        CHECK(bad == total, "sort_dist %s %s shape %d which %d: key %zu of %zu differs",
                              cupat_type_name(t), order ? "descending" : "ascending", shape, which, bad, total);
                        free(want);
                        cupat_destroy(cpu);
                    }
                    free(h);
                    free(got);
                    free(counts);
                    free(disp);
                    cupat_free(ctx, out);
                    drop(&d);
                }
}

/* the host's combination of two elements, cupat_reduce's rules */
static void host_comb(cupat_type t, cupat_op op, const void *a, const void *b, void *out)
{
    if (t == CUPAT_F32 || t == CUPAT_F64) {
        double x = t == CUPAT_F32 ? *(const float *)a : *(const double *)a;
        double y = t == CUPAT_F32 ? *(const float *)b : *(const double *)b;
        double r;
        if (op == CUPAT_OP_SUM) {
            if (t == CUPAT_F32) {
                float f = *(const float *)a + *(const float *)b;
                memcpy(out, &f, 4);
                return;
            }
            r = x + y;
        } else if (isnan(x) || isnan(y)) {
            r = NAN;
        } else if (x == y) { /* equal: -0 below +0 */
            r = (op == CUPAT_OP_MIN) == (signbit(x) != 0) ? x : y;
        } else {
            r = (op == CUPAT_OP_MIN) == (x < y) ? x : y;
        }
        if (t == CUPAT_F32) {
            float f = (float)r;
            memcpy(out, &f, 4);
        } else {
            memcpy(out, &r, 8);
        }
        return;
    }
    const int sgn = t == CUPAT_I32 || t == CUPAT_I64;
    const size_t es = cupat_type_size(t);
    uint64_t u = 0, v = 0;
    memcpy(&u, a, es); /* little-endian: the low bytes */
    memcpy(&v, b, es);
    int64_t su = es == 4 ? (int64_t)(int32_t)(uint32_t)u : (int64_t)u, sv = es == 4 ? (int64_t)(int32_t)(uint32_t)v : (int64_t)v;
    uint64_t r;
    if (op == CUPAT_OP_SUM) r = u + v;
    else {
        int less = sgn ? su < sv : u < v;
        r = (op == CUPAT_OP_MIN) == less ? u : v;
    }
    memcpy(out, &r, es);
}

static void test_allreduce(cupat_comm *c)
{
    const cupat_type types[] = {CUPAT_F32, CUPAT_F64, CUPAT_I32, CUPAT_U32, CUPAT_I64, CUPAT_U64};
    const size_t sizes[] = {0, 1, 2, 7, 10007};
    for (int ti = 0; ti < 6; ti++)
        for (int op = CUPAT_OP_SUM; op <= CUPAT_OP_MAX; op++)
            for (int si = 0; si < 5; si++)
                for (int which = 0; which < 4; which += 3)
                    for (int inplace = 0; inplace < 2; inplace++) {
                        const cupat_type t = types[ti];
                        const size_t es = cupat_type_size(t), n = sizes[si];
                        /* rank r's x is elements [r n, (r + 1) n) of the generator */
                        unsigned char *h = malloc((size_t)nproc * n * es + 8), *want = malloc(n * es + 8),
                                      *got = malloc(n * es + 8);
                        for (size_t i = 0; i < (size_t)nproc * n; i++) elem(t, which, i, h + i * es);
                        if (n) memcpy(want, h, n * es);
                        for (int r = 1; r < nproc; r++)
                            for (size_t i = 0; i < n; i++)
                                host_comb(t, (cupat_op)op, want + i * es, h + ((size_t)r * n + i) * es, want + i * es);
                        void *x = NULL, *y = NULL;
                        cupat_malloc(ctx, &x, n * es);
                        if (n) cupat_memcpy(ctx, x, h + (size_t)rank * n * es, n * es);
                        if (!inplace) cupat_malloc(ctx, &y, n * es);
                        cupat_status s = cupat_allreduce_dist(c, t, (cupat_op)op, n, x, inplace ? x : y);
                        CHECK(s == CUPAT_SUCCESS, "allreduce_dist %s %s n %zu: %s", cupat_type_name(t),
                              cupat_op_name(op), n, cupat_last_error(ctx));
                        if (n) cupat_memcpy(ctx, got, inplace ? x : y, n * es);
                        size_t bad = n;
                        for (size_t i = 0; i < n && bad == n; i++) {
                            if (memcmp(got + i * es, want + i * es, es)) {
                                int nan_both = (t == CUPAT_F32 && isnan(((float *)got)[i]) && isnan(((float *)want)[i])) ||
                                               (t == CUPAT_F64 && isnan(((double *)got)[i]) && isnan(((double *)want)[i]));
                                if (!nan_both) bad = i;
                            }
                        }
                        CHECK(bad == n, "allreduce_dist %s %s n %zu which %d%s: element %zu differs",
                              cupat_type_name(t), cupat_op_name(op), n, which, inplace ? " in place" : "", bad);
                        cupat_free(ctx, x);
                        cupat_free(ctx, y);
                        free(h);
                        free(want);
                        free(got);
                    }
}

static void test_errors(cupat_comm *c)
{
    unsigned char r[sizeof(cupat_indexed)];
    void *out;
    size_t n_out;
    CHECK(cupat_reduce_dist(NULL, CUPAT_F32, CUPAT_OP_SUM, 0, NULL, r) == CUPAT_ERROR_NULL_POINTER, "NULL comm");
    CHECK(strstr(cupat_last_error(NULL), "comm is NULL") != NULL, "message: %s", cupat_last_error(NULL));
    CHECK(cupat_reduce_dist(c, (cupat_type)9, CUPAT_OP_SUM, 0, NULL, r) == CUPAT_ERROR_INVALID_VALUE, "type 9");
    CHECK(strstr(cupat_last_error(ctx), "unknown type") != NULL, "message: %s", cupat_last_error(ctx));
    CHECK(cupat_reduce_dist(c, CUPAT_F32, (cupat_op)9, 0, NULL, r) == CUPAT_ERROR_INVALID_VALUE, "op 9");
    CHECK(cupat_reduce_dist(c, CUPAT_F32, CUPAT_OP_SUM, 0, NULL, NULL) == CUPAT_ERROR_NULL_POINTER, "NULL result");
    CHECK(cupat_sort_dist(NULL, CUPAT_U32, CUPAT_SORT_ASCENDING, 0, NULL, &out, &n_out) == CUPAT_ERROR_NULL_POINTER,
          "sort NULL comm");
    CHECK(cupat_sort_dist(c, (cupat_type)9, CUPAT_SORT_ASCENDING, 0, NULL, &out, &n_out) == CUPAT_ERROR_INVALID_VALUE,
          "sort type 9");
    CHECK(cupat_sort_dist(c, CUPAT_U32, (cupat_sort_order)5, 0, NULL, &out, &n_out) == CUPAT_ERROR_INVALID_VALUE,
          "sort order 5");
    CHECK(strstr(cupat_last_error(ctx), "unknown order") != NULL, "message: %s", cupat_last_error(ctx));
    CHECK(cupat_sort_dist(c, CUPAT_U32, CUPAT_SORT_ASCENDING, 0, NULL, NULL, &n_out) == CUPAT_ERROR_NULL_POINTER,
          "sort NULL out");
    CHECK(cupat_sort_dist(c, CUPAT_U32, CUPAT_SORT_ASCENDING, 0, NULL, &out, NULL) == CUPAT_ERROR_NULL_POINTER,
          "sort NULL n_out");
    CHECK(cupat_sort_dist(c, CUPAT_U32, CUPAT_SORT_ASCENDING, 4, NULL, &out, &n_out) == CUPAT_ERROR_NULL_POINTER,
          "sort NULL keys with n = 4");
    if (cupat_get_backend(ctx) == CUPAT_BACKEND_CUDA) {
        uint32_t host[4] = {1, 2, 3, 4};
        CHECK(cupat_sort_dist(c, CUPAT_U32, CUPAT_SORT_ASCENDING, 4, host, &out, &n_out) == CUPAT_ERROR_HOST_POINTER,
              "sort host keys on CUDA");
    }
    float f = 0;
    CHECK(cupat_allreduce_dist(NULL, CUPAT_F32, CUPAT_OP_SUM, 1, &f, &f) == CUPAT_ERROR_NULL_POINTER,
          "allreduce NULL comm");
    CHECK(cupat_allreduce_dist(c, (cupat_type)9, CUPAT_OP_SUM, 0, NULL, NULL) == CUPAT_ERROR_INVALID_VALUE,
          "allreduce type 9");
    CHECK(cupat_allreduce_dist(c, CUPAT_F32, CUPAT_OP_ARGMIN, 0, NULL, NULL) == CUPAT_ERROR_INVALID_VALUE,
          "allreduce ARGMIN");
    CHECK(strstr(cupat_last_error(ctx), "CUPAT_OP_SUM") != NULL, "message: %s", cupat_last_error(ctx));
    CHECK(cupat_allreduce_dist(c, CUPAT_F32, CUPAT_OP_SUM, 4, NULL, NULL) == CUPAT_ERROR_NULL_POINTER,
          "allreduce NULL x with n = 4");
    {
        void *xy = NULL;
        cupat_malloc(ctx, &xy, 64);
        CHECK(cupat_allreduce_dist(c, CUPAT_F32, CUPAT_OP_SUM, 8, xy, (char *)xy + 4) == CUPAT_ERROR_INVALID_VALUE,
              "allreduce overlapping x and y");
        CHECK(cupat_allreduce_dist(c, CUPAT_F32, CUPAT_OP_SUM, 4, xy, NULL) == CUPAT_ERROR_NULL_POINTER,
              "allreduce NULL y");
        cupat_free(ctx, xy);
    }
    if (cupat_get_backend(ctx) == CUPAT_BACKEND_CUDA) {
        float hx[4] = {0};
        CHECK(cupat_allreduce_dist(c, CUPAT_F32, CUPAT_OP_SUM, 4, hx, hx) == CUPAT_ERROR_HOST_POINTER,
              "allreduce host x on CUDA");
    }
    cupat_comm *bad = (cupat_comm *)1;
    CHECK(cupat_comm_create_transport(&bad, ctx, MPI_COMM_WORLD, "carrier-pigeon") == CUPAT_ERROR_INVALID_VALUE &&
              bad == NULL,
          "unknown transport");
    CHECK(strstr(cupat_last_error(ctx), "carrier-pigeon") != NULL, "message: %s", cupat_last_error(ctx));
    CHECK(cupat_comm_create_transport(&bad, ctx, MPI_COMM_WORLD,
                                      cupat_get_backend(ctx) == CUPAT_BACKEND_CUDA ? "mpi" : "nccl") ==
              CUPAT_ERROR_NOT_SUPPORTED,
          "transport of the other backend");
    CHECK(cupat_comm_create(&bad, ctx, MPI_COMM_NULL) == CUPAT_ERROR_INVALID_VALUE && bad == NULL,
          "comm over MPI_COMM_NULL");
    CHECK(cupat_comm_create(NULL, ctx, MPI_COMM_WORLD) == CUPAT_ERROR_NULL_POINTER, "NULL comm out");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nproc);
    cupat_backend b = CUPAT_BACKEND_CPU;
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--backend") && i + 1 < argc) b = !strcmp(argv[++i], "cuda") ? CUPAT_BACKEND_CUDA : b;
        else if (!strcmp(argv[i], "--transport") && i + 1 < argc) only = argv[++i];
    }
    int ndev = 0;
    if (b == CUPAT_BACKEND_CUDA && cudaGetDeviceCount(&ndev) != cudaSuccess) ndev = 0;
    if (cupat_create(&ctx, b, b == CUPAT_BACKEND_CUDA ? (ndev ? rank % ndev : 0) : -1) != CUPAT_SUCCESS) {
        if (rank == 0) printf("SKIP: %s\n", cupat_last_error(NULL));
        MPI_Finalize();
        return 77;
    }
    /* every transport of the backend that this machine has (or the one named) */
    const char *cuda_transports[] = {"nccl", "mpi-staged"}, *cpu_transports[] = {"mpi"};
    const char **ts = b == CUPAT_BACKEND_CUDA ? cuda_transports : cpu_transports;
    int nt = b == CUPAT_BACKEND_CUDA ? 2 : 1;
    if (only) ts = &only, nt = 1;
    char done[64] = "";
    for (int k = 0; k < nt; k++) {
        cupat_comm *c = NULL;
        cupat_status cs = cupat_comm_create_transport(&c, ctx, MPI_COMM_WORLD, ts[k]);
        if (cs == CUPAT_ERROR_NOT_SUPPORTED && !only) {
            if (rank == 0) printf("transport %s: not here (%s)\n", ts[k], cupat_last_error(ctx));
            continue;
        }
        if (cs != CUPAT_SUCCESS) {
            printf("rank %d: cupat_comm_create (%s): %s\n", rank, ts[k], cupat_last_error(ctx));
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        CHECK(cupat_comm_rank(c) == rank && cupat_comm_size(c) == nproc, "rank %d of %d", cupat_comm_rank(c),
              cupat_comm_size(c));
        CHECK(!strcmp(cupat_comm_transport(c), ts[k]), "transport %s, asked for %s", cupat_comm_transport(c), ts[k]);
        CHECK(cupat_comm_ctx(c) == ctx, "cupat_comm_ctx");
        test_reduce(c);
        test_sort(c);
        test_allreduce(c);
        test_errors(c);
        cupat_comm_destroy(c);
        snprintf(done + strlen(done), sizeof done - strlen(done), "%s%s", *done ? ", " : "", ts[k]);
    }
    int fails = 0, checks = 0;
    MPI_Allreduce(&nfail, &fails, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&nchecks, &checks, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("%s: %d ranks, %d checks, %d failed (%s)\n", fails ? "FAILED" : "PASSED", nproc, checks,
                          fails, done);
    cupat_destroy(ctx);
    MPI_Finalize();
    return fails ? 1 : 0;
}
