/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_lab_multi.c — `cupat lab multi`: the multi-GPU lab (lab/multi), run
 * under mpirun with one rank a GPU: `mpirun -np 2 cupat lab multi`. Parses
 * (before MPI starts, so --help and bad arguments need no MPI), starts MPI,
 * gives each rank a context on device rank % device count, runs the rows,
 * and prints on rank 0 each table as Markdown (paste into docs/dist.md) and,
 * with --json FILE, every row as JSON. The cost model's inputs are printed
 * beside its PREDICTIONS. Exit 1 when a check fails (all-reduce sums, the
 * stencil's slabs, the sort), 2 on bad arguments. Built without MPI (no
 * libcupat_dist): says so and exits 1. */
#include "cli.h"
#include "commands.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char CMD[] = "cupat lab multi";

enum { EXP_LINK, EXP_ALLREDUCE, EXP_STENCIL, EXP_SORT, EXP_MODEL, NEXP };
static const char *const exp_names[NEXP] = {"link", "allreduce", "stencil", "sort", "model"};
static const char *const exp_help[NEXP] = {
    "cudaMemcpyPeerAsync GPU0 -> GPU1, GPU1 -> GPU0, both at once: GB/s 1 MiB .. 1 GiB, latency 4 B .. 64 KiB",
    "cupat_allreduce_dist vs ncclAllReduce, 4 KiB .. 1 GiB f32: algbw, busbw, ratio; cupat_reduce_dist",
    "cupat_stencil3d_dist 7-point heat: weak (512^3 a GPU) and strong (512 x 512 x 1024) scaling",
    "cupat_sort of 2^30 u32 keys on one GPU vs cupat_sort_dist over every rank, checked",
    "PREDICTIONS for 8 and 64 GPUs from the figures above (lab/multi/multi_model.h)",
};

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: mpirun -np P cupat lab multi [EXPERIMENT...] [options]\n"
            "\n"
            "The multi-GPU lab (PMPP ch. 20, docs/dist.md): one MPI rank a GPU (device rank %%\n"
            "device count), the communicator of cupat_dist.h. EXPERIMENT (default all):\n");
    for (int e = 0; e < NEXP; e++) fprintf(f, "  %-10s %s\n", exp_names[e], exp_help[e]);
    fprintf(f,
            "\n"
            "Options:\n"
            "  --quick            smaller sizes, 5 stencil steps, 3 reps\n"
            "  --backend B        auto (default), cuda or cpu: the CPU path runs every row but\n"
            "                     the link with tiny sizes through the \"mpi\" transport\n"
            "  --transport T      nccl, mpi-staged or mpi (default: the library's; CUPAT_DIST_TRANSPORT)\n"
            "  --steps K          stencil steps a call (default 50, --quick 5; CPU backend 10, 3)\n"
            "  --reps N           timed calls a measurement, the median (default 5)\n"
            "  --json FILE        also write every row as JSON (rank 0)\n"
            "  --gpus-per-node G  the model's GPUs on one switch (default 8)\n"
            "  --net-gbs X        the model's ASSUMED network bandwidth a GPU, GB/s one way\n"
            "                     (default 50: a 400 Gb/s NIC a GPU)\n"
            "  --net-us X         the model's ASSUMED network latency, us (default 5)\n"
            "  -h, --help         this text\n"
            "\n"
            "Every rank must make every call; only rank 0 prints. Exit 1 when a check fails.\n");
}

#ifndef CUPAT_HAVE_MPI

int cmd_lab_multi(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (cli_is_help(argv[i])) {
            usage(stdout);
            return 0;
        }
    fprintf(stderr, "%s: this cupat was built without MPI (CMake found none; Debian: libopenmpi-dev), so it has "
                    "no libcupat_dist and no multi-GPU lab\n",
            CMD);
    return 1;
}

#else /* CUPAT_HAVE_MPI */

#include "harness.h"
#include "multi/multi.h"
#include "multi/multi_model.h"

#include <cuda_runtime_api.h>
#include <math.h>

typedef struct opts {
    int want[NEXP];
    int quick, reps, steps;
    cupat_backend backend;
    const char *transport, *json;
    long gpus_per_node;
    double net_gbs, net_us;
} opts;

static int parse_double(const char *opt, const char *v, double lo, double hi, double *out)
{
    char *end = NULL;
    const double x = strtod(v, &end);
    if (!*v || *end || !(x >= lo && x <= hi)) {
        fprintf(stderr, "%s: %s '%s' is not a number in [%g, %g]\n", CMD, opt, v, lo, hi);
        return 2;
    }
    *out = x;
    return 0;
}

