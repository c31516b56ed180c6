#!/usr/bin/env python3
"""check_major_independent.py: are a build's major_independent tests really
independent of the clang major? (tests/README.md says what the label means;
scripts/test.sh runs those tests in clang 22's ctest only.)

Runs each test labelled major_independent (or the tests named) as ctest
would (its command, working directory and environment) under
`strace -f -e trace=openat,execve` and fails it where a process of the test
opens a file of /usr/lib/llvm-M (clang, an LLVM tool, libLLVM: kwalk's
disassembler and LLVM's demangler load it) or something the build's clang or
plugin made (BUILD/corpus, BUILD/passes, BUILD/plugin, the aiter and ck
fixture builds under BUILD/tests). LeakSanitizer cannot run under ptrace, so
the runs set ASAN_OPTIONS=detect_leaks=0; a test that fails here for another
reason is reported too. Not a ctest test (it runs the labelled tests again):
run it after labelling a test.

  check_major_independent.py BUILD [TEST...]

Exit 0 when every test checked is independent, 1 otherwise, 77 without strace.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

LLVM = re.compile(r'"(/usr/lib/llvm-\d+/[^"]*)"')


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    build = os.path.realpath(sys.argv[1])
    names = sys.argv[2:]
    if not shutil.which("strace"):
        print("SKIP: strace is not installed")
        return 77
    cmd = ["ctest", "--test-dir", build, "--show-only=json-v1"]
    if not names:
        cmd += ["-L", "major_independent"]
    doc = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)
    made = re.compile(r'"(%s/(?:corpus|passes|plugin|tests/aiter/work|tests/ck/work)/[^"]*)"'
                      % re.escape(build))
    tests = [t for t in doc["tests"] if not names or t["name"] in names]
    if not tests:
        print("FAIL: no test to check in %s" % build)
        return 1
    bad = 0
    tmp = tempfile.mkdtemp(prefix="kwalk-major-")
    try:
        for t in tests:
            props = {p["name"]: p["value"] for p in t.get("properties", [])}
            env = dict(os.environ)
            for kv in props.get("ENVIRONMENT", []):
                k, _, v = kv.partition("=")
                env[k] = v
            env["ASAN_OPTIONS"] = "detect_leaks=0:" + env.get("ASAN_OPTIONS", "")
            trace = os.path.join(tmp, t["name"] + ".strace")
            p = subprocess.run(["strace", "-f", "-qq", "-e", "trace=openat,execve", "-o", trace]
                               + t["command"], cwd=props.get("WORKING_DIRECTORY", build), env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            with open(trace, encoding="utf-8", errors="replace") as f:
                text = f.read()
            opened = sorted(set(LLVM.findall(text)) | set(made.findall(text)))
            if opened:
                bad += 1
                print("FAIL: %s opens %d files of the major, e.g. %s"
                      % (t["name"], len(opened), ", ".join(opened[:3])))
            elif p.returncode not in (0, 77):
                bad += 1
                print("FAIL: %s exited %d under strace: %s"
                      % (t["name"], p.returncode, p.stdout[-500:]))
            else:
                print("ok: %s (%d files opened, none of the major)"
                      % (t["name"], text.count("openat(")))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d of %d tests depend on the major" % (bad, len(tests)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
