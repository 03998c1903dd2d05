/* SPDX-License-Identifier: Apache-2.0 */
/* test_core.c — the API contract: statuses and messages, contexts, memory,
 * pointer checks, the variant registry. Runs on both backends. */
#include "testutil.h"

#include "internal.h"

#include <cuda_runtime_api.h>
#include <stdint.h>

static void test_status(void)
{
    for (int s = CUPAT_SUCCESS; s <= CUPAT_ERROR_INTERNAL; s++)
        CHECK(strncmp(cupat_status_string((cupat_status)s), "CUPAT_", 6) == 0, "status %d", s);
    CHECK(strcmp(cupat_status_string((cupat_status)999), "CUPAT_ERROR_UNKNOWN_STATUS") == 0,
          "unknown status name");
    char want[32];
    snprintf(want, sizeof want, "%d.%d.%d", CUPAT_VERSION_MAJOR, CUPAT_VERSION_MINOR,
             CUPAT_VERSION_PATCH);
    CHECK(strcmp(cupat_version(), want) == 0, "version %s != %s", cupat_version(), want);
}

/* cupat_get_version and the header / library match. */
static void test_version(void)
{
    int v = -1;
    CHECK_OK(NULL, cupat_get_version(&v));
    CHECK(v == CUPAT_VERSION, "cupat_get_version %d, header %d", v, CUPAT_VERSION);
    CHECK(v == CUPAT_VERSION_MAJOR * 10000 + CUPAT_VERSION_MINOR * 100 + CUPAT_VERSION_PATCH, "version %d", v);
    CHECK_FAILS(NULL, CUPAT_ERROR_NULL_POINTER, "version is NULL", cupat_get_version(NULL));
    CHECK_OK(NULL, cupat_check_version(CUPAT_VERSION));
    /* another patch level of the same minor: served */
    CHECK_OK(NULL, cupat_check_version(CUPAT_VERSION - CUPAT_VERSION_PATCH + 99));
    CHECK_FAILS(NULL, CUPAT_ERROR_NOT_SUPPORTED, "another major version",
                cupat_check_version(CUPAT_VERSION + 10000));
    if (CUPAT_VERSION_MAJOR == 0) {
        CHECK_FAILS(NULL, CUPAT_ERROR_NOT_SUPPORTED, "one minor version", cupat_check_version(CUPAT_VERSION + 100));
        CHECK_FAILS(NULL, CUPAT_ERROR_NOT_SUPPORTED, "0.2.0 (200)", cupat_check_version(200));
    } else {
        CHECK_OK(NULL, cupat_check_version(CUPAT_VERSION_MAJOR * 10000));
        CHECK_FAILS(NULL, CUPAT_ERROR_NOT_SUPPORTED, "newer than the library",
                    cupat_check_version(CUPAT_VERSION + 100));
    }
    CHECK_FAILS(NULL, CUPAT_ERROR_NOT_SUPPORTED, "header_version = -1", cupat_check_version(-1));
}

static void test_create(void)
{
    cupat_ctx *c = (cupat_ctx *)1;
    CHECK_FAILS(NULL, CUPAT_ERROR_NULL_POINTER, "ctx is NULL",
                cupat_create(NULL, CUPAT_BACKEND_CPU, 0));
    CHECK_FAILS(NULL, CUPAT_ERROR_INVALID_VALUE, "backend = 7",
                cupat_create(&c, (cupat_backend)7, 0));
    CHECK(c == NULL, "failed create leaves *ctx NULL");
    CHECK_FAILS(NULL, CUPAT_ERROR_INVALID_VALUE, "device = -5",
                cupat_create(&c, CUPAT_BACKEND_AUTO, -5));
    if (!cupat_cuda_available()) {
        /* No driver here (the CI machine): CUDA refuses, AUTO falls back. */
        CHECK_FAILS(NULL, CUPAT_ERROR_NO_DEVICE, "CUDA",
                    cupat_create(&c, CUPAT_BACKEND_CUDA, 0));
        CHECK_OK(NULL, cupat_create(&c, CUPAT_BACKEND_AUTO, -1));
        CHECK(cupat_get_backend(c) == CUPAT_BACKEND_CPU, "AUTO without GPU is CPU");
        CHECK(cupat_get_device(c) == -1, "CPU device index is -1");
        cupat_destroy(c);
    } else {
        CHECK_OK(NULL, cupat_create(&c, CUPAT_BACKEND_AUTO, -1));
        CHECK(cupat_get_backend(c) == CUPAT_BACKEND_CUDA, "AUTO with GPU is CUDA");
        cupat_destroy(c);
        CHECK_FAILS(NULL, CUPAT_ERROR_INVALID_VALUE, "device = 4096",
                    cupat_create(&c, CUPAT_BACKEND_CUDA, 4096));
    }
    CHECK(cupat_destroy(NULL) == CUPAT_SUCCESS, "destroy(NULL)");
    CHECK_FAILS(NULL, CUPAT_ERROR_NULL_POINTER, "ctx is NULL", cupat_sync(NULL));
    CHECK_FAILS(NULL, CUPAT_ERROR_NULL_POINTER, "ctx is NULL",
                cupat_malloc(NULL, (void **)&c, 16));
}

