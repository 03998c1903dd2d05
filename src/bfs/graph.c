/* SPDX-License-Identifier: Apache-2.0 */
/* graph.c — the graph handle: edge lists, CSR triples and files to CSR
 * (Graph500 kernel 1: symmetrize, drop self-loops and repeats, sort each
 * list), the queries, destroy. The build runs on the host (OpenMP) and the
 * result is copied to the backend. */
#include "internal.h"
#include "bfs/bfs_internal.h"
#include "core/matrix_market.h" /* the Matrix Market parser */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------- helpers -- */

static int is_id_type(cupat_type t)
{
    return t == CUPAT_I32 || t == CUPAT_U32 || t == CUPAT_I64 || t == CUPAT_U64;
}

/* Element i of an id array, as a signed 64-bit value; a u64 beyond INT64_MAX
 * comes out negative, so one range test catches it. */
static inline int64_t id_at(const void *p, cupat_type t, size_t i)
{
    switch (t) {
    case CUPAT_I32: return ((const int32_t *)p)[i];
    case CUPAT_U32: return ((const uint32_t *)p)[i];
    case CUPAT_I64: return ((const int64_t *)p)[i];
    default: return (int64_t)((const uint64_t *)p)[i];
    }
}

static cupat_status check_flags(cupat_ctx *ctx, const char *fn, unsigned flags)
{
    if (flags & ~CUPAT_GRAPH_UNDIRECTED)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: flags = 0x%x: only CUPAT_GRAPH_DIRECTED (0) or "
                           "CUPAT_GRAPH_UNDIRECTED (1)",
                           fn, flags);
    return CUPAT_SUCCESS;
}

static cupat_status check_n(cupat_ctx *ctx, const char *fn, size_t n)
{
    if (n > BFS_MAX_VERTICES)
        return cupat__fail(ctx, CUPAT_ERROR_SIZE,
                           "%s: n = %zu vertices: at most %zu (int32_t ids, levels, parents)",
                           fn, n, BFS_MAX_VERTICES);
    return CUPAT_SUCCESS;
}

/* A caller's array on the host: itself when it is host memory, else a host
 * copy (*owned set, free it). */
static cupat_status host_view(cupat_ctx *ctx, const char *fn, const char *arg, const void *p,
                              size_t bytes, const void **out, void **owned)
{
    *owned = NULL;
    *out = p;
    if (!bytes) return CUPAT_SUCCESS;
    cupat_memory_kind k = cupat__pointer_kind(p);
    if (k == CUPAT_MEMORY_HOST || k == CUPAT_MEMORY_HOST_PINNED || k == CUPAT_MEMORY_MANAGED)
        return CUPAT_SUCCESS;
    void *h = malloc(bytes);
    if (!h)
        return cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY,
                           "%s: no host memory for a copy of %s (%zu bytes)", fn, arg, bytes);
    cudaError_t e = cudaMemcpy(h, p, bytes, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) {
        free(h);
        return cupat__cuda(ctx, e, "cudaMemcpy (graph input to the host)");
    }
    *owned = h;
    *out = h;
    return CUPAT_SUCCESS;
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Rows of (cnt, lists): sort each list and drop repeats; ucnt[v] = what is
 * left (in place at the list's start). */
static void sort_unique_rows(size_t n, const uint64_t *start, int32_t *lists, uint64_t *ucnt)
{
#pragma omp parallel for schedule(dynamic, 256)
    for (size_t v = 0; v < n; v++) {
        int32_t *l = lists + start[v];
        size_t len = (size_t)(start[v + 1] - start[v]), k = 0;
        if (len > 1) qsort(l, len, sizeof *l, cmp_i32);
        for (size_t i = 0; i < len; i++)
            if (k == 0 || l[i] != l[k - 1]) l[k++] = l[i];
        ucnt[v] = k;
    }
}

/* Exclusive prefix sum of cnt[0..n) into ptr[0..n] (ptr may be cnt). */
static void prefix(size_t n, const uint64_t *cnt, uint64_t *ptr)
{
    uint64_t s = 0;
    for (size_t v = 0; v < n; v++) {
        uint64_t c = cnt[v];
        ptr[v] = s;
        s += c;
    }
    ptr[n] = s;
}

/* CSR of the transpose of (row_ptr, col), lists sorted. */
static cupat_status transpose(cupat_ctx *ctx, const char *fn, size_t n, const uint64_t *rp,
                              const int32_t *col, uint64_t **trp_out, int32_t **tcol_out)
{
    size_t m = (size_t)rp[n];
    uint64_t *trp = calloc(n + 1, sizeof *trp), *pos = malloc((n + 1) * sizeof *pos);
    int32_t *tcol = malloc((m ? m : 1) * sizeof *tcol);
    if (!trp || !pos || !tcol) {
        free(trp), free(pos), free(tcol);
        return cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY,
                           "%s: no host memory for the transpose of %zu vertices and %zu "
                           "edges (%zu bytes)",
                           fn, n, m, 2 * (n + 1) * sizeof *trp + m * sizeof *tcol);
    }
    for (size_t e = 0; e < m; e++) trp[col[e]]++;
    prefix(n, trp, trp);
    memcpy(pos, trp, (n + 1) * sizeof *pos);
    for (size_t u = 0; u < n; u++) /* rows in order: every list comes out sorted */
        for (uint64_t e = rp[u]; e < rp[u + 1]; e++) tcol[pos[col[e]]++] = (int32_t)u;
    free(pos);
    *trp_out = trp;
    *tcol_out = tcol;
    return CUPAT_SUCCESS;
}

