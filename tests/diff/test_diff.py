#!/usr/bin/env python3
"""test_diff.py: diff.builds. `kwalk diff` between two builds of src/diffk.hip
(OLD; NEW with -DKWD_NEW: kdiff_scale<double> removed, kdiff_scale<int>
added, kdiff_heavy with more live values and a larger LDS tile, kdiff_spill
past its launch bounds' registers), each compiled with the plugin and
indexed, against ground truth kwalk does not produce:

  - the added / removed instantiations are the code objects' kernel symbols
    (llvm-readelf --syms) in one build only, and their launch sites the
    source lines of the `kwd:` marker comments;
  - every VGPR, AGPR, SGPR, LDS, scratch and spill number reported is the
    kernel's NT_AMDGPU_METADATA value (llvm-readelf --notes) in that build,
    and every such value that differs is reported;
  - every occupancy reported is clang's own (-Rpass-analysis=kernel-resource-
    usage, Occupancy [waves/SIMD]) and every occupancy change is reported;
  - the added / removed instantiations' entry points are the extern "C"
    functions of the source that reach their launch markers (a scan of the
    source's functions and calls);
  - every occupancy limiter reported agrees with the VGPR and SGPR terms the
    test computes from the notes and annotations/hw (and is `none` at the
    wave slots), and a limiter change is reported where those terms change;
  - the instruction count is llvm-objdump's count over the kernel symbol's
    range, each instruction class's count changes exactly as llvm-objdump's
    mnemonics classified by docs/codeobj.md's rules (here) do, and the
    listing is reported changed exactly when llvm-objdump's text of the
    kernel differs;
  - the source lines whose code changed: llvm-objdump's instructions of each
    kernel given their line by llvm-dwarfdump --debug-line, per line the
    instructions' text (a branch by its mnemonic) compared, the changed lines
    merged into ranges of consecutive lines, with each build's instruction
    counts (both builds compile the device code with -gline-tables-only);
  - the rows come in the documented order; --fail-on exits 2 for a kind that
    occurred, 0 for one that did not; OLD and NEW each against itself print
    nothing and exit 0; build folders given instead of indexes give the same rows and
    leave no temporary files; bad input is one `kwalk:` line and exit 1.

  test_diff.py (the capture tests' options: kwcap.parse_args)
"""
import collections
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import kwcap  # noqa: E402
import kwllvm  # noqa: E402
from kwcheck import Checker  # noqa: E402
from kwrun import run  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "src", "diffk.hip")
NOTE = {"vgpr": ".vgpr_count", "agpr": ".agpr_count", "sgpr": ".sgpr_count",
        "lds_bytes": ".group_segment_fixed_size", "scratch_bytes": ".private_segment_fixed_size",
        "vgpr_spill": ".vgpr_spill_count", "sgpr_spill": ".sgpr_spill_count"}
RANK_REGRESSION = {"occupancy": 0, "spills": 1, "removed": 2}
# both builds: line tables in the device code (the source lines whose code changed)
LINES = ["-Xarch_device", "-gline-tables-only"]


def markers():
    """{marker: line} of the `kwd:` comments of the source."""
    out = {}
    for i, l in enumerate(open(SRC), 1):
        m = re.search(r"// kwd:(\w+)", l)
        if m:
            out[m.group(1)] = i
    return out


def preprocess_branches(lines, new):
    """The source's lines with the lines of the #ifdef KWD_NEW / #else /
    #endif branches OLD (new False) or NEW does not compile blanked."""
    out, stack = [], []
    for l in lines:
        t = l.strip()
        if t.startswith("#ifdef KWD_NEW"):
            stack.append(new)
            out.append("")
        elif t.startswith("#else") and stack:
            stack[-1] = not stack[-1]
            out.append("")
        elif t.startswith("#endif") and stack:
            stack.pop()
            out.append("")
        else:
            out.append(l if all(stack) else "")
    return out


OLD_SRC = preprocess_branches(open(SRC).read().split("\n"), False)
NEW_SRC = preprocess_branches(open(SRC).read().split("\n"), True)
FUNC = re.compile(r'^(extern "C" )?(?:static )?(?:__global__ )?[\w:<>\* ]*?\b(\w+)\s*\(')


