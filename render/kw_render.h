/* kw_render.h: rendering one kernel instantiation's walkthrough (the seed's
 * six sections, docs/render.md) and the index page of `kwalk render --all`.
 * Internal to the renderer: cmd_render.c and the page workers
 * (kw_pages_pool.c) drive it, one kw_render_*.c file per section writes
 * into the shared context below.
 *
 * Rules every section follows:
 *   - every statement comes from the index (sidecar facts), from the source
 *     file at a recorded location (read now, checked against what the sidecar
 *     says is there), or from the annotation data (hardware peaks, ISA notes);
 *   - a location is printed as `path:line` (a code span), the path shortened
 *     by --root;
 *   - a missing fact is stated with what would provide it, never invented;
 *   - what is computed (shape bindings, entry paths, --shape verdicts,
 *     geometry, IR work, section 5's counts and classes, the source <-> ISA
 *     view, a Triton page's TTGIR reading) is read from the page model
 *     (model/kw_page.h, kw_page_isa.h, kw_ttgir.h), built by
 *     kw_render_kernel before the first section writes. */
#ifndef KW_RENDER_H
#define KW_RENDER_H

#include <stdbool.h>
#include <string.h>

#include "common/kw_buf.h"
#include "common/kw_num.h"
#include "model/kw_expr.h"
#include "model/kw_hw.h"
#include "model/kw_ipage.h"
#include "model/kw_isa_notes.h"
#include "model/kw_model.h"
#include "model/kw_operand.h"
#include "model/kw_page.h"
#include "model/kw_page_facts.h"
#include "model/kw_page_isa.h"
#include "model/kw_page_perf.h"
#include "model/kw_provider.h"
#include "model/kw_python_chains.h"
#include "model/kw_src.h"
#include "model/kw_ttgir.h"
#include "render/kw_md.h"

/* The printer a page's blocks are written by (kw_render_opts.printer). */
typedef enum kw_r_printer { KW_R_MARKDOWN = 0, KW_R_HTML = 1 } kw_r_printer;

/* One arch as the page shows it (model/kw_page.h). */
typedef kw_page_arch kw_rarch;

typedef struct kw_render_opts {
    const char *db_path;     /* the index, as given */
    const char *arch;        /* --arch: only this arch's facts; NULL for all */
    double time_us;          /* --time-us, < 0 when not given */
    const char *root;        /* --root: printed paths are relative to it */
    const char *gpu;         /* --gpu product name, NULL for the arch's default */
    const char *python_root; /* --python-root, NULL when not scanned */
    bool all;                /* part of `render --all` (links to the index page) */
    /* `kwalk site`: section 5's listings are left for the page script to
     * write from the source <-> ISA view's data (kw_html_isa.c): an empty
     * <details class="kw-listing" data-arch=ARCH> per arch, not the text */
    bool listing_in_view;
    /* the page's printer: Markdown (`render`, `map`) or HTML (`site`:
     * every block written as the HTML libcmark-gfm makes of its Markdown) */
    kw_r_printer printer;
    /* --trace: what the trace measured of each instantiation (trace/'s
     * kw_tstats_source); NULL when none */
    const kw_perf_source *trace;
    /* tests: arch facts records to show instead of the kernel's own */
    const kw_rarch *arch_override;
    size_t narch_override;
} kw_render_opts;

/* A file:line a walkthrough refers to, for the source file index. */
typedef struct kw_ref {
    const char *file;
    int line;
    const char *role;  /* "kernel", "launch", "dispatch", "entry", "Python op", "Python call",
                          "device helper" */
    const char *label; /* what is there */
} kw_ref;

