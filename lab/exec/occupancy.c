/* SPDX-License-Identifier: Apache-2.0 */
/* occupancy.c — the calculator of occupancy.h, its device presets and the
 * books' worked examples. */
#include "exec/occupancy.h"

#include <stdio.h>
#include <string.h>

const char *const occ_limit_names[OCC_NLIM] = {"threads", "blocks", "registers", "shared memory"};

static long round_up(long x, long unit) { return unit > 1 ? (x + unit - 1) / unit * unit : x; }

static int bad(occ_result *r, const char *fmt, const char *what, long long a, long long b)
{
    snprintf(r->why, sizeof r->why, fmt, what, a, b);
    return -1;
}

static int check_device(const occ_device *d, occ_result *r)
{
    if (!d) return bad(r, "%s", "no device", 0, 0);
    if (d->warp_size < 1) return bad(r, "%s: warp size %lld", d->name, d->warp_size, 0);
    if (d->threads_per_sm < d->warp_size || d->blocks_per_sm < 1 || d->regs_per_sm < 1 ||
        d->regs_per_block < 1 || d->max_threads_per_block < 1)
        return bad(r, "%s: a limit is zero (threads per SM %lld, blocks %lld)", d->name, d->threads_per_sm,
                   d->blocks_per_sm);
    if (d->rule == OCC_RULE_HARDWARE && (d->reg_unit < 1 || d->sub_partitions < 1 || d->smem_unit < 1))
        return bad(r, "%s: register unit %lld, sub-partitions %lld", d->name, d->reg_unit, d->sub_partitions);
    return 0;
}

/* Blocks of k per SM by registers; 0 with r->why when one block breaks a
 * register limit. Fills r->regs_per_block. */
static int regs_limit(const occ_device *d, const occ_kernel *k, int wpb, occ_result *r)
{
    if (k->regs > d->max_regs_per_thread) {
        snprintf(r->why, sizeof r->why, "%d registers a thread is above the device's %d", k->regs,
                 d->max_regs_per_thread);
        return 0;
    }
    if (k->regs == 0) {
        r->regs_per_block = 0;
        return OCC_UNLIMITED;
    }
    if (d->rule == OCC_RULE_BOOK) {
        const long per_block = (long)k->regs * k->threads;
        r->regs_per_block = per_block;
        if (per_block > d->regs_per_block) {
            snprintf(r->why, sizeof r->why, "a block needs %ld registers, above the %d a block may have", per_block,
                     d->regs_per_block);
            return 0;
        }
        return (int)(d->regs_per_sm / per_block);
    }
    /* Registers go to warps in units; the block-size check counts the warps
     * rounded up to the sub-partitions (each gets its share at once). */
    const long per_warp = round_up((long)k->regs * d->warp_size, d->reg_unit);
    const long per_block = per_warp * wpb;
    const long checked = per_warp * round_up(wpb, d->sub_partitions);
    r->regs_per_block = per_block;
    if (per_block > d->regs_per_block || checked > d->regs_per_block) {
        snprintf(r->why, sizeof r->why,
                 "a block needs %ld registers (%ld as the hardware checks, warps rounded up to %d "
                 "sub-partitions), above the %d a block may have",
                 per_block, checked, d->sub_partitions, d->regs_per_block);
        return 0;
    }
    /* each sub-partition holds whole warps of its quarter of the file */
    const long warps = (d->regs_per_sm / d->sub_partitions) / per_warp * d->sub_partitions;
    return (int)(warps / wpb);
}

