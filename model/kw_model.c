/* kw_model.c: joining the index into the renderer's relations (see
 * kw_model.h). */
#include "model/kw_model.h"

#include "codeobj/kw_names.h"
#include "model/kw_decode.h"
#include "model/kw_entry.h"
#include "model/kw_node.h"

#include <stdlib.h>
#include <string.h>

static kw_status kw_oom(kw_err *err) {
    return kw_fail(err, "out of memory");
}

/* The node of host function symbol seen in unit tu (kw_node.h), made when new. */
static size_t kw_model_node(kw_model *m, const char *symbol, const char *name,
                            const kw_index_tu *tu, kw_err *err, bool *ok) {
    if (!symbol)
        return KW_NONE;
    size_t *at = kw_node_get(&m->node_of, symbol, tu);
    if (at) {
        if (name && !m->node_name.v[*at])
            m->node_name.v[*at] = name;
        return *at;
    }
    const char **slot = KW_PUSH(&m->arena, m->node_name);
    if (!slot || kw_node_put(&m->node_of, &m->arena, symbol, tu, m->node_name.n - 1) != KW_OK) {
        *ok = false;
        kw_oom(err);
        return KW_NONE;
    }
    *slot = name;
    return m->node_name.n - 1;
}

static int kw_kernel_cmp(const void *a, const void *b) {
    const kw_mkernel *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    if (!c)
        c = strcmp(x->symbol, y->symbol);
    if (!c && x->tu != y->tu) /* the same internal-linkage symbol: by unit */
        c = !x->tu ? -1 : !y->tu ? 1 : strcmp(x->tu->sidecar, y->tu->sidecar);
    return c;
}

/* The kernel of symbol in map (kw_kernel_key -> kernel): unit tu's own, else
 * the one with external linkage. */
static size_t *kw_find(const kw_symmap *map, const char *symbol, const kw_index_tu *tu) {
    if (!symbol)
        return NULL;
    if (tu && tu->sidecar) {
        char *key = kw_kernel_key_buf(symbol, tu->sidecar);
        size_t *at = key ? kw_symmap_get(map, key) : NULL;
        free(key);
        if (at)
            return at;
    }
    return kw_symmap_get(map, symbol);
}

static int kw_group_cmp(const void *a, const void *b) {
    const kw_mgroup *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    if (c || x->runs == y->runs)
        return c;
    return !x->runs ? -1 : !y->runs ? 1 : strcmp(x->runs, y->runs);
}

/* The template of a printed type: "ns::F<int, 4>" -> "ns::F". */
static const char *kw_type_template(kw_arena *a, const char *printed) {
    const char *lt = strchr(printed, '<');
    return lt ? kw_arena_strndup(a, printed, (size_t)(lt - printed)) : printed;
}

bool kw_launch_asm(const kw_launch *l, size_t n, const char **sym, const char **co) {
    if (l->kernel)
        return false;
    if (!l->asm_choices.n) {
        *sym = l->asm_kernel;
        *co = l->code_object;
        return n == 0 && l->asm_kernel;
    }
    for (size_t c = 0; c < l->asm_choices.n; c++) {
        const kw_asm_choice *ch = &l->asm_choices.v[c];
        if (n < ch->candidates.n) {
            const kw_asm_candidate *cd = &ch->candidates.v[n];
            *sym = cd->asm_kernel;
            *co = cd->file ? cd->file : cd->code_object;
            return true;
        }
        n -= ch->candidates.n;
    }
    return false;
}

static kw_status kw_add_code_object(kw_model *m, kw_mkernel *mk, const char *co) {
    if (!co)
        return KW_OK;
    for (size_t i = 0; i < mk->asm_code_objects.n; i++)
        if (!strcmp(mk->asm_code_objects.v[i], co))
            return KW_OK;
    const char **slot = KW_PUSH(&m->arena, mk->asm_code_objects);
    if (!slot)
        return KW_ERR;
    *slot = co;
    if (!mk->asm_code_object)
        mk->asm_code_object = co;
    return KW_OK;
}

