#!/usr/bin/env python3
"""--offload-compress: the corpus TU built again with the plugin, the same
flags and -cuid, and --offload-compress (objs/<tu>_z.o). Its .hip_fatbin is a
CCOB compressed bundle, clang-offload-bundler unbundles from it the very code
objects of the uncompressed corpus object, and the sidecar's ISA facts
(target_id, resources, classes, DPP patterns, memory widths, listing,
lines_note) equal those of the uncompressed build's sidecar for every kernel
and arch."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import kwis_common  # noqa: E402
from kwcheck import Checker  # noqa: E402
from kwis_common import (CORPUS, DIR, LINES_TU, read_back, run, same_bytes, scratch,
                         sidecar_archs, tool, unbundle)

KEYS = ("target_id", "resources", "classes", "dpp_patterns", "memory", "isa", "lines",
        "lines_note")


def main():
    c = Checker("isa_sidecar.compress", who=kwis_common.WHO)
    work = scratch("compress")
    zobj = os.path.join(DIR, "objs", LINES_TU + "_z.o")
    pobj = os.path.join(CORPUS, LINES_TU + ".o")
    fat = os.path.join(work, "z.fatbin")
    run([tool("llvm-objcopy"), "--dump-section=.hip_fatbin=" + fat, zobj], must=True)
    with open(fat, "rb") as f:
        c.eq(f.read(4), b"CCOB", "compressed .hip_fatbin magic")
    zc, pc = unbundle(zobj, work, "z"), unbundle(pobj, work, "plain")
    c.eq(sorted(zc), sorted(pc), "targets")
    for tid in sorted(set(zc) & set(pc)):
        c.check(same_bytes(zc[tid], pc[tid]),
                tid + ": decompressed code object differs from the uncompressed build's")
    z = sidecar_archs(read_back(os.path.join(DIR, "objs", LINES_TU + "_z.kwalk.yaml"), work))
    p = sidecar_archs(read_back(pobj + ".kwalk.yaml", work))
    c.eq(sorted(z), sorted(p), "kernels and archs")
    for key in sorted(set(z) & set(p)):
        for k in KEYS:
            c.eq(z[key].get(k), p[key].get(k), "%s %s: %s" % (key[1], key[0], k))
        c.check(z[key].get("isa"), "%s %s: no listing" % (key[1], key[0]))
    c.finish()


if __name__ == "__main__":
    main()
