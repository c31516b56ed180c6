/* test_calltree_unit.c: unit test of the device call tree a page shows
 * (model/kw_calltree.h) on a hand-built kernel whose calls go through
 * compile-time helper frames (a static_for and its lambda), repeat one
 * function under one caller (two instantiations, three calls), and reach a
 * leaf; every expected item worked out by hand here. Also the name helpers:
 * template arguments removed (operators kept), short labels, elision. */
#include <stdio.h>
#include <string.h>

#include "kw_test.h"
#include "model/kw_calltree.h"

static kw_call kw_edge(const char *caller, const char *name, const char *symbol, int line,
                       int def_line) {
    kw_call c;
    memset(&c, 0, sizeof(c));
    c.caller = caller;
    c.name = name;
    c.symbol = symbol;
    c.location.file = "/src/k.hip";
    c.location.line = line;
    c.callee_location.file = "/src/lib.hpp";
    c.callee_location.line = def_line;
    return c;
}

static void test_names(void) {
    kw_arena a;
    kw_arena_init(&a);
    CHECK_STR(kw_calltree_plain("ns::A<int, B<2>>::f<3>", &a), "ns::A::f");
    CHECK_STR(kw_calltree_plain("ns::operator<<<int>", &a), "ns::operator<<");
    CHECK_STR(kw_calltree_plain("ns::X<a->b>::operator->", &a), "ns::X::operator->");
    CHECK_STR(kw_calltree_label("ck_tile::BlockGemm<P<1>, Q>::operator()<R>", &a),
              "BlockGemm::operator()");
    CHECK_STR(kw_calltree_label("ck_tile::make_tile_window<T>", &a), "ck_tile::make_tile_window");
    CHECK_STR(kw_calltree_label("f(int)::(lambda at /a/b/c.hpp:3:5)::operator()", &a),
              "(lambda at c.hpp:3:5)::operator()");
    CHECK_STR(kw_calltree_elide("A<B<C<1>>, 4>::f<D<2>>", 1, &a),
              "A<B<\xe2\x80\xa6>, 4>::f<D<\xe2\x80\xa6>>");
    CHECK_STR(kw_calltree_elide("A<x>", 0, &a), "A<\xe2\x80\xa6>");
    kw_arena_free(&a);
}

static void test_tree(void) {
    kw_arena a;
    kw_arena_init(&a);
    kw_kernel k;
    memset(&k, 0, sizeof(k));
    k.symbol = "K";
    k.name = "ck_tile::kentry<G>";
    kw_call edges[] = {
        kw_edge("K", "ck_tile::static_for<0, 2, 1>::operator()<L>", "SF", 10, 100),
        kw_edge("K", "ck_tile::Epi<E>::operator()", "EPI", 20, 300),
        kw_edge("SF", "ck_tile::Pipe<P>::run()::(lambda)::operator()<ck_tile::number<0>>", "L0",
                101, 200),
        kw_edge("SF", "ck_tile::Pipe<P>::run()::(lambda)::operator()<ck_tile::number<1>>", "L1",
                101, 200),
        kw_edge("L0", "ck_tile::BlockGemm<A<0>>::operator()", "BG0", 201, 400),
        kw_edge("L1", "ck_tile::BlockGemm<A<1>>::operator()", "BG1", 201, 400),
        kw_edge("L1", "ck_tile::BlockGemm<A<1>>::operator()", "BG1", 202, 400),
        kw_edge("BG0", "ck_tile::WarpGemm<W>::operator()", "WG", 401, 500),
        kw_edge("BG0", "ck_tile::tensor_descriptor<D>::calculate_offset", "TD", 402, 600),
        kw_edge("TD", "ck_tile::embed<E>::calculate_lower_index", "EM", 601, 700),
        kw_edge("EPI", "ck_tile::BlockGemm<A<0>>::operator()", "BG0", 301, 400),
    };
    edges[0].location.file = "/src/k.hip";
    k.calls.v = edges;
    k.calls.n = sizeof(edges) / sizeof(edges[0]);
    const char *helpers[] = {"ck_tile::static_for::*", "ck_tile::*(lambda*)::operator()"};
    const char *leaves[] = {"ck_tile::tensor_descriptor::*"};
    kw_calltree_rules rules;
    memset(&rules, 0, sizeof(rules));
    rules.helpers.v = helpers;
    rules.helpers.n = 2;
    rules.leaves.v = leaves;
    rules.leaves.n = 1;
    kw_calltree t;
    kw_err err;
    CHECK(kw_calltree_build(&t, &k, &rules, &a, &err) == KW_OK);
    /* BlockGemm (3 calls through the static_for's two lambdas, 2
     * instantiations) -> WarpGemm, tensor_descriptor (a leaf); Epi ->
     * BlockGemm again (listed above) */
    CHECK(t.items.n == 5);
    CHECK(t.folded == 3); /* the static_for and its two lambda frames */
    if (t.items.n == 5) {
        const kw_calltree_item *it = t.items.v;
        CHECK_STR(it[0].label, "BlockGemm::operator()");
        CHECK(it[0].depth == 0 && it[0].calls == 3 && it[0].insts == 2 && !it[0].above);
        CHECK(it[0].at.line == 201 && it[0].def.line == 400);
        CHECK_STR(t.fulls.v[it[0].full], "ck_tile::BlockGemm<A<0>>::operator()");
        CHECK_STR(it[1].label, "WarpGemm::operator()");
        CHECK(it[1].depth == 1 && it[1].calls == 1);
        CHECK_STR(it[2].label, "tensor_descriptor::calculate_offset");
        CHECK(it[2].depth == 1 && it[2].leaf);
        CHECK_STR(it[3].label, "Epi::operator()");
        CHECK(it[3].depth == 0);
        CHECK_STR(it[4].label, "BlockGemm::operator()");
        CHECK(it[4].depth == 1 && it[4].above && it[4].full == it[0].full);
    }
    CHECK(t.fulls.n == 4 && t.elided == 0);
    /* without rules: every frame is an item */
    kw_calltree u;
    CHECK(kw_calltree_build(&u, &k, NULL, &a, &err) == KW_OK);
    CHECK(u.folded == 0 && u.items.n > t.items.n);
    if (u.items.n)
        CHECK_STR(u.items.v[0].label, "static_for::operator()");
    kw_arena_free(&a);
}

int main(void) {
    test_names();
    test_tree();
    return kw_test_result("calltree");
}
