/* cmd_index.c: `kwalk index PATH... [-o FILE]`: gather the sidecars of a
 * build into one SQLite database (kw_index.h, docs/index-schema.md), by
 * default kwalk.db in the current directory, updated incrementally: a sidecar
 * whose size and mtime (or else content hash) are the ones stored is not
 * parsed again, one no longer given is removed, in one transaction. FILE.yaml
 * or FILE.yml (or --format yaml) exports the index as YAML instead.
 *
 * A PATH that is a file is read as a sidecar whatever its name, unless it is
 * an ELF file or an ar archive: then the sidecars the plugin's embed mode put
 * into it are read (codeobj/kw_co_embedded.h), one per translation unit, and
 * it is an error that it holds none. A directory is searched recursively for
 * *.kwalk.yaml and *.kwalk.yaml.zst, and for embedded sidecars in *.o, *.a,
 * *.so and *.so.N files (entries sorted by name, symbolic links to
 * directories not followed, like find; objects without any are skipped
 * silently, unreadable ones with a warning). A file reached twice (same real
 * path) is read once. No sidecar found at all is an error. Sidecars are
 * parsed on a few threads ($KWALK_JOBS, default the CPUs) and added in the
 * order found. --triton-cache DIR adds the specializations of a Triton cache
 * (triton/kw_triton.h, docs/triton.md) after them, one record per folder.
 *
 * A schema 2 sidecar names its object's code objects instead of carrying the
 * listings: each is looked up in translation_unit.object (under a
 * --map-prefix NEW when it moved) while the sidecar is parsed and checked by
 * size and MD5 (codeobj/kw_co_sidecar.h, kw_co_sidecar_check), not decoded:
 * a page decodes it when it shows its listings (model/kw_decode.h). A missing
 * or changed object costs its kernels' listings, each arch gets a note, and
 * the run warns once per sidecar; it is not an error.
 *
 * This file parses the command line; the sidecars are found by kw_gather.c,
 * the Triton cache folders read by kw_gather_triton.c, the index written by
 * kw_gather_build.c. */
#define _XOPEN_SOURCE 700 /* realpath, readlink */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/kw_cli.h"
#include "cli/kw_gather.h"
#include "cli/kw_gather_build.h"
#include "cli/kw_gather_triton.h"
#include "index/kw_index.h"
#include "triton/kw_triton.h"

#ifndef KWALK_VERSION
#define KWALK_VERSION "unknown"
#endif

static const char kw_index_usage[] =
    "usage: kwalk index [PATH...] [--triton-cache DIR]... [--map-prefix OLD=NEW]... [-o FILE]\n"
    "                   [--format db|yaml]\n"
    "       kwalk index --db FILE -o OUT.yaml\n\n"
    "Gather sidecars into one database. Each PATH is a sidecar file, an object, archive\n"
    "or shared library holding sidecars (the plugin's embed mode), or a directory searched\n"
    "recursively for *.kwalk.yaml, *.kwalk.yaml.zst (zstd) and for sidecars embedded in\n"
    "*.o, *.a, *.so and *.so.N files. Kernels are merged\n"
    "by device symbol (archs unioned); launches, entry points and host calls are kept per\n"
    "translation unit.\n\n"
    "  -o, --output FILE   write the database to FILE (default: " KW_INDEX_DEFAULT_PATH ")\n"
    "  --format db         an SQLite database, updated incrementally (the default)\n"
    "  --format yaml       export as YAML, to read or diff (the default for FILE.yaml, .yml)\n"
    "  --triton-cache DIR  add every specialization of a Triton cache (TRITON_CACHE_DIR, or\n"
    "                      one of its folders); repeatable\n"
    "  --map-prefix OLD=NEW  paths under OLD are under NEW now: the sidecars' source\n"
    "                      locations, the objects they name (listings are read from there)\n"
    "                      and the Triton cache's files; repeatable, the first match wins\n"
    "  --db FILE           (without PATHs) export the index FILE as YAML to OUT.yaml\n"
    "Every kwalk command reads both forms; docs/index-schema.md describes the tables.\n";

