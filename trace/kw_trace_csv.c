/* kw_trace_csv.c: reading a rocprofv3 kernel trace in its CSV form
 * (kw_trace.h), and reading a trace file of any form, told by its content. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/kw_buf.h"
#include "common/kw_fs.h"
#include "trace/kw_trace.h"

void kw_trace_init(kw_trace *t) {
    memset(t, 0, sizeof(*t));
    kw_arena_init(&t->arena);
}

void kw_trace_free(kw_trace *t) {
    kw_arena_free(&t->arena);
    memset(t, 0, sizeof(*t));
}

bool kw_trace_is_rocpd(const char *path) {
    char head[16];
    size_t got;
    kw_err err;
    return kw_fs_head(path, KW_FS_DATA, head, sizeof head, &got, &err) == KW_OK &&
           got == sizeof head && !memcmp(head, "SQLite format 3", sizeof head);
}

kw_status kw_trace_read_file(kw_trace *t, const char *path, const char *index_db, kw_err *err) {
    char head[16];
    size_t got;
    if (kw_fs_head(path, KW_FS_DATA, head, sizeof head, &got, err) != KW_OK)
        return KW_ERR;
    if (got == sizeof head && !memcmp(head, "SQLite format 3", sizeof head))
        return kw_trace_read_rocpd(t, path, index_db, err);
    char *text;
    size_t len;
    if (kw_fs_read(path, &text, &len, err) != KW_OK)
        return KW_ERR;
    if (memchr(text, '\0', len)) {
        free(text);
        return kw_fail(err, "%s: a binary file, not a rocprofv3 kernel trace (CSV or JSON)", path);
    }
    size_t i = 0;
    if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3))
        i = 3;
    while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r' || text[i] == '\n'))
        i++;
    kw_status st;
    if (i < len && (text[i] == '{' || text[i] == '['))
        st = kw_trace_parse_json(t, path, text, len, err);
    else
        st = kw_trace_parse_csv(t, path, text, len, err);
    free(text);
    return st;
}

/* Input text for a message: at most 40 bytes, non-printable bytes as \xNN,
 * so that the message stays one line of plain text. */
static const char *kw_show(const char *text, char *buf, size_t n) {
    size_t o = 0, i = 0;
    for (; text[i] && i < 40 && o + 5 < n; i++) {
        unsigned char ch = (unsigned char)text[i];
        if (ch < 0x20 || ch == 0x7f)
            o += (size_t)snprintf(buf + o, n - o, "\\x%02x", ch);
        else
            buf[o++] = (char)ch;
    }
    if (text[i] && o + 4 < n) {
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    buf[o] = '\0';
    return buf;
}

/* ---- CSV records ---- */

typedef struct kw_csv {
    const char *name;
    const char *p, *end;
    long line;     /* line of the next byte */
    long rec_line; /* line where the current record starts */
    kw_buf rec;    /* the current record's fields, each NUL-terminated */
    size_t *off;   /* start of field i in rec */
    const char **fields;
    size_t n, cap; /* fields in the current record, room in off/fields */
} kw_csv;

static bool kw_csv_push(kw_csv *c) {
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 32;
        size_t *off = realloc(c->off, cap * sizeof *off);
        if (!off)
            return false;
        c->off = off;
        const char **fields = realloc(c->fields, cap * sizeof *fields);
        if (!fields)
            return false;
        c->fields = fields;
        c->cap = cap;
    }
    c->off[c->n++] = c->rec.len;
    return true;
}

/* Read one record into c->fields. Returns 1 when a record was read, 0 at the
 * end of the text, -1 on error. Blank lines are skipped. */
