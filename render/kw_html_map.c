/* kw_html_map.c: DIR/map.html of `kwalk site`: the known-kernel table of
 * `kwalk map` (kernel -> Python entry -> C++ entry -> launch site -> device
 * code), its Markdown converted by libcmark-gfm, with links: a launch site
 * that launches one instantiation goes to its page, any other launch site and
 * a kernel (template) name to index.html filtered by that text (?q=). */
#include <string.h>

#include "render/kw_html.h"
#include "common/kw_symmap.h"

/* "path:line" as the map prints it (--root applied) -> the kernel launched
 * there, or KW_MANY when several are. */
#define KW_MANY ((size_t)-3)

static void kw_hm_link(kw_buf *o, const char *href, const char *code, size_t n) {
    kw_buf_puts(o, "<a href=\"");
    kw_html_esc(o, href);
    kw_buf_puts(o, "\"><code>");
    kw_buf_append(o, code, n);
    kw_buf_puts(o, "</code></a>");
}

kw_status kw_html_map(kw_render *r, const char *md, size_t len, kw_buf *out, kw_err *err) {
    kw_model *m = r->m;
    kw_symmap at, groups;
    kw_symmap_init(&at);
    kw_symmap_init(&groups);
    kw_buf html, key;
    kw_buf_init(&html);
    kw_buf_init(&key);
    kw_status st = KW_OK;
    /* keys are HTML-escaped, as the converted Markdown holds them */
    for (size_t ki = 0; ki < m->kernels.n && st == KW_OK; ki++) {
        const kw_mkernel *mk = &m->kernels.v[ki];
        for (size_t l = 0; l < mk->launches.n && st == KW_OK; l++) {
            const kw_launch *la = m->launches.v[mk->launches.v[l]].l;
            kw_buf_reset(&key);
            kw_html_esc(&key, kw_r_path(r, la->location.file));
            kw_buf_printf(&key, ":%d", la->location.line);
            const char *k = kw_arena_strdup(&r->scratch, kw_buf_str(&key));
            const size_t *have = k ? kw_symmap_get(&at, k) : NULL;
            if (!k)
                st = kw_fail(err, "out of memory");
            else if (!have)
                st = kw_symmap_put(&at, k, ki);
            else if (*have != ki)
                st = kw_symmap_put(&at, k, KW_MANY);
        }
    }
    for (size_t g = 0; g < m->groups.n && st == KW_OK; g++) {
        kw_buf_reset(&key);
        kw_html_esc(&key, m->groups.v[g].key);
        const char *k = kw_arena_strdup(&r->scratch, kw_buf_str(&key));
        st = k ? kw_symmap_put(&groups, k, g) : kw_fail(err, "out of memory");
    }
    if (st == KW_OK)
        st = kw_html_from_md(md, len, &html, err);
    if (st == KW_OK) {
        kw_html_open(out, "Kernel map");
        kw_buf_puts(out, "<nav class=\"kw-nav\"><a href=\"index.html\">All kernels</a></nav>\n"
                         "<main>\n");
        /* every <code>TEXT</code> that names a launch site or a template */
        const char *p = html.ptr ? html.ptr : "", *end = p + html.len;
        while (p < end) {
            const char *c = strstr(p, "<code>");
            if (!c) {
                kw_buf_append(out, p, (size_t)(end - p));
                break;
            }
            const char *t = c + 6, *e = strstr(t, "</code>");
            if (!e) {
                kw_buf_append(out, p, (size_t)(end - p));
                break;
            }
            kw_buf_append(out, p, (size_t)(c - p));
            kw_buf_reset(&key);
            kw_buf_append(&key, t, (size_t)(e - t));
            const size_t *ki = kw_symmap_get(&at, kw_buf_str(&key));
            const size_t *g = ki ? NULL : kw_symmap_get(&groups, kw_buf_str(&key));
            if (ki && *ki != KW_MANY && m->kernels.v[*ki].page) {
                kw_hm_link(out, m->kernels.v[*ki].page, t, (size_t)(e - t));
            } else if (ki || g) {
                /* the index filtered by the text: a template's name, or a launch
                 * site's path:line (as printed; HTML escapes do not occur in
                 * paths the map prints other than &amp;, taken back) */
                kw_buf q;
                kw_buf_init(&q);
                kw_buf_puts(&q, "index.html?q=");
                const char *v = g ? m->groups.v[*g].key : kw_buf_str(&key);
                for (const char *s = v; *s; s++) {
                    unsigned char ch = (unsigned char)*s;
                    if (!g && !strncmp(s, "&amp;", 5)) {
                        kw_buf_puts(&q, "%26");
                        s += 4;
                    } else if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                               (ch >= '0' && ch <= '9') || (ch && strchr("-_.~/:", ch))) {
                        kw_buf_putc(&q, (char)ch);
                    } else {
                        kw_buf_printf(&q, "%%%02X", ch);
                    }
                }
                kw_hm_link(out, kw_buf_str(&q), t, (size_t)(e - t));
                kw_buf_free(&q);
            } else {
                kw_buf_append(out, c, (size_t)(e + 7 - c));
            }
            p = e + 7;
        }
        kw_buf_puts(out, "</main>\n");
        kw_html_close(out);
    }
    kw_buf_free(&html);
    kw_buf_free(&key);
    kw_symmap_free(&at);
    kw_symmap_free(&groups);
    if (st == KW_OK && out->oom)
        st = kw_fail(err, "out of memory");
    return st;
}
