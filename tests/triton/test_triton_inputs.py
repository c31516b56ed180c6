#!/usr/bin/env python3
"""`kwalk index --triton-cache` on what is not a good cache (one error line,
exit 1, or a usage error, exit 2; never a crash; also 60 random damages of
NAME.json, the TTIR and the Python source), and a hook's sidecar
written here by hand as docs/sidecar-schema.md says the hook writes it,
indexed with the cache: the hook's record (its constexprs, its launch and
call chain) is kept and gains the cache's code-object facts for the same
compile. Ground truth: the fixture's NAME.json, manifest.json and the
wrapper's `kernel[grid](` line found in its source here. Exit 77 (skip)
when ../shared/fixtures/triton-aiter-3.6 is absent."""
import argparse
import glob
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kwcheck import Checker  # noqa: E402

Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

C = Checker("triton.inputs")
eq = C.eq


def kwalk(k, *args):
    p = subprocess.run([k] + list(args), capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def one_error(what, r, rc=1):
    code, _, err = r
    eq(code, rc, what + ": exit")
    lines = err.splitlines()
    eq(len(lines), 1, what + ": one stderr line")
    eq(bool(lines) and lines[0].startswith("kwalk: "), True, what + ": 'kwalk: ' error")


def bad_inputs(k, fx, tmp):
    one_error("missing dir", kwalk(k, "index", "--triton-cache", os.path.join(tmp, "nope"),
                                   "-o", os.path.join(tmp, "x.db")))
    empty = os.path.join(tmp, "empty")
    os.mkdir(empty)
    one_error("no cache folders", kwalk(k, "index", "--triton-cache", empty, "-o",
                                        os.path.join(tmp, "x.db")))
    one_error("--map-prefix without =", kwalk(k, "index", "--triton-cache", empty,
                                              "--map-prefix", "abc"), rc=2)
    # --map-prefix maps the sidecars' paths too: without --triton-cache it is
    # no usage error; an empty folder is then the only error
    r = kwalk(k, "index", empty, "--map-prefix", "a=b", "-o", os.path.join(tmp, "x.db"))
    one_error("--map-prefix without --triton-cache, no sidecar", r, rc=1)
    eq("usage" in r[2], False, "--map-prefix without --triton-cache: not a usage error")
    src = sorted(glob.glob(os.path.join(fx, "cache", "*")))[0]
    name = os.path.basename(glob.glob(os.path.join(src, "__grp__*.json"))[0])[7:-5]
    damages = {
        "truncated NAME.json": (name + ".json", lambda b: b[: len(b) // 2]),
        "NAME.json not an object": (name + ".json", lambda b: b"[1, 2]"),
        "NAME.json without hash": (name + ".json", lambda b: b'{"name": "k"}'),
        "TTIR without tt.func": (name + ".ttir", lambda b: b"module {\n}\n"),
        "TTIR signature cut": (name + ".ttir",
                               lambda b: b[: b.index(b"tt.func public") + 40] + b"\n"),
        "hsaco not ELF": (name + ".hsaco", lambda b: b"\x7fELF" + b"\0" * 60),
    }
    for what, (file, damage) in sorted(damages.items()):
        d = os.path.join(tmp, "bad", "F")
        shutil.rmtree(os.path.join(tmp, "bad"), ignore_errors=True)
        shutil.copytree(src, d)
        path = os.path.join(d, file)
        data = open(path, "rb").read()
        open(path, "wb").write(damage(data))
        one_error(what, kwalk(k, "index", "--triton-cache", os.path.join(tmp, "bad"), "-o",
                              os.path.join(tmp, "x.db")))


def mutations(k, fx, tmp, n=60):
    """Damaged NAME.json, TTIR and Python source (random byte edits, fixed
    seed) of the smallest specialization: exit 0, or 1 with one error line;
    never a crash (or, in the sanitized build, a sanitizer report)."""
    folder = min((d for d in glob.glob(os.path.join(fx, "cache", "*"))
                  if glob.glob(os.path.join(d, "*.hsaco"))),
                 key=lambda d: os.path.getsize(glob.glob(os.path.join(d, "*.hsaco"))[0]))
    name = os.path.basename(glob.glob(os.path.join(folder, "__grp__*.json"))[0])[7:-5]
    ttir = open(os.path.join(folder, name + ".ttir"), "rb").read()
    m = re.search(rb'loc\("/opt/aiter/([^"]+\.py)"', ttir)
    pyrel = m.group(1).decode()
    py = open(os.path.join(fx, "src", pyrel), "rb").read()
    meta = open(os.path.join(folder, name + ".json"), "rb").read()
    rng = random.Random(13)
    root = os.path.join(tmp, "mut")
    for i in range(n):
        shutil.rmtree(root, ignore_errors=True)
        shutil.copytree(folder, os.path.join(root, "cache", "F"))
        for p in glob.glob(os.path.join(root, "cache", "F", "*")):
            os.chmod(p, 0o644)
        os.makedirs(os.path.dirname(os.path.join(root, "src", pyrel)))
        which, data = rng.choice([(name + ".ttir", ttir), (name + ".json", meta), ("py", py)])
        b = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            op = rng.randrange(4)
            at = rng.randrange(len(b) + 1)
            if op == 0 and b:
                del b[at:at + rng.randint(1, 200)]
            elif op == 1:
                b[at:at] = bytes(rng.choice(b'(){}<>[]",:=#%\n 0123456789') for _ in range(3))
            elif op == 2 and at < len(b):
                b[at] = rng.randrange(256)
            else:
                b = b[:at]
        dest = (os.path.join(root, "src", pyrel) if which == "py"
                else os.path.join(root, "cache", "F", which))
        if which != "py":
            open(os.path.join(root, "src", pyrel), "wb").write(py)
        open(dest, "wb").write(bytes(b))
        code, _, err = kwalk(k, "index", "--triton-cache", os.path.join(root, "cache"),
                             "--map-prefix", "/opt/aiter=" + os.path.join(root, "src"),
                             "-o", os.path.join(root, "x.db"))
        what = "mutation %d (%s)" % (i, which)
        eq(code in (0, 1), True, what + ": exit 0 or 1")
        lines = err.splitlines()
        eq(len(lines) <= (1 if code else 0), True, what + ": at most one stderr line")
        if code:
            eq(lines[0].startswith("kwalk: ") if lines else False, True,
                  what + ": 'kwalk: ' error")


def hook_join(k, fx, tmp):
    man = json.load(open(os.path.join(fx, "manifest.json")))
    row = [r for r in man["compiled"]
           if r["kernel"] == "_static_per_tensor_quant_fp8_i8_kernel" and r["arch"] == "gfx942"]
    eq(len(row), 1, "one manifest row for the hook test")
    row = row[0]
    folder = None
    for j in glob.glob(os.path.join(fx, "cache", "*", row["kernel"] + ".json")):
        meta = json.load(open(j))
        if meta["arch"] == row["arch"]:
            folder = os.path.dirname(j)
            break
    src = os.path.join(fx, "src")
    wrapper = os.path.join(src, "aiter/ops/triton/quant/quant.py")
    launch_line = next(i for i, l in enumerate(open(wrapper), 1)
                       if re.match(r"\s*%s\[grid\]\(" % row["kernel"], l))
    kfile = os.path.join(src, "aiter/ops/triton/_triton_kernels/quant/quant.py")
    symbol = "%s@%s" % (meta["name"], meta["hash"])
    cx = "\n".join("    - {name: %s, value: \"%s\", from: hook}" % (n, v)
                   for n, v in row["constexprs"].items())
    doc = """kwalk_schema: 1
producer: {name: kwalk_triton, version: "0.1.0"}
translation_unit: {source: %(kfile)s, object: %(folder)s/%(name)s.hsaco, offload_archs: [gfx942]}
kernels:
- symbol: %(symbol)s
  name: %(name)s
  language: triton
  location: {file: %(kfile)s, line: 1, column: 1}
  params:
  - {name: qx_ptr, type: "*fp8e4b8"}
  triton:
    hash: %(hash)s
    options: [{name: num_warps, value: 8}]
    constexprs:
%(cx)s
    cache_hit: true
  archs: {}
launches:
- kernel: %(symbol)s
  kernel_name: %(name)s
  kind: triton
  location: {file: %(wrapper)s, line: %(line)d, column: 5}
  function: static_per_tensor_quant_fp8_i8
  call_chain:
  - {function: main, location: {file: /home/u/run.py, line: 9, column: 1}}
  config:
    grid: {expr: grid}
  args:
  - {param: qx_ptr, expr: qx}
entries: []
host_calls: []
...
""" % dict(kfile=kfile, folder=folder, name=row["kernel"], symbol=symbol, hash=meta["hash"],
           cx=cx, wrapper=wrapper, line=launch_line)
    twice = os.path.join(tmp, "twice.yaml")
    code, _, err = kwalk(k, "index", "--triton-cache", folder, "--triton-cache",
                         os.path.dirname(folder) + "/./" + os.path.basename(folder), "-o", twice)
    eq((code, err), (0, ""), "a folder given twice: exit")
    if code == 0:
        eq(len(yaml.load(open(twice), Loader=Loader)["translation_units"]), 1,
              "a folder given twice: read once")
    hook = os.path.join(tmp, "hook")
    os.mkdir(hook)
    open(os.path.join(hook, "s.kwalk.yaml"), "w").write(doc)
    db = os.path.join(tmp, "j.yaml")
    code, out, err = kwalk(k, "index", hook, "--triton-cache", folder, "--map-prefix",
                           "/opt/aiter=" + src, "-o", db)
    eq((code, err), (0, ""), "hook + cache: exit")
    if code:
        return
    ix = yaml.load(open(db), Loader=Loader)
    ks = [x for x in ix["kernels"] if x["symbol"] == symbol]
    eq(len(ks), 1, "hook + cache: one kernel of the symbol")
    kk = ks[0]
    eq({c["name"]: c["value"] for c in kk["triton"]["constexprs"]}, {n: str(v) for n, v in row["constexprs"].items()},
          "hook + cache: the hook's constexprs kept")
    eq(kk["triton"].get("cache_hit"), True, "hook + cache: cache_hit kept")
    eq("isa" in kk["archs"]["gfx942"], True, "hook + cache: the cache's code object facts added")
    la = [l for tu in ix["translation_units"] for l in tu["launches"]]
    eq([(l["kind"], l["location"]["line"]) for l in la], [("triton", launch_line)],
          "hook + cache: the launch")
    eq(la[0]["call_chain"][0]["function"], "main", "hook + cache: call chain")
    code, out, err = kwalk(k, "list", "--db", db)
    rows = [l.split("\t") for l in out.splitlines() if l.split("\t")[1] == symbol]
    eq(rows[0][3] if rows else None, "%s:%d" % (wrapper, launch_line),
          "kwalk list: the launch site")
    eq(rows[0][6] if rows else None, "triton", "kwalk list: kind")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kwalk", required=True)
    ap.add_argument("--fixture", required=True)
    a = ap.parse_args()
    if not os.path.isfile(os.path.join(a.fixture, "manifest.json")):
        C.skip("the shared Triton fixture %s is absent (../shared not checked out)" % a.fixture)
    with tempfile.TemporaryDirectory() as tmp:
        bad_inputs(a.kwalk, a.fixture, tmp)
        mutations(a.kwalk, a.fixture, tmp)
        hook_join(a.kwalk, a.fixture, tmp)
    C.finish()


if __name__ == "__main__":
    sys.exit(main())
