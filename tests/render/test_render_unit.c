/* test_render_unit.c: unit tests of the renderer's helpers, each against
 * values worked out by hand here: the expression evaluator and --shape
 * parsing, Markdown escaping, the source scanner (definition extent,
 * identifier uses, statement extent, local declarations) on a file written by
 * the test, the Python decorator scanner and its caller scan on files
 * written by the test, the sidecar's map-of-counts and scalar kinds, the
 * typed reads of the ISA facts (kw_isa_class_key / kw_isa_class_count,
 * checked against what the writer writes), and the sections that read ISA
 * and IR facts, fed with hand-built facts records. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "index/kw_index_int.h"
#include "kw_test.h"
#include "kw_test_tmp.h"
#include "model/kw_expr.h"
#include "model/kw_python_entries.h"
#include "model/kw_src.h"
#include "render/kw_md.h"
#include "render/kw_render.h"

static char kw_tmp[256];

static void kw_write(const char *rel, const char *text) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", kw_tmp, rel);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* ---- expressions ---------------------------------------------------------------------------- */

static double kw_eval(const char *text, const kw_shape *s, kw_expr_mode mode, bool *ok) {
    kw_value v;
    kw_err err;
    *ok = kw_expr_eval(text, s, mode, &v, &err) == KW_OK;
    return v.v[0];
}

static void test_expr(void) {
    kw_arena a;
    kw_arena_init(&a);
    kw_shape s;
    memset(&s, 0, sizeof s);
    kw_err err;
    CHECK(kw_shape_parse(&s, &a, "n=1000,num_rows=4096,x.y=2.5", &err) == KW_OK);
    CHECK(s.v.n == 3);
    bool ok;
    /* C mode: integer division as in the source; exact mode: real division */
    CHECK(kw_eval("(n + 255) / 256", &s, KW_EXPR_C, &ok) == 4 && ok);
    CHECK(fabs(kw_eval("(n + 255) / 256", &s, KW_EXPR_EXACT, &ok) - 1255.0 / 256) < 1e-12 && ok);
    CHECK(kw_eval("ceil(n / 512)", &s, KW_EXPR_EXACT, &ok) == 2 && ok);
    CHECK(kw_eval("min(n, 7) * max(2, 3)", &s, KW_EXPR_C, &ok) == 21 && ok);
    /* the IR facts' grammar: n-ary min/max, log2 (an LDS tree's steps) */
    CHECK(kw_eval("max(1, n, 3) + min(9, 8, 7)", &s, KW_EXPR_EXACT, &ok) == 1007 && ok);
    CHECK(kw_eval("floor(log2(n / 4))", &s, KW_EXPR_EXACT, &ok) == 7 && ok);
    CHECK(kw_eval("floor(log2(1024))", &s, KW_EXPR_EXACT, &ok) == 10 && ok);
    kw_eval("log2(0)", &s, KW_EXPR_EXACT, &ok);
    CHECK(!ok);
    CHECK(kw_eval("a.num_rows", &s, KW_EXPR_C, &ok) == 4096 && ok);    /* suffix after '.' */
    CHECK(kw_eval("args->num_rows", &s, KW_EXPR_C, &ok) == 4096 && ok); /* after '->' */
    CHECK(kw_eval("x.y * 2", &s, KW_EXPR_C, &ok) == 5 && ok);
    CHECK(kw_eval("n <= 1024 && n > 999", &s, KW_EXPR_C, &ok) == 1 && ok);
    CHECK(kw_eval("!(n == 1000) || n != 1000", &s, KW_EXPR_C, &ok) == 0 && ok);
    CHECK(kw_eval("n > 10 ? 1 : 2", &s, KW_EXPR_C, &ok) == 1 && ok);
    CHECK(kw_eval("static_cast<int>(x.y)", &s, KW_EXPR_C, &ok) == 2 && ok);
    CHECK(kw_eval("0x10 + 1u", &s, KW_EXPR_C, &ok) == 17 && ok);
    CHECK(kw_eval("-n % 7", &s, KW_EXPR_C, &ok) == fmod(-1000, 7) && ok);
    kw_value v;
    CHECK(kw_expr_eval("dim3(num_rows, 8)", &s, KW_EXPR_C, &v, &err) == KW_OK);
    CHECK(v.dims == 3 && v.v[0] == 4096 && v.v[1] == 8 && v.v[2] == 1);
    CHECK(kw_expr_eval("dim3(a.num_rows / 2)", &s, KW_EXPR_C, &v, &err) == KW_OK);
    CHECK(v.dims == 3 && v.v[0] == 2048 && v.v[1] == 1);
    /* failures say why */
    CHECK(kw_expr_eval("hidden + 1", &s, KW_EXPR_C, &v, &err) == KW_ERR);
    CHECK(strstr(err.msg, "unknown name 'hidden'") != NULL);
    CHECK(kw_expr_eval("n / (n - 1000)", &s, KW_EXPR_C, &v, &err) == KW_ERR);
    CHECK(strstr(err.msg, "division by zero") != NULL);
    CHECK(kw_expr_eval("n +", &s, KW_EXPR_C, &v, &err) == KW_ERR);
    CHECK(kw_expr_eval("foo(n)", &s, KW_EXPR_C, &v, &err) == KW_ERR);
    CHECK(strstr(err.msg, "foo") != NULL);
    CHECK(kw_expr_eval("n n", &s, KW_EXPR_C, &v, &err) == KW_ERR);
    /* --shape syntax */
    static const char *const bad[] = {"x", "a=", "=3", "a=1,", "a=1b", "a=b c", "1a=2", "a=1;b=2", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        kw_shape t;
        memset(&t, 0, sizeof t);
        CHECK(kw_shape_parse(&t, &a, bad[i], &err) == KW_ERR);
        CHECK(strstr(err.msg, "--shape") != NULL);
    }
    char buf[32];
    kw_num_value_to(buf, sizeof buf, 4096);
    CHECK_STR(buf, "4096");
    kw_num_value_to(buf, sizeof buf, 2.5);
    CHECK_STR(buf, "2.5");
    kw_arena_free(&a);
}