static kw_status kw_model_kernels(kw_model *m, kw_err *err) {
    const kw_index *ix = m->ix;
    kw_symmap seen;
    kw_symmap_init(&seen);
    kw_status st = KW_OK;
    for (size_t i = 0; i < ix->kernels.n && st == KW_OK; i++) {
        const kw_kernel *k = &ix->kernels.v[i];
        kw_mkernel *mk = KW_PUSH(&m->arena, m->kernels);
        const char *key = kw_kernel_key(&m->arena, k->symbol, k->tu);
        if (!mk || !key || kw_symmap_put(&seen, key, m->kernels.n - 1) != KW_OK) {
            st = kw_oom(err);
            break;
        }
        mk->symbol = k->symbol;
        mk->name = k->name ? k->name : k->symbol;
        mk->k = k;
        mk->tu = kw_index_kernel_unit(ix, k);
    }
    for (size_t t = 0; t < ix->tus.n && st == KW_OK; t++)
        for (size_t i = 0; i < ix->tus.v[t].launches.n && st == KW_OK; i++) {
            const kw_launch *l = &ix->tus.v[t].launches.v[i];
            const char *sym = NULL, *co = NULL;
            if (l->kernel && !kw_find(&seen, l->kernel, &ix->tus.v[t])) {
                kw_mkernel *mk = KW_PUSH(&m->arena, m->kernels);
                if (!mk || kw_symmap_put(&seen, l->kernel, m->kernels.n - 1) != KW_OK) {
                    st = kw_oom(err);
                    break;
                }
                mk->symbol = l->kernel;
                mk->name = l->kernel_name ? l->kernel_name : l->kernel;
            }
            for (size_t a = 0; st == KW_OK && kw_launch_asm(l, a, &sym, &co); a++) {
                if (!sym)
                    continue;
                size_t *at = kw_symmap_get(&seen, sym);
                kw_mkernel *mk = at ? &m->kernels.v[*at] : KW_PUSH(&m->arena, m->kernels);
                if (!mk || (!at && kw_symmap_put(&seen, sym, m->kernels.n - 1) != KW_OK)) {
                    st = kw_oom(err);
                    break;
                }
                if (!at) {
                    const char *dn = kw_demangle_llvm(&m->arena, sym);
                    mk->symbol = sym;
                    mk->name = dn ? dn : sym;
                    mk->is_asm = true;
                } else if (mk->k) {
                    continue; /* a kernel with a device record of that name */
                }
                if (kw_add_code_object(m, mk, co) != KW_OK)
                    st = kw_oom(err);
            }
        }
    kw_symmap_free(&seen);
    if (st != KW_OK)
        return st;
    if (m->kernels.n)
        qsort(m->kernels.v, m->kernels.n, sizeof(kw_mkernel), kw_kernel_cmp);
    for (size_t i = 0; i < m->kernels.n; i++) {
        const kw_mkernel *mk = &m->kernels.v[i];
        const char *key = kw_kernel_key(&m->arena, mk->symbol, mk->k ? mk->k->tu : NULL);
        if (!key || kw_symmap_put(&m->kernel_of, key, i) != KW_OK)
            return kw_oom(err);
    }
    /* groups by template */
    kw_symmap group_of;
    kw_symmap_init(&group_of);
    for (size_t i = 0; i < m->kernels.n && st == KW_OK; i++) {
        kw_mkernel *mk = &m->kernels.v[i];
        /* an ASM kernel's rows of `map` keep its symbol, the name it is loaded by */
        const char *key = mk->k && mk->k->template_name ? mk->k->template_name
                          : mk->is_asm                  ? mk->symbol
                                                        : mk->name;
        /* a trampoline's instantiations: one group per kernel struct they run */
        const char *runs =
            mk->k && mk->k->functor ? kw_type_template(&m->arena, mk->k->functor) : NULL;
        const char *gkey = runs ? kw_arena_printf(&m->arena, "%s running %s", key, runs) : key;
        if (!gkey) {
            st = kw_oom(err);
            break;
        }
        size_t *g = kw_symmap_get(&group_of, gkey);
        if (!g) {
            kw_mgroup *ng = KW_PUSH(&m->arena, m->groups);
            if (!ng || kw_symmap_put(&group_of, gkey, m->groups.n - 1) != KW_OK) {
                st = kw_oom(err);
                break;
            }
            ng->key = key;
            ng->runs = runs;
            g = kw_symmap_get(&group_of, gkey);
        }
        size_t *slot = KW_PUSH(&m->arena, m->groups.v[*g].kernels);
        if (!slot)
            st = kw_oom(err);
        else
            *slot = i;
    }
    kw_symmap_free(&group_of);
    if (st != KW_OK)
        return st;
    if (m->groups.n)
        qsort(m->groups.v, m->groups.n, sizeof(kw_mgroup), kw_group_cmp);
    for (size_t g = 0; g < m->groups.n; g++)
        for (size_t j = 0; j < m->groups.v[g].kernels.n; j++)
            m->kernels.v[m->groups.v[g].kernels.v[j]].group = g;
    return KW_OK;
}

