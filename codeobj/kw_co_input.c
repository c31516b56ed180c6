/* kw_co_input.c: recognizing what a file holds and unwrapping it down to
 * AMDGPU ELF code objects. The layers, by their first bytes:
 *   "\x7fELF"                   AMDGPU code object (e_machine EM_AMDGPU), or a
 *                               host ELF whose .hip_fatbin section holds one or
 *                               more bundles back to back (with padding);
 *   "__CLANG_OFFLOAD_BUNDLE__"  u64 entry count, then per entry u64 offset,
 *                               u64 size, u64 id length, id; offsets are from
 *                               the bundle's first byte;
 *   "CCOB"                      u16 version, u16 method (0 zlib, 1 zstd), then
 *                               v1: u32 uncompressed size, u64 hash;
 *                               v2: u32 total size, u32 uncompressed size, u64 hash;
 *                               v3: u64 total size, u64 uncompressed size, u64 hash;
 *                               then the compressed bundle (layout of clang's
 *                               OffloadBundler.cpp, CompressedOffloadBundle);
 *                               the hash (MD5, low 64 bits) is checked after
 *                               decompression.
 * Every size and offset is checked against the bytes present before use. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gelf.h>
#include <libelf.h>
#include <zlib.h>
#include <zstd.h>

#include "kw_co_internal.h"
#include "codeobj/kw_co_ids.h"
#include "common/kw_fs.h"

#ifndef EM_AMDGPU
#define EM_AMDGPU 224
#endif

#define BUNDLE_MAGIC "__CLANG_OFFLOAD_BUNDLE__"
enum { BUNDLE_MAGIC_LEN = 24, CCOB_MAX_DEPTH = 4 };
/* A decompressed bundle larger than this is refused (a corrupt header must
 * not make us allocate gigabytes). Real multi-arch fat binaries are far smaller. */
#define CCOB_MAX_UNCOMPRESSED ((uint64_t)1 << 30)

typedef struct walker {
    const char *name;
    kw_co_found_fn found;
    kw_co_note_fn note;
    void *ctx;
    bool all_entries; /* report every bundle entry, not only AMDGPU ELF ones */
    unsigned found_count;
} walker;

static kw_status walk_blob(walker *w, const char *origin, const char *container,
                           const char *bundle_id, unsigned char *d, size_t n, int depth,
                           kw_err *err);

static bool is_elf(const unsigned char *d, size_t n) {
    return n >= 4 && memcmp(d, "\x7f" "ELF", 4) == 0;
}
static bool is_bundle(const unsigned char *d, size_t n) {
    return n >= BUNDLE_MAGIC_LEN && memcmp(d, BUNDLE_MAGIC, BUNDLE_MAGIC_LEN) == 0;
}
static bool is_ccob(const unsigned char *d, size_t n) {
    return n >= 4 && memcmp(d, "CCOB", 4) == 0;
}

