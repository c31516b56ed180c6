/* kw_json.h: a small JSON reader (RFC 8259) building a tree in an arena;
 * integers are kept exact as 64-bit values (nanosecond timestamps exceed a
 * double's 53 bits) and every number keeps its text as written. Used by the
 * rocprofv3 trace reader (trace/) and the Triton cache reader (triton/). */
#ifndef KW_JSON_H
#define KW_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include "common/kw_arena.h"
#include "common/kw_err.h"

typedef enum kw_jtype { KW_J_NULL, KW_J_BOOL, KW_J_NUM, KW_J_STR, KW_J_ARR, KW_J_OBJ } kw_jtype;

typedef struct kw_json kw_json;
struct kw_json {
    kw_jtype type;
    bool b;
    bool is_int; /* KW_J_NUM written as an integer that fits in i */
    long long i;
    double d;
    const char *s;  /* KW_J_STR; KW_J_NUM: the number as written */
    size_t n;       /* KW_J_ARR, KW_J_OBJ: elements */
    kw_json *items; /* KW_J_ARR: n values; KW_J_OBJ: n values, keys in keys */
    const char **keys;
};

/* Parse text[0..len) (a UTF-8 byte order mark skipped) into *root, strings
 * and nodes in arena. Errors name `name`, the line and the offset. */
kw_status kw_json_parse(kw_arena *arena, const char *name, const char *text, size_t len,
                        kw_json *root, kw_err *err);

/* The member key of object o; NULL when o is not an object or lacks it. */
const kw_json *kw_json_get(const kw_json *o, const char *key);

/* v's value when it is a number that is an integer (a double with an integral
 * value up to 9e15 included). */
bool kw_json_int(const kw_json *v, long long *out);

/* v's text when it is a non-empty string, else NULL. */
const char *kw_json_str(const kw_json *v);

#endif
