#!/usr/bin/env python3
"""check_deps.py: deps.closure. Every program, Python module, shared library
and header that the build, the corpus compiles and the tests use (gathered by
deps_needs.py from the project and from what CMake resolved) is resolved to a
real path, its Debian package found with dpkg -S, and that package must be one
a fresh machine gets from scripts/install-deps.sh: listed there, pulled in by
a listed one (Depends/Pre-Depends), or on every Debian system (Essential
or Priority: required, debootstrap's minimal base). Fails naming each package
that is not, with what needs it.

Files no Debian package owns (a pyenv python, /usr/local) are noted, not
failed: a fresh machine does not have them, and the Python modules are looked
up with Debian's /usr/bin/python3 as well.

  check_deps.py --install-deps FILE --source-dir DIR --build-dir DIR
                --cmake-vars FILE --targets FILE --clangxx CLANG++ --llvm-bindir DIR
                [--other-clangxx CLANG++]
                [--hip-flag=F ...] [--binary FILE ...] [--file PATH=WHY ...]
                [--python PY ...]
                [--corpus-source FILE ...] [--needs-out FILE] [--verbose]
  check_deps.py --install-deps FILE --source-dir DIR --build-dir DIR --needs-in FILE

Exit 0: all covered; 1: a package is missing (each printed); 2: usage or a
step that could not run; 77: no dpkg on this machine (skipped).
"""
import argparse
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import deps_dpkg  # noqa: E402
import deps_needs  # noqa: E402

DEBIAN_PYTHON = "/usr/bin/python3"
SKIP = 77


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--install-deps", required=True)
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("--cmake-vars")
    ap.add_argument("--targets", help="the project's target names, one a line")
    ap.add_argument("--clangxx")
    ap.add_argument("--llvm-bindir")
    ap.add_argument("--other-clangxx", help="a clang++ of another major a test compiles with "
                    "(skipped with a note when not installed: that test skips too)")
    ap.add_argument("--hip-flag", action="append", default=[])
    ap.add_argument("--binary", action="append", default=[])
    ap.add_argument("--file", action="append", default=[], metavar="PATH=WHY")
    ap.add_argument("--python", action="append", default=[])
    ap.add_argument("--corpus-source", action="append", default=[])
    ap.add_argument("--needs-out", help="write what was gathered (JSON) to this file")
    ap.add_argument("--needs-in", help="check what an earlier run gathered (no gathering)")
    ap.add_argument("--verbose", action="store_true")
    a = ap.parse_args(argv)
    if not a.needs_in:
        for o in ("cmake_vars", "targets", "clangxx", "llvm_bindir"):
            if not getattr(a, o):
                ap.error("--%s is needed (or --needs-in)" % o.replace("_", "-"))
    return a


def gather(a, work):
    n = deps_needs.Needs()
    skip = [os.path.realpath(a.source_dir), os.path.realpath(a.build_dir), a.source_dir,
            a.build_dir, work, tempfile.gettempdir()]
    deps_needs.cmake_vars(n, a.cmake_vars, a.source_dir, skip)
    jobs = deps_needs.driver_jobs(n, a.clangxx, a.hip_flag, skip, work)
    if a.other_clangxx and os.access(a.other_clangxx, os.X_OK):
        # clang_major.mismatch (tests/plugin) compiles with it: HIP without HIP headers or device libs
        jobs += deps_needs.driver_jobs(n, a.other_clangxx, ["-x", "hip", "-nogpuinc", "-nogpulib",
                                                          "--offload-arch=gfx942"], skip, work)
    elif a.other_clangxx:
        print("deps.closure: note: %s is not installed (clang_major.mismatch skips)" % a.other_clangxx)
    deps_needs.llvm_tools(n, a.source_dir, a.llvm_bindir)
    deps_needs.shell_commands(n, a.source_dir)
    with open(a.targets) as f:
        deps_needs.cmake_commands(n, a.source_dir, set(f.read().split()))
    deps_needs.python_calls(n, a.source_dir)
    deps_needs.python_modules(n, a.source_dir, a.python, DEBIAN_PYTHON)
    for b in a.binary:
        if not os.path.isfile(b):
            raise RuntimeError("%s: not built (build the project before ctest)" % b)
    deps_needs.libraries(n, a.binary, a.source_dir)
    for f in a.file:
        path, _, why = f.partition("=")
        n.add(path, why or "named by the build")
        deps_needs.libraries(n, [path], a.source_dir)
    if not deps_needs.ninja_headers(n, a.build_dir, skip):
        print("deps.closure: note: not a Ninja build: the C/C++ build's headers are not checked")
    deps_needs.corpus_headers(n, a.clangxx, a.hip_flag, a.corpus_source, skip)
    print("deps.closure: %d files needed (%d driver jobs), %d optional" %
          (len(n.paths), jobs, len(n.optional)))
    return n


def owned(paths):
    """path -> packages that must be there for it: the owner of the path as
    named (when dpkg knows it) and the owner of the file it resolves to."""
    realp = {p: deps_dpkg.real(p) for p in paths}
    own = deps_dpkg.owners(set(paths) | set(realp.values()))
    res = {}
    for p in paths:
        pk = set(own.get(p, [])) | set(own.get(realp[p], []))
        res[p] = (realp[p], sorted(pk), realp[p] in own)
    return res


