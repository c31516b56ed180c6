#!/usr/bin/env python3
"""`kwalk index --triton-cache` on the shared Triton fixture
(../shared/fixtures/triton-aiter-3.6: a cache Triton 3.6 wrote for aiter's
rmsnorm and quant kernels, the sources as compiled, manifest.json with what
each compile was given), checked against ground truth kwalk does not
produce: the cache folders counted here, each folder's NAME.json read here,
manifest.json (constexprs, options), the Python sources parsed with `ast`
(definition line, argument names, which are tl.constexpr), `llvm-readelf
--notes` (resources, kernel arguments), `llvm-objdump -d` (the listing) and
`llvm-dwarfdump --debug-line` (the ISA -> Python line of every
instruction). And `kwalk diff` (docs/diff.md) of the cache against itself
(nothing, exit 0) and against a changed copy: one specialization's folder
removed, one's num_warps and hash changed in its NAME.json (still matched,
by function, arch, signature and constexprs: an option row), one's VGPR count
raised in its .hsaco's metadata note; every row against the two copies'
files (NAME.json, llvm-readelf --notes). Exit 77 (skip) when the fixture is
absent."""
import argparse
import ast
import glob
import json
import os
import re
import shutil
import sys
import tempfile

import yaml

Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

NOT_RECOVERABLE = "not recoverable from the cache; run with the hook"
META = {"hash", "name", "arch", "target", "backend_name", "triton_version", "warp_size", "shared",
        "profile_scratch_size", "profile_scratch_align"}

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kwrun import run  # noqa: E402
import kwcheck  # noqa: E402

CK = kwcheck.Checker("triton.cache")
eq = CK.eq


def jit_defs(path):
    """{name: (def line, [arg names], {constexpr names})} of the @triton.jit
    functions of a Python file, from Python's own parser."""
    out = {}
    tree = ast.parse(open(path).read(), path)
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef):
            continue
        if not any(ast.unparse(d).startswith("triton.jit") for d in node.decorator_list):
            continue
        args = [a.arg for a in node.args.args]
        cx = {a.arg for a in node.args.args
              if a.annotation is not None and ast.unparse(a.annotation).endswith("constexpr")}
        out[node.name] = (node.lineno, args, cx)
    return out


def notes(llvm, hsaco):
    """The kernel's scalar metadata keys and its .args, from llvm-readelf --notes."""
    text = run([os.path.join(llvm, "llvm-readelf"), "--notes", hsaco], must=True).stdout
    kv = {m.group(1): m.group(2).strip()
          for m in re.finditer(r"^    \.([a-z_]+):[ \t]+(\S.*)$", text, re.M)}
    args = []
    block = text.split("    .args:", 1)[1] if "    .args:" in text else ""
    for line in block.splitlines()[1:]:
        m = re.match(r"^      (- )?  ?\.([a-z_]+):\s+(\S+)", line)
        if not line.startswith("      "):
            break
        if line.startswith("      - "):
            args.append({})
        if m:
            args[-1][m.group(2)] = m.group(3)
    return kv, args


def symbol_size(llvm, hsaco, name):
    """The kernel's code bytes: its FUNC symbol's size, from llvm-readelf -s."""
    for line in run([os.path.join(llvm, "llvm-readelf"), "-s", hsaco], must=True).stdout.splitlines():
        f = line.split()
        if len(f) >= 8 and f[3] == "FUNC" and f[7] == name:
            return int(f[2], 0)
    raise SystemExit("%s: no FUNC symbol %s in llvm-readelf -s" % (hsaco, name))


def objdump(llvm, hsaco, arch, name):
    """[(offset, text)] of the kernel's instructions (its symbol's bytes, not
    the padding after it), from llvm-objdump -d."""
    size = symbol_size(llvm, hsaco, name)
    out = run([os.path.join(llvm, "llvm-objdump"), "-d", "--mcpu=" + arch, hsaco], must=True).stdout
    base, insns, cur = None, [], None
    for line in out.splitlines():
        m = re.match(r"^([0-9a-f]+) <(.+)>:$", line)
        if m:
            cur = m.group(2)
            if cur == name:
                base = int(m.group(1), 16)
            continue
        m = re.match(r"^\t(.*?)\s*// ([0-9A-F]+):", line)
        if m and cur == name:
            insns.append((int(m.group(2), 16) - base, m.group(1)))
    return [i for i in insns if i[0] < size]