static void test_memory(cupat_ctx *ctx)
{
    void *p = (void *)1;
    CHECK_OK(ctx, cupat_malloc(ctx, &p, 0));
    CHECK(p == NULL, "malloc of 0 bytes gives NULL");
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "ptr is NULL", cupat_malloc(ctx, NULL, 8));
    /* Skipped in --small mode: compute-sanitizer counts the refused cudaMalloc
     * as an API error even though the library handles it. */
    if (!t_small) {
        CHECK_FAILS(ctx, CUPAT_ERROR_OUT_OF_MEMORY, "bytes = ",
                    cupat_malloc(ctx, &p, SIZE_MAX / 2));
        CHECK(p == NULL, "failed malloc leaves NULL");
    }
    CHECK_OK(ctx, cupat_free(ctx, NULL));

    enum { N = 4099 };
    static uint32_t h[N], back[N];
    for (int i = 0; i < N; i++) h[i] = (uint32_t)test_rand();
    uint32_t *d = test_upload(ctx, h, sizeof h);
    test_download(ctx, back, d, sizeof back);
    CHECK(memcmp(h, back, sizeof h) == 0, "memcpy round trip");
    /* Backend-to-backend copy, overlapping-free, direction inferred. */
    uint32_t *d2 = test_upload(ctx, NULL, sizeof h);
    CHECK_OK(ctx, cupat_memcpy(ctx, d2, d, sizeof h));
    CHECK_OK(ctx, cupat_memset(ctx, d, 0xAB, 16));
    test_download(ctx, back, d2, sizeof back);
    CHECK(memcmp(h, back, sizeof h) == 0, "backend-to-backend copy");
    test_download(ctx, back, d, sizeof back);
    CHECK(back[0] == 0xABABABABu && back[3] == 0xABABABABu && back[4] == h[4], "memset");
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "dst is NULL", cupat_memcpy(ctx, NULL, h, 4));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "src is NULL", cupat_memcpy(ctx, h, NULL, 4));
    CHECK_OK(ctx, cupat_memcpy(ctx, NULL, NULL, 0));

    cupat_memory_kind k;
    CHECK_OK(ctx, cupat_pointer_kind(ctx, h, &k));
    CHECK(k == CUPAT_MEMORY_HOST, "static array is pageable host memory (%d)", (int)k);
    CHECK_OK(ctx, cupat_pointer_kind(ctx, d, &k));
    CHECK(k == (cupat_get_backend(ctx) == CUPAT_BACKEND_CUDA ? CUPAT_MEMORY_DEVICE
                                                             : CUPAT_MEMORY_HOST),
          "cupat_malloc memory kind (%d)", (int)k);
    if (cupat_get_backend(ctx) == CUPAT_BACKEND_CUDA) {
        /* The host-pointer check names the argument. */
        CHECK_FAILS(ctx, CUPAT_ERROR_HOST_POINTER, "dst", cupat_memset(ctx, h, 0, 4));
        void *pinned = NULL;
        CHECK(cudaMallocHost(&pinned, 64) == cudaSuccess, "cudaMallocHost");
        CHECK_OK(ctx, cupat_pointer_kind(ctx, pinned, &k));
        CHECK(k == CUPAT_MEMORY_HOST_PINNED, "pinned kind (%d)", (int)k);
        cudaFreeHost(pinned);
    }
    CHECK_OK(ctx, cupat_free(ctx, d));
    CHECK_OK(ctx, cupat_free(ctx, d2));
}

