/* SPDX-License-Identifier: Apache-2.0 */
/* cli.c — option helpers, backend parsing and context creation shared by the
 * subcommands. */
#include "cli.h"
#include "commands.h"

#include <cuda_runtime_api.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_is_help(const char *arg)
{
    return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0;
}

int cli_opt(int argc, char **argv, int *i, const char *name, const char **value,
            const char *cmd)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) != 0) return 0;
    if (a[n] == '=') {
        *value = a + n + 1;
        return 1;
    }
    if (a[n] != '\0') return 0; /* --maxfoo is not --max */
    if (*i + 1 >= argc) {
        fprintf(stderr, "%s: option %s needs a value; try '%s --help'\n", cmd, name, cmd);
        return -1;
    }
    *value = argv[++*i];
    return 1;
}

int cli_backend_opt(int argc, char **argv, int *i, const char *cmd, cupat_backend *backend,
                    long *device)
{
    const char *v = NULL;
    int r;
    if ((r = cli_opt(argc, argv, i, "--backend", &v, cmd)) != 0)
        return r < 0 || cli_parse_backend(v, backend) ? 2 : 1;
    if ((r = cli_opt(argc, argv, i, "--device", &v, cmd)) != 0)
        return r < 0 || cli_parse_int(cmd, "--device", v, 0, 1 << 20, device) ? 2 : 1;
    return 0;
}

int cli_pick(const char *cmd, const char *arg, const char *const *names, int n, int *want)
{
    if (!strcmp(arg, "all")) {
        for (int e = 0; e < n; e++) want[e] = 1;
        return 0;
    }
    for (int e = 0; e < n; e++)
        if (!strcmp(arg, names[e])) {
            want[e] = 1;
            return 0;
        }
    fprintf(stderr, "%s: unknown experiment '%s' (try '%s --help')\n", cmd, arg, cmd);
    return 2;
}

void cli_pick_all(int *want, int n)
{
    int any = 0;
    for (int e = 0; e < n; e++) any |= want[e];
    for (int e = 0; !any && e < n; e++) want[e] = 1;
}

int cli_lab_opt(int argc, char **argv, int *i, const char *cmd, long *device, long *reps, const char **json)
{
    const char *v = NULL;
    int r;
    if (device && (r = cli_opt(argc, argv, i, "--device", &v, cmd)) != 0)
        return r < 0 || cli_parse_int(cmd, "--device", v, 0, 1023, device) ? -1 : 1;
    if (reps && (r = cli_opt(argc, argv, i, "--reps", &v, cmd)) != 0)
        return r < 0 || cli_parse_int(cmd, "--reps", v, 1, 1000, reps) ? -1 : 1;
    if (json && (r = cli_opt(argc, argv, i, "--json", &v, cmd)) != 0) {
        if (r < 0) return -1;
        *json = v;
        return 1;
    }
    return 0;
}

int cli_unknown(const char *cmd, const char *arg)
{
    if (arg[0] == '-')
        fprintf(stderr, "%s: unknown option '%s'; try '%s --help'\n", cmd, arg, cmd);
    else
        fprintf(stderr, "%s: unexpected argument '%s'; try '%s --help'\n", cmd, arg, cmd);
    return 2;
}

int cli_parse_int(const char *cmd, const char *opt, const char *s, long lo, long hi,
                  long *out)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!*s || *end || errno || v < lo || v > hi) {
        fprintf(stderr, "%s: %s '%s' is not an integer in [%ld, %ld]\n", cmd, opt, s, lo, hi);
        return 2;
    }
    *out = v;
    return 0;
}

int cli_parse_size(const char *cmd, const char *opt, const char *s, size_t *out)
{
    char *end = NULL;
    errno = 0;
    if (*s < '0' || *s > '9') goto bad; /* strtoull would take "-1" */
    unsigned long long v = strtoull(s, &end, 10);
    if (errno) goto bad;
    unsigned shift = 0;
    switch (*end) {
    case '\0': break;
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    case 'B': break;
    default: goto bad;
    }
    if (shift && (strcmp(end, "iB") == 0 || strcmp(end, "B") == 0)) end += strlen(end);
    else if (!shift && strcmp(end, "B") == 0) end++;
    if (*end) goto bad;
    if (v > (SIZE_MAX >> shift)) goto bad;
    *out = (size_t)v << shift;
    return 0;
bad:
    fprintf(stderr, "%s: %s '%s' is not a size (examples: 4096, 64K, 256M, 1G)\n", cmd, opt, s);
    return 2;
}

const char *cli_no_cuda_reason(void)
{
    static char why[256];
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e == cudaSuccess) return n > 0 ? NULL : "no CUDA-capable device found";
    (void)cudaGetLastError();
    /* Without a kernel driver the runtime reports "driver version is
     * insufficient", which misleads; say what is actually missing. */
    FILE *f = fopen("/proc/driver/nvidia/version", "r");
    if (f) fclose(f);
    if (!f && e == cudaErrorInsufficientDriver)
        snprintf(why, sizeof why, "no NVIDIA driver loaded: cudaGetDeviceCount: %s",
                 cudaGetErrorName(e));
    else
        snprintf(why, sizeof why, "cudaGetDeviceCount: %s (%s)", cudaGetErrorString(e),
                 cudaGetErrorName(e));
    return why;
}

