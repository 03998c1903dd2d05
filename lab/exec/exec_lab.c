/* SPDX-License-Identifier: Apache-2.0 */
/* exec_lab.c — the experiments of `cupat lab exec`: argument checks, the
 * host models every GPU output is held against (exec_work.h), the runs
 * (device buffers, timing, copies back, checks) and Little's-law arithmetic.
 * The kernels are in exec_warps.cu, exec_latency.cu, exec_regs.cu,
 * exec_maxrreg.cu and (relocatable device code) exec_cdp.cu. */
#include "exec/exec.h"
#include "exec/exec_work.h"

#include "internal.h"

#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INV CUPAT_ERROR_INVALID_VALUE
#define MAXREPS 1000

static cupat_status need_cuda(cupat_ctx *ctx)
{
    if (cupat_get_backend(ctx) != CUPAT_BACKEND_CUDA)
        return cupat__fail(ctx, CUPAT_ERROR_NOT_SUPPORTED, "lab exec: the experiments need the CUDA backend");
    return CUPAT_SUCCESS;
}

static cupat_status no_host_memory(cupat_ctx *ctx)
{
    return cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY, "lab exec: out of host memory");
}

static int cmp_f(const void *a, const void *b)
{
    const float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static double median(float *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, cmp_f);
    return n % 2 ? t[n / 2] : 0.5 * ((double)t[n / 2 - 1] + t[n / 2]);
}

static int sm_count(const cupat_ctx *ctx)
{
    return ctx->sm_count > 0 ? ctx->sm_count : 1;
}

/* reps + 1 launches of fn, the first untimed (warm-up), each timed launch
 * between its own pair of events. */
cupat_status cupat__lab_exec_time(cupat_ctx *ctx, int reps, lab_exec_launch_fn fn, void *arg, float *times)
{
    cudaEvent_t *ev = calloc(2 * (size_t)reps, sizeof *ev);
    if (!ev) return no_host_memory(ctx);
    cupat_status s = CUPAT_SUCCESS;
    int made = 0;
    for (; made < 2 * reps && !s; made++) s = cupat__cuda(ctx, cudaEventCreate(&ev[made]), "cudaEventCreate");
    if (s) made--;
    for (int r = 0; r <= reps && !s; r++) {
        if (r) s = cupat__cuda(ctx, cudaEventRecord(ev[2 * (r - 1)], ctx->stream), "cudaEventRecord");
        if (!s) s = fn(ctx, arg);
        if (!s && r) s = cupat__cuda(ctx, cudaEventRecord(ev[2 * (r - 1) + 1], ctx->stream), "cudaEventRecord");
    }
    if (!s) s = cupat__cuda(ctx, cudaStreamSynchronize(ctx->stream), "cudaStreamSynchronize");
    for (int r = 0; r < reps && !s; r++)
        s = cupat__cuda(ctx, cudaEventElapsedTime(&times[r], ev[2 * r], ev[2 * r + 1]), "cudaEventElapsedTime");
    for (int i = 0; i < made; i++) cudaEventDestroy(ev[i]);
    free(ev);
    return s;
}

/* A float array of reps entries, or NULL after recording the failure. */
static float *times_of(cupat_ctx *ctx, int reps)
{
    float *t = malloc((size_t)reps * sizeof *t);
    if (!t) no_host_memory(ctx);
    return t;
}

static cupat_status check_reps(cupat_ctx *ctx, int reps)
{
    if (reps < 1 || reps > MAXREPS)
        return cupat__fail(ctx, INV, "lab exec: reps = %d (1 to %d)", reps, MAXREPS);
    return CUPAT_SUCCESS;
}

/* Which threads a check looks at: all of n when n x work is small, else the
 * first 8192 and 8192 spread over the rest. Returns the count; idx(k). */
static size_t sample_count(size_t n, double work)
{
    return (double)n * work <= 16777216.0 || n <= 16384 ? n : 16384;
}
static size_t sample_index(size_t n, size_t count, size_t k)
{
    if (count == n) return k;
    return k < 8192 ? k : 8192 + (k - 8192) * ((n - 8192) / 8192);
}

/* ----------------------------------------------------------- divergence -- */

static const char *const div_names[LAB_DIV_NKERNELS] = {
    "warp (mathKernel2)", "tid%2 (mathKernel1)", "two ifs (mathKernel3)", "long, warp",
    "long, tid%2",        "32 paths, warp",      "32 paths, lane",
};
static const char *const div_codes[LAB_DIV_NKERNELS] = {
    "if ((tid / warpSize) % 2 == 0) a = 100; else b = 200;",
    "if (tid % 2 == 0) a = 100; else b = 200;",
    "bool pred = tid % 2 == 0; if (pred) a = 100; if (!pred) b = 200;",
    "if ((tid / warpSize) % 2 == 0) x = lcg(x, iters); else x = xorshift(x, iters);",
    "if (tid % 2 == 0) x = lcg(x, iters); else x = xorshift(x, iters);",
    "switch ((tid / warpSize) % 32) { case p: x = way<p>(x, iters); }",
    "switch (tid % 32) { case p: x = way<p>(x, iters); }",
};

const char *lab_exec_div_name(int k)
{
    return k >= 0 && k < LAB_DIV_NKERNELS ? div_names[k] : NULL;
}

const char *lab_exec_div_code(int k)
{
    return k >= 0 && k < LAB_DIV_NKERNELS ? div_codes[k] : NULL;
}

static uint32_t bits_of(float x)
{
    uint32_t u;
    memcpy(&u, &x, 4);
    return u;
}

uint32_t lab_exec_div_expected(int k, uint32_t tid, int iters)
{
    const uint32_t x = exec_seed(tid);
    switch (k) {
    case LAB_DIV_WARP: return bits_of((tid / 32) % 2 == 0 ? 100.0f : 200.0f);
    case LAB_DIV_PRED:
    case LAB_DIV_SPLIT: return bits_of(tid % 2 == 0 ? 100.0f : 200.0f);
    case LAB_DIV_LONG_WARP: return (tid / 32) % 2 == 0 ? exec_lcg(x, iters) : exec_xorshift(x, iters);
    case LAB_DIV_LONG_ODD: return tid % 2 == 0 ? exec_lcg(x, iters) : exec_xorshift(x, iters);
    case LAB_DIV_WAY32_WARP: return exec_way(x, (int)((tid / 32) % 32), iters);
    case LAB_DIV_WAY32_LANE: return exec_way(x, (int)(tid % 32), iters);
    }
    return 0;
}

