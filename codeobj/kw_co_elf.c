/* kw_co_elf.c: one AMDGPU ELF code object -> a kw_co_object. libelf (gelf)
 * reads the sections, symbols and notes; msgpack-c reads the
 * NT_AMDGPU_METADATA note (type 32, owner "AMDGPU"), whose layout is the
 * "Code Object V3+ Metadata" of LLVM's AMDGPUUsage. Kernels come from the
 * metadata's amdhsa.kernels joined with the symbol table: NAME.kd is the
 * 64-byte kernel descriptor, whose kernel_code_entry_byte_offset leads to the
 * code; kernel descriptors the metadata does not list still become kernels. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gelf.h>
#include <libelf.h>
#include <elfutils/libdw.h>
#include <msgpack.h>

#include "common/kw_msgpack_check.h"
#include "kw_co_internal.h"

enum { NT_AMDGPU_METADATA = 32, KD_SIZE = 64, MP_MAX_DEPTH = 32 };

typedef struct sym {
    const char *name;
    uint64_t value, size;
    unsigned type;
    unsigned shndx;
} sym;

typedef struct parse {
    kw_co_set *set;
    kw_co_object *obj;
    Elf *elf;
    sym *syms;
    size_t nsyms;
    const sym **by_name; /* all symbols, sorted by name */
    const sym **funcs;   /* function symbols, sorted by (section, address) */
    size_t nfuncs;
    const char *origin;
    bool ids; /* KW_CO_ADD_IDS: no kernel read */
} parse;

/* ---- msgpack: a bounds check first (kw_msgpack_check.h), then msgpack-c -- */

static const msgpack_object *mp_get(const msgpack_object *map, const char *key) {
    if (!map || map->type != MSGPACK_OBJECT_MAP)
        return NULL;
    size_t klen = strlen(key);
    for (uint32_t i = 0; i < map->via.map.size; i++) {
        const msgpack_object *k = &map->via.map.ptr[i].key;
        if (k->type == MSGPACK_OBJECT_STR && k->via.str.size == klen &&
            memcmp(k->via.str.ptr, key, klen) == 0)
            return &map->via.map.ptr[i].val;
    }
    return NULL;
}

static int64_t mp_int(const msgpack_object *o) {
    if (!o)
        return KW_CO_ABSENT;
    if (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER)
        return o->via.u64 > INT64_MAX ? KW_CO_ABSENT : (int64_t)o->via.u64;
    if (o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER)
        return o->via.i64;
    if (o->type == MSGPACK_OBJECT_BOOLEAN)
        return o->via.boolean ? 1 : 0;
    return KW_CO_ABSENT;
}

static const char *mp_str(kw_arena *a, const msgpack_object *o) {
    if (!o || o->type != MSGPACK_OBJECT_STR)
        return NULL;
    return kw_arena_strndup(a, o->via.str.ptr, o->via.str.size);
}

/* ---- ELF helpers --------------------------------------------------------- */

const unsigned char *kw_co_section_bytes(const kw_co_object *obj, size_t shndx, uint64_t addr,
                                        uint64_t len) {
    const kw_co_priv *pv = obj->priv;
    Elf_Scn *scn;
    GElf_Shdr sh;
    if (!pv || !pv->elf || !(scn = elf_getscn(pv->elf, shndx)) || !gelf_getshdr(scn, &sh) ||
        sh.sh_type == SHT_NOBITS)
        return NULL;
    if (addr < sh.sh_addr || addr - sh.sh_addr > sh.sh_size ||
        len > sh.sh_size - (addr - sh.sh_addr))
        return NULL;
    Elf_Data *d = elf_rawdata(scn, NULL);
    if (!d || !d->d_buf || d->d_size < sh.sh_size)
        return NULL;
    return (const unsigned char *)d->d_buf + (addr - sh.sh_addr);
}

/* The executable section holding virtual address addr: its index and end. */
static bool code_section_at(Elf *e, uint64_t addr, size_t *idx, uint64_t *end) {
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(e, scn))) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
            !(sh.sh_flags & SHF_EXECINSTR))
            continue;
        if (addr >= sh.sh_addr && addr - sh.sh_addr < sh.sh_size) {
            *idx = elf_ndxscn(scn);
            *end = sh.sh_addr + sh.sh_size;
            return true;
        }
    }
    return false;
}

