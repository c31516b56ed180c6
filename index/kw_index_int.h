/* kw_index_int.h: internal interface of the index module, shared by its .c
 * files only (and the index's white-box tests). */
#ifndef KW_INDEX_INT_H
#define KW_INDEX_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "index/kw_index.h"
#include "sidecar/kw_schema.h"

extern const kw_type kw_t_index; /* the index's fields after kwalk_index and kwalk_schema */
/* Fill ix->by_symbol from ix->kernels; a symbol twice is an error. */
kw_status kw_index_build_map(kw_index *ix, const char *name, kw_err *err);

#endif
