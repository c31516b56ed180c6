/* kw_triton_llir.c: a cache folder's NAME.llir -> the IR facts of its
 * kernel (the arch's `ir`, docs/ir-facts.md), through kwalk-irfacts
 * (passes/kwalk_irfacts.cpp) run as its own process within a time and an
 * output limit, with the TTIR's argument names (the cache reader maps its
 * paths). Whatever goes wrong (no
 * .llir, IR this LLVM cannot read, a tool that fails or hangs) costs the IR
 * facts only: triton.ir_note says why, in one line. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "common/kw_buf.h"
#include "common/kw_proc.h"
#include "kw_triton_int.h"
#include "triton/kw_triton.h"

enum { KW_TLL_TIMEOUT_S = 120, KW_TLL_MAX_OUT = 64 << 20 };

static const char kw_tll_tool[] = "kwalk-irfacts: ";

/* triton.ir_note = "IR facts: <why>" */
static kw_status kw_tll_note(kw_sidecar *sc, kw_triton *t, const char *why, kw_err *err) {
    t->ir_note = kw_arena_printf(&sc->arena, "IR facts: %s", why);
    return t->ir_note ? KW_OK : kw_fail(err, "out of memory");
}

/* The TTIR's argument names, comma-separated. */
static char *kw_tll_names(kw_arena *a, const kw_ttir *ir) {
    kw_buf b;
    kw_buf_init(&b);
    for (size_t i = 0; i < ir->args.n; i++) {
        if (i)
            kw_buf_putc(&b, ',');
        kw_buf_puts(&b, ir->args.v[i].name ? ir->args.v[i].name : "");
    }
    char *s = b.oom ? NULL : kw_arena_strdup(a, kw_buf_str(&b));
    kw_buf_free(&b);
    return s;
}

/* Why the tool gave no facts, from how it ended (NULL: it exited 0). */
static const char *kw_tll_failure(kw_arena *a, const kw_proc_result *res, const char *file) {
    const char *line = res->errline;
    if (!strncmp(line, kw_tll_tool, sizeof kw_tll_tool - 1))
        line += sizeof kw_tll_tool - 1;
    switch (res->end) {
    case KW_PROC_EXITED:
        if (!res->code)
            return NULL;
        return line[0]
                   ? kw_arena_strdup(a, line)
                   : kw_arena_printf(a, "kwalk-irfacts failed on %s (exit %d)", file, res->code);
    case KW_PROC_SIGNALED:
        return kw_arena_printf(a, "kwalk-irfacts ended by signal %d on %s", res->code, file);
    case KW_PROC_TIMEOUT:
        return kw_arena_printf(a, "kwalk-irfacts did not finish within %d s on %s: stopped",
                               KW_TLL_TIMEOUT_S, file);
    case KW_PROC_TOO_BIG:
        return kw_arena_printf(a, "kwalk-irfacts wrote more than %d MiB for %s: stopped",
                               KW_TLL_MAX_OUT >> 20, file);
    case KW_PROC_NOT_RUN:
        break;
    }
    return kw_arena_strdup(a, line);
}

/* NULL when the .llir's parameters start with the TTIR's arguments (the same
 * count at least, a pointer where the TTIR has a pointer); else why not. */
static const char *kw_tll_mismatch(kw_arena *a, const kw_irf *f, const kw_ttir *ir) {
    if (f->params.n < ir->args.n)
        return kw_arena_printf(a,
                               "the .llir kernel has %zu parameters, the TTIR signature %zu "
                               "arguments: not named, not shown",
                               f->params.n, ir->args.n);
    for (size_t i = 0; i < ir->args.n; i++) {
        const char *mt = ir->args.v[i].mlir_type;
        bool ttir_ptr = mt && !strncmp(mt, "!tt.ptr", 7);
        bool ll_ptr = f->params.v[i].addrspace >= 0;
        if (ttir_ptr != ll_ptr)
            return kw_arena_printf(a,
                                   "the .llir's parameter %zu (%s) does not match the TTIR's "
                                   "argument %s (%s): not named, not shown",
                                   i, f->params.v[i].type ? f->params.v[i].type : "?",
                                   ir->args.v[i].name ? ir->args.v[i].name : "?", mt ? mt : "?");
    }
    return NULL;
}

kw_status kw_triton_llir(kw_sidecar *sc, kw_kernel *k, const char *dir, const char *grp,
                         const kw_ttir *ir, const kw_triton_opts *o, kw_err *err) {
    kw_arena *a = &sc->arena;
    kw_triton *t = k->triton;
    if (!k->archs.n)
        return KW_OK;
    kw_kernel_arch *ka = &k->archs.v[0];
    char *llir = kw_arena_printf(a, "%s/%s.llir", dir, grp);
    char *file = kw_arena_printf(a, "%s.llir", grp);
    struct stat st;
    if (!llir || !file)
        return kw_fail(err, "out of memory");
    if (stat(llir, &st) != 0 || !S_ISREG(st.st_mode))
        return kw_tll_note(sc, t, "no NAME.llir in the cache folder", err);
    if (!o->irfacts)
        return kw_tll_note(sc, t, o->irfacts_why ? o->irfacts_why : "kwalk-irfacts not found", err);
    char *names = kw_tll_names(a, ir);
    if (!names)
        return kw_fail(err, "out of memory");
    char wave[16];
    snprintf(wave, sizeof wave, "%lld", t->warp_size);
    char *argv[12];
    size_t n = 0;
    argv[n++] = (char *)o->irfacts;
    if (ka->arch)
        argv[n++] = "--arch", argv[n++] = (char *)ka->arch;
    if (t->warp_size == 32 || t->warp_size == 64)
        argv[n++] = "--wave", argv[n++] = wave;
    argv[n++] = "--names";
    argv[n++] = names;
    argv[n++] = llir;
    argv[n] = NULL;
    kw_buf out;
    kw_buf_init(&out);
    kw_proc_result res;
    kw_proc_run(argv, KW_TLL_TIMEOUT_S, KW_TLL_MAX_OUT, &out, &res);
    const char *why = kw_tll_failure(a, &res, file);
    kw_irf_list list;
    kw_err perr;
    if (!why && out.oom)
        why = "out of memory reading kwalk-irfacts' output";
    if (!why) {
        const char *what = kw_arena_printf(a, "kwalk-irfacts' output for %s", file);
        if (kw_irf_parse_list(&list, a, what ? what : file, kw_buf_str(&out), out.len, &perr))
            why = kw_arena_strdup(a, perr.msg);
    }
    kw_buf_free(&out);
    if (why)
        return kw_tll_note(sc, t, why, err);
    kw_irf *f = NULL;
    for (size_t i = 0; i < list.kernels.n && !f; i++)
        if (list.kernels.v[i].symbol && !strcmp(list.kernels.v[i].symbol, k->name))
            f = &list.kernels.v[i];
    if (!f) {
        why = kw_arena_printf(a, "%s has no kernel %s", file, k->name);
        return why ? kw_tll_note(sc, t, why, err) : kw_fail(err, "out of memory");
    }
    if ((why = kw_tll_mismatch(a, f, ir)))
        return kw_tll_note(sc, t, why, err);
    ka->ir = f;
    return KW_OK;
}
