/* kw_page_isa.c: the page model's ISA part (kw_page_isa.h): per arch shown,
 * its listing split into lines once and its occupancy facts; section 5's
 * class table, mnemonic and DPP control counts with their notes; and for the
 * site, the source <-> ISA view (kw_page_isa_view.c). */
#include "model/kw_page_isa.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "codeobj/kw_codeobj.h"

void kw_page_isa_global_init(void) {
    (void)kw_co_hw_lookup("gfx942"); /* the occupancy table, read once before the threads */
}

/* ---- a listing's lines ------------------------------------------------------------------------
 */

unsigned kw_page_isa_hash(const char *s, size_t n) {
    uint64_t h = 0x9e3779b97f4a7c15u ^ n;
    for (; n >= 8; s += 8, n -= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdu;
        h ^= h >> 32;
    }
    uint64_t w = 0;
    for (size_t i = 0; i < n; i++)
        w |= (uint64_t)(unsigned char)s[i] << (8 * i);
    h = (h ^ w) * 0xc4ceb9fe1a85ec53u;
    return (unsigned)(h ^ h >> 29);
}

size_t kw_page_isa_op_len(const char *s, size_t n) {
    /* the suffixes by their last character: _e32; _e64; _sdwa; _e64_dpp
     * then _dpp (one compare per mnemonic: most end in 2 or 4) */
#define KW_ENDS(lit) (n > sizeof lit - 1 && !memcmp(s + n - (sizeof lit - 1), lit, sizeof lit - 1))
    switch (n ? s[n - 1] : 0) {
    case '2':
        return KW_ENDS("_e32") ? n - 4 : n;
    case '4':
        return KW_ENDS("_e64") ? n - 4 : n;
    case 'a':
        return KW_ENDS("_sdwa") ? n - 5 : n;
    case 'p':
        return KW_ENDS("_e64_dpp") ? n - 8 : KW_ENDS("_dpp") ? n - 4 : n;
    default:
        return n;
    }
#undef KW_ENDS
}

