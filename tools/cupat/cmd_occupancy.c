/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_occupancy.c — `cupat occupancy`: the occupancy calculator of
 * lab/exec/occupancy.h on the device present or a preset, the limit each
 * resource sets, the next cliff, and the books' worked examples beside the
 * books' answers; with --library, every kernel compiled into libcupat held
 * against the driver's occupancy API (lab/exec/occupancy_library.h). */
#include "cli.h"
#include "commands.h"
#include "exec/occupancy.h"
#include "exec/occupancy_library.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char CMD[] = "cupat occupancy";

static void usage(FILE *f)
{
    size_t n;
    const occ_device *p = occ_presets(&n);
    fprintf(f,
            "Usage: cupat occupancy --threads T [--regs R] [--smem BYTES] [--device D] [--rule R]\n"
            "       cupat occupancy --examples | --list\n"
            "       cupat occupancy --library [--file F] [--containers] [--device N] [--width W]\n"
            "\n"
            "How many blocks of a kernel stay resident on one SM, the limit each resource\n"
            "sets (threads, blocks, registers, shared memory), the occupancy, and how many\n"
            "more registers or bytes lose a block (PMPP 4.7, 5.6; CUDA Guide 8.2.3.1).\n"
            "\n"
            "Options:\n"
            "  --threads T    threads a block (1..1024)\n"
            "  --regs R       registers a thread, 0..255 (ptxas -v, cuobjdump --dump-resource-usage;\n"
            "                 default 0)\n"
            "  --smem BYTES   shared memory a block, static + dynamic (K, M suffixes; default 0)\n"
            "  --device D     a preset or a CUDA device index (default: device 0, else an error)\n"
            "  --rule R       hardware (registers to warps in 256s over 4 sub-partitions, shared\n"
            "                 memory in 128-byte units plus a 1 KiB reserve from cc 8.0) or book\n"
            "                 (the books' arithmetic); default: the device's own\n"
            "  --examples     the books' worked examples: the book's answer, ours, and why they part\n"
            "  --list         the presets\n"
            "  --library      every kernel compiled into libcupat (found in the fatbin containers of\n"
            "                 the library file's .nv_fatbin section): its registers and shared memory,\n"
            "                 and the calculator against cuOccupancyMaxActiveBlocksPerMultiprocessor\n"
            "                 over block sizes 32..max (step 32) and dynamic shared memory 0, 1 KiB,\n"
            "                 16 KiB, the default limit, 100 KiB and the opt-in limit (needs a GPU)\n"
            "  --file F       with --library: walk ELF file F instead (default: the shared libcupat\n"
            "                 this program uses, or the one this build made, or the program itself)\n"
            "  --containers   with --library: list the fatbin containers only (no GPU needed)\n"
            "  --width W      with --library: the kernel-name column (default 56)\n"
            "  -h, --help     this text\n"
            "\n"
            "Presets:");
    for (size_t i = 0; i < n; i++) fprintf(f, " %s", p[i].name);
    fprintf(f, "\nExit status: 0 success, 1 no device to query (or, with --library, a kernel where the\n"
               "calculator and the driver disagree, or a file that cannot be walked), 2 bad arguments.\n");
}

