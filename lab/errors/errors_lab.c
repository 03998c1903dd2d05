/* SPDX-License-Identifier: Apache-2.0 */
/* errors_lab.c — the cases of `cupat lab errors` as data, their verdicts,
 * the host models the tests check on the CPU, and the run entry points
 * (argument checks; the kernels and their host halves are in errors.cu). */
#include "errors/errors.h"

#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const lab_err_case cases[LAB_ERR_NCASES] = {
    [LAB_ERR_RW_RACE] = {"rw-race", "A[i] += A[i-1] in place (i >= 1)", "lecture 10, Common Errors",
                         "a block that runs after its left neighbour reads the already-updated A[i-1]",
                         "double buffering: out[i] = in[i] + in[i-1]",
                         "the answer check (racecheck sees shared memory only, not global)", NULL, 0},
    [LAB_ERR_MISSING_BARRIER] = {"missing-barrier", "shared tile written, then read by other threads, no __syncthreads()",
                                 "lecture 10; PMPP 5 exercise 3",
                                 "warps read s[1023 - t] before its owner wrote it: stale values",
                                 "__syncthreads() between the store and the load", "compute-sanitizer racecheck",
                                 "racecheck", 0},
    [LAB_ERR_BLOCK_TRANSPOSE] = {"block-transpose", "in-place BlockTranspose without a barrier (BLOCK_WIDTH 16)",
                                 "PMPP 5 exercise 10",
                                 "right while a tile is one warp (BLOCK_WIDTH <= 5), wrong past that",
                                 "__syncthreads() between blockA's store and load", "compute-sanitizer racecheck",
                                 "racecheck", 0},
    [LAB_ERR_DIVERGENT_BARRIER] = {"divergent-barrier", "__syncthreads() inside if (threadIdx.x < 128)",
                                   "PCCP 5.1 Synchronization",
                                   "the upper half reads without waiting; before Volta it could hang",
                                   "the barrier outside the branch",
                                   "compute-sanitizer racecheck (the shared-memory race); synccheck reports a divergent "
                                   "__syncthreads() only before Volta: on the H100 (sm_90, CUDA 13.0) it reported 0 errors",
                                   "racecheck", 1},
    [LAB_ERR_OOB] = {"oob", "no if (i < n) guard: 1024 threads for 1000 elements", "lecture 10, Common Errors",
                     "silent: the extra threads read and write past the end, the answer looks right",
                     "the guard", "compute-sanitizer memcheck", "memcheck", 0},
    [LAB_ERR_BYTES] = {"bytes", "cudaMemcpy(d, h, n) for n floats: elements where bytes are meant",
                       "lecture 10, Common Errors", "only the first quarter copied; the rest is uninitialized",
                       "n * sizeof(float)", "compute-sanitizer initcheck", "initcheck", 0},
    [LAB_ERR_LAUNCH_CONFIG] = {"launch-config", "a (32, 32, 2) block: 2048 threads", "PMPP 3.1",
                               "cudaGetLastError: cudaErrorInvalidConfiguration (the books; CUDA 13.0 on the H100 says "
                               "cudaErrorInvalidValue, \"invalid argument\"); the kernel never runs",
                               "(32, 16, 2) x 2 blocks", "the return code of cudaGetLastError after the launch", NULL, 0},
    [LAB_ERR_RESOURCES] = {"resources", "1024 threads of a kernel that needs more than 64 registers a thread",
                           "CUDA Guide 7.2; PCCP 4.1 Registers",
                           "cudaErrorLaunchOutOfResources (too many resources requested for launch)",
                           "__launch_bounds__(1024) (or fewer threads: cudaFuncGetAttributes' maxThreadsPerBlock)",
                           "the return code of cudaGetLastError after the launch", NULL, 0},
    [LAB_ERR_ASYNC] = {"async", "a kernel writes through a pointer never allocated (NULL)",
                       "lecture \"Advanced Techniques\", Asynchronous Execution",
                       "the launch reports success; cudaErrorIllegalAddress at the next sync, sticky after",
                       "allocate it; check cudaGetLastError after launches and the status of the sync",
                       "compute-sanitizer memcheck; the sync's return code", "memcheck", 1},
};

const lab_err_case *lab_errors_case(int c)
{
    return c >= 0 && c < LAB_ERR_NCASES ? &cases[c] : NULL;
}

int lab_errors_find(const char *name)
{
    for (int c = 0; name && c < LAB_ERR_NCASES; c++)
        if (!strcmp(cases[c].name, name)) return c;
    return -1;
}

static const char *const verdict_names[] = {"bug shown", "not shown this run", "right", "WRONG"};

const char *lab_errors_verdict_name(int v)
{
    return v >= 0 && v <= LAB_ERR_WRONG ? verdict_names[v] : NULL;
}

