/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_hist.c — `cupat hist IMAGE`: one histogram per channel of a real image
 * file through cupat_histogram_channels (PMPP 9), a compact summary a channel
 * (count, occupied bins, mean, median, a coarse text bar chart), and with
 * --json the counts in the format `cupat report` draws (a "histogram" table;
 * docs/report.md). */
#include "cli.h"
#include "commands.h"
#include "harness.h" /* bench_describe: device, date, commit */
#include "outfile.h" /* --json FILE: replaced only by a complete file */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef CUPAT_HAVE_CJSON
#include <cjson/cJSON.h>
#endif

static const char CMD[] = "cupat hist";

#define GROUPS 32 /* columns of the text bar chart */

static void usage(void)
{
    printf("Usage: cupat hist IMAGE [--channels auto|1|3|4] [--bins N] [--json FILE]\n"
           "                  [--backend B] [--device N]\n"
           "\n"
           "One histogram per channel of IMAGE's 8-bit samples (cupat_histogram_channels):\n"
           "N bins over [0, 256), sample v in bin floor(v * N / 256). Prints a channel's\n"
           "sample count, its lowest and highest occupied bin, the mean and the median of\n"
           "its values, and a text bar chart of %d groups of bins.\n"
           "\n"
           "IMAGE: PNG, PPM, PGM, PBM or PAM (told apart by contents); '-' reads stdin.\n"
           "\n"
           "Options:\n"
           "  --channels C   auto (default): the file's (gray, R G B, R G B A); 1: every\n"
           "                 sample of every channel in one histogram; 3: R G B (an RGBA\n"
           "                 file's alpha left out); 4: R G B A (the file must have alpha)\n"
           "  --bins N       1 to 256 (default 256)\n"
           "  --json FILE    write the counts as JSON for 'cupat report' (needs cJSON);\n"
           "                 FILE '-' is stdout (the summary then goes to stderr)\n"
           "  --backend B    auto (default: CUDA when present, else CPU), cpu or cuda\n"
           "  --device N     CUDA device index (default: the current device)\n"
           "  -h, --help     this text\n",
           GROUPS);
}

typedef struct chan {
    const char *name;
    const uint64_t *counts; /* bins of them */
    const uint64_t *exact;  /* 256 of them: the values themselves */
} chan;

static void summary(FILE *f, const chan *c, size_t bins)
{
    uint64_t count = 0;
    double sum = 0;
    for (int v = 0; v < 256; v++) {
        count += c->exact[v];
        sum += (double)v * (double)c->exact[v];
    }
    if (!count) {
        fprintf(f, "  %-5s count 0\n", c->name);
        return;
    }
    size_t lo = 0, hi = bins - 1;
    while (!c->counts[lo]) lo++;
    while (!c->counts[hi]) hi--;
    /* The lower median: the least value with at least half the samples at or below it. */
    uint64_t cum = 0;
    int med = 0;
    for (; med < 256; med++)
        if ((cum += c->exact[med]) >= (count + 1) / 2) break;
    fprintf(f, "  %-5s count %llu  occupied bins %zu..%zu of %zu  mean %.2f  median %d\n", c->name,
            (unsigned long long)count, lo, hi, bins, sum / (double)count, med);
    /* The bar chart: G groups of bins, each a character from ' ' (empty) up to
     * '@' (the fullest group); a group with any sample shows at least '.'. */
    static const char levels[] = " .:-=+*#%@";
    const size_t G = bins < GROUPS ? bins : GROUPS;
    uint64_t g[GROUPS] = {0}, top = 0;
    for (size_t b = 0; b < bins; b++) g[b * G / bins] += c->counts[b];
    for (size_t k = 0; k < G; k++) top = g[k] > top ? g[k] : top;
    fprintf(f, "        0 |");
    for (size_t k = 0; k < G; k++) {
        int l = g[k] ? 1 + (int)((double)g[k] * 8.0 / (double)top + 0.5) : 0;
        fputc(levels[l > 9 ? 9 : l], f);
    }
    fprintf(f, "| 255\n");
}

