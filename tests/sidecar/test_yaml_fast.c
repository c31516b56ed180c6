/* test_yaml_fast.c: the fast YAML reader (sidecar/kw_yaml_fast.h) against
 * libyaml, the independent reference. Whenever the fast reader accepts a
 * text, its event stream must equal libyaml's event for event (type, style,
 * value, implicit flags, a sequence's item count); it must accept what
 * kwalk's own writer produces (else the speed is silently lost); and it must
 * decline what lies outside its subset. Checked on the fixture sidecars, on hand-written edge
 * cases, and on many deterministic random mutations of all of them. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

#include "common/kw_fs.h"
#include "kw_test.h"
#include "kw_test_sidecar.h"
#include "sidecar/kw_sidecar.h"
#include "sidecar/kw_yaml_emit.h"
#include "sidecar/kw_yaml_fast.h"

/* ---- libyaml's events, compared with the fast reader's -------------------------------------- */

typedef struct ref_events {
    yaml_event_t *v;
    size_t n, cap;
} ref_events;

static void ref_free(ref_events *r) {
    for (size_t i = 0; i < r->n; i++)
        yaml_event_delete(&r->v[i]);
    free(r->v);
    memset(r, 0, sizeof(*r));
}

/* All of libyaml's events for text; false on a syntax error. */
static bool ref_parse(ref_events *r, const char *text, size_t len) {
    memset(r, 0, sizeof(*r));
    yaml_parser_t p;
    if (!yaml_parser_initialize(&p))
        return false;
    yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
    bool ok = true;
    for (;;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&p, &ev)) {
            ok = false;
            break;
        }
        if (r->n == r->cap) {
            r->cap = r->cap ? 2 * r->cap : 64;
            r->v = realloc(r->v, r->cap * sizeof(*r->v));
        }
        r->v[r->n++] = ev;
        if (ev.type == YAML_STREAM_END_EVENT)
            break;
    }
    yaml_parser_delete(&p);
    return ok;
}

/* Does libyaml's anchor a equal the fast event's (its name, or none)? */
static bool anchor_same(const yaml_char_t *a, const kw_yaml_fast_doc *d,
                        const kw_yaml_fast_event *b) {
    if (!a || !b->anchor)
        return !a && !b->anchor;
    return b->anchor <= d->nanchors &&
           !strcmp((const char *)a, d->vals + d->anchors[b->anchor - 1].name);
}

/* How many items (nodes one level down) libyaml's sequence starting at
 * event i holds: what the fast reader's len of a sequence start must say. */
static size_t ref_items(const ref_events *r, size_t i) {
    size_t items = 0, depth = 0;
    for (size_t j = i + 1; j < r->n; j++) {
        yaml_event_type_t t = r->v[j].type;
        if (t == YAML_MAPPING_END_EVENT || t == YAML_SEQUENCE_END_EVENT) {
            if (!depth)
                break;
            depth--;
            continue;
        }
        if (!depth && (t == YAML_SCALAR_EVENT || t == YAML_ALIAS_EVENT ||
                       t == YAML_MAPPING_START_EVENT || t == YAML_SEQUENCE_START_EVENT))
            items++;
        if (t == YAML_MAPPING_START_EVENT || t == YAML_SEQUENCE_START_EVENT)
            depth++;
    }
    return items;
}

/* Why the two streams differ, or NULL when they are the same. Also checks
 * that an alias names the anchor that libyaml's document defined last
 * before it under that name, and that each anchor spans its node. */
