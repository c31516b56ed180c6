"""kwcheck.py: the one failure collector every Python test ends with.

    c = Checker("folder.name")       # who="kwco-dump" names the side under test
    c.eq(got, want, what)            # got: what kwalk (the side under test) says;
                                     # want: the ground truth; what: which fact
    c.check(cond, what, detail="")   # a fact that holds when cond is true
    c.fail(what)                     # a failure found another way
    c.note(msg)                      # printed, neither a pass nor a failure
    c.skip(reason)                   # exit 77 now: ctest reports the test skipped
    c.finish()                       # exit 1 on any failure, and when nothing
                                     # was compared; exit 0 otherwise

The argument order of eq is always (got, want, what). Every failure is kept
and printed (a test shows all of them, not just the first). A test that
compared nothing proved nothing: finish() fails it, so a test that finds no
input either skips with its reason (exit 77: SKIP_RETURN_CODE, which
tests/lib/KwTest.cmake's kw_test_defaults() sets on every test) or fails.
"""
import sys

SKIP = 77  # the exit status ctest reports as skipped (SKIP_RETURN_CODE)


class Checker:
    """Counts checks, keeps every failure; finish() prints and exits."""

    def __init__(self, name="", who=None):
        self.name = name
        self.who = who  # in an eq() failure: "WHO got, ground truth want"
        self.failures = []
        self.notes = []
        self.count = 0

    def check(self, cond, what, detail=""):
        self.count += 1
        if not cond:
            self.failures.append("%s: %s" % (what, detail) if detail else what)
        return bool(cond)

    def eq(self, got, want, what):
        if self.who:
            msg = "%s: %s %r, ground truth %r" % (what, self.who, got, want)
        else:
            msg = "%s: got %r, want %r" % (what, got, want)
        return self.check(got == want, msg)

    def fail(self, what):
        self.check(False, what)

    def note(self, msg):
        self.notes.append(msg)

    def skip(self, reason):
        """Ends the test as skipped (exit 77) with REASON, unless a check has
        already failed (then finish() reports the failures)."""
        if self.failures:
            self.finish()
        print("SKIP: %s%s" % (self._who(), reason))
        sys.stdout.flush()
        sys.exit(SKIP)

    def _who(self):
        return self.name + ": " if self.name else ""

    def finish(self):
        for n in self.notes:
            print("note: %s" % n)
        for f in self.failures:
            print("FAIL: %s" % f)
        if self.failures:
            print("%s%d of %d checks failed" % (self._who(), len(self.failures), self.count))
            sys.stdout.flush()
            sys.exit(1)
        if self.count == 0:
            print("FAIL: %snothing was compared (a test that finds no input skips with its "
                  "reason: Checker.skip)" % self._who())
            sys.stdout.flush()
            sys.exit(1)
        print("%sall %d checks passed" % (self._who(), self.count))
        sys.stdout.flush()
        sys.exit(0)
