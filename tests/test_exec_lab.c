/* SPDX-License-Identifier: Apache-2.0 */
/* test_exec_lab.c — the execution-model lab (lab/exec, `cupat lab exec`).
 * cpu:  the host models: the divergence kernels' outputs, lanes of a partial
 *       warp, Sattolo's single cycle, Little's law against the notes' worked
 *       numbers (lecture: 13 and 7 warps; Guide: 16 warps), the nested-hello
 *       counts, Mandelbrot's geometry and Mariani-Silver against the flat image
 *       on the host; every lab function refuses bad arguments with a message
 *       naming them, and valid ones on the CPU backend with "CUDA backend".
 * cuda: every experiment's output equals its host model: divergence kernels,
 *       partial warps (and __activemask()), the warp map of 2D and 3D blocks,
 *       %smid below %nsmid with each block started once, barrier cycles, the
 *       pointer chases' end points (and DRAM slower than L1), the FMA chain,
 *       ILP and bytes-in-flight sums, the register cliff's variants (bounds
 *       kept, calculator = runtime), the occupancy APIs against the
 *       calculator, gemm rungs on an odd shape, and dynamic parallelism:
 *       nested-hello counts, pending launches, depth, and Mandelbrot by CDP
 *       equal to the host's Mariani-Silver and the flat kernel to the host.
 * throughput: the op table and the host model of the
 *       instruction chains (cpu); every op's sampled warps equal the model and
 *       no rate is above the Guide's table (cuda).
 * The ILP and bytes-in-flight rows run only where their warps fit an SM
 * (lab_exec_sweep_fit; more are refused); every sweep kernel holds 32 warps.
 * Each part prints its seconds. A watchdog (CUPAT_TEST_WATCHDOG seconds,
 * default 160, off with --small; the whole run took 80 s on an H100 beside
 * two other GPU tests once the throughput part came) names the step still running and exits 1
 * rather than leave a hung device launch to CTest's timeout.
 * --small (the sanitizer runs): fewer sweep rows, no timing comparisons.
 * The pending launches stay under the limit unless CUPAT_TEST_CDP_PAST_LIMIT=1
 * (not with --small: past it the device runtime writes each failing launch's
 * parameters to one scratch buffer, which memcheck reports; and on an H200
 * about 1 run in 5 past it never returned). CUPAT_TEST_NO_CDP=1 skips dynamic parallelism (only
 * memcheck supports it; the other tools print a warning that counts as an
 * error). */
#define _POSIX_C_SOURCE 200809L /* alarm, write, _exit */
#include "testutil.h"

#include <cuda_runtime_api.h>
#include <signal.h>
#include <unistd.h>

#include "exec/exec.h"
#include "exec/exec_tp.h"
#include "exec/exec_work.h"
#include "exec/occupancy.h"

static cupat_ctx *ctx;
static int no_cdp;

/* The watchdog: the step in progress, named when the alarm goes off. */
static const char *volatile t_step = "start";
#define STEP(name) (t_step = (name))
static void on_alarm(int sig)
{
    (void)sig;
    static const char m[] = "FAIL: watchdog: test_exec_lab still running in step: ";
    const char *st = t_step;
    if (write(2, m, sizeof m - 1) < 0 || write(2, st, strlen(st)) < 0 || write(2, "\n", 1) < 0) _exit(1);
    _exit(1);
}

static uint32_t fbits(float x)
{
    uint32_t u;
    memcpy(&u, &x, 4);
    return u;
}

