/* kw_html_isa.c: the source <-> ISA view of a site page. Its data is inline
 * JSON (#kw-data) read by the page's script (kw_html_assets.c):
 *   files: [{p: path as printed, s: [[first line, [text, ...]], ...]}] -- the
 *          files the line tables name: the kernel's whole definition and the
 *          whole definition of each function of its device call tree (not a
 *          system header's) in those files, every other line named with a
 *          few lines of context;
 *          or {p, why} when the file cannot be read;
 *   notes: [text, ...] -- the ISA notes (annotations/isa) the listing uses;
 *   classes: [name, ...] -- the instruction classes it uses;
 *   mn: [[mnemonic, class, note], ...] -- per mnemonic of the listings (an
 *       instruction's text up to its first space): its class (codeobj/'s
 *       classifier, an index into classes) and note (-1: none);
 *   archs: [{a: arch, why: why there are no lines or null,
 *            x: N -- the listing (kernels[].archs.<arch>.isa) is the text of
 *               <script type="text/plain" id="kw-isa-N"> after #kw-data, as
 *               it is: lines "OFFSET: text" (OFFSET in hex) an instruction,
 *               any other line a label;
 *            or t: the listing as a JSON string, when its text could not
 *               be read back from an element (kw_si_raw_ok); or t: null
 *               when there is none;
 *            r: [count, file, line, ...] -- the instructions in order, in runs
 *               of the same source line from `lines` (file -1: none)}]
 * The listing's text is written once, as it is, not a JSON array per
 * instruction: that was a fifth of a page's time and half its bytes. */
#include <stdlib.h>
#include <string.h>

#include "codeobj/kw_codeobj.h"
#include "render/kw_html.h"

enum { KW_SI_CONTEXT = 2, KW_SI_JOIN = 6 };

/* Lines [lo, hi] of a file shown in the source pane. */
typedef struct kw_si_span {
    int lo, hi;
} kw_si_span;

typedef struct kw_si_file {
    const char *path;
    KW_ARRAY(int) lines;       /* referenced lines */
    KW_ARRAY(kw_si_span) defs; /* whole definitions shown: the kernel, inlined helpers */
} kw_si_file;

/* A mnemonic's class and note (both depend on the mnemonic alone), looked
 * up once per page: the classifier and the notes were a fifth of a page. */
typedef struct kw_si_mn {
    kw_r_key mnem; /* the mnemonic in the listing, which outlives the page */
    int klass;     /* in kw_si.classes */
    int note;
} kw_si_mn;

/* A listing written as it is, in an element of its own (kw_si_raw_ok). */
typedef struct kw_si_text {
    const char *p;
    size_t n;
} kw_si_text;

typedef struct kw_si {
    kw_render *r;
    KW_ARRAY(kw_si_file) files;
    KW_ARRAY(const char *) notes;
    KW_ARRAY(const char *) classes; /* the class names the listing uses */
    KW_ARRAY(kw_si_mn) mns;         /* first-seen order */
    unsigned short slot[KW_R_KEY_SLOTS]; /* mns by hash (kw_r_key_find) */
    KW_ARRAY(kw_si_text) raw;            /* the listings written as they are */
} kw_si;

static int kw_si_file_of(kw_si *s, const char *path) {
    for (size_t i = 0; i < s->files.n; i++)
        if (!strcmp(s->files.v[i].path, path))
            return (int)i;
    kw_si_file *f = KW_PUSH(&s->r->scratch, s->files);
    if (!f)
        return -1;
    memset(f, 0, sizeof(*f));
    f->path = path;
    return (int)(s->files.n - 1);
}

static int kw_si_note_of(kw_si *s, const char *note) {
    for (size_t i = 0; i < s->notes.n; i++)
        if (s->notes.v[i] == note)
            return (int)i;
    const char **slot = KW_PUSH(&s->r->scratch, s->notes);
    if (!slot)
        return -1;
    *slot = note;
    return (int)(s->notes.n - 1);
}

static int kw_si_class_of(kw_si *s, const char *name) {
    for (size_t i = 0; i < s->classes.n; i++)
        if (!strcmp(s->classes.v[i], name))
            return (int)i;
    const char **slot = KW_PUSH(&s->r->scratch, s->classes);
    if (!slot)
        return -1;
    *slot = name;
    return (int)(s->classes.n - 1);
}

static int kw_span_cmp(const void *a, const void *b) {
    const kw_si_span *x = a, *y = b;
    return (x->lo > y->lo) - (x->lo < y->lo);
}