cupat_status lab_exec_divergence(cupat_ctx *ctx, int k, unsigned n, int iters, int reps, lab_exec_timed *out)
{
    if (!ctx) return cupat__fail(NULL, INV, "lab exec: ctx is NULL");
    if (k < 0 || k >= LAB_DIV_NKERNELS) return cupat__fail(ctx, INV, "lab exec: divergence kernel = %d", k);
    if (n < 256 || n > (1u << 26) || n % 256)
        return cupat__fail(ctx, INV, "lab exec: n = %u (256 to 2^26, a multiple of 256)", n);
    if (iters < 1 || iters > (1 << 16)) return cupat__fail(ctx, INV, "lab exec: iters = %d (1 to 65536)", iters);
    CUPAT_TRY(check_reps(ctx, reps));
    if (!out) return cupat__fail(ctx, INV, "lab exec: out is NULL");
    CUPAT_TRY(need_cuda(ctx));
    memset(out, 0, sizeof *out);
    uint32_t *d = NULL, *h = malloc((size_t)n * sizeof *h);
    float *t = times_of(ctx, reps);
    cupat_status s = h && t ? CUPAT_SUCCESS : no_host_memory(ctx);
    if (!s) s = cupat_malloc(ctx, (void **)&d, (size_t)n * sizeof *d);
    if (!s) s = cupat_memset(ctx, d, 0xff, (size_t)n * sizeof *d); /* poison */
    if (!s) s = cupat__lab_exec_div(ctx, k, n, iters, reps, d, t);
    if (!s) s = cupat_memcpy(ctx, h, d, (size_t)n * sizeof *d);
    if (!s) s = cupat_sync(ctx);
    if (!s) {
        out->ms = median(t, reps);
        out->ok = 1;
        const int work = k >= LAB_DIV_LONG_WARP ? iters : 1;
        const size_t cnt = sample_count(n, work);
        for (size_t q = 0; q < cnt && out->ok; q++) {
            const uint32_t i = (uint32_t)sample_index(n, cnt, q), e = lab_exec_div_expected(k, i, iters);
            if (h[i] != e) {
                out->ok = 0;
                snprintf(out->msg, sizeof out->msg, "c[%u] = 0x%08x, expected 0x%08x", i, h[i], e);
            }
        }
    }
    if (d) cupat_free(ctx, d);
    free(h);
    free(t);
    return s;
}

/* ------------------------------------------------------- partial warps -- */

int lab_exec_warp_lanes(int threads, int t)
{
    return t / 32 < threads / 32 ? 32 : threads % 32;
}

cupat_status lab_exec_partial_warps(cupat_ctx *ctx, int threads, unsigned blocks, int iters, int reps,
                                    lab_exec_partial *out)
{
    if (!ctx) return cupat__fail(NULL, INV, "lab exec: ctx is NULL");
    if (threads < 1 || threads > 1024) return cupat__fail(ctx, INV, "lab exec: threads = %d (1 to 1024)", threads);
    if (blocks < 1 || blocks > (1u << 20)) return cupat__fail(ctx, INV, "lab exec: blocks = %u (1 to 2^20)", blocks);
    if ((uint64_t)blocks * (unsigned)threads > (1u << 26))
        return cupat__fail(ctx, INV, "lab exec: blocks x threads = %llu (at most 2^26)",
                           (unsigned long long)blocks * (unsigned)threads);
    if (iters < 1 || iters > (1 << 16)) return cupat__fail(ctx, INV, "lab exec: iters = %d (1 to 65536)", iters);
    CUPAT_TRY(check_reps(ctx, reps));
    if (!out) return cupat__fail(ctx, INV, "lab exec: out is NULL");
    CUPAT_TRY(need_cuda(ctx));
    memset(out, 0, sizeof *out);
    out->threads = threads;
    out->warps_per_block = (threads + 31) / 32;
    const size_t n = (size_t)blocks * (unsigned)threads;
    uint32_t *d = NULL, *h = malloc(2 * n * sizeof *h);
    float *t = times_of(ctx, reps);
    cupat_status s = h && t ? CUPAT_SUCCESS : no_host_memory(ctx);
    if (!s) s = cupat_malloc(ctx, (void **)&d, 2 * n * sizeof *d);
    if (!s) s = cupat_memset(ctx, d, 0xff, 2 * n * sizeof *d);
    if (!s) s = cupat__lab_exec_partial(ctx, threads, blocks, iters, reps, d, d + n, t, &out->resident_blocks);
    if (!s) s = cupat_memcpy(ctx, h, d, 2 * n * sizeof *d);
    if (!s) s = cupat_sync(ctx);
    if (!s) {
        out->ms = median(t, reps);
        out->ok = 1;
        for (size_t i = 0; i < n && out->ok; i++) {
            const int lanes = lab_exec_warp_lanes(threads, (int)(i % (size_t)threads));
            if (h[n + i] != (uint32_t)lanes) {
                out->ok = 0;
                snprintf(out->msg, sizeof out->msg, "thread %zu saw %u active lanes, expected %d", i, h[n + i], lanes);
            }
        }
        const size_t cnt = sample_count(n, iters);
        for (size_t q = 0; q < cnt && out->ok; q++) {
            const size_t i = sample_index(n, cnt, q);
            const uint32_t e = exec_lcg(exec_seed((uint32_t)i), iters);
            if (h[i] != e) {
                out->ok = 0;
                snprintf(out->msg, sizeof out->msg, "out[%zu] = 0x%08x, expected 0x%08x", i, h[i], e);
            }
        }
    }
    if (d) cupat_free(ctx, d);
    free(h);
    free(t);
    return s;
}

cupat_status lab_exec_warp_map(cupat_ctx *ctx, int bx, int by, int bz, uint32_t *lane, uint32_t *leader,
                               uint32_t *active)
{
    if (!ctx) return cupat__fail(NULL, INV, "lab exec: ctx is NULL");
    if (bx < 1 || by < 1 || bz < 1 || bz > 64 || (long)bx * by * bz > 1024)
        return cupat__fail(ctx, INV, "lab exec: block %d x %d x %d (each >= 1, z <= 64, at most 1024 threads)", bx, by,
                           bz);
    if (!lane || !leader || !active)
        return cupat__fail(ctx, INV, "lab exec: %s is NULL", !lane ? "lane" : !leader ? "leader" : "active");
    CUPAT_TRY(need_cuda(ctx));
    const size_t T = (size_t)bx * by * bz;
    uint32_t *d = NULL, h[3 * 1024];
    cupat_status s = cupat_malloc(ctx, (void **)&d, 3 * T * sizeof *d);
    if (!s) s = cupat_memset(ctx, d, 0xff, 3 * T * sizeof *d);
    if (!s) s = cupat__lab_exec_warp_map(ctx, bx, by, bz, d);
    if (!s) s = cupat_memcpy(ctx, h, d, 3 * T * sizeof *d);
    if (!s) s = cupat_sync(ctx);
    for (size_t i = 0; i < T && !s; i++) {
        lane[i] = h[3 * i];
        leader[i] = h[3 * i + 1];
        active[i] = h[3 * i + 2];
    }
    if (d) cupat_free(ctx, d);
    return s;
}

/* ---------------------------------------------------------- placement -- */