static int smem_limit(const occ_device *d, const occ_kernel *k, occ_result *r)
{
    const int hw = d->rule == OCC_RULE_HARDWARE;
    const size_t total = k->smem + (hw ? d->smem_reserved : 0);
    const size_t alloc = hw ? (size_t)round_up((long)total, (long)d->smem_unit) : total;
    r->smem_per_block = alloc;
    r->optin = k->smem > d->smem_per_block;
    const size_t cap = r->optin ? d->smem_per_block_optin : d->smem_per_block;
    if (k->smem > cap || alloc > cap + (hw ? d->smem_reserved : 0)) {
        snprintf(r->why, sizeof r->why, "%zu bytes of shared memory a block is above the %zu a block may have%s",
                 k->smem, cap, r->optin ? " (opted in)" : "");
        return 0;
    }
    return alloc ? (int)(d->smem_per_sm / alloc) : OCC_UNLIMITED;
}

int occ_compute(const occ_device *d, const occ_kernel *k, occ_result *r)
{
    memset(r, 0, sizeof *r);
    if (check_device(d, r)) return -1;
    if (!k || k->threads < 1 || k->regs < 0)
        return bad(r, "%s: threads %lld, registers %lld: not a kernel", "kernel", k ? k->threads : 0,
                   k ? k->regs : 0);
    const int wpb = (k->threads + d->warp_size - 1) / d->warp_size;
    r->warps_per_block = wpb;
    if (k->threads > d->max_threads_per_block) {
        snprintf(r->why, sizeof r->why, "%d threads a block is above the device's %d", k->threads,
                 d->max_threads_per_block);
        r->limiter = OCC_LIM_WARPS;
        return 0;
    }
    /* The book counts threads; the hardware counts whole warps. */
    r->limit[OCC_LIM_WARPS] = d->rule == OCC_RULE_BOOK ? d->threads_per_sm / k->threads
                                                       : (d->threads_per_sm / d->warp_size) / wpb;
    r->limit[OCC_LIM_BLOCKS] = d->blocks_per_sm;
    r->limit[OCC_LIM_REGS] = regs_limit(d, k, wpb, r);
    if (r->limit[OCC_LIM_REGS] == 0 && r->why[0]) {
        r->limiter = OCC_LIM_REGS;
        return 0;
    }
    r->limit[OCC_LIM_SMEM] = smem_limit(d, k, r);
    if (r->limit[OCC_LIM_SMEM] == 0 && r->why[0]) {
        r->limiter = OCC_LIM_SMEM;
        return 0;
    }
    r->limiter = 0;
    for (int i = 1; i < OCC_NLIM; i++)
        if (r->limit[i] < r->limit[r->limiter]) r->limiter = i;
    r->blocks = r->limit[r->limiter];
    if (r->blocks == 0)
        snprintf(r->why, sizeof r->why, "not one block fits: %s", occ_limit_names[r->limiter]);
    r->warps = r->blocks * wpb;
    r->threads = r->blocks * k->threads;
    r->occupancy = (double)r->warps / (double)(d->threads_per_sm / d->warp_size);
    return 0;
}

int occ_threads_by_regs(const occ_device *d, int regs)
{
    if (!d || regs <= 0) return d ? d->threads_per_sm : 0;
    long t;
    if (d->rule == OCC_RULE_BOOK) {
        t = d->regs_per_sm / regs;
    } else {
        const long per_warp = round_up((long)regs * d->warp_size, d->reg_unit);
        t = (d->regs_per_sm / d->sub_partitions) / per_warp * d->sub_partitions * d->warp_size;
    }
    return (int)(t < d->threads_per_sm ? t : d->threads_per_sm);
}

int occ_regs_to_cliff(const occ_device *d, const occ_kernel *k)
{
    occ_result r0, r;
    if (occ_compute(d, k, &r0) || r0.blocks == 0) return 0;
    occ_kernel t = *k;
    for (t.regs = k->regs + 1; t.regs <= d->max_regs_per_thread; t.regs++)
        if (occ_compute(d, &t, &r) || r.blocks < r0.blocks) return t.regs - k->regs;
    return 0;
}

