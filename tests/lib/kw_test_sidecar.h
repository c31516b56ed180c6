/* kw_test_sidecar.h: a hand-built sidecar with every field of kw_sidecar.h
 * set, and strings chosen to stress the YAML writer (numbers, booleans and
 * nulls as strings, quotes, colons, leading dashes, multi-line text, control
 * characters, non-ASCII, invalid UTF-8), for the sidecar and index tests. */
#ifndef KW_TEST_SIDECAR_H
#define KW_TEST_SIDECAR_H

#include "sidecar/kw_sidecar.h"

#define KW_TC_STR(sc, s) kw_arena_strdup(&(sc)->arena, (s))

static inline kw_loc kw_tc_loc(const char *file, int line, int column) {
    kw_loc l = {file, line, column};
    return l;
}

/* An arch with nothing known but its name (ISA facts absent, not zero). */
static inline void kw_tc_arch(kw_sidecar *sc, kw_kernel *k, const char *arch) {
    kw_kernel_arch *a = KW_PUSH(&sc->arena, k->archs);
    kw_kernel_arch_init(a);
    a->arch = KW_TC_STR(sc, arch);
}

/* A minimal kernel: symbol, name, archs. */
static inline kw_kernel *kw_tc_kernel(kw_sidecar *sc, const char *symbol, const char *name,
                                     const char *arch) {
    kw_kernel *k = KW_PUSH(&sc->arena, sc->kernels);
    k->symbol = KW_TC_STR(sc, symbol);
    k->name = KW_TC_STR(sc, name);
    if (arch)
        kw_tc_arch(sc, k, arch);
    return k;
}

