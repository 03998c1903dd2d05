/* SPDX-License-Identifier: Apache-2.0 */
/* atomics_lab.c — the experiments of `cupat lab atomics`: argument checks,
 * the host models the GPU's results are held against, and the runs (device
 * buffers, copies back, checks of the timed counters). The kernels are in
 * atomics.cu. */
#include "atomics/atomics.h"

#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const method_names[LAB_ATOM_NMETHODS] = {
    [LAB_ATOM_PLAIN] = "plain",
    [LAB_ATOM_ATOMIC] = "atomicAdd",
    [LAB_ATOM_PRIVATE] = "privatized",
    [LAB_ATOM_CAS] = "CAS loop",
};
static const char *const method_codes[LAB_ATOM_NMETHODS] = {
    [LAB_ATOM_PLAIN] = "c[a] = c[a] + 1 (volatile: a load and a store)",
    [LAB_ATOM_ATOMIC] = "atomicAdd(&c[a], 1)",
    [LAB_ATOM_PRIVATE] = "atomicAdd(&shared[a], 1); then atomicAdd(&c[a], shared[a]) once a block",
    [LAB_ATOM_CAS] = "do old = atomicCAS(&c[a], seen, seen + 1) until old == seen",
};

const char *lab_atomics_method_name(int m)
{
    return m >= 0 && m < LAB_ATOM_NMETHODS ? method_names[m] : NULL;
}

const char *lab_atomics_method_code(int m)
{
    return m >= 0 && m < LAB_ATOM_NMETHODS ? method_codes[m] : NULL;
}

static cupat_status need_cuda(cupat_ctx *ctx)
{
    if (cupat_get_backend(ctx) != CUPAT_BACKEND_CUDA)
        return cupat__fail(ctx, CUPAT_ERROR_NOT_SUPPORTED, "lab atomics: the experiments need the CUDA backend");
    return CUPAT_SUCCESS;
}

/* ------------------------------------------------ the race and its fixes -- */

uint64_t lab_atomics_race_expected(int addresses, unsigned blocks, unsigned threads,
                                   unsigned per_thread, int a)
{
    const uint64_t t = (uint64_t)blocks * threads, A = (uint64_t)addresses;
    return (t / A + ((uint64_t)a < t % A)) * per_thread;
}

cupat_status lab_atomics_race(cupat_ctx *ctx, int method, int addresses, unsigned blocks,
                              unsigned threads, unsigned per_thread, uint32_t *counts)
{
    if (!ctx) return cupat__fail(NULL, CUPAT_ERROR_INVALID_VALUE, "lab atomics: ctx is NULL");
    if (method < 0 || method >= LAB_ATOM_NMETHODS)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab atomics: method = %d", method);
    if (addresses < 1 || addresses > LAB_ATOM_MAX_ADDRESSES)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab atomics: addresses = %d (1 to %d)",
                           addresses, LAB_ATOM_MAX_ADDRESSES);
    if (threads < 32 || threads > 1024 || threads % 32)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "lab atomics: threads = %u (32 to 1024, a multiple of 32)", threads);
    if (blocks < 1 || blocks > (1u << 22))
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab atomics: blocks = %u (1 to 2^22)", blocks);
    if (per_thread < 1)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab atomics: per_thread = 0");
    if (lab_atomics_race_expected(addresses, blocks, threads, per_thread, 0) > UINT32_MAX)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "lab atomics: blocks x threads x per_thread / addresses = %llu does not fit a u32 counter",
                           (unsigned long long)lab_atomics_race_expected(addresses, blocks, threads, per_thread, 0));
    if (!counts) return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab atomics: counts is NULL");
    CUPAT_TRY(need_cuda(ctx));
    uint32_t *d = NULL;
    const size_t bytes = sizeof(uint32_t) * (size_t)addresses;
    cupat_status s = cupat_malloc(ctx, (void **)&d, bytes);
    if (!s) s = cupat_memset(ctx, d, 0, bytes);
    if (!s) s = cupat__lab_atom_race(ctx, method, addresses, blocks, threads, per_thread, d);
    if (!s) s = cupat_memcpy(ctx, counts, d, bytes);
    if (!s) s = cupat_sync(ctx);
    if (d) cupat_free(ctx, d);
    return s;
}

/* --------------------------------------------- custom atomics on atomicCAS -- */

static uint32_t bits_of(float x)
{
    uint32_t u;
    memcpy(&u, &x, 4);
    return u;
}

static float float_of(uint32_t u)
{
    float x;
    memcpy(&x, &u, 4);
    return x;
}

