/* SPDX-License-Identifier: Apache-2.0 */
/* matrix_market.c — the Matrix Market reader and writer (math.nist.gov/MatrixMarket,
 * "The Matrix Market Exchange Formats: Initial Design", Boisvert, Pozo, Remington
 * 1996). Pure C on host memory: the parser takes bytes and gives 0-based COO
 * (mm_coo), the writer takes COO and gives text. It is a file reader, so every
 * count is checked against the bytes that are there before anything is
 * allocated, the dimensions against the entries listed
 * (cupat__file_dims_max), the arrays grow as entries arrive, and every
 * failure names the line (tests/fuzz/fuzz_mm.c fuzzes it). The handle side
 * (cupat_mm_read / _write) is in sparse.c. */
#include "internal.h"
#include "core/matrix_market.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Largest rows / cols a file may declare: row pointers are allocated from it. */
#define MM_MAX_DIM ((uint64_t)1 << 40)

typedef struct mm_in {
    cupat_ctx *ctx;
    const char *name;
    const char *p, *end; /* unread bytes */
    size_t line;         /* number of the line last taken */
    const char *ls, *le; /* that line, without its end of line */
} mm_in;

#define MM_FAIL(in, status, ...) mm_fail((in), (status), __VA_ARGS__)
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static cupat_status mm_fail(mm_in *in, cupat_status s, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return cupat__fail(in->ctx, s, "cupat_mm_read: %s line %zu: %s", in->name, in->line, msg);
}

/* Take the next line; 0 at the end of the data. */
static int next_line(mm_in *in)
{
    if (in->p >= in->end) return 0;
    const char *nl = memchr(in->p, '\n', (size_t)(in->end - in->p));
    in->ls = in->p;
    in->le = nl ? nl : in->end;
    in->p = nl ? nl + 1 : in->end;
    if (in->le > in->ls && in->le[-1] == '\r') in->le--;
    in->line++;
    return 1;
}

static int is_blank(const char *s, const char *e)
{
    for (; s < e; s++)
        if (*s != ' ' && *s != '\t') return 0;
    return 1;
}

/* Next data line: skips '%' comments and blank lines. */
static int next_data_line(mm_in *in)
{
    while (next_line(in))
        if (!(in->le > in->ls && in->ls[0] == '%') && !is_blank(in->ls, in->le)) return 1;
    return 0;
}

/* Split the current line into at most `max` tokens (spaces / tabs);
 * returns the count, max + 1 when there are more. */
static int tokens(mm_in *in, const char **ts, size_t *tl, int max)
{
    int n = 0;
    const char *s = in->ls;
    while (s < in->le) {
        while (s < in->le && (*s == ' ' || *s == '\t')) s++;
        if (s >= in->le) break;
        const char *t = s;
        while (s < in->le && *s != ' ' && *s != '\t') s++;
        if (n == max) return max + 1;
        ts[n] = t;
        tl[n] = (size_t)(s - t);
        n++;
    }
    return n;
}

static int tok_eq(const char *t, size_t l, const char *word)
{
    size_t w = strlen(word);
    if (l != w) return 0;
    for (size_t i = 0; i < l; i++)
        if (tolower((unsigned char)t[i]) != word[i]) return 0;
    return 1;
}

/* An unsigned decimal below 2^62; -1 when the token is not one. */
static int parse_u(const char *t, size_t l, uint64_t *v)
{
    if (l == 0 || l > 19) return -1;
    uint64_t x = 0;
    for (size_t i = 0; i < l; i++) {
        if (t[i] < '0' || t[i] > '9') return -1;
        x = x * 10 + (uint64_t)(t[i] - '0');
    }
    if (x >= ((uint64_t)1 << 62)) return -1;
    *v = x;
    return 0;
}

/* A value token: a finite real, or (integer field) an integer of at most
 * 2^53 in magnitude; with f32, also one that stays finite in f32 (1e39 is
 * finite text, but read as f32 it would be inf). 0 on success; else a
 * reason for the message. */
