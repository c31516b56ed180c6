#!/usr/bin/env python3
"""test_site.py: `kwalk site` in a real browser (Debian's chromium, headless,
--dump-dom of file:// URLs; docs/site.md). Input: tests/site/src/kw_site.hip
compiled with the plugin and device line tables.

  - every page and index.html loads from file:// with no script error and
    no console.error (the pages' own collector writes them into #kw-errors;
    chromium's log is searched for "Uncaught" too);
  - index.html has a row per kernel (llvm-cxxfilt's names, a template's
    instantiations as one) with its instantiation count, linking to a page
    whose dispatch table links exactly that kernel's instantiation pages;
    its filter keeps the kernel named; on the template's page the shape box,
    given `which=N`, selects the instantiation kw_site.hip's `if (which ==
    N)` / `else` chain (read here) launches and rules out the others, and a
    malformed shape gets --shape's error;
  - instantiations.html lists exactly the kernels of the code objects (llvm-readelf
    --notes), under one header row per template (llvm-cxxfilt), each row's VGPR value is the largest .vgpr_count over the
    archs, clicking the VGPR header sorts the rows ascending, again
    descending, and the search box keeps exactly the rows whose text holds
    the query (the demangled names from llvm-cxxfilt);
  - on each page and arch, clicking a source line highlights exactly the
    instructions whose address the line table maps to it, clicking an
    instruction highlights its line, and the instructions without a line are
    the ones marked (llvm-objdump -d + llvm-dwarfdump --debug-line of the same
    code object, unbundled with clang-offload-bundler); section 5's listing
    (written by the page script) has every instruction of llvm-objdump -d
    in order with its mnemonic, the line-table line above each that has one;
  - each page's charts: the occupancy point at .vgpr_count + .agpr_count
    (llvm-readelf --notes), the class mix counting every instruction of the
    kernel (llvm-objdump -d);
  - hovering an instruction shows a title: its class, and the note
    annotations/isa/notes.txt gives its mnemonic (llvm-objdump's), no note
    where none matches;
  - map.html loads with no error, and each launch site it links to a page
    is a source line that launches (<<<) that page's instantiation;
  - each page's source pane holds the whole definition of the kernel and of
    each device function inlined into it (found in the source text by
    matching braces), not only the lines the line table names;
  - each page draws section 3's data flow as SVG boxes, as many as the
    ASCII diagram folded under it, the loads box naming the kernel's
    pointers to const (the source's parameter list);
  - the roofline: without --trace no point is drawn and the chart says what
    is missing; with a rocprofv3 trace the test writes (--trace, --gpu
    MI300X), kwsite_scale's point sits at the bytes of its global loads and
    stores (llvm-objdump -d: the access widths of its global_load /
    global_store instructions, times the trace's work items), the FLOP of
    its IR facts (the sidecar) and the median duration the test wrote, on
    the axes the chart declares; the roof is MI300X's HBM and FP32 peaks
    (annotations/hw/amdgpu-peaks.txt);
  - a screenshot of a HIP page is kept in --out (site-hip.png).

Chromium starts once for every page: a harness page frames them all (with
--allow-file-access-from-files it reads each frame's errors and test-hook
result).

Exit 77 (skip) only when chromium is missing or cannot start."""
import argparse
import glob
import html
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import kwbrowser  # noqa: E402
from kwcheck import Checker  # noqa: E402
from kwrun import run  # noqa: E402
from kwllvm import LineTable, notes_metadata  # noqa: E402


def pre(dom, pid):
    m = re.search(r'<pre id="%s"[^>]*>(.*?)</pre>' % pid, dom, re.S)
    return json.loads(html.unescape(m.group(1))) if m else None


def short(v, n=6):
    """A list (or None) for a message: its first n items and how many more."""
    if v is None:
        return "nothing"
    v = list(v)
    return repr(v[:n]) + (" and %d more" % (len(v) - n) if len(v) > n else "")


def check_loaded(c, dom, err, what):
    c.check('data-kw-loaded="1"' in dom, "%s: the page did not finish loading (no data-kw-loaded)" % what)
    errs = pre(dom, "kw-errors")
    c.check(errs == [], "%s: script or console errors: %r" % (what, errs))
    bad = [l for l in err.splitlines() if "Uncaught" in l or ("CONSOLE" in l and "rror" in l)]
    c.check(not bad, "%s: chromium logged errors: %r" % (what, bad[:5]))


def check_framed(c, got, src):
    """The frame loaded with no error; its test hook's result (or None)."""
    r = (got or {}).get(src)
    if not c.check(r is not None, "%s: not loaded by the harness" % src):
        return None
    c.check(r["loaded"], "%s: the page did not finish loading (no data-kw-loaded)" % src)
    c.check(r["errors"] == [], "%s: script or console errors: %r" % (src, r["errors"]))
    return r["result"]


# ---- ground truth from LLVM's tools ------------------------------------------------------

