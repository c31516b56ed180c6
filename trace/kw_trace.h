/* kw_trace.h: profiler kernel traces for `kwalk trace`: the dispatches of a
 * rocprofv3 kernel trace (its default rocpd SQLite database, kw_trace_rocpd.c;
 * CSV, `--kernel-trace --output-format csv`; or its JSON form,
 * `--output-format json`), and the join of each dispatch's kernel name to a
 * kernel instantiation of the kwalk index.
 *
 * CSV (kw_trace_csv.c): RFC 4180 (quoted fields, "" inside quotes, CRLF or LF,
 * line breaks inside quotes); the first record is the header, columns are
 * found by name, in any order. Read: Kernel_Name, Start_Timestamp and
 * End_Timestamp (ns; required), Workgroup_Size_X/Y/Z, Grid_Size_X/Y/Z (work
 * items; optional, as a set of three), Kind (rows of another kind than
 * KERNEL_DISPATCH are skipped). Other columns are ignored.
 *
 * JSON (kw_trace_json.c, parsed by jansson): {"rocprofiler-sdk-tool": [{"agents": [...],
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

#include "common/kw_arena.h"
#include "common/kw_err.h"
#include "index/kw_index.h"
#include "codeobj/kw_names.h"
#include "model/kw_page_perf.h"
#include "model/kw_perf.h"
#include "common/kw_symmap.h"

typedef struct kw_dispatch {
    const char *name;   /* the kernel's name as the trace gives it */
    long long start_ns; /* Start_Timestamp */
    long long end_ns;   /* End_Timestamp (>= start_ns) */
    bool has_config;    /* grid and block known */
    long long grid[3];  /* Grid_Size_X/Y/Z: work items */
    long long block[3]; /* Workgroup_Size_X/Y/Z */
    const char *arch;   /* the agent's arch ("gfx942") when the trace says; NULL otherwise */
    long line; /* CSV line of the record, JSON dispatch index (1-based), rocpd row id: for messages
                */
} kw_dispatch;

typedef struct kw_trace {
    kw_arena arena;
    const char *path;
    const char *format; /* "csv", "json" or "rocpd" */
    KW_ARRAY(kw_dispatch) d;
    long skipped;    /* CSV rows of another Kind */
    long joined_sql; /* rocpd: dispatches whose kernel_name the index's symbols matched in SQL */
} kw_trace;

void kw_trace_init(kw_trace *t);
void kw_trace_free(kw_trace *t);

/* Read a trace file; the form is told by its content: an SQLite database
 * (the header "SQLite format 3\0") is rocpd, else the first non-blank byte
 * ('{' or '[' is JSON, anything else CSV). index_db: the kwalk index database
 * that a rocpd trace's dispatches are joined to in SQL (NULL, or a file that is
 * not an SQLite database: no join in SQL, the names go through the join's
 * rules alone). t must be initialized; on failure err holds one line starting
 * with path. */
kw_status kw_trace_read_file(kw_trace *t, const char *path, const char *index_db, kw_err *err);
/* Whether path starts as an SQLite database (a rocpd trace); false where it cannot
 * be read (kw_trace_read_file then says why). */
bool kw_trace_is_rocpd(const char *path);
/* The rocpd reader (kw_trace_rocpd.c) on its own. */
kw_status kw_trace_read_rocpd(kw_trace *t, const char *path, const char *index_db, kw_err *err);
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

/* ---- Per instantiation (kw_trace_stats.c): what `kwalk trace` reports and
 * `kwalk render --trace` shows in section 4 ---- */

/* One launch configuration seen: grid in workgroups (Grid_Size /
 * Workgroup_Size per dimension, rounded up) and workgroup size. */
typedef struct kw_tcfg {
    bool known;           /* the trace has grid and workgroup sizes */
    long long grid_wg[3]; /* workgroups per dimension (rounded up) */
    long long block[3];
    bool partial;            /* a grid size not a multiple of the workgroup size */
    KW_ARRAY(long long) dur; /* durations (ns), sorted */
    long long total;
    const char *arch; /* the dispatches' arch when the trace says (all the same), else NULL */
    bool mixed_arch;
} kw_tcfg;

