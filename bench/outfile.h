/* SPDX-License-Identifier: Apache-2.0 */
/* outfile.h — writing a file the user named (`--json FILE`, `--csv FILE`)
 * without ever losing what was there. The text goes to a temporary file
 * beside FILE (same directory: the rename is atomic), which replaces FILE
 * only once all of it is written; on any failure the temporary file is
 * removed and FILE, if it existed, is left as it was. Nothing but that
 * temporary file is ever removed: a FILE that cannot be written (read-only,
 * a directory) is refused, untouched.
 *
 * "-" is stdout. A FILE that exists but is not a plain file of ours with one
 * link (a device such as /dev/null, a FIFO, a file of another owner, a hard
 * link) is written in place, as fopen(FILE, "w") would, and never removed.
 * A symbolic link is followed: its target is the file replaced. A new FILE
 * gets the mode fopen would give it (0666 less the umask), an existing one
 * keeps its mode. */
#ifndef CUPAT_BENCH_OUTFILE_H
#define CUPAT_BENCH_OUTFILE_H

#include <stddef.h>
#include <stdio.h>

typedef struct out_file {
    FILE *f;          /* write here between out_file_open and _commit/_abort */
    int to_stdout;    /* path "-" */
    char *path;       /* where the text lands (a symbolic link resolved) */
    char *tmp;        /* the temporary file beside it; NULL when in place */
} out_file;

/* Could path be written (the check before a long run: nothing is created)?
 * 0, or -1 with errno set (EISDIR, EACCES, ENOENT, ...). */
int out_file_check(const char *path);

/* Opens path for writing; 0, or -1 with errno set and nothing created. */
int out_file_open(out_file *o, const char *path);

/* Flushes and closes o->f, then puts the text in place (rename); 0, or -1
 * with errno set after out_file_abort's clean-up (FILE untouched). */
int out_file_commit(out_file *o);

/* Closes o->f and removes the temporary file: FILE as it was. */
void out_file_abort(out_file *o);

/* The whole of text (and a final newline when nl) to path in one call; 0, or
 * -1 with errno set and FILE untouched. */
int out_file_write(const char *path, const char *text, int nl);

#endif
