#!/usr/bin/env python3
"""test_site_triton_ir.py: the IR view of a Triton specialization
(NAME.ir.html, render/kw_html_ir.c; docs/site.md) on the shared fixture
../shared/fixtures/triton-aiter-3.6 (Triton 3.6's own cache of aiter's
rmsnorm and quant kernels), indexed with --map-prefix /opt/aiter=src.

The ground truth is this test's own reading of the cache files, with
regular expressions, independent of kwalk's parsers (model/kw_irloc_*.c):
each line's Python position from the TTIR's and TTGIR's loc(...) and #loc
aliases, the LLIR's !dbg DILocation and its scope's DIFile, the AMDGCN's
.file/.loc directives (the rules of docs/triton.md, "The IR of every
stage").

--no-browser (site.triton_ir_lines, runs everywhere): the view's data
(#kw-ir-data) of every specialization has the four stage files' text
exactly, and per line the position the test reads; the source lines shown
are the files' own lines, every line a stage names in a readable file is
shown, and the kernel's function (Python's ast: def to end) is shown whole;
the walkthrough page links to the view.

Without it (site.triton_ir, headless Chromium): every view of at most 1 MB
(8 of the 10) loaded with its test hook (?kwtest=ir: a click on every TTGIR line and every source line):
a TTGIR line with a position highlights in each stage exactly the lines
whose position the test reads as the same, and in the source exactly that
line with the file's own text; one without highlights only itself; a
source line highlights exactly the stage lines of its position.

Non-vacuous: it fails unless every stage of every view has lines with a
position, some in the kernel's own file."""
import argparse
import ast
import html
import json
import os
import re
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
from kwcheck import Checker  # noqa: E402
from kwrun import run  # noqa: E402

STAGES = [("TTIR", ".ttir"), ("TTGIR", ".ttgir"), ("LLIR", ".llir"), ("AMDGCN", ".amdgcn")]
PREFIX = "/opt/aiter"


# ---- the test's own reading of each stage's locations --------------------------------------
def mlir_positions(text):
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    alias = {}
    for ln in lines:
        m = re.match(r"^#(loc\d*) = loc\((.*)\)\s*$", ln)
        if m:
            alias[m.group(1)] = m.group(2)

    def split_top(s, sep):
        d = 0
        for i in range(len(s)):
            if s[i] in "([":
                d += 1
            elif s[i] in ")]":
                d -= 1
            elif d == 0 and s.startswith(sep, i):
                return s[:i], s[i + len(sep):]
        return s, None

    def ref(s, depth):
        s = s.strip()
        m = re.match(r"^#(loc\d*)\b", s)
        if m:
            return body(alias.get(m.group(1), ""), depth + 1)
        if s.startswith("loc("):
            return body(s[4:], depth + 1)
        return None

    def body(s, depth):
        if depth > 64:
            return None
        m = re.match(r'^"((?:[^"\\]|\\.)*)":(\d+):\d+', s)
        if m:
            return (m.group(1), int(m.group(2))) if int(m.group(2)) > 0 else None
        m = re.match(r'^"(?:[^"\\]|\\.)*"\((.*)$', s)
        if m:
            return ref(m.group(1), depth)
        if s.startswith("callsite("):
            callee, caller = split_top(s[9:], " at ")
            return ref(callee, depth) or (ref(caller, depth) if caller is not None else None)
        if s.startswith("fused"):
            inner = s[s.index("[") + 1:]
            for part in inner.split(","):
                p = ref(part, depth)
                if p:
                    return p
            return None
        if s.startswith("#"):
            return ref(s, depth)
        return None

    out = []
    for ln in lines:
        if re.match(r"^#loc\d*\b", ln) and not re.match(r"^#loc[A-Za-z_]", ln):
            out.append(None)
            continue
        i = ln.rfind(" loc(")
        out.append(body(ln[i + 5:], 0) if i >= 0 else None)
    return out


