/* SPDX-License-Identifier: Apache-2.0 */
/* test_errors_lab.c — the common-errors lab (lab/errors).
 * cpu:  the case table; the host models (which block shapes are invalid and
 *       why, registers a block needs, the intended results of A[i] += A[i-1]
 *       and of the in-tile transpose, the heavy kernel's result); the
 *       verdict rules on made-up results; the child-process runner (exit
 *       codes, output, the timeout kill); bad arguments and the CPU backend.
 * cuda: every case buggy and fixed: each fixed version exact; each buggy one
 *       shows its symptom (bytes: exactly 3/4 of the outputs wrong; launch
 *       config: cudaErrorInvalidConfiguration, or cudaErrorInvalidValue as
 *       CUDA 13.0 says, and nothing written; resources:
 *       cudaErrorLaunchOutOfResources; oob: silent; async: success at the
 *       launch, cudaErrorIllegalAddress at the sync) or, for the races, a
 *       count that may be 0 (printed, not asserted). The sticky and possibly
 *       hanging cases run in a child (this test with --child NAME VERSION).
 *       With --small (compute-sanitizer) only the fixed versions run, so the
 *       sanitizer sees no intended bug; scripts/errors-sanitize runs the bugs. */
#include "testutil.h"

#include "errors/errors.h"

#include <cuda_runtime_api.h>
#include <unistd.h>

static void check_model(void)
{
    for (int c = 0; c < LAB_ERR_NCASES; c++) {
        const lab_err_case *k = lab_errors_case(c);
        CHECK(k && k->name && k->bug && k->source && k->symptom && k->fix && k->tool, "case %d complete", c);
        CHECK(lab_errors_find(k->name) == c, "find %s", k->name);
    }
    CHECK(lab_errors_case(LAB_ERR_NCASES) == NULL && lab_errors_find("nope") == -1 && lab_errors_find(NULL) == -1, "table ends");
    CHECK(lab_errors_case(LAB_ERR_ASYNC)->child && lab_errors_case(LAB_ERR_DIVERGENT_BARRIER)->child &&
              !lab_errors_case(LAB_ERR_BYTES)->child,
          "child cases");
    /* synccheck does not report a divergent __syncthreads() on sm_70+ (0 errors on the H100): racecheck finds it */
    CHECK(!strcmp(lab_errors_case(LAB_ERR_DIVERGENT_BARRIER)->sanitizer, "racecheck"), "divergent barrier: racecheck");
    char why[64];
    CHECK(lab_errors_block_invalid(32, 32, 2, why, sizeof why) && strstr(why, "2048 threads"), "(32,32,2): %s", why);
    CHECK(!lab_errors_block_invalid(32, 32, 1, why, sizeof why) && !lab_errors_block_invalid(32, 16, 2, why, sizeof why),
          "1024 threads valid");
    CHECK(lab_errors_block_invalid(1, 1, 65, why, sizeof why) && strstr(why, "z = 65"), "z: %s", why);
    CHECK(lab_errors_block_invalid(2048, 1, 1, why, sizeof why) && strstr(why, "x = 2048"), "x: %s", why);
    CHECK(lab_errors_block_invalid(0, 1, 1, why, sizeof why), "zero");
    CHECK(lab_errors_block_registers(64, 1024) == 65536, "64 x 1024 = 65536");
    CHECK(lab_errors_block_registers(65, 1024) == 73728, "65 registers round to 72: %ld", lab_errors_block_registers(65, 1024));
    /* Guide 8.2.3: 64 registers x 512 threads: two blocks an SM; 65: one. */
    CHECK(65536 / lab_errors_block_registers(64, 512) == 2 && 65536 / lab_errors_block_registers(65, 512) == 1, "the cliff");
    CHECK(lab_errors_block_registers(144, 1024) > 65536, "the resources case needs more than an SM has");

    const int32_t a[5] = {1, 2, 3, 4, 5};
    int32_t e[5];
    lab_errors_rw_expected(a, 5, e);
    CHECK(e[0] == 1 && e[1] == 3 && e[2] == 5 && e[3] == 7 && e[4] == 9, "rw expected");
    float m[4 * 8], t[4 * 8], tt[4 * 8];
    for (int i = 0; i < 32; i++) m[i] = (float)i;
    lab_errors_transpose_expected(m, 8, 4, 2, t);
    CHECK(t[1] == m[8] && t[8] == m[1] && t[0] == m[0] && t[9] == m[9], "tile transpose");
    CHECK(t[3] == m[10] && t[10] == m[3], "second tile");
    lab_errors_transpose_expected(t, 8, 4, 2, tt);
    CHECK(!memcmp(tt, m, sizeof m), "the in-tile transpose is its own inverse");
    float in[LAB_ERR_HEAVY_REGS * 2];
    for (int i = 0; i < LAB_ERR_HEAVY_REGS * 2; i++) in[i] = 0.5f;
    const float h = lab_errors_heavy_expected(in, 2, 1);
    CHECK(h > 0 && h <= LAB_ERR_HEAVY_REGS && h == lab_errors_heavy_expected(in, 2, 0), "heavy: %g", h);
}

