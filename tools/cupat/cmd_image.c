/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_image.c — `cupat gray` and `cupat blur`: a real image file through one
 * rung of the gray (PMPP 3.2) or blur (PMPP 3.3) ladder, timed, and the result
 * written back as an image file; and the image commands' IN / OUT ('-' for
 * stdin / stdout, --format), which `cupat filter` shares (cli.h). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "cli.h"
#include "commands.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------ IN and OUT, shared -- */

void cli_image_io_usage(FILE *f)
{
    fprintf(f, "IN: PNG, PPM, PGM, PBM or PAM (told apart by contents): a file, a pipe or\n"
               "a FIFO; '-' reads stdin. OUT: by extension, .png, .ppm, .pgm, .pnm or .pam;\n"
               "'-' writes stdout in the --format.");
}

int cli_image_format(const char *cmd, const char *out_path, const char **format)
{
    static const char *const formats[] = {"png", "ppm", "pgm", "pnm", "pam"};
    const int out_std = strcmp(out_path, "-") == 0;
    int known = 0;
    for (size_t k = 0; *format && k < sizeof formats / sizeof formats[0]; k++)
        known |= strcmp(*format, formats[k]) == 0;
    if (*format && !known) {
        fprintf(stderr, "%s: --format '%s': png, ppm, pgm, pnm or pam\n", cmd, *format);
        return 2;
    }
    if (*format && !out_std) {
        fprintf(stderr, "%s: --format is for OUT '-' (stdout); '%s' takes its format from its "
                        "extension\n", cmd, out_path);
        return 2;
    }
    if (out_std && !*format) *format = "png";
    return 0;
}

cupat_status cli_image_read(const char *in_path, cupat_image *img)
{
    return strcmp(in_path, "-") == 0 ? cupat_image_read_stream(NULL, stdin, "(stdin)", img)
                                     : cupat_image_read(NULL, in_path, img);
}

cupat_status cli_image_write(const char *out_path, const char *format, const cupat_image *img)
{
    return strcmp(out_path, "-") == 0 ? cupat_image_write_stream(NULL, stdout, format, img)
                                      : cupat_image_write(NULL, out_path, img);
}

const char *cli_image_name(const char *path, int out)
{
    return strcmp(path, "-") != 0 ? path : out ? "(stdout)" : "(stdin)";
}

/* ------------------------------------------------------- gray and blur -- */

