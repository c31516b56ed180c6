/* kw_kpage.c: a kernel's dispatch table (kw_kpage.h): the ways to each
 * instantiation, their conditions and verdicts, the rows grouped by their
 * conditions, and the template arguments that tell the rows apart. */
#include "model/kw_kpage.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/kw_buf.h"
#include "common/kw_symmap.h"
#include "model/kw_decode.h"
#include "model/kw_kpage_walk.h"
#include "model/kw_operand.h"

/* A name and value that tell a row from its siblings: a template argument,
 * or an ASM table row's field. */
typedef struct kw_kparam {
    const char *name, *value;
} kw_kparam;

typedef KW_ARRAY(kw_kparam) kw_kparams;

static kw_status kw_oom(kw_err *err) {
    return kw_fail(err, "out of memory");
}

/* Whether guard g is a dispatch condition: not a loop, not `default:`, not
 * constant in this instantiation. */
static bool kw_kguard_dispatch(const kw_guard *g) {
    const char *kind = g->kind ? g->kind : "if";
    return strcmp(kind, "for") && strcmp(kind, "range_for") && strcmp(kind, "while") &&
           strcmp(kind, "do") && strcmp(kind, "default") && !g->constant && g->condition;
}

/* The evaluator's reason as a page's prose writes it: a quoted name or
 * text ('s.time_kernel_', `at "..."` closing the message) as code, so that
 * it is printed as typed, with no Markdown escape in it (the site's shape
 * box, kw_html_kpage_js.c, writes its reasons so too). */
static const char *kw_kwhy(const char *msg, kw_arena *a) {
    kw_buf b;
    kw_buf_init(&b);
    for (const char *s = msg; *s; s++) {
        const char *e = *s == '\'' ? strchr(s + 1, '\'') : NULL;
        if (e && !memchr(s + 1, '`', (size_t)(e - s - 1))) {
            kw_buf_putc(&b, '`');
            kw_buf_append(&b, s + 1, (size_t)(e - s - 1));
            kw_buf_putc(&b, '`');
            s = e;
        } else {
            kw_buf_putc(&b, *s);
        }
    }
    const char *t = b.ptr ? b.ptr : "";
    size_t n = b.len;
    for (const char *at = t; n && t[n - 1] == '"' && (at = strstr(at, " at \"")); at++) {
        const char *in = at + 5, *end = t + n - 1;
        if (in > end || memchr(in, '`', (size_t)(end - in)))
            continue;
        b.ptr[in - 1 - t] = '`';
        b.ptr[n - 1] = '`';
        break;
    }
    const char *out = b.oom ? NULL : kw_arena_strndup(a, t, n);
    kw_buf_free(&b);
    return out ? out : msg;
}

static void kw_keval(kw_kcond *c, const char *expr, bool need, const kw_shape *shape, kw_arena *a) {
    if (!shape) {
        c->v = KW_KV_NONE;
        return;
    }
    kw_value val;
    kw_err e;
    if (kw_expr_eval(expr, shape, KW_EXPR_C, &val, &e) != KW_OK) {
        c->v = KW_KV_OPEN;
        c->why = kw_kwhy(e.msg, a);
        return;
    }
    c->v = ((val.v[0] != 0) == need) ? KW_KV_HOLDS : KW_KV_FAILS;
}

static kw_status kw_kway_cond(kw_kway *w, kw_arena *a, const char *text, const char *expr,
                              bool need, kw_loc loc, const kw_shape *shape, const kw_constant *k,
                              size_t nk) {
    for (size_t i = 0; i < w->conds.n; i++)
        if (!strcmp(w->conds.v[i].text, text))
            return KW_OK;
    kw_kcond *c = KW_PUSH(a, w->conds);
    if (!c)
        return KW_ERR;
    memset(c, 0, sizeof(*c));
    c->text = text;
    c->loc = loc;
    c->expr = expr;
    c->need = need;
    c->consts = k;
    c->nconsts = nk;
    kw_keval(c, expr, need, shape, a);
    return KW_OK;
}

static kw_status kw_kway_guards(kw_kway *w, kw_arena *a, const kw_guard *g, size_t n,
                                const kw_shape *shape, const kw_constant *k, size_t nk) {
    for (size_t i = 0; i < n; i++) {
        if (!kw_kguard_dispatch(&g[i]))
            continue;
        const char *text =
            g[i].holds ? g[i].condition : kw_arena_printf(a, "!(%s)", g[i].condition);
        if (!text || kw_kway_cond(w, a, text, g[i].condition, g[i].holds, g[i].location, shape, k,
                                  nk) != KW_OK)
            return KW_ERR;
    }
    return KW_OK;
}

/* ---- an ASM table row's fields ----------------------------------------------------------------
 */

/* Split `arch="gfx942", qType="bf16", Gqa=8` into params (arch left out:
 * --arch picks it). */
static kw_status kw_kfields(kw_arena *a, const char *fields, kw_kparams *out) {
    const char *s = fields;
    while (s && *s) {
        while (*s == ' ' || *s == ',')
            s++;
        const char *eq = strchr(s, '=');
        if (!eq)
            break;
        const char *v = eq + 1, *e = v;
        if (*v == '"') {
            e = strchr(v + 1, '"');
            e = e ? e + 1 : v + strlen(v);
        } else {
            while (*e && *e != ',')
                e++;
        }
        if ((size_t)(eq - s) != 4 || strncmp(s, "arch", 4)) {
            kw_kparam *p = KW_PUSH(a, *out);
            if (!p)
                return KW_ERR;
            p->name = kw_arena_strndup(a, s, (size_t)(eq - s));
            p->value = kw_arena_strndup(a, v, (size_t)(e - v));
            if (!p->name || !p->value)
                return KW_ERR;
        }
        s = e;
    }
    return KW_OK;
}

