#!/usr/bin/env python3
"""`kwalk isa` and kernel names, against llvm-readelf and llvm-cxxfilt, on
the corpus objects (host objects with a .hip_fatbin: their kernels are C++
templates, some with __bf16 arguments):
  - the kernel table prints, beside each symbol (llvm-readelf -s of the code
    objects clang-offload-bundler unbundles), llvm-cxxfilt's demangling of it
    (nothing where llvm-cxxfilt leaves the symbol as it is);
  - --kernel NAME picks exactly that kernel (in every code object holding it)
    when NAME is the symbol, llvm-cxxfilt's full signature, the signature
    without "void ", the name without its parameters, and the same with every
    blank removed or doubled; the listing says the demangled name; the YAML
    form (--format yaml) picks the same kernel;
  - stdout holds the table or the listings only: the notes on the entries
    skipped on purpose (the bundle's host entry, which clang-offload-bundler
    --list shows) are on stderr, starting "kwalk: note:"."""
import os
import re

import sys
import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import kwis_common  # noqa: E402
from kwcheck import Checker  # noqa: E402
from kwis_common import (CORPUS, ISA_HEADER, TUS, kwalk_isa, run, scratch, symbols,
                         tool, unbundle)

# libyaml's loader when PyYAML has it (the same documents, many times faster)
YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

# the table's rows: seven resource columns, occupancy, limiter, symbol, demangled
ROW = re.compile(r"^ +(?:-|\d+)(?: +(?:-|\d+)){6} +(?:\?|\d+)  \S+ +(\S+)(?:  \(no metadata\))?"
                 r"(?:  (.*))?$")


def cxxfilt(names):
    out = run([tool("llvm-cxxfilt")], input="\n".join(names) + "\n", must=True).stdout.splitlines()
    return dict(zip(names, out))


def without_params(d):
    """The signature without its trailing (...) group and leading "void "."""
    depth, i = 0, len(d)
    if d.endswith(")"):
        for i in range(len(d) - 1, -1, -1):
            depth += {")": 1, "(": -1}.get(d[i], 0)
            if depth == 0:
                break
    d = d[:i]
    return d[5:] if d.startswith("void ") else d


def spellings(d):
    """Ways a person writes the demangled d: as printed, without "void ",
    without parameters; each also with no blanks and with doubled blanks."""
    forms = [d, d[5:] if d.startswith("void ") else None, without_params(d)]
    out = []
    for f in filter(None, forms):
        out += [f, f.replace(" ", ""), f.replace(", ", " ,  ").replace("<", " < ")]
    return out


def check_tu(c, work, tu):
    obj = os.path.join(CORPUS, tu + ".o")
    cos = unbundle(obj, work, tu)
    if not cos:
        return
    syms = {}  # symbol -> {target ids holding it}
    for tid, co in cos.items():
        for s in symbols(co):
            syms.setdefault(s, set()).add(tid)
    dm = cxxfilt(sorted(syms))

    p = kwalk_isa(obj)
    c.eq(p.returncode, 0, tu + ": exit")
    rows = {}
    for line in p.stdout.splitlines():
        m = ROW.match(line)
        if m:
            rows.setdefault(m.group(1), set()).add(m.group(2) or m.group(1))
    c.eq(sorted(rows), sorted(syms), tu + ": kernels in the table")
    for s in sorted(set(rows) & set(syms)):
        c.eq(rows[s], {dm[s]}, tu + ": demangled name beside " + s)
    # notes: on stderr only; the bundle's host entry is one
    fatbin = os.path.join(work, tu + ".fb")
    run([tool("llvm-objcopy"), "--dump-section=.hip_fatbin=" + fatbin, obj], must=True)
    ids = run([tool("clang-offload-bundler"), "--list", "--type=o", "--input=" + fatbin], must=True).stdout.split()
    host = [i for i in ids if i.startswith("host-")]
    c.check(host, tu + ": the bundle has a host entry (test input)")
    c.check(not any("note" in l or "skipped" in l for l in p.stdout.splitlines()),
            tu + ": stdout has a note: %r" % [l for l in p.stdout.splitlines() if "note" in l])
    notes = p.stderr.splitlines()
    c.check(len(notes) == len(host) and all(l.startswith("kwalk: note: ") and host[0] in l
                                           for l in notes), tu + ": stderr %r: not one 'kwalk: note:' line per skipped host entry" % notes)

    bases = {}
    for s in syms:
        bases.setdefault(without_params(dm[s]).replace(" ", ""), set()).add(s)
    for s in sorted(syms):
        if dm[s] == s:
            continue
        queries = [s] + [q for q in spellings(dm[s])
                         if len(bases.get(q.replace(" ", ""), ())) <= 1 or "(" in q]
        for q in queries:
            k = kwalk_isa(obj, "--kernel", q)
            got = {}
            cur = None
            for line in k.stdout.splitlines():
                m = ISA_HEADER.match(line)
                if m:
                    cur = m.group(1)
                    got.setdefault(cur, set()).add(m.group(2))
                elif cur and line.startswith("demangled "):
                    c.eq(line[10:], dm[cur], "%s --kernel %r: demangled line" % (tu, q))
                    cur = None
            c.eq(k.returncode, 0, "%s --kernel %r: exit" % (tu, q))
            c.eq(got, {s: syms[s]}, "%s --kernel %r: kernels listed" % (tu, q))
            c.check("note:" not in k.stdout, "%s --kernel %r: a note on stdout" % (tu, q))
        q = spellings(dm[s])[2]  # the full signature, blanks doubled
        y = kwalk_isa(obj, "--kernel", q, "--format", "yaml")
        c.eq(y.returncode, 0, "%s --kernel %r --format yaml: exit" % (tu, q))
        doc = yaml.load(y.stdout, Loader=YAML_LOADER) if y.returncode == 0 else {}
        c.eq([k.get("symbol") for k in doc.get("kernels") or []], [s],
             "%s --kernel %r --format yaml: kernels" % (tu, q))


def main():
    c = Checker("isa_sidecar.isa_names", who=kwis_common.WHO)
    work = scratch("isa_names")
    for tu in ("rope_kernels", "tile_kernels"):
        if tu in TUS:
            check_tu(c, work, tu)
    c.finish()


if __name__ == "__main__":
    main()
