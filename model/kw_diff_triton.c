/* kw_diff_triton.c: how `kwalk diff` (kw_diff.c) tells Triton
 * specializations apart across two builds (kw_diff_triton.h): the key of
 * function, arch, signature and constexprs, its options or hash added where
 * it is not unique, the printed name with the constexprs, and an option's
 * value. */
#include "model/kw_diff_triton.h"

#include <string.h>

#include "common/kw_buf.h"

bool kw_diff_triton_is(const kw_kernel *k) {
    return k->language && !strcmp(k->language, "triton") && k->triton;
}

/* A Triton specialization's key: its function, arch, signature (the
 * arguments that are not constexprs, by type) and constexprs (name=value;
 * "?" when not known), not its hash, which any change of the compile
 * changes. */
const char *kw_diff_triton_key(kw_arena *a, const kw_kernel *k) {
    kw_buf b;
    kw_buf_init(&b);
    kw_buf_printf(&b, "triton\x1f%s\x1f%s\x1f", k->name ? k->name : k->symbol,
                  k->archs.n && k->archs.v[0].arch ? k->archs.v[0].arch : "");
    for (size_t i = 0; i < k->params.n; i++)
        if (!k->params.v[i].type || strcmp(k->params.v[i].type, "constexpr"))
            kw_buf_printf(&b, "%s,", k->params.v[i].type ? k->params.v[i].type : "?");
    kw_buf_putc(&b, '\x1f');
    for (size_t i = 0; i < k->triton->constexprs.n; i++) {
        const kw_triton_constexpr *c = &k->triton->constexprs.v[i];
        kw_buf_printf(&b, "%s=%s,", c->name ? c->name : "?", c->value ? c->value : "?");
    }
    const char *key = b.oom ? NULL : kw_arena_strdup(a, kw_buf_str(&b));
    kw_buf_free(&b);
    return key;
}

/* key with a Triton specialization's options, or (more) its hash. */
const char *kw_diff_triton_key_more(kw_arena *a, const char *key, const kw_kernel *k, bool hash) {
    if (hash)
        return kw_arena_printf(a, "%s\x1f%s", key, k->triton->hash ? k->triton->hash : "");
    kw_buf b;
    kw_buf_init(&b);
    kw_buf_printf(&b, "%s\x1f", key);
    for (size_t i = 0; i < k->triton->options.n; i++) {
        const kw_triton_option *o = &k->triton->options.v[i];
        kw_buf_printf(&b, "%s=%s,", o->name ? o->name : "?", o->value ? o->value : "");
    }
    const char *out = b.oom ? NULL : kw_arena_strdup(a, kw_buf_str(&b));
    kw_buf_free(&b);
    return out;
}

/* The printed name of a row's kernel: a Triton specialization's with its
 * constexprs, name[A=1, B=?]. */
const char *kw_diff_triton_name(kw_arena *a, const kw_kernel *k) {
    const char *name = k->name ? k->name : k->symbol;
    if (!kw_diff_triton_is(k) || !k->triton->constexprs.n)
        return name;
    kw_buf b;
    kw_buf_init(&b);
    kw_buf_printf(&b, "%s[", name);
    for (size_t i = 0; i < k->triton->constexprs.n; i++) {
        const kw_triton_constexpr *c = &k->triton->constexprs.v[i];
        kw_buf_printf(&b, "%s%s=%s", i ? ", " : "", c->name ? c->name : "?",
                      c->value ? c->value : "?");
    }
    kw_buf_putc(&b, ']');
    const char *out = b.oom ? NULL : kw_arena_strdup(a, kw_buf_str(&b));
    kw_buf_free(&b);
    return out ? out : name;
}

const char *kw_diff_triton_option(const kw_triton *t, const char *name) {
    for (size_t i = 0; i < t->options.n; i++)
        if (t->options.v[i].name && !strcmp(t->options.v[i].name, name))
            return t->options.v[i].value ? t->options.v[i].value : "";
    return NULL;
}
