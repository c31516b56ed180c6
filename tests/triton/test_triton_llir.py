#!/usr/bin/env python3
"""IR facts of Triton kernels from the cache's NAME.llir (kwalk-irfacts,
`kwalk index --triton-cache`, the Triton pages' sections 2-4), checked
against ground truth kwalk does not produce:

- which .llir files this LLVM reads: the same LLVM's `llvm-as` on each;
- per kernel: the loads, stores and atomics counted here in the .llir text
  with regular expressions (instructions and buffer intrinsics, by address
  space), the parameter count of its `define` line, the argument names of
  the TTIR's `tt.func public` signature, arch and wave size from NAME.json;
- each loop's and access's line: the Python source text at that line (a
  loop's is a `for`/`while` line; every line inside the `@triton.jit`
  function found by Python's `ast`);
- damaged input: truncated and corrupted copies of a .llir, an empty file,
  a folder: one `kwalk-irfacts:` line on stderr, exit 1, within a time
  bound, never a signal;
- `kwalk index --triton-cache` of a copied cache folder: the facts on the
  kernel's arch, named by the TTIR; with the .llir truncated, or the tool
  unavailable, `triton.ir_note` and the rendered page say so in one line.

Inputs: the committed corpus cache (tests/corpus/triton/cache) and, when
present, the shared fixture (../shared/fixtures/triton-aiter-3.6)."""
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

import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import kwcheck  # noqa: E402

Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
CK = kwcheck.Checker("triton.llir")
TOOL_LIMIT_S = 120


def entries(cache):
    """(folder, NAME) of every cache folder with a .llir."""
    out = []
    for grp in sorted(glob.glob(os.path.join(cache, "*", "__grp__*.json"))):
        d = os.path.dirname(grp)
        name = os.path.basename(grp)[len("__grp__"):-len(".json")]
        if os.path.exists(os.path.join(d, name + ".llir")):
            out.append((d, name))
    return out


def ttir_args(path):
    """[(name, is_pointer)] of the public tt.func's signature."""
    text = open(path).read()
    m = re.search(r"tt\.func public @\w+\((.*?)\)\s*(attributes|\{)", text)
    args = []
    for a in re.finditer(r"%([A-Za-z_][A-Za-z0-9_]*): (!tt\.ptr<[^>]*>|[a-z0-9A-Z]+)",
                         m.group(1)):
        args.append((a.group(1), a.group(2).startswith("!tt.ptr")))
    return args


def llir_truth(path, kernel):
    """Ground truth from the .llir text: the define line's parameter count and
    the memory operations of the kernel's body, as (op, space) counts."""
    text = open(path).read()
    m = re.search(r"^define [^\n]*@" + re.escape(kernel) + r"\((.*)\)[^\n]*\{\n(.*?)^\}",
                  text, re.M | re.S)
    params, body = m.group(1), m.group(2)
    nparams = len(re.findall(r"%\d+(?:,|$)", params))
    counts = {}

    def add(op, space):
        counts[(op, space)] = counts.get((op, space), 0) + 1

    spaces = {"1": "global", "3": "lds", "0": "flat", "5": "scratch", "4": "constant"}
    for line in body.splitlines():
        line = line.strip()
        mm = re.match(r"(%\S+ = )?(load|store) (volatile )?.*?, ptr(?: addrspace\((\d+)\))? ", line)
        if mm and not re.match(r"(%\S+ = )?(load|store) (volatile )?<?[^,]*, ptr addrspace\(4\)",
                               line):
            add(mm.group(2), spaces.get(mm.group(4) or "0", "other"))
            continue
        mm = re.match(r"%\S+ = (atomicrmw|cmpxchg) .*?ptr(?: addrspace\((\d+)\))? ", line)
        if mm:
            add("atomic", spaces.get(mm.group(2) or "0", "other"))
            continue
        mm = re.search(r"call [^@]*@llvm\.amdgcn\.(raw|struct)(\.ptr)?\.(t?buffer)\.(load|store|atomic)",
                       line)
        if mm and ".lds" not in line:
            add({"load": "load", "store": "store", "atomic": "atomic"}[mm.group(4)], "buffer")
            continue
        # transposing loads (docs/ir-facts.md's table: pointer -> data)
        mm = re.search(r"call [^@]*@llvm\.amdgcn\.(ds\.read\.tr|ds\.load\.tr|global\.load\.tr)"
                       r"[\w.]*\(ptr(?: addrspace\((\d+)\))? ", line)
        if mm:
            add("load", spaces.get(mm.group(2) or "0", "other"))
    return nparams, counts


def jit_range(path, name):
    """(def line, last line) of the @triton.jit function `name`, from ast."""
    tree = ast.parse(open(path).read(), path)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node.lineno, node.end_lineno
    return None


