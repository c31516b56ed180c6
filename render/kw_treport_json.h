/* kw_treport_json.h: the report of `kwalk trace` (model/kw_treport.h) as one
 * JSON document: the YAML document's shape (docs/trace.md), the same keys,
 * numbers as numbers, null where the YAML has ~ (docs/json.md). */
#ifndef KW_TREPORT_JSON_H
#define KW_TREPORT_JSON_H

#include <stdbool.h>

#include "common/kw_jansson.h"
#include "model/kw_treport.h"

/* The document; *oom set when out of memory (the document may then be
 * NULL). */
json_t *kw_treport_json(const kw_treport *rep, bool *oom);

#endif
