/* kw_render_isa.c: section 5, AMD ISA / hardware details, from the ISA facts
 * of each arch (kernels[].archs.<arch>: target_id, resources with occupancy,
 * classes, isa listing, lines): resources and occupancy side by side per
 * arch, the instruction class histogram, the notable instructions and DPP
 * controls present with their notes (annotations/isa/notes.txt), LDS use,
 * and the listing itself (collapsible, with source lines when the code
 * object had line tables). What the section says is the page model's ISA
 * part (model/kw_page_isa.h, r->page.isa): nothing is counted or
 * classified here. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/kw_esc.h"
#include "render/kw_md.h"
#include "render/kw_render.h"

/* The page model's ISA part of arch number a shown. */
static const kw_page_isa_arch *kw_isa_arch(const kw_render *r, size_t a) {
    return &r->page.isa->archs.v[a];
}

/* ---- resources ---------------------------------------------------------------------------- */

/* One cell: the text t of a fact, "-" when it is NULL (not known). */
static void kw_isa_cell(kw_render *r, size_t a, const char *t) {
    if (!kw_isa_arch(r, a)->has)
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
    for (size_t a = 0; a < r->archs.n; a++) {
        const kw_co_occ_block *ob = &r->archs.v[a].occ_block;
        const kw_isa_resources *res = &r->archs.v[a].facts->resources;
        const char *arch = r->archs.v[a].arch;
        if (kw_isa_arch(r, a)->occ_differs)
            kw_r_ptf(r,
                     "On %s, LLVM's occupancy of %lld waves per SIMD assumes workgroups "
                     "as small as one work-item; the kernel is compiled for %u "
                     "work-items per workgroup (%u waves), and with registers allowing "
                     "%u waves per SIMD a CU holds %u such workgroups at once: %u waves "
                     "per SIMD is what a launch at that size reaches.",
                     arch, res->occupancy, ob->block, ob->waves_per_wg, ob->by_regs, ob->wgs_per_cu,
                     ob->waves);
        if (kw_isa_arch(r, a)->spills)
            kw_r_ptf(r,
                     "On %s the kernel spills %lld VGPR%s and %lld SGPR%s to scratch "
                     "(%lld bytes per lane of private memory): each spill is a store and "
                     "a later load through the scratch path, slow beside a register.",
                     arch, res->vgpr_spill > 0 ? res->vgpr_spill : 0,
                     res->vgpr_spill == 1 ? "" : "s", res->sgpr_spill > 0 ? res->sgpr_spill : 0,
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
        head[a + 1] =
            r->o->printer == KW_R_HTML ? r->archs.v[a].arch : kw_r_safe(r, r->archs.v[a].arch);
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
                t = kw_isa_arch(r, a)->limiter;
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
            kw_isa_cell(r, a, t);
        }
    }
    kw_r_table_end(r);
    kw_r_gap(r);
    kw_r_para(r, "From each code object's metadata (NT_AMDGPU_METADATA); occupancy as LLVM "
                 "computes it for the kernel's register, LDS and workgroup-size limits.");
    kw_risa_occ_spill(r);
}

/* ---- mnemonics, DPP controls, classes ------------------------------------------------------ */

static void kw_isa_notable(kw_render *r, const kw_page_isa *pi) {
    kw_buf *o = r->out;
    KW_R_HEADING(r, 3, "Notable instructions present");
    bool any = false;
    for (int pass = 0; pass < 2; pass++) {
        const kw_page_isa_count *v = pass ? pi->dpp.v : pi->mnems.v;
        size_t n = pass ? pi->dpp.n : pi->mnems.n;
        for (size_t i = 0; i < n; i++) {
            const char *key = v[i].name.text;
            const char *note = v[i].note;
            if (!note)
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
            for (size_t a = 0; a < r->archs.n && a < KW_PAGE_ISA_COUNTED; a++)
                kw_r_plainf(r, "%s%s %u", a ? ", " : "", r->archs.v[a].arch, v[i].count[a]);
            kw_r_cell(r);
            kw_md_text(o, note, r->in);
        }
    }
    if (any)
        kw_r_table_end(r);
    if (any)
        kw_r_gap(r);
    else
        kw_r_para(r, "None of the instructions in annotations/isa/notes.txt appear.");
}