static cupat_status upload(cupat_ctx *ctx, const char *fn, const void *h, size_t bytes,
                           void **d)
{
    *d = NULL;
    if (!bytes) bytes = 1; /* a valid pointer even for an empty list */
    cudaError_t e = cudaMalloc(d, bytes);
    if (e != cudaSuccess) return cupat__cuda(ctx, e, "cudaMalloc (graph)");
    if (h) {
        e = cudaMemcpy(*d, h, bytes, cudaMemcpyHostToDevice);
        if (e != cudaSuccess) return cupat__cuda(ctx, e, "cudaMemcpy (graph)");
    }
    return CUPAT_SUCCESS;
}

static void graph_free(cupat_graph *g)
{
    if (!g) return;
    if (g->backend == CUPAT_BACKEND_CUDA) {
        cupat__bfs_cuda_free(g);
        if (g->t_row_ptr != g->row_ptr) cudaFree(g->t_row_ptr);
        if (g->t_col != g->col) cudaFree(g->t_col);
        cudaFree(g->row_ptr);
        cudaFree(g->col);
    }
    if (g->h_t_row_ptr != g->h_row_ptr) free(g->h_t_row_ptr);
    if (g->h_t_col != g->h_col) free(g->h_t_col);
    free(g->h_row_ptr);
    free(g->h_col);
    free(g->tuples);
    free(g);
}

/* --------------------------------------------------------------- build -- */

