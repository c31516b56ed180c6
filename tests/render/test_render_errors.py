#!/usr/bin/env python3
"""test_render_errors.py: `kwalk render` and `kwalk map` on bad input: every
error is exactly one "kwalk: ..." line on stderr with nothing on stdout, exit
1 for bad input (unknown kernel, empty or unreadable database, unwritable
output) and 2 for a bad command line (--shape syntax, --time-us, options);
a KERNEL meaning several instantiations of one template gives the kernel's
page naming each (their symbols in the index), one meaning several templates
names the count and lists every kernel (the test splits the printed names). No sanitizer report may appear.
"""
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import kwrender as kr  # noqa: E402
from kwcheck import Checker  # noqa: E402


def one_line(c, what, args, code, contains=None):
    rc, out, err = kr.run(args)
    c.check(rc == code, f"{what}: exit {rc}, wanted {code} ({err!r})")
    c.check(out == "", f"{what}: stdout {out[:200]!r}")
    lines = err.split("\n")
    c.check(len(lines) == 2 and lines[1] == "" and lines[0].startswith("kwalk: "),
            f"{what}: stderr is not one 'kwalk: ' line: {err!r}")
    c.check("Sanitizer" not in err and "runtime error" not in err, f"{what}: sanitizer report")
    if contains:
        c.check(contains in err, f"{what}: {err!r} lacks {contains!r}")


def main():
    args = kr.parse_args()
    c = Checker("test_render_errors")
    tmp = kr.mkdtemp(args, "kwalk-render-errors-")
    K = args.kwalk
    try:
        db, index = kr.build_index(args, tmp)
        one_line(c, "unknown kernel", [K, "render", "no_such_kernel_xyz", "--db", db], 1, "no kernel matches")
        one_line(c, "unknown kernel for arch",
                 [K, "render", "kw::rope_sbhd_fwd_kernel<float, true>", "--db", db, "--arch", "gfx1100"],
                 1, "was built for gfx1100")
        for bad in ("hidden", "hidden=", "=4", "hidden=1x", "hidden=x y", "hidden=1,", "a=1;b=2"):
            one_line(c, f"--shape {bad}", [K, "render", "rope", "--db", db, "--shape", bad], 2, "--shape")
        for bad in ("-1", "0", "x", "1e999"):
            one_line(c, f"--time-us {bad}", [K, "render", "rope", "--db", db, "--time-us", bad], 2, "--time-us")
        one_line(c, "--all without -o", [K, "render", "--all", "--db", db], 2, "--all needs -o")
        one_line(c, "KERNEL and --all", [K, "render", "x", "--all", "-o", tmp, "--db", db], 2)
        one_line(c, "no KERNEL", [K, "render", "--db", db], 2)
        one_line(c, "unknown option", [K, "render", "x", "--frobnicate"], 2, "unknown option")
        one_line(c, "unknown --gpu", [K, "render", "kw::rope_sbhd_fwd_kernel<float, true>", "--db", db,
                                      "--gpu", "MI9000"], 2, "--gpu")
        one_line(c, "missing db", [K, "render", "x", "--db", os.path.join(tmp, "none.db")], 1)
        garbage = os.path.join(tmp, "garbage.db")
        with open(garbage, "wb") as f:
            f.write(b"SQLite format 3\x00\x10\x00garbage")
        one_line(c, "garbage db", [K, "render", "x", "--db", garbage], 1)
        sidecar = [os.path.join(args.corpus_out, f) for f in os.listdir(args.corpus_out)
                   if f.endswith(".kwalk.yaml")][0]
        one_line(c, "a sidecar given as db", [K, "render", "x", "--db", sidecar], 1, "not a kwalk index")
        # an index with no kernel at all: the pybind TU alone has none
        empty = os.path.join(tmp, "empty.db")
        rc, _, err = kr.run([K, "index", os.path.join(args.corpus_out, "rmsnorm_quant_pybind.o.kwalk.yaml"),
                             "-o", empty])
        c.check(rc == 0, f"index of the pybind sidecar: {err}")
        one_line(c, "empty database", [K, "render", "x", "--db", empty], 1, "no kernels")
        one_line(c, "empty database (map)", [K, "map", "--db", empty], 1, "no kernels")
        one_line(c, "unwritable output", [K, "render", "kw::rope_sbhd_fwd_kernel<float, true>", "--db", db,
                                          "-o", os.path.join(tmp, "no", "such", "dir", "x.md")], 1)
        one_line(c, "map --format", [K, "map", "--db", db, "--format", "html"], 2, "--format")
        one_line(c, "map --kernels of no name", [K, "map", "--db", db, "--kernels", ", ,"], 1,
                 "names no kernel")
        one_line(c, "map --kernels --format tsv", [K, "map", "--db", db, "--kernels", "rope",
                                                   "--format", "tsv"], 2, "Markdown")
        one_line(c, "map --python-root missing", [K, "map", "--db", db, "--python-root",
                                                  os.path.join(tmp, "nope")], 1)
        # several instantiations of one template: the kernel's page names every one (by the
        # symbols the index holds for the names the query matches)
        want = sorted(k["symbol"] for k in index["kernels"] if "rope" in k["name"] or "rope" in k["symbol"])
        rc, out, err = kr.run([K, "render", "rope", "--db", db])
        c.check(rc == 0 and out.startswith("# Kernel `kw::rope_sbhd_fwd_kernel`"),
                f"one template: exit {rc}, page {out[:80]!r} ({err!r})")
        got = sorted(re.findall(r"^\| `[^`]*`[^|]* \| `([^`]*)` \|", out, re.M))
        c.check(len(want) > 1 and got == want, f"one template: the page's instantiations {got}, wanted {want}")
        # ambiguity between kernels: every kernel listed (templates split from the printed names
        # here), with how many of its instantiations match
        hits = [k for k in index["kernels"] if "sample_kernel" in k["name"] or "sample_kernel" in k["symbol"]]
        want = sorted({kr.split_args(k["name"])[0] for k in hits})
        rc, out, err = kr.run([K, "render", "sample_kernel", "--db", db])
        lines = err.rstrip("\n").split("\n")
        c.check(rc == 1 and out == "", f"ambiguous: exit {rc}")
        c.check(lines[0].startswith("kwalk: render: 'sample_kernel' names %d kernels (%d instantiations)"
                                    % (len(want), len(hits))), f"ambiguous: first line {lines[0]!r}")
        c.check(len(want) > 1 and sorted(l.strip().split("\t")[0] for l in lines[1:]) == want,
                f"ambiguous: kernels {lines[1:]}, wanted {want}")
        # help is not an error
        for cmd in ("render", "map"):
            rc, out, err = kr.run([K, cmd, "--help"])
            c.check(rc == 0 and out.startswith("usage: kwalk " + cmd) and err == "", f"{cmd} --help")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    c.finish()


if __name__ == "__main__":
    main()
