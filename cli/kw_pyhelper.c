/* kw_pyhelper.c: finding python3 and kwalk_pyscan.py, running the helper
 * with posix_spawn (no shell, its own process group), its table from a pipe
 * within a time limit, its first stderr line from a temporary file (see
 * kw_pyhelper.h). */
#define _GNU_SOURCE /* readlink, mkstemp under strict C11 */
#include "cli/kw_pyhelper.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/kw_buf.h"

extern char **environ;

enum { KW_PH_MAX_ROOTS = 64, KW_PH_DEFAULT_TIMEOUT_S = 300 };

/* The helper's time limit in seconds: $KWALK_PYTHON_TIMEOUT when it is a
 * positive whole number, else the default. */
static long kw_ph_timeout_s(void) {
    const char *env = getenv("KWALK_PYTHON_TIMEOUT");
    if (env && *env) {
        char *end;
        errno = 0;
        long v = strtol(env, &end, 10);
        if (errno == 0 && *end == '\0' && v > 0 && v <= 86400)
            return v;
    }
    return KW_PH_DEFAULT_TIMEOUT_S;
}

static double kw_ph_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Read fd to its end into b, until the deadline (monotonic seconds): false
 * when the deadline passed first. */
static bool kw_ph_read_all(int fd, kw_buf *b, double deadline) {
    char chunk[65536];
    for (;;) {
        double left = deadline - kw_ph_now();
        if (left <= 0)
            return false;
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        int ready = poll(&pfd, 1, left > 1000 ? 1000000 : (int)(left * 1000) + 1);
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready < 0)
            return true; /* cannot wait: what was read is what there is */
        if (ready == 0)
            continue;
        ssize_t got = read(fd, chunk, sizeof chunk);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return true;
        kw_buf_append(b, chunk, (size_t)got);
    }
}

static bool kw_ph_exec(const char *path) {
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && access(path, X_OK) == 0;
}

static bool kw_ph_file(const char *path) {
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* $KWALK_PYTHON, else python3 on PATH, into buf; false when none. */
static bool kw_ph_python(char *buf, size_t size) {
    const char *env = getenv("KWALK_PYTHON");
    if (env && *env) {
        snprintf(buf, size, "%s", env);
        return true; /* given: used as is, its failure is reported */
    }
    const char *path = getenv("PATH");
    while (path && *path) {
        const char *colon = strchr(path, ':');
        size_t n = colon ? (size_t)(colon - path) : strlen(path);
        if (n && snprintf(buf, size, "%.*s/python3", (int)n, path) < (int)size && kw_ph_exec(buf))
            return true;
        path += n + (colon ? 1 : 0);
    }
    return false;
}

/* The helper beside the command (../share/kwalk/python/), else the source
 * tree's python/ (a build-tree kwalk). */
static bool kw_ph_script(char *buf, size_t size) {
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            if (snprintf(buf, size, "%s/../share/kwalk/python/kwalk_pyscan.py", exe) < (int)size &&
                kw_ph_file(buf))
                return true;
        }
    }
#ifdef KWALK_SOURCE_PYSCAN
    if (snprintf(buf, size, "%s", KWALK_SOURCE_PYSCAN) < (int)size && kw_ph_file(buf))
        return true;
#endif
    return false;
}

/* The first line of the file open at fd (for the helper's stderr). */
static void kw_ph_first_line(int fd, char *line, size_t size) {
    line[0] = '\0';
    if (lseek(fd, 0, SEEK_SET) != 0)
        return;
    ssize_t n = read(fd, line, size - 1);
    line[n > 0 ? n : 0] = '\0';
    line[strcspn(line, "\n\r")] = '\0';
}

