/* kw_list_write.h: `kwalk list`'s rows (model/kw_list.h) as tab-separated
 * lines (NAME SYMBOL ARCHS LAUNCHES ENTRIES TU KIND CODE_OBJECTS, an empty
 * field "-") or as one JSON document (docs/json.md). */
#ifndef KW_LIST_WRITE_H
#define KW_LIST_WRITE_H

#include <stdbool.h>

#include "common/kw_buf.h"
#include "common/kw_err.h"
#include "common/kw_jansson.h"
#include "model/kw_list.h"

/* One line per row, appended to out. */
kw_status kw_list_write_tsv(const kw_list *l, kw_buf *out, kw_err *err);
/* {"kwalk_list": 1, "kernels": [...]}; *oom set when out of memory. */
json_t *kw_list_json(const kw_list *l, bool *oom);

#endif