def debug_line(llvm, hsaco):
    """[(address, file, line, column)] rows in order, from llvm-dwarfdump."""
    out = run([os.path.join(llvm, "llvm-dwarfdump"), "--debug-line", hsaco], must=True).stdout
    dirs, files, rows, cur = {}, {}, [], None
    for line in out.splitlines():
        m = re.match(r'^include_directories\[\s*(\d+)\] = "(.*)"$', line)
        if m:
            dirs[int(m.group(1))] = m.group(2)
        m = re.match(r"^file_names\[\s*(\d+)\]:$", line)
        if m:
            cur = [int(m.group(1)), None, None]
        m = re.match(r'^\s+name: "(.*)"$', line)
        if m and cur:
            cur[1] = m.group(1)
        m = re.match(r"^\s+dir_index: (\d+)$", line)
        if m and cur:
            cur[2] = int(m.group(1))
            files[cur[0]] = os.path.join(dirs.get(cur[2], ""), cur[1])
            cur = None
        m = re.match(r"^0x([0-9a-f]+)\s+(\d+)\s+(\d+)\s+(\d+)\s+\d+\s+\d+\s+\d+\s*(.*)$", line)
        if m:
            rows.append((int(m.group(1), 16), files.get(int(m.group(4))), int(m.group(2)),
                         int(m.group(3)), "end_sequence" in m.group(5)))
    return rows


def patch_vgpr(hsaco, add):
    """Raise the .vgpr_count of hsaco's metadata note (msgpack: the key
    as a fixstr, the value a positive fixint or a uint8) by add, in place."""
    data = bytearray(open(hsaco, "rb").read())
    at = data.find(b"\xab.vgpr_count")
    if at < 0:
        raise SystemExit("%s: no .vgpr_count key in the note" % hsaco)
    v = at + 12
    if data[v] < 0x80 and data[v] + add < 0x80:
        data[v] += add
    elif data[v] == 0xcc and data[v + 1] + add < 0x100:
        data[v + 1] += add
    else:
        raise SystemExit("%s: .vgpr_count not a small integer" % hsaco)
    open(hsaco, "wb").write(bytes(data))