static void check_model(void)
{
    STEP("model");
    /* divergence outputs */
    CHECK(lab_exec_div_expected(LAB_DIV_WARP, 31, 1) == fbits(100.0f) &&
              lab_exec_div_expected(LAB_DIV_WARP, 32, 1) == fbits(200.0f),
          "warp-granular branch: warp 0 takes if, warp 1 else");
    CHECK(lab_exec_div_expected(LAB_DIV_PRED, 0, 1) == fbits(100.0f) &&
              lab_exec_div_expected(LAB_DIV_SPLIT, 1, 1) == fbits(200.0f),
          "tid %% 2 branches");
    CHECK(exec_lcg(1, 1) == 1015568748u, "one LCG step: %u", exec_lcg(1, 1));
    CHECK(exec_xorshift(1, 1) == 270369u, "one xorshift step: %u", exec_xorshift(1, 1));
    CHECK(lab_exec_div_expected(LAB_DIV_LONG_ODD, 3, 5) == exec_xorshift(exec_seed(3), 5) &&
              lab_exec_div_expected(LAB_DIV_LONG_WARP, 3, 5) == exec_lcg(exec_seed(3), 5),
          "long bodies: odd lane xorshift, warp 0 LCG");
    CHECK(exec_way(12345u, 7, 0) == 12345u, "zero iterations leave x");
    int distinct = 1;
    for (int p = 0; p < 32; p++)
        for (int q = 0; q < p; q++) distinct &= exec_way(99u, p, 4) != exec_way(99u, q, 4);
    CHECK(distinct, "the 32 paths compute 32 different values");
    CHECK(lab_exec_div_expected(LAB_DIV_WAY32_LANE, 37, 3) == exec_way(exec_seed(37), 5, 3) &&
              lab_exec_div_expected(LAB_DIV_WAY32_WARP, 37, 3) == exec_way(exec_seed(37), 1, 3),
          "32 paths: lane 5 / warp 1");
    CHECK(lab_exec_div_name(LAB_DIV_NKERNELS) == NULL && lab_exec_div_code(-1) == NULL &&
              lab_exec_lat_name(LAB_LAT_NWHERE) == NULL && lab_exec_cliff_name(LAB_CLIFF_NVARIANTS) == NULL &&
              lab_exec_occ_name(LAB_OCC_NKERNELS) == NULL,
          "name tables end");

    /* partial warps */
    CHECK(lab_exec_warp_lanes(33, 0) == 32 && lab_exec_warp_lanes(33, 32) == 1 && lab_exec_warp_lanes(1, 0) == 1 &&
              lab_exec_warp_lanes(96, 95) == 32 && lab_exec_warp_lanes(65, 64) == 1 &&
              lab_exec_warp_lanes(48, 40) == 16,
          "lanes of partial warps");

    /* Sattolo: one cycle through all n */
    static uint32_t next[4096];
    static const uint32_t ns[] = {2, 3, 17, 1000, 4096};
    for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
        const uint32_t n = ns[k];
        lab_exec_sattolo(next, n, 7 + k);
        uint32_t j = 0, len = 0;
        do {
            j = next[j];
            len++;
        } while (j != 0 && len <= n);
        CHECK(len == n, "Sattolo n = %u: cycle of %u", n, len);
    }

    /* Little's law: the notes' worked numbers */
    CHECK(ceil(lab_exec_little_warps(200, 0.25, 4)) == 13, "lecture: 200 / (4 x 4) = 13 warps");
    CHECK(ceil(lab_exec_little_warps(200, 0.25, 8)) == 7, "lecture: 200 / (4 x 8) = 7 warps");
    CHECK(lab_exec_little_warps(4, 4, 1) == 16, "Guide 8.2.3: 16 warps hide 4 cycles on cc 7.x");
    CHECK(fabs(lab_exec_little_bytes(3000, 600, 132) - 13636.36) < 0.01, "3000 GB/s x 600 ns / 132 SMs");

    uint32_t s = 0;
    for (uint32_t i = 0; i < 1000; i++) s += exec_mlp_word(i);
    CHECK(lab_exec_mlp_sum(1000) == s, "bytes-in-flight sum");

    /* nested hello: the book's halving */
    int c[LAB_CDP_MAX_DEPTH];
    lab_exec_cdp_hello_expected(1, 8, c);
    CHECK(c[0] == 8 && c[1] == 4 && c[2] == 2 && c[3] == 1 && c[4] == 0, "hello <<<1, 8>>>: 8 4 2 1");
    lab_exec_cdp_hello_expected(2, 8, c);
    CHECK(c[0] == 16 && c[3] == 2 && c[4] == 0, "hello <<<2, 8>>>: 16 8 4 2");

    /* Mandelbrot */
    lab_exec_mandel_geom g;
    CHECK(lab_exec_mandel_geometry(100, 10, &g) == -1 && lab_exec_mandel_geometry(256, 0, &g) == -1 &&
              lab_exec_mandel_geometry(64, 10, &g) == -1,
          "geometry refuses a size that is not a power of two >= 128, and dwell 0");
    CHECK(lab_exec_mandel_geometry(256, 128, &g) == 0, "geometry 256");
    CHECK(exec_dwell(192, 128, g.x0, g.y0, g.dx, g.dy, g.max_dwell) == 128, "c = 0 is in the set");
    CHECK(exec_dwell(0, 0, g.x0, g.y0, g.dx, g.dy, g.max_dwell) < 4, "c = -1.5 - i escapes at once");
    int *flat = malloc(256 * 256 * sizeof *flat), *ms = malloc(256 * 256 * sizeof *ms);
    CHECK(flat && ms, "host memory");
    if (flat && ms) {
        lab_exec_mandel_host(LAB_MANDEL_FLAT, &g, flat);
        for (int i = 0; i < 256 * 256; i++) ms[i] = -7;
        lab_exec_mandel_host(LAB_MANDEL_CDP, &g, ms);
        int diff = 0, unwritten = 0;
        for (int i = 0; i < 256 * 256; i++) {
            diff += ms[i] != flat[i];
            unwritten += ms[i] == -7;
        }
        printf("mandelbrot 256^2, dwell 128: Mariani-Silver differs from flat in %d pixels\n", diff);
        CHECK(unwritten == 0, "Mariani-Silver writes every pixel (%d unwritten)", unwritten);
        CHECK(diff <= 256 * 256 / 200, "Mariani-Silver close to flat: %d pixels differ", diff);
    }
    free(flat);
    free(ms);
}

