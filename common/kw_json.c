/* kw_json.c: the JSON reader of kw_json.h: a recursive descent over the
 * text with a depth limit, strings unescaped into the arena. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/kw_buf.h"
#include "common/kw_json.h"

enum { KW_JSON_MAX_DEPTH = 512 };

typedef struct kw_jp {
    const char *name;
    const char *start, *p, *end;
    kw_arena *arena;
    kw_buf tmp;
    kw_err *err;
} kw_jp;

static kw_status kw_json_fail(kw_jp *jp, const char *what) {
    size_t line = 1;
    for (const char *q = jp->start; q < jp->p; q++)
        line += *q == '\n';
    return kw_fail(jp->err, "%s: line %zu (offset %zu): %s", jp->name, line,
                   (size_t)(jp->p - jp->start), what);
}

static void kw_json_ws(kw_jp *jp) {
    while (jp->p < jp->end && (*jp->p == ' ' || *jp->p == '\t' || *jp->p == '\n' || *jp->p == '\r'))
        jp->p++;
}

static void kw_json_utf8(kw_buf *b, unsigned long cp) {
    char u[4];
    if (cp < 0x80) {
        kw_buf_putc(b, (char)cp);
    } else if (cp < 0x800) {
        u[0] = (char)(0xC0 | (cp >> 6));
        u[1] = (char)(0x80 | (cp & 0x3F));
        kw_buf_append(b, u, 2);
    } else if (cp < 0x10000) {
        u[0] = (char)(0xE0 | (cp >> 12));
        u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        u[2] = (char)(0x80 | (cp & 0x3F));
        kw_buf_append(b, u, 3);
    } else {
        u[0] = (char)(0xF0 | (cp >> 18));
        u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        u[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        u[3] = (char)(0x80 | (cp & 0x3F));
        kw_buf_append(b, u, 4);
    }
}

static int kw_json_hex4(const char *p, const char *end, unsigned long *out) {
    if (end - p < 4)
        return 0;
    unsigned long v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned long)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned long)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned long)(c - 'A' + 10);
        else
            return 0;
    }
    *out = v;
    return 1;
}

/* A string at jp->p (the opening quote); the result in the arena. */
static kw_status kw_json_string(kw_jp *jp, const char **out) {
    jp->p++;
    kw_buf_reset(&jp->tmp);
    for (;;) {
        const char *s = jp->p;
        while (jp->p < jp->end && *jp->p != '"' && *jp->p != '\\' && (unsigned char)*jp->p >= 0x20)
            jp->p++;
        kw_buf_append(&jp->tmp, s, (size_t)(jp->p - s));
        if (jp->p >= jp->end)
            return kw_json_fail(jp, "unterminated string");
        char c = *jp->p;
        if (c == '"') {
            jp->p++;
            break;
        }
        if (c != '\\')
            return kw_json_fail(jp, "control character in a string");
        if (jp->end - jp->p < 2)
            return kw_json_fail(jp, "unterminated string");
        char e = jp->p[1];
        jp->p += 2;
        switch (e) {
        case '"':
            kw_buf_putc(&jp->tmp, '"');
            break;
        case '\\':
            kw_buf_putc(&jp->tmp, '\\');
            break;
        case '/':
            kw_buf_putc(&jp->tmp, '/');
            break;
        case 'b':
            kw_buf_putc(&jp->tmp, '\b');
            break;
        case 'f':
            kw_buf_putc(&jp->tmp, '\f');
            break;
        case 'n':
            kw_buf_putc(&jp->tmp, '\n');
            break;
        case 'r':
            kw_buf_putc(&jp->tmp, '\r');
            break;
        case 't':
            kw_buf_putc(&jp->tmp, '\t');
            break;
        case 'u': {
            unsigned long cp, lo;
            if (!kw_json_hex4(jp->p, jp->end, &cp))
                return kw_json_fail(jp, "bad \\u escape");
            jp->p += 4;
            if (cp >= 0xD800 && cp <= 0xDBFF && jp->end - jp->p >= 6 && jp->p[0] == '\\' &&
                jp->p[1] == 'u' && kw_json_hex4(jp->p + 2, jp->end, &lo) && lo >= 0xDC00 &&
                lo <= 0xDFFF) {
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                jp->p += 6;
            } else if (cp >= 0xD800 && cp <= 0xDFFF) {
                cp = 0xFFFD; /* a lone surrogate */
            }
            if (cp == 0)
                return kw_json_fail(jp, "\\u0000 in a string");
            kw_json_utf8(&jp->tmp, cp);
            break;
        }
        default:
            jp->p--;
            return kw_json_fail(jp, "bad escape in a string");
        }
    }
    if (jp->tmp.oom)
        return kw_fail(jp->err, "%s: out of memory", jp->name);
    *out = kw_arena_strndup(jp->arena, kw_buf_str(&jp->tmp), jp->tmp.len);
    return *out ? KW_OK : kw_fail(jp->err, "%s: out of memory", jp->name);
}

