/* kw_python_entries.h: Python ops found by scanning *.py sources for the
 * decorators described in annotations/entrypoints/ (one .txt per stack) (aiter's
 * `@compile_ops("module_x", fc_name="f", ffi_type="ctypes")`), and the host
 * entry point each op binds to: a pybind11 m.def of that module and name, or
 * an extern "C" function of that name.
 *
 * The scan is textual but exact about what it reports: the decorator's line,
 * the decorated def's name and line, the argument values when they are
 * string literals, and the package's public functions that call the op. An argument that is not a
 * literal (a variable, an f-string) leaves the op unjoined, with the reason. */
#ifndef KW_PYTHON_ENTRIES_H
#define KW_PYTHON_ENTRIES_H

#include <stdbool.h>
#include <stddef.h>

#include "model/kw_annot.h"
#include "common/kw_arena.h"
#include "common/kw_err.h"

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

/* A function of the scanned package that calls an op (kw_python_callers.c):
 * a public one (no '_'-prefixed name part), directly or through private
 * functions. */
typedef struct kw_py_caller {
    const char *name;   /* "fn" or "Class.method", in its module */
    const char *module; /* dotted module name: "aiter.ops.rmsnorm" */
    const char *file;   /* absolute path */
    int def_line;       /* its def line */
    int call_line;      /* its first call of the op, or of `via` */
    const char *via;    /* NULL for a direct call; else the private function it calls */
} kw_py_caller;

typedef struct kw_py_op {
    const char *stack;
    const char *file;     /* absolute path */
    int decorator_line;   /* the '@' line */
    const char *def_name; /* the decorated function */
    int def_line;
    const char *module;   /* module argument; NULL when not a literal */
    const char *function; /* compiled function's name (the def's name by default) */
    const char *ffi;      /* binding kind value ("pybind", "ctypes") */
    const char *entry_kind; /* "pybind" or "extern_c"; NULL when the ffi value has no bind rule */
    const char *why;      /* set when the op cannot be joined */
    KW_ARRAY(kw_py_caller) callers; /* public callers in the package, by file and line */
} kw_py_op;

/* One scanned source file, kept for the caller scan. */
typedef struct kw_py_src {
    const char *path; /* absolute */
    const char *text;
    size_t len;
} kw_py_src;

typedef struct kw_py_ops {
    kw_arena arena;
    KW_ARRAY(kw_py_rule) rules;
    KW_ARRAY(kw_py_op) ops;
    size_t files; /* *.py files scanned */
    KW_ARRAY(kw_py_src) srcs;
    const char *root; /* the scanned directory (absolute), NULL for a single file */
    const struct kw_py_chains *chains; /* the helper's chains (kw_python_chains.h), or NULL */
} kw_py_ops;

void kw_py_ops_init(kw_py_ops *p);
void kw_py_ops_free(kw_py_ops *p);
/* Read the rules of every annotations/entrypoints/ (one .txt per stack). */
kw_status kw_py_load_rules(kw_py_ops *p, const kw_annot *a, kw_err *err);
/* Scan root (a directory, searched recursively in name order, or a file) for
 * decorated defs, and each op's public callers in the scanned files. */
kw_status kw_py_scan(kw_py_ops *p, const char *root, kw_err *err);
/* The scan of one file's text already in memory (kw_py_scan reads each file
 * and calls it; the fuzz target feeds it bytes): its decorated defs are
 * added to ops and the text is kept for kw_py_find_callers. path (absolute)
 * names the file and its module. */
kw_status kw_py_scan_buffer(kw_py_ops *p, const char *path, const char *text, size_t len,
                            kw_err *err);
/* The callers step of kw_py_scan (kw_python_callers.c): fills ops[].callers
 * from p->srcs. */
kw_status kw_py_find_callers(kw_py_ops *p, kw_err *err);

#endif
