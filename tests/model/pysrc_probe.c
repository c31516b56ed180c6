/* pysrc_probe.c: the Python extents of model/kw_pysrc.h for the model.pysrc
 * test (test_pysrc_ast.py), which compares them with Python's own parser.
 * Reads queries from stdin, one a line: "def|stmt<TAB>LINE<TAB>PATH", and
 * writes one answer a line: "KIND<TAB>LINE<TAB>PATH<TAB>END" (END 0: none,
 * as kw_py_def_end / kw_py_stmt_end say). Exit 1 on a malformed query or an
 * unreadable file. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/kw_pysrc.h"
#include "model/kw_src.h"

int main(void) {
    kw_srcs srcs;
    kw_srcs_init(&srcs);
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int rc = 0;
    while ((n = getline(&line, &cap, stdin)) > 0) {
        if (line[n - 1] == '\n')
            line[--n] = '\0';
        char *kind = line, *num = strchr(line, '\t'), *path = num ? strchr(num + 1, '\t') : NULL;
        if (!num || !path) {
            fprintf(stderr, "pysrc_probe: malformed query: %s\n", line);
            rc = 1;
            break;
        }
        *num++ = '\0';
        *path++ = '\0';
        int at = atoi(num);
        const kw_src_file *f = kw_src_get(&srcs, path);
        if (!f || !f->ok) {
            fprintf(stderr, "pysrc_probe: %s: %s\n", path, f && f->why ? f->why : "not read");
            rc = 1;
            break;
        }
        const char *why = NULL;
        int end = strcmp(kind, "def") == 0 ? kw_py_def_end(f, at, &why) : kw_py_stmt_end(f, at);
        printf("%s\t%d\t%s\t%d\n", kind, at, path, end);
    }
    free(line);
    kw_srcs_free(&srcs);
    return rc;
}
