#!/usr/bin/env python3
"""test_render_corpus.py: `kwalk render --all` and `kwalk map` on the corpus
sidecars (the kw_corpus build), checked against ground truth kwalk did not
produce (see kwrender.py):

  - every walkthrough has the title, Overview and the six sections in order;
  - every quoted source line ("N | text" in a "// file:a-b" block) is the
    file's text at line N;
  - the kernel's File: line is its KW:KERNEL marker; each launch site is a
    KW:LAUNCH marker of a launch expected.json gives this instantiation;
  - grid/block values and shared-memory bytes equal expected.json's;
  - each dispatch path starts at the KW:ENTRY marker of an expected entry and
    lists exactly the expected enclosing guards (marker line, polarity or
    case), in order, and passes the expected KW:CALL lines;
  - the entry points table holds the expected entries, and the Python ops
    bound to them at their def line found by Python's ast in ops/*.py;
  - the template parameter table equals expected.json's parameters, argument
    values and defaulted indices, and every "used on" line holds the name;
  - every call-tree line holds the callee's name at the call and at the
    definition; inline asm sits at its KW:ASM marker with its text;
  - ISA facts: when the sidecar has resources for an arch, the table shows
    them; when it has none, the page says "ISA not captured"; without IR facts
    it says "no IR facts";
  - `kwalk map --format tsv`: the (entry, launch) rows are exactly expected.json's
    entry -> launch reachability with the number of instantiations, plus the
    launches no entry reaches; the Python column is the ast-found def line,
    its public callers are those kwpycallers.py finds with ast, and the
    functor column is filled exactly for expected.json's trampoline kernels;
    `kwalk map --json` (Python's json, docs/json.md) passes the same checks,
    each row's keys read as the TSV's fields;
  - --shape evaluates the grid and the dispatch conditions as the source says;
  - a source file changed since the build, or removed, is reported, not quoted;
  - the hardware table is read once (the code-object library's): an
    amdgpu-occupancy.txt under KWALK_ANNOTATIONS changes no page, and a
    block's waves are of 64 lanes (every GFX9 processor is wave64).
"""
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import kwpycallers  # noqa: E402
import kwrender as kr  # noqa: E402
from kwcheck import Checker  # noqa: E402
from kwmd import md_plain  # noqa: E402

HEADINGS = ["## Overview", "## 1. Host Side: Python → C++ → Kernel Launch",
            "## 2. Device Kernel: Step-by-Step", "## 3. Data Flow Diagram",
            "## 4. Memory Access Analysis", "## 5. AMD ISA / Hardware Details",
            "## 6. Source File Index"]
LOC = re.compile(r"`([^`\s]+):(\d+)`")


def expected_instances(exp):
    """(template name, args tuple) -> {kernel id, inst, launches: [(launch id, inst)]}."""
    out = {}
    for kid, k in exp["kernels"].items():
        for inst in k["instantiations"]:
            out[(k["name"], tuple(inst["args"]))] = {"kid": kid, "inst": inst, "launches": []}
    for lid, l in exp["launches"].items():
        name = exp["kernels"][l["kernel"]]["name"]
        for inst in l["instantiations"]:
            key = (name, tuple(inst["args"]))
            if key in out:
                out[key]["launches"].append((lid, dict(inst, library=l.get("library"),
                                                       site=l.get("site"))))
    # precompiled ASM kernels: one page per kernel name, from its launches
    for lid, l in (exp.get("asm_launches") or {}).items():
        for kernel, co in asm_targets(l):
            la = dict(l, asm_kernel=kernel, code_object=co)
            key = (kernel, ())
            out.setdefault(key, {"kid": None, "inst": None, "asm": la, "launches": []})
            out[key]["launches"].append((lid, dict(la, asm=True)))
    return out


def asm_targets(l):
    """[(kernel, code object)] an expected ASM launch runs: its asm_kernel, or
    for a loader built from a config table (`choices`) every row of the
    table's header, read from the row-macro lines."""
    ch = l.get("choices")
    if not ch:
        return [(l["asm_kernel"], l["code_object"])]
    out = []
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "corpus", ch["header"])
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"\s*%s\((.*)\),?\s*$" % re.escape(ch["row_macro"]), line)
            if m:  # ROW(dtype, relu, arch, kernel, code_object)
                a = [x.strip().strip('"') for x in m.group(1).split(",")]
                out.append((a[3], "${KW_ASM_DIR}" + a[4]))
    return out