/* The first table row of launch l that runs ASM kernel symbol. */
static const kw_asm_candidate *kw_kcandidate(const kw_launch *l, const char *symbol) {
    for (size_t i = 0; i < l->asm_choices.n; i++)
        for (size_t j = 0; j < l->asm_choices.v[i].candidates.n; j++) {
            const kw_asm_candidate *c = &l->asm_choices.v[i].candidates.v[j];
            if (c->asm_kernel && !strcmp(c->asm_kernel, symbol))
                return c;
        }
    return NULL;
}

/* Launch l of kernel mk: for an ASM kernel the table row that runs it
 * (*cand), its fields and place; else no fields and the launch's place. */
static kw_status kw_klaunch_fields(kw_arena *a, const kw_mkernel *mk, const kw_launch *l,
                                   kw_kparams *fields, kw_loc *floc,
                                   const kw_asm_candidate **cand) {
    memset(fields, 0, sizeof(*fields));
    *floc = l->location;
    *cand = mk->is_asm ? kw_kcandidate(l, mk->symbol) : NULL;
    if (!*cand)
        return KW_OK;
    *floc = (*cand)->location;
    return kw_kfields(a, (*cand)->fields, fields);
}

/* ---- one row ----------------------------------------------------------------------------------
 */

bool kw_kpage_targ_value(const kw_template_arg *t, double *v) {
    if (!t->name || !t->value || !t->kind || strcmp(t->kind, "value"))
        return false;
    char *end;
    *v = strtod(t->value, &end);
    if (end == t->value || *end) {
        if (strcmp(t->value, "true") && strcmp(t->value, "false"))
            return false;
        *v = !strcmp(t->value, "true");
    }
    return true;
}

/* --shape plus the kernel's integral template arguments (as a page binds them). */
static const kw_shape *kw_kbase(const kw_shape *user, const kw_kernel *k, kw_arena *a) {
    if (!user)
        return NULL;
    kw_shape *s = kw_arena_alloc(a, sizeof(*s));
    if (!s)
        return user;
    memset(s, 0, sizeof(*s));
    for (size_t i = 0; i < user->v.n; i++)
        kw_shape_add(s, a, &user->v.v[i]);
    for (size_t i = 0; k && i < k->template_args.n; i++) {
        const kw_template_arg *t = &k->template_args.v[i];
        double v;
        if (!kw_kpage_targ_value(t, &v))
            continue;
        if (!kw_shape_lookup(s, t->name, strlen(t->name)))
            kw_shape_set(s, a, t->name, v, "template argument");
    }
    return s;
}

static bool kw_knegates(const char *x, const char *y);

/* An open way's pair of conditions C and "!(C)", one of them not
 * evaluated: w->contra and w->contra_of, and the way fails. */
static void kw_kway_contra(kw_kway *w) {
    for (size_t j = 1; j < w->conds.n; j++)
        for (size_t i = 0; i < j; i++) {
            const kw_kcond *x = &w->conds.v[i], *y = &w->conds.v[j];
            if ((x->v == KW_KV_OPEN || y->v == KW_KV_OPEN) &&
                (kw_knegates(x->text, y->text) || kw_knegates(y->text, x->text))) {
                w->contra = y, w->contra_of = x, w->v = KW_KV_FAILS;
                return;
            }
        }
}

static kw_kverdict kw_kway_verdict(const kw_kway *w) {
    kw_kverdict v = KW_KV_HOLDS;
    for (size_t i = 0; i < w->conds.n; i++) {
        if (w->conds.v[i].v == KW_KV_FAILS)
            return KW_KV_FAILS;
        if (w->conds.v[i].v == KW_KV_OPEN)
            v = KW_KV_OPEN;
    }
    return v;
}

/* One way: the calls of path (NULL: no entry reaches the launch), the
 * launch's guards, an ASM kernel's table fields. */
static kw_status kw_kway_add(kw_krow *r, kw_model *m, size_t li, const kw_mpath *path,
                             const kw_kparams *fields, kw_loc floc, const kw_shape *base,
                             kw_arena *a) {
    kw_kway *w = KW_PUSH(a, r->ways);
    if (!w)
        return KW_ERR;
    memset(w, 0, sizeof(*w));
    w->entry = path ? path->entry : KW_NONE;
    w->launch = &m->launches.v[li];
    const kw_launch *l = w->launch->l;
    for (size_t c = 0; path && c < path->calls.n; c++) {
        const kw_host_call *hc = m->calls.v[path->calls.v[c]].c;
        const kw_shape *s =
            base ? kw_operand_shape(base, a, hc->constants.v, hc->constants.n) : NULL;
        if (kw_kway_guards(w, a, hc->guards.v, hc->guards.n, s, hc->constants.v, hc->constants.n) !=
            KW_OK)
            return KW_ERR;
    }
    const kw_shape *s = base ? kw_operand_shape(base, a, l->constants.v, l->constants.n) : NULL;
    if (kw_kway_guards(w, a, l->guards.v, l->guards.n, s, l->constants.v, l->constants.n) != KW_OK)
        return KW_ERR;
    for (size_t i = 0; fields && i < fields->n; i++) {
        const char *text = kw_arena_printf(a, "%s == %s", fields->v[i].name, fields->v[i].value);
        if (!text || kw_kway_cond(w, a, text, text, true, floc, base, NULL, 0) != KW_OK)
            return KW_ERR;
    }
    w->v = base ? kw_kway_verdict(w) : KW_KV_NONE;
    if (w->v == KW_KV_OPEN)
        kw_kway_contra(w);
    return KW_OK;
}

