/* SPDX-License-Identifier: Apache-2.0 */
/* test_streams_lab.c — the streams lab's host side (lab/streams): the report
 * builders, the Gantt chart, the JSON writer, the stamp arithmetic (first
 * start, last end, most kernels at once), and the bad arguments of every
 * experiment (NULL, the CPU backend, each option out of range on CUDA).
 * `--json PATH` also writes the sample report there (streams.cmake checks it
 * with python's json module). */
#include "testutil.h"

#include "streams/streams_priv.h"

static void sample(lab_st_report *r)
{
    static const char *const cols[] = {"total ms", "x spin"};
    lab_st_table *t = lab_st_table_new(r, "a \"quoted\" title", "a note\nwith a newline and a \\ backslash", 2, cols);
    lab_st_row(t, "first", (const double[]){1.5, 3}, "ok");
    lab_st_row(t, "second", NULL, "no numbers");
    lab_st_timeline *tl = lab_st_timeline_new(r, "three lanes", 3, "stream %d");
    lab_st_span_add(tl, 0, 'H', 0, 0.0, 2.0);
    lab_st_span_add(tl, 0, 'K', 0, 2.0, 6.0);
    lab_st_span_add(tl, 1, 'H', 1, 2.0, 4.0);
    lab_st_span_add(tl, 1, 'D', 1, 3.0, 8.0); /* overlaps its H: '#' */
    lab_st_span_add(tl, 2, 'K', 2, 9.0, 10.0);
    lab_st_span_add(tl, 7, 'K', 2, 9.0, 10.0); /* no such lane: ignored */
}

static char *read_all(FILE *f)
{
    long n = ftell(f);
    rewind(f);
    char *b = test_xmalloc((size_t)n + 1);
    size_t got = fread(b, 1, (size_t)n, f);
    b[got] = '\0';
    return b;
}

static void check_output(const char *json_path)
{
    lab_st_report *r = test_xmalloc(sizeof *r);
    sample(r);
    CHECK(r->ntables == 1 && r->t[0].nrows == 2 && r->ntimelines == 1 && r->tl[0].n == 5,
          "report: %d tables, %d rows, %d timelines, %d spans", r->ntables, r->t[0].nrows, r->ntimelines,
          r->tl[0].n);
    CHECK(isnan(r->t[0].v[1][0]), "a row without numbers holds NaN");

    FILE *f = tmpfile();
    lab_streams_gantt(f, &r->tl[0], 20); /* 10 ms over 20 columns: 0.5 ms a column */
    char *g = read_all(f);
    fclose(f);
    CHECK(strstr(g, "stream 0       |HHHHKKKKKKKK        |") != NULL, "lane 0:\n%s", g);
    CHECK(strstr(g, "stream 1       |    HH##DDDDDDDD    |") != NULL, "lane 1 (H and D overlap):\n%s", g);
    CHECK(strstr(g, "stream 2       |                  KK|") != NULL, "lane 2:\n%s", g);
    CHECK(strstr(g, "10.000 ms") != NULL, "the scale:\n%s", g);
    free(g);

    f = tmpfile();
    lab_streams_print_table(f, &r->t[0]);
    char *p = read_all(f);
    fclose(f);
    CHECK(strstr(p, "first") && strstr(p, "1.5000") && strstr(p, "no numbers"), "table:\n%s", p);
    free(p);

    f = tmpfile();
    const char *child[] = {"{\"lab\": \"streams\", \"tables\": []}"};
    CHECK(lab_streams_json(f, r, child, 1) == 0, "json write");
    char *j = read_all(f);
    fclose(f);
    CHECK(strstr(j, "\"title\": \"a \\\"quoted\\\" title\"") != NULL, "escaped quotes:\n%s", j);
    CHECK(strstr(j, "a note\\u000awith a newline and a \\\\ backslash") != NULL, "escaped note:\n%s", j);
    CHECK(strstr(j, "\"values\": [null, null]") != NULL, "NaN as null:\n%s", j);
    CHECK(strstr(j, "{\"lane\": 1, \"kind\": \"D\", \"item\": 1, \"t0_ms\": 3, \"t1_ms\": 8}") != NULL, "span:\n%s", j);
    CHECK(strstr(j, "\"children\": [\n{\"lab\": \"streams\", \"tables\": []}]") != NULL, "child:\n%s", j);
    if (json_path) {
        FILE *o = fopen(json_path, "w");
        CHECK(o && fputs(j, o) >= 0 && fclose(o) == 0, "cannot write %s", json_path);
    }
    free(j);
    free(r);
}

static void check_stamps(void)
{
    /* three kernels: [100, 200), [150, 400), [1000, 1100) ns */
    unsigned long long h[6] = {100, ~200ull, 150, ~400ull, 1000, ~1100ull};
    lab_st_stamps st = {NULL, h, 3};
    double total = 0;
    CHECK(lab_st_max_concurrent(&st, 3, &total) == 2, "two at once");
    CHECK(fabs(total - 1e-3) < 1e-12, "last end 1000 ns after the first start: %g ms", total);
    CHECK(fabs(lab_st_stamp_ms(&st, 3, 1, 0) - 5e-5) < 1e-12, "slot 1 starts 50 ns in");
    CHECK(fabs(lab_st_stamp_ms(&st, 2, 1, 1) - 3e-4) < 1e-12, "slot 1 ends 300 ns in");
    double v[4] = {3, 1, 4, 2};
    CHECK(lab_st_median(v, 4) == 2.5 && lab_st_median(v, 3) == 2, "median");
}

/* The verdicts, at the H100's measured values (docs/streams.md) and on the
 * other side of each threshold. */
