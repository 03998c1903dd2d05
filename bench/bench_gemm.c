/* SPDX-License-Identifier: Apache-2.0 */
/* bench_gemm.c — the gemm ladder against cublasSgemm (pedantic FP32: no TF32)
 * on the shapes, op N,N; the default rung alone against cuBLAS for
 * ops N,T, T,N and T,T on the shapes users call (issue 22); the resource
 * report of every rung (registers, shared memory, spills, theoretical
 * occupancy: PMPP 5.6), and the tile configuration sweep the auto rung's
 * table comes from (--sweep-blocks). */
#include "harness.h"

#include "gemm/gemm_internal.h"
#include "internal.h"

#include <cublas_v2.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { SEED_A = 31, SEED_B = 32 };
#define NSAMPLE 2000

static int gpu(const bench_run *run)
{
    return run->backend == CUPAT_BACKEND_CUDA;
}

/* C = op(A) op(B), all row-major and tight, alpha 1, beta 0: A is stored
 * m x k (lda = k) for op N and k x m (lda = m) for op T; B k x n (ldb = n)
 * for op N and n x k (ldb = k) for op T; C m x n (ldc = n). */
typedef struct gemm_state {
    size_t m, n, k;
    int ta, tb; /* 1: op T */
    float *A, *B, *C;
    float *host; /* C brought back for the check */
    int cfg, split; /* sweep rows: the multistage kernel directly */
} gemm_state;

static size_t lda_of(const gemm_state *st) { return st->ta ? st->m : st->k; }
static size_t ldb_of(const gemm_state *st) { return st->tb ? st->k : st->n; }

/* Element (i, p) of op(A) and (p, j) of op(B): the fill's value at the index
 * where the stored matrix keeps it. */
static float in_a(const gemm_state *st, size_t i, size_t p)
{
    return bench_rand_f32(SEED_A, st->ta ? p * st->m + i : i * st->k + p, -1.0f, 2.0f);
}
static float in_b(const gemm_state *st, size_t p, size_t j)
{
    return bench_rand_f32(SEED_B, st->tb ? j * st->k + p : p * st->n + j, -1.0f, 2.0f);
}

static cupat_status gemm_run(bench_run *run, void *p)
{
    gemm_state *st = p;
    return cupat_gemm_f32(run->ctx, CUPAT_ROW_MAJOR, st->ta ? CUPAT_TRANS_T : CUPAT_TRANS_N,
                          st->tb ? CUPAT_TRANS_T : CUPAT_TRANS_N, st->m, st->n, st->k, 1.0f,
                          st->A, lda_of(st), st->B, ldb_of(st), 0.0f, st->C, st->n);
}

static cupat_gemm_args args_of(const gemm_state *st)
{
    cupat_gemm_args a = {(int)st->m, (int)st->n, (int)st->k, st->ta, st->tb, 1.0f, 0.0f,
                         st->A, lda_of(st), st->B, ldb_of(st), st->C, st->n};
    return a;
}

/* One configuration and split, after the copies the auto rung would make
 * for the problem (so the sweep ranks what auto chooses among). */
static cupat_status gemm_config_run(bench_run *run, void *p)
{
    gemm_state *st = p;
    cupat_gemm_args a = args_of(st);
    int cfg, split, copies;
    cupat__gemm_auto_plan(run->ctx, &a, &cfg, &split, &copies);
    return cupat__gemm_cuda_async(run->ctx, st->cfg, st->split, &a, copies);
}

/* cuBLAS is column-major: row-major C = op(A) op(B) is column-major C^T =
 * op(B)^T op(A)^T, the same memory with the operands swapped. A row-major
 * matrix read column-major is its transpose, so each operand keeps its op
 * (B stored k x n is the column-major n x k matrix op(B)^T: op N; stored
 * n x k it is op(B) itself, whose transpose op T gives) and its leading
 * dimension. Pedantic math: FP32 FMAs, no TF32 tensor cores, like cupat. */