/* The note of the mnemonic at text[0, n): the encoding suffix stripped as
 * section 5 does (v_rsq_f32_e32 is v_rsq_f32). */
static const char *kw_si_note(kw_render *r, const char *text, size_t n) {
    n = kw_r_isa_op_len(text, n);
    char buf[96];
    if (!r->notes || n == 0 || n >= sizeof buf)
        return NULL;
    memcpy(buf, text, n);
    buf[n] = 0;
    if (!strncmp(buf, "s_waitcnt", 9) || !strcmp(buf, "s_endpgm"))
        return NULL;
    return kw_isa_note_for(r->notes, buf);
}

/* The mnemonic of the instruction ln (kw_r_isa_lines: its text up to the
 * first space, as the classifier and the page's script read it) with its
 * class and note, added to s->mns when new: only then is it copied (a C
 * string for the classifier) and classified. False when out of memory. */
static bool kw_si_mnem(kw_si *s, const kw_r_isa_line *ln) {
    const char *t = ln->tok;
    unsigned short *free_slot;
    if (kw_r_key_find(s->mns.v, s->mns.n, sizeof *s->mns.v, s->slot, t, ln->toklen, ln->tokhash,
                      &free_slot) >= 0)
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
    const char *note = kw_si_note(s->r, text, strcspn(text, " \t"));
    kw_si_mn *m = KW_PUSH(&s->r->scratch, s->mns);
    if (!m)
        return false;
    *m = (kw_si_mn){{t, ln->toklen, ln->tokhash},
                    kw_si_class_of(s, kw_co_class_name((kw_co_class)insn.klass)),
                    note ? kw_si_note_of(s, note) : -1};
    if (free_slot)
        *free_slot = (unsigned short)s->mns.n;
    return true;
}

/* Whether the text t[0, n) reads back as it is from the textContent of a
 * <script type="text/plain">: no NUL or CR (the HTML parser replaces them)
 * and no "<!" or "</" (which could end the element). A listing has none;
 * one that has is written as a JSON string instead. */
static bool kw_si_raw_ok(const char *t, size_t n) {
    if (memchr(t, '\0', n) || memchr(t, '\r', n))
        return false;
    for (const char *p = t, *e = t + n; (p = memchr(p, '<', (size_t)(e - p))) != NULL; p++)
        if (p + 1 < e && (p[1] == '!' || p[1] == '/'))
            return false;
    return true;
}

/* One arch's instructions as JSON; files referenced are added to s. */
static void kw_si_arch(kw_si *s, const kw_rarch *a, kw_buf *o) {
    kw_render *r = s->r;
    const kw_kernel_arch *fx = a->facts;
    kw_buf_puts(o, "{\"a\":");
    kw_html_json(o, a->arch, strlen(a->arch));
    kw_buf_puts(o, ",\"why\":");
    static const char no_isa[] = "no ISA listing was captured for this arch";
    if (!fx->isa)
        kw_html_json(o, no_isa, sizeof no_isa - 1);
    else if (!fx->lines.n) {
        const char *why = fx->lines_note ? fx->lines_note : "the code object has no line tables";
        kw_html_json(o, why, strlen(why));
    } else
        kw_buf_puts(o, "null");
    size_t nl = 0, ninsn;
    const kw_r_isa_line *lns = fx->isa ? kw_r_isa_lines(r, fx, &nl, &ninsn) : NULL;
    if (!lns || !nl) {
        kw_buf_puts(o, ",\"t\":null,\"r\":[]}");
        return;
    }
    /* the lines are contiguous in the listing, one '\n' apart */
    const char *t = lns[0].p;
    size_t tn = (size_t)(lns[nl - 1].p + lns[nl - 1].len - t);
    kw_si_text *raw = kw_si_raw_ok(t, tn) ? KW_PUSH(&r->scratch, s->raw) : NULL;
    if (raw) {
        *raw = (kw_si_text){t, tn};
        kw_buf_puts(o, ",\"x\":");
        kw_buf_int(o, (long long)(s->raw.n - 1));
    } else {
        kw_buf_puts(o, ",\"t\":");
        kw_html_json(o, t, tn);
    }
    kw_buf_puts(o, ",\"r\":[");
    size_t li = 0, run = 0;
    int cur_f = -1, cur_l = 0, run_f = -1, run_l = 0;
    bool first = true;
    for (size_t i = 0; i <= nl; i++) {
        if (i < nl && !lns[i].insn)
            continue;
        if (i < nl) {
            const kw_r_isa_line ln = lns[i];
            while (li < fx->lines.n && fx->lines.v[li].offset >= 0 &&
                   (unsigned long long)fx->lines.v[li].offset <= ln.offset) {
                const kw_loc *l = &fx->lines.v[li].location;
                cur_f = l->file && l->line > 0 ? kw_si_file_of(s, l->file) : -1;
                cur_l = cur_f >= 0 ? (int)l->line : 0;
                li++;
            }
            if (!kw_si_mnem(s, &lns[i]))
                o->oom = true; /* a page without its class and note would be wrong */
            if (run && cur_f == run_f && cur_l == run_l) {
                run++;
                continue;
            }
        }
        if (run) { /* the run before this instruction (or the last one), its
                    * numbers formatted here and appended at once */
            char num[3 * 24], *q = num;
            if (!first)
                *q++ = ',';
            first = false;
            q = kw_dec(q, (long long)run);
            *q++ = ',';
            q = kw_dec(q, run_f);
            *q++ = ',';
            q = kw_dec(q, run_l);
            kw_buf_append(o, num, (size_t)(q - num));
            if (run_f >= 0) { /* a source line this arch's instructions come from */
                int *slot = KW_PUSH(&r->scratch, s->files.v[run_f].lines);
                if (slot)
                    *slot = run_l;
            }
        }
        run = 1;
        run_f = cur_f;
        run_l = cur_l;
    }
    kw_buf_puts(o, "]}");
}