def quoted_blocks(page):
    """[(file, [(n, text)])] of the "// file:a-b" fenced blocks."""
    blocks = []
    for m in re.finditer(r"```+\w*\n// (\S+?):(\d+)(?:-(\d+))?\n(.*?)\n```", page, re.S):
        rows = []
        for line in m.group(4).split("\n"):
            mm = re.match(r"\s*(\d+) \| (.*)$", line)
            if mm:
                rows.append((int(mm.group(1)), mm.group(2)))
        blocks.append((m.group(1), int(m.group(2)), int(m.group(3) or m.group(2)), rows))
    return blocks


def section(page, start, end=None):
    i = page.find(start)
    if i < 0:
        return ""
    j = page.find(end, i + len(start)) if end else -1
    return page[i:j] if j >= 0 else page[i:]


def check_page(c, name, page, args, marks, exp, ops, inst_info, index_kernels):
    tag = name
    # headings in order
    pos = [page.find(h) for h in HEADINGS]
    c.check(page.startswith("# Kernel Walkthrough: "), f"{tag}: title")
    c.check(all(p >= 0 for p in pos) and pos == sorted(pos), f"{tag}: sections missing or out of order {pos}")
    # quoted lines equal the files
    for f, a, b, rows in quoted_blocks(page):
        lines = kr.file_lines(f)
        c.check(lines is not None, f"{tag}: quoted file {f} does not exist")
        c.check([n for n, _ in rows] == list(range(a, b + 1)), f"{tag}: block {f}:{a}-{b} numbering")
        for n, text in rows:
            if lines is not None:
                c.check(n <= len(lines) and lines[n - 1] == text,
                        f"{tag}: {f}:{n} quoted as {text!r}, the file has {lines[n - 1] if n <= len(lines) else None!r}")
    if inst_info is None:
        c.check(False, f"{tag}: no expected.json instantiation for this kernel")
        return
    kid, inst = inst_info["kid"], inst_info["inst"]
    if kid is None:  # a precompiled ASM kernel
        co = inst_info["asm"]["code_object"].split("}")[-1]
        head = page.split("\n", 3)[2]
        c.check("| Language: ASM | File: `" in head and f"{co}` (code object)" in head,
                f"{tag}: ASM title line {head!r}")
        # a launch through a config table: the rows naming this kernel, by the
        # header line read here and the key the row's arch and kernel make
        for lid, la in inst_info["launches"]:
            ch = la.get("choices")
            if not ch:
                continue
            hdr = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "corpus", ch["header"])
            for no, line in enumerate(open(hdr, encoding="utf-8"), 1):
                m = re.match(r"\s*%s\((.*)\),?\s*$" % re.escape(ch["row_macro"]), line)
                a = [x.strip().strip('"') for x in m.group(1).split(",")] if m else None
                if a and a[3] == la["asm_kernel"]:
                    want = f"{os.path.basename(ch['header'])}:{no}` when `{ch['lookup']} == \"{a[2]}_{a[3]}\"`"
                    c.check("**Selected from a table.**" in page and want in page,
                            f"{tag}: launch {lid}: no table row {want!r} on the page")
        kexp = {}
    else:
        kexp = exp["kernels"][kid]
        # the kernel's location
        _, kf, kl = marks[kid]
        c.check(f"| File: `{kf}:{kl}`" in page.split("\n", 3)[2], f"{tag}: File: is not the KW:KERNEL marker {kf}:{kl}")
        # a trampoline's functor
        fexp = inst.get("functor")
        if fexp:
            _, ff, fl = marks[fexp["at"]]
            c.check(f"| Runs the functor | `{fexp['type']}`, `operator()` at `{ff}:{fl}` |" in page,
                    f"{tag}: functor {fexp['type']} at {ff}:{fl}")
    # launch sites
    host = section(page, HEADINGS[1], HEADINGS[2])
    sites = re.findall(r"^### Launch site \d+ of \d+: (\S+):(\d+)$", host, re.M)
    want_sites = {(marks[lid][1], marks[lid][2]) for lid, _ in inst_info["launches"]}
    c.check({(f, int(l)) for f, l in sites} == want_sites, f"{tag}: launch sites {sites} != {want_sites}")
    for lid, linst in inst_info["launches"]:
        _, lf, ll = marks[lid]
        part = section(host, f"### Launch site", None)
        m = re.search(r"^### Launch site \d+ of \d+: " + re.escape(f"{lf}:{ll}") + r"$(.*?)(?=^### Launch site|\Z)",
                      host, re.S | re.M)
        if not c.check(m is not None, f"{tag}: no section for launch {lid}"):
            continue
        part = m.group(1)
        check_config(c, f"{tag} {lid}", part, linst)
        check_paths(c, f"{tag} {lid}", part, linst, marks, exp)
        c.check(f"at `{lf}:{ll}`:" in part, f"{tag} {lid}: launch statement location")
        if linst.get("site"):
            _, sf, sl = marks[linst["site"]]
            c.check(f"inside the kernel library `{linst['library']}`, at `{sf}:{sl}`" in part,
                    f"{tag} {lid}: library launch site {sf}:{sl}")
    # entries table: expected entries reaching this instantiation, and their Python ops
    want_entries = set()
    for _, linst in inst_info["launches"]:
        for p in linst.get("paths", []):
            want_entries.update(p["entries"])
    table = section(host, "### Entry points", "### Launch site")
    got_entries = set()
    for row in table.split("\n"):
        if not row.startswith("| ") or row.startswith("| Python op") or row.startswith("|---"):
            continue
        cells = row.split(" | ")
        locs = LOC.findall(cells[-1])
        for f, l in locs:
            ids = [i for i, (k, mf, ml) in marks.items() if k == "ENTRY" and mf == f and ml == int(l)]
            c.check(len(ids) == 1, f"{tag}: entry location {f}:{l} is not a KW:ENTRY marker")
            got_entries.update(ids)
        m = re.match(r"\| `(\w+)` `(\S+):(\d+)`", row)
        if m:
            op = ops.get(m.group(1))
            c.check(op is not None and (op[0], op[1]) == (m.group(2), int(m.group(3))),
                    f"{tag}: Python op {m.group(1)} at {m.group(2)}:{m.group(3)}, grep says {op}")
    c.check(got_entries == want_entries, f"{tag}: entries {sorted(got_entries)} != {sorted(want_entries)}")
    want_ops = {o for o, d in exp["python_ops"].items() if d["entry"] in want_entries}
    got_ops = set(re.findall(r"^\| `(\w+)` `\S+:\d+`", table, re.M))
    c.check(got_ops == {o.split(".", 1)[1] for o in want_ops},
            f"{tag}: Python ops {sorted(got_ops)} != {sorted(want_ops)}")
    # each listed op's public callers in the package (ast, kwpycallers.py)
    for op_name in got_ops:
        op = ops.get(op_name)
        want_c = sorted(_pkg(args).callers(op[0], op_name)) if op else []
        m = re.search(r"^Public callers of `%s` in the package: (.*)\.$" % re.escape(op_name), host, re.M)
        c.check(bool(m) == bool(want_c), f"{tag}: public callers line of {op_name}: {bool(m)}, ast finds {want_c}")
        for n, f, d, v in want_c:
            c.check(m and f"`{n}` `{f}:{d}`" + (f" (via `{v}`)" if v else "") in m.group(1),
                    f"{tag}: public caller {n} at {f}:{d} of {op_name} not on the page")
    dev = section(page, HEADINGS[2], HEADINGS[3])
    isa = section(page, HEADINGS[5], HEADINGS[6])
    if kid is None:
        co = inst_info["asm"]["code_object"].replace("${KW_ASM_DIR}", os.path.join(args.corpus_out, "hsa") + "/")
        if os.path.exists(co):
            c.check(re.search(r"^\| VGPRs \| `\d+` \|", isa, re.M) is not None,
                    f"{tag}: the code object {co} exists but section 5 shows no registers")
        return
    # template parameters
    tparams = re.findall(r"^\| (\d+) \| `([^`]*)` \| (\w+) \| `([^`]*)` \| (yes \(default\)|no) \| (.*) \|$",
                         dev, re.M)
    params = kexp.get("template_params", [])
    c.check(len(tparams) == len(params), f"{tag}: {len(tparams)} template parameter rows, want {len(params)}")
    for row, p, val, i in zip(tparams, params, inst["args"], range(len(params))):
        c.check(row[1] == p["name"], f"{tag}: template parameter {i} name {row[1]} != {p['name']}")
        c.check(row[2] == ("type" if p["kind"] == "type" else "value"), f"{tag}: parameter {p['name']} kind {row[2]}")
        # a type the source spelled with a typedef shows "written (value)": the
        # value must be expected.json's, the name a typedef the corpus declares
        shown = row[3]
        m = re.match(r"^([\w:]+) \((.*)\)$", shown)
        if m and m.group(2) == val and p["kind"] == "type":
            c.check(_declares_typedef(args, m.group(1)),
                    f"{tag}: parameter {p['name']} written {m.group(1)}: no such typedef in the corpus or <cstdint>")
            shown = m.group(2)
        c.check(shown == val, f"{tag}: parameter {p['name']} value {row[3]} != {val}")
        c.check((row[4] != "no") == (i in inst.get("defaulted", [])), f"{tag}: parameter {p['name']} default flag")
        for n in re.findall(r"\d+", row[5].split(" and ")[0]) if row[5] not in ("-",) else []:
            lines = kr.file_lines(kf)
            c.check(kr.has_word(lines[int(n) - 1], p["name"]), f"{tag}: line {n} does not use {p['name']}")
    # call tree: the callee's name at the call and at its definition
    # (an item: "- `label` [n] called at ...", [n] its full name's number)
    for m in re.finditer(r"^\s*- `([^`]+)`(?: \\?\[\d+\\?\])? called at `(\S+):(\d+)`"
                         r"(?:, defined at `(\S+):(\d+)`)?", dev, re.M):
        b = kr.base_name(m.group(1))
        if not b:
            continue
        for f, l in ((m.group(2), m.group(3)), (m.group(4), m.group(5))):
            if f is None:
                continue
            lines = kr.file_lines(f)
            c.check(lines is not None and kr.has_word(lines[int(l) - 1], b),
                    f"{tag}: {f}:{l} does not hold {b}")
    # inline asm
    for aid in kexp.get("asm", []):
        _, af, al = marks[aid]
        c.check(f"at `{af}:{al}`:" in dev, f"{tag}: inline asm {aid} not at its marker {af}:{al}")
        text = exp["asm"][aid].get("text")
        if text:
            c.check(f"- `{text}` in " in dev, f"{tag}: asm text {text!r}")
    # shared memory
    if "lds_bytes" in inst:
        m = re.search(r"Static `__shared__` total from the declarations: (\d+) bytes", dev)
        want = inst["lds_bytes"]
        if want == 0:
            c.check(m is None or int(m.group(1)) == 0, f"{tag}: shared bytes")
        else:
            c.check(m is not None and int(m.group(1)) == want, f"{tag}: shared bytes {m and m.group(1)} != {want}")
    # ISA / IR facts: shown when the sidecar has them, stated missing otherwise
    k = index_kernels.get(name)
    archs = (k or {}).get("archs") or {}
    have_res = {a: v.get("resources") for a, v in archs.items() if isinstance(v, dict) and v.get("resources")}
    if not have_res:
        c.check("ISA not captured" in isa, f"{tag}: no ISA facts in the sidecar but the page does not say so")
    else:
        for a, res in have_res.items():
            col = list(archs).index(a)
            for key, title in (("vgpr", "VGPRs"), ("sgpr", "SGPRs"), ("occupancy", "Occupancy (waves per SIMD)")):
                if res.get(key) is None:
                    continue
                m = re.search(r"^\| " + re.escape(title) + r" \|(.*)$", isa, re.M)
                cells = [x.strip() for x in m.group(1).split("|")] if m else []
                c.check(len(cells) > col and cells[col] == f"`{res[key]}`",
                        f"{tag}: {a} {title} shown as {cells[col] if len(cells) > col else None}, sidecar {res[key]}")
    if not any(isinstance(v, dict) and v.get("ir") for v in archs.values()):
        c.check("no IR facts" in page, f"{tag}: no IR facts but the page does not say so")
    mem = section(page, HEADINGS[4], HEADINGS[5])
    for a, v in archs.items():
        w = (v.get("ir") or {}).get("work_per_thread") if isinstance(v, dict) else None
        if not isinstance(w, dict):
            continue
        part = section(mem, f"### {a}", "###")
        want = "| thread (expression) | `%s` | `%s` | `%s` |" % (w.get("bytes_read"), w.get("bytes_written"),
                                                              w.get("flops"))
        c.check(want in part, f"{tag}: {a} per-thread work is not the sidecar's {want}")
    # every cited file:line exists
    for f, l in LOC.findall(page):
        lines = kr.file_lines(f) if os.path.isabs(f) else None
        if lines is not None:
            c.check(1 <= int(l) <= len(lines), f"{tag}: {f}:{l} is past the end of the file")