static cupat_status gemm_cublas(bench_run *run, void *p)
{
    gemm_state *st = p;
    void *h;
    const float one = 1.0f, zero = 0.0f;
    CUPAT_TRY(bench_cublas(run, &h));
    cublasMath_t mode;
    CUPAT_TRY(bench_cublas_status(run, cublasGetMathMode((cublasHandle_t)h, &mode),
                                  "cublasGetMathMode"));
    CUPAT_TRY(bench_cublas_status(run, cublasSetMathMode((cublasHandle_t)h, CUBLAS_PEDANTIC_MATH),
                                  "cublasSetMathMode(CUBLAS_PEDANTIC_MATH)"));
    cupat_status s = bench_cublas_status(
        run,
        cublasSgemm((cublasHandle_t)h, st->tb ? CUBLAS_OP_T : CUBLAS_OP_N,
                    st->ta ? CUBLAS_OP_T : CUBLAS_OP_N, (int)st->n, (int)st->m, (int)st->k,
                    &one, st->B, (int)ldb_of(st), st->A, (int)lda_of(st), &zero, st->C,
                    (int)st->n),
        "cublasSgemm");
    cupat_status r = bench_cublas_status(run, cublasSetMathMode((cublasHandle_t)h, mode),
                                         "cublasSetMathMode");
    return s ? s : r;
}

static cupat_status poison_c(bench_run *run, void *p)
{
    gemm_state *st = p; /* NaN: beta = 0 must not read it, every element must be written */
    return cupat_memset(run->ctx, st->C, 0xFF, st->m * st->n * sizeof(float));
}

/* Every element of C comes back; NSAMPLE of them (and the four corners) are
 * recomputed in f64 from the input generator and must lie within
 * 2 k eps sum_p |a_ip b_pj| (tests/test_gemm.c derives the bound). */
static cupat_status gemm_check(bench_run *run, void *p, int strict, bench_check *chk)
{
    gemm_state *st = p;
    (void)strict; /* cuBLAS's pedantic FP32 obeys the same bound */
    size_t total = st->m * st->n;
    if (!st->host && !(st->host = malloc(total * sizeof(float))))
        return bench_fail(run, CUPAT_ERROR_OUT_OF_MEMORY, "bench gemm: %zu bytes of host memory",
                          total * sizeof(float));
    CUPAT_TRY(cupat_memcpy(run->ctx, st->host, st->C, total * sizeof(float)));
    CUPAT_TRY(cupat_sync(run->ctx));
    size_t ns = total < NSAMPLE + 4 ? total : NSAMPLE + 4, wrong = 0;
    char msg[256] = "";
#pragma omp parallel for schedule(dynamic, 16) reduction(+ : wrong)
    for (size_t s = 0; s < ns; s++) {
        size_t i, j;
        if (ns == total) {
            i = s / st->n;
            j = s % st->n;
        } else if (s < 4) {
            i = (s & 1) ? st->m - 1 : 0;
            j = (s & 2) ? st->n - 1 : 0;
        } else {
            uint64_t h = bench_hash(0x6E33, s);
            i = (size_t)(h % st->m);
            j = (size_t)((h >> 32) % st->n);
        }
        double sum = 0, mag = 0;
        for (size_t q = 0; q < st->k; q++) {
            double t = (double)in_a(st, i, q) * (double)in_b(st, q, j);
            sum += t;
            mag += fabs(t);
        }
        double got = st->host[i * st->n + j];
        double tol = 2.0 * (double)(st->k > 1 ? st->k : 1) * FLT_EPSILON * mag;
        if (!(fabs(got - sum) <= tol)) {
            wrong++;
#pragma omp critical(bench_gemm_msg)
            if (!msg[0])
                snprintf(msg, sizeof msg, "C[%zu][%zu] = %.9g, expected %.9g (tol %.2g)", i, j,
                         got, sum, tol);
        }
    }
    chk->checked += ns;
    chk->wrong += wrong;
    if (wrong && !chk->msg[0])
        snprintf(chk->msg, sizeof chk->msg, "%s; %zu of %zu sampled wrong", msg, wrong, ns);
    return CUPAT_SUCCESS;
}