static kw_status read_symbols(parse *p, kw_err *err) {
    Elf_Scn *scn = NULL, *symtab = NULL, *dynsym = NULL;
    while ((scn = elf_nextscn(p->elf, scn))) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh))
            continue;
        if (sh.sh_type == SHT_SYMTAB && !symtab)
            symtab = scn;
        if (sh.sh_type == SHT_DYNSYM && !dynsym)
            dynsym = scn;
    }
    scn = symtab ? symtab : dynsym;
    if (!scn)
        return KW_OK; /* no symbols: kernels only from metadata, without code */
    GElf_Shdr sh;
    Elf_Data *d = elf_getdata(scn, NULL);
    if (!gelf_getshdr(scn, &sh) || !d)
        return kw_fail(err, "%s: unreadable symbol table: %s", p->origin, elf_errmsg(-1));
    if (sh.sh_entsize == 0 || d->d_size / sh.sh_entsize == 0)
        return KW_OK;
    size_t n = d->d_size / sh.sh_entsize;
    p->syms = calloc(n, sizeof *p->syms);
    if (!p->syms)
        return kw_fail(err, "%s: out of memory", p->origin);
    for (size_t i = 0; i < n; i++) {
        GElf_Sym s;
        if (!gelf_getsym(d, (int)i, &s))
            continue;
        const char *nm = elf_strptr(p->elf, sh.sh_link, s.st_name);
        if (!nm || !*nm)
            continue;
        sym *o = &p->syms[p->nsyms++];
        o->name = nm;
        o->value = s.st_value;
        o->size = s.st_size;
        o->type = GELF_ST_TYPE(s.st_info);
        o->shndx = s.st_shndx;
    }
    return KW_OK;
}

/* Indexes over the symbols, so that a code object with thousands of kernels
 * is read in O(n log n). */
static int cmp_name(const void *a, const void *b) {
    const sym *x = *(const sym *const *)a, *y = *(const sym *const *)b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x < y ? -1 : x > y);
}

static int cmp_place(const void *a, const void *b) {
    const sym *x = *(const sym *const *)a, *y = *(const sym *const *)b;
    if (x->shndx != y->shndx)
        return x->shndx < y->shndx ? -1 : 1;
    if (x->value != y->value)
        return x->value < y->value ? -1 : 1;
    return x < y ? -1 : x > y;
}

static kw_status index_symbols(parse *p, kw_err *err) {
    if (!p->nsyms)
        return KW_OK;
    p->by_name = malloc(p->nsyms * sizeof *p->by_name);
    p->funcs = malloc(p->nsyms * sizeof *p->funcs);
    if (!p->by_name || !p->funcs)
        return kw_fail(err, "%s: out of memory", p->origin);
    for (size_t i = 0; i < p->nsyms; i++) {
        p->by_name[i] = &p->syms[i];
        if (p->syms[i].type == STT_FUNC)
            p->funcs[p->nfuncs++] = &p->syms[i];
    }
    qsort(p->by_name, p->nsyms, sizeof *p->by_name, cmp_name);
    qsort(p->funcs, p->nfuncs, sizeof *p->funcs, cmp_place);
    return KW_OK;
}

