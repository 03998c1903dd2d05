/* SPDX-License-Identifier: Apache-2.0 */
/* test_stencil3d.c — every rung of "stencil3d" on the context's backend
 * against a reference written here from the documented rule (halo copied,
 * interior one fma chain from +0 in coefficient order), bit for bit: f32 and
 * f64, 7 and 27 points, odd sizes, flat grids (no interior), padded rows and
 * planes (padding untouched); the step driver (every rung pinned: the
 * temporal rung's passes of 4 and 2; and the default) against repeated
 * reference steps; the presets;
 * the argument checks. */
#include "testutil.h"

#include <math.h>

static const int o7[7][3] = {{0, 0, 0}, {-1, 0, 0}, {1, 0, 0}, {0, -1, 0},
                             {0, 1, 0}, {0, 0, -1}, {0, 0, 1}};

static void ref_step(int f64, size_t nx, size_t ny, size_t nz, size_t ldy, size_t ldz, int P,
                     const double *c, const void *vin, void *vout)
{
    for (size_t z = 0; z < nz; z++)
        for (size_t y = 0; y < ny; y++)
            for (size_t x = 0; x < nx; x++) {
                size_t p = x + y * ldy + z * ldz;
                int h = x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1;
                double a64 = 0;
                float a32 = 0;
                for (int k = 0; k < P && !h; k++) {
                    int dx = P == 7 ? o7[k][0] : k % 3 - 1, dy = P == 7 ? o7[k][1] : k / 3 % 3 - 1,
                        dz = P == 7 ? o7[k][2] : k / 9 - 1;
                    size_t q = p + dx + dy * (long long)ldy + dz * (long long)ldz;
                    if (f64) a64 = fma(c[k], ((const double *)vin)[q], a64);
                    else a32 = fmaf((float)c[k], ((const float *)vin)[q], a32);
                }
                if (f64) ((double *)vout)[p] = h ? ((const double *)vin)[p] : a64;
                else ((float *)vout)[p] = h ? ((const float *)vin)[p] : a32;
            }
}

static size_t span(size_t nx, size_t ny, size_t nz, size_t ldy, size_t ldz)
{
    return (nz - 1) * ldz + (ny - 1) * ldy + nx;
}

/* steps = 0: one cupat_stencil3d; else cupat_stencil3d_run(steps). */
static void check(cupat_ctx *ctx, const char *rung, int f64, size_t nx, size_t ny, size_t nz,
                  size_t py, size_t pz, int P, int steps)
{
    size_t ldy = nx + py, ldz = ldy * ny + pz, n = span(nx, ny, nz, ldy, ldz);
    size_t es = f64 ? 8 : 4, bytes = n * es;
    double c[27];
    for (int k = 0; k < P; k++) c[k] = test_randf() * (1.0 / P);
    uint8_t *h = test_xmalloc(bytes), *want = test_xmalloc(bytes), *tmp = test_xmalloc(bytes),
            *got = test_xmalloc(bytes);
    for (size_t i = 0; i < n; i++) {
        if (f64) ((double *)h)[i] = test_randf();
        else ((float *)h)[i] = test_randf();
    }
    memset(want, 0xFF, bytes);
    memcpy(tmp, h, bytes);
    int ns = steps ? steps : 1;
    for (int s = 0; s < ns; s++) {
        ref_step(f64, nx, ny, nz, ldy, ldz, P, c, tmp, want);
        if (s + 1 < ns) memcpy(tmp, want, bytes), memset(want, 0xFF, bytes);
    }
    void *da = test_upload(ctx, h, bytes), *db = test_upload(ctx, NULL, bytes), *res = db;
    cupat_type t = f64 ? CUPAT_F64 : CUPAT_F32;
    test_poison(ctx, db, bytes);
    if (steps == 0) CHECK_OK(ctx, cupat_stencil3d(ctx, t, nx, ny, nz, ldy, ldz, P, c, da, db));
    else CHECK_OK(ctx, cupat_stencil3d_run(ctx, t, nx, ny, nz, ldy, ldz, P, c, steps, da, db, &res));
    CHECK(res == da || res == db, "result is a or b");
    test_download(ctx, got, res, bytes);
    size_t bad = 0, first = 0;
    for (size_t z = 0; z < nz; z++)
        for (size_t y = 0; y < ny; y++)
            for (size_t x = 0; x < nx; x++) {
                size_t p = (x + y * ldy + z * ldz) * es;
                if (memcmp(got + p, want + p, es) != 0 && bad++ == 0) first = p / es;
            }
    CHECK(bad == 0, "stencil3d/%s %s %zux%zux%zu pad %zu,%zu %d-point steps %d: %zu wrong, first %zu",
          rung, f64 ? "f64" : "f32", nx, ny, nz, py, pz, P, steps, bad, first);
    if (steps == 0 && (py || pz)) { /* padding of out is not written */
        size_t touched = 0;
        for (size_t z = 0; z < nz; z++)
            for (size_t y = 0; y < ny; y++)
                for (size_t x = nx; x < (y + 1 < ny ? ldy : nx); x++)
                    for (size_t q = 0; q < es; q++) touched += got[(x + y * ldy + z * ldz) * es + q] != 0xFF;
        CHECK(touched == 0, "stencil3d/%s wrote %zu bytes of row padding", rung, touched);
    }
    cupat_free(ctx, da), cupat_free(ctx, db);
    free(h), free(want), free(tmp), free(got);
}