/* The launch joins the kernel's launches, once (a table's rows may name the
 * same kernel twice). */
static kw_status kw_link_launch(kw_model *m, const char *sym, size_t launch) {
    size_t *k = kw_find(&m->kernel_of, sym, m->launches.v[launch].tu);
    if (!k)
        return KW_OK;
    kw_mkernel *mk = &m->kernels.v[*k];
    if (mk->launches.n && mk->launches.v[mk->launches.n - 1] == launch)
        return KW_OK;
    size_t *slot = KW_PUSH(&m->arena, mk->launches);
    if (!slot)
        return KW_ERR;
    *slot = launch;
    return KW_OK;
}

static bool kw_loc_same(const kw_loc *a, const kw_loc *b);

/* Is launch i of tu one of a library launch's records for different users'
 * lines: a neighbour with the same <<<>>> and kernel at another location? */
static bool kw_launch_forked(const kw_index_tu *tu, size_t i) {
    const kw_launch *l = &tu->launches.v[i];
    if (!l->library || !l->kernel)
        return false;
    for (size_t j = i ? i - 1 : i + 1; j <= i + 1 && j < tu->launches.n; j += 2) {
        const kw_launch *o = &tu->launches.v[j];
        if (o->library && o->kernel && !strcmp(o->kernel, l->kernel) &&
            kw_loc_same(&o->site, &l->site) && !kw_loc_same(&o->location, &l->location))
            return true;
    }
    return false;
}

