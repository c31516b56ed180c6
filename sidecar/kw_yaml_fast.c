/* kw_yaml_fast.c: the fast reader of kw_yaml_fast.h. A recursive descent over
 * lines: a block mapping is "key: value" lines at one column, a block
 * sequence "- item" lines at one column (a mapping's value may be a sequence
 * at the mapping's own column, as libyaml writes it), flow collections stay
 * on one line. A key longer than libyaml's emitter allows a simple key (128
 * characters: long mangled names) is written explicitly, "? key" and then
 * ": value" at the key's column; that form is read too. Every case it does not know returns false
 * ("not handled"), never a guess. */
#include "sidecar/kw_yaml_fast.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

typedef struct kw_yaml_fast {
    const char *p, *end;
    const char *bol; /* start of the current line */
    unsigned line;
    int depth;
    kw_yaml_fast_doc *d;
} kw_yaml_fast;

enum { KW_YAML_FAST_MAXDEPTH = 64 };

void kw_yaml_fast_init(kw_yaml_fast_doc *d) {
    memset(d, 0, sizeof(*d));
}

void kw_yaml_fast_free(kw_yaml_fast_doc *d) {
    free(d->ev);
    if (!d->arena)
        free(d->vals);
    free(d->anchors);
    kw_htab_free(&d->names);
    kw_yaml_fast_init(d);
}

bool kw_yaml_fast_enabled(void) {
    const char *v = getenv("KWALK_YAML_FAST");
    return !(v && !strcmp(v, "0"));
}

/* ---- Output --------------------------------------------------------------------------------- */

static bool kw_yaml_fast_event_add(kw_yaml_fast *y, int type, int style) {
    kw_yaml_fast_doc *d = y->d;
    if (d->n == d->cap) {
        size_t ncap = d->cap ? d->cap * 2 : 256;
        kw_yaml_fast_event *ev = realloc(d->ev, ncap * sizeof(*ev));
        if (!ev)
            return false;
        d->ev = ev;
        d->cap = ncap;
    }
    kw_yaml_fast_event *e = &d->ev[d->n++];
    e->type = (unsigned char)type;
    e->style = (unsigned char)style;
    e->line = y->line;
    e->anchor = e->len = 0;
    e->off = 0;
    return true;
}

/* Room for n more value bytes plus a NUL. */
static bool kw_yaml_fast_vals_reserve(kw_yaml_fast_doc *d, size_t n) {
    if (d->vlen + n + 1 <= d->vcap)
        return true;
    size_t ncap = d->vcap ? d->vcap : 4096;
    while (ncap < d->vlen + n + 1)
        ncap *= 2;
    char *v;
    if (d->arena) { /* the old block stays in the arena, unused */
        v = kw_arena_alloc_raw(d->arena, ncap);
        if (v && d->vlen)
            memcpy(v, d->vals, d->vlen);
    } else {
        v = realloc(d->vals, ncap);
    }
    if (!v)
        return false;
    d->vals = v;
    d->vcap = ncap;
    return true;
}

/* Start a scalar event whose value bytes follow with kw_yaml_fast_put. */
static bool kw_yaml_fast_scalar_begin(kw_yaml_fast *y, int style) {
    if (!kw_yaml_fast_event_add(y, YAML_SCALAR_EVENT, style))
        return false;
    y->d->ev[y->d->n - 1].off = y->d->vlen;
    return true;
}

static bool kw_yaml_fast_put(kw_yaml_fast *y, const char *s, size_t n) {
    if (!kw_yaml_fast_vals_reserve(y->d, n))
        return false;
    memcpy(y->d->vals + y->d->vlen, s, n);
    y->d->vlen += n;
    return true;
}

static bool kw_yaml_fast_scalar_end(kw_yaml_fast *y) {
    kw_yaml_fast_doc *d = y->d;
    if (!kw_yaml_fast_vals_reserve(d, 0))
        return false;
    kw_yaml_fast_event *e = &d->ev[d->n - 1];
    if (d->vlen - e->off >= 0xFFFFFFFFu)
        return false;
    e->len = (unsigned)(d->vlen - e->off);
    d->vals[d->vlen++] = '\0';
    return true;
}

static bool kw_yaml_fast_scalar(kw_yaml_fast *y, int style, const char *s, size_t n) {
    return kw_yaml_fast_scalar_begin(y, style) && kw_yaml_fast_put(y, s, n) &&
           kw_yaml_fast_scalar_end(y);
}

/* ---- Anchors and aliases -------------------------------------------------------------------- */

static void kw_yaml_fast_spaces(kw_yaml_fast *y);

typedef struct kw_yaml_fast_name {
    const kw_yaml_fast_doc *d;
    const char *name;
    size_t n;
} kw_yaml_fast_name;

static bool kw_yaml_fast_name_eq(const void *ctx, size_t i) {
    const kw_yaml_fast_name *k = ctx;
    const char *o = k->d->vals + k->d->anchors[i].name;
    return !strncmp(o, k->name, k->n) && !o[k->n];
}