static void check_verdicts(void)
{
    char b[96];
    CHECK(strstr(lab_st_many_verdict(b, sizeof b, 64, 64, 1), "all 64 at once"), "64 of 64, 1 connection: %s", b);
    CHECK(strstr(lab_st_many_verdict(b, sizeof b, 8, 64, 8), "limited by the connections"), "8 of 64: %s", b);
    CHECK(strstr(lab_st_many_verdict(b, sizeof b, 20, 64, 32), "at most 20 of 64"), "20 of 64: %s", b);
    CHECK(strstr(lab_st_priority_verdict(b, sizeof b, 0, 10.9471, 10.9471, 0.5), "waited for the long"),
          "same priority, 10.9 ms: %s", b);
    CHECK(strstr(lab_st_priority_verdict(b, sizeof b, 0, 0.04, 0.05, 0.5), "did not wait"), "same, 0.04 ms: %s", b);
    CHECK(strstr(lab_st_priority_verdict(b, sizeof b, 1, 0.4563, 0.4563, 0.5), "next free slot"),
          "greatest, 0.46 ms: %s", b);
    CHECK(strstr(lab_st_priority_verdict(b, sizeof b, 1, 5, 5, 0.5), "not seen"), "greatest, 5 ms: %s", b);
    CHECK(strstr(lab_st_cpu_verdict(b, sizeof b, 0, 99.5), "spun"), "spin 99.5%%: %s", b);
    CHECK(strstr(lab_st_cpu_verdict(b, sizeof b, 0, 30), "did not spin"), "spin 30%%: %s", b);
    CHECK(strstr(lab_st_cpu_verdict(b, sizeof b, 1, 0.6), "slept"), "blocking 0.6%%: %s", b);
    CHECK(strstr(lab_st_cpu_verdict(b, sizeof b, 1, 95), "stayed busy"), "blocking 95%%: %s", b);
    CHECK(strstr(lab_st_timing_verdict(b, sizeof b, 2.6077), "timing costs 2.6 x"), "2.6: %s", b);
    CHECK(strstr(lab_st_timing_verdict(b, sizeof b, 0.9614), "about the same"), "0.96: %s", b);
    CHECK(strstr(lab_st_timing_verdict(b, sizeof b, 0.5), "cheaper"), "0.5: %s", b);
}

/* Column names longer than 12 characters and long labels print whole. */
static void check_widths(void)
{
    lab_st_report *r = test_xmalloc(sizeof *r);
    memset(r, 0, sizeof *r);
    static const char *const cols[] = {"ms, non-blocking", "x"};
    lab_st_table *t = lab_st_table_new(r, "widths", "", 2, cols);
    lab_st_row(t, "non-blocking streams, per-thread default stream", (const double[]){2.0132, 1}, "ok");
    FILE *f = tmpfile();
    lab_streams_print_table(f, t);
    char *p = read_all(f);
    fclose(f);
    CHECK(strstr(p, " ms, non-blocking ") && strstr(p, "per-thread default stream ") && strstr(p, "2.0132"),
          "widths:\n%s", p);
    free(p);
    free(r);
}

typedef cupat_status (*exp_fn)(cupat_ctx *, const lab_st_opts *, lab_st_report *);

static cupat_status run_falsedep(cupat_ctx *c, const lab_st_opts *o, lab_st_report *r)
{
    return lab_streams_falsedep(c, o, 8, r);
}

static void check_bad(cupat_ctx *ctx)
{
    static const exp_fn fns[] = {lab_streams_overlap,  run_falsedep,         lab_streams_nullstream,
                                 lab_streams_priority, lab_streams_events,   lab_streams_blocking,
                                 lab_streams_graphs};
    lab_st_report *r = test_xmalloc(sizeof *r);
    lab_st_opts o;
    lab_streams_defaults(&o);
    const int cuda = cupat_get_backend(ctx) == CUPAT_BACKEND_CUDA;
    for (size_t k = 0; k < sizeof fns / sizeof fns[0]; k++) {
        CHECK(fns[k](NULL, &o, r) == CUPAT_ERROR_NULL_POINTER, "experiment %zu: NULL ctx", k);
        if (!cuda) {
            CHECK_FAILS(ctx, CUPAT_ERROR_NOT_SUPPORTED, "need the CUDA backend", fns[k](ctx, &o, r));
            continue;
        }
        CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "opts is NULL", fns[k](ctx, NULL, r));
        CHECK_FAILS(ctx, CUPAT_ERROR_NULL_POINTER, "report is NULL", fns[k](ctx, &o, NULL));
        lab_st_opts b = o;
        b.streams = 0;
        CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "streams = 0", fns[k](ctx, &b, r));
        b = o;
        b.bytes = 1000;
        CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "bytes = 1000", fns[k](ctx, &b, r));
        b = o;
        b.reps = 0;
        CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "reps = 0", fns[k](ctx, &b, r));
        b = o;
        b.heavy_iters = 0;
        CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "heavy_iters = 0", fns[k](ctx, &b, r));
        b = o;
        b.spin_ms = NAN;
        CHECK_FAILS(ctx, CUPAT_ERROR_INVALID_VALUE, "spin_ms", fns[k](ctx, &b, r));
    }
    CHECK(r->ntables == 0 && r->ntimelines == 0, "a refused experiment adds nothing");
    free(r);
}

int main(int argc, char **argv)
{
    const char *json = NULL;
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--json")) json = argv[i + 1];
    cupat_ctx *ctx = test_init(argc, argv);
    check_output(json);
    check_stamps();
    check_verdicts();
    check_widths();
    check_bad(ctx);
    return test_finish(ctx);
}