static void test_rungs(cupat_ctx *ctx)
{
    static const size_t shapes[][3] = {{1, 1, 1}, {2, 5, 3}, {3, 3, 3}, {7, 5, 9},
                                       {33, 17, 11}, {40, 35, 34}, {67, 31, 5}};
    const cupat_variant_info *list;
    size_t count;
    CHECK_OK(ctx, cupat_variants("stencil3d", &list, &count));
    for (size_t v = 0; v < count; v++) {
        if (list[v].backend != t_backend) continue;
        CHECK_OK(ctx, cupat_set_variant(ctx, "stencil3d", list[v].name));
        for (int f64 = 0; f64 <= 1; f64++)
            for (int P = 7; P <= 27; P += 20) {
                for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
                    check(ctx, list[v].name, f64, shapes[s][0], shapes[s][1], shapes[s][2],
                          s % 2 ? 3 : 0, s % 3 ? 5 : 0, P, 0);
                check(ctx, list[v].name, f64, 19, 13, 11, 1, 2, P, 3);
                check(ctx, list[v].name, f64, 21, 18, 9, 0, 0, P, 5);
                /* 16-byte columns fit (nx, ldy, ldz multiples of 4: the
                 * columns rung's own kernel): one warp short, one exact,
                 * warps crossing blocks, z chunks of 64 with a short last
                 * one, 1 and 2 planes, padding in 16-byte steps */
                static const size_t cols[][5] = {{4, 3, 3, 0, 0},    {8, 6, 5, 4, 8},
                                                 {128, 9, 7, 0, 0},  {132, 11, 70, 4, 0},
                                                 {260, 19, 131, 0, 12}, {8, 4, 1, 0, 0},
                                                 {12, 5, 2, 8, 4}};
                for (size_t s = 0; s < sizeof cols / sizeof cols[0]; s++)
                    if (!t_small || cols[s][0] * cols[s][1] * cols[s][2] < 100000)
                        check(ctx, list[v].name, f64, cols[s][0], cols[s][1], cols[s][2],
                              cols[s][3], cols[s][4], P, 0);
                check(ctx, list[v].name, f64, 36, 10, 67, 0, 0, P, 3);
                /* steps in pairs across warps (x), row blocks (columns_t2:
                 * 18 rows a block) and z chunks */
                check(ctx, list[v].name, f64, 36, 50, 9, 4, 0, P, 2);
                if (!t_small) check(ctx, list[v].name, f64, 260, 19, 70, 4, 8, P, 2);
            }
        if (t_backend == CUPAT_BACKEND_CUDA && !t_small)
            for (int P = 7; P <= 27; P += 20) check(ctx, list[v].name, 0, 130, 67, 70, 0, 0, P, 0);
    }
    CHECK_OK(ctx, cupat_set_variant(ctx, "stencil3d", NULL));
    /* the default driver: single steps on the default rung, or (CUDA, f32
     * 7-point on 16-byte columns) columns_t2's pairs and a last single step
     * (the temporal passes of 4 and 2 run above, with that rung pinned) */
    for (int f64 = 0; f64 <= 1; f64++)
        for (int P = 7; P <= 27; P += 20) {
            check(ctx, "default", f64, 37, 21, 19, 0, 0, P, 7);
            check(ctx, "default", f64, 9, 9, 9, 2, 0, P, 1);
            check(ctx, "default", f64, 9, 9, 9, 0, 0, P, 0);
            check(ctx, "default", f64, 36, 50, 9, 4, 0, P, 5);
            check(ctx, "default", f64, 8, 6, 5, 4, 8, P, 4);
            if (!t_small) check(ctx, "default", f64, 260, 19, 70, 4, 8, P, 3);
        }
}

