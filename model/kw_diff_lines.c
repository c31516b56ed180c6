/* kw_diff_lines.c: the source lines whose code changed between two listings
 * (kw_diff_lines.h). Each listing's "OFFSET: text" lines are walked with the
 * line table's runs (one row where the location changes; a row without a
 * file or with line 0 is code of no source line); per file:line the
 * instructions' normalized text is collected for either side, and the lines
 * whose two texts differ are merged into ranges. */
#include "model/kw_diff_lines.h"

#include <stdlib.h>
#include <string.h>

#include "common/kw_buf.h"
#include "common/kw_symmap.h"

/* One source line's code on both sides. */
typedef struct kw_diff_lines_line {
    const char *file;
    int line;
    kw_buf code[2];
    long long n[2];
} kw_diff_lines_line;

typedef struct kw_diff_lines_state {
    kw_symmap at; /* "file\x1fline" -> index in lines */
    KW_ARRAY(kw_diff_lines_line) lines;
    kw_arena tmp;
} kw_diff_lines_state;

/* The text of one instruction as compared: whitespace runs made one space,
 * the "  ; -> L<n>" target comment dropped, a branch's operands too. */
static void kw_diff_lines_norm(kw_buf *b, const char *s, size_t n) {
    size_t end = n;
    for (size_t i = 0; i + 1 < n; i++)
        if (s[i] == ';' && (i == 0 || s[i - 1] == ' ' || s[i - 1] == '\t')) {
            end = i;
            break;
        }
    bool branch =
        (end >= 8 && !strncmp(s, "s_branch", 8)) || (end >= 10 && !strncmp(s, "s_cbranch_", 10));
    bool space = false, any = false;
    for (size_t i = 0; i < end; i++) {
        char c = s[i];
        if (c == ' ' || c == '\t') {
            space = any;
            if (branch)
                break;
            continue;
        }
        if (space)
            kw_buf_putc(b, ' ');
        space = false;
        any = true;
        kw_buf_putc(b, c);
    }
    kw_buf_putc(b, '\n');
}

static kw_diff_lines_line *kw_diff_lines_of(kw_diff_lines_state *d, const kw_loc *l) {
    char *key = kw_arena_printf(&d->tmp, "%s\x1f%d", l->file, l->line);
    if (!key)
        return NULL;
    size_t *at = kw_symmap_get(&d->at, key);
    if (at)
        return &d->lines.v[*at];
    kw_diff_lines_line *x = KW_PUSH(&d->tmp, d->lines);
    if (!x || kw_symmap_put(&d->at, key, d->lines.n - 1) != KW_OK)
        return NULL;
    memset(x, 0, sizeof *x);
    x->file = l->file;
    x->line = l->line;
    kw_buf_init(&x->code[0]);
    kw_buf_init(&x->code[1]);
    return x;
}

/* One side's listing into d->lines[...].code[side]. */
static kw_status kw_diff_lines_side(kw_diff_lines_state *d, const kw_kernel_arch *a, int side) {
    size_t row = 0;
    const kw_loc *cur = NULL;
    for (const char *p = a->isa; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char *end;
        long long off = strtoll(p, &end, 16);
        if (end > p && *end == ':' && end[1] == ' ') { /* an instruction, not a label */
            while (row < a->lines.n && a->lines.v[row].offset <= off) {
                const kw_loc *l = &a->lines.v[row++].location;
                cur = l->file && l->line > 0 ? l : NULL;
            }
            if (cur) {
                kw_diff_lines_line *x = kw_diff_lines_of(d, cur);
                if (!x)
                    return KW_ERR;
                const char *t = end + 2;
                kw_diff_lines_norm(&x->code[side], t, len - (size_t)(t - p));
                if (x->code[side].oom)
                    return KW_ERR;
                x->n[side]++;
            }
        }
        p += len + (nl != NULL);
    }
    return KW_OK;
}

static int kw_diff_lines_cmp(const void *pa, const void *pb) {
    const kw_diff_lines_line *a = *(kw_diff_lines_line *const *)pa,
                             *b = *(kw_diff_lines_line *const *)pb;
    int c = strcmp(a->file, b->file);
    return c ? c : (a->line > b->line) - (a->line < b->line);
}

/* The changed lines, sorted, merged into ranges in arena. */
static kw_status kw_diff_lines_ranges(kw_diff_lines_state *d, kw_arena *arena,
                                      kw_diff_ranges *out) {
    kw_diff_lines_line **ch = kw_arena_alloc(&d->tmp, (d->lines.n ? d->lines.n : 1) * sizeof *ch);
    if (!ch)
        return KW_ERR;
    size_t n = 0;
    for (size_t i = 0; i < d->lines.n; i++) {
        kw_diff_lines_line *x = &d->lines.v[i];
        if (x->code[0].len != x->code[1].len ||
            memcmp(kw_buf_str(&x->code[0]), kw_buf_str(&x->code[1]), x->code[0].len))
            ch[n++] = x;
    }
    if (n > 1)
        qsort(ch, n, sizeof *ch, kw_diff_lines_cmp);
    kw_diff_range *r = NULL;
    for (size_t i = 0; i < n; i++) {
        if (r && !strcmp(r->file, ch[i]->file) && ch[i]->line == r->last + 1) {
            r->last = ch[i]->line;
        } else {
            if (!(r = KW_PUSH(arena, *out)))
                return KW_ERR;
            r->file = r > out->v && !strcmp(r[-1].file, ch[i]->file)
                          ? r[-1].file
                          : kw_arena_strdup(arena, ch[i]->file);
            if (!r->file)
                return KW_ERR;
            r->first = r->last = ch[i]->line;
            r->old_insns = r->new_insns = 0;
        }
        r->old_insns += ch[i]->n[0];
        r->new_insns += ch[i]->n[1];
    }
    return KW_OK;
}

kw_status kw_diff_lines(const kw_kernel_arch *o, const kw_kernel_arch *n, kw_arena *arena,
                        kw_diff_ranges *out, kw_err *err) {
    memset(out, 0, sizeof *out);
    if (!o->isa || !*o->isa || !n->isa || !*n->isa || !o->lines.n || !n->lines.n)
        return KW_OK;
    kw_diff_lines_state d;
    memset(&d, 0, sizeof d);
    kw_symmap_init(&d.at);
    kw_arena_init(&d.tmp);
    kw_status st = KW_OK;
    if (kw_diff_lines_side(&d, o, 0) != KW_OK || kw_diff_lines_side(&d, n, 1) != KW_OK ||
        kw_diff_lines_ranges(&d, arena, out) != KW_OK)
        st = kw_fail(err, "out of memory");
    for (size_t i = 0; i < d.lines.n; i++) {
        kw_buf_free(&d.lines.v[i].code[0]);
        kw_buf_free(&d.lines.v[i].code[1]);
    }
    kw_symmap_free(&d.at);
    kw_arena_free(&d.tmp);
    return st;
}
