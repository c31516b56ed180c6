/* kw_pages.h: the page files of `kwalk render --all` (NAME.md) and `kwalk
 * site` (NAME.html): each instantiation's page name, unique within a run, and
 * the manifest through which a later run into the same directory removes the
 * pages it does not write again (instantiations that are gone), and nothing
 * else. */
#ifndef KW_PAGES_H
#define KW_PAGES_H

#include "common/kw_err.h"
#include "model/kw_model.h"

/* Name every kernel's page (m->kernels.v[i].page, in m's arena): the printed
 * name with [A-Za-z0-9_.-] kept and runs of anything else as one '_', at most
 * 80 characters, then '-' and 8 hex digits of a hash of the symbol (for a
 * kernel with internal linkage, of the symbol and the file name of its
 * unit's source), then ext (".md"). A name taken by an earlier kernel gets
 * "-2", "-3", ... before ext. */
kw_status kw_pages_name(kw_model *m, const char *ext, kw_err *err);

/* DIR/manifest lists the pages of m, one name a line. The names the old list
 * has that end in ext, have no '/', do not start with '.' and are not pages
 * of m are removed from DIR first. Scratch strings in a. */
kw_status kw_pages_manifest(const kw_model *m, kw_arena *a, const char *dir, const char *manifest,
                            const char *ext, kw_err *err);

#endif
