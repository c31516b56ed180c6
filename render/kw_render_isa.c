/* kw_render_isa.c: section 5, AMD ISA / hardware details, from the ISA facts
 * of each arch (kernels[].archs.<arch>: target_id, resources with occupancy,
 * classes, isa listing, lines): resources and occupancy side by side per
 * arch, the instruction class histogram, the notable instructions and DPP
 * controls present with their notes (annotations/isa/notes.txt), LDS use,
 * and the listing itself (collapsible, with source lines when the code
 * object had line tables). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/kw_md.h"
#include "common/kw_esc.h"
#include "render/kw_render.h"

static bool kw_isa_has(const kw_rarch *a) {
    return kw_isa_resources_known(&a->facts->resources) || a->facts->isa ||
           kw_isa_classes_known(&a->facts->classes) || a->facts->isa_note;
}

/* ---- resources ---------------------------------------------------------------------------- */

/* One cell: the text t of a fact, "-" when it is NULL (not known). */
static void kw_isa_cell(kw_render *r, const kw_rarch *a, const char *t) {
    if (!kw_isa_has(a))
        kw_buf_puts(r->out, "not captured");
    else if (t)
        kw_md_code(r->out, t, r->in);
    else
        kw_buf_puts(r->out, "-");
}

/* What the table's numbers mean for the kernel: an occupancy LLVM computes
 * for blocks of any size that the compiled block size cannot reach, and
 * spills to scratch. */
static void kw_risa_occ_spill(kw_render *r) {
    kw_buf *o = r->out;
    for (size_t a = 0; a < r->archs.n; a++) {
        const kw_co_occ_block *ob = &r->archs.v[a].occ_block;
        const kw_isa_resources *res = &r->archs.v[a].facts->resources;
        const char *arch = r->archs.v[a].arch;
        if (ob->known && res->occupancy >= 0 && (long long)ob->waves != res->occupancy)
            kw_buf_printf(o,
                          "On %s, LLVM's occupancy of %lld waves per SIMD assumes workgroups "
                          "as small as one work-item; the kernel is compiled for %u "
                          "work-items per workgroup (%u waves), and with registers allowing "
                          "%u waves per SIMD a CU holds %u such workgroups at once: %u waves "
                          "per SIMD is what a launch at that size reaches.\n\n",
                          arch, res->occupancy, ob->block, ob->waves_per_wg, ob->by_regs,
                          ob->wgs_per_cu, ob->waves);
        if (res->vgpr_spill > 0 || res->sgpr_spill > 0)
            kw_buf_printf(o,
                          "On %s the kernel spills %lld VGPR%s and %lld SGPR%s to scratch "
                          "(%lld bytes per lane of private memory): each spill is a store and "
                          "a later load through the scratch path, slow beside a register.\n\n",
                          arch, res->vgpr_spill > 0 ? res->vgpr_spill : 0,
                          res->vgpr_spill == 1 ? "" : "s",
                          res->sgpr_spill > 0 ? res->sgpr_spill : 0,
                          res->sgpr_spill == 1 ? "" : "s",
                          res->scratch_bytes > 0 ? res->scratch_bytes : 0);
    }
}

