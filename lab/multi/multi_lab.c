/* SPDX-License-Identifier: Apache-2.0 */
/* multi_lab.c — the multi-GPU lab's measurements (multi.h): the timing of a
 * collective call, the agreement on errors, and the all-reduce, stencil and
 * sort rows. The link row (rank 0 and two devices) is multi_link.c. */
#include "multi/multi.h"

#include "ceilings.h"
#include "dist/dist_internal.h"
#include "dist/nccl_shim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------- helpers -- */

cupat_status lab_multi_agree(lab_multi *L, cupat_status s)
{
    int mine = s != CUPAT_SUCCESS ? L->rank : L->size, who = L->size;
    if (MPI_Allreduce(&mine, &who, 1, MPI_INT, MPI_MIN, L->world) != MPI_SUCCESS)
        return cupat__fail(L->ctx, CUPAT_ERROR_INTERNAL, "lab multi: MPI_Allreduce (errors) failed");
    if (who == L->size) return CUPAT_SUCCESS;
    struct {
        int status;
        char msg[CUPAT_ERRMSG];
    } m;
    memset(&m, 0, sizeof m);
    if (L->rank == who) {
        m.status = (int)s;
        snprintf(m.msg, sizeof m.msg, "%s", cupat_last_error(L->ctx));
    }
    if (MPI_Bcast(&m, (int)sizeof m, MPI_BYTE, who, L->world) != MPI_SUCCESS)
        return cupat__fail(L->ctx, CUPAT_ERROR_INTERNAL, "lab multi: MPI_Bcast (errors) failed");
    if (L->rank == who) return s;
    return cupat__fail(L->ctx, (cupat_status)m.status, "rank %d: %.900s", who, m.msg);
}

