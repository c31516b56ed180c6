/* kw_index_file.c: the kwalk index on disk: written in either form (packed,
 * kw_index_bin.c, the default; or YAML, kw_index_yaml.c), read in the form its
 * first bytes show. */
#include "index/kw_index.h"

#include <stdlib.h>

#include "common/kw_fs.h"
#include "index/kw_index_int.h"

kw_status kw_index_write_file(const kw_index *ix, const char *path, kw_index_format format,
                             kw_err *err) {
    kw_buf b;
    kw_buf_init(&b);
    kw_status st =
        format == KW_INDEX_YAML ? kw_index_emit(ix, &b, err) : kw_index_encode(ix, &b, err);
    if (st == KW_OK)
        st = kw_fs_write_atomic(path, b.ptr, b.len, err);
    kw_buf_free(&b);
    return st;
}

kw_status kw_index_read_file(kw_index *ix, const char *path, kw_err *err) {
    char *text;
    size_t len;
    if (kw_sidecar_read_text(path, &text, &len, err) != KW_OK) {
        kw_index_init(ix);
        return KW_ERR;
    }
    kw_status st = kw_index_load(ix, path, text, len, err);
    free(text);
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

kw_status kw_index_load(kw_index *ix, const char *name, const void *data, size_t len, kw_err *err) {
    if (kw_index_is_packed(data, len))
        return kw_index_decode(ix, name, data, len, err);
    if (!kw_index_is_text(data, len)) {
        kw_index_init(ix);
        return kw_fail(err, "%s: not a kwalk index (neither its packed form nor YAML text)", name);
    }
    return kw_index_parse(ix, name, data, len, err);
}
