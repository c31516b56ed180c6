/* kw_diff_write.c: the writers of `kwalk diff` (kw_diff_write.h): the
 * Markdown table (a summary line, then | | change | instantiation | arch |
 * old | new | launch sites | entry points |) and the JSON document. */
#include "render/kw_diff_write.h"

#include <string.h>

static const char *kw_diff_dir_name(kw_diff_dir d) {
    return d == KW_DIFF_WORSE ? "regression" : d == KW_DIFF_BETTER ? "improvement" : "change";
}

/* Text for a table cell: '|' escaped (also inside a code span), line feeds as spaces. */
static void kw_diff_md_cell(kw_buf *b, const char *s) {
    for (; s && *s; s++) {
        if (*s == '|')
            kw_buf_puts(b, "\\|");
        else if (*s == '\n' || *s == '\r')
            kw_buf_putc(b, ' ');
        else
            kw_buf_putc(b, *s);
    }
}

/* A name as a code span, with a fence longer than any run of backticks in it. */
static void kw_diff_md_code(kw_buf *b, const char *s) {
    size_t run = 0, most = 0;
    for (const char *p = s; *p; p++) {
        run = *p == '`' ? run + 1 : 0;
        most = run > most ? run : most;
    }
    for (size_t i = 0; i <= most; i++)
        kw_buf_putc(b, '`');
    kw_buf_puts(b, most ? " " : "");
    kw_diff_md_cell(b, s);
    kw_buf_puts(b, most ? " " : "");
    for (size_t i = 0; i <= most; i++)
        kw_buf_putc(b, '`');
}

/* One side's value: the number, with the limiter for occupancy; "-" when none. */
static void kw_diff_md_value(kw_buf *b, const kw_diff_row *r, bool newer) {
    long long v = newer ? r->new_value : r->old_value;
    const char *t = newer ? r->new_text : r->old_text;
    if (r->kind == KW_DIFF_ADDED || r->kind == KW_DIFF_REMOVED) {
        kw_buf_puts(b, (r->kind == KW_DIFF_ADDED) == newer ? "present" : "-");
        return;
    }
    if (r->kind == KW_DIFF_ISA) {
        kw_buf_puts(b, newer ? "changed" : "");
        return;
    }
    if (v >= 0)
        kw_buf_int(b, v);
    if (t)
        kw_buf_printf(b, v >= 0 ? " (%s)" : "%s", t);
    if (v < 0 && !t)
        kw_buf_putc(b, '-');
}

/* An entry point as `kwalk list` names it: kind:module.name. */
static const char *kw_diff_entry_name(const kw_entry *e) {
    return e->name ? e->name : e->function ? e->function : e->function_symbol;
}

/* A lines row's range: file:first or file:first-last. */
static void kw_diff_md_range(kw_buf *b, const kw_diff_row *r) {
    kw_diff_md_cell(b, r->src.file);
    kw_buf_printf(b, ":%d", r->src.line);
    if (r->src_last != r->src.line)
        kw_buf_printf(b, "-%d", r->src_last);
}

static void kw_diff_md_row(kw_buf *b, const kw_diff_row *r) {
    kw_buf_printf(b, "| %s | %s%s", kw_diff_dir_name(r->dir),
                  r->kind == KW_DIFF_CLASS    ? "class "
                  : r->kind == KW_DIFF_OPTION ? "option "
                                              : "",
                  r->field);
    if (r->kind == KW_DIFF_LINES) {
        kw_buf_putc(b, ' ');
        kw_diff_md_range(b, r);
    }
    kw_buf_puts(b, " | ");
    kw_diff_md_code(b, r->name);
    if (r->tu) {
        kw_buf_puts(b, " (");
        kw_diff_md_cell(b, r->tu);
        kw_buf_putc(b, ')');
    }
    kw_buf_puts(b, " | ");
    kw_diff_md_cell(b, r->arch ? r->arch : "all");
    kw_buf_puts(b, " | ");
    kw_diff_md_value(b, r, false);
    kw_buf_puts(b, " | ");
    kw_diff_md_value(b, r, true);
    kw_buf_puts(b, " | ");
    for (size_t i = 0; i < r->launches.n; i++) {
        kw_buf_puts(b, i ? ", " : "");
        kw_diff_md_cell(b, r->launches.v[i].file);
        kw_buf_printf(b, ":%d", r->launches.v[i].line);
    }
    kw_buf_puts(b, " | ");
    for (size_t i = 0; i < r->entries.n; i++) {
        const kw_entry *e = r->entries.v[i];
        kw_buf_puts(b, i ? ", " : "");
        kw_diff_md_cell(b, e->kind ? e->kind : "entry");
        kw_buf_putc(b, ':');
        if (e->module) {
            kw_diff_md_cell(b, e->module);
            kw_buf_putc(b, '.');
        }
        kw_diff_md_cell(b, kw_diff_entry_name(e));
    }
    kw_buf_puts(b, " |\n");
}

