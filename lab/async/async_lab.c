/* SPDX-License-Identifier: Apache-2.0 */
/* async_lab.c — the experiments of `cupat lab async` as a table, their
 * argument checks, and the host models (the weighted tile sums, what each
 * block of a grid should write, the barrier loop, the swizzle's bank
 * conflicts) that the tests check on the CPU. The kernels and their host
 * halves are in async.cu (harness, barrier, warpspec), async_copy.cu
 * (memcpy_async, alignment, entanglement, pipeline) and async_tma.cu. */
#include "async/async.h"

#include "internal.h"

#include <stdlib.h>
#include <string.h>

static const lab_exp exps[LAB_ASY_NEXP] = {
    [LAB_ASY_BARRIER] = {"barrier",
                         "cuda::barrier arrive_and_wait and split arrive / wait (work between) against "
                         "__syncthreads: ns a phase, blocks of 128 / 256 / 1024",
                         "Guide 10.26.1-10.26.4 Asynchronous Barrier (G44, G45)", "ns/phase"},
    [LAB_ASY_WARPSPEC] = {"warpspec",
                          "producer warps fill a double buffer, consumer warps compute, two barriers a buffer; "
                          "against all threads loading then computing",
                          "Guide 10.26.5 Spatial Partitioning (G46)", "GB/s"},
    [LAB_ASY_MEMCPY] = {"memcpy",
                        "copy and compute: register staging against cooperative_groups::memcpy_async and "
                        "cuda::memcpy_async with a barrier and with a pipeline",
                        "Guide 10.27.1-10.27.4 (G47, G48); 11.6.2 (G64)", "GB/s"},
    [LAB_ASY_ALIGN] = {"align",
                       "memcpy_async from sources aligned to 4 / 8 / 16 / 128 bytes; cuda::aligned_size_t; "
                       "what the library's dispatch makes of each",
                       "Guide 10.27.6.1-10.27.6.2 Alignment, Trivially copyable (G49)", "GB/s"},
    [LAB_ASY_ENTANGLE] = {"entangle",
                          "per-thread pipelines committed and waited from a diverged warp, against the same "
                          "after __syncwarp",
                          "Guide 10.27.6.3-10.27.6.6 Warp Entanglement (G50)", "GB/s"},
    [LAB_ASY_PIPELINE] = {"pipeline",
                          "cuda::pipeline single stage, 2-4 stages (pipeline_shared_state), partitioned, "
                          "<cuda_pipeline.h> primitives, against raw cp.async",
                          "Guide 10.28.1-10.28.4 (G51, G52, G53, G54)", "GB/s"},
    [LAB_ASY_BULK] = {"bulk",
                      "TMA 1D: cp.async.bulk into an mbarrier ring of 1 / 2 / 4 stages, 8 and 32 KiB tiles, "
                      "against ordinary loads and cp.async",
                      "Guide 10.29 TMA (G55); PTX cp.async.bulk, mbarrier", "GB/s"},
    [LAB_ASY_SWIZZLE] = {"swizzle",
                         "TMA 2D: a 32 x 32 tile's shared-memory image with swizzle none / 32B / 64B / 128B "
                         "against the layout model; out-of-bounds fill",
                         "Guide 10.29 TMA (G55); cuTensorMapEncodeTiled", "words"},
    [LAB_ASY_TENSOR] = {"tensor",
                        "TMA 2D tile loads and stores (each swizzle mode) in a copy and a transpose, against "
                        "ordinary loads of the same tiles",
                        "Guide 10.29 TMA (G55); PTX cp.async.bulk.tensor", "GB/s"},
};

const lab_exp *lab_async_exp(int e)
{
    return e >= 0 && e < LAB_ASY_NEXP ? &exps[e] : NULL;
}

int lab_async_find(const char *name)
{
    for (int e = 0; name && e < LAB_ASY_NEXP; e++)
        if (!strcmp(exps[e].name, name)) return e;
    return -1;
}

int lab_async_need(int e)
{
    if (e < 0 || e >= LAB_ASY_NEXP) return -1;
    return e == LAB_ASY_BULK || e == LAB_ASY_SWIZZLE || e == LAB_ASY_TENSOR ? 90 : 80;
}

