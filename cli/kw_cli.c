/* kw_cli.c: error reports and option parsing for the kwalk subcommands. An
 * error is always exactly one line: newlines that a file name might smuggle
 * into a message are printed as "\n". */
#include "cli/kw_cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/kw_buf.h"
#include "common/kw_fs.h"

static void kw_cli_line(const char *prefix, const char *msg) {
    fputs(prefix, stderr);
    for (const char *s = msg; *s; s++) {
        if (*s == '\n')
            fputs("\\n", stderr);
        else if (*s == '\r')
            fputs("\\r", stderr);
        else
            fputc(*s, stderr);
    }
    fputc('\n', stderr);
}

int kw_cli_fail(const kw_err *err) {
    kw_cli_line("kwalk: ", err->msg);
    return KW_EXIT_INPUT;
}

int kw_cli_failf(const char *fmt, ...) {
    kw_err e;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e.msg, sizeof(e.msg), fmt, ap);
    va_end(ap);
    return kw_cli_fail(&e);
}

void kw_cli_warnf(const char *fmt, ...) {
    kw_err e;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e.msg, sizeof(e.msg), fmt, ap);
    va_end(ap);
    kw_cli_line("kwalk: warning: ", e.msg);
}

int kw_cli_usage_error(const char *cmd, const char *fmt, ...) {
    char msg[400];
    kw_err e;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    snprintf(e.msg, sizeof(e.msg), "%s: %s (see 'kwalk %s --help')", cmd, msg, cmd);
    kw_cli_fail(&e);
    return KW_EXIT_USAGE;
}

bool kw_cli_is_help(const char *arg) {
    return !strcmp(arg, "-h") || !strcmp(arg, "--help");
}

static int kw_cli_match(int argc, char **argv, int *i, const char *name, const char **value) {
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) != 0)
        return 0;
    if (a[n] == '=') {
        *value = a + n + 1;
        return 1;
    }
    if (a[n] != '\0')
        return 0;
    if (*i + 1 >= argc)
        return -1;
    *value = argv[++*i];
    return 1;
}

int kw_cli_opt(int argc, char **argv, int *i, const char *name, const char *alias,
               const char **value) {
    int r = kw_cli_match(argc, argv, i, name, value);
    if (r == 0 && alias)
        r = kw_cli_match(argc, argv, i, alias, value);
    return r;
}

int kw_cli_flush_stdout(void) {
    if (fflush(stdout) != 0 || ferror(stdout))
        return kw_cli_failf("cannot write the output: %s", strerror(errno));
    return KW_EXIT_OK;
}

int kw_cli_write_buf(const kw_buf *b, const char *path) {
    kw_err err;
    if (b->oom)
        return kw_cli_failf("out of memory");
    if (path)
        return kw_fs_write(path, b->ptr, b->len, &err) == KW_OK ? KW_EXIT_OK : kw_cli_fail(&err);
    if (fwrite(b->ptr ? b->ptr : "", 1, b->len, stdout) != b->len)
        return kw_cli_failf("cannot write the output: %s", strerror(errno));
    return kw_cli_flush_stdout();
}
