/* kw_cli_json.c: writing a subcommand's --json document, and a YAML
 * document kwalk wrote turned into the same JSON value (kw_cli_json.h). */
#define _POSIX_C_SOURCE 200809L
#include "cli/kw_cli_json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "cli/kw_cli.h"

int kw_cli_json_print(json_t *doc, bool oom) {
    if (!doc || oom) {
        json_decref(doc);
        return kw_cli_failf("out of memory");
    }
    /* two-space indent; reals with 15 significant digits (no binary noise) */
    int bad = json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(15)) != 0;
    json_decref(doc);
    if (bad || putchar('\n') == EOF)
        return kw_cli_failf("writing the JSON document: out of memory or output error");
    return kw_cli_flush_stdout();
}

/* ---- YAML to JSON ---- */

static bool kw_yj_full(const char *s, const char *end) {
    return end != s && !*end;
}

/* A plain scalar by YAML's core schema (kw_cli_json.h). */
static json_t *kw_yj_plain(const char *s) {
    if (!*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") || !strcmp(s, "NULL"))
        return json_null();
    if (!strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "TRUE"))
        return json_true();
    if (!strcmp(s, "false") || !strcmp(s, "False") || !strcmp(s, "FALSE"))
        return json_false();
    const char *digits = s + (*s == '-' || *s == '+');
    char *end;
    errno = 0;
    if (digits[0] == '0' && digits[1] == 'x' && digits[2]) {
        long long v = strtoll(digits + 2, &end, 16);
        if (kw_yj_full(digits + 2, end) && !errno)
            return json_integer(*s == '-' ? -v : v);
    } else if (*digits >= '0' && *digits <= '9' && strspn(digits, "0123456789") == strlen(digits)) {
        long long v = strtoll(s, &end, 10);
        if (kw_yj_full(s, end) && !errno)
            return json_integer(v);
    }
    if (strspn(digits, "0123456789.eE+-") == strlen(digits) && strpbrk(digits, "0123456789")) {
        double d = strtod(s, &end);
        if (kw_yj_full(s, end))
            return json_real(d);
    }
    return kw_jansson_text(s);
}

typedef struct kw_yj {
    yaml_parser_t p;
    json_t *anchors; /* anchor name -> node */
    const char *name;
    kw_err *err;
    int depth;
} kw_yj;

static json_t *kw_yj_fail(kw_yj *y, const char *what) {
    const char *m = y->p.problem ? y->p.problem : what;
    kw_fail(y->err, "%s: line %zu: %s", y->name, y->p.problem_mark.line + 1, m);
    return NULL;
}

static json_t *kw_yj_node(kw_yj *y, yaml_event_t *ev);

/* The items of the collection ev started, up to its end event. */
static json_t *kw_yj_collection(kw_yj *y, bool map) {
    json_t *c = map ? json_object() : json_array();
    if (!c || ++y->depth > 64) {
        json_decref(c);
        return c ? kw_yj_fail(y, "nested too deep") : kw_yj_fail(y, "out of memory");
    }
    for (;;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&y->p, &ev)) {
            json_decref(c);
            return kw_yj_fail(y, "malformed YAML");
        }
        if (ev.type == YAML_MAPPING_END_EVENT || ev.type == YAML_SEQUENCE_END_EVENT) {
            yaml_event_delete(&ev);
            break;
        }
        json_t *key = NULL, *val = NULL;
        if (map) {
            key = kw_yj_node(y, &ev);
            yaml_event_t vev;
            if (key && !json_is_string(key)) {
                json_decref(key);
                key = NULL;
                kw_yj_fail(y, "a mapping key that is not a string");
            } else if (key && !yaml_parser_parse(&y->p, &vev)) {
                kw_yj_fail(y, "malformed YAML");
            } else if (key) {
                val = kw_yj_node(y, &vev);
            }
        } else {
            val = kw_yj_node(y, &ev);
        }
        int bad = !val || (map ? json_object_set_new(c, json_string_value(key), val)
                               : json_array_append_new(c, val));
        json_decref(key);
        if (bad) {
            json_decref(c);
            return y->err->msg[0] ? NULL : kw_yj_fail(y, "out of memory");
        }
    }
    y->depth--;
    return c;
}

/* The node ev starts (ev is consumed). */
static json_t *kw_yj_node(kw_yj *y, yaml_event_t *ev) {
    json_t *v = NULL;
    const char *anchor = NULL;
    switch (ev->type) {
    case YAML_SCALAR_EVENT:
        anchor = (const char *)ev->data.scalar.anchor;
        v = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE
                ? kw_yj_plain((const char *)ev->data.scalar.value)
                : kw_jansson_text((const char *)ev->data.scalar.value);
        if (!v)
            kw_yj_fail(y, "out of memory");
        break;
    case YAML_ALIAS_EVENT:
        v = json_incref(json_object_get(y->anchors, (const char *)ev->data.alias.anchor));
        if (!v)
            kw_yj_fail(y, "an alias of an unknown anchor");
        break;
    case YAML_MAPPING_START_EVENT:
    case YAML_SEQUENCE_START_EVENT: {
        bool map = ev->type == YAML_MAPPING_START_EVENT;
        anchor =
            (const char *)(map ? ev->data.mapping_start.anchor : ev->data.sequence_start.anchor);
        char *keep = anchor ? strdup(anchor) : NULL;
        yaml_event_delete(ev);
        v = kw_yj_collection(y, map);
        if (v && keep && json_object_set(y->anchors, keep, v))
            kw_yj_fail(y, "out of memory");
        free(keep);
        return v;
    }
    default:
        kw_yj_fail(y, "unexpected YAML event");
    }
    if (v && anchor && json_object_set(y->anchors, anchor, v)) {
        json_decref(v);
        v = kw_yj_fail(y, "out of memory");
    }
    yaml_event_delete(ev);
    return v;
}

json_t *kw_cli_json_of_yaml(const char *name, const char *text, size_t len, kw_err *err) {
    kw_yj y = {.name = name, .err = err};
    err->msg[0] = '\0';
    if (!yaml_parser_initialize(&y.p) || !(y.anchors = json_object())) {
        kw_fail(err, "%s: out of memory", name);
        return NULL;
    }
    yaml_parser_set_input_string(&y.p, (const unsigned char *)text, len);
    json_t *doc = NULL;
    yaml_event_t ev;
    /* stream start, document start, the root node */
    for (int i = 0; i < 2; i++) {
        if (!yaml_parser_parse(&y.p, &ev)) {
            kw_yj_fail(&y, "malformed YAML");
            break;
        }
        bool ok = ev.type == (i ? YAML_DOCUMENT_START_EVENT : YAML_STREAM_START_EVENT);
        yaml_event_delete(&ev);
        if (!ok) {
            kw_yj_fail(&y, "not one YAML document");
            break;
        }
        if (i == 1 && yaml_parser_parse(&y.p, &ev))
            doc = kw_yj_node(&y, &ev);
        else if (i == 1)
            kw_yj_fail(&y, "malformed YAML");
    }
    json_decref(y.anchors);
    yaml_parser_delete(&y.p);
    return doc;
}
