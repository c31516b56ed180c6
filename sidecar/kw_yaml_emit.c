/* kw_yaml_emit.c: the YAML writer's plumbing on libyaml's emitter (see
 * kw_yaml_emit.h): events in, text out through an output handler into a
 * kw_buf; scalars in the styles the sidecar and `kwalk trace` use, UTF-8
 * repaired. The sidecar's records are written by kw_sidecar_emit.c. */
#include "sidecar/kw_yaml_emit.h"

#include <stdlib.h>

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/kw_buf.h"
#include "sidecar/kw_yaml_share.h"

/* ---- libyaml plumbing ----------------------------------------------------------------------- */

static int kw_yaml_emit_output(void *data, unsigned char *buffer, size_t size) {
    kw_buf *b = data;
    kw_buf_append(b, buffer, size);
    return !b->oom;
}

void kw_yaml_emit_emit(kw_yaml_emitter *e, yaml_event_t *ev, int init_ok) {
    if (e->failed) {
        if (init_ok)
            yaml_event_delete(ev);
        return;
    }
    if (!init_ok) {
        e->failed = true;
        kw_fail(e->err, "cannot write YAML: out of memory");
        return;
    }
    /* yaml_emitter_emit takes ownership of the event, also on failure */
    if (!yaml_emitter_emit(&e->em, ev)) {
        e->failed = true;
        kw_fail(e->err, "cannot write YAML: %s", e->em.problem ? e->em.problem : "out of memory");
    }
}

/* A node the sharing plan refused: its alias, when it has one. */
static void kw_yaml_emit_alias(kw_yaml_emitter *e) {
    const char *name = kw_yaml_share_alias(e->sh);
    if (!name)
        return;
    yaml_event_t ev;
    int ok = yaml_alias_event_initialize(&ev, (yaml_char_t *)name);
    kw_yaml_emit_emit(e, &ev, ok);
}

void kw_yaml_emit_map_start(kw_yaml_emitter *e, bool flow) {
    yaml_mapping_style_t style = flow ? YAML_FLOW_MAPPING_STYLE : YAML_BLOCK_MAPPING_STYLE;
    const char *anchor = NULL;
    if (e->sh && !kw_yaml_share_start(e, true, (int)style, &anchor)) {
        kw_yaml_emit_alias(e);
        return;
    }
    yaml_event_t ev;
    int ok = yaml_mapping_start_event_initialize(&ev, (yaml_char_t *)anchor, NULL, 1, style);
    kw_yaml_emit_emit(e, &ev, ok);
}

void kw_yaml_emit_map_end(kw_yaml_emitter *e) {
    if (e->sh && !kw_yaml_share_end(e))
        return;
    yaml_event_t ev;
    int ok = yaml_mapping_end_event_initialize(&ev);
    kw_yaml_emit_emit(e, &ev, ok);
}

void kw_yaml_emit_seq_start(kw_yaml_emitter *e, bool flow) {
    yaml_sequence_style_t style = flow ? YAML_FLOW_SEQUENCE_STYLE : YAML_BLOCK_SEQUENCE_STYLE;
    const char *anchor = NULL;
    if (e->sh && !kw_yaml_share_start(e, false, (int)style, &anchor)) {
        kw_yaml_emit_alias(e);
        return;
    }
    yaml_event_t ev;
    int ok = yaml_sequence_start_event_initialize(&ev, (yaml_char_t *)anchor, NULL, 1, style);
    kw_yaml_emit_emit(e, &ev, ok);
}

void kw_yaml_emit_seq_end(kw_yaml_emitter *e) {
    if (e->sh && !kw_yaml_share_end(e))
        return;
    yaml_event_t ev;
    int ok = yaml_sequence_end_event_initialize(&ev);
    kw_yaml_emit_emit(e, &ev, ok);
}

void kw_yaml_emit_scalar(kw_yaml_emitter *e, const char *s, size_t n, yaml_scalar_style_t style) {
    const char *anchor = NULL;
    if (e->sh && !kw_yaml_share_scalar(e, s, n, (int)style, &anchor)) {
        kw_yaml_emit_alias(e);
        return;
    }
    yaml_event_t ev;
    int ok = yaml_scalar_event_initialize(&ev, (yaml_char_t *)anchor, NULL, (yaml_char_t *)s,
                                          (int)n, 1, 1, style);
    kw_yaml_emit_emit(e, &ev, ok);
}

