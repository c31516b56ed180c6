/* kw_co_lines.c: instructions -> source locations through the code object's
 * DWARF (.debug_line, and the inlined-subroutine DIEs -gline-tables-only
 * keeps), read with elfutils' libdw. For each instruction: the line-table row
 * covering its address (file:line:column, in the innermost inlined function),
 * then for every enclosing DW_TAG_inlined_subroutine its call site, outward:
 * the same chain `llvm-symbolizer -i --no-demangle` prints (inlined
 * functions by DWARF linkage name, else name; the outermost by the kernel's
 * symbol). Consecutive instructions with the same chain share one kw_co_loc. */
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <libelf.h>

#include "kw_co_internal.h"

static Dwarf *get_dwarf(const kw_co_object *obj) {
    kw_co_priv *pv = obj->priv;
    if (!pv)
        return NULL;
    if (!pv->dwarf_tried) {
        pv->dwarf_tried = true;
        pv->dwarf = dwarf_begin_elf(pv->elf, DWARF_C_READ, NULL);
    }
    return pv->dwarf;
}

/* The function a scope DIE belongs to: linkage name, else name. */
static const char *die_function(Dwarf_Die *die) {
    Dwarf_Attribute at;
    const char *s = NULL;
    if (dwarf_attr_integrate(die, DW_AT_linkage_name, &at) ||
        dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &at))
        s = dwarf_formstring(&at);
    if (!s && dwarf_attr_integrate(die, DW_AT_name, &at))
        s = dwarf_formstring(&at);
    return s;
}

typedef struct frame_tmp {
    const char *file;
    int line, col;
    const char *function;
} frame_tmp;

enum { MAX_FRAMES = 64 };

/* The compile unit covering addr. dwarf_addrdie needs .debug_aranges, which
 * AMDGPU code objects do not have; then ask each CU's ranges (dwarf_haspc). */
static bool cu_for(Dwarf *dw, Dwarf_Addr addr, Dwarf_Die *cu) {
    if (dwarf_addrdie(dw, addr, cu))
        return true;
    Dwarf_Off off = 0, next;
    size_t hsize;
    while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
        if (dwarf_offdie(dw, off + hsize, cu) && dwarf_haspc(cu, addr) == 1)
            return true;
        off = next;
    }
    return false;
}

/* The DIEs containing addr below die, outermost first, into chain[depth..]:
 * subprograms, inlined subroutines and lexical blocks, looking through
 * namespaces and classes. Returns the new depth. (dwarf_getscopes leaves out
 * the physical function around an inlined instance, which the call chain
 * needs.) */
static int scope_chain(Dwarf_Die *die, Dwarf_Addr addr, Dwarf_Die *chain, int depth) {
    Dwarf_Die child;
    if (depth >= MAX_FRAMES || dwarf_child(die, &child) != 0)
        return depth;
    do {
        int tag = dwarf_tag(&child);
        if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
            tag == DW_TAG_lexical_block) {
            if (dwarf_haspc(&child, addr) == 1) {
                chain[depth] = child;
                return scope_chain(&child, addr, chain, depth + 1);
            }
        } else if (tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
                   tag == DW_TAG_structure_type || tag == DW_TAG_union_type) {
            int d = scope_chain(&child, addr, chain, depth);
            if (d > depth)
                return d;
        }
    } while (dwarf_siblingof(&child, &child) == 0);
    return depth;
}

/* Fill f[] for address addr; returns the number of frames (0: unknown). */
static int frames_at(Dwarf *dw, Dwarf_Addr addr, frame_tmp *f) {
    Dwarf_Die cu;
    if (!cu_for(dw, addr, &cu))
        return 0;
    Dwarf_Line *ln = dwarf_getsrc_die(&cu, addr);
    if (!ln)
        return 0;
    int n = 0;
    f[0].file = dwarf_linesrc(ln, NULL, NULL);
    if (!f[0].file || dwarf_lineno(ln, &f[0].line) != 0)
        return 0;
    if (dwarf_linecol(ln, &f[0].col) != 0)
        f[0].col = 0;
    f[0].function = NULL;
    n = 1;
    Dwarf_Die scopes[MAX_FRAMES];
    int ns = scope_chain(&cu, addr, scopes, 0);
    Dwarf_Files *files = NULL;
    size_t nfiles = 0;
    if (dwarf_getsrcfiles(&cu, &files, &nfiles) != 0)
        files = NULL;
    for (int i = ns - 1; i >= 0; i--) { /* innermost first */
        int tag = dwarf_tag(&scopes[i]);
        if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
            continue;
        if (!f[n - 1].function)
            f[n - 1].function = die_function(&scopes[i]);
        if (tag != DW_TAG_inlined_subroutine || n == MAX_FRAMES)
            continue;
        Dwarf_Attribute at;
        Dwarf_Word file = 0, line = 0, col = 0;
        if (dwarf_attr(&scopes[i], DW_AT_call_file, &at))
            dwarf_formudata(&at, &file);
        if (dwarf_attr(&scopes[i], DW_AT_call_line, &at))
            dwarf_formudata(&at, &line);
        if (dwarf_attr(&scopes[i], DW_AT_call_column, &at))
            dwarf_formudata(&at, &col);
        f[n].file = files && file < nfiles ? dwarf_filesrc(files, file, NULL, NULL) : NULL;
        f[n].line = (int)line;
        f[n].col = (int)col;
        f[n].function = NULL;
        n++;
    }
    return n;
}

static bool same_frames(const kw_co_loc *loc, const frame_tmp *f, int n) {
    if (loc->frames.n != (size_t)n)
        return false;
    for (int i = 0; i < n; i++) {
        const kw_co_frame *g = &loc->frames.v[i];
        if (g->line != (unsigned)f[i].line || g->column != (unsigned)f[i].col ||
            strcmp(g->file ? g->file : "", f[i].file ? f[i].file : "") != 0 ||
            strcmp(g->function ? g->function : "", f[i].function ? f[i].function : "") != 0)
            return false;
    }
    return true;
}

void kw_co_map_lines(const kw_co_object *obj, kw_co_listing *l) {
    Dwarf *dw = get_dwarf(obj);
    if (!dw) {
        l->lines_note = "unreadable DWARF in the code object";
        return;
    }
    kw_arena *a = &l->arena;
    frame_tmp f[MAX_FRAMES];
    int32_t prev = -1;
    size_t mapped = 0;
    for (size_t i = 0; i < l->insns.n; i++) {
        kw_co_insn *in = &l->insns.v[i];
        int n = frames_at(dw, l->kernel->code_addr + in->offset, f);
        if (n == 0)
            continue;
        /* The outermost frame is the physical function: the kernel's own
         * symbol, as llvm-symbolizer names it from the symbol table. */
        f[n - 1].function = l->kernel->name;
        mapped++;
        if (prev >= 0 && same_frames(&l->locs.v[prev], f, n)) {
            in->loc = prev;
            continue;
        }
        kw_co_loc *loc = KW_PUSH(a, l->locs);
        if (!loc)
            break;
        for (int j = 0; j < n; j++) {
            kw_co_frame *g = KW_PUSH(a, loc->frames);
            if (!g)
                break;
            g->file = kw_arena_strdup(a, f[j].file);
            g->line = (unsigned)f[j].line;
            g->column = (unsigned)f[j].col;
            g->function = kw_arena_strdup(a, f[j].function);
        }
        prev = (int32_t)(l->locs.n - 1);
        in->loc = prev;
    }
    l->has_lines = mapped > 0;
    if (!mapped)
        l->lines_note = "the line table covers none of this kernel's instructions";
}
