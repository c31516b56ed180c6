/* kw_yaml_fast.h: a fast reader for the YAML that kwalk itself writes (block
 * mappings and sequences, one-line flow collections, plain, quoted and
 * literal scalars, printable ASCII; a key of over 128 characters, which
 * libyaml's emitter writes explicitly as "? key" and ": value"), producing
 * the same events libyaml would.
 *
 * Why: libyaml tokenizes about 75 MB/s here, so reading the sidecars of a
 * 10,000-kernel build took longer than the whole `kwalk index` budget. This
 * reader does not replace libyaml: whatever falls outside the subset (a
 * comment, a tag, an anchor or alias other than before a value, a tab, a non-ASCII byte, a
 * multi-line plain or quoted scalar, a folded scalar, odd indentation, any syntax error) makes
 * kw_yaml_fast_parse return false, and the caller reads the text with libyaml. The
 * reader in kw_sidecar_parse.c also falls back to libyaml whenever a document
 * read this way fails its schema checks, so every error message comes from
 * the libyaml path. tests/sidecar/test_yaml_fast.c compares the two event
 * streams on real sidecars and on many mutated ones.
 *
 * KWALK_YAML_FAST=0 in the environment turns this reader off. */
#ifndef KW_YAML_FAST_H
#define KW_YAML_FAST_H

#include <stdbool.h>
#include <stddef.h>

#include "common/kw_arena.h"
#include "common/kw_htab.h"

/* One event. type is a yaml_event_type_t; style a yaml_scalar_style_t for a
 * scalar, a yaml_mapping_style_t / yaml_sequence_style_t for a collection
 * start, and for a document end 1 when it was implicit (no "..."). len is a
 * scalar's or an alias's length; for a sequence start that kw_yaml_fast_parse
 * read, how many items the sequence holds (an alias is one item), so that a
 * reader can size its array once; 0 otherwise. */
typedef struct kw_yaml_fast_event {
    unsigned char type;
    unsigned char style;
    unsigned line;   /* 0-based line where the event starts (approximate for ends) */
    unsigned anchor; /* a node's anchor, an alias's target: 1 + index in anchors, 0 none */
    unsigned len;
    size_t off; /* a scalar's value, an alias's name: vals + off, NUL-terminated, len bytes */
} kw_yaml_fast_event;

/* An anchor (&name): its node is events [ev, end); end is 0 until the node is
 * complete. A name defined again names the later node from there on. */
typedef struct kw_yaml_fast_anchor {
    size_t name; /* vals + name, NUL-terminated */
    size_t ev, end;
} kw_yaml_fast_anchor;

typedef struct kw_yaml_fast_doc {
    kw_yaml_fast_event *ev;
    size_t n, cap;
    char *vals;
    size_t vlen, vcap;
    kw_yaml_fast_anchor *anchors;
    size_t nanchors, acap;
    kw_htab names; /* the anchors by name (entry number: anchor index) */
    /* When set (after kw_yaml_fast_init), vals are allocated from this arena
     * and not freed with the doc: a reader may keep pointers to the values
     * (no copy of each string) for as long as the arena lives. */
    kw_arena *arena;
} kw_yaml_fast_doc;

/* Anchors and aliases, also for events that come from libyaml (the reader
 * in kw_sidecar_parse.c records libyaml's events in a kw_yaml_fast_doc).
 * Define name (n bytes) as the anchor of the node whose first event is ev
 * (set ev's anchor); false: out of memory. */
bool kw_yaml_fast_anchor_define(kw_yaml_fast_doc *d, const char *name, size_t n, size_t ev);
/* The node of anchor a (1-based) ends before event end. */
void kw_yaml_fast_anchor_close(kw_yaml_fast_doc *d, unsigned a, size_t end);
/* The anchor (1-based) name (n bytes) names now, 0 when none. */
unsigned kw_yaml_fast_anchor_find(const kw_yaml_fast_doc *d, const char *name, size_t n);
/* Append an event; value (n bytes) is copied for a scalar or an alias.
 * false: out of memory or a value of 4 GiB or more. */
bool kw_yaml_fast_doc_add(kw_yaml_fast_doc *d, int type, int style, unsigned line,
                          const char *value, size_t n);

void kw_yaml_fast_init(kw_yaml_fast_doc *d);
void kw_yaml_fast_free(kw_yaml_fast_doc *d);
/* Parse text into d's events (STREAM_START ... STREAM_END). false: the text
 * is outside the subset (or memory ran out); d then holds no events. */
bool kw_yaml_fast_parse(kw_yaml_fast_doc *d, const char *text, size_t len);
/* Whether the fast reader is enabled (KWALK_YAML_FAST is not "0"). */
bool kw_yaml_fast_enabled(void);

#endif
