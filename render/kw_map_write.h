/* kw_map_write.h: `kwalk map`'s rows (model/kw_map.h) as a Markdown table
 * or as tab-separated fields (docs/render.md); render/kw_map_json.h writes
 * them as JSON. */
#ifndef KW_MAP_WRITE_H
#define KW_MAP_WRITE_H

#include <stdbool.h>

#include "common/kw_buf.h"
#include "common/kw_err.h"
#include "model/kw_map.h"
#include "render/kw_map_link.h"
#include "render/kw_render.h"

/* The table, the Python calls not resolved statically (with the chains)
 * and the Python ops bound to no entry point, appended to b by the
 * printer: Markdown (`kwalk map`) or HTML (the body of `kwalk site`'s
 * map.html, its code spans linked by links; NULL: none). Paths relative to
 * root (NULL: as recorded). */
kw_status kw_map_write_md(kw_map *m, const char *root, kw_r_printer printer,
                          const kw_map_links *links, kw_buf *b, kw_err *err);
/* The same rows as TSV: KERNEL INSTANTIATIONS PYTHON PYOP ENTRY_KIND ENTRY
 * ENTRY_AT LAUNCH DEVICE FUNCTORS CALLERS [MODEL], then the `@unresolved`
 * and `@left-out` rows (with the chains). */
kw_status kw_map_write_tsv(kw_map *m, const char *root, kw_buf *b, kw_err *err);

#endif
