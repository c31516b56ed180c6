/* test_call_graph.c: the device call graph of kwalk_schema 3
 * (sidecar/kw_call_graph.c). Kernels' call trees, written as the plugin's
 * depth-first walk flattens them, go through the writer and the reader and
 * come back record for record: kernels sharing helpers (their calls left
 * out, the helpers' edges written once under device_calls), recursion, the
 * depth limit, a kernel whose helper has other edges than in the graph (its
 * calls stay written), and the one case no graph can say (a kernel without
 * calls whose symbol is a caller in the graph: every kernel written out).
 * Also the IR records' positional ids. */
#include <string.h>

#include "common/kw_buf.h"
#include "kw_test.h"
#include "kw_test_sidecar.h"
#include "sidecar/kw_call_graph.h"
#include "sidecar/kw_sidecar.h"
#include "sidecar/kw_sidecar_ir.h"

#define SRC "/src/k.cu"

static kw_call *call(kw_sidecar *sc, kw_kernel *k, const char *caller, const char *callee,
                     int depth, bool system, int line) {
    kw_call *c = KW_PUSH(&sc->arena, k->calls);
    memset(c, 0, sizeof *c);
    c->caller = KW_TC_STR(sc, caller);
    c->name = KW_TC_STR(sc, callee); /* the printed name: the symbol will do */
    c->symbol = KW_TC_STR(sc, callee);
    c->depth = depth;
    c->system = system;
    c->location = kw_tc_loc(SRC, line, 3);
    c->callee_location = kw_tc_loc(system ? "/usr/include/hip.h" : SRC, line + 100, 1);
    return c;
}

/* Write sc, read it back; the text into *text (caller frees) */
static bool round_trip(const kw_sidecar *sc, kw_sidecar *back, kw_buf *text) {
    kw_err err;
    kw_buf_init(text);
    if (kw_sidecar_emit(sc, text, &err) != KW_OK) {
        fprintf(stderr, "emit: %s\n", err.msg);
        return false;
    }
    if (kw_sidecar_parse(back, "t.yaml", text->ptr, text->len, &err) != KW_OK) {
        fprintf(stderr, "parse: %s\n%s", err.msg, text->ptr);
        return false;
    }
    return true;
}

static bool loc_eq(kw_loc a, kw_loc b) {
    return ((!a.file && !b.file) || (a.file && b.file && !strcmp(a.file, b.file))) &&
           a.line == b.line && a.column == b.column;
}

static bool same_calls(const kw_kernel *a, const kw_kernel *b) {
    if (a->calls.n != b->calls.n)
        return false;
    for (size_t i = 0; i < a->calls.n; i++) {
        const kw_call *x = &a->calls.v[i], *y = &b->calls.v[i];
        if (strcmp(x->caller, y->caller) || strcmp(x->name, y->name) ||
            strcmp(x->symbol, y->symbol) || x->depth != y->depth || x->system != y->system ||
            !loc_eq(x->location, y->location) || !loc_eq(x->callee_location, y->callee_location))
            return false;
    }
    return true;
}

/* The kernel record of symbol in the text: does it have a `calls:` key? */
static bool written_with_calls(const char *text, const char *symbol) {
    char key[128];
    snprintf(key, sizeof key, "- symbol: %s\n", symbol);
    const char *k = strstr(text, key);
    if (!k)
        return false;
    const char *next = strstr(k + 1, "\n- symbol: ");
    const char *launches = strstr(k, "\nlaunches:");
    const char *end = next && (!launches || next < launches) ? next : launches;
    const char *calls = strstr(k, "\n  calls:");
    return calls && (!end || calls < end);
}

