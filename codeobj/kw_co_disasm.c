/* kw_co_disasm.c: a kernel's code -> a kw_co_listing, through LLVM's C
 * disassembler API (llvm-c/Disassembler.h), the same instruction printer
 * llvm-objdump uses, so the text matches `llvm-objdump -d --mcpu=ARCH`
 * operand for operand. Adds what the text alone does not give: byte
 * offsets, branch targets resolved to labels inside the kernel, classes,
 * DPP patterns and memory widths, and (kw_co_lines.c) source lines.
 * One disassembler context per processor is kept in the set and reused. */
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kw_co_internal.h"
#include "codeobj/kw_co_llvm.h"

enum { DIS_MAX_ARCHS = 16 };

/* A symbol without type (an assembler label) in the code section: what
 * llvm-objdump prints in place of a branch's offset when one sits at the
 * target. */
typedef struct label_sym {
    uint64_t addr;
    const char *name; /* in the object's ELF string table */
} label_sym;

typedef struct dis_cache {
    const kw_co_llvm *llvm;
    /* the label symbols of one section of one object: the last asked for */
    const unsigned char *labels_image;
    uint32_t labels_section;
    label_sym *labels;
    size_t nlabels;
    size_t n;
    struct {
        char arch[32];
        LLVMDisasmContextRef dc;
    } v[DIS_MAX_ARCHS];
} dis_cache;

void kw_co_disasm_release(kw_co_set *set) {
    dis_cache *c = set->priv;
    if (!c)
        return;
    for (size_t i = 0; i < c->n; i++)
        c->llvm->dispose(c->v[i].dc);
    free(c->labels);
    free(c);
    set->priv = NULL;
}

/* Processors that an older LLVM the command may load does not know: its
 * AMDGPU disassembler aborts the process for them ("Disassembly not yet
 * supported for subtarget") instead of failing, so ask the version first. */
static const struct {
    const char *arch;
    unsigned major; /* the first LLVM major that disassembles it */
} kw_co_min_llvm[] = {{"gfx950", 20}};

static bool too_old(const kw_co_llvm *llvm, const char *arch, unsigned *need) {
    for (size_t i = 0; i < sizeof kw_co_min_llvm / sizeof kw_co_min_llvm[0]; i++)
        if (!strcmp(kw_co_min_llvm[i].arch, arch) && llvm->major &&
            llvm->major < kw_co_min_llvm[i].major) {
            *need = kw_co_min_llvm[i].major;
            return true;
        }
    return false;
}

static LLVMDisasmContextRef get_context(kw_co_set *set, const char *arch, kw_err *err) {
    dis_cache *c = set->priv;
    if (!c) {
        const kw_co_llvm *llvm = kw_co_llvm_get(err);
        if (!llvm)
            return NULL;
        c = calloc(1, sizeof *c);
        if (!c) {
            kw_fail(err, "out of memory");
            return NULL;
        }
        c->llvm = llvm;
        set->priv = c;
    }
    for (size_t i = 0; i < c->n; i++)
        if (strcmp(c->v[i].arch, arch) == 0)
            return c->v[i].dc;
    if (!kw_co_hw_known_processor(arch)) {
        kw_fail(err, "processor '%s' is not one LLVM's AMDGPU disassembler knows", arch);
        return NULL;
    }
    unsigned need;
    if (too_old(c->llvm, arch, &need)) {
        set->llvm_too_old = true;
        kw_fail(err,
                "processor '%s' needs LLVM %u or later to disassemble (this kwalk loads LLVM %u)",
                arch, need, c->llvm->major);
        return NULL;
    }
    if (c->n == DIS_MAX_ARCHS) { /* many processors in one input: recycle the oldest */
        c->llvm->dispose(c->v[0].dc);
        memmove(&c->v[0], &c->v[1], sizeof c->v[0] * (DIS_MAX_ARCHS - 1));
        c->n--;
    }
    LLVMDisasmContextRef dc =
        c->llvm->create("amdgcn-amd-amdhsa", arch, "", NULL, 0, NULL, NULL);
    if (!dc) {
        kw_fail(err, "LLVM could not create an AMDGPU disassembler for %s", arch);
        return NULL;
    }
    snprintf(c->v[c->n].arch, sizeof c->v[0].arch, "%s", arch);
    c->v[c->n++].dc = dc;
    return dc;
}

