/* kw_triton_py.c: what the cache reader reads from a @triton.jit function's
 * Python source: the names of its tl.constexpr arguments (the cache keeps
 * none), the `tl.arange(0, NAME)` a make_range op comes from and the
 * `range(..., NAME)` a loop bound comes from. A scan of
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

/* Is [p, p+5) "range" the name of a call: `range(` or `tl.range(`, not
 * `static_range(` or `x.range(`? */
static bool kw_tpy_range_call(const char *line, const char *p) {
    if (memcmp(p, "range(", 6))
        return false;
    if (p == line || (!kw_tpy_ident_char(p[-1]) && p[-1] != '.'))
        return true;
    return p - line >= 3 && !memcmp(p - 3, "tl.", 3) &&
           (p - 3 == line || (!kw_tpy_ident_char(p[-4]) && p[-4] != '.'));
}

const char *kw_tpy_range_arg(kw_arena *a, const char *text, int line, int which) {
    const char *p = kw_tpy_line(text, line);
    if (!p || which < 0 || which > 2)
        return NULL;
    const char *eol = strchr(p, '\n');
    if (!eol)
        eol = p + strlen(p);
    const char *hit = NULL;
    for (const char *q = p; q + 6 <= eol; q++) {
        if (!kw_tpy_range_call(p, q))
            continue;
        if (hit)
            return NULL; /* two calls on one line: which one the loop is, is not known */
        hit = q;
    }
    if (!hit)
        return NULL;
    /* the positional arguments, split at commas outside brackets */
    const char *arg[3], *arg_end[3];
    int n = 0, depth = 0;
    const char *s = hit + 6;
    for (const char *q = s; q < eol; q++) {
        char c = *q;
        if (c == '(' || c == '[' || c == '{') {
            depth++;
        } else if ((c == ')' || c == ']' || c == '}') && depth > 0) {
            depth--;
        } else if (c == '"' || c == '\'' || c == '#') {
            return NULL; /* strings and comments: not read */
        } else if (depth == 0 && (c == ',' || c == ')')) {
            const char *b = s, *e = q;
            while (b < e && *b == ' ')
                b++;
            while (e > b && e[-1] == ' ')
                e--;
            const char *k = b;
            while (k < e && kw_tpy_ident_char(*k))
                k++;
            bool keyword = k < e && *k == '=' && (k + 1 >= e || k[1] != '=');
            if (keyword) { /* keywords (num_stages=2) end the positional ones */
                if (c == ')')
                    break;
                s = q + 1;
                continue;
            }
            if (b < e) {
                if (n == 3)
                    return NULL;
                arg[n] = b;
                arg_end[n++] = e;
            }
            if (c == ')')
                break;
            s = q + 1;
        }
    }
    int idx = n == 1   ? (which == 1 ? 0 : -1)
              : n == 2 ? (which < 2 ? which : -1)
              : n == 3 ? which
                       : -1;
    if (idx < 0)
        return NULL;
    const char *b = arg[idx], *e = arg_end[idx];
    if (!isalpha((unsigned char)*b) && *b != '_')
        return NULL;
    for (const char *q = b; q < e; q++)
        if (!kw_tpy_ident_char(*q))
            return NULL;
    return kw_arena_strndup(a, b, (size_t)(e - b));
}

/* The indentation of the line at p, or -1 for a blank or comment-only line. */
static int kw_tpy_indent(const char *p) {
    int n = 0;
    while (p[n] == ' ' || p[n] == '\t')
        n++;
    return p[n] == '\n' || p[n] == '\0' || p[n] == '#' ? -1 : n;
}

/* Where each line of a text starts: v[0] is line 1. */
typedef KW_ARRAY(const char *) kw_tpy_starts;

static bool kw_tpy_line_starts(kw_arena *a, const char *text, kw_tpy_starts *out) {
    for (const char *p = text; *p;) {
        const char **slot = KW_PUSH(a, *out);
        if (!slot)
            return false;
        *slot = p;
        p = strchr(p, '\n');
        if (!p)
            break;
        p++;
    }
    return true;
}

/* The last line of the block whose first line follows `line` and is
 * indented more than `outer`; *next: the first line after it (0 at the end). */
static int kw_tpy_block_end(const kw_tpy_starts *ls, int line, int outer, int *next) {
    int last = line;
    *next = 0;
    for (int n = line + 1; n <= (int)ls->n; n++) {
        int ind = kw_tpy_indent(ls->v[n - 1]);
        if (ind < 0)
            continue;
        if (ind <= outer) {
            *next = n;
            return last;
        }
        last = n;
    }
    return last;
}

bool kw_tpy_if_statements(kw_arena *a, const char *text, int def_line, const char *name,
                          kw_tpy_ifs *out) {
    kw_tpy_starts ls = {0};
    if (!kw_tpy_line_starts(a, text, &ls))
        return false;
    if (def_line < 1 || def_line > (int)ls.n)
        return true;
    const char *d = ls.v[def_line - 1];
    int def_ind = kw_tpy_indent(d), next = 0, head_last = def_line, depth = 0;
    /* the def's header ends at the ':' after its parameters' ')' */
    for (const char *q = d; *q; q++) {
        if (*q == '\n') {
            head_last++;
        } else if (*q == '#') {
            while (q[1] && q[1] != '\n')
                q++;
        } else if (*q == '(' || *q == '[' || *q == '{') {
            depth++;
        } else if (*q == ')' || *q == ']' || *q == '}') {
            depth--;
        } else if (*q == ':' && depth == 0) {
            break;
        }
    }
    int def_last = kw_tpy_block_end(&ls, head_last, def_ind < 0 ? 0 : def_ind, &next);
    size_t nl = strlen(name);
    for (int n = head_last + 1; n <= def_last; n++) {
        const char *p = ls.v[n - 1];
        int ind = kw_tpy_indent(p);
        if (ind < 0)
            continue;
        const char *s = p + ind;
        if (strncmp(s, "if ", 3) || strncmp(s + 3, name, nl))
            continue;
        const char *e = s + 3 + nl;
        while (*e == ' ')
            e++;
        if (*e != ':')
            continue;
        e++;
        while (*e == ' ')
            e++;
        if (*e != '\n' && *e != '#' && *e)
            continue; /* `if NAME: stmt` on one line: not read */
        kw_tpy_if st = {.if_line = n, .then_first = n + 1};
        st.then_last = kw_tpy_block_end(&ls, n, ind, &next);
        const char *q = next ? ls.v[next - 1] : NULL;
        if (q && kw_tpy_indent(q) == ind) {
            const char *k = q + ind;
            if (!strncmp(k, "elif", 4) && !kw_tpy_ident_char(k[4]))
                continue;
            if (!strncmp(k, "else", 4) && (k[4] == ':' || k[4] == ' ')) {
                st.else_first = next + 1;
                st.else_last = kw_tpy_block_end(&ls, next, ind, &next);
            }
        }
        kw_tpy_if *slot = KW_PUSH(a, *out);
        if (!slot)
            return false;
        *slot = st;
    }
    return true;
}
