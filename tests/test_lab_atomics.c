/* SPDX-License-Identifier: Apache-2.0 */
/* test_lab_atomics.c — the atomics lab (lab/atomics).
 * cpu:  the host model: the float order key (-0 below +0, infinities at the
 *       ends), max / min with the NaN rule, the argmax packing (ties to the
 *       lowest index, empty), the race's expected counts; every lab function
 *       refuses bad arguments with a message naming them, and valid ones on
 *       the CPU backend with "CUDA backend".
 * cuda: atomicAdd, privatization and the CAS loop count exactly on 1, 7, 32
 *       and 1024 addresses; the plain increments never exceed the expected
 *       count (their loss is printed, not asserted: it depends on timing);
 *       the custom atomics equal the host bit for bit on every case and size;
 *       every contention row's counters are exact and its time positive. */
#include "testutil.h"

#include "atomics/atomics.h"

static void check_model(void)
{
    const float order[] = {-INFINITY, -3e38f, -1.0f, -1e-45f, -0.0f, 0.0f, 1e-45f, 1.0f, 3e38f, INFINITY};
    const size_t no = sizeof order / sizeof order[0];
    for (size_t i = 0; i + 1 < no; i++)
        CHECK(lab_atomics_f32_key(order[i]) < lab_atomics_f32_key(order[i + 1]), "key(%g) < key(%g) (%zu)",
              order[i], order[i + 1], i);

    const float nan = test_bits_f32(0x7fc00000u), nneg = test_bits_f32(0xffc00001u);
    const float zeros[] = {0.0f, -0.0f, 0.0f};
    CHECK(test_f32_bits(lab_atomics_f32_max_host(zeros, 3)) == 0x00000000u, "max(+0, -0) = +0");
    CHECK(test_f32_bits(lab_atomics_f32_min_host(zeros, 3)) == 0x80000000u, "min(+0, -0) = -0");
    const float mz[] = {-0.0f};
    CHECK(test_f32_bits(lab_atomics_f32_max_host(mz, 1)) == 0x80000000u, "max(-0) = -0");
    const float withnan[] = {nan, -2.0f, nneg, -5.0f, nan};
    CHECK(lab_atomics_f32_max_host(withnan, 5) == -2.0f, "NaN ignored by max");
    CHECK(lab_atomics_f32_min_host(withnan, 5) == -5.0f, "NaN ignored by min");
    const float allnan[] = {nan, nneg};
    CHECK(isnan(lab_atomics_f32_max_host(allnan, 2)) && isnan(lab_atomics_f32_min_host(allnan, 2)),
          "all NaN: NaN");
    CHECK(lab_atomics_argmax_host(allnan, 2) == 0 && lab_atomics_argmax_index(0) == -1 &&
              isnan(lab_atomics_argmax_value(0)),
          "all NaN: argmax empty");
    const float ties[] = {1.0f, 3.0f, -7.0f, 3.0f, nan, 3.0f};
    uint64_t p = lab_atomics_argmax_host(ties, 6);
    CHECK(lab_atomics_argmax_index(p) == 1 && lab_atomics_argmax_value(p) == 3.0f,
          "argmax of ties: x[%lld] = %g, expected x[1] = 3", (long long)lab_atomics_argmax_index(p),
          lab_atomics_argmax_value(p));
    for (size_t i = 0; i < no; i++) {
        uint64_t q = lab_atomics_argmax_pack(order[i], (uint32_t)(i * 1000003u));
        CHECK(q != 0 && lab_atomics_argmax_index(q) == (int64_t)(i * 1000003u) &&
                  test_f32_bits(lab_atomics_argmax_value(q)) == test_f32_bits(order[i]),
              "argmax pack round trip of %g", order[i]);
    }
    CHECK(lab_atomics_argmax_pack(nan, 3) == 0, "a NaN packs as empty");
    CHECK(lab_atomics_argmax_pack(0.0f, 5) > lab_atomics_argmax_pack(-0.0f, 2), "+0 beats -0");
    CHECK(lab_atomics_argmax_pack(2.0f, 5) > lab_atomics_argmax_pack(2.0f, 6), "a tie: lower index wins");

    /* The cases: the properties each was built for. */
    static float x[1001];
    const size_t n = 1001;
    CHECK(lab_atomics_case(LAB_ATOM_NCASES, x, n) == NULL && lab_atomics_case(-1, NULL, 0) == NULL, "cases end");
    lab_atomics_case(LAB_ATOM_CASE_ZEROS, x, n);
    CHECK(test_f32_bits(lab_atomics_f32_max_host(x, n)) == 0 && test_f32_bits(lab_atomics_f32_min_host(x, n)) == 0x80000000u,
          "zeros case: max +0, min -0");
    lab_atomics_case(LAB_ATOM_CASE_NAN, x, n);
    size_t nans = 0;
    for (size_t i = 0; i < n; i++) nans += isnan(x[i]) != 0;
    CHECK(nans > 50 && lab_atomics_f32_max_host(x, n) == INFINITY && lab_atomics_f32_min_host(x, n) == -INFINITY,
          "NaN case: %zu NaNs, max +inf, min -inf", nans);
    lab_atomics_case(LAB_ATOM_CASE_TIES, x, n);
    CHECK(lab_atomics_argmax_index(lab_atomics_argmax_host(x, n)) == 6, "ties case: argmax at 6");
    lab_atomics_case(LAB_ATOM_CASE_UNIFORM, x, n);
    float m = -INFINITY;
    for (size_t i = 0; i < n; i++) m = x[i] > m ? x[i] : m;
    CHECK(lab_atomics_f32_max_host(x, n) == m, "uniform: max %g", m);

    /* The race's expected counts add up to every increment. */
    static const unsigned shapes[][4] = {{1, 1, 32, 1}, {7, 3, 1024, 5}, {1024, 2, 96, 3}, {32, 512, 256, 8}};
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        uint64_t sum = 0;
        for (unsigned a = 0; a < shapes[k][0]; a++)
            sum += lab_atomics_race_expected((int)shapes[k][0], shapes[k][1], shapes[k][2], shapes[k][3], (int)a);
        CHECK(sum == (uint64_t)shapes[k][1] * shapes[k][2] * shapes[k][3], "race shape %zu: %llu", k,
              (unsigned long long)sum);
    }
    CHECK(lab_atomics_method_name(LAB_ATOM_NMETHODS) == NULL && lab_atomics_method_code(-1) == NULL,
          "method names end");
}

