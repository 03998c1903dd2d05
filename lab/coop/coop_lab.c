/* SPDX-License-Identifier: Apache-2.0 */
/* coop_lab.c — the experiments of `cupat lab coop` as a table, their
 * argument checks, and the host references (tile and coalesced-group
 * collectives, the Jacobi iteration) the kernels are checked against and
 * the tests check on the CPU. The kernels are in coop.cu. */
#include "coop/coop.h"

#include "internal.h"

#include <string.h>

static const lab_exp exps[LAB_COOP_NEXP] = {
    [LAB_COOP_BLOCK] = {"block", "this_thread_block(): thread_rank, group_index, dim_threads; a block reduction with "
                                 "block.sync()",
                        "Guide 11.4.1.1 (G61)", "Gelem/s"},
    [LAB_COOP_TILES] = {"tiles", "tiled_partition<32/16/8/4>: cg::reduce, cg::inclusive_scan; dynamic tiled_partition "
                                 "(thread_group: sync only, collectives through shared memory)",
                        "Guide 11.4.2, 11.6 (G63)", "Gelem/s"},
    [LAB_COOP_COALESCED] = {"coalesced", "coalesced_threads() after divergence: thread_rank, size, reduce, "
                                         "inclusive_scan over the lanes that took the branch",
                            "Guide 11.4.2.3, 11.6", "lanes"},
    [LAB_COOP_GRID] = {"grid", "cudaLaunchCooperativeKernel: MaxActiveBlocksPerMultiprocessor x SMs blocks run, one "
                               "more is refused; grid_group's sizes; grid.is_valid() under <<< >>>",
                       "Guide 11.4.1.3, 11.7 (G62, G26)", "blocks"},
    [LAB_COOP_REDUCE] = {"reduce", "a sum in one cooperative kernel (grid.sync()) against two launches; the library's "
                                   "cupat_reduce and its coop_grid scan",
                         "Guide 11.4.1.3; src/scan/scan_multi.cu", "GB/s"},
    [LAB_COOP_ITERATE] = {"iterate", "100 Jacobi steps: grid.sync() between steps (also split arrive / wait) against "
                                     "one launch a step",
                          "Guide 11.4.1.3, 11.6.1 (G62, G63)", "us/step"},
};

const lab_exp *lab_coop_exp(int e)
{
    return e >= 0 && e < LAB_COOP_NEXP ? &exps[e] : NULL;
}

int lab_coop_find(const char *name)
{
    for (int e = 0; name && e < LAB_COOP_NEXP; e++)
        if (!strcmp(exps[e].name, name)) return e;
    return -1;
}

cupat_status lab_coop_run(cupat_ctx *ctx, int e, int reps, lab_row rows[LAB_MAX_ROWS], int *nrows)
{
    if (!ctx) return cupat__fail(NULL, CUPAT_ERROR_INVALID_VALUE, "lab coop: ctx is NULL");
    if (e < 0 || e >= LAB_COOP_NEXP)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab coop: experiment = %d (0 to %d)", e,
                           LAB_COOP_NEXP - 1);
    if (reps < 1 || reps > 1000)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab coop: reps = %d (1 to 1000)", reps);
    if (!rows || !nrows)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab coop: %s is NULL", !rows ? "rows" : "nrows");
    if (cupat_get_backend(ctx) != CUPAT_BACKEND_CUDA)
        return cupat__fail(ctx, CUPAT_ERROR_NOT_SUPPORTED, "lab coop: the experiments need the CUDA backend");
    memset(rows, 0, sizeof(lab_row) * LAB_MAX_ROWS);
    *nrows = 0;
    return cupat__lab_coop_run(ctx, e, reps, rows, nrows);
}

/* ----------------------------------------------------- host models -- */

void lab_coop_tile_ref(const uint32_t *v, size_t n, unsigned tile, uint32_t *red, uint32_t *scan)
{
    for (size_t t0 = 0; tile && t0 + tile <= n; t0 += tile) {
        uint32_t s = 0;
        for (unsigned k = 0; k < tile; k++) scan[t0 + k] = s += v[t0 + k];
        for (unsigned k = 0; k < tile; k++) red[t0 + k] = s;
    }
}

int lab_coop_masked_ref(const uint32_t v[32], uint32_t mask, unsigned lane, uint32_t *red, uint32_t *scan,
                        unsigned *rank)
{
    if (lane > 31 || !(mask >> lane & 1)) return -1;
    uint32_t s = 0, p = 0;
    unsigned r = 0;
    for (unsigned l = 0; l < 32; l++) {
        if (!(mask >> l & 1)) continue;
        s += v[l];
        if (l <= lane) p += v[l];
        r += l < lane;
    }
    *red = s, *scan = p, *rank = r;
    return 0;
}

void lab_coop_jacobi_ref(float *a, float *tmp, size_t n, int steps)
{
    if (n < 2) return;
    for (int s = 0; s < steps; s++) {
        float *src = s % 2 ? tmp : a, *dst = s % 2 ? a : tmp;
        dst[0] = src[0], dst[n - 1] = src[n - 1];
        for (size_t i = 1; i + 1 < n; i++) {
            const float sum = src[i - 1] + src[i + 1];
            dst[i] = 0.5f * sum;
        }
    }
    if (steps % 2) memcpy(a, tmp, n * sizeof *a);
}

uint32_t lab_coop_word(size_t i)
{
    uint64_t z = (uint64_t)i * 0x9E3779B97F4A7C15ull + 0x1234567ull; /* splitmix64's finalizer */
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (uint32_t)(z ^ (z >> 31));
}

float lab_coop_jacobi_init(size_t i)
{
    return (float)(lab_coop_word(i) >> 8) * (1.0f / 16777216.0f);
}
