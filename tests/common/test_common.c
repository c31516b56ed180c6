/* test_common.c: the shared data structures: the arena and its typed arrays
 * (kw_arena.h), the string builder (kw_buf.h), error values (kw_err.h), the
 * file helpers (kw_fs.h), running a helper program (kw_proc.h), the JSON
 * helpers over jansson (kw_jansson.h: values checked against the JSON text
 * written here, RFC 8259), the one hash table (kw_htab.h: FNV-1a against the
 * FNV authors' published test vectors, colliding hashes forced) and the
 * string map on it (kw_symmap.h), the number formatter (kw_num.h: against
 * printf in this test, and Python's "%" formatting for the byte counts'
 * expected strings); the HTML escaper and
 * SHA-256 (kw_esc.h: FIPS 180-4's own examples and digests of Python's
 * hashlib). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/kw_arena.h"
#include "common/kw_buf.h"
#include "common/kw_err.h"
#include "common/kw_esc.h"
#include "common/kw_fs.h"
#include "common/kw_htab.h"
#include "common/kw_jansson.h"
#include "common/kw_natcmp.h"
#include "common/kw_num.h"
#include "common/kw_proc.h"
#include "kw_test.h"
#include "common/kw_symmap.h"

static void test_arena(void) {
    kw_arena a;
    kw_arena_init(&a);
    unsigned char *p = kw_arena_alloc(&a, 3);
    CHECK(p && ((uintptr_t)p % 16) == 0 && p[0] == 0 && p[2] == 0);
    unsigned char *q = kw_arena_alloc(&a, 1);
    CHECK(q && ((uintptr_t)q % 16) == 0 && q >= p + 16);
    /* a large block, then small allocations still work and are zeroed */
    unsigned char *big = kw_arena_alloc(&a, 1 << 20);
    CHECK(big && big[0] == 0 && big[(1 << 20) - 1] == 0);
    memset(big, 0xAB, 1 << 20);
    for (int i = 0; i < 10000; i++) {
        unsigned char *s = kw_arena_alloc(&a, 24);
        CHECK(s && s[0] == 0 && s[23] == 0);
        if (s)
            memset(s, 0xCD, 24);
    }
    CHECK(a.total >= (1 << 20) + 10000 * 32);
    CHECK(kw_arena_strdup(&a, NULL) == NULL);
    CHECK_STR(kw_arena_strdup(&a, "kernel"), "kernel");
    CHECK_STR(kw_arena_strndup(&a, "abcdef", 3), "abc");
    CHECK_STR(kw_arena_printf(&a, "%s:%d", "f.cu", 12), "f.cu:12");

    KW_ARRAY(int) ints = {0};
    for (int i = 0; i < 1000; i++) {
        int *slot = KW_PUSH(&a, ints);
        CHECK(slot && *slot == 0);
        if (slot)
            *slot = i * 3;
    }
    CHECK(ints.n == 1000 && ints.cap >= 1000);
    int sum_ok = 1;
    for (int i = 0; i < 1000; i++)
        sum_ok &= ints.v[i] == i * 3;
    CHECK(sum_ok);

    /* a set of strings: copies, each string once, in the order first added */
    KW_ARRAY(const char *) set = {0};
    char word[8] = "gfx942";
    const char *first = KW_STRSET_ADD(&a, set, word, strlen(word));
    CHECK(first && first != word);
    CHECK(KW_STRSET_ADD(&a, set, "gfx950:xnack", 6) != NULL); /* n bytes: "gfx950" */
    word[5] = '0';                                            /* the caller's buffer changes */
    CHECK_STR(first, "gfx942");
    CHECK(KW_STRSET_ADD(&a, set, "gfx942", 6) == first); /* already there */
    CHECK(KW_STRSET_ADD(&a, set, "gfx94", 5) != first);  /* a prefix is another string */
    CHECK(set.n == 3);
    if (set.n == 3) {
        CHECK_STR(set.v[0], "gfx942");
        CHECK_STR(set.v[1], "gfx950");
        CHECK_STR(set.v[2], "gfx94");
    }
    kw_arena_free(&a);
    CHECK(a.head == NULL && a.total == 0);
    kw_arena_free(&a); /* twice is fine */
}