/* The value of the hex digit c, or -1. */
static int kw_page_isa_hex(char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    c = (char)(c | 0x20);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

bool kw_page_isa_next(const char **at, kw_page_isa_line *l) {
    const char *p = *at;
    if (!*p)
        return false;
    const char *nl = strchr(p, '\n');
    l->p = p;
    l->len = nl ? (size_t)(nl - p) : strlen(p);
    /* "OFFSET:" with OFFSET in hex (at most 16 digits: strtoul's range) */
    const char *q = p;
    unsigned long v = 0;
    int d;
    while (q - p < 16 && (d = kw_page_isa_hex(*q)) >= 0) {
        v = v << 4 | (unsigned long)d;
        q++;
    }
    l->insn = q != p && *q == ':';
    l->offset = l->insn ? v : 0;
    l->after = l->insn ? q + 1 : NULL;
    *at = p + l->len + (nl ? 1 : 0);
    return true;
}

/* The lines of listing isa into x; false when out of memory. */
static bool kw_page_isa_split(kw_page_isa_arch *x, const char *isa, kw_arena *a) {
    /* counted first and allocated once: a push per line was a tenth of this */
    size_t cap = *isa != 0;
    for (const char *p = isa; (p = strchr(p, '\n')) != NULL; p++)
        cap += p[1] != 0;
    /* not zeroed: every field of every line is set below */
    kw_page_isa_line *v = kw_arena_alloc_raw(a, (cap ? cap : 1) * sizeof *v);
    if (!v)
        return false;
    size_t n = 0, ninsn = 0;
    for (const char *p = isa; n < cap && kw_page_isa_next(&p, &v[n]); ++n) {
        kw_page_isa_line *l = &v[n];
        ninsn += l->insn;
        l->tok = NULL;
        l->toklen = 0;
        l->tokhash = 0;
        if (!l->insn)
            continue;
        const char *t = l->after, *end = l->p + l->len;
        while (t < end && (*t == ' ' || *t == '\t'))
            t++;
        const char *sp = memchr(t, ' ', (size_t)(end - t));
        l->tok = t;
        l->toklen = (size_t)((sp ? sp : end) - t);
        l->tokhash = kw_page_isa_hash(t, l->toklen);
    }
    x->lines = v;
    x->n = n;
    x->ninsn = ninsn;
    return true;
}

/* ---- per arch: occupancy facts ------------------------------------------------------------------
 */

static void kw_page_isa_occ(kw_page_isa_arch *x, kw_arena *a) {
    const kw_co_occ_block *ob = &x->a->occ_block;
    const kw_isa_resources *res = &x->a->facts->resources;
    x->occ_differs = ob->known && res->occupancy >= 0 && (long long)ob->waves != res->occupancy;
    x->spills = res->vgpr_spill > 0 || res->sgpr_spill > 0;
    /* below LLVM's occupancy at the compiled block size: what binds there */
    x->limiter = res->occupancy_limiter;
    if (ob->known && ob->limiters && res->occupancy >= 0 && (long long)ob->waves < res->occupancy)
        x->limiter = kw_arena_printf(a, "%s (%u work-items)",
                                     kw_co_block_limiter_name(ob->limiters), ob->block);
}

/* ---- section 5: the class table ----------------------------------------------------------------
 */

static long long kw_nn(long long v) {
    return v > 0 ? v : 0;
}

bool kw_page_isa_mix(const kw_isa_classes *c, kw_isa_mix *m) {
    memset(m, 0, sizeof(*m));
    if (!kw_isa_classes_known(c))
        return false;
    m->mfma = kw_nn(c->mfma) + kw_nn(c->smfmac) + kw_nn(c->wmma);
    m->valu = kw_nn(c->valu) + kw_nn(c->valu_packed) + kw_nn(c->valu_trans) +
              kw_nn(c->cvt_fp8_fp4);
    m->salu = kw_nn(c->salu);
    m->vmem = kw_nn(c->vmem_load) + kw_nn(c->vmem_store) + kw_nn(c->vmem_atomic);
    m->lds = kw_nn(c->lds) + kw_nn(c->ds_swizzle) + kw_nn(c->ds_bpermute) + kw_nn(c->ds_permute);
    m->branch = kw_nn(c->branch);
    m->insns = kw_nn(c->insns);
    return true;
}

static kw_status kw_page_isa_classes(kw_page_isa *pi, kw_arena *a, kw_err *err) {
    size_t na = pi->archs.n;
    long long maxn = 0;
    for (size_t i = 0; i < na; i++) {
        const kw_isa_classes *c = &pi->archs.v[i].a->facts->classes;
        if (!kw_isa_classes_known(c))
            continue;
        for (size_t k = 0; kw_isa_class_key(k); k++) {
            const char *key = kw_isa_class_key(k);
            long long v = kw_isa_class_count(c, k);
            pi->nkeys = k + 1;
            if (strcmp(key, "insns") && strcmp(key, "dpp") && strcmp(key, "sdwa") && v >= 0 &&
                v > maxn)
                maxn = v;
        }
    }
    for (size_t k = 0; k < pi->nkeys; k++) {
        const char *key = kw_isa_class_key(k);
        long long first = -1;
        bool nonzero = false;
        for (size_t i = 0; i < na; i++) {
            long long v = kw_isa_class_count(&pi->archs.v[i].a->facts->classes, k);
            if (v >= 0) {
                nonzero |= v != 0;
                if (first < 0)
                    first = v;
            }
        }
        if (!nonzero)
            continue;
        kw_page_isa_class_row *row = KW_PUSH(a, pi->classes);
        long long *v = kw_arena_alloc(a, (na ? na : 1) * sizeof *v);
        if (!row || !v)
            return kw_fail(err, "out of memory");
        row->key = key;
        row->modifier = !strcmp(key, "dpp") || !strcmp(key, "sdwa");
        row->total = !strcmp(key, "insns");
        row->v = v;
        for (size_t i = 0; i < na; i++) {
            long long c = kw_isa_class_count(&pi->archs.v[i].a->facts->classes, k);
            v[i] = c >= 0 ? c : -1;
        }
        row->bar = -1;
        if (!row->modifier && !row->total && maxn > 0) {
            int bar = (int)((first > 0 ? first : 0) * 30 / maxn);
            row->bar = first > 0 && bar == 0 ? 1 : bar;
        }
    }
    return KW_OK;
}

/* ---- section 5: mnemonics and DPP controls -----------------------------------------------------
 */

typedef struct kw_pi_counts {
    kw_page_isa *pi;
    kw_arena *a;
    unsigned short mslot[KW_PAGE_ISA_SLOTS]; /* pi->mnems by hash */
    unsigned short dslot[KW_PAGE_ISA_SLOTS]; /* pi->dpp by hash */
    /* an instruction's mnemonic token and what section 5 makes of it: the
     * end of its name (the token up to a tab) and the name's index in
     * mnems (-1: not counted), worked out once per token */
    struct kw_pi_tok {
        kw_page_isa_key tok;
        size_t cut;
        int name;
    } * toks;
    size_t ntoks, captoks;
    unsigned short tslot[KW_PAGE_ISA_SLOTS];
    bool oom;
} kw_pi_counts;

/* The index of the name s[0, n) in the counts of v (slot: its hash slots),
 * added (with no count) when new; -1 when out of memory. */
static int kw_pi_find(kw_pi_counts *c, bool dpp, const char *s, size_t n) {
    kw_page_isa *pi = c->pi;
    unsigned short *slot = dpp ? c->dslot : c->mslot;
    unsigned h = kw_page_isa_hash(s, n);
    unsigned short *free_slot;
    int i = dpp ? kw_page_isa_key_find(pi->dpp.v, pi->dpp.n, sizeof *pi->dpp.v, slot, s, n, h,
                                       &free_slot)
                : kw_page_isa_key_find(pi->mnems.v, pi->mnems.n, sizeof *pi->mnems.v, slot, s, n, h,
                                       &free_slot);
    if (i >= 0)
        return i;
    kw_page_isa_count *x = dpp ? KW_PUSH(c->a, pi->dpp) : KW_PUSH(c->a, pi->mnems);
    const char *copy = x ? kw_arena_strndup(c->a, s, n) : NULL;
    if (!copy) {
        if (x)
            (dpp ? &pi->dpp.n : &pi->mnems.n)[0]--; /* out of memory: the name is not kept */
        c->oom = true;
        return -1;
    }
    memset(x, 0, sizeof *x);
    x->name = (kw_page_isa_key){copy, n, h};
    x->lds = !dpp && !strncmp(copy, "ds_", 3);
    size_t now = dpp ? pi->dpp.n : pi->mnems.n;
    if (free_slot)
        *free_slot = (unsigned short)now;
    return (int)(now - 1);
}

/* The index in mnems of the mnemonic s[0, n) as section 5 names it (its
 * encoding suffix stripped); -1 for none (empty, a comment ';' or a '<'). */
static int kw_pi_name(kw_pi_counts *c, const char *s, size_t n) {
    return n && *s != ';' && *s != '<' ? kw_pi_find(c, false, s, kw_page_isa_op_len(s, n)) : -1;
}

static const struct kw_pi_tok *kw_pi_tok_of(kw_pi_counts *c, const kw_page_isa_line *ln) {
    unsigned short *free_slot;
    int i = kw_page_isa_key_find(c->toks, c->ntoks, sizeof *c->toks, c->tslot, ln->tok, ln->toklen,
                                 ln->tokhash, &free_slot);
    if (i >= 0)
        return &c->toks[i];
    if (c->ntoks == c->captoks) {
        size_t cap = c->captoks ? 2 * c->captoks : 64;
        struct kw_pi_tok *v = kw_arena_alloc_raw(c->a, cap * sizeof *v);
        if (!v)
            return NULL;
        if (c->ntoks)
            memcpy(v, c->toks, c->ntoks * sizeof *v);
        c->toks = v;
        c->captoks = cap;
    }
    struct kw_pi_tok *x = &c->toks[c->ntoks++];
    const char *s = ln->tok, *tab = memchr(s, '\t', ln->toklen);
    x->tok = (kw_page_isa_key){s, ln->toklen, ln->tokhash};
    x->cut = tab ? (size_t)(tab - s) : ln->toklen;
    x->name = kw_pi_name(c, s, x->cut);
    if (free_slot)
        *free_slot = (unsigned short)c->ntoks;
    return x;
}

/* Mnemonics and DPP controls of arch number arch's listing. */
static void kw_pi_scan(kw_pi_counts *c, const kw_page_isa_arch *x, size_t arch) {
    kw_page_isa *pi = c->pi;
    const kw_page_isa_line *ln = x->lines;
    for (size_t i = 0; ln && i < x->n; i++) {
        const char *p = ln[i].p, *end = p + ln[i].len;
        const struct kw_pi_tok *tn =
            ln[i].insn && arch < KW_PAGE_ISA_COUNTED ? kw_pi_tok_of(c, &ln[i]) : NULL;
        const char *e;
        if (tn) { /* an instruction: its mnemonic as the lines below would find it */
            if (tn->name >= 0)
                pi->mnems.v[tn->name].count[arch]++;
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
            int name = arch < KW_PAGE_ISA_COUNTED ? kw_pi_name(c, s, (size_t)(e - s)) : -1;
            if (name >= 0)
                pi->mnems.v[name].count[arch]++;
        }
        /* DPP controls among the operands (each has a '_': most lines have none) */
        if (e >= end || !memchr(e, '_', (size_t)(end - e)))
            continue;
        static const char *const ctl[] = {
            "row_shr:",   "row_shl:",        "row_ror:",   "row_bcast:", "row_newbcast:",
            "quad_perm:", "wave_shr:",       "wave_shl:",  "wave_ror:",  "wave_rol:",
            "row_mirror", "row_half_mirror", "row_share:", "row_xmask:"};
        for (const char *sp = e; sp < end && (sp = memchr(sp, ' ', (size_t)(end - sp))); sp++) {
            const char *q = sp + 1; /* a word after a space */
            if (q >= end || (*q != 'r' && *q != 'q' && *q != 'w'))
                continue; /* every control starts a word with r, q or w */
            for (size_t k = 0; k < sizeof(ctl) / sizeof(ctl[0]); k++) {
                if (*q != ctl[k][0])
                    continue;
                size_t cl = strlen(ctl[k]);
                if ((size_t)(end - q) < cl || memcmp(q, ctl[k], cl))
                    continue;
                const char *z = q + cl;
                if (z < end && *z == '[') { /* quad_perm:[2,3,0,1]: through the bracket */
                    while (z < end && *z != ']' && *z != ' ')
                        z++;
                    z += z < end && *z == ']';
                } else if (ctl[k][cl - 1] == ':')
                    while (z < end && *z != ' ' && *z != ',')
                        z++;
                int d = arch < KW_PAGE_ISA_COUNTED ? kw_pi_find(c, true, q, (size_t)(z - q)) : -1;
                if (d >= 0)
                    pi->dpp.v[d].count[arch]++;
            }
        }
    }
}

/* Each name's note as section 5 shows it (none for s_waitcnt*, s_endpgm). */
static void kw_pi_notes(kw_page_isa *pi, const kw_isa_notes *notes, kw_arena *a) {
    for (int pass = 0; notes && pass < 2; pass++) {
        kw_page_isa_count *v = pass ? pi->dpp.v : pi->mnems.v;
        size_t n = pass ? pi->dpp.n : pi->mnems.n;
        for (size_t i = 0; i < n; i++) {
            const char *key = v[i].name.text;
            if (!strncmp(key, "s_waitcnt", 9) || !strcmp(key, "s_endpgm"))
                continue;
            char *dkey = pass ? kw_arena_printf(a, "dpp:%s", key) : NULL;
            v[i].note = kw_isa_note_for(notes, pass ? (dkey ? dkey : key) : key);
        }
    }
}

static kw_status kw_page_isa_counts(kw_page_isa *pi, const kw_isa_notes *notes, kw_arena *a,
                                    kw_err *err) {
    kw_pi_counts *c = kw_arena_alloc(a, sizeof *c);
    if (!c)
        return kw_fail(err, "out of memory");
    memset(c, 0, sizeof *c);
    c->pi = pi;
    c->a = a;
    for (size_t i = 0; i < pi->archs.n; i++)
        if (pi->archs.v[i].a->facts->isa)
            kw_pi_scan(c, &pi->archs.v[i], i);
    if (c->oom)
        return kw_fail(err, "out of memory");
    kw_pi_notes(pi, notes, a);
    for (size_t i = 0; i < pi->mnems.n; i++)
        if (pi->mnems.v[i].lds)
            for (size_t k = 0; k < pi->archs.n && k < KW_PAGE_ISA_COUNTED; k++)
                pi->lds += pi->mnems.v[i].count[k];
    return KW_OK;
}

/* ---- the page's ISA part ------------------------------------------------------------------------
 */

kw_status kw_page_isa_build(kw_page_isa *pi, const kw_page *p, const kw_isa_notes *notes,
                            kw_arena *a, kw_err *err) {
    memset(pi, 0, sizeof *pi);
    for (size_t i = 0; i < p->archs.n; i++) {
        kw_page_isa_arch *x = KW_PUSH(a, pi->archs);
        if (!x)
            return kw_fail(err, "out of memory");
        memset(x, 0, sizeof *x);
        x->a = &p->archs.v[i];
        const kw_kernel_arch *fx = x->a->facts;
        if (!fx)
            continue;
        x->has = kw_isa_resources_known(&fx->resources) || fx->isa ||
                 kw_isa_classes_known(&fx->classes) || fx->isa_note;
        pi->any |= x->has;
        if (fx->isa && !kw_page_isa_split(x, fx->isa, a))
            return kw_fail(err, "out of memory");
        kw_page_isa_occ(x, a);
    }
    if (kw_page_isa_classes(pi, a, err) != KW_OK || kw_page_isa_counts(pi, notes, a, err) != KW_OK)
        return KW_ERR;
    return KW_OK;
}

bool kw_page_isa_def_range(kw_page_isa_defs *d, const kw_src_file *f, int line, int col,
                           kw_src_def *out) {
    size_t n = sizeof d->v / sizeof d->v[0];
    size_t h = ((size_t)(uintptr_t)f >> 4) * 31u + (size_t)line * 131u + (size_t)col;
    kw_page_isa_def_memo *m = &d->v[h % n];
    if (!m->f || m->f != f || m->line != line || m->col != col) {
        m->ok = kw_src_def_range(f, line, col, &m->def);
        m->f = f, m->line = line, m->col = col;
    }
    *out = m->def;
    return m->ok;
}