static int parse(int argc, char **argv, opts *o)
{
    long reps = -1, steps = -1;
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        int r;
        if (cli_is_help(argv[i])) {
            usage(stdout);
            return -1;
        }
        if ((r = cli_lab_opt(argc, argv, &i, CMD, NULL, &reps, &o->json)) != 0) {
            if (r < 0) return 2;
            continue;
        }
        if ((r = cli_opt(argc, argv, &i, "--backend", &v, CMD)) != 0) {
            if (r < 0 || cli_parse_backend(v, &o->backend)) return 2;
            continue;
        }
        if ((r = cli_opt(argc, argv, &i, "--transport", &v, CMD)) != 0) {
            if (r < 0) return 2;
            if (strcmp(v, "nccl") && strcmp(v, "mpi-staged") && strcmp(v, "mpi")) {
                fprintf(stderr, "%s: --transport '%s' is not one of nccl, mpi-staged, mpi\n", CMD, v);
                return 2;
            }
            o->transport = v;
            continue;
        }
        if ((r = cli_opt(argc, argv, &i, "--steps", &v, CMD)) != 0) {
            if (r < 0 || cli_parse_int(CMD, "--steps", v, 1, 100000, &steps)) return 2;
            continue;
        }
        if ((r = cli_opt(argc, argv, &i, "--gpus-per-node", &v, CMD)) != 0) {
            if (r < 0 || cli_parse_int(CMD, "--gpus-per-node", v, 1, 1024, &o->gpus_per_node)) return 2;
            continue;
        }
        if ((r = cli_opt(argc, argv, &i, "--net-gbs", &v, CMD)) != 0) {
            if (r < 0 || parse_double("--net-gbs", v, 1e-3, 1e6, &o->net_gbs)) return 2;
            continue;
        }
        if ((r = cli_opt(argc, argv, &i, "--net-us", &v, CMD)) != 0) {
            if (r < 0 || parse_double("--net-us", v, 0, 1e6, &o->net_us)) return 2;
            continue;
        }
        if (!strcmp(argv[i], "--quick")) {
            o->quick = 1;
            continue;
        }
        if (argv[i][0] == '-') return cli_unknown(CMD, argv[i]);
        if (cli_pick(CMD, argv[i], exp_names, NEXP, o->want)) return 2;
    }
    cli_pick_all(o->want, NEXP);
    o->reps = reps > 0 ? (int)reps : o->quick ? 3 : 5;
    o->steps = (int)steps; /* < 0: the backend's default, below */
    return 0;
}

/* ------------------------------------------------------------ printing -- */

static double gbs(double bytes, double ms) { return ms > 0 ? bytes / (ms * 1e6) : NAN; }

static const char *size_str(char *buf, size_t n, double bytes) { return cli_bytes(buf, n, bytes); }

/* "2^30" for powers of two, else the number */
static const char *count_str(char *buf, size_t n, size_t v)
{
    if (v && !(v & (v - 1))) {
        int k = 0;
        while (((size_t)1 << k) != v) k++;
        snprintf(buf, n, "2^%d", k);
    } else {
        snprintf(buf, n, "%zu", v);
    }
    return buf;
}

static void print_link(const lab_multi_link *k, int reps, cli_json *J)
{
    char b[32];
    printf("## 1. link: cudaMemcpyPeerAsync between two GPUs (rank 0 alone)\n\n");
    if (!k->ran) {
        printf("skipped: %s\n\n", k->why);
        cli_json_exp(J, "link");
        cli_json_row(J);
        cli_json_str(J, "skipped", k->why);
        cli_json_end_row(J);
        cli_json_end_exp(J);
        return;
    }
    printf("GPU %d -> GPU %d and back; peer access %d -> %d: %s, %d -> %d: %s (without it the driver stages\n"
           "copies through host memory). A copy i -> j on a stream of device i; \"both\" = the two directions\n"
           "at once, GB/s of the bytes of both. Median of %d; copies under 64 MiB batched to 64 MiB.\n\n",
           k->dev0, k->dev1, k->dev0, k->dev1, k->peer01 ? "yes" : "no", k->dev1, k->dev0, k->peer10 ? "yes" : "no",
           reps);
    printf("| size | GPU%d -> GPU%d GB/s | GPU%d -> GPU%d GB/s | both GB/s |\n|---:|---:|---:|---:|\n", k->dev0,
           k->dev1, k->dev1, k->dev0);
    cli_json_exp(J, "link");
    for (int i = 0; i < k->nbw; i++) {
        const double by = (double)k->bw_bytes[i];
        printf("| %s | %.1f | %.1f | %.1f |\n", size_str(b, sizeof b, by), gbs(by, k->ms01[i]), gbs(by, k->ms10[i]),
               gbs(2 * by, k->msbi[i]));
        cli_json_row(J);
        cli_json_num(J, "bytes", by);
        cli_json_num(J, "ms_01", k->ms01[i]);
        cli_json_num(J, "ms_10", k->ms10[i]);
        cli_json_num(J, "ms_both", k->msbi[i]);
        cli_json_num(J, "gbs_01", gbs(by, k->ms01[i]));
        cli_json_num(J, "gbs_10", gbs(by, k->ms10[i]));
        cli_json_num(J, "gbs_both", gbs(2 * by, k->msbi[i]));
        cli_json_end_row(J);
    }
    cli_json_end_exp(J);
    printf("\nsmall copies: the time of one copy in a back-to-back batch of %d (issue + DMA latency)\n\n",
           k->lat_batch);
    printf("| size | GPU%d -> GPU%d us | GPU%d -> GPU%d us |\n|---:|---:|---:|\n", k->dev0, k->dev1, k->dev1, k->dev0);
    cli_json_exp(J, "latency");
    for (int i = 0; i < k->nlat; i++) {
        printf("| %s | %.2f | %.2f |\n", size_str(b, sizeof b, (double)k->lat_bytes[i]), k->us01[i], k->us10[i]);
        cli_json_row(J);
        cli_json_num(J, "bytes", (double)k->lat_bytes[i]);
        cli_json_num(J, "us_01", k->us01[i]);
        cli_json_num(J, "us_10", k->us10[i]);
        cli_json_end_row(J);
    }
    cli_json_end_exp(J);
    printf("\n");
}

