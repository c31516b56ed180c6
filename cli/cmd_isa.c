/* cmd_isa.c: `kwalk isa FILE...`: the ISA side of a walkthrough for code
 * objects with no source at hand (aiter's precompiled hsa/<arch>/ .co ASM
 * kernels) or any .o/.so/.hsaco/bundle: the kernels with their resources and
 * occupancy, or one kernel's listing with instruction classes and DPP
 * patterns, as text or in the sidecar's YAML shape. --kernel NAME is matched
 * by the rule `render KERNEL` uses (common/kw_names.h): the symbol, the
 * demangled name blanks aside, else a part of either. Kernels are shown with
 * their demangled names; notes about skipped entries go to stderr.
 *
 * --format yaml writes, per FILE, one YAML document that is a sidecar
 * (docs/sidecar-schema.md) with only kernels: the archs values are filled by
 * kw_co_sidecar_fill, the code the plugin's host job runs, so the keys and
 * values are those of a plugin-written sidecar for the same code objects.
 * Several FILEs give several documents ("---" between them).
 *
 * --json writes one JSON document (docs/json.md), {"kwalk_isa": 1,
 * "files": [{"file": FILE, "kernels": [...]}]}, each file's kernels those of
 * its YAML document (the same values, read back by kw_cli_json_of_yaml). */
#include <stdio.h>
#include <string.h>

#include "cli/kw_cli.h"
#include "cli/kw_cli_json.h"
#include "codeobj/kw_co_sidecar.h"
#include "codeobj/kw_codeobj.h"
#include "common/kw_buf.h"
#include "sidecar/kw_sidecar.h"

#ifndef KWALK_VERSION
#define KWALK_VERSION "unknown"
#endif

static int kw_isa_help(void) {
    printf("usage: kwalk isa FILE... [--kernel NAME] [--format text|yaml|json] [--json] "
           "[--lines]\n\n"
           "Reads AMDGPU code objects (ELF), offload bundles (plain or CCOB-compressed)\n"
           "and host objects or shared libraries with a .hip_fatbin section.\n"
           "Without --kernel: every kernel with its resources and occupancy, its\n"
           "symbol and demangled name.\n"
           "With --kernel NAME: that kernel's listing, instruction classes, DPP\n"
           "patterns and memory widths. NAME is the symbol, the demangled name with\n"
           "or without its parameters (blanks ignored: 'k<float,256>'), else a part\n"
           "of the symbol or demangled name (every kernel it is a part of).\n"
           "Notes (entries skipped on purpose) go to stderr.\n"
           "--format yaml prints the same facts in the sidecar's shape (one YAML\n"
           "document per FILE: kernels[].archs.<arch>).\n"
           "--json (or --format json) prints them as one JSON document:\n"
           "{\"kwalk_isa\": 1, \"files\": [{\"file\": FILE, \"kernels\": [...]}]}.\n"
           "--lines maps instructions to source lines when the code object has\n"
           "line tables.\n");
    return kw_cli_flush_stdout();
}

static int kw_isa_yaml(const char *path, const char *kernel, bool lines, kw_buf *out) {
    kw_sidecar sc;
    kw_sidecar_init(&sc);
    sc.producer.name = "kwalk";
    sc.producer.version = KWALK_VERSION;
    sc.tu.object = path;
    kw_err err;
    unsigned flags = kernel ? KW_CO_SC_LISTING : 0;
    if (!lines)
        flags |= KW_CO_SC_NO_LINES;
    int rc = KW_EXIT_OK;
    if (kw_co_sidecar_fill_kernels(&sc, path, flags, kernel, &err) != KW_OK)
        rc = kw_cli_fail(&err);
    else if (kernel && !sc.kernels.n)
        rc = kw_cli_failf("%s: no kernel matches '%s'", path, kernel);
    else if (kw_sidecar_emit(&sc, out, &err) != KW_OK)
        rc = kw_cli_fail(&err);
    kw_sidecar_free(&sc);
    return rc;
}

/* Every FILE's YAML document as JSON, in one document. */
static int kw_isa_json(const char *const *files, int nfiles, const char *kernel, bool lines) {
    bool oom = false;
    json_t *doc = json_object(), *list = json_array();
    kw_buf yaml;
    kw_buf_init(&yaml);
    int rc = KW_EXIT_OK;
    for (int f = 0; f < nfiles && rc == KW_EXIT_OK && !oom; f++) {
        kw_buf_reset(&yaml);
        rc = kw_isa_yaml(files[f], kernel, lines, &yaml);
        if (rc != KW_EXIT_OK)
            break;
        kw_err err;
        json_t *sc = yaml.oom ? NULL : kw_cli_json_of_yaml(files[f], yaml.ptr, yaml.len, &err);
        if (!sc) {
            rc = yaml.oom ? kw_cli_failf("%s: out of memory", files[f]) : kw_cli_fail(&err);
            break;
        }
        json_t *kernels = json_incref(json_object_get(sc, "kernels"));
        json_decref(sc);
        kw_jansson_push(list,
                        json_pack("{s:o, s:o}", "file", kw_jansson_text(files[f]), "kernels",
                                  kernels ? kernels : json_array()),
                        &oom);
    }
    kw_buf_free(&yaml);
    if (rc != KW_EXIT_OK) {
        json_decref(doc);
        json_decref(list);
        return rc;
    }
    if (doc) {
        kw_jansson_set(doc, "kwalk_isa", json_integer(1), &oom);
        kw_jansson_set(doc, "files", list, &oom);
    } else {
        json_decref(list);
    }
    return kw_cli_json_print(doc, oom);
}