/* shadowed: kw_entries_shadowed's flags (those entries are left out). */
static kw_status kw_model_host_from(kw_model *m, const bool *shadowed, kw_err *err) {
    const kw_index *ix = m->ix;
    size_t ek = 0; /* entry number over the whole index */
    bool ok = true;
    for (size_t t = 0; t < ix->tus.n && ok; t++) {
        const kw_index_tu *tu = &ix->tus.v[t];
        for (size_t i = 0; i < tu->launches.n && ok; i++) {
            const kw_launch *l = &tu->launches.v[i];
            kw_mlaunch *ml = KW_PUSH(&m->arena, m->launches);
            if (!ml)
                return kw_oom(err);
            ml->tu = tu;
            ml->l = l;
            ml->via_location = kw_launch_forked(tu, i);
            ml->node = kw_model_node(m, l->function_symbol, l->function, tu, err, &ok);
            for (size_t c = 0; c < l->instantiation_chain.n && ok; c++)
                kw_model_node(m, l->instantiation_chain.v[c].symbol,
                              l->instantiation_chain.v[c].function, tu, err, &ok);
            const char *ksym = l->kernel, *co = NULL;
            if (ksym && kw_link_launch(m, ksym, m->launches.n - 1) != KW_OK)
                return kw_oom(err);
            for (size_t a = 0; !l->kernel && kw_launch_asm(l, a, &ksym, &co); a++)
                if (ksym && kw_link_launch(m, ksym, m->launches.n - 1) != KW_OK)
                    return kw_oom(err);
        }
        for (size_t i = 0; i < tu->host_calls.n && ok; i++) {
            const kw_host_call *c = &tu->host_calls.v[i];
            if (!c->caller || !c->callee)
                continue;
            kw_mcall *mc = KW_PUSH(&m->arena, m->calls);
            if (!mc)
                return kw_oom(err);
            mc->tu = tu;
            mc->c = c;
            mc->from = kw_model_node(m, c->caller, c->caller_name, tu, err, &ok);
            mc->to = kw_model_node(m, c->callee, c->callee_name, tu, err, &ok);
        }
        for (size_t i = 0; i < tu->entries.n && ok; i++) {
            const kw_entry *e = &tu->entries.v[i];
            if (shadowed[ek++])
                continue;
            kw_mentry *me = KW_PUSH(&m->arena, m->entries);
            if (!me)
                return kw_oom(err);
            me->tu = tu;
            me->e = e;
            me->node = kw_model_node(m, e->function_symbol, e->function, tu, err, &ok);
        }
    }
    if (!ok)
        return KW_ERR;
    size_t n = m->node_name.n;
    m->rfirst = calloc(n + 2, sizeof(size_t));
    m->efirst = calloc(n + 2, sizeof(size_t));
    m->redge = malloc((m->calls.n + 1) * sizeof(size_t));
    m->eidx = malloc((m->entries.n + 1) * sizeof(size_t));
    m->stamp = calloc(n + 1, sizeof(unsigned));
    m->queue = malloc((n + 1) * sizeof(size_t));
    m->ffirst = calloc(n + 2, sizeof(size_t));
    m->fedge = malloc((m->calls.n + 1) * sizeof(size_t));
    m->on_path = calloc(n + 1, 1);
    m->dfs_node = malloc((n + 1) * sizeof(size_t));
    m->dfs_next = malloc((n + 1) * sizeof(size_t));
    m->dfs_calls = malloc((n + 1) * sizeof(size_t));
    if (!m->rfirst || !m->efirst || !m->redge || !m->eidx || !m->stamp || !m->queue ||
        !m->ffirst || !m->fedge || !m->on_path || !m->dfs_node || !m->dfs_next || !m->dfs_calls)
        return kw_oom(err);
    for (size_t i = 0; i < m->calls.n; i++) {
        m->rfirst[m->calls.v[i].to + 2]++;
        m->ffirst[m->calls.v[i].from + 2]++;
    }
    for (size_t i = 0; i < m->entries.n; i++)
        if (m->entries.v[i].node != KW_NONE)
            m->efirst[m->entries.v[i].node + 2]++;
    for (size_t i = 2; i < n + 2; i++) {
        m->rfirst[i] += m->rfirst[i - 1];
        m->efirst[i] += m->efirst[i - 1];
        m->ffirst[i] += m->ffirst[i - 1];
    }
    /* fill with rfirst[i+1] as the cursor of node i; afterwards rfirst[i+1] is the end of i */
    for (size_t i = 0; i < m->calls.n; i++) {
        m->redge[m->rfirst[m->calls.v[i].to + 1]++] = i;
        m->fedge[m->ffirst[m->calls.v[i].from + 1]++] = i;
    }
    for (size_t i = 0; i < m->entries.n; i++)
        if (m->entries.v[i].node != KW_NONE)
            m->eidx[m->efirst[m->entries.v[i].node + 1]++] = i;
    return KW_OK;
}

static bool kw_streq(const char *a, const char *b) {
    return a && b && !strcmp(a, b);
}

static kw_status kw_model_ops(kw_model *m, kw_err *err) {
    if (!m->py)
        return KW_OK;
    for (size_t o = 0; o < m->py->ops.n; o++) {
        const kw_py_op *op = &m->py->ops.v[o];
        if (!op->entry_kind || !op->function)
            continue;
        bool pybind = !strcmp(op->entry_kind, "pybind");
        for (size_t i = 0; i < m->entries.n; i++) {
            const kw_entry *e = m->entries.v[i].e;
            if (!kw_streq(e->kind, op->entry_kind) || !kw_streq(e->name, op->function))
                continue;
            if (pybind && !kw_streq(e->module, op->module))
                continue;
            size_t *slot = KW_PUSH(&m->arena, m->entries.v[i].ops);
            if (!slot)
                return kw_oom(err);
            *slot = o;
        }
    }
    return KW_OK;
}

static kw_status kw_model_host(kw_model *m, kw_err *err) {
    bool *shadowed = kw_entries_shadowed(m->ix);
    if (!shadowed)
        return kw_oom(err);
    kw_status st = kw_model_host_from(m, shadowed, err);
    free(shadowed);
    return st;
}

kw_status kw_model_build(kw_model *m, const kw_index *ix, const kw_py_ops *py, kw_err *err) {
    memset(m, 0, sizeof(*m));
    kw_arena_init(&m->arena);
    kw_symmap_init(&m->kernel_of);
    kw_symmap_init(&m->node_of);
    m->ix = ix;
    m->py = py;
    if (kw_model_kernels(m, err) != KW_OK || kw_model_host(m, err) != KW_OK ||
        kw_model_ops(m, err) != KW_OK)
        return KW_ERR;
    if (kw_model_titles(m) != KW_OK || !(m->decode = kw_decode_new(ix)))
        return kw_oom(err);
    return KW_OK;
}

