#!/usr/bin/env python3
"""For code objects built with -gline-tables-only, every instruction's
location chain (file:line:column and function of the code, then each call
site it was inlined into) equals llvm-symbolizer -i on the instruction's
address; without line tables kwco-dump says so instead of guessing."""
import glob
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import kwco_common  # noqa: E402
from kwcheck import Checker  # noqa: E402
from kwco_common import code_objects, dump_yaml, isa_lines, kernels_by_arch, run, tool, work  # noqa: E402


def symbolize(path, addrs):
    """{addr: [(function, file, line, column)]} innermost first; [] if unknown."""
    text = run([tool("llvm-symbolizer"), "--obj=" + path, "-i", "-f", "--functions=linkage",
                "--no-demangle"],
               input="".join("0x%x\n" % a for a in addrs), must=True).stdout
    blocks = text.split("\n\n")
    out = {}
    for a, block in zip(addrs, blocks):
        lines = [l for l in block.strip("\n").split("\n") if l]
        frames = []
        for fn, loc in zip(lines[0::2], lines[1::2]):
            file, line, col = loc.rsplit(":", 2)
            if file == "??":
                continue
            frames.append((None if fn == "??" else fn, file, int(line), int(col)))
        out[a] = frames
    return out


def ours_at(entry):
    """{offset: [(function, file, line, column)]} from the lines runs."""
    runs = entry["lines"] or []
    out, i, cur = {}, 0, []
    for off, _ in isa_lines(entry):
        while i < len(runs) and runs[i]["at"] <= off:
            r = runs[i]
            if r.get("file") is None:
                cur = []
            else:
                cur = [(r.get("function"), r["file"], r["line"], r["column"])]
                for f in r.get("inlined_at", []):
                    cur.append((f.get("function"), f["file"], f["line"], f["column"]))
            i += 1
        out[off] = cur
    return out


def main():
    c = Checker("lines", who=kwco_common.WHO)
    with_lines = sorted(glob.glob(work("co", "*.g.*.co")))
    c.check(len(with_lines) > 0, "no code object with line tables was built")
    for path in with_lines:
        for (name, _), a in kernels_by_arch(dump_yaml(path, "--lines")).items():
            where = "%s: %s" % (path, name)
            c.check(a["lines"] is not None, where + ": no lines")
            if a["lines"] is None:
                continue
            ours = ours_at(a)
            base = a["code"]["address"]
            truth = symbolize(path, [base + off for off in ours])
            for off, frames in ours.items():
                c.eq(frames, truth[base + off], "%s: +0x%x" % (where, off))
    # without line tables: null plus the reason
    for path in code_objects():
        if ".g." in path:
            continue
        for (name, _), a in kernels_by_arch(dump_yaml(path, "--lines")).items():
            c.eq(a["lines"], None, "%s: %s: lines" % (path, name))
            c.check("debug_line" in (a.get("lines_note") or ""),
                    "%s: %s: says why there are no lines" % (path, name))
    c.finish()


if __name__ == "__main__":
    main()
