/* cmd_list.c: `kwalk list [--db FILE]`: one line per kernel instantiation of
 * the index, and per precompiled ASM kernel a launch loads, tab-separated,
 * sorted by printed name (in natural order, kw_natcmp) then symbol:
 *
 *   NAME <TAB> SYMBOL <TAB> ARCHS <TAB> LAUNCHES <TAB> ENTRIES <TAB> TU <TAB> KIND <TAB>
 * CODE_OBJECTS
 *
 * ARCHS is a comma-separated sorted list (gfx942,gfx950); LAUNCHES the launch
 * sites file:line, comma-separated, in index order; ENTRIES the host entry
 * points that reach a launch of the kernel, as KIND:NAME (pybind names as
 * pybind:MODULE.NAME, torch as torch:NS.OP; a `cxx` entry the index shadows,
 * kw_entry.h, is left out). An empty field is "-". A kernel that is launched but
 * has no device record in the index is listed too, with ARCHS "-". TU is
 * the source of the translation unit a kernel with internal linkage belongs
 * to ("-" for external linkage): the same symbol in two units is two kernels,
 * two lines, each with its unit's launches. KIND is "hip" (compiled from
 * source), "triton" (a Triton specialization, `language: triton`: its
 * CODE_OBJECTS the cache's .hsaco) or "asm" (a precompiled kernel that
 * launches load by name from a code object, as `render` and `map` show it:
 * its ARCHS "-", its CODE_OBJECTS the files the launches give,
 * comma-separated; "-" for hip kernels).
 *
 * Reachability: an entry point reaches the functions found by a breadth-first
 * search from its function_symbol along the host_calls edges (caller ->
 * callee, across all translation units); it reaches a kernel when one of those
 * functions (the entry's own function included) is the function_symbol of a
 * launch of that kernel.
 *
 * --json: the same rows as one JSON document (docs/json.md), written with
 * jansson: {"kwalk_list": 1, "kernels": [{name, symbol, archs, launches
 * [{file, line}], entries [{kind, module, name}], tu, kind, code_objects}]}. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/kw_cli.h"
#include "cli/kw_cli_json.h"
#include "codeobj/kw_names.h"
#include "common/kw_natcmp.h"
#include "index/kw_index.h"
#include "model/kw_entry.h"
#include "model/kw_model.h"

static const char kw_list_usage[] =
    "usage: kwalk list [--db FILE] [--json]\n\n"
    "One line per kernel instantiation and per precompiled ASM kernel launched,\n"
    "tab-separated:\n"
    "  NAME  SYMBOL  ARCHS  LAUNCHES  ENTRIES  TU  KIND  CODE_OBJECTS\n"
    "ARCHS: arch,arch  LAUNCHES: file:line,...  ENTRIES: kind:name,...\n"
    "TU: the source file of a kernel with internal linkage (static, anonymous namespace),\n"
    "    whose symbol other translation units may use for other kernels; - otherwise\n"
    "KIND: hip or asm  CODE_OBJECTS (asm): file.co,...  (empty: -)\n\n"
    "  --db FILE   the database written by 'kwalk index' (default: " KW_INDEX_DEFAULT_PATH ")\n"
    "  --json      one JSON document instead (docs/json.md): the same fields, as lists\n";

/* One output line. */
typedef struct kw_row {
    const char *name;
    const char *symbol;
    const kw_kernel *kernel;         /* NULL: launched, but no device record */
    const kw_index_tu *tu;           /* internal linkage: its translation unit */
    bool is_asm;                     /* a precompiled ASM kernel (kw_launch_asm) */
    KW_ARRAY(const char *) code_objects; /* is_asm: the code objects launches give */
    KW_ARRAY(const kw_launch *) launches;
    KW_ARRAY(size_t) entries;        /* indices into kw_list.entries, in discovery order */
    size_t stamp;                    /* last entry (1-based) recorded, for deduplication */
} kw_row;

