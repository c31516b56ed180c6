#!/usr/bin/env python3
"""test_clang_major.py: libkwalk.so in a clang of another major refuses with
one line and changes nothing; in its own major it works.

  --other-clangxx: a clang++ whose major (from its own `--version`) differs
    from the one the plugin was built for. src/major.hip is compiled with it
    for one arch (plain clang: -nogpuinc -nogpulib, a fixed -cuid, a private
    TMPDIR), without and with -fplugin=libkwalk.so -fplugin-arg-kwalk-out=DIR:
    both exit 0; the plugin's compile prints exactly one `kwalk:` line, a
    warning naming both majors, and otherwise the same stderr as the plain
    one; the objects are byte-identical; no sidecar appears (out dir, next to
    the object) and no fragment is left in TMPDIR.
  --clangxx: the clang++ of the build (same major): the same compile with the
    plugin prints no `kwalk:` line and writes a sidecar whose kernel and launch
    are the source's (the KW:LAUNCH marker's line): the loader loaded the real
    plugin, and its options (out=DIR) reached it.
Exit 77 (skipped) when the other clang is not installed. PyYAML reads the sidecar."""
import argparse
import filecmp
import os
import re
import subprocess
import sys
import tempfile

import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import kwzstd  # noqa: E402
from kwcheck import Checker  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "src", "major.hip")


def major_of(clangxx):
    """The major `clang++ --version` reports ("... clang version 19.1.7 ...")."""
    p = subprocess.run([clangxx, "--version"], capture_output=True, text=True)
    m = re.search(r"clang version (\d+)\.", p.stdout)
    return int(m.group(1)) if m else None


def compile_one(clangxx, arch, obj, tmp, plugin_flags):
    cmd = [clangxx, "-x", "hip", "-nogpuinc", "-nogpulib", "--offload-arch=" + arch, "-O2",
           "-cuid=kwmajor", *plugin_flags, "-c", SRC, "-o", obj]
    env = dict(os.environ, TMPDIR=tmp)
    env.pop("KWALK_OUT", None)
    return subprocess.run(cmd, capture_output=True, text=True, env=env)


def listing(d):
    return sorted(os.path.relpath(os.path.join(r, f), d)
                  for r, _, fs in os.walk(d) for f in fs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--plugin", required=True, help="libkwalk.so of this build")
    ap.add_argument("--built-major", type=int, required=True,
                    help="LLVM_VERSION_MAJOR of the build")
    ap.add_argument("--clangxx", required=True, help="the build's clang++")
    ap.add_argument("--other-clangxx", required=True, help="a clang++ of another major")
    ap.add_argument("--arch", required=True, help="an arch both clangs know")
    a = ap.parse_args()
    c = Checker("clang_major")
    if not os.access(a.other_clangxx, os.X_OK):
        c.skip("%s is not installed" % a.other_clangxx)
    other = major_of(a.other_clangxx)
    check = c.check

    if not check(other is not None and other != a.built_major,
                 "%s reports major %r, want one other than %d" % (a.other_clangxx, other,
                                                                  a.built_major)):
        other = -1
    with tempfile.TemporaryDirectory(prefix="kwalk-major-") as root:
        # 1. Another major: one warning, nothing else changes.
        dirs = {k: os.path.join(root, k) for k in ("ref", "plug", "out", "tmp_ref", "tmp_plug")}
        for d in dirs.values():
            os.makedirs(d)
        ref_o, plug_o = os.path.join(dirs["ref"], "m.o"), os.path.join(dirs["plug"], "m.o")
        ref = compile_one(a.other_clangxx, a.arch, ref_o, dirs["tmp_ref"], [])
        plug = compile_one(a.other_clangxx, a.arch, plug_o, dirs["tmp_plug"],
                           ["-fplugin=" + a.plugin, "-fplugin-arg-kwalk-out=" + dirs["out"]])
        check(ref.returncode == 0, "clang %d without the plugin: rc %d\n%s"
              % (other, ref.returncode, ref.stderr[-2000:]))
        check(plug.returncode == 0, "clang %d with the plugin: rc %d\n%s"
              % (other, plug.returncode, plug.stderr[-2000:]))
        lines = plug.stderr.splitlines()
        kw = [l for l in lines if l.startswith("kwalk:")]
        if check(len(kw) == 1, "clang %d: %d kwalk lines, want 1: %r" % (other, len(kw), kw)):
            w = kw[0]
            check(w.startswith("kwalk: warning: "), "not a warning: %r" % w)
            check("built for clang %d " % a.built_major in w, "does not name clang %d: %r"
                  % (a.built_major, w))
            check("loaded into clang %d" % other in w, "does not name clang %d: %r" % (other, w))
            check("-DLLVM_DIR=" in w, "no rebuild hint: %r" % w)
        check([l for l in lines if not l.startswith("kwalk:")] == ref.stderr.splitlines(),
              "clang %d: other stderr differs: %r vs %r" % (other, plug.stderr, ref.stderr))
        if os.path.exists(ref_o) and os.path.exists(plug_o):
            check(filecmp.cmp(ref_o, plug_o, shallow=False),
                  "clang %d: the object differs with the plugin" % other)
        check(listing(dirs["plug"]) == ["m.o"], "clang %d: next to the object: %r"
              % (other, listing(dirs["plug"])))
        check(listing(dirs["out"]) == [], "clang %d: out dir: %r" % (other, listing(dirs["out"])))
        check(listing(dirs["tmp_plug"]) == [], "clang %d: TMPDIR left %r"
              % (other, listing(dirs["tmp_plug"])))

        # 2. Its own major: the loader loads the real plugin.
        own_dir, own_out, own_tmp = (os.path.join(root, k) for k in ("own", "own_out", "own_tmp"))
        for d in (own_dir, own_out, own_tmp):
            os.makedirs(d)
        own = compile_one(a.clangxx, a.arch, os.path.join(own_dir, "m.o"), own_tmp,
                          ["-fplugin=" + a.plugin, "-fplugin-arg-kwalk-out=" + own_out])
        check(own.returncode == 0 and "kwalk:" not in own.stderr,
              "clang %d with the plugin: rc %d\n%s" % (a.built_major, own.returncode, own.stderr))
        # the plugin's default form: FILE.kwalk.yaml.zst
        sidecars = [f for f in listing(own_out) if f.endswith(".kwalk.yaml.zst")]
        if check(len(sidecars) == 1, "clang %d: sidecars %r" % (a.built_major, listing(own_out))):
            doc = yaml.safe_load(kwzstd.read_text(os.path.join(own_out, sidecars[0])))
            line = next(i for i, l in enumerate(open(SRC).read().splitlines(), 1)
                        if "KW:LAUNCH major.scale" in l)
            syms = [k.get("symbol") for k in doc.get("kernels") or []]
            check(syms == ["_Z14kw_major_scaleIfEvPT_S0_i"], "sidecar kernels %r" % syms)
            at = [(l["location"]["line"], l.get("kernel")) for l in doc.get("launches") or []]
            check(at == [(line, "_Z14kw_major_scaleIfEvPT_S0_i")],
                  "sidecar launches %r, want the KW:LAUNCH line %d" % (at, line))
            check("clang version %d." % a.built_major in doc["producer"]["clang_version"],
                  "sidecar producer %r is not clang %d" % (doc["producer"], a.built_major))
    c.note("plugin for clang %d, other clang %s" % (a.built_major, other))
    c.finish()


if __name__ == "__main__":
    sys.exit(main())
