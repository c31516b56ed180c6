#!/usr/bin/env python3
"""Occupancy (waves/SIMD) computed by kwco-dump from the code object equals
clang's `Occupancy [waves/SIMD]` remark (-Rpass-analysis=kernel-resource-usage)
of the same compile, for every kernel of the test kernels and the corpus on
each arch of the build; the other remark values agree with the metadata.

A code object records only the maximum of a kernel's flat workgroup size
range; kernels whose source sets a minimum above 1 (FLAT_WG, read off the
test source) get their range through --flat-wg, the way the plugin passes the
attribute it captured."""
import glob
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import kwco_common  # noqa: E402
from kwcheck import Checker  # noqa: E402
from kwco_common import dump_yaml, kernels_by_arch, parse_remarks, work  # noqa: E402


# amdgpu_flat_work_group_size(MIN, MAX) with MIN > 1 in src/kinds.hip
FLAT_WG = {"wg_576": (576, 576)}


def main():
    c = Checker("occupancy", who=kwco_common.WHO)
    pairs = []
    for rem in sorted(glob.glob(work("remarks", "*.txt"))):
        stem = os.path.basename(rem)[:-4]  # kinds.gfx942 / corpus.rope_kernels.gfx950
        if stem.startswith("reqd."):
            tu, arch = stem.rsplit(".", 1)
            obj = work("co", "%s.co" % stem)
        elif stem.startswith("corpus."):
            tu, arch = stem[len("corpus."):].rsplit(".", 1)
            obj = work("corpus", "%s.%s.dev.o" % (tu, arch))
        else:
            tu, arch = stem.rsplit(".", 1)
            obj = work("%s.%s.dev.o" % (tu, arch))
        pairs.append((rem, obj, arch))
    limiters = set()
    for rem, obj, arch in pairs:
        remarks = parse_remarks(rem)
        flags = ["--no-isa"]
        for name, (lo, hi) in FLAT_WG.items():
            flags += ["--flat-wg", "%s=%d,%d" % (name, lo, hi)]
        ours = {s: a for (s, ar), a in kernels_by_arch(dump_yaml(obj, *flags)).items()
                if ar == arch}
        c.eq(set(ours), set(remarks), obj + ": kernels")
        for fn, r in remarks.items():
            a = ours.get(fn)
            if not a:
                continue
            res, where = a["resources"], "%s: %s" % (obj, fn)
            c.eq(res["occupancy"], int(r["Occupancy [waves/SIMD]"]), where + ": occupancy")
            c.eq(res["lds_bytes"], int(r["LDS Size [bytes/block]"]), where + ": LDS")
            c.eq(res["scratch_bytes"], int(r["ScratchSize [bytes/lane]"]), where + ": scratch")
            c.eq(res["sgpr"], int(r["TotalSGPRs"]), where + ": SGPRs")
            c.eq(res["agpr"], int(r["AGPRs"]), where + ": AGPRs")
            c.eq(res["vgpr_spill"], int(r["VGPRs Spill"]), where + ": VGPR spills")
            c.eq(res["sgpr_spill"], int(r["SGPRs Spill"]), where + ": SGPR spills")
            # unified register file: arch VGPRs (aligned to 4) + AGPRs when any
            v, ag = int(r["VGPRs"]), int(r["AGPRs"])
            c.eq(res["vgpr"], (v + 3) // 4 * 4 + ag if ag else v, where + ": unified VGPRs")
            limiters.add(res["occupancy_limiter"])
    # the test kernels are built to reach each limiter at least once
    for want in ("none", "vgpr", "lds", "workgroup"):
        c.check(want in limiters, "no kernel limited by %s" % want)
    c.finish()


if __name__ == "__main__":
    main()