/* cupat_free of what is not a live cupat_malloc block, and copies between
 * overlapping ranges: refused with a status and a message, the context
 * still usable (the CPU backend once passed such pointers to free(), which
 * aborted the process; a CUDA error from cudaFree must not stick). */
static void test_bad_free_and_overlap(cupat_ctx *ctx)
{
    const int cuda = cupat_get_backend(ctx) == CUPAT_BACKEND_CUDA;
    unsigned char *p = NULL;
    CHECK_OK(ctx, cupat_malloc(ctx, (void **)&p, 64));
    CHECK_OK(ctx, cupat_free(ctx, p));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, fmt("ptr = %p is not live memory", (void *)p),
                cupat_free(ctx, p)); /* twice */
    if (cuda) CHECK(cudaGetLastError() == cudaSuccess, "a refused cudaFree left an error");
    void *h = malloc(64); /* host memory cupat_malloc never gave */
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "not live memory from cupat_malloc",
                cupat_free(ctx, h));
    free(h);
    int local;
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "not live memory", cupat_free(ctx, &local));
    CHECK_OK(ctx, cupat_malloc(ctx, (void **)&p, 64));
    /* inside a live block: refused on both backends, and CUDA is never asked */
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "not live memory", cupat_free(ctx, p + 8));
    if (cuda) CHECK(cudaGetLastError() == cudaSuccess, "a refused free left a CUDA error");
    CHECK_OK(ctx, cupat_sync(ctx)); /* still usable */
    /* a block of the other backend: refused, not handed to free() or cudaFree */
    cupat_ctx *cpu = NULL;
    if (cuda && cupat_create(&cpu, CUPAT_BACKEND_CPU, -1) == CUPAT_SUCCESS) {
        void *hb = NULL;
        CHECK_OK(cpu, cupat_malloc(cpu, &hb, 64));
        CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "on this backend", cupat_free(ctx, hb));
        CHECK_FAILS(cpu, CUPAT_ERROR_INVALID_VALUE, "on this backend", cupat_free(cpu, p));
        CHECK_OK(cpu, cupat_free(cpu, hb));
        cupat_destroy(cpu);
    }
    CHECK_OK(ctx, cupat_memset(ctx, p, 0, 64)); /* the copies below read it */

    /* A cleanup path's free keeps the failure's message. */
    void *q = NULL;
    CHECK_OK(ctx, cupat_malloc(ctx, &q, 32));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "dst is NULL", cupat_memcpy(ctx, NULL, p, 4));
    cupat__release(ctx, q);
    cupat__release(ctx, &local); /* refused, silently */
    CHECK(strstr(cupat_last_error(ctx), "dst is NULL") != NULL, "cupat__release kept the message");

    /* Overlapping ranges are refused; the same range is a no-op; adjacent is fine. */
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "overlaps", cupat_memcpy(ctx, p + 1, p, 16));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "dst", cupat_memcpy(ctx, p, p + 15, 16));
    CHECK_OK(ctx, cupat_memcpy(ctx, p, p, 16));
    CHECK_OK(ctx, cupat_memcpy(ctx, p + 16, p, 16));
    static unsigned char hbuf[32];
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "overlaps", cupat_memcpy(ctx, hbuf + 4, hbuf, 8));
    CHECK_OK(ctx, cupat_free(ctx, p));

    /* A block may be freed through another context of the same backend. */
    cupat_ctx *other = NULL;
    if (cupat_create(&other, cupat_get_backend(ctx), -1) == CUPAT_SUCCESS) {
        CHECK_OK(ctx, cupat_malloc(ctx, (void **)&p, 128));
        CHECK_OK(other, cupat_free(other, p));
        CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "not live", cupat_free(ctx, p));
        cupat_destroy(other);
    }
    /* Many blocks: the set grows and shrinks (every one freed once). */
    enum { NB = 5000 };
    static void *blk[NB];
    int ok = 1;
    for (int i = 0; i < NB; i++) ok &= cupat_malloc(ctx, &blk[i], 16 + (size_t)i % 7) == 0;
    for (int i = 0; i < NB; i += 2) ok &= cupat_free(ctx, blk[i]) == 0;
    for (int i = 0; i < NB; i += 2) ok &= cupat_free(ctx, blk[i]) == CUPAT_ERROR_INVALID_VALUE;
    for (int i = 1; i < NB; i += 2) ok &= cupat_free(ctx, blk[i]) == 0;
    CHECK(ok, "5000 blocks: allocated, freed once each, the second frees refused");
}

