/* kw_cli.h: what every kwalk subcommand shares: exit codes, the one-line
 * error reports ("kwalk: ..." on stderr), option parsing helpers, and the
 * table of subcommands (main.c). */
#ifndef KW_CLI_H
#define KW_CLI_H

#include <stdbool.h>

#include "common/kw_err.h"

enum {
    KW_EXIT_OK = 0,
    KW_EXIT_INPUT = 1, /* bad input: missing file, malformed sidecar, write error */
    KW_EXIT_USAGE = 2  /* bad command line */
};

/* Print "kwalk: <err->msg>" as exactly one line on stderr; returns KW_EXIT_INPUT. */
int kw_cli_fail(const kw_err *err);
/* Print "kwalk: <formatted>" as one line on stderr; returns KW_EXIT_INPUT. */
int kw_cli_failf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print "kwalk: warning: <formatted>" as one line on stderr (the command goes on). */
void kw_cli_warnf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print "kwalk: <cmd>: <formatted> (see 'kwalk <cmd> --help')" as one line on
 * stderr; returns KW_EXIT_USAGE. */
int kw_cli_usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

bool kw_cli_is_help(const char *arg); /* -h or --help */
/* Match an option taking a value at argv[*i]: "NAME VALUE" or "NAME=VALUE",
 * for NAME = name or alias (alias may be NULL). Returns 1 when matched (*value
 * set, *i advanced past a separate value), 0 when argv[*i] is another
 * argument, -1 when the value is missing. */
int kw_cli_opt(int argc, char **argv, int *i, const char *name, const char *alias,
               const char **value);
/* Write what is buffered on stdout; on failure report it and return KW_EXIT_INPUT. */
int kw_cli_flush_stdout(void);
/* A command's output b written to the file path (NULL: to stdout, flushed);
 * b out of memory or the write failed: reported, KW_EXIT_INPUT. */
struct kw_buf;
int kw_cli_write_buf(const struct kw_buf *b, const char *path);

#endif
