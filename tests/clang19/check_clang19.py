#!/usr/bin/env python3
"""check_clang19.py SRC CORPUS_OUT LLVM19_BIN: the sidecars that the clang-19
build of the plugin wrote for corpus TUs compiled with clang 19 (gfx942):
the kernels equal the code object's (llvm-objcopy + clang-offload-bundler +
llvm-readelf of LLVM 19), each kernel's register and LDS counts equal the
code object's metadata note, every launch sits on a KW:LAUNCH marker line of
its file and every marker of the TU has a launch, and IR facts and an ISA
listing are present. Independent of kwalk's own readers (PyYAML, LLVM tools)."""
import json
import os
import subprocess
import sys

import yaml


def run(*cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def code_object(obj, bin_dir, work):
    fatbin = os.path.join(work, "fatbin")
    co = os.path.join(work, "gfx942.co")
    run(os.path.join(bin_dir, "llvm-objcopy"), "--dump-section=.hip_fatbin=" + fatbin, obj,
        os.path.join(work, "discard.o"))
    run(os.path.join(bin_dir, "clang-offload-bundler"), "--unbundle", "--type=o",
        "--input=" + fatbin, "--targets=hipv4-amdgcn-amd-amdhsa--gfx942", "--output=" + co)
    return co


def metadata(co, bin_dir):
    out = run(os.path.join(bin_dir, "llvm-readelf"), "--notes", co)
    text = out[out.index("amdhsa.kernels:"):] if "amdhsa.kernels:" in out else ""
    text = text[:text.index("...")] if "..." in text else text
    kernels = yaml.safe_load(text)["amdhsa.kernels"]
    return {k[".name"]: k for k in kernels}


def main():
    src, out, bin_dir = sys.argv[1:4]
    markers = json.loads(run(sys.executable, os.path.join(src, "scripts", "kw-markers.py"),
                             os.path.join(src, "tests", "corpus")))
    failures = checks = 0

    def check(ok, what):
        nonlocal failures, checks
        checks += 1
        if not ok:
            failures += 1
            print("FAIL:", what)

    for tu in ["rope_kernels", "sample_kernels", "rmsnorm_quant_kernels"]:
        obj = os.path.join(out, tu + ".o")
        with open(obj + ".kwalk.yaml") as f:
            side = yaml.safe_load(f)
        check("19." in side["producer"]["clang_version"], f"{tu}: producer {side['producer']}")
        check(side["translation_unit"]["offload_archs"] == ["gfx942"], f"{tu}: offload_archs")
        md = metadata(code_object(obj, bin_dir, out), bin_dir)
        ours = {k["symbol"]: k for k in side["kernels"] if "gfx942" in k.get("archs", {})}
        check(set(ours) == set(md), f"{tu}: kernels {sorted(ours)} vs code object {sorted(md)}")
        for sym in sorted(set(ours) & set(md)):
            a = ours[sym]["archs"]["gfx942"]
            r = a.get("resources", {})
            for key, note in [("vgpr", ".vgpr_count"), ("sgpr", ".sgpr_count"),
                              ("lds_bytes", ".group_segment_fixed_size"),
                              ("scratch_bytes", ".private_segment_fixed_size")]:
                check(r.get(key) == md[sym][note], f"{tu}: {sym}: {key} {r.get(key)} vs {md[sym][note]}")
            check(bool(a.get("isa")), f"{tu}: {sym}: no ISA listing")
            check(isinstance(a.get("ir"), dict) and "accesses" in a["ir"], f"{tu}: {sym}: no IR facts")
            check(bool(ours[sym].get("name")), f"{tu}: {sym}: no printed name (device facts lost)")
        src_file = os.path.realpath(os.path.join(src, "tests", "corpus", tu + ".hip"))
        want = {m["line"] for m in markers.values()
                if m["kind"] == "LAUNCH" and m["file"] == tu + ".hip"}
        got = {l["location"]["line"] for l in side.get("launches", [])
               if os.path.realpath(l["location"]["file"]) == src_file}
        check(want and got == want, f"{tu}: launch lines {sorted(got)} vs KW:LAUNCH {sorted(want)}")
    print(f"clang19.corpus: {checks} checks, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
