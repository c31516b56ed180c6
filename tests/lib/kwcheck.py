"""kwcheck.py: the tests' failure collectors. Each counts checks, keeps every
failure (a test prints all of them, not just the first) and ends the script
with exit 1 when one failed, 0 otherwise.

Two call styles, both in use across the suite:
  Checker  check(cond, msg), eq(got, want, what), fail, note; finish()
           (the plugin, render, trace, package tests)
  Check    eq(what, got, want), true(what, cond[, detail]); report()
           (the code-object, ISA-sidecar and IR checks); `who` names the
           side under test in an eq() failure ("kwco-dump 3, ground truth 4")
"""
import sys


class Checker:
    """check(cond, msg) style; finish() prints notes and failures and exits."""

    def __init__(self, name=""):
        self.name = name
        self.failures = []
        self.notes = []
        self.count = 0

    def check(self, cond, msg):
        self.count += 1
        if not cond:
            self.failures.append(msg)
        return bool(cond)

    def eq(self, got, want, what):
        return self.check(got == want, "%s: got %r, want %r" % (what, got, want))

    def fail(self, msg):
        self.check(False, msg)

    def note(self, msg):
        self.notes.append(msg)

    def finish(self):
        for n in self.notes:
            print("note: %s" % n)
        for f in self.failures:
            print("FAIL: %s" % f)
        who = self.name + ": " if self.name else ""
        if self.failures:
            print("%s%d of %d checks failed" % (who, len(self.failures), self.count))
            sys.exit(1)
        print("%sall %d checks passed" % (who, self.count))
        sys.exit(0)


class Check:
    """eq(what, got, want) / true(what, cond) style; report() prints the
    failures (the first 60) and exits 1 on a failure, and on no comparison
    at all unless empty_ok (a check that compared nothing proved nothing)."""

    who = "kwalk"
    empty_ok = False

    def __init__(self, name):
        self.name, self.fails, self.n = name, [], 0

    def eq(self, what, got, want):
        self.n += 1
        if got != want:
            self.fails.append("%s: %s %r, ground truth %r" % (what, self.who, got, want))
        return got == want

    def true(self, what, cond, detail=""):
        self.n += 1
        if not cond:
            self.fails.append("%s: %s" % (what, detail) if detail else what)
        return bool(cond)

    def report(self):
        for f in self.fails[:60]:
            print("FAIL", f)
        if len(self.fails) > 60:
            print("... %d more" % (len(self.fails) - 60))
        print("%s: %d comparisons, %d failures" % (self.name, self.n, len(self.fails)))
        sys.exit(1 if self.fails or (self.n == 0 and not self.empty_ok) else 0)