static const char *parse_value(const char *t, size_t l, int integer, int f32, double *v)
{
    char buf[128];
    if (l >= sizeof buf) return "is too long for a number";
    memcpy(buf, t, l);
    buf[l] = '\0';
    char *e;
    errno = 0;
    if (integer) {
        long long x = strtoll(buf, &e, 10);
        if (e != buf + l || l == 0) return "is not an integer";
        if (errno == ERANGE || x > (1LL << 53) || x < -(1LL << 53))
            return "is an integer beyond 2^53 (not exact in f64)";
        *v = (double)x;
        return NULL;
    }
    double x = strtod(buf, &e);
    if (e != buf + l || l == 0) return "is not a number";
    if (isnan(x)) return "is NaN (not a finite number)";
    if (isinf(x)) return "is not finite (overflow or inf)";
    if (f32 && isinf((float)x))
        return "overflows f32 (beyond +-3.4028235e38; read the matrix as f64)";
    *v = x;
    return NULL;
}

static cupat_status grow(mm_in *in, mm_coo *m, size_t *cap, size_t need)
{
    if (need <= *cap) return CUPAT_SUCCESS;
    size_t nc = *cap ? *cap : 1024;
    while (nc < need) nc *= 2;
    int64_t *r = realloc(m->r, nc * sizeof *r);
    if (r) m->r = r;
    int64_t *c = realloc(m->c, nc * sizeof *c);
    if (c) m->c = c;
    double *v = realloc(m->v, nc * sizeof *v);
    if (v) m->v = v;
    if (!r || !c || !v)
        return MM_FAIL(in, CUPAT_ERROR_OUT_OF_MEMORY,
                       "no host memory for %zu entries (%zu bytes of row, column and value "
                       "arrays)",
                       nc, nc * (2 * sizeof *r + sizeof *v));
    *cap = nc;
    return CUPAT_SUCCESS;
}

static cupat_status push(mm_in *in, mm_coo *m, size_t *cap, int64_t r, int64_t c, double v)
{
    CUPAT_TRY(grow(in, m, cap, m->nnz + 1));
    m->r[m->nnz] = r;
    m->c[m->nnz] = c;
    m->v[m->nnz] = v;
    m->nnz++;
    return CUPAT_SUCCESS;
}

void cupat__mm_free(mm_coo *m)
{
    if (!m) return;
    free(m->r);
    free(m->c);
    free(m->v);
    memset(m, 0, sizeof *m);
}

