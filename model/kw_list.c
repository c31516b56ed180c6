/* kw_list.c: the rows of `kwalk list` (kw_list.h): every kernel of the
 * index and every ASM kernel a launch loads, a row each (per unit for
 * internal linkage), their launches, then the host call graph in compressed
 * rows and a breadth-first search from each entry point for the kernels it
 * reaches. */
#define _POSIX_C_SOURCE 200809L
#include "model/kw_list.h"

#include <stdlib.h>
#include <string.h>

#include "codeobj/kw_names.h"
#include "common/kw_natcmp.h"
#include "model/kw_entry.h"
#include "model/kw_model.h"
#include "model/kw_node.h"

/* The row of a launch's kernel: its unit's own (internal linkage), else the build's. */
static size_t *kw_list_find(const kw_list *l, const char *symbol, const kw_index_tu *tu) {
    if (tu->sidecar) {
        char *key = kw_kernel_key_buf(symbol, tu->sidecar);
        size_t *at = key ? kw_symmap_get(&l->row_of, key) : NULL;
        free(key);
        if (at)
            return at;
    }
    return kw_symmap_get(&l->row_of, symbol);
}

/* The row of symbol (and k's unit, for internal linkage), made when new; its index in *at. */
/* r's archs: its kernel's, sorted (strcmp), each once. False when out of
 * memory. */
static bool kw_list_row_archs(kw_list *l, kw_list_row *r, const kw_kernel *k) {
    for (size_t i = 0; k && i < k->archs.n; i++) {
        const char *a = k->archs.v[i].arch;
        size_t j = 0;
        while (a && j < r->archs.n && strcmp(r->archs.v[j], a) < 0)
            j++;
        if (!a || (j < r->archs.n && !strcmp(r->archs.v[j], a)))
            continue;
        if (!KW_PUSH(&l->arena, r->archs))
            return false;
        memmove(&r->archs.v[j + 1], &r->archs.v[j], (r->archs.n - 1 - j) * sizeof(r->archs.v[0]));
        r->archs.v[j] = a;
    }
    return true;
}

static bool kw_list_add_row(kw_list *l, const char *symbol, const char *name, const kw_kernel *k,
                            size_t *at) {
    const char *key = kw_kernel_key(&l->arena, symbol, k ? k->tu : NULL);
    if (!key)
        return false; /* out of memory */
    size_t *have = kw_symmap_get(&l->row_of, key);
    if (have) {
        *at = *have;
        return true;
    }
    kw_list_row *r = KW_PUSH(&l->arena, l->rows);
    if (!r || kw_symmap_put(&l->row_of, key, l->rows.n - 1) != KW_OK)
        return false; /* out of memory */
    r->symbol = symbol;
    r->name = name ? name : symbol;
    r->kernel = k;
    r->tu = kw_index_kernel_unit(l->ix, k);
    *at = l->rows.n - 1;
    return kw_list_row_archs(l, r, k);
}

/* The nth kernel a launch runs (false past the last): its kernel, or its
 * precompiled ASM kernels (kw_launch_asm; *sym NULL for a table row that
 * names none, *co their code object). */
static bool kw_list_runs(const kw_launch *la, size_t n, const char **sym, const char **co) {
    *co = NULL;
    if (la->kernel) {
        *sym = la->kernel;
        return n == 0;
    }
    return kw_launch_asm(la, n, sym, co);
}

/* The rows of the kernels launch la runs; an ASM kernel's row (unless the
 * index has a device record of that name) is marked and gets the code object. */
static bool kw_list_launch_rows(kw_list *l, const kw_launch *la, const kw_index_tu *tu) {
    const char *sym, *co;
    for (size_t n = 0; kw_list_runs(la, n, &sym, &co); n++) {
        if (!sym)
            continue;
        size_t *found = kw_list_find(l, sym, tu), at = found ? *found : 0;
        /* an ASM kernel: LLVM's demangling of its symbol beside it, as a HIP
         * kernel's printed name is */
        const char *name = la->kernel ? la->kernel_name
                           : found    ? NULL
                                      : kw_demangle_llvm(&l->arena, sym);
        if (!found && !kw_list_add_row(l, sym, name, NULL, &at))
            return false;
        kw_list_row *r = &l->rows.v[at];
        if (la->kernel || r->kernel)
            continue;
        r->is_asm = true;
        bool seen = !co;
        for (size_t i = 0; !seen && i < r->code_objects.n; i++)
            seen = !strcmp(r->code_objects.v[i], co);
        const char **slot = seen ? NULL : KW_PUSH(&l->arena, r->code_objects);
        if (!seen && !slot)
            return false; /* out of memory */
        if (slot)
            *slot = co;
    }
    return true;
}