static void note(walker *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(walker *w, const char *fmt, ...) {
    if (w->note) {
        char msg[1024];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        w->note(w->ctx, msg);
    }
}

/* ---- CCOB ---------------------------------------------------------------- */

/* Decompress the CCOB at d (n bytes available). *total is the CCOB's own
 * length (for walking concatenated fat binaries); *out is malloc'd. */
static kw_status ccob_decompress(const char *origin, const unsigned char *d, size_t n,
                                 unsigned char **out, size_t *out_len, size_t *total,
                                 char *desc, size_t desc_len, kw_err *err) {
    *out = NULL;
    if (n < 8)
        return kw_fail(err, "%s: truncated CCOB header (%zu bytes)", origin, n);
    unsigned version = kw_co_le16(d + 4), method = kw_co_le16(d + 6);
    size_t hdr;
    uint64_t tot, usize, hash;
    switch (version) {
    case 1:
        hdr = 20;
        if (n < hdr)
            return kw_fail(err, "%s: truncated CCOB v1 header", origin);
        usize = kw_co_le32(d + 8);
        hash = kw_co_le64(d + 12);
        tot = n; /* v1 does not record its length: the rest of the input */
        break;
    case 2:
        hdr = 24;
        if (n < hdr)
            return kw_fail(err, "%s: truncated CCOB v2 header", origin);
        tot = kw_co_le32(d + 8);
        usize = kw_co_le32(d + 12);
        hash = kw_co_le64(d + 16);
        break;
    case 3:
        hdr = 32;
        if (n < hdr)
            return kw_fail(err, "%s: truncated CCOB v3 header", origin);
        tot = kw_co_le64(d + 8);
        usize = kw_co_le64(d + 16);
        hash = kw_co_le64(d + 24);
        break;
    default:
        return kw_fail(err, "%s: unknown CCOB version %u", origin, version);
    }
    if (method != 0 && method != 1)
        return kw_fail(err, "%s: unknown CCOB compression method %u", origin, method);
    if (tot < hdr || tot > n)
        return kw_fail(err, "%s: CCOB v%u total size %llu does not fit the %zu bytes present",
                       origin, version, (unsigned long long)tot, n);
    if (usize == 0 || usize > CCOB_MAX_UNCOMPRESSED)
        return kw_fail(err, "%s: CCOB uncompressed size %llu out of range", origin,
                       (unsigned long long)usize);
    const unsigned char *src = d + hdr;
    size_t src_len = (size_t)(tot - hdr);
    if (method == 1) {
        unsigned long long fcs = ZSTD_getFrameContentSize(src, src_len);
        if (fcs == ZSTD_CONTENTSIZE_ERROR)
            return kw_fail(err, "%s: CCOB v%u: not a zstd frame", origin, version);
        if (fcs != ZSTD_CONTENTSIZE_UNKNOWN && fcs != usize)
            return kw_fail(err, "%s: CCOB v%u: zstd frame holds %llu bytes, header says %llu",
                           origin, version, fcs, (unsigned long long)usize);
    }
    unsigned char *buf = malloc((size_t)usize);
    if (!buf)
        return kw_fail(err, "%s: out of memory decompressing %llu bytes", origin,
                       (unsigned long long)usize);
    size_t got;
    if (method == 1) {
        size_t r = ZSTD_decompress(buf, (size_t)usize, src, src_len);
        if (ZSTD_isError(r)) {
            free(buf);
            return kw_fail(err, "%s: CCOB v%u: bad zstd data: %s", origin, version,
                           ZSTD_getErrorName(r));
        }
        got = r;
    } else {
        uLongf dl = (uLongf)usize;
        int r = uncompress(buf, &dl, src, (uLong)src_len);
        if (r != Z_OK) {
            free(buf);
            return kw_fail(err, "%s: CCOB v%u: bad zlib data (zlib error %d)", origin, version, r);
        }
        got = dl;
    }
    if (got != usize) {
        free(buf);
        return kw_fail(err, "%s: CCOB v%u: decompressed %zu bytes, header says %llu", origin,
                       version, got, (unsigned long long)usize);
    }
    if (kw_co_md5_low64(buf, got) != hash) {
        free(buf);
        return kw_fail(err, "%s: CCOB v%u: decompressed data does not match the header's hash",
                       origin, version);
    }
    snprintf(desc, desc_len, "ccob-v%u-%s", version, method ? "zstd" : "zlib");
    *out = buf;
    *out_len = got;
    *total = (size_t)tot;
    return KW_OK;
}

/* ---- offload bundles ----------------------------------------------------- */

/* Walk the bundle at d (n bytes available); *extent is how far its entries
 * reach (so a caller can find the next bundle of a fat binary). */
static kw_status walk_bundle(walker *w, const char *origin, const char *container,
                             unsigned char *d, size_t n, int depth, size_t *extent,
                             kw_err *err) {
    if (n < BUNDLE_MAGIC_LEN + 8)
        return kw_fail(err, "%s: truncated offload bundle header (%zu bytes)", origin, n);
    uint64_t count = kw_co_le64(d + BUNDLE_MAGIC_LEN);
    size_t pos = BUNDLE_MAGIC_LEN + 8;
    if (count > (n - pos) / 24)
        return kw_fail(err, "%s: offload bundle claims %llu entries, more than its %zu bytes hold",
                       origin, (unsigned long long)count, n);
    size_t end = pos;
    char next_container[128];
    snprintf(next_container, sizeof next_container, "%s%sbundle", container ? container : "",
             container ? "+" : "");
    /* First pass: validate the whole table before reporting anything. */
    for (uint64_t i = 0; i < count; i++) {
        if (n - pos < 24)
            return kw_fail(err, "%s: offload bundle entry %llu: truncated header", origin,
                           (unsigned long long)i);
        uint64_t off = kw_co_le64(d + pos), size = kw_co_le64(d + pos + 8);
        uint64_t idlen = kw_co_le64(d + pos + 16);
        pos += 24;
        if (idlen > n - pos || idlen > 4096)
            return kw_fail(err, "%s: offload bundle entry %llu: id length %llu out of range",
                           origin, (unsigned long long)i, (unsigned long long)idlen);
        pos += (size_t)idlen;
        if (off > n || size > n - off)
            return kw_fail(err,
                           "%s: offload bundle entry %llu: offset %llu + size %llu is outside "
                           "the %zu bytes of the bundle",
                           origin, (unsigned long long)i, (unsigned long long)off,
                           (unsigned long long)size, n);
        if (off + size > end)
            end = (size_t)(off + size);
    }
    if (pos > end)
        end = pos;
    pos = BUNDLE_MAGIC_LEN + 8;
    for (uint64_t i = 0; i < count; i++) {
        uint64_t off = kw_co_le64(d + pos), size = kw_co_le64(d + pos + 8);
        size_t idlen = (size_t)kw_co_le64(d + pos + 16);
        char id[4097];
        memcpy(id, d + pos + 24, idlen);
        id[idlen] = '\0';
        pos += 24 + idlen;
        if (strlen(id) != idlen)
            return kw_fail(err, "%s: offload bundle entry %llu: id holds a NUL byte", origin,
                           (unsigned long long)i);
        char sub[1024];
        snprintf(sub, sizeof sub, "%.880s, %.128s", origin, id); /* bounded: fits sub */
        unsigned char *e = d + off;
        size_t elen = (size_t)size;
        if (w->all_entries) {
            kw_status st = w->found(w->ctx, sub, next_container, id, e, elen, err);
            if (st != KW_OK)
                return st;
            w->found_count++;
            continue;
        }
        if (strncmp(id, "host-", 5) == 0 || elen == 0) {
            note(w, "%s: skipped %s entry", sub, elen ? "host" : "empty");
            continue;
        }
        if (!is_elf(e, elen)) {
            note(w, "%s: skipped entry that is not an ELF code object%s", sub,
                 elen >= 4 && memcmp(e, "BC\xc0\xde", 4) == 0 ? " (LLVM bitcode)" : "");
            continue;
        }
        /* An entry is a code object; anything else inside is reported by walk_blob. */
        kw_status st = walk_blob(w, sub, next_container, id, e, elen, depth + 1, err);
        if (st != KW_OK)
            return st;
    }
    *extent = end;
    return KW_OK;
}

/* ---- host ELF .hip_fatbin ------------------------------------------------ */

static const unsigned char *find_magic(const unsigned char *d, size_t n, size_t from) {
    for (size_t i = from; i + 4 <= n; i++) {
        if (d[i] == '_' && is_bundle(d + i, n - i))
            return d + i;
        if (d[i] == 'C' && is_ccob(d + i, n - i) && i + 8 <= n) {
            unsigned v = kw_co_le16(d + i + 4), m = kw_co_le16(d + i + 6);
            if (v >= 1 && v <= 3 && m <= 1)
                return d + i;
        }
    }
    return NULL;
}

/* A fat binary: bundles (plain or CCOB) one after another, each aligned. */
static kw_status walk_fatbin(walker *w, const char *origin, const char *container,
                             unsigned char *d, size_t n, int depth, kw_err *err) {
    size_t pos = 0;
    unsigned k = 0;
    if (n == 0)
        return kw_fail(err, "%s: empty .hip_fatbin section", origin);
    if (!is_bundle(d, n) && !is_ccob(d, n))
        return kw_fail(err, "%s: .hip_fatbin does not start with an offload bundle", origin);
    for (;;) {
        const unsigned char *m = find_magic(d, n, pos);
        if (!m)
            break;
        pos = (size_t)(m - d);
        char sub[640];
        snprintf(sub, sizeof sub, "%s: .hip_fatbin bundle %u", origin, ++k);
        size_t extent = 0;
        kw_status st;
        if (is_bundle(d + pos, n - pos)) {
            st = walk_bundle(w, sub, container, d + pos, n - pos, depth, &extent, err);
        } else {
            unsigned char *out;
            size_t out_len, total;
            char desc[64], cont[160];
            st = ccob_decompress(sub, d + pos, n - pos, &out, &out_len, &total, desc,
                                 sizeof desc, err);
            if (st == KW_OK) {
                snprintf(cont, sizeof cont, "%s+%s", container, desc);
                if (!is_bundle(out, out_len))
                    st = kw_fail(err, "%s: decompressed CCOB is not an offload bundle", sub);
                else
                    st = walk_bundle(w, sub, cont, out, out_len, depth + 1, &extent, err);
                free(out);
                extent = total;
            }
        }
        if (st != KW_OK)
            return st;
        pos += extent ? extent : 1;
    }
    return KW_OK;
}

static kw_status walk_host_elf(walker *w, const char *origin, unsigned char *d, size_t n,
                               int depth, kw_err *err) {
    Elf *e = elf_memory((char *)d, n);
    if (!e)
        return kw_fail(err, "%s: unreadable ELF: %s", origin, elf_errmsg(-1));
    kw_status st = KW_OK;
    size_t shstrndx;
    GElf_Ehdr eh;
    if (elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh) || elf_getshdrstrndx(e, &shstrndx)) {
        st = kw_fail(err, "%s: unreadable ELF: %s", origin, elf_errmsg(-1));
        goto done;
    }
    Elf_Scn *scn = NULL, *fat = NULL;
    while ((scn = elf_nextscn(e, scn))) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh))
            continue;
        const char *nm = elf_strptr(e, shstrndx, sh.sh_name);
        if (nm && strcmp(nm, ".hip_fatbin") == 0) {
            if (sh.sh_type == SHT_NOBITS) {
                st = kw_fail(err, "%s: .hip_fatbin section has no contents", origin);
                goto done;
            }
            fat = scn;
            break;
        }
    }
    if (!fat) {
        st = kw_fail(err,
                     "%s: ELF for machine %u is neither an AMDGPU code object nor a host "
                     "object with a .hip_fatbin section",
                     origin, (unsigned)eh.e_machine);
        goto done;
    }
    Elf_Data *data = elf_rawdata(fat, NULL);
    if (!data || (!data->d_buf && data->d_size)) {
        st = kw_fail(err, "%s: .hip_fatbin unreadable: %s", origin, elf_errmsg(-1));
        goto done;
    }
    st = walk_fatbin(w, origin, "host-elf", data->d_buf, data->d_size, depth, err);