/* Fill sc (initialized, empty) with every field. */
static inline void kw_tc_full_sidecar(kw_sidecar *sc) {
    kw_arena *a = &sc->arena;
    sc->producer.name = "kwalk";
    sc->producer.version = "0.1.0";
    sc->producer.clang_version = "22.1.8";
    sc->tu.source = "/src/aiter/csrc/kernels/rmsnorm.cu";
    sc->tu.object = "build/rmsnorm.o";
    sc->tu.cuid = "1a2b3c4d";
    *KW_PUSH(a, sc->tu.offload_archs) = "gfx942";
    *KW_PUSH(a, sc->tu.offload_archs) = "gfx950";

    kw_kernel *k = kw_tc_kernel(sc, "_ZN2ns1kIfLi256ELi4ELb1ELNS_4ModeE0EEvPT_PKS2_i",
                               "ns::k<float, 256, 4, true, ns::Mode::Plain>", "gfx942");
    kw_tc_arch(sc, k, "gfx950");
    k->template_name = "ns::k";
    k->location = kw_tc_loc("/src/aiter/csrc/kernels/rmsnorm.cu", 14, 17);
    k->doc = "Normalizes one row per block.\n  Indented: with a colon.\n\nLast line  \n";
    kw_template_arg *ta = KW_PUSH(a, k->template_args);
    ta->name = "T", ta->kind = "type", ta->value = "float";
    ta = KW_PUSH(a, k->template_args);
    ta->name = "BlockSize", ta->kind = "value", ta->value = "256";
    ta = KW_PUSH(a, k->template_args);
    ta->name = "Vec", ta->kind = "value", ta->value = "4", ta->defaulted = true;
    ta = KW_PUSH(a, k->template_args);
    ta->name = "UseBias", ta->kind = "value", ta->value = "true";
    ta = KW_PUSH(a, k->template_args);
    ta->name = NULL, ta->kind = "value", ta->value = "ns::Mode::Plain";
    kw_param *pa = KW_PUSH(a, k->params);
    pa->name = "out", pa->type = "float *";
    pa = KW_PUSH(a, k->params);
    pa->name = "in", pa->type = "const float *__restrict";
    pa = KW_PUSH(a, k->params);
    pa->name = "n", pa->type = "int";
    /* an element of a pack forwarded as `kargs`, a struct passed by value */
    pa = KW_PUSH(a, k->params);
    pa->name = "kargs", pa->type = "ns::Kargs", pa->pack = "args#3";
    kw_param_field *pf = KW_PUSH(a, pa->fields);
    pf->name = "kargs.p_x", pf->type = "const void *", pf->offset = 0;
    pf = KW_PUSH(a, pa->fields);
    pf->name = "kargs.n", pf->type = "int", pf->offset = 8;
    kw_attr *at = KW_PUSH(a, k->attrs);
    at->name = "launch_bounds", at->value = "256";
    at = KW_PUSH(a, k->attrs);
    at->name = "amdgpu_flat_work_group_size", at->value = "1,256";
    kw_shared_var *sv = KW_PUSH(a, k->shared);
    sv->name = "smem", sv->type = "float[256]", sv->bytes = 1024;
    sv->function = "ns::k<float, 256, 4, true, ns::Mode::Plain>";
    sv->location = kw_tc_loc("/src/aiter/csrc/kernels/rmsnorm.cu", 20, 5);
    sv = KW_PUSH(a, k->shared);
    sv->name = "dyn", sv->type = "float[]", sv->bytes = -1, sv->function = "ns::reduce<256>";
    kw_inline_asm *ia = KW_PUSH(a, k->inline_asm);
    ia->text = "s_waitcnt lgkmcnt(0)\n\tv_mov_b32 %0, %1";
    ia->function = "ns::k<float, 256, 4, true, ns::Mode::Plain>";
    ia->location = kw_tc_loc("/src/aiter/csrc/kernels/rmsnorm.cu", 30, 9);
    ia = KW_PUSH(a, k->inline_asm);
    ia->text = "s_nop 0";
    kw_call *c = KW_PUSH(a, k->calls);
    c->caller = k->symbol, c->name = "ns::reduce<256>", c->symbol = "_ZN2ns6reduceILi256EEEff";
    c->depth = 1, c->location = kw_tc_loc("/src/aiter/csrc/kernels/rmsnorm.cu", 25, 12);
    c->callee_location = kw_tc_loc("/src/aiter/csrc/include/reduce.h", 8, 1);
    c = KW_PUSH(a, k->calls);
    c->caller = "_ZN2ns6reduceILi256EEEff", c->name = "__shfl_xor", c->symbol = "_Z10__shfl_xorfii";
    c->depth = 2, c->system = true, c->location = kw_tc_loc("/src/aiter/csrc/include/reduce.h", 10, 3);

    /* tricky strings: every one must come back unchanged */
    k = kw_tc_kernel(sc, "_Z6tricky", "tricky", NULL); /* no archs: "archs: {}" */
    static const char *const tricky[] = {
        "256",       "true",         "null",      "~",           "",          "- dash",
        "key: value", "#hash",       " leading",  "trailing ",   "tab\there", "quote\"s",
        "'single'",  "ünïcödé ∑",    "\001ctrl", "-1",        ".5",        "0x10",
        "yes",       "No",           "[flow]",    "{map}",       "a, b",      "@at",
        "`tick",     "%percent",     "!bang",     "&amp",        "*star",     "|pipe",
        ">gt",       "?q",           ":colon",    "line1\nline2", "\n",       "  \n  x",
        "end\n",     "x\n\n",        "\ttab",     "a  b",        "=",         "<<",
        "\xc2\xa0nbsp", "\xe2\x80\xa8ls"};
    for (size_t i = 0; i < sizeof(tricky) / sizeof(tricky[0]); i++) {
        kw_param *p = KW_PUSH(a, k->params);
        p->name = tricky[i];
        p->type = tricky[i];
        kw_attr *t = KW_PUSH(a, k->attrs);
        t->name = "attr";
        t->value = tricky[i];
        kw_inline_asm *s = KW_PUSH(a, k->inline_asm);
        s->text = tricky[i]; /* in a block mapping: other styles than in a flow one */
    }

    kw_launch *l = KW_PUSH(a, sc->launches);
    l->kernel = "_ZN2ns1kIfLi256ELi4ELb1ELNS_4ModeE0EEvPT_PKS2_i";
    l->kernel_name = "ns::k<float, 256, 4, true, ns::Mode::Plain>";
    l->kind = "triple_chevron";
    l->location = kw_tc_loc("/src/aiter/csrc/py_itfs/rmsnorm.cu", 88, 5);
    kw_macro_expansion *me = KW_PUSH(a, l->macro_expansions);
    me->macro = "LAUNCH_RMSNORM", me->location = kw_tc_loc("/src/aiter/csrc/py_itfs/rmsnorm.cu", 120, 9);
    me = KW_PUSH(a, l->macro_expansions);
    me->macro = "DISPATCH_ALL";
    l->function = "ns::launch<float, 256, 4>";
    l->function_symbol = "_ZN2ns6launchIfLi256ELi4EEEvPfPKfi";
    kw_chain_link *cl = KW_PUSH(a, l->instantiation_chain);
    cl->function = "rmsnorm_fwd(torch::Tensor &, torch::Tensor &)";
    cl->symbol = "_Z11rmsnorm_fwdRN2at6TensorES1_";
    cl->location = kw_tc_loc("/src/aiter/csrc/py_itfs/rmsnorm.cu", 140, 3);
    l->grid.expr = "dim3(n / 256)", l->grid.has_value = true, l->grid.dims = 3;
    l->grid.value[0] = 4096, l->grid.value[1] = 1, l->grid.value[2] = 1;
    l->block.expr = "256", l->block.has_value = true, l->block.dims = 3;
    l->block.value[0] = 256, l->block.value[1] = 1, l->block.value[2] = 1;
    l->shared_mem.expr = "0", l->shared_mem.has_value = true, l->shared_mem.dims = 1;
    l->shared_mem.value[0] = 0;
    l->stream.expr = "stream";
    kw_operand_decl *od = KW_PUSH(a, l->operand_decls);
    od->operand = "stream", od->name = "stream", od->kind = "parameter";
    od->text = "hipStream_t stream", od->modified = false;
    od->location = kw_tc_loc("/src/aiter/csrc/py_itfs/rmsnorm.cu", 60, 40);
    kw_launch_arg *la = KW_PUSH(a, l->args);
    la->param = "out", la->expr = "out.data_ptr<float>()";
    la = KW_PUSH(a, l->args);
    la->param = "n", la->expr = "n";
    kw_guard *g = KW_PUSH(a, l->guards);
    g->kind = "if", g->condition = "bias != nullptr", g->holds = true;
    g->location = kw_tc_loc("/src/aiter/csrc/py_itfs/rmsnorm.cu", 80, 3);
    g = KW_PUSH(a, l->guards);
    g->kind = "case", g->condition = "dtype == DT_FP16", g->holds = false;

    l = KW_PUSH(a, sc->launches); /* a bare one: only the kind, big values */
    l->kind = "other";
    l->grid.has_value = true, l->grid.dims = 3;
    l->grid.value[0] = 9223372036854775807LL, l->grid.value[1] = -5, l->grid.value[2] = 0;
    l->shared_mem.has_value = true, l->shared_mem.dims = 1;
    l->shared_mem.value[0] = 65536;

    kw_entry *e = KW_PUSH(a, sc->entries);
    e->name = "rmsnorm", e->kind = "pybind", e->function = "rmsnorm_fwd";
    e->function_symbol = "_Z11rmsnorm_fwdRN2at6TensorES1_", e->module = "aiter";
    e->location = kw_tc_loc("/src/aiter/csrc/pybind/rmsnorm_pybind.cu", 5, 5);
    e = KW_PUSH(a, sc->entries);
    e->name = "launch_c", e->kind = "extern_c", e->function = "launch_c";
    e->function_symbol = "launch_c";

    kw_host_call *h = KW_PUSH(a, sc->host_calls);
    h->caller = "_Z11rmsnorm_fwdRN2at6TensorES1_";
    h->callee = "_ZN2ns6launchIfLi256ELi4EEEvPfPKfi";
    h->caller_name = "rmsnorm_fwd";
    h->callee_name = "ns::launch<float, 256, 4>";
    h->location = kw_tc_loc("/src/aiter/csrc/py_itfs/rmsnorm.cu", 140, 3);
    g = KW_PUSH(a, h->guards);
    g->kind = "ternary", g->condition = "n > 0", g->holds = true;
    h = KW_PUSH(a, sc->host_calls);
    h->caller = "launch_c", h->callee = "_ZN2ns6launchIfLi256ELi4EEEvPfPKfi";
}

#endif
