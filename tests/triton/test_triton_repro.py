#!/usr/bin/env python3
"""triton.repro: `kwalk repro` on every specialization of the shared Triton
fixture (../shared/fixtures/triton-aiter-3.6; skips, 77, where it is absent).
Each script must compile as Python, and what it hands triton.compile must be
what the fixture says the compile was given, read here independently:
  - KERNEL, the target (arch, warp size) and EXPECTED_HASH: the cache
    folder's NAME.json;
  - OPTIONS: each one NAME.json's value (JSON types kept: ints, bools, strings);
  - SIGNATURE: the def's parameters (Python's ast of the source), in order,
    the tl.constexpr ones typed "constexpr", the others the Triton type of
    the argument in the cache's TTIR (tt.func's MLIR types, mapped here);
  - CONSTEXPRS: every value kwalk gives equal to manifest.json's (the values
    the compile was given), every other one UNKNOWN with its reason;
  - FILE, PACKAGE_ROOT and MODULE: MODULE's path under PACKAGE_ROOT is FILE,
    each package folder holds an __init__.py.
Running the scripts needs Triton (not on CI): docs/triton.md gives the run
of every one of them inside real Triton 3.6 and its result.
Also: a HIP kernel, an unknown name, an ambiguous one: one line, exit 1; no
kernel: exit 2."""
import argparse
import ast
import functools
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kwcheck import Checker  # noqa: E402
import kwllvm  # noqa: E402

# MLIR element types in tt.func signatures -> Triton's signature names
MLIR_TO_TRITON = {"f32": "fp32", "f16": "fp16", "bf16": "bf16", "f64": "fp64", "i1": "i1",
                  "i8": "i8", "i16": "i16", "i32": "i32", "i64": "i64",
                  "f8E4M3FNUZ": "fp8e4b8", "f8E5M2FNUZ": "fp8e5b16", "f8E4M3FN": "fp8e4nv",
                  "f8E5M2": "fp8e5"}


def ttir_signature(path, kernel):
    """[(name, triton type)] of tt.func @kernel in a .ttir file."""
    text = open(path, encoding="utf-8").read()
    m = re.search(r"tt\.func public @%s\((.*?)\)\s*(attributes|\{)" % re.escape(kernel), text, re.S)
    if not m:
        return None
    out = []
    for name, ty in re.findall(r"%([A-Za-z_][\w]*): (!tt\.ptr<[^>]+>|\w+)", m.group(1)):
        ptr = re.fullmatch(r"!tt\.ptr<(\w+)>", ty)
        base = ptr.group(1) if ptr else ty
        t = MLIR_TO_TRITON.get(base, "?" + base)
        out.append((name, "*" + t if ptr else t))
    return out


def def_params(path, kernel):
    """[(name, is_constexpr)] of `def kernel` in a Python file (ast)."""
    tree = ast.parse(open(path, encoding="utf-8").read())
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == kernel:
            res = []
            for a in node.args.args:
                ann = ast.unparse(a.annotation) if a.annotation else ""
                res.append((a.arg, ann.endswith("constexpr")))
            return res
    return None


def script_values(text):
    tree = ast.parse(text)
    g = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            g[node.targets[0].id] = node.value
    return g


ROW = {}  # cache folder -> its manifest.json row (the one its constexprs match)


def md_tables(text):
    """{section title: {key: (A, B, changed)}} of a `kwalk compare` page."""
    out, cur = {}, None
    for line in text.splitlines():
        h = re.match(r"^## (.*)$", line)
        if h:
            cur = out.setdefault(h.group(1), {})
            continue
        r = re.match(r"^\| `(.*?)` \| (?:`(.*?)`|\(empty\)) \| (?:`(.*?)`|\(empty\)) \| (yes|) \|$",
                     line)
        if r and cur is not None:
            cur[r.group(1)] = (r.group(2) or "", r.group(3) or "", r.group(4) == "yes")
    return out


@functools.lru_cache(maxsize=None)
def objdump_insns(bindir, hsaco, kernel):
    """The instructions of llvm-objdump -d within the kernel's symbol (its
    value and size by llvm-readelf -s); None where objdump fails."""
    p = subprocess.run([os.path.join(bindir, "llvm-objdump"), "-d", hsaco], capture_output=True,
                       text=True)
    sy = subprocess.run([os.path.join(bindir, "llvm-readelf"), "-s", "--wide", hsaco],
                        capture_output=True, text=True)
    m = re.search(r"^\s*\d+: ([0-9a-f]+)\s+(\d+) FUNC\s.*\s%s$" % re.escape(kernel),
                  sy.stdout, re.M)
    if p.returncode or not m:
        return None
    lo, n = int(m.group(1), 16), int(m.group(2))
    addrs = [int(x, 16) for x in
             re.findall(r"^\s+[a-z_][\w.]*(?:\s.*)?//\s*([0-9A-F]{12}):", p.stdout, re.M)]
    return sum(1 for x in addrs if lo <= x < lo + n)