kw_pyhelper_status kw_pyhelper_chains(const char *const *roots, size_t n, const char *from,
                                      kw_py_chains *out, kw_err *err) {
    char python[4096], script[4096];
    if (!kw_ph_python(python, sizeof python)) {
        kw_fail(err, "no python3 on PATH (or set KWALK_PYTHON)");
        return KW_PYHELPER_NONE;
    }
    if (!kw_ph_script(script, sizeof script)) {
        kw_fail(err, "kwalk_pyscan.py not found beside kwalk (../share/kwalk/python/)");
        return KW_PYHELPER_NONE;
    }
    if (n > KW_PH_MAX_ROOTS) {
        kw_fail(err, "at most %d --python-root directories", KW_PH_MAX_ROOTS);
        return KW_PYHELPER_FAILED;
    }
    char *argv[2 * KW_PH_MAX_ROOTS + 10];
    size_t k = 0;
    argv[k++] = python;
    argv[k++] = script;
    argv[k++] = (char *)"chains";
    for (size_t i = 0; i < n; i++) {
        argv[k++] = (char *)"--root";
        argv[k++] = (char *)roots[i];
    }
    if (from) {
        argv[k++] = (char *)"--from";
        argv[k++] = (char *)from;
    }
    argv[k++] = (char *)"--format";
    argv[k++] = (char *)"tsv";
    argv[k] = NULL;

    int pipefd[2] = {-1, -1};
    char errpath[] = "/tmp/kwalk-pyscan-XXXXXX";
    int errfd = mkstemp(errpath);
    if (errfd < 0) {
        kw_fail(err, "cannot make a temporary file: %s", strerror(errno));
        return KW_PYHELPER_FAILED;
    }
    unlink(errpath);
    if (pipe(pipefd) != 0) {
        close(errfd);
        kw_fail(err, "cannot make a pipe: %s", strerror(errno));
        return KW_PYHELPER_FAILED;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addclose(&fa, pipefd[0]);
    posix_spawn_file_actions_adddup2(&fa, pipefd[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&fa, errfd, STDERR_FILENO);
    posix_spawn_file_actions_addclose(&fa, pipefd[1]);
    posix_spawn_file_actions_addclose(&fa, errfd);
    /* Its own process group, so that a helper past its time limit is
     * stopped with whatever it started. */
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attr, 0);
    pid_t pid;
    int rc = posix_spawnp(&pid, python, &fa, &attr, argv, environ);
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&fa);
    close(pipefd[1]);
    if (rc != 0) {
        close(pipefd[0]);
        close(errfd);
        kw_fail(err, "cannot run %s: %s", python, strerror(rc));
        return KW_PYHELPER_FAILED;
    }
    kw_buf b;
    kw_buf_init(&b);
    long limit = kw_ph_timeout_s();
    double deadline = kw_ph_now() + (double)limit;
    bool in_time = kw_ph_read_all(pipefd[0], &b, deadline);
    close(pipefd[0]);
    int status = 0;
    /* Its output ended: it should exit now, but it may not (it closed its
     * stdout and went on). */
    while (in_time) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid || (w < 0 && errno != EINTR))
            break;
        if (kw_ph_now() >= deadline)
            in_time = false;
        else
            nanosleep(&(struct timespec){.tv_nsec = 5000000}, NULL);
    }
    if (!in_time) {
        kill(-pid, SIGKILL);
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
    }
    kw_pyhelper_status st = KW_PYHELPER_OK;
    if (!in_time) {
        kw_fail(err, "%s %s did not finish within %ld s (KWALK_PYTHON_TIMEOUT): stopped", python,
                script, limit);
        st = KW_PYHELPER_FAILED;
    } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        char line[400];
        kw_ph_first_line(errfd, line, sizeof line);
        if (WIFEXITED(status))
            kw_fail(err, "%s %s failed (exit %d)%s%s", python, script, WEXITSTATUS(status),
                    line[0] ? ": " : "", line);
        else
            kw_fail(err, "%s %s ended by signal %d", python, script,
                    WIFSIGNALED(status) ? WTERMSIG(status) : 0);
        st = KW_PYHELPER_FAILED;
    } else if (b.oom) {
        kw_fail(err, "out of memory reading the Python chains");
        st = KW_PYHELPER_FAILED;
    } else if (kw_py_chains_parse(out, "kwalk_pyscan.py output", b.ptr ? b.ptr : "", b.len, err) !=
               KW_OK) {
        st = KW_PYHELPER_FAILED;
    }
    close(errfd);
    kw_buf_free(&b);
    return st;
}