static const char *streams_differ(const ref_events *r, const kw_yaml_fast_doc *d, size_t *at) {
    if (r->n != d->n) {
        *at = r->n < d->n ? r->n : d->n;
        return "event count";
    }
    for (size_t i = 0; i < r->n; i++) {
        const yaml_event_t *a = &r->v[i];
        const kw_yaml_fast_event *b = &d->ev[i];
        *at = i;
        if ((int)a->type != b->type)
            return "event type";
        switch (a->type) {
        case YAML_SCALAR_EVENT:
            if (a->data.scalar.tag)
                return "tag";
            if (!anchor_same(a->data.scalar.anchor, d, b))
                return "scalar anchor";
            if (b->anchor && d->anchors[b->anchor - 1].end != i + 1)
                return "scalar anchor's extent";
            if ((int)a->data.scalar.style != b->style)
                return "scalar style";
            if (a->data.scalar.length != b->len ||
                memcmp(a->data.scalar.value, d->vals + b->off, b->len) != 0 ||
                d->vals[b->off + b->len] != '\0')
                return "scalar value";
            if (a->data.scalar.plain_implicit != (b->style == YAML_PLAIN_SCALAR_STYLE) ||
                a->data.scalar.quoted_implicit != (b->style != YAML_PLAIN_SCALAR_STYLE))
                return "scalar implicit flags";
            break;
        case YAML_MAPPING_START_EVENT:
            if (a->data.mapping_start.tag || !a->data.mapping_start.implicit)
                return "mapping tag or implicit";
            if (!anchor_same(a->data.mapping_start.anchor, d, b))
                return "mapping anchor";
            if ((int)a->data.mapping_start.style != b->style)
                return "mapping style";
            break;
        case YAML_SEQUENCE_START_EVENT:
            if (a->data.sequence_start.tag || !a->data.sequence_start.implicit)
                return "sequence tag or implicit";
            if (!anchor_same(a->data.sequence_start.anchor, d, b))
                return "sequence anchor";
            if ((int)a->data.sequence_start.style != b->style)
                return "sequence style";
            if (b->len != ref_items(r, i))
                return "sequence item count";
            break;
        case YAML_ALIAS_EVENT: {
            if (strlen((const char *)a->data.alias.anchor) != b->len ||
                strcmp((const char *)a->data.alias.anchor, d->vals + b->off))
                return "alias name";
            size_t want = 0; /* the last anchor of that name before i, in libyaml's events */
            for (size_t j = 0, k = 0; j < i; j++) {
                const yaml_char_t *an =
                    r->v[j].type == YAML_SCALAR_EVENT           ? r->v[j].data.scalar.anchor
                    : r->v[j].type == YAML_MAPPING_START_EVENT  ? r->v[j].data.mapping_start.anchor
                    : r->v[j].type == YAML_SEQUENCE_START_EVENT ? r->v[j].data.sequence_start.anchor
                                                                : NULL;
                if (an && ++k && !strcmp((const char *)an, (const char *)a->data.alias.anchor))
                    want = k;
            }
            if (b->anchor != want)
                return "alias target";
            break;
        }
        case YAML_DOCUMENT_START_EVENT:
            if (!a->data.document_start.implicit || a->data.document_start.version_directive)
                return "document start";
            break;
        case YAML_DOCUMENT_END_EVENT:
            if (a->data.document_end.implicit != b->style)
                return "document end implicit";
            break;
        default:
            break;
        }
    }
    return NULL;
}

static int accepted, declined, compared;

/* The core property: if the fast reader accepts text, libyaml reads the same
 * events from it. Returns whether the fast reader accepted. */
static bool check_text(const char *what, const char *text, size_t len) {
    kw_yaml_fast_doc d;
    kw_yaml_fast_init(&d);
    bool fast = kw_yaml_fast_parse(&d, text, len);
    if (fast) {
        accepted++;
        ref_events r;
        bool ref = ref_parse(&r, text, len);
        size_t at = 0;
        const char *why = ref ? streams_differ(&r, &d, &at) : "libyaml rejects the text";
        compared++;
        kw_test_checks++;
        if (why) {
            kw_test_failures++;
            FILE *f = fopen("test_yaml_fast.failed.yaml", "wb"); /* the text, to look at */
            if (f) {
                fwrite(text, 1, len, f);
                fclose(f);
            }
            if (ref && at < r.n && at < d.n && r.v[at].type == YAML_SCALAR_EVENT)
                fprintf(stderr, "libyaml: [%s] (line %zu)\nfast:    [%s]\n",
                        (const char *)r.v[at].data.scalar.value, r.v[at].start_mark.line + 1,
                        d.ev[at].type == YAML_SCALAR_EVENT ? d.vals + d.ev[at].off : "-");
            fprintf(stderr,
                    "%s: fast reader differs from libyaml at event %zu: %s\n---\n%.*s\n---\n", what,
                    at, why, (int)(len > 2000 ? 2000 : len), text);
        }
        ref_free(&r);
    } else {
        declined++;
    }
    kw_yaml_fast_free(&d);
    return fast;
}

