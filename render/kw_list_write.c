/* kw_list_write.c: `kwalk list`'s rows (model/kw_list.h) as tab-separated
 * lines or as one JSON document (kw_list_write.h). */
#define _POSIX_C_SOURCE 200809L
#include "render/kw_list_write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/kw_entry.h"

/* A field value on one line: tabs and line breaks become spaces. */
static void kw_put(kw_buf *o, const char *s) {
    for (; *s; s++)
        kw_buf_putc(o, *s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s);
}

/* A field's items are kept NUL-separated in a kw_buf, without duplicates. */
static void kw_list_add(kw_buf *field, const char *s) {
    for (size_t at = 0; at < field->len; at += strlen(field->ptr + at) + 1)
        if (!strcmp(field->ptr + at, s))
            return;
    kw_buf_append(field, s, strlen(s) + 1);
}

/* Print the items comma-separated, "-" when there are none. */
static void kw_list_field(kw_buf *o, const kw_buf *field) {
    kw_buf_putc(o, '\t');
    if (!field->len)
        kw_buf_putc(o, '-');
    for (size_t at = 0; at < field->len; at += strlen(field->ptr + at) + 1) {
        if (at)
            kw_buf_putc(o, ',');
        kw_put(o, field->ptr + at);
    }
}

static void kw_list_print_row(const kw_list *l, const kw_list_row *r, kw_buf *o, kw_buf *item,
                              kw_buf *field) {
    kw_put(o, r->name);
    kw_buf_putc(o, '\t');
    kw_put(o, r->symbol);

    kw_buf_reset(field);
    for (size_t i = 0; i < r->archs.n; i++)
        kw_list_add(field, r->archs.v[i]);
    kw_list_field(o, field);

    kw_buf_reset(field);
    for (size_t i = 0; i < r->launches.n; i++) {
        const kw_loc *loc = &r->launches.v[i]->location;
        kw_buf_reset(item);
        if (loc->file)
            kw_buf_printf(item, "%s:%d", loc->file, loc->line);
        else
            kw_buf_puts(item, "?");
        kw_list_add(field, kw_buf_str(item));
    }
    kw_list_field(o, field);

    kw_buf_reset(field);
    for (size_t i = 0; i < r->entries.n; i++) {
        const kw_entry *e = l->entries.v[r->entries.v[i]];
        kw_buf_reset(item);
        kw_buf_printf(item, "%s:", e->kind ? e->kind : "entry");
        if (e->module)
            kw_buf_printf(item, "%s.", e->module);
        kw_buf_puts(item, e->name ? e->name : e->function ? e->function : e->function_symbol);
        kw_list_add(field, kw_buf_str(item));
    }
    kw_list_field(o, field);

    kw_buf_reset(field);
    if (r->tu)
        kw_list_add(field, r->tu->tu.source ? r->tu->tu.source : r->tu->sidecar);
    kw_list_field(o, field);

    const kw_triton *t = r->kernel && r->kernel->language ? r->kernel->triton : NULL;
    kw_buf_printf(o, "\t%s", r->is_asm ? "asm" : t ? "triton" : "hip");
    kw_buf_reset(field);
    for (size_t i = 0; i < r->code_objects.n; i++)
        kw_list_add(field, r->code_objects.v[i]);
    for (size_t i = 0; t && i < t->files.n; i++) { /* a Triton kernel's .hsaco */
        size_t n = strlen(t->files.v[i]);
        if (n > 6 && !strcmp(t->files.v[i] + n - 6, ".hsaco"))
            kw_list_add(field, t->files.v[i]);
    }
    kw_list_field(o, field);
    kw_buf_putc(o, '\n');
}

/* The row's archs (sorted, each once) as JSON; *oom when out of memory. */
static json_t *kw_list_json_archs(const kw_list_row *r, bool *oom) {
    json_t *a = json_array();
    if (!a)
        *oom = true;
    for (size_t i = 0; a && i < r->archs.n; i++)
        kw_jansson_push(a, kw_jansson_text(r->archs.v[i]), oom);
    return a;
}

