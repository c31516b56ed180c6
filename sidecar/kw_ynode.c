/* kw_ynode.c: YAML text to a node tree with libyaml's event parser (see
 * kw_ynode.h). Depth is bounded; every error is one line. */
#include "kw_ynode.h"

#include <stdlib.h>
#include <string.h>
#include <yaml.h>

enum { KW_Y_MAXDEPTH = 64 };

typedef struct kw_yb {
    yaml_parser_t parser;
    kw_arena *a;
    kw_err *err;
} kw_yb;

static kw_status kw_yb_next(kw_yb *b, yaml_event_t *ev) {
    if (!yaml_parser_parse(&b->parser, ev))
        return kw_fail(b->err, "YAML value: line %zu: %s", b->parser.problem_mark.line + 1,
                       b->parser.problem ? b->parser.problem : "out of memory");
    if (ev->type == YAML_ALIAS_EVENT) {
        yaml_event_delete(ev);
        return kw_fail(b->err, "YAML value: aliases are not supported");
    }
    return KW_OK;
}

/* Grow a node's arrays by one. */
static kw_ynode *kw_yb_push(kw_yb *b, kw_ynode *n, size_t *cap, const char *key) {
    if (n->n == *cap) {
        size_t nc = *cap ? *cap * 2 : 4;
        kw_ynode *items = kw_arena_alloc(b->a, nc * sizeof(kw_ynode));
        const char **keys = n->kind == KW_Y_MAP ? kw_arena_alloc(b->a, nc * sizeof(char *)) : NULL;
        if (!items || (n->kind == KW_Y_MAP && !keys))
            return NULL;
        if (n->n) {
            memcpy(items, n->items, n->n * sizeof(kw_ynode));
            if (keys)
                memcpy(keys, n->keys, n->n * sizeof(char *));
        }
        n->items = items;
        n->keys = keys;
        *cap = nc;
    }
    if (n->kind == KW_Y_MAP)
        n->keys[n->n] = key;
    memset(&n->items[n->n], 0, sizeof(kw_ynode));
    return &n->items[n->n++];
}

static bool kw_yb_null(const yaml_event_t *ev) {
    const char *v = (const char *)ev->data.scalar.value;
    return ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
           (!v[0] || !strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") ||
            !strcmp(v, "NULL"));
}

/* A mapping with file (a string) and line (an integer) is also a location. */
static void kw_yb_loc(kw_ynode *n) {
    const char *file = NULL;
    long line = -1, column = 0;
    for (size_t i = 0; i < n->n; i++) {
        const kw_ynode *v = &n->items[i];
        if (v->kind != KW_Y_SCALAR)
            continue;
        char *end;
        if (!strcmp(n->keys[i], "file"))
            file = v->text;
        else if (!strcmp(n->keys[i], "line"))
            line = strtol(v->text, &end, 10);
        else if (!strcmp(n->keys[i], "column"))
            column = strtol(v->text, &end, 10);
    }
    if (file && line > 0) {
        n->is_loc = true;
        n->loc.file = file;
        n->loc.line = (int)line;
        n->loc.column = (int)column;
    }
}

/* Fill node from the event ev (already read), reading its children. */
static kw_status kw_yb_node(kw_yb *b, yaml_event_t *ev, kw_ynode *node, int depth) {
    if (depth > KW_Y_MAXDEPTH) {
        yaml_event_delete(ev);
        return kw_fail(b->err, "YAML value: nested too deeply");
    }
    if (ev->type == YAML_SCALAR_EVENT) {
        if (kw_yb_null(ev)) {
            node->kind = KW_Y_NULL;
        } else {
            node->kind = KW_Y_SCALAR;
            node->text = kw_arena_strndup(b->a, (const char *)ev->data.scalar.value,
                                          ev->data.scalar.length);
        }
        yaml_event_delete(ev);
        return node->kind == KW_Y_SCALAR && !node->text ? kw_fail(b->err, "out of memory") : KW_OK;
    }
    bool map = ev->type == YAML_MAPPING_START_EVENT;
    if (!map && ev->type != YAML_SEQUENCE_START_EVENT) {
        yaml_event_delete(ev);
        return kw_fail(b->err, "YAML value: unexpected event");
    }
    yaml_event_delete(ev);
    node->kind = map ? KW_Y_MAP : KW_Y_SEQ;
    size_t cap = 0;
    for (;;) {
        yaml_event_t e;
        if (kw_yb_next(b, &e) != KW_OK)
            return KW_ERR;
        if (e.type == YAML_MAPPING_END_EVENT || e.type == YAML_SEQUENCE_END_EVENT) {
            yaml_event_delete(&e);
            break;
        }
        const char *key = NULL;
        if (map) {
            if (e.type != YAML_SCALAR_EVENT) {
                yaml_event_delete(&e);
                return kw_fail(b->err, "YAML value: a mapping key that is not a scalar");
            }
            key = kw_arena_strndup(b->a, (const char *)e.data.scalar.value, e.data.scalar.length);
            yaml_event_delete(&e);
            if (!key || kw_yb_next(b, &e) != KW_OK)
                return key ? KW_ERR : kw_fail(b->err, "out of memory");
        }
        kw_ynode *child = kw_yb_push(b, node, &cap, key);
        if (!child) {
            yaml_event_delete(&e);
            return kw_fail(b->err, "out of memory");
        }
        if (kw_yb_node(b, &e, child, depth + 1) != KW_OK)
            return KW_ERR;
    }
    if (map)
        kw_yb_loc(node);
    return KW_OK;
}

kw_status kw_ynode_parse(kw_arena *a, const char *text, size_t len, kw_ynode **out, kw_err *err) {
    kw_yb b;
    memset(&b, 0, sizeof(b));
    b.a = a;
    b.err = err;
    *out = kw_arena_alloc(a, sizeof(kw_ynode));
    if (!*out)
        return kw_fail(err, "out of memory");
    if (!yaml_parser_initialize(&b.parser))
        return kw_fail(err, "out of memory");
    yaml_parser_set_input_string(&b.parser, (const unsigned char *)text, len);
    kw_status st = KW_OK;
    yaml_event_t ev;
    /* stream start, document start, the node */
    for (int skip = 0; skip < 2 && st == KW_OK; skip++) {
        if ((st = kw_yb_next(&b, &ev)) == KW_OK) {
            bool end = ev.type == YAML_STREAM_END_EVENT;
            yaml_event_delete(&ev);
            if (end) { /* an empty document */
                (*out)->kind = KW_Y_NULL;
                yaml_parser_delete(&b.parser);
                return KW_OK;
            }
        }
    }
    if (st == KW_OK && (st = kw_yb_next(&b, &ev)) == KW_OK)
        st = kw_yb_node(&b, &ev, *out, 0);
    yaml_parser_delete(&b.parser);
    return st;
}