static void test_buf(void) {
    kw_buf b;
    kw_buf_init(&b);
    CHECK_STR(kw_buf_str(&b), "");
    kw_buf_puts(&b, "kernel");
    kw_buf_putc(&b, ' ');
    kw_buf_printf(&b, "%d-%s", 42, "x");
    kw_buf_append(&b, "\0z", 2); /* embedded NUL: len counts it */
    CHECK(b.len == 13 && memcmp(b.ptr, "kernel 42-x\0z", 13) == 0 && b.ptr[13] == 0);
    kw_buf_reset(&b);
    CHECK(b.len == 0 && strcmp(kw_buf_str(&b), "") == 0);
    for (int i = 0; i < 5000; i++)
        kw_buf_printf(&b, "%04d,", i);
    CHECK(b.len == 25000 && strncmp(b.ptr + 24995, "4999,", 5) == 0 && !b.oom);
    kw_buf_free(&b);
    CHECK(b.ptr == NULL && b.len == 0);
    /* kw_dec and kw_buf_int write what snprintf's "%lld" writes */
    static const long long ints[] = {0, 1, -1, 9, 10, -10, 99, 100, 123456789, -987654321,
                                     INT64_MAX, INT64_MIN, INT64_MIN + 1};
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        char want[32], got[32];
        snprintf(want, sizeof want, "%lld", ints[i]);
        *kw_dec(got, ints[i]) = 0;
        CHECK_STR(got, want);
        kw_buf_puts(&b, "=");
        kw_buf_int(&b, ints[i]);
        CHECK(b.len > 0 && !strcmp(b.ptr + 1, want));
        kw_buf_reset(&b);
    }
    kw_buf_free(&b);
}

static void test_err(void) {
    kw_err e;
    CHECK(kw_fail(&e, "%s: line %d: %s", "a.yaml", 3, "bad") == KW_ERR);
    CHECK_STR(e.msg, "a.yaml: line 3: bad");
    CHECK(kw_fail(NULL, "ignored") == KW_ERR);
    char longer[1000];
    memset(longer, 'x', sizeof(longer) - 1);
    longer[sizeof(longer) - 1] = '\0';
    kw_fail(&e, "%s", longer);
    CHECK(strlen(e.msg) == sizeof(e.msg) - 1); /* truncated, terminated */
}

static void test_fs(void) {
    kw_err e;
    CHECK(kw_fs_mkdirs("fs_tmp/a/b", &e) == KW_OK);
    CHECK(kw_fs_mkdirs("fs_tmp/a/b", &e) == KW_OK);
    CHECK(kw_fs_write_atomic("fs_tmp/a/b/f.txt", "hello\n", 6, &e) == KW_OK);
    CHECK(kw_fs_write_atomic("fs_tmp/a/b/f.txt", "bye\n", 4, &e) == KW_OK);
    char *data;
    size_t len;
    CHECK(kw_fs_read("fs_tmp/a/b/f.txt", &data, &len, &e) == KW_OK);
    CHECK(len == 4 && data && strcmp(data, "bye\n") == 0);
    free(data);
    CHECK(kw_fs_read("fs_tmp/none.txt", &data, &len, &e) == KW_ERR);
    CHECK_STR(e.msg, "fs_tmp/none.txt: No such file or directory");
    CHECK(data == NULL && len == 0);
    CHECK(kw_fs_write_atomic("fs_tmp/nodir/f.txt", "x", 1, &e) == KW_ERR);
    CHECK(strncmp(e.msg, "cannot write fs_tmp/nodir/f.txt: ", 33) == 0);
    /* a file larger than the first read buffer */
    size_t big = 200000;
    char *b = malloc(big);
    for (size_t i = 0; i < big; i++)
        b[i] = (char)('a' + i % 26);
    CHECK(kw_fs_write_atomic("fs_tmp/big.txt", b, big, &e) == KW_OK);
    CHECK(kw_fs_read("fs_tmp/big.txt", &data, &len, &e) == KW_OK);
    CHECK(len == big && data && memcmp(data, b, big) == 0 && data[big] == '\0');
    free(data);
    free(b);
}

/* The checked reader: regular files only, without blocking on a FIFO; the
 * size limit of each kind (a sparse file one byte past it); the mapping. The
 * limits are the documented ones (docs/inputs.md), written out here. */
