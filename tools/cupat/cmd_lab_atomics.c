/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_lab_atomics.c — `cupat lab atomics`: parse, run the atomics lab's
 * experiments (lab/atomics), print them as tables. The race's plain
 * increments report their lost updates; every other row is checked exactly
 * (a wrong count, or a custom atomic that differs from the host, exits 1).
 * Without a GPU: exit 1 with the reason, except `custom --expected`, which
 * prints the host's answers. */
#include "cli.h"
#include "commands.h"

#include "atomics/atomics.h"
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char CMD[] = "cupat lab atomics";

enum { EXP_RACE, EXP_CUSTOM, EXP_CONTENTION, NEXP };
static const char *const exp_names[NEXP] = {"race", "custom", "contention"};
static const char *const exp_help[NEXP] = {
    "plain counter++ from many threads (lost updates counted) and its fixes: atomicAdd, "
    "privatization, a CAS loop (lecture 10)",
    "float atomic max / min and a 64-bit value+index argmax built on atomicCAS, against the host",
    "atomicAdd updates per second: 1, 32, 1024 and every thread its own address, global and "
    "shared memory",
};

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: cupat lab atomics [EXPERIMENT...] [options]\n"
            "\n"
            "Atomic operations (lecture 10 \"Atomic Operations\"; PMPP 9.2-9.4; CUDA Guide,\n"
            "atomic functions). EXPERIMENT (default all):\n");
    for (int e = 0; e < NEXP; e++) fprintf(f, "  %-10s %s\n", exp_names[e], exp_help[e]);
    fprintf(f,
            "\n"
            "Options:\n"
            "  --iters N   atomicAdds a thread in the contention table (default 64)\n"
            "  --reps N    timed launches a row, the median reported (default 10)\n"
            "  --expected  custom: print the host's answers only (no GPU)\n"
            "  --device N  CUDA device (the experiments need the CUDA backend)\n"
            "  -h, --help  this text\n");
}

/* ---------------------------------------------------------------- race -- */

#define RACE_BLOCKS 512u
#define RACE_THREADS 256u
#define RACE_PER_THREAD 8u

static int exp_race(cupat_ctx *ctx)
{
    static const int addrs[] = {1, 32, 1024};
    static uint32_t got[LAB_ATOM_MAX_ADDRESSES];
    int bad = 0;
    printf("race: %u blocks x %u threads, each adds 1 to counter (thread %% addresses), %u times\n"
           "  (lecture 10: A[index] += 1 is a load, an add and a store; two threads that load the\n"
           "  same value store the same value + 1 and one update is lost. The fixes make the\n"
           "  read-modify-write indivisible: atomicAdd in the L2, a private copy a block in shared\n"
           "  memory added once (PMPP 9.4), or a lock-free atomicCAS loop that retries when it lost.)\n",
           RACE_BLOCKS, RACE_THREADS, RACE_PER_THREAD);
    for (int m = 0; m < LAB_ATOM_NMETHODS; m++)
        printf("  %-10s %s\n", lab_atomics_method_name(m), lab_atomics_method_code(m));
    printf("  %9s  %-10s %12s %12s %12s %7s  %s\n", "addresses", "method", "expected", "got", "lost",
           "lost %", "check");
    for (size_t k = 0; k < sizeof addrs / sizeof addrs[0]; k++) {
        const int A = addrs[k];
        for (int m = 0; m < LAB_ATOM_NMETHODS; m++) {
            cupat_status s = lab_atomics_race(ctx, m, A, RACE_BLOCKS, RACE_THREADS, RACE_PER_THREAD, got);
            if (s) {
                fprintf(stderr, "%s: race: %s\n", CMD, cupat_last_error(ctx));
                return -1;
            }
            uint64_t exp = 0, sum = 0;
            int over = 0, wrong = 0;
            for (int a = 0; a < A; a++) {
                uint64_t e = lab_atomics_race_expected(A, RACE_BLOCKS, RACE_THREADS, RACE_PER_THREAD, a);
                exp += e;
                sum += got[a];
                over |= got[a] > e;
                wrong |= got[a] != e;
            }
            const char *check;
            if (m == LAB_ATOM_PLAIN) check = over ? "MORE THAN EXPECTED (impossible)" : "the race: updates lost";
            else check = wrong ? "WRONG" : "exact";
            if (m == LAB_ATOM_PLAIN && !wrong) check = "no update lost this time";
            bad += m == LAB_ATOM_PLAIN ? over : wrong;
            printf("  %9d  %-10s %12llu %12llu %12llu %6.2f%%  %s\n", A, lab_atomics_method_name(m),
                   (unsigned long long)exp, (unsigned long long)sum,
                   (unsigned long long)(exp - (sum < exp ? sum : exp)),
                   exp ? 100.0 * (double)(exp - (sum < exp ? sum : exp)) / (double)exp : 0.0, check);
        }
    }
    printf("\n");
    return bad;
}