static void kw_risa_resources(kw_render *r) {
    kw_buf *o = r->out;
    /* the target, the counts of kw_isa_resources (off), the limiter */
    enum { KW_ISA_TARGET, KW_ISA_COUNT, KW_ISA_LIMITER, KW_ISA_AT_BLOCK };
#define KW_ISA_RES(title, member)                                                                  \
    { title, KW_ISA_COUNT, offsetof(kw_isa_resources, member) }
    static const struct {
        const char *title;
        int what;
        size_t off;
    } rows[] = {
        {"Target", KW_ISA_TARGET, 0},
        KW_ISA_RES("VGPRs", vgpr),
        KW_ISA_RES("AGPRs", agpr),
        KW_ISA_RES("SGPRs", sgpr),
        KW_ISA_RES("VGPR spills", vgpr_spill),
        KW_ISA_RES("SGPR spills", sgpr_spill),
        KW_ISA_RES("LDS (bytes, static)", lds_bytes),
        KW_ISA_RES("Scratch (bytes per lane)", scratch_bytes),
        KW_ISA_RES("Kernel arguments (bytes)", kernarg_bytes),
        KW_ISA_RES("Wavefront size", wavefront_size),
        KW_ISA_RES("Max flat workgroup size", max_flat_workgroup_size),
        KW_ISA_RES("Occupancy (waves per SIMD)", occupancy),
        {"Occupancy at the compiled block size", KW_ISA_AT_BLOCK, 0},
        {"Occupancy limiter", KW_ISA_LIMITER, 0},
    };
#undef KW_ISA_RES
    const char **head = kw_arena_alloc(&r->scratch, (r->archs.n + 1) * sizeof *head);
    if (!head)
        return;
    head[0] = "";
    for (size_t a = 0; a < r->archs.n; a++)
        head[a + 1] = r->o->html_blocks ? r->archs.v[a].arch : kw_r_safe(r, r->archs.v[a].arch);
    kw_r_table(r, (int)r->archs.n + 1, head);
    bool at_block = false;
    for (size_t a = 0; a < r->archs.n; a++)
        at_block |= r->archs.v[a].occ_block.known;
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        if (rows[i].what == KW_ISA_AT_BLOCK && !at_block)
            continue;
        kw_r_row(r);
        kw_r_cell(r);
        kw_buf_puts(o, rows[i].title);
        for (size_t a = 0; a < r->archs.n; a++) {
            const kw_kernel_arch *fx = r->archs.v[a].facts;
            char buf[32];
            const char *t = NULL;
            if (rows[i].what == KW_ISA_TARGET) {
                t = fx->target_id;
            } else if (rows[i].what == KW_ISA_LIMITER) {
                /* below LLVM's occupancy at the compiled block size: what binds there */
                const kw_co_occ_block *ob = &r->archs.v[a].occ_block;
                t = fx->resources.occupancy_limiter;
                if (ob->known && ob->limiters && fx->resources.occupancy >= 0 &&
                    (long long)ob->waves < fx->resources.occupancy)
                    t = kw_arena_printf(&r->scratch, "%s (%u work-items)",
                                        kw_co_block_limiter_name(ob->limiters), ob->block);
            } else if (rows[i].what == KW_ISA_AT_BLOCK) {
                const kw_co_occ_block *ob = &r->archs.v[a].occ_block;
                if (ob->known)
                    t = kw_arena_printf(&r->scratch, "%u (%u work-items)", ob->waves, ob->block);
            } else {
                long long v =
                    *(const long long *)((const unsigned char *)&fx->resources + rows[i].off);
                if (v >= 0) {
                    snprintf(buf, sizeof buf, "%lld", v);
                    t = buf;
                }
            }
            kw_r_cell(r);
            kw_isa_cell(r, &r->archs.v[a], t);
        }
    }
    kw_r_table_end(r);
    kw_buf_putc(o, '\n');
    KW_R_LIT(r, "From each code object's metadata (NT_AMDGPU_METADATA); occupancy as LLVM "
                "computes it for the kernel's register, LDS and workgroup-size limits.\n\n");
    kw_risa_occ_spill(r);
}

/* ---- the listing ---------------------------------------------------------------------------- */

typedef struct kw_mnem {
    kw_r_key name;     /* a C string (copied) */
    unsigned count[8]; /* per arch shown (at most 8) */
} kw_mnem;

typedef struct kw_mnems {
    KW_ARRAY(kw_mnem) v;                 /* first-seen order */
    unsigned short slot[KW_R_KEY_SLOTS]; /* v by hash (kw_r_key_find) */
} kw_mnems;

/* The index of the name s[0, n) in m, added (with no count) when new; -1
 * when out of memory. */
