/* kw_triton_int.h: triton/'s internal pieces: the TTIR reader
 * (kw_triton_ttir.c) and the Python source reader (kw_triton_py.c) that the
 * cache reader (kw_triton_cache.c) joins into a kernel record. */
#ifndef KW_TRITON_INT_H
#define KW_TRITON_INT_H

#include <stdbool.h>

#include "common/kw_arena.h"
#include "common/kw_err.h"
#include "sidecar/kw_sidecar.h"
#include "triton/kw_triton.h"

typedef struct kw_ttir_arg {
    const char *name;
    const char *mlir_type; /* as the IR writes it: "!tt.ptr<f32>", "i32" */
} kw_ttir_arg;

/* A tt.make_range op: {start, end} and the source position it comes from. */
typedef struct kw_ttir_range {
    long long start, end;
    kw_loc loc; /* file NULL when the op's location is not a file position */
} kw_ttir_range;

/* An scf.for op: which of its bounds (start, end, step) are integer
 * constants of the function (`%c304_i32 = arith.constant 304 : i32`), their
 * values, and the op's own source position (its closing `} loc(...)`). */
typedef struct kw_ttir_loop {
    bool known[3];
    long long bound[3];
    kw_loc loc; /* file NULL when not a file position */
    const char *trips; /* its trip count as an expression (kw_ttrip_count); NULL: not known */
} kw_ttir_loop;

typedef struct kw_ttir {
    const char *func; /* the public tt.func's name */
    kw_loc def;       /* its location (the def line; column 0 as the IR writes it) */
    KW_ARRAY(kw_ttir_arg) args;
    KW_ARRAY(kw_ttir_range) ranges;
    KW_ARRAY(kw_ttir_loop) loops;
    KW_ARRAY(kw_loc) op_locs; /* every op's file position, in order */
    /* TTGIR only (a TTIR has none): the `#NAME = #ttg.KIND<{...}>` layouts
     * and the function's load, store, LDS and dot ops (kw_ttir_memop_ops) */
    KW_ARRAY(kw_triton_layout) layouts;
    KW_ARRAY(kw_triton_memop) memops;
} kw_ttir;

/* Read the public tt.func of a TTIR or TTGIR text (NAME.ttir, NAME.source,
 * NAME.ttgir): its name, location, arguments, make_range and scf.for ops, and with a
 * TTGIR its layouts and memory ops. Strings in a. Errors name `name`. */
kw_status kw_ttir_parse(kw_arena *a, const char *name, const char *text, kw_ttir *out, kw_err *err);

/* A scalar op's definition line of the function, `%NAME = OP ...`, kept
 * for kw_ttrip_count (kw_triton_trips.c). */
typedef struct kw_ttrip_def {
    const char *name; /* "%c32_i32", len bytes, not NUL-terminated */
    size_t len;
    const char *op, *eol; /* the op after " = ", the line's end */
} kw_ttrip_def;
typedef KW_ARRAY(kw_ttrip_def) kw_ttrip_defs;

/* Keep the trimmed function line [s, eol) when it defines a value by an
 * arith op or tt.get_program_id; KW_ERR only when out of memory. */
kw_status kw_ttrip_def_line(kw_arena *a, const char *s, const char *eol, kw_ttrip_defs *d);

/* The trip count of the `scf.for %iv = LB to UB step ST` at for_op (its
 * line ends at eol), from the definitions kept so far and ir's arguments:
 * an expression in C integer arithmetic over the function's arguments and
 * blockIdx.x/y/z ("(K + 31) / 32 - 1", "(n_rows - blockIdx.x + 304 - 1) /
 * 304"), a number when every bound is one; NULL when a bound is not such
 * an expression. Text in a. */
const char *kw_ttrip_count(kw_arena *a, const kw_ttrip_defs *defs, const kw_ttir *ir,
                           const char *for_op, const char *eol);

/* Triton's signature type for an MLIR argument type ("!tt.ptr<f32>" ->
 * "*fp32", "i32" -> "i32", "f8E4M3FNUZ" -> "fp8e4b8"); NULL when it has no
 * Triton name. Static strings or strings in a. */
const char *kw_ttir_triton_type(kw_arena *a, const char *mlir_type);

/* The tl.constexpr arguments of the Python function whose `def` is at line
 * def_line of text (a NUL-terminated source file), in order; false (and *why
 * set) when the def cannot be read there. */
typedef KW_ARRAY(const char *) kw_tpy_names;
bool kw_tpy_constexprs(kw_arena *a, const char *text, int def_line, kw_tpy_names *out,
                       const char **why);

/* The NAME of `tl.arange(0, NAME)` when line `line` of text holds exactly one
 * `tl.arange(` call and it is written so; NULL otherwise. */
const char *kw_tpy_arange_end(kw_arena *a, const char *text, int line);

/* The NAME written as the argument of the `range(...)` / `tl.range(...)` call
 * on line `line` of text that gives a loop's bound `which` (0 start, 1 end,
 * 2 step, by Python's positional rules: `range(end)`, `range(start, end)`,
 * `range(start, end, step)`), when the line holds exactly one such call and
 * that argument is a bare identifier; NULL otherwise. */
const char *kw_tpy_range_arg(kw_arena *a, const char *text, int line, int which);

/* An `if NAME:` statement of the function whose def is at def_line: its
 * line and the line ranges of its body and of its `else:` body (0, 0 when
 * it has none). Statements with an `elif` are left out. */
typedef struct kw_tpy_if {
    int if_line;
    int then_first, then_last;
    int else_first, else_last;
} kw_tpy_if;
typedef KW_ARRAY(kw_tpy_if) kw_tpy_ifs;
bool kw_tpy_if_statements(kw_arena *a, const char *text, int def_line, const char *name,
                          kw_tpy_ifs *out);

/* The IR facts of kernel k (its first arch; k->triton set) from the cache
 * folder's NAME.llir through o->irfacts, parameters named by ir's arguments
 * (paths as the .llir has them); when there are none, k->triton->ir_note says
 * why. KW_ERR only when out of memory (kw_triton_llir.c). */
kw_status kw_triton_llir(kw_sidecar *sc, kw_kernel *k, const char *dir, const char *grp,
                         const kw_ttir *ir, const kw_triton_opts *o, kw_err *err);

#endif
