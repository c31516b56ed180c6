#!/usr/bin/env python3
"""Triton walkthrough pages (kwalk render --all of Triton specializations),
checked against ground truth this test computes itself, never against
kwalk's own output:

  --fixture DIR   the shared aiter cache (../shared/fixtures/triton-aiter-3.6;
                  skips, 77, where absent): cache-only, so every page says no
                  launch was recorded; constexpr values vs manifest.json.
  --corpus DIR    the committed corpus (tests/corpus/triton): hook sidecars
                  (their /opt/kwalk/ paths rewritten to the source tree in a
                  copy) indexed with the cache; launch line, call chain, grid
                  and arguments vs the `# KWT:` markers and the call parsed
                  with Python's ast; constexprs vs manifest.jsonl.

Both: one page per cache folder, each `Language: Triton`; the File: line and
the quoted function (def to the end of its body) vs ast; options vs each
folder's NAME.json; resources vs llvm-readelf --notes; the LDS sentence vs
NAME.json's shared; each listed instruction's Python line vs llvm-dwarfdump
--debug-line (and its quoted text vs the source)."""
import argparse
import ast
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_triton_cache import META, debug_line, jit_defs, notes  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import kwcheck  # noqa: E402
from kwrun import run  # noqa: E402

CK = kwcheck.Checker("triton.render")
eq = CK.eq
LANES = [0]  # memory op rows whose lane stride the layout gives, compared



def cache_folders(cache):
    """{hash: (folder, NAME.json)} of every cache folder."""
    out = {}
    for d in sorted(glob.glob(os.path.join(cache, "*"))):
        grp = glob.glob(os.path.join(d, "__grp__*.json"))
        if not grp:
            continue
        name = os.path.basename(grp[0])[len("__grp__"):-len(".json")]
        meta = json.load(open(os.path.join(d, name + ".json")))
        out[meta["hash"]] = (d, meta)
    return out


def section(page, title):
    m = re.search(r"^## " + re.escape(title) + r".*?$(.*?)(?=^## |\Z)", page, re.M | re.S)
    return m.group(1) if m else ""


def subsection(text, title):
    m = re.search(r"^### " + re.escape(title) + r".*?$(.*?)(?=^###? |\Z)", text, re.M | re.S)
    return m.group(1) if m else ""


def table(text):
    """[[cells]] of the first Markdown table in text (header and rule dropped)."""
    rows = []
    for l in text.splitlines():
        if l.startswith("|"):
            rows.append(l)
        elif rows:
            break
    out = []
    for l in rows[2:]:
        out.append([c.strip() for c in re.split(r"(?<!\\)\|", l.strip())[1:-1]])
    return out


def code(cell):
    m = re.fullmatch(r"`(.*)`", cell)
    return m.group(1).replace("\\|", "|") if m else None


def fences(text, lang):
    return re.findall(r"^```" + lang + r"\n(.*?)^```$", text, re.M | re.S)


def def_node(path, name):
    tree = ast.parse(open(path).read(), path)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node
    return None


MEMOPS = ("tt.load", "tt.store", "tt.atomic_rmw", "tt.atomic_cas", "amdg.buffer_load",
          "amdg.buffer_store", "amdg.buffer_atomic_rmw", "amdg.buffer_load_to_local",
          "ttg.async_copy_global_to_local", "ttg.local_alloc", "ttg.local_load",
          "ttg.local_store", "ttg.convert_layout", "tt.dot")


def elem_size(e):
    """Bytes of an MLIR element type; 0 when not one of these."""
    if e in ("f16", "bf16", "i16"):
        return 2
    if e in ("f32", "i32"):
        return 4
    if e in ("f64", "i64"):
        return 8
    return 1 if e == "i8" or e.startswith("f8") else 0