static void kw_risa_classes(kw_render *r) {
    kw_buf *o = r->out;
    const kw_page_isa *pi = r->page.isa;
    KW_R_HEADING(r, 3, "Instruction classes");
    /* every class of the schema when an arch has class counts */
    if (!pi->nkeys) {
        kw_r_para(r, "No instruction classes recorded.");
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
        head[a + 1] =
            r->o->printer == KW_R_HTML ? r->archs.v[a].arch : kw_r_safe(r, r->archs.v[a].arch);
    kw_r_table_aligned(r, (int)ncol, head, align);
    for (size_t k = 0; k < pi->classes.n; k++) {
        const kw_page_isa_class_row *row = &pi->classes.v[k];
        kw_r_row(r);
        kw_r_cell(r);
        kw_r_plainf(r, "%s%s", row->total ? "all instructions" : row->key,
                    row->modifier ? " (modifier, across classes)" : "");
        for (size_t a = 0; a < r->archs.n; a++) {
            kw_r_cell(r);
            if (row->v[a] >= 0)
                kw_r_plainf(r, "%lld", row->v[a]);
            else
                kw_buf_puts(o, "-");
        }
        kw_r_cell(r);
        if (row->bar >= 0) {
            char hashes[32];
            memset(hashes, '#', (size_t)row->bar);
            hashes[row->bar] = 0;
            kw_md_code(o, hashes, r->in);
        }
    }
    kw_r_table_end(r);
    kw_r_gap(r);
    kw_r_para(r, "(Classes with a zero count everywhere are left out; the bar is the first "
                 "arch's count.)");
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
    kw_r_p(r);
    kw_r_t(r, "No source lines: ");
    kw_md_text(r->out, why ? why : "the code object has no line tables", kw_r_prose_in(r));
    kw_r_t(r, " (compile with `-Xarch_device -gline-tables-only` for source-to-ISA lines).");
    kw_r_p_end(r);
}

/* The listing with the source lines of `lines` ({offset, location}) interleaved. */
static void kw_isa_listing(kw_render *r, const kw_rarch *a) {
    kw_buf *o = r->out;
    const char *isa = a->facts->isa;
    if (!isa && a->facts->isa_note) {
        /* schema 2: the object is gone or changed; never another object's ISA */
        kw_r_p(r);
        kw_r_s(r, a->arch);
        kw_r_t(r, " ISA not shown: ");
        kw_md_text(o, a->facts->isa_note, kw_r_prose_in(r));
        kw_r_t(r, ".");
        kw_r_p_end(r);
    }
    if (!isa)
        return;
    const kw_page_isa_arch *x = kw_isa_arch(r, (size_t)(a - r->archs.v));
    /* lines; instruction lines ("OFFSET: text"), not labels */
    size_t nl = x->n, n = x->ninsn;
    const kw_page_isa_line *lns = x->lines;
    if (r->o->listing_in_view && kw_isa_attr_safe(a->arch)) {
        /* the site's page script writes the text from the view's data */
        bool html = kw_r_html(r);
        kw_buf_printf(o,
                      "<details class=\"kw-listing\" data-arch=\"%s\"><summary>%s ISA listing "
                      "(%zu instructions)</summary>\n%s<pre class=\"kw-listing-text\"><code "
                      "class=\"language-asm\"></code></pre>\n%s",
                      a->arch, a->arch, n, html ? "" : "\n", html ? "" : "\n");
        kw_isa_no_lines(r, a);
        kw_buf_puts(o, html ? "</details>\n" : "</details>\n\n");
        return;
    }
    /* an HTML block: the arch's name escaped as HTML, not as Markdown */
    bool html = kw_r_html(r);
    kw_buf_puts(o, "<details><summary>");
    kw_esc_html(o, a->arch, strlen(a->arch), false);
    kw_buf_printf(o, " ISA listing (%zu instructions)</summary>\n%s", n, html ? "" : "\n");
    const kw_isa_line *lines = a->facts->lines.v;
    kw_buf t;
    kw_buf_init(&t);
    size_t li = 0, nlines = a->facts->lines.n;
    for (size_t i = 0; i < nl; i++) {
        const kw_page_isa_line ln = lns[i];
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
    kw_r_fence(r, "asm", kw_buf_str(&t));
    kw_buf_free(&t);
    kw_isa_no_lines(r, a);
    kw_buf_puts(o, html ? "</details>\n" : "</details>\n\n");
}

void kw_render_isa(kw_render *r) {
    KW_R_HEADING(r, 2, "5. AMD ISA / Hardware Details");
    if ((!r->mk->k && !r->page.asm_k) || !r->archs.n) {
        if (r->mk->asm_code_object) {
            kw_r_p(r);
            kw_r_t(r, "ISA not read: ");
            kw_r_sp(r, r->page.asm_note ? r->page.asm_note : "the code object has no arch");
            kw_r_t(r, ".");
            kw_r_p_end(r);
        } else
            kw_r_para(r, "No device facts for this kernel in the index.");
        return;
    }
    const kw_page_isa *pi = r->page.isa;
    bool any = pi->any;
    if (!any && r->page.triton) {
        /* a hook's sidecar carries no code-object facts: the cache has them */
        kw_r_p(r);
        kw_r_tf(r,
                "ISA not read: this index has no code-object facts of the "
                "specialization for %s. The hook's sidecar does not read the `.hsaco`; "
                "index it together with Triton's cache, `kwalk index SIDECARS "
                "--triton-cache DIR`",
                kw_r_arch_list(r));
        if (r->page.triton->cache_dir) {
            kw_r_t(r, " (this compile's folder: ");
            kw_r_c(r, kw_r_path(r, r->page.triton->cache_dir));
            kw_r_t(r, ")");
        }
        kw_r_t(r, "; docs/triton.md.");
        kw_r_p_end(r);
    } else if (!any) {
        kw_r_p(r);
        kw_r_t(r, "ISA not captured: the sidecar has no ISA facts for ");
        kw_r_s(r, kw_r_arch_list(r));
        kw_r_t(r, " (the plugin's host job records `target_id`, `resources`, `isa` and "
                  "`classes` from the code objects it finds; check its warnings).");
        kw_r_p_end(r);
    } else {
        KW_R_HEADING(r, 3, "Resources and occupancy");
        kw_risa_resources(r);
        kw_risa_classes(r);
        if (pi->mnems.n) {
            kw_isa_notable(r, pi);
            KW_R_HEADING(r, 3, "Cross-lane patterns");
            if (!pi->dpp.n) {
                kw_r_para(r, "No DPP control in the listing.");
            } else {
                kw_r_p(r);
                kw_r_t(r, "DPP controls in the listing: ");
                for (size_t i = 0; i < pi->dpp.n; i++) {
                    kw_r_t(r, i ? ", " : "");
                    kw_r_c(r, pi->dpp.v[i].name.text);
                }
                bool ir = false;
                for (size_t a = 0; a < r->archs.n; a++)
                    ir |= r->archs.v[a].ir && r->archs.v[a].ir->idioms.n > 0;
                kw_r_t(r, ir ? ". The reductions they implement are listed in section 2 "
                               "(IR idioms)."
                             : ". Which reduction each step belongs to needs IR facts "
                               "(none in this sidecar).");
                kw_r_p_end(r);
            }
            KW_R_HEADING(r, 3, "LDS use");
            if (!pi->lds) {
                kw_r_para(r, "No `ds_` instruction in the listing.");
            } else {
                kw_r_p(r);
                kw_r_t(r, "LDS instructions: ");
                bool first = true;
                for (size_t i = 0; i < pi->mnems.n; i++) {
                    const kw_page_isa_count *m = &pi->mnems.v[i];
                    if (!m->lds)
                        continue;
                    kw_r_t(r, first ? "" : ", ");
                    kw_r_c(r, m->name.text);
                    kw_r_tf(r, " x%u", m->count[0]);
                    first = false;
                }
                kw_r_t(r, " (counts for the first arch).");
                kw_r_p_end(r);
            }
        } else {
            kw_r_para(r, "No ISA listing in the sidecar: notable instructions and cross-lane "
                         "patterns are not shown.");
        }
        KW_R_HEADING(r, 3, "Listings");
        for (size_t a = 0; a < r->archs.n; a++)
            kw_isa_listing(r, &r->archs.v[a]);
    }
    const kw_kernel *k = r->mk->k;
    if (!k) {
        kw_r_para(r, "Read from the code object now, not from a sidecar.");
        return;
    }
    if (r->page.triton) {
        kw_r_p(r);
        kw_r_t(r, "LDS Triton allocated for this specialization (`shared` in `NAME.json`): ");
        if (r->page.triton->shared_bytes >= 0)
            kw_r_tf(r, "%lld bytes per program.", r->page.triton->shared_bytes);
        else
            kw_r_t(r, "not recorded.");
        kw_r_p_end(r);
        return;
    }
    long long lds = 0;
    for (size_t i = 0; i < k->shared.n; i++)
        lds += k->shared.v[i].bytes > 0 ? k->shared.v[i].bytes : 0;
    kw_r_ptf(r,
             "Shared memory declared in the source: %lld bytes of static `__shared__` "
             "per block (section 2).",
             lds);
}
