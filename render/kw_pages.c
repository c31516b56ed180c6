/* kw_pages.c: page names and the page manifest of render --all and site
 * (kw_pages.h). */
#include "render/kw_pages.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/kw_buf.h"
#include "common/kw_fs.h"
#include "common/kw_symmap.h"

static const char *kw_pages_base(kw_arena *a, const kw_mkernel *mk, const char *ext) {
    char buf[128];
    size_t n = 0;
    bool gap = false;
    for (const char *p = mk->name; *p && n < 80; p++) {
        char ch = *p;
        bool keep = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                    (ch >= '0' && ch <= '9') || ch == '_' || ch == '.' || ch == '-';
        if (keep) {
            buf[n++] = ch;
            gap = false;
        } else if (!gap && n) {
            buf[n++] = '_';
            gap = true;
        }
    }
    while (n && (buf[n - 1] == '_' || buf[n - 1] == '.'))
        n--;
    unsigned h = 2166136261u;
    for (const char *p = mk->symbol; *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    /* internal linkage: the symbol and the file name of the unit's source (one
     * page per unit's kernel, the same in every build directory) */
    const char *unit = mk->tu ? mk->tu->tu.source ? mk->tu->tu.source : mk->tu->sidecar : NULL;
    const char *slash = unit ? strrchr(unit, '/') : NULL;
    for (const char *p = slash ? slash + 1 : unit ? unit : ""; *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    return kw_arena_printf(a, "%.*s-%08x%s", (int)n, buf, h, ext);
}

kw_status kw_pages_name(kw_model *m, const char *ext, kw_err *err) {
    size_t elen = strlen(ext);
    kw_symmap pages;
    kw_symmap_init(&pages);
    kw_status st = KW_OK;
    for (size_t i = 0; i < m->kernels.n && st == KW_OK; i++) {
        const char *base = kw_pages_base(&m->arena, &m->kernels.v[i], ext), *p = base;
        for (unsigned n = 2; p && kw_symmap_get(&pages, p); n++)
            p = kw_arena_printf(&m->arena, "%.*s-%u%s", (int)(strlen(base) - elen), base, n, ext);
        if (!p || kw_symmap_put(&pages, p, i) != KW_OK)
            st = kw_fail(err, "out of memory");
        else
            m->kernels.v[i].page = p;
    }
    kw_symmap_free(&pages);
    return st;
}

static bool kw_pages_has(const kw_model *m, const char *name, size_t len) {
    for (size_t i = 0; i < m->kernels.n; i++)
        if (strlen(m->kernels.v[i].page) == len && !memcmp(m->kernels.v[i].page, name, len))
            return true;
    return false;
}

kw_status kw_pages_manifest(const kw_model *m, kw_arena *a, const char *dir, const char *manifest,
                            const char *ext, kw_err *err) {
    char *path = kw_arena_printf(a, "%s/%s", dir, manifest);
    if (!path)
        return kw_fail(err, "out of memory");
    size_t elen = strlen(ext);
    char *old = NULL;
    size_t len = 0;
    struct stat st;
    if (stat(path, &st) == 0 && kw_fs_read_as(path, KW_FS_TEXT, &old, &len, err) != KW_OK)
        return KW_ERR;
    for (size_t at = 0; at < len;) {
        const char *line = old + at, *nl = memchr(line, '\n', len - at);
        size_t n = nl ? (size_t)(nl - line) : len - at;
        at += n + 1;
        /* only names this command gives pages: NAME.ext, no directory part */
        if (n < elen + 1 || n > 255 || memcmp(line + n - elen, ext, elen) || memchr(line, '/', n) ||
            line[0] == '.' || kw_pages_has(m, line, n))
            continue;
        char *stale = kw_arena_printf(a, "%s/%.*s", dir, (int)n, line);
        if (stale)
            unlink(stale);
    }
    free(old);
    kw_buf b;
    kw_buf_init(&b);
    for (size_t i = 0; i < m->kernels.n; i++)
        kw_buf_printf(&b, "%s\n", m->kernels.v[i].page);
    kw_status s = b.oom ? kw_fail(err, "out of memory")
                        : kw_fs_write_atomic(path, b.ptr ? b.ptr : "", b.len, err);
    kw_buf_free(&b);
    return s;
}
