#!/usr/bin/env python3
"""test_site_triton.py: a Triton page of `kwalk site` (title, overview,
sections 1-4: render/kw_render_triton.c, kw_r_ttgir.c) is written in the
page's printer, as HTML, and must be what libcmark-gfm makes of the
Markdown page of `kwalk render --all` (test_site_tables.compare: the
site-only parts set aside). The index is the Triton hook
corpus (tests/corpus/triton: hook sidecars with launches, call chains,
constexprs set by an autotuner, the cache's TTGIR and .llir), mapped from
/opt/kwalk to the repository as tests/triton does; variants without and
with --python-root. Every walkthrough page byte for byte.

Non-vacuous: the pages are Triton pages with the parts the converted
writers produce (a launch's call chain, a constexpr an autotuner set, the
TTGIR layouts, section 4's list), checked in the Markdown pages."""
import argparse
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
from kwcheck import Checker  # noqa: E402
from kwrun import run  # noqa: E402
sys.path.insert(0, HERE)
import test_site_tables as tables  # noqa: E402  (the comparison with libcmark-gfm)


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
        site, mdv = os.path.join(a.out, name), os.path.join(a.out, name + "-md")
        run([a.kwalk, "site", "--db", db, "-o", site] + opts, must=True)
        run([a.kwalk, "render", "--all", "--db", db, "-o", mdv] + opts, must=True)
        got, _ = tables.compare(c, name, site, mdv)
        c.check(len(got) >= len(triton), "%s: a site page per kernel (%d)" % (name, len(got)))
    c.finish()


if __name__ == "__main__":
    main()
