/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_filter.c — `cupat filter`: a real filter on a real image file through
 * cupat_conv2d / cupat_conv2d_separable (8-bit samples, clamp border), and
 * the kernel file reader (format in docs/conv2d.md). */
#include "cli.h"
#include "commands.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(void)
{
    printf("Usage: cupat filter IN OUT (--gaussian N | --sharpen | --sobel | --box N |\n"
           "                           --kernel FILE) [--backend B] [--device N] [--format F]\n"
           "\n"
           "Filters every channel of IN with cupat_conv2d (8-bit, clamp border; results\n"
           "rounded half to even and saturated to 0..255) and writes OUT.\n"
           "  --gaussian N  N x N Gaussian, N odd 1..31, sigma = 0.3 ((N - 1) / 2 - 1) + 0.8\n"
           "                (OpenCV's default), as a separable row and column filter\n"
           "  --box N       N x N mean, N odd 1..31, separable\n"
           "  --sharpen     3 x 3: 5 at the center, -1 at the four edge neighbours\n"
           "  --sobel       3 x 3 horizontal gradient (-1 0 1 / -2 0 2 / -1 0 1); the\n"
           "                negative half saturates to 0\n"
           "  --kernel FILE a filter from a text file: a line 'W H' (odd, 1..31), then H\n"
           "                rows of W numbers, optionally a last line 'scale S'; '#'\n"
           "                starts a comment (docs/conv2d.md); every tap, times the\n"
           "                scale, must be finite in f32 (|v| < 3.4e38)\n"
           "  --format F    format of OUT '-': png (default), ppm, pgm, pnm or pam\n"
           "\n");
    cli_image_io_usage(stdout);
    printf(" Prints one line, on stderr when OUT is '-'.\n");
}

/* One line of the file without its comment; 0 at the end; *toolong when it
 * did not fit buf. */
static int next_line(FILE *f, char *buf, size_t n, int *lineno, int *toolong)
{
    if (!fgets(buf, (int)n, f)) return 0;
    (*lineno)++;
    *toolong = !strchr(buf, '\n') && !feof(f);
    char *h = strchr(buf, '#');
    if (h) *h = '\0';
    return 1;
}

static int blank(const char *s)
{
    while (isspace((unsigned char)*s)) s++;
    return *s == '\0';
}

/* Numbers of one line into v (at most max); returns the count, -1 on a non-number. */
static int numbers(const char *s, double *v, int max)
{
    int n = 0;
    for (;;) {
        while (isspace((unsigned char)*s)) s++;
        if (!*s) return n;
        char *end;
        errno = 0;
        double d = strtod(s, &end);
        if (end == s || errno == ERANGE || !isfinite(d) || (*end && !isspace((unsigned char)*end)))
            return -1;
        if (n == max) return max + 1;
        v[n++] = d;
        s = end;
    }
}