def map_path(path, prefixes):
    for old, new in prefixes:
        if path == old or path.startswith(old.rstrip("/") + "/"):
            return new + path[len(old.rstrip("/")):]
    return path


def run_tool(tool, args, timeout=TOOL_LIMIT_S + 30):
    return subprocess.run([tool] + args, capture_output=True, text=True, timeout=timeout)


def check_entry(tool, llvm_bin, d, name, prefixes, where):
    meta = json.load(open(os.path.join(d, name + ".json")))
    arch = meta.get("arch") or meta["target"]["arch"]
    wave = meta.get("warp_size") or meta["target"].get("warp_size")
    llir = os.path.join(d, name + ".llir")
    ttir = os.path.join(d, name + ".ttir")
    args = ttir_args(ttir if os.path.exists(ttir) else os.path.join(d, name + ".source"))
    what = "%s %s" % (where, os.path.basename(d)[:12])
    readable = subprocess.run([os.path.join(llvm_bin, "llvm-as"), llir, "-o", os.devnull],
                              capture_output=True).returncode == 0
    p = run_tool(tool, ["--arch", arch, "--wave", str(wave), "--names",
                        ",".join(a[0] for a in args), llir])
    if not readable:
        lines = p.stderr.strip().splitlines()
        CK.eq(p.returncode, 1, what + ": exit of an unreadable .llir")
        CK.check(len(lines) == 1 and
                lines[0].startswith("kwalk-irfacts: not readable by LLVM "), what + ": one line", p.stderr)
        return False
    if not CK.eq(p.returncode, 0, what + ": exit"):
        print(p.stderr)
        return True
    doc = yaml.load(p.stdout, Loader=Loader)
    ks = [k for k in doc["kernels"] if k["symbol"] == name]
    if not CK.eq(len(ks), 1, what + ": kernels named " + name):
        return True
    ir = ks[0]
    CK.eq(ir["arch"], arch, what + ": arch")
    CK.eq(ir["wave_size"], wave, what + ": wave size")
    nparams, truth = llir_truth(llir, name)
    CK.eq(len(ir["params"]), nparams, what + ": parameters")
    CK.check(nparams >= len(args), what + ": at least the TTIR's arguments")
    for i, (an, ptr) in enumerate(args):
        prm = ir["params"][i]
        CK.eq(prm["name"], an, what + ": param %d name" % i)
        CK.eq("addrspace" in prm, ptr, what + ": param %d is a pointer" % i)
    got = {}
    for x in ir.get("accesses") or []:
        got[(x["op"], x["space"])] = got.get((x["op"], x["space"]), 0) + 1
    CK.eq(got, truth, what + ": accesses by (op, space)")
    # every located fact lies inside the @triton.jit function, loops on for/while
    src_file = None
    for x in (ir.get("accesses") or []) + (ir.get("loops") or []):
        loc = x.get("location")
        if not loc:
            continue
        f = map_path(loc["file"], prefixes)
        frames = [loc] + (x.get("inlined_at") or [])
        outer = frames[-1]
        of = map_path(outer["file"], prefixes)
        rng = jit_range(of, name) if os.path.exists(of) else None
        if rng is None:
            continue
        src_file = of
        CK.check(rng[0] <= outer["line"] <= rng[1], what + ": %s line %d inside %s %d-%d" % (x.get("op", "loop"), outer["line"],
                                                          name, rng[0], rng[1]))
        if "trip_count" in x and os.path.exists(f):
            # the loop's own line (inside Triton's library when it comes from
            # a tl.reduce helper: read only where that file is here)
            text = open(f).read().splitlines()[loc["line"] - 1].strip()
            CK.check(re.match(r"(for|while)\b", text), what + ": loop line %d is a for/while" % loc["line"],
                     text)
    CK.check(src_file is not None, what + ": some location resolved to the source")
    return True


def check_bad_input(tool, llir, tmp):
    """Truncated and corrupted copies, an empty file, a folder: one line, exit 1."""
    data = open(llir, "rb").read()
    cases = {}
    for frac in (0.05, 0.33, 0.5, 0.9, 0.999):
        cases["cut%g" % frac] = data[:int(len(data) * frac)]
    mid = len(data) // 2
    cases["garbage"] = data[:mid] + b"\x00\xff{{{ define %" + data[mid + 7:]
    cases["empty"] = b""
    cases["binary"] = bytes(range(256)) * 64
    for what, blob in sorted(cases.items()):
        path = os.path.join(tmp, what + ".llir")
        open(path, "wb").write(blob)
        try:
            p = run_tool(tool, ["--arch", "gfx942", path], timeout=TOOL_LIMIT_S + 30)
        except subprocess.TimeoutExpired:
            CK.check(False, "bad input %s: finishes" % what)
            continue
        lines = p.stderr.strip().splitlines()
        if p.returncode == 0:
            # an empty module, or a cut that still parses: valid YAML, no crash
            CK.check(isinstance(yaml.load(p.stdout, Loader=Loader), dict),
                     "bad input %s: output is YAML" % what)
            continue
        CK.eq(p.returncode, 1, "bad input %s: exit" % what)
        CK.check(len(lines) == 1 and lines[0].startswith("kwalk-irfacts: "), "bad input %s: one kwalk-irfacts line" % what,
                 p.stderr)
    p = run_tool(tool, [tmp])
    CK.eq(p.returncode, 1, "a folder: exit")
    p = run_tool(tool, ["--wave", "7", llir])
    CK.eq(p.returncode, 2, "a bad --wave: usage exit")


