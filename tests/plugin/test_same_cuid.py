#!/usr/bin/env python3
"""test_same_cuid: two compiles of the same TU with the same -cuid at the same
time, into different output directories, sharing one TMPDIR (where device
fragments go when no output directory is given). That is what happens when
two build trees of one project build at once on a machine (the corpus build
fixes -cuid to the object's name), or a file is compiled twice in one build.

Each compile must come out whole, or say that it did not: every sidecar lists
the code object's kernels with their AST facts (printed name, template, source
location: what only the device jobs' fragments carry), or the compile prints a
`kwalk:` warning. A sidecar whose kernels are bare code-object entries with no
warning is a silent loss. Up to three rounds (a race may not show every time);
the first round with a loss fails the test.
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import kwcap  # noqa: E402
from kwcheck import Checker  # noqa: E402

TU = "rope_kernels.hip"
ROUNDS = 3


def main():
    args = kwcap.parse_args()
    ck = Checker("test_same_cuid")
    root = kwcap.tmpdir(args, "cuid")
    try:
        src = os.path.join(args.corpus_src, TU)
        tmp = os.path.join(root, "tmp")
        os.makedirs(tmp)
        for rnd in range(ROUNDS):
            procs = []
            for side in ("a", "b"):
                out = os.path.join(root, "r%d" % rnd, side)
                os.makedirs(out)
                obj = os.path.join(out, "rope_kernels.o")
                cmd = kwcap.compile_cmd(args, src, obj, extra=["-cuid=kwcap_same_cuid"])
                p = subprocess.Popen(cmd, env=kwcap.clean_env(TMPDIR=tmp), stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
                procs.append((side, obj, p))
            lost = False
            for side, obj, p in procs:
                so, se = p.communicate()
                what = "round %d, compile %s" % (rnd + 1, side)
                if not ck.check(p.returncode == 0, "%s: compile failed rc=%d: %s"
                                % (what, p.returncode, (so + se)[-2000:])):
                    continue
                warned = kwcap.kwalk_lines(so + se)
                sc = obj + ".kwalk.yaml"
                if not ck.check(os.path.isfile(sc) or warned, what + ": no sidecar and no warning"):
                    continue
                if not os.path.isfile(sc):
                    continue
                doc = kwcap.load_yaml_file(sc)
                kernels = doc.get("kernels") or []
                bare = sorted(k.get("symbol") for k in kernels
                              if not (k.get("name") and k.get("template") and k.get("location")))
                ok = ck.check(kernels and (not bare or warned),
                              "%s: %d of %d kernels have no AST facts (name, template, location: "
                              "their device fragments were lost) and no kwalk: warning was printed"
                              % (what, len(bare), len(kernels)))
                lost = lost or not ok
            if lost:
                break
        ck.eq(kwcap.files_under(tmp), [], "files left in the shared TMPDIR")
    finally:
        kwcap.cleanup(args, root)
    ck.finish()


if __name__ == "__main__":
    main()