def debian_twin(path):
    """The program of the same name in Debian's own directories, if any."""
    for d in ("/usr/bin", "/usr/sbin"):
        p = os.path.join(d, os.path.basename(path))
        if os.path.isfile(p):
            return p
    return None


def add_debian_twins(n):
    """For each needed program that no package owns, the same name in /usr/bin
    (a pyenv python3 -> Debian's python3) is needed on a fresh machine."""
    paths = list(n.paths)
    own = deps_dpkg.owners(set(deps_dpkg.real(p) for p in paths))
    for p in paths:
        if deps_dpkg.real(p) in own or all(r.startswith("import ") for r in n.paths[p]):
            continue
        twin = debian_twin(deps_dpkg.real(p))
        if twin:
            for r in n.paths[p]:
                n.add(twin, r + " (as Debian's %s)" % os.path.basename(twin))


def check(a, n):
    listed = deps_dpkg.listed_packages(a.install_deps)
    inst = deps_dpkg.Installed()
    missing_listed = [p for p in listed if p not in inst.deps]
    have = inst.closure(list(listed) + sorted(inst.essential))
    problems = {}   # package -> reasons
    unowned = {}
    used = set()
    for table, optional in ((n.paths, False), (n.optional, True)):
        for path, (realp, pkgs, real_owned) in sorted(owned(list(table)).items()):
            reasons = table[path]
            if not real_owned:
                unowned[realp] = reasons
            for pk in pkgs:
                used.add(pk)
                if pk in have:
                    if a.verbose:
                        print("  ok %s  %s (%s)" % (pk, path, sorted(reasons)[0]))
                    continue
                tag = "optional: " if optional else ""
                problems.setdefault((optional, pk), set()).update(
                    "%s%s <- %s" % (tag, realp, r) for r in reasons)
    rc = 0
    for p in missing_listed:
        print("deps.closure: install-deps.sh lists %s, which is not installed here" % p)
    for (optional, pk), reasons in sorted(problems.items()):
        if optional:
            print("deps.closure: note: %s is not installed by install-deps.sh; used only where "
                  "present (with a fallback) or by a benchmark run by hand:" % pk)
        else:
            rc = 1
            print("deps.closure: MISSING PACKAGE %s: not in %s, not pulled in by a package "
                  "there, not Essential or required; needed by:" % (pk, a.install_deps))
        for r in sorted(reasons)[:8]:
            print("    " + r)
        if len(reasons) > 8:
            print("    ... and %d more" % (len(reasons) - 8))
    for m, reasons in sorted(n.python_missing.items()):
        rc = 1
        print("deps.closure: MISSING PYTHON MODULE %s: %s cannot import it; needed by: %s" %
              (m, DEBIAN_PYTHON, "; ".join(sorted(reasons))))
    for name, reasons in sorted(n.missing.items()):
        rc = 1
        print("deps.closure: MISSING %s: not found on this machine; needed by: %s" %
              (name, "; ".join(sorted(reasons))))
    for realp, reasons in sorted(unowned.items()):
        print("deps.closure: note: %s belongs to no Debian package (a local install a fresh "
              "machine lacks): %s" % (realp, sorted(reasons)[0]))
        if all(r.startswith("import ") for r in reasons):
            continue  # Debian's python3 was asked for the module too
        twin = debian_twin(realp)
        if twin:
            print("    a fresh machine runs %s instead (checked)" % twin)
        else:
            rc = 1
            print("deps.closure: MISSING %s: only a local install has it, no Debian program of "
                  "that name is installed; needed by: %s" % (realp, "; ".join(sorted(reasons))))
    unused = sorted(p for p in listed if p not in used and p in inst.deps)
    if unused:
        print("deps.closure: note: listed, owning none of the files found: %s" % " ".join(unused))
    print("deps.closure: %s (%d packages listed, %d with their dependencies and the Essential "
          "ones)" % ("ok" if rc == 0 else "FAILED", len(listed), len(have)))
    return rc


_NEEDS_FIELDS = ("paths", "optional", "missing", "python_missing")


def save_needs(n, path):
    with open(path, "w") as f:
        json.dump({k: {p: sorted(r) for p, r in getattr(n, k).items()} for k in _NEEDS_FIELDS},
                  f, indent=1, sort_keys=True)


def load_needs(path):
    n = deps_needs.Needs()
    with open(path) as f:
        d = json.load(f)
    for k in _NEEDS_FIELDS:
        setattr(n, k, {p: set(r) for p, r in d[k].items()})
    return n


def main(argv):
    a = parse_args(argv)
    if not (shutil.which("dpkg") and shutil.which("dpkg-query")):
        print("deps.closure: skipped: no dpkg here (install-deps.sh is for Debian)")
        return SKIP
    with tempfile.TemporaryDirectory(prefix="kwalk-deps-") as work:
        try:
            if a.needs_in:
                n = load_needs(a.needs_in)
            else:
                n = gather(a, work)
                add_debian_twins(n)
            if a.needs_out:
                save_needs(n, a.needs_out)
            return check(a, n)
        except (RuntimeError, ValueError, OSError) as e:
            print("deps.closure: cannot run: %s" % e)
            return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
