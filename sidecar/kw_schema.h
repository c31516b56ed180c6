/* kw_schema.h: the sidecar schema as data, and the one YAML writer and reader
 * that walk it. For the sidecar module's own .c files and for the modules that
 * store sidecar records in documents of their own (index/); the renderer and
 * the plugin use kw_sidecar.h.
 *
 * The YAML form of every struct in kw_sidecar.h is described once, by a table
 * of fields (kw_type / kw_field, defined in kw_sidecar.c). The writer
 * (kw_sidecar_emit.c), the reader (kw_sidecar_parse.c), the deep copy used by
 * the merge and the index (kw_sidecar.c) all walk the same tables, so the key
 * order, the omission rules and the types cannot disagree between them.
 *
 * Adding a member to a struct of kw_sidecar.h: add the member, add one row to
 * its table in kw_sidecar.c, document the key in docs/sidecar-schema.md (for
 * the IR facts of kw_sidecar_ir.h: kw_sidecar_ir.c and docs/ir-facts.md). */
#ifndef KW_SCHEMA_H
#define KW_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <yaml.h>

#include "sidecar/kw_sidecar.h"
#include "common/kw_symmap.h"
#include "sidecar/kw_yaml_emit.h"
#include "sidecar/kw_yaml_fast.h"

/* ---- Schema tables -------------------------------------------------------------------------- */

typedef enum kw_fkind {
    KW_F_STR,    /* const char *: a string; omitted when NULL */
    KW_F_INT,    /* int: always written */
    KW_F_BYTES,  /* long long: omitted when < 0; -1 when absent */
    KW_F_BOOL,   /* bool: always written */
    KW_F_LOC,    /* kw_loc: {file, line, column}; omitted when file is NULL */
    KW_F_STRS,   /* KW_ARRAY(const char *): a flow sequence of strings */
    KW_F_LIST,   /* KW_ARRAY(sub): a sequence of mappings; omitted when empty */
    KW_F_MAP,    /* an embedded struct of type sub, written as a mapping; omitted when all its
                    fields are */
    KW_F_KEYED,  /* KW_ARRAY(sub): a mapping keyed by the element's first field (a string), the
                    value being the mapping of the element's other fields */
    KW_F_DIM3,   /* kw_config_item: {expr, value: [x, y, z]} */
    KW_F_DIM1,   /* kw_config_item: {expr, value: N} */
    KW_F_COUNTS, /* KW_ARRAY(kw_count): a flow mapping of string keys to integers,
                    {salu: 12, valu: 30}; omitted when empty */
    KW_F_SCALAR, /* const char *: the text of any scalar, for values that are a number or a
                    word or an expression (16, unknown, "ceil(n / 512)"); written plain when
                    it is a decimal integer, else as a string; omitted when NULL */
    KW_F_LL,     /* long long: always written; a negative value as `unknown` (KW_F_UNKNOWN) or
                    `null` (KW_F_NULL) when flagged; -1 when absent */
    KW_F_TRI,    /* int: -1 `unknown`, 0 false, 1 true; always written */
    KW_F_VAL,    /* kw_val: a number, an expression (a string), or `unknown` followed by the
                    key `<key>_why` with the reason when there is one; omitted when absent */
    KW_F_INTS,   /* KW_ARRAY(long long): a flow sequence of integers; omitted when empty */
    KW_F_PTR,    /* a pointer to a struct of type sub, written as its mapping; omitted when
                    NULL */
} kw_fkind;

enum {
    KW_F_ALWAYS = 1u,   /* written even when empty (lists: as []) */
    KW_F_REQUIRED = 2u, /* a string that must be present (reader and writer check) */
    KW_F_IF_TRUE = 4u,  /* a bool written only when true (absent reads as false) */
    KW_F_QUOTED = 8u, /* STR, STRS: double-quoted unless a simple word ([A-Za-z_/][A-Za-z0-9_./+-]*,
                         not true/false/null/yes/no/on/off), NULL as `null`: the IR facts' style */
    KW_F_BLOCK = 16u, /* STRS: a block sequence */
    KW_F_FLOW = 32u,  /* LIST: a flow sequence */
    KW_F_HEX = 64u,   /* BYTES: written as 0x... */
    KW_F_UNKNOWN = 128u, /* LL: a negative value is `unknown` */
    KW_F_NULL = 256u,    /* LL: a negative value is `null` */
    KW_F_POS = 512u      /* LL in a LIST's record: the record's position in its list; not
                            written (kwalk_schema 3), read as the position when absent */
};