static void usage(int blur)
{
    if (blur)
        printf("Usage: cupat blur IN OUT [--radius R] [--variant NAME] [--backend B] [--device N]\n"
               "                  [--reps N] [--format F]\n"
               "\n"
               "Box blur of radius R (window (2R+1)^2, edges averaged over the pixels\n"
               "inside the image) of every channel of IN, written to OUT.\n");
    else
        printf("Usage: cupat gray IN OUT [--variant NAME] [--backend B] [--device N] [--reps N]\n"
               "                  [--format F]\n"
               "\n"
               "RGB to gray, gray = 0.21 r + 0.71 g + 0.07 b, written to OUT as a\n"
               "1-channel image. An RGBA input is converted without its alpha; a gray\n"
               "input is refused (nothing to convert).\n");
    printf("\n");
    cli_image_io_usage(stdout);
    printf(" Prints one line: the size, the rung that\n"
           "ran and its median time over the repetitions (CUDA events on the CUDA\n"
           "backend, the host clock on the CPU), after one untimed warm-up run; on\n"
           "stderr when OUT is '-'.\n"
           "\n"
           "Options:\n");
    if (blur) printf("  --radius R     0 to 64 (default 1)\n");
    printf("  --variant NAME rung of the '%s' ladder (default: the fastest); see\n"
           "                 'cupat bench %s'\n"
           "  --backend B    auto (default: CUDA when present, else CPU), cpu or cuda\n"
           "  --device N     CUDA device index (default: the current device)\n"
           "  --reps N       timed repetitions, 1 to 100000 (default 10)\n"
           "  --format F     format of OUT '-': png (default), ppm, pgm, pnm or pam\n"
           "  -h, --help     this text\n",
           blur ? "blur" : "gray", blur ? "blur" : "gray");
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

typedef struct job {
    int blur, radius;
    size_t width, height;
    int channels; /* of the kernel's input */
    const uint8_t *in;
    uint8_t *out;
} job;

static cupat_status run_once(cupat_ctx *ctx, const job *j)
{
    if (j->blur)
        return cupat_blur(ctx, j->width, j->height, j->channels, j->radius, j->in, j->out);
    return cupat_rgb_to_gray(ctx, j->width, j->height, j->in, 3 * j->width, j->out, j->width);
}

/* Time `reps` runs into t[] (seconds). CUDA: events on the context's stream,
 * so the times are the device's; CPU: host clock around call + sync. */
static cupat_status time_runs(cupat_ctx *ctx, const job *j, long reps, double *t)
{
    int cuda = cupat_get_backend(ctx) == CUPAT_BACKEND_CUDA;
    cudaEvent_t ev[2] = {NULL, NULL};
    cupat_status s = CUPAT_SUCCESS;
    if (cuda && (cudaEventCreate(&ev[0]) != cudaSuccess || cudaEventCreate(&ev[1]) != cudaSuccess)) {
        (void)cudaGetLastError();
        cuda = 0; /* fall back to the host clock */
    }
    cudaStream_t stream = (cudaStream_t)cupat_get_stream(ctx);
    for (long r = 0; r < reps && s == CUPAT_SUCCESS; r++) {
        double t0 = now_s();
        if (cuda) cudaEventRecord(ev[0], stream);
        s = run_once(ctx, j);
        if (cuda) cudaEventRecord(ev[1], stream);
        if (s == CUPAT_SUCCESS) s = cupat_sync(ctx);
        t[r] = now_s() - t0;
        float ms;
        if (cuda && s == CUPAT_SUCCESS && cudaEventElapsedTime(&ms, ev[0], ev[1]) == cudaSuccess)
            t[r] = ms * 1e-3;
    }
    for (int i = 0; i < 2; i++)
        if (ev[i]) cudaEventDestroy(ev[i]);
    return s;
}

int cmd_image(int argc, char **argv)
{
    const int blur = strcmp(argv[0], "blur") == 0;
    const char *cmd = blur ? "cupat blur" : "cupat gray";
    const char *pattern = blur ? "blur" : "gray";
    const char *in_path = NULL, *out_path = NULL, *variant = NULL, *format = NULL, *v = NULL;
    cupat_backend backend = CUPAT_BACKEND_AUTO;
    long device = -1, reps = 10, radius = 1;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int r;
        if (cli_is_help(a)) {
            usage(blur);
            return 0;
        }
        if ((r = cli_opt(argc, argv, &i, "--variant", &v, cmd))) {
            if (r < 0) return 2;
            variant = v;
        } else if ((r = cli_opt(argc, argv, &i, "--backend", &v, cmd))) {
            if (r < 0 || cli_parse_backend(v, &backend)) return 2;
        } else if ((r = cli_opt(argc, argv, &i, "--device", &v, cmd))) {
            if (r < 0 || cli_parse_int(cmd, "--device", v, 0, 1 << 20, &device)) return 2;
        } else if ((r = cli_opt(argc, argv, &i, "--format", &v, cmd))) {
            if (r < 0) return 2;
            format = v;
        } else if ((r = cli_opt(argc, argv, &i, "--reps", &v, cmd))) {
            if (r < 0 || cli_parse_int(cmd, "--reps", v, 1, 100000, &reps)) return 2;
        } else if ((r = cli_opt(argc, argv, &i, "--radius", &v, cmd))) {
            if (r < 0) return 2;
            if (!blur) {
                fprintf(stderr, "%s: --radius is an option of blur only; try '%s --help'\n", cmd,
                        cmd);
                return 2;
            }
            if (cli_parse_int(cmd, "--radius", v, 0, 64, &radius)) return 2;
        } else if (a[0] == '-' && a[1] != '\0') {
            return cli_unknown(cmd, a);
        } else if (!in_path) {
            in_path = a;
        } else if (!out_path) {
            out_path = a;
        } else {
            return cli_unknown(cmd, a);
        }
    }
    if (!in_path || !out_path) {
        fprintf(stderr, "%s: needs IN and OUT image paths; try '%s --help'\n", cmd, cmd);
        return 2;
    }
    /* '-': stdin / stdout. The image then owns stdout; the report goes to stderr. */
    if (cli_image_format(cmd, out_path, &format)) return 2;
    FILE *report = strcmp(out_path, "-") == 0 ? stderr : stdout;

    int rc = 1;
    cupat_ctx *ctx = NULL;
    cupat_image img = {0}, res = {0};
    uint8_t *host_in = NULL, *d_in = NULL, *d_out = NULL;
    double *times = NULL;
    cupat_status s;
    const char *note = "";

    /* The file first: a bad path fails fast, before CUDA starts up. */
    if (cli_image_read(in_path, &img) != CUPAT_SUCCESS) {
        fprintf(stderr, "cupat: %s\n", cupat_last_error(NULL));
        return 1;
    }
    job j = {.blur = blur, .radius = (int)radius, .width = img.width, .height = img.height,
             .channels = img.channels};
    if (!blur) {
        if (img.channels != 3 && img.channels != 4) {
            fprintf(stderr, "%s: '%s' is already gray (%d channel%s); nothing to convert\n", cmd,
                    cli_image_name(in_path, 0), img.channels, img.channels == 1 ? "" : "s");
            goto done;
        }
        j.channels = 3;
        if (img.channels == 4) { /* the kernel takes 3-byte pixels: drop alpha here */
            size_t n = img.width * img.height;
            if (!(host_in = malloc(n * 3))) {
                fprintf(stderr, "cupat: out of host memory for %zu pixels\n", n);
                goto done;
            }
            for (size_t i = 0; i < n; i++) memcpy(host_in + 3 * i, img.data + 4 * i, 3);
            note = ", alpha dropped";
        }
    }
    size_t in_bytes = img.width * img.height * (size_t)j.channels;
    if (cupat_image_alloc(NULL, &res, img.width, img.height, blur ? img.channels : 1) !=
        CUPAT_SUCCESS) {
        fprintf(stderr, "cupat: %s\n", cupat_last_error(NULL));
        goto done;
    }
    size_t out_bytes = res.width * res.height * (size_t)res.channels;

    if (!(ctx = cli_context(backend, (int)device))) goto done;
    if (variant && (s = cupat_set_variant(ctx, pattern, variant)) != CUPAT_SUCCESS) {
        fprintf(stderr, "%s: --variant: %s\n", cmd, cupat_last_error(ctx));
        rc = 2;
        goto done;
    }
    const cupat_variant_info *info = NULL;
    if ((s = cupat_get_variant(ctx, pattern, &info)) != CUPAT_SUCCESS ||
        (s = cupat_malloc(ctx, (void **)&d_in, in_bytes)) != CUPAT_SUCCESS ||
        (s = cupat_malloc(ctx, (void **)&d_out, out_bytes)) != CUPAT_SUCCESS ||
        (s = cupat_memcpy(ctx, d_in, host_in ? host_in : img.data, in_bytes)) != CUPAT_SUCCESS)
        goto lib_failed;
    j.in = d_in;
    j.out = d_out;
    if (!(times = malloc(sizeof *times * (size_t)reps))) {
        fprintf(stderr, "cupat: out of host memory\n");
        goto done;
    }
    /* Warm-up: first-launch costs (module load, page faults) stay untimed. */
    if ((s = run_once(ctx, &j)) != CUPAT_SUCCESS || (s = cupat_sync(ctx)) != CUPAT_SUCCESS ||
        (s = time_runs(ctx, &j, reps, times)) != CUPAT_SUCCESS ||
        (s = cupat_memcpy(ctx, res.data, d_out, out_bytes)) != CUPAT_SUCCESS ||
        (s = cupat_sync(ctx)) != CUPAT_SUCCESS)
        goto lib_failed;
    if (cli_image_write(out_path, format, &res) != CUPAT_SUCCESS) {
        fprintf(stderr, "cupat: %s\n", cupat_last_error(NULL));
        goto done;
    }

    qsort(times, (size_t)reps, sizeof *times, cmp_double);
    double med = reps % 2 ? times[reps / 2] : 0.5 * (times[reps / 2 - 1] + times[reps / 2]);
    /* Compulsory traffic: every input byte read once, every output written once. */
    double gbs = med > 0 ? (double)(in_bytes + out_bytes) / med * 1e-9 : 0.0;
    char what[64];
    if (blur) snprintf(what, sizeof what, "%d ch, r=%d", img.channels, j.radius);
    else snprintf(what, sizeof what, "%d ch -> 1%s", img.channels, note);
    fprintf(report, "%s: %zux%zu %s, %s rung '%s': median %.4f ms of %ld, %.2f GB/s -> %s\n",
            pattern, img.width, img.height, what, cupat_backend_name(cupat_get_backend(ctx)),
            info->name, med * 1e3, reps, gbs, cli_image_name(out_path, 1));
    rc = 0;
    goto done;

lib_failed:
    fprintf(stderr, "cupat: %s\n", cupat_last_error(ctx));
done:
    if (ctx) {
        cupat_free(ctx, d_in);
        cupat_free(ctx, d_out);
        cupat_destroy(ctx);
    }
    free(times);
    free(host_in);
    cupat_image_free(&img);
    cupat_image_free(&res);
    return rc;
}
