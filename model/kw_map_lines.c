/* kw_map_lines.c: the lines of `kwalk map` (kw_map.h) from its sorted rows:
 * per row and Python op bound to its entry, the device code, the entry and
 * its label, and with the helper's chains the Model entries looked up (the
 * chains to the op, or to the wrappers launching a Triton row's kernel; a
 * cache-only Triton kernel's `kernel[grid](...)` statements found
 * statically, each with the chains to its wrapper); then the ops those
 * lines show and the unresolved calls listed only for others, and the
 * Python ops bound to no entry point. */
#define _POSIX_C_SOURCE 200809L
#include <string.h>

#include "kw_map_int.h"
#include "model/kw_entry.h"

const kw_loc *kw_map_device(const kw_mkernel *mk) {
    if (!mk || !mk->k)
        return NULL;
    if (mk->k->functor_location.file)
        return &mk->k->functor_location;
    return mk->k->location.file ? &mk->k->location : NULL;
}

/* Add op (an index into the helper's ops) to the ops shown, once. */
static bool kw_map_shown_add(kw_map *m, kw_map_shown *sh, size_t op) {
    for (size_t i = 0; i < sh->ops.n; i++)
        if (sh->ops.v[i] == op)
            return true;
    size_t *slot = KW_PUSH(&m->arena, sh->ops);
    if (slot)
        *slot = op;
    return slot != NULL;
}

/* The top-level package of a dotted name: its length up to the first '.'. */
static size_t kw_map_top(const char *name) {
    return name ? strcspn(name, ".") : 0;
}

const kw_py_frame *kw_map_crossing(const kw_py_chain *c) {
    size_t n = kw_map_top(c->op);
    for (size_t i = c->frames.n; n && i-- > 0;) {
        const char *f = c->frames.v[i].function;
        if (f && (kw_map_top(f) != n || strncmp(f, c->op, n)))
            return &c->frames.v[i];
    }
    return NULL;
}

/* ln's crossings: of its chains, each function and call line once. */
static bool kw_map_lines_crossings(kw_map *m, kw_map_line *ln) {
    for (size_t i = 0; i < ln->nchains; i++) {
        const kw_py_frame *f = kw_map_crossing(&m->chains->v.v[ln->chains[i]]);
        bool seen = !f;
        for (size_t j = 0; j < ln->crossings.n && !seen; j++)
            seen = ln->crossings.v[j]->line == f->line && !strcmp(ln->crossings.v[j]->function,
                                                                   f->function) &&
                   !strcmp(ln->crossings.v[j]->file ? ln->crossings.v[j]->file : "",
                           f->file ? f->file : "");
        const kw_py_frame **slot = seen ? NULL : KW_PUSH(&m->arena, ln->crossings);
        if (!seen && !slot)
            return false;
        if (slot)
            *slot = f;
    }
    return true;
}

/* The outermost chains of the helper's ops ops[0..nops), merged shortest
 * first (stable), into *out (indexes into the chains). Their number,
 * (size_t)-1 when out of memory. */
static size_t kw_map_chains_of(kw_map *m, const size_t *ops, size_t nops, size_t **out) {
    const kw_py_chains *pc = m->chains;
    KW_ARRAY(size_t) all = {0};
    for (size_t o = 0; pc && o < nops; o++) {
        size_t *ix = NULL;
        size_t n = kw_py_chains_of_op(pc, ops[o], true, &m->arena, &ix);
        if (n == (size_t)-1)
            return n;
        for (size_t i = 0; i < n; i++) {
            size_t *slot = KW_PUSH(&m->arena, all);
            if (!slot)
                return (size_t)-1;
            size_t j = all.n - 1;
            for (; j > 0 && pc->v.v[all.v[j - 1]].length > pc->v.v[ix[i]].length; j--)
                all.v[j] = all.v[j - 1];
            all.v[j] = ix[i];
        }
    }
    *out = all.v;
    return all.n;
}

/* The helper's ops bound to op's module (pybind ops) and function, into
 * *ops; their number, (size_t)-1 when out of memory. */
static size_t kw_map_op_ops(kw_map *m, const kw_py_op *op, size_t **ops) {
    const kw_py_chains *pc = m->chains;
    bool pybind = op && op->entry_kind && !strcmp(op->entry_kind, "pybind");
    *ops = NULL;
    return pc && op ? kw_py_chains_ops(pc, pybind ? op->module : NULL, op->function, &m->arena, ops)
                    : 0;
}

