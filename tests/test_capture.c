/* SPDX-License-Identifier: Apache-2.0 */
/* test_capture.c — CUDA graphs: each call docs/api.md marks capturable, run
 * once on the context's stream (which warms the workspace), then captured
 * into a graph on a capturing stream set with cupat_set_stream, the graph
 * launched twice, and each replay's outputs compared byte for byte
 * with the direct run's. A call that cannot be captured fails the test
 * (with the status and message it gave inside the capture). CUDA only. */
#include "testutil.h"

#include <cuda_runtime_api.h>
#include <stdint.h>

static cupat_ctx *ctx;
enum { N = 1 << 20 };

typedef struct {
    const char *name;
    cupat_status (*run)(void *const *in, void *const *out);
    size_t out_bytes; /* of out[0]; out[1] too when out2_bytes */
    size_t out2_bytes;
} call;

/* inputs: in[0] u32 keys, in[1] f32 values, in[2] u32 second sorted run */
static cupat_status c_saxpy(void *const *in, void *const *out)
{
    cupat_status s = cupat_memcpy(ctx, out[0], in[1], N * sizeof(float)); /* y starts as x: stream-ordered */
    return s != CUPAT_SUCCESS ? s : cupat_saxpy(ctx, N, 2.0f, in[1], out[0]);
}
static cupat_status c_vadd(void *const *in, void *const *out) { return cupat_vadd_f32(ctx, N, in[1], in[1], out[0]); }
static cupat_status c_scan(void *const *in, void *const *out)
{
    return cupat_scan(ctx, CUPAT_U32, CUPAT_OP_SUM, CUPAT_SCAN_EXCLUSIVE, N, in[0], out[0]);
}
static cupat_status c_sort(void *const *in, void *const *out)
{
    return cupat_sort(ctx, CUPAT_U32, 4, CUPAT_SORT_ASCENDING, N, in[0], out[0], in[1], out[1]);
}
static cupat_status c_sort_bits(void *const *in, void *const *out)
{
    return cupat_sort_bits(ctx, CUPAT_U32, 0, CUPAT_SORT_DESCENDING, N, in[0], out[0], NULL, NULL, 8, 24);
}
static cupat_status c_merge(void *const *in, void *const *out)
{
    return cupat_merge(ctx, CUPAT_U32, 0, CUPAT_SORT_ASCENDING, N / 2, in[2], NULL, N / 2, (const uint32_t *)in[2] + N / 2,
                       NULL, out[0], NULL);
}
static cupat_status c_reduce(void *const *in, void *const *out)
{
    return cupat_reduce(ctx, CUPAT_F32, CUPAT_OP_SUM, N, in[1], out[0]);
}
static cupat_status c_dot(void *const *in, void *const *out)
{
    return cupat_dot(ctx, CUPAT_F32, N, in[1], in[1], out[0]);
}
static cupat_status c_hist(void *const *in, void *const *out)
{
    return cupat_histogram_even(ctx, CUPAT_HIST_F32, N, in[1], 256, 0.0, 1.0, CUPAT_U32, out[0], CUPAT_HIST_OVERWRITE);
}
static cupat_status c_transpose(void *const *in, void *const *out)
{
    return cupat_transpose(ctx, 1024, N / 1024, 4, in[0], N / 1024, out[0], 1024);
}
static cupat_status c_gemm(void *const *in, void *const *out)
{
    return cupat_gemm_f32(ctx, 0, CUPAT_TRANS_N, CUPAT_TRANS_N, 512, 512, 512, 1.0f, in[1], 512,
                          (const float *)in[1] + 512 * 512, 512, 0.0f, out[0], 512);
}
static cupat_status c_conv(void *const *in, void *const *out)
{
    static const float k[9] = {1 / 16.f, 2 / 16.f, 1 / 16.f, 2 / 16.f, 4 / 16.f, 2 / 16.f, 1 / 16.f, 2 / 16.f, 1 / 16.f};
    return cupat_conv2d(ctx, CUPAT_PIXEL_F32, 1024, N / 1024, 1, in[1], 4096, out[0], 4096, 3, 3, k, CUPAT_BORDER_CLAMP);
}
static const call calls[] = {
    {"saxpy", c_saxpy, N * 4, 0},          {"vadd_f32", c_vadd, N * 4, 0},
    {"scan", c_scan, N * 4, 0},            {"sort (pairs)", c_sort, N * 4, N * 4},
    {"sort_bits", c_sort_bits, N * 4, 0},  {"merge", c_merge, N * 4, 0},
    {"reduce", c_reduce, 4, 0},            {"dot", c_dot, 4, 0},
    {"histogram_even", c_hist, 256 * 4, 0}, {"transpose", c_transpose, N * 4, 0},
    {"gemm_f32", c_gemm, 512 * 512 * 4, 0}, {"conv2d", c_conv, N * 4, 0},
};

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    ctx = test_init(argc, argv);
    if (t_backend != CUPAT_BACKEND_CUDA) {
        printf("SKIP: CUDA graphs need the CUDA backend\n");
        cupat_destroy(ctx);
        return TEST_SKIP;
    }
    uint32_t *keys = test_xmalloc(N * 4), *run2 = test_xmalloc(N * 4);
    float *vals = test_xmalloc(N * 4);
    for (size_t i = 0; i < N; i++) {
        keys[i] = (uint32_t)(i * 2654435761u);
        vals[i] = (float)((i * 40503u) % 1000) / 1000.0f;
    }
    memcpy(run2, keys, N * 4);
    qsort(run2, N / 2, 4, cmp_u32);
    qsort(run2 + N / 2, N / 2, 4, cmp_u32);
    void *in[3] = {test_upload(ctx, keys, N * 4), test_upload(ctx, vals, N * 4), test_upload(ctx, run2, N * 4)};
    void *direct[2] = {test_dalloc(ctx, N * 4), test_dalloc(ctx, N * 4)};
    void *graph_out[2] = {test_dalloc(ctx, N * 4), test_dalloc(ctx, N * 4)};
    unsigned char *h_direct = test_xmalloc(2 * N * 4), *h_graph = test_xmalloc(2 * N * 4);
    cudaStream_t s = NULL;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess, "cudaStreamCreate");

    for (size_t c = 0; c < sizeof calls / sizeof calls[0]; c++) {
        const call *k = &calls[c];
        CHECK_OK(ctx, cupat_set_stream(ctx, NULL));
        CHECK_OK(ctx, k->run(in, direct)); /* also warms the workspace */
        test_get(ctx, h_direct, direct[0], k->out_bytes);
        if (k->out2_bytes) test_get(ctx, h_direct + k->out_bytes, direct[1], k->out2_bytes);

        CHECK_OK(ctx, cupat_set_stream(ctx, (cupat_stream)s));
        test_poison(ctx, graph_out[0], N * 4);
        test_poison(ctx, graph_out[1], N * 4);
        CHECK_OK(ctx, cupat_sync(ctx));
        cudaGraph_t g = NULL;
        cudaGraphExec_t ge = NULL;
        CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal) == cudaSuccess, "%s: begin capture", k->name);
        cupat_status st = k->run(in, graph_out);
        char msg[512];
        snprintf(msg, sizeof msg, "%s", cupat_last_error(ctx));
        cudaError_t ce = cudaStreamEndCapture(s, &g);
        CHECK(st == CUPAT_SUCCESS && ce == cudaSuccess && g, "%s: captured: %s (%s), end capture %s", k->name,
              cupat_status_string(st), msg, cudaGetErrorString(ce));
        if (st != CUPAT_SUCCESS || ce != cudaSuccess || !g) {
            (void)cudaGetLastError();
            if (g) cudaGraphDestroy(g);
            continue;
        }
        CHECK(cudaGraphInstantiate(&ge, g, 0) == cudaSuccess, "%s: instantiate", k->name);
        for (int rep = 0; rep < 2 && ge; rep++) { /* replayed: the same bytes each time */
            CHECK(cudaGraphLaunch(ge, s) == cudaSuccess, "%s: launch", k->name);
            CHECK(cudaStreamSynchronize(s) == cudaSuccess, "%s: replay %d", k->name, rep);
            test_get(ctx, h_graph, graph_out[0], k->out_bytes);
            if (k->out2_bytes) test_get(ctx, h_graph + k->out_bytes, graph_out[1], k->out2_bytes);
            CHECK(memcmp(h_direct, h_graph, k->out_bytes + k->out2_bytes) == 0, "%s: replay %d differs from the direct call",
                  k->name, rep);
        }
        if (ge) cudaGraphExecDestroy(ge);
        cudaGraphDestroy(g);
        printf("%-16s captured and replayed\n", k->name);
    }
    CHECK_OK(ctx, cupat_set_stream(ctx, NULL));
    cudaStreamDestroy(s);
    for (int i = 0; i < 3; i++) test_dfree(ctx, in[i]);
    for (int i = 0; i < 2; i++) test_dfree(ctx, direct[i]), test_dfree(ctx, graph_out[i]);
    free(keys), free(run2), free(vals), free(h_direct), free(h_graph);
    return test_finish(ctx);
}
