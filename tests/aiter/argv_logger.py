#!/usr/bin/env python3
"""argv_logger: stands in for clang++ in the fixture's compile.sh (CXX=...):
records each compile's working directory and arguments (for the ground-truth
launch count, which must parse the TU with exactly the compile's flags), then
runs the real compiler, given in KW_REAL_CXX, with the same arguments.
Records go to KW_ARGV_DIR/<object name>.json. With KW_ARGV_ONLY set it only
records (no compile)."""
import json
import os
import sys


def main():
    argv = sys.argv[1:]
    out = argv[argv.index("-o") + 1] if "-o" in argv else "a.out"
    rec = {"cwd": os.getcwd(), "argv": argv}
    with open(os.path.join(os.environ["KW_ARGV_DIR"], os.path.basename(out) + ".json"), "w") as f:
        json.dump(rec, f)
    if os.environ.get("KW_ARGV_ONLY"):  # record only (scripts/bench-plugin.sh)
        return
    real = os.environ["KW_REAL_CXX"]
    os.execv(real, [real] + argv)


main()