static int kw_mnem_find(kw_render *r, kw_mnems *m, const char *s, size_t n) {
    unsigned h = kw_r_tok_hash(s, n);
    unsigned short *free_slot;
    int i = kw_r_key_find(m->v.v, m->v.n, sizeof *m->v.v, m->slot, s, n, h, &free_slot);
    if (i >= 0)
        return i;
    kw_mnem *x = KW_PUSH(&r->scratch, m->v);
    const char *copy = x ? kw_arena_strndup(&r->scratch, s, n) : NULL;
    if (!copy) {
        m->v.n -= x != NULL; /* out of memory: the name is not kept */
        return -1;
    }
    x->name = (kw_r_key){copy, n, h};
    if (free_slot)
        *free_slot = (unsigned short)m->v.n;
    return (int)(m->v.n - 1);
}

static void kw_mnem_add(kw_render *r, kw_mnems *m, const char *s, size_t n, size_t arch) {
    int i = arch < 8 ? kw_mnem_find(r, m, s, n) : -1;
    if (i >= 0)
        m->v.v[i].count[arch]++;
}

/* The index in mn of the mnemonic s[0, n) as section 5 names it (its
 * encoding suffix stripped); -1 for none (empty, a comment ';' or a '<'). */
static int kw_isa_name(kw_render *r, kw_mnems *mn, const char *s, size_t n) {
    return n && *s != ';' && *s != '<' ? kw_mnem_find(r, mn, s, kw_r_isa_op_len(s, n)) : -1;
}

/* An instruction's mnemonic token (kw_r_isa_line.tok) and what section 5
 * makes of it: the end of its name (the token up to a tab) and the name's
 * index in the mnemonics (-1: not counted), worked out once per token. */
typedef struct kw_tok_name {
    kw_r_key tok;
    size_t cut;
    int name;
} kw_tok_name;

typedef struct kw_tok_names {
    KW_ARRAY(kw_tok_name) v;
    unsigned short slot[KW_R_KEY_SLOTS]; /* v by hash (kw_r_key_find) */
} kw_tok_names;

static const kw_tok_name *kw_tok_name_of(kw_render *r, kw_tok_names *t, kw_mnems *mn,
                                         const kw_r_isa_line *ln) {
    unsigned short *free_slot;
    int i = kw_r_key_find(t->v.v, t->v.n, sizeof *t->v.v, t->slot, ln->tok, ln->toklen, ln->tokhash,
                          &free_slot);
    if (i >= 0)
        return &t->v.v[i];
    kw_tok_name *x = KW_PUSH(&r->scratch, t->v);
    if (!x)
        return NULL;
    const char *s = ln->tok, *tab = memchr(s, '\t', ln->toklen);
    x->tok = (kw_r_key){s, ln->toklen, ln->tokhash};
    x->cut = tab ? (size_t)(tab - s) : ln->toklen;
    x->name = kw_isa_name(r, mn, s, x->cut);
    if (free_slot)
        *free_slot = (unsigned short)t->v.n;
    return x;
}

