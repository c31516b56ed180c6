/* kw_page_isa.h: the page model's ISA part: what section 5 (AMD ISA /
 * hardware details) and the site's source <-> ISA view say, worked out from
 * the ISA facts of each arch shown (kernels[].archs.<arch>: resources,
 * classes, isa listing, lines) before a line is written:
 *   - per arch: its listing split into lines once (an instruction's offset
 *     and mnemonic token), the occupancy and spill facts section 5 states,
 *     the occupancy limiter as its table shows it;
 *   - the instruction class table (rows with a count anywhere, the first
 *     arch's bar);
 *   - the mnemonics (encoding suffix stripped) and DPP controls of the
 *     listings with their counts per arch and their notes
 *     (annotations/isa/notes.txt), the LDS instructions;
 *   - for the site (view): the source files the line tables name with the
 *     spans of lines shown, each instruction token's class (codeobj/'s
 *     classifier) and note, and per arch the instructions in runs of one
 *     source line.
 * Built by kw_page_isa_build after kw_page_finish (the view by
 * kw_page_isa_view); everything lives in the caller's arena. */
#ifndef KW_PAGE_ISA_H
#define KW_PAGE_ISA_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "common/kw_arena.h"
#include "common/kw_err.h"
#include "model/kw_isa_notes.h"
#include "model/kw_page.h"
#include "model/kw_src.h"

/* One line of an ISA listing, without its newline: an instruction
 * "OFFSET: text" (insn, its offset) or a label. */
typedef struct kw_page_isa_line {
    const char *p;
    size_t len;
    bool insn;
    unsigned long offset;
    const char *after; /* just after the instruction's "OFFSET:" */
    /* an instruction's mnemonic token: after the offset's blanks, to the
     * first space (tok[0, toklen)), and its hash (kw_page_isa_hash) */
    const char *tok;
    size_t toklen;
    unsigned tokhash;
} kw_page_isa_line;

/* A name in the small tables of names (kw_page_isa_key_find): the first
 * member of each record. */
typedef struct kw_page_isa_key {
    const char *text;
    size_t len;
    unsigned hash; /* kw_page_isa_hash(text, len) */
} kw_page_isa_key;

enum {
    KW_PAGE_ISA_SLOTS = 512, /* a page rarely has 150 mnemonics */
    KW_PAGE_ISA_COUNTED = 8  /* archs whose mnemonics section 5 counts */
};

/* A mnemonic (its encoding suffix stripped) or a DPP control of the
 * listings: its count per arch shown (the first KW_PAGE_ISA_COUNTED), its
 * note as section 5 shows it (NULL: none), whether it is an LDS (ds_) one. */
typedef struct kw_page_isa_count {
    kw_page_isa_key name; /* a C string */
    unsigned count[KW_PAGE_ISA_COUNTED];
    const char *note;
    bool lds;
} kw_page_isa_count;

/* A row of section 5's class table: a class counted non-zero in some arch. */
typedef struct kw_page_isa_class_row {
    const char *key; /* kw_isa_class_key */
    bool modifier;   /* dpp, sdwa: across classes */
    bool total;      /* insns: all instructions */
    long long *v;    /* per arch shown; -1 when not known */
    int bar;         /* the first arch's bar, 0 to 30 #; -1 for none (total, modifier) */
} kw_page_isa_class_row;

/* A run of instructions from one source line (file -1: none). */
typedef struct kw_page_isa_run {
    size_t count;
    int file, line;
} kw_page_isa_run;

typedef struct kw_page_isa_arch {
    const kw_page_arch *a;
    bool has;                      /* any ISA fact (resources, listing, classes, a note) */
    const kw_page_isa_line *lines; /* the listing's lines; NULL when it has none */
    size_t n, ninsn;               /* lines, of them instructions */
    /* occupancy at the compiled block size differs from LLVM's (a->occ_block) */
    bool occ_differs;
    bool spills;         /* VGPR or SGPR spills */
    const char *limiter; /* the occupancy limiter as section 5's table shows it; NULL: - */
    /* the view: why the listing has no source lines (NULL: it has), its runs */
    const char *why;
    KW_ARRAY(kw_page_isa_run) runs;
} kw_page_isa_arch;

/* Lines [lo, hi] of a file shown in the view's source pane. */
typedef struct kw_page_isa_span {
    int lo, hi;
} kw_page_isa_span;

/* A file of the view: its source (NULL or not ok: why it is not shown)
 * and the spans shown, sorted, joined and within the file. */
typedef struct kw_page_isa_file {
    const char *path;
    const kw_src_file *src;
    const char *why;
    KW_ARRAY(int) lines;              /* referenced lines (building) */
    KW_ARRAY(kw_page_isa_span) defs;  /* whole definitions shown (building) */
    KW_ARRAY(kw_page_isa_span) spans; /* what is shown */
} kw_page_isa_file;

/* An instruction token of the view: its class (in classes) and note (in
 * notes, -1: none); both depend on the token alone. */