/* ---- Markdown ------------------------------------------------------------------------------- */

static void test_md(void) {
    kw_buf b;
    kw_buf_init(&b);
    kw_md_code(&b, "a`b", false);
    CHECK_STR(kw_buf_str(&b), "``a`b``");
    kw_buf_reset(&b);
    kw_md_code(&b, "`x`", false);
    CHECK_STR(kw_buf_str(&b), "`` `x` ``");
    kw_buf_reset(&b);
    kw_md_code(&b, "a || b\nc", true);
    CHECK_STR(kw_buf_str(&b), "`a \\|\\| b c`");
    kw_buf_reset(&b);
    kw_md_text(&b, "a_b <c> *d*", false);
    CHECK_STR(kw_buf_str(&b), "a\\_b \\<c\\> \\*d\\*");
    kw_buf_reset(&b);
    kw_md_fence(&b, "cpp", "x ``` y");
    CHECK_STR(kw_buf_str(&b), "````cpp\nx ``` y\n````\n\n");
    kw_buf_reset(&b);
    const char *lines[] = {"ab", "abcd"};
    kw_md_box(&b, 0, 2, lines);
    CHECK_STR(kw_buf_str(&b), "+------+\n| ab   |\n| abcd |\n+------+\n");
    kw_buf_free(&b);
}

/* ---- the source scanner ----------------------------------------------------------------------- */

static const char kw_src_text[] =
    "// a comment naming BlockSize\n"                      /* 1 */
    "#define X(BlockSize) BlockSize\n"                     /* 2 */
    "\n"                                                   /* 3 */
    "/// doc\n"                                            /* 4 */
    "template <typename T, int BlockSize,\n"               /* 5 */
    "          int Vec = (4 > 3) ? 4 : 2>\n"              /* 6 */
    "__global__ void __launch_bounds__(BlockSize)\n"       /* 7 */
    "my_kernel(T* out, int n) {\n"                         /* 8 */
    "  const char* s = \"BlockSize { in a string\";\n"     /* 9 */
    "  /* BlockSize in a comment } */\n"                   /* 10 */
    "  if (n > BlockSize) { out[0] = T(Vec); }\n"          /* 11 */
    "}\n"                                                  /* 12 */
    "\n"                                                   /* 13 */
    "void launch(int rows) {\n"                            /* 14 */
    "  dim3 grid(rows / 2, 3);\n"                          /* 15 */
    "  const int n = rows * 4;\n"                          /* 16 */
    "  my_kernel<float, 256><<<grid, 256>>>(\n"            /* 17 */
    "      nullptr,\n"                                     /* 18 */
    "      n);\n"                                          /* 19 */
    "}\n";                                                 /* 20 */