typedef struct kw_render {
    kw_model *m;
    kw_srcs *srcs;
    const kw_providers *providers;
    const kw_gpus *gpus;
    const kw_isa_notes *notes;
    const kw_render_opts *o;
    kw_buf *out;
    kw_arena scratch; /* per kernel; reset by kw_render_kernel */
    /* the kernel being rendered */
    const kw_mkernel *mk;
    KW_ARRAY(kw_ref) refs;
    KW_ARRAY(kw_rarch) archs; /* the archs the page shows (--arch picks one) */
    size_t py_counted;        /* the Python op whose left-out calls the page counted first */
    /* what the page says, decided before it is written (model/kw_page.h) */
    kw_page page;
    /* the table being written (kw_r_table), and where a cell's inline text
     * goes: KW_MD_CELL outside tables, the table's kw_md_table_in inside */
    kw_md_table tab;
    kw_md_list list; /* the list being written (kw_r_list) */
    kw_md_in in;
    /* the page being written: blocks written elsewhere (a part kept for
     * later pages) are Markdown */
    kw_buf *page_out;
    kw_page_isa_defs defs; /* kw_r_def_range's and the ISA view's, kept across pages */
    /* a site page's parts that only HTML has (kw_html_page sets them; NULL
     * outside a site): section 3's diagram as SVG, and the charts and the
     * source <-> ISA view written before section 6 */
    void (*site_flow)(struct kw_render *r, kw_buf *out);
    void (*site_views)(struct kw_render *r, kw_buf *out);
    /* a site page's converter of a doc comment, an author's Markdown
     * (libcmark-gfm, kw_html_from_md; NULL outside a site): never used
     * for generated text */
    kw_status (*md_html)(const char *md, size_t n, kw_buf *out, kw_err *err);
    /* the block being written (kw_r_h, kw_r_p, kw_r_note): what it is
     * (0: none), and a heading's level */
    int block;
    int block_level;
    /* the hardware table of section 4 depends only on the archs shown: kept */
    kw_buf hw_table;
    char hw_key[128];
} kw_render;

void kw_render_init(kw_render *r, kw_model *m, kw_srcs *srcs, const kw_providers *p,
                    const kw_gpus *g, const kw_isa_notes *n, const kw_render_opts *o);
void kw_render_free(kw_render *r);

/* The whole walkthrough of kernel ki (an index into m->kernels) into out. */
kw_status kw_render_kernel(kw_render *r, size_t ki, kw_buf *out, kw_err *err);
/* The index page of `render --all` (p: its model, built from r's model):
 * kernels grouped by template. */
void kw_render_index(kw_render *r, const kw_ipage *p, kw_buf *out);
/* The index's counts, "N kernel instantiations of M kernels (templates), L
 * launch sites, E host entry points", in Triton's words where the kernels
 * are Triton specializations (html: code spans as HTML). */
void kw_render_index_counts(const kw_ipage *p, kw_buf *out, bool html);

/* ---- shared helpers (kw_r.c) ------------------------------------------------------------- */

/* path as printed: relative to --root when under it. */
const char *kw_r_path(const kw_render *r, const char *path);
/* `path:line` */
void kw_r_loc(kw_render *r, const char *file, int line);
void kw_r_kloc(kw_render *r, const kw_loc *l);
/* Remember a file:line for section 6. */
void kw_r_ref(kw_render *r, const char *file, int line, const char *role, const char *label);
/* Quote lines [first, last] of file as a fenced block of "N | text" lines
 * headed by a comment naming the place; or say why it cannot. */
void kw_r_quote(kw_render *r, const char *file, int first, int last, const char *lang);
/* Does line `line` of file still hold `token` (as a whole identifier, or as
 * text with any_text)? When not, write a sentence saying the source changed
 * since the build (or cannot be read) and return false. */
bool kw_r_check(kw_render *r, const char *file, int line, const char *token, bool any_text,
                const char *what);
/* The unqualified name of a printed function name: "ns::k<float, 4>" -> "k",
 * "ns::A<int>::f" -> "f"; lambdas and operators give NULL. In scratch. */
const char *kw_r_base_name(kw_render *r, const char *printed);
/* A printed name with the --root prefix of paths inside it removed
 * ("f::(lambda at /src/a.cu:3:5)" -> "f::(lambda at a.cu:3:5)"). */
const char *kw_r_name(kw_render *r, const char *printed);
/* A template argument as shown: its value, or for a type argument the source
 * spelled with a typedef, "written (value)": "opus::fp8_t (_BitInt(8))". */
const char *kw_r_targ_value(kw_render *r, const kw_template_arg *t);
/* A page's title: the kernel's printed name, or for a trampoline (ck_tile's
 * kentry) the kernel struct it runs, short ("ck_tile::GemmKernel<...>": its
 * arguments are in the overview, the kentry name and symbol too). */
const char *kw_r_title(kw_render *r, const kw_mkernel *mk);
/* A short form of a printed name for prose: the whole name when short,
 * else "name<...>". */
const char *kw_r_short(kw_render *r, const char *printed);
/* s (text from the inputs: a path, an arch, a reason) as kw_md_safe writes
 * it in Markdown prose, in scratch: for a sentence or heading formatted with
 * printf. */
