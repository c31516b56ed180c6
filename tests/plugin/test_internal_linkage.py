#!/usr/bin/env python3
"""test_internal_linkage: kernels with internal linkage are their translation
unit's own. src/kw_linkage_a.hip and src/kw_linkage_b.hip each define a
helper_k (anonymous namespace) and a static_k (`static`) of their own: the
same symbol in both units, two different kernels (one of each pair uses
__shared__ memory, the other not). Both units are compiled with the plugin
(first arch only) and indexed together; then, per kernel name:

  - premise (ground truth, not kwalk): the two code objects hold the kernel
    under the same symbol, with different group_segment_fixed_size
    (llvm-readelf --notes);
  - each sidecar marks the kernel `linkage: internal`;
  - `kwalk list` has one line per unit, its TU field that unit's source and
    its launch sites in that source only;
  - `kwalk render NAME` is ambiguous (exit 1) and lists both units;
    `render NAME --tu SOURCE` shows that unit's definition (the line of the
    `LINKAGE:<name>` marker comment in that source) and its code object's
    LDS size;
  - `render --all` writes a page per unit's kernel (distinct names, each
    linked from index.md, which names both definitions), each
    with its own unit's definition and LDS;
  - `kwalk map --format tsv` has a row per unit whose device code is the
    definition in the unit of the row's launch site.
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import kwcap  # noqa: E402
from kwcheck import Checker  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
UNITS = {"a": os.path.join(HERE, "src", "kw_linkage_a.hip"),
         "b": os.path.join(HERE, "src", "kw_linkage_b.hip")}
NAMES = ("helper_k", "static_k")


def marker_line(path, name):
    """1-based line of the `// LINKAGE:<name>` comment in path."""
    hits = kwcap.source_lines(path, r"//\s*LINKAGE:%s\b" % name)
    return hits[0] if len(hits) == 1 else None


def launch_lines(path, name):
    """1-based lines of path that launch `name<<<`."""
    return set(kwcap.source_lines(path, r"\b%s\s*<<<" % name))


def defined_at(page):
    m = re.search(r"^\| Defined at \| `?([^`|]+?):(\d+)`? \|", page, re.M)
    return (m.group(1), int(m.group(2))) if m else None


def lds_of(page):
    m = re.search(r"^\| LDS \(bytes, static\) \| `?(\d+)`? \|", page, re.M)
    return int(m.group(1)) if m else None


def main():
    args = kwcap.parse_args()
    ck = Checker("test_internal_linkage")
    if not args.kwalk:
        print("SKIP: no kwalk command")
        raise SystemExit(kwcap.SKIP)
    arch = args.arches[0]
    root = kwcap.tmpdir(args, "linkage")
    try:
        objs, truth = {}, {}  # truth[(unit, name)] = (symbol, lds, def line)
        for u, src in UNITS.items():
            os.makedirs(os.path.join(root, u))
            obj = os.path.join(root, u, os.path.basename(src)[:-4] + ".o")
            _, why = kwcap.compile_plugin(args, src, obj, arch)
            if not ck.check(not why, why):
                ck.finish()
            objs[u] = obj
            md, err = kwcap.code_object_metadata(args, obj, arch, root)
            if not ck.check(md is not None, "%s: code object metadata: %s" % (u, err)):
                ck.finish()
            for name in NAMES:
                ks = [k for k in md.get("amdhsa.kernels") or []
                      if name in str(k.get(".name"))]  # a mangled name: 8helper_kEPfi
                if ck.check(len(ks) == 1, "%s: %d code-object kernels named %s" % (u, len(ks), name)):
                    truth[(u, name)] = (ks[0][".name"], ks[0][".group_segment_fixed_size"],
                                        marker_line(src, name))
        if len(truth) != 2 * len(NAMES):
            ck.finish()
        for name in NAMES:
            (sa, la, _), (sb, lb, _) = truth[("a", name)], truth[("b", name)]
            ck.check(sa == sb, "premise: %s has one symbol in both units (%s, %s)" % (name, sa, sb))
            ck.check(la != lb, "premise: the two %s differ in LDS (%s, %s)" % (name, la, lb))
            for u in UNITS:
                ck.check(truth[(u, name)][2], "premise: one LINKAGE:%s marker in %s" % (name, u))

        # sidecars: the plugin records the linkage
        for u, obj in objs.items():
            doc = kwcap.load_yaml_file(obj + ".kwalk.yaml")
            for name in NAMES:
                sym = truth[(u, name)][0]
                ks = [k for k in doc.get("kernels") or [] if k.get("symbol") == sym]
                ck.check(len(ks) == 1 and ks[0].get("linkage") == "internal",
                         "%s: sidecar kernel %s: linkage %r" % (u, sym, ks and ks[0].get("linkage")))

        db = os.path.join(root, "linkage.db")
        r = kwcap.run([args.kwalk, "index", root, "-o", db])
        if not ck.check(r.returncode == 0, "kwalk index: %s" % r.stderr):
            ck.finish()

        # list: a line per unit's kernel
        r = kwcap.run([args.kwalk, "list", "--db", db])
        ck.check(r.returncode == 0, "kwalk list: %s" % r.stderr)
        rows = [l.split("\t") for l in r.stdout.splitlines()]
        ck.check(all(len(f) == 8 for f in rows), "kwalk list: 8 fields per line: %r" % r.stdout)
        for name in NAMES:
            sym = truth[("a", name)][0]
            mine = [f for f in rows if len(f) == 8 and f[1] == sym]
            ck.eq(sorted(f[5] for f in mine), sorted(UNITS.values()),
                  "kwalk list: the TU field of the %s lines" % name)
            for f in mine:
                want = {"%s:%d" % (f[5], n) for n in launch_lines(f[5], name)}
                ck.eq(set(f[3].split(",")), want, "kwalk list: %s of %s: launch sites" % (name, f[5]))

        pages_all = os.path.join(root, "pages")
        r = kwcap.run([args.kwalk, "render", "--all", "-o", pages_all, "--db", db])
        ck.check(r.returncode == 0, "render --all: %s" % r.stderr)
        all_pages, index_md = {}, ""
        for p in sorted(os.listdir(pages_all)) if os.path.isdir(pages_all) else []:
            if p.endswith(".md"):
                with open(os.path.join(pages_all, p), encoding="utf-8") as f:
                    if p == "index.md":
                        index_md = f.read()
                    else:
                        all_pages[p] = f.read()
        # index.md: each unit's definition, each unit's page linked
        for (u, name), (_, _, line) in sorted(truth.items()):
            ck.check("`%s:%d`" % (UNITS[u], line) in index_md,
                     "render --all index.md: no definition %s:%d" % (UNITS[u], line))
        for p in all_pages:
            ck.check("](%s)" % p in index_md, "render --all index.md: no link to %s" % p)

        r = kwcap.run([args.kwalk, "map", "--db", db, "--format", "tsv"])
        ck.check(r.returncode == 0, "kwalk map: %s" % r.stderr)
        map_rows = [l.split("\t") for l in r.stdout.splitlines()]

        for name in NAMES:
            sym = truth[("a", name)][0]
            # one name, two kernels: ambiguous, both units listed
            r = kwcap.run([args.kwalk, "render", name, "--db", db])
            ck.check(r.returncode == 1 and "--tu" in r.stderr and
                     all(src in r.stderr for src in UNITS.values()),
                     "render %s without --tu: rc=%d %r" % (name, r.returncode, r.stderr))
            # a unit that has no such kernel: one line, exit 1
            r = kwcap.run([args.kwalk, "render", name, "--tu", "no_such_unit.hip", "--db", db])
            ck.check(r.returncode == 1 and r.stdout == "" and len(r.stderr.splitlines()) == 1 and
                     "no_such_unit.hip" in r.stderr,
                     "render %s --tu no_such_unit.hip: rc=%d %r" % (name, r.returncode, r.stderr))
            for u, src in UNITS.items():
                _, lds, line = truth[(u, name)]
                what = "render %s --tu %s" % (name, os.path.basename(src))
                r = kwcap.run([args.kwalk, "render", name, "--tu", os.path.basename(src),
                               "--db", db])
                if ck.check(r.returncode == 0, "%s: rc=%d %s" % (what, r.returncode, r.stderr)):
                    ck.eq(defined_at(r.stdout), (src, line), what + ": defined at")
                    ck.eq(lds_of(r.stdout), lds, what + ": LDS (llvm-readelf --notes)")
                # --all: this unit's page
                mine = [p for p, t in all_pages.items() if sym in t and defined_at(t) == (src, line)]
                if ck.check(len(mine) == 1, "render --all: pages of %s with %s:%d: %s"
                            % (name, src, line, mine)):
                    ck.eq(lds_of(all_pages[mine[0]]), lds, "render --all %s: LDS" % mine[0])
                # map: the row launching from this unit shows this unit's definition
                rows = [f for f in map_rows if len(f) >= 9 and name in f[0] and
                        f[7].rsplit(":", 1)[0] == src]
                ck.eq([f[8] for f in rows], ["%s:%d" % (src, line)],
                      "kwalk map: %s launched in %s: device code" % (name, u))
            ck.eq(len([p for p, t in all_pages.items() if sym in t]), 2,
                  "render --all: pages of %s" % name)
    finally:
        kwcap.cleanup(args, root)
    ck.finish()


if __name__ == "__main__":
    main()
