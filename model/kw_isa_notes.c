/* kw_isa_notes.c: reading and matching annotations/isa/notes.txt. */
#include "model/kw_isa_notes.h"

#include <string.h>

static kw_status kw_note_line(void *ctx, const kw_annot_line *l, kw_err *err) {
    kw_isa_notes *n = ctx;
    if (l->nwords < 2)
        return kw_fail(err, "annotations/%s:%d: expected 'PATTERN EXPLANATION'", l->file,
                       l->lineno);
    kw_isa_note *note = KW_PUSH(&n->arena, n->v);
    if (!note || !(note->pattern = kw_arena_strdup(&n->arena, l->word[0])) ||
        !(note->text = kw_arena_strdup(&n->arena, l->rest)))
        return kw_fail(err, "out of memory");
    size_t at = n->v.n - 1, len = strlen(note->pattern);
    if (len && note->pattern[len - 1] == '*') {
        size_t *slot = KW_PUSH(&n->arena, n->prefix);
        if (!slot)
            return kw_fail(err, "out of memory");
        *slot = at;
    } else if (!kw_symmap_get(&n->exact, note->pattern) &&
               kw_symmap_put(&n->exact, note->pattern, at) != KW_OK) {
        return kw_fail(err, "out of memory");
    }
    return KW_OK;
}

kw_status kw_isa_notes_load(kw_isa_notes *n, const kw_annot *a, kw_err *err) {
    memset(n, 0, sizeof(*n));
    kw_arena_init(&n->arena);
    for (size_t i = 0; i < a->files.n; i++)
        if (!strncmp(a->files.v[i].name, "isa/", 4) &&
            kw_annot_lines(&a->files.v[i], kw_note_line, n, err) != KW_OK)
            return KW_ERR;
    return KW_OK;
}

void kw_isa_notes_free(kw_isa_notes *n) {
    kw_symmap_free(&n->exact);
    kw_arena_free(&n->arena);
    memset(n, 0, sizeof(*n));
}

const char *kw_isa_note_for(const kw_isa_notes *n, const char *what) {
    /* the first match in file order: a prefix pattern before the exact one */
    const size_t *exact = kw_symmap_get(&n->exact, what);
    for (size_t i = 0; i < n->prefix.n && (!exact || n->prefix.v[i] < *exact); i++) {
        const char *p = n->v.v[n->prefix.v[i]].pattern;
        if (!strncmp(p, what, strlen(p) - 1))
            return n->v.v[n->prefix.v[i]].text;
    }
    return exact ? n->v.v[*exact].text : NULL;
}