static int print_allreduce(const lab_multi_allreduce *a, int p, int reps, cli_json *J)
{
    char b[32], c[32];
    int bad = 0;
    const double f = 2.0 * (p - 1) / p;
    printf("## 2. all-reduce: f32 sum over %d ranks, transport %s\n\n", p, a->transport);
    printf("algbw = bytes / time, busbw = algbw x 2(p-1)/p (nccl-tests); time = the slowest rank's, median\n"
           "of %d; every result checked element by element against the host's sum (\"ok\").\n",
           reps);
    if (a->base_name)
        printf("baseline: %s on the same buffers%s\n\n", a->base_name,
               strcmp(a->base_name, "ncclAllReduce") ? "" : ", the same stream, the communicator's NCCL handle");
    else printf("baseline: none (%s)\n\n", a->why_no_base);
    const char *bn = a->base_name ? a->base_name : "baseline";
    printf("cupat: the %s form%s\n\n", a->direct ? "direct (CUDA IPC, one kernel a rank over NVLink)" : "staged",
           a->direct ? "; \"staged ms\": its reduce-scatter / combine / all-gather form on the same buffers" : "");
    printf("| size | cupat ms | cupat algbw GB/s | cupat busbw GB/s | %s ms | %s busbw GB/s | cupat / %s time | staged ms | check |\n"
           "|---:|---:|---:|---:|---:|---:|---:|---:|---|\n",
           bn, bn, bn);
    cli_json_exp(J, "allreduce");
    for (int i = 0; i < a->nrows; i++) {
        const lab_multi_ar_row *r = &a->row[i];
        const double by = (double)r->bytes, alg = gbs(by, r->cupat.ms);
        const int ok = r->bad_cupat == 0 && (!r->have_base || r->bad_base == 0);
        bad += !ok;
        char st[24] = "-";
        if (r->have_staged) snprintf(st, sizeof st, "%.4f", r->staged.ms);
        if (r->have_base)
            printf("| %s | %.4f | %.1f | %.1f | %.4f | %.1f | %.2f | %s | %s |\n", size_str(b, sizeof b, by),
                   r->cupat.ms, alg, alg * f, r->base.ms, gbs(by, r->base.ms) * f, r->cupat.ms / r->base.ms, st,
                   ok ? "ok" : "FAIL");
        else
            printf("| %s | %.4f | %.1f | %.1f | - | - | - | %s | %s |\n", size_str(b, sizeof b, by), r->cupat.ms, alg,
                   alg * f, st, ok ? "ok" : "FAIL");
        if (!ok)
            printf("|   | %llu elements of cupat's results, %llu of the baseline's, off the host's sum | | | | | | | |\n",
                   (unsigned long long)r->bad_cupat, (unsigned long long)r->bad_base);
        cli_json_row(J);
        cli_json_num(J, "bytes", by);
        cli_json_num(J, "cupat_ms", r->cupat.ms);
        cli_json_num(J, "cupat_algbw_gbs", alg);
        cli_json_num(J, "cupat_busbw_gbs", alg * f);
        cli_json_num(J, "cupat_bad", (double)r->bad_cupat);
        if (r->have_staged) cli_json_num(J, "staged_ms", r->staged.ms);
        if (r->have_base) {
            cli_json_str(J, "baseline", a->base_name);
            cli_json_num(J, "baseline_ms", r->base.ms);
            cli_json_num(J, "baseline_busbw_gbs", gbs(by, r->base.ms) * f);
            cli_json_num(J, "baseline_bad", (double)r->bad_base);
            cli_json_num(J, "ratio", r->cupat.ms / r->base.ms);
        }
        cli_json_str(J, "check", ok ? "ok" : "FAIL");
        cli_json_end_row(J);
    }
    cli_json_end_exp(J);
    const double by = (double)a->reduce_n * 4;
    printf("\ncupat_reduce_dist: f32 sum of %s elements a rank (%s), %d ranks: %.4f ms, %.1f GB/s a rank;\n"
           "result %.9g, exact %.9g, bound %.3g: %s\n\n",
           count_str(c, sizeof c, a->reduce_n), size_str(b, sizeof b, by), p, a->reduce.ms, gbs(by, a->reduce.ms),
           a->reduce_got, a->reduce_want, a->reduce_bound, a->reduce_ok ? "ok" : "FAIL");
    bad += !a->reduce_ok;
    cli_json_exp(J, "reduce");
    cli_json_row(J);
    cli_json_num(J, "n_per_rank", (double)a->reduce_n);
    cli_json_num(J, "ms", a->reduce.ms);
    cli_json_num(J, "gbs_per_rank", gbs(by, a->reduce.ms));
    cli_json_num(J, "result", a->reduce_got);
    cli_json_num(J, "exact", a->reduce_want);
    cli_json_str(J, "check", a->reduce_ok ? "ok" : "FAIL");
    cli_json_end_row(J);
    cli_json_end_exp(J);
    printf("all-reduce check: %s\n\n", bad ? "FAIL" : "PASS");
    return bad;
}

static void stencil_row(cli_json *J, const char *run, const char *what, int ranks, size_t nx, size_t ny, size_t nz,
                        lab_multi_time t, double copy_gbs, const char *rel_name, double rel)
{
    char g[64];
    const double bytes = 8.0 * (double)nx * (double)ny * (double)nz, all = gbs(bytes, t.ms), one = all / ranks;
    snprintf(g, sizeof g, "%zu x %zu x %zu", nx, ny, nz);
    printf("| %s | %d | %s | %.4f | %.1f | %.1f | ", what, ranks, g, t.ms, all, one);
    if (copy_gbs > 0) printf("%.1f%% |", 100 * one / copy_gbs);
    else printf("- |");
    if (rel_name) printf(" %s %.3f |\n", rel_name, rel);
    else printf(" |\n");
    cli_json_row(J);
    cli_json_str(J, "run", run);
    cli_json_num(J, "ranks", ranks);
    cli_json_num(J, "nx", (double)nx);
    cli_json_num(J, "ny", (double)ny);
    cli_json_num(J, "nz", (double)nz);
    cli_json_num(J, "ms_per_step", t.ms);
    cli_json_num(J, "gbs", all);
    cli_json_num(J, "gbs_per_gpu", one);
    cli_json_num(J, "of_copy", copy_gbs > 0 ? one / copy_gbs : NAN);
    if (rel_name) cli_json_num(J, rel_name, rel);
    cli_json_end_row(J);
}