/* The helper's launches of the row's Triton kernel (kw_py_chains_kernel_launches);
 * with l (a launch the hook recorded), those at its line in a file of its
 * name. Their number, (size_t)-1 when out of memory. */
static size_t kw_map_py_launches(kw_map *m, const kw_map_row *r, const kw_launch *l, size_t **out) {
    const kw_py_chains *pc = m->chains;
    const kw_kernel *k = r->kernel ? r->kernel->k : NULL;
    *out = NULL;
    if (!pc || !k || !k->location.file)
        return 0;
    size_t n = kw_py_chains_kernel_launches(pc, k->name, k->location.file, k->location.line,
                                            &m->arena, out);
    if (!l || n == (size_t)-1)
        return n;
    const char *base = l->location.file ? strrchr(l->location.file, '/') : NULL;
    base = base ? base + 1 : l->location.file;
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        const kw_py_launch *pl = &pc->launches.v[(*out)[i]];
        const char *pb = strrchr(pl->file, '/');
        if (base && pl->line == l->location.line && !strcmp(pb ? pb + 1 : pl->file, base))
            (*out)[kept++] = (*out)[i];
    }
    return kept;
}

/* The wrappers (the helper's ops) that launch the row's Triton kernel (at
 * the hook's launch l, when recorded), each once, into *ops; their number,
 * (size_t)-1 when out of memory. */
static size_t kw_map_triton_ops(kw_map *m, const kw_map_row *r, const kw_launch *l, size_t **ops) {
    size_t *ix = NULL;
    size_t n = kw_map_py_launches(m, r, l, &ix);
    *ops = n && n != (size_t)-1 ? kw_arena_alloc(&m->arena, n * sizeof(size_t)) : NULL;
    if (n == (size_t)-1 || (n && !*ops))
        return (size_t)-1;
    size_t nops = 0;
    for (size_t i = 0; i < n; i++) {
        size_t op = m->chains->launches.v[ix[i]].op, j = 0;
        while (j < nops && (*ops)[j] != op)
            j++;
        if (j == nops)
            (*ops)[nops++] = op;
    }
    return nops;
}

static const kw_mkernel *kw_map_lines_first(const kw_map *m, const kw_map_row *r) {
    const kw_mgroup *grp = &m->model->groups.v[r->group];
    return r->kernel && r->kernel->k ? r->kernel : &m->model->kernels.v[grp->kernels.v[0]];
}

/* A cache-only Triton kernel's `kernel[grid](...)` statements the helper
 * found, each with the chains to its wrapper, into ln->statics. */
static bool kw_map_lines_statics(kw_map *m, kw_map_line *ln) {
    size_t *ix = NULL;
    size_t n = kw_map_py_launches(m, ln->row, NULL, &ix);
    if (n == (size_t)-1)
        return false;
    for (size_t i = 0; i < n; i++) {
        kw_map_static *st = KW_PUSH(&m->arena, ln->statics);
        if (!st)
            return false;
        st->launch = &m->chains->launches.v[ix[i]];
        st->wrapper = m->chains->ops.v[st->launch->op].name;
        size_t *c = NULL;
        st->nchains = kw_map_chains_of(m, &st->launch->op, 1, &c);
        st->chains = c;
        if (st->nchains == (size_t)-1)
            return false;
    }
    return true;
}

/* The line of row r and op (NULL: none bound to its entry). */
static bool kw_map_lines_one(kw_map *m, const kw_map_row *r, const kw_py_op *op) {
    kw_map_line *ln = KW_PUSH(&m->arena, m->lines);
    if (!ln)
        return false;
    ln->row = r;
    ln->op = op;
    ln->first = kw_map_lines_first(m, r);
    ln->entry = r->entry < m->model->entries.n ? m->model->entries.v[r->entry].e : NULL;
    ln->entry_label = ln->entry ? kw_entry_label(&m->arena, ln->entry) : NULL;
    ln->triton = r->launch && r->launch->l->kind && !strcmp(r->launch->l->kind, "triton");
    if (!m->chains)
        return true;
    size_t *ops = NULL, *chains = NULL;
    size_t nops =
        ln->triton ? kw_map_triton_ops(m, r, r->launch->l, &ops) : kw_map_op_ops(m, op, &ops);
    if (nops == (size_t)-1)
        return false;
    size_t n = kw_map_chains_of(m, ops, nops, &chains);
    if (n == (size_t)-1)
        return false;
    ln->ops = ops, ln->nops = nops;
    ln->chains = chains, ln->nchains = n;
    if (!kw_map_lines_crossings(m, ln))
        return false;
    const kw_kernel *k = ln->first->k;
    bool triton = k && k->language && !strcmp(k->language, "triton");
    return triton && !r->launch ? kw_map_lines_statics(m, ln) : true;
}

