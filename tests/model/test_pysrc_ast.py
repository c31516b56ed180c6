#!/usr/bin/env python3
"""test_pysrc_ast.py: model.pysrc, the Python extents a Triton page quotes
(model/kw_pysrc.h: kw_py_def_end, kw_py_stmt_end) against Python's own parser
on real code: every function of every .py file under the roots given (the
project's python/ and tests/, and ../shared's Triton, ATOM and aiter Python
where present).

Ground truth (ast, never kwalk):
  def   a function whose line starts with `def` (after indentation) ends at
        its FunctionDef's end_lineno (the last line of its body's code);
  stmt  a simple statement (no block of its own: an assignment, a call, a
        return...) ends at its end_lineno, the line that closes its brackets.
Functions declared `async def` and statements that share a line with another
(`a = 1; b = 2`) are left out and counted: kw_pysrc.h does not cover them.

usage: test_pysrc_ast.py --probe PYSRC_PROBE ROOT...
"""
import argparse
import ast
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kwcheck import Checker  # noqa: E402
from kwrun import run  # noqa: E402
from kwpycallers import pyfiles  # noqa: E402

COMPOUND = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.If, ast.For, ast.AsyncFor,
            ast.While, ast.With, ast.AsyncWith, ast.Try) + tuple(
                getattr(ast, n) for n in ("TryStar", "Match") if hasattr(ast, n))


def queries(path, text, skipped):
    """[(kind, line, want)] of one file, from ast."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        skipped["not parsed by this Python"] += 1
        return []
    lines = text.splitlines()
    out, starts = [], {}
    for n in ast.walk(tree):
        if isinstance(n, ast.stmt):
            starts[n.lineno] = starts.get(n.lineno, 0) + 1
    for n in ast.walk(tree):
        if isinstance(n, ast.AsyncFunctionDef):
            skipped["async def"] += 1
        elif isinstance(n, ast.FunctionDef):
            if lines[n.lineno - 1].lstrip().startswith("def "):
                out.append(("def", n.lineno, n.end_lineno))
            else:
                skipped["def not at the start of its line"] += 1
        elif isinstance(n, ast.stmt) and not isinstance(n, COMPOUND):
            if starts[n.lineno] > 1:
                skipped["statements sharing a line"] += 1
            else:
                out.append(("stmt", n.lineno, n.end_lineno))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--probe", required=True)
    ap.add_argument("roots", nargs="+")
    a = ap.parse_args()
    c = Checker("model.pysrc")
    skipped = {"not parsed by this Python": 0, "async def": 0,
               "def not at the start of its line": 0, "statements sharing a line": 0}
    want, files = {}, 0
    for root in a.roots:
        if not os.path.isdir(root):
            c.note("%s absent: not read" % root)
            continue
        for path in pyfiles(root):
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
            files += 1
            for kind, line, end in queries(path, text, skipped):
                want[(kind, line, path)] = end
    if not want:
        c.skip("no Python file under %s" % ", ".join(a.roots))
    stdin = "".join("%s\t%d\t%s\n" % k for k in sorted(want, key=lambda k: (k[2], k[1], k[0])))
    p = run([a.probe], input=stdin)
    c.eq(p.returncode, 0, "pysrc_probe exit (stderr %r)" % p.stderr[-400:])
    got = {}
    for ln in p.stdout.splitlines():
        kind, line, path, end = ln.split("\t")
        got[(kind, int(line), path)] = int(end)
    c.eq(len(got), len(want), "answers for the queries")
    for k in sorted(want, key=lambda k: (k[2], k[1], k[0])):
        kind, line, path = k
        c.eq(got.get(k), want[k], "%s:%d: %s ends at (ast's end_lineno)" % (path, line, kind))
    defs = sum(1 for k in want if k[0] == "def")
    c.note("%d files, %d functions, %d statements; left out: %s" % (
        files, defs, len(want) - defs, ", ".join("%s %d" % kv for kv in skipped.items())))
    c.finish()


if __name__ == "__main__":
    main()