static void check_bad(void)
{
    STEP("bad arguments");
    lab_exec_timed t;
    lab_exec_partial p;
    lab_exec_barrier b;
    lab_exec_latency l;
    lab_exec_rate r;
    lab_exec_cliff cl;
    lab_exec_kinfo ki;
    lab_exec_pending pe;
    uint32_t u[4];
    int i1, i2, counts[LAB_CDP_MAX_DEPTH], dw[4];
    double ms;
    lab_exec_place pl = {0};
    pl.smid = u;
    pl.ticket = u + 2;
    const cupat_status I = CUPAT_ERROR_INVALID_VALUE;
    CHECK_FAILS(NULL, I, "ctx is NULL", lab_exec_divergence(NULL, 0, 256, 1, 1, &t));
    CHECK_FAILS(ctx, I, "divergence kernel = 9", lab_exec_divergence(ctx, 9, 256, 1, 1, &t));
    CHECK_FAILS(ctx, I, "n = 300", lab_exec_divergence(ctx, 0, 300, 1, 1, &t));
    CHECK_FAILS(ctx, I, "iters = 0", lab_exec_divergence(ctx, 0, 256, 0, 1, &t));
    CHECK_FAILS(ctx, I, "reps = 0", lab_exec_divergence(ctx, 0, 256, 1, 0, &t));
    CHECK_FAILS(ctx, I, "out is NULL", lab_exec_divergence(ctx, 0, 256, 1, 1, NULL));
    CHECK_FAILS(ctx, I, "threads = 1025", lab_exec_partial_warps(ctx, 1025, 1, 1, 1, &p));
    CHECK_FAILS(ctx, I, "blocks x threads", lab_exec_partial_warps(ctx, 1024, 1u << 20, 1, 1, &p));
    CHECK_FAILS(ctx, I, "block 33 x 33 x 1", lab_exec_warp_map(ctx, 33, 33, 1, u, u, u));
    CHECK_FAILS(ctx, I, "leader is NULL", lab_exec_warp_map(ctx, 8, 4, 1, u, NULL, u));
    CHECK_FAILS(ctx, I, "spin_ns", lab_exec_placement(ctx, 2, 32, 2000000u, &pl));
    CHECK_FAILS(ctx, I, "blocks = 0", lab_exec_placement(ctx, 0, 32, 0, &pl));
    CHECK_FAILS(ctx, I, "threads = 48", lab_exec_barrier_cost(ctx, 48, 1, 1, &b));
    CHECK_FAILS(ctx, I, "blocks_per_sm = 33", lab_exec_barrier_cost(ctx, 32, 33, 1, &b));
    CHECK_FAILS(ctx, I, "where = 7", lab_exec_chase(ctx, 7, 4096, 1, &l));
    CHECK_FAILS(ctx, I, "bytes = 100", lab_exec_chase(ctx, LAB_LAT_L2, 100, 1, &l));
    CHECK_FAILS(ctx, I, "bytes = 65536", lab_exec_chase(ctx, LAB_LAT_CONST, 65536, 1, &l));
    CHECK_FAILS(ctx, I, "steps = 0", lab_exec_chase(ctx, LAB_LAT_SHARED, 4096, 0, &l));
    CHECK_FAILS(ctx, I, "steps = 0", lab_exec_fma_latency(ctx, 0, &l));
    CHECK_FAILS(ctx, I, "ilp = 3", lab_exec_ilp(ctx, 3, 1, 1, 1, &r));
    CHECK_FAILS(ctx, I, "warps = 20", lab_exec_ilp(ctx, 1, 20, 1, 1, &r));
    CHECK_FAILS(ctx, I, "unroll = 5", lab_exec_mlp(ctx, 5, 1, 1024, 1, &r));
    CHECK_FAILS(ctx, I, "sweep kernel = 2", lab_exec_sweep_fit(ctx, 2, 1, 16, &i1, &i2));
    CHECK_FAILS(ctx, I, "unroll = 3", lab_exec_sweep_fit(ctx, LAB_SWEEP_MLP, 3, 16, &i1, &i2));
    CHECK_FAILS(ctx, I, "warps = 24", lab_exec_sweep_fit(ctx, LAB_SWEEP_ILP, 1, 24, &i1, &i2));
    CHECK_FAILS(ctx, I, "fit is NULL", lab_exec_sweep_fit(ctx, LAB_SWEEP_ILP, 1, 16, NULL, &i2));
    CHECK_FAILS(ctx, I, "n = 1000", lab_exec_mlp(ctx, 1, 1, 1000, 1, &r));
    CHECK_FAILS(ctx, I, "cliff variant = 8", lab_exec_cliff_run(ctx, LAB_CLIFF_NVARIANTS, 512, 1, &cl));
    CHECK_FAILS(ctx, I, "n = 100 float4", lab_exec_cliff_run(ctx, 0, 100, 1, &cl));
    CHECK_FAILS(ctx, I, "occupancy kernel = 3", lab_exec_occ_info(ctx, LAB_OCC_NKERNELS, &ki));
    CHECK_FAILS(ctx, I, "threads = 0", lab_exec_occ_active(ctx, 0, 0, &i1));
    CHECK_FAILS(ctx, I, "n = 1000", lab_exec_occ_sweep(ctx, 0, 64, 1000, 1, &t));
    CHECK_FAILS(ctx, I, "rung is NULL", lab_exec_gemm_rung(ctx, NULL, 1, 1, 1, 1, &t));
    CHECK_FAILS(ctx, I, "gemm 0 x 1 x 1", lab_exec_gemm_rung(ctx, "naive", 0, 1, 1, 1, &t));
    CHECK_FAILS(ctx, I, "threads = 6", lab_exec_cdp_hello(ctx, 1, 6, 0, counts));
    CHECK_FAILS(ctx, I, "blocks = 9", lab_exec_cdp_hello(ctx, 9, 8, 0, counts));
    CHECK_FAILS(ctx, I, "depth = 31", lab_exec_cdp_depth(ctx, 31, &i1, &i2));
    CHECK_FAILS(ctx, I, "parents = 0", lab_exec_cdp_pending(ctx, 0, 0, 0, &pe));
    CHECK_FAILS(ctx, I, "mandelbrot size 100", lab_exec_mandel(ctx, LAB_MANDEL_FLAT, 100, 10, 1, dw, &ms, NULL));
    CHECK_FAILS(ctx, I, "mandelbrot method = 2", lab_exec_mandel(ctx, 2, 128, 10, 1, dw, &ms, NULL));
    if (t_backend == CUPAT_BACKEND_CPU) {
        const cupat_status NS = CUPAT_ERROR_NOT_SUPPORTED;
        CHECK_FAILS(ctx, NS, "CUDA backend", lab_exec_divergence(ctx, 0, 256, 1, 1, &t));
        CHECK_FAILS(ctx, NS, "CUDA backend", lab_exec_chase(ctx, LAB_LAT_SHARED, 4096, 1, &l));
        CHECK_FAILS(ctx, NS, "CUDA backend", lab_exec_cliff_run(ctx, 0, 512, 1, &cl));
        CHECK_FAILS(ctx, NS, "CUDA backend", lab_exec_sweep_fit(ctx, LAB_SWEEP_MLP, 8, 64, &i1, &i2));
        CHECK_FAILS(ctx, NS, "CUDA backend", lab_exec_cdp_hello(ctx, 1, 8, 0, counts));
        CHECK_FAILS(ctx, NS, "CUDA backend", lab_exec_mandel(ctx, LAB_MANDEL_CDP, 128, 10, 1, dw, &ms, NULL));
    }
}