static void check_bad(cupat_ctx *ctx)
{
    uint32_t c[4];
    float f = 1.0f, mx, mn;
    uint64_t am;
    lab_atomics_rate r;
    const cupat_status INV = CUPAT_ERROR_INVALID_VALUE;
    CHECK_FAILS(ctx, INV, "method = 9", lab_atomics_race(ctx, 9, 1, 1, 32, 1, c));
    CHECK_FAILS(ctx, INV, "addresses = 0", lab_atomics_race(ctx, LAB_ATOM_ATOMIC, 0, 1, 32, 1, c));
    CHECK_FAILS(ctx, INV, "addresses = 1025", lab_atomics_race(ctx, LAB_ATOM_ATOMIC, 1025, 1, 32, 1, c));
    CHECK_FAILS(ctx, INV, "threads = 33", lab_atomics_race(ctx, LAB_ATOM_ATOMIC, 1, 1, 33, 1, c));
    CHECK_FAILS(ctx, INV, "threads = 2048", lab_atomics_race(ctx, LAB_ATOM_ATOMIC, 1, 1, 2048, 1, c));
    CHECK_FAILS(ctx, INV, "blocks = 0", lab_atomics_race(ctx, LAB_ATOM_ATOMIC, 1, 0, 32, 1, c));
    CHECK_FAILS(ctx, INV, "per_thread = 0", lab_atomics_race(ctx, LAB_ATOM_ATOMIC, 1, 1, 32, 0, c));
    CHECK_FAILS(ctx, INV, "does not fit", lab_atomics_race(ctx, LAB_ATOM_ATOMIC, 1, 1u << 22, 1024, 1, c));
    CHECK_FAILS(ctx, INV, "counts is NULL", lab_atomics_race(ctx, LAB_ATOM_ATOMIC, 1, 1, 32, 1, NULL));
    CHECK_FAILS(NULL, INV, "ctx is NULL", lab_atomics_race(NULL, LAB_ATOM_ATOMIC, 1, 1, 32, 1, c));
    CHECK_FAILS(ctx, INV, "n = 0", lab_atomics_custom(ctx, &f, 0, &mx, &mn, &am));
    CHECK_FAILS(ctx, INV, "x is NULL", lab_atomics_custom(ctx, NULL, 1, &mx, &mn, &am));
    CHECK_FAILS(ctx, INV, "argmax_out is NULL", lab_atomics_custom(ctx, &f, 1, &mx, &mn, NULL));
    CHECK_FAILS(ctx, INV, "where = 5", lab_atomics_rate_run(ctx, 5, 1, 1, 1, 1, &r));
    CHECK_FAILS(ctx, INV, "spread = 1025", lab_atomics_rate_run(ctx, LAB_ATOM_GLOBAL, 1025, 1, 1, 1, &r));
    CHECK_FAILS(ctx, INV, "blocks = 0", lab_atomics_rate_run(ctx, LAB_ATOM_GLOBAL, 1, 0, 1, 1, &r));
    CHECK_FAILS(ctx, INV, "iters = 0", lab_atomics_rate_run(ctx, LAB_ATOM_GLOBAL, 1, 1, 0, 1, &r));
    CHECK_FAILS(ctx, INV, "reps = 0", lab_atomics_rate_run(ctx, LAB_ATOM_SHARED, 1, 1, 1, 0, &r));
    CHECK_FAILS(ctx, INV, "does not fit", lab_atomics_rate_run(ctx, LAB_ATOM_GLOBAL, 1, 1u << 20, 4096, 1, &r));
    CHECK_FAILS(ctx, INV, "out is NULL", lab_atomics_rate_run(ctx, LAB_ATOM_GLOBAL, 1, 1, 1, 1, NULL));
    CHECK_FAILS(ctx, INV, "method = 99", cupat__lab_atom_race(ctx, 99, 1, 1, 32, 1, NULL));
    if (t_backend == CUPAT_BACKEND_CPU) {
        const cupat_status NS = CUPAT_ERROR_NOT_SUPPORTED;
        CHECK_FAILS(ctx, NS, "CUDA backend", lab_atomics_race(ctx, LAB_ATOM_ATOMIC, 1, 1, 32, 1, c));
        CHECK_FAILS(ctx, NS, "CUDA backend", lab_atomics_custom(ctx, &f, 1, &mx, &mn, &am));
        CHECK_FAILS(ctx, NS, "CUDA backend", lab_atomics_rate_run(ctx, LAB_ATOM_GLOBAL, 1, 1, 1, 1, &r));
    }
}