const char *kw_r_safe(kw_render *r, const char *s);
/* The same for a reason the model or a reader wrote, whose `code` stays code
 * (kw_md_safe_prose). */
const char *kw_r_safe_prose(kw_render *r, const char *s);
/* "a, b and c" of the arch names shown */
const char *kw_r_arch_list(kw_render *r);
/* A table of n columns (kw_md_table: GFM, or HTML with the HTML printer) into
 * r->out, written row by row, cell by cell; r->in is for the cells' text. A
 * blank line must follow kw_r_table_end. */
void kw_r_table(kw_render *r, int n, const char *const *titles);
/* align as kw_md_table_open's */
void kw_r_table_aligned(kw_render *r, int n, const char *const *titles, const char *align);
void kw_r_row(kw_render *r);
void kw_r_cell(kw_render *r);
void kw_r_table_end(kw_render *r);
/* A bullet list into r->out (kw_md_list: Markdown, or HTML with
 * the HTML printer), item by item; r->in is for the items' text. A blank line
 * must follow kw_r_list_end. */
void kw_r_list(kw_render *r);
void kw_r_item(kw_render *r, int level);
void kw_r_list_end(kw_render *r);
/* Where a code span or prose written as Markdown prose goes now: KW_MD_TEXT,
 * or KW_MD_HTML inside an HTML table or list. */
static inline kw_md_in kw_r_prose_in(const kw_render *r) {
    return r->in == KW_MD_HTML ? KW_MD_HTML : KW_MD_TEXT;
}
/* Formatted text with no Markdown syntax in it (numbers, words) in a cell
 * or an item. */
