/* kw_map_json.c: `kwalk map --json`: the rows (model/kw_map.h) as one
 * JSON document written with jansson (docs/json.md): {"kwalk_map": 1,
 * "rows": [...]}, a row per map row and Python op bound to its entry; with
 * the chains, the Python calls not resolved statically after them
 * (kw_map_unresolved.h). Every line is the map's model, complete
 * (model/kw_map.h): this file looks nothing up and includes nothing of
 * sidecar/ or index/. */
#define _POSIX_C_SOURCE 200809L
#include "render/kw_map_json.h"

#include <stdlib.h>
#include <string.h>

#include "common/kw_jansson.h"
#include "render/kw_map_unresolved.h"

typedef struct kw_map_j {
    kw_map *map;
    const char *root; /* --root: paths relative to it */
    json_t *rows;     /* the rows so far */
    bool oom;
} kw_map_j;

static const char *kw_map_path(const kw_map_j *m, const char *path) {
    return kw_map_unres_path(m->root, path);
}

static json_t *kw_mj_at(const kw_map_j *m, const char *file, int line) {
    return json_pack("{s:o, s:i}", "file", kw_jansson_text(kw_map_path(m, file)), "line", line);
}

/* The op's public callers, model entries (NULL without chains) or a Triton
 * launch's frames, as JSON lists. */
static json_t *kw_mj_callers(kw_map_j *m, const kw_py_op *op) {
    json_t *a = json_array();
    for (size_t i = 0; a && op && i < op->callers.n; i++) {
        const kw_py_caller *c = &op->callers.v[i];
        json_t *o = kw_mj_at(m, c->file, c->def_line);
        if (o) {
            kw_jansson_set(o, "name", kw_jansson_text(c->name), &m->oom);
            kw_jansson_set(o, "via", kw_jansson_text(c->via), &m->oom);
        }
        kw_jansson_push(a, o, &m->oom);
    }
    return a;
}

/* The model entries of a line: its chains' outermost callers. */
static json_t *kw_mj_model(kw_map_j *m, const kw_map_line *ln) {
    const kw_py_chains *pc = m->map->chains;
    json_t *a = json_array();
    for (size_t i = 0; a && i < ln->nchains; i++) {
        const kw_py_chain *c = &pc->v.v[ln->chains[i]];
        json_t *o = kw_mj_at(m, c->entry_file, c->entry_line);
        if (o)
            kw_jansson_set(o, "name", kw_jansson_text(c->entry), &m->oom);
        kw_jansson_push(a, o, &m->oom);
    }
    return a;
}

static json_t *kw_mj_crossings(kw_map_j *m, const kw_map_line *ln) {
    json_t *a = json_array();
    for (size_t i = 0; a && i < ln->crossings.n; i++) {
        const kw_py_frame *f = ln->crossings.v[i];
        json_t *o = kw_mj_at(m, f->file, f->line);
        if (o)
            kw_jansson_set(o, "name", kw_jansson_text(f->function), &m->oom);
        kw_jansson_push(a, o, &m->oom);
    }
    return a;
}

static json_t *kw_mj_frames(kw_map_j *m, const kw_launch *l) {
    json_t *a = json_array();
    for (size_t i = 0; a && i < l->call_chain.n; i++) {
        const kw_chain_link *c = &l->call_chain.v[i];
        json_t *o = kw_mj_at(m, c->location.file, c->location.line);
        if (o)
            kw_jansson_set(o, "name", kw_jansson_text(c->function), &m->oom);
        kw_jansson_push(a, o, &m->oom);
    }
    return a;
}