@functools.lru_cache(maxsize=None)
def notes(bindir, hsaco):
    """The kernel's record of the code object's NT_AMDGPU_METADATA (llvm-readelf --notes)."""
    return kwllvm.readelf_metadata(bindir, hsaco)["amdhsa.kernels"][0]


def layouts(ttgir):
    return {m.group(1): "%s<{%s}>" % (m.group(2), m.group(3))
            for m in re.finditer(r"^(#[\w]+) = #ttg\.(\w+)<\{(.*)\}>$", ttgir, re.M)}


def check_compare(c, a, db, cache, folders):
    """`kwalk compare` of every two specializations of one function in the
    fixture, against the two folders' NAME.json, manifest.json rows,
    llvm-readelf --notes and llvm-objdump -d of the .hsaco, and the TTGIR's
    layouts read here."""
    by = {}
    for folder in folders:
        d = os.path.join(cache, folder)
        name = [f for f in os.listdir(d) if f.endswith(".json") and not f.startswith("__grp__")]
        meta = json.load(open(os.path.join(d, name[0])))
        by.setdefault(meta["name"], []).append((folder, d, meta))
    pairs = 0
    for kernel, fs in sorted(by.items()):
        for i in range(len(fs)):
            for j in range(i + 1, len(fs)):
                (fa, da, ma), (fb, db_, mb) = fs[i], fs[j]
                what = "compare %s %s/%s" % (kernel, fa[:8], fb[:8])
                p = subprocess.run([a.kwalk, "compare", ma["hash"], mb["hash"], "--db", db],
                                   capture_output=True, text=True)
                if not c.eq((p.returncode, p.stderr), (0, ""), what + ": kwalk compare"):
                    continue
                t = md_tables(p.stdout)
                pairs += 1
                # options: NAME.json's, as it writes them
                for k in ("num_warps", "num_stages", "waves_per_eu", "matrix_instr_nonkdim",
                          "kpack", "schedule_hint"):
                    fmt = lambda v: json.dumps(v) if not isinstance(v, str) else v  # noqa: E731
                    c.eq(t.get("Options", {}).get(k), (fmt(ma[k]), fmt(mb[k]), ma[k] != mb[k]),
                         what + ": option " + k)
                c.eq(t.get("Options", {}).get("shared (NAME.json)"),
                     (str(ma["shared"]), str(mb["shared"]), ma["shared"] != mb["shared"]),
                     what + ": shared")
                # constexprs: the manifest rows of the two compiles
                ra, rb = ROW.get(fa), ROW.get(fb)
                if ra and rb:
                    for k in ra["constexprs"]:
                        va, vb = repr(ra["constexprs"][k]), repr(rb["constexprs"][k])
                        got = t.get("Constexprs", {}).get(k)
                        if got and "not known" in got[:2]:
                            continue  # the cache does not give it (triton.repro checks why)
                        c.eq(got, (va, vb, va != vb), what + ": constexpr " + k)
                # resources: the code objects' notes
                ka, kb = [notes(a.llvm_bin, glob.glob(os.path.join(x, "*.hsaco"))[0])
                          for x in (da, db_)]
                for row, key in (("VGPR", ".vgpr_count"), ("SGPR", ".sgpr_count"),
                                 ("AGPR", ".agpr_count"), ("VGPR spills", ".vgpr_spill_count"),
                                 ("SGPR spills", ".sgpr_spill_count"),
                                 ("LDS bytes", ".group_segment_fixed_size"),
                                 ("scratch bytes per lane", ".private_segment_fixed_size")):
                    va, vb = str(ka.get(key, 0)), str(kb.get(key, 0))
                    c.eq(t.get("Resources", {}).get(row), (va, vb, va != vb),
                         what + ": " + row + " (llvm-readelf --notes " + key + ")")
                # the instruction count, where this LLVM's objdump reads both
                na, nb = [objdump_insns(a.llvm_bin, glob.glob(os.path.join(x, "*.hsaco"))[0],
                                        kernel) for x in (da, db_)]
                if na is not None and nb is not None:
                    c.eq(t.get("Instruction mix", {}).get("insns"),
                         (str(na), str(nb), na != nb), what + ": instructions (llvm-objdump -d)")
                # the TTGIR's layouts
                la, lb = [layouts(open(glob.glob(os.path.join(x, "*.ttgir"))[0]).read())
                          for x in (da, db_)]
                want = {k: (la.get(k, "-"), lb.get(k, "-"), la.get(k, "-") != lb.get(k, "-"))
                        for k in set(la) | set(lb)}
                c.eq(t.get("Layouts (TTGIR)", {}), want, what + ": layouts")
    c.check(pairs >= 5, "compared %d pairs of specializations" % pairs)
    for args, what in ((["compare", ROWLESS, ROWLESS], "a kernel that is not there"),
                       (["compare", "_rms_norm_kernel"], "one kernel"),):
        p = subprocess.run([a.kwalk] + args + ["--db", db], capture_output=True, text=True)
        c.check(p.returncode != 0 and p.stderr.startswith("kwalk: ") and not p.stdout,
                "kwalk compare with %s: one error line, non-zero exit (%r)" % (what, p.stderr[:200]))
    fs = [f for k, f in sorted(by.items())]
    if len(fs) >= 2:
        p = subprocess.run([a.kwalk, "compare", fs[0][0][2]["hash"], fs[1][0][2]["hash"],
                            "--db", db], capture_output=True, text=True)
        c.check(p.returncode != 0 and "not specializations of one function" in p.stderr,
                "kwalk compare of two functions refused (%r)" % p.stderr[:200])


