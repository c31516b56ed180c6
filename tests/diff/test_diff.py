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
  - the instruction count is llvm-objdump's count over the kernel symbol's
    range, the instruction classes' changes add up to it, and the listing is
    reported changed exactly when llvm-objdump's text of the kernel differs;
  - the rows come in the documented order; --fail-on exits 2 for a kind that
    occurred, 0 for one that did not; OLD against itself prints nothing and
    exits 0; build folders given instead of indexes give the same rows and
    leave no temporary files; bad input is one `kwalk:` line and exit 1.

  test_diff.py (the capture tests' options: kwcap.parse_args)
"""
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


def markers():
    """{marker: line} of the `kwd:` comments of the source."""
    out = {}
    for i, l in enumerate(open(SRC), 1):
        m = re.search(r"// kwd:(\w+)", l)
        if m:
            out[m.group(1)] = i
    return out


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
    """{FUNC symbol: [instruction text]} by llvm-objdump over each symbol's range."""
    syms = symbols(a, co)
    out = run([kwcap.tool(a, "llvm-objdump"), "-d", "--mcpu=" + arch, co], must=True).stdout
    insns = []
    for l in out.splitlines():
        m = re.match(r"^\t(.*?)\s*// ([0-9A-F]+):", l)
        if m:
            insns.append((int(m.group(2), 16), " ".join(m.group(1).split())))
    return {s: [t for addr, t in insns if v <= addr < v + n] for s, (v, n) in syms.items()}


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
                     "listings": listings(a, co, arch)}
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
    seen = set()
    for r in rows:
        key = (r["kind"], r["symbol"], r["arch"], r["field"])
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
            ol, nl = o["listings"][sym], n["listings"][sym]
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
            c.eq("isa" in mine, ol != nl, "%s %s listing changed (llvm-objdump's text)" % (arch, sym))
    # launch sites of the added / removed instantiations: the marker lines
    want_sites = {"_Z11kdiff_scaleIiEvPT_S0_i": marks["launch_scale_int"],
                  "_Z11kdiff_scaleIdEvPT_S0_i": marks["launch_scale_double"]}
    for r in rows:
        if r["kind"] in ("added", "removed") and r["arch"] is None:
            c.eq([(os.path.realpath(l["file"]), l["line"]) for l in r["launches"]],
                 [(src_real, want_sites.get(r["symbol"]))], "%s launch sites" % r["symbol"])
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
        old_obj = compile_build(a, root, "old", [], c)
        new_obj = compile_build(a, root, "new", ["-DKWD_NEW"], c)
        dbs = {}
        for name, obj in (("old", old_obj), ("new", new_obj)):
            dbs[name] = os.path.join(root, name + ".db")
            run([a.kwalk, "index", os.path.dirname(obj), "-o", dbs[name]], must=True)
        old = truth(a, root, "old", old_obj, [])
        new = truth(a, root, "new", new_obj, ["-DKWD_NEW"])
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
        for name in ("old", "new"):
            s = kwalk(a, dbs[name], dbs[name], "--fail-on", "occupancy,spills,removed,added,isa")
            c.eq((s.returncode, s.stdout, s.stderr), (0, "", ""), "%s against itself" % name)
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
