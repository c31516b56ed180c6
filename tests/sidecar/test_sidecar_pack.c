/* test_sidecar_pack.c: the packed form the plugin's jobs exchange
 * (sidecar/kw_sidecar_pack.c). For every sidecar given (the fixtures, and
 * the corpus's real sidecars, which carry IR facts): the document read from
 * YAML, packed and unpacked, writes the same YAML as the document read
 * (nothing of the schema is lost or changed on the way), and packs to the
 * same bytes again. Damaged input is an error, never a crash: every cut
 * length of a small document, bytes changed across a large one (about 300
 * places each, 100 under AddressSanitizer), a document
 * of another build (its schema fingerprint) and not msgpack at all.
 *   test_sidecar_pack FILE|DIR...   (a DIR: its *.kwalk.yaml files) */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "common/kw_buf.h"
#include "kw_test.h"
#include "sidecar/kw_sidecar.h"
#include "sidecar/kw_sidecar_pack.h"

static size_t files_read, kernels_with_ir;
/* damaged documents that unpacked and were written again, per file (each
 * costs a whole YAML writing: the first few are enough) */
static int damaged_written;

static bool emit(const kw_sidecar *sc, kw_buf *out) {
    kw_err err;
    kw_buf_init(out);
    if (kw_sidecar_emit(sc, out, &err) != KW_OK) {
        fprintf(stderr, "emit: %s\n", err.msg);
        return false;
    }
    return true;
}

static bool same(const kw_buf *a, const kw_buf *b) {
    return a->len == b->len && memcmp(a->ptr, b->ptr, a->len) == 0;
}

/* Unpacking the damaged bytes fails with a message naming the input, or
 * succeeds; a document read from them is written (or refused) cleanly. */
static void try_damaged(const char *data, size_t len) {
    kw_sidecar sc;
    kw_err err;
    err.msg[0] = '\0';
    if (kw_sidecar_unpack(&sc, "dmg", data, len, &err) != KW_OK) {
        CHECK(strncmp(err.msg, "dmg: ", 5) == 0);
        CHECK(sc.kernels.n == 0);
        return;
    }
    if (damaged_written++ < 8) {
        kw_buf y;
        kw_buf_init(&y);
        (void)kw_sidecar_emit(&sc, &y, &err);
        kw_buf_free(&y);
    }
    kw_sidecar_free(&sc);
}

/* Places damaged per document: under AddressSanitizer every unpacking of a
 * large document costs about 100 times more (its quarantine), so fewer. */
#if defined(__SANITIZE_ADDRESS__)
#define DAMAGE_PLACES 100
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DAMAGE_PLACES 100
#endif
#endif
#ifndef DAMAGE_PLACES
#define DAMAGE_PLACES 300
#endif

static void test_damage(const kw_buf *p) {
    /* every cut on a small document; about DAMAGE_PLACES cuts on a large one */
    size_t step = p->len / DAMAGE_PLACES + 1;
    for (size_t n = 0; n < p->len; n += step)
        try_damaged(p->ptr, n);
    char *copy = malloc(p->len);
    CHECK(copy != NULL);
    if (!copy)
        return;
    for (size_t i = 0; i < p->len; i += step) {
        memcpy(copy, p->ptr, p->len);
        copy[i] ^= (char)0x5a;
        try_damaged(copy, p->len);
        copy[i] = (char)0xdd; /* an array32 header claiming far too many elements */
        try_damaged(copy, p->len);
    }
    free(copy);
}

static void test_file(const char *path) {
    kw_sidecar a, b;
    kw_err err;
    if (kw_sidecar_read_file(&a, path, &err) != KW_OK) {
        fprintf(stderr, "%s\n", err.msg);
        CHECK(!"a sidecar given reads");
        return;
    }
    files_read++;
    for (size_t k = 0; k < a.kernels.n; k++)
        for (size_t r = 0; r < a.kernels.v[k].archs.n; r++)
            kernels_with_ir += a.kernels.v[k].archs.v[r].ir != NULL;
    kw_buf y1, y2, p1, p2;
    kw_buf_init(&p1);
    kw_buf_init(&p2);
    CHECK(emit(&a, &y1));
    CHECK(kw_sidecar_pack(&a, &p1, &err) == KW_OK);
    CHECK(p1.len > 0 && p1.len < y1.len); /* strings written once: smaller than the YAML */
    if (kw_sidecar_unpack(&b, "packed", p1.ptr, p1.len, &err) != KW_OK) {
        fprintf(stderr, "%s: %s\n", path, err.msg);
        CHECK(!"the packed form unpacks");
    } else {
        CHECK(emit(&b, &y2));
        if (!same(&y1, &y2))
            fprintf(stderr, "%s: the YAML of the unpacked document differs\n", path);
        CHECK(same(&y1, &y2));
        CHECK(kw_sidecar_pack(&b, &p2, &err) == KW_OK);
        CHECK(same(&p1, &p2));
        kw_buf_free(&y2);
        kw_sidecar_free(&b);
    }
    damaged_written = 0;
    test_damage(&p1);
    kw_buf_free(&y1);
    kw_buf_free(&p1);
    kw_buf_free(&p2);
    kw_sidecar_free(&a);
}

/* A header of another build, and bytes that are not a packed sidecar. */
static void test_headers(void) {
    kw_sidecar sc, back;
    kw_sidecar_init(&sc);
    kw_buf p;
    kw_buf_init(&p);
    kw_err err;
    CHECK(kw_sidecar_pack(&sc, &p, &err) == KW_OK);
    CHECK(kw_sidecar_unpack(&back, "x", p.ptr, p.len, &err) == KW_OK);
    CHECK(back.schema == KW_SCHEMA_VERSION);
    kw_sidecar_free(&back);
    /* [fixarray 4, fixstr "kwalk-fragment" (1 + 14 bytes), uint64 0xcf + 8 bytes, ...] */
    CHECK(p.len > 25 && (unsigned char)p.ptr[16] == 0xcf);
    if (p.len > 25) {
        p.ptr[24] ^= 1;
        CHECK(kw_sidecar_unpack(&back, "x", p.ptr, p.len, &err) == KW_ERR);
        CHECK(strstr(err.msg, "another build of kwalk") != NULL);
        p.ptr[24] ^= 1;
        p.ptr[2] = 'K';
        CHECK(kw_sidecar_unpack(&back, "x", p.ptr, p.len, &err) == KW_ERR);
        CHECK_STR(err.msg, "x: not a packed sidecar");
    }
    const char yaml[] = "kwalk_schema: 3\n";
    CHECK(kw_sidecar_unpack(&back, "y", yaml, sizeof yaml - 1, &err) == KW_ERR);
    CHECK(strncmp(err.msg, "y: not a packed sidecar", 23) == 0);
    CHECK(kw_sidecar_unpack(&back, "e", "", 0, &err) == KW_ERR);
    kw_buf_free(&p);
    kw_sidecar_free(&sc);
}

static bool ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

int main(int argc, char **argv) {
    test_headers();
    for (int i = 1; i < argc; i++) {
        DIR *d = opendir(argv[i]);
        if (!d) {
            test_file(argv[i]);
            continue;
        }
        struct dirent *e;
        while ((e = readdir(d)))
            if (ends_with(e->d_name, ".kwalk.yaml")) {
                char path[4096];
                snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
                test_file(path);
            }
        closedir(d);
    }
    printf("test_sidecar_pack: %zu sidecars, %zu kernel archs with IR facts\n", files_read,
           kernels_with_ir);
    CHECK(files_read >= 3);
    return kw_test_result("test_sidecar_pack");
}