static int print_stencil(const lab_multi_stencil *s, int p, int cuda, int reps, cli_json *J)
{
    const size_t n = s->edge + 2;
    printf("## 3. stencil: 7-point heat (cupat_stencil3d_coeffs HEAT, 0.1), f32, %d steps a call\n\n", s->steps);
    printf("ms a step = the call's median time (slowest rank, %d reps) / %d; GB/s = 8 bytes (one read, one\n"
           "write) x the grid's points, halo included, a step / time; \"x copy\" = GB/s a GPU / the device's\n"
           "copy rate (%s). Weak: %zu^3 interior points a GPU; strong: %zu x %zu x %zu interior in all.\n\n",
           reps, s->steps,
           s->copy_gbs > 0 ? "measured" : cuda ? "not measured" : "CPU backend: not measured", s->edge, s->edge,
           s->edge, s->strong_nz);
    if (s->copy_gbs > 0) printf("device copy rate: %.1f GB/s (read + write)\n\n", s->copy_gbs);
    printf("| run | ranks | grid (halo incl.) | ms/step | GB/s | GB/s a GPU | x copy | scaling |\n"
           "|---|---:|---|---:|---:|---:|---:|---|\n");
    cli_json_exp(J, "stencil");
    stencil_row(J, "run", "cupat_stencil3d_run (default rung, one step a pass)", 1, n, n, n, s->ref_run,
                s->copy_gbs, NULL, 0);
    stencil_row(J, "steps", "cupat_stencil3d, one step a call (default rung)", 1, n, n, n, s->ref_step, s->copy_gbs,
                NULL, 0);
    stencil_row(J, "weak1", "cupat_stencil3d_dist weak, 1 rank", 1, n, n, n, s->weak1, s->copy_gbs, NULL, 0);
    stencil_row(J, "weakp", "cupat_stencil3d_dist weak", p, n, n, (size_t)p * s->edge + 2, s->weakp, s->copy_gbs,
                "efficiency", s->weak1.ms / s->weakp.ms);
    stencil_row(J, "strong1", "cupat_stencil3d_dist strong, 1 rank", 1, n, n, s->strong_nz + 2, s->strong1,
                s->copy_gbs, NULL, 0);
    stencil_row(J, "strongp", "cupat_stencil3d_dist strong", p, n, n, s->strong_nz + 2, s->strongp, s->copy_gbs,
                "speedup", s->strong1.ms / s->strongp.ms);
    cli_json_end_exp(J);
    printf("\nweak efficiency T1/Tp = %.3f; strong speedup %.3f, efficiency %.3f on %d ranks\n",
           s->weak1.ms / s->weakp.ms, s->strong1.ms / s->strongp.ms, s->strong1.ms / s->strongp.ms / p, p);
    printf("stencil check (strong, %d ranks' own planes against the 1-rank grid after %d steps, bit for bit): %s%s%s\n\n",
           p, s->steps, s->strong_ok ? "PASS" : "FAIL", s->strong_note[0] ? ": " : "", s->strong_note);
    cli_json_exp(J, "stencil_check");
    cli_json_row(J);
    cli_json_str(J, "check", s->strong_ok ? "PASS" : "FAIL");
    cli_json_str(J, "note", s->strong_note);
    cli_json_end_row(J);
    cli_json_end_exp(J);
    return !s->strong_ok;
}

static int print_sort(const lab_multi_sort *s, int p, int reps, cli_json *J)
{
    char a[32], b[32];
    printf("## 4. sort: %s random u32 keys in all, ascending\n\n", count_str(a, sizeof a, s->n));
    printf("time = median of %d (the slowest rank's); cupat_sort_dist: splitters, partition, exchange under the\n"
           "own bucket's sort, sort of what arrived, merge;\n"
           "keys a rank after the exchange %zu .. %zu (perfect balance %zu)\n\n",
           reps, s->out_min, s->out_max, s->n / (size_t)p);
    printf("| run | ranks | keys a rank | ms | Gkeys/s | speedup | check |\n|---|---:|---:|---:|---:|---:|---|\n");
    printf("| cupat_sort (one GPU) | 1 | %s | %.3f | %.3g | 1 | %s |\n", count_str(a, sizeof a, s->n), s->one.ms,
           s->n / (s->one.ms * 1e6), s->one_ok ? "PASS" : "FAIL");
    printf("| cupat_sort_dist | %d | %s | %.3f | %.3g | %.2f | %s |\n", p, count_str(b, sizeof b, s->n / (size_t)p),
           s->dist.ms, s->n / (s->dist.ms * 1e6), s->one.ms / s->dist.ms, s->dist_ok ? "PASS" : "FAIL");
    printf("\nphases of one more cupat_sort_dist call (ms, the slowest rank's; stream waits at each mark):\n"
           "partition %.3f | exchange, own bucket sorted under it %.3f | sort of what arrived %.3f | merge %.3f\n",
           s->phase_ms[0], s->phase_ms[1], s->phase_ms[2], s->phase_ms[3]);
    const int ok = s->one_ok && s->dist_ok;
    printf("\nsort: %s%s%s\n\n", ok ? "PASS" : "FAIL", s->note[0] ? ": " : "", s->note);
    cli_json_exp(J, "sort");
    cli_json_row(J);
    cli_json_str(J, "run", "one");
    cli_json_num(J, "ranks", 1);
    cli_json_num(J, "keys", (double)s->n);
    cli_json_num(J, "ms", s->one.ms);
    cli_json_str(J, "check", s->one_ok ? "PASS" : "FAIL");
    cli_json_end_row(J);
    cli_json_row(J);
    cli_json_str(J, "run", "dist");
    cli_json_num(J, "ranks", p);
    cli_json_num(J, "keys", (double)s->n);
    cli_json_num(J, "ms", s->dist.ms);
    cli_json_num(J, "speedup", s->one.ms / s->dist.ms);
    cli_json_num(J, "out_min", (double)s->out_min);
    cli_json_num(J, "out_max", (double)s->out_max);
    cli_json_num(J, "partition_ms", s->phase_ms[0]);
    cli_json_num(J, "exchange_ms", s->phase_ms[1]);
    cli_json_num(J, "arrived_sort_ms", s->phase_ms[2]);
    cli_json_num(J, "merge_ms", s->phase_ms[3]);
    cli_json_str(J, "check", s->dist_ok ? "PASS" : "FAIL");
    cli_json_end_row(J);
    cli_json_end_exp(J);
    return !ok;
}