def entries_reaching(src, launch_lines):
    """The extern "C" functions of src (lines; 1-based numbers) that contain
    one of launch_lines or call, directly or through other functions of src,
    one that does: each top-level function's extent by its braces, its calls
    by name."""
    funcs = []  # (name, extern C, first, last)
    i = 0
    while i < len(src):
        m = FUNC.match(src[i])
        if not m:
            i += 1
            continue
        depth, j, opened = 0, i, False
        while j < len(src):
            depth += src[j].count("{") - src[j].count("}")
            opened = opened or "{" in src[j]
            if opened and depth <= 0:
                break
            j += 1
        funcs.append((m.group(2), bool(m.group(1)), i + 1, j + 1))
        i = j + 1
    body = {f: " ".join(src[a - 1:b]) for f, _, a, b in funcs}
    reach = {f for f, _, a, b in funcs if any(a <= l <= b for l in launch_lines)}
    grew = True
    while grew:
        grew = False
        for f, _, a, b in funcs:
            if f not in reach and any(re.search(r"\b%s\s*\(" % g, body[f].split("{", 1)[-1])
                                      for g in reach):
                reach.add(f)
                grew = True
    return sorted(f for f, ext, _, _ in funcs if ext and f in reach)


def compile_build(a, root, name, extra, c):
    """Compile SRC with the plugin into root/name/diffk.o; the object path."""
    out = os.path.join(root, name)
    os.makedirs(out)
    obj = os.path.join(out, "diffk.o")
    r = run(kwcap.compile_cmd(a, SRC, obj, extra=["-cuid=kwdiff"] + extra), env=kwcap.clean_env())
    c.eq(r.returncode, 0, "%s: compile exit status (%s)" % (name, r.stderr.strip()[-400:]))
    if not any(f.startswith("diffk.o.kwalk.yaml") for f in os.listdir(out)):
        c.fail("%s: the plugin wrote no sidecar (%s)" % (name, kwcap.kwalk_lines(r.stderr)))
        c.finish()
    return obj


def remarks(a, root, name, extra, arch):
    """clang's kernel-resource-usage remarks of a device-only compile for arch."""
    flags = [f for f in a.cflag if not f.startswith("--offload-arch=")]
    path = os.path.join(root, "%s.%s.remarks" % (name, arch))
    cmd = ([a.clangxx] + flags + extra + ["--offload-arch=" + arch, "--cuda-device-only",
                                          "-Rpass-analysis=kernel-resource-usage", "-c", SRC,
                                          "-o", os.path.join(root, "%s.%s.dev.o" % (name, arch))])
    r = run(cmd, env=kwcap.clean_env(), must=True)
    with open(path, "w") as f:
        f.write(r.stderr)
    return kwllvm.parse_remarks(path)


def symbols(a, co):
    """{FUNC symbol: (value, size)} of code object co."""
    out = {}
    for l in run([kwcap.tool(a, "llvm-readelf"), "--syms", "--wide", co], must=True).stdout.splitlines():
        f = l.split()
        if len(f) >= 8 and f[0].endswith(":") and f[3] == "FUNC" and f[6] != "UND":
            out[f[7]] = (int(f[1], 16), int(f[2], 0))
    return out


def listings(a, co, arch):
    """{FUNC symbol: [(address, instruction text)]} by llvm-objdump over each
    symbol's range."""
    syms = symbols(a, co)
    out = run([kwcap.tool(a, "llvm-objdump"), "-d", "--mcpu=" + arch, co], must=True).stdout
    insns = []
    for l in out.splitlines():
        m = re.match(r"^\t(.*?)\s*// ([0-9A-F]+):", l)
        if m:
            insns.append((int(m.group(2), 16), " ".join(m.group(1).split())))
    return {s: [(addr, t) for addr, t in insns if v <= addr < v + n] for s, (v, n) in syms.items()}


def texts(listing):
    return [t for _, t in listing]


# docs/codeobj.md's instruction classes, in the order its table's rules apply
VMEM = ("global_", "buffer_", "tbuffer_", "flat_", "scratch_", "image_")
SMEM = ("s_load_", "s_buffer_load_", "s_store_", "s_scratch_", "s_dcache_", "s_atc_probe",
        "s_memtime", "s_memrealtime", "s_atomic_", "s_prefetch_")
TRANS = ("v_rcp_", "v_rsq_", "v_exp_", "v_log_", "v_sqrt_", "v_sin_", "v_cos_")


