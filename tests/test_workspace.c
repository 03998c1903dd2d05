/* SPDX-License-Identifier: Apache-2.0 */
/* test_workspace.c — the context's workspace (cupat.h): the peak a call
 * needs, a cap that refuses a larger need with nothing written, a caller's
 * buffer in the pool's place, trim, and the bad arguments of each call.
 * Sort, scan, reduce and GEMM: calls that draw on the pool on both backends.
 * Runs on both backends. */
#include "testutil.h"

#include <stdint.h>

static cupat_ctx *ctx;
enum { N = 300007 };

typedef struct {
    const char *name;
    /* run the call from in into out; out's bytes are what must stay untouched on refusal */
    cupat_status (*run)(const void *in, void *out);
    size_t out_bytes;
} call;

static cupat_status run_sort(const void *in, void *out)
{
    return cupat_sort(ctx, CUPAT_U32, 0, CUPAT_SORT_ASCENDING, N, in, out, NULL, NULL);
}
static cupat_status run_scan(const void *in, void *out)
{
    return cupat_scan(ctx, CUPAT_U32, CUPAT_OP_SUM, CUPAT_SCAN_INCLUSIVE, N, in, out);
}
static cupat_status run_reduce(const void *in, void *out)
{
    return cupat_reduce(ctx, CUPAT_U32, CUPAT_OP_SUM, N, in, out);
}
static cupat_status run_gemm(const void *in, void *out) /* the keys' bits as floats: any values do */
{
    return cupat_gemm_f32(ctx, 0, CUPAT_TRANS_N, CUPAT_TRANS_N, 256, 256, 256, 1.0f, in, 256,
                          (const float *)in + 256 * 256, 256, 0.0f, out, 256);
}
static const call calls[] = {
    {"sort", run_sort, N * sizeof(uint32_t)},
    {"scan", run_scan, N * sizeof(uint32_t)},
    {"reduce", run_reduce, sizeof(uint32_t)},
    {"gemm_f32", run_gemm, 256 * 256 * sizeof(float)},
};

static void test_bad_args(void *dev)
{
    size_t peak = 0, held = 0;
    CHECK_FAILS(NULL, CUPAT_ERROR_NULL_POINTER, "ctx is NULL", cupat_set_workspace_limit(NULL, 1));
    CHECK_FAILS(NULL, CUPAT_ERROR_NULL_POINTER, "ctx is NULL", cupat_set_workspace(NULL, NULL, 0));
    CHECK_FAILS(NULL, CUPAT_ERROR_NULL_POINTER, "ctx is NULL", cupat_trim(NULL));
    CHECK_FAILS(NULL, CUPAT_ERROR_NULL_POINTER, "ctx is NULL", cupat_get_workspace(NULL, &peak, &held));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "peak_bytes and held_bytes are NULL",
                cupat_get_workspace(ctx, NULL, NULL));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "ptr NULL with bytes = 64", cupat_set_workspace(ctx, NULL, 64));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "ptr given with bytes = 0", cupat_set_workspace(ctx, dev, 0));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "not 256-byte aligned",
                cupat_set_workspace(ctx, (char *)dev + 16, 1024));
    if (t_backend == CUPAT_BACKEND_CUDA) {
        static _Alignas(256) unsigned char host[1024];
        CHECK_FAILS(ctx, CUPAT_ERROR_HOST_POINTER, "ptr", cupat_set_workspace(ctx, host, sizeof host));
    }
}

