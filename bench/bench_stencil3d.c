/* SPDX-License-Identifier: Apache-2.0 */
/* bench_stencil3d.c — the 3D stencil ladder (PMPP 8, then temporal blocking)
 * on f32 grids with a one-point halo. No vendor library has this stencil:
 * the reference row is a copy of the same bytes.
 *
 * 512^3 f32 (CPU 128^3): one step of the 7-point heat stencil (r = 0.1) and
 * of a 27-point stencil (positive random weights summing below 1), every
 * rung through cupat_stencil3d; then 8 steps of the 7-point stencil through
 * cupat_stencil3d_run, every rung (a pinned rung runs single steps, the
 * temporal rung passes of 4 steps). --n N: a grid of about N points made a
 * cube (2^27: 512^3).
 *
 * Byte model: one read and one write of the grid a step (the minimum), so
 * the temporal rung's x copy above 100% is its effective rate beyond the
 * one-step roofline; flops: 2 x points x grid points a step. The table's
 * note gives the roofline. Checks: every rung bit for bit against the
 * documented fmaf chain, recomputed from the generator (single steps,
 * sampled rows past 256 MiB) or from a host run of the 8 steps. */
#include "harness.h"

#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *bench_roofline_note(const bench_run *run, double bytes, double flops);

enum { SEED_GRID = 91, SEED_C = 92, STEPS = 8 };

typedef struct s3_state {
    size_t n; /* edge: n^3 points, halo included */
    int points, steps;
    double c[27];
    float cf[27];
    float *a, *b;
    void *result;
    float *host;  /* the expected grid after `steps` steps (steps > 0) */
} s3_state;

static float grid_in(size_t i) { return bench_rand_f32(SEED_GRID, i, 0.0f, 1.0f); }

static cupat_status s3_prepare(bench_run *run, void *p)
{
    s3_state *st = p;
    size_t N = st->n * st->n * st->n;
    if (st->steps) /* run: a is overwritten, restore the start grid */
        CUPAT_TRY(bench_fill_f32(run, st->a, N, SEED_GRID, 0.0f, 1.0f));
    return cupat_memset(run->ctx, st->b, 0xFF, N * sizeof(float));
}

static cupat_status s3_run(bench_run *run, void *p)
{
    s3_state *st = p;
    if (!st->steps) {
        st->result = st->b;
        return cupat_stencil3d(run->ctx, CUPAT_F32, st->n, st->n, st->n, 0, 0, st->points, st->c,
                               st->a, st->b);
    }
    return cupat_stencil3d_run(run->ctx, CUPAT_F32, st->n, st->n, st->n, 0, 0, st->points, st->c,
                               st->steps, st->a, st->b, &st->result);
}

/* One point of a step over `in` (a function of the index or a host grid). */
static float step_at(const s3_state *st, const float *in, size_t x, size_t y, size_t z)
{
    const size_t n = st->n, i = x + n * (y + n * z);
    if (!x || !y || !z || x == n - 1 || y == n - 1 || z == n - 1) return in ? in[i] : grid_in(i);
    float acc = 0.0f;
    if (st->points == 7) {
        static const int d[7][3] = {{0, 0, 0}, {-1, 0, 0}, {1, 0, 0}, {0, -1, 0},
                                    {0, 1, 0}, {0, 0, -1}, {0, 0, 1}};
        for (int k = 0; k < 7; k++) {
            size_t j = (x + d[k][0]) + n * ((y + d[k][1]) + n * (z + d[k][2]));
            acc = fmaf(st->cf[k], in ? in[j] : grid_in(j), acc);
        }
        return acc;
    }
    for (int k = 0; k < 27; k++) {
        size_t j = (x + k % 3 - 1) + n * ((y + k / 3 % 3 - 1) + n * (z + k / 9 - 1));
        acc = fmaf(st->cf[k], in ? in[j] : grid_in(j), acc);
    }
    return acc;
}

/* A chunk is one x-row. */
static void s3_expect(void *p, size_t start, size_t len, double *e, double *tol)
{
    const s3_state *st = p;
    for (size_t k = 0; k < len; k++) {
        size_t i = start + k, x = i % st->n, y = i / st->n % st->n, z = i / st->n / st->n;
        e[k] = st->steps ? st->host[i] : step_at(st, NULL, x, y, z);
        tol[k] = 0;
    }
}