static cupat_status parse(mm_in *in, mm_coo *m, int f32)
{
    const char *t[6];
    size_t l[6];
    /* banner */
    if (!next_line(in)) return MM_FAIL(in, CUPAT_ERROR_FORMAT, "empty file (no banner)");
    int nt = tokens(in, t, l, 5);
    if (nt < 1 || !tok_eq(t[0], l[0], "%%matrixmarket"))
        return MM_FAIL(in, CUPAT_ERROR_FORMAT,
                       "bad banner: the file must start with \"%%%%MatrixMarket\"");
    if (nt != 5)
        return MM_FAIL(in, CUPAT_ERROR_FORMAT,
                       "bad banner: want \"%%%%MatrixMarket matrix FORMAT FIELD SYMMETRY\"");
    if (!tok_eq(t[1], l[1], "matrix"))
        return MM_FAIL(in, CUPAT_ERROR_FORMAT, "bad banner: object \"%.*s\" is not \"matrix\"",
                       (int)(l[1] > 32 ? 32 : l[1]), t[1]);
    unsigned kind = 0;
    if (tok_eq(t[2], l[2], "array")) kind |= MM_ARRAY;
    else if (!tok_eq(t[2], l[2], "coordinate"))
        return MM_FAIL(in, CUPAT_ERROR_FORMAT,
                       "bad banner: format \"%.*s\" is not coordinate or array",
                       (int)(l[2] > 32 ? 32 : l[2]), t[2]);
    if (tok_eq(t[3], l[3], "integer")) kind |= MM_INTEGER;
    else if (tok_eq(t[3], l[3], "pattern")) kind |= MM_PATTERN;
    else if (tok_eq(t[3], l[3], "complex"))
        return MM_FAIL(in, CUPAT_ERROR_NOT_SUPPORTED, "complex matrices are not supported");
    else if (!tok_eq(t[3], l[3], "real") && !tok_eq(t[3], l[3], "double"))
        return MM_FAIL(in, CUPAT_ERROR_FORMAT,
                       "bad banner: field \"%.*s\" is not real, integer or pattern",
                       (int)(l[3] > 32 ? 32 : l[3]), t[3]);
    if (tok_eq(t[4], l[4], "symmetric")) kind |= MM_SYMMETRIC;
    else if (tok_eq(t[4], l[4], "skew-symmetric")) kind |= MM_SKEW;
    else if (tok_eq(t[4], l[4], "hermitian"))
        return MM_FAIL(in, CUPAT_ERROR_NOT_SUPPORTED, "hermitian matrices are not supported");
    else if (!tok_eq(t[4], l[4], "general"))
        return MM_FAIL(in, CUPAT_ERROR_FORMAT,
                       "bad banner: symmetry \"%.*s\" is not general, symmetric or "
                       "skew-symmetric",
                       (int)(l[4] > 32 ? 32 : l[4]), t[4]);
    if ((kind & MM_ARRAY) && (kind & MM_PATTERN))
        return MM_FAIL(in, CUPAT_ERROR_FORMAT, "bad banner: an array file cannot be pattern");
    if ((kind & MM_SKEW) && (kind & MM_PATTERN))
        return MM_FAIL(in, CUPAT_ERROR_FORMAT,
                       "bad banner: a pattern file cannot be skew-symmetric");
    m->kind = kind;

    /* size line */
    int coord = !(kind & MM_ARRAY);
    if (!next_data_line(in))
        return MM_FAIL(in, CUPAT_ERROR_FORMAT, "the size line is missing (end of file)");
    nt = tokens(in, t, l, 3);
    uint64_t M, N, NZ = 0;
    if (nt != (coord ? 3 : 2) || parse_u(t[0], l[0], &M) || parse_u(t[1], l[1], &N) ||
        (coord && parse_u(t[2], l[2], &NZ)))
        return MM_FAIL(in, CUPAT_ERROR_FORMAT, "bad size line: want \"%s\" (non-negative integers)",
                       coord ? "ROWS COLS ENTRIES" : "ROWS COLS");
    if (M > MM_MAX_DIM || N > MM_MAX_DIM)
        return MM_FAIL(in, CUPAT_ERROR_FORMAT,
                       "size %llu x %llu: a dimension beyond 2^40 is refused",
                       (unsigned long long)M, (unsigned long long)N);
    int sym = (kind & (MM_SYMMETRIC | MM_SKEW)) != 0;
    if (sym && M != N)
        return MM_FAIL(in, CUPAT_ERROR_FORMAT, "a %s matrix must be square, not %llu x %llu",
                       (kind & MM_SKEW) ? "skew-symmetric" : "symmetric", (unsigned long long)M,
                       (unsigned long long)N);
    /* the entries the file must list, and the bytes they need at least:
     * "1 1\n" for a pattern entry, "1 1 1\n" with a value, "1\n" in an array */
    /* M, N <= 2^40: the products are compared in double first (no overflow),
     * then computed exactly once they are known to fit the file */
    double wd = coord ? (double)NZ
                : (kind & MM_SYMMETRIC) ? (double)M * ((double)M + 1) / 2
                : (kind & MM_SKEW)      ? (double)M * ((double)M - 1) / 2
                                        : (double)M * (double)N;
    uint64_t least = coord ? ((kind & MM_PATTERN) ? 4 : 6) : 2;
    uint64_t left = (uint64_t)(in->end - in->p) + 1; /* the last line may lack its '\n' */
    uint64_t want = wd > (double)left ? UINT64_MAX
                    : coord            ? NZ
                    : (kind & MM_SYMMETRIC) ? M * (M + 1) / 2
                    : (kind & MM_SKEW)      ? (M ? M * (M - 1) / 2 : 0)
                                            : M * N;
    if (want > left / least)
        return MM_FAIL(in, CUPAT_ERROR_FORMAT,
                       "declares %.0f entries, but the %llu bytes left hold at most %llu",
                       wd, (unsigned long long)(left - 1),
                       (unsigned long long)(left / least));
    if (M > cupat__file_dims_max(want) || N > cupat__file_dims_max(want))
        return MM_FAIL(in, CUPAT_ERROR_SIZE,
                       "size %llu x %llu, %llu entr%s: beyond %llu rows or columns, a "
                       "file must list an entry for every %u of them (the CSR keeps a "
                       "pointer for every row, listed or not)",
                       (unsigned long long)M, (unsigned long long)N, (unsigned long long)want,
                       want == 1 ? "y" : "ies", (unsigned long long)CUPAT_FILE_DIMS_FREE,
                       CUPAT_FILE_DIMS_PER_ENTRY);
    if (coord && !sym && (double)NZ > (double)M * (double)N)
        return MM_FAIL(in, CUPAT_ERROR_FORMAT,
                       "declares %llu entries in a %llu x %llu matrix (more than it has; "
                       "duplicates are summed, but this many is a wrong count)",
                       (unsigned long long)NZ, (unsigned long long)M, (unsigned long long)N);
    m->rows = (size_t)M;
    m->cols = (size_t)N;
    /* the arrays grow as entries arrive: a count that the bytes could hold
     * is still only a claim until the entries are there */
    size_t cap = 0;
    if (coord) CUPAT_TRY(grow(in, m, &cap, (size_t)(NZ < 4096 ? NZ : 4096) + 1));

    /* entries */
    int integer = (kind & MM_INTEGER) != 0, pattern = (kind & MM_PATTERN) != 0;
    uint64_t got = 0, ai = 0, aj = 0; /* array position (row ai of column aj) */
    if (!coord && (kind & MM_SKEW)) ai = 1;
    while (next_data_line(in)) {
        if (got == want)
            return MM_FAIL(in, CUPAT_ERROR_FORMAT, "an entry beyond the %llu declared",
                           (unsigned long long)want);
        int need = coord ? (pattern ? 2 : 3) : 1;
        nt = tokens(in, t, l, need);
        if (nt != need)
            return MM_FAIL(in, CUPAT_ERROR_FORMAT, "%s fields: want %d (%s)",
                           nt < need ? "missing" : "extra", need,
                           coord ? (pattern ? "ROW COL" : "ROW COL VALUE") : "VALUE");
        double v = 1.0;
        const char *why;
        if (coord) {
            uint64_t i, j;
            if (parse_u(t[0], l[0], &i) || i < 1 || i > M)
                return MM_FAIL(in, CUPAT_ERROR_FORMAT, "row index \"%.*s\" is outside 1..%llu",
                               (int)(l[0] > 24 ? 24 : l[0]), t[0], (unsigned long long)M);
            if (parse_u(t[1], l[1], &j) || j < 1 || j > N)
                return MM_FAIL(in, CUPAT_ERROR_FORMAT,
                               "column index \"%.*s\" is outside 1..%llu",
                               (int)(l[1] > 24 ? 24 : l[1]), t[1], (unsigned long long)N);
            if (!pattern && (why = parse_value(t[2], l[2], integer, f32, &v)))
                return MM_FAIL(in, CUPAT_ERROR_FORMAT, "value \"%.*s\" %s",
                               (int)(l[2] > 40 ? 40 : l[2]), t[2], why);
            if (sym && i < j)
                return MM_FAIL(in, CUPAT_ERROR_FORMAT,
                               "entry (%llu, %llu) above the diagonal in a %s file (only "
                               "the lower triangle is stored)",
                               (unsigned long long)i, (unsigned long long)j,
                               (kind & MM_SKEW) ? "skew-symmetric" : "symmetric");
            if ((kind & MM_SKEW) && i == j)
                return MM_FAIL(in, CUPAT_ERROR_FORMAT,
                               "diagonal entry (%llu, %llu) in a skew-symmetric file",
                               (unsigned long long)i, (unsigned long long)j);
            CUPAT_TRY(push(in, m, &cap, (int64_t)i - 1, (int64_t)j - 1, v));
            if (sym && i != j)
                CUPAT_TRY(push(in, m, &cap, (int64_t)j - 1, (int64_t)i - 1,
                               (kind & MM_SKEW) ? -v : v));
        } else {
            if ((why = parse_value(t[0], l[0], integer, f32, &v)))
                return MM_FAIL(in, CUPAT_ERROR_FORMAT, "value \"%.*s\" %s",
                               (int)(l[0] > 40 ? 40 : l[0]), t[0], why);
            if (v != 0.0) {
                CUPAT_TRY(push(in, m, &cap, (int64_t)ai, (int64_t)aj, v));
                if (sym && ai != aj)
                    CUPAT_TRY(push(in, m, &cap, (int64_t)aj, (int64_t)ai,
                                   (kind & MM_SKEW) ? -v : v));
            }
            /* next position, column by column (lower triangle when symmetric) */
            if (++ai == M) {
                aj++;
                ai = (kind & MM_SYMMETRIC) ? aj : (kind & MM_SKEW) ? aj + 1 : 0;
            }
        }
        got++;
    }
    if (got < want)
        return MM_FAIL(in, CUPAT_ERROR_FORMAT,
                       "end of file after %llu of the %llu entries declared (truncated?)",
                       (unsigned long long)got, (unsigned long long)want);
    return CUPAT_SUCCESS;
}

