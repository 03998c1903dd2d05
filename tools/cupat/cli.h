/* SPDX-License-Identifier: Apache-2.0 */
/* cli.h — small helpers the subcommands share (option values, numbers, sizes,
 * why CUDA is absent). commands.h holds the fixed interface; this is extra. */
#ifndef CUPAT_CLI_H
#define CUPAT_CLI_H

#include "cupat.h"

#include <stddef.h>
#include <stdio.h>

/* "--help" or "-h". */
int cli_is_help(const char *arg);

/* Match argv[*i] against option `name` ("--max"), taking its value either from
 * "--max=4M" or from the next argument (then *i advances). Returns 1 with
 * *value set, 0 when argv[*i] is another option, -1 when the value is missing
 * (reason printed, prefixed with `cmd`; the caller returns 2). */
int cli_opt(int argc, char **argv, int *i, const char *name, const char **value,
            const char *cmd);

/* The options every GPU subcommand takes: --backend auto|cpu|cuda and
 * --device N. Returns 1 when argv[*i] was one of them (parsed into *backend or
 * *device), 0 when it is another argument, 2 after a one-line reason. */
int cli_backend_opt(int argc, char **argv, int *i, const char *cmd, cupat_backend *backend,
                    long *device);

/* One-line reason for an unknown option or stray argument; returns 2. */
int cli_unknown(const char *cmd, const char *arg);
/* A lab's experiment argument: "all" or one of names[0..n): sets want[] and
 * returns 0, or prints the unknown name and returns 2. cli_pick_all: no
 * experiment named means every one. */
int cli_pick(const char *cmd, const char *arg, const char *const *names, int n, int *want);
void cli_pick_all(int *want, int n);
/* The labs' common options: --device N (0..1023), --reps N (1..1000),
 * --json FILE, each taken only where its pointer is not NULL. 1: argv[*i]
 * was one (consumed, *i advanced past its value); 0: not one; -1: a bad
 * value (printed; exit 2). */
int cli_lab_opt(int argc, char **argv, int *i, const char *cmd, long *device, long *reps, const char **json);

/* Decimal integer in [lo, hi]; 0, or 2 after a one-line reason. */
int cli_parse_int(const char *cmd, const char *opt, const char *s, long lo, long hi,
                  long *out);
/* Byte size: a number with an optional binary suffix K, M, G (KiB, MiB, GiB
 * also accepted; "B" alone is bytes). 0, or 2 after a one-line reason. */
int cli_parse_size(const char *cmd, const char *opt, const char *s, size_t *out);

/* The image commands' IN and OUT (cmd_image.c; gray, blur, filter): '-' is
 * stdin / stdout, OUT '-' in the --format (png when not given), a path's
 * format by its extension. cli_image_io_usage: the help's sentences on it
 * (no newline at the end). cli_image_format: checks --format against OUT and
 * sets the default; 0, or 2 after a one-line reason. Read and write report
 * through cupat_last_error(NULL). cli_image_name: what messages call the
 * path ("(stdin)" / "(stdout)" for '-'). */
void cli_image_io_usage(FILE *f);
int cli_image_format(const char *cmd, const char *out_path, const char **format);
cupat_status cli_image_read(const char *in_path, cupat_image *img);
cupat_status cli_image_write(const char *out_path, const char *format, const cupat_image *img);
const char *cli_image_name(const char *path, int out);

/* NULL when a CUDA device is usable; else why not, one line, static storage. */
const char *cli_no_cuda_reason(void);

/* "4 KiB", "256 MiB", "79.2 GiB": exact units when the size is a whole
 * number of them, one decimal otherwise. Returns buf. */
char *cli_bytes(char *buf, size_t n, double bytes);

/* The labs' --json FILE: {"lab": NAME, "device", "date", "commit", "reps",
 * "experiments": {EXPERIMENT: [{KEY: VALUE, ...}, ...], ...}}. Every call is
 * a no-op while J->f is NULL (no --json), so a lab writes its rows
 * unconditionally. */
typedef struct cli_json {
    FILE *f;
    int nexp, nrow, nkey;
} cli_json;
/* Open path and write the header; 0, or 1 after a one-line reason. */
int cli_json_open(cli_json *J, const char *cmd, const char *path, const char *lab, const char *device,
                  const char *date, const char *commit, int reps);
/* Close the document; 0, or 1 after a one-line reason (a failed write). */
int cli_json_close(cli_json *J, const char *cmd, const char *path);
void cli_json_string(FILE *f, const char *s); /* s quoted and escaped (NULL: "") */
void cli_json_exp(cli_json *J, const char *name);
void cli_json_end_exp(cli_json *J);
void cli_json_row(cli_json *J);
void cli_json_end_row(cli_json *J);
void cli_json_num(cli_json *J, const char *key, double v); /* not finite: null */
void cli_json_str(cli_json *J, const char *key, const char *v);

/* A lab whose experiments fill lab_row tables (lab/rows/lab_rows.h): the
 * whole command (cli_lab.c): experiment names or "all", --reps, --json,
 * --list, --device; a table an experiment; exit 1 on a FAIL row. */
struct lab_exp;
struct lab_row;
typedef struct cli_lab_desc {
    const char *cmd;   /* "cupat lab cluster" */
    const char *lab;   /* "cluster": the JSON's "lab" and the last line */
    const char *intro; /* the usage text's paragraph */
    const struct lab_exp *(*exp)(int e);
    cupat_status (*run)(cupat_ctx *ctx, int e, int reps, struct lab_row *rows, int *nrows);
} cli_lab_desc;
int cli_lab_main(int argc, char **argv, const cli_lab_desc *d);

#endif