done:
    elf_end(e);
    return st;
}

/* ---- dispatch ------------------------------------------------------------ */

static kw_status walk_blob(walker *w, const char *origin, const char *container,
                           const char *bundle_id, unsigned char *d, size_t n, int depth,
                           kw_err *err) {
    if (depth > CCOB_MAX_DEPTH)
        return kw_fail(err, "%s: bundles nested too deeply", origin);
    if (is_elf(d, n)) {
        if (n < 64)
            return kw_fail(err, "%s: truncated ELF header (%zu bytes)", origin, n);
        unsigned machine = kw_co_le16(d + 18);
        if (d[5] == 1 /* ELFDATA2LSB */ && machine == EM_AMDGPU) {
            kw_status st =
                w->found(w->ctx, origin, container ? container : "elf", bundle_id, d, n, err);
            if (st == KW_OK)
                w->found_count++;
            return st;
        }
        if (container)
            return kw_fail(err, "%s: bundle entry is an ELF for machine %u, not AMDGPU", origin,
                           machine);
        return walk_host_elf(w, origin, d, n, depth, err);
    }
    if (is_bundle(d, n)) {
        size_t extent;
        return walk_bundle(w, origin, container, d, n, depth, &extent, err);
    }
    if (is_ccob(d, n)) {
        unsigned char *out;
        size_t out_len, total;
        char desc[64], cont[160];
        kw_status st = ccob_decompress(origin, d, n, &out, &out_len, &total, desc,
                                       sizeof desc, err);
        if (st != KW_OK)
            return st;
        snprintf(cont, sizeof cont, "%s%s%s", container ? container : "", container ? "+" : "",
                 desc);
        if (!is_bundle(out, out_len))
            st = kw_fail(err, "%s: decompressed CCOB is not an offload bundle", origin);
        else {
            size_t extent;
            st = walk_bundle(w, origin, cont, out, out_len, depth + 1, &extent, err);
        }
        free(out);
        return st;
    }
    if (n == 0)
        return kw_fail(err, "%s: empty input", origin);
    return kw_fail(err,
                   "%s: not a code object: neither ELF, nor an offload bundle, nor a CCOB "
                   "compressed bundle",
                   origin);
}

