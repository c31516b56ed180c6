/* kw_model_pages.h: the model's side of the pages `kwalk render --all` and
 * `kwalk site` write one per instantiation: each kernel's page name, unique
 * within a run (kw_mkernel.page), and a page's kernel listings and line
 * tables, read from the index the model was built from while its page is
 * written (the load leaves them in the database: kw_index_read_file_later),
 * so that render/'s page workers reach the index only through the model. */
#ifndef KW_MODEL_PAGES_H
#define KW_MODEL_PAGES_H

#include "common/kw_arena.h"
#include "common/kw_err.h"
#include "model/kw_kfamily.h"
#include "model/kw_model.h"

/* Name every kernel's page (m->kernels.v[i].page, in m's arena): the printed
 * name with [A-Za-z0-9_.-] kept and runs of anything else as one '_', at most
 * 80 characters, then '-' and 8 hex digits of a hash of the symbol (for a
 * kernel with internal linkage, of the symbol and the file name of its
 * unit's source), then ext (".md"). A name taken by an earlier kernel gets
 * "-2", "-3", ... before ext. */
kw_status kw_model_pages_name(kw_model *m, const char *ext, kw_err *err);

/* Name each kernel's page of the site (the families of f; (*out)[i] is
 * f->v.v[i]'s, in a): the family's name cleaned as above, '-', 8 hex
 * digits of a hash of the name, ".kernel.html" (no instantiation's page
 * ends so); a name taken gets "-2", "-3", ... before ".kernel.html". */
kw_status kw_model_pages_kernels(const kw_kfams *f, kw_arena *a, const char ***out, kw_err *err);

/* What a kernel's archs held before kw_model_pages_listings read its page's
 * listings (opaque: for kw_model_pages_listings_done). */
typedef struct kw_index_saved_listing kw_model_pages_saved;

/* Read kernel ki's listings and line tables into its archs on connection
 * `reader` of the model's index, into arena, for its page (only that page
 * reads them meanwhile); *saved is for kw_model_pages_listings_done, which
 * puts back what the archs held and frees arena. */
kw_status kw_model_pages_listings(const kw_model *m, unsigned reader, size_t ki, kw_arena *arena,
                                  kw_model_pages_saved **saved, kw_err *err);
void kw_model_pages_listings_done(const kw_model *m, size_t ki, const kw_model_pages_saved *saved,
                                  kw_arena *arena);

#endif
