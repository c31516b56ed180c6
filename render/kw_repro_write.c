/* kw_repro_write.c: the reproducer script of a Triton specialization
 * (kw_repro_write.h, docs/triton.md "Reproducer"). Strings are written as
 * Python string literals (kw_py_str: the one Python escaper), values by the
 * kind the model gave them. */
#include "render/kw_repro_write.h"

#include <string.h>

/* s as a double-quoted Python string literal. */
static void kw_py_str(kw_buf *b, const char *s) {
    kw_buf_putc(b, '"');
    for (const unsigned char *c = (const unsigned char *)(s ? s : ""); *c; c++) {
        if (*c == '"' || *c == '\\')
            kw_buf_printf(b, "\\%c", *c);
        else if (*c == '\n')
            kw_buf_puts(b, "\\n");
        else if (*c == '\t')
            kw_buf_puts(b, "\\t");
        else if (*c < 0x20 || *c == 0x7f)
            kw_buf_printf(b, "\\x%02x", *c);
        else
            kw_buf_putc(b, (char)*c);
    }
    kw_buf_putc(b, '"');
}

/* A comment's text: one line, whatever it holds. */
static void kw_py_comment(kw_buf *b, const char *s) {
    for (const char *c = s ? s : ""; *c; c++)
        kw_buf_putc(b, *c == '\n' || *c == '\r' ? ' ' : *c);
}

static void kw_py_value(kw_buf *b, const kw_repro_value *v) {
    switch (v->kind) {
    case KW_PYVAL_INT:
    case KW_PYVAL_FLOAT:
    case KW_PYVAL_BOOL:
        kw_buf_puts(b, v->text);
        break;
    case KW_PYVAL_STR:
        /* a constexpr's repr that is a string literal stays that literal */
        if (v->text[0] == '\'' || v->text[0] == '"' || !strcmp(v->text, "None"))
            kw_buf_puts(b, v->text);
        else
            kw_py_str(b, v->text);
        break;
    case KW_PYVAL_NONE:
        kw_buf_puts(b, "UNKNOWN");
        break;
    }
}

static void kw_py_dict(kw_buf *b, const char *var, const kw_repro_value *v, size_t n) {
    kw_buf_printf(b, "%s = {\n", var);
    for (size_t i = 0; i < n; i++) {
        kw_buf_puts(b, "    ");
        kw_py_str(b, v[i].name);
        kw_buf_puts(b, ": ");
        kw_py_value(b, &v[i]);
        kw_buf_putc(b, ',');
        if (v[i].kind == KW_PYVAL_NONE) {
            kw_buf_puts(b, "  # not known: ");
            kw_py_comment(b, v[i].why);
        }
        kw_buf_putc(b, '\n');
    }
    kw_buf_puts(b, "}\n");
}

static const char kw_repro_body[] =
    "\n\n"
    "def load_kernel():\n"
    "    if MODULE:\n"
    "        sys.path.insert(0, PACKAGE_ROOT)\n"
    "        fn = getattr(importlib.import_module(MODULE), KERNEL)\n"
    "    else:\n"
    "        spec = importlib.util.spec_from_file_location(\"kwalk_repro_\" + KERNEL, FILE)\n"
    "        mod = importlib.util.module_from_spec(spec)\n"
    "        spec.loader.exec_module(mod)\n"
    "        fn = getattr(mod, KERNEL)\n"
    "    while not isinstance(fn, JITFunction):  # @triton.autotune, @triton.heuristics\n"
    "        fn = fn.fn\n"
    "    return fn\n"
    "\n\n"
    "def main(argv):\n"
    "    for arg in argv:\n"
    "        name, eq, value = arg.partition(\"=\")\n"
    "        if not eq or name not in CONSTEXPRS:\n"
    "            sys.exit(\"usage: %s [NAME=VALUE ...], NAME one of: %s\"\n"
    "                     % (sys.argv[0], \", \".join(CONSTEXPRS) or \"(no constexprs)\"))\n"
    "        CONSTEXPRS[name] = ast.literal_eval(value)\n"
    "    missing = [n for n, v in CONSTEXPRS.items() if v is UNKNOWN]\n"
    "    if missing:\n"
    "        sys.exit(\"%s: kwalk does not know the constexprs %s; give each as NAME=VALUE\"\n"
    "                 % (sys.argv[0], \", \".join(missing)))\n"
    "    src = ASTSource(load_kernel(), signature=SIGNATURE, constexprs=CONSTEXPRS)\n"
    "    compiled = triton.compile(src, target=TARGET, options=OPTIONS)\n"
    "    same = compiled.hash == EXPECTED_HASH\n"
    "    print(\"hash %s: %s\" % (compiled.hash, \"the recorded compile's\" if same\n"
    "                            else \"not the recorded %s\" % EXPECTED_HASH))\n"
    "    return 0 if same else 1\n"
    "\n\n"
    "if __name__ == \"__main__\":\n"
    "    sys.exit(main(sys.argv[1:]))\n";

