/* kw_src.h: the source files a walkthrough quotes, read once and cached by
 * path, with a line index and a small C/C++ lexical scanner (comments,
 * strings and character literals are skipped) for what the renderer needs
 * from the text itself: the extent of a statement to quote, the extent of a
 * kernel's definition, and the lines where an identifier is used.
 *
 * A file that cannot be read is remembered as such (ok = false, why says
 * why): the walkthrough states it instead of quoting. */
#ifndef KW_SRC_H
#define KW_SRC_H

#include <stdbool.h>
#include <stddef.h>

#include "common/kw_arena.h"
#include "common/kw_symmap.h"

typedef struct kw_src_file {
    const char *path;
    bool ok;
    const char *why; /* when !ok: "No such file or directory" */
    char *text;
    size_t len;
    size_t *line_off; /* offset of line i+1 (1-based line i+1 starts at line_off[i]) */
    int nlines;
} kw_src_file;

typedef struct kw_srcs {
    kw_arena arena;
    kw_symmap by_path; /* path -> index in files */
    KW_ARRAY(kw_src_file *) files;
} kw_srcs;

void kw_srcs_init(kw_srcs *s);
void kw_srcs_free(kw_srcs *s);
/* The file at path, read on first use; never NULL except when out of memory. */
const kw_src_file *kw_src_get(kw_srcs *s, const char *path);
/* The file at path when kw_src_get has been asked for it (read, or known
 * unreadable), else NULL: never reads. */
const kw_src_file *kw_src_find(const kw_srcs *s, const char *path);
/* Line n (1-based) without its line break; false when out of range. */
bool kw_src_line(const kw_src_file *f, int n, const char **text, size_t *len);
/* kw_src_line without the line's indentation (leading spaces and tabs), as
 * a page quotes one line after a location. */
bool kw_src_line_unindented(const kw_src_file *f, int n, const char **text, size_t *len);
/* Does line n contain word as a whole identifier (in code, not in a comment or
 * string)? With any_text, a plain substring anywhere on the line counts. */
bool kw_src_line_has(const kw_src_file *f, int n, const char *word, bool any_text);
/* The last line of the statement starting at (line, column): the line of the
 * ';' that ends it at bracket depth 0 (or of the '}' closing its enclosing
 * block), at most max_lines lines on; line itself when not found. */
int kw_src_stmt_end(const kw_src_file *f, int line, int column, int max_lines);
/* The line of the same statement at or above `line` (at most max_lines
 * above) that holds identifier word: a launch whose kernel's name and its
 * `<<<` sit on different lines begins at the name. 0 when no such line is
 * found before a line that ends another statement. */
int kw_src_stmt_start(const kw_src_file *f, int line, const char *word, int max_lines);

/* A function definition around the line of its name. */
typedef struct kw_src_def {
    int first;     /* first line of its declaration (template header included) */
    int uses_line; /* where the declaration proper starts: just after the template */
    int uses_col;  /* parameter list's '>' (line and 1-based column) */
    int body_open; /* line of the body's '{' */
    int last;      /* line of the body's '}' */
} kw_src_def;

/* Find the definition whose name is on line name_line (at column col): scans
 * back over the declaration header (at most 12 lines) and forward to the end
 * of the body. false when no body is found. */
bool kw_src_def_range(const kw_src_file *f, int name_line, int col, kw_src_def *out);
/* Lines from (from, from_col) to the end of line `to` where identifier id is
 * used (in code); at most max lines are stored in out; returns how many lines
 * there are in all. */
size_t kw_src_uses(const kw_src_file *f, int from, int from_col, int to, const char *id, int *out,
                   size_t max);

#endif