def code_objects(bindir, obj, tmp):
    """{arch: path of the code object} unbundled from obj's .hip_fatbin."""
    fat = os.path.join(tmp, "fatbin")
    rc, _, err = run([os.path.join(bindir, "llvm-objcopy"), "--dump-section=.hip_fatbin=" + fat,
                      obj, os.path.join(tmp, "host.o")])
    if rc:
        sys.exit("llvm-objcopy: %s" % err)
    bundler = os.path.join(bindir, "clang-offload-bundler")
    rc, out, err = run([bundler, "--list", "--type=o", "--input=" + fat])
    if rc:
        sys.exit("clang-offload-bundler --list: %s" % err)
    cos = {}
    for bid in out.split():
        m = re.search(r"(gfx[0-9a-f]+)", bid)
        if not m or not bid.startswith("hip"):
            continue
        path = os.path.join(tmp, m.group(1) + ".co")
        rc, _, err = run([bundler, "--unbundle", "--type=o", "--input=" + fat,
                          "--output=" + path, "--targets=" + bid])
        if rc:
            sys.exit("clang-offload-bundler --unbundle: %s" % err)
        cos[m.group(1)] = path
    return cos


MNEMONIC = {}  # address -> mnemonic of the code object disassembled last


def notes_table():
    """[(pattern, text)] of annotations/isa/notes.txt, in order."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "annotations",
                        "isa", "notes.txt")
    out = []
    for line in open(path, encoding="utf-8"):
        line = line.strip()
        if line and not line.startswith("#"):
            pat, _, text = line.partition(" ")
            out.append((pat, text.strip()))
    return out


def note_for(table, mnemonic):
    """The note a mnemonic gets (the first matching pattern; the encoding
    suffix dropped; none for s_waitcnt* and s_endpgm), or None."""
    for suf in ("_e64_dpp", "_e32", "_e64", "_sdwa", "_dpp"):
        if mnemonic.endswith(suf) and len(mnemonic) > len(suf):
            mnemonic = mnemonic[:-len(suf)]
            break
    if mnemonic.startswith("s_waitcnt") or mnemonic == "s_endpgm":
        return None
    for pat, text in table:
        if pat.startswith("dpp:"):
            continue
        if pat == mnemonic or (pat.endswith("*") and mnemonic.startswith(pat[:-1])):
            return text
    return None


def disasm(bindir, co):
    """{symbol: [offset of each instruction from the symbol]} and
    {symbol: start address}."""
    rc, out, err = run([os.path.join(bindir, "llvm-objdump"), "-d", "--no-show-raw-insn", co])
    if rc:
        sys.exit("llvm-objdump: %s" % err)
    insns, start, cur = {}, {}, None
    for line in out.splitlines():
        m = re.match(r"^([0-9a-f]+) <([^>]+)>:$", line)
        if m:
            cur = m.group(2)
            start[cur] = int(m.group(1), 16)
            insns[cur] = []
            continue
        # "\ts_load_dword s3, s[0:1], 0x1c   // 000000002A00: C00200C0 0000001C"
        m = re.match(r"^\s+(\S+).*//\s*([0-9A-Fa-f]+):", line)
        if m and cur:
            insns[cur].append(int(m.group(2), 16))
            MNEMONIC[int(m.group(2), 16)] = m.group(1)
        elif not line.strip():
            cur = None
    return insns, start


# ---- the checks --------------------------------------------------------------------------

INDEX_QUERY = "kwsite_kernel<8>"
INDEX_HOOK = "instantiations.html?kwtest=index&col=vgpr&filter=" + urllib.parse.quote(INDEX_QUERY)
KINDEX_QUERY = "kwsite_scale"
KINDEX_HOOK = "index.html?kwtest=index&col=count&filter=" + urllib.parse.quote(KINDEX_QUERY)
# the shape box of kwsite_kernel's page: `which` picks the instantiation (kw_site.hip's dispatch)
SHAPES = ["which=1", "which=8", "which=5", "which=8,n=3", "which=1x", "which=x"]


def check_index(c, res, site, kernels, vgprs, bindir):
    dom = open(os.path.join(site, "instantiations.html"), encoding="utf-8").read()
    rows = re.findall(r'<tr data-i="\d+" data-g="\d+" data-sym="([^"]+)"', dom)
    c.eq(sorted(rows), sorted(kernels), "instantiations.html rows (symbols) against llvm-readelf --notes")
    # sort by VGPR, then filter by a demangled name
    rc, out, _ = run([os.path.join(bindir, "llvm-cxxfilt")], input="\n".join(kernels) + "\n")
    demangled = dict(zip(kernels, out.splitlines()))
    # grouped by template: a header row, then its instantiations; the rows of a
    # group are the instantiations of one template (the demangled name before '<')
    seq = re.findall(r'<tr class="kw-g" data-g="(\d+)">|<tr data-i="\d+" data-g="(\d+)" '
                     r'data-sym="([^"]+)"', dom)
    cur, groups = None, {}
    for g_head, g_row, sym in seq:
        if g_head:
            cur = g_head
            c.check(cur not in groups, "index.html: template group %s appears twice" % cur)
            groups[cur] = set()
        else:
            c.check(g_row == cur, "index.html: %s sits under group %s, not its own %s" % (sym, cur, g_row))
            base = re.sub(r"^void ", "", demangled.get(sym, sym)).split("<")[0].split("(")[0]
            groups.setdefault(g_row, set()).add(base)
    c.eq(sorted(sorted(v) for v in groups.values()),
         sorted([[t] for t in {re.sub(r"^void ", "", demangled[k]).split("<")[0].split("(")[0]
                               for k in kernels}]),
         "index.html: one group per template (llvm-cxxfilt), each with only its instantiations")
    query = INDEX_QUERY
    if not c.check(res is not None, "index.html: the test hook wrote no #kw-test-result"):
        return
    for sym, v in res["initial"]:
        c.eq(int(v) if v else None, vgprs.get(sym), "index.html: VGPR of %s (max .vgpr_count)" % sym)
    initial = [s for s, _ in res["initial"]]
    key = {s: vgprs[s] for s in kernels}
    c.eq([s for s, _ in res["asc"]],
         sorted(initial, key=lambda s: key[s]), "rows after one click on VGPR (ascending)")
    c.eq([s for s, _ in res["desc"]],
         sorted(initial, key=lambda s: -key[s]), "rows after two clicks on VGPR (descending)")
    c.check(len(set(key.values())) > 1, "the kernels' VGPR counts differ (else sorting proves nothing): %r" % key)
    want = [s for s, _ in res["desc"] if query.lower() in demangled[s].lower()]
    c.check(len(want) == 1, "one kernel is %s: %r" % (query, want))
    c.eq([s for s, _ in res["filtered"]], want, "rows left by the filter %r" % query)


def base_name(demangled):
    """A demangled kernel's template or function name: kwsite_kernel."""
    return re.sub(r"^void ", "", demangled).split("<")[0].split("(")[0]


