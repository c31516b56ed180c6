/* kw_page_isa_view.c: the site's source <-> ISA view in the page model
 * (kw_page_isa.h): the files the line tables name (the kernel's first), with
 * the spans of lines shown (whole definitions of the kernel and of each
 * function of its device call tree, every other referenced line with a few
 * lines of context, close spans joined); each instruction token's class
 * (codeobj/'s classifier) and note; per arch the instructions in runs of
 * one source line. */
#include <stdlib.h>
#include <string.h>

#include "codeobj/kw_codeobj.h"
#include "model/kw_page_isa.h"

enum { KW_PIV_CONTEXT = 2, KW_PIV_JOIN = 6 };

typedef struct kw_piv {
    kw_page_isa *pi;
    const kw_page *p;
    const kw_isa_notes *notes;
    kw_arena *a;
    unsigned short slot[KW_PAGE_ISA_SLOTS]; /* pi->mns by hash */
    bool oom;
} kw_piv;

static int kw_piv_file_of(kw_piv *s, const char *path) {
    kw_page_isa *pi = s->pi;
    for (size_t i = 0; i < pi->files.n; i++)
        if (!strcmp(pi->files.v[i].path, path))
            return (int)i;
    kw_page_isa_file *f = KW_PUSH(s->a, pi->files);
    if (!f) {
        s->oom = true;
        return -1;
    }
    memset(f, 0, sizeof(*f));
    f->path = path;
    return (int)(pi->files.n - 1);
}

static int kw_piv_note_of(kw_piv *s, const char *note) {
    for (size_t i = 0; i < s->pi->notes.n; i++)
        if (s->pi->notes.v[i] == note)
            return (int)i;
    const char **slot = KW_PUSH(s->a, s->pi->notes);
    if (!slot)
        return -1;
    *slot = note;
    return (int)(s->pi->notes.n - 1);
}

static int kw_piv_class_of(kw_piv *s, const char *name) {
    for (size_t i = 0; i < s->pi->class_names.n; i++)
        if (!strcmp(s->pi->class_names.v[i], name))
            return (int)i;
    const char **slot = KW_PUSH(s->a, s->pi->class_names);
    if (!slot)
        return -1;
    *slot = name;
    return (int)(s->pi->class_names.n - 1);
}

/* The note of the mnemonic at text[0, n): the encoding suffix stripped as
 * section 5 does (v_rsq_f32_e32 is v_rsq_f32). */
static const char *kw_piv_note(const kw_isa_notes *notes, const char *text, size_t n) {
    n = kw_page_isa_op_len(text, n);
    char buf[96];
    if (!notes || n == 0 || n >= sizeof buf)
        return NULL;
    memcpy(buf, text, n);
    buf[n] = 0;
    if (!strncmp(buf, "s_waitcnt", 9) || !strcmp(buf, "s_endpgm"))
        return NULL;
    return kw_isa_note_for(notes, buf);
}

/* The token of instruction ln (its text up to the first space, as the
 * page's script reads it) with its class and note, added to pi->mns when
 * new: only then is it copied (a C string for the classifier) and
 * classified. False when out of memory. */
static bool kw_piv_mnem(kw_piv *s, const kw_page_isa_line *ln) {
    const char *t = ln->tok;
    unsigned short *free_slot;
    kw_page_isa *pi = s->pi;
    if (kw_page_isa_key_find(pi->mns.v, pi->mns.n, sizeof *pi->mns.v, s->slot, t, ln->toklen,
                             ln->tokhash, &free_slot) >= 0)
        return true;
    size_t n = (size_t)(ln->p + ln->len - t);
    if (n >= 512)
        n = 511; /* as the classifier's copy holds it */
    char text[512];
    memcpy(text, t, n);
    text[n] = 0;
    kw_co_insn insn;
    memset(&insn, 0, sizeof insn);
    kw_co_classify(text, &insn);
    const char *note = kw_piv_note(s->notes, text, strcspn(text, " \t"));
    kw_page_isa_mnem *m = KW_PUSH(s->a, pi->mns);
    if (!m)
        return false;
    *m = (kw_page_isa_mnem){{t, ln->toklen, ln->tokhash},
                            kw_piv_class_of(s, kw_co_class_name((kw_co_class)insn.klass)),
                            note ? kw_piv_note_of(s, note) : -1};
    if (free_slot)
        *free_slot = (unsigned short)pi->mns.n;
    return true;
}

/* One arch's instructions in runs of one source line; the files and lines
 * they reference are added. */
static void kw_piv_arch(kw_piv *s, kw_page_isa_arch *x) {
    const kw_kernel_arch *fx = x->a->facts;
    static const char no_isa[] = "no ISA listing was captured for this arch";
    if (!fx->isa)
        x->why = no_isa;
    else if (!fx->lines.n)
        x->why = fx->lines_note ? fx->lines_note : "the code object has no line tables";
    const kw_page_isa_line *lns = x->lines;
    size_t nl = lns ? x->n : 0;
    if (!nl)
        return;
    size_t li = 0, run = 0;
    int cur_f = -1, cur_l = 0, run_f = -1, run_l = 0;
    for (size_t i = 0; i <= nl; i++) {
        if (i < nl && !lns[i].insn)
            continue;
        if (i < nl) {
            const kw_page_isa_line *ln = &lns[i];
            while (li < fx->lines.n && fx->lines.v[li].offset >= 0 &&
                   (unsigned long long)fx->lines.v[li].offset <= ln->offset) {
                const kw_loc *l = &fx->lines.v[li].location;
                cur_f = l->file && l->line > 0 ? kw_piv_file_of(s, l->file) : -1;
                cur_l = cur_f >= 0 ? (int)l->line : 0;
                li++;
            }
            if (!kw_piv_mnem(s, ln))
                s->oom = true; /* a page without its class and note would be wrong */
            if (run && cur_f == run_f && cur_l == run_l) {
                run++;
                continue;
            }
        }
        if (run) { /* the run before this instruction (or the last one) */
            kw_page_isa_run *r = KW_PUSH(s->a, x->runs);
            if (!r)
                s->oom = true;
            else
                *r = (kw_page_isa_run){run, run_f, run_l};
            if (run_f >= 0) { /* a source line this arch's instructions come from */
                int *slot = KW_PUSH(s->a, s->pi->files.v[run_f].lines);
                if (slot)
                    *slot = run_l;
            }
        }
        run = 1;
        run_f = cur_f;
        run_l = cur_l;
    }
}