cupat_status lab_async_run(cupat_ctx *ctx, int e, int reps, lab_row rows[LAB_MAX_ROWS], int *nrows)
{
    if (!ctx) return cupat__fail(NULL, CUPAT_ERROR_INVALID_VALUE, "lab async: ctx is NULL");
    if (e < 0 || e >= LAB_ASY_NEXP)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab async: experiment = %d (0 to %d)", e,
                           LAB_ASY_NEXP - 1);
    if (reps < 1 || reps > 1000)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab async: reps = %d (1 to 1000)", reps);
    if (!rows || !nrows)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab async: %s is NULL", !rows ? "rows" : "nrows");
    if (cupat_get_backend(ctx) != CUPAT_BACKEND_CUDA)
        return cupat__fail(ctx, CUPAT_ERROR_NOT_SUPPORTED, "lab async: the experiments need the CUDA backend");
    memset(rows, 0, sizeof(lab_row) * LAB_MAX_ROWS);
    *nrows = 0;
    return cupat__lab_async_run(ctx, e, reps, rows, nrows);
}

/* ----------------------------------------------------- host models -- */

int lab_async_tile_sums(uint32_t *sums, size_t ntiles, size_t off, int heavy)
{
    uint32_t *tab = NULL;
    if (heavy) { /* lab_async_heavy depends on the low 16 bits through mix16 */
        tab = malloc(65536 * sizeof *tab);
        if (!tab) return -1;
        for (uint32_t y = 0; y < 65536; y++) tab[y] = lab_async_mix16(y);
    }
    for (size_t g = 0; g < ntiles; g++) {
        uint32_t s = 0;
        const size_t base = off + g * LAB_ASY_TILE_WORDS;
        for (uint32_t j = 0; j < LAB_ASY_TILE_WORDS; j++) {
            uint32_t x = lab_async_word(base + j);
            if (tab) x = tab[x & 0xFFFFu] ^ x;
            s += x * lab_async_weight(j);
        }
        sums[g] = s;
    }
    free(tab);
    return 0;
}

void lab_async_block_expect(const uint32_t *sums, size_t ntiles, unsigned per, unsigned grid, uint32_t *want)
{
    const size_t nk = per ? ntiles / per : 0;
    for (unsigned b = 0; b < grid; b++) want[b] = 0;
    for (size_t k = 0; grid && k < nk; k++)
        for (unsigned u = 0; u < per; u++) want[k % grid] += sums[k * per + u];
}

int lab_async_phase_model(unsigned n, int phases, int work, uint32_t *out)
{
    if (n < 1 || n > 1024) return -1;
    uint32_t *v = malloc(2 * (size_t)n * sizeof *v);
    if (!v) return -1;
    uint32_t *w = v + n;
    for (unsigned t = 0; t < n; t++) v[t] = t * 0x9E3779B1u + 1u;
    for (int p = 0; p < phases; p++) {
        for (unsigned t = 0; t < n; t++) w[t] = 3u * v[t] + v[(t + 1) % n];
        memcpy(v, w, n * sizeof *v);
    }
    for (unsigned t = 0; t < n; t++) {
        uint32_t x = t;
        for (long k = 0; k < (long)phases * work; k++) x = lab_async_xorshift(x);
        out[t] = v[t] ^ x;
    }
    free(v);
    return 0;
}

int lab_async_ways(unsigned mode, int column)
{
    int worst = 0;
    for (unsigned c = 0; c < 32; c++) {
        /* the distinct words a bank serves for this warp's 32 accesses */
        uint32_t word[32];
        int bank_n[32] = {0};
        for (unsigned l = 0; l < 32; l++) {
            const uint32_t o = column ? lab_async_tile_offset(mode, l, c) : lab_async_tile_offset(mode, c, l);
            word[l] = o / 4u;
            int seen = 0;
            for (unsigned k = 0; k < l && !seen; k++) seen = word[k] == word[l];
            if (!seen) bank_n[word[l] % 32u]++;
        }
        for (int b = 0; b < 32; b++) worst = bank_n[b] > worst ? bank_n[b] : worst;
    }
    return worst;
}