/* Mnemonics and DPP controls of a listing "OFFSET: mnemonic operands..." */
static void kw_isa_scan(kw_render *r, const kw_kernel_arch *fx, size_t arch, kw_mnems *mn,
                        kw_mnems *dpp, kw_tok_names *toks) {
    size_t nl, ninsn;
    const kw_r_isa_line *ln = kw_r_isa_lines(r, fx, &nl, &ninsn);
    for (size_t i = 0; ln && i < nl; i++) {
        const char *p = ln[i].p, *end = p + ln[i].len;
        const kw_tok_name *tn = ln[i].insn && arch < 8 ? kw_tok_name_of(r, toks, mn, &ln[i]) : NULL;
        const char *e;
        if (tn) { /* an instruction: its mnemonic as the lines below would find it */
            if (tn->name >= 0)
                mn->v.v[tn->name].count[arch]++;
            e = ln[i].tok + tn->cut;
        } else {
            /* the text after the line's first colon (an instruction's, after its offset) */
            const char *colon = ln[i].insn ? ln[i].after - 1 : memchr(p, ':', ln[i].len);
            const char *s = colon ? colon + 1 : p;
            while (s < end && (*s == ' ' || *s == '\t'))
                s++;
            e = memchr(s, ' ', (size_t)(end - s)); /* the mnemonic's end */
            e = e ? e : end;
            const char *tab = memchr(s, '\t', (size_t)(e - s));
            e = tab ? tab : e;
            int name = arch < 8 ? kw_isa_name(r, mn, s, (size_t)(e - s)) : -1;
            if (name >= 0)
                mn->v.v[name].count[arch]++;
        }
        /* DPP controls among the operands (each has a '_': most lines have none) */
        if (e >= end || !memchr(e, '_', (size_t)(end - e)))
            continue;
        static const char *const ctl[] = {"row_shr:", "row_shl:", "row_ror:", "row_bcast:",
                                          "row_newbcast:", "quad_perm:", "wave_shr:", "wave_shl:",
                                          "wave_ror:", "wave_rol:", "row_mirror", "row_half_mirror",
                                          "row_share:", "row_xmask:"};
        for (const char *sp = e; sp < end && (sp = memchr(sp, ' ', (size_t)(end - sp))); sp++) {
            const char *q = sp + 1; /* a word after a space */
            if (q >= end || (*q != 'r' && *q != 'q' && *q != 'w'))
                continue; /* every control starts a word with r, q or w */
            for (size_t c = 0; c < sizeof(ctl) / sizeof(ctl[0]); c++) {
                if (*q != ctl[c][0])
                    continue;
                size_t cl = strlen(ctl[c]);
                if ((size_t)(end - q) < cl || memcmp(q, ctl[c], cl))
                    continue;
                const char *z = q + cl;
                if (z < end && *z == '[') { /* quad_perm:[2,3,0,1]: through the bracket */
                    while (z < end && *z != ']' && *z != ' ')
                        z++;
                    z += z < end && *z == ']';
                } else if (ctl[c][cl - 1] == ':')
                    while (z < end && *z != ' ' && *z != ',')
                        z++;
                kw_mnem_add(r, dpp, q, (size_t)(z - q), arch);
            }
        }
    }
}

static void kw_isa_notable(kw_render *r, const kw_mnems *mn, const kw_mnems *dpp) {
    kw_buf *o = r->out;
    KW_R_HEADING(r, 3, "Notable instructions present");
    bool any = false;
    for (int pass = 0; pass < 2; pass++) {
        const kw_mnems *m = pass ? dpp : mn;
        for (size_t i = 0; i < m->v.n; i++) {
            const char *key = m->v.v[i].name.text;
            char *dkey = pass ? kw_arena_printf(&r->scratch, "dpp:%s", key) : NULL;
            const char *note = kw_isa_note_for(r->notes, pass ? (dkey ? dkey : key) : key);
            if (!note || !strncmp(key, "s_waitcnt", 9) || !strcmp(key, "s_endpgm"))
                continue;
            if (!any) {
                static const char *const head[] = {"Instruction", "Count", "What it does"};
                kw_r_table(r, 3, head);
            }
            any = true;
            kw_r_row(r);
            kw_r_cell(r);
            kw_md_code(o, pass ? kw_arena_printf(&r->scratch, "DPP %s", key) : key, r->in);
            kw_r_cell(r);
            for (size_t a = 0; a < r->archs.n && a < 8; a++)
                kw_r_plainf(r, "%s%s %u", a ? ", " : "", r->archs.v[a].arch, m->v.v[i].count[a]);
            kw_r_cell(r);
            kw_md_text(o, note, r->in);
        }
    }
    if (any)
        kw_r_table_end(r);
    if (!any)
        kw_buf_puts(o, "None of the instructions in annotations/isa/notes.txt appear.\n");
    kw_buf_putc(o, '\n');
}

/* The count of class i (kw_isa_class_key) of an arch, when known. */
static bool kw_isa_class(const kw_rarch *a, size_t i, long long *v) {
    *v = kw_isa_class_count(&a->facts->classes, i);
    return *v >= 0;
}