kw_status kw_co_walk(const char *name, unsigned char *data, size_t size, kw_co_found_fn found,
                     kw_co_note_fn notefn, void *ctx, bool all_entries, kw_err *err) {
    elf_version(EV_CURRENT); /* libelf's handshake; idempotent */
    walker w = {name, found, notefn, ctx, all_entries, 0};
    kw_status st = walk_blob(&w, name, NULL, NULL, data, size, 0, err);
    if (st == KW_OK && w.found_count == 0 && !all_entries)
        return kw_fail(err, "%s: holds no AMDGPU code object", name);
    return st;
}

/* ---- the public entry points -------------------------------------------- */

void kw_co_set_init(kw_co_set *set) {
    memset(set, 0, sizeof *set);
    kw_arena_init(&set->arena);
}

/* A file kw_co_open mapped; its code objects' bytes are used in place. */
typedef struct kw_co_map {
    kw_fs_map m;
    struct kw_co_map *next;
} kw_co_map;

void kw_co_set_free(kw_co_set *set) {
    for (size_t i = 0; i < set->objects.n; i++)
        kw_co_object_release(&set->objects.v[i]);
    kw_co_disasm_release(set);
    for (kw_co_map *m = set->maps, *next; m; m = next) {
        next = m->next;
        kw_fs_map_close(&m->m);
        free(m);
    }
    kw_arena_free(&set->arena);
    memset(set, 0, sizeof *set);
}

