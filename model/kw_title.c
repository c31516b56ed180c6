/* kw_title.c: the name a kernel instantiation's page is titled by (and the
 * site's index and page title): its printed name; for a trampoline
 * instantiation (ck_tile's kentry) the kernel struct it runs, short
 * ("ck_tile::GemmKernel<...>"). Where two or more instantiations of one
 * group would get the same short title (three layernorm instances of
 * ck_tile::Layernorm2dFwd), each one's title is its struct's printed name
 * abbreviated down to the template arguments that tell them apart: the
 * arguments on the way to them elided as "...", the differing ones in full.
 * Names are split on their printed form (Clang's), nothing else. */
#include "model/kw_model.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/kw_buf.h"

enum { KW_TITLE_SHORT = 60, KW_TITLE_DEPTH = 16 };

/* A printed name "head<a, b<c>>" split at its top level: the text before its
 * '<' (all of it when it has none), and each argument's span. */
typedef struct kw_tname {
    const char *p;
    size_t len;     /* the whole name */
    size_t headlen; /* up to the '<', or len */
    KW_ARRAY(struct kw_tname) args;
} kw_tname;

/* The end of the argument beginning at s (a ',' or the closing '>' at depth
 * 0), or NULL when brackets do not balance before end. */
static const char *kw_targ_end(const char *s, const char *end) {
    int depth = 0;
    for (const char *c = s; c < end; c++) {
        if (*c == '<' || *c == '(' || *c == '[' || *c == '{')
            depth++;
        else if (*c == ')' || *c == ']' || *c == '}')
            depth--;
        else if (*c == '>' && depth == 0)
            return c;
        else if (*c == '>')
            depth--;
        else if (*c == ',' && depth == 0)
            return c;
        if (depth < 0)
            return NULL;
    }
    return NULL;
}

/* Split p[0, len) into t; false when its brackets do not balance (the name
 * is then not abbreviated). */
static bool kw_tname_split(kw_arena *a, const char *p, size_t len, kw_tname *t, int depth) {
    memset(t, 0, sizeof(*t));
    while (len && p[0] == ' ')
        p++, len--;
    t->p = p;
    t->len = len;
    const char *lt = memchr(p, '<', len);
    if (!lt || p[len - 1] != '>' || depth > KW_TITLE_DEPTH) {
        t->headlen = len;
        return true;
    }
    t->headlen = (size_t)(lt - p);
    const char *end = p + len - 1; /* the closing '>' */
    for (const char *s = lt + 1; s < end;) {
        const char *e = kw_targ_end(s, end + 1);
        if (!e || e > end)
            return false;
        kw_tname *arg = KW_PUSH(a, t->args);
        if (!arg || !kw_tname_split(a, s, (size_t)(e - s), arg, depth + 1))
            return false;
        s = e + 1;
    }
    return true;
}

static bool kw_tname_same(const kw_tname *x, const kw_tname *y) {
    return x->len == y->len && !memcmp(x->p, y->p, x->len);
}

static bool kw_tname_same_head(const kw_tname *x, const kw_tname *y) {
    return x->headlen == y->headlen && !memcmp(x->p, y->p, x->headlen) &&
           x->args.n == y->args.n && x->args.n > 0;
}

/* The path of argument indices from the names' roots down to the one level
 * where they differ in more than one argument (or in one that is not a
 * template of the same head everywhere), and that level's differing
 * arguments (differ[i]). The names are n >= 2 roots of one head. */
typedef struct kw_tpath {
    size_t step[KW_TITLE_DEPTH + 2];
    size_t depth;
    bool *differ; /* per argument of the last level */
} kw_tpath;

static bool kw_tpath_find(kw_arena *a, const kw_tname *const *names, size_t n, kw_tpath *tp) {
    const kw_tname **at = kw_arena_alloc(a, n * sizeof(*at));
    if (!at)
        return false;
    memcpy(at, names, n * sizeof(*at));
    tp->depth = 0;
    for (;;) {
        size_t nargs = at[0]->args.n;
        tp->differ = kw_arena_alloc(a, (nargs ? nargs : 1) * sizeof(bool));
        if (!tp->differ)
            return false;
        size_t ndiffer = 0, which = 0;
        for (size_t i = 0; i < nargs; i++) {
            tp->differ[i] = false;
            for (size_t s = 1; s < n && !tp->differ[i]; s++)
                tp->differ[i] = !kw_tname_same(&at[s]->args.v[i], &at[0]->args.v[i]);
            if (tp->differ[i])
                ndiffer++, which = i;
        }
        if (ndiffer != 1 || tp->depth >= KW_TITLE_DEPTH)
            return true;
        for (size_t s = 1; s < n; s++)
            if (!kw_tname_same_head(&at[s]->args.v[which], &at[0]->args.v[which]))
                return true;
        tp->step[tp->depth++] = which;
        for (size_t s = 0; s < n; s++)
            at[s] = &at[s]->args.v[which];
    }
}