def source_dispatch(src):
    """{template argument: the `which` values selecting kwsite_kernel<N>} from
    kw_site.hip's if / else if / else chain, read here; the else's N maps to
    None (every other value)."""
    lines = open(src, encoding="utf-8").read().split("\n")
    out = {}
    for i, l in enumerate(lines):
        m = re.search(r"kwsite_kernel<(\d+)><<<", l)
        if not m:
            continue
        cond = re.search(r"if \(which == (\d+)\)", lines[i - 1])
        out[int(m.group(1))] = int(cond.group(1)) if cond else None
    return out


def check_kernels(c, got, site, pages, kernels, bindir, src):
    """index.html: a row per kernel (llvm-cxxfilt's names, the template's
    instantiations as one), each linking to a page whose dispatch table
    links exactly that kernel's instantiation pages; its filter; the
    template's shape box against kw_site.hip's dispatch."""
    rc, out, _ = run([os.path.join(bindir, "llvm-cxxfilt")], input="\n".join(kernels) + "\n")
    names = {k: base_name(d) for k, d in zip(kernels, out.splitlines())}
    dom = open(os.path.join(site, "index.html"), encoding="utf-8").read()
    rows = re.findall(r'<tr data-i="\d+" data-g="0" data-sym="([^"]+)"><td><a href="([^"]+)">.*?'
                      r'<td class="n" data-v="(\d+)">', dom)
    c.eq(sorted(r[0] for r in rows), sorted(set(names.values())),
         "index.html: a row per kernel (llvm-cxxfilt's names)")
    kpage = {}
    for name, href, count in rows:
        want = sorted(k for k in kernels if names[k] == name)
        c.eq(int(count), len(want), "index.html: %s's instantiation count" % name)
        page = open(os.path.join(site, href), encoding="utf-8").read()
        linked = re.findall(r'<a href="([^"]+)" data-r="\d+">', page)
        c.eq(sorted(linked), sorted(pages.get(k) for k in want),
             "%s: its dispatch table links its instantiations' pages" % href)
        kpage[name] = href
    res = check_framed(c, got, KINDEX_HOOK)
    if c.check(res is not None, "index.html: the test hook wrote no result"):
        c.eq([s for s, _ in res["filtered"]], [n for n in sorted(set(names.values()))
                                               if KINDEX_QUERY in n],
             "index.html: the rows left by the filter %r" % KINDEX_QUERY)
        c.eq(sorted(s for s, _ in res["initial"]), sorted(set(names.values())),
             "index.html: the rows the script sees")
    href = kpage.get("kwsite_kernel")
    if not c.check(href is not None, "index.html: no kernel row kwsite_kernel"):
        return
    res = check_framed(c, got, href + "?kwtest=shape&" + "&".join(
        "s=" + urllib.parse.quote(s) for s in SHAPES))
    disp = source_dispatch(src)
    c.check(len(disp) == 3 and None in disp.values(), "kw_site.hip's dispatch read: %r" % disp)
    sym = {int(re.search(r"<(\d+)>", d).group(1)): k for k, d in zip(kernels, out.splitlines())
           if names[k] == "kwsite_kernel"}
    if not c.check(res is not None and len(res) == len(SHAPES), "%s: the shape hook's result"
                   % href):
        return
    for shape, r in zip(SHAPES, res):
        which = re.fullmatch(r"which=(\d+)(,.*)?", shape)
        if shape == "which=x":  # a word against kw_site.hip's numbers: every row left open
            c.eq(r["rows"], {sym[n]: "candidate" for n in disp},
                 "%s: the rows marked for %s (a word, compared with numbers)" % (href, shape))
            c.check(r["error"] is None, "%s: %r is a word, got %r" % (href, shape, r["error"]))
            continue
        if not which:
            c.check(r["error"] and r["error"].startswith("--shape: which: expected a number"),
                    "%s: shape %r gives the --shape error, got %r" % (href, shape, r["error"]))
            c.check(set(r["rows"].values()) == {""}, "%s: no row marked for %r" % (href, shape))
            continue
        v = int(which.group(1))
        hit = [n for n, w in disp.items() if w == v] or [n for n, w in disp.items() if w is None]
        want = {sym[n]: "selected" if n in hit else "ruled out" for n in disp}
        c.eq(r["rows"], want, "%s: the rows marked for %s (kw_site.hip's dispatch)" % (href, shape))