static void test_shared_helpers(void) {
    kw_sidecar sc, back;
    kw_sidecar_init(&sc);
    *KW_PUSH(&sc.arena, sc.tu.offload_archs) = "gfx942";
    /* kA -> h (line 10) -> {sync (system), g} ; g -> h (recursion: h expanded once) */
    kw_kernel *a = kw_tc_kernel(&sc, "kA", "kA", "gfx942");
    call(&sc, a, "kA", "h", 1, false, 10);
    call(&sc, a, "kA", "sync", 1, true, 11);
    call(&sc, a, "h", "sync", 2, true, 20);
    call(&sc, a, "h", "g", 2, false, 21);
    call(&sc, a, "g", "h", 3, false, 30);
    /* kB -> g (line 40): g's and h's edges as in kA, at other depths */
    kw_kernel *b = kw_tc_kernel(&sc, "kB", "kB", "gfx942");
    call(&sc, b, "kB", "g", 1, false, 40);
    call(&sc, b, "g", "h", 2, false, 30);
    call(&sc, b, "h", "sync", 3, true, 20);
    call(&sc, b, "h", "g", 3, false, 21);
    /* kC -> h, but its h has another edge (another arch's body): stays written */
    kw_kernel *c = kw_tc_kernel(&sc, "kC", "kC", "gfx942");
    call(&sc, c, "kC", "h", 1, false, 50);
    call(&sc, c, "h", "sync", 2, true, 22);
    /* kD: no calls */
    kw_tc_kernel(&sc, "kD", "kD", "gfx942");

    kw_buf text;
    kw_sidecar_init(&back);
    CHECK(round_trip(&sc, &back, &text));
    CHECK(strstr(text.ptr, "\ndevice_calls:\n") != NULL);
    CHECK(!written_with_calls(text.ptr, "kA"));
    CHECK(!written_with_calls(text.ptr, "kB"));
    CHECK(written_with_calls(text.ptr, "kC"));
    CHECK(back.schema == 3 && back.kernels.n == 4);
    for (size_t i = 0; i < sc.kernels.n && i < back.kernels.n; i++) {
        CHECK_STR(back.kernels.v[i].symbol, sc.kernels.v[i].symbol);
        CHECK(same_calls(&sc.kernels.v[i], &back.kernels.v[i]));
    }
    /* the same text once more: the writer is deterministic on what it read */
    kw_buf again;
    kw_sidecar back2;
    kw_sidecar_init(&back2);
    CHECK(round_trip(&back, &back2, &again));
    CHECK(again.len == text.len && !memcmp(again.ptr, text.ptr, text.len));
    kw_buf_free(&again);
    kw_sidecar_free(&back2);
    kw_buf_free(&text);
    kw_sidecar_free(&back);
    kw_sidecar_free(&sc);
}

static void test_depth_limit(void) {
    kw_sidecar sc, back;
    kw_sidecar_init(&sc);
    char f[80][16], g[16];
    for (int i = 0; i < 80; i++)
        snprintf(f[i], sizeof f[i], "f%d", i);
    /* kDeep -> f1 -> f2 -> ... : the walk lists edges down to depth 64 */
    kw_kernel *d = kw_tc_kernel(&sc, "kDeep", "kDeep", NULL);
    call(&sc, d, "kDeep", f[1], 1, false, 1);
    for (int i = 1; i < KW_CALL_DEPTH_MAX; i++)
        call(&sc, d, f[i], f[i + 1], i + 1, false, i + 1);
    /* kNear reaches f64 at depth 2, so f64's edge is in the graph */
    kw_kernel *n = kw_tc_kernel(&sc, "kNear", "kNear", NULL);
    call(&sc, n, "kNear", f[KW_CALL_DEPTH_MAX], 1, false, 200);
    snprintf(g, sizeof g, "f%d", KW_CALL_DEPTH_MAX + 1);
    call(&sc, n, f[KW_CALL_DEPTH_MAX], g, 2, false, 201);
    kw_buf text;
    kw_sidecar_init(&back);
    CHECK(round_trip(&sc, &back, &text));
    CHECK(!written_with_calls(text.ptr, "kDeep") && !written_with_calls(text.ptr, "kNear"));
    CHECK(back.kernels.n == 2);
    for (size_t i = 0; i < 2 && i < back.kernels.n; i++)
        CHECK(same_calls(&sc.kernels.v[i], &back.kernels.v[i]));
    CHECK(back.kernels.n == 2 && back.kernels.v[0].calls.n == KW_CALL_DEPTH_MAX);
    kw_buf_free(&text);
    kw_sidecar_free(&back);
    kw_sidecar_free(&sc);
}