/* ---------------------------------------------------------------- model -- */

typedef struct results {
    int have_link, have_ar, have_st, have_sort;
    lab_multi_link link;
    lab_multi_allreduce ar;
    lab_multi_stencil st;
    lab_multi_sort sort;
} results;

static void model_input(cli_json *J, const char *name, double v, const char *unit, const char *from)
{
    printf("| %s | %.4g%s%s | %s |\n", name, v, *unit ? " " : "", unit, from);
    cli_json_row(J);
    cli_json_str(J, "input", name);
    cli_json_num(J, "value", v);
    cli_json_str(J, "unit", unit);
    cli_json_str(J, "from", from);
    cli_json_end_row(J);
}

/* A stencil prediction table, P = Ps[0] (measured: its step time and
 * scaling beside), 8, 64. weak: `planes` a GPU, speedup = P t_c / t (the
 * scaled speedup); strong: `planes` in all, the largest slab a GPU, speedup
 * t(1) / t(P). Efficiency = speedup / P either way. */
static void model_stencil_table(cli_json *J, const lab_multi_model_in *m, const char *exp, const int Ps[3],
                                size_t planes, int strong, double measured_ms, double measured_scaling)
{
    printf("| P | own planes | compute ms | exchange ms | hidden | step ms | speedup | efficiency | measured |\n"
           "|---:|---:|---:|---:|---|---:|---:|---:|---|\n");
    cli_json_exp(J, exp);
    const double t1 = lab_multi_model_stencil(m, 1, planes).step_ms;
    for (int k = 0; k < 3; k++) {
        const size_t own = strong ? (planes + (size_t)Ps[k] - 1) / (size_t)Ps[k] : planes;
        const lab_multi_stencil_pred w = lab_multi_model_stencil(m, Ps[k], own);
        const double speedup = strong ? t1 / w.step_ms : Ps[k] * w.compute_ms / w.step_ms;
        printf("| %d | %zu | %.4f | %.4f | %s | %.4f | %.2f | %.3f | ", Ps[k], own, w.compute_ms, w.exchange_ms,
               w.hidden ? "yes" : "no", w.step_ms, speedup, speedup / Ps[k]);
        if (k == 0) printf("%.4f ms, %s %.3f |\n", measured_ms, strong ? "speedup" : "efficiency", measured_scaling);
        else printf("PREDICTION |\n");
        cli_json_row(J);
        cli_json_num(J, "P", Ps[k]);
        cli_json_num(J, "own_planes", (double)own);
        cli_json_num(J, "compute_ms", w.compute_ms);
        cli_json_num(J, "exchange_ms", w.exchange_ms);
        cli_json_num(J, "hidden", w.hidden);
        cli_json_num(J, "step_ms", w.step_ms);
        cli_json_num(J, "speedup", speedup);
        cli_json_num(J, "efficiency", speedup / Ps[k]);
        if (k == 0) cli_json_num(J, "measured_step_ms", measured_ms);
        cli_json_end_row(J);
    }
    cli_json_end_exp(J);
}