/* -------------------------------------------------------------- custom -- */

#define CUSTOM_N 100003 /* odd: the grid's last block is partial */

static void put_f(const char *label, float v)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    printf("%s %-13.7g (%08x)", label, v, u);
}

static void put_arg(const char *label, uint64_t p)
{
    int64_t i = lab_atomics_argmax_index(p);
    if (i < 0) printf("%s empty", label);
    else printf("%s x[%lld] = %g", label, (long long)i, lab_atomics_argmax_value(p));
}

static int same_bits(float a, float b)
{
    return !memcmp(&a, &b, 4);
}

static int exp_custom(cupat_ctx *ctx)
{
    float *x = malloc(CUSTOM_N * sizeof *x);
    if (!x) {
        fprintf(stderr, "%s: out of host memory\n", CMD);
        return -1;
    }
    int bad = 0;
    printf("custom: atomics CUDA lacks, built on atomicCAS (n = %d, one update a sample)\n"
           "  (float max / min: the bits swapped in by atomicCAS when the new value is larger / smaller\n"
           "  in the order -inf < ... < -0 < +0 < ... < +inf; a NaN value is ignored, so the result is\n"
           "  NaN only when every value is; argmax: (order key << 32 | ~index) in one 64-bit word, so\n"
           "  value and index move together and a tie keeps the lowest index.)\n",
           CUSTOM_N);
    for (int c = 0; c < LAB_ATOM_NCASES; c++) {
        const char *name = lab_atomics_case(c, x, CUSTOM_N);
        const float hmax = lab_atomics_f32_max_host(x, CUSTOM_N), hmin = lab_atomics_f32_min_host(x, CUSTOM_N);
        const uint64_t harg = lab_atomics_argmax_host(x, CUSTOM_N);
        printf("  %s\n", name);
        printf("   ");
        put_f(" host: max", hmax);
        put_f("  min", hmin);
        put_arg("  argmax", harg);
        printf("\n");
        if (!ctx) continue;
        float gmax, gmin;
        uint64_t garg;
        if (lab_atomics_custom(ctx, x, CUSTOM_N, &gmax, &gmin, &garg)) {
            fprintf(stderr, "%s: custom: %s\n", CMD, cupat_last_error(ctx));
            free(x);
            return -1;
        }
        const int ok = same_bits(gmax, hmax) && same_bits(gmin, hmin) && garg == harg;
        bad += !ok;
        printf("   ");
        put_f(" GPU:  max", gmax);
        put_f("  min", gmin);
        put_arg("  argmax", garg);
        printf("  %s\n", ok ? "OK" : "MISMATCH");
    }
    printf("\n");
    free(x);
    return bad;
}

/* ---------------------------------------------------------- contention -- */