char *cli_bytes(char *buf, size_t n, double bytes)
{
    static const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    double v = bytes;
    while (v >= 1024.0 && u < 4) {
        v /= 1024.0;
        u++;
    }
    if (v == (double)(long long)v) snprintf(buf, n, "%lld %s", (long long)v, unit[u]);
    else snprintf(buf, n, "%.1f %s", v, unit[u]);
    return buf;
}

int cli_parse_backend(const char *value, cupat_backend *b)
{
    if (value && strcmp(value, "auto") == 0) *b = CUPAT_BACKEND_AUTO;
    else if (value && strcmp(value, "cpu") == 0) *b = CUPAT_BACKEND_CPU;
    else if (value && strcmp(value, "cuda") == 0) *b = CUPAT_BACKEND_CUDA;
    else {
        fprintf(stderr, "cupat: --backend '%s' is not one of auto, cpu, cuda\n",
                value ? value : "");
        return 2;
    }
    return 0;
}

cupat_ctx *cli_context(cupat_backend b, int device)
{
    if (b == CUPAT_BACKEND_AUTO) {
        const char *why = cli_no_cuda_reason();
        if (why) {
            fprintf(stderr, "cupat: no CUDA device (%s); running on the CPU backend\n", why);
            b = CUPAT_BACKEND_CPU;
        } else {
            b = CUPAT_BACKEND_CUDA; /* so a bad --device is an error, not a silent CPU run */
        }
    }
    cupat_ctx *ctx = NULL;
    if (cupat_create(&ctx, b, device) != CUPAT_SUCCESS) {
        /* The runtime's "driver version is insufficient" also means "no driver". */
        const char *why = b == CUPAT_BACKEND_CUDA ? cli_no_cuda_reason() : NULL;
        int no_driver = why && strncmp(why, "no NVIDIA driver", 16) == 0;
        fprintf(stderr, "cupat: %s%s\n", cupat_last_error(NULL),
                no_driver ? "; no NVIDIA driver is loaded" : "");
        return NULL;
    }
    return ctx;
}

/* ------------------------------------------------------------- JSON -- */

void cli_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        if (*s == '"' || *s == '\\') fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20) fprintf(f, "\\u%04x", *s);
        else fputc(*s, f);
    }
    fputc('"', f);
}

int cli_json_open(cli_json *J, const char *cmd, const char *path, const char *lab, const char *device,
                  const char *date, const char *commit, int reps)
{
    memset(J, 0, sizeof *J);
    if (!path) return 0;
    if (!(J->f = fopen(path, "w"))) {
        fprintf(stderr, "%s: --json %s: cannot write: %s\n", cmd, path, strerror(errno));
        return 1;
    }
    fputs("{\n  \"lab\": ", J->f);
    cli_json_string(J->f, lab);
    fputs(", \"device\": ", J->f);
    cli_json_string(J->f, device);
    fputs(", \"date\": ", J->f);
    cli_json_string(J->f, date);
    fputs(", \"commit\": ", J->f);
    cli_json_string(J->f, commit);
    fprintf(J->f, ", \"reps\": %d,\n  \"experiments\": {", reps);
    return 0;
}

int cli_json_close(cli_json *J, const char *cmd, const char *path)
{
    if (!J->f) return 0;
    fputs("\n  }\n}\n", J->f);
    const int bad = ferror(J->f) | fclose(J->f);
    J->f = NULL;
    if (bad) fprintf(stderr, "%s: --json %s: write failed\n", cmd, path);
    return bad ? 1 : 0;
}

static void json_key(cli_json *J, const char *k)
{
    fprintf(J->f, "%s", J->nkey++ ? ", " : "");
    cli_json_string(J->f, k);
    fputs(": ", J->f);
}

void cli_json_exp(cli_json *J, const char *name)
{
    if (!J->f) return;
    fprintf(J->f, "%s\n    ", J->nexp++ ? "," : "");
    cli_json_string(J->f, name);
    fputs(": [", J->f);
    J->nrow = 0;
}

void cli_json_end_exp(cli_json *J)
{
    if (J->f) fputs("\n    ]", J->f);
}

void cli_json_row(cli_json *J)
{
    if (!J->f) return;
    fprintf(J->f, "%s\n      {", J->nrow++ ? "," : "");
    J->nkey = 0;
}

void cli_json_end_row(cli_json *J)
{
    if (J->f) fputc('}', J->f);
}

void cli_json_num(cli_json *J, const char *key, double v)
{
    if (!J->f) return;
    json_key(J, key);
    if (isfinite(v)) fprintf(J->f, "%.9g", v);
    else fputs("null", J->f);
}

void cli_json_str(cli_json *J, const char *key, const char *v)
{
    if (!J->f) return;
    json_key(J, key);
    cli_json_string(J->f, v);
}
