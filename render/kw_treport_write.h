/* kw_treport_write.h: the report of `kwalk trace` (model/kw_treport.h) as
 * text, the default (docs/trace.md); render/kw_treport_json.h writes it as
 * JSON, trace/kw_treport_yaml.h as YAML. */
#ifndef KW_TREPORT_WRITE_H
#define KW_TREPORT_WRITE_H

#include "common/kw_buf.h"
#include "model/kw_treport.h"

/* The summary line, then per row: instantiations (by total time), ambiguous
 * names with their candidates, names not in the index; appended to o. */
void kw_treport_write_text(const kw_treport *rep, kw_buf *o);

#endif