cupat_status cupat__graph_build(cupat_ctx *ctx, const char *fn, cupat_graph **out, size_t n,
                                size_t nt, cupat_type t, const void *edges, unsigned flags)
{
    const int und = (flags & CUPAT_GRAPH_UNDIRECTED) != 0;
    cupat_graph *g = calloc(1, sizeof *g);
    uint64_t *cnt = calloc(n + 1, sizeof *cnt), *start = malloc((n + 1) * sizeof *start);
    if (!g || !cnt || !start) goto oom;
    g->backend = ctx->backend;
    g->n = n;
    g->undirected = und;
    g->tuples = calloc(n ? n : 1, sizeof *g->tuples);
    if (!g->tuples) goto oom;

    /* Count: each tuple once for TEPS; each non-loop entry (twice undirected). */
    size_t loops = 0;
#pragma omp parallel for reduction(+ : loops)
    for (size_t i = 0; i < nt; i++) {
        int64_t u = id_at(edges, t, 2 * i), v = id_at(edges, t, 2 * i + 1);
#pragma omp atomic
        g->tuples[u]++;
        if (u == v) {
            loops++;
            continue;
        }
#pragma omp atomic
        cnt[u]++;
        if (und) {
#pragma omp atomic
            cnt[v]++;
        }
    }
    prefix(n, cnt, start);
    size_t total = (size_t)start[n];
    int32_t *lists = malloc((total ? total : 1) * sizeof *lists);
    if (!lists) goto oom;
    memcpy(cnt, start, (n + 1) * sizeof *cnt); /* cnt: next free slot per row */
#pragma omp parallel for
    for (size_t i = 0; i < nt; i++) {
        int64_t u = id_at(edges, t, 2 * i), v = id_at(edges, t, 2 * i + 1);
        if (u == v) continue;
        uint64_t p;
#pragma omp atomic capture
        p = cnt[u]++;
        lists[p] = (int32_t)v;
        if (und) {
#pragma omp atomic capture
            p = cnt[v]++;
            lists[p] = (int32_t)u;
        }
    }
    sort_unique_rows(n, start, lists, cnt);
    g->h_row_ptr = malloc((n + 1) * sizeof *g->h_row_ptr);
    if (!g->h_row_ptr) {
        free(lists);
        goto oom;
    }
    prefix(n, cnt, g->h_row_ptr);
    g->m = (size_t)g->h_row_ptr[n];
    g->h_col = malloc((g->m ? g->m : 1) * sizeof *g->h_col);
    if (!g->h_col) {
        free(lists);
        goto oom;
    }
#pragma omp parallel for schedule(dynamic, 256)
    for (size_t v = 0; v < n; v++)
        memcpy(g->h_col + g->h_row_ptr[v], lists + start[v], cnt[v] * sizeof *lists);
    free(lists);
    free(cnt);
    free(start);
    cnt = start = NULL;

    /* The in-edges a bottom-up step scans. */
    g->h_t_row_ptr = g->h_row_ptr;
    g->h_t_col = g->h_col;
    if (!und) {
        cupat_status s = transpose(ctx, fn, n, g->h_row_ptr, g->h_col, &g->h_t_row_ptr,
                                   &g->h_t_col);
        if (s) {
            g->h_t_row_ptr = NULL, g->h_t_col = NULL;
            graph_free(g);
            return s;
        }
    }

    cupat_graph_info *in = &g->info;
    in->vertices = n;
    in->edges = g->m;
    in->input_edges = nt;
    in->self_loops = loops;
    in->duplicates = total - g->m;
    in->undirected = und;
    size_t maxd = 0, iso = 0;
#pragma omp parallel for reduction(max : maxd) reduction(+ : iso)
    for (size_t v = 0; v < n; v++) {
        size_t d = (size_t)(g->h_row_ptr[v + 1] - g->h_row_ptr[v]);
        size_t din = (size_t)(g->h_t_row_ptr[v + 1] - g->h_t_row_ptr[v]);
        if (d > maxd) maxd = d;
        iso += d == 0 && din == 0;
    }
    in->max_degree = maxd;
    in->isolated = iso;

    if (g->backend == CUPAT_BACKEND_CUDA) {
        cupat_status s;
        if ((s = upload(ctx, fn, g->h_row_ptr, (n + 1) * sizeof(uint64_t), (void **)&g->row_ptr)) ||
            (s = upload(ctx, fn, g->h_col, g->m * sizeof(int32_t), (void **)&g->col))) {
            graph_free(g);
            return s;
        }
        g->t_row_ptr = g->row_ptr;
        g->t_col = g->col;
        if (!und) {
            if ((s = upload(ctx, fn, g->h_t_row_ptr, (n + 1) * sizeof(uint64_t),
                            (void **)&g->t_row_ptr)) ||
                (s = upload(ctx, fn, g->h_t_col, g->m * sizeof(int32_t), (void **)&g->t_col))) {
                graph_free(g);
                return s;
            }
            /* the device holds the transpose; the host one is the CPU's */
            free(g->h_t_row_ptr);
            free(g->h_t_col);
            g->h_t_row_ptr = NULL;
            g->h_t_col = NULL;
        } else {
            g->h_t_row_ptr = NULL;
            g->h_t_col = NULL;
        }
    } else {
        g->row_ptr = g->h_row_ptr;
        g->col = g->h_col;
        g->t_row_ptr = g->h_t_row_ptr;
        g->t_col = g->h_t_col;
    }
    *out = g;
    return CUPAT_SUCCESS;
oom:
    free(cnt);
    free(start);
    graph_free(g);
    /* what the build holds at its peak: counts, starts, tuples and lists, then
     * the CSR (the figure the message gives; the failing block is one of them) */
    return cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY,
                       "%s: no host memory to build a graph of %zu vertices and %zu edges "
                       "(about %zu bytes)",
                       fn, n, nt,
                       (n + 1) * (3 * sizeof(uint64_t) + sizeof *g->tuples) +
                           (und ? 2 : 1) * nt * 2 * sizeof(int32_t));
}

/* ------------------------------------------------------- entry points -- */

