/* kw_entry.c: entry point names by kind, and shadowed `cxx` entries (see
 * kw_entry.h). */
#include "model/kw_entry.h"

#include <stdlib.h>
#include <string.h>

#include "common/kw_symmap.h"
#include "model/kw_node.h"

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
    /* host function key (kw_node.h) -> TU index (called: SIZE_MAX when from several) */
    kw_symmap bound, called;
    kw_symmap_init(&bound);
    kw_symmap_init(&called);
    kw_arena keys; /* the keys of a unit's own functions */
    kw_arena_init(&keys);
    bool ok = out != NULL;
    for (size_t t = 0; t < ix->tus.n && ok; t++) {
        const kw_index_tu *tu = &ix->tus.v[t];
        for (size_t i = 0; i < tu->entries.n && ok; i++) {
            const kw_entry *e = &tu->entries.v[i];
            if (!kw_kind_is(e, "cxx") && e->function_symbol)
                ok = kw_node_put(&bound, &keys, e->function_symbol, tu, t) == KW_OK;
        }
        for (size_t i = 0; i < tu->host_calls.n && ok; i++) {
            const kw_host_call *c = &tu->host_calls.v[i];
            if (!c->callee || (c->caller && !strcmp(c->caller, c->callee)))
                continue;
            size_t *prev = kw_node_get(&called, c->callee, tu);
            if (!prev)
                ok = kw_node_put(&called, &keys, c->callee, tu, t) == KW_OK;
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
            const char *fs = e->function_symbol;
            if (!kw_kind_is(e, "cxx") || !fs)
                continue;
            size_t *c = kw_node_get(&called, fs, tu);
            out[k] = kw_node_get(&bound, fs, tu) || (c && *c != t) || kw_node_get(&seen, fs, tu);
            if (!out[k])
                ok = kw_node_put(&seen, &keys, fs, tu, t) == KW_OK;
        }
    }
    kw_symmap_free(&seen);
    kw_symmap_free(&bound);
    kw_symmap_free(&called);
    kw_arena_free(&keys);
    if (!ok) {
        free(out);
        return NULL;
    }
    return out;
}
