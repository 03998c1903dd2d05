/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_lab_memory.c — `cupat lab memory`: parse, run the memory lab's
 * experiments (lab/memory), print each as a table (and --json FILE). A row
 * whose data check fails exits 1; rows with nothing to check (the unfenced
 * litmus test, the plain polled flag) are reported as counted. --list and
 * --model print the experiments and the host models without a GPU. */
#include "cli.h"
#include "commands.h"

#include "harness.h"
#include "internal.h"
#include "memory/memory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char CMD[] = "cupat lab memory";

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: cupat lab memory [EXPERIMENT...] [options]\n"
            "\n"
            "Memory experiments beyond 'cupat lab access' (PCCP 4-5, PMPP 5-6, CUDA Guide 6.2.2 / 8.3 /\n"
            "19.4 / 19.7, lecture 10 and lecture \"Advanced Techniques\"). EXPERIMENT (default all):\n");
    for (int e = 0; lab_memory_exp(e); e++) fprintf(f, "  %-10s %s\n", lab_memory_exp(e)->name, lab_memory_exp(e)->title);
    fprintf(f,
            "\n"
            "Options:\n"
            "  --reps N     timed launches a row, the median reported (default 5)\n"
            "  --json FILE  also write the rows as JSON\n"
            "  --um-free SIZE  oversub: hold all but SIZE (e.g. 4G) of the free device memory in a\n"
            "               ballast while its rows run, so that the working sets are fractions of the\n"
            "               whole free memory (default: fractions of min(free, 1 GiB), safe beside\n"
            "               other GPU work; use it only when the GPU is yours)\n"
            "  --list       the experiments and their sources (no GPU)\n"
            "  --model      the host models: PMPP 6.2's DRAM arithmetic, bank wavefronts, the\n"
            "               carveout rule, the shared-memory carves (no GPU)\n"
            "  --device N   CUDA device\n"
            "  -h, --help   this text\n");
}

static void print_model(void)
{
    printf("PMPP 6.2: a 64-bit DDR channel at 1 GHz: %.0f GB/s; an access waiting 20 transfer times uses %.1f %% of it\n",
           lab_memory_dram_gbs(64, 1.0, 2), 100 * lab_memory_channel_use(20));
    printf("Little's law: 3000 GB/s at 600 ns needs %.2f MB in flight (the latency here is an example, not a measurement)\n",
           lab_memory_bytes_in_flight(3000, 600) / 1e6);
    printf("bank model (32 banks of 4 bytes): wavefronts of one warp load\n");
    static const int strides[] = {1, 2, 4, 8, 16, 32, 33};
    uint32_t a[32];
    for (size_t k = 0; k < sizeof strides / sizeof strides[0]; k++) {
        for (int l = 0; l < 32; l++) a[l] = (uint32_t)(l * strides[k]) * 4;
        printf("  4-byte words, stride %2d: %d\n", strides[k], lab_memory_wavefronts(a, 4));
    }
    for (int l = 0; l < 32; l++) a[l] = 0;
    printf("  broadcast: %d\n", lab_memory_wavefronts(a, 4));
    for (int l = 0; l < 32; l++) a[l] = (uint32_t)(l / 4) * 4;
    printf("  multicast (4 lanes a word): %d\n", lab_memory_wavefronts(a, 4));
    for (int l = 0; l < 32; l++) a[l] = (uint32_t)l * 8;
    printf("  8-byte words, stride 1: %d\n", lab_memory_wavefronts(a, 8));
    for (int l = 0; l < 32; l++) a[l] = (uint32_t)l * 16;
    printf("  8-byte words, stride 2: %d\n", lab_memory_wavefronts(a, 8));
    printf("carveout: pct %% of the largest shared capacity, rounded up to a supported one (KB)\n");
    static const int ccs[][2] = {{7, 0}, {8, 0}, {8, 6}, {9, 0}};
    static const int pcts[] = {0, 10, 25, 40, 50, 75, 100};
    for (size_t c = 0; c < sizeof ccs / sizeof ccs[0]; c++) {
        const int *caps = NULL;
        const int n = lab_memory_smem_caps(ccs[c][0], ccs[c][1], &caps);
        printf("  cc %d.%d:", ccs[c][0], ccs[c][1]);
        for (size_t k = 0; k < sizeof pcts / sizeof pcts[0]; k++)
            printf(" %d%% -> %d", pcts[k], lab_memory_carveout_kb(pcts[k], caps, n, 0));
        printf("\n");
    }
    static const char *const tn[LAB_CARVE_NTYPES] = {"int", "float", "char", "double"};
    const size_t count[LAB_CARVE_NTYPES] = {33, 65, 37, 129};
    const int order[] = {LAB_CARVE_INT, LAB_CARVE_FLOAT, LAB_CARVE_CHAR, LAB_CARVE_DOUBLE};
    printf("shared carve of 33 int, 65 float, 37 char, 129 double (byte offsets):\n");
    for (int pad = 1; pad >= 0; pad--) {
        size_t off[LAB_CARVE_NTYPES];
        const size_t bytes = lab_memory_carve(count, order, 4, pad, off);
        const int bad = lab_memory_carve_misaligned(count, off);
        printf("  %s:", pad ? "starts rounded up" : "packed");
        for (int t = 0; t < LAB_CARVE_NTYPES; t++) printf(" %s %zu", tn[t], off[t]);
        printf(", %zu bytes: %s%s\n", bytes, bad < 0 ? "aligned" : "misaligned ", bad < 0 ? "" : tn[bad]);
    }
}

