#!/usr/bin/env python3
"""ck_build.py: compiles the ck-tile fixture (real composable_kernel code,
../shared/fixtures/ck-tile) with its own compile.sh, plain or with the plugin,
and checks that the plugin changed nothing.

  ck_build.py build --mode plain|plugin ARGS   -> WORK/MODE/obj (+ WORK/plugin/side)
  ck_build.py identical ARGS                   objects equal, no kwalk warning

ARGS: --fixture DIR --work DIR --rsp FILE --clangxx CLANG++ --llvm-bin DIR
      --plugin LIBKWALK --kwalk KWALK (what every ck.* check takes; ckargs()
      parses them). Exit 77 (ctest SKIP) when the fixture is absent."""
import argparse
import filecmp
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kwcheck import Checker  # noqa: E402

TUS = ("gemm_basic", "reduce", "ln_instance", "ln_api", "ln_main")


def ckargs(argv=None, extra=None):
    """The arguments every ck.* test takes; exits 77 without the fixture."""
    ap = argparse.ArgumentParser()
    if extra:
        extra(ap)
    for a in ("fixture", "work", "rsp", "clangxx", "llvm-bin", "plugin", "kwalk"):
        ap.add_argument("--" + a, required=True)
    args = ap.parse_args(argv)
    if not os.path.isfile(os.path.join(args.fixture, "compile.sh")):
        print("SKIP: the ck-tile fixture (%s) is absent" % args.fixture)
        sys.exit(77)
    return args


def build(args):
    out = os.path.join(args.work, args.mode)
    shutil.rmtree(out, ignore_errors=True)
    cmd = ["bash", os.path.join(args.fixture, "compile.sh"), out, args.rsp]
    cmd += [args.plugin if args.mode == "plugin" else ""] + args.tu
    env = dict(os.environ, CXX=args.clangxx)
    r = subprocess.run(cmd, env=env)
    want = args.tu or list(TUS)
    objs = [t for t in want if os.path.isfile(os.path.join(out, "obj", t + ".o"))]
    print("ck_build: %s: %d of %d TUs compiled" % (args.mode, len(objs), len(want)))
    return 0 if r.returncode == 0 and len(objs) == len(want) else 1


def identical(args):
    """Every TU the plain build compiled (all, or its --tu share for this major)
    byte-identical with the plugin's; no TU of the plugin build printed kwalk:."""
    c = Checker("ck.identical")
    plain = [t for t in TUS if os.path.isfile(os.path.join(args.work, "plain", "obj", t + ".log"))]
    c.check(len(plain) > 0, "the plain build compiled no TU (run ck.build_plain first)")
    for t in TUS:
        log = os.path.join(args.work, "plugin", "obj", t + ".log")
        text = open(log, errors="replace").read() if os.path.isfile(log) else ""
        c.check("kwalk:" not in text, "%s: the plugin printed: %s" % (t, text.strip()[:300]))
        if t not in plain:
            continue
        a = os.path.join(args.work, "plain", "obj", t + ".o")
        b = os.path.join(args.work, "plugin", "obj", t + ".o")
        if c.check(os.path.isfile(a) and os.path.isfile(b), "%s: an object is missing" % t):
            c.check(filecmp.cmp(a, b, shallow=False), "%s: objects differ with the plugin" % t)
    c.finish()


def main():
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "build":
        def extra(ap):
            ap.add_argument("--mode", required=True, choices=("plain", "plugin"))
            ap.add_argument("--tu", action="append", default=[], choices=TUS,
                            help="compile only this TU (repeat; default: all)")
        args = ckargs(sys.argv[2:], extra)
        sys.exit(build(args))
    if cmd == "identical":
        identical(ckargs(sys.argv[2:]))
        return
    sys.exit("usage: ck_build.py build --mode plain|plugin ARGS | identical ARGS")


if __name__ == "__main__":
    main()
