/* SPDX-License-Identifier: Apache-2.0 */
/* test_async_lab.c — the asynchronous-copy lab (lab/async).
 * cpu:  the experiment table and what each needs; the words differ from
 *       their neighbours; the weighted tile sums (light and heavy) against
 *       a direct sum; what each block of a grid should write; the barrier
 *       loop's model on a tiny block; the TMA swizzle model (a bijection
 *       keeping 16-byte chunks, known offsets, the bank conflicts of a
 *       column and a row in each mode); bad arguments, the CPU backend.
 * cuda: every experiment runs and no row's check fails (a device below an
 *       experiment's compute capability gives one 'not supported' row).
 *       With --small (compute-sanitizer) barrier, memcpy, entangle and
 *       swizzle only. */
#include "testutil.h"

#include "async/async.h"

static void check_table(void)
{
    for (int e = 0; e < LAB_ASY_NEXP; e++) {
        const lab_exp *x = lab_async_exp(e);
        CHECK(x && x->name && x->title && x->source && x->unit && lab_async_find(x->name) == e, "experiment %d", e);
        CHECK(lab_async_need(e) == 80 || lab_async_need(e) == 90, "experiment %d needs cc %d", e, lab_async_need(e));
    }
    CHECK(lab_async_exp(LAB_ASY_NEXP) == NULL && lab_async_exp(-1) == NULL && lab_async_find("nope") == -1,
          "table ends");
    CHECK(lab_async_need(LAB_ASY_TENSOR) == 90 && lab_async_need(LAB_ASY_BULK) == 90 &&
              lab_async_need(LAB_ASY_PIPELINE) == 80 && lab_async_need(-1) == -1,
          "TMA needs 9.0, cp.async 8.0");
}

static void check_words(void)
{
    int same = 0;
    for (uint64_t i = 0; i < (1u << 20); i++) same += lab_async_word(i) == lab_async_word(i + 1);
    CHECK(same == 0, "neighbouring words differ (%d equal)", same);
    CHECK(lab_async_word(5) != lab_async_word(5 + (1ull << 32)), "the high half of the index counts");
    CHECK(lab_async_weight(0) == 1 && lab_async_weight(2047) == 4095 && lab_async_weight(2048) == 1,
          "weights by place in an 8 KiB tile");
}

static void check_sums(void)
{
    enum { NT = 6 };
    uint32_t got[NT];
    for (int heavy = 0; heavy <= 1; heavy++) {
        const size_t off = 3;
        CHECK(lab_async_tile_sums(got, NT, off, heavy) == 0, "tile sums");
        for (size_t g = 0; g < NT; g++) {
            uint32_t s = 0;
            for (uint32_t j = 0; j < LAB_ASY_TILE_WORDS; j++) {
                uint32_t x = lab_async_word(off + g * LAB_ASY_TILE_WORDS + j);
                s += (heavy ? lab_async_heavy(x) : x) * lab_async_weight(j);
            }
            CHECK(got[g] == s, "heavy %d tile %zu: %08x, direct %08x", heavy, g, got[g], s);
        }
    }
    /* 10 tiles in kernel tiles of 2 (5 of them) over 3 blocks: block 0
     * takes kernel tiles 0 and 3, block 1 tiles 1 and 4, block 2 tile 2. */
    uint32_t sums[10], want[4];
    for (int i = 0; i < 10; i++) sums[i] = 1u << i;
    lab_async_block_expect(sums, 10, 2, 3, want);
    CHECK(want[0] == (1u | 2u | 64u | 128u) && want[1] == (4u | 8u | 256u | 512u) && want[2] == (16u | 32u),
          "block expectations %x %x %x", want[0], want[1], want[2]);
    lab_async_block_expect(sums, 10, 1, 4, want);
    CHECK(want[3] == (8u | 128u), "per 1, grid 4: block 3 takes tiles 3, 7 (%x)", want[3]);
}

static void check_phase_model(void)
{
    uint32_t out[2];
    const uint32_t v0 = 1u, v1 = 0x9E3779B1u + 1u;
    CHECK(lab_async_phase_model(2, 1, 0, out) == 0 && out[0] == (3u * v0 + v1) && out[1] == ((3u * v1 + v0) ^ 1u),
          "2 threads, 1 phase: %08x %08x", out[0], out[1]);
    /* x = 1 after one xorshift round: 1 ^ 1 << 13 = 8193, ^ >> 17: same, ^ << 5: 8193 ^ 262176 */
    CHECK(lab_async_xorshift(1) == (8193u ^ 262176u), "xorshift(1) = %u", lab_async_xorshift(1));
    CHECK(lab_async_phase_model(2, 1, 1, out) == 0 && out[1] == ((3u * v1 + v0) ^ lab_async_xorshift(1)),
          "one round of work");
    uint32_t big[1024];
    CHECK(lab_async_phase_model(0, 1, 0, big) == -1 && lab_async_phase_model(1025, 1, 0, big) == -1, "bad sizes");
    CHECK(lab_async_phase_model(1024, 4, 2, big) == 0, "1024 threads");
}

