/* SPDX-License-Identifier: Apache-2.0 */
/* errors.h — the common-errors lab (`cupat lab errors`): lecture 10 "Common
 * CUDA Programming Errors", PCCP 5.1 (barriers in divergent code), PMPP 3.1
 * (a (32, 32, 2) block), PMPP 5 exercises 3 and 10, the CUDA Guide 7.2
 * (resources a block needs) and the lecture's asynchronous execution. Each
 * classic bug is a case with a buggy and a fixed version: the buggy one shows
 * its wrong output or its error code, the fixed one is checked exactly, and
 * the case names the tool that finds the bug (compute-sanitizer memcheck,
 * racecheck, synccheck, initcheck, or the runtime's return code).
 * Every buggy kernel works on buffers of its own, is bounded (no loop waits
 * on another thread), and the two whose error is sticky or that could hang
 * (an illegal address kills the context; a barrier some threads never reach)
 * are marked `child`: the CLI and the tests run them in a child process.
 * Not library API: linked into the CLI and the tests. */
#ifndef CUPAT_LAB_ERRORS_H
#define CUPAT_LAB_ERRORS_H

#include "cupat.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
    LAB_ERR_RW_RACE,           /* A[i] += A[i-1] in place; fix: double buffering        */
    LAB_ERR_MISSING_BARRIER,   /* a shared tile read before every thread wrote it       */
    LAB_ERR_BLOCK_TRANSPOSE,   /* PMPP ex. 5.10: in-place BlockTranspose                */
    LAB_ERR_DIVERGENT_BARRIER, /* __syncthreads() inside if (threadIdx.x < half)         */
    LAB_ERR_OOB,               /* no if (i < n): the last block reads and writes past n  */
    LAB_ERR_BYTES,             /* cudaMemcpy(d, h, n) for n floats                       */
    LAB_ERR_LAUNCH_CONFIG,     /* a (32, 32, 2) block: 2048 threads                      */
    LAB_ERR_RESOURCES,         /* 1024 threads x more than 64 registers                  */
    LAB_ERR_ASYNC,             /* a kernel's illegal address surfaces at a later sync    */
    LAB_ERR_NCASES
};

typedef struct lab_err_case {
    const char *name;      /* --case NAME */
    const char *bug;       /* the bug, one line */
    const char *source;    /* where the books / lecture raise it */
    const char *symptom;   /* what the buggy version does */
    const char *fix;       /* the fixed version */
    const char *tool;      /* what finds it */
    const char *sanitizer; /* the compute-sanitizer tool that reports the buggy run; NULL: none */
    int child;             /* run in a child process (sticky error / may hang) */
} lab_err_case;
const lab_err_case *lab_errors_case(int c); /* NULL past the end */
int lab_errors_find(const char *name);      /* the case, or -1 */

typedef struct lab_err_result {
    size_t n;            /* outputs checked */
    size_t wrong;        /* outputs that differ from the intended result */
    int error;           /* the CUDA error the run met (cudaError_t; 0: none) */
    char error_name[64]; /* its name, "" when none */
    char detail[320];    /* one line: what happened */
} lab_err_result;

/* Run case c, buggy (fixed = 0) or fixed (1), on ctx (the CUDA backend).
 * CUPAT_SUCCESS when the run went as the case can go (a buggy run's
 * expected error is a result, recorded in r, not a failure); an unexpected
 * CUDA error returns CUPAT_ERROR_CUDA with r filled as far as it got. */
cupat_status lab_errors_run(cupat_ctx *ctx, int c, int fixed, lab_err_result *r);

/* The verdict of a run. */
enum {
    LAB_ERR_SHOWN,     /* buggy: the bug's symptom appeared (or, for oob, the silence it is known for) */
    LAB_ERR_NOT_SHOWN, /* buggy: a race that this run did not lose (timing); not a failure */
    LAB_ERR_RIGHT,     /* fixed: exact */
    LAB_ERR_WRONG      /* fixed: wrong, or buggy: a symptom that cannot come from this bug */
};
int lab_errors_verdict(int c, int fixed, const lab_err_result *r);
/* Whether e (a cudaError_t) is how the runtime refuses an invalid block
 * shape: cudaErrorInvalidConfiguration (the books, older toolkits) or
 * cudaErrorInvalidValue (CUDA 13.0, driver 580, measured on the H100). */
int lab_errors_is_config_error(int e);
const char *lab_errors_verdict_name(int v);

/* PMPP ex. 5.10 for one BLOCK_WIDTH (1..20 of those compiled: 2, 4, 5, 6, 8,
 * 16, 20): the in-place BlockTranspose, buggy or with its __syncthreads(). */
#define LAB_ERR_NWIDTHS 7
int lab_errors_transpose_width(int k); /* the k-th compiled width, 0 past the end */
cupat_status lab_errors_transpose(cupat_ctx *ctx, int width, int fixed, lab_err_result *r);

/* ---------------------------------------------- host models (CPU tests) -- */

/* Why a block shape is invalid ("2048 threads > 1024 a block", ...) into why,
 * or 0 when valid. Limits of every GPU since cc 2.0: x, y <= 1024, z <= 64,
 * x y z <= 1024. */
int lab_errors_block_invalid(unsigned x, unsigned y, unsigned z, char *why, size_t len);
/* Registers a block of `threads` needs at `regs` a thread: per warp,
 * regs x 32 rounded up to the allocation unit of 256. */
long lab_errors_block_registers(int regs, int threads);
/* The intended result of A[i] += A[i-1] (every i >= 1 adds the old A[i-1]). */
void lab_errors_rw_expected(const int32_t *a, size_t n, int32_t *out);
/* The intended in-tile transpose of a w x h row-major matrix of bw x bw tiles. */
void lab_errors_transpose_expected(const float *a, int w, int h, int bw, float *out);
/* The result of the register-heavy kernel at thread i (resources case). */
float lab_errors_heavy_expected(const float *in, size_t n, size_t i);
#define LAB_ERR_HEAVY_REGS 96 /* values a thread keeps live */

/* ------------------------------------------------- child processes -- */

/* Run argv (argv[0] a path) in a child process, its stdout and stderr into
 * out (NUL-terminated, cut to len), killed after timeout_s seconds. Returns
 * 0 when it exited (*exit_code its status, 128 + signal when killed by a
 * signal), 1 when it was killed for the timeout, -1 when it could not start
 * (reason in out). */
int lab_errors_spawn(char *const argv[], int timeout_s, char *out, size_t len, int *exit_code);
/* Exit codes of a child run: the verdict + 10 (so 0 and 1 keep their
 * usual meaning: 1 is a failure before any verdict). */
#define LAB_ERR_EXIT_BASE 10

/* ---------------------------------------------------- the kernels (.cu) -- */
cupat_status cupat__lab_err_run(cupat_ctx *ctx, int c, int fixed, lab_err_result *r);
cupat_status cupat__lab_err_transpose(cupat_ctx *ctx, int width, int fixed, lab_err_result *r);

#ifdef __cplusplus
}
#endif
#endif