/* The slot of name in the table (an empty one when absent). */
static kw_htab_slot *kw_yaml_fast_name_slot(const kw_yaml_fast_doc *d, const char *name, size_t n) {
    kw_yaml_fast_name k = {d, name, n};
    return kw_htab_find(&d->names, kw_htab_hash(name, n), kw_yaml_fast_name_eq, &k);
}

unsigned kw_yaml_fast_anchor_find(const kw_yaml_fast_doc *d, const char *name, size_t n) {
    kw_htab_slot *s = kw_yaml_fast_name_slot(d, name, n);
    return s ? s->idx : 0;
}

bool kw_yaml_fast_anchor_define(kw_yaml_fast_doc *d, const char *name, size_t n, size_t ev) {
    if (d->nanchors >= 0x7FFFFFFFu || kw_htab_reserve(&d->names) != KW_OK)
        return false;
    if (d->nanchors == d->acap) {
        size_t acap = d->acap ? d->acap * 2 : 64;
        kw_yaml_fast_anchor *a = realloc(d->anchors, acap * sizeof(*a));
        if (!a)
            return false;
        d->anchors = a;
        d->acap = acap;
    }
    if (!kw_yaml_fast_vals_reserve(d, n))
        return false;
    kw_yaml_fast_anchor *a = &d->anchors[d->nanchors++];
    a->name = d->vlen;
    memcpy(d->vals + d->vlen, name, n);
    d->vlen += n;
    d->vals[d->vlen++] = '\0';
    a->ev = ev;
    a->end = 0;
    kw_htab_slot *s = kw_yaml_fast_name_slot(d, name, n);
    if (s->idx) /* defined again: the name names the later node */
        s->idx = (unsigned)d->nanchors;
    else
        kw_htab_fill(&d->names, s, kw_htab_hash(name, n), d->nanchors - 1);
    return true;
}

void kw_yaml_fast_anchor_close(kw_yaml_fast_doc *d, unsigned a, size_t end) {
    if (a && a <= d->nanchors)
        d->anchors[a - 1].end = end;
}

bool kw_yaml_fast_doc_add(kw_yaml_fast_doc *d, int type, int style, unsigned line,
                          const char *value, size_t n) {
    kw_yaml_fast y = {NULL, NULL, NULL, line, 0, d};
    if (!kw_yaml_fast_event_add(&y, type, style))
        return false;
    if (type != YAML_SCALAR_EVENT && type != YAML_ALIAS_EVENT)
        return true;
    d->ev[d->n - 1].off = d->vlen;
    return kw_yaml_fast_put(&y, value, n) && kw_yaml_fast_scalar_end(&y);
}

/* The length of the anchor or alias name at q ([0-9A-Za-z_-], as libyaml
 * scans it), followed by a space, the line end or, in flow context, ",]}";
 * 0 when there is none such. */
static size_t kw_yaml_fast_name_len(const kw_yaml_fast *y, const char *q, bool flow) {
    const char *s = q;
    while (q < y->end && ((*q >= '0' && *q <= '9') || (*q >= 'a' && *q <= 'z') ||
                          (*q >= 'A' && *q <= 'Z') || *q == '_' || *q == '-'))
        q++;
    if (q == s)
        return 0;
    if (q < y->end && *q != ' ' && *q != '\n' && !(flow && strchr(",]}", *q)))
        return 0;
    return (size_t)(q - s);
}

/* An alias ("*name") at p: its event, p past the name. */
static bool kw_yaml_fast_alias(kw_yaml_fast *y, bool flow) {
    size_t n = kw_yaml_fast_name_len(y, y->p + 1, flow);
    if (!n || !kw_yaml_fast_doc_add(y->d, YAML_ALIAS_EVENT, 0, y->line, y->p + 1, n))
        return false;
    y->d->ev[y->d->n - 1].anchor = kw_yaml_fast_anchor_find(y->d, y->p + 1, n);
    y->p += 1 + n;
    return true;
}

/* An anchor ("&name " or "&name" at the line end) at p, of the node that starts with the next
 * event: defined, p past it and the spaces after it; *a gets its number. */
static bool kw_yaml_fast_anchor_prop(kw_yaml_fast *y, bool flow, unsigned *a) {
    size_t n = kw_yaml_fast_name_len(y, y->p + 1, flow);
    if (!n || y->p + 1 + n == y->end || (y->p[1 + n] != ' ' && y->p[1 + n] != '\n') ||
        !kw_yaml_fast_anchor_define(y->d, y->p + 1, n, y->d->n))
        return false;
    *a = (unsigned)y->d->nanchors;
    y->p += 1 + n;
    kw_yaml_fast_spaces(y);
    return true;
}

/* After the node of anchor a, which started at event start, was read (ok). */
static bool kw_yaml_fast_anchored(kw_yaml_fast *y, bool ok, size_t start, unsigned a) {
    if (!ok || start >= y->d->n)
        return false;
    y->d->ev[start].anchor = a;
    kw_yaml_fast_anchor_close(y->d, a, y->d->n);
    return true;
}

/* ---- Lines ---------------------------------------------------------------------------------- */

