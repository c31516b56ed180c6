#!/usr/bin/env python3
"""test_shape_constants: `kwalk render --shape` on launches written with
constants (tests/plugin/src/kw_shape_constants.hip): constexpr and const
locals, a chain of them, a const local inside the launching macro,
enumerators in case labels and conditions, the default stream as 0/nullptr.

Ground truth is the C++ compiler: the same source is compiled as plain host
C++ (-DKWSC_PROBE, each `<<<grid, block, ...>>>(...)` replaced by a call that
prints its line, grid and block) and run for each shape; it prints the
launches that run and their grid and block. For each shape:
  - every launch the probe ran: the page's grid and block (the constant
    value, or the value --shape evaluated) are the probe's;
  - the path to each launch of launch_modes is taken exactly when the probe
    ran that launch, and every one of its conditions (one each, worked out
    from the source: the case label or the `if`) could be evaluated;
  - no page calls a variable "changed after" its declaration (none is);
  - the stream written as `0` / `nullptr` (read from the source) is the
    default stream, not "not a constant".
Without the mode, the condition of the `if (mode == kUnrollFour)` launch
cannot be evaluated: the page says 0 of its 1 condition could be, and does
not claim every condition holds.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import kwcap  # noqa: E402
from kwcheck import Checker  # noqa: E402

TU = "kw_shape_constants.hip"
SHAPES = ((1000, 1), (4096, 7), (7777, 4))
# conditions on the path to each launch of launch_modes, from the source:
# narrow and wide sit under their case label, unroll under its `if`
MODE_LAUNCHES = {"sc.narrow": 1, "sc.wide": 1, "sc.unroll": 1}
PROBE_PRELUDE = r"""
#include <cstdio>
#include <cstdlib>
typedef void *hipStream_t;
struct dim3 {
  unsigned x, y, z;
  dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
#define __global__
template <class... R> static void kwsc_probe(int line, dim3 g, dim3 b, R...) {
  std::printf("%d %u %u %u %u %u %u\n", line, g.x, g.y, g.z, b.x, b.y, b.z);
}
"""
PROBE_MAIN = r"""
int main(int argc, char **argv) {
  kwsc_run(nullptr, nullptr, std::atoi(argv[1]), std::atoi(argv[2]), nullptr);
  return 0;
}
"""
LAUNCH = re.compile(r"\w+<[^<>;]*><<<(.*?)>>>\s*\([^()]*\)")


def probe(args, ck, src, root):
    """{(n, mode): {line: (grid, block)}} from the source compiled as host C++."""
    with open(src, encoding="utf-8") as f:
        text = f.read()
    body = LAUNCH.sub(lambda m: "kwsc_probe(__LINE__, %s)" % m.group(1), text)
    cpp = os.path.join(root, "probe.cpp")
    with open(cpp, "w", encoding="utf-8") as f:
        f.write("#define KWSC_PROBE 1\n" + PROBE_PRELUDE + '#line 1 "%s"\n' % TU + body + PROBE_MAIN)
    exe = os.path.join(root, "probe")
    r = kwcap.run([args.clangxx, "-std=c++17", "-x", "c++", cpp, "-o", exe])
    if not ck.check(r.returncode == 0, "probe: host compile failed: %s" % r.stderr.strip()):
        return None
    out = {}
    for n, mode in SHAPES:
        r = kwcap.run([exe, str(n), str(mode)])
        if not ck.check(r.returncode == 0, "probe %d %d: rc %d" % (n, mode, r.returncode)):
            return None
        ran = {}
        for l in r.stdout.splitlines():
            v = [int(x) for x in l.split()]
            ran[v[0]] = (tuple(v[1:4]), tuple(v[4:7]))
        out[(n, mode)] = ran
    return out


def config_rows(page):
    """{operand: [cells]} of the page's launch configuration table."""
    rows = {}
    for l in page.splitlines():
        cells = [c.strip() for c in l.strip().strip("|").split(" | ")]
        if l.startswith("| ") and cells[0] in ("grid", "block", "stream"):
            rows.setdefault(cells[0], cells)
    return rows


def dim3_of(cells):
    """The grid/block the row gives: the constant value, else --shape's."""
    for c in cells[2:3] + cells[4:5]:
        m = re.fullmatch(r"\((\d+), (\d+), (\d+)\)", c)
        if m:
            return tuple(int(x) for x in m.groups())
    return None


def render(args, db, name, shape):
    return kwcap.run([args.kwalk, "render", name, "--db", db, "--shape", shape])


def main():
    args = kwcap.parse_args()
    ck = Checker("test_shape_constants")
    if not args.kwalk:
        print("test_shape_constants: no kwalk command given")
        raise SystemExit(kwcap.SKIP)
    root = kwcap.tmpdir(args, "shape")
    try:
        src_dir = os.path.join(args.source_dir, "tests", "plugin", "src")
        src = os.path.join(src_dir, TU)
        markers, errors = kwcap.scan_markers(args, src_dir)
        for e in errors:
            ck.fail("markers: %s" % e)
        ids = {i: m["line"] for i, m in markers.items() if m["file"] == TU and m["kind"] == "LAUNCH"}
        ck.eq(len(ids), 6, "KW:LAUNCH markers in %s" % TU)
        with open(src, encoding="utf-8") as f:
            lines = f.read().splitlines()
        truth = probe(args, ck, src, root)
        obj = os.path.join(root, "kw_shape_constants.o")
        r = kwcap.run(kwcap.compile_cmd(args, src, obj, extra=["-cuid=kwsc"]), env=kwcap.clean_env())
        if not ck.check(r.returncode == 0, "compile failed: %s" % (r.stdout + r.stderr)):
            ck.finish()
        ck.eq(kwcap.kwalk_lines(r.stderr), [], "kwalk: lines on stderr")
        doc = kwcap.load_yaml_file(obj + ".kwalk.yaml")
        db = os.path.join(root, "shape.db")
        r = kwcap.run([args.kwalk, "index", root, "-o", db])
        if not ck.check(r.returncode == 0, "kwalk index: %s" % r.stderr.strip()) or not truth:
            ck.finish()
        # the kernel each marked launch launches (each launch its own instantiation)
        names = {}
        for ln in doc.get("launches") or []:
            line = kwcap.loc_line(ln)[1]
            for i, at in ids.items():
                if at == line:
                    names[i] = ln.get("kernel_name")
        ck.eq(sorted(names), sorted(ids), "launches recorded at the KW:LAUNCH lines")
        ran_any = set()
        for (n, mode), ran in truth.items():
            shape = "n=%d,mode=%d" % (n, mode)
            for i, name in sorted(names.items()):
                r = render(args, db, name, shape)
                if not ck.check(r.returncode == 0, "render %s --shape %s: %s" % (name, shape, r.stderr)):
                    continue
                page = r.stdout
                rows = config_rows(page)
                ck.check("changed after" not in page, "%s: a variable 'changed after' its declaration" % i)
                if ids[i] in ran:
                    ran_any.add(i)
                    grid, block = ran[ids[i]]
                    ck.eq(dim3_of(rows.get("grid", [])), grid, "%s --shape %s: grid" % (i, shape))
                    ck.eq(dim3_of(rows.get("block", [])), block, "%s --shape %s: block" % (i, shape))
                if i in MODE_LAUNCHES:
                    m = re.search(r"(\d+) of (\d+) conditions? on this path could be evaluated", page)
                    if ck.check(m, "%s --shape %s: no count of evaluated conditions" % (i, shape)):
                        want = MODE_LAUNCHES[i]
                        ck.eq((int(m.group(1)), int(m.group(2))), (want, want),
                              "%s --shape %s: conditions evaluated of all" % (i, shape))
                    ck.eq("**not** taken" not in page, ids[i] in ran,
                          "%s --shape %s: path taken (as the probe ran it)" % (i, shape))
        ck.eq(sorted(ran_any), sorted(ids), "launches the probe ran over all shapes")
        # the default stream, written 0 / nullptr at the launch
        for i in ("sc.narrow", "sc.wide"):
            m = re.search(r"<<<[^>]*,\s*([^,>]+?)\s*>>>", lines[ids[i] - 1])
            ck.check(m and m.group(1) in ("0", "nullptr"), "%s: stream in the source: %r" % (i, m))
            r = render(args, db, names.get(i, "?"), "n=1000,mode=1")
            cells = config_rows(r.stdout).get("stream", [])
            ck.check(len(cells) > 2 and "default stream" in cells[2],
                     "%s: stream %s is not the default stream: %r" % (i, m and m.group(1), cells))
        # no mode: the `if (mode == kUnrollFour)` cannot be evaluated
        r = render(args, db, names.get("sc.unroll", "?"), "n=1000")
        m = re.search(r"(\d+) of (\d+) conditions? on this path could be evaluated", r.stdout)
        ck.check(m and (m.group(1), m.group(2)) == ("0", "1"),
                 "sc.unroll without mode: %r" % (m and m.group(0)))
        ck.check("every condition" not in r.stdout, "sc.unroll without mode: 'every condition'")
    finally:
        kwcap.cleanup(args, root)
    ck.finish()


if __name__ == "__main__":
    main()