static void print_model(const results *R, const opts *o, int p, cli_json *J)
{
    printf("## 5. PREDICTIONS: a cost model for 8 and 64 GPUs (lab/multi/multi_model.h)\n\n"
           "Not measurements: arithmetic on the measured figures above and two ASSUMED network figures.\n"
           "The row at P = %d sits beside the measured value, so the model's error there is visible.\n\n",
           p);
    lab_multi_model_in m;
    memset(&m, 0, sizeof m);
    m.gpus_per_node = (int)o->gpus_per_node;
    m.net_lat_us = o->net_us;
    m.net_bw_gbs = o->net_gbs;
    m.elem_bytes = 4;
    m.key_bytes = 4;
    char from_lat[320] = "", from_bw[160] = "";
    /* the link: the peer copies where measured, else the all-reduce's ring fit */
    const lab_multi_ar_row *small = NULL, *large = NULL;
    if (R->have_ar && R->ar.nrows >= 2 && p >= 2) {
        small = &R->ar.row[0];
        large = &R->ar.row[R->ar.nrows - 1];
        const int nb = large->have_base && small->have_base;
        lab_multi_model_fit_allreduce(&m, p, (double)small->bytes, nb ? small->base.ms : small->cupat.ms,
                                      (double)large->bytes, nb ? large->base.ms : large->cupat.ms);
    }
    if (R->have_link && R->link.ran) {
        m.lat_us = R->link.us01[0];
        m.bw_gbs = gbs((double)R->link.bw_bytes[R->link.nbw - 1], R->link.ms01[R->link.nbw - 1]);
        snprintf(from_lat, sizeof from_lat, "measured: link row, one %zu-byte copy GPU%d -> GPU%d",
                 R->link.lat_bytes[0], R->link.dev0, R->link.dev1);
        snprintf(from_bw, sizeof from_bw, "measured: link row, %zu MiB GPU%d -> GPU%d",
                 R->link.bw_bytes[R->link.nbw - 1] >> 20, R->link.dev0, R->link.dev1);
    } else if (small) {
        m.lat_us = m.ar_lat_us;
        m.bw_gbs = m.ar_busbw_gbs;
        snprintf(from_lat, sizeof from_lat, "the all-reduce's ring fit (no link row: %s)",
                 R->have_link ? R->link.why : "not run");
        snprintf(from_bw, sizeof from_bw, "the all-reduce's ring fit (busbw)");
    }
    const int have_link = from_lat[0] != 0;
    m.copy_gbs = R->have_st ? R->st.copy_gbs : 0;
    if (R->have_st) {
        m.nx = m.ny = R->st.edge + 2;
        lab_multi_model_fit_stencil(&m, R->st.edge, R->st.weak1.ms, R->st.strong_nz, R->st.strong1.ms);
    }
    if (R->have_sort) {
        m.sort_n = R->sort.n;
        m.sort_ms = R->sort.one.ms;
    }
    char buf[200];
    printf("inputs:\n\n| input | value | from |\n|---|---:|---|\n");
    cli_json_exp(J, "model_inputs");
    model_input(J, "G, GPUs a node", m.gpus_per_node, "", "assumed (--gpus-per-node): HGX H100 / H200");
    if (have_link) {
        model_input(J, "lat, GPU to GPU latency", m.lat_us, "us", from_lat);
        model_input(J, "bw, GPU to GPU bandwidth one way", m.bw_gbs, "GB/s", from_bw);
    }
    model_input(J, "net_lat, between nodes", m.net_lat_us, "us", "ASSUMED (--net-us)");
    model_input(J, "net_bw, between nodes a GPU one way", m.net_bw_gbs, "GB/s",
                "ASSUMED (--net-gbs): a 400 Gb/s NIC a GPU");
    if (m.copy_gbs > 0) model_input(J, "copy, device copy rate (read + write)", m.copy_gbs, "GB/s", "measured: bench ceilings");
    if (R->have_st) {
        snprintf(buf, sizeof buf, "line through the 1-rank dist runs: %zu planes %.4f ms, %zu planes %.4f ms a step",
                 R->st.edge, R->st.weak1.ms, R->st.strong_nz, R->st.strong1.ms);
        model_input(J, "t_plane, compute a plane a step", m.plane_ms * 1e3, "us", buf);
        model_input(J, "o, overhead a step", m.overhead_ms * 1e3, "us", buf);
    }
    if (small) {
        snprintf(buf, sizeof buf, "ring fit to %s at %zu and %zu bytes (%d ranks)",
                 large->have_base ? R->ar.base_name : "cupat_allreduce_dist", small->bytes, large->bytes, p);
        model_input(J, "busbw, all-reduce bus bandwidth", m.ar_busbw_gbs, "GB/s", buf);
        model_input(J, "ar_lat, all-reduce step latency", m.ar_lat_us, "us", buf);
    }
    if (R->have_sort) {
        snprintf(buf, sizeof buf, "measured: cupat_sort of %zu keys on one GPU", R->sort.n);
        model_input(J, "t1, one GPU's sort", m.sort_ms, "ms", buf);
    }
    cli_json_end_exp(J);
    const int Ps[3] = {p, 8, 64};
    /* stencil, weak and strong */
    if (R->have_st && have_link) {
        printf("\nstencil weak scaling (%zu planes a GPU): t = o + 2 t_plane + max((own - 2) t_plane, t_x),\n"
               "t_x = lat + k x plane bytes / bw (k = planes leaving a GPU at once; P > G: the slower of that and\n"
               "one plane over the network)\n\n",
               R->st.edge);
        model_stencil_table(J, &m, "model_stencil_weak", Ps, R->st.edge, 0, R->st.weakp.ms,
                            R->st.weak1.ms / R->st.weakp.ms);
        printf("\nstencil strong scaling (%zu x %zu x %zu interior): speedup = t(1 GPU) / t(P), the largest slab\n\n",
               R->st.edge, R->st.edge, R->st.strong_nz);
        model_stencil_table(J, &m, "model_stencil_strong", Ps, R->st.strong_nz, 1, R->st.strongp.ms,
                            R->st.strong1.ms / R->st.strongp.ms);
    } else if (R->have_st) {
        printf("\nstencil: no prediction (no link figures: the link and all-reduce rows did not run)\n");
    }
    /* all-reduce */
    if (small) {
        static const double sizes[3] = {1 << 20, 64 << 20, 1 << 30};
        char sb[32];
        printf("\nall-reduce (ring): t = 2(P-1)/P x bytes / busbw + 2(P-1) x ar_lat; P > G: busbw <= net_bw,\n"
               "ar_lat = net_lat\n\n| P | 1 MiB ms | 64 MiB ms | 1 GiB ms | measured |\n|---:|---:|---:|---:|---|\n");
        cli_json_exp(J, "model_allreduce");
        for (int k = 0; k < 3; k++) {
            double t[3];
            for (int j = 0; j < 3; j++) t[j] = lab_multi_model_allreduce_ms(&m, Ps[k], sizes[j]);
            printf("| %d | %.4f | %.4f | %.3f | ", Ps[k], t[0], t[1], t[2]);
            if (k == 0)
                printf("%s at %s: %.4f ms measured, %.4f predicted |\n",
                       large->have_base ? R->ar.base_name : "cupat", size_str(sb, sizeof sb, (double)large->bytes),
                       large->have_base ? large->base.ms : large->cupat.ms,
                       lab_multi_model_allreduce_ms(&m, p, (double)large->bytes));
            else printf("PREDICTION |\n");
            cli_json_row(J);
            cli_json_num(J, "P", Ps[k]);
            cli_json_num(J, "ms_1MiB", t[0]);
            cli_json_num(J, "ms_64MiB", t[1]);
            cli_json_num(J, "ms_1GiB", t[2]);
            cli_json_end_row(J);
        }
        cli_json_end_exp(J);
    }
    /* sort */
    if (R->have_sort && have_link && m.copy_gbs > 0) {
        printf("\nsort of %zu keys: local t1 x (n/P)/n; exchange (P-1) lat + (P-1)/P of a rank's keys / bw (P > G:\n"
               "the part for other nodes over the network); merge ceil(log2 P) passes at the copy rate\n\n",
               R->sort.n);
        printf("| P | local ms | exchange ms | merge ms | total ms | speedup | measured |\n"
               "|---:|---:|---:|---:|---:|---:|---|\n");
        cli_json_exp(J, "model_sort");
        for (int k = 0; k < 3; k++) {
            const lab_multi_sort_pred s = lab_multi_model_sort(&m, Ps[k], R->sort.n);
            printf("| %d | %.3f | %.3f | %.3f | %.3f | %.2f | ", Ps[k], s.local_ms, s.exchange_ms, s.merge_ms,
                   s.total_ms, m.sort_ms / s.total_ms);
            if (k == 0) printf("%.3f ms, speedup %.2f |\n", R->sort.dist.ms, R->sort.one.ms / R->sort.dist.ms);
            else printf("PREDICTION |\n");
            cli_json_row(J);
            cli_json_num(J, "P", Ps[k]);
            cli_json_num(J, "local_ms", s.local_ms);
            cli_json_num(J, "exchange_ms", s.exchange_ms);
            cli_json_num(J, "merge_ms", s.merge_ms);
            cli_json_num(J, "total_ms", s.total_ms);
            cli_json_num(J, "speedup", m.sort_ms / s.total_ms);
            cli_json_end_row(J);
        }
        cli_json_end_exp(J);
    } else if (R->have_sort) {
        printf("\nsort: no prediction (%s)\n", !have_link ? "no link figures" : "no device copy rate (CPU backend)");
    }
    printf("\nnot modelled: HBM shared by the exchange and the compute, NCCL's tree algorithms at scale, load\n"
           "imbalance of the sort's splitters, the network's topology beyond one NIC a GPU.\n\n");
}

