/* kw_python_chains.h: the model-entry table of python/kwalk_pyscan.py
 * (`chains --format tsv`, docs/python-chains.md) read into memory: the ops
 * (`@op` rows) with their decorators (`@decorator`) and public callers
 * (`@caller`), one chain per row, from a function of the model's package
 * through the calls down to an op bound to a C++ entry (@compile_ops) or a
 * Triton wrapper, with every frame's file:line and `if` tests; a Triton
 * wrapper's launches (`@launch`); the calls not resolved statically that
 * could lead to an op (`@unresolved`) and the others counted (`@dropped`,
 * per op; `@unreached`, those no op lists).
 * Joined to the index's ops by bound module and function (kw_py_chains_for,
 * kw_py_chains_ops), to a Triton kernel by its module, name and def line
 * (kw_py_chains_kernel_launches). */
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

/* An op (`@op` row): a def bound to a C++ entry, or a Triton wrapper. */
typedef struct kw_py_opdef {
    const char *name; /* module.function */
    const char *file;
    int line;                 /* its def line */
    const char *bound_module; /* NULL for "-" */
    const char *bound_function;
    const char *kind; /* the decorator's name, or "triton" */
} kw_py_opdef;

typedef KW_ARRAY(const char *) kw_py_strs;

/* An op's decorator as written (`@decorator` row), for the entry-point
 * rules (kw_python_entries.h) to read its arguments. */
typedef struct kw_py_decorator {
    size_t op;            /* into ops */
    const char *def_name; /* the decorated def's own name */
    int line;             /* the '@' line */
    const char *name;     /* as written: "compile_ops", "core.compile_ops" */
    kw_py_strs args;      /* per positional argument "'VALUE" (a string literal) or "?" */
    kw_py_strs kwargs;    /* per keyword "NAME'VALUE" or "NAME?" */
} kw_py_decorator;

/* A public function of the op's own root that calls it, directly or through
 * private functions (`@caller` row). */
typedef struct kw_py_caller {
    size_t op;          /* into ops */
    const char *name;   /* "fn" or "Class.method", in its module */
    const char *module; /* dotted module name: "aiter.ops.rmsnorm" */
    const char *file;
    int def_line;    /* its def line */
    int call_line;   /* its first call of the op, or of `via` */
    const char *via; /* NULL for a direct call; else the private function it calls */
} kw_py_caller;

/* A Triton wrapper's `kernel[grid](...)` (`@launch` row). */
typedef struct kw_py_launch {
    size_t op;          /* into ops */
    const char *kernel; /* module.name of the @triton.jit def */
    const char *kernel_file;
    int kernel_line; /* its def line */
    const char *file;
    int line;                     /* the launch */
    KW_ARRAY(const char *) conds; /* the `if` tests around it, outermost first */
} kw_py_launch;

/* A call not resolved statically that could lead to an op (`@unresolved`). */
typedef struct kw_py_unresolved {
    size_t op;            /* into ops */
    const char *function; /* module.function holding the call */
    const char *file;
    int line;
    const char *callee; /* as written */
    const char *why;    /* why it is not resolved */
    const char *names;  /* the functions reaching the op it may name, ", "-joined */
} kw_py_unresolved;

/* The other unresolved calls, counted by reason, per op (`@dropped`); the
 * reason is a phrase read after "N call(s)". */
typedef struct kw_py_dropped {
    size_t op; /* into ops */
    size_t count;
    const char *reason;
} kw_py_dropped;

/* The unresolved calls no op lists, counted by reason (`@unreached`). */
typedef struct kw_py_unreached {
    size_t count;
    const char *reason; /* read after "N call(s)" */
} kw_py_unreached;

/* A root that is itself a package imported by its own name (`@too-deep`):
 * its parent is the folder to pass. */
typedef struct kw_py_too_deep {
    const char *root, *package, *parent;
    const char *file; /* the first import of package by that name */
    int line;
} kw_py_too_deep;

typedef struct kw_py_chains {
    kw_arena arena;
    KW_ARRAY(kw_py_chain) v; /* in the table's order */
    KW_ARRAY(kw_py_opdef) ops;
    KW_ARRAY(kw_py_decorator) decorators;
    KW_ARRAY(kw_py_caller) callers;
    KW_ARRAY(kw_py_launch) launches;
    KW_ARRAY(kw_py_unresolved) unresolved;
    KW_ARRAY(kw_py_dropped) dropped;
    KW_ARRAY(kw_py_unreached) unreached;
    KW_ARRAY(kw_py_too_deep) too_deep;
} kw_py_chains;

void kw_py_chains_init(kw_py_chains *c);
void kw_py_chains_free(kw_py_chains *c);
/* Read the table text (len bytes; name for messages). Chain rows of 9
 * fields, or 10 with the frames; `@op` rows (before the rows naming their
 * op), `@decorator`, `@caller`, `@launch`, `@unresolved`, `@dropped`,
 * `@unreached`, `@too-deep`; a damaged row is an error naming its line. */
kw_status kw_py_chains_parse(kw_py_chains *c, const char *name, const char *text, size_t len,
                             kw_err *err);
/* The chains of the ops bound to module (NULL: any) and function, outermost
 * only when asked, shortest first (table order among equals), into out
 * (indexes into c->v, allocated from a); their number, or (size_t)-1 when
 * out of memory. */
size_t kw_py_chains_for(const kw_py_chains *c, const char *module, const char *function,
                        bool outermost, kw_arena *a, size_t **out);

/* The ops (`@op` rows) bound to module (NULL: any) and function, into out
 * (indexes into c->ops, allocated from a); their number, or (size_t)-1 when
 * out of memory. */
size_t kw_py_chains_ops(const kw_py_chains *c, const char *module, const char *function,
                        kw_arena *a, size_t **out);
/* The chains of op c->ops.v[op] (outermost only when asked), shortest first,
 * into out as kw_py_chains_for. */
size_t kw_py_chains_of_op(const kw_py_chains *c, size_t op, bool outermost, kw_arena *a,
                          size_t **out);
/* The launches (indexes into c->launches) of the Triton kernel name defined
 * at file:line: the launch's kernel has that name and def line, and file is
 * its module's file (the module's path, as a suffix: the trees and the
 * cache may see one source under two prefixes). As kw_py_chains_for. */
size_t kw_py_chains_kernel_launches(const kw_py_chains *c, const char *name, const char *file,
                                    int line, kw_arena *a, size_t **out);
/* Is path the file of module `module` (dotted): does it end with the
 * module's path, `/a/b.py` or `/a/b/__init__.py`? */
bool kw_py_chains_module_file(const char *module, const char *path);

#endif
