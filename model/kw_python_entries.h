/* kw_python_entries.h: the Python ops carrying the decorators described in
 * annotations/entrypoints/ (one .txt per stack) (aiter's
 * `@compile_ops("module_x", fc_name="f", ffi_type="ctypes")`), and the host
 * entry point each op binds to: a pybind11 m.def of that module and name, or
 * an extern "C" function of that name.
 *
 * The Python is read by the one Python reader, python/kwalk_pyscan.py (its
 * table: kw_python_chains.h): the decorator's line, the decorated def's name
 * and line, the argument values when they are string literals, and the
 * package's public functions that call the op. Here the rules are read and
 * applied to those arguments. An argument that is not a string literal (a
 * variable, an f-string) leaves the op unjoined, with the reason. */
#ifndef KW_PYTHON_ENTRIES_H
#define KW_PYTHON_ENTRIES_H

#include <stdbool.h>
#include <stddef.h>

#include "common/kw_arena.h"
#include "common/kw_err.h"
#include "model/kw_annot.h"
#include "model/kw_python_chains.h"

/* One decorator description (a "stack" block of an entrypoints file). */
typedef struct kw_py_rule {
    const char *stack;
    const char *decorator;
    int module_pos;           /* -1: keyword only */
    const char *module_kw[4]; /* keyword alternatives, NULL-terminated */
    int function_pos;
    const char *function_kw[4];
    int ffi_pos;
    const char *ffi_kw[4];
    const char *ffi_default;
    const char *bind_value[8]; /* ffi values ... */
    const char *bind_kind[8];  /* ... and the entry kind each joins */
    int nbind;
} kw_py_rule;

typedef struct kw_py_op {
    const char *stack;
    const char *file;     /* absolute path */
    int decorator_line;   /* the '@' line */
    const char *def_name; /* the decorated function */
    int def_line;
    const char *module;     /* module argument; NULL when not a literal */
    const char *function;   /* compiled function's name (the def's name by default) */
    const char *ffi;        /* binding kind value ("pybind", "ctypes") */
    const char *entry_kind; /* "pybind" or "extern_c"; NULL when the ffi value has no bind rule */
    const char *why;        /* set when the op cannot be joined */
    KW_ARRAY(kw_py_caller) callers; /* public callers in the package, by file and line */
} kw_py_op;

typedef struct kw_py_ops {
    kw_arena arena;
    KW_ARRAY(kw_py_rule) rules;
    KW_ARRAY(kw_py_op)
    ops; /* in the order of their files (each folder's names sorted), then lines */
    const struct kw_py_chains *chains; /* the chains across two roots or more, or NULL */
} kw_py_ops;

void kw_py_ops_init(kw_py_ops *p);
void kw_py_ops_free(kw_py_ops *p);
/* Read the rules of every annotations/entrypoints/ (one .txt per stack). */
kw_status kw_py_load_rules(kw_py_ops *p, const kw_annot *a, kw_err *err);
/* The ops of c (the helper's table, kw_python_chains.h) that carry a
 * decorator of the rules, with their public callers: each rule applied to the
 * decorator's arguments (`@decorator` rows). Only the ops under the first
 * folder of roots[0..n) that holds any (roots: absolute, as given to the
 * helper). */
kw_status kw_py_ops_from_chains(kw_py_ops *p, const struct kw_py_chains *c,
                                const char *const *roots, size_t n, kw_err *err);

#endif