uint32_t lab_atomics_f32_key(float x)
{
    const uint32_t u = bits_of(x);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

static float extreme_host(const float *x, size_t n, int max)
{
    float best = float_of(0x7fc00000u); /* no value yet */
    for (size_t i = 0; i < n; i++) {
        if (isnan(x[i])) continue;
        if (isnan(best) || (max ? lab_atomics_f32_key(x[i]) > lab_atomics_f32_key(best)
                                : lab_atomics_f32_key(x[i]) < lab_atomics_f32_key(best)))
            best = x[i];
    }
    return best;
}

float lab_atomics_f32_max_host(const float *x, size_t n)
{
    return extreme_host(x, n, 1);
}

float lab_atomics_f32_min_host(const float *x, size_t n)
{
    return extreme_host(x, n, 0);
}

uint64_t lab_atomics_argmax_pack(float v, uint32_t index)
{
    if (isnan(v)) return 0;
    return ((uint64_t)lab_atomics_f32_key(v) << 32) | (uint32_t)~index;
}

int64_t lab_atomics_argmax_index(uint64_t packed)
{
    return packed ? (int64_t)(uint32_t)~(uint32_t)packed : -1;
}

float lab_atomics_argmax_value(uint64_t packed)
{
    if (!packed) return float_of(0x7fc00000u);
    const uint32_t k = (uint32_t)(packed >> 32);
    return float_of((k & 0x80000000u) ? (k & 0x7fffffffu) : ~k); /* the key's inverse */
}

uint64_t lab_atomics_argmax_host(const float *x, size_t n)
{
    uint64_t best = 0;
    for (size_t i = 0; i < n; i++) {
        const uint64_t p = lab_atomics_argmax_pack(x[i], (uint32_t)i);
        if (p > best) best = p;
    }
    return best;
}

/* splitmix64: the same inputs on every machine */
static uint64_t mix(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static float unit(uint64_t seed, size_t i) /* [0, 1) */
{
    return (float)(mix(seed * 0x100000001B3ull + i) >> 40) * 0x1p-24f;
}

static const char *const case_names[LAB_ATOM_NCASES] = {
    [LAB_ATOM_CASE_UNIFORM] = "uniform in [-1, 1)",
    [LAB_ATOM_CASE_NEGATIVE] = "negative only, [-1000, -1)",
    [LAB_ATOM_CASE_ZEROS] = "-0 and +0 only",
    [LAB_ATOM_CASE_NAN] = "1 in 8 NaN (both signs), one +inf and one -inf",
    [LAB_ATOM_CASE_ALL_NAN] = "every value NaN",
    [LAB_ATOM_CASE_TIES] = "i % 7: the maximum 6 at indexes 6, 13, 20, ...",
};

const char *lab_atomics_case(int c, float *x, size_t n)
{
    if (c < 0 || c >= LAB_ATOM_NCASES) return NULL;
    if (!x) return case_names[c];
    for (size_t i = 0; i < n; i++) {
        const float u = unit((uint64_t)c + 1, i);
        switch (c) {
        case LAB_ATOM_CASE_UNIFORM: x[i] = 2.0f * u - 1.0f; break;
        case LAB_ATOM_CASE_NEGATIVE: x[i] = -1.0f - 999.0f * u; break;
        case LAB_ATOM_CASE_ZEROS: x[i] = u < 0.5f ? -0.0f : 0.0f; break;
        case LAB_ATOM_CASE_NAN:
            x[i] = 2.0f * u - 1.0f;
            if (mix(i * 31 + 7) % 8 == 0) x[i] = float_of(mix(i) % 2 ? 0xffc00000u : 0x7fc00001u);
            break;
        case LAB_ATOM_CASE_ALL_NAN: x[i] = float_of(i % 2 ? 0xffc00000u : 0x7fc00000u); break;
        case LAB_ATOM_CASE_TIES: x[i] = (float)(i % 7); break;
        }
    }
    if (c == LAB_ATOM_CASE_NAN && n >= 4) {
        x[n / 3] = INFINITY;
        x[n / 2] = -INFINITY;
    }
    return case_names[c];
}

cupat_status lab_atomics_custom(cupat_ctx *ctx, const float *x, size_t n, float *max_out,
                                float *min_out, uint64_t *argmax_out)
{
    if (!ctx) return cupat__fail(NULL, CUPAT_ERROR_INVALID_VALUE, "lab atomics: ctx is NULL");
    if (n < 1 || n > UINT32_MAX)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab atomics: n = %zu (1 to 2^32 - 1)", n);
    if (!x || !max_out || !min_out || !argmax_out)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab atomics: %s is NULL",
                           !x ? "x" : !max_out ? "max_out" : !min_out ? "min_out" : "argmax_out");
    CUPAT_TRY(need_cuda(ctx));
    float *dx = NULL;
    uint32_t *dr = NULL; /* max, min, then the 64-bit argmax at dr + 2 */
    uint32_t r[4];
    cupat_status s = cupat_malloc(ctx, (void **)&dx, n * sizeof(float));
    if (!s) s = cupat_malloc(ctx, (void **)&dr, sizeof r);
    if (!s) s = cupat_memcpy(ctx, dx, x, n * sizeof(float));
    if (!s) s = cupat__lab_atom_custom(ctx, dx, n, dr, dr + 1, (unsigned long long *)(void *)(dr + 2));
    if (!s) s = cupat_memcpy(ctx, r, dr, sizeof r);
    if (!s) s = cupat_sync(ctx);
    if (!s) {
        *max_out = float_of(r[0]);
        *min_out = float_of(r[1]);
        memcpy(argmax_out, r + 2, 8);
    }
    if (dx) cupat_free(ctx, dx);
    if (dr) cupat_free(ctx, dr);
    return s;
}

/* ---------------------------------------------- throughput vs contention -- */

#define RATE_THREADS 1024u

static int cmp_f(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

cupat_status lab_atomics_rate_run(cupat_ctx *ctx, int where, unsigned spread, unsigned blocks,
                                  unsigned iters, int reps, lab_atomics_rate *out)
{
    if (!ctx) return cupat__fail(NULL, CUPAT_ERROR_INVALID_VALUE, "lab atomics: ctx is NULL");
    if (where != LAB_ATOM_GLOBAL && where != LAB_ATOM_SHARED)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab atomics: where = %d", where);
    if (spread > RATE_THREADS)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab atomics: spread = %u (1 to 1024, or 0: all)",
                           spread);
    if (blocks < 1 || blocks > (1u << 20))
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab atomics: blocks = %u (1 to 2^20)", blocks);
    if (iters < 1) return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab atomics: iters = 0");
    if ((uint64_t)blocks * RATE_THREADS * iters > UINT32_MAX)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "lab atomics: blocks x 1024 x iters = %llu updates does not fit a u32 counter",
                           (unsigned long long)blocks * RATE_THREADS * iters);
    if (reps < 1 || reps > 1000)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab atomics: reps = %d (1 to 1000)", reps);
    if (!out) return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab atomics: out is NULL");
    CUPAT_TRY(need_cuda(ctx));
    memset(out, 0, sizeof *out);

    /* Counters: global, every thread its own: one a thread; global, spread:
     * spread; shared: 1024 (each block adds its counters at its end). */
    const int all = spread == LAB_ATOM_SPREAD_ALL;
    const size_t ncounts = where == LAB_ATOM_SHARED ? RATE_THREADS
                           : all                   ? (size_t)blocks * RATE_THREADS
                                                   : spread;
    uint32_t *d = NULL, *h = malloc(ncounts * sizeof *h);
    float *t = malloc((size_t)reps * sizeof *t);
    cupat_status s = h && t ? CUPAT_SUCCESS
                            : cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY, "lab atomics: out of host memory");
    if (!s) s = cupat_malloc(ctx, (void **)&d, ncounts * sizeof *d);
    if (!s) s = cupat__lab_atom_rate(ctx, where, spread, blocks, iters, reps, d, ncounts, t);
    if (!s) s = cupat_memcpy(ctx, h, d, ncounts * sizeof *d);
    if (!s) s = cupat_sync(ctx);
    if (!s) {
        qsort(t, (size_t)reps, sizeof *t, cmp_f);
        out->ms = reps % 2 ? t[reps / 2] : 0.5 * (t[reps / 2 - 1] + t[reps / 2]);
        out->updates = (double)blocks * RATE_THREADS * iters;
        out->per_s = out->ms > 0 ? out->updates / (out->ms * 1e-3) : 0.0;
        out->ok = 1;
        /* Each counter exactly: the shape of the grid tells how many threads
         * map to it (global: over the grid; shared: over a block, x blocks). */
        const unsigned sp = all ? (where == LAB_ATOM_SHARED ? RATE_THREADS : 0) : spread;
        for (size_t a = 0; a < ncounts && out->ok; a++) {
            uint64_t e;
            if (where == LAB_ATOM_SHARED) /* 1024 counters; those past the spread stay 0 */
                e = a < sp ? (uint64_t)blocks * lab_atomics_race_expected((int)sp, 1, RATE_THREADS, iters, (int)a)
                           : 0;
            else if (all) e = iters;
            else e = lab_atomics_race_expected((int)sp, blocks, RATE_THREADS, iters, (int)a);
            if (h[a] != e) {
                out->ok = 0;
                snprintf(out->msg, sizeof out->msg, "counter %zu = %u, expected %llu", a, h[a],
                         (unsigned long long)e);
            }
        }
    }
    if (d) cupat_free(ctx, d);
    free(h);
    free(t);
    return s;
}
