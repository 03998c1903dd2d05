/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_lab_exec.c — `cupat lab exec`: parse, run the execution-model lab's
 * experiments (lab/exec), print each as a table with the figure the notes
 * print beside ours, and (--json FILE) write every row as JSON. Every row is
 * checked against the host model; a wrong row exits 1. Without a GPU: exit
 * 1 with the reason. */
#include "cli.h"
#include "commands.h"
#include "harness.h"

#include "exec/exec.h"
#include "exec/exec_tp.h"
#include "exec/exec_work.h"
#include "exec/occupancy.h"
#include "internal.h"

#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char CMD[] = "cupat lab exec";

enum { E_DIVERGE, E_WARPS, E_PLACE, E_SYNC, E_LATENCY, E_ILP, E_MLP, E_CLIFF, E_OCC, E_GEMM, E_CDP, E_TP, NEXP };
static const char *const exp_names[NEXP] = {"diverge", "warps", "place", "sync", "latency", "ilp",
                                            "mlp",     "cliff", "occupancy", "gemm", "cdp", "throughput"};
static const char *const exp_help[NEXP] = {
    "PCCP's three branch kernels, long branches, 32 paths by warp vs by lane (PCCP 3.2, PMPP 4.5)",
    "partial warps (PCCP 3.2) and how 2D / 3D blocks form warps (PMPP 4.4)",
    "which SM runs which block, and in what order (%smid; PMPP 4.2-4.3)",
    "__syncthreads cost against block size (Guide 8.4.3)",
    "pointer-chase latency of L1, L2, DRAM, shared and constant memory; dependent FMA (PCCP 3.2)",
    "FMA chains a thread x warps an SM against the FP32 ceiling: Little's law (lecture, Guide 8.2.3)",
    "16-byte loads in flight a thread x warps an SM against the read ceiling (PCCP 3.2)",
    "one kernel under __launch_bounds__ / __maxnreg__ / -maxrregcount across 64 -> 65 registers",
    "cudaOccupancyMaxPotentialBlockSize against a block-size sweep; the calculator against the runtime",
    "the gemm ladder's rungs as one table: tile x granularity x unroll x prefetch (lecture)",
    "dynamic parallelism: nested hello, depth and pending-launch limits, Mandelbrot flat vs CDP",
    "native instruction throughput, results a clock an SM, beside the Guide's table (Guide 8.4.1)",
};

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: cupat lab exec [EXPERIMENT...] [options]\n"
            "\n"
            "The execution model measured (issue 15; PCCP 3, PMPP 4-5 and 21, CUDA Guide 8.2-8.4).\n"
            "EXPERIMENT (default all):\n");
    for (int e = 0; e < NEXP; e++) fprintf(f, "  %-10s %s\n", exp_names[e], exp_help[e]);
    fprintf(f,
            "\n"
            "Options:\n"
            "  --reps N     timed launches a row, the median reported (default 5)\n"
            "  --json FILE  also write every row as JSON\n"
            "  --device N   CUDA device (the experiments need the CUDA backend)\n"
            "  --past-limit cdp: also launch past the pending-launch limit (on an H200, CUDA 13.0,\n"
            "               about 1 run in 5 of it never returned: the device runtime stalls)\n"
            "  -h, --help   this text\n"
            "\n"
            "Branch efficiency of the divergence kernels (Nsight Compute):\n"
            "  ncu --metrics smsp__sass_average_branch_targets_threads_uniform.pct,\\\n"
            "      smsp__thread_inst_executed_per_inst_executed.ratio -k regex:k_div cupat lab exec diverge --reps 1\n");
}

/* ---------------------------------------------------------- the run -- */

typedef struct run {
    cupat_ctx *ctx;
    int reps;
    int past_limit; /* cdp: also the pending launches past the limit */
    cli_json J;
    int bad;             /* rows whose check failed */
    occ_device dev;      /* the calculator's view of the device */
    int have_dev;
    char dev_what[256];
    double fma_cycles;   /* measured by latency (or ilp), for Little's law */
    double dram_ns;      /* measured by latency (or mlp) */
    bench_ceilings ceil; /* measured once when ilp or mlp runs */
    int have_ceil;
} run;

static const char *check_word(int ok)
{
    return ok ? "ok" : "FAIL";
}

static int failed(run *R, const char *what)
{
    fprintf(stderr, "%s: %s: %s\n", CMD, what, cupat_last_error(R->ctx));
    return -1;
}

static void row_check(run *R, int ok, const char *msg)
{
    if (!ok) {
        R->bad++;
        printf("    FAIL: %s\n", msg);
    }
    cli_json_str(&R->J, "check", ok ? "ok" : msg);
}

/* ----------------------------------------------------------- diverge -- */

static int exp_diverge(run *R)
{
    const unsigned n = 1u << 22;
    const int iters = 128;
    static const char *const book[LAB_DIV_NKERNELS] = {
        "no divergence (PCCP)", "predicated, 100% branch eff. (PCCP)", "\"will certainly diverge\" (PCCP)", "-",
        "both paths run: ~2x", "-", "up to 32x (PMPP 4.5)"};
    printf("diverge: %u threads (256 a block); long bodies loop %d times; median of %d\n"
           "  (a warp runs one instruction for all its lanes: lanes that disagree on a branch run its\n"
           "  paths one after the other, the others masked off. Short bodies become predicated moves.)\n",
           n, iters, R->reps);
    printf("  %-24s %10s %9s  %-38s %s\n", "kernel", "ms", "x", "notes' figure", "check");
    cli_json_exp(&R->J, "diverge");
    double base = 0;
    for (int k = 0; k < LAB_DIV_NKERNELS; k++) {
        lab_exec_timed t;
        if (lab_exec_divergence(R->ctx, k, n, iters, R->reps, &t)) return failed(R, "diverge");
        if (k == LAB_DIV_WARP || k == LAB_DIV_LONG_WARP || k == LAB_DIV_WAY32_WARP) base = t.ms;
        printf("  %-24s %10.4f %8.2fx  %-38s %s\n", lab_exec_div_name(k), t.ms, base > 0 ? t.ms / base : 0, book[k],
               check_word(t.ok));
        cli_json_row(&R->J);
        cli_json_str(&R->J, "kernel", lab_exec_div_name(k));
        cli_json_str(&R->J, "code", lab_exec_div_code(k));
        cli_json_num(&R->J, "ms", t.ms);
        cli_json_num(&R->J, "vs_warp_granular", base > 0 ? t.ms / base : 0);
        cli_json_str(&R->J, "book", book[k]);
        row_check(R, t.ok, t.msg);
        cli_json_end_row(&R->J);
    }
    cli_json_end_exp(&R->J);
    printf("  (x: time over the warp-granular kernel of the same body. Branch efficiency and predication:\n"
           "  'cupat lab exec --help' gives the ncu command; cuobjdump -sass shows SEL instead of BRA.)\n\n");
    return 0;
}