/* ------------------------------------------------------------------ GPU -- */

static void check_warps(void)
{
    STEP("divergence");
    for (int k = 0; k < LAB_DIV_NKERNELS; k++) {
        lab_exec_timed t;
        CHECK_OK(ctx, lab_exec_divergence(ctx, k, 1u << 16, 16, 1, &t));
        CHECK(t.ok && t.ms > 0, "divergence %s: %s", lab_exec_div_name(k), t.msg);
    }
    STEP("partial warps");
    static const int sizes[] = {1, 31, 32, 33, 65, 1024};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        lab_exec_partial p;
        CHECK_OK(ctx, lab_exec_partial_warps(ctx, sizes[i], 7, 8, 1, &p));
        CHECK(p.ok && p.warps_per_block == (sizes[i] + 31) / 32 && p.resident_blocks >= 1, "partial warps T = %d: %s",
              sizes[i], p.msg);
    }
    STEP("warp map");
    static const int shapes[][3] = {{8, 4, 1}, {16, 8, 1}, {4, 4, 4}, {3, 5, 7}, {1, 1, 1}, {32, 32, 1}};
    static uint32_t lane[1024], leader[1024], active[1024];
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        const int T = shapes[i][0] * shapes[i][1] * shapes[i][2];
        CHECK_OK(ctx, lab_exec_warp_map(ctx, shapes[i][0], shapes[i][1], shapes[i][2], lane, leader, active));
        int bad = 0;
        for (int t = 0; t < T; t++) {
            const int w0 = t - t % 32, a = T - w0 >= 32 ? 32 : T - w0;
            bad += lane[t] != (uint32_t)(t % 32) || leader[t] != (uint32_t)w0 || active[t] != (uint32_t)a;
        }
        CHECK(bad == 0, "warp map %d x %d x %d: %d threads off the row-major rule", shapes[i][0], shapes[i][1],
              shapes[i][2], bad);
    }
    STEP("placement");
    const unsigned blocks = 500; /* several waves on any GPU of today */
    lab_exec_place pl = {0};
    pl.smid = malloc(blocks * sizeof *pl.smid);
    pl.ticket = malloc(blocks * sizeof *pl.ticket);
    char *seen = calloc(blocks, 1);
    if (pl.smid && pl.ticket && seen) {
        CHECK_OK(ctx, lab_exec_placement(ctx, blocks, 128, 2000, &pl));
        int bad = 0;
        for (unsigned b = 0; b < blocks; b++) {
            bad += (int)pl.smid[b] >= pl.nsmid || pl.ticket[b] >= blocks || seen[pl.ticket[b] % blocks];
            seen[pl.ticket[b] % blocks] = 1;
        }
        CHECK(bad == 0 && pl.nsmid >= pl.sm_count, "placement: %d blocks off (nsmid %d, SMs %d)", bad, pl.nsmid,
              pl.sm_count);
    }
    free(pl.smid);
    free(pl.ticket);
    free(seen);
    STEP("barrier");
    for (int th = 32; th <= 1024; th *= 4) {
        lab_exec_barrier b;
        CHECK_OK(ctx, lab_exec_barrier_cost(ctx, th, 1, 10, &b));
        CHECK(b.ok && b.cycles > 0 && b.per_clock > 0, "barrier, %d threads: %s", th, b.msg);
    }
}

