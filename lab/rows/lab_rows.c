/* SPDX-License-Identifier: Apache-2.0 */
/* lab_rows.c — adding rows and notes to a lab's table (lab_rows.h). */
#include "rows/lab_rows.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

lab_row *lab_row_vadd(lab_row *rows, int *n, const char *fmt, va_list ap)
{
    lab_row *r = &rows[*n < LAB_MAX_ROWS - 1 ? (*n)++ : *n];
    memset(r, 0, sizeof *r);
    vsnprintf(r->name, sizeof r->name, fmt, ap);
    r->ok = -1;
    return r;
}

lab_row *lab_row_add(lab_row *rows, int *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lab_row *r = lab_row_vadd(rows, n, fmt, ap);
    va_end(ap);
    return r;
}

void lab_row_vnote(lab_row *r, const char *fmt, va_list ap)
{
    const size_t used = strlen(r->note);
    if (used + 1 >= sizeof r->note) return;
    vsnprintf(r->note + used, sizeof r->note - used, fmt, ap);
}

void lab_row_note(lab_row *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lab_row_vnote(r, fmt, ap);
    va_end(ap);
}

static char sanitizer[16];

void lab_set_sanitizer(const char *tool) { snprintf(sanitizer, sizeof sanitizer, "%s", tool ? tool : ""); }
const char *lab_sanitizer(void) { return sanitizer; }

int lab_row_refusal(lab_row *r)
{
    if (!sanitizer[0]) return 1;
    r->ok = -1;
    lab_row_note(r, "not run under %s: a call the runtime refuses counts as an API error there", sanitizer);
    return 0;
}

int lab_row_unless_tool(lab_row *r, const char *tool, const char *why)
{
    if (strcmp(sanitizer, tool) != 0) return 1;
    r->ok = -1;
    lab_row_note(r, "not run under %s: %s", tool, why);
    return 0;
}
