/* kw_names.c: matching kernel names as people write them, and the
 * demanglers (kw_names.h). */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include "codeobj/kw_names.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "codeobj/kw_co_llvm.h"

typedef char *(*kw_demangle_fn)(const char *mangled, char *buf, size_t *len, int *status);

static kw_demangle_fn kw_demangler(void) {
    static int looked;
    static kw_demangle_fn fn;
    if (!looked) {
        looked = 1;
        void *sym = dlsym(RTLD_DEFAULT, "__cxa_demangle");
        if (!sym) { /* the kwalk command links no C++ runtime: the system's, when there is one */
            void *h = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL);
            sym = h ? dlsym(h, "__cxa_demangle") : NULL;
        }
        memcpy(&fn, &sym, sizeof fn); /* object pointer to function pointer (POSIX) */
    }
    return fn;
}

bool kw_have_demangler(void) {
    return kw_demangler() != NULL;
}

char *kw_demangle(kw_arena *arena, const char *symbol) {
    kw_demangle_fn dm = kw_demangler();
    if (!dm || !symbol)
        return NULL;
    int status = 0;
    char *d = dm(symbol, NULL, NULL, &status);
    char *out = d && status == 0 ? kw_arena_strdup(arena, d) : NULL;
    free(d);
    return out;
}

char *kw_demangle_llvm(kw_arena *arena, const char *symbol) {
    bool have;
    char *d = kw_co_llvm_demangle(symbol, &have);
    if (!have)
        return kw_demangle(arena, symbol);
    if (!d)
        return NULL; /* as llvm-cxxfilt, which leaves it as it is */
    char *out = kw_arena_strdup(arena, d);
    free(d);
    return out;
}

static const char *kw_skip_blanks(const char *s) {
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

/* Equal once blanks are removed, comparing a's first n bytes only. */
static bool kw_eq_blanks_n(const char *a, size_t n, const char *b) {
    const char *end = a + n;
    for (;;) {
        while (a < end && (*a == ' ' || *a == '\t'))
            a++;
        b = kw_skip_blanks(b);
        if (a == end || !*b)
            return a == end && !*b;
        if (*a++ != *b++)
            return false;
    }
}

bool kw_name_eq_blanks(const char *a, const char *b) {
    return kw_eq_blanks_n(a, strlen(a), b);
}

/* The length of d without a trailing balanced "(...)" group (blanks after it
 * aside); strlen(d) when there is none. */
static size_t kw_without_params(const char *d) {
    size_t i = strlen(d);
    while (i > 0 && d[i - 1] == ' ')
        i--;
    if (i == 0 || d[i - 1] != ')')
        return strlen(d);
    int depth = 0;
    while (i > 0) {
        char c = d[--i];
        if (c == ')')
            depth++;
        else if (c == '(' && --depth == 0)
            return i;
    }
    return strlen(d);
}

/* q is the demangled d, with or without "void " and the parameters. */
static bool kw_name_signature(const char *d, const char *q) {
    if (!d)
        return false;
    if (!strncmp(d, "void ", 5) &&
        (kw_name_eq_blanks(d + 5, q) || kw_eq_blanks_n(d + 5, kw_without_params(d + 5), q)))
        return true;
    return kw_name_eq_blanks(d, q) || kw_eq_blanks_n(d, kw_without_params(d), q);
}

bool kw_name_written(kw_arena *a, const char *symbol, const char *printed, const char *q) {
    if (printed && kw_name_eq_blanks(printed, q))
        return true;
    return kw_name_signature(kw_demangle_llvm(a, symbol), q) ||
           kw_name_signature(kw_demangle(a, symbol), q);
}

kw_name_rank kw_name_rank_of(kw_arena *a, const char *symbol, const char *printed, const char *q) {
    if (symbol && !strcmp(symbol, q))
        return KW_NAME_SYMBOL;
    if (symbol && kw_name_written(a, symbol, printed, q))
        return KW_NAME_WRITTEN;
    if ((symbol && strstr(symbol, q)) || (printed && strstr(printed, q)))
        return KW_NAME_PART;
    const char *d = kw_demangle_llvm(a, symbol);
    return d && strstr(d, q) ? KW_NAME_PART : KW_NAME_NONE;
}