#ifdef CUPAT_HAVE_CJSON
static int write_json(const char *path, cupat_ctx *ctx, const char *title, const char *case_,
                      const chan *ch, int nch, size_t bins)
{
    char device[320], date[32], commit[64];
    if (bench_describe(ctx, device, sizeof device, date, sizeof date, commit, sizeof commit)) {
        fprintf(stderr, "%s: %s\n", CMD, cupat_last_error(ctx));
        return 1;
    }
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "tool", "cupat hist");
    cJSON_AddStringToObject(root, "cupat_version", cupat_version());
    cJSON_AddStringToObject(root, "commit", commit);
    cJSON_AddStringToObject(root, "date", date);
    cJSON_AddStringToObject(root, "device", device);
    cJSON_AddStringToObject(root, "backend", cupat_backend_name(cupat_get_backend(ctx)));
    /* No "ceilings": nothing here is a rate (the report needs them only for
     * ladder and sweep tables). */
    cJSON *tables = cJSON_AddArrayToObject(root, "tables");
    cJSON *t = cJSON_CreateObject();
    cJSON_AddStringToObject(t, "pattern", "histogram");
    cJSON_AddStringToObject(t, "title", title);
    cJSON_AddStringToObject(t, "case", case_);
    cJSON_AddStringToObject(t, "kind", "histogram");
    cJSON_AddNumberToObject(t, "lower", 0);
    cJSON_AddNumberToObject(t, "upper", 256);
    cJSON_AddStringToObject(t, "x_label", "8-bit value");
    cJSON *rows = cJSON_AddArrayToObject(t, "rows");
    for (int c = 0; c < nch; c++) {
        cJSON *r = cJSON_CreateObject();
        cJSON_AddStringToObject(r, "name", ch[c].name);
        cJSON *counts = cJSON_AddArrayToObject(r, "counts");
        for (size_t b = 0; b < bins; b++) cJSON_AddItemToArray(counts, cJSON_CreateNumber((double)ch[c].counts[b]));
        cJSON_AddItemToArray(rows, r);
    }
    cJSON_AddItemToArray(tables, t);
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    if (!text) {
        fprintf(stderr, "%s: --json %s: out of memory building the JSON\n", CMD, path);
        return 1;
    }
    /* A temporary file beside path, renamed over it once complete: a path
     * that cannot be written (read-only, a directory) is left as it was. */
    int bad = out_file_write(path, text, 1);
    int e = errno;
    cJSON_free(text);
    if (bad) {
        fprintf(stderr, "%s: --json %s: cannot write: %s\n", CMD, path, strerror(e));
        return 1;
    }
    return 0;
}
#endif

int cmd_hist(int argc, char **argv)
{
    const char *path = NULL, *json = NULL, *chs = "auto", *v = NULL;
    cupat_backend backend = CUPAT_BACKEND_AUTO;
    long device = -1, bins = 256;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int r;
        if (cli_is_help(a)) {
            usage();
            return 0;
        }
        if ((r = cli_backend_opt(argc, argv, &i, CMD, &backend, &device))) {
            if (r == 2) return 2;
        } else if ((r = cli_opt(argc, argv, &i, "--bins", &v, CMD))) {
            if (r < 0 || cli_parse_int(CMD, "--bins", v, 1, 256, &bins)) return 2;
        } else if ((r = cli_opt(argc, argv, &i, "--channels", &v, CMD))) {
            if (r < 0) return 2;
            chs = v;
        } else if ((r = cli_opt(argc, argv, &i, "--json", &v, CMD))) {
            if (r < 0) return 2;
            json = v;
        } else if (a[0] == '-' && a[1] != '\0') {
            return cli_unknown(CMD, a);
        } else if (!path) {
            path = a;
        } else {
            return cli_unknown(CMD, a);
        }
    }
    if (!path) {
        fprintf(stderr, "%s: needs an IMAGE path; try '%s --help'\n", CMD, CMD);
        return 2;
    }
    int want = 0; /* 0: auto */
    if (!strcmp(chs, "1")) want = 1;
    else if (!strcmp(chs, "3")) want = 3;
    else if (!strcmp(chs, "4")) want = 4;
    else if (strcmp(chs, "auto")) {
        fprintf(stderr, "%s: --channels '%s': auto, 1, 3 or 4\n", CMD, chs);
        return 2;
    }
#ifndef CUPAT_HAVE_CJSON
    if (json) {
        fprintf(stderr, "%s: --json needs cJSON, which this build lacks (install libcjson-dev and "
                        "rebuild)\n", CMD);
        return 2;
    }