void kw_model_free(kw_model *m) {
    free(m->rfirst);
    free(m->redge);
    free(m->efirst);
    free(m->eidx);
    free(m->stamp);
    free(m->queue);
    free(m->ffirst);
    free(m->fedge);
    free(m->on_path);
    free(m->dfs_node);
    free(m->dfs_next);
    free(m->dfs_calls);
    kw_symmap_free(&m->kernel_of);
    kw_symmap_free(&m->node_of);
    kw_decode_free(m->decode);
    kw_arena_free(&m->arena);
    memset(m, 0, sizeof(*m));
}

const kw_mkernel *kw_model_kernel(const kw_model *m, const char *symbol, const kw_index_tu *tu) {
    size_t *at = kw_find(&m->kernel_of, symbol, tu);
    return at ? &m->kernels.v[*at] : NULL;
}

static int kw_size_cmp(const void *a, const void *b) {
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

static bool kw_loc_same(const kw_loc *a, const kw_loc *b) {
    return a->line == b->line && a->column == b->column &&
           ((!a->file && !b->file) || (a->file && b->file && !strcmp(a->file, b->file)));
}

/* Is call ci the same call site as an earlier call of its caller (a header
 * function recorded by several translation units)? */
static bool kw_call_repeated(const kw_model *m, size_t k) {
    const kw_mcall *c = &m->calls.v[m->fedge[k]];
    for (size_t j = m->ffirst[c->from]; j < k; j++) {
        const kw_mcall *d = &m->calls.v[m->fedge[j]];
        if (d->to == c->to && kw_loc_same(&d->c->location, &c->c->location))
            return true;
    }
    return false;
}

/* The call paths from node `from` to node `target` through nodes that reach
 * target (stamped by the caller), without repeating a node, depth first in
 * call order: the first KW_PATHS_SHOWN are pushed to out for entry e, then
 * ordered shortest first (stable). */
static bool kw_path_via(const kw_model *m, size_t depth, const kw_loc *via) {
    if (!via)
        return true;
    for (size_t i = 0; i + 1 < depth; i++)
        if (kw_loc_same(&m->calls.v[m->dfs_calls[i]].c->location, via))
            return true;
    return false;
}

static kw_status kw_model_enumerate(kw_model *m, size_t e, size_t from, size_t target,
                                    const kw_loc *via, kw_arena *a, kw_mpaths *out,
                                    kw_err *err) {
    size_t first = out->v.n, found = 0, steps = 0, depth = 0;
    bool cut = false;
    m->dfs_node[0] = from;
    m->dfs_next[0] = m->ffirst[from];
    m->on_path[from] = 1;
    depth = 1;
    while (depth) {
        size_t u = m->dfs_node[depth - 1];
        if (u == target && !kw_path_via(m, depth, via)) {
            /* another user's route to the library's launch */
        } else if (u == target) {
            if (found < KW_PATHS_SHOWN) {
                kw_mpath *p = KW_PUSH(a, out->v);
                if (!p)
                    return kw_oom(err);
                p->entry = e;
                for (size_t i = 0; i + 1 < depth; i++) {
                    size_t *slot = KW_PUSH(a, p->calls);
                    if (!slot)
                        return kw_oom(err);
                    *slot = m->dfs_calls[i];
                }
            }
            found++;
        } else if (found < KW_PATHS_COUNTED && steps < KW_PATHS_STEPS) {
            size_t k = m->dfs_next[depth - 1];
            for (; k < m->ffirst[u + 1]; k++) {
                const kw_mcall *c = &m->calls.v[m->fedge[k]];
                steps++;
                if (m->stamp[c->to] == m->gen && !m->on_path[c->to] && !c->c->dead &&
                    !kw_call_repeated(m, k))
                    break;
            }
            if (k < m->ffirst[u + 1]) {
                size_t v = m->calls.v[m->fedge[k]].to;
                m->dfs_next[depth - 1] = k + 1;
                m->dfs_calls[depth - 1] = m->fedge[k];
                m->dfs_node[depth] = v;
                m->dfs_next[depth] = m->ffirst[v];
                m->on_path[v] = 1;
                depth++;
                continue;
            }
        } else {
            cut = true;
        }
        m->on_path[u] = 0;
        depth--;
    }
    size_t n = out->v.n - first;
    kw_mpath *v = out->v.v + first;
    for (size_t i = 1; i < n; i++) /* insertion sort: stable, n <= KW_PATHS_SHOWN */
        for (size_t j = i; j > 0 && v[j].calls.n < v[j - 1].calls.n; j--) {
            kw_mpath t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    for (size_t i = 0; i < n; i++) {
        v[i].nth = i + 1;
        v[i].of = found;
        v[i].at_least = cut;
    }
    return KW_OK;
}

/* Stamp the nodes that reach target (a breadth-first search over the
 * callers, following dead calls too when with_dead); they are queue[0..n). */
static size_t kw_model_ancestors(kw_model *m, size_t target, bool with_dead) {
    if (++m->gen == 0) { /* wrapped: clear the stamps */
        memset(m->stamp, 0, m->node_name.n * sizeof(unsigned));
        m->gen = 1;
    }
    size_t head = 0, tail = 0;
    m->stamp[target] = m->gen;
    m->queue[tail++] = target;
    while (head < tail) {
        size_t u = m->queue[head++];
        for (size_t k = m->rfirst[u]; k < m->rfirst[u + 1]; k++) {
            const kw_mcall *c = &m->calls.v[m->redge[k]];
            if (m->stamp[c->from] == m->gen || (c->c->dead && !with_dead))
                continue;
            m->stamp[c->from] = m->gen;
            m->queue[tail++] = c->from;
        }
    }
    return tail;
}

/* Does an entry point sit at one of the first n queued nodes? */
static bool kw_model_any_entry(const kw_model *m, size_t n) {
    for (size_t q = 0; q < n; q++)
        if (m->efirst[m->queue[q]] < m->efirst[m->queue[q] + 1])
            return true;
    return false;
}

kw_status kw_model_paths(kw_model *m, size_t li, kw_arena *a, kw_mpaths *out, kw_err *err) {
    if (m->lpaths) {
        *out = m->lpaths[li];
        return KW_OK;
    }
    memset(out, 0, sizeof(*out));
    if (m->launches.v[li].l->dead) {
        out->dead = true;
        return KW_OK;
    }
    size_t target = m->launches.v[li].node;
    if (target == KW_NONE)
        return KW_OK;
    size_t tail = kw_model_ancestors(m, target, false);
    if (!kw_model_any_entry(m, tail)) {
        /* unreached: dead when entries reach it through calls that never happen */
        out->dead = kw_model_any_entry(m, kw_model_ancestors(m, target, true));
        return KW_OK;
    }
    /* the entries at those nodes, in entry order, each with its paths */
    KW_ARRAY(size_t) entries = {0};
    for (size_t q = 0; q < tail; q++)
        for (size_t k = m->efirst[m->queue[q]]; k < m->efirst[m->queue[q] + 1]; k++) {
            size_t *slot = KW_PUSH(a, entries);
            if (!slot)
                return kw_oom(err);
            *slot = m->eidx[k];
        }
    if (entries.n > 1)
        qsort(entries.v, entries.n, sizeof(size_t), kw_size_cmp);
    for (size_t i = 0; i < entries.n; i++)
        if (kw_model_enumerate(m, entries.v[i], m->entries.v[entries.v[i]].node, target,
                               m->launches.v[li].via_location ? &m->launches.v[li].l->location
                                                              : NULL,
                               a, out, err) != KW_OK)
            return KW_ERR;
    return KW_OK;
}

kw_status kw_model_cache_paths(kw_model *m, kw_err *err) {
    if (m->lpaths)
        return KW_OK;
    kw_mpaths *p = kw_arena_alloc(&m->arena, (m->launches.n + 1) * sizeof(kw_mpaths));
    if (!p)
        return kw_oom(err);
    for (size_t i = 0; i < m->launches.n; i++)
        if (kw_model_paths(m, i, &m->arena, &p[i], err) != KW_OK)
            return KW_ERR;
    m->lpaths = p;
    return KW_OK;
}