/* An argument that is the same everywhere, at the last level: shown when it
 * is a short word or number ("float", "256"), else elided. */
static bool kw_targ_shown(const kw_tname *t) {
    return !t->args.n && t->len <= 16 && !memchr(t->p, '<', t->len);
}

/* name written with path tp: the levels down to the last with their other
 * arguments elided, the last with its differing arguments in full. */
static void kw_title_write(kw_buf *b, const kw_tname *t, const kw_tpath *tp, size_t level) {
    kw_buf_append(b, t->p, t->headlen);
    kw_buf_putc(b, '<');
    bool last = level == tp->depth, elided = false, first = true;
    for (size_t i = 0; i < t->args.n; i++) {
        const kw_tname *x = &t->args.v[i];
        bool on_path = !last && i == tp->step[level];
        bool full = last && (tp->differ[i] || kw_targ_shown(x));
        if (!on_path && !full) {
            if (!elided)
                kw_buf_puts(b, first ? "..." : ", ...");
            elided = true;
            first = false;
            continue;
        }
        if (!first)
            kw_buf_puts(b, ", ");
        if (on_path)
            kw_title_write(b, x, tp, level + 1);
        else
            kw_buf_append(b, x->p, x->len);
        elided = first = false;
    }
    kw_buf_putc(b, '>');
}

const char *kw_title_short(kw_arena *a, const char *printed) {
    if (!printed)
        return "?";
    if (strlen(printed) <= KW_TITLE_SHORT)
        return printed;
    const char *lt = strchr(printed, '<');
    if (!lt)
        return printed;
    char *s = kw_arena_printf(a, "%.*s<...>", (int)(lt - printed), printed);
    return s ? s : printed;
}

/* ---- the kernel struct's name as the source wrote its type arguments ---- */

/* The position of argument j among its siblings (the arguments of its
 * parent's level, in order), or -1 when a pack comes first (its elements'
 * count is not known) or the name does not fit. */
static long kw_alias_index(const kw_template_arg *args, size_t j, size_t plen) {
    const char *me = args[j].name, *dot = strchr(me + plen, '.');
    size_t clen = dot ? (size_t)(dot - me) : strlen(me); /* me's path down to this level */
    long idx = 0;
    for (size_t i = 0; i < j; i++) {
        const char *nm = args[i].name;
        if (!nm || strlen(nm) <= plen || strncmp(nm, me, plen) || strchr(nm + plen, '.'))
            continue;
        if (strlen(nm) == clen && !strncmp(nm, me, clen))
            break; /* j's ancestor at this level: the siblings before it are counted */
        if (args[i].kind && !strcmp(args[i].kind, "pack"))
            return -1;
        idx++;
    }
    return idx;
}

/* The node of t that argument j (a dotted path of parameter names) is, or NULL. */
static const kw_tname *kw_alias_node(const kw_tname *t, const kw_template_arg *args, size_t j) {
    const char *nm = args[j].name;
    size_t plen = 0;
    for (;;) {
        long idx = kw_alias_index(args, j, plen);
        if (idx < 0 || (size_t)idx >= t->args.n)
            return NULL;
        t = &t->args.v[idx];
        const char *dot = strchr(nm + plen, '.');
        if (!dot)
            return t;
        plen = (size_t)(dot - nm) + 1;
    }
}

typedef struct kw_alias_sub {
    const char *at;
    size_t len;
    const char *written;
} kw_alias_sub;

static int kw_alias_sub_cmp(const void *x, const void *y) {
    const kw_alias_sub *a = x, *b = y;
    return a->at < b->at ? -1 : a->at > b->at;
}

const char *kw_title_aliased(kw_arena *a, const char *printed, const kw_template_arg *args,
                             size_t n) {
    if (!printed || !n)
        return printed;
    kw_tname t;
    if (!kw_tname_split(a, printed, strlen(printed), &t, 0))
        return printed;
    kw_alias_sub *subs = kw_arena_alloc(a, n * sizeof(*subs));
    size_t ns = 0;
    for (size_t j = 0; subs && j < n; j++) {
        const kw_template_arg *x = &args[j];
        if (!x->name || !x->written || !x->value || !x->kind || strcmp(x->kind, "type") ||
            !strstr(x->written, "::") || !strcmp(x->written, x->value))
            continue; /* a qualified alias only: a member's (AccDataType) means nothing here */
        const kw_tname *at = kw_alias_node(&t, args, j);
        if (at && at->len == strlen(x->value) && !memcmp(at->p, x->value, at->len))
            subs[ns++] = (kw_alias_sub){at->p, at->len, x->written};
    }
    if (!ns)
        return printed;
    qsort(subs, ns, sizeof(*subs), kw_alias_sub_cmp);
    kw_buf b;
    kw_buf_init(&b);
    const char *p = printed;
    for (size_t i = 0; i < ns; i++) {
        if (subs[i].at < p)
            continue; /* inside one already replaced */
        kw_buf_append(&b, p, (size_t)(subs[i].at - p));
        kw_buf_puts(&b, subs[i].written);
        p = subs[i].at + subs[i].len;
    }
    kw_buf_puts(&b, p);
    const char *out = b.oom ? printed : kw_arena_strdup(a, kw_buf_str(&b));
    kw_buf_free(&b);
    return out ? out : printed;
}

