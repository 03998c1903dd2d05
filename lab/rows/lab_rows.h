/* SPDX-License-Identifier: Apache-2.0 */
/* lab_rows.h — the row table the cluster and coop labs fill (a name, a
 * median time, a figure, a check, a note; the memory lab's rows too) and their
 * experiment rows; the CLI
 * prints them with cli_lab_rows (tools/cupat/cli_lab.c). Not library API. */
#ifndef CUPAT_LAB_ROWS_H
#define CUPAT_LAB_ROWS_H

#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lab_exp {
    const char *name;   /* "dsmem" */
    const char *title;  /* one line */
    const char *source; /* the seeds' sections */
    const char *unit;   /* the figure's unit */
} lab_exp;

#define LAB_MAX_ROWS 24
typedef struct lab_row {
    char name[72];
    double ms;    /* median of the timed launches; 0: not timed */
    double value; /* the row's figure in the experiment's unit */
    int ok;       /* 1 checked and right, 0 wrong, -1 nothing to check */
    char note[320]; /* the memory lab's split notes run past 224 */
} lab_row;

/* The next row of rows[0 .. *n) (the last one again when the table is full),
 * cleared, named by fmt, ok = -1. */
lab_row *lab_row_add(lab_row *rows, int *n, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* lab_row_add / lab_row_note with a va_list (for labs that wrap them). */
lab_row *lab_row_vadd(lab_row *rows, int *n, const char *fmt, va_list ap);
void lab_row_vnote(lab_row *r, const char *fmt, va_list ap);
/* Append to a row's note. */
void lab_row_note(lab_row *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* The compute-sanitizer tool the lab runs under ("memcheck", ...; NULL or
 * "": none, the default), for the rows a tool cannot judge:
 * - calls the runtime is meant to refuse (a cluster larger than the
 *   hardware's, a cooperative grid one block too large) are not made under
 *   any tool, as each counts as an API error; the lab shows the refusal
 *   itself otherwise;
 * - rows a tool does not model (synccheck and cp.async's arrive-on
 *   completion, docs/async.md) are not run under that tool.
 * Such a row says it was not run, and why. */
void lab_set_sanitizer(const char *tool);
const char *lab_sanitizer(void);
/* For a row whose call the runtime should refuse: 1 to go on, or 0 with the
 * row marked not run (under a sanitizer). */
int lab_row_refusal(lab_row *r);
/* For a row `tool` cannot judge: 1 to go on, or 0 with the row marked not
 * run, `why` in its note, when the lab runs under that tool. */
int lab_row_unless_tool(lab_row *r, const char *tool, const char *why);

#ifdef __cplusplus
}
#endif
#endif