static int kw_csv_record(kw_csv *c, kw_err *err) {
    while (c->p < c->end && (*c->p == '\n' || *c->p == '\r')) {
        if (*c->p == '\n')
            c->line++;
        c->p++;
    }
    if (c->p >= c->end)
        return 0;
    c->rec_line = c->line;
    kw_buf_reset(&c->rec);
    c->n = 0;
    for (;;) {
        if (!kw_csv_push(c)) {
            kw_fail(err, "%s: out of memory", c->name);
            return -1;
        }
        if (c->p < c->end && *c->p == '"') {
            long qline = c->line;
            c->p++;
            for (;;) {
                if (c->p >= c->end) {
                    kw_fail(err, "%s: line %ld: unterminated quoted field", c->name, qline);
                    return -1;
                }
                char ch = *c->p++;
                if (ch == '"') {
                    if (c->p < c->end && *c->p == '"') {
                        kw_buf_putc(&c->rec, '"');
                        c->p++;
                        continue;
                    }
                    break;
                }
                if (ch == '\n')
                    c->line++;
                kw_buf_putc(&c->rec, ch);
            }
            if (c->p < c->end && *c->p != ',' && *c->p != '\n' && *c->p != '\r') {
                char ch[2] = {*c->p, '\0'}, shown[16];
                kw_fail(err, "%s: line %ld: unexpected '%s' after a closing quote", c->name,
                        c->line, kw_show(ch, shown, sizeof shown));
                return -1;
            }
        } else {
            const char *s = c->p;
            while (c->p < c->end && *c->p != ',' && *c->p != '\n' && *c->p != '\r') {
                if (*c->p == '"') {
                    kw_fail(err, "%s: line %ld: a quote inside an unquoted field", c->name,
                            c->line);
                    return -1;
                }
                c->p++;
            }
            kw_buf_append(&c->rec, s, (size_t)(c->p - s));
        }
        kw_buf_putc(&c->rec, '\0');
        if (c->rec.oom) {
            kw_fail(err, "%s: out of memory", c->name);
            return -1;
        }
        if (c->p < c->end && *c->p == ',') {
            c->p++;
            continue;
        }
        /* end of record: \n, \r\n, lone \r, or the end of the text */
        if (c->p < c->end && *c->p == '\r')
            c->p++;
        if (c->p < c->end && *c->p == '\n') {
            c->p++;
            c->line++;
        }
        for (size_t i = 0; i < c->n; i++)
            c->fields[i] = c->rec.ptr + c->off[i];
        return 1;
    }
}

/* The columns kwalk reads. */
enum {
    KW_COL_NAME,
    KW_COL_START,
    KW_COL_END,
    KW_COL_KIND,
    KW_COL_WG_X,
    KW_COL_WG_Y,
    KW_COL_WG_Z,
    KW_COL_GRID_X,
    KW_COL_GRID_Y,
    KW_COL_GRID_Z,
    KW_NCOLS
};
static const char *const kw_col_names[KW_NCOLS] = {
    "Kernel_Name",      "Start_Timestamp",  "End_Timestamp",    "Kind",        "Workgroup_Size_X",
    "Workgroup_Size_Y", "Workgroup_Size_Z", "Grid_Size_X",      "Grid_Size_Y", "Grid_Size_Z"};

static char *kw_trim(char *s) {
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        s[--n] = '\0';
    return s;
}

static kw_status kw_csv_int(kw_csv *c, const char *col, const char *text, bool nonneg,
                            long long *out, kw_err *err) {
    char buf[64];
    size_t n = strlen(text);
    if (n >= sizeof buf)
        n = sizeof buf - 1;
    memcpy(buf, text, n);
    buf[n] = '\0';
    char *s = kw_trim(buf), *e;
    errno = 0;
    long long v = *s ? strtoll(s, &e, 10) : 0;
    if (!*s || *e || errno == ERANGE || (nonneg && v < 0))
    {
        char shown[200];
        return kw_fail(err, "%s: line %ld: %s: expected %s integer, got \"%s\"", c->name,
                       c->rec_line, col, nonneg ? "a non-negative" : "an",
                       kw_show(text, shown, sizeof shown));
    }
    *out = v;
    return KW_OK;
}

