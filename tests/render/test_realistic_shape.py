#!/usr/bin/env python3
"""test_realistic_shape.py: the generated build of realistic_build.py (what
bench_realistic.py measures) has the per-kernel size and shape of the
corpus's real sidecars and objects. Every figure is computed here, the same
way, from the corpus sidecars the plugin wrote (PyYAML) and their objects
(clang-offload-bundler, llvm-objdump), and from the generated sidecars
(decompressed by the zstd command) and objects; never from kwalk's output.

Figures per kernel instantiation, each within TOLERANCE of the corpus's:
sidecar bytes (the YAML text), listing lines (instructions llvm-objdump
prints in the kernel's function, summed over the code objects), IR records
(accesses, loops, cross-lane operations, idioms, over the archs), device
call edges (the TU's `device_calls` plus the kernels' own `calls`), launches,
template arguments. And, exactly: the kernel count asked for, kernel symbols
unique across the build, each sidecar's `code_objects` sizes and MD5s those
of the code objects clang-offload-bundler unbundles from the generated
object, and each kernel symbol a function of those code objects.

usage: test_realistic_shape.py --corpus-out DIR --llvm-bin DIR
"""
import argparse
import glob
import hashlib
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
sys.path.insert(0, HERE)
import yaml  # noqa: E402

import kwcheck  # noqa: E402
import kwllvm  # noqa: E402
import kwrun  # noqa: E402
import realistic_build  # noqa: E402

# the generated build repeats whole real sidecars; only the last round is a
# choice of them, so the mean per kernel drifts from the corpus's by that
# round's mix: 10% bounds it for the size chosen below
TOLERANCE = 0.10
FUNC_RE = re.compile(r"^[0-9a-f]+ <(.+)>:$")


def text_of(path):
    if path.endswith(".zst"):
        return kwrun.run(["zstd", "-dc", path], must=True).stdout
    with open(path, encoding="utf-8") as f:
        return f.read()


def code_objects(llvm_bin, obj, work):
    """[(target id, bytes)] of the object's offload bundle (its .hip_fatbin
    section, by llvm-objcopy), as clang-offload-bundler unbundles it."""
    bundler = kwllvm.tool(llvm_bin, "clang-offload-bundler")
    fatbin = os.path.join(work, "fatbin.hipfb")
    if os.path.exists(fatbin):
        os.unlink(fatbin)
    subprocess.run([kwllvm.tool(llvm_bin, "llvm-objcopy"), "--dump-section", ".hip_fatbin=" + fatbin,
                    obj, os.devnull], capture_output=True)
    if not os.path.exists(fatbin):
        return []
    p = subprocess.run([bundler, "--list", "--type=o", "--input=" + fatbin], capture_output=True, text=True)
    out = []
    for tid in p.stdout.split() if p.returncode == 0 else []:
        if not tid.startswith("hip"):
            continue
        dst = os.path.join(work, "co.bin")
        kwrun.run([bundler, "--unbundle", "--type=o", "--input=" + fatbin,
                            "--targets=" + tid, "--output=" + dst], must=True)
        with open(dst, "rb") as f:
            out.append((tid, f.read()))
    return out


def listing_lines(llvm_bin, blob, work):
    """{function symbol: instruction lines} of a code object, by llvm-objdump."""
    path = os.path.join(work, "co.o")
    with open(path, "wb") as f:
        f.write(blob)
    p = kwrun.run([kwllvm.tool(llvm_bin, "llvm-objdump"), "-d", "--no-show-raw-insn", path], must=True)
    out, cur = {}, None
    for line in p.stdout.splitlines():
        m = FUNC_RE.match(line)
        if m:
            cur = m.group(1)
            out[cur] = 0
        elif cur and line.startswith("\t") and line.strip():
            out[cur] += 1
        elif not line.strip():
            cur = None
    return out