int cmd_lab_memory(int argc, char **argv)
{
    int want[LAB_MEM_NEXP] = {0}, any = 0;
    long device = -1, reps = 5;
    const char *json = NULL, *v = NULL;
    lab_mem_opts opts = {0};
    for (int i = 1; i < argc; i++) {
        int r;
        if (cli_is_help(argv[i])) {
            usage(stdout);
            return 0;
        }
        if ((r = cli_lab_opt(argc, argv, &i, CMD, &device, &reps, &json)) != 0) {
            if (r < 0) return 2;
            continue;
        }
        if ((r = cli_opt(argc, argv, &i, "--um-free", &v, CMD)) != 0) {
            if (r < 0 || cli_parse_size(CMD, "--um-free", v, &opts.um_free)) return 2;
            if (opts.um_free < ((size_t)64 << 20)) {
                fprintf(stderr, "%s: --um-free %s: at least 64M\n", CMD, v);
                return 2;
            }
            continue;
        }
        if (!strcmp(argv[i], "--list")) {
            for (int e = 0; lab_memory_exp(e); e++)
                printf("%-10s %s  [%s]\n", lab_memory_exp(e)->name, lab_memory_exp(e)->title, lab_memory_exp(e)->source);
            return 0;
        }
        if (!strcmp(argv[i], "--model")) {
            print_model();
            return 0;
        }
        if (argv[i][0] == '-') return cli_unknown(CMD, argv[i]);
        const int e = lab_memory_find(argv[i]);
        if (e < 0 && strcmp(argv[i], "all")) {
            fprintf(stderr, "%s: unknown experiment '%s' (try '%s --list')\n", CMD, argv[i], CMD);
            return 2;
        }
        for (int k = 0; k < LAB_MEM_NEXP; k++) want[k] |= e < 0 || k == e;
        any = 1;
    }
    if (!any)
        for (int k = 0; k < LAB_MEM_NEXP; k++) want[k] = 1;
    const char *why = cli_no_cuda_reason();
    if (why) {
        fprintf(stderr, "%s: the memory experiments need a GPU: %s\n", CMD, why);
        return 1;
    }
    FILE *jf = NULL;
    if (json && !(jf = fopen(json, "w"))) {
        fprintf(stderr, "%s: --json %s: cannot write\n", CMD, json);
        return 1;
    }
    cupat_ctx *ctx = cli_context(CUPAT_BACKEND_CUDA, (int)device);
    if (!ctx) {
        if (jf) fclose(jf);
        return 1;
    }
    char dev[320] = "", date[32] = "", commit[64] = "";
    bench_describe(ctx, dev, sizeof dev, date, sizeof date, commit, sizeof commit);
    printf("cupat lab memory\ndevice: %s\ndate:   %s\ncommit: %s\n%ld timed launches a row, the median\n\n", dev, date,
           commit, reps);
    if (jf) {
        fprintf(jf, "{\"lab\": \"memory\", \"device\": ");
        cli_json_string(jf, dev);
        fprintf(jf, ", \"date\": ");
        cli_json_string(jf, date);
        fprintf(jf, ", \"commit\": ");
        cli_json_string(jf, commit);
        fprintf(jf, ", \"reps\": %ld, \"experiments\": [", reps);
    }
    int bad = 0, fail = 0, first = 1;
    lab_mem_row rows[LAB_MEM_MAX_ROWS];
    for (int e = 0; e < LAB_MEM_NEXP && !fail; e++) {
        if (!want[e]) continue;
        const lab_mem_exp *x = lab_memory_exp(e);
        int n = 0;
        if (lab_memory_run_opts(ctx, e, (int)reps, &opts, rows, &n)) {
            fprintf(stderr, "%s: %s: %s\n", CMD, x->name, cupat_last_error(ctx));
            fail = 1;
            break;
        }
        printf("%s: %s  [%s]\n", x->name, x->title, x->source);
        printf("  %-50s %10s %12s  %-5s %s\n", "row", "ms", x->unit, "check", "note");
        for (int k = 0; k < n; k++) {
            const lab_mem_row *r = &rows[k];
            const char *chk = r->ok < 0 ? "-" : r->ok ? "ok" : "FAIL";
            bad += r->ok == 0;
            if (r->ms > 0) printf("  %-50s %10.4f %12.4g  %-5s %s\n", r->name, r->ms, r->value, chk, r->note);
            else printf("  %-50s %10s %12.6g  %-5s %s\n", r->name, "", r->value, chk, r->note);
        }
        if (e == LAB_MEM_OVERSUB && !opts.um_free)
            printf("  (the working sets are fractions of min(free, 1 GiB); --um-free 4G takes fractions of the\n"
                   "  whole free memory, with a ballast holding the rest: only on a GPU that is yours)\n");
        if (e == LAB_MEM_INFLIGHT)
            printf("  (Little's law: latency = bytes in flight / bandwidth; the rows that fall short of the copy\n"
                   "  ceiling are the ones with too few bytes in flight)\n");
        printf("\n");
        if (jf) {
            fprintf(jf, "%s{\"name\": \"%s\", \"unit\": \"%s\", \"rows\": [", first ? "" : ", ", x->name, x->unit);
            for (int k = 0; k < n; k++) {
                fprintf(jf, "%s{\"name\": ", k ? ", " : "");
                cli_json_string(jf, rows[k].name);
                fprintf(jf, ", \"ms\": %.6g, \"value\": %.6g, \"ok\": %d, \"note\": ", rows[k].ms, rows[k].value, rows[k].ok);
                cli_json_string(jf, rows[k].note);
                fputc('}', jf);
            }
            fprintf(jf, "]}");
            first = 0;
        }
    }
    if (jf) {
        fprintf(jf, "]}\n");
        fclose(jf);
    }
    if (!fail) printf("%s\n", bad ? "memory lab: WRONG results in some rows" : "memory lab: every check OK");
    cupat_destroy(ctx);
    return fail || bad ? 1 : 0;
}