int kw_cmd_index(int argc, char **argv) {
    const char *out = KW_INDEX_DEFAULT_PATH, *from = NULL;
    int yaml = -1; /* from the output name unless given */
    kw_found f;
    kw_arena_init(&f.arena);
    kw_symmap_init(&f.seen);
    memset(&f.paths, 0, sizeof(f.paths));
    memset(&f.src, 0, sizeof(f.src));
    KW_ARRAY(const char *) inputs = {0};
    KW_ARRAY(const char *) tdirs = {0};
    kw_tcache tc;
    memset(&tc, 0, sizeof tc);
    int rc = KW_EXIT_OK;
    bool opts = true;
    for (int i = 1; i < argc && rc == KW_EXIT_OK; i++) {
        const char *a = argv[i], *v;
        int r;
        if (opts && kw_cli_is_help(a)) {
            fputs(kw_index_usage, stdout);
            rc = kw_cli_flush_stdout();
            goto done;
        } else if (opts && !strcmp(a, "--")) {
            opts = false;
        } else if (opts && (r = kw_cli_opt(argc, argv, &i, "--output", "-o", &v)) != 0) {
            if (r < 0 || !*v)
                rc = kw_cli_usage_error("index", "option %s needs a file name", a);
            else
                out = v;
        } else if (opts && (r = kw_cli_opt(argc, argv, &i, "--format", NULL, &v)) != 0) {
            if (r > 0 && !strcmp(v, "db"))
                yaml = 0;
            else if (r > 0 && !strcmp(v, "yaml"))
                yaml = 1;
            else
                rc = kw_cli_usage_error("index", "--format takes 'db' or 'yaml'");
        } else if (opts && (r = kw_cli_opt(argc, argv, &i, "--db", NULL, &v)) != 0) {
            if (r < 0 || !*v)
                rc = kw_cli_usage_error("index", "option %s needs a file name", a);
            else
                from = v;
        } else if (opts && (r = kw_cli_opt(argc, argv, &i, "--triton-cache", NULL, &v)) != 0) {
            const char **slot = r > 0 && *v ? KW_PUSH(&f.arena, tdirs) : NULL;
            if (r < 0 || !*v)
                rc = kw_cli_usage_error("index", "option %s needs a directory", a);
            else if (!slot)
                rc = kw_cli_failf("out of memory");
            else
                *slot = v;
        } else if (opts && (r = kw_cli_opt(argc, argv, &i, "--map-prefix", NULL, &v)) != 0) {
            const char *eq = r > 0 ? strchr(v, '=') : NULL;
            kw_triton_prefix *p = eq && eq != v ? KW_PUSH(&f.arena, tc.prefixes) : NULL;
            if (!eq || eq == v)
                rc = kw_cli_usage_error("index", "--map-prefix takes OLD=NEW");
            else if (!p || !(p->from = kw_arena_strndup(&f.arena, v, (size_t)(eq - v))))
                rc = kw_cli_failf("out of memory");
            else
                p->to = eq + 1;
        } else if (opts && a[0] == '-' && a[1]) {
            rc = kw_cli_usage_error("index", "unknown option '%s'", a);
        } else {
            const char **slot = KW_PUSH(&f.arena, inputs);
            if (!slot)
                rc = kw_cli_failf("out of memory");
            else
                *slot = a;
        }
    }
    if (rc == KW_EXIT_OK && from) {
        if (inputs.n || tdirs.n)
            rc = kw_cli_usage_error("index", "--db exports an index: give no PATH");
        else if (!(yaml >= 0 ? yaml : kw_gather_yaml_name(out)))
            rc = kw_cli_usage_error("index", "--db exports as YAML: -o FILE.yaml");
        else
            rc = kw_gather_export(from, out);
        goto done;
    }
    if (rc == KW_EXIT_OK && !inputs.n && !tdirs.n)
        rc = kw_cli_usage_error("index", "no PATH given");
    for (size_t i = 0; i < inputs.n && rc == KW_EXIT_OK; i++)
        rc = kw_gather(&f, inputs.v[i]);
    for (size_t i = 0; i < tdirs.n && rc == KW_EXIT_OK; i++) {
        kw_err err;
        kw_triton_paths found = {0};
        if (kw_triton_cache_entries(&f.arena, tdirs.v[i], &found, &err))
            rc = kw_cli_fail(&err);
        else if (!found.n)
            rc = kw_cli_failf("%s: no Triton cache entries (folders with a __grp__NAME.json) found",
                              tdirs.v[i]);
        for (size_t j = 0; j < found.n && rc == KW_EXIT_OK; j++) /* a folder given twice: once */
            rc = kw_gather_triton_add(&f, &tc, found.v[j]);
    }
    if (rc == KW_EXIT_OK && !f.paths.n && inputs.n)
        rc = kw_cli_failf(
            "%s%s: no sidecars (*.kwalk.yaml, *.kwalk.yaml.zst, or embedded in objects) found",
            inputs.v[0], inputs.n > 1 ? " ..." : "");
    if (rc == KW_EXIT_OK)
        rc = (yaml >= 0 ? yaml : kw_gather_yaml_name(out)) ? kw_gather_build_yaml(&f, &tc, out)
                                                           : kw_gather_build_db(&f, &tc, out);
done:
    kw_symmap_free(&f.seen);
    kw_arena_free(&f.arena);
    return rc;
}
