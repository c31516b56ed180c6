/* kw_trace.h: profiler kernel traces for `kwalk trace`: the dispatches of a
 * rocprofv3 kernel trace (CSV, `--kernel-trace --output-format csv`, or its
 * JSON form, `--output-format json`), and the join of each dispatch's kernel
 * name to a kernel instantiation of the kwalk index.
 *
 * CSV (kw_trace_csv.c): RFC 4180 (quoted fields, "" inside quotes, CRLF or LF,
 * line breaks inside quotes); the first record is the header, columns are
 * found by name, in any order. Read: Kernel_Name, Start_Timestamp and
 * End_Timestamp (ns; required), Workgroup_Size_X/Y/Z, Grid_Size_X/Y/Z (work
 * items; optional, as a set of three), Kind (rows of another kind than
 * KERNEL_DISPATCH are skipped). Other columns are ignored.
 *
 * JSON (kw_trace_json.c): {"rocprofiler-sdk-tool": [{"agents": [...],
 * "kernel_symbols": [...], "buffer_records": {"kernel_dispatch": [...]}}]}:
 * each dispatch's dispatch_info.kernel_id names a kernel symbol (its
 * kernel_name, the mangled symbol, is preferred; ".kd" stripped), its
 * grid_size / workgroup_size {x, y, z}, and its agent, whose name is the arch.
 *
 * Errors are one line naming the file and the place ("t.csv: line 4: ...",
 * "t.json: offset 812: ..."). */
#ifndef KW_TRACE_H
#define KW_TRACE_H

#include <stdbool.h>
#include <stddef.h>

#include "kw_arena.h"
#include "kw_err.h"
#include "kw_index.h"

typedef struct kw_dispatch {
    const char *name;   /* the kernel's name as the trace gives it */
    long long start_ns; /* Start_Timestamp */
    long long end_ns;   /* End_Timestamp (>= start_ns) */
    bool has_config;    /* grid and block known */
    long long grid[3];  /* Grid_Size_X/Y/Z: work items */
    long long block[3]; /* Workgroup_Size_X/Y/Z */
    const char *arch;   /* the agent's arch ("gfx942") when the trace says; NULL otherwise */
    long line;          /* CSV line of the record, JSON dispatch index (1-based): for messages */
} kw_dispatch;

typedef struct kw_trace {
    kw_arena arena;
    const char *path;
    const char *format; /* "csv" or "json" */
    KW_ARRAY(kw_dispatch) d;
    long skipped; /* CSV rows of another Kind */
} kw_trace;

void kw_trace_init(kw_trace *t);
void kw_trace_free(kw_trace *t);

/* Read a trace file; the form is told by its first non-blank byte ('{' or '['
 * is JSON, anything else CSV). t must be initialized; on failure err holds one
 * line starting with path. */
kw_status kw_trace_read_file(kw_trace *t, const char *path, kw_err *err);
/* The two readers on text in memory (text[len] must be '\0'); name is used in
 * messages. */
kw_status kw_trace_parse_csv(kw_trace *t, const char *name, const char *text, size_t len,
                             kw_err *err);
kw_status kw_trace_parse_json(kw_trace *t, const char *name, const char *text, size_t len,
                              kw_err *err);

/* ---- The join (kw_trace_join.c) ---- */

/* How a trace name was matched. */
typedef enum kw_match_kind {
    KW_MATCH_NONE = 0,
    KW_MATCH_SYMBOL,    /* equal to the device symbol (rocprofv3 --mangled-kernels, JSON) */
    KW_MATCH_DEMANGLED, /* equal to the demangled symbol (rocprofv3's default) */
    KW_MATCH_NAME,      /* equal to the name kwalk printed (template arguments as Clang prints them) */
    KW_MATCH_PREFIX,    /* a truncated name: a prefix of one of the three */
    KW_MATCH_BASE,      /* the unqualified name without template arguments (--truncate-kernels) */
} kw_match_kind;

const char *kw_match_kind_name(kw_match_kind k); /* "symbol", "demangled", ... */

/* One kernel the index knows (a device record, or only a launch of it). */
typedef struct kw_tkernel {
    const char *symbol;
    const char *name;      /* printed name; NULL if unknown */
    const char *demangled; /* the C++ runtime's demangling of symbol; NULL if none */
    const char *base;      /* unqualified name without template arguments or parameters */
    const kw_kernel *k;    /* NULL when the index only has a launch of it */
} kw_tkernel;

typedef struct kw_tjoin {
    kw_arena arena;
    KW_ARRAY(kw_tkernel) kernels;
    bool have_demangler; /* __cxa_demangle was found */
} kw_tjoin;

/* The result of matching one trace name. */
typedef struct kw_tmatch {
    kw_match_kind kind;   /* NONE: not in the index */
    size_t n;             /* candidates (1: matched; more: ambiguous) */
    const size_t *cand;   /* indices into kernels, valid as long as the join */
} kw_tmatch;

kw_status kw_tjoin_init(kw_tjoin *j, const kw_index *ix, kw_err *err);
void kw_tjoin_free(kw_tjoin *j);
/* Match a trace name: exact symbol, demangled or printed name (with or without
 * a leading return type "void "; a ".kd" suffix ignored) first; then, for a
 * name that may have been cut ("..." at the end is ignored), the kernels it is
 * a prefix of; then the base name. The first rule that finds any candidate
 * decides; several candidates are an ambiguity the caller reports. */
kw_status kw_tjoin_match(kw_tjoin *j, const char *name, kw_tmatch *out, kw_err *err);

/* rocprofv3's truncated name of a demangled (or printed) name: the last
 * unqualified name before the trailing (...), <...> and [...] groups:
 * "void ns::k<float, 256>(float*, int)" -> "k". Into arena; NULL on OOM. */
char *kw_trace_base_name(kw_arena *arena, const char *name);

#endif
