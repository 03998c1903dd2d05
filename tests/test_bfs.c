/* SPDX-License-Identifier: Apache-2.0 */
/* test_bfs.c — graphs and breadth-first search: the handle (edge lists,
 * CSR, files, the Kronecker generator), every rung of the "bfs" ladder on
 * hand-made, Kronecker and random graphs (levels equal to an independent
 * FIFO BFS here, parents by the Graph500 rules), multi-source searches, the
 * validation on broken trees (each rule caught), bad arguments. */
#define _POSIX_C_SOURCE 200809L /* mkstemp */
#include "testutil.h"

#include <unistd.h>

/* ------------------------------------------------------------ helpers -- */

typedef struct hgraph { /* the handle's CSR on the host */
    size_t n, m;
    uint64_t *rp;
    int32_t *col;
} hgraph;

static hgraph get_host(cupat_ctx *ctx, const cupat_graph *g)
{
    cupat_graph_info in;
    hgraph h = {0, 0, NULL, NULL};
    CHECK_OK(ctx, cupat_graph_get_info(ctx, g, &in));
    h.n = in.vertices;
    h.m = in.edges;
    h.rp = test_xmalloc((h.n + 1) * sizeof *h.rp);
    h.col = test_xmalloc((h.m ? h.m : 1) * sizeof *h.col);
    CHECK_OK(ctx, cupat_graph_get_csr(ctx, g, h.rp, h.col));
    return h;
}
static void free_host(hgraph *h) { free(h->rp), free(h->col); }

/* The reference: a FIFO queue from every source. */
static void ref_bfs(const hgraph *h, size_t ns, const int32_t *src, int32_t *lv)
{
    int32_t *q = test_xmalloc((h->n ? h->n : 1) * sizeof *q);
    size_t head = 0, tail = 0;
    for (size_t v = 0; v < h->n; v++) lv[v] = -1;
    for (size_t i = 0; i < ns; i++)
        if (lv[src[i]] == -1) lv[src[i]] = 0, q[tail++] = src[i];
    while (head < tail) {
        int32_t u = q[head++];
        for (uint64_t e = h->rp[u]; e < h->rp[u + 1]; e++)
            if (lv[h->col[e]] == -1) lv[h->col[e]] = lv[u] + 1, q[tail++] = h->col[e];
    }
    free(q);
}

static int n_rungs_run;

/* Every rung of ctx's backend from `ns` sources: levels equal to the
 * reference, the result valid by cupat_bfs_check_result (which is tested
 * on its own below), parents NULL accepted. */
static void check_all_rungs(cupat_ctx *ctx, const cupat_graph *g, size_t ns,
                            const int32_t *src, const char *what)
{
    hgraph h = get_host(ctx, g);
    const size_t n = h.n, bytes = (n ? n : 1) * sizeof(int32_t);
    int32_t *ref = test_xmalloc(bytes), *lv = test_xmalloc(bytes), *pa = test_xmalloc(bytes);
    ref_bfs(&h, ns, src, ref);
    int32_t *dl = test_dalloc(ctx, bytes), *dp = test_dalloc(ctx, bytes);
    const cupat_variant_info *list;
    size_t count;
    CHECK_OK(ctx, cupat_variants("bfs", &list, &count));
    for (size_t k = 0; k < count; k++) {
        if (list[k].backend != cupat_get_backend(ctx)) continue;
        CHECK_OK(ctx, cupat_set_variant(ctx, "bfs", list[k].name));
        for (int with_parents = 1; with_parents >= 0; with_parents--) {
            test_poison(ctx, dl, bytes);
            test_poison(ctx, dp, bytes);
            cupat_status s = ns == 1 ? cupat_bfs(ctx, g, src[0], dl, with_parents ? dp : NULL)
                                     : cupat_bfs_multi(ctx, g, ns, src, dl,
                                                       with_parents ? dp : NULL);
            CHECK(s == CUPAT_SUCCESS, "%s: %s: %s", what, list[k].name, cupat_last_error(ctx));
            test_download(ctx, lv, dl, n * sizeof *lv);
            size_t bad = SIZE_MAX;
            for (size_t v = 0; v < n && bad == SIZE_MAX; v++)
                if (lv[v] != ref[v]) bad = v;
            CHECK(bad == SIZE_MAX, "%s: %s: level of %zu is %d, want %d", what, list[k].name, bad,
                  bad < n ? lv[bad] : 0, bad < n ? ref[bad] : 0);
            if (!with_parents) continue;
            test_download(ctx, pa, dp, n * sizeof *pa);
            cupat_bfs_check c;
            CHECK_OK(ctx, cupat_bfs_check_result(ctx, g, ns, src, dl, dp, &c));
            CHECK(c.valid, "%s: %s: %s", what, list[k].name, c.message);
            n_rungs_run++;
        }
    }
    CHECK_OK(ctx, cupat_set_variant(ctx, "bfs", NULL));
    cupat_free(ctx, dl);
    cupat_free(ctx, dp);
    free(ref), free(lv), free(pa);
    free_host(&h);
}

static cupat_graph *from_edges(cupat_ctx *ctx, size_t n, size_t ne, const int32_t *e,
                               unsigned flags)
{
    cupat_graph *g = NULL;
    CHECK_OK(ctx, cupat_graph_create_edges(ctx, &g, n, ne, CUPAT_I32, e, flags));
    if (!g) {
        fprintf(stderr, "cannot build a test graph\n");
        exit(1);
    }
    return g;
}

