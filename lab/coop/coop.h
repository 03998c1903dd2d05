/* SPDX-License-Identifier: Apache-2.0 */
/* coop.h — the cooperative-groups lab (`cupat lab coop`, issue 23; CUDA
 * Guide 11; INVENTORY G61-G63): thread_block, tiled partitions (static
 * thread_block_tile<32/16/8/4> and dynamic thread_group), coalesced groups
 * after divergence, their collectives (cg::reduce, cg::inclusive_scan,
 * sync) checked against the host; grid_group with cudaLaunchCooperativeKernel:
 * the largest co-resident grid and the refusal beyond it, a one-kernel
 * reduction with grid.sync() against two launches (and the library's
 * reduce and coop_grid scan), and a Jacobi iteration with grid.sync()
 * between steps against one launch a step.
 * Each experiment fills rows (lab_rows.h); the host references below are
 * plain C the tests check without a GPU. Not library API. */
#ifndef CUPAT_LAB_COOP_H
#define CUPAT_LAB_COOP_H

#include "cupat.h"
#include "rows/lab_rows.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
    LAB_COOP_BLOCK,     /* this_thread_block(): indices, sizes; a block reduction with block.sync() */
    LAB_COOP_TILES,     /* tiled_partition<32/16/8/4>: reduce + inclusive_scan; dynamic tiles through shared memory */
    LAB_COOP_COALESCED, /* coalesced_threads() after divergence: rank, size, reduce, inclusive_scan */
    LAB_COOP_GRID,      /* cooperative launch: the largest co-resident grid, one block more refused */
    LAB_COOP_REDUCE,    /* one kernel with grid.sync() against two launches; the library's reduce and scan */
    LAB_COOP_ITERATE,   /* 100 Jacobi steps: grid.sync() between steps against one launch a step */
    LAB_COOP_NEXP
};

const lab_exp *lab_coop_exp(int e); /* NULL past the end */
int lab_coop_find(const char *name); /* -1 when unknown */

/* Run experiment e: rows[0 .. *nrows). reps: timed launches a row (1..1000).
 * CUDA backend only; a wrong row is a row with ok = 0, not an error. */
cupat_status lab_coop_run(cupat_ctx *ctx, int e, int reps, lab_row rows[LAB_MAX_ROWS], int *nrows);

/* ----------------------------------------------------- host models -- */

/* Tiles of `tile` consecutive elements (n a multiple of tile): red[i] = the
 * sum of i's tile, scan[i] = the inclusive sum up to i inside it (u32,
 * wrapping): what cg::reduce and cg::inclusive_scan give a tile. */
void lab_coop_tile_ref(const uint32_t *v, size_t n, unsigned tile, uint32_t *red, uint32_t *scan);
/* One lane of a coalesced group whose lanes are `mask` (bit l = lane l) in
 * a warp holding v[32]: the group's sum, the inclusive sum over its lanes
 * up to `lane`, and lane's rank (set lanes below it). -1 when lane is not
 * in mask. */
int lab_coop_masked_ref(const uint32_t v[32], uint32_t mask, unsigned lane, uint32_t *red, uint32_t *scan,
                        unsigned *rank);
/* `steps` Jacobi steps on a 1D array of n >= 2: b[i] = 0.5f * (a[i-1] +
 * a[i+1]) inside, the two ends held; a holds the result (tmp: n floats).
 * Float operations as the kernels do them (an add, then a multiply by 0.5:
 * exact to compare). */
void lab_coop_jacobi_ref(float *a, float *tmp, size_t n, int steps);
/* The initial array of the iterate experiment: deterministic values in [0, 1). */
float lab_coop_jacobi_init(size_t i);
/* The input words of the collective experiments (u32, mixed bits). */
uint32_t lab_coop_word(size_t i);

/* ---------------------------------------------------- the kernels (.cu) -- */
cupat_status cupat__lab_coop_run(cupat_ctx *ctx, int e, int reps, lab_row *rows, int *nrows);

#ifdef __cplusplus
}
#endif
#endif
