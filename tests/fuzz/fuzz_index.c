/* fuzz_index.c: the fuzz target of the kwalk index reader: either stored
 * form, told by the first bytes (kw_index_read_file: an SQLite database, or
 * YAML text, the latter also through libyaml alone, KWALK_YAML_FAST=0).
 * Checked: both readings agree; an index that reads writes YAML that reads
 * back to the same YAML; every kernel is found by its symbol. */
#define _POSIX_C_SOURCE 200809L /* setenv, mkstemp */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "index/kw_index.h"
#include "kw_fuzz.h"

static void emit_or_die(const kw_index *ix, kw_buf *yaml, const char *what) {
    kw_err err;
    kw_buf_init(yaml);
    KW_FUZZ_CHECK(kw_index_emit(ix, yaml, &err) == KW_OK, "%s: emit: %s", what, err.msg);
}

static bool same(const kw_buf *x, const kw_buf *y) {
    return x->len == y->len && !memcmp(x->ptr, y->ptr, x->len);
}

/* The input as a file (the database is read from a file). */
static char *as_file(const uint8_t *data, size_t size) {
    const char *dir = getenv("TMPDIR");
    char *path = malloc(strlen(dir ? dir : "/tmp") + 32);
    if (!path)
        return NULL;
    sprintf(path, "%s/kwfuzz-index-XXXXXX", dir ? dir : "/tmp");
    int fd = mkstemp(path);
    KW_FUZZ_CHECK(fd >= 0, "cannot create %s", path);
    KW_FUZZ_CHECK(write(fd, data, size) == (ssize_t)size, "cannot write %s", path);
    close(fd);
    return path;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    kw_err err, err2;
    kw_index a, b;
    char *path = as_file(data, size);
    if (!path)
        return 0;
    kw_status sa = kw_index_read_file(&a, path, &err);
    setenv("KWALK_YAML_FAST", "0", 1);
    kw_status sb = kw_index_read_file(&b, path, &err2);
    unsetenv("KWALK_YAML_FAST");
    unlink(path);
    free(path);
    KW_FUZZ_CHECK(sa == sb, "the fast path says %s, libyaml's %s", sa == KW_OK ? "ok" : err.msg,
                  sb == KW_OK ? "ok" : err2.msg);
    KW_FUZZ_CHECK(sa == KW_OK || !strchr(err.msg, '\n'), "a message of several lines: %s", err.msg);
    if (sa == KW_OK) {
        for (size_t i = 0; i < a.kernels.n; i++)
            KW_FUZZ_CHECK(kw_index_kernel(&a, a.kernels.v[i].symbol) != NULL,
                          "kernel %zu not found by its symbol", i);
        kw_buf ya, yb;
        emit_or_die(&a, &ya, "the index");
        emit_or_die(&b, &yb, "libyaml's index");
        KW_FUZZ_CHECK(same(&ya, &yb), "the fast path and libyaml read different indexes");
        kw_index d;
        KW_FUZZ_CHECK(kw_index_parse(&d, "yaml", ya.ptr, ya.len, &err) == KW_OK,
                      "the YAML form does not load back: %s", err.msg);
        kw_buf yd;
        emit_or_die(&d, &yd, "the YAML form read back");
        KW_FUZZ_CHECK(same(&ya, &yd), "the YAML form read back differs");
        kw_buf_free(&ya);
        kw_buf_free(&yb);
        kw_buf_free(&yd);
        kw_index_free(&d);
    }
    kw_index_free(&a);
    kw_index_free(&b);
    return 0;
}