def check_config(c, tag, part, linst):
    for what, key in (("grid", "grid"), ("block", "block")):
        m = re.search(r"^\| " + what + r" \| [^|]* \| ([^|]*) \|", part, re.M)
        if not c.check(m is not None, f"{tag}: no {what} row"):
            continue
        dims = linst.get(key)
        if dims and all(isinstance(d, int) for d in dims):
            c.check(m.group(1).strip() == "(%d, %d, %d)" % tuple(dims), f"{tag}: {what} {m.group(1)} != {dims}")
        else:
            c.check(m.group(1).strip() == "not a constant in this instantiation",
                    f"{tag}: {what} {m.group(1)} should not be a constant ({dims})")
    if "shmem" in linst and not linst.get("asm"):
        m = re.search(r"^\| dynamic shared memory \(bytes\) \| [^|]* \| ([^|]*) \|", part, re.M)
        want = "not a constant in this instantiation" if linst["shmem"] is None else str(linst["shmem"])
        c.check(m is not None and m.group(1).strip() == want, f"{tag}: shared memory {m and m.group(1)} != {want}")


def check_paths(c, tag, part, linst, marks, exp):
    blocks = re.split(r"^From ", part, flags=re.M)[1:]
    by_entry = {}
    for b in blocks:
        head, _, body = b.partition(":\n\n")
        locs = LOC.findall(head)
        ids = [i for i, (k, f, l) in marks.items()
               if k == "ENTRY" and locs and (f, l) == (locs[-1][0], int(locs[-1][1]))]
        # an entry may reach the launch along several paths: one block each
        by_entry.setdefault(ids[0] if ids else head, []).append(body.split("\n\n")[0])
    for p in linst.get("paths", []):
        want, early = [], []
        for g in p["guards"]:
            d = exp["guards"][g["guard"]]
            _, gf, gl = marks[g["guard"]]
            if "case" in g:
                item = (False, f"{d['text']} == {g['case']}", gf, gl)
            else:
                item = (not g["holds"], d["text"], gf, gl)
            # early returns (enclosing=false) are shown when the sidecar records them
            is_early = not d.get("enclosing", True) or g.get("early_exit")
            (early if is_early else want).append(item)
        for e in p["entries"]:
            bodies = by_entry.get(e)
            if not c.check(bodies is not None, f"{tag}: no dispatch path from entry {e}"):
                continue
            # the expected path is the one through its calls (the first when it names none)
            body = bodies[0]
            for b in bodies:
                if all(f"at `{marks[cid][1]}:{marks[cid][2]}`" in b for cid in p.get("calls", [])):
                    body = b
                    break
            got = [(bool(m.group(1)), m.group(2), m.group(3), int(m.group(4))) for m in re.finditer(
                r"when (not )?`([^`]*)`(?: \(switch case\)| \(\?:\)| \(early exit above\))? at `(\S+):(\d+)`",
                body)]
            shown_early = [x for x in got if x in early]
            got = [x for x in got if x not in early]
            c.check(got == want, f"{tag}: guards from {e}:\n  got  {got}\n  want {want}")
            c.check(all(x in early for x in shown_early), f"{tag}: early exits from {e}: {shown_early}")
            for m in re.finditer(r"when (not )?`([^`]*)` \(early exit above\) at `(\S+):(\d+)`", body):
                x = (bool(m.group(1)), m.group(2), m.group(3), int(m.group(4)))
                c.check(x in early, f"{tag}: early exit {x} from {e} is not an expected early return")
            for cid in p.get("calls", []):
                _, cf, cl = marks[cid]
                c.check(f"at `{cf}:{cl}`" in body, f"{tag}: path from {e} misses call {cid} at {cf}:{cl}")


