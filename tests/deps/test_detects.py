#!/usr/bin/env python3
"""test_detects.py: deps.closure_detects, the test of deps.closure. For each
--case, copies scripts/install-deps.sh with the case's packages taken out of
its PACKAGES array, runs check_deps.py against the copy and expects it to fail
(exit 1) with a MISSING PACKAGE line naming each expected package. It also
runs the checker against the unmodified file first, so a checker that fails on
everything cannot pass this test either.

  test_detects.py --install-deps FILE --case PKG,...[:EXPECTED,...] [--case ...]
                  CHECKER ARGS...
"""
import argparse
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kwrun import run  # noqa: E402


def without(text, drop):
    """install-deps.sh text with the names in drop removed from PACKAGES."""
    m = re.search(r"^PACKAGES=\((.*?)^\)", text, re.S | re.M)
    body = m.group(1)
    for p in drop:
        body, n = re.subn(r"(?<=[ \t])%s(?=[ \t\n])" % re.escape(p), "", body)
        if n != 1:
            raise SystemExit("test_detects: %s is listed %d times in install-deps.sh, not once"
                             % (p, n))
    return text[:m.start(1)] + body + text[m.end(1):]


def run_checker(checker, args, install_deps):
    """(exit status, stdout and stderr) of check_deps.py."""
    p = run([sys.executable, checker, "--install-deps", install_deps] + args, merge=True)
    return p.returncode, p.stdout


def parse_case(text):
    """'A,B:C' -> (remove [A, B], expect [C]); without ':' every removed
    package is expected."""
    remove, _, expect = text.partition(":")
    remove = remove.split(",")
    return remove, expect.split(",") if expect else remove


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--install-deps", required=True)
    ap.add_argument("--case", action="append", required=True, type=parse_case,
                    help="PKG,PKG[:EXPECTED,...]: packages to take out, packages to be named")
    ap.add_argument("checker")
    ap.add_argument("args", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    with open(a.install_deps, encoding="utf-8") as f:
        text = f.read()
    bad = []
    rc, out = run_checker(a.checker, a.args, a.install_deps)
    if rc == 77:
        print(out.strip())
        return 77
    if rc != 0:
        bad.append("the checker fails on the real install-deps.sh (exit %d):\n%s" % (rc, out))
    for remove, expect in a.case:
        with tempfile.TemporaryDirectory(prefix="kwalk-deps-detects-") as tmp:
            copy = os.path.join(tmp, "install-deps.sh")
            with open(copy, "w", encoding="utf-8") as f:
                f.write(without(text, remove))
            rc, out = run_checker(a.checker, a.args, copy)
        case_bad = []
        if rc != 1:
            case_bad.append("without %s the checker exited %d, not 1" % (" ".join(remove), rc))
        for p in expect:
            if not re.search(r"^deps\.closure: MISSING PACKAGE %s:" % re.escape(p), out, re.M):
                case_bad.append("without %s the checker does not name %s" % (" ".join(remove), p))
        if case_bad:
            bad += case_bad + [out]
        else:
            print("deps.closure_detects: ok: without %s the checker names %s"
                  % (", ".join(remove), ", ".join(expect)))
    for b in bad:
        print("deps.closure_detects: FAIL: " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