static void check_latency(void)
{
    STEP("pointer chase");
    static const struct {
        int where;
        size_t bytes;
    } rows[] = {{LAB_LAT_L1, 4096}, {LAB_LAT_L2, 1 << 20}, {LAB_LAT_DRAM, 64 << 20}, {LAB_LAT_SHARED, 4096},
                {LAB_LAT_CONST, 1024}, {LAB_LAT_SHARED, LAB_LAT_SHARED_MAX}, {LAB_LAT_CONST, LAB_LAT_CONST_MAX}};
    double cyc[LAB_LAT_NWHERE] = {0};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        lab_exec_latency l;
        CHECK_OK(ctx, lab_exec_chase(ctx, rows[i].where, rows[i].bytes, 512, &l));
        CHECK(l.ok && l.cycles > 0, "chase %s, %zu bytes: %s", lab_exec_lat_name(rows[i].where), rows[i].bytes, l.msg);
        if (!cyc[rows[i].where]) cyc[rows[i].where] = l.cycles;
    }
    /* A timing comparison: meaningless under a sanitizer's instrumentation. */
    if (!t_small)
        CHECK(cyc[LAB_LAT_DRAM] > 2 * cyc[LAB_LAT_L1], "DRAM (%.0f cycles) slower than L1 (%.0f)", cyc[LAB_LAT_DRAM],
              cyc[LAB_LAT_L1]);
    STEP("FMA chain");
    lab_exec_latency f;
    CHECK_OK(ctx, lab_exec_fma_latency(ctx, 1031, &f));
    CHECK(f.ok && f.cycles >= 1 && f.cycles < 64, "FMA chain: %.2f cycles: %s", f.cycles, f.msg);
    /* The sweeps: every kernel holds at least 32 warps an SM (what Little's
     * law needs on an H100); a row of more warps than fit is refused. */
    STEP("ilp / mlp sweeps");
    static const int w[] = {1, 5, 16, 48, 64};
    const size_t nw = t_small ? 3 : sizeof w / sizeof w[0]; /* --small: 1, 5, 16 */
    for (int k = 1; k <= 8; k *= 2)
        for (int what = LAB_SWEEP_ILP; what <= LAB_SWEEP_MLP; what++) {
            const char *name = what == LAB_SWEEP_ILP ? "ilp" : "mlp";
            int fit32 = 0, regs = 0;
            CHECK_OK(ctx, lab_exec_sweep_fit(ctx, what, k, 32, &fit32, &regs));
            CHECK(fit32 >= 32 && regs > 0, "%s %d: %d warps fit an SM in blocks of 16 (%d registers)", name, k, fit32,
                  regs);
            for (size_t i = 0; i < nw; i++) {
                int fit = 0;
                CHECK_OK(ctx, lab_exec_sweep_fit(ctx, what, k, w[i], &fit, &regs));
                lab_exec_rate r;
                if (fit < w[i]) {
                    if (what == LAB_SWEEP_ILP)
                        CHECK_FAILS(ctx, CUPAT_ERROR_NOT_SUPPORTED, "fit an SM", lab_exec_ilp(ctx, k, w[i], 67, 1, &r));
                    else
                        CHECK_FAILS(ctx, CUPAT_ERROR_NOT_SUPPORTED, "fit an SM",
                                    lab_exec_mlp(ctx, k, w[i], (1u << 20) + 128, 1, &r));
                    continue;
                }
                if (what == LAB_SWEEP_ILP) {
                    CHECK_OK(ctx, lab_exec_ilp(ctx, k, w[i], 67, 1, &r));
                    CHECK(r.ok && r.gflops > 0 && r.resident_warps >= w[i], "ilp %d, %d warps: %s", k, w[i], r.msg);
                } else {
                    CHECK_OK(ctx, lab_exec_mlp(ctx, k, w[i], (1u << 20) + 128, 1, &r));
                    CHECK(r.ok && r.gbs > 0 && r.resident_warps >= w[i], "mlp %d, %d warps: %s", k, w[i], r.msg);
                }
            }
        }
}