/* The first symbol named name (and of the type, unless type < 0), or NULL. */
static const sym *find_typed(const parse *p, const char *name, int type) {
    size_t lo = 0, hi = p->nsyms;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (strcmp(p->by_name[mid]->name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < p->nsyms && strcmp(p->by_name[lo]->name, name) == 0; lo++)
        if (type < 0 || p->by_name[lo]->type == (unsigned)type)
            return p->by_name[lo];
    return NULL;
}

static const sym *find_sym(const parse *p, const char *name) {
    return find_typed(p, name, -1);
}

static const sym *find_func(const parse *p, const char *name) {
    return find_typed(p, name, STT_FUNC);
}

/* Find the kernel's descriptor through its .kd symbol, and its code: in a
 * linked code object at the descriptor's kernel_code_entry_byte_offset, in a
 * relocatable one (assembler output, offset not yet relocated) at the
 * function symbol of the kernel's name. */
static void locate_kernel(parse *p, kw_co_kernel *k, const char *kdname) {
    const sym *kd = find_sym(p, kdname);
    if (!kd || kd->shndx == SHN_UNDEF || kd->shndx >= SHN_LORESERVE)
        return;
    k->kd_addr = kd->value;
    const unsigned char *b = kw_co_section_bytes(p->obj, kd->shndx, kd->value, KD_SIZE);
    if (!b)
        return;
    k->kd.present = true;
    k->kd.group_segment_fixed_size = kw_co_le32(b + 0);
    k->kd.private_segment_fixed_size = kw_co_le32(b + 4);
    k->kd.kernarg_size = kw_co_le32(b + 8);
    k->kd.kernel_code_entry_byte_offset = (int64_t)kw_co_le64(b + 16);
    k->kd.compute_pgm_rsrc3 = kw_co_le32(b + 44);
    k->kd.compute_pgm_rsrc1 = kw_co_le32(b + 48);
    k->kd.compute_pgm_rsrc2 = kw_co_le32(b + 52);
    k->kd.kernel_code_properties = kw_co_le16(b + 56);

    uint64_t entry, sec_end;
    size_t sec_idx;
    if (p->obj->elf_type == ET_REL) {
        const sym *f = find_func(p, k->name);
        GElf_Shdr sh;
        Elf_Scn *scn;
        if (!f || f->shndx == SHN_UNDEF || f->shndx >= SHN_LORESERVE ||
            !(scn = elf_getscn(p->elf, f->shndx)) || !gelf_getshdr(scn, &sh) ||
            f->value >= sh.sh_size)
            return;
        entry = f->value;
        sec_idx = f->shndx;
        sec_end = sh.sh_size;
    } else {
        entry = kd->value + (uint64_t)k->kd.kernel_code_entry_byte_offset;
        if (!code_section_at(p->elf, entry, &sec_idx, &sec_end))
            return;
    }
    if (entry & 3)
        return;
    /* size: the largest function symbol at entry; else up to the next one */
    uint64_t size = 0, next = sec_end;
    size_t lo = 0, hi = p->nfuncs;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        const sym *m = p->funcs[mid];
        if (m->shndx < sec_idx || (m->shndx == sec_idx && m->value < entry))
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < p->nfuncs && p->funcs[lo]->shndx == sec_idx; lo++) {
        const sym *f = p->funcs[lo];
        if (f->value == entry) {
            if (f->size > size)
                size = f->size;
        } else {
            next = f->value;
            break;
        }
    }
    if (size == 0 || size > sec_end - entry)
        size = next - entry;
    k->code_addr = entry;
    k->code_size = size;
    k->code_section = (uint32_t)sec_idx;
    k->has_code = true;
}

static void init_resources(kw_co_resources *r) {
    int64_t *f = &r->vgpr;
    for (size_t i = 0; i < sizeof *r / sizeof(int64_t); i++)
        f[i] = KW_CO_ABSENT;
}