cupat_status lab_exec_placement(cupat_ctx *ctx, unsigned blocks, int threads, unsigned spin_ns, lab_exec_place *p)
{
    if (!ctx) return cupat__fail(NULL, INV, "lab exec: ctx is NULL");
    if (blocks < 1 || blocks > (1u << 20)) return cupat__fail(ctx, INV, "lab exec: blocks = %u (1 to 2^20)", blocks);
    if (threads < 1 || threads > 1024) return cupat__fail(ctx, INV, "lab exec: threads = %d (1 to 1024)", threads);
    if (spin_ns > 1000000u) return cupat__fail(ctx, INV, "lab exec: spin_ns = %u (at most 1e6)", spin_ns);
    if (!p || !p->smid || !p->ticket)
        return cupat__fail(ctx, INV, "lab exec: %s is NULL", !p ? "p" : !p->smid ? "p->smid" : "p->ticket");
    CUPAT_TRY(need_cuda(ctx));
    p->blocks = blocks;
    p->sm_count = sm_count(ctx);
    uint32_t *d = NULL;
    cupat_status s = cupat_malloc(ctx, (void **)&d, (3 + 2 * (size_t)blocks) * sizeof *d);
    if (!s) s = cupat_memset(ctx, d, 0xff, blocks * sizeof *d);
    if (!s) s = cupat__lab_exec_place(ctx, blocks, threads, spin_ns, d, d + blocks, &p->nsmid);
    if (!s) s = cupat_memcpy(ctx, p->smid, d, blocks * sizeof *d);
    if (!s) s = cupat_memcpy(ctx, p->ticket, d + blocks + 1, blocks * sizeof *d);
    if (!s) s = cupat_sync(ctx);
    if (d) cupat_free(ctx, d);
    return s;
}

/* --------------------------------------------------------- __syncthreads -- */

cupat_status lab_exec_barrier_cost(cupat_ctx *ctx, int threads, int blocks_per_sm, int iters, lab_exec_barrier *out)
{
    if (!ctx) return cupat__fail(NULL, INV, "lab exec: ctx is NULL");
    if (threads < 32 || threads > 1024 || threads % 32)
        return cupat__fail(ctx, INV, "lab exec: threads = %d (32 to 1024, a multiple of 32)", threads);
    if (blocks_per_sm < 1 || blocks_per_sm > 32)
        return cupat__fail(ctx, INV, "lab exec: blocks_per_sm = %d (1 to 32)", blocks_per_sm);
    if (iters < 1 || iters > (1 << 20)) return cupat__fail(ctx, INV, "lab exec: iters = %d (1 to 2^20)", iters);
    if (!out) return cupat__fail(ctx, INV, "lab exec: out is NULL");
    CUPAT_TRY(need_cuda(ctx));
    memset(out, 0, sizeof *out);
    const unsigned blocks = (unsigned)(blocks_per_sm * sm_count(ctx));
    unsigned long long *d = NULL, *h = malloc(blocks * sizeof *h);
    int resident = 0;
    cupat_status s = h ? CUPAT_SUCCESS : no_host_memory(ctx);
    if (!s) s = cupat_malloc(ctx, (void **)&d, blocks * sizeof *d);
    if (!s) s = cupat_memset(ctx, d, 0, blocks * sizeof *d);
    if (!s) s = cupat__lab_exec_barrier(ctx, threads, blocks, iters, d, &resident);
    if (!s) s = cupat_memcpy(ctx, h, d, blocks * sizeof *d);
    if (!s) s = cupat_sync(ctx);
    if (!s) {
        out->blocks_per_sm = blocks_per_sm;
        out->ok = 1;
        if (resident < blocks_per_sm) {
            out->ok = 0;
            snprintf(out->msg, sizeof out->msg, "only %d blocks of %d threads fit an SM", resident, threads);
        }
        double sum = 0;
        for (unsigned b = 0; b < blocks; b++) {
            if (!h[b] && out->ok) {
                out->ok = 0;
                snprintf(out->msg, sizeof out->msg, "block %u recorded no cycles", b);
            }
            sum += (double)h[b];
        }
        out->cycles = sum / blocks / (8.0 * iters);
        out->per_clock = out->cycles > 0 ? (double)threads * blocks_per_sm / out->cycles : 0;
    }
    if (d) cupat_free(ctx, d);
    free(h);
    return s;
}

/* ------------------------------------------------------------- latency -- */

static const char *const lat_names[LAB_LAT_NWHERE] = {"global, L1 hit", "global, L2 hit (ld.cg)", "global, DRAM",
                                                       "shared", "constant"};

const char *lab_exec_lat_name(int where)
{
    return where >= 0 && where < LAB_LAT_NWHERE ? lat_names[where] : NULL;
}

void lab_exec_sattolo(uint32_t *next, uint32_t n, uint64_t seed)
{
    uint64_t z = seed;
    for (uint32_t i = 0; i < n; i++) next[i] = i;
    for (uint32_t i = n - 1; i > 0; i--) {
        z += 0x9E3779B97F4A7C15ull; /* splitmix64 */
        uint64_t r = z;
        r = (r ^ (r >> 30)) * 0xBF58476D1CE4E5B9ull;
        r = (r ^ (r >> 27)) * 0x94D049BB133111EBull;
        r ^= r >> 31;
        const uint32_t j = (uint32_t)(r % i); /* j < i: a single cycle */
        const uint32_t x = next[i];
        next[i] = next[j];
        next[j] = x;
    }
}

static double clock_khz(cupat_ctx *ctx)
{
    int khz = 0;
    if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, cupat_get_device(ctx)) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return khz;
}

cupat_status lab_exec_chase(cupat_ctx *ctx, int where, size_t bytes, int steps, lab_exec_latency *out)
{
    if (!ctx) return cupat__fail(NULL, INV, "lab exec: ctx is NULL");
    if (where < 0 || where >= LAB_LAT_NWHERE) return cupat__fail(ctx, INV, "lab exec: where = %d", where);
    const int global = where <= LAB_LAT_DRAM;
    const size_t unit = global ? LAB_LAT_LINE : 4;
    const size_t max = where == LAB_LAT_SHARED ? LAB_LAT_SHARED_MAX
                       : where == LAB_LAT_CONST ? LAB_LAT_CONST_MAX
                                                : (size_t)LAB_LAT_LINE << 26;
    if (bytes < 2 * unit || bytes > max || bytes % unit)
        return cupat__fail(ctx, INV, "lab exec: bytes = %zu (%s: a multiple of %zu, %zu to %zu)", bytes,
                           lat_names[where], unit, 2 * unit, max);
    if (steps < 1 || steps > (1 << 20)) return cupat__fail(ctx, INV, "lab exec: steps = %d (1 to 2^20)", steps);
    if (!out) return cupat__fail(ctx, INV, "lab exec: out is NULL");
    CUPAT_TRY(need_cuda(ctx));
    memset(out, 0, sizeof *out);
    const uint32_t n = (uint32_t)(bytes / unit);
    uint32_t *next = malloc((size_t)n * sizeof *next);
    if (!next) return no_host_memory(ctx);
    lab_exec_sattolo(next, n, 0x5EED0000ull + (uint64_t)where);
    unsigned long long res[2] = {0, 0};
    cupat_status s = cupat__lab_exec_chase(ctx, where, next, n, steps, res);
    if (!s) {
        uint32_t j = 0;
        for (int k = 0; k < steps; k++) j = next[j];
        const unsigned long long e = global ? (unsigned long long)j * (LAB_LAT_LINE / 4) : j;
        out->cycles = (double)res[1] / steps;
        const double khz = clock_khz(ctx);
        out->ns = khz > 0 ? out->cycles * 1e6 / khz : 0;
        out->ok = res[0] == e && res[1] > 0;
        if (!out->ok)
            snprintf(out->msg, sizeof out->msg, "the chase ended at %llu after %llu cycles, expected index %llu",
                     res[0], res[1], e);
    }
    free(next);
    return s;
}