def real(path, root):
    """A path as the page prints it (relative to --root when under it), on disk."""
    return os.path.realpath(os.path.join(root, path) if root and not os.path.isabs(path) else path)


def check_page(c, res, page, sym, cos, truth, root):
    if not c.check(res is not None, "%s: the test hook wrote no #kw-test-result" % page):
        return
    c.eq(sorted(res), sorted(cos), "%s: arch tabs" % page)
    for arch in sorted(cos):
        got = res.get(arch)
        if not got:
            continue
        offs, by_line = truth[arch][sym]
        where = "%s %s" % (page, arch)
        # source line -> instructions
        want = {}
        for off, loc in offs.items():
            if loc:
                want.setdefault("%s:%d" % loc, []).append(off)
        gotl = {}
        for k, v in got["lines"].items():
            path, _, line = k.rpartition(":")
            gotl["%s:%s" % (real(path, root), line)] = sorted(v)
        for k, v in sorted(want.items()):
            g = gotl.get(k)
            c.check(g == sorted(v), "%s: a click on %s highlights %s, the line table maps %s there"
                    % (where, k, short(g), short(sorted(v))))
        extra = sorted(k for k, v in gotl.items() if v and k not in want)
        c.check(not extra, "%s: lines that highlight instructions the line table maps nowhere "
                "near them: %s" % (where, short(extra)))
        c.eq(sorted(got["noline"]), sorted(o for o, loc in offs.items() if not loc),
             "%s: instructions marked as having no line" % where)
        rev = {int(o): (lambda s: None if s is None else "%s:%s" % (
            real(s.rpartition(":")[0], root), s.rpartition(":")[2]))(s)
               for o, s in got["rev"].items()}
        wrev = {o: ("%s:%d" % loc if loc else None) for o, loc in offs.items()}
        bad = sorted(o for o in set(rev) | set(wrev) if rev.get(o, "-") != wrev.get(o, "-"))
        c.check(not bad, "%s: a click on the instructions at %s highlights %s, the line table "
                "says %s" % (where, short(bad), short([rev.get(o, "-") for o in bad]),
                             short([wrev.get(o, "-") for o in bad])))
        c.check(any(loc for loc in offs.values()), "%s: the line table maps no instruction" % where)
        check_listing(c, where, got.get("listing"), offs, truth[arch][sym][1], root)
        # hover: the class, and the note annotations/isa/notes.txt has for the mnemonic
        table, mn = notes_table(), truth[arch][sym][1]
        bad = []
        for off, title in got["titles"]:
            want = note_for(table, mn.get(off) or "")
            if not title or (want and want not in title) or (not want and "\u2014" in title):
                bad.append((off, mn.get(off), title))
        c.check(not bad, "%s: hover titles without the class or with the wrong note: %s"
                % (where, short(bad, 3)))
        c.check(any("\u2014" in t for _, t in got["titles"]) or
                not any(note_for(table, m or "") for m in mn.values()),
                "%s: no instruction shows a note" % where)


def check_listing(c, where, text, offs, mn, root):
    """Section 5's listing, written by the page script: every instruction of
    llvm-objdump -d in the kernel, in order, with its mnemonic; the nearest
    '; path:line' line above an instruction the line table maps is that line
    (llvm-dwarfdump --debug-line)."""
    if not c.check(text is not None, "%s: section 5 has no listing" % where):
        return
    got, loc, bad = [], None, []
    for line in text.splitlines():
        m = re.match(r"^; (.*):(\d+)(?:  |$)", line)
        if m:
            loc = "%s:%s" % (real(m.group(1), root), m.group(2))
            continue
        m = re.match(r"^([0-9a-f]+): (\S+)", line)
        if m:
            off = int(m.group(1), 16)
            got.append((off, m.group(2)))
            want = offs.get(off)
            if want and loc != "%s:%d" % want:
                bad.append((off, loc, "%s:%d" % want))
    c.eq(got, [(o, mn.get(o)) for o in sorted(offs)],
         "%s: section 5's listing against llvm-objdump -d" % where)
    c.check(not bad, "%s: section 5's listing names another line above these instructions "
            "(offset, listing, line table): %s" % (where, short(bad, 3)))