static kw_status kw_krow_build(kw_krow *r, kw_model *m, size_t ki, kw_kparams *params, kw_arena *a,
                               kw_err *err) {
    const kw_mkernel *mk = &m->kernels.v[ki];
    memset(r, 0, sizeof(*r));
    r->kernel = ki;
    const kw_shape *base = kw_kbase(m->shape, mk->k, a);
    /* a trampoline's rows differ by the struct's arguments, level by level */
    const kw_template_arg *targs = NULL;
    size_t ntargs = 0;
    if (mk->k && mk->k->functor_args.n)
        targs = mk->k->functor_args.v, ntargs = mk->k->functor_args.n;
    else if (mk->k)
        targs = mk->k->template_args.v, ntargs = mk->k->template_args.n;
    for (size_t i = 0; i < ntargs; i++) {
        const kw_template_arg *t = &targs[i];
        kw_kparam *p = KW_PUSH(a, *params);
        if (!p)
            return kw_oom(err);
        p->name = t->name ? t->name : kw_arena_printf(a, "#%zu", i + 1);
        p->value = t->value ? t->value : "?";
    }
    for (size_t j = 0; j < mk->launches.n; j++) {
        size_t li = mk->launches.v[j];
        const kw_launch *l = m->launches.v[li].l;
        kw_kparams fields;
        kw_loc floc;
        const kw_asm_candidate *cand;
        if (kw_klaunch_fields(a, mk, l, &fields, &floc, &cand) != KW_OK)
            return kw_oom(err);
        if (cand) {
            if (!params->n)
                for (size_t f = 0; f < fields.n; f++) {
                    kw_kparam *p = KW_PUSH(a, *params);
                    if (!p)
                        return kw_oom(err);
                    *p = fields.v[f];
                }
        }
        kw_mpaths paths;
        if (kw_model_paths(m, li, a, &paths, err) != KW_OK)
            return KW_ERR;
        r->nlaunches++;
        if (paths.dead) {
            r->ndead++;
            continue;
        }
        for (size_t p = 0; p <= paths.v.n; p++) {
            if (p == paths.v.n && paths.v.n)
                break;
            if (kw_kway_add(r, m, li, paths.v.n ? &paths.v.v[p] : NULL, &fields, floc, base, a) !=
                KW_OK)
                return kw_oom(err);
        }
    }
    /* the instruction mix: classes decoded from the code objects where the
     * index keeps none (kw_decode.h) */
    const kw_kernel *dk = mk->k;
    if (dk && kw_decode_kernel(m->decode, dk, a, &dk, err) != KW_OK)
        return KW_ERR;
    for (size_t i = 0; dk && i < dk->archs.n; i++) {
        kw_isa_mix mix;
        if (!kw_page_isa_mix(&dk->archs.v[i].classes, &mix))
            continue;
        kw_kmix *x = KW_PUSH(a, r->mix);
        if (!x)
            return kw_oom(err);
        x->arch = dk->archs.v[i].arch;
        x->m = mix;
    }
    /* the row's verdict: the best of its ways */
    r->v = KW_KV_NONE;
    if (base) {
        r->v = KW_KV_FAILS;
        for (size_t i = 0; i < r->ways.n; i++)
            if (r->ways.v[i].v == KW_KV_HOLDS ||
                (r->ways.v[i].v == KW_KV_OPEN && r->v == KW_KV_FAILS))
                r->v = r->ways.v[i].v;
    }
    /* the grouping keys: each way as a page writes it: its entry point and
     * conditions (the folded tree's line: rows of two entry points,
     * gelu_and_mul_bias and silu_and_mul_bias, under one condition text are
     * two groups), and for a group's list of ways its launch site too */
    kw_buf b, at;
    kw_buf_init(&b);
    kw_buf_init(&at);
    for (size_t i = 0; i < r->ways.n; i++) {
        const kw_loc *l = &r->ways.v[i].launch->l->location;
        if (i)
            kw_buf_puts(&b, "; ");
        if (r->ways.v[i].entry != KW_NONE)
            kw_buf_printf(&b, "%zu: ", r->ways.v[i].entry);
        kw_buf_printf(&at, "; %s:%d", l->file ? l->file : "", l->line);
        for (size_t c = 0; c < r->ways.v[i].conds.n; c++) {
            if (c)
                kw_buf_puts(&b, " && ");
            kw_buf_puts(&b, r->ways.v[i].conds.v[c].text);
        }
        if (!r->ways.v[i].conds.n)
            kw_buf_puts(&b, "(always)");
    }
    r->conds = b.oom ? NULL : kw_arena_strndup(a, b.ptr ? b.ptr : "", b.len);
    r->ways_at = b.oom || at.oom ? NULL
                                 : kw_arena_printf(a, "%s%.*s", r->conds ? r->conds : "",
                                                   (int)at.len, at.ptr ? at.ptr : "");
    kw_buf_free(&b);
    kw_buf_free(&at);
    return r->conds && r->ways_at ? KW_OK : kw_oom(err);
}