/* Every vertex as a source in turn (small graphs). */
static void every_source(cupat_ctx *ctx, const cupat_graph *g, size_t n, const char *what)
{
    for (size_t s = 0; s < n; s++) {
        int32_t src = (int32_t)s;
        check_all_rungs(ctx, g, 1, &src, what);
    }
}

/* ------------------------------------------------------- hand graphs -- */

static void test_hand_graphs(cupat_ctx *ctx)
{
    /* a path 0 - 1 - ... - 9, both ways and one way */
    int32_t path[18];
    for (int i = 0; i < 9; i++) path[2 * i] = i, path[2 * i + 1] = i + 1;
    cupat_graph *g = from_edges(ctx, 10, 9, path, CUPAT_GRAPH_UNDIRECTED);
    every_source(ctx, g, 10, "path");
    cupat_graph_destroy(ctx, g);
    g = from_edges(ctx, 10, 9, path, CUPAT_GRAPH_DIRECTED);
    every_source(ctx, g, 10, "directed path");
    cupat_graph_destroy(ctx, g);

    /* a star: centre 0 and 200 leaves (a list longer than a warp) */
    int32_t star[400];
    for (int i = 0; i < 200; i++) star[2 * i] = 0, star[2 * i + 1] = i + 1;
    g = from_edges(ctx, 201, 200, star, CUPAT_GRAPH_UNDIRECTED);
    int32_t s0 = 0, s1 = 57;
    check_all_rungs(ctx, g, 1, &s0, "star from the centre");
    check_all_rungs(ctx, g, 1, &s1, "star from a leaf");
    cupat_graph_destroy(ctx, g);

    /* A hub of 20000 leaves, each leaf with one more leaf: the hub's list
     * spans many edge_balanced tiles (2048 edges), and the next level is
     * 20000 one-edge lists in few tiles. Every rung, from the hub and a
     * leaf of a leaf. */
    {
        const int L = 20000;
        int32_t *hub = test_xmalloc((size_t)4 * L * sizeof *hub);
        for (int i = 0; i < L; i++) {
            hub[4 * i] = 0, hub[4 * i + 1] = 1 + i;          /* hub - leaf    */
            hub[4 * i + 2] = 1 + i, hub[4 * i + 3] = 1 + L + i; /* leaf - leaf' */
        }
        g = from_edges(ctx, (size_t)2 * L + 1, (size_t)2 * L, hub, CUPAT_GRAPH_UNDIRECTED);
        int32_t h0 = 0, h1 = 1 + L + 77;
        check_all_rungs(ctx, g, 1, &h0, "hub of 20000 from the hub");
        check_all_rungs(ctx, g, 1, &h1, "hub of 20000 from a far leaf");
        cupat_graph_destroy(ctx, g);
        free(hub);
    }

    /* 3100 isolated sources between two with edges: the first level's
     * queue holds more entries than a tile has edges (edge_balanced's
     * unstaged path). */
    {
        const int N = 5000, ISO = 3100;
        int32_t e2[40];
        for (int i = 0; i < 10; i++) {
            e2[4 * i] = 0, e2[4 * i + 1] = 4500 + i;
            e2[4 * i + 2] = 4000, e2[4 * i + 3] = 4600 + i;
        }
        g = from_edges(ctx, (size_t)N, 20, e2, CUPAT_GRAPH_UNDIRECTED);
        int32_t *srcs = test_xmalloc((size_t)(ISO + 2) * sizeof *srcs);
        srcs[0] = 4000; /* unsorted on purpose */
        for (int i = 0; i < ISO; i++) srcs[1 + i] = 100 + i;
        srcs[ISO + 1] = 0;
        check_all_rungs(ctx, g, (size_t)ISO + 2, srcs, "3100 isolated sources");
        cupat_graph_destroy(ctx, g);
        free(srcs);
    }

    /* two components and isolated vertices 7, 8 */
    int32_t two[] = {0, 1, 1, 2, 2, 0, 3, 4, 4, 5, 5, 6};
    g = from_edges(ctx, 9, 6, two, CUPAT_GRAPH_UNDIRECTED);
    every_source(ctx, g, 9, "two components");
    cupat_graph_info in;
    CHECK_OK(ctx, cupat_graph_get_info(ctx, g, &in));
    CHECK(in.isolated == 2 && in.edges == 12 && in.max_degree == 2, "isolated %zu edges %zu",
          in.isolated, in.edges);
    cupat_graph_destroy(ctx, g);

    /* self-loops and duplicates: dropped from the CSR, counted in the info */
    int32_t messy[] = {0, 0, 0, 1, 1, 0, 0, 1, 1, 2, 2, 2, 2, 1, 3, 3};
    g = from_edges(ctx, 4, 8, messy, CUPAT_GRAPH_UNDIRECTED);
    CHECK_OK(ctx, cupat_graph_get_info(ctx, g, &in));
    CHECK(in.input_edges == 8 && in.self_loops == 3 && in.edges == 4 && in.duplicates == 6 &&
              in.isolated == 1 && in.undirected == 1,
          "messy: input %zu loops %zu edges %zu dups %zu isolated %zu", in.input_edges,
          in.self_loops, in.edges, in.duplicates, in.isolated);
    every_source(ctx, g, 4, "self-loops and duplicates");
    hgraph h = get_host(ctx, g);
    CHECK(h.rp[1] == 1 && h.col[0] == 1 && h.rp[2] == 3 && h.col[1] == 0 && h.col[2] == 2,
          "messy CSR");
    free_host(&h);
    /* traversed edges count every input tuple of the component, loops too */
    int32_t lv[4], pa[4], src = 0;
    int32_t *dl = test_dalloc(ctx, sizeof lv), *dp = test_dalloc(ctx, sizeof pa);
    CHECK_OK(ctx, cupat_bfs(ctx, g, 0, dl, dp));
    cupat_bfs_check c;
    CHECK_OK(ctx, cupat_bfs_check_result(ctx, g, 1, &src, dl, dp, &c));
    CHECK(c.valid && c.traversed_edges == 7 && c.reached == 3 && c.depth == 2,
          "messy: valid %d traversed %llu reached %zu depth %d", c.valid,
          (unsigned long long)c.traversed_edges, c.reached, c.depth);
    cupat_free(ctx, dl);
    cupat_free(ctx, dp);
    cupat_graph_destroy(ctx, g);

    /* a single vertex; a single vertex with a self-loop */
    g = from_edges(ctx, 1, 0, NULL, 0);
    every_source(ctx, g, 1, "single vertex");
    cupat_graph_destroy(ctx, g);
    int32_t loop[] = {0, 0};
    g = from_edges(ctx, 1, 1, loop, CUPAT_GRAPH_UNDIRECTED);
    every_source(ctx, g, 1, "single self-loop");
    cupat_graph_destroy(ctx, g);

    /* a directed graph: a cycle 0 -> 1 -> 2 -> 0, a tail 2 -> 3 -> 4, and 5 -> 0 */
    int32_t dir[] = {0, 1, 1, 2, 2, 0, 2, 3, 3, 4, 5, 0};
    g = from_edges(ctx, 6, 6, dir, CUPAT_GRAPH_DIRECTED);
    every_source(ctx, g, 6, "directed");
    CHECK_OK(ctx, cupat_graph_get_info(ctx, g, &in));
    CHECK(in.edges == 6 && in.isolated == 0 && in.undirected == 0, "directed info");
    cupat_graph_destroy(ctx, g);

    /* the empty graph: built, but no vertex to start from */
    g = from_edges(ctx, 0, 0, NULL, CUPAT_GRAPH_UNDIRECTED);
    CHECK_OK(ctx, cupat_graph_get_info(ctx, g, &in));
    CHECK(in.vertices == 0 && in.edges == 0, "empty");
    int32_t dummy[1];
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "is not a vertex (n = 0)",
                cupat_bfs(ctx, g, 0, dummy, NULL));
    cupat_graph_destroy(ctx, g);
}

