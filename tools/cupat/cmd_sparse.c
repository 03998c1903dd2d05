/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_sparse.c — `cupat spmv` and `cupat cg`: a Matrix Market file, or a
 * generated matrix of the standard families, through one rung of the "spmv"
 * ladder (timed), or through conjugate gradient with the Jacobi
 * preconditioner (iterations, residual, time per iteration). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "cli.h"
#include "commands.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void usage(int cg)
{
    printf("Usage: cupat %s FILE.mtx | --poisson2d N | --poisson3d N | --banded N --k K\n"
           "                 | --random N --k K | --rmat N --k K   [options]\n"
           "\n",
           cg ? "cg  " : "spmv");
    if (cg)
        printf("Solves A x = b, b = 1, from x = 0 by conjugate gradient with the Jacobi\n"
               "preconditioner (A must be symmetric positive definite: 2D/3D Poisson and\n"
               "banded are). Prints the iterations, the final residual ||b - Ax|| / ||b||\n"
               "and the time per iteration.\n");
    else
        printf("y = A x for x = 1 by one rung of the 'spmv' ladder: prints the matrix\n"
               "(rows, nonzeros, row lengths), the rung that ran, its median time over\n"
               "the repetitions after one untimed run (which also builds the rung's\n"
               "format), the GB/s of the minimum bytes, and the sum of y.\n");
    printf("\n"
           "FILE.mtx: Matrix Market (coordinate or array; real, integer, pattern;\n"
           "general, symmetric, skew-symmetric). Generators: 5-point Laplacian on an N x N\n"
           "grid, 7-point on N^3, the band |i - j| <= K, K random columns a row, R-MAT\n"
           "power-law rows (about K N entries).\n"
           "\n"
           "Options:\n"
           "  --k K          the band half-width / entries per row of a generator\n"
           "  --seed S       generator seed (default 1)\n"
           "  --f64          f64 values (default f32)\n"
           "  --i64          i64 indices (default i32)\n");
    if (cg)
        printf("  --rtol R       stop at ||r|| <= R ||b|| (default 1e-6)\n"
               "  --max-iter N   iteration cap (default 10000)\n"
               "  --no-precond   plain CG\n"
               "  --history      print ||r_k|| / ||b|| of every iteration\n");
    else
        printf("  --reps N       timed repetitions, 1 to 100000 (default 20)\n"
               "  --write OUT    also write the matrix to OUT (Matrix Market, general real)\n");
    printf("  --variant NAME rung of the 'spmv' ladder (default: picked by the row lengths)\n"
           "  --backend B    auto (default), cpu or cuda\n"
           "  --device N     CUDA device index\n"
           "  -h, --help     this text\n");
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int sparse_main(int argc, char **argv, int cg)
{
    const char *cmd = cg ? "cupat cg" : "cupat spmv";
    const char *file = NULL, *variant = NULL, *out = NULL, *v;
    cupat_backend backend = CUPAT_BACKEND_AUTO;
    long device = -1, reps = 20, k = -1, seed = 1, max_iter = 10000, gen_n = 0;
    int gen = -1, f64 = 0, i64 = 0, noprec = 0, history = 0;
    double rtol = 1e-6;
    static const char *const gens[] = {"--poisson2d", "--poisson3d", "--banded", "--random",
                                       "--rmat"};
    for (int i = 1; i < argc; i++) {
        int r;
        if (cli_is_help(argv[i])) {
            usage(cg);
            return 0;
        }
        if ((r = cli_backend_opt(argc, argv, &i, cmd, &backend, &device))) {
            if (r == 2) return 2;
            continue;
        }
        int matched = 0;
        for (int g = 0; g < 5 && !matched; g++)
            if ((r = cli_opt(argc, argv, &i, gens[g], &v, cmd))) {
                if (r < 0 || cli_parse_int(cmd, gens[g], v, 0, 1L << 32, &gen_n)) return 2;
                if (gen >= 0 || file) {
                    fprintf(stderr, "%s: give one matrix (a file or one generator)\n", cmd);
                    return 2;
                }
                gen = g;
                matched = 1;
            }
        if (matched) continue;
        if ((r = cli_opt(argc, argv, &i, "--k", &v, cmd))) {
            if (r < 0 || cli_parse_int(cmd, "--k", v, 0, 1L << 20, &k)) return 2;
        } else if ((r = cli_opt(argc, argv, &i, "--seed", &v, cmd))) {
            if (r < 0 || cli_parse_int(cmd, "--seed", v, 0, 1L << 62, &seed)) return 2;
        } else if ((r = cli_opt(argc, argv, &i, "--variant", &v, cmd))) {
            if (r < 0) return 2;
            variant = v;
        } else if (!cg && (r = cli_opt(argc, argv, &i, "--reps", &v, cmd))) {
            if (r < 0 || cli_parse_int(cmd, "--reps", v, 1, 100000, &reps)) return 2;
        } else if (!cg && (r = cli_opt(argc, argv, &i, "--write", &v, cmd))) {
            if (r < 0) return 2;
            out = v;
        } else if (cg && (r = cli_opt(argc, argv, &i, "--rtol", &v, cmd))) {
            char *e;
            if (r < 0) return 2;
            rtol = strtod(v, &e);
            if (*e || !(rtol >= 0) || isinf(rtol)) {
                fprintf(stderr, "%s: --rtol %s: want a number >= 0\n", cmd, v);
                return 2;
            }
        } else if (cg && (r = cli_opt(argc, argv, &i, "--max-iter", &v, cmd))) {
            if (r < 0 || cli_parse_int(cmd, "--max-iter", v, 0, 100000000, &max_iter)) return 2;
        } else if (strcmp(argv[i], "--f64") == 0) f64 = 1;
        else if (strcmp(argv[i], "--i64") == 0) i64 = 1;
        else if (cg && strcmp(argv[i], "--no-precond") == 0) noprec = 1;
        else if (cg && strcmp(argv[i], "--history") == 0) history = 1;
        else if (argv[i][0] == '-' && argv[i][1]) return cli_unknown(cmd, argv[i]);
        else if (file || gen >= 0) {
            fprintf(stderr, "%s: give one matrix (a file or one generator)\n", cmd);
            return 2;
        } else file = argv[i];
    }
    if (!file && gen < 0) {
        fprintf(stderr, "%s: no matrix: give FILE.mtx or a generator (--poisson2d N, ...)\n", cmd);
        return 2;
    }
    if (gen >= 2 && k < 0) {
        fprintf(stderr, "%s: %s needs --k K\n", cmd, gens[gen]);
        return 2;
    }
    cupat_ctx *ctx = cli_context(backend, (int)device);
    if (!ctx) return 1;
    cupat_type it = i64 ? CUPAT_I64 : CUPAT_I32, vt = f64 ? CUPAT_F64 : CUPAT_F32;
    size_t vs = f64 ? 8 : 4;
    cupat_sparse *A = NULL;
    void *x = NULL, *y = NULL, *h = NULL;
    int rc = 1;
    cupat_status s;
    double t0 = now_s();
    if (file) s = cupat_mm_read(ctx, file, it, vt, &A);
    else
        s = cupat_sparse_generate(ctx, &A, (cupat_sparse_family)gen, (size_t)gen_n,
                                  (size_t)(k < 0 ? 0 : k), (uint64_t)seed, it, vt);
    if (s) {
        fprintf(stderr, "%s: %s\n", cmd, cupat_last_error(ctx));
        goto done;
    }
    double t_load = now_s() - t0;
    cupat_sparse_info in;
    cupat_sparse_get_info(ctx, A, &in);
    printf("matrix: %zu x %zu, %zu nonzeros, %s/%s; row lengths %zu..%zu, mean %.2f, std %.2f, "
           "%zu empty (%s in %.2f s)\n",
           in.rows, in.cols, in.nnz, cupat_type_name(it), cupat_type_name(vt), in.row_min,
           in.row_max, in.row_mean, in.row_std, in.empty_rows, file ? "read" : "generated",
           t_load);
    if (out && (s = cupat_mm_write(ctx, out, A, 0))) {
        fprintf(stderr, "%s: %s\n", cmd, cupat_last_error(ctx));
        goto done;
    }
    if (variant && (s = cupat_set_variant(ctx, "spmv", variant))) {
        fprintf(stderr, "%s: %s\n", cmd, cupat_last_error(ctx));
        rc = 2;
        goto done;
    }
    const cupat_variant_info *vi = NULL;
    cupat_get_variant(ctx, "spmv", &vi);
    size_t n = in.rows > in.cols ? in.rows : in.cols;
    h = malloc((n ? n : 1) * vs);
    if (!h || cupat_malloc(ctx, &x, n * vs) || cupat_malloc(ctx, &y, n * vs)) {
        fprintf(stderr, "%s: out of memory for the vectors\n", cmd);
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        if (f64) ((double *)h)[i] = 1.0;
        else ((float *)h)[i] = 1.0f;
    if (cupat_memcpy(ctx, x, h, n * vs) || cupat_memset(ctx, y, 0, n * vs)) goto cuda_fail;
    if (!cg) {
        double *ts = malloc((size_t)reps * sizeof *ts);
        if (!ts) goto done;
        /* the untimed run builds the rung's format */
        if ((s = cupat_spmv(ctx, A, 1.0, x, 0.0, y)) || (s = cupat_sync(ctx))) {
            free(ts);
            goto cuda_fail;
        }
        for (long r = 0; r < reps; r++) {
            double a = now_s();
            if ((s = cupat_spmv(ctx, A, 1.0, x, 0.0, y)) || (s = cupat_sync(ctx))) break;
            ts[r] = now_s() - a;
        }
        if (s) {
            free(ts);
            goto cuda_fail;
        }
        qsort(ts, (size_t)reps, sizeof *ts, cmp_double);
        double med = ts[reps / 2];
        /* the least traffic: the CSR arrays, x and y once each */
        double bytes = (double)(in.rows + 1) * (i64 ? 8 : 4) + (double)in.nnz * ((i64 ? 8 : 4) + vs) +
                       (double)(in.rows + in.cols) * vs;
        free(ts);
        if (cupat_memcpy(ctx, h, y, in.rows * vs) || cupat_sync(ctx)) goto cuda_fail;
        double sum = 0;
        for (size_t i = 0; i < in.rows; i++) sum += f64 ? ((double *)h)[i] : ((float *)h)[i];
        printf("spmv %s (%s): %.4f ms median of %ld, %.1f GB/s of minimum bytes, %.2f GFLOP/s; "
               "sum(y) = %.9g\n",
               vi ? vi->name : "?", cupat_backend_name(cupat_get_backend(ctx)), med * 1e3, reps,
               bytes / med * 1e-9, 2.0 * (double)in.nnz / med * 1e-9, sum);
        rc = 0;
        goto done;
    }
    /* cg: b = 1 (in x's buffer), x = 0 (in y's) */
    {
        size_t hl = (size_t)max_iter + 1;
        double *hist = history ? malloc(hl * sizeof *hist) : NULL;
        cupat_cg_result res;
        double a = now_s();
        s = cupat_cg(ctx, A, x, y, rtol, (size_t)max_iter, noprec ? CUPAT_CG_NONE : CUPAT_CG_JACOBI,
                     hist, hist ? hl : 0, &res);
        double t = now_s() - a;
        if (s) {
            fprintf(stderr, "%s: %s\n", cmd, cupat_last_error(ctx));
            free(hist);
            goto done;
        }
        for (size_t i = 0; hist && i <= res.iterations && i < hl; i++)
            printf("  %6zu  %.6e\n", i, hist[i]);
        printf("cg (%s, spmv %s, %s): %s after %zu iterations, ||b - Ax|| / ||b|| = %.3e; "
               "%.3f ms total, %.4f ms per iteration\n",
               noprec ? "no preconditioner" : "Jacobi", vi ? vi->name : "?",
               cupat_backend_name(cupat_get_backend(ctx)),
               res.converged ? "converged" : "NOT converged", res.iterations, res.residual, t * 1e3,
               res.iterations ? t * 1e3 / (double)res.iterations : 0.0);
        if (!res.converged && res.iterations < (size_t)max_iter)
            printf("cg: the true residual stopped falling at %.3e, above rtol %.1e: beyond what %s "
                   "attains on this system%s\n",
                   res.residual, rtol, f64 ? "f64" : "f32", f64 ? "" : " (try --f64)");
        free(hist);
        rc = res.converged ? 0 : 1;
        goto done;
    }
cuda_fail:
    fprintf(stderr, "%s: %s\n", cmd, cupat_last_error(ctx));
done:
    free(h);
    cupat_free(ctx, x);
    cupat_free(ctx, y);
    cupat_sparse_destroy(ctx, A);
    cupat_destroy(ctx);
    return rc;
}

int cmd_spmv(int argc, char **argv) { return sparse_main(argc, argv, 0); }
int cmd_cg(int argc, char **argv) { return sparse_main(argc, argv, 1); }
