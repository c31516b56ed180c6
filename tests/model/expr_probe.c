/* expr_probe.c: model/kw_expr.c's evaluator in C mode for the model.expr_c
 * test (test_expr_c.py), which compares it with a C compiler's values of
 * the same text. Reads queries from stdin, one a line: "SHAPE<TAB>EXPR"
 * (SHAPE as --shape reads it, or "-" for none), and writes one answer a
 * line: "= VALUE" (%.17g), or "! REASON" when it is not evaluated. Exit 1
 * on a malformed query or shape. `expr_probe --js` prints the site's kernel
 * page script (render/kw_html_kpage_js.c), whose port of the evaluator the
 * test runs on the same cases in Chromium. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/kw_expr.h"
#include "render/kw_html.h"

/* One query: its answer line on stdout; KW_ERR on a malformed query. */
static kw_status expr_probe_one(char *line) {
    char *tab = strchr(line, '\t');
    if (!tab)
        return KW_ERR;
    *tab = '\0';
    kw_arena arena;
    kw_arena_init(&arena);
    kw_shape shape = {{0}};
    kw_err err = {{0}};
    kw_value v;
    kw_status st = KW_OK;
    if (strcmp(line, "-") && kw_shape_parse(&shape, &arena, line, &err) != KW_OK)
        st = KW_ERR;
    else if (kw_expr_eval(tab + 1, &shape, KW_EXPR_C, &v, &err) != KW_OK)
        printf("! %s\n", err.msg);
    else
        printf("= %.17g\n", v.v[0]);
    kw_arena_free(&arena);
    return st;
}

int main(int argc, char **argv) {
    if (argc == 2 && !strcmp(argv[1], "--js")) {
        fputs(kw_html_kernel_js, stdout);
        return 0;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int rc = 0;
    while ((n = getline(&line, &cap, stdin)) > 0) {
        if (line[n - 1] == '\n')
            line[--n] = '\0';
        if (expr_probe_one(line) != KW_OK) {
            fprintf(stderr, "expr_probe: malformed query or shape: %s\n", line);
            rc = 1;
            break;
        }
    }
    free(line);
    return rc;
}
