/* cmd_diff.c: `kwalk diff OLD NEW [--json] [--arch A] [--fail-on KIND,...]`:
 * what changed between two builds, per kernel instantiation and arch, one
 * line per change sorted by consequence (model/kw_diff.h), as a Markdown
 * table or JSON (render/kw_diff_write.h; docs/diff.md). OLD and NEW are
 * indexes (a database or its YAML export), build folders or Triton caches,
 * indexed first into a temporary database (as `kwalk index DIR` or `kwalk
 * index --triton-cache DIR` would, without IR facts) that is removed
 * afterwards.
 *
 * Exit status: 0, also when there are changes; 2 when a kind --fail-on names
 * occurred (one stderr line says which); 1 on bad input and bad command
 * lines alike (one `kwalk: ...` line), so that a CI gate tells a regression
 * (2) from a broken step (1). */
#define _XOPEN_SOURCE 700 /* mkdtemp */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/kw_cli.h"
#include "cli/kw_cli_json.h"
#include "cli/kw_gather.h"
#include "cli/kw_gather_build.h"
#include "cli/kw_gather_triton.h"
#include "index/kw_index.h"
#include "model/kw_diff.h"
#include "render/kw_diff_write.h"
#include "triton/kw_triton.h"

enum { KW_DIFF_EXIT_FAIL = 2 }; /* a --fail-on kind occurred */

static const char kw_diff_usage[] =
    "usage: kwalk diff OLD NEW [--json] [--arch ARCH] [--fail-on KIND,...]\n\n"
    "What changed between two builds, per kernel instantiation: instantiations added\n"
    "and removed (with their launch sites), and per arch of one in both VGPR, AGPR, SGPR,\n"
    "LDS, scratch, VGPR/SGPR spills, occupancy and its limiter, the instruction count and\n"
    "the count of each instruction class, whether the ISA listing changed and, with line\n"
    "tables, which source lines' code changed. One line per change, regressions first\n"
    "(occupancy drops, new spills, removed instantiations, register/LDS/scratch growth),\n"
    "then other changes, then improvements. Added and removed instantiations come with\n"
    "their launch sites and entry points.\n"
    "OLD and NEW are indexes written by 'kwalk index' (.db, or its .yaml export), build\n"
    "folders or Triton caches, indexed first into a temporary database. Kernels are\n"
    "matched by device symbol; one with internal linkage by its symbol and its unit's\n"
    "source file; a Triton specialization by its function, arch, signature and constexprs\n"
    "(its compile options compared as changes).\n\n"
    "  --json              one JSON document instead of the Markdown table (docs/diff.md)\n"
    "  --arch ARCH         compare ARCH only (gfx942)\n"
    "  --fail-on KIND,...  exit 2 when a named kind of regression occurs: occupancy (drop),\n"
    "                      spills (new), removed, vgpr, agpr, sgpr, lds, scratch (growth),\n"
    "                      added, isa (listing changed), lines, option, limiter, insns,\n"
    "                      class (any change)\n\n"
    "Exit status: 0 (changes or not), 2 when a --fail-on kind occurred, 1 on bad input\n"
    "or a bad command line. No changes: no output (--json: an empty \"changes\" list).\n";

__attribute__((format(printf, 1, 2))) static int kw_diff_usage_error(const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    kw_cli_usage_error("diff", "%s", msg); /* exit 1, not 2: 2 means a regression here */
    return KW_EXIT_INPUT;
}

/* A folder without sidecars: the Triton cache folders in it (or it), as
 * `kwalk index --triton-cache` reads them, without IR facts (a diff
 * compares none: no kwalk-irfacts run). */
static int kw_diff_triton_dir(kw_found *f, kw_tcache *tc, const char *path) {
    kw_err err;
    kw_triton_paths found = {0};
    if (kw_triton_cache_entries(&f->arena, path, &found, &err) != KW_OK)
        return kw_cli_fail(&err);
    if (!found.n)
        return kw_cli_failf("%s: no sidecars (*.kwalk.yaml, *.kwalk.yaml.zst, or embedded in "
                            "objects) and no Triton cache entries (folders with a "
                            "__grp__NAME.json) found",
                            path);
    setenv("KWALK_IRFACTS", "off", 1);
    int rc = KW_EXIT_OK;
    for (size_t j = 0; j < found.n && rc == KW_EXIT_OK; j++)
        rc = kw_gather_triton_add(f, tc, found.v[j]);
    return rc;
}