static void check_resources(void)
{
    STEP("register cliff");
    occ_device dev;
    char what[256], why[200];
    const int have_dev = !occ_device_query(cupat_get_device(ctx), &dev, what, sizeof what, why, sizeof why);
    CHECK(have_dev, "device query: %s", why);
    lab_exec_cliff c[LAB_CLIFF_NVARIANTS];
    for (int v = 0; v < LAB_CLIFF_NVARIANTS; v++) {
        CHECK_OK(ctx, lab_exec_cliff_run(ctx, v, 1u << 16, 1, &c[v]));
        CHECK(c[v].ok, "cliff %s: %s", lab_exec_cliff_name(v), c[v].msg);
        occ_kernel k = {LAB_CLIFF_THREADS, c[v].regs, 0};
        occ_result o;
        CHECK(have_dev && !occ_compute(&dev, &k, &o) && o.blocks == c[v].blocks_per_sm,
              "cliff %s: %d registers, runtime %d blocks, calculator %d", lab_exec_cliff_name(v), c[v].regs,
              c[v].blocks_per_sm, have_dev ? o.blocks : -1);
    }
    CHECK(c[LAB_CLIFF_LB_512_2].regs <= 64 && c[LAB_CLIFF_MAXNREG_64].regs <= 64 &&
              c[LAB_CLIFF_MAXRREG_64].regs <= 64 && c[LAB_CLIFF_MAXNREG_65].regs <= 65 &&
              c[LAB_CLIFF_MAXNREG_40].regs <= 40 && c[LAB_CLIFF_MAXNREG_72].regs <= 72,
          "register bounds kept: %d %d %d %d %d %d", c[LAB_CLIFF_LB_512_2].regs, c[LAB_CLIFF_MAXNREG_64].regs,
          c[LAB_CLIFF_MAXRREG_64].regs, c[LAB_CLIFF_MAXNREG_65].regs, c[LAB_CLIFF_MAXNREG_40].regs,
          c[LAB_CLIFF_MAXNREG_72].regs);
    CHECK(c[LAB_CLIFF_MAXNREG_40].local_bytes > 0, "40 registers spill (local %zu bytes)",
          c[LAB_CLIFF_MAXNREG_40].local_bytes);
    if (c[LAB_CLIFF_MAXNREG_65].regs == 65)
        CHECK(c[LAB_CLIFF_MAXNREG_64].blocks_per_sm >= 2 * c[LAB_CLIFF_MAXNREG_65].blocks_per_sm,
              "the cliff: 64 registers %d blocks, 65 registers %d", c[LAB_CLIFF_MAXNREG_64].blocks_per_sm,
              c[LAB_CLIFF_MAXNREG_65].blocks_per_sm);

    STEP("occupancy APIs");
    for (int k = 0; k < LAB_OCC_NKERNELS; k++) {
        lab_exec_kinfo info;
        int grid = 0, block = 0;
        CHECK_OK(ctx, lab_exec_occ_info(ctx, k, &info));
        CHECK_OK(ctx, lab_exec_occ_potential(ctx, k, &grid, &block));
        CHECK(block >= 32 && block <= info.max_threads && grid >= 1, "%s: potential block %d, grid %d", info.name,
              block, grid);
        for (int th = 64; th <= 1024; th *= 2) {
            if (th > info.max_threads) continue;
            int active = -1;
            CHECK_OK(ctx, lab_exec_occ_active(ctx, k, th, &active));
            occ_kernel kk = {th, info.regs, info.static_smem + info.dyn_smem};
            occ_result o;
            CHECK(have_dev && !occ_compute(&dev, &kk, &o) && o.blocks == active,
                  "%s, %d threads: runtime %d blocks, calculator %d", info.name, th, active, have_dev ? o.blocks : -1);
            if (th == 128 || th == 512) {
                lab_exec_timed t;
                CHECK_OK(ctx, lab_exec_occ_sweep(ctx, k, th, 1u << 20, 1, &t));
                CHECK(t.ok, "%s sweep, %d threads: %s", info.name, th, t.msg);
            }
        }
    }
    STEP("gemm rungs");
    static const char *const rungs[] = {"naive", "tiled16", "tiled32", "coarse", "unroll", "prefetch", "auto"};
    for (size_t i = 0; i < sizeof rungs / sizeof rungs[0]; i++) {
        lab_exec_timed t;
        CHECK_OK(ctx, lab_exec_gemm_rung(ctx, rungs[i], 129, 65, 33, 1, &t));
        CHECK(t.ok, "gemm %s: %s", rungs[i], t.msg);
    }
}

static void check_cdp(void)
{
    STEP("cdp: nested hello");
    int got[LAB_CDP_MAX_DEPTH], want[LAB_CDP_MAX_DEPTH];
    static const int hello[][2] = {{1, 8}, {2, 4}, {1, 1}, {8, 64}};
    for (size_t i = 0; i < sizeof hello / sizeof hello[0]; i++) {
        CHECK_OK(ctx, lab_exec_cdp_hello(ctx, hello[i][0], hello[i][1], 0, got));
        lab_exec_cdp_hello_expected(hello[i][0], hello[i][1], want);
        CHECK(!memcmp(got, want, sizeof want), "nested hello <<<%d, %d>>>: depth 0..3 %d %d %d %d", hello[i][0],
              hello[i][1], got[0], got[1], got[2], got[3]);
    }
    /* Pending launches, in the lab's order: the default limit first. Past the
     * limit (CUPAT_TEST_CDP_PAST_LIMIT=1 only, never under --small: memcheck
     * flags the runtime's scratch writes) 24 x 128 children of 20 us against
     * 2048 slots: some launches fail with cudaErrorLaunchPendingCountExceeded,
     * and every launched child runs. Opt-in because on an H200 (CUDA 13.0,
     * driver 580) about 1 run in 5 of this step never returned
     * (docs/robustness.md): the device runtime, not our code, stalls. */
    lab_exec_pending p;
    const char *past = getenv("CUPAT_TEST_CDP_PAST_LIMIT");
    if (!t_small && past && *past && strcmp(past, "0") != 0) {
        STEP("cdp: pending launches past the default limit");
        CHECK_OK(ctx, lab_exec_cdp_pending(ctx, 0, 24, 20000, &p));
        CHECK(p.attempted == 3072 && p.launched + p.failed == p.attempted && p.ran == p.launched && p.failed > 0 &&
                  p.first_err == (int)cudaErrorLaunchPendingCountExceeded && p.limit_read < 3072,
              "3072 launches at the default limit (%zu): %u attempted, %u launched, %u failed (%s), %u ran",
              p.limit_read, p.attempted, p.launched, p.failed, cudaGetErrorName((cudaError_t)p.first_err), p.ran);
    }
    STEP("cdp: pending launches under the default limit");
    CHECK_OK(ctx, lab_exec_cdp_pending(ctx, 0, 4, 0, &p));
    CHECK(p.attempted == 512 && p.launched == 512 && p.ran == 512 && p.failed == 0 && p.limit_read >= 512,
          "512 launches at the default limit (%zu): %u attempted, %u launched, %u ran, %u failed", p.limit_read,
          p.attempted, p.launched, p.ran, p.failed);
    STEP("cdp: pending launches under a limit of 4096");
    CHECK_OK(ctx, lab_exec_cdp_pending(ctx, 4096, 24, 0, &p));
    CHECK(p.attempted == 3072 && p.launched == 3072 && p.ran == 3072 && p.failed == 0 && p.limit_read >= 4096,
          "3072 launches under a limit of 4096: %u attempted, %u launched, %u ran, %u failed (limit read %zu)",
          p.attempted, p.launched, p.ran, p.failed, p.limit_read);

    static const int sizes[][2] = {{256, 128}, {512, 256}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        STEP(i ? "cdp: mandelbrot 512" : "cdp: mandelbrot 256");
        const int S = sizes[i][0];
        lab_exec_mandel_geom g;
        lab_exec_mandel_geometry(S, sizes[i][1], &g);
        int *dev = malloc((size_t)S * S * sizeof *dev), *host = malloc((size_t)S * S * sizeof *host);
        CHECK(dev && host, "host memory");
        for (int m = 0; dev && host && m < 2; m++) {
            double ms = 0;
            unsigned launches = 0;
            CHECK_OK(ctx, lab_exec_mandel(ctx, m, S, sizes[i][1], 1, dev, &ms, &launches));
            lab_exec_mandel_host(m, &g, host);
            int diff = 0, first = -1;
            for (int k = 0; k < S * S; k++)
                if (dev[k] != host[k] && diff++ == 0) first = k;
            CHECK(diff == 0, "mandelbrot %s %d^2: %d pixels differ from the host, first %d (%d vs %d)",
                  m ? "CDP" : "flat", S, diff, first, first >= 0 ? dev[first] : 0, first >= 0 ? host[first] : 0);
            if (m == LAB_MANDEL_CDP)
                CHECK(S / LAB_MS_INIT_SUBDIV / LAB_MS_SUBDIV < LAB_MS_MIN_SIZE || launches > 0,
                      "mandelbrot CDP %d^2 launched no child grid", S);
        }
        free(dev);
        free(host);
    }
    STEP("cdp: nesting depth 5");
    int reached = -1, err = 0;
    CHECK_OK(ctx, lab_exec_cdp_depth(ctx, 5, &reached, &err));
    CHECK(reached == 5 && err == 0, "depth 5: reached %d, error %d", reached, err);
}