static kw_status kw_json_number(kw_jp *jp, kw_json *v) {
    const char *s = jp->p;
    if (jp->p < jp->end && *jp->p == '-')
        jp->p++;
    if (jp->p >= jp->end || *jp->p < '0' || *jp->p > '9')
        return kw_json_fail(jp, "unexpected character");
    if (*jp->p == '0')
        jp->p++;
    else
        while (jp->p < jp->end && *jp->p >= '0' && *jp->p <= '9')
            jp->p++;
    bool integer = true;
    if (jp->p < jp->end && *jp->p == '.') {
        integer = false;
        jp->p++;
        if (jp->p >= jp->end || *jp->p < '0' || *jp->p > '9')
            return kw_json_fail(jp, "bad number");
        while (jp->p < jp->end && *jp->p >= '0' && *jp->p <= '9')
            jp->p++;
    }
    if (jp->p < jp->end && (*jp->p == 'e' || *jp->p == 'E')) {
        integer = false;
        jp->p++;
        if (jp->p < jp->end && (*jp->p == '+' || *jp->p == '-'))
            jp->p++;
        if (jp->p >= jp->end || *jp->p < '0' || *jp->p > '9')
            return kw_json_fail(jp, "bad number");
        while (jp->p < jp->end && *jp->p >= '0' && *jp->p <= '9')
            jp->p++;
    }
    char buf[64];
    size_t n = (size_t)(jp->p - s);
    if (n >= sizeof buf)
        n = sizeof buf - 1; /* a longer number is beyond any value read here */
    memcpy(buf, s, n);
    buf[n] = '\0';
    v->type = KW_J_NUM;
    v->s = kw_arena_strndup(jp->arena, s, (size_t)(jp->p - s));
    if (!v->s)
        return kw_fail(jp->err, "%s: out of memory", jp->name);
    v->d = strtod(buf, NULL);
    if (integer) {
        errno = 0;
        long long i = strtoll(buf, NULL, 10);
        if (errno != ERANGE) {
            v->is_int = true;
            v->i = i;
        }
    }
    return KW_OK;
}

static kw_status kw_json_value(kw_jp *jp, kw_json *v, int depth);

/* Elements of an array or members of an object, collected in a temporary
 * growable block, then copied into the arena at their final size. */
typedef struct kw_jlist {
    kw_json *v;
    const char **k;
    size_t n, cap;
} kw_jlist;

static kw_status kw_json_push(kw_jp *jp, kw_jlist *l, bool keys) {
    if (l->n < l->cap)
        return KW_OK;
    size_t cap = l->cap ? 2 * l->cap : 8;
    kw_json *v = realloc(l->v, cap * sizeof *v);
    if (!v)
        return kw_fail(jp->err, "%s: out of memory", jp->name);
    l->v = v;
    if (keys) {
        const char **k = realloc(l->k, cap * sizeof *k);
        if (!k)
            return kw_fail(jp->err, "%s: out of memory", jp->name);
        l->k = k;
    }
    l->cap = cap;
    return KW_OK;
}

static kw_status kw_json_finish(kw_jp *jp, kw_jlist *l, kw_json *out, bool keys) {
    out->n = l->n;
    if (l->n) {
        out->items = kw_arena_alloc(jp->arena, l->n * sizeof(kw_json));
        if (keys)
            out->keys = kw_arena_alloc(jp->arena, l->n * sizeof(char *));
        if (!out->items || (keys && !out->keys))
            return kw_fail(jp->err, "%s: out of memory", jp->name);
        memcpy(out->items, l->v, l->n * sizeof(kw_json));
        if (keys)
            memcpy(out->keys, l->k, l->n * sizeof(char *));
    }
    return KW_OK;
}

