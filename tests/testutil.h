/* SPDX-License-Identifier: Apache-2.0 */
/* testutil.h — the small harness every cupat test uses.
 *
 * A test binary takes `--backend cpu|cuda` and `--small` (sizes cut down for
 * compute-sanitizer; also CUPAT_TEST_SMALL=1). On the CUDA backend without a
 * device it exits with TEST_SKIP (77), which CTest counts as skipped.
 * CHECK records a failure and goes on; the summary line counts checks. */
#ifndef CUPAT_TESTUTIL_H
#define CUPAT_TESTUTIL_H

#include "cupat.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TEST_SKIP 77

/* printf into one of 8 rotating buffers: a label for a CHECK message, valid
 * until 8 more calls. */
static inline const char *fmt(const char *f, ...)
{
    static char buf[8][256];
    static int k;
    char *b = buf[k++ & 7];
    va_list ap;
    va_start(ap, f);
    vsnprintf(b, 256, f, ap);
    va_end(ap);
    return b;
}

static int t_checks, t_failures;
static int t_small;                       /* --small: sanitizer-sized inputs */
/* the compute-sanitizer tool the test runs under (CUPAT_TEST_SANITIZER, set
 * by scripts/sanitize-parallel and device-check), or "" */
static const char *t_sanitizer = "";
static cupat_backend t_backend = CUPAT_BACKEND_CPU;

/* Racecheck is the slowest tool by far (its cost grows with every launch and
 * every shared-memory access) and it finds a kernel's hazard at any size or
 * value. Under it a sweep runs one case in 7, in turn (a prime, so the kept
 * cases rotate through the loops' types, ops, modes and sizes), each on every
 * rung; under the other tools and outside them, every case. */
static inline int test_racecheck(void) { return !strcmp(t_sanitizer, "racecheck"); }
static inline int test_keep_case(void)
{
    static unsigned k;
    if (!test_racecheck()) return 1;
    return k++ % 7 == 0;
}

#define CHECK(cond, ...)                                                                 \
    do {                                                                                 \
        t_checks++;                                                                      \
        if (!(cond)) {                                                                   \
            t_failures++;                                                                \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);              \
            fprintf(stderr, __VA_ARGS__);                                                \
            fputc('\n', stderr);                                                         \
        }                                                                                \
    } while (0)

/* A call that must succeed; on failure prints the library's message. */
#define CHECK_OK(ctx, call)                                                              \
    do {                                                                                 \
        cupat_status s_ = (call);                                                        \
        CHECK(s_ == CUPAT_SUCCESS, "%s -> %s: %s", #call, cupat_status_string(s_),       \
              cupat_last_error(ctx));                                                    \
    } while (0)

/* A call that must fail with `want` and leave a message that mentions `needle`. */
#define CHECK_FAILS(ctx, want, needle, call)                                             \
    do {                                                                                 \
        cupat_status s_ = (call);                                                        \
        const char *m_ = cupat_last_error(ctx);                                          \
        CHECK(s_ == (want), "%s -> %s, expected %s (%s)", #call, cupat_status_string(s_), \
              cupat_status_string(want), m_);                                            \
        CHECK(strstr(m_, (needle)) != NULL, "%s: message \"%s\" lacks \"%s\"", #call, m_, \
              (needle));                                                                 \
    } while (0)

/* Parse the common flags; returns a context on the chosen backend, or exits
 * with TEST_SKIP when that backend is absent. */
static inline cupat_ctx *test_init(int argc, char **argv)
{
    const char *env = getenv("CUPAT_TEST_SMALL");
    t_small = env && *env && strcmp(env, "0") != 0;
    const char *tool = getenv("CUPAT_TEST_SANITIZER");
    if (tool) t_sanitizer = tool;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--small") == 0) t_small = 1;
        else if (strcmp(argv[i], "--backend") == 0 && i + 1 < argc) {
            const char *b = argv[++i];
            if (strcmp(b, "cpu") == 0) t_backend = CUPAT_BACKEND_CPU;
            else if (strcmp(b, "cuda") == 0) t_backend = CUPAT_BACKEND_CUDA;
            else { fprintf(stderr, "unknown backend %s\n", b); exit(2); }
        }
    }
    if (t_backend == CUPAT_BACKEND_CUDA && !cupat_cuda_available()) {
        printf("SKIP: no CUDA device present\n");
        exit(TEST_SKIP);
    }
    cupat_ctx *ctx = NULL;
    cupat_status s = cupat_create(&ctx, t_backend, -1);
    if (s != CUPAT_SUCCESS) {
        fprintf(stderr, "cupat_create(%s): %s: %s\n", cupat_backend_name(t_backend),
                cupat_status_string(s), cupat_last_error(NULL));
        exit(1);
    }
    return ctx;
}

static inline int test_finish(cupat_ctx *ctx)
{
    if (ctx) cupat_destroy(ctx);
    printf("%s: %d checks, %d failed\n", t_failures ? "FAILED" : "PASSED", t_checks,
           t_failures);
    return t_failures ? 1 : 0;
}

/* A long test program's sections: --part NAME runs one (CTest splits the long
 * suites into parts that run in parallel); each prints its seconds;
 * --list-parts prints their names ("part: NAME" a line) and exits. `after`
 * (may be NULL) runs after every part, e.g. to free pooled buffers. */
typedef struct {
    const char *name;
    void (*fn)(void);
} test_part;

