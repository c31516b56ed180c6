/* kw_cli_json.h: the --json output of the subcommands (list, map, isa,
 * trace): one JSON document built with jansson (common/kw_jansson.h) and
 * written to stdout. Shapes: docs/json.md. */
#ifndef KW_CLI_JSON_H
#define KW_CLI_JSON_H

#include <stdbool.h>

#include "common/kw_err.h"
#include "common/kw_jansson.h"

/* Write doc (and a line feed) to stdout and release it; oom: building it ran
 * out of memory (reported instead). Returns the exit status. */
int kw_cli_json_print(json_t *doc, bool oom);

/* A YAML document kwalk wrote (a sidecar's shape: `isa --format yaml`) as
 * the equal JSON value, read with libyaml: mappings, sequences, aliases of
 * anchored nodes; a quoted scalar is a string, a plain one null (~, null),
 * a boolean (true, false), an integer (decimal or 0x hex), a real, else a
 * string: YAML's core schema, as PyYAML reads kwalk's files. NULL with err set
 * on a parse error or when out of memory; name is used in messages. */
json_t *kw_cli_json_of_yaml(const char *name, const char *text, size_t len, kw_err *err);

#endif