/* ---- Inputs --------------------------------------------------------------------------------- */

/* Within the subset: the fast reader must accept these. */
static const char *const in_subset[] = {
    "a: 1\n",
    "a: 1\n...\n",
    "a: 1\nb:\n- x\n- y\nc: z\n...\n",
    "a:\n  b:\n    c: d\n  e: f\ng: h\n",
    "k:\n- a: 1\n  b: 2\n- a: 3\n  c:\n  - 4\n  - 5\n- plain\n- 'quoted'\n",
    "k:\n  - a\n  - b\n",
    "k:\n-\n  a: 1\n- b\n-\nz: 1\n",
    "empty:\nnext: ~\nnull: null\n",
    "flow: {a: 1, b: [x, y, 'z w'], c: {}, d: [], e: , f: \"q\"}\n",
    "f: {file: /a/b.hip, line: 12, column: 3}\n",
    "s: [gfx942, gfx950]\n",
    "types: {name: in, type: const float *__restrict}\n",
    "dq: \"a\\nb\\t\\\"c\\\\d\\x41\\u00e9\\U0001F600\\/\\0\\N\\_\\L\\P\\e\\a\\b\\v\\f\\r\\ \"\n",
    "sq: 'it''s ''quoted'''\n",
    "url: http://x.y/z:1\n",
    "neg: -1\n",
    "spaced:    value with  spaces   \n",
    "colon: a:b:c\n",
    "'quoted key': 1\n\"dq key\": 2\n",
    "lit: |\n  line one\n  line two\n",
    "lit: |-\n  line one\n\n  line three\nnext: 1\n",
    "lit: |+\n  keep\n\n\nnext: 1\n",
    "lit: |\n  a\n    indented\n  b\n\n\nnext: 1\n",
    "seq:\n- |-\n  in a sequence\n  two\n- x\n",
    "k: v\n\n\nk2: v2\n",
    "deep: [[1, [2, [3]]], {a: {b: {c: [d]}}}]\n",
    "hash: a#b\n",
    "row: {key: 'row_shr:1', n: 4}\n",
    "a: caf\xc3\xa9 \xe2\x88\x91 \xf0\x9f\x98\x80\nb: \"\xc3\xbc\"\n",
    "k:\n- q: ?q\n  c: :colon\n",
    /* anchors and aliases, as the sharing writer puts them */
    "a: &x 1\nb: *x\n",
    "a: &x 1\nb: &x 2\nc: *x\nd: &y 3\ne: &x 4\nf: [*x, *y]\n", /* x defined again */
    "a: &0 {file: /a/b.hip, line: 12, column: 3}\nb: [*0, &1 x, *1]\nc: {k: *0, l: *1}\n",
    "a: &x\n  b: &y\n  - 1\n  - &z 'q w'\nc: *x\nd: *y\ne:\n- *z\n- &w\n  k: v\n- *w\n",
    "a: &x\n- 1\nb: *x\n",
    "a: &x |-\n  two\n  lines\nb: *x\n",
    "a: &x-_9 1\nb: &x 2\nc: *x\nd: *x-_9\n",
    "a: *undefined\n",
    "a: &x [*x]\n",
    "a: &x\nb: *x\n",
    /* explicit keys, as libyaml writes a key of over 128 characters */
    "? complex\n: key\n",
    "a:\n  ? long\n  : calls:\n    - 1\n    - 2\n  b: 1\n",
    "? 'q k'\n: v\n? \"d\"\n:\n  x: 1\nz: 2\n",
    "a:\n- ? k\n  : v\n  b: 2\n",
    "? k\n: - 1\n  - 2\n? k2\n: &x v\nb: *x\n",
    "? k\n:\n- 1\n- 2\n",
    "? k\n: ? k2\n  : v\n",
    "? k\n: {a: 1}\nb: [1]\n",
};

