/* SPDX-License-Identifier: Apache-2.0 */
/* bench_stencil1d.c — the 1D stencil ladder (PCCP 5.5): global memory, shared
 * memory with halo, coefficients in constant memory, through the read-only
 * cache, and the best rung, at radius 4 (the book's 9-point stencil) and 8.
 * No vendor library has a 1D stencil: the reference is a copy of the bytes. */
#include "harness.h"

#include <math.h>
#include <string.h>

enum { SEED_X = 31 };

typedef struct st_state {
    size_t n;
    int radius;
    float c[17];
    float *in, *out;
} st_state;

static float in_x(size_t i)
{
    return bench_rand_f32(SEED_X, i, -1.0f, 2.0f);
}

static cupat_status st_poison(bench_run *run, void *p)
{
    st_state *st = p;
    return cupat_memset(run->ctx, st->out, 0xFF, st->n * sizeof(float));
}

static cupat_status st_run(bench_run *run, void *p)
{
    st_state *st = p;
    return cupat_stencil1d(run->ctx, st->n, st->radius, st->c, st->in, st->out);
}

/* Every rung promises the same fmaf chain as this loop: tolerance 0. */
static void st_expect(void *p, size_t start, size_t len, double *e, double *tol)
{
    const st_state *st = p;
    const size_t r = (size_t)st->radius;
    for (size_t k = 0; k < len; k++) {
        size_t i = start + k;
        float acc = 0.0f;
        for (size_t j = 0; j <= 2 * r; j++) {
            float x = (i + j >= r && i + j - r < st->n) ? in_x(i + j - r) : 0.0f;
            acc = fmaf(st->c[j], x, acc);
        }
        e[k] = acc;
        tol[k] = 0;
    }
}

static cupat_status st_check(bench_run *run, void *p, int strict, bench_check *chk)
{
    (void)strict;
    st_state *st = p;
    return bench_verify_f32(run, st->out, st->n, (size_t)1 << 16, st_expect, st, chk);
}

/* Default 2^28 floats on the GPU (1 GiB in, 1 GiB out), 2^24 on the CPU. */
cupat_status bench_stencil1d_cases(bench_run *run, const bench_size *size)
{
    static const int radii[] = {4, 8};
    st_state st = {0};
    st.n = size && size->n ? size->n : run->backend == CUPAT_BACKEND_CUDA ? (size_t)1 << 28
                                                                          : (size_t)1 << 24;
    cupat_status s = cupat_malloc(run->ctx, (void **)&st.in, st.n * sizeof(float));
    if (!s) s = cupat_malloc(run->ctx, (void **)&st.out, st.n * sizeof(float));
    if (!s) s = bench_fill_f32(run, st.in, st.n, SEED_X, -1.0f, 2.0f);
    for (size_t k = 0; !s && k < sizeof radii / sizeof radii[0]; k++) {
        bench_case c = {0};
        char n[32];
        st.radius = radii[k];
        /* PCCP's first-derivative weights scaled to a symmetric window:
         * antisymmetric, any values would do. */
        for (int j = 0; j <= 2 * st.radius; j++)
            st.c[j] = (float)(j - st.radius) / (float)(st.radius * (st.radius + 1));
        c.pattern = "stencil1d";
        snprintf(c.label, sizeof c.label, "n=%s f32, radius %d",
                 bench_fmt_count(n, sizeof n, st.n), st.radius);
        c.bytes = 2.0 * (double)st.n * sizeof(float);
        c.flops = 2.0 * (2 * st.radius + 1) * (double)st.n;
        c.bound = BENCH_BOUND_COPY;
        c.state = &st;
        c.prepare = st_poison;
        c.run = st_run;
        c.check = st_check;
        c.memcpy_ref = 1;
        s = bench_run_case(run, &c);
    }
    cupat_sync(run->ctx);
    cupat_free(run->ctx, st.in);
    cupat_free(run->ctx, st.out);
    return s;
}