_PKG = {}
_STDINT = {"%sint%d_t" % (u, n) for u in ("", "u") for n in (8, 16, 32, 64)}


def _declares_typedef(args, name):
    """Is name a <cstdint> type, or a typedef/alias the corpus sources declare?"""
    base = name.split("::")[-1]
    if name.lstrip(":").replace("std::", "") in _STDINT:
        return True
    pat = re.compile(r"\b(using\s+%s\s*=|typedef\b[^;]*\b%s\s*;)" % (re.escape(base), re.escape(base)))
    for dp, _, fn in os.walk(args.corpus_src):
        for f in fn:
            if f.endswith((".h", ".hip")):
                with open(os.path.join(dp, f), encoding="utf-8") as fh:
                    if pat.search(fh.read()):
                        return True
    return False


def _pkg(args):
    """The corpus's ops/ read by Python's ast (kwpycallers.py), once."""
    if "ops" not in _PKG:
        _PKG["ops"] = kwpycallers.scan(os.path.join(args.corpus_src, "ops"))
    return _PKG["ops"]


def map_json_rows(c, text):
    """`kwalk map --json`'s rows as the TSV's 11 fields (docs/json.md)."""
    try:
        doc = json.loads(text)
    except ValueError as e:
        c.check(False, f"kwalk map --json: not JSON: {e}")
        return []
    c.check(doc.get("kwalk_map") == 1, "kwalk map --json: kwalk_map 1")

    def at(x):
        return f"{x['file']}:{x['line']}" if x else "-"
    rows = []
    for r in doc.get("rows") or []:
        py, e = r.get("python"), r.get("entry")
        callers = "; ".join(f"{x['name']} {at(x)}" + (f" (via {x['via']})" if x.get("via") else "")
                            for x in (py or {}).get("callers") or [])
        ekind = e["kind"] if e else {"unreachable": "unreachable",
                                     "python": "triton"}.get(r.get("reached"), "-")
        dev = at(r.get("device")) if r.get("device") else ", ".join(r.get("code_objects")) or "-"
        rows.append([r["kernel"], str(r["instantiations"]), at(py),
                     (py or {}).get("function") or "-", ekind, (e or {}).get("name") or "-",
                     at(e) if e and e.get("file") else "-", at(r.get("launch")), dev,
                     r.get("functors") or "-", callers or "-"])
    return rows


