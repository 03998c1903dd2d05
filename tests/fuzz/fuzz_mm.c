/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_mm.c — libFuzzer target: the Matrix Market parser behind cupat_mm_read
 * (src/core/matrix_market.c). Where an input parses, its entries are written
 * again (general coordinate real, %.17g) and parsed back: the same entries,
 * bit for bit, must come back. A crash, a sanitizer report, a leak or a
 * failed round trip stops the fuzzer with the input saved. */
#include "internal.h"
#include "core/matrix_market.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2 || data[0] != '%') return -1; /* not a Matrix Market file */
    mm_coo m, back;
    if (cupat__mm_parse(NULL, (const char *)data, size, "(fuzz)", &m) != CUPAT_SUCCESS) return 0;
    /* A symmetric file with repeated entries expands past rows x cols: written
     * as general it breaks the count rule the parser holds general files to
     * (cupat_mm_write writes a handle, whose repeats are summed, so users never
     * meet it): no round trip for those. */
    if (m.nnz <= (1u << 16) && (double)m.nnz <= (double)m.rows * (double)m.cols) {
        char *text;
        size_t len;
        if (cupat__mm_format(NULL, "fuzz", &m, 0, 17, &text, &len) != CUPAT_SUCCESS) abort();
        if (cupat__mm_parse(NULL, text, len, "(round trip)", &back) != CUPAT_SUCCESS) abort();
        if (back.rows != m.rows || back.cols != m.cols || back.nnz != m.nnz ||
            (m.nnz && (memcmp(back.r, m.r, m.nnz * sizeof *m.r) != 0 ||
                       memcmp(back.c, m.c, m.nnz * sizeof *m.c) != 0 ||
                       memcmp(back.v, m.v, m.nnz * sizeof *m.v) != 0)))
            abort();
        cupat__mm_free(&back);
        free(text);
    }
    cupat__mm_free(&m);
    return 0;
}
