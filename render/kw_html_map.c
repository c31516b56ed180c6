/* kw_html_map.c: DIR/map.html of `kwalk site`: the page of `kwalk map`
 * (kernel -> Python entry -> C++ entry -> launch site -> device code),
 * written from the map's model by the HTML printer through the same calls
 * as `kwalk map`'s Markdown (render/kw_map_write.c), with links: a code span
 * of a launch site that launches one instantiation goes to its page, of any
 * other launch site and of a kernel (template) name to index.html filtered
 * by that text (?q=). Which kernel a site launches and which template a name
 * is, the map's model answers (kw_map_sites_kernel, kw_map_sites_group):
 * this file includes nothing of sidecar/ or index/. */
#include <string.h>

#include "render/kw_html.h"
#include "render/kw_map_write.h"

/* v percent-encoded as a query value into h (letters, digits and -_.~/:
 * kept). */
static void kw_hm_query(kw_buf *h, const char *v) {
    for (const char *s = v; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
            strchr("-_.~/:", ch))
            kw_buf_putc(h, (char)ch);
        else
            kw_buf_printf(h, "%%%02X", ch);
    }
}

typedef struct kw_hm {
    kw_render *r;
    const kw_map *map;
} kw_hm;

/* A code span's link (kw_map_links.href): the page of the one instantiation
 * a launch site launches; else the index filtered by a template's name or
 * by the launch site's text. */
static bool kw_hm_href(void *ctx, const char *text, kw_buf *h) {
    const kw_hm *hm = ctx;
    const kw_model *m = hm->r->m;
    size_t ki = kw_map_sites_kernel(hm->map, text);
    size_t g = ki == KW_NONE ? kw_map_sites_group(hm->map, text) : KW_NONE;
    if (ki != KW_NONE && ki != KW_MAP_MANY && m->kernels.v[ki].page) {
        kw_buf_puts(h, m->kernels.v[ki].page);
        return true;
    }
    if (ki == KW_NONE && g == KW_NONE)
        return false;
    kw_buf_puts(h, "index.html?q=");
    kw_hm_query(h, g != KW_NONE ? m->groups.v[g].key : text);
    return true;
}

kw_status kw_html_map(kw_render *r, kw_map *map, kw_buf *out, kw_err *err) {
    kw_hm hm = {r, map};
    kw_map_links links = {kw_hm_href, &hm};
    kw_html_open(out, "Kernel map");
    kw_buf_puts(out, "<nav class=\"kw-nav\"><a href=\"index.html\">All kernels</a></nav>\n"
                     "<main>\n");
    kw_status st = kw_map_write_md(map, r->o->root, KW_R_HTML, &links, out, err);
    if (st != KW_OK)
        return st;
    kw_buf_puts(out, "</main>\n");
    kw_html_close(out);
    return out->oom ? kw_fail(err, "out of memory") : KW_OK;
}
