/* kw_render_reload.h: the index read again for what `kwalk render KERNEL`
 * picks (kw_render_reload.c). */
#ifndef KW_RENDER_RELOAD_H
#define KW_RENDER_RELOAD_H

#include "cli/kw_app.h"
#include "common/kw_arena.h"

/* Reads app's index again for KERNEL (with --arch ARCH and --tu TU, each
 * NULL where not given), the names it keeps in keep; a kwalk exit status
 * (the failure said on stderr). */
int kw_render_reload(kw_app *app, const char *kernel, const char *arch, const char *tu,
                     kw_arena *keep);

#endif
