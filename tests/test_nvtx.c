/* SPDX-License-Identifier: Apache-2.0 */
/* test_nvtx.c — the NVTX ranges of the public calls, seen by a tool: with
 * tests/nvtx_inject.c loaded as NVTX's injection library, a sort, a scan, a
 * refused call and a call inside a call (CG's SpMV) must each give a range
 * named after the function with the rung's range inside it, every push
 * popped, on the early-return path too. CUPAT_TEST_NVTX_INJECT names the
 * injection library (CTest sets it); --backend as every test. Skips (77) in
 * a build with CUPAT_NVTX off. */
#define _POSIX_C_SOURCE 200809L /* setenv, getpid */
#include "testutil.h"

#include <stdint.h>
#include <unistd.h>

static char log_path[64];

/* The log's lines from line `from` on, joined by '|'. */
static void read_log(char *buf, size_t cap, size_t *lines)
{
    FILE *f = fopen(log_path, "r");
    buf[0] = '\0';
    size_t len = 0, k = 0;
    char line[256];
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (k++ < *lines) continue;
        int w = snprintf(buf + len, cap - len, "%s%s", len ? "|" : "", line);
        if (w < 0 || (size_t)w >= cap - len) break;
        len += (size_t)w;
    }
    if (f) fclose(f);
    *lines = k;
}

int main(int argc, char **argv)
{
#if !CUPAT_NVTX
    printf("SKIP: this build has CUPAT_NVTX off (no ranges to see)\n");
    return TEST_SKIP;
#endif
    const char *inject = getenv("CUPAT_TEST_NVTX_INJECT");
    if (!inject || !*inject) {
        fprintf(stderr, "test_nvtx: set CUPAT_TEST_NVTX_INJECT to the injection library (tests/nvtx_inject.c)\n");
        return 2;
    }
    /* before the first NVTX call (cupat_create's range): NVTX reads these once */
    snprintf(log_path, sizeof log_path, "/tmp/cupat_nvtx_%ld.log", (long)getpid());
    setenv("NVTX_INJECTION64_PATH", inject, 1);
    setenv("CUPAT_NVTX_LOG", log_path, 1);
    cupat_ctx *ctx = test_init(argc, argv);
    if (t_sanitizer[0]) { /* the tool takes NVTX's injection for itself: our pushes never arrive */
        printf("SKIP: under compute-sanitizer %s the tool owns the NVTX injection\n", t_sanitizer);
        cupat_destroy(ctx);
        return TEST_SKIP;
    }
    const int cuda = cupat_get_backend(ctx) == CUPAT_BACKEND_CUDA;
    char got[2048];
    size_t seen = 0;
    read_log(got, sizeof got, &seen);
    CHECK(strcmp(got, "push cupat_create|pop") == 0, "cupat_create's range: \"%s\"", got);

    enum { N = 5000 };
    uint32_t *d = NULL, h[N];
    for (int i = 0; i < N; i++) h[i] = (uint32_t)(N - i);
    CHECK_OK(ctx, cupat_malloc(ctx, (void **)&d, sizeof h));
    CHECK_OK(ctx, cupat_memcpy(ctx, d, h, sizeof h));
    read_log(got, sizeof got, &seen);
    CHECK(strcmp(got, "push cupat_malloc|pop|push cupat_memcpy|pop") == 0, "memory calls: \"%s\"", got);

    CHECK_OK(ctx, cupat_set_variant(ctx, "sort", cuda ? "onesweep" : "serial"));
    read_log(got, sizeof got, &seen);
    CHECK_OK(ctx, cupat_sort(ctx, CUPAT_U32, 0, CUPAT_SORT_ASCENDING, N, d, d, NULL, NULL));
    read_log(got, sizeof got, &seen);
    const char *want_sort = cuda ? "push cupat_sort|push onesweep|pop|pop" : "push cupat_sort|push serial|pop|pop";
    CHECK(strcmp(got, want_sort) == 0, "sort's ranges: \"%s\", want \"%s\"", got, want_sort);

    CHECK_OK(ctx, cupat_scan(ctx, CUPAT_U32, CUPAT_OP_SUM, CUPAT_SCAN_INCLUSIVE, N, d, d));
    read_log(got, sizeof got, &seen);
    CHECK(strncmp(got, "push cupat_scan|push ", 21) == 0 && strlen(got) > 8 &&
              strcmp(got + strlen(got) - 8, "|pop|pop") == 0,
          "scan's ranges: \"%s\"", got);

    /* refused before any rung is chosen: the call's range alone, closed */
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "mode = 9",
                cupat_scan(ctx, CUPAT_U32, CUPAT_OP_SUM, (cupat_scan_mode)9, N, d, d));
    read_log(got, sizeof got, &seen);
    CHECK(strcmp(got, "push cupat_scan|pop") == 0, "a refused call's range: \"%s\"", got);

    /* a call inside a call: every push has its pop, ranges nest */
    cupat_sparse *A = NULL;
    CHECK_OK(ctx, cupat_sparse_generate(ctx, &A, CUPAT_GEN_POISSON2D, 8, 0, 1, CUPAT_I32, CUPAT_F64));
    double *b = NULL, *x = NULL, ones[64];
    for (int i = 0; i < 64; i++) ones[i] = 1.0;
    CHECK_OK(ctx, cupat_malloc(ctx, (void **)&b, sizeof ones));
    CHECK_OK(ctx, cupat_malloc(ctx, (void **)&x, sizeof ones));
    CHECK_OK(ctx, cupat_memcpy(ctx, b, ones, sizeof ones));
    CHECK_OK(ctx, cupat_memset(ctx, x, 0, sizeof ones));
    read_log(got, sizeof got, &seen);
    cupat_cg_result r;
    CHECK_OK(ctx, cupat_cg(ctx, A, b, x, 1e-10, 200, CUPAT_CG_JACOBI, NULL, 0, &r));
    read_log(got, sizeof got, &seen);
    int depth = 0, deepest = 0, balanced = 1;
    for (const char *p = got; *p;) {
        if (!strncmp(p, "push", 4)) deepest = ++depth > deepest ? depth : deepest;
        else if (!strncmp(p, "pop", 3) && --depth < 0) balanced = 0;
        p = strchr(p, '|');
        if (!p) break;
        p++;
    }
    CHECK(strncmp(got, "push cupat_cg|", 14) == 0 && balanced && depth == 0 && deepest >= 2,
          "cg's ranges: balanced %d, depth at the end %d, deepest %d: \"%.200s\"", balanced, depth, deepest, got);

    cupat_sparse_destroy(ctx, A);
    cupat_free(ctx, b);
    cupat_free(ctx, x);
    cupat_free(ctx, d);
    remove(log_path);
    return test_finish(ctx);
}