static void check_swizzle(void)
{
    static const unsigned modes[] = {0, 32, 64, 128};
    for (int m = 0; m < 4; m++) {
        const unsigned mode = modes[m];
        unsigned char hit[1024] = {0};
        int bad = 0, chunk = 0;
        for (unsigned r = 0; r < 32; r++)
            for (unsigned c = 0; c < 32; c++) {
                const uint32_t o = lab_async_tile_offset(mode, r, c);
                if (o >= 4096 || o % 4 || hit[o / 4]++) bad++;
                chunk += o - lab_async_tile_offset(mode, r, c & ~3u) != (c & 3u) * 4;
            }
        CHECK(bad == 0, "swizzle %u: a bijection onto the tile's 1024 words (%d clashes)", mode, bad);
        CHECK(chunk == 0, "swizzle %u: 16-byte chunks stay whole (%d)", mode, chunk);
    }
    CHECK(lab_async_tile_offset(0, 3, 5) == 3 * 128 + 20, "none: row-major");
    CHECK(lab_async_tile_offset(128, 1, 0) == 144, "128B: row 1's first chunk moves to chunk 1");
    CHECK(lab_async_tile_offset(128, 7, 4) == 7 * 128 + 96, "128B: row 7 chunk 1 -> chunk 6");
    CHECK(lab_async_tile_offset(128, 8, 0) == 8 * 128, "128B: repeats every 8 rows");
    CHECK(lab_async_tile_offset(64, 1, 0) == 64 && lab_async_tile_offset(64, 2, 0) == 144,
          "64B: two rows a 128-byte line, the pair's index xors the chunk");
    CHECK(lab_async_tile_offset(64, 0, 16) == 2048, "64B: columns 16.. in the second box");
    CHECK(lab_async_tile_offset(32, 4, 0) == 144 && lab_async_tile_offset(32, 3, 9) == 1024 + 100,
          "32B: 8-column boxes, one bit of xor");
    CHECK(lab_async_swizzle(128, 1024 + 128) == 1024 + 144, "the pattern repeats every 1024 bytes");
    /* the model's bank conflicts: a warp reading a column / writing a row */
    CHECK(lab_async_ways(0, 1) == 32 && lab_async_ways(0, 0) == 1, "none: column 32-way, row free");
    CHECK(lab_async_ways(128, 1) == 4 && lab_async_ways(128, 0) == 1, "128B: column %d-way, row %d-way",
          lab_async_ways(128, 1), lab_async_ways(128, 0));
    CHECK(lab_async_ways(64, 1) == 4 && lab_async_ways(64, 0) == 2, "64B: column %d-way, row %d-way",
          lab_async_ways(64, 1), lab_async_ways(64, 0));
    CHECK(lab_async_ways(32, 1) == 4 && lab_async_ways(32, 0) == 4, "32B: column %d-way, row %d-way",
          lab_async_ways(32, 1), lab_async_ways(32, 0));
}

static void check_bad(cupat_ctx *ctx)
{
    lab_row rows[LAB_MAX_ROWS];
    int n = 0;
    const cupat_status INV = CUPAT_ERROR_INVALID_VALUE;
    CHECK_FAILS(ctx, INV, "experiment = 99", lab_async_run(ctx, 99, 1, rows, &n));
    CHECK_FAILS(ctx, INV, "reps = 0", lab_async_run(ctx, LAB_ASY_BARRIER, 0, rows, &n));
    CHECK_FAILS(ctx, INV, "rows is NULL", lab_async_run(ctx, LAB_ASY_BARRIER, 1, NULL, &n));
    CHECK_FAILS(NULL, INV, "ctx is NULL", lab_async_run(NULL, LAB_ASY_BARRIER, 1, rows, &n));
    if (t_backend == CUPAT_BACKEND_CPU)
        CHECK_FAILS(ctx, CUPAT_ERROR_NOT_SUPPORTED, "CUDA backend", lab_async_run(ctx, LAB_ASY_BARRIER, 1, rows, &n));
}

static void check_gpu(cupat_ctx *ctx)
{
    lab_set_sanitizer(t_sanitizer); /* synccheck: the cp.async arrive-on row is not run */
    static const int small[] = {LAB_ASY_BARRIER, LAB_ASY_MEMCPY, LAB_ASY_ENTANGLE, LAB_ASY_SWIZZLE};
    for (int e = 0; e < LAB_ASY_NEXP; e++) {
        int run = !t_small;
        for (size_t k = 0; k < sizeof small / sizeof small[0]; k++) run |= small[k] == e;
        if (!run) continue;
        lab_row rows[LAB_MAX_ROWS];
        int n = 0;
        CHECK_OK(ctx, lab_async_run(ctx, e, 2, rows, &n));
        CHECK(n > 0, "%s: rows", lab_async_exp(e)->name);
        for (int k = 0; k < n; k++) {
            printf("%-9s %-58s %10.4f ms %12.5g %s  %s\n", lab_async_exp(e)->name, rows[k].name, rows[k].ms,
                   rows[k].value, rows[k].ok < 0 ? "-" : rows[k].ok ? "ok" : "FAIL", rows[k].note);
            CHECK(rows[k].ok != 0, "%s / %s: %s", lab_async_exp(e)->name, rows[k].name, rows[k].note);
            CHECK(rows[k].ms >= 0, "%s / %s: time", lab_async_exp(e)->name, rows[k].name);
        }
    }
}

int main(int argc, char **argv)
{
    cupat_ctx *ctx = test_init(argc, argv);
    check_table();
    check_words();
    check_sums();
    check_phase_model();
    check_swizzle();
    check_bad(ctx);
    if (t_backend == CUPAT_BACKEND_CUDA) check_gpu(ctx);
    return test_finish(ctx);
}