def llir_positions(text):
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    locs, scopes, files = {}, {}, {}
    for ln in lines:
        m = re.match(r"^!(\d+) = (?:distinct )?!DILocation\((.*)\)", ln)
        if m:
            f = m.group(2)
            line = re.search(r"(?:^|[ (])line: (\d+)", f)
            scope = re.search(r"scope: !(\d+)", f)
            locs[int(m.group(1))] = (int(line.group(1)) if line else -1,
                                      int(scope.group(1)) if scope else -1)
            continue
        m = re.match(r"^!(\d+) = (?:distinct )?!DI(?:Subprogram|LexicalBlock|LexicalBlockFile)\((.*)\)",
                     ln)
        if m:
            line = re.search(r"(?:^|[ (])line: (\d+)", m.group(2))
            fil = re.search(r"(?:^|[ (])file: !(\d+)", m.group(2))
            scopes[int(m.group(1))] = (int(line.group(1)) if line else -1,
                                        int(fil.group(1)) if fil else -1)
            continue
        m = re.match(r'^!(\d+) = (?:distinct )?!DIFile\(filename: "([^"]*)", directory: "([^"]*)"', ln)
        if m:
            fn, d = m.group(2), m.group(3)
            files[int(m.group(1))] = fn if fn.startswith("/") or not d else d + "/" + fn
    out = []
    for ln in lines:
        pos = None
        if not ln.startswith("!"):
            ms = re.findall(r"!dbg !(\d+)", ln)
            if ms:
                n = int(ms[-1])
                if n in locs:
                    line, sc = locs[n]
                    s = scopes.get(sc)
                elif n in scopes:
                    s = scopes[n]
                    line = s[0]
                else:
                    s = None
                if s and s[1] in files and line > 0:
                    pos = (files[s[1]], line)
        out.append(pos)
    return out


def amdgcn_positions(text):
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    files, cur, out = {}, None, []
    for ln in lines:
        w = ln.lstrip(" \t")
        m = re.match(r'^\.file\s+(\d+)\s+"([^"]*)"(?:\s+"([^"]*)")?', w)
        if m:
            d, n = m.group(2), m.group(3)
            files[int(m.group(1))] = (n if n.startswith("/") or not d else d + "/" + n) \
                if n is not None else d
            out.append(None)
            continue
        m = re.match(r"^\.loc\s+(\d+)\s+(\d+)", w)
        if m:
            f, l = int(m.group(1)), int(m.group(2))
            cur = (files[f], l) if f in files and l > 0 else None
            out.append(None)
            continue
        if w.startswith(".section") or ln.startswith(".Lfunc_end"):
            cur = None
            out.append(None)
            continue
        out.append(cur if w != ln and re.match(r"[A-Za-z_]", w) else None)
    return out


PARSE = {"TTIR": mlir_positions, "TTGIR": mlir_positions, "LLIR": llir_positions,
         "AMDGCN": amdgcn_positions}


# ---- the site ------------------------------------------------------------------------------
def view_data(path):
    text = open(path, encoding="utf-8").read()
    m = re.search(r'<script type="application/json" id="kw-ir-data">(.*?)</script>', text, re.S)
    return json.loads(m.group(1)) if m else None


def expand(runs):
    out = []
    for i in range(0, len(runs), 3):
        out += [(runs[i + 1], runs[i + 2])] * runs[i]
    return out


def mapped(path, src):
    return src + path[len(PREFIX):] if path.startswith(PREFIX + "/") else path


def def_range(path, name):
    tree = ast.parse(open(path, encoding="utf-8").read())
    for n in ast.walk(tree):
        if isinstance(n, ast.FunctionDef) and n.name == name:
            return n.lineno, n.end_lineno
    return None