static void test_presets(cupat_ctx *ctx)
{
    double c[27];
    int P = 0;
    CHECK_OK(NULL, cupat_stencil3d_coeffs(CUPAT_STENCIL3D_LAPLACIAN, 0.5, &P, c));
    CHECK(P == 7 && c[0] == -24.0 && c[1] == 4.0 && c[6] == 4.0, "Laplacian h = 0.5: %g %g", c[0], c[1]);
    CHECK_OK(NULL, cupat_stencil3d_coeffs(CUPAT_STENCIL3D_HEAT, 0.125, &P, c));
    CHECK(P == 7 && c[0] == 0.25 && c[3] == 0.125, "heat r = 1/8: %g %g", c[0], c[3]);
    /* The heat step keeps a constant field constant (the halo holds it). */
    enum { N = 6 };
    double g[N * N * N], o[N * N * N];
    for (int i = 0; i < N * N * N; i++) g[i] = 3.0;
    void *da = test_upload(ctx, g, sizeof g), *db = test_upload(ctx, NULL, sizeof g), *res;
    CHECK_OK(ctx, cupat_stencil3d_run(ctx, CUPAT_F64, N, N, N, 0, 0, P, c, 6, da, db, &res));
    test_download(ctx, o, res, sizeof o);
    int bad = 0;
    for (int i = 0; i < N * N * N; i++) bad += o[i] != 3.0;
    CHECK(bad == 0, "heat on a constant field changed %d points", bad);
    /* The Laplacian of x^2 + y^2 + z^2 is 6 inside. */
    for (int z = 0; z < N; z++)
        for (int y = 0; y < N; y++)
            for (int x = 0; x < N; x++) g[x + N * (y + N * z)] = x * x + y * y + z * z;
    CHECK_OK(NULL, cupat_stencil3d_coeffs(CUPAT_STENCIL3D_LAPLACIAN, 1.0, &P, c));
    CHECK_OK(ctx, cupat_memcpy(ctx, da, g, sizeof g));
    CHECK_OK(ctx, cupat_stencil3d(ctx, CUPAT_F64, N, N, N, 0, 0, P, c, da, db));
    test_download(ctx, o, db, sizeof o);
    CHECK(o[1 + N * (2 + N * 3)] == 6.0 && o[0] == 0.0, "Laplacian: %g %g", o[1 + N * (2 + N * 3)], o[0]);
    cupat_free(ctx, da), cupat_free(ctx, db);
    CHECK_FAILS(NULL, CUPAT_ERROR_INVALID_VALUE, "preset = 9",
                cupat_stencil3d_coeffs((cupat_stencil3d_preset)9, 1.0, &P, c));
    CHECK_FAILS(NULL, CUPAT_ERROR_INVALID_VALUE, "spacing",
                cupat_stencil3d_coeffs(CUPAT_STENCIL3D_LAPLACIAN, 0.0, &P, c));
    CHECK_FAILS(NULL, CUPAT_ERROR_INVALID_VALUE, "not finite",
                cupat_stencil3d_coeffs(CUPAT_STENCIL3D_HEAT, NAN, &P, c));
    CHECK_FAILS(NULL, CUPAT_ERROR_NULL_POINTER, "points is NULL",
                cupat_stencil3d_coeffs(CUPAT_STENCIL3D_HEAT, 0.1, NULL, c));
    CHECK_FAILS(NULL, CUPAT_ERROR_NULL_POINTER, "coeffs is NULL",
                cupat_stencil3d_coeffs(CUPAT_STENCIL3D_HEAT, 0.1, &P, NULL));
}

