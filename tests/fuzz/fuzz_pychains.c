/* fuzz_pychains.c: the fuzz target of the reader of kwalk_pyscan.py's
 * model-entry table (model/kw_python_chains.c). An input is the table's
 * bytes. Checked: a failure is one non-empty line; a table read has every
 * line number positive, as many frames as calls (or none), every string set,
 * no more chains than lines; the chains of the first row's bound function
 * come back shortest first and include it. */
#include <stdbool.h>
#include <string.h>

#include "kw_fuzz.h"
#include "model/kw_python_chains.h"

static void check(const kw_py_chains *c, size_t lines) {
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
    if (kw_py_chains_parse(&c, "fuzz.tsv", (const char *)data, size, &err) == KW_OK)
        check(&c, lines);
    else
        KW_FUZZ_CHECK(err.msg[0] && !strchr(err.msg, '\n'), "error not one line: '%s'", err.msg);
    kw_py_chains_free(&c);
    return 0;
}