/* ------------------------------------------------------------- warps -- */

static int print_map(run *R, int bx, int by, int bz, int show)
{
    static uint32_t lane[1024], leader[1024], active[1024];
    if (lab_exec_warp_map(R->ctx, bx, by, bz, lane, leader, active)) return failed(R, "warps");
    const int T = bx * by * bz;
    int ok = 1;
    char msg[160] = "";
    for (int t = 0; t < T && ok; t++) {
        const uint32_t el = (uint32_t)(t % 32), ew = (uint32_t)(t - t % 32);
        const int ea = T - (int)ew >= 32 ? 32 : T - (int)ew;
        if (lane[t] != el || leader[t] != ew || active[t] != (uint32_t)ea) {
            ok = 0;
            snprintf(msg, sizeof msg, "thread %d: lane %u, warp leader %u, %u active; expected %u, %u, %d", t, lane[t],
                     leader[t], active[t], el, ew, ea);
        }
    }
    printf("  block %d x %d x %d: %d warps; thread (x, y, z) has linear index x + %d y + %d z, lane = index %% 32: %s\n",
           bx, by, bz, (T + 31) / 32, bx, bx * by, ok ? "confirmed (%laneid and a shuffle from lane 0)" : "NO");
    if (show && bz == 1) {
        printf("    warp of each thread (rows y, columns x):\n");
        for (int y = 0; y < by; y++) {
            printf("    y=%2d ", y);
            for (int x = 0; x < bx; x++) printf("%2u", leader[y * bx + x] / 32);
            printf("\n");
        }
    }
    cli_json_row(&R->J);
    cli_json_str(&R->J, "table", "warp map");
    cli_json_num(&R->J, "bx", bx);
    cli_json_num(&R->J, "by", by);
    cli_json_num(&R->J, "bz", bz);
    cli_json_num(&R->J, "warps", (T + 31) / 32);
    row_check(R, ok, msg);
    cli_json_end_row(&R->J);
    return 0;
}

static int exp_warps(run *R)
{
    static const int sizes[] = {32, 33, 48, 64, 65, 96, 128, 129, 256, 257};
    const int iters = 256;
    const unsigned blocks = 8u * (unsigned)(R->ctx->sm_count > 0 ? R->ctx->sm_count : 1);
    printf("warps: partial warps: %u blocks of T threads, each thread %d LCG steps; median of %d\n"
           "  (PCCP 3.2: warps a block = ceil(T / 32); a partial last warp still takes a warp's slot and\n"
           "  issue cycles. Each thread also records __activemask(): the lanes its warp really has.)\n",
           blocks, iters, R->reps);
    printf("  %6s %6s %8s %9s %10s %14s  %-22s %s\n", "T", "warps", "lanes", "resident", "ms", "ns/thread", "notes",
           "check");
    cli_json_exp(&R->J, "warps");
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        lab_exec_partial p;
        if (lab_exec_partial_warps(R->ctx, sizes[i], blocks, iters, R->reps, &p)) return failed(R, "warps");
        const double per = p.ms * 1e6 / ((double)blocks * sizes[i]);
        char lanes[16];
        snprintf(lanes, sizeof lanes, "%.1f%%", 100.0 * sizes[i] / (32.0 * p.warps_per_block));
        printf("  %6d %6d %8s %9d %10.4f %14.5f  %-22s %s\n", sizes[i], p.warps_per_block, lanes, p.resident_blocks,
               p.ms, per, "warps = ceil(T/32)", check_word(p.ok));
        cli_json_row(&R->J);
        cli_json_str(&R->J, "table", "partial warps");
        cli_json_num(&R->J, "threads", sizes[i]);
        cli_json_num(&R->J, "warps_per_block", p.warps_per_block);
        cli_json_num(&R->J, "resident_blocks", p.resident_blocks);
        cli_json_num(&R->J, "ms", p.ms);
        cli_json_num(&R->J, "ns_per_thread", per);
        row_check(R, p.ok, p.msg);
        cli_json_end_row(&R->J);
    }
    printf("  (lanes: threads / (32 x warps); resident: blocks an SM holds (runtime). ns/thread grows when\n"
           "  a block adds a warp for one thread: 33 threads cost what 64 do.)\n");
    printf("  warp formation (PMPP 4.4: the notes' 8 x 4 block is warp 0 whole):\n");
    int r = print_map(R, 8, 4, 1, 1);
    if (!r) r = print_map(R, 16, 8, 1, 1);
    if (!r) r = print_map(R, 4, 4, 4, 0);
    if (!r) r = print_map(R, 24, 3, 1, 1);
    cli_json_end_exp(&R->J);
    printf("\n");
    return r;
}

/* ------------------------------------------------------------- place -- */