/* The source file at path as the page read it (or read now). */
static const kw_src_file *kw_si_src(kw_render *r, const char *path) {
    const kw_src_file *sf = kw_page_src(&r->page, path);
    return sf ? sf : kw_src_get(r->srcs, path);
}

/* The definition whose name is at l (the kernel, a function of its device
 * call tree) shown whole, when its file is shown (the kernel's, or one the
 * line table names). A helper the optimizer folded away entirely (no line
 * of it left in the line table) is shown too: its code is in the kernel's. */
static void kw_si_def(kw_si *s, const kw_loc *l) {
    if (!l->file || l->line <= 0)
        return;
    int fi = -1;
    for (size_t i = 0; i < s->files.n && fi < 0; i++)
        if (!strcmp(s->files.v[i].path, l->file))
            fi = (int)i;
    const kw_src_file *sf = fi >= 0 ? kw_si_src(s->r, l->file) : NULL;
    kw_src_def def;
    if (!sf || !sf->ok || !kw_r_def_range(s->r, sf, l->line, l->column, &def))
        return;
    kw_si_file *f = &s->files.v[fi];
    bool fresh = true;
    for (size_t i = 0; i < f->defs.n && fresh; i++)
        fresh = !(f->defs.v[i].lo == def.first && f->defs.v[i].hi == def.last);
    kw_si_span *sp = fresh ? KW_PUSH(&s->r->scratch, f->defs) : NULL;
    if (sp)
        *sp = (kw_si_span){def.first, def.last};
}

/* A file's lines: the whole definitions, and each referenced line with
 * KW_SI_CONTEXT lines around it; runs closer than KW_SI_JOIN joined. */
static void kw_si_file_json(kw_si *s, kw_si_file *f, kw_buf *o) {
    kw_render *r = s->r;
    kw_buf_puts(o, "{\"p\":");
    const char *shown = kw_r_path(r, f->path);
    kw_html_json(o, shown, strlen(shown));
    const kw_src_file *sf = kw_si_src(r, f->path);
    if (!sf || !sf->ok) {
        const char *why = sf && sf->why ? sf->why : "not read";
        kw_buf_puts(o, ",\"why\":");
        kw_html_json(o, why, strlen(why));
        kw_buf_putc(o, '}');
        return;
    }
    size_t n = f->defs.n + f->lines.n;
    kw_si_span *sp = kw_arena_alloc(&r->scratch, (n ? n : 1) * sizeof *sp);
    if (!sp) {
        kw_buf_puts(o, ",\"why\":\"out of memory\"}");
        return;
    }
    for (size_t i = 0; i < f->defs.n; i++)
        sp[i] = f->defs.v[i];
    for (size_t i = 0; i < f->lines.n; i++)
        sp[f->defs.n + i] =
            (kw_si_span){f->lines.v[i] - KW_SI_CONTEXT, f->lines.v[i] + KW_SI_CONTEXT};
    qsort(sp, n, sizeof *sp, kw_span_cmp);
    kw_buf_puts(o, ",\"s\":[");
    size_t i = 0;
    bool firstseg = true;
    while (i < n) {
        int lo = sp[i].lo, hi = sp[i].hi;
        for (i++; i < n && sp[i].lo <= hi + KW_SI_JOIN; i++)
            hi = sp[i].hi > hi ? sp[i].hi : hi;
        if (lo < 1)
            lo = 1;
        const char *text;
        size_t tl;
        if (hi > sf->nlines)
            hi = sf->nlines;
        if (hi < lo)
            continue;
        kw_buf_printf(o, "%s[%d,[", firstseg ? "" : ",", lo);
        firstseg = false;
        for (int l = lo; l <= hi; l++) {
            if (!kw_src_line(sf, l, &text, &tl))
                text = "", tl = 0;
            if (l > lo)
                kw_buf_putc(o, ',');
            kw_html_json(o, text, tl);
        }
        kw_buf_puts(o, "]]");
    }
    kw_buf_puts(o, "]}");
}

