/* test_sidecar_ir.c: the IR facts as typed sidecar records (kw_sidecar_ir.h):
 * a sidecar whose arch holds IR facts with every field kind and omission rule
 * is written, read back and written again (same bytes), copied through the
 * index (deep copy) and through the index database (same YAML again); the YAML
 * holds each value in the form docs/ir-facts.md gives it; the `kernels:` list
 * of kw_irf_emit_list reads back (kw_irf_parse_list) to the same bytes. */
#include <string.h>

#include "index/kw_index.h"
#include "kw_test.h"
#include "kw_test_sidecar.h"

static kw_val val_num(long long n) {
    kw_val v = {KW_VAL_NUM, n, NULL, NULL};
    return v;
}

static kw_val val_expr(const char *e) {
    kw_val v = {KW_VAL_EXPR, 0, e, NULL};
    return v;
}

static kw_val val_unknown(const char *why) {
    kw_val v = {KW_VAL_UNKNOWN, 0, NULL, why};
    return v;
}

static kw_irf_frame frame(const char *file, int line, int column, const char *function) {
    kw_irf_frame f = {{file, line, column}, function};
    return f;
}

/* IR facts with one record of each list, the kinds' special values set. */
static kw_irf *make_ir(kw_arena *a) {
    kw_irf *f = kw_arena_alloc(a, sizeof *f);
    if (!f)
        return NULL;
    kw_irf_init(f);
    f->symbol = "_Z4normPfPKfi";
    f->arch = "gfx942";
    f->wave_size = 64;
    f->debug_info = true;

    kw_irf_param *p = KW_PUSH(a, f->params);
    p->index = 0, p->name = "out", p->type = "ptr addrspace(1)", p->addrspace = 1;
    p->writeonly = p->noalias = true;
    p = KW_PUSH(a, f->params);
    p->index = 1, p->name = "n", p->type = "i32", p->addrspace = -1; /* not a pointer */

    kw_irf_access *x = KW_PUSH(a, f->accesses); /* global: segments and coalescing */
    x->id = 0, x->op = "load", x->space = "global", x->what = "load", x->type = "<4 x float>";
    x->bytes_per_lane = 16, x->align = 16, x->param = "in", x->param_index = 1;
    x->param_offset = -1;
    x->lane_stride_bytes = val_num(16);
    x->group_stride_bytes = val_expr("n * 4");
    x->group_stride_bytes_y = val_unknown("the stride depends on $2: not affine");
    x->group_stride_bytes_z.kind = KW_VAL_ABSENT;
    *KW_PUSH(a, x->depends_on) = "threadIdx.x";
    *KW_PUSH(a, x->depends_on) = "blockIdx.y";
    x->lanes_exact = true, x->active_lanes = 64, x->wave_bytes = 1024;
    x->segments_per_wave = 16, x->segments_per_wave_128 = -1, x->coalesced = -1;
    x->bank_conflict_degree = 7; /* not written: not lds */
    x->group = 0, x->loop = -1;
    x->loc.location = frame("/src/k.hip", 12, 5, "load_vec");
    x->loc.location_from = "address";
    *KW_PUSH(a, x->loc.inlined_at) = frame("/src/k.hip", 30, 3, "norm");
    *KW_PUSH(a, x->loc.inlined_at) = frame("/src/my dir/k.hip", 40, 1, "norm<float>");
    x = KW_PUSH(a, f->accesses); /* lds: a bank conflict degree, no segments */
    x->id = 1, x->op = "store", x->space = "lds", x->what = "store", x->type = "float";
    x->bytes_per_lane = 4, x->param = NULL, x->param_index = -1, x->object = "smem";
    x->param_offset = -1;
    x->lane_stride_bytes = val_unknown(NULL);
    x->group_stride_bytes = val_num(0);
    x->group_stride_bytes_y.kind = x->group_stride_bytes_z.kind = KW_VAL_ABSENT;
    x->active_lanes = 1, x->wave_bytes = -1, x->segments_per_wave = 3, x->coalesced = 1;
    x->bank_conflict_degree = -1, x->group = -1, x->loop = 0, x->conditional = true;

    kw_irf_group *g = KW_PUSH(a, f->groups);
    *KW_PUSH(a, g->members) = 0;
    *KW_PUSH(a, g->members) = 3;
    g->lane_stride_bytes = 32, g->bytes_per_lane = 32, g->contiguous = true;
    g->wave_bytes = 2048, g->segments_per_wave = 32, g->segments_per_wave_128 = 16;

    kw_irf_xlane *c = KW_PUSH(a, f->cross_lane);
    c->id = 0, c->op = "dpp", c->intrinsic = "llvm.amdgcn.update.dpp.i32", c->control = "row_shr:1";
    c->control_raw = 0x111, c->row_mask = 0xf, c->bank_mask = 0xa, c->bound_ctrl = true;
    c->bits = 32, c->idiom = 0, c->loop = -1;
    c = KW_PUSH(a, f->cross_lane);
    c->id = 1, c->op = "bpermute", c->intrinsic = "llvm.amdgcn.ds.bpermute", c->control = NULL;
    c->control_why = "the lane is not a function of the lane id";
    c->control_raw = c->row_mask = c->bank_mask = -1;
    c->bits = 32, c->idiom = -1, c->loop = -1;

    kw_irf_idiom *d = KW_PUSH(a, f->idioms);
    d->id = 0, d->kind = "block_reduce", d->op = "add", d->type = "float", d->via = "dpp+lds";
    d->steps = val_num(6), d->lanes = 64, d->result_lane = "0", d->broadcast_lane = -1;
    *KW_PUSH(a, d->cross_lane) = 0;
    *KW_PUSH(a, d->parts) = 1;
    *KW_PUSH(a, d->parts) = -1;
    d->barriers = 2, d->lds_object = NULL, d->lds_bytes = -1, d->loop = -1;
    d = KW_PUSH(a, f->idioms);
    d->id = 1, d->kind = "wave_reduce", d->steps = val_num(6), d->lanes = 64;
    d->result_lane = "all", d->broadcast_lane = 63, d->loop = -1;
    d->stride = "halving", d->barriers = 9; /* not written: not an LDS idiom */

    kw_irf_loop *l = KW_PUSH(a, f->loops);
    l->id = 0, l->parent = -1, l->depth = 1, l->trip_count = val_expr("ceil(n / 256)");
    l->accesses = 1;

    kw_irf_barrier *b = KW_PUSH(a, f->barrier_list);
    b->kind = "fence", b->scope = "workgroup", b->ordering = "release", b->loop = 0;
    f->barriers = 1;

    f->work_per_thread.flops = val_expr("n / 64");
    f->work_per_thread.transcendental = val_num(0);
    f->work_per_thread.int_ops = val_unknown("an inline asm statement");
    f->work_per_thread.conversions = val_num(2);
    f->work_per_thread.bytes_read = val_expr("blockDim.x");
    f->work_per_thread.bytes_written = val_num(4);
    f->work_per_thread.lds_bytes_read = val_num(0);
    f->work_per_thread.lds_bytes_written = val_num(4);
    f->work_per_thread.asm_uncounted = 1, f->work_per_thread.mfma = 0;

    kw_irf_asm *s = KW_PUSH(a, f->inline_asm);
    s->text = "v_add_f32 %0, %1, %2", s->constraints = "=v,v,v", s->is_volatile = true;
    s->srcloc = 1234, s->flops = 1, s->transcendental = -1, s->loop = -1;

    *KW_PUSH(a, f->notes) = "loop 0: trip count from a guard: n > 0";
    *KW_PUSH(a, f->notes) = "simple_word";
    return f;
}