/* Outside the subset: the fast reader must decline (libyaml reads them). */
static const char *const outside[] = {
    "a: 1 # comment\n",
    "# comment\na: 1\n",
    "a: &x &y 1\n",
    "&x a: 1\n",
    "a: 1\n*x : 2\n",
    "k:\n- &a b: 1\n",
    "a: &x!t 1\n",
    "a: *x, 1\n",
    "a: !tag 1\n",
    "a:\tb\n",
    "a: plain\n  continued\n",
    "a: \"two\n  lines\"\n",
    "a: >\n  folded\n",
    "a: |2\n  explicit\n",
    "- a\n- b\n",
    "---\na: 1\n",
    "a: 1\n---\nb: 2\n",
    "a: {b: row_shr:1}\n",
    "a: [x,\n  y]\n",
    "a:\n- - nested\n",
    "? k\nb: 1\n",   /* an explicit key without a value line: null */
    "?\n  k\n: v\n", /* the key below its \"?\" */
    "? a: b\n: c\n", /* a mapping as the key */
    "? k\n\n: v\n",  /* a blank line before the value */
    "? k\n : v\n",   /* the value line indented */
    "? &a k\n: v\n", /* an anchored key */
    "a: 1\r\nb: 2\r\n",
    "a: b: c\n",
    "a: [1, 2,]\n",
    "a: {b}\n",
    "scalar\n",
    "",
    "a: |\n\n  leading empty line\n",
    "a: \"\\\n  continued\"\n",
};

static void seed_add(char ***seeds, size_t *n, const char *text, size_t len) {
    *seeds = realloc(*seeds, (*n + 1) * sizeof(char *));
    char *copy = malloc(len + 1);
    memcpy(copy, text, len);
    copy[len] = '\0';
    (*seeds)[(*n)++] = copy;
}

static bool accept_only; /* --accept: only *.kwalk.yaml files */

/* Every file under dir (the fixture sidecars, good and bad). */
static void seeds_from_dir(char ***seeds, size_t *n, const char *dir) {
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
        struct stat st;
        if (stat(path, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            seeds_from_dir(seeds, n, path);
        } else if (!accept_only || strstr(de->d_name, ".kwalk.yaml")) {
            char *text;
            size_t len;
            kw_err err;
            if (kw_fs_read(path, &text, &len, &err) == KW_OK) {
                seed_add(seeds, n, text, len);
                free(text);
            }
        }
    }
    closedir(d);
}

