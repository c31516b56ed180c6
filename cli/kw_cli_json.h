/* kw_cli_json.h: the --json output of the subcommands (list, map, isa,
 * trace): one JSON document built with jansson (common/kw_jansson.h) and
 * written to stdout. Shapes: docs/json.md. */
#ifndef KW_CLI_JSON_H
#define KW_CLI_JSON_H

#include <stdbool.h>

#include "common/kw_jansson.h"

/* Write doc (and a line feed) to stdout and release it; oom: building it ran
 * out of memory (reported instead). Returns the exit status. */
int kw_cli_json_print(json_t *doc, bool oom);

#endif
