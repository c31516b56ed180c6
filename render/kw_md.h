/* kw_md.h: writing GitHub-flavoured Markdown into a kw_buf: code spans and
 * fenced blocks that survive any content (backtick runs, pipes inside table
 * cells), escaped prose, tables, quotes, collapsible blocks and ASCII boxes.
 * The walkthroughs and index pages are built with these only, so what is
 * escaped where is decided here once. */
#ifndef KW_MD_H
#define KW_MD_H

#include <stdbool.h>
#include <stddef.h>

#include "common/kw_buf.h"

/* Inline code `s`; line breaks become spaces. In a table cell (cell = true),
 * '|' is written as "\|" (GFM splits cells on it even inside code). */
void kw_md_code(kw_buf *b, const char *s, bool cell);
/* Prose: Markdown punctuation escaped with a backslash, line breaks as spaces. */
void kw_md_text(kw_buf *b, const char *s, bool cell);
/* Prose that marks code the Markdown way, "`x` is changed": the parts
 * between backticks as inline code (kw_md_code), the rest as kw_md_text. An
 * unpaired backtick is text. */
void kw_md_prose(kw_buf *b, const char *s, bool cell);
/* A fenced code block with an info string (e.g. "cpp"); the fence is longer
 * than any backtick run inside. text need not end with a newline. */
void kw_md_fence(kw_buf *b, const char *lang, const char *text);
/* "#... text" and a blank line. */
void kw_md_heading(kw_buf *b, int level, const char *text);
/* Every line of text as a block quote ("> "), then a blank line. */
void kw_md_quote(kw_buf *b, const char *text);
/* A table header: "| a | b |" and "|---|---|" for n columns. */
void kw_md_table_head(kw_buf *b, int n, const char *const *titles);
/* An ASCII box around lines (English only, so widths line up): each line
 * padded to the widest. */
void kw_md_box(kw_buf *b, int indent, size_t n, const char *const *lines);

#endif