/* ----------------------------------------------------- larger graphs -- */

/* Graph500's root choice: a vertex with an edge (not a self-loop only). */
static int32_t pick_root(const hgraph *h)
{
    for (int tries = 0; tries < 1000; tries++) {
        int32_t v = (int32_t)(test_rand() % h->n);
        if (h->rp[v + 1] > h->rp[v]) return v;
    }
    return 0;
}

static void test_kronecker(cupat_ctx *ctx)
{
    const int scales[] = {10, 12, 14};
    const int nscales = t_small ? 1 : 3;
    for (int k = 0; k < nscales; k++) {
        cupat_graph *g = NULL;
        CHECK_OK(ctx, cupat_graph_kronecker(ctx, &g, scales[k], 16, 1000 + k));
        if (!g) continue;
        hgraph h = get_host(ctx, g);
        CHECK(h.n == (size_t)1 << scales[k], "kronecker n");
        char what[64];
        snprintf(what, sizeof what, "kronecker scale %d", scales[k]);
        for (int r = 0; r < 3; r++) {
            int32_t root = pick_root(&h);
            check_all_rungs(ctx, g, 1, &root, what);
        }
        int32_t roots[5];
        for (int r = 0; r < 5; r++) roots[r] = pick_root(&h);
        roots[4] = roots[0]; /* a repeat */
        check_all_rungs(ctx, g, 5, roots, "kronecker multi-source");
        free_host(&h);
        cupat_graph_destroy(ctx, g);
    }
}

/* Kronecker edges: deterministic per seed, in range, the recipe's skew. */
static void test_kronecker_edges(void)
{
    const int scale = 8, ef = 16;
    const size_t m = (size_t)ef << scale;
    int64_t *a = test_xmalloc(2 * m * sizeof *a), *b = test_xmalloc(2 * m * sizeof *b);
    CHECK(cupat_kronecker_edges(scale, ef, 42, a) == CUPAT_SUCCESS, "kronecker_edges");
    CHECK(cupat_kronecker_edges(scale, ef, 42, b) == CUPAT_SUCCESS, "kronecker_edges");
    CHECK(memcmp(a, b, 2 * m * sizeof *a) == 0, "same seed, same edges");
    CHECK(cupat_kronecker_edges(scale, ef, 43, b) == CUPAT_SUCCESS, "kronecker_edges");
    CHECK(memcmp(a, b, 2 * m * sizeof *a) != 0, "another seed, other edges");
    size_t out = 0, loops = 0;
    size_t *deg = test_xmalloc(((size_t)1 << scale) * sizeof *deg);
    for (size_t i = 0; i < 2 * m; i++) {
        out += a[i] < 0 || a[i] >= (1 << scale);
        if (a[i] >= 0 && a[i] < (1 << scale)) deg[a[i]]++;
    }
    for (size_t i = 0; i < m; i++) loops += a[2 * i] == a[2 * i + 1];
    CHECK(out == 0, "%zu ids out of range", out);
    /* R-MAT skew: the busiest vertex has far more than the mean 2 ef */
    size_t maxd = 0;
    for (size_t v = 0; v < ((size_t)1 << scale); v++)
        if (deg[v] > maxd) maxd = deg[v];
    CHECK(maxd > 8 * 2 * ef, "max degree %zu: no power law?", maxd);
    CHECK(loops > 0 && loops < m / 4, "self-loops %zu of %zu", loops, m);
    free(deg), free(a), free(b);
}

