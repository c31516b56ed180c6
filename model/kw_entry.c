/* kw_entry.c: entry point names by kind, and shadowed `cxx` entries (see
 * kw_entry.h). */
#include "model/kw_entry.h"

#include <stdlib.h>
#include <string.h>

#include "common/kw_symmap.h"

static bool kw_kind_is(const kw_entry *e, const char *k) {
    return e->kind && !strcmp(e->kind, k);
}

const char *kw_entry_word(const kw_entry *e) {
    if (kw_kind_is(e, "pybind"))
        return "pybind11";
    if (kw_kind_is(e, "torch"))
        return "TORCH_LIBRARY";
    if (kw_kind_is(e, "cxx"))
        return "C++ function";
    if (kw_kind_is(e, "annotated"))
        return "annotated C++ function";
    return "extern \"C\"";
}

const char *kw_entry_label(kw_arena *a, const kw_entry *e) {
    const char *n = e->name ? e->name : e->function ? e->function : "?";
    if (kw_kind_is(e, "pybind"))
        return kw_arena_printf(a, "%s.%s", e->module ? e->module : "?", n);
    if (kw_kind_is(e, "torch") && e->module)
        return kw_arena_printf(a, "%s::%s", e->module, n);
    return n;
}

bool kw_entry_binds(const kw_entry *e) {
    return kw_kind_is(e, "pybind") || kw_kind_is(e, "torch");
}

bool *kw_entries_shadowed(const kw_index *ix) {
    size_t n = 0;
    for (size_t t = 0; t < ix->tus.n; t++)
        n += ix->tus.v[t].entries.n;
    bool *out = calloc(n + 1, sizeof(bool));
    kw_symmap bound, called; /* symbol -> TU index (called: SIZE_MAX when from several) */
    kw_symmap_init(&bound);
    kw_symmap_init(&called);
    bool ok = out != NULL;
    for (size_t t = 0; t < ix->tus.n && ok; t++) {
        const kw_index_tu *tu = &ix->tus.v[t];
        for (size_t i = 0; i < tu->entries.n && ok; i++) {
            const kw_entry *e = &tu->entries.v[i];
            if (!kw_kind_is(e, "cxx") && e->function_symbol)
                ok = kw_symmap_put(&bound, e->function_symbol, t) == KW_OK;
        }
        for (size_t i = 0; i < tu->host_calls.n && ok; i++) {
            const kw_host_call *c = &tu->host_calls.v[i];
            if (!c->callee || (c->caller && !strcmp(c->caller, c->callee)))
                continue;
            size_t *prev = kw_symmap_get(&called, c->callee);
            if (!prev)
                ok = kw_symmap_put(&called, c->callee, t) == KW_OK;
            else if (*prev != t)
                *prev = (size_t)-1; /* called from several TUs */
        }
    }
    /* An inline function of a header is a cxx entry of every TU that has it:
     * the first one stands for all. */
    kw_symmap seen;
    kw_symmap_init(&seen);
    size_t k = 0;
    for (size_t t = 0; t < ix->tus.n && ok; t++) {
        const kw_index_tu *tu = &ix->tus.v[t];
        for (size_t i = 0; i < tu->entries.n && ok; i++, k++) {
            const kw_entry *e = &tu->entries.v[i];
            if (!kw_kind_is(e, "cxx") || !e->function_symbol)
                continue;
            size_t *c = kw_symmap_get(&called, e->function_symbol);
            out[k] = kw_symmap_get(&bound, e->function_symbol) || (c && *c != t) ||
                     kw_symmap_get(&seen, e->function_symbol);
            if (!out[k])
                ok = kw_symmap_put(&seen, e->function_symbol, t) == KW_OK;
        }
    }
    kw_symmap_free(&seen);
    kw_symmap_free(&bound);
    kw_symmap_free(&called);
    if (!ok) {
        free(out);
        return NULL;
    }
    return out;
}
