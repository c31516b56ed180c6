/* kw_decode_cache.h: the kwalk command's decode cache, plugged into
 * codeobj/ at start (kw_co_cache.h: a code object is disassembled once,
 * its record kept in index/kw_index_cache.h's file). With KWALK_CACHE_STATS
 * set, the process says on stderr at exit how many code objects it read from
 * the cache and how many it disassembled. */
#ifndef KW_DECODE_CACHE_H
#define KW_DECODE_CACHE_H

void kw_decode_cache_start(void);

#endif