int main(int argc, char **argv)
{
    ctx = test_init(argc, argv);
    const size_t bytes = N * sizeof(uint32_t);
    uint32_t *h = test_xmalloc(bytes), *h_out = test_xmalloc(bytes), *h_poison = test_xmalloc(bytes);
    for (size_t i = 0; i < N; i++) h[i] = (uint32_t)(i * 2654435761u);
    memset(h_poison, 0xAB, bytes);
    void *in = test_upload(ctx, h, bytes), *out = test_dalloc(ctx, bytes);
    test_bad_args(out);

    size_t peak = 1, held = 1;
    CHECK_OK(ctx, cupat_trim(ctx));
    CHECK_OK(ctx, cupat_get_workspace(ctx, &peak, &held));
    CHECK(peak == 0 && held == 0, "after trim: peak %zu, held %zu", peak, held);

    for (size_t c = 0; c < sizeof calls / sizeof calls[0]; c++) {
        const call *k = &calls[c];
        /* what it needs, unlimited */
        CHECK_OK(ctx, cupat_trim(ctx));
        CHECK_OK(ctx, k->run(in, out));
        size_t need = 0;
        CHECK_OK(ctx, cupat_get_workspace(ctx, &need, &held));
        CHECK(held >= need, "%s: peak %zu, held %zu", k->name, need, held);
        printf("%s needs %zu bytes of workspace (%s)\n", k->name, need, cupat_backend_name(t_backend));
        if (!need) continue; /* a rung that needs none (a GEMM shape on CUDA may not): nothing to cap */

        /* a cap below the need: refused, nothing written, the pool within the cap */
        CHECK_OK(ctx, cupat_trim(ctx));
        CHECK_OK(ctx, cupat_set_workspace_limit(ctx, need - 1));
        test_put(ctx, out, h_poison, k->out_bytes);
        CHECK_FAILS(ctx, CUPAT_ERROR_OUT_OF_MEMORY, "the limit is", k->run(in, out));
        test_get(ctx, h_out, out, k->out_bytes);
        CHECK(memcmp(h_out, h_poison, k->out_bytes) == 0, "%s refused under the cap wrote its output", k->name);
        CHECK_OK(ctx, cupat_get_workspace(ctx, &peak, &held));
        CHECK(held <= need - 1, "%s: %zu bytes held under a cap of %zu", k->name, held, need - 1);
        /* a cap at the need: runs, and the pool stays within it */
        CHECK_OK(ctx, cupat_set_workspace_limit(ctx, need));
        CHECK_OK(ctx, k->run(in, out));
        CHECK_OK(ctx, cupat_get_workspace(ctx, &peak, &held));
        CHECK(held <= need, "%s: %zu bytes held under a cap of %zu", k->name, held, need);
        CHECK_OK(ctx, cupat_set_workspace_limit(ctx, 0));

        /* the caller's buffer: used in place of the pool; one byte short is refused */
        void *ws = test_dalloc(ctx, need);
        CHECK_OK(ctx, cupat_set_workspace(ctx, ws, need));
        CHECK_OK(ctx, cupat_get_workspace(ctx, NULL, &held));
        CHECK(held == need, "%s: the caller's buffer holds %zu, reported %zu", k->name, need, held);
        test_put(ctx, out, h_poison, k->out_bytes);
        CHECK_OK(ctx, k->run(in, out));
        test_get(ctx, h_out, out, k->out_bytes);
        CHECK(memcmp(h_out, h_poison, k->out_bytes) != 0, "%s with the caller's workspace wrote nothing", k->name);
        CHECK_OK(ctx, cupat_set_workspace(ctx, ws, need - 1));
        test_put(ctx, out, h_poison, k->out_bytes);
        CHECK_FAILS(ctx, CUPAT_ERROR_OUT_OF_MEMORY, "cupat_set_workspace", k->run(in, out));
        test_get(ctx, h_out, out, k->out_bytes);
        CHECK(memcmp(h_out, h_poison, k->out_bytes) == 0, "%s refused by a short buffer wrote its output", k->name);
        CHECK_OK(ctx, cupat_set_workspace(ctx, NULL, 0)); /* the pool again */
        CHECK_OK(ctx, cupat_sync(ctx));
        test_dfree(ctx, ws);
    }

    /* results with the caller's workspace equal the pool's */
    CHECK_OK(ctx, run_sort(in, out));
    test_get(ctx, h_out, out, bytes);
    size_t need = 0;
    CHECK_OK(ctx, cupat_get_workspace(ctx, &need, NULL));
    void *ws = test_dalloc(ctx, need);
    CHECK_OK(ctx, cupat_set_workspace(ctx, ws, need));
    uint32_t *h_ws = test_xmalloc(bytes);
    CHECK_OK(ctx, run_sort(in, out));
    test_get(ctx, h_ws, out, bytes);
    CHECK(memcmp(h_out, h_ws, bytes) == 0, "sort with the caller's workspace differs from the pool's");
    int sorted = 1;
    for (size_t i = 1; i < N; i++) sorted &= h_ws[i - 1] <= h_ws[i];
    CHECK(sorted, "sort with the caller's workspace is sorted");
    CHECK_OK(ctx, cupat_set_workspace(ctx, NULL, 0));
    CHECK_OK(ctx, cupat_sync(ctx));
    test_dfree(ctx, ws);

    test_dfree(ctx, in);
    test_dfree(ctx, out);
    free(h), free(h_out), free(h_poison), free(h_ws);
    return test_finish(ctx);
}
