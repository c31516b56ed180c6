/* kw_sidecar_parse.c: the YAML reader. Pulls libyaml parser events one at a
 * time and fills the structs of kw_sidecar.h directly from the schema tables
 * of kw_sidecar.c (no intermediate node tree: an index of 10,000 kernels is
 * read in one pass).
 *
 * Rules: unknown keys are skipped whole (forward compatibility within a
 * schema version); a plain null ("~", "null" or nothing) means "absent" for
 * any key; integers and booleans must be plain scalars; a key may appear once
 * per mapping; an alias reads as its anchored node (kw_sidecar_parse_alias:
 * an undefined or recursive alias is an error, and the events aliases may
 * replay are capped). Every error is one line:
 * "<file>: line N: <path>: <problem>", e.g.
 * "a.kwalk.yaml: line 12: kernels[0].location.line: expected an integer, got \"x\"". */
#define _POSIX_C_SOURCE 200809L
#include "sidecar/kw_schema.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/kw_fs.h"
#include "sidecar/kw_call_graph.h"
#include "sidecar/kw_sidecar_zstd.h"

/* ---- Events --------------------------------------------------------------------------------- */

static size_t kw_sidecar_parse_line_of(const kw_sidecar_parser *p, size_t offset) {
    size_t line = 1;
    for (size_t i = 0; i < offset && i < p->len; i++)
        line += p->text[i] == '\n';
    return line;
}

static kw_status kw_sidecar_parse_syntax(kw_sidecar_parser *p) {
    const yaml_parser_t *y = &p->parser;
    if (y->error == YAML_MEMORY_ERROR || !y->problem)
        return kw_fail(p->err, "%s: out of memory", p->name);
    if (y->error == YAML_READER_ERROR) {
        if (y->problem_value >= 0)
            return kw_fail(p->err, "%s: line %zu: %s (byte 0x%02X)", p->name,
                           kw_sidecar_parse_line_of(p, y->problem_offset), y->problem,
                           y->problem_value);
        return kw_fail(p->err, "%s: line %zu: %s", p->name,
                       kw_sidecar_parse_line_of(p, y->problem_offset), y->problem);
    }
    if (y->context)
        return kw_fail(p->err, "%s: line %zu: %s (%s at line %zu)", p->name,
                       y->problem_mark.line + 1, y->problem, y->context, y->context_mark.line + 1);
    return kw_fail(p->err, "%s: line %zu: %s", p->name, y->problem_mark.line + 1, y->problem);
}

/* An error is one line: a value quoted in msg (a scalar that held a line
 * break or another control character) has those written as blanks. */
