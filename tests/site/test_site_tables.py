#!/usr/bin/env python3
"""test_site_tables.py: `kwalk site` writes each walkthrough as HTML
itself, through the page's HTML printer (render/kw_r.c, kw_md.c), from the
same calls that write the Markdown pages of `kwalk render --all`. The
reference is Debian's libcmark-gfm (tests/lib/kwcmark.py: GFM tables, raw
HTML kept): for each index and option set below, every site page's
walkthrough must be byte-identical to libcmark-gfm's HTML of the Markdown
page of the same name, once the parts only the site has are set aside:
section 3's diagram as SVG (its ASCII form, folded, stays), the charts and
the source <-> ISA view before section 6, and the text of section 5's
listings (the site's page script writes it from the view's data; the
listing's element and its instruction count stay). The Markdown page's
link to index.md (`render --all`) is not on the site. map.html, written by
the same printer through the calls that write `kwalk map`'s Markdown, must
be byte-identical to libcmark-gfm's HTML of `kwalk map`'s output for the
same index and --python-root, its links (the site's only addition: <a>
around a launch site's or a template's code span) set aside.

  --sidecars DIR      the sidecars to index (repeatable): the test corpus's,
                      or the aiter fixture's (tests/aiter)
  --triton-cache DIR  a Triton cache to index with them
  --python-root DIR   Python sources for the variant with --python-root
  --shape S           --shape bindings for the variant with --shape
  --unbound-ops       the --python-root variant reads a copy of the tree with
                      two ops added that bind no entry point of the index (one
                      module name is HTML), so that the map's list of them is
                      compared too

Variants: no option; --arch of the first arch; --shape (with --time-us);
--python-root; --trace of a rocprofv3 CSV the test writes with a few
dispatches of the first kernels. Non-vacuous: every Markdown page has its
site page and the other way round, pages must hold tables (<table>), and
tables with right-aligned columns must be among them; map.html must hold
its table and some linked code span.
Exit 77 when a --sidecars directory is absent (a fixture outside the
repository)."""
import argparse
import os
import re
import shutil
import sqlite3
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
sys.path.insert(0, os.path.join(HERE, "..", "trace"))
from kwcheck import Checker  # noqa: E402
import kwcmark  # noqa: E402
from kwrun import run  # noqa: E402
import test_trace as tt  # noqa: E402  (the rocprofv3 CSV writer)


def first_difference(x, y):
    """The first line where texts x and y differ, for the message."""
    for n, (p, q) in enumerate(zip(x.split("\n"), y.split("\n")), 1):
        if p != q:
            return "line %d: %r vs %r" % (n, p[:160], q[:160])
    return "lengths differ (%d vs %d)" % (len(x), len(y))


LISTING_TEXT = re.compile(r'(<summary>[^<\n]* ISA listing \(\d+ instructions\)</summary>\n'
                          r'<pre><code class="language-asm">).*?(</code></pre>)', re.S)


def site_walkthrough(page):
    """A site page's walkthrough, the parts only the site has set aside."""
    body = page.split("<main>\n", 1)[1].rsplit("</main>", 1)[0]
    body = re.sub(r'<svg class="kw-flow".*?</svg>\n?', "", body, flags=re.S)
    body = re.sub(r'<details class="kw-flow-text"><summary>As text</summary>(<pre>.*?</pre>)'
                  r'</details>', r"\1", body, flags=re.S)
    views = re.search(r'<section id="kw-(?:charts|si)">|<script type="application/json" '
                      r'id="kw-data">', body)
    six = body.find("<h2>6. ")
    if views and six > views.start():
        body = body[:views.start()] + body[six:]
    body = re.sub(r'<details class="kw-listing" data-arch="[^"]*"><summary>', "<details><summary>",
                  body)
    body = body.replace('<pre class="kw-listing-text"><code class="language-asm">',
                        '<pre><code class="language-asm">')
    return LISTING_TEXT.sub(r"\1\2", body)


def markdown_walkthrough(md):
    """libcmark-gfm's HTML of a Markdown page, its listings' text and its
    link to index.md set aside."""
    body = kwcmark.html(md).replace(' · <a href="index.md">all kernels</a>', "")
    return LISTING_TEXT.sub(r"\1\2", body)


def compare(c, what, site, md):
    """Every walkthrough page of the site against libcmark-gfm's HTML of its
    Markdown page; returns the site pages' text and whether every page was
    identical."""
    pages = sorted(n[:-5] for n in os.listdir(site)  # not the site-only pages
                   if n.endswith(".html") and not n.endswith(".kernel.html") and
                   not n.endswith(".ir.html") and
                   n not in ("index.html", "map.html", "instantiations.html"))
    mds = sorted(n[:-3] for n in os.listdir(md) if n.endswith(".md") and n != "index.md")
    same = c.eq(pages, mds, "%s: a site page per Markdown page" % what)
    texts, differ = [], 0
    for n in sorted(set(pages) & set(mds)):
        with open(os.path.join(site, n + ".html"), encoding="utf-8") as f:
            page = f.read()
        with open(os.path.join(md, n + ".md"), encoding="utf-8") as f:
            want = markdown_walkthrough(f.read())
        got = site_walkthrough(page)
        if got != want:
            differ += 1
            if differ <= 3:
                c.fail("%s: %s.html differs from libcmark-gfm's HTML of %s.md: %s"
                       % (what, n, n, first_difference(got, want)))
        texts.append(page)
    same &= c.check(differ == 0, "%s: %d of %d pages differ" % (what, differ, len(texts)))
    return texts, same