def figures(sidecars, llvm_bin, work, check, strict):
    """Totals over the sidecars: kernels, bytes, listing lines, IR records,
    call edges, launches, template args; and the kernel symbols."""
    tot = dict(kernels=0, bytes=0, listing=0, ir=0, calls=0, launches=0, targs=0)
    syms = []
    for side in sidecars:
        text = text_of(side)
        doc = yaml.load(text, Loader=kwllvm.YAML_LOADER)
        kernels = doc.get("kernels") or []
        tot["kernels"] += len(kernels)
        tot["bytes"] += len(text.encode("utf-8"))
        tot["launches"] += len(doc.get("launches") or [])
        tot["calls"] += sum(len(v.get("calls") or []) for v in (doc.get("device_calls") or {}).values())
        for k in kernels:
            syms.append(k["symbol"])
            tot["targs"] += len(k.get("template_args") or [])
            tot["calls"] += len(k.get("calls") or [])
            for a in (k.get("archs") or {}).values():
                ir = (a or {}).get("ir") or {}
                tot["ir"] += sum(len(ir.get(key) or []) for key in ("accesses", "loops", "cross_lane", "idioms"))
        tu = doc["translation_unit"]
        cos = code_objects(llvm_bin, tu["object"], work)
        named = tu.get("code_objects") or []
        if strict:
            got = sorted((len(b), hashlib.md5(b).hexdigest()) for _, b in cos)
            want = sorted((c["bytes"], c["md5"]) for c in named)
            check.eq(got, want, f"{side}: code objects (bytes, md5) unbundled vs named")
        funcs = {}
        for _, blob in cos:
            for sym, n in listing_lines(llvm_bin, blob, work).items():
                funcs[sym] = funcs.get(sym, 0) + n
        missing = [k["symbol"] for k in kernels if k["symbol"] not in funcs]
        if strict:
            check.eq(missing, [], f"{side}: kernels that are no function of its code objects")
        for k in kernels:
            tot["listing"] += funcs.get(k["symbol"], 0)
    return tot, syms


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus-out", required=True)
    ap.add_argument("--llvm-bin", required=True)
    a = ap.parse_args()
    check = kwcheck.Checker("render.realistic_shape")
    real = [p for p in sorted(glob.glob(os.path.join(a.corpus_out, "*.kwalk.yaml")))
            if yaml.load(text_of(p), Loader=kwllvm.YAML_LOADER).get("kernels")]
    if not real:
        sys.exit(f"no corpus sidecar with kernels under {a.corpus_out}")
    with tempfile.TemporaryDirectory(prefix="kwalk-realistic-") as tmp:
        work = os.path.join(tmp, "work")
        os.makedirs(work)
        rtot, _ = figures(real, a.llvm_bin, work, check, strict=False)
        # three rounds of the corpus and a part of a fourth
        want = 3 * rtot["kernels"] + rtot["kernels"] // 3
        n, sides, _, distinct = realistic_build.write_build(a.corpus_out, os.path.join(tmp, "build"), want)
        check.eq(n, want, "kernels generated")
        check.check(all(s.endswith(".kwalk.yaml.zst") for s in sides), "sidecars compressed by default")
        gtot, syms = figures(sides, a.llvm_bin, work, check, strict=True)
        check.eq(gtot["kernels"], want, "kernels in the generated sidecars")
        check.eq(len(set(syms)), len(syms), "kernel symbols unique across the build")
        check.eq(distinct, len(syms), "distinct symbols write_build counted")
        for key in ("bytes", "listing", "ir", "calls", "launches", "targs"):
            r = rtot[key] / rtot["kernels"]
            g = gtot[key] / gtot["kernels"]
            print(f"per kernel {key}: corpus {r:.1f}, generated {g:.1f}")
            check.check(r > 0, f"corpus has {key}")
            check.check(abs(g - r) <= TOLERANCE * r,
                       f"per kernel {key}: generated {g:.1f} vs corpus {r:.1f} (tolerance {TOLERANCE:.0%})")
    check.finish()


if __name__ == "__main__":
    main()
