/* SPDX-License-Identifier: Apache-2.0 */
/* sparse_gen.c — the standard test families (cupat_sparse_generate): built as
 * host CSR (or COO for R-MAT, whose duplicates the COO path sums), then handed
 * to the create calls. Deterministic from the seed (splitmix64). */
#include "internal.h"
#include "sparse/sparse_internal.h"

#include <stdlib.h>
#include <string.h>

static uint64_t mix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
/* uniform in [-1, 1), 24 bits: exact in f32 */
static double unit(uint64_t *s) { return (double)(mix(s) >> 40) * 0x1p-23 - 1.0; }

typedef struct gen {
    cupat_ctx *ctx;
    cupat_type it, vt;
    size_t rows, cols, nnz, cap;
    void *rp, *ci, *va; /* CSR (or COO rows in rp) in the handle's types */
} gen;

/* rows and per_row entries a row (COO: cap = rows x per_row triples). */
static cupat_status gen_alloc(gen *g, size_t rows, size_t per_row, int coo)
{
    size_t is = cupat_type_size(g->it), vs = cupat_type_size(g->vt), cap, bytes;
    CUPAT_TRY(cupat__size_mul(g->ctx, "cupat_sparse_generate", "entries (rows x per row)", rows,
                              per_row, 1, &cap));
    CUPAT_TRY(cupat__size_mul(g->ctx, "cupat_sparse_generate", "bytes of the entries", cap,
                              2 * is + vs, 1, &bytes));
    g->rows = rows;
    g->cap = cap;
    g->rp = malloc(((coo ? cap : rows) + 1) * is);
    g->ci = malloc((cap ? cap : 1) * is);
    g->va = malloc((cap ? cap : 1) * vs);
    if (!g->rp || !g->ci || !g->va)
        return cupat__fail(g->ctx, CUPAT_ERROR_OUT_OF_MEMORY,
                           "cupat_sparse_generate: no host memory for %zu rows and %zu entries "
                           "(%zu bytes)",
                           rows, cap, ((coo ? cap : rows) + 1 + (cap ? cap : 1)) * is +
                                          (cap ? cap : 1) * vs);
    if (!coo) sp_seti(g->rp, 0, g->it, 0);
    return CUPAT_SUCCESS;
}

static void gen_free(gen *g)
{
    free(g->rp);
    free(g->ci);
    free(g->va);
}

static void put(gen *g, int64_t c, double v)
{
    sp_seti(g->ci, g->nnz, g->it, c);
    sp_setv(g->va, g->nnz, g->vt, v);
    g->nnz++;
}
static void end_row(gen *g, size_t r) { sp_seti(g->rp, r + 1, g->it, (int64_t)g->nnz); }

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

