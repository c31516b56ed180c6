/* kw_pick.c: the kernels a query of `kwalk render KERNEL` matches
 * (kw_pick.h), stage by stage. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "model/kw_pick.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "codeobj/kw_names.h"

static bool kw_has_arch(const kw_mkernel *mk, const char *arch) {
    if (!arch)
        return true;
    for (size_t i = 0; mk->k && i < mk->k->archs.n; i++)
        if (!strcmp(mk->k->archs.v[i].arch, arch))
            return true;
    return false;
}

/* Does path name file q: the same string, path ending in "/q", or the same
 * file on disk? */
static bool kw_names_file(const char *path, const char *q) {
    if (!path)
        return false;
    size_t np = strlen(path), nq = strlen(q);
    if (!strcmp(path, q) || (np > nq && path[np - nq - 1] == '/' && !strcmp(path + np - nq, q)))
        return true;
    char *a = realpath(path, NULL), *b = a ? realpath(q, NULL) : NULL;
    bool same = a && b && !strcmp(a, b);
    free(a);
    free(b);
    return same;
}

/* --tu: a kernel with internal linkage must belong to the unit FILE names;
 * one with external linkage is the build's, whatever the unit. */
static bool kw_in_tu(const kw_mkernel *mk, const char *tu) {
    if (!tu || !mk->tu)
        return true;
    return kw_names_file(mk->tu->tu.source, tu) || kw_names_file(mk->tu->tu.object, tu) ||
           kw_names_file(mk->tu->sidecar, tu);
}

bool kw_pick_fits(const kw_mkernel *mk, const char *arch, const char *tu) {
    return kw_has_arch(mk, arch) && kw_in_tu(mk, tu);
}

static void kw_pick_hit(kw_arena *a, kw_pick_hits *h, size_t i) {
    size_t *slot = KW_PUSH(a, h->v);
    if (slot)
        *slot = i;
}

void kw_pick_match(const kw_model *m, const char *q, const char *arch, const char *tu, kw_arena *a,
                   kw_pick_hits *h) {
    memset(h, 0, sizeof(*h));
    for (int stage = 0; stage < 6 && !h->v.n; stage++) {
        regex_t re;
        if (stage == 5 && regcomp(&re, q, REG_EXTENDED | REG_NOSUB) != 0)
            break;
        for (size_t i = 0; i < m->kernels.n; i++) {
            const kw_mkernel *mk = &m->kernels.v[i];
            bool hit = false;
            switch (stage) {
            case 0:
                hit = !strcmp(mk->symbol, q);
                break;
            case 1: /* the printed name, or as list and index.md write it (aliases) */
                hit = !strcmp(mk->name, q) || !strcmp(kw_title_name(a, mk), q);
                break;
            case 2:
                /* a template, or the kernel struct a trampoline runs */
                hit = !strcmp(m->groups.v[mk->group].key, q) ||
                      (m->groups.v[mk->group].runs && !strcmp(m->groups.v[mk->group].runs, q));
                break;
            case 3:
                hit = kw_name_written(a, mk->symbol, mk->name, q);
                break;
            case 4:
                hit = strstr(mk->name, q) || strstr(mk->symbol, q);
                break;
            default:
                hit = regexec(&re, mk->name, 0, NULL, 0) == 0;
                break;
            }
            if (hit && kw_has_arch(mk, arch) && kw_in_tu(mk, tu))
                kw_pick_hit(a, h, i);
        }
        if (stage == 5)
            regfree(&re);
    }
}