/* Reads a kernel file; 0, or 1 after a message naming the line. */
static int read_kernel(const char *path, int *kw, int *kh, float *k)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "cupat filter: %s: %s\n", path, strerror(errno));
        return 1;
    }
    char buf[4096];
    int line = 0, rows = 0, rc = 1, scaled = 0, toolong = 0;
    double v[34], scale = 1.0;
    *kw = *kh = 0;
    while (next_line(f, buf, sizeof buf, &line, &toolong)) {
        if (toolong) {
            fprintf(stderr, "cupat filter: %s:%d: line too long\n", path, line);
            goto out;
        }
        if (blank(buf)) continue;
        if (scaled) {
            fprintf(stderr, "cupat filter: %s:%d: nothing may follow the scale line\n", path, line);
            goto out;
        }
        if (*kw == 0) {
            int n = numbers(buf, v, 2);
            if (n != 2 || v[0] != floor(v[0]) || v[1] != floor(v[1]) || v[0] < 1 || v[0] > 31 ||
                v[1] < 1 || v[1] > 31 || (int)v[0] % 2 == 0 || (int)v[1] % 2 == 0) {
                fprintf(stderr,
                        "cupat filter: %s:%d: expected the size 'W H' (odd integers, 1..31)\n",
                        path, line);
                goto out;
            }
            *kw = (int)v[0], *kh = (int)v[1];
            continue;
        }
        const char *s = buf;
        while (isspace((unsigned char)*s)) s++;
        if (strncmp(s, "scale", 5) == 0 && isspace((unsigned char)s[5])) {
            if (rows < *kh) {
                fprintf(stderr, "cupat filter: %s:%d: scale before all %d rows (%d so far)\n",
                        path, line, *kh, rows);
                goto out;
            }
            if (numbers(s + 5, v, 1) != 1) {
                fprintf(stderr, "cupat filter: %s:%d: expected 'scale S' with one number\n",
                        path, line);
                goto out;
            }
            scale = v[0], scaled = 1;
            continue;
        }
        if (rows == *kh) {
            fprintf(stderr, "cupat filter: %s:%d: more than the %d rows the size line gives\n",
                    path, line, *kh);
            goto out;
        }
        int n = numbers(s, v, *kw);
        if (n != *kw) {
            if (n < 0)
                fprintf(stderr, "cupat filter: %s:%d: not a number\n", path, line);
            else
                fprintf(stderr, "cupat filter: %s:%d: row %d has %s%d numbers, want %d\n", path,
                        line, rows + 1, n > *kw ? "more than " : "", n > *kw ? *kw : n, *kw);
            goto out;
        }
        for (int j = 0; j < *kw; j++) {
            if (isinf((float)v[j])) { /* finite as text, inf as the f32 tap */
                fprintf(stderr, "cupat filter: %s:%d: %g overflows f32 (|v| < 3.4e38)\n", path,
                        line, v[j]);
                goto out;
            }
            k[rows * *kw + j] = (float)v[j];
        }
        rows++;
    }
    if (*kw == 0) {
        fprintf(stderr, "cupat filter: %s:%d: no size line 'W H'\n", path, line);
        goto out;
    }
    if (rows < *kh) {
        fprintf(stderr, "cupat filter: %s:%d: %d rows, want %d\n", path, line, rows, *kh);
        goto out;
    }
    for (int i = 0; i < *kw * *kh; i++) {
        double t = k[i] * scale;
        if (isinf((float)t)) {
            fprintf(stderr, "cupat filter: %s: tap %d of row %d times the scale, %g, overflows "
                            "f32 (|v| < 3.4e38)\n",
                    path, i % *kw + 1, i / *kw + 1, t);
            goto out;
        }
        k[i] = (float)t;
    }
    rc = 0;
out:
    fclose(f);
    return rc;
}