static void check_race(cupat_ctx *ctx)
{
    static uint32_t got[LAB_ATOM_MAX_ADDRESSES];
    static const unsigned shapes[][4] = {/* addresses, blocks, threads, per_thread */
                                         {1, 512, 256, 8},  {32, 512, 256, 8}, {1024, 512, 256, 8},
                                         {7, 3, 1024, 5},   {1024, 1, 96, 3},  {1, 1, 32, 1}};
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        const int A = (int)shapes[k][0];
        for (int m = 0; m < LAB_ATOM_NMETHODS; m++) {
            for (int a = 0; a < A; a++) got[a] = 0xDEADBEEFu; /* poison */
            CHECK_OK(ctx, lab_atomics_race(ctx, m, A, shapes[k][1], shapes[k][2], shapes[k][3], got));
            uint64_t exp = 0, sum = 0;
            int wrong = 0, over = 0, first = -1;
            for (int a = 0; a < A; a++) {
                uint64_t e = lab_atomics_race_expected(A, shapes[k][1], shapes[k][2], shapes[k][3], a);
                exp += e;
                sum += got[a];
                if (got[a] != e && wrong++ == 0) first = a;
                over += got[a] > e;
            }
            if (m == LAB_ATOM_PLAIN) {
                /* Every stored value is a loaded one + 1, so a counter never
                 * exceeds its increments; how many are lost is timing. */
                CHECK(over == 0, "plain, %d addresses: %d counters above their increments", A, over);
                printf("race: plain, %d addresses, %u x %u threads x %u: %llu of %llu updates lost\n", A,
                       shapes[k][1], shapes[k][2], shapes[k][3], (unsigned long long)(exp - (sum < exp ? sum : exp)),
                       (unsigned long long)exp);
            } else {
                CHECK(wrong == 0, "%s, shape %zu (%d addresses): %d counters wrong, c[%d] = %u, expected %llu",
                      lab_atomics_method_name(m), k, A, wrong, first, first >= 0 ? got[first] : 0,
                      first >= 0 ? (unsigned long long)lab_atomics_race_expected(A, shapes[k][1], shapes[k][2],
                                                                                 shapes[k][3], first)
                                 : 0ull);
            }
        }
    }
}

