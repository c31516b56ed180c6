/* kw_trace_join.c: joining a profiler's kernel names to the kernel
 * instantiations of the kwalk index (kw_trace.h).
 *
 * A profiler names a kernel by its symbol (rocprofv3 --mangled-kernels, and
 * the JSON form's kernel_name), by the C++ runtime's demangling of it
 * (rocprofv3's default, e.g. "void ns::k<float, 256>(float*, int)"), by that
 * demangling cut to the bare name (--truncate-kernels: "k"), or cut at some
 * length by a tool along the way. The index has the symbol and the name Clang
 * printed; the demangled form is made here with the same demangler rocprofv3
 * uses (__cxa_demangle of the C++ runtime, common/kw_names.h). Without it,
 * only symbols and printed names match; the caller says so. */
#include <stdlib.h>
#include <string.h>

#include "common/kw_symmap.h"
#include "trace/kw_trace.h"

const char *kw_match_kind_name(kw_match_kind k) {
    switch (k) {
    case KW_MATCH_SYMBOL: return "symbol";
    case KW_MATCH_DEMANGLED: return "demangled";
    case KW_MATCH_NAME: return "name";
    case KW_MATCH_PREFIX: return "prefix";
    case KW_MATCH_BASE: return "base_name";
    case KW_MATCH_NONE: break;
    }
    return "none";
}

char *kw_trace_base_name(kw_arena *arena, const char *name) {
    /* From the end: skip blanks and balanced (...), <...>, [...] groups; the
     * name is what precedes them, back to a blank or a ':'. */
    size_t end = strlen(name);
    size_t i = end;
    while (i > 0) {
        char c = name[i - 1];
        if (c == ' ') {
            i--;
            continue;
        }
        char open;
        if (c == ')')
            open = '(';
        else if (c == '>')
            open = '<';
        else if (c == ']')
            open = '[';
        else
            break;
        int depth = 0;
        while (i > 0) {
            char d = name[--i];
            if (d == c)
                depth++;
            else if (d == open && --depth == 0)
                break;
        }
    }
    size_t stop = i;
    while (i > 0 && name[i - 1] != ' ' && name[i - 1] != ':')
        i--;
    return kw_arena_strndup(arena, name + i, stop - i);
}

static kw_status kw_tjoin_add(kw_tjoin *j, const char *symbol, const char *name,
                              const kw_kernel *k, kw_err *err) {
    kw_tkernel *t = KW_PUSH(&j->arena, j->kernels);
    if (!t)
        return kw_fail(err, "out of memory");
    t->symbol = symbol;
    t->name = name;
    t->k = k;
    t->demangled = kw_demangle(&j->arena, symbol);
    const char *full = t->demangled ? t->demangled : name;
    t->base = full ? kw_trace_base_name(&j->arena, full) : NULL;
    if (full && !t->base)
        return kw_fail(err, "out of memory");
    return KW_OK;
}

kw_status kw_tjoin_init(kw_tjoin *j, const kw_index *ix, kw_err *err) {
    memset(j, 0, sizeof(*j));
    kw_arena_init(&j->arena);
    j->have_demangler = kw_have_demangler();
    for (size_t i = 0; i < ix->kernels.n; i++) {
        const kw_kernel *k = &ix->kernels.v[i];
        if (kw_tjoin_add(j, k->symbol, k->name, k, err))
            return KW_ERR;
    }
    /* Kernels the index only knows from a launch (no device record), and
     * precompiled ASM kernels by their name in the code object (the symbol a
     * profiler reports), when the launch's name is all literal. */
    kw_symmap seen;
    kw_symmap_init(&seen);
    kw_status st = KW_OK;
    for (size_t t = 0; t < ix->tus.n && st == KW_OK; t++)
        for (size_t i = 0; i < ix->tus.v[t].launches.n && st == KW_OK; i++) {
            const kw_launch *l = &ix->tus.v[t].launches.v[i];
            const char *sym = l->kernel;
            const char *name = l->kernel_name;
            if (!sym && l->asm_kernel && !strstr(l->asm_kernel, "${"))
                sym = name = l->asm_kernel;
            if (!sym || kw_index_kernel_in(ix, sym, &ix->tus.v[t]) || kw_symmap_get(&seen, sym))
                continue;
            if (kw_symmap_put(&seen, sym, 0))
                st = kw_fail(err, "out of memory");
            else
                st = kw_tjoin_add(j, sym, name, NULL, err);
        }
    kw_symmap_free(&seen);
    return st;
}

