#!/usr/bin/env python3
"""Every metadata value kwco-dump reports equals llvm-readelf --notes, for
every code object (own kernels, corpus, ASM), and the kernel list equals the
metadata's plus every .kd symbol llvm-readelf lists. The target id read from
e_flags (used when a code object has no amdhsa.target) equals it too."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import kwco_common  # noqa: E402
from kwcheck import Checker  # noqa: E402
import kwllvm  # noqa: E402
from kwco_common import LLVM_BIN, code_objects, dump_yaml, run, tool, work  # noqa: E402

FIELDS = {
    "vgpr": ".vgpr_count", "agpr": ".agpr_count", "sgpr": ".sgpr_count",
    "vgpr_spill": ".vgpr_spill_count", "sgpr_spill": ".sgpr_spill_count",
    "lds_bytes": ".group_segment_fixed_size", "scratch_bytes": ".private_segment_fixed_size",
    "kernarg_bytes": ".kernarg_segment_size", "wavefront_size": ".wavefront_size",
    "max_flat_workgroup_size": ".max_flat_workgroup_size",
    "uses_dynamic_stack": ".uses_dynamic_stack",
}
ARG_FIELDS = {"name": ".name", "offset": ".offset", "size": ".size",
              "value_kind": ".value_kind", "address_space": ".address_space",
              "type_name": ".type_name"}


def kd_symbols(path):
    out = set()
    for line in run([tool("llvm-readelf"), "-s", path], must=True).stdout.splitlines():
        f = line.split()
        if len(f) >= 8 and f[3] == "OBJECT" and f[7].endswith(".kd"):
            out.add(f[7][:-3])
    return out


def main():
    c = Checker("metadata", who=kwco_common.WHO)
    for path in code_objects() + [work("asm_kernel.rel.o")]:
        md = kwllvm.readelf_metadata(LLVM_BIN, path)
        doc = dump_yaml(path, "--no-isa")
        c.eq(len(doc["code_objects"]), 1, path + ": code objects")
        target = md["amdhsa.target"].split("--", 1)[1]
        c.eq(doc["code_objects"][0]["target_id"], target, path + ": target_id")
        c.eq(doc["code_objects"][0]["elf_target_id"], target, path + ": target id from e_flags")
        arch = target.split(":")[0]
        ours = {k["symbol"]: k["archs"][arch] for k in doc["kernels"] or []}
        listed = {k[".name"] for k in md["amdhsa.kernels"]}
        c.eq({s for s, a in ours.items() if a["in_metadata"]}, listed,
             path + ": kernels in metadata")
        c.eq(set(ours), listed | kd_symbols(path), path + ": kernels (metadata + .kd symbols)")
        for k in md["amdhsa.kernels"]:
            a = ours.get(k[".name"])
            if a is None:
                continue
            where = "%s: %s" % (path, k[".name"])
            for f, key in FIELDS.items():
                c.eq(a["resources"][f], k.get(key), where + ": " + f)
            args = k.get(".args", [])
            c.eq(len(a["kernargs"]), len(args), where + ": kernarg count")
            for i, (g, m) in enumerate(zip(a["kernargs"], args)):
                for f, key in ARG_FIELDS.items():
                    c.eq(g.get(f), m.get(key), "%s: kernarg %d %s" % (where, i, f))
    c.finish()


if __name__ == "__main__":
    main()
