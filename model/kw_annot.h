/* kw_annot.h: the annotation data files (annotations/ in the source tree):
 * entry-point decorators, provider path patterns, hardware peaks, ISA notes.
 * They are embedded in kwalk at build time (cmake/KwalkEmbed.cmake), so the
 * command works from anywhere; KWALK_ANNOTATIONS=DIR adds the files of DIR
 * (same relative names, e.g. DIR/entrypoints/mystack.txt), a file of DIR
 * replacing the embedded one of the same name. Other stacks are added as data.
 *
 * Every file is line-oriented: '#' starts a comment, words are separated by
 * blanks. kw_annot_lines hands each non-empty line to a callback. */
#ifndef KW_ANNOT_H
#define KW_ANNOT_H

#include <stdbool.h>
#include <stddef.h>

#include "common/kw_arena.h"
#include "common/kw_err.h"

typedef struct kw_annot_file {
    const char *name; /* relative to annotations/: "entrypoints/aiter.txt" */
    const char *data;
    size_t len;
} kw_annot_file;

/* Generated from annotations/ (kw_annot_data.c). */
extern const kw_annot_file kw_annot_embedded[];
extern const size_t kw_annot_nembedded;

typedef struct kw_annot {
    kw_arena arena;
    KW_ARRAY(kw_annot_file) files; /* sorted by name */
} kw_annot;

/* The embedded files plus those of $KWALK_ANNOTATIONS. */
kw_status kw_annot_load(kw_annot *a, kw_err *err);
void kw_annot_free(kw_annot *a);
/* The file of that exact name, or NULL. */
const kw_annot_file *kw_annot_get(const kw_annot *a, const char *name);

enum { KW_ANNOT_MAXWORDS = 16 };

/* One line: its words (the first KW_ANNOT_MAXWORDS; `more` when there are
 * more) and the text after the first word, whole and trimmed (for "PATTERN
 * free text" files). Valid during the call. */
typedef struct kw_annot_line {
    const char *file;
    int lineno;
    int nwords;
    bool more;
    const char *word[KW_ANNOT_MAXWORDS];
    const char *rest;
} kw_annot_line;

typedef kw_status (*kw_annot_line_fn)(void *ctx, const kw_annot_line *line, kw_err *err);

/* Call fn for every non-empty line of f (comments stripped). Errors name the
 * place: "annotations/<file>:<line>: ...". */
kw_status kw_annot_lines(const kw_annot_file *f, kw_annot_line_fn fn, void *ctx, kw_err *err);

#endif
