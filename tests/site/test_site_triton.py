#!/usr/bin/env python3
"""test_site_triton.py: a Triton page of `kwalk site` (title, overview,
sections 1-4: render/kw_render_triton.c, kw_r_ttgir.c) is written in the
page's printer, as HTML, and must be what libcmark-gfm makes of the
Markdown page: the reference is `kwalk site --via-markdown`, which converts
the whole Markdown page with libcmark-gfm. The index is the Triton hook
corpus (tests/corpus/triton: hook sidecars with launches, call chains,
constexprs set by an autotuner, the cache's TTGIR and .llir), mapped from
/opt/kwalk to the repository as tests/triton does; variants without and
with --python-root. Every file of both sites byte for byte.

Non-vacuous: the pages are Triton pages with the parts the converted
writers produce (a launch's call chain, a constexpr an autotuner set, the
TTGIR layouts, section 4's list), checked in the Markdown pages."""
import argparse
import filecmp
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
from kwcheck import Checker  # noqa: E402
from kwrun import run  # noqa: E402


def first_difference(a, b):
    with open(a, encoding="utf-8", errors="replace") as fa, \
            open(b, encoding="utf-8", errors="replace") as fb:
        for n, (x, y) in enumerate(zip(fa, fb), 1):
            if x != y:
                return "line %d: %r vs %r" % (n, x[:200], y[:200])
    return "lengths differ"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kwalk", required=True)
    ap.add_argument("--corpus", required=True, help="tests/corpus/triton")
    ap.add_argument("--root", required=True, help="the repository (for /opt/kwalk)")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    c = Checker("site.triton")
    shutil.rmtree(a.out, ignore_errors=True)
    os.makedirs(a.out)
    db = os.path.join(a.out, "kw.db")
    run([a.kwalk, "index", os.path.join(a.corpus, "sidecars"), "--triton-cache",
         os.path.join(a.corpus, "cache"), "--map-prefix", "/opt/kwalk=" + a.root, "-o", db],
        must=True)
    md = os.path.join(a.out, "md")
    run([a.kwalk, "render", "--all", "--db", db, "-o", md], must=True)
    pages = [open(os.path.join(md, p), encoding="utf-8").read()
             for p in sorted(os.listdir(md)) if p.endswith(".md") and p != "index.md"]
    triton = [p for p in pages if "| Language: Triton |" in p]
    c.check(len(triton) > 0, "the corpus has Triton pages")
    for what, text in [("a launch's call chain", "**Call chain**, from the outermost"),
                       ("a constexpr an autotuner set", "(`@triton.autotune`, "),
                       ("the TTGIR layouts", "The layouts of the kernel's TTGIR"),
                       ("section 4's threads per program", "- Threads per program: ")]:
        c.check(any(text in p for p in triton), "some Triton page has %s (%r)" % (what, text))
    for name, opts in [("plain", []), ("python", ["--python-root", a.corpus])]:
        direct, reference = os.path.join(a.out, name), os.path.join(a.out, name + "-md")
        run([a.kwalk, "site", "--db", db, "-o", direct] + opts, must=True)
        run([a.kwalk, "site", "--via-markdown", "--db", db, "-o", reference] + opts, must=True)
        names = sorted(os.listdir(direct))
        c.eq(names, sorted(os.listdir(reference)), "%s: the files of both sites" % name)
        html = 0
        for n in names:
            x, y = os.path.join(direct, n), os.path.join(reference, n)
            if not os.path.isfile(x) or not os.path.isfile(y):
                continue
            html += n.endswith(".html")
            if not filecmp.cmp(x, y, shallow=False):
                c.fail("%s: %s differs from libcmark-gfm's conversion: %s"
                       % (name, n, first_difference(x, y)))
        c.check(html > len(triton), "%s: a page per kernel and the index (%d files)" % (name, html))
    c.finish()


if __name__ == "__main__":
    main()