#define FMA_A 0.999f
#define FMA_B 0.001f

cupat_status lab_exec_fma_latency(cupat_ctx *ctx, int steps, lab_exec_latency *out)
{
    if (!ctx) return cupat__fail(NULL, INV, "lab exec: ctx is NULL");
    if (steps < 1 || steps > (1 << 20)) return cupat__fail(ctx, INV, "lab exec: steps = %d (1 to 2^20)", steps);
    if (!out) return cupat__fail(ctx, INV, "lab exec: out is NULL");
    CUPAT_TRY(need_cuda(ctx));
    memset(out, 0, sizeof *out);
    float x = 0;
    unsigned long long cycles = 0;
    CUPAT_TRY(cupat__lab_exec_fma(ctx, steps, FMA_A, FMA_B, &x, &cycles));
    float e = 0.0f; /* lane 0 starts at 0 */
    for (int k = 0; k < steps; k++) e = fmaf(e, FMA_A, FMA_B);
    out->cycles = (double)cycles / steps;
    const double khz = clock_khz(ctx);
    out->ns = khz > 0 ? out->cycles * 1e6 / khz : 0;
    out->ok = bits_of(x) == bits_of(e) && cycles > 0;
    if (!out->ok) snprintf(out->msg, sizeof out->msg, "x = %.9g, expected %.9g (%llu cycles)", x, e, cycles);
    return CUPAT_SUCCESS;
}

/* The launch of a sweep row: `warps` warps on each SM, as blocks of up to 16
 * warps (fewer: one block of all of them). */
static cupat_status sweep_shape(cupat_ctx *ctx, int warps, int *blocks, int *threads)
{
    if (warps < 1 || warps > 64 || (warps > 16 && warps % 16))
        return cupat__fail(ctx, INV, "lab exec: warps = %d (1 to 16, or a multiple of 16 up to 64)", warps);
    const int bw = warps < 16 ? warps : 16;
    *threads = 32 * bw;
    *blocks = warps / bw * sm_count(ctx);
    return CUPAT_SUCCESS;
}

static cupat_status sweep_fit(cupat_ctx *ctx, int what, int k, int warps, int *fit, int *regs)
{
    int blocks = 0, threads = 0, resident = 0;
    CUPAT_TRY(sweep_shape(ctx, warps, &blocks, &threads));
    CUPAT_TRY(cupat__lab_exec_sweep_fit(ctx, what, k, threads, &resident, regs));
    *fit = resident * threads / 32;
    return CUPAT_SUCCESS;
}

cupat_status lab_exec_sweep_fit(cupat_ctx *ctx, int what, int k, int warps, int *fit, int *regs)
{
    if (!ctx) return cupat__fail(NULL, INV, "lab exec: ctx is NULL");
    if (what != LAB_SWEEP_ILP && what != LAB_SWEEP_MLP)
        return cupat__fail(ctx, INV, "lab exec: sweep kernel = %d (LAB_SWEEP_ILP or LAB_SWEEP_MLP)", what);
    if (k != 1 && k != 2 && k != 4 && k != 8)
        return cupat__fail(ctx, INV, "lab exec: %s = %d (1, 2, 4, 8)", what == LAB_SWEEP_ILP ? "ilp" : "unroll", k);
    if (!fit || !regs) return cupat__fail(ctx, INV, "lab exec: %s is NULL", !fit ? "fit" : "regs");
    int blocks = 0, threads = 0;
    CUPAT_TRY(sweep_shape(ctx, warps, &blocks, &threads));
    CUPAT_TRY(need_cuda(ctx));
    return sweep_fit(ctx, what, k, warps, fit, regs);
}

/* Refuse a sweep row whose warps do not all fit an SM at once. */
static cupat_status need_fit(cupat_ctx *ctx, int what, int k, int warps, int *fit)
{
    int regs = 0;
    CUPAT_TRY(sweep_fit(ctx, what, k, warps, fit, &regs));
    if (*fit < warps)
        return cupat__fail(ctx, CUPAT_ERROR_NOT_SUPPORTED,
                           "lab exec: %d warps an SM of k_%s<%d>: only %d fit an SM (%d registers a thread)", warps,
                           what == LAB_SWEEP_ILP ? "ilp" : "mlp", k, *fit, regs);
    return CUPAT_SUCCESS;
}

static float ilp_expected(uint32_t t, int ilp, int iters)
{
    float s = 0.0f;
    for (int j = 0; j < ilp; j++) {
        float acc = (float)t * 1e-6f + (float)j;
        for (int i = 0; i < iters; i++) acc = fmaf(acc, FMA_A, FMA_B);
        s += acc;
    }
    return s;
}

cupat_status lab_exec_ilp(cupat_ctx *ctx, int ilp, int warps, int iters, int reps, lab_exec_rate *out)
{
    if (!ctx) return cupat__fail(NULL, INV, "lab exec: ctx is NULL");
    if (ilp != 1 && ilp != 2 && ilp != 4 && ilp != 8) return cupat__fail(ctx, INV, "lab exec: ilp = %d (1, 2, 4, 8)", ilp);
    if (iters < 1 || iters > (1 << 20)) return cupat__fail(ctx, INV, "lab exec: iters = %d (1 to 2^20)", iters);
    CUPAT_TRY(check_reps(ctx, reps));
    if (!out) return cupat__fail(ctx, INV, "lab exec: out is NULL");
    memset(out, 0, sizeof *out);
    CUPAT_TRY(sweep_shape(ctx, warps, &out->blocks, &out->threads));
    CUPAT_TRY(need_cuda(ctx));
    CUPAT_TRY(need_fit(ctx, LAB_SWEEP_ILP, ilp, warps, &out->resident_warps));
    const size_t n = (size_t)out->blocks * out->threads;
    float *d = NULL, *h = malloc(n * sizeof *h), *t = times_of(ctx, reps);
    cupat_status s = h && t ? CUPAT_SUCCESS : no_host_memory(ctx);
    if (!s) s = cupat_malloc(ctx, (void **)&d, n * sizeof *d);
    if (!s) s = cupat_memset(ctx, d, 0xff, n * sizeof *d);
    if (!s) s = cupat__lab_exec_ilp(ctx, ilp, out->blocks, out->threads, iters, FMA_A, FMA_B, reps, d, t);
    if (!s) s = cupat_memcpy(ctx, h, d, n * sizeof *d);
    if (!s) s = cupat_sync(ctx);
    if (!s) {
        out->ms = median(t, reps);
        out->gflops = out->ms > 0 ? 2.0 * (double)n * ilp * iters / (out->ms * 1e6) : 0;
        out->ok = 1;
        for (int q = 0; q < 64 && out->ok; q++) {
            const uint32_t i = (uint32_t)((size_t)q * (n - 1) / 63);
            const float e = ilp_expected(i, ilp, iters);
            if (bits_of(h[i]) != bits_of(e)) {
                out->ok = 0;
                snprintf(out->msg, sizeof out->msg, "out[%u] = %.9g, expected %.9g", i, h[i], e);
            }
        }
    }
    if (d) cupat_free(ctx, d);
    free(h);
    free(t);
    return s;
}