static void print_result(const occ_device *d, const occ_kernel *k)
{
    occ_result r;
    occ_compute(d, k, &r);
    printf("%s\n%s rule\n", d->what, d->rule == OCC_RULE_BOOK ? "book" : "hardware");
    printf("kernel: %d threads (%d warps) a block, %d registers a thread, %zu bytes of shared memory a block\n",
           k->threads, r.warps_per_block, k->regs, k->smem);
    if (r.blocks == 0) {
        printf("cannot launch: %s\n", r.why);
        return;
    }
    printf("  %-14s %7s  %s\n", "limit", "blocks", "why");
    for (int i = 0; i < OCC_NLIM; i++) {
        char lim[16];
        if (r.limit[i] == OCC_UNLIMITED) snprintf(lim, sizeof lim, "-");
        else snprintf(lim, sizeof lim, "%d", r.limit[i]);
        printf("  %-14s %7s  ", occ_limit_names[i], lim);
        switch (i) {
        case OCC_LIM_WARPS: printf("%d warps a block of %d an SM", r.warps_per_block, d->threads_per_sm / d->warp_size); break;
        case OCC_LIM_BLOCKS: printf("the SM's block slots"); break;
        case OCC_LIM_REGS:
            if (k->regs) printf("%ld registers a block of %d an SM", r.regs_per_block, d->regs_per_sm);
            else printf("no registers counted");
            break;
        default:
            if (r.smem_per_block)
                printf("%zu bytes a block%s of %zu an SM%s", r.smem_per_block,
                       d->rule == OCC_RULE_HARDWARE && d->smem_reserved ? " (1 KiB reserve, 128-byte units)" : "",
                       d->smem_per_sm, r.optin ? "; needs the opt-in (cudaFuncSetAttribute)" : "");
            else printf("none used");
        }
        printf("%s\n", i == r.limiter ? "   <- the limit" : "");
    }
    printf("resident: %d blocks, %d warps, %d threads: occupancy %.1f%% (limited by %s)\n", r.blocks, r.warps,
           r.threads, 100 * r.occupancy, occ_limit_names[r.limiter]);
    int rc = occ_regs_to_cliff(d, k);
    size_t sc = occ_smem_to_cliff(d, k);
    if (rc) printf("cliff: %d more register%s a thread (%d) lose%s a block\n", rc, rc > 1 ? "s" : "", k->regs + rc,
                   rc > 1 ? "" : "s");
    if (sc) printf("cliff: %zu more bytes of shared memory a block (%zu) lose a block\n", sc, k->smem + sc);
}

static void print_examples(void)
{
    size_t n;
    const occ_example *ex = occ_examples(&n);
    printf("The books' worked examples: the book's answer, the calculator under the book's rule (the\n"
           "machine as the book states it), and under the hardware's rule of cc 8.0 on that machine.\n\n");
    for (size_t i = 0; i < n; i++) {
        const occ_example *e = &ex[i];
        const char *unit = e->by_regs_only ? "threads" : "blocks";
        int own = e->by_regs_only ? occ_threads_by_regs(&e->device, e->kernel.regs) : 0;
        if (!e->by_regs_only) {
            occ_result r;
            occ_compute(&e->device, &e->kernel, &r);
            own = r.blocks;
        }
        printf("%s  %s: %s\n", e->id, e->source, e->text);
        printf("    book: %s\n", e->book_answer);
        printf("    ours (%s rule): %d %s%s\n", e->device.rule == OCC_RULE_BOOK ? "book" : "hardware", own, unit,
               e->book_blocks < 0 || e->book_blocks == own ? "" : "   <- differs from the book");
        if (e->want_hw >= 0) {
            occ_device h = occ_as_hardware(&e->device);
            int hw = e->by_regs_only ? occ_threads_by_regs(&h, e->kernel.regs) : 0;
            if (!e->by_regs_only) {
                occ_result r;
                occ_compute(&h, &e->kernel, &r);
                hw = r.blocks;
            }
            printf("    hardware rule: %d %s\n", hw, unit);
        }
        printf("    %s\n\n", e->comment);
    }
}

/* The file --library walks: --file, else where libcupat is (the build's
 * libcupat.so when this program links libcupat statically). */
#ifndef CUPAT_SHARED_LIBRARY_FILE
#define CUPAT_SHARED_LIBRARY_FILE ""
#endif

/* "src/bfs/bfs_book.cu" -> "bfs/bfs_book.cu": the last two parts of a path */
static const char *short_source(const char *s)
{
    const char *a = strrchr(s, '/');
    if (!a) return s;
    const char *b = a;
    while (b > s && b[-1] != '/') b--;
    return b > s ? b : s;
}