static bool kw_yaml_fast_eol(const kw_yaml_fast *y) {
    return y->p == y->end || *y->p == '\n';
}

static void kw_yaml_fast_spaces(kw_yaml_fast *y) {
    while (y->p < y->end && *y->p == ' ')
        y->p++;
}

/* Past the '\n' at p (or at the end). */
static void kw_yaml_fast_next_line(kw_yaml_fast *y) {
    if (y->p < y->end) {
        y->p++;
        y->line++;
    }
    y->bol = y->p;
}

/* At a line start: skip empty and all-space lines. Leaves p at bol. */
static void kw_yaml_fast_skip_blank(kw_yaml_fast *y) {
    for (;;) {
        const char *q = y->bol;
        while (q < y->end && *q == ' ')
            q++;
        if (q < y->end && *q != '\n')
            break;
        if (q == y->end) {
            y->p = y->bol = y->end;
            return;
        }
        y->p = q;
        kw_yaml_fast_next_line(y);
    }
    y->p = y->bol;
}

/* The indentation of the line at bol (spaces only). */
static int kw_yaml_fast_indent(const kw_yaml_fast *y) {
    const char *q = y->bol;
    while (q < y->end && *q == ' ')
        q++;
    return (int)(q - y->bol);
}

/* Only spaces, then the end of the line: step to the next line. */
static bool kw_yaml_fast_line_end(kw_yaml_fast *y) {
    kw_yaml_fast_spaces(y);
    if (!kw_yaml_fast_eol(y))
        return false;
    kw_yaml_fast_next_line(y);
    return true;
}

/* "-" followed by a space or the end of the line: a block sequence entry. */
static bool kw_yaml_fast_is_dash(const kw_yaml_fast *y, const char *q) {
    return q < y->end && *q == '-' && (q + 1 == y->end || q[1] == ' ' || q[1] == '\n');
}

static bool kw_yaml_fast_is_doc_marker(const kw_yaml_fast *y, const char *q) {
    if (y->end - q < 3 || !(memcmp(q, "...", 3) == 0 || memcmp(q, "---", 3) == 0))
        return false;
    return q + 3 == y->end || q[3] == ' ' || q[3] == '\n';
}

/* ---- Scalars -------------------------------------------------------------------------------- */

static bool kw_yaml_fast_printable(char c) {
    return c >= 0x20 && c <= 0x7E;
}

/* The length of the printable character at q (printable ASCII, or UTF-8 of
 * a code point libyaml calls printable: 0xA0-0xD7FF, 0xE000-0xFFFD but not
 * 0xFEFF, 0x10000-0x10FFFF), 0 when it is not one. The line breaks NEL
 * (0x85), LS (0x2028) and PS (0x2029) are 0 too: YAML folds them. */
