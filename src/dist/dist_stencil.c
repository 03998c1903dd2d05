/* SPDX-License-Identifier: Apache-2.0 */
/* dist_stencil.c — cupat_stencil3d_dist: a 3D stencil over a grid cut into
 * slabs of z planes, one a rank, with a halo exchange every step that hides
 * behind the interior's computation (PMPP 20.3-20.4).
 *
 * A rank's slab holds nz planes: 1 .. nz - 2 its own, 0 and nz - 1 ghost
 * planes (copies of the neighbours' outermost own planes; on rank 0 and on
 * the last rank the global halo planes, fixed). A step from `in` to `out`:
 *   1. on the communicator's second stream (cupat__dist_side; high
 *      priority, so its blocks go ahead of the interior's): the boundary
 *      planes the neighbours need, own planes 1 (sent down) and nz - 2
 *      (sent up);
 *   2. on the context's stream: everything else this rank writes (the
 *      interior planes 2 .. nz - 3, and the global halo plane it holds,
 *      copied as cupat_stencil3d copies halo points);
 *   3. on the second stream, after 1: the exchange (cupat__dist_exchange):
 *      plane 1 of out to rank - 1's plane nz - 1 of out, plane nz - 2 to
 *      rank + 1's plane 0, and the same from them into our ghost planes;
 *   4. the context's stream waits for the second (an event), out becomes in.
 * 2 runs while 1 and 3 do: the exchange is hidden when it takes less than
 * the interior. The next step's boundary planes need this step's interior
 * (plane 2 is plane 1's neighbour), so the second stream waits for the
 * context's stream at the start of each step. Nothing waits on the host
 * between steps on the NCCL transport; the staged transport waits for the
 * boundary planes (the interior keeps running on the device meanwhile) and
 * moves the data through host memory; the CPU backend runs 1, 3, 2 in turn.
 *
 * Each part is one pass of the default rung over a window of planes
 * (cupat__stencil3d_window), the fastest single step: the
 * same chain of fma per point as every rung, so the slabs equal
 * cupat_stencil3d_run on the whole grid bit for bit. The temporal rung
 * (several steps a pass, what cupat_stencil3d_run takes on one GPU) cannot
 * run here: T steps a pass need T ghost planes a side refreshed every T
 * steps, and the planes near the slab's edge recomputed on both ranks; with
 * one ghost plane exchanged every step each step is one pass.
 *
 * Before the first step the ghost planes of a are filled by one exchange
 * (their contents on entry are ignored), so after any number of steps,
 * 0 included, the whole slab (ghost planes too) equals the global grid's
 * planes off - 1 .. off + nz - 2, off counting the own planes of the ranks
 * below. */
#include "dist/dist_internal.h"
#include "dist/dist_stencil.h"
#include "stencil3d/stencil3d_internal.h"

/* A rank's slab and its place among the others. */
typedef struct s3_slab {
    cupat_comm *c;
    s3_req r;          /* the whole slab (ldy, ldz resolved) */
    size_t pitch;      /* bytes from one plane to the next */
    size_t span;       /* bytes of one plane's points (its rows and their padding) */
    int down, up;      /* neighbours below (rank - 1) and above (rank + 1) */
    size_t bnd[2][2];  /* the boundary windows [z0, z1) (nb of them) */
    int nb;
    size_t in0, in1;   /* the rest this rank writes: [in0, in1), may be empty */
} s3_slab;

static char *plane(const s3_slab *s, void *g, size_t z) { return (char *)g + z * s->pitch; }

/* The planes a step writes. Own planes 1 .. nz - 2; a global halo plane the
 * rank holds is written too (copied). The boundary planes come first: one
 * window when they touch (nz = 3: the same plane, nz = 4: side by side). */
static void windows(s3_slab *s)
{
    const size_t nz = s->r.nz;
    s->in0 = s->down ? 1 : 0;
    s->in1 = s->up ? nz - 1 : nz;
    s->nb = 0;
    if (s->down && s->up && nz <= 4) {
        s->bnd[s->nb][0] = 1, s->bnd[s->nb++][1] = nz - 1;
        s->in0 = s->in1 = 0;
        return;
    }
    if (s->down) {
        s->bnd[s->nb][0] = 1, s->bnd[s->nb++][1] = 2;
        s->in0 = 2;
    }
    if (s->up) {
        s->bnd[s->nb][0] = nz - 2, s->bnd[s->nb++][1] = nz - 1;
        s->in1 = nz - 2;
    }
    if (s->in1 < s->in0) s->in1 = s->in0;
}

/* Planes [z0, z1) of one step from in to out on stream. */
static cupat_status part(const s3_slab *s, size_t z0, size_t z1, cudaStream_t stream,
                         const void *in, void *out)
{
    s3_req r = s->r;
    r.z0 = z0, r.z1 = z1;
    return cupat__stencil3d_window(s->c->ctx, &r, stream, in, out);
}

static cupat_status boundary(const s3_slab *s, cudaStream_t stream, const void *in, void *out)
{
    for (int i = 0; i < s->nb; i++)
        CUPAT_TRY(part(s, s->bnd[i][0], s->bnd[i][1], stream, in, out));
    return CUPAT_SUCCESS;
}