void kw_repro_write(kw_buf *b, const kw_repro *r, const char *db, const char *version) {
    kw_buf_puts(b, "#!/usr/bin/env python3\n# Reproducer of the Triton specialization ");
    kw_py_comment(b, r->kernel);
    kw_buf_printf(b, " for %s, written by kwalk %s\n# from the index ", r->arch, version);
    kw_py_comment(b, db);
    kw_buf_puts(b, ": triton.compile(ASTSource(...)) with the signature,\n"
                   "# constexprs and options its cache entry recorded. Cache folder ");
    kw_py_comment(b, r->cache_key);
    kw_buf_puts(b, ", Triton ");
    kw_py_comment(b, r->triton_version);
    kw_buf_puts(b, ".\n# The same hash means the same compile: the same source, signature,\n"
                   "# constexprs and options, and a Triton installed as the one that made\n"
                   "# the cache (its library paths are among the options Triton hashes).\n"
                   "#\n#   python3 THIS_FILE [NAME=VALUE ...]\n"
                   "# NAME=VALUE sets a constexpr (a Python literal); TRITON_CACHE_DIR picks\n"
                   "# the cache the compile goes to. Exit status 0: the recorded hash.\n"
                   "import ast\nimport importlib\nimport importlib.util\nimport sys\n\n"
                   "import triton\nfrom triton.backends.compiler import GPUTarget\n"
                   "from triton.compiler import ASTSource\n"
                   "from triton.runtime.jit import JITFunction\n\n"
                   "UNKNOWN = object()  # a constexpr kwalk could not recover\n\n");
    kw_buf_puts(b, "KERNEL = ");
    kw_py_str(b, r->kernel);
    kw_buf_puts(b, "\nFILE = ");
    kw_py_str(b, r->file);
    kw_buf_printf(b, "  # the def is at line %d\nPACKAGE_ROOT = ", r->line);
    if (r->module)
        kw_py_str(b, r->package_root);
    else
        kw_buf_puts(b, "None");
    kw_buf_puts(b, "\nMODULE = ");
    if (r->module)
        kw_py_str(b, r->module);
    else
        kw_buf_puts(b, "None  # no package around FILE: loaded by its path");
    kw_buf_puts(b, "\nSIGNATURE = {\n");
    for (size_t i = 0; i < r->signature.n; i++) {
        kw_buf_puts(b, "    ");
        kw_py_str(b, r->signature.v[i].name);
        kw_buf_puts(b, ": ");
        kw_py_str(b, r->signature.v[i].type);
        kw_buf_puts(b, ",\n");
    }
    kw_buf_puts(b, "}\n");
    kw_py_dict(b, "CONSTEXPRS", r->constexprs.v, r->constexprs.n);
    kw_py_dict(b, "OPTIONS", r->options.v, r->options.n);
    kw_buf_puts(b, "TARGET = GPUTarget(\"hip\", ");
    kw_py_str(b, r->arch);
    kw_buf_printf(b, ", %lld)\nEXPECTED_HASH = ", r->warp_size);
    kw_py_str(b, r->hash);
    kw_buf_puts(b, "\n");
    kw_buf_puts(b, kw_repro_body);
}