static int kw_yaml_fast_char(const kw_yaml_fast *y, const char *q) {
    unsigned char c = (unsigned char)*q;
    if (c < 0x80)
        return kw_yaml_fast_printable((char)c) ? 1 : 0;
    int n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 0;
    if (!n || y->end - q < n)
        return 0;
    unsigned long cp = c & (0x3F >> (n - 1));
    for (int i = 1; i < n; i++) {
        unsigned char t = (unsigned char)q[i];
        if ((t & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (t & 0x3F);
    }
    static const unsigned long min[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0; /* overlong, out of range, or a surrogate */
    bool printable = (cp >= 0xA0 && cp <= 0xD7FF && cp != 0x2028 && cp != 0x2029) ||
                     (cp >= 0xE000 && cp <= 0xFFFD && cp != 0xFEFF) || cp >= 0x10000;
    return printable ? n : 0;
}

/* Can a plain scalar start with q? Indicators are left to libyaml, except a
 * '-' that begins a number or a word ("-1", "-inf"). */
static bool kw_yaml_fast_plain_start(const kw_yaml_fast *y, const char *q, bool flow) {
    if (q >= y->end || !kw_yaml_fast_char(y, q) || *q == ' ')
        return false;
    if ((*q == '?' || *q == ':') && !flow && q + 1 < y->end && q[1] != ' ' && q[1] != '\n')
        return kw_yaml_fast_char(y, q + 1) != 0; /* "?q", ":colon" */
    if (strchr("?:,[]{}#&*!|>'\"%@`", *q))
        return false;
    if (*q == '-')
        return q + 1 < y->end && (q[1] == '.' || (q[1] >= '0' && q[1] <= '9') ||
                                  (q[1] >= 'a' && q[1] <= 'z') || (q[1] >= 'A' && q[1] <= 'Z'));
    return true;
}

/* The extent of a plain scalar at q: in block context it ends at ": ", ":"
 * before the line end, or the line end; in flow context at ",[]{}" or any
 * ':'. *stop gets what ended it. false for a comment (" #") or a character
 * outside printable ASCII. */
static bool kw_yaml_fast_plain_scan(const kw_yaml_fast *y, const char *q, bool flow,
                                    const char **stop) {
    const char *s = q;
    for (int k; q < y->end; q += k) {
        char c = *q;
        if (c == '\n')
            break;
        if ((unsigned char)c >= 0x20 && (unsigned char)c < 0x7F) /* printable ASCII, inline */
            k = 1;
        else if (!(k = kw_yaml_fast_char(y, q)))
            return false;
        if (c == '#' && q > s && q[-1] == ' ')
            return false;
        if (c == ':') {
            if (flow)
                break;
            if (q + 1 == y->end || q[1] == ' ' || q[1] == '\n')
                break;
        }
        if (flow && (c == ',' || c == '[' || c == ']' || c == '{' || c == '}'))
            break;
    }
    *stop = q;
    return true;
}

/* A plain scalar at p (already checked by kw_yaml_fast_plain_start); p moves to
 * what ended it. */
static bool kw_yaml_fast_plain(kw_yaml_fast *y, bool flow) {
    const char *stop;
    if (!kw_yaml_fast_plain_scan(y, y->p, flow, &stop))
        return false;
    const char *e = stop;
    while (e > y->p && e[-1] == ' ')
        e--;
    if (e == y->p)
        return false;
    bool ok = kw_yaml_fast_scalar(y, YAML_PLAIN_SCALAR_STYLE, y->p, (size_t)(e - y->p));
    y->p = stop;
    return ok;
}

static bool kw_yaml_fast_single(kw_yaml_fast *y) {
    const char *q = y->p + 1;
    if (!kw_yaml_fast_scalar_begin(y, YAML_SINGLE_QUOTED_SCALAR_STYLE))
        return false;
    const char *run = q;
    for (int k = 0;; q += k) {
        if (q == y->end || !(k = kw_yaml_fast_char(y, q)))
            return false;
        if (*q != '\'')
            continue;
        if (!kw_yaml_fast_put(y, run, (size_t)(q - run)))
            return false;
        if (q + 1 < y->end && q[1] == '\'') {
            q++;
            run = q; /* the second quote starts the next run */
            continue;
        }
        break;
    }
    y->p = q + 1;
    return kw_yaml_fast_scalar_end(y);
}

static int kw_yaml_fast_hex(char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static bool kw_yaml_fast_put_utf8(kw_yaml_fast *y, unsigned long cp) {
    char b[4];
    size_t n;
    if ((cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
        return false;
    if (cp < 0x80) {
        b[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        b[0] = (char)(0xC0 | (cp >> 6));
        b[1] = (char)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        b[0] = (char)(0xE0 | (cp >> 12));
        b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[2] = (char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        b[0] = (char)(0xF0 | (cp >> 18));
        b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        b[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[3] = (char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    return kw_yaml_fast_put(y, b, n);
}

/* One escape after '\' at q; q moves past it. */
static bool kw_yaml_fast_escape(kw_yaml_fast *y, const char **qp) {
    const char *q = *qp;
    if (q == y->end)
        return false;
    static const char from[] = "0abtnvfre \"/\\";
    static const char to[] = "\0\a\b\t\n\v\f\r\x1b \"/\\";
    const char *k = *q ? strchr(from, *q) : NULL;
    unsigned long cp = 0;
    int digits = 0;
    if (k) {
        *qp = q + 1;
        return kw_yaml_fast_put(y, &to[k - from], 1);
    }
    switch (*q) {
    case 'N':
        cp = 0x85;
        break;
    case '_':
        cp = 0xA0;
        break;
    case 'L':
        cp = 0x2028;
        break;
    case 'P':
        cp = 0x2029;
        break;
    case 'x':
        digits = 2;
        break;
    case 'u':
        digits = 4;
        break;
    case 'U':
        digits = 8;
        break;
    default:
        return false; /* a line continuation or an unknown escape */
    }
    q++;
    for (int i = 0; i < digits; i++, q++) {
        int h = q < y->end ? kw_yaml_fast_hex(*q) : -1;
        if (h < 0)
            return false;
        cp = cp * 16 + (unsigned long)h;
    }
    *qp = q;
    return kw_yaml_fast_put_utf8(y, cp);
}

static bool kw_yaml_fast_double(kw_yaml_fast *y) {
    const char *q = y->p + 1;
    if (!kw_yaml_fast_scalar_begin(y, YAML_DOUBLE_QUOTED_SCALAR_STYLE))
        return false;
    const char *run = q;
    for (;;) {
        int k;
        if (q == y->end || !(k = kw_yaml_fast_char(y, q)))
            return false;
        if (*q == '"')
            break;
        if (*q != '\\') {
            q += k;
            continue;
        }
        if (!kw_yaml_fast_put(y, run, (size_t)(q - run)))
            return false;
        q++;
        if (!kw_yaml_fast_escape(y, &q))
            return false;
        run = q;
    }
    if (!kw_yaml_fast_put(y, run, (size_t)(q - run)))
        return false;
    y->p = q + 1;
    return kw_yaml_fast_scalar_end(y);
}

/* A literal block scalar ("|", "|-", "|+") of a node whose parent sits at
 * column parent; p is at '|'. Ends at the start of the first line after it. */
static bool kw_yaml_fast_literal(kw_yaml_fast *y, int parent) {
    char chomp = 0;
    y->p++;
    if (y->p < y->end && (*y->p == '-' || *y->p == '+'))
        chomp = *y->p++;
    if (!kw_yaml_fast_line_end(y) || y->p == y->end)
        return false;
    int n = kw_yaml_fast_indent(y);
    const char *first = y->bol + n;
    if (n <= parent || first == y->end || *first == '\n')
        return false; /* empty or leading empty lines: libyaml's rules are subtler */
    if (!kw_yaml_fast_scalar_begin(y, YAML_LITERAL_SCALAR_STYLE))
        return false;
    size_t breaks = 0; /* line breaks after the last content line */
    bool content = false;
    while (y->bol < y->end) {
        const char *q = y->bol;
        while (q < y->end && *q == ' ')
            q++;
        if (q < y->end && *q == '\n' && q == y->bol) { /* an empty line */
            breaks++;
            y->p = q;
            kw_yaml_fast_next_line(y);
            continue;
        }
        if (q == y->end || *q == '\n')
            return false; /* a line of spaces only */
        if (q - y->bol < n)
            break; /* less indented: the scalar is over */
        if (content) {
            for (size_t i = 0; i < breaks; i++)
                if (!kw_yaml_fast_put(y, "\n", 1))
                    return false;
        }
        const char *s = y->bol + n, *e = s;
        for (int k; e < y->end && *e != '\n'; e += k)
            if (!(k = kw_yaml_fast_char(y, e)))
                return false;
        if (e == y->end)
            return false; /* no final line break */
        if (!kw_yaml_fast_put(y, s, (size_t)(e - s)))
            return false;
        content = true;
        breaks = 1;
        y->p = e;
        kw_yaml_fast_next_line(y);
    }
    size_t keep = chomp == '-' ? 0 : chomp == '+' ? breaks : 1;
    for (size_t i = 0; i < keep; i++)
        if (!kw_yaml_fast_put(y, "\n", 1))
            return false;
    y->p = y->bol;
    return kw_yaml_fast_scalar_end(y);
}

/* ---- Flow collections (on one line) --------------------------------------------------------- */

static bool kw_yaml_fast_flow_node(kw_yaml_fast *y);

/* A scalar inside a flow collection: quoted, or plain ending before ",]}"
 * (a ':' ends it too; the caller decides whether that is a key). */
static bool kw_yaml_fast_flow_scalar(kw_yaml_fast *y) {
    if (y->p == y->end)
        return false;
    if (*y->p == '"')
        return kw_yaml_fast_double(y);
    if (*y->p == '\'')
        return kw_yaml_fast_single(y);
    if (!kw_yaml_fast_plain_start(y, y->p, true))
        return false;
    return kw_yaml_fast_plain(y, true);
}

/* One entry of a flow mapping: a scalar key, ": ", then the value (empty
 * before ',' or '}': null). */
static bool kw_yaml_fast_flow_pair(kw_yaml_fast *y) {
    if (!kw_yaml_fast_flow_scalar(y))
        return false;
    if (y->p + 1 >= y->end || y->p[0] != ':' || y->p[1] != ' ')
        return false;
    y->p += 2;
    kw_yaml_fast_spaces(y);
    if (y->p < y->end && (*y->p == ',' || *y->p == '}'))
        return kw_yaml_fast_scalar(y, YAML_PLAIN_SCALAR_STYLE, "", 0);
    return kw_yaml_fast_flow_node(y);
}

/* A flow mapping ({k: v, ...}) or sequence ([a, ...]) on one line; p is at
 * its opening bracket. In a sequence, "a: b" (a single-pair mapping) is left
 * to libyaml: the ':' is neither ',' nor ']'. */
static bool kw_yaml_fast_flow_collection(kw_yaml_fast *y, bool map) {
    char close = map ? '}' : ']';
    if (!kw_yaml_fast_event_add(y, map ? YAML_MAPPING_START_EVENT : YAML_SEQUENCE_START_EVENT,
                                map ? (int)YAML_FLOW_MAPPING_STYLE : (int)YAML_FLOW_SEQUENCE_STYLE))
        return false;
    y->p++;
    kw_yaml_fast_spaces(y);
    bool first = true;
    for (;; first = false) {
        if (first && y->p < y->end && *y->p == close)
            break; /* empty */
        if (!(map ? kw_yaml_fast_flow_pair(y) : kw_yaml_fast_flow_node(y)))
            return false;
        kw_yaml_fast_spaces(y);
        if (y->p == y->end)
            return false;
        if (*y->p == close)
            break;
        if (*y->p != ',')
            return false;
        y->p++;
        kw_yaml_fast_spaces(y);
        if (y->p < y->end && *y->p == close)
            return false; /* a trailing comma */
    }
    y->p++;
    return kw_yaml_fast_event_add(y, map ? YAML_MAPPING_END_EVENT : YAML_SEQUENCE_END_EVENT, 0);
}

static bool kw_yaml_fast_flow_node(kw_yaml_fast *y) {
    if (y->p == y->end || ++y->depth > KW_YAML_FAST_MAXDEPTH)
        return false;
    bool ok;
    if (*y->p == '*') {
        ok = kw_yaml_fast_alias(y, true);
    } else {
        unsigned a = 0;
        size_t start = y->d->n;
        ok = *y->p != '&' || kw_yaml_fast_anchor_prop(y, true, &a);
        ok = ok && y->p < y->end && *y->p != '&' && *y->p != '*';
        if (ok)
            ok = *y->p == '{' || *y->p == '[' ? kw_yaml_fast_flow_collection(y, *y->p == '{')
                                              : kw_yaml_fast_flow_scalar(y);
        if (a)
            ok = kw_yaml_fast_anchored(y, ok, start, a);
    }
    y->depth--;
    return ok;
}

/* ---- Block collections ---------------------------------------------------------------------- */

static bool kw_yaml_fast_block_node(kw_yaml_fast *y, int col, bool indentless);

/* Does a mapping key start at q: a quoted or plain scalar on this line
 * followed by ':' and a space or the line end? */
static bool kw_yaml_fast_is_key(const kw_yaml_fast *y, const char *q) {
    if (q >= y->end)
        return false;
    if (*q == '"' || *q == '\'') {
        char quote = *q++;
        for (; q < y->end && *q != '\n'; q++) {
            if (*q == '\\' && quote == '"' && q + 1 < y->end && q[1] != '\n') {
                q++;
            } else if (*q == quote) {
                if (quote == '\'' && q + 1 < y->end && q[1] == '\'') {
                    q++;
                    continue;
                }
                q++;
                return q < y->end && *q == ':' && (q + 1 == y->end || q[1] == ' ' || q[1] == '\n');
            }
        }
        return false;
    }
    const char *stop;
    if (!kw_yaml_fast_plain_start(y, q, false) || !kw_yaml_fast_plain_scan(y, q, false, &stop))
        return false;
    return stop < y->end && *stop == ':';
}

/* "? " at q: an explicit key ("? key" line, then ": value" at its column). */
static bool kw_yaml_fast_is_explicit(const kw_yaml_fast *y, const char *q) {
    return y->end - q >= 2 && q[0] == '?' && q[1] == ' ';
}

/* Does a block mapping's entry start at q (a key, simple or explicit)? */
static bool kw_yaml_fast_is_entry(const kw_yaml_fast *y, const char *q) {
    return kw_yaml_fast_is_explicit(y, q) || kw_yaml_fast_is_key(y, q);
}

static bool kw_yaml_fast_value_below(kw_yaml_fast *y, int col, bool after_key);

/* A value on the key's (or dash's) line, p at its first character; ends at
 * the start of the next line. parent: the column of the owning collection;
 * after_key: the value is a mapping's (else a sequence's item). An alias, or
 * an anchor before an inline value or before a node on the next lines. */
static bool kw_yaml_fast_inline_value(kw_yaml_fast *y, int parent, bool after_key) {
    char c = *y->p;
    bool ok;
    if (c == '*')
        return kw_yaml_fast_alias(y, false) && kw_yaml_fast_line_end(y);
    if (c == '&') {
        unsigned a;
        size_t start = y->d->n;
        if (!kw_yaml_fast_anchor_prop(y, false, &a))
            return false;
        if (kw_yaml_fast_eol(y)) {
            kw_yaml_fast_next_line(y);
            ok = kw_yaml_fast_value_below(y, parent, after_key);
        } else {
            ok = *y->p != '&' && *y->p != '*' && kw_yaml_fast_inline_value(y, parent, after_key);
        }
        return kw_yaml_fast_anchored(y, ok, start, a);
    }
    if (c == '|')
        return kw_yaml_fast_literal(y, parent);
    if (c == '{' || c == '[')
        ok = kw_yaml_fast_flow_node(y);
    else if (c == '"')
        ok = kw_yaml_fast_double(y);
    else if (c == '\'')
        ok = kw_yaml_fast_single(y);
    else if (kw_yaml_fast_plain_start(y, y->p, false))
        ok = kw_yaml_fast_plain(y, false);
    else
        return false;
    return ok && kw_yaml_fast_line_end(y);
}

/* After "key:" or "-" with nothing more on the line: the value is a block
 * node on the next lines, deeper than col (or, after a key, a sequence at
 * col itself), else null. */
static bool kw_yaml_fast_value_below(kw_yaml_fast *y, int col, bool after_key) {
    kw_yaml_fast_skip_blank(y);
    int ind = kw_yaml_fast_indent(y);
    const char *q = y->bol + ind;
    if (y->bol < y->end && ind > col)
        return kw_yaml_fast_block_node(y, ind, false);
    if (y->bol < y->end && after_key && ind == col && kw_yaml_fast_is_dash(y, q))
        return kw_yaml_fast_block_node(y, ind, true); /* an indentless sequence */
    return kw_yaml_fast_scalar(y, YAML_PLAIN_SCALAR_STYLE, "", 0);
}

/* After an entry of a block collection at column col: skip blank lines and
 * say whether the next line is another entry at col (1, p at its first
 * character), the collection's end (0), or outside the subset (-1: deeper
 * indented). */
static int kw_yaml_fast_next_entry(kw_yaml_fast *y, int col, const char **q) {
    kw_yaml_fast_skip_blank(y);
    if (y->bol == y->end)
        return 0;
    int ind = kw_yaml_fast_indent(y);
    if (ind > col)
        return -1; /* a continuation line or a stray indent */
    if (ind < col)
        return 0;
    *q = y->bol + ind;
    return 1;
}

static bool kw_yaml_fast_block_map(kw_yaml_fast *y, int col);
static bool kw_yaml_fast_block_seq(kw_yaml_fast *y, int col, bool indentless);

/* A key scalar at p, quoted or plain. */
static bool kw_yaml_fast_key(kw_yaml_fast *y) {
    if (*y->p == '"')
        return kw_yaml_fast_double(y);
    if (*y->p == '\'')
        return kw_yaml_fast_single(y);
    return kw_yaml_fast_plain_start(y, y->p, false) && kw_yaml_fast_plain(y, false);
}

/* An explicit entry of the block mapping at column col, p at its "? ": a key
 * scalar alone on its line, then ":" at col with the value after it (inline,
 * a compact mapping or sequence, or a node on the next lines). Any other
 * shape (a key on the next lines, no ":" line: a null value) is declined. */
static bool kw_yaml_fast_explicit_entry(kw_yaml_fast *y, int col) {
    if (++y->depth > KW_YAML_FAST_MAXDEPTH)
        return false;
    y->p += 2;
    kw_yaml_fast_spaces(y);
    bool ok = !kw_yaml_fast_eol(y) && kw_yaml_fast_key(y) && kw_yaml_fast_line_end(y) &&
              y->bol < y->end && kw_yaml_fast_indent(y) == col && y->bol[col] == ':';
    if (ok) {
        y->p = y->bol + col + 1;
        ok = kw_yaml_fast_eol(y) || *y->p == ' ';
    }
    if (ok) {
        kw_yaml_fast_spaces(y);
        int icol = (int)(y->p - y->bol);
        if (kw_yaml_fast_eol(y)) {
            kw_yaml_fast_next_line(y);
            ok = kw_yaml_fast_value_below(y, col, true);
        } else if (kw_yaml_fast_is_dash(y, y->p)) {
            ok = kw_yaml_fast_block_seq(y, icol, false);
        } else if (kw_yaml_fast_is_entry(y, y->p)) {
            ok = kw_yaml_fast_block_map(y, icol);
        } else {
            ok = kw_yaml_fast_inline_value(y, col, true);
        }
    }
    y->depth--;
    return ok;
}

/* A block mapping whose first key is at p, column col. */
static bool kw_yaml_fast_block_map(kw_yaml_fast *y, int col) {
    if (!kw_yaml_fast_event_add(y, YAML_MAPPING_START_EVENT, YAML_BLOCK_MAPPING_STYLE))
        return false;
    for (;;) {
        if (kw_yaml_fast_is_explicit(y, y->p)) {
            if (!kw_yaml_fast_explicit_entry(y, col))
                return false;
        } else {
            if (!kw_yaml_fast_is_key(y, y->p) || !kw_yaml_fast_key(y) || y->p == y->end ||
                *y->p != ':')
                return false;
            y->p++;
            kw_yaml_fast_spaces(y);
            if (kw_yaml_fast_eol(y)) {
                kw_yaml_fast_next_line(y);
                if (!kw_yaml_fast_value_below(y, col, true))
                    return false;
            } else if (!kw_yaml_fast_inline_value(y, col, true)) {
                return false;
            }
        }
        const char *q = NULL;
        int next = kw_yaml_fast_next_entry(y, col, &q);
        if (next < 0)
            return false;
        if (!next || kw_yaml_fast_is_dash(y, q) || (col == 0 && kw_yaml_fast_is_doc_marker(y, q)))
            break;
        y->p = q;
    }
    return kw_yaml_fast_event_add(y, YAML_MAPPING_END_EVENT, 0);
}

/* A block sequence whose first "-" is at p, column col; indentless: it is the
 * value of a key at the same column. */
static bool kw_yaml_fast_block_seq(kw_yaml_fast *y, int col, bool indentless) {
    if (!kw_yaml_fast_event_add(y, YAML_SEQUENCE_START_EVENT, YAML_BLOCK_SEQUENCE_STYLE))
        return false;
    for (;;) {
        y->p++; /* the '-' */
        kw_yaml_fast_spaces(y);
        if (kw_yaml_fast_eol(y)) {
            kw_yaml_fast_next_line(y);
            if (!kw_yaml_fast_value_below(y, col, false))
                return false;
        } else {
            int icol = (int)(y->p - y->bol);
            if (kw_yaml_fast_is_dash(y, y->p))
                return false; /* "- - x": a compact nested sequence */
            if (kw_yaml_fast_is_entry(y, y->p)) {
                if (!kw_yaml_fast_block_map(y, icol))
                    return false;
            } else if (!kw_yaml_fast_inline_value(y, col, false)) {
                return false;
            }
        }
        const char *q = NULL;
        int next = kw_yaml_fast_next_entry(y, col, &q);
        if (next < 0)
            return false;
        if (!next)
            break;
        if (!kw_yaml_fast_is_dash(y, q)) {
            if (indentless)
                break; /* the owning mapping's next key */
            return false;
        }
        y->p = q;
    }
    return kw_yaml_fast_event_add(y, YAML_SEQUENCE_END_EVENT, 0);
}

/* A block node starting at column col of the current line; indentless: a
 * sequence there is the value of a key at the same column. */
static bool kw_yaml_fast_block_node(kw_yaml_fast *y, int col, bool indentless) {
    if (++y->depth > KW_YAML_FAST_MAXDEPTH)
        return false;
    y->p = y->bol + col;
    bool ok;
    if (kw_yaml_fast_is_dash(y, y->p))
        ok = kw_yaml_fast_block_seq(y, col, indentless);
    else
        ok = !indentless && kw_yaml_fast_is_entry(y, y->p) && kw_yaml_fast_block_map(y, col);
    y->depth--;
    return ok;
}

/* ---- Document ------------------------------------------------------------------------------- */

/* Room for the events and values of a text of len bytes, taken once: a value
 * is at most as long as its own text (an escape is longer than what it
 * stands for), and kwalk's YAML has an event for every 10 bytes or more; the
 * arrays still grow when a text has more. */
static bool kw_yaml_fast_presize(kw_yaml_fast_doc *d, size_t len) {
    size_t events = len / 8 + 256;
    if (d->cap < events && events < SIZE_MAX / sizeof(*d->ev)) {
        kw_yaml_fast_event *ev = realloc(d->ev, events * sizeof(*ev));
        if (!ev)
            return false;
        d->ev = ev;
        d->cap = events;
    }
    return len < SIZE_MAX / 2 && kw_yaml_fast_vals_reserve(d, len + len / 4);
}

/* Each sequence start's len: how many items (nodes one level down) it holds.
 * A nesting deeper than the reader allows is not counted. */
static void kw_yaml_fast_count_items(kw_yaml_fast_doc *d) {
    size_t open[KW_YAML_FAST_MAXDEPTH + 8];
    size_t depth = 0;
    for (size_t i = 0; i < d->n; i++) {
        int type = d->ev[i].type;
        bool node = type == YAML_SCALAR_EVENT || type == YAML_ALIAS_EVENT ||
                    type == YAML_MAPPING_START_EVENT || type == YAML_SEQUENCE_START_EVENT;
        if (node && depth && depth <= KW_YAML_FAST_MAXDEPTH + 8 &&
            d->ev[open[depth - 1]].type == YAML_SEQUENCE_START_EVENT)
            d->ev[open[depth - 1]].len++;
        if (type == YAML_MAPPING_START_EVENT || type == YAML_SEQUENCE_START_EVENT) {
            if (depth < KW_YAML_FAST_MAXDEPTH + 8)
                open[depth] = i;
            depth++;
        } else if ((type == YAML_MAPPING_END_EVENT || type == YAML_SEQUENCE_END_EVENT) && depth) {
            depth--;
        }
    }
}

bool kw_yaml_fast_parse(kw_yaml_fast_doc *d, const char *text, size_t len) {
    kw_yaml_fast y = {text, text + len, text, 0, 0, d};
    d->n = d->vlen = d->nanchors = 0;
    kw_htab_clear(&d->names);
    bool ok = kw_yaml_fast_presize(d, len) &&
              kw_yaml_fast_event_add(&y, YAML_STREAM_START_EVENT, 0) &&
              kw_yaml_fast_event_add(&y, YAML_DOCUMENT_START_EVENT, 0);
    if (ok) {
        kw_yaml_fast_skip_blank(&y);
        ok = y.bol < y.end && kw_yaml_fast_indent(&y) == 0 && kw_yaml_fast_is_entry(&y, y.bol) &&
             kw_yaml_fast_block_map(&y, 0);
    }
    int implicit = 1;
    if (ok) {
        kw_yaml_fast_skip_blank(&y);
        if (y.bol < y.end) {
            ok = y.end - y.bol >= 3 && memcmp(y.bol, "...", 3) == 0;
            if (ok) {
                implicit = 0;
                y.p = y.bol + 3;
                ok = kw_yaml_fast_line_end(&y);
                kw_yaml_fast_skip_blank(&y);
                ok = ok && y.bol == y.end;
            }
        }
    }
    ok = ok && kw_yaml_fast_event_add(&y, YAML_DOCUMENT_END_EVENT, implicit) &&
         kw_yaml_fast_event_add(&y, YAML_STREAM_END_EVENT, 0);
    if (!ok) {
        d->n = d->vlen = d->nanchors = 0;
        kw_htab_clear(&d->names);
    } else {
        kw_yaml_fast_count_items(d);
    }
    return ok;
}
