/* kw_pages.c: the page manifest of render --all and site (kw_pages.h); the
 * page names are the model's (model/kw_model_pages.h). Includes nothing of
 * sidecar/ or index/. */
#include "render/kw_pages.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/kw_buf.h"
#include "common/kw_fs.h"

static bool kw_pages_has(const kw_model *m, const char *const *more, size_t nmore,
                         const char *name, size_t len) {
    for (size_t i = 0; i < m->kernels.n; i++)
        if (strlen(m->kernels.v[i].page) == len && !memcmp(m->kernels.v[i].page, name, len))
            return true;
    for (size_t i = 0; i < nmore; i++)
        if (strlen(more[i]) == len && !memcmp(more[i], name, len))
            return true;
    return false;
}

kw_status kw_pages_manifest(const kw_model *m, const char *const *more, size_t nmore, kw_arena *a,
                            const char *dir, const char *manifest, const char *ext, kw_err *err) {
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
            line[0] == '.' || kw_pages_has(m, more, nmore, line, n))
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
    for (size_t i = 0; i < nmore; i++)
        kw_buf_printf(&b, "%s\n", more[i]);
    kw_status s = b.oom ? kw_fail(err, "out of memory")
                        : kw_fs_write_atomic(path, b.ptr ? b.ptr : "", b.len, err);
    kw_buf_free(&b);
    return s;
}