int lab_errors_verdict(int c, int fixed, const lab_err_result *r)
{
    if (fixed) return r->error == 0 && r->wrong == 0 && r->n > 0 ? LAB_ERR_RIGHT : LAB_ERR_WRONG;
    switch (c) {
    case LAB_ERR_RW_RACE:
    case LAB_ERR_MISSING_BARRIER:
    case LAB_ERR_BLOCK_TRANSPOSE:
    case LAB_ERR_DIVERGENT_BARRIER:
        if (r->error || !r->n) return LAB_ERR_WRONG;
        return r->wrong ? LAB_ERR_SHOWN : LAB_ERR_NOT_SHOWN;
    case LAB_ERR_OOB: return !r->error && !r->wrong && r->n ? LAB_ERR_SHOWN : LAB_ERR_WRONG;
    case LAB_ERR_BYTES: return !r->error && r->n && r->wrong == r->n - r->n / 4 ? LAB_ERR_SHOWN : LAB_ERR_WRONG;
    case LAB_ERR_LAUNCH_CONFIG:
        return lab_errors_is_config_error(r->error) && r->wrong == r->n ? LAB_ERR_SHOWN : LAB_ERR_WRONG;
    case LAB_ERR_RESOURCES: return r->error == cudaErrorLaunchOutOfResources ? LAB_ERR_SHOWN : LAB_ERR_WRONG;
    case LAB_ERR_ASYNC: return r->error == cudaErrorIllegalAddress && !r->wrong ? LAB_ERR_SHOWN : LAB_ERR_WRONG;
    default: return LAB_ERR_WRONG;
    }
}

int lab_errors_is_config_error(int e)
{
    return e == cudaErrorInvalidConfiguration || e == cudaErrorInvalidValue;
}

static const int widths[LAB_ERR_NWIDTHS] = {2, 4, 5, 6, 8, 16, 20};

int lab_errors_transpose_width(int k)
{
    return k >= 0 && k < LAB_ERR_NWIDTHS ? widths[k] : 0;
}

static cupat_status begin(cupat_ctx *ctx, lab_err_result *r)
{
    if (!ctx) return cupat__fail(NULL, CUPAT_ERROR_INVALID_VALUE, "lab errors: ctx is NULL");
    if (!r) return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab errors: r is NULL");
    memset(r, 0, sizeof *r);
    if (cupat_get_backend(ctx) != CUPAT_BACKEND_CUDA)
        return cupat__fail(ctx, CUPAT_ERROR_NOT_SUPPORTED, "lab errors: the cases need the CUDA backend");
    return CUPAT_SUCCESS;
}

cupat_status lab_errors_run(cupat_ctx *ctx, int c, int fixed, lab_err_result *r)
{
    if (ctx && (c < 0 || c >= LAB_ERR_NCASES))
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab errors: case = %d (0 to %d)", c, LAB_ERR_NCASES - 1);
    CUPAT_TRY(begin(ctx, r));
    return cupat__lab_err_run(ctx, c, fixed != 0, r);
}

cupat_status lab_errors_transpose(cupat_ctx *ctx, int width, int fixed, lab_err_result *r)
{
    int k = 0;
    while (k < LAB_ERR_NWIDTHS && widths[k] != width) k++;
    if (ctx && k == LAB_ERR_NWIDTHS)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "lab errors: BLOCK_WIDTH = %d (2, 4, 5, 6, 8, 16 or 20)", width);
    CUPAT_TRY(begin(ctx, r));
    return cupat__lab_err_transpose(ctx, width, fixed != 0, r);
}

/* ---------------------------------------------- host models (CPU tests) -- */

int lab_errors_block_invalid(unsigned x, unsigned y, unsigned z, char *why, size_t len)
{
    const unsigned long long t = (unsigned long long)x * y * z;
    if (!x || !y || !z) snprintf(why, len, "a zero dimension");
    else if (x > 1024) snprintf(why, len, "x = %u > 1024", x);
    else if (y > 1024) snprintf(why, len, "y = %u > 1024", y);
    else if (z > 64) snprintf(why, len, "z = %u > 64", z);
    else if (t > 1024) snprintf(why, len, "%llu threads > 1024 a block", t);
    else return 0;
    return 1;
}

long lab_errors_block_registers(int regs, int threads)
{
    const long per_warp = ((long)regs * 32 + 255) / 256 * 256;
    return per_warp * ((threads + 31) / 32);
}

void lab_errors_rw_expected(const int32_t *a, size_t n, int32_t *out)
{
    for (size_t i = 0; i < n; i++) out[i] = i ? a[i] + a[i - 1] : a[0];
}

void lab_errors_transpose_expected(const float *a, int w, int h, int bw, float *out)
{
    for (int r = 0; r < h; r++)
        for (int c = 0; c < w; c++) {
            const int tr = r - r % bw, tc = c - c % bw; /* the tile's corner */
            out[(size_t)r * w + c] = a[(size_t)(tr + c % bw) * w + tc + r % bw];
        }
}

float lab_errors_heavy_expected(const float *in, size_t n, size_t i)
{
    enum { R = LAB_ERR_HEAVY_REGS };
    float r[R];
    for (int j = 0; j < R; j++) r[j] = in[(size_t)j * n + i];
    for (int k = 0; k < 4; k++)
        for (int j = 0; j < R; j++) r[j] = fmaf(r[j], r[(j + 7) % R], r[(j + 13) % R]) * 0.5f;
    float s = 0.0f;
    for (int j = 0; j < R; j++) s += r[j];
    return s;
}
