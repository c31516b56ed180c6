/* kw_proc.h: running a helper program (kwalk-irfacts, the Python helper) with no
 * shell, in its own process group, its stdout read into a buffer within a
 * time limit and a size limit, its first stderr line kept for the message. */
#ifndef KW_PROC_H
#define KW_PROC_H

#include <stdbool.h>
#include <stddef.h>

#include "common/kw_buf.h"

typedef enum kw_proc_end {
    KW_PROC_EXITED,   /* it exited: code */
    KW_PROC_SIGNALED, /* a signal ended it: code is the signal */
    KW_PROC_TIMEOUT,  /* past the time limit: it and its group were killed */
    KW_PROC_TOO_BIG,  /* its output passed max_out bytes: killed */
    KW_PROC_NOT_RUN   /* it could not be started: errline says why */
} kw_proc_end;

typedef struct kw_proc_result {
    kw_proc_end end;
    int code;
    char errline[512]; /* its first stderr line ("" when none) */
} kw_proc_result;

/* Run argv[0] (a path, or a name looked up on PATH) with argv, stdout into out (initialized by the
 * caller), at most timeout_s seconds and max_out bytes of output. */
void kw_proc_run(char *const *argv, double timeout_s, size_t max_out, kw_buf *out,
                 kw_proc_result *res);

#endif