kw_status kw_trace_parse_csv(kw_trace *t, const char *name, const char *text, size_t len,
                             kw_err *err) {
    kw_csv c;
    memset(&c, 0, sizeof c);
    c.name = name;
    c.p = text;
    c.end = text + len;
    c.line = 1;
    kw_buf_init(&c.rec);
    if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3))
        c.p += 3;
    t->path = kw_arena_strdup(&t->arena, name);
    t->format = "csv";
    kw_status st = KW_ERR;
    int col[KW_NCOLS];
    for (int i = 0; i < KW_NCOLS; i++)
        col[i] = -1;
    size_t ncols;

    int r = kw_csv_record(&c, err);
    if (r < 0)
        goto out;
    if (r == 0) {
        kw_fail(err, "%s: empty file (a rocprofv3 kernel trace starts with a header line)", name);
        goto out;
    }
    ncols = c.n;
    for (size_t i = 0; i < ncols; i++) {
        char *h = kw_trim((char *)c.fields[i]);
        for (int k = 0; k < KW_NCOLS; k++)
            if (!strcmp(h, kw_col_names[k]) && col[k] < 0)
                col[k] = (int)i;
    }
    for (int k = KW_COL_NAME; k <= KW_COL_END; k++)
        if (col[k] < 0) {
            kw_fail(err, "%s: line %ld: no %s column (not a rocprofv3 kernel trace? it is written "
                         "by 'rocprofv3 --kernel-trace')",
                    name, c.rec_line, kw_col_names[k]);
            goto out;
        }
    bool have_config = true;
    for (int k = KW_COL_WG_X; k <= KW_COL_GRID_Z; k++)
        have_config &= col[k] >= 0;

    while ((r = kw_csv_record(&c, err)) > 0) {
        if (c.n != ncols) {
            kw_fail(err, "%s: line %ld: %zu fields, the header has %zu", name, c.rec_line, c.n,
                    ncols);
            goto out;
        }
        const char *const *f = c.fields;
        if (col[KW_COL_KIND] >= 0 && f[col[KW_COL_KIND]][0] &&
            strcmp(f[col[KW_COL_KIND]], "KERNEL_DISPATCH") != 0) {
            t->skipped++;
            continue;
        }
        kw_dispatch *d = KW_PUSH(&t->arena, t->d);
        if (!d) {
            kw_fail(err, "%s: out of memory", name);
            goto out;
        }
        d->line = c.rec_line;
        const char *kname = f[col[KW_COL_NAME]];
        if (!kname[0]) {
            kw_fail(err, "%s: line %ld: empty Kernel_Name", name, c.rec_line);
            goto out;
        }
        d->name = kw_arena_strdup(&t->arena, kname);
        if (!d->name) {
            kw_fail(err, "%s: out of memory", name);
            goto out;
        }
        if (kw_csv_int(&c, "Start_Timestamp", f[col[KW_COL_START]], true, &d->start_ns, err) ||
            kw_csv_int(&c, "End_Timestamp", f[col[KW_COL_END]], true, &d->end_ns, err))
            goto out;
        if (d->end_ns < d->start_ns) {
            kw_fail(err, "%s: line %ld: End_Timestamp %lld is before Start_Timestamp %lld", name,
                    c.rec_line, d->end_ns, d->start_ns);
            goto out;
        }
        if (have_config) {
            for (int k = 0; k < 3; k++) {
                if (kw_csv_int(&c, kw_col_names[KW_COL_WG_X + k], f[col[KW_COL_WG_X + k]], true,
                               &d->block[k], err) ||
                    kw_csv_int(&c, kw_col_names[KW_COL_GRID_X + k], f[col[KW_COL_GRID_X + k]],
                               true, &d->grid[k], err))
                    goto out;
                if (d->block[k] == 0) {
                    kw_fail(err, "%s: line %ld: %s is 0 (a workgroup has at least one work item)",
                            name, c.rec_line, kw_col_names[KW_COL_WG_X + k]);
                    goto out;
                }
            }
            d->has_config = true;
        }
    }
    if (r < 0)
        goto out;
    st = KW_OK;
out:
    kw_buf_free(&c.rec);
    free(c.off);
    free(c.fields);
    return st;
}