static int run_library(const char *file, int containers_only, long device, int width)
{
    char path[1024], why[512];
    const char *how = "file";
    if (file) snprintf(path, sizeof path, "%s", file);
    else if (occ_library_file(CUPAT_SHARED_LIBRARY_FILE, path, sizeof path, &how, why, sizeof why)) {
        fprintf(stderr, "%s: %s; name the file with --file\n", CMD, why);
        return 1;
    }
    occ_fatbin f;
    if (occ_fatbin_open(path, &f, why, sizeof why)) {
        fprintf(stderr, "%s: %s\n", CMD, why);
        return 1;
    }
    char b[32];
    printf("%s: %s%s\n", file ? "file" : "libcupat", path,
           !strcmp(how, "hint")      ? " (the shared library this build made; this program links libcupat statically)"
           : !strcmp(how, "program") ? " (this program, which links libcupat statically: its own kernels, and libcupat's that it links)"
                                     : "");
    printf(".nv_fatbin: %s, %zu fatbin containers\n", cli_bytes(b, sizeof b, (double)f.section_size), f.n);
    if (containers_only) {
        printf("  %3s  %-44s %10s  %s\n", "#", "source", "bytes", "entries");
        for (size_t i = 0; i < f.n; i++) {
            char d[160];
            occ_container_describe(&f.c[i], d, sizeof d);
            printf("  %3zu  %-44s %10zu  %s\n", i, f.c[i].source[0] ? short_source(f.c[i].source) : "(device link)",
                   f.c[i].size, d);
        }
        occ_fatbin_close(&f);
        return 0;
    }
    occ_device d;
    char what[256];
    if (occ_device_query((int)device, &d, what, sizeof what, why, sizeof why)) {
        fprintf(stderr, "%s: %s; --library compares against the driver on a GPU (--containers lists the "
                        "containers without one)\n", CMD, why);
        occ_fatbin_close(&f);
        return 1;
    }
    printf("device: %s\n", d.what);
    printf("each kernel: blocks of 32 .. its max threads (step 32) x dynamic shared memory 0, 1 KiB, 16 KiB,\n"
           "its default limit, and opted in: 100 KiB, the opt-in limit; blocks an SM from the calculator\n"
           "(cupat occupancy) beside cuOccupancyMaxActiveBlocksPerMultiprocessor\n");
    occ_lib_report r;
    if (occ_library_check(&f, (int)device, &d, &r, why, sizeof why)) {
        fprintf(stderr, "%s: %s\n", CMD, why);
        occ_fatbin_close(&f);
        return 1;
    }
    char *name = malloc((size_t)width + 1);
    if (!name) {
        fprintf(stderr, "%s: out of host memory\n", CMD);
        occ_lib_report_free(&r);
        occ_fatbin_close(&f);
        return 1;
    }
    size_t ki = 0;
    for (size_t c = 0; c < r.nc; c++) {
        char desc[160];
        occ_container_describe(&f.c[c], desc, sizeof desc);
        printf("\n%s (container %zu: %s)%s", f.c[c].source[0] ? short_source(f.c[c].source) : "device link", c, desc,
               r.c[c].loaded ? "" : r.c[c].foreign ? ": not for this GPU" : ": FAIL");
        if (!r.c[c].loaded || r.c[c].why[0]) printf(" %s", r.c[c].why);
        printf("\n");
        if (!r.c[c].kernels) continue;
        printf("  %-*s %5s %7s %7s %7s %6s %6s  %s\n", width, "kernel", "regs", "static", "max thr", "max dyn",
               "checks", "differ", "check");
        for (; ki < r.nk && r.k[ki].container == (int)c; ki++) {
            const occ_lib_kernel *k = &r.k[ki];
            occ_kernel_display_name(k->name, name, (size_t)width);
            const int bad = k->differ || k->errors;
            printf("  %-*s %5d %7d %7d %7d %6d %6d  %s\n", width, name, k->regs, k->static_smem, k->max_threads,
                   k->max_dyn, k->checks, k->differ + k->explained, bad ? "FAIL" : k->explained ? "ok (explained)" : "ok");
            if (k->reason[0] && k->explained) printf("      differs for a reason: %s\n", k->reason);
            if (k->first[0] && (bad || k->explained)) printf("      first: %s\n", k->first);
        }
    }
    printf("\n%zu kernels, %ld configurations, %ld disagree", r.nk, r.configs, r.differ);
    if (r.explained) printf(" (and %ld differ for a reason the calculator does not model)", r.explained);
    if (r.errors) printf(", %ld driver errors", r.errors);
    if (r.containers_failed) printf(", %d containers failed", r.containers_failed);
    printf("\n");
    const int rc = r.differ || r.errors || r.containers_failed || r.nk == 0 ? 1 : 0;
    free(name);
    occ_lib_report_free(&r);
    occ_fatbin_close(&f);
    return rc;
}

