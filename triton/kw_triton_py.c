/* kw_triton_py.c: what the cache reader reads from a @triton.jit function's
 * Python source: the names of its tl.constexpr arguments (the cache keeps
 * none) and the `tl.arange(0, NAME)` a make_range op comes from. A scan of
 * the text, not a Python parser: a def it cannot read gives a reason. */
#include <ctype.h>
#include <string.h>

#include "kw_triton_int.h"

/* The start of line `line` (1-based) of text; NULL past the end. */
static const char *kw_tpy_line(const char *text, int line) {
    const char *p = text;
    for (int i = 1; i < line && p; i++) {
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    return p && *p ? p : NULL;
}

static bool kw_tpy_ident_char(char c) {
    return isalnum((unsigned char)c) || c == '_';
}

/* One parameter [s, e) of the def: record its name when its annotation
 * names constexpr (`NAME: tl.constexpr`, `NAME: constexpr = 4`). */
static bool kw_tpy_param(kw_arena *a, const char *s, const char *e, kw_tpy_names *out) {
    for (;;) { /* blanks and comment lines before the name */
        while (s < e && isspace((unsigned char)*s))
            s++;
        if (s >= e || *s != '#')
            break;
        while (s < e && *s != '\n')
            s++;
    }
    if (s < e && *s == '*')
        return true; /* *args, **kwargs: not a constexpr */
    const char *n = s;
    while (s < e && kw_tpy_ident_char(*s))
        s++;
    const char *ne = s;
    if (ne == n)
        return true;
    while (s < e && isspace((unsigned char)*s))
        s++;
    if (s >= e || *s != ':')
        return true;
    const char *ann = s + 1, *ae = ann;
    while (ae < e && *ae != '=')
        ae++;
    for (const char *q = ann; q + 9 <= ae; q++)
        if (!strncmp(q, "constexpr", 9) && !kw_tpy_ident_char(q[9]) &&
            (q == ann || !kw_tpy_ident_char(q[-1]) || q[-1] == '.')) {
            const char **slot = KW_PUSH(a, *out);
            return slot && (*slot = kw_arena_strndup(a, n, (size_t)(ne - n)));
        }
    return true;
}

bool kw_tpy_constexprs(kw_arena *a, const char *text, int def_line, kw_tpy_names *out,
                       const char **why) {
    const char *p = kw_tpy_line(text, def_line);
    while (p && (*p == ' ' || *p == '\t'))
        p++;
    if (!p || strncmp(p, "def ", 4)) {
        *why = "no 'def' at the definition's line of the source (changed since the compile?)";
        return false;
    }
    p = strchr(p, '(');
    if (!p) {
        *why = "cannot read the def's parameters";
        return false;
    }
    int depth = 0;
    const char *start = p + 1;
    for (p = p + 1; *p; p++) {
        char c = *p;
        if (c == '#') { /* a comment: to the end of the line */
            while (*p && *p != '\n')
                p++;
            if (!*p)
                break;
            continue;
        }
        if (c == '"' || c == '\'') { /* a string default: skip it */
            char q = c;
            for (p++; *p && *p != q && *p != '\n'; p++)
                if (*p == '\\' && p[1])
                    p++;
            if (!*p)
                break;
            continue;
        }
        if (c == '(' || c == '[' || c == '{') {
            depth++;
        } else if ((c == ')' || c == ']' || c == '}') && depth > 0) {
            depth--;
        } else if (depth == 0 && (c == ',' || c == ')')) {
            if (!kw_tpy_param(a, start, p, out)) {
                *why = "out of memory";
                return false;
            }
            if (c == ')')
                return true;
            start = p + 1;
        }
    }
    *why = "cannot read the def's parameters (no closing parenthesis)";
    return false;
}

const char *kw_tpy_arange_end(kw_arena *a, const char *text, int line) {
    const char *p = kw_tpy_line(text, line);
    if (!p)
        return NULL;
    const char *eol = strchr(p, '\n');
    if (!eol)
        eol = p + strlen(p);
    const char *hit = NULL;
    for (const char *q = p; q + 10 <= eol; q++) {
        if (memcmp(q, "tl.arange(", 10))
            continue;
        if (hit)
            return NULL; /* two on one line: which one the op is, is not known */
        hit = q;
    }
    if (!hit)
        return NULL;
    const char *s = hit + 10;
    while (*s == ' ')
        s++;
    if (s[0] != '0' || kw_tpy_ident_char(s[1]))
        return NULL;
    s++;
    while (*s == ' ')
        s++;
    if (*s != ',')
        return NULL;
    s++;
    while (*s == ' ')
        s++;
    const char *n = s;
    if (!isalpha((unsigned char)*s) && *s != '_')
        return NULL;
    while (kw_tpy_ident_char(*s))
        s++;
    const char *ne = s;
    while (*s == ' ')
        s++;
    return *s == ')' ? kw_arena_strndup(a, n, (size_t)(ne - n)) : NULL;
}