static cupat_status begin_create(cupat_ctx *ctx, const char *fn, cupat_graph **g,
                                 unsigned flags)
{
    CUPAT_TRY(cupat__begin(ctx, fn));
    if (!g) return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "%s: g is NULL", fn);
    *g = NULL;
    return check_flags(ctx, fn, flags);
}

cupat_status cupat_graph_create_edges(cupat_ctx *ctx, cupat_graph **g, size_t n,
                                      size_t nedges, cupat_type id_type, const void *edges,
                                      unsigned flags)
{
    CUPAT_TRACE_CALL();
    const char *fn = "cupat_graph_create_edges";
    CUPAT_TRY(begin_create(ctx, fn, g, flags));
    CUPAT_TRY(check_n(ctx, fn, n));
    if (!is_id_type(id_type))
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: id_type = %d: vertex ids are CUPAT_I32, CUPAT_U32, CUPAT_I64 "
                           "or CUPAT_U64",
                           fn, (int)id_type);
    if (n == 0 && nedges)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: n = 0 vertices but nedges = %zu", fn, nedges);
    size_t bytes;
    CUPAT_TRY(cupat__size_mul(ctx, fn, "edges", nedges, 2, cupat_type_size(id_type), &bytes));
    if (nedges && !edges)
        return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "%s: edges is NULL with nedges = %zu",
                           fn, nedges);
    const void *h;
    void *owned;
    CUPAT_TRY(host_view(ctx, fn, "edges", edges, bytes, &h, &owned));
    size_t bad = SIZE_MAX;
#pragma omp parallel for reduction(min : bad)
    for (size_t i = 0; i < 2 * nedges; i++) {
        int64_t v = id_at(h, id_type, i);
        if ((v < 0 || (uint64_t)v >= n) && i < bad) bad = i;
    }
    cupat_status s;
    if (bad != SIZE_MAX) {
        int64_t v = id_at(h, id_type, bad);
        if (id_type == CUPAT_U64 || id_type == CUPAT_U32)
            s = cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                            "%s: edge %zu: %s id %llu is not a vertex (n = %zu)", fn, bad / 2,
                            bad % 2 ? "target" : "source",
                            (unsigned long long)(id_type == CUPAT_U64
                                                     ? ((const uint64_t *)h)[bad]
                                                     : (uint64_t)v),
                            n);
        else
            s = cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                            "%s: edge %zu: %s id %lld is not a vertex (n = %zu)", fn, bad / 2,
                            bad % 2 ? "target" : "source", (long long)v, n);
    } else {
        s = cupat__graph_build(ctx, fn, g, n, nedges, id_type, h, flags);
    }
    free(owned);
    return s;
}

cupat_status cupat_graph_create_csr(cupat_ctx *ctx, cupat_graph **g, size_t n, size_t nnz,
                                    cupat_type index_type, const void *row_ptr,
                                    const void *col_idx, unsigned flags)
{
    CUPAT_TRACE_CALL();
    const char *fn = "cupat_graph_create_csr";
    CUPAT_TRY(begin_create(ctx, fn, g, flags));
    CUPAT_TRY(check_n(ctx, fn, n));
    if (!is_id_type(index_type))
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: index_type = %d: CUPAT_I32, CUPAT_U32, CUPAT_I64 or CUPAT_U64",
                           fn, (int)index_type);
    size_t es = cupat_type_size(index_type), rb, cb;
    CUPAT_TRY(cupat__size_mul(ctx, fn, "row_ptr", n + 1, es, 1, &rb));
    CUPAT_TRY(cupat__size_mul(ctx, fn, "col_idx", nnz, es, 1, &cb));
    if (!row_ptr) return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "%s: row_ptr is NULL", fn);
    if (nnz && !col_idx)
        return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "%s: col_idx is NULL with nnz = %zu",
                           fn, nnz);
    const void *hr, *hc;
    void *or_, *oc = NULL;
    CUPAT_TRY(host_view(ctx, fn, "row_ptr", row_ptr, rb, &hr, &or_));
    cupat_status s = host_view(ctx, fn, "col_idx", col_idx, cb, &hc, &oc);
    int32_t *pairs = NULL;
    if (s) goto done;
    if (id_at(hr, index_type, 0) != 0) {
        s = cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "%s: row_ptr[0] = %lld, not 0", fn,
                        (long long)id_at(hr, index_type, 0));
        goto done;
    }
    for (size_t v = 0; v < n; v++) {
        int64_t a = id_at(hr, index_type, v), b = id_at(hr, index_type, v + 1);
        if (b < a || (uint64_t)b > nnz) {
            s = cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                            "%s: row_ptr[%zu] = %lld after row_ptr[%zu] = %lld (must not "
                            "decrease or pass nnz = %zu)",
                            fn, v + 1, (long long)b, v, (long long)a, nnz);
            goto done;
        }
    }
    if ((uint64_t)id_at(hr, index_type, n) != nnz) {
        s = cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE, "%s: row_ptr[%zu] = %lld, not nnz = %zu",
                        fn, n, (long long)id_at(hr, index_type, n), nnz);
        goto done;
    }
    size_t bad = SIZE_MAX;