/* The set's notes (entries skipped on purpose) on stderr: stdout stays the
 * table or listing, whatever it is piped into. */
static void kw_isa_notes(const kw_co_set *set) {
    for (size_t i = 0; i < set->notes.n; i++)
        fprintf(stderr, "kwalk: note: %s\n", set->notes.v[i]);
}

/* The listing of every kernel kernel picks (kw_co_match). */
static int kw_isa_listings(kw_co_set *set, const char *path, const char *kernel, unsigned flags,
                           kw_buf *out) {
    int rc = KW_EXIT_OK;
    kw_err err;
    size_t found = 0;
    kw_arena names;
    kw_arena_init(&names);
    kw_name_rank best = kw_co_match_rank(set, kernel, &names);
    kw_co_listing l;
    kw_co_listing_init(&l);
    for (size_t o = 0; o < set->objects.n && rc == KW_EXIT_OK; o++) {
        const kw_co_object *obj = &set->objects.v[o];
        for (size_t k = 0; k < obj->kernels.n && rc == KW_EXIT_OK; k++) {
            const kw_co_kernel *kk = &obj->kernels.v[k];
            if (!kw_co_match(kk, kernel, best, &names))
                continue;
            found++;
            if (!kk->has_code) {
                kw_buf_printf(out, "kernel %s  (%s, %s)\nno code: no kernel descriptor or entry\n\n",
                              kk->name, obj->target_id, obj->origin);
                continue;
            }
            if (kw_co_disassemble(set, obj, kk, flags, &l, &err) != KW_OK) {
                rc = kw_cli_fail(&err);
                break;
            }
            kw_co_write_listing(out, &l);
            kw_buf_putc(out, '\n');
        }
    }
    kw_co_listing_free(&l);
    kw_arena_free(&names);
    if (rc == KW_EXIT_OK && !found)
        rc = kw_cli_failf("%s: no kernel matches '%s'", path, kernel);
    return rc;
}

static int kw_isa_text(const char *path, const char *kernel, unsigned flags, kw_buf *out) {
    kw_co_set set;
    kw_co_set_init(&set);
    kw_err err;
    if (kw_co_open(&set, path, &err) != KW_OK) {
        kw_co_set_free(&set);
        return kw_cli_fail(&err);
    }
    kw_isa_notes(&set);
    int rc = KW_EXIT_OK;
    if (kernel)
        rc = kw_isa_listings(&set, path, kernel, flags, out);
    else
        kw_co_write_summary(out, &set);
    kw_co_set_free(&set);
    return rc;
}

int kw_cmd_isa(int argc, char **argv) {
    const char *kernel = NULL, *format = "text";
    unsigned flags = 0;
    const char *files[256];
    int nfiles = 0;
    for (int i = 1; i < argc; i++) {
        const char *v;
        int m;
        if (kw_cli_is_help(argv[i]))
            return kw_isa_help();
        if ((m = kw_cli_opt(argc, argv, &i, "--kernel", "-k", &v)) != 0) {
            if (m < 0 || !*v)
                return kw_cli_usage_error("isa", "--kernel needs a name");
            kernel = v;
        } else if ((m = kw_cli_opt(argc, argv, &i, "--format", NULL, &v)) != 0) {
            if (m < 0 || (strcmp(v, "text") && strcmp(v, "yaml") && strcmp(v, "json")))
                return kw_cli_usage_error("isa", "--format takes text, yaml or json");
            format = v;
        } else if (!strcmp(argv[i], "--json")) {
            format = "json";
        } else if (!strcmp(argv[i], "--lines")) {
            flags |= KW_CO_WANT_LINES;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return kw_cli_usage_error("isa", "unknown option '%s'", argv[i]);
        } else if (nfiles < (int)(sizeof(files) / sizeof(files[0]))) {
            files[nfiles++] = argv[i];
        } else {
            return kw_cli_usage_error("isa", "too many files");
        }
    }
    if (!nfiles)
        return kw_cli_usage_error("isa", "no code object given");
    if (!strcmp(format, "json"))
        return kw_isa_json(files, nfiles, kernel, flags & KW_CO_WANT_LINES);
    bool yaml = !strcmp(format, "yaml");
    kw_buf out;
    kw_buf_init(&out);
    int rc = KW_EXIT_OK;
    for (int f = 0; f < nfiles && rc == KW_EXIT_OK; f++) {
        if (yaml && f)
            kw_buf_puts(&out, "---\n");
        rc = yaml ? kw_isa_yaml(files[f], kernel, flags & KW_CO_WANT_LINES, &out)
                  : kw_isa_text(files[f], kernel, flags, &out);
        if (rc == KW_EXIT_OK) {
            if (out.oom) {
                rc = kw_cli_failf("%s: out of memory", files[f]);
                break;
            }
            fwrite(out.ptr ? out.ptr : "", 1, out.len, stdout);
            kw_buf_reset(&out);
        }
    }
    kw_buf_free(&out);
    if (rc != KW_EXIT_OK)
        return rc;
    return kw_cli_flush_stdout();
}