static void test_random(cupat_ctx *ctx)
{
    const size_t n = t_small ? 500 : 3000, ne = 4 * n;
    int32_t *e = test_xmalloc(2 * ne * sizeof *e);
    for (int und = 0; und <= 1; und++) {
        for (size_t i = 0; i < 2 * ne; i++) e[i] = (int32_t)(test_rand() % n);
        cupat_graph *g = from_edges(ctx, n, ne, e, und ? CUPAT_GRAPH_UNDIRECTED : 0);
        for (int r = 0; r < 3; r++) {
            int32_t root = (int32_t)(test_rand() % n);
            check_all_rungs(ctx, g, 1, &root, und ? "random undirected" : "random directed");
        }
        int32_t roots[3] = {1, 2, (int32_t)(n - 1)};
        check_all_rungs(ctx, g, 3, roots, "random multi-source");
        cupat_graph_destroy(ctx, g);
    }
    /* sparse: many small components, many levels */
    for (size_t i = 0; i < n; i++) e[2 * i] = (int32_t)i, e[2 * i + 1] = (int32_t)((i + 1 + test_rand() % 3) % n);
    cupat_graph *g = from_edges(ctx, n, n / 2, e, CUPAT_GRAPH_UNDIRECTED);
    int32_t root = 0;
    check_all_rungs(ctx, g, 1, &root, "sparse chains");
    cupat_graph_destroy(ctx, g);
    free(e);
}

/* Frontiers that grow past one block's queue and shrink again: small_frontier
 * (bfs_book.cu) runs small levels in one block of a 2048-vertex queue and
 * hands bigger ones to the grid. Paths of 10 between stars whose centres have
 * 2048 leaves (fills the queue exactly: stays in the block), 2049 (one past:
 * the block returns) and 5000 (returns again); one leaf of each star starts
 * the next path, so the frontier falls back to 1 after each star. */
static void test_frontier_sizes(cupat_ctx *ctx)
{
    static const int leaves[3] = {2048, 2049, 5000};
    const int path = 10;
    size_t n = 0, ne = 0;
    int32_t *e = test_xmalloc(2 * (4 * (size_t)path + 2048 + 2049 + 5000) * sizeof *e);
    int32_t first = 0, last = 0;
    for (int s = 0; s <= 3; s++) {
        /* a path first .. first + path - 1, from the previous star's first leaf */
        first = (int32_t)n;
        if (s > 0) e[2 * ne] = first - leaves[s - 1], e[2 * ne + 1] = first, ne++;
        for (int i = 0; i + 1 < path; i++)
            e[2 * ne] = first + i, e[2 * ne + 1] = first + i + 1, ne++;
        n += path;
        last = (int32_t)n - 1;
        if (s == 3) break;
        for (int l = 0; l < leaves[s]; l++) e[2 * ne] = last, e[2 * ne + 1] = (int32_t)n + l, ne++;
        n += (size_t)leaves[s];
    }
    for (int und = 0; und <= 1; und++) {
        cupat_graph *g = from_edges(ctx, n, ne, e, und ? CUPAT_GRAPH_UNDIRECTED : 0);
        int32_t src[2] = {0, last};
        check_all_rungs(ctx, g, 1, src, und ? "frontier sizes" : "frontier sizes, directed");
        check_all_rungs(ctx, g, 2, src, "frontier sizes, two ends");
        /* more sources than the block holds: the first level on the grid */
        const size_t ns = 2100;
        int32_t *many = test_xmalloc(ns * sizeof *many);
        for (size_t i = 0; i < ns; i++) many[i] = (int32_t)(i * 4 % n);
        check_all_rungs(ctx, g, ns, many, "frontier sizes, 2100 sources");
        free(many);
        cupat_graph_destroy(ctx, g);
    }
    free(e);
}

/* ------------------------------------------------------ the handle ---- */

