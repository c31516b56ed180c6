/* kw_pyhelper.c: finding python3 and kwalk_pyscan.py, running the helper
 * with posix_spawn (no shell), its table from a pipe, its first stderr line
 * from a temporary file (see kw_pyhelper.h). */
#define _GNU_SOURCE /* readlink, mkstemp under strict C11 */
#include "cli/kw_pyhelper.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/kw_buf.h"

extern char **environ;

enum { KW_PH_MAX_ROOTS = 64 };

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

kw_pyhelper_status kw_pyhelper_chains(const char *const *roots, size_t n, kw_py_chains *out,
                                      kw_err *err) {
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
    char *argv[2 * KW_PH_MAX_ROOTS + 8];
    size_t k = 0;
    argv[k++] = python;
    argv[k++] = script;
    argv[k++] = (char *)"chains";
    for (size_t i = 0; i < n; i++) {
        argv[k++] = (char *)"--root";
        argv[k++] = (char *)roots[i];
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
    pid_t pid;
    int rc = posix_spawnp(&pid, python, &fa, NULL, argv, environ);
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
    char chunk[65536];
    for (;;) {
        ssize_t got = read(pipefd[0], chunk, sizeof chunk);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        kw_buf_append(&b, chunk, (size_t)got);
    }
    close(pipefd[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    kw_pyhelper_status st = KW_PYHELPER_OK;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
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
