/* kw_provider.c: provider path patterns (see kw_provider.h). */
#define _POSIX_C_SOURCE 200809L
#include "model/kw_provider.h"

#include <fnmatch.h>
#include <string.h>

static kw_status kw_provider_line(void *ctx, const kw_annot_line *l, kw_err *err) {
    kw_providers *p = ctx;
    if (l->nwords != 2)
        return kw_fail(err, "annotations/%s:%d: expected 'PATTERN PROVIDER'", l->file, l->lineno);
    kw_provider_rule *r = KW_PUSH(&p->arena, p->rules);
    if (!r || !(r->pattern = kw_arena_strdup(&p->arena, l->word[0])) ||
        !(r->provider = kw_arena_strdup(&p->arena, l->word[1])))
        return kw_fail(err, "out of memory");
    return KW_OK;
}

kw_status kw_providers_load(kw_providers *p, const kw_annot *a, kw_err *err) {
    memset(p, 0, sizeof(*p));
    kw_arena_init(&p->arena);
    for (size_t i = 0; i < a->files.n; i++)
        if (!strncmp(a->files.v[i].name, "providers/", 10) &&
            kw_annot_lines(&a->files.v[i], kw_provider_line, p, err) != KW_OK)
            return KW_ERR;
    return KW_OK;
}

void kw_providers_free(kw_providers *p) {
    kw_arena_free(&p->arena);
    memset(p, 0, sizeof(*p));
}

const char *kw_provider_of(const kw_providers *p, const char *path) {
    if (path)
        for (size_t i = 0; i < p->rules.n; i++)
            if (fnmatch(p->rules.v[i].pattern, path, 0) == 0)
                return p->rules.v[i].provider;
    return "user";
}
