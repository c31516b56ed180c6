#!/usr/bin/env python3
"""test_site_languages.py: `kwalk site` over the test corpus (the HIP corpus
kernels, the ASM kernels they launch through code objects, the Triton
corpus cache): every page (each instantiation's and each kernel's),
index.html, instantiations.html and map.html load in headless chromium from
file:// with no script or console error (one load of a harness page that
frames them all, with --allow-file-access-from-files so it can read their
error lists), instantiations.html has a row per language the corpus has
(HIP, ASM, Triton: ground truth from the corpus source and its Triton
cache) and links every instantiation page once, index.html every kernel
page once, and a
screenshot of one page per language is kept in --out (site-hip.png,
site-asm.png, site-triton.png). Exit 77 only when chromium cannot start."""
import argparse
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import kwbrowser  # noqa: E402
from kwcheck import Checker  # noqa: E402
from kwrun import run  # noqa: E402

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kwalk", required=True)
    ap.add_argument("--corpus-out", required=True, help="the kw_corpus output directory")
    ap.add_argument("--source-dir", required=True, help="the repository")
    ap.add_argument("--out", required=True)
    ap.add_argument("--chromium")
    a = ap.parse_args()
    chrome = kwbrowser.chromium(a.chromium, "kwsite-chromium-")
    c = Checker("site.languages")
    shutil.rmtree(a.out, ignore_errors=True)
    os.makedirs(a.out)
    site, db = os.path.join(a.out, "site"), os.path.join(a.out, "kw.db")
    cache = os.path.join(a.source_dir, "tests", "corpus", "triton", "cache")
    rc, _, err = run([a.kwalk, "index", a.corpus_out, "--triton-cache", cache,
                      "--map-prefix", "/opt/kwalk=" + a.source_dir, "-o", db])
    c.check(rc == 0, "kwalk index: exit %d %s" % (rc, err))
    rc, _, err = run([a.kwalk, "site", "--db", db, "-o", site, "--root", a.source_dir])
    c.check(rc == 0, "kwalk site: exit %d %s" % (rc, err))
    idx = open(os.path.join(site, "instantiations.html"), encoding="utf-8").read()
    rows = re.findall(r'<tr data-i="\d+"[^>]*><td>.*?<a href="([^"]+)".*?</td><td>.*?</td>'
                      r'<td>(HIP|ASM|Triton|\?)</td>', idx)
    # the languages the corpus has: HIP sources, ASM code objects they launch
    # (hipModuleLaunchKernel), Triton cache entries
    want = {"HIP"}
    corpus_src = os.path.join(a.source_dir, "tests", "corpus")
    if any("hipModuleLaunchKernel" in open(os.path.join(corpus_src, f), errors="replace").read()
           for f in os.listdir(corpus_src) if f.endswith(".hip")):
        want.add("ASM")
    if os.path.isdir(cache) and os.listdir(cache):
        want.add("Triton")
    langs = {}
    for page, lang in rows:
        langs.setdefault(lang, page)
    c.eq(sorted(langs), sorted(want), "languages of instantiations.html's rows")
    pages = sorted(set(p for p, _ in rows))
    kpages = sorted(f for f in os.listdir(site) if f.endswith(".kernel.html"))
    tops = ["index.html", "map.html", "instantiations.html"]
    c.eq(len(pages), len([f for f in os.listdir(site) if f.endswith(".html") and f not in tops
                          and f not in kpages and not f.endswith(".ir.html")]),
         "instantiations.html links every page once")
    # index.html: a row per kernel, each linking to its kernel page
    krows = re.findall(r'<tr data-i="\d+"[^>]*><td><a href="([^"]+)"', open(
        os.path.join(site, "index.html"), encoding="utf-8").read())
    c.eq(sorted(krows), kpages, "index.html links every kernel page once")
    # a Triton page's IR view (NAME.ir.html, linked from its page) loads too
    irs = sorted(f for f in os.listdir(site) if f.endswith(".ir.html"))
    c.check(bool(irs) == ("Triton" in want), "an IR view per Triton page (%d)" % len(irs))
    pages += irs
    # every page (and the index) in one load
    res, err = kwbrowser.framed(chrome, site, tops + kpages + pages)
    c.check(res is not None, "the harness wrote no result (chromium: %s)" % err[-300:])
    for page in tops + kpages + pages:
        r = (res or {}).get(page)
        if res is not None and c.check(r is not None, "%s: not framed" % page):
            c.check(r["loaded"], "%s: did not finish loading" % page)
            c.check(r["errors"] == [], "%s: script or console errors %r" % (page, r["errors"]))
    for lang, page in sorted(langs.items()):
        shot = os.path.join(a.out, "site-%s.png" % lang.lower())
        subprocess.run(chrome + ["--window-size=1400,1000", "--hide-scrollbars",
                                 "--screenshot=" + shot, "file://%s/%s?kwtest=shot" % (site, page)],
                       capture_output=True, timeout=120)
        c.check(os.path.exists(shot) and os.path.getsize(shot) > 1000, "no screenshot %s" % shot)
    c.note("site and screenshots in %s" % a.out)
    shutil.rmtree(kwbrowser.profile(chrome), ignore_errors=True)
    c.finish()


if __name__ == "__main__":
    main()
