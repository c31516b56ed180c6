#!/usr/bin/env python3
"""model.ipage: the index page's model (model/kw_ipage.h: what index.md of
`kwalk render --all` and index.html of `kwalk site` say) of the corpus,
printed by ipage_probe, against ground truth kwalk does not produce:
  - per instantiation, the entry points reaching any of its launches: the
    union of tests/corpus/expected.json's paths (written by hand from the
    source) over the instantiation's launches, each entry found at its
    `// KW:ENTRY <id>` marker comment (scripts/kw-markers.py), each once;
    an instantiation some entry reaches is not marked unreachable;
  - per template, the definitions it lists: the `// KW:KERNEL <id>` markers
    of the expected kernels of that name (none for a precompiled ASM
    kernel, which has no source definition);
  - the counts: instantiations and templates as expected.json has them
    (ASM kernels by their launches and the config table's rows), no Triton.
Usage: test_ipage.py --probe IPAGE_PROBE --kwalk KWALK --corpus-out DIR
                     --corpus-src tests/corpus --scripts scripts
"""
import argparse
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import kwrender as kr  # noqa: E402
from kwcheck import Checker  # noqa: E402
from kwrun import run  # noqa: E402


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--probe", required=True)
    p.add_argument("--kwalk", required=True)
    p.add_argument("--corpus-out", required=True)
    p.add_argument("--corpus-src", required=True)
    p.add_argument("--scripts", required=True)
    p.add_argument("--keep", action="store_true")
    return p.parse_args()


def asm_kernels(args, launch):
    """The ASM kernel names an expected launch runs: its asm_kernel, or every
    row of its config table's header (ROW(dtype, relu, arch, kernel, co)),
    read from the header here."""
    ch = launch.get("choices")
    if not ch:
        return [launch["asm_kernel"]]
    out = []
    with open(os.path.join(args.corpus_src, ch["header"]), encoding="utf-8") as f:
        for line in f:
            m = re.match(r"\s*%s\((.*)\),?\s*$" % re.escape(ch["row_macro"]), line)
            if m:
                out.append([x.strip().strip('"') for x in m.group(1).split(",")][3])
    return out


def expected_entries(args, exp):
    """(template name, args tuple) -> the entry ids reaching it, from every
    launch's paths; ASM kernels as (name, ())."""
    want = {}
    for k in exp["kernels"].values():
        for inst in k["instantiations"]:
            want[(k["name"], tuple(inst["args"]))] = set()
    for launch in exp["launches"].values():
        name = exp["kernels"][launch["kernel"]]["name"]
        for inst in launch["instantiations"]:
            key = (name, tuple(inst["args"]))
            for p in inst.get("paths", []):
                want.setdefault(key, set()).update(p["entries"])
    for launch in (exp.get("asm_launches") or {}).values():
        for kernel in asm_kernels(args, launch):
            for p in launch.get("paths", []):
                want.setdefault((kernel, ()), set()).update(p["entries"])
    return want


def probe(args, c, db):
    """The probe's output as groups: [{key, defs, rows: [{name, sym, unreachable,
    entries: [(kind, file, line, label)]}]}] and the counts."""
    rc, out, err = run([args.probe, db])
    if not c.check(rc == 0, "ipage_probe: exit %d: %s" % (rc, err)):
        return [], None
    groups, counts = [], None
    for line in out.split("\n"):
        f = line.split("\t")
        if f[0] == "C":
            counts = [int(x) for x in f[1:]]
        elif f[0] == "G":
            groups.append({"key": f[1], "defs": [], "rows": []})
        elif f[0] == "D":
            groups[-1]["defs"].append((os.path.realpath(f[1]), int(f[2])))
        elif f[0] == "K":
            groups[-1]["rows"].append({"name": f[1], "sym": f[2], "unreachable": f[3] == "1",
                                       "entries": []})
        elif f[0] == "E":
            groups[-1]["rows"][-1]["entries"].append((f[1], os.path.realpath(f[2]), int(f[3]),
                                                      f[4]))
    return groups, counts


def main():
    args = parse_args()
    c = Checker("model.ipage")
    tmp = tempfile.mkdtemp(prefix="kwalk-model-ipage-")
    try:
        marks = kr.markers(args)
        exp = kr.expected(args)
        at = {(os.path.realpath(f), line): i for i, (kind, f, line) in marks.items()
              if kind == "ENTRY"}
        want = expected_entries(args, exp)
        db = kr.corpus_db(args.kwalk, args.corpus_out, tmp, "corpus.db")
        groups, counts = probe(args, c, db)
        rows = 0
        for g in groups:
            for row in g["rows"]:
                rows += 1
                name, targs = kr.split_args(row["name"])
                key = (name, tuple(targs))
                if not c.check(key in want, "%s: an instantiation expected.json has" % row["name"]):
                    continue
                ids = []
                for kind, f, line, label in row["entries"]:
                    i = at.get((f, line))
                    c.check(i is not None, "%s: entry %s at %s:%d is a KW:ENTRY marker"
                            % (row["name"], label, f, line))
                    if i is not None:
                        ids.append(i)
                        c.eq(kind, exp["entries"][i]["kind"],
                             "%s: entry %s's kind" % (row["name"], i))
                c.eq(len(ids), len(set(ids)), "%s: each entry once" % row["name"])
                c.eq(sorted(set(ids)), sorted(want[key]), "%s: the entry points reaching it"
                     % row["name"])
                if want[key]:
                    c.eq(row["unreachable"], False, "%s: unreachable" % row["name"])
            # the definitions the template lists: its kernels' KW:KERNEL markers
            kids = [kid for kid, k in exp["kernels"].items() if k["name"] == g["key"]]
            defs = {(os.path.realpath(marks[kid][1]), marks[kid][2]) for kid in kids}
            c.eq(sorted(set(g["defs"])), sorted(defs), "%s: the definitions listed" % g["key"])
            c.eq(len(g["defs"]), len(set(g["defs"])), "%s: each definition once" % g["key"])
        c.eq(rows, len(want), "instantiations of the page")
        if c.check(counts is not None, "the probe printed the counts"):
            c.eq(counts[0], len(want), "the count of instantiations")
            c.eq(counts[1], len({name for name, _ in want}), "the count of templates")
            c.eq(counts[1], len(groups), "templates: one group each")
            c.eq(counts[4], 0, "Triton specializations in the corpus")
    finally:
        if args.keep:
            print("kept", tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    c.finish()


if __name__ == "__main__":
    main()