static void kw_risa_classes(kw_render *r) {
    kw_buf *o = r->out;
    KW_R_HEADING(r, 3, "Instruction classes");
    /* every class of the schema when an arch has class counts */
    size_t nkeys = 0;
    long long maxn = 0;
    for (size_t a = 0; a < r->archs.n; a++) {
        if (!kw_isa_classes_known(&r->archs.v[a].facts->classes))
            continue;
        for (size_t i = 0; kw_isa_class_key(i); i++) {
            const char *key = kw_isa_class_key(i);
            long long v;
            nkeys = i + 1;
            if (strcmp(key, "insns") && strcmp(key, "dpp") && strcmp(key, "sdwa") &&
                kw_isa_class(&r->archs.v[a], i, &v) && v > maxn)
                maxn = v;
        }
    }
    if (!nkeys) {
        KW_R_LIT(r, "No instruction classes recorded.\n\n");
        return;
    }
    size_t ncol = r->archs.n + 2;
    const char **head = kw_arena_alloc(&r->scratch, ncol * sizeof *head);
    char *align = kw_arena_alloc(&r->scratch, ncol + 1);
    if (!head || !align)
        return;
    head[0] = "Class";
    head[ncol - 1] = "";
    memset(align, 'r', ncol);
    align[0] = align[ncol - 1] = '-';
    align[ncol] = 0;
    for (size_t a = 0; a < r->archs.n; a++)
        head[a + 1] = r->o->html_blocks ? r->archs.v[a].arch : kw_r_safe(r, r->archs.v[a].arch);
    kw_r_table_aligned(r, (int)ncol, head, align);
    for (size_t k = 0; k < nkeys; k++) {
        const char *key = kw_isa_class_key(k);
        long long first = -1;
        bool nonzero = false;
        for (size_t a = 0; a < r->archs.n; a++) {
            long long v;
            if (kw_isa_class(&r->archs.v[a], k, &v)) {
                nonzero |= v != 0;
                if (first < 0)
                    first = v;
            }
        }
        if (!nonzero)
            continue;
        bool modifier = !strcmp(key, "dpp") || !strcmp(key, "sdwa");
        bool total = !strcmp(key, "insns");
        kw_r_row(r);
        kw_r_cell(r);
        kw_r_plainf(r, "%s%s", total ? "all instructions" : key,
                    modifier ? " (modifier, across classes)" : "");
        for (size_t a = 0; a < r->archs.n; a++) {
            long long v;
            kw_r_cell(r);
            if (kw_isa_class(&r->archs.v[a], k, &v))
                kw_r_plainf(r, "%lld", v);
            else
                kw_buf_puts(o, "-");
        }
        kw_r_cell(r);
        if (!modifier && !total && maxn > 0) {
            int bar = (int)((first > 0 ? first : 0) * 30 / maxn);
            if (first > 0 && bar == 0)
                bar = 1;
            char hashes[32];
            memset(hashes, '#', (size_t)bar);
            hashes[bar] = 0;
            kw_md_code(o, hashes, r->in);
        }
    }
    kw_r_table_end(r);
    kw_buf_putc(o, '\n');
    KW_R_LIT(r, "(Classes with a zero count everywhere are left out; the bar is the first "
                "arch's count.)\n\n");
}

/* Can the arch's name go into an HTML attribute as it is? */
static bool kw_isa_attr_safe(const char *arch) {
    return *arch && strspn(arch, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                 "0123456789:+_.-") == strlen(arch);
}

/* Why a listing has no source lines, when it has none. */
static void kw_isa_no_lines(kw_render *r, const kw_rarch *a) {
    if (a->facts->lines.n)
        return;
    const char *why = a->facts->lines_note;
    kw_buf_puts(r->out, "No source lines: ");
    kw_md_text(r->out, why ? why : "the code object has no line tables", false);
    kw_buf_puts(r->out, " (compile with `-Xarch_device -gline-tables-only` for source-to-ISA "
                        "lines).\n\n");
}

