/* fuzz_pychains.c: the fuzz target of the reader of kwalk_pyscan.py's
 * model-entry table (model/kw_python_chains.c). An input is the table's
 * bytes. Checked: a failure is one non-empty line; a table read has every
 * line number positive, as many frames as calls (or none), every string set,
 * no more chains than lines; the chains of the first row's bound function
 * come back shortest first and include it; every @op, @launch, @unresolved
 * and @dropped record has its strings set, positive lines and an op that
 * exists (@unreached: its reason set, a positive count), and each launch's
 * kernel finds that launch again; every @decorator and @caller record has
 * its strings set, positive lines and an op that exists, and the embedded
 * entry-point rules applied to them give ops that are bound or say why. */
#include <stdbool.h>
#include <string.h>

#include "kw_fuzz.h"
#include "model/kw_annot.h"
#include "model/kw_python_chains.h"
#include "model/kw_python_entries.h"

/* The @-rows' records (see the header comment). */
static void check_tagged(const kw_py_chains *c, size_t lines) {
    size_t all =
        c->ops.n + c->launches.n + c->unresolved.n + c->dropped.n + c->unreached.n + c->v.n;
    KW_FUZZ_CHECK(all <= lines, "%zu records from %zu lines", all, lines);
    for (size_t i = 0; i < c->ops.n; i++) {
        const kw_py_opdef *d = &c->ops.v[i];
        KW_FUZZ_CHECK(d->name && d->file && d->bound_function && d->kind && d->line > 0,
                      "op %zu: unset or line %d", i, d->line);
    }
    kw_arena a;
    kw_arena_init(&a);
    for (size_t i = 0; i < c->launches.n; i++) {
        const kw_py_launch *l = &c->launches.v[i];
        KW_FUZZ_CHECK(l->op < c->ops.n && l->kernel && l->kernel_file && l->file &&
                          l->kernel_line > 0 && l->line > 0,
                      "launch %zu: op %zu, unset or bad line", i, l->op);
        for (size_t k = 0; k < l->conds.n; k++)
            KW_FUZZ_CHECK(l->conds.v[k], "launch %zu: test %zu unset", i, k);
        const char *dot = strrchr(l->kernel, '.');
        if (!dot)
            continue;
        size_t *ix = NULL;
        size_t n =
            kw_py_chains_kernel_launches(c, dot + 1, l->kernel_file, l->kernel_line, &a, &ix);
        bool found = false;
        for (size_t k = 0; n != (size_t)-1 && k < n; k++)
            found = found || ix[k] == i;
        KW_FUZZ_CHECK(n != (size_t)-1, "kernel_launches: out of memory");
        /* found again when its file is its module's file */
        char module[256];
        size_t mlen = (size_t)(dot - l->kernel);
        if (mlen < sizeof module) {
            memcpy(module, l->kernel, mlen);
            module[mlen] = '\0';
            KW_FUZZ_CHECK(!kw_py_chains_module_file(module, l->kernel_file) || found,
                          "launch %zu: not found again by its kernel", i);
        }
    }
    kw_arena_free(&a);
    for (size_t i = 0; i < c->unresolved.n; i++) {
        const kw_py_unresolved *u = &c->unresolved.v[i];
        KW_FUZZ_CHECK(u->op < c->ops.n && u->function && u->file && u->callee && u->why &&
                          u->names && u->line > 0,
                      "unresolved %zu: op %zu, unset or bad line", i, u->op);
    }
    for (size_t i = 0; i < c->dropped.n; i++)
        KW_FUZZ_CHECK(c->dropped.v[i].op < c->ops.n && c->dropped.v[i].reason &&
                          c->dropped.v[i].count > 0,
                      "dropped %zu: op, reason or count", i);
    for (size_t i = 0; i < c->unreached.n; i++)
        KW_FUZZ_CHECK(c->unreached.v[i].reason && c->unreached.v[i].count > 0,
                      "unreached %zu: reason or count", i);
    for (size_t i = 0; i < c->decorators.n; i++) {
        const kw_py_decorator *d = &c->decorators.v[i];
        KW_FUZZ_CHECK(d->op < c->ops.n && d->def_name && d->name && d->line > 0,
                      "decorator %zu: op %zu, unset or bad line", i, d->op);
        for (size_t k = 0; k < d->args.n + d->kwargs.n; k++) {
            const char *x = k < d->args.n ? d->args.v[k] : d->kwargs.v[k - d->args.n];
            KW_FUZZ_CHECK(x && strcspn(x, "'?") < strlen(x), "decorator %zu: argument %zu", i, k);
        }
    }
    for (size_t i = 0; i < c->callers.n; i++) {
        const kw_py_caller *k = &c->callers.v[i];
        KW_FUZZ_CHECK(k->op < c->ops.n && k->name && k->module && k->file && k->def_line > 0 &&
                          k->call_line > 0,
                      "caller %zu: op %zu, unset or bad line", i, k->op);
    }
}

