/* expr_test.c: kwir-expr, the expression grammar of the IR facts (passes/
 * kw_ir_expr.c) on its own.
 *
 *   kwir-expr                         run the unit cases below
 *   kwir-expr EXPR [name=value ...]   print the value of EXPR (for
 *                                     check_invariants.py, which compares it
 *                                     with an independent Python evaluator) */
#include "passes/kw_ir_facts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct binding {
    const char *name;
    double value;
} binding;

typedef struct bindings {
    binding v[64];
    int n;
} bindings;

static int lookup(void *ctx, const char *name, size_t len, double *value) {
    const bindings *b = ctx;
    for (int i = 0; i < b->n; i++)
        if (strlen(b->v[i].name) == len && !memcmp(b->v[i].name, name, len)) {
            *value = b->v[i].value;
            return 1;
        }
    return 0;
}

static int failures;

static void expect_value(const char *expr, const char *vars, double want) {
    bindings b = {.n = 0};
    char buf[512];
    snprintf(buf, sizeof buf, "%s", vars);
    for (char *tok = strtok(buf, " "); tok && b.n < 64; tok = strtok(NULL, " ")) {
        char *eq = strchr(tok, '=');
        *eq = 0;
        b.v[b.n].name = tok; /* points into buf, alive until we return */
        b.v[b.n].value = atof(eq + 1);
        b.n++;
    }
    kw_err err;
    double got = NAN;
    if (kw_ir_expr_eval(expr, lookup, &b, &got, &err) != KW_OK || fabs(got - want) > 1e-9) {
        fprintf(stderr, "FAIL %s [%s]: got %g want %g (%s)\n", expr, vars, got, want,
                kw_ir_expr_eval(expr, lookup, &b, &got, &err) ? err.msg : "ok");
        failures++;
    }
}

static void expect_error(const char *expr) {
    bindings b = {.n = 1, .v = {{"n", 4}}};
    kw_err err;
    double got;
    if (kw_ir_expr_eval(expr, lookup, &b, &got, &err) == KW_OK) {
        fprintf(stderr, "FAIL %s: accepted (value %g)\n", expr, got);
        failures++;
    }
}

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
    bindings b = {.n = 0};
    for (int i = 2; i < argc && b.n < 64; i++) {
        char *eq = strchr(argv[i], '=');
        if (!eq) {
            fprintf(stderr, "kwir-expr: expected name=value: %s\n", argv[i]);
            return 2;
        }
        *eq = 0;
        b.v[b.n].name = argv[i];
        b.v[b.n].value = atof(eq + 1);
        b.n++;
    }
    kw_err err;
    double v;
    if (kw_ir_expr_eval(argv[1], lookup, &b, &v, &err) != KW_OK) {
        printf("error: %s\n", err.msg);
        return 1;
    }
    printf("%.17g\n", v);
    return 0;
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
    expect_value("$3*2 + loop1.trips", "$3=5 loop1.trips=7", 17);
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
    kw_err err;
    if (kw_ir_expr_check("ceil((anything - x)/y) + max(a, b)", &err) != KW_OK) {
        fprintf(stderr, "FAIL check: %s\n", err.msg);
        failures++;
    }
    expect_rename("$0*4 + $2", "input*4 + hidden");
    expect_rename("$1 + $10", "arg1 + arg10");
    expect_rename("no params", "no params");
    if (failures)
        fprintf(stderr, "%d failure(s)\n", failures);
    else
        printf("kwir-expr: all cases pass\n");
    return failures ? 1 : 0;
}
