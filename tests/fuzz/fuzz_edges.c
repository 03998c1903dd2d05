/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_edges.c — libFuzzer target: the plain edge-list reader behind
 * cupat_graph_read and cupat_graph_read_memory (src/bfs/graph.c: parse_edges
 * and the CSR build it hands the tuples to), on the CPU backend. Each input
 * is read twice, directed and undirected. No round trip (there is no writer):
 * invariants instead.
 *   success: a graph of n = largest id + 1 vertices (0 for no edges) whose
 *            CSR starts at 0, never decreases, ends at m; every list sorted,
 *            without repeats or self-loops, ids in [0, n); undirected: every
 *            entry has its mirror; directed: the transpose holds the same
 *            entries; the info's counts add up (one tuple per data line).
 *   failure: CUPAT_ERROR_FORMAT, g left NULL, and a message naming a data
 *            line of the input ("(memory), line L: ...").
 * A crash, a sanitizer report, a leak or a broken invariant stops the fuzzer
 * with the input saved. */
#include "internal.h"
#include "bfs/bfs_internal.h"
#include "core/matrix_market.h" /* mm_coo, for the stubs */

#include <stdlib.h>
#include <string.h>

/* Ids need memory linear in the largest one (a file "0 2000000000" is a
 * legal graph of 2e9 vertices, 16 GB of row pointers): inputs with a field
 * that starts with a number past this (but within the reader's limit, whose
 * error path stays in) are skipped, so the fuzzer's 2 GB cap measures the
 * reader, not the graphs it is asked for. */
#define FUZZ_MAX_ID ((int64_t)1 << 16)

/* The reader's Matrix Market branch goes to src/sparse's parser (not linked
 * here: the mm target fuzzes it); inputs that would take it are rejected
 * below, so these are never called. The CUDA work buffers never exist on
 * the CPU backend. */
cupat_status cupat__mm_parse(cupat_ctx *ctx, const char *data, size_t size, const char *name,
                             mm_coo *out)
{
    (void)ctx, (void)data, (void)size, (void)name, (void)out;
    abort();
}
void cupat__mm_free(mm_coo *m)
{
    (void)m;
    abort();
}
void cupat__bfs_cuda_free(cupat_graph *g)
{
    (void)g;
    abort();
}

/* Line k (1-based) of the input: [*b, *e), the reader's own rule for what a
 * line is (split at '\n'; a last line without one counts). */
static int line_at(const char *p, size_t size, size_t k, const char **b, const char **e)
{
    const char *end = p + size;
    for (size_t i = 1; p < end; i++) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol) eol = end;
        if (i == k) {
            *b = p;
            *e = eol;
            return 1;
        }
        p = eol + 1;
    }
    return 0;
}

/* Whether a line holds a tuple (the reader's rule: blank lines, lines of
 * spaces and tabs, a '\r' before the '\n', and lines whose first other
 * character is '#' or '%' are skipped). */
static int is_data(const char *q, const char *eol)
{
    while (q < eol && (*q == ' ' || *q == '\t')) q++;
    const char *stop = eol;
    if (stop > q && stop[-1] == '\r') stop--;
    return q != stop && *q != '#' && *q != '%';
}

static size_t count_data_lines(const char *p, size_t size)
{
    size_t k = 0;
    const char *end = p + size;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol) eol = end;
        k += is_data(p, eol);
        p = eol + 1;
    }
    return k;
}

/* A number starting a field (after a line start, a space or a tab) in
 * (FUZZ_MAX_ID, BFS_MAX_VERTICES - 1]: see FUZZ_MAX_ID. */
static int asks_big_graph(const char *p, size_t size)
{
    for (size_t i = 0; i < size; i++) {
        if (p[i] < '0' || p[i] > '9') continue;
        if (i > 0 && p[i - 1] != '\n' && p[i - 1] != ' ' && p[i - 1] != '\t') {
            while (i + 1 < size && p[i + 1] >= '0' && p[i + 1] <= '9') i++;
            continue;
        }
        int64_t v = 0;
        for (; i < size && p[i] >= '0' && p[i] <= '9'; i++)
            if (v <= (int64_t)BFS_MAX_VERTICES) v = v * 10 + (p[i] - '0');
        if (v > FUZZ_MAX_ID && v <= (int64_t)BFS_MAX_VERTICES - 1) return 1;
    }
    return 0;
}

