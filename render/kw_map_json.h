/* kw_map_json.h: `kwalk map --json`: the map's rows (model/kw_map.h) as one
 * JSON document (docs/json.md). */
#ifndef KW_MAP_JSON_H
#define KW_MAP_JSON_H

#include "common/kw_buf.h"
#include "common/kw_err.h"
#include "model/kw_map.h"

/* {"kwalk_map": 1, "rows": [...]} (with the chains, "unresolved" and
 * "unresolved_left_out" too), indented by two, and a line break, appended
 * to b. Paths relative to root (NULL: as recorded). */
kw_status kw_map_json(kw_map *m, const char *root, kw_buf *b, kw_err *err);

#endif