uint32_t lab_exec_mlp_sum(size_t n)
{
    static size_t last_n; /* the sweep asks for the same n 36 times */
    static uint32_t last;
    if (n && n == last_n) return last;
    uint32_t s = 0;
    for (size_t i = 0; i < n; i++) s += exec_mlp_word((uint32_t)i);
    last_n = n;
    last = s;
    return s;
}

cupat_status lab_exec_mlp(cupat_ctx *ctx, int unroll, int warps, size_t n, int reps, lab_exec_rate *out)
{
    if (!ctx) return cupat__fail(NULL, INV, "lab exec: ctx is NULL");
    if (unroll != 1 && unroll != 2 && unroll != 4 && unroll != 8)
        return cupat__fail(ctx, INV, "lab exec: unroll = %d (1, 2, 4, 8)", unroll);
    if (n < 128 || n > ((size_t)1 << 30) || n % 128)
        return cupat__fail(ctx, INV, "lab exec: n = %zu (128 to 2^30, a multiple of 128)", n);
    CUPAT_TRY(check_reps(ctx, reps));
    if (!out) return cupat__fail(ctx, INV, "lab exec: out is NULL");
    memset(out, 0, sizeof *out);
    CUPAT_TRY(sweep_shape(ctx, warps, &out->blocks, &out->threads));
    CUPAT_TRY(need_cuda(ctx));
    CUPAT_TRY(need_fit(ctx, LAB_SWEEP_MLP, unroll, warps, &out->resident_warps));
    uint32_t *d = NULL, sum = 0;
    float *t = times_of(ctx, reps);
    cupat_status s = t ? CUPAT_SUCCESS : no_host_memory(ctx);
    if (!s) s = cupat_malloc(ctx, (void **)&d, (n + 32) * sizeof *d); /* the sum after the words */
    if (!s) s = cupat__lab_exec_mlp_fill(ctx, d, n);
    if (!s) s = cupat__lab_exec_mlp(ctx, unroll, out->blocks, out->threads, d, n, reps, d + n, t);
    if (!s) s = cupat_memcpy(ctx, &sum, d + n, sizeof sum);
    if (!s) s = cupat_sync(ctx);
    if (!s) {
        out->ms = median(t, reps);
        out->gbs = out->ms > 0 ? 4.0 * (double)n / (out->ms * 1e6) : 0;
        const uint32_t e = lab_exec_mlp_sum(n);
        out->ok = sum == e;
        if (!out->ok) snprintf(out->msg, sizeof out->msg, "sum 0x%08x, expected 0x%08x", sum, e);
    }
    if (d) cupat_free(ctx, d);
    free(t);
    return s;
}

double lab_exec_little_warps(double latency, double issue, int ilp)
{
    return ilp > 0 ? latency * issue / ilp : 0;
}

double lab_exec_little_bytes(double gbs, double latency_ns, int sms)
{
    return sms > 0 ? gbs * latency_ns / sms : 0; /* GB/s x ns = bytes */
}

/* ------------------------------------------------------- register cliff -- */

static const char *const cliff_names[LAB_CLIFF_NVARIANTS] = {
    "no bound",        "__launch_bounds__(512, 1)", "__launch_bounds__(512, 2)", "__maxnreg__(72)",
    "__maxnreg__(65)", "__maxnreg__(64)",           "__maxnreg__(40)",           "-maxrregcount=64",
};

const char *lab_exec_cliff_name(int v)
{
    return v >= 0 && v < LAB_CLIFF_NVARIANTS ? cliff_names[v] : NULL;
}

/* What thread t of T writes after its grid-stride walk over n4 float4. */
static float cliff_expected(size_t t, size_t T, size_t n4)
{
    float acc[CLIFF_NACC];
    for (int j = 0; j < CLIFF_NACC; j++) acc[j] = (float)j;
    for (size_t i = t; i < n4; i += T)
        for (int j = 0; j < CLIFF_NACC; j++) acc[j] = fmaf(acc[j], exec_cliff_coef(j), exec_cliff_in((uint32_t)(4 * i + j % 4)));
    float s = 0.0f;
    for (int j = 0; j < CLIFF_NACC; j++) s += acc[j];
    return s;
}

/* 64 threads of the T a launch had, against the host; 1 when all agree. */
static int cliff_check(const float *h, size_t T, size_t n4, char *msg, size_t len)
{
    for (int q = 0; q < 64; q++) {
        const size_t t = (size_t)q * (T - 1) / 63;
        const float e = cliff_expected(t, T, n4);
        if (bits_of(h[t]) != bits_of(e)) {
            snprintf(msg, len, "thread %zu: %.9g, expected %.9g", t, h[t], e);
            return 0;
        }
    }
    return 1;
}

static size_t cliff_out_floats(cupat_ctx *ctx)
{
    return (size_t)sm_count(ctx) * 2048;
}

cupat_status lab_exec_cliff_run(cupat_ctx *ctx, int v, size_t n, int reps, lab_exec_cliff *out)
{
    if (!ctx) return cupat__fail(NULL, INV, "lab exec: ctx is NULL");
    if (v < 0 || v >= LAB_CLIFF_NVARIANTS) return cupat__fail(ctx, INV, "lab exec: cliff variant = %d", v);
    if (n < 512 || n > ((size_t)1 << 26) || n % 512)
        return cupat__fail(ctx, INV, "lab exec: n = %zu float4 (512 to 2^26, a multiple of 512)", n);
    CUPAT_TRY(check_reps(ctx, reps));
    if (!out) return cupat__fail(ctx, INV, "lab exec: out is NULL");
    CUPAT_TRY(need_cuda(ctx));
    memset(out, 0, sizeof *out);
    const size_t nout = cliff_out_floats(ctx);
    float *d = NULL, *h = malloc(nout * sizeof *h), *t = times_of(ctx, reps);
    cupat_status s = h && t ? CUPAT_SUCCESS : no_host_memory(ctx);
    if (!s) s = cupat_malloc(ctx, (void **)&d, (4 * n + nout) * sizeof *d);
    if (!s) s = cupat__lab_exec_cliff_fill(ctx, d, 4 * n);
    if (!s) s = cupat_memset(ctx, d + 4 * n, 0xff, nout * sizeof *d);
    if (!s) s = cupat__lab_exec_cliff(ctx, v, d, n, reps, d + 4 * n, t, out);
    if (!s) s = cupat_memcpy(ctx, h, d + 4 * n, nout * sizeof *d);
    if (!s) s = cupat_sync(ctx);
    if (!s) {
        out->ms = median(t, reps);
        out->gbs = out->ms > 0 ? 16.0 * (double)n / (out->ms * 1e6) : 0;
        out->ok = cliff_check(h, (size_t)out->blocks * LAB_CLIFF_THREADS, n, out->msg, sizeof out->msg);
    }
    if (d) cupat_free(ctx, d);
    free(h);
    free(t);
    return s;
}