static void test_fs_checked(void) {
    kw_err e;
    char *data;
    size_t len;
    CHECK(kw_fs_limit(KW_FS_TEXT) == (uint64_t)64 << 20);
    CHECK(kw_fs_limit(KW_FS_DATA) == (uint64_t)1 << 30);
    CHECK(kw_fs_limit(KW_FS_CODE) == (uint64_t)4 << 30);
    CHECK(kw_fs_mkdirs("fs_tmp/chk", &e) == KW_OK);
    unlink("fs_tmp/chk/fifo");
    CHECK(mkfifo("fs_tmp/chk/fifo", 0600) == 0);
    CHECK(kw_fs_read("fs_tmp/chk/fifo", &data, &len, &e) == KW_ERR); /* returns: no writer needed */
    CHECK_STR(e.msg, "fs_tmp/chk/fifo: not a regular file (a FIFO)");
    CHECK(data == NULL && len == 0);
    CHECK(kw_fs_read("/dev/null", &data, &len, &e) == KW_ERR);
    CHECK_STR(e.msg, "/dev/null: not a regular file (a character device)");
    CHECK(kw_fs_read("fs_tmp/chk", &data, &len, &e) == KW_ERR);
    CHECK_STR(e.msg, "fs_tmp/chk: Is a directory");
    /* exactly at the limit is read; one byte more is refused before reading */
    FILE *f = fopen("fs_tmp/chk/at.txt", "wb");
    CHECK(f && ftruncate(fileno(f), 64 << 20) == 0);
    fclose(f);
    CHECK(kw_fs_read_as("fs_tmp/chk/at.txt", KW_FS_TEXT, &data, &len, &e) == KW_OK);
    CHECK(len == 64u << 20 && data && data[0] == 0 && data[len] == 0);
    free(data);
    CHECK(truncate("fs_tmp/chk/at.txt", (64 << 20) + 1) == 0);
    CHECK(kw_fs_read_as("fs_tmp/chk/at.txt", KW_FS_TEXT, &data, &len, &e) == KW_ERR);
    CHECK_STR(e.msg, "fs_tmp/chk/at.txt: 67108865 bytes, over kwalk's 64 MiB limit for a source "
                     "or text file");
    CHECK(kw_fs_read_as("fs_tmp/chk/at.txt", KW_FS_DATA, &data, &len, &e) == KW_OK);
    free(data);
    unlink("fs_tmp/chk/at.txt");
    /* a file whose size fstat does not know (procfs) is read to its end */
    CHECK(kw_fs_read_as("/proc/self/status", KW_FS_TEXT, &data, &len, &e) == KW_OK);
    CHECK(len > 0 && strncmp(data, "Name:", 5) == 0);
    free(data);
    /* the mapping: the bytes, private to this process; an empty file; a FIFO */
    static const char elf[6] = {0x7f, 'E', 'L', 'F', 0, 1};
    CHECK(kw_fs_write_atomic("fs_tmp/chk/m.bin", elf, sizeof elf, &e) == KW_OK);
    kw_fs_map m;
    CHECK(kw_fs_map_open(&m, "fs_tmp/chk/m.bin", KW_FS_CODE, &e) == KW_OK);
    CHECK(m.len == 6 && memcmp(m.data, elf, 6) == 0);
    m.data[0] = 'x';
    kw_fs_map_close(&m);
    CHECK(kw_fs_read("fs_tmp/chk/m.bin", &data, &len, &e) == KW_OK && len == 6 && data[0] == 0x7f);
    free(data);
    CHECK(kw_fs_write_atomic("fs_tmp/chk/empty", "", 0, &e) == KW_OK);
    CHECK(kw_fs_map_open(&m, "fs_tmp/chk/empty", KW_FS_CODE, &e) == KW_OK);
    CHECK(m.len == 0 && m.data != NULL);
    kw_fs_map_close(&m);
    CHECK(kw_fs_map_open(&m, "fs_tmp/chk/fifo", KW_FS_CODE, &e) == KW_ERR);
    CHECK_STR(e.msg, "fs_tmp/chk/fifo: not a regular file (a FIFO)");
    CHECK(kw_fs_map_open(&m, "fs_tmp/chk/none", KW_FS_CODE, &e) == KW_ERR);
    CHECK_STR(e.msg, "fs_tmp/chk/none: No such file or directory");
    /* the head of a file, with the same checks */
    char head[16];
    size_t got;
    CHECK(kw_fs_head("fs_tmp/chk/m.bin", KW_FS_DATA, head, sizeof head, &got, &e) == KW_OK);
    CHECK(got == 6 && memcmp(head, elf, 6) == 0);
    CHECK(kw_fs_head("fs_tmp/chk/fifo", KW_FS_DATA, head, sizeof head, &got, &e) == KW_ERR);
    CHECK_STR(e.msg, "fs_tmp/chk/fifo: not a regular file (a FIFO)");
    CHECK(kw_fs_head("fs_tmp/chk", KW_FS_DATA, head, sizeof head, &got, &e) == KW_ERR);
    CHECK_STR(e.msg, "fs_tmp/chk: Is a directory");
    unlink("fs_tmp/chk/fifo");
}

