/* kw_index_file.c: the kwalk index on disk: the YAML export written
 * atomically, and either stored form read, told by the file's first bytes
 * (an SQLite database: kw_index_db_read.c; YAML text: kw_index_yaml.c). */
#define _POSIX_C_SOURCE 200809L
#include "index/kw_index.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/kw_fs.h"
#include "index/kw_index_db.h"
#include "index/kw_index_int.h"

kw_status kw_index_write_yaml(const kw_index *ix, const char *path, kw_err *err) {
    kw_buf b;
    kw_buf_init(&b);
    kw_status st = kw_index_emit(ix, &b, err);
    if (st == KW_OK)
        st = kw_fs_write_atomic(path, b.ptr, b.len, err);
    kw_buf_free(&b);
    return st;
}

/* Whether data can be YAML text: no control character (other than tab, line
 * feed, carriage return) in its first bytes, where a binary file has its own
 * magic number or header fields. */
static bool kw_index_is_text(const unsigned char *d, size_t len) {
    for (size_t i = 0; i < len && i < 512; i++)
        if ((d[i] < 0x20 && d[i] != '\t' && d[i] != '\n' && d[i] != '\r') || d[i] == 0x7f)
            return false;
    return true;
}

static const char kw_sqlite_magic[16] = "SQLite format 3";

/* Read either form; the database's listings later on `readers` connections when later is true. */
static kw_status kw_index_read_any(kw_index *ix, const char *path, bool later, unsigned readers,
                                   const kw_dbonly *only, kw_err *err) {
    unsigned char head[512];
    size_t n = 0;
    /* a FIFO or device is left to kw_sidecar_read_text, which refuses it */
    struct stat sb;
    FILE *f = stat(path, &sb) == 0 && S_ISREG(sb.st_mode) ? fopen(path, "rb") : NULL;
    if (f) {
        n = fread(head, 1, sizeof head, f);
        fclose(f);
    }
    if (f && n >= sizeof kw_sqlite_magic && !memcmp(head, kw_sqlite_magic, sizeof kw_sqlite_magic))
        return kw_index_db_read_in(ix, path, later, readers, only, err);
    if (f && n >= 8 && !memcmp(head, "KWALKIDX", 8)) {
        kw_index_init(ix);
        return kw_fail(err,
                       "%s: an index in the packed form of an earlier kwalk; rebuild it with "
                       "'kwalk index'",
                       path);
    }
    if (f && !kw_index_is_text(head, n)) {
        kw_index_init(ix);
        return kw_fail(err, "%s: not a kwalk index (neither its database nor YAML text)", path);
    }
    char *text;
    size_t len;
    if (kw_sidecar_read_text(path, &text, &len, err) != KW_OK) {
        kw_index_init(ix);
        return KW_ERR;
    }
    kw_status st = kw_index_parse(ix, path, text, len, err);
    free(text);
    return st;
}

kw_status kw_index_read_file(kw_index *ix, const char *path, kw_err *err) {
    return kw_index_read_any(ix, path, false, 0, NULL, err);
}

kw_status kw_index_read_file_later(kw_index *ix, const char *path, unsigned readers, kw_err *err) {
    return kw_index_read_any(ix, path, true, readers, NULL, err);
}

kw_status kw_index_read_file_only(kw_index *ix, const char *path, const char *const *symbols,
                                  size_t n, bool every, kw_err *err) {
    bool some = false;
    kw_dbonly only = {symbols, n, every, &some};
    kw_status st = kw_index_read_any(ix, path, false, 0, &only, err);
    ix->kernels_some = st == KW_OK && some;
    return st;
}