static cupat_status s3_check(bench_run *run, void *p, int strict, bench_check *chk)
{
    (void)strict;
    s3_state *st = p;
    return bench_verify_f32(run, st->result, st->n * st->n * st->n, st->n, s3_expect, st, chk);
}

/* st->host = `steps` steps from the start grid (host, OpenMP over planes). */
static cupat_status host_steps(bench_run *run, s3_state *st)
{
    const size_t n = st->n, N = n * n * n;
    float *u = malloc(N * sizeof *u), *v = malloc(N * sizeof *v);
    if (!u || !v) {
        free(u);
        free(v);
        return bench_fail(run, CUPAT_ERROR_OUT_OF_MEMORY, "bench stencil3d: out of host memory");
    }
    for (size_t i = 0; i < N; i++) u[i] = grid_in(i);
    for (int s = 0; s < st->steps; s++) {
#pragma omp parallel for schedule(static)
        for (long long z = 0; z < (long long)n; z++)
            for (size_t y = 0; y < n; y++)
                for (size_t x = 0; x < n; x++) v[x + n * (y + n * (size_t)z)] = step_at(st, u, x, y, (size_t)z);
        float *t = u;
        u = v;
        v = t;
    }
    free(v);
    st->host = u;
    return CUPAT_SUCCESS;
}

cupat_status bench_stencil3d_cases(bench_run *run, const bench_size *size)
{
    s3_state st;
    memset(&st, 0, sizeof st);
    st.n = run->backend == CUPAT_BACKEND_CUDA ? 512 : 128;
    if (size && size->n) {
        size_t e = (size_t)cbrt((double)size->n);
        while (e > 0 && e * e * e > size->n) e--;
        while ((e + 1) * (e + 1) * (e + 1) <= size->n) e++;
        st.n = e;
    }
    if (st.n < 3)
        return bench_fail(run, CUPAT_ERROR_INVALID_VALUE,
                          "bench stencil3d: --n gives a %zu^3 grid; at least 3^3 (27 points)", st.n);
    const size_t N = st.n * st.n * st.n;
    cupat_status s = cupat_malloc(run->ctx, (void **)&st.a, N * sizeof(float));
    if (!s) s = cupat_malloc(run->ctx, (void **)&st.b, N * sizeof(float));
    if (!s) s = bench_fill_f32(run, st.a, N, SEED_GRID, 0.0f, 1.0f);
    for (int t = 0; !s && t < 3; t++) {
        bench_case c = {0};
        st.points = t == 1 ? 27 : 7;
        st.steps = t == 2 ? STEPS : 0;
        if (st.points == 7) {
            int pts;
            s = cupat_stencil3d_coeffs(CUPAT_STENCIL3D_HEAT, 0.1, &pts, st.c);
        } else {
            for (int k = 0; k < 27; k++) st.c[k] = bench_rand_f32(SEED_C, (uint64_t)k, 0.0f, 1.0f) / 28.0;
        }
        for (int k = 0; k < st.points; k++) st.cf[k] = (float)st.c[k];
        if (!s && st.steps) s = host_steps(run, &st);
        if (s) break;
        c.pattern = "stencil3d";
        if (st.steps)
            snprintf(c.label, sizeof c.label, "%zu^3 f32 7-point heat, %d steps (cupat_stencil3d_run)",
                     st.n, st.steps);
        else
            snprintf(c.label, sizeof c.label, "%zu^3 f32 %d-point, one step", st.n, st.points);
        const double steps = st.steps ? st.steps : 1;
        c.bytes = 2.0 * (double)N * sizeof(float) * steps;
        c.flops = 2.0 * st.points * (double)N * steps;
        c.bound = BENCH_BOUND_COPY;
        c.state = &st;
        c.prepare = s3_prepare;
        c.run = s3_run;
        c.check = s3_check;
        c.memcpy_ref = 1;
        c.note = bench_roofline_note(run, c.bytes, c.flops);
        s = bench_run_case(run, &c);
        free(st.host);
        st.host = NULL;
    }
    cupat_sync(run->ctx);
    cupat_free(run->ctx, st.a);
    cupat_free(run->ctx, st.b);
    return s;
}