/* The walk's context: the set, and the bytes that outlive the walk (a
 * mapping the set keeps; NULL: none). */
typedef struct add_ctx {
    kw_co_set *set;
    const unsigned char *lo, *hi;
    unsigned how; /* KW_CO_ADD_IDS or 0 */
} add_ctx;

static kw_status found_add(void *ctx, const char *origin, const char *container,
                           const char *bundle_id, const unsigned char *data, size_t size,
                           kw_err *err) {
    add_ctx *c = ctx;
    bool borrow = c->lo && data >= c->lo && size <= (size_t)(c->hi - data);
    return kw_co_add_elf(c->set, origin, container, bundle_id, data, size,
                         c->how | (borrow ? KW_CO_ADD_BORROW : 0), err);
}

static void note_add(void *ctx, const char *msg) {
    kw_co_set *set = ((add_ctx *)ctx)->set;
    const char **slot = KW_PUSH(&set->arena, set->notes);
    if (slot)
        *slot = kw_arena_strdup(&set->arena, msg);
}

/* Add buf's code objects; those within [lo, hi) (bytes the set keeps) are
 * used in place, the others copied. */
static kw_status load_owned(kw_co_set *set, const char *name, unsigned char *buf, size_t size,
                            const unsigned char *lo, const unsigned char *hi, unsigned how,
                            kw_err *err) {
    if (!set->name)
        set->name = kw_arena_strdup(&set->arena, name);
    size_t before = set->objects.n;
    add_ctx c = {set, lo, hi, how};
    kw_status st = kw_co_walk(name, buf, size, found_add, note_add, &c, false, err);
    if (st != KW_OK) {
        /* leave the set as it was before this input */
        for (size_t i = before; i < set->objects.n; i++)
            kw_co_object_release(&set->objects.v[i]);
        set->objects.n = before;
    }
    return st;
}