static int exp_place(run *R)
{
    const int sms = R->ctx->sm_count > 0 ? R->ctx->sm_count : 1;
    const unsigned blocks = 4u * (unsigned)sms;
    lab_exec_place p = {0};
    p.smid = malloc(blocks * sizeof *p.smid);
    p.ticket = malloc(blocks * sizeof *p.ticket);
    int *per = calloc(1024, sizeof *per);
    char *seen = calloc(blocks, 1);
    if (!p.smid || !p.ticket || !per || !seen) {
        fprintf(stderr, "%s: out of host memory\n", CMD);
        free(p.smid), free(p.ticket), free(per), free(seen);
        return -1;
    }
    int r = 0;
    if (lab_exec_placement(R->ctx, blocks, 256, 20000, &p)) r = failed(R, "place");
    if (!r) {
        int ok = p.nsmid > 0 && p.nsmid <= 1024, used = 0, mn = 1 << 30, mx = 0, inorder = 0;
        char msg[160] = "";
        if (!ok) snprintf(msg, sizeof msg, "%%nsmid = %d", p.nsmid);
        for (unsigned b = 0; b < blocks && ok; b++) {
            if ((int)p.smid[b] >= p.nsmid || p.ticket[b] >= blocks || seen[p.ticket[b]]) {
                ok = 0;
                snprintf(msg, sizeof msg, "block %u: smid %u (nsmid %d), start %u", b, p.smid[b], p.nsmid, p.ticket[b]);
                break;
            }
            seen[p.ticket[b]] = 1;
            per[p.smid[b]]++;
            inorder += p.ticket[b] == b;
        }
        for (int s = 0; ok && s < p.nsmid; s++) {
            used += per[s] > 0;
            if (per[s] > 0) mn = per[s] < mn ? per[s] : mn;
            mx = per[s] > mx ? per[s] : mx;
        }
        printf("place: %u blocks of 256 threads, each spinning 20 us; %%smid of each, and the order they started\n"
               "  (PMPP 4.2-4.3: blocks go to SMs in any order, as SMs have room: transparent scalability)\n",
               blocks);
        printf("  SMs used %d of %d (cudaDevAttrMultiProcessorCount %d, %%nsmid %d); blocks an SM: %d to %d\n", used,
               p.sm_count, p.sm_count, p.nsmid, ok ? mn : 0, mx);
        printf("  blocks that started in index order: %d of %u; first 16 blocks -> SM:", inorder, blocks);
        for (unsigned b = 0; b < 16 && b < blocks; b++) printf(" %u", p.smid[b]);
        printf("\n  check: %s\n\n", check_word(ok));
        cli_json_exp(&R->J, "place");
        cli_json_row(&R->J);
        cli_json_num(&R->J, "blocks", blocks);
        cli_json_num(&R->J, "sms_used", used);
        cli_json_num(&R->J, "sm_count", p.sm_count);
        cli_json_num(&R->J, "nsmid", p.nsmid);
        cli_json_num(&R->J, "blocks_per_sm_min", ok ? mn : 0);
        cli_json_num(&R->J, "blocks_per_sm_max", mx);
        cli_json_num(&R->J, "started_in_order", inorder);
        row_check(R, ok, msg);
        cli_json_end_row(&R->J);
        cli_json_end_exp(&R->J);
    }
    free(p.smid), free(p.ticket), free(per), free(seen);
    return r;
}

/* -------------------------------------------------------------- sync -- */

static int exp_sync(run *R)
{
    static const int sizes[] = {32, 64, 128, 256, 512, 1024};
    const int iters = 1000;
    printf("sync: %d x 8 __syncthreads a thread, clock64 in thread 0 of every block; one block an SM, and a\n"
           "  full SM (2048 threads). Arrivals / clock / SM = threads x blocks an SM / cycles a barrier.\n",
           iters);
    printf("  %7s %7s %14s %18s  %-34s %s\n", "threads", "blocks", "cycles/barrier", "arrivals/clk/SM",
           "notes' figure (Guide 8.4.3)", "check");
    cli_json_exp(&R->J, "sync");
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        for (int full = 0; full < 2; full++) {
            const int bps = full ? 2048 / sizes[i] : 1;
            if (full && bps == 1) continue;
            lab_exec_barrier b;
            if (lab_exec_barrier_cost(R->ctx, sizes[i], bps > 32 ? 32 : bps, iters, &b)) return failed(R, "sync");
            printf("  %7d %7d %14.2f %18.2f  %-34s %s\n", sizes[i], b.blocks_per_sm, b.cycles, b.per_clock,
                   "16 / clk / SM (cc 7.x, 8.x)", check_word(b.ok));
            cli_json_row(&R->J);
            cli_json_num(&R->J, "threads", sizes[i]);
            cli_json_num(&R->J, "blocks_per_sm", b.blocks_per_sm);
            cli_json_num(&R->J, "cycles_per_barrier", b.cycles);
            cli_json_num(&R->J, "arrivals_per_clock_per_sm", b.per_clock);
            cli_json_str(&R->J, "book", "16 operations/clock/SM cc 7.x-8.x; 32 cc 6.0; 64 cc 5.x, 6.1, 6.2");
            row_check(R, b.ok, b.msg);
            cli_json_end_row(&R->J);
        }
    }
    cli_json_end_exp(&R->J);
    printf("  (the Guide gives no figure for cc 9.0)\n\n");
    return 0;
}

/* ----------------------------------------------------------- latency -- */

static void latency_row(run *R, const char *what, const char *fp, size_t bytes, int steps, const lab_exec_latency *l,
                        const char *book)
{
    printf("  %-24s %10s %7d %10.1f %8.1f  %-46s %s\n", what, fp, steps, l->cycles, l->ns, book, check_word(l->ok));
    cli_json_row(&R->J);
    cli_json_str(&R->J, "memory", what);
    cli_json_num(&R->J, "bytes", (double)bytes);
    cli_json_num(&R->J, "links", steps);
    cli_json_num(&R->J, "cycles", l->cycles);
    cli_json_num(&R->J, "ns", l->ns);
    cli_json_str(&R->J, "book", book);
    row_check(R, l->ok, l->msg);
    cli_json_end_row(&R->J);
}

static int exp_latency(run *R)
{
    static const struct {
        int where;
        size_t bytes;
        int steps;
        const char *book;
    } rows[] = {
        {LAB_LAT_L1, 16 << 10, 16384, "-"},
        {LAB_LAT_L2, 4 << 20, 8192, "-"},
        {LAB_LAT_DRAM, (size_t)1 << 30, 4096, "400-800 cycles (PCCP 3.2); 200 (lecture, G80)"},
        {LAB_LAT_SHARED, 16 << 10, 16384, "-"},
        {LAB_LAT_CONST, 1 << 10, 16384, "-"},
    };
    printf("latency: one thread follows a random single cycle (Sattolo) through the memory: each load's\n"
           "  address is the previous load's value (global: one link a 128-byte line). cycles: clock64;\n"
           "  ns at the SM's peak clock (cudaDevAttrClockRate); the address arithmetic is included.\n");
    printf("  %-24s %10s %7s %10s %8s  %-46s %s\n", "memory", "footprint", "links", "cycles", "ns", "notes' figure",
           "check");
    cli_json_exp(&R->J, "latency");
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        lab_exec_latency l;
        if (lab_exec_chase(R->ctx, rows[i].where, rows[i].bytes, rows[i].steps, &l)) return failed(R, "latency");
        char fp[32];
        cli_bytes(fp, sizeof fp, (double)rows[i].bytes);
        if (rows[i].where == LAB_LAT_DRAM) R->dram_ns = l.ns;
        latency_row(R, lab_exec_lat_name(rows[i].where), fp, rows[i].bytes, rows[i].steps, &l, rows[i].book);
    }
    lab_exec_latency f;
    if (lab_exec_fma_latency(R->ctx, 65536, &f)) return failed(R, "latency");
    R->fma_cycles = f.cycles;
    latency_row(R, "dependent FMA", "-", 0, 65536, &f, "10-20 (PCCP 3.2); 4 (Guide, cc 7.x; lecture)");
    cli_json_end_exp(&R->J);
    printf("\n");
    return 0;
}