def index_yaml(kwalk, cache, out, env=None, prefixes=()):
    e = dict(os.environ)
    e.update(env or {})
    maps = []
    for old, new in prefixes:
        maps += ["--map-prefix", "%s=%s" % (old, new)]
    subprocess.run([kwalk, "index", "--triton-cache", cache, "-o", out] + maps, check=True,
                   capture_output=True, text=True, env=e)
    return yaml.load(open(out), Loader=Loader)


def the_kernel(doc):
    ks = [k for k in doc["kernels"] if k.get("language") == "triton"]
    return ks[0] if len(ks) == 1 else None


def render(kwalk, db, tmp):
    outdir = os.path.join(tmp, "pages")
    subprocess.run([kwalk, "render", "--all", "--db", db, "-o", outdir], check=True,
                   capture_output=True, text=True)
    pages = [p for p in glob.glob(os.path.join(outdir, "*.md")) if not p.endswith("index.md")]
    return open(pages[0]).read() if len(pages) == 1 else ""


def check_index(kwalk, d, name, tmp, readable, prefixes):
    """kwalk index --triton-cache of a copy of one folder: the facts (their
    paths under --map-prefix), then the notes."""
    cache = os.path.join(tmp, "cache")
    copy = os.path.join(cache, os.path.basename(d))
    shutil.copytree(d, copy)
    args = ttir_args(os.path.join(copy, name + ".ttir"))
    db = os.path.join(tmp, "t.yaml")
    k = the_kernel(index_yaml(kwalk, cache, db, prefixes=prefixes))
    if not CK.check(k is not None, "index: one Triton kernel"):
        return
    arch = list(k["archs"].keys())[0]
    ir = k["archs"][arch].get("ir")
    note = (k.get("triton") or {}).get("ir_note")
    page = render(kwalk, db, tmp)
    if readable:
        CK.check(ir is not None, "index: IR facts on the arch", note or "")
        if ir:
            CK.eq([p["name"] for p in ir["params"][:len(args)]], [a[0] for a in args],
                  "index: names")
            files = set()
            for x in (ir.get("accesses") or []) + (ir.get("loops") or []):
                for fr in [x.get("location")] + (x.get("inlined_at") or []):
                    if fr:
                        files.add(fr["file"])
            for old, _ in prefixes:
                CK.check(not any(f == old or f.startswith(old + "/") for f in files), "index: no location left under " + old,
                         str(files))
            CK.check(k["location"]["file"] in files, "index: the kernel's file among the locations")
        CK.check("From the IR facts of the cache's `.llir`" in page,
                 "page: section 2 from the IR facts")
        n_loads = sum(1 for x in (ir or {}).get("accesses") or [] if x["op"] == "load")
        CK.check((n_loads > 0) == ("**Loads**" in page), "page: %d loads -> a Loads list" % n_loads)
        sec4 = page.split("## 4.", 1)[-1].split("## 5.", 1)[0]
        CK.check("Global bytes read per thread" in sec4, "page: section 4 per-thread work")
    else:
        CK.check(ir is None, "index: no IR facts from an unreadable .llir")
        CK.check((note or "").startswith(
            "IR facts: not readable by LLVM "), "index: ir_note says which LLVM", note or "")
    # truncated: the note, in one line, on the page too
    llir = os.path.join(copy, name + ".llir")
    text = open(llir).read()
    open(llir, "w").write(text[:len(text) // 2])
    k = the_kernel(index_yaml(kwalk, cache, db))
    note = (k.get("triton") or {}).get("ir_note") or ""
    CK.check(not any(a.get("ir") for a in k["archs"].values()), "truncated: no IR facts")
    CK.check(note.startswith("IR facts: not readable by LLVM ") and
            "\n" not in note, "truncated: ir_note", note)
    page = render(kwalk, db, tmp)
    CK.check(note and note.replace("`", "") in
            page.replace("\\", "").replace("`", ""), "truncated: the page has the note", note)
    # no tool
    k = the_kernel(index_yaml(kwalk, cache, db, {"KWALK_IRFACTS": "off"}))
    CK.eq((k.get("triton") or {}).get("ir_note"), "IR facts: not derived (KWALK_IRFACTS=off)",
          "KWALK_IRFACTS=off: ir_note")
    k = the_kernel(index_yaml(kwalk, cache, db, {"KWALK_IRFACTS": "/bin/false"}))
    CK.check(((k.get("triton") or {}).get("ir_note") or "").startswith(
        "IR facts: "), "a failing tool: a note")


def check_hook_merge(kwalk, tool, llvm_bin, corpus, root, tmp):
    """A hook sidecar whose arch holds the IR facts kwalk-irfacts gave the
    hook (no code-object fact), indexed with the corpus cache whose record of
    the arch has the code object's facts and no IR facts (KWALK_IRFACTS=off):
    the arch gets both, the resources as llvm-readelf --notes says, the IR
    facts the tool's record."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from test_triton_cache import notes
    sc = sorted(glob.glob(os.path.join(corpus, "sidecars", "_rms_norm_kernel-*.kwalk.yaml")))[0]
    text = open(sc).read().replace("/opt/kwalk/", root + "/")
    m = re.search(r"^    (gfx\w+): \{\}$", text, re.M)
    folder = re.search(r"^    cache_dir: (.*)$", text, re.M).group(1)
    if not CK.check(bool(m), "merge: the sidecar's empty arch record"):
        return
    arch, name = m.group(1), "_rms_norm_kernel"
    out = run_tool(tool, ["--arch", arch, "--wave", "64", os.path.join(folder, name + ".llir")])
    body = [x for x in out.stdout.split("\n- ", 1)[1].rstrip("\n").split("\n") if x != "..."]
    rec = "\n".join(["    %s:" % arch, "      ir:", "        " + body[0]] +
                    ["      " + x for x in body[1:]])
    d = os.path.join(tmp, "hook")
    os.mkdir(d)
    with open(os.path.join(d, os.path.basename(sc)), "w") as f:
        f.write(text[:m.start()] + rec + text[m.end():])
    db = os.path.join(tmp, "merge.yaml")
    e = dict(os.environ, KWALK_IRFACTS="off")
    subprocess.run([kwalk, "index", d, "--triton-cache", os.path.join(corpus, "cache"),
                    "--map-prefix", "/opt/kwalk=" + root, "-o", db], check=True,
                   capture_output=True, text=True, env=e)
    doc = yaml.load(open(db), Loader=Loader)
    ks = [k for k in doc["kernels"] if k.get("language") == "triton" and
          k["triton"].get("cache_dir") == folder]
    if not CK.check(len(ks) == 1, "merge: one kernel of that folder"):
        return
    a = ks[0]["archs"].get(arch) or {}
    kv, _ = notes(llvm_bin, os.path.join(folder, name + ".hsaco"))
    CK.eq((a.get("resources") or {}).get("vgpr"), int(kv["vgpr_count"]),
          "merge: resources.vgpr (llvm-readelf)")
    CK.eq((a.get("ir") or {}).get("symbol"), name, "merge: the hook's IR facts kept")
    want = yaml.load(out.stdout, Loader=Loader)["kernels"][0]
    CK.eq(len((a.get("ir") or {}).get("accesses") or []), len(want.get("accesses") or []),
          "merge: accesses as the tool wrote them")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kwalk", required=True)
    ap.add_argument("--tool", required=True)
    ap.add_argument("--llvm-bin", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--fixture")
    a = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(a.corpus)))
    root = os.path.dirname(root)
    sets = [("corpus", os.path.join(a.corpus, "cache"), [("/opt/kwalk", root)])]
    if a.fixture and os.path.isdir(a.fixture):
        sets.append(("fixture", os.path.join(a.fixture, "cache"),
                     [("/opt/aiter", os.path.join(a.fixture, "src"))]))
    else:
        print("note: the shared fixture is absent; the corpus cache only")
    readable_any = None
    for where, cache, prefixes in sets:
        es = entries(cache)
        CK.check(len(es) > 0, where + ": cache folders with a .llir")
        for d, name in es:
            r = check_entry(a.tool, a.llvm_bin, d, name, prefixes, where)
            if readable_any is None or r:
                readable_any = (d, name, r, prefixes)
    with tempfile.TemporaryDirectory() as tmp:
        d, name, readable, prefixes = readable_any
        os.mkdir(os.path.join(tmp, "bad"))
        check_bad_input(a.tool, os.path.join(d, name + ".llir"), os.path.join(tmp, "bad"))
        check_index(a.kwalk, d, name, tmp, readable, prefixes)
        if readable:
            check_hook_merge(a.kwalk, a.tool, a.llvm_bin, a.corpus, root, tmp)
    CK.finish()


if __name__ == "__main__":
    sys.exit(main())