/* ------------------------------------------------------------ occupancy -- */

static const char *const occ_names[LAB_OCC_NKERNELS] = {"stream: out = 2 in + 1", "cliff body (56 accumulators)",
                                                        "24 KiB shared a block"};

const char *lab_exec_occ_name(int k)
{
    return k >= 0 && k < LAB_OCC_NKERNELS ? occ_names[k] : NULL;
}

static cupat_status occ_args_ok(cupat_ctx *ctx, int k)
{
    if (!ctx) return cupat__fail(NULL, INV, "lab exec: ctx is NULL");
    if (k < 0 || k >= LAB_OCC_NKERNELS) return cupat__fail(ctx, INV, "lab exec: occupancy kernel = %d", k);
    return CUPAT_SUCCESS;
}

cupat_status lab_exec_occ_info(cupat_ctx *ctx, int k, lab_exec_kinfo *info)
{
    CUPAT_TRY(occ_args_ok(ctx, k));
    if (!info) return cupat__fail(ctx, INV, "lab exec: info is NULL");
    CUPAT_TRY(need_cuda(ctx));
    memset(info, 0, sizeof *info);
    info->name = occ_names[k];
    return cupat__lab_exec_occ_info(ctx, k, info);
}

cupat_status lab_exec_occ_potential(cupat_ctx *ctx, int k, int *min_grid, int *block)
{
    CUPAT_TRY(occ_args_ok(ctx, k));
    if (!min_grid || !block) return cupat__fail(ctx, INV, "lab exec: %s is NULL", !min_grid ? "min_grid" : "block");
    CUPAT_TRY(need_cuda(ctx));
    return cupat__lab_exec_occ_potential(ctx, k, min_grid, block);
}

cupat_status lab_exec_occ_active(cupat_ctx *ctx, int k, int threads, int *blocks)
{
    CUPAT_TRY(occ_args_ok(ctx, k));
    if (threads < 1 || threads > 1024) return cupat__fail(ctx, INV, "lab exec: threads = %d (1 to 1024)", threads);
    if (!blocks) return cupat__fail(ctx, INV, "lab exec: blocks is NULL");
    CUPAT_TRY(need_cuda(ctx));
    return cupat__lab_exec_occ_active(ctx, k, threads, blocks);
}

cupat_status lab_exec_occ_sweep(cupat_ctx *ctx, int k, int threads, size_t n, int reps, lab_exec_timed *out)
{
    CUPAT_TRY(occ_args_ok(ctx, k));
    if (threads < 32 || threads > 1024 || threads % 32)
        return cupat__fail(ctx, INV, "lab exec: threads = %d (32 to 1024, a multiple of 32)", threads);
    if (n < 1024 || n > ((size_t)1 << 28) || n % 1024)
        return cupat__fail(ctx, INV, "lab exec: n = %zu (1024 to 2^28, a multiple of 1024)", n);
    CUPAT_TRY(check_reps(ctx, reps));
    if (!out) return cupat__fail(ctx, INV, "lab exec: out is NULL");
    CUPAT_TRY(need_cuda(ctx));
    memset(out, 0, sizeof *out);
    lab_exec_kinfo info;
    CUPAT_TRY(cupat__lab_exec_occ_info(ctx, k, &info));
    if (threads > info.max_threads)
        return cupat__fail(ctx, INV, "lab exec: threads = %d: the kernel allows at most %d a block (%d registers)",
                           threads, info.max_threads, info.regs);
    int resident = 0;
    CUPAT_TRY(cupat__lab_exec_occ_active(ctx, k, threads, &resident));
    if (resident < 1) return cupat__fail(ctx, INV, "lab exec: no block of %d threads fits an SM", threads);
    const unsigned blocks = (unsigned)(resident * sm_count(ctx));
    const size_t T = (size_t)blocks * (unsigned)threads, nout = k == LAB_OCC_CLIFF ? T : n;
    float *d = NULL, *h = malloc(nout * sizeof *h), *t = times_of(ctx, reps);
    cupat_status s = h && t ? CUPAT_SUCCESS : no_host_memory(ctx);
    if (!s) s = cupat_malloc(ctx, (void **)&d, (n + nout) * sizeof *d);
    if (!s) s = cupat__lab_exec_cliff_fill(ctx, d, n);
    if (!s) s = cupat_memset(ctx, d + n, 0xff, nout * sizeof *d);
    if (!s) s = cupat__lab_exec_occ_run(ctx, k, threads, blocks, d, d + n, n, reps, t);
    if (!s) s = cupat_memcpy(ctx, h, d + n, nout * sizeof *d);
    if (!s) s = cupat_sync(ctx);
    if (!s) {
        out->ms = median(t, reps);
        if (k == LAB_OCC_CLIFF) {
            out->ok = cliff_check(h, T, n / 4, out->msg, sizeof out->msg);
        } else {
            out->ok = 1;
            for (size_t i = 0; i < n && out->ok; i++) {
                const float e = 2.0f * exec_cliff_in((uint32_t)i) + 1.0f;
                if (bits_of(h[i]) != bits_of(e)) {
                    out->ok = 0;
                    snprintf(out->msg, sizeof out->msg, "out[%zu] = %.9g, expected %.9g", i, h[i], e);
                }
            }
        }
    }
    if (d) cupat_free(ctx, d);
    free(h);
    free(t);
    return s;
}

/* ----------------------------------------------------------------- gemm -- */

typedef struct gemm_args {
    size_t m, n, k;
    const float *A, *B;
    float *C;
} gemm_args;

static cupat_status gemm_launch(cupat_ctx *ctx, void *p)
{
    const gemm_args *g = p;
    return cupat_gemm_f32(ctx, CUPAT_ROW_MAJOR, CUPAT_TRANS_N, CUPAT_TRANS_N, g->m, g->n, g->k, 1.0f, g->A, g->k, g->B,
                          g->n, 0.0f, g->C, g->n);
}

static float gemm_in(uint64_t seed, size_t i)
{
    return (float)(exec_seed((uint32_t)(i * 2 + seed)) >> 8) * 0x1p-23f - 1.0f; /* [-1, 1) */
}