/* ---- Scalars -------------------------------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 if invalid.
 * Rejects what libyaml's reader rejects: overlong forms, surrogates, values
 * above U+10FFFF. */
static size_t kw_utf8_seq(const unsigned char *s, size_t n) {
    unsigned c = s[0];
    size_t w;
    unsigned v, min;
    if (c < 0x80)
        return 1;
    if ((c & 0xE0) == 0xC0)
        w = 2, v = c & 0x1F, min = 0x80;
    else if ((c & 0xF0) == 0xE0)
        w = 3, v = c & 0x0F, min = 0x800;
    else if ((c & 0xF8) == 0xF0)
        w = 4, v = c & 0x07, min = 0x10000;
    else
        return 0;
    if (w > n)
        return 0;
    for (size_t i = 1; i < w; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (s[i] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    return w;
}

/* s as valid UTF-8: s itself, or a repaired copy in e->tmp. */
static const char *kw_yaml_emit_utf8(kw_yaml_emitter *e, const char *s, size_t *n) {
    const unsigned char *u = (const unsigned char *)s;
    size_t len = *n, i = 0;
    while (i < len) {
        if (u[i] < 0x80) { /* ASCII, nearly every byte a sidecar has */
            i++;
            continue;
        }
        size_t w = kw_utf8_seq(u + i, len - i);
        if (!w)
            break;
        i += w;
    }
    if (i == len)
        return s;
    kw_buf_reset(&e->tmp);
    kw_buf_append(&e->tmp, s, i);
    while (i < len) {
        size_t w = kw_utf8_seq(u + i, len - i);
        if (w) {
            kw_buf_append(&e->tmp, u + i, w);
            i += w;
        } else {
            kw_buf_puts(&e->tmp, "\xEF\xBF\xBD");
            i++;
        }
    }
    *n = e->tmp.len;
    return kw_buf_str(&e->tmp);
}

static bool kw_ascii_ieq(const char *a, const char *b) {
    for (; *a && *b; a++, b++) {
        char x = *a >= 'A' && *a <= 'Z' ? (char)(*a - 'A' + 'a') : *a;
        if (x != *b)
            return false;
    }
    return *a == *b;
}

/* Would a YAML 1.1 or 1.2 resolver read this plain scalar as something other
 * than a string (null, a boolean, a number, a date, a merge key)? */
static bool kw_yaml_emit_looks_typed(const char *s) {
    static const char *const words[] = {"~",   "null", "true", "false", "yes",  "no", "on",
                                        "off", "y",    "n",    ".inf",  ".nan", "<<", "="};
    unsigned char c0 = (unsigned char)s[0], c1 = c0 ? (unsigned char)s[1] : 0;
    if (!c0)
        return true;
    if (c0 >= '0' && c0 <= '9')
        return true;
    if ((c0 == '-' || c0 == '+' || c0 == '.') && ((c1 >= '0' && c1 <= '9') || c1 == '.'))
        return true;
    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
        if (kw_ascii_ieq(s, words[i]))
            return true;
    return false;
}

void kw_yaml_emit_str(kw_yaml_emitter *e, const char *s) {
    size_t n = strlen(s);
    s = kw_yaml_emit_utf8(e, s, &n);
    yaml_scalar_style_t style = YAML_ANY_SCALAR_STYLE;
    if (kw_yaml_emit_looks_typed(s))
        style = YAML_DOUBLE_QUOTED_SCALAR_STYLE;
    else if (memchr(s, '\n', n))
        style = YAML_LITERAL_SCALAR_STYLE; /* libyaml falls back to quotes where not allowed */
    kw_yaml_emit_scalar(e, s, n, style);
}

/* (kw_dec, not snprintf: a sidecar has about a million numbers, and
 * snprintf was a sixth of writing one) */
void kw_yaml_emit_ll(kw_yaml_emitter *e, long long v) {
    char num[24];
    size_t n = (size_t)(kw_dec(num, v) - num);
    kw_yaml_emit_scalar(e, num, n, YAML_PLAIN_SCALAR_STYLE);
}

void kw_yaml_emit_bool(kw_yaml_emitter *e, bool v) {
    kw_yaml_emit_scalar(e, v ? "true" : "false", v ? 4 : 5, YAML_PLAIN_SCALAR_STYLE);
}

void kw_yaml_emit_key(kw_yaml_emitter *e, const char *key) {
    kw_yaml_emit_scalar(e, key, strlen(key), YAML_PLAIN_SCALAR_STYLE);
}

void kw_yaml_emit_key_int(kw_yaml_emitter *e, const char *key, long long v) {
    kw_yaml_emit_key(e, key);
    kw_yaml_emit_ll(e, v);
}

void kw_yaml_emit_key_bool(kw_yaml_emitter *e, const char *key, bool v) {
    kw_yaml_emit_key(e, key);
    kw_yaml_emit_bool(e, v);
}

void kw_yaml_emit_key_str(kw_yaml_emitter *e, const char *key, const char *s) {
    kw_yaml_emit_key(e, key);
    if (s)
        kw_yaml_emit_str(e, s);
    else
        kw_yaml_emit_null(e);
}

void kw_yaml_emit_quoted(kw_yaml_emitter *e, const char *s) {
    size_t n = strlen(s);
    s = kw_yaml_emit_utf8(e, s, &n);
    kw_yaml_emit_scalar(e, s, n, YAML_DOUBLE_QUOTED_SCALAR_STYLE);
}

void kw_yaml_emit_plain(kw_yaml_emitter *e, const char *text) {
    kw_yaml_emit_scalar(e, text, strlen(text), YAML_PLAIN_SCALAR_STYLE);
}

void kw_yaml_emit_fmt(kw_yaml_emitter *e, const char *fmt, ...) {
    char text[64];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof text) {
        if (!e->failed)
            kw_fail(e->err, "cannot write YAML: a number longer than %zu bytes", sizeof text - 1);
        e->failed = true;
        return;
    }
    kw_yaml_emit_scalar(e, text, (size_t)n, YAML_PLAIN_SCALAR_STYLE);
}

void kw_yaml_emit_null(kw_yaml_emitter *e) {
    kw_yaml_emit_scalar(e, "~", 1, YAML_PLAIN_SCALAR_STYLE);
}

/* ---- Documents ------------------------------------------------------------------------------ */

kw_status kw_yaml_emit_begin(kw_yaml_emitter *e, kw_buf *out, kw_err *err) {
    memset(e, 0, sizeof(*e));
    e->err = err;
    e->out = out;
    kw_buf_init(&e->tmp);
    if (!yaml_emitter_initialize(&e->em)) {
        e->failed = true;
        return kw_fail(err, "cannot write YAML: out of memory");
    }
    yaml_emitter_set_output(&e->em, kw_yaml_emit_output, out);
    yaml_emitter_set_unicode(&e->em, 1);
    yaml_emitter_set_width(&e->em, -1); /* never fold long lines */
    yaml_emitter_set_indent(&e->em, 2);
    yaml_emitter_set_break(&e->em, YAML_LN_BREAK);

    yaml_event_t ev;
    int ok = yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
    kw_yaml_emit_emit(e, &ev, ok);
    ok = yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1);
    kw_yaml_emit_emit(e, &ev, ok);
    kw_yaml_emit_map_start(e, false);
    return e->failed ? KW_ERR : KW_OK;
}

