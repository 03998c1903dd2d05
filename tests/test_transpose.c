/* SPDX-License-Identifier: Apache-2.0 */
/* test_transpose.c — every rung of the context's backend against a reference
 * loop, exactly (elements are moved as raw words), over edge shapes, padded
 * leading dimensions, aligned and unaligned pitches, 4- and 8-byte elements;
 * the output's padding must stay untouched. Then the argument checks. */
#include "testutil.h"

typedef struct shape {
    size_t rows, cols, ld_in, ld_out; /* ld 0: tight */
    size_t shift; /* in and out start this many elements into their buffers */
} shape;

static size_t cap_serial = (size_t)1 << 22; /* CUPAT_TRANSPOSE_SERIAL_MAX */

static void fill(void *p, size_t bytes)
{
    unsigned char *b = p;
    for (size_t i = 0; i < bytes; i++) b[i] = (unsigned char)test_rand();
}

/* One run of the pinned rung on one shape; exact comparison. */
static void check_shape(cupat_ctx *ctx, const char *rung, shape s, size_t es)
{
    size_t ldi = s.ld_in ? s.ld_in : s.cols, ldo = s.ld_out ? s.ld_out : s.rows;
    size_t in_bytes = (s.rows * ldi + s.shift) * es, out_bytes = (s.cols * ldo + s.shift) * es;
    unsigned char *h_in = malloc(in_bytes), *h_out = malloc(out_bytes);
    if (!h_in || !h_out) {
        CHECK(0, "host allocation");
        free(h_in);
        free(h_out);
        return;
    }
    fill(h_in, in_bytes);
    void *d_in = test_upload(ctx, h_in, in_bytes);
    void *d_out = test_upload(ctx, NULL, out_bytes);
    test_poison(ctx, d_out, out_bytes);
    CHECK_OK(ctx, cupat_transpose(ctx, s.rows, s.cols, es, (char *)d_in + s.shift * es, ldi,
                                  (char *)d_out + s.shift * es, ldo));
    test_download(ctx, h_out, d_out, out_bytes);

    size_t bad = 0, first_x = 0, first_y = 0;
    for (size_t k = 0; k < s.shift * es; k++) bad += h_out[k] != 0xFF; /* before out */
    const unsigned char *hin = h_in + s.shift * es, *hout = h_out + s.shift * es;
    for (size_t x = 0; x < s.cols; x++) {
        for (size_t y = 0; y < ldo; y++) {
            const unsigned char *got = hout + (x * ldo + y) * es;
            int ok;
            if (y < s.rows) {
                ok = memcmp(got, hin + (y * ldi + x) * es, es) == 0;
            } else { /* padding: still poison */
                ok = 1;
                for (size_t k = 0; k < es; k++) ok &= got[k] == 0xFF;
            }
            if (!ok && bad++ == 0) first_x = x, first_y = y;
        }
    }
    CHECK(bad == 0,
          "rung %s, %zu x %zu (ld_in %zu, ld_out %zu, shift %zu), %zu-byte: %zu wrong, first at "
          "out[%zu][%zu]",
          rung, s.rows, s.cols, ldi, ldo, s.shift, es, bad, first_x, first_y);
    cupat_free(ctx, d_in);
    cupat_free(ctx, d_out);
    free(h_in);
    free(h_out);
}

static void test_rungs(cupat_ctx *ctx)
{
    /* Shapes: degenerate, odd, padded, 16-byte aligned pitches with ragged
     * edges (the vector path plus its edge tiles), unaligned pitches (the
     * fallback). The big ones only on CUDA and not under --small. */
    static const shape small[] = {
        {1, 1, 0, 0, 0},     {1, 300, 0, 0, 0},    {300, 1, 0, 0, 0},  {31, 33, 0, 0, 0},
        {33, 31, 40, 35, 0}, {64, 64, 0, 0, 0},    {128, 96, 0, 0, 0}, {100, 37, 41, 104, 0},
        {130, 257, 260, 132, 0}, {200, 300, 0, 0, 0}, {130, 257, 260, 132, 1}, /* unaligned bases */
        /* more tiles than one wave of the persistent rung's blocks (vec8_2x2_pipe:
         * 625 / 1250 tiles), so its double-buffered loop turns over under
         * compute-sanitizer's --small runs too */
        {1, 40000, 0, 0, 0}, {40000, 1, 0, 0, 0},
    };
    static const shape big[] = {
        {4097, 3001, 0, 0, 0}, {4097, 3001, 3004, 4100, 0}, {1024, 2048, 0, 0, 0}, {3001, 4097, 4099, 3003, 0},
        {16384, 64, 0, 0, 0}, {64, 16384, 0, 0, 0}, {1000, 1000, 1004, 1004, 2},
    };
    static const shape cpu_big[] = {{1025, 769, 0, 0, 0}, {769, 1025, 1028, 772, 0}};
    const cupat_variant_info *list;
    size_t count;
    CHECK_OK(ctx, cupat_variants("transpose", &list, &count));
    for (size_t r = 0; r < count; r++) {
        if (list[r].backend != t_backend) continue;
        CHECK_OK(ctx, cupat_set_variant(ctx, "transpose", list[r].name));
        int serial = strcmp(list[r].name, "serial") == 0;
        for (size_t es = 4; es <= 8; es += 4) {
            for (size_t i = 0; i < sizeof small / sizeof small[0]; i++)
                check_shape(ctx, list[r].name, small[i], es);
            if (t_small || serial) continue;
            if (t_backend == CUPAT_BACKEND_CUDA)
                for (size_t i = 0; i < sizeof big / sizeof big[0]; i++)
                    check_shape(ctx, list[r].name, big[i], es);
            else
                for (size_t i = 0; i < sizeof cpu_big / sizeof cpu_big[0]; i++)
                    check_shape(ctx, list[r].name, cpu_big[i], es);
        }
    }
    CHECK_OK(ctx, cupat_set_variant(ctx, "transpose", NULL));
}