static void test_src(void) {
    kw_write("k.hip", kw_src_text);
    char path[512];
    snprintf(path, sizeof path, "%s/k.hip", kw_tmp);
    kw_srcs s;
    kw_srcs_init(&s);
    const kw_src_file *f = kw_src_get(&s, path);
    CHECK(f && f->ok && f->nlines == 20);
    const char *t;
    size_t len;
    CHECK(kw_src_line(f, 8, &t, &len) && len == strlen("my_kernel(T* out, int n) {"));
    CHECK(!kw_src_line(f, 21, &t, &len));
    kw_src_def d;
    CHECK(kw_src_def_range(f, 8, 1, &d));
    CHECK(d.first == 5 && d.body_open == 8 && d.last == 12);
    CHECK(d.uses_line == 6); /* after the '>' closing the template parameter list */
    int lines[8];
    /* uses in code only: not the #define, the comment or the string */
    size_t n = kw_src_uses(f, d.uses_line, d.uses_col, d.last, "BlockSize", lines, 8);
    CHECK(n == 2 && lines[0] == 7 && lines[1] == 11);
    n = kw_src_uses(f, d.uses_line, d.uses_col, d.last, "Vec", lines, 8);
    CHECK(n == 1 && lines[0] == 11); /* its declaration on line 6 is before uses_col */
    CHECK(kw_src_line_has(f, 17, "my_kernel", false));
    CHECK(!kw_src_line_has(f, 17, "my_kern", false));
    CHECK(kw_src_line_has(f, 17, "my_kern", true));
    CHECK(kw_src_stmt_end(f, 17, 3, 30) == 19);
    const kw_src_file *missing = kw_src_get(&s, "/nonexistent/kwalk/x.hip");
    CHECK(missing && !missing->ok && missing->why);
    kw_srcs_free(&s);
}

/* ---- Python ops ------------------------------------------------------------------------------- */

static const char kw_rules[] = "stack aiter\n"
                               "decorator compile_ops\n"
                               "module 0 _md_name,module\n"
                               "function 1 fc_name\n"
                               "ffi - ffi_type pybind\n"
                               "bind pybind pybind\n"
                               "bind ctypes extern_c\n";

static const char kw_py_a[] =
    "from aiter.jit.core import compile_ops\n"                   /* 1 */
    "NAME = 'x'\n"                                               /* 2 */
    "@compile_ops(\"module_a\", fc_name=\"fa\")\n"               /* 3 */
    "def op_a(x: int) -> None: ...\n"                            /* 4 */
    "\n"                                                         /* 5 */
    "@aiter.compile_ops(\n"                                      /* 6 */
    "    'module_b',  # the module\n"                            /* 7 */
    "    ffi_type=\"ctypes\",\n"                                 /* 8 */
    ")\n"                                                        /* 9 */
    "@functools.lru_cache(maxsize=(1,\n"                         /* 10 */
    "    2))\n"                                                  /* 11 */
    "# a comment\n"                                              /* 12 */
    "async def op_b(\n"                                          /* 13 */
    "    y: str = \"@compile_ops('no')\") -> int: ...\n"         /* 14 */
    "@compile_ops(\"module_c\", fc_name=NAME)\n"                 /* 15 */
    "def op_c(): ...\n"                                          /* 16 */
    "@compile_ops(_md_name=\"module_d\", fc_name=\"fd\", ffi_type=\"cffi\")\n" /* 17 */
    "def op_d(): ...\n";                                         /* 18 */

/* A caller of op_a in another module, after backslash continuations: one
 * ended by CRLF, one by a lone CR (a line end to Python's tokenizer, whose
 * line numbers the reader reports: kw_py_line_of). */
static const char kw_py_use[] = "from ops import op_a\n"
                                "X = 1 + \\\r 2\n"
                                "Y = 3 + \\\r\n    4\n"
                                "def user():  # def\n"
                                "    return op_a(1)  # call\n";

/* The Python reader (python/kwalk_pyscan.py, run with the tests' python3)
 * over dir as a package root, its model-entry table read into c. */
static bool kw_pyscan(const char *dir, kw_py_chains *c, kw_err *err) {
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "'%s' '%s' chains --package-root '%s' --decorator compile_ops --format tsv",
             KW_TEST_PYTHON, KW_TEST_PYSCAN, dir);
    FILE *f = popen(cmd, "r");
    if (!f)
        return false;
    static char out[1 << 16];
    size_t n = fread(out, 1, sizeof out - 1, f);
    out[n] = '\0';
    return pclose(f) == 0 && kw_py_chains_parse(c, "kwalk_pyscan.py", out, n, err) == KW_OK;
}

/* The line of the first marker in Python text as Python numbers it: LF,
 * CRLF and a lone CR each end a line. */
static int kw_py_line_of(const char *text, const char *marker) {
    const char *at = strstr(text, marker);
    int line = 1;
    for (const char *c = text; at && c < at; c++)
        line += *c == '\n' || (*c == '\r' && c[1] != '\n');
    return at ? line : 0;
}

