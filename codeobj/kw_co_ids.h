/* kw_co_ids.h: a page's short way to a code object's decode cache record
 * (model/kw_decode.c). The code objects of a file read by identity only
 * (target id, arch, bytes in place, whether they have line tables; no
 * symbol, metadata of a kernel or occupancy), enough to find the one a
 * sidecar names and check it by size and MD5 (kw_co_sidecar_find); then
 * its record taken from the store alone. When the store has none, the
 * caller opens the file with kw_co_open and decodes (kw_co_sidecar.h). */
#ifndef KW_CO_IDS_H
#define KW_CO_IDS_H

#include <stdbool.h>
#include <stddef.h>

#include "codeobj/kw_co_cache.h"
#include "codeobj/kw_codeobj.h"

/* As kw_co_open, each code object's kernels left empty (kernels.n 0). */
kw_status kw_co_open_ids(kw_co_set *set, const char *path, kw_err *err);

/* The store's record of obj, whose MD5 (hex) the caller checked: true and
 * *data (malloc'd, the caller frees it) opened in *r, for the number of
 * kernels the record gives (its key is the MD5: the same code object),
 * counted as read from the cache; false when there is no store, no record
 * or one that does not open (damaged, another form). */
bool kw_co_record_cached(const kw_co_object *obj, const char *md5, unsigned char **data,
                         kw_co_record *r);

#endif
