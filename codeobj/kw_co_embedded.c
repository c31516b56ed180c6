/* kw_co_embedded.c: the embed section's records in objects, archives and
 * linked files (kw_co_embedded.h), read with elfutils' libelf from the file
 * (the headers and the embed section, not the whole file). */
#define _POSIX_C_SOURCE 200809L /* pread */
#include "codeobj/kw_co_embedded.h"

#include <ar.h>
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <string.h>
#include <unistd.h>

#include "common/kw_fs.h"
#include "sidecar/kw_sidecar_embed.h"

bool kw_co_embedded_is_container(const void *head, size_t n) {
    return (n >= 4 && !memcmp(head, ELFMAG, SELFMAG)) ||
           (n >= SARMAG && !memcmp(head, ARMAG, SARMAG));
}

/* The records of one ELF image (a whole file, or an archive member whose
 * image starts at base in the file). */
static kw_status kw_scan_elf(Elf *e, const char *path, const char *member, uint64_t base,
                             kw_arena *a, kw_co_embedded_list *out, kw_err *err) {
    size_t shstrndx;
    if (elf_getshdrstrndx(e, &shstrndx) != 0)
        return kw_fail(err, "%s%s%s%s: unreadable ELF: %s", path, member ? "(" : "",
                       member ? member : "", member ? ")" : "", elf_errmsg(-1));
    GElf_Ehdr eh;
    if (gelf_getehdr(e, &eh) && eh.e_type != ET_REL)
        out->shared = true;
    const char *where = member ? kw_arena_printf(a, "%s(%s)", path, member) : path;
    if (!where)
        return kw_fail(err, "out of memory");
    size_t first = out->n;
    for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn));) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
            continue;
        const char *name = elf_strptr(e, shstrndx, sh.sh_name);
        if (!name || strcmp(name, KW_EMBED_SECTION) != 0)
            continue;
        Elf_Data *d = elf_rawdata(scn, NULL);
        if (!d || !d->d_buf || d->d_size != sh.sh_size)
            return kw_fail(err, "%s: %s section unreadable: %s", where, KW_EMBED_SECTION,
                           elf_errmsg(-1));
        for (size_t pos = 0;;) {
            size_t off, len;
            if (kw_sidecar_embed_next(where, d->d_buf, d->d_size, &pos, &off, &len, err) != KW_OK)
                return KW_ERR;
            if (!len)
                break;
            kw_co_embedded *r = KW_PUSH(a, *out);
            if (!r)
                return kw_fail(err, "out of memory");
            r->member = member;
            r->ordinal = (unsigned)(out->n - 1 - first);
            r->offset = base + sh.sh_offset + off;
            r->len = len;
        }
    }
    for (size_t i = first; i < out->n; i++)
        out->v[i].count = (unsigned)(out->n - first);
    return KW_OK;
}

kw_status kw_co_embedded_scan(const char *path, kw_arena *a, kw_co_embedded_list *out,
                              kw_err *err) {
    memset(out, 0, sizeof *out);
    int fd;
    uint64_t size;
    if (kw_fs_open_fd(path, KW_FS_CODE, &fd, &size, err) != KW_OK)
        return KW_ERR;
    unsigned char head[SARMAG];
    ssize_t got = pread(fd, head, sizeof head, 0);
    if (got < 0 || !kw_co_embedded_is_container(head, (size_t)got)) {
        close(fd);
        return got < 0 ? kw_fail(err, "%s: %s", path, strerror(errno)) : KW_OK;
    }
    out->container = true;
    elf_version(EV_CURRENT); /* libelf's handshake; idempotent */
    kw_status st = KW_OK;
    /* read, not mapped: libelf reads the headers and the sections asked for
     * (mapping each object of a build and unmapping it cost more than the
     * reads: a re-index of an unchanged build opens every object) */
    Elf *e = elf_begin(fd, ELF_C_READ, NULL);
    if (!e) {
        st = kw_fail(err, "%s: unreadable: %s", path, elf_errmsg(-1));
    } else if (elf_kind(e) == ELF_K_ELF) {
        st = kw_scan_elf(e, path, NULL, 0, a, out, err);
    } else if (elf_kind(e) == ELF_K_AR) {
        out->archive = true;
        Elf_Cmd cmd = ELF_C_READ;
        for (Elf *mem; st == KW_OK && (mem = elf_begin(fd, cmd, e));) {
            Elf_Arhdr *ar = elf_getarhdr(mem);
            /* the archive's symbol and name tables ("/", "//") are not ELF */
            if (ar && ar->ar_name && elf_kind(mem) == ELF_K_ELF) {
                const char *name = kw_arena_strdup(a, ar->ar_name);
                st = name ? kw_scan_elf(mem, path, name, (uint64_t)elf_getbase(mem), a, out, err)
                          : kw_fail(err, "out of memory");
            }
            cmd = elf_next(mem);
            elf_end(mem);
        }
        out->shared = false;
    } else {
        st = kw_fail(err, "%s: neither an ELF file nor an archive libelf reads", path);
    }
    if (e)
        elf_end(e);
    close(fd);
    return st;
}
