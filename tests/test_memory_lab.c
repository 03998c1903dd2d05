/* SPDX-License-Identifier: Apache-2.0 */
/* test_memory_lab.c — the memory lab (lab/memory).
 * cpu:  the experiment table; PMPP 6.2's figures from the DRAM model (16 GB/s,
 *       4.8 %); Little's law; the bank model's wavefronts (strides 1..33,
 *       broadcast, multicast, 8-byte words); the carveout rule (PCCP's 50 % of
 *       96 KB -> 64 KB, the Guide's 50 % of 164 KB -> 100 KB, cc 9.0's steps);
 *       the shared-memory carves (lecture 10's double[] layout, padded and
 *       packed int / float / char / double); the managed working-set bound;
 *       bad arguments, the CPU backend.
 * cuda: every experiment runs and no row's check fails (the fenced litmus
 *       test must see no violation; the volatile poll must see the flag); timed
 *       rows have a positive time. With --small (compute-sanitizer) the small
 *       experiments only. */
#include "testutil.h"

#include "memory/memory.h"

static void check_model(void)
{
    for (int e = 0; e < LAB_MEM_NEXP; e++) {
        const lab_mem_exp *x = lab_memory_exp(e);
        CHECK(x && x->name && x->title && x->source && x->unit && lab_memory_find(x->name) == e, "experiment %d", e);
    }
    CHECK(lab_memory_exp(LAB_MEM_NEXP) == NULL && lab_memory_find("nope") == -1, "table ends");
    CHECK(lab_memory_dram_gbs(64, 1.0, 2) == 16.0, "PMPP: 64-bit DDR at 1 GHz = 16 GB/s");
    CHECK(fabs(100 * lab_memory_channel_use(20) - 4.76) < 0.01, "PMPP: 20:1 -> 4.8 %%");
    CHECK(lab_memory_bytes_in_flight(3000, 600) == 1.8e6, "Little's law");
    uint32_t a[32];
    static const int strides[] = {1, 2, 4, 8, 16, 32, 33, 3, 64};
    static const int ways[] = {1, 2, 4, 8, 16, 32, 1, 1, 32};
    for (size_t k = 0; k < sizeof strides / sizeof strides[0]; k++) {
        for (int l = 0; l < 32; l++) a[l] = (uint32_t)(l * strides[k]) * 4;
        CHECK(lab_memory_wavefronts(a, 4) == ways[k], "stride %d: %d ways", strides[k], lab_memory_wavefronts(a, 4));
    }
    for (int l = 0; l < 32; l++) a[l] = 4 * 5;
    CHECK(lab_memory_wavefronts(a, 4) == 1, "broadcast");
    for (int l = 0; l < 32; l++) a[l] = (uint32_t)(l / 4) * 4 * 32; /* 8 words, all in bank 0 */
    CHECK(lab_memory_wavefronts(a, 4) == 8, "multicast to one bank: 8 words");
    for (int l = 0; l < 32; l++) a[l] = (uint32_t)l * 8;
    CHECK(lab_memory_wavefronts(a, 8) == 2, "8-byte words: 256 bytes, 2 wavefronts");
    for (int l = 0; l < 32; l++) a[l] = l < 16 ? (uint32_t)l * 4 : UINT32_MAX;
    CHECK(lab_memory_wavefronts(a, 4) == 1, "half the lanes");
}