static void check_custom(cupat_ctx *ctx)
{
    static const size_t sizes[] = {1, 2, 33, 1000, 100003, 1u << 20};
    float *x = malloc(((size_t)1 << 20) * sizeof *x);
    CHECK(x != NULL, "host memory");
    if (!x) return;
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        const size_t n = t_small && sizes[k] > 100003 ? 100003 : sizes[k];
        for (int c = 0; c < LAB_ATOM_NCASES; c++) {
            const char *name = lab_atomics_case(c, x, n);
            float gmax = 0, gmin = 0;
            uint64_t garg = 1;
            CHECK_OK(ctx, lab_atomics_custom(ctx, x, n, &gmax, &gmin, &garg));
            const float hmax = lab_atomics_f32_max_host(x, n), hmin = lab_atomics_f32_min_host(x, n);
            const uint64_t harg = lab_atomics_argmax_host(x, n);
            CHECK(test_f32_bits(gmax) == test_f32_bits(hmax), "%s, n = %zu: max %g (%08x), host %g (%08x)", name, n, gmax,
                  test_f32_bits(gmax), hmax, test_f32_bits(hmax));
            CHECK(test_f32_bits(gmin) == test_f32_bits(hmin), "%s, n = %zu: min %g (%08x), host %g (%08x)", name, n, gmin,
                  test_f32_bits(gmin), hmin, test_f32_bits(hmin));
            CHECK(garg == harg, "%s, n = %zu: argmax x[%lld] = %g, host x[%lld] = %g", name, n,
                  (long long)lab_atomics_argmax_index(garg), lab_atomics_argmax_value(garg),
                  (long long)lab_atomics_argmax_index(harg), lab_atomics_argmax_value(harg));
        }
    }
    free(x);
}

static void check_rates(cupat_ctx *ctx)
{
    static const unsigned spreads[] = {1, 7, 32, 1024, LAB_ATOM_SPREAD_ALL};
    for (int w = LAB_ATOM_GLOBAL; w <= LAB_ATOM_SHARED; w++)
        for (size_t k = 0; k < sizeof spreads / sizeof spreads[0]; k++) {
            lab_atomics_rate r;
            CHECK_OK(ctx, lab_atomics_rate_run(ctx, w, spreads[k], 3, 5, 3, &r));
            CHECK(r.ok, "%s, spread %u: %s", w == LAB_ATOM_GLOBAL ? "global" : "shared", spreads[k], r.msg);
            CHECK(r.ms > 0 && r.per_s > 0 && r.updates == 3.0 * 1024 * 5, "%s, spread %u: ms %g, updates %g",
                  w == LAB_ATOM_GLOBAL ? "global" : "shared", spreads[k], r.ms, r.updates);
        }
}

int main(int argc, char **argv)
{
    cupat_ctx *ctx = test_init(argc, argv);
    check_model();
    check_bad(ctx);
    if (t_backend == CUPAT_BACKEND_CUDA) {
        check_race(ctx);
        check_custom(ctx);
        check_rates(ctx);
    }
    return test_finish(ctx);
}