/* --------------------------------------------------------- ilp / mlp -- */

static int need_ceilings(run *R)
{
    if (R->have_ceil) return 0;
    if (bench_ceilings_measure(R->ctx, &R->ceil)) return failed(R, "measuring the ceilings");
    R->have_ceil = 1;
    return 0;
}

static const int sweep_warps[] = {1, 2, 4, 8, 12, 16, 32, 48, 64};
#define NSW (sizeof sweep_warps / sizeof sweep_warps[0])
static const int sweep_k[] = {1, 2, 4, 8};

/* Whether a sweep cell's warps fit an SM (a row that does not is not run:
 * it would take two waves and hold fewer warps than it names); the JSON row
 * of one that does not ("check": "-"); the note under the table. */
typedef struct sweep_fits {
    int fit[NSW][4], regs[4];
} sweep_fits;

static int sweep_fit_all(run *R, int what, sweep_fits *F)
{
    for (size_t w = 0; w < NSW; w++)
        for (int k = 0; k < 4; k++)
            if (lab_exec_sweep_fit(R->ctx, what, sweep_k[k], sweep_warps[w], &F->fit[w][k], &F->regs[k]))
                return failed(R, what == LAB_SWEEP_ILP ? "ilp" : "mlp");
    return 0;
}

static void sweep_skipped_row(run *R, const char *kname, int w, int k, int fit)
{
    cli_json_row(&R->J);
    cli_json_num(&R->J, "warps_per_sm", w);
    cli_json_num(&R->J, kname, k);
    cli_json_num(&R->J, "fit_warps", fit);
    cli_json_str(&R->J, "check", "-");
    cli_json_end_row(&R->J);
}

static void sweep_fit_note(const sweep_fits *F, const char *kname)
{
    for (int k = 0; k < 4; k++) {
        int skipped = 0;
        for (size_t w = 0; w < NSW; w++) skipped |= F->fit[w][k] < sweep_warps[w];
        if (skipped)
            printf("  -: not run (more warps than fit an SM): %s = %d, %d registers a thread, fits %d warps an SM\n",
                   kname, sweep_k[k], F->regs[k], F->fit[NSW - 1][k]);
    }
}

static int exp_ilp(run *R)
{
    if (need_ceilings(R)) return -1;
    if (R->fma_cycles <= 0) {
        lab_exec_latency f;
        if (lab_exec_fma_latency(R->ctx, 65536, &f)) return failed(R, "ilp");
        R->fma_cycles = f.cycles;
    }
    const int iters = 4096;
    printf("ilp: FMA rate (%% of the measured FP32 ceiling, %.0f GFLOP/s) with ILP independent chains a thread\n"
           "  and W warps an SM, %d FMAs a chain. Little's law: an SM issues 4 warp-instructions a clock, an FMA's\n"
           "  result takes L = %.2f cycles (measured), so 4 L / ILP warps keep it busy.\n",
           R->ceil.fp32_gflops, iters, R->fma_cycles);
    printf("  %6s", "W");
    for (int k = 0; k < 4; k++) printf("   ILP %d", sweep_k[k]);
    printf("\n");
    sweep_fits F;
    if (sweep_fit_all(R, LAB_SWEEP_ILP, &F)) return -1;
    cli_json_exp(&R->J, "ilp");
    double knee[4] = {0, 0, 0, 0};
    for (size_t w = 0; w < NSW; w++) {
        printf("  %6d", sweep_warps[w]);
        for (int k = 0; k < 4; k++) {
            lab_exec_rate r;
            if (F.fit[w][k] < sweep_warps[w]) {
                printf(" %7s", "-");
                sweep_skipped_row(R, "ilp", sweep_warps[w], sweep_k[k], F.fit[w][k]);
                continue;
            }
            if (lab_exec_ilp(R->ctx, sweep_k[k], sweep_warps[w], iters, R->reps, &r)) return failed(R, "ilp");
            const double pct = R->ceil.fp32_gflops > 0 ? 100.0 * r.gflops / R->ceil.fp32_gflops : 0;
            if (!knee[k] && pct >= 90.0) knee[k] = sweep_warps[w];
            printf(" %6.1f%%%s", pct, r.ok ? "" : "!");
            cli_json_row(&R->J);
            cli_json_num(&R->J, "warps_per_sm", sweep_warps[w]);
            cli_json_num(&R->J, "ilp", sweep_k[k]);
            cli_json_num(&R->J, "ms", r.ms);
            cli_json_num(&R->J, "gflops", r.gflops);
            cli_json_num(&R->J, "pct_fp32_ceiling", pct);
            if (!r.ok) R->bad++;
            cli_json_str(&R->J, "check", r.ok ? "ok" : r.msg);
            cli_json_end_row(&R->J);
            if (!r.ok) printf("\n    FAIL: %s\n        ", r.msg);
        }
        printf("\n");
    }
    cli_json_end_exp(&R->J);
    printf("  %6s", "90% at");
    for (int k = 0; k < 4; k++) printf(" %7.0f", knee[k]);
    printf("  warps (measured; 0: not reached)\n  %6s", "Little");
    for (int k = 0; k < 4; k++) printf(" %7.1f", lab_exec_little_warps(R->fma_cycles, 4, sweep_k[k]));
    printf("  warps = 4 L / ILP\n");
    sweep_fit_note(&F, "ILP");
    printf("  notes: 200-cycle load, 4-cycle instructions: 13 warps with 4 independent, 7 with 8 (lecture, G80);\n"
           "  16 warps hide a 4-cycle latency on cc 7.x (Guide 8.2.3)\n\n");
    return 0;
}