int cmd_occupancy(int argc, char **argv)
{
    long threads = -1, regs = 0;
    size_t smem = 0;
    const char *dev = NULL, *rule = NULL, *file = NULL;
    int examples = 0, list = 0, library = 0, containers = 0, r;
    long width = 56;
    for (int i = 1; i < argc; i++) {
        const char *v;
        if (cli_is_help(argv[i])) {
            usage(stdout);
            return 0;
        }
        if ((r = cli_opt(argc, argv, &i, "--threads", &v, CMD)) != 0) {
            /* the ranges --help gives: CUDA's own limits since cc 2.0 (threads) and
             * 3.5 (registers); a preset below them (g80) says "cannot launch" */
            if (r < 0 || cli_parse_int(CMD, "--threads", v, 1, 1024, &threads)) return 2;
        } else if ((r = cli_opt(argc, argv, &i, "--regs", &v, CMD)) != 0) {
            if (r < 0 || cli_parse_int(CMD, "--regs", v, 0, 255, &regs)) return 2;
        } else if ((r = cli_opt(argc, argv, &i, "--smem", &v, CMD)) != 0) {
            if (r < 0 || cli_parse_size(CMD, "--smem", v, &smem)) return 2;
        } else if ((r = cli_opt(argc, argv, &i, "--device", &v, CMD)) != 0) {
            if (r < 0) return 2;
            dev = v;
        } else if ((r = cli_opt(argc, argv, &i, "--rule", &v, CMD)) != 0) {
            if (r < 0) return 2;
            rule = v;
        } else if ((r = cli_opt(argc, argv, &i, "--file", &v, CMD)) != 0) {
            if (r < 0) return 2;
            file = v;
            library = 1;
        } else if ((r = cli_opt(argc, argv, &i, "--width", &v, CMD)) != 0) {
            if (r < 0 || cli_parse_int(CMD, "--width", v, 8, 4096, &width)) return 2;
        } else if (!strcmp(argv[i], "--library")) {
            library = 1;
        } else if (!strcmp(argv[i], "--containers")) {
            containers = 1;
        } else if (!strcmp(argv[i], "--examples")) {
            examples = 1;
        } else if (!strcmp(argv[i], "--list")) {
            list = 1;
        } else {
            return cli_unknown(CMD, argv[i]);
        }
    }
    if (rule && strcmp(rule, "book") && strcmp(rule, "hardware")) {
        fprintf(stderr, "%s: --rule %s: want book or hardware\n", CMD, rule);
        return 2;
    }
    if (list) {
        size_t n;
        const occ_device *p = occ_presets(&n);
        for (size_t i = 0; i < n; i++) printf("%-10s %s\n", p[i].name, p[i].what);
        return 0;
    }
    if (examples) {
        print_examples();
        return 0;
    }
    if (containers && !library) {
        fprintf(stderr, "%s: --containers goes with --library\n", CMD);
        return 2;
    }
    if (library) {
        long idx = 0;
        if (dev && cli_parse_int(CMD, "--device", dev, 0, 1023, &idx)) {
            fprintf(stderr, "%s: --library compares on a CUDA device: --device takes its index\n", CMD);
            return 2;
        }
        return run_library(file, containers, idx, (int)width);
    }
    if (threads < 0) {
        fprintf(stderr, "%s: --threads is required (or --examples, --list); try '%s --help'\n", CMD, CMD);
        return 2;
    }
    occ_device d;
    char what[256], why[256];
    const occ_device *p = dev ? occ_preset(dev) : NULL;
    if (p) {
        d = *p;
    } else {
        long idx = 0;
        if (dev && cli_parse_int(CMD, "--device", dev, 0, 1023, &idx)) {
            size_t n;
            const occ_device *ps = occ_presets(&n);
            fprintf(stderr, "%s: --device %s is neither a device index nor a preset (", CMD, dev);
            for (size_t i = 0; i < n; i++) fprintf(stderr, "%s%s", i ? " " : "", ps[i].name);
            fprintf(stderr, ")\n");
            return 2;
        }
        if (occ_device_query((int)idx, &d, what, sizeof what, why, sizeof why)) {
            fprintf(stderr, "%s: %s; name a preset with --device (e.g. --device h100)\n", CMD, why);
            return 1;
        }
    }
    if (rule && !strcmp(rule, "book")) d.rule = OCC_RULE_BOOK;
    else if (rule && d.rule == OCC_RULE_BOOK) d = occ_as_hardware(&d); /* a book machine as cc 8.0 would run it */
    occ_kernel k = {(int)threads, (int)regs, smem};
    occ_result res;
    if (occ_compute(&d, &k, &res) < 0) {
        fprintf(stderr, "%s: %s\n", CMD, res.why);
        return 2;
    }
    print_result(&d, &k);
    return 0;
}