typedef struct kw_type kw_type;

typedef struct kw_field {
    const char *key;
    kw_fkind kind;
    size_t off;         /* offset of the member in the struct */
    const kw_type *sub; /* element or embedded type for LIST, MAP, KEYED, PTR */
    unsigned flags;
    /* NULL, or when the writer writes the field at all, by a sibling field of
     * the same record: "kind=a|b" (a string field is one of the words),
     * "space!=a|b" (is none of them), "row_mask" (that field is written). */
    const char *when;
} kw_field;

struct kw_type {
    const char *what; /* used in messages: "kernel" */
    size_t size;      /* sizeof the struct (array element size) */
    bool flow;        /* written as a flow mapping {a: 1, b: 2} */
    const kw_field *fields;
    size_t nfields;   /* at most 64 */
};

/* The generic view of any KW_ARRAY(T): same layout for every T. */
typedef struct kw_anyarr {
    void *v;
    size_t n, cap;
} kw_anyarr;

#define KW_N(a) (sizeof(a) / sizeof((a)[0]))
/* Define a kw_type named var for struct T from the field table rows. */
#define KW_TYPE(var, what_, T, flow_, rows)                                                        \
    const kw_type var = {what_, sizeof(T), flow_, rows, KW_N(rows)}

extern const kw_type kw_t_kernel, kw_t_kernel_arch, kw_t_launch, kw_t_entry, kw_t_host_call;
extern const kw_type kw_t_producer, kw_t_tu, kw_t_sidecar;
extern const kw_type kw_t_irf;      /* the IR facts (kw_sidecar_ir.c) */
extern const kw_type kw_t_irf_list; /* kw_irf_emit_list's document */
extern const kw_type kw_t_triton; /* a Triton specialization's facts */

/* Deep-copy src (of type t) into dst, every string and array into arena a.
 * dst may be a fresh zeroed slot. Returns KW_ERR only when out of memory. */
kw_status kw_schema_copy(kw_arena *a, const kw_type *t, void *dst, const void *src);
/* Call fn on every source location (KW_F_LOC field) of obj, of type t, at any
 * depth (records, lists, keyed maps, pointed-to records). */
void kw_schema_each_loc(const kw_type *t, void *obj, void (*fn)(void *ctx, kw_loc *l), void *ctx);
/* Element size of an array field (STRS, LIST, KEYED, COUNTS). */
size_t kw_schema_elem_size(const kw_field *f);
/* Is field f of the record of type t at base present (would the writer write it)? */
bool kw_schema_present(const kw_type *t, const kw_field *f, const void *base);
/* Set the defaults of a fresh zeroed struct of type t (bytes = -1, ...). */
void kw_schema_defaults(const kw_type *t, void *obj);
/* Reset what the writer would not write (a field whose `when` does not hold,
 * a reason of a known value, a negative "unknown"/"null" count other than
 * -1) to the value read when it is absent, so that what was read (YAML or
 * packed) writes and reads back as the same record. */
void kw_schema_normalize(const kw_type *t, void *obj);

/* ---- Merge (kw_sidecar_merge.c) ------------------------------------------------------------- */

/* Merge kernel k into kernels (a KW_ARRAY(kw_kernel) in arena a) whose
 * symbols are indexed by map: a kernel of the same symbol gains k's archs it
 * lacks, otherwise k is appended. The appended records are deep copies, or
 * with adopt shallow ones (k's memory must then already belong to a).
 * k->symbol must be set. */
kw_status kw_sidecar_merge_kernel(kw_arena *a, kw_anyarr *kernels, kw_symmap *map,
                                  const kw_kernel *k, bool adopt, kw_err *err);

/* ---- Writer (kw_sidecar_emit.c) ------------------------------------------------------------- */

