/* kw_map_write.h: `kwalk map`'s rows (model/kw_map.h) as a Markdown table
 * or as tab-separated fields (docs/render.md); render/kw_map_json.h writes
 * them as JSON. */
#ifndef KW_MAP_WRITE_H
#define KW_MAP_WRITE_H

#include <stdbool.h>

#include "common/kw_buf.h"
#include "common/kw_err.h"
#include "model/kw_map.h"

/* The table (GFM; with html, its cells as HTML for `kwalk site`'s map
 * page), the Python calls not resolved statically (with the chains) and
 * the Python ops bound to no entry point, appended to b. Paths relative to
 * root (NULL: as recorded). */
kw_status kw_map_write_md(kw_map *m, const char *root, bool html, kw_buf *b, kw_err *err);
/* The same rows as TSV: KERNEL INSTANTIATIONS PYTHON PYOP ENTRY_KIND ENTRY
 * ENTRY_AT LAUNCH DEVICE FUNCTORS CALLERS [MODEL], then the `@unresolved`
 * and `@left-out` rows (with the chains). */
kw_status kw_map_write_tsv(kw_map *m, const char *root, kw_buf *b, kw_err *err);

#endif