static void test_jansson(void) {
    kw_err e;
    json_t *v;
    /* exact 64-bit integers (ns timestamps), integral reals, a byte order mark */
    static const char doc[] = "\xEF\xBB\xBF{\"t\": 1700000000000000001, \"r\": 3.0, \"h\": 0.5,"
                              " \"s\": \"x\", \"e\": \"\", \"b\": true, \"n\": null}";
    CHECK(kw_jansson_load("d.json", doc, sizeof doc - 1, &v, &e) == KW_OK);
    long long i = 0;
    CHECK(kw_jansson_int(json_object_get(v, "t"), &i) && i == 1700000000000000001LL);
    CHECK(kw_jansson_int(json_object_get(v, "r"), &i) && i == 3);
    CHECK(!kw_jansson_int(json_object_get(v, "h"), &i));
    CHECK(!kw_jansson_int(json_object_get(v, "s"), &i) && !kw_jansson_int(NULL, &i));
    CHECK_STR(kw_jansson_str(json_object_get(v, "s")), "x");
    CHECK(kw_jansson_str(json_object_get(v, "e")) == NULL);
    kw_arena a;
    kw_arena_init(&a);
    CHECK_STR(kw_jansson_scalar(&a, json_object_get(v, "b")), "true");
    CHECK_STR(kw_jansson_scalar(&a, json_object_get(v, "t")), "1700000000000000001");
    CHECK_STR(kw_jansson_scalar(&a, json_object_get(v, "r")), "3.0");
    CHECK_STR(kw_jansson_scalar(&a, json_object_get(v, "h")), "0.5");
    CHECK_STR(kw_jansson_scalar(&a, json_object_get(v, "e")), "");
    CHECK(kw_jansson_scalar(&a, json_object_get(v, "n")) == NULL);
    json_t *r = json_real(0.1);
    CHECK_STR(kw_jansson_scalar(&a, r), "0.1");
    json_decref(r);
    r = json_real(1e-05);
    CHECK_STR(kw_jansson_scalar(&a, r), "1e-05");
    json_decref(r);
    kw_arena_free(&a);
    json_decref(v);
    /* errors: one line with the place; truncated; beyond 64 bits */
    static const char cut[] = "{\"a\": [1,\n 2";
    CHECK(kw_jansson_load("c.json", cut, sizeof cut - 1, &v, &e) == KW_ERR && v == NULL);
    CHECK(!strncmp(e.msg, "c.json: line 2, column ", 23) && strstr(e.msg, "(truncated?)") &&
          !strchr(e.msg, '\n'));
    static const char big[] = "[18446744073709551616]";
    CHECK(kw_jansson_load("b.json", big, sizeof big - 1, &v, &e) == KW_ERR);
    CHECK(strstr(e.msg, "(an integer beyond 64 bits)") != NULL);
    static const char ctl[] = "[\"a\x01\"]";
    CHECK(kw_jansson_load("k.json", ctl, sizeof ctl - 1, &v, &e) == KW_ERR);
    for (const char *p = e.msg; *p; p++)
        CHECK((unsigned char)*p >= 0x20);
    /* writing: invalid UTF-8 becomes U+FFFD; NULL is null */
    json_t *t = kw_jansson_text("a\xFF"
                                "b\xC3\xA9");
    CHECK(t && !strcmp(json_string_value(t), "a\xEF\xBF\xBD"
                                             "b\xC3\xA9"));
    json_decref(t);
    t = kw_jansson_text("\xED\xA0\x80"); /* a surrogate: 3 bytes, 3 replacements */
    CHECK(t && !strcmp(json_string_value(t), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"));
    json_decref(t);
    t = kw_jansson_text(NULL);
    CHECK(json_is_null(t));
    bool oom = false;
    json_t *o = json_object(), *arr = json_array();
    kw_jansson_set(o, "k", json_integer(1), &oom);
    kw_jansson_push(arr, json_true(), &oom);
    CHECK(!oom);
    kw_jansson_set(o, "x", NULL, &oom);
    CHECK(oom && json_object_size(o) == 1);
    json_decref(o);
    json_decref(arr);
}

static void test_symmap(void) {
    kw_symmap m;
    kw_symmap_init(&m);
    CHECK(kw_symmap_get(&m, "x") == NULL);
    kw_arena a;
    kw_arena_init(&a);
    enum { N = 20000 };
    const char **keys = malloc(N * sizeof(*keys));
    for (size_t i = 0; i < N; i++) {
        keys[i] = kw_arena_printf(&a, "_ZN2ns1kILi%zuEEvv", i);
        CHECK(kw_symmap_put(&m, keys[i], i * 7) == KW_OK);
    }
    CHECK(m.n == N && m.tab.n == N && m.tab.cap >= 2 * N);
    int ok = 1;
    for (size_t i = 0; i < N; i++) {
        /* look up with a different pointer to equal text */
        char probe[64];
        snprintf(probe, sizeof(probe), "_ZN2ns1kILi%zuEEvv", i);
        size_t *v = kw_symmap_get(&m, probe);
        ok &= v && *v == i * 7;
    }
    CHECK(ok);
    CHECK(kw_symmap_get(&m, "_ZN2ns1kILi20000EEvv") == NULL);
    CHECK(kw_symmap_put(&m, keys[5], 1) == KW_OK);
    CHECK(m.n == N && *kw_symmap_get(&m, keys[5]) == 1);
    CHECK(kw_symmap_put(&m, "", 99) == KW_OK && *kw_symmap_get(&m, "") == 99);
    free(keys);
    kw_symmap_free(&m);
    kw_arena_free(&a);
}

/* The hash table: FNV-1a against the published vectors (FNV's authors:
 * "" -> cbf29ce484222325, "a" -> af63dc4c8601ec8c, "foobar" ->
 * 85944171f73967e8); then entries whose hashes are made to collide (every
 * fourth equal, and all sharing their low bits) so that probing, growth and
 * clearing are exercised, each entry found by its own key only. */
typedef struct {
    uint64_t h[4096];
    unsigned key[4096];
} test_htab_ents;

static bool test_htab_eq(const void *ctx, size_t i) {
    const unsigned *want = ctx;
    return i == *want;
}

static void test_htab(void) {
    CHECK(kw_htab_hash("", 0) == 0xcbf29ce484222325ull);
    CHECK(kw_htab_hash("a", 1) == 0xaf63dc4c8601ec8cull);
    CHECK(kw_htab_hash("foobar", 6) == 0x85944171f73967e8ull);
    CHECK(kw_htab_hash_str("foobar") == 0x85944171f73967e8ull);
    CHECK(kw_htab_hash("foobarX", 6) == kw_htab_hash_str("foobar"));
    kw_htab t;
    kw_htab_init(&t);
    unsigned k = 0;
    CHECK(kw_htab_find(&t, 1, test_htab_eq, &k) == NULL); /* no slots yet */
    static test_htab_ents e;
    size_t n = sizeof e.h / sizeof e.h[0];
    int ok = 1;
    for (unsigned i = 0; i < n; i++) {
        e.h[i] = ((uint64_t)(i / 4) << 32) | 0x40u; /* low 32 bits all equal */
        ok &= kw_htab_reserve(&t) == KW_OK;
        k = i;
        kw_htab_slot *s = kw_htab_find(&t, e.h[i], test_htab_eq, &k);
        ok &= s && s->idx == 0;
        kw_htab_fill(&t, s, e.h[i], i);
    }
    CHECK(ok);
    CHECK(t.n == n && t.cap >= 2 * n && (t.cap & (t.cap - 1)) == 0);
    for (unsigned i = 0; i < n; i++) {
        k = i;
        kw_htab_slot *s = kw_htab_find(&t, e.h[i], test_htab_eq, &k);
        ok &= s && s->idx == i + 1;
    }
    CHECK(ok);
    k = (unsigned)n; /* absent: an empty slot */
    CHECK(kw_htab_find(&t, e.h[0], test_htab_eq, &k)->idx == 0);
    size_t cap = t.cap;
    kw_htab_clear(&t);
    k = 3;
    CHECK(t.n == 0 && t.cap == cap && kw_htab_find(&t, e.h[3], test_htab_eq, &k)->idx == 0);
    kw_htab_free(&t);
    CHECK(t.cap == 0 && t.slot == NULL);
}

/* The number formatter against printf (values and coordinates, durations)
 * and against the strings Python's '%.0f B' / '%.3g UNIT' write for the
 * byte counts (python3: '%.3g KiB' % 1.5 == '1.5 KiB'). */
static void test_num(void) {
    static const double v[] = {0,         1,        -3,        4096,     2.5,  1.0 / 3,
                               -0.125,    1e17,     123456.75, 7.25e-5,  1e30, 0.05,
                               0.25,      0.35,     1e15,      99999.95, -0.0, 304,
                               2516.6,    1e18 - 1, 65536,     1.5e-300, 12.345};
    char got[64], want[64];
    kw_buf b;
    kw_buf_init(&b);
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        kw_num_value_to(got, sizeof got, v[i]);
        if (v[i] == trunc(v[i]) && fabs(v[i]) < 1e18)
            snprintf(want, sizeof want, "%.0f", v[i]);
        else
            snprintf(want, sizeof want, "%.4g", v[i]);
        CHECK_STR(got, want);
        kw_buf_reset(&b);
        kw_num_value(&b, v[i]);
        CHECK_STR(kw_buf_str(&b), want);
        kw_buf_reset(&b);
        kw_num_f1(&b, v[i]);
        snprintf(want, sizeof want, "%.1f", v[i]);
        CHECK_STR(kw_buf_str(&b), want);
        kw_buf_reset(&b);
        kw_num_us(&b, v[i]);
        snprintf(want, sizeof want, "%.3f us", v[i] / 1000.0);
        CHECK_STR(kw_buf_str(&b), want);
    }
    CHECK_STR(kw_buf_str(&b), "0.012 us"); /* the last value, 12.345 ns */
    static const struct {
        double bytes;
        const char *want;
    } by[] = {
        {0, "0 B"},
        {768, "768 B"},
        {1023, "1023 B"},
        {1024, "1 KiB"},
        {1536, "1.5 KiB"},
        {65536, "64 KiB"},
        {1048576, "1 MiB"},
        {5 * 1048576.0, "5 MiB"},
        {1073741824.0, "1 GiB"},
        {75916902, "72.4 MiB"},
        {5.5 * 1073741824.0, "5.5 GiB"},
        {3 * 1099511627776.0, "3 TiB"},
        /* "%.3g" writes "1e+03 KiB" and "1.02e+03 KiB" for these */
        {1024000, "1000 KiB"},
        {1047552, "1023 KiB"},
        {1048575, "1 MiB"},
        {4096 * 1099511627776.0, "4096 TiB"},
    };
    for (size_t i = 0; i < sizeof by / sizeof by[0]; i++) {
        kw_buf_reset(&b);
        kw_num_bytes(&b, by[i].bytes);
        CHECK_STR(kw_buf_str(&b), by[i].want);
    }
    kw_buf_free(&b);
}

/* Natural order: the expected orders are written out by hand. */
static void test_natcmp(void) {
    static const char *const sorted[] = {"", "a", "rk<0>", "rk<1>", "rk<2>", "rk<02>", "rk<9>",
                                         "rk<10>", "rk<11>", "rk<100>", "rk<a>", "rka",
                                         "s<1, 2>", "s<1, 10>", "s<2, 1>"};
    size_t n = sizeof(sorted) / sizeof(sorted[0]);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            int c = kw_natcmp(sorted[i], sorted[j]);
            CHECK(i < j ? c < 0 : i > j ? c > 0 : c == 0);
        }
}