static void check_verdicts(void)
{
    lab_err_result r;
    memset(&r, 0, sizeof r);
    r.n = 100;
    CHECK(lab_errors_verdict(LAB_ERR_RW_RACE, 1, &r) == LAB_ERR_RIGHT, "fixed exact");
    CHECK(lab_errors_verdict(LAB_ERR_RW_RACE, 0, &r) == LAB_ERR_NOT_SHOWN, "race not lost");
    CHECK(lab_errors_verdict(LAB_ERR_OOB, 0, &r) == LAB_ERR_SHOWN, "oob is silent");
    r.wrong = 3;
    CHECK(lab_errors_verdict(LAB_ERR_RW_RACE, 0, &r) == LAB_ERR_SHOWN && lab_errors_verdict(LAB_ERR_RW_RACE, 1, &r) == LAB_ERR_WRONG,
          "race lost / fixed wrong");
    CHECK(lab_errors_verdict(LAB_ERR_OOB, 0, &r) == LAB_ERR_WRONG, "oob: wrong in-bounds values are not this bug");
    r.wrong = 75;
    CHECK(lab_errors_verdict(LAB_ERR_BYTES, 0, &r) == LAB_ERR_SHOWN, "bytes: 3/4");
    r.wrong = 74;
    CHECK(lab_errors_verdict(LAB_ERR_BYTES, 0, &r) == LAB_ERR_WRONG, "bytes: not 3/4");
    r.wrong = 100;
    r.error = cudaErrorInvalidConfiguration;
    CHECK(lab_errors_verdict(LAB_ERR_LAUNCH_CONFIG, 0, &r) == LAB_ERR_SHOWN, "launch config");
    r.error = cudaErrorInvalidValue; /* what CUDA 13.0 returned on the H100 for the (32, 32, 2) block */
    CHECK(lab_errors_verdict(LAB_ERR_LAUNCH_CONFIG, 0, &r) == LAB_ERR_SHOWN, "launch config: invalid argument");
    r.error = cudaErrorLaunchOutOfResources;
    CHECK(lab_errors_verdict(LAB_ERR_LAUNCH_CONFIG, 0, &r) == LAB_ERR_WRONG, "a resources error is not a config error");
    r.wrong = 99; /* one output written: the kernel ran */
    r.error = cudaErrorInvalidValue;
    CHECK(lab_errors_verdict(LAB_ERR_LAUNCH_CONFIG, 0, &r) == LAB_ERR_WRONG, "launch config: nothing may be written");
    r.wrong = 100;
    r.error = cudaErrorInvalidConfiguration;
    CHECK(lab_errors_verdict(LAB_ERR_RESOURCES, 0, &r) == LAB_ERR_WRONG, "a config error is not a resources error");
    r.error = cudaErrorLaunchOutOfResources;
    CHECK(lab_errors_verdict(LAB_ERR_RESOURCES, 0, &r) == LAB_ERR_SHOWN, "resources");
    r.error = cudaErrorIllegalAddress;
    r.wrong = 0;
    CHECK(lab_errors_verdict(LAB_ERR_ASYNC, 0, &r) == LAB_ERR_SHOWN, "async");
    r.wrong = 1; /* the launch itself reported it: not asynchronous */
    CHECK(lab_errors_verdict(LAB_ERR_ASYNC, 0, &r) == LAB_ERR_WRONG, "async at the launch");
    CHECK(lab_errors_verdict(LAB_ERR_MISSING_BARRIER, 0, &r) == LAB_ERR_WRONG, "a race with an error");
    CHECK(!strcmp(lab_errors_verdict_name(LAB_ERR_SHOWN), "bug shown") && lab_errors_verdict_name(9) == NULL, "names");
    CHECK(lab_errors_transpose_width(0) == 2 && lab_errors_transpose_width(LAB_ERR_NWIDTHS) == 0, "widths");
}