size_t occ_smem_to_cliff(const occ_device *d, const occ_kernel *k)
{
    occ_result r0, r;
    if (occ_compute(d, k, &r0) || r0.blocks == 0) return 0;
    const size_t step = d->rule == OCC_RULE_HARDWARE ? d->smem_unit : 1;
    const size_t top = d->smem_per_block_optin > d->smem_per_block ? d->smem_per_block_optin : d->smem_per_block;
    occ_kernel t = *k;
    /* the first step that can lose a block: the hardware's next unit, the
     * book's next byte past smem_per_sm / blocks */
    size_t s = k->smem + step;
    if (d->rule == OCC_RULE_BOOK && r0.blocks > 0 && d->smem_per_sm / (size_t)r0.blocks + 1 > s)
        s = d->smem_per_sm / (size_t)r0.blocks + 1;
    else if (d->rule == OCC_RULE_HARDWARE)
        s = (k->smem + d->smem_reserved) / step * step + step - d->smem_reserved;
    for (t.smem = s; t.smem <= top; t.smem += step)
        if (occ_compute(d, &t, &r) || r.blocks < r0.blocks) return t.smem - k->smem;
    return 0;
}

/* ------------------------------------------------------------ presets -- */
/* The figures cudaGetDeviceProperties reports for these GPUs (the CUDA
 * Programming Guide's table of compute capabilities). */
#define KIB ((size_t)1024)
static const occ_device presets[] = {
    {"h100", "NVIDIA H100 (sm_90): 2048 threads, 32 blocks, 64K registers, 228 KiB shared an SM", 9, 0, 32,
     1024, 2048, 32, 65536, 65536, 255, 256, 4, 228 * KIB, 48 * KIB, 227 * KIB, 1 * KIB, 128, OCC_RULE_HARDWARE},
    {"a100", "NVIDIA A100 (sm_80): 2048 threads, 32 blocks, 64K registers, 164 KiB shared an SM", 8, 0, 32,
     1024, 2048, 32, 65536, 65536, 255, 256, 4, 164 * KIB, 48 * KIB, 163 * KIB, 1 * KIB, 128, OCC_RULE_HARDWARE},
    {"rtx2080ti", "NVIDIA RTX 2080 Ti (sm_75): 1024 threads, 16 blocks, 64K registers, 64 KiB shared an SM", 7, 5,
     32, 1024, 1024, 16, 65536, 65536, 255, 256, 4, 64 * KIB, 48 * KIB, 64 * KIB, 0, 256, OCC_RULE_HARDWARE},
    {"gtx1080", "NVIDIA GTX 1080 (sm_61): 2048 threads, 32 blocks, 64K registers, 96 KiB shared an SM", 6, 1, 32,
     1024, 2048, 32, 65536, 65536, 255, 256, 4, 96 * KIB, 48 * KIB, 48 * KIB, 0, 256, OCC_RULE_HARDWARE},
    {"k40c", "NVIDIA Tesla K40c (sm_35): 2048 threads, 16 blocks, 64K registers, 48 KiB shared an SM", 3, 5, 32,
     1024, 2048, 16, 65536, 65536, 255, 256, 4, 48 * KIB, 48 * KIB, 48 * KIB, 0, 256, OCC_RULE_HARDWARE},
    {"g80", "NVIDIA G80 (sm_10), the lecture's: 768 threads, 8 blocks, 8192 registers, 16 KiB shared an SM; "
            "registers allocated to whole blocks (the book's rule)",
     1, 0, 32, 512, 768, 8, 8192, 8192, 127, 1, 1, 16 * KIB, 16 * KIB, 16 * KIB, 0, 1, OCC_RULE_BOOK},
    {"pmpp", "PMPP ch. 4-5's SM: 2048 threads, 32 blocks, 64K registers, 64 KiB shared; the book's arithmetic",
     8, 0, 32, 1024, 2048, 32, 65536, 65536, 255, 1, 1, 64 * KIB, 64 * KIB, 64 * KIB, 0, 1, OCC_RULE_BOOK},
};
#define NPRESETS (sizeof presets / sizeof presets[0])