def insn_class(text):
    """The class of one instruction (its mnemonic) by docs/codeobj.md's table."""
    m = text.split()[0] if text.split() else ""
    if m.startswith("v_"):
        if m.startswith("v_pk_"):
            return "valu_packed"
        if m.startswith(TRANS):
            return "valu_trans"
        if m.startswith("v_cvt_") and re.search(r"fp8|bf8|fp4|fp6|bf6", m):
            return "cvt_fp8_fp4"
        for p, c in (("v_mfma_", "mfma"), ("v_smfmac_", "smfmac"), ("v_wmma_", "wmma"),
                     ("v_swmmac_", "wmma"), ("v_readlane_", "readlane"),
                     ("v_writelane_", "writelane"), ("v_readfirstlane_", "readfirstlane"),
                     ("v_permlane", "permlane")):
            if m.startswith(p):
                return c
        return "valu"
    if m.startswith(VMEM):
        if m in ("buffer_wbl2", "buffer_inv"):
            return "other"
        for op in ("load", "store", "atomic"):
            if "_" + op in m:
                return "vmem_" + op
        return "other"
    if m.startswith(SMEM):
        return "smem"
    if m.startswith("ds_"):
        for c in ("ds_swizzle", "ds_bpermute", "ds_permute"):
            if m.startswith(c):
                return c
        return "lds"
    if m.startswith("s_"):
        if m == "s_branch" or m.startswith(("s_cbranch_", "s_setpc_", "s_swappc_", "s_call_")):
            return "branch"
        if m.startswith(("s_waitcnt", "s_wait_")):
            return "waitcnt"
        if m.startswith("s_barrier"):
            return "barrier"
        if m == "s_nop":
            return "nop"
        return "salu"
    return "other"


def norm_insn(text):
    """An instruction's text as compared per source line: a branch by its mnemonic."""
    f = text.split()
    if f and (f[0] == "s_branch" or f[0].startswith("s_cbranch_")):
        return f[0]
    return " ".join(f)


def changed_lines(lt_old, old, lt_new, new):
    """[(file, first, last, old count, new count)]: the source lines whose
    instructions (by their line in each build's line table) differ, merged
    into runs of consecutive lines of one file."""
    code = {}
    for side, (lt, listing) in enumerate(((lt_old, old), (lt_new, new))):
        for addr, t in listing:
            at = lt.at(addr)
            if at:
                code.setdefault((os.path.realpath(at[0]), at[1]), ([], []))[side].append(norm_insn(t))
    out = []
    for (f, line), (o, n) in sorted(code.items()):
        if o == n:
            continue
        if out and out[-1][0] == f and out[-1][2] == line - 1:
            g = out[-1]
            out[-1] = (f, g[1], line, g[3] + len(o), g[4] + len(n))
        else:
            out.append((f, line, line, len(o), len(n)))
    return out


def hw_table(a):
    """{arch: {key: value}} of annotations/hw/amdgpu-occupancy.txt."""
    out, cur = {}, None
    for l in open(os.path.join(a.source_dir, "annotations", "hw", "amdgpu-occupancy.txt")):
        f = l.split("#")[0].split()
        if len(f) >= 2 and f[0] == "arch":
            cur = out.setdefault(f[1], {})
        elif len(f) >= 2 and cur is not None:
            cur[f[0]] = f[1:]
    return out


