/* SPDX-License-Identifier: Apache-2.0 */
/* errors_spawn.c — a child process for the cases whose error is sticky (an
 * illegal address ends the CUDA context) or that could hang (a barrier not
 * every thread reaches): fork, exec, read its output, kill it (this child
 * alone, by its pid) when it outlives the timeout. POSIX. */
#define _GNU_SOURCE
#include "errors/errors.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int lab_errors_spawn(char *const argv[], int timeout_s, char *out, size_t len, int *exit_code)
{
    int fd[2];
    size_t used = 0;
    if (len) out[0] = 0;
    if (pipe(fd)) {
        snprintf(out, len, "pipe: %s", strerror(errno));
        return -1;
    }
    fflush(stdout);
    fflush(stderr);
    const pid_t pid = fork();
    if (pid < 0) {
        snprintf(out, len, "fork: %s", strerror(errno));
        close(fd[0]);
        close(fd[1]);
        return -1;
    }
    if (pid == 0) { /* the child: output into the pipe, then the new image */
        dup2(fd[1], 1);
        dup2(fd[1], 2);
        close(fd[0]);
        close(fd[1]);
        execv(argv[0], argv);
        fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(fd[1]);
    const double end = now_s() + timeout_s;
    int timed_out = 0;
    for (;;) {
        const double left = end - now_s();
        if (left <= 0) {
            timed_out = 1;
            break;
        }
        struct pollfd p = {fd[0], POLLIN, 0};
        const int k = poll(&p, 1, (int)(left * 1000) + 1);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) continue;
        char buf[1024];
        const ssize_t got = read(fd[0], buf, sizeof buf);
        if (got <= 0) break; /* the child closed its output: it ended */
        for (ssize_t i = 0; i < got && used + 1 < len; i++) out[used++] = buf[i];
        if (len) out[used] = 0;
    }
    close(fd[0]);
    int st = 0;
    if (timed_out) kill(pid, SIGKILL);
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
    if (exit_code) *exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
    return timed_out;
}