def check_map(c, site, pages, root, bindir):
    """map.html links each launch site that launches one instantiation to its
    page: the source line there launches (<<<) that instantiation (its
    demangled name, llvm-cxxfilt, without the parameters)."""
    text = open(os.path.join(site, "map.html"), encoding="utf-8").read()
    links = re.findall(r'<a href="([^"?]+\.html)"><code>([^<]+):(\d+)</code></a>', text)
    c.check(links, "map.html links no launch site to a page")
    sym_of = {p: s for s, p in pages.items()}
    rc, out, _ = run([os.path.join(bindir, "llvm-cxxfilt")], input="\n".join(sym_of.values()) + "\n")
    name = dict(zip(sym_of.values(), out.splitlines()))
    for href, path, line in links:
        sym = sym_of.get(href)
        if not c.check(sym is not None, "map.html links %s, not a page of the site" % href):
            continue
        want = re.sub(r"^void ", "", name[sym]).split("(")[0]
        src = real(html.unescape(path), root)
        lines = open(src, encoding="utf-8").read().splitlines() if os.path.exists(src) else []
        at = lines[int(line) - 1] if 0 < int(line) <= len(lines) else ""
        c.check("<<<" in at and want in at.replace(" ", ""),
                "map.html: %s:%s (%r) does not launch %s, the page it links" % (path, line, at, want))


def check_charts(c, site, page, sym, cos, truth, notes):
    """The charts' numbers against the code object: the occupancy chart's
    point sits at .vgpr_count + .agpr_count, the class mix counts every
    instruction llvm-objdump shows in the kernel."""
    text = open(os.path.join(site, page), encoding="utf-8").read()
    occ = {m.group(1): int(m.group(2)) for m in re.finditer(
        r'<svg class="kw-chart kw-occ" data-arch="([^"]+)" data-vgprs="(-?\d+)"', text)}
    mix = {m.group(1): int(m.group(2)) for m in re.finditer(
        r'<svg class="kw-chart kw-mix" data-arch="([^"]+)" data-total="(-?\d+)"', text)}
    for arch in sorted(cos):
        k = notes[arch][sym]
        c.eq(occ.get(arch), k[".vgpr_count"] + k.get(".agpr_count", 0),
             "%s %s: the occupancy chart's VGPRs (llvm-readelf --notes .vgpr_count + .agpr_count)"
             % (page, arch))
        c.eq(mix.get(arch), len(truth[arch][sym][0]),
             "%s %s: instructions in the class mix (llvm-objdump -d)" % (page, arch))
    c.check(re.search(r'<g data-class="[^"]+" data-n="\d+">', text), "%s: the class mix has no bars" % page)


def kw_data(text):
    """The source <-> ISA view's inline JSON (#kw-data) of a page."""
    m = re.search(r'<script type="application/json" id="kw-data">(.*?)</script>', text, re.S)
    return json.loads(m.group(1)) if m else None


def def_ranges(path):
    """{function name: (first line, last line)} of the template or
    __global__ / __device__ definitions in path: from the line of its
    `template` header (or its own line) to the '}' that closes its body."""
    lines = open(path, encoding="utf-8").read().splitlines()
    out = {}
    for i, line in enumerate(lines):
        m = re.match(r"^(?:__global__|__device__)\s.*?\b(\w+)\s*\(", line) or \
            re.match(r"^template\s*<.*>\s*(?:__global__|__device__)\s.*?\b(\w+)\s*\(", line)
        if not m:
            continue
        first = i - 1 if i and lines[i - 1].startswith("template") else i
        depth, seen, j = 0, False, i
        while j < len(lines):
            depth += lines[j].count("{") - lines[j].count("}")
            seen = seen or "{" in lines[j]
            if seen and depth == 0:
                break
            j += 1
        out[m.group(1)] = (first + 1, j + 1)
    return out


def check_source_pane(c, site, page, src, root):
    """The pane of src shows the whole kernel and each inlined helper."""
    data = kw_data(open(os.path.join(site, page), encoding="utf-8").read())
    if not c.check(data is not None, "%s: no #kw-data" % page):
        return
    shown = set()
    for f in data["files"]:
        if real(f["p"], root) == os.path.realpath(src):
            for first, texts in f.get("s", []):
                shown.update(range(first, first + len(texts)))
    defs = def_ranges(src)
    want = ["kwsite_kernel", "kwsite_dot"] if "kwsite_kernel" in page else ["kwsite_scale"]
    for name in want:
        lo, hi = defs[name]
        missing = [n for n in range(lo, hi + 1) if n not in shown]
        c.check(not missing, "%s: the source pane lacks lines %s of %s (lines %d-%d of %s)"
                % (page, short(missing), name, lo, hi, os.path.basename(src)))


