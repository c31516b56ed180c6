/* test_sidecar_triton.c: the Triton rows of the schema (kernel `language`
 * and `triton`, launch `call_chain`; docs/sidecar-schema.md, "Triton
 * specializations"): written in the documented layout, read back to the same
 * bytes by the YAML reader and through the index database, absent from a HIP
 * kernel, and a hook's hand-written sidecar in the documented form read. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "index/kw_index.h"
#include "kw_test.h"
#include "sidecar/kw_sidecar.h"

static kw_loc loc(const char *file, int line, int column) {
    kw_loc l = {file, line, column};
    return l;
}

static void build(kw_sidecar *sc) {
    kw_arena *a = &sc->arena;
    kw_sidecar_init(sc);
    sc->producer.name = "kwalk_triton";
    sc->producer.version = "0.1.0";
    kw_kernel *h = KW_PUSH(a, sc->kernels); /* a HIP kernel: no Triton keys */
    memset(h, 0, sizeof *h);
    h->symbol = "_Z1kv";
    kw_kernel *k = KW_PUSH(a, sc->kernels);
    memset(k, 0, sizeof *k);
    k->symbol = "_rms@ab12", k->name = "_rms", k->language = "triton";
    k->location = loc("/src/rmsnorm.py", 71, 1);
    kw_param *p = KW_PUSH(a, k->params);
    p->name = "x_ptr", p->type = "*bf16";
    kw_triton *t = kw_arena_alloc(a, sizeof *t);
    memset(t, 0, sizeof *t);
    t->hash = "ab12", t->cache_key = "BKETT", t->cache_dir = "/c/BKETT";
    *KW_PUSH(a, t->files) = "/c/BKETT/_rms.hsaco";
    t->triton_version = "3.6.0", t->backend = "hip";
    t->warp_size = 64, t->shared_bytes = -1; /* absent */
    kw_triton_option *o = KW_PUSH(a, t->options);
    o->name = "num_warps", o->value = "4";
    o = KW_PUSH(a, t->options);
    o->name = "debug", o->value = "false";
    o = KW_PUSH(a, t->options);
    o->name = "instrumentation_mode", o->value = "";
    kw_triton_constexpr *c = KW_PUSH(a, t->constexprs);
    memset(c, 0, sizeof *c);
    c->name = "BLOCK", c->value = "8192", c->from = "cache_ir";
    c->location = loc("/src/rmsnorm.py", 78, 31);
    c = KW_PUSH(a, t->constexprs);
    memset(c, 0, sizeof *c);
    c->name = "USE_BLOCKED", c->why = "not recoverable from the cache; run with the hook";
    t->cache_hit = true;
    k->triton = t;
    kw_kernel_arch *ka = KW_PUSH(a, k->archs);
    kw_kernel_arch_init(ka);
    ka->arch = "gfx942";
    kw_launch *l = KW_PUSH(a, sc->launches);
    memset(l, 0, sizeof *l);
    l->kernel = "_rms@ab12", l->kernel_name = "_rms", l->kind = "triton";
    l->location = loc("/src/wrap.py", 51, 5);
    l->function = "_rmsnorm_forward";
    kw_chain_link *cl = KW_PUSH(a, l->call_chain);
    memset(cl, 0, sizeof *cl);
    cl->function = "rms_norm", cl->location = loc("/src/wrap.py", 256, 1);
    l->grid.expr = "grid", l->grid.dims = 3;
    l->block.dims = 3, l->shared_mem.dims = 1, l->stream.dims = 1;
}

static char *emit(const kw_sidecar *sc) {
    kw_buf b;
    kw_err err;
    kw_buf_init(&b);
    CHECK(kw_sidecar_emit(sc, &b, &err) == KW_OK);
    return b.ptr;
}