const occ_device *occ_presets(size_t *count)
{
    *count = NPRESETS;
    return presets;
}

const occ_device *occ_preset(const char *name)
{
    for (size_t i = 0; name && i < NPRESETS; i++)
        if (strcmp(presets[i].name, name) == 0) return &presets[i];
    return NULL;
}

/* ----------------------------------------------------------- examples -- */
/* Each book machine twice where it matters: as the book counts (BOOK) and
 * as a GPU of that shape would (HW, cc 8.0's units and reserve). */
#define PMPP(rule, blocks, smem_sm)                                                                              \
    {"pmpp", "PMPP's SM", 8, 0, 32, 1024, 2048, blocks, 65536, 65536, 255, 256, 4, smem_sm, 64 * KIB, 64 * KIB, \
     (rule) == OCC_RULE_HARDWARE ? 1 * KIB : 0, (rule) == OCC_RULE_HARDWARE ? 128 : 1, rule}
#define EX12 {"ex12", "PMPP ex. 5.12's SM", 8, 0, 32, 1024, 2048, 32, 65536, 65536, 255, 1, 1, 96 * KIB, 96 * KIB, \
              96 * KIB, 0, 1, OCC_RULE_BOOK}
#define G80 {"g80", "G80", 1, 0, 32, 512, 768, 8, 8192, 8192, 127, 1, 1, 16 * KIB, 16 * KIB, 16 * KIB, 0, 1, OCC_RULE_BOOK}
#define PASCAL {"cc6", "a cc 6.x SM", 6, 1, 32, 1024, 2048, 32, 65536, 65536, 255, 256, 4, 96 * KIB, 48 * KIB, \
                48 * KIB, 0, 256, OCC_RULE_HARDWARE}

