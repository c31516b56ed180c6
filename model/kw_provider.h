/* kw_provider.h: which stack a source file belongs to (aiter, CK, atom, ...,
 * or user code), by the path patterns of annotations/providers/ (.txt files). */
#ifndef KW_PROVIDER_H
#define KW_PROVIDER_H

#include "model/kw_annot.h"

typedef struct kw_provider_rule {
    const char *pattern;  /* fnmatch pattern, '*' matching '/' too */
    const char *provider;
} kw_provider_rule;

typedef struct kw_providers {
    kw_arena arena;
    KW_ARRAY(kw_provider_rule) rules; /* first match wins */
} kw_providers;

kw_status kw_providers_load(kw_providers *p, const kw_annot *a, kw_err *err);
void kw_providers_free(kw_providers *p);
/* The provider of path: the first matching rule's, else "user". */
const char *kw_provider_of(const kw_providers *p, const char *path);

#endif