UNBOUND = '''

def compile_ops(module, fc_name=None, ffi_type="pybind"):
    return lambda fn: fn


@compile_ops("module_kwalk_test", fc_name="kw_no_such_entry", ffi_type="ctypes")
def kwalk_unbound_c(x: int) -> None:
    pass


@compile_ops("module_<b>kwalk</b>&test")
def kwalk_unbound_pybind(x: int) -> None:
    pass
'''


def unbound_tree(root, out):
    """A copy of the Python tree root under out with UNBOUND's ops added."""
    copy = os.path.join(out, "python-root")
    shutil.copytree(root, copy)
    with open(os.path.join(copy, "kwalk_unbound.py"), "w", encoding="utf-8") as f:
        f.write(UNBOUND)
    return copy


LINK = re.compile(r'<a href="[^"<>]*">(<code>[^<]*</code>)</a>')


def compare_map(c, what, a, db, site, opts):
    """DIR/map.html against libcmark-gfm's HTML of `kwalk map` with opts;
    returns how many code spans the site linked and whether the two were
    identical."""
    rc, md, err = run([a.kwalk, "map", "--db", db] + opts)
    if not c.check(rc == 0, "%s: kwalk map: exit %d %s" % (what, rc, err)):
        return 0, False
    with open(os.path.join(site, "map.html"), encoding="utf-8") as f:
        page = f.read()
    body = page.split("<main>\n", 1)[1].rsplit("</main>", 1)[0]
    got, links = LINK.subn(r"\1", body)
    want = kwcmark.html(md)
    same = c.check(got == want, "%s: map.html differs from libcmark-gfm's HTML of kwalk map: %s"
                   % (what, first_difference(got, want)))
    c.check("<table>" in got, "%s: map.html holds the map's table" % what)
    return links, same


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kwalk", required=True)
    ap.add_argument("--sidecars", action="append", required=True)
    ap.add_argument("--triton-cache")
    ap.add_argument("--python-root")
    ap.add_argument("--shape")
    ap.add_argument("--unbound-ops", action="store_true")
    ap.add_argument("--name", default="site.tables")
    ap.add_argument("--out", required=True)
    ap.add_argument("--db", help="an index of exactly --sidecars (and --triton-cache) another "
                    "test wrote (aiter.index); without it the test indexes them itself")
    a = ap.parse_args()
    for d in a.sidecars:
        if not os.path.isdir(d):
            print("SKIP: %s is absent" % d)
            sys.exit(77)
    c = Checker(a.name)
    shutil.rmtree(a.out, ignore_errors=True)
    os.makedirs(a.out)
    db = a.db or os.path.join(a.out, "kw.db")
    if not a.db:
        cmd = [a.kwalk, "index"] + a.sidecars + ["-o", db]
        if a.triton_cache:
            cmd += ["--triton-cache", a.triton_cache]
        rc, _, err = run(cmd)
        if not c.check(rc == 0, "kwalk index: exit %d %s" % (rc, err)):
            c.finish()
    elif not c.check(os.path.isfile(db), "the index %s is there" % db):
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
        py = unbound_tree(a.python_root, a.out) if a.unbound_ops else a.python_root
        variants.append(("python", ["--python-root", py], "<th>Python op</th>"))
    if symbols:
        variants.append(("trace", ["--trace", trace], "<th>Dispatches</th>"))
    tables = right = links = 0
    for name, opts, header in variants:
        site, md = os.path.join(a.out, name), os.path.join(a.out, name + "-md")
        rc1, _, err1 = run([a.kwalk, "site", "--db", db, "-o", site] + opts)
        rc2, _, err2 = run([a.kwalk, "render", "--all", "--db", db, "-o", md] + opts)
        if not c.check(rc1 == 0 and rc2 == 0,
                       "%s: kwalk site / render --all: exit %d / %d %s %s"
                       % (name, rc1, rc2, err1, err2)):
            continue
        pages, same = compare(c, name, site, md)
        if name in ("plain", "python"):
            n, map_same = compare_map(c, name, a, db, site, opts)
            if name == "python" and a.unbound_ops:
                with open(os.path.join(site, "map.html"), encoding="utf-8") as f:
                    page = f.read()
                c.check("<p>Python ops bound to no entry point of this index:</p>" in page
                        and "<li><code>kwalk_unbound_c</code>" in page
                        and "module_&lt;b&gt;kwalk&lt;/b&gt;&amp;test" in page,
                        "python: map.html lists the two unbound ops, their names as text")
            links += n
            # the verdict of the checks above (the FAIL lines at the end say what differs)
            print("%s: map.html %s libcmark-gfm's HTML of kwalk map (%d links set aside)"
                  % (name, "identical to" if map_same else "DIFFERS from", n))
        c.check(len(pages) > 0, "%s: the site has pages" % name)
        c.check(any(header in p for p in pages), "%s: some page has %s" % (name, header))
        tables += sum(p.count("<table>") for p in pages)
        right += sum(p.count('<td align="right">') for p in pages)
        print("%s: %d pages, %s libcmark-gfm's HTML of the Markdown pages"
              % (name, len(pages), "identical to" if same else "NOT all identical to"))
    c.check(tables > 0, "the pages hold tables (%d)" % tables)
    c.check(right > 0, "some tables have right-aligned columns (%d cells)" % right)
    c.check(links > 0, "map.html links some code spans (%d)" % links)
    c.finish()


if __name__ == "__main__":
    main()