#pragma omp parallel for reduction(min : bad)
    for (size_t e = 0; e < nnz; e++) {
        int64_t c = id_at(hc, index_type, e);
        if ((c < 0 || (uint64_t)c >= n) && e < bad) bad = e;
    }
    if (bad != SIZE_MAX) {
        s = cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                        "%s: col_idx[%zu] = %lld is not a vertex (n = %zu)", fn, bad,
                        (long long)id_at(hc, index_type, bad), n);
        goto done;
    }
    pairs = malloc((nnz ? nnz : 1) * 2 * sizeof *pairs);
    if (!pairs) {
        s = cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY,
                        "%s: no host memory for %zu edges (%zu bytes)", fn, nnz,
                        nnz * 2 * sizeof *pairs);
        goto done;
    }
#pragma omp parallel for schedule(dynamic, 256)
    for (size_t v = 0; v < n; v++)
        for (int64_t e = id_at(hr, index_type, v); e < id_at(hr, index_type, v + 1); e++) {
            pairs[2 * e] = (int32_t)v;
            pairs[2 * e + 1] = (int32_t)id_at(hc, index_type, (size_t)e);
        }
    s = cupat__graph_build(ctx, fn, g, n, nnz, CUPAT_I32, pairs, flags);
done:
    free(pairs);
    free(or_);
    free(oc);
    return s;
}

/* ---------------------------------------------------------------- files -- */

/* A Matrix Market file's bytes through the sparse pattern's parser (its
 * rules and messages, which name the file and line): the pattern of the
 * matrix, entry (i, j) the edge i -> j; a symmetric file comes expanded to
 * both triangles. The parser holds the dimensions to what the entries can
 * use and allocates as entries arrive, so the file's size bounds the memory
 * before the vertex count is checked; the entries go to the build as they
 * are (it drops self-loops and repeats, and counts every tuple). */
static cupat_status read_mm(cupat_ctx *ctx, const char *fn, const char *name, const char *p,
                            size_t size, cupat_graph **g, unsigned flags)
{
    mm_coo m;
    CUPAT_TRY(cupat__mm_parse(ctx, p, size, name, &m));
    cupat_status s = CUPAT_SUCCESS;
    int32_t *pairs = NULL;
    if (m.rows != m.cols)
        s = cupat__fail(ctx, CUPAT_ERROR_FORMAT,
                        "%s: %s: a %zu x %zu matrix is no graph's adjacency (not square)", fn,
                        name, m.rows, m.cols);
    if (!s) s = check_n(ctx, fn, m.rows);
    if (!s && !(pairs = malloc((m.nnz ? m.nnz : 1) * 2 * sizeof *pairs)))
        s = cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY,
                        "%s: %s: no host memory for %zu edges (%zu bytes)", fn, name, m.nnz,
                        m.nnz * 2 * sizeof *pairs);
    for (size_t e = 0; !s && e < m.nnz; e++) { /* 0-based, < rows <= INT32_MAX - 1 */
        pairs[2 * e] = (int32_t)m.r[e];
        pairs[2 * e + 1] = (int32_t)m.c[e];
    }
    size_t n = m.rows, ne = m.nnz;
    cupat__mm_free(&m); /* the pairs hold the edges: the COO goes before the build */
    if (!s) s = cupat__graph_build(ctx, fn, g, n, ne, CUPAT_I32, pairs, flags);
    free(pairs);
    return s;
}

