/* kw_decode_cache.c: the decode cache of the kwalk command (see
 * kw_decode_cache.h). */
#define _POSIX_C_SOURCE 200809L
#include "cli/kw_decode_cache.h"

#include <stdbool.h>

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "codeobj/kw_co_cache.h"
#include "index/kw_index_cache.h"

static kw_index_cache *kw_decode_file;
static kw_co_cache_store kw_decode_store;

static void kw_decode_cache_stop(void) {
    unsigned long hits, decoded;
    kw_co_cache_counts(&hits, &decoded);
    if (getenv("KWALK_CACHE_STATS"))
        fprintf(stderr,
                "kwalk: decode cache: %lu code objects from the cache, %lu decoded, %lu kernel "
                "entries read\n",
                hits, decoded, kw_co_cache_entries());
    kw_co_cache_use(NULL);
    kw_index_cache_free(kw_decode_file);
    kw_decode_file = NULL;
}

/* What decodes: this kwalk executable and the libLLVM it opens, each by
 * size and modification time (a rebuilt kwalk, or another LLVM, may list a
 * code object otherwise: its records are not read). */
static void kw_decode_namespace(char *ns, size_t n) {
    struct stat a, b;
    const char *lib = kw_co_llvm_library();
    bool ha = stat("/proc/self/exe", &a) == 0, hb = stat(lib, &b) == 0;
    snprintf(ns, n, "kwalk:%lld.%lld.%ld;%s:%lld.%lld.%ld", ha ? (long long)a.st_size : -1LL,
             ha ? (long long)a.st_mtim.tv_sec : 0LL, ha ? a.st_mtim.tv_nsec : 0L, lib,
             hb ? (long long)b.st_size : -1LL, hb ? (long long)b.st_mtim.tv_sec : 0LL,
             hb ? b.st_mtim.tv_nsec : 0L);
}

void kw_decode_cache_start(void) {
    char ns[1024];
    kw_decode_namespace(ns, sizeof ns);
    kw_decode_file = kw_index_cache_new(ns);
    if (kw_decode_file) {
        kw_decode_store.get = kw_index_cache_get;
        kw_decode_store.put = kw_index_cache_put;
        kw_decode_store.ctx = kw_decode_file;
        kw_co_cache_use(&kw_decode_store);
    }
    atexit(kw_decode_cache_stop);
}