static void test_streams(cupat_ctx *ctx)
{
    CHECK(cupat_get_stream(ctx) != NULL || cupat_get_backend(ctx) == CUPAT_BACKEND_CPU,
          "a CUDA context always has a stream");
    if (cupat_get_backend(ctx) != CUPAT_BACKEND_CUDA) {
        CHECK_FAILS(ctx, CUPAT_ERROR_NOT_SUPPORTED, "CPU backend",
                    cupat_set_stream(ctx, (cupat_stream)(uintptr_t)16));
        CHECK_OK(ctx, cupat_set_stream(ctx, NULL));
        return;
    }
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s) == cudaSuccess, "cudaStreamCreate");
    CHECK_OK(ctx, cupat_set_stream(ctx, (cupat_stream)s));
    CHECK(cupat_get_stream(ctx) == (cupat_stream)s, "user stream in use");
    enum { N = 1000 };
    static float a[N], b[N], c[N];
    for (int i = 0; i < N; i++) { a[i] = test_randf(); b[i] = test_randf(); }
    float *da = test_upload(ctx, a, sizeof a), *db = test_upload(ctx, b, sizeof b);
    float *dc = test_upload(ctx, NULL, sizeof c);
    CHECK_OK(ctx, cupat_vadd_f32(ctx, N, da, db, dc));
    test_download(ctx, c, dc, sizeof c);
    int bad = 0;
    for (int i = 0; i < N; i++) bad += c[i] != a[i] + b[i];
    CHECK(bad == 0, "vadd on a user stream: %d wrong", bad);
    CHECK_OK(ctx, cupat_set_stream(ctx, NULL));
    CHECK(cupat_get_stream(ctx) != (cupat_stream)s, "back to the context's stream");
    cupat_free(ctx, da);
    cupat_free(ctx, db);
    cupat_free(ctx, dc);
    cudaStreamDestroy(s);
}

