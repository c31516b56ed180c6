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
  - `kwalk map` lists each entry -> launch pair once.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import kwrender as kr  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kwalk", required=True)
    ap.add_argument("--out", required=True, help="the compiled sidecar's directory")
    ap.add_argument("--src", required=True, help="tests/render/src")
    ap.add_argument("--scripts", required=True)
    a = ap.parse_args()
    c = kr.Checker("render.paths")
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