/* Instruction throughput: the table, the host model (cpu); every op's sampled warps against the model and no rate above the
 * Guide's (cuda). */
static void check_tp_model(void)
{
    STEP("throughput: model");
    for (int op = 0; op < LAB_TP_NOPS; op++) {
        const lab_exec_tp_op *o = lab_exec_tp_op_info(op);
        CHECK(o && o->name && o->step && o->extra && o->results >= 1, "op %d described", op);
    }
    CHECK(lab_exec_tp_op_info(LAB_TP_NOPS) == NULL && lab_exec_tp_op_info(-1) == NULL, "table ends");
    CHECK(lab_exec_tp_op_info(LAB_TP_FFMA)->guide == 128 && lab_exec_tp_op_info(LAB_TP_DFMA)->guide == 64 &&
              lab_exec_tp_op_info(LAB_TP_HFMA2)->guide == 256 && lab_exec_tp_op_info(LAB_TP_HFMA2)->results == 2 &&
              lab_exec_tp_op_info(LAB_TP_SHFL)->guide == 32,
          "the Guide's cc 9.0 figures");
    uint64_t out[32 * TP_CHAINS];
    /* fp32 fma: four steps of fmaf an iteration */
    lab_exec_tp_host(LAB_TP_FFMA, 1, 1, out);
    float x = tp_init_f32(32 + 3, 5);
    for (int s = 0; s < TP_UNROLL; s++) x = fmaf(x, TP_FMA_A, TP_FMA_B);
    CHECK(out[3 * TP_CHAINS + 5] == fbits(x), "ffma: warp 1 lane 3 chain 5");
    /* the integer ring: chain j takes chain j + 1's old value */
    lab_exec_tp_host(LAB_TP_IADD, 0, 1, out);
    uint32_t r[TP_CHAINS], n[TP_CHAINS];
    for (int j = 0; j < TP_CHAINS; j++) r[j] = tp_init_u32(7, j);
    for (int s = 0; s < TP_UNROLL; s++) {
        for (int j = 0; j < TP_CHAINS; j++) n[j] = r[j] + r[(j + 1) % TP_CHAINS];
        memcpy(r, n, sizeof r);
    }
    int same = 1;
    for (int j = 0; j < TP_CHAINS; j++) same &= out[7 * TP_CHAINS + j] == r[j];
    CHECK(same, "iadd ring: lane 7");
    /* shuffles: one iteration xors the lane with 1, 2, 4, 8 (15); two undo it */
    lab_exec_tp_host(LAB_TP_SHFL, 2, 1, out);
    CHECK(out[0 * TP_CHAINS + 4] == tp_init_u32(64 + 15, 4) && out[20 * TP_CHAINS] == tp_init_u32(64 + (20 ^ 15), 0),
          "shfl: one iteration");
    lab_exec_tp_host(LAB_TP_SHFL, 2, 2, out);
    CHECK(out[9 * TP_CHAINS + 1] == tp_init_u32(64 + 9, 1), "shfl: two iterations");
    /* the contracting maps reach their fixed points: half 0.5, rsqrt 1 */
    lab_exec_tp_host(LAB_TP_HFMA2, 0, 64, out);
    CHECK(out[0] == 0x38003800u, "hfma2 -> 0.5, 0.5: 0x%llx", (unsigned long long)out[0]);
    lab_exec_tp_host(LAB_TP_RSQRT, 0, 64, out);
    CHECK(out[5] == fbits(1.0f), "rsqrt -> 1");
    /* vote: a ballot of bit 0 of every lane, xored with the next chain */
    lab_exec_tp_host(LAB_TP_VOTE, 0, 1, out);
    uint32_t v[32][TP_CHAINS];
    for (int l = 0; l < 32; l++)
        for (int j = 0; j < TP_CHAINS; j++) v[l][j] = tp_init_u32((uint32_t)l, j);
    for (int s = 0; s < TP_UNROLL; s++) {
        uint32_t w[32][TP_CHAINS], bal[TP_CHAINS] = {0};
        for (int l = 0; l < 32; l++)
            for (int j = 0; j < TP_CHAINS; j++) bal[j] |= (v[l][j] & 1u) << l;
        for (int l = 0; l < 32; l++)
            for (int j = 0; j < TP_CHAINS; j++) w[l][j] = bal[j] ^ v[l][(j + 1) % TP_CHAINS];
        memcpy(v, w, sizeof v);
    }
    CHECK(out[31 * TP_CHAINS + 7] == v[31][7] && out[0] == v[0][0], "vote: lanes 0 and 31");
}