static cupat_status gemm_setup(bench_run *run, gemm_state *st, size_t m, size_t n, size_t k)
{
    cupat_status s = CUPAT_SUCCESS;
    memset(st, 0, sizeof *st);
    st->m = m;
    st->n = n;
    st->k = k;
    s = cupat_malloc(run->ctx, (void **)&st->A, m * k * sizeof(float));
    if (!s) s = cupat_malloc(run->ctx, (void **)&st->B, k * n * sizeof(float));
    if (!s) s = cupat_malloc(run->ctx, (void **)&st->C, m * n * sizeof(float));
    if (!s) s = bench_fill_f32(run, st->A, m * k, SEED_A, -1.0f, 2.0f);
    if (!s) s = bench_fill_f32(run, st->B, k * n, SEED_B, -1.0f, 2.0f);
    return s;
}

static void gemm_free(bench_run *run, gemm_state *st)
{
    cupat_sync(run->ctx);
    cupat_free(run->ctx, st->A);
    cupat_free(run->ctx, st->B);
    cupat_free(run->ctx, st->C);
    free(st->host);
}

/* The shapes: --n S is S^3, --n RxC is R x C x C; else the issue's. `ops`:
 * the case runs ops N,T, T,N and T,T too (the default rung beside cuBLAS),
 * after op N,N's whole ladder: every shape but 8192^3 (issue 22 asks for the
 * transposed ops at 4096^3 and the odd shapes), and a --n shape unless
 * --quick (one table). */
typedef struct gshape {
    size_t m, n, k;
    int ops;
} gshape;

static size_t shapes_for(const bench_run *run, const bench_size *size, gshape *out)
{
    static const gshape gpu_shapes[] = {{4096, 4096, 4096, 1}, {8192, 8192, 8192, 0},
                                        {1000, 1000, 1000, 1}, {4097, 3001, 2003, 1},
                                        {65536, 64, 4096, 1},  {64, 65536, 4096, 1}};
    static const gshape cpu_shapes[] = {{512, 512, 512, 1}, {1000, 1000, 1000, 1}};
    if (size) {
        out[0].m = size->rows ? size->rows : size->n;
        out[0].n = size->rows ? size->cols : size->n;
        out[0].k = size->rows ? size->cols : size->n;
        out[0].ops = !run->opt.quick;
        return 1;
    }
    const gshape *l = gpu(run) ? gpu_shapes : cpu_shapes;
    size_t c = gpu(run) ? sizeof gpu_shapes / sizeof gpu_shapes[0]
                        : sizeof cpu_shapes / sizeof cpu_shapes[0];
    memcpy(out, l, c * sizeof *l);
    return c;
}

/* PMPP 5.6 made concrete: what each rung's kernel costs an SM. */
static void print_resources(bench_run *run)
{
    FILE *f = run->opt.out;
    fprintf(f, "\ngemm resource usage (cudaFuncGetAttributes, cudaOccupancyMaxActiveBlocksPerMultiprocessor; "
               "op N,N, 16-byte loads)\n");
    fprintf(f, "%-10s %-30s %5s %9s %9s %7s %7s %9s %9s\n", "rung", "kernel", "regs",
            "smem st", "smem dyn", "spill", "threads", "blocks/SM", "occupancy");
    for (int r = 0; r < GEMM_NRUNGS; r++) {
        if (r == GEMM_CPU) continue;
        int ncfg = r == GEMM_AUTO ? cupat__gemm_nconfigs : 1;
        for (int c = 0; c < ncfg; c++) {
            cupat_gemm_resources res;
            const cupat_variant_info *v = NULL;
            size_t nv = 0;
            cupat_variants("gemm", &v, &nv);
            if (cupat__gemm_cuda_resources(run->ctx, r, c, &res)) {
                fprintf(f, "%-10s (resources unavailable: %s)\n", v[r].name,
                        cupat_last_error(run->ctx));
                continue;
            }
            fprintf(f, "%-10s %-30s %5d %9zu %9zu %7zu %7d %9d %8.0f%%\n",
                    c == 0 ? v[r].name : "", res.kernel, res.regs, res.smem_static,
                    res.smem_dynamic, res.local_bytes, res.threads, res.blocks_per_sm,
                    100.0 * res.occupancy);
        }
    }
    fprintf(f, "\n");
}