static void check_spawn(void)
{
    char out[256];
    int code = -1;
    char *ok[] = {"/bin/sh", "-c", "echo hello; echo err >&2; exit 3", NULL};
    CHECK(lab_errors_spawn(ok, 10, out, sizeof out, &code) == 0 && code == 3 && strstr(out, "hello") && strstr(out, "err"),
          "spawn: code %d, out '%s'", code, out);
    char *slow[] = {"/bin/sh", "-c", "exec sleep 20", NULL};
    CHECK(lab_errors_spawn(slow, 1, out, sizeof out, &code) == 1 && code == 128 + 9, "timeout kills: code %d", code);
    char *none[] = {"/nonexistent/program", NULL};
    CHECK(lab_errors_spawn(none, 5, out, sizeof out, &code) == 0 && code == 127 && strstr(out, "exec"), "exec failure: %d %s",
          code, out);
    char small[4];
    CHECK(lab_errors_spawn(ok, 10, small, sizeof small, &code) == 0 && strlen(small) == 3, "output cut to its buffer");
}

static void check_bad(cupat_ctx *ctx)
{
    lab_err_result r;
    const cupat_status INV = CUPAT_ERROR_INVALID_VALUE;
    CHECK_FAILS(ctx, INV, "case = 99", lab_errors_run(ctx, 99, 0, &r));
    CHECK_FAILS(ctx, INV, "r is NULL", lab_errors_run(ctx, LAB_ERR_BYTES, 0, NULL));
    CHECK_FAILS(NULL, INV, "ctx is NULL", lab_errors_run(NULL, LAB_ERR_BYTES, 0, &r));
    CHECK_FAILS(ctx, INV, "BLOCK_WIDTH = 3", lab_errors_transpose(ctx, 3, 0, &r));
    if (t_backend == CUPAT_BACKEND_CPU) {
        CHECK_FAILS(ctx, CUPAT_ERROR_NOT_SUPPORTED, "CUDA backend", lab_errors_run(ctx, LAB_ERR_BYTES, 1, &r));
        CHECK_FAILS(ctx, CUPAT_ERROR_NOT_SUPPORTED, "CUDA backend", lab_errors_transpose(ctx, 4, 1, &r));
    }
}

/* ------------------------------------------------------------------ cuda -- */

static const char *self_path;

/* A version in a child: this program with --child NAME buggy|fixed. */
static int child_verdict(int c, int fixed)
{
    char out[4096];
    int code = -1;
    char *argv[] = {(char *)self_path, "--backend", "cuda", "--child", (char *)lab_errors_case(c)->name,
                    fixed ? "fixed" : "buggy", NULL};
    const int k = lab_errors_spawn(argv, 60, out, sizeof out, &code);
    printf("%s %s (child): %s", lab_errors_case(c)->name, fixed ? "fixed" : "buggy", out);
    if (k == 1) return !fixed && c == LAB_ERR_DIVERGENT_BARRIER ? LAB_ERR_SHOWN : LAB_ERR_WRONG;
    CHECK(k == 0 && code >= LAB_ERR_EXIT_BASE && code <= LAB_ERR_EXIT_BASE + LAB_ERR_WRONG, "%s child: exit %d",
          lab_errors_case(c)->name, code);
    return code - LAB_ERR_EXIT_BASE;
}

