/* kw_map_unresolved.c: the unresolved Python calls after `kwalk map`'s rows
 * (see kw_map_unresolved.h). The calls listed are the helper's `@unresolved`
 * rows of the ops the map shows. What is left out is said once: the calls
 * no op lists (`@unreached`, by the helper's reason) and the calls listed
 * only for ops that have no row in this map (counted once each, though
 * several such ops may list one call: the map's model counts them,
 * model/kw_map.h). Written by the page's printer (render/kw_r.c). Includes
 * nothing of sidecar/ or index/. */
#include "render/kw_map_unresolved.h"

#include <string.h>

#include "common/kw_fs.h"
#include "render/kw_md.h"

enum { KW_MU_SHOWN = 8 }; /* calls listed per op in Markdown */

const char *kw_map_unres_path(const char *root, const char *path) {
    return kw_fs_rel(root, path);
}

static const char kw_mu_elsewhere_why[] = "that could lead only to ops with no row in this map";

static size_t kw_mu_listed(const kw_map_unres *u, size_t op) {
    size_t n = 0;
    for (size_t i = 0; i < u->pc->unresolved.n; i++)
        n += u->pc->unresolved.v[i].op == op;
    return n;
}

/* "N call(s) REASON; ..." of the calls left out, into the open paragraph. */
static void kw_mu_left_md(const kw_map_unres *u, kw_render *r) {
    const char *sep = "";
    for (size_t i = 0; i < u->pc->unreached.n; i++) {
        const kw_py_unreached *d = &u->pc->unreached.v[i];
        kw_r_tf(r, "%s%zu call%s ", sep, d->count, d->count == 1 ? "" : "s");
        kw_md_text(r->out, d->reason, kw_r_prose_in(r));
        sep = "; ";
    }
    if (u->elsewhere)
        kw_r_tf(r, "%s%zu call%s %s", sep, u->elsewhere, u->elsewhere == 1 ? "" : "s",
                kw_mu_elsewhere_why);
}

/* A code span of an item. */
static void kw_mu_code(const kw_map_unres *u, kw_render *r, const char *s) {
    kw_map_link_code(r, u->links, s, kw_r_prose_in(r));
}

static void kw_mu_op_md(const kw_map_unres *u, kw_render *r, size_t op, size_t listed) {
    kw_r_item(r, 0);
    kw_mu_code(u, r, u->pc->ops.v[op].name);
    kw_r_tf(r, ": %zu listed", listed);
    for (size_t i = 0, k = 0; i < u->pc->unresolved.n && k < KW_MU_SHOWN; i++) {
        const kw_py_unresolved *c = &u->pc->unresolved.v[i];
        if (c->op != op)
            continue;
        char *at = kw_arena_printf(u->arena, "%s:%d", kw_map_unres_path(u->root, c->file), c->line);
        kw_r_item(r, 1);
        kw_mu_code(u, r, c->function);
        kw_r_t(r, " ");
        kw_mu_code(u, r, at ? at : "?");
        kw_r_t(r, " calls ");
        kw_mu_code(u, r, c->callee);
        kw_r_t(r, " (");
        kw_md_text(r->out, c->why, kw_r_prose_in(r));
        kw_r_t(r, "), may name ");
        kw_mu_code(u, r, c->names);
        k++;
    }
    if (listed > KW_MU_SHOWN) {
        kw_r_item(r, 1);
        kw_r_tf(r, "and %zu more", listed - KW_MU_SHOWN);
    }
}

void kw_map_unres_md(const kw_map_unres *u, kw_render *r) {
    size_t any = 0;
    for (size_t s = 0; s < u->nops; s++) {
        size_t listed = kw_mu_listed(u, u->ops[s]);
        if (!listed)
            continue;
        if (!any++) {
            kw_r_para(r, "Calls not resolved statically that could lead to the ops above "
                         "(listed, never followed; python/kwalk_pyscan.py):");
            kw_r_list(r);
        }
        kw_mu_op_md(u, r, u->ops[s], listed);
    }
    if (any) {
        kw_r_list_end(r);
        kw_r_gap(r);
    }
    size_t left = u->elsewhere;
    for (size_t i = 0; i < u->pc->unreached.n; i++)
        left += u->pc->unreached.v[i].count;
    if (!left)
        return;
    kw_r_p(r);
    kw_r_tf(r,
            "%zu %scall%s not resolved statically could lead to none of the ops above, left out: ",
            left, any ? "other " : "", left == 1 ? "" : "s");
    kw_mu_left_md(u, r);
    kw_r_t(r, ".");
    kw_r_p_end(r);
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
    if (u->elsewhere)
        kw_buf_printf(b, "@left-out\t%zu\t%s\n", u->elsewhere, kw_mu_elsewhere_why);
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
    if (u->elsewhere && left)
        kw_jansson_push(left, kw_mu_reason(u->elsewhere, kw_mu_elsewhere_why), oom);
    kw_jansson_set(doc, "unresolved", ops, oom);
    kw_jansson_set(doc, "unresolved_left_out", left, oom);
}