static kw_status kw_json_compound(kw_jp *jp, kw_json *v, int depth, bool obj) {
    if (depth >= KW_JSON_MAX_DEPTH)
        return kw_json_fail(jp, "nested too deeply");
    char close = obj ? '}' : ']';
    v->type = obj ? KW_J_OBJ : KW_J_ARR;
    jp->p++;
    kw_jlist l = {0};
    kw_status st = KW_ERR;
    kw_json_ws(jp);
    if (jp->p < jp->end && *jp->p == close) {
        jp->p++;
        return KW_OK;
    }
    for (;;) {
        if (kw_json_push(jp, &l, obj))
            goto out;
        kw_json *e = &l.v[l.n];
        memset(e, 0, sizeof *e);
        kw_json_ws(jp);
        if (obj) {
            if (jp->p >= jp->end || *jp->p != '"') {
                kw_json_fail(jp, "expected a string key");
                goto out;
            }
            if (kw_json_string(jp, &l.k[l.n]))
                goto out;
            kw_json_ws(jp);
            if (jp->p >= jp->end || *jp->p != ':') {
                kw_json_fail(jp, "expected ':'");
                goto out;
            }
            jp->p++;
        }
        if (kw_json_value(jp, e, depth + 1))
            goto out;
        l.n++;
        kw_json_ws(jp);
        if (jp->p < jp->end && *jp->p == ',') {
            jp->p++;
            continue;
        }
        if (jp->p < jp->end && *jp->p == close) {
            jp->p++;
            break;
        }
        kw_json_fail(jp, obj ? "expected ',' or '}'" : "expected ',' or ']'");
        goto out;
    }
    st = kw_json_finish(jp, &l, v, obj);
out:
    free(l.v);
    free(l.k);
    return st;
}

static kw_status kw_json_value(kw_jp *jp, kw_json *v, int depth) {
    kw_json_ws(jp);
    if (jp->p >= jp->end)
        return kw_json_fail(jp, "unexpected end of file (truncated?)");
    switch (*jp->p) {
    case '{':
        return kw_json_compound(jp, v, depth, true);
    case '[':
        return kw_json_compound(jp, v, depth, false);
    case '"':
        v->type = KW_J_STR;
        return kw_json_string(jp, &v->s);
    case 't':
    case 'f':
    case 'n': {
        static const char *const words[] = {"true", "false", "null"};
        for (int i = 0; i < 3; i++) {
            size_t n = strlen(words[i]);
            if ((size_t)(jp->end - jp->p) >= n && !memcmp(jp->p, words[i], n)) {
                jp->p += n;
                v->type = i == 2 ? KW_J_NULL : KW_J_BOOL;
                v->b = i == 0;
                return KW_OK;
            }
        }
        return kw_json_fail(jp, "unexpected word");
    }
    default:
        return kw_json_number(jp, v);
    }
}

kw_status kw_json_parse(kw_arena *arena, const char *name, const char *text, size_t len,
                        kw_json *root, kw_err *err) {
    kw_jp jp = {
        .name = name, .start = text, .p = text, .end = text + len, .arena = arena, .err = err};
    kw_buf_init(&jp.tmp);
    if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3))
        jp.p += 3;
    memset(root, 0, sizeof *root);
    kw_status st = kw_json_value(&jp, root, 0);
    kw_buf_free(&jp.tmp);
    if (st)
        return st;
    kw_json_ws(&jp);
    if (jp.p != jp.end)
        return kw_json_fail(&jp, "text after the JSON value");
    return KW_OK;
}

const kw_json *kw_json_get(const kw_json *o, const char *key) {
    if (!o || o->type != KW_J_OBJ)
        return NULL;
    for (size_t i = 0; i < o->n; i++)
        if (!strcmp(o->keys[i], key))
            return &o->items[i];
    return NULL;
}

bool kw_json_int(const kw_json *v, long long *out) {
    if (!v || v->type != KW_J_NUM)
        return false;
    if (v->is_int) {
        *out = v->i;
        return true;
    }
    if (v->d != floor(v->d) || fabs(v->d) > 9.0e15)
        return false;
    *out = (long long)v->d;
    return true;
}

const char *kw_json_str(const kw_json *v) {
    return v && v->type == KW_J_STR && v->s[0] ? v->s : NULL;
}