/* One call as a key: function, file, line and callee. NULL: out of memory. */
static char *kw_map_lines_call_key(kw_map *m, const kw_py_unresolved *c) {
    return kw_arena_printf(&m->arena, "%s\x1f%s\x1f%d\x1f%s", c->function, c->file, c->line,
                           c->callee);
}

static bool kw_map_lines_is_shown(const kw_map_shown *sh, size_t op) {
    for (size_t i = 0; i < sh->ops.n; i++)
        if (sh->ops.v[i] == op)
            return true;
    return false;
}

/* How many unresolved calls are listed only for ops not in sh, each once,
 * into sh->elsewhere. False when out of memory. */
static bool kw_map_lines_elsewhere(kw_map *m, kw_map_shown *sh) {
    const kw_py_chains *pc = m->chains;
    kw_symmap seen; /* 0: listed for a shown op; 1: counted */
    kw_symmap_init(&seen);
    bool oom = false;
    sh->elsewhere = 0;
    for (int pass = 0; pass < 2 && !oom; pass++)
        for (size_t i = 0; i < pc->unresolved.n && !oom; i++) {
            const kw_py_unresolved *c = &pc->unresolved.v[i];
            if (kw_map_lines_is_shown(sh, c->op) != (pass == 0))
                continue;
            char *key = kw_map_lines_call_key(m, c);
            if (!key) {
                oom = true;
                break;
            }
            if (kw_symmap_get(&seen, key))
                continue;
            oom = kw_symmap_put(&seen, key, (size_t)pass) != KW_OK;
            sh->elsewhere += pass == 1;
        }
    kw_symmap_free(&seen);
    return !oom;
}

/* The ops each line shows: the table's (statics' wrappers included, each
 * in place of its line's) and the JSON document's. */
static bool kw_map_lines_shown(kw_map *m) {
    for (size_t i = 0; i < m->lines.n; i++) {
        const kw_map_line *ln = &m->lines.v[i];
        for (size_t o = 0; o < ln->nops; o++)
            if (!kw_map_shown_add(m, &m->shown, ln->ops[o]) ||
                !kw_map_shown_add(m, &m->shown_json, ln->ops[o]))
                return false;
        for (size_t s = 0; s < ln->statics.n; s++)
            if (!kw_map_shown_add(m, &m->shown, ln->statics.v[s].launch->op))
                return false;
    }
    return kw_map_lines_elsewhere(m, &m->shown) && kw_map_lines_elsewhere(m, &m->shown_json);
}

/* The Python ops bound to no entry point, each with the entry points of its
 * function's name the index has. */
static bool kw_map_lines_unjoined(kw_map *m) {
    const kw_model *md = m->model;
    for (size_t o = 0; o < m->py->ops.n; o++) {
        bool joined = false;
        for (size_t e = 0; e < md->entries.n && !joined; e++)
            for (size_t k = 0; k < md->entries.v[e].ops.n && !joined; k++)
                joined = md->entries.v[e].ops.v[k] == o;
        if (joined)
            continue;
        kw_map_unjoined *u = KW_PUSH(&m->arena, m->unjoined);
        if (!u)
            return false;
        u->op = &m->py->ops.v[o];
        for (size_t i = 0; i < md->entries.n && u->op->function; i++) {
            const kw_entry *e = md->entries.v[i].e;
            if (!e->name || strcmp(e->name, u->op->function))
                continue;
            if (u->nsame == sizeof u->same / sizeof u->same[0]) {
                u->more = true;
                break;
            }
            u->same[u->nsame++] = i;
        }
    }
    return true;
}

bool kw_map_lines_build(kw_map *m) {
    const kw_model *md = m->model;
    for (size_t i = 0; i < m->rows.n; i++) {
        const kw_map_row *r = &m->rows.v[i];
        const kw_mentry *me = r->entry < md->entries.n ? &md->entries.v[r->entry] : NULL;
        if (me && me->ops.n) {
            for (size_t k = 0; k < me->ops.n; k++)
                if (!kw_map_lines_one(m, r, &md->py->ops.v[me->ops.v[k]]))
                    return false;
        } else if (!kw_map_lines_one(m, r, NULL)) {
            return false;
        }
    }
    if (m->chains && !kw_map_lines_shown(m))
        return false;
    return !m->py || kw_map_lines_unjoined(m);
}