static void test_python(void) {
    char dir[512];
    snprintf(dir, sizeof dir, "%s/py", kw_tmp);
    mkdir(dir, 0755);
    kw_write("py/ops.py", kw_py_a);
    kw_write("py/use.py", kw_py_use);
    kw_write("py/readme.txt", "@compile_ops('x')\ndef not_python(): ...\n");
    kw_annot a;
    memset(&a, 0, sizeof a);
    kw_arena_init(&a.arena);
    kw_annot_file *rf = KW_PUSH(&a.arena, a.files);
    rf->name = "entrypoints/test.txt";
    rf->data = kw_rules;
    rf->len = strlen(kw_rules);
    kw_py_ops p;
    kw_py_ops_init(&p);
    kw_py_chains c;
    kw_py_chains_init(&c);
    kw_err err;
    CHECK(kw_py_load_rules(&p, &a, &err) == KW_OK);
    CHECK(kw_pyscan(dir, &c, &err));
    const char *root = dir;
    CHECK(kw_py_ops_from_chains(&p, &c, &root, 1, &err) == KW_OK);
    CHECK(p.ops.n == 4);
    if (p.ops.n == 4) {
        const kw_py_op *o = p.ops.v;
        CHECK(o[0].decorator_line == 3 && o[0].def_line == 4);
        CHECK_STR(o[0].def_name, "op_a");
        CHECK_STR(o[0].module, "module_a");
        CHECK_STR(o[0].function, "fa");
        CHECK_STR(o[0].entry_kind, "pybind");
        CHECK(!o[0].why);
        CHECK(o[0].callers.n == 1);
        if (o[0].callers.n == 1) {
            const kw_py_caller *k = o[0].callers.v;
            CHECK_STR(k->name, "user");
            CHECK_STR(k->module, "use");
            CHECK(k->def_line == kw_py_line_of(kw_py_use, "def user"));
            CHECK(k->call_line == kw_py_line_of(kw_py_use, "op_a(1)"));
            CHECK(!k->via);
        }
        CHECK(o[1].decorator_line == 6 && o[1].def_line == 13);
        CHECK_STR(o[1].def_name, "op_b");
        CHECK_STR(o[1].function, "op_b"); /* fc_name defaults to the def's name */
        CHECK_STR(o[1].entry_kind, "extern_c");
        CHECK(o[2].decorator_line == 15 && o[2].why); /* fc_name=NAME: not a literal */
        CHECK(o[3].decorator_line == 17);
        CHECK_STR(o[3].module, "module_d");
        CHECK(!o[3].entry_kind && o[3].why); /* ffi_type "cffi" has no bind rule */
    }
    kw_py_chains_free(&c);
    kw_py_ops_free(&p);
    /* one file as the root: its ops alone, no caller (use.py is not read) */
    char file[600];
    snprintf(file, sizeof file, "%s/ops.py", dir);
    kw_py_ops_init(&p);
    kw_py_chains_init(&c);
    CHECK(kw_py_load_rules(&p, &a, &err) == KW_OK);
    CHECK(kw_pyscan(file, &c, &err));
    root = file;
    CHECK(kw_py_ops_from_chains(&p, &c, &root, 1, &err) == KW_OK);
    CHECK(p.ops.n == 4 && !p.ops.v[0].callers.n);
    if (p.ops.n == 4)
        CHECK(p.ops.v[3].decorator_line == kw_py_line_of(kw_py_a, "@compile_ops(_md_name"));
    kw_py_chains_free(&c);
    kw_py_ops_free(&p);
    kw_arena_free(&a.arena);
}

/* ---- the new schema kinds ------------------------------------------------------------------- */

typedef struct kw_t_rec {
    KW_ARRAY(kw_count) counts;
    const char *scal_num, *scal_word, *scal_expr, *scal_bool;
    long long bytes;
} kw_t_rec;

static const kw_field kw_f_t_rec[] = {
    {"counts", KW_F_COUNTS, offsetof(kw_t_rec, counts), NULL, 0, NULL},
    {"scal_num", KW_F_SCALAR, offsetof(kw_t_rec, scal_num), NULL, 0, NULL},
    {"scal_word", KW_F_SCALAR, offsetof(kw_t_rec, scal_word), NULL, 0, NULL},
    {"scal_expr", KW_F_SCALAR, offsetof(kw_t_rec, scal_expr), NULL, 0, NULL},
    {"scal_bool", KW_F_SCALAR, offsetof(kw_t_rec, scal_bool), NULL, 0, NULL},
    {"bytes", KW_F_BYTES, offsetof(kw_t_rec, bytes), NULL, 0, NULL},
};
static KW_TYPE(kw_t_t_rec, "test record", kw_t_rec, false, kw_f_t_rec);

