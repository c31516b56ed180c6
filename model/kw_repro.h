/* kw_repro.h: what a reproducer of one Triton specialization needs
 * (`kwalk repro`, docs/triton.md "Reproducer"): the @triton.jit function
 * and how to import it, the signature Triton's ASTSource takes, the
 * constexpr values (with the ones kwalk could not recover named, and why),
 * the compile options the cache recorded, the target, and the hash Triton
 * gave the compile. Built from the index's Triton facts and the Python
 * files around the function (for its package); writes nothing. */
#ifndef KW_REPRO_H
#define KW_REPRO_H

#include <stdbool.h>

#include "common/kw_arena.h"
#include "common/kw_err.h"
#include "sidecar/kw_sidecar.h"

/* A value as Python writes it: a literal's kind and text. */
typedef enum kw_pyval_kind {
    KW_PYVAL_INT,
    KW_PYVAL_FLOAT,
    KW_PYVAL_BOOL, /* text "True" / "False" */
    KW_PYVAL_STR,  /* text is the string itself, written quoted */
    KW_PYVAL_NONE, /* not known (why says why) */
} kw_pyval_kind;

typedef struct kw_repro_value {
    const char *name;
    kw_pyval_kind kind;
    const char *text;
    const char *why; /* KW_PYVAL_NONE: why it is not known */
} kw_repro_value;

typedef struct kw_repro_arg {
    const char *name;
    const char *type; /* Triton's signature type: "*fp32", "i32", "constexpr" */
} kw_repro_arg;

typedef struct kw_repro {
    const char *kernel;       /* the @triton.jit function's name */
    const char *file;         /* its Python file, as the index has it */
    int line;                 /* its def line */
    /* import: module within package_root (a folder put first on sys.path);
     * module NULL: the file is loaded by path (no package around it) */
    const char *package_root;
    const char *module;
    const char *arch;
    long long warp_size;
    const char *hash;      /* Triton's hash of the compile (the cache's NAME.json) */
    const char *cache_key; /* the cache folder's name */
    const char *triton_version;
    KW_ARRAY(kw_repro_arg) signature;  /* arguments, then constexprs */
    KW_ARRAY(kw_repro_value) constexprs;
    KW_ARRAY(kw_repro_value) options;
    size_t unknown; /* constexprs without a value */
} kw_repro;

/* The reproducer of Triton specialization k (language triton) into *r, in a. */
kw_status kw_repro_build(const kw_kernel *k, kw_arena *a, kw_repro *r, kw_err *err);

#endif
