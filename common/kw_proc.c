/* kw_proc.c: a helper program run with posix_spawn in its own process group,
 * its stdout read from a pipe until a deadline, its stderr into an unlinked
 * temporary file whose first line is kept (kw_proc.h). */
#define _GNU_SOURCE /* mkstemp under strict C11 */
#include "common/kw_proc.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double kw_proc_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Read fd to its end into b, until the deadline or past max bytes. */
static kw_proc_end kw_proc_read(int fd, kw_buf *b, double deadline, size_t max) {
    char chunk[65536];
    for (;;) {
        double left = deadline - kw_proc_now();
        if (left <= 0)
            return KW_PROC_TIMEOUT;
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        int ready = poll(&pfd, 1, left > 1000 ? 1000000 : (int)(left * 1000) + 1);
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready < 0)
            return KW_PROC_EXITED; /* cannot wait: what was read is what there is */
        if (ready == 0)
            continue;
        ssize_t got = read(fd, chunk, sizeof chunk);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return KW_PROC_EXITED;
        if (b->len + (size_t)got > max)
            return KW_PROC_TOO_BIG;
        kw_buf_append(b, chunk, (size_t)got);
    }
}

/* Wait for pid until the deadline; false when it passed. */
static bool kw_proc_wait(pid_t pid, int *status, double deadline) {
    for (;;) {
        pid_t w = waitpid(pid, status, WNOHANG);
        if (w == pid || (w < 0 && errno != EINTR))
            return true;
        if (kw_proc_now() >= deadline)
            return false;
        nanosleep(&(struct timespec){.tv_nsec = 5000000}, NULL);
    }
}

static void kw_proc_first_line(int fd, char *line, size_t size) {
    line[0] = '\0';
    if (lseek(fd, 0, SEEK_SET) != 0)
        return;
    ssize_t n = read(fd, line, size - 1);
    line[n > 0 ? n : 0] = '\0';
    line[strcspn(line, "\n\r")] = '\0';
}

void kw_proc_run(char *const *argv, double timeout_s, size_t max_out, kw_buf *out,
                 kw_proc_result *res) {
    memset(res, 0, sizeof *res);
    res->end = KW_PROC_NOT_RUN;
    char errpath[] = "/tmp/kwalk-proc-XXXXXX";
    int errfd = mkstemp(errpath), pipefd[2] = {-1, -1};
    if (errfd < 0 || pipe(pipefd) != 0) {
        snprintf(res->errline, sizeof res->errline, "cannot run %s: %s", argv[0], strerror(errno));
        if (errfd >= 0)
            close(errfd), unlink(errpath);
        return;
    }
    unlink(errpath);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addclose(&fa, pipefd[0]);
    posix_spawn_file_actions_adddup2(&fa, pipefd[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&fa, errfd, STDERR_FILENO);
    posix_spawn_file_actions_addclose(&fa, pipefd[1]);
    posix_spawn_file_actions_addclose(&fa, errfd);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attr, 0);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, &attr, argv, environ);
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&fa);
    close(pipefd[1]);
    if (rc != 0) {
        snprintf(res->errline, sizeof res->errline, "cannot run %s: %s", argv[0], strerror(rc));
        close(pipefd[0]);
        close(errfd);
        return;
    }
    double deadline = kw_proc_now() + timeout_s;
    kw_proc_end end = kw_proc_read(pipefd[0], out, deadline, max_out);
    close(pipefd[0]);
    int status = 0;
    /* its output ended: it should exit now, but it may not */
    if (end != KW_PROC_EXITED || !kw_proc_wait(pid, &status, deadline)) {
        if (end == KW_PROC_EXITED)
            end = KW_PROC_TIMEOUT;
        kill(-pid, SIGKILL);
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
    }
    res->end = end;
    if (end == KW_PROC_EXITED && WIFSIGNALED(status)) {
        res->end = KW_PROC_SIGNALED;
        res->code = WTERMSIG(status);
    } else if (end == KW_PROC_EXITED) {
        res->code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    kw_proc_first_line(errfd, res->errline, sizeof res->errline);
    close(errfd);
}