static void check_carveout_rule(void)
{
    const int *caps = NULL;
    int n = lab_memory_smem_caps(7, 0, &caps);
    CHECK(n == 6 && caps[n - 1] == 96, "cc 7.0: 6 capacities up to 96 KB (%d)", n);
    CHECK(lab_memory_carveout_kb(50, caps, n, 0) == 64, "PCCP 5.1: 50 %% of 96 KB -> 64 KB");
    n = lab_memory_smem_caps(8, 0, &caps);
    CHECK(n == 8 && caps[n - 1] == 164, "cc 8.0: up to 164 KB");
    CHECK(lab_memory_carveout_kb(50, caps, n, 0) == 100, "Guide: 50 %% of 164 KB -> 100 KB, not 82");
    n = lab_memory_smem_caps(8, 6, &caps);
    CHECK(n == 6 && caps[n - 1] == 100, "cc 8.6: up to 100 KB");
    n = lab_memory_smem_caps(9, 0, &caps);
    CHECK(n == 10 && caps[n - 1] == 228, "cc 9.0: up to 228 KB");
    static const int pct[] = {0, 1, 10, 25, 40, 50, 75, 100};
    static const int kb[] = {0, 8, 32, 64, 100, 132, 196, 228};
    for (size_t k = 0; k < sizeof pct / sizeof pct[0]; k++)
        CHECK(lab_memory_carveout_kb(pct[k], caps, n, 0) == kb[k], "cc 9.0: %d %% -> %d KB (%d)", pct[k], kb[k],
              lab_memory_carveout_kb(pct[k], caps, n, 0));
    CHECK(lab_memory_carveout_kb(0, caps, n, 8) == 8, "0 %% with an 8 KB block: 8 KB");
    CHECK(lab_memory_carveout_kb(50, caps, n, 140) == 164, "a block larger than the preference wins");
    CHECK(lab_memory_carveout_kb(100, caps, n, 229) == -1, "a block larger than any capacity");
    CHECK(lab_memory_carveout_kb(-1, caps, n, 0) == -1 && lab_memory_carveout_kb(101, caps, n, 0) == -1,
          "out of range");
    CHECK(lab_memory_smem_caps(10, 0, &caps) == 0 && caps == NULL, "unknown cc");
}

static void check_carve(void)
{
    size_t off[LAB_CARVE_NTYPES];
    CHECK(lab_memory_carve_size(LAB_CARVE_INT) == 4 && lab_memory_carve_size(LAB_CARVE_CHAR) == 1 &&
              lab_memory_carve_size(LAB_CARVE_DOUBLE) == 8 && lab_memory_carve_size(9) == 0,
          "type sizes");
    /* lecture 10: float at data[0], double at data[4], int at data[12] of a double[] */
    const size_t l10[LAB_CARVE_NTYPES] = {32, 8, 0, 8};
    const int o10[] = {LAB_CARVE_FLOAT, LAB_CARVE_DOUBLE, LAB_CARVE_INT};
    size_t bytes = lab_memory_carve(l10, o10, 3, 1, off);
    CHECK(off[LAB_CARVE_FLOAT] == 0 && off[LAB_CARVE_DOUBLE] == 4 * 8 && off[LAB_CARVE_INT] == 12 * 8 && bytes == 224,
          "lecture 10 layout: %zu %zu %zu, %zu bytes", off[LAB_CARVE_FLOAT], off[LAB_CARVE_DOUBLE], off[LAB_CARVE_INT],
          bytes);
    CHECK(lab_memory_carve_misaligned(l10, off) == -1, "lecture 10 layout aligned");
    const size_t c4[LAB_CARVE_NTYPES] = {33, 65, 37, 129};
    const int o4[] = {LAB_CARVE_INT, LAB_CARVE_FLOAT, LAB_CARVE_CHAR, LAB_CARVE_DOUBLE};
    bytes = lab_memory_carve(c4, o4, 4, 1, off);
    CHECK(off[0] == 0 && off[1] == 132 && off[2] == 392 && off[3] == 432 && bytes == 432 + 129 * 8,
          "padded: %zu %zu %zu %zu, %zu bytes", off[0], off[1], off[2], off[3], bytes);
    CHECK(lab_memory_carve_misaligned(c4, off) == -1, "padded: aligned");
    bytes = lab_memory_carve(c4, o4, 4, 0, off);
    CHECK(off[3] == 429 && bytes == 429 + 129 * 8, "packed: double at %zu", off[3]);
    CHECK(lab_memory_carve_misaligned(c4, off) == LAB_CARVE_DOUBLE, "packed: the double is misaligned");
    /* char first: the int after it is the misaligned one when packed */
    const int oc[] = {LAB_CARVE_CHAR, LAB_CARVE_INT};
    const size_t cc[LAB_CARVE_NTYPES] = {4, 0, 3, 0};
    lab_memory_carve(cc, oc, 2, 0, off);
    CHECK(off[LAB_CARVE_INT] == 3 && lab_memory_carve_misaligned(cc, off) == LAB_CARVE_INT, "packed char then int");
    lab_memory_carve(cc, oc, 2, 1, off);
    CHECK(off[LAB_CARVE_INT] == 4 && lab_memory_carve_misaligned(cc, off) == -1, "padded char then int");
}

