/* kw_python_chains.h: the model-entry table of python/kwalk_pyscan.py
 * (`chains --format tsv`, docs/python-chains.md) read into memory: one chain
 * per row, from a function of the model's package through the calls down to
 * an op bound to a C++ entry (@compile_ops) or a Triton wrapper, with every
 * frame's file:line and `if` tests. Joined to the index's ops by bound module
 * and function (kw_py_chains_for). */
#ifndef KW_PYTHON_CHAINS_H
#define KW_PYTHON_CHAINS_H

#include <stdbool.h>
#include <stddef.h>

#include "common/kw_arena.h"
#include "common/kw_err.h"

/* One call of a chain: the calling function, where it calls, what. */
typedef struct kw_py_frame {
    const char *function; /* module.function (Class.method for methods) */
    const char *file;
    int line;                     /* the call's line */
    const char *callee;           /* the callee as written */
    KW_ARRAY(const char *) conds; /* the `if` tests around the call, outermost first */
} kw_py_frame;

typedef struct kw_py_chain {
    const char *op; /* module.function of the op */
    const char *op_file;
    int op_line;              /* the op's def line */
    const char *bound_module; /* NULL for "-" */
    const char *bound_function;
    const char *entry; /* module.function the chain starts at */
    const char *entry_file;
    int entry_line; /* its call that starts the chain */
    bool outermost;
    int length;                   /* calls down to the op */
    KW_ARRAY(kw_py_frame) frames; /* entry first; empty when the table has none */
} kw_py_chain;

typedef struct kw_py_chains {
    kw_arena arena;
    KW_ARRAY(kw_py_chain) v; /* in the table's order */
} kw_py_chains;

void kw_py_chains_init(kw_py_chains *c);
void kw_py_chains_free(kw_py_chains *c);
/* Read the table text (len bytes; name for messages). Rows of 9 fields, or 10
 * with the frames; a damaged row is an error naming its line. */
kw_status kw_py_chains_parse(kw_py_chains *c, const char *name, const char *text, size_t len,
                             kw_err *err);
/* The chains of the ops bound to module (NULL: any) and function, outermost
 * only when asked, shortest first (table order among equals), into out
 * (indexes into c->v, allocated from a); their number, or (size_t)-1 when
 * out of memory. */
size_t kw_py_chains_for(const kw_py_chains *c, const char *module, const char *function,
                        bool outermost, kw_arena *a, size_t **out);

#endif
