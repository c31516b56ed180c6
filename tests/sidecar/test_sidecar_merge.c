/* test_sidecar_merge.c: kw_sidecar_merge_kernels, as the host job uses it to
 * fold its device fragments (one per --offload-arch) into one sidecar:
 * kernels matched by symbol, archs unioned without duplicates, new kernels
 * deep-copied (still valid once the fragment is freed), offload_archs
 * unioned, a kernel without symbol refused; and as `kwalk index` uses it
 * (kw_index_adopt): a record whose object holds the kernel gives its archs
 * over a not_in_object record's, read before or after it; an arch record
 * with no fact (a Triton hook's `gfx950: {}`) takes the facts of a later
 * record of the arch (the cache's), and never replaces one that has facts. */
#include <string.h>

#include "index/kw_index.h"
#include "sidecar/kw_sidecar.h"
#include "kw_test.h"
#include "kw_test_sidecar.h"

static bool has_arch(const kw_kernel *k, const char *arch) {
    for (size_t i = 0; i < k->archs.n; i++)
        if (!strcmp(k->archs.v[i].arch, arch))
            return true;
    return false;
}

static void test_merge(void) {
    kw_sidecar dst, frag;
    kw_err err;
    kw_sidecar_init(&dst);
    kw_sidecar_init(&frag);
    *KW_PUSH(&dst.arena, dst.tu.offload_archs) = "gfx942";
    kw_kernel *k1 = kw_tc_kernel(&dst, "_Z2k1v", "k1", "gfx942");
    k1->doc = "dst's doc wins";

    /* the fragment: k1 again (another arch, another doc), k2 new, fully populated */
    kw_tc_full_sidecar(&frag);
    frag.tu.offload_archs.n = 0;
    *KW_PUSH(&frag.arena, frag.tu.offload_archs) = KW_TC_STR(&frag, "gfx950");
    *KW_PUSH(&frag.arena, frag.tu.offload_archs) = KW_TC_STR(&frag, "gfx942");
    kw_kernel *f1 = kw_tc_kernel(&frag, "_Z2k1v", "k1", "gfx950");
    kw_tc_arch(&frag, f1, "gfx942");
    f1->doc = "fragment's doc";
    size_t full_calls = frag.kernels.v[0].calls.n;

    CHECK(kw_sidecar_merge_kernels(&dst, &frag, &err) == KW_OK);
    kw_sidecar_free(&frag); /* dst must not point into it (ASan would tell) */

    CHECK(dst.kernels.n == 3);
    if (dst.kernels.n == 3) {
        const kw_kernel *a = &dst.kernels.v[0], *b = &dst.kernels.v[1], *t = &dst.kernels.v[2];
        CHECK_STR(a->symbol, "_Z2k1v");
        CHECK(a->archs.n == 2 && has_arch(a, "gfx942") && has_arch(a, "gfx950"));
        CHECK_STR(a->doc, "dst's doc wins");
        CHECK_STR(b->symbol, "_ZN2ns1kIfLi256ELi4ELb1ELNS_4ModeE0EEvPT_PKS2_i");
        CHECK(b->calls.n == full_calls && b->calls.n == 2);
        CHECK_STR(b->calls.v[0].callee_location.file, "/src/aiter/csrc/include/reduce.h");
        CHECK(b->template_args.n == 5);
        CHECK_STR(b->template_args.v[4].value, "ns::Mode::Plain");
        CHECK(b->shared.n == 2 && b->shared.v[1].bytes == -1);
        CHECK(b->archs.n == 2);
        CHECK_STR(t->symbol, "_Z6tricky");
        CHECK(t->params.n > 40);
        CHECK_STR(t->params.v[1].name, "true");
    }
    /* only kernels and archs are merged, not the host-side records */
    CHECK(dst.launches.n == 0 && dst.entries.n == 0 && dst.host_calls.n == 0);
    CHECK(dst.tu.offload_archs.n == 2);
    CHECK_STR(dst.tu.offload_archs.v[0], "gfx942");
    CHECK_STR(dst.tu.offload_archs.v[1], "gfx950");

    /* merging the same fragment twice changes nothing */
    kw_sidecar again;
    kw_sidecar_init(&again);
    kw_tc_kernel(&again, "_Z2k1v", "k1", "gfx950");
    CHECK(kw_sidecar_merge_kernels(&dst, &again, &err) == KW_OK);
    CHECK(kw_sidecar_merge_kernels(&dst, &again, &err) == KW_OK);
    CHECK(dst.kernels.n == 3 && dst.kernels.v[0].archs.n == 2);
    kw_sidecar_free(&again);

    /* a fragment kernel without symbol cannot be merged */
    kw_sidecar bad;
    kw_sidecar_init(&bad);
    kw_tc_kernel(&bad, "_Z1xv", "nameless", "gfx942")->symbol = NULL;
    CHECK(kw_sidecar_merge_kernels(&dst, &bad, &err) == KW_ERR);
    CHECK_STR(err.msg, "cannot merge kernel 0 (nameless): it has no symbol");
    kw_sidecar_free(&bad);

    /* the merged document still writes and reads back */
    kw_buf out;
    kw_buf_init(&out);
    CHECK(kw_sidecar_emit(&dst, &out, &err) == KW_OK);
    kw_sidecar back;
    CHECK(kw_sidecar_parse(&back, "m.yaml", out.ptr, out.len, &err) == KW_OK);
    CHECK(back.kernels.n == 3);
    kw_sidecar_free(&back);
    kw_buf_free(&out);
    kw_sidecar_free(&dst);
}