static void test_registry(cupat_ctx *ctx)
{
    const char *const *names;
    size_t np = 0;
    CHECK_OK(NULL, cupat_patterns(&names, &np));
    CHECK(np >= 5, "at least the elementwise family is registered (%zu)", np);
    for (size_t p = 0; p < np; p++) {
        const cupat_variant_info *v;
        size_t nv = 0;
        CHECK_OK(NULL, cupat_variants(names[p], &v, &nv));
        int defaults[3] = {0, 0, 0}, rungs[3] = {0, 0, 0};
        for (size_t i = 0; i < nv; i++) {
            CHECK(v[i].name && *v[i].name && v[i].technique && *v[i].technique &&
                      v[i].source && *v[i].source,
                  "%s rung %zu documents name, technique and source", names[p], i);
            CHECK(strcmp(v[i].pattern, names[p]) == 0, "%s rung %s names its pattern",
                  names[p], v[i].name);
            CHECK(v[i].backend == CUPAT_BACKEND_CPU || v[i].backend == CUPAT_BACKEND_CUDA,
                  "%s/%s backend", names[p], v[i].name);
            rungs[v[i].backend]++;
            if (v[i].is_default) defaults[v[i].backend]++;
            for (size_t j = 0; j < i; j++)
                CHECK(strcmp(v[i].name, v[j].name) != 0, "%s: rung %s twice", names[p],
                      v[i].name);
        }
        /* Every pattern has its CPU rung (the reference); a ladder whose CUDA
         * rungs are not built yet (gemm_tc) registers none rather than a stub,
         * and then has no CUDA default. */
        CHECK(defaults[CUPAT_BACKEND_CPU] == 1 &&
                  defaults[CUPAT_BACKEND_CUDA] == (rungs[CUPAT_BACKEND_CUDA] > 0),
              "%s: one default per backend with rungs (cpu %d, cuda %d of %d rungs)",
              names[p], defaults[CUPAT_BACKEND_CPU], defaults[CUPAT_BACKEND_CUDA],
              rungs[CUPAT_BACKEND_CUDA]);
        const cupat_variant_info *sel;
        if (rungs[cupat_get_backend(ctx)] == 0) {
            /* nothing to select or pin here: refused, naming the backend */
            CHECK_FAILS(ctx, CUPAT_ERROR_NOT_SUPPORTED, "has no rung for the",
                        cupat_get_variant(ctx, names[p], &sel));
            for (size_t i = 0; i < nv; i++)
                CHECK_FAILS(ctx, CUPAT_ERROR_NOT_SUPPORTED, "its default: none",
                            cupat_set_variant(ctx, names[p], v[i].name));
            continue;
        }
        CHECK_OK(ctx, cupat_get_variant(ctx, names[p], &sel));
        CHECK(sel && sel->is_default && sel->backend == cupat_get_backend(ctx),
              "%s: default rung of this backend selected", names[p]);
        /* Pin each rung of this backend. A rung of the other backend pins
         * its technique twin here (CPU "openmp_X" <-> CUDA "X"), or is
         * refused with a message naming the rungs of this backend. */
        for (size_t i = 0; i < nv; i++) {
            if (v[i].backend == cupat_get_backend(ctx)) {
                CHECK_OK(ctx, cupat_set_variant(ctx, names[p], v[i].name));
                CHECK_OK(ctx, cupat_get_variant(ctx, names[p], &sel));
                CHECK(sel == &v[i], "%s: pinned %s", names[p], v[i].name);
                continue;
            }
            char twin[96] = "";
            if (v[i].backend == CUPAT_BACKEND_CUDA)
                snprintf(twin, sizeof twin, "openmp_%s", v[i].name);
            else if (strncmp(v[i].name, "openmp_", 7) == 0)
                snprintf(twin, sizeof twin, "%s", v[i].name + 7);
            const cupat_variant_info *here = NULL;
            for (size_t j = 0; twin[0] && j < nv; j++)
                if (v[j].backend == cupat_get_backend(ctx) && strcmp(v[j].name, twin) == 0)
                    here = &v[j];
            if (here) {
                CHECK_OK(ctx, cupat_set_variant(ctx, names[p], v[i].name));
                CHECK_OK(ctx, cupat_get_variant(ctx, names[p], &sel));
                CHECK(sel == here, "%s: %s pins %s here", names[p], v[i].name, here->name);
            } else {
                CHECK_FAILS(ctx, CUPAT_ERROR_NOT_SUPPORTED, v[i].name,
                            cupat_set_variant(ctx, names[p], v[i].name));
                const cupat_variant_info *d = NULL;
                CHECK_OK(ctx, cupat_get_variant(ctx, names[p], &d));
                CHECK_FAILS(ctx, CUPAT_ERROR_NOT_SUPPORTED, d ? d->name : "?",
                            cupat_set_variant(ctx, names[p], v[i].name));
            }
        }
        CHECK_OK(ctx, cupat_set_variant(ctx, names[p], "default"));
        CHECK_OK(ctx, cupat_get_variant(ctx, names[p], &sel));
        CHECK(sel && sel->is_default, "%s: back to default", names[p]);
    }
    const cupat_variant_info *v;
    size_t nv;
    CHECK_FAILS(NULL, CUPAT_ERROR_NOT_FOUND, "unknown pattern \"nosuch\"",
                cupat_variants("nosuch", &v, &nv));
    CHECK_FAILS(NULL, CUPAT_ERROR_NULL_POINTER, "pattern is NULL", cupat_variants(NULL, &v, &nv));
    CHECK_FAILS(ctx, CUPAT_ERROR_NOT_FOUND, "no rung \"warp-drive\"",
                cupat_set_variant(ctx, "vadd", "warp-drive"));
    CHECK_FAILS(ctx, CUPAT_ERROR_NOT_FOUND, "vadd", cupat_set_variant(ctx, "nosuch", "x"));
    /* issue 18.10: get_variant's messages name it, not an internal function */
    const cupat_variant_info *sel = NULL;
    CHECK_FAILS(ctx, CUPAT_ERROR_NOT_FOUND, "cupat_get_variant: unknown pattern \"nosuch\"",
                cupat_get_variant(ctx, "nosuch", &sel));
    CHECK(!strstr(cupat_last_error(ctx), "cupat__"), "internal name in \"%s\"",
          cupat_last_error(ctx));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "cupat_get_variant: pattern is NULL",
                cupat_get_variant(ctx, NULL, &sel));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "cupat_get_variant: info is NULL",
                cupat_get_variant(ctx, "vadd", NULL));
}