static void test_not_sayable(void) {
    /* kE has no calls, yet kF's calls list edges of a caller named kE: the
     * walk would find them for kE, so nothing is left out */
    kw_sidecar sc, back;
    kw_sidecar_init(&sc);
    kw_tc_kernel(&sc, "kE", "kE", NULL);
    kw_kernel *f = kw_tc_kernel(&sc, "kF", "kF", NULL);
    call(&sc, f, "kF", "kE", 1, false, 5);
    call(&sc, f, "kE", "h", 2, false, 6);
    kw_buf text;
    kw_sidecar_init(&back);
    CHECK(round_trip(&sc, &back, &text));
    CHECK(strstr(text.ptr, "device_calls") == NULL);
    CHECK(written_with_calls(text.ptr, "kF"));
    CHECK(back.kernels.n == 2 && back.kernels.v[0].calls.n == 0);
    CHECK(back.kernels.n == 2 && same_calls(&sc.kernels.v[1], &back.kernels.v[1]));
    kw_buf_free(&text);
    kw_sidecar_free(&back);
    kw_sidecar_free(&sc);
}

static void test_schema2_reads(void) {
    /* a schema 2 text: calls and ids written out */
    const char *t = "kwalk_schema: 2\nkernels:\n- symbol: k\n  calls:\n"
                    "  - {caller: k, name: h, symbol: h, depth: 1, system: false}\n"
                    "  archs:\n    gfx942:\n      ir:\n        accesses:\n"
                    "        - {id: 0, op: load}\n        - {id: 1, op: store}\n...\n";
    kw_sidecar sc;
    kw_err err;
    CHECK(kw_sidecar_parse(&sc, "t.yaml", t, strlen(t), &err) == KW_OK);
    CHECK(sc.kernels.n == 1 && sc.kernels.v[0].calls.n == 1);
    if (sc.kernels.n == 1 && sc.kernels.v[0].archs.n == 1 && sc.kernels.v[0].archs.v[0].ir) {
        const kw_irf *ir = sc.kernels.v[0].archs.v[0].ir;
        CHECK(ir->accesses.n == 2 && ir->accesses.v[1].id == 1);
    } else {
        CHECK(!"no IR facts read");
    }
    kw_sidecar_free(&sc);
    /* schema 3: ids left out are positions, identical records shared */
    const char *u = "kwalk_schema: 3\nkernels:\n- symbol: k\n  archs:\n    gfx942:\n      ir:\n"
                    "        accesses:\n        - &a {op: load, space: global}\n"
                    "        - *a\n        - {op: store}\n...\n";
    CHECK(kw_sidecar_parse(&sc, "t.yaml", u, strlen(u), &err) == KW_OK);
    if (sc.kernels.n == 1 && sc.kernels.v[0].archs.n == 1 && sc.kernels.v[0].archs.v[0].ir) {
        const kw_irf *ir = sc.kernels.v[0].archs.v[0].ir;
        CHECK(ir->accesses.n == 3);
        for (size_t i = 0; i < ir->accesses.n; i++)
            CHECK(ir->accesses.v[i].id == (long long)i);
    } else {
        CHECK(!"no IR facts read");
    }
    kw_sidecar_free(&sc);
}

int main(void) {
    test_shared_helpers();
    test_depth_limit();
    test_not_sayable();
    test_schema2_reads();
    return kw_test_result("test_call_graph");
}
