/* kw_kpage_src.c: the template's definition and parameters a kernel page
 * says once (kw_kpage_src.h): the definition's lines through kw_src's
 * scanner, the parameter list split at its top-level commas. */
#include "model/kw_kpage_src.h"

#include <ctype.h>
#include <string.h>

#include "common/kw_buf.h"

/* The declaration of the first row's kernel: the functor's operator() for a
 * trampoline, else the kernel's own (as the page's heading cites it). */
static const kw_loc *kw_ks_loc(const kw_kpage *p, const kw_model *m) {
    if (!p->rows.n)
        return NULL;
    const kw_kernel *k = m->kernels.v[p->rows.v[0].kernel].k;
    if (!k || k->language) /* a Triton function's source is Python: not scanned here */
        return NULL;
    return k->functor_location.file ? &k->functor_location : &k->location;
}

static bool kw_ks_id(char c) {
    return isalnum((unsigned char)c) || c == '_';
}

/* Offset just past the parameter list's '(' after the name at off, or 0. */
static size_t kw_ks_open(const kw_src_file *f, size_t off) {
    const char *t = f->text;
    if (off + 10 <= f->len && !memcmp(t + off, "operator()", 10))
        off += 10;
    while (off < f->len && kw_ks_id(t[off]))
        off++;
    while (off < f->len && isspace((unsigned char)t[off]))
        off++;
    return off < f->len && t[off] == '(' ? off + 1 : 0;
}

/* One parameter's text [s, e): its declaration folded to single spaces, a
 * default argument dropped, and its name (the last identifier). */
static kw_status kw_ks_param(kw_kpage_src *s, const char *b, const char *e, kw_arena *a) {
    kw_buf t;
    kw_buf_init(&t);
    int depth = 0;
    for (const char *c = b; c < e; c++) {
        if (*c == '(' || *c == '<' || *c == '[' || *c == '{')
            depth++;
        else if (*c == ')' || *c == '>' || *c == ']' || *c == '}')
            depth--;
        else if (*c == '=' && !depth)
            break;
        if (isspace((unsigned char)*c)) {
            if (t.len && t.ptr[t.len - 1] != ' ')
                kw_buf_putc(&t, ' ');
        } else {
            kw_buf_putc(&t, *c);
        }
    }
    while (t.len && t.ptr[t.len - 1] == ' ')
        t.len--;
    kw_kparam_src *p = t.len ? KW_PUSH(a, s->params) : NULL;
    kw_status st = t.oom || (t.len && !p) ? KW_ERR : KW_OK;
    if (p) {
        memset(p, 0, sizeof(*p));
        p->written = kw_arena_strndup(a, t.ptr, t.len);
        size_t n = t.len, i = n;
        while (i && kw_ks_id(t.ptr[i - 1]))
            i--;
        bool named = i < n && i && !isdigit((unsigned char)t.ptr[i]);
        p->name = named ? kw_arena_strndup(a, t.ptr + i, n - i) : "";
        st = p->written && p->name ? KW_OK : KW_ERR;
    }
    kw_buf_free(&t);
    return st;
}

/* The parameter list from just past its '(' to the matching ')', split at
 * the commas outside brackets; comments skipped. */
static kw_status kw_ks_params(kw_kpage_src *s, const kw_src_file *f, size_t off, kw_arena *a) {
    const char *t = f->text;
    kw_buf clean; /* the list without comments */
    kw_buf_init(&clean);
    int depth = 0;
    for (size_t i = off; i < f->len; i++) {
        if (t[i] == '/' && i + 1 < f->len && t[i + 1] == '/') {
            while (i < f->len && t[i] != '\n')
                i++;
            kw_buf_putc(&clean, ' ');
            continue;
        }
        if (t[i] == '/' && i + 1 < f->len && t[i + 1] == '*') {
            const char *e = strstr(t + i + 2, "*/");
            i = e ? (size_t)(e - t) + 1 : f->len;
            kw_buf_putc(&clean, ' ');
            continue;
        }
        if (t[i] == '(')
            depth++;
        else if (t[i] == ')' && depth-- == 0)
            break;
        kw_buf_putc(&clean, t[i]);
    }
    kw_status st = clean.oom ? KW_ERR : KW_OK;
    const char *b = clean.ptr ? clean.ptr : "", *end = b + clean.len, *p = b;
    depth = 0;
    for (const char *c = b; c <= end && st == KW_OK; c++) {
        if (c < end && (*c == '(' || *c == '<' || *c == '[' || *c == '{'))
            depth++;
        else if (c < end && (*c == ')' || *c == '>' || *c == ']' || *c == '}'))
            depth--;
        else if (c == end || (*c == ',' && !depth)) {
            st = kw_ks_param(s, p, c, a);
            p = c + 1;
        }
    }
    kw_buf_free(&clean);
    return st;
}

/* Each parameter's types in the instantiations, each once. */
static kw_status kw_ks_types(kw_kpage_src *s, const kw_kpage *p, const kw_model *m, kw_arena *a) {
    for (size_t i = 0; i < s->params.n; i++) {
        kw_kparam_src *q = &s->params.v[i];
        for (size_t r = 0; r < p->rows.n; r++) {
            const kw_kernel *k = m->kernels.v[p->rows.v[r].kernel].k;
            if (!k || i >= k->params.n || k->params.n != s->params.n || !k->params.v[i].type)
                continue;
            const char *ty = k->params.v[i].type;
            bool seen = false;
            for (size_t j = 0; j < q->types.n && !seen; j++)
                seen = !strcmp(q->types.v[j], ty);
            const char **slot = seen ? NULL : KW_PUSH(a, q->types);
            if (!seen && !slot)
                return KW_ERR;
            if (slot)
                *slot = ty;
        }
    }
    return KW_OK;
}

kw_status kw_kpage_src_build(kw_kpage_src *s, const kw_kpage *p, const kw_model *m, kw_srcs *srcs,
                             kw_arena *a) {
    memset(s, 0, sizeof(*s));
    const kw_loc *loc = kw_ks_loc(p, m);
    if (!loc || !loc->file || loc->line < 1)
        return KW_OK;
    s->file = loc->file;
    const kw_src_file *f = kw_src_get(srcs, loc->file);
    if (!f)
        return KW_ERR;
    s->f = f;
    kw_src_def def;
    if (!f->ok) {
        s->why = f->why ? f->why : "cannot be read";
        return KW_OK;
    }
    int col = loc->column > 0 ? loc->column : 1;
    if (!kw_src_def_range(f, loc->line, col, &def)) {
        s->why = "no definition found at the line the build recorded (the source changed since?)";
        return KW_OK;
    }
    s->first = def.first;
    s->last = def.body_open;
    size_t off = f->line_off[loc->line - 1] + (size_t)(col - 1);
    size_t open = off < f->len ? kw_ks_open(f, off) : 0;
    if (open && kw_ks_params(s, f, open, a) != KW_OK)
        return KW_ERR;
    return kw_ks_types(s, p, m, a);
}