int cmd_filter(int argc, char **argv)
{
    static const char cmd[] = "cupat filter";
    const char *in_path = NULL, *out_path = NULL, *kfile = NULL, *format = NULL, *v;
    cupat_backend backend = CUPAT_BACKEND_AUTO;
    long device = -1, n = 0;
    int kind = 0; /* 'g' gaussian, 'b' box, 's' sharpen, 'o' sobel, 'k' file */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int r, nk = 0;
        if (cli_is_help(a)) {
            usage();
            return 0;
        }
        if ((r = cli_backend_opt(argc, argv, &i, cmd, &backend, &device))) {
            if (r == 2) return 2;
            continue;
        }
        if ((r = cli_opt(argc, argv, &i, "--gaussian", &v, cmd)) ||
            (r = cli_opt(argc, argv, &i, "--box", &v, cmd))) {
            if (r < 0) return 2;
            nk = strncmp(a, "--gaussian", 10) == 0 ? 'g' : 'b';
            if (cli_parse_int(cmd, nk == 'g' ? "--gaussian" : "--box", v, 1, 31, &n)) return 2;
            if (n % 2 == 0) {
                fprintf(stderr, "%s: %s %ld: the size must be odd\n", cmd,
                        nk == 'g' ? "--gaussian" : "--box", n);
                return 2;
            }
        } else if ((r = cli_opt(argc, argv, &i, "--kernel", &v, cmd))) {
            if (r < 0) return 2;
            kfile = v, nk = 'k';
        } else if ((r = cli_opt(argc, argv, &i, "--format", &v, cmd))) {
            if (r < 0) return 2;
            format = v;
        } else if (strcmp(a, "--sharpen") == 0) {
            nk = 's';
        } else if (strcmp(a, "--sobel") == 0) {
            nk = 'o';
        } else if (a[0] == '-' && a[1] != '\0') {
            return cli_unknown(cmd, a);
        } else if (!in_path) {
            in_path = a;
        } else if (!out_path) {
            out_path = a;
        } else {
            return cli_unknown(cmd, a);
        }
        if (nk) {
            if (kind) {
                fprintf(stderr, "%s: one filter at a time (--gaussian, --box, --sharpen, --sobel "
                                "or --kernel)\n", cmd);
                return 2;
            }
            kind = nk;
        }
    }
    if (!in_path || !out_path) {
        fprintf(stderr, "%s: needs IN and OUT image paths; try '%s --help'\n", cmd, cmd);
        return 2;
    }
    if (!kind) {
        fprintf(stderr, "%s: needs a filter: --gaussian N, --box N, --sharpen, --sobel or "
                        "--kernel FILE\n", cmd);
        return 2;
    }
    /* '-': stdin / stdout, as gray and blur take them */
    if (cli_image_format(cmd, out_path, &format)) return 2;
    FILE *report = strcmp(out_path, "-") == 0 ? stderr : stdout;
    float k[31 * 31], row[31], col[31];
    int kw = 3, kh = 3, sep = 0;
    if (kind == 'k' && read_kernel(kfile, &kw, &kh, k)) return 2;
    if (kind == 's') {
        static const float s[9] = {0, -1, 0, -1, 5, -1, 0, -1, 0};
        memcpy(k, s, sizeof s);
    } else if (kind == 'o') {
        static const float s[9] = {-1, 0, 1, -2, 0, 2, -1, 0, 1};
        memcpy(k, s, sizeof s);
    } else if (kind == 'g' || kind == 'b') {
        kw = kh = (int)n, sep = 1;
        double sigma = 0.3 * ((n - 1) * 0.5 - 1) + 0.8, w[31], sum = 0;
        for (int j = 0; j < n; j++) {
            double d = j - (n - 1) / 2.0;
            w[j] = kind == 'b' ? 1.0 : exp(-d * d / (2 * sigma * sigma));
            sum += w[j];
        }
        for (int j = 0; j < n; j++) row[j] = col[j] = (float)(w[j] / sum);
    }

    int rc = 1;
    cupat_ctx *ctx = NULL;
    cupat_image img = {0}, res = {0};
    uint8_t *d_in = NULL, *d_out = NULL;
    cupat_status s;
    if (cli_image_read(in_path, &img) != CUPAT_SUCCESS ||
        cupat_image_alloc(NULL, &res, img.width, img.height, img.channels) != CUPAT_SUCCESS) {
        fprintf(stderr, "cupat: %s\n", cupat_last_error(NULL));
        goto done;
    }
    if (!(ctx = cli_context(backend, (int)device))) goto done;
    size_t pitch = img.width * (size_t)img.channels, bytes = pitch * img.height;
    if ((s = cupat_malloc(ctx, (void **)&d_in, bytes)) != CUPAT_SUCCESS ||
        (s = cupat_malloc(ctx, (void **)&d_out, bytes)) != CUPAT_SUCCESS ||
        (s = cupat_memcpy(ctx, d_in, img.data, bytes)) != CUPAT_SUCCESS ||
        (s = sep ? cupat_conv2d_separable(ctx, CUPAT_PIXEL_U8, img.width, img.height,
                                          img.channels, d_in, pitch, d_out, pitch, kw, row, kh,
                                          col, CUPAT_BORDER_CLAMP)
                 : cupat_conv2d(ctx, CUPAT_PIXEL_U8, img.width, img.height, img.channels, d_in,
                                pitch, d_out, pitch, kw, kh, k, CUPAT_BORDER_CLAMP)) !=
            CUPAT_SUCCESS ||
        (s = cupat_memcpy(ctx, res.data, d_out, bytes)) != CUPAT_SUCCESS ||
        (s = cupat_sync(ctx)) != CUPAT_SUCCESS) {
        fprintf(stderr, "cupat: %s\n", cupat_last_error(ctx));
        goto done;
    }
    if (cli_image_write(out_path, format, &res) != CUPAT_SUCCESS) {
        fprintf(stderr, "cupat: %s\n", cupat_last_error(NULL));
        goto done;
    }
    const cupat_variant_info *info = NULL;
    cupat_get_variant(ctx, sep ? "conv2d_sep" : "conv2d", &info);
    fprintf(report, "filter: %zux%zu, %d ch, %dx%d %s on %s (%s) -> %s\n", img.width,
            img.height, img.channels, kw, kh, sep ? "separable" : "filter",
            cupat_backend_name(cupat_get_backend(ctx)), info ? info->name : "?",
            cli_image_name(out_path, 1));
    rc = 0;
done:
    if (ctx) {
        cupat_free(ctx, d_in);
        cupat_free(ctx, d_out);
        cupat_destroy(ctx);
    }
    cupat_image_free(&img);
    cupat_image_free(&res);
    return rc;
}