/* kw_co_open, or with KW_CO_ADD_IDS kw_co_open_ids. */
static kw_status kw_co_open_as(kw_co_set *set, const char *path, unsigned how, kw_err *err) {
    /* mapped: a large host object costs only the pages read; kept with the
     * set, so that its code objects are not copied */
    kw_co_map *m = calloc(1, sizeof *m);
    if (!m)
        return kw_fail(err, "%s: out of memory", path);
    if (kw_fs_map_open(&m->m, path, KW_FS_CODE, err) != KW_OK) {
        free(m);
        return KW_ERR;
    }
    kw_status st =
        load_owned(set, path, m->m.data, m->m.len, m->m.data, m->m.data + m->m.len, how, err);
    m->next = set->maps;
    set->maps = m;
    return st;
}

kw_status kw_co_open(kw_co_set *set, const char *path, kw_err *err) {
    return kw_co_open_as(set, path, 0, err);
}

kw_status kw_co_open_ids(kw_co_set *set, const char *path, kw_err *err) {
    return kw_co_open_as(set, path, KW_CO_ADD_IDS, err);
}

kw_status kw_co_load(kw_co_set *set, const char *name, const void *data, size_t size, kw_err *err) {
    unsigned char *buf = malloc(size ? size : 1);
    if (!buf)
        return kw_fail(err, "%s: out of memory", name);
    if (size)
        memcpy(buf, data, size);
    kw_status st = load_owned(set, name, buf, size, NULL, NULL, 0, err);
    free(buf);
    return st;
}

typedef struct entry_ctx {
    kw_co_entry_fn fn;
    void *ctx;
} entry_ctx;

static kw_status found_entry(void *ctx, const char *origin, const char *container,
                             const char *bundle_id, const unsigned char *data, size_t size,
                             kw_err *err) {
    (void)origin;
    (void)container;
    entry_ctx *ec = ctx;
    return ec->fn(ec->ctx, bundle_id, data, size, err);
}

kw_status kw_co_foreach_entry(const char *name, const void *data, size_t size,
                              kw_co_entry_fn fn, void *ctx, kw_err *err) {
    unsigned char *buf = malloc(size ? size : 1);
    if (!buf)
        return kw_fail(err, "%s: out of memory", name);
    if (size)
        memcpy(buf, data, size);
    entry_ctx ec = {fn, ctx};
    kw_status st = kw_co_walk(name, buf, size, found_entry, NULL, &ec, true, err);
    free(buf);
    return st;
}