/* ---- Mutations ------------------------------------------------------------------------------ */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint64_t rng(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* One random edit of text into out (allocated). */
static size_t mutate(const char *text, size_t len, char **out) {
    static const char alphabet[] = " :-#'\"\n{}[],|>&*!\\\t~0aZ?%@`+.\x7f\xc3";
    char *m = malloc(len + 64);
    size_t pos = len ? rng() % len : 0, n = len;
    memcpy(m, text, len);
    switch (rng() % 6) {
    case 0: /* delete a byte */
        if (n) {
            memmove(m + pos, m + pos + 1, n - pos - 1);
            n--;
        }
        break;
    case 1: /* insert a byte that means something to YAML */
        memmove(m + pos + 1, m + pos, n - pos);
        m[pos] = alphabet[rng() % (sizeof(alphabet) - 1)];
        n++;
        break;
    case 2: /* replace a byte */
        if (n)
            m[pos] = alphabet[rng() % (sizeof(alphabet) - 1)];
        break;
    case 3: /* indent the line at pos by one or two spaces */
    case 4: {
        while (pos > 0 && m[pos - 1] != '\n')
            pos--;
        size_t k = 1 + rng() % 2;
        memmove(m + pos + k, m + pos, n - pos);
        memset(m + pos, ' ', k);
        n += k;
        break;
    }
    default: /* dedent the line at pos by one space */
        while (pos > 0 && m[pos - 1] != '\n')
            pos--;
        if (pos < n && m[pos] == ' ') {
            memmove(m + pos, m + pos + 1, n - pos - 1);
            n--;
        }
        break;
    }
    *out = m;
    return n;
}

/* `test_yaml_fast --accept DIR...`: every *.kwalk.yaml under the DIRs (the
 * plugin's own sidecars) is read by the fast reader, to the same events as
 * libyaml's. */
static int accept_dirs(int argc, char **argv) {
    char **seeds = NULL;
    size_t n = 0;
    accept_only = true;
    for (int i = 2; i < argc; i++)
        seeds_from_dir(&seeds, &n, argv[i]);
    CHECK(n > 0);
    for (size_t i = 0; i < n; i++) {
        CHECK(check_text("sidecar", seeds[i], strlen(seeds[i])));
        free(seeds[i]);
    }
    free(seeds);
    printf("fast reader: %d sidecars read, equal to libyaml's events\n", compared);
    return kw_test_result("test_yaml_fast --accept");
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "--accept"))
        return accept_dirs(argc, argv);
    /* hand-written cases */
    for (size_t i = 0; i < sizeof(in_subset) / sizeof(in_subset[0]); i++) {
        bool ok = check_text(in_subset[i], in_subset[i], strlen(in_subset[i]));
        CHECK(ok);
        if (!ok)
            fprintf(stderr, "  declined: %s", in_subset[i]);
    }
    for (size_t i = 0; i < sizeof(outside) / sizeof(outside[0]); i++) {
        bool ok = check_text(outside[i], outside[i], strlen(outside[i]));
        CHECK(!ok);
        if (ok)
            fprintf(stderr, "  accepted: %s", outside[i]);
    }

    /* kwalk's own writer: a full sidecar round trip is within the subset */
    char **seeds = NULL;
    size_t nseeds = 0;
    kw_sidecar sc;
    kw_sidecar_init(&sc);
    kw_tc_full_sidecar(&sc);
    kw_buf out;
    kw_buf_init(&out);
    kw_err err;
    CHECK(kw_sidecar_emit(&sc, &out, &err) == KW_OK);
    check_text("emitted edge cases", out.ptr, out.len); /* some are left to libyaml */
    seed_add(&seeds, &nseeds, out.ptr, out.len);
    kw_buf_free(&out);
    kw_sidecar_free(&sc);
    static const char *const realistic[] = {"/good/a/rmsnorm.kwalk.yaml",
                                            "/good/b/rope.kwalk.yaml"};
    for (size_t i = 0; i < 2; i++) {
        char path[4096];
        snprintf(path, sizeof(path), "%s%s", KW_FIXTURES, realistic[i]);
        CHECK(kw_sidecar_read_file(&sc, path, &err) == KW_OK);
        kw_buf_init(&out);
        CHECK(kw_sidecar_emit(&sc, &out, &err) == KW_OK);
        CHECK(check_text(path, out.ptr, out.len)); /* written by kwalk: must be accepted */
        seed_add(&seeds, &nseeds, out.ptr, out.len);
        kw_buf_free(&out);
        kw_sidecar_free(&sc);
    }

    /* a key over libyaml's 128-character limit for a simple key (a long
     * mangled name of device_calls), as kwalk's writer writes it: explicit,
     * "? key" then ": value"; the fast reader must take it (else such a
     * sidecar is read by libyaml, several times slower) */
    char longkey[201];
    memset(longkey, 'K', 200);
    longkey[200] = '\0';
    for (int shape = 0; shape < 3; shape++) {
        kw_yaml_emitter e;
        kw_buf_init(&out);
        CHECK(kw_yaml_emit_begin(&e, &out, &err) == KW_OK);
        kw_yaml_emit_str(&e, "device_calls");
        kw_yaml_emit_map_start(&e, false);
        kw_yaml_emit_str(&e, "short");
        kw_yaml_emit_str(&e, "v");
        kw_yaml_emit_str(&e, longkey);
        if (shape == 0) { /* a mapping holding a sequence */
            kw_yaml_emit_map_start(&e, false);
            kw_yaml_emit_str(&e, "calls");
            kw_yaml_emit_seq_start(&e, false);
            kw_yaml_emit_str(&e, "a");
            kw_yaml_emit_str(&e, "b");
            kw_yaml_emit_seq_end(&e);
            kw_yaml_emit_map_end(&e);
        } else if (shape == 1) { /* a sequence */
            kw_yaml_emit_seq_start(&e, false);
            kw_yaml_emit_str(&e, "a");
            kw_yaml_emit_seq_end(&e);
        } else { /* a scalar */
            kw_yaml_emit_str(&e, "v");
        }
        kw_yaml_emit_str(&e, "after");
        kw_yaml_emit_str(&e, "v");
        kw_yaml_emit_map_end(&e);
        CHECK(kw_yaml_emit_end(&e) == KW_OK);
        kw_yaml_emit_free(&e);
        CHECK(out.ptr && strstr(out.ptr, "? KKK") != NULL); /* written explicitly */
        CHECK(check_text("a long key", out.ptr, out.len));
        seed_add(&seeds, &nseeds, out.ptr, out.len);
        kw_buf_free(&out);
    }

    /* the golden sidecar (the writer's edge cases) and the hand-written
     * fixtures (with comments, which are left to libyaml) serve as seeds */
    size_t before = nseeds;
    seeds_from_dir(&seeds, &nseeds, KW_FIXTURES "/golden");
    CHECK(nseeds == before + 1);
    for (size_t i = before; i < nseeds; i++)
        check_text("golden sidecar", seeds[i], strlen(seeds[i])); /* edge cases: either way */
    seeds_from_dir(&seeds, &nseeds, KW_FIXTURES "/good");
    seeds_from_dir(&seeds, &nseeds, KW_FIXTURES "/bad");
    /* the same fixtures without their comment lines, as a writer would have them */
    for (size_t i = before + 1, n = nseeds; i < n; i++) {
        kw_buf b;
        kw_buf_init(&b);
        for (const char *l = seeds[i]; *l;) {
            const char *e = strchr(l, '\n');
            size_t len = e ? (size_t)(e - l) + 1 : strlen(l);
            if (l[0] != '#')
                kw_buf_append(&b, l, len);
            l += len;
        }
        seed_add(&seeds, &nseeds, kw_buf_str(&b), b.len);
        kw_buf_free(&b);
    }
    for (size_t i = 0; i < sizeof(in_subset) / sizeof(in_subset[0]); i++)
        seed_add(&seeds, &nseeds, in_subset[i], strlen(in_subset[i]));

    /* mutations: whatever the fast reader accepts, libyaml reads the same way */
    const char *env = getenv("KW_YAML_FAST_MUTATIONS");
    long per_seed = env ? atol(env) : 1500;
    const char *seed_env = getenv("KW_YAML_FAST_SEED"); /* other runs than CI's */
    if (seed_env && strtoull(seed_env, NULL, 10))
        rng_state = strtoull(seed_env, NULL, 10);
    for (size_t s = 0; s < nseeds; s++) {
        char *cur = strdup(seeds[s]);
        size_t curlen = strlen(cur);
        for (long i = 0; i < per_seed; i++) {
            char *m;
            size_t n = mutate(cur, curlen, &m);
            check_text("mutation", m, n);
            if (rng() % 4 == 0) { /* walk on from the mutation now and then */
                free(cur);
                cur = m;
                curlen = n;
            } else {
                free(m);
            }
            if (i % 64 == 63) { /* and back to the seed */
                free(cur);
                cur = strdup(seeds[s]);
                curlen = strlen(cur);
            }
        }
        free(cur);
    }
    printf("fast reader: %d texts accepted and equal to libyaml's events, %d declined\n", compared,
           declined);
    CHECK(accepted > 1000 && declined > 1000); /* the mutations exercise both sides */
    for (size_t i = 0; i < nseeds; i++)
        free(seeds[i]);
    free(seeds);
    return kw_test_result("test_yaml_fast");
}