/* Whether the sorted list l[0..len) holds x. */
static int has(const int32_t *l, uint64_t len, int32_t x)
{
    uint64_t lo = 0, hi = len;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (l[mid] < x) lo = mid + 1;
        else hi = mid;
    }
    return lo < len && l[lo] == x;
}

static void check_graph(cupat_ctx *ctx, const cupat_graph *g, int und, size_t lines)
{
    cupat_graph_info in;
    if (cupat_graph_get_info(ctx, g, &in) != CUPAT_SUCCESS) abort();
    const size_t n = g->n, m = g->m;
    const uint64_t *rp = g->h_row_ptr, *trp = g->h_t_row_ptr;
    const int32_t *col = g->h_col, *tcol = g->h_t_col;
    if (in.vertices != n || in.edges != m || in.undirected != und || in.input_edges != lines)
        abort();
    if ((n == 0) != (lines == 0) || in.self_loops > lines) abort();
    /* each tuple either a loop, or one entry (two undirected) kept or a repeat */
    if (m + in.duplicates != (und ? 2 : 1) * (lines - in.self_loops)) abort();
    if (rp[0] != 0 || rp[n] != m || trp[0] != 0 || trp[n] != m) abort();
    size_t maxd = 0, iso = 0, tuples = 0;
    for (size_t u = 0; u < n; u++) {
        if (rp[u + 1] < rp[u] || trp[u + 1] < trp[u]) abort();
        const uint64_t d = rp[u + 1] - rp[u], td = trp[u + 1] - trp[u];
        const int32_t *l = col + rp[u];
        for (uint64_t i = 0; i < d; i++) {
            if (l[i] < 0 || (size_t)l[i] >= n || (size_t)l[i] == u) abort();
            if (i && l[i] <= l[i - 1]) abort(); /* sorted, no repeat */
            /* the mirror (undirected) or the transpose's entry (directed) */
            if (!has(tcol + trp[l[i]], trp[l[i] + 1] - trp[l[i]], (int32_t)u)) abort();
        }
        for (uint64_t i = 1; i < td; i++)
            if (tcol[trp[u] + i] <= tcol[trp[u] + i - 1]) abort();
        if (d > maxd) maxd = d;
        iso += d == 0 && td == 0;
        tuples += g->tuples[u];
    }
    if (und && (trp != rp || tcol != col)) abort();
    if (in.max_degree != maxd || in.isolated != iso || tuples != lines) abort();
    /* n is the largest id + 1: vertex n - 1 is in some tuple (a source, or
     * the target of an entry, or a loop, counted as a source) */
    if (n && g->tuples[n - 1] == 0 && trp[n] == trp[n - 1]) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static cupat_ctx *ctx;
    if (!ctx && cupat_create(&ctx, CUPAT_BACKEND_CPU, -1) != CUPAT_SUCCESS) abort();
    const char *p = (const char *)data;
    if (size >= 14 && memcmp(p, "%%MatrixMarket", 14) == 0) return -1; /* the mm reader's */
    if (asks_big_graph(p, size)) return -1;
    const size_t lines = count_data_lines(p, size);
    for (int und = 0; und <= 1; und++) {
        cupat_graph *g = (cupat_graph *)&ctx; /* any non-NULL: must come back NULL */
        cupat_status s = cupat_graph_read_memory(ctx, &g, data, size,
                                                 und ? CUPAT_GRAPH_UNDIRECTED : 0);
        if (s == CUPAT_SUCCESS) {
            if (!g) abort();
            check_graph(ctx, g, und, lines);
            if (cupat_graph_destroy(ctx, g) != CUPAT_SUCCESS) abort();
            continue;
        }
        if (s != CUPAT_ERROR_FORMAT || g != NULL) abort();
        /* "cupat_graph_read_memory: (memory), line L: ..." on a data line */
        const char *msg = cupat_last_error(ctx), *at = strstr(msg, ": (memory), line ");
        if (!at) abort();
        char *rest;
        unsigned long long k = strtoull(at + 17, &rest, 10);
        const char *b, *e;
        if (rest == at + 17 || *rest != ':' || !line_at(p, size, (size_t)k, &b, &e) ||
            !is_data(b, e))
            abort();
    }
    return 0;
}