def check_map(c, args, db, marks, exp, ops):
    rc, out, err = kr.run([args.kwalk, "map", "--db", db, "--format", "tsv",
                           "--python-root", os.path.join(args.corpus_src, "ops")])
    c.check(rc == 0 and not err, f"kwalk map: exit {rc}: {err}")
    rows = [r.split("\t") for r in out.strip().split("\n") if r]
    c.check(all(len(r) == 11 for r in rows), "kwalk map: 11 fields per row")
    check_map_rows(c, args, rows, marks, exp, ops)
    rc, out, err = kr.run([args.kwalk, "map", "--db", db, "--json",
                           "--python-root", os.path.join(args.corpus_src, "ops")])
    c.check(rc == 0 and not err, f"kwalk map --json: exit {rc}: {err}")
    check_map_rows(c, args, map_json_rows(c, out), marks, exp, ops, "kwalk map --json")
    check_map_python(c, args, db, exp, marks)


def check_map_rows(c, args, rows, marks, exp, ops, what="kwalk map"):
    pkg = _pkg(args)

    def marker_at(kind, loc):
        if loc == "-":
            return "-"
        f, l = loc.rsplit(":", 1)
        ids = [i for i, (k, mf, ml) in marks.items() if k == kind and mf == f and ml == int(l)]
        return ids[0] if len(ids) == 1 else None

    got = {}
    op_rows = {}
    callers_seen = 0
    for r in rows:
        if len(r) != 11:
            continue
        kernel, count, py, pyop, ekind, ename, eat, launch, dev, functors, callers = r
        e, l = marker_at("ENTRY", eat), marker_at("LAUNCH", launch)
        c.check(e is not None and l is not None, f"{what}: row {r} does not point at markers")
        got.setdefault((e, l), set()).add(int(count))
        if pyop != "-":
            op = ops.get(pyop)
            c.check(op is not None and py == f"{op[0]}:{op[1]}", f"{what}: Python {pyop} at {py}, ast says {op}")
            op_rows.setdefault((e, l), set()).add(pyop)
            if op is not None:
                want_c = sorted(f"{n} {f}:{d}" + (f" (via {v})" if v else "")
                                for n, f, d, v in pkg.callers(op[0], pyop))
                got_c = [] if callers == "-" else sorted(callers.split("; "))
                c.check(got_c == want_c, f"{what}: public callers of {pyop}: {got_c}, ast says {want_c}")
                callers_seen += len(want_c)
        want_f = {i["functor"]["type"].split("<")[0] for d in exp["kernels"].values()
                  if d["name"] == kernel for i in d["instantiations"] if i.get("functor")}
        got_f = set() if functors == "-" else set(functors.split(", "))
        c.check(got_f == want_f, f"{what}: {kernel}: functors {sorted(got_f)}, expected.json {sorted(want_f)}")
        asm = [co for d in (exp.get("asm_launches") or {}).values()
               for k, co in asm_targets(d) if k == kernel]
        if asm:
            co = asm[0].split("}")[-1]
            c.check(dev.endswith(co), f"{what}: device code of ASM kernel {kernel} is {dev}, not {co}")
        kid = [k for k, d in exp["kernels"].items() if d["name"] == kernel]
        if kid and dev != "-":
            # a trampoline's row cites the functor's operator() it runs (issue 42)
            at = {i["functor"]["at"] for i in exp["kernels"][kid[0]]["instantiations"]
                  if i.get("functor")}
            _, kf, kl = marks[sorted(at)[0] if len(at) == 1 else kid[0]]
            c.check(dev == f"{kf}:{kl}", f"{what}: device code of {kernel} at {dev}, marker {kf}:{kl}")
    want = {}
    for e, d in exp["entries"].items():
        if d.get("shadowed_by"):
            continue  # the binding entry's rows stand for it
        for l in d["reaches"]:
            want[(e, l)] = {len(d["reaches_instantiations"][l])}
        for l in d.get("reaches_asm", []):
            want[(e, l)] = {1}
    reached = {l for (_, l) in want}
    for l in exp["launches"]:
        if l not in reached:
            want[("-", l)] = {len(exp["launches"][l]["instantiations"])}
    for l in exp.get("asm_launches") or {}:
        if l not in reached:
            want[("-", l)] = {1}
    c.check(got == want, f"{what}: (entry, launch) rows\n  got  {sorted(got.items())}\n  want {sorted(want.items())}")
    for (e, l) in want:
        if e == "-":
            continue
        want_ops = {o.split(".", 1)[1] for o, d in exp["python_ops"].items() if d["entry"] == e}
        c.check(op_rows.get((e, l), set()) == want_ops, f"{what}: Python ops of {e}: {op_rows.get((e, l))} != {want_ops}")
    c.check(callers_seen >= 3, f"{what}: only {callers_seen} public callers checked (ops/fused.py has 3)")