def file_lines(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read().split("\n")
    except OSError:
        return None


def check_view(c, site, page, cache_dir, name, src, truth):
    """The view's data against the cache files; truth[stage] = per-line positions."""
    d = view_data(os.path.join(site, page))
    if not c.check(d is not None, "%s: no #kw-ir-data" % page):
        return None
    files = d["files"]
    for f in files:
        c.eq(f["p"], mapped(f["ir"], src), "%s: file %s read at its mapped path" % (page, f["ir"]))
    named = {}
    for (sname, ext), st in zip(STAGES, d["stages"]):
        path = os.path.join(cache_dir, name + ext)
        c.eq(st["n"], sname, "%s: stage order" % page)
        c.eq(os.path.realpath(st["p"] or ""), path, "%s: %s's file" % (page, sname))
        text = open(path, encoding="utf-8").read()
        c.eq(st["t"], text, "%s: %s's text is the file's" % (page, sname))
        got = [None if fi < 0 else (files[fi]["ir"], ln) for fi, ln in expand(st["r"])]
        want = truth[sname]
        c.eq(len(got), len(want), "%s: %s: a position per line" % (page, sname))
        bad = [i + 1 for i, (g, w) in enumerate(zip(got, want)) if g != w]
        c.check(not bad, "%s: %s: each line's position is the one its loc gives" % (page, sname),
                "lines %s: kwalk %s, the file %s" % (bad[:5], [got[i - 1] for i in bad[:5]],
                                                     [want[i - 1] for i in bad[:5]]))
        with_pos = [w for w in want if w]
        c.check(len(with_pos) > 0, "%s: %s has lines with a position" % (page, sname))
        for w in with_pos:
            named.setdefault(w[0], set()).add(w[1])
    # the source lines shown: the files' own text; every named line of a readable file
    for f in files:
        lines = file_lines(f["p"])
        shown = {}
        for first, texts in f["s"]:
            for k, t in enumerate(texts):
                shown[first + k] = t
        if lines is None:
            c.check(f["why"] is not None and not f["s"], "%s: %s unreadable, said so" % (page, f["p"]))
            continue
        c.check(f["why"] is None, "%s: %s readable" % (page, f["p"]))
        wrong = [ln for ln, t in shown.items() if ln > len(lines) or lines[ln - 1] != t]
        c.check(not wrong, "%s: %s: shown lines are the file's" % (page, f["p"]), str(wrong[:5]))
        missing = sorted(named.get(f["ir"], set()) - set(shown))
        c.check(not missing, "%s: %s: every line a stage names is shown" % (page, f["p"]),
                str(missing[:5]))
    kfile = [f for f in files if f["ir"].endswith(".py") and file_lines(f["p"]) is not None
             and def_range(f["p"], name)]
    if c.check(kfile, "%s: the kernel's own file is among the view's files" % page):
        a, b = def_range(kfile[0]["p"], name)
        shown = {first + k for first, texts in kfile[0]["s"] for k in range(len(texts))}
        c.check(all(ln in shown for ln in range(a, b + 1)),
                "%s: the function %s (lines %d-%d by ast) is shown whole" % (page, name, a, b))
    return d


def check_clicks(c, page, d, res, truth):
    if not c.check(isinstance(res, list) and res, "%s: the test hook wrote no result" % page):
        return
    files = d["files"]

    for click in res:
        hl = click["hl"]
        if click["s"] == "TTGIR":
            pos = truth["TTGIR"][click["n"] - 1]
            where = "%s: TTGIR line %d" % (page, click["n"])
            if pos is None:
                c.eq(hl["TTGIR"], [click["n"]], where + " (no position): only itself highlighted")
                c.check(all(not hl[s] for s, _ in STAGES if s != "TTGIR") and not hl["src"],
                        where + " (no position): nothing else highlighted")
                continue
            c.eq(click["title"], "%s:%d" % pos, where + ": its title")
        else:
            fi, ln = click["n"].split(":")
            pos = (files[int(fi)]["ir"], int(ln))
            where = "%s: source %s:%s" % (page, files[int(fi)]["p"], ln)
        for s, _ in STAGES:
            want = [i + 1 for i, p in enumerate(truth[s]) if p == pos]
            c.eq(hl[s], want, where + ": the %s lines whose loc is %s:%d" % ((s,) + pos))
        lines = file_lines(mapped(pos[0], d["src_root"]))
        want_src = [[mapped(pos[0], d["src_root"]), pos[1], lines[pos[1] - 1]]] \
            if lines is not None and pos[1] <= len(lines) else []
        c.eq(hl["src"], want_src, where + ": the Python line shown")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kwalk", required=True)
    ap.add_argument("--fixture", required=True, help="../shared/fixtures/triton-aiter-3.6")
    ap.add_argument("--out", required=True)
    ap.add_argument("--chromium", default=None)
    ap.add_argument("--no-browser", action="store_true")
    a = ap.parse_args()
    c = Checker("site.triton_ir_lines" if a.no_browser else "site.triton_ir")
    a.fixture = os.path.realpath(a.fixture)
    cache = os.path.join(a.fixture, "cache")
    if not os.path.isdir(cache):
        c.skip("no fixture at %s" % a.fixture)
    src = os.path.join(a.fixture, "src")
    chrome = None
    if not a.no_browser:
        sys.path.insert(0, HERE)
        from kwbrowser import chromium  # noqa: E402
        chrome = chromium(a.chromium, "kwirtest")
    shutil.rmtree(a.out, ignore_errors=True)
    os.makedirs(a.out)
    db = os.path.join(a.out, "t.db")
    env = dict(os.environ, KWALK_IRFACTS="off")
    run([a.kwalk, "index", "--triton-cache", cache, "--map-prefix", PREFIX + "=" + src, "-o", db],
        env=env, must=True)
    site = os.path.join(a.out, "site")
    run([a.kwalk, "site", "--db", db, "-o", site], must=True)
    views = {}
    for key in sorted(os.listdir(cache)):
        folder = os.path.join(cache, key)
        name = next((f[:-5] for f in os.listdir(folder) if f.endswith(".json")
                     and not f.startswith("__grp__")), None)
        if not name:
            continue
        # the walkthrough page of this folder: the one whose overview names the folder
        page = next((p for p in sorted(os.listdir(site)) if p.endswith(".html")
                     and not p.endswith(".ir.html") and key in open(os.path.join(site, p),
                                                                      encoding="utf-8").read()),
                    None)
        if not c.check(page is not None, "%s: a walkthrough page names the cache folder" % key):
            continue
        ir = page[:-5] + ".ir.html"
        c.check('href="%s">IR stages</a>' % html.escape(ir) in
                open(os.path.join(site, page), encoding="utf-8").read(),
                "%s links to its IR view %s" % (page, ir))
        if not c.check(os.path.exists(os.path.join(site, ir)), "%s exists" % ir):
            continue
        truth = {s: PARSE[s](open(os.path.join(folder, name + ext), encoding="utf-8").read())
                 for s, ext in STAGES}
        d = check_view(c, site, ir, folder, name, src, truth)
        if d:
            d["src_root"] = src
            views[ir] = (d, truth)
    c.check(len(views) >= 10, "a view per specialization of the fixture (%d)" % len(views))
    if chrome:
        sys.path.insert(0, HERE)
        from kwbrowser import framed  # noqa: E402
        from test_site import check_framed  # noqa: E402
        # views of at most 1 MB (8 of the 10: the two of BLOCK_SIZE 32768, 20,000
        # instructions each, take most of a minute to build in a loaded box's
        # chromium; their data is checked above like every view's)
        framed_views = [ir for ir in sorted(views) if os.path.getsize(os.path.join(site, ir)) <= 1 << 20]
        c.check(len(framed_views) >= 8, "views clicked in chromium (%d)" % len(framed_views))
        srcs = [ir + "?kwtest=ir" for ir in framed_views]
        got, _ = framed(chrome, site, srcs)
        for ir, u in zip(framed_views, srcs):
            res = check_framed(c, got, u)
            check_clicks(c, ir, views[ir][0], res, views[ir][1])
        shutil.rmtree(next(x.split("=", 1)[1] for x in chrome if x.startswith("--user-data-dir=")),
                      ignore_errors=True)
    c.finish()


if __name__ == "__main__":
    main()