typedef struct kw_page_isa_mnem {
    kw_page_isa_key mnem;
    int klass;
    int note;
} kw_page_isa_mnem;

typedef struct kw_page_isa {
    KW_ARRAY(kw_page_isa_arch) archs; /* one per arch shown, in order */
    bool any;                         /* some arch has ISA facts */
    /* section 5 */
    size_t nkeys; /* classes recorded (0: none) */
    KW_ARRAY(kw_page_isa_class_row) classes;
    KW_ARRAY(kw_page_isa_count) mnems; /* first-seen order */
    KW_ARRAY(kw_page_isa_count) dpp;   /* first-seen order */
    unsigned lds;                      /* ds_ instructions, counted archs */
    /* the site's source <-> ISA view (built with view only) */
    bool view;
    size_t shown; /* archs in the view */
    KW_ARRAY(kw_page_isa_file) files;
    KW_ARRAY(const char *) notes;
    KW_ARRAY(const char *) class_names;
    KW_ARRAY(kw_page_isa_mnem) mns; /* first-seen order */
} kw_page_isa;

/* Definitions found in source files, kept across pages (the pages of one
 * template ask for the same ones): kw_src_def_range remembered. */
typedef struct kw_page_isa_def_memo {
    const kw_src_file *f;
    int line, col;
    bool ok;
    kw_src_def def;
} kw_page_isa_def_memo;
typedef struct kw_page_isa_defs {
    kw_page_isa_def_memo v[64];
} kw_page_isa_defs;
bool kw_page_isa_def_range(kw_page_isa_defs *d, const kw_src_file *f, int line, int col,
                           kw_src_def *out);

/* An instantiation's instruction mix on one arch, from its class counts
 * (the classes section 5's table shows): MFMA (mfma, smfmac, wmma), VALU
 * (valu, packed, transcendental, low-precision converts), SALU, VMEM (loads,
 * stores, atomics), LDS (every ds_), branch; insns all instructions. */
typedef struct kw_isa_mix {
    long long mfma, valu, salu, vmem, lds, branch, insns;
} kw_isa_mix;

/* c's mix into m; false (m zeroed) when c has no counts. */
bool kw_page_isa_mix(const kw_isa_classes *c, kw_isa_mix *m);

/* The ISA part of page p (kw_page_finish done) into pi; notes for the
 * instructions' notes (NULL: none). */
kw_status kw_page_isa_build(kw_page_isa *pi, const kw_page *p, const kw_isa_notes *notes,
                            kw_arena *a, kw_err *err);

/* The site's source <-> ISA view into pi, built (kw_page_isa_view.c), its
 * definitions found through defs. */
kw_status kw_page_isa_view(kw_page_isa *pi, const kw_page *p, const kw_isa_notes *notes,
                           kw_page_isa_defs *defs, kw_arena *a, kw_err *err);

/* Reads before threads start: the classifier's and occupancy tables. */
void kw_page_isa_global_init(void);

/* The line at *at into l and *at past it; false at the listing's end. */
bool kw_page_isa_next(const char **at, kw_page_isa_line *l);
/* The length of mnemonic s[0, n) without its encoding suffix (_e32, _e64,
 * _e64_dpp, _sdwa, _dpp): the operation, v_rsq_f32_e32 is v_rsq_f32. */
size_t kw_page_isa_op_len(const char *s, size_t n);
/* A hash of s[0, n), eight bytes at a time (mnemonics, one per line). */
unsigned kw_page_isa_hash(const char *s, size_t n);
/* The index of the name (text[0, len), hash) among the n records at items
 * (each `size` bytes, beginning with a kw_page_isa_key), found by open
 * addressing: slot[KW_PAGE_ISA_SLOTS] holds 1 + an index, 0 for a free
 * slot, and is used while at most 3/4 full, then the records are searched
 * in order. -1 when absent, with *free_slot the slot a record added now
 * takes (NULL: none). */
/* (inline: it is called once per instruction of a page, twice) */
static inline int kw_page_isa_key_find(const void *items, size_t n, size_t size,
                                       unsigned short *slot, const char *text, size_t len,
                                       unsigned hash, unsigned short **free_slot) {
#define KW_NAME(i) ((const kw_page_isa_key *)((const unsigned char *)items + (i)*size))
#define KW_SAME(x) ((x)->hash == hash && (x)->len == len && !memcmp((x)->text, text, len))
    *free_slot = NULL;
    if (n < KW_PAGE_ISA_SLOTS * 3 / 4) {
        for (size_t k = 0; k < KW_PAGE_ISA_SLOTS; k++) {
            unsigned short *sl = &slot[(hash + k) % KW_PAGE_ISA_SLOTS];
            if (!*sl) {
                *free_slot = sl;
                return -1;
            }
            if (KW_SAME(KW_NAME(*sl - 1)))
                return *sl - 1;
        }
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        if (KW_SAME(KW_NAME(i)))
            return (int)i;
    return -1;
#undef KW_NAME
#undef KW_SAME
}

#endif
