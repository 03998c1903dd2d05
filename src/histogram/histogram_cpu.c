/* SPDX-License-Identifier: Apache-2.0 */
/* histogram_cpu.c — the bin rule on the host, the sequential reference
 * (PMPP 9.1) and the OpenMP backend (a private histogram per thread). Built
 * with -ffp-contract=off: the f32 rule's subtraction and product round as
 * on the device. */
#include "internal.h"
#include "histogram/histogram_internal.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

static int64_t even_int(const hist_req *r, int64_t v)
{
    int64_t d = v - r->ilo;
    if (d < 0 || (uint64_t)d >= r->irange) return -1;
    uint64_t u = (uint64_t)d;
    switch (r->imode) {
    case HIST_IMODE_SHIFT: return (int64_t)(u >> r->ishift);
    case HIST_IMODE_DIV32: return (int64_t)((uint32_t)u * r->bins / (uint32_t)r->irange);
    default: return (int64_t)(u * r->bins / r->irange);
    }
}

static int64_t even_f32(const hist_req *r, float v)
{
    if (!(v >= r->flo && v < r->fhi)) return -1; /* NaN fails both */
    volatile float d = v - r->flo;                /* rounded, never fused */
    float p = d * r->fscale;
    uint32_t b = (uint32_t)p;
    return b < r->bins ? (int64_t)b : (int64_t)r->bins - 1;
}

/* The number of keys <= v: x is in bin (that - 1) when it is 1 .. bins. */
#define UPPER(K)                                                                           \
    do {                                                                                   \
        const K *k = r->keys;                                                              \
        size_t lo = 0, hi = (size_t)r->bins + 1;                                           \
        while (lo < hi) {                                                                  \
            size_t mid = lo + (hi - lo) / 2;                                               \
            if (k[mid] <= v) lo = mid + 1;                                                 \
            else hi = mid;                                                                 \
        }                                                                                  \
        return lo >= 1 && lo <= r->bins ? (int64_t)lo - 1 : -1;                            \
    } while (0)
static int64_t range_f32(const hist_req *r, float v) { UPPER(float); }
static int64_t range_int(const hist_req *r, int64_t v) { UPPER(int64_t); }
#undef UPPER

/* The float just below k (finite k). */
static float below(float k)
{
    if (k == 0.0f) return -0x1p-149f;
    uint32_t u;
    memcpy(&u, &k, 4);
    u = k > 0.0f ? u - 1 : u + 1;
    memcpy(&k, &u, 4);
    return k;
}

int cupat__hist_keys_even(const hist_req *e, const double *bd)
{
    /* The even rule is monotone in the sample and both rules cover
     * [key 0, key bins): they agree on every sample when the even rule
     * steps from b - 1 to b exactly at each key b = 1 .. bins - 1. */
    for (unsigned b = 1; b < e->bins; b++) {
        if (e->sample == CUPAT_HIST_F32) {
            float k = hist_fkey(bd[b]);
            if (even_f32(e, k) != (int64_t)b || even_f32(e, below(k)) != (int64_t)b - 1) return 0;
        } else {
            int64_t k = hist_ikey(bd[b]);
            if (even_int(e, k) != (int64_t)b || even_int(e, k - 1) != (int64_t)b - 1) return 0;
        }
    }
    return 1;
}

int64_t cupat__hist_bin(const hist_req *r, size_t i)
{
    int64_t b;
    if (r->sample == CUPAT_HIST_F32) {
        float v = ((const float *)r->x)[i];
        b = r->range ? range_f32(r, v) : even_f32(r, v);
    } else {
        int64_t v = r->sample == CUPAT_HIST_U8    ? ((const uint8_t *)r->x)[i]
                    : r->sample == CUPAT_HIST_U16 ? ((const uint16_t *)r->x)[i]
                                                  : ((const int32_t *)r->x)[i];
        b = r->range ? range_int(r, v) : even_int(r, v);
    }
    if (b < 0 || r->channels == 1) return b;
    return b + (int64_t)(i % (size_t)r->channels) * r->bins;
}

static void add_to(const hist_req *r, const uint64_t *h)
{
    if (r->out64) {
        uint64_t *o = r->counts;
        for (size_t b = 0; b < r->total; b++) o[b] = (r->accumulate ? o[b] : 0) + h[b];
    } else {
        uint32_t *o = r->counts;
        for (size_t b = 0; b < r->total; b++)
            o[b] = (uint32_t)((r->accumulate ? o[b] : 0) + h[b]); /* modulo 2^32 */
    }
}

cupat_status cupat__histogram_cpu(cupat_ctx *ctx, const hist_req *r)
{
    uint64_t *h = calloc(r->total, sizeof *h);
    if (!h) return cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY, "%s: out of host memory", r->fn);
    if (r->rung == HR_CPU_SERIAL) {
        for (size_t i = 0; i < r->n; i++) {
            int64_t b = cupat__hist_bin(r, i);
            if (b >= 0) h[b]++;
        }
        add_to(r, h);
        free(h);
        return CUPAT_SUCCESS;
    }
    /* A private histogram per thread (only as many threads as pay off: each
     * costs `total` counters to clear and to sum). */
    int nt = omp_get_max_threads();
    size_t want = r->n / ((size_t)r->total + 4096) + 1;
    if ((size_t)nt > want) nt = (int)want;
    uint64_t *priv = nt > 1 ? calloc((size_t)(nt - 1) * r->total, sizeof *priv) : NULL;
    if (nt > 1 && !priv) nt = 1;
#pragma omp parallel num_threads(nt)
    {
        int id = omp_get_thread_num(), k = omp_get_num_threads();
        uint64_t *mine = id == 0 ? h : priv + (size_t)(id - 1) * r->total;
        size_t a = r->n / (size_t)k * (size_t)id, e = id == k - 1 ? r->n : a + r->n / (size_t)k;
        for (size_t i = a; i < e; i++) {
            int64_t b = cupat__hist_bin(r, i);
            if (b >= 0) mine[b]++;
        }
#pragma omp barrier
#pragma omp for schedule(static)
        for (size_t b = 0; b < r->total; b++)
            for (int t = 1; t < k; t++) h[b] += priv[(size_t)(t - 1) * r->total + b];
    }
    free(priv);
    add_to(r, h);
    free(h);
    return CUPAT_SUCCESS;
}