cupat_status cupat_sparse_generate(cupat_ctx *ctx, cupat_sparse **A, cupat_sparse_family family,
                                   size_t n, size_t k, uint64_t seed, cupat_type index_type,
                                   cupat_type value_type)
{
    CUPAT_TRACE_CALL();
    const char *fn = "cupat_sparse_generate";
    CUPAT_TRY(cupat__begin(ctx, fn));
    if (!A) return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "%s: A is NULL", fn);
    *A = NULL;
    if ((index_type != CUPAT_I32 && index_type != CUPAT_I64) ||
        (value_type != CUPAT_F32 && value_type != CUPAT_F64))
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: index_type = %d, value_type = %d: want I32/I64 and F32/F64", fn,
                           (int)index_type, (int)value_type);
    if (n > ((size_t)1 << 32))
        return cupat__fail(ctx, CUPAT_ERROR_SIZE, "%s: n = %zu: at most 2^32", fn, n);
    gen g;
    memset(&g, 0, sizeof g);
    g.ctx = ctx;
    g.it = index_type;
    g.vt = value_type;
    uint64_t s = seed;
    cupat_status st = CUPAT_SUCCESS;
    size_t rows;
    switch (family) {
    case CUPAT_GEN_POISSON2D:
    case CUPAT_GEN_POISSON3D: {
        int d3 = family == CUPAT_GEN_POISSON3D;
        if (d3 ? n > 4096 : n > 65536)
            return cupat__fail(ctx, CUPAT_ERROR_SIZE, "%s: n = %zu: a %s grid of at most %d", fn,
                               n, d3 ? "3D" : "2D", d3 ? 4096 : 65536);
        rows = d3 ? n * n * n : n * n;
        st = gen_alloc(&g, rows, d3 ? 7 : 5, 0);
        for (size_t r = 0; !st && r < rows; r++) {
            size_t i = r % n, j = (r / n) % n, l = d3 ? r / (n * n) : 0;
            if (d3 && l > 0) put(&g, (int64_t)(r - n * n), -1.0);
            if (j > 0) put(&g, (int64_t)(r - n), -1.0);
            if (i > 0) put(&g, (int64_t)(r - 1), -1.0);
            put(&g, (int64_t)r, d3 ? 6.0 : 4.0);
            if (i + 1 < n) put(&g, (int64_t)(r + 1), -1.0);
            if (j + 1 < n) put(&g, (int64_t)(r + n), -1.0);
            if (d3 && l + 1 < n) put(&g, (int64_t)(r + n * n), -1.0);
            end_row(&g, r);
        }
        break;
    }
    case CUPAT_GEN_BANDED: {
        /* the widest band of an n x n matrix is k = n - 1 (all of it); a wider
         * one would have to be cut, and its diagonal would not be 2k + 1 */
        if (k > (n ? n - 1 : 0))
            return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                               "%s: banded k = %zu: an n = %zu matrix has diagonals |i - j| <= "
                               "%zu (k at most n - 1)",
                               fn, k, n, n ? n - 1 : 0);
        rows = n;
        st = gen_alloc(&g, rows, 2 * k + 1, 0);
        for (size_t r = 0; !st && r < rows; r++) {
            size_t lo = r > k ? r - k : 0, hi = r + k < n ? r + k : n - 1;
            for (size_t c = lo; c <= hi; c++) {
                /* symmetric: the value comes from the unordered pair */
                uint64_t h = seed ^ ((uint64_t)(c < r ? c : r) * 0x100000001B3ull +
                                     (uint64_t)(c < r ? r : c));
                put(&g, (int64_t)c, c == r ? (double)(2 * k + 1) : unit(&h));
            }
            end_row(&g, r);
        }
        break;
    }
    case CUPAT_GEN_RANDOM: {
        if (k > n)
            return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                               "%s: k = %zu distinct columns per row of an n = %zu matrix", fn, k,
                               n);
        rows = n;
        int64_t *row = malloc((k ? k : 1) * sizeof *row);
        if (!row)
            return cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY,
                               "%s: no host memory for a row's %zu columns (%zu bytes)", fn, k,
                               k * sizeof *row);
        st = gen_alloc(&g, rows, k, 0);
        for (size_t r = 0; !st && r < rows; r++) {
            /* Floyd's sample of k distinct columns */
            size_t m = 0;
            for (size_t j = n - k; j < n; j++) {
                int64_t t = (int64_t)(mix(&s) % (j + 1)), pick = t;
                for (size_t q = 0; q < m; q++)
                    if (row[q] == t) pick = (int64_t)j;
                row[m++] = pick;
            }
            qsort(row, m, sizeof *row, cmp_i64);
            for (size_t q = 0; q < m; q++) put(&g, row[q], unit(&s));
            end_row(&g, r);
        }
        free(row);
        break;
    }
    case CUPAT_GEN_RMAT: {
        int lg = 0;
        while (((size_t)1 << lg) < n) lg++;
        rows = (size_t)1 << lg;
        st = gen_alloc(&g, rows, k, 1);
        size_t m = st ? 0 : g.cap;
        for (size_t e = 0; !st && e < m; e++) {
            uint64_t r = 0, c = 0;
            for (int b = 0; b < lg; b++) {
                double u = (double)(mix(&s) >> 11) * 0x1p-53;
                /* quadrants a = 0.57, b = 0.19, c = 0.19, d = 0.05 */
                int down = u >= 0.76, right = (u >= 0.57 && u < 0.76) || u >= 0.95;
                r = r << 1 | (uint64_t)down;
                c = c << 1 | (uint64_t)right;
            }
            sp_seti(g.rp, e, g.it, (int64_t)r);
            put(&g, (int64_t)c, unit(&s));
        }
        if (!st)
            st = cupat_sparse_create_coo(ctx, A, rows, rows, g.nnz, g.it, g.vt, g.rp, g.ci, g.va,
                                         0);
        gen_free(&g);
        return st;
    }
    default:
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: family = %d is not a cupat_sparse_family", fn, (int)family);
    }
    if (!st)
        st = cupat_sparse_create_csr(ctx, A, rows, rows,
                                     g.nnz, g.it, g.vt, g.rp, g.ci, g.va, 0);
    gen_free(&g);
    return st;
}
