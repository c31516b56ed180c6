/* kw_treport_yaml.h: the report of `kwalk trace` (model/kw_treport.h) as the
 * YAML document of `--format yaml` (docs/trace.md), through the one YAML
 * writer (sidecar/kw_yaml_emit.h: strings double-quoted, numbers and enum
 * words plain); render/kw_treport_json.h writes the same shape as JSON. */
#ifndef KW_TREPORT_YAML_H
#define KW_TREPORT_YAML_H

#include "common/kw_buf.h"
#include "common/kw_err.h"
#include "model/kw_treport.h"

/* The YAML document {kwalk_trace: 1, trace, format, ..., kernels,
 * ambiguous, unmatched} appended to o. */
kw_status kw_treport_yaml(const kw_treport *rep, kw_buf *o, kw_err *err);

#endif
