/* SPDX-License-Identifier: Apache-2.0 */
/* test_access.c — the kernels of `cupat lab access` checked like any rung:
 * exact outputs against reference loops, unwritten elements left alone.
 * They are CUDA experiments: the CPU run has nothing to test and skips. */
#include "testutil.h"

#include "access/access.h"

#include <cuda_runtime_api.h>

static float *upload_f32(cupat_ctx *ctx, const float *h, size_t n)
{
    return test_upload(ctx, h, n * sizeof(float));
}

static void test_offset(cupat_ctx *ctx)
{
    const size_t n = t_small ? 4099 : 100003;
    static const size_t offsets[] = {0, 1, 11, 31, 32, 33, 128};
    static const unsigned blocks[] = {256, 100};
    float *a = malloc(n * 4), *b = malloc(n * 4), *c = malloc(n * 4);
    for (size_t i = 0; i < n; i++) a[i] = test_randf(), b[i] = test_randf();
    float *da = upload_f32(ctx, a, n), *db = upload_f32(ctx, b, n), *dc = upload_f32(ctx, NULL, n);
    for (int kind = LAB_READ_OFFSET; kind <= LAB_READ_OFFSET_UNROLL4; kind++)
        for (size_t oi = 0; oi < sizeof offsets / sizeof offsets[0]; oi++)
            for (size_t bi = 0; bi < 2; bi++) {
                size_t off = offsets[oi], m = n - off, bad = 0;
                test_poison(ctx, dc, n * 4);
                CHECK_OK(ctx, cupat__lab_offset(ctx, kind, da, db, dc, n, off, blocks[bi]));
                test_download(ctx, c, dc, n * 4);
                for (size_t k = 0; k < n; k++) {
                    int written = kind == LAB_WRITE_OFFSET ? k >= off : k < m;
                    size_t src = kind == LAB_WRITE_OFFSET ? k - off : k + off;
                    float want = written ? a[src] + b[src] : 0.0f;
                    uint32_t got;
                    memcpy(&got, &c[k], 4);
                    if (written ? c[k] != want : got != 0xFFFFFFFFu) bad++;
                }
                CHECK(bad == 0, "offset kind %d, offset %zu, block %u: %zu wrong", kind, off,
                      blocks[bi], bad);
            }
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "offset = ",
                cupat__lab_offset(ctx, LAB_READ_OFFSET, da, db, dc, 10, 11, 256));
    CHECK_OK(ctx, cupat__lab_offset(ctx, LAB_READ_OFFSET, da, db, dc, 10, 10, 256));
    cupat_free(ctx, da), cupat_free(ctx, db), cupat_free(ctx, dc);
    free(a), free(b), free(c);
}

static void test_aos(cupat_ctx *ctx)
{
    const size_t n = t_small ? 5003 : 300007;
    float *h = malloc(2 * n * 4), *got = malloc(2 * n * 4);
    for (size_t i = 0; i < 2 * n; i++) h[i] = test_randf();
    float *din = upload_f32(ctx, h, 2 * n), *dout = upload_f32(ctx, NULL, 2 * n);
    for (int kind = LAB_AOS; kind <= LAB_SOA_ONE; kind++) {
        size_t bad = 0;
        CHECK_OK(ctx, cupat_memcpy(ctx, dout, din, 2 * n * 4));
        /* AoS: interleaved x, y. SoA: x = h[0..n), y = h[n..2n). */
        switch (kind) {
        case LAB_AOS:
        case LAB_AOS_F2:
            CHECK_OK(ctx, cupat__lab_aos(ctx, kind, n, din, dout, NULL, NULL, NULL, NULL));
            break;
        case LAB_SOA:
            CHECK_OK(ctx, cupat__lab_aos(ctx, kind, n, NULL, NULL, din, din + n, dout, dout + n));
            break;
        case LAB_AOS_ONE:
            CHECK_OK(ctx, cupat__lab_aos(ctx, kind, n, NULL, dout, NULL, NULL, NULL, NULL));
            break;
        case LAB_SOA_ONE:
            CHECK_OK(ctx, cupat__lab_aos(ctx, kind, n, NULL, NULL, NULL, din + n, dout, NULL));
            break;
        }
        test_download(ctx, got, dout, 2 * n * 4);
        for (size_t i = 0; i < n; i++) {
            float wx, wy, gx, gy;
            if (kind == LAB_AOS || kind == LAB_AOS_F2 || kind == LAB_AOS_ONE) {
                gx = got[2 * i], gy = got[2 * i + 1];
                wx = kind == LAB_AOS_ONE ? h[2 * i + 1] : h[2 * i] + 10.0f;
                wy = kind == LAB_AOS_ONE ? h[2 * i + 1] : h[2 * i + 1] + 20.0f;
            } else {
                gx = got[i], gy = got[n + i];
                wx = kind == LAB_SOA_ONE ? h[n + i] : h[i] + 10.0f;
                wy = kind == LAB_SOA_ONE ? h[n + i] : h[n + i] + 20.0f;
            }
            bad += gx != wx || gy != wy;
        }
        CHECK(bad == 0, "aos/soa kind %d: %zu wrong", kind, bad);
    }
    cupat_free(ctx, din), cupat_free(ctx, dout);
    free(h), free(got);
}