/* Parse a plain edge list; `name` is what messages call the input. */
static cupat_status parse_edges(cupat_ctx *ctx, const char *fn, const char *name,
                                const char *p, size_t size, cupat_graph **g, unsigned flags)
{
    if (size >= 14 && memcmp(p, "%%MatrixMarket", 14) == 0)
        return read_mm(ctx, fn, name, p, size, g, flags);
    size_t cap = 1024, ne = 0, line = 0, maxline = 0;
    int32_t *e = malloc(cap * 2 * sizeof *e);
    if (!e)
        return cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY, "%s: no host memory for %zu edges "
                           "(%zu bytes)", fn, cap, cap * 2 * sizeof *e);
    int64_t maxid = -1;
    const char *end = p + size;
    cupat_status s = CUPAT_SUCCESS;
    while (p < end) {
        line++;
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol) eol = end;
        const char *q = p;
        p = eol < end ? eol + 1 : end; /* no pointer past one beyond the end */
        while (q < eol && (*q == ' ' || *q == '\t')) q++;
        const char *stop = eol;
        if (stop > q && stop[-1] == '\r') stop--;
        if (q == stop || *q == '#' || *q == '%') continue;
        int64_t id[2];
        for (int f = 0; f < 2; f++) {
            while (q < stop && (*q == ' ' || *q == '\t')) q++;
            if (q == stop) {
                s = cupat__fail(ctx, CUPAT_ERROR_FORMAT,
                                "%s: %s, line %zu: %s vertex id missing (want \"u v\")", fn, name,
                                line, f ? "second" : "first");
                goto fail;
            }
            if (*q == '-') {
                s = cupat__fail(ctx, CUPAT_ERROR_FORMAT, "%s: %s, line %zu: negative vertex id",
                                fn, name, line);
                goto fail;
            }
            int64_t v = 0;
            const char *d0 = q;
            while (q < stop && *q >= '0' && *q <= '9') {
                v = v * 10 + (*q - '0');
                if (v > (int64_t)BFS_MAX_VERTICES - 1) {
                    s = cupat__fail(ctx, CUPAT_ERROR_FORMAT,
                                    "%s: %s, line %zu: vertex id beyond %zu (int32_t ids)", fn,
                                    name, line, BFS_MAX_VERTICES - 1);
                    goto fail;
                }
                q++;
            }
            if (q == d0 || (q < stop && *q != ' ' && *q != '\t')) {
                s = cupat__fail(ctx, CUPAT_ERROR_FORMAT,
                                "%s: %s, line %zu: %s vertex id is not a decimal integer", fn,
                                name, line, f ? "second" : "first");
                goto fail;
            }
            id[f] = v;
        }
        while (q < stop && (*q == ' ' || *q == '\t')) q++;
        if (q < stop) { /* an optional weight: a number, then nothing */
            char buf[64];
            const char *w0 = q;
            while (q < stop && *q != ' ' && *q != '\t') q++;
            size_t wl = (size_t)(q - w0);
            char *wend = NULL;
            if (wl < sizeof buf) {
                memcpy(buf, w0, wl);
                buf[wl] = 0;
                errno = 0;
                (void)strtod(buf, &wend);
            }
            if (wl >= sizeof buf || !wend || *wend) {
                s = cupat__fail(ctx, CUPAT_ERROR_FORMAT,
                                "%s: %s, line %zu: third field is not a number (a weight)", fn,
                                name, line);
                goto fail;
            }
            while (q < stop && (*q == ' ' || *q == '\t')) q++;
            if (q < stop) {
                s = cupat__fail(ctx, CUPAT_ERROR_FORMAT,
                                "%s: %s, line %zu: more than three fields (want \"u v\" or "
                                "\"u v weight\")",
                                fn, name, line);
                goto fail;
            }
        }
        if (ne == cap) {
            int32_t *ne2 = realloc(e, cap * 4 * sizeof *e);
            if (!ne2) {
                s = cupat__fail(ctx, CUPAT_ERROR_OUT_OF_MEMORY,
                                "%s: %s, line %zu: no host memory for %zu edges (%zu bytes)", fn,
                                name, line, 2 * cap, cap * 4 * sizeof *e);
                goto fail;
            }
            e = ne2;
            cap *= 2;
        }
        e[2 * ne] = (int32_t)id[0];
        e[2 * ne + 1] = (int32_t)id[1];
        ne++;
        if (id[0] > maxid || id[1] > maxid) {
            maxid = id[0] > id[1] ? id[0] : id[1];
            maxline = line;
        }
    }
    /* n comes from the largest id: a file of one edge "2000000000 0" must
     * not make the build allocate for 2^31 vertices (cupat__file_dims_max) */
    if ((uint64_t)(maxid + 1) > cupat__file_dims_max(ne)) {
        s = cupat__fail(ctx, CUPAT_ERROR_SIZE,
                        "%s: %s, line %zu: vertex id %lld makes %lld vertices for %zu edge%s: "
                        "beyond %llu vertices, a file must list an edge for every %u of them",
                        fn, name, maxline, (long long)maxid, (long long)maxid + 1, ne,
                        ne == 1 ? "" : "s",
                        (unsigned long long)CUPAT_FILE_DIMS_FREE, CUPAT_FILE_DIMS_PER_ENTRY);
        goto fail;
    }
    s = cupat__graph_build(ctx, fn, g, (size_t)(maxid + 1), ne, CUPAT_I32, e, flags);