/* The listing with the source lines of `lines` ({offset, location}) interleaved. */
static void kw_isa_listing(kw_render *r, const kw_rarch *a) {
    kw_buf *o = r->out;
    const char *isa = a->facts->isa;
    if (!isa && a->facts->isa_note) {
        /* schema 2: the object is gone or changed; never another object's ISA */
        kw_buf_printf(o, "%s ISA not shown: ", kw_r_safe(r, a->arch));
        kw_md_text(o, a->facts->isa_note, false);
        kw_buf_puts(o, ".\n\n");
    }
    if (!isa)
        return;
    size_t nl, n; /* lines; instruction lines ("OFFSET: text"), not labels */
    const kw_r_isa_line *lns = kw_r_isa_lines(r, a->facts, &nl, &n);
    if (!lns) {
        KW_R_LIT(r, "(out of memory)\n\n");
        return;
    }
    if (r->o->listing_in_view && kw_isa_attr_safe(a->arch)) {
        /* the site's page script writes the text from the view's data */
        kw_buf_printf(o,
                      "<details class=\"kw-listing\" data-arch=\"%s\"><summary>%s ISA listing "
                      "(%zu instructions)</summary>\n\n<pre class=\"kw-listing-text\"><code "
                      "class=\"language-asm\"></code></pre>\n\n",
                      a->arch, a->arch, n);
        kw_isa_no_lines(r, a);
        kw_buf_puts(o, "</details>\n\n");
        return;
    }
    /* an HTML block: the arch's name escaped as HTML, not as Markdown */
    kw_buf_puts(o, "<details><summary>");
    kw_esc_html(o, a->arch, strlen(a->arch), false);
    kw_buf_printf(o, " ISA listing (%zu instructions)</summary>\n\n", n);
    const kw_isa_line *lines = a->facts->lines.v;
    kw_buf t;
    kw_buf_init(&t);
    size_t li = 0, nlines = a->facts->lines.n;
    for (size_t i = 0; i < nl; i++) {
        const kw_r_isa_line ln = lns[i];
        while (ln.insn && li < nlines) {
            const kw_isa_line *x = &lines[li];
            long long at = x->offset;
            if (at < 0 || (unsigned long long)at > ln.offset)
                break;
            const char *file = x->location.file;
            long long line = x->location.line;
            if (file) {
                const kw_src_file *f = kw_page_src(&r->page, file);
                const char *text;
                size_t tl;
                kw_buf_printf(&t, "; %s:%lld", kw_r_path(r, file), line);
                if (kw_src_line_unindented(f, (int)line, &text, &tl)) {
                    kw_buf_puts(&t, "  ");
                    kw_buf_append(&t, text, tl);
                }
                kw_buf_putc(&t, '\n');
            }
            li++;
        }
        kw_buf_append(&t, ln.p, ln.len);
        kw_buf_putc(&t, '\n');
    }
    kw_md_fence(o, "asm", kw_buf_str(&t));
    kw_buf_free(&t);
    kw_isa_no_lines(r, a);
    kw_buf_puts(o, "</details>\n\n");
}

