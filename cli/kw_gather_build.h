/* kw_gather_build.h: the index `kwalk index` writes from the sidecars
 * found (kw_gather.h) and the Triton cache folders (kw_gather_triton.h):
 * the SQLite database, updated incrementally (kw_index.h,
 * docs/index-schema.md), or the YAML export. Sidecars are parsed on a few
 * threads (common/kw_pool.h) and added in the order found, so the index does
 * not depend on the thread count; a schema 2 sidecar's listings are read
 * back from its object (under --map-prefix) as it is parsed. */
#ifndef KW_GATHER_BUILD_H
#define KW_GATHER_BUILD_H

#include <stdbool.h>

#include "cli/kw_gather.h"
#include "cli/kw_gather_triton.h"

/* Whether a file name asks for the YAML export: *.yaml and *.yml. */
bool kw_gather_yaml_name(const char *path);
/* The index of f and tc written as YAML to out; the exit status. */
int kw_gather_build_yaml(const kw_found *f, const kw_tcache *tc, const char *out);
/* The database out updated to hold f and tc; the exit status. */
int kw_gather_build_db(const kw_found *f, const kw_tcache *tc, const char *out);
/* `kwalk index --db FILE -o OUT.yaml`: the index FILE as YAML. */
int kw_gather_export(const char *from, const char *out);

#endif