fail:
    free(e);
    return s;
}

cupat_status cupat_graph_read_memory(cupat_ctx *ctx, cupat_graph **g, const void *data,
                                     size_t size, unsigned flags)
{
    CUPAT_TRACE_CALL();
    const char *fn = "cupat_graph_read_memory";
    CUPAT_TRY(begin_create(ctx, fn, g, flags));
    if (size && !data)
        return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "%s: data is NULL with size = %zu",
                           fn, size);
    return parse_edges(ctx, fn, "(memory)", data, size, g, flags);
}

cupat_status cupat_graph_read(cupat_ctx *ctx, cupat_graph **g, const char *path,
                              unsigned flags)
{
    CUPAT_TRACE_CALL();
    const char *fn = "cupat_graph_read";
    CUPAT_TRY(begin_create(ctx, fn, g, flags));
    if (!path) return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "%s: path is NULL", fn);
    char *buf;
    size_t len;
    CUPAT_TRY(cupat__read_file(ctx, fn, path, &buf, &len));
    cupat_status s = parse_edges(ctx, fn, path, buf, len, g, flags);
    free(buf);
    return s;
}

/* -------------------------------------------------------------- queries -- */

cupat_status cupat__graph_check(cupat_ctx *ctx, const char *fn, const cupat_graph *g)
{
    if (!g) return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "%s: g is NULL", fn);
    if (g->backend != ctx->backend)
        return cupat__fail(ctx, CUPAT_ERROR_INVALID_VALUE,
                           "%s: g was made on the %s backend, ctx is %s", fn,
                           cupat_backend_name(g->backend), cupat_backend_name(ctx->backend));
    return CUPAT_SUCCESS;
}

cupat_status cupat_graph_destroy(cupat_ctx *ctx, cupat_graph *g)
{
    CUPAT_TRACE_CALL();
    CUPAT_TRY(cupat__begin(ctx, "cupat_graph_destroy"));
    if (!g) return CUPAT_SUCCESS;
    CUPAT_TRY(cupat__graph_check(ctx, "cupat_graph_destroy", g));
    if (ctx->backend == CUPAT_BACKEND_CUDA) CUPAT_CUDA_TRY(ctx, cudaStreamSynchronize(ctx->stream));
    graph_free(g);
    return CUPAT_SUCCESS;
}

cupat_status cupat_graph_get_info(cupat_ctx *ctx, const cupat_graph *g, cupat_graph_info *info)
{
    CUPAT_TRACE_CALL();
    CUPAT_TRY(cupat__begin(ctx, "cupat_graph_get_info"));
    CUPAT_TRY(cupat__graph_check(ctx, "cupat_graph_get_info", g));
    if (!info)
        return cupat__fail(ctx, CUPAT_ERROR_NULL_POINTER, "cupat_graph_get_info: info is NULL");
    *info = g->info;
    return CUPAT_SUCCESS;
}

cupat_status cupat_graph_get_csr(cupat_ctx *ctx, const cupat_graph *g, uint64_t *row_ptr,
                                 int32_t *col_idx)
{
    CUPAT_TRACE_CALL();
    const char *fn = "cupat_graph_get_csr";
    CUPAT_TRY(cupat__begin(ctx, fn));
    CUPAT_TRY(cupat__graph_check(ctx, fn, g));
    if (row_ptr) CUPAT_TRY(cupat_memcpy(ctx, row_ptr, g->h_row_ptr, (g->n + 1) * sizeof *row_ptr));
    if (col_idx && g->m) CUPAT_TRY(cupat_memcpy(ctx, col_idx, g->h_col, g->m * sizeof *col_idx));
    return cupat_sync(ctx);
}
