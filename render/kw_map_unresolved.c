/* kw_map_unresolved.c: the unresolved Python calls after `kwalk map`'s rows
 * (see kw_map_unresolved.h). The calls listed are the helper's `@unresolved`
 * rows of the ops the map shows. What is left out is said once: the calls
 * no op lists (`@unreached`, by the helper's reason) and the calls listed
 * only for ops that have no row in this map (counted once each, though
 * several such ops may list one call). */
#include "render/kw_map_unresolved.h"

#include <string.h>

#include "common/kw_fs.h"
#include "render/kw_md.h"
#include "common/kw_symmap.h"

enum { KW_MU_SHOWN = 8 }; /* calls listed per op in Markdown */

const char *kw_map_unres_path(const char *root, const char *path) {
    return kw_fs_rel(root, path);
}

static bool kw_mu_shown(const kw_map_unres *u, size_t op) {
    for (size_t i = 0; i < u->nops; i++)
        if (u->ops[i] == op)
            return true;
    return false;
}

/* One call as a key: function, file, line and callee. NULL: out of memory. */
static char *kw_mu_key(const kw_map_unres *u, const kw_py_unresolved *c) {
    return kw_arena_printf(u->arena, "%s\x1f%s\x1f%d\x1f%s", c->function, c->file, c->line,
                           c->callee);
}

/* How many calls are listed only for ops without a row here, each once;
 * (size_t)-1 when out of memory. */
static size_t kw_mu_elsewhere(const kw_map_unres *u) {
    const kw_py_chains *pc = u->pc;
    kw_symmap seen; /* 0: listed for a shown op; 1: counted */
    kw_symmap_init(&seen);
    size_t n = 0;
    bool oom = false;
    for (int pass = 0; pass < 2 && !oom; pass++)
        for (size_t i = 0; i < pc->unresolved.n && !oom; i++) {
            const kw_py_unresolved *c = &pc->unresolved.v[i];
            if (kw_mu_shown(u, c->op) != (pass == 0))
                continue;
            char *key = kw_mu_key(u, c);
            if (!key) {
                oom = true;
                break;
            }
            if (kw_symmap_get(&seen, key))
                continue;
            oom = kw_symmap_put(&seen, key, (size_t)pass) != KW_OK;
            n += pass == 1;
        }
    kw_symmap_free(&seen);
    return oom ? (size_t)-1 : n;
}

static const char kw_mu_elsewhere_why[] = "that could lead only to ops with no row in this map";

static size_t kw_mu_listed(const kw_map_unres *u, size_t op) {
    size_t n = 0;
    for (size_t i = 0; i < u->pc->unresolved.n; i++)
        n += u->pc->unresolved.v[i].op == op;
    return n;
}

/* "N call(s) REASON; ..." of the calls left out into b; their number. */
static size_t kw_mu_left_md(const kw_map_unres *u, size_t elsewhere, kw_buf *reasons) {
    size_t total = 0;
    const char *sep = "";
    for (size_t i = 0; i < u->pc->unreached.n; i++) {
        const kw_py_unreached *d = &u->pc->unreached.v[i];
        kw_buf_printf(reasons, "%s%zu call%s ", sep, d->count, d->count == 1 ? "" : "s");
        kw_md_text(reasons, d->reason, false);
        total += d->count;
        sep = "; ";
    }
    if (elsewhere)
        kw_buf_printf(reasons, "%s%zu call%s %s", sep, elsewhere, elsewhere == 1 ? "" : "s",
                      kw_mu_elsewhere_why);
    return total + elsewhere;
}

static void kw_mu_op_md(const kw_map_unres *u, kw_buf *b, size_t op, size_t listed) {
    kw_buf_puts(b, "- ");
    kw_md_code(b, u->pc->ops.v[op].name, false);
    kw_buf_printf(b, ": %zu listed\n", listed);
    for (size_t i = 0, k = 0; i < u->pc->unresolved.n && k < KW_MU_SHOWN; i++) {
        const kw_py_unresolved *c = &u->pc->unresolved.v[i];
        if (c->op != op)
            continue;
        char *at = kw_arena_printf(u->arena, "%s:%d", kw_map_unres_path(u->root, c->file), c->line);
        kw_buf_puts(b, "  - ");
        kw_md_code(b, c->function, false);
        kw_buf_putc(b, ' ');
        kw_md_code(b, at ? at : "?", false);
        kw_buf_puts(b, " calls ");
        kw_md_code(b, c->callee, false);
        kw_buf_puts(b, " (");
        kw_md_text(b, c->why, false);
        kw_buf_puts(b, "), may name ");
        kw_md_code(b, c->names, false);
        kw_buf_putc(b, '\n');
        k++;
    }
    if (listed > KW_MU_SHOWN)
        kw_buf_printf(b, "  - and %zu more\n", listed - KW_MU_SHOWN);
}