kw_kverdict kw_kpage_launch_verdict(kw_model *m, const kw_shape *shape, size_t ki, size_t li,
                                    const kw_mpaths *paths, size_t entry, kw_arena *a) {
    if (!shape)
        return KW_KV_NONE;
    const kw_mkernel *mk = &m->kernels.v[ki];
    const kw_shape *base = kw_kbase(shape, mk->k, a);
    const kw_launch *l = m->launches.v[li].l;
    kw_kparams fields;
    kw_loc floc;
    const kw_asm_candidate *cand;
    if (kw_klaunch_fields(a, mk, l, &fields, &floc, &cand) != KW_OK)
        return KW_KV_OPEN;
    kw_krow r;
    memset(&r, 0, sizeof(r));
    for (size_t p = 0; p < paths->v.n; p++)
        if (paths->v.v[p].entry == entry &&
            kw_kway_add(&r, m, li, &paths->v.v[p], &fields, floc, base, a) != KW_OK)
            return KW_KV_OPEN;
    if (!paths->v.n && !paths->dead && entry == KW_NONE &&
        kw_kway_add(&r, m, li, NULL, &fields, floc, base, a) != KW_OK)
        return KW_KV_OPEN;
    kw_kverdict v = KW_KV_FAILS;
    for (size_t i = 0; i < r.ways.n; i++)
        if (r.ways.v[i].v == KW_KV_HOLDS || (r.ways.v[i].v == KW_KV_OPEN && v == KW_KV_FAILS))
            v = r.ways.v[i].v;
    return v;
}

/* ---- the page ---------------------------------------------------------------------------------
 */

static const char *kw_kparam_get(const kw_kparams *p, const char *name) {
    for (size_t i = 0; i < p->n; i++)
        if (!strcmp(p->v[i].name, name))
            return p->v[i].value;
    return NULL;
}

static kw_status kw_kdiffer_pass(kw_kpage *p, const kw_kparams *params, bool leaves, kw_arena *a) {
    for (size_t r = 0; r < p->rows.n; r++)
        for (size_t i = 0; i < params[r].n; i++) {
            const char *name = params[r].v[i].name;
            if (leaves && strchr(params[r].v[i].value, '<') && strstr(params[r].v[i].value, "::"))
                continue;
            bool seen = false, differs = false;
            for (size_t d = 0; d < p->differ.n && !seen; d++)
                seen = !strcmp(p->differ.v[d], name);
            for (size_t s = 0; s < p->rows.n && !seen && !differs; s++) {
                const char *v = kw_kparam_get(&params[s], name);
                differs = !v || strcmp(v, params[r].v[i].value);
            }
            const char **slot = !seen && differs ? KW_PUSH(a, p->differ) : NULL;
            if (!seen && differs && !slot)
                return KW_ERR;
            if (slot)
                *slot = name;
        }
    return KW_OK;
}

static kw_status kw_kdiffer_rows(kw_kpage *p, const kw_kparams *params, kw_arena *a) {
    for (size_t r = 0; r < p->rows.n; r++) {
        kw_buf b;
        kw_buf_init(&b);
        for (size_t d = 0; d < p->differ.n; d++) {
            const char *v = kw_kparam_get(&params[r], p->differ.v[d]);
            kw_buf_printf(&b, "%s%s=%s", d ? ", " : "", p->differ.v[d], v ? v : "-");
        }
        p->rows.v[r].args = b.len ? kw_arena_strndup(a, b.ptr, b.len) : NULL;
        bool oom = b.oom || (b.len && !p->rows.v[r].args);
        kw_buf_free(&b);
        if (oom)
            return KW_ERR;
    }
    return KW_OK;
}

/* The parameters whose values differ between rows, and each row's: those
 * whose values are leaves (no template of a qualified name: `kPadN`, not the
 * `Problem_` holding it),
 * or where no leaf differs, any. */
static kw_status kw_kdiffer(kw_kpage *p, const kw_kparams *params, kw_arena *a) {
    for (int leaves = 1; leaves >= 0 && !p->differ.n; leaves--)
        if (kw_kdiffer_pass(p, params, leaves, a) != KW_OK)
            return KW_ERR;
    return kw_kdiffer_rows(p, params, a);
}

/* Rows whose ways the page writes alike share a group: a folded page's
 * tree writes entry points and conditions, a group's list of ways the
 * launch sites too. */
static kw_status kw_kgroups(kw_kpage *p) {
    kw_symmap seen;
    kw_symmap_init(&seen);
    kw_status st = KW_OK;
    bool fold = p->rows.n > KW_KPAGE_FOLD_ROWS;
    for (size_t r = 0; r < p->rows.n && st == KW_OK; r++) {
        const char *key = fold ? p->rows.v[r].conds : p->rows.v[r].ways_at;
        size_t *g = kw_symmap_get(&seen, key);
        if (g) {
            p->rows.v[r].group = *g;
        } else {
            p->rows.v[r].group = p->ngroups;
            st = kw_symmap_put(&seen, key, p->ngroups++);
        }
    }
    kw_symmap_free(&seen);
    return st;
}

/* Whether every open condition of way x is an open condition of way y. */
static bool kw_kopen_within(const kw_kway *x, const kw_kway *y) {
    for (size_t i = 0; i < x->conds.n; i++) {
        bool in = x->conds.v[i].v != KW_KV_OPEN;
        for (size_t j = 0; j < y->conds.n && !in; j++)
            in = y->conds.v[j].v == KW_KV_OPEN && !strcmp(y->conds.v[j].text, x->conds.v[i].text);
        if (!in)
            return false;
    }
    return true;
}

/* Whether open way w of row decides the row: no other open way's open
 * conditions are some of w's (that way is taken wherever w is, so what w
 * needs beyond them decides nothing; of two with the same, the first
 * decides). A way that fails decides nothing either. */
