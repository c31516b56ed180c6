/* kw_pysrc.c: a Python function's and a statement's lines in a source file
 * (see kw_pysrc.h): bracket depth, strings and comments scanned line by line. */
#include "model/kw_pysrc.h"

#include <stdbool.h>
#include <string.h>

/* Scanner state carried from line to line: bracket depth and an open
 * triple-quoted string's quote character (0 when none). */
typedef struct kw_pyscan {
    int depth;
    char triple;
} kw_pyscan;

/* Scan one line; code: whether it holds anything but blanks and a comment
 * outside a string that was open before it. Returns whether it ends with a
 * backslash continuation. */
static bool kw_py_scan(kw_pyscan *s, const char *t, size_t n, bool *code) {
    *code = false;
    for (size_t i = 0; i < n; i++) {
        char c = t[i];
        if (s->triple) {
            *code = true;
            if (c == '\\') {
                i++;
            } else if (c == s->triple && i + 2 < n && t[i + 1] == c && t[i + 2] == c) {
                s->triple = 0;
                i += 2;
            }
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r')
            continue;
        if (c == '#')
            break;
        *code = true;
        if (c == '\'' || c == '"') {
            if (i + 2 < n && t[i + 1] == c && t[i + 2] == c) {
                s->triple = c;
                i += 2;
                continue;
            }
            for (i++; i < n && t[i] != c; i++)
                if (t[i] == '\\')
                    i++;
        } else if (c == '(' || c == '[' || c == '{') {
            s->depth++;
        } else if ((c == ')' || c == ']' || c == '}') && s->depth > 0) {
            s->depth--;
        } else if (c == '\\' && i + 1 == n) {
            return true;
        }
    }
    return false;
}

static size_t kw_py_indent(const char *t, size_t n) {
    size_t i = 0;
    while (i < n && (t[i] == ' ' || t[i] == '\t'))
        i++;
    return i;
}

int kw_py_stmt_end(const kw_src_file *f, int line) {
    kw_pyscan s = {0, 0};
    for (int n = line; f && f->ok && n <= f->nlines; n++) {
        const char *t;
        size_t len;
        bool code;
        kw_src_line(f, n, &t, &len);
        bool cont = kw_py_scan(&s, t, len, &code);
        if (!s.depth && !s.triple && !cont)
            return n;
    }
    return 0;
}

int kw_py_def_end(const kw_src_file *f, int def_line, const char **why) {
    const char *t;
    size_t len;
    if (!f || !f->ok || !kw_src_line(f, def_line, &t, &len)) {
        *why = "the line is not in the file";
        return 0;
    }
    size_t ind = kw_py_indent(t, len);
    if (len < ind + 4 || strncmp(t + ind, "def ", 4)) {
        *why = "the line does not start with `def`";
        return 0;
    }
    int head = kw_py_stmt_end(f, def_line); /* the signature, up to its ':' */
    if (!head) {
        *why = "the def's signature does not end";
        return 0;
    }
    kw_pyscan s = {0, 0};
    int last = head;
    for (int n = head + 1; n <= f->nlines; n++) {
        bool code, in_string = s.triple != 0 || s.depth > 0;
        kw_src_line(f, n, &t, &len);
        size_t i = kw_py_indent(t, len);
        kw_py_scan(&s, t, len, &code);
        if (!code && !in_string)
            continue; /* blank or comment only: part of the body only when code follows */
        if (!in_string && i <= ind)
            break;
        last = n;
    }
    return last;
}