static void print_pick(bench_run *run, const gemm_state *st)
{
    cupat_gemm_args a = args_of(st);
    int cfg, split, pack;
    cupat__gemm_auto_plan(run->ctx, &a, &cfg, &split, &pack);
    char copies[96] = "";
    if (pack)
        snprintf(copies, sizeof copies, " (in scratch first:%s%s%s)",
                 pack & GEMM_PAD_A ? " A's rows padded" : "",
                 pack & GEMM_PACK_B ? " B transposed" : "", pack & GEMM_PAD_B ? " B's rows padded" : "");
    fprintf(run->opt.out, "auto picks %s, split-K %d, for %zu x %zu x %zu op %c,%c%s\n\n",
            cupat__gemm_configs[cfg].name, split, st->m, st->n, st->k, st->ta ? 'T' : 'N',
            st->tb ? 'T' : 'N', copies);
}

cupat_status bench_gemm_cases(bench_run *run, const bench_size *size)
{
    /* op N,N first (the whole ladder); then the transposed ops, default rung */
    static const int ops[][2] = {{0, 0}, {0, 1}, {1, 0}, {1, 1}};
    gshape sh[8];
    size_t count = shapes_for(run, size, sh);
    if (gpu(run)) print_resources(run);
    for (size_t q = 0; q < count; q++) {
        gemm_state st;
        cupat_status s = gemm_setup(run, &st, sh[q].m, sh[q].n, sh[q].k);
        size_t nops = sh[q].ops ? sizeof ops / sizeof ops[0] : 1;
        for (size_t o = 0; !s && o < nops; o++) {
            bench_case c = {0};
            st.ta = ops[o][0];
            st.tb = ops[o][1];
            c.pattern = "gemm";
            snprintf(c.label, sizeof c.label, "%zux%zux%zu f32, op %c,%c, beta 0", sh[q].m,
                     sh[q].n, sh[q].k, st.ta ? 'T' : 'N', st.tb ? 'T' : 'N');
            c.bytes = 4.0 * ((double)sh[q].m * sh[q].k + (double)sh[q].k * sh[q].n +
                             (double)sh[q].m * sh[q].n);
            c.flops = 2.0 * (double)sh[q].m * (double)sh[q].n * (double)sh[q].k;
            c.bound = BENCH_BOUND_FP32;
            c.state = &st;
            c.prepare = poison_c;
            c.run = gemm_run;
            c.check = gemm_check;
            c.vendor_name = gpu(run) ? "cublasSgemm (pedantic)" : NULL;
            c.vendor = gpu(run) ? gemm_cublas : NULL;
            c.default_only = o > 0;
            if (c.default_only)
                c.note = "transposed op: the default rung alone, beside the vendor (op N,N's "
                         "table has the ladder; --variant NAME times another rung)";
            s = bench_run_case(run, &c);
            if (!s && gpu(run)) print_pick(run, &st);
        }
        gemm_free(run, &st);
        CUPAT_TRY(s);
    }
    return CUPAT_SUCCESS;
}

/* Every tile configuration of the multistage kernel with split-K 1, 2, 4, 8
 * on each shape, beside cuBLAS: the measurements the auto rung's efficiency
 * table (src/gemm/gemm_async.cuh) and its choice are checked against. Splits
 * are skipped where the unsplit grid already fills a wave or the split one
 * would need more than two. Op N,N; CUPAT_BENCH_GEMM_SWEEP_OPS (e.g. "NT,TT")
 * sweeps those ops instead, and CUPAT_BENCH_GEMM_SWEEP_SHAPES (e.g.
 * "4097x3001x2003,64x65536x4096") replaces the shapes: the transposed ops'
 * tables, for shapes --n cannot name. */