void kw_tjoin_free(kw_tjoin *j) {
    kw_arena_free(&j->arena);
    memset(j, 0, sizeof(*j));
}

static const char *kw_skip_void(const char *s) {
    return s && !strncmp(s, "void ", 5) ? s + 5 : s;
}

static bool kw_eq(const char *a, const char *b, size_t blen) {
    return a && strlen(a) == blen && !memcmp(a, b, blen);
}

static bool kw_prefix(const char *full, const char *p, size_t plen) {
    return full && strlen(full) >= plen && !memcmp(full, p, plen);
}

kw_status kw_tjoin_match(kw_tjoin *j, const char *name, kw_tmatch *out, kw_err *err) {
    memset(out, 0, sizeof(*out));
    /* Normalize: blanks around, a ".kd" descriptor suffix, a "..." cut mark. */
    while (*name == ' ' || *name == '\t')
        name++;
    size_t len = strlen(name);
    while (len && (name[len - 1] == ' ' || name[len - 1] == '\t'))
        len--;
    if (len > 3 && !memcmp(name + len - 3, ".kd", 3))
        len -= 3;
    bool cut = false;
    if (len >= 3 && !memcmp(name + len - 3, "...", 3)) {
        len -= 3;
        cut = true;
    } else if (len >= 3 && !memcmp(name + len - 3, "\xE2\x80\xA6", 3)) {
        len -= 3;
        cut = true;
    }
    size_t nv = len >= 5 && !memcmp(name, "void ", 5) ? 5 : 0; /* without a return type */
    size_t *cand = NULL;
    size_t n = 0, cap = 0;
    kw_match_kind kind = KW_MATCH_NONE;
    for (int rule = 0; rule < 3 && !n && len; rule++) {
        for (size_t i = 0; i < j->kernels.n; i++) {
            const kw_tkernel *k = &j->kernels.v[i];
            kw_match_kind got = KW_MATCH_NONE;
            if (rule == 0 && !cut) {
                if (kw_eq(k->symbol, name, len))
                    got = KW_MATCH_SYMBOL;
                else if (kw_eq(k->demangled, name, len) ||
                         kw_eq(kw_skip_void(k->demangled), name + nv, len - nv))
                    got = KW_MATCH_DEMANGLED;
                else if (kw_eq(k->name, name, len))
                    got = KW_MATCH_NAME;
            } else if (rule == 1) {
                if (kw_prefix(k->symbol, name, len) || kw_prefix(k->demangled, name, len) ||
                    kw_prefix(kw_skip_void(k->demangled), name + nv, len - nv) ||
                    kw_prefix(k->name, name, len) || kw_prefix(k->name, name + nv, len - nv))
                    got = KW_MATCH_PREFIX;
            } else if (rule == 2 && !cut) {
                if (kw_eq(k->base, name, len))
                    got = KW_MATCH_BASE;
            }
            if (got == KW_MATCH_NONE)
                continue;
            if (n == cap) {
                cap = cap ? 2 * cap : 4;
                size_t *c = realloc(cand, cap * sizeof *c);
                if (!c) {
                    free(cand);
                    return kw_fail(err, "out of memory");
                }
                cand = c;
            }
            if (!n)
                kind = got;
            cand[n++] = i;
        }
    }
    if (n) {
        size_t *keep = kw_arena_alloc(&j->arena, n * sizeof *keep);
        if (!keep) {
            free(cand);
            return kw_fail(err, "out of memory");
        }
        memcpy(keep, cand, n * sizeof *keep);
        out->cand = keep;
        out->n = n;
        out->kind = kind;
    }
    free(cand);
    return KW_OK;
}