/* One step of a measurement (the call timed, or the work between calls). */
typedef cupat_status (*lab_multi_op)(lab_multi *L, void *state);

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* `warm` untimed calls, then L->reps timed ones of op, every rank of comm
 * taking part: prep (may be NULL) before each, then the context's stream
 * drained, a barrier, the call between two CUDA events on the stream (the
 * host's clock on the CPU backend); a call's time is the slowest rank's
 * (MPI_Allreduce MAX, which also carries "some rank failed": then every
 * rank stops at the same call). Returns this rank's own status: agree it
 * (lab_multi_agree) to learn about the others'. */
static cupat_status timed(lab_multi *L, MPI_Comm comm, int warm, lab_multi_op prep, lab_multi_op op, void *st,
                          lab_multi_time *t)
{
    memset(t, 0, sizeof *t);
    double *ms = calloc((size_t)L->reps, sizeof *ms);
    if (!ms) return cupat__fail(L->ctx, CUPAT_ERROR_OUT_OF_MEMORY, "lab multi: out of host memory");
    cudaEvent_t ev[2] = {NULL, NULL};
    cupat_status s = CUPAT_SUCCESS;
    if (L->cuda) {
        s = cupat__begin(L->ctx, "lab multi"); /* the context's device current */
        for (int k = 0; k < 2 && !s; k++) s = cupat__cuda(L->ctx, cudaEventCreate(&ev[k]), "cudaEventCreate");
    }
    cudaStream_t stream = (cudaStream_t)cupat_get_stream(L->ctx);
    int done = 0;
    for (int r = -warm; r < L->reps; r++) {
        double v[2] = {0, 0};
        if (!s && prep) s = prep(L, st);
        if (!s) s = cupat_sync(L->ctx);
        if (!s && MPI_Barrier(comm) != MPI_SUCCESS) s = cupat__fail(L->ctx, CUPAT_ERROR_INTERNAL, "MPI_Barrier failed");
        if (!s) {
            if (L->cuda) {
                s = cupat__cuda(L->ctx, cudaEventRecord(ev[0], stream), "cudaEventRecord");
                if (!s) s = op(L, st);
                if (!s) s = cupat__cuda(L->ctx, cudaEventRecord(ev[1], stream), "cudaEventRecord");
                if (!s) s = cupat__cuda(L->ctx, cudaEventSynchronize(ev[1]), "cudaEventSynchronize");
                float f = 0;
                if (!s) s = cupat__cuda(L->ctx, cudaEventElapsedTime(&f, ev[0], ev[1]), "cudaEventElapsedTime");
                v[0] = f;
            } else {
                const double t0 = MPI_Wtime();
                s = op(L, st);
                v[0] = (MPI_Wtime() - t0) * 1e3;
            }
        }
        v[1] = s != CUPAT_SUCCESS;
        double w[2];
        if (MPI_Allreduce(v, w, 2, MPI_DOUBLE, MPI_MAX, comm) != MPI_SUCCESS) {
            if (!s) s = cupat__fail(L->ctx, CUPAT_ERROR_INTERNAL, "MPI_Allreduce (times) failed");
            break;
        }
        if (w[1] != 0) break; /* some rank failed: every rank stops here */
        if (r >= 0) ms[done++] = w[0];
    }
    for (int k = 0; k < 2; k++)
        if (ev[k]) cudaEventDestroy(ev[k]);
    if (!s && done == L->reps && done > 0) {
        qsort(ms, (size_t)done, sizeof *ms, cmp_double);
        t->ms = done % 2 ? ms[done / 2] : 0.5 * (ms[done / 2 - 1] + ms[done / 2]);
        t->ms_min = ms[0];
        t->ms_max = ms[done - 1];
        t->reps = done;
    }
    free(ms);
    return s;
}

/* the time per step of a time of `steps` steps */
static lab_multi_time per_step(lab_multi_time t, int steps)
{
    t.ms /= steps;
    t.ms_min /= steps;
    t.ms_max /= steps;
    return t;
}

static cupat_status mpi_fail(lab_multi *L, const char *what)
{
    return cupat__fail(L->ctx, CUPAT_ERROR_INTERNAL, "lab multi: %s failed", what);
}

/* ----------------------------------------------------------- allreduce -- */

typedef struct ar_state {
    cupat_comm *comm;
    size_t n;
    float *x, *y, *yb;
    const nccl_api *nccl;
    double reduce_result;
} ar_state;

static cupat_status op_allreduce(lab_multi *L, void *p)
{
    ar_state *a = p;
    return cupat_allreduce_dist(a->comm, CUPAT_F32, CUPAT_OP_SUM, a->n, a->x, a->y);
}

/* the baseline: ncclAllReduce on the communicator's own NCCL handle and the
 * context's stream, or MPI_Allreduce on host buffers (the "mpi" transport) */
static cupat_status op_base(lab_multi *L, void *p)
{
    ar_state *a = p;
    if (a->nccl) {
        const int e = a->nccl->all_reduce(a->x, a->yb, a->n, NCCL_FLOAT32, NCCL_SUM, (nccl_comm_t)a->comm->nccl,
                                          (cudaStream_t)cupat_get_stream(L->ctx));
        if (e != NCCL_OK)
            return cupat__fail(L->ctx, CUPAT_ERROR_INTERNAL, "ncclAllReduce: %s", a->nccl->get_error_string(e));
        return CUPAT_SUCCESS;
    }
    if (a->n > (size_t)2147483647) return cupat__fail(L->ctx, CUPAT_ERROR_SIZE, "MPI_Allreduce: n beyond an int");
    if (MPI_Allreduce(a->x, a->yb, (int)a->n, MPI_FLOAT, MPI_SUM, L->world) != MPI_SUCCESS)
        return mpi_fail(L, "MPI_Allreduce (baseline)");
    return CUPAT_SUCCESS;
}

static cupat_status op_reduce(lab_multi *L, void *p)
{
    ar_state *a = p;
    float r = 0;
    CUPAT_TRY(cupat_reduce_dist(a->comm, CUPAT_F32, CUPAT_OP_SUM, a->n, a->x, &r));
    a->reduce_result = r;
    return CUPAT_SUCCESS;
}

/* sum over every rank's bad count, on every rank */
static cupat_status sum_bad(lab_multi *L, uint64_t *bad)
{
    uint64_t all = 0;
    if (MPI_Allreduce(bad, &all, 1, MPI_UINT64_T, MPI_SUM, L->world) != MPI_SUCCESS)
        return mpi_fail(L, "MPI_Allreduce (checks)");
    *bad = all;
    return CUPAT_SUCCESS;
}

/* sizes: 4 KiB, 16 KiB, ... up to max_bytes */
static int ar_sizes(lab_multi *L, size_t *bytes)
{
    const size_t most = !L->cuda ? (size_t)256 << 10 : L->quick ? (size_t)64 << 20 : (size_t)1 << 30;
    int k = 0;
    for (size_t b = 4096; b <= most && k < LAB_MULTI_MAX_SIZES; b *= 4) bytes[k++] = b;
    return k;
}

cupat_status lab_multi_run_allreduce(lab_multi *L, lab_multi_allreduce *o)
{
    memset(o, 0, sizeof *o);
    snprintf(o->transport, sizeof o->transport, "%s", cupat_comm_transport(L->comm));
    o->direct = L->comm->ipc;
    size_t bytes[LAB_MULTI_MAX_SIZES];
    o->nrows = ar_sizes(L, bytes);
    o->reduce_n = !L->cuda ? (size_t)1 << 16 : L->quick ? (size_t)1 << 24 : (size_t)1 << 28;
    size_t most = bytes[o->nrows - 1] / 4;
    if (o->reduce_n > most) most = o->reduce_n;

    ar_state a = {.comm = L->comm};
    /* the baseline */
    if (!strcmp(o->transport, "nccl")) {
        const char *why = NULL;
        a.nccl = cupat__nccl(&why);
        if (a.nccl && L->comm->nccl) o->base_name = "ncclAllReduce";
        else snprintf(o->why_no_base, sizeof o->why_no_base, "NCCL: %s", why ? why : "no NCCL communicator");
        if (!o->base_name) a.nccl = NULL;
    } else if (!strcmp(o->transport, "mpi")) {
        o->base_name = "MPI_Allreduce";
    } else {
        snprintf(o->why_no_base, sizeof o->why_no_base,
                 "transport %s: no NCCL communicator (ncclAllReduce runs where the transport is nccl)", o->transport);
    }
    cupat_status s = cupat_malloc(L->ctx, (void **)&a.x, most * 4);
    if (!s) s = cupat_malloc(L->ctx, (void **)&a.y, most * 4);
    if (!s && o->base_name) s = cupat_malloc(L->ctx, (void **)&a.yb, most * 4);
    if (!s) s = lab_multi_fill_ar(L->ctx, a.x, most, L->rank);
    if (!s) s = cupat_sync(L->ctx);
    s = lab_multi_agree(L, s);
    for (int k = 0; k < o->nrows && !s; k++) {
        lab_multi_ar_row *row = &o->row[k];
        row->bytes = bytes[k];
        a.n = bytes[k] / 4;
        /* poisoned outputs (NaN): an element the call leaves unwritten fails */
        s = cupat_memset(L->ctx, a.y, 0xff, bytes[k]);
        if (!s) s = timed(L, L->world, 1, NULL, op_allreduce, &a, &row->cupat);
        if (!s) s = lab_multi_check_ar(L->ctx, a.y, a.n, L->size, &row->bad_cupat);
        if (!s) s = lab_multi_agree(L, s);
        if (!s) s = sum_bad(L, &row->bad_cupat);
        if (!s && o->direct) { /* the staged form on the same buffers, for the comparison */
            uint64_t bad_staged = 0;
            row->have_staged = 1;
            L->comm->ipc = 0;
            s = cupat_memset(L->ctx, a.y, 0xff, bytes[k]);
            if (!s) s = timed(L, L->world, 1, NULL, op_allreduce, &a, &row->staged);
            L->comm->ipc = 1;
            if (!s) s = lab_multi_check_ar(L->ctx, a.y, a.n, L->size, &bad_staged);
            if (!s) s = lab_multi_agree(L, s);
            if (!s) s = sum_bad(L, &bad_staged);
            row->bad_cupat += bad_staged;
        }
        if (!s && o->base_name) {
            row->have_base = 1;
            s = cupat_memset(L->ctx, a.yb, 0xff, bytes[k]);
            if (!s) s = timed(L, L->world, 1, NULL, op_base, &a, &row->base);
            if (!s) s = lab_multi_check_ar(L->ctx, a.yb, a.n, L->size, &row->bad_base);
            if (!s) s = lab_multi_agree(L, s);
            if (!s) s = sum_bad(L, &row->bad_base);
        }
        s = lab_multi_agree(L, s);
    }
    /* cupat_reduce_dist of reduce_n elements a rank; the exact sum is known
     * (the values repeat every 17 and a whole period sums to 0) */
    if (!s) {
        a.n = o->reduce_n;
        s = timed(L, L->world, 1, NULL, op_reduce, &a, &o->reduce);
        s = lab_multi_agree(L, s);
    }
    if (!s) {
        double want = 0, mag = 0;
        for (int r = 0; r < L->size; r++) {
            for (size_t i = 0; i < 17; i++) mag += fabs(lab_multi_ar_value(r, i)) * (double)(a.n / 17);
            for (size_t i = a.n / 17 * 17; i < a.n; i++) {
                want += lab_multi_ar_value(r, i);
                mag += fabs(lab_multi_ar_value(r, i));
            }
        }
        o->reduce_got = a.reduce_result;
        o->reduce_want = want;
        /* cupat_reduce's bound for a sum, over every element and the p - 1
         * combining additions (docs/reduce.md): (n + p) eps sum |x| */
        o->reduce_bound = ((double)a.n * L->size + L->size) * 0x1p-24 * mag;
        o->reduce_ok = fabs(o->reduce_got - want) <= o->reduce_bound;
    }
    cupat_free(L->ctx, a.x);
    cupat_free(L->ctx, a.y);
    cupat_free(L->ctx, a.yb);
    return s;
}

/* ------------------------------------------------------------- stencil -- */

typedef struct st_state {
    cupat_comm *comm; /* the dist calls' communicator */
    size_t nx, ny, nz;
    int steps, points;
    double c[27];
    float *a, *b;
    void *result;
} st_state;

static cupat_status op_dist(lab_multi *L, void *p)
{
    st_state *t = p;
    return cupat_stencil3d_dist(t->comm, CUPAT_F32, t->nx, t->ny, t->nz, 0, 0, t->points, t->c, t->steps, t->a,
                                t->b, &t->result);
}

static cupat_status op_run(lab_multi *L, void *p)
{
    st_state *t = p;
    return cupat_stencil3d_run(L->ctx, CUPAT_F32, t->nx, t->ny, t->nz, 0, 0, t->points, t->c, t->steps, t->a,
                               t->b, &t->result);
}

static cupat_status op_steps(lab_multi *L, void *p)
{
    st_state *t = p;
    float *in = t->a, *out = t->b;
    for (int k = 0; k < t->steps; k++) {
        CUPAT_TRY(cupat_stencil3d(L->ctx, CUPAT_F32, t->nx, t->ny, t->nz, 0, 0, t->points, t->c, in, out));
        float *x = in;
        in = out;
        out = x;
    }
    t->result = in;
    return CUPAT_SUCCESS;
}

/* a and b for nz planes, filled with the grid from global plane z0; the
 * ghost planes a neighbour fills (`ghosts`: the slab is one of several)
 * poisoned with NaN, so a step that reads one before the exchange shows */
static cupat_status st_alloc(lab_multi *L, st_state *t, size_t nz, size_t z0, int ghosts)
{
    t->nz = nz;
    t->a = t->b = NULL;
    const size_t plane = t->nx * t->ny;
    CUPAT_TRY(cupat_malloc(L->ctx, (void **)&t->a, plane * nz * 4));
    CUPAT_TRY(cupat_malloc(L->ctx, (void **)&t->b, plane * nz * 4));
    CUPAT_TRY(lab_multi_fill_grid(L->ctx, t->a, plane * nz, z0 * plane));
    CUPAT_TRY(lab_multi_fill_grid(L->ctx, t->b, plane * nz, z0 * plane));
    for (int k = 0; ghosts && k < 2; k++) {
        float *g = k ? t->a : t->b;
        if (L->rank > 0) CUPAT_TRY(cupat_memset(L->ctx, g, 0xff, plane * 4));
        if (L->rank + 1 < L->size) CUPAT_TRY(cupat_memset(L->ctx, g + (nz - 1) * plane, 0xff, plane * 4));
    }
    return cupat_sync(L->ctx);
}

static void st_free(lab_multi *L, st_state *t)
{
    cupat_free(L->ctx, t->a);
    cupat_free(L->ctx, t->b);
    t->a = t->b = NULL;
}

/* rank r's share of `total` things (planes, keys) on p ranks, the first
 * ranks one more when p does not divide it: the count, and the global index
 * of its first thing (*first) */
static size_t part_of(size_t total, int p, int r, size_t *first)
{
    const size_t base = total / (size_t)p, extra = total % (size_t)p;
    *first = (size_t)r * base + ((size_t)r < extra ? (size_t)r : extra);
    return base + ((size_t)r < extra);
}

/* rank 0's part alone: the others wait in the agreement */
#define RANK0(L, s, ...)                                                                           \
    do {                                                                                           \
        if ((L)->rank == 0 && !(s)) { __VA_ARGS__; }                                               \
        (s) = lab_multi_agree((L), (s));                                                           \
    } while (0)

cupat_status lab_multi_run_stencil(lab_multi *L, size_t edge, size_t strong_nz, int steps, lab_multi_stencil *o)
{
    memset(o, 0, sizeof *o);
    o->edge = edge;
    o->strong_nz = strong_nz;
    o->steps = steps;
    st_state t = {.nx = edge + 2, .ny = edge + 2, .steps = steps};
    const size_t plane = t.nx * t.ny;
    cupat_status s = cupat_stencil3d_coeffs(CUPAT_STENCIL3D_HEAT, 0.1, &t.points, t.c);
    if (s) return lab_multi_agree(L, s);
    if (edge < 1 || strong_nz < (size_t)L->size) {
        s = cupat__fail(L->ctx, CUPAT_ERROR_INVALID_VALUE, "lab multi stencil: %zu interior planes on %d ranks",
                        strong_nz, L->size);
        return lab_multi_agree(L, s);
    }
    /* rank 0 alone: a communicator of its own */
    MPI_Comm solo = MPI_COMM_NULL;
    if (MPI_Comm_split(L->world, L->rank == 0 ? 0 : MPI_UNDEFINED, 0, &solo) != MPI_SUCCESS)
        return lab_multi_agree(L, mpi_fail(L, "MPI_Comm_split"));
    cupat_comm *c1 = NULL;
    RANK0(L, s, s = cupat_comm_create_transport(&c1, L->ctx, solo, L->transport));
    /* the device's copy rate, the denominator of "x copy" */
    RANK0(L, s, {
        if (L->cuda) {
            bench_ceilings ceil;
            s = bench_ceilings_measure(L->ctx, &ceil);
            if (!s) o->copy_gbs = ceil.copy_gbs;
        }
    });
    /* 1. single GPU, the library's own drivers */
    RANK0(L, s, {
        s = st_alloc(L, &t, edge + 2, 0, 0);
        if (!s) s = timed(L, MPI_COMM_SELF, 1, NULL, op_run, &t, &o->ref_run);
        if (!s) s = timed(L, MPI_COMM_SELF, 1, NULL, op_steps, &t, &o->ref_step);
        st_free(L, &t);
    });
    /* 2. weak scaling: a slab of edge planes on one rank, one on each */
    RANK0(L, s, {
        t.comm = c1;
        s = st_alloc(L, &t, edge + 2, 0, 0);
        if (!s) s = timed(L, MPI_COMM_SELF, 1, NULL, op_dist, &t, &o->weak1);
        st_free(L, &t);
    });
    if (!s) {
        t.comm = L->comm;
        s = st_alloc(L, &t, edge + 2, (size_t)L->rank * edge, 1);
        if (!s) s = timed(L, L->world, 1, NULL, op_dist, &t, &o->weakp);
        st_free(L, &t);
        s = lab_multi_agree(L, s);
    }
    /* 3. strong scaling: strong_nz interior planes on one rank, then split
     * over every rank; each rank's own planes checked against rank 0's
     * whole grid after one call of `steps` steps (checksums) */
    uint64_t *want = calloc((size_t)L->size, sizeof *want), *got = calloc((size_t)L->size, sizeof *got);
    if (!want || !got) s = cupat__fail(L->ctx, CUPAT_ERROR_OUT_OF_MEMORY, "lab multi: out of host memory");
    s = lab_multi_agree(L, s);
    RANK0(L, s, {
        t.comm = c1;
        s = st_alloc(L, &t, strong_nz + 2, 0, 0);
        if (!s) s = op_dist(L, &t);
        for (int r = 0; r < L->size && !s; r++) {
            size_t first, own = part_of(strong_nz, L->size, r, &first);
            s = lab_multi_grid_sum(L->ctx, (const float *)t.result + (first + 1) * plane, own * plane,
                                   (first + 1) * plane, &want[r]);
        }
        if (!s) s = timed(L, MPI_COMM_SELF, 0, NULL, op_dist, &t, &o->strong1);
        st_free(L, &t);
    });
    if (!s) {
        size_t first, own = part_of(strong_nz, L->size, L->rank, &first);
        uint64_t mine = 0;
        t.comm = L->comm;
        s = st_alloc(L, &t, own + 2, first, 1); /* local plane z is global plane first + z */
        if (!s) s = op_dist(L, &t);
        if (!s) s = lab_multi_grid_sum(L->ctx, (const float *)t.result + plane, own * plane, (first + 1) * plane, &mine);
        s = lab_multi_agree(L, s);
        if (!s && MPI_Gather(&mine, 1, MPI_UINT64_T, got, 1, MPI_UINT64_T, 0, L->world) != MPI_SUCCESS)
            s = mpi_fail(L, "MPI_Gather (checksums)");
        if (!s) s = timed(L, L->world, 0, NULL, op_dist, &t, &o->strongp);
        st_free(L, &t);
        s = lab_multi_agree(L, s);
    }
    if (!s && L->rank == 0) {
        o->strong_checked = 1;
        o->strong_ok = 1;
        for (int r = 0; r < L->size; r++)
            if (got[r] != want[r]) {
                if (o->strong_ok)
                    snprintf(o->strong_note, sizeof o->strong_note,
                             "rank %d's planes differ from the 1-rank grid after %d steps", r, steps);
                o->strong_ok = 0;
            }
    }
    free(want);
    free(got);
    o->ref_run = per_step(o->ref_run, steps);
    o->ref_step = per_step(o->ref_step, steps);
    o->weak1 = per_step(o->weak1, steps);
    o->weakp = per_step(o->weakp, steps);
    o->strong1 = per_step(o->strong1, steps);
    o->strongp = per_step(o->strongp, steps);
    if (c1) cupat_comm_destroy(c1);
    if (solo != MPI_COMM_NULL) MPI_Comm_free(&solo);
    return s;
}

/* ---------------------------------------------------------------- sort -- */

typedef struct sort_state {
    cupat_comm *comm;
    size_t n, n_out;
    uint32_t *keys, *out;
} sort_state;

static cupat_status op_sort_one(lab_multi *L, void *p)
{
    sort_state *t = p;
    return cupat_sort(L->ctx, CUPAT_U32, 0, CUPAT_SORT_ASCENDING, t->n, t->keys, t->out, NULL, NULL);
}

/* before each distributed call: the previous call's output freed */
static cupat_status prep_sort_dist(lab_multi *L, void *p)
{
    sort_state *t = p;
    cupat_status s = cupat_free(L->ctx, t->out);
    t->out = NULL;
    t->n_out = 0;
    return s;
}

static cupat_status op_sort_dist(lab_multi *L, void *p)
{
    sort_state *t = p;
    void *out = NULL;
    cupat_status s = cupat_sort_dist(t->comm, CUPAT_U32, CUPAT_SORT_ASCENDING, t->n, t->keys, &out, &t->n_out);
    t->out = out;
    return s;
}

cupat_status lab_multi_run_sort(lab_multi *L, size_t n, lab_multi_sort *o)
{
    memset(o, 0, sizeof *o);
    o->n = n;
    cupat_status s = CUPAT_SUCCESS;
    sort_state t = {.comm = L->comm};
    /* 1. every key on rank 0's GPU */
    RANK0(L, s, {
        lab_multi_run_facts in, out;
        t.n = n;
        s = cupat_malloc(L->ctx, (void **)&t.keys, n * 4);
        if (!s) s = cupat_malloc(L->ctx, (void **)&t.out, n * 4);
        if (!s) s = lab_multi_fill_keys(L->ctx, t.keys, n, 0);
        if (!s) s = lab_multi_key_facts(L->ctx, t.keys, n, &in);
        if (!s) s = cupat_memset(L->ctx, t.out, 0xff, n * 4);
        if (!s) s = timed(L, MPI_COMM_SELF, 1, NULL, op_sort_one, &t, &o->one);
        if (!s) s = lab_multi_key_facts(L->ctx, t.out, n, &out);
        if (!s) o->one_ok = out.descents == 0 && out.sum == in.sum;
        cupat_free(L->ctx, t.keys);
        cupat_free(L->ctx, t.out);
        t.keys = t.out = NULL;
    });
    /* 2. n / p keys a rank, sorted together */
    size_t first = 0;
    t.n = part_of(n, L->size, L->rank, &first);
    lab_multi_run_facts in = {0}, out = {0};
    if (!s) {
        s = cupat_malloc(L->ctx, (void **)&t.keys, t.n * 4);
        if (!s) s = lab_multi_fill_keys(L->ctx, t.keys, t.n, first);
        if (!s) s = lab_multi_key_facts(L->ctx, t.keys, t.n, &in);
        s = lab_multi_agree(L, s);
    }
    if (!s) {
        s = timed(L, L->world, 1, prep_sort_dist, op_sort_dist, &t, &o->dist);
        if (!s) s = lab_multi_key_facts(L->ctx, t.out, t.n_out, &out);
        s = lab_multi_agree(L, s);
    }
    if (!s) { /* the phases of one more call (same input, same output) */
        double ph[DIST_PHASES], worst[DIST_PHASES];
        L->comm->profile = 1;
        memset(L->comm->phase_ms, 0, sizeof L->comm->phase_ms);
        s = prep_sort_dist(L, &t);
        if (!s) s = op_sort_dist(L, &t);
        L->comm->profile = 0;
        memcpy(ph, L->comm->phase_ms, sizeof ph);
        s = lab_multi_agree(L, s);
        if (!s && MPI_Allreduce(ph, worst, DIST_PHASES, MPI_DOUBLE, MPI_MAX, L->world) != MPI_SUCCESS)
            s = mpi_fail(L, "MPI_Allreduce (sort phases)");
        if (!s) {
            o->phase_ms[0] = worst[DIST_PHASE_SPLIT];
            o->phase_ms[1] = worst[DIST_PHASE_EXCHANGE];
            o->phase_ms[2] = worst[DIST_PHASE_LOCAL];
            o->phase_ms[3] = worst[DIST_PHASE_MERGE];
        }
    }
    /* the check: every run sorted, the runs in rank order, every key once
     * (the counts add up, the checksums of what went in and came out agree) */
    uint64_t mine[6] = {t.n_out, out.descents, out.first, out.last, out.sum, in.sum};
    uint64_t *all = calloc((size_t)L->size * 6, sizeof *all);
    if (!s && !all) s = cupat__fail(L->ctx, CUPAT_ERROR_OUT_OF_MEMORY, "lab multi: out of host memory");
    s = lab_multi_agree(L, s);
    if (!s && MPI_Gather(mine, 6, MPI_UINT64_T, all, 6, MPI_UINT64_T, 0, L->world) != MPI_SUCCESS)
        s = mpi_fail(L, "MPI_Gather (sort facts)");
    s = lab_multi_agree(L, s);
    if (!s && L->rank == 0) {
        uint64_t count = 0, sum_out = 0, sum_in = 0, descents = 0;
        int order = 1, have = 0;
        uint64_t prev_last = 0;
        o->out_min = (size_t)-1;
        for (int r = 0; r < L->size; r++) {
            const uint64_t *f = all + 6 * (size_t)r;
            count += f[0];
            descents += f[1];
            sum_out += f[4];
            sum_in += f[5];
            if (f[0] < o->out_min) o->out_min = f[0];
            if (f[0] > o->out_max) o->out_max = f[0];
            if (!f[0]) continue;
            if (have && prev_last > f[2]) order = 0;
            prev_last = f[3];
            have = 1;
        }
        o->dist_ok = count == n && descents == 0 && order && sum_out == sum_in;
        if (count != n) snprintf(o->note, sizeof o->note, "%llu keys came out of %zu", (unsigned long long)count, n);
        else if (descents) snprintf(o->note, sizeof o->note, "%llu descents inside the runs", (unsigned long long)descents);
        else if (!order) snprintf(o->note, sizeof o->note, "a rank's run starts below the previous rank's last key");
        else if (sum_out != sum_in) snprintf(o->note, sizeof o->note, "the keys' checksum changed: not a permutation");
        if (!o->one_ok && !o->note[0]) snprintf(o->note, sizeof o->note, "cupat_sort on one GPU: output not sorted or not a permutation");
    }
    free(all);
    cupat_free(L->ctx, t.keys);
    cupat_free(L->ctx, t.out);
    return s;
}
