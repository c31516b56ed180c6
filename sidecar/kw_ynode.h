/* kw_ynode.h: a YAML document as a plain tree of nodes (mappings, sequences,
 * scalars), for values a sidecar keeps as YAML text (kind KW_F_RAW, e.g. the
 * IR facts of passes/) so that kw_reflect.h can read into them by key like
 * into any record. Internal to sidecar/ (kw_reflect.c). */
#ifndef KW_YNODE_H
#define KW_YNODE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/kw_arena.h"
#include "common/kw_err.h"
#include "sidecar/kw_sidecar.h"

typedef enum kw_ykind { KW_Y_NULL, KW_Y_SCALAR, KW_Y_MAP, KW_Y_SEQ } kw_ykind;

typedef struct kw_ynode kw_ynode;
struct kw_ynode {
    kw_ykind kind;
    const char *text;  /* a scalar's value */
    size_t n;          /* entries of a mapping or sequence */
    const char **keys; /* a mapping's keys (scalars) */
    kw_ynode *items;   /* values, in document order */
    bool is_loc;       /* a mapping with file and line: loc holds it */
    kw_loc loc;
};

/* Parse YAML text (one document) into nodes in arena a. A plain "~", "null" or
 * empty scalar is a NULL node. Aliases are refused. */
kw_status kw_ynode_parse(kw_arena *a, const char *text, size_t len, kw_ynode **out, kw_err *err);

#endif
