/* test_page_unit.c: unit test of the page model (model/kw_page.h) on a
 * hand-built index of one kernel and one launch, every expected value
 * worked out by hand here: the shape bindings (--shape plus the kernel's
 * integral template constants), the dispatch conditions' verdicts for two
 * shapes, the --arch filter, the launch geometry, the IR work per arch, and
 * the source files read when the page is opened (and only those: the
 * lookup render/ uses never reads); and the Python extents a Triton page
 * quotes (model/kw_pysrc.h), their lines found from marker comments. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "index/kw_index_int.h"
#include "kw_test.h"
#include "kw_test_tmp.h"
#include "model/kw_page.h"
#include "model/kw_pysrc.h"

static char kw_tmp[256];

static const char *kw_write(kw_arena *a, const char *rel, const char *text) {
    char *path = kw_arena_printf(a, "%s/%s", kw_tmp, rel);
    FILE *f = path ? fopen(path, "w") : NULL;
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    return path;
}

static bool kw_near(double a, double b) {
    return fabs(a - b) < 1e-9;
}

static void test_page(void) {
    kw_arena a;
    kw_arena_init(&a);
    const char *kfile = kw_write(&a, "k.hip", "template <int N, bool B>\n__global__ void k() {}\n");
    const char *lfile = kw_write(&a, "l.cpp", "void launch(int rows) {\n  k<<<1, 1>>>();\n}\n");
    const char *other = kw_write(&a, "other.cpp", "int x;\n");

    kw_index ix;
    kw_index_init(&ix);
    kw_kernel *k = KW_PUSH(&ix.arena, ix.kernels);
    k->symbol = "_Z1kILi128ELb1EEvv";
    k->name = "k<128, true>";
    k->location.file = kfile;
    k->location.line = 2;
    kw_template_arg *t = KW_PUSH(&ix.arena, k->template_args);
    *t = (kw_template_arg){"N", "value", "128", NULL, false};
    t = KW_PUSH(&ix.arena, k->template_args);
    *t = (kw_template_arg){"B", "value", "true", NULL, false};
    t = KW_PUSH(&ix.arena, k->template_args);
    *t = (kw_template_arg){"T", "type", "float", NULL, false}; /* a type binds nothing */
    /* gfx942 with IR facts: N * 4 bytes read per thread; gfx950 without */
    kw_irf ir;
    kw_irf_init(&ir);
    ir.work_per_thread.bytes_read = (kw_val){KW_VAL_EXPR, 0, "N * 4", NULL};
    ir.work_per_thread.bytes_written = (kw_val){KW_VAL_NUM, 8, NULL, NULL};
    ir.work_per_thread.flops = (kw_val){KW_VAL_EXPR, 0, "undefined_name", NULL};
    kw_kernel_arch *ka = KW_PUSH(&ix.arena, k->archs);
    kw_kernel_arch_init(ka);
    ka->arch = "gfx942";
    ka->ir = &ir;
    ka = KW_PUSH(&ix.arena, k->archs);
    kw_kernel_arch_init(ka);
    ka->arch = "gfx950";
    kw_err err;
    CHECK(kw_index_build_map(&ix, "t", &err) == KW_OK);
    kw_index_tu *tu = KW_PUSH(&ix.arena, ix.tus);
    kw_launch *l = KW_PUSH(&ix.arena, tu->launches);
    l->kernel = k->symbol;
    l->function = "launch";
    l->function_symbol = "_Z6launchi";
    l->location.file = lfile;
    l->location.line = 2;
    l->grid.expr = "dim3(rows / N)";
    l->grid.dims = 3;
    l->block.expr = "256";
    l->block.dims = 3;
    l->block.has_value = true;
    l->block.value[0] = 256;
    l->block.value[1] = l->block.value[2] = 1;
    static const kw_guard guards[] = {
        {"if", "rows > 1024", true, NULL, {0}},  /* evaluated */
        {"if", "B", false, NULL, {0}},           /* B = true, the path needs it false */
        {"for", "i < rows", true, NULL, {0}},    /* a loop: not a condition */
        {"if", "N == 128", true, "always", {0}}, /* a compile-time constant */
        {"if", "mode == 3", true, NULL, {0}},    /* mode is bound by nothing */
    };
    for (size_t i = 0; i < sizeof guards / sizeof guards[0]; i++)
        *KW_PUSH(&ix.arena, l->guards) = guards[i];

    kw_model m;
    CHECK(kw_model_build(&m, &ix, NULL, &err) == KW_OK);
    CHECK(m.kernels.n == 1);
    if (m.kernels.n != 1)
        return;
    kw_srcs srcs;
    kw_srcs_init(&srcs);
    kw_page_arch archs[2] = {{.arch = "gfx942", .ir = &ir}, {.arch = "gfx950"}};
    static const struct {
        const char *shape, *only;
        bool rows_gt; /* rows > 1024 */
    } cases[] = {{"rows=4096", NULL, true}, {"rows=512", "gfx950", false}};
    for (size_t c = 0; c < 2; c++) {
        kw_shape shape;
        memset(&shape, 0, sizeof shape);
        CHECK(kw_shape_parse(&shape, &a, cases[c].shape, &err) == KW_OK);
        kw_page p;
        kw_page_init(&p);
        m.shape = &shape;
        CHECK(kw_page_open(&p, &m, &m.kernels.v[0], &srcs, &a, &err) == KW_OK);
        CHECK(kw_page_finish(&p, &m, archs, 2, cases[c].only, &a, &err) == KW_OK);
        /* bindings: the shape, then N = 128 and B = 1 from the template arguments */
        const kw_binding *b = kw_shape_lookup(&p.shape, "N", 1);
        CHECK(b && kw_near(b->value, 128) && !strcmp(b->from, "template argument"));
        b = kw_shape_lookup(&p.shape, "B", 1);
        CHECK(b && kw_near(b->value, 1));
        CHECK(!kw_shape_lookup(&p.shape, "T", 1));
        b = kw_shape_lookup(&p.shape, "rows", 4);
        CHECK(b && kw_near(b->value, c ? 512 : 4096));
        /* verdicts */
        const kw_page_verdict *v = kw_page_verdict_of(&p, &l->guards.v[0]);
        CHECK(v && v->tried && v->evaluated && v->holds == cases[c].rows_gt);
        v = kw_page_verdict_of(&p, &l->guards.v[1]);
        CHECK(v && v->tried && v->evaluated && !v->holds);
        v = kw_page_verdict_of(&p, &l->guards.v[2]);
        CHECK(v && !v->tried);
        v = kw_page_verdict_of(&p, &l->guards.v[3]);
        CHECK(v && !v->tried);
        v = kw_page_verdict_of(&p, &l->guards.v[4]);
        CHECK(v && v->tried && !v->evaluated && v->why && strstr(v->why, "mode"));
        CHECK(kw_page_verdict_of(&p, &guards[0]) == NULL); /* not one of the page's */
        /* archs shown */
        CHECK(p.archs.n == (cases[c].only ? 1u : 2u));
        if (cases[c].only && p.archs.n == 1)
            CHECK(!strcmp(p.archs.v[0].arch, "gfx950") && p.archs.v[0].of == 1);
        /* geometry: block 256; grid rows / 128 */
        CHECK(p.geom && p.geom[0].block_known && kw_near(p.geom[0].threads_per_block, 256));
        CHECK(p.geom && p.geom[0].grid_known && kw_near(p.geom[0].blocks, c ? 4 : 32));
        /* work: gfx942 reads N * 4 = 512 bytes, writes 8, FLOP unknown */
        if (!cases[c].only) {
            const kw_page_work *w = &p.work[0];
            CHECK(w->krd && kw_near(w->rd, 512) && !strcmp(w->trd, "N * 4"));
            CHECK(w->kwr && kw_near(w->wr, 8));
            CHECK(!w->kfl);
            CHECK(!p.work[1].krd && !p.work[1].trd); /* gfx950: no IR facts */
        }
        /* sources: the kernel's and the launch's files were read, no other */
        const kw_src_file *f = kw_page_src(&p, kfile);
        CHECK(f && f->ok && f->nlines == 2);
        f = kw_page_src(&p, lfile);
        CHECK(f && f->ok && f->nlines == 3);
        CHECK(kw_page_src(&p, other) == NULL);
        kw_page_free(&p);
    }
    CHECK(kw_src_find(&srcs, other) == NULL); /* kw_page_src never read it */
    kw_srcs_free(&srcs);
    kw_model_free(&m);
    kw_index_free(&ix);
    kw_arena_free(&a);
}