/* A build folder (or a Triton cache) indexed into dir/kwalk.db (the summary
 * line `kwalk index` prints goes to /dev/null: stdout is the diff's). */
static int kw_diff_index_dir(const char *path, const char *db) {
    kw_found f;
    memset(&f, 0, sizeof f);
    kw_arena_init(&f.arena);
    kw_symmap_init(&f.seen);
    kw_tcache tc;
    memset(&tc, 0, sizeof tc);
    int rc = kw_gather(&f, path);
    if (rc == KW_EXIT_OK && !f.paths.n)
        rc = kw_diff_triton_dir(&f, &tc, path);
    if (rc == KW_EXIT_OK) {
        fflush(stdout);
        int saved = dup(STDOUT_FILENO), nul = open("/dev/null", O_WRONLY);
        if (saved < 0 || nul < 0 || dup2(nul, STDOUT_FILENO) < 0) {
            rc = kw_cli_failf("cannot redirect the output: %s", strerror(errno));
        } else {
            rc = kw_gather_build_db(&f, &tc, db);
            fflush(stdout);
            dup2(saved, STDOUT_FILENO);
        }
        if (saved >= 0)
            close(saved);
        if (nul >= 0)
            close(nul);
    }
    kw_symmap_free(&f.seen);
    kw_arena_free(&f.arena);
    return rc;
}

/* One side read: an index as it is, a folder through a temporary database
 * (its folder in tmp[], removed by kw_diff_cleanup). */
static int kw_diff_load(const char *path, kw_index *ix, char tmp[64]) {
    struct stat st;
    kw_err err;
    if (stat(path, &st) != 0)
        return kw_cli_failf("%s: %s", path, strerror(errno));
    const char *db = path;
    char file[160];
    if (S_ISDIR(st.st_mode)) {
        const char *t = getenv("TMPDIR");
        if (!t || !*t || strlen(t) > 40)
            t = "/tmp";
        snprintf(tmp, 64, "%s/kwalk-diff-XXXXXX", t);
        if (!mkdtemp(tmp)) {
            int e = errno;
            tmp[0] = 0;
            return kw_cli_failf("cannot make a temporary folder in %s: %s", t, strerror(e));
        }
        snprintf(file, sizeof file, "%s/kwalk.db", tmp);
        int rc = kw_diff_index_dir(path, file);
        if (rc != KW_EXIT_OK)
            return rc;
        db = file;
    }
    if (kw_index_read_file_later(ix, db, 1, &err) != KW_OK) {
        if (db != path) /* name the folder, not the temporary file */
            return kw_cli_failf("%s: %s", path, err.msg);
        return kw_cli_fail(&err);
    }
    return KW_EXIT_OK;
}

static void kw_diff_cleanup(char tmp[64]) {
    if (!tmp[0])
        return;
    static const char *const files[] = {"kwalk.db", "kwalk.db-journal", "kwalk.db-wal",
                                        "kwalk.db-shm"};
    char file[160];
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(file, sizeof file, "%s/%s", tmp, files[i]);
        unlink(file);
    }
    rmdir(tmp);
    tmp[0] = 0;
}