def ttgir_facts(path, unmap):
    """(layout rows, memory op rows) of a NAME.ttgir, read here with regular
    expressions: [(name, kind, params or "-")], [(op, %value or "-",
    file:line, tensor text, layout or "-", per-thread text)]."""
    text = open(path).read()
    layouts = {}
    rows_l = []
    for m in re.finditer(r"^(#\w+) = #ttg\.(\w+)(?:<\{(.*)\}>)?$", text, re.M):
        if m.group(1).startswith("#loc"):
            continue
        rows_l.append((m.group(1), m.group(2), m.group(3) or "-"))
        layouts[m.group(1)] = (m.group(2), m.group(3) or "")
    locs = {}
    for m in re.finditer(r"^#(loc\d*) = loc\((.*)\)$", text, re.M):
        locs[m.group(1)] = m.group(2)

    def where(lid):
        for _ in range(64):
            body = locs.get(lid)
            if body is None:
                return "-"
            f = re.match(r'^"([^"]*)":(\d+):\d+$', body)
            if f:
                return "%s:%s" % (unmap(f.group(1)), f.group(2))
            r = re.match(r'^(?:callsite\(#|"[^"]*"\(#)(loc\d*)', body)
            if not r:
                return "-"
            lid = r.group(1)
        return "-"

    def ints(params, key):
        m = re.search(r"(?:^|, )%s = \[([\d, ]+)\]" % key, params)
        return [int(x) for x in m.group(1).split(", ")] if m else None

    rows_m = []
    ops = "|".join(re.escape(o) for o in MEMOPS)
    for m in re.finditer(r"^\s+(?:%%([\w$.-]+?)(?::\d+)? = )?(%s) (.*)$" % ops, text, re.M):
        rest = m.group(3)
        lid = re.findall(r" loc\(#(loc\d*)\)$", rest)
        rest = rest.rsplit(" loc(", 1)[0]
        ty = re.split(r"(?:^| ): ", rest)[-1].split(" -> ")[-1]
        t = re.match(r"^(?:tensor|!ttg\.memdesc)<((?:\d+x)*)(?:!tt\.ptr<(\w+)>|(\w+))"
                     r"(?:, (.*?))?>$", ty)
        p = re.match(r"^!tt\.ptr<(\w+)>$", ty)
        elem = (t.group(2) or t.group(3)) if t else p.group(1) if p else ""
        if t:
            shape = [int(x) for x in t.group(1).split("x") if x]
            enc = t.group(4).split(", #")[0] if t.group(4) and "<" not in t.group(4) \
                else t.group(4)
            tensor = "".join("%d × " % d for d in shape) + "`%s`" % (t.group(2) or t.group(3))
        elif p:
            shape, enc, tensor = [], None, "`%s` (scalar)" % p.group(1)
        else:
            continue
        per = "-"
        kind, params = layouts.get(enc, (None, ""))
        spt, tpw, wpc, order = (ints(params, k) for k in
                                ("sizePerThread", "threadsPerWarp", "warpsPerCTA", "order"))
        if kind == "blocked" and spt and len(spt) == len(shape) and tpw and wpc and order:
            tile = [a * b * c for a, b, c in zip(spt, tpw, wpc)]
            if all(s >= t and s % t == 0 for s, t in zip(shape, tile)):
                e = 1
                for s, t, a in zip(shape, tile, spt):
                    e *= a * (s // t)
                per = "%d elements, %d consecutive along dim %d at a time" % (
                    e, spt[order[0]], order[0])
        # where the wave's lanes fall: sizePerThread[order[0]] elements apart
        # along order[0] for threadsPerWarp[order[0]] lanes, when the wave's
        # tile (sizePerThread x threadsPerWarp) fits the tensor
        if kind == "blocked" and spt and len(spt) == len(shape) and tpw and \
                len(tpw) == len(shape) and order and \
                all(s >= a * b for s, a, b in zip(shape, spt, tpw)):
            o0 = order[0]
            eb = elem_size(elem)
            lanes = "lane stride %d element%s%s along dim %d for %d lanes; a wave covers %s" % (
                spt[o0], "" if spt[o0] == 1 else "s", " (%d byte%s)" % (spt[o0] * eb, "" if spt[o0] * eb == 1 else "s") if eb else "",
                o0, tpw[o0], " × ".join(str(a * b) for a, b in zip(spt, tpw)) + " elements")
            per = lanes if per == "-" else per + "; " + lanes
        rows_m.append(("`%s`" % m.group(2), "`%%%s`" % m.group(1) if m.group(1) else "-",
                       "`%s`" % where(lid[0]) if lid else "-", tensor,
                       "`%s`" % enc if enc else "-", per))
    return rows_l, rows_m


def check_ttgir(w, dev, folder, name, unmap):
    """Section 2's layouts and memory ops vs the folder's NAME.ttgir."""
    path = os.path.join(folder, name + ".ttgir")
    if not os.path.isfile(path):
        return
    want_l, want_m = ttgir_facts(path, unmap)
    got_l = [(code(r[0]), code(r[1]), code(r[2]) or r[2])
             for r in table(dev.split("as Triton wrote them:")[1])] \
        if "as Triton wrote them:" in dev else None
    eq(got_l, want_l, w + ": TTGIR layouts")
    sub = subsection(dev, "Loads, stores, LDS and dot ops (TTGIR)")
    got_m = [tuple(r) for r in table(sub)] if sub else None
    eq(got_m, want_m, w + ": TTGIR memory ops")
    eq(len(want_m) > 0, True, w + ": memory ops > 0")
    LANES[0] += sum("lane stride" in r[5] for r in want_m)


def check_page(w, page, meta, folder, src_lines, llvm, archs, unmap):
    """What every Triton page must show, whatever its producer."""
    name = meta["name"]
    eq("| Language: Triton |" in page, True, w + ": language")
    m = re.search(r"^> Source: .*\| File: `(.*):(\d+)`$", page, re.M)
    eq(bool(m), True, w + ": File: in the header")
    if not m:
        return
    file, line = m.group(1), int(m.group(2))
    defs = jit_defs(file)
    eq(line, defs.get(name, (None,))[0], w + ": File: is the def line (ast)")
    node = def_node(file, name)
    # section 2: the function quoted, def to the end of its body
    dev = section(page, "2. Device Kernel")
    check_ttgir(w, dev, folder, name, unmap)
    q = fences(dev, "python")
    eq(len(q) >= 1, True, w + ": the function is quoted")
    if q and node:
        head = q[0].splitlines()[0]
        eq(head, "# %s:%d-%d" % (file, line, node.end_lineno), w + ": quote header")
        text = open(file).read().splitlines()
        for l in q[0].splitlines()[1:]:
            mm = re.match(r"^\s*(\d+) \| (.*)$", l)
            if mm and text[int(mm.group(1)) - 1] != mm.group(2):
                eq(mm.group(2), text[int(mm.group(1)) - 1],
                      w + ": quoted line %s vs the source" % mm.group(1))
    # section 1: the options as NAME.json writes them
    host = section(page, "1. Host Side")
    want_opts = [(k, "true" if v is True else "false" if v is False else str(v) if v != "" else "")
                 for k, v in meta.items()
                 if k not in META and isinstance(v, (int, str, bool, float))]
    got_opts = [(code(r[0]), code(r[1]) if r[1] != "(empty)" else "")
                for r in table(subsection(host, "Compile options"))]
    eq(got_opts, want_opts, w + ": options vs NAME.json")
    # section 5: resources vs llvm-readelf --notes; LDS vs NAME.json
    isa = section(page, "5. AMD ISA")
    arch = meta["arch"]
    kv, _ = notes(llvm, os.path.join(folder, name + ".hsaco"))
    res = {r[0]: code(r[1]) for r in table(subsection(isa, "Resources and occupancy"))}
    for label, key in [("VGPRs", "vgpr_count"), ("SGPRs", "sgpr_count"),
                       ("AGPRs", "agpr_count"), ("LDS (bytes, static)", "group_segment_fixed_size"),
                       ("Kernel arguments (bytes)", "kernarg_segment_size"),
                       ("Wavefront size", "wavefront_size"),
                       ("Max flat workgroup size", "max_flat_workgroup_size")]:
        if key in kv:
            eq(res.get(label), kv[key], w + ": " + label)
    eq(re.search(r"\(`shared` in `NAME.json`\): (\d+) bytes per program", isa).group(1)
          if re.search(r"\(`shared` in `NAME.json`\): (\d+) bytes", isa) else None, str(meta["shared"]), w + ": LDS Triton allocated")
    if arch not in archs:
        print("note: %s: %s not disassembled by this LLVM: listing not checked" % (w, arch))
        return 0
    # the listing: each instruction's Python line vs llvm-dwarfdump --debug-line
    listing = fences(isa, "asm")
    eq(len(listing), 1, w + ": one listing")
    if not listing:
        return 0
    rows = debug_line(llvm, os.path.join(folder, name + ".hsaco"))
    base = min(r[0] for r in rows)
    j, want, cur, n, bad = 0, None, None, 0, []
    for l in listing[0].splitlines():
        mm = re.match(r"^; (.*):(\d+)(?:  (.*))?$", l)
        if mm:
            cur = (mm.group(1), int(mm.group(2)))
            f = src_lines(mm.group(1))
            if f is not None and (mm.group(3) or "") != f[cur[1] - 1].strip():
                bad.append(("text", l))
            continue
        mm = re.match(r"^([0-9a-f]+): ", l)
        if not mm:
            continue
        off = int(mm.group(1), 16)
        while j < len(rows) and rows[j][0] - base <= off:
            if not rows[j][4] and rows[j][2] != 0:
                want = (unmap(rows[j][1]), rows[j][2])
            j += 1
        n += 1
        if cur != want:
            bad.append((off, cur, want))
    eq(bad[:3], [], w + ": listed instructions whose Python line differs from .debug_line")
    # the DPP controls of "Notable instructions present", whole, vs llvm-objdump -d
    dis = run([os.path.join(llvm, "llvm-objdump"), "-d", "--no-show-raw-insn",
               "--mcpu=" + arch, os.path.join(folder, name + ".hsaco")], must=True).stdout
    want_dpp = {}
    for mm in re.finditer(r"[ ,](quad_perm:\[[0-9,]+\]|row_[a-z_]+:\d+|row_(?:half_)?mirror"
                          r"|wave_[a-z]+:\d+)", dis):
        want_dpp[mm.group(1)] = want_dpp.get(mm.group(1), 0) + 1
    got_dpp = {}
    for r in table(subsection(isa, "Notable instructions present")):
        if code(r[0]).startswith("DPP "):
            got_dpp[code(r[0])[4:]] = int(r[1].split()[-1])
    eq({k: v for k, v in got_dpp.items() if want_dpp.get(k) != v}, {},
          w + ": DPP controls listed are llvm-objdump's, whole and counted")
    eq(bool(got_dpp) or not want_dpp, True,
          w + ": some DPP control is listed where objdump shows one")
    return n


def check_fixture(a):
    fx = a.fixture
    if not os.path.isfile(os.path.join(fx, "manifest.json")):
        print("SKIP: the shared Triton fixture %s is absent (../shared not checked out)" % fx)
        return 77
    src = os.path.join(fx, "src")
    manifest = json.load(open(os.path.join(fx, "manifest.json")))["compiled"]
    folders = cache_folders(os.path.join(fx, "cache"))
    with tempfile.TemporaryDirectory() as tmp:
        db, out = os.path.join(tmp, "t.yaml"), os.path.join(tmp, "pages")
        run([a.kwalk, "index", "--triton-cache", os.path.join(fx, "cache"),
             "--map-prefix", "/opt/aiter=" + src, "-o", db], must=True).stdout
        run([a.kwalk, "render", "--all", "--db", db, "-o", out], must=True).stdout
        pages = {p: open(os.path.join(out, p)).read()
                 for p in os.listdir(out) if p.endswith(".md") and p != "index.md"}
    eq(len(pages), len(folders), "pages")
    eq(len(pages), len(manifest), "pages vs manifest rows")
    used, listed = [], 0
    cache = {}

    def src_lines(path):
        if path not in cache:
            cache[path] = open(path).read().splitlines() if os.path.isfile(path) else None
        return cache[path]

    def unmap(p):
        return src + p[len("/opt/aiter"):] if p.startswith("/opt/aiter/") else p
    for p, page in sorted(pages.items()):
        sym = re.search(r"^\| Symbol \| `(.*?)@([0-9a-f]{64})` \|$", page, re.M)
        eq(bool(sym) and sym.group(2) in folders, True, p + ": symbol row")
        if not sym or sym.group(2) not in folders:
            continue
        folder, meta = folders[sym.group(2)]
        w = "%s (%s)" % (p, os.path.basename(folder))
        eq("No launch recorded (cache-only; run with the "
              "hook: docs/triton.md)." in section(page, "1. Host Side"), True, w + ": no launch (cache-only)")
        listed += check_page(w, page, meta, folder, src_lines, a.llvm_bin,
                             a.archs.split(","), unmap) or 0
        # constexprs: the known values select exactly one manifest row
        rows = table(subsection(section(page, "1. Host Side"), "Constexpr values"))
        got = {code(r[0]): code(r[1]) for r in rows}
        file = re.search(r"^> Source: .*\| File: `(.*):\d+`$", page, re.M).group(1)
        names = [x for x in jit_defs(file)[meta["name"]][1]
                 if x in jit_defs(file)[meta["name"]][2]]
        eq(list(got), names, w + ": constexpr names (ast)")
        match = [i for i, r in enumerate(manifest)
                 if r["kernel"] == meta["name"] and r["arch"] == meta["arch"]
                 and all(repr(r["constexprs"].get(n)) == v for n, v in got.items() if v)]
        eq(len(match), 1, w + ": manifest rows matching its constexpr values")
        used += match
        for r in rows:
            if code(r[1]) is None:
                eq(r[2], "not recoverable from the cache; run with the hook",
                      w + ": " + r[0] + " not known, why")
    eq(sorted(used), list(range(len(manifest))), "manifest rows each matched once")
    eq(listed > 0, True, "instructions checked > 0")
    print("fixture: %d pages, %d listed instructions checked" % (len(pages), listed))
    return None


def markers(corpus):
    """{(kind, id): (file, line)} of the `# KWT:KIND id` comments."""
    out = {}
    for py in glob.glob(os.path.join(corpus, "*.py")):
        for i, l in enumerate(open(py).read().splitlines(), 1):
            m = re.search(r"# KWT:(JIT|LAUNCH|CALL|OP) (\w+)$", l)
            if m:
                out[(m.group(1), m.group(2))] = (py, i)
    return out


def call_at(path, line):
    text = open(path).read()
    for node in ast.walk(ast.parse(text, path)):
        if isinstance(node, ast.Call) and node.lineno == line and \
                isinstance(node.func, ast.Subscript):
            return text, node
    return text, None


def enclosing_def(path, line):
    """The innermost function (ast) whose body holds line, qualified by its
    enclosing functions as Python's co_qualname is (`f.<locals>.g`)."""
    best = None

    def walk(node, prefix):
        nonlocal best
        for n in ast.iter_child_nodes(node):
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                q = prefix + n.name
                if n.lineno <= line <= n.end_lineno:
                    best = q
                walk(n, q + ".<locals>.")
            elif isinstance(n, ast.ClassDef):
                walk(n, prefix + n.name + ".")
            else:
                walk(n, prefix)
    walk(ast.parse(open(path).read(), path), "")
    return best


def check_map(tsv, md, mk, folders):
    """kwalk map's Triton rows vs the KWT markers and ast: the launching
    function at its launch, the first recorded caller at KWT:CALL, the def at
    KWT:JIT, no C++ entry; instantiations = the cache folders of the name."""
    rows = [r.split("\t") for r in tsv.splitlines() if r]
    eq(sorted({len(r) for r in rows}), [11], "map: 11 fields a row")
    names = {}
    for _, meta in folders.values():
        names[meta["name"]] = names.get(meta["name"], 0) + 1
    for (kind, kid), (lf, ll) in sorted(mk.items()):
        if kind != "LAUNCH":
            continue
        jf, jl = mk[("JIT", kid)]
        cf, cl = mk[("CALL", kid)]
        mine = [r for r in rows if r[7] == "%s:%d" % (lf, ll)]
        w = "map row of KWT:LAUNCH %s" % kid
        if eq(len(mine), 1, w + ": one") is False or len(mine) != 1:
            continue
        r = mine[0]
        eq(r[0] in open(jf).read().splitlines()[jl - 1], True, w + ": kernel named at KWT:JIT")
        eq(int(r[1]), names.get(r[0]), w + ": instantiations = cache folders of the name")
        eq(r[2], "%s:%d" % (lf, ll), w + ": Python entry at the launch")
        eq(r[3], enclosing_def(lf, ll), w + ": the launching function (ast)")
        eq(r[4:7], ["triton", "-", "-"], w + ": no C++ entry")
        eq(r[8], "%s:%d" % (jf, jl), w + ": device code at KWT:JIT")
        first = r[10].split("; ")[0]
        eq(first, "%s %s:%d" % (enclosing_def(cf, cl), cf, cl),
              w + ": first caller at KWT:CALL (ast)")
        line = [l for l in md.splitlines() if l.startswith("| `%s` |" % r[0])]
        eq(bool(line) and
              "| (Triton: launched from Python) |" in line[0], True, w + ": Markdown row says no C++ entry")


def check_corpus(a):
    corpus = os.path.abspath(a.corpus)
    root = os.path.dirname(os.path.dirname(os.path.dirname(corpus)))
    mk = markers(corpus)
    manifest = [json.loads(l) for l in open(os.path.join(corpus, "manifest.jsonl")) if l.strip()]
    folders = cache_folders(os.path.join(corpus, "cache"))
    cache = {}

    def src_lines(path):
        if path not in cache:
            cache[path] = open(path).read().splitlines() if os.path.isfile(path) else None
        return cache[path]

    def unmap(p):
        return root + "/" + p[len("/opt/kwalk/"):] if p.startswith("/opt/kwalk/") else p
    with tempfile.TemporaryDirectory() as tmp:
        sc = os.path.join(tmp, "sidecars")
        os.mkdir(sc)
        for f in glob.glob(os.path.join(corpus, "sidecars", "*.kwalk.yaml")):
            text = open(f).read().replace("/opt/kwalk/", root + "/")
            open(os.path.join(sc, os.path.basename(f)), "w").write(text)
        db, out = os.path.join(tmp, "t.yaml"), os.path.join(tmp, "pages")
        run([a.kwalk, "index", sc, "--triton-cache", os.path.join(corpus, "cache"),
             "--map-prefix", "/opt/kwalk=" + root, "-o", db], must=True).stdout
        run([a.kwalk, "render", "--all", "--db", db, "-o", out], must=True).stdout
        pages = {p: open(os.path.join(out, p)).read()
                 for p in os.listdir(out) if p.endswith(".md") and p != "index.md"}
        index = open(os.path.join(out, "index.md")).read()
        tsv = run([a.kwalk, "map", "--db", db, "--format", "tsv"], must=True).stdout
        md = run([a.kwalk, "map", "--db", db], must=True).stdout
        # the hook sidecars as committed (/opt/kwalk paths), mapped by
        # --map-prefix alone: the same pages as from the rewritten copies
        db2, out2 = os.path.join(tmp, "m.yaml"), os.path.join(tmp, "pages-mapped")
        run([a.kwalk, "index", os.path.join(corpus, "sidecars"), "--triton-cache",
             os.path.join(corpus, "cache"), "--map-prefix", "/opt/kwalk=" + root, "-o", db2], must=True).stdout
        run([a.kwalk, "render", "--all", "--db", db2, "-o", out2], must=True).stdout
        mapped = {p: open(os.path.join(out2, p)).read()
                  for p in os.listdir(out2) if p.endswith(".md") and p != "index.md"}
        def body(text):  # the footer names the index file
            return re.sub(r"^Generated by kwalk from .*$", "", text or "", flags=re.M)
        eq(sorted(p for p in pages if body(pages[p]) != body(mapped.get(p))), [],
              "pages from --map-prefix = pages from rewritten sidecars")
        eq(sorted(p for p in mapped if "/opt/kwalk/" in mapped[p]), [],
              "no /opt/kwalk path left in the mapped pages")
    eq(len(pages), len(folders), "pages")
    check_map(tsv, md, mk, folders)
    listed, used = 0, []
    for p, page in sorted(pages.items()):
        sym = re.search(r"^\| Symbol \| `(.*?)@([0-9a-f]{64})` \|$", page, re.M)
        eq(bool(sym) and sym.group(2) in folders, True, p + ": symbol row")
        if not sym or sym.group(2) not in folders:
            continue
        folder, meta = folders[sym.group(2)]
        name = meta["name"]
        w = "%s (%s)" % (p, os.path.basename(folder))
        listed += check_page(w, page, meta, folder, src_lines, a.llvm_bin,
                             a.archs.split(","), unmap) or 0
        ids = [i for (k, i), (f, l) in mk.items() if k == "JIT" and name in src_lines(f)[l - 1]]
        eq(len(ids), 1, w + ": one KWT:JIT marker")
        if len(ids) != 1:
            continue
        kid = ids[0]
        jf, jl = mk[("JIT", kid)]
        eq("| File: `%s:%d`" % (jf, jl) in page, True, w + ": File: vs KWT:JIT")
        host = section(page, "1. Host Side")
        # the launch: its line vs KWT:LAUNCH, the chain through KWT:CALL and KWT:OP
        lf, ll = mk[("LAUNCH", kid)]
        eq("### Launch site 1 of 1: %s:%d" % (lf, ll) in host, True, w + ": launch site heading")
        chain = re.findall(r"^\d+\. `(.*?)` (?:launches `(.*?)` )?at `(.*?):(\d+)`$", host, re.M)
        locs = [(f, int(l)) for _, _, f, l in chain]
        eq(locs[-1:], [(lf, ll)], w + ": call chain ends at the launch")
        eq(mk[("CALL", kid)] in locs, True, w + ": call chain through KWT:CALL")
        eq(mk[("OP", kid)] in locs, True, w + ": call chain through KWT:OP")
        for fn, _, f, l in [(c[0], c[1], c[2], int(c[3])) for c in chain]:  # each frame's function encloses its line (ast)
            tree = ast.parse(open(f).read(), f)
            encl = [n.name for n in ast.walk(tree)
                    if isinstance(n, ast.FunctionDef) and n.lineno <= l <= n.end_lineno]
            if fn not in ("<module>",) and "<lambda>" not in fn:
                eq(fn.split(".")[-1] in encl, True, w + ": frame %s:%s in %s" % (f, l, fn))
        text, call = call_at(lf, ll)
        eq(call is not None, True, w + ": a kernel[grid](...) call at KWT:LAUNCH")
        if call:
            grid = ast.get_source_segment(text, call.func.slice)
            eq("**Grid.** As written: `%s`" % grid in host, True, w + ": grid as written")
            q = fences(host, "python")
            eq(q[0].splitlines()[0] if q else None, "# %s:%d" % (lf, ll) + ("-%d" % call.end_lineno if call.end_lineno > ll else ""),
                  w + ": launch statement quoted")
            params = [x.arg for x in def_node(jf, name).args.args]
            want = [(params[i], ast.get_source_segment(text, x)) for i, x in enumerate(call.args)]
            want += [(k.arg, ast.get_source_segment(text, k.value)) if k.arg else
                     ("-", "**" + ast.get_source_segment(text, k.value)) for k in call.keywords]
            got = [(code(r[0]) or r[0], code(r[2]))
                   for r in table(host.split("Arguments as written")[1])]
            eq(got, want, w + ": arguments as written (ast)")
            # where each constexpr came from: "the launch passed it" only for a
            # name the call binds (ast) or through a **mapping it spreads; the
            # corpus's autotuned kernel gets its values from triton.Config
            named = {p for p, _ in want if p != "-"}
            spread = [e for p, e in want if p == "-"]
            for r in table(subsection(host, "Constexpr values")):
                n, frm = code(r[0]), r[2]
                if n in named:
                    eq(frm.startswith("the launch passed it: `"), True,
                          w + ": %s: the launch passed it (ast)" % n)
                elif spread:
                    eq(frm.startswith("the launch passed it through `%s`" % spread[0]), True,
                          w + ": %s: passed through %s" % (n, spread[0]))
                else:
                    eq("the launch passed it" in frm, False,
                          w + ": %s: not passed by the launch (ast)" % n)
        # constexprs vs the generator's manifest
        got = {code(r[0]): code(r[1])
               for r in table(subsection(host, "Constexpr values"))}
        match = [i for i, r in enumerate(manifest)
                 if r["kernel"] == name and r["arch"] == meta["arch"]
                 and {k: repr(v) for k, v in r["constexprs"].items()} == got
                 and all(str(meta.get(o)) == str(v) for o, v in r["options"].items())]
        eq(len(match) >= 1, True, w + ": manifest rows with its constexprs and options")
        # index.md: the page's row tells it apart by its constexprs and num_warps
        for i in match[:1]:
            want = ", ".join("%s=%r" % kv for kv in manifest[i]["constexprs"].items())
            row = re.search(r"^\| \[`%s`\]\(%s\) `(.*?)` \|" % (re.escape(name), re.escape(p)),
                            index, re.M)
            eq(row.group(1) if row else None, want + ", num_warps=%d" % meta["num_warps"],
                  w + ": index.md row")
        used += match
    eq(sorted(set(used)), list(range(len(manifest))), "manifest rows each matched")
    eq(listed > 0, True, "instructions checked > 0")
    print("corpus: %d pages, %d listed instructions checked" % (len(pages), listed))
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kwalk", required=True)
    ap.add_argument("--fixture")
    ap.add_argument("--corpus")
    ap.add_argument("--llvm-bin", required=True)
    ap.add_argument("--archs", required=True, help="the archs this LLVM disassembles")
    a = ap.parse_args()
    rc = check_fixture(a) if a.fixture else check_corpus(a)
    if rc is not None:
        return rc
    # the blocked layouts' lane strides (sizePerThread x threadsPerWarp), where
    # the IR facts' affine analysis says "lane stride unknown"
    eq(LANES[0] > 0, True, "memory ops with a lane stride from their layout compared")
    CK.finish()


if __name__ == "__main__":
    sys.exit(main())