/* The 1-based line of text that holds marker. */
static int kw_line_of(const char *text, const char *marker) {
    const char *at = strstr(text, marker);
    CHECK(at != NULL);
    int n = 1;
    for (const char *p = text; at && p < at; p++)
        n += *p == '\n';
    return at ? n : -1;
}

static void test_pysrc(void) {
    kw_arena a;
    kw_arena_init(&a);
    static const char text[] = "import triton\n"
                               "@triton.jit\n"
                               "def k(x,  # DEF1\n"
                               "      y: \"a ) in a string\",\n"
                               "):\n"
                               "    \"\"\"doc\n"
                               "not indented ) inside a docstring\n"
                               "    \"\"\"\n"
                               "    a = (1,\n"
                               "2)\n"
                               "# a comment at column 0 inside the body\n"
                               "    s = \"# not a comment (\"\n"
                               "    return a  # END1\n"
                               "\n"
                               "\n"
                               "def g(): return 1  # DEF2\n"
                               "x = 1\n"
                               "def h(  # DEF3\n"
                               "):\n"
                               "    pass  # END3\n"
                               "    # a comment after the body\n"
                               "\n"
                               "y = k[grid](  # STMT\n"
                               "    x, \"b)\",\n"
                               "    [x])  # STMTEND\n"
                               "z = 1 + \\\n"
                               "    2  # BSEND\n"
                               "w = (1,  # OPEN\n";
    const char *path = kw_write(&a, "k.py", text);
    kw_srcs srcs;
    kw_srcs_init(&srcs);
    const kw_src_file *f = kw_src_get(&srcs, path);
    CHECK(f && f->ok);
    const char *why = NULL;
    CHECK(kw_py_def_end(f, kw_line_of(text, "DEF1"), &why) == kw_line_of(text, "END1"));
    CHECK(kw_py_def_end(f, kw_line_of(text, "DEF2"), &why) == kw_line_of(text, "DEF2"));
    CHECK(kw_py_def_end(f, kw_line_of(text, "DEF3"), &why) == kw_line_of(text, "END3"));
    why = NULL;
    CHECK(kw_py_def_end(f, kw_line_of(text, "@triton.jit"), &why) == 0);
    CHECK_STR(why, "the line does not start with `def`");
    CHECK(kw_py_def_end(f, 1000, &why) == 0);
    CHECK(kw_py_stmt_end(f, kw_line_of(text, "STMT")) == kw_line_of(text, "STMTEND"));
    CHECK(kw_py_stmt_end(f, kw_line_of(text, "z = 1")) == kw_line_of(text, "BSEND"));
    CHECK(kw_py_stmt_end(f, kw_line_of(text, "x = 1")) == kw_line_of(text, "x = 1"));
    CHECK(kw_py_stmt_end(f, kw_line_of(text, "OPEN")) == 0); /* the file ends first */
    kw_srcs_free(&srcs);
    kw_arena_free(&a);
}

int main(void) {
    if (!kw_test_tmp_make(kw_tmp, sizeof kw_tmp, "kwalk-page-unit"))
        return 1;
    test_page();
    test_pysrc();
    kw_test_tmp_remove(kw_tmp);
    return kw_test_result("test_page_unit");
}
