/* test_memory_lab.c — the memory lab (lab/memory).
 * cpu:  the experiment table; PMPP 6.2's figures from the DRAM model (16 GB/s,
 *       4.8 %); Little's law; the bank model's wavefronts (strides 1..33,
 *       broadcast, multicast, 8-byte words); bad arguments, the CPU backend.
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
    static const int small[] = {LAB_MEM_SYMBOLS, LAB_MEM_CONSTANT, LAB_MEM_LOCAL, LAB_MEM_TEXTURE, LAB_MEM_VOLATILE};
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
    check_bad(ctx);
    if (t_backend == CUPAT_BACKEND_CUDA) check_gpu(ctx);
    return test_finish(ctx);
}