/* kw_proc_run: output, exit codes, the first stderr line, the limits. */
static void test_proc(void) {
    kw_buf out;
    kw_proc_result res;
    kw_buf_init(&out);
    char *echo[] = {"/bin/sh", "-c", "printf 'a\\nb'; printf 'why\\nmore\\n' >&2; exit 3", NULL};
    kw_proc_run(echo, 30, 1 << 20, &out, &res);
    CHECK(res.end == KW_PROC_EXITED && res.code == 3);
    CHECK(!strcmp(kw_buf_str(&out), "a\nb"));
    CHECK(!strcmp(res.errline, "why"));
    kw_buf_reset(&out);
    char *sleeper[] = {"/bin/sh", "-c", "sleep 30", NULL};
    kw_proc_run(sleeper, 0.3, 1 << 20, &out, &res);
    CHECK(res.end == KW_PROC_TIMEOUT);
    char *yes[] = {"/bin/sh", "-c", "while :; do echo yyyyyyyy; done", NULL};
    kw_proc_run(yes, 30, 4096, &out, &res);
    CHECK(res.end == KW_PROC_TOO_BIG && out.len <= 4096);
    kw_buf_reset(&out);
    char *killed[] = {"/bin/sh", "-c", "kill -9 $$", NULL};
    kw_proc_run(killed, 30, 4096, &out, &res);
    CHECK(res.end == KW_PROC_SIGNALED && res.code == 9);
    char *none[] = {"/nonexistent/kwalk-tool", NULL};
    kw_proc_run(none, 30, 4096, &out, &res);
    CHECK(res.end == KW_PROC_NOT_RUN && strstr(res.errline, "/nonexistent/kwalk-tool"));
    kw_buf_free(&out);
}