void kw_map_unres_md(const kw_map_unres *u, kw_buf *b) {
    size_t any = 0;
    for (size_t s = 0; s < u->nops; s++) {
        size_t listed = kw_mu_listed(u, u->ops[s]);
        if (!listed)
            continue;
        if (!any++)
            kw_buf_puts(b, "\nCalls not resolved statically that could lead to the ops above "
                           "(listed, never followed; python/kwalk_pyscan.py):\n\n");
        kw_mu_op_md(u, b, u->ops[s], listed);
    }
    size_t elsewhere = kw_mu_elsewhere(u);
    if (elsewhere == (size_t)-1) {
        b->oom = true;
        return;
    }
    kw_buf reasons;
    kw_buf_init(&reasons);
    size_t left = kw_mu_left_md(u, elsewhere, &reasons);
    if (left)
        kw_buf_printf(b,
                      "\n%zu %scall%s not resolved statically could lead to none of the ops "
                      "above, left out: %s.\n",
                      left, any ? "other " : "", left == 1 ? "" : "s", kw_buf_str(&reasons));
    b->oom = b->oom || reasons.oom;
    kw_buf_free(&reasons);
}

/* A TSV field: tabs and line breaks as spaces. */
static void kw_mu_tsv(kw_buf *b, const char *s) {
    for (; s && *s; s++)
        kw_buf_putc(b, (*s == '\t' || *s == '\n' || *s == '\r') ? ' ' : *s);
}

void kw_map_unres_tsv(const kw_map_unres *u, kw_buf *b) {
    for (size_t s = 0; s < u->nops; s++)
        for (size_t i = 0; i < u->pc->unresolved.n; i++) {
            const kw_py_unresolved *c = &u->pc->unresolved.v[i];
            if (c->op != u->ops[s])
                continue;
            const char *f[6] = {u->pc->ops.v[c->op].name,
                                c->function,
                                kw_map_unres_path(u->root, c->file),
                                c->callee,
                                c->why,
                                c->names};
            kw_buf_puts(b, "@unresolved");
            for (int k = 0; k < 6; k++) {
                kw_buf_putc(b, '\t');
                kw_mu_tsv(b, f[k]);
                if (k == 2)
                    kw_buf_printf(b, ":%d", c->line);
            }
            kw_buf_putc(b, '\n');
        }
    for (size_t i = 0; i < u->pc->unreached.n; i++) {
        kw_buf_printf(b, "@left-out\t%zu\t", u->pc->unreached.v[i].count);
        kw_mu_tsv(b, u->pc->unreached.v[i].reason);
        kw_buf_putc(b, '\n');
    }
    size_t elsewhere = kw_mu_elsewhere(u);
    if (elsewhere == (size_t)-1)
        b->oom = true;
    else if (elsewhere)
        kw_buf_printf(b, "@left-out\t%zu\t%s\n", elsewhere, kw_mu_elsewhere_why);
}

static json_t *kw_mu_at(const kw_map_unres *u, const char *file, int line) {
    return json_pack("{s:o, s:i}", "file", kw_jansson_text(kw_map_unres_path(u->root, file)),
                     "line", line);
}

/* "a.f, b.g" as a JSON list of names. */
static json_t *kw_mu_names(const char *names, bool *oom) {
    json_t *a = json_array();
    for (const char *p = names; a && p && *p;) {
        const char *q = strstr(p, ", ");
        size_t n = q ? (size_t)(q - p) : strlen(p);
        json_t *s = json_stringn(p, n);
        kw_jansson_push(a, s ? s : kw_jansson_text("?"), oom);
        p = q ? q + 2 : NULL;
    }
    if (!a)
        *oom = true;
    return a;
}

static json_t *kw_mu_op_json(const kw_map_unres *u, size_t op, bool *oom) {
    const kw_py_opdef *d = &u->pc->ops.v[op];
    json_t *o = kw_mu_at(u, d->file, d->line), *calls = json_array();
    if (o)
        kw_jansson_set(o, "op", kw_jansson_text(d->name), oom);
    for (size_t i = 0; calls && i < u->pc->unresolved.n; i++) {
        const kw_py_unresolved *c = &u->pc->unresolved.v[i];
        if (c->op != op)
            continue;
        json_t *x = kw_mu_at(u, c->file, c->line);
        if (x) {
            kw_jansson_set(x, "function", kw_jansson_text(c->function), oom);
            kw_jansson_set(x, "callee", kw_jansson_text(c->callee), oom);
            kw_jansson_set(x, "why", kw_jansson_text(c->why), oom);
            kw_jansson_set(x, "names", kw_mu_names(c->names, oom), oom);
        }
        kw_jansson_push(calls, x, oom);
    }
    if (o)
        kw_jansson_set(o, "calls", calls, oom);
    else
        json_decref(calls);
    return o;
}

static json_t *kw_mu_reason(size_t count, const char *reason) {
    return json_pack("{s:I, s:o}", "count", (json_int_t)count, "reason", kw_jansson_text(reason));
}

void kw_map_unres_json(const kw_map_unres *u, json_t *doc, bool *oom) {
    json_t *ops = json_array(), *left = json_array();
    for (size_t s = 0; ops && s < u->nops; s++)
        kw_jansson_push(ops, kw_mu_op_json(u, u->ops[s], oom), oom);
    for (size_t i = 0; left && i < u->pc->unreached.n; i++)
        kw_jansson_push(
            left, kw_mu_reason(u->pc->unreached.v[i].count, u->pc->unreached.v[i].reason), oom);
    size_t elsewhere = kw_mu_elsewhere(u);
    if (elsewhere == (size_t)-1)
        *oom = true;
    else if (elsewhere && left)
        kw_jansson_push(left, kw_mu_reason(elsewhere, kw_mu_elsewhere_why), oom);
    kw_jansson_set(doc, "unresolved", ops, oom);
    kw_jansson_set(doc, "unresolved_left_out", left, oom);
}