def check_map_python(c, args, db, exp, marks):
    # an op naming an entry of another module: the map says where the entry is
    entry = [e for e, d in exp["entries"].items() if d.get("kind") == "pybind"][0]
    ed = exp["entries"][entry]
    wrong = os.path.join(kr.mkdtemp(args, "kwalk-wrong-module-"), "wrong.py")
    with open(wrong, "w", encoding="utf-8") as f:
        f.write('@compile_ops("module_elsewhere", fc_name="%s")\ndef op_elsewhere(): ...\n' % ed["name"])
    rc, out, err = kr.run([args.kwalk, "map", "--db", db, "--python-root", os.path.dirname(wrong)])
    _, ef, el = marks[entry]
    c.check(rc == 0 and f"no pybind entry point module_elsewhere.{ed['name']} in this index; the entry "
            f"exists as pybind {ed['module']}.{ed['name']} ({ef}:{el}), in another module" in out,
            f"kwalk map: an op of the wrong module does not say where the entry is: {out[-600:]} {err}")
    rc, out, err = kr.run([args.kwalk, "map", "--db", db])
    c.check(rc == 0 and out.startswith("| Kernel | Instantiations | Python entry | C++ entry | Launch site | Device code |"),
            "kwalk map: Markdown table header")


def check_shape(c, args, db, marks, exp):
    """rmsnorm <float, fp8, 256, 16, 16>: grid from num_rows, the hidden-size
    guards evaluated for two shapes, each by Python on expected.json's text."""
    kernel = "kw::add_rmsnorm_quant_kernel<float, kw::fp8_e4m3, 256, 16, 16>"
    for hidden in (2048, 8000):
        rc, out, err = kr.run([args.kwalk, "render", kernel, "--db", db,
                               "--shape", f"num_rows=4096,hidden={hidden}"])
        if not c.check(rc == 0, f"--shape: exit {rc}: {err}"):
            continue
        c.check(re.search(r"^\| grid \|.*\| \(4096, 1, 1\) \|$", out, re.M) is not None, "--shape: grid (4096, 1, 1)")
        for gid, holds in (("rmsnorm.hidden_le_1024", False), ("rmsnorm.hidden_le_4096", True)):
            text = exp["guards"][gid]["text"]
            _, gf, gl = marks[gid]
            value = eval(text.replace("a.hidden", str(hidden)))  # "a.hidden <= 1024": Python reads it too
            ok = value == holds
            m = re.search(r"`" + re.escape(text) + r"` at `" + re.escape(f"{gf}:{gl}") + r"` \[shape: (yes|NO)", out)
            c.check(m is not None and (m.group(1) == "yes") == ok,
                    f"--shape hidden={hidden}: {text} marked {m and m.group(1)}, Python says {ok}")