static void check_um_bound(void)
{
    const size_t G = (size_t)1 << 30, M2 = (size_t)2 << 20;
    static const int pct[] = {25, 50, 90, 100, 0};
    size_t out[5];
    lab_memory_um_sizes(80 * G, 256 * G, pct, 5, out);
    CHECK(out[0] == 20 * G && out[1] == 40 * G && out[2] == 72 * G, "fractions of 80 GiB free");
    CHECK(out[3] == 72 * G, "never past 90 %% of the free memory");
    CHECK(out[4] == 80 * G / 100 / M2 * M2, "at least 1 %%");
    lab_memory_um_sizes(80 * G, 64 * G, pct, 3, out);
    CHECK(out[0] == 20 * G && out[1] == 32 * G && out[2] == 32 * G, "at most half the host's memory");
    lab_memory_um_sizes(3 * M2, 128 * G, pct, 3, out);
    CHECK(out[0] == 0 && out[1] == M2 && out[2] == 2 * M2, "2 MiB steps (1.5 / 3 / 5.4 MiB), 0 below");
    for (int k = 0; k < 3; k++) CHECK(out[k] % M2 == 0, "whole 2 MiB");
}

static void check_bad(cupat_ctx *ctx)
{
    lab_mem_row rows[LAB_MEM_MAX_ROWS];
    int n = 0;
    const cupat_status INV = CUPAT_ERROR_INVALID_VALUE;
    CHECK_FAILS(ctx, INV, "experiment = 99", lab_memory_run(ctx, 99, 1, rows, &n));
    CHECK_FAILS(ctx, INV, "reps = 0", lab_memory_run(ctx, LAB_MEM_CACHE, 0, rows, &n));
    CHECK_FAILS(ctx, INV, "rows is NULL", lab_memory_run(ctx, LAB_MEM_CACHE, 1, NULL, &n));
    CHECK_FAILS(NULL, INV, "ctx is NULL", lab_memory_run(NULL, LAB_MEM_CACHE, 1, rows, &n));
    if (t_backend == CUPAT_BACKEND_CPU)
        CHECK_FAILS(ctx, CUPAT_ERROR_NOT_SUPPORTED, "CUDA backend", lab_memory_run(ctx, LAB_MEM_SYMBOLS, 1, rows, &n));
}

static void check_gpu(cupat_ctx *ctx)
{
    static const int small[] = {LAB_MEM_SYMBOLS, LAB_MEM_CONSTANT, LAB_MEM_LOCAL, LAB_MEM_TEXTURE, LAB_MEM_VOLATILE,
                                LAB_MEM_CARVE};
    for (int e = 0; e < LAB_MEM_NEXP; e++) {
        int run = !t_small;
        for (size_t k = 0; k < sizeof small / sizeof small[0]; k++) run |= small[k] == e;
        if (!run) continue;
        lab_mem_row rows[LAB_MEM_MAX_ROWS];
        int n = 0;
        CHECK_OK(ctx, lab_memory_run(ctx, e, 2, rows, &n));
        CHECK(n > 0, "%s: rows", lab_memory_exp(e)->name);
        for (int k = 0; k < n; k++) {
            printf("%-9s %-50s %10.4f ms %12.4g %s  %s\n", lab_memory_exp(e)->name, rows[k].name, rows[k].ms, rows[k].value,
                   rows[k].ok < 0 ? "-" : rows[k].ok ? "ok" : "FAIL", rows[k].note);
            CHECK(rows[k].ok != 0, "%s / %s: %s", lab_memory_exp(e)->name, rows[k].name, rows[k].note);
            CHECK(rows[k].ms >= 0, "%s / %s: time", lab_memory_exp(e)->name, rows[k].name);
        }
    }
}

int main(int argc, char **argv)
{
    cupat_ctx *ctx = test_init(argc, argv);
    check_model();
    check_carveout_rule();
    check_carve();
    check_um_bound();
    check_bad(ctx);
    if (t_backend == CUPAT_BACKEND_CUDA) check_gpu(ctx);
    return test_finish(ctx);
}