ROWLESS = "no_such_kernel_xyz"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kwalk", required=True)
    ap.add_argument("--fixture", required=True)
    ap.add_argument("--llvm-bin", required=True)
    a = ap.parse_args()
    c = Checker("triton.repro")
    cache = os.path.join(a.fixture, "cache")
    if not os.path.isdir(cache):
        c.skip("no Triton fixture at %s (../shared is absent)" % a.fixture)
    src = os.path.join(a.fixture, "src")
    manifest = json.load(open(os.path.join(a.fixture, "manifest.json")))["compiled"]
    tmp = tempfile.mkdtemp(prefix="kwalk-repro-")
    db = os.path.join(tmp, "t.db")
    p = subprocess.run([a.kwalk, "index", "--triton-cache", cache, "--map-prefix",
                        "/opt/aiter=" + src, "-o", db], capture_output=True, text=True)
    c.eq(p.returncode, 0, "kwalk index of the fixture: %s" % p.stderr.strip())
    folders = sorted(d for d in os.listdir(cache) if os.path.isdir(os.path.join(cache, d)))
    for folder in folders:
        d = os.path.join(cache, folder)
        meta_name = [f for f in os.listdir(d) if f.endswith(".json") and not f.startswith("__grp__")]
        meta = json.load(open(os.path.join(d, meta_name[0])))
        kernel, arch, h = meta["name"], meta["target"]["arch"], meta["hash"]
        what = "%s (%s, %s)" % (kernel, arch, folder[:12])
        out = os.path.join(tmp, folder + ".py")
        p = subprocess.run([a.kwalk, "repro", h, "--db", db, "-o", out], capture_output=True,
                           text=True)
        if not c.eq((p.returncode, p.stderr), (0, ""), "%s: kwalk repro" % what):
            continue
        text = open(out, encoding="utf-8").read()
        try:
            compile(text, out, "exec")
        except SyntaxError as e:
            c.fail("%s: the script is not Python: %s" % (what, e))
            continue
        g = script_values(text)
        lit = lambda n: ast.literal_eval(g[n])  # noqa: E731
        c.eq(lit("KERNEL"), kernel, "%s: KERNEL" % what)
        c.eq(lit("EXPECTED_HASH"), h, "%s: EXPECTED_HASH" % what)
        tgt = g["TARGET"]
        c.eq([ast.literal_eval(x) for x in tgt.args],
             [meta["target"]["backend"], arch, meta["target"]["warp_size"]], "%s: TARGET" % what)
        opts = {ast.literal_eval(k): ast.literal_eval(v)
                for k, v in zip(g["OPTIONS"].keys, g["OPTIONS"].values)}
        c.check(len(opts) >= 10, "%s: only %d options" % (what, len(opts)))
        for k, v in opts.items():
            c.check(k in meta and meta[k] == v and type(meta[k]) is type(v),
                    "%s: option %s = %r, NAME.json has %r" % (what, k, v, meta.get(k)))
        # the def, read here
        f = lit("FILE")
        c.check(os.path.isfile(f), "%s: FILE %s is not a file" % (what, f))
        params = def_params(f, kernel) if os.path.isfile(f) else None
        if not c.check(params, "%s: no def %s in %s" % (what, kernel, f)):
            continue
        ttir = [x for x in os.listdir(d) if x.endswith(".ttir")]
        tsig = dict(ttir_signature(os.path.join(d, ttir[0]), kernel) or [])
        sig = [(ast.literal_eval(k), ast.literal_eval(v))
               for k, v in zip(g["SIGNATURE"].keys, g["SIGNATURE"].values)]
        want = [(n, "constexpr" if ce else tsig.get(n, "(not in the TTIR)")) for n, ce in params]
        c.eq(sorted(sig), sorted(want), "%s: SIGNATURE" % what)
        # constexprs: kwalk's values against the manifest's
        consts = {ast.literal_eval(k): v for k, v in zip(g["CONSTEXPRS"].keys, g["CONSTEXPRS"].values)}
        c.eq(sorted(consts), sorted(n for n, ce in params if ce), "%s: CONSTEXPRS' names" % what)
        known = {k: ast.literal_eval(v) for k, v in consts.items()
                 if not (isinstance(v, ast.Name) and v.id == "UNKNOWN")}
        rows = [m for m in manifest if m["kernel"] == kernel and m["arch"] == arch and
                all(k in m["constexprs"] and m["constexprs"][k] == v and
                    type(m["constexprs"][k]) is type(v) for k, v in known.items())]
        c.check(rows, "%s: no manifest row has the constexprs %s" % (what, known))
        if len(rows) == 1:
            ROW[folder] = rows[0]
        for k in consts:
            if k not in known:
                line = [l for l in text.splitlines() if l.strip().startswith('"%s": UNKNOWN' % k)]
                c.check(line and "# not known: " in line[0],
                        "%s: constexpr %s is UNKNOWN without its reason" % (what, k))
        # the import
        root, mod = g["PACKAGE_ROOT"], g["MODULE"]
        if isinstance(mod, ast.Constant) and mod.value is not None:
            r, m = ast.literal_eval(root), ast.literal_eval(mod)
            c.eq(os.path.join(r, *m.split(".")) + ".py", f, "%s: PACKAGE_ROOT/MODULE" % what)
            parts = m.split(".")[:-1]
            for i in range(1, len(parts) + 1):
                init = os.path.join(r, *parts[:i], "__init__.py")
                c.check(os.path.isfile(init), "%s: %s is missing" % (what, init))
            c.check(not os.path.isfile(os.path.join(r, "__init__.py")),
                    "%s: PACKAGE_ROOT %s is itself a package" % (what, r))
    check_compare(c, a, db, cache, folders)
    # bad input; repro and compare share one command-line parser (cli/kw_tpick.c)
    for args, rc, what in ((["repro", "no_such_kernel_xyz", "--db", db], 1, "an unknown name"),
                           (["repro", "_rms_norm_kernel", "--db", db], 1, "an ambiguous name"),
                           (["repro", "--db", db], 2, "no kernel"),
                           (["repro", "x", "y", "--db", db], 2, "two names"),
                           (["repro", "x", "--db", db, "--bogus"], 2, "an unknown option"),
                           (["repro", "x", "--db"], 2, "--db without its file"),
                           (["compare", "x", "y", "z", "--db", db], 2, "three names"),
                           (["compare", "x", "y", "--db", db, "--arch"], 2, "--arch without its arch"),
                           (["compare", "x", "y", "--db", db, "-o", ""], 2, "-o with an empty name")):
        p = subprocess.run([a.kwalk] + args, capture_output=True, text=True)
        c.eq(p.returncode, rc, "kwalk %s with %s: exit status" % (args[0], what))
        # a usage error is one line; an ambiguous name lists its candidates after it
        c.check(p.stderr.startswith("kwalk: ") and not p.stdout
                and (rc != 2 or p.stderr.count("\n") == 1),
                "kwalk %s with %s: %r" % (args[0], what, p.stderr[:200]))
    c.check(len(folders) >= 10, "the fixture has %d cache folders" % len(folders))
    c.finish()


if __name__ == "__main__":
    main()