static int exp_mlp(run *R)
{
    if (need_ceilings(R)) return -1;
    const int sms = R->ctx->sm_count > 0 ? R->ctx->sm_count : 1;
    if (R->dram_ns <= 0) {
        lab_exec_latency l;
        if (lab_exec_chase(R->ctx, LAB_LAT_DRAM, (size_t)1 << 30, 2048, &l)) return failed(R, "mlp");
        R->dram_ns = l.ns;
    }
    const size_t n = (size_t)1 << 26;
    int mem_khz = 0;
    if (cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, cupat_get_device(R->ctx)) != cudaSuccess)
        cudaGetLastError(), mem_khz = 0;
    const double need = lab_exec_little_bytes(R->ceil.read_gbs, R->dram_ns, sms);
    printf("mlp: reading 256 MiB, %% of the measured read ceiling (%.0f GB/s), with U independent 16-byte loads a\n"
           "  thread before any is used and W warps an SM. Little's law: an SM must keep bandwidth x latency / SMs\n"
           "  = %.0f GB/s x %.0f ns / %d = %.0f bytes in flight (the DRAM chase's latency).\n",
           R->ceil.read_gbs, R->ceil.read_gbs, R->dram_ns, sms, need);
    if (mem_khz > 0)
        printf("  bytes a memory clock = %.0f GB/s / %.0f MHz = %.0f (PCCP 3.2's formula; its 2080 Ti: 7000 MHz)\n",
               R->ceil.read_gbs, mem_khz / 1e3, R->ceil.read_gbs * 1e9 / (mem_khz * 1e3));
    printf("  %6s", "W");
    for (int k = 0; k < 4; k++) printf("     U=%d  in flight", sweep_k[k]);
    printf("\n");
    sweep_fits F;
    if (sweep_fit_all(R, LAB_SWEEP_MLP, &F)) return -1;
    cli_json_exp(&R->J, "mlp");
    for (size_t w = 0; w < NSW; w++) {
        printf("  %6d", sweep_warps[w]);
        for (int k = 0; k < 4; k++) {
            lab_exec_rate r;
            if (F.fit[w][k] < sweep_warps[w]) {
                printf("  %7s %8s", "-", "-");
                sweep_skipped_row(R, "unroll", sweep_warps[w], sweep_k[k], F.fit[w][k]);
                continue;
            }
            if (lab_exec_mlp(R->ctx, sweep_k[k], sweep_warps[w], n, R->reps, &r)) return failed(R, "mlp");
            const double pct = R->ceil.read_gbs > 0 ? 100.0 * r.gbs / R->ceil.read_gbs : 0;
            const double inflight = (double)sweep_warps[w] * 32 * sweep_k[k] * 16;
            printf("  %6.1f%%%s %8.0f", pct, r.ok ? "" : "!", inflight);
            cli_json_row(&R->J);
            cli_json_num(&R->J, "warps_per_sm", sweep_warps[w]);
            cli_json_num(&R->J, "unroll", sweep_k[k]);
            cli_json_num(&R->J, "bytes_in_flight_per_sm", inflight);
            cli_json_num(&R->J, "ms", r.ms);
            cli_json_num(&R->J, "gbs", r.gbs);
            cli_json_num(&R->J, "pct_read_ceiling", pct);
            if (!r.ok) R->bad++;
            cli_json_str(&R->J, "check", r.ok ? "ok" : r.msg);
            cli_json_end_row(&R->J);
            if (!r.ok) printf("\n    FAIL: %s\n        ", r.msg);
        }
        printf("\n");
    }
    cli_json_end_exp(&R->J);
    sweep_fit_note(&F, "U");
    printf("  (in flight: W x 32 x U x 16 bytes an SM; the rate should level off near %.0f)\n\n", need);
    return 0;
}

/* ------------------------------------------------------------- cliff -- */

static int exp_cliff(run *R)
{
    const size_t n = (size_t)1 << 24;
    printf("cliff: one kernel (56 accumulators a thread fed from 256 MiB of float4), 512 threads a block,\n"
           "  one full wave; registers and spills from cudaFuncGetAttributes, blocks an SM from the runtime\n"
           "  and from the calculator (cupat occupancy).\n");
    printf("  %-26s %5s %7s %7s %6s %7s %9s %8s  %s\n", "bound", "regs", "local B", "blk/SM", "calc", "occup.", "ms",
           "GB/s", "check");
    cli_json_exp(&R->J, "cliff");
    for (int v = 0; v < LAB_CLIFF_NVARIANTS; v++) {
        lab_exec_cliff c;
        if (lab_exec_cliff_run(R->ctx, v, n, R->reps, &c)) return failed(R, "cliff");
        int calc = -1;
        if (R->have_dev) {
            occ_kernel k = {LAB_CLIFF_THREADS, c.regs, 0};
            occ_result o;
            if (!occ_compute(&R->dev, &k, &o)) calc = o.blocks;
        }
        int ok = c.ok;
        char msg[200];
        snprintf(msg, sizeof msg, "%s", c.msg);
        if (ok && calc >= 0 && calc != c.blocks_per_sm) {
            ok = 0;
            snprintf(msg, sizeof msg, "the calculator says %d blocks, the runtime %d", calc, c.blocks_per_sm);
        }
        printf("  %-26s %5d %7zu %7d %6d %6.0f%% %9.4f %8.0f  %s\n", lab_exec_cliff_name(v), c.regs, c.local_bytes,
               c.blocks_per_sm, calc, 100 * c.occupancy, c.ms, c.gbs, check_word(ok));
        cli_json_row(&R->J);
        cli_json_str(&R->J, "bound", lab_exec_cliff_name(v));
        cli_json_num(&R->J, "regs", c.regs);
        cli_json_num(&R->J, "local_bytes", (double)c.local_bytes);
        cli_json_num(&R->J, "blocks_per_sm", c.blocks_per_sm);
        cli_json_num(&R->J, "calculator_blocks", calc);
        cli_json_num(&R->J, "occupancy", c.occupancy);
        cli_json_num(&R->J, "ms", c.ms);
        cli_json_num(&R->J, "gbs", c.gbs);
        row_check(R, ok, msg);
        cli_json_end_row(&R->J);
    }
    cli_json_end_exp(&R->J);
    printf("  notes: cc 6.x, 512 threads: 64 registers -> 2 blocks (32 warps), 65 -> 1 block (16 warps) (Guide\n"
           "  8.2.3); G80, 16x16 blocks: 10 registers -> 3 blocks, 11 -> 2 (lecture); ptxas -v samples: 56 regs;\n"
           "  47 regs + 60 B lmem (PCCP 4.1). 65 registers are allocated as 72 (units of 256 a warp).\n\n");
    return 0;
}

/* -------------------------------------------------------- throughput -- */