static void test_registry(void)
{
    const cupat_variant_info *list;
    size_t count;
    int defaults[3] = {0, 0, 0};
    CHECK(cupat_variants("transpose", &list, &count) == CUPAT_SUCCESS, "transpose registered");
    for (size_t i = 0; i < count; i++) {
        CHECK(strcmp(list[i].pattern, "transpose") == 0, "rung %zu pattern", i);
        CHECK(list[i].technique && *list[i].technique && list[i].source && *list[i].source,
              "rung %s documented", list[i].name);
        for (size_t j = 0; j < i; j++)
            CHECK(strcmp(list[i].name, list[j].name) != 0, "duplicate rung %s", list[i].name);
        if (list[i].is_default) defaults[list[i].backend]++;
    }
    CHECK(defaults[CUPAT_BACKEND_CPU] == 1 && defaults[CUPAT_BACKEND_CUDA] == 1,
          "one default per backend (cpu %d, cuda %d)", defaults[1], defaults[2]);
}

static void test_errors(cupat_ctx *ctx)
{
    enum { R = 8, C = 12 };
    void *in = test_upload(ctx, NULL, R * C * 8), *out = test_upload(ctx, NULL, R * C * 8);
    static float host[R * C];
    CHECK_FAILS(NULL, CUPAT_ERROR_NULL_POINTER, "ctx is NULL",
                cupat_transpose(NULL, R, C, 4, in, C, out, R));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "elem_size = 3",
                cupat_transpose(ctx, R, C, 3, in, C, out, R));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "elem_size = 16",
                cupat_transpose(ctx, R, C, 16, in, C, out, R));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "in is NULL",
                cupat_transpose(ctx, R, C, 4, NULL, C, out, R));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "out is NULL",
                cupat_transpose(ctx, R, C, 4, in, C, NULL, R));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "ld_in = 11 < cols = 12",
                cupat_transpose(ctx, R, C, 4, in, C - 1, out, R));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "ld_out = 7 < rows = 8",
                cupat_transpose(ctx, R, C, 4, in, C, out, R - 1));
    CHECK_FAILS(ctx, CUPAT_ERROR_SIZE, "overflows",
                cupat_transpose(ctx, SIZE_MAX / 4, 2, 8, in, 2, out, SIZE_MAX / 4));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "overlap",
                cupat_transpose(ctx, R, C, 4, in, C, in, R));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "overlap",
                cupat_transpose(ctx, R, C, 4, in, C, (char *)in + 4, R));
    if (t_backend == CUPAT_BACKEND_CUDA) {
        CHECK_FAILS(ctx, CUPAT_ERROR_HOST_POINTER, "in = ",
                    cupat_transpose(ctx, R, C, 4, host, C, out, R));
        CHECK_FAILS(ctx, CUPAT_ERROR_HOST_POINTER, "out = ",
                    cupat_transpose(ctx, R, C, 4, in, C, host, R));
        /* The one-thread rung refuses big matrices instead of running for minutes. */
        void *bin = test_upload(ctx, NULL, cap_serial * 2 * 4);
        void *bout = test_upload(ctx, NULL, cap_serial * 2 * 4);
        CHECK_OK(ctx, cupat_set_variant(ctx, "transpose", "serial"));
        CHECK_FAILS(ctx, CUPAT_ERROR_NOT_SUPPORTED, "serial",
                    cupat_transpose(ctx, cap_serial, 2, 4, bin, 2, bout, cap_serial));
        cupat_free(ctx, bin);
        cupat_free(ctx, bout);
        CHECK_OK(ctx, cupat_set_variant(ctx, "transpose", NULL));
        CHECK_FAILS(ctx, CUPAT_ERROR_NOT_SUPPORTED, "cuda",
                    cupat_set_variant(ctx, "transpose", "cpu"));
    } else {
        CHECK_FAILS(ctx, CUPAT_ERROR_NOT_SUPPORTED, "cpu",
                    cupat_set_variant(ctx, "transpose", "vec16_wide"));
    }
    /* Empty matrices do nothing, even with NULL data. */
    CHECK_OK(ctx, cupat_transpose(ctx, 0, C, 4, NULL, C, NULL, 0));
    CHECK_OK(ctx, cupat_transpose(ctx, R, 0, 8, NULL, 0, NULL, R));
    CHECK_OK(ctx, cupat_sync(ctx));
    cupat_free(ctx, in);
    cupat_free(ctx, out);
}

int main(int argc, char **argv)
{
    cupat_ctx *ctx = test_init(argc, argv);
    test_seed();
    test_registry();
    test_rungs(ctx);
    test_errors(ctx);
    return test_finish(ctx);
}
