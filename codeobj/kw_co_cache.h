/* kw_co_cache.h: the decode cache's side in codeobj/: what a code object's
 * disassembly gives each kernel (listing, line table, instruction classes,
 * DPP patterns, memory widths) as one record keyed by the code object's MD5,
 * and the store it is kept in, which the program plugs in (kwalk: a SQLite
 * file, index/kw_index_cache.h; the plugin: none, so a compile never writes
 * one). kw_co_sidecar_fill_set with KW_CO_SC_CACHE reads a code object's
 * record from the store, or disassembles all its kernels once and stores it;
 * either way the kernels are filled from the record, so a page is the same
 * with and without the cache (docs/index-schema.md, "The decode cache"). */
#ifndef KW_CO_CACHE_H
#define KW_CO_CACHE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/kw_arena.h"
#include "sidecar/kw_sidecar.h"

/* The store: get gives the record of key in *data (malloc'd, the caller frees
 * it) and true, false when there is none or it cannot be read; put keeps one
 * (failures are silent: the next run decodes again). Both may be called from
 * several threads at once. */
typedef struct kw_co_cache_store {
    bool (*get)(void *ctx, const char *key, unsigned char **data, size_t *n);
    void (*put)(void *ctx, const char *key, const unsigned char *data, size_t n);
    void *ctx;
} kw_co_cache_store;

/* Use store s from now on (NULL: none; KW_CO_SC_CACHE then decodes every
 * time). s must outlive its use. */
void kw_co_cache_use(const kw_co_cache_store *s);
const kw_co_cache_store *kw_co_cache_store_now(void);

/* The libLLVM this build disassembles with (an absolute path;
 * kw_co_llvm.c), a part of what the store's keys are kept apart by. */
const char *kw_co_llvm_library(void);

/* Counts of this process: code objects whose record came from the store, and
 * code objects disassembled for a record; kernel entries read (inflated) from
 * records. */
void kw_co_cache_counts(unsigned long *from_cache, unsigned long *decoded);
void kw_co_cache_count(bool from_cache);
unsigned long kw_co_cache_entries(void);

/* The key of a code object's record: its MD5, whether line tables were
 * read, and the record's form (KW_CO_CACHE_FORM), into key[96]. */
#define KW_CO_CACHE_FORM 2
void kw_co_cache_key(const char *md5, bool lines, char key[96]);

/* A record being written: one entry per kernel of the code object, in the
 * code object's order; kernel i without code (or not decoded) is empty. */
typedef struct kw_co_record_w kw_co_record_w;
kw_co_record_w *kw_co_record_begin(size_t nkernels);
/* Append kernel i's decoded facts (the fields of a that the disassembly
 * sets: classes, dpp_patterns, memory, isa, lines, lines_note when set). */
bool kw_co_record_put(kw_co_record_w *w, size_t i, const char *symbol, const kw_kernel_arch *a,
                      bool note);
/* The record's bytes (valid until kw_co_record_free); NULL when out of memory. */
const unsigned char *kw_co_record_bytes(kw_co_record_w *w, size_t *n);
void kw_co_record_free(kw_co_record_w *w);

/* A record read back: where each kernel's symbol and compressed entry are.
 * Only the directory is read when it is opened; kw_co_record_fill inflates
 * the one entry it fills from. */
typedef struct kw_co_record_part {
    size_t symbol;     /* offset of the symbol into data, 0 when no entry */
    size_t at, packed; /* the compressed entry: offset and length */
    size_t raw;        /* its length inflated */
} kw_co_record_part;
typedef struct kw_co_record {
    const unsigned char *data;
    size_t n, nkernels;
    kw_co_record_part *part;
} kw_co_record;
/* Index data (not copied) for nkernels kernels; false when it is not a
 * record of that many kernels (damaged: its CRC-32 differs; another form). */
bool kw_co_record_open(kw_co_record *r, const unsigned char *data, size_t n, size_t nkernels);
void kw_co_record_close(kw_co_record *r);
/* Does kernel i have an entry (of that symbol)? */
bool kw_co_record_has(const kw_co_record *r, size_t i, const char *symbol);
/* Fill arch a from kernel i's entry (inflated now, counted by
 * kw_co_cache_entries), its strings and arrays in arena, as the disassembly
 * itself would set them. false when the entry is damaged or out of memory
 * (a then unchanged except for what was filled). */
bool kw_co_record_fill(const kw_co_record *r, size_t i, kw_arena *arena, kw_kernel_arch *a);

#endif
