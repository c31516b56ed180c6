/* expr_test.c: kwir-expr, the IR facts' expression grammar (docs/ir-facts.md)
 * through kwalk's one evaluator (model/kw_expr.c, exact mode), and the
 * pass's `$N` parameter renaming (passes/kw_ir_expr.c).
 *
 *   kwir-expr                         run the unit cases below
 *   kwir-expr EXPR [name=value ...]   print the value of EXPR (for
 *                                     check_invariants.py, which compares it
 *                                     with an independent Python evaluator) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/kw_expr.h"
#include "passes/kw_ir_facts.h"

/* "name=value" words (separated by blanks in one string, or one per argv
 * entry) into shape; false on a word without '='. */
static bool bind(kw_shape *shape, kw_arena *a, const char *word) {
    const char *eq = strchr(word, '=');
    if (!eq)
        return false;
    char *name = kw_arena_strndup(a, word, (size_t)(eq - word));
    return name && kw_shape_set(shape, a, name, atof(eq + 1), "test") == KW_OK;
}

static kw_status eval(const char *expr, const kw_shape *shape, double *value, kw_err *err) {
    kw_value v;
    kw_status st = kw_expr_eval(expr, shape, KW_EXPR_EXACT, &v, err);
    if (st == KW_OK && v.dims != 1)
        st = kw_fail(err, "a dim3 value");
    *value = v.v[0];
    return st;
}

static int failures;

static void expect_value(const char *expr, const char *vars, double want) {
    kw_arena a;
    kw_arena_init(&a);
    kw_shape shape = {{0}};
    char buf[512];
    snprintf(buf, sizeof buf, "%s", vars);
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " "))
        bind(&shape, &a, tok);
    kw_err err = {{0}};
    double got = NAN;
    if (eval(expr, &shape, &got, &err) != KW_OK || fabs(got - want) > 1e-9) {
        fprintf(stderr, "FAIL %s [%s]: got %g want %g (%s)\n", expr, vars, got, want,
                err.msg[0] ? err.msg : "ok");
        failures++;
    }
    kw_arena_free(&a);
}

static void expect_error(const char *expr) {
    kw_arena a;
    kw_arena_init(&a);
    kw_shape shape = {{0}};
    bind(&shape, &a, "n=4");
    kw_err err;
    double got;
    if (eval(expr, &shape, &got, &err) == KW_OK) {
        fprintf(stderr, "FAIL %s: accepted (value %g)\n", expr, got);
        failures++;
    }
    kw_arena_free(&a);
}

/* A condition with words bound by --shape's parser (kw_expr.h, kw_dtype.h):
 * want 1 or 0, or -1 for "not evaluated". */
static void expect_words(const char *expr, const char *shape_text, int want) {
    kw_arena a;
    kw_arena_init(&a);
    kw_shape shape = {{0}};
    kw_err err = {{0}};
    kw_value v;
    int got = -2;
    if (kw_shape_parse(&shape, &a, shape_text, &err) == KW_OK)
        got = kw_expr_eval(expr, &shape, KW_EXPR_C, &v, &err) == KW_OK ? v.v[0] != 0 : -1;
    if (got != want) {
        fprintf(stderr, "FAIL %s [%s]: got %d want %d (%s)\n", expr, shape_text, got, want,
                err.msg[0] ? err.msg : "ok");
        failures++;
    }
    kw_arena_free(&a);
}

/* Conditions with words bound by --shape's parser: {condition, shape, want},
 * want 1 or 0, or -1 for "not evaluated" (expect_words). */
static const struct {
    const char *expr, *shape;
    int want;
} word_cases[] = {
    {"out.dtype() == AITER_DTYPE_bf16", "dtype=bf16", 1},
    {"out.dtype() == AITER_DTYPE_bf16", "dtype=bfloat16", 1},
    {"out.dtype() == AITER_DTYPE_bf16", "out.dtype=__hip_bfloat16", 1},
    {"out.dtype() == AITER_DTYPE_bf16", "in.dtype=bf16", -1},
    {"out.dtype() == AITER_DTYPE_bf16", "dtype=fp16", 0},
    {"!(out.dtype() == AITER_DTYPE_bf16)", "dtype=bf16", 0},
    {"out.dtype() != AITER_DTYPE_fp32", "dtype=float", 0},
    {"out.dtype() == AITER_DTYPE_bf16", "dtype=bf17", -1},
    {"out.dtype() == AITER_DTYPE_bf16", "dtype=bf16,AITER_DTYPE_bf16=3", 1},
    {"input.scalar_type() == at::ScalarType::BFloat16", "dtype=BFloat16", 1},
    {"dtype == torch.bfloat16", "dtype=bf16", 1},
    {"dtype == torch.float16", "dtype=half", 1},
    {"x.dtype() == AITER_DTYPE_fp8", "dtype=fp8_e4m3fnuz", -1},
    {"x.dtype() == AITER_DTYPE_fp8", "dtype=bf16", 0},
    {"x.dtype() == AITER_DTYPE_fp8", "dtype=fp8", 1},
    {"kv_cache_dtype == \"auto\"", "kv_cache_dtype=auto", 1},
    {"kv_cache_dtype == \"auto\"", "kv_cache_dtype=fp8", 0},
    {"q == \"fp8\" || q == \"fp8_e4m3\"", "q=fp8_e4m3", 1},
    {"q == \"fp8\"", "q=bfloat16", 0},
    {"(dtype) == 2", "dtype=bf16", -1},
    {"(dtype) == 2", "dtype=2", 1},
    {"dtype + 1 > 0", "dtype=bf16", -1},
    {"n == AITER_DTYPE_bf16", "n=3", -1},
    {"half > 0", "n=3", -1},
};