void kw_r_plainf(kw_render *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* ---- blocks, in the page's printer -------------------------------------------------------- */

/* Whether the page's blocks are written as HTML now (a site page, the HTML
 * printer, writing into the page): then each block below is the HTML libcmark-gfm
 * makes of its Markdown, and is noted as HTML the converter need not read. */
static inline bool kw_r_html(const kw_render *r) {
    return r->o->printer == KW_R_HTML && r->out == r->page_out;
}
/* A heading of the level: kw_r_h, its inline text (kw_r_t, kw_md_code with
 * kw_r_prose_in ...), kw_r_h_end; a paragraph: kw_r_p ... kw_r_p_end; a
 * note, a paragraph quoted ("> "): kw_r_note ... kw_r_note_end. Each begins
 * a block of the page (after a blank line) and ends with the blank line. */
void kw_r_h(kw_render *r, int level);
void kw_r_h_end(kw_render *r);
void kw_r_p(kw_render *r);
void kw_r_p_end(kw_render *r);
void kw_r_note(kw_render *r);
void kw_r_note_end(kw_render *r);
/* kw_r_p_end, but where a list follows at once (list_follows) its first item
 * begins on the paragraph's next line in Markdown. */
void kw_r_p_end_list(kw_render *r, bool list_follows);
/* The blank line after a table or a list in Markdown; nothing in HTML. */
void kw_r_gap(kw_render *r);
/* The program's own words in the open block (kw_md_lit: `code` the only markup). */
void kw_r_t(kw_render *r, const char *words);
/* The same, formatted (numbers, names the program chose). */
void kw_r_tf(kw_render *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Inputs' text in the open block: kw_md_safe, kw_md_safe_prose, kw_md_code. */
void kw_r_s(kw_render *r, const char *s);
void kw_r_sp(kw_render *r, const char *s);
void kw_r_c(kw_render *r, const char *s);
/* A paragraph of the program's own words. */
void kw_r_para(kw_render *r, const char *words);
/* A paragraph of the program's own words, printf-formatted. */
void kw_r_ptf(kw_render *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A fenced code block (kw_md_fence). */
void kw_r_fence(kw_render *r, const char *lang, const char *text);
/* Raw HTML of the site's own (a diagram, charts) as a block of a site page. */
void kw_r_raw_html(kw_render *r, const char *html, size_t n);
/* A heading of the program's own words, and paragraphs of them (each ending
 * with a blank line, as "text\n\n"): written as kw_r_h and kw_r_p would,
 * or, where the words hold Markdown beyond `code`, as Markdown for the
 * converter. */
void kw_r_lit(kw_render *r, int level, const char *text);
#define KW_R_LIT(r, text) kw_r_lit((r), 0, "" text)
#define KW_R_HEADING(r, level, text) kw_r_lit((r), (level), "" text)
/* kw_src_def_range of f, remembered: a page asks for its kernel's and each
 * callee's definition, and the pages of one template for the same ones. */
bool kw_r_def_range(kw_render *r, const kw_src_file *f, int line, int col, kw_src_def *out);
/* ---- the Python side's helpers (kw_r_python.c) ------------------------------------------- */

/* A chain of calls from the model's code (python/kwalk_pyscan.py) as a
 * numbered list, op_label its title's op: each call with its file:line and
 * `if` tests, then the op at its def line and its binding, or with launch
 * (a Triton wrapper's) the wrapper launching `kernel[grid](...)` there. */
void kw_r_python_chain(kw_render *r, const kw_py_chain *c, const char *op_label,
                       const kw_py_launch *launch, const char *kernel);
/* "And N more outermost callers in the Python trees reach it." of the n
 * chains found when shown of them are listed; nothing when n <= shown. */
void kw_r_python_more(kw_render *r, size_t n, size_t shown);
/* The calls not resolved statically that could lead to op pc->ops.v[op],
 * with the names they may call; then how many others were left out, and why:
 * said once per page, a line referring to op `before` (an op whose calls
 * this page showed already; (size_t)-1: none) when its counts are the same. */
void kw_r_python_unresolved(kw_render *r, const kw_py_chains *pc, size_t op, size_t before);

/* ---- IR facts as lines (kw_r_ir.c) ------------------------------------------------------ */

/* "From the IR facts of ARCH (N memory accesses ...):" and a line per load,
 * store and atomic (groups as one line), then the analysis' notes. */
void kw_r_ir_accesses(kw_render *r, const char *arch, const kw_irf *ir);
/* An item of the open list (kw_r_list) per reduction / broadcast idiom,
 * then the workgroup barriers. */
void kw_r_ir_idioms(kw_render *r, const kw_irf *ir);
/* An item of the open list per loop (trip count, header line); returns how
 * many have no line. */
size_t kw_r_ir_loops(kw_render *r, const kw_irf *ir);

/* ---- a Triton page's TTGIR: layouts and tt.dot (kw_r_ttgir.c), from r->page.ttgir -------- */

/* Section 2: a line per layout whose parameters explain more than the table
 * (blocked tile, MFMA instruction shape and waves, LDS swizzle). */
void kw_r_ttgir_layout_notes(kw_render *r);
/* Section 2: the tt.dot ops as a table (nothing when there is none). */
void kw_r_ttgir_dots(kw_render *r);
/* Section 4: each tt.dot's FLOP and operand bytes per execution against
 * the matrix peak of the archs' GPUs. */
void kw_r_ttgir_dot_work(kw_render *r);

/* ---- sections ----------------------------------------------------------------------------- */

void kw_render_overview(kw_render *r);
void kw_render_host(kw_render *r);   /* 1 */
void kw_render_device(kw_render *r); /* 2 */
void kw_render_flow(kw_render *r);   /* 3 */
void kw_render_memory(kw_render *r); /* 4 */
void kw_render_trace(kw_render *r);  /* 4, the --trace subsection (kw_render_trace.c) */
/* 4: the hardware peaks of the archs shown, as a table (kw_render_memory.c) */
void kw_render_memory_peaks(kw_render *r);
void kw_render_isa(kw_render *r);   /* 5 */
void kw_render_files(kw_render *r); /* 6 */
/* A Triton specialization (page.triton): title, overview and sections 1 to 4
 * (kw_render_triton.c); 5 and 6 are the writers above. */
void kw_render_triton(kw_render *r);

/* ---- c1: numbered lists (kw_r.c) -------------------------------------------------------- */

/* A numbered list into r->out, tight, numbered from 1, an item a line: as
 * Markdown ("1. ", "2. " ...), or on a site page as the HTML libcmark-gfm
 * makes of it (<ol><li>...). r->in is for the items' text (kw_r_t, kw_r_c,
 * kw_r_loc ...). kw_r_ol_end ends the block, with its blank line; an
 * empty list writes nothing. */
typedef struct kw_r_ol {
    int n;              /* items begun */
    size_t at, text_at; /* where the list and the open item's text begin */
    bool html;
} kw_r_ol;

void kw_r_ol_open(kw_render *r, kw_r_ol *l);
void kw_r_ol_item(kw_render *r, kw_r_ol *l);
void kw_r_ol_end(kw_render *r, kw_r_ol *l);

#endif
