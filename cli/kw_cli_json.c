/* kw_cli_json.c: writing a subcommand's --json document (kw_cli_json.h). */
#include "cli/kw_cli_json.h"

#include <stdio.h>

#include "cli/kw_cli.h"

int kw_cli_json_print(json_t *doc, bool oom) {
    if (!doc || oom) {
        json_decref(doc);
        return kw_cli_failf("out of memory");
    }
    /* two-space indent; reals with 15 significant digits (no binary noise) */
    int bad = json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(15)) != 0;
    json_decref(doc);
    if (bad || putchar('\n') == EOF)
        return kw_cli_failf("writing the JSON document: out of memory or output error");
    return kw_cli_flush_stdout();
}
