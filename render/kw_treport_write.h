/* kw_treport_write.h: the report of `kwalk trace` (trace/kw_treport.h) as
 * text (the default) or as YAML through the one YAML writer (kw_yaml_emit.h:
 * strings double-quoted, numbers and enum words plain; docs/trace.md);
 * render/kw_treport_json.h writes the same shape as JSON. */
#ifndef KW_TREPORT_WRITE_H
#define KW_TREPORT_WRITE_H

#include "common/kw_buf.h"
#include "common/kw_err.h"
#include "trace/kw_treport.h"

/* The summary line, then per row: instantiations (by total time), ambiguous
 * names with their candidates, names not in the index; appended to o. */
void kw_treport_write_text(const kw_treport *rep, kw_buf *o);
/* The YAML document {kwalk_trace: 1, trace, format, ..., kernels,
 * ambiguous, unmatched} appended to o. */
kw_status kw_treport_write_yaml(const kw_treport *rep, kw_buf *o, kw_err *err);

#endif