/* ------------------------------------------------------------- command -- */

static int run(const opts *o, lab_multi *L, const char *devdesc)
{
    results *R = calloc(1, sizeof *R);
    if (!R) {
        fprintf(stderr, "%s: out of host memory\n", CMD);
        return 1;
    }
    const int root = L->rank == 0;
    char dev[320] = "", date[32] = "", commit[64] = "";
    if (root) bench_describe(L->ctx, dev, sizeof dev, date, sizeof date, commit, sizeof commit);
    cli_json J;
    memset(&J, 0, sizeof J);
    int fail = 0, bad = 0;
    if (root) {
        fail = cli_json_open(&J, CMD, o->json, "multi", dev, date, commit, L->reps);
        printf("# cupat lab multi\n\nranks: %d (%s), transport: %s, backend: %s%s\ndevice: %s\ndate:   %s\ncommit: %s\n\n",
               L->size, devdesc, cupat_comm_transport(L->comm), L->cuda ? "cuda" : "cpu", L->quick ? ", --quick" : "",
               dev, date, commit);
        cli_json_exp(&J, "setup");
        cli_json_row(&J);
        cli_json_num(&J, "ranks", L->size);
        cli_json_str(&J, "devices", devdesc);
        cli_json_str(&J, "transport", cupat_comm_transport(L->comm));
        cli_json_str(&J, "backend", L->cuda ? "cuda" : "cpu");
        cli_json_num(&J, "quick", L->quick);
        cli_json_end_row(&J);
        cli_json_end_exp(&J);
        fflush(stdout);
    }
    MPI_Bcast(&fail, 1, MPI_INT, 0, L->world);
    cupat_status s = fail ? CUPAT_ERROR_INVALID_VALUE : CUPAT_SUCCESS;
    const char *row = "";
    if (!s && o->want[EXP_LINK]) {
        row = "link";
        s = lab_multi_run_link(L, &R->link);
        R->have_link = !s;
        if (!s && root) print_link(&R->link, L->reps, &J);
    }
    if (!s && o->want[EXP_ALLREDUCE]) {
        row = "allreduce";
        s = lab_multi_run_allreduce(L, &R->ar);
        R->have_ar = !s;
        if (!s && root) bad += print_allreduce(&R->ar, L->size, L->reps, &J);
    }
    if (!s && o->want[EXP_STENCIL]) {
        row = "stencil";
        const int steps = o->steps > 0 ? o->steps : L->cuda ? (o->quick ? 5 : 50) : (o->quick ? 3 : 10);
        const size_t edge = L->cuda ? 512 : 16;
        s = lab_multi_run_stencil(L, edge, 2 * edge, steps, &R->st);
        R->have_st = !s;
        if (!s && root) bad += print_stencil(&R->st, L->size, L->cuda, L->reps, &J);
    }
    if (!s && o->want[EXP_SORT]) {
        row = "sort";
        const size_t n = L->cuda ? (o->quick ? (size_t)1 << 28 : (size_t)1 << 30) : (o->quick ? 1 << 16 : 1 << 18);
        s = lab_multi_run_sort(L, n, &R->sort);
        R->have_sort = !s;
        if (!s && root) bad += print_sort(&R->sort, L->size, L->reps, &J);
    }
    if (!s && o->want[EXP_MODEL] && root) print_model(R, o, L->size, &J);
    if (root) {
        if (s && !fail) fprintf(stderr, "%s: %s: %s\n", CMD, row, cupat_last_error(L->ctx));
        if (cli_json_close(&J, CMD, o->json)) fail = 1;
        if (!s && !fail) printf("%s\n", bad ? "multi lab: some checks FAILED" : "multi lab: every check OK");
        fflush(stdout);
    }
    free(R);
    return s || fail || bad ? 1 : 0;
}

