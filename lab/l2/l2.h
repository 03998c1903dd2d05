/* SPDX-License-Identifier: Apache-2.0 */
/* l2.h — the L2 lab (`cupat lab l2`, issue 23): L2 persistence and the
 * access-policy window (CUDA Guide 6.2.3; INVENTORY G15, G16), and the
 * feature sets compute_90 / compute_90a (Guide 6.1.3-6.1.4, 19.1; G10,
 * G66). The set-aside (cudaLimitPersistingL2CacheSize) asked and granted;
 * the Guide's hitRatio experiment (a persisting region read while a 1 GiB
 * stream evicts, a window over the region on the stream) against hitRatio
 * and against the window's size relative to the set-aside; resetting
 * persisting lines to normal (cudaCtxResetPersistingL2Cache, a window with
 * hitProp Normal) and what stale persisting lines cost other work; the same
 * window as a launch attribute of cudaLaunchKernelEx; which files of the
 * build are sm_90a and that an sm_90a kernel (setmaxnreg) runs.
 * Each experiment fills rows (lab_rows.h); on a device without persisting
 * L2 (below cc 8.0, or MIG) the L2 experiments give one 'not supported'
 * row. The host models below (the words, the expected sums, the set-aside
 * and hitRatio rules, the build rule) are plain C the tests check without a
 * GPU. Not library API. */
#ifndef CUPAT_LAB_L2_H
#define CUPAT_LAB_L2_H

#include "cupat.h"
#include "rows/lab_rows.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
    LAB_L2_SETASIDE, /* the attributes; cudaDeviceSetLimit asked vs cudaDeviceGetLimit granted; put back */
    LAB_L2_HITRATIO, /* region = 1x the set-aside: no window, then hitRatio 0, 0.25, 0.5, 0.75, 1 */
    LAB_L2_WINDOW,   /* region 0.5x, 1x, 2x, 4x the set-aside: no window, hitRatio 1, hitRatio set-aside / window */
    LAB_L2_RESET,    /* persisting lines after the window: kept, reset, made normal; their cost to normal data */
    LAB_L2_LAUNCH,   /* the window as cudaLaunchAttributeAccessPolicyWindow of cudaLaunchKernelEx */
    LAB_L2_FEATURES, /* the build's sm_90 and sm_90a files; an sm_90 and an sm_90a (setmaxnreg) kernel run */
    LAB_L2_NEXP
};

const lab_exp *lab_l2_exp(int e); /* NULL past the end */
int lab_l2_find(const char *name); /* -1 when unknown */

/* Run experiment e: rows[0 .. *nrows). reps: timed launches a row (1..1000).
 * CUDA backend only; a wrong row is a row with ok = 0, not an error. Every
 * L2 experiment puts back what it changed: the persisting limit, the
 * stream's window, and the persisting lines (reset to normal). */
cupat_status lab_l2_run(cupat_ctx *ctx, int e, int reps, lab_row rows[LAB_MAX_ROWS], int *nrows);

/* ----------------------------------------------------- host models -- */

#ifdef __CUDACC__
#define LAB_L2_HD __host__ __device__
#else
#define LAB_L2_HD
#endif

/* Word w of the buffer of seed `seed` (every buffer of the lab is 16-byte
 * elements of 4 such words: element i holds words 4i .. 4i+3). A mix of
 * the index (splitmix64's finalizer): no zeros by the run, no period. */
static inline LAB_L2_HD uint32_t lab_l2_word(uint32_t seed, uint64_t w)
{
    uint64_t z = w + 0x9E3779B97F4A7C15ull * ((uint64_t)seed + 1u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (uint32_t)(z ^ (z >> 31));
}

/* The sum (mod 2^64) of words [first, first + n) of buffer `seed`. */
uint64_t lab_l2_sum_words(uint32_t seed, uint64_t first, uint64_t n);
/* The sum (mod 2^64) of `reads` element reads of an np-element buffer taken
 * cyclically from element 0 (read m is element m % np), each element the
 * sum of its 4 words; O(np). 0 when np is 0. */
uint64_t lab_l2_expect_cyclic(uint32_t seed, uint64_t np, uint64_t reads);

/* The Guide's set-aside (6.2.3.1): min(3/4 of the L2, the most the device
 * allows for persisting lines). */
size_t lab_l2_guide_setaside(size_t l2_bytes, size_t max_persisting);
/* The Guide's hitRatio for a window larger than the set-aside: the share
 * of the window's lines that fit, min(1, set_aside / window); 0 for an
 * empty window. */
double lab_l2_tuned_hit_ratio(size_t set_aside, size_t window_bytes);

/* The build rule (CMakeLists.txt, lab/CMakeLists.txt): a file named
 * *_sm90a.cu is compiled for sm_90a alone, every other file for portable
 * targets only. Given a fatbin container's source file and whether each of
 * its n entries is architecture-specific: 1 the rule holds, 0 it does not,
 * -1 nothing to judge (no source name: a device link; no entries). */
int lab_l2_rule_holds(const char *source, int n, const int *arch_specific);

/* What the build put in one file (lab_l2_build_scan). */
typedef struct lab_l2_build {
    int containers;    /* fatbin containers */
    int named;         /* ... whose source file is known (nvcc -lineinfo records it) */
    int specific;      /* ... whose every entry is architecture-specific (sm_90a) */
    int portable;      /* ... with no architecture-specific entry */
    int mixed;         /* ... with both */
    int broken;        /* named ones against the rule */
    char sm90a[200];   /* the sm_90a files' names (no directories), ", " between */
    char first_broken[160]; /* the first against the rule, and what it holds */
} lab_l2_build;
/* Read the fatbin containers of the ELF file at path: 0, or -1 with why
 * (no such file, no device code, a malformed section). */
int lab_l2_build_scan(const char *path, lab_l2_build *b, char *why, size_t why_len);
/* Describe the container of path whose source file name ends with
 * `suffix` ("/l2/l2_sm90a.cu"): 1 found (*desc "sm_90a cubin", *rule from
 * lab_l2_rule_holds), 0 none, -1 the file cannot be read (why). */
int lab_l2_build_find(const char *path, const char *suffix, char *desc, size_t desc_len, int *rule, char *why,
                      size_t why_len);

/* The sm_90a kernel (l2_sm90a.cu): blocks of LAB_L2_SM90A_THREADS, three
 * warp groups; group 0 gives registers back (setmaxnreg.dec 40), groups 1
 * and 2 take them (setmaxnreg.inc 232), as the library's wgmma GEMM does.
 * Thread g of the grid writes lab_l2_word(its group + 1, g). */
#define LAB_L2_SM90A_THREADS 384

/* ---------------------------------------------------- the kernels (.cu) -- */
cupat_status cupat__lab_l2_run(cupat_ctx *ctx, int e, int reps, lab_row *rows, int *nrows);

#ifdef __cplusplus
}
#endif
#endif