static const occ_example examples[] = {
    {"M22", "PMPP 4.7", "2,048 threads an SM, 65,536 registers, 32 registers a thread", PMPP(OCC_RULE_BOOK, 32, 64 * KIB),
     {256, 32, 0}, 1, 2048, 1.0, "2,048 threads: 100%", "the hardware agrees: 32 x 32 = 1,024 registers a warp, 16 "
                                                        "warps in each sub-partition's 16,384", 2048, 2048},
    {"M22", "PMPP 4.7", "the same SM, 40 registers a thread", PMPP(OCC_RULE_BOOK, 32, 64 * KIB), {256, 40, 0}, 1,
     1638, 0.80, "1,638 threads (80%)",
     "the hardware keeps 1,536 (75%): a warp takes 40 x 32 = 1,280 registers and each of the 4 sub-partitions "
     "holds 16,384 / 1,280 = 12 whole warps, 48 in all; 1,638 threads is not a whole number of warps", 1638, 1536},
    {"M23", "PMPP 4.7", "16 blocks an SM at most, 64 threads a block", PMPP(OCC_RULE_BOOK, 16, 64 * KIB),
     {64, 0, 0}, 0, 16, 0.50, "16 x 64 = 1,024 threads = 32 warps: 50%", "block-limited", 16, 16},
    {"M33", "PMPP 5.6", "65,536 registers, 2,048 threads; 64 registers a thread", PMPP(OCC_RULE_BOOK, 32, 64 * KIB),
     {256, 64, 0}, 1, 1024, 0.50, "1,024 threads: 50%", "the hardware agrees (2,048 registers a warp, 8 a sub-partition)", 1024, 1024},
    {"M33", "PMPP 5.6", "the same; 128 registers a thread", PMPP(OCC_RULE_BOOK, 32, 64 * KIB), {256, 128, 0}, 1, 512,
     0.25, "512 threads: 25%", "the hardware agrees", 512, 512},
    {"M33", "PMPP 5.6", "64 KiB of shared memory an SM, 16 KiB a block", PMPP(OCC_RULE_BOOK, 32, 64 * KIB),
     {256, 0, 16 * KIB}, 0, 4, 0.50, "4 blocks",
     "since cc 8.0 the driver reserves 1 KiB a block: 17 KiB each, 3 blocks fit in 64 KiB", 4, 3},
    {"M33", "PMPP 5.6", "64 KiB of shared memory an SM, 32 KiB a block", PMPP(OCC_RULE_BOOK, 32, 64 * KIB),
     {256, 0, 32 * KIB}, 0, 2, 0.25, "2 blocks", "with the 1 KiB reserve: 1 block (33 KiB each)", 2, 1},
    {"M33", "PMPP 5.6", "64 registers, 8 KiB shared, 256 threads a block; 65,536 registers, 64 KiB, 2,048 threads",
     PMPP(OCC_RULE_BOOK, 32, 64 * KIB), {256, 64, 8 * KIB}, 0, 4, 0.50,
     "register-limited: 1,024 threads (50%)", "the hardware agrees: 4 blocks by registers, 7 by shared memory "
                                              "with the reserve (9 KiB each), 8 without", 4, 4},
    {"M38", "PMPP ex. 5.12a", "2,048 threads, 32 blocks, 64K registers, 96 KiB shared an SM; 64 threads a block, 27 "
                              "registers, \"4KB of shared memory/SM\"",
     EX12, {64, 27, 4 * KIB}, 0, 32, 1.0, "yes (full occupancy)",
     "read as 4 KiB a block (how 5.6 counts), 32 blocks need 128 KiB: 24 fit, 1,536 threads (75%), "
     "shared-memory-limited; only as 4 KiB for the whole SM, as printed, is the notes' yes right", 24, 19},
    {"M38", "PMPP ex. 5.12b", "the same SM; 256 threads a block, 32 registers, 8 KiB shared", EX12, {256, 32, 8 * KIB},
     0, -1, -1, "no (\"too many threads and registers\")",
     "the notes are wrong: 8 blocks x 256 threads = 2,048, 8 x 256 x 32 = 65,536 registers and 8 x 8 KiB = 64 KiB "
     "<= 96 KiB: full occupancy", 8, 8},
    {"A09", "lecture A, SM resources", "G80: 8 blocks, 768 threads, 8,192 registers; 16x16 blocks, 10 registers",
     G80, {256, 10, 0}, 0, 3, 1.0, "3 blocks (7,680 registers): 768 threads", "registers allocated to blocks", 3, -1},
    {"A09", "lecture A, SM resources", "the same with 11 registers (one more variable)", G80, {256, 11, 0}, 0, 2,
     2.0 / 3.0, "2 blocks (5,632 registers): 512 threads, a third of the warps lost", "the cliff", 2, -1},
    {"G25", "CUDA Guide 8.2.3", "cc 6.x: 512 threads a block, 64 registers", PASCAL, {512, 64, 0}, 0, 2, 0.5,
     "2 blocks (2 x 512 x 64 = 65,536 registers): 32 warps", "the hardware rule", 2, -1},
    {"G25", "CUDA Guide 8.2.3", "the same with 65 registers", PASCAL, {512, 65, 0}, 0, 1, 0.25,
     "1 block: 16 warps", "65 x 32 = 2,080 registers a warp rounds up to 2,304; 7 warps a sub-partition, 28 an SM: "
                          "one 16-warp block", 1, -1},
};
#define NEXAMPLES (sizeof examples / sizeof examples[0])

occ_device occ_as_hardware(const occ_device *d)
{
    occ_device h = *d;
    h.rule = OCC_RULE_HARDWARE;
    h.reg_unit = 256;
    h.sub_partitions = 4;
    h.smem_unit = 128;
    h.smem_reserved = 1 * KIB;
    return h;
}

const occ_example *occ_examples(size_t *count)
{
    *count = NEXAMPLES;
    return examples;
}
