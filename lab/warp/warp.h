/* SPDX-License-Identifier: Apache-2.0 */
/* warp.h — the warp lab (`cupat lab warp`): PCCP 5.6's seven shuffle
 * experiments, the width and mask rules, half and bf16 shuffles, votes,
 * __reduce_*_sync and __match_*_sync. Each experiment is one small kernel
 * whose rows of lane values are compared, exactly, with a host model of the
 * CUDA rules; the book's experiments also carry the line the book prints.
 * Not library API: linked into the CLI and the tests (lab/CMakeLists.txt). */
#ifndef CUPAT_LAB_WARP_H
#define CUPAT_LAB_WARP_H

#include "cupat.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    LAB_WARP_BROADCAST, /* PCCP 5.6 test_shfl_broadcast */
    LAB_WARP_UP,        /* test_shfl_up                 */
    LAB_WARP_DOWN,      /* test_shfl_down               */
    LAB_WARP_WRAP,      /* test_shfl_wrap               */
    LAB_WARP_XOR,       /* test_shfl_xor                */
    LAB_WARP_XOR_ARRAY, /* test_shfl_xor_array          */
    LAB_WARP_SWAP,      /* test_shfl_swap               */
    LAB_WARP_WIDTH,     /* width and mask rules         */
    LAB_WARP_HALF,      /* __half, __half2, bf16 shuffles */
    LAB_WARP_VOTE,      /* __all / __any / __ballot     */
    LAB_WARP_REDUCE,    /* __reduce_*_sync              */
    LAB_WARP_MATCH,     /* __match_any / __match_all    */
    LAB_WARP_NEXP
};

#define LAB_WARP_MAXROWS 12
#define LAB_WARP_MAXV 32 /* values a row */

enum { LAB_WARP_DEC, LAB_WARP_HEX, LAB_WARP_REAL }; /* how a row prints */

typedef struct lab_warp_row {
    const char *call; /* what the kernel calls, as written there */
    int n;            /* values in the row */
    int fmt;          /* LAB_WARP_DEC / HEX / REAL */
    const char *book; /* the line the book prints, or NULL */
    const char *note; /* where ours and the book's differ, and why; or NULL */
} lab_warp_row;

typedef struct lab_warp_exp {
    const char *name;   /* command-line name */
    const char *title;  /* one line */
    const char *setup;  /* threads and inputs */
    const char *lesson; /* what it teaches */
    int nrows;
    const lab_warp_row *rows;
} lab_warp_exp;

const lab_warp_exp *lab_warp_get(int e); /* NULL past the end */
int lab_warp_find(const char *name);     /* index, or -1 */

/* The values row r of experiment e must hold, from the CUDA rules. */
void lab_warp_expected(int e, int r, double v[LAB_WARP_MAXV]);

/* Parse a book line ("2 3 4 ...") into at most max numbers; returns the count. */
int lab_warp_parse(const char *line, double *v, int max);

/* Run experiment e on the GPU of ctx (the CUDA backend): got[r][i]. Values
 * the kernel did not write stay NaN. */
cupat_status lab_warp_run(cupat_ctx *ctx, int e, double got[LAB_WARP_MAXROWS][LAB_WARP_MAXV]);

/* The kernel launch (warp.cu): writes out[r * LAB_WARP_MAXV + i] on ctx's stream. */
cupat_status cupat__lab_warp(cupat_ctx *ctx, int e, double *out);

#ifdef __cplusplus
}
#endif
#endif
