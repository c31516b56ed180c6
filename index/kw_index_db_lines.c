/* kw_index_db_lines.c: an arch's line table packed into one BLOB of
 * kernels_archs_lines_packed, which page readers (kw_index_db_later.c) read
 * in one step instead of a row per entry (docs/index-schema.md, "Packed
 * line tables"). The rows of kernels_archs_lines stay what SQL and the whole
 * load read; the BLOB holds the same entries without their inlining chains:
 *   version 1; the number of files, each as its length and bytes; the number
 *   of entries, each as offset, 1 + its file's number (0: none), line and
 *   column.
 * Every number is a LEB128 varint, signed ones zigzag-coded. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/kw_varint.h"
#include "index/kw_index_db.h"

enum { KW_PACK_VERSION = 1 };

/* The number of file f among files[0, n) (comparing pointers first: the
 * entries of one file share its string), or -1. */
static long kw_pack_file(const char *const *files, size_t n, const char *f) {
    for (size_t i = n; i-- > 0;)
        if (files[i] == f || !strcmp(files[i], f))
            return (long)i;
    return -1;
}

kw_status kw_db_lines_pack(kw_buf *out, const kw_isa_line *v, size_t n, const char **why) {
    /* the entries into body as the files are met, each file numbered once */
    const char **files = NULL;
    size_t nfiles = 0, cap = 0;
    kw_buf body;
    kw_buf_init(&body);
    for (size_t i = 0; i < n; i++) {
        const char *f = v[i].location.file;
        long fi = f ? kw_pack_file(files, nfiles, f) : -1;
        if (f && fi < 0) {
            if (nfiles == cap) {
                cap = cap ? 2 * cap : 16;
                const char **more = realloc(files, cap * sizeof *files);
                if (!more) {
                    free(files);
                    kw_buf_free(&body);
                    *why = "out of memory";
                    return KW_ERR;
                }
                files = more;
            }
            fi = (long)nfiles;
            files[nfiles++] = f;
        }
        kw_varint_put_s(&body, v[i].offset);
        kw_varint_put_u(&body, f ? (uint64_t)fi + 1 : 0);
        kw_varint_put_s(&body, v[i].location.line);
        kw_varint_put_s(&body, v[i].location.column);
    }
    kw_buf_reset(out);
    kw_varint_put_u(out, KW_PACK_VERSION);
    kw_varint_put_u(out, nfiles);
    for (size_t i = 0; i < nfiles; i++) {
        size_t len = strlen(files[i]);
        kw_varint_put_u(out, len);
        kw_buf_append(out, files[i], len);
    }
    kw_varint_put_u(out, n);
    if (body.len)
        kw_buf_append(out, body.ptr, body.len);
    bool oom = out->oom || body.oom;
    free(files);
    kw_buf_free(&body);
    if (oom) {
        *why = "out of memory";
        return KW_ERR;
    }
    return KW_OK;
}

kw_status kw_db_lines_unpack(const void *data, size_t len, kw_arena *a, kw_isa_line **out,
                             size_t *nout, const char **why) {
    kw_varint_in u = {data, (const unsigned char *)data + len, false};
    *out = NULL;
    *nout = 0;
    if (kw_varint_get_u(&u) != KW_PACK_VERSION) {
        *why = "a packed line table of another version";
        return KW_ERR;
    }
    uint64_t nfiles = kw_varint_get_u(&u);
    if (u.bad || nfiles > (uint64_t)(u.end - u.p)) { /* a byte per file at least */
        *why = "a damaged packed line table";
        return KW_ERR;
    }
    const char **files = nfiles ? kw_arena_alloc(a, (size_t)nfiles * sizeof *files) : NULL;
    if (nfiles && !files) {
        *why = "out of memory";
        return KW_ERR;
    }
    for (uint64_t i = 0; i < nfiles; i++) {
        uint64_t fl = kw_varint_get_u(&u);
        if (u.bad || fl > (uint64_t)(u.end - u.p)) {
            *why = "a damaged packed line table";
            return KW_ERR;
        }
        files[i] = kw_arena_strndup(a, (const char *)u.p, (size_t)fl);
        if (!files[i]) {
            *why = "out of memory";
            return KW_ERR;
        }
        u.p += fl;
    }
    uint64_t n = kw_varint_get_u(&u);
    /* each entry takes 4 bytes at least: no more entries than that */
    if (u.bad || n > (uint64_t)(u.end - u.p) / 4) {
        *why = "a damaged packed line table";
        return KW_ERR;
    }
    kw_isa_line *v = n ? kw_arena_alloc(a, (size_t)n * sizeof *v) : NULL;
    if (n && !v) {
        *why = "out of memory";
        return KW_ERR;
    }
    for (uint64_t i = 0; i < n; i++) {
        kw_isa_line *l = &v[i];
        memset(l, 0, sizeof *l);
        l->offset = kw_varint_get_s(&u);
        uint64_t f = kw_varint_get_u(&u);
        l->location.file = f && f <= nfiles ? files[f - 1] : NULL;
        l->location.line = (int)kw_varint_get_s(&u);
        l->location.column = (int)kw_varint_get_s(&u);
        if (u.bad || f > nfiles) {
            *why = "a damaged packed line table";
            return KW_ERR;
        }
    }
    if (u.p != u.end) {
        *why = "a damaged packed line table";
        return KW_ERR;
    }
    *out = v;
    *nout = (size_t)n;
    return KW_OK;
}
