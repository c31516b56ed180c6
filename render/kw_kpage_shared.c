/* kw_kpage_shared.c: a kernel page's "What the instantiations share"
 * (kw_kpage_write.h): the facts of the six walkthrough sections every
 * instantiation has alike (model/kw_kpage_walk.h), each stated once, in
 * the walkthrough's order: host side (launch sites, entry points), device
 * kernel (the call tree every instantiation makes, where the trees differ,
 * __shared__ and inline asm), IR facts, ISA. Computes nothing. */
#include "render/kw_kpage_shared.h"

#include <string.h>

#include "model/kw_kpage_walk.h"
#include "render/kw_md.h"

void kw_kpage_shared_loc(kw_render *r, const kw_loc *l, kw_md_in in) {
    if (!l || !l->file) {
        kw_md_text(r->out, "(no location recorded)", in);
        return;
    }
    char *s = kw_arena_printf(&r->scratch, "%s:%d", kw_r_path(r, l->file), l->line);
    kw_md_code(r->out, s ? s : "?", in);
}

void kw_kpage_shared_list(kw_render *r, const char *lead) {
    kw_r_para(r, lead);
    kw_r_list(r);
}

void kw_kpage_shared_at(kw_render *r, const char *code, const kw_loc *l) {
    kw_r_item(r, 0);
    kw_r_c(r, code);
    kw_r_t(r, " at ");
    kw_kpage_shared_loc(r, l, kw_r_prose_in(r));
}

/* In prose. */
static void kw_kpage_shared_ploc(kw_render *r, const kw_loc *l) {
    kw_kpage_shared_loc(r, l, kw_r_prose_in(r));
}

/* Section 1's: the launch sites and entry points, each with its reach. */
static void kw_kpage_shared_host(kw_render *r, const kw_kpage *p) {
    kw_r_h(r, 3);
    kw_r_t(r, "1. Host side");
    kw_r_h_end(r);
    kw_kpage_shared_list(r, "Launched at:");
    for (size_t i = 0; i < p->sites.n; i++) {
        kw_r_item(r, 0);
        kw_kpage_shared_ploc(r, p->sites.v[i].loc);
        kw_r_tf(r, ": %zu of %zu", p->sites.v[i].rows, p->rows.n);
    }
    kw_r_list_end(r);
    kw_r_gap(r);
    if (!p->entries.n)
        return;
    kw_kpage_shared_list(r, "Entry points reaching them:");
    for (size_t i = 0; i < p->entries.n; i++) {
        const kw_entry *e = r->m->entries.v[p->entries.v[i].entry].e;
        kw_r_item(r, 0);
        kw_r_c(r, e->name ? e->name : "?");
        if (e->location.file) {
            kw_r_t(r, " at ");
            kw_kpage_shared_ploc(r, &e->location);
        }
        kw_r_tf(r, ": %zu of %zu", p->entries.v[i].rows, p->rows.n);
    }
    kw_r_list_end(r);
    kw_r_gap(r);
}

static void kw_kpage_shared_call(kw_render *r, const kw_kwalk_call *c) {
    kw_r_c(r, c->label);
    kw_r_t(r, " at ");
    kw_kpage_shared_ploc(r, &c->at);
    if (c->def.file) {
        kw_r_t(r, " (defined at ");
        kw_kpage_shared_ploc(r, &c->def);
        kw_r_t(r, ")");
    }
}

/* Section 2's: the calls every tree has, nested as the tree nests them,
 * then where the trees differ. */
static void kw_kpage_shared_tree(kw_render *r, const kw_kpage *p, const kw_kpage_walk *w) {
    if (!w->calls.n) {
        kw_r_para(r, "No device call every instantiation makes.");
    } else {
        kw_r_ptf(r, "The device calls every instantiation makes (its walkthrough's call tree: "
                    "helper frames folded, a function by its name without template "
                    "arguments), each at its call site:");
        kw_r_list(r);
        for (size_t i = 0; i < w->calls.n; i++) {
            kw_r_item(r, w->calls.v[i].depth);
            kw_kpage_shared_call(r, &w->calls.v[i]);
        }
        kw_r_list_end(r);
        kw_r_gap(r);
        if (w->calls_deep || w->calls_more)
            kw_r_ptf(r,
                     "Left out here: %zu calls below level %d, %zu more beyond the first %d "
                     "(each instantiation's walkthrough has its whole tree).",
                     w->calls_deep, KW_KWALK_DEPTH_MAX + 1, w->calls_more, KW_KWALK_CALLS_MAX);
    }
    if (!w->some.n)
        return;
    kw_kpage_shared_list(r, "Where the instantiations differ: calls only some make (each the "
                            "first of its subtree), with how many make it:");
    for (size_t i = 0; i < w->some.n; i++) {
        const kw_kwalk_call *c = &w->some.v[i];
        kw_r_item(r, 0);
        kw_kpage_shared_call(r, c);
        if (c->under) {
            kw_r_t(r, ", under ");
            kw_r_c(r, c->under);
        }
        kw_r_tf(r, ": %zu of %zu", c->rows, p->rows.n);
    }
    if (w->some_more) {
        kw_r_item(r, 0);
        kw_r_tf(r, "and %zu more", w->some_more);
    }
    kw_r_list_end(r);
    kw_r_gap(r);
}

