/* kw_html_map.c: DIR/map.html of `kwalk site`: the known-kernel table of
 * `kwalk map` (kernel -> Python entry -> C++ entry -> launch site -> device
 * code), its Markdown converted by libcmark-gfm, with links: a launch site
 * that launches one instantiation goes to its page, any other launch site and
 * a kernel (template) name to index.html filtered by that text (?q=). Which
 * kernel a site launches and which template a name is, the map's model
 * answers (kw_map_sites_kernel, kw_map_sites_group): this file includes
 * nothing of sidecar/ or index/. */
#include <string.h>

#include "render/kw_html.h"

static void kw_hm_link(kw_buf *o, const char *href, const char *code, size_t n) {
    kw_buf_puts(o, "<a href=\"");
    kw_html_esc(o, href);
    kw_buf_puts(o, "\"><code>");
    kw_buf_append(o, code, n);
    kw_buf_puts(o, "</code></a>");
}

/* The text t[0, n) of a code span as written before it was escaped into
 * out; false when t is not what kw_html_esc writes of any text (an entity it
 * does not write, a character it escapes), which then names nothing. */
static bool kw_hm_unesc(const char *t, size_t n, kw_buf *out, kw_buf *check) {
    static const struct {
        const char *ent;
        char c;
    } ents[] = {{"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&#39;", '\''}};
    kw_buf_reset(out);
    for (size_t i = 0; i < n;) {
        size_t k = 0, len = 0;
        for (; t[i] == '&' && k < sizeof ents / sizeof ents[0]; k++) {
            len = strlen(ents[k].ent);
            if (len <= n - i && !memcmp(t + i, ents[k].ent, len))
                break;
        }
        if (t[i] == '&' && k < sizeof ents / sizeof ents[0]) {
            kw_buf_putc(out, ents[k].c);
            i += len;
        } else {
            kw_buf_putc(out, t[i++]);
        }
    }
    kw_buf_reset(check);
    kw_html_esc(check, kw_buf_str(out));
    return check->len == n && !memcmp(check->ptr ? check->ptr : "", t, n);
}

kw_status kw_html_map(kw_render *r, const kw_map *map, const char *md, size_t len, kw_buf *out,
                      kw_err *err) {
    kw_model *m = r->m;
    kw_buf html, key, text, check;
    kw_buf_init(&html);
    kw_buf_init(&key);
    kw_buf_init(&text);
    kw_buf_init(&check);
    kw_status st = kw_html_from_md(md, len, &html, err);
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
            /* the text as the map wrote it: a launch site or a template */
            bool named = kw_hm_unesc(t, (size_t)(e - t), &text, &check);
            size_t ki = named ? kw_map_sites_kernel(map, kw_buf_str(&text)) : KW_NONE;
            size_t g =
                named && ki == KW_NONE ? kw_map_sites_group(map, kw_buf_str(&text)) : KW_NONE;
            if (ki != KW_NONE && ki != KW_MAP_MANY && m->kernels.v[ki].page) {
                kw_hm_link(out, m->kernels.v[ki].page, t, (size_t)(e - t));
            } else if (ki != KW_NONE || g != KW_NONE) {
                /* the index filtered by the text: a template's name, or a launch
                 * site's path:line (as printed; HTML escapes do not occur in
                 * paths the map prints other than &amp;, taken back) */
                kw_buf q;
                kw_buf_init(&q);
                kw_buf_puts(&q, "index.html?q=");
                const char *v = g != KW_NONE ? m->groups.v[g].key : kw_buf_str(&key);
                for (const char *s = v; *s; s++) {
                    unsigned char ch = (unsigned char)*s;
                    if (g == KW_NONE && !strncmp(s, "&amp;", 5)) {
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
    kw_buf_free(&text);
    kw_buf_free(&check);
    if (st == KW_OK && out->oom)
        st = kw_fail(err, "out of memory");
    return st;
}