static json_t *kw_list_json_row(const kw_list *l, const kw_list_row *r, bool *oom) {
    json_t *o = json_object(), *launches = json_array(), *entries = json_array(),
           *cos = json_array();
    if (!o || !launches || !entries || !cos) {
        json_decref(launches);
        json_decref(entries);
        json_decref(cos);
        *oom = true;
        return o;
    }
    kw_jansson_set(o, "name", kw_jansson_text(r->name), oom);
    kw_jansson_set(o, "symbol", kw_jansson_text(r->symbol), oom);
    kw_jansson_set(o, "archs", kw_list_json_archs(r, oom), oom);
    for (size_t i = 0; i < r->launches.n; i++) {
        const kw_loc *loc = &r->launches.v[i]->location;
        kw_jansson_push(launches,
                        json_pack("{s:o, s:o}", "file", kw_jansson_text(loc->file), "line",
                                  loc->file ? json_integer(loc->line) : json_null()),
                        oom);
    }
    kw_jansson_set(o, "launches", launches, oom);
    for (size_t i = 0; i < r->entries.n; i++) {
        const kw_entry *e = l->entries.v[r->entries.v[i]];
        const char *name = e->name ? e->name : e->function ? e->function : e->function_symbol;
        const kw_loc *at = &e->location;
        kw_jansson_push(entries,
                        json_pack("{s:o, s:o, s:o, s:o, s:o}", "kind", kw_jansson_text(e->kind),
                                  "module", kw_jansson_text(e->module), "name",
                                  kw_jansson_text(name), "file", kw_jansson_text(at->file), "line",
                                  at->file ? json_integer(at->line) : json_null()),
                        oom);
    }
    kw_jansson_set(o, "entries", entries, oom);
    kw_jansson_set(
        o, "tu",
        kw_jansson_text(r->tu ? r->tu->tu.source ? r->tu->tu.source : r->tu->sidecar : NULL), oom);
    const kw_triton *t = r->kernel && r->kernel->language ? r->kernel->triton : NULL;
    kw_jansson_set(o, "kind", json_string(r->is_asm ? "asm" : t ? "triton" : "hip"), oom);
    for (size_t i = 0; i < r->code_objects.n; i++)
        kw_jansson_push(cos, kw_jansson_text(r->code_objects.v[i]), oom);
    for (size_t i = 0; t && i < t->files.n; i++) {
        size_t n = strlen(t->files.v[i]);
        if (n > 6 && !strcmp(t->files.v[i] + n - 6, ".hsaco"))
            kw_jansson_push(cos, kw_jansson_text(t->files.v[i]), oom);
    }
    kw_jansson_set(o, "code_objects", cos, oom);
    return o;
}

json_t *kw_list_json(const kw_list *l, bool *oom_out) {
    bool oom = false;
    json_t *doc = json_object(), *rows = json_array();
    if (!doc || !rows)
        oom = true;
    for (size_t i = 0; i < l->rows.n && !oom; i++)
        kw_jansson_push(rows, kw_list_json_row(l, &l->rows.v[i], &oom), &oom);
    if (doc) {
        kw_jansson_set(doc, "kwalk_list", json_integer(1), &oom);
        kw_jansson_set(doc, "kernels", rows, &oom);
    } else {
        json_decref(rows);
    }
    *oom_out = oom;
    return doc;
}

kw_status kw_list_write_tsv(const kw_list *l, kw_buf *out, kw_err *err) {
    kw_buf item, field;
    kw_buf_init(&item);
    kw_buf_init(&field);
    for (size_t i = 0; i < l->rows.n; i++)
        kw_list_print_row(l, &l->rows.v[i], out, &item, &field);
    bool oom = item.oom || field.oom || out->oom;
    kw_buf_free(&item);
    kw_buf_free(&field);
    return oom ? kw_fail(err, "out of memory") : KW_OK;
}