cupat_status lab_exec_gemm_rung(cupat_ctx *ctx, const char *rung, size_t m, size_t n, size_t k, int reps,
                                lab_exec_timed *out)
{
    if (!ctx) return cupat__fail(NULL, INV, "lab exec: ctx is NULL");
    if (!rung) return cupat__fail(ctx, INV, "lab exec: rung is NULL");
    if (m < 1 || n < 1 || k < 1 || m > 16384 || n > 16384 || k > 16384)
        return cupat__fail(ctx, INV, "lab exec: gemm %zu x %zu x %zu (each 1 to 16384)", m, n, k);
    CUPAT_TRY(check_reps(ctx, reps));
    if (!out) return cupat__fail(ctx, INV, "lab exec: out is NULL");
    CUPAT_TRY(need_cuda(ctx));
    memset(out, 0, sizeof *out);
    CUPAT_TRY(cupat_set_variant(ctx, "gemm", rung));
    float *hA = malloc(m * k * sizeof *hA), *hB = malloc(k * n * sizeof *hB), *hC = malloc(m * n * sizeof *hC);
    float *t = times_of(ctx, reps);
    gemm_args g = {m, n, k, NULL, NULL, NULL};
    cupat_status s = hA && hB && hC && t ? CUPAT_SUCCESS : no_host_memory(ctx);
    for (size_t i = 0; !s && i < m * k; i++) hA[i] = gemm_in(1, i);
    for (size_t i = 0; !s && i < k * n; i++) hB[i] = gemm_in(2, i);
    if (!s) s = cupat_malloc(ctx, (void **)&g.A, m * k * sizeof *hA);
    if (!s) s = cupat_malloc(ctx, (void **)&g.B, k * n * sizeof *hB);
    if (!s) s = cupat_malloc(ctx, (void **)&g.C, m * n * sizeof *hC);
    if (!s) s = cupat_memcpy(ctx, (void *)g.A, hA, m * k * sizeof *hA);
    if (!s) s = cupat_memcpy(ctx, (void *)g.B, hB, k * n * sizeof *hB);
    if (!s) s = cupat_memset(ctx, g.C, 0xff, m * n * sizeof *hC); /* NaN: an unwritten output fails */
    if (!s) s = cupat__lab_exec_time(ctx, reps, gemm_launch, &g, t);
    if (!s) s = cupat_memcpy(ctx, hC, g.C, m * n * sizeof *hC);
    if (!s) s = cupat_sync(ctx);
    if (!s) {
        out->ms = median(t, reps);
        out->ok = 1;
        for (int q = 0; q < 64 && out->ok; q++) {
            const size_t i = (size_t)q * (m - 1) / 63, j = (size_t)(q * 37) % n;
            double e = 0, mag = 0;
            for (size_t p = 0; p < k; p++) {
                e += (double)hA[i * k + p] * hB[p * n + j];
                mag += fabs((double)hA[i * k + p] * hB[p * n + j]);
            }
            const double got = hC[i * n + j], tol = (double)k * 0x1p-24 * mag + 1e-30;
            if (!(fabs(got - e) <= tol)) {
                out->ok = 0;
                snprintf(out->msg, sizeof out->msg, "C[%zu][%zu] = %.9g, expected %.9g (tolerance %.3g)", i, j, got, e,
                         tol);
            }
        }
    }
    cupat_set_variant(ctx, "gemm", NULL);
    if (g.A) cupat_free(ctx, (void *)g.A);
    if (g.B) cupat_free(ctx, (void *)g.B);
    if (g.C) cupat_free(ctx, g.C);
    free(hA);
    free(hB);
    free(hC);
    free(t);
    return s;
}

/* --------------------------------------------------- dynamic parallelism -- */

/* A call into libcupat_lab_cdp as a status. */
static cupat_status cdp(cupat_ctx *ctx, int err, const char *what)
{
    return cupat__cuda(ctx, (cudaError_t)err, what ? what : "lab exec: dynamic parallelism");
}

void lab_exec_cdp_hello_expected(int blocks, int threads, int *counts)
{
    for (int d = 0; d < LAB_CDP_MAX_DEPTH; d++) counts[d] = 0;
    for (int d = 0, t = threads; t >= 1 && d < LAB_CDP_MAX_DEPTH; d++, t >>= 1) counts[d] = blocks * t;
}

cupat_status lab_exec_cdp_hello(cupat_ctx *ctx, int blocks, int threads, int print, int *counts)
{
    if (!ctx) return cupat__fail(NULL, INV, "lab exec: ctx is NULL");
    if (blocks < 1 || blocks > 8) return cupat__fail(ctx, INV, "lab exec: blocks = %d (1 to 8)", blocks);
    if (threads < 1 || threads > 64 || (threads & (threads - 1)))
        return cupat__fail(ctx, INV, "lab exec: threads = %d (a power of two, 1 to 64)", threads);
    if (!counts) return cupat__fail(ctx, INV, "lab exec: counts is NULL");
    CUPAT_TRY(need_cuda(ctx));
    int *d = NULL, h[LAB_CDP_MAX_DEPTH + 1];
    fflush(stdout); /* the device's printf lines come after ours */
    cupat_status s = cupat_malloc(ctx, (void **)&d, sizeof h);
    const char *what = NULL;
    if (!s) s = cdp(ctx, lab_exec_cdp_k_hello(ctx->stream, blocks, threads, print, d, &what), what);
    if (!s) s = cupat_memcpy(ctx, h, d, sizeof h);
    if (!s) s = cupat_sync(ctx);
    if (!s && h[LAB_CDP_MAX_DEPTH])
        s = cupat__fail(ctx, CUPAT_ERROR_CUDA, "lab exec: a device-side launch failed: %s",
                        cudaGetErrorString((cudaError_t)h[LAB_CDP_MAX_DEPTH]));
    if (!s) memcpy(counts, h, LAB_CDP_MAX_DEPTH * sizeof *counts);
    if (d) cupat_free(ctx, d);
    return s;
}

cupat_status lab_exec_cdp_depth(cupat_ctx *ctx, int depth, int *reached, int *err)
{
    if (!ctx) return cupat__fail(NULL, INV, "lab exec: ctx is NULL");
    if (depth < 1 || depth > 30) return cupat__fail(ctx, INV, "lab exec: depth = %d (1 to 30)", depth);
    if (!reached || !err) return cupat__fail(ctx, INV, "lab exec: %s is NULL", !reached ? "reached" : "err");
    CUPAT_TRY(need_cuda(ctx));
    int *d = NULL, h[2] = {-1, 0};
    cupat_status s = cupat_malloc(ctx, (void **)&d, sizeof h);
    const char *what = NULL;
    if (!s) s = cdp(ctx, lab_exec_cdp_k_depth(ctx->stream, depth, d, &what), what);
    if (!s) s = cupat_memcpy(ctx, h, d, sizeof h);
    if (!s) s = cupat_sync(ctx);
    if (!s) {
        *reached = h[0];
        *err = h[1];
    }
    if (d) cupat_free(ctx, d);
    return s;
}

