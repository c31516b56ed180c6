#!/usr/bin/env python3
"""test_kwcheck.py: lib.kwcheck, the one failure collector (kwcheck.Checker)
run in child processes, judged by their exit status and output: a run that
compared nothing fails, a skip exits 77 with its reason, every failure is
printed (not only the first), eq's arguments are (got, want, what), and a run
whose checks all hold exits 0. Its own verdicts are plain asserts (it cannot
use the checker it tests)."""
import os
import subprocess
import sys

LIB = os.path.dirname(os.path.abspath(__file__))


def child(body):
    code = "import sys; sys.path.insert(0, %r)\nfrom kwcheck import Checker\n%s" % (LIB, body)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout


def main():
    failures = []

    def expect(what, cond, detail):
        if not cond:
            failures.append("%s: %s" % (what, detail))

    rc, out = child("c = Checker('t')\nc.finish()")
    expect("nothing compared", rc == 1 and "nothing was compared" in out, (rc, out))
    rc, out = child("c = Checker('t')\nc.note('n')\nc.finish()")
    expect("a note is not a comparison", rc == 1, (rc, out))
    rc, out = child("c = Checker('t')\nc.skip('no input here')\nc.eq(1, 2, 'after')")
    expect("skip", rc == 77 and "no input here" in out and "after" not in out, (rc, out))
    rc, out = child("c = Checker('t')\nc.eq(1, 2, 'a')\nc.skip('late')")
    expect("a skip after a failure fails", rc == 1 and "a: got 1, want 2" in out, (rc, out))
    rc, out = child("c = Checker('t')\nc.eq(3, 4, 'first')\nc.check(False, 'second', 'why')\n"
                    "c.fail('third')\nc.eq(5, 5, 'holds')\nc.finish()")
    expect("every failure", rc == 1 and all(s in out for s in (
        "FAIL: first: got 3, want 4", "FAIL: second: why", "FAIL: third",
        "3 of 4 checks failed")), (rc, out))
    rc, out = child("c = Checker('t', who='kwco-dump')\nc.eq(3, 4, 'x')\nc.finish()")
    expect("who names the side under test", rc == 1 and "x: kwco-dump 3, ground truth 4" in out,
           (rc, out))
    rc, out = child("c = Checker('t')\nok = c.eq([1], [1], 'a') and c.check(1, 'b')\n"
                    "assert ok is True\nc.finish()")
    expect("all hold", rc == 0 and "all 2 checks passed" in out, (rc, out))
    for f in failures:
        print("FAIL:", f)
    print("lib.kwcheck: %d of 7 cases failed" % len(failures) if failures
          else "lib.kwcheck: all 7 cases hold")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
