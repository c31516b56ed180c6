/* kw_index_cache.h: the decode cache's file, a SQLite database outside the
 * index (docs/index-schema.md, "The decode cache"): records keyed by a code
 * object's MD5 (codeobj/kw_co_cache.h writes and reads them; this file only
 * keeps bytes under keys). Where: KWALK_CACHE (a file path; "off": none),
 * else ${XDG_CACHE_HOME:-$HOME/.cache}/kwalk/decoded.db. Opened at the first
 * use; a file that cannot be opened or written is no error: the cache is
 * then off for the process. Safe for several threads and processes (WAL,
 * one short transaction per record, SQLite's busy timeout). */
#ifndef KW_INDEX_CACHE_H
#define KW_INDEX_CACHE_H

#include <stdbool.h>
#include <stddef.h>

typedef struct kw_index_cache kw_index_cache;

/* The cache the environment names; NULL when it is off (KWALK_CACHE=off, no
 * home folder) or out of memory. Nothing is opened yet. Every key is stored
 * under the namespace ns (the program that decodes: records of another
 * build of it are not read). */
kw_index_cache *kw_index_cache_new(const char *ns);
void kw_index_cache_free(kw_index_cache *c);
/* The file (NULL when off). */
const char *kw_index_cache_path(const kw_index_cache *c);

/* The bytes stored under key, malloc'd (the caller frees them); false when
 * none or the cache is off. */
bool kw_index_cache_get(void *c, const char *key, unsigned char **data, size_t *n);
/* Store bytes under key (replacing); failures leave the cache as it was. */
void kw_index_cache_put(void *c, const char *key, const unsigned char *data, size_t n);

#endif