static int exp_tp(run *R)
{
    const int iters = 2048;
    printf("throughput: one instruction on every SM, %d independent chains a thread, 256-thread blocks, as many\n"
           "  as fit an SM; results a clock an SM = an SM's results / its busy cycles (clock64), the median SM.\n"
           "  Guide: the CUDA Guide 8.4.1 table for cc 9.0 ('-': not read here). Integer steps take the next\n"
           "  chain's value as the second operand, so no two steps fuse. Check the SASS with cuobjdump -sass.\n",
           TP_CHAINS);
    printf("  %-16s %-44s %8s %7s %7s %8s  %s\n", "op", "step", "res/clk", "Guide", "ratio", "ms", "check");
    cli_json_exp(&R->J, "throughput");
    for (int op = 0; op < LAB_TP_NOPS; op++) {
        const lab_exec_tp_op *o = lab_exec_tp_op_info(op);
        lab_exec_tp t;
        if (lab_exec_throughput(R->ctx, op, iters, R->reps, &t)) return failed(R, "throughput");
        char guide[16] = "-", ratio[16] = "-";
        if (o->guide) {
            snprintf(guide, sizeof guide, "%d", o->guide);
            snprintf(ratio, sizeof ratio, "%.2f", t.per_clk_sm / o->guide);
        }
        printf("  %-16s %-44s %8.1f %7s %7s %8.4f  %s%s%s\n", o->name, o->step, t.per_clk_sm, guide, ratio, t.ms,
               check_word(t.ok), o->extra[0] ? "  " : "", o->extra);
        cli_json_row(&R->J);
        cli_json_str(&R->J, "op", o->name);
        cli_json_str(&R->J, "step", o->step);
        cli_json_num(&R->J, "results_per_clock_sm", t.per_clk_sm);
        cli_json_num(&R->J, "guide_cc90", o->guide ? o->guide : NAN);
        cli_json_num(&R->J, "ms", t.ms);
        cli_json_num(&R->J, "blocks_per_sm", t.blocks_per_sm);
        cli_json_str(&R->J, "extra", o->extra);
        row_check(R, t.ok, t.msg);
        cli_json_end_row(&R->J);
    }
    cli_json_end_exp(&R->J);
    printf("\n");
    return 0;
}

/* --------------------------------------------------------- occupancy -- */

static int exp_occ(run *R)
{
    static const int sizes[] = {32, 64, 128, 192, 256, 384, 512, 640, 768, 896, 1024};
    const size_t n = (size_t)1 << 24;
    printf("occupancy: cudaOccupancyMaxPotentialBlockSize (the block size that maximizes occupancy) against a\n"
           "  block-size sweep over 2^24 floats (as many blocks as are resident), and the calculator's\n"
           "  blocks an SM against cudaOccupancyMaxActiveBlocksPerMultiprocessor (PMPP 5.6, Guide 8.2.3.1).\n");
    cli_json_exp(&R->J, "occupancy");
    for (int k = 0; k < LAB_OCC_NKERNELS; k++) {
        lab_exec_kinfo info;
        int grid = 0, block = 0;
        if (lab_exec_occ_info(R->ctx, k, &info) || lab_exec_occ_potential(R->ctx, k, &grid, &block))
            return failed(R, "occupancy");
        printf("  %s: %d registers, %zu B shared + %zu dynamic; potential block size %d (min grid %d)\n", info.name,
               info.regs, info.static_smem, info.dyn_smem, block, grid);
        printf("    %7s %7s %6s %7s %9s  %s\n", "threads", "blk/SM", "calc", "occup.", "ms", "check");
        double best = 0;
        int best_t = 0;
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            if (sizes[i] > info.max_threads) continue;
            int active = 0, calc = -1;
            lab_exec_timed t;
            if (lab_exec_occ_active(R->ctx, k, sizes[i], &active) ||
                lab_exec_occ_sweep(R->ctx, k, sizes[i], n, R->reps, &t))
                return failed(R, "occupancy");
            if (R->have_dev) {
                occ_kernel kk = {sizes[i], info.regs, info.static_smem + info.dyn_smem};
                occ_result o;
                if (!occ_compute(&R->dev, &kk, &o)) calc = o.blocks;
            }
            int ok = t.ok;
            char msg[200];
            snprintf(msg, sizeof msg, "%s", t.msg);
            if (ok && calc >= 0 && calc != active) {
                ok = 0;
                snprintf(msg, sizeof msg, "the calculator says %d blocks, the runtime %d", calc, active);
            }
            const double occ = R->ctx->max_threads_per_sm > 0 ? (double)active * sizes[i] / R->ctx->max_threads_per_sm : 0;
            if (!best || t.ms < best) best = t.ms, best_t = sizes[i];
            printf("    %7d %7d %6d %6.0f%% %9.4f  %s%s\n", sizes[i], active, calc, 100 * occ, t.ms, check_word(ok),
                   sizes[i] == block ? "  <- potential block size" : "");
            cli_json_row(&R->J);
            cli_json_str(&R->J, "kernel", info.name);
            cli_json_num(&R->J, "threads", sizes[i]);
            cli_json_num(&R->J, "blocks_per_sm", active);
            cli_json_num(&R->J, "calculator_blocks", calc);
            cli_json_num(&R->J, "occupancy", occ);
            cli_json_num(&R->J, "ms", t.ms);
            cli_json_num(&R->J, "potential_block", block);
            cli_json_num(&R->J, "potential_min_grid", grid);
            row_check(R, ok, msg);
            cli_json_end_row(&R->J);
        }
        printf("    fastest: %d threads (%.4f ms); the API suggests %d\n", best_t, best, block);
    }
    cli_json_end_exp(&R->J);
    printf("  (PCCP 3.3: higher occupancy is not always faster; the achieved occupancy of the matadd sweep:\n"
           "  ncu --metrics sm__warps_active.avg.pct_of_peak_sustained_active cupat bench matadd --sweep-blocks)\n\n");
    return 0;
}

/* -------------------------------------------------------------- gemm -- */