static void test_inputs(cupat_ctx *ctx)
{
    /* the same graph from u64 pairs, a CSR triple (i64, u32), a file */
    const int32_t e32[] = {0, 1, 1, 2, 2, 3, 3, 0, 1, 3};
    uint64_t e64[10];
    for (int i = 0; i < 10; i++) e64[i] = (uint64_t)e32[i];
    cupat_graph *a = from_edges(ctx, 5, 5, e32, CUPAT_GRAPH_UNDIRECTED), *b = NULL, *c = NULL,
                *d = NULL;
    CHECK_OK(ctx, cupat_graph_create_edges(ctx, &b, 5, 5, CUPAT_U64, e64, CUPAT_GRAPH_UNDIRECTED));
    const int64_t rp[] = {0, 1, 3, 4, 5, 5}, col[] = {1, 2, 3, 3, 0};
    CHECK_OK(ctx, cupat_graph_create_csr(ctx, &c, 5, 5, CUPAT_I64, rp, col, CUPAT_GRAPH_UNDIRECTED));
    /* backend memory is accepted as input too */
    void *de = test_upload(ctx, e32, sizeof e32);
    CHECK_OK(ctx, cupat_graph_create_edges(ctx, &d, 5, 5, CUPAT_I32, de, CUPAT_GRAPH_UNDIRECTED));
    cupat_free(ctx, de);
    hgraph ha = get_host(ctx, a);
    const cupat_graph *others[] = {b, c, d};
    for (int k = 0; k < 3; k++) {
        if (!others[k]) continue;
        hgraph hb = get_host(ctx, others[k]);
        CHECK(hb.n == ha.n && hb.m == ha.m && !memcmp(hb.rp, ha.rp, (ha.n + 1) * 8) &&
                  !memcmp(hb.col, ha.col, ha.m * 4),
              "input form %d gives another CSR", k);
        free_host(&hb);
    }
    const uint64_t want_rp[] = {0, 2, 5, 7, 10, 10};
    const int32_t want_col[] = {1, 3, 0, 2, 3, 1, 3, 0, 1, 2};
    CHECK(ha.n == 5 && ha.m == 10 && !memcmp(ha.rp, want_rp, sizeof want_rp) &&
              !memcmp(ha.col, want_col, sizeof want_col),
          "symmetrized, sorted CSR");
    free_host(&ha);
    cupat_graph_destroy(ctx, b);
    cupat_graph_destroy(ctx, c);
    cupat_graph_destroy(ctx, d);

    /* a file: comments, blank lines, CRLF, weights, tabs */
    const char text[] = "# a comment\n% another\n\n0 1\r\n1\t2 0.5\n  2 3\n3 0 1e-3\n1 3\n";
    char path[] = "/tmp/cupat_bfs_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0, "mkstemp");
    if (fd >= 0) {
        CHECK(write(fd, text, sizeof text - 1) == (ssize_t)(sizeof text - 1), "write");
        close(fd);
        cupat_graph *f = NULL;
        CHECK_OK(ctx, cupat_graph_read(ctx, &f, path, CUPAT_GRAPH_UNDIRECTED));
        if (f) {
            hgraph hf = get_host(ctx, f);
            CHECK(hf.n == 4 && hf.m == 10 && !memcmp(hf.rp, want_rp, 5 * 8) &&
                      !memcmp(hf.col, want_col, sizeof want_col),
                  "file CSR (n %zu m %zu)", hf.n, hf.m);
            free_host(&hf);
            every_source(ctx, f, 4, "file graph");
            cupat_graph_destroy(ctx, f);
        }
        unlink(path);
    }
    CHECK_FAILS(ctx, CUPAT_ERROR_IO, "cannot open /nonexistent/g.txt",
                cupat_graph_read(ctx, &d, "/nonexistent/g.txt", 0));
    CHECK_FAILS(ctx, CUPAT_ERROR_IO, "cannot read /tmp: it is a directory",
                cupat_graph_read(ctx, &d, "/tmp", 0));

    /* malformed lists: each names its line */
    static const struct { const char *text, *needle; cupat_status st; } bad[] = {
        {"0 1\n2\n", "line 2: second vertex id missing", CUPAT_ERROR_FORMAT},
        {"0 1\n\n# c\n-1 2\n", "line 4: negative vertex id", CUPAT_ERROR_FORMAT},
        {"0 x\n", "line 1: second vertex id is not a decimal integer", CUPAT_ERROR_FORMAT},
        {"0 1x\n", "line 1: second vertex id is not a decimal integer", CUPAT_ERROR_FORMAT},
        {"1 2 w\n", "line 1: third field is not a number", CUPAT_ERROR_FORMAT},
        {"1 2 3 4\n", "line 1: more than three fields", CUPAT_ERROR_FORMAT},
        {"0 1\n1 99999999999\n", "line 2: vertex id beyond", CUPAT_ERROR_FORMAT},
        {"0 1\n1 2147483646\n", "line 2: vertex id beyond", CUPAT_ERROR_FORMAT},
        {"%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n4 1\n", "line 4",
         CUPAT_ERROR_FORMAT},
        {"%%MatrixMarket matrix coordinate pattern general\n3 2 1\n1 2\n", "not square",
         CUPAT_ERROR_FORMAT},
        /* a short file cannot stand for billions of vertices (17 GB were
         * allocated for these before "out of memory") */
        {"# one edge\n0 1\n2000000000 0\n",
         "line 3: vertex id 2000000000 makes 2000000001 vertices for 2 edges: beyond 16777216",
         CUPAT_ERROR_SIZE},
        {"%%MatrixMarket matrix coordinate pattern general\n2147483646 2147483646 1\n1 1\n",
         "line 2: size 2147483646 x 2147483646, 1 entry: beyond 16777216 rows or columns",
         CUPAT_ERROR_SIZE},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        cupat_graph *x = (cupat_graph *)1;
        CHECK_FAILS(ctx, bad[k].st, bad[k].needle,
                    cupat_graph_read_memory(ctx, &x, bad[k].text, strlen(bad[k].text), 0));
        CHECK(x == NULL, "a failed read leaves g NULL");
    }
    /* Matrix Market: a symmetric pattern file is the undirected graph */
    const char mm[] = "%%MatrixMarket matrix coordinate pattern symmetric\n% c\n5 5 5\n"
                      "2 1\n3 2\n4 3\n4 1\n4 2\n";
    cupat_graph *x = NULL;
    CHECK_OK(ctx, cupat_graph_read_memory(ctx, &x, mm, sizeof mm - 1, 0));
    if (x) {
        hgraph hm = get_host(ctx, x);
        CHECK(hm.n == 5 && hm.m == 10 && !memcmp(hm.rp, want_rp, sizeof want_rp) &&
                  !memcmp(hm.col, want_col, sizeof want_col),
              "Matrix Market CSR (n %zu m %zu)", hm.n, hm.m);
        free_host(&hm);
        every_source(ctx, x, 5, "Matrix Market graph");
        cupat_graph_destroy(ctx, x);
    }
    /* Matrix Market entries are the input tuples, repeats included (as in an
     * edge list); the CSR drops the repeat */
    const char mmdup[] = "%%MatrixMarket matrix coordinate pattern general\n3 3 3\n1 2\n2 3\n1 2\n";
    x = NULL;
    CHECK_OK(ctx, cupat_graph_read_memory(ctx, &x, mmdup, sizeof mmdup - 1, 0));
    if (x) {
        cupat_graph_info di;
        CHECK_OK(ctx, cupat_graph_get_info(ctx, x, &di));
        CHECK(di.vertices == 3 && di.input_edges == 3 && di.edges == 2 && di.duplicates == 1,
              "Matrix Market repeats: %zu vertices, %zu tuples, %zu edges, %zu duplicates",
              di.vertices, di.input_edges, di.edges, di.duplicates);
        cupat_graph_destroy(ctx, x);
    }
    /* an empty list: the empty graph; only comments likewise */
    x = NULL;
    CHECK_OK(ctx, cupat_graph_read_memory(ctx, &x, "# nothing\n", 10, 0));
    cupat_graph_info in;
    if (x) {
        CHECK_OK(ctx, cupat_graph_get_info(ctx, x, &in));
        CHECK(in.vertices == 0, "comments only: empty");
        cupat_graph_destroy(ctx, x);
    }
}

