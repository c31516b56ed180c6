/* kw_kpage_walk.h: what a kernel page (kw_kpage.h) says of the six
 * walkthrough sections once, where every instantiation of the page has the
 * same fact (what differs is the dispatch table's):
 *   - section 2's device call tree: each instantiation's tree as its
 *     walkthrough shows it (kw_calltree.h: helpers folded, short labels);
 *     a call is the same where the trees have an item of the same label,
 *     called at the same file:line, defined at the same file:line, under
 *     the same calls. The calls every
 *     tree has, in the first tree's order; then where the trees differ: the
 *     calls some trees have (the first of each such subtree, under a call
 *     every tree has or the kernel), each with how many make it;
 *   - section 2's __shared__ variables and inline asm that every
 *     instantiation declares alike (name, type, bytes, place; text, place);
 *   - sections 3 and 4's IR facts that agree, per arch: the cross-lane
 *     idioms every instantiation's IR has (kind, op, place) and the
 *     workgroup barriers when their count agrees;
 *   - section 5's, per arch: the resources every instantiation has equal
 *     (VGPR, AGPR, SGPR, LDS, scratch, ... from the code object's notes)
 *     and the instruction mix's classes (kw_page_isa_mix) that every
 *     instantiation's code has, and those none has.
 * Section 1's (launch sites, entry points) is the page's sites and entries
 * (kw_kpage.h). Built by kw_kpage_build; in its arena. */
#ifndef KW_KPAGE_WALK_H
#define KW_KPAGE_WALK_H

#include <stdbool.h>
#include <stddef.h>

#include "common/kw_arena.h"
#include "common/kw_err.h"
#include "model/kw_kpage.h"

typedef struct kw_kwalk_call {
    int depth;         /* 0: a call of the kernel itself */
    const char *label; /* the call tree's short name */
    kw_loc at, def;    /* its (first) call site; the callee's definition */
    size_t rows;       /* instantiations whose tree has it */
    const char *under; /* the label of the call it is under; NULL: the kernel */
} kw_kwalk_call;

/* A resource every instantiation built for the arch has equal. */
typedef struct kw_kwalk_res {
    const char *what; /* "VGPR", "LDS bytes", ... */
    long long v;
} kw_kwalk_res;

typedef struct kw_kwalk_arch {
    const char *arch;
    size_t rows;                           /* instantiations with facts for it */
    KW_ARRAY(kw_kwalk_res) same;           /* every one's resources equal (rows == page rows) */
    KW_ARRAY(const char *) every, none;    /* mix classes ("MFMA", ...) every / no one's code has */
    KW_ARRAY(const kw_irf_idiom *) idioms; /* the first's, every one's IR has alike */
    long long barriers; /* workgroup barriers, when every one has that many; -1 */
    bool ir;            /* every one has IR facts for it */
} kw_kwalk_arch;

/* The calls every tree has are listed to level KW_KWALK_DEPTH_MAX (0: the
 * kernel's own calls) and KW_KWALK_CALLS_MAX at most, in preorder; those
 * left out are counted (each instantiation's walkthrough has them). */
#define KW_KWALK_DEPTH_MAX 3
#define KW_KWALK_CALLS_MAX 48

/* How many "some" calls are listed at most (the rest counted). */
#define KW_KWALK_SOME_MAX 24

typedef struct kw_kpage_walk {
    size_t trees;                  /* instantiations with a device record (a call tree) */
    KW_ARRAY(kw_kwalk_call) calls; /* every tree's, preorder of the first's */
    size_t calls_deep, calls_more; /* left out: below KW_KWALK_DEPTH_MAX; beyond the count */
    KW_ARRAY(kw_kwalk_call) some;  /* where they differ, first-seen order */
    size_t some_more;              /* such calls beyond those listed */
    KW_ARRAY(const kw_shared_var *) shared;
    KW_ARRAY(const kw_inline_asm *) asms;
    KW_ARRAY(kw_kwalk_arch) archs; /* the first instantiation's arch order */
} kw_kpage_walk;

/* The facts page p's rows share (p's rows built). */
kw_status kw_kpage_walk_build(kw_kpage_walk *w, const kw_kpage *p, const kw_model *m, kw_arena *a,
                              kw_err *err);

#endif
