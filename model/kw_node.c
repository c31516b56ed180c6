/* kw_node.c: host call-graph node keys, per unit for a unit's own function
 * (see kw_node.h). */
#define _POSIX_C_SOURCE 200809L
#include "model/kw_node.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* Does nested name p (after "_ZN") name an internal entity in its leading
 * run of plain components: "2ns6detailL3runEv"? Stops at the first other
 * token (a template argument list, a substitution), so an enum literal's L
 * inside template arguments is never read as one. */
static bool kw_node_nested_internal(const char *p) {
    while (*p == 'r' || *p == 'V' || *p == 'K')
        p++; /* the member function's qualifiers */
    for (;;) {
        bool internal = *p == 'L';
        if (internal)
            p++;
        if (!isdigit((unsigned char)*p))
            return false;
        size_t n = 0;
        while (isdigit((unsigned char)*p) && n < 100000)
            n = n * 10 + (size_t)(*p++ - '0');
        if (internal)
            return true;
        if (strnlen(p, n) < n)
            return false;
        p += n;
    }
}

bool kw_node_is_local(const char *s) {
    if (!strcmp(s, "main"))
        return true;
    if (strncmp(s, "_Z", 2))
        return false; /* C linkage: one per program */
    if (strstr(s, "_GLOBAL__N") || strstr(s, "Z4mainE") || strstr(s, "$_"))
        return true;
    if (!strncmp(s, "_ZN", 3) && kw_node_nested_internal(s + 3))
        return true;
    for (const char *p = strstr(s, "ZL"); p; p = strstr(p + 1, "ZL"))
        if (isdigit((unsigned char)p[2]))
            return true; /* <local-name>'s Z or _Z, then L <source-name> */
    return false;
}

/* The unit's part of a key: its sidecar; NULL for a symbol shared by units. */
static const char *kw_node_unit(const char *symbol, const kw_index_tu *tu) {
    return tu && tu->sidecar && kw_node_is_local(symbol) ? tu->sidecar : NULL;
}

size_t *kw_node_get(const kw_symmap *map, const char *symbol, const kw_index_tu *tu) {
    if (!symbol)
        return NULL;
    const char *unit = kw_node_unit(symbol, tu);
    if (!unit)
        return kw_symmap_get(map, symbol);
    char *key = kw_kernel_key_buf(symbol, unit);
    size_t *at = key ? kw_symmap_get(map, key) : NULL;
    free(key);
    return at;
}

kw_status kw_node_put(kw_symmap *map, kw_arena *a, const char *symbol, const kw_index_tu *tu,
                      size_t value) {
    const char *unit = kw_node_unit(symbol, tu);
    const char *key = unit ? kw_kernel_key(a, symbol, unit) : symbol;
    return key ? kw_symmap_put(map, key, value) : KW_ERR;
}