static void test_copies(cupat_ctx *ctx)
{
    const size_t n = t_small ? 12345 : 1000003;
    int *h = malloc(n * sizeof(int)), *got = malloc(n * sizeof(int));
    for (size_t i = 0; i < n; i++) h[i] = (int)test_rand();
    int *din = test_upload(ctx, h, n * sizeof(int)), *dout = test_upload(ctx, NULL, n * sizeof(int));
    for (int kind = LAB_COPY; kind <= LAB_COPY_RESTRICT; kind++) {
        test_poison(ctx, dout, n * sizeof(int));
        CHECK_OK(ctx, cupat__lab_copy(ctx, kind, din, dout, n));
        test_download(ctx, got, dout, n * sizeof(int));
        CHECK(memcmp(got, h, n * sizeof(int)) == 0, "copy kind %d", kind);
    }
    cupat_free(ctx, din), cupat_free(ctx, dout);
    free(h), free(got);

    static const size_t shapes[][2] = {{1, 1}, {31, 33}, {100, 7}, {7, 100}, {257, 129}};
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
        for (size_t es = 4; es <= 8; es += 4)
            for (int kind = LAB_COPY_ROW; kind <= LAB_COPY_COL; kind++) {
                size_t bytes = shapes[si][0] * shapes[si][1] * es;
                unsigned char *hb = malloc(bytes), *gb = malloc(bytes);
                for (size_t i = 0; i < bytes; i++) hb[i] = (unsigned char)test_rand();
                void *di = test_upload(ctx, hb, bytes), *dO = test_upload(ctx, NULL, bytes);
                test_poison(ctx, dO, bytes);
                CHECK_OK(ctx, cupat__lab_copy2d(ctx, kind, shapes[si][0], shapes[si][1], es, di, dO));
                test_download(ctx, gb, dO, bytes);
                CHECK(memcmp(gb, hb, bytes) == 0, "copy2d kind %d, %zux%zu, %zu-byte", kind,
                      shapes[si][0], shapes[si][1], es);
                cupat_free(ctx, di), cupat_free(ctx, dO);
                free(hb), free(gb);
            }
}

static void test_smem(cupat_ctx *ctx)
{
    const unsigned blocks = 3;
    const int iters = 5;
    uint32_t *d = test_upload(ctx, NULL, blocks * 1024 * 4), *h = malloc(blocks * 1024 * 4);
    for (int kind = 0; kind < LAB_SMEM_COUNT; kind++) {
        unsigned T = lab_smem_threads(kind);
        size_t bad = 0;
        test_poison(ctx, d, blocks * 1024 * 4);
        CHECK_OK(ctx, cupat__lab_smem(ctx, kind, blocks, iters, d));
        test_download(ctx, h, d, blocks * 1024 * 4);
        for (unsigned b = 0; b < blocks; b++)
            for (unsigned i = 0; i < T; i++) bad += h[b * T + i] != lab_smem_expect(kind, i, iters);
        CHECK(bad == 0, "%s: %zu wrong", lab_smem_names[kind], bad);
    }
    cupat_free(ctx, d);
    free(h);
}

static void test_matadd(cupat_ctx *ctx)
{
    const size_t nx = 70, ny = 33, n = nx * ny;
    float *a = malloc(n * 4), *b = malloc(n * 4), *c = malloc(n * 4);
    for (size_t i = 0; i < n; i++) a[i] = test_randf(), b[i] = test_randf();
    float *da = upload_f32(ctx, a, n), *db = upload_f32(ctx, b, n), *dc = upload_f32(ctx, NULL, n);
    CHECK_OK(ctx, cupat__lab_matadd(ctx, da, db, dc, nx, ny));
    test_download(ctx, c, dc, n * 4);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) bad += c[i] != a[i] + b[i];
    CHECK(bad == 0, "matadd device memory: %zu wrong", bad);
    /* Managed memory: the host writes and reads the same pointers. */
    float *m = NULL;
    if (cudaMallocManaged((void **)&m, 3 * n * 4, cudaMemAttachGlobal) == cudaSuccess) {
        memcpy(m, a, n * 4), memcpy(m + n, b, n * 4);
        CHECK_OK(ctx, cupat__lab_matadd(ctx, m, m + n, m + 2 * n, nx, ny));
        CHECK_OK(ctx, cupat_sync(ctx));
        bad = 0;
        for (size_t i = 0; i < n; i++) bad += m[2 * n + i] != a[i] + b[i];
        CHECK(bad == 0, "matadd managed memory: %zu wrong", bad);
        cudaFree(m);
    }
    cupat_free(ctx, da), cupat_free(ctx, db), cupat_free(ctx, dc);
    free(a), free(b), free(c);
}

int main(int argc, char **argv)
{
    cupat_ctx *ctx = test_init(argc, argv);
    if (t_backend != CUPAT_BACKEND_CUDA) {
        printf("SKIP: the access experiments are CUDA kernels only\n");
        cupat_destroy(ctx);
        return TEST_SKIP;
    }
    test_seed();
    test_offset(ctx);
    test_aos(ctx);
    test_copies(ctx);
    test_smem(ctx);
    test_matadd(ctx);
    return test_finish(ctx);
}
