/* SPDX-License-Identifier: Apache-2.0 */
/* test_l2_lab.c — the L2 lab (lab/l2).
 * cpu:  the experiment table; the words (no zeros, no repeats nearby) and
 *       the expected sums against brute force (cyclic reads shorter than,
 *       equal to and many times the region); the Guide's set-aside and
 *       hitRatio rules; the *_sm90a.cu build rule, on made-up containers
 *       and on this program's own fatbins (lab/l2/l2.cu portable,
 *       lab/l2/l2_sm90a.cu an sm_90a cubin only); bad arguments, the CPU
 *       backend.
 * cuda: every experiment runs and no row's check fails (a device without
 *       persisting L2 gives one 'not supported' row an L2 experiment).
 *       With --small (compute-sanitizer) setaside and features only: the
 *       others stream 1 GiB many times. */
#define _POSIX_C_SOURCE 200809L /* readlink */
#include "testutil.h"

#include "l2/l2.h"

#include <cuda_runtime_api.h>
#include <unistd.h>

static void check_table(void)
{
    for (int e = 0; e < LAB_L2_NEXP; e++) {
        const lab_exp *x = lab_l2_exp(e);
        CHECK(x && x->name && x->title && x->source && x->unit && lab_l2_find(x->name) == e, "experiment %d", e);
    }
    CHECK(lab_l2_exp(LAB_L2_NEXP) == NULL && lab_l2_exp(-1) == NULL && lab_l2_find("nope") == -1, "table ends");
}

static void check_words(void)
{
    int zeros = 0, same = 0;
    for (uint64_t w = 0; w < (1u << 16); w++) {
        zeros += lab_l2_word(1, w) == 0;
        same += lab_l2_word(1, w) == lab_l2_word(1, w + 1) || lab_l2_word(1, w) == lab_l2_word(2, w);
    }
    CHECK(zeros == 0 && same == 0, "words: %d zeros, %d equal neighbours", zeros, same);
    const uint64_t a = lab_l2_sum_words(3, 0, 1000), b = lab_l2_sum_words(3, 0, 377) + lab_l2_sum_words(3, 377, 623);
    CHECK(a == b && lab_l2_sum_words(3, 5, 0) == 0, "sums add up: %llu vs %llu", (unsigned long long)a,
          (unsigned long long)b);
}

static uint64_t brute_cyclic(uint32_t seed, uint64_t np, uint64_t reads)
{
    uint64_t s = 0;
    for (uint64_t m = 0; m < reads; m++) s += lab_l2_sum_words(seed, 4 * (m % np), 4);
    return s;
}

static void check_expect(void)
{
    static const uint64_t cases[][2] = {{1, 1}, {1, 10}, {37, 5}, {37, 37}, {37, 1000}, {64, 4096}, {1000, 1999}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const uint64_t np = cases[k][0], reads = cases[k][1];
        CHECK(lab_l2_expect_cyclic(2, np, reads) == brute_cyclic(2, np, reads), "cyclic: %llu elements, %llu reads",
              (unsigned long long)np, (unsigned long long)reads);
    }
    CHECK(lab_l2_expect_cyclic(2, 0, 100) == 0 && lab_l2_expect_cyclic(2, 10, 0) == 0, "empty");
    /* k_read's `passes` passes over n elements */
    CHECK(lab_l2_expect_cyclic(3, 100, 400) == 4 * lab_l2_sum_words(3, 0, 400), "4 passes = 4 x one");
}

static void check_rules(void)
{
    const size_t MiB = (size_t)1 << 20;
    CHECK(lab_l2_guide_setaside(50 * MiB, 100 * MiB) == 75 * MiB / 2, "3/4 of 50 MiB: %zu",
          lab_l2_guide_setaside(50 * MiB, 100 * MiB));
    CHECK(lab_l2_guide_setaside(50 * MiB, 30 * MiB) == 30 * MiB, "capped by the max");
    CHECK(lab_l2_guide_setaside(3, 100) == 2 && lab_l2_guide_setaside(0, 100) == 0, "small sizes round down");
    CHECK(lab_l2_tuned_hit_ratio(30, 120) == 0.25 && lab_l2_tuned_hit_ratio(40, 30) == 1.0 &&
              lab_l2_tuned_hit_ratio(40, 0) == 0.0,
          "tuned hitRatio");
    const int one[] = {1}, zero[] = {0}, mixed[] = {0, 1}, none2[] = {0, 0};
    CHECK(lab_l2_rule_holds("/x/src/gemm/gemm_tc_wgmma_sm90a.cu", 1, one) == 1, "sm90a file, sm_90a cubin");
    CHECK(lab_l2_rule_holds("/x/lab/l2/l2_sm90a.cu", 2, mixed) == 0, "sm90a file with a portable entry");
    CHECK(lab_l2_rule_holds("/x/lab/l2/l2_sm90a.cu", 1, zero) == 0, "sm90a file, portable only");
    CHECK(lab_l2_rule_holds("/x/lab/l2/l2.cu", 2, none2) == 1, "portable file, portable entries");
    CHECK(lab_l2_rule_holds("/x/lab/l2/l2.cu", 1, one) == 0, "portable file with an sm_90a entry");
    CHECK(lab_l2_rule_holds("", 1, one) == -1 && lab_l2_rule_holds("/a.cu", 0, one) == -1 &&
              lab_l2_rule_holds(NULL, 1, one) == -1,
          "nothing to judge");
}

