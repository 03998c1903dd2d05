/* SPDX-License-Identifier: Apache-2.0 */
/* sizes.c — what `cupat bench --n SIZE` means for each pattern, and the
 * backend memory its largest case at that size takes, so a size the machine
 * cannot hold is refused before anything is allocated (issue 18.8: `--n 4G`
 * on a 24 GiB host was killed by the OOM killer a minute in). A new pattern
 * adds its line here beside its line in bench_patterns.c; test_bench checks
 * that every registered pattern has both.
 *
 * The models count what the cases allocate: inputs and outputs, plus the
 * reference copy of the same bytes (bench_run_case's memcpy row keeps a
 * buffer of the case's byte model), at the widest element type a pattern
 * runs. Small buffers (results, CUB's temporary storage) are in the margin. */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"

#include <cuda_runtime_api.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Left free for what is not modelled: the harness's flush buffer (4x the
 * LLC / 2x the L2), result buffers, host-side copies of checked chunks. */
#define MARGIN_BYTES (512.0 * 1048576.0)

static double count(const bench_size *s) { return (double)s->n; }

/* A count made square, as the 2D patterns do with a plain count. */
static double area(const bench_size *s)
{
    if (s->rows) return (double)s->rows * (double)s->cols;
    double r = floor(sqrt((double)s->n));
    return r * r;
}

static double need_vadd(const bench_size *s, char *err, size_t len)
{
    return 24.0 * count(s); /* a, b, c and a copy of 12 bytes an element */
}
static double need_saxpy(const bench_size *s, char *err, size_t len)
{
    return 20.0 * count(s); /* x, y and a copy of 12 bytes an element */
}
static double need_matadd(const bench_size *s, char *err, size_t len)
{
    return 24.0 * area(s);
}
static double need_gray(const bench_size *s, char *err, size_t len)
{
    return 8.0 * area(s); /* 3 + 1 bytes a pixel and their copy */
}
static double need_blur(const bench_size *s, char *err, size_t len)
{
    return 12.0 * area(s); /* 3 + 3 bytes a pixel and their copy */
}
static double need_reduce(const bench_size *s, char *err, size_t len)
{
    return 4.0 * count(s);
}
static double need_dot(const bench_size *s, char *err, size_t len)
{
    return 8.0 * count(s);
}
static double need_scan(const bench_size *s, char *err, size_t len)
{
    return 32.0 * count(s); /* u64 x and y, and their copy */
}
static double need_segscan(const bench_size *s, char *err, size_t len)
{
    return 26.0 * count(s); /* keys, flags, x, y and a copy */
}
static double need_select(const bench_size *s, char *err, size_t len)
{
    return 20.0 * count(s); /* x, flags, y and a copy */
}
static double need_merge(const bench_size *s, char *err, size_t len)
{
    return 12.0 * count(s); /* a, b, out (u32) and the copy */
}
static double need_sort(const bench_size *s, char *err, size_t len)
{
    return 40.0 * count(s); /* u64 in, out, the sort's double buffer and the copy */
}
static double need_segsort(const bench_size *s, char *err, size_t len)
{
    return 8.0 * 520.0 * 4.0 * count(s); /* about 520 u32 keys a segment: in, out, buffer, copy */
}
static double need_histogram(const bench_size *s, char *err, size_t len)
{
    return 4.0 * count(s) + 3.0 * 3840 * 2160; /* f32 samples, the RGB image */
}
static double need_transpose(const bench_size *s, char *err, size_t len)
{
    return 16.0 * area(s); /* f64 in and out */
}
static double need_stencil1d(const bench_size *s, char *err, size_t len)
{
    return 16.0 * count(s); /* in, out and their copy */
}
static double need_conv2d(const bench_size *s, char *err, size_t len)
{
    return 16.0 * area(s); /* f32 in and out and their copy (RGB takes less) */
}
/* A count made a cube; the 8-step table's reference copy moves 8 grids each way. */
static double need_stencil3d(const bench_size *s, char *err, size_t len)
{
    double e = floor(cbrt(count(s)) + 1e-9);
    return (8.0 + 64.0) * e * e * e;
}

/* A Kronecker graph of 2^ceil(log2 n) vertices, edge factor 16: the CSR
 * (8 n + 4 * 32 n), levels and parents, and the host's build of it. */
static double need_bfs(const bench_size *s, char *err, size_t len)
{
    double n = pow(2.0, ceil(log2(count(s) > 1 ? count(s) : 2)));
    if (n > 1073741824.0) {
        snprintf(err, len, "bfs: at most 2^30 vertices (Kronecker scale 30)");
        return -1;
    }
    return 8.0 * n + 4.0 * 32.0 * n + 8.0 * n;
}

