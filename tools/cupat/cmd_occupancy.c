/* cmd_occupancy.c — `cupat occupancy`: the occupancy calculator of
 * lab/exec/occupancy.h on the device present or a preset, the limit each
 * resource sets, the next cliff, and the books' worked examples beside the
 * books' answers. */
#include "cli.h"
#include "commands.h"
#include "exec/occupancy.h"

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
            "\n"
            "How many blocks of a kernel stay resident on one SM, the limit each resource\n"
            "sets (threads, blocks, registers, shared memory), the occupancy, and how many\n"
            "more registers or bytes lose a block (PMPP 4.7, 5.6; CUDA Guide 8.2.3.1).\n"
            "\n"
            "Options:\n"
            "  --threads T    threads a block (1..1024)\n"
            "  --regs R       registers a thread (ptxas -v, cuobjdump --dump-resource-usage; default 0)\n"
            "  --smem BYTES   shared memory a block, static + dynamic (K, M suffixes; default 0)\n"
            "  --device D     a preset or a CUDA device index (default: device 0, else an error)\n"
            "  --rule R       hardware (registers to warps in 256s over 4 sub-partitions, shared\n"
            "                 memory in 128-byte units plus a 1 KiB reserve from cc 8.0) or book\n"
            "                 (the books' arithmetic); default: the device's own\n"
            "  --examples     the books' worked examples: the book's answer, ours, and why they part\n"
            "  --list         the presets\n"
            "  -h, --help     this text\n"
            "\n"
            "Presets:");
    for (size_t i = 0; i < n; i++) fprintf(f, " %s", p[i].name);
    fprintf(f, "\nExit status: 0 success, 1 no device to query, 2 bad arguments.\n");
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

int cmd_occupancy(int argc, char **argv)
{
    long threads = -1, regs = 0;
    size_t smem = 0;
    const char *dev = NULL, *rule = NULL;
    int examples = 0, list = 0, r;
    for (int i = 1; i < argc; i++) {
        const char *v;
        if (cli_is_help(argv[i])) {
            usage(stdout);
            return 0;
        }
        if ((r = cli_opt(argc, argv, &i, "--threads", &v, CMD)) != 0) {
            if (r < 0 || cli_parse_int(CMD, "--threads", v, 1, 1 << 20, &threads)) return 2;
        } else if ((r = cli_opt(argc, argv, &i, "--regs", &v, CMD)) != 0) {
            if (r < 0 || cli_parse_int(CMD, "--regs", v, 0, 1 << 20, &regs)) return 2;
        } else if ((r = cli_opt(argc, argv, &i, "--smem", &v, CMD)) != 0) {
            if (r < 0 || cli_parse_size(CMD, "--smem", v, &smem)) return 2;
        } else if ((r = cli_opt(argc, argv, &i, "--device", &v, CMD)) != 0) {
            if (r < 0) return 2;
            dev = v;
        } else if ((r = cli_opt(argc, argv, &i, "--rule", &v, CMD)) != 0) {
            if (r < 0) return 2;
            rule = v;
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
