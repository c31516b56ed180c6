/* kw_entry.h: how an entry point (a sidecar's entries[]) is named in output,
 * by kind, and which `cxx` entries the index shadows. */
#ifndef KW_ENTRY_H
#define KW_ENTRY_H

#include <stdbool.h>

#include "common/kw_arena.h"
#include "index/kw_index.h"

/* The words before the name: "pybind11", "extern \"C\"", "TORCH_LIBRARY",
 * "C++ function", "annotated C++ function". */
const char *kw_entry_word(const kw_entry *e);
/* The name as the binding spells it: module.name (pybind), ns::op (torch),
 * else the name; NULL when out of memory. */
const char *kw_entry_label(kw_arena *a, const kw_entry *e);
/* Does the entry's line say which C++ function it runs (a binding)? */
bool kw_entry_binds(const kw_entry *e);

/* One flag per entry of the index (TU by TU, in order): true for a `cxx`
 * entry (an outermost visible host function of its TU) that the index as a
 * whole shadows (functions keyed as kw_node.h keys them: `main` is one per
 * unit): its function is also bound by another kind of entry (a
 * pybind11 m.def in another TU binds it), a host call of another TU calls
 * it, or an earlier TU has the same cxx entry (an inline function of a
 * header). NULL when out of memory; free() it. */
bool *kw_entries_shadowed(const kw_index *ix);

#endif