/* --fail-on's list into want[kind]; the exit status. */
static int kw_diff_fail_kinds(const char *list, bool want[KW_DIFF_NKINDS]) {
    char buf[256];
    if (!*list || strlen(list) >= sizeof buf)
        return kw_diff_usage_error("--fail-on takes KIND,... (the kinds: --help)");
    strcpy(buf, list);
    for (char *save = NULL, *k = strtok_r(buf, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
        kw_diff_kind kind = kw_diff_kind_of(k);
        if (kind == KW_DIFF_NKINDS)
            return kw_diff_usage_error("--fail-on: unknown kind '%s'", k);
        want[kind] = true;
    }
    return KW_EXIT_OK;
}

/* The output, then the --fail-on verdict. */
static int kw_diff_report(const kw_diff *d, const char *old_name, const char *new_name, bool json,
                          const bool want[KW_DIFF_NKINDS]) {
    bool failed[KW_DIFF_NKINDS] = {false}, any = false;
    for (size_t i = 0; i < d->rows.n; i++) {
        const kw_diff_row *r = &d->rows.v[i];
        if (want[r->kind] && kw_diff_fails(r))
            any = failed[r->kind] = true;
    }
    int rc;
    if (json) {
        bool oom = false;
        json_t *doc = kw_diff_json(d, old_name, new_name, failed, &oom);
        rc = kw_cli_json_print(doc, oom);
    } else {
        kw_buf b;
        kw_buf_init(&b);
        kw_diff_write_md(d, old_name, new_name, &b);
        rc = kw_cli_write_buf(&b, NULL);
        kw_buf_free(&b);
    }
    if (rc != KW_EXIT_OK || !any)
        return rc;
    kw_buf why;
    kw_buf_init(&why);
    for (int k = 0; k < KW_DIFF_NKINDS; k++)
        if (failed[k])
            kw_buf_printf(&why, "%s%s", why.len ? "," : "", kw_diff_kind_name((kw_diff_kind)k));
    fprintf(stderr, "kwalk: diff: --fail-on: %s occurred\n", kw_buf_str(&why));
    kw_buf_free(&why);
    return KW_DIFF_EXIT_FAIL;
}

int kw_cmd_diff(int argc, char **argv) {
    const char *paths[2] = {NULL, NULL}, *arch = NULL;
    bool json = false, want[KW_DIFF_NKINDS] = {false};
    int npaths = 0, rc = KW_EXIT_OK;
    for (int i = 1; i < argc && rc == KW_EXIT_OK; i++) {
        const char *v;
        int r;
        if (kw_cli_is_help(argv[i])) {
            fputs(kw_diff_usage, stdout);
            return kw_cli_flush_stdout();
        } else if (!strcmp(argv[i], "--json")) {
            json = true;
        } else if ((r = kw_cli_opt(argc, argv, &i, "--arch", NULL, &v)) != 0) {
            if (r < 0 || !*v)
                rc = kw_diff_usage_error("option --arch needs an arch (gfx942)");
            else
                arch = v;
        } else if ((r = kw_cli_opt(argc, argv, &i, "--fail-on", NULL, &v)) != 0) {
            rc = r < 0 ? kw_diff_usage_error("option --fail-on needs KIND,...")
                       : kw_diff_fail_kinds(v, want);
        } else if (argv[i][0] == '-' && argv[i][1]) {
            rc = kw_diff_usage_error("unknown option '%s'", argv[i]);
        } else if (npaths == 2) {
            rc = kw_diff_usage_error("unexpected argument '%s'", argv[i]);
        } else {
            paths[npaths++] = argv[i];
        }
    }
    if (rc == KW_EXIT_OK && npaths < 2)
        rc = kw_diff_usage_error("give OLD and NEW (indexes, build folders or Triton caches)");
    if (rc != KW_EXIT_OK)
        return rc;
    kw_index ix[2];
    char tmp[2][64] = {"", ""};
    kw_index_init(&ix[0]);
    kw_index_init(&ix[1]);
    for (int s = 0; s < 2 && rc == KW_EXIT_OK; s++)
        rc = kw_diff_load(paths[s], &ix[s], tmp[s]);
    if (rc == KW_EXIT_OK) {
        kw_diff d;
        kw_err err;
        if (kw_diff_build(&d, &ix[0], &ix[1], arch, &err) != KW_OK)
            rc = kw_cli_fail(&err);
        else
            rc = kw_diff_report(&d, paths[0], paths[1], json, want);
        kw_diff_free(&d);
    }
    kw_index_free(&ix[0]);
    kw_index_free(&ix[1]);
    kw_diff_cleanup(tmp[0]);
    kw_diff_cleanup(tmp[1]);
    return rc;
}