/* The source file at path as the page read it (or read now). */
static const kw_src_file *kw_piv_src(const kw_page *p, const char *path) {
    const kw_src_file *sf = kw_page_src(p, path);
    return sf ? sf : p->srcs ? kw_src_get(p->srcs, path) : NULL;
}

/* The definition whose name is at l (the kernel, a function of its device
 * call tree) shown whole, when its file is shown (the kernel's, or one the
 * line table names). A helper the optimizer folded away entirely (no line
 * of it left in the line table) is shown too: its code is in the kernel's. */
static void kw_piv_def(kw_piv *s, kw_page_isa_defs *defs, const kw_loc *l) {
    if (!l->file || l->line <= 0)
        return;
    kw_page_isa *pi = s->pi;
    int fi = -1;
    for (size_t i = 0; i < pi->files.n && fi < 0; i++)
        if (!strcmp(pi->files.v[i].path, l->file))
            fi = (int)i;
    const kw_src_file *sf = fi >= 0 ? kw_piv_src(s->p, l->file) : NULL;
    kw_src_def def;
    if (!sf || !sf->ok || !kw_page_isa_def_range(defs, sf, l->line, l->column, &def))
        return;
    kw_page_isa_file *f = &pi->files.v[fi];
    bool fresh = true;
    for (size_t i = 0; i < f->defs.n && fresh; i++)
        fresh = !(f->defs.v[i].lo == def.first && f->defs.v[i].hi == def.last);
    kw_page_isa_span *sp = fresh ? KW_PUSH(s->a, f->defs) : NULL;
    if (sp)
        *sp = (kw_page_isa_span){def.first, def.last};
}

static int kw_piv_span_cmp(const void *a, const void *b) {
    const kw_page_isa_span *x = a, *y = b;
    return (x->lo > y->lo) - (x->lo < y->lo);
}

/* A file's spans: the whole definitions, and each referenced line with
 * KW_PIV_CONTEXT lines around it; runs closer than KW_PIV_JOIN joined,
 * within the file. False when out of memory. */
static bool kw_piv_spans(kw_piv *s, kw_page_isa_file *f) {
    const kw_src_file *sf = kw_piv_src(s->p, f->path);
    f->src = sf;
    if (!sf || !sf->ok) {
        f->why = sf && sf->why ? sf->why : "not read";
        return true;
    }
    size_t n = f->defs.n + f->lines.n;
    kw_page_isa_span *sp = kw_arena_alloc(s->a, (n ? n : 1) * sizeof *sp);
    if (!sp)
        return false;
    for (size_t i = 0; i < f->defs.n; i++)
        sp[i] = f->defs.v[i];
    for (size_t i = 0; i < f->lines.n; i++)
        sp[f->defs.n + i] =
            (kw_page_isa_span){f->lines.v[i] - KW_PIV_CONTEXT, f->lines.v[i] + KW_PIV_CONTEXT};
    qsort(sp, n, sizeof *sp, kw_piv_span_cmp);
    size_t i = 0;
    while (i < n) {
        int lo = sp[i].lo, hi = sp[i].hi;
        for (i++; i < n && sp[i].lo <= hi + KW_PIV_JOIN; i++)
            hi = sp[i].hi > hi ? sp[i].hi : hi;
        if (lo < 1)
            lo = 1;
        if (hi > sf->nlines)
            hi = sf->nlines;
        if (hi < lo)
            continue;
        kw_page_isa_span *x = KW_PUSH(s->a, f->spans);
        if (!x)
            return false;
        *x = (kw_page_isa_span){lo, hi};
    }
    return true;
}

kw_status kw_page_isa_view(kw_page_isa *pi, const kw_page *p, const kw_isa_notes *notes,
                           kw_page_isa_defs *defs, kw_arena *a, kw_err *err) {
    kw_piv *s = kw_arena_alloc(a, sizeof *s);
    if (!s)
        return kw_fail(err, "out of memory");
    memset(s, 0, sizeof *s);
    *s = (kw_piv){.pi = pi, .p = p, .notes = notes, .a = a};
    pi->view = true;
    /* the kernel's own file first, then the others as the listing meets them */
    const kw_kernel *k = p->mk->k;
    if (k && k->location.file)
        kw_piv_file_of(s, k->location.file);
    for (size_t i = 0; i < pi->archs.n; i++) {
        if (!pi->archs.v[i].a->facts)
            continue;
        pi->shown++;
        kw_piv_arch(s, &pi->archs.v[i]);
    }
    /* whole definitions: the kernel's, and each device function inlined into it */
    if (k && pi->shown) {
        kw_piv_def(s, defs, &k->location);
        for (size_t i = 0; i < k->calls.n; i++)
            if (!k->calls.v[i].system)
                kw_piv_def(s, defs, &k->calls.v[i].callee_location);
    }
    for (size_t i = 0; i < pi->files.n && !s->oom; i++)
        s->oom = !kw_piv_spans(s, &pi->files.v[i]);
    return s->oom ? kw_fail(err, "out of memory") : KW_OK;
}