static void check_tp_bad(void)
{
    STEP("throughput: bad arguments");
    lab_exec_tp t;
    const cupat_status I = CUPAT_ERROR_INVALID_VALUE;
    CHECK_FAILS(ctx, I, "op = 99", lab_exec_throughput(ctx, 99, 1, 1, &t));
    CHECK_FAILS(ctx, I, "iters = 0", lab_exec_throughput(ctx, LAB_TP_FFMA, 0, 1, &t));
    CHECK_FAILS(ctx, I, "reps = 0", lab_exec_throughput(ctx, LAB_TP_FFMA, 1, 0, &t));
    CHECK_FAILS(ctx, I, "out is NULL", lab_exec_throughput(ctx, LAB_TP_FFMA, 1, 1, NULL));
    if (t_backend == CUPAT_BACKEND_CPU)
        CHECK_FAILS(ctx, CUPAT_ERROR_NOT_SUPPORTED, "CUDA backend", lab_exec_throughput(ctx, LAB_TP_FFMA, 1, 1, &t));
}

static void check_tp_gpu(void)
{
    for (int op = 0; op < LAB_TP_NOPS; op++) {
        const lab_exec_tp_op *o = lab_exec_tp_op_info(op);
        STEP(o->name);
        lab_exec_tp t;
        CHECK_OK(ctx, lab_exec_throughput(ctx, op, t_small ? 8 : 256, t_small ? 1 : 2, &t));
        printf("throughput %-16s %8.1f results/clock/SM (Guide %d), %d blocks/SM\n", o->name, t.per_clk_sm, o->guide,
               t.blocks_per_sm);
        CHECK(t.ok, "%s: %s", o->name, t.msg);
        CHECK(t.blocks_per_sm >= 1, "%s: blocks an SM", o->name);
    }
}

/* The parts (--part NAME runs one); the GPU ones need the CUDA backend. */
static void part_model(void)
{
    check_model();
}
static void part_bad(void)
{
    check_bad();
}
static void part_warps(void)
{
    if (t_backend == CUPAT_BACKEND_CUDA) check_warps();
}
static void part_latency(void)
{
    if (t_backend == CUPAT_BACKEND_CUDA) check_latency();
}
static void part_resources(void)
{
    if (t_backend == CUPAT_BACKEND_CUDA) check_resources();
}
static void part_throughput(void)
{
    check_tp_model();
    check_tp_bad();
    if (t_backend == CUPAT_BACKEND_CUDA) check_tp_gpu();
}
static void part_cdp(void)
{
    if (t_backend != CUPAT_BACKEND_CUDA) return;
    if (no_cdp) printf("cdp: skipped (CUPAT_TEST_NO_CDP)\n");
    else check_cdp();
}

int main(int argc, char **argv)
{
    const char *e = getenv("CUPAT_TEST_NO_CDP");
    no_cdp = e && *e && strcmp(e, "0") != 0;
    ctx = test_init(argc, argv);
    const char *wd = getenv("CUPAT_TEST_WATCHDOG");
    const unsigned secs = wd && *wd ? (unsigned)strtoul(wd, NULL, 10) : t_small ? 0u : 160u;
    if (secs) {
        signal(SIGALRM, on_alarm);
        alarm(secs);
    }
    static const test_part parts[] = {{"model", part_model},         {"bad", part_bad},
                                      {"warps", part_warps},         {"latency", part_latency},
                                      {"resources", part_resources}, {"throughput", part_throughput},
                                      {"cdp", part_cdp}};
    test_run_parts(argc, argv, parts, sizeof parts / sizeof parts[0], NULL);
    alarm(0);
    return test_finish(ctx);
}