/* Merging into an empty sidecar copies everything; fragments in any order give
 * the same kernels. */
static void test_merge_order(void) {
    kw_sidecar d1, d2, f942, f950;
    kw_err err;
    kw_sidecar_init(&d1);
    kw_sidecar_init(&d2);
    kw_sidecar_init(&f942);
    kw_sidecar_init(&f950);
    kw_tc_kernel(&f942, "_Z1av", "a", "gfx942");
    kw_tc_kernel(&f942, "_Z1bv", "b", "gfx942");
    kw_tc_kernel(&f950, "_Z1bv", "b", "gfx950");
    kw_tc_kernel(&f950, "_Z1cv", "c", "gfx950");
    CHECK(kw_sidecar_merge_kernels(&d1, &f942, &err) == KW_OK);
    CHECK(kw_sidecar_merge_kernels(&d1, &f950, &err) == KW_OK);
    CHECK(kw_sidecar_merge_kernels(&d2, &f950, &err) == KW_OK);
    CHECK(kw_sidecar_merge_kernels(&d2, &f942, &err) == KW_OK);
    CHECK(d1.kernels.n == 3 && d2.kernels.n == 3);
    for (size_t i = 0; i < d1.kernels.n; i++) {
        const kw_kernel *k = &d1.kernels.v[i];
        size_t want = !strcmp(k->symbol, "_Z1bv") ? 2 : 1;
        CHECK(k->archs.n == want);
    }
    kw_sidecar_free(&d1);
    kw_sidecar_free(&d2);
    kw_sidecar_free(&f942);
    kw_sidecar_free(&f950);
}

/* One TU's object holds no code object (its kernel is not_in_object, its arch
 * records have IR facts only); another TU's object holds the kernel (ISA,
 * target id). Whichever sidecar is read first, the index has the second's
 * code-object facts and the kernel is no longer "not in the object". */