#endif
    const int in_std = !strcmp(path, "-");
    const char *name = in_std ? "(stdin)" : path;
    FILE *out = json && !strcmp(json, "-") ? stderr : stdout;

    cupat_image img = {0};
    if ((in_std ? cupat_image_read_stream(NULL, stdin, "(stdin)", &img)
                : cupat_image_read(NULL, path, &img)) != CUPAT_SUCCESS) {
        fprintf(stderr, "cupat: %s\n", cupat_last_error(NULL));
        return 1;
    }
    const int fc = img.channels;
    if (!want) want = fc;
    if ((want == 3 && fc < 3) || (want == 4 && fc != 4)) {
        fprintf(stderr, "%s: --channels %d: '%s' has %d channel%s\n", CMD, want, name, fc, fc == 1 ? "" : "s");
        cupat_image_free(&img);
        return 1;
    }
    /* The library's view: --channels 1 of a colour file is one channel of
     * width x height x fc samples; 3 of an RGBA file is counted as 4 and the
     * alpha row left out. */
    const int lib_ch = want == 1 ? 1 : fc;
    const size_t pixels = img.width * img.height, samples = pixels * (size_t)fc;
    const size_t npix = want == 1 ? samples : pixels;
    static const char *const names1[] = {"gray"}, *const names_all[] = {"all"},
                             *const names_rgba[] = {"R", "G", "B", "A"};
    const char *const *names = want == 1 ? (fc == 1 ? names1 : names_all) : names_rgba;

    int rc = 1;
    cupat_ctx *ctx = NULL;
    uint8_t *d_in = NULL;
    uint64_t *d_counts = NULL, *h = NULL;
    const size_t nb = (size_t)bins, ncount = (size_t)lib_ch * (nb + (nb == 256 ? 0 : 256));
    if (!(h = malloc(ncount * sizeof *h))) {
        fprintf(stderr, "cupat: out of host memory\n");
        goto done;
    }
    if (!(ctx = cli_context(backend, (int)device))) goto done;
    cupat_status s = cupat_malloc(ctx, (void **)&d_in, samples ? samples : 1);
    if (!s) s = cupat_malloc(ctx, (void **)&d_counts, ncount * sizeof *d_counts);
    if (!s) s = cupat_memcpy(ctx, d_in, img.data, samples);
    if (!s)
        s = cupat_histogram_channels(ctx, lib_ch, npix, d_in, nb, 0.0, 256.0, CUPAT_U64, d_counts,
                                     CUPAT_HIST_OVERWRITE);
    /* The mean and median are of the values: from 256 bins, a second pass
     * when N is not 256. */
    if (!s && nb != 256)
        s = cupat_histogram_channels(ctx, lib_ch, npix, d_in, 256, 0.0, 256.0, CUPAT_U64,
                                     d_counts + (size_t)lib_ch * nb, CUPAT_HIST_OVERWRITE);
    if (!s) s = cupat_memcpy(ctx, h, d_counts, ncount * sizeof *h);
    if (!s) s = cupat_sync(ctx);
    if (s) {
        fprintf(stderr, "cupat: %s\n", cupat_last_error(ctx));
        goto done;
    }
    chan ch[4];
    const uint64_t *exact = nb == 256 ? h : h + (size_t)lib_ch * nb;
    for (int c = 0; c < want; c++) ch[c] = (chan){names[c], h + (size_t)c * nb, exact + (size_t)c * 256};
    char case_[128];
    snprintf(case_, sizeof case_, "%zux%zu, %d channel%s, %zu bins", img.width, img.height, want,
             want == 1 ? "" : "s", nb);
    fprintf(out, "hist: %s: %s (the file: %d channel%s), %s backend\n", name, case_, fc, fc == 1 ? "" : "s",
            cupat_backend_name(cupat_get_backend(ctx)));
    for (int c = 0; c < want; c++) summary(out, &ch[c], nb);
    rc = 0;
#ifdef CUPAT_HAVE_CJSON
    if (json) rc = write_json(json, ctx, name, case_, ch, want, nb);
#endif

done:
    if (ctx) {
        cupat_free(ctx, d_in);
        cupat_free(ctx, d_counts);
        cupat_destroy(ctx);
    }
    free(h);
    cupat_image_free(&img);
    return rc;
}