static void check_has(const char *yaml, const char *want) {
    bool ok = strstr(yaml, want) != NULL;
    CHECK(ok);
    if (!ok)
        fprintf(stderr, "  missing: %s\n", want);
}

static void check_lacks(const char *yaml, const char *unwanted) {
    bool ok = strstr(yaml, unwanted) == NULL;
    CHECK(ok);
    if (!ok)
        fprintf(stderr, "  unexpected: %s\n", unwanted);
}

static void test_round_trip(void) {
    kw_sidecar sc;
    kw_sidecar_init(&sc);
    sc.producer.name = "kwalk";
    kw_kernel *k = kw_tc_kernel(&sc, "_Z4normPfPKfi", "norm", "gfx942");
    kw_tc_arch(&sc, k, "gfx950"); /* no IR facts */
    k->archs.v[0].ir = make_ir(&sc.arena);
    CHECK(k->archs.v[0].ir != NULL);

    kw_err err;
    kw_buf y1, y2;
    kw_buf_init(&y1);
    kw_buf_init(&y2);
    CHECK(kw_sidecar_emit(&sc, &y1, &err) == KW_OK);
    const char *t = kw_buf_str(&y1);

    /* the forms of docs/ir-facts.md */
    check_has(t, "\n      ir:\n        symbol: _Z4normPfPKfi\n        arch: gfx942\n");
    check_has(t, "- {index: 0, name: out, type: \"ptr addrspace(1)\", addrspace: 1, readonly: "
                 "false, writeonly: true, noalias: true}");
    check_has(t, "- {index: 1, name: n, type: i32}");
    check_has(t, "type: \"<4 x float>\"");
    check_has(t, "lane_stride_bytes: 16");
    check_has(t, "group_stride_bytes: \"n * 4\"");
    check_has(t, "group_stride_bytes_y: unknown");
    check_has(t, "group_stride_bytes_y_why: \"the stride depends on $2: not affine\"");
    check_lacks(t, "group_stride_bytes_z");
    check_has(t, "depends_on: [threadIdx.x, blockIdx.y]");
    check_has(t, "segments_per_wave_128: unknown");
    check_has(t, "coalesced: unknown");
    check_has(t, "loop: null");
    check_has(t, "location: {file: /src/k.hip, line: 12, column: 5, function: load_vec}");
    check_has(t, "location_from: address");
    check_has(t, "inlined_at: [{file: /src/k.hip, line: 30, column: 3, function: norm}, "
                 "{file: \"/src/my dir/k.hip\", line: 40, column: 1, function: "
                 "\"norm<float>\"}]");
    /* the lds access: a degree, no segments or coalescing; unknown without a reason */
    check_has(t, "param: null");
    check_has(t, "object: smem");
    check_has(t, "lane_stride_bytes: unknown, group_stride_bytes: 0");
    check_has(t, "wave_bytes: unknown, bank_conflict_degree: unknown");
    check_lacks(t, "bank_conflict_degree: 7");
    check_has(t, "- {members: [0, 3], lane_stride_bytes: 32, bytes_per_lane: 32, contiguous: "
                 "true, wave_bytes: 2048, segments_per_wave: 32, segments_per_wave_128: 16}");
    check_has(t, "control_raw: 0x111, row_mask: 0xf, bank_mask: 0xa, "
                 "bound_ctrl: true");
    check_has(t, "control: null, control_why: \"the lane is not a function of the "
                 "lane id\", bits: 32");
    check_has(t, "parts: [1, -1], barriers: 2, lds_object: null, "
                 "lds_bytes: unknown");
    check_has(t, "result_lane: all, broadcast_lane: 63, cross_lane: [], "
                 "loop: null");
    check_lacks(t, "stride: halving");
    check_lacks(t, "{id: "); /* records are numbered by position (kwalk_schema 3) */
    check_lacks(t, "barriers: 9");
    check_has(t, "trip_count: \"ceil(n / 256)\"");
    check_has(t, "int_ops: unknown\n          int_ops_why: \"an inline asm statement\"\n");
    check_has(t, "text: \"v_add_f32 %0, %1, %2\"");
    check_has(t, "transcendental: unknown");
    check_has(t,
              "notes:\n        - \"loop 0: trip count from a guard: n > 0\"\n"
                 "        - simple_word\n");

    /* read back: the same facts, written the same */
    kw_sidecar back;
    CHECK(kw_sidecar_parse(&back, "ir.kwalk.yaml", y1.ptr, y1.len, &err) == KW_OK);
    const kw_irf *r =
        back.kernels.n && back.kernels.v[0].archs.n ? back.kernels.v[0].archs.v[0].ir : NULL;
    CHECK(r != NULL);
    CHECK(back.kernels.n && back.kernels.v[0].archs.n == 2 && !back.kernels.v[0].archs.v[1].ir);
    if (r) {
        CHECK(r->accesses.n == 2 && r->accesses.v[0].lane_stride_bytes.kind == KW_VAL_NUM &&
              r->accesses.v[0].lane_stride_bytes.num == 16);
        CHECK(r->accesses.n == 2 && r->accesses.v[0].group_stride_bytes.kind == KW_VAL_EXPR);
        CHECK_STR(r->accesses.v[0].group_stride_bytes_y.why,
                  "the stride depends on $2: not affine");
        CHECK(r->accesses.v[0].group_stride_bytes_z.kind == KW_VAL_ABSENT);
        CHECK(r->accesses.v[0].coalesced == -1 && r->accesses.v[0].loop == -1);
        CHECK(r->accesses.v[0].loc.inlined_at.n == 2 &&
              r->accesses.v[0].loc.inlined_at.v[1].at.line == 40);
        CHECK(r->cross_lane.n == 2 && r->cross_lane.v[0].control_raw == 0x111);
        CHECK(r->idioms.n == 2 && r->idioms.v[0].parts.n == 2 && r->idioms.v[0].parts.v[1] == -1);
        CHECK(r->work_per_thread.bytes_written.kind == KW_VAL_NUM &&
              r->work_per_thread.bytes_written.num == 4);
        CHECK(r->notes.n == 2);
        CHECK(r->accesses.n == 2 && r->accesses.v[1].id == 1 && r->cross_lane.v[1].id == 1 &&
              r->idioms.v[1].id == 1);
    }
    CHECK(kw_sidecar_emit(&back, &y2, &err) == KW_OK);
    CHECK(y1.len == y2.len && !memcmp(y1.ptr, y2.ptr, y1.len));

    /* the index: a deep copy, then the database and back */
    kw_index ix, ix2;
    kw_index_init(&ix);
    CHECK(kw_index_add(&ix, &back, "ir.kwalk.yaml", &err) == KW_OK);
    const kw_sidecar *scs[] = {&back};
    const char *names[] = {"ir.kwalk.yaml"};
    CHECK(kw_index_db_write("t-ir.db", &ix.producer, scs, names, 1, &err) == KW_OK);
    kw_sidecar_free(&back); /* the index holds its own copy */
    kw_buf i1, i2;
    kw_buf_init(&i1);
    kw_buf_init(&i2);
    CHECK(kw_index_emit(&ix, &i1, &err) == KW_OK);
    CHECK(strstr(kw_buf_str(&i1), "group_stride_bytes_y_why: \"the stride depends on $2: not "
                                  "affine\"") != NULL);
    CHECK(kw_index_read_file(&ix2, "t-ir.db", &err) == KW_OK);
    CHECK(kw_index_emit(&ix2, &i2, &err) == KW_OK);
    CHECK(i1.len == i2.len && !memcmp(i1.ptr, i2.ptr, i1.len));
    kw_index_free(&ix);
    kw_index_free(&ix2);
    kw_buf_free(&i1);
    kw_buf_free(&i2);
    kw_buf_free(&y1);
    kw_buf_free(&y2);
    kw_sidecar_free(&sc);
}

