#!/usr/bin/env python3
"""test_kpage_shared: a kernel page's "What the instantiations share"
(model/kw_kpage_walk.c, issue 42) on the corpus's template kernels, against
the source read here and llvm-objdump / llvm-readelf of every instantiation.

For each kernel (KERNELS), `kwalk render NAME`'s section is parsed and:
  - every call it cites (those every instantiation makes and those only some
    make) has the callee's name on the cited call line and on the cited
    definition line of the source (an operator: `[` / `(` on the call line,
    `operator` on the definition line);
  - every function the kernel's body calls (the body found from its
    KW:KERNEL marker to its closing brace, a call `name(` or `name<...>(`
    of a `__device__` function the corpus's sources define) is a first-level
    call of the section, at the body's first line calling it (the calls of
    one function under one caller are one item of the call tree);
  - an overload chosen by the element type (`to_float(T x)`) is made by
    exactly the instantiations whose first template argument (read from the
    code objects' symbols: DF16b, 6__half, f) is that T, when listed as made
    by some, and by all of them when listed as made by every one;
  - per arch, each resource said to be equal in every instantiation is each
    one's value in its code object's NT_AMDGPU_METADATA (llvm-readelf
    --notes), and each instruction class said to be in every one's / no
    one's code is so in each one's llvm-objdump -d (classified as
    test_kpage_corpus.py classifies the instruction mix);
  - per arch, a cross-lane idiom said to be in every one's IR shows in
    every one's llvm-objdump listing as a cross-lane instruction (a DPP
    control, ds_swizzle / ds_bpermute / ds_permute, v_readlane, a permlane).
"""
import argparse
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import kwcap  # noqa: E402
import kwllvm  # noqa: E402
import kwrun  # noqa: E402
from kwkshared import (calls, check_isa, check_names, corpus_setup, objdump, section,  # noqa: E402
                       text_line)

# (name as typed, its object, its KW:KERNEL marker)
KERNELS = [("reshape_and_cache_with_per_token_quant_kernel", "cache_kernels",
            "cache.per_token_quant_kernel"),
           ("add_rmsnorm_quant_kernel", "rmsnorm_quant_kernels", None),
           ("reshape_and_cache_kernel", "cache_kernels", "cache.reshape_and_cache_kernel")]
def device_functions(src):
    """Names of the __device__ functions the corpus's sources define."""
    names = set()
    root = os.path.join(src, "tests", "corpus")
    for d, _, files in os.walk(root):
        for fn in files:
            if fn.endswith((".hip", ".h")):
                t = open(os.path.join(d, fn), encoding="utf-8", errors="replace").read()
                for m in re.finditer(r"__device__[^;{(]*?\b(\w+)\s*\(", t):
                    names.add(m.group(1))
    return names


def body_calls(path, kernel, marker, funcs):
    """{name: [line, ...]} of the calls of funcs in the kernel's body."""
    lines = open(path, encoding="utf-8").read().split("\n")
    start = None
    for i, l in enumerate(lines):
        if (marker and "KW:KERNEL " + marker in l) or (not marker and re.search(
                r"\b%s\s*\(" % kernel, l) and "<<<" not in l and "__global__" in " ".join(
                    lines[max(0, i - 2):i + 1])):
            start = i
            break
    if start is None:
        return None
    depth, seen_open, out = 0, False, {}
    for i in range(start, len(lines)):
        code = lines[i].split("//")[0]
        if seen_open:
            for m in re.finditer(r"(?:\w+::)*(\w+)\s*(?:<[^;()]*>)?\s*\(", code):
                if m.group(1) in funcs and m.group(1) != kernel:
                    out.setdefault(m.group(1), []).append(i + 1)
        for c in code:
            if c == "{":
                depth += 1
                seen_open = True
            elif c == "}":
                depth -= 1
        if seen_open and depth == 0:
            break
    return out


MANGLED = {"DF16b": "__bf16", "6__half": "__half", "f": "float"}


def first_targ(sym, kernel):
    """The kernel's first template argument as the source spells the type."""
    m = re.search(re.escape(kernel) + r"I(DF16b|6__half|f)", sym)
    return MANGLED[m.group(1)] if m else None


def check_overloads(ck, name, every, some, targs):
    """An overload taking T: made by the instantiations of first argument T."""
    n = 0
    for (d, label, f, line, df, dn, under, k) in every + some:
        de = text_line(df, dn) or ""
        m = re.search(r"\b(to_float)\s*\(\s*(?:const\s+)?([\w:]+)\s+\w+\s*\)", de)
        if not m or m.group(1) != label.split("::")[-1]:
            continue
        want = sum(t == m.group(2) for t in targs)
        got = len(targs) if k is None else k
        ck.eq(got, want, "%s: %s defined at %s:%d (its parameter %s): the instantiations making it"
              % (name, label, df, dn, m.group(2)))
        n += 1
    return n


def main():
    a, ck, db = corpus_setup("model.kpage_shared")
    funcs = device_functions(a.src)
    ns = argparse.Namespace(llvm_bin=a.llvm_bin)
    isa_checks = overloads = 0
    for name, objname, marker in KERNELS:
        obj = os.path.join(a.corpus_out, objname + ".o")
        per_arch, syms = {}, set()
        for arch in a.archs.split(","):
            co, err = kwcap.unbundle_code_object(ns, obj, arch, a.work)
            ck.check(co, "%s %s: %s" % (obj, arch, err))
            if not co:
                continue
            fs = objdump(a.llvm_bin, co)
            md = kwllvm.readelf_metadata(a.llvm_bin, co) or {}
            meta = {k.get(".symbol", "")[:-3]: k for k in md.get("amdhsa.kernels", [])}
            per_arch[arch] = (fs, meta)
            syms |= {s for s in fs if "%d%s" % (len(name), name) in s}
        syms = sorted(syms)
        targs = [first_targ(s, name) for s in syms]
        r = kwrun.run([a.kwalk, "render", name, "--db", db])
        ck.check(r.returncode == 0 and r.stdout.startswith("# Kernel "),
                 "render %s: %d %r" % (name, r.returncode, r.stderr[:300]))
        sec = section(r.stdout)
        ck.check("### 2. Device kernel" in sec, "%s: no device section in %r" % (name, sec[:300]))
        ck.check(("all %d instantiations" % len(syms)) in sec,
                 "%s: the section counts %d instantiations (the code objects')" % (name, len(syms)))
        every, some = calls(sec)
        ck.check(every, "%s: no call every instantiation makes" % name)
        check_names(ck, name, every, some)
        overloads += check_overloads(ck, name, every, some, targs)
        # the body's calls of the corpus's device functions: first-level calls
        path = os.path.join(a.src, "tests", "corpus", objname + ".hip")
        body = body_calls(path, name, marker, funcs)
        ck.check(body, "%s: its body's calls not found in %s" % (name, path))
        # (the calls of one function under one caller are one item, at the
        # first call)
        top = {(c[1].split("::")[-1], c[3]) for c in every if c[0] == 0}
        top |= {(c[1].split("::")[-1], c[3]) for c in some if c[6] is None}
        for fn, lines in sorted((body or {}).items()):
            ck.check((fn, min(lines)) in top, "%s: the body calls %s first at line %d; the "
                     "section's first-level calls: %r" % (name, fn, min(lines), sorted(top)))
        isa_checks += check_isa(ck, name, sec, syms, per_arch)
    ck.check(overloads >= 2, "overloads by element type compared: %d" % overloads)
    ck.check(isa_checks >= 20, "ISA and IR facts compared: %d" % isa_checks)
    ck.finish()


if __name__ == "__main__":
    main()