/* The node of host function symbol seen in unit tu (kw_node.h), made when new. */
static bool kw_list_node(kw_list *l, const char *symbol, const kw_index_tu *tu) {
    if (!symbol || kw_node_get(&l->node_of, symbol, tu))
        return true;
    if (kw_node_put(&l->node_of, &l->arena, symbol, tu, l->nnodes++) != KW_OK)
        return false; /* out of memory */
    return true;
}

/* The node of a symbol kw_list_node made. */
static size_t kw_list_node_of(const kw_list *l, const char *symbol, const kw_index_tu *tu) {
    return *kw_node_get(&l->node_of, symbol, tu);
}

#define KW_EACH_TU(l, tu)                                                                          \
    for (const kw_index_tu *tu = (l)->ix->tus.v; tu < (l)->ix->tus.v + (l)->ix->tus.n; tu++)

static bool kw_list_collect_tus(kw_list *l, const bool *shadowed);

/* Rows for every kernel (and every launched symbol), nodes for every host function. */
static bool kw_list_collect(kw_list *l) {
    const kw_index *ix = l->ix;
    size_t at;
    for (size_t i = 0; i < ix->kernels.n; i++) {
        const kw_kernel *k = &ix->kernels.v[i];
        /* the kernel struct a trampoline runs, its aliases as the source wrote them */
        if (!kw_list_add_row(l, k->symbol, kw_title_kname(&l->arena, k, k->name), k, &at))
            return false;
    }
    bool *shadowed = kw_entries_shadowed(ix);
    if (!shadowed)
        return false; /* out of memory */
    bool ok = kw_list_collect_tus(l, shadowed);
    free(shadowed);
    return ok;
}

/* The host side of every TU; shadowed: kw_entries_shadowed's flags. */
static bool kw_list_collect_tus(kw_list *l, const bool *shadowed) {
    size_t ek = 0;
    KW_EACH_TU(l, tu) {
        for (size_t i = 0; i < tu->launches.n; i++) {
            const kw_launch *la = &tu->launches.v[i];
            if (!kw_list_launch_rows(l, la, tu))
                return false;
            if (!kw_list_node(l, la->function_symbol, tu))
                return false;
        }
        for (size_t i = 0; i < tu->host_calls.n; i++)
            if (!kw_list_node(l, tu->host_calls.v[i].caller, tu) ||
                !kw_list_node(l, tu->host_calls.v[i].callee, tu))
                return false;
        for (size_t i = 0; i < tu->entries.n; i++) {
            if (shadowed[ek++])
                continue;
            const kw_entry **e = KW_PUSH(&l->arena, l->entries);
            const kw_index_tu **et = e ? KW_PUSH(&l->arena, l->entry_tus) : NULL;
            if (!et)
                return false; /* out of memory */
            *e = &tu->entries.v[i];
            *et = tu;
            if (!kw_list_node(l, (*e)->function_symbol, tu))
                return false;
        }
    }
    return true;
}

/* Compressed adjacency: the call edges, and the rows each node launches. */
static bool kw_list_graph(kw_list *l) {
    size_t n = l->nnodes;
    l->first = calloc(n + 1, sizeof(size_t));
    l->lfirst = calloc(n + 1, sizeof(size_t));
    if (!l->first || !l->lfirst)
        return false; /* out of memory */
    KW_EACH_TU(l, tu) {
        for (size_t i = 0; i < tu->host_calls.n; i++)
            if (tu->host_calls.v[i].caller && tu->host_calls.v[i].callee)
                l->first[kw_list_node_of(l, tu->host_calls.v[i].caller, tu) + 1]++;
        for (size_t i = 0; i < tu->launches.n; i++) {
            const kw_launch *la = &tu->launches.v[i];
            const char *sym, *co;
            for (size_t n = 0; la->function_symbol && kw_list_runs(la, n, &sym, &co); n++)
                if (sym)
                    l->lfirst[kw_list_node_of(l, la->function_symbol, tu) + 1]++;
        }
    }
    for (size_t i = 0; i < n; i++) {
        l->first[i + 1] += l->first[i];
        l->lfirst[i + 1] += l->lfirst[i];
    }
    l->edge = malloc((l->first[n] + 1) * sizeof(size_t));
    l->lrow = malloc((l->lfirst[n] + 1) * sizeof(size_t));
    size_t *fill = calloc(n + 1, sizeof(size_t)), *lfill = calloc(n + 1, sizeof(size_t));
    bool ok = l->edge && l->lrow && fill && lfill;
    if (ok) {
        KW_EACH_TU(l, tu) {
            for (size_t i = 0; i < tu->host_calls.n; i++) {
                const kw_host_call *c = &tu->host_calls.v[i];
                if (!c->caller || !c->callee)
                    continue;
                size_t from = kw_list_node_of(l, c->caller, tu);
                l->edge[l->first[from] + fill[from]++] = kw_list_node_of(l, c->callee, tu);
            }
            for (size_t i = 0; i < tu->launches.n; i++) {
                const kw_launch *la = &tu->launches.v[i];
                const char *sym, *co;
                for (size_t n = 0; la->function_symbol && kw_list_runs(la, n, &sym, &co); n++) {
                    if (!sym)
                        continue;
                    size_t from = kw_list_node_of(l, la->function_symbol, tu);
                    l->lrow[l->lfirst[from] + lfill[from]++] = *kw_list_find(l, sym, tu);
                }
            }
        }
    }
    free(fill);
    free(lfill);
    return ok;
}