/* The entry-point rules (the embedded annotations) applied to the table's
 * decorated ops: every op an @op row's, with its callers'. */
static void check_ops(const kw_py_chains *c) {
    static kw_annot annot;
    static bool have_annot;
    kw_err err;
    if (!have_annot) {
        KW_FUZZ_CHECK(kw_annot_load(&annot, &err) == KW_OK, "annotations: %s", err.msg);
        have_annot = true;
    }
    kw_py_ops p;
    kw_py_ops_init(&p);
    KW_FUZZ_CHECK(kw_py_load_rules(&p, &annot, &err) == KW_OK, "rules: %s", err.msg);
    const char *root = "/";
    KW_FUZZ_CHECK(kw_py_ops_from_chains(&p, c, &root, 1, &err) == KW_OK, "ops: %s", err.msg);
    size_t callers = 0;
    for (size_t i = 0; i < p.ops.n; i++) {
        const kw_py_op *o = &p.ops.v[i];
        KW_FUZZ_CHECK(o->file && o->def_name && o->def_line > 0 && o->decorator_line > 0 &&
                          (o->why || (o->module && o->function && o->entry_kind)),
                      "op %zu: unset, or neither bound nor why", i);
        callers += o->callers.n;
    }
    KW_FUZZ_CHECK(p.ops.n <= c->decorators.n && callers <= c->callers.n,
                  "%zu ops, %zu callers from %zu decorators, %zu callers", p.ops.n, callers,
                  c->decorators.n, c->callers.n);
    kw_py_ops_free(&p);
}

static void check(const kw_py_chains *c, size_t lines) {
    check_tagged(c, lines);
    KW_FUZZ_CHECK(c->v.n <= lines, "%zu chains from %zu lines", c->v.n, lines);
    for (size_t i = 0; i < c->v.n; i++) {
        const kw_py_chain *ch = &c->v.v[i];
        KW_FUZZ_CHECK(ch->op && ch->op_file && ch->bound_function && ch->entry && ch->entry_file,
                      "chain %zu: a field unset", i);
        KW_FUZZ_CHECK(ch->op_line > 0 && ch->entry_line > 0 && ch->length > 0,
                      "chain %zu: line %d/%d, length %d", i, ch->op_line, ch->entry_line,
                      ch->length);
        KW_FUZZ_CHECK(!ch->frames.n || ch->frames.n == (size_t)ch->length,
                      "chain %zu: %zu frames for %d calls", i, ch->frames.n, ch->length);
        for (size_t f = 0; f < ch->frames.n; f++) {
            const kw_py_frame *fr = &ch->frames.v[f];
            KW_FUZZ_CHECK(fr->function && fr->file && fr->callee && fr->line > 0,
                          "chain %zu frame %zu: unset or line %d", i, f, fr->line);
            for (size_t k = 0; k < fr->conds.n; k++)
                KW_FUZZ_CHECK(fr->conds.v[k], "chain %zu frame %zu: test %zu unset", i, f, k);
        }
    }
    if (!c->v.n)
        return;
    kw_arena a;
    kw_arena_init(&a);
    size_t *ix = NULL;
    const kw_py_chain *first = &c->v.v[0];
    size_t n = kw_py_chains_for(c, first->bound_module, first->bound_function, false, &a, &ix);
    KW_FUZZ_CHECK(n != (size_t)-1 && n >= 1 && n <= c->v.n, "chains_for: %zu", n);
    bool self = false;
    for (size_t i = 0; i < n; i++) {
        self = self || ix[i] == 0;
        KW_FUZZ_CHECK(!i || c->v.v[ix[i - 1]].length <= c->v.v[ix[i]].length,
                      "chains_for: not shortest first at %zu", i);
    }
    KW_FUZZ_CHECK(self, "chains_for: the first row is not among its own op's chains");
    kw_arena_free(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    kw_py_chains c;
    kw_py_chains_init(&c);
    kw_err err;
    memset(&err, 0, sizeof err);
    size_t lines = 1;
    for (size_t i = 0; i < size; i++)
        lines += data[i] == '\n';
    if (kw_py_chains_parse(&c, "fuzz.tsv", (const char *)data, size, &err) == KW_OK) {
        check(&c, lines);
        check_ops(&c);
    } else
        KW_FUZZ_CHECK(err.msg[0] && !strchr(err.msg, '\n'), "error not one line: '%s'", err.msg);
    kw_py_chains_free(&c);
    return 0;
}