cupat_status cupat__mm_parse_as(cupat_ctx *ctx, const char *data, size_t size,
                                const char *name, cupat_type value_type, mm_coo *out)
{
    memset(out, 0, sizeof *out);
    mm_in in = {ctx, name ? name : "(memory)", data, data + size, 0, data, data};
    if (!data && size)
        return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "cupat_mm_read: data is NULL");
    cupat_status s = parse(&in, out, value_type == CUPAT_F32);
    if (s != CUPAT_SUCCESS) cupat__mm_free(out);
    return s;
}

cupat_status cupat__mm_parse(cupat_ctx *ctx, const char *data, size_t size, const char *name,
                             mm_coo *out)
{
    return cupat__mm_parse_as(ctx, data, size, name, CUPAT_F64, out);
}

/* ---------------------------------------------------------------- writer -- */

typedef struct mm_buf {
    char *p;
    size_t len, cap;
    int oom;
} mm_buf;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void put(mm_buf *b, const char *fmt, ...)
{
    if (b->oom) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->oom = 1;
            return;
        }
        if (b->p && b->len + (size_t)n < b->cap) {
            b->len += (size_t)n;
            return;
        }
        size_t nc = b->cap ? b->cap * 2 : 4096;
        while (nc < b->len + (size_t)n + 1) nc *= 2;
        char *q = realloc(b->p, nc);
        if (!q) {
            b->oom = 1;
            return;
        }
        b->p = q;
        b->cap = nc;
    }
}