/* Launch sites per row, and entries per row by a BFS from each entry. */
static bool kw_list_reach(kw_list *l) {
    KW_EACH_TU(l, tu) {
        for (size_t i = 0; i < tu->launches.n; i++) {
            const kw_launch *la = &tu->launches.v[i];
            const char *sym, *co;
            for (size_t n = 0; kw_list_runs(la, n, &sym, &co); n++) {
                if (!sym)
                    continue;
                kw_list_row *r = &l->rows.v[*kw_list_find(l, sym, tu)];
                const kw_launch **slot = KW_PUSH(&l->arena, r->launches);
                if (!slot)
                    return false; /* out of memory */
                *slot = la;
            }
        }
    }
    size_t n = l->nnodes;
    size_t *visited = calloc(n + 1, sizeof(size_t)), *queue = malloc((n + 1) * sizeof(size_t));
    bool ok = visited && queue;
    for (size_t e = 0; ok && e < l->entries.n; e++) {
        const char *fs = l->entries.v[e]->function_symbol;
        if (!fs)
            continue;
        size_t stamp = e + 1, head = 0, tail = 0;
        size_t start = kw_list_node_of(l, fs, l->entry_tus.v[e]);
        visited[start] = stamp;
        queue[tail++] = start;
        while (ok && head < tail) {
            size_t u = queue[head++];
            for (size_t k = l->lfirst[u]; ok && k < l->lfirst[u + 1]; k++) {
                kw_list_row *r = &l->rows.v[l->lrow[k]];
                if (r->stamp == stamp)
                    continue;
                r->stamp = stamp;
                size_t *slot = KW_PUSH(&l->arena, r->entries);
                if (!slot)
                    ok = false;
                else
                    *slot = e;
            }
            for (size_t k = l->first[u]; k < l->first[u + 1]; k++) {
                size_t v = l->edge[k];
                if (visited[v] != stamp) {
                    visited[v] = stamp;
                    queue[tail++] = v;
                }
            }
        }
    }
    free(visited);
    free(queue);
    return ok;
}

static int kw_list_row_cmp(const void *a, const void *b) {
    const kw_list_row *x = a, *y = b;
    int c = kw_natcmp(x->name, y->name);
    if (!c)
        c = strcmp(x->symbol, y->symbol);
    if (!c && x->tu != y->tu) /* one internal-linkage symbol in several units */
        c = !x->tu ? -1 : !y->tu ? 1 : strcmp(x->tu->sidecar, y->tu->sidecar);
    return c;
}

kw_status kw_list_build(kw_list *l, const kw_index *ix, kw_err *err) {
    memset(l, 0, sizeof(*l));
    kw_arena_init(&l->arena);
    kw_symmap_init(&l->row_of);
    kw_symmap_init(&l->node_of);
    l->ix = ix;
    if (!kw_list_collect(l) || !kw_list_graph(l) || !kw_list_reach(l))
        return kw_fail(err, "out of memory");
    if (l->rows.n)
        qsort(l->rows.v, l->rows.n, sizeof(kw_list_row), kw_list_row_cmp);
    /* row_of named the rows' places before the sort: name the sorted ones */
    kw_symmap_free(&l->row_of);
    kw_symmap_init(&l->row_of);
    for (size_t i = 0; i < l->rows.n; i++) {
        const kw_list_row *r = &l->rows.v[i];
        const char *key = kw_kernel_key(&l->arena, r->symbol, r->kernel ? r->kernel->tu : NULL);
        if (!key || kw_symmap_put(&l->row_of, key, i) != KW_OK)
            return kw_fail(err, "out of memory");
    }
    return KW_OK;
}

void kw_list_free(kw_list *l) {
    free(l->first);
    free(l->edge);
    free(l->lfirst);
    free(l->lrow);
    kw_symmap_free(&l->row_of);
    kw_symmap_free(&l->node_of);
    kw_arena_free(&l->arena);
    memset(l, 0, sizeof(*l));
}