kw_status kw_yaml_emit_end(kw_yaml_emitter *e) {
    yaml_event_t ev;
    kw_yaml_emit_map_end(e);
    int ok = yaml_document_end_event_initialize(&ev, 0); /* explicit: writes "..." */
    kw_yaml_emit_emit(e, &ev, ok);
    ok = yaml_stream_end_event_initialize(&ev);
    kw_yaml_emit_emit(e, &ev, ok);
    if (!e->failed && !yaml_emitter_flush(&e->em)) {
        e->failed = true;
        kw_fail(e->err, "cannot write YAML: out of memory");
    }
    if (!e->failed && e->out->oom) {
        e->failed = true;
        kw_fail(e->err, "cannot write YAML: out of memory");
    }
    return e->failed ? KW_ERR : KW_OK;
}

void kw_yaml_emit_free(kw_yaml_emitter *e) {
    yaml_emitter_delete(&e->em);
    kw_buf_free(&e->tmp);
}

/* The IR facts' style (KW_F_QUOTED): plain when s is a simple word, else
 * double-quoted; NULL is null. */
static bool kw_yaml_emit_simple_word(const char *s) {
    static const char *const reserved[] = {"true", "false", "null", "yes", "no", "on", "off", "~"};
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_' || *s == '/'))
        return false;
    const char *p = s;
    for (; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '_' || *p == '.' || *p == '/' || *p == '-' || *p == '+'))
            return false;
    if (p - s > 5) /* longer than any reserved word */
        return true;
    for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++)
        if (!strcmp(s, reserved[i]))
            return false;
    return true;
}

