/* kw_src.c: the source-file cache and the lexical scans of kw_src.h. The
 * scanner knows C/C++ comments, string and character literals (raw strings
 * are taken as plain strings) and preprocessor lines (skipped as a whole);
 * it is enough to count brackets and find identifiers, not to parse. */
#define _POSIX_C_SOURCE 200809L
#include "model/kw_src.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/kw_err.h"
#include "common/kw_fs.h"

void kw_srcs_init(kw_srcs *s) {
    memset(s, 0, sizeof(*s));
    kw_arena_init(&s->arena);
    kw_symmap_init(&s->by_path);
}

void kw_srcs_free(kw_srcs *s) {
    for (size_t i = 0; i < s->files.n; i++) {
        free(s->files.v[i]->text);
        free(s->files.v[i]->line_off);
    }
    kw_symmap_free(&s->by_path);
    kw_arena_free(&s->arena);
    memset(s, 0, sizeof(*s));
}

static void kw_src_load(kw_srcs *s, kw_src_file *f) {
    struct stat st;
    kw_err err;
    if (stat(f->path, &st) == 0 && S_ISDIR(st.st_mode)) {
        f->why = "a directory";
        return;
    }
    if (kw_fs_read_as(f->path, KW_FS_TEXT, &f->text, &f->len, &err) != KW_OK) {
        /* the reader's message less its "PATH: " (not a regular file, too large) */
        size_t n = strlen(f->path);
        const char *why = err.msg;
        if (!strncmp(why, f->path, n) && why[n] == ':' && why[n + 1] == ' ')
            why += n + 2;
        f->why = stat(f->path, &st) != 0 ? "no such file" : kw_arena_strdup(&s->arena, why);
        if (!f->why)
            f->why = "cannot be read";
        return;
    }
    size_t n = 1;
    for (size_t i = 0; i < f->len; i++)
        n += f->text[i] == '\n';
    f->line_off = malloc((n + 1) * sizeof(size_t));
    if (!f->line_off) {
        f->why = "out of memory";
        return;
    }
    int k = 0;
    f->line_off[k++] = 0;
    for (size_t i = 0; i < f->len; i++)
        if (f->text[i] == '\n')
            f->line_off[k++] = i + 1;
    /* a final line break does not start another line */
    f->nlines = (f->len && f->text[f->len - 1] == '\n') ? k - 1 : k;
    f->line_off[k] = f->len;
    f->ok = true;
}

const kw_src_file *kw_src_get(kw_srcs *s, const char *path) {
    size_t *at = kw_symmap_get(&s->by_path, path);
    if (at)
        return s->files.v[*at];
    kw_src_file *f = kw_arena_alloc(&s->arena, sizeof(*f));
    kw_src_file **slot = KW_PUSH(&s->arena, s->files);
    if (!f || !slot || !(f->path = kw_arena_strdup(&s->arena, path)))
        return NULL;
    *slot = f;
    if (kw_symmap_put(&s->by_path, f->path, s->files.n - 1) != KW_OK)
        return NULL;
    kw_src_load(s, f);
    return f;
}

const kw_src_file *kw_src_find(const kw_srcs *s, const char *path) {
    size_t *at = kw_symmap_get(&s->by_path, path);
    return at ? s->files.v[*at] : NULL;
}

bool kw_src_line(const kw_src_file *f, int n, const char **text, size_t *len) {
    if (!f || !f->ok || n < 1 || n > f->nlines)
        return false;
    size_t a = f->line_off[n - 1], b = f->line_off[n];
    while (b > a && (f->text[b - 1] == '\n' || f->text[b - 1] == '\r'))
        b--;
    *text = f->text + a;
    *len = b - a;
    return true;
}

bool kw_src_line_unindented(const kw_src_file *f, int n, const char **text, size_t *len) {
    if (!kw_src_line(f, n, text, len))
        return false;
    while (*len && (**text == ' ' || **text == '\t'))
        ++*text, --*len;
    return true;
}

/* ---- the scanner ------------------------------------------------------------------------- */

typedef struct kw_scan {
    const kw_src_file *f;
    size_t i;      /* next character */
    int line;      /* line of text[i] */
    bool line_start; /* only blanks so far on this line */
} kw_scan;