static bool kw_kopen_decides(const kw_krow *row, size_t w) {
    const kw_kway *x = &row->ways.v[w];
    if (x->v != KW_KV_OPEN)
        return false;
    for (size_t o = 0; o < row->ways.n; o++) {
        const kw_kway *y = &row->ways.v[o];
        if (o != w && y->v == KW_KV_OPEN && kw_kopen_within(y, x) &&
            (o < w || !kw_kopen_within(x, y)))
            return false;
    }
    return true;
}

/* The distinct open conditions of the candidates' ways that decide them
 * (kw_kopen_decides). */
static kw_status kw_kopen(kw_kpage *p, kw_arena *a) {
    for (size_t r = 0; r < p->rows.n; r++) {
        const kw_krow *row = &p->rows.v[r];
        if (row->v != KW_KV_OPEN)
            continue;
        for (size_t w = 0; w < row->ways.n; w++) {
            if (!kw_kopen_decides(row, w))
                continue;
            for (size_t c = 0; c < row->ways.v[w].conds.n; c++) {
                const kw_kcond *k = &row->ways.v[w].conds.v[c];
                bool seen = k->v != KW_KV_OPEN;
                for (size_t i = 0; i < p->open.n && !seen; i++)
                    seen = !strcmp(p->open.v[i]->text, k->text);
                const kw_kcond **slot = seen ? NULL : KW_PUSH(a, p->open);
                if (!seen && !slot)
                    return KW_ERR;
                if (slot)
                    *slot = k;
            }
        }
    }
    return KW_OK;
}

/* The ways of ruled-out rows a contradiction failed, one per pair. */
static kw_status kw_kunreach(kw_kpage *p, kw_arena *a) {
    for (size_t r = 0; r < p->rows.n; r++)
        for (size_t w = 0; p->rows.v[r].v == KW_KV_FAILS && w < p->rows.v[r].ways.n; w++) {
            const kw_kway *way = &p->rows.v[r].ways.v[w];
            bool seen = !way->contra;
            for (size_t i = 0; i < p->unreach.n && !seen; i++)
                seen = !strcmp(p->unreach.v[i]->contra->text, way->contra->text) &&
                       !strcmp(p->unreach.v[i]->contra_of->text, way->contra_of->text);
            const kw_kway **slot = seen ? NULL : KW_PUSH(a, p->unreach);
            if (!seen && !slot)
                return KW_ERR;
            if (slot)
                *slot = way;
        }
    return KW_OK;
}

/* Count row r at the site or entry (once per row: last is the row's). */
static kw_status kw_kshare(kw_kpage *p, kw_arena *a, const kw_loc *loc, size_t entry, size_t *last,
                           size_t r) {
    kw_kshareds *list = loc ? &p->sites : &p->entries;
    for (size_t i = 0; i < list->n; i++) {
        kw_kshared *s = &list->v[i];
        bool same = loc ? s->loc->line == loc->line &&
                              !strcmp(s->loc->file ? s->loc->file : "", loc->file ? loc->file : "")
                        : s->entry == entry;
        if (same) {
            if (last[i] != r + 1)
                s->rows++, last[i] = r + 1;
            return KW_OK;
        }
    }
    kw_kshared *s = KW_PUSH(a, *list);
    if (!s)
        return KW_ERR;
    s->loc = loc, s->entry = entry, s->rows = 1;
    last[list->n - 1] = r + 1;
    return KW_OK;
}

/* The launch sites and entry points the rows share. */
static kw_status kw_kcommon(kw_kpage *p, kw_arena *a) {
    size_t cap = 0;
    for (size_t r = 0; r < p->rows.n; r++)
        cap += p->rows.v[r].ways.n;
    size_t *ls = kw_arena_alloc(a, (cap + 1) * sizeof *ls);
    size_t *le = kw_arena_alloc(a, (cap + 1) * sizeof *le);
    if (!ls || !le)
        return KW_ERR;
    memset(ls, 0, (cap + 1) * sizeof *ls);
    memset(le, 0, (cap + 1) * sizeof *le);
    for (size_t r = 0; r < p->rows.n; r++)
        for (size_t w = 0; w < p->rows.v[r].ways.n; w++) {
            const kw_kway *way = &p->rows.v[r].ways.v[w];
            if (kw_kshare(p, a, &way->launch->l->location, 0, ls, r) != KW_OK ||
                (way->entry != KW_NONE && kw_kshare(p, a, NULL, way->entry, le, r) != KW_OK))
                return KW_ERR;
        }
    return KW_OK;
}

/* ---- a large family folded -------------------------------------------------------------------
 */

static bool kw_kway_has(const kw_kway *w, const char *text) {
    for (size_t c = 0; c < w->conds.n; c++)
        if (!strcmp(w->conds.v[c].text, text))
            return true;
    return false;
}

/* The conditions of the first way that every way of every row has. */
static kw_status kw_kfold_common(kw_kpage *p, kw_arena *a) {
    const kw_krow *r0 = p->rows.n ? &p->rows.v[0] : NULL;
    if (!r0 || !r0->ways.n)
        return KW_OK;
    for (size_t c = 0; c < r0->ways.v[0].conds.n; c++) {
        const char *t = r0->ways.v[0].conds.v[c].text;
        bool all = true;
        for (size_t r = 0; r < p->rows.n && all; r++) {
            all = p->rows.v[r].ways.n > 0;
            for (size_t w = 0; w < p->rows.v[r].ways.n && all; w++)
                all = kw_kway_has(&p->rows.v[r].ways.v[w], t);
        }
        const char **slot = all ? KW_PUSH(a, p->common) : NULL;
        if (all && !slot)
            return KW_ERR;
        if (slot)
            *slot = t;
    }
    return KW_OK;
}