static void kw_kpage_shared_decls(kw_render *r, const kw_kpage_walk *w) {
    if (w->shared.n) {
        kw_kpage_shared_list(r, "__shared__ variables every instantiation declares alike:");
        for (size_t i = 0; i < w->shared.n; i++) {
            const kw_shared_var *v = w->shared.v[i];
            kw_r_item(r, 0);
            kw_r_c(r, v->name ? v->name : "?");
            kw_r_t(r, " (");
            kw_r_c(r, v->type ? v->type : "?");
            if (v->bytes >= 0)
                kw_r_tf(r, ", %lld bytes", v->bytes);
            kw_r_t(r, ") at ");
            kw_kpage_shared_ploc(r, &v->location);
        }
        kw_r_list_end(r);
        kw_r_gap(r);
    }
    if (!w->asms.n)
        return;
    kw_kpage_shared_list(r, "Inline asm every instantiation has:");
    for (size_t i = 0; i < w->asms.n; i++)
        kw_kpage_shared_at(r, w->asms.v[i]->text ? w->asms.v[i]->text : "?",
                           &w->asms.v[i]->location);
    kw_r_list_end(r);
    kw_r_gap(r);
}

/* Sections 3 and 4's: per arch, the IR idioms and barriers that agree. */
static void kw_kpage_shared_ir(kw_render *r, const kw_kpage_walk *w) {
    bool any = false;
    for (size_t i = 0; i < w->archs.n; i++)
        any |= w->archs.v[i].ir;
    if (!any)
        return;
    kw_r_h(r, 3);
    kw_r_t(r, "3. and 4. IR facts every instantiation has");
    kw_r_h_end(r);
    kw_r_list(r);
    for (size_t i = 0; i < w->archs.n; i++) {
        const kw_kwalk_arch *x = &w->archs.v[i];
        if (!x->ir)
            continue;
        kw_r_item(r, 0);
        kw_r_tf(r, "%s: ", x->arch);
        if (x->barriers >= 0)
            kw_r_tf(r, "%lld workgroup barrier%s; ", x->barriers, x->barriers == 1 ? "" : "s");
        if (!x->idioms.n)
            kw_r_t(r, "no cross-lane idiom every one has");
        else
            kw_r_t(r, "cross-lane idioms: ");
        for (size_t j = 0; j < x->idioms.n; j++) {
            const kw_irf_idiom *d = x->idioms.v[j];
            if (j)
                kw_r_t(r, "; ");
            kw_r_c(r, d->kind ? d->kind : "?");
            if (d->op)
                kw_r_tf(r, " (%s)", d->op);
            kw_r_t(r, " at ");
            kw_kpage_shared_ploc(r, &d->loc.location.at);
        }
    }
    kw_r_list_end(r);
    kw_r_gap(r);
}

static void kw_kpage_shared_words(kw_render *r, const char *const *v, size_t n) {
    for (size_t i = 0; i < n; i++)
        kw_r_tf(r, "%s%s", i ? ", " : "", v[i]);
}

/* Section 5's: per arch, the equal resources and the mix classes every /
 * no instantiation's code has. */
static void kw_kpage_shared_isa(kw_render *r, const kw_kpage_walk *w) {
    if (!w->archs.n)
        return;
    kw_r_h(r, 3);
    kw_r_t(r, "5. ISA every instantiation has");
    kw_r_h_end(r);
    kw_r_list(r);
    for (size_t i = 0; i < w->archs.n; i++) {
        const kw_kwalk_arch *x = &w->archs.v[i];
        kw_r_item(r, 0);
        kw_r_tf(r, "%s: ", x->arch);
        for (size_t j = 0; j < x->same.n; j++)
            kw_r_tf(r, "%s%s %lld", j ? ", " : "", x->same.v[j].what, x->same.v[j].v);
        if (!x->same.n)
            kw_r_t(r, "no resource equal in every one");
        if (x->every.n) {
            kw_r_t(r, "; instructions every one's code has: ");
            kw_kpage_shared_words(r, x->every.v, x->every.n);
        }
        if (x->none.n) {
            kw_r_t(r, "; no one's code has: ");
            kw_kpage_shared_words(r, x->none.v, x->none.n);
        }
    }
    kw_r_list_end(r);
    kw_r_gap(r);
}

void kw_kpage_shared_write(kw_render *r, const kw_kpage *p) {
    const kw_kpage_walk *w = p->walk;
    if (!p->sites.n && (!w || !w->trees))
        return;
    kw_r_h(r, 2);
    kw_r_t(r, "What the instantiations share");
    kw_r_h_end(r);
    kw_r_ptf(r,
             "The walkthrough's facts that are the same in all %zu instantiations, each stated "
             "once; what differs is in the dispatch table.",
             p->rows.n);
    if (p->sites.n)
        kw_kpage_shared_host(r, p);
    if (w && w->trees == p->rows.n) {
        kw_r_h(r, 3);
        kw_r_t(r, "2. Device kernel");
        kw_r_h_end(r);
        kw_kpage_shared_tree(r, p, w);
        kw_kpage_shared_decls(r, w);
        kw_kpage_shared_ir(r, w);
        kw_kpage_shared_isa(r, w);
    }
}