def diff_checks(a, tmp, db, src):
    """`kwalk diff` of the fixture's cache: against itself, and against a
    changed copy, each row checked against the copies' own files."""
    kw = [a.kwalk, "diff"]
    r = run(kw + [db, db, "--fail-on", "removed,added,option,isa,vgpr,occupancy"])
    eq((r.returncode, r.stdout, r.stderr), (0, "", ""), "diff: the index against itself")
    cache = os.path.join(a.fixture, "cache")
    copy = os.path.join(tmp, "cache-new")
    shutil.copytree(cache, copy)
    metas = {}
    for f in sorted(glob.glob(os.path.join(copy, "*", "*.json"))):
        if not os.path.basename(f).startswith("__grp__"):
            metas[f] = json.load(open(f))
    by = lambda name, arch, pick=None: sorted(  # noqa: E731
        f for f, m in metas.items() if m["name"] == name and m["arch"] == arch and
        (pick is None or pick(m)))
    archs = sorted({m["arch"] for m in metas.values()})
    arch = archs[0]
    # removed: a _rms_norm_kernel whose sibling (same function and arch) stays
    gone = [f for f in by("_rms_norm_kernel", archs[-1]) if metas[f]["shared"] > 1024]
    eq(len(gone), 1, "diff: one large-LDS _rms_norm_kernel on %s" % archs[-1])
    gone_meta = metas.pop(gone[0])
    shutil.rmtree(os.path.dirname(gone[0]))
    # num_warps and hash changed
    opt = by("_fused_add_rmsnorm_kernel", arch)
    eq(len(opt), 1, "diff: one _fused_add_rmsnorm_kernel on %s" % arch)
    m = metas[opt[0]]
    old_warps, old_hash = m["num_warps"], m["hash"]
    m["num_warps"] = old_warps * 2
    m["hash"] = "f" * 64
    json.dump(m, open(opt[0], "w"))
    # the VGPR count raised in the code object's note
    reg = by("_dynamic_per_token_quant_fp8_i8_kernel", arch)
    eq(len(reg), 1, "diff: one _dynamic_per_token_quant_fp8_i8_kernel on %s" % arch)
    reg_name = "_dynamic_per_token_quant_fp8_i8_kernel"
    hsaco = reg[0][:-len(".json")] + ".hsaco"
    old_hsaco = os.path.join(cache, os.path.relpath(hsaco, copy))
    patch_vgpr(hsaco, 8)
    vg_old = int(notes(a.llvm_bin, old_hsaco)[0]["vgpr_count"])
    vg_new = int(notes(a.llvm_bin, hsaco)[0]["vgpr_count"])
    eq(vg_new, vg_old + 8, "diff: the patched note's .vgpr_count (llvm-readelf)")
    # the copy indexed as the original was (IR facts off: a diff compares none)
    db2 = os.path.join(tmp, "idx-new.yaml")
    run([a.kwalk, "index", "--triton-cache", copy, "--map-prefix", "/opt/aiter=" + src, "-o", db2],
        env=dict(os.environ, KWALK_IRFACTS="off"), must=True)
    r = run(kw + [db, db2, "--json", "--fail-on", "removed"])
    eq(r.returncode, 2, "diff: --fail-on removed exit status (%s)" % r.stderr.strip())
    rows = json.loads(r.stdout)["changes"] if r.stdout.startswith("{") else []
    removed = [x for x in rows if x["kind"] == "removed"]
    eq([(x["symbol"], x["arch"], x["name"].split("[")[0]) for x in removed],
       [("%s@%s" % (gone_meta["name"], gone_meta["hash"]), None, gone_meta["name"])],
       "diff: the removed folder (its sibling matched by its constexprs)")
    eq(all(x["name"].startswith(gone_meta["name"] + "[") for x in removed), True,
       "diff: the removed specialization named with its constexprs")
    options = [x for x in rows if x["kind"] == "option"]
    eq([(x["symbol"], x["arch"], x["field"], x["old"], x["new"]) for x in options],
       [("_fused_add_rmsnorm_kernel@" + "f" * 64, arch, "num_warps", str(old_warps),
         str(old_warps * 2))], "diff: num_warps (NAME.json), matched across hashes")
    eq([x for x in rows if x["kind"] == "added"], [], "diff: nothing added (hash changes matched)")
    vg = [x for x in rows if x["field"] == "vgpr"]
    eq([(x["symbol"].split("@")[0], x["arch"], x["old"], x["new"], x["direction"]) for x in vg],
       [(reg_name, arch, vg_old, vg_new, "regression")], "diff: the VGPR count (llvm-readelf --notes)")
    rest = [x for x in rows if x["kind"] not in ("removed", "option", "vgpr", "occupancy",
                                                  "limiter")]
    eq(rest, [], "diff: no other change (the listings are the same)")
    for x in rows:
        if x["kind"] in ("occupancy", "limiter"):
            eq((x["symbol"].split("@")[0], x["arch"]), (reg_name, arch),
               "diff: occupancy only of the patched kernel")
    r = run(kw + [cache, cache])
    eq((r.returncode, r.stdout, r.stderr), (0, "", ""), "diff: the cache folder against itself")
    r = run(kw + [os.path.join(tmp, "nothing-here"), cache])
    eq((r.returncode, r.stdout, len(r.stderr.splitlines()), r.stderr[:7]), (1, "", 1, "kwalk: "),
       "diff: a missing folder: one kwalk: line, exit 1")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kwalk", required=True)
    ap.add_argument("--fixture", required=True)
    ap.add_argument("--llvm-bin", required=True)
    ap.add_argument("--archs", required=True,
                    help="the archs this LLVM disassembles (KWALK_HIP_ARCHS), comma-separated")
    a = ap.parse_args()
    fx = a.fixture
    if not os.path.isfile(os.path.join(fx, "manifest.json")):
        print("SKIP: the shared Triton fixture %s is absent (../shared not checked out)" % fx)
        return 77
    src = os.path.join(fx, "src")
    manifest = json.load(open(os.path.join(fx, "manifest.json")))
    folders = sorted(d for d in glob.glob(os.path.join(fx, "cache", "*"))
                     if glob.glob(os.path.join(d, "__grp__*.json")))
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "idx.yaml")
        run([a.kwalk, "index", "--triton-cache", os.path.join(fx, "cache"),
             "--map-prefix", "/opt/aiter=" + src, "-o", db], must=True).stdout
        doc = yaml.load(open(db), Loader=Loader)
        listing = run([a.kwalk, "list", "--db", db], must=True).stdout
        diff_checks(a, tmp, db, src)
    kernels = [k for k in doc["kernels"] if k.get("language") == "triton"]
    eq(len(kernels), len(folders), "specializations indexed")
    eq(len(kernels), len(manifest["compiled"]), "specializations in the manifest")
    eq(sum(1 for l in listing.splitlines() if l.split("\t")[6] == "triton"), len(folders),
          "kwalk list: triton rows")
    recovered = unrecoverable = 0
    rows_used = []
    for k in kernels:
        t = k["triton"]
        name = k["name"]
        folder = t["cache_dir"]
        meta = json.load(open(os.path.join(folder, name + ".json")))
        w = "%s (%s)" % (name, os.path.basename(folder))
        arch = meta["arch"]
        # identity and options: NAME.json read here
        eq(k["symbol"], "%s@%s" % (meta["name"], meta["hash"]), w + ": symbol")
        eq(t["hash"], meta["hash"], w + ": hash")
        eq(list(k["archs"]), [arch], w + ": archs")
        eq(t.get("triton_version"), meta["triton_version"], w + ": triton_version")
        eq(t.get("shared_bytes"), meta["shared"], w + ": shared_bytes")
        eq(t.get("warp_size"), meta["target"]["warp_size"], w + ": warp_size")
        want_opts = [(key, "true" if v is True else "false" if v is False else v)
                     for key, v in meta.items()
                     if key not in META and isinstance(v, (int, str, bool, float))]
        got_opts = [(o["name"], o.get("value", "")) for o in t.get("options", [])]
        eq(got_opts, [(n, v if isinstance(v, str) else v)
                                          for n, v in want_opts], w + ": options")
        opts = dict(got_opts)
        # definition and arguments: the source parsed with ast
        file = k["location"]["file"]
        eq(file.startswith(src + "/"), True, w + ": definition under src/")
        defs = jit_defs(file)
        eq(name in defs, True, w + ": a @triton.jit def of that name in " + file)
        if name not in defs:
            continue
        line, args, cx = defs[name]
        eq(k["location"]["line"], line, w + ": definition line")
        eq([p["name"] for p in k.get("params", [])], [x for x in args if x not in cx],
              w + ": params (the arguments that are not constexpr)")
        got_cx = t.get("constexprs", [])
        eq([c["name"] for c in got_cx], [x for x in args if x in cx], w + ": constexpr names")
        for c in got_cx:
            if "value" in c:
                recovered += 1
                eq(c.get("from") in ("cache_ir", "cache_ir_branch"), True,
                      w + ": " + c["name"] + " from")
                if c.get("from") == "cache_ir_branch":
                    # the location is an `if NAME:` statement of the def (Python's ast)
                    ifs = [n for n in ast.walk(ast.parse(open(file).read(), file))
                           if isinstance(n, ast.If) and isinstance(n.test, ast.Name)
                           and n.test.id == c["name"]
                           and n.lineno == c.get("location", {}).get("line")]
                    eq(len(ifs), 1, w + ": " + c["name"] + " at an `if` of it (ast)")
                    eq(c["value"] in ("True", "False"), True, w + ": " + c["name"] + " a bool")
            else:
                unrecoverable += 1
                eq(c.get("why"), NOT_RECOVERABLE, w + ": " + c["name"] + " why")
        # the manifest row of this compile: same kernel and arch, every value
        # recovered and every option given equal; exactly one
        rows = [i for i, r in enumerate(manifest["compiled"])
                if r["kernel"] == name and r["arch"] == arch
                and all(str(r["constexprs"].get(c["name"])) == c["value"]
                        for c in got_cx if "value" in c)
                and all(str(opts.get(o)) == str(v) for o, v in r["options"].items())]
        eq(len(rows), 1, w + ": manifest rows matching")
        rows_used += rows
        for i in rows:
            eq(sorted(c["name"] for c in got_cx), sorted(manifest["compiled"][i]["constexprs"]),
                  w + ": constexpr names vs manifest")
        # the code object: llvm-readelf --notes
        hsaco = os.path.join(folder, name + ".hsaco")
        kv, kargs = notes(a.llvm_bin, hsaco)
        res = k["archs"][arch]["resources"]
        for ours, theirs in [("vgpr", "vgpr_count"), ("sgpr", "sgpr_count"),
                             ("agpr", "agpr_count"), ("vgpr_spill", "vgpr_spill_count"),
                             ("sgpr_spill", "sgpr_spill_count"),
                             ("lds_bytes", "group_segment_fixed_size"),
                             ("scratch_bytes", "private_segment_fixed_size"),
                             ("kernarg_bytes", "kernarg_segment_size"),
                             ("wavefront_size", "wavefront_size"),
                             ("max_flat_workgroup_size", "max_flat_workgroup_size")]:
            if theirs in kv:
                eq(res.get(ours), int(kv[theirs]), w + ": resources." + ours)
        eq(res.get("max_flat_workgroup_size"), meta["num_warps"] * meta["target"]["warp_size"],
              w + ": workgroup = num_warps x warp size")
        for p, ka in zip(k.get("params", []), kargs):
            eq(p["type"].startswith("*"), ka.get("value_kind") == "global_buffer",
                  w + ": param " + p["name"] + " is a pointer")
            if p["type"] in ("i32", "fp32"):
                eq(int(ka["size"]), 4, w + ": param " + p["name"] + " size")
        if arch not in a.archs.split(","):
            # this LLVM may not know the arch (gfx950 on LLVM 19): no listing
            # then, and a reason instead
            print("note: %s: %s not among the archs of this LLVM (%s): listing not checked"
                  % (w, arch, a.archs))
            eq("isa" in k["archs"][arch]
                  or "lines_note" in k["archs"][arch], True, w + ": a listing or a reason")
            continue
        # the listing: llvm-objdump -d
        isa = k["archs"][arch]["isa"]
        ours = []
        for l in isa.splitlines():
            m = re.match(r"^([0-9a-f]+): (.*?)(\s+; -> L\d+)?$", l)
            if m:
                ours.append((int(m.group(1), 16), m.group(2)))
        want = objdump(a.llvm_bin, hsaco, arch, name)
        eq(len(ours), len(want), w + ": instruction count")
        bad = [(o, wo) for o, wo in zip(ours, want) if o != wo]
        eq(bad[:3], [], w + ": instructions differing from objdump")
        # ISA -> Python line: llvm-dwarfdump --debug-line, the row in effect
        # at each instruction (the last row at or before its address)
        rows_dw = debug_line(a.llvm_bin, hsaco)
        base = min(r[0] for r in rows_dw)  # the kernel is the only code
        lines = k["archs"][arch].get("lines", [])
        eq(len(lines) > 0, True, w + ": has a line table")
        mism, j, cur, li, cur_ours = [], 0, None, 0, None
        for off, _ in ours:
            while j < len(rows_dw) and rows_dw[j][0] - base <= off:
                cur = None if rows_dw[j][4] or rows_dw[j][2] == 0 else rows_dw[j][1:4]
                j += 1
            while li < len(lines) and lines[li]["offset"] <= off:
                loc = lines[li].get("location")
                cur_ours = (loc["file"], loc["line"], loc["column"]) if loc else None
                li += 1
            if cur is not None:
                cur = (cur[0].replace("/opt/aiter", src, 1) if cur[0].startswith("/opt/aiter/")
                       else cur[0], cur[1], cur[2])
            if cur_ours != cur:
                mism.append((off, cur_ours, cur))
        eq(mism[:3], [], w + ": instructions whose line differs from .debug_line")
    eq(sorted(rows_used), list(range(len(manifest["compiled"]))),
          "manifest rows each matched once")
    eq(recovered > 0, True, "constexprs recovered from the IR > 0")
    eq(unrecoverable > 0, True, "constexprs marked not recoverable > 0")
    print("constexprs: %d recovered from the cache IR, %d not recoverable" %
          (recovered, unrecoverable))
    CK.finish()


if __name__ == "__main__":
    sys.exit(main())
