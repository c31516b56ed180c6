/* kw_reflect.h: read a value of a sidecar record by its YAML key path
 * ("resources.vgpr"), through the same schema tables that drive the writer
 * and the reader (kw_sidecar.c). The IR facts (kw_sidecar_ir.h) are not read
 * this way: the kwalk command reads their structs.
 *
 * Why: the kwalk command renders facts that other layers add to the records
 * (ISA facts inside kernels[].archs.<arch>) without naming their struct
 * members. When a layer adds a row to a table, the value becomes
 * readable here under its key, with no change to the reader's code; until
 * then a lookup says the key is unknown to this build, which the renderer
 * reports plainly ("ISA not captured ...").
 *
 * A kw_rv is a small value (no allocation): copy it freely. Views stay valid
 * as long as the record they point into. */
#ifndef KW_REFLECT_H
#define KW_REFLECT_H

#include <stdbool.h>
#include <stddef.h>

#include "sidecar/kw_sidecar.h"

typedef enum kw_rkind {
    KW_R_UNKNOWN_KEY = 0, /* the tables of this kwalk build have no such key */
    KW_R_ABSENT,          /* the key exists, its value is absent in this record */
    KW_R_STR,             /* a string (also a scalar of kind KW_F_SCALAR) */
    KW_R_INT,             /* an integer (int, byte count) */
    KW_R_BOOL,
    KW_R_LOC,             /* a kw_loc */
    KW_R_STRS,            /* a list of strings */
    KW_R_LIST,            /* a list of records */
    KW_R_RECORD,          /* one record (a mapping): look into it with kw_rv_get */
    KW_R_COUNTS,          /* a map of counts (kw_count) */
    KW_R_DIM,             /* a launch configuration operand (kw_config_item) */
} kw_rkind;

typedef struct kw_rv {
    kw_rkind kind;
    const void *type; /* KW_R_RECORD, KW_R_LIST: the record type (internal) */
    const void *ptr;  /* the value's storage (the record for KW_R_RECORD) */
    bool scalar;      /* KW_R_STR from a KW_F_SCALAR field */
    bool narrow;      /* KW_R_INT stored as an int (else a long long) */
} kw_rv;

/* Views of whole records. */
kw_rv kw_rv_kernel(const kw_kernel *k);
kw_rv kw_rv_kernel_arch(const kw_kernel_arch *a);
kw_rv kw_rv_launch(const kw_launch *l);

/* The value at a dotted key path below a record ("resources.vgpr"). Each step
 * but the last must be a record. UNKNOWN_KEY when a step is not in the tables,
 * ABSENT when a step is absent. */
kw_rv kw_rv_get(kw_rv rec, const char *path);
/* Does the value exist (neither UNKNOWN_KEY nor ABSENT)? */
bool kw_rv_present(kw_rv v);

/* Typed reads; each returns false / NULL when v is not of that kind.
 * kw_rv_int also parses a STR holding a decimal integer (a KW_F_SCALAR). */
const char *kw_rv_str(kw_rv v);
bool kw_rv_int(kw_rv v, long long *out);
bool kw_rv_bool(kw_rv v, bool *out);
const kw_loc *kw_rv_loc(kw_rv v);
/* Any scalar as text: a string as is, an integer in decimal into buf, a bool as
 * "true"/"false"; NULL for anything else. */
const char *kw_rv_text(kw_rv v, char *buf, size_t n);

/* Elements of a LIST, STRS or COUNTS (0 otherwise). */
size_t kw_rv_len(kw_rv v);
/* Element i of a LIST, as a KW_R_RECORD (UNKNOWN_KEY when out of range). */
kw_rv kw_rv_at(kw_rv v, size_t i);
/* String i of a STRS (NULL when out of range). */
const char *kw_rv_str_at(kw_rv v, size_t i);
/* The counts of a COUNTS (NULL, *n = 0 otherwise). */
const kw_count *kw_rv_counts(kw_rv v, size_t *n);
/* The count of key in a COUNTS. */
bool kw_rv_count_of(kw_rv v, const char *key, long long *out);

/* The keys a RECORD's type knows, in table order: key i, or NULL past the end.
 * (For dumps and for "which facts does this build read".) */
const char *kw_rv_key_at(kw_rv rec, size_t i);
/* The value of the i-th key of a RECORD's type (ABSENT when absent). */
kw_rv kw_rv_field_at(kw_rv rec, size_t i);

#endif