void kw_yaml_emit_qstr(kw_yaml_emitter *e, const char *s) {
    if (!s) {
        kw_yaml_emit_scalar(e, "null", 4, YAML_PLAIN_SCALAR_STYLE);
        return;
    }
    size_t n = strlen(s);
    s = kw_yaml_emit_utf8(e, s, &n);
    kw_yaml_emit_scalar(e, s, n,
                        kw_yaml_emit_simple_word(s) ? YAML_PLAIN_SCALAR_STYLE
                                                    : YAML_DOUBLE_QUOTED_SCALAR_STYLE);
}

void kw_yaml_emit_word(kw_yaml_emitter *e, const char *w) {
    kw_yaml_emit_scalar(e, w, strlen(w), YAML_PLAIN_SCALAR_STYLE);
}

/* ---- Shared documents ----------------------------------------------------------------------- */

bool kw_yaml_share_enabled(void) {
    const char *v = getenv("KWALK_YAML_SHARE");
    return !(v && !strcmp(v, "0"));
}

static kw_status kw_yaml_emit_once(kw_buf *out, kw_err *err, kw_yaml_emit_body body,
                                   const void *arg) {
    kw_yaml_emitter e;
    kw_yaml_emit_begin(&e, out, err);
    body(&e, arg);
    kw_status st = kw_yaml_emit_end(&e);
    kw_yaml_emit_free(&e);
    return st;
}

kw_status kw_yaml_emit_shared(kw_buf *out, kw_err *err, kw_yaml_emit_body body, const void *arg) {
    if (!kw_yaml_share_enabled())
        return kw_yaml_emit_once(out, err, body, arg);
    kw_yaml_share *sh = kw_yaml_share_new();
    if (!sh)
        return kw_fail(err, "cannot write YAML: out of memory");
    const char *anchor;
    /* pass 1: hashes only, nothing reaches libyaml */
    kw_yaml_emitter h;
    memset(&h, 0, sizeof(h));
    h.err = err;
    h.sh = sh;
    kw_buf_init(&h.tmp);
    kw_yaml_share_start(&h, true, YAML_BLOCK_MAPPING_STYLE, &anchor);
    body(&h, arg);
    kw_yaml_share_end(&h);
    kw_buf_free(&h.tmp);
    if (h.failed) {
        kw_yaml_share_free(sh);
        return KW_ERR;
    }
    if (!kw_yaml_share_plan(sh)) {
        kw_yaml_share_free(sh);
        return kw_fail(err, "cannot write YAML: out of memory");
    }
    /* pass 2: the document, the top-level mapping's start written by begin */
    kw_yaml_emitter e;
    kw_yaml_emit_begin(&e, out, err);
    e.sh = sh;
    kw_yaml_share_start(&e, true, YAML_BLOCK_MAPPING_STYLE, &anchor);
    body(&e, arg);
    kw_status st = kw_yaml_emit_end(&e);
    kw_yaml_emit_free(&e);
    kw_yaml_share_free(sh);
    return st;
}
