/* kwco_dump.c: the code-object library's test driver (and a preview of
 * `kwalk isa`): prints what codeobj/kw_codeobj.h reads from a file, in forms
 * the tests compare with llvm-readelf, llvm-objdump, clang-offload-bundler
 * and clang's resource-usage remarks.
 *
 *   kwco-dump FILE                      kernel table per code object
 *   kwco-dump --yaml [--no-isa] [--lines] FILE
 *                                       sidecar-shaped YAML of every kernel
 *                                       (kwco_yaml.c)
 *   kwco-dump --kernel NAME [--lines] FILE
 *                                       listing of one kernel, every arch
 *   kwco-dump --extract DIR FILE        write each bundle entry to DIR/N.ID
 *   --flat-wg SYMBOL=MIN,MAX            occupancy of SYMBOL for that flat
 *                                       workgroup size range (what the source's
 *                                       amdgpu_flat_work_group_size says)
 *
 * Errors: one line "kwco-dump: ..." on stderr, exit status 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codeobj/kw_codeobj.h"
#include "common/kw_fs.h"
#include "kwco_yaml.h"

static int usage(void) {
    fputs("usage: kwco-dump [--yaml [--no-isa]] [--kernel NAME] [--lines] [--extract DIR]\n"
          "                 [--flat-wg SYMBOL=MIN,MAX]... FILE\n",
          stderr);
    return 2;
}

typedef struct extract_ctx {
    const char *dir;
    unsigned n;
} extract_ctx;

static kw_status write_entry(void *ctx, const char *bundle_id, const void *data, size_t size,
                             kw_err *err) {
    extract_ctx *x = ctx;
    char id[256], path[4096];
    snprintf(id, sizeof id, "%s", bundle_id ? bundle_id : "code-object");
    for (char *p = id; *p; p++)
        if (*p == '/' || *p == ':')
            *p = '_';
    snprintf(path, sizeof path, "%s/%u.%s", x->dir, x->n++, id);
    if (kw_fs_write_atomic(path, data, size, err) != KW_OK)
        return KW_ERR;
    printf("%s %zu %s\n", bundle_id ? bundle_id : "-", size, path);
    return KW_OK;
}

/* Apply "SYMBOL=MIN,MAX" to every kernel of that name. */
static bool apply_flat_wg(kw_co_set *set, const char *spec) {
    const char *eq = strchr(spec, '=');
    unsigned lo, hi;
    if (!eq || sscanf(eq + 1, "%u,%u", &lo, &hi) != 2)
        return false;
    for (size_t i = 0; i < set->objects.n; i++)
        for (size_t j = 0; j < set->objects.v[i].kernels.n; j++) {
            kw_co_kernel *k = &set->objects.v[i].kernels.v[j];
            if (strlen(k->name) == (size_t)(eq - spec) && strncmp(k->name, spec, eq - spec) == 0)
                kw_co_occupancy_compute(&set->objects.v[i], k, lo, hi, &k->occ);
        }
    return true;
}

static int fail(const kw_err *err) {
    fprintf(stderr, "kwco-dump: %s\n", err->msg);
    return 1;
}

int main(int argc, char **argv) {
    bool yaml = false, isa = true, lines = false;
    const char *kernel = NULL, *extract = NULL, *file = NULL;
    const char *flat_wg[16];
    int nflat = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--yaml") == 0)
            yaml = true;
        else if (strcmp(argv[i], "--no-isa") == 0)
            isa = false;
        else if (strcmp(argv[i], "--lines") == 0)
            lines = true;
        else if (strcmp(argv[i], "--kernel") == 0 && i + 1 < argc)
            kernel = argv[++i];
        else if (strcmp(argv[i], "--flat-wg") == 0 && i + 1 < argc && nflat < 16)
            flat_wg[nflat++] = argv[++i];
        else if (strcmp(argv[i], "--extract") == 0 && i + 1 < argc)
            extract = argv[++i];
        else if (argv[i][0] == '-' || file)
            return usage();
        else
            file = argv[i];
    }
    if (!file)
        return usage();
    kw_err err = {{0}};

    if (extract) {
        char *data;
        size_t len;
        if (kw_fs_read(file, &data, &len, &err) != KW_OK)
            return fail(&err);
        extract_ctx x = {extract, 0};
        kw_status st = kw_co_foreach_entry(file, data, len, write_entry, &x, &err);
        free(data);
        return st == KW_OK ? 0 : fail(&err);
    }

    kw_co_set set;
    kw_co_set_init(&set);
    if (kw_co_open(&set, file, &err) != KW_OK) {
        kw_co_set_free(&set);
        return fail(&err);
    }
    for (int i = 0; i < nflat; i++)
        if (!apply_flat_wg(&set, flat_wg[i])) {
            kw_co_set_free(&set);
            return usage();
        }
    kw_buf out;
    kw_buf_init(&out);
    kw_status st = KW_OK;
    unsigned flags = lines ? KW_CO_WANT_LINES : 0;
    if (yaml) {
        st = kwco_write_yaml(&out, &set, isa, flags, &err);
    } else if (kernel) {
        kw_co_listing l;
        kw_co_listing_init(&l);
        bool found = false;
        for (size_t i = 0; i < set.objects.n && st == KW_OK; i++)
            for (size_t j = 0; j < set.objects.v[i].kernels.n && st == KW_OK; j++) {
                const kw_co_kernel *k = &set.objects.v[i].kernels.v[j];
                if (strcmp(k->name, kernel) != 0)
                    continue;
                found = true;
                st = kw_co_disassemble(&set, &set.objects.v[i], k, flags, &l, &err);
                if (st == KW_OK) {
                    kw_co_write_listing(&out, &l);
                    kw_buf_putc(&out, '\n');
                }
            }
        kw_co_listing_free(&l);
        if (st == KW_OK && !found)
            st = kw_fail(&err, "%s: no kernel named %s", file, kernel);
    } else {
        kw_co_write_summary(&out, &set);
    }
    if (st == KW_OK && out.oom)
        st = kw_fail(&err, "out of memory");
    if (st == KW_OK)
        fwrite(out.ptr ? out.ptr : "", 1, out.len, stdout);
    kw_buf_free(&out);
    kw_co_set_free(&set);
    return st == KW_OK ? 0 : fail(&err);
}