/* What a reader must refuse or take in the IR facts' kinds. */
static void test_read_forms(void) {
    static const char *const good =
        "kwalk_schema: 1\n"
        "kernels:\n"
        "- symbol: k\n"
        "  archs:\n"
        "    gfx942:\n"
        "      ir:\n"
        "        symbol: k\n"
        "        accesses:\n"
        "        - {id: 0, space: global, lane_stride_bytes: \"12\", coalesced: false, "
        "group: null, wave_bytes: unknown}\n"
        "        - {id: 1, space: lds, coalesced: true, segments_per_wave: 4}\n"
        "        cross_lane:\n"
        "        - {control_raw: 0x1F, row_mask: 15}\n"
        "...\n";
    kw_sidecar sc;
    kw_err err;
    CHECK(kw_sidecar_parse(&sc, "good", good, strlen(good), &err) == KW_OK);
    const kw_irf *r =
        sc.kernels.n && sc.kernels.v[0].archs.n ? sc.kernels.v[0].archs.v[0].ir : NULL;
    CHECK(r && r->accesses.n == 2 && r->cross_lane.n == 1);
    if (r && r->accesses.n == 2 && r->cross_lane.n == 1) {
        /* a quoted number is an expression, not a number */
        CHECK(r->accesses.v[0].lane_stride_bytes.kind == KW_VAL_EXPR);
        CHECK(r->accesses.v[0].coalesced == 0);
        CHECK(r->accesses.v[0].group == -1 && r->accesses.v[0].wave_bytes == -1);
        CHECK(r->cross_lane.v[0].control_raw == 0x1f && r->cross_lane.v[0].row_mask == 15);
        /* what the writer leaves out for an LDS access is not kept either */
        CHECK(r->accesses.v[1].coalesced == -1 && r->accesses.v[1].segments_per_wave == -1);
    }
    kw_sidecar_free(&sc);

    static const char *const bad[] = {
        "ir:\n        accesses:\n        - {coalesced: maybe}\n",
        "ir:\n        cross_lane:\n        - {control_raw: 0xZZ}\n",
        "ir:\n        groups:\n        - {members: [1, x]}\n",
        "ir:\n        loops:\n        - {trip_count: [1]}\n",
        "ir:\n        wave_size: unknown\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char doc[512];
        snprintf(doc, sizeof doc,
                 "kwalk_schema: 1\nkernels:\n- symbol: k\n  archs:\n    gfx942:\n      %s...\n",
                 bad[i]);
        CHECK(kw_sidecar_parse(&sc, "bad", doc, strlen(doc), &err) == KW_ERR);
        CHECK(strstr(err.msg, "kernels[0].archs.gfx942.ir.") != NULL);
    }
}