/* The shapes bench_gemm.c runs: S is S x S x S, RxC is m = R, n = k = C. */
static double need_gemm(const bench_size *s, char *err, size_t len)
{
    double m = s->rows ? (double)s->rows : count(s), n = s->rows ? (double)s->cols : count(s);
    if (m > INT_MAX || n > INT_MAX) {
        snprintf(err, len, "gemm: m, n and k must be at most %d (the API's limit)", INT_MAX);
        return -1;
    }
    return 4.0 * (m * n + n * n + m * n); /* A m x k, B k x n, C m x n; k = n */
}
static double need_gemv(const bench_size *s, char *err, size_t len)
{
    double m = s->rows ? (double)s->rows : count(s), n = s->rows ? (double)s->cols : count(s);
    if (m > INT_MAX || n > INT_MAX) {
        snprintf(err, len, "gemv: m and n must be at most %d (cublasSgemv's limit)", INT_MAX);
        return -1;
    }
    return 4.0 * (m * n + 2.0 * (m > n ? m : n));
}

/* The largest case of bench_gemm_tc.c: tf32 -> f32, three S x S f32 matrices
 * on the backend (and their host copies, on the CPU the same memory). */
static double need_gemm_tc(const bench_size *s, char *err, size_t len)
{
    double e = s->rows ? (double)s->rows : count(s);
    if (e > INT_MAX) {
        snprintf(err, len, "gemm_tc: m, n and k must be at most %d (the API's limit)", INT_MAX);
        return -1;
    }
    return 2.0 * 4.0 * 3.0 * e * e;
}

static double need_spmv(const bench_size *s, char *err, size_t len)
{
    return 80.0 * count(s); /* up to 32 nonzeros a row in CSR, plus ELL/JDS copies */
}

const bench_size_model bench_size_models[] = {
    {"vadd", "elements (default 2^24 and 2^28; CPU 2^22 and 2^24)", need_vadd},
    {"saxpy", "elements (default 2^24 and 2^28; CPU 2^22 and 2^24)", need_saxpy},
    {"matadd", "ROWSxCOLS, or a count made square (default 16384x16384; CPU 2048x2048)",
     need_matadd},
    {"gray", "WIDTHxHEIGHT pixels, or a count made square (default 7680x4320; CPU 1920x1080)",
     need_gray},
    {"blur", "WIDTHxHEIGHT pixels, or a count made square (default 3840x2160; CPU 1280x720)",
     need_blur},
    {"reduce", "elements: f32 sum (every rung), i32 sum, f32 max, f32 argmax (default 2^16, "
               "2^20, 2^24, 2^28, the launch floor beside 2^16 and 2^20; CPU 2^24)",
     need_reduce},
    {"dot", "elements of x and of y (default 2^16, 2^20, 2^24, 2^28, the launch floor beside "
            "2^16 and 2^20; CPU 2^24)",
     need_dot},
    {"scan", "elements, every table (default 2^22 for the one-block rungs, 2^24, 2^28; u64 "
             "2^27; CPU 2^24)",
     need_scan},
    {"segscan", "elements, keys in runs of 1000 (default 2^28; CPU 2^24)", need_segscan},
    {"select", "elements: select, partition, unique (default 2^28; CPU 2^24)", need_select},
    {"merge", "outputs: two sorted u32 halves of n / 2 (default 2 x 2^27; CPU 2 x 2^21)", need_merge},
    {"sort", "keys: u32, u32/u32 pairs, u64, f32 (default 2^28; CPU 2^22)", need_sort},
    {"segsort", "segments of 16..1024 u32 keys (default 2^20; CPU 2^14)", need_segsort},
    {"histogram", "samples: u8 and f32 tables (default u8 1 GiB, f32 2^28, RGB 3840x2160; CPU 2^24)",
     need_histogram},
    {"bfs", "vertices: a Kronecker graph of scale ceil(log2 n), edge factor 16 (default "
            "scales 20 and 22; CPU 16)",
     need_bfs},
    {"transpose", "ROWSxCOLS, or a count made square: f32 and f64, and 1024x1024 f32 with "
                  "every rung (default 16384x16384; then 1024x1024 f64, 2048x2048 f32 and f64, "
                  "the launch floor beside 1024^2 and 2048^2; CPU 4096x4096)",
     need_transpose},
    {"stencil1d", "elements (default 2^28; CPU 2^24)", need_stencil1d},
    {"conv2d", "WIDTHxHEIGHT pixels, or a count made square, every table (default 7680x4320 f32 "
               "5x5, 9x9; 3840x2160 RGB box 3x3, 17x17, Gaussian 5x5; CPU 1280x720)",
     need_conv2d},
    {"conv2d_sep", "WIDTHxHEIGHT pixels, or a count made square, every table (default 7680x4320 "
                   "f32 5x5, 9x9; 3840x2160 RGB box 3x3, 17x17; CPU 1280x720)",
     need_conv2d},
    {"stencil3d", "grid points made a cube, halo included: 7- and 27-point steps, 8 steps "
                  "(default 2^27 = 512^3; CPU 128^3)",
     need_stencil3d},
    {"gemm", "S: an S x S x S product; RxC: m = R, n = k = C; op N,N with every rung, then "
             "ops N,T, T,N and T,T with the default rung (--quick: N,N only) (default 4096^3, "
             "8192^3 (N,N only), 1000^3, 4097x3001x2003, 65536x64x4096, 64x65536x4096; CPU "
             "512^3, 1000^3)",
     need_gemm},
    {"gemv", "S: an S x S matrix; RxC: R rows, C columns; op N and op T (default 4096x4096, "
             "16384x16384, 2048x131072; CPU 4096x4096)",
     need_gemv},
    {"gemm_tc", "S: an S x S x S product (RxC: R) per type pair: f16 -> f32, bf16 -> bf16, "
                "tf32 -> f32, i8 -> i32 (default 4096; CPU 384)",
     need_gemm_tc},
    {"spmv", "rows of each family: 2D/3D Poisson, banded k=8, random k=16 and k=32, R-MAT "
             "k=16 (default 4096^2, 128^3, 2^22, 2^22, 2^21, 2^22; CPU 256^2, 40^3, 2^16, 2^14, "
             "2^14, 2^16)",
     need_spmv},
};
const size_t bench_nsize_models = sizeof bench_size_models / sizeof bench_size_models[0];

