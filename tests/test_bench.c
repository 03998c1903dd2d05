/* SPDX-License-Identifier: Apache-2.0 */
/* test_bench.c — the benchmark's tables against the registry (issue 18.9):
 * every registered pattern has its `cupat bench` entry and its --n line
 * (bench_patterns.c, sizes.c), and nothing is listed that is not registered;
 * and the memory check that refuses a --n the backend cannot hold (18.8). */
#include "testutil.h"

#include "harness.h"

static void test_tables(void)
{
    const char *const *names;
    size_t np = 0;
    CHECK_OK(NULL, cupat_patterns(&names, &np));
    for (size_t i = 0; i < np; i++) {
        const bench_pattern *p = bench_find_pattern(names[i]);
        const bench_size_model *m = bench_find_size_model(names[i]);
        CHECK(p && p->cases, "pattern %s has no `cupat bench` entry (bench/bench_patterns.c)",
              names[i]);
        CHECK(m && m->help && *m->help && m->need,
              "pattern %s has no --n line (bench/sizes.c)", names[i]);
        if (m && m->need) {
            bench_size s = {1000, 0, 0};
            char err[160] = "";
            double need = m->need(&s, err, sizeof err);
            CHECK(need > 0 && need < 1e9, "%s: --n 1000 needs %g bytes (%s)", names[i], need, err);
        }
    }
    for (size_t i = 0; i < bench_npatterns; i++) {
        int found = 0;
        for (size_t j = 0; j < np; j++) found |= strcmp(names[j], bench_patterns[i].name) == 0;
        CHECK(found, "bench entry %s is not a registered pattern", bench_patterns[i].name);
    }
    for (size_t i = 0; i < bench_nsize_models; i++)
        CHECK(bench_find_pattern(bench_size_models[i].name),
              "--n line for %s, which has no bench entry", bench_size_models[i].name);
}

static void test_sizes(cupat_ctx *ctx)
{
    char err[320];
    bench_size s;
    CHECK(bench_parse_size("2^62", &s, err, sizeof err) == 0, "2^62 parses: %s", err);
    err[0] = '\0';
    CHECK(bench_check_size(ctx, "vadd", &s, err, sizeof err) != 0, "vadd at 2^62 accepted");
    CHECK(strstr(err, "vadd needs") && strstr(err, "smaller --n"), "message: %s", err);
    CHECK(bench_parse_size("1024", &s, err, sizeof err) == 0, "1024 parses");
    for (size_t i = 0; i < bench_nsize_models; i++) {
        err[0] = '\0';
        CHECK(bench_check_size(ctx, bench_size_models[i].name, &s, err, sizeof err) == 0,
              "%s at 1024 refused: %s", bench_size_models[i].name, err);
    }
    /* gemm at 1x65537 is 1 x 65537 x 65537: B alone is 17 GB */
    CHECK(bench_parse_size("1x65537", &s, err, sizeof err) == 0, "1x65537 parses");
    char e2[160] = "";
    double need = bench_find_size_model("gemm")->need(&s, e2, sizeof e2);
    CHECK(need > 17e9 && need < 17.3e9, "gemm 1x65537 needs %g bytes", need);
    CHECK(bench_parse_size("2^40", &s, err, sizeof err) == 0, "2^40 parses");
    err[0] = '\0';
    CHECK(bench_check_size(ctx, "gemm", &s, err, sizeof err) != 0 && strstr(err, "at most"),
          "gemm at 2^40: %s", err);
    const char *what = NULL;
    double have = bench_memory_available(ctx, &what);
    CHECK(have > 0 && what && *what, "memory available: %g (%s)", have, what ? what : "");
}

int main(int argc, char **argv)
{
    cupat_ctx *ctx = test_init(argc, argv);
    test_tables();
    test_sizes(ctx);
    return test_finish(ctx);
}