static void test_kinds(void) {
    kw_arena a;
    kw_arena_init(&a);
    kw_t_rec r;
    memset(&r, 0, sizeof r);
    kw_schema_defaults(&kw_t_t_rec, &r);
    kw_count *c = KW_PUSH(&a, r.counts);
    c->key = "salu";
    c->n = 12;
    c = KW_PUSH(&a, r.counts);
    c->key = "row_shr:1";
    c->n = 3;
    r.scal_num = "16";
    r.scal_word = "unknown";
    r.scal_expr = "ceil(n / 512)";
    r.scal_bool = "true";
    kw_buf out;
    kw_buf_init(&out);
    kw_err err;
    kw_yaml_emitter e;
    kw_yaml_emit_begin(&e, &out, &err);
    kw_sidecar_emit_fields(&e, &kw_t_t_rec, &r);
    CHECK(kw_yaml_emit_end(&e) == KW_OK);
    kw_yaml_emit_free(&e);
    const char *y = kw_buf_str(&out);
    CHECK(strstr(y, "counts: {salu: 12, 'row_shr:1': 3}") || strstr(y, "counts: {salu: 12, \"row_shr:1\": 3}"));
    CHECK(strstr(y, "scal_num: 16\n") != NULL);      /* a number stays a number */
    CHECK(strstr(y, "scal_word: unknown\n") != NULL);
    CHECK(strstr(y, "scal_bool: \"true\"\n") != NULL); /* a word that reads as a bool is quoted */
    CHECK(strstr(y, "bytes") == NULL);               /* absent */
    /* read it back */
    kw_t_rec back;
    memset(&back, 0, sizeof back);
    kw_schema_defaults(&kw_t_t_rec, &back);
    kw_sidecar_parser p;
    CHECK(kw_sidecar_parse_begin(&p, "t.yaml", y, out.len, &a, &err) == KW_OK);
    uint64_t seen = 0;
    for (;;) {
        const char *key;
        if (kw_sidecar_parse_next_key(&p, &key) != KW_OK || !key)
            break;
        CHECK(kw_sidecar_parse_field(&p, &kw_t_t_rec, &back, key, &seen) == KW_OK);
    }
    CHECK(kw_sidecar_parse_end(&p) == KW_OK);
    kw_sidecar_parse_free(&p);
    CHECK(back.counts.n == 2 && back.counts.v[1].n == 3);
    CHECK_STR(back.counts.v[1].key, "row_shr:1");
    CHECK_STR(back.scal_num, "16");
    CHECK_STR(back.scal_expr, "ceil(n / 512)");
    CHECK_STR(back.scal_bool, "true");
    CHECK(back.bytes == -1);
    /* a deep copy keeps everything */
    kw_t_rec copy;
    CHECK(kw_schema_copy(&a, &kw_t_t_rec, &copy, &back) == KW_OK);
    CHECK(copy.counts.v != back.counts.v && copy.counts.n == 2);
    CHECK_STR(copy.counts.v[0].key, "salu");
    /* duplicate keys in a map of counts are refused */
    static const char dup[] = "counts: {a: 1, a: 2}\n...\n";
    kw_t_rec d2;
    memset(&d2, 0, sizeof d2);
    CHECK(kw_sidecar_parse_begin(&p, "d.yaml", dup, strlen(dup), &a, &err) == KW_OK);
    const char *key;
    seen = 0;
    CHECK(kw_sidecar_parse_next_key(&p, &key) == KW_OK && key);
    CHECK(kw_sidecar_parse_field(&p, &kw_t_t_rec, &d2, key, &seen) == KW_ERR);
    CHECK(strstr(err.msg, "duplicate key 'a'") != NULL);
    kw_sidecar_parse_free(&p);
    kw_buf_free(&out);
    kw_arena_free(&a);
}

/* ---- typed ISA facts ------------------------------------------------------------------------ */

/* The class keys and counts kw_isa_class_key / kw_isa_class_count give are
 * the ones the writer writes for the arch, in its order; known is what the
 * writer's omission of `resources` / `classes` says. */