static void check_cases(cupat_ctx *ctx)
{
    for (int c = 0; c < LAB_ERR_NCASES; c++)
        for (int fixed = 1; fixed >= 0; fixed--) {
            if (!fixed && t_small) continue; /* under a sanitizer: only the fixed versions */
            int v;
            lab_err_result r;
            memset(&r, 0, sizeof r);
            if (lab_errors_case(c)->child) {
                v = child_verdict(c, fixed);
            } else {
                CHECK_OK(ctx, lab_errors_run(ctx, c, fixed, &r));
                v = lab_errors_verdict(c, fixed, &r);
                printf("%s %s: %s: %s %s\n", lab_errors_case(c)->name, fixed ? "fixed" : "buggy", lab_errors_verdict_name(v),
                       r.detail, r.error_name);
            }
            if (fixed) CHECK(v == LAB_ERR_RIGHT, "%s fixed: %s", lab_errors_case(c)->name, lab_errors_verdict_name(v));
            else if (c == LAB_ERR_RW_RACE || c == LAB_ERR_MISSING_BARRIER || c == LAB_ERR_BLOCK_TRANSPOSE ||
                     c == LAB_ERR_DIVERGENT_BARRIER)
                CHECK(v == LAB_ERR_SHOWN || v == LAB_ERR_NOT_SHOWN, "%s buggy: %s", lab_errors_case(c)->name,
                      lab_errors_verdict_name(v));
            else CHECK(v == LAB_ERR_SHOWN, "%s buggy: %s", lab_errors_case(c)->name, lab_errors_verdict_name(v));
        }
    for (int k = 0; lab_errors_transpose_width(k); k++) {
        const int w = lab_errors_transpose_width(k);
        lab_err_result f, b;
        CHECK_OK(ctx, lab_errors_transpose(ctx, w, 1, &f));
        CHECK(f.wrong == 0 && f.n == (size_t)(40 * w) * (40 * w), "transpose %d fixed: %s", w, f.detail);
        if (!t_small) {
            CHECK_OK(ctx, lab_errors_transpose(ctx, w, 0, &b));
            printf("block-transpose buggy: %s\n", b.detail);
        }
    }
}

/* --child NAME VERSION: one version in this process; the verdict is the exit code. */
static int run_child(int argc, char **argv)
{
    for (int i = 1; i + 2 < argc; i++)
        if (!strcmp(argv[i], "--child")) {
            const int c = lab_errors_find(argv[i + 1]), fixed = !strcmp(argv[i + 2], "fixed");
            cupat_ctx *ctx = NULL;
            if (c < 0 || cupat_create(&ctx, CUPAT_BACKEND_CUDA, -1)) return 1;
            lab_err_result r;
            memset(&r, 0, sizeof r);
            if (lab_errors_run(ctx, c, fixed, &r)) {
                printf("%s\n", cupat_last_error(ctx));
                return 1;
            }
            const int v = lab_errors_verdict(c, fixed, &r);
            printf("%s: %s %s\n", lab_errors_verdict_name(v), r.detail, r.error_name);
            fflush(stdout);
            _exit(LAB_ERR_EXIT_BASE + v); /* no cleanup in a lost context */
        }
    return -1;
}

int main(int argc, char **argv)
{
    const int child = run_child(argc, argv);
    if (child >= 0) return child;
    self_path = argv[0];
    cupat_ctx *ctx = test_init(argc, argv);
    check_model();
    check_verdicts();
    check_spawn();
    check_bad(ctx);
    if (t_backend == CUPAT_BACKEND_CUDA) check_cases(ctx);
    return test_finish(ctx);
}
