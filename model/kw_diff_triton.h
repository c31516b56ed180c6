/* kw_diff_triton.h: Triton specializations in `kwalk diff` (docs/diff.md):
 * matched by their function, arch, signature and constexprs rather than by
 * their hash, which any change of the compile changes. Used by kw_diff.c. */
#ifndef KW_DIFF_TRITON_H
#define KW_DIFF_TRITON_H

#include <stdbool.h>

#include "common/kw_arena.h"
#include "sidecar/kw_sidecar.h"

/* Is k a Triton specialization (language triton, with its facts)? */
bool kw_diff_triton_is(const kw_kernel *k);
/* Its key (in a; NULL when out of memory): name, arch, the types of the
 * arguments that are not constexprs, the constexprs name=value ("?" when
 * not known). */
const char *kw_diff_triton_key(kw_arena *a, const kw_kernel *k);
/* key with k's options added (name=value, in NAME.json's order), or with
 * hash true its hash; NULL when out of memory. */
const char *kw_diff_triton_key_more(kw_arena *a, const char *key, const kw_kernel *k, bool hash);
/* k's printed name: a specialization's with its constexprs, name[A=1, B=?];
 * any other kernel's name (its symbol when it has none). */
const char *kw_diff_triton_name(kw_arena *a, const kw_kernel *k);
/* The value of option name in t ("" when it has none), NULL when t lacks it. */
const char *kw_diff_triton_option(const kw_triton *t, const char *name);

#endif
