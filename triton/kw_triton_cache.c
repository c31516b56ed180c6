/* kw_triton_cache.c: one Triton cache folder -> a sidecar with one
 * `language: triton` kernel (kw_triton.h). What the cache does not hold is
 * left absent or given a reason, never guessed. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "codeobj/kw_co_sidecar.h"
#include "common/kw_fs.h"
#include "common/kw_jansson.h"
#include "kw_triton_int.h"
#include "sidecar/kw_schema.h"
#include "triton/kw_triton.h"

static const char kw_triton_grp[] = "__grp__";
static const char kw_triton_not_recoverable[] = "not recoverable from the cache; run with the hook";

static int kw_triton_cmp(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The regular files of dir, sorted (names in a); *grp the NAME of its
 * __grp__NAME.json, NULL when it has none. */
static kw_status kw_triton_list(kw_arena *a, const char *dir, kw_triton_paths *names,
                                const char **grp, kw_err *err) {
    DIR *d = opendir(dir);
    if (!d)
        return kw_fail(err, "%s: %s", dir, strerror(errno));
    *grp = NULL;
    struct dirent *de;
    kw_status st = KW_OK;
    while (st == KW_OK && (de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        const char **slot = KW_PUSH(a, *names);
        if (!slot || !(*slot = kw_arena_strdup(a, de->d_name)))
            st = kw_fail(err, "out of memory");
        size_t n = strlen(de->d_name), g = sizeof kw_triton_grp - 1;
        if (st == KW_OK && n > g + 5 && !strncmp(de->d_name, kw_triton_grp, g) &&
            !strcmp(de->d_name + n - 5, ".json"))
            *grp = kw_arena_strndup(a, de->d_name + g, n - g - 5);
    }
    closedir(d);
    if (names->n)
        qsort(names->v, names->n, sizeof names->v[0], kw_triton_cmp);
    return st;
}

kw_status kw_triton_cache_entries(kw_arena *a, const char *dir, kw_triton_paths *out, kw_err *err) {
    kw_triton_paths names = {0};
    const char *grp;
    if (kw_triton_list(a, dir, &names, &grp, err))
        return KW_ERR;
    if (grp) {
        const char **slot = KW_PUSH(a, *out);
        return slot && (*slot = kw_arena_strdup(a, dir)) ? KW_OK : kw_fail(err, "out of memory");
    }
    for (size_t i = 0; i < names.n; i++) {
        char *sub = kw_arena_printf(a, "%s/%s", dir, names.v[i]);
        struct stat st;
        if (!sub)
            return kw_fail(err, "out of memory");
        if (lstat(sub, &st) != 0 || !S_ISDIR(st.st_mode))
            continue;
        kw_triton_paths inner = {0};
        const char *g;
        if (kw_triton_list(a, sub, &inner, &g, err))
            return KW_ERR;
        if (g) {
            const char **slot = KW_PUSH(a, *out);
            if (!slot)
                return kw_fail(err, "out of memory");
            *slot = sub;
        }
    }
    return KW_OK;
}

/* file with the first matching prefix rewritten (a whole path component). */
const char *kw_triton_map_path(kw_arena *a, const kw_triton_prefix *prefixes, size_t np,
                               const char *file) {
    return kw_path_prefix_map(a, prefixes, np, file);
}

static const char *kw_triton_map(kw_arena *a, const kw_triton_opts *o, const char *file) {
    return kw_triton_map_path(a, o->prefixes, o->nprefixes, file);
}

static void kw_triton_map_loc(kw_arena *a, const kw_triton_opts *o, kw_loc *l) {
    l->file = kw_triton_map(a, o, l->file);
}

/* One IR location's frames under the prefix map (the frames are not
 * kw_loc fields of the schema, so kw_schema_each_loc does not see them). */
static void kw_triton_map_irloc(kw_arena *a, const kw_triton_opts *o, kw_irf_loc *l) {
    l->location.at.file = kw_triton_map(a, o, l->location.at.file);
    for (size_t i = 0; i < l->inlined_at.n; i++)
        l->inlined_at.v[i].at.file = kw_triton_map(a, o, l->inlined_at.v[i].at.file);
}

/* Every location of f (accesses, cross-lane operations, idioms, loops,
 * barriers, inline asm) under the prefix map. */
static void kw_triton_map_ir(kw_arena *a, const kw_triton_opts *o, kw_irf *f) {
    for (size_t i = 0; i < f->accesses.n; i++)
        kw_triton_map_irloc(a, o, &f->accesses.v[i].loc);
    for (size_t i = 0; i < f->cross_lane.n; i++)
        kw_triton_map_irloc(a, o, &f->cross_lane.v[i].loc);
    for (size_t i = 0; i < f->idioms.n; i++)
        kw_triton_map_irloc(a, o, &f->idioms.v[i].loc);
    for (size_t i = 0; i < f->loops.n; i++)
        kw_triton_map_irloc(a, o, &f->loops.v[i].loc);
    for (size_t i = 0; i < f->barrier_list.n; i++)
        kw_triton_map_irloc(a, o, &f->barrier_list.v[i].loc);
    for (size_t i = 0; i < f->inline_asm.n; i++)
        kw_triton_map_irloc(a, o, &f->inline_asm.v[i].loc);
}

/* NAME.json's keys that are metadata, not options (docs/sidecar-schema.md). */
static bool kw_triton_is_metadata(const char *key) {
    static const char *const keys[] = {"hash",
                                       "name",
                                       "arch",
                                       "target",
                                       "backend_name",
                                       "triton_version",
                                       "warp_size",
                                       "shared",
                                       "profile_scratch_size",
                                       "profile_scratch_align"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (!strcmp(key, keys[i]))
            return true;
    return false;
}

/* A string of NAME.json, copied into the sidecar's arena (the document is
 * released once read). */
static const char *kw_triton_keep(kw_arena *a, const json_t *v) {
    const char *s = kw_jansson_str(v);
    return s ? kw_arena_strdup(a, s) : NULL;
}

static kw_status kw_triton_read_json(kw_sidecar *sc, kw_triton *t, const char *path,
                                     const char **name, const char **arch, kw_err *err) {
    char *text;
    size_t len;
    if (kw_fs_read_as(path, KW_FS_TEXT, &text, &len, err))
        return KW_ERR;
    json_t *root;
    kw_status st = kw_jansson_load(path, text, len, &root, err);
    free(text);
    if (st)
        return st;
    kw_arena *a = &sc->arena;
    const json_t *target = json_object_get(root, "target");
    if (!json_is_object(root))
        st = kw_fail(err, "%s: not a JSON object (not Triton's metadata?)", path);
    else if (!(t->hash = kw_triton_keep(a, json_object_get(root, "hash"))))
        st = kw_fail(err, "%s: no \"hash\" (not Triton's metadata?)", path);
    if (st) {
        json_decref(root);
        return st;
    }
    *name = kw_triton_keep(a, json_object_get(root, "name"));
    *arch = kw_triton_keep(a, json_object_get(root, "arch"));
    if (!*arch)
        *arch = kw_triton_keep(a, json_object_get(target, "arch"));
    t->triton_version = kw_triton_keep(a, json_object_get(root, "triton_version"));
    t->backend = kw_triton_keep(a, json_object_get(target, "backend"));
    long long v;
    if (kw_jansson_int(json_object_get(target, "warp_size"), &v) ||
        kw_jansson_int(json_object_get(root, "warp_size"), &v))
        t->warp_size = v;
    if (kw_jansson_int(json_object_get(root, "shared"), &v))
        t->shared_bytes = v;
    /* the options: NAME.json's other scalars, in its key order */
    const char *key;
    json_t *val;
    json_object_foreach(root, key, val) {
        if (json_is_null(val) || json_is_array(val) || json_is_object(val) ||
            kw_triton_is_metadata(key))
            continue;
        kw_triton_option *opt = KW_PUSH(a, t->options);
        if (!opt || !(opt->name = kw_arena_strdup(a, key)) ||
            !(opt->value = kw_jansson_scalar(a, val))) {
            st = kw_fail(err, "out of memory");
            break;
        }
    }
    json_decref(root);
    return st;
}

/* One reading V of constexpr c from the op at `at` (its file mapped: file):
 * the first sets the value and location, a different later one is a
 * conflict. false: out of memory. */
static bool kw_triton_cx_value(kw_arena *a, kw_triton_constexpr *c, long long v, kw_loc at,
                               const char *file, bool *conflict) {
    char *val = kw_arena_printf(a, "%lld", v);
    if (!val)
        return false;
    if (c->value && strcmp(c->value, val))
        *conflict = true;
    if (!c->value) {
        c->value = val;
        c->location = at;
        c->location.file = file;
    }
    return true;
}

/* The constexprs: names from the def in the source, values where the TTIR's
 * make_range ops or loop bounds show them (kw_triton_int.h). */
static kw_status kw_triton_constexprs(kw_sidecar *sc, kw_triton *t, const kw_ttir *ir,
                                      const char *def_file, const kw_triton_opts *o, kw_err *err) {
    kw_arena *a = &sc->arena;
    char *src = NULL;
    size_t len;
    kw_err ferr;
    if (!def_file || kw_fs_read_as(def_file, KW_FS_TEXT, &src, &len, &ferr)) {
        t->constexprs_note = kw_arena_printf(
            a, "the constexpr names are not in the cache and the source was not read (%s); %s",
            def_file ? ferr.msg : "no definition location", kw_triton_not_recoverable);
        return t->constexprs_note ? KW_OK : kw_fail(err, "out of memory");
    }
    kw_tpy_names names = {0};
    const char *why = NULL;
    if (!kw_tpy_constexprs(a, src, ir->def.line, &names, &why)) {
        t->constexprs_note =
            kw_arena_printf(a, "%s: %s; %s", def_file, why, kw_triton_not_recoverable);
        free(src);
        return t->constexprs_note ? KW_OK : kw_fail(err, "out of memory");
    }
    /* the lines of the def's file that ops of the IR come from */
    KW_ARRAY(int) op_lines = {0};
    const char *raw = NULL, *mapped = NULL; /* ops of one #loc alias share their file string */
    for (size_t k = 0; k < ir->op_locs.n; k++) {
        if (ir->op_locs.v[k].file != raw)
            mapped = kw_triton_map(a, o, raw = ir->op_locs.v[k].file);
        int *slot = mapped && !strcmp(mapped, def_file) ? KW_PUSH(a, op_lines) : NULL;
        if (slot)
            *slot = ir->op_locs.v[k].line;
    }
    for (size_t i = 0; i < names.n; i++) {
        kw_triton_constexpr *c = KW_PUSH(a, t->constexprs);
        if (!c) {
            free(src);
            return kw_fail(err, "out of memory");
        }
        memset(c, 0, sizeof *c);
        c->name = names.v[i];
        bool conflict = false;
        for (size_t r = 0; r < ir->ranges.n; r++) {
            const kw_ttir_range *rg = &ir->ranges.v[r];
            const char *f = kw_triton_map(a, o, rg->loc.file);
            if (rg->start != 0 || !f || strcmp(f, def_file))
                continue;
            const char *n = kw_tpy_arange_end(a, src, rg->loc.line);
            if (!n || strcmp(n, c->name))
                continue;
            if (!kw_triton_cx_value(a, c, rg->end, rg->loc, f, &conflict)) {
                free(src);
                return kw_fail(err, "out of memory");
            }
        }
        for (size_t l = 0; l < ir->loops.n; l++) { /* range(..., NAME) bounds */
            const kw_ttir_loop *lp = &ir->loops.v[l];
            const char *f = kw_triton_map(a, o, lp->loc.file);
            if (!f || strcmp(f, def_file))
                continue;
            for (int b = 0; b < 3; b++) {
                if (!lp->known[b])
                    continue;
                const char *n = kw_tpy_range_arg(a, src, lp->loc.line, b);
                if (!n || strcmp(n, c->name))
                    continue;
                if (!kw_triton_cx_value(a, c, lp->bound[b], lp->loc, f, &conflict)) {
                    free(src);
                    return kw_fail(err, "out of memory");
                }
            }
        }
        if (!c->value && !conflict) { /* `if NAME:`: which branch was compiled */
            kw_tpy_ifs ifs = {0};
            if (!kw_tpy_if_statements(a, src, ir->def.line, c->name, &ifs)) {
                free(src);
                return kw_fail(err, "out of memory");
            }
            int verdict = -1; /* -1 none yet, 0 False, 1 True */
            for (size_t i = 0; i < ifs.n && !conflict; i++) {
                const kw_tpy_if *st = &ifs.v[i];
                size_t in_then = 0, in_else = 0;
                for (size_t k = 0; k < op_lines.n; k++) {
                    int l = op_lines.v[k];
                    in_then += l >= st->then_first && l <= st->then_last;
                    in_else += st->else_first && l >= st->else_first && l <= st->else_last;
                }
                /* code of one branch only; without an else, only code of the
                 * body says anything (no code: False, or code removed) */
                int v = in_then && !in_else ? 1 : !in_then && in_else ? 0 : -1;
                if (v < 0)
                    continue;
                if (verdict >= 0 && verdict != v)
                    conflict = true;
                if (verdict < 0) {
                    c->location.file = def_file;
                    c->location.line = st->if_line;
                    c->location.column = 0;
                }
                verdict = v;
            }
            if (verdict >= 0 && !conflict) {
                c->value = verdict ? "True" : "False";
                c->from = "cache_ir_branch";
            }
        }
        if (conflict || !c->value) {
            c->value = NULL;
            c->location.file = NULL;
            c->location.line = c->location.column = 0;
            c->why = kw_triton_not_recoverable;
        } else if (!c->from) {
            c->from = "cache_ir";
        }
    }
    free(src);
    return KW_OK;
}

static kw_status kw_triton_params(kw_sidecar *sc, kw_kernel *k, const kw_ttir *ir, kw_err *err) {
    for (size_t i = 0; i < ir->args.n; i++) {
        kw_param *p = KW_PUSH(&sc->arena, k->params);
        if (!p)
            return kw_fail(err, "out of memory");
        p->name = ir->args.v[i].name;
        p->type = kw_ttir_triton_type(&sc->arena, ir->args.v[i].mlir_type);
        if (!p->type)
            p->type = ir->args.v[i].mlir_type;
    }
    return KW_OK;
}

/* NAME.ttgir's layouts and memory ops into t, when the folder has one (a
 * TTGIR that cannot be read costs those facts only: the page then says the
 * layouts were not read). */
static kw_status kw_triton_ttgir(kw_sidecar *sc, kw_triton *t, const char *dir, const char *grp,
                                 const kw_triton_opts *o, kw_err *err) {
    kw_arena *a = &sc->arena;
    const char *path = kw_arena_printf(a, "%s/%s.ttgir", dir, grp);
    struct stat st;
    if (!path)
        return kw_fail(err, "out of memory");
    if (stat(path, &st) != 0)
        return KW_OK;
    char *text = NULL;
    size_t len;
    kw_err ignored;
    kw_ttir g;
    if (kw_fs_read_as(path, KW_FS_TEXT, &text, &len, &ignored) ||
        kw_ttir_parse(a, path, text, &g, &ignored)) {
        free(text);
        return KW_OK; /* no layouts: the page says they were not read */
    }
    free(text);
    t->layouts.v = g.layouts.v;
    t->layouts.n = g.layouts.n;
    t->layouts.cap = g.layouts.cap;
    t->memory_ops.v = g.memops.v;
    t->memory_ops.n = g.memops.n;
    t->memory_ops.cap = g.memops.cap;
    for (size_t i = 0; i < t->memory_ops.n; i++)
        kw_triton_map_loc(a, o, &t->memory_ops.v[i].location);
    (void)err;
    return KW_OK;
}

static kw_status kw_triton_fill(kw_sidecar *sc, const char *dir, const char *grp,
                                const kw_triton_paths *names, const kw_triton_opts *o,
                                kw_err *err) {
    kw_arena *a = &sc->arena;
    kw_triton *t = kw_arena_alloc(a, sizeof *t);
    if (!t)
        return kw_fail(err, "out of memory");
    memset(t, 0, sizeof *t);
    kw_schema_defaults(&kw_t_triton, t);
    char *slash = strrchr(dir, '/');
    t->cache_key = slash ? slash + 1 : dir;
    t->cache_dir = dir;
    for (size_t i = 0; i < names->n; i++) {
        const char **f = KW_PUSH(a, t->files);
        if (!f || !(*f = kw_arena_printf(a, "%s/%s", dir, names->v[i])))
            return kw_fail(err, "out of memory");
    }
    const char *name = NULL, *arch = NULL;
    char *json = kw_arena_printf(a, "%s/%s.json", dir, grp);
    if (!json || kw_triton_read_json(sc, t, json, &name, &arch, err))
        return KW_ERR;
    if (!name)
        name = grp;
    /* the signature and definition from the TTIR (NAME.source is the same IR
     * before Triton's passes) */
    kw_ttir ir;
    char *text = NULL;
    size_t len;
    const char *ttir = kw_arena_printf(a, "%s/%s.ttir", dir, grp);
    struct stat st;
    if (ttir && stat(ttir, &st) != 0)
        ttir = kw_arena_printf(a, "%s/%s.source", dir, grp);
    if (!ttir || kw_fs_read_as(ttir, KW_FS_TEXT, &text, &len, err))
        return KW_ERR;
    kw_status s = kw_ttir_parse(a, ttir, text, &ir, err);
    free(text);
    if (s)
        return s;
    /* the code object: its identity (translation_unit.code_objects: arch,
     * target id, size, MD5) and its metadata's facts (resources, occupancy);
     * nothing is disassembled: a page decodes the listing, line table and
     * instruction classes when it shows them, through the decode cache
     * (index version 6, model/kw_decode.h), the line table's paths rewritten
     * with t->map_prefix */
    const char *hsaco = kw_arena_printf(a, "%s/%s.hsaco", dir, grp);
    bool have_co = hsaco && stat(hsaco, &st) == 0;
    if (have_co && kw_co_sidecar_fill_kernels(sc, hsaco, KW_CO_SC_CODE_OBJECTS, name, err))
        return KW_ERR;
    for (size_t i = 0; have_co && i < o->nprefixes; i++) {
        kw_path_prefix *p = KW_PUSH(a, t->map_prefix);
        if (!p || !(p->from = kw_arena_strdup(a, o->prefixes[i].from)) ||
            !(p->to = kw_arena_strdup(a, o->prefixes[i].to)))
            return kw_fail(err, "out of memory");
    }
    kw_kernel *k = NULL;
    for (size_t i = 0; i < sc->kernels.n; i++)
        if (!strcmp(sc->kernels.v[i].symbol, name))
            k = &sc->kernels.v[i];
    if (!k) {
        if (!(k = KW_PUSH(a, sc->kernels)))
            return kw_fail(err, "out of memory");
        memset(k, 0, sizeof *k);
    }
    k->symbol = kw_arena_printf(a, "%s@%s", name, t->hash);
    k->name = name;
    k->language = "triton";
    k->triton = t;
    k->location = ir.def;
    if (k->location.column < 1 && k->location.file)
        k->location.column = 1;
    kw_triton_map_loc(a, o, &k->location);
    if (kw_triton_params(sc, k, &ir, err))
        return KW_ERR;
    if (arch && !k->archs.n) {
        kw_kernel_arch *ka = KW_PUSH(a, k->archs);
        if (!ka)
            return kw_fail(err, "out of memory");
        kw_kernel_arch_init(ka);
        ka->arch = arch;
        ka->lines_note = have_co ? NULL : "no .hsaco in the cache folder";
    }
    if (kw_triton_constexprs(sc, t, &ir, k->location.file, o, err) ||
        kw_triton_ttgir(sc, t, dir, grp, o, err) || kw_triton_llir(sc, k, dir, grp, &ir, o, err))
        return KW_ERR;
    for (size_t i = 0; i < k->archs.n; i++)
        if (k->archs.v[i].ir)
            kw_triton_map_ir(a, o, k->archs.v[i].ir);
    sc->producer.name = "kwalk";
    sc->producer.version = o->version;
    sc->tu.source = k->location.file;
    sc->tu.object = have_co ? hsaco : NULL;
    if (arch && !sc->tu.offload_archs.n) {
        const char **slot = KW_PUSH(a, sc->tu.offload_archs);
        if (!slot)
            return kw_fail(err, "out of memory");
        *slot = arch;
    }
    return KW_OK;
}

kw_status kw_triton_cache_read(kw_sidecar *sc, const char *entry, const kw_triton_opts *o,
                               kw_err *err) {
    char *real = realpath(entry, NULL);
    if (!real)
        return kw_fail(err, "%s: %s", entry, strerror(errno));
    const char *dir = kw_arena_strdup(&sc->arena, real);
    free(real);
    if (!dir)
        return kw_fail(err, "out of memory");
    kw_triton_paths names = {0};
    const char *grp;
    if (kw_triton_list(&sc->arena, dir, &names, &grp, err))
        return KW_ERR;
    if (!grp)
        return kw_fail(err, "%s: no __grp__NAME.json (not a Triton cache folder)", entry);
    if (kw_triton_fill(sc, dir, grp, &names, o, err)) {
        /* name the folder when the message does not */
        if (!strstr(err->msg, dir)) {
            char msg[sizeof err->msg];
            snprintf(msg, sizeof msg, "%s", err->msg);
            kw_fail(err, "%s: %s", entry, msg);
        }
        return KW_ERR;
    }
    return KW_OK;
}
