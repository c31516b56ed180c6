/* kw_pyhelper.c: finding python3 and kwalk_pyscan.py, running the helper
 * through common/kw_proc.c (no shell, its own process group, its table read
 * within a time limit, its first stderr line kept), and reading its table
 * (see kw_pyhelper.h). */
#define _GNU_SOURCE /* readlink under strict C11 */
#include "cli/kw_pyhelper.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/kw_buf.h"
#include "common/kw_proc.h"

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

kw_pyhelper_status kw_pyhelper_chains(const char *const *roots, size_t n, const char *from,
                                      const char *const *decorators, size_t ndec, bool package,
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
    if (n > KW_PH_MAX_ROOTS || ndec > KW_PH_MAX_ROOTS) {
        kw_fail(err, "at most %d --python-root directories and %d decorators", KW_PH_MAX_ROOTS,
                KW_PH_MAX_ROOTS);
        return KW_PYHELPER_FAILED;
    }
    char *argv[4 * KW_PH_MAX_ROOTS + 10];
    size_t k = 0;
    argv[k++] = python;
    argv[k++] = script;
    argv[k++] = (char *)"chains";
    for (size_t i = 0; i < n; i++) {
        argv[k++] = (char *)(package ? "--package-root" : "--root");
        argv[k++] = (char *)roots[i];
    }
    for (size_t i = 0; i < ndec; i++) {
        argv[k++] = (char *)"--decorator";
        argv[k++] = (char *)decorators[i];
    }
    if (from) {
        argv[k++] = (char *)"--from";
        argv[k++] = (char *)from;
    }
    argv[k++] = (char *)"--format";
    argv[k++] = (char *)"tsv";
    argv[k] = NULL;

    kw_buf b;
    kw_buf_init(&b);
    long limit = kw_ph_timeout_s();
    kw_proc_result res;
    kw_proc_run(argv, (double)limit, SIZE_MAX, &b, &res);
    kw_pyhelper_status st = KW_PYHELPER_FAILED;
    if (res.end == KW_PROC_NOT_RUN)
        kw_fail(err, "%s", res.errline);
    else if (res.end == KW_PROC_TIMEOUT)
        kw_fail(err, "%s %s did not finish within %ld s (KWALK_PYTHON_TIMEOUT): stopped", python,
                script, limit);
    else if (res.end == KW_PROC_SIGNALED)
        kw_fail(err, "%s %s ended by signal %d", python, script, res.code);
    else if (res.code != 0)
        kw_fail(err, "%s %s failed (exit %d)%s%s", python, script, res.code,
                res.errline[0] ? ": " : "", res.errline);
    else if (b.oom)
        kw_fail(err, "out of memory reading the Python chains");
    else if (kw_py_chains_parse(out, "kwalk_pyscan.py output", b.ptr ? b.ptr : "", b.len, err) ==
             KW_OK)
        st = KW_PYHELPER_OK;
    kw_buf_free(&b);
    return st;
}