def check_flow(c, site, page, src):
    """Section 3 as SVG: as many boxes as the ASCII diagram, the read box
    naming the kernel's pointers to const."""
    text = open(os.path.join(site, page), encoding="utf-8").read()
    m = re.search(r'<svg class="kw-flow" data-boxes="(\d+)"', text)
    if not c.check(m, "%s: no data-flow SVG" % page):
        return
    pre = re.search(r'<details class="kw-flow-text">.*?<pre[^>]*>(.*?)</pre>', text, re.S)
    c.check(pre, "%s: no ASCII diagram folded under the SVG" % page)
    if pre:
        ascii_boxes = html.unescape(pre.group(1)).count("+\n|") 
        c.eq(int(m.group(1)), ascii_boxes, "%s: SVG boxes against the ASCII diagram's" % page)
    titles = [html.unescape(t) for t in re.findall(r'<g class="kw-fl-box" data-title="([^"]*)"', text)]
    c.eq(len(titles), int(m.group(1)), "%s: boxes drawn against data-boxes" % page)
    kname = "kwsite_kernel" if "kwsite_kernel" in page else "kwsite_scale"
    sig = re.search(r"void %s\(([^)]*)\)" % kname, open(src, encoding="utf-8").read())
    consts = [p.split("*")[-1].strip() for p in sig.group(1).split(",") if "const" in p and "*" in p]
    box = re.search(r'<g class="kw-fl-box" data-title="GLOBAL MEMORY, READ[^"]*".*?</g>', text, re.S)
    if c.check(box, "%s: no box of global reads" % page):
        for p in consts:
            c.check(re.search(r"<text[^>]*>%s[: ]" % re.escape(p), box.group(0)),
                    "%s: the read box does not name %s (a pointer to const of %s)" % (page, p, kname))


def ir_flops(obj, sym, arch):
    """ir.work_per_thread.flops of sym's arch in the sidecar beside obj."""
    import yaml
    doc = yaml.safe_load(open(obj + ".kwalk.yaml", encoding="utf-8"))
    for k in doc.get("kernels", []):
        if k.get("symbol") == sym:
            return int(k["archs"][arch]["ir"]["work_per_thread"]["flops"])
    sys.exit("FAIL: %s not in the sidecar of %s" % (sym, obj))