typedef struct mm_ent {
    int64_t r, c;
    double v;
} mm_ent;

static int by_rc(const void *a, const void *b)
{
    const mm_ent *x = a, *y = b;
    if (x->r != y->r) return x->r < y->r ? -1 : 1;
    return x->c < y->c ? -1 : x->c > y->c;
}
static int by_cr(const void *a, const void *b)
{
    const mm_ent *x = a, *y = b;
    if (x->c != y->c) return x->c < y->c ? -1 : 1;
    return x->r < y->r ? -1 : x->r > y->r;
}

static void put_value(mm_buf *b, double v, unsigned flags, int digits)
{
    if (flags & MM_INTEGER) put(b, "%lld", (long long)v);
    else put(b, "%.*g", digits, v);
}

cupat_status cupat__mm_format(cupat_ctx *ctx, const char *fn, const mm_coo *m, unsigned flags,
                              int digits, char **text, size_t *len)
{
    *text = NULL;
    *len = 0;
    int sym = (flags & (MM_SYMMETRIC | MM_SKEW)) != 0;
    if ((flags & MM_SYMMETRIC) && (flags & MM_SKEW))
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: flags: CUPAT_MM_SYMMETRIC and CUPAT_MM_SKEW exclude each other",
                           fn);
    if ((flags & MM_INTEGER) && (flags & MM_PATTERN))
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: flags: CUPAT_MM_INTEGER and CUPAT_MM_PATTERN exclude each other",
                           fn);
    if ((flags & MM_ARRAY) && (flags & MM_PATTERN))
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: flags: an array file cannot be pattern (CUPAT_MM_ARRAY with "
                           "CUPAT_MM_PATTERN)",
                           fn);
    if ((flags & MM_SKEW) && (flags & MM_PATTERN))
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: flags: a pattern file cannot be skew-symmetric", fn);
    if (sym && m->rows != m->cols)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: flags: a %zu x %zu matrix cannot be written as %s", fn, m->rows,
                           m->cols, (flags & MM_SKEW) ? "skew-symmetric" : "symmetric");
    if ((flags & MM_ARRAY) && m->rows && m->cols > ((size_t)1 << 31) / m->rows)
        return cupat__fail(ctx, CUPAT_ERROR_SIZE,
                           "%s: a %zu x %zu matrix is too large for an array file (2^31 "
                           "entries at most)",
                           fn, m->rows, m->cols);
    for (size_t k = 0; (flags & MM_INTEGER) && k < m->nnz; k++)
        if (m->v[k] != floor(m->v[k]) || fabs(m->v[k]) > 0x1p53)
            return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                               "%s: flags: CUPAT_MM_INTEGER, but entry (%lld, %lld) = %.17g "
                               "is not an integer",
                               fn, (long long)m->r[k] + 1, (long long)m->c[k] + 1, m->v[k]);
    mm_ent *e = malloc((m->nnz ? m->nnz : 1) * sizeof *e);
    if (!e)
        return cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY,
                           "%s: no host memory for a copy of the %zu entries (%zu bytes)", fn,
                           m->nnz, m->nnz * sizeof *e);
    for (size_t k = 0; k < m->nnz; k++) e[k] = (mm_ent){m->r[k], m->c[k], m->v[k]};
    if (sym) {
        /* A (sorted by row, column) must equal its transpose (sorted the same
         * way), up to the sign for skew; skew has no diagonal entries. */
        mm_ent *tr = malloc((m->nnz ? m->nnz : 1) * sizeof *tr);
        if (!tr) {
            free(e);
            return cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY,
                               "%s: no host memory for the transpose of the %zu entries (%zu "
                               "bytes), to check the symmetry",
                               fn, m->nnz, m->nnz * sizeof *tr);
        }
        for (size_t k = 0; k < m->nnz; k++) tr[k] = (mm_ent){e[k].c, e[k].r, e[k].v};
        qsort(e, m->nnz, sizeof *e, by_rc);
        qsort(tr, m->nnz, sizeof *tr, by_rc);
        double sg = (flags & MM_SKEW) ? -1.0 : 1.0;
        for (size_t k = 0; k < m->nnz; k++) {
            int diag = (flags & MM_SKEW) && e[k].r == e[k].c && e[k].v != 0.0;
            if (diag || e[k].r != tr[k].r || e[k].c != tr[k].c || e[k].v != sg * tr[k].v) {
                cupat_status s = cupat__fail(
                    ctx, CUPAT_ERROR_INVALID_VALUE,
                    "%s: flags: the matrix is not %s (entry (%lld, %lld) = %.17g has no "
                    "matching (%lld, %lld))",
                    fn, (flags & MM_SKEW) ? "skew-symmetric" : "symmetric",
                    (long long)e[k].r + 1, (long long)e[k].c + 1, e[k].v,
                    (long long)e[k].c + 1, (long long)e[k].r + 1);
                free(tr);
                free(e);
                return s;
            }
        }
        free(tr);
    }
    mm_buf b = {0};
    put(&b, "%%%%MatrixMarket matrix %s %s %s\n", (flags & MM_ARRAY) ? "array" : "coordinate",
        (flags & MM_PATTERN) ? "pattern" : (flags & MM_INTEGER) ? "integer" : "real",
        (flags & MM_SKEW) ? "skew-symmetric" : (flags & MM_SYMMETRIC) ? "symmetric" : "general");
    put(&b, "%% written by cupat\n");
    /* the entries written: lower triangle when symmetric (strictly for skew) */
    size_t nw = 0;
    for (size_t k = 0; k < m->nnz; k++) {
        int keep = !sym || e[k].r > e[k].c || (e[k].r == e[k].c && !(flags & MM_SKEW));
        if (keep) e[nw++] = e[k];
    }
    if (!(flags & MM_ARRAY)) {
        put(&b, "%zu %zu %zu\n", m->rows, m->cols, nw);
        for (size_t k = 0; k < nw; k++) {
            put(&b, "%lld %lld", (long long)e[k].r + 1, (long long)e[k].c + 1);
            if (!(flags & MM_PATTERN)) {
                put(&b, " ");
                put_value(&b, e[k].v, flags, digits);
            }
            put(&b, "\n");
        }
    } else {
        /* dense, column by column; entries summed where the input repeats one */
        qsort(e, nw, sizeof *e, by_cr);
        put(&b, "%zu %zu\n", m->rows, m->cols);
        size_t k = 0;
        for (size_t j = 0; j < m->cols && !b.oom; j++) {
            size_t i0 = (flags & MM_SYMMETRIC) ? j : (flags & MM_SKEW) ? j + 1 : 0;
            for (size_t i = i0; i < m->rows; i++) {
                double v = 0.0;
                while (k < nw && (size_t)e[k].c == j && (size_t)e[k].r == i) v += e[k++].v;
                put_value(&b, v, flags, digits);
                put(&b, "\n");
            }
        }
    }
    free(e);
    if (b.oom) {
        free(b.p);
        return cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY,
                           "%s: no host memory for the text (%zu bytes written, more needed)",
                           fn, b.len);
    }
    *text = b.p;
    *len = b.len;
    return CUPAT_SUCCESS;
}