def check_stale(c, args, tmp, db, marks):
    """A copy of the corpus, the index pointing at it: a line inserted at the
    top of the launching file makes the launch line stale; a removed file is
    reported as unreadable."""
    src = os.path.abspath(args.corpus_src)
    copy = os.path.join(tmp, "corpus-copy")
    shutil.copytree(src, copy)
    with open(db, encoding="utf-8") as f:
        text = f.read()
    db2 = os.path.join(tmp, "moved.yaml")
    with open(db2, "w", encoding="utf-8") as f:
        f.write(text.replace(src + "/", copy + "/"))
    _, lf, ll = marks["rope.neox"]
    moved = lf.replace(src + "/", copy + "/")
    with open(moved, encoding="utf-8") as f:
        body = f.read()
    with open(moved, "w", encoding="utf-8") as f:
        f.write("// a line added after the build\n" + body)
    kernel = "kw::rope_sbhd_fwd_kernel<float, true>"
    rc, out, err = kr.run([args.kwalk, "render", kernel, "--db", db2])
    out = md_plain(out)  # the temporary path may hold an escaped '_'
    c.check(rc == 0, f"stale: exit {rc}: {err}")
    c.check(f"line {ll} of {moved} does not hold" in out, "stale: the changed launch line is not reported")
    c.check(f"// {moved}:{ll}" not in out, "stale: a stale launch line was quoted")
    os.remove(moved)
    rc, out, err = kr.run([args.kwalk, "render", kernel, "--db", db2])
    c.check(rc == 0 and f"{moved} cannot be read now" in md_plain(out), "removed source: not reported")