/* kw_irf_emit_list's document (kwalk-irfacts' output) read back by
 * kw_irf_parse_list and written again: the same bytes; damaged: an error. */
static void test_list(void) {
    kw_arena a;
    kw_arena_init(&a);
    kw_irf *facts[2] = {make_ir(&a), make_ir(&a)};
    CHECK(facts[0] && facts[1]);
    if (!facts[0] || !facts[1]) {
        kw_arena_free(&a);
        return;
    }
    facts[1]->symbol = "second";
    kw_err err;
    kw_buf y1, y2;
    kw_buf_init(&y1);
    kw_buf_init(&y2);
    CHECK(kw_irf_emit_list(facts, 2, &y1, &err) == KW_OK);
    kw_irf_list l;
    CHECK(kw_irf_parse_list(&l, &a, "list", y1.ptr, y1.len, &err) == KW_OK);
    CHECK(l.kernels.n == 2 && !strcmp(l.kernels.v[1].symbol, "second"));
    kw_irf *back[2] = {l.kernels.n > 0 ? &l.kernels.v[0] : NULL,
                       l.kernels.n > 1 ? &l.kernels.v[1] : NULL};
    if (back[0] && back[1]) {
        CHECK(kw_irf_emit_list(back, 2, &y2, &err) == KW_OK);
        CHECK(y1.len == y2.len && !memcmp(y1.ptr, y2.ptr, y1.len));
    }
    /* cut in the middle, or not a list of mappings: one error naming the input */
    CHECK(kw_irf_parse_list(&l, &a, "cut", y1.ptr, y1.len / 2, &err) == KW_ERR);
    CHECK(strstr(err.msg, "cut") != NULL);
    static const char notlist[] = "kernels: 3\n";
    CHECK(kw_irf_parse_list(&l, &a, "notlist", notlist, sizeof notlist - 1, &err) == KW_ERR);
    kw_buf_free(&y1);
    kw_buf_free(&y2);
    kw_arena_free(&a);
}

int main(void) {
    test_round_trip();
    test_read_forms();
    test_list();
    return kw_test_result("test_sidecar_ir");
}