static kw_status read_kernel(parse *p, const msgpack_object *m, kw_err *err) {
    kw_arena *a = &p->set->arena;
    kw_co_kernel *k = KW_PUSH(a, p->obj->kernels);
    if (!k)
        return kw_fail(err, "%s: out of memory", p->origin);
    init_resources(&k->res);
    k->in_metadata = true;
    k->name = mp_str(a, mp_get(m, ".name"));
    k->symbol = mp_str(a, mp_get(m, ".symbol"));
    if (!k->name && !k->symbol)
        return kw_fail(err, "%s: metadata kernel %zu has neither .name nor .symbol", p->origin,
                       p->obj->kernels.n - 1);
    if (!k->name) {
        size_t l = strlen(k->symbol);
        k->name = kw_arena_strndup(a, k->symbol, l > 3 && !strcmp(k->symbol + l - 3, ".kd") ? l - 3 : l);
    }
    kw_co_resources *r = &k->res;
    r->vgpr = mp_int(mp_get(m, ".vgpr_count"));
    r->agpr = mp_int(mp_get(m, ".agpr_count"));
    r->sgpr = mp_int(mp_get(m, ".sgpr_count"));
    r->vgpr_spill = mp_int(mp_get(m, ".vgpr_spill_count"));
    r->sgpr_spill = mp_int(mp_get(m, ".sgpr_spill_count"));
    r->lds_bytes = mp_int(mp_get(m, ".group_segment_fixed_size"));
    r->scratch_bytes = mp_int(mp_get(m, ".private_segment_fixed_size"));
    r->kernarg_bytes = mp_int(mp_get(m, ".kernarg_segment_size"));
    r->kernarg_align = mp_int(mp_get(m, ".kernarg_segment_align"));
    r->max_flat_workgroup_size = mp_int(mp_get(m, ".max_flat_workgroup_size"));
    r->wavefront_size = mp_int(mp_get(m, ".wavefront_size"));
    const msgpack_object *ds = mp_get(m, ".uses_dynamic_stack");
    r->uses_dynamic_stack = ds && ds->type == MSGPACK_OBJECT_BOOLEAN ? ds->via.boolean : mp_int(ds);
    const msgpack_object *rq = mp_get(m, ".reqd_workgroup_size");
    if (rq && rq->type == MSGPACK_OBJECT_ARRAY && rq->via.array.size == 3)
        for (int i = 0; i < 3; i++)
            r->reqd_workgroup_size[i] = mp_int(&rq->via.array.ptr[i]);

    const msgpack_object *args = mp_get(m, ".args");
    if (args && args->type == MSGPACK_OBJECT_ARRAY) {
        for (uint32_t i = 0; i < args->via.array.size; i++) {
            const msgpack_object *am = &args->via.array.ptr[i];
            kw_co_arg *g = KW_PUSH(a, k->args);
            if (!g)
                return kw_fail(err, "%s: out of memory", p->origin);
            g->name = mp_str(a, mp_get(am, ".name"));
            g->type_name = mp_str(a, mp_get(am, ".type_name"));
            g->offset = mp_int(mp_get(am, ".offset"));
            g->size = mp_int(mp_get(am, ".size"));
            g->value_kind = mp_str(a, mp_get(am, ".value_kind"));
            g->address_space = mp_str(a, mp_get(am, ".address_space"));
        }
    }
    char kdname[1024];
    snprintf(kdname, sizeof kdname, "%s", k->symbol ? k->symbol : "");
    if (!k->symbol)
        snprintf(kdname, sizeof kdname, "%s.kd", k->name);
    locate_kernel(p, k, kdname);
    return KW_OK;
}

/* The NT_AMDGPU_METADATA descriptor, or NULL. */
static const unsigned char *find_metadata(Elf *e, size_t *len) {
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(e, scn))) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
            continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        if (!d || !d->d_buf)
            continue;
        size_t off = 0, name_off, desc_off;
        GElf_Nhdr nh;
        while (off < d->d_size && (off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
            if (nh.n_type == NT_AMDGPU_METADATA && nh.n_namesz == 7 &&
                memcmp((const char *)d->d_buf + name_off, "AMDGPU", 7) == 0) {
                *len = nh.n_descsz;
                return (const unsigned char *)d->d_buf + desc_off;
            }
        }
    }
    return NULL;
}

