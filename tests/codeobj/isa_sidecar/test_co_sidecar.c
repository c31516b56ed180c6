/* test_co_sidecar.c: kw_co_sidecar_fill in C (under ASan+UBSan with
 * KWALK_SANITIZE=ON; the plugin that calls it is built plain), on the
 * wg_attrs object the isa_sidecar tests build (argv[1]) for the build's arches
 * (argv[2], comma-separated; the values checked for gfx942 alone are its own):
 *   - the occupancy over the source's range: attrs as the plugin records them,
 *     and malformed attribute values (ignored: the code object's range stays);
 *   - a kernel filter; two fills into one sidecar (the second code object of a
 *     target is keyed TARGET#OBJECT, the first one is not appended to);
 *   - a file that is not there: an error, the sidecar untouched;
 *   - schema 2: a fill with KW_CO_SC_CODE_OBJECTS records one code object per
 *     arch and no listing; kw_co_sidecar_refill on the same file adds the
 *     listings a KW_CO_SC_LISTING fill gives (same keys: no TARGET#OBJECT
 *     entry), and on a missing file or a changed MD5 an isa_note instead. */
#include <string.h>

#include "kw_test.h"
#include "codeobj/kw_co_sidecar.h"

static kw_kernel *add_kernel(kw_sidecar *sc, const char *symbol, const char *attr,
                             const char *value) {
    kw_kernel *k = KW_PUSH(&sc->arena, sc->kernels);
    if (!k)
        return NULL;
    k->symbol = symbol;
    if (attr) {
        kw_attr *a = KW_PUSH(&sc->arena, k->attrs);
        if (a) {
            a->name = attr;
            a->value = value;
        }
    }
    return k;
}

static const kw_kernel_arch *arch_of(const kw_sidecar *sc, const char *symbol, const char *arch) {
    for (size_t i = 0; i < sc->kernels.n; i++) {
        const kw_kernel *k = &sc->kernels.v[i];
        if (!k->symbol || strcmp(k->symbol, symbol))
            continue;
        for (size_t j = 0; j < k->archs.n; j++)
            if (k->archs.v[j].arch && !strcmp(k->archs.v[j].arch, arch))
                return &k->archs.v[j];
    }
    return NULL;
}

static long long occupancy(const kw_sidecar *sc, const char *symbol, const char *arch) {
    const kw_kernel_arch *a = arch_of(sc, symbol, arch);
    return a ? a->resources.occupancy : -100;
}