/* g's ghost planes from the neighbours, g's outermost own planes to them. */
static cupat_status exchange(const s3_slab *s, const char *fn, void *g, cudaStream_t stream)
{
    const size_t nz = s->r.nz;
    dist_xfer x[2];
    int n = 0;
    if (s->down)
        x[n++] = (dist_xfer){s->c->rank - 1, plane(s, g, 1), s->span, plane(s, g, 0), s->span};
    if (s->up)
        x[n++] = (dist_xfer){s->c->rank + 1, plane(s, g, nz - 2), s->span, plane(s, g, nz - 1),
                             s->span};
    return n ? cupat__dist_exchange(s->c, fn, n, x, stream) : CUPAT_SUCCESS;
}

/* `to` waits for the work queued on `from` so far. */
static cupat_status order_after(cupat_ctx *ctx, cudaEvent_t ev, cudaStream_t from, cudaStream_t to)
{
    CUPAT_CUDA_TRY(ctx, cudaEventRecord(ev, from));
    CUPAT_CUDA_TRY(ctx, cudaStreamWaitEvent(to, ev, 0));
    return CUPAT_SUCCESS;
}

/* The ghost planes of a, then `steps` steps; *result: the last grid. With
 * `overlap`, the boundary planes and the exchanges run on the
 * communicator's second stream (c->side, joined by c->ev). */
static cupat_status run(const s3_slab *s, const char *fn, int steps, void *a, void *b, int overlap,
                        void **result)
{
    cupat_comm *c = s->c;
    cupat_ctx *ctx = c->ctx;
    cudaStream_t ms = ctx->stream, side = overlap ? c->side : ms;
    /* every exchange on one stream: the transport's operations stay in one
     * order on one stream */
    if (overlap) CUPAT_TRY(order_after(ctx, c->ev[0], ms, side));
    CUPAT_TRY(exchange(s, fn, a, side));
    void *cur = a, *nxt = b;
    for (int t = 0; t < steps; t++) {
        if (overlap) {
            CUPAT_TRY(order_after(ctx, c->ev[0], ms, side));
            CUPAT_TRY(boundary(s, side, cur, nxt));
            CUPAT_TRY(part(s, s->in0, s->in1, ms, cur, nxt));
            /* queued after the interior: a transport that waits on the host
             * (staged) waits for the boundary planes while the interior runs */
            CUPAT_TRY(exchange(s, fn, nxt, side));
            CUPAT_TRY(order_after(ctx, c->ev[1], side, ms));
        } else {
            CUPAT_TRY(boundary(s, ms, cur, nxt));
            CUPAT_TRY(exchange(s, fn, nxt, ms));
            CUPAT_TRY(part(s, s->in0, s->in1, ms, cur, nxt));
        }
        void *w = cur;
        cur = nxt, nxt = w;
    }
    if (overlap && !steps) CUPAT_TRY(order_after(ctx, c->ev[1], side, ms));
    *result = cur;
    return CUPAT_SUCCESS;
}

cupat_status cupat__stencil3d_dist_mode(cupat_comm *comm, cupat_type type, size_t nx, size_t ny,
                                        size_t nz, size_t ldy, size_t ldz, int points,
                                        const double *coeffs, int steps, void *a, void *b,
                                        void **result, dist_s3_mode mode)
{
    static const char fn[] = "cupat_stencil3d_dist";
    CUPAT_TRY(cupat__dist_begin(comm, fn));
    cupat_ctx *ctx = comm->ctx;
    if (!result) return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "%s: result is NULL", fn);
    *result = a;
    if (steps < 0)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "%s: steps = %d (must be >= 0)", fn,
                           steps);
    if (mode != DIST_S3_OVERLAP && mode != DIST_S3_SERIAL)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "%s: mode = %d", fn, (int)mode);
    s3_slab s = {.c = comm};
    size_t bytes;
    CUPAT_TRY(cupat__stencil3d_check_grid(ctx, fn, type, nx, ny, nz, ldy, ldz, points, coeffs,
                                          &s.r, &bytes));
    if (nz < 3)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: nz = %zu on rank %d: a slab has at least 3 planes (a ghost plane "
                           "each side and one of its own)",
                           fn, nz, comm->rank);
    const size_t es = s.r.f64 ? 8 : 4;
    CUPAT_TRY(cupat__stencil3d_check_buf(ctx, fn, "a", a, bytes, es));
    CUPAT_TRY(cupat__stencil3d_check_buf(ctx, fn, "b", b, bytes, es));
    CUPAT_TRY(cupat__check_disjoint(ctx, fn, "b", cupat__extent1(b, bytes), "a",
                                    cupat__extent1(a, bytes), NULL));
    /* nx or ny 0 (the same on every rank): no points, nothing to send */
    if (bytes == 0) return CUPAT_SUCCESS;
    s.pitch = s.r.ldz * es;
    s.span = ((ny - 1) * s.r.ldy + nx) * es;
    s.down = comm->rank > 0;
    s.up = comm->rank < comm->size - 1;
    windows(&s);

    /* the second stream where it can overlap: CUDA, a neighbour */
    const int overlap =
        mode == DIST_S3_OVERLAP && ctx->backend == CUPAT_BACKEND_CUDA && (s.down || s.up);
    if (overlap) CUPAT_TRY(cupat__dist_side(comm));
    return run(&s, fn, steps, a, b, overlap, result);
}

cupat_status cupat_stencil3d_dist(cupat_comm *comm, cupat_type type, size_t nx, size_t ny,
                                  size_t nz, size_t ldy, size_t ldz, int points,
                                  const double *coeffs, int steps, void *a, void *b,
                                  void **result)
{
    return cupat__stencil3d_dist_mode(comm, type, nx, ny, nz, ldy, ldz, points, coeffs, steps, a,
                                      b, result, DIST_S3_OVERLAP);
}