static void expect_rename(const char *expr, const char *want) {
    kw_arena a;
    kw_arena_init(&a);
    const char *names[] = {"input", NULL, "hidden"};
    const char *got = kw_ir_expr_rename(&a, expr, names, 3);
    if (!got || strcmp(got, want)) {
        fprintf(stderr, "FAIL rename %s: got %s want %s\n", expr, got ? got : "(null)", want);
        failures++;
    }
    kw_arena_free(&a);
}

static int eval_cli(int argc, char **argv) {
    kw_arena a;
    kw_arena_init(&a);
    kw_shape shape = {{0}};
    for (int i = 2; i < argc; i++)
        if (!bind(&shape, &a, argv[i])) {
            fprintf(stderr, "kwir-expr: expected name=value: %s\n", argv[i]);
            kw_arena_free(&a);
            return 2;
        }
    kw_err err;
    double v;
    int rc = 0;
    if (eval(argv[1], &shape, &v, &err) != KW_OK) {
        printf("error: %s\n", err.msg);
        rc = 1;
    } else {
        printf("%.17g\n", v);
    }
    kw_arena_free(&a);
    return rc;
}

int main(int argc, char **argv) {
    if (argc > 1)
        return eval_cli(argc, argv);
    expect_value("1 + 2*3", "", 7);
    expect_value("(1 + 2)*3", "", 9);
    expect_value("-4 + 10", "", 6);
    expect_value("7/2", "", 3.5);
    expect_value("ceil(7/2)", "", 4);
    expect_value("floor(7/2)", "", 3);
    expect_value("floor(-7/2)", "", -4);
    expect_value("ceil((vocab - threadIdx.x)/1024)", "vocab=32000 threadIdx.x=5", 32);
    expect_value("ceil((vocab - threadIdx.x)/1024)", "vocab=32768 threadIdx.x=0", 32);
    expect_value("ceil((vocab - threadIdx.x)/1024)", "vocab=32769 threadIdx.x=0", 33);
    expect_value("max(a, b, 3)", "a=1 b=2", 3);
    expect_value("min(a, b)", "a=-1 b=2", -1);
    expect_value("in_stride*4", "in_stride=4096", 16384);
    expect_value("arg3*2 + loop1.trips", "arg3=5 loop1.trips=7", 17);
    expect_value("a - b - c", "a=10 b=3 c=2", 5);
    expect_value("a/b/c", "a=24 b=2 c=3", 4);
    expect_value("2*-x", "x=3", -6);
    expect_value("ceil(floor(n/3)/2)", "n=20", 3);
    expect_value("floor(log2(blockDim.x))", "blockDim.x=64", 6);
    expect_value("floor(log2(blockDim.x))", "blockDim.x=96", 6);
    expect_value("floor(log2(floor(n/2))) + 1", "n=1024", 10);
    expect_error("1 +");
    expect_error("foo(1)");
    expect_error("ceil(1, 2)");
    expect_error("log2(0)");
    expect_error("log2(1, 2)");
    expect_error("max(1)");
    expect_error("n / 0");
    expect_error("unknown_name + 1");
    expect_error("(1");
    expect_error("1 2");
    expect_error("$");
    for (size_t i = 0; i < sizeof word_cases / sizeof word_cases[0]; i++)
        expect_words(word_cases[i].expr, word_cases[i].shape, word_cases[i].want);
    expect_rename("$0*4 + $2", "input*4 + hidden");
    expect_rename("$1 + $10", "arg1 + arg10");
    expect_rename("no params", "no params");
    if (failures)
        fprintf(stderr, "%d failure(s)\n", failures);
    else
        printf("kwir-expr: all cases pass\n");
    return failures ? 1 : 0;
}
