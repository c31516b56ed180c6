/* kw_md.h: writing GitHub-flavoured Markdown into a kw_buf: code spans and
 * fenced blocks that survive any content (backtick runs, pipes inside table
 * cells), escaped prose, tables, quotes, collapsible blocks and ASCII boxes.
 * The walkthroughs and index pages are built with these only, so what is
 * escaped where is decided here once. Tables and bullet lists, with the
 * code spans and text in them, can also be written as the HTML that
 * libcmark-gfm makes of that Markdown (`kwalk site`; tests/render/
 * test_md_html.c compares the two). */
#ifndef KW_MD_H
#define KW_MD_H

#include <stdbool.h>
#include <stddef.h>

#include "common/kw_buf.h"

/* Where inline text goes: prose (false), a GFM table cell (true), or a cell
 * of a table written as HTML (kw_md_table with html): there the HTML that
 * libcmark-gfm makes of the Markdown the other two would write. */
typedef enum kw_md_in { KW_MD_TEXT = 0, KW_MD_CELL = 1, KW_MD_HTML = 2 } kw_md_in;

/* Inline code `s`; line breaks become spaces. In a table cell (KW_MD_CELL),
 * '|' is written as "\|" (GFM splits cells on it even inside code). */
void kw_md_code(kw_buf *b, const char *s, kw_md_in in);
/* Prose: Markdown punctuation escaped with a backslash (an '&' that could
 * begin an entity too), line breaks as spaces. */
void kw_md_text(kw_buf *b, const char *s, kw_md_in in);
/* Text from the inputs (a path, an arch name, a reason) in prose or in a
 * heading, where it is written with as few escapes as keep it text: as it
 * is, but for the characters that could make Markdown or HTML of it there,
 * each escaped with a backslash ('_' only where it could begin or end
 * emphasis, not between two letters or digits; '&' where it could begin an
 * entity); line breaks as spaces. KW_MD_HTML: as kw_md_text. */
void kw_md_safe(kw_buf *b, const char *s, kw_md_in in);
/* A reason or note the model wrote about inputs ("`n` has no initializer"):
 * the parts between backticks as code spans, the rest as kw_md_safe. */
void kw_md_safe_prose(kw_buf *b, const char *s, kw_md_in in);
/* Prose that marks code the Markdown way, "`x` is changed": the parts
 * between backticks as inline code (kw_md_code), the rest as kw_md_text. An
 * unpaired backtick is text. */
void kw_md_prose(kw_buf *b, const char *s, kw_md_in in);
/* A fenced code block with an info string (e.g. "cpp"); the fence is longer
 * than any backtick run inside. text need not end with a newline. */
void kw_md_fence(kw_buf *b, const char *lang, const char *text);
/* The program's own words (a sentence of the page written in its code),
 * whose only markup is `code`: as is in Markdown; with KW_MD_HTML as the
 * HTML libcmark-gfm makes of it in a paragraph (code spans as kw_md_code
 * writes them, the rest escaped, line breaks kept). Such words hold no
 * other Markdown or HTML syntax (no '*', '_', '\\', '[', '<', '&', '|' or
 * a line beginning with a block's marker). */
void kw_md_lit(kw_buf *b, const char *s, kw_md_in in);
/* kw_md_fence, or with KW_MD_HTML the HTML libcmark-gfm makes of it. */
void kw_md_fence_in(kw_buf *b, const char *lang, const char *text, kw_md_in in);
/* A doc comment (an author's Markdown) as a block quote that stays text:
 * its raw HTML as text and links to URLs with a scheme other than http,
 * https and mailto without their URL (kw_md_doc.c, docs/security.md). */
void kw_md_doc(kw_buf *b, const char *text);
/* "#... text" and a blank line. */
void kw_md_heading(kw_buf *b, int level, const char *text);
/* Every line of text as a block quote ("> "), then a blank line. */
void kw_md_quote(kw_buf *b, const char *text);
/* A table written cell by cell: as a GFM table ("| a | b |" rows), or with
 * html as the HTML libcmark-gfm makes of that table (<table> ... </table>,
 * no blank line inside), which a Markdown converter passes through as an
 * HTML block: the same page, without GFM's table parsing. Titles are plain
 * text and `code`. A blank line must follow the table. */
typedef struct kw_md_table {
    kw_buf *b;
    bool html, row, body; /* a row is open; html: <tbody> is open */
    int n, col;           /* columns; cells begun in the row */
    const char *align;    /* per column, 'r': right-aligned ("---:"); NULL: none */
    size_t cell_at;       /* html: where the open cell's <td> begins */
    size_t text_at;       /* html: and its text */
} kw_md_table;

/* align: NULL, or a character per column, 'r' for right-aligned ("---:"),
 * anything else for GFM's default; it must outlive the table. */
void kw_md_table_open(kw_md_table *t, kw_buf *b, bool html, int n, const char *const *titles,
                      const char *align);
/* Begin a row, then each of its cells; what goes in a cell is written into
 * t->b with kw_md_table_in(t). */
void kw_md_table_row(kw_md_table *t);
void kw_md_table_cell(kw_md_table *t);
void kw_md_table_close(kw_md_table *t);
static inline kw_md_in kw_md_table_in(const kw_md_table *t) {
    return t->html ? KW_MD_HTML : KW_MD_CELL;
}
/* A bullet list, tight (no blank line between items), written item by item:
 * as Markdown ("- " indented two spaces a level), or with html as the HTML
 * libcmark-gfm makes of it (<ul><li>...), which a converter passes through
 * as an HTML block. An item's text is one line, written into l->b after
 * kw_md_list_item (with KW_MD_HTML inline text when html); an item of
 * level d + 1 nests in the item of level d before it. A blank line must
 * follow the list. */
typedef struct kw_md_list {
    kw_buf *b;
    bool html;
    int level;      /* of the open item; -1: none yet */
    size_t text_at; /* html: where the open item's text begins */
} kw_md_list;

void kw_md_list_open(kw_md_list *l, kw_buf *b, bool html);
/* Begin an item of level 0 (top), or at most one deeper than the item before. */
void kw_md_list_item(kw_md_list *l, int level);
void kw_md_list_close(kw_md_list *l);

/* **s**: s is plain text (no Markdown syntax), strong. */
void kw_md_strong(kw_buf *b, const char *s, kw_md_in in);
/* Text with no Markdown syntax in it (numbers, words): as is, or escaped
 * for HTML; in Markdown, a '<', '[', '\\' or an '&' that could begin an
 * entity escaped with a backslash (a word from the inputs makes no tag or
 * link). */
void kw_md_plain(kw_buf *b, const char *s, size_t n, kw_md_in in);
/* An ASCII box around lines (English only, so widths line up): each line
 * padded to the widest. */
void kw_md_box(kw_buf *b, int indent, size_t n, const char *const *lines);

#endif
