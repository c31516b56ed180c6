#!/usr/bin/env python3
"""check_share_pyyaml: a sidecar written with its repeated subtrees shared
(YAML anchors and aliases) loads in PyYAML, a reader kwalk does not control,
to the same data as the same sidecar written unshared.

    check_share_pyyaml.py --tool TEST_YAML_SHARE --work DIR SIDECAR...

For each SIDECAR, `test_yaml_share --write shared|plain` rewrites it both
ways; both files are loaded with PyYAML's safe loader and compared, the
shared one must hold aliases (else nothing was tested) and be smaller. The
aiter tests' event reader (tests/aiter/test_aiter.py, load_parts, which
resolves aliases itself) must load the shared file to the same data too."""
import argparse
import os
import subprocess
import sys

import yaml

LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "aiter"))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import test_aiter  # noqa: E402  (load_parts)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--tool", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("sidecars", nargs="+")
    a = p.parse_args()
    os.makedirs(a.work, exist_ok=True)
    failures, checks, aliases = [], 0, 0
    for i, side in enumerate(a.sidecars):
        out = {}
        for mode in ("plain", "shared"):
            out[mode] = os.path.join(a.work, "%d.%s.yaml" % (i, mode))
            r = subprocess.run([a.tool, "--write", mode, side, out[mode]],
                               capture_output=True, text=True)
            if r.returncode:
                failures.append("%s: --write %s failed: %s" % (side, mode, r.stderr.strip()))
        if any(not os.path.isfile(f) for f in out.values()):
            continue
        with open(out["plain"], encoding="utf-8") as f:
            plain = yaml.load(f, Loader=LOADER)
        with open(out["shared"], encoding="utf-8") as f:
            shared = yaml.load(f, Loader=LOADER)
        with open(out["shared"], encoding="utf-8") as f:
            n = sum(isinstance(e, yaml.AliasEvent) for e in yaml.parse(f, Loader=LOADER))
        with open(out["shared"], encoding="utf-8") as f:
            parts = test_aiter.load_parts(f, True)
        aliases += n
        checks += 3
        if shared != plain:
            failures.append("%s: PyYAML loads the shared file to other data" % side)
        if parts != plain:
            failures.append("%s: test_aiter.load_parts reads the shared file otherwise" % side)
        if n and os.path.getsize(out["shared"]) >= os.path.getsize(out["plain"]):
            failures.append("%s: shared file not smaller" % side)
    if not aliases:
        failures.append("no alias in any shared file: nothing was tested")
    for f in failures:
        print("FAIL: " + f)
    print("check_share_pyyaml: %d sidecars, %d aliases, %d checks, %d failures"
          % (len(a.sidecars), aliases, checks, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