/* The kernel struct mk runs, its aliases written as the source did. */
static const char *kw_title_functor(kw_model *m, const kw_mkernel *mk) {
    return kw_title_aliased(&m->arena, mk->k->functor, mk->k->functor_args.v,
                            mk->k->functor_args.n);
}

const char *kw_title_name(kw_arena *a, const kw_mkernel *mk) {
    return kw_title_kname(a, mk->k, mk->name);
}

const char *kw_title_kname(kw_arena *a, const kw_kernel *k, const char *name) {
    if (!k || !k->functor || !k->functor_args.n || !name)
        return name;
    const char *shown = kw_title_aliased(a, k->functor, k->functor_args.v, k->functor_args.n);
    if (shown == k->functor)
        return name;
    kw_buf b;
    kw_buf_init(&b);
    size_t flen = strlen(k->functor);
    const char *p = name;
    for (const char *at = strstr(p, k->functor); at; at = strstr(p, k->functor)) {
        kw_buf_append(&b, p, (size_t)(at - p));
        kw_buf_puts(&b, shown);
        p = at + flen;
    }
    kw_buf_puts(&b, p);
    const char *out = b.oom ? NULL : kw_arena_strdup(a, kw_buf_str(&b));
    kw_buf_free(&b);
    return out ? out : name;
}

/* The titles of group g's kernels whose short titles are the same. */
static kw_status kw_title_siblings(kw_model *m, const kw_mgroup *g) {
    size_t n = g->kernels.n;
    for (size_t i = 0; i < n; i++) {
        kw_mkernel *mk = &m->kernels.v[g->kernels.v[i]];
        mk->title = mk->k && mk->k->functor ? kw_title_short(&m->arena, mk->k->functor)
                                            : mk->name;
    }
    /* the kernels that share kernel i's short title, i the first of them */
    const kw_tname **names = calloc(n ? n : 1, sizeof(*names));
    size_t *who = calloc(n ? n : 1, sizeof(*who));
    bool *done = calloc(n ? n : 1, sizeof(*done));
    kw_status st = names && who && done ? KW_OK : KW_ERR;
    for (size_t i = 0; i < n && st == KW_OK; i++) {
        const kw_mkernel *mi = &m->kernels.v[g->kernels.v[i]];
        if (done[i] || !mi->k || !mi->k->functor || !strcmp(mi->title, mi->k->functor))
            continue;
        size_t ns = 0;
        bool split = true;
        for (size_t j = i; j < n && split && st == KW_OK; j++) {
            const kw_mkernel *mj = &m->kernels.v[g->kernels.v[j]];
            if (done[j] || !mj->k || !mj->k->functor || strcmp(mj->title, mi->title))
                continue;
            done[j] = true;
            kw_tname *t = kw_arena_alloc(&m->arena, sizeof(*t));
            if (!t) {
                st = KW_ERR;
                break;
            }
            const char *fn = kw_title_functor(m, mj);
            split = kw_tname_split(&m->arena, fn, strlen(fn), t, 0);
            who[ns] = g->kernels.v[j];
            names[ns++] = t;
        }
        if (st != KW_OK || ns < 2 || !split)
            continue;
        bool one_head = true;
        for (size_t s = 1; s < ns; s++)
            one_head = one_head && kw_tname_same_head(names[s], names[0]);
        kw_tpath tp;
        if (!one_head) /* not one template: each its whole name */
            for (size_t s = 0; s < ns; s++)
                m->kernels.v[who[s]].title = kw_title_functor(m, &m->kernels.v[who[s]]);
        else if (!kw_tpath_find(&m->arena, names, ns, &tp))
            st = KW_ERR;
        else
            for (size_t s = 0; s < ns && st == KW_OK; s++) {
                kw_buf b;
                kw_buf_init(&b);
                kw_title_write(&b, names[s], &tp, 0);
                const char *title = b.oom ? NULL : kw_arena_strdup(&m->arena, kw_buf_str(&b));
                kw_buf_free(&b);
                if (!title)
                    st = KW_ERR;
                else
                    m->kernels.v[who[s]].title = title;
            }
    }
    free(names);
    free(who);
    free(done);
    return st;
}

kw_status kw_model_titles(kw_model *m) {
    for (size_t i = 0; i < m->kernels.n; i++)
        m->kernels.v[i].title = m->kernels.v[i].name;
    for (size_t g = 0; g < m->groups.n; g++)
        if (m->groups.v[g].runs && kw_title_siblings(m, &m->groups.v[g]) != KW_OK)
            return KW_ERR;
    return KW_OK;
}