static int exp_gemm(run *R)
{
    static const struct {
        const char *rung, *tile, *gran, *unroll, *prefetch;
    } rungs[] = {
        {"naive", "-", "1", "no", "no"},         {"tiled16", "16x16", "1", "no", "no"},
        {"tiled32", "32x32", "1", "no", "no"},   {"coarse", "32x32", "4", "no", "no"},
        {"unroll", "32x32", "4", "yes", "no"},   {"prefetch", "32x32", "4", "yes", "yes"},
        {"regblock", "128x128", "64", "yes", "no"}, {"vec4", "128x128", "64", "yes", "no"},
        {"warptile", "128x128", "64", "yes", "2 stages"}, {"async", "config", "-", "yes", "4 stages"},
        {"auto", "by shape", "-", "yes", "yes"},
    };
    const size_t N = 2048;
    printf("gemm: the f32 ladder's rungs at %zu^3 as one table of the lecture's factors (\"Putting It All\n"
           "  Together\": tile size x granularity x unroll x prefetch); granularity = outputs a thread.\n", N);
    printf("  %-9s %-8s %5s %6s %-9s %9s %9s %7s  %s\n", "rung", "tile", "gran.", "unroll", "prefetch", "ms",
           "GFLOP/s", "x prev", "check");
    cli_json_exp(&R->J, "gemm");
    double prev = 0;
    for (size_t i = 0; i < sizeof rungs / sizeof rungs[0]; i++) {
        lab_exec_timed t;
        if (lab_exec_gemm_rung(R->ctx, rungs[i].rung, N, N, N, R->reps, &t)) return failed(R, "gemm");
        const double gf = t.ms > 0 ? 2.0 * N * N * N / (t.ms * 1e6) : 0;
        printf("  %-9s %-8s %5s %6s %-9s %9.3f %9.0f %6.2fx  %s\n", rungs[i].rung, rungs[i].tile, rungs[i].gran,
               rungs[i].unroll, rungs[i].prefetch, t.ms, gf, prev > 0 ? prev / t.ms : 0, check_word(t.ok));
        prev = t.ms;
        cli_json_row(&R->J);
        cli_json_str(&R->J, "rung", rungs[i].rung);
        cli_json_str(&R->J, "tile", rungs[i].tile);
        cli_json_str(&R->J, "granularity", rungs[i].gran);
        cli_json_str(&R->J, "unroll", rungs[i].unroll);
        cli_json_str(&R->J, "prefetch", rungs[i].prefetch);
        cli_json_num(&R->J, "ms", t.ms);
        cli_json_num(&R->J, "gflops", gf);
        row_check(R, t.ok, t.msg);
        cli_json_end_row(&R->J);
    }
    cli_json_end_exp(&R->J);
    printf("  notes (lecture, charts only): below 16x16 tiles neither unroll nor prefetch helps; coarser\n"
           "  granularity cuts global traffic; prefetch helps less as granularity grows.\n\n");
    return 0;
}

/* --------------------------------------------------------------- cdp -- */

static int exp_cdp(run *R)
{
    int counts[LAB_CDP_MAX_DEPTH], want[LAB_CDP_MAX_DEPTH];
    printf("cdp: dynamic parallelism (PCCP 3.6; CDP2: children go to the fire-and-forget stream)\n"
           "  nestedHelloWorld<<<1, 8>>> with device printf, as the book runs it:\n");
    fflush(stdout);
    if (lab_exec_cdp_hello(R->ctx, 1, 8, 1, counts)) return failed(R, "cdp hello");
    fflush(stdout);
    cli_json_exp(&R->J, "cdp");
    for (int b = 1; b <= 2; b++) {
        if (b == 2 && lab_exec_cdp_hello(R->ctx, 2, 8, 0, counts)) return failed(R, "cdp hello");
        lab_exec_cdp_hello_expected(b, 8, want);
        int ok = !memcmp(counts, want, sizeof want);
        printf("  nested hello <<<%d, 8>>>: threads a depth:", b);
        for (int d = 0; d < LAB_CDP_MAX_DEPTH && (counts[d] || want[d]); d++) printf(" %d", counts[d]);
        printf(" (expected");
        for (int d = 0; d < LAB_CDP_MAX_DEPTH && want[d]; d++) printf(" %d", want[d]);
        printf(")  %s\n", check_word(ok));
        cli_json_row(&R->J);
        cli_json_str(&R->J, "table", "nested hello");
        cli_json_num(&R->J, "blocks", b);
        cli_json_num(&R->J, "depths", 4);
        row_check(R, ok, "threads a depth differ from the book's halving");
        cli_json_end_row(&R->J);
    }
    /* Past the limit is opt-in (--past-limit): on an H200 (CUDA 13.0, driver
     * 580) about 1 run in 5 of it never returned from the device runtime. */
    static const struct {
        size_t limit;
        unsigned parents;
        int past;
    } rows[] = {{0, 8, 0}, {0, 64, 1}, {4096, 64, 1}, {16384, 64, 0}};
    printf("  pending launches: P x 128 threads each launch one child that spins 20 us\n");
    printf("    %-22s %8s %9s %8s %7s  %s\n", "limit set / read", "launches", "launched", "failed", "ran",
           "first error");
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        if (rows[i].past && !R->past_limit) continue;
        lab_exec_pending p;
        if (lab_exec_cdp_pending(R->ctx, rows[i].limit, rows[i].parents, 20000, &p)) return failed(R, "cdp pending");
        char lim[48];
        if (rows[i].limit) snprintf(lim, sizeof lim, "%zu / %zu", rows[i].limit, p.limit_read);
        else snprintf(lim, sizeof lim, "default / %zu", p.limit_read);
        const int ok = p.attempted == rows[i].parents * 128u && p.launched + p.failed == p.attempted &&
                       p.ran == p.launched && (rows[i].past || p.failed == 0);
        printf("    %-22s %8u %9u %8u %7u  %s  %s\n", lim, p.attempted, p.launched, p.failed, p.ran,
               p.first_err ? cudaGetErrorName((cudaError_t)p.first_err) : "-", check_word(ok));
        cli_json_row(&R->J);
        cli_json_str(&R->J, "table", "pending launches");
        cli_json_num(&R->J, "limit_set", (double)rows[i].limit);
        cli_json_num(&R->J, "limit_read", (double)p.limit_read);
        cli_json_num(&R->J, "attempted", p.attempted);
        cli_json_num(&R->J, "launched", p.launched);
        cli_json_num(&R->J, "failed", p.failed);
        cli_json_num(&R->J, "ran", p.ran);
        cli_json_str(&R->J, "first_error", p.first_err ? cudaGetErrorName((cudaError_t)p.first_err) : "");
        row_check(R, ok, "launched + failed != attempted, a launched child did not run, or one under the limit failed");
        cli_json_end_row(&R->J);
    }
    printf("    (Guide: cudaLimitDevRuntimePendingLaunchCount defaults to 2048. Past the limit a launch fails\n"
           "    with cudaErrorLaunchPendingCountExceeded, after writing its parameters to one scratch buffer\n"
           "    all failing launches share (compute-sanitizer memcheck reports those writes). %s)\n\n",
           R->past_limit ? "On an H200, CUDA 13.0, about 1 run in 5 past the limit never returned"
                         : "Those rows run with --past-limit: on an H200, CUDA 13.0, about 1 run in 5 of them\n"
                           "    never returned");

    /* Mandelbrot: flat vs Mariani-Silver */
    const int size = 2048, dwell = 512;
    const size_t px = (size_t)size * size;
    int *flat = malloc(px * sizeof *flat), *cdp = malloc(px * sizeof *cdp), *host = malloc(px * sizeof *host);
    if (!flat || !cdp || !host) {
        free(flat), free(cdp), free(host);
        fprintf(stderr, "%s: out of host memory\n", CMD);
        return -1;
    }
    double ms_flat = 0, ms_cdp = 0;
    unsigned launches = 0;
    int r = 0;
    if (lab_exec_mandel(R->ctx, LAB_MANDEL_FLAT, size, dwell, R->reps, flat, &ms_flat, NULL) ||
        lab_exec_mandel(R->ctx, LAB_MANDEL_CDP, size, dwell, R->reps, cdp, &ms_cdp, &launches))
        r = failed(R, "cdp mandelbrot");
    if (!r) {
        lab_exec_mandel_geom g;
        lab_exec_mandel_geometry(size, dwell, &g);
        lab_exec_mandel_host(LAB_MANDEL_CDP, &g, host);
        size_t diff_host = 0, diff_flat = 0, first = px;
        for (size_t i = 0; i < px; i++) {
            if (cdp[i] != host[i] && !diff_host++) first = i;
            diff_flat += cdp[i] != flat[i];
        }
        /* the flat image on the host, on a sample of rows */
        size_t flat_bad = 0;
        for (int y = 0; y < size; y += 61)
            for (int x = 0; x < size; x++)
                flat_bad += flat[(size_t)y * size + x] != exec_dwell(x, y, g.x0, g.y0, g.dx, g.dy, g.max_dwell);
        const int ok = !diff_host && !flat_bad;
        printf("  Mandelbrot %dx%d, max dwell %d, [-1.5, 0.5] x [-1, 1]: Mariani-Silver by CDP (%dx%d squares,\n"
               "  %dx%d children, down to %d pixels) against one thread a pixel\n",
               size, size, dwell, LAB_MS_INIT_SUBDIV, LAB_MS_INIT_SUBDIV, LAB_MS_SUBDIV, LAB_MS_SUBDIV, LAB_MS_MIN_SIZE);
        printf("    flat %.3f ms, CDP %.3f ms (%u child grids): %.2fx; CDP = host Mariani-Silver: %s; CDP vs flat:\n"
               "    %zu pixels differ (%s); flat = host on sampled rows: %s\n",
               ms_flat, ms_cdp, launches, ms_cdp > 0 ? ms_flat / ms_cdp : 0, diff_host ? "NO" : "yes", diff_flat,
               diff_flat ? "the border test missed detail inside a square" : "the same image",
               flat_bad ? "NO" : "yes");
        if (diff_host) printf("    first difference at pixel %zu: %d, host %d\n", first, cdp[first], host[first]);
        cli_json_row(&R->J);
        cli_json_str(&R->J, "table", "mandelbrot");
        cli_json_num(&R->J, "size", size);
        cli_json_num(&R->J, "max_dwell", dwell);
        cli_json_num(&R->J, "ms_flat", ms_flat);
        cli_json_num(&R->J, "ms_cdp", ms_cdp);
        cli_json_num(&R->J, "child_grids", launches);
        cli_json_num(&R->J, "pixels_cdp_vs_flat", (double)diff_flat);
        row_check(R, ok, "the CDP image differs from the host's Mariani-Silver, or flat from the host");
        cli_json_end_row(&R->J);
    }
    free(flat), free(cdp), free(host);
    if (r) return r;

    /* nesting depth last: a launch past the limit may leave an error behind */
    int reached = -1, err = 0;
    if (lab_exec_cdp_depth(R->ctx, 26, &reached, &err)) return failed(R, "cdp depth");
    printf("  nesting depth: a chain of one-thread children, 26 levels tried: deepest level that ran %d; %s\n"
           "    (PCCP 3.6: at most 24 levels; the device runtime's memory usually binds first)\n\n",
           reached, err ? cudaGetErrorName((cudaError_t)err) : "every launch succeeded");
    cli_json_row(&R->J);
    cli_json_str(&R->J, "table", "nesting depth");
    cli_json_num(&R->J, "tried", 26);
    cli_json_num(&R->J, "reached", reached);
    cli_json_str(&R->J, "error", err ? cudaGetErrorName((cudaError_t)err) : "");
    cli_json_str(&R->J, "book", "24 levels (PCCP 3.6)");
    row_check(R, reached >= 1, "no child ran");
    cli_json_end_row(&R->J);
    cli_json_end_exp(&R->J);
    return 0;
}

