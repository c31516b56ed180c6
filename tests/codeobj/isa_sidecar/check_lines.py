#!/usr/bin/env python3
"""Source lines in a sidecar: a corpus TU compiled with the plugin and
-Xarch_device -gline-tables-only (objs/<tu>_g.o). For every kernel and arch,
every instruction of the listing gets, from the sidecar's lines rows (the row
in effect at its offset), the same location chain that llvm-symbolizer -i
gives for its address in the unbundled code object: file, line and column of
the code, then each call site it was inlined into, innermost first. Rows
without a location are where llvm-symbolizer knows no line either. Lines
point into files that exist and lie within them."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import kwis_common  # noqa: E402
from kwcheck import Checker  # noqa: E402
from kwis_common import (DIR, LINES_TU, parse_isa, read_back, run, scratch,
                         sidecar_archs, symbols, tool, unbundle)


def symbolize(path, addrs):
    """{addr: [(file, line, column)]} innermost first; [] if unknown."""
    text = run([tool("llvm-symbolizer"), "--obj=" + path, "-i", "-f", "--functions=linkage",
                "--no-demangle"], input="".join("0x%x\n" % a for a in addrs), must=True).stdout
    out = {}
    for a, block in zip(addrs, text.split("\n\n")):
        lines = [l for l in block.strip("\n").split("\n") if l]
        frames = []
        for loc in lines[1::2]:
            file, line, col = loc.rsplit(":", 2)
            frames.append((file, int(line), int(col)))
        # no line (DWARF line 0) or no file where the code is: no location
        out[a] = [] if not frames or frames[0][0] == "??" or frames[0][1] == 0 else frames
    return out


def chain(row):
    if not row or "location" not in row:
        return []
    loc = row["location"]
    return [(loc["file"], loc["line"], loc.get("column", 0))] + \
        [(f["at"]["file"], f["at"]["line"], f["at"].get("column", 0))
         for f in row.get("inlined_at") or []]


def main():
    c = Checker("isa_sidecar.lines", who=kwis_common.WHO)
    work = scratch("lines")
    obj = os.path.join(DIR, "objs", LINES_TU + "_g.o")
    doc = read_back(os.path.join(DIR, "objs", LINES_TU + "_g.kwalk.yaml"), work)
    archs = sidecar_archs(doc)
    cos = unbundle(obj, work, LINES_TU)
    nlines = {}
    for tid, co in sorted(cos.items()):
        arch = tid.split(":")[0]
        syms = symbols(co)
        mine = {s: a for (s, key), a in archs.items() if key == arch}
        c.check(mine, arch + ": no kernels")
        for name, a in sorted(mine.items()):
            where = "%s %s" % (arch, name)
            rows = a.get("lines") or []
            c.check(rows, where + ": no lines")
            c.check(not a.get("lines_note"), where + ": lines_note although there are lines")
            insns, _ = parse_isa(a.get("isa") or "")
            offs = [o for o, _, _ in insns]
            c.check(all(r["offset"] in set(offs) for r in rows),
                    where + ": a row at an offset with no instruction")
            c.check(all(x["offset"] < y["offset"] for x, y in zip(rows, rows[1:])),
                    where + ": rows not in offset order")
            c.check(all(chain(x) != chain(y) for x, y in zip(rows, rows[1:])),
                    where + ": two rows in a row with one location")
            base = syms[name][0]
            truth = symbolize(co, [base + o for o in offs])
            i, cur, bad = 0, [], []
            for o in offs:
                while i < len(rows) and rows[i]["offset"] <= o:
                    cur = chain(rows[i])
                    i += 1
                if cur != truth[base + o]:
                    bad.append((o, cur, truth[base + o]))
            c.eq(bad[:2], [], where + ": instructions whose location differs from llvm-symbolizer's "
                 "(%d of %d; first 2)" % (len(bad), len(offs)))
            for r in rows:
                for f, line, _ in chain(r)[:1]:
                    if f not in nlines:
                        nlines[f] = sum(1 for _ in open(f)) if os.path.isfile(f) else -1
                    c.check(0 < line <= nlines[f], "%s: +0x%x: %s:%d not a line of an existing file" %
                           (where, r["offset"], f, line))
            c.check(any(r.get("inlined_at") for r in rows),
                    where + ": no inlined_at chain anywhere (the TU inlines its helpers)")
    c.finish()


if __name__ == "__main__":
    main()
