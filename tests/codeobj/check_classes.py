#!/usr/bin/env python3
"""Instruction classes on real listings:
  - every instruction has one class: the counts add up to the listing, which
    check_disasm.py holds equal to llvm-objdump;
  - counts that a mnemonic alone decides equal counts over llvm-objdump's text
    (s_waitcnt, s_nop, s_barrier, v_pk_*, v_mfma_*, ds_swizzle/bpermute/
    permute, v_readlane/writelane/readfirstlane, v_permlane*, DPP controls);
  - what the test kernels were written to contain is found (src/kinds.hip:
    each DPP pattern, transcendental ops, fp8/bf8 conversions, buffer, flat,
    scratch and atomic accesses, 16-byte LDS accesses)."""
import collections
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import kwco_common  # noqa: E402
from kwcheck import Checker  # noqa: E402
from kwco_common import ARCHES, dump_yaml, isa_lines, kernels_by_arch, work  # noqa: E402
from check_disasm import objdump  # noqa: E402

PREFIX = {  # class: mnemonic prefixes (from the ISA manuals' instruction names)
    "waitcnt": ("s_waitcnt",), "nop": ("s_nop ",), "barrier": ("s_barrier",),
    "valu_packed": ("v_pk_",), "mfma": ("v_mfma_",), "ds_swizzle": ("ds_swizzle",),
    "ds_bpermute": ("ds_bpermute",), "ds_permute": ("ds_permute",),
    "readlane": ("v_readlane",), "writelane": ("v_writelane",),
    "readfirstlane": ("v_readfirstlane",), "permlane": ("v_permlane",),
}
DPP = re.compile(r" (quad_perm:\[[0-9,]+\]|row_sh[lr]:\d+|row_ror:\d+|wave_(?:shl|shr|rol|ror):1|"
                 r"row_mirror|row_half_mirror|row_bcast:\d+|row_newbcast:\d+|row_share:\d+|"
                 r"row_xmask:\d+)")


def main():
    c = Checker("classes", who=kwco_common.WHO)
    for arch in ARCHES:
        path = work("co", "kinds.%s.co" % arch)
        insns, _ = objdump(path, arch)
        for (name, _), a in kernels_by_arch(dump_yaml(path)).items():
            where = "%s %s" % (arch, name)
            cls = a["classes"]
            n = len(isa_lines(a))
            c.eq(sum(v for k, v in cls.items()
                                                 if k not in ("dpp", "sdwa")), n, where + ": classes add up")
            base, size = a["code"]["address"], a["code"]["bytes"]
            texts = [t for addr, (t, _) in insns.items() if base <= addr < base + size]
            for k, prefixes in PREFIX.items():
                c.eq(cls[k], sum(t.startswith(prefixes) for t in texts), "%s: %s" % (where, k))
            pats = collections.Counter(m.group(1) for t in texts for m in [DPP.search(t)] if m)
            c.eq(cls["dpp"], sum(pats.values()), where + ": dpp")
            c.eq(a["dpp_patterns"], dict(pats), where + ": dpp patterns")

        k = kernels_by_arch(dump_yaml(work("co", "kinds.%s.co" % arch)))
        x = k[("cross_lane", arch)]
        for p in ("row_shr:1", "quad_perm:[3,2,1,0]", "row_bcast:15", "row_bcast:31",
                  "wave_shr:1", "row_mirror", "row_ror:8", "row_shl:4"):
            c.check(p in x["dpp_patterns"], "%s cross_lane: DPP %s missing" % (arch, p))
        for cl, least in (("valu_trans", 4), ("cvt_fp8_fp4", 4), ("mfma", 1), ("valu_packed", 1),
                          ("ds_swizzle", 1), ("ds_bpermute", 1), ("ds_permute", 1),
                          ("readlane", 1), ("readfirstlane", 1), ("writelane", 1),
                          ("barrier", 1)):
            c.check(x["classes"][cl] >= least,
                    "%s cross_lane: fewer than %d %s" % (arch, least, cl))
        c.check((x["classes"]["permlane"] > 0) == (arch == "gfx950"),
                arch + " cross_lane: permlane only on gfx950")
        mem = {(m["op"], m["width"]) for m in k[("mem_forms", arch)]["memory"]}
        for want in (("buffer_load", 4), ("flat_store", 4), ("global_atomic", 4),
                     ("lds_store", 16), ("lds_load", 16), ("global_load", 1),
                     ("global_store", 1), ("smem_load", 16)):
            c.check(want in mem, "%s mem_forms: no %s of %d bytes (has %s)" % (arch, want[0], want[1],
                                                                 sorted(mem)))
        sc = {m["op"] for m in k[("scratch_array", arch)]["memory"]}
        c.check(any(o.startswith("scratch_") for o in sc),
                arch + " scratch_array: no scratch access")
        v = k[("vec_add", arch)]
        c.eq(len(v["branches"]), 1, arch + " vec_add: branches")
        c.check(v["branches"][0]["label"] in v["labels"],
                arch + " vec_add: branch lands on a label")
    c.finish()


if __name__ == "__main__":
    main()