/* kw_esc_html: the five characters (the apostrophe only when asked), the
 * rest byte for byte; kw_sha256 and its CSP form: FIPS 180-4's examples
 * ("abc", the 448-bit message) and hashlib's digests at the padding's edges
 * (55, 56, 64 bytes: one or two final blocks) */
static void test_esc(void) {
    kw_buf b;
    kw_buf_init(&b);
    static const char hostile[] = "<img src=x onerror='alert(1)'>&amp;\"\0z";
    kw_esc_html(&b, hostile, sizeof hostile - 1, false);
    static const char want[] = "&lt;img src=x onerror='alert(1)'&gt;&amp;amp;&quot;\0z";
    CHECK(b.len == sizeof want - 1 && !memcmp(b.ptr, want, sizeof want - 1));
    kw_buf_reset(&b);
    kw_esc_html(&b, "a'b", 3, true);
    CHECK_STR(kw_buf_str(&b), "a&#39;b");
    kw_buf_free(&b);
    static const struct {
        size_t n;
        char c; /* n bytes of c, or the text when c is 0 */
        const char *text, *hex, *b64;
    } v[] = {
        {0, 0, "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
         "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="},
        {3, 0, "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
         "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0="},
        {56, 0, "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
         "JI1qYdIGOLjlwCaTDD5gOaM85Flk/yFn9uzt1BnbBsE="},
        {55, 'a', NULL, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318",
         "n0OQ+NMMLdkuyfCVtl4rmumwqSWlJY4kHJ8ekQ9zQxg="},
        {56, 'a', NULL, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a",
         "s1Q5pKxvCUi21vnjxq8PX1kM4g8b3nCQ73lwaG7Gc4o="},
        {64, 'a', NULL, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb",
         "/+BU/nrgy23GXDr5th1SCfQ5hR20PQulmXM33xVGaOs="},
        {1000, 'a', NULL, "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3",
         "Qe3s5C1j6Nm/UVqbppMuHCDLyfWl0TRkWttdsblzfqM="},
    };
    static char msg[1000];
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        const char *m = v[i].text;
        if (!m) {
            memset(msg, v[i].c, v[i].n);
            m = msg;
        }
        unsigned char d[32];
        char hex[65], csp[52], want[52];
        kw_sha256(m, v[i].n, d);
        for (int j = 0; j < 32; j++)
            snprintf(hex + 2 * j, 3, "%02x", d[j]);
        CHECK_STR(hex, v[i].hex);
        kw_sha256_csp(m, v[i].n, csp);
        snprintf(want, sizeof want, "sha256-%s", v[i].b64);
        CHECK_STR(csp, want);
    }
}

int main(void) {
    test_proc();
    test_arena();
    test_buf();
    test_esc();
    test_err();
    test_fs();
    test_fs_checked();
    test_jansson();
    test_htab();
    test_symmap();
    test_num();
    test_natcmp();
    return kw_test_result("test_common");
}
