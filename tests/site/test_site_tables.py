#!/usr/bin/env python3
"""test_site_tables.py: `kwalk site` writes the walkthroughs' tables as HTML
itself (render/kw_md.c, kw_md_table) instead of handing GFM tables to
libcmark-gfm. The reference is libcmark-gfm's own conversion of the Markdown
tables, which `kwalk site --via-markdown` still makes: for each index and
option set below, both sites must be byte-identical, file by file.

  --sidecars DIR      the sidecars to index (repeatable): the test corpus's,
                      or the aiter fixture's (tests/aiter)
  --triton-cache DIR  a Triton cache to index with them
  --python-root DIR   Python sources for the variant with --python-root
  --shape S           --shape bindings for the variant with --shape

Variants: no option; --arch of the first arch; --shape (with --time-us);
--python-root; --trace of a rocprofv3 CSV the test writes with a few
dispatches of the first kernels. Non-vacuous: pages must hold tables
(<table>), and tables with right-aligned columns must be among them.
Exit 77 when a --sidecars directory is absent (a fixture outside the
repository)."""
import argparse
import filecmp
import os
import shutil
import sqlite3
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
sys.path.insert(0, os.path.join(HERE, "..", "trace"))
from kwcheck import Checker  # noqa: E402
from kwrun import run  # noqa: E402
import test_trace as tt  # noqa: E402  (the rocprofv3 CSV writer)


def first_difference(a, b):
    """The first line where files a and b differ, for the message."""
    with open(a, encoding="utf-8", errors="replace") as fa, \
            open(b, encoding="utf-8", errors="replace") as fb:
        for n, (x, y) in enumerate(zip(fa, fb), 1):
            if x != y:
                return "line %d: %r vs %r" % (n, x[:160], y[:160])
    return "lengths differ"


def compare(c, what, direct, reference):
    """Every file of both sites, byte for byte; returns the pages' text."""
    names = sorted(os.listdir(direct))
    c.eq(names, sorted(os.listdir(reference)), "%s: the files of both sites" % what)
    pages, differ = [], 0
    for n in names:
        a, b = os.path.join(direct, n), os.path.join(reference, n)
        if not os.path.isfile(a) or not os.path.isfile(b):
            continue
        if not filecmp.cmp(a, b, shallow=False):
            differ += 1
            if differ <= 3:
                c.fail("%s: %s differs from libcmark-gfm's conversion: %s"
                       % (what, n, first_difference(a, b)))
        if n.endswith(".html") and n not in ("index.html", "map.html"):
            with open(a, encoding="utf-8") as f:
                pages.append(f.read())
    c.check(differ == 0, "%s: %d of %d files differ" % (what, differ, len(names)))
    return pages


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kwalk", required=True)
    ap.add_argument("--sidecars", action="append", required=True)
    ap.add_argument("--triton-cache")
    ap.add_argument("--python-root")
    ap.add_argument("--shape")
    ap.add_argument("--name", default="site.tables")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    for d in a.sidecars:
        if not os.path.isdir(d):
            print("SKIP: %s is absent" % d)
            sys.exit(77)
    c = Checker(a.name)
    shutil.rmtree(a.out, ignore_errors=True)
    os.makedirs(a.out)
    db = os.path.join(a.out, "kw.db")
    cmd = [a.kwalk, "index"] + a.sidecars + ["-o", db]
    if a.triton_cache:
        cmd += ["--triton-cache", a.triton_cache]
    rc, _, err = run(cmd)
    if not c.check(rc == 0, "kwalk index: exit %d %s" % (rc, err)):
        c.finish()
    con = sqlite3.connect(db)
    archs = [r[0] for r in con.execute("SELECT DISTINCT arch FROM kernels_archs ORDER BY arch")]
    symbols = [r[0] for r in con.execute("SELECT symbol FROM kernels ORDER BY _id LIMIT 4")]
    con.close()
    trace = os.path.join(a.out, "run_kernel_trace.csv")
    t0, dispatches = 1700000000000000000, []
    for i, sym in enumerate(symbols):
        for j in range(3):
            start = t0 + (i * 3 + j) * 100000
            dispatches.append({"sym": sym, "trace_name": sym, "kid": 10 + i, "start": start,
                               "end": start + 20000 + 3000 * j, "block": (256, 1, 1),
                               "grid": (256 * (64 << j), 1, 1)})
    tt.write_csv(trace, dispatches)
    # (name, options, a table header some page of the variant must have)
    variants = [("plain", [], "<th>File</th>")]
    if archs:
        variants.append(("arch", ["--arch", archs[0]], "<th>File</th>"))
    if a.shape:
        variants.append(("shape", ["--shape", a.shape, "--time-us", "12.5"],
                         "<th>With --shape</th>"))
    if a.python_root:
        variants.append(("python", ["--python-root", a.python_root], "<th>Python op</th>"))
    if symbols:
        variants.append(("trace", ["--trace", trace], "<th>Dispatches</th>"))
    tables = right = 0
    for name, opts, header in variants:
        direct, reference = os.path.join(a.out, name), os.path.join(a.out, name + "-md")
        rc1, _, err1 = run([a.kwalk, "site", "--db", db, "-o", direct] + opts)
        rc2, _, err2 = run([a.kwalk, "site", "--via-markdown", "--db", db, "-o", reference] + opts)
        if not c.check(rc1 == 0 and rc2 == 0,
                       "%s: kwalk site: exit %d / %d %s %s" % (name, rc1, rc2, err1, err2)):
            continue
        pages = compare(c, name, direct, reference)
        c.check(len(pages) > 0, "%s: the site has pages" % name)
        c.check(any(header in p for p in pages), "%s: some page has %s" % (name, header))
        tables += sum(p.count("<table>") for p in pages)
        right += sum(p.count('<td align="right">') for p in pages)
        print("%s: %d pages, identical to libcmark-gfm's tables" % (name, len(pages)))
    c.check(tables > 0, "the pages hold tables (%d)" % tables)
    c.check(right > 0, "some tables have right-aligned columns (%d cells)" % right)
    c.finish()


if __name__ == "__main__":
    main()