void kw_diff_write_md(const kw_diff *d, const char *old_name, const char *new_name, kw_buf *out) {
    if (!d->rows.n)
        return;
    size_t n[3] = {0, 0, 0}, added = 0, removed = 0;
    for (size_t i = 0; i < d->rows.n; i++) {
        const kw_diff_row *r = &d->rows.v[i];
        n[r->dir]++;
        added += r->kind == KW_DIFF_ADDED && !r->arch;
        removed += r->kind == KW_DIFF_REMOVED && !r->arch;
    }
    kw_buf_puts(out, "### kwalk diff: ");
    kw_diff_md_cell(out, old_name);
    kw_buf_puts(out, " -> ");
    kw_diff_md_cell(out, new_name);
    kw_buf_printf(out,
                  "\n\n%zu regressions, %zu improvements, %zu other changes; %zu instantiations "
                  "added, %zu removed, %zu in both\n\n",
                  n[KW_DIFF_WORSE], n[KW_DIFF_BETTER], n[KW_DIFF_CHANGE], added, removed,
                  d->compared);
    kw_buf_puts(out,
                "| | change | instantiation | arch | old | new | launch sites | entry points |\n"
                "|---|---|---|---|---:|---:|---|---|\n");
    for (size_t i = 0; i < d->rows.n; i++)
        kw_diff_md_row(out, &d->rows.v[i]);
}

static json_t *kw_diff_json_num(long long v) {
    return v >= 0 ? json_integer(v) : json_null();
}

static json_t *kw_diff_json_row(const kw_diff_row *r, bool *oom) {
    json_t *o = json_object(), *launches = json_array(), *entries = json_array();
    if (!o || !launches || !entries) {
        json_decref(launches);
        json_decref(entries);
        *oom = true;
        return o;
    }
    kw_jansson_set(o, "kind", json_string(kw_diff_kind_name(r->kind)), oom);
    kw_jansson_set(o, "direction", json_string(kw_diff_dir_name(r->dir)), oom);
    kw_jansson_set(o, "field", kw_jansson_text(r->field), oom);
    kw_jansson_set(o, "name", kw_jansson_text(r->name), oom);
    kw_jansson_set(o, "symbol", kw_jansson_text(r->symbol), oom);
    kw_jansson_set(o, "tu", kw_jansson_text(r->tu), oom);
    kw_jansson_set(o, "arch", kw_jansson_text(r->arch), oom);
    if (r->kind == KW_DIFF_OPTION) { /* the values as NAME.json writes them */
        kw_jansson_set(o, "old", kw_jansson_text(r->old_text), oom);
        kw_jansson_set(o, "new", kw_jansson_text(r->new_text), oom);
    } else {
        kw_jansson_set(o, "old", kw_diff_json_num(r->old_value), oom);
        kw_jansson_set(o, "new", kw_diff_json_num(r->new_value), oom);
    }
    if (r->kind == KW_DIFF_OCCUPANCY || r->kind == KW_DIFF_LIMITER) {
        kw_jansson_set(o, "old_limiter", kw_jansson_text(r->old_text), oom);
        kw_jansson_set(o, "new_limiter", kw_jansson_text(r->new_text), oom);
    }
    for (size_t i = 0; i < r->launches.n; i++)
        kw_jansson_push(launches,
                        json_pack("{s:o, s:I}", "file", kw_jansson_text(r->launches.v[i].file),
                                  "line", (json_int_t)r->launches.v[i].line),
                        oom);
    kw_jansson_set(o, "launches", launches, oom);
    for (size_t i = 0; i < r->entries.n; i++) {
        const kw_entry *e = r->entries.v[i];
        const kw_loc *at = &e->location;
        kw_jansson_push(entries,
                        json_pack("{s:o, s:o, s:o, s:o, s:o}", "kind", kw_jansson_text(e->kind),
                                  "module", kw_jansson_text(e->module), "name",
                                  kw_jansson_text(kw_diff_entry_name(e)), "file",
                                  kw_jansson_text(at->file), "line",
                                  at->file ? json_integer(at->line) : json_null()),
                        oom);
    }
    kw_jansson_set(o, "entries", entries, oom);
    if (r->kind == KW_DIFF_LINES) {
        kw_jansson_set(o, "file", kw_jansson_text(r->src.file), oom);
        kw_jansson_set(o, "first", json_integer(r->src.line), oom);
        kw_jansson_set(o, "last", json_integer(r->src_last), oom);
    }
    return o;
}

json_t *kw_diff_json(const kw_diff *d, const char *old_name, const char *new_name,
                     const bool *failed, bool *oom_out) {
    bool oom = false;
    json_t *doc = json_object(), *rows = json_array(), *fails = json_array();
    if (!doc || !rows || !fails)
        oom = true;
    for (size_t i = 0; i < d->rows.n && !oom; i++)
        kw_jansson_push(rows, kw_diff_json_row(&d->rows.v[i], &oom), &oom);
    for (int k = 0; failed && k < KW_DIFF_NKINDS && !oom; k++)
        if (failed[k])
            kw_jansson_push(fails, json_string(kw_diff_kind_name((kw_diff_kind)k)), &oom);
    if (doc) {
        kw_jansson_set(doc, "kwalk_diff", json_integer(1), &oom);
        kw_jansson_set(doc, "old", kw_jansson_text(old_name), &oom);
        kw_jansson_set(doc, "new", kw_jansson_text(new_name), &oom);
        kw_jansson_set(doc, "compared", json_integer((json_int_t)d->compared), &oom);
        kw_jansson_set(doc, "failed", fails, &oom);
        kw_jansson_set(doc, "changes", rows, &oom);
    } else {
        json_decref(rows);
        json_decref(fails);
    }
    *oom_out = oom;
    return doc;
}
