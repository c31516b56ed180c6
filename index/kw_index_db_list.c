/* kw_index_db_list.c: a list of strings or integers of a record (an
 * access's depends_on, a group's members, a unit's offload archs) stored as
 * one column of the record's row since index version 6: the JSON array text
 * of its values, a string of `strings` like any other (equal lists are one
 * row), NULL for an empty list. This file writes and reads that text, and
 * makes the view that gives a list's values as rows, under the name its
 * table of one row per value had before (docs/index-schema.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index/kw_index_db.h"

bool kw_db_list_field(const kw_field *f) {
    return f->kind == KW_F_STRS || f->kind == KW_F_INTS;
}

bool kw_db_list_unshown(const kw_field *f) {
    return f->kind == KW_F_STRS && !strcmp(f->key, "depends_on");
}

/* s as a JSON string: '"' and '\' escaped, control characters as \u00XX,
 * every other byte as it is. */
static void kw_list_put_str(kw_buf *b, const char *s) {
    kw_buf_putc(b, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') {
            kw_buf_putc(b, '\\');
            kw_buf_putc(b, (char)*p);
        } else if (*p < 0x20) {
            kw_buf_printf(b, "\\u%04x", *p);
        } else {
            kw_buf_putc(b, (char)*p);
        }
    }
    kw_buf_putc(b, '"');
}

void kw_db_list_json(kw_buf *b, const kw_field *f, const kw_anyarr *arr) {
    kw_buf_putc(b, '[');
    for (size_t i = 0; i < arr->n; i++) {
        if (i)
            kw_buf_putc(b, ',');
        if (f->kind == KW_F_STRS)
            kw_list_put_str(b, ((const char *const *)arr->v)[i]);
        else
            kw_buf_int(b, ((const long long *)arr->v)[i]);
    }
    kw_buf_putc(b, ']');
}

static int kw_list_hex(char c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* The JSON string at *p (as kw_list_put_str writes it) into a; *p past it. */
static const char *kw_list_get_str(const char **p, kw_arena *a) {
    const char *s = *p + 1, *e = s;
    size_t n = 0;
    for (; *e && *e != '"'; e++, n++)
        if (*e == '\\' && (e[1] == '"' || e[1] == '\\'))
            e++;
        else if (*e == '\\' && e[1] == 'u' && kw_list_hex(e[2]) >= 0 && kw_list_hex(e[3]) >= 0 &&
                 kw_list_hex(e[4]) >= 0 && kw_list_hex(e[5]) >= 0)
            e += 5;
        else if (*e == '\\')
            return NULL;
    if (*e != '"')
        return NULL;
    char *out = kw_arena_alloc(a, n + 1), *q = out;
    if (!out)
        return NULL;
    for (const char *c = s; c < e; c++) {
        if (*c != '\\') {
            *q++ = *c;
        } else if (c[1] != 'u') {
            *q++ = *++c;
        } else {
            int h[4] = {kw_list_hex(c[2]), kw_list_hex(c[3]), kw_list_hex(c[4]), kw_list_hex(c[5])};
            int v = h[0] << 12 | h[1] << 8 | h[2] << 4 | h[3];
            if (h[0] || h[1] || h[2] < 0 || h[3] < 0 || v == 0 || v >= 0x20)
                return NULL; /* only a control character is written so */
            *q++ = (char)v;
            c += 5;
        }
    }
    *q = '\0';
    *p = e + 1;
    return out;
}

/* The integer at *p (as kw_buf_int writes it); *p past it. */
static bool kw_list_get_int(const char **p, long long *v) {
    const char *s = *p;
    char *end = NULL;
    if (!(*s == '-' || (*s >= '0' && *s <= '9')))
        return false;
    *v = strtoll(s, &end, 10);
    *p = end;
    return end != s;
}

const char *kw_db_list_parse(const char *s, const kw_field *f, kw_arena *a, kw_anyarr *out) {
    static const char bad[] = "a damaged list";
    memset(out, 0, sizeof *out);
    if (*s != '[')
        return bad;
    size_t n = 0; /* elements: one more than the commas outside strings */
    bool in = false;
    for (const char *c = s + 1; *c; c++)
        if (in && *c == '\\' && c[1])
            c++;
        else if (*c == '"')
            in = !in;
        else if (!in && *c == ',')
            n++;
    if (s[1] != ']')
        n++;
    size_t esize = f->kind == KW_F_STRS ? sizeof(const char *) : sizeof(long long);
    unsigned char *v = n ? kw_arena_alloc(a, n * esize) : NULL;
    if (n && !v)
        return "out of memory";
    const char *p = s + 1;
    for (size_t i = 0; i < n; i++) {
        if (i && *p++ != ',')
            return bad;
        if (f->kind == KW_F_STRS) {
            const char *str = *p == '"' ? kw_list_get_str(&p, a) : NULL;
            if (!str)
                return bad;
            ((const char **)v)[i] = str;
        } else if (!kw_list_get_int(&p, &((long long *)v)[i])) {
            return bad;
        }
    }
    if (*p != ']' || p[1])
        return bad;
    out->v = v;
    out->n = out->cap = n;
    return NULL;
}

/* The views of the list fields of record type t (embedded at prefix) of table tab. */
static void kw_list_views(kw_buf *b, const kw_dbtab *tab, bool root, const kw_type *t,
                          const char *prefix) {
    for (size_t i = 0; i < t->nfields; i++) {
        const kw_field *f = &t->fields[i];
        char col[128];
        snprintf(col, sizeof col, "%s%s", prefix, f->key);
        if (f->kind == KW_F_MAP) {
            char sub[132];
            snprintf(sub, sizeof sub, "%s_", col);
            kw_list_views(b, tab, root, f->sub, sub);
            continue;
        }
        if (!kw_db_list_field(f))
            continue;
        /* named as the table of one row per value was: the top level's by its key */
        if (root)
            kw_buf_printf(b, "CREATE VIEW \"%s\" AS SELECT t._id AS _sidecar, ", col);
        else
            kw_buf_printf(b, "CREATE VIEW \"%s_%s\" AS SELECT t._sidecar, ", tab->name, col);
        kw_buf_printf(b,
                      "t._id AS _parent, j.key AS _ord, j.value AS value FROM \"%s\" t, "
                      "json_each((SELECT value FROM strings WHERE _id = t.\"%s\")) j;\n",
                      tab->raw, col);
    }
}

void kw_db_list_views_sql(kw_buf *b, const kw_dbplan *pl) {
    for (int i = 0; i < pl->n; i++)
        if (pl->tabs[i].kind == KW_DB_RECORD)
            kw_list_views(b, &pl->tabs[i], i == 0, pl->tabs[i].t, "");
}