cupat_status bench_gemm_sweep(bench_run *run, const bench_size *size)
{
    static const int splits[] = {1, 2, 4, 8};
    if (!gpu(run)) {
        fprintf(run->opt.out, "gemm --sweep-blocks needs a GPU (the CUDA backend)\n");
        return CUPAT_SUCCESS;
    }
    gshape sh[8];
    size_t count = shapes_for(run, size, sh);
    const char *env_sh = getenv("CUPAT_BENCH_GEMM_SWEEP_SHAPES");
    if (env_sh && *env_sh) {
        count = 0;
        for (const char *c = env_sh; *c && count < 8;) {
            unsigned long long m, n, k;
            int used = 0;
            if (sscanf(c, "%llux%llux%llu%n", &m, &n, &k, &used) != 3 || !m || !n || !k) {
                fprintf(stderr, "CUPAT_BENCH_GEMM_SWEEP_SHAPES: '%s' is not MxNxK[,MxNxK...]\n", env_sh);
                return CUPAT_ERROR_INVALID_VALUE;
            }
            sh[count++] = (gshape){(size_t)m, (size_t)n, (size_t)k, 0};
            c += used;
            if (*c == ',') c++;
        }
    }
    int ops[4][2] = {{0, 0}}, nops = 1;
    const char *env_ops = getenv("CUPAT_BENCH_GEMM_SWEEP_OPS");
    if (env_ops && *env_ops) {
        nops = 0;
        for (const char *c = env_ops; *c && nops < 4;) {
            if ((c[0] != 'N' && c[0] != 'T') || (c[1] != 'N' && c[1] != 'T')) {
                fprintf(stderr, "CUPAT_BENCH_GEMM_SWEEP_OPS: '%s' is not NN|NT|TN|TT[,...]\n", env_ops);
                return CUPAT_ERROR_INVALID_VALUE;
            }
            ops[nops][0] = c[0] == 'T';
            ops[nops][1] = c[1] == 'T';
            nops++;
            c += 2;
            if (*c == ',') c++;
        }
    }
    for (size_t qo = 0; qo < count * (size_t)nops; qo++) {
        const size_t q = qo / (size_t)nops;
        const int o = (int)(qo % (size_t)nops);
        gemm_state st;
        char label[128];
        cupat_status s = gemm_setup(run, &st, sh[q].m, sh[q].n, sh[q].k);
        st.ta = ops[o][0];
        st.tb = ops[o][1];
        snprintf(label, sizeof label, "%zux%zux%zu f32, op %c,%c", sh[q].m, sh[q].n, sh[q].k,
                 st.ta ? 'T' : 'N', st.tb ? 'T' : 'N');
        double flops = 2.0 * (double)sh[q].m * (double)sh[q].n * (double)sh[q].k;
        double bytes = 4.0 * ((double)sh[q].m * sh[q].k + (double)sh[q].k * sh[q].n +
                              (double)sh[q].m * sh[q].n);
        bench_table *t = s ? NULL
                           : bench_table_begin(run, "gemm", "gemm tile configurations x split-K",
                                               label, bytes, flops, BENCH_BOUND_FP32);
        if (!s && !t) s = CUPAT_ERROR_OUT_OF_MEMORY;
        if (t) {
            t->sweep = 1;
            t->note = "rows: BMxBNxBK/stages sK (split-K), each after the copies auto makes; x "
                      "best ranks them; auto's pick (and its copies) is printed below";
            bench_row *row = bench_table_add(run, t, "cublasSgemm (pedantic)", BENCH_ROW_VENDOR);
            if (!row) s = CUPAT_ERROR_OUT_OF_MEMORY;
            else bench_measure(run, t, row, gemm_cublas, poison_c, gemm_check, 0, &st);
        }
        for (int cfg = 0; t && !s && cfg < cupat__gemm_nconfigs; cfg++) {
            const cupat_gemm_config *g = &cupat__gemm_configs[cfg];
            cupat_gemm_resources res = {0};
            double occ = cupat__gemm_cuda_async_resources(run->ctx, cfg, &res) ? -1
                                                                              : res.occupancy;
            size_t tiles = ((sh[q].m + g->bm - 1) / g->bm) * ((sh[q].n + g->bn - 1) / g->bn);
            size_t slots = (size_t)(run->ctx->sm_count > 0 ? run->ctx->sm_count : 132) *
                           (size_t)(occ >= 0 && res.blocks_per_sm > 0 ? res.blocks_per_sm : 1);
            for (size_t z = 0; z < sizeof splits / sizeof splits[0]; z++) {
                if (splits[z] > 1 && sh[q].k < (size_t)splits[z] * 4 * g->bk) break;
                /* a full wave without split-K, or more than two with it:
                 * splitting only adds traffic (and sweep time) */
                if (splits[z] > 1 && (tiles >= slots || tiles * (size_t)splits[z] > 2 * slots))
                    break;
                char name[64];
                snprintf(name, sizeof name, "%s s%d", g->name, splits[z]);
                bench_progress(run, "bench gemm sweep %s: %s", label, name);
                bench_row *row = bench_table_add(run, t, name, BENCH_ROW_CONFIG);
                if (!row) {
                    s = CUPAT_ERROR_OUT_OF_MEMORY;
                    break;
                }
                st.cfg = cfg;
                st.split = splits[z];
                row->bx = (unsigned)g->threads;
                row->by = 1;
                row->gx = tiles;
                row->gy = (size_t)splits[z];
                row->occupancy = occ;
                bench_measure(run, t, row, gemm_config_run, poison_c, gemm_check, 1, &st);
            }
        }
        if (t) bench_table_end(run, t);
        if (!s) print_pick(run, &st);
        gemm_free(run, &st);
        CUPAT_TRY(s);
    }
    return CUPAT_SUCCESS;
}

