/* SPDX-License-Identifier: Apache-2.0 */
/* outfile.c — a user's output file replaced only by a complete one
 * (outfile.h). */
#define _XOPEN_SOURCE 700 /* mkstemp, fdopen, fchmod, fsync, realpath, lstat, S_IFLNK */
#include "outfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void release(out_file *o)
{
    free(o->path);
    free(o->tmp);
    o->path = o->tmp = NULL;
    o->f = NULL;
}

/* Where a write to path lands: a symbolic link's target (malloc'd), else a
 * copy of path; NULL with errno set. *st: lstat of what was found (its
 * st_mode 0 when nothing is there yet). */
static char *target_of(const char *path, struct stat *st)
{
    memset(st, 0, sizeof *st);
    if (lstat(path, st) != 0) {
        if (errno != ENOENT) return NULL;
        memset(st, 0, sizeof *st);
        return strdup(path);
    }
    if (!S_ISLNK(st->st_mode)) return strdup(path);
    char *real = realpath(path, NULL);
    if (!real) { /* a dangling link: written through in place, as fopen does */
        memset(st, 0, sizeof *st);
        st->st_mode = S_IFLNK;
        return strdup(path);
    }
    if (stat(real, st) != 0) {
        free(real);
        return NULL;
    }
    return real;
}

int out_file_check(const char *path)
{
    if (!strcmp(path, "-")) return 0;
    struct stat st;
    char *t = target_of(path, &st);
    if (!t) return -1;
    int rc = 0;
    if (S_ISDIR(st.st_mode)) {
        errno = EISDIR;
        rc = -1;
    } else if (S_ISLNK(st.st_mode)) { /* a dangling link: written through, as fopen does */
        rc = 0;
    } else if (st.st_mode) {
        rc = access(t, W_OK);
    } else { /* a new file: its directory must take it */
        char *slash = strrchr(t, '/');
        if (slash == t) rc = access("/", W_OK | X_OK);
        else if (slash) {
            *slash = 0;
            rc = access(t, W_OK | X_OK);
        } else rc = access(".", W_OK | X_OK);
    }
    int e = errno;
    free(t);
    errno = e;
    return rc;
}

int out_file_open(out_file *o, const char *path)
{
    memset(o, 0, sizeof *o);
    if (!strcmp(path, "-")) {
        o->f = stdout;
        o->to_stdout = 1;
        return 0;
    }
    struct stat st;
    if (!(o->path = target_of(path, &st))) return -1;
    if (S_ISDIR(st.st_mode)) {
        release(o);
        errno = EISDIR;
        return -1;
    }
    mode_t mode;
    if (!st.st_mode) { /* new: fopen's mode */
        mode_t mask = umask(0);
        umask(mask);
        mode = 0666 & ~mask;
    } else if (S_ISREG(st.st_mode) && st.st_uid == geteuid() && st.st_nlink == 1) {
        if (access(o->path, W_OK) != 0) { /* read-only: refused, as fopen would */
            int e = errno;
            release(o);
            errno = e;
            return -1;
        }
        mode = st.st_mode & 07777;
    } else { /* a device, a FIFO, another's file, a hard link, a dangling link */
        if (!(o->f = fopen(o->path, "w"))) {
            int e = errno;
            release(o);
            errno = e;
            return -1;
        }
        return 0;
    }
    /* DIR/.NAME.XXXXXX beside the target */
    const char *slash = strrchr(o->path, '/');
    const size_t dl = slash ? (size_t)(slash - o->path) + 1 : 0, n = strlen(o->path);
    if (!(o->tmp = malloc(n + 16))) {
        release(o);
        errno = ENOMEM;
        return -1;
    }
    memcpy(o->tmp, o->path, dl);
    snprintf(o->tmp + dl, n + 16 - dl, ".%s.XXXXXX", o->path + dl);
    int fd = mkstemp(o->tmp);
    if (fd < 0) {
        int e = errno;
        release(o);
        errno = e;
        return -1;
    }
    if (fchmod(fd, mode) != 0 || !(o->f = fdopen(fd, "w"))) {
        int e = errno;
        close(fd);
        unlink(o->tmp); /* this run's temporary file, nothing else */
        release(o);
        errno = e;
        return -1;
    }
    return 0;
}

void out_file_abort(out_file *o)
{
    if (o->to_stdout) {
        fflush(stdout);
        memset(o, 0, sizeof *o);
        return;
    }
    int e = errno;
    if (o->f) fclose(o->f);
    if (o->tmp) unlink(o->tmp); /* only ever the temporary file this run made */
    release(o);
    errno = e;
}

int out_file_commit(out_file *o)
{
    if (o->to_stdout) {
        int bad = ferror(stdout) || fflush(stdout) != 0;
        memset(o, 0, sizeof *o);
        if (bad && !errno) errno = EIO;
        return bad ? -1 : 0;
    }
    if (!o->f) {
        errno = EBADF;
        return -1;
    }
    errno = 0;
    int bad = ferror(o->f) || fflush(o->f) != 0 || (o->tmp && fsync(fileno(o->f)) != 0);
    int e = bad ? (errno ? errno : EIO) : 0;
    if (fclose(o->f) != 0 && !bad) bad = 1, e = errno;
    o->f = NULL;
    if (!bad && o->tmp && rename(o->tmp, o->path) != 0) bad = 1, e = errno;
    if (bad) {
        errno = e;
        out_file_abort(o);
        errno = e;
        return -1;
    }
    release(o);
    return 0;
}

int out_file_write(const char *path, const char *text, int nl)
{
    out_file o;
    if (out_file_open(&o, path)) return -1;
    if (fputs(text, o.f) < 0 || (nl && fputc('\n', o.f) == EOF)) {
        int e = errno ? errno : EIO;
        out_file_abort(&o);
        errno = e;
        return -1;
    }
    return out_file_commit(&o);
}