static void test_isa_typed(void) {
    kw_kernel_arch fa;
    kw_kernel_arch_init(&fa);
    CHECK(!kw_isa_resources_known(&fa.resources));
    CHECK(!kw_isa_classes_known(&fa.classes));
    fa.arch = "gfx942";
    fa.classes.mfma = 7;
    fa.classes.salu = 0;
    fa.classes.insns = 31;
    fa.resources.occupancy_limiter = "vgpr";
    CHECK(kw_isa_resources_known(&fa.resources)); /* a string alone makes it known */
    CHECK(kw_isa_classes_known(&fa.classes));
    kw_sidecar sc;
    kw_sidecar_init(&sc);
    kw_kernel *k = KW_PUSH(&sc.arena, sc.kernels);
    CHECK(k != NULL);
    if (!k)
        return;
    k->symbol = "_Z1kv";
    kw_kernel_arch *slot = KW_PUSH(&sc.arena, k->archs);
    CHECK(slot != NULL);
    if (!slot)
        return;
    *slot = fa;
    kw_buf out;
    kw_buf_init(&out);
    kw_err err;
    CHECK(kw_sidecar_emit(&sc, &out, &err) == KW_OK);
    const char *y = kw_buf_str(&out);
    CHECK(strstr(y, "occupancy_limiter: vgpr") != NULL);
    /* the written classes mapping, {key: n, ...}: each written key once, in
     * the order kw_isa_class_key gives, with kw_isa_class_count's value */
    const char *cls = strstr(y, "classes: {");
    CHECK(cls != NULL);
    size_t written = 0, nkeys = 0;
    const char *at = cls ? cls + strlen("classes: {") : NULL;
    for (size_t i = 0; kw_isa_class_key(i); i++) {
        nkeys++;
        long long n = kw_isa_class_count(&fa.classes, i);
        char want[64];
        snprintf(want, sizeof want, "%s: %lld", kw_isa_class_key(i), n);
        const char *w = at ? strstr(at, want) : NULL;
        const char *end = at ? strchr(at, '}') : NULL;
        if (n >= 0) {
            CHECK(w != NULL && w < end); /* written, after the class before it */
            if (w && w < end)
                at = w + strlen(want);
            written++;
        } else {
            CHECK(!w || w > end); /* not known: not written */
        }
    }
    CHECK(written == 3);
    /* every member of kw_isa_classes is one class count */
    CHECK(nkeys == sizeof(kw_isa_classes) / sizeof(long long));
    CHECK(kw_isa_class_key(nkeys) == NULL && kw_isa_class_count(&fa.classes, nkeys) == -1);
    kw_buf_free(&out);
    kw_sidecar_free(&sc);
}

/* ---- sections with ISA and IR facts ------------------------------------------------------- */

