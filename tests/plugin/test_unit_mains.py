#!/usr/bin/env python3
"""test_unit_mains (capture.unit_mains): host functions that are one
translation unit's own are one host call-graph node per unit (issue 36:
three CK examples' `main` were one node, so the layernorm and reduce kernels'
entry was gemm_basic.cpp's main). src/kw_mains_a.hip and src/kw_mains_b.hip
each define `int main()`, a `static` run(), a `static` mains::go(), a
`static` run_c() in an `extern "C"` block and a lambda in main under the same
symbols, each launching its own unit's kernels (mains_X_k, mains_X_static_k,
mains_X_ns_k, mains_X_lambda_k, mains_X_c_k). Both are compiled with the plugin (first arch only) and
indexed together. Ground truth, none of it from kwalk:

  - premise: each unit's code object holds its four kernels (the symbols,
    llvm-readelf), and the unit's source has one `int main(` line and one
    `NAME<<<` line per kernel (a scan of the source);
  - `kwalk map --json`: each kernel's row launches at its unit's `NAME<<<`
    line and its entry is `main` at its unit's `int main(` line;
  - `kwalk list --json`: each kernel is reached by one entry, `main` at its
    unit's `int main(` line;
  - `kwalk render NAME`: the page cites its unit's `int main(` line and
    never names the other unit's source.
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import kwcap  # noqa: E402
from kwcheck import Checker  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
UNITS = {u: os.path.join(HERE, "src", "kw_mains_%s.hip" % u) for u in ("a", "b")}
KINDS = ("k", "static_k", "ns_k", "lambda_k", "c_k")


def main():
    args = kwcap.parse_args()
    ck = Checker("test_unit_mains")
    if not args.kwalk:
        print("SKIP: no kwalk command")
        raise SystemExit(kwcap.SKIP)
    arch = args.arches[0]
    root = kwcap.tmpdir(args, "mains")
    try:
        mains, launch_at = {}, {}  # unit -> main line; kernel -> (source, line)
        for u, src in UNITS.items():
            os.makedirs(os.path.join(root, u))
            obj = os.path.join(root, u, os.path.basename(src)[:-4] + ".o")
            _, why = kwcap.compile_plugin(args, src, obj, arch)
            if not ck.check(not why, why):
                ck.finish()
            syms, err = kwcap.code_object_kernels(args, obj, arch, root)
            ck.check(syms is not None, "%s: code object: %s" % (u, err))
            lines = kwcap.source_lines(src, r"^int main\(")
            if ck.check(len(lines) == 1, "premise: %s has %d `int main(` lines" % (src, len(lines))):
                mains[u] = lines[0]
            for kind in KINDS:
                name = "mains_%s_%s" % (u, kind)
                ck.check(syms and any("%d%s" % (len(name), name) in s for s in syms),
                         "premise: %s's code object has no kernel %s: %s" % (u, name, syms))
                at = kwcap.source_lines(src, r"\b%s<<<" % name)
                if ck.check(len(at) == 1, "premise: %s launches %s on %d lines" % (src, name, len(at))):
                    launch_at[name] = (src, at[0])
        if len(mains) != 2 or len(launch_at) != 2 * len(KINDS):
            ck.finish()

        db = os.path.join(root, "mains.db")
        r = kwcap.run([args.kwalk, "index", root, "-o", db])
        if not ck.check(r.returncode == 0, "kwalk index: %s" % r.stderr):
            ck.finish()

        r = kwcap.run([args.kwalk, "map", "--db", db, "--json"])
        rows = json.loads(r.stdout).get("rows", []) if r.returncode == 0 else []
        ck.check(r.returncode == 0, "kwalk map --json: %s" % r.stderr)
        r = kwcap.run([args.kwalk, "list", "--db", db, "--json"])
        kernels = json.loads(r.stdout).get("kernels", []) if r.returncode == 0 else []
        ck.check(r.returncode == 0, "kwalk list --json: %s" % r.stderr)
        for name, (src, line) in sorted(launch_at.items()):
            u = name.split("_")[1]
            other = UNITS["b" if u == "a" else "a"]
            want = {"file": src, "line": mains[u], "kind": "cxx", "name": "main"}
            # map: one row, launched at its unit's line, entered at its unit's main
            mine = [x for x in rows if x.get("kernel") == name]
            if ck.check(len(mine) == 1, "kwalk map: %d rows of %s" % (len(mine), name)):
                ck.eq(mine[0].get("launch"), {"file": src, "line": line},
                      "kwalk map: %s's launch" % name)
                ck.eq(mine[0].get("entry"), want, "kwalk map: %s's entry" % name)
            # list: reached by its unit's main only
            mine = [x for x in kernels if x.get("name") == name]
            if ck.check(len(mine) == 1, "kwalk list: %d rows of %s" % (len(mine), name)):
                ck.eq([{k: e.get(k) for k in want} for e in mine[0].get("entries") or []],
                      [want], "kwalk list: %s's entries" % name)
            # the page: its unit's main cited, the other unit never named
            r = kwcap.run([args.kwalk, "render", name, "--db", db])
            if ck.check(r.returncode == 0, "render %s: %s" % (name, r.stderr)):
                ck.check("%s:%d" % (src, mains[u]) in r.stdout,
                         "render %s: its unit's main (%s:%d) is not cited" % (name, src, mains[u]))
                ck.check(other not in r.stdout,
                         "render %s: the page names the other unit's %s" % (name, other))
    finally:
        kwcap.cleanup(args, root)
    ck.finish()


if __name__ == "__main__":
    main()