def check_hw_once(c, args, tmp, db):
    """An occupancy file under KWALK_ANNOTATIONS that says wave32 (and 4 waves
    per SIMD) must not reach the walkthrough: the wave size and occupancy come
    from the one table the plugin and `kwalk isa` use."""
    src = os.path.join(os.path.dirname(os.path.abspath(args.corpus_src)), "..", "annotations",
                       "hw", "amdgpu-occupancy.txt")
    with open(src, encoding="utf-8") as f:
        text = f.read()
    changed = re.sub(r"^(\s*wave_size\s+)64", r"\g<1>32", text, flags=re.M)
    changed = re.sub(r"^(\s*max_waves_per_simd\s+)\d+", r"\g<1>4", changed, flags=re.M)
    c.check(changed != text, "hw: the wave_size lines were not found in amdgpu-occupancy.txt")
    over = os.path.join(tmp, "annot-override")
    os.makedirs(os.path.join(over, "hw"))
    with open(os.path.join(over, "hw", "amdgpu-occupancy.txt"), "w", encoding="utf-8") as f:
        f.write(changed)
    kernel = "kw::rope_sbhd_fwd_kernel<float, true>"
    rc, plain, err = kr.run([args.kwalk, "render", kernel, "--db", db])
    c.check(rc == 0, f"hw: render: exit {rc}: {err}")
    env = dict(os.environ, KWALK_ANNOTATIONS=over)
    p = subprocess.run([args.kwalk, "render", kernel, "--db", db], capture_output=True,
                       text=True, errors="replace", env=env)
    c.check(p.returncode == 0, f"hw: render under KWALK_ANNOTATIONS: exit {p.returncode}: {p.stderr}")
    c.check(p.stdout == plain, "hw: an amdgpu-occupancy.txt under KWALK_ANNOTATIONS changed the page")
    m = re.search(r"Block: (\d+) threads = (\d+) waves? of (\d+) lanes", plain)
    c.check(m is not None and int(m.group(3)) == 64 and
            int(m.group(2)) == (int(m.group(1)) + 63) // 64,
            f"hw: block line {m and m.group(0)!r}: GFX9 waves are 64 lanes")


def main():
    args = kr.parse_args()
    c = Checker("test_render_corpus")
    tmp = kr.mkdtemp(args, "kwalk-render-corpus-")
    try:
        marks = kr.markers(args)
        exp = kr.expected(args)
        ops = kr.python_ops(args)
        c.check(len(ops) == len(exp["python_ops"]), f"grep found {len(ops)} Python ops, expected.json has {len(exp['python_ops'])}")
        db, index = kr.build_index(args, tmp)
        index_kernels = {k.get("name"): k for k in index.get("kernels") or []}
        pages = os.path.join(tmp, "pages")
        rc, out, err = kr.run([args.kwalk, "render", "--all", "--db", db, "-o", pages,
                               "--python-root", os.path.join(args.corpus_src, "ops")])
        c.check(rc == 0 and not err, f"render --all: exit {rc}: {err}")
        insts = expected_instances(exp)
        files = sorted(f for f in os.listdir(pages) if f.endswith(".md") and f != "index.md")
        c.check(len(files) == len(insts), f"{len(files)} pages for {len(insts)} expected instantiations")
        seen = set()
        for f in files:
            with open(os.path.join(pages, f), encoding="utf-8") as fh:
                page = fh.read()
            # the kernel's printed name: the overview's instantiation (a
            # trampoline's title is the kernel struct it runs), else the title
            m = re.search(r"^\| Instantiation \| `([^`]+)` \|", page, re.M) or \
                re.match(r"# Kernel Walkthrough: `([^`]+)`", page)
            name = m.group(1) if m else f
            key = kr.split_args(name)
            key = (key[0], tuple(key[1]))
            seen.add(key)
            check_page(c, name, page, args, marks, exp, ops, insts.get(key), index_kernels)
        c.check(seen == set(insts), f"pages missing for {sorted(set(insts) - seen)}")
        with open(os.path.join(pages, "index.md"), encoding="utf-8") as fh:
            idx = fh.read()
        for f in files:
            c.check(f"]({f})" in idx, f"index.md does not link {f}")
        for k in exp["kernels"].values():
            c.check(f"## `{k['name']}`" in idx, f"index.md has no group for {k['name']}")
        check_map(c, args, db, marks, exp, ops)
        check_shape(c, args, db, marks, exp)
        check_stale(c, args, tmp, db, marks)
        check_hw_once(c, args, tmp, db)
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print("kept", tmp)
    c.finish()


if __name__ == "__main__":
    main()