static void test_facts(void) {
    kw_arena a;
    kw_arena_init(&a);
    /* an index with one kernel and its launch */
    kw_index ix;
    kw_index_init(&ix);
    kw_kernel *k = KW_PUSH(&ix.arena, ix.kernels);
    k->symbol = "_Z4normPfPKfi";
    k->name = "norm";
    kw_param *pp = KW_PUSH(&ix.arena, k->params);
    pp->name = "out";
    pp->type = "float *";
    pp = KW_PUSH(&ix.arena, k->params);
    pp->name = "in";
    pp->type = "const float *";
    pp = KW_PUSH(&ix.arena, k->params);
    pp->name = "n";
    pp->type = "int";
    KW_PUSH(&ix.arena, k->archs)->arch = "gfx942";
    kw_err err;
    CHECK(kw_index_build_map(&ix, "t", &err) == KW_OK);
    kw_index_tu *tu = KW_PUSH(&ix.arena, ix.tus);
    kw_launch *l = KW_PUSH(&ix.arena, tu->launches);
    l->kernel = k->symbol;
    l->function = "launch";
    l->function_symbol = "_Z6launchi";
    l->grid.expr = "dim3(rows)";
    l->grid.dims = 3;
    l->block.expr = "256";
    l->block.dims = 3;
    l->block.has_value = true;
    l->block.value[0] = 256;
    l->block.value[1] = l->block.value[2] = 1;
    kw_launch_arg *la = KW_PUSH(&ix.arena, l->args);
    la->param = "n";
    la->expr = "cols";

    /* its facts: ISA and IR */
    kw_kernel_arch fa;
    kw_kernel_arch_init(&fa);
    fa.arch = "gfx942";
    fa.target_id = "gfx942:sramecc+:xnack-";
    fa.resources.vgpr = 24;
    fa.resources.sgpr = 18;
    fa.resources.lds_bytes = 64;
    fa.resources.occupancy = 8;
    fa.resources.occupancy_limiter = "none";
    fa.classes.valu = 40;
    fa.classes.vmem_load = 4;
    fa.isa = "0000: global_load_dwordx4 v[0:3], v4, s[0:1]\n"
             "0008: v_rsq_f32_e32 v1, v1\n"
             "000c: v_add_f32_dpp v1, v1, v1 row_shr:1 row_mask:0xf bank_mask:0xf\n"
             "0014: v_rsq_f32_e32 v2, v2\n"
             "0018: s_endpgm\n";
    /* source lines: from 0008 on, line 2 of a file written here; from 0014 on, no location */
    char src[512];
    snprintf(src, sizeof src, "%s/isa.hip", kw_tmp);
    kw_write("isa.hip", "// isa.hip\n    float y = rsqrtf(x); // the line of 0008\n");
    kw_isa_line *ln = KW_PUSH(&a, fa.lines);
    CHECK(ln != NULL);
    if (!ln)
        return;
    ln->offset = 8;
    ln->location.file = src;
    ln->location.line = 2;
    ln = KW_PUSH(&a, fa.lines);
    CHECK(ln != NULL);
    if (!ln)
        return;
    ln->offset = 0x14;
    /* the IR facts: the records of kw_sidecar_ir.h */
    kw_irf ir;
    kw_irf_init(&ir);
    for (int i = 0; i < 2; i++) {
        kw_irf_access *acc = KW_PUSH(&a, ir.accesses);
        CHECK(acc != NULL);
        if (!acc)
            return;
        memset(acc, 0, sizeof *acc);
        acc->op = i ? "store" : "load";
        acc->space = "global";
        acc->bytes_per_lane = i ? 4 : 16;
        acc->param = i ? "out" : "in";
        acc->param_index = -1;
        acc->param_offset = -1;
        acc->lane_stride_bytes = (kw_val){KW_VAL_NUM, i ? 0 : 16, NULL, NULL};
        acc->group_stride_bytes =
            i ? (kw_val){KW_VAL_NUM, 4, NULL, NULL} : (kw_val){KW_VAL_EXPR, 0, "n*4", NULL};
        acc->group_stride_bytes_y.kind = acc->group_stride_bytes_z.kind = KW_VAL_ABSENT;
        acc->active_lanes = 64;
        acc->segments_per_wave = i ? 1 : 16;
        acc->coalesced = 1;
        acc->group = acc->loop = -1;
    }
    kw_irf_idiom *id = KW_PUSH(&a, ir.idioms);
    CHECK(id != NULL);
    if (!id)
        return;
    memset(id, 0, sizeof *id);
    id->kind = "wave_reduce";
    id->op = "add";
    id->via = "dpp";
    id->steps = (kw_val){KW_VAL_NUM, 6, NULL, NULL};
    id->broadcast_lane = id->loop = -1;
    ir.barriers = 1;
    ir.work_per_thread.flops = (kw_val){KW_VAL_EXPR, 0, "n / 64", NULL};
    ir.work_per_thread.bytes_read = (kw_val){KW_VAL_EXPR, 0, "n * 4 / 256", NULL};
    ir.work_per_thread.bytes_written = (kw_val){KW_VAL_NUM, 4, NULL, NULL};

    kw_model m;
    CHECK(kw_model_build(&m, &ix, NULL, &err) == KW_OK);
    kw_srcs srcs;
    kw_srcs_init(&srcs);
    kw_annot an;
    CHECK(kw_annot_load(&an, &err) == KW_OK);
    kw_providers prov;
    kw_gpus gpus;
    kw_isa_notes notes;
    CHECK(kw_providers_load(&prov, &an, &err) == KW_OK);
    CHECK(kw_gpus_load(&gpus, &err) == KW_OK);
    CHECK(kw_isa_notes_load(&notes, &an, &err) == KW_OK);
    kw_shape shape;
    memset(&shape, 0, sizeof shape);
    CHECK(kw_shape_parse(&shape, &a, "rows=1024,cols=8192", &err) == KW_OK);
    m.shape = &shape; /* --shape: the model's */
    kw_rarch ra = {.arch = "gfx942", .facts = &fa, .ir = &ir};
    kw_render_opts o;
    memset(&o, 0, sizeof o);
    o.db_path = "t.db";
    o.time_us = 10;
    o.arch_override = &ra;
    o.narch_override = 1;
    kw_render r;
    kw_render_init(&r, &m, &srcs, &prov, &gpus, &notes, &o);
    kw_buf out;
    kw_buf_init(&out);
    CHECK(kw_render_kernel(&r, 0, &out, &err) == KW_OK);
    const char *md = kw_buf_str(&out);
    /* section 5: resources, occupancy, classes, notable instructions with notes, DPP */
    CHECK(strstr(md, "| VGPRs | `24` |") != NULL);
    CHECK(strstr(md, "| Occupancy (waves per SIMD) | `8` |") != NULL);
    CHECK(strstr(md, "| Target | `gfx942:sramecc+:xnack-` |") != NULL);
    CHECK(strstr(md, "| valu | 40 |") != NULL);
    CHECK(strstr(md, "| `v_rsq_f32` | gfx942 2 |") != NULL); /* _e32: the encoding, not the op */
    CHECK(strstr(md, "| `global_load_dwordx4` | gfx942 1 |") != NULL);
    CHECK(strstr(md, "| `DPP row_shr:1` | gfx942 1 |") != NULL);
    CHECK(strstr(md, "ISA not captured") == NULL);
    /* the listing: the source line (its text as written above, indent dropped)
     * before the instruction at its offset, none before the row without location */
    const char *lst = strstr(md, "```asm\n0000: global_load_dwordx4"); /* no line before it */
    CHECK(lst != NULL);
    if (lst) {
        CHECK(strstr(lst, ":2  float y = rsqrtf(x); // the line of 0008\n"
                          "0008: v_rsq_f32_e32") != NULL);
        CHECK(strstr(lst, "000c: v_add_f32_dpp v1, v1, v1 row_shr:1 row_mask:0xf bank_mask:0xf\n"
                          "0014: v_rsq_f32_e32 v2, v2\n") != NULL);
    }
    CHECK(strstr(md, "No source lines") == NULL);
    /* sections 2 and 3: accesses, thread mapping, idioms, the diagram */
    CHECK(strstr(md, "lanes contiguous (lane stride 16 bytes)") != NULL);
    CHECK(strstr(md, "the same address in every lane (uniform)") != NULL);
    CHECK(strstr(md, "in[b*(n*4) + t*16 .. + 16 - 1]") != NULL);
    CHECK(strstr(md, "wave_reduce (add) via `dpp`, 6 cross-lane steps") != NULL);
    CHECK(strstr(md, "| in: global_load, 16 B per lane") != NULL);
    CHECK(strstr(md, "no IR facts") == NULL);
    /* section 4: n = cols = 8192 through the launch argument, blockDim 256, grid 1024:
     * per thread 8192*4/256 = 128 B read, 4 B written, 8192/64 = 128 FLOP */
    double threads = 1024.0 * 256, rd = 8192.0 * 4 / 256, wr = 4, fl = 8192.0 / 64;
    CHECK(strstr(md, "1024 blocks, 262144 threads") != NULL);
    char want[128];
    snprintf(want, sizeof want, "| invocation | %.3g MiB | %.3g MiB | %.0f |",
             rd * threads / 1048576, wr * threads / 1048576, fl * threads);
    CHECK(strstr(md, want) != NULL);
    snprintf(want, sizeof want, "Arithmetic intensity: %.3g FLOP per byte", fl / (rd + wr));
    CHECK(strstr(md, want) != NULL);
    CHECK(strstr(md, "**memory-bound**") != NULL); /* 0.97 < 30.8 */
    double tbs = (rd + wr) * threads / 10e-6 / 1e12;
    snprintf(want, sizeof want, "%.3f TB/s achieved = %.1f%% of MI300X's 5.3 TB/s peak", tbs,
             100 * tbs / 5.3);
    CHECK(strstr(md, want) != NULL);
    if (kw_test_failures)
        fputs(md, stderr);
    /* `kwalk site`'s tables: the HTML libcmark-gfm makes of them, in the page
     * in their place (tests/site/test_site_tables.py compares whole sites) */
    o.printer = KW_R_HTML;
    kw_buf_reset(&out);
    CHECK(kw_render_kernel(&r, 0, &out, &err) == KW_OK);
    md = kw_buf_str(&out);
    CHECK(strstr(md, "<tr>\n<td>VGPRs</td>\n<td><code>24</code></td>\n</tr>\n") != NULL);
    CHECK(strstr(md, "<td>valu</td>\n<td align=\"right\">40</td>\n") != NULL);
    CHECK(strstr(md, "\n|---|") == NULL);
    CHECK(strstr(md, "| VGPRs |") == NULL);
    o.printer = KW_R_MARKDOWN;
    /* the same arch without ISA facts (only its IR facts): section 5 says so */
    kw_kernel_arch none;
    kw_kernel_arch_init(&none);
    none.arch = "gfx942";
    ra.facts = &none;
    kw_buf_reset(&out);
    CHECK(kw_render_kernel(&r, 0, &out, &err) == KW_OK);
    md = kw_buf_str(&out);
    CHECK(strstr(md, "ISA not captured: the sidecar has no ISA facts for gfx942") != NULL);
    CHECK(strstr(md, "| VGPRs |") == NULL);
    CHECK(strstr(md, "wave_reduce (add) via `dpp`") != NULL); /* the IR facts still shown */
    kw_buf_free(&out);
    kw_render_free(&r);
    kw_isa_notes_free(&notes);
    kw_gpus_free(&gpus);
    kw_providers_free(&prov);
    kw_annot_free(&an);
    kw_srcs_free(&srcs);
    kw_model_free(&m);
    kw_index_free(&ix);
    kw_arena_free(&a);
}

int main(void) {
    if (!kw_test_tmp_make(kw_tmp, sizeof kw_tmp, "kwalk-render-unit"))
        return 1;
    test_expr();
    test_md();
    test_src();
    test_python();
    test_kinds();
    test_isa_typed();
    test_facts();
    kw_test_tmp_remove(kw_tmp);
    return kw_test_result("test_render_unit");
}