/* ------------------------------------------------------------ command -- */

int cmd_lab_exec(int argc, char **argv)
{
    int want[NEXP] = {0};
    long device = -1, reps = 5;
    int past_limit = 0;
    const char *json_path = NULL;
    for (int i = 1; i < argc; i++) {
        int r;
        if (cli_is_help(argv[i])) {
            usage(stdout);
            return 0;
        }
        if ((r = cli_lab_opt(argc, argv, &i, CMD, &device, &reps, &json_path)) != 0) {
            if (r < 0) return 2;
            continue;
        }
        if (!strcmp(argv[i], "--past-limit")) {
            past_limit = 1;
            continue;
        }
        if (argv[i][0] == '-') return cli_unknown(CMD, argv[i]);
        if (cli_pick(CMD, argv[i], exp_names, NEXP, want)) return 2;
    }
    cli_pick_all(want, NEXP);
    const char *why = cli_no_cuda_reason();
    if (why) {
        fprintf(stderr, "%s: the execution-model experiments need a GPU: %s\n", CMD, why);
        return 1;
    }
    run R;
    memset(&R, 0, sizeof R);
    R.reps = (int)reps;
    R.past_limit = past_limit;
    if (!(R.ctx = cli_context(CUPAT_BACKEND_CUDA, (int)device))) return 1;
    char why_dev[200];
    R.have_dev = !occ_device_query(cupat_get_device(R.ctx), &R.dev, R.dev_what, sizeof R.dev_what, why_dev,
                                   sizeof why_dev);
    char dev[320] = "", date[32] = "", commit[64] = "";
    bench_describe(R.ctx, dev, sizeof dev, date, sizeof date, commit, sizeof commit);
    printf("device: %s\ndate:   %s\ncommit: %s\n\n", dev, date, commit);
    if (cli_json_open(&R.J, CMD, json_path, "exec", dev, date, commit, R.reps)) {
        cupat_destroy(R.ctx);
        return 1;
    }
    static int (*const fns[NEXP])(run *) = {exp_diverge, exp_warps, exp_place, exp_sync, exp_latency, exp_ilp,
                                            exp_mlp,     exp_cliff, exp_occ,   exp_gemm, exp_cdp, exp_tp};
    int r = 0;
    for (int e = 0; e < NEXP && r >= 0; e++)
        if (want[e]) r = fns[e](&R);
    if (cli_json_close(&R.J, CMD, json_path)) r = -1;
    if (r >= 0) printf("%s\n", R.bad ? "exec lab: WRONG results in some rows" : "exec lab: every check OK");
    cupat_destroy(R.ctx);
    return r < 0 || R.bad ? 1 : 0;
}
