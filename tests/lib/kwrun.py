"""kwrun.py: the one way the tests run a program.

    p = run(cmd, cwd=, env=, timeout=, input=, merge=False, must=False, ok=(0,))
        the finished process (text; undecodable bytes replaced); p.returncode,
        p.stdout, p.stderr, and it also unpacks as rc, out, err = run(...).
        merge: stderr goes into stdout. must: a status not in ok ends the
        test (exit 1) with the command and the end of its stderr.
    p, wall, user, sys = timed(cmd, cwd=)
        run() and the seconds it took: wall clock, and the child's user and
        system CPU (the benchmarks).

The LLVM tools' paths and what their output means (llvm-readelf's notes,
remarks, line tables) are in kwllvm, which runs them through run()."""
import resource
import subprocess
import sys
import time


class Result(subprocess.CompletedProcess):
    """A CompletedProcess that also unpacks as (returncode, stdout, stderr)."""

    def __iter__(self):
        return iter((self.returncode, self.stdout, self.stderr))


def run(cmd, cwd=None, env=None, timeout=None, input=None, merge=False, must=False, ok=(0,)):
    p = subprocess.run(cmd, cwd=cwd, env=env, timeout=timeout, input=input,
                       stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT if merge else subprocess.PIPE,
                       text=True, errors="replace")
    r = Result(p.args, p.returncode, p.stdout, p.stderr)
    if must and r.returncode not in ok:
        sys.exit("FAILED: %s\nrc=%d\n%s" % (" ".join(map(str, cmd)), r.returncode,
                                            (r.stderr or r.stdout or "")[-4000:]))
    return r


def timed(cmd, cwd=None):
    """(run(cmd), wall seconds, user CPU seconds, system CPU seconds)."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    p = run(cmd, cwd=cwd)
    wall = time.perf_counter() - t
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return p, wall, r1.ru_utime - r0.ru_utime, r1.ru_stime - r0.ru_stime