static kw_status read_metadata(parse *p, kw_err *err) {
    size_t len = 0;
    const unsigned char *md = find_metadata(p->elf, &len);
    if (!md)
        return kw_fail(err, "%s: AMDGPU code object without an NT_AMDGPU_METADATA note", p->origin);
    size_t pos = 0;
    if (!kw_msgpack_skip(md, len, &pos, MP_MAX_DEPTH))
        return kw_fail(err, "%s: NT_AMDGPU_METADATA is not valid msgpack", p->origin);
    msgpack_unpacked up;
    msgpack_unpacked_init(&up);
    size_t off = 0;
    kw_status st = KW_OK;
    if (msgpack_unpack_next(&up, (const char *)md, pos, &off) != MSGPACK_UNPACK_SUCCESS ||
        up.data.type != MSGPACK_OBJECT_MAP) {
        st = kw_fail(err, "%s: NT_AMDGPU_METADATA is not a msgpack map", p->origin);
        goto done;
    }
    const msgpack_object *root = &up.data;
    kw_arena *a = &p->set->arena;
    const char *target = mp_str(a, mp_get(root, "amdhsa.target"));
    if (target) {
        const char *dd = strstr(target, "--");
        p->obj->target_id = dd ? dd + 2 : target;
    }
    const msgpack_object *ver = mp_get(root, "amdhsa.version");
    if (ver && ver->type == MSGPACK_OBJECT_ARRAY && ver->via.array.size >= 2) {
        p->obj->metadata_version[0] = mp_int(&ver->via.array.ptr[0]);
        p->obj->metadata_version[1] = mp_int(&ver->via.array.ptr[1]);
    }
    const msgpack_object *ks = p->ids ? NULL : mp_get(root, "amdhsa.kernels");
    if (ks && ks->type == MSGPACK_OBJECT_ARRAY)
        for (uint32_t i = 0; i < ks->via.array.size && st == KW_OK; i++)
            st = read_kernel(p, &ks->via.array.ptr[i], err);
done:
    msgpack_unpacked_destroy(&up);
    return st;
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Kernel descriptors the metadata does not list (hand-written code objects). */
static kw_status add_unlisted_kernels(parse *p, kw_err *err) {
    kw_arena *a = &p->set->arena;
    size_t nlisted = p->obj->kernels.n;
    const char **listed = malloc((nlisted ? nlisted : 1) * sizeof *listed);
    if (!listed)
        return kw_fail(err, "%s: out of memory", p->origin);
    for (size_t j = 0; j < nlisted; j++) {
        const kw_co_kernel *k = &p->obj->kernels.v[j];
        listed[j] = k->symbol ? k->symbol : kw_arena_printf(a, "%s.kd", k->name);
        if (!listed[j]) {
            free(listed);
            return kw_fail(err, "%s: out of memory", p->origin);
        }
    }
    qsort(listed, nlisted, sizeof *listed, cmp_str);
    for (size_t i = 0; i < p->nsyms; i++) {
        const sym *s = &p->syms[i];
        size_t l = strlen(s->name);
        if (s->type != STT_OBJECT || l <= 3 || strcmp(s->name + l - 3, ".kd") != 0 ||
            s->size != KD_SIZE)
            continue;
        if (nlisted && bsearch(&s->name, listed, nlisted, sizeof *listed, cmp_str))
            continue;
        kw_co_kernel *k = KW_PUSH(a, p->obj->kernels);
        if (!k) {
            free(listed);
            return kw_fail(err, "%s: out of memory", p->origin);
        }
        init_resources(&k->res);
        k->name = kw_arena_strndup(a, s->name, l - 3);
        k->symbol = kw_arena_strdup(a, s->name);
        locate_kernel(p, k, s->name);
    }
    free(listed);
    return KW_OK;
}

/* The target id from ELF e_flags, for code objects without amdhsa.target:
 * the processor from EF_AMDGPU_MACH, then sramecc and xnack when set on or
 * off (code object v4+: EF_AMDGPU_FEATURE_*_V4), in LLVM's order. */
static const char *target_from_flags(kw_arena *a, unsigned flags, unsigned abiversion) {
    const char *arch = kw_co_hw_arch_for_mach(flags & 0xff);
    if (!arch)
        return kw_arena_printf(a, "unknown-mach-0x%02x", flags & 0xff);
    if (abiversion < 2) /* code object v2/v3 encode the features differently */
        return arch;
    /* each 2-bit field: 0 unsupported, 1 any (both unnamed), 2 off, 3 on */
    unsigned sr = (flags >> 10) & 3, xn = (flags >> 8) & 3;
    return kw_arena_printf(a, "%s%s%s%s%s", arch, sr >= 2 ? ":sramecc" : "",
                           sr == 2 ? "-" : sr == 3 ? "+" : "", xn >= 2 ? ":xnack" : "",
                           xn == 2 ? "-" : xn == 3 ? "+" : "");
}

kw_status kw_co_add_elf(kw_co_set *set, const char *origin, const char *container,
                        const char *bundle_id, const unsigned char *data, size_t size, unsigned how,
                        kw_err *err) {
    kw_arena *a = &set->arena;
    bool borrow = how & KW_CO_ADD_BORROW;
    unsigned char *copy = borrow ? (unsigned char *)data : kw_arena_alloc_raw(a, size ? size : 1);
    if (!copy)
        return kw_fail(err, "%s: out of memory", origin);
    if (!borrow)
        memcpy(copy, data, size);
    kw_co_object *obj = KW_PUSH(a, set->objects);
    if (!obj)
        return kw_fail(err, "%s: out of memory", origin);
    obj->origin = kw_arena_strdup(a, origin);
    obj->container = kw_arena_strdup(a, container);
    obj->bundle_id = kw_arena_strdup(a, bundle_id);
    obj->image = copy;
    obj->image_size = size;
    obj->metadata_version[0] = obj->metadata_version[1] = KW_CO_ABSENT;
    parse p = {set, obj, NULL, NULL, 0, NULL, NULL, 0, obj->origin, (how & KW_CO_ADD_IDS) != 0};
    kw_status st = KW_OK;
    GElf_Ehdr eh;
    kw_co_priv *pv = kw_arena_alloc(a, sizeof *pv);
    if (!pv) {
        set->objects.n--;
        return kw_fail(err, "%s: out of memory", origin);
    }
    Elf *e = elf_memory((char *)copy, size);
    pv->elf = e;
    obj->priv = pv;
    p.elf = e;
    if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh)) {
        st = kw_fail(err, "%s: unreadable ELF: %s", origin, elf_errmsg(-1));
        goto done;
    }
    if (gelf_getclass(e) != ELFCLASS64) {
        st = kw_fail(err, "%s: AMDGPU ELF is not 64-bit", origin);
        goto done;
    }
    size_t shnum;
    if (elf_getshdrnum(e, &shnum) || shnum == 0) {
        st = kw_fail(err, "%s: AMDGPU ELF section headers unreadable (truncated or corrupt file)",
                     origin);
        goto done;
    }
    obj->e_flags = (unsigned)eh.e_flags;
    obj->elf_type = eh.e_type;
    if (p.ids)
        st = read_metadata(&p, err); /* the target id; no kernel */
    else if ((st = read_symbols(&p, err)) == KW_OK && (st = index_symbols(&p, err)) == KW_OK &&
             (st = read_metadata(&p, err)) == KW_OK)
        st = add_unlisted_kernels(&p, err);
    if (st != KW_OK)
        goto done;
    obj->elf_target_id = target_from_flags(a, obj->e_flags, eh.e_ident[EI_ABIVERSION]);
    if (!obj->target_id)
        obj->target_id = obj->elf_target_id;
    size_t colon = strcspn(obj->target_id, ":");
    obj->arch = kw_arena_strndup(a, obj->target_id, colon);
    size_t shstrndx;
    if (elf_getshdrstrndx(e, &shstrndx) == 0) {
        Elf_Scn *scn = NULL;
        while ((scn = elf_nextscn(e, scn))) {
            GElf_Shdr sh;
            const char *nm;
            if (gelf_getshdr(scn, &sh) && (nm = elf_strptr(e, shstrndx, sh.sh_name)) &&
                strcmp(nm, ".debug_line") == 0 && sh.sh_size > 0)
                obj->has_debug_line = true;
        }
    }
    for (size_t i = 0; i < obj->kernels.n; i++) {
        kw_co_kernel *k = &obj->kernels.v[i];
        unsigned lo = 1, hi = 0;
        bool assumed = true;
        const int64_t *rq = k->res.reqd_workgroup_size;
        if (rq[0] > 0 && rq[1] > 0 && rq[2] > 0 && rq[0] <= 1024 && rq[1] <= 1024 &&
            rq[2] <= 1024 && rq[0] * rq[1] * rq[2] <= 1024) {
            lo = hi = (unsigned)(rq[0] * rq[1] * rq[2]);
            assumed = false;
        } else if (k->res.max_flat_workgroup_size > 0 && k->res.max_flat_workgroup_size <= 1024)
            hi = (unsigned)k->res.max_flat_workgroup_size;
        kw_co_occupancy_compute(obj, k, lo, hi, &k->occ);
        k->occ.min_wg_assumed = assumed && k->occ.known;
    }
done:
    free(p.syms);
    free(p.by_name);
    free(p.funcs);
    if (st != KW_OK) {
        kw_co_object_release(obj);
        set->objects.n--;
    }
    return st;
}

void kw_co_object_release(kw_co_object *obj) {
    kw_co_priv *pv = obj->priv;
    if (pv) {
        if (pv->dwarf)
            dwarf_end(pv->dwarf);
        if (pv->elf)
            elf_end(pv->elf);
    }
    obj->priv = NULL;
}
