/* kw_pages.h: the page files of `kwalk render --all` (NAME.md) and `kwalk
 * site` (NAME.html): the manifest through which a later run into the same
 * directory removes the pages it does not write again (instantiations that
 * are gone), and nothing else. Each instantiation's page name, unique within
 * a run, is the model's (kw_model_pages_name, model/kw_model_pages.h). */
#ifndef KW_PAGES_H
#define KW_PAGES_H

#include "common/kw_err.h"
#include "model/kw_model.h"

/* DIR/manifest lists the pages of m and the nmore pages more names (the
 * site's kernel pages), one name a line. The names the old list has that
 * end in ext, have no '/', do not start with '.' and are not among these
 * pages are removed from DIR first. Scratch strings in a. */
kw_status kw_pages_manifest(const kw_model *m, const char *const *more, size_t nmore, kw_arena *a,
                            const char *dir, const char *manifest, const char *ext, kw_err *err);

#endif