static int count_key(const kw_kernel_arch *a, const char *key) {
    int n = 0;
    for (size_t i = 0; a && i < a->memory.n; i++)
        n += a->memory.v[i].key && !strcmp(a->memory.v[i].key, key);
    return n;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: test_co_sidecar WG_ATTRS.o ARCH[,ARCH...]\n");
        return 2;
    }
    const char *path = argv[1];
    char arch_list[256];
    const char *archs[8];
    int narch = 0;
    snprintf(arch_list, sizeof arch_list, "%s", argv[2]);
    for (char *a = arch_list; *a && narch < 8;) {
        archs[narch++] = a;
        char *comma = strchr(a, ',');
        if (!comma)
            break;
        *comma = '\0';
        a = comma + 1;
    }
    kw_err err;
    kw_sidecar sc;

    /* the source's range (attrs as the plugin records them) */
    kw_sidecar_init(&sc);
    add_kernel(&sc, "wg_576", "amdgpu_flat_work_group_size", "576,576");
    add_kernel(&sc, "wg_320_640", "amdgpu_flat_work_group_size", "320, 640");
    add_kernel(&sc, "hip_lb_256", "launch_bounds", "256,2");   /* max = the code object's */
    add_kernel(&sc, "bare_lb_256", "launch_bounds", "256");    /* the code object says 1024 */
    kw_kernel *both = add_kernel(&sc, "both_192", "launch_bounds", "1024");
    kw_attr *fw = both ? KW_PUSH(&sc.arena, both->attrs) : NULL;
    CHECK(fw != NULL);
    if (fw) {
        fw->name = "amdgpu_flat_work_group_size"; /* wins over launch_bounds */
        fw->value = "192,192";
    }
    add_kernel(&sc, "_Z8wg_exactILi832EEvPf", "amdgpu_flat_work_group_size", "832,832");
    size_t before = sc.kernels.n;
    CHECK(kw_co_sidecar_fill(&sc, path, KW_CO_SC_LISTING, &err) == KW_OK);
    CHECK(sc.kernels.n == before + 4); /* plain, 448, hip_lb_256_2, bare_lb_576_1 added */
    CHECK(narch > 0);
    for (int g = 0; g < narch; g++) {
        const char *arch = archs[g];
        CHECK(occupancy(&sc, "wg_576", arch) == 7);
        CHECK(occupancy(&sc, "_Z8wg_exactILi832EEvPf", arch) == 7);
        CHECK(occupancy(&sc, "_Z8wg_exactILi448EEvPf", arch) == 8); /* no attrs here */
        CHECK(occupancy(&sc, "wg_320_640", arch) == 8);
        CHECK(occupancy(&sc, "bare_lb_256", arch) == 8);
        CHECK(occupancy(&sc, "both_192", arch) == 8);
        const kw_kernel_arch *w = arch_of(&sc, "wg_576", arch);
        CHECK(w && w->resources.occupancy_limiter && !strcmp(w->resources.occupancy_limiter,
                                                             "workgroup"));
        CHECK(w && w->isa && w->classes.insns > 0 && w->lines_note && w->lines.n == 0);
    }
    CHECK(occupancy(&sc, "hip_lb_256", "gfx942") == 4); /* 16 KiB LDS over 1..256 */

    /* the same file again: a second code object per target, keyed TARGET#OBJECT;
     * the first entry keeps what it had */
    const kw_kernel_arch *first = arch_of(&sc, "wg_320_640", "gfx942");
    int loads = count_key(first, "lds_load");
    size_t nmem = first ? first->memory.n : 0;
    CHECK(kw_co_sidecar_fill(&sc, path, KW_CO_SC_LISTING, &err) == KW_OK);
    first = arch_of(&sc, "wg_320_640", "gfx942");
    CHECK(first && first->memory.n == nmem && count_key(first, "lds_load") == loads);
    int hashed = 0;
    for (size_t i = 0; i < sc.kernels.n; i++)
        for (size_t j = 0; j < sc.kernels.v[i].archs.n; j++)
            hashed += strchr(sc.kernels.v[i].archs.v[j].arch, '#') != NULL;
    CHECK(hashed == 10 * narch); /* 10 kernels x the arches */
    CHECK(occupancy(&sc, "wg_576", "gfx942#0") == 7 || occupancy(&sc, "wg_576", "gfx942#1") == 7);
    kw_sidecar_free(&sc);

    /* malformed values: ignored, the code object's own range stays (1..576: 8) */
    static const char *const bad[] = {"",          "x",      "576",    "576,",
                                      ",576",      "577,576", "0,576", "576,576,1",
                                      "576;576",   "-1,576", "576,99999999999999999999",
                                      "1,2048",    "576,576x", NULL};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        kw_sidecar_init(&sc);
        add_kernel(&sc, "wg_576", "amdgpu_flat_work_group_size", bad[i]);
        add_kernel(&sc, "bare_lb_256", "launch_bounds", bad[i]);
        CHECK(kw_co_sidecar_fill(&sc, path, 0, &err) == KW_OK);
        long long o = occupancy(&sc, "wg_576", "gfx942");
        if (o != 8)
            fprintf(stderr, "value '%s': occupancy %lld\n", bad[i] ? bad[i] : "(null)", o);
        CHECK(o == 8);
        CHECK(occupancy(&sc, "bare_lb_256", "gfx942") == 8);
        const kw_kernel_arch *w = arch_of(&sc, "wg_576", "gfx942");
        CHECK(w && w->isa == NULL && w->classes.insns == -1); /* no listing asked */
        kw_sidecar_free(&sc);
    }

    /* only the kernels matching */
    kw_sidecar_init(&sc);
    CHECK(kw_co_sidecar_fill_kernels(&sc, path, KW_CO_SC_LISTING, "wg_5", &err) == KW_OK);
    CHECK(sc.kernels.n == 1 && !strcmp(sc.kernels.v[0].symbol, "wg_576") &&
          sc.kernels.v[0].archs.n == (size_t)narch);
    kw_sidecar_free(&sc);

    /* schema 2: the table, then the listing read back */
    kw_sidecar full;
    kw_sidecar_init(&full);
    CHECK(kw_co_sidecar_fill(&full, path, KW_CO_SC_LISTING, &err) == KW_OK);
    for (int pass = 0; pass < 3; pass++) {
        kw_sidecar_init(&sc);
        CHECK(kw_co_sidecar_fill(&sc, path, KW_CO_SC_CODE_OBJECTS, &err) == KW_OK);
        CHECK(sc.tu.code_objects.n == (size_t)narch);
        for (size_t i = 0; i < sc.tu.code_objects.n; i++) {
            const kw_code_object *c = &sc.tu.code_objects.v[i];
            CHECK(c->arch && c->target_id && c->bytes > 0 && c->md5 && strlen(c->md5) == 32);
        }
        const kw_kernel_arch *w = arch_of(&sc, "wg_576", "gfx942");
        CHECK(w && w->isa == NULL && w->classes.insns == -1 && w->target_id);
        const char *note = NULL;
        if (pass == 1) /* a changed code object */
            sc.tu.code_objects.v[0].md5 = "00000000000000000000000000000000";
        CHECK(kw_co_sidecar_refill(&sc, pass == 2 ? "/nonexistent/x.o" : path, &note, &err) ==
              KW_OK);
        CHECK(sc.kernels.n == full.kernels.n);
        for (size_t i = 0; i < sc.kernels.n; i++) {
            const kw_kernel *k = &sc.kernels.v[i];
            CHECK(k->archs.n == (size_t)narch);
            for (size_t j = 0; j < k->archs.n; j++) {
                const kw_kernel_arch *a = &k->archs.v[j];
                const kw_kernel_arch *f = arch_of(&full, k->symbol, a->arch);
                bool noted =
                    pass == 2 || (pass == 1 && !strcmp(a->arch, sc.tu.code_objects.v[0].arch));
                CHECK(f && a->target_id && f->target_id && !strcmp(a->target_id, f->target_id));
                if (noted) {
                    CHECK(a->isa == NULL && a->isa_note && note && a->classes.insns == -1);
                } else {
                    CHECK(a->isa && f && f->isa && !strcmp(a->isa, f->isa) && !a->isa_note);
                    CHECK(f && a->classes.insns == f->classes.insns && a->memory.n == f->memory.n);
                }
            }
        }
        CHECK((pass == 0) == (note == NULL));
        if (pass == 2)
            CHECK(note && strstr(note, "/nonexistent/x.o not found") != NULL);
        if (pass == 1)
            CHECK(note && strstr(note, "changed since the compile") && strstr(note, "was ") &&
                  strstr(note, "00000000000000000000000000000000"));
        kw_sidecar_free(&sc);
    }
    kw_sidecar_free(&full);

    /* no such file: an error, nothing added */
    kw_sidecar_init(&sc);
    add_kernel(&sc, "wg_576", NULL, NULL);
    err.msg[0] = '\0';
    CHECK(kw_co_sidecar_fill(&sc, "/nonexistent/x.hipfb", KW_CO_SC_LISTING, &err) == KW_ERR);
    CHECK(strstr(err.msg, "/nonexistent/x.hipfb") != NULL);
    CHECK(sc.kernels.n == 1 && sc.kernels.v[0].archs.n == 0 && sc.tu.offload_archs.n == 0);
    kw_sidecar_free(&sc);
    return kw_test_result("test_co_sidecar");
}
