/* kw_app.h: what `kwalk render` and `kwalk map` load before they work: the
 * index (with the same "run kwalk index first" hint as `kwalk list`), the
 * annotation data (providers, hardware peaks, ISA notes, entry-point rules),
 * the Python ops under --python-root, the chains from the model's code to
 * them (python/kwalk_pyscan.py over every --python-root, kw_pyhelper.h), and
 * the joined model. One call, one error line. */
#ifndef KW_APP_H
#define KW_APP_H

#include "index/kw_index.h"
#include "model/kw_annot.h"
#include "model/kw_hw.h"
#include "model/kw_isa_notes.h"
#include "model/kw_model.h"
#include "model/kw_provider.h"
#include "model/kw_python_chains.h"
#include "model/kw_python_entries.h"
#include "model/kw_src.h"

typedef struct kw_app {
    const char *db; /* as given, or the default path */
    kw_index ix;
    kw_annot annot;
    kw_providers providers;
    kw_gpus gpus;
    kw_isa_notes notes;
    kw_calltree_rules tree_rules; /* the device call tree's helpers */
    kw_py_ops py;
    bool have_py;
    kw_py_chains chains; /* the helper's model-entry table */
    bool have_chains;    /* the chains are shown (two roots or more, python3 found) */
    kw_model model;
    kw_srcs srcs;
} kw_app;

/* Load everything; on failure print the one-line error and return the exit
 * status (KW_EXIT_INPUT), else KW_EXIT_OK. db may be NULL (default path);
 * no python_roots: no scan. The Python reader (kwalk_pyscan.py) reads
 * them all: the ops of the first root that holds decorated ops, with their
 * public callers; with two roots or more the chains too, starting in
 * package python_from when that is not NULL (without a python3: one
 * `kwalk: note:` line, no Python ops, no chains). */
/* Read the index db (NULL: the default path) into ix, its listings read
 * later on `readers` connections when later; on failure print the one-line
 * error (with the "run 'kwalk index DIR' first" hint where the default index
 * is missing) and return KW_EXIT_INPUT, else KW_EXIT_OK. */
int kw_app_read_index(kw_index *ix, const char *db, bool later, unsigned readers);
/* The same reading only what a question about the kernels of the n device
 * symbols needs (kw_index_read_file_only: one page; n may be 0), or the whole
 * index when $KWALK_INDEX_READ is "whole". */
int kw_app_read_index_only(kw_index *ix, const char *db, const char *const *symbols, size_t n);
/* Load everything (above), the index read for the kernels of the n symbols
 * (kw_index_read_file_only). */
int kw_app_load_only(kw_app *app, const char *const *symbols, size_t n, const char *db,
                     const char *const *python_roots, size_t nroots, const char *python_from);
/* The same with every kernel's own rows (and every launch that makes a
 * kernel of its own): names are matched against the whole build. */
int kw_app_load_pick(kw_app *app, const char *const *symbols, size_t n, const char *db,
                     const char *const *python_roots, size_t nroots, const char *python_from);
/* Read the index and build the model again, for the kernels of other
 * symbols (the annotations and Python ops stay); every: with every
 * kernel's own rows, as picking by name needs (kw_index_read_file_only). */
int kw_app_reload_only(kw_app *app, const char *const *symbols, size_t n, bool every);
/* The same with the index's listings and line tables read later, one kernel
 * at a time, on `readers` connections (kw_index_read_file_later; none: a
 * command that shows no listing). */
int kw_app_load_later(kw_app *app, unsigned readers, const char *db,
                      const char *const *python_roots, size_t nroots, const char *python_from);
void kw_app_free(kw_app *app);

#endif
