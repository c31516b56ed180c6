/* kw_jansson.h: the few helpers kwalk's JSON readers share over jansson
 * (Debian's libjansson, the JSON library; https://jansson.readthedocs.io):
 * loading a document with errors as one line naming the file and the place,
 * exact 64-bit integers (nanosecond timestamps exceed a double's 53 bits),
 * strings and scalars as text. Built as its own library (kw_json) so that only
 * the readers that need JSON (trace/, triton/) link jansson; the plugin does
 * not. */
#ifndef KW_JANSSON_H
#define KW_JANSSON_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "common/kw_arena.h"
#include "common/kw_err.h"

/* Parse text[0..len) (a UTF-8 byte order mark skipped; any JSON value at the
 * top) into *root, which the caller releases with json_decref. Errors are
 * "<name>: line L, column C: <jansson's message>" on one line; a document
 * that ends early says "(truncated?)". An integer beyond 64 bits is an error
 * (jansson keeps integers exact and refuses what does not fit). */
kw_status kw_jansson_load(const char *name, const char *text, size_t len, json_t **root,
                          kw_err *err);

/* v's value when it is an integer, or a real with an integral value up to
 * 9e15 (exact in a double). */
bool kw_jansson_int(const json_t *v, long long *out);

/* v's text when it is a non-empty string, else NULL (owned by v's document). */
const char *kw_jansson_str(const json_t *v);

/* A scalar as text, into arena: a string as it is, true/false, an integer in
 * decimal, a real in the shortest form that reads back to the same double
 * (Python's repr: "0.1", "1.0", "1e-05"). NULL for null, arrays, objects and
 * when out of memory. */
char *kw_jansson_scalar(kw_arena *arena, const json_t *v);

/* ---- Writing (--json output) ---- */

/* A JSON string of s, invalid UTF-8 bytes replaced by U+FFFD (jansson takes
 * valid UTF-8 only); json null for NULL s. NULL when out of memory. */
json_t *kw_jansson_text(const char *s);

/* obj[key] = value, value's reference taken (json_object_set_new); a NULL
 * value (out of memory) marks obj with *oom instead. */
void kw_jansson_set(json_t *obj, const char *key, json_t *value, bool *oom);
/* arr += value, the same way. */
void kw_jansson_push(json_t *arr, json_t *value, bool *oom);

#endif
