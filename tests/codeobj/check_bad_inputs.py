#!/usr/bin/env python3
"""Broken inputs (truncated ELF, truncated bundle, offsets outside the file,
wrong magic, bad zstd/zlib data, corrupt CCOB headers, an ELF without the
metadata note, bad msgpack, garbage, a host object without or with a broken
.hip_fatbin) make kwco-dump exit with status 1 and one line on stderr that
names the input, in every mode, with no crash and no sanitizer report (the
test binary is the ASan+UBSan build when KWALK_SANITIZE=ON). --extract only
unwraps bundles, so it may succeed on a broken code object inside a sound
bundle; when it fails, it fails the same way."""
import glob
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import kwco_common  # noqa: E402
from kwcheck import Checker  # noqa: E402
from kwco_common import DUMP, work  # noqa: E402

MODES = [[], ["--yaml", "--lines"], ["--kernel", "vec_add"]]


def main():
    c = Checker("bad_inputs", who=kwco_common.WHO)
    bad = sorted(glob.glob(work("bad", "*")))
    c.check(len(bad) >= 20, "no bad inputs were generated")
    for path in bad:
        name = os.path.basename(path)
        with tempfile.TemporaryDirectory() as tmp:
            for mode in MODES + [["--extract", tmp]]:
                p = subprocess.run([DUMP, *mode, path], capture_output=True, text=True)
                where = "%s %s" % (name, " ".join(mode[:1]) or "(summary)")
                lines = p.stderr.splitlines()
                c.check("Sanitizer" not in p.stderr
                       and "runtime error" not in p.stderr, where + ": sanitizer report")
                if mode[:1] == ["--extract"] and p.returncode == 0:
                    continue
                c.eq(p.returncode, 1, where + ": exit status")
                c.eq(len(lines), 1, where + ": stderr lines")
                c.check(len(lines) == 1 and lines[0].startswith("kwco-dump: ") and path in lines[0],
                        where + ": message names the input: %r" % p.stderr[:300])
                c.eq(p.stdout if mode[:1] != ["--extract"] else "", "", where + ": stdout")
    c.finish()


if __name__ == "__main__":
    main()