/* ------------------------------------------------------- validation -- */

/* A graph and a valid result; each rule broken in turn must be caught. */
static void test_validation(cupat_ctx *ctx)
{
    /* 0-1, 0-2, 1-3, 2-4, 3-4, and 5 alone */
    const int32_t e[] = {0, 1, 0, 2, 1, 3, 2, 4, 3, 4};
    cupat_graph *g = from_edges(ctx, 6, 5, e, CUPAT_GRAPH_UNDIRECTED);
    const int32_t good_l[] = {0, 1, 1, 2, 2, -1}, good_p[] = {0, 0, 0, 1, 2, -1};
    int32_t l[6], p[6], src = 0;
    cupat_bfs_check c;
    CHECK_OK(ctx, cupat_bfs_check_result(ctx, g, 1, &src, good_l, good_p, &c));
    CHECK(c.valid && c.rule == CUPAT_BFS_RULE_NONE && c.reached == 5 && c.depth == 2 &&
              c.traversed_edges == 5,
          "the good tree: %s", c.message);
    static const struct {
        int vertex, level, parent; /* what is changed */
        cupat_bfs_rule rule;
        const char *needle;
    } cases[] = {
        {3, 6, 1, CUPAT_BFS_RULE_RANGE, "vertex 3 has level 6"},
        {3, -1, 1, CUPAT_BFS_RULE_RANGE, "vertex 3 has level -1 and parent 1"},
        {5, 3, -1, CUPAT_BFS_RULE_RANGE, "vertex 5"},
        {0, 0, 1, CUPAT_BFS_RULE_SOURCE, "source 0 has level 0 and parent 1"},
        {0, 1, 0, CUPAT_BFS_RULE_SOURCE, "source 0 has level 1"},
        {5, 0, 5, CUPAT_BFS_RULE_SOURCE, "vertex 5 has level 0 but is no source"},
        {3, 2, 2, CUPAT_BFS_RULE_TREE_EDGE, "tree edge 2 -> 3"},
        {4, 2, 3, CUPAT_BFS_RULE_TREE_LEVEL, "vertex 4 has level 2, its parent 3 level 2"},
        {4, -1, -1, CUPAT_BFS_RULE_SPAN, "vertex 4 is reachable"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        memcpy(l, good_l, sizeof l);
        memcpy(p, good_p, sizeof p);
        l[cases[k].vertex] = cases[k].level;
        p[cases[k].vertex] = cases[k].parent;
        CHECK_OK(ctx, cupat_bfs_check_result(ctx, g, 1, &src, l, p, &c));
        CHECK(!c.valid && c.rule == cases[k].rule && strstr(c.message, cases[k].needle),
              "case %zu: valid %d rule %d message \"%s\"", k, c.valid, (int)c.rule, c.message);
    }
    /* edge_level: a consistent tree along a path whose shortcut edge spans two
     * levels (0-1-2 with edge 0-2: 2 at level 2 through 1) */
    const int32_t tri[] = {0, 1, 1, 2, 0, 2};
    cupat_graph *t = from_edges(ctx, 3, 3, tri, CUPAT_GRAPH_UNDIRECTED);
    const int32_t tl[] = {0, 1, 2}, tp[] = {0, 0, 1};
    CHECK_OK(ctx, cupat_bfs_check_result(ctx, t, 1, &src, tl, tp, &c));
    CHECK(!c.valid && c.rule == CUPAT_BFS_RULE_EDGE_LEVEL && c.vertex == 0 &&
              strstr(c.message, "edge 0 -> 2 joins levels 0 and 2"),
          "edge_level: rule %d \"%s\"", (int)c.rule, c.message);
    /* a cycle of parents with levels to match is impossible; a cycle with
     * equal levels breaks tree_level */
    const int32_t cl[] = {0, 1, 1}, cp[] = {0, 2, 1};
    CHECK_OK(ctx, cupat_bfs_check_result(ctx, t, 1, &src, cl, cp, &c));
    CHECK(!c.valid && c.rule == CUPAT_BFS_RULE_TREE_LEVEL, "parent cycle: \"%s\"", c.message);
    /* multi-source: both sources at level 0, their own parents */
    int32_t two[] = {0, 4};
    const int32_t ml[] = {0, 1, 1, 1, 0, -1}, mp[] = {0, 0, 0, 4, 4, -1};
    CHECK_OK(ctx, cupat_bfs_check_result(ctx, g, 2, two, ml, mp, &c));
    CHECK(c.valid, "two sources: %s", c.message);
    CHECK_OK(ctx, cupat_bfs_check_result(ctx, g, 1, two, ml, mp, &c));
    CHECK(!c.valid && c.rule == CUPAT_BFS_RULE_SOURCE, "the second source unnamed");
    cupat_graph_destroy(ctx, t);
    cupat_graph_destroy(ctx, g);
}

/* ----------------------------------------------------- bad arguments -- */

static void test_bad_args(cupat_ctx *ctx)
{
    const int32_t e[] = {0, 1, 1, 2};
    cupat_graph *g = NULL;
    int32_t h3[3];
    CHECK_FAILS(NULL, CUPAT_ERROR_NULL_POINTER, "ctx",
                cupat_graph_create_edges(NULL, &g, 3, 2, CUPAT_I32, e, 0));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "g is NULL",
                cupat_graph_create_edges(ctx, NULL, 3, 2, CUPAT_I32, e, 0));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "id_type",
                cupat_graph_create_edges(ctx, &g, 3, 2, CUPAT_F32, e, 0));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "flags = 0x4",
                cupat_graph_create_edges(ctx, &g, 3, 2, CUPAT_I32, e, 4));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "edges is NULL",
                cupat_graph_create_edges(ctx, &g, 3, 2, CUPAT_I32, NULL, 0));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "edge 1: target id 2 is not a vertex (n = 2)",
                cupat_graph_create_edges(ctx, &g, 2, 2, CUPAT_I32, e, 0));
    const int32_t neg[] = {0, 1, -3, 1};
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "edge 1: source id -3",
                cupat_graph_create_edges(ctx, &g, 3, 2, CUPAT_I32, neg, 0));
    const uint64_t huge[] = {0, UINT64_MAX};
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "target id 18446744073709551615",
                cupat_graph_create_edges(ctx, &g, 3, 1, CUPAT_U64, huge, 0));
    CHECK_FAILS(ctx, CUPAT_ERROR_SIZE, "at most 2147483646",
                cupat_graph_create_edges(ctx, &g, (size_t)1 << 31, 0, CUPAT_I32, NULL, 0));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "n = 0 vertices but nedges = 2",
                cupat_graph_create_edges(ctx, &g, 0, 2, CUPAT_I32, e, 0));
    CHECK(g == NULL, "failed creates leave g NULL");

    const int32_t rp_bad0[] = {1, 1, 2}, rp_dec[] = {0, 2, 1}, rp_end[] = {0, 1, 1},
                  col[] = {1, 0}, col_bad[] = {1, 5};
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "row_ptr[0] = 1",
                cupat_graph_create_csr(ctx, &g, 2, 2, CUPAT_I32, rp_bad0, col, 0));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "row_ptr[2] = 1 after row_ptr[1] = 2",
                cupat_graph_create_csr(ctx, &g, 2, 2, CUPAT_I32, rp_dec, col, 0));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "row_ptr[2] = 1, not nnz = 2",
                cupat_graph_create_csr(ctx, &g, 2, 2, CUPAT_I32, rp_end, col, 0));
    const int32_t rp_ok[] = {0, 1, 2};
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "col_idx[1] = 5 is not a vertex",
                cupat_graph_create_csr(ctx, &g, 2, 2, CUPAT_I32, rp_ok, col_bad, 0));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "row_ptr is NULL",
                cupat_graph_create_csr(ctx, &g, 2, 2, CUPAT_I32, NULL, col, 0));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "col_idx is NULL",
                cupat_graph_create_csr(ctx, &g, 2, 2, CUPAT_I32, rp_ok, NULL, 0));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "index_type",
                cupat_graph_create_csr(ctx, &g, 2, 2, CUPAT_F64, rp_ok, col, 0));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "path is NULL",
                cupat_graph_read(ctx, &g, NULL, 0));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "flags",
                cupat_graph_read(ctx, &g, "/dev/null", 2));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "data is NULL",
                cupat_graph_read_memory(ctx, &g, NULL, 5, 0));
    CHECK_FAILS(NULL, CUPAT_ERROR_INVALID_VALUE, "scale = 0",
                cupat_kronecker_edges(0, 16, 1, (int64_t *)h3));
    CHECK_FAILS(NULL, CUPAT_ERROR_INVALID_VALUE, "edge_factor = 0",
                cupat_kronecker_edges(4, 0, 1, (int64_t *)h3));
    CHECK_FAILS(NULL, CUPAT_ERROR_NULL_POINTER, "edges is NULL", cupat_kronecker_edges(4, 1, 1, NULL));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "scale = 31",
                cupat_graph_kronecker(ctx, &g, 31, 16, 1));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "edge_factor = 2000",
                cupat_graph_kronecker(ctx, &g, 4, 2000, 1));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "g is NULL",
                cupat_graph_kronecker(ctx, NULL, 4, 16, 1));

    g = from_edges(ctx, 3, 2, e, CUPAT_GRAPH_UNDIRECTED);
    cupat_graph_info in;
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "info is NULL", cupat_graph_get_info(ctx, g, NULL));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "g is NULL", cupat_graph_get_info(ctx, NULL, &in));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "g is NULL", cupat_graph_get_csr(ctx, NULL, NULL, NULL));
    CHECK_OK(ctx, cupat_graph_get_csr(ctx, g, NULL, NULL));
    int32_t *dl = test_dalloc(ctx, sizeof h3), *dp = test_dalloc(ctx, sizeof h3);
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "source 3 is not a vertex (n = 3)",
                cupat_bfs(ctx, g, 3, dl, dp));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "source -1 is not a vertex",
                cupat_bfs(ctx, g, -1, dl, dp));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "levels is NULL", cupat_bfs(ctx, g, 0, NULL, dp));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "g is NULL", cupat_bfs(ctx, NULL, 0, dl, dp));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "levels and parents",
                cupat_bfs(ctx, g, 0, dl, dl + 1));
    if (t_backend == CUPAT_BACKEND_CUDA) {
        CHECK_FAILS(ctx, CUPAT_ERROR_HOST_POINTER, "levels", cupat_bfs(ctx, g, 0, h3, dp));
        CHECK_FAILS(ctx, CUPAT_ERROR_HOST_POINTER, "parents", cupat_bfs(ctx, g, 0, dl, h3));
    }
    int32_t srcs[] = {0, 7};
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "sources[1] = 7 is not a vertex",
                cupat_bfs_multi(ctx, g, 2, srcs, dl, dp));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "nsources = 0",
                cupat_bfs_multi(ctx, g, 0, srcs, dl, dp));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "sources is NULL",
                cupat_bfs_multi(ctx, g, 1, NULL, dl, dp));
    cupat_bfs_check c;
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "check is NULL",
                cupat_bfs_check_result(ctx, g, 1, srcs, dl, dp, NULL));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "levels is NULL",
                cupat_bfs_check_result(ctx, g, 1, srcs, NULL, dp, &c));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "parents is NULL",
                cupat_bfs_check_result(ctx, g, 1, srcs, dl, NULL, &c));
    CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "sources[1] = 7",
                cupat_bfs_check_result(ctx, g, 2, srcs, dl, dp, &c));
    CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "g is NULL",
                cupat_bfs_check_result(ctx, NULL, 1, srcs, dl, dp, &c));
    /* a graph of the other backend */
    cupat_ctx *other = NULL;
    cupat_backend ob = t_backend == CUPAT_BACKEND_CPU ? CUPAT_BACKEND_CUDA : CUPAT_BACKEND_CPU;
    if (ob == CUPAT_BACKEND_CPU || cupat_cuda_available()) {
        CHECK_OK(NULL, cupat_create(&other, ob, -1));
        if (other) {
            CHECK_FAILS(other, CUPAT_ERROR_INVALID_VALUE, "g was made on the",
                        cupat_bfs(other, g, 0, dl, dp));
            CHECK_FAILS(other, CUPAT_ERROR_INVALID_VALUE, "g was made on the",
                        cupat_graph_destroy(other, g));
            cupat_destroy(other);
        }
    }
    CHECK_OK(ctx, cupat_set_variant(ctx, "bfs", "direction_opt")); /* a name of both backends */
    CHECK_OK(ctx, cupat_set_variant(ctx, "bfs", NULL));
    CHECK_FAILS(ctx, CUPAT_ERROR_NOT_FOUND, "bogus", cupat_set_variant(ctx, "bfs", "bogus"));
    CHECK_OK(ctx, cupat_graph_destroy(ctx, NULL));
    CHECK_OK(ctx, cupat_graph_destroy(ctx, g));
    cupat_free(ctx, dl);
    cupat_free(ctx, dp);
}

int main(int argc, char **argv)
{
    cupat_ctx *ctx = test_init(argc, argv);
    test_seed();
    test_kronecker_edges();
    test_bad_args(ctx);
    test_inputs(ctx);
    test_validation(ctx);
    test_hand_graphs(ctx);
    test_random(ctx);
    test_frontier_sizes(ctx);
    test_kronecker(ctx);
    printf("rung runs validated: %d\n", n_rungs_run);
    return test_finish(ctx);
}