void kw_render_isa(kw_render *r) {
    kw_buf *o = r->out;
    KW_R_HEADING(r, 2, "5. AMD ISA / Hardware Details");
    if ((!r->mk->k && !r->page.asm_k) || !r->archs.n) {
        if (r->mk->asm_code_object)
            kw_buf_printf(o, "ISA not read: %s.\n\n",
                          kw_r_safe_prose(r, r->page.asm_note ? r->page.asm_note
                                                        : "the code object has no arch"));
        else
            KW_R_LIT(r, "No device facts for this kernel in the index.\n\n");
        return;
    }
    bool any = false;
    for (size_t a = 0; a < r->archs.n; a++)
        any |= kw_isa_has(&r->archs.v[a]);
    if (!any && r->page.triton) {
        /* a hook's sidecar carries no code-object facts: the cache has them */
        kw_buf_printf(o,
                      "ISA not read: this index has no code-object facts of the "
                      "specialization for %s. The hook's sidecar does not read the `.hsaco`; "
                      "index it together with Triton's cache, `kwalk index SIDECARS "
                      "--triton-cache DIR`",
                      kw_r_arch_list(r));
        if (r->page.triton->cache_dir) {
            kw_buf_puts(o, " (this compile's folder: ");
            kw_md_code(o, kw_r_path(r, r->page.triton->cache_dir), false);
            kw_buf_putc(o, ')');
        }
        kw_buf_puts(o, "; docs/triton.md.\n\n");
    } else if (!any) {
        kw_buf_printf(o,
                      "ISA not captured: the sidecar has no ISA facts for %s (the "
                      "plugin's host job records `target_id`, `resources`, `isa` and "
                      "`classes` from the code objects it finds; check its warnings).\n\n",
                      kw_r_safe(r, kw_r_arch_list(r)));
    } else {
        KW_R_HEADING(r, 3, "Resources and occupancy");
        kw_risa_resources(r);
        kw_risa_classes(r);
        kw_mnems mn, dpp;
        kw_tok_names toks;
        memset(&mn, 0, sizeof mn);
        memset(&dpp, 0, sizeof dpp);
        memset(&toks, 0, sizeof toks);
        for (size_t a = 0; a < r->archs.n; a++) {
            if (r->archs.v[a].facts->isa)
                kw_isa_scan(r, r->archs.v[a].facts, a, &mn, &dpp, &toks);
        }
        if (mn.v.n) {
            kw_isa_notable(r, &mn, &dpp);
            KW_R_HEADING(r, 3, "Cross-lane patterns");
            if (!dpp.v.n) {
                KW_R_LIT(r, "No DPP control in the listing.\n\n");
            } else {
                kw_buf_puts(o, "DPP controls in the listing: ");
                for (size_t i = 0; i < dpp.v.n; i++) {
                    kw_buf_puts(o, i ? ", " : "");
                    kw_md_code(o, dpp.v.v[i].name.text, false);
                }
                bool ir = false;
                for (size_t a = 0; a < r->archs.n; a++)
                    ir |= r->archs.v[a].ir && r->archs.v[a].ir->idioms.n > 0;
                kw_buf_puts(o, ir ? ". The reductions they implement are listed in section 2 "
                                    "(IR idioms).\n\n"
                                  : ". Which reduction each step belongs to needs IR facts "
                                    "(none in this sidecar).\n\n");
            }
            unsigned lds = 0;
            for (size_t i = 0; i < mn.v.n; i++)
                if (!strncmp(mn.v.v[i].name.text, "ds_", 3))
                    for (size_t a = 0; a < r->archs.n && a < 8; a++)
                        lds += mn.v.v[i].count[a];
            KW_R_HEADING(r, 3, "LDS use");
            if (!lds) {
                KW_R_LIT(r, "No `ds_` instruction in the listing.\n\n");
            } else {
                kw_buf_puts(o, "LDS instructions: ");
                bool first = true;
                for (size_t i = 0; i < mn.v.n; i++) {
                    if (strncmp(mn.v.v[i].name.text, "ds_", 3))
                        continue;
                    kw_buf_puts(o, first ? "" : ", ");
                    kw_md_code(o, mn.v.v[i].name.text, false);
                    kw_buf_printf(o, " x%u", mn.v.v[i].count[0]);
                    first = false;
                }
                kw_buf_puts(o, " (counts for the first arch).\n\n");
            }
        } else {
            KW_R_LIT(r, "No ISA listing in the sidecar: notable instructions and cross-lane "
                        "patterns are not shown.\n\n");
        }
        KW_R_HEADING(r, 3, "Listings");
        for (size_t a = 0; a < r->archs.n; a++)
            kw_isa_listing(r, &r->archs.v[a]);
    }
    const kw_kernel *k = r->mk->k;
    if (!k) {
        KW_R_LIT(r, "Read from the code object now, not from a sidecar.\n\n");
        return;
    }
    if (r->page.triton) {
        kw_buf_puts(o, "LDS Triton allocated for this specialization (`shared` in `NAME.json`): ");
        if (r->page.triton->shared_bytes >= 0)
            kw_buf_printf(o, "%lld bytes per program.\n\n", r->page.triton->shared_bytes);
        else
            kw_buf_puts(o, "not recorded.\n\n");
        return;
    }
    long long lds = 0;
    for (size_t i = 0; i < k->shared.n; i++)
        lds += k->shared.v[i].bytes > 0 ? k->shared.v[i].bytes : 0;
    kw_buf_printf(o, "Shared memory declared in the source: %lld bytes of static `__shared__` "
                     "per block (section 2).\n\n",
                  lds);
}