/* A row of the report: one instantiation, or one ambiguous / unknown name. */
typedef struct kw_trow {
    const kw_tkernel *k;    /* NULL: ambiguous or not in the index */
    const char *trace_name; /* for those: the name as the trace gives it */
    kw_tmatch match;
    KW_ARRAY(const char *) names; /* the trace names that joined to k */
    KW_ARRAY(long long) dur;      /* durations (ns), sorted */
    long long total;
    KW_ARRAY(kw_tcfg) cfgs; /* in the order first seen */
} kw_trow;

/* Which group a row is in. */
typedef enum kw_trow_group {
    KW_TROW_JOINED = 0,    /* one instantiation */
    KW_TROW_AMBIGUOUS = 1, /* a name matching several instantiations */
    KW_TROW_UNKNOWN = 2,   /* a name not in the index */
} kw_trow_group;

typedef struct kw_tstats {
    kw_arena arena;
    const kw_trace *trace;
    const kw_tjoin *join;
    KW_ARRAY(kw_trow)
    rows;                    /* instantiations by total time (longest first), then ambiguous
                                names, then names not in the index; ties by name */
    kw_symmap row_of_kernel; /* symbol -> index into rows */
} kw_tstats;

void kw_tstats_init(kw_tstats *s);
void kw_tstats_free(kw_tstats *s);
/* Join every dispatch of t through j and gather the rows. t and j must
 * outlive s. */
kw_status kw_tstats_build(kw_tstats *s, const kw_trace *t, kw_tjoin *j, kw_err *err);
/* The row of the instantiation with this symbol, or NULL when the trace has
 * no dispatch joined to it. */
const kw_trow *kw_tstats_kernel(const kw_tstats *s, const char *symbol);
/* Is the instantiation with this symbol a candidate of ambiguous row r? */
bool kw_trow_has_candidate(const kw_tstats *s, const kw_trow *r, const char *symbol);
kw_trow_group kw_trow_group_of(const kw_trow *r);
/* Median of sorted values: the middle one, or the mean of the two middle ones. */
double kw_trace_median(const long long *v, size_t n);

/* A trace read, joined to an index and gathered in one step (`kwalk render
 * --trace`). ix (read from the file index_db) must outlive it. On failure err holds one line (the
 * trace's own message names the file); kw_trace_loaded_free is needed either way. */
typedef struct kw_trace_loaded {
    kw_trace trace;
    kw_tjoin join;
    kw_tstats stats;
} kw_trace_loaded;
kw_status kw_trace_load(kw_trace_loaded *t, const char *path, const kw_index *ix,
                        const char *index_db, kw_err *err);
void kw_trace_loaded_free(kw_trace_loaded *t);

/* The arch cfg's dispatches ran on: the trace's when it names one, else
 * fallback (the arch --gpu or --arch gives; may be NULL). */
const char *kw_tcfg_arch(const kw_tcfg *cfg, const char *fallback);

/* What the trace measured of the instantiation with this symbol, as the
 * page model reads it (model/kw_page_perf.h): the trace's file, its
 * dispatches joined to the instantiation with their durations, each launch
 * configuration's, and the ambiguous names it is a candidate of. In a (the
 * strings stay the statistics'); false when out of memory. */
bool kw_tstats_measured(const kw_tstats *s, const char *symbol, kw_arena *a,
                        kw_perf_measured *out);
/* The page model's source of what s measured (model/kw_page_perf.h): its
 * measured is kw_tstats_measured over s. */
kw_perf_source kw_tstats_source(const kw_tstats *s);
/* cfg's durations and place as the page model reads them. */
void kw_tcfg_measured(const kw_tcfg *cfg, kw_perf_mcfg *out);

#endif
