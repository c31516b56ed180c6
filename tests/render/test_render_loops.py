#!/usr/bin/env python3
"""test_render_loops.py: section 2 of a page gives each loop of the kernel
the source line of its `for` / `while` (tests/render/src/kw_loops.hip,
compiled with the plugin three times: with device line tables, without
them (the plugin's location tracking, on by default, gives the lines), and
without either (-fplugin-arg-kwalk-lines=off)).

Ground truth is the source text: the lines carrying a `loop-marker:` comment
(a `for` in an inlined helper, a `while` in the kernel), found here by
reading the file.
  - with -gline-tables-only: every "Loop N" line cites FILE:LINE, FILE is
    kw_loops.hip, the text at LINE is a `for` or `while` statement with a
    loop marker, and every marked loop is cited;
  - without line tables, the same (location tracking);
  - with lines=off: every "Loop N" line says it has no source line, and
    the page says why (no debug line tables) and how to get them.
"""
import argparse
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kwcheck import Checker  # noqa: E402
from kwrender import run  # noqa: E402

LOOP = re.compile(r"^- Loop (\d+): trip count `[^`]*`(?: at `([^`]+):(\d+)`|(, no source line))\.$")


def section2(page):
    m = re.search(r"^## 2\..*?(?=^## 3\.)", page, re.M | re.S)
    return m.group(0) if m else ""


def page_of(c, kwalk, objdir, tmp, tag):
    db = os.path.join(tmp, tag + ".db")
    rc, _, err = run([kwalk, "index", objdir, "-o", db])
    c.check(rc == 0, f"{tag}: kwalk index {objdir}: exit {rc} {err!r}")
    rc, out, err = run([kwalk, "render", "kwloop_kernel", "--db", db])
    c.check(rc == 0, f"{tag}: kwalk render kwloop_kernel: exit {rc} {err!r}")
    loops = [LOOP.match(l) for l in section2(out).splitlines() if l.startswith("- Loop ")]
    c.check(loops and all(loops), f"{tag}: loop lines {[l for l in section2(out).splitlines() if l.startswith('- Loop ')]!r}")
    return out, [m for m in loops if m]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kwalk", required=True)
    ap.add_argument("--g", required=True, help="kw_loops_g.o and its sidecar (line tables)")
    ap.add_argument("--plain", required=True, help="kw_loops.o and its sidecar")
    ap.add_argument("--off", required=True, help="kw_loops_off.o and its sidecar (lines=off)")
    ap.add_argument("--src", required=True, help="tests/render/src")
    a = ap.parse_args()
    src = os.path.realpath(os.path.join(a.src, "kw_loops.hip"))
    text = open(src, encoding="utf-8").read().splitlines()
    marked = {i + 1 for i, l in enumerate(text) if "// loop-marker:" in l}
    c = Checker("test_render_loops")
    c.check(len(marked) == 2, f"kw_loops.hip has two loop markers: {sorted(marked)}")
    tmp = tempfile.mkdtemp(prefix="kwalk-render-loops-")
    try:
        for objdir, tag in ((a.g, "line tables"), (a.plain, "location tracking")):
            _, loops = page_of(c, a.kwalk, objdir, tmp, tag)
            cited = set()
            for m in loops:
                n, f, line = m.group(1), m.group(2), m.group(3)
                if not c.check(f is not None, f"{tag}: loop {n} has no source line"):
                    continue
                line = int(line)
                c.check(os.path.realpath(f) == src, f"{tag}: loop {n} at {f}, not {src}")
                at = text[line - 1] if 0 < line <= len(text) else ""
                c.check(re.search(r"\b(for|while)\s*\(", at) and line in marked,
                        f"{tag}: loop {n} at line {line}: {at.strip()!r} is not a marked for/while")
                cited.add(line)
            c.check(cited == marked, f"{tag}: cited lines {sorted(cited)}, marked {sorted(marked)}")

        page, loops = page_of(c, a.kwalk, a.off, tmp, "no line tables")
        c.check(len(loops) == len(marked), f"no line tables: {len(loops)} loops, {len(marked)} in the source")
        for m in loops:
            c.check(m.group(4) is not None, f"no line tables: loop {m.group(1)} cites {m.group(2)}:{m.group(3)}")
        c.check("compiled without debug line tables" in section2(page) and
                "-gline-tables-only" in section2(page),
                "no line tables: section 2 does not say why the loops have no line")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    c.finish()


if __name__ == "__main__":
    main()