static void add_kernel_tu(kw_index *ix, bool in_object, bool adopt) {
    kw_sidecar sc;
    kw_err err;
    kw_sidecar_init(&sc);
    kw_kernel *k = kw_tc_kernel(&sc, "_Z1kv", "k", NULL);
    const char *archs[] = {"gfx942", "gfx950"};
    for (size_t i = 0; i < 2; i++) {
        kw_tc_arch(&sc, k, archs[i]);
        kw_kernel_arch *a = &k->archs.v[k->archs.n - 1];
        a->ir = kw_arena_alloc(&sc.arena, sizeof(kw_irf));
        CHECK(a->ir);
        if (a->ir) {
            kw_irf_init(a->ir);
            a->ir->symbol = KW_TC_STR(&sc, "_Z1kv");
            a->ir->wave_size = 64;
        }
        if (in_object) {
            a->target_id = KW_TC_STR(&sc, archs[i]);
            a->isa = KW_TC_STR(&sc, "0000: s_endpgm\n");
        }
    }
    if (!in_object)
        k->not_in_object = KW_TC_STR(&sc, "the object embeds no device code");
    const char *path = in_object ? "quant.o.kwalk.yaml" : "entry.o.kwalk.yaml";
    CHECK((adopt ? kw_index_adopt(ix, &sc, path, &err) : kw_index_add(ix, &sc, path, &err)) ==
          KW_OK);
    kw_sidecar_free(&sc);
}

static void test_merge_not_in_object(void) {
    for (int order = 0; order < 4; order++) {
        bool entry_first = order < 2, adopt = order & 1;
        kw_index ix;
        kw_index_init(&ix);
        add_kernel_tu(&ix, !entry_first, adopt);
        add_kernel_tu(&ix, entry_first, adopt);
        const kw_kernel *k = kw_index_kernel(&ix, "_Z1kv");
        CHECK(k && ix.kernels.n == 1);
        if (k) {
            CHECK(k->not_in_object == NULL);
            CHECK(k->archs.n == 2);
            for (size_t i = 0; i < k->archs.n; i++) {
                CHECK_STR(k->archs.v[i].isa, "0000: s_endpgm\n");
                CHECK_STR(k->archs.v[i].target_id, k->archs.v[i].arch);
                CHECK(k->archs.v[i].ir && k->archs.v[i].ir->wave_size == 64);
                CHECK_STR(k->archs.v[i].ir ? k->archs.v[i].ir->symbol : NULL, "_Z1kv");
            }
        }
        kw_index_free(&ix);
    }
}

/* A Triton hook's record (its arch empty: the hook reads no code object) and
 * the cache's record of the same compile (target id, listing), in both orders:
 * the index has the cache's facts. */
static void add_triton(kw_index *ix, bool facts) {
    kw_sidecar sc;
    kw_err err;
    kw_sidecar_init(&sc);
    kw_kernel *k = kw_tc_kernel(&sc, "_k@abc", "_k", "gfx950");
    k->doc = facts ? "cache" : "hook";
    if (facts) {
        k->archs.v[0].target_id = KW_TC_STR(&sc, "gfx950");
        k->archs.v[0].isa = KW_TC_STR(&sc, "0000: s_endpgm\n");
        k->archs.v[0].resources.vgpr = 25;
    }
    CHECK(kw_index_add(ix, &sc, facts ? "cache" : "hook.kwalk.yaml", &err) == KW_OK);
    kw_sidecar_free(&sc);
}

static void test_merge_empty_arch(void) {
    for (int hook_first = 0; hook_first < 2; hook_first++) {
        kw_index ix;
        kw_index_init(&ix);
        add_triton(&ix, !hook_first);
        add_triton(&ix, hook_first);
        const kw_kernel *k = kw_index_kernel(&ix, "_k@abc");
        CHECK(k && ix.kernels.n == 1 && k->archs.n == 1);
        if (k && k->archs.n == 1) {
            CHECK_STR(k->doc, hook_first ? "hook" : "cache"); /* the first record is kept */
            CHECK_STR(k->archs.v[0].target_id, "gfx950");
            CHECK_STR(k->archs.v[0].isa, "0000: s_endpgm\n");
            CHECK(k->archs.v[0].resources.vgpr == 25);
        }
        kw_index_free(&ix);
    }
}

int main(void) {
    test_merge();
    test_merge_order();
    test_merge_not_in_object();
    test_merge_empty_arch();
    return kw_test_result("test_sidecar_merge");
}