static void test_errors(cupat_ctx *ctx)
{
    enum { N = 4 };
    double c[27] = {0};
    float host[N * N * N];
    const cupat_type F = CUPAT_F32;
    void *a = test_dalloc(ctx, N * N * N * 4), *b = test_dalloc(ctx, N * N * N * 4), *res;
    CHECK_FAILS(NULL, CUPAT_ERROR_NULL_POINTER, "ctx is NULL",
                cupat_stencil3d(NULL, F, N, N, N, 0, 0, 7, c, a, b));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "type = 2",
                cupat_stencil3d(ctx, CUPAT_I32, N, N, N, 0, 0, 7, c, a, b));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "points = 9",
                cupat_stencil3d(ctx, F, N, N, N, 0, 0, 9, c, a, b));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "coeffs is NULL",
                cupat_stencil3d(ctx, F, N, N, N, 0, 0, 7, NULL, a, b));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "ldy = 3 is less than nx = 4",
                cupat_stencil3d(ctx, F, N, N, N, 3, 0, 7, c, a, b));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "ldz = 15 is less than ldy * ny = 16",
                cupat_stencil3d(ctx, F, N, N, N, 0, 15, 7, c, a, b));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "in is NULL",
                cupat_stencil3d(ctx, F, N, N, N, 0, 0, 7, c, NULL, b));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "out is NULL",
                cupat_stencil3d(ctx, F, N, N, N, 0, 0, 7, c, a, NULL));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "overlap",
                cupat_stencil3d(ctx, F, N, N, N, 0, 0, 7, c, a, a));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "aligned",
                cupat_stencil3d(ctx, F, 2, 1, 1, 0, 0, 7, c, (char *)a + 1, b));
    CHECK_FAILS(ctx, CUPAT_ERROR_SIZE, "overflow",
                cupat_stencil3d(ctx, F, SIZE_MAX / 4, 2, 2, 0, 0, 7, c, a, b));
    CHECK_OK(ctx, cupat_stencil3d(ctx, F, 0, N, N, 0, 0, 7, c, NULL, NULL));
    CHECK_FAILS(NULL, CUPAT_ERROR_NULL_POINTER, "ctx is NULL",
                cupat_stencil3d_run(NULL, F, N, N, N, 0, 0, 7, c, 2, a, b, &res));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "result is NULL",
                cupat_stencil3d_run(ctx, F, N, N, N, 0, 0, 7, c, 2, a, b, NULL));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "steps = -1",
                cupat_stencil3d_run(ctx, F, N, N, N, 0, 0, 7, c, -1, a, b, &res));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "overlap",
                cupat_stencil3d_run(ctx, F, N, N, N, 0, 0, 7, c, 2, a, a, &res));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "b is NULL",
                cupat_stencil3d_run(ctx, F, N, N, N, 0, 0, 7, c, 2, a, NULL, &res));
    CHECK_OK(ctx, cupat_stencil3d_run(ctx, F, N, N, N, 0, 0, 7, c, 0, a, b, &res));
    CHECK(res == a, "0 steps: the result is a");
    if (t_backend == CUPAT_BACKEND_CUDA) {
        CHECK_FAILS(ctx, CUPAT_ERROR_HOST_POINTER, "in = ",
                    cupat_stencil3d(ctx, F, N, N, N, 0, 0, 7, c, host, b));
        CHECK_FAILS(ctx, CUPAT_ERROR_HOST_POINTER, "b = ",
                    cupat_stencil3d_run(ctx, F, N, N, N, 0, 0, 7, c, 1, a, host, &res));
        CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "device memory",
                    cupat_stencil3d(ctx, F, N, N, N, 0, 0, 7, (const double *)a, a, b));
    }
    cupat_free(ctx, a), cupat_free(ctx, b);
}

int main(int argc, char **argv)
{
    cupat_ctx *ctx = test_init(argc, argv);
    test_seed();
    test_rungs(ctx);
    test_presets(ctx);
    test_errors(ctx);
    return test_finish(ctx);
}