void kw_html_isa(kw_render *r, kw_buf *out) {
    kw_si s;
    memset(&s, 0, sizeof s);
    s.r = r;
    kw_buf archs;
    kw_buf_init(&archs);
    size_t shown = 0;
    /* the kernel's own file first, then the others as the listing meets them */
    if (r->mk->k && r->mk->k->location.file)
        kw_si_file_of(&s, r->mk->k->location.file);
    for (size_t a = 0; a < r->archs.n; a++) {
        if (!r->archs.v[a].facts)
            continue;
        kw_buf_puts(&archs, shown++ ? "," : "");
        kw_si_arch(&s, &r->archs.v[a], &archs);
    }
    /* whole definitions: the kernel's, and each device function inlined into it */
    const kw_kernel *k = r->mk->k;
    if (k && shown) {
        kw_si_def(&s, &k->location);
        for (size_t i = 0; i < k->calls.n; i++)
            if (!k->calls.v[i].system)
                kw_si_def(&s, &k->calls.v[i].callee_location);
    }
    kw_buf_puts(out, "<section id=\"kw-si\"><h2>Source ↔ ISA</h2>\n");
    if (!shown) {
        kw_buf_puts(out, "<p>No ISA was captured for this kernel, so there is nothing to show "
                         "side by side.</p>\n");
    } else {
        kw_buf_puts(out,
                    "<p class=\"kw-help\">From the code object's line table: click a source "
                    "line to highlight its instructions, an instruction to highlight its "
                    "line. Instructions without a line are marked ∅; hover one for its class "
                    "and note.</p>\n<div class=\"kw-tabs\"></div><div class=\"kw-why\"></div>\n"
                    "<div class=\"kw-panes\"><div class=\"kw-src\"></div>"
                    "<div class=\"kw-isa\"></div></div>\n");
    }
    kw_buf_puts(out, "</section>\n<script type=\"application/json\" id=\"kw-data\">{\"files\":[");
    for (size_t f = 0; f < s.files.n; f++) {
        kw_buf_puts(out, f ? "," : "");
        kw_si_file_json(&s, &s.files.v[f], out);
    }
    kw_buf_puts(out, "],\"notes\":[");
    for (size_t n = 0; n < s.notes.n; n++) {
        kw_buf_puts(out, n ? "," : "");
        kw_html_json(out, s.notes.v[n], strlen(s.notes.v[n]));
    }
    kw_buf_puts(out, "],\"classes\":[");
    for (size_t n = 0; n < s.classes.n; n++) {
        kw_buf_puts(out, n ? "," : "");
        kw_html_json(out, s.classes.v[n], strlen(s.classes.v[n]));
    }
    kw_buf_puts(out, "],\"mn\":[");
    for (size_t n = 0; n < s.mns.n; n++) {
        const kw_si_mn *m = &s.mns.v[n];
        kw_buf_puts(out, n ? ",[" : "[");
        kw_html_json(out, m->mnem.text, m->mnem.len);
        kw_buf_putc(out, ',');
        kw_buf_int(out, m->klass);
        kw_buf_putc(out, ',');
        kw_buf_int(out, m->note);
        kw_buf_putc(out, ']');
    }
    kw_buf_puts(out, "],\"archs\":[");
    kw_buf_append(out, archs.ptr ? archs.ptr : "", archs.len);
    out->oom |= archs.oom;
    kw_buf_puts(out, "]}</script>\n");
    for (size_t i = 0; i < s.raw.n; i++) {
        kw_buf_puts(out, "<script type=\"text/plain\" id=\"kw-isa-");
        kw_buf_int(out, (long long)i);
        kw_buf_puts(out, "\">");
        kw_buf_append(out, s.raw.v[i].p, s.raw.v[i].n);
        kw_buf_puts(out, "</script>\n");
    }
    kw_buf_free(&archs);
}
