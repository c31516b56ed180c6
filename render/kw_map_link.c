/* kw_map_link.c: the code spans of `kwalk map`'s page, linked on map.html
 * (see kw_map_link.h). */
#include "render/kw_map_link.h"

#include "common/kw_esc.h"

void kw_map_link_code(kw_render *r, const kw_map_links *links, const char *s, kw_md_in in) {
    if (!links || !links->href || in != KW_MD_HTML || !kw_r_html(r)) {
        kw_md_code(r->out, s, in);
        return;
    }
    kw_buf h;
    kw_buf_init(&h);
    if (!links->href(links->ctx, s, &h)) {
        kw_md_code(r->out, s, in);
    } else {
        kw_buf_puts(r->out, "<a href=\"");
        kw_esc_html(r->out, h.ptr ? h.ptr : "", h.len, true);
        kw_buf_puts(r->out, "\">");
        kw_md_code(r->out, s, in);
        kw_buf_puts(r->out, "</a>");
    }
    r->out->oom |= h.oom;
    kw_buf_free(&h);
}