/* Write fields of t found in obj (a key/value pair each, in table order). */
void kw_sidecar_emit_fields(kw_yaml_emitter *e, const kw_type *t, const void *obj);

/* ---- Reader (kw_sidecar_parse.c) ------------------------------------------------------------ */

enum { KW_SIDECAR_PARSE_MAXDEPTH = 32 };

/* An alias being read: the next event of its anchored node, and the end. */
typedef struct kw_sidecar_replay {
    size_t pos, end;
} kw_sidecar_replay;
/* libyaml path: an anchored collection not yet ended, at collection depth. */
typedef struct kw_sidecar_open {
    unsigned anchor;
    size_t depth;
} kw_sidecar_open;

typedef struct kw_sidecar_parser {
    yaml_parser_t parser;
    yaml_event_t ev; /* the current event, valid when have is true */
    bool have;
    bool fast; /* events come from kw_yaml_fast.h (fy), not from parser */
    kw_yaml_fast_doc fy;       /* the events: all of them (fast), or those read so far (libyaml) */
    size_t fy_next;            /* the next event of fy */
    size_t items;              /* a sequence start's item count (the fast reader's), else 0 */
    kw_sidecar_replay *replay; /* the aliases being read, innermost last */
    size_t nreplay, creplay;
    size_t replayed; /* events read through aliases, capped (kw_sidecar_parse.c) */
    kw_sidecar_open *open;
    size_t nopen, copen, cdepth;
    const char *name; /* the file name, for messages */
    const char *text; /* the input, to turn byte offsets into lines */
    size_t len;
    kw_arena *arena;
    kw_err *err;
    int depth; /* the path to the node being read, for messages */
    struct {
        const char *key; /* NULL for a sequence index */
        size_t idx;
    } path[KW_SIDECAR_PARSE_MAXDEPTH];
} kw_sidecar_parser;

/* Start reading: the document must be a mapping; on success the next call is
 * kw_sidecar_parse_next_key. */
kw_status kw_sidecar_parse_begin(kw_sidecar_parser *p, const char *name, const char *text,
                                 size_t len, kw_arena *a, kw_err *err);
/* The same, reading with the fast reader when fast is set and the text is
 * within its subset (p->fast tells). A document read that way that fails
 * must be read again without it, so that messages are libyaml's. */
kw_status kw_sidecar_parse_begin_mode(kw_sidecar_parser *p, const char *name, const char *text,
                                      size_t len, kw_arena *a, bool fast, kw_err *err);
/* Read a document into obj with read(): first with the fast reader, and
 * again without it when that reading fails. read() sets *used_fast to p->fast
 * of its kw_sidecar_parse_begin_mode. */
typedef kw_status (*kw_sidecar_parse_reader)(void *obj, const char *name, const char *text,
                                             size_t len, bool fast, bool *used_fast, kw_err *err);
kw_status kw_sidecar_parse_read(kw_sidecar_parse_reader read, void *obj, const char *name,
                                const char *text, size_t len, kw_err *err);
/* Finish: the top-level mapping ended; check the "..." end marker and that a
 * single document was given. */
kw_status kw_sidecar_parse_end(kw_sidecar_parser *p);
void kw_sidecar_parse_free(kw_sidecar_parser *p);
/* Next key of the current mapping: *key is NULL at the mapping's end (which is
 * consumed). The key is valid until the next call into the reader. */
kw_status kw_sidecar_parse_next_key(kw_sidecar_parser *p, const char **key);
/* Read the value of the key just returned, as field f of type t in obj, or
 * skip it when f is NULL. *seen tracks duplicate keys (bit per field). */
kw_status kw_sidecar_parse_field(kw_sidecar_parser *p, const kw_type *t, void *obj, const char *key,
                                 uint64_t *seen);
/* Read an integer value for key. */
kw_status kw_sidecar_parse_int(kw_sidecar_parser *p, const char *key, long long *v);
/* Read a whole sidecar or index file (kw_fs_read_as, KW_FS_DATA). */
kw_status kw_sidecar_read_text(const char *path, char **text, size_t *len, kw_err *err);
/* Fail with "<name>: line N: <path>: <message>" at the current event. */
kw_status kw_sidecar_parse_fail(kw_sidecar_parser *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