/* ---------------------------------------------------------------- gemv -- */

/* y = A x (op N) or y = A^T x (op T), A m x n row-major and tight (lda = n),
 * alpha 1, beta 0 over NaN poison; against cublasSgemv on the same memory. */
typedef struct gemv_state {
    size_t m, n;
    int ta;
    float *A, *x, *y;
    float *host; /* y brought back for the check */
} gemv_state;

enum { SEED_X = 33 };

static float gv_a(const gemv_state *st, size_t i, size_t j)
{
    return bench_rand_f32(SEED_A, i * st->n + j, -1.0f, 2.0f);
}
static float gv_x(size_t j) { return bench_rand_f32(SEED_X, j, -1.0f, 2.0f); }
static size_t gv_ylen(const gemv_state *st) { return st->ta ? st->n : st->m; }
static size_t gv_xlen(const gemv_state *st) { return st->ta ? st->m : st->n; }

static cupat_status gemv_run(bench_run *run, void *p)
{
    gemv_state *st = p;
    return cupat_gemv_f32(run->ctx, CUPAT_ROW_MAJOR, st->ta ? CUPAT_TRANS_T : CUPAT_TRANS_N,
                          st->m, st->n, 1.0f, st->A, st->n, st->x, 0.0f, st->y);
}

/* Row-major A (m x n) is column-major A^T (n x m, ld n): op N here is op T
 * there and the other way round. */
static cupat_status gemv_cublas(bench_run *run, void *p)
{
    gemv_state *st = p;
    void *h;
    const float one = 1.0f, zero = 0.0f;
    CUPAT_TRY(bench_cublas(run, &h));
    return bench_cublas_status(
        run,
        cublasSgemv((cublasHandle_t)h, st->ta ? CUBLAS_OP_N : CUBLAS_OP_T, (int)st->n,
                    (int)st->m, &one, st->A, (int)st->n, st->x, 1, &zero, st->y, 1),
        "cublasSgemv");
}

static cupat_status gemv_poison(bench_run *run, void *p)
{
    gemv_state *st = p;
    return cupat_memset(run->ctx, st->y, 0xFF, gv_ylen(st) * sizeof(float));
}

/* All of y comes back; NSAMPLE elements (and both ends) are recomputed in f64
 * and must lie within 2 len eps sum |a x| (test_gemm.c's bound). */