def reg_terms(hw, note):
    """(VGPR term, SGPR term, wave slots) of a kernel's note (docs/codeobj.md)."""
    slots = int(hw["max_waves_per_simd"][0])
    regs, gran = int(hw["vgprs_per_lane"][0]), int(hw["vgpr_granule"][0])
    v = max(note.get(".vgpr_count", 0), 1)
    vt = min(slots, regs // (-(-v // gran) * gran))
    s, st = max(note.get(".sgpr_count", 0), 1), None
    for step in hw["sgpr_waves"]:
        lim, w = step.split(":")
        if lim == "*" or s <= int(lim):
            st = min(int(w), slots)
            break
    return vt, st, slots


def want_limiter(hw, note, occ):
    """What the limiter of occupancy occ must say: (the register terms that
    equal it, whether another term (LDS, workgroup) must, LDS allowed);
    None: `none` (the wave slots)."""
    vt, st, slots = reg_terms(hw, note)
    if occ >= slots:
        return None
    regs = {n for n, t in (("vgpr", vt), ("sgpr", st)) if t == occ}
    return regs, not regs, note.get(".group_segment_fixed_size", 0) > 0


def check_limiter(c, got, want, what):
    if want is None:
        c.eq(got, "none", what + ": at the wave slots")
        return
    regs, other, lds_ok = want
    parts = set((got or "").split("+"))
    c.eq(sorted(parts & {"vgpr", "sgpr"}), sorted(regs), what + ": register terms")
    if other:
        c.check(parts & {"lds", "workgroup"}, what + ": %s names the LDS or workgroup term" % got)
    if not lds_ok:
        c.check("lds" not in parts, what + ": %s without LDS" % got)


def truth(a, root, name, obj, extra):
    """Per arch: kernel symbols, their metadata notes, occupancy, listings."""
    out = {}
    for arch in a.arches:
        work = os.path.join(root, "co-%s-%s" % (name, arch))
        os.makedirs(work)
        kernels, err = kwcap.code_object_kernels(a, obj, arch, work)
        md, err2 = kwcap.code_object_metadata(a, obj, arch, work)
        if err or err2:
            raise RuntimeError(err or err2)
        co, _ = kwcap.unbundle_code_object(a, obj, arch, work)
        notes = {k[".symbol"][:-3]: k for k in md.get("amdhsa.kernels", [])}
        rem = remarks(a, root, name, extra, arch)
        out[arch] = {"kernels": kernels, "notes": notes, "remarks": rem,
                     "listings": listings(a, co, arch), "hw": hw_table(a)[arch],
                     "lines": kwllvm.LineTable(kwcap.tool(a, "llvm-dwarfdump"), co)}
    return out


def kwalk(a, *args, **kw):
    return run([a.kwalk, "diff"] + list(args), **kw)


def rank(r):
    if r["direction"] == "improvement":
        return 5
    if r["direction"] == "change":
        return 4
    return RANK_REGRESSION.get(r["kind"], 3)


def check_rows(c, rows, old, new, marks, src_real):
    """Every row against the ground truth of both builds, and the truth's
    changes all reported."""
    nlines = [0]
    seen = set()
    for r in rows:
        key = (r["kind"], r["symbol"], r["arch"], r["field"], r.get("file"), r.get("first"))
        c.check(key not in seen, "one row per change: %s" % (key,))
        seen.add(key)
    for arch in old:
        o, n = old[arch], new[arch]
        # added / removed against the code objects' kernel symbols
        for kind, want, side in (("added", n["kernels"] - o["kernels"], n),
                                 ("removed", o["kernels"] - n["kernels"], o)):
            got = {r["symbol"] for r in rows if r["kind"] == kind and
                   (r["arch"] in (None, arch))}
            c.eq(sorted(got), sorted(want), "%s %s instantiations" % (arch, kind))
        both = o["kernels"] & n["kernels"]
        for sym in sorted(both):
            mine = {r["field"]: r for r in rows if r["symbol"] == sym and r["arch"] == arch}
            for field, note in NOTE.items():
                ov, nv = o["notes"][sym].get(note, 0), n["notes"][sym].get(note, 0)
                r = mine.get(field)
                if ov == nv:
                    c.check(r is None, "%s %s %s unchanged (%s), not reported" % (arch, sym, field, ov))
                else:
                    c.check(r is not None, "%s %s %s %s -> %s reported" % (arch, sym, field, ov, nv))
                    if r:
                        c.eq((r["old"], r["new"]), (ov, nv), "%s %s %s" % (arch, sym, field))
                        worse = "regression" if nv > ov else "improvement"
                        c.eq(r["direction"], worse, "%s %s %s direction" % (arch, sym, field))
            oo = int(o["remarks"][sym]["Occupancy [waves/SIMD]"])
            no = int(n["remarks"][sym]["Occupancy [waves/SIMD]"])
            r = mine.get("occupancy")
            if oo == no:
                c.check(r is None, "%s %s occupancy unchanged (%d), not reported" % (arch, sym, oo))
            else:
                c.check(r is not None and (r["old"], r["new"]) == (oo, no),
                        "%s %s occupancy %d -> %d (clang's remark): %s" % (arch, sym, oo, no, r))
            hw = o["hw"]
            for r in rows:
                if r["symbol"] == sym and r["arch"] == arch and "old_limiter" in r:
                    check_limiter(c, r["old_limiter"], want_limiter(hw, o["notes"][sym], oo),
                                  "%s %s old limiter" % (arch, sym))
                    check_limiter(c, r["new_limiter"], want_limiter(hw, n["notes"][sym], no),
                                  "%s %s new limiter" % (arch, sym))
            wo, wn = want_limiter(hw, o["notes"][sym], oo), want_limiter(hw, n["notes"][sym], no)
            if oo == no and (wo is None) != (wn is None) or (wo and wn and wo[0] != wn[0]):
                c.check("limiter" in mine or "occupancy" in mine,
                        "%s %s limiter change reported (%s -> %s)" % (arch, sym, wo, wn))
            ol, nl = texts(o["listings"][sym]), texts(n["listings"][sym])
            r = mine.get("insns")
            if len(ol) == len(nl):
                c.check(r is None, "%s %s instruction count unchanged (%d)" % (arch, sym, len(ol)))
            else:
                c.check(r is not None and (r["old"], r["new"]) == (len(ol), len(nl)),
                        "%s %s instructions %d -> %d (llvm-objdump): %s" % (arch, sym, len(ol), len(nl), r))
            classes = sum(x["new"] - x["old"] for x in rows if x["symbol"] == sym and
                          x["arch"] == arch and x["kind"] == "class" and
                          x["field"] not in ("dpp", "sdwa"))
            c.eq(classes, len(nl) - len(ol), "%s %s instruction classes add up" % (arch, sym))
            co = collections.Counter(insn_class(t) for t in ol)
            cn = collections.Counter(insn_class(t) for t in nl)
            got = {x["field"]: (x["old"], x["new"]) for x in rows if x["symbol"] == sym and
                   x["arch"] == arch and x["kind"] == "class" and x["field"] not in ("dpp", "sdwa")}
            want = {k: (co[k], cn[k]) for k in set(co) | set(cn) if co[k] != cn[k]}
            c.eq(got, want, "%s %s class changes (llvm-objdump's mnemonics classified)" % (arch, sym))
            c.eq("isa" in mine, ol != nl, "%s %s listing changed (llvm-objdump's text)" % (arch, sym))
            want = changed_lines(o["lines"], o["listings"][sym], n["lines"], n["listings"][sym]) \
                if ol != nl else []
            got = [(os.path.realpath(x["file"]), x["first"], x["last"], x["old"], x["new"])
                   for x in rows if x["symbol"] == sym and x["arch"] == arch and x["kind"] == "lines"]
            c.eq(got, want, "%s %s source lines whose code changed (llvm-dwarfdump's lines)" % (arch, sym))
            nlines[0] += len(want)
    # launch sites of the added / removed instantiations: the marker lines;
    # their entry points: the extern "C" functions reaching those lines
    want_sites = {"_Z11kdiff_scaleIiEvPT_S0_i": ["launch_scale_int", "launch_scale_int_helper"],
                  "_Z11kdiff_scaleIdEvPT_S0_i": ["launch_scale_double"]}
    nwhole = 0
    for r in rows:
        if r["kind"] in ("added", "removed") and r["arch"] is None:
            nwhole += 1
            lines = sorted(marks[m] for m in want_sites.get(r["symbol"], []))
            c.eq(sorted((os.path.realpath(l["file"]), l["line"]) for l in r["launches"]),
                 [(src_real, l) for l in lines], "%s launch sites" % r["symbol"])
            src = NEW_SRC if r["kind"] == "added" else OLD_SRC
            c.eq(sorted((e["kind"], e["name"]) for e in r.get("entries", [])),
                 sorted(("extern_c", f) for f in entries_reaching(src, lines)),
                 "%s entry points (the source's extern \"C\" functions reaching its launches)"
                 % r["symbol"])
    c.eq(nwhole, 2, "instantiations added or removed")
    c.check(nlines[0] > 0, "some source lines' code changed (kdiff_heavy, kdiff_spill)")
    c.check(any(r["kind"] == "occupancy" and r["direction"] == "regression" for r in rows),
            "an occupancy drop is reported (kdiff_heavy)")
    c.check(any(r["kind"] == "spills" for r in rows), "new spills are reported (kdiff_spill)")
    c.check(any(r["field"] == "lds_bytes" for r in rows), "LDS growth is reported (kdiff_heavy)")
    ranks = [rank(r) for r in rows]
    c.eq(ranks, sorted(ranks), "rows sorted by consequence (ranks %s)" % ranks)


def check_fail_on(c, a, old_db, new_db, rows):
    occurred = {r["kind"] for r in rows if r["direction"] == "regression" or
                r["kind"] in ("added", "isa")}
    for kind in ("occupancy", "spills", "vgpr", "sgpr", "lds", "scratch", "removed", "added", "isa"):
        r = kwalk(a, old_db, new_db, "--fail-on", kind)
        want = 2 if kind in occurred else 0
        c.eq(r.returncode, want, "--fail-on %s exit status (occurred: %s)" % (kind, sorted(occurred)))
        lines = [l for l in r.stderr.splitlines() if l]
        c.eq(len(lines), 1 if want else 0, "--fail-on %s: stderr lines %s" % (kind, lines))
    c.check({"occupancy", "spills", "removed", "added"} <= occurred,
            "the builds differ in occupancy, spills, removed, added: %s" % sorted(occurred))


def check_bad_input(c, a, root, new_db):
    junk = os.path.join(root, "junk.db")
    with open(junk, "w") as f:
        f.write("not an index\n")
    cases = [("missing file", [os.path.join(root, "none.db"), new_db]),
             ("not an index", [junk, new_db]),
             ("unknown --fail-on kind", [new_db, new_db, "--fail-on", "nosuch"]),
             ("one path", [new_db]),
             ("empty folder", [os.path.join(root, "empty"), new_db])]
    os.makedirs(os.path.join(root, "empty"))
    for what, args in cases:
        r = kwalk(a, *args, timeout=120)
        lines = [l for l in r.stderr.splitlines() if l]
        c.eq(r.returncode, 1, "%s: exit status" % what)
        c.check(len(lines) == 1 and lines[0].startswith("kwalk: "), "%s: one kwalk: line %s" % (what, lines))
        c.eq(r.stdout, "", "%s: no output" % what)


def main():
    a = kwcap.parse_args()
    c = Checker("diff.builds")
    if not a.kwalk:
        c.skip("no kwalk built")
    root = kwcap.tmpdir(a, "diff")
    try:
        old_obj = compile_build(a, root, "old", LINES, c)
        new_obj = compile_build(a, root, "new", LINES + ["-DKWD_NEW"], c)
        dbs = {}
        for name, obj in (("old", old_obj), ("new", new_obj)):
            dbs[name] = os.path.join(root, name + ".db")
            run([a.kwalk, "index", os.path.dirname(obj), "-o", dbs[name]], must=True)
        old = truth(a, root, "old", old_obj, LINES)
        new = truth(a, root, "new", new_obj, LINES + ["-DKWD_NEW"])
        r = kwalk(a, dbs["old"], dbs["new"], "--json")
        c.eq(r.returncode, 0, "diff --json exit status (%s)" % r.stderr.strip())
        if r.returncode != 0:
            c.finish()
        doc = json.loads(r.stdout)
        rows = doc["changes"]
        c.eq(doc["kwalk_diff"], 1, "JSON version")
        check_rows(c, rows, old, new, markers(), os.path.realpath(SRC))
        # the Markdown table: one line per change
        md = kwalk(a, dbs["old"], dbs["new"])
        table = [l for l in md.stdout.splitlines() if l.startswith("| ") and not l.startswith("| |")]
        c.eq(len(table), len(rows), "Markdown rows = JSON rows")
        # --arch restricts
        arch = a.arches[0]
        ra = json.loads(kwalk(a, dbs["old"], dbs["new"], "--json", "--arch", arch).stdout)["changes"]
        c.eq([x for x in rows if x["arch"] in (None, arch)], ra, "--arch %s: that arch's rows" % arch)
        check_fail_on(c, a, dbs["old"], dbs["new"], rows)
        # an index against itself: nothing, exit 0
        every = "occupancy,spills,removed,vgpr,agpr,sgpr,lds,scratch,added,limiter,insns,class," \
                "isa,lines,option"
        for name in ("old", "new"):
            s = kwalk(a, dbs[name], dbs[name], "--fail-on", every)
            c.eq((s.returncode, s.stdout, s.stderr), (0, "", ""), "%s against itself" % name)
        s = kwalk(a, os.path.dirname(new_obj), os.path.dirname(new_obj), "--json", "--fail-on", every)
        c.eq((s.returncode, json.loads(s.stdout)["changes"] if s.returncode == 0 else s.stdout,
              s.stderr), (0, [], ""), "the new build folder against itself (--json)")
        # build folders: indexed into a temporary database, removed afterwards
        tmp = os.path.join(root, "tmp")
        os.makedirs(tmp)
        env = dict(os.environ, TMPDIR=tmp)
        f = kwalk(a, os.path.dirname(old_obj), os.path.dirname(new_obj), "--json", env=env)
        c.eq(f.returncode, 0, "folders: exit status (%s)" % f.stderr.strip())
        c.eq(json.loads(f.stdout)["changes"] if f.returncode == 0 else None, rows,
             "folders: the same rows as the indexes")
        c.eq(os.listdir(tmp), [], "folders: no temporary files left")
        check_bad_input(c, a, root, dbs["new"])
    finally:
        kwcap.cleanup(a, root)
    c.finish()


if __name__ == "__main__":
    main()