int cmd_lab_multi(int argc, char **argv)
{
    opts o;
    memset(&o, 0, sizeof o);
    o.backend = CUPAT_BACKEND_AUTO;
    o.gpus_per_node = 8;
    o.net_gbs = 50;
    o.net_us = 5;
    const int pr = parse(argc, argv, &o);
    if (pr) return pr < 0 ? 0 : pr;

    int provided = 0;
    if (MPI_Init_thread(NULL, NULL, MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "%s: MPI_Init failed\n", CMD);
        return 1;
    }
    lab_multi L;
    memset(&L, 0, sizeof L);
    L.world = MPI_COMM_WORLD;
    MPI_Comm_rank(L.world, &L.rank);
    MPI_Comm_size(L.world, &L.size);
    L.reps = o.reps;
    L.quick = o.quick;
    L.transport = o.transport;
    /* the backend, the same on every rank: auto is CUDA where rank 0 sees a device */
    int ndev = 0, cuda = o.backend != CUPAT_BACKEND_CPU;
    const char *why = cuda ? cli_no_cuda_reason() : NULL;
    if (!why) cudaGetDeviceCount(&ndev);
    int code = 0; /* 0 go on, else the exit code every rank returns */
    if (o.backend == CUPAT_BACKEND_CUDA && why) {
        if (L.rank == 0) fprintf(stderr, "%s: --backend cuda needs a GPU: %s\n", CMD, why);
        code = 1;
    }
    if (o.backend == CUPAT_BACKEND_AUTO && why) {
        if (L.rank == 0) fprintf(stderr, "%s: no CUDA device (%s): running on the CPU backend\n", CMD, why);
        cuda = 0;
    }
    int all = code;
    MPI_Allreduce(&code, &all, 1, MPI_INT, MPI_MAX, L.world);
    code = all;
    L.cuda = cuda;
    const int device = cuda && ndev > 0 ? L.rank % ndev : -1;
    if (!code && cuda && ndev < L.size && !o.transport && !getenv("CUPAT_DIST_TRANSPORT")) {
        /* NCCL refuses two ranks on one device: the staged transport shares it */
        L.transport = "mpi-staged";
        if (L.rank == 0)
            fprintf(stderr, "%s: %d ranks on %d GPU(s): transport mpi-staged (NCCL needs a GPU a rank)\n", CMD, L.size,
                    ndev);
    }
    cupat_status s = CUPAT_SUCCESS;
    if (!code) {
        s = cupat_create(&L.ctx, cuda ? CUPAT_BACKEND_CUDA : CUPAT_BACKEND_CPU, device);
        if (s) fprintf(stderr, "%s: rank %d: %s\n", CMD, L.rank, cupat_last_error(NULL));
        else if ((s = cupat_comm_create_transport(&L.comm, L.ctx, L.world, L.transport)) != CUPAT_SUCCESS)
            fprintf(stderr, "%s: rank %d: cupat_comm_create: %s\n", CMD, L.rank, cupat_last_error(L.ctx));
        int bad = s != CUPAT_SUCCESS;
        MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_MAX, L.world);
        if (all) code = 1;
    }
    if (!code) {
        /* which device each rank drives, for the header */
        int *devs = calloc((size_t)L.size, sizeof *devs);
        char desc[256] = "";
        if (devs && MPI_Gather(&device, 1, MPI_INT, devs, 1, MPI_INT, 0, L.world) == MPI_SUCCESS && L.rank == 0) {
            size_t k = 0;
            for (int r = 0; r < L.size && k + 24 < sizeof desc; r++)
                k += (size_t)snprintf(desc + k, sizeof desc - k, "%srank %d: %s %d", r ? ", " : "", r,
                                      cuda ? "GPU" : "CPU", cuda ? devs[r] : r);
        }
        free(devs);
        code = run(&o, &L, desc);
        MPI_Bcast(&code, 1, MPI_INT, 0, L.world); /* rank 0 saw every check */
    }
    cupat_comm_destroy(L.comm);
    cupat_destroy(L.ctx);
    MPI_Finalize();
    return code;
}

#endif /* CUPAT_HAVE_MPI */