/* One row as a JSON object (docs/json.md), appended to m->rows. */
static void kw_map_row_json(kw_map_j *m, const kw_map_line *ln) {
    const kw_model *md = m->map->model;
    const kw_map_row *r = ln->row;
    const kw_py_op *op = ln->op;
    const kw_mgroup *grp = &md->groups.v[r->group];
    const kw_mkernel *first = ln->first;
    const kw_entry *e = ln->entry;
    bool triton = ln->triton;
    bool *oom = &m->oom;
    json_t *o = json_object();
    if (!o) {
        *oom = true;
        return;
    }
    kw_jansson_set(o, "kernel", kw_jansson_text(grp->key), oom);
    kw_jansson_set(o, "kind",
                   json_string(triton                                ? "triton"
                               : !first->k && first->asm_code_object ? "asm"
                                                                     : "hip"),
                   oom);
    if (first->is_asm && strcmp(first->name, grp->key)) /* an ASM kernel's demangled name */
        kw_jansson_set(o, "demangled", kw_jansson_text(first->name), oom);
    kw_jansson_set(o, "instantiations", json_integer((json_int_t)r->count), oom);
    if (r->v != KW_KV_NONE) /* --shape */
        kw_jansson_set(o, "shape", json_string(r->v == KW_KV_HOLDS ? "selected" : "candidate"),
                       oom);
    kw_jansson_set(o, "functors", kw_jansson_text(r->functors), oom);
    json_t *py = json_null();
    if (triton) { /* the launching function, at the launch, and the recorded frames */
        const kw_launch *l = r->launch->l;
        py = kw_mj_at(m, l->location.file, l->location.line);
        if (py) {
            kw_jansson_set(py, "function", kw_jansson_text(l->function), oom);
            kw_jansson_set(py, "callers", kw_mj_frames(m, l), oom);
        }
    } else if (op) {
        py = kw_mj_at(m, op->file, op->def_line);
        if (py) {
            kw_jansson_set(py, "function", kw_jansson_text(op->def_name), oom);
            kw_jansson_set(py, "callers", kw_mj_callers(m, op), oom);
        }
    }
    kw_jansson_set(o, "python", py, oom);
    if (m->map->chains) /* a Triton row: the chains to the wrappers launching it */
        kw_jansson_set(o, "model_entries", kw_mj_model(m, ln), oom);
    if (m->map->chains)
        kw_jansson_set(o, "crossings", kw_mj_crossings(m, ln), oom);
    json_t *entry = json_null();
    if (e && !triton) {
        entry = e->location.file ? kw_mj_at(m, e->location.file, e->location.line)
                                 : json_pack("{s:n, s:n}", "file", "line");
        if (entry) {
            kw_jansson_set(entry, "kind", kw_jansson_text(e->kind), oom);
            kw_jansson_set(entry, "name", kw_jansson_text(ln->entry_label), oom);
        }
    }
    kw_jansson_set(o, "entry", entry, oom);
    kw_jansson_set(o, "reached",
                   json_string(triton                    ? "python"
                               : e                       ? "entry"
                               : r->entry == KW_MAP_DEAD ? "unreachable"
                               : r->launch               ? "no_entry"
                                                         : "not_launched"),
                   oom);
    kw_jansson_set(o, "launch",
                   r->launch ? kw_mj_at(m, r->launch->l->location.file, r->launch->l->location.line)
                             : json_null(),
                   oom);
    const kw_loc *dl = kw_map_device(first);
    json_t *cos = json_array();
    for (size_t k = 0; cos && !dl && k < grp->kernels.n; k++) {
        const kw_mkernel *mk = &md->kernels.v[grp->kernels.v[k]];
        for (size_t c = 0; c < mk->asm_code_objects.n; c++)
            kw_jansson_push(cos, kw_jansson_text(kw_map_path(m, mk->asm_code_objects.v[c])), oom);
    }
    kw_jansson_set(o, "device", dl ? kw_mj_at(m, dl->file, dl->line) : json_null(), oom);
    kw_jansson_set(o, "code_objects", cos, oom);
    kw_jansson_push(m->rows, o, oom);
}

kw_status kw_map_json(kw_map *map, const char *root, kw_buf *b, kw_err *err) {
    kw_map_j m = {map, root, json_array(), false};
    for (size_t i = 0; m.rows && i < map->lines.n; i++)
        kw_map_row_json(&m, &map->lines.v[i]);
    json_t *doc = m.oom ? NULL : json_object();
    bool oom = !doc || !m.rows;
    if (!oom) {
        kw_jansson_set(doc, "kwalk_map", json_integer(1), &oom);
        kw_jansson_set(doc, "rows", json_incref(m.rows), &oom);
    }
    if (!oom && map->chains) {
        kw_map_unres u = {map->chains,
                          map->shown_json.ops.v,
                          map->shown_json.ops.n,
                          map->shown_json.elsewhere,
                          root,
                          &map->arena,
                          NULL};
        kw_map_unres_json(&u, doc, &oom);
    }
    char *text = oom ? NULL : json_dumps(doc, JSON_INDENT(2));
    json_decref(doc);
    json_decref(m.rows);
    if (!text)
        return kw_fail(err, "out of memory");
    kw_buf_puts(b, text);
    kw_buf_putc(b, '\n');
    free(text);
    return b->oom ? kw_fail(err, "out of memory") : KW_OK;
}