/* This program links the lab statically: its fatbins hold the two l2 files. */
static void check_build(void)
{
    char self[1024], why[256], desc[96];
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    CHECK(n > 0, "readlink /proc/self/exe");
    if (n <= 0) return;
    self[n] = 0;
    lab_l2_build b;
    CHECK(lab_l2_build_scan(self, &b, why, sizeof why) == 0, "scan %s: %s", self, why);
    CHECK(b.containers > 0 && b.named > 0 && b.broken == 0, "%d containers, %d named, %d against the rule (%s)",
          b.containers, b.named, b.broken, b.first_broken);
    CHECK(strstr(b.sm90a, "l2_sm90a.cu") != NULL, "the sm_90a files: %s", b.sm90a);
    int rule = -9;
    CHECK(lab_l2_build_find(self, "/l2/l2.cu", desc, sizeof desc, &rule, why, sizeof why) == 1 && rule == 1,
          "l2.cu: %s (rule %d)", desc, rule);
    CHECK(lab_l2_build_find(self, "/l2/l2_sm90a.cu", desc, sizeof desc, &rule, why, sizeof why) == 1 && rule == 1 &&
              !strcmp(desc, "sm_90a cubin"),
          "l2_sm90a.cu: %s (rule %d)", desc, rule);
    CHECK(lab_l2_build_find(self, "/no/such_file.cu", desc, sizeof desc, &rule, why, sizeof why) == 0, "absent");
    CHECK(lab_l2_build_scan("/nonexistent/file", &b, why, sizeof why) == -1, "no file");
}

static void check_bad(cupat_ctx *ctx)
{
    lab_row rows[LAB_MAX_ROWS];
    int n = 0;
    const cupat_status INV = CUPAT_ERROR_INVALID_VALUE;
    CHECK_FAILS(ctx, INV, "experiment = 99", lab_l2_run(ctx, 99, 1, rows, &n));
    CHECK_FAILS(ctx, INV, "reps = 0", lab_l2_run(ctx, LAB_L2_SETASIDE, 0, rows, &n));
    CHECK_FAILS(ctx, INV, "rows is NULL", lab_l2_run(ctx, LAB_L2_SETASIDE, 1, NULL, &n));
    CHECK_FAILS(NULL, INV, "ctx is NULL", lab_l2_run(NULL, LAB_L2_SETASIDE, 1, rows, &n));
    if (t_backend == CUPAT_BACKEND_CPU)
        CHECK_FAILS(ctx, CUPAT_ERROR_NOT_SUPPORTED, "CUDA backend", lab_l2_run(ctx, LAB_L2_SETASIDE, 1, rows, &n));
}

static void check_gpu(cupat_ctx *ctx)
{
    size_t before = 0, after = 0;
    CHECK(cudaSetDevice(cupat_get_device(ctx)) == cudaSuccess &&
              cudaDeviceGetLimit(&before, cudaLimitPersistingL2CacheSize) == cudaSuccess,
          "the persisting limit before");
    for (int e = 0; e < LAB_L2_NEXP; e++) {
        if (t_small && e != LAB_L2_SETASIDE && e != LAB_L2_FEATURES) continue;
        lab_row rows[LAB_MAX_ROWS];
        int n = 0;
        CHECK_OK(ctx, lab_l2_run(ctx, e, 2, rows, &n));
        CHECK(n > 0, "%s: rows", lab_l2_exp(e)->name);
        for (int k = 0; k < n; k++) {
            printf("%-9s %-58s %10.4f ms %12.5g %s  %s\n", lab_l2_exp(e)->name, rows[k].name, rows[k].ms,
                   rows[k].value, rows[k].ok < 0 ? "-" : rows[k].ok ? "ok" : "FAIL", rows[k].note);
            CHECK(rows[k].ok != 0, "%s / %s: %s", lab_l2_exp(e)->name, rows[k].name, rows[k].note);
            CHECK(rows[k].ms >= 0, "%s / %s: time", lab_l2_exp(e)->name, rows[k].name);
        }
    }
    /* every experiment put the device-wide limit back */
    CHECK(cudaDeviceGetLimit(&after, cudaLimitPersistingL2CacheSize) == cudaSuccess && after == before,
          "the persisting limit: %zu B before the lab, %zu B after", before, after);
}

int main(int argc, char **argv)
{
    cupat_ctx *ctx = test_init(argc, argv);
    lab_set_sanitizer(t_sanitizer); /* memcheck: the set-aside past the max is not asked */
    check_table();
    check_words();
    check_expect();
    check_rules();
    check_build();
    check_bad(ctx);
    if (t_backend == CUPAT_BACKEND_CUDA) check_gpu(ctx);
    return test_finish(ctx);
}