const bench_size_model *bench_find_size_model(const char *name)
{
    for (size_t i = 0; name && i < bench_nsize_models; i++)
        if (strcmp(bench_size_models[i].name, name) == 0) return &bench_size_models[i];
    return NULL;
}

double bench_host_memory_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    double kb = -1.0;
    if (f) {
        while (fgets(line, sizeof line, f))
            if (strncmp(line, "MemAvailable:", 13) == 0) {
                kb = strtod(line + 13, NULL);
                break;
            }
        fclose(f);
    }
    if (kb >= 0) return kb * 1024.0;
    long pages = sysconf(_SC_AVPHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    return pages > 0 && psz > 0 ? (double)pages * (double)psz : -1.0;
}

double bench_memory_available(cupat_ctx *ctx, const char **what)
{
    if (cupat_get_backend(ctx) != CUPAT_BACKEND_CUDA) {
        *what = "host memory available (MemAvailable)";
        return bench_host_memory_available();
    }
    size_t free_b = 0, total_b = 0;
    *what = "device memory free (cudaMemGetInfo)";
    if (cudaSetDevice(cupat_get_device(ctx)) != cudaSuccess ||
        cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) {
        (void)cudaGetLastError();
        return -1.0;
    }
    return (double)free_b;
}

static const char *gib(char *buf, size_t len, double bytes)
{
    const double tib = 1048576.0 * 1048576.0;
    if (bytes >= 1e4 * tib)
        snprintf(buf, len, "%.3g TiB", bytes / tib);
    else if (bytes >= tib)
        snprintf(buf, len, "%.1f TiB", bytes / tib);
    else if (bytes >= 1048576.0 * 1024.0)
        snprintf(buf, len, "%.1f GiB", bytes / (1048576.0 * 1024.0));
    else
        snprintf(buf, len, "%.0f MiB", bytes / 1048576.0);
    return buf;
}

int bench_check_size(cupat_ctx *ctx, const char *pattern, const bench_size *size, char *err,
                     size_t len)
{
    const bench_size_model *m = bench_find_size_model(pattern);
    if (!m) return 0; /* no model: the case's own allocations decide */
    char why[160] = "";
    double need = m->need(size, why, sizeof why);
    if (need < 0) {
        snprintf(err, len, "%s", why);
        return -1;
    }
    const char *what = "";
    double have = bench_memory_available(ctx, &what);
    if (have < 0 || need + MARGIN_BYTES <= have) return 0;
    char a[32], b[32];
    snprintf(err, len,
             "%s needs about %s of %s memory at this size, and %s is %s (with %.0f MiB kept "
             "for the harness); give a smaller --n",
             pattern, gib(a, sizeof a, need),
             cupat_get_backend(ctx) == CUPAT_BACKEND_CUDA ? "device" : "host", what,
             gib(b, sizeof b, have), MARGIN_BYTES / 1048576.0);
    return -1;
}