static inline void test_run_parts(int argc, char **argv, const test_part *parts, size_t n,
                                  void (*after)(void))
{
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (i + 1 < argc && strcmp(argv[i], "--part") == 0) only = argv[i + 1];
        if (strcmp(argv[i], "--list-parts") == 0) { /* for scripts: a name a line, then exit */
            for (size_t k = 0; k < n; k++) printf("part: %s\n", parts[k].name);
            exit(0);
        }
    }
    int ran = 0;
    double total = 0;
    for (size_t i = 0; i < n; i++) {
        if (only && strcmp(only, parts[i].name) != 0) continue;
        struct timespec a, b;
        timespec_get(&a, TIME_UTC);
        parts[i].fn();
        if (after) after();
        timespec_get(&b, TIME_UTC);
        double dt = (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
        total += dt;
        ran++;
        printf("%-13s %6.2f s\n", parts[i].name, dt);
        fflush(stdout);
    }
    CHECK(ran > 0, "--part %s names no part of this test", only ? only : "(none)");
    printf("total %.1f s\n", total);
}

/* Seeded generator (splitmix64): fresh inputs per run come from the seed the
 * test prints, so a failure can be replayed with CUPAT_TEST_SEED. */
static uint64_t t_rng_state;
static inline void test_seed(void)
{
    const char *env = getenv("CUPAT_TEST_SEED");
    t_rng_state = env ? strtoull(env, NULL, 0) : (uint64_t)time(NULL) * 0x9E3779B97F4A7C15ull;
    printf("seed: CUPAT_TEST_SEED=%llu\n", (unsigned long long)t_rng_state);
}
static inline uint64_t test_rand(void)
{
    uint64_t z = (t_rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
/* Uniform in [-1, 1). */
static inline float test_randf(void) { return (float)((test_rand() >> 40) * 0x1p-23 - 1.0); }

/* Allocations a test cannot go on without: failure ends the test. */
static inline void *test_xmalloc(size_t bytes)
{
    void *p = calloc(1, bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "out of host memory (%zu bytes)\n", bytes);
        exit(1);
    }
    return p;
}
/* A float's bits and back (memcpy: no aliasing questions). */
static inline uint32_t test_f32_bits(float x)
{
    uint32_t u;
    memcpy(&u, &x, 4);
    return u;
}
static inline float test_bits_f32(uint32_t u)
{
    float x;
    memcpy(&x, &u, 4);
    return x;
}

static inline void *test_dalloc(cupat_ctx *ctx, size_t bytes)
{
    void *p = NULL;
    CHECK_OK(ctx, cupat_malloc(ctx, &p, bytes));
    if (!p && bytes) {
        fprintf(stderr, "cannot allocate %zu backend bytes\n", bytes);
        exit(1);
    }
    /* Defined bytes from the start (0x7f: a large finite float and double),
     * so a call a test makes on a buffer it never filled (an overlap or
     * argument case that is accepted) reads no uninitialized memory
     * (compute-sanitizer initcheck). Tests that check outputs poison them. */
    if (bytes) CHECK_OK(ctx, cupat_memset(ctx, p, 0x7f, bytes));
    return p;
}

/* Host <-> backend buffers: a backend allocation filled from host data. */
static inline void *test_upload(cupat_ctx *ctx, const void *host, size_t bytes)
{
    void *d = NULL;
    CHECK_OK(ctx, cupat_malloc(ctx, &d, bytes));
    if (d && host) CHECK_OK(ctx, cupat_memcpy(ctx, d, host, bytes));
    return d;
}
static inline void test_download(cupat_ctx *ctx, void *host, const void *dev, size_t bytes)
{
    CHECK_OK(ctx, cupat_memcpy(ctx, host, dev, bytes));
    CHECK_OK(ctx, cupat_sync(ctx));
}
/* Fill backend memory with a byte pattern (0xFF: f32 NaN) so unwritten output fails. */
static inline void test_poison(cupat_ctx *ctx, void *dev, size_t bytes)
{
    CHECK_OK(ctx, cupat_memset(ctx, dev, 0xFF, bytes));
}

/* The tests' copies (nothing for 0 bytes; get waits for the copy) and frees,
 * each call CHECKed; a test with a context `ctx` names them put / get / dfree. */
static inline void test_put(cupat_ctx *ctx, void *dev, const void *host, size_t bytes)
{
    if (bytes) CHECK_OK(ctx, cupat_memcpy(ctx, dev, host, bytes));
}
static inline void test_get(cupat_ctx *ctx, void *host, const void *dev, size_t bytes)
{
    if (bytes) CHECK_OK(ctx, cupat_memcpy(ctx, host, dev, bytes));
    CHECK_OK(ctx, cupat_sync(ctx));
}
static inline void test_dfree(cupat_ctx *ctx, void *dev) { CHECK_OK(ctx, cupat_free(ctx, dev)); }

/* The rungs of `pattern` on this backend (only `only` when not NULL; none
 * named cdp_* when skip_cdp), as indices into its ladder *list. */
static inline size_t test_rungs_of(const char *pattern, const char *only, int skip_cdp,
                                   const cupat_variant_info **list, int *idx)
{
    size_t n = 0, k = 0;
    CHECK_OK(NULL, cupat_variants(pattern, list, &n));
    for (size_t i = 0; i < n; i++) {
        if ((*list)[i].backend != t_backend) continue;
        if (only && strcmp((*list)[i].name, only) != 0) continue;
        if (skip_cdp && strncmp((*list)[i].name, "cdp_", 4) == 0) continue;
        idx[k++] = (int)i;
    }
    return k;
}

#endif