static int exp_contention(cupat_ctx *ctx, unsigned iters, int reps)
{
    static const struct {
        int where;
        unsigned spread;
        const char *what;
    } rows[] = {
        {LAB_ATOM_GLOBAL, 1, "one address: every update waits for the one before, in the L2"},
        {LAB_ATOM_GLOBAL, 32, "a warp's lanes on 32 neighbouring words (one 128-byte line)"},
        {LAB_ATOM_GLOBAL, 1024, "1024 words: a block's threads apart, the grid's blocks on the same ones"},
        {LAB_ATOM_GLOBAL, LAB_ATOM_SPREAD_ALL, "every thread its own word: no contention, only traffic"},
        {LAB_ATOM_SHARED, 1, "one shared word a block: the block's 1024 threads contend"},
        {LAB_ATOM_SHARED, 32, "32 shared words: a warp's lanes in 32 banks, the warps on the same words"},
        {LAB_ATOM_SHARED, 1024, "every thread its own shared word"},
    };
    const unsigned blocks = 2u * (unsigned)(ctx->sm_count > 0 ? ctx->sm_count : 1);
    int bad = 0;
    printf("contention: %u blocks x 1024 threads, each %u atomicAdd(&c[thread %% addresses], 1); median of %d\n"
           "  launches timed with CUDA events (shared: the block's counters are added to global memory at\n"
           "  its end, inside the timing, so every count is checked)\n",
           blocks, iters, reps);
    printf("  %-7s %9s %14s %10s %14s  %-6s %s\n", "memory", "addresses", "updates", "ms", "updates/s",
           "check", "what");
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        lab_atomics_rate r;
        if (lab_atomics_rate_run(ctx, rows[k].where, rows[k].spread, blocks, iters, reps, &r)) {
            fprintf(stderr, "%s: contention: %s\n", CMD, cupat_last_error(ctx));
            return -1;
        }
        char addr[24];
        if (rows[k].spread == LAB_ATOM_SPREAD_ALL) snprintf(addr, sizeof addr, "%u", blocks * 1024u);
        else snprintf(addr, sizeof addr, "%u", rows[k].spread);
        printf("  %-7s %9s %14.0f %10.4f %14.4g  %-6s %s\n", rows[k].where == LAB_ATOM_GLOBAL ? "global" : "shared",
               addr, r.updates, r.ms, r.per_s, r.ok ? "ok" : "FAIL", rows[k].what);
        if (!r.ok) printf("    %s\n", r.msg);
        bad += !r.ok;
    }
    printf("\n");
    return bad;
}

/* ------------------------------------------------------------- command -- */

int cmd_lab_atomics(int argc, char **argv)
{
    int want[NEXP] = {0}, expected_only = 0;
    long device = -1, iters = 64, reps = 10;
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        int r;
        if (cli_is_help(argv[i])) {
            usage(stdout);
            return 0;
        }
        if ((r = cli_lab_opt(argc, argv, &i, CMD, &device, &reps, NULL)) != 0) {
            if (r < 0) return 2;
            continue;
        }
        if ((r = cli_opt(argc, argv, &i, "--iters", &v, CMD)) != 0) {
            if (r < 0 || cli_parse_int(CMD, "--iters", v, 1, 4096, &iters)) return 2;
            continue;
        }
        if (!strcmp(argv[i], "--expected")) {
            expected_only = 1;
        } else if (argv[i][0] != '-') {
            if (cli_pick(CMD, argv[i], exp_names, NEXP, want)) return 2;
        } else {
            return cli_unknown(CMD, argv[i]);
        }
    }
    cli_pick_all(want, NEXP);
    if (expected_only && (want[EXP_RACE] || want[EXP_CONTENTION])) {
        fprintf(stderr, "%s: --expected is for 'custom' only (the race and the rates need a GPU)\n", CMD);
        return 2;
    }
    cupat_ctx *ctx = NULL;
    if (!expected_only) {
        const char *why = cli_no_cuda_reason();
        if (why) {
            fprintf(stderr, "%s: the atomics experiments need a GPU: %s\n", CMD, why);
            return 1;
        }
        if (!(ctx = cli_context(CUPAT_BACKEND_CUDA, (int)device))) return 1;
    }
    if ((uint64_t)2 * (ctx && ctx->sm_count > 0 ? (uint64_t)ctx->sm_count : 1) * 1024 * (uint64_t)iters >
        UINT32_MAX) {
        fprintf(stderr, "%s: --iters %ld: too many updates for a u32 counter on this device\n", CMD, iters);
        if (ctx) cupat_destroy(ctx);
        return 2;
    }
    int bad = 0, r = 0;
    if (want[EXP_RACE] && r >= 0) bad += (r = exp_race(ctx)) > 0 ? r : 0;
    if (want[EXP_CUSTOM] && r >= 0) bad += (r = exp_custom(ctx)) > 0 ? r : 0;
    if (want[EXP_CONTENTION] && r >= 0) bad += (r = exp_contention(ctx, (unsigned)iters, (int)reps)) > 0 ? r : 0;
    if (ctx) {
        if (r >= 0) printf("%s\n", bad ? "atomics lab: WRONG results in some rows" : "atomics lab: every check OK");
        cupat_destroy(ctx);
    }
    return r < 0 || bad ? 1 : 0;
}
