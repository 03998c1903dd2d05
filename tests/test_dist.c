/* SPDX-License-Identifier: Apache-2.0 */
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
 *  - cupat_spmv_dist: rows and x split differently (uneven, an empty rank)
 *    against cupat_spmv of the whole matrix within twice its bound;
 *  - cupat_allreduce_dist: every type and op, in place and not, n from 0 to
 *    more than the ranks, against a host combination in rank order (bits;
 *    NaN as NaN);
 *  - cupat_stencil3d_dist: every rank builds the same global grid and
 *    takes its slab of it (uneven splits, a rank with a single own plane,
 *    ghost planes poisoned); after 0 .. 5 steps (7 and 27 points, f32 and
 *    f64, padded ldy / ldz, the overlapped and the serial order) the whole
 *    slab, ghost planes included, equals cupat_stencil3d_run of the global
 *    grid on a CPU context bit for bit, and the padding is untouched; bad
 *    arguments each a clear status without communicating;
 * --backend cuda: the same on rank % device-count's GPU, through every
 * transport that loads (nccl where libnccl.so.2 is found, mpi-staged always),
 * or the one --transport names (skips without a GPU: every rank exits 77). */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "cupat_dist.h"
#include "dist/dist_stencil.h" /* cupat__stencil3d_dist_mode: the serial order */

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
                for (int which = 0; which < 5; which++) {
                    cupat_type t = types[ti];
                    size_t es = cupat_type_size(t);
                    data d;
                    /* which 4: random keys, fewer a rank than the 32 samples */
                    make(&d, t, which == 4 ? 0 : which, which == 4 ? 5 : 3000 + 101 * (size_t)which, shape);
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

/* Managed memory cannot be shared by CUDA IPC: the direct all-reduce must
 * step aside for the staged form, with the same result. */
static void test_allreduce_managed(cupat_comm *c)
{
    if (cupat_get_backend(ctx) != CUPAT_BACKEND_CUDA) return;
    const size_t n = 1000;
    float *x = NULL, *y = NULL;
    if (cudaMallocManaged((void **)&x, n * sizeof *x, cudaMemAttachGlobal) != cudaSuccess ||
        cudaMallocManaged((void **)&y, n * sizeof *y, cudaMemAttachGlobal) != cudaSuccess) {
        CHECK(0, "cudaMallocManaged failed");
        return;
    }
    for (size_t i = 0; i < n; i++) x[i] = (float)(rank + 1) * (float)i;
    cupat_status s = cupat_allreduce_dist(c, CUPAT_F32, CUPAT_OP_SUM, n, x, y);
    CHECK(s == CUPAT_SUCCESS, "allreduce_dist on managed memory: %s", cupat_last_error(ctx));
    cupat_sync(ctx);
    size_t bad = n;
    const float k = (float)nproc * (float)(nproc + 1) / 2;
    for (size_t i = 0; i < n && bad == n; i++)
        if (y[i] != k * (float)i) bad = i;
    CHECK(bad == n, "allreduce_dist on managed memory: element %zu", bad);
    cudaFree(x);
    cudaFree(y);
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

/* The direct all-reduce's rounds (dist_ipc.c): inbox slots made 64 KiB so
 * that 100003 elements take several rounds through both halves, twice in a
 * row (the epochs go on), with x and y 16-byte aligned and one element off
 * (the element-wise kernel); exact against the host. On other transports
 * and the staged form the knob changes nothing and the checks still hold. */
extern size_t cupat__dist_ipc_slot_cap;
static void test_allreduce_rounds(cupat_comm *c)
{
    const cupat_type types[] = {CUPAT_F32, CUPAT_F64, CUPAT_U64};
    const size_t n = 100003;
    cupat__dist_ipc_slot_cap = 65536;
    for (int ti = 0; ti < 3; ti++)
        for (int off = 0; off < 2; off++)
            for (int rep = 0; rep < 2; rep++) {
                const cupat_type t = types[ti];
                const size_t es = cupat_type_size(t);
                const cupat_op op = (cupat_op)(CUPAT_OP_SUM + (ti + rep) % 3);
                unsigned char *h = malloc((size_t)nproc * n * es), *want = malloc(n * es), *got = malloc(n * es);
                for (size_t i = 0; i < (size_t)nproc * n; i++) elem(t, 0, i, h + i * es);
                memcpy(want, h, n * es);
                for (int r = 1; r < nproc; r++)
                    for (size_t i = 0; i < n; i++)
                        host_comb(t, op, want + i * es, h + ((size_t)r * n + i) * es, want + i * es);
                unsigned char *xb = NULL, *yb = NULL;
                cupat_malloc(ctx, (void **)&xb, (n + 1) * es);
                cupat_malloc(ctx, (void **)&yb, (n + 1) * es);
                unsigned char *x = xb + (size_t)off * es, *y = yb + (size_t)off * es;
                cupat_memcpy(ctx, x, h + (size_t)rank * n * es, n * es);
                const int inplace = rep == 1;
                cupat_status s = cupat_allreduce_dist(c, t, op, n, x, inplace ? x : y);
                CHECK(s == CUPAT_SUCCESS, "allreduce_dist rounds %s %s off %d: %s", cupat_type_name(t),
                      cupat_op_name(op), off, cupat_last_error(ctx));
                cupat_memcpy(ctx, got, inplace ? x : y, n * es);
                size_t bad = n;
                for (size_t i = 0; i < n && bad == n; i++)
                    if (memcmp(got + i * es, want + i * es, es)) bad = i;
                CHECK(bad == n, "allreduce_dist rounds %s %s off %d%s: element %zu differs", cupat_type_name(t),
                      cupat_op_name(op), off, inplace ? " in place" : "", bad);
                cupat_free(ctx, xb);
                cupat_free(ctx, yb);
                free(h);
                free(want);
                free(got);
            }
    cupat__dist_ipc_slot_cap = 0;
}

/* Where rank r's share of N starts (cut(N, nproc) = N): shape 0 even, 1
 * growing with r, 2 rank 0 empty. */
static size_t cut(size_t N, int r, int shape)
{
    const size_t p = (size_t)nproc, q = (size_t)r;
    if (shape == 1) return N * q * q / (p * p);
    if (shape == 2) return p == 1 ? N * q : q < 1 ? 0 : N * (q - 1) / (p - 1);
    return N * q / p;
}

/* SpMV with rows (and x) split between the ranks against cupat_spmv of the
 * whole matrix on one CPU process, within twice cupat_spmv's bound (each
 * result is within it of the exact value). */
static void test_spmv(cupat_comm *c)
{
    const size_t N = 1531;
    for (int f64 = 0; f64 <= 1; f64++)
        for (int shape = 0; shape < 3; shape++) {
            const cupat_type vt = f64 ? CUPAT_F64 : CUPAT_F32;
            const size_t es = f64 ? 8 : 4;
            /* the global matrix (CSR, 0..8 entries a row) and x, y on every rank */
            int32_t *rp = malloc((N + 1) * sizeof *rp), *ci = malloc(N * 8 * sizeof *ci);
            unsigned char *va = malloc(N * 8 * es), *xg = malloc(N * es), *yg = malloc(N * es),
                          *want = malloc(N * es);
            double *bound = malloc(N * sizeof *bound);
            rp[0] = 0;
            for (size_t i = 0; i < N; i++) {
                const int len = (int)(mix(i * 31 + (uint64_t)shape) % 9);
                for (int k = 0; k < len; k++) {
                    const size_t j = rp[i] + (size_t)k;
                    ci[j] = (int32_t)(mix(i * 977 + (uint64_t)k) % N);
                    const double v = (double)(mix(j + 17) % 2001) / 1000.0 - 1.0;
                    if (f64) ((double *)va)[j] = v;
                    else ((float *)va)[j] = (float)v;
                }
                rp[i + 1] = rp[i] + len;
                const double xv = (double)(mix(i + 5) % 2001) / 500.0 - 2.0, yv = (double)(mix(i + 9) % 11) - 5.0;
                if (f64) ((double *)xg)[i] = xv, ((double *)yg)[i] = yv;
                else ((float *)xg)[i] = (float)xv, ((float *)yg)[i] = (float)yv;
            }
            const double alpha = 1.5, beta = 0.5, u = f64 ? 0x1p-53 : 0x1p-24;
            cupat_ctx *cpu = NULL;
            cupat_sparse *G = NULL;
            cupat_create(&cpu, CUPAT_BACKEND_CPU, -1);
            cupat_sparse_create_csr(cpu, &G, N, N, (size_t)rp[N], CUPAT_I32, vt, rp, ci, va, CUPAT_SPARSE_COPY);
            memcpy(want, yg, N * es);
            CHECK(cupat_spmv(cpu, G, alpha, xg, beta, want) == CUPAT_SUCCESS, "spmv reference: %s",
                  cupat_last_error(cpu));
            for (size_t i = 0; i < N; i++) {
                double sum = 0;
                for (int32_t j = rp[i]; j < rp[i + 1]; j++) {
                    const double a = f64 ? ((double *)va)[j] : ((float *)va)[j];
                    const double xv = f64 ? ((double *)xg)[ci[j]] : ((float *)xg)[ci[j]];
                    sum += fabs(a * xv);
                }
                const double yv = f64 ? ((double *)yg)[i] : ((float *)yg)[i];
                bound[i] = 2 * (double)(rp[i + 1] - rp[i] + 2) * u * (fabs(alpha) * sum + fabs(beta * yv));
            }
            /* this rank's rows (shape) and x slice (the next shape: another split) */
            const size_t r0 = cut(N, rank, shape), x0 = cut(N, rank, (shape + 1) % 3);
            const size_t nr = cut(N, rank + 1, shape) - r0, nx = cut(N, rank + 1, (shape + 1) % 3) - x0;
            int32_t *lrp = malloc((nr + 1) * sizeof *lrp);
            for (size_t i = 0; i <= nr; i++) lrp[i] = rp[r0 + i] - rp[r0];
            const size_t lnnz = (size_t)lrp[nr];
            cupat_sparse *A = NULL;
            CHECK(cupat_sparse_create_csr(ctx, &A, nr, N, lnnz, CUPAT_I32, vt, lrp, ci + rp[r0],
                                          va + (size_t)rp[r0] * es, CUPAT_SPARSE_COPY) == CUPAT_SUCCESS,
                  "local matrix: %s", cupat_last_error(ctx));
            void *x = NULL, *y = NULL;
            cupat_malloc(ctx, &x, nx * es);
            cupat_malloc(ctx, &y, nr * es);
            if (nx) cupat_memcpy(ctx, x, xg + x0 * es, nx * es);
            if (nr) cupat_memcpy(ctx, y, yg + r0 * es, nr * es);
            cupat_status s = cupat_spmv_dist(c, A, alpha, nx, x, beta, y);
            CHECK(s == CUPAT_SUCCESS, "spmv_dist %s shape %d: %s", cupat_type_name(vt), shape, cupat_last_error(ctx));
            unsigned char *got = malloc(nr * es + 8);
            if (nr) cupat_memcpy(ctx, got, y, nr * es);
            size_t bad = nr;
            for (size_t i = 0; i < nr && bad == nr; i++) {
                const double g = f64 ? ((double *)got)[i] : ((float *)got)[i];
                const double w = f64 ? ((double *)want)[r0 + i] : ((float *)want)[r0 + i];
                if (!(fabs(g - w) <= bound[r0 + i])) bad = i;
            }
            CHECK(bad == nr, "spmv_dist %s shape %d: row %zu of rank %d out of the bound", cupat_type_name(vt), shape,
                  r0 + bad, rank);
            /* bad arguments: the slices not adding up (every rank one short) */
            if (f64 && shape == 0) {
                CHECK(cupat_spmv_dist(c, A, alpha, nx ? nx - 1 : 0, x, beta, y) == CUPAT_ERROR_INVALID_VALUE,
                      "spmv_dist slices one short");
                CHECK(strstr(cupat_last_error(ctx), "add up") != NULL, "message: %s", cupat_last_error(ctx));
                CHECK(cupat_spmv_dist(c, NULL, alpha, nx, x, beta, y) == CUPAT_ERROR_NULL_POINTER, "NULL A");
                CHECK(cupat_spmv_dist(NULL, A, alpha, nx, x, beta, y) == CUPAT_ERROR_NULL_POINTER, "NULL comm");
                CHECK(cupat_spmv_dist(c, A, alpha, N + 1, x, beta, y) == CUPAT_ERROR_INVALID_VALUE, "n_x > cols");
                if (nr) CHECK(cupat_spmv_dist(c, A, alpha, nx, y, beta, y) == CUPAT_ERROR_INVALID_VALUE,
                              "y overlapping x");
                /* every rank made the same failing calls: nothing is left in flight */
            }
            free(got);
            cupat_free(ctx, x);
            cupat_free(ctx, y);
            cupat_sparse_destroy(ctx, A);
            cupat_sparse_destroy(cpu, G);
            cupat_destroy(cpu);
            free(lrp);
            free(rp);
            free(ci);
            free(va);
            free(xg);
            free(yg);
            free(want);
            free(bound);
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
    /* one rank's bad argument: every rank returns (none is left waiting in a
     * collective), the last rank with its own status, the others with the
     * same code saying another rank failed */
    {
        void *keys = NULL;
        cupat_malloc(ctx, &keys, 64 * 4);
        if (keys) cupat_memset(ctx, keys, 0, 64 * 4);
        const int bad = rank == nproc - 1;
        const cupat_status st = cupat_sort_dist(c, CUPAT_U32, CUPAT_SORT_ASCENDING, 64, bad ? NULL : keys, &out, &n_out);
        CHECK(st == CUPAT_ERROR_NULL_POINTER, "sort with NULL keys on rank %d only: %s", nproc - 1,
              cupat_status_string(st));
        if (!bad)
            CHECK(strstr(cupat_last_error(ctx), "another rank failed") != NULL, "message: %s", cupat_last_error(ctx));
        CHECK(out == NULL && n_out == 0, "no output after a failure");
        cupat_free(ctx, keys);
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

/* ------------------------------------------------------- stencil3d_dist -- */

/* own planes of rank r in split `shape`: even, uneven with a single plane on
 * rank 0, on the middle rank, on the last; more planes than a CUDA block's
 * walk in z (32) */
static size_t s3_own(int shape, int r)
{
    static const size_t own[5][3] = {{3, 3, 3}, {1, 4, 2}, {5, 1, 3}, {2, 3, 1}, {34, 40, 33}};
    return r == nproc - 1 && shape == 3 ? 1 : own[shape][r % 3];
}

/* the poison of unwritten elements: a NaN whose payload no step makes */
static void s3_poison(cupat_type t, void *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (t == CUPAT_F32) memcpy((char *)p + 4 * i, &(uint32_t){0x7fc0dead}, 4);
        else memcpy((char *)p + 8 * i, &(uint64_t){0x7ff80000deadbeefull}, 8);
    }
}

typedef struct s3_case {
    cupat_type t;
    int points;
    size_t nx, ny, pad_y, pad_z;
    int steps, shape;
    dist_s3_mode mode;
} s3_case;

static void s3_run(cupat_comm *c, const s3_case *k)
{
    const size_t es = cupat_type_size(k->t), nx = k->nx, ny = k->ny;
    const size_t ldy = nx + k->pad_y, ldz = ldy * ny + k->pad_z;
    size_t NZ = 2, off = 0;
    for (int r = 0; r < nproc; r++) {
        if (r < rank) off += s3_own(k->shape, r);
        NZ += s3_own(k->shape, r);
    }
    const size_t nz = s3_own(k->shape, rank) + 2, gbytes = NZ * ldz * es, bytes = nz * ldz * es;
    double co[27];
    for (int i = 0; i < k->points; i++) co[i] = (i % 2 ? 0.7 : -0.45) / k->points + 0.013 * (i % 5);
    /* the global grid: points from the generator, padding poisoned */
    char *g = malloc(gbytes), *g2 = malloc(gbytes), *slab = malloc(bytes), *got = malloc(bytes);
    s3_poison(k->t, g, NZ * ldz);
    s3_poison(k->t, g2, NZ * ldz);
    for (size_t z = 0; z < NZ; z++)
        for (size_t y = 0; y < ny; y++)
            for (size_t x = 0; x < nx; x++) {
                const double v = (double)(mix(x + nx * (y + ny * z) + 977 * (size_t)k->steps) % 2001) / 1000.0 - 1.0;
                const size_t p = (x + y * ldy + z * ldz) * es;
                if (k->t == CUPAT_F32) memcpy(g + p, &(float){(float)v}, 4);
                else memcpy(g + p, &v, 8);
            }
    /* this rank's slab: global planes off .. off + nz - 1, the ghost planes
     * between ranks poisoned (their contents on entry are ignored) */
    memcpy(slab, g + off * ldz * es, bytes);
    if (rank > 0) s3_poison(k->t, slab, ldz);
    if (rank < nproc - 1) s3_poison(k->t, slab + (nz - 1) * ldz * es, ldz);
    void *a = NULL, *b = NULL, *res = NULL;
    cupat_malloc(ctx, &a, bytes);
    cupat_malloc(ctx, &b, bytes);
    cupat_memcpy(ctx, a, slab, bytes);
    s3_poison(k->t, got, nz * ldz);
    cupat_memcpy(ctx, b, got, bytes);
    cupat_status s = cupat__stencil3d_dist_mode(c, k->t, nx, ny, nz, k->pad_y ? ldy : 0, k->pad_z ? ldz : 0,
                                                k->points, co, k->steps, a, b, &res, k->mode);
    CHECK(s == CUPAT_SUCCESS, "stencil3d_dist %s %d-point %zux%zu steps %d: %s", cupat_type_name(k->t), k->points,
          nx, ny, k->steps, cupat_last_error(ctx));
    CHECK(res == (k->steps % 2 ? b : a), "stencil3d_dist steps %d: result %p, a %p, b %p", k->steps, res, a, b);
    /* the whole grid on one process */
    cupat_ctx *cpu = NULL;
    cupat_create(&cpu, CUPAT_BACKEND_CPU, -1);
    void *want = NULL;
    cupat_status ws = cupat_stencil3d_run(cpu, k->t, nx, ny, NZ, ldy, ldz, k->points, co, k->steps, g, g2, &want);
    CHECK(ws == CUPAT_SUCCESS, "stencil3d_run: %s", cupat_last_error(cpu));
    if (s == CUPAT_SUCCESS && ws == CUPAT_SUCCESS && (res == a || res == b)) {
        cupat_memcpy(ctx, got, res, bytes);
        cupat_sync(ctx);
        const char *w = (const char *)want + off * ldz * es;
        size_t bad = 0, first = (size_t)-1;
        for (size_t i = 0; i < nz * ldz; i++) {
            const size_t q = i % ldz, y = q / ldy, x = q % ldy;
            const int point = y < ny && x < nx;
            /* points: the global grid's; padding: still the poison */
            const int ok = point ? !memcmp(got + i * es, w + i * es, es) : !memcmp(got + i * es, slab + i * es, es);
            if (!ok && !bad++) first = i;
        }
        CHECK(!bad, "stencil3d_dist %s %d-point %zux%zu (ldy %zu, ldz %zu) split %d, steps %d, %s: %zu of %zu "
              "elements differ on rank %d (planes %zu..%zu of %zu), first at plane %zu, y %zu, x %zu",
              cupat_type_name(k->t), k->points, nx, ny, ldy, ldz, k->shape, k->steps,
              k->mode == DIST_S3_SERIAL ? "serial" : "overlapped", bad, nz * ldz, rank, off, off + nz - 1, NZ,
              first / ldz, first % ldz / ldy, first % ldy);
    }
    cupat_destroy(cpu);
    cupat_free(ctx, a);
    cupat_free(ctx, b);
    free(g);
    free(g2);
    free(slab);
    free(got);
}

static void test_stencil3d(cupat_comm *c)
{
    const s3_case cases[] = {
        {CUPAT_F32, 7, 13, 11, 0, 0, 0, 0, DIST_S3_OVERLAP},  {CUPAT_F32, 7, 13, 11, 3, 5, 1, 1, DIST_S3_OVERLAP},
        {CUPAT_F64, 7, 12, 9, 0, 0, 2, 2, DIST_S3_OVERLAP},   {CUPAT_F32, 27, 10, 12, 2, 7, 3, 1, DIST_S3_OVERLAP},
        {CUPAT_F64, 27, 9, 10, 1, 0, 4, 3, DIST_S3_OVERLAP},  {CUPAT_F32, 7, 8, 8, 0, 3, 5, 2, DIST_S3_SERIAL},
        {CUPAT_F64, 27, 7, 6, 0, 0, 2, 3, DIST_S3_SERIAL},    {CUPAT_F64, 7, 3, 3, 1, 1, 3, 0, DIST_S3_OVERLAP},
        {CUPAT_F32, 27, 2, 5, 0, 0, 2, 1, DIST_S3_OVERLAP},   {CUPAT_F32, 27, 40, 35, 0, 0, 3, 2, DIST_S3_OVERLAP},
        {CUPAT_F32, 7, 0, 5, 0, 0, 2, 0, DIST_S3_OVERLAP},
        {CUPAT_F32, 7, 12, 10, 1, 0, 3, 4, DIST_S3_OVERLAP},  {CUPAT_F64, 27, 11, 9, 0, 2, 2, 4, DIST_S3_SERIAL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) s3_run(c, &cases[i]);

    /* bad arguments: a clear status naming the argument, no communication
     * (every rank alone); a 4^3 f32 grid unless the row says otherwise */
    enum { P_A, P_B, P_NULL, P_A64, P_A2, P_HOST }; /* what a grid argument is */
    static const struct {
        const char *what;
        cupat_type t;
        size_t nz, ldy;
        int points, no_coeffs, steps, pa, pb, no_result;
        cupat_status want;
        const char *msg;
    } bad[] = {
        {"NULL result", CUPAT_F32, 4, 0, 7, 0, 1, P_A, P_B, 1, CUPAT_ERROR_NULL_POINTER, "result is NULL"},
        {"type i32", CUPAT_I32, 4, 0, 7, 0, 1, P_A, P_B, 0, CUPAT_ERROR_INVALID_VALUE, "type = "},
        {"9 points", CUPAT_F32, 4, 0, 9, 0, 1, P_A, P_B, 0, CUPAT_ERROR_INVALID_VALUE, "points = 9"},
        {"NULL coeffs", CUPAT_F32, 4, 0, 7, 1, 1, P_A, P_B, 0, CUPAT_ERROR_NULL_POINTER, "coeffs is NULL"},
        {"nz = 2", CUPAT_F32, 2, 0, 7, 0, 1, P_A, P_B, 0, CUPAT_ERROR_INVALID_VALUE, "nz = 2"},
        {"steps -1", CUPAT_F32, 4, 0, 7, 0, -1, P_A, P_B, 0, CUPAT_ERROR_INVALID_VALUE, "steps = -1"},
        {"ldy < nx", CUPAT_F32, 4, 3, 7, 0, 1, P_A, P_B, 0, CUPAT_ERROR_INVALID_VALUE, "ldy = 3"},
        {"NULL a", CUPAT_F32, 4, 0, 7, 0, 1, P_NULL, P_B, 0, CUPAT_ERROR_NULL_POINTER, "a is NULL"},
        {"NULL b", CUPAT_F64, 4, 0, 27, 0, 1, P_A, P_NULL, 0, CUPAT_ERROR_NULL_POINTER, "b is NULL"},
        {"a and b overlap", CUPAT_F32, 4, 0, 7, 0, 1, P_A, P_A64, 0, CUPAT_ERROR_INVALID_VALUE, "overlaps a"},
        {"misaligned b", CUPAT_F32, 4, 0, 7, 0, 1, P_A, P_A2, 0, CUPAT_ERROR_INVALID_VALUE, "aligned"},
        {"host a on CUDA", CUPAT_F32, 4, 0, 7, 0, 1, P_HOST, P_B, 0, CUPAT_ERROR_HOST_POINTER, "a = "},
        {"host b on CUDA", CUPAT_F32, 4, 0, 7, 0, 1, P_A, P_HOST, 0, CUPAT_ERROR_HOST_POINTER, "b = "},
    };
    double co[27] = {0};
    void *a = NULL, *b = NULL, *res = NULL;
    cupat_malloc(ctx, &a, 1024);
    cupat_malloc(ctx, &b, 512);
    double *host = calloc(64, sizeof *host);
    const int cuda = cupat_get_backend(ctx) == CUPAT_BACKEND_CUDA;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if ((bad[i].pa == P_HOST || bad[i].pb == P_HOST) && !cuda) continue;
        void *const ptr[] = {a, b, NULL, (char *)a + 64, (char *)a + 2, host};
        cupat_status s = cupat_stencil3d_dist(c, bad[i].t, 4, 4, bad[i].nz, bad[i].ldy, 0, bad[i].points,
                                              bad[i].no_coeffs ? NULL : co, bad[i].steps, ptr[bad[i].pa],
                                              ptr[bad[i].pb], bad[i].no_result ? NULL : &res);
        CHECK(s == bad[i].want, "stencil3d_dist %s: %s (want %s)", bad[i].what, cupat_status_string(s),
              cupat_status_string(bad[i].want));
        CHECK(strstr(cupat_last_error(ctx), bad[i].msg) != NULL, "stencil3d_dist %s: message: %s", bad[i].what,
              cupat_last_error(ctx));
    }
    CHECK(cupat_stencil3d_dist(NULL, CUPAT_F32, 4, 4, 4, 0, 0, 7, co, 1, a, b, &res) == CUPAT_ERROR_NULL_POINTER,
          "stencil3d_dist NULL comm");
    CHECK(strstr(cupat_last_error(NULL), "comm is NULL") != NULL, "message: %s", cupat_last_error(NULL));
    CHECK(cupat__stencil3d_dist_mode(c, CUPAT_F32, 4, 4, 4, 0, 0, 7, co, 1, a, b, &res, (dist_s3_mode)7) ==
              CUPAT_ERROR_INVALID_VALUE,
          "stencil3d_dist mode 7");
    free(host);
    cupat_free(ctx, a);
    cupat_free(ctx, b);
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
    char done[128] = "";
    /* on CUDA each transport twice: with the direct (IPC) all-reduce where
     * the ranks share a node, and without (CUPAT_DIST_NO_IPC) */
    const int passes = b == CUPAT_BACKEND_CUDA ? 2 : 1;
    for (int k = 0; k < nt * passes; k++) {
        if (passes == 2) {
            if (k % 2) setenv("CUPAT_DIST_NO_IPC", "1", 1);
            else unsetenv("CUPAT_DIST_NO_IPC");
        }
        cupat_comm *c = NULL;
        const char *tn = ts[k / passes];
        cupat_status cs = cupat_comm_create_transport(&c, ctx, MPI_COMM_WORLD, tn);
        if (cs == CUPAT_ERROR_NOT_SUPPORTED && !only) {
            if (rank == 0 && k % passes == 0) printf("transport %s: not here (%s)\n", tn, cupat_last_error(ctx));
            continue;
        }
        if (cs != CUPAT_SUCCESS) {
            printf("rank %d: cupat_comm_create (%s): %s\n", rank, tn, cupat_last_error(ctx));
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        CHECK(cupat_comm_rank(c) == rank && cupat_comm_size(c) == nproc, "rank %d of %d", cupat_comm_rank(c),
              cupat_comm_size(c));
        CHECK(!strcmp(cupat_comm_transport(c), tn), "transport %s, asked for %s", cupat_comm_transport(c), tn);
        CHECK(cupat_comm_ctx(c) == ctx, "cupat_comm_ctx");
        test_reduce(c);
        test_sort(c);
        test_allreduce(c);
        test_allreduce_managed(c);
        test_allreduce_rounds(c);
        test_spmv(c);
        test_stencil3d(c);
        test_errors(c);
        cupat_comm_destroy(c);
        snprintf(done + strlen(done), sizeof done - strlen(done), "%s%s%s", *done ? ", " : "", tn,
                 passes == 2 ? (k % 2 ? " (staged all-reduce)" : " (direct all-reduce where it can)") : "");
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
