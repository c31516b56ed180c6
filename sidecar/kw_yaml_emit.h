/* kw_yaml_emit.h: the one YAML writer of kwalk, on libyaml's emitter. The
 * sidecar writer (kw_sidecar_emit.c) and `kwalk trace --format yaml` write
 * through it, so quoting, escaping and UTF-8 repair are libyaml's and the
 * same everywhere. A document is one top-level block mapping, 2-space
 * indent, long lines never folded, ended by "..." (so that a truncated file
 * is never taken for a complete one).
 *
 * Errors are sticky: after the first one (out of memory, an event libyaml
 * refuses) every call is a no-op and kw_yaml_emit_end returns KW_ERR with err set. */
#ifndef KW_YAML_EMIT_H
#define KW_YAML_EMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <yaml.h>

#include "common/kw_buf.h"
#include "common/kw_err.h"

struct kw_yaml_share; /* kw_yaml_share.c: the tables of a sharing write */

typedef struct kw_yaml_emitter {
    yaml_emitter_t em;
    bool failed; /* sticky: once set, every call is a no-op */
    kw_err *err;
    kw_buf *out;
    kw_buf tmp;               /* scratch for repaired UTF-8 */
    struct kw_yaml_share *sh; /* a sharing write (kw_yaml_emit_shared), else NULL */
} kw_yaml_emitter;

/* Write the document that body writes (its top-level mapping's keys and
 * values) into out with repeated subtrees written once: every node other
 * than a mapping key whose events (types, styles, scalar bytes) occur more
 * than once and that takes at least KW_YAML_SHARE_MIN bytes is written once
 * with an anchor (&0 ... &z, &10, ...: base 36 in order of first use) and aliased
 * (*a) where it occurs again. Two passes over body: the first hashes every
 * node, the second writes. body must write the same events both times. The
 * output is deterministic; the data a YAML reader loads is the same as that
 * of the unshared document. KWALK_YAML_SHARE=0 in the environment writes
 * the document unshared (one pass). */
enum { KW_YAML_SHARE_MIN = 16 };
typedef void (*kw_yaml_emit_body)(kw_yaml_emitter *e, const void *arg);
kw_status kw_yaml_emit_shared(kw_buf *out, kw_err *err, kw_yaml_emit_body body, const void *arg);
/* Whether writes share (KWALK_YAML_SHARE is not "0"). */
bool kw_yaml_share_enabled(void);

/* Start a document whose top level is a block mapping, written into out. */
kw_status kw_yaml_emit_begin(kw_yaml_emitter *e, kw_buf *out, kw_err *err);
/* Close the top-level mapping and the document (with its "..." end marker). */
kw_status kw_yaml_emit_end(kw_yaml_emitter *e);
void kw_yaml_emit_free(kw_yaml_emitter *e);

/* Hand one event to the emitter (init_ok: its initializer's result). */
void kw_yaml_emit_emit(kw_yaml_emitter *e, yaml_event_t *ev, int init_ok);
void kw_yaml_emit_map_start(kw_yaml_emitter *e, bool flow);
void kw_yaml_emit_map_end(kw_yaml_emitter *e);
void kw_yaml_emit_seq_start(kw_yaml_emitter *e, bool flow);
void kw_yaml_emit_seq_end(kw_yaml_emitter *e);
void kw_yaml_emit_scalar(kw_yaml_emitter *e, const char *s, size_t n, yaml_scalar_style_t style);

/* A string: plain when it reads back as the same string in any YAML
 * resolver, double-quoted when it would look like a number, a boolean or
 * null ("256", "true", "~", ""), a literal block when multi-line, otherwise
 * whatever libyaml needs. Invalid UTF-8 bytes become U+FFFD. */
void kw_yaml_emit_str(kw_yaml_emitter *e, const char *s);
/* The IR facts' string style (KW_F_QUOTED): plain when s is a simple word
 * (letters, digits, _./-+, not a YAML keyword), else double-quoted; NULL is
 * written as null. */
void kw_yaml_emit_qstr(kw_yaml_emitter *e, const char *s);
/* w written plain, as it is (a word the caller knows is safe: unknown, null). */
void kw_yaml_emit_word(kw_yaml_emitter *e, const char *w);
/* A string always double-quoted (libyaml's escapes), UTF-8 repaired. */
void kw_yaml_emit_quoted(kw_yaml_emitter *e, const char *s);
/* A plain scalar as given: a key, a number formatted by the caller, an enum word. */
void kw_yaml_emit_plain(kw_yaml_emitter *e, const char *text);
/* A plain scalar from printf's fmt (numbers; at most 63 bytes). */
void kw_yaml_emit_fmt(kw_yaml_emitter *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void kw_yaml_emit_ll(kw_yaml_emitter *e, long long v);
void kw_yaml_emit_bool(kw_yaml_emitter *e, bool v);
/* "~" */
void kw_yaml_emit_null(kw_yaml_emitter *e);
/* A mapping key (plain). */
void kw_yaml_emit_key(kw_yaml_emitter *e, const char *key);
/* A key and its value: an integer; a boolean; a string (kw_yaml_emit_str), NULL as null. */
void kw_yaml_emit_key_int(kw_yaml_emitter *e, const char *key, long long v);
void kw_yaml_emit_key_bool(kw_yaml_emitter *e, const char *key, bool v);
void kw_yaml_emit_key_str(kw_yaml_emitter *e, const char *key, const char *s);

#endif
