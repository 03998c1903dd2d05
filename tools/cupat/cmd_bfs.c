/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_bfs.c — `cupat bfs`: breadth-first searches on a graph file or a
 * Graph500 Kronecker graph from many roots, each validated by the Graph500
 * rules, with the per-root times and the Graph500 statistics (quartiles of
 * the times and TEPS, harmonic-mean TEPS). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "cli.h"
#include "commands.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void usage(void)
{
    printf("Usage: cupat bfs FILE | --kronecker SCALE [--edge-factor K] [--roots N] [--seed S]\n"
           "                  [--directed] [--variant NAME] [--backend B] [--device N]\n"
           "\n"
           "Breadth-first search (the 'bfs' ladder) from N roots, each result checked\n"
           "by the Graph500 validation; prints each root's time and TEPS and the\n"
           "Graph500 statistics: min, quartiles, max, harmonic mean of TEPS. TEPS =\n"
           "the input edge tuples of the root's component / the search's time. Roots:\n"
           "distinct vertices with an edge, drawn from the seed (all of them when\n"
           "fewer). Exit 1 when a search fails the validation.\n"
           "\n"
           "FILE: a plain edge list (\"u v\" lines, 0-based, '#' or '%%' comments) or a\n"
           "Matrix Market file; undirected unless --directed.\n"
           "\n"
           "Options:\n"
           "  --kronecker S  Graph500 Kronecker graph of scale S (1 to 30) instead of FILE\n"
           "  --edge-factor K edges per vertex of the Kronecker graph (default 16)\n"
           "  --roots N      searches, 1 to 100000 (default 64, as Graph500)\n"
           "  --seed S       generator and root seed (default 1)\n"
           "  --directed     FILE's edges one way only\n"
           "  --variant NAME rung of the 'bfs' ladder (default: the fastest); see\n"
           "                 'cupat bench bfs'\n"
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

/* Graph500's quartiles (the reference's statistics: linear between ranks). */
static double quantile(const double *sorted, size_t n, double q)
{
    double pos = q * (double)(n - 1);
    size_t lo = (size_t)pos;
    if (lo + 1 >= n) return sorted[n - 1];
    return sorted[lo] + (pos - (double)lo) * (sorted[lo + 1] - sorted[lo]);
}

static void stats(const char *name, double *v, size_t n, const char *unit)
{
    qsort(v, n, sizeof *v, cmp_double);
    printf("%-6s min %.6g  firstquartile %.6g  median %.6g  thirdquartile %.6g  max %.6g %s\n",
           name, v[0], quantile(v, n, 0.25), quantile(v, n, 0.5), quantile(v, n, 0.75),
           v[n - 1], unit);
}

static uint64_t mix(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

int cmd_bfs(int argc, char **argv)
{
    const char *cmd = "cupat bfs", *file = NULL, *variant = NULL, *v;
    long scale = 0, ef = 16, nroots = 64, device = -1, seed = 1;
    int directed = 0;
    cupat_backend backend = CUPAT_BACKEND_AUTO;
    for (int i = 1; i < argc; i++) {
        int r;
        if (cli_is_help(argv[i])) {
            usage();
            return 0;
        }
        if ((r = cli_backend_opt(argc, argv, &i, cmd, &backend, &device)) == 2) return 2;
        if (r == 1) continue;
        if ((r = cli_opt(argc, argv, &i, "--kronecker", &v, cmd)) != 0) {
            if (r < 0 || cli_parse_int(cmd, "--kronecker", v, 1, 30, &scale)) return 2;
        } else if ((r = cli_opt(argc, argv, &i, "--edge-factor", &v, cmd)) != 0) {
            if (r < 0 || cli_parse_int(cmd, "--edge-factor", v, 1, 1024, &ef)) return 2;
        } else if ((r = cli_opt(argc, argv, &i, "--roots", &v, cmd)) != 0) {
            if (r < 0 || cli_parse_int(cmd, "--roots", v, 1, 100000, &nroots)) return 2;
        } else if ((r = cli_opt(argc, argv, &i, "--seed", &v, cmd)) != 0) {
            if (r < 0 || cli_parse_int(cmd, "--seed", v, 0, 2147483647L, &seed)) return 2;
        } else if ((r = cli_opt(argc, argv, &i, "--variant", &v, cmd)) != 0) {
            if (r < 0) return 2;
            variant = v;
        } else if (strcmp(argv[i], "--directed") == 0) {
            directed = 1;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_unknown(cmd, argv[i]);
        } else if (!file) {
            file = argv[i];
        } else {
            return cli_unknown(cmd, argv[i]);
        }
    }
    if (!file == !scale) {
        fprintf(stderr, "%s: give a graph FILE or --kronecker SCALE (one of them); try "
                        "'cupat bfs --help'\n", cmd);
        return 2;
    }
    cupat_ctx *ctx = cli_context(backend, (int)device);
    if (!ctx) return 1;
    int rc = 1;
    cupat_graph *g = NULL;
    int32_t *dl = NULL, *dp = NULL, *roots = NULL;
    uint64_t *rp = NULL;
    double *times = NULL, *teps = NULL;
    cupat_status s;
    if (variant && (s = cupat_set_variant(ctx, "bfs", variant))) {
        fprintf(stderr, "%s: %s\n", cmd, cupat_last_error(ctx));
        cupat_destroy(ctx);
        return 2;
    }
    double t0 = now_s();
    s = file ? cupat_graph_read(ctx, &g, file, directed ? 0 : CUPAT_GRAPH_UNDIRECTED)
             : cupat_graph_kronecker(ctx, &g, (int)scale, (int)ef, (uint64_t)seed);
    if (s) {
        fprintf(stderr, "%s: %s\n", cmd, cupat_last_error(ctx));
        goto done;
    }
    double build_s = now_s() - t0;
    cupat_graph_info in;
    cupat_graph_get_info(ctx, g, &in);
    const cupat_variant_info *vi = NULL;
    cupat_get_variant(ctx, "bfs", &vi);
    printf("graph: %zu vertices, %zu input edges (%zu self-loops), %zu CSR entries (%zu "
           "repeats dropped), max degree %zu, %s; built in %.3f s\n",
           in.vertices, in.input_edges, in.self_loops, in.edges, in.duplicates, in.max_degree,
           in.undirected ? "undirected" : "directed", build_s);
    printf("bfs: rung %s on %s\n", vi ? vi->name : "?", cupat_backend_name(cupat_get_backend(ctx)));
    rp = malloc((in.vertices + 1) * sizeof *rp);
    roots = malloc((size_t)nroots * sizeof *roots);
    times = malloc((size_t)nroots * sizeof *times);
    teps = malloc((size_t)nroots * sizeof *teps);
    if (!rp || !roots || !times || !teps) {
        fprintf(stderr, "%s: out of host memory\n", cmd);
        goto done;
    }
    cupat_graph_get_csr(ctx, g, rp, NULL);
    /* distinct roots with an edge: a seeded shuffle of the candidates */
    size_t cand = 0;
    for (size_t u = 0; u < in.vertices; u++) cand += rp[u + 1] > rp[u];
    if (cand == 0) {
        fprintf(stderr, "%s: the graph has no edge: no root to search from\n", cmd);
        goto done;
    }
    size_t want = (size_t)nroots < cand ? (size_t)nroots : cand, got = 0;
    {
        uint64_t st = (uint64_t)seed * 0x2545F4914F6CDD1Dull + 7;
        char *used = calloc(in.vertices, 1);
        if (!used) {
            fprintf(stderr, "%s: out of host memory\n", cmd);
            goto done;
        }
        if (want * 2 > cand) { /* dense: take them in order from a random start */
            size_t start = (size_t)(mix(st) % in.vertices);
            for (size_t k = 0; got < want && k < in.vertices; k++) {
                size_t u = (start + k) % in.vertices;
                if (rp[u + 1] > rp[u]) roots[got++] = (int32_t)u;
            }
        } else {
            while (got < want) {
                size_t u = (size_t)(mix(st++) % in.vertices);
                if (rp[u + 1] > rp[u] && !used[u]) used[u] = 1, roots[got++] = (int32_t)u;
            }
        }
        free(used);
    }
    if (cupat_malloc(ctx, (void **)&dl, in.vertices * sizeof(int32_t)) ||
        cupat_malloc(ctx, (void **)&dp, in.vertices * sizeof(int32_t))) {
        fprintf(stderr, "%s: %s\n", cmd, cupat_last_error(ctx));
        goto done;
    }
    /* one untimed search: the work buffers the graph keeps are made here */
    if ((s = cupat_bfs(ctx, g, roots[0], dl, dp))) {
        fprintf(stderr, "%s: %s\n", cmd, cupat_last_error(ctx));
        goto done;
    }
    int invalid = 0;
    printf("%6s %11s %12s %14s %6s %12s\n", "root", "vertex", "time ms", "edges (m)", "depth",
           "TEPS");
    for (size_t k = 0; k < got; k++) {
        double a = now_s();
        s = cupat_bfs(ctx, g, roots[k], dl, dp);
        double t = now_s() - a;
        cupat_bfs_check c;
        if (!s) s = cupat_bfs_check_result(ctx, g, 1, &roots[k], dl, dp, &c);
        if (s) {
            fprintf(stderr, "%s: root %d: %s\n", cmd, roots[k], cupat_last_error(ctx));
            goto done;
        }
        times[k] = t;
        teps[k] = t > 0 ? (double)c.traversed_edges / t : 0;
        printf("%6zu %11d %12.4f %14llu %6d %12.4g%s%s\n", k, roots[k], t * 1e3,
               (unsigned long long)c.traversed_edges, c.depth, teps[k],
               c.valid ? "" : "  INVALID: ", c.valid ? "" : c.message);
        invalid += !c.valid;
    }
    double hsum = 0;
    size_t hn = 0;
    for (size_t k = 0; k < got; k++)
        if (teps[k] > 0) hsum += 1.0 / teps[k], hn++;
    stats("time", times, got, "s");
    stats("TEPS", teps, got, "");
    printf("harmonic_mean_TEPS %.6g  (%zu roots, %s)\n", hn ? (double)hn / hsum : 0.0, got,
           invalid ? "SOME INVALID" : "all valid");
    rc = invalid ? 1 : 0;
done:
    if (dl) cupat_free(ctx, dl);
    if (dp) cupat_free(ctx, dp);
    cupat_graph_destroy(ctx, g);
    free(rp), free(roots), free(times), free(teps);
    cupat_destroy(ctx);
    return rc;
}
