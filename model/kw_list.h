/* kw_list.h: the rows of `kwalk list`: one per kernel instantiation of the
 * index, and per precompiled ASM kernel a launch loads, with its launches and
 * the host entry points that reach one of them, sorted by printed name (in
 * natural order, kw_natcmp) then symbol (then unit). A kernel with internal
 * linkage is a row per translation unit. render/kw_list_write.h writes them.
 *
 * Reachability: an entry point reaches the functions found by a
 * breadth-first search from its function_symbol along the host_calls edges
 * (caller -> callee, across all translation units); it reaches a kernel when
 * one of those functions (the entry's own function included) is the
 * function_symbol of a launch of that kernel. A `cxx` entry the index
 * shadows (kw_entry.h) is left out. */
#ifndef KW_LIST_H
#define KW_LIST_H

#include <stdbool.h>
#include <stddef.h>

#include "common/kw_arena.h"
#include "common/kw_err.h"
#include "index/kw_index.h"
#include "common/kw_symmap.h"

/* One output line. */
typedef struct kw_list_row {
    const char *name; /* printed; a trampoline's kernel struct with the aliases
                         the source wrote (kw_title_kname: ck_tile::bf16_t) */
    const char *symbol;
    const kw_kernel *kernel;             /* NULL: launched, but no device record */
    const kw_index_tu *tu;               /* internal linkage: its translation unit */
    bool is_asm;                         /* a precompiled ASM kernel (kw_launch_asm) */
    KW_ARRAY(const char *) code_objects; /* is_asm: the code objects launches give */
    KW_ARRAY(const char *) archs;        /* the kernel's archs, sorted, each once */
    KW_ARRAY(const kw_launch *) launches;
    KW_ARRAY(size_t) entries; /* indices into kw_list.entries, in discovery order */
    size_t stamp;             /* last entry (1-based) recorded, for deduplication */
} kw_list_row;

typedef struct kw_list {
    kw_arena arena;
    const kw_index *ix;
    KW_ARRAY(kw_list_row) rows;
    kw_symmap row_of; /* kw_kernel_key (symbol, or symbol and unit) -> row */
    KW_ARRAY(const kw_entry *) entries;
    KW_ARRAY(const kw_index_tu *) entry_tus; /* the unit of each of entries */
    /* The host call graph in compressed rows: node i calls edge[first[i] .. first[i+1]). */
    kw_symmap node_of; /* host function key (kw_node.h) -> node */
    size_t nnodes;
    size_t *first, *edge;
    size_t *lfirst, *lrow; /* node i launches rows lrow[lfirst[i] .. lfirst[i+1]) */
} kw_list;

/* The rows of index ix. kw_list_free frees them (also after a failure). */
kw_status kw_list_build(kw_list *l, const kw_index *ix, kw_err *err);
void kw_list_free(kw_list *l);

#endif