static bool kw_kfold_is_common(const kw_kpage *p, const char *t) {
    for (size_t i = 0; i < p->common.n; i++)
        if (!strcmp(p->common.v[i], t))
            return true;
    return false;
}

/* The group's ways beyond the common conditions. */
static void kw_kfold_rest(const kw_kpage *p, const kw_model *m, const kw_krow *r, kw_buf *b) {
    for (size_t w = 0; w < r->ways.n; w++) {
        const kw_kway *way = &r->ways.v[w];
        if (w)
            kw_buf_puts(b, "; ");
        if (way->entry != KW_NONE)
            kw_buf_printf(b, "%s: ", m->entries.v[way->entry].e->name);
        size_t n = 0;
        for (size_t c = 0; c < way->conds.n; c++)
            if (!kw_kfold_is_common(p, way->conds.v[c].text))
                kw_buf_printf(b, "%s%s", n++ ? " && " : "", way->conds.v[c].text);
        if (!n)
            kw_buf_puts(b, "(none beyond those)");
    }
    if (!r->ways.n && r->ndead)
        kw_buf_puts(b, "(never runs: each launch of these is under a constant-false condition)");
    else if (!r->ways.n)
        kw_buf_puts(b, "(no recorded launch)");
}

/* The differing arguments' values in the group of rows idx[0..n). */
static void kw_kfold_args(const kw_kpage *p, const kw_kparams *params, const size_t *idx, size_t n,
                          kw_buf *b) {
    for (size_t d = 0; d < p->differ.n; d++) {
        kw_buf_puts(b, d ? ", " : "");
        size_t nv = 0;
        for (size_t i = 0; i < n; i++) {
            const char *v = kw_kparam_get(&params[idx[i]], p->differ.v[d]);
            v = v ? v : "-";
            bool seen = false;
            for (size_t s = 0; s < i && !seen; s++) {
                const char *u = kw_kparam_get(&params[idx[s]], p->differ.v[d]);
                seen = !strcmp(u ? u : "-", v);
            }
            if (!seen)
                kw_buf_printf(b, "%s%s", nv++ ? " | " : "", v);
        }
    }
}

/* A group's tokens: one way's entry and conditions beyond the common ones,
 * or its several ways as one text. */
typedef KW_ARRAY(kw_ktree) kw_ktoks;

static kw_status kw_ktokens(const kw_kpage *p, const kw_model *m, const kw_kgroup *k, kw_ktoks *t,
                            kw_arena *a) {
    const kw_krow *r = &p->rows.v[k->first];
    kw_ktree *x;
    if (r->ways.n != 1) {
        if (!(x = KW_PUSH(a, *t)))
            return KW_ERR;
        memset(x, 0, sizeof(*x));
        x->text = k->rest;
        return KW_OK;
    }
    const kw_kway *w = &r->ways.v[0];
    if (!(x = KW_PUSH(a, *t)))
        return KW_ERR;
    memset(x, 0, sizeof(*x));
    x->entry = w->entry != KW_NONE;
    x->text = x->entry ? m->entries.v[w->entry].e->name : "(no entry point reaches the launch)";
    for (size_t c = 0; c < w->conds.n; c++) {
        if (kw_kfold_is_common(p, w->conds.v[c].text))
            continue;
        if (!(x = KW_PUSH(a, *t)))
            return KW_ERR;
        memset(x, 0, sizeof(*x));
        x->text = w->conds.v[c].text;
    }
    return KW_OK;
}

/* Whether condition t is "NAME OP INTEGER" (OP a comparison, INTEGER a C
 * integer literal, `16`, `0x10`, `16u`, `-1`): *head the length of "NAME
 * OP " before the literal, *v its value. */
static bool kw_kint_cond(const char *t, size_t *head, long long *v) {
    const char *lit = strrchr(t, ' ');
    if (!lit || lit == t)
        return false;
    lit++;
    static const char *const ops[] = {" == ", " != ", " <= ", " >= ", " < ", " > "};
    bool op = false;
    for (size_t i = 0; i < sizeof ops / sizeof *ops && !op; i++) {
        size_t n = strlen(ops[i]);
        op = (size_t)(lit - t) > n && !strncmp(lit - n, ops[i], n);
    }
    char *end;
    errno = 0;
    long long x = strtoll(lit, &end, 0);
    if (!op || end == lit || errno || (*lit != '-' && (*lit < '0' || *lit > '9')))
        return false;
    while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L')
        end++;
    if (*end)
        return false;
    *head = (size_t)(lit - t);
    *v = x;
    return true;
}

/* The tree's order of sibling conditions: as text, but those that compare
 * the same name with the same operator against integer literals by value
 * (`vec_size == 1`, `2`, `4`, `8`, `16`, `32`). A total order: by the
 * text up to the literal (the whole text where there is none), then by
 * value, then by text. */
static int kw_kcond_cmp(const char *x, const char *y) {
    size_t hx, hy;
    long long vx, vy;
    bool ix = kw_kint_cond(x, &hx, &vx), iy = kw_kint_cond(y, &hy, &vy);
    if (!ix && !iy)
        return strcmp(x, y);
    size_t lx = ix ? hx : strlen(x), ly = iy ? hy : strlen(y);
    int c = memcmp(x, y, lx < ly ? lx : ly);
    if (c || lx != ly)
        return c ? c : lx < ly ? -1 : 1;
    if (ix != iy)
        return ix ? 1 : -1;
    if (vx != vy)
        return vx < vy ? -1 : 1;
    return strcmp(x, y);
}