cupat_status lab_exec_cdp_pending(cupat_ctx *ctx, size_t limit, unsigned parents, unsigned spin_ns,
                                  lab_exec_pending *out)
{
    if (!ctx) return cupat__fail(NULL, INV, "lab exec: ctx is NULL");
    if (limit > ((size_t)1 << 20)) return cupat__fail(ctx, INV, "lab exec: limit = %zu (0 to 2^20)", limit);
    if (parents < 1 || parents > 1024) return cupat__fail(ctx, INV, "lab exec: parents = %u (1 to 1024)", parents);
    if (spin_ns > 1000000u) return cupat__fail(ctx, INV, "lab exec: spin_ns = %u (at most 1e6)", spin_ns);
    if (!out) return cupat__fail(ctx, INV, "lab exec: out is NULL");
    CUPAT_TRY(need_cuda(ctx));
    memset(out, 0, sizeof *out);
    out->limit_set = limit;
    unsigned *d = NULL, h[5];
    cupat_status s = cupat_malloc(ctx, (void **)&d, sizeof h);
    const char *what = NULL;
    if (!s) s = cdp(ctx, lab_exec_cdp_k_pending(ctx->stream, limit, parents, spin_ns, d, &out->limit_read, &what), what);
    if (!s) s = cupat_memcpy(ctx, h, d, sizeof h);
    if (!s) s = cupat_sync(ctx);
    if (!s) {
        out->attempted = h[0];
        out->launched = h[1];
        out->failed = h[2];
        out->ran = h[3];
        out->first_err = (int)h[4];
    }
    if (d) cupat_free(ctx, d);
    return s;
}

int lab_exec_mandel_geometry(int size, int max_dwell, lab_exec_mandel_geom *g)
{
    if (size < 128 || size > 16384 || (size & (size - 1)) || max_dwell < 1 || max_dwell > (1 << 16) || !g) return -1;
    g->size = size;
    g->max_dwell = max_dwell;
    g->x0 = -1.5f;
    g->y0 = -1.0f;
    g->dx = 2.0f / (float)size;
    g->dy = 2.0f / (float)size;
    return 0;
}

static int host_dwell(const lab_exec_mandel_geom *g, int x, int y)
{
    return exec_dwell(x, y, g->x0, g->y0, g->dx, g->dy, g->max_dwell);
}

/* Mariani-Silver on the host: the kernel's decisions, square by square. */
static void ms_host(const lab_exec_mandel_geom *g, int *dw, int x0, int y0, int d, int depth)
{
    int comm = EXEC_DWELL_NONE;
    for (int i = 0; i < 4 * d; i++) {
        int px, py;
        exec_border_pixel(i, x0, y0, d, &px, &py);
        comm = exec_same_dwell(comm, host_dwell(g, px, py));
    }
    if (comm >= 0) {
        for (int y = y0; y < y0 + d; y++)
            for (int x = x0; x < x0 + d; x++) dw[(size_t)y * g->size + x] = comm;
    } else if (depth + 1 < LAB_MS_MAX_DEPTH && d / LAB_MS_SUBDIV >= LAB_MS_MIN_SIZE) {
        const int c = d / LAB_MS_SUBDIV;
        for (int by = 0; by < LAB_MS_SUBDIV; by++)
            for (int bx = 0; bx < LAB_MS_SUBDIV; bx++) ms_host(g, dw, x0 + bx * c, y0 + by * c, c, depth + 1);
    } else {
        for (int y = y0; y < y0 + d; y++)
            for (int x = x0; x < x0 + d; x++) dw[(size_t)y * g->size + x] = host_dwell(g, x, y);
    }
}

void lab_exec_mandel_host(int method, const lab_exec_mandel_geom *g, int *dwell)
{
    if (method == LAB_MANDEL_FLAT) {
        for (int y = 0; y < g->size; y++)
            for (int x = 0; x < g->size; x++) dwell[(size_t)y * g->size + x] = host_dwell(g, x, y);
        return;
    }
    const int d = g->size / LAB_MS_INIT_SUBDIV;
    for (int by = 0; by < LAB_MS_INIT_SUBDIV; by++)
        for (int bx = 0; bx < LAB_MS_INIT_SUBDIV; bx++) ms_host(g, dwell, bx * d, by * d, d, 0);
}

typedef struct mandel_args {
    int method;
    lab_exec_mandel_geom g;
    int *dwell;
    unsigned *st;
} mandel_args;

static cupat_status mandel_launch(cupat_ctx *ctx, void *p)
{
    const mandel_args *a = p;
    const char *what = NULL;
    return cdp(ctx, lab_exec_cdp_k_mandel(ctx->stream, a->method, &a->g, a->dwell, a->st, &what), what);
}

cupat_status lab_exec_mandel(cupat_ctx *ctx, int method, int size, int max_dwell, int reps, int *dwell, double *ms,
                             unsigned *launches)
{
    if (!ctx) return cupat__fail(NULL, INV, "lab exec: ctx is NULL");
    if (method != LAB_MANDEL_FLAT && method != LAB_MANDEL_CDP)
        return cupat__fail(ctx, INV, "lab exec: mandelbrot method = %d", method);
    mandel_args a = {method, {0}, NULL, NULL};
    if (lab_exec_mandel_geometry(size, max_dwell, &a.g))
        return cupat__fail(ctx, INV, "lab exec: mandelbrot size %d, max dwell %d (a power of two 128 to 16384; 1 to 65536)",
                           size, max_dwell);
    CUPAT_TRY(check_reps(ctx, reps));
    if (!dwell || !ms) return cupat__fail(ctx, INV, "lab exec: %s is NULL", !dwell ? "dwell" : "ms");
    CUPAT_TRY(need_cuda(ctx));
    const size_t px = (size_t)size * size;
    unsigned st[2] = {0, 0};
    float *t = times_of(ctx, reps);
    cupat_status s = t ? CUPAT_SUCCESS : no_host_memory(ctx);
    if (!s) s = cupat_malloc(ctx, (void **)&a.dwell, px * sizeof(int) + sizeof st);
    if (!s) {
        a.st = (unsigned *)(a.dwell + px);
        s = cupat_memset(ctx, a.dwell, 0xff, px * sizeof(int) + sizeof st); /* -1: unwritten */
    }
    const char *what = NULL;
    if (!s && method == LAB_MANDEL_CDP) s = cdp(ctx, lab_exec_cdp_k_mandel_prepare(&what), what);
    if (!s) s = cupat__lab_exec_time(ctx, reps, mandel_launch, &a, t);
    if (!s) s = cupat_memcpy(ctx, dwell, a.dwell, px * sizeof(int));
    if (!s) s = cupat_memcpy(ctx, st, a.st, sizeof st);
    if (!s) s = cupat_sync(ctx);
    if (!s) {
        *ms = median(t, reps);
        if (launches) *launches = method == LAB_MANDEL_CDP ? st[0] : 0;
        if (method == LAB_MANDEL_CDP && st[1])
            s = cupat__fail(ctx, CUPAT_ERROR_CUDA, "lab exec: a child grid failed to launch: %s",
                            cudaGetErrorString((cudaError_t)st[1]));
    }
    if (a.dwell) cupat_free(ctx, a.dwell);
    free(t);
    return s;
}