/* cupat__overlap, the one overlap test of every pattern, against a byte map:
 * random pitched extents (lines, run, pitch) in a small arena, where the
 * hulls of two extents often meet but their runs may not. */
static void mark(unsigned char *map, size_t off, size_t lines, size_t run, size_t pitch)
{
    for (size_t i = 0; i < lines; i++)
        for (size_t b = 0; b < run; b++) map[off + i * pitch + b] = 1;
}

static void test_overlap(void)
{
    enum { ARENA = 640 };
    const uintptr_t base = 0x100000;
    size_t wrong = 0, hits = 0, cases = 20000;
    for (size_t c = 0; c < cases; c++) {
        size_t off[2], lines[2], run[2], pitch[2];
        unsigned char map[2][ARENA];
        for (int k = 0; k < 2; k++) {
            lines[k] = test_rand() % 6;
            run[k] = test_rand() % 24;
            pitch[k] = (c & 1) ? run[k] + test_rand() % 24 : 8 + 8 * (test_rand() % 4);
            if (pitch[k] < run[k]) pitch[k] = run[k]; /* a leading dimension >= the run */
            off[k] = test_rand() % 256;
            memset(map[k], 0, ARENA);
            mark(map[k], off[k], lines[k], run[k], pitch[k]);
        }
        int want = 0;
        for (size_t b = 0; b < ARENA; b++) want |= map[0][b] & map[1][b];
        cupat__extent a = cupat__extent2((const void *)(base + off[0]), lines[0], run[0], pitch[0]);
        cupat__extent e = cupat__extent2((const void *)(base + off[1]), lines[1], run[1], pitch[1]);
        int got = cupat__overlap(a, e), rev = cupat__overlap(e, a);
        hits += want;
        if (got != want || rev != want) {
            if (!wrong)
                fprintf(stderr, "overlap {%zu, %zu x %zu / %zu} {%zu, %zu x %zu / %zu}: %d %d, want %d\n",
                        off[0], lines[0], run[0], pitch[0], off[1], lines[1], run[1], pitch[1],
                        got, rev, want);
            wrong++;
        }
    }
    CHECK(wrong == 0, "cupat__overlap wrong on %zu of %zu cases", wrong, cases);
    CHECK(hits > cases / 10 && hits < cases - cases / 10, "both outcomes drawn (%zu of %zu)",
          hits, cases);
    /* a contiguous extent, and empty ones */
    char buf[64];
    CHECK(cupat__overlap(cupat__extent1(buf, 8), cupat__extent1(buf + 7, 1)), "last byte");
    CHECK(!cupat__overlap(cupat__extent1(buf, 8), cupat__extent1(buf + 8, 8)), "adjacent");
    CHECK(!cupat__overlap(cupat__extent1(buf, 0), cupat__extent1(buf, 8)), "empty");
}

int main(int argc, char **argv)
{
    cupat_ctx *ctx = test_init(argc, argv);
    test_seed();
    test_status();
    test_version();
    test_create();
    test_memory(ctx);
    test_bad_free_and_overlap(ctx);
    test_streams(ctx);
    test_registry(ctx);
    test_overlap();
    /* A failure's message stays until the next call on the context. */
    cupat_set_variant(ctx, "nosuch", "x");
    CHECK(strstr(cupat_last_error(ctx), "nosuch") != NULL, "message kept");
    CHECK_OK(ctx, cupat_sync(ctx));
    CHECK(cupat_last_error(ctx)[0] == '\0', "message cleared by a successful call");
    return test_finish(ctx);
}