typedef struct kw_list {
    kw_arena arena;
    const kw_index *ix;
    KW_ARRAY(kw_row) rows;
    kw_symmap row_of; /* kw_kernel_key (symbol, or symbol and unit) -> row */
    KW_ARRAY(const kw_entry *) entries;
    /* The host call graph in compressed rows: node i calls edge[first[i] .. first[i+1]). */
    kw_symmap node_of; /* host function symbol -> node */
    size_t nnodes;
    size_t *first, *edge;
    size_t *lfirst, *lrow; /* node i launches rows lrow[lfirst[i] .. lfirst[i+1]) */
} kw_list;

static bool kw_list_oom(void) {
    kw_cli_failf("out of memory");
    return false;
}

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
static bool kw_list_row(kw_list *l, const char *symbol, const char *name, const kw_kernel *k,
                        size_t *at) {
    const char *key = kw_kernel_key(&l->arena, symbol, k ? k->tu : NULL);
    if (!key)
        return kw_list_oom();
    size_t *have = kw_symmap_get(&l->row_of, key);
    if (have) {
        *at = *have;
        return true;
    }
    kw_row *r = KW_PUSH(&l->arena, l->rows);
    if (!r || kw_symmap_put(&l->row_of, key, l->rows.n - 1) != KW_OK)
        return kw_list_oom();
    r->symbol = symbol;
    r->name = name ? name : symbol;
    r->kernel = k;
    r->tu = kw_index_kernel_unit(l->ix, k);
    *at = l->rows.n - 1;
    return true;
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
        if (!found && !kw_list_row(l, sym, name, NULL, &at))
            return false;
        kw_row *r = &l->rows.v[at];
        if (la->kernel || r->kernel)
            continue;
        r->is_asm = true;
        bool seen = !co;
        for (size_t i = 0; !seen && i < r->code_objects.n; i++)
            seen = !strcmp(r->code_objects.v[i], co);
        const char **slot = seen ? NULL : KW_PUSH(&l->arena, r->code_objects);
        if (!seen && !slot)
            return kw_list_oom();
        if (slot)
            *slot = co;
    }
    return true;
}

static bool kw_list_node(kw_list *l, const char *symbol) {
    if (!symbol || kw_symmap_get(&l->node_of, symbol))
        return true;
    if (kw_symmap_put(&l->node_of, symbol, l->nnodes++) != KW_OK)
        return kw_list_oom();
    return true;
}

#define KW_EACH_TU(l, tu)                                                                          \
    for (const kw_index_tu *tu = (l)->ix->tus.v; tu < (l)->ix->tus.v + (l)->ix->tus.n; tu++)

static bool kw_list_collect_tus(kw_list *l, const bool *shadowed);