static cupat_status gemv_check(bench_run *run, void *p, int strict, bench_check *chk)
{
    gemv_state *st = p;
    (void)strict;
    size_t ylen = gv_ylen(st), xlen = gv_xlen(st);
    if (!st->host && !(st->host = malloc(ylen * sizeof(float))))
        return bench_fail(run, CUPAT_ERROR_OUT_OF_MEMORY, "bench gemv: %zu bytes of host memory",
                          ylen * sizeof(float));
    CUPAT_TRY(cupat_memcpy(run->ctx, st->host, st->y, ylen * sizeof(float)));
    CUPAT_TRY(cupat_sync(run->ctx));
    size_t ns = ylen < NSAMPLE + 2 ? ylen : NSAMPLE + 2, wrong = 0;
    char msg[256] = "";
#pragma omp parallel for schedule(dynamic, 4) reduction(+ : wrong)
    for (size_t s = 0; s < ns; s++) {
        size_t t = ns == ylen ? s : s == 0 ? 0 : s == 1 ? ylen - 1 : bench_hash(0x6E37, s) % ylen;
        double sum = 0, mag = 0;
        for (size_t q = 0; q < xlen; q++) {
            double a = st->ta ? gv_a(st, q, t) : gv_a(st, t, q);
            double v = a * (double)gv_x(q);
            sum += v;
            mag += fabs(v);
        }
        double got = st->host[t];
        double tol = 2.0 * (double)(xlen > 1 ? xlen : 1) * FLT_EPSILON * mag;
        if (!(fabs(got - sum) <= tol)) {
            wrong++;
#pragma omp critical(bench_gemv_msg)
            if (!msg[0])
                snprintf(msg, sizeof msg, "y[%zu] = %.9g, expected %.9g (tol %.2g)", t, got, sum,
                         tol);
        }
    }
    chk->checked += ns;
    chk->wrong += wrong;
    if (wrong && !chk->msg[0])
        snprintf(chk->msg, sizeof chk->msg, "%s; %zu of %zu sampled wrong", msg, wrong, ns);
    return CUPAT_SUCCESS;
}

static void gemv_free(bench_run *run, void *p)
{
    gemv_state *st = p;
    cupat_sync(run->ctx);
    cupat_free(run->ctx, st->A);
    cupat_free(run->ctx, st->x);
    cupat_free(run->ctx, st->y);
    free(st->host);
}

/* --n S is S x S, --n RxC an R x C matrix; else on the GPU 4096^2 (64 MiB:
 * a few launches' worth of DRAM time, issue 22), then a square and a wide
 * matrix of 1 GiB each (one long dot product a row / a column); 4096^2 on
 * the CPU. Each shape runs op N and op T. */
cupat_status bench_gemv_cases(bench_run *run, const bench_size *size)
{
    static const size_t gpu_shapes[][2] = {{4096, 4096}, {16384, 16384}, {2048, 131072}};
    static const size_t cpu_shapes[][2] = {{4096, 4096}};
    size_t shapes[3][2], count;
    if (size) {
        shapes[0][0] = size->rows ? size->rows : size->n;
        shapes[0][1] = size->rows ? size->cols : size->n;
        count = 1;
    } else {
        count = gpu(run) ? sizeof gpu_shapes / sizeof gpu_shapes[0] : 1;
        memcpy(shapes, gpu(run) ? gpu_shapes : cpu_shapes, count * sizeof shapes[0]);
    }
    for (size_t q = 0; q < count; q++) {
        gemv_state st = {shapes[q][0], shapes[q][1], 0, NULL, NULL, NULL, NULL};
        size_t m = st.m, n = st.n, big = m > n ? m : n;
        cupat_status s = cupat_malloc(run->ctx, (void **)&st.A, m * n * sizeof(float));
        if (!s) s = cupat_malloc(run->ctx, (void **)&st.x, big * sizeof(float));
        if (!s) s = cupat_malloc(run->ctx, (void **)&st.y, big * sizeof(float));
        if (!s) s = bench_fill_f32(run, st.A, m * n, SEED_A, -1.0f, 2.0f);
        if (!s) s = bench_fill_f32(run, st.x, big, SEED_X, -1.0f, 2.0f);
        for (int ta = 0; !s && ta < 2; ta++) {
            bench_case c = {0};
            st.ta = ta;
            free(st.host);
            st.host = NULL;
            c.pattern = "gemv";
            snprintf(c.label, sizeof c.label, "%zux%zu f32, op %c, beta 0", m, n, ta ? 'T' : 'N');
            c.bytes = 4.0 * ((double)m * (double)n + (double)m + (double)n);
            c.flops = 2.0 * (double)m * (double)n;
            c.bound = BENCH_BOUND_READ;
            c.state = &st;
            c.prepare = gemv_poison;
            c.run = gemv_run;
            c.check = gemv_check;
            c.vendor_name = gpu(run) ? "cublasSgemv" : NULL;
            c.vendor = gpu(run) ? gemv_cublas : NULL;
            s = bench_run_case(run, &c);
        }
        CUPAT_TRY(bench_finish(run, s, gemv_free, &st));
    }
    return CUPAT_SUCCESS;
}
