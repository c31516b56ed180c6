#!/usr/bin/env python3
"""Occupancy that needs the source: src/wg_attrs.hip compiled with the plugin
(objs/wg_attrs.o and its sidecar). The code object records only the maximum
of a kernel's flat workgroup size range; the sidecar's occupancy uses the
range from the kernel's attrs (as the plugin recorded them) and must equal
clang's -Rpass-analysis=kernel-resource-usage remark for every kernel and
arch, e.g. 7 waves/SIMD for amdgpu_flat_work_group_size(576, 576) where the
code object alone gives 8 (which `kwalk isa`, with no source, reports). The
remark compile's code objects are checked to be the sidecar's, byte for byte.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
import kwis_common  # noqa: E402
from kwcheck import Checker  # noqa: E402
from kwis_common import (ARCHS, DIR, KWALK, load_yaml, parse_remarks, readelf_kernels,
                         run, same_bytes, scratch, sidecar_archs, unbundle)

import yaml  # noqa: E402

# kernel: (attrs the plugin must record, max_flat_workgroup_size in the code object)
EXPECT = {
    "wg_576": ({"amdgpu_flat_work_group_size": "576,576"}, 576),
    "wg_320_640": ({"amdgpu_flat_work_group_size": "320,640"}, 640),
    "hip_lb_256": ({"amdgpu_flat_work_group_size": "1,256"}, 256),
    "hip_lb_256_2": ({"amdgpu_flat_work_group_size": "1,256", "amdgpu_waves_per_eu": "2"}, 256),
    "bare_lb_256": ({"launch_bounds": "256"}, 1024),
    "bare_lb_576_1": ({"launch_bounds": "576,1"}, 1024),
    "both_192": ({"launch_bounds": "1024", "amdgpu_flat_work_group_size": "192,192"}, 192),
    "plain": ({}, 1024),
    "_Z8wg_exactILi832EEvPf": ({"amdgpu_flat_work_group_size": "832,832"}, 832),
    "_Z8wg_exactILi448EEvPf": ({"amdgpu_flat_work_group_size": "448,448"}, 448),
}
# where the source's minimum changes the answer (the point of the test)
SOURCE_MATTERS = {"wg_576": (7, 8), "_Z8wg_exactILi832EEvPf": (7, 8),
                  "_Z8wg_exactILi448EEvPf": (7, 8)}


def main():
    c = Checker("isa_sidecar.attrs", who=kwis_common.WHO)
    work = scratch("attrs")
    obj = os.path.join(DIR, "objs", "wg_attrs.o")
    doc = load_yaml(os.path.join(DIR, "objs", "wg_attrs.kwalk.yaml"))
    kernels = {k["symbol"]: k for k in doc["kernels"]}
    archs = sidecar_archs(doc)
    # what kwalk isa says from the code object alone (no attrs)
    bare = sidecar_archs(yaml.safe_load(run([KWALK, "isa", obj, "--format", "yaml"], must=True).stdout))
    cos = unbundle(obj, work, "wg_attrs")
    c.eq(sorted(kernels), sorted(EXPECT), "kernels")
    for name, (attrs, _) in EXPECT.items():
        got = {a["name"]: a["value"] for a in (kernels.get(name) or {}).get("attrs") or []}
        c.eq(got, attrs, name + ": attrs")
    for tid, co in sorted(cos.items()):
        arch = tid.split(":")[0]
        rem_cos = unbundle(os.path.join(DIR, "remarks", "wg_attrs.%s.dev.o" % arch), work,
                           "remarks")
        c.check(tid in rem_cos and same_bytes(rem_cos[tid], co),
                arch + ": the remark compile's code object differs")
        remarks = parse_remarks(os.path.join(DIR, "remarks", "wg_attrs.%s.txt" % arch))
        md = readelf_kernels(co)
        c.eq(sorted(remarks), sorted(EXPECT), arch + ": remarks' kernels")
        for name, (_, max_wg) in EXPECT.items():
            where = "%s %s" % (arch, name)
            a = archs.get((name, arch), {})
            res = a.get("resources") or {}
            c.eq(md.get(name, {}).get(
                ".max_flat_workgroup_size"), max_wg, where + ": .max_flat_workgroup_size")
            c.eq(res.get("max_flat_workgroup_size"), max_wg, where + ": max_flat_workgroup_size")
            want = int(remarks.get(name, {}).get("Occupancy [waves/SIMD]", -1))
            c.eq(res.get("occupancy"), want, where + ": occupancy")
            b = (bare.get((name, arch)) or {}).get("resources") or {}
            if name in SOURCE_MATTERS:
                c.eq((res.get("occupancy"), b.get("occupancy")), SOURCE_MATTERS[name],
                     where + ": occupancy (sidecar, code object alone)")
                c.eq(res.get("occupancy_limiter"), "workgroup", where + ": limiter")
            else:
                c.eq(b.get("occupancy"), want, where + ": kwalk isa (no source) agrees")
    c.eq(sorted(t.split(":")[0] for t in cos), sorted(ARCHS), "archs")
    c.finish()


if __name__ == "__main__":
    main()