/* qsort's order of the groups' tokens (pointers into one array: the
 * earlier group first among equals). */
static int kw_ktok_cmp(const void *pa, const void *pb) {
    const kw_ktoks *x = *(const kw_ktoks *const *)pa, *y = *(const kw_ktoks *const *)pb;
    for (size_t i = 0; i < x->n && i < y->n; i++) {
        int c = kw_kcond_cmp(x->v[i].text, y->v[i].text);
        if (c)
            return c;
    }
    if (x->n != y->n)
        return x->n < y->n ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* The groups' tokens sorted, each printed from where it parts from the one
 * before. */
static kw_status kw_ktree_build(kw_kpage *p, const kw_model *m, kw_arena *a) {
    size_t n = p->groups.n;
    kw_ktoks *toks = kw_arena_alloc(a, (n + 1) * sizeof *toks);
    const kw_ktoks **ord = kw_arena_alloc(a, (n + 1) * sizeof *ord);
    if (!toks || !ord)
        return KW_ERR;
    memset(toks, 0, (n + 1) * sizeof *toks);
    for (size_t g = 0; g < n; g++) {
        ord[g] = &toks[g];
        if (kw_ktokens(p, m, &p->groups.v[g], &toks[g], a) != KW_OK)
            return KW_ERR;
    }
    qsort(ord, n, sizeof *ord, kw_ktok_cmp);
    for (size_t i = 0; i < n; i++) {
        const kw_ktoks *t = ord[i], *prev = i ? ord[i - 1] : NULL;
        size_t same = 0;
        while (prev && same < prev->n && same + 1 < t->n &&
               !strcmp(prev->v[same].text, t->v[same].text))
            same++;
        for (size_t d = same; d < t->n; d++) {
            kw_ktree *x = KW_PUSH(a, p->tree);
            if (!x)
                return KW_ERR;
            *x = t->v[d];
            x->depth = d;
            x->group = d + 1 == t->n ? (size_t)(t - toks) + 1 : 0;
        }
    }
    return KW_OK;
}

/* The groups numbered in the tree's order, each group's line its number:
 * p->groups, the rows' group and the tree's lines renumbered alike. */
static kw_status kw_ktree_renumber(kw_kpage *p, kw_arena *a) {
    size_t n = p->groups.n, next = 0;
    size_t *to = kw_arena_alloc(a, (n + 1) * sizeof *to);
    kw_kgroup *g = kw_arena_alloc(a, (n + 1) * sizeof *g);
    if (!to || !g)
        return KW_ERR;
    for (size_t k = 0; k < n; k++)
        to[k] = KW_NONE;
    for (size_t i = 0; i < p->tree.n; i++) {
        size_t k = p->tree.v[i].group - 1;
        if (p->tree.v[i].group && k < n && to[k] == KW_NONE)
            to[k] = next++;
    }
    if (next != n) /* each group has one line: never */
        return KW_OK;
    for (size_t i = 0; i < p->tree.n; i++)
        if (p->tree.v[i].group)
            p->tree.v[i].group = to[p->tree.v[i].group - 1] + 1;
    for (size_t k = 0; k < n; k++)
        g[to[k]] = p->groups.v[k];
    memcpy(p->groups.v, g, n * sizeof *g);
    for (size_t r = 0; r < p->rows.n; r++)
        p->rows.v[r].group = to[p->rows.v[r].group];
    return KW_OK;
}

/* Whether x is "!(y)". */
static bool kw_knegates(const char *x, const char *y) {
    size_t n = strlen(y);
    return !strncmp(x, "!(", 2) && !strncmp(x + 2, y, n) && !strcmp(x + 2 + n, ")");
}

/* The condition among texts[0..n) that text contradicts, else NULL. */
static const char *kw_kcontra_in(const char *text, const char *const *texts, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (kw_knegates(text, texts[i]) || kw_knegates(texts[i], text))
            return texts[i];
    return NULL;
}

/* Each node's contra: its conditions against those of the nodes above it
 * and its own earlier ones (entry names are no conditions). */
static kw_status kw_ktree_contra(kw_kpage *p, kw_arena *a) {
    KW_ARRAY(const char *) above; /* the conditions on the way to node i */
    memset(&above, 0, sizeof(above));
    size_t *mark = kw_arena_alloc(a, (p->tree.n + 1) * sizeof *mark); /* above.n at depth d */
    if (!mark)
        return KW_ERR;
    for (size_t i = 0; i < p->tree.n; i++) {
        kw_ktree *t = &p->tree.v[i];
        above.n = t->depth ? mark[t->depth - 1] : 0;
        for (size_t j = 0; j <= t->more.n; j++) {
            const char *c = j ? t->more.v[j - 1] : t->text;
            if (!j && t->entry)
                continue;
            if (!t->contra)
                t->contra = kw_kcontra_in(c, above.v, above.n);
            const char **slot = KW_PUSH(a, above);
            if (!slot)
                return KW_ERR;
            *slot = c;
        }
        mark[t->depth] = above.n;
    }
    return KW_OK;
}

/* Chains of single children as one node: a node with one child and no
 * group of its own takes its child's text (into more), group and children,
 * and the nodes below move up a level. */
static kw_status kw_ktree_collapse(kw_kpage *p, kw_arena *a) {
    size_t n = p->tree.n;
    const kw_ktree *t = p->tree.v;
    size_t *up = kw_arena_alloc(a, (n + 1) * sizeof *up);
    size_t *kids = kw_arena_alloc(a, (n + 1) * sizeof *kids);
    size_t *at = kw_arena_alloc(a, (n + 1) * sizeof *at); /* a node's place in out */
    size_t *stack = kw_arena_alloc(a, (n + 1) * sizeof *stack);
    if (!up || !kids || !at || !stack)
        return KW_ERR;
    memset(kids, 0, (n + 1) * sizeof *kids);
    for (size_t i = 0; i < n; i++) {
        size_t d = t[i].depth < n ? t[i].depth : n - 1;
        up[i] = d ? stack[d - 1] : KW_NONE;
        stack[d] = i;
        if (up[i] != KW_NONE)
            kids[up[i]]++;
    }
    KW_ARRAY(kw_ktree) out;
    memset(&out, 0, sizeof(out));
    for (size_t i = 0; i < n; i++) {
        size_t u = up[i];
        if (u != KW_NONE && kids[u] == 1 && !t[u].group) {
            kw_ktree *o = &out.v[at[u]];
            const char **m = KW_PUSH(a, o->more);
            if (!m)
                return KW_ERR;
            *m = t[i].text;
            o->group = t[i].group;
            at[i] = at[u];
            continue;
        }
        kw_ktree *o = KW_PUSH(a, out);
        if (!o)
            return KW_ERR;
        *o = t[i];
        o->depth = u == KW_NONE ? 0 : out.v[at[u]].depth + 1;
        at[i] = out.n - 1;
    }
    p->tree.v = out.v, p->tree.n = out.n, p->tree.cap = out.cap;
    return kw_ktree_contra(p, a);
}

static kw_status kw_kfold(kw_kpage *p, const kw_model *m, const kw_kparams *params, kw_arena *a) {
    p->fold = p->rows.n > KW_KPAGE_FOLD_ROWS;
    if (!p->fold)
        return KW_OK;
    if (kw_kfold_common(p, a) != KW_OK)
        return KW_ERR;
    /* the rows of each group, in order: start[g] .. start[g + 1] of idx */
    size_t *start = kw_arena_alloc(a, (p->ngroups + 1) * sizeof *start);
    size_t *idx = kw_arena_alloc(a, (p->rows.n + 1) * sizeof *idx);
    size_t *fill = kw_arena_alloc(a, (p->ngroups + 1) * sizeof *fill);
    if (!start || !idx || !fill)
        return KW_ERR;
    memset(start, 0, (p->ngroups + 1) * sizeof *start);
    for (size_t r = 0; r < p->rows.n; r++)
        start[p->rows.v[r].group + 1]++;
    for (size_t g = 0; g < p->ngroups; g++)
        start[g + 1] += start[g];
    memcpy(fill, start, (p->ngroups + 1) * sizeof *fill);
    for (size_t r = 0; r < p->rows.n; r++)
        idx[fill[p->rows.v[r].group]++] = r;
    for (size_t g = 0; g < p->ngroups; g++) {
        kw_kgroup *k = KW_PUSH(a, p->groups);
        if (!k)
            return KW_ERR;
        k->first = idx[start[g]];
        k->n = start[g + 1] - start[g];
        kw_buf b;
        kw_buf_init(&b);
        kw_kfold_rest(p, m, &p->rows.v[k->first], &b);
        k->rest = b.oom ? NULL : kw_arena_strndup(a, b.ptr ? b.ptr : "", b.len);
        kw_buf_reset(&b);
        kw_kfold_args(p, params, idx + start[g], k->n, &b);
        k->args = b.oom ? NULL : kw_arena_strndup(a, b.ptr ? b.ptr : "", b.len);
        kw_buf_free(&b);
        if (!k->rest || !k->args)
            return KW_ERR;
    }
    return kw_ktree_build(p, m, a) == KW_OK && kw_ktree_renumber(p, a) == KW_OK
               ? kw_ktree_collapse(p, a)
               : KW_ERR;
}

kw_status kw_kpage_build(kw_kpage *p, kw_model *m, const kw_kfam *fam, const size_t *kernels,
                         size_t n, kw_arena *a, kw_err *err) {
    memset(p, 0, sizeof(*p));
    p->fam = fam;
    p->subset = n < fam->kernels.n;
    p->shape = m->shape;
    kw_kparams *params = kw_arena_alloc(a, (n ? n : 1) * sizeof(kw_kparams));
    if (!params)
        return kw_oom(err);
    memset(params, 0, (n ? n : 1) * sizeof(kw_kparams));
    for (size_t i = 0; i < n; i++) {
        kw_krow *r = KW_PUSH(a, p->rows);
        if (!r)
            return kw_oom(err);
        if (kw_krow_build(r, m, kernels[i], &params[i], a, err) != KW_OK)
            return KW_ERR;
        p->nselected += r->v == KW_KV_HOLDS;
        p->ncandidates += r->v == KW_KV_OPEN;
    }
    if (kw_kdiffer(p, params, a) != KW_OK || kw_kgroups(p) != KW_OK || kw_kopen(p, a) != KW_OK ||
        kw_kunreach(p, a) != KW_OK || kw_kcommon(p, a) != KW_OK ||
        kw_kfold(p, m, params, a) != KW_OK)
        return kw_oom(err);
    kw_kpage_walk *w = kw_arena_alloc(a, sizeof(*w));
    if (!w)
        return kw_oom(err);
    p->walk = w;
    return kw_kpage_walk_build(w, p, m, a, err);
}
