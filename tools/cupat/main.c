/* SPDX-License-Identifier: Apache-2.0 */
/* main.c — `cupat <command> [options]`: dispatch to the subcommands. */
#include "cli.h"
#include "commands.h"

#include <stdio.h>
#include <string.h>

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} command;

static const command commands[] = {
    {"info", cmd_info, "device query (or host facts) and the measured ceilings"},
    {"bandwidth", cmd_bandwidth,
     "host<->device transfer rates: pageable, pinned, write-combined, zero-copy, managed"},
    {"bench", cmd_bench, "run a pattern's ladder: time, GB/s, % of ceiling, vs the vendor"},
    {"lab", cmd_lab, "experiments: 'lab access' (coalescing, AoS/SoA, banks, host memory), "
                     "'lab warp' (shuffles, votes), 'lab atomics' (races, custom atomics, contention), "
                     "'lab float' (IEEE 754, rounding, intrinsics), 'lab errors' (classic bugs), "
                     "'lab memory' (caches, symbols, pitch, fences, unified memory), "
                     "'lab streams' (overlap, false dependencies, priorities, events, graphs), "
                     "'lab exec' (divergence, latency, occupancy, register cliffs, CDP), "
                     "'lab cluster' (thread-block clusters, distributed shared memory), "
                     "'lab coop' (cooperative groups, grid sync), "
                     "'lab async' (cuda::barrier, memcpy_async, pipelines, TMA), "
                     "'lab l2' (L2 persistence, access-policy windows, sm_90a feature sets), "
                     "'lab multi' (under mpirun: GPU links, all-reduce vs NCCL, stencil and sort scaling)"},
    {"occupancy", cmd_occupancy,
     "blocks an SM by threads, registers, shared memory; the cliffs; the books' examples"},
    {"report", cmd_report,
     "charts of bench results (JSON): roofline, ladders, sweeps; HTML, PNG, SVG"},
    {"bfs", cmd_bfs,
     "breadth-first search on a graph file or Kronecker graph: Graph500 TEPS, validated"},
    {"gray", cmd_image, "RGB image file to gray (PMPP 3.2)"},
    {"blur", cmd_image, "box blur of an image file (PMPP 3.3)"},
    {"filter", cmd_filter, "Gaussian, box, sharpen, Sobel or a kernel file on an image (PMPP 7)"},
    {"hist", cmd_hist, "histogram of each channel of an image file (PMPP 9); --json for the report"},
    {"spmv", cmd_spmv, "sparse y = A x of a Matrix Market file or a generated matrix (PMPP 14)"},
    {"cg", cmd_cg, "conjugate gradient (Jacobi) on a Matrix Market file or a generated matrix"},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: cupat <command> [options]\n"
            "\n"
            "The lab of the cupat library (CUDA parallel patterns, version %s).\n"
            "\n"
            "Commands:\n",
            cupat_version());
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(f, "  %-11s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "  %-11s %s\n", "help CMD", "the options of CMD (same as 'cupat CMD --help')");
    fprintf(f,
            "\n"
            "Options:\n"
            "  -h, --help     this text\n"
            "  -V, --version  print the version\n"
            "\n"
            "Most commands take --backend auto|cpu|cuda (auto: CUDA when a device is\n"
            "present, else the CPU) and --device N.\n"
            "Exit status: 0 success, 1 failure at run time, 2 bad arguments.\n");
}

static const command *find(const char *name)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(commands[i].name, name) == 0) return &commands[i];
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "cupat: no command given; try 'cupat --help'\n");
        return 2;
    }
    const char *name = argv[1];
    if (cli_is_help(name) || strcmp(name, "help") == 0) {
        if (strcmp(name, "help") == 0 && argc > 2) { /* cupat help CMD */
            const command *c = find(argv[2]);
            if (!c) {
                fprintf(stderr, "cupat: unknown command '%s'; try 'cupat --help'\n", argv[2]);
                return 2;
            }
            char *sub[] = {argv[2], "--help", NULL};
            return c->run(2, sub);
        }
        usage(stdout);
        return 0;
    }
    if (strcmp(name, "--version") == 0 || strcmp(name, "-V") == 0) {
        printf("cupat %s\n", cupat_version());
        return 0;
    }
    const command *c = find(name);
    if (!c) {
        if (name[0] == '-')
            fprintf(stderr, "cupat: unknown option '%s'; try 'cupat --help'\n", name);
        else
            fprintf(stderr, "cupat: unknown command '%s'; try 'cupat --help'\n", name);
        return 2;
    }
    /* The subcommand sees its own name as argv[0] ("gray" / "blur" tell
     * cmd_image which operation to run). */
    return c->run(argc - 1, argv + 1);
}
