/* kw_node.h: the key of a host function in the host call graph (the map's,
 * the list's, and the shadowing of cxx entries). A host function is one node
 * per symbol across the build, except a function that is one translation
 * unit's own: `main`, a function with internal linkage (`static`, in an
 * anonymous namespace, a template instantiated with such a type) or local to
 * one of those (a lambda in `main`). Those are keyed by symbol and unit, so
 * two units' `main` are two nodes. It is read from the symbol alone:
 * `main`, Itanium's `L` prefix of an internal name (`_ZL3runv`; in a
 * namespace's nested name `_ZN2nsL3runEv`, read up to the first template
 * argument list or substitution; `ZL` in a local name: a lambda in a static
 * function), `_GLOBAL__N` (anonymous namespace), clang's `$_N` unnamed
 * types, and entities local to `main` (`Z4mainE`). A `static` function
 * declared with C linkage (`extern "C" { static void run_c(float *); }`) is
 * mangled as an internal name by clang (`_ZL5run_cPf`), so it is one too; an
 * `extern "C"` function in an anonymous namespace keeps its plain symbol and
 * external linkage (one per program). Not recognized (they join by symbol,
 * as every function did before): an internal name after a substitution or
 * template arguments in a nested name (`_ZNSt...L`). */
#ifndef KW_NODE_H
#define KW_NODE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/kw_arena.h"
#include "common/kw_err.h"
#include "common/kw_symmap.h"
#include "index/kw_index.h"

/* Is symbol a host function that only its own translation unit can call? */
bool kw_node_is_local(const char *symbol);
/* The node of host function symbol, defined or called in unit tu, in map
 * (kept by kw_node_put), or NULL. */
size_t *kw_node_get(const kw_symmap *map, const char *symbol, const kw_index_tu *tu);
/* Store value for symbol in unit tu; a unit's own symbol gets a key made in
 * a (symbol and the unit's sidecar). KW_ERR when out of memory. */
kw_status kw_node_put(kw_symmap *map, kw_arena *a, const char *symbol, const kw_index_tu *tu,
                      size_t value);

#endif