void kw_co_listing_init(kw_co_listing *l) {
    memset(l, 0, sizeof *l);
    kw_arena_init(&l->arena);
}

void kw_co_listing_free(kw_co_listing *l) {
    kw_arena_free(&l->arena);
    kw_co_listing_init(l);
}

/* Count key/width in the array v[0..*n) (an arena array of capacity *cap). */
static bool count_key(kw_arena *a, kw_co_count **v, size_t *n, size_t *cap, const char *key,
                      unsigned width) {
    for (size_t i = 0; i < *n; i++)
        if ((*v)[i].width == width && strcmp((*v)[i].key, key) == 0) {
            (*v)[i].n++;
            return true;
        }
    kw_co_count *c = kw_arena_grow(a, (void **)v, n, cap, sizeof **v);
    if (!c)
        return false;
    c->key = kw_arena_strdup(a, key);
    c->width = width;
    c->n = 1;
    return c->key != NULL;
}

static const char *mem_kind(const kw_co_insn *in) {
    const char *m = in->text;
    size_t ml = strcspn(m, " ");
    switch (in->klass) {
    case KW_CO_VMEM_LOAD:
        return "load";
    case KW_CO_VMEM_STORE:
        return "store";
    case KW_CO_VMEM_ATOMIC:
        return "atomic";
    case KW_CO_SMEM:
        if (strncmp(m, "s_load", 6) == 0 || strncmp(m, "s_buffer_load", 13) == 0 ||
            strncmp(m, "s_scratch_load", 14) == 0)
            return "load";
        if (strncmp(m, "s_store", 7) == 0 || strncmp(m, "s_buffer_store", 14) == 0 ||
            strncmp(m, "s_scratch_store", 15) == 0)
            return "store";
        return NULL;
    case KW_CO_LDS:
        if (strncmp(m, "ds_read", 7) == 0 || strncmp(m, "ds_load", 7) == 0)
            return "load";
        if (strncmp(m, "ds_write", 8) == 0 || strncmp(m, "ds_store", 8) == 0)
            return "store";
        if (ml > 3 && (strstr(m, "_rtn") || strncmp(m, "ds_add", 6) == 0 ||
                       strncmp(m, "ds_sub", 6) == 0 || strncmp(m, "ds_min", 6) == 0 ||
                       strncmp(m, "ds_max", 6) == 0 || strncmp(m, "ds_and", 6) == 0 ||
                       strncmp(m, "ds_or", 5) == 0 || strncmp(m, "ds_xor", 6) == 0 ||
                       strncmp(m, "ds_inc", 6) == 0 || strncmp(m, "ds_dec", 6) == 0 ||
                       strncmp(m, "ds_cmp", 6) == 0 || strncmp(m, "ds_mskor", 8) == 0 ||
                       strncmp(m, "ds_wrxchg", 9) == 0 || strncmp(m, "ds_pk_add", 9) == 0 ||
                       strncmp(m, "ds_cond", 7) == 0))
            return "atomic";
        return NULL;
    default:
        return NULL;
    }
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static kw_co_insn *insn_at(kw_co_listing *l, int64_t off) {
    size_t lo = 0, hi = l->insns.n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if ((int64_t)l->insns.v[mid].offset < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < l->insns.n && l->insns.v[lo].offset == off ? &l->insns.v[lo] : NULL;
}

static kw_status assign_labels(kw_co_listing *l, kw_err *err) {
    size_t nt = 0;
    for (size_t i = 0; i < l->insns.n; i++)
        if (l->insns.v[i].flags & KW_CO_INSN_TARGET)
            nt++;
    if (!nt)
        return KW_OK;
    int64_t *t = malloc(nt * sizeof *t);
    if (!t)
        return kw_fail(err, "out of memory");
    nt = 0;
    for (size_t i = 0; i < l->insns.n; i++)
        if (l->insns.v[i].flags & KW_CO_INSN_TARGET)
            t[nt++] = l->insns.v[i].target;
    qsort(t, nt, sizeof *t, cmp_i64);
    for (size_t i = 0; i < nt; i++) {
        if (i && t[i] == t[i - 1])
            continue;
        kw_co_insn *in = insn_at(l, t[i]);
        if (in && in->label < 0)
            in->label = (int32_t)l->nlabels++;
    }
    free(t);
    for (size_t i = 0; i < l->insns.n; i++) {
        kw_co_insn *b = &l->insns.v[i];
        if (b->flags & KW_CO_INSN_TARGET) {
            kw_co_insn *in = insn_at(l, b->target);
            b->target_label = in ? in->label : -1;
        }
    }
    return KW_OK;
}

/* Encodings LLVM's AMDGPU disassembler crashes on (found by fuzzing; the
 * same bytes crash llvm-objdump and llvm-mc -disassemble), GFX8/GFX9 only.
 * Each is a field holding a value the field's operand cannot take; the crash
 * happens only where the instruction uses that field as such an operand:
 *   GUARD_SRC_LIT   VOP3/VOP3P (bits 31:26 = 110100) src0/src1/src2 (9 bits
 *                   each in the second dword) = 255, the literal constant,
 *                   which GFX8/9's VOP3 cannot encode;
 *   GUARD_SDST_LIT  VOP3 vdst (bits 7:0) = 255 where the destination is an
 *                   SGPR (VOPC in VOP3 form, v_readlane_b32): 255 is the
 *                   literal there, while for a VGPR or AGPR destination it is
 *                   v255/a255, valid code (every kernel using all 256 VGPRs);
 *   GUARD_SOFF_LIT  MUBUF/MTBUF (111000/111010) soffset (bits 63:56) = 255;
 *   GUARD_SDWA_SEL  VOP1/VOP2/VOPC SDWA (src0 = 0xf9) with dst_sel, src0_sel or
 *                   src1_sel = 7 (valid: 0..6).
 * Which classes crash depends on LLVM's version: measured by kwco-probe-guard
 * (tests/codeobj/check_guard.py, run against the linked LLVM in ctest, fails
 * when this table is wrong either way): LLVM 22 crashes on all four (on
 * gfx950, whose VOP3 and MUBUF take a literal, only on GUARD_SDWA_SEL), LLVM
 * 19 only on GUARD_SDWA_SEL (it reports the others undecodable). Other
 * versions are treated like 22. (SDWA dst_unused = 3, once guarded too,
 * crashes neither.)
 *
 * Whether the instruction uses the field is asked of LLVM itself, on safe
 * copies of the bytes: every suspect field set to a register (v0/s0, or
 * select 0), then each field in turn to another register (v1/s1, select 1);
 * when the text changes the field is an operand. A destination is an SGPR when
 * that text names one first. When no copy decodes, the word is refused.
 * Compilers never emit the refused encodings; they are reported as
 * undecodable instead of handed to LLVM. (A literal constant cut off by the
 * end of the buffer, a crash too, is avoided by padding the code with zeros.) */
enum { GUARD_SRC_LIT = 1, GUARD_SDST_LIT = 2, GUARD_SOFF_LIT = 4, GUARD_SDWA_SEL = 8 };

static unsigned guarded_classes(unsigned llvm_major, const char *arch) {
    /* gfx950's VOP3 and MUBUF take a literal constant: LLVM 22 decodes it */
    if (llvm_major == 19 || strcmp(arch, "gfx950") == 0)
        return GUARD_SDWA_SEL;
    return GUARD_SRC_LIT | GUARD_SDST_LIT | GUARD_SOFF_LIT | GUARD_SDWA_SEL;
}

typedef struct guard_field {
    unsigned word, shift, mask; /* the field: (dword[word] >> shift) & mask */
    unsigned safe[2];           /* two values the operand may take */
    bool sgpr_dst;              /* suspect only as an SGPR destination */
} guard_field;

static void set_field(unsigned char *b, const guard_field *f, unsigned v) {
    uint32_t w = kw_co_le32(b + 4 * f->word);
    w = (w & ~((uint32_t)f->mask << f->shift)) | (uint32_t)v << f->shift;
    for (int i = 0; i < 4; i++)
        b[4 * f->word + (unsigned)i] = (unsigned char)(w >> (8 * i));
}

bool kw_co_guard_refuses(const kw_co_llvm *llvm, LLVMDisasmContextRef dc, const char *arch,
                         const unsigned char *p, size_t n) {
    /* gfx8xx, gfx9xx, gfx9-generic, gfx9-4-generic (GFX10+ start with "gfx1") */
    bool gfx8_9 = strncmp(arch, "gfx8", 4) == 0 || strncmp(arch, "gfx9", 4) == 0;
    if (n < 8 || !gfx8_9)
        return false;
    unsigned classes = guarded_classes(llvm->major, arch);
    uint32_t w0 = kw_co_le32(p), w1 = kw_co_le32(p + 4);
    unsigned enc = w0 >> 26;
    guard_field f[4];
    size_t nf = 0;
    if (enc == 0x34) {
        if ((classes & GUARD_SDST_LIT) && (w0 & 0xff) == 0xff)
            f[nf++] = (guard_field){0, 0, 0xff, {0, 1}, true};
        for (unsigned i = 0; i < 3 && (classes & GUARD_SRC_LIT); i++)
            if (((w1 >> (9 * i)) & 0x1ff) == 0xff)
                f[nf++] = (guard_field){1, 9 * i, 0x1ff, {0x100, 0x101}, false};
    } else if (enc == 0x38 || enc == 0x3a) {
        if ((classes & GUARD_SOFF_LIT) && (w1 >> 24) == 0xff)
            f[nf++] = (guard_field){1, 24, 0xff, {0, 1}, false};
    } else if (!(w0 >> 31) && (w0 & 0x1ff) == 0xf9 && (classes & GUARD_SDWA_SEL)) {
        static const unsigned sel_shift[3] = {8, 16, 24};
        for (unsigned i = 0; i < 3; i++)
            if (((w1 >> sel_shift[i]) & 7) == 7)
                f[nf++] = (guard_field){1, sel_shift[i], 7, {0, 1}, false};
    }
    if (!nf)
        return false;
    enum { PAD = 16 };
    unsigned char base[8 + PAD] = {0}, alt[8 + PAD];
    memcpy(base, p, 8);
    for (size_t i = 0; i < nf; i++)
        set_field(base, &f[i], f[i].safe[0]);
    char t0[1024], t1[1024];
    if (!llvm->disasm(dc, base, sizeof base, 0, t0, sizeof t0))
        return true;
    for (size_t i = 0; i < nf; i++) {
        if (f[i].sgpr_dst) {
            const char *op = t0 + strspn(t0, " \t");
            op += strcspn(op, " ");
            op += strspn(op, " ");
            if (op[0] == 's')
                return true;
            continue;
        }
        memcpy(alt, base, sizeof alt);
        set_field(alt, &f[i], f[i].safe[1]);
        if (!llvm->disasm(dc, alt, sizeof alt, 0, t1, sizeof t1) || strcmp(t0, t1) != 0)
            return true;
    }
    return false;
}

static int cmp_label(const void *a, const void *b) {
    const label_sym *x = a, *y = b;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* The label symbols of obj's section shndx, sorted by (address, name), from
 * the symbol table llvm-objdump reads (.symtab, else .dynsym). Kept for the
 * next kernel of the same section. */
static kw_status load_labels(dis_cache *c, const kw_co_object *obj, uint32_t shndx, kw_err *err) {
    if (c->labels_image == obj->image && c->labels_section == shndx)
        return KW_OK;
    free(c->labels);
    c->labels = NULL;
    c->nlabels = 0;
    c->labels_image = NULL;
    const kw_co_priv *pv = obj->priv;
    Elf *elf = pv ? pv->elf : NULL;
    Elf_Scn *scn = NULL, *symtab = NULL, *dynsym = NULL;
    while (elf && (scn = elf_nextscn(elf, scn))) {
        GElf_Shdr sh;
        if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB && !symtab)
            symtab = scn;
        if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_DYNSYM && !dynsym)
            dynsym = scn;
    }
    scn = symtab ? symtab : dynsym;
    GElf_Shdr sh;
    Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
    size_t n = d && gelf_getshdr(scn, &sh) && sh.sh_entsize ? d->d_size / sh.sh_entsize : 0;
    size_t cap = 0;
    for (size_t i = 0; i < n; i++) {
        GElf_Sym sy;
        if (!gelf_getsym(d, (int)i, &sy) || GELF_ST_TYPE(sy.st_info) != STT_NOTYPE ||
            sy.st_shndx != shndx)
            continue;
        const char *name = elf_strptr(elf, sh.sh_link, sy.st_name);
        if (!name || !*name)
            continue;
        if (c->nlabels == cap) {
            cap = cap ? 2 * cap : 64;
            label_sym *v = realloc(c->labels, cap * sizeof *v);
            if (!v)
                return kw_fail(err, "out of memory");
            c->labels = v;
        }
        c->labels[c->nlabels++] = (label_sym){sy.st_value, name};
    }
    if (c->nlabels)
        qsort(c->labels, c->nlabels, sizeof *c->labels, cmp_label);
    c->labels_image = obj->image;
    c->labels_section = shndx;
    return KW_OK;
}

/* The first label (by name) at addr, or NULL: the one llvm-objdump's AMDGPU
 * symbolizer prints as the branch operand. */
static const char *label_at(const dis_cache *c, uint64_t addr) {
    size_t lo = 0, hi = c->nlabels;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (c->labels[mid].addr < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < c->nlabels && c->labels[lo].addr == addr ? c->labels[lo].name : NULL;
}

/* A direct branch's target, from the SOPP/SOPK simm16 (in dwords, relative
 * to the next instruction). */
static bool branch_target(const char *text, const unsigned char *code, uint32_t off,
                          size_t size, int64_t *target) {
    if (size != 4)
        return false;
    bool direct = strncmp(text, "s_branch ", 9) == 0 || strncmp(text, "s_call_b64 ", 11) == 0 ||
                  (strncmp(text, "s_cbranch_", 10) == 0 && strncmp(text, "s_cbranch_join", 14) != 0 &&
                   strncmp(text, "s_cbranch_g_fork", 16) != 0);
    if (!direct)
        return false;
    int16_t simm = (int16_t)kw_co_le16(code + off);
    *target = (int64_t)off + 4 + (int64_t)simm * 4;
    return true;
}

/* Where a label symbol sits at a direct branch's target, llvm-objdump
 * prints its name instead of the offset (`s_cbranch_scc1 label_0F56`; the
 * C API has no symbol table to give LLVM's symbolizer): so does the text. */
static kw_status name_target(dis_cache *c, const kw_co_object *obj, const kw_co_kernel *k,
                             kw_arena *a, kw_co_insn *in, kw_err *err) {
    if (load_labels(c, obj, k->code_section, err) != KW_OK)
        return KW_ERR;
    const char *name = label_at(c, k->code_addr + (uint64_t)in->target);
    const char *num = strrchr(in->text, ' ');
    if (!name || !num || !num[1] || strspn(num + 1, "0123456789") != strlen(num + 1))
        return KW_OK;
    size_t keep = (size_t)(num + 1 - in->text), len = strlen(name);
    char *t = kw_arena_alloc(a, keep + len + 1);
    if (!t)
        return kw_fail(err, "out of memory");
    memcpy(t, in->text, keep);
    memcpy(t + keep, name, len + 1);
    in->text = t;
    return KW_OK;
}

kw_status kw_co_disassemble(kw_co_set *set, const kw_co_object *obj, const kw_co_kernel *k,
                            unsigned flags, kw_co_listing *l, kw_err *err) {
    kw_co_listing_free(l);
    l->object = obj;
    l->kernel = k;
    if (!k->has_code)
        return kw_fail(err, "%s: kernel %s: code not found (no kernel descriptor or entry)",
                       obj->origin, k->name);
    if (k->code_size > UINT32_MAX)
        return kw_fail(err, "%s: kernel %s: code size out of range", obj->origin, k->name);
    const unsigned char *code =
        kw_co_section_bytes(obj, k->code_section, k->code_addr, k->code_size);
    if (!code)
        return kw_fail(err, "%s: kernel %s: code outside the ELF's sections", obj->origin,
                       k->name);
    LLVMDisasmContextRef dc = get_context(set, obj->arch, err);
    if (!dc)
        return KW_ERR;
    size_t (*disasm)(LLVMDisasmContextRef, uint8_t *, uint64_t, uint64_t, char *, size_t) =
        ((dis_cache *)set->priv)->llvm->disasm;
    kw_arena *a = &l->arena;
    size_t size = (size_t)k->code_size;
    /* LLVM 22 crashes when an instruction's literal constant runs past the
     * end of the buffer it is given, so it gets the code followed by zeros;
     * an instruction reaching into them is reported as undecodable. */
    enum { PAD = 16 };
    unsigned char *padded = malloc(size + PAD);
    if (!padded)
        return kw_fail(err, "out of memory");
    memcpy(padded, code, size);
    memset(padded + size, 0, PAD);
    code = padded;
    char buf[1024];
    kw_status st = KW_OK;
    for (size_t off = 0; off < size;) {
        kw_co_insn *in = KW_PUSH(a, l->insns);
        if (!in) {
            st = kw_fail(err, "out of memory");
            break;
        }
        size_t n = 0;
        if (!kw_co_guard_refuses(((dis_cache *)set->priv)->llvm, dc, obj->arch, code + off,
                                 size - off))
            n = disasm(dc, (uint8_t *)code + off, size - off + PAD, k->code_addr + off, buf,
                       sizeof buf);
        if (n > size - off)
            n = 0;
        const char *text = buf;
        if (n == 0) {
            n = size - off >= 4 ? 4 : size - off;
            if (n == 4)
                snprintf(buf, sizeof buf, ".long 0x%08x", kw_co_le32(code + off));
            else
                snprintf(buf, sizeof buf, ".byte 0x%02x", code[off]);
            in->flags |= KW_CO_INSN_INVALID;
        }
        while (*text == ' ' || *text == '\t')
            text++;
        in->offset = (uint32_t)off;
        in->size = (uint8_t)n;
        in->label = in->target_label = in->loc = -1;
        in->text = kw_arena_strdup(a, text);
        if (!in->text) {
            st = kw_fail(err, "out of memory");
            break;
        }
        kw_co_classify(in->text, in);
        if (in->flags & KW_CO_INSN_INVALID)
            in->klass = KW_CO_OTHER;
        if (in->dpp && !(in->dpp = kw_arena_strndup(a, in->dpp, strcspn(in->dpp, " ")))) {
            st = kw_fail(err, "out of memory");
            break;
        }
        if (in->klass == KW_CO_BRANCH &&
            branch_target(in->text, code, (uint32_t)off, n, &in->target)) {
            in->flags |= KW_CO_INSN_TARGET;
            if (name_target(set->priv, obj, k, a, in, err) != KW_OK) {
                st = KW_ERR;
                break;
            }
        }
        l->classes[in->klass]++;
        if (in->flags & KW_CO_INSN_DPP) {
            l->dpp++;
            if (!count_key(a, &l->dpp_patterns.v, &l->dpp_patterns.n, &l->dpp_patterns.cap,
                           in->dpp, 0)) {
                st = kw_fail(err, "out of memory");
                break;
            }
        }
        if (in->flags & KW_CO_INSN_SDWA)
            l->sdwa++;
        const char *kind = mem_kind(in);
        if (kind && in->space) {
            char key[64];
            snprintf(key, sizeof key, "%s_%s", in->space, kind);
            if (!count_key(a, &l->memory.v, &l->memory.n, &l->memory.cap, key, in->width)) {
                st = kw_fail(err, "out of memory");
                break;
            }
        }
        off += n;
    }
    free(padded);
    if (st != KW_OK)
        return st;
    if (assign_labels(l, err) != KW_OK)
        return KW_ERR;
    if (flags & KW_CO_WANT_LINES) {
        if (obj->elf_type == 1 /* ET_REL */)
            l->lines_note = "relocatable object: its DWARF addresses are not relocated";
        else if (!obj->has_debug_line)
            l->lines_note = "no .debug_line in the code object (build the device code with "
                            "-gline-tables-only)";
        else
            kw_co_map_lines(obj, l);
    }
    return KW_OK;
}