static void kw_sidecar_parse_one_line(char *msg) {
    for (char *c = msg; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = ' ';
}

static kw_status kw_sidecar_parse_failv(kw_sidecar_parser *p, size_t line, const char *fmt,
                                        va_list ap) {
    char path[256] = "", msg[300];
    size_t used = 0;
    for (int i = 0; i < p->depth && i < KW_SIDECAR_PARSE_MAXDEPTH && used < sizeof(path); i++) {
        int n =
            p->path[i].key
                ? snprintf(path + used, sizeof(path) - used, "%s%s", i ? "." : "", p->path[i].key)
                : snprintf(path + used, sizeof(path) - used, "[%zu]", p->path[i].idx);
        if (n < 0)
            break;
        used += (size_t)n;
    }
    vsnprintf(msg, sizeof(msg), fmt, ap);
    kw_sidecar_parse_one_line(msg);
    if (path[0])
        return kw_fail(p->err, "%s: line %zu: %s: %s", p->name, line, path, msg);
    return kw_fail(p->err, "%s: line %zu: %s", p->name, line, msg);
}

/* Fail at a given (1-based) line. */
static kw_status kw_sidecar_parse_fail_at(kw_sidecar_parser *p, size_t line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static kw_status kw_sidecar_parse_fail_at(kw_sidecar_parser *p, size_t line, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    kw_status st = kw_sidecar_parse_failv(p, line, fmt, ap);
    va_end(ap);
    return st;
}

/* Fail at the current event. */
kw_status kw_sidecar_parse_fail(kw_sidecar_parser *p, const char *fmt, ...) {
    size_t line = p->have ? p->ev.start_mark.line + 1 : p->parser.mark.line + 1;
    va_list ap;
    va_start(ap, fmt);
    kw_status st = kw_sidecar_parse_failv(p, line, fmt, ap);
    va_end(ap);
    return st;
}

/* Event i of p->fy as a libyaml event whose value points into p->fy
 * (nothing to free; valid until the next event is read from libyaml). Every
 * field of the event's kind is set, not the whole event cleared first (a
 * `rep stos` per event in `kwalk index`'s profile): the marks' other fields
 * stay 0 from kw_sidecar_parse_begin_mode. */
static void kw_sidecar_parse_fill(kw_sidecar_parser *p, size_t i) {
    const kw_yaml_fast_event *e = &p->fy.ev[i];
    p->ev.type = (yaml_event_type_t)e->type;
    p->items = p->ev.type == YAML_SEQUENCE_START_EVENT ? e->len : 0;
    p->ev.start_mark.line = p->ev.end_mark.line = e->line;
    switch (p->ev.type) {
    case YAML_SCALAR_EVENT:
        p->ev.data.scalar.anchor = p->ev.data.scalar.tag = NULL;
        p->ev.data.scalar.value = (yaml_char_t *)p->fy.vals + e->off;
        p->ev.data.scalar.length = e->len;
        p->ev.data.scalar.style = (yaml_scalar_style_t)e->style;
        p->ev.data.scalar.plain_implicit = e->style == YAML_PLAIN_SCALAR_STYLE;
        p->ev.data.scalar.quoted_implicit = e->style != YAML_PLAIN_SCALAR_STYLE;
        break;
    case YAML_MAPPING_START_EVENT:
        p->ev.data.mapping_start.anchor = p->ev.data.mapping_start.tag = NULL;
        p->ev.data.mapping_start.implicit = 1;
        p->ev.data.mapping_start.style = (yaml_mapping_style_t)e->style;
        break;
    case YAML_SEQUENCE_START_EVENT:
        p->ev.data.sequence_start.anchor = p->ev.data.sequence_start.tag = NULL;
        p->ev.data.sequence_start.implicit = 1;
        p->ev.data.sequence_start.style = (yaml_sequence_style_t)e->style;
        break;
    case YAML_DOCUMENT_START_EVENT:
        memset(&p->ev.data, 0, sizeof(p->ev.data));
        p->ev.data.document_start.implicit = 1;
        break;
    case YAML_DOCUMENT_END_EVENT:
        memset(&p->ev.data, 0, sizeof(p->ev.data));
        p->ev.data.document_end.implicit = e->style;
        break;
    default: /* an end, the stream's start or end: nothing in data */
        break;
    }
}

/* Room for need elements of el bytes in *v (capacity *cap). */
static bool kw_sidecar_parse_grow(void **v, size_t *cap, size_t need, size_t el) {
    if (need <= *cap)
        return true;
    size_t n = *cap ? *cap * 2 : 16;
    while (n < need)
        n *= 2;
    void *q = realloc(*v, n * el);
    if (!q)
        return false;
    *v = q;
    *cap = n;
    return true;
}
#define KW_GROW(arr, need, cap) kw_sidecar_parse_grow((void **)&(arr), cap, need, sizeof(*(arr)))

static kw_status kw_sidecar_parse_oom_at(kw_sidecar_parser *p) {
    return kw_fail(p->err, "%s: out of memory", p->name);
}

/* libyaml's next event, recorded in p->fy (with its anchor, or an alias's
 * target) so that an alias can replay it; *i gets its index. */
static kw_status kw_sidecar_parse_record_next(kw_sidecar_parser *p, size_t *i) {
    yaml_event_t ev;
    if (!yaml_parser_parse(&p->parser, &ev))
        return kw_sidecar_parse_syntax(p);
    kw_yaml_fast_doc *d = &p->fy;
    const yaml_char_t *anchor = NULL, *value = NULL;
    size_t n = 0;
    int style = 0;
    switch (ev.type) {
    case YAML_SCALAR_EVENT:
        anchor = ev.data.scalar.anchor;
        value = ev.data.scalar.value;
        n = ev.data.scalar.length;
        style = ev.data.scalar.style;
        break;
    case YAML_ALIAS_EVENT:
        value = ev.data.alias.anchor;
        n = strlen((const char *)value);
        break;
    case YAML_MAPPING_START_EVENT:
        anchor = ev.data.mapping_start.anchor;
        style = ev.data.mapping_start.style;
        break;
    case YAML_SEQUENCE_START_EVENT:
        anchor = ev.data.sequence_start.anchor;
        style = ev.data.sequence_start.style;
        break;
    case YAML_DOCUMENT_END_EVENT:
        style = ev.data.document_end.implicit;
        break;
    default:
        break;
    }
    bool ok = kw_yaml_fast_doc_add(d, ev.type, style, (unsigned)ev.start_mark.line,
                                   (const char *)value, n);
    *i = d->n - 1;
    if (ok && anchor) {
        ok = kw_yaml_fast_anchor_define(d, (const char *)anchor, strlen((const char *)anchor), *i);
        if (ok) {
            unsigned a = (unsigned)d->nanchors;
            d->ev[*i].anchor = a;
            if (ev.type == YAML_SCALAR_EVENT) {
                kw_yaml_fast_anchor_close(d, a, *i + 1);
            } else if (KW_GROW(p->open, p->nopen + 1, &p->copen)) {
                p->open[p->nopen].anchor = a;
                p->open[p->nopen++].depth = p->cdepth;
            } else {
                ok = false;
            }
        }
    } else if (ok && ev.type == YAML_ALIAS_EVENT) {
        d->ev[*i].anchor = kw_yaml_fast_anchor_find(d, (const char *)value, n);
    }
    if (ev.type == YAML_MAPPING_START_EVENT || ev.type == YAML_SEQUENCE_START_EVENT) {
        p->cdepth++;
    } else if ((ev.type == YAML_MAPPING_END_EVENT || ev.type == YAML_SEQUENCE_END_EVENT) &&
               p->cdepth) {
        p->cdepth--;
        while (p->nopen && p->open[p->nopen - 1].depth == p->cdepth)
            kw_yaml_fast_anchor_close(d, p->open[--p->nopen].anchor, *i + 1);
    }
    yaml_event_delete(&ev);
    return ok ? KW_OK : kw_sidecar_parse_oom_at(p);
}

/* How many events aliases may replay: KW_SIDECAR_REPLAY_FACTOR times the
 * document's own events (read so far) plus KW_SIDECAR_REPLAY_EXTRA. kwalk's
 * writer shares far less than that; a document built to expand
 * exponentially ("billion laughs") is refused. */
enum { KW_SIDECAR_REPLAY_FACTOR = 64, KW_SIDECAR_REPLAY_EXTRA = 1 << 20 };

/* An alias, event i: read its anchored node's events next. */
static kw_status kw_sidecar_parse_alias(kw_sidecar_parser *p, size_t i) {
    const kw_yaml_fast_event *e = &p->fy.ev[i];
    const char *name = p->fy.vals + e->off;
    if (!e->anchor)
        return kw_sidecar_parse_fail_at(p, e->line + 1, "alias *%s: no anchor &%s before it", name,
                                        name);
    const kw_yaml_fast_anchor *a = &p->fy.anchors[e->anchor - 1];
    if (!a->end || (i >= a->ev && i < a->end))
        return kw_sidecar_parse_fail_at(p, e->line + 1, "alias *%s inside its own anchored node",
                                        name);
    p->replayed += a->end - a->ev;
    /* the document's events read so far: the same count on both paths */
    size_t own = p->fast ? p->fy_next : p->fy.n;
    size_t cap = (size_t)KW_SIDECAR_REPLAY_FACTOR * own + KW_SIDECAR_REPLAY_EXTRA;
    if (p->replayed > cap)
        return kw_sidecar_parse_fail_at(
            p, e->line + 1, "aliases expand to more than %zu events (%d times the document's own)",
            cap, KW_SIDECAR_REPLAY_FACTOR);
    if (!KW_GROW(p->replay, p->nreplay + 1, &p->creplay))
        return kw_sidecar_parse_oom_at(p);
    p->replay[p->nreplay].pos = a->ev;
    p->replay[p->nreplay++].end = a->end;
    return KW_OK;
}

/* Make p->ev the next event (if it is not already): the next of an alias
 * being replayed, else the document's next. */
static kw_status kw_sidecar_parse_peek(kw_sidecar_parser *p) {
    if (p->have)
        return KW_OK;
    for (;;) {
        size_t i = 0;
        if (p->nreplay) {
            kw_sidecar_replay *r = &p->replay[p->nreplay - 1];
            if (r->pos == r->end) {
                p->nreplay--;
                continue;
            }
            i = r->pos++;
        } else if (p->fast) {
            if (p->fy_next >= p->fy.n)
                return kw_fail(p->err, "%s: unexpected end of the event stream", p->name);
            i = p->fy_next++;
        } else if (kw_sidecar_parse_record_next(p, &i) != KW_OK) {
            return KW_ERR;
        }
        if (p->fy.ev[i].type == YAML_ALIAS_EVENT) {
            if (kw_sidecar_parse_alias(p, i) != KW_OK)
                return KW_ERR;
            continue;
        }
        kw_sidecar_parse_fill(p, i);
        p->have = true;
        return KW_OK;
    }
}

static void kw_sidecar_parse_consume(kw_sidecar_parser *p) {
    p->have = false;
}

static void kw_sidecar_parse_push(kw_sidecar_parser *p, const char *key, size_t idx) {
    if (p->depth < KW_SIDECAR_PARSE_MAXDEPTH) {
        p->path[p->depth].key = key;
        p->path[p->depth].idx = idx;
    }
    p->depth++;
}

static void kw_sidecar_parse_pop(kw_sidecar_parser *p) {
    p->depth--;
}

static const char *kw_sidecar_parse_what(const yaml_event_t *ev) {
    switch (ev->type) {
    case YAML_MAPPING_START_EVENT:
        return "a mapping";
    case YAML_SEQUENCE_START_EVENT:
        return "a sequence";
    case YAML_SCALAR_EVENT:
        return ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE ? "a scalar" : "a quoted string";
    default:
        return "the end of a collection";
    }
}

static bool kw_sidecar_parse_is_null(const yaml_event_t *ev) {
    if (ev->type != YAML_SCALAR_EVENT || ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return false;
    const char *v = (const char *)ev->data.scalar.value;
    if (v[0] != '~' && v[0] != 'n' && v[0] != 'N' && v[0]) /* most values: no comparison */
        return false;
    return !v[0] || !strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") ||
           !strcmp(v, "NULL");
}

/* Consume the current node whatever it is (an unknown key's value). */
static kw_status kw_sidecar_parse_skip(kw_sidecar_parser *p) {
    size_t depth = 0;
    do {
        if (kw_sidecar_parse_peek(p) != KW_OK)
            return KW_ERR;
        switch (p->ev.type) {
        case YAML_MAPPING_START_EVENT:
        case YAML_SEQUENCE_START_EVENT:
            depth++;
            break;
        case YAML_MAPPING_END_EVENT:
        case YAML_SEQUENCE_END_EVENT:
            depth--;
            break;
        default:
            break;
        }
        kw_sidecar_parse_consume(p);
    } while (depth > 0);
    return KW_OK;
}

/* Expect the start of a collection of the given type; consumes it. *line (if
 * not NULL) gets its 1-based line. */
static kw_status kw_sidecar_parse_expect(kw_sidecar_parser *p, yaml_event_type_t type,
                                         size_t *line) {
    if (kw_sidecar_parse_peek(p) != KW_OK)
        return KW_ERR;
    if (p->ev.type != type)
        return kw_sidecar_parse_fail(p, "expected %s, got %s",
                                     type == YAML_MAPPING_START_EVENT ? "a mapping" : "a sequence",
                                     kw_sidecar_parse_what(&p->ev));
    if (line)
        *line = p->ev.start_mark.line + 1;
    kw_sidecar_parse_consume(p);
    return KW_OK;
}

kw_status kw_sidecar_parse_next_key(kw_sidecar_parser *p, const char **key) {
    *key = NULL;
    if (kw_sidecar_parse_peek(p) != KW_OK)
        return KW_ERR;
    if (p->ev.type == YAML_MAPPING_END_EVENT) {
        kw_sidecar_parse_consume(p);
        return KW_OK;
    }
    if (p->ev.type != YAML_SCALAR_EVENT)
        return kw_sidecar_parse_fail(p, "expected a key, got %s", kw_sidecar_parse_what(&p->ev));
    *key = (const char *)p->ev.data.scalar.value;
    return KW_OK;
}

/* Is there a next element in the current sequence? Consumes its end. */
static kw_status kw_sidecar_parse_next_item(kw_sidecar_parser *p, bool *more) {
    if (kw_sidecar_parse_peek(p) != KW_OK)
        return KW_ERR;
    *more = p->ev.type != YAML_SEQUENCE_END_EVENT;
    if (!*more)
        kw_sidecar_parse_consume(p);
    return KW_OK;
}

/* ---- Scalars -------------------------------------------------------------------------------- */

static kw_status kw_sidecar_parse_scalar(kw_sidecar_parser *p, const char *want) {
    if (kw_sidecar_parse_peek(p) != KW_OK)
        return KW_ERR;
    if (p->ev.type != YAML_SCALAR_EVENT)
        return kw_sidecar_parse_fail(p, "expected %s, got %s", want, kw_sidecar_parse_what(&p->ev));
    return KW_OK;
}

static kw_status kw_sidecar_parse_str(kw_sidecar_parser *p, const char **out) {
    if (kw_sidecar_parse_scalar(p, "a string") != KW_OK)
        return KW_ERR;
    const char *v = (const char *)p->ev.data.scalar.value;
    size_t n = p->ev.data.scalar.length;
    if (memchr(v, '\0', n))
        return kw_sidecar_parse_fail(p, "strings must not contain NUL characters");
    /* the fast reader's values live in the arena already (kw_yaml_fast_doc.arena) */
    *out = p->fast ? v : kw_arena_strndup(p->arena, v, n);
    if (!*out)
        return kw_fail(p->err, "%s: out of memory", p->name);
    kw_sidecar_parse_consume(p);
    return KW_OK;
}

static kw_status kw_sidecar_parse_ll(kw_sidecar_parser *p, long long lo, long long hi,
                                     long long *out) {
    if (kw_sidecar_parse_scalar(p, "an integer") != KW_OK)
        return KW_ERR;
    const char *v = (const char *)p->ev.data.scalar.value;
    if (p->ev.data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return kw_sidecar_parse_fail(p, "expected an integer, got a quoted string \"%.40s\"", v);
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (!v[0] || *end || errno == ERANGE || (v[0] == ' ') || x < lo || x > hi)
        return kw_sidecar_parse_fail(p, "expected an integer, got \"%.40s\"", v);
    *out = x;
    kw_sidecar_parse_consume(p);
    return KW_OK;
}

kw_status kw_sidecar_parse_int(kw_sidecar_parser *p, const char *key, long long *v) {
    kw_sidecar_parse_consume(p); /* the key */
    kw_sidecar_parse_push(p, key, 0);
    kw_status st = kw_sidecar_parse_ll(p, -0x7FFFFFFFLL - 1, 0x7FFFFFFFLL, v);
    kw_sidecar_parse_pop(p);
    return st;
}

static kw_status kw_sidecar_parse_bool(kw_sidecar_parser *p, bool *out) {
    if (kw_sidecar_parse_scalar(p, "true or false") != KW_OK)
        return KW_ERR;
    const char *v = (const char *)p->ev.data.scalar.value;
    bool plain = p->ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
    if (plain && (!strcmp(v, "true") || !strcmp(v, "True") || !strcmp(v, "TRUE")))
        *out = true;
    else if (plain && (!strcmp(v, "false") || !strcmp(v, "False") || !strcmp(v, "FALSE")))
        *out = false;
    else
        return kw_sidecar_parse_fail(p, "expected true or false, got \"%.40s\"", v);
    kw_sidecar_parse_consume(p);
    return KW_OK;
}

/* ---- Records -------------------------------------------------------------------------------- */

static kw_status kw_sidecar_parse_value(kw_sidecar_parser *p, const kw_field *f,
                                        unsigned char *base);

/* The field named key, its index in *i. Writers put the keys in the
 * schema's order, so the search begins after the last field of seen (the
 * fields read so far) and wraps round: one comparison for most keys
 * instead of half the fields' (a few percent of `kwalk index`). */
static const kw_field *kw_sidecar_parse_lookup(const kw_type *t, const char *key, uint64_t seen,
                                               size_t *i) {
    size_t start = seen ? (size_t)(64 - __builtin_clzll(seen)) : 0;
    if (start >= t->nfields)
        start = 0;
    for (size_t k = 0; k < t->nfields; k++) {
        *i = start + k < t->nfields ? start + k : start + k - t->nfields;
        const char *fk = t->fields[*i].key;
        if (fk[0] == key[0] && !strcmp(fk, key))
            return &t->fields[*i];
    }
    return NULL;
}

kw_status kw_sidecar_parse_field(kw_sidecar_parser *p, const kw_type *t, void *obj, const char *key,
                                 uint64_t *seen) {
    size_t i;
    const kw_field *f = t ? kw_sidecar_parse_lookup(t, key, *seen, &i) : NULL;
    size_t klen = !f && t ? strlen(key) : 0; /* a key found needs no length */
    if (!f && t && klen > 4 && klen < 128 && !strcmp(key + klen - 4, "_why")) {
        /* the reason of a kw_val that is unknown: "<key>_why" */
        char stem[128];
        memcpy(stem, key, klen - 4);
        stem[klen - 4] = '\0';
        const kw_field *vf = kw_sidecar_parse_lookup(t, stem, 0, &i);
        if (vf && vf->kind == KW_F_VAL) {
            kw_sidecar_parse_consume(p);
            kw_sidecar_parse_push(p, vf->key, 0);
            kw_val *v = (kw_val *)((unsigned char *)obj + vf->off);
            kw_status st = kw_sidecar_parse_peek(p);
            if (st == KW_OK && kw_sidecar_parse_is_null(&p->ev))
                kw_sidecar_parse_consume(p);
            else if (st == KW_OK)
                st = kw_sidecar_parse_str(p, &v->why);
            kw_sidecar_parse_pop(p);
            return st;
        }
    }
    if (!f) {
        kw_sidecar_parse_consume(p); /* an unknown key: skip its value */
        return kw_sidecar_parse_skip(p);
    }
    if (*seen & (1ull << i))
        return kw_sidecar_parse_fail(p, "duplicate key '%s'", f->key);
    *seen |= 1ull << i;
    kw_sidecar_parse_consume(p);
    kw_sidecar_parse_push(p, f->key, 0);
    kw_status st = kw_sidecar_parse_value(p, f, obj);
    kw_sidecar_parse_pop(p);
    return st;
}

/* The fields of t from the mapping that starts at the current event. */
static kw_status kw_sidecar_parse_record(kw_sidecar_parser *p, const kw_type *t, void *obj) {
    size_t line = 0;
    if (kw_sidecar_parse_expect(p, YAML_MAPPING_START_EVENT, &line) != KW_OK)
        return KW_ERR;
    uint64_t seen = 0;
    for (;;) {
        const char *key;
        if (kw_sidecar_parse_next_key(p, &key) != KW_OK)
            return KW_ERR;
        if (!key)
            break;
        if (kw_sidecar_parse_field(p, t, obj, key, &seen) != KW_OK)
            return KW_ERR;
    }
    for (size_t i = 0; i < t->nfields; i++) {
        const kw_field *f = &t->fields[i];
        if ((f->flags & KW_F_REQUIRED) && f->kind == KW_F_STR &&
            !*(const char **)((unsigned char *)obj + f->off))
            return kw_sidecar_parse_fail_at(p, line, "this %s has no '%s'", t->what, f->key);
    }
    kw_schema_normalize(t, obj); /* keep only what the writer would write */
    return KW_OK;
}

static kw_status kw_sidecar_parse_loc(kw_sidecar_parser *p, kw_loc *l) {
    static const kw_field rows[] = {
        {"file", KW_F_STR, offsetof(kw_loc, file), NULL, 0, NULL},
        {"line", KW_F_INT, offsetof(kw_loc, line), NULL, 0, NULL},
        {"column", KW_F_INT, offsetof(kw_loc, column), NULL, 0, NULL},
    };
    static KW_TYPE(loc_type, "location", kw_loc, true, rows);
    if (kw_sidecar_parse_record(p, &loc_type, l) != KW_OK)
        return KW_ERR;
    /* No file is no location (kw_sidecar.h): a line or column alone is not
     * kept (the YAML writer would drop it, the packed index keep it). */
    if (!l->file)
        l->line = l->column = 0;
    return KW_OK;
}

static kw_status kw_sidecar_parse_config(kw_sidecar_parser *p, kw_config_item *c, int dims) {
    if (kw_sidecar_parse_expect(p, YAML_MAPPING_START_EVENT, NULL) != KW_OK)
        return KW_ERR;
    c->dims = dims;
    uint64_t seen = 0;
    for (;;) {
        const char *key;
        if (kw_sidecar_parse_next_key(p, &key) != KW_OK)
            return KW_ERR;
        if (!key)
            return KW_OK;
        int which = !strcmp(key, "expr") ? 1 : !strcmp(key, "value") ? 2 : 0;
        if (!which) {
            kw_sidecar_parse_consume(p);
            if (kw_sidecar_parse_skip(p) != KW_OK)
                return KW_ERR;
            continue;
        }
        if (seen & (1u << which))
            return kw_sidecar_parse_fail(p, "duplicate key '%s'", key);
        seen |= 1u << which;
        kw_sidecar_parse_consume(p);
        kw_sidecar_parse_push(p, which == 1 ? "expr" : "value", 0);
        kw_status st = KW_OK;
        if (kw_sidecar_parse_peek(p) != KW_OK) {
            st = KW_ERR;
        } else if (kw_sidecar_parse_is_null(&p->ev)) {
            kw_sidecar_parse_consume(p);
        } else if (which == 1) {
            st = kw_sidecar_parse_str(p, &c->expr);
        } else if (dims == 1) {
            st = kw_sidecar_parse_ll(p, LLONG_MIN, LLONG_MAX, &c->value[0]);
            c->has_value = st == KW_OK;
        } else if ((st = kw_sidecar_parse_expect(p, YAML_SEQUENCE_START_EVENT, NULL)) == KW_OK) {
            int i = 0;
            for (;; i++) {
                bool more;
                if ((st = kw_sidecar_parse_next_item(p, &more)) != KW_OK || !more)
                    break;
                if (i == 3) {
                    st = kw_sidecar_parse_fail(p, "expected 3 integers [x, y, z], got more");
                    break;
                }
                kw_sidecar_parse_push(p, NULL, (size_t)i);
                st = kw_sidecar_parse_ll(p, LLONG_MIN, LLONG_MAX, &c->value[i]);
                kw_sidecar_parse_pop(p);
                if (st != KW_OK)
                    break;
            }
            if (st == KW_OK && i != 3)
                st = kw_sidecar_parse_fail(p, "expected 3 integers [x, y, z], got %d", i);
            c->has_value = st == KW_OK;
        }
        kw_sidecar_parse_pop(p);
        if (st != KW_OK)
            return KW_ERR;
    }
}

static kw_status kw_sidecar_parse_oom(kw_sidecar_parser *p) {
    return kw_fail(p->err, "%s: out of memory", p->name);
}

static kw_status kw_sidecar_parse_keyed(kw_sidecar_parser *p, const kw_field *f, kw_anyarr *arr) {
    const kw_type *t = f->sub;
    const kw_field *kf = &t->fields[0];
    kw_type body = *t;
    body.fields++;
    body.nfields--;
    if (kw_sidecar_parse_expect(p, YAML_MAPPING_START_EVENT, NULL) != KW_OK)
        return KW_ERR;
    for (;;) {
        const char *key;
        if (kw_sidecar_parse_next_key(p, &key) != KW_OK)
            return KW_ERR;
        if (!key)
            return KW_OK;
        for (size_t j = 0; j < arr->n; j++) {
            const char *o = *(const char **)((unsigned char *)arr->v + j * t->size + kf->off);
            if (!strcmp(o, key))
                return kw_sidecar_parse_fail(p, "duplicate %s '%s'", t->what, key);
        }
        unsigned char *el = kw_arena_grow(p->arena, &arr->v, &arr->n, &arr->cap, t->size);
        if (!el)
            return kw_sidecar_parse_oom(p);
        kw_schema_defaults(t, el);
        if (kw_sidecar_parse_str(p, (const char **)(el + kf->off)) != KW_OK)
            return KW_ERR;
        kw_status st = KW_OK;
        kw_sidecar_parse_push(p, *(const char **)(el + kf->off), 0);
        if (kw_sidecar_parse_peek(p) != KW_OK)
            st = KW_ERR;
        else if (kw_sidecar_parse_is_null(&p->ev))
            kw_sidecar_parse_consume(p);
        else
            st = kw_sidecar_parse_record(p, &body, el);
        kw_sidecar_parse_pop(p);
        if (st != KW_OK)
            return KW_ERR;
    }
}

/* A map of counts: {key: int, ...}, keys unique. */
static kw_status kw_sidecar_parse_counts(kw_sidecar_parser *p, kw_anyarr *arr) {
    if (kw_sidecar_parse_expect(p, YAML_MAPPING_START_EVENT, NULL) != KW_OK)
        return KW_ERR;
    for (;;) {
        const char *key;
        if (kw_sidecar_parse_next_key(p, &key) != KW_OK)
            return KW_ERR;
        if (!key)
            return KW_OK;
        for (size_t j = 0; j < arr->n; j++)
            if (!strcmp(((const kw_count *)arr->v)[j].key, key))
                return kw_sidecar_parse_fail(p, "duplicate key '%s'", key);
        kw_count *c = kw_arena_grow(p->arena, &arr->v, &arr->n, &arr->cap, sizeof(kw_count));
        if (!c)
            return kw_sidecar_parse_oom(p);
        if (kw_sidecar_parse_str(p, &c->key) != KW_OK)
            return KW_ERR;
        kw_sidecar_parse_push(p, c->key, 0);
        kw_status st = kw_sidecar_parse_ll(p, LLONG_MIN, LLONG_MAX, &c->n);
        kw_sidecar_parse_pop(p);
        if (st != KW_OK)
            return KW_ERR;
    }
}

/* An empty array about to get the items of the sequence just started: room
 * for all of them at once when the fast reader counted them (p->items), so
 * that the array is not copied as it grows. */
static kw_status kw_sidecar_parse_presize(kw_sidecar_parser *p, kw_anyarr *arr, size_t esize) {
    size_t n = p->items;
    if (!n || arr->cap || n > SIZE_MAX / esize)
        return KW_OK;
    void *v = kw_arena_alloc_raw(p->arena, n * esize); /* a slot is zeroed when pushed */
    if (!v)
        return kw_sidecar_parse_oom(p);
    arr->v = v;
    arr->cap = n;
    return KW_OK;
}

static kw_status kw_sidecar_parse_list(kw_sidecar_parser *p, const kw_field *f, kw_anyarr *arr) {
    if (kw_sidecar_parse_expect(p, YAML_SEQUENCE_START_EVENT, NULL) != KW_OK)
        return KW_ERR;
    size_t esize = kw_schema_elem_size(f);
    if (kw_sidecar_parse_presize(p, arr, esize) != KW_OK)
        return KW_ERR;
    for (size_t i = 0;; i++) {
        bool more;
        if (kw_sidecar_parse_next_item(p, &more) != KW_OK)
            return KW_ERR;
        if (!more)
            return KW_OK;
        unsigned char *el = kw_arena_grow(p->arena, &arr->v, &arr->n, &arr->cap, esize);
        if (!el)
            return kw_sidecar_parse_oom(p);
        kw_sidecar_parse_push(p, NULL, i);
        kw_status st;
        if (f->kind == KW_F_STRS) {
            st = kw_sidecar_parse_peek(p);
            if (st == KW_OK && kw_sidecar_parse_is_null(&p->ev))
                st = kw_sidecar_parse_fail(p, "expected a string, got null");
            if (st == KW_OK)
                st = kw_sidecar_parse_str(p, (const char **)el);
        } else {
            kw_schema_defaults(f->sub, el);
            st = kw_sidecar_parse_record(p, f->sub, el);
            for (size_t k = 0; st == KW_OK && k < f->sub->nfields; k++) {
                const kw_field *g = &f->sub->fields[k];
                long long *pos = (long long *)(el + g->off);
                if ((g->flags & KW_F_POS) && *pos < 0) /* left out: the position */
                    *pos = (long long)i;
            }
        }
        kw_sidecar_parse_pop(p);
        if (st != KW_OK)
            return KW_ERR;
    }
}

/* A sequence of integers (KW_F_INTS). */
static kw_status kw_sidecar_parse_ints(kw_sidecar_parser *p, kw_anyarr *arr) {
    if (kw_sidecar_parse_expect(p, YAML_SEQUENCE_START_EVENT, NULL) != KW_OK ||
        kw_sidecar_parse_presize(p, arr, sizeof(long long)) != KW_OK)
        return KW_ERR;
    for (size_t i = 0;; i++) {
        bool more;
        if (kw_sidecar_parse_next_item(p, &more) != KW_OK)
            return KW_ERR;
        if (!more)
            return KW_OK;
        long long *el = kw_arena_grow(p->arena, &arr->v, &arr->n, &arr->cap, sizeof(long long));
        if (!el)
            return kw_sidecar_parse_oom(p);
        kw_sidecar_parse_push(p, NULL, i);
        kw_status st = kw_sidecar_parse_ll(p, LLONG_MIN, LLONG_MAX, el);
        kw_sidecar_parse_pop(p);
        if (st != KW_OK)
            return KW_ERR;
    }
}

/* Is the current event the plain scalar w? */
static bool kw_sidecar_parse_is_word(const kw_sidecar_parser *p, const char *w) {
    return p->ev.type == YAML_SCALAR_EVENT && p->ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
           !strcmp((const char *)p->ev.data.scalar.value, w);
}

/* A kw_val (KW_F_VAL): a plain integer, `unknown`, or any other scalar as an
 * expression. */
static kw_status kw_sidecar_parse_val(kw_sidecar_parser *p, kw_val *v) {
    if (kw_sidecar_parse_scalar(p, "a number, an expression or unknown") != KW_OK)
        return KW_ERR;
    const char *t = (const char *)p->ev.data.scalar.value;
    bool plain = p->ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
    if (plain && !strcmp(t, "unknown")) {
        v->kind = KW_VAL_UNKNOWN;
        kw_sidecar_parse_consume(p);
        return KW_OK;
    }
    char *end;
    errno = 0;
    long long x = plain && t[0] ? strtoll(t, &end, 10) : 0;
    if (plain && t[0] && t[0] != ' ' && !*end && errno != ERANGE) {
        v->kind = KW_VAL_NUM;
        v->num = x;
        v->expr = NULL;
        kw_sidecar_parse_consume(p);
        return KW_OK;
    }
    v->kind = KW_VAL_EXPR;
    v->num = 0;
    return kw_sidecar_parse_str(p, &v->expr);
}

static kw_status kw_sidecar_parse_value(kw_sidecar_parser *p, const kw_field *f,
                                        unsigned char *base) {
    void *at = base + f->off;
    if (kw_sidecar_parse_peek(p) != KW_OK)
        return KW_ERR;
    if (kw_sidecar_parse_is_null(&p->ev) && f->kind != KW_F_STR && f->kind != KW_F_SCALAR) {
        kw_sidecar_parse_consume(p); /* absent: keep the default */
        return KW_OK;
    }
    long long v;
    switch (f->kind) {
    case KW_F_STR:
    case KW_F_SCALAR:
        if (kw_sidecar_parse_is_null(&p->ev)) {
            kw_sidecar_parse_consume(p);
            *(const char **)at = NULL;
            return KW_OK;
        }
        return kw_sidecar_parse_str(p, (const char **)at);
    case KW_F_INT:
        if (kw_sidecar_parse_ll(p, -0x7FFFFFFFLL - 1, 0x7FFFFFFFLL, &v) != KW_OK)
            return KW_ERR;
        *(int *)at = (int)v;
        return KW_OK;
    case KW_F_BYTES: {
        long long *n = at;
        if ((f->flags & KW_F_HEX) && kw_sidecar_parse_scalar(p, "an integer") == KW_OK &&
            p->ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
            !strncmp((const char *)p->ev.data.scalar.value, "0x", 2)) {
            const char *t = (const char *)p->ev.data.scalar.value + 2;
            char *end;
            errno = 0;
            unsigned long long x = strtoull(t, &end, 16);
            if (!t[0] || *end || errno == ERANGE || x > (unsigned long long)LLONG_MAX)
                return kw_sidecar_parse_fail(p, "expected a hexadecimal integer, got \"%.40s\"",
                                             t - 2);
            *n = (long long)x;
            kw_sidecar_parse_consume(p);
            return KW_OK;
        }
        if (kw_sidecar_parse_ll(p, LLONG_MIN, LLONG_MAX, n) != KW_OK)
            return KW_ERR;
        if (*n < 0) /* any negative value is "not known", as the writer leaves it out */
            *n = -1;
        return KW_OK;
    }
    case KW_F_BOOL:
        return kw_sidecar_parse_bool(p, (bool *)at);
    case KW_F_LOC:
        return kw_sidecar_parse_loc(p, at);
    case KW_F_DIM3:
        return kw_sidecar_parse_config(p, at, 3);
    case KW_F_DIM1:
        return kw_sidecar_parse_config(p, at, 1);
    case KW_F_STRS:
    case KW_F_LIST:
        return kw_sidecar_parse_list(p, f, at);
    case KW_F_KEYED:
        return kw_sidecar_parse_keyed(p, f, at);
    case KW_F_COUNTS:
        return kw_sidecar_parse_counts(p, at);
    case KW_F_LL:
        if ((f->flags & KW_F_UNKNOWN) && kw_sidecar_parse_is_word(p, "unknown")) {
            kw_sidecar_parse_consume(p);
            *(long long *)at = -1;
            return KW_OK;
        }
        return kw_sidecar_parse_ll(p, LLONG_MIN, LLONG_MAX, at);
    case KW_F_TRI:
        if (kw_sidecar_parse_is_word(p, "unknown")) {
            kw_sidecar_parse_consume(p);
            *(int *)at = -1;
            return KW_OK;
        } else {
            bool b;
            if (kw_sidecar_parse_bool(p, &b) != KW_OK)
                return KW_ERR;
            *(int *)at = b;
            return KW_OK;
        }
    case KW_F_VAL:
        return kw_sidecar_parse_val(p, at);
    case KW_F_INTS:
        return kw_sidecar_parse_ints(p, at);
    case KW_F_PTR: {
        void *rec = kw_arena_alloc(p->arena, f->sub->size);
        if (!rec)
            return kw_sidecar_parse_oom(p);
        memset(rec, 0, f->sub->size);
        kw_schema_defaults(f->sub, rec);
        *(void **)at = rec;
        return kw_sidecar_parse_record(p, f->sub, rec);
    }
    case KW_F_MAP:
        return kw_sidecar_parse_record(p, f->sub, at);
    }
    return KW_OK;
}

/* ---- Documents ------------------------------------------------------------------------------ */

kw_status kw_sidecar_parse_begin_mode(kw_sidecar_parser *p, const char *name, const char *text,
                                      size_t len, kw_arena *a, bool fast, kw_err *err) {
    memset(p, 0, sizeof(*p));
    p->name = name;
    p->text = text;
    p->len = len;
    p->arena = a;
    p->err = err;
    kw_yaml_fast_init(&p->fy);
    p->fy.arena = a; /* the strings read point into the values (kw_sidecar_parse_str) */
    if (fast && kw_yaml_fast_enabled() && kw_yaml_fast_parse(&p->fy, text, len)) {
        p->fast = true;
    } else {
        kw_yaml_fast_free(&p->fy);
        if (!yaml_parser_initialize(&p->parser))
            return kw_fail(err, "%s: out of memory", name);
        yaml_parser_set_input_string(&p->parser, (const unsigned char *)text, len);
    }
    if (kw_sidecar_parse_peek(p) != KW_OK)
        return KW_ERR;
    kw_sidecar_parse_consume(p); /* stream start */
    if (kw_sidecar_parse_peek(p) != KW_OK)
        return KW_ERR;
    if (p->ev.type == YAML_STREAM_END_EVENT)
        return kw_fail(err, "%s: line 1: empty file (truncated?)", name);
    kw_sidecar_parse_consume(p); /* document start */
    if (kw_sidecar_parse_peek(p) != KW_OK)
        return KW_ERR;
    if (p->ev.type != YAML_MAPPING_START_EVENT)
        return kw_sidecar_parse_fail(p, "expected a mapping at the top level, got %s",
                                     kw_sidecar_parse_what(&p->ev));
    kw_sidecar_parse_consume(p);
    return KW_OK;
}

kw_status kw_sidecar_parse_begin(kw_sidecar_parser *p, const char *name, const char *text,
                                 size_t len, kw_arena *a, kw_err *err) {
    return kw_sidecar_parse_begin_mode(p, name, text, len, a, false, err);
}

kw_status kw_sidecar_parse_end(kw_sidecar_parser *p) {
    if (kw_sidecar_parse_peek(p) != KW_OK)
        return KW_ERR;
    if (p->ev.type != YAML_DOCUMENT_END_EVENT) /* cannot happen after a mapping end */
        return kw_sidecar_parse_fail(p, "expected the end of the document");
    if (p->ev.data.document_end.implicit)
        return kw_sidecar_parse_fail(p, "truncated: the document does not end with '...'");
    kw_sidecar_parse_consume(p);
    if (kw_sidecar_parse_peek(p) != KW_OK)
        return KW_ERR;
    if (p->ev.type != YAML_STREAM_END_EVENT)
        return kw_sidecar_parse_fail(p, "more than one YAML document");
    kw_sidecar_parse_consume(p);
    return KW_OK;
}

void kw_sidecar_parse_free(kw_sidecar_parser *p) {
    if (p->have)
        kw_sidecar_parse_consume(p);
    kw_yaml_fast_free(&p->fy);
    if (!p->fast)
        yaml_parser_delete(&p->parser);
    free(p->replay);
    free(p->open);
}

/* One reading, with the fast reader when fast is set; *used_fast tells
 * whether it was used. */
static kw_status kw_sidecar_parse_mode(void *obj, const char *name, const char *text, size_t len,
                                       bool fast, bool *used_fast, kw_err *err) {
    kw_sidecar *sc = obj;
    kw_sidecar_init(sc);
    kw_sidecar_parser p;
    kw_status st = kw_sidecar_parse_begin_mode(&p, name, text, len, &sc->arena, fast, err);
    *used_fast = p.fast;
    bool have_schema = false;
    uint64_t seen = 0, seen_graph = 0;
    kw_call_graph graph;
    memset(&graph, 0, sizeof graph);
    while (st == KW_OK) {
        const char *key;
        if ((st = kw_sidecar_parse_next_key(&p, &key)) != KW_OK || !key)
            break;
        if (!strcmp(key, "kwalk_schema") && !have_schema) {
            long long v;
            if ((st = kw_sidecar_parse_int(&p, "kwalk_schema", &v)) != KW_OK)
                break;
            if ((v < KW_SCHEMA_OLDEST || v > KW_SCHEMA_VERSION) &&
                KW_SCHEMA_OLDEST == KW_SCHEMA_VERSION) {
                st = kw_fail(err, "%s: unsupported kwalk_schema %lld (this kwalk reads %d)", name,
                             v, KW_SCHEMA_VERSION);
                break;
            }
            if (v < KW_SCHEMA_OLDEST || v > KW_SCHEMA_VERSION) {
                st = kw_fail(err, "%s: unsupported kwalk_schema %lld (this kwalk reads %d to %d)",
                             name, v, KW_SCHEMA_OLDEST, KW_SCHEMA_VERSION);
                break;
            }
            have_schema = true;
            sc->schema = (int)v;
        } else if (!strcmp(key, "kwalk_index")) {
            st = kw_fail(err, "%s: a kwalk index, not a sidecar", name);
        } else if (!strcmp(key, "device_calls")) {
            st = kw_sidecar_parse_field(&p, &kw_t_call_graph, &graph, key, &seen_graph);
        } else {
            st = kw_sidecar_parse_field(&p, &kw_t_sidecar, sc, key, &seen);
        }
    }
    if (st == KW_OK && !have_schema)
        st = KW_SCHEMA_OLDEST == KW_SCHEMA_VERSION
                 ? kw_fail(err, "%s: unsupported kwalk_schema: missing (this kwalk reads %d)", name,
                           KW_SCHEMA_VERSION)
                 : kw_fail(err, "%s: unsupported kwalk_schema: missing (this kwalk reads %d to %d)",
                           name, KW_SCHEMA_OLDEST, KW_SCHEMA_VERSION);
    if (st == KW_OK)
        st = kw_sidecar_parse_end(&p);
    if (st == KW_OK && kw_call_graph_replay(sc, &graph, err) != KW_OK)
        st = kw_fail(err, "%s: out of memory", name);
    kw_sidecar_parse_free(&p);
    if (st != KW_OK)
        kw_sidecar_free(sc);
    return st;
}

kw_status kw_sidecar_parse(kw_sidecar *sc, const char *name, const char *text, size_t len,
                           kw_err *err) {
    if (!kw_sidecar_is_zstd(text, len))
        return kw_sidecar_parse_read(kw_sidecar_parse_mode, sc, name, text, len, err);
    /* the compressed form: the same YAML inside one zstd frame */
    char *plain;
    size_t plain_len;
    if (kw_sidecar_zstd_decompress(name, text, len, (size_t)kw_fs_limit(KW_FS_DATA), &plain,
                                   &plain_len, err) != KW_OK) {
        kw_sidecar_init(sc);
        return KW_ERR;
    }
    kw_status st = kw_sidecar_parse_read(kw_sidecar_parse_mode, sc, name, plain, plain_len, err);
    free(plain);
    return st;
}

kw_status kw_sidecar_parse_read(kw_sidecar_parse_reader read, void *obj, const char *name,
                                const char *text, size_t len, kw_err *err) {
    bool used_fast;
    kw_status st = read(obj, name, text, len, true, &used_fast, err);
    if (st != KW_OK && used_fast) /* the error, as libyaml's reading reports it */
        st = read(obj, name, text, len, false, &used_fast, err);
    return st;
}

kw_status kw_sidecar_read_text(const char *path, char **text, size_t *len, kw_err *err) {
    return kw_fs_read_as(path, KW_FS_DATA, text, len, err);
}

kw_status kw_sidecar_read_file(kw_sidecar *sc, const char *path, kw_err *err) {
    char *text;
    size_t len;
    if (kw_sidecar_read_text(path, &text, &len, err) != KW_OK) {
        kw_sidecar_init(sc);
        return KW_ERR;
    }
    kw_status st = kw_sidecar_parse(sc, path, text, len, err);
    free(text);
    return st;
}

/* kw_irf_parse_list's reading: the document and the arena it fills. */
typedef struct kw_irf_list_read {
    kw_irf_list *out;
    kw_arena *arena;
} kw_irf_list_read;

static kw_status kw_irf_parse_list_mode(void *obj, const char *name, const char *text, size_t len,
                                        bool fast, bool *used_fast, kw_err *err) {
    kw_irf_list_read *r = obj;
    memset(r->out, 0, sizeof *r->out);
    kw_sidecar_parser p;
    kw_status st = kw_sidecar_parse_begin_mode(&p, name, text, len, r->arena, fast, err);
    *used_fast = p.fast;
    uint64_t seen = 0;
    while (st == KW_OK) {
        const char *key;
        if ((st = kw_sidecar_parse_next_key(&p, &key)) != KW_OK || !key)
            break;
        st = kw_sidecar_parse_field(&p, &kw_t_irf_list, r->out, key, &seen);
    }
    if (st == KW_OK)
        st = kw_sidecar_parse_end(&p);
    kw_sidecar_parse_free(&p);
    return st;
}

kw_status kw_irf_parse_list(kw_irf_list *out, kw_arena *a, const char *name, const char *text,
                            size_t len, kw_err *err) {
    kw_irf_list_read r = {out, a};
    return kw_sidecar_parse_read(kw_irf_parse_list_mode, &r, name, text, len, err);
}