def peaks(product):
    """{key: value} of product in annotations/hw/amdgpu-peaks.txt."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "annotations",
                        "hw", "amdgpu-peaks.txt")
    out, cur = {}, None
    for line in open(path, encoding="utf-8"):
        f = line.split()
        if not f or f[0].startswith("#"):
            continue
        if f[0] == "product":
            cur = f[1]
        elif cur == product and len(f) == 2:
            out[f[0]] = f[1]
    return out


def check_no_point(c, site, page):
    text = open(os.path.join(site, page), encoding="utf-8").read()
    roofs = re.findall(r'<svg class="kw-chart kw-roof".*?</svg>', text, re.S)
    c.check(roofs, "%s: no roofline" % page)
    c.check(not any("<circle" in r for r in roofs), "%s: a roofline point without a time" % page)
    c.check("without --trace or --time-us" in text,
            "%s: the roofline does not say what is missing for a point" % page)


GLOBAL_WIDTH = {"byte": 1, "ubyte": 1, "sbyte": 1, "short": 2, "ushort": 2, "sshort": 2,
                "dword": 4, "dwordx2": 8, "dwordx3": 12, "dwordx4": 16}


def check_roofline_trace(c, a, db, tmp, sym, page, mn, ir_flops):
    """kwalk site --trace: kwsite_scale's point against the test's own
    bytes (global access widths from llvm-objdump times the work items),
    FLOP (the sidecar's IR facts) and median time."""
    work_items, block, durs = 1 << 20, 256, [10000, 12000, 30000]
    trace = os.path.join(tmp, "trace.csv")
    with open(trace, "w") as f:
        f.write("Kind,Kernel_Name,Start_Timestamp,End_Timestamp,Workgroup_Size_X,Workgroup_Size_Y,"
                "Workgroup_Size_Z,Grid_Size_X,Grid_Size_Y,Grid_Size_Z\n")
        t = 1000
        for d in durs:
            f.write("KERNEL_DISPATCH,%s,%d,%d,%d,1,1,%d,1,1\n" % (sym, t, t + d, block, work_items))
            t += d + 500
    site = os.path.join(a.out, "site-trace")
    rc, _, err = run([a.kwalk, "site", "--db", db, "-o", site, "--trace", trace, "--gpu", "MI300X"])
    if not c.check(rc == 0, "kwalk site --trace: exit %d %s" % (rc, err)):
        return
    per_thread = 0
    for m in mn.values():
        g = re.match(r"^global_(?:load|store)_(\w+)$", m or "")
        if g:
            per_thread += GLOBAL_WIDTH.get(g.group(1), 0)
    c.check(per_thread > 0, "kwsite_scale has no global loads or stores in llvm-objdump -d")
    bytes_ = float(per_thread * work_items)
    flops = float(ir_flops) * work_items
    ns = float(sorted(durs)[len(durs) // 2])
    text = open(os.path.join(site, page), encoding="utf-8").read()
    m = re.search(r'<svg class="kw-chart kw-roof" data-arch="gfx942"[^>]*>.*?</svg>', text, re.S)
    if not c.check(m, "%s: no gfx942 roofline with --trace" % page):
        return
    svg = m.group(0)
    attr = dict(re.findall(r'(data-[\w-]+)="([^"]*)"', svg.split(">", 1)[0]))
    pk = peaks("MI300X")
    c.eq(float(attr["data-hbm-tbs"]), float(pk["hbm_tbs"]), "roofline HBM peak (MI300X)")
    c.eq(float(attr["data-fp32-tflops"]), float(pk["fp32_vector_tflops"]), "roofline FP32 peak")
    pts = re.findall(r'<circle class="kw-pt" cx="([\d.]+)" cy="([\d.]+)" r="5" data-bytes="([^"]+)" '
                     r'data-flops="([^"]+)" data-ns="([^"]+)"', svg)
    if not c.check(len(pts) == 1, "%s: one roofline point with --trace, got %d" % (page, len(pts))):
        return
    cx, cy, gb, gf, gns = (float(v) for v in pts[0])
    c.eq(gb, bytes_, "roofline point: bytes (llvm-objdump widths x work items)")
    c.eq(gf, flops, "roofline point: FLOP (the sidecar's ir.work_per_thread.flops x work items)")
    c.eq(gns, ns, "roofline point: the median duration written into the trace")
    L, T, W, H = (float(v) for v in attr["data-plot"].split())
    xlo, xhi = (float(v) for v in attr["data-xlog"].split())
    ylo, yhi = (float(v) for v in attr["data-ylog"].split())
    ai, tf = flops / bytes_, flops / ns / 1e3
    wx = L + (math.log10(ai) - xlo) / (xhi - xlo) * W
    wy = T + H - (math.log10(tf) - ylo) / (yhi - ylo) * H
    c.check(abs(cx - wx) < 0.02 and abs(cy - wy) < 0.02,
            "roofline point at (%.2f, %.2f), want (%.2f, %.2f) for %.4g FLOP/byte, %.4g TFLOP/s"
            % (cx, cy, wx, wy, ai, tf))
    c.check(xlo < math.log10(ai) < xhi and ylo < math.log10(tf) < yhi,
            "roofline point outside the declared axes")



def check_cli(c, kwalk, db, tmp):
    """Bad input: one line on stderr, a non-zero exit; a rerun into the same
    directory removes the pages the previous run listed and no longer
    writes, and nothing else."""
    cases = [("no -o", ["site", "--db", db], 2),
             ("missing index", ["site", "--db", os.path.join(tmp, "none.db"), "-o", tmp], 1),
             ("index is a directory", ["site", "--db", tmp, "-o", os.path.join(tmp, "o")], 1),
             ("unknown option", ["site", "--db", db, "-o", tmp, "--bogus"], 2),
             ("output under a file", ["site", "--db", db, "-o", os.path.join(db, "x")], 1)]
    for what, args, want in cases:
        rc, out, err = run([kwalk] + args)
        c.check(rc == want and len(err.splitlines()) == 1 and err.startswith("kwalk: "),
                "kwalk %s (%s): exit %d (want %d), stderr %r" % (" ".join(args), what, rc, want, err))
    d = os.path.join(tmp, "rerun")
    rc, _, err = run([kwalk, "site", "--db", db, "-o", d])
    c.check(rc == 0, "kwalk site: exit %d %s" % (rc, err))
    stale, mine = os.path.join(d, "gone-0123abcd.html"), os.path.join(d, "mine.html")
    for f in (stale, mine):
        open(f, "w").write("x")
    with open(os.path.join(d, ".kwalk-site"), "a") as f:
        f.write("gone-0123abcd.html\n")
    rc, _, err = run([kwalk, "site", "--db", db, "-o", d])
    c.check(rc == 0 and not os.path.exists(stale) and os.path.exists(mine),
            "a rerun removes the listed page no instantiation has (%s) and keeps other files (%s)"
            % (os.path.exists(stale), os.path.exists(mine)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kwalk", required=True)
    ap.add_argument("--obj", required=True, help="kw_site.o (its sidecar beside it)")
    ap.add_argument("--llvm-bindir", required=True)
    ap.add_argument("--out", required=True, help="where the site and the screenshots go")
    ap.add_argument("--root", help="kwalk site --root: paths printed relative to it")
    ap.add_argument("--chromium")
    ap.add_argument("--src", required=True, help="kw_site.hip")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="kwsite-")
    db = os.path.join(tmp, "kw.db")
    rc, _, err = run([a.kwalk, "index", os.path.dirname(os.path.abspath(a.obj)), "-o", db])
    if rc:
        sys.exit("FAIL: kwalk index: exit %d %s" % (rc, err))
    # without a browser first: a missing chromium must not hide these
    c = Checker("site.browser")
    check_cli(c, a.kwalk, db, tmp)
    if c.failures:
        c.finish()
    chrome = kwbrowser.chromium(a.chromium, "kwsite-chromium-", log=True)
    shutil.rmtree(a.out, ignore_errors=True)
    os.makedirs(a.out)
    site = os.path.join(a.out, "site")
    rc, out, err = run([a.kwalk, "site", "--db", db, "-o", site]
                       + (["--root", a.root] if a.root else []))
    c.check(rc == 0, "kwalk site: exit %d %s" % (rc, err))
    # ground truth
    cos = code_objects(a.llvm_bindir, a.obj, tmp)
    c.check(len(cos) > 0, "no code object in %s" % a.obj)
    truth, vgprs, kernels, knotes = {}, {}, set(), {}
    for arch, co in cos.items():
        insns, start = disasm(a.llvm_bindir, co)
        lines = LineTable(os.path.join(a.llvm_bindir, "llvm-dwarfdump"), co)
        # the kernel is its symbol's bytes (objdump runs on into the padding after it)
        _, nm, _ = run([os.path.join(a.llvm_bindir, "llvm-nm"), "--print-size", co])
        sizes = {f[3]: int(f[1], 16) for f in (l.split() for l in nm.splitlines()) if len(f) == 4}
        _, notes, _ = run([os.path.join(a.llvm_bindir, "llvm-readelf"), "--notes", co])
        md = notes_metadata(notes) or {}
        truth[arch], knotes[arch] = {}, {}
        for k in md.get("amdhsa.kernels", []):
            sym = k[".name"]
            knotes[arch][sym] = k
            kernels.add(sym)
            vgprs[sym] = max(vgprs.get(sym, 0), k[".vgpr_count"])
            offs = {addr - start[sym]: lines.at(addr) for addr in insns.get(sym, [])
                    if addr < start[sym] + sizes.get(sym, 0)}
            offs = {o: (os.path.realpath(l[0]), l[1]) if l else None for o, l in offs.items()}
            mn = {addr - start[sym]: MNEMONIC.get(addr) for addr in insns.get(sym, [])}
            truth[arch][sym] = (offs, mn)
    kernels = sorted(kernels)
    c.check(len(kernels) == 4, "kw_site.hip has four kernels: %r" % kernels)
    # pages: the link of each row
    idx = open(os.path.join(site, "instantiations.html"), encoding="utf-8").read()
    pages = dict(re.findall(r'<tr data-i="\d+" data-g="\d+" data-sym="([^"]+)"><td>.*?<a href="([^"]+)"', idx))
    # the kernel pages, with kwsite_kernel's shape hook
    kdom = open(os.path.join(site, "index.html"), encoding="utf-8").read()
    kpages = re.findall(r'data-sym="([^"]+)"><td><a href="([^"]+\.kernel\.html)"', kdom)
    ksrcs = [h + ("?kwtest=shape&" + "&".join("s=" + urllib.parse.quote(s) for s in SHAPES)
                  if n == "kwsite_kernel" else "") for n, h in kpages]
    # the index and every page in one chromium load, each running its test hook
    srcs = [INDEX_HOOK, KINDEX_HOOK, "map.html"] + ksrcs + [pages[s] + "?kwtest=isa" for s in kernels if s in pages]
    got, err = kwbrowser.framed(chrome, site, srcs)
    c.check(got is not None, "the harness page wrote no result (chromium: %s)" % err[-400:])
    bad = [l for l in err.splitlines() if "Uncaught" in l]
    c.check(not bad, "chromium logged errors: %r" % bad[:5])
    check_framed(c, got, "map.html")
    check_map(c, site, pages, a.root, a.llvm_bindir)
    res = check_framed(c, got, INDEX_HOOK)
    if c.check(res is not None, "instantiations.html: the test hook wrote no result"):
        check_index(c, res, site, kernels, vgprs, a.llvm_bindir)
    for u in ksrcs:
        check_framed(c, got, u)
    check_kernels(c, got, site, pages, kernels, a.llvm_bindir, a.src)
    for sym in kernels:
        if c.check(sym in pages, "index.html links no page for %s" % sym):
            res = check_framed(c, got, pages[sym] + "?kwtest=isa")
            check_page(c, res, pages[sym], sym, cos, truth, a.root)
            check_charts(c, site, pages[sym], sym, cos, truth, knotes)
            check_source_pane(c, site, pages[sym], a.src, a.root)
            check_flow(c, site, pages[sym], a.src)
            check_no_point(c, site, pages[sym])
    scale = [s for s in kernels if "kwsite_scale" in s]
    if c.check(len(scale) == 1 and scale[0] in pages and "gfx942" in truth,
               "kwsite_scale has a page and a gfx942 code object"):
        check_roofline_trace(c, a, db, tmp, scale[0], pages[scale[0]], truth["gfx942"][scale[0]][1],
                             ir_flops(a.obj, scale[0], "gfx942"))
    # screenshots (test artifacts)
    for name, page in (("hip", pages.get(kernels[-1], "index.html")),):
        shot = os.path.join(a.out, "site-%s.png" % name)
        url = "file://" + os.path.join(site, page) + ("?kwtest=shot" if name != "index" else "")
        try:
            subprocess.run(chrome + ["--window-size=1400,1000", "--hide-scrollbars",
                                     "--screenshot=" + shot, url], capture_output=True, timeout=120)
        except subprocess.TimeoutExpired:
            pass
        c.check(os.path.exists(shot) and os.path.getsize(shot) > 1000, "no screenshot %s" % shot)
    c.note("site and screenshots in %s" % a.out)
    shutil.rmtree(tmp, ignore_errors=True)
    c.finish()


if __name__ == "__main__":
    main()