static void kw_scan_at(kw_scan *sc, const kw_src_file *f, int line, int column) {
    sc->f = f;
    sc->line = line;
    sc->i = f->line_off[line - 1] + (size_t)(column > 0 ? column - 1 : 0);
    if (sc->i > f->line_off[line])
        sc->i = f->line_off[line];
    sc->line_start = column <= 1;
}

static bool kw_is_id(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* The next code character (comments, literals and preprocessor lines skipped;
 * a literal is returned as one '"' or '\''), with its line in *line; -1 at
 * the end. */
static int kw_scan_next(kw_scan *sc, int *line) {
    const char *t = sc->f->text;
    size_t n = sc->f->len;
    while (sc->i < n) {
        char c = t[sc->i];
        if (c == '\n') {
            sc->line++;
            sc->i++;
            sc->line_start = true;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r') {
            sc->i++;
            continue;
        }
        if (c == '#' && sc->line_start) { /* preprocessor line, with continuations */
            while (sc->i < n && t[sc->i] != '\n') {
                if (t[sc->i] == '\\' && sc->i + 1 < n && t[sc->i + 1] == '\n') {
                    sc->line++;
                    sc->i++;
                }
                sc->i++;
            }
            continue;
        }
        sc->line_start = false;
        if (c == '/' && sc->i + 1 < n && t[sc->i + 1] == '/') {
            while (sc->i < n && t[sc->i] != '\n')
                sc->i++;
            continue;
        }
        if (c == '/' && sc->i + 1 < n && t[sc->i + 1] == '*') {
            sc->i += 2;
            while (sc->i + 1 < n && !(t[sc->i] == '*' && t[sc->i + 1] == '/')) {
                if (t[sc->i] == '\n')
                    sc->line++;
                sc->i++;
            }
            sc->i += 2;
            continue;
        }
        *line = sc->line;
        if (c == '"' || c == '\'') {
            sc->i++;
            while (sc->i < n && t[sc->i] != c && t[sc->i] != '\n') {
                if (t[sc->i] == '\\')
                    sc->i++;
                sc->i++;
            }
            sc->i++;
            return c;
        }
        sc->i++;
        return (unsigned char)c;
    }
    return -1;
}

bool kw_src_line_has(const kw_src_file *f, int n, const char *word, bool any_text) {
    const char *text;
    size_t len;
    if (!word || !word[0] || !kw_src_line(f, n, &text, &len))
        return false;
    size_t w = strlen(word);
    if (any_text) {
        for (size_t i = 0; i + w <= len; i++)
            if (!memcmp(text + i, word, w))
                return true;
        return false;
    }
    int hits[1];
    return kw_src_uses(f, n, 1, n, word, hits, 1) > 0;
}

int kw_src_stmt_end(const kw_src_file *f, int line, int column, int max_lines) {
    if (!f || !f->ok || line < 1 || line > f->nlines)
        return line;
    kw_scan sc;
    kw_scan_at(&sc, f, line, column);
    int depth = 0, at = line, c;
    while ((c = kw_scan_next(&sc, &at)) >= 0 && at <= line + max_lines) {
        if (c == '(' || c == '[' || c == '{')
            depth++;
        else if (c == ')' || c == ']' || c == '}') {
            if (--depth < 0)
                return at;
        } else if (c == ';' && depth == 0)
            return at;
    }
    return line;
}

/* Is line n blank, a comment or a preprocessor line, or does it end a
 * previous declaration (';', '}', '{' last)? Then a header cannot extend
 * back past it. */
static bool kw_src_header_stop(const kw_src_file *f, int n) {
    const char *t;
    size_t len;
    if (!kw_src_line(f, n, &t, &len))
        return true;
    size_t a = 0;
    while (a < len && (t[a] == ' ' || t[a] == '\t'))
        a++;
    while (len > a && (t[len - 1] == ' ' || t[len - 1] == '\t'))
        len--;
    if (a == len || t[a] == '#' || (len - a >= 2 && t[a] == '/' && (t[a + 1] == '/' || t[a + 1] == '*')))
        return true;
    /* a trailing comment does not count */
    for (size_t i = a; i + 1 < len; i++)
        if (t[i] == '/' && t[i + 1] == '/') {
            len = i;
            while (len > a && (t[len - 1] == ' ' || t[len - 1] == '\t'))
                len--;
            break;
        }
    char last = len > a ? t[len - 1] : 0;
    return last == ';' || last == '}' || last == '{' || last == ':';
}

int kw_src_stmt_start(const kw_src_file *f, int line, const char *word, int max_lines) {
    if (!f || !f->ok || !word || line < 1 || line > f->nlines)
        return 0;
    for (int n = line; n >= 1 && n >= line - max_lines; n--) {
        if (kw_src_line_has(f, n, word, false))
            return n;
        if (n < line && kw_src_header_stop(f, n))
            return 0; /* the line before ends another statement */
    }
    return 0;
}

/* Does the identifier at text[i] (just returned by the scanner) spell word? */
static bool kw_scan_word(const kw_scan *sc, const char *word) {
    size_t w = strlen(word), i = sc->i - 1;
    const char *t = sc->f->text;
    return i + w <= sc->f->len && !memcmp(t + i, word, w) &&
           (i + w == sc->f->len || !kw_is_id(t[i + w])) && (i == 0 || !kw_is_id(t[i - 1]));
}

bool kw_src_def_range(const kw_src_file *f, int name_line, int col, kw_src_def *out) {
    if (!f || !f->ok || name_line < 1 || name_line > f->nlines)
        return false;
    memset(out, 0, sizeof(*out));
    int first = name_line;
    while (first > 1 && name_line - first < 12 && !kw_src_header_stop(f, first - 1))
        first--;
    out->first = first;
    out->uses_line = first;
    out->uses_col = 1;
    /* the template parameter list: from 'template' to its matching '>' */
    kw_scan sc;
    kw_scan_at(&sc, f, first, 1);
    int at = first, c;
    while ((c = kw_scan_next(&sc, &at)) >= 0 && at <= name_line) {
        if (c != 't' || !kw_scan_word(&sc, "template"))
            continue;
        sc.i += 7;
        int angle = 0, paren = 0;
        while ((c = kw_scan_next(&sc, &at)) >= 0 && at <= name_line) {
            if (c == '(')
                paren++;
            else if (c == ')')
                paren--;
            else if (c == '<' && !paren)
                angle++;
            else if (c == '>' && !paren && --angle == 0) {
                out->uses_line = at;
                out->uses_col = (int)(sc.i - f->line_off[at - 1]) + 1;
                break;
            }
        }
        break;
    }
    /* the body: the first '{' at parenthesis depth 0 after the name */
    kw_scan_at(&sc, f, name_line, col);
    int paren = 0;
    while ((c = kw_scan_next(&sc, &at)) >= 0) {
        if (c == '(')
            paren++;
        else if (c == ')')
            paren--;
        else if (c == ';' && !paren)
            return false; /* a declaration, not a definition */
        else if (c == '{' && !paren) {
            out->body_open = at;
            break;
        }
    }
    if (!out->body_open)
        return false;
    int depth = 1;
    while ((c = kw_scan_next(&sc, &at)) >= 0) {
        if (c == '{')
            depth++;
        else if (c == '}' && --depth == 0) {
            out->last = at;
            return true;
        }
    }
    return false;
}

size_t kw_src_uses(const kw_src_file *f, int from, int from_col, int to, const char *id, int *out,
                   size_t max) {
    if (!f || !f->ok || from < 1 || from > f->nlines || !id || !id[0])
        return 0;
    if (to > f->nlines)
        to = f->nlines;
    size_t w = strlen(id), count = 0;
    int last = 0, at = from, c;
    kw_scan sc;
    kw_scan_at(&sc, f, from, from_col);
    while ((c = kw_scan_next(&sc, &at)) >= 0 && at <= to) {
        if (!kw_is_id((char)c) || (sc.i >= 2 && kw_is_id(f->text[sc.i - 2])))
            continue;
        size_t start = sc.i - 1, end = start;
        while (end < f->len && kw_is_id(f->text[end]))
            end++;
        sc.i = end;
        if (end - start == w && !memcmp(f->text + start, id, w) && at != last) {
            if (count < max)
                out[count] = at;
            count++;
            last = at;
        }
    }
    return count;
}