/* Rows for every kernel (and every launched symbol), nodes for every host function. */
static bool kw_list_collect(kw_list *l) {
    const kw_index *ix = l->ix;
    size_t at;
    for (size_t i = 0; i < ix->kernels.n; i++)
        if (!kw_list_row(l, ix->kernels.v[i].symbol, ix->kernels.v[i].name, &ix->kernels.v[i], &at))
            return false;
    bool *shadowed = kw_entries_shadowed(ix);
    if (!shadowed)
        return kw_list_oom();
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
            if (!kw_list_node(l, la->function_symbol))
                return false;
        }
        for (size_t i = 0; i < tu->host_calls.n; i++)
            if (!kw_list_node(l, tu->host_calls.v[i].caller) ||
                !kw_list_node(l, tu->host_calls.v[i].callee))
                return false;
        for (size_t i = 0; i < tu->entries.n; i++) {
            if (shadowed[ek++])
                continue;
            const kw_entry **e = KW_PUSH(&l->arena, l->entries);
            if (!e)
                return kw_list_oom();
            *e = &tu->entries.v[i];
            if (!kw_list_node(l, (*e)->function_symbol))
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
        return kw_list_oom();
    KW_EACH_TU(l, tu) {
        for (size_t i = 0; i < tu->host_calls.n; i++)
            if (tu->host_calls.v[i].caller && tu->host_calls.v[i].callee)
                l->first[*kw_symmap_get(&l->node_of, tu->host_calls.v[i].caller) + 1]++;
        for (size_t i = 0; i < tu->launches.n; i++) {
            const kw_launch *la = &tu->launches.v[i];
            const char *sym, *co;
            for (size_t n = 0; la->function_symbol && kw_list_runs(la, n, &sym, &co); n++)
                if (sym)
                    l->lfirst[*kw_symmap_get(&l->node_of, la->function_symbol) + 1]++;
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
                size_t from = *kw_symmap_get(&l->node_of, c->caller);
                l->edge[l->first[from] + fill[from]++] = *kw_symmap_get(&l->node_of, c->callee);
            }
            for (size_t i = 0; i < tu->launches.n; i++) {
                const kw_launch *la = &tu->launches.v[i];
                const char *sym, *co;
                for (size_t n = 0; la->function_symbol && kw_list_runs(la, n, &sym, &co); n++) {
                    if (!sym)
                        continue;
                    size_t from = *kw_symmap_get(&l->node_of, la->function_symbol);
                    l->lrow[l->lfirst[from] + lfill[from]++] = *kw_list_find(l, sym, tu);
                }
            }
        }
    }
    free(fill);
    free(lfill);
    return ok ? true : kw_list_oom();
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
                kw_row *r = &l->rows.v[*kw_list_find(l, sym, tu)];
                const kw_launch **slot = KW_PUSH(&l->arena, r->launches);
                if (!slot)
                    return kw_list_oom();
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
        size_t start = *kw_symmap_get(&l->node_of, fs);
        visited[start] = stamp;
        queue[tail++] = start;
        while (ok && head < tail) {
            size_t u = queue[head++];
            for (size_t k = l->lfirst[u]; ok && k < l->lfirst[u + 1]; k++) {
                kw_row *r = &l->rows.v[l->lrow[k]];
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
    return ok ? true : kw_list_oom();
}

static int kw_row_cmp(const void *a, const void *b) {
    const kw_row *x = a, *y = b;
    int c = kw_natcmp(x->name, y->name);
    if (!c)
        c = strcmp(x->symbol, y->symbol);
    if (!c && x->tu != y->tu) /* one internal-linkage symbol in several units */
        c = !x->tu ? -1 : !y->tu ? 1 : strcmp(x->tu->sidecar, y->tu->sidecar);
    return c;
}

/* A field value on one line: tabs and line breaks become spaces. */
static void kw_put(const char *s) {
    for (; *s; s++)
        putchar(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s);
}

/* A field's items are kept NUL-separated in a kw_buf, without duplicates. */
static void kw_list_add(kw_buf *field, const char *s) {
    for (size_t at = 0; at < field->len; at += strlen(field->ptr + at) + 1)
        if (!strcmp(field->ptr + at, s))
            return;
    kw_buf_append(field, s, strlen(s) + 1);
}

/* Print the items comma-separated, "-" when there are none. */
static void kw_list_field(const kw_buf *field) {
    putchar('\t');
    if (!field->len)
        putchar('-');
    for (size_t at = 0; at < field->len; at += strlen(field->ptr + at) + 1) {
        if (at)
            putchar(',');
        kw_put(field->ptr + at);
    }
}

static int kw_cmp_strp(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void kw_list_print_row(const kw_list *l, const kw_row *r, kw_buf *item, kw_buf *field) {
    kw_put(r->name);
    putchar('\t');
    kw_put(r->symbol);

    kw_buf_reset(field);
    size_t n = r->kernel ? r->kernel->archs.n : 0;
    const char **archs = n ? malloc(n * sizeof(*archs)) : NULL;
    if (n && !archs) {
        field->oom = true;
        return;
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (r->kernel->archs.v[i].arch)
            archs[m++] = r->kernel->archs.v[i].arch;
    if (m)
        qsort(archs, m, sizeof(archs[0]), kw_cmp_strp);
    for (size_t i = 0; i < m; i++)
        kw_list_add(field, archs[i]);
    free(archs);
    kw_list_field(field);

    kw_buf_reset(field);
    for (size_t i = 0; i < r->launches.n; i++) {
        const kw_loc *loc = &r->launches.v[i]->location;
        kw_buf_reset(item);
        if (loc->file)
            kw_buf_printf(item, "%s:%d", loc->file, loc->line);
        else
            kw_buf_puts(item, "?");
        kw_list_add(field, kw_buf_str(item));
    }
    kw_list_field(field);

    kw_buf_reset(field);
    for (size_t i = 0; i < r->entries.n; i++) {
        const kw_entry *e = l->entries.v[r->entries.v[i]];
        kw_buf_reset(item);
        kw_buf_printf(item, "%s:", e->kind ? e->kind : "entry");
        if (e->module)
            kw_buf_printf(item, "%s.", e->module);
        kw_buf_puts(item, e->name ? e->name : e->function ? e->function : e->function_symbol);
        kw_list_add(field, kw_buf_str(item));
    }
    kw_list_field(field);

    kw_buf_reset(field);
    if (r->tu)
        kw_list_add(field, r->tu->tu.source ? r->tu->tu.source : r->tu->sidecar);
    kw_list_field(field);

    const kw_triton *t = r->kernel && r->kernel->language ? r->kernel->triton : NULL;
    printf("\t%s", r->is_asm ? "asm" : t ? "triton" : "hip");
    kw_buf_reset(field);
    for (size_t i = 0; i < r->code_objects.n; i++)
        kw_list_add(field, r->code_objects.v[i]);
    for (size_t i = 0; t && i < t->files.n; i++) { /* a Triton kernel's .hsaco */
        size_t n = strlen(t->files.v[i]);
        if (n > 6 && !strcmp(t->files.v[i] + n - 6, ".hsaco"))
            kw_list_add(field, t->files.v[i]);
    }
    kw_list_field(field);
    putchar('\n');
}

/* The row's sorted archs (without duplicates) as JSON, or NULL when out of memory. */
static json_t *kw_list_json_archs(const kw_row *r, bool *oom) {
    json_t *a = json_array();
    size_t n = r->kernel ? r->kernel->archs.n : 0;
    const char **archs = n ? malloc(n * sizeof(*archs)) : NULL;
    if (!a || (n && !archs)) {
        free(archs);
        *oom = true;
        return a;
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (r->kernel->archs.v[i].arch)
            archs[m++] = r->kernel->archs.v[i].arch;
    if (m)
        qsort(archs, m, sizeof(archs[0]), kw_cmp_strp);
    for (size_t i = 0; i < m; i++)
        if (!i || strcmp(archs[i], archs[i - 1]))
            kw_jansson_push(a, kw_jansson_text(archs[i]), oom);
    free(archs);
    return a;
}

static json_t *kw_list_json_row(const kw_list *l, const kw_row *r, bool *oom) {
    json_t *o = json_object(), *launches = json_array(), *entries = json_array(),
           *cos = json_array();
    if (!o || !launches || !entries || !cos) {
        json_decref(launches);
        json_decref(entries);
        json_decref(cos);
        *oom = true;
        return o;
    }
    kw_jansson_set(o, "name", kw_jansson_text(r->name), oom);
    kw_jansson_set(o, "symbol", kw_jansson_text(r->symbol), oom);
    kw_jansson_set(o, "archs", kw_list_json_archs(r, oom), oom);
    for (size_t i = 0; i < r->launches.n; i++) {
        const kw_loc *loc = &r->launches.v[i]->location;
        kw_jansson_push(launches,
                        json_pack("{s:o, s:o}", "file", kw_jansson_text(loc->file), "line",
                                  loc->file ? json_integer(loc->line) : json_null()),
                        oom);
    }
    kw_jansson_set(o, "launches", launches, oom);
    for (size_t i = 0; i < r->entries.n; i++) {
        const kw_entry *e = l->entries.v[r->entries.v[i]];
        const char *name = e->name ? e->name : e->function ? e->function : e->function_symbol;
        kw_jansson_push(entries,
                        json_pack("{s:o, s:o, s:o}", "kind", kw_jansson_text(e->kind), "module",
                                  kw_jansson_text(e->module), "name", kw_jansson_text(name)),
                        oom);
    }
    kw_jansson_set(o, "entries", entries, oom);
    kw_jansson_set(
        o, "tu",
        kw_jansson_text(r->tu ? r->tu->tu.source ? r->tu->tu.source : r->tu->sidecar : NULL), oom);
    const kw_triton *t = r->kernel && r->kernel->language ? r->kernel->triton : NULL;
    kw_jansson_set(o, "kind", json_string(r->is_asm ? "asm" : t ? "triton" : "hip"), oom);
    for (size_t i = 0; i < r->code_objects.n; i++)
        kw_jansson_push(cos, kw_jansson_text(r->code_objects.v[i]), oom);
    for (size_t i = 0; t && i < t->files.n; i++) {
        size_t n = strlen(t->files.v[i]);
        if (n > 6 && !strcmp(t->files.v[i] + n - 6, ".hsaco"))
            kw_jansson_push(cos, kw_jansson_text(t->files.v[i]), oom);
    }
    kw_jansson_set(o, "code_objects", cos, oom);
    return o;
}

static int kw_list_json(const kw_list *l) {
    bool oom = false;
    json_t *doc = json_object(), *rows = json_array();
    if (!doc || !rows)
        oom = true;
    for (size_t i = 0; i < l->rows.n && !oom; i++)
        kw_jansson_push(rows, kw_list_json_row(l, &l->rows.v[i], &oom), &oom);
    if (doc) {
        kw_jansson_set(doc, "kwalk_list", json_integer(1), &oom);
        kw_jansson_set(doc, "kernels", rows, &oom);
    } else {
        json_decref(rows);
    }
    return kw_cli_json_print(doc, oom);
}

static int kw_list_run(const kw_index *ix, bool json) {
    kw_list l;
    memset(&l, 0, sizeof(l));
    kw_arena_init(&l.arena);
    kw_symmap_init(&l.row_of);
    kw_symmap_init(&l.node_of);
    l.ix = ix;
    int rc = KW_EXIT_INPUT;
    if (kw_list_collect(&l) && kw_list_graph(&l) && kw_list_reach(&l)) {
        if (l.rows.n)
            qsort(l.rows.v, l.rows.n, sizeof(kw_row), kw_row_cmp);
        kw_buf item, field;
        kw_buf_init(&item);
        kw_buf_init(&field);
        for (size_t i = 0; i < l.rows.n && !json; i++)
            kw_list_print_row(&l, &l.rows.v[i], &item, &field);
        if (json)
            rc = kw_list_json(&l);
        else
            rc = item.oom || field.oom ? kw_cli_failf("out of memory") : kw_cli_flush_stdout();
        kw_buf_free(&item);
        kw_buf_free(&field);
    }
    free(l.first);
    free(l.edge);
    free(l.lfirst);
    free(l.lrow);
    kw_symmap_free(&l.row_of);
    kw_symmap_free(&l.node_of);
    kw_arena_free(&l.arena);
    return rc;
}

int kw_cmd_list(int argc, char **argv) {
    const char *db = NULL;
    bool json = false;
    for (int i = 1; i < argc; i++) {
        const char *v;
        int r;
        if (kw_cli_is_help(argv[i])) {
            fputs(kw_list_usage, stdout);
            return kw_cli_flush_stdout();
        } else if (!strcmp(argv[i], "--json")) {
            json = true;
        } else if ((r = kw_cli_opt(argc, argv, &i, "--db", NULL, &v)) != 0) {
            if (r < 0 || !*v)
                return kw_cli_usage_error("list", "option --db needs a file name");
            db = v;
        } else if (argv[i][0] == '-') {
            return kw_cli_usage_error("list", "unknown option '%s'", argv[i]);
        } else {
            return kw_cli_usage_error("list", "unexpected argument '%s'", argv[i]);
        }
    }
    kw_index ix;
    kw_err err;
    if (kw_index_read_file(&ix, db ? db : KW_INDEX_DEFAULT_PATH, &err) != KW_OK) {
        struct stat st;
        if (!db && stat(KW_INDEX_DEFAULT_PATH, &st) != 0)
            return kw_cli_failf("%s (run 'kwalk index DIR' first, or give --db FILE)", err.msg);
        return kw_cli_fail(&err);
    }
    int rc = kw_list_run(&ix, json);
    kw_index_free(&ix);
    return rc;
}