static void test_yaml(void) {
    kw_sidecar sc, back;
    kw_err err;
    build(&sc);
    char *y = emit(&sc);
    CHECK(y != NULL);
    if (!y)
        return;
    /* the documented layout */
    CHECK(strstr(y, "- symbol: _Z1kv\n  archs: {}\n"));
    CHECK(strstr(y, "  name: _rms\n  language: triton\n  location: {file: /src/rmsnorm.py, "
                    "line: 71, column: 1}\n"));
    CHECK(strstr(y, "{name: x_ptr, type: '*bf16'}"));
    CHECK(strstr(y, "  triton:\n    hash: ab12\n"));
    CHECK(strstr(y, "    triton_version: \"3.6.0\"\n    backend: hip\n    warp_size: 64\n"));
    CHECK(!strstr(y, "shared_bytes"));
    CHECK(strstr(y, "    options: [{name: num_warps, value: 4}, {name: debug, value: \"false\"}, "
                    "{name: instrumentation_mode, value: \"\"}]\n"));
    CHECK(strstr(y, "{name: BLOCK, value: \"8192\", from: cache_ir, location: "));
    CHECK(strstr(y, "{name: USE_BLOCKED, why: not recoverable from the cache; run with the hook}"));
    CHECK(strstr(y, "    cache_hit: true\n  archs:\n    gfx942: {}\n"));
    CHECK(strstr(y, "  kind: triton\n"));
    CHECK(strstr(y, "  function: _rmsnorm_forward\n  call_chain:\n  - {function: rms_norm, "
                    "location: {file: /src/wrap.py, line: 256, column: 1}}\n  config:\n"));
    /* read back: the same bytes */
    CHECK(kw_sidecar_parse(&back, "t.yaml", y, strlen(y), &err) == KW_OK);
    char *y2 = emit(&back);
    CHECK(y2 && strcmp(y, y2) == 0);
    if (back.kernels.n == 2) {
        CHECK(back.kernels.v[0].triton == NULL && back.kernels.v[0].language == NULL);
        CHECK(back.kernels.v[1].triton && back.kernels.v[1].triton->shared_bytes == -1);
    }
    /* the index database: the same records */
    kw_index ix, ix2;
    kw_index_init(&ix);
    CHECK(kw_index_add(&ix, &back, "t.kwalk.yaml", &err) == KW_OK);
    kw_buf p, a, b;
    kw_buf_init(&p);
    kw_buf_init(&a);
    kw_buf_init(&b);
    const kw_sidecar *scs[] = {&back};
    const char *names[] = {"t.kwalk.yaml"};
    CHECK(kw_index_db_write("t-triton.db", &ix.producer, scs, names, 1, &err) == KW_OK);
    CHECK(kw_index_read_file(&ix2, "t-triton.db", &err) == KW_OK);
    CHECK(kw_index_emit(&ix, &a, &err) == KW_OK && kw_index_emit(&ix2, &b, &err) == KW_OK);
    CHECK(a.ptr && b.ptr && strcmp(a.ptr, b.ptr) == 0);
    CHECK(a.ptr && strstr(a.ptr, "call_chain:") && strstr(a.ptr, "cache_hit: true"));
    kw_buf_free(&p);
    kw_buf_free(&a);
    kw_buf_free(&b);
    kw_index_free(&ix);
    kw_index_free(&ix2);
    free(y);
    free(y2);
    kw_sidecar_free(&back);
    kw_sidecar_free(&sc);
}

/* A hook's sidecar as docs/sidecar-schema.md shows it (values unquoted where
 * a hand-written writer may leave them so) reads. */
static void test_hook_form(void) {
    static const char doc[] =
        "kwalk_schema: 1\n"
        "producer: {name: kwalk_triton, version: \"0.1.0\"}\n"
        "translation_unit: {source: /s/k.py, object: /c/K/k.hsaco, offload_archs: [gfx942]}\n"
        "kernels:\n"
        "- symbol: k@ab\n"
        "  name: k\n"
        "  language: triton\n"
        "  params:\n"
        "  - {name: BLOCK, type: constexpr}\n"
        "  triton:\n"
        "    hash: ab\n"
        "    options: [{name: num_warps, value: 8}]\n"
        "    constexprs:\n"
        "    - {name: BLOCK, value: 1024, from: hook}\n"
        "  archs: {}\n"
        "launches:\n"
        "- kernel: k@ab\n"
        "  kind: triton\n"
        "  call_chain:\n"
        "  - {function: main, location: {file: /home/u/run.py, line: 9, column: 1}}\n"
        "  config:\n"
        "    grid: {expr: \"lambda META: (n,)\"}\n"
        "entries: []\n"
        "host_calls: []\n"
        "...\n";
    kw_sidecar sc;
    kw_err err;
    CHECK(kw_sidecar_parse(&sc, "h.yaml", doc, strlen(doc), &err) == KW_OK);
    if (sc.kernels.n == 1 && sc.kernels.v[0].triton && sc.launches.n == 1) {
        const kw_triton *t = sc.kernels.v[0].triton;
        CHECK_STR(sc.kernels.v[0].language, "triton");
        CHECK(t->constexprs.n == 1);
        CHECK_STR(t->constexprs.v[0].value, "1024");
        CHECK_STR(t->options.v[0].value, "8");
        CHECK(t->cache_hit == false && t->warp_size == -1);
        CHECK(sc.launches.v[0].call_chain.n == 1);
        CHECK(sc.launches.v[0].call_chain.v[0].location.line == 9);
        CHECK_STR(sc.launches.v[0].grid.expr, "lambda META: (n,)");
    } else {
        CHECK(!"hook sidecar not read as documented");
    }
    kw_sidecar_free(&sc);
    /* triton without its required hash is refused */
    static const char nohash[] = "kwalk_schema: 1\nkernels:\n- symbol: k\n  triton:\n"
                                 "    backend: hip\n  archs: {}\n...\n";
    CHECK(kw_sidecar_parse(&sc, "n.yaml", nohash, strlen(nohash), &err) == KW_ERR);
    kw_sidecar_free(&sc);
}

int main(void) {
    /* the unshared layout (the golden file, the documented text); sharing is
     * test_yaml_share's */
    setenv("KWALK_YAML_SHARE", "0", 1);
    test_yaml();
    test_hook_form();
    return kw_test_result("test_sidecar_triton");
}
