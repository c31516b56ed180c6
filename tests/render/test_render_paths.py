#!/usr/bin/env python3
"""test_render_paths.py: an entry point that reaches one launch along several
call paths (tests/render/src/kw_dispatch_paths.hip, compiled with the plugin).

Ground truth is the source: its KW: markers (scripts/kw-markers.py) and the
text of the guarded lines. Checked:
  - kwpath_scale reaches the float launch along two paths, through the two
    KW:CALL sites of dispatch_scale; each path names its calls at their marker
    lines, and its conditions are those of the source: `mode == 0` holds on
    the first, does not hold on the second, where `n > 4096` holds;
  - both paths are numbered "path k of 2" and are equally short;
  - kwpath_fanout reaches the double launch along 2^4 = 16 paths: 8 are
    listed (shortest first, all of the same length here), the page says 8
    more are not;
  - `kwalk map` lists each entry -> launch pair once;
  - launch operands that are variables (KW:DECL markers): the sidecar records
    each one's declaration at the marker line, column of its name, kind and
    whether it changes after; the page evaluates an initializer only for a
    local that does not change, says so otherwise, and --shape NAME=...
    evaluates the variable itself.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import kwrender as kr  # noqa: E402
from kwcheck import Checker  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kwalk", required=True)
    ap.add_argument("--out", required=True, help="the compiled sidecar's directory")
    ap.add_argument("--src", required=True, help="tests/render/src")
    ap.add_argument("--scripts", required=True)
    a = ap.parse_args()
    c = Checker("render.paths")
    marks = json.loads(subprocess.run([sys.executable, os.path.join(a.scripts, "kw-markers.py"), a.src],
                                      check=True, capture_output=True, text=True).stdout)
    at = {k: (v["file"], v["line"]) for k, v in marks.items()}
    src = os.path.join(a.src, "kw_dispatch_paths.hip")
    lines = open(src).read().split("\n")

    def line_of(text, after=0):
        for i, l in enumerate(lines[after:], after + 1):
            if text in l:
                return i
        raise SystemExit(f"'{text}' not in {src}")

    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "paths.db")
        rc, out, err = kr.run([a.kwalk, "index", a.out, "-o", db])
        c.check(rc == 0, f"kwalk index: {err}")

        # --- two call sites, two sets of conditions
        rc, page, err = kr.run([a.kwalk, "render", "kwpath::scale_kernel<float, 256>", "--db", db])
        c.check(rc == 0, f"kwalk render float: exit {rc}: {err}")
        c.check("1 entry point reaches this launch along 2 call paths" in page,
                "float: the launch is reached by 1 entry point along 2 paths")
        blocks = re.findall(r"^From [^\n]*`kwpath_scale`[^\n]*, path (\d) of (\d):\n\n(.*?)\n\n", page,
                            re.M | re.S)
        c.check([(b[0], b[1]) for b in blocks] == [("1", "2"), ("2", "2")],
                f"float: paths numbered 1 of 2, 2 of 2: {[(b[0], b[1]) for b in blocks]}")
        f_first, l_first = at["paths.first"]
        f_second, l_second = at["paths.second"]
        f_mode0, l_mode0 = at["paths.mode0"]
        f_big, l_big = at["paths.big"]
        f_entry, l_entry = at["paths.call_entry"]
        f_launch, l_launch = at["paths.launch"]
        want_calls = [[l_entry, l_first], [l_entry, l_second]]
        for (nth, _, body), calls in zip(blocks, want_calls):
            steps = re.findall(r"^\d+\. .*$", body, re.M)
            c.check(len(steps) == 3, f"float path {nth}: entry call, dispatch call, launch: {steps}")
            got = [int(m) for m in re.findall(r" calls `[^`]*` at `[^`]*:(\d+)`", body)]
            c.check(got == calls, f"float path {nth}: call lines {got} != {calls}")
            c.check(f"launches the kernel at `{f_launch}:{l_launch}`" in body or
                    re.search(r"launches the kernel at `[^`]*:%d`" % l_launch, body),
                    f"float path {nth}: the launch line {l_launch}")
            guards = re.findall(r"when (not )?`([^`]*)`[^`]*at `[^`]*:(\d+)`", body)
            if nth == "1":
                c.check(guards == [("", "mode == 0", str(l_mode0))],
                        f"float path 1: guards {guards}, source says mode == 0 at {l_mode0}")
            else:
                c.check(guards == [("not ", "mode == 0", str(l_mode0)), ("", "n > 4096", str(l_big))],
                        f"float path 2: guards {guards}, source says not mode == 0, n > 4096")
        # the guard texts are the source's at those lines
        c.check("mode == 0" in lines[l_mode0 - 1] and "n > 4096" in lines[l_big - 1],
                "the guarded lines hold the conditions")

        # --- 16 paths: 8 listed, 8 more said
        rc, page, err = kr.run([a.kwalk, "render", "kwpath::scale_kernel<double, 256>", "--db", db])
        c.check(rc == 0, f"kwalk render double: exit {rc}: {err}")
        nums = re.findall(r"^From [^\n]*`kwpath_fanout`[^\n]*, path (\d+) of (\d+):", page, re.M)
        c.check(nums == [(str(i), "16") for i in range(1, 9)], f"double: paths 1..8 of 16: {nums}")
        c.check("8 more paths from this entry point are not listed" in page,
                "double: the 8 paths not listed are said")
        fan = [line_of("fan3(out, in, n, stream);"), line_of("fan3(out, in, n / 2, stream);")]
        c.check(re.search(r" calls `kwpath::fan3` at `[^`]*:%d`" % fan[0], page) is not None and
                re.search(r" calls `kwpath::fan3` at `[^`]*:%d`" % fan[1], page) is not None,
                f"double: both call sites of fan3 ({fan}) appear on listed paths")

        # --- launch operands that are variables: the sidecar's declarations
        # checked against the source; the page shows them, and evaluates an
        # initializer only for a local nothing changes
        side = None
        for name in os.listdir(a.out):
            if name.endswith(".kwalk.yaml"):
                side = kr.yaml.load(open(os.path.join(a.out, name)), Loader=kr.YamlLoader)
        launches = {}
        for l in side["launches"]:
            launches[l["location"]["line"]] = l
        want = {  # launch -> operand -> (marker, name, kind, modified)
            "paths.rounded": {"grid": ("paths.grid_changed", "grid", "local", True),
                              "block": ("paths.block_once", "block", "local", False)},
            "paths.given": {"grid": ("paths.grid_param", "grid", "parameter", False)},
        }
        for lid, ops in want.items():
            l = launches.get(at[lid][1])
            if not c.check(l is not None, f"{lid}: launch at line {at[lid][1]} in the sidecar"):
                continue
            decls = {d["operand"]: d for d in l.get("operand_decls", [])}
            # the stream is the function's parameter too
            c.check(set(decls) == set(ops) | {"stream"}, f"{lid}: operand_decls for {sorted(decls)}")
            c.check(decls.get("stream", {}).get("kind") == "parameter", f"{lid}: the stream is a parameter")
            for op, (mid, name, kind, modified) in ops.items():
                d = decls.get(op)
                if not d:
                    continue
                line = at[mid][1]
                text = lines[line - 1]
                c.check(d["location"]["line"] == line, f"{lid} {op}: declared at {d['location']['line']}, marker {line}")
                c.check(text[d["location"]["column"] - 1:].startswith(name),
                        f"{lid} {op}: column {d['location']['column']} of line {line} is not `{name}`")
                c.check(d["name"] == name and d["kind"] == kind and d["modified"] == modified,
                        f"{lid} {op}: {d['name']} {d['kind']} modified={d['modified']}, want {name} {kind} {modified}")
                c.check(" ".join(d["text"].split()) in " ".join(text.split()),
                        f"{lid} {op}: text `{d['text']}` is not on line {line}: {text.strip()}")
        bl = launches.get(at["paths.rounded"][1], {})
        bdecl = {d["operand"]: d for d in bl.get("operand_decls", [])}.get("block", {})
        c.check(bdecl.get("init") == "dim3(256)", f"block init {bdecl.get('init')} (source: `const dim3 block(256)`)")
        rc, page, err = kr.run([a.kwalk, "render", "kwpath::scale_kernel<float, 256>", "--db", db,
                                "--shape", "n=1000"])
        c.check(rc == 0, f"kwalk render --shape: exit {rc}: {err}")
        part = page.split("Launch site")
        rounded = [p for p in part if re.search(r"^ \d+ of \d+: [^\n]*:%d\n" % at["paths.rounded"][1], p, re.M)]
        given = [p for p in part if re.search(r"^ \d+ of \d+: [^\n]*:%d\n" % at["paths.given"][1], p, re.M)]
        if c.check(len(rounded) == 1 and len(given) == 1, "the two operand launches have their sections"):
            row = lambda p, op: re.search(r"^\| %s \|[^\n]*$" % op, p, re.M)
            g, b = row(rounded[0], "grid"), row(rounded[0], "block")
            c.check(g and "changed after its declaration" in g.group(0) and "(changed after it)" in g.group(0),
                    f"rounded grid: not evaluated from its initializer: {g and g.group(0)}")
            c.check(g and ":%d`" % at["paths.grid_changed"][1] in g.group(0), "rounded grid: declaration line")
            c.check(b and "(256, 1, 1)" in b.group(0), f"block: constant (256, 1, 1): {b and b.group(0)}")
            gp = row(given[0], "grid")
            c.check(gp and "a parameter" in gp.group(0) and ":%d`" % at["paths.grid_param"][1] in gp.group(0),
                    f"given grid: a parameter, declared at its line: {gp and gp.group(0)}")
        # binding the changed variable itself evaluates it
        rc, page, err = kr.run([a.kwalk, "render", "kwpath::scale_kernel<float, 256>", "--db", db,
                                "--shape", "n=1000,grid=4"])
        c.check(rc == 0 and "| (4, 1, 1) |" in page, "--shape grid=4 gives the grid (4, 1, 1)")

        # --- the map: one row per entry and launch
        rc, out, err = kr.run([a.kwalk, "map", "--db", db, "--format", "tsv"])
        c.check(rc == 0, f"kwalk map: {err}")
        rows = [r.split("\t") for r in out.strip().split("\n") if r]
        pairs = [(r[5], r[7]) for r in rows]
        c.check(len(pairs) == len(set(pairs)), f"kwalk map: an entry -> launch row twice: {pairs}")
        c.check(sum(1 for p in pairs if p[0] == "kwpath_scale") == 1, f"kwalk map: kwpath_scale rows {pairs}")
    c.finish()


if __name__ == "__main__":
    main()
